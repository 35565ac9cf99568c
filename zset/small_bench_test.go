package zset

import "testing"

// BenchmarkAdd10 builds sets of 10 short members with integer scores,
// ZADD's common case.
func BenchmarkAdd10(b *testing.B) {
	ms := benchMembers(10)
	b.ReportAllocs()
	for b.Loop() {
		z := New(true)
		for j, m := range ms {
			z.Add(m, float64(j*7%10), 0, 128, 64)
		}
		sink = z
	}
}

// BenchmarkScore10 is ZSCORE on a set of 10 short members.
func BenchmarkScore10(b *testing.B) {
	ms := benchMembers(10)
	z := smallOf(ms)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		z.Score(ms[i%10])
	}
}

// BenchmarkIncr10 is ZINCRBY on a set of 10 short members: an update that
// moves the element.
func BenchmarkIncr10(b *testing.B) {
	ms := benchMembers(10)
	z := smallOf(ms)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		z.Add(ms[i%10], 3, AddIncr, 128, 64)
	}
}

// sink keeps what a benchmark builds on the heap, where the server keeps
// it, rather than let escape analysis put it on the stack.
var sink any

// smallOf returns a small set of ms, scored by position.
func smallOf(ms [][]byte) *ZSet {
	z := New(true)
	for j, m := range ms {
		z.Add(m, float64(j), 0, 128, 64)
	}
	return z
}
