package search

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"slices"
)

// result is the scoring record of one document under one query node, the
// shape RediSearch's TFIDF scorer walks: a term (weighted frequency, IDF,
// positions), an aggregate (intersection or union of its children's
// records), a virtual record (wildcard: a frequency of 1; negation: 0) or
// a numeric one (a frequency of 1). Tag values are terms without
// positions.
type result struct {
	doc  uint32
	kind resultKind
	freq uint32
	idf  float64
	// bidf is a term's IDF as BM25STD weighs it; term the word or tag
	// value read (EXPLAINSCORE's BM25STD lines name it).
	bidf float64
	term string
	pos  []uint32 // a term's positions (see termPos)
	kids []*result
	mask resultKind // an aggregate's: its children's kinds, or-ed
	// weight, when weighted, multiplies the record's TFIDF (a query
	// node's $weight); else it counts 1.
	weight   float64
	weighted bool

	// A term's positions not yet decoded into pos: enc[encAt:encEnd]
	// (enc is its block of postings, set as the reader enters one, so
	// that moving writes no pointer).
	enc           []byte
	encAt, encEnd int32
}

// w is r's weight.
func (r *result) w() float64 {
	if r.weighted {
		return r.weight
	}
	return 1
}

// resultKind is the kind of a record: bits, so that an aggregate's
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

// hasOffsets reports whether a record takes part in the proximity checks
// (proximity.go): a term with positions, or an aggregate not made only
// of virtual records. A union of tags or of numeric records takes part
// though it has no positions, which RediSearch's SLOP matches and slop
// scores show.
func (r *result) hasOffsets() bool {
	switch {
	case r.kind == resTerm:
		return r.encEnd > r.encAt || len(r.pos) > 0
	case r.isAgg():
		return r.mask != resVirtual
	}
	return false
}

// evaluator evaluates query nodes over an index.
type evaluator struct {
	ix       *Index
	n        float64 // the N of IDF (Index.docTableSize)
	verbatim bool
	lang     *language // the query's language
	// slop and inOrder are SLOP (-1: none) and INORDER.
	slop    int
	inOrder bool
	// yields are the distances vector ranges yield, by name and
	// document id ($YIELD_DISTANCE_AS).
	yields map[string]map[uint32]float64
	// profiling (FT.PROFILE) keeps what a profile shows of the
	// iterators: an intersection's children past one that matches
	// nothing.
	profiling bool
	// bm25std says that the query scores with BM25STD, whose IDF (a
	// correctly rounded logarithm, many times the cost of idf's) its
	// term records then carry.
	bm25std bool
}

// idf is TFIDF's IDF: logb(1 + N/df), the binary exponent (the IDF
// RediSearch's TFIDF scores show).
func (e *evaluator) idf(df int) float64 {
	if df == 0 {
		df = 1
	}
	return math.Logb(1 + e.n/float64(df))
}

// bm25IDF is BM25STD's IDF, log(1 + (N - df + 0.5) / (df + 0.5)) over
// the number of documents, rounded as 32-bit floats at each step (which
// RediSearch's BM25STD scores show).
func (e *evaluator) bm25IDF(df int) float64 {
	x := float32(1) + (float32(len(e.ix.docs)-df)+0.5)/(float32(df)+0.5)
	return roundedLog(float64(x))
}

// roundedLog is the natural logarithm of x > 0 correctly rounded, which
// glibc's log (RediSearch's) almost always is: Go's math.Log was an ulp
// away from glibc's for 4.5% of 44,000 arguments tried, this for 0.05%
// (glibc's own misroundings near halfway cases). It sums
// ln(x) = e ln 2 + 2 atanh((m-1)/(m+1)), x = m 2^e with m in [sqrt(1/2),
// sqrt(2)), in 128-bit floats.
func roundedLog(x float64) float64 {
	if !(x > 0) || math.IsInf(x, 1) {
		return math.Log(x)
	}
	const prec = 128
	frac, exp := math.Frexp(x) // x = frac 2^exp, frac in [1/2, 1)
	if frac < math.Sqrt2/2 {
		frac *= 2
		exp--
	}
	atanh2 := func(z *big.Float) *big.Float { // 2 atanh(z), |z| small
		sum := new(big.Float).SetPrec(prec).Set(z)
		z2 := new(big.Float).SetPrec(prec).Mul(z, z)
		term := new(big.Float).SetPrec(prec).Set(z)
		for k := int64(3); k < 200; k += 2 {
			term.Mul(term, z2)
			t := new(big.Float).SetPrec(prec).Quo(term, new(big.Float).SetPrec(prec).SetInt64(k))
			if t.Sign() == 0 || t.MantExp(nil)-sum.MantExp(nil) < -prec {
				break
			}
			sum.Add(sum, t)
		}
		return sum.Mul(sum, new(big.Float).SetPrec(prec).SetInt64(2))
	}
	ratio := func(m *big.Float) *big.Float { // (m-1)/(m+1)
		one := new(big.Float).SetPrec(prec).SetInt64(1)
		num := new(big.Float).SetPrec(prec).Sub(m, one)
		den := new(big.Float).SetPrec(prec).Add(m, one)
		return num.Quo(num, den)
	}
	lnm := atanh2(ratio(new(big.Float).SetPrec(prec).SetFloat64(frac)))
	if exp != 0 {
		ln2 := atanh2(ratio(new(big.Float).SetPrec(prec).SetInt64(2)))
		lnm.Add(lnm, ln2.Mul(ln2, new(big.Float).SetPrec(prec).SetInt64(int64(exp))))
	}
	f, _ := lnm.Float64()
	return f
}

// expansions are the terms a term node matches: its word, the word's
// synonym groups' ids, its phonetic code (when the node takes it), its
// stem marked as a stem, and the stem as a word when it differs.
func (e *evaluator) expansions(n *node) []string {
	return expansions(e.ix, e.lang, n, "")
}

// expansions are the terms n's word expands to, each followed by suffix
// but the word, in RediSearch's order.
func expansions(ix *Index, lang *language, n *node, suffix string) []string {
	if lang == nil {
		lang = ix.Schema.lang()
	}
	w := n.word
	out := []string{w}
	for _, g := range ix.synExpand(w) {
		out = append(out, g+suffix)
	}
	if ix.Schema.phoneticExpands(n) {
		if p := phoneticTerm(w); p != "" {
			out = append(out, p+suffix)
		}
	}
	s := stem(lang, w)
	out = append(out, stemPrefix+s+suffix)
	if s != w {
		out = append(out, s+suffix)
	}
	return out
}

// build returns the iterator of n, or nil when n matches nothing (a term
// not in the index, which a union drops and which empties an
// intersection).
func (e *evaluator) build(n *node) iterator {
	it := e.buildNode(n)
	if it != nil && n != nil && n.weighted {
		return &weightedIter{iterator: it, w: n.weight}
	}
	return it
}

// buildNode is build without n's weight.
func (e *evaluator) buildNode(n *node) iterator {
	if n == nil {
		return nil
	}
	switch n.op {
	case opTerm:
		if n.expand && !e.verbatim {
			var kids []iterator
			for _, w := range e.expansions(n) {
				if it := e.term(w, n.mask); it != nil {
					kids = append(kids, it)
				}
			}
			return e.unionOf(kids, false)
		}
		return e.term(n.word, n.mask)
	case opPrefix:
		var kids []iterator
		for _, w := range e.prefixTerms(n.word) {
			if it := e.term(w, n.mask); it != nil {
				kids = append(kids, it)
			}
		}
		if len(kids) == 0 {
			return nil
		}
		u := newUnion(kids, true)
		u.profType = "PREFIX - " + n.word
		return u
	case opPhrase, opAnd:
		if len(n.kids) == 1 {
			return e.build(n.kids[0])
		}
		var kids []iterator
		for _, k := range n.kids {
			it := e.build(k)
			if it == nil {
				// RediSearch still makes the intersection, which
				// ends at once: a union keeps it as a child.
				dead := &intersectIter{eof: true, dead: true}
				if e.profiling {
					all := make([]iterator, 0, len(n.kids))
					for _, k := range n.kids {
						all = append(all, e.build(k))
					}
					dead.profKids = deadIntersectKids(all)
				}
				return dead
			}
			kids = append(kids, it)
		}
		// An exact phrase is within a slop of 0, in order; other
		// intersections have the query's SLOP and INORDER (INORDER
		// alone: any slop). Without positions (NOOFFSETS) no child has
		// offsets to check.
		// A node's $slop and $inorder override the query's.
		switch {
		case n.op == opPhrase && n.slopSet:
			return newIntersect(kids, n.slop, true) // in order still, as RediSearch's phrases
		case n.op == opPhrase:
			return newIntersect(kids, 0, true)
		}
		slop, inOrder := e.slop, e.inOrder
		if n.slopSet {
			slop, inOrder = n.slop, n.inOrder
		}
		if inOrder && slop == -1 {
			slop = math.MaxInt32
		}
		return newIntersect(kids, slop, inOrder)
	case opFuzzy:
		var kids []iterator
		for _, w := range e.fuzzyTerms(n.word, n.fuzzy) {
			if it := e.term(w, n.mask); it != nil {
				kids = append(kids, it)
			}
		}
		if len(kids) == 0 {
			return nil
		}
		return newUnion(kids, true)
	case opOptional:
		child := e.build(n.kids[0])
		if child == nil {
			child = &emptyIter{}
		}
		it := &optionalIter{child: child, max: e.ix.MaxDocID(), childID: 0}
		it.virt.kind = resVirtual
		return it
	case opOr:
		var kids []iterator
		for _, k := range n.kids {
			if it := e.build(k); it != nil {
				kids = append(kids, it)
			}
		}
		if n.tagSet && len(kids) > 0 {
			u := newUnion(kids, false)
			u.profType = "TAG"
			return u
		}
		return e.unionOf(kids, false)
	case opNot:
		child := e.build(n.kids[0])
		if child == nil {
			child = &emptyIter{}
		}
		it := &notIter{child: child, max: e.ix.MaxDocID()}
		it.rec.kind = resVirtual
		return it
	case opWildcard:
		it := &wildcardIter{top: e.ix.MaxDocID(), n: len(e.ix.docs)}
		it.rec.kind, it.rec.freq = resVirtual, 1
		return it
	case opNumeric:
		var ids []uint32
		e.ix.nums[n.field.slot].Ascend(numEntry{n.min, 0}, func(x numEntry) bool {
			if x.v > n.max || n.maxEx && x.v == n.max {
				return false
			}
			if !(n.minEx && x.v == n.min) {
				ids = append(ids, x.doc)
			}
			return true
		})
		if len(ids) == 0 {
			return nil
		}
		slices.Sort(ids)
		it := &listIter{ids: ids, count: len(ids)}
		it.rec.kind, it.rec.freq = resNumeric, 1
		if e.profiling {
			it.profType = "NUMERIC"
			it.profTerm, it.profSize = e.ix.numericLabel(n.field)
		}
		return it
	case opVecRange:
		hits := e.ix.vecs[n.field.slot].within([]byte(n.blob), n.min)
		if len(hits) == 0 {
			return nil
		}
		ids := make([]uint32, len(hits))
		for i, h := range hits {
			ids[i] = h.id
		}
		if n.word != "" {
			if e.yields == nil {
				e.yields = map[string]map[uint32]float64{}
			}
			m := map[uint32]float64{}
			for _, h := range hits {
				m[h.id] = h.dist
			}
			e.yields[n.word] = m
		}
		it := &listIter{ids: ids, count: len(ids)}
		it.rec.kind = resVirtual
		return it
	case opIDs:
		if len(n.ids) == 0 {
			return nil
		}
		it := &listIter{ids: n.ids, count: len(n.ids), profType: "ID-LIST"}
		it.rec.kind = resVirtual
		return it
	case opGeo:
		return e.geoIter(n.field, n.geo)
	case opMissing:
		ids := e.ix.missing[n.field.Alias]
		if len(ids) == 0 {
			return nil
		}
		// RediSearch reads its missing-documents index as virtual
		// records that weigh nothing.
		it := &listIter{ids: ids, count: len(ids)}
		it.rec.kind = resVirtual
		return it
	case opEmpty:
		return e.term("", n.mask)
	case opSuffix:
		var kids []iterator
		for _, w := range e.suffixTerms(n.word, n.contains) {
			if it := e.term(w, n.mask); it != nil {
				kids = append(kids, it)
			}
		}
		if len(kids) == 0 {
			return nil
		}
		return newUnion(kids, true)
	case opTagSuffix:
		var kids []iterator
		for _, v := range e.tagSuffixValues(n.field, n.word, n.contains) {
			if it := e.tag(n.field, v); it != nil {
				kids = append(kids, it)
			}
		}
		if len(kids) == 0 {
			return nil
		}
		return newUnion(kids, true)
	case opTag:
		return e.tag(n.field, n.word)
	case opTagPrefix:
		var kids []iterator
		for _, v := range withPrefix(e.ix.tagSets[n.field.slot], n.word, false, e.ix.Config.MaxExpansions()) {
			if it := e.tag(n.field, v); it != nil {
				kids = append(kids, it)
			}
		}
		if len(kids) == 0 {
			return nil
		}
		return newUnion(kids, true)
	}
	return nil
}

// unionOf is a union of kids, the only one itself, nil for none.
func (e *evaluator) unionOf(kids []iterator, quickExit bool) iterator {
	switch len(kids) {
	case 0:
		return nil
	case 1:
		return kids[0]
	}
	u := newUnion(kids, quickExit)
	u.profType = "UNION"
	return u
}

// prefixTerms returns the words (not stems) that start with prefix, in
// the order RediSearch's term trie walks them (bytewise: a word before
// the longer words it begins), at most MAXEXPANSIONS of them.
func (e *evaluator) prefixTerms(prefix string) []string {
	return withPrefix(e.ix.termSet, prefix, true, e.ix.Config.MaxExpansions())
}

// term returns a reader of word's postings whose fields intersect mask.
func (e *evaluator) term(word string, mask fieldMask) iterator {
	tl := e.ix.terms[word]
	if tl == nil || tl.n == 0 {
		return nil
	}
	it := &listIter{term: newPostCursor(tl), mask: mask, count: tl.n, profType: "TEXT", profTerm: word, profSize: tl.n}
	it.rec.kind, it.rec.idf, it.rec.term = resTerm, e.idf(tl.n), word
	if e.bm25std {
		it.rec.bidf = e.bm25IDF(tl.n)
	}
	return it
}

// tag returns a reader of the documents with tag value v of field f.
func (e *evaluator) tag(f *Field, v string) iterator {
	ids := e.ix.tags[f.slot][v]
	if len(ids) == 0 {
		return nil
	}
	it := &listIter{ids: ids, count: len(ids), profType: "TAG", profTerm: v, profSize: len(ids)}
	it.rec.kind, it.rec.freq, it.rec.idf, it.rec.term = resTerm, 1, e.idf(len(ids)), v
	if e.bm25std {
		it.rec.bidf = e.bm25IDF(len(ids))
	}
	return it
}

// positions returns r's positions, ascending (an aggregate's merge its
// children's).
func (r *result) positions() []uint32 {
	if r.kind == resTerm {
		return r.termPos()
	}
	var out []uint32
	for _, k := range r.kids {
		out = append(out, k.positions()...)
	}
	slices.Sort(out)
	return out
}

// termPos returns a term record's positions, decoded on first use (most
// queries never look at them).
func (r *result) termPos() []uint32 {
	if r.encEnd > r.encAt {
		pos := decodePositions(r.pos[:0], r.enc[r.encAt:r.encEnd])
		if cap(pos) == cap(r.pos) {
			r.pos = r.pos[:len(pos)] // (no pointer written)
		} else {
			r.pos = pos
		}
		r.encAt = r.encEnd
	}
	return r.pos
}

// tfidf is the raw TFIDF of a record (all query weights are 1).
func tfidf(r *result) float64 {
	switch {
	case r.kind == resTerm:
		return r.w() * float64(r.freq) * r.idf
	case r.isAgg():
		s := 0.0
		for _, k := range r.kids {
			s += tfidf(k)
		}
		return s * r.w()
	}
	return r.w() * float64(r.freq)
}

// score is the TFIDF score of a document with record r.
func score(d *document, r *result) float64 {
	return scoreMeta(docMeta{d.score, d.maxFreq}, r)
}

// scoreMeta is score from the document table's view of the document.
func scoreMeta(m docMeta, r *result) float64 {
	if m.score == 0 {
		return 0
	}
	s := m.score * tfidf(r) / float64(m.maxFreq)
	if s < 0 { // RediSearch's "below the minimum score" (a negative SCORE_FIELD)
		return 0
	}
	return s / slop(r)
}

// Scorers are the names SCORER takes, as RediSearch 2.10 registers them.
var scorers = []string{"TFIDF", "TFIDF.DOCNORM", "BM25", "BM25STD", "DISMAX", "DOCSCORE", "HAMMING"}

// scoring is what scorers read besides a document and its record.
type scoring struct {
	avgLen  float64                // the index's average document length (BM25, BM25STD)
	query   []byte                 // PAYLOAD (HAMMING)
	payload func(id uint32) []byte // a document's payload (HAMMING)
}

// scorer returns the scoring function of a SCORER name (nil for TFIDF).
func scorer(name string, sc scoring) func(d *document, r *result) float64 {
	avgLen := sc.avgLen
	switch name {
	case "TFIDF.DOCNORM":
		return func(d *document, r *result) float64 {
			if d.score == 0 {
				return 0
			}
			s := d.score * tfidf(r) / float64(d.length)
			if s < 0 { // below the minimum score, as TFIDF's
				return 0
			}
			return s / slop(r)
		}
	case "BM25":
		return func(d *document, r *result) float64 {
			s := d.score * bm25(r, avgLen)
			if s < 0 { // below the minimum score, as TFIDF's
				return 0
			}
			return s / slop(r)
		}
	case "BM25STD":
		return func(d *document, r *result) float64 { return d.score * bm25std(r, d.length, avgLen) }
	case "DISMAX":
		return func(_ *document, r *result) float64 { return dismax(r) }
	case "DOCSCORE":
		return func(d *document, _ *result) float64 { return d.score }
	case "HAMMING":
		return func(d *document, _ *result) float64 {
			s, _ := hamming(sc.query, sc.payload(d.id))
			return s
		}
	}
	return nil
}

// bm25 is the BM25 scorer's (pre-BM25STD) score of a record: its
// constants are 32-bit floats, and it weighs by the index's average
// document length, not the document's (as RediSearch's BM25 scores are).
func bm25(r *result, avgLen float64) float64 {
	const b = float64(float32(0.5))
	k1 := float64(float32(1.2))
	f := float64(r.freq)
	switch {
	case r.kind == resTerm:
		return r.idf * f / (f + k1*(1.0-b+b*avgLen))
	case r.isAgg():
		s := 0.0
		for _, k := range r.kids {
			s += bm25(k, avgLen)
		}
		return s
	case f != 0:
		return f / (f + k1*(1.0-b+b*avgLen))
	}
	return 0
}

// hamming is the HAMMING scorer and its explanation: 1 over 1
// plus the number of bits that differ between the query's PAYLOAD and the
// document's payload, 0 unless both are as long and not empty.
func hamming(query, doc []byte) (float64, *ScoreExplain) {
	if len(doc) == 0 || len(doc) != len(query) {
		return 0, &ScoreExplain{Text: "Payloads provided to scorer vary in length"}
	}
	n := 0
	for i := range doc {
		n += bits.OnesCount8(doc[i] ^ query[i])
	}
	s := 1 / float64(n+1)
	return s, &ScoreExplain{Text: fmt.Sprintf("String length is %d. Bit count is %d. Result is (1 / count + 1) = %.2f", len(doc), n, s)}
}

// bm25stdB and bm25stdK1 are BM25STD's b and k1, C floats in RediSearch.
const bm25stdB, bm25stdK1 = float32(0.5), float32(1.2)

// bm25stdTerm is Okapi BM25 of a term of frequency f and IDF idf in a
// document of docLen tokens, with b and k1 as 32-bit floats and the
// steps rounded as RediSearch's BM25STD scores show.
func bm25stdTerm(idf, f float64, docLen uint32, avgLen float64) float64 {
	b, k1 := bm25stdB, bm25stdK1
	return idf * f * float64(k1+1) / (f + float64(k1)*(float64(1-b)+float64(b*float32(docLen))/avgLen))
}

// bm25std is the BM25STD score of a record (without the document's
// score): a term's Okapi BM25, an aggregate's children's summed and
// weighted, a virtual record's (wildcard) as a term of IDF and frequency 1;
// anything else (negation, numeric, an optional operand that did not
// match) 0.
func bm25std(r *result, docLen uint32, avgLen float64) float64 {
	switch {
	case r.kind == resTerm:
		return bm25stdTerm(r.bidf, float64(r.freq), docLen, avgLen)
	case r.isAgg():
		s := 0.0
		for _, k := range r.kids {
			s += bm25std(k, docLen, avgLen)
		}
		return s * r.w()
	case r.kind == resVirtual && r.freq != 0 && r.w() != 0:
		return r.w() * bm25stdTerm(1, 1, docLen, avgLen)
	}
	return 0
}

// dismax is the DISMAX score: a term's (or virtual record's)
// frequency, the sum over an intersection, the maximum over a union.
func dismax(r *result) float64 {
	switch r.kind {
	case resIntersect:
		s := 0.0
		for _, k := range r.kids {
			s += dismax(k)
		}
		return s
	case resUnion:
		s := 0.0
		for _, k := range r.kids {
			s = max(s, dismax(k))
		}
		return s
	}
	return float64(r.freq)
}
