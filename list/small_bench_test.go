package list

import (
	"strconv"
	"testing"
)

// BenchmarkPush5 builds lists of 5 short entries, RPUSH's common case.
func BenchmarkPush5(b *testing.B) {
	vs := make([][]byte, 5)
	for i := range vs {
		vs[i] = []byte("e:" + strconv.Itoa(i))
	}
	b.ReportAllocs()
	for b.Loop() {
		l := New(-2)
		for _, v := range vs {
			l.PushBack(v)
		}
		sink = l
	}
}

// sink keeps what a benchmark builds on the heap, where the server keeps
// it, rather than let escape analysis put it on the stack.
var sink any
