package stream

import (
	"runtime"
	"strconv"
	"testing"
)

// fill adds n entries "f" = "v:i" with IDs 1-0 .. n-0.
func fill(tb testing.TB, n int) *Stream {
	s := New()
	for i := 1; i <= n; i++ {
		if _, err := s.Add(AddID{ID: ID{Ms: uint64(i)}}, 0, [][]byte{[]byte("f"), []byte("v:" + strconv.Itoa(i))}, DefaultLimits); err != nil {
			tb.Fatal(err)
		}
	}
	return s
}

func heapLive() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestBytesPerEntry reports the Go heap a stream of 100,000 one-field
// entries takes (Redis: about 19 bytes an entry).
func TestBytesPerEntry(t *testing.T) {
	if testing.Short() {
		t.Skip()
	}
	before := heapLive()
	s := fill(t, 100000)
	after := heapLive()
	per := float64(after-before) / 100000
	t.Logf("%.1f bytes an entry", per)
	if per > 40 {
		t.Errorf("%.1f bytes an entry", per)
	}
	runtime.KeepAlive(s)
}

func BenchmarkAdd(b *testing.B) {
	s := New()
	fv := [][]byte{[]byte("f"), []byte("v:12345")}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s.Add(AddID{Auto: true}, int64(i/4+1), fv, DefaultLimits)
	}
}

func BenchmarkRange100(b *testing.B) {
	s := fill(b, 100000)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		start := ID{Ms: uint64(i%99000 + 1)}
		if len(s.Range(start, MaxID, 100, false)) != 100 {
			b.Fatal("short range")
		}
	}
}

func BenchmarkRevRange100(b *testing.B) {
	s := fill(b, 100000)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		end := ID{Ms: uint64(i%99000 + 1000)}
		if len(s.Range(MinID, end, 100, true)) != 100 {
			b.Fatal("short range")
		}
	}
}

func BenchmarkGet(b *testing.B) {
	s := fill(b, 100000)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, ok := s.Get(ID{Ms: uint64(i%100000 + 1)}); !ok {
			b.Fatal("missing")
		}
	}
}
