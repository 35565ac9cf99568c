package server

import (
	"time"

	"github.com/hotkv/hotkv/lock"
)

// execute is the one executor: every command that runs passes through it
// — a client's own (the gate's call), each of EXEC's queued commands, each
// redis.call of a script, each command of the append-only file's replay.
// In order:
//
//  1. the hooks may refuse it (Hooks.Refuse: ACL, cluster routing);
//  2. unless held, its locks: the global lock or its keys' tag locks, from
//     the command table (lockFor: the hooks prepare the keys first), or
//     its client parks until they are granted and the command comes back
//     here (park.go). held says the caller holds them: EXEC for its queue,
//     a script for its redis.call, DEBUG LOADAOF for the replay. EXEC and
//     scripts (RunsQueue, Scripting) take their own locks in their
//     handlers, through lockFor too;
//  3. the handler;
//  4. MONITOR, the journal record of what it propagates, its command
//     statistics, its latency (histogram, latency monitor) and the slow
//     log (a blocked command's statistics and slow log entry when it is
//     answered);
//  5. unless held, complete: the journal records are emitted under its
//     locks, the clients blocked on keys it filled are served, and the
//     locks are released.
//
// start is when the command started (monoNow). It returns when it ended,
// and ran false when it did not run: refused (answered), or parked (its
// client's c.parked is set; it runs again later).
func (s *Server) execute(c *Client, cmd *Command, args [][]byte, start time.Duration, held bool) (end time.Duration, ran bool) {
	return s.executeKeyed(c, cmd, args, start, held, false)
}

// executeKeyed is execute; known says c.keyPos already holds cmd's key
// positions in args (a script's redis.call computed them for its lock
// coverage), so that they are computed once per command.
func (s *Server) executeKeyed(c *Client, cmd *Command, args [][]byte, start time.Duration, held, known bool) (end time.Duration, ran bool) {
	if s.hooks.refusing() {
		if !known {
			c.keyPos = cmd.keyPositions(c.keyPos[:0], args)
			known = true
		}
		if msg := s.hooks.refuse(c, cmd, args, c.keyPos); msg != "" {
			s.reject(c, cmd, msg)
			return 0, false
		}
	}
	if !held && !s.lockCommand(c, cmd, args, known) {
		return 0, false
	}
	errs := c.errors
	// The watchdog's view (swatchdog.go): the outermost handler's start.
	watched := s.swd.on.Load() && c.running.Load() == 0
	if watched {
		c.running.Store(int64(monoNow()))
	}
	s.runHandler(c, cmd, args)
	if watched {
		c.running.Store(0)
	}
	if c.parked != nil {
		return 0, false // EXEC or a script parked for its locks
	}
	if s.monitors.Load() > 0 && cmd.monitored() && !c.replaying {
		s.feedMonitors(c, args) // once it ran, as Redis's call()
	}
	if cmd.Flags&(Readonly|Scripting) == Readonly && (c.trk.on || c.scripted) {
		// Client-side caching: the keys it read (trackingRemember). The
		// *_RO script commands are read-only, but what their scripts read
		// is counted by their commands.
		s.trackingRemember(c, cmd, args)
	}
	failed := c.errors != errs
	if held && c.tx.inExec {
		// A queued command's error is its own, not EXEC's: Redis counts
		// an error for the command that replied it.
		c.errors = errs
	}
	changes := c.recordWrite(cmd, args, failed)
	c.memDirty = c.memDirty || changes > 0
	if changes > 0 && !c.obey && s.isReplica() {
		s.rememberReplicaExpires(c, cmd, args) // a writable replica's own write
	}
	end = monoNow()
	d := end - start
	if w := c.blocked; w != nil {
		// Counted and logged when it is answered (finish), as Redis's
		// updateStatsOnUnblock.
		w.cmd, w.args, w.took = cmd, copyArgs(args), d
	} else {
		c.stats.count(cmd, d, failed, changes, s.latencyTracking.Bool())
		if !c.replaying { // Redis runs the file's commands without call()
			s.slowlog.maybeAdd(s, c, cmd, args, d)
		}
	}
	if t := s.latencyThreshold.Int(); t > 0 && d.Milliseconds() >= t && !c.replaying {
		s.latencyEvent(cmd, d)
	}
	if !held {
		s.complete(c)
		if s.tier.eager {
			s.demoteNow(int(c.dbIndex.Load()), c.keys)
		}
	}
	return end, true
}

// lockCommand takes the locks cmd needs with c's guard: none for commands
// that take their own (Scripting, RunsQueue) or none at all (LockFree),
// the global lock exclusively for Global ones, else its keys' tag locks,
// exclusively when it writes. It reports false when the command was
// refused or parked (lockFor). known says c.keyPos holds cmd's key
// positions already.
func (s *Server) lockCommand(c *Client, cmd *Command, args [][]byte, known bool) bool {
	switch {
	case cmd.Flags&(Scripting|RunsQueue|LockFree) != 0:
		return true
	case cmd.Flags&Global != 0 || cmd.GlobalFor != nil && cmd.GlobalFor(args):
		return s.lockFor(c, c.guard, true, nil, true)
	}
	if !known {
		c.keyPos = cmd.keyPositions(c.keyPos[:0], args)
	}
	if len(c.keyPos) == 0 {
		return true
	}
	c.keys = c.keys[:0]
	for _, i := range c.keyPos {
		c.keys = append(c.keys, args[i])
	}
	load := c.keys
	if cmd.KeysOnly != nil && cmd.KeysOnly(args) {
		load = nil // its values stay where they are
	}
	return s.lockLoaded(c, c.guard, false, c.keys, load, cmd.Flags&(Write|Exclusive) != 0)
}

// lockFor is the one place where a command, a transaction or a script
// asks for its locks with g: the global lock exclusively (global), or
// keys' tag locks (exclusively when write). Before it asks, the hooks
// prepare the keys (Hooks.Prepare), their cold values are read with no
// lock held (lockLoaded, tierprep.go) and the keys' cache misses are overlapped
// (MSET: 31% of its CPU before). It reports whether the locks are held;
// when not, the command was refused (BUSY) or parked, and must return at
// once (acquire).
func (s *Server) lockFor(c *Client, g *lock.Guard, global bool, keys [][]byte, write bool) bool {
	return s.lockLoaded(c, g, global, keys, keys, write)
}

// lockLoaded is lockFor that first reads the cold values of load (keys
// whose values the command needs: its keys, a script's declared keys
// under the global lock, a transaction's value-reading commands' keys)
// with no lock held, parking c meanwhile (tierprep.go), and installs
// them once the locks are held.
func (s *Server) lockLoaded(c *Client, g *lock.Guard, global bool, keys, load [][]byte, write bool) bool {
	if len(keys) > 1 {
		c.db.Prefetch(keys)
	}
	for _, prepare := range s.hooks.Prepare {
		prepare(c, keys)
	}
	if !s.preload(c, load) {
		return false // parked while the values are read
	}
	for {
		gen := s.search.aliasGen.Load()
		lk := keys
		if !global {
			// The indexes the keys match or name as aliases (search.go).
			lk = s.searchLocks(keys, write)
		}
		if !s.acquire(c, g, global, lk, write) {
			if c.parked == nil {
				c.preloaded = c.preloaded[:0] // refused
			}
			return false
		}
		if global || s.search.aliasGen.Load() == gen {
			break
		}
		// An alias changed (under the global lock) before these locks
		// were held: the index it names may be another one now.
		g.Unlock()
	}
	if len(c.preloaded) > 0 {
		s.installPreloaded(c)
	}
	return true
}

// complete ends a command that ran under locks of its own, held by c's
// guard: its journal records are emitted while the locks are held (so
// that writes to one key reach the stream in the order they ran), the
// clients blocked on keys it filled are served — those its locks cover at
// once, before any other command can take the data, as in Redis; the
// others after, with locks of their own — and the locks are released.
func (s *Server) complete(c *Client) {
	s.searchSync(c.guard) // the indexes of the keys it changed
	s.emit(c)
	if s.blocking.ready.Load() {
		s.serveReady(c, true)
	}
	if s.tracking.fired.Load() {
		// The invalidations of the keys it changed, while its locks say
		// which those are.
		s.trackingClaim(c.trackingActor(), c.guard)
	}
	c.guard.Unlock()
	if s.blocking.ready.Load() {
		s.serveReady(c, false)
	}
}
