package set

import (
	"strconv"
	"testing"
)

// BenchmarkAddIntsetSmall builds sets of 10 small integers, as SADD does
// for the many small sets of a typical keyspace.
func BenchmarkAddIntsetSmall(b *testing.B) {
	ms := make([][]byte, 10)
	for i := range ms {
		ms[i] = []byte(strconv.Itoa(i * 7))
	}
	b.ReportAllocs()
	for b.Loop() {
		s := New()
		for _, m := range ms {
			s.Add(m, 512)
		}
		sink = s
	}
}

// BenchmarkContainsIntsetSmall is SISMEMBER on a set of 10 small integers,
// half of the lookups hits.
func BenchmarkContainsIntsetSmall(b *testing.B) {
	s := New()
	ms := make([][]byte, 20)
	for i := range ms {
		ms[i] = []byte(strconv.Itoa(i * 7))
		if i%2 == 0 {
			s.Add(ms[i], 512)
		}
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		s.Contains(ms[i%20])
	}
}

// sink keeps what a benchmark builds on the heap, where the server keeps
// it, rather than let escape analysis put it on the stack.
var sink any
