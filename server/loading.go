package server

import (
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// A dataset load that clients can see, as Redis's server.loading: the
// load at start-up (the server serves while it loads) and a replica's
// load of its master's payload. While a load runs, the commands without
// the loading flag get LOADING; during an asynchronous load (a replica's
// repl-diskless-load swapdb, the old dataset still served) only those
// with no-async-loading do. INFO persistence shows the progress.

// Load phases.
const (
	loadNone  = iota
	loadSync  // clients wait: commands without the loading flag are refused
	loadAsync // the old dataset serves meanwhile
)

// loadState is the running load's progress. Its fields are written by
// the loader and read by INFO: they are atomics, none guarded.
type loadState struct {
	phase   atomic.Int32
	start   atomic.Int64 // unix seconds
	total   atomic.Int64 // the payload's bytes; 0: unknown (a stream)
	loaded  atomic.Int64 // bytes read so far
	usedMem atomic.Int64 // the snapshot's used-mem field, 0 before it is read

	// gate holds the accepting of connections during the load at
	// start-up (nil: none is held). Redis serves clients during a load
	// only every loading-process-events-interval-bytes of a snapshot, and
	// from the first command of an append-only file: a client that
	// connects during a shorter load waits for it instead of getting
	// LOADING. So the gate opens when the load ends, once a snapshot's
	// reader (an AOF's RDB base too) has read gateAt bytes, or at an
	// AOF's first command. Both are set before the load starts.
	gate     chan struct{}
	gateAt   int64
	gateOnce sync.Once
}

// openGate lets the accept loops accept (see gate).
func (l *loadState) openGate() {
	if l.gate != nil {
		l.gateOnce.Do(func() { close(l.gate) })
	}
}

// startLoading marks a load of total bytes (0: unknown) as running,
// asynchronous or not, as Redis's startLoading.
func (s *Server) startLoading(total int64, async bool) {
	l := &s.load
	l.start.Store(time.Now().Unix())
	l.total.Store(total)
	l.loaded.Store(0)
	l.usedMem.Store(0)
	phase := int32(loadSync)
	if async {
		phase = loadAsync
	}
	s.watchLoad()
	l.phase.Store(phase)
	s.cfg.SetLoading(true) // CONFIG SET of appendonly, dir, repl-diskless-load: LOADING
}

// stopLoading marks the load as ended.
func (s *Server) stopLoading() {
	s.load.phase.Store(loadNone)
	s.cfg.SetLoading(false)
}

// loading reports whether a synchronous load runs: the dataset is not
// there for clients.
func (s *Server) loading() bool { return s.load.phase.Load() == loadSync }

// loadingRefusal returns the LOADING error for cmd while a load runs
// ("" when cmd may run): commands without the loading flag wait for a
// synchronous load, those with no-async-loading for an asynchronous one.
func (s *Server) loadingRefusal(cmd *Command) string {
	switch s.load.phase.Load() {
	case loadSync:
		if cmd.Flags&Loading == 0 {
			return errLoading
		}
	case loadAsync:
		if cmd.Flags&NoAsyncLoading != 0 {
			return errLoading
		}
	}
	return ""
}

// counting returns r counting the bytes read as loaded.
func (l *loadState) counting(r io.Reader) io.Reader { return &countingReader{r, l} }

type countingReader struct {
	r io.Reader
	l *loadState
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if c.l.loaded.Add(int64(n)) >= c.l.gateAt {
		c.l.openGate()
	}
	return n, err
}

// loadDelay paces a load as key-load-delay asks (a testing aid), after
// each key as Redis's debugDelay: a positive value is microseconds, a
// negative -n one microsecond for one key in n on average. The sleeps
// are gathered up to a millisecond (the timer's granularity), and an
// oversleep counts toward the next keys, so that the load takes the keys
// times the delay, as Redis's usleep does.
type loadDelay struct {
	owed time.Duration
}

func (d *loadDelay) key(usec int64) {
	if usec < 0 {
		if rand.Int64N(-usec) != 0 {
			return
		}
		usec = 1
	}
	if d.owed += time.Duration(usec) * time.Microsecond; d.owed < time.Millisecond {
		return
	}
	start := time.Now()
	time.Sleep(d.owed)
	d.owed -= time.Since(start)
}

// infoLoading appends INFO persistence's loading fields, present while a
// load runs, computed as Redis computes them.
func (s *Server) infoLoading(b []byte) []byte {
	l := &s.load
	if l.phase.Load() == loadNone {
		return b
	}
	total, usedMem, loaded := l.total.Load(), l.usedMem.Load(), l.loaded.Load()
	perc, remaining := 0.0, int64(1)
	switch {
	case total > 0:
		perc = float64(loaded) / float64(total) * 100
		remaining = total - loaded
	case usedMem > 0:
		// used-mem is only a (bad) estimate of the payload's size.
		perc = min(float64(loaded)/float64(usedMem)*100, 99.99)
		remaining = max(usedMem-loaded, 1)
	}
	start := l.start.Load()
	eta := int64(1) // Redis's fake figure for the first second
	if elapsed := time.Now().Unix() - start; elapsed != 0 {
		eta = elapsed * remaining / (loaded + 1)
	}
	return fmt.Appendf(b, "loading_start_time:%d\r\nloading_total_bytes:%d\r\nloading_rdb_used_mem:%d\r\nloading_loaded_bytes:%d\r\nloading_loaded_perc:%.2f\r\nloading_eta_seconds:%d\r\n",
		start, total, usedMem, loaded, perc, eta)
}
