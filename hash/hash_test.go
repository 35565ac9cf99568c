package hash

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// check compares h with the model m, in every way the package reads.
func check(t *testing.T, h *Hash, m map[string]string) {
	t.Helper()
	if h.Len() != len(m) {
		t.Fatalf("Len = %d, want %d", h.Len(), len(m))
	}
	for f, v := range m {
		got, ok := h.Get([]byte(f))
		if !ok || string(got) != v {
			t.Fatalf("Get(%q) = %q, %v; want %q", f, got, ok, v)
		}
	}
	seen := map[string]bool{}
	h.Each(func(f, v []byte) bool {
		if seen[string(f)] {
			t.Fatalf("Each: %q twice", f)
		}
		seen[string(f)] = true
		if m[string(f)] != string(v) {
			t.Fatalf("Each: %q = %q, want %q", f, v, m[string(f)])
		}
		return true
	})
	if len(seen) != len(m) {
		t.Fatalf("Each saw %d pairs, want %d", len(seen), len(m))
	}
	if _, ok := h.Get([]byte("no such field")); ok {
		t.Fatal("Get of a missing field succeeded")
	}
}

// TestHashModel runs random operations against a map, over limits that
// keep the hash small, convert it early, or convert it on long strings.
func TestHashModel(t *testing.T) {
	for _, lim := range []Limits{DefaultLimits, {MaxEntries: 0, MaxValue: 64}, {MaxEntries: 16, MaxValue: 8}, {MaxEntries: 1 << 20, MaxValue: 1 << 20}} {
		t.Run(fmt.Sprintf("%d-%d", lim.MaxEntries, lim.MaxValue), func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, uint64(lim.MaxEntries)))
			h := New()
			m := map[string]string{}
			wasBig := false
			for step := 0; step < 20000; step++ {
				f := "f" + strconv.Itoa(r.IntN(1500))
				switch op := r.IntN(10); {
				case op < 6:
					v := strings.Repeat("v", r.IntN(12)) + strconv.Itoa(r.IntN(1000))
					_, had := m[f]
					if created := h.Set([]byte(f), []byte(v), lim); created == had {
						t.Fatalf("Set(%q) created = %v with field present = %v", f, created, had)
					}
					m[f] = v
					if len(m) > lim.MaxEntries || len(f) > lim.MaxValue || len(v) > lim.MaxValue {
						if h.IsSmall() {
							t.Fatalf("still small with %d pairs, %q=%q", len(m), f, v)
						}
					}
				default:
					_, had := m[f]
					if h.Delete([]byte(f)) != had {
						t.Fatalf("Delete(%q) != %v", f, had)
					}
					delete(m, f)
				}
				if wasBig && h.IsSmall() {
					t.Fatal("converted back to small")
				}
				wasBig = !h.IsSmall()
				if step%997 == 0 {
					check(t, h, m)
				}
			}
			check(t, h, m)
			for f := range m {
				h.Delete([]byte(f))
				delete(m, f)
			}
			check(t, h, m)
		})
	}
}

// TestHashSmallOrder checks the small form's insertion order and in-place
// updates of every size.
func TestHashSmallOrder(t *testing.T) {
	h := New()
	for _, f := range []string{"c", "a", "b", "d"} {
		h.Set([]byte(f), []byte("1"), DefaultLimits)
	}
	h.Set([]byte("a"), []byte(strings.Repeat("x", 60)), DefaultLimits) // longer header
	h.Set([]byte("b"), []byte(""), DefaultLimits)                      // shorter
	h.Set([]byte("c"), []byte("2"), DefaultLimits)                     // same size
	h.Delete([]byte("d"))
	h.Set([]byte("d"), []byte("3"), DefaultLimits) // back at the end
	var got []string
	h.Each(func(f, v []byte) bool {
		got = append(got, string(f)+"="+string(v))
		return true
	})
	want := []string{"c=2", "a=" + strings.Repeat("x", 60), "b=", "d=3"}
	if !slices.Equal(got, want) {
		t.Fatalf("order %q, want %q", got, want)
	}
	if h.Encoding() != "listpack" {
		t.Fatal(h.Encoding())
	}
	var scanned []string
	if next := h.Scan(12345, 1, func(f, v []byte) { scanned = append(scanned, string(f)+"="+string(v)) }); next != 0 || !slices.Equal(scanned, want) {
		t.Fatalf("Scan = %q, %d", scanned, next)
	}
}

// TestHashConversion checks Redis's conversion points.
func TestHashConversion(t *testing.T) {
	lim := Limits{MaxEntries: 3, MaxValue: 5}
	h := New()
	for i := 0; i < 3; i++ {
		h.Set([]byte{'a' + byte(i)}, []byte("12345"), lim)
	}
	if !h.IsSmall() {
		t.Fatal("converted at the entry limit")
	}
	h.Set([]byte("d"), []byte("x"), lim)
	if h.IsSmall() || h.Encoding() != "hashtable" {
		t.Fatal("not converted past the entry limit")
	}
	h = New()
	h.Set([]byte("a"), []byte("123456"), lim)
	if h.IsSmall() {
		t.Fatal("not converted by a long value")
	}
	h = New()
	h.Set([]byte("abcdef"), []byte("1"), lim)
	if h.IsSmall() {
		t.Fatal("not converted by a long field")
	}
}

// TestHashScanGuarantee: every pair present for a whole scan is returned,
// while pairs come and go and the table grows and shrinks in between.
func TestHashScanGuarantee(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for round := 0; round < 30; round++ {
		h := New()
		stable := map[string]bool{}
		for i := 0; i < 500+r.IntN(3000); i++ {
			f := "s" + strconv.Itoa(i)
			h.Set([]byte(f), []byte("v"), DefaultLimits)
			stable[f] = true
		}
		seen := map[string]int{}
		cursor, calls := uint64(0), 0
		churn := 0
		var live []string
		for {
			cursor = h.Scan(cursor, 1+r.IntN(40), func(f, _ []byte) { seen[string(f)]++ })
			calls++
			// Grow a lot, or shrink a lot, between calls.
			if r.IntN(2) == 0 && len(live) < 5000 {
				for i, k := 0, r.IntN(2000); i < k; i++ {
					f := "t" + strconv.Itoa(churn)
					h.Set([]byte(f), []byte("v"), DefaultLimits)
					live = append(live, f)
					churn++
				}
			} else {
				keep := r.IntN(len(live) + 1)
				for _, f := range live[keep:] {
					h.Delete([]byte(f))
				}
				live = live[:keep]
			}
			if cursor == 0 {
				break
			}
			if calls > 1e6 {
				t.Fatal("scan does not end")
			}
		}
		for f := range stable {
			if seen[f] == 0 {
				t.Fatalf("round %d: %q never returned", round, f)
			}
		}
	}
}

// TestHashScanCount: without changes, a full scan returns each pair once
// and calls return about count pairs.
func TestHashScanCount(t *testing.T) {
	h := New()
	for i := 0; i < 10000; i++ {
		h.Set([]byte(strconv.Itoa(i)), []byte("v"), DefaultLimits)
	}
	seen := map[string]int{}
	cursor, calls := uint64(0), 0
	for {
		cursor = h.Scan(cursor, 10, func(f, _ []byte) { seen[string(f)]++ })
		calls++
		if cursor == 0 {
			break
		}
	}
	if len(seen) != 10000 {
		t.Fatalf("saw %d fields", len(seen))
	}
	for f, n := range seen {
		if n != 1 {
			t.Fatalf("%q returned %d times", f, n)
		}
	}
	if calls < 500 || calls > 2000 {
		t.Fatalf("%d calls for 10000 pairs at COUNT 10", calls)
	}
	if h.Scan(1<<40, 10, func(f, _ []byte) { t.Fatal("pair past the end") }) != 0 {
		t.Fatal("cursor past the end did not end")
	}
}

// TestHashRandom checks the random functions' distinctness and fairness.
func TestHashRandom(t *testing.T) {
	for _, size := range []int{5, 100, 2000} {
		h := New()
		for i := 0; i < size; i++ {
			h.Set([]byte(strconv.Itoa(i)), []byte("v"+strconv.Itoa(i)), DefaultLimits)
		}
		counts := make([]int, size)
		const draws = 200000
		h.RandomPairs(draws, rand.IntN, func(f, v []byte) bool {
			i, _ := strconv.Atoi(string(f))
			if string(v) != "v"+string(f) {
				t.Fatalf("pair %q=%q", f, v)
			}
			counts[i]++
			return true
		})
		for i, n := range counts {
			want := draws / size
			if n < want/2 || n > want*2 {
				t.Fatalf("size %d: field %d drawn %d times, want about %d", size, i, n, want)
			}
		}
		if f, v := h.Random(rand.IntN); string(v) != "v"+string(f) {
			t.Fatalf("Random: %q=%q", f, v)
		}
		for _, count := range []int{1, 2, size / 3, size / 2, size - 1, size, size + 10} {
			seen := map[string]bool{}
			var order []int
			h.RandomDistinct(count, rand.IntN, func(f, v []byte) {
				if seen[string(f)] {
					t.Fatalf("RandomDistinct(%d): %q twice", count, f)
				}
				seen[string(f)] = true
				i, _ := strconv.Atoi(string(f))
				order = append(order, i)
			})
			if len(seen) != min(count, size) {
				t.Fatalf("RandomDistinct(%d) of %d gave %d", count, size, len(seen))
			}
			if h.IsSmall() && !slices.IsSorted(order) {
				t.Fatalf("small RandomDistinct not in insertion order: %v", order)
			}
		}
	}
}

// TestHashClone checks that a clone shares nothing.
func TestHashClone(t *testing.T) {
	for _, n := range []int{3, 1000} {
		h := New()
		for i := 0; i < n; i++ {
			h.Set([]byte(strconv.Itoa(i)), []byte("value"), DefaultLimits)
		}
		d := h.Clone().(*Hash)
		h.Set([]byte("0"), []byte("VALUE"), DefaultLimits) // same size: in place
		h.Set([]byte("1"), []byte("longer value"), DefaultLimits)
		h.Delete([]byte("2"))
		if v, _ := d.Get([]byte("0")); string(v) != "value" {
			t.Fatalf("clone changed: %q", v)
		}
		if v, _ := d.Get([]byte("1")); string(v) != "value" {
			t.Fatalf("clone changed: %q", v)
		}
		if d.Len() != n || d.Encoding() != h.Encoding() {
			t.Fatal("clone differs")
		}
		if d.MemSize() <= 0 || h.MemSize() <= 0 {
			t.Fatal("MemSize")
		}
	}
}

// heapAlloc returns the live heap after a full collection.
func heapAlloc() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestHashMemory measures the bytes a 1M-pair hash takes per pair (fields
// "field:N", values "value:N", as the report's Redis comparison), and the
// bytes a small hash takes per pair, and checks MemSize's estimate.
func TestHashMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	const n = 1_000_000
	before := heapAlloc()
	h := New()
	for i := 0; i < n; i++ {
		h.Set([]byte("field:"+strconv.Itoa(i)), []byte("value:"+strconv.Itoa(i)), DefaultLimits)
	}
	after := heapAlloc()
	per := float64(after-before) / n
	t.Logf("1M-pair hash: %.1f bytes/pair (MemSize estimate %.1f)", per, float64(h.MemSize())/n)
	if est := float64(h.MemSize()) / n; est < per*0.7 || est > per*1.3 {
		t.Errorf("MemSize estimate %.1f bytes/pair, measured %.1f", est, per)
	}
	runtime.KeepAlive(h)

	const small, pairs = 10000, 10
	before = heapAlloc()
	hs := make([]*Hash, small)
	for i := range hs {
		hs[i] = New()
		for j := 0; j < pairs; j++ {
			hs[i].Set([]byte("field:"+strconv.Itoa(j)), []byte("value:"+strconv.Itoa(i)), DefaultLimits)
		}
	}
	after = heapAlloc()
	t.Logf("10-pair hashes: %.1f bytes/pair including the Hash (MemSize estimate %.1f)",
		float64(after-before)/(small*pairs), float64(hs[0].MemSize())/pairs)
	runtime.KeepAlive(hs)
}

func benchFields(n int) [][]byte {
	fs := make([][]byte, n)
	for i := range fs {
		fs[i] = []byte("field:" + strconv.Itoa(i))
	}
	return fs
}

func BenchmarkHashSetSmall(b *testing.B) {
	fs := benchFields(64)
	v := []byte("value")
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		h := New()
		for _, f := range fs {
			h.Set(f, v, DefaultLimits)
		}
	}
}

func BenchmarkHashGetSmall(b *testing.B) {
	fs := benchFields(64)
	h := New()
	for _, f := range fs {
		h.Set(f, []byte("value"), DefaultLimits)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		h.Get(fs[i&63])
	}
}

func BenchmarkHashSetBig(b *testing.B) {
	fs := benchFields(1 << 16)
	v := []byte("value")
	h := New()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		h.Set(fs[i&(1<<16-1)], v, DefaultLimits)
	}
}

func BenchmarkHashInsertBig(b *testing.B) {
	fs := benchFields(1 << 16)
	v := []byte("value")
	b.ReportAllocs()
	for b.Loop() {
		h := New()
		for _, f := range fs {
			h.Set(f, v, DefaultLimits)
		}
	}
}

func BenchmarkHashGetBig(b *testing.B) {
	fs := benchFields(1 << 16)
	h := New()
	for _, f := range fs {
		h.Set(f, []byte("value"), DefaultLimits)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		h.Get(fs[i&(1<<16-1)])
	}
}

func BenchmarkHashScanBig(b *testing.B) {
	h := New()
	for _, f := range benchFields(1 << 16) {
		h.Set(f, []byte("value"), DefaultLimits)
	}
	b.ReportAllocs()
	cursor := uint64(0)
	for b.Loop() {
		cursor = h.Scan(cursor, 10, func(_, _ []byte) {})
	}
}
