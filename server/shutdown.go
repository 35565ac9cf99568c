package server

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"
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
	if s.sigShutdown.asap.Swap(0) == 0 {
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
// for the save: a second SIGINT.
func (s *Server) RemoveTempRDB() {
	os.Remove(filepath.Join(filepath.Dir(s.rdbPath()), "temp-"+strconv.Itoa(os.Getpid())+".rdb"))
}
