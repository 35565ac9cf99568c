package list

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"testing"

	"github.com/hotkv/hotkv/lzf"
)

// check verifies l's invariants and that it holds exactly want.
func check(t *testing.T, l *List, want [][]byte) {
	t.Helper()
	if l.Len() != len(want) {
		t.Fatalf("Len %d, want %d", l.Len(), len(want))
	}
	total, mem := 0, int64(0)
	for di := l.lo; di < l.hi; di++ {
		nd := &l.dir[di]
		if nd.n == 0 {
			t.Fatalf("empty node %d", di-l.lo)
		}
		checkCompression(t, l, di)
		var buf []byte
		b, off := nd.entries(&buf)
		n := 0
		for p := off; p < len(b); p += sizeAt(b, p) {
			n++
		}
		if n != int(nd.n) {
			t.Fatalf("node %d: %d entries, n = %d", di-l.lo, n, nd.n)
		}
		if nd.n > 1 {
			var sc [20]byte
			for p := off; p < len(b); p += sizeAt(b, p) {
				if v, _ := valueAt(b, p, &sc); large(len(v)) {
					t.Fatalf("node %d: a plain entry of %d bytes among %d entries", di-l.lo, len(v), nd.n)
				}
			}
		}
		if nd.n > 1 && nd.rawSize() > l.maxBytes() {
			t.Fatalf("node %d: %d bytes over the limit %d with %d entries", di-l.lo, nd.rawSize(), l.maxBytes(), nd.n)
		}
		if l.fill >= 0 && int(nd.n) > max(int(l.fill), 1) {
			t.Fatalf("node %d: %d entries, fill %d", di-l.lo, nd.n, l.fill)
		}
		total += n
		mem += int64(cap(nd.b))
	}
	if total != l.count {
		t.Fatalf("nodes hold %d entries, count %d", total, l.count)
	}
	if mem != l.bufMem {
		t.Fatalf("bufMem %d, buffers %d", l.bufMem, mem)
	}
	var got [][]byte
	it := l.IterAt(0, false)
	for v, ok := it.Next(); ok; v, ok = it.Next() {
		got = append(got, slices.Clone(v))
	}
	if !equalLists(got, want) {
		t.Fatalf("forward:\n got %q\nwant %q", abbrev(got), abbrev(want))
	}
	got = got[:0]
	it = l.IterAt(-1, true)
	for v, ok := it.Next(); ok; v, ok = it.Next() {
		got = append(got, slices.Clone(v))
	}
	slices.Reverse(got)
	if !equalLists(got, want) {
		t.Fatalf("backward:\n got %q\nwant %q", abbrev(got), abbrev(want))
	}
}

// checkCompression verifies the compression invariant for node dir[di]:
// it is compressed exactly when it lies outside both depth windows, holds
// at least minCompressBytes and LZF saves at least minCompressImprove
// bytes on it; a compressed node decodes to its size.
func checkCompression(t *testing.T, l *List, di int) {
	t.Helper()
	nd := &l.dir[di]
	i, k, d := di-l.lo, l.hi-l.lo, int(l.depth)
	inner := d > 0 && i >= d && i < k-d
	var buf []byte
	raw, off := nd.entries(&buf)
	raw = raw[off:]
	want := false
	switch {
	case !inner || len(raw) < minCompressBytes:
	case nd.compressed():
		want = true // it decoded to its size (entries), and is checked shorter below
	default:
		c := lzf.Compress(raw, len(raw))
		want = c != nil && len(c)+minCompressImprove < len(raw)
	}
	if nd.compressed() != want {
		t.Fatalf("node %d of %d (depth %d, %d bytes): compressed %v, want %v", i, k, d, len(raw), nd.compressed(), want)
	}
	if nd.compressed() && len(nd.b)+minCompressImprove >= len(raw) {
		t.Fatalf("node %d: %d compressed bytes (cap %d) for %d", i, len(nd.b), cap(nd.b), len(raw))
	}
}

func equalLists(a, b [][]byte) bool {
	return slices.EqualFunc(a, b, func(x, y []byte) bool { return bytes.Equal(x, y) })
}

func abbrev(l [][]byte) []string {
	var out []string
	for i, v := range l {
		if i == 20 {
			out = append(out, fmt.Sprintf("... (%d)", len(l)))
			break
		}
		if len(v) > 20 {
			v = append(v[:20:20], "..."...)
		}
		out = append(out, string(v))
	}
	return out
}

func TestCanonical(t *testing.T) {
	for _, row := range []struct {
		s  string
		ok bool
	}{
		{"0", true}, {"1", true}, {"-1", true}, {"127", true}, {"128", true},
		{"-32768", true}, {"8388607", true}, {"-8388608", true},
		{"9223372036854775807", true}, {"-9223372036854775808", true},
		{"9223372036854775808", false}, {"-9223372036854775809", false},
		{"18446744073709551616", false}, {"99999999999999999999", false},
		{"", false}, {"-", false}, {"-0", false}, {"01", false}, {"+1", false},
		{" 1", false}, {"1 ", false}, {"1a", false}, {"00", false}, {"--1", false},
	} {
		n, ok := parseCanonical([]byte(row.s))
		if ok != row.ok {
			t.Errorf("%q: ok %v", row.s, ok)
		}
		if ok && strconv.FormatInt(n, 10) != row.s {
			t.Errorf("%q: %d", row.s, n)
		}
	}
}

// TestEncoding round-trips values of every encoding, forwards and back.
func TestEncoding(t *testing.T) {
	vals := []string{"", "a", "0", "127", "128", "-1", "-128", "32767", "-32769",
		"8388607", "8388608", "2147483647", "-2147483649", "9223372036854775807",
		"-9223372036854775808", "007", "-0", "+5", "1.5",
		string(bytes.Repeat([]byte("x"), 63)), string(bytes.Repeat([]byte("x"), 64)),
		string(bytes.Repeat([]byte("y"), 127)), string(bytes.Repeat([]byte("y"), 128)),
		string(bytes.Repeat([]byte("z"), 8191)), string(bytes.Repeat([]byte("z"), 8192)),
		string(bytes.Repeat([]byte("w"), 20000)), string(bytes.Repeat([]byte("v"), 3_000_000)),
	}
	var buf []byte
	for _, v := range vals {
		e := encode([]byte(v))
		buf = append(buf, make([]byte, e.size)...)
		e.put(buf[len(buf)-e.size:])
	}
	p := 0
	var sc [20]byte
	for _, v := range vals {
		got, sz := valueAt(buf, p, &sc)
		if string(got) != v {
			t.Fatalf("forward: got %.30q want %.30q", got, v)
		}
		if sz != sizeAt(buf, p) {
			t.Fatalf("%.30q: sizes %d and %d", v, sz, sizeAt(buf, p))
		}
		m := NewMatcher([]byte(v))
		if ok, _ := m.at(buf, p); !ok {
			t.Fatalf("%.30q does not match itself", v)
		}
		p += sz
	}
	end := len(buf)
	for i := len(vals) - 1; i >= 0; i-- {
		q := prevStart(buf, end)
		got, _ := valueAt(buf, q, &sc)
		if string(got) != vals[i] {
			t.Fatalf("backward: got %.30q want %.30q", got, vals[i])
		}
		end = q
	}
	// Integers only match their canonical spelling.
	m := NewMatcher([]byte("007"))
	e := encode([]byte("7"))
	b := make([]byte, e.size)
	e.put(b)
	if ok, _ := m.at(b, 0); ok {
		t.Fatal(`"007" matches 7`)
	}
}

// TestModel runs random operations on lists of several fills against a
// slice and checks the invariants after each.
// TestModel runs random operations on lists of every kind of fill, with
// the default packed threshold and with plain entries from 100 bytes on,
// against a slice.
func TestModel(t *testing.T) {
	fills := []int{-1, -2, -5, 0, 1, 3, 128, -9, 100000}
	t.Run("default", func(t *testing.T) { testModel(t, 0, fills, 4000, 3000) })
	SetPackedThreshold(100)
	defer SetPackedThreshold(0)
	t.Run("plain", func(t *testing.T) { testModel(t, 0, fills, 4000, 3000) })
}

// TestModelCompressed is TestModel with compression depths 1 to 3, mostly
// small fills (many nodes, so many move in and out of the depth windows),
// and shorter lists (check compresses every node after every step).
func TestModelCompressed(t *testing.T) {
	fills := []int{-1, 0, 1, 3, 16, 128}
	steps := 1200
	if testing.Short() || raceEnabled {
		steps = 300
	}
	for _, depth := range []int{1, 2, 3} {
		t.Run(fmt.Sprint("depth", depth), func(t *testing.T) {
			t.Run("default", func(t *testing.T) { testModel(t, depth, fills, steps, 1000) })
			SetPackedThreshold(100)
			defer SetPackedThreshold(0)
			t.Run("plain", func(t *testing.T) { testModel(t, depth, fills, steps, 1000) })
		})
	}
}

// testModel runs steps random operations on a list of each fill with the
// compression depth, against a slice, trimming the list when it grows past
// maxLen entries.
func testModel(t *testing.T, depth int, fills []int, steps, maxLen int) {
	for _, fill := range fills {
		t.Run(strconv.Itoa(fill), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(fill+100), uint64(7+depth)))
			l := NewCompressed(fill, depth)
			if l.CompressDepth() != depth {
				t.Fatalf("CompressDepth %d", l.CompressDepth())
			}
			var want [][]byte
			maxCompressed, sumLen, sumNodes := 0, 0, 0
			defer func() {
				t.Logf("mean length %d, mean nodes %d, most compressed nodes %d", sumLen/steps, sumNodes/steps, maxCompressed)
				if depth > 0 && maxCompressed == 0 && !t.Failed() {
					t.Errorf("no node was ever compressed")
				}
			}()
			val := func() []byte {
				if depth > 0 && rng.IntN(8) == 0 {
					// Incompressible: random bytes, some nodes stay raw.
					v := make([]byte, 30+rng.IntN(200))
					for i := range v {
						v[i] = byte(rng.Uint32())
					}
					return v
				}
				switch rng.IntN(6) {
				case 0:
					return []byte(strconv.Itoa(rng.IntN(300) - 150))
				case 1:
					return []byte(strconv.FormatInt(rng.Int64()-math.MaxInt64/2, 10))
				case 2:
					return bytes.Repeat([]byte{'a' + byte(rng.IntN(3))}, rng.IntN(200))
				case 3:
					return bytes.Repeat([]byte{'L'}, 3000+rng.IntN(9000))
				default:
					return []byte(fmt.Sprint("v", rng.IntN(20)))
				}
			}
			for step := 0; step < steps; step++ {
				op := rng.IntN(13)
				if depth > 0 && rng.IntN(3) == 0 {
					op = rng.IntN(4) // more pushes: long lists, many nodes
				}
				switch op {
				case 0, 1:
					v := val()
					l.PushFront(v)
					want = slices.Insert(want, 0, v)
				case 2, 3:
					v := val()
					l.PushBack(v)
					want = append(want, v)
				case 4:
					got, ok := l.PopFront(nil)
					if ok != (len(want) > 0) || ok && !bytes.Equal(got, want[0]) {
						t.Fatalf("PopFront %q %v", got, ok)
					}
					if ok {
						want = want[1:]
					}
				case 5:
					got, ok := l.PopBack([]byte("x"))
					if ok != (len(want) > 0) || ok && !bytes.Equal(got[1:], want[len(want)-1]) {
						t.Fatalf("PopBack %q %v", got, ok)
					}
					if ok {
						want = want[:len(want)-1]
					}
				case 6:
					i := rng.IntN(len(want)+4) - 2
					got, ok := l.Index(i, nil)
					j := i
					if j < 0 {
						j += len(want)
					}
					if ok != (j >= 0 && j < len(want)) || ok && !bytes.Equal(got, want[j]) {
						t.Fatalf("Index(%d) = %q %v", i, got, ok)
					}
				case 7:
					i := rng.IntN(len(want)+4) - 2
					v := val()
					ok := l.Set(i, v)
					j := i
					if j < 0 {
						j += len(want)
					}
					if ok != (j >= 0 && j < len(want)) {
						t.Fatalf("Set(%d) = %v", i, ok)
					}
					if ok {
						want[j] = v
					}
				case 8:
					pivot := val()
					if len(want) > 0 && rng.IntN(2) == 0 {
						pivot = want[rng.IntN(len(want))]
					}
					v, after := val(), rng.IntN(2) == 0
					m := NewMatcher(pivot)
					ok := l.Insert(&m, v, after)
					j := slices.IndexFunc(want, func(x []byte) bool { return bytes.Equal(x, pivot) })
					if ok != (j >= 0) {
						t.Fatalf("Insert: %v", ok)
					}
					if ok {
						if after {
							j++
						}
						want = slices.Insert(want, j, v)
					}
				case 9:
					target := val()
					if len(want) > 0 && rng.IntN(3) > 0 {
						target = want[rng.IntN(len(want))]
					}
					limit, fromTail := rng.IntN(4), rng.IntN(2) == 0
					m := NewMatcher(target)
					n := l.Remove(&m, limit, fromTail)
					want2, removed := modelRemove(want, target, limit, fromTail)
					if n != removed {
						t.Fatalf("Remove %d, want %d", n, removed)
					}
					want = want2
				case 10:
					k := rng.IntN(len(want) + 3)
					if depth > 0 && rng.IntN(8) > 0 {
						k = rng.IntN(4) // mostly short trims: long lists
					}
					if rng.IntN(2) == 0 {
						l.TrimFront(k)
						want = want[min(k, len(want)):]
					} else {
						l.TrimBack(k)
						want = want[:len(want)-min(k, len(want))]
					}
				case 11:
					if rng.IntN(50) == 0 {
						c := l.Copy()
						check(t, c, want)
						l = c
					}
				case 12:
					// LPOS-like scans from a random index either way.
					if len(want) == 0 {
						break
					}
					i, rev := rng.IntN(len(want)), rng.IntN(2) == 0
					target := want[rng.IntN(len(want))]
					m := NewMatcher(target)
					it := l.IterAt(i, rev)
					for j := i; ; {
						matched, ok := it.NextMatch(&m)
						if !ok {
							if j >= 0 && j < len(want) {
								t.Fatalf("iteration stopped at %d", j)
							}
							break
						}
						if matched != bytes.Equal(want[j], target) {
							t.Fatalf("NextMatch at %d: %v", j, matched)
						}
						if rev {
							j--
						} else {
							j++
						}
					}
				}
				check(t, l, want)
				maxCompressed = max(maxCompressed, l.CompressedNodes())
				sumLen, sumNodes = sumLen+len(want), sumNodes+l.Nodes()
				if len(want) > maxLen {
					k := maxLen * 2 / 3
					if step%2 == 0 {
						l.TrimFront(k)
						want = want[k:]
					} else {
						l.TrimBack(k)
						want = want[:len(want)-k]
					}
				}
			}
		})
	}
}

func modelRemove(l [][]byte, v []byte, limit int, fromTail bool) ([][]byte, int) {
	out := slices.Clone(l)
	n := 0
	if limit == 0 || !fromTail {
		for i := 0; i < len(out); {
			if bytes.Equal(out[i], v) && (limit == 0 || n < limit) {
				out = slices.Delete(out, i, i+1)
				n++
				continue
			}
			i++
		}
		return out, n
	}
	for i := len(out) - 1; i >= 0 && n < limit; i-- {
		if bytes.Equal(out[i], v) {
			out = slices.Delete(out, i, i+1)
			n++
		}
	}
	return out, n
}

// TestQueueAndStack: long runs at one end keep a bounded number of nodes
// and free what they pop.
func TestQueueAndStack(t *testing.T) {
	l := New(-2)
	v := []byte("some value of thirty-two bytes!!")
	for i := 0; i < 100000; i++ {
		l.PushBack(v)
		if i >= 1000 {
			if _, ok := l.PopFront(nil); !ok {
				t.Fatal("empty")
			}
		}
	}
	if l.Len() != 1000 || l.Nodes() > 10 || l.MemSize() > 64<<10 {
		t.Fatalf("queue: len %d, %d nodes, %d bytes", l.Len(), l.Nodes(), l.MemSize())
	}
	for i := 0; i < 100000; i++ {
		l.PushFront(v)
		l.PushFront(v)
		l.PopFront(nil)
	}
	if l.Len() != 101000 {
		t.Fatalf("stack: len %d", l.Len())
	}
	l.TrimFront(100990)
	if l.Len() != 10 || l.Nodes() != 1 {
		t.Fatalf("trimmed: len %d, %d nodes", l.Len(), l.Nodes())
	}
	if l.MemSize() > 4096 {
		t.Fatalf("trimmed list still takes %d bytes", l.MemSize())
	}
}

// TestSmallListSize: a list of a few short values costs about what Redis's
// listpack of them does (quicklist + node + listpack).
func TestSmallListSize(t *testing.T) {
	l := New(-2)
	for _, v := range []string{"a", "bb", "ccc", "1", "22"} {
		l.PushBack([]byte(v))
	}
	if m := l.MemSize(); m > 160 {
		t.Fatalf("5 short values take %d bytes", m)
	}
}

// TestBytesPerElement measures the heap a list of 1M elements takes (Go
// heap, after GC) and what MemSize reports.
func TestBytesPerElement(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	for _, kind := range []string{"ints", "strings"} {
		const n = 1_000_000
		var ms0, ms1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms0)
		l := New(-2)
		var buf []byte
		for i := 0; i < n; i++ {
			buf = buf[:0]
			if kind == "strings" {
				buf = append(buf, "element:"...)
			}
			buf = strconv.AppendInt(buf, int64(i), 10)
			l.PushBack(buf)
		}
		runtime.GC()
		runtime.ReadMemStats(&ms1)
		heap := float64(ms1.HeapAlloc-ms0.HeapAlloc) / n
		t.Logf("%s: %.1f bytes/element on the heap, MemSize %.1f, %d nodes", kind, heap, float64(l.MemSize())/n, l.Nodes())
		if heap > 20 {
			t.Errorf("%s: %.1f bytes/element", kind, heap)
		}
		runtime.KeepAlive(l)
	}
}

func BenchmarkPushBack(b *testing.B) {
	b.ReportAllocs()
	l := New(-2)
	v := []byte("value-0123456789")
	for i := 0; i < b.N; i++ {
		l.PushBack(v)
	}
}

func BenchmarkPushFront(b *testing.B) {
	b.ReportAllocs()
	l := New(-2)
	v := []byte("value-0123456789")
	for i := 0; i < b.N; i++ {
		l.PushFront(v)
	}
}

func BenchmarkQueue(b *testing.B) {
	b.ReportAllocs()
	l := New(-2)
	v := []byte("value-0123456789")
	for range 1000 {
		l.PushBack(v)
	}
	var dst []byte
	for i := 0; i < b.N; i++ {
		l.PushBack(v)
		dst, _ = l.PopFront(dst[:0])
	}
}

func BenchmarkIndexMiddle(b *testing.B) {
	b.ReportAllocs()
	l := New(-2)
	for i := range 1_000_000 {
		l.PushBack([]byte(strconv.Itoa(i)))
	}
	var dst []byte
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		dst, _ = l.Index(500_000+i%1000, dst[:0])
	}
}

func BenchmarkRange100(b *testing.B) {
	b.ReportAllocs()
	l := New(-2)
	for i := range 10_000 {
		l.PushBack([]byte("element:" + strconv.Itoa(i)))
	}
	b.ResetTimer()
	n := 0
	for i := 0; i < b.N; i++ {
		it := l.IterAt(i%9000, false)
		for range 100 {
			v, _ := it.Next()
			n += len(v)
		}
	}
	_ = n
}

func BenchmarkInsertMiddle(b *testing.B) {
	b.ReportAllocs()
	l := New(-2)
	for i := range 10_000 {
		l.PushBack([]byte(strconv.Itoa(i)))
	}
	// After the head entry, so that the scan for the pivot is short and
	// the cost is the insertion (node splits included).
	m := NewMatcher([]byte("0"))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l.Insert(&m, []byte("x"), true)
	}
}

// TestSetPackedThreshold: DEBUG QUICKLIST-PACKED-THRESHOLD's range (below
// 4 GB by at least 1 MB; 0 restores 1 GB), and plain entries in nodes of
// their own.
func TestSetPackedThreshold(t *testing.T) {
	defer SetPackedThreshold(0)
	for sz, ok := range map[uint64]bool{1: true, 1 << 20: true, 1<<32 - 1<<20: true, 1<<32 - 1<<20 + 1: false, 1 << 40: false} {
		if got := SetPackedThreshold(sz); got != ok {
			t.Errorf("SetPackedThreshold(%d) = %v", sz, got)
		}
	}
	SetPackedThreshold(0)
	if got := packedThreshold.Load(); got != 1<<30 {
		t.Errorf("threshold after 0: %d", got)
	}
	SetPackedThreshold(10)
	l := New(-2)
	for _, v := range []string{"a", "bb", "xxxxxxxxxx", "c", "yyyyyyyyyyyy", "d"} {
		l.PushBack([]byte(v))
	}
	// a bb | x*10 | c | y*12 | d
	if n := l.Nodes(); n != 5 {
		t.Errorf("%d nodes, want 5", n)
	}
	l.Set(0, []byte("zzzzzzzzzzz"))
	check(t, l, [][]byte{[]byte("zzzzzzzzzzz"), []byte("bb"), []byte("xxxxxxxxxx"), []byte("c"), []byte("yyyyyyyyyyyy"), []byte("d")})
}

// TestSharedCompressedReaders: readers sharing a compressed list (Index,
// iterators both ways, LPOS-like matching) write nothing to it; run with
// -race.
func TestSharedCompressedReaders(t *testing.T) {
	l := NewCompressed(16, 1)
	var want [][]byte
	for i := range 3000 {
		v := []byte(fmt.Sprintf("element-%05d-%s", i, bytes.Repeat([]byte{'x'}, i%40)))
		l.PushBack(v)
		want = append(want, v)
	}
	if l.CompressedNodes() < l.Nodes()-2 {
		t.Fatalf("%d of %d nodes compressed", l.CompressedNodes(), l.Nodes())
	}
	done := make(chan error)
	for g := range 6 {
		go func() {
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			var dst []byte
			for range 300 {
				i := rng.IntN(len(want))
				var ok bool
				if dst, ok = l.Index(i, dst[:0]); !ok || !bytes.Equal(dst, want[i]) {
					done <- fmt.Errorf("Index(%d) = %q", i, dst)
					return
				}
				rev := rng.IntN(2) == 0
				it := l.IterAt(i, rev)
				for j := i; j >= 0 && j < len(want) && j < i+50 && j > i-50; {
					v, ok := it.Next()
					if !ok || !bytes.Equal(v, want[j]) {
						done <- fmt.Errorf("iterating from %d (reverse %v): at %d %q", i, rev, j, v)
						return
					}
					if rev {
						j--
					} else {
						j++
					}
				}
				m := NewMatcher(want[i])
				it = l.IterAt(0, false)
				for j := 0; j <= i; j++ {
					if matched, _ := it.NextMatch(&m); matched != (j == i) {
						done <- fmt.Errorf("NextMatch at %d for %d: %v", j, i, matched)
						return
					}
				}
			}
			done <- nil
		}()
	}
	for range 6 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	check(t, l, want)
}

// BenchmarkCompressDepth compares pushes, indexing and ranges on lists of
// compressible values without compression (depth 0) and with depth 1.
func BenchmarkCompressDepth(b *testing.B) {
	val := func(i int) []byte { return []byte("element:" + strconv.Itoa(i) + ":value-0123456789") }
	for _, depth := range []int{0, 1} {
		b.Run(fmt.Sprintf("PushBack/depth=%d", depth), func(b *testing.B) {
			b.ReportAllocs()
			l := NewCompressed(-2, depth)
			for i := 0; i < b.N; i++ {
				l.PushBack(val(i % 1000))
			}
		})
		b.Run(fmt.Sprintf("PushPop/depth=%d", depth), func(b *testing.B) {
			b.ReportAllocs()
			l := NewCompressed(-2, depth)
			for i := range 100_000 {
				l.PushBack(val(i))
			}
			var dst []byte
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				l.PushFront(val(i % 1000))
				dst, _ = l.PopBack(dst[:0])
			}
		})
		l := NewCompressed(-2, depth)
		for i := range 100_000 {
			l.PushBack(val(i))
		}
		b.Run(fmt.Sprintf("IndexMiddle/depth=%d", depth), func(b *testing.B) {
			b.ReportAllocs()
			var dst []byte
			for i := 0; i < b.N; i++ {
				dst, _ = l.Index(50_000+i%1000*7, dst[:0])
			}
		})
		b.Run(fmt.Sprintf("Range100/depth=%d", depth), func(b *testing.B) {
			b.ReportAllocs()
			n := 0
			for i := 0; i < b.N; i++ {
				it := l.IterAt(i*97%90_000, false)
				for range 100 {
					v, _ := it.Next()
					n += len(v)
				}
			}
			_ = n
		})
		b.Run(fmt.Sprintf("MemSize/depth=%d", depth), func(b *testing.B) {
			for range b.N {
			}
			b.ReportMetric(float64(l.MemSize())/float64(l.Len()), "bytes/elem")
		})
	}
}
