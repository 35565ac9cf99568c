package server

import (
	"context"
	"math"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/replication"
)

// sigShutdown is a shutdown a signal asked for, which the cron carries
// out (Redis's shutdown_asap, acted on by serverCron): until then SHUTDOWN
// ABORT can cancel it, and DEBUG PAUSE-CRON holds it.
type sigShutdown struct {
	asap    atomic.Int32 // 0, or the signal: sigTerm or sigInt
	running atomic.Bool  // the cron started it: saving, then shutting down
}

const (
	sigTerm = 1
	sigInt  = 2
)

// ScheduleShutdown is Redis's sigShutdownHandler after its log line: the
// next cron tick saves as shutdown-on-sigterm (shutdown-on-sigint for
// sigint) asks and shuts the server down, or, when that save fails, logs
// why and goes on serving.
func (s *Server) ScheduleShutdown(sigint bool) {
	v := int32(sigTerm)
	if sigint {
		v = sigInt
	}
	s.sigShutdown.asap.Store(v)
}

// ShutdownScheduled reports whether a signal's shutdown is pending or
// under way (a second SIGINT then exits at once).
func (s *Server) ShutdownScheduled() bool {
	return s.sigShutdown.asap.Load() != 0 || s.sigShutdown.running.Load()
}

// abortShutdown is Redis's abortShutdown for SHUTDOWN ABORT: it cancels
// a shutdown a signal scheduled and the cron has not started, and reports
// whether there was one.
func (s *Server) abortShutdown() bool {
	if !s.cancelReplicaWait(true) && s.sigShutdown.asap.Swap(0) == 0 {
		return false
	}
	s.logf("Shutdown manually aborted.")
	return true
}

// cronShutdown starts the shutdown a signal scheduled (called by the cron
// at each tick it is not paused): the save on a goroutine of its own, so
// that the cron goes on, then Shutdown.
func (s *Server) cronShutdown() {
	st := &s.sigShutdown
	if st.running.Load() {
		return
	}
	sig := st.asap.Swap(0)
	if sig == 0 {
		return
	}
	st.running.Store(true)
	if _, waits := s.waitForReplicas(shutdownFlags{signal: sig}); waits {
		st.running.Store(false) // the wait finishes it, or is aborted
		return
	}
	go func() {
		if !s.SaveOnSignal(sig == sigInt) {
			st.running.Store(false) // as Redis: the server goes on
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	}()
}

// RemoveTempRDB removes the file a snapshot of this process is being
// written to (Redis's rdbRemoveTempFile), for an exit that does not wait
// for the save: a second SIGINT. A BGSAVE's child is killed and its file
// removed too (it would die with the server, leaving the file).
func (s *Server) RemoveTempRDB() {
	os.Remove(filepath.Join(filepath.Dir(s.rdbPath()), "temp-"+strconv.Itoa(os.Getpid())+".rdb"))
	if ch := s.persist.child.Load(); ch != nil {
		ch.Kill()
		os.Remove(ch.TempPath())
	}
	for _, ch := range s.killSyncChildren() {
		ch.Kill()
		if p := ch.TempPath(); p != "" {
			os.Remove(p)
		}
	}
}

// A shutdown that waits for its replicas (Redis 7.0's prepareForShutdown,
// isReadyToShutdown and finishShutdown): SHUTDOWN without NOW, or a
// signal's shutdown, with replicas behind the master's offset and
// shutdown-timeout set, pauses writes, asks the replicas for an
// acknowledgement, and waits — the SHUTDOWN clients blocked (INFO's
// blocked_clients), INFO's shutdown_in_milliseconds counting down — until
// every replica acknowledged the offset or the timeout passed; the cron
// then finishes it: the lagging replicas are logged, the save made, the
// server shut down. SHUTDOWN ABORT, or a save that fails, cancels it:
// writes resume and every waiting SHUTDOWN gets Redis's error.
type replicaWait struct {
	deadline  atomic.Int64 // unix ms; 0: no shutdown waits
	finishing atomic.Bool  // the cron is finishing it
	waiters   atomic.Int64 // SHUTDOWN clients blocked on it

	mu struct {
		sync.Mutex
		flags    shutdownFlags
		canceled chan struct{} // closed when the wait is canceled
	}
}

// shutdownFlags are SHUTDOWN's flags, or a signal's.
type shutdownFlags struct {
	save, nosave, force bool
	signal              int32 // sigTerm or sigInt: the save follows shutdown-on-sig*
}

// replicasInSync is Redis's isReadyToShutdown: every replica acknowledged
// the master's offset.
func (s *Server) replicasInSync() bool {
	off := s.repl.Offset()
	for _, r := range s.repl.Replicas() {
		if r.AckOffset.Load() != off {
			return false
		}
	}
	return true
}

// waitForReplicas starts a shutdown that waits for the replicas unless
// one waits already, and returns the channel closed if it is canceled.
// It reports false, and starts nothing, when there is no reason to wait:
// shutdown-timeout 0 or every replica in sync.
func (s *Server) waitForReplicas(f shutdownFlags) (<-chan struct{}, bool) {
	w := &s.replicaWait
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.deadline.Load() != 0 || w.finishing.Load() {
		return w.mu.canceled, true
	}
	timeout := s.cfg.Lookup("shutdown-timeout").Int()
	if timeout == 0 || s.replicasInSync() {
		return nil, false
	}
	w.mu.flags = f
	w.mu.canceled = make(chan struct{})
	if f.signal == 0 {
		s.warnf("User requested shutdown...") // a signal's save logs it
	}
	s.journal.GetAck()
	s.pauseClients(pauseForShutdown, pauseWrite, math.MaxInt64) // until unpaused
	w.deadline.Store(time.Now().UnixMilli() + timeout*1000)
	s.logf("Waiting for replicas before shutting down.")
	return w.mu.canceled, true
}

// shutdownInMillis is INFO's shutdown_in_milliseconds.
func (s *Server) shutdownInMillis() int64 {
	if d := s.replicaWait.deadline.Load(); d != 0 {
		return max(d-time.Now().UnixMilli(), 0)
	}
	return 0
}

// cancelReplicaWait cancels a waiting shutdown and reports whether there
// was one: SHUTDOWN ABORT (abort) while it waits, or, once the cron
// finishes it, its failed save.
func (s *Server) cancelReplicaWait(abort bool) bool {
	w := &s.replicaWait
	w.mu.Lock()
	defer w.mu.Unlock()
	if abort && w.deadline.Load() == 0 || !abort && !w.finishing.Load() {
		return false
	}
	w.deadline.Store(0)
	w.finishing.Store(false)
	s.unpauseClients(pauseForShutdown)
	close(w.mu.canceled)
	return true
}

// replicaWaitCron finishes a waiting shutdown once the replicas are in
// sync or its time is up (the cron).
func (s *Server) replicaWaitCron() {
	w := &s.replicaWait
	d := w.deadline.Load()
	if d == 0 || time.Now().UnixMilli() < d && !s.replicasInSync() {
		return
	}
	w.mu.Lock()
	if w.deadline.Load() == 0 {
		w.mu.Unlock()
		return
	}
	w.deadline.Store(0)
	w.finishing.Store(true)
	f := w.mu.flags
	w.mu.Unlock()
	go s.finishShutdown(f)
}

// finishShutdown logs the replicas that lag, saves as f says and shuts
// the server down; a failed save cancels the shutdown instead.
func (s *Server) finishShutdown(f shutdownFlags) {
	off := s.repl.Offset()
	replicas := s.repl.Replicas()
	lagging := 0
	now := time.Now().Unix()
	for _, r := range replicas {
		if ack := r.AckOffset.Load(); ack != off {
			lagging++
			lag, state := int64(0), "wait_bgsave"
			if r.Online(s.repl) {
				lag, state = now-r.AckTime.Load(), "online"
			}
			s.warnf("Lagging replica %s reported offset %d behind master, lag=%d, state=%s.",
				replicaAddr(r), off-ack, lag, state)
		}
	}
	if len(replicas) > 0 {
		s.logf("%d of %d replicas are in sync when shutting down.", len(replicas)-lagging, len(replicas))
	}
	ok := !s.initialAOFBlocksExit(f.force)
	switch {
	case !ok:
	case f.signal != 0:
		ok = s.SaveOnSignal(f.signal == sigInt)
	default:
		c := s.newInternalClient(backgroundClient, 0, 0)
		err := s.saveForShutdown(c, f.save, f.nosave)
		ok = err == nil || f.force
	}
	if !ok {
		s.warnf("Errors trying to shut down the server. Check the logs for more information.")
		s.cancelReplicaWait(false)
		return
	}
	s.closeListeners()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s.Shutdown(ctx)
}

// replicaAddr is a replica as the log names it (replicaName): its
// announced address and listening port.
func replicaAddr(r *replication.Replica) string {
	return net.JoinHostPort(r.Host(), strconv.FormatInt(r.ListeningPort.Load(), 10))
}

// initialAOFBlocksExit reports whether the first rewrite of an AOF turned
// on at run time is still being written, which a shutdown must not cut
// short (the file would be incomplete), as Redis's finishShutdown: it
// logs why; with force the shutdown goes on.
func (s *Server) initialAOFBlocksExit(force bool) bool {
	a := &s.aof
	a.wmu.Lock()
	waiting := a.waitRewrite
	a.wmu.Unlock()
	switch {
	case !waiting:
		return false
	case force:
		s.warnf("Writing initial AOF. Exit anyway.")
		return false
	}
	s.warnf("Writing initial AOF, can't exit.")
	return true
}
