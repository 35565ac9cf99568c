package server

import (
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/replication"
)

// FAILOVER, Redis 7.0's coordinated failover from a master to one of its
// replicas: the master pauses writes (a pause of its own purpose), waits
// until the target replica — the one named, or the first to catch up —
// has acknowledged its whole stream, then becomes a replica of it and
// sends PSYNC with FAILOVER; the target, whose replication ID is the
// master's, becomes a master (its ID shifts, the old one kept as the
// second) and continues the stream for the old master. Writes resume
// once the target accepted (or, refused, the old master is a master
// again). TIMEOUT bounds the wait (FORCE then fails over anyway), and
// FAILOVER ABORT cancels.

// Failover states, as INFO's master_failover_state.
const (
	failoverNone       int32 = iota // no-failover
	failoverWaiting                 // waiting-for-sync
	failoverInProgress              // failover-in-progress
)

var failoverStateNames = [...]string{"no-failover", "waiting-for-sync", "failover-in-progress"}

// failoverState is the failover in progress, if any.
type failoverState struct {
	state atomic.Int32

	mu    sync.Mutex // guards the target and limits; a leaf
	host  string     // the target ("": any replica, until one caught up)
	port  int
	end   int64 // unix ms: the wait's end (0: none)
	force bool
}

// target returns the failover's target and limits.
func (f *failoverState) target() (host string, port int, end int64, force bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.host, f.port, f.end, f.force
}

// FAILOVER [TO host port [FORCE]] [ABORT] [TIMEOUT milliseconds]
func cmdFailover(c *Client, args [][]byte) {
	s := c.srv
	f := &s.failover
	if len(args) == 2 && equalFold(args[1], "abort") {
		if f.state.Load() == failoverNone {
			c.errorReply(errNoFailover)
			return
		}
		s.abortFailover("Failover manually aborted")
		c.w.OK()
		return
	}
	var timeout, port int64
	var host string
	var to, force bool
	for j := 1; j < len(args); j++ {
		switch {
		case equalFold(args[j], "timeout") && j+1 < len(args) && timeout == 0:
			n, ok := parseInt(args[j+1])
			if !ok {
				c.errorReply(errNotInt)
				return
			}
			if n <= 0 {
				c.errorReply(errFailoverTimeout)
				return
			}
			timeout = n
			j++
		case equalFold(args[j], "to") && j+2 < len(args) && !to:
			n, ok := parseInt(args[j+2])
			if !ok {
				c.errorReply(errNotInt)
				return
			}
			host, port, to = string(args[j+1]), n, true
			j += 2
		case equalFold(args[j], "force") && !force:
			force = true
		default:
			c.errorReply(errSyntax)
			return
		}
	}
	msg := ""
	switch {
	case f.state.Load() != failoverNone:
		msg = errFailoverInProgress
	case s.isReplica():
		msg = errFailoverReplica
	case len(s.repl.Replicas()) == 0:
		msg = errFailoverNoReplicas
	case force && (timeout == 0 || !to):
		msg = errFailoverForce
	case to:
		if r := s.findReplica(host, int(port)); r == nil {
			msg = errFailoverNotReplica
		} else if !r.Online(s.repl) {
			msg = errFailoverNotOnline
		}
	}
	if msg != "" {
		c.errorReply(msg)
		return
	}
	f.mu.Lock()
	if f.state.Load() != failoverNone { // another FAILOVER meanwhile
		f.mu.Unlock()
		c.errorReply(errFailoverInProgress)
		return
	}
	f.host, f.port, f.force, f.end = host, int(port), force, 0
	if timeout > 0 {
		f.end = time.Now().UnixMilli() + timeout
	}
	f.state.Store(failoverWaiting)
	f.mu.Unlock()
	if to {
		s.logf("FAILOVER requested to %s:%d.", host, port)
	} else {
		s.logf("FAILOVER requested to any replica.")
	}
	s.pauseClients(pauseForFailover, pauseWrite, math.MaxInt64)
	c.w.OK()
}

// findReplica returns the attached replica at host:port (the address it
// announced, else its connection's, and its listening port), or nil.
func (s *Server) findReplica(host string, port int) *replication.Replica {
	for _, r := range s.repl.Replicas() {
		if equalFold(r.Host(), host) && r.ListeningPort.Load() == int64(port) {
			return r
		}
	}
	return nil
}

// failoverCron moves a waiting failover on (the cron, as Redis's
// updateFailoverStatus): past its timeout it fails over anyway (FORCE)
// or aborts; once the target (or, with none named, any replica) has
// acknowledged the whole stream, the server becomes its replica.
func (s *Server) failoverCron() {
	f := &s.failover
	if f.state.Load() != failoverWaiting {
		return
	}
	host, port, end, force := f.target()
	if end != 0 && end <= time.Now().UnixMilli() {
		if force {
			s.logf("FAILOVER to %s:%d time out exceeded, failing over.", host, port)
			s.failoverTo(host, port)
		} else {
			s.abortFailover("Replica never caught up before timeout")
		}
		return
	}
	offset := s.repl.Offset()
	var target *replication.Replica
	if host != "" {
		target = s.findReplica(host, port)
	} else {
		for _, r := range s.repl.Replicas() {
			if r.AckOffset.Load() == offset {
				target, host, port = r, r.Host(), int(r.ListeningPort.Load())
				f.mu.Lock()
				f.host, f.port = host, port
				f.mu.Unlock()
				break
			}
		}
	}
	if target != nil && target.AckOffset.Load() == offset {
		s.logf("Failover target %s:%d is synced, failing over.", host, port)
		s.failoverTo(host, port)
	}
}

// failoverTo makes the server a replica of the failover's target, whose
// PSYNC carries FAILOVER.
func (s *Server) failoverTo(host string, port int) {
	s.failover.state.Store(failoverInProgress)
	s.startReplication(host, port, true)
}

// failoverDone is the link's report on its PSYNC FAILOVER: accepted, the
// failover is over; refused, it is aborted (the server a master again).
// It runs on the link's goroutine, which the abort closes: so in a
// goroutine of its own.
func (s *Server) failoverDone(accepted bool) {
	if accepted {
		s.clearFailover()
		return
	}
	go s.abortFailover("Failover target rejected psync request")
}

// abortFailover ends the failover in progress, if any, for reason: a
// server that became its target's replica is a master again.
func (s *Server) abortFailover(reason string) {
	f := &s.failover
	st := f.state.Load()
	if st == failoverNone {
		return
	}
	if host, port, _, _ := f.target(); host != "" {
		s.logf("FAILOVER to %s:%d aborted: %s", host, port, reason)
	} else {
		s.logf("FAILOVER to any replica aborted: %s", reason)
	}
	if st == failoverInProgress {
		s.stopReplication()
	}
	s.clearFailover()
}

// clearFailover forgets the failover and lets writes go on.
func (s *Server) clearFailover() {
	f := &s.failover
	f.mu.Lock()
	f.host, f.port, f.end, f.force = "", 0, 0, false
	f.state.Store(failoverNone)
	f.mu.Unlock()
	s.unpauseClients(pauseForFailover)
}

// failoverRequest handles PSYNC ... FAILOVER on a replica: its master
// hands over, and it becomes a master (Redis's syncCommand), when the
// replication ID is its own. It reports false when it refused.
func (s *Server) failoverRequest(c *Client, replID []byte) bool {
	s.warnf("Failover request received for replid %s.", replID)
	if !s.isReplica() {
		c.errorReply(errPsyncFailoverMaster)
		return false
	}
	if string(replID) != s.repl.ReplID() {
		c.errorReply(errPsyncFailoverReplID)
		return false
	}
	s.stopReplication()
	s.logf("MASTER MODE enabled (failover request from '%s')", clientInfoLine(c))
	return true
}

// psyncNeedsGlobal is PSYNC's GlobalFor: a failover request first ends
// the replication link, whose stream may wait for the lock, so it takes
// the global lock itself after (cmdSync).
func psyncNeedsGlobal(args [][]byte) bool { return !isFailoverPsync(args) }

func isFailoverPsync(args [][]byte) bool { return len(args) > 3 && equalFold(args[3], "failover") }
