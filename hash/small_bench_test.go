package hash

import (
	"strconv"
	"testing"
)

func smallFields(n int) [][]byte {
	fs := make([][]byte, n)
	for i := range fs {
		fs[i] = []byte("f:" + strconv.Itoa(i))
	}
	return fs
}

// BenchmarkHashSet10 builds hashes of 10 short pairs, HSET's common case.
func BenchmarkHashSet10(b *testing.B) {
	fs := smallFields(10)
	v := []byte("v:1")
	b.ReportAllocs()
	for b.Loop() {
		h := New()
		for _, f := range fs {
			h.Set(f, v, DefaultLimits)
		}
		sink = h
	}
}

// BenchmarkHashGet10 is HGET on a hash of 10 short pairs.
func BenchmarkHashGet10(b *testing.B) {
	fs := smallFields(10)
	h := New()
	for _, f := range fs {
		h.Set(f, []byte("v:1"), DefaultLimits)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		h.Get(fs[i%10])
	}
}

// sink keeps what a benchmark builds on the heap, where the server keeps
// it, rather than let escape analysis put it on the stack.
var sink any
