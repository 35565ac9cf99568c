package server

import (
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/script"
)

// Pausing: CLIENT PAUSE and CLIENT UNPAUSE, as Redis 7.0's pauseClients,
// unpauseClients and processCommand's BLOCKED_POSTPONE.
//
// While a pause lasts, the gate postpones the commands it applies to —
// every command (ALL), or those that may write or propagate (WRITE:
// Redis's is_may_replicate_command, with a script's declared flags and
// EXEC's queued commands counted) — after the checks that answer at once
// (unknown command, arity, auth, OOM, MISCONF, busy script) and before
// MULTI's queue, where processCommand does. A postponed command is copied
// and its client runs no more of its input, as a parked client (park.go):
// no loop waits. The client counts in INFO's blocked_clients and shows the
// b flag in CLIENT LIST. When the pause ends — CLIENT UNPAUSE, or its end
// time, a timer — the postponed clients go through the gate again, one
// after the other in the order they were postponed (each hands the next
// its turn once its command went through the gate), then go on with their
// input. Internal clients (no connection: the AOF replay; a script's
// redis.call and EXEC's queue never pass the gate) are never postponed.
//
// While paused no key expires: lazy expiry reads expired keys as missing
// without removing them (keyspace.DB.HoldExpired) and the active cycle does
// nothing, as Redis keeps the dataset still for a failover.
//
// A command that passed the gate before the pause began still runs.
// CLIENT PAUSE inside a transaction takes effect for other commands at
// once and for the transaction at its end: the rest of EXEC's queue runs,
// as in Redis.

// Pause modes, ordered as Redis's pause_type: a later pause keeps the more
// restrictive one.
const (
	pauseOff int32 = iota
	pauseWrite
	pauseAll
)

// Pause purposes, as Redis 7.0's pause_purpose: each keeps a mode and an
// end of its own, and the pause in effect is the most restrictive mode of
// those that last. Ending one (CLIENT UNPAUSE ends only CLIENT PAUSE's)
// leaves the others.
const (
	pauseByClient    = iota // CLIENT PAUSE
	pauseForShutdown        // SHUTDOWN waiting for its replicas
	pauseForFailover        // FAILOVER
	pausePurposes
)

// pauseState is the server's pause and its postponed clients.
type pauseState struct {
	mode  atomic.Int32 // the pause in effect; the gate reads it with one load
	count atomic.Int64 // postponed clients, for INFO's blocked_clients

	mu struct {
		sync.Mutex
		// purposes: each purpose's mode (pauseOff: none) and end (unix
		// ms: it lasts while now <= end).
		purposes [pausePurposes]struct {
			mode int32
			end  int64
		}
		timer *time.Timer
		queue []*postponement // in the order the clients were postponed
	}
}

// postponement is one postponed command.
type postponement struct {
	c    *Client
	args [][]byte // copied: the read buffer moves on
	// Under pauseState.mu: resuming is set when the resume task is on its
	// way to the client's loop; dead when the client went away before.
	resuming, dead bool
}

// CLIENT PAUSE timeout [WRITE|ALL]
//
// timeout is in milliseconds from now; the mode is checked before it, as
// Redis does. A timeout of 0 (or one past the end of time) pauses nothing,
// but changes the mode of a pause in effect.
func cmdClientPause(c *Client, args [][]byte) {
	if len(args) > 4 {
		c.errorReply(fmtSubcommandArgs(args[1], "CLIENT"))
		return
	}
	mode := pauseAll
	if len(args) == 4 {
		switch {
		case equalFold(args[3], "write"):
			mode = pauseWrite
		case equalFold(args[3], "all"):
		default:
			c.errorReply(errPauseMode)
			return
		}
	}
	ms, ok := parseInt(args[2])
	switch {
	case !ok:
		c.errorReply(errTimeoutNotInt)
		return
	case ms < 0:
		c.errorReply(errTimeoutNegative)
		return
	}
	var end int64
	if ms > 0 {
		// Redis adds without an overflow check: a huge timeout wraps
		// into the past and ends the pause at once.
		end = int64(uint64(ms) + uint64(time.Now().UnixMilli()))
	}
	c.srv.pauseClients(pauseByClient, mode, end)
	c.w.OK()
}

// CLIENT UNPAUSE
func cmdClientUnpause(c *Client, args [][]byte) {
	c.srv.unpauseClients(pauseByClient)
	c.w.OK()
}

// pauseClients starts purpose's pause of mode until end (unix ms), or
// extends the one in effect: the later end and the more restrictive mode
// win, as Redis's pauseClients. An end already past ends it at once.
func (s *Server) pauseClients(purpose int, mode int32, end int64) {
	ps := &s.pause
	ps.mu.Lock()
	p := &ps.mu.purposes[purpose]
	if p.mode != pauseOff {
		mode, end = max(mode, p.mode), max(end, p.end)
	}
	p.mode, p.end = mode, end
	q := s.updatePauseLocked()
	ps.mu.Unlock()
	s.resumeNext(q)
}

// unpauseClients ends purpose's pause, if any, and resumes the postponed
// clients the pause left in effect (if any) does not hold.
func (s *Server) unpauseClients(purpose int) {
	ps := &s.pause
	ps.mu.Lock()
	ps.mu.purposes[purpose].mode = pauseOff
	q := s.updatePauseLocked()
	ps.mu.Unlock()
	s.resumeNext(q)
}

// pauseTimeout is the pause timer's function: it ends the pauses whose
// end passed. A server shutting down resumes no one.
func (s *Server) pauseTimeout() {
	ps := &s.pause
	ps.mu.Lock()
	if ps.mode.Load() == pauseOff || s.closing.Load() {
		ps.mu.Unlock()
		return
	}
	q := s.updatePauseLocked()
	ps.mu.Unlock()
	s.resumeNext(q)
}

// updatePauseLocked drops the purposes whose end passed, puts the most
// restrictive mode of the others in effect and sets the timer for the
// earliest end. When the pause became less restrictive (or ended) it
// returns the postponed commands, to resume in order: those the pause
// still holds are postponed again. The caller holds pause.mu.
func (s *Server) updatePauseLocked() []*postponement {
	ps := &s.pause
	now := time.Now().UnixMilli()
	mode, next := pauseOff, int64(math.MaxInt64)
	for i := range ps.mu.purposes {
		p := &ps.mu.purposes[i]
		if p.mode != pauseOff && p.end < now {
			p.mode = pauseOff
		}
		if p.mode != pauseOff {
			mode, next = max(mode, p.mode), min(next, p.end)
		}
	}
	old := ps.mode.Swap(mode)
	if (old == pauseOff) != (mode == pauseOff) {
		s.updateHoldExpired()
	}
	if ps.mu.timer != nil {
		ps.mu.timer.Stop()
	}
	if mode != pauseOff && next-now < 1<<40 {
		wait := time.Duration(next+1-now) * time.Millisecond
		if ps.mu.timer == nil {
			ps.mu.timer = time.AfterFunc(wait, s.pauseTimeout)
		} else {
			ps.mu.timer.Reset(wait)
		}
	}
	if mode >= old {
		return nil
	}
	q := ps.mu.queue
	ps.mu.queue = nil
	return q
}

// updateHoldExpired makes the databases keep their expired keys (lazy
// expiry reads them as missing without removing them) while the server
// is a replica (its master's DELs remove them) or a pause is in effect.
func (s *Server) updateHoldExpired() {
	hold := s.isReplica() || s.pause.mode.Load() != pauseOff
	for _, db := range s.dbs {
		db.HoldExpired.Store(hold)
	}
}

// paused reports whether the pause applies to cmd sent by c (the gate):
// a pause is in effect, c is a connection's client, and the pause is ALL
// or cmd may write or propagate. A command MULTI refuses (no_multi) is
// refused at once, as Redis checks that before the pause.
func (s *Server) paused(c *Client, cmd *Command, args [][]byte) bool {
	return c.conn != nil && s.pausedFor(c, cmd, args)
}

// pausedFor is paused for any client, a replica's master client included
// (which waits on its link rather than being postponed).
func (s *Server) pausedFor(c *Client, cmd *Command, args [][]byte) bool {
	mode := s.pause.mode.Load()
	if mode == pauseOff || c.tx.active && cmd.Flags&(NoMulti|TxControl) == NoMulti {
		return false
	}
	return mode == pauseAll || s.mayReplicate(c, cmd, args)
}

// mayReplicate is processCommand's is_may_replicate_command: cmd may
// write or propagate, with a script's declared flags in place of EVAL's
// and FCALL's, and for EXEC, any of the transaction's queued commands.
func (s *Server) mayReplicate(c *Client, cmd *Command, args [][]byte) bool {
	const mask = Write | MayReplicate
	if cmd.Flags&RunsQueue != 0 && c.tx.active {
		for _, q := range c.tx.queue {
			if s.commandFlags(q.cmd, q.args)&mask != 0 {
				return true
			}
		}
	}
	return s.commandFlags(cmd, args)&mask != 0
}

// commandFlags returns cmd's flags for this call, as Redis's
// getCommandFlags: a script with a shebang (cached, or read from the
// body) or a function has its declared flags stand for the command's
// write, deny-OOM, stale and may-replicate flags (scriptFlagsToCmdFlags).
// A script or function that cannot be found keeps the command's flags.
func (s *Server) commandFlags(cmd *Command, args [][]byte) Flag {
	if cmd.Flags&Scripting == 0 || len(args) < 2 {
		return cmd.Flags
	}
	sc := &s.scripting
	var flags script.Flags
	switch cmd.Name {
	case "fcall", "fcall_ro":
		fn := sc.engine.Function(string(args[1]))
		if fn == nil {
			return cmd.Flags
		}
		flags = fn.Flags
	case "evalsha", "evalsha_ro":
		sr := sc.engine.Get(string(args[1]))
		if sr == nil {
			return cmd.Flags
		}
		flags = sr.Flags
	default:
		body := string(args[1])
		if sr := sc.engine.Get(script.SHA1Hex(body)); sr != nil {
			flags = sr.Flags
		} else if f, ok := script.ShebangFlags(body); ok {
			flags = f
		} else {
			return cmd.Flags
		}
	}
	if flags&script.Compat != 0 {
		// No shebang: HotKV's configured default flags, as the script
		// will run with them (evalGeneric), else the command's.
		d := sc.defaultFlags.Int()
		if d == 0 {
			return cmd.Flags
		}
		flags = script.Flags(d)
	}
	f := cmd.Flags &^ (Stale | DenyOOM | Write | MayReplicate)
	if flags&(script.AllowOOM|script.NoWrites) == 0 {
		f |= DenyOOM
	}
	if flags&script.NoWrites == 0 {
		f |= Write
	}
	if flags&script.AllowStale != 0 {
		f |= Stale
	}
	return f
}

// postpone makes c wait with cmd until the pause ends (Redis's
// blockClient(c, BLOCKED_POSTPONE)). It reports false when the pause
// ended meanwhile: the gate goes on with the command.
func (s *Server) postpone(c *Client, cmd *Command, args [][]byte) bool {
	p := &postponement{c: c, args: copyArgs(args)}
	ps := &s.pause
	ps.mu.Lock()
	if ps.mode.Load() == pauseOff {
		ps.mu.Unlock()
		return false
	}
	ps.mu.queue = append(ps.mu.queue, p)
	ps.count.Add(1)
	ps.mu.Unlock()
	c.postponed = p
	c.isBlocked.Store(true)
	c.setLastCmd(cmd) // CLIENT LIST shows the postponed command, as Redis's lastcmd

	return true
}

// resumeNext hands the first live postponed command of q to its client's
// loop; that client, once its command went through the gate, hands on the
// rest (resumePostponed), so the commands go through in the order they
// were postponed.
func (s *Server) resumeNext(q []*postponement) {
	ps := &s.pause
	for len(q) > 0 {
		p := q[0]
		q = q[1:]
		ps.mu.Lock()
		dead := p.dead
		p.resuming = !dead
		ps.mu.Unlock()
		if !dead {
			p.c.invoke(func() { s.resumePostponed(p, q) })
			return
		}
	}
}

// resumePostponed runs p's command through the gate again, on its
// client's loop (postponed again if another pause began), hands on the
// rest of the queue, and goes on with the client's input.
func (s *Server) resumePostponed(p *postponement, rest []*postponement) {
	c := p.c
	s.pause.count.Add(-1)
	c.postponed = nil
	c.isBlocked.Store(false)
	if !c.gone.Load() {
		s.dispatch(c, p.args)
	}
	s.resumeNext(rest)
	if c.gone.Load() {
		return
	}
	if c.closeAfter || c.killed.Load() {
		c.flushLast()
		c.conn.Close()
		return
	}
	c.resume()
}

// unpostponeOnClose forgets c's postponed command when its connection goes
// away; a resume already on its way finds c gone.
func (c *Client) unpostponeOnClose() {
	p := c.postponed
	if p == nil {
		return
	}
	ps := &c.srv.pause
	ps.mu.Lock()
	if !p.resuming {
		p.dead = true
		for i, x := range ps.mu.queue {
			if x == p {
				ps.mu.queue = append(ps.mu.queue[:i], ps.mu.queue[i+1:]...)
				break
			}
		}
		ps.count.Add(-1)
		c.postponed = nil
	}
	ps.mu.Unlock()
}
