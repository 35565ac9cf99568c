package server

import (
	"sync"
	"sync/atomic"

	"github.com/hotkv/hotkv/lock"
)

// Parking: a command that cannot take its locks at once parks its client
// instead of waiting on its event loop's thread.
//
// The way of a parked command:
//
//  1. acquire finds the locks taken. The command's arguments and keys are
//     copied, the guard queues for the locks (lock.Guard.LockKeysAsync or
//     LockGlobalAsync: FIFO per lock), the client is registered as parked
//     and the handler returns without a reply. The client runs no more of
//     its input (serveInput only reads it, so that a disconnect is seen);
//     its pipeline stays in order behind the parked command. The loop goes
//     on with its other connections.
//  2. When the last lock is granted — on the goroutine of whoever released
//     it — a task is handed to the client's own loop (Client.invoke). It
//     runs the command again through the gate's call and the executor,
//     with the locks already held: acquire finds them granted and takes
//     them over. (A release may instead wake the client to take a free
//     lock itself, lock.Guard.SetDomain: the task first calls
//     lock.Guard.Resume, and waits on when it finds the lock taken.) Whatever the
//     handler checked before locking is checked again, at the time the
//     command really runs; a command that now wants other locks gives the
//     granted ones back and asks again.
//  3. A script that becomes busy (busy-reply-threshold) has the parked
//     requests that need its locks withdrawn (lock.Guard.Cancel, by each
//     client on its own loop) and answered BUSY, as Redis answers the
//     clients that arrive during a busy script. Registration and the busy check are ordered by parkState.mu
//     and scripting.mu, so a request either sees the busy script or is
//     seen by it.
//
// Internal clients (no connection: the append-only file's replay, a
// background save) wait on their own goroutine instead.
type parkState struct {
	mu      sync.Mutex
	clients map[*parking]struct{}
	parks   atomic.Int64 // commands parked since start (INFO keylocks)
}

// parking is one parked command.
type parking struct {
	c      *Client
	g      *lock.Guard
	cmd    *Command
	args   [][]byte // the command's arguments, copied: the read buffer moves on
	global bool
	keys   [][]byte // copied; the guard's tags alias them until Unlock
	write  bool
	// granted is set on the client's loop once the locks are held, until
	// acquire takes them over.
	granted bool
	// loading marks a command parked while its cold values are read
	// (tierprep.go): it holds and queues no lock, and busy scripts do not
	// look for it.
	loading bool
}

// acquire takes the locks a command needs: the global lock exclusively
// (global), or its keys' tag locks (exclusively when write), with g. It
// reports whether they are held; when not, the command was either refused
// (BUSY: a busy script holds what it needs) or parked (c.parked is set),
// and the handler must return at once without replying.
func (s *Server) acquire(c *Client, g *lock.Guard, global bool, keys [][]byte, write bool) bool {
	if p := c.parked; p != nil && p.granted {
		// The command runs again after its locks were granted.
		c.parked = nil
		if p.g == g && p.matches(global, keys, write) {
			if global {
				s.completeSnapshot()
			}
			return true
		}
		p.g.Unlock() // it now wants other locks
	}
	if global {
		if g.TryLockGlobal() {
			// The whole keyspace may change: a running snapshot takes
			// what it has not copied yet.
			s.completeSnapshot()
			return true
		}
	} else if g.TryLockKeys(keys, write) {
		return true
	}
	cmd := c.curCmd
	if s.scripting.busy.Load() > 0 && cmd.Flags&AllowBusy == 0 {
		if msg := s.busyConflict(global, keys, write); msg != "" {
			s.refuse(c, cmd, msg)
			return false
		}
	}
	if c.conn == nil {
		// An internal client: nothing else runs on its goroutine.
		if global {
			g.LockGlobal()
			s.completeSnapshot()
		} else {
			g.LockKeys(keys, write)
		}
		return true
	}
	p := &parking{c: c, g: g, cmd: cmd, args: copyArgs(c.curArgs), global: global, keys: copyArgs(keys), write: write}
	grant := func() { c.invoke(func() { s.resumeParked(p) }) }
	var ok bool
	if global {
		ok = g.LockGlobalAsync(grant)
	} else {
		ok = g.LockKeysAsync(p.keys, write, grant)
	}
	if ok {
		if global {
			s.completeSnapshot()
		}
		return true
	}
	c.parked = p
	s.parking.add(p)
	if cmd.Flags&AllowBusy == 0 {
		if msg := s.busyConflict(global, keys, write); msg != "" && s.parking.withdraw(p) {
			c.parked = nil
			s.refuse(c, cmd, msg)
			return false
		}
	}
	return false
}

// matches reports whether p's granted locks are those asked for now.
func (p *parking) matches(global bool, keys [][]byte, write bool) bool {
	if global || p.global {
		return global == p.global
	}
	for _, k := range keys {
		if !p.g.Covers(k, write) {
			return false
		}
	}
	return true
}

// resumeParked runs p's command again on its client's loop, now that its
// locks are held, and goes on with the client's input.
func (s *Server) resumeParked(p *parking) {
	c := p.c
	if c.parked != p {
		s.parking.remove(p)
		return // withdrawn meanwhile: a stale wake (lock.Guard.SetDomain)
	}
	if !p.g.Resume() {
		// Woken to take its lock, it found it taken (or took it and
		// queued for the next): it waits on, granted when it holds them.
		if c.gone.Load() && s.parking.withdraw(p) {
			c.parked = nil
		}
		return
	}
	s.parking.remove(p)
	if c.gone.Load() {
		c.parked = nil
		p.g.Unlock()
		return
	}
	p.granted = true
	mark := len(c.w.Buf)
	s.call(c, p.cmd, p.args)
	if c.parked == p {
		// The handler took another way and never asked for the locks.
		c.parked = nil
		p.g.Unlock()
	}
	if c.parked == nil {
		c.applyReplyMode(mark)
		c.preloaded = c.preloaded[:0] // values read for it (tierprep.go)
	}
	c.resume()
}

// add registers a parked command (for busy scripts to find).
func (ps *parkState) add(p *parking) {
	ps.parks.Add(1)
	ps.mu.Lock()
	if ps.clients == nil {
		ps.clients = make(map[*parking]struct{})
	}
	ps.clients[p] = struct{}{}
	ps.mu.Unlock()
}

func (ps *parkState) remove(p *parking) {
	ps.mu.Lock()
	delete(ps.clients, p)
	ps.mu.Unlock()
}

// withdraw cancels p's lock request and unregisters it; it reports false
// when the locks were granted meanwhile (the resume task is on its way).
func (ps *parkState) withdraw(p *parking) bool {
	if !p.g.Cancel() {
		return false
	}
	ps.remove(p)
	return true
}

// refuseParked answers BUSY (msg) to the parked commands that need the
// locks of sr, a script that just became busy. Each request is withdrawn
// by its own client, on its loop (a guard belongs to its owner).
func (s *Server) refuseParked(sr *scriptRun, msg string) {
	ps := &s.parking
	ps.mu.Lock()
	var hit []*parking
	for p := range ps.clients {
		if p.cmd.Flags&AllowBusy == 0 && sr.conflicts(p.global, p.keys, p.write) {
			hit = append(hit, p)
		}
	}
	ps.mu.Unlock()
	for _, p := range hit {
		c := p.c
		c.invoke(func() {
			if c.parked != p || p.granted || !ps.withdraw(p) {
				return // granted meanwhile: it runs
			}
			c.parked = nil
			if c.gone.Load() {
				return
			}
			mark := len(c.w.Buf)
			s.refuse(c, p.cmd, msg)
			c.applyReplyMode(mark)
			c.resume()
		})
	}
}

// unparkOnClose withdraws c's parked command when its connection goes
// away; if the locks are already granted, the resume task releases them.
func (c *Client) unparkOnClose() {
	if p := c.parked; p != nil && p.loading {
		return // the values' reader finds the client gone
	}
	if p := c.parked; p != nil && !p.granted && c.srv.parking.withdraw(p) {
		c.parked = nil
	}
}
