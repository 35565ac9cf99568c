package hash

import (
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/hotkv/hotkv/block"
)

// checkSmall checks the small form's invariants besides its contents: the
// block is nil exactly when empty, the length is what the pairs take, and
// MemSize counts the block block.Size says.
func checkSmall(t *testing.T, h *Hash, m map[string]string) {
	t.Helper()
	check(t, h, m)
	if !h.IsSmall() {
		t.Fatalf("%s, want listpack", h.Encoding())
	}
	size := 0
	for f, v := range m {
		size += uvarintLen(len(f)) + len(f) + uvarintLen(len(v)) + len(v)
	}
	if int(h.size) != size || (h.p == nil) != (size == 0) || int(h.n) != len(m) {
		t.Fatalf("size %d p %p n %d, want size %d for %d pairs", h.size, h.p, h.n, size, len(m))
	}
	if got := h.MemSize(); got != int64(hashOverhead+block.Size(size)) {
		t.Fatalf("MemSize %d, want %d", got, hashOverhead+block.Size(size))
	}
}

// TestSmallLayout walks a small hash through its layout's edges: empty,
// one pair, values that grow and shrink in place (including across a
// varint length boundary), deletion back to empty, the largest small hash
// the limits allow, and conversion on the entry and the value limits.
func TestSmallLayout(t *testing.T) {
	if sz := unsafe.Sizeof(Hash{}); sz != 16 {
		t.Fatalf("Hash is %d bytes, want 16", sz)
	}
	for _, v := range []int{0, 1, 127, 128, 16383, 16384, 1 << 30} {
		if got, want := uvarintLen(v), len(appendUvarint(v)); got != want {
			t.Fatalf("uvarintLen(%d) = %d, want %d", v, got, want)
		}
	}
	h := New()
	m := map[string]string{}
	checkSmall(t, h, m)
	if h.Delete([]byte("f")) {
		t.Fatal("Delete on an empty hash")
	}
	lim := Limits{MaxEntries: 64, MaxValue: 200}
	set := func(f, v string) {
		t.Helper()
		h.Set([]byte(f), []byte(v), lim)
		m[f] = v
		checkSmall(t, h, m)
	}
	del := func(f string) {
		t.Helper()
		if !h.Delete([]byte(f)) {
			t.Fatalf("Delete(%q) = false", f)
		}
		delete(m, f)
		checkSmall(t, h, m)
	}
	set("f", "v")
	set("f", "")
	set("f", strings.Repeat("x", 127))
	set("f", strings.Repeat("y", 128)) // the length takes two bytes
	set("g", "1")
	set("f", "short")
	d := h.Clone().(*Hash)
	del("f")
	del("g")
	checkSmall(t, d, map[string]string{"f": "short", "g": "1"})

	// The largest small hash, grown and shrunk a pair at a time.
	for i := 0; i < lim.MaxEntries; i++ {
		set("field:"+strconv.Itoa(i), strings.Repeat("v", i%lim.MaxValue))
	}
	for i := 0; i < lim.MaxEntries; i += 2 {
		set("field:"+strconv.Itoa(i), strings.Repeat("w", lim.MaxValue))
	}
	big := h.Clone().(*Hash)
	for i := 0; i < lim.MaxEntries; i += 3 {
		del("field:" + strconv.Itoa(i))
	}
	big.Set([]byte("one more"), nil, lim)
	if big.IsSmall() || big.Len() != lim.MaxEntries+1 {
		t.Fatalf("past the entry limit: %s with %d", big.Encoding(), big.Len())
	}
	if big.MemSize() != hashOverhead+big.t().memSize() {
		t.Fatalf("table MemSize %d", big.MemSize())
	}
	h.Set([]byte("long"), []byte(strings.Repeat("z", lim.MaxValue+1)), lim)
	m["long"] = strings.Repeat("z", lim.MaxValue+1)
	check(t, h, m)
	if h.IsSmall() {
		t.Fatal("small past the value limit")
	}
}

func appendUvarint(v int) []byte {
	var b []byte
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}
