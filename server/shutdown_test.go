package server

import (
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestShutdownAbortSignal is unit/shutdown's "SHUTDOWN ABORT can cancel
// SIGTERM" against redis-server: a signal schedules a shutdown that the
// cron carries out, so DEBUG PAUSE-CRON holds it and SHUTDOWN ABORT
// cancels it; with nothing scheduled ABORT is an error. Without the abort
// the cron shuts the server down.
func TestShutdownAbortSignal(t *testing.T) {
	p, srv, _, _ := bhvPair(t, "--enable-debug-command", "yes")
	rpid, _ := strconv.Atoi(bhvField(p.Redis.Do("INFO", "server"), "process_id"))
	p.Do("DEBUG PAUSE-CRON 1")
	if err := syscall.Kill(rpid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	srv.ScheduleShutdown(false)
	time.Sleep(50 * time.Millisecond)
	p.Do("SHUTDOWN ABORT")
	p.Do("SHUTDOWN ABORT")
	p.Do("DEBUG PAUSE-CRON 0")
	time.Sleep(150 * time.Millisecond)
	p.Do("PING")
	if srv.ShutdownScheduled() {
		t.Fatal("a shutdown is still scheduled after SHUTDOWN ABORT")
	}

	srv.ScheduleShutdown(true)
	select {
	case <-srv.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the cron did not carry out the scheduled shutdown")
	}
}
