package zset

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// model is the obvious sorted set the tests compare ZSet with.
type model map[string]float64

func (m model) sorted() []Elem {
	out := make([]Elem, 0, len(m))
	for k, v := range m {
		out = append(out, Elem{k, v})
	}
	slices.SortFunc(out, func(a, b Elem) int {
		switch {
		case a.Score < b.Score:
			return -1
		case a.Score > b.Score:
			return 1
		}
		return strings.Compare(a.Member, b.Member)
	})
	return out
}

// checkTree verifies the B+tree's invariants: counts, separators, fill,
// uniform depth and the leaf chain.
func checkTree(t *testing.T, tr *btree) {
	t.Helper()
	leafDepth := -1
	var leaves []*bnode
	var walk func(b *bnode, depth int, root bool) (n int, lo, hi *node)
	walk = func(b *bnode, depth int, root bool) (int, *node, *node) {
		if b.leaf() {
			if leafDepth == -1 {
				leafDepth = depth
			} else if leafDepth != depth {
				t.Fatalf("leaves at depths %d and %d", leafDepth, depth)
			}
			// Only the first and last leaves may run low: splits at the ends
			// (sequential scores) leave the new leaf nearly empty.
			if !root && len(b.items) < minLeaf && b != tr.first && b != tr.last {
				t.Fatalf("leaf with %d items", len(b.items))
			}
			if len(b.items) > maxLeaf {
				t.Fatalf("leaf with %d items", len(b.items))
			}
			for i := 1; i < len(b.items); i++ {
				x, y := b.items[i-1], b.items[i]
				if cmpKey(x.score, x.member, y.score, y.member) >= 0 {
					t.Fatalf("leaf out of order")
				}
			}
			leaves = append(leaves, b)
			if len(b.items) == 0 {
				return 0, nil, nil
			}
			return len(b.items), b.items[0], b.items[len(b.items)-1]
		}
		if !root && len(b.kids) < minInner || len(b.kids) > maxInner || root && len(b.kids) < 2 {
			t.Fatalf("inner node with %d kids (root %v)", len(b.kids), root)
		}
		if len(b.seps) != len(b.kids) || len(b.counts) != len(b.kids) {
			t.Fatalf("inner node arrays %d %d %d", len(b.kids), len(b.seps), len(b.counts))
		}
		total := 0
		var first, last *node
		for i, k := range b.kids {
			n, lo, hi := walk(k, depth+1, false)
			if n != b.counts[i] {
				t.Fatalf("count %d, subtree has %d", b.counts[i], n)
			}
			if i > 0 {
				s := b.seps[i]
				if cmpKey(s.score, s.member, lo.score, lo.member) > 0 {
					t.Fatalf("separator above its subtree's minimum")
				}
				if cmpKey(last.score, last.member, s.score, s.member) >= 0 {
					t.Fatalf("separator not above the previous subtree")
				}
			} else {
				first = lo
			}
			last = hi
			total += n
		}
		return total, first, last
	}
	n, _, _ := walk(tr.root, 0, true)
	if n != tr.n {
		t.Fatalf("tree holds %d, n = %d", n, tr.n)
	}
	if tr.first != leaves[0] || tr.last != leaves[len(leaves)-1] {
		t.Fatalf("first/last leaf pointers wrong")
	}
	for i, l := range leaves {
		if i > 0 && l.prev != leaves[i-1] || i < len(leaves)-1 && l.next != leaves[i+1] {
			t.Fatalf("leaf chain broken at %d", i)
		}
	}
}

// check compares z with m in every way the package answers.
func check(t *testing.T, z *ZSet, m model) {
	t.Helper()
	want := m.sorted()
	if z.Len() != len(want) {
		t.Fatalf("Len %d, want %d", z.Len(), len(want))
	}
	if z.big() != nil {
		checkTree(t, &z.big().tree)
		if z.big().ht.n != len(want) {
			t.Fatalf("hash holds %d", z.big().ht.n)
		}
	}
	var got []Elem
	z.Walk(0, false, func(mb []byte, s float64) bool {
		got = append(got, Elem{string(mb), s})
		return true
	})
	if !slices.Equal(got, want) {
		t.Fatalf("Walk:\n got %v\nwant %v", got, want)
	}
	if len(want) > 0 {
		var rev []Elem
		z.Walk(len(want)-1, true, func(mb []byte, s float64) bool {
			rev = append(rev, Elem{string(mb), s})
			return true
		})
		slices.Reverse(rev)
		if !slices.Equal(rev, want) {
			t.Fatalf("reverse Walk differs")
		}
	}
	for i, e := range want {
		if r, s, ok := z.Rank([]byte(e.Member)); !ok || r != i || s != e.Score {
			t.Fatalf("Rank(%q) = %d %v %v, want %d", e.Member, r, s, ok, i)
		}
		if mb, s := z.At(i); string(mb) != e.Member || s != e.Score {
			t.Fatalf("At(%d) = %q %v", i, mb, s)
		}
		if s, ok := z.Score([]byte(e.Member)); !ok || s != e.Score {
			t.Fatalf("Score(%q) = %v %v", e.Member, s, ok)
		}
	}
	if _, _, ok := z.Rank([]byte("nothere")); ok {
		t.Fatalf("Rank of a missing member")
	}
}

func randScore(r *rand.Rand) float64 {
	switch r.IntN(10) {
	case 0:
		return math.Inf(1)
	case 1:
		return math.Inf(-1)
	case 2:
		return r.NormFloat64()
	}
	return float64(r.IntN(50))
}

func TestModel(t *testing.T) {
	for _, tc := range []struct {
		name       string
		maxEntries int
		members    int
		ops        int
	}{
		{"small", 1 << 30, 60, 3000},
		{"converting", 40, 200, 8000},
		{"big", 0, 3000, 60000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, uint64(tc.members)))
			z := New(tc.maxEntries > 0)
			m := model{}
			for i := 0; i < tc.ops; i++ {
				mem := fmt.Sprintf("m%d", r.IntN(tc.members))
				switch op := r.IntN(10); {
				case op < 5:
					s := randScore(r)
					out, ns := z.Add([]byte(mem), s, 0, tc.maxEntries, 64)
					_, had := m[mem]
					if had && out&Added != 0 || !had && out&Added == 0 || ns != s {
						t.Fatalf("Add(%s, %v) = %b %v (had %v)", mem, s, out, ns, had)
					}
					if s == 0 && z.Small() {
						s = 0 // a small set stores -0 as 0
					}
					m[mem] = s
				case op < 7:
					if z.Delete([]byte(mem)) != (m[mem] == m[mem] && hasKey(m, mem)) {
						t.Fatalf("Delete(%s)", mem)
					}
					delete(m, mem)
				case op < 8:
					out, ns := z.Add([]byte(mem), 1, AddIncr, tc.maxEntries, 64)
					if old, ok := m[mem]; ok {
						want := old + 1
						if math.IsNaN(want) {
							if out != NaN {
								t.Fatalf("incr to NaN")
							}
							break
						}
						m[mem] = want
					} else {
						m[mem] = 1
					}
					if ns != m[mem] {
						t.Fatalf("incr: %v, want %v", ns, m[mem])
					}
				case op < 9:
					n := z.Len()
					lo, hi := r.IntN(n+1), r.IntN(n+1)
					if r.IntN(4) != 0 {
						hi = min(lo+r.IntN(5), n) // mostly short ranges
					}
					want := m.sorted()
					del := 0
					if lo < hi {
						for _, e := range want[lo:hi] {
							delete(m, e.Member)
						}
						del = hi - lo
					}
					if got := z.DeleteRange(lo, hi); got != del {
						t.Fatalf("DeleteRange(%d, %d) = %d, want %d", lo, hi, got, del)
					}
				default:
					checkRanges(t, r, z, m)
				}
				if i%500 == 0 || tc.members < 100 && i%50 == 0 {
					check(t, z, m)
				}
			}
			check(t, z, m)
			if tc.name == "converting" && z.Small() {
				t.Errorf("never converted")
			}
			// Empty it completely, then refill.
			z.DeleteRange(0, z.Len())
			clear(m)
			check(t, z, m)
			for i := 0; i < 200; i++ {
				z.Add([]byte(fmt.Sprint(i)), float64(i%7), 0, tc.maxEntries, 64)
				m[fmt.Sprint(i)] = float64(i % 7)
			}
			check(t, z, m)
		})
	}
}

func hasKey(m model, k string) bool { _, ok := m[k]; return ok }

// checkRanges compares score ranges with the model.
func checkRanges(t *testing.T, r *rand.Rand, z *ZSet, m model) {
	t.Helper()
	want := m.sorted()
	for j := 0; j < 5; j++ {
		sr := ScoreRange{Min: randScore(r), Max: randScore(r), MinEx: r.IntN(2) == 0, MaxEx: r.IntN(2) == 0}
		lo, hi := z.ScoreRange(&sr)
		wlo, whi := -1, -1
		for i, e := range want {
			if sr.GteMin(e.Score) && sr.LteMax(e.Score) {
				if wlo == -1 {
					wlo = i
				}
				whi = i + 1
			}
		}
		if wlo == -1 {
			wlo, whi = lo, lo
		}
		if lo != wlo || hi != whi {
			t.Fatalf("ScoreRange(%+v) = [%d, %d), want [%d, %d)", sr, lo, hi, wlo, whi)
		}
	}
}

func TestLexRange(t *testing.T) {
	for _, small := range []bool{true, false} {
		z := New(small)
		var members []string
		for i := 0; i < 500; i++ {
			s := fmt.Sprintf("%03d", i*7%1000)
			members = append(members, s)
			z.Add([]byte(s), 0, 0, 1<<30, 64)
		}
		slices.Sort(members)
		r := rand.New(rand.NewPCG(3, 4))
		bound := func() []byte {
			switch r.IntN(5) {
			case 0:
				return []byte("-")
			case 1:
				return []byte("+")
			case 2:
				return []byte(fmt.Sprintf("(%03d", r.IntN(1000)))
			}
			return []byte(fmt.Sprintf("[%03d", r.IntN(1000)))
		}
		for i := 0; i < 2000; i++ {
			lr, ok := ParseLexRange(bound(), bound())
			if !ok {
				t.Fatal("parse")
			}
			var want []string
			if !lr.Empty() {
				for _, m := range members {
					if lr.GteMin([]byte(m)) && lr.LteMax([]byte(m)) {
						want = append(want, m)
					}
				}
			}
			for _, rev := range []bool{false, true} {
				lo, hi := z.LexRange(&lr, rev)
				if hi-lo != len(want) || len(want) > 0 && members[lo] != want[0] {
					t.Fatalf("small=%v LexRange(%+v, %v) = [%d, %d), want %v", small, lr, rev, lo, hi, want)
				}
			}
		}
	}
}

func TestParseDouble(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"1", 1, true}, {"-1.5", -1.5, true}, {"+.5", 0.5, true}, {"5.", 5, true},
		{"1e3", 1000, true}, {"1E+3", 1000, true}, {"1e", 0, false}, {"e3", 0, false},
		{"inf", math.Inf(1), true}, {"+inf", math.Inf(1), true}, {"-inf", math.Inf(-1), true},
		{"INF", math.Inf(1), true}, {"Infinity", math.Inf(1), true}, {"-infinity", math.Inf(-1), true},
		{"infin", 0, false}, {"nan", 0, false}, {"-nan", 0, false}, {"nan(123)", 0, false},
		{"0x10", 16, true}, {"0X1p3", 8, true}, {"0x1.8p1", 3, true}, {"0x.8", 0.5, true},
		{"0x", 0, false}, {"0xg", 0, false}, {"0x1p", 0, false}, {"-0x10", -16, true},
		{"", 0, false}, {" 1", 0, false}, {"1 ", 0, false}, {"\t1", 0, false}, {"1\x00", 0, false},
		{"1e-400", 0, false}, {"0e-400", 0, true}, {"4e-320", 4e-320, true}, {"1e400", 0, false},
		{"0x1p-1080", 0, false}, {"0x1p2000", 0, false}, {"1.7976931348623157e308", math.MaxFloat64, true},
		{"-0", math.Copysign(0, -1), true}, {"00012", 12, true}, {"1_000", 0, false}, {"--1", 0, false},
		{"0.1", 0.1, true}, {"123456789012345678901234567890", 123456789012345678901234567890, true},
	} {
		got, ok := ParseDouble([]byte(tc.in))
		if ok != tc.ok || ok && (got != tc.want || math.Signbit(got) != math.Signbit(tc.want)) {
			t.Errorf("ParseDouble(%q) = %v %v, want %v %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParseScoreRange(t *testing.T) {
	for _, tc := range []struct {
		min, max string
		ok       bool
		want     ScoreRange
	}{
		{"1", "2", true, ScoreRange{Min: 1, Max: 2}},
		{"(1", "(2", true, ScoreRange{Min: 1, Max: 2, MinEx: true, MaxEx: true}},
		{"", "", true, ScoreRange{}},
		{"(", "+inf", true, ScoreRange{MinEx: true, Max: math.Inf(1)}},
		{" 1", "  2", true, ScoreRange{Min: 1, Max: 2}},
		{"1 ", "2", false, ScoreRange{}},
		{"1\x00junk", "0x10", true, ScoreRange{Min: 1, Max: 16}},
		{"nan", "1", false, ScoreRange{}},
		{"((1", "2", false, ScoreRange{}},
		{"[1", "2", false, ScoreRange{}},
		{"1e-400", "1e400", true, ScoreRange{Min: 0, Max: math.Inf(1)}},
		{" ", "1", false, ScoreRange{}},
	} {
		got, ok := ParseScoreRange([]byte(tc.min), []byte(tc.max))
		if ok != tc.ok || ok && got != tc.want {
			t.Errorf("ParseScoreRange(%q, %q) = %+v %v", tc.min, tc.max, got, ok)
		}
	}
}

func TestScanGuarantee(t *testing.T) {
	z := New(false)
	for i := 0; i < 1000; i++ {
		z.Add([]byte(fmt.Sprint("keep", i)), float64(i), 0, 0, 0)
	}
	seen := map[string]bool{}
	var cursor uint64
	for round := 0; ; round++ {
		cursor = z.Scan(cursor, 10, func(m []byte, _ float64) { seen[string(m)] = true })
		if cursor == 0 {
			break
		}
		// Grow and shrink the table under the iteration, rehashing.
		for i := 0; i < 50; i++ {
			m := []byte(fmt.Sprint("tmp", round, "-", i))
			if round%20 < 10 {
				z.Add(m, 1, 0, 0, 0)
			} else {
				z.Delete([]byte(fmt.Sprint("tmp", round-10, "-", i)))
			}
		}
	}
	for i := 0; i < 1000; i++ {
		if !seen[fmt.Sprint("keep", i)] {
			t.Fatalf("keep%d never returned", i)
		}
	}
}

func TestClone(t *testing.T) {
	for _, small := range []bool{true, false} {
		z := New(small)
		m := model{}
		for i := 0; i < 300; i++ {
			k := fmt.Sprint(i)
			z.Add([]byte(k), float64(i%13), 0, 1<<30, 64)
			m[k] = float64(i % 13)
		}
		c := z.Clone().(*ZSet)
		if c.Encoding() != z.Encoding() {
			t.Errorf("clone encoding %s, want %s", c.Encoding(), z.Encoding())
		}
		check(t, c, m)
		z.Delete([]byte("1"))
		check(t, c, m) // the clone is independent
	}
}

func TestNewFromSorted(t *testing.T) {
	for _, n := range []int{0, 1, 47, 48, 49, 1000, 100000} {
		elems := make([]Elem, n)
		m := model{}
		for i := range elems {
			elems[i] = Elem{fmt.Sprintf("%08d", i), float64(i / 3)}
			m[elems[i].Member] = elems[i].Score
		}
		for _, small := range []bool{true, false} {
			if small && n > 1000 {
				continue
			}
			z := NewFromSorted(elems, small)
			check(t, z, m)
		}
	}
}

// TestMemoryPerElement measures what a 1M-element sorted set costs, for
// the report: Redis 7.0 takes about 109 bytes per element for the same
// data (members "m:<i>", integer scores), measured with INFO memory.
func TestMemoryPerElement(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	const n = 1_000_000
	members := make([][]byte, n)
	for i := range members {
		members[i] = []byte(fmt.Sprintf("m:%d", i))
	}
	measure := func(name string, count int, build func() any) {
		before := heapInUse()
		x := build()
		after := heapInUse()
		est := int64(0)
		if z, ok := x.(*ZSet); ok {
			est = z.MemSize()
		}
		t.Logf("%s: %.1f bytes/element (MemSize estimate %.1f)", name,
			(float64(after)-float64(before))/float64(count), float64(est)/float64(count))
		runtimeKeepAlive(x)
	}
	measure("1M elements, sequential scores", n, func() any {
		z := New(false)
		for i, m := range members {
			z.Add(m, float64(i), 0, 0, 0)
		}
		return z
	})
	measure("1M elements, random order", n, func() any {
		z := New(false)
		for _, i := range rand.Perm(n) {
			z.Add(members[i], float64(i), 0, 0, 0)
		}
		return z
	})
	measure("1000 small sets of 128", 128000, func() any {
		sets := make([]*ZSet, 1000)
		for i := range sets {
			sets[i] = New(true)
			for j := 0; j < 128; j++ {
				sets[i].Add(members[j], float64(j), 0, 128, 64)
			}
		}
		return sets
	})
	runtimeKeepAlive(members)
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func runtimeKeepAlive(x any) { runtime.KeepAlive(x) }

func benchMembers(n int) [][]byte {
	ms := make([][]byte, n)
	for i := range ms {
		ms[i] = []byte(fmt.Sprintf("member:%d", i))
	}
	return ms
}

func filledSet(ms [][]byte) *ZSet {
	z := New(false)
	for i, m := range ms {
		z.Add(m, float64(i*7919%len(ms)), 0, 0, 0)
	}
	return z
}

func BenchmarkAddBig(b *testing.B) {
	ms := benchMembers(1 << 20)
	b.ReportAllocs()
	b.ResetTimer()
	z := New(false)
	for i := 0; i < b.N; i++ {
		j := i & (1<<20 - 1)
		if j == 0 && i > 0 {
			z = New(false)
		}
		z.Add(ms[j], float64(j*7919&(1<<20-1)), 0, 0, 0)
	}
}

func BenchmarkAddSmall(b *testing.B) {
	ms := benchMembers(128)
	b.ReportAllocs()
	b.ResetTimer()
	z := New(true)
	for i := 0; i < b.N; i++ {
		j := i & 127
		if j == 0 {
			z = New(true)
		}
		z.Add(ms[j], float64(j*37%128), 0, 128, 64)
	}
}

func BenchmarkUpdateScoreBig(b *testing.B) {
	ms := benchMembers(100000)
	z := filledSet(ms)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		z.Add(ms[i%len(ms)], float64(i), 0, 0, 0)
	}
}

func BenchmarkScoreBig(b *testing.B) {
	ms := benchMembers(100000)
	z := filledSet(ms)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		z.Score(ms[i%len(ms)])
	}
}

func BenchmarkScoreSmall(b *testing.B) {
	ms := benchMembers(128)
	z := New(true)
	for i, m := range ms {
		z.Add(m, float64(i), 0, 128, 64)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		z.Score(ms[i&127])
	}
}

func BenchmarkRankBig(b *testing.B) {
	ms := benchMembers(100000)
	z := filledSet(ms)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		z.Rank(ms[i%len(ms)])
	}
}

func BenchmarkRange10Big(b *testing.B) {
	ms := benchMembers(100000)
	z := filledSet(ms)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n := 0
		z.Walk(i%(len(ms)-10), false, func([]byte, float64) bool { n++; return n < 10 })
	}
}

func BenchmarkScoreRangeBig(b *testing.B) {
	ms := benchMembers(100000)
	z := filledSet(ms)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := ScoreRange{Min: float64(i % 100000), Max: float64(i%100000 + 50)}
		z.ScoreRange(&r)
	}
}

func BenchmarkAddDeleteBig(b *testing.B) {
	ms := benchMembers(100000)
	z := filledSet(ms)
	extra := benchMembers(1 << 16)
	b.ReportAllocs()
	b.ResetTimer()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m := extra[i&(1<<16-1)]
		z.Add(m, float64(i), 0, 0, 0)
		z.Delete(m)
	}
}

func BenchmarkPopMinBig(b *testing.B) {
	ms := benchMembers(1 << 18)
	z := filledSet(ms)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if z.Len() == 0 {
			b.StopTimer()
			z = filledSet(ms)
			b.StartTimer()
		}
		z.DeleteRange(0, 1)
	}
}
