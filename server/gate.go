package server

import (
	"fmt"
	"github.com/hotkv/hotkv/keyspace"
	"runtime/debug"
	"strings"
	"time"
)

// dispatch is the gate every command a client sends passes through:
// table lookup, arity, authentication, ACL permissions, OOM, MISCONF, subscribed-context
// and busy-script checks, CLIENT PAUSE's postponement, MULTI's queue, then the executor (exec.go),
// which EXEC's queue and redis.call enter directly.
func (s *Server) dispatch(c *Client, args [][]byte) {
	mark := len(c.w.Buf)
	s.dispatchCommand(c, args)
	if c.parked == nil && c.postponed == nil { // else when it runs (resumeParked, resumePostponed)
		c.applyReplyMode(mark)
	}
}

// applyReplyMode applies CLIENT REPLY OFF/SKIP, which silence every reply,
// rejections included, to the reply a command wrote after mark — but for
// pub/sub confirmations (c.pushing), which go out whatever the mode, as
// Redis's CLIENT_PUSHING replies do.
func (c *Client) applyReplyMode(mark int) {
	keep := c.pushing
	c.pushing = false
	switch c.replyMode {
	case replyOff:
		if !keep {
			c.w.Buf = c.w.Buf[:mark]
		}
	case replySkip:
		if !keep {
			c.w.Buf = c.w.Buf[:mark]
		}
		c.replyMode = replyOn
	case replySkipNext: // set by CLIENT REPLY SKIP: silence the next one
		c.replyMode = replySkip
	}
}

func (s *Server) dispatchCommand(c *Client, args [][]byte) {
	cmd, ok := s.lookupChecked(c, args)
	if !ok {
		c.tx.failed = c.tx.active // a refused command makes EXEC abort
		return
	}
	c.lastLookup = cmd
	if !c.authenticated && cmd.Flags&NoAuth == 0 && s.authRequired() {
		s.refuse(c, cmd, errNoAuth)
		return
	}
	if s.acl.Restricted() && !s.aclAdmit(c, cmd, args) {
		return
	}
	if !c.obey && !s.admit(c, cmd, args) {
		return
	}
	if c.tx.active && cmd.Flags&TxControl == 0 {
		c.queue(cmd, args)
		return
	}
	if cmd.Flags&Scripting != 0 && s.monitors.Load() > 0 && !c.replaying {
		// Scripts are skip_monitor, yet Redis shows the EVAL or FCALL
		// before the commands it runs (evalGenericCommand); every other
		// command is shown once it ran (execute).
		s.feedMonitors(c, args)
	}
	s.call(c, cmd, args)
}

// admit makes the checks of the server's state, in Redis's order, that
// every client but a replica's master passes (mustObeyClient): it
// reports false when it refused or postponed the command.
func (s *Server) admit(c *Client, cmd *Command, args [][]byte) bool {
	// Inside MULTI queuing itself uses memory: Redis refuses every command
	// but EXEC, DISCARD, QUIT and RESET when over maxmemory.
	// Every command runs an eviction pass first when memory is over
	// maxmemory; what could not be freed is remembered for EXEC and
	// scripts (Redis's pre_command_oom_state).
	queuing := c.tx.active && cmd.Flags&EndsTx == 0
	c.preOOM = false
	if s.maxmemory.Uint() != 0 && s.load.phase.Load() == loadNone { // no eviction while loading, as Redis
		evicted := s.stats.evicted.Load()
		c.preOOM = !s.memoryAvailable(c)
		if c.trk.used && s.stats.evicted.Load() != evicted {
			c.trackingDrain() // invalidations of evicted keys before the reply
		}
	}
	if c.preOOM && (cmd.Flags&DenyOOM != 0 || queuing) {
		s.refuse(c, cmd, errOOM)
		return false
	}
	// Writes (and PING, as in Redis) are refused while the data cannot
	// be persisted; EXEC checks its queue (execRefusal).
	if cmd.Flags&(Write|DenyMisconf) != 0 {
		if msg := s.writesDenied(); msg != "" {
			s.refuse(c, cmd, msg)
			return false
		}
	}
	// min-replicas-to-write; EXEC checks its queue (execRefusal).
	if cmd.Flags&Write != 0 && !s.enoughReplicas() {
		s.refuse(c, cmd, errNoReplicas)
		return false
	}
	// A read-only replica takes writes from its master only.
	if cmd.Flags&Write != 0 && s.readOnlyReplica() {
		s.refuse(c, cmd, errReadOnlyReplica)
		return false
	}
	if c.subs.active && c.w.Proto == 2 && cmd.Flags&Subscribed == 0 {
		s.refuse(c, cmd, fmt.Sprintf(errSubscribedContext, cmd.fullName()))
		return false
	}
	if cmd.Flags&Stale == 0 && s.servingStale() {
		s.refuse(c, cmd, errMasterDown)
		return false
	}
	if msg := s.loadingRefusal(cmd); msg != "" {
		s.refuse(c, cmd, msg)
		return false
	}
	// While a script that holds the global lock is busy, the server is
	// busy as Redis is: only allow_busy commands run (MULTI's queue is
	// refused too, so that the EXEC aborts).
	if cmd.Flags&AllowBusy == 0 && s.scripting.busyGlobal.Load() > 0 {
		s.refuse(c, cmd, s.scripting.busyReply())
		return false
	}
	// A replica's connection carries the stream: its commands may not
	// touch the dataset (Redis's processCommand).
	if cmd.Flags&(Write|Readonly|MayReplicate) != 0 && c.replica.Load() != nil {
		s.refuse(c, cmd, errReplicaKeyspace)
		return false
	}
	// While clients are paused the command waits for the end of the
	// pause (pause.go), queued in MULTI or not, as in Redis.
	if s.paused(c, cmd, args) && s.postpone(c, cmd, args) {
		return false
	}
	return true
}

// monitored reports whether MONITOR shows cmd once it ran, as Redis's
// call(): administrative commands are too dangerous to be shown.
func (cmd *Command) monitored() bool { return cmd.Flags&(SkipMonitor|Admin) == 0 }

// lookupChecked resolves args to a command and checks its arity, replying
// with Redis's error when either fails.
func (s *Server) lookupChecked(c *Client, args [][]byte) (*Command, bool) {
	cmd := c.lookupMemo(args)
	if cmd == nil {
		var b strings.Builder
		for i := 1; i < len(args) && b.Len() < 128; i++ {
			arg := cString(args[i])
			if room := 128 - b.Len(); len(arg) > room {
				arg = arg[:room]
			}
			fmt.Fprintf(&b, "'%s' ", arg)
		}
		c.sendError(fmt.Sprintf(errUnknownCommand, truncate(cString(args[0]), 128), b.String()))
		return nil, false
	}
	if cmd.Sub != nil && len(args) >= 2 && cmd.Handler == nil {
		// A container (CONFIG, CLIENT) with an unknown subcommand. A
		// container alone meets its own arity check: "CONFIG" fails it,
		// "COMMAND" runs the container's handler.
		c.sendError(fmt.Sprintf(errUnknownSubcommand, truncate(cString(args[1]), 128), cmd.upperName()))
		return nil, false
	}
	if cmd.Arity > 0 && len(args) != cmd.Arity || len(args) < -cmd.Arity {
		s.reject(c, cmd, fmt.Sprintf(errArity, cmd.fullName()))
		return nil, false
	}
	return cmd, true
}

// memoCmd is a top-level command remembered by the exact name sent.
type memoCmd struct {
	cmd  *Command
	n    uint8
	name [15]byte
}

// lookupMemo resolves args to a command, remembering the last few
// top-level commands by the exact names sent: pipelines and scripts repeat
// the same commands.
func (c *Client) lookupMemo(args [][]byte) *Command {
	name := args[0]
	for i := range c.lookups {
		m := &c.lookups[i]
		if m.cmd != nil && int(m.n) == len(name) && string(m.name[:m.n]) == string(name) {
			return m.cmd
		}
	}
	cmd, _ := c.srv.table.lookup(&c.nameBuf, args)
	if cmd == nil && c.obey {
		cmd = c.srv.lookupOriginal(&c.nameBuf, args)
	}
	if cmd != nil && cmd.Sub == nil && cmd.parent == nil && len(name) <= len(memoCmd{}.name) {
		m := &c.lookups[c.nextLookup%len(c.lookups)]
		c.nextLookup++
		m.cmd, m.n = cmd, uint8(len(name))
		copy(m.name[:], name)
	}
	return cmd
}

func truncate(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

// refuse answers a command refused before it ran, as Redis's
// rejectCommand: inside MULTI the refusal makes EXEC abort, and a refused
// EXEC discards the transaction.
func (s *Server) refuse(c *Client, cmd *Command, msg string) {
	if c.tx.active && cmd.Flags&RunsQueue != 0 {
		c.discardTx()
		s.reject(c, cmd, errExecAbortBecause+msg)
		return
	}
	s.reject(c, cmd, msg)
	c.tx.failed = c.tx.active
}

// reject answers a command refused before it ran.
func (s *Server) reject(c *Client, cmd *Command, msg string) {
	cmd.stats[c.slot].rejected.Add(1)
	c.sendError(msg)
}

// monoBase anchors monoNow: time.Since reads only the monotonic clock,
// which costs half of time.Now on the per-command path.
var monoBase = time.Now()

// monoNow returns the monotonic time since the process started.
func monoNow() time.Duration { return time.Since(monoBase) }

// unixMillis converts a monoNow reading to unix milliseconds.
func unixMillis(mono time.Duration) int64 { return monoBase.UnixMilli() + mono.Milliseconds() }

// call runs a command a client sent through the executor, with the
// locks its caller holds (the replay under DEBUG LOADAOF) or its own.
func (s *Server) call(c *Client, cmd *Command, args [][]byte) {
	// One clock read per command: a command starts when the one before it
	// in the same batch ended (flush clears the mark between batches).
	start := c.mark
	if start == 0 {
		start = monoNow()
	}
	c.curCmd, c.curArgs = cmd, args // for acquire, should the command park
	c.setLastCmd(cmd)
	if ms := unixMillis(start); ms/1000 != c.lastActiveSec {
		c.lastActiveSec = ms / 1000
		c.lastActive.Store(ms)
	}
	if end, ran := s.execute(c, cmd, args, start, c.callerLocks); ran {
		c.mark = end
	}
}

// setLastCmd records cmd as the client's last command, which CLIENT LIST
// reads from other connections: stored only when it changes (a pipeline
// repeats one command within one second).
func (c *Client) setLastCmd(cmd *Command) {
	if c.lastCmdSeen != cmd {
		c.lastCmdSeen = cmd
		c.lastCmd.Store(cmd)
	}
}

// batchStats accumulates a client's command statistics over one batch of
// pipelined commands; publish adds them to the shared per-slot counters
// once per batch instead of with several atomic operations per command.
type batchStats struct {
	commands, hits, misses, dirty int64
	perCmd                        []cmdBatch
}

type cmdBatch struct {
	cmd                 *Command
	calls, usec, failed int64
	// quick counts the calls under a microsecond while latency-tracking
	// is on: they go to the latency histogram at publish, together.
	quick int64
}

// count counts a call of cmd that ran for d and made changes changes to
// the dataset (changes since the last save); track records its latency in
// cmd's histogram (latency-tracking), in whole microseconds as Redis
// does.
func (b *batchStats) count(cmd *Command, d time.Duration, failed bool, changes int, track bool) {
	b.commands++
	var e *cmdBatch
	for i := len(b.perCmd) - 1; i >= 0; i-- {
		if b.perCmd[i].cmd == cmd {
			e = &b.perCmd[i]
			break
		}
	}
	if e == nil {
		b.perCmd = append(b.perCmd, cmdBatch{cmd: cmd})
		e = &b.perCmd[len(b.perCmd)-1]
	}
	e.calls++
	us := d.Microseconds()
	e.usec += us
	if track {
		if us == 0 {
			e.quick++
		} else {
			cmd.histogram().Record(us * 1000)
		}
	}
	if failed {
		e.failed++
	}
	b.dirty += int64(changes)
}

// publish adds the batch to the server's counters (slot is the client's).
func (b *batchStats) publish(st *serverStats, slot int) {
	if b.commands == 0 && b.hits == 0 && b.misses == 0 {
		return
	}
	sl := &st.slots[slot]
	sl.commands.Add(b.commands)
	if b.hits != 0 {
		sl.hits.Add(b.hits)
	}
	if b.misses != 0 {
		sl.misses.Add(b.misses)
	}
	if b.dirty != 0 {
		sl.dirty.Add(b.dirty)
	}
	for i := range b.perCmd {
		e := &b.perCmd[i]
		cs := &e.cmd.stats[slot]
		cs.calls.Add(e.calls)
		cs.usec.Add(e.usec)
		if e.failed != 0 {
			cs.failed.Add(e.failed)
		}
		if e.quick != 0 {
			e.cmd.histogram().RecordN(1, e.quick) // 0 µs, Redis's lowest value
		}
		b.perCmd[i] = cmdBatch{}
	}
	b.perCmd = b.perCmd[:0]
	b.commands, b.hits, b.misses, b.dirty = 0, 0, 0, 0
}

func (s *Server) runHandler(c *Client, cmd *Command, args [][]byte) {
	mark := len(c.w.Buf)
	defer func() {
		if r := recover(); r != nil {
			if le, ok := r.(*keyspace.LoadError); ok {
				// A cold value that cannot be read: the command fails.
				s.warnf("%v (command %q from client id=%d)", le, cmd.Name, c.id)
				c.w.Buf = c.w.Buf[:mark]
				c.errorReply(fmt.Sprintf(errTierLoad, le.Err))
				return
			}
			s.stats.panics.Add(1)
			s.warnf("panic in command %q from client id=%d: %v\n%s", cmd.Name, c.id, r, debug.Stack())
			c.w.Buf = c.w.Buf[:mark]
			c.errorReply(fmt.Sprintf(errInternal, cmd.Name, r))
		}
	}()
	cmd.Handler(c, args)
}

// errorReply writes an error reply and counts it. Handlers reply with
// errors only through it.
func (c *Client) errorReply(msg string) {
	c.errors++
	c.sendError(msg)
}

// sendError writes the error reply msg, counted in the error statistics
// and checked for divergence (unexpectedError).
func (c *Client) sendError(msg string) {
	c.srv.countError(msg)
	c.w.Error(msg)
	c.unexpectedError(msg)
}
