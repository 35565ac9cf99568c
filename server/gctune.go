package server

import (
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// The collector's pace under maxmemory. Go collects when the heap has
// grown by GOGC% of what the last cycle found live (100: twice the live
// heap); the memory limit (applyMaxmemory: maxmemory + 25% + 32 MB) only
// caps that. Near maxmemory the live heap is about maxmemory, so a write
// flood under eviction left the heap, and RSS, at the limit: 1.77 x
// maxmemory where Redis stays at 1.2 x. So while maxmemory is set the
// cron sets GOGC to leave gcHeadroomFrac of maxmemory (at least
// gcHeadroomMin) over the live heap, and never above 100: a data set
// well below maxmemory is collected as without maxmemory. The headroom
// is relative to the live heap, never a fixed ceiling, so the collector
// cannot run without end on a small maxmemory (the earlier pitfall of a
// too-low memory limit). With GOGC set in the environment the user's
// value stays.

const (
	gcHeadroomFrac = 10 // percent of maxmemory
	gcHeadroomMin  = 4 << 20
	gcPercentMin   = 5
	gcPercentMax   = 100
)

type gcTune struct {
	mu      sync.Mutex
	percent int // what was last set; 0: the default (100) in force
	sample  []metrics.Sample
}

var gcUserPercent = os.Getenv("GOGC") != ""

// tuneGC sets GOGC for the live heap and maxmemory now (the cron, and
// CONFIG SET maxmemory).
func (s *Server) tuneGC() {
	if gcUserPercent {
		return
	}
	t := &s.gcTune
	t.mu.Lock()
	defer t.mu.Unlock()
	want := gcPercentMax
	if mm := s.maxmemory.Int(); mm > 0 {
		if t.sample == nil {
			t.sample = []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		}
		metrics.Read(t.sample)
		live := int64(0)
		if t.sample[0].Value.Kind() == metrics.KindUint64 {
			live = int64(t.sample[0].Value.Uint64())
		}
		room := max(mm/100*gcHeadroomFrac, gcHeadroomMin)
		if live > 0 {
			want = int(min(max(100*room/live, gcPercentMin), gcPercentMax))
		}
	}
	if t.percent == 0 {
		t.percent = gcPercentMax
	}
	// Only a change of a fifth or more: each call recomputes the pacer.
	if d := want - t.percent; d != 0 && (want == gcPercentMax || d*5 >= t.percent || -d*5 >= t.percent) {
		debug.SetGCPercent(want)
		t.percent = want
	}
}

// restoreGC undoes, at shutdown, what this server set in the process-wide
// collector: GOGC back to 100 and no memory limit. A process that goes on
// after its server (an embedding program, a test binary running server
// after server) would otherwise keep a low GOGC and a limit sized for a
// maxmemory nobody enforces any more, and collect without end once its
// heap passes that limit.
func (s *Server) restoreGC() {
	if s.maxmemory.Int() > 0 {
		debug.SetMemoryLimit(math.MaxInt64)
	}
	t := &s.gcTune
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.percent != 0 && t.percent != gcPercentMax && !gcUserPercent {
		debug.SetGCPercent(gcPercentMax)
	}
	t.percent = 0
}
