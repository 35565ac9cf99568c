package server

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/config"
	"github.com/hotkv/hotkv/journal"
	"github.com/hotkv/hotkv/lock"
	"github.com/hotkv/hotkv/script"
)

// Scripts and functions (EVAL, FCALL) on key-based locks
// (../shared/spec/key-based-locking.md):
//
//   - A script without allow-key-locking runs under the global lock,
//     exclusively: it may touch any key, dynamic names included.
//   - With allow-key-locking it locks the hash tags of its declared keys
//     (exclusively, or shared when it cannot write), and every key a
//     redis.call touches must be covered by those locks.
//   - Inside MULTI a script runs under the transaction's global lock.
//
// A script runs on its client's goroutine. On the event-loop transport a
// script that runs longer than handoffAfter has its loop go on with the
// other connections on another goroutine (eventloop's watchdog), so that
// a long script stalls only the clients that need its locks; its client's
// later commands wait for it. Commands a script runs go through
// scriptRun.call, the script's side of the gate.
type scripting struct {
	engine       *script.Engine
	threshold    *config.Param // busy-reply-threshold
	defaultFlags *config.Param // script-default-flags (HotKV)
	// allowDenied lets scripts call noscript commands (DEBUG
	// SET-DISABLE-DENY-SCRIPTS, for tests, as Redis's
	// script_disable_deny_script).
	allowDenied atomic.Bool

	// running holds the busy scripts: those past busy-reply-threshold
	// (BUSY replies, SCRIPT KILL, FUNCTION STATS look at them).
	mu      sync.Mutex
	running map[*scriptRun]struct{}
	// Per stat slot (so that cores do not share one line): the runs under
	// the global lock and under key locks (INFO keylocks). busy counts the
	// scripts past busy-reply-threshold; lock waits check it.
	slots [statSlots]struct {
		globalRuns, keyLockedRuns atomic.Int64
		_                         [48]byte
	}
	busy atomic.Int32
	// busyGlobal counts the busy scripts that hold the global lock: while
	// one runs the server is busy as Redis's is, and every command without
	// allow_busy gets BUSY (busyReply). busyEval says whether the last
	// script to become busy is an EVAL script (the error names SCRIPT
	// KILL) rather than a function.
	busyGlobal atomic.Int32
	busyEval   atomic.Bool
}

// scriptRun is one running script or function.
type scriptRun struct {
	s      *Server
	caller *Client // the client that called it
	ec     *Client // the engine client its commands run on
	eval   bool    // EVAL family (SCRIPT KILL) rather than FCALL (FUNCTION KILL)
	name   string
	argv   [][]byte // the command, for FUNCTION STATS
	flags  script.Flags
	ro     bool          // no writes: *_RO, no-writes flag
	keyed  bool          // allow-key-locking: locks only its keys' tags
	oom    bool          // over maxmemory when it started
	start  time.Duration // monoNow when it started running
	guard  *lock.Guard   // the locks it runs under
	tags   [][]byte      // the tags it locked (keyed), for BUSY
	excl   bool
	script *script.Script   // what it runs: an EVAL script
	fn     *script.Function // or a function
	run    script.Run
	dirty  atomic.Bool // ran a write: SCRIPT KILL refuses
	// callFn, interruptFn, onErrorFn, setReplFn and permitFn are call,
	// interrupt, the caller's scriptError, setRepl and permitted, bound
	// once for the engine client's reused run.
	callFn      func(args [][]byte, proto int) ([]byte, string)
	interruptFn func() bool
	onErrorFn   func(msg string, counted bool)
	setReplFn   func(flags int)
	permitFn    func(args [][]byte) bool
	killed      atomic.Bool
	timed       atomic.Bool // past busy-reply-threshold
}

// scriptClient returns c's engine client: the client a script's
// redis.call commands run on, as Redis's Lua client, with its own reply
// buffer (each reply becomes a Lua value), database (SELECT in a script
// does not change the caller's), lock guard and statistics.
func (c *Client) scriptClient() *Client {
	if c.engine == nil {
		s := c.srv
		c.engine = s.newInternalClient(engineClient, c.id, 0)
		if c.conn != nil {
			// Its scripts ask for their locks on c's loop, with the
			// loop's other clients: in c's domain (lock.Guard.SetDomain).
			c.engine.guard.SetDomain(c.conn.Loop())
		}
	}
	ec := c.engine
	ec.selectDB(int(c.dbIndex.Load()))
	ec.replaying = c.replaying   // the AOF replay's scripts are unseen too
	ec.user.Store(c.user.Load()) // its commands run as the caller's user
	return ec
}

// runScript locks what the run needs (unless held: inside EXEC) and runs
// its script or function, which writes the reply to the caller. It counts
// the run for INFO. A script that cannot get its locks because a busy
// script holds them is refused with BUSY.
func (s *Server) runScript(c *Client, sr *scriptRun, held bool) {
	run := &sr.run
	ec := sr.ec
	sc := &s.scripting
	g := ec.guard
	if held {
		g = c.guard // EXEC's: the global lock
	}
	sr.guard = g
	slot := &sc.slots[c.slot]
	keys := run.Keys
	if !held {
		var ok bool
		if sr.keyed {
			// Without keys: the global lock, shared, and no key covered.
			ok = s.lockFor(c, g, false, keys, !sr.ro)
			sr.excl = !sr.ro
			for _, k := range keys {
				sr.tags = append(sr.tags, lock.Tag(k))
			}
		} else {
			// The declared keys' cold values are read before the
			// global lock is asked for, as under key locks.
			ok = s.lockLoaded(c, g, true, nil, keys, true)
		}
		if !ok {
			return
		}
	}
	if sr.keyed { // never inside EXEC
		slot.keyLockedRuns.Add(1)
	} else {
		slot.globalRuns.Add(1)
	}
	// Whatever ends the run (a panic inside the VM included, recovered by
	// the gate's runHandler), its busy state and its locks go with it.
	defer s.endScript(c, sr, held)
	sr.start = monoNow()
	ec.mark = sr.start // the first redis.call starts from here: one clock read less
	if !sr.keyed {
		// Time stands still for keys' expiry while the script runs, as
		// in Redis; under the global lock nobody else sees it. A
		// key-locked script sees the time go on: freezing it would
		// freeze it for the clients running beside it.
		s.frozenTime.Store(s.dbs[0].Now())
	}
	if sr.script != nil {
		sc.engine.Eval(sr.script, run, &c.w)
	} else {
		sc.engine.FCall(sr.fn, run, &c.w)
	}
}

// endScript ends sr's run: it is no longer busy, and, unless its locks
// are EXEC's, its writes are emitted as one unit under its locks, clients
// blocked on keys it filled are served and the locks are released (the
// executor's complete, on the engine client, whose guard holds them).
// Inside EXEC its writes join the transaction's unit. It runs on every
// way out of the run, a panic included.
func (s *Server) endScript(c *Client, sr *scriptRun, held bool) {
	sc := &s.scripting
	ec := sr.ec
	if !sr.keyed {
		s.frozenTime.Store(0)
	}
	if sr.timed.Load() {
		sc.mu.Lock()
		delete(sc.running, sr)
		sc.mu.Unlock()
		sc.busy.Add(-1)
		if !sr.keyed {
			sc.busyGlobal.Add(-1)
		}
	}
	if held {
		c.takeRecords(ec)
	} else {
		s.complete(ec)
	}
	ec.mark = 0
	if c.conn == nil {
		// A caller without a connection (the append-only file's replay)
		// has no batch that publishes them (publishStats).
		ec.publishStats()
	}
}

// busyError is the BUSY error of a busy EVAL script (eval: it names
// SCRIPT KILL) or function (FUNCTION KILL).
func busyError(eval bool) string {
	if eval {
		return errBusyScript
	}
	return errBusyFunction
}

// setRepl is redis.set_repl: the script's later writes are propagated
// to the AOF, the replicas, both or neither (its flags are journal
// targets).
func (sr *scriptRun) setRepl(flags int) {
	p := &sr.ec.prop
	p.to, p.targeted = journal.Target(flags), true
}

// busyReply is the BUSY error while a global-lock script is busy.
func (sc *scripting) busyReply() string { return busyError(sc.busyEval.Load()) }

// handoffAfter is how long a command may hold its event loop: past it
// the loop's other connections go on on another goroutine (eventloop's
// watchdog), so that a long command — a script, EXEC, SORT, KEYS, DEBUG
// SLEEP, a long Lua builtin — stalls only the clients that need its
// locks.
const handoffAfter = time.Millisecond

// interrupt is polled by the Lua VM: it marks the run busy once it passes
// busy-reply-threshold (from then on clients that need its locks get
// BUSY) and reports whether SCRIPT KILL or FUNCTION KILL stopped it.
func (sr *scriptRun) interrupt() bool {
	if !sr.timed.Load() {
		limit := sr.s.scripting.threshold.Int()
		if ran := monoNow() - sr.start; limit > 0 && ran >= time.Duration(limit)*time.Millisecond {
			sc := &sr.s.scripting
			sc.mu.Lock()
			if sc.running == nil {
				sc.running = make(map[*scriptRun]struct{})
			}
			sc.running[sr] = struct{}{}
			sr.timed.Store(true)
			sc.busyEval.Store(sr.eval)
			if !sr.keyed {
				sc.busyGlobal.Add(1)
			}
			sc.mu.Unlock()
			sc.busy.Add(1)
			sr.s.refuseParked(sr, busyError(sr.eval))
			sr.s.warnf("Slow script detected: still in execution after %d milliseconds. You can try killing the script using the %s command.",
				ran.Milliseconds(), map[bool]string{true: "SCRIPT KILL", false: "FUNCTION KILL"}[sr.eval])
		}
	}
	return sr.killed.Load()
}

// call runs one redis.call from the script: the checks of Redis's
// scriptCall (and HotKV's lock coverage), then the command on the engine
// client. It returns the reply, or the rejection text.
func (sr *scriptRun) call(args [][]byte, proto int) ([]byte, string) {
	s, ec := sr.s, sr.ec
	// A command starts when the one before it ended (one clock read per
	// command, as the gate does for a batch).
	start := ec.mark
	if start == 0 {
		start = monoNow()
	}
	cmd := ec.lookupMemo(args)
	if cmd == nil || cmd.Sub != nil && cmd.Handler == nil && len(args) >= 2 {
		return sr.reject(nil, errScriptUnknownCommand)
	}
	if cmd.Arity > 0 && len(args) != cmd.Arity || len(args) < -cmd.Arity {
		return sr.reject(cmd, errScriptArity)
	}
	if cmd.Flags&NoScript != 0 && !s.scripting.allowDenied.Load() {
		return sr.reject(cmd, errNoScript)
	}
	write := cmd.Flags&Write != 0
	// May-replicate commands (PUBLISH, PFCOUNT) count as writes for a
	// read-only script, as in Redis: such a script runs during CLIENT
	// PAUSE WRITE.
	if cmd.Flags&(Write|MayReplicate) != 0 && sr.ro {
		return sr.reject(cmd, errScriptReadOnly)
	}
	if cmd.Flags&DenyOOM != 0 && sr.oom && sr.flags&script.AllowOOM == 0 && !sr.dirty.Load() {
		return sr.reject(cmd, errOOM)
	}
	// Once the script has written, the server's state (a read-only
	// replica, disk errors, min-replicas) no longer refuses its writes,
	// as in Redis's scriptVerifyWriteCommandAllow: it cannot be undone.
	wrote := sr.dirty.Load()
	if write {
		sr.dirty.Store(true)
	}
	known := false // ec.keyPos holds the command's key positions
	if !sr.guard.GlobalExclusive() {
		// allow-key-locking: the command's keys must be covered.
		if cmd.Flags&Global != 0 || cmd.GlobalFor != nil && cmd.GlobalFor(args) {
			return sr.reject(cmd, errScriptGlobal)
		}
		ec.keyPos = cmd.keyPositions(ec.keyPos[:0], args)
		known = true
		for _, i := range ec.keyPos {
			if !sr.guard.Covers(args[i], write) || !s.searchCovers(sr.guard, args[i], write) {
				return sr.reject(cmd, errDynamicKey+string(args[i]))
			}
		}
	}
	if cmd.Flags&Stale == 0 && s.servingStale() {
		return sr.reject(cmd, errScriptStale)
	}
	if write && !wrote && !sr.caller.obey {
		if s.readOnlyReplica() {
			return sr.reject(cmd, errReadOnlyReplica)
		}
		if msg := s.writesDenied(); msg != "" {
			return sr.reject(cmd, msg)
		}
		if !s.enoughReplicas() {
			return sr.reject(cmd, errNoReplicas)
		}
	}
	ec.w.Proto = proto
	ec.w.Reset()
	if end, ran := s.executeKeyed(ec, cmd, args, start, true, known); ran {
		ec.mark = end
	}
	if write {
		// Indexing is synchronous: the script's next command (an
		// FT.SEARCH) sees what this one wrote.
		s.searchSync(sr.guard)
	}
	return ec.w.Buf, ""
}

// reject refuses a redis.call before it runs, counted as Redis's
// scriptCall counts it: an error reply of the server's and a rejected
// call of cmd (nil: unknown). The script's own error reply carries
// ignore_error_stats_update, so it is not counted again.
func (sr *scriptRun) reject(cmd *Command, msg string) ([]byte, string) {
	sr.s.countError(msg)
	if cmd != nil {
		cmd.stats[sr.ec.slot].rejected.Add(1)
	}
	return nil, "-" + msg
}

// scriptError accounts for an error in the reply of c's script: the
// script failed, and the error counts in the error statistics unless a
// redis.call already counted it.
func (c *Client) scriptError(msg string, counted bool) {
	c.errors++
	if !counted {
		c.srv.countError(msg)
	}
	c.unexpectedError(msg)
}

// busyConflict returns the BUSY error for a command that needs locks a
// busy script holds (global: the command takes the global lock; keys: its
// keys, write: exclusively), or "".
func (s *Server) busyConflict(global bool, keys [][]byte, write bool) string {
	sc := &s.scripting
	sc.mu.Lock()
	defer sc.mu.Unlock()
	for sr := range sc.running {
		if !sr.timed.Load() || !sr.conflicts(global, keys, write) {
			continue
		}
		return busyError(sr.eval)
	}
	return ""
}

func (sr *scriptRun) conflicts(global bool, keys [][]byte, write bool) bool {
	if global || !sr.keyed {
		return true
	}
	if !sr.excl && !write {
		return false
	}
	for _, k := range keys {
		t := lock.Tag(k)
		for _, h := range sr.tags {
			if string(h) == string(t) {
				return true
			}
		}
	}
	return false
}

// killScript is SCRIPT KILL (eval) and FUNCTION KILL. Scripts that run
// past busy-reply-threshold are "busy"; it stops those of its kind that
// have not written. When it stops none, the longest-running busy script
// picks the error, in Redis's order: NOTBUSY, UNKILLABLE (it wrote), BUSY
// (it is of the other kind).
func (s *Server) killScript(c *Client, eval bool) {
	sc := &s.scripting
	sc.mu.Lock()
	var oldest *scriptRun
	killed := 0
	for sr := range sc.running {
		if !sr.timed.Load() {
			continue
		}
		if oldest == nil || sr.start < oldest.start {
			oldest = sr
		}
		if sr.eval == eval && !sr.dirty.Load() {
			sr.killed.Store(true)
			killed++
		}
	}
	sc.mu.Unlock()
	switch {
	case killed > 0:
		c.w.OK()
	case oldest == nil:
		c.errorReply(errNotBusy)
	case oldest.dirty.Load():
		c.errorReply(errUnkillable)
	default: // the other kind is busy
		c.errorReply(busyError(!eval))
	}
}

// busyEval reports whether an EVAL script is busy (FUNCTION STATS refuses
// then, as in Redis).
func (s *Server) busyEval() bool {
	sc := &s.scripting
	sc.mu.Lock()
	defer sc.mu.Unlock()
	for sr := range sc.running {
		if sr.eval && sr.timed.Load() {
			return true
		}
	}
	return false
}
