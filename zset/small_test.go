package zset

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/hotkv/hotkv/block"
)

// checkSmall checks the small form's invariants besides its contents: the
// block is nil exactly when empty, its length is what the elements take,
// and MemSize counts the block block.Size says.
func checkSmall(t *testing.T, z *ZSet, m model) {
	t.Helper()
	check(t, z, m)
	if !z.Small() {
		t.Fatalf("%s, want listpack", z.Encoding())
	}
	size := 0
	for k, s := range m {
		size += entrySize(len(k), s)
	}
	if int(z.size) != size || (z.p == nil) != (size == 0) || int(z.n) != len(m) {
		t.Fatalf("size %d p %p n %d, want size %d for %d elements", z.size, z.p, z.n, size, len(m))
	}
	if got := z.MemSize(); got != int64(zsetOverhead+block.Size(size)) {
		t.Fatalf("MemSize %d, want %d", got, zsetOverhead+block.Size(size))
	}
}

// TestSmallLayout walks a small set through its layout's edges: empty, one
// element, score updates that change an entry's size (integer, float, -0),
// deletion back to empty, the largest small set the limits allow, range
// deletion, Clone, and conversion on the entry and the value limits.
func TestSmallLayout(t *testing.T) {
	if sz := unsafe.Sizeof(ZSet{}); sz != 16 {
		t.Fatalf("ZSet is %d bytes, want 16", sz)
	}
	const maxEntries, maxValue = 128, 64
	z := New(true)
	m := model{}
	checkSmall(t, z, m)
	if z.Delete([]byte("a")) || z.DeleteRange(0, 1) != 0 {
		t.Fatal("deleted from an empty set")
	}
	add := func(k string, s float64) {
		t.Helper()
		z.Add([]byte(k), s, 0, maxEntries, maxValue)
		m[k] = s
		checkSmall(t, z, m)
	}
	del := func(k string) {
		t.Helper()
		if !z.Delete([]byte(k)) {
			t.Fatalf("Delete(%q) = false", k)
		}
		delete(m, k)
		checkSmall(t, z, m)
	}
	add("a", 1)
	add("a", 1e300)
	add("a", math.Copysign(0, -1))
	m["a"] = 0 // stored as 0
	checkSmall(t, z, m)
	add("b", -(1 << 53))
	add("a", 0.5)
	c := z.Clone().(*ZSet)
	del("a")
	del("b")
	checkSmall(t, c, model{"a": 0.5, "b": -(1 << 53)})

	// The largest small set, grown and updated an element at a time.
	for i := 0; i < maxEntries; i++ {
		add(strings.Repeat("m", i%(maxValue-3))+strconv.Itoa(i), float64(i%7))
	}
	for i := 0; i < maxEntries; i += 3 {
		add(strings.Repeat("m", i%(maxValue-3))+strconv.Itoa(i), float64(i)+0.25)
	}
	full := z.Clone().(*ZSet)
	checkSmall(t, full, m)
	full.Add([]byte("one more"), 0, 0, maxEntries, maxValue)
	if full.Small() || full.Len() != maxEntries+1 {
		t.Fatalf("past the entry limit: %s with %d", full.Encoding(), full.Len())
	}
	// Delete ranges from the middle down to empty.
	for z.Len() > 0 {
		lo := z.Len() / 3
		hi := min(lo+5, z.Len())
		for r := lo; r < hi; r++ {
			k, _ := z.At(lo + (r - lo))
			delete(m, string(k))
		}
		if got := z.DeleteRange(lo, hi); got != hi-lo {
			t.Fatalf("DeleteRange(%d, %d) = %d", lo, hi, got)
		}
		checkSmall(t, z, m)
	}
	z.Add([]byte(strings.Repeat("x", maxValue+1)), 1, 0, maxEntries, maxValue)
	if z.Small() || z.Len() != 1 {
		t.Fatal("small past the value limit")
	}
}
