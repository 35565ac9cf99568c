package server

import (
	"errors"
	"time"

	"github.com/hotkv/hotkv/script"
)

// SCRIPT DEBUG and the session of Redis's Lua debugger (LDB) in its
// synchronous mode (eval.c's ldbStartSession, ldbEndSession, ldbRepl's
// I/O): the next EVAL of a client that said SCRIPT DEBUG SYNC runs under
// the debugger (script/debug.go), which talks to the client directly on
// its connection, and the connection is closed after the EVAL's reply.
// Changes the script makes are kept. SCRIPT DEBUG YES, where Redis runs
// the script in a forked child whose changes are lost, is refused: HotKV
// has no such child.

// SCRIPT DEBUG YES|SYNC|NO
func cmdScriptDebug(c *Client, args [][]byte) {
	if c.tx.inExec || len(c.w.Buf) > 0 {
		c.errorReply(errScriptDebugPipeline)
		return
	}
	switch mode := args[2]; {
	case equalFold(mode, "no"):
		c.ldbSync = false
		c.w.OK()
	case equalFold(mode, "yes"):
		c.errorReply(errScriptDebugYes)
	case equalFold(mode, "sync"):
		c.ldbSync = true
		c.w.OK()
	default:
		c.errorReply(errScriptDebugMode)
	}
}

// ldbSession is the client side of a session (script.Debugger).
type ldbSession struct {
	c    *Client
	sr   *scriptRun // the debugged run, once it runs: polled while waiting
	out  []byte
	sent bool // the script sent its "<endsession>"
}

// evalDebugging is evalGenericCommandWithDebugging for EVAL and EVAL_RO:
// the session starts before the script is looked at, so that even a
// script that does not compile ends it with "<endsession>".
func (c *Client) evalDebugging(args [][]byte, ro bool) {
	s := c.srv
	c.ldbSync = false
	s.warnf("Redis synchronous debugging eval session started")
	// The session waits for the client: its loop goes on without it.
	if h, ok := c.conn.(interface{ Handoff() }); ok {
		h.Handoff()
	}
	// The replies before the EVAL go first: the session writes to the
	// socket itself. The client stays busy (the idle timeout passes it
	// over) for the whole session.
	c.srv.aof.sync()
	c.flush()
	c.conn.Flush()
	c.busy.Store(true)
	l := &ldbSession{c: c}
	c.ldb = l
	c.evalGeneric(args, false, ro)
	c.ldb = nil
	if !l.sent {
		l.Send([]string{"<endsession>"})
	}
	s.warnf("Redis synchronous debugging eval session ended")
	c.closeAfter = true
}

// Send writes logs as ldbSendLogs: write errors are left to the next
// read, which sees the connection closed.
func (l *ldbSession) Send(logs []string) {
	if len(logs) > 0 && logs[len(logs)-1] == "<endsession>" {
		l.sent = true
	}
	l.out = script.SendLogs(l.out[:0], logs)
	l.c.conn.Write(l.out)
	l.c.srv.stats.slots[l.c.slot].netOut.Add(int64(len(l.out)))
}

// Read waits for the client's input. While it waits, the run is polled
// as the VM polls it (busy-reply-threshold, SCRIPT KILL): a killed run
// stops waiting and goes on without the debugger, to be killed.
func (l *ldbSession) Read(p []byte) (int, bool) {
	c := l.c
	for {
		n, err := c.conn.Read(p)
		if n > 0 {
			c.srv.stats.slots[c.slot].netIn.Add(int64(n))
			return n, true
		}
		if err == nil {
			continue
		}
		if !errors.Is(err, errWouldBlock) {
			return 0, false
		}
		if l.sr != nil && l.sr.interrupt() {
			return 0, false
		}
		waitReadable(c.conn.Fd(), 100*time.Millisecond)
	}
}

// Timeout is how long the script runs between stops before the debugger
// stops it: busy-reply-threshold, 5 seconds when 0.
func (l *ldbSession) Timeout() time.Duration {
	ms := l.c.srv.scripting.threshold.Int()
	if ms <= 0 {
		ms = 5000
	}
	return time.Duration(ms) * time.Millisecond
}
