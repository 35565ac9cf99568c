package search

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestPutDeleteLikeFresh writes, rewrites and deletes random documents,
// then compares everything the index holds (postings, tag, numeric, GEO,
// VECTOR and missing lists, counters, search results) with an index given
// only the documents left, in the same order.
func TestPutDeleteLikeFresh(t *testing.T) {
	const create = "SCHEMA t TEXT INDEXMISSING u TEXT WEIGHT 2 g TAG INDEXMISSING h TAG SORTABLE n NUMERIC m NUMERIC INDEXMISSING loc GEO v VECTOR FLAT 6 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2"
	newIx := func() *Index {
		s, err := ParseCreate(splitArgs(create))
		if err != nil {
			t.Fatal(err)
		}
		return NewIndex("x", s)
	}
	r := rand.New(rand.NewPCG(5, 6))
	word := func() string { return fmt.Sprintf("w%d", int(r.ExpFloat64()*8)) }
	text := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = word()
		}
		return strings.Join(w, " ")
	}
	randDoc := func() map[string]string {
		d := map[string]string{}
		if r.IntN(4) > 0 {
			d["t"] = text(1 + r.IntN(200)) // long enough for several blocks of a word
		}
		if r.IntN(2) > 0 {
			d["u"] = text(1 + r.IntN(5))
		}
		if r.IntN(3) > 0 {
			d["g"] = fmt.Sprintf("a%d,b%d", r.IntN(4), r.IntN(3))
		}
		if r.IntN(3) > 0 {
			d["h"] = fmt.Sprintf("a%d", r.IntN(4)) // values shared with g
		}
		if r.IntN(3) > 0 {
			d["n"] = fmt.Sprint(r.IntN(50))
		}
		if r.IntN(3) > 0 {
			d["m"] = fmt.Sprint(r.IntN(50))
		}
		if r.IntN(3) > 0 {
			d["loc"] = fmt.Sprintf("%d,%d", r.IntN(10), r.IntN(10))
		}
		if r.IntN(3) > 0 {
			d["v"] = string(blob32([]float32{r.Float32(), r.Float32()}))
		}
		return d
	}
	put := func(ix *Index, key string, d map[string]string) {
		ix.Put(key, func(f string) ([]byte, bool) { v, ok := d[f]; return []byte(v), ok })
	}
	ix := newIx()
	docs := map[string]map[string]string{}
	for range 3000 {
		key := fmt.Sprintf("k%d", r.IntN(400))
		if r.IntN(4) == 0 {
			ix.Delete(key)
			delete(docs, key)
			continue
		}
		d := randDoc()
		put(ix, key, d)
		docs[key] = d
	}
	fresh := newIx()
	for _, key := range ix.Keys() {
		put(fresh, key, docs[key])
	}
	if got, want := dumpIndex(ix), dumpIndex(fresh); got != want {
		a, b := strings.Split(got, "\n"), strings.Split(want, "\n")
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				t.Fatalf("after writes: line %d\n%s\nfresh:\n%s", i, a[i], b[i])
			}
		}
		t.Fatalf("after writes: %d lines, fresh %d", len(a), len(b))
	}
	for _, q := range []string{"w0", "w1 w2", "w1 -w3", `"w0 w1"`, "w1*", "@g:{a1}", "@h:{a1}", "@n:[10 20]", "ismissing(@m)", "@loc:[5 5 300 km]", "*"} {
		req := &Request{Query: q, Num: 1000, Dialect: 2, Slop: -1}
		n1, h1, err1 := ix.Search(req, nil)
		n2, h2, err2 := fresh.Search(req, nil)
		if n1 != n2 || err1 != err2 || !slices.EqualFunc(h1, h2, func(a, b Hit) bool { return a.Key == b.Key && math.Float64bits(a.Score) == math.Float64bits(b.Score) }) {
			t.Errorf("%s: %d %v %v, fresh %d %v %v", q, n1, h1, err1, n2, h2, err2)
		}
	}
}

// dumpIndex writes what ix holds, documents named by key.
func dumpIndex(ix *Index) string {
	var b strings.Builder
	key := func(id uint32) string {
		if d := ix.byID.get(id); d != nil {
			return d.key
		}
		return fmt.Sprintf("#%d(dead)", id)
	}
	fmt.Fprintf(&b, "docs %d terms %d records %d tagRecs %d length %d\n", ix.NumDocs(), ix.NumTerms(), ix.NumRecords(), ix.tagRecs, ix.totalLength)
	live := 0
	for _, tl := range ix.termByID {
		if tl != nil {
			live++
			if ix.terms[tl.word] != tl {
				fmt.Fprintf(&b, "term %q: not by its id\n", tl.word)
			}
		}
	}
	fmt.Fprintf(&b, "term ids %d\n", live)
	for _, w := range slices.Sorted(func(yield func(string) bool) {
		for w := range ix.terms {
			if !yield(w) {
				return
			}
		}
	}) {
		tl := ix.terms[w]
		fmt.Fprintf(&b, "term %q n %d:", w, tl.n)
		c := newPostCursor(tl)
		for c.next() {
			fmt.Fprintf(&b, " %s/%d/%x/%v", key(c.doc), c.freq, c.mask, decodePositions(nil, c.data[c.pos:c.posEnd]))
		}
		b.WriteString("\n")
	}
	for slot, m := range ix.tags {
		for _, v := range slices.Sorted(func(yield func(string) bool) {
			for v := range m {
				if !yield(v) {
					return
				}
			}
		}) {
			fmt.Fprintf(&b, "tag %d %q:", slot, v)
			for _, id := range m[v] {
				fmt.Fprintf(&b, " %s", key(id))
			}
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "tag set %d: %d\n", slot, ix.tagSets[slot].Len())
	}
	for _, name := range []string{"t", "g", "m"} {
		fmt.Fprintf(&b, "missing %s:", name)
		for _, id := range ix.missing[name] {
			fmt.Fprintf(&b, " %s", key(id))
		}
		b.WriteString("\n")
	}
	for slot, tr := range ix.nums {
		fmt.Fprintf(&b, "num %d:", slot)
		tr.Scan(func(e numEntry) bool { fmt.Fprintf(&b, " %s=%g", key(e.doc), e.v); return true })
		b.WriteString("\n")
	}
	for slot, g := range ix.geos {
		fmt.Fprintf(&b, "geo %d:", slot)
		for _, id := range g.ids {
			fmt.Fprintf(&b, " %s=%g", key(id), g.vals[id])
		}
		fmt.Fprintf(&b, " (%d)\n", len(g.vals))
	}
	for slot, v := range ix.vecs {
		fmt.Fprintf(&b, "vec %d:", slot)
		var keys []string
		for _, h := range v.within(blob32([]float32{0, 0}), math.MaxFloat32) {
			keys = append(keys, key(h.id))
		}
		slices.Sort(keys)
		fmt.Fprintf(&b, " %v\n", keys)
	}
	return b.String()
}
