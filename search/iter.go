package search

import (
	"container/heap"
	"math"
)

// RediSearch evaluates a query with a tree of iterators that step through
// document ids, and its scores depend on how they step: a union inside an
// intersection that was moved past a document and is then found standing
// on the intersection's next candidate holds only the one child it
// stopped on, not every child that has that document. This file models
// those iterators' stepping rules — term, tag and numeric readers,
// unions (with quick exit for prefixes), intersections (children ordered
// by their estimated counts), negations, the wildcard and id lists — so
// that the records the scorer walks are RediSearch's. Each iterator owns
// one record, changed in place as it moves, and aggregates point at their
// children's records, as RediSearch's do.

// readRC is an iterator step's outcome.
type readRC uint8

const (
	rcOK       readRC = iota // at the document asked for (or the next one, for a read)
	rcNotFound               // moved past the document asked for
	rcEOF                    // no more documents
)

// iterator is one node of the evaluation tree.
type iterator interface {
	// read moves to the next document and returns its record.
	read() (readRC, *result)
	// skipTo moves to the first document at or after id. On rcNotFound
	// the record returned is where it stopped.
	skipTo(id uint32) (readRC, *result)
	// current is the iterator's record (where it stands).
	current() *result
	// lastID is the last document it read.
	lastID() uint32
	// atEnd reports that it has no more documents.
	atEnd() bool
	// est is its estimated number of documents (FT.PROFILE and the
	// order of an intersection's children show it).
	est() int
	// state gives the bookkeeping a union keeps per child.
	state() *iterState
}

type iterState struct {
	minID uint32 // the document it stands on, kept by a parent union
}

// listIter reads a sorted list of entries: a term's or a tag value's
// postings, a numeric filter's documents, an id list (INKEYS).
type listIter struct {
	st    iterState
	ids   []uint32
	term  postCursor       // a term's postings, decoded as read (instead of ids; tl set)
	blk   int              // the block of the term's record's enc, plus 1
	mask  fieldMask        // a term's fields read (allFields: any)
	keep  func(i int) bool // the entries kept (nil: all)
	n     int              // the next entry
	last  uint32
	eof   bool
	rec   result
	count int
	// profType, profTerm and profSize are what FT.PROFILE shows of it
	// (RediSearch's reader type, term and size; "" for none).
	profType, profTerm string
	profSize           int
}

func (it *listIter) state() *iterState { return &it.st }
func (it *listIter) current() *result  { return &it.rec }
func (it *listIter) lastID() uint32    { return it.last }
func (it *listIter) atEnd() bool       { return it.eof }
func (it *listIter) est() int          { return it.count }

// size is the number of entries; id the document of entry i.
func (it *listIter) size() int       { return len(it.ids) }
func (it *listIter) id(i int) uint32 { return it.ids[i] }

// fillTerm sets the record of a term's reader from the entry its cursor
// read.
func (it *listIter) fillTerm() {
	c := &it.term
	it.rec.freq = c.freq
	it.rec.pos = it.rec.pos[:0]
	if it.blk != c.bi+1 {
		it.rec.enc, it.blk = c.data, c.bi+1
	}
	it.rec.encAt, it.rec.encEnd = int32(c.pos), int32(c.posEnd)
}

func (it *listIter) read() (readRC, *result) {
	if c := &it.term; c.tl != nil {
		for c.next() {
			// As below: the entry is the last read, its mask or not.
			it.rec.doc, it.last = c.doc, c.doc
			if !c.mask.meets(it.mask) {
				continue
			}
			it.fillTerm()
			return rcOK, &it.rec
		}
		it.eof = true
		return rcEOF, nil
	}
	for it.n < it.size() {
		i := it.n
		it.n++
		// An entry counts as the last read before its field mask
		// filters it out: a negation above sees it (RediSearch's
		// negations of field-restricted terms match so).
		it.rec.doc = it.id(i)
		it.last = it.id(i)
		if it.keep != nil && !it.keep(i) {
			continue
		}
		return rcOK, &it.rec
	}
	it.eof = true
	return rcEOF, nil
}

func (it *listIter) skipTo(id uint32) (readRC, *result) {
	if it.eof {
		return rcEOF, nil
	}
	if c := &it.term; c.tl != nil {
		// A term's reader skips whole blocks first; running off the end, it reports the end
		// without marking the reader done, and leaves the last entry
		// it decoded — even one of another field — as its last read.
		if id > c.end {
			it.eof = true
			return rcEOF, nil
		}
		ok := c.skipTo(id)
		for ; ok; ok = c.next() {
			it.rec.doc, it.last = c.doc, c.doc
			if !c.mask.meets(it.mask) {
				continue
			}
			it.fillTerm()
			if c.doc == id {
				return rcOK, &it.rec
			}
			return rcNotFound, &it.rec
		}
		return rcEOF, nil // not marked done
	}
	for {
		rc, r := it.read()
		if rc == rcEOF {
			return rcEOF, nil
		}
		if r.doc < id {
			continue
		}
		if r.doc == id {
			return rcOK, r
		}
		return rcNotFound, r
	}
}

// emptyIter is a term that is not in the index.
type emptyIter struct {
	st iterState
}

func (it *emptyIter) state() *iterState               { return &it.st }
func (it *emptyIter) current() *result                { return nil }
func (it *emptyIter) lastID() uint32                  { return 0 }
func (it *emptyIter) atEnd() bool                     { return true }
func (it *emptyIter) est() int                        { return 0 }
func (it *emptyIter) read() (readRC, *result)         { return rcEOF, nil }
func (it *emptyIter) skipTo(uint32) (readRC, *result) { return rcEOF, nil }

// wildcardIter reads every id up to the index's last (a deleted
// document's too: results that are no document are dropped at the end).
type wildcardIter struct {
	st       iterState
	cur, top uint32
	n        int
	rec      result
}

func (it *wildcardIter) state() *iterState { return &it.st }
func (it *wildcardIter) current() *result  { return &it.rec }
func (it *wildcardIter) lastID() uint32    { return it.cur }
func (it *wildcardIter) atEnd() bool       { return it.cur > it.top }
func (it *wildcardIter) est() int          { return it.n }

func (it *wildcardIter) read() (readRC, *result) {
	it.cur++
	it.rec.doc = it.cur
	if it.cur > it.top {
		return rcEOF, nil
	}
	return rcOK, &it.rec
}

func (it *wildcardIter) skipTo(id uint32) (readRC, *result) {
	if it.cur > it.top {
		return rcEOF, nil
	}
	if id == 0 {
		return it.read()
	}
	it.cur = id
	it.rec.doc = id
	return rcOK, &it.rec
}

// notIter reads the ids up to the index's last that its child does not
// have. It walks the ids one by one, reading its child along (never
// skipping it) to step over the ids the child has; a skip asks the child
// whether it has the id. (These steps are the ones RediSearch's
// FT.PROFILE counters show.)
type notIter struct {
	st    iterState
	child iterator
	max   uint32
	last  uint32
	eof   bool
	rec   result // virtual, frequency 0
}

func (it *notIter) state() *iterState { return &it.st }
func (it *notIter) current() *result  { return &it.rec }
func (it *notIter) lastID() uint32    { return it.last }
func (it *notIter) atEnd() bool       { return it.eof }
func (it *notIter) est() int          { return int(it.max) }

// childRecord is the child's record, the child read first when it has
// not been read yet.
func (it *notIter) childRecord() *result {
	if cr := it.child.current(); cr != nil && cr.doc != 0 {
		return cr
	}
	if _, r := it.child.read(); r != nil {
		return r
	}
	return it.child.current()
}

func (it *notIter) read() (readRC, *result) {
	// (An empty child is read only for the ids returned, as RediSearch's
	// counters show: past the last id the negation ends at once.)
	if it.last > it.max || it.rec.doc >= it.max && isEmptyIter(it.child) {
		it.eof = true
		return rcEOF, nil
	}
	cr := it.childRecord()
	next := it.rec.doc + 1
	// While the child stands on the next id, that id is the child's:
	// step over it, reading the child on. A child behind the next id,
	// or ended, excludes nothing.
	if cr != nil && cr.doc <= next && !it.child.atEnd() {
		for cr.doc == next {
			next++
			rc, r := it.child.read()
			if rc == rcEOF {
				break
			}
			cr = r
		}
	}
	it.rec.doc = next
	if next > it.max {
		it.eof = true
		return rcEOF, nil
	}
	it.last = next
	return rcOK, &it.rec
}

// skipTo stands on id unless the child has it: when the child's last id
// is id (known only once the negation has returned an id), the negation
// still stands on id but reports it not found; when the child, not past
// id nor ended, skips to id and finds it, the negation reports the
// child's record, not found, and does not move.
func (it *notIter) skipTo(id uint32) (readRC, *result) {
	if id > it.max {
		it.eof = true
		return rcEOF, nil
	}
	var childLast uint32
	if it.last != 0 {
		childLast = it.child.lastID()
	}
	childHas := false
	switch {
	case childLast > id || it.child.atEnd():
	case childLast == id:
		childHas = true
	default:
		if rc, r := it.child.skipTo(id); rc == rcOK {
			return rcNotFound, r
		}
	}
	it.rec.doc, it.last = id, id
	if childHas {
		return rcNotFound, &it.rec
	}
	return rcOK, &it.rec
}

// isEmptyIter reports whether it is the empty iterator (profiled or not).
func isEmptyIter(it iterator) bool {
	if p, ok := it.(*profIter); ok {
		it = p.child
	}
	_, ok := it.(*emptyIter)
	return ok
}

// unionIter reads the documents any child has. Its record holds the
// children that stand on its document — only the first found with
// quickExit (prefix expansions).
//
// How it steps decides the records the scorer sees (which children, in
// which order) and FT.PROFILE's counters, so it follows the steps
// RediSearch's replies show. Each child's state().minID is the document
// it stands on. Up to minUnionHeap children, every step looks at every
// child in query order (scanRead, scanSeek); past that, the children
// are kept in a binary heap ordered by minID, and only those at its top
// move (heapRead, heapSeek).
type unionIter struct {
	st        iterState
	orig      []iterator
	its       []iterator // the children not exhausted, in order
	quickExit bool
	minDoc    uint32 // the document it stands on
	eof       bool
	rec       result
	expected  int
	// heap, for more than minUnionHeap children: indexes into orig of
	// the children not exhausted, a binary heap by minID (nil: none).
	heap unionHeap
	// profType is FT.PROFILE's "Query type" of it ("" for none).
	profType string
}

// minUnionHeap: a union of more children steps with a heap (which
// changes the order of a record's children, and so RediSearch's
// scores, from that many children on).
const minUnionHeap = 20

func newUnion(kids []iterator, quickExit bool) *unionIter {
	u := &unionIter{orig: kids, its: append([]iterator(nil), kids...), quickExit: quickExit}
	u.rec.kind = resUnion
	for _, k := range kids {
		u.expected += k.est()
	}
	if len(kids) > minUnionHeap {
		u.heap = unionHeap{orig: kids}
		for i := range kids {
			u.heap.insert(i)
		}
	}
	return u
}

func (u *unionIter) state() *iterState { return &u.st }
func (u *unionIter) current() *result  { return &u.rec }
func (u *unionIter) lastID() uint32    { return u.minDoc }
func (u *unionIter) atEnd() bool       { return u.eof }
func (u *unionIter) est() int          { return u.expected }

func (u *unionIter) read() (readRC, *result) {
	if u.heap.orig != nil {
		return u.heapRead()
	}
	if len(u.its) == 0 || u.eof {
		u.eof = true
		return rcEOF, nil
	}
	u.rec.reset(resUnion)
	if next := u.scanRead(); next != nil {
		id := next.state().minID
		u.scanSeek(id)
		u.minDoc = id
		return rcOK, &u.rec
	}
	u.eof = true
	return rcEOF, nil
}

// scanRead moves every child that stands at or before the union's
// document on to its next document, drops those that end, and returns
// the child whose record has the least document (the last of them on a
// tie); nil when no child is left.
func (u *unionIter) scanRead() iterator {
	var next iterator
	var least uint32
	live := u.its[:0]
	for _, it := range u.its {
		doc, ok := it.current(), true
		for ok && it.state().minID <= u.minDoc {
			var rc readRC
			var r *result
			rc, r = it.read()
			if r != nil {
				doc, it.state().minID = r, r.doc
			}
			ok = rc != rcEOF
		}
		if !ok {
			continue
		}
		live = append(live, it)
		if next == nil || doc.doc <= least {
			next, least = it, doc.doc
		}
	}
	clear(u.its[len(live):])
	u.its = live
	return next
}

func (u *unionIter) skipTo(id uint32) (readRC, *result) {
	if id == 0 {
		return u.read()
	}
	if u.eof {
		return rcEOF, nil
	}
	if u.heap.orig != nil {
		return u.heapSeek(id)
	}
	u.rec.reset(resUnion)
	return u.scanSeek(id)
}

// scanSeek moves the children behind id to it, in order, dropping
// those that end. Every child found on id joins the record (with
// quickExit, the first found ends the scan) and the union stands on id.
// With none found, the union stands on the least document a child
// reports (a child at document 0, never read, aside), whose record joins
// and is returned with rcNotFound.
func (u *unionIter) scanSeek(id uint32) (readRC, *result) {
	found := false
	var nearest *result
	nearestDoc := uint32(math.MaxUint32)
	live := u.its[:0]
	for i, it := range u.its {
		st := it.state()
		var rc readRC
		var r *result
		if st.minID < id {
			if rc, r = it.skipTo(id); rc == rcEOF {
				continue
			}
			if r != nil {
				st.minID = r.doc
			}
		} else {
			rc, r = rcNotFound, it.current()
			if st.minID == id {
				rc = rcOK
			}
		}
		live = append(live, it)
		if st.minID != 0 && (nearest == nil || st.minID < nearestDoc) {
			nearest, nearestDoc = r, st.minID
		}
		if rc == rcOK {
			if r == nil {
				r = it.current()
			}
			u.rec.add(r)
			u.minDoc = st.minID
			found = true
			if u.quickExit {
				live = append(live, u.its[i+1:]...)
				break
			}
		}
	}
	clear(u.its[len(live):])
	u.its = live
	switch {
	case len(live) == 0:
		u.eof = true
		return rcEOF, nil
	case found:
		return rcOK, &u.rec
	}
	hit := &u.rec
	if nearest != nil {
		hit = nearest
		u.rec.add(nearest)
	}
	u.minDoc = nearestDoc
	return rcNotFound, hit
}

// heapRead moves the children at the heap's top that stand before the
// document after the union's to it (or beyond), dropping those that
// end, until the top child stands there or beyond (with quickExit: or a
// child moved lands right on it).
func (u *unionIter) heapRead() (readRC, *result) {
	if u.eof {
		return rcEOF, nil
	}
	u.rec.reset(resUnion)
	next := u.minDoc + 1
	it, r, ok := u.heap.advance(next, func(m uint32) bool { return m >= next && m != 0 }, u.quickExit)
	if !ok {
		u.eof = true
		return rcEOF, nil
	}
	u.minDoc = it.state().minID
	if u.quickExit {
		u.rec.add(r)
	} else {
		u.heap.gather(&u.rec)
	}
	return rcOK, &u.rec
}

// heapSeek is heapRead toward id: the children before id move to it.
func (u *unionIter) heapSeek(id uint32) (readRC, *result) {
	u.rec.reset(resUnion)
	it, _, ok := u.heap.advance(id, func(m uint32) bool { return m >= id }, u.quickExit)
	if !ok {
		u.eof = true
		return rcEOF, nil
	}
	rc := rcNotFound
	if it.state().minID == id {
		rc = rcOK
	}
	if u.quickExit {
		u.rec.add(it.current())
	} else {
		u.heap.gather(&u.rec)
	}
	u.minDoc = it.state().minID
	return rc, &u.rec
}

// unionHeap is a binary max-heap of a union's children (indexes into
// orig) where a smaller minID ranks higher (container/heap with Less
// reversed: the top has the least minID).
type unionHeap struct {
	orig []iterator
	idx  []int
}

func (h *unionHeap) minID(i int) uint32 { return h.orig[h.idx[i]].state().minID }
func (h *unionHeap) Len() int           { return len(h.idx) }
func (h *unionHeap) Less(i, j int) bool { return h.minID(i) < h.minID(j) }
func (h *unionHeap) Swap(i, j int)      { h.idx[i], h.idx[j] = h.idx[j], h.idx[i] }
func (h *unionHeap) Push(x any)         { h.idx = append(h.idx, x.(int)) }
func (h *unionHeap) Pop() any {
	x := h.idx[len(h.idx)-1]
	h.idx = h.idx[:len(h.idx)-1]
	return x
}

// insert adds child i, which rises above every ancestor it does not rank
// below (its equals too: the order of ties in a new union's heap, all
// of whose children are at 0, is the children's reversed along each
// path).
func (h *unionHeap) insert(i int) {
	h.idx = append(h.idx, i)
	for at := len(h.idx) - 1; at > 0; {
		up := (at - 1) / 2
		if h.minID(at) > h.minID(up) {
			return
		}
		h.Swap(at, up)
		at = up
	}
}

// advance moves the top child to target until settled reports its minID
// settled (or, with stopOn, a child moved lands on target), dropping
// children that end, and returns the last child looked at and its
// record; false when no child is left.
func (h *unionHeap) advance(target uint32, settled func(uint32) bool, stopOn bool) (iterator, *result, bool) {
	var it iterator
	var r *result
	for h.Len() > 0 {
		it = h.orig[h.idx[0]]
		r = it.current()
		if settled(it.state().minID) {
			break
		}
		rc, moved := it.skipTo(target)
		if rc == rcEOF {
			heap.Pop(h)
			continue
		}
		r = moved
		it.state().minID = moved.doc
		heap.Fix(h, 0)
		if stopOn && moved.doc == target {
			break
		}
	}
	return it, r, h.Len() > 0
}

// gather adds to rec the record of every child standing where the top
// one does, visiting the heap's nodes in preorder.
func (h *unionHeap) gather(rec *result) {
	top := h.minID(0)
	stack := []int{0}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if i >= h.Len() || h.minID(i) != top {
			continue
		}
		rec.add(h.orig[h.idx[i]].current())
		stack = append(stack, 2*i+2, 2*i+1)
	}
}

// intersectIter reads the documents every child has; with a slop (a
// phrase's is 0, in order) their positions must also be that close
// (withinRange). Its children are ordered by their estimates, smallest
// first (unless in order).
//
// How it steps decides the records the scorer sees and FT.PROFILE's
// counters, so it follows the steps RediSearch's replies show. It keeps
// the document each child last reported and a candidate: the least
// document the next match can be. A read makes passes over the children
// (align) until one finds every child on the candidate; a skip makes one
// pass toward the id asked for (seek) and, failing, reads on.
type intersectIter struct {
	st    iterState
	its   []iterator
	at    []uint32 // the document each child last reported
	want  uint32   // the candidate (0: nothing read yet)
	found uint32   // the last document matched
	slop  int      // -1: not checked
	// inOrder is INORDER (or a phrase's order).
	inOrder bool
	eof     bool
	dead    bool // a child matches nothing: no documents
	rec     result
	// profKids are a dead intersection's children, for FT.PROFILE.
	profKids []iterator
}

func newIntersect(kids []iterator, slop int, inOrder bool) *intersectIter {
	ii := &intersectIter{its: kids, at: make([]uint32, len(kids)), slop: slop, inOrder: inOrder}
	ii.rec.kind = resIntersect
	if !inOrder {
		sortByEstimate(ii.its)
	}
	return ii
}

// sortByEstimate orders an intersection's children by their estimates,
// smallest first, ties in query order; an intersection of several
// children (or a dead one) counts as 0 (the order RediSearch's profiles
// list them in).
func sortByEstimate(its []iterator) {
	key := func(it iterator) int {
		if ii, ok := it.(*intersectIter); ok && (len(ii.its) > 1 || ii.dead) {
			return 0
		}
		return it.est()
	}
	for i := 1; i < len(its); i++ {
		for j := i; j > 0 && key(its[j]) < key(its[j-1]); j-- {
			its[j], its[j-1] = its[j-1], its[j]
		}
	}
}

func (ii *intersectIter) state() *iterState { return &ii.st }
func (ii *intersectIter) current() *result  { return &ii.rec }
func (ii *intersectIter) lastID() uint32    { return ii.found }
func (ii *intersectIter) atEnd() bool       { return ii.eof }

func (ii *intersectIter) est() int {
	if ii.dead {
		return math.MaxInt32 // what RediSearch's profiles show for it
	}
	n := math.MaxInt
	for _, it := range ii.its {
		n = min(n, it.est())
	}
	return n
}

// passResult is how a pass over the children ended.
type passResult uint8

const (
	passMatched passResult = iota // every child found on the candidate
	passMissed                    // try again with the new candidate
	passEnded                     // a child has no more documents
)

// align is one pass of a read. Each child in turn, unless it already
// reports the candidate, moves: the first child reads its next document
// when it is not behind the candidate, any other child (or a first one
// behind) skips to the candidate. A child that reports a document past
// the candidate makes that the candidate and ends the pass; one found
// on it joins the record; one that reports "not found" at or before it
// moves the candidate one on, and the pass goes on.
func (ii *intersectIter) align() passResult {
	ii.rec.reset(resIntersect)
	outcome := passMatched
	for i, it := range ii.its {
		rc, r := rcOK, it.current()
		if moved := ii.want == 0 || ii.at[i] != ii.want; moved {
			if i == 0 && ii.at[i] >= ii.want {
				rc, r = it.read()
			} else {
				rc, r = it.skipTo(ii.want)
			}
			if rc == rcEOF {
				return passEnded
			}
			ii.at[i] = r.doc
		}
		switch {
		case ii.at[i] > ii.want:
			ii.want = ii.at[i]
			return passMissed
		case rc == rcOK:
			ii.rec.add(r)
		default:
			ii.want++
			outcome = passMissed
		}
	}
	return outcome
}

func (ii *intersectIter) read() (readRC, *result) {
	if len(ii.its) == 0 {
		ii.eof = true
		return rcEOF, nil
	}
	for {
		switch ii.align() {
		case passEnded:
			ii.eof = true
			return rcEOF, nil
		case passMatched:
			ii.found = ii.rec.doc
			ii.want++
			if ii.slop < 0 || withinRange(&ii.rec, ii.slop, ii.inOrder) {
				return rcOK, &ii.rec
			}
		}
	}
}

// seek is the pass of a skip to id. Each child in turn, unless it
// already reports the target, skips to it, and the document it reports
// becomes the target of the children after it. A child found joins the
// record (when it stands on the target) and sets the candidate to the
// target; a child not found past the candidate makes its document the
// candidate and ends the pass. A child already at its end ends the skip
// but not the intersection; one that ends while skipping ends both.
func (ii *intersectIter) seek(id uint32) passResult {
	ii.rec.reset(resIntersect)
	outcome := passMatched
	for i, it := range ii.its {
		if it.atEnd() {
			return passEnded
		}
		rc, r := rcOK, it.current()
		if ii.at[i] != id {
			if rc, r = it.skipTo(id); rc == rcEOF {
				ii.eof = true
				return passEnded
			}
			if r != nil {
				id = r.doc
				ii.at[i] = id
			}
		}
		switch {
		case rc == rcOK:
			if r != nil && r.doc == id {
				ii.rec.add(r)
			}
			ii.want = id
		case ii.at[i] > ii.want:
			ii.want = ii.at[i]
			return passMissed
		default:
			outcome = passMissed
		}
	}
	return outcome
}

func (ii *intersectIter) skipTo(id uint32) (readRC, *result) {
	if id == 0 || len(ii.its) == 0 {
		return ii.read()
	}
	switch ii.seek(id) {
	case passEnded:
		return rcEOF, nil
	case passMatched:
		// (Any slop but -1 is checked here, a negative one too, as
		// RediSearch's results show.)
		if ii.slop == -1 || withinRange(&ii.rec, ii.slop, ii.inOrder) {
			ii.found = ii.rec.doc
			ii.want++
			return rcOK, &ii.rec
		}
	}
	rc, hit := ii.read()
	if rc == rcEOF {
		return rcEOF, nil
	}
	return rcNotFound, hit
}

// reset empties an aggregate record.
func (r *result) reset(kind resultKind) {
	r.kind, r.kids, r.mask, r.doc = kind, r.kids[:0], 0, 0
}

// add appends a child record to an aggregate, which takes its document.
func (r *result) add(k *result) {
	r.kids = append(r.kids, k)
	r.mask |= k.kind
	r.doc = k.doc
}
