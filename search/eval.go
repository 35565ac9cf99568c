package search

import (
	"math"
	"slices"
	"strings"
)

// result is the scoring record of one document under one query node, the
// shape RediSearch's TFIDF scorer walks: a term (weighted frequency, IDF,
// positions), an aggregate (intersection or union of its children's
// records), a virtual record (wildcard: a frequency of 1; negation: 0) or
// a numeric one (a frequency of 1). Tag values are terms without
// positions.
type result struct {
	kind resultKind
	freq uint32
	idf  float64
	pos  []uint32
	kids []*result
	mask resultKind // an aggregate's: its children's kinds, or-ed
}

// resultKind is RediSearch's RSResultType: bits, so that an aggregate's
// children's kinds can be or-ed.
type resultKind uint8

const (
	resUnion     resultKind = 1
	resIntersect resultKind = 2
	resTerm      resultKind = 4
	resVirtual   resultKind = 8
	resNumeric   resultKind = 16
)

func (r *result) isAgg() bool { return r.kind == resUnion || r.kind == resIntersect }

// hasOffsets is RediSearch's RSIndexResult_HasOffsets: a term with
// positions, or an aggregate not made only of virtual or only of numeric
// records (a union of tags counts, though its tags have no positions).
func (r *result) hasOffsets() bool {
	switch {
	case r.kind == resTerm:
		return len(r.pos) > 0
	case r.isAgg():
		return r.mask != resVirtual && r.mask != resNumeric
	}
	return false
}

// hit is a document a node matched and its record.
type hit struct {
	doc uint32
	r   *result
}

// evaluator evaluates query nodes over an index.
type evaluator struct {
	ix       *Index
	n        float64 // documents in the index
	verbatim bool
}

// idf is RediSearch's IDF: logb(1 + N/df), the binary exponent.
func (e *evaluator) idf(df int) float64 {
	if df == 0 {
		df = 1
	}
	return math.Logb(1 + e.n/float64(df))
}

// estimate is how many results RediSearch's iterator for n expects; an
// intersection orders its children by it (stably), which decides the
// pairs its slop is computed over.
func (e *evaluator) estimate(n *node) int {
	switch n.op {
	case opTerm:
		if n.expand && !e.verbatim {
			t := 0
			for _, w := range e.expansions(n.word) {
				t += len(e.ix.terms[w])
			}
			return t
		}
		return len(e.ix.terms[n.word])
	case opAnd, opPhrase:
		if len(n.kids) > 1 {
			return 0
		}
	case opOr:
		t := 0
		for _, k := range n.kids {
			t += e.estimate(k)
		}
		return t
	case opTag:
		if n.field != nil {
			return len(e.ix.tags[n.field.slot][n.word])
		}
		return 0
	}
	return int(e.ix.MaxDocID())
}

// expansions are the terms a word matches: itself, its stem marked as a
// stem, and the stem as a word when it differs.
func (e *evaluator) expansions(w string) []string {
	s := stem(w)
	out := []string{w, stemPrefix + s}
	if s != w {
		out = append(out, s)
	}
	return out
}

// eval returns the documents n matches, by ascending id, with their
// records.
func (e *evaluator) eval(n *node) []hit {
	if n == nil {
		return nil
	}
	switch n.op {
	case opTerm:
		if n.expand && !e.verbatim {
			var lists [][]hit
			for _, w := range e.expansions(n.word) {
				lists = append(lists, e.term(w, n.mask))
			}
			return union(lists, false)
		}
		return e.term(n.word, n.mask)
	case opPrefix:
		var words []string
		for w := range e.ix.terms {
			if strings.HasPrefix(w, n.word) && !strings.HasPrefix(w, stemPrefix) {
				words = append(words, w)
			}
		}
		slices.Sort(words)
		var lists [][]hit
		for _, w := range words {
			lists = append(lists, e.term(w, n.mask))
		}
		return union(lists, true)
	case opPhrase:
		var lists [][]hit
		for _, k := range n.kids {
			lists = append(lists, e.eval(k))
		}
		hits := intersect(lists)
		out := hits[:0]
		for _, h := range hits {
			if phraseMatches(h.r.kids) {
				out = append(out, h)
			}
		}
		return out
	case opAnd:
		kids := slices.Clone(n.kids)
		slices.SortStableFunc(kids, func(a, b *node) int { return e.estimate(a) - e.estimate(b) })
		var lists [][]hit
		for _, k := range kids {
			lists = append(lists, e.eval(k))
		}
		return intersect(lists)
	case opOr:
		var lists [][]hit
		for _, k := range n.kids {
			lists = append(lists, e.eval(k))
		}
		return union(lists, false)
	case opNot:
		return e.not(e.eval(n.kids[0]))
	case opWildcard:
		return e.all(1)
	case opNumeric:
		return e.numeric(n)
	case opTag:
		return e.tag(n.field, n.word)
	case opTagPrefix:
		var vals []string
		for v := range e.ix.tags[n.field.slot] {
			if strings.HasPrefix(v, n.word) {
				vals = append(vals, v)
			}
		}
		slices.Sort(vals)
		var lists [][]hit
		for _, v := range vals {
			lists = append(lists, e.tag(n.field, v))
		}
		return union(lists, true)
	}
	return nil
}

// term returns the postings of word whose fields intersect mask.
func (e *evaluator) term(word string, mask uint64) []hit {
	ps := e.ix.terms[word]
	if len(ps) == 0 {
		return nil
	}
	idf := e.idf(len(ps))
	out := make([]hit, 0, len(ps))
	for i := range ps {
		p := &ps[i]
		if p.mask&mask == 0 {
			continue
		}
		out = append(out, hit{p.doc, &result{kind: resTerm, freq: p.freq, idf: idf, pos: p.pos}})
	}
	return out
}

func (e *evaluator) tag(f *Field, v string) []hit {
	ids := e.ix.tags[f.slot][v]
	idf := e.idf(len(ids))
	out := make([]hit, len(ids))
	for i, id := range ids {
		out[i] = hit{id, &result{kind: resTerm, freq: 1, idf: idf}}
	}
	return out
}

// all returns every document with a virtual record of frequency freq.
func (e *evaluator) all(freq uint32) []hit {
	out := make([]hit, 0, len(e.ix.byID))
	for id := range e.ix.byID {
		out = append(out, hit{id, &result{kind: resVirtual, freq: freq}})
	}
	slices.SortFunc(out, func(a, b hit) int { return cmpU32(a.doc, b.doc) })
	return out
}

func (e *evaluator) not(excl []hit) []hit {
	all := e.all(0)
	out := all[:0]
	j := 0
	for _, h := range all {
		for j < len(excl) && excl[j].doc < h.doc {
			j++
		}
		if j < len(excl) && excl[j].doc == h.doc {
			continue
		}
		out = append(out, h)
	}
	return out
}

func (e *evaluator) numeric(n *node) []hit {
	var out []hit
	e.ix.nums[n.field.slot].Ascend(numEntry{n.min, 0}, func(x numEntry) bool {
		if x.v > n.max || n.maxEx && x.v == n.max {
			return false
		}
		if n.minEx && x.v == n.min {
			return true
		}
		out = append(out, hit{x.doc, &result{kind: resNumeric, freq: 1}})
		return true
	})
	slices.SortFunc(out, func(a, b hit) int { return cmpU32(a.doc, b.doc) })
	return out
}

// intersect returns the documents in every list, with an aggregate record
// of their records in list order. An empty list empties it.
func intersect(lists [][]hit) []hit {
	if len(lists) == 0 {
		return nil
	}
	for _, l := range lists {
		if len(l) == 0 {
			return nil
		}
	}
	idx := make([]int, len(lists))
	var out []hit
	for _, h := range lists[0] {
		kids := make([]*result, len(lists))
		kids[0] = h.r
		ok := true
		for i := 1; i < len(lists) && ok; i++ {
			l := lists[i]
			for idx[i] < len(l) && l[idx[i]].doc < h.doc {
				idx[i]++
			}
			if idx[i] == len(l) || l[idx[i]].doc != h.doc {
				ok = false
				break
			}
			kids[i] = l[idx[i]].r
		}
		if ok {
			out = append(out, hit{h.doc, aggregate(resIntersect, kids)})
		}
	}
	return out
}

// union returns the documents in any list, with an aggregate record of the
// records of the lists that have it (only the first such list's when
// quickExit, as RediSearch's prefix unions).
func union(lists [][]hit, quickExit bool) []hit {
	idx := make([]int, len(lists))
	var out []hit
	for {
		min := uint32(math.MaxUint32)
		found := false
		for i, l := range lists {
			if idx[i] < len(l) && (!found || l[idx[i]].doc < min) {
				min, found = l[idx[i]].doc, true
			}
		}
		if !found {
			return out
		}
		var kids []*result
		for i, l := range lists {
			if idx[i] < len(l) && l[idx[i]].doc == min {
				if !quickExit || len(kids) == 0 {
					kids = append(kids, l[idx[i]].r)
				}
				idx[i]++
			}
		}
		out = append(out, hit{min, aggregate(resUnion, kids)})
	}
}

func aggregate(kind resultKind, kids []*result) *result {
	r := &result{kind: kind, kids: kids}
	for _, k := range kids {
		r.mask |= k.kind
	}
	return r
}

// positions returns r's positions, ascending (an aggregate's merge its
// children's).
func (r *result) positions() []uint32 {
	if r.kind == resTerm {
		return r.pos
	}
	var out []uint32
	for _, k := range r.kids {
		out = append(out, k.positions()...)
	}
	slices.Sort(out)
	return out
}

// phraseMatches reports whether the terms' positions hold consecutive
// positions, in order.
func phraseMatches(kids []*result) bool {
	first := kids[0].positions()
	rest := make([][]uint32, len(kids)-1)
	for i := range rest {
		rest[i] = kids[i+1].positions()
	}
	for _, p := range first {
		ok := true
		for i, ps := range rest {
			if _, found := slices.BinarySearch(ps, p+uint32(i)+1); !found {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// tfidf is the raw TFIDF of a record (all query weights are 1).
func tfidf(r *result) float64 {
	switch {
	case r.kind == resTerm:
		return float64(r.freq) * r.idf
	case r.isAgg():
		s := 0.0
		for _, k := range r.kids {
			s += tfidf(k)
		}
		return s
	}
	return float64(r.freq)
}

// slop is RediSearch's "minimal offset delta" of an aggregate: over
// consecutive pairs of its children that have offsets, the square root
// (truncated) of the sum of the squares of each pair's smallest distance,
// as its two-cursor walk finds it; when that sum is 0, the number of
// children less one; 1 for anything else. Its arithmetic is RediSearch's
// 32-bit one: a child that "has offsets" but none (a union of tags) meets
// the end-of-offsets marker, 2^32-1, whose distance wraps.
func slop(r *result) float64 {
	if !r.isAgg() || len(r.kids) <= 1 {
		return 1
	}
	var dist int32
	var prev []uint32
	havePrev := false
	for _, k := range r.kids {
		if !k.hasOffsets() {
			continue
		}
		cur := k.positions()
		if havePrev {
			dist += pairDelta(prev, cur)
		}
		prev, havePrev = cur, true
	}
	if dist == 0 {
		return float64(len(r.kids) - 1)
	}
	return float64(int32(math.Sqrt(float64(dist))))
}

// endOfOffsets is RediSearch's RS_OFFSETVECTOR_EOF.
const endOfOffsets = math.MaxUint32

// pairDelta is the squared smallest distance RediSearch's walk over two
// position lists finds: it starts with the first positions' distance and,
// while that is over 1 and neither list is done, advances the lower one.
func pairDelta(a, b []uint32) int32 {
	at := func(l []uint32, i int) uint32 {
		if i < len(l) {
			return l[i]
		}
		return endOfOffsets
	}
	absdelta := func(x, y uint32) uint32 {
		if x > y {
			return x - y
		}
		return y - x
	}
	i, j := 0, 0
	p1, p2 := at(a, 0), at(b, 0)
	cd := int32(absdelta(p2, p1))
	for cd > 1 && p1 != endOfOffsets && p2 != endOfOffsets {
		cd = min(int32(absdelta(p2, p1)), cd)
		if p2 > p1 {
			i++
			p1 = at(a, i)
		} else {
			j++
			p2 = at(b, j)
		}
	}
	return cd * cd
}

// score is the TFIDF score of a document with record r.
func score(d *document, r *result) float64 {
	if d.score == 0 {
		return 0
	}
	s := d.score * tfidf(r) / float64(d.maxFreq)
	return s / slop(r)
}
