package server

import (
	"context"
	"math"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/hotkv/hotkv/internal/difftest"
)

// gcPercentNow returns GOGC as the runtime has it.
func gcPercentNow() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestTuneGC: with maxmemory set, GOGC leaves about a tenth of maxmemory
// (at least 4 MB) over the live heap, within 5-100; without maxmemory it
// is 100 again.
func TestTuneGC(t *testing.T) {
	if gcUserPercent {
		t.Skip("GOGC set in the environment")
	}
	s, addr := startServer(t)
	c := difftest.Dial(t, addr)
	ballast := make([]*[1 << 20]byte, 16) // at least 16 MB live
	for i := range ballast {
		ballast[i] = new([1 << 20]byte)
	}
	defer runtime.KeepAlive(ballast)
	runtime.GC()
	c.Do("CONFIG", "SET", "maxmemory", "1mb") // 4 MB of headroom
	if p := gcPercentNow(); p >= 100 || p < gcPercentMin {
		t.Errorf("GOGC %d under maxmemory 1mb", p)
	}
	c.Do("CONFIG", "SET", "maxmemory", "100gb") // far above the live heap
	if p := gcPercentNow(); p != 100 {
		t.Errorf("GOGC %d under maxmemory 100gb", p)
	}
	c.Do("CONFIG", "SET", "maxmemory", "1mb")
	c.Do("CONFIG", "SET", "maxmemory", "0")
	if p := gcPercentNow(); p != 100 {
		t.Errorf("GOGC %d without maxmemory", p)
	}
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		t.Errorf("memory limit %d without maxmemory", l)
	}
	s.tuneGC()
	if p := gcPercentNow(); p != 100 {
		t.Errorf("GOGC %d after a tick without maxmemory", p)
	}
}

// TestShutdownRestoresGC: a server that tuned the collector for its
// maxmemory puts GOGC and the memory limit back when it shuts down, so the
// process's next server (or whatever runs after it) is not left
// collecting against a limit nobody enforces.
func TestShutdownRestoresGC(t *testing.T) {
	if gcUserPercent {
		t.Skip("GOGC set in the environment")
	}
	ballast := make([]*[1 << 20]byte, 16) // at least 16 MB live
	for i := range ballast {
		ballast[i] = new([1 << 20]byte)
	}
	defer runtime.KeepAlive(ballast)
	runtime.GC()
	s, addr := startServer(t, "--maxmemory", "1mb")
	difftest.Dial(t, addr).Do("PING") // serving: Shutdown comes after Serve's start
	if p := gcPercentNow(); p >= 100 {
		t.Fatalf("GOGC %d under maxmemory 1mb", p)
	}
	if l := debug.SetMemoryLimit(-1); l == math.MaxInt64 {
		t.Fatalf("no memory limit under maxmemory 1mb")
	}
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if p := gcPercentNow(); p != 100 {
		t.Errorf("GOGC %d after shutdown", p)
	}
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		t.Errorf("memory limit %d after shutdown", l)
	}
}
