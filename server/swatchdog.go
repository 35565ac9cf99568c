package server

import (
	"bytes"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/config"
)

// The software watchdog (watchdog-period, Redis's debug.c watchdog): when
// the server does not come back to serving for longer than the period — a
// command whose handler runs that long, or a load that keeps clients out
// (LOADING) — it logs Redis's report: "--- WATCHDOG TIMER EXPIRED ---",
// the Go stacks of what runs (the command's or the load's goroutine,
// where Redis logs its main thread's backtrace) and a closing line. One
// report per stall, as Redis's timer is armed again only by the cron the
// stall holds up. Off (0) by default, and only while on does the executor
// record when each handler started (Client.running).
type softWatchdog struct {
	on  atomic.Bool
	mu  sync.Mutex    // guards end: configuration changes
	end chan struct{} // closed to stop the running watchdog; nil: none
	// loadSince is when the running load started (monoNow), and
	// loadG its goroutine's stack header ("goroutine N ").
	loadSince atomic.Int64
	loadG     atomic.Pointer[string]
}

// watchdogHooks applies watchdog-period now and on every change.
func (s *Server) watchdogHooks(cfg *config.Config) {
	s.applyWatchdog()
	cfg.OnChange("watchdog-period", func(*config.Param) error { s.applyWatchdog(); return nil })
}

// applyWatchdog starts, restarts or stops the watchdog for watchdog-period
// milliseconds, at least two cron ticks (as Redis's applyWatchdogPeriod).
func (s *Server) applyWatchdog() {
	w := &s.swd
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.end != nil {
		close(w.end)
		w.end = nil
	}
	ms := s.cfg.Lookup("watchdog-period").Int()
	w.on.Store(ms > 0)
	if ms <= 0 {
		return
	}
	minMs := 2000 / max(s.cfg.Lookup("hz").Int(), 1)
	period := time.Duration(max(ms, minMs)) * time.Millisecond
	w.end = make(chan struct{})
	go s.watchdog(period, w.end)
}

// watchdog looks for a stall every tenth of period until end is closed
// or the server shuts down.
func (s *Server) watchdog(period time.Duration, end <-chan struct{}) {
	t := time.NewTicker(max(period/10, 5*time.Millisecond))
	defer t.Stop()
	var reported int64 // the start of the stall last reported
	for {
		select {
		case <-end:
			return
		case <-s.done: // shut down
			return
		case <-t.C:
		}
		now := int64(monoNow())
		var since int64
		var match func(g string) bool
		if s.loading() {
			if l := s.swd.loadSince.Load(); l != 0 && now-l >= int64(period) {
				since = l
				head := s.swd.loadG.Load()
				match = func(g string) bool { return head != nil && strings.HasPrefix(g, *head) }
			}
		} else {
			s.mu.Lock()
			for _, c := range s.mu.clients {
				if r := c.running.Load(); r != 0 && now-r >= int64(period) && (since == 0 || r < since) {
					since = r
				}
			}
			s.mu.Unlock()
			match = func(g string) bool { return strings.Contains(g, "hotkv/server.(*Server).runHandler(") }
		}
		if since == 0 || since == reported {
			continue
		}
		reported = since
		s.watchdogReport(match)
	}
}

// watchdogReport logs Redis's watchdog report with the stacks of the
// goroutines match selects.
func (s *Server) watchdogReport(match func(g string) bool) {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	s.warnf("\n--- WATCHDOG TIMER EXPIRED ---")
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		if match(string(g)) {
			for _, line := range strings.Split(string(g), "\n") {
				s.warnf("%s", line)
			}
		}
	}
	s.warnf("--------\n")
}

// watchLoad records that the calling goroutine starts a load, for the
// watchdog's report.
func (s *Server) watchLoad() {
	if !s.swd.on.Load() {
		s.swd.loadSince.Store(0)
		return
	}
	var b [64]byte
	head := string(b[:runtime.Stack(b[:], false)])
	if i := strings.Index(head, "["); i > 0 {
		head = head[:i] // "goroutine N "
	}
	s.swd.loadG.Store(&head)
	s.swd.loadSince.Store(int64(monoNow()))
}
