package suggest

import (
	"encoding/binary"
	"math"
	"slices"
)

// Iterator states (ITERSTATE_*).
const (
	stateSelf = iota
	stateChildren
	stateMatch
)

// step results (__STEP_*).
const (
	stepStop = iota
	stepCont
	stepMatch
)

type stackNode struct {
	state        int
	n            *node
	stringOffset int
	childOffset  int
}

// iterator is a TrieIterator: a depth-first walk of the trie, children in
// their (score) order, steered by a filter (nil: every string), skipping
// children whose scores are below minScore.
type iterator struct {
	buf      []rune16
	stack    []stackNode
	filter   *dfaFilter
	minScore float32
}

func newIterator(root *node, f *dfaFilter) *iterator {
	it := &iterator{filter: f, minScore: math.MinInt32, buf: make([]rune16, 0, maxStringRunes+1)}
	it.push(root)
	return it
}

func (it *iterator) push(n *node) {
	if len(it.stack) < maxStringRunes-1 {
		it.stack = append(it.stack, stackNode{n: n, state: stateSelf})
	}
}

func (it *iterator) pop() {
	if len(it.stack) == 0 {
		return
	}
	cur := &it.stack[len(it.stack)-1]
	if it.filter != nil {
		it.filter.pop(cur.stringOffset)
	}
	it.buf = it.buf[:len(it.buf)-cur.stringOffset]
	it.stack = it.stack[:len(it.stack)-1]
}

// step is __ti_step.
func (it *iterator) step(dist *int) int {
	if len(it.stack) == 0 {
		return stepStop
	}
	cur := &it.stack[len(it.stack)-1]
	switch cur.state {
	case stateMatch:
		it.pop()
		return stepCont
	case stateSelf:
		if cur.stringOffset < len(cur.n.str) {
			b := cur.n.str[cur.stringOffset]
			matched := false
			if it.filter != nil {
				var cont bool
				cont, matched = it.filter.filter(b, dist)
				if !cont {
					if matched {
						cur.state = stateMatch
						return stepMatch
					}
					it.pop()
					return stepCont
				}
			}
			it.buf = append(it.buf, b)
			cur.stringOffset++
			if it.filter == nil && len(cur.n.str) > 0 && cur.stringOffset == len(cur.n.str) &&
				cur.n.terminal() && !cur.n.deleted() {
				matched = true
			}
			if matched {
				return stepMatch
			}
			return stepCont
		}
		cur.state = stateChildren
	}
	if cur.childOffset < len(cur.n.children) {
		ch := cur.n.children[cur.childOffset]
		cur.childOffset++
		if ch.maxChildScore >= it.minScore || ch.score >= it.minScore {
			it.push(ch)
		}
	} else {
		it.pop()
	}
	return stepCont
}

// next is TrieIterator_Next: the next string (the iterator's buffer, valid
// until the next call) and its node.
func (it *iterator) next(dist *int) ([]rune16, *node, bool) {
	for {
		switch it.step(dist) {
		case stepStop:
			return nil, nil, false
		case stepMatch:
			sn := &it.stack[len(it.stack)-1]
			if sn.n.terminal() && len(sn.n.str) == sn.stringOffset && !sn.n.deleted() {
				return it.buf, sn.n, true
			}
		}
	}
}

// Result is a string a search found, with its score for the search.
type Result struct {
	Str     []byte
	Score   float32
	Payload []byte // nil: none
}

// SearchOptions are FT.SUGGET's: the number of results (MAX), the edit
// distance (1 for FUZZY) and TRIM.
type SearchOptions struct {
	Max      int
	MaxDist  int
	Trim     bool
	noPrefix bool // whole strings, not prefixes (tests)
}

// Search is Trie_Search: the strings that prefix (of at most
// MaxPrefixBytes bytes; folded) completes, within o.MaxDist edits, best
// first. A result's score is its own (2147483648 when it is the prefix
// itself), times exp(-2·distance) when fuzzy, divided by the square root of
// 1 + the difference between its length in runes and the prefix's in
// bytes. ok is false for a prefix of 100 runes or more.
func (t *Trie) Search(prefix []byte, o SearchOptions) (res []Result, ok bool) {
	runes := toFoldedRunes(prefix)
	if len(runes) >= maxPrefixRunes {
		return nil, false
	}
	prefixMode := !o.noPrefix
	pq := &scoreHeap{size: o.Max}
	it := newIterator(t.root, newDFAFilter(runes, o.MaxDist, prefixMode))
	dist := o.MaxDist + 1
	plen := len(prefix)
	for {
		rstr, n, more := it.next(&dist)
		if !more {
			break
		}
		slen := len(rstr)
		score := n.score
		if slen > 0 && slen == len(runes) && runesPrefixBytesEqual(runes, rstr, slen) {
			score = math.MaxInt32
		}
		if o.MaxDist > 0 {
			score = float32(float64(score) * math.Exp(float64(-2*dist)))
		}
		if prefixMode {
			d := slen - plen
			if d < 0 {
				d = -d
			}
			score = float32(float64(score) / math.Sqrt(float64(1+d)))
		}
		if pq.count() < pq.size {
			pq.offer(&Result{Str: runesToString(rstr), Score: score, Payload: n.payload})
			if pq.count() == pq.size {
				it.minScore = pq.peek().Score
			}
		} else if score > it.minScore {
			pq.poll()
			pq.offer(&Result{Str: runesToString(rstr), Score: score, Payload: n.payload})
			if q := pq.peek(); q.Score > it.minScore {
				it.minScore = q.Score
			}
		}
	}
	n := min(pq.count(), o.Max)
	res = make([]Result, n)
	for i := 0; i < n; i++ {
		r := pq.poll()
		r.Payload = slices.Clone(r.Payload)
		res[n-i-1] = *r
	}
	if o.Trim {
		var maxScore float32
		for i := range res {
			if maxScore != 0 && float64(res[i].Score) < float64(maxScore)/10.0 {
				res = res[:i]
				break
			}
			maxScore = max32(maxScore, res[i].Score)
		}
	}
	return res, true
}

// runesPrefixBytesEqual is RediSearch's memcmp(runes, rstr, slen): it
// compares the first n bytes of the two rune arrays (little-endian), not
// n runes.
func runesPrefixBytesEqual(a, b []rune16, n int) bool {
	var x, y [2]byte
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint16(x[:], a[i/2])
		binary.LittleEndian.PutUint16(y[:], b[i/2])
		if x[i%2] != y[i%2] {
			return false
		}
	}
	return true
}

// scoreHeap is RediSearch's heap_t (src/util/heap.c) with Trie_Search's
// comparison: the lowest score on top; equal scores move up as they are
// offered. size is its capacity (the MAX of the search); it grows as
// filled, never allocated up front.
type scoreHeap struct {
	a    []*Result
	size int
}

// cmp is cmpEntries: 1 when a scores lower than b.
func cmp(a, b *Result) int {
	switch {
	case a.Score < b.Score:
		return 1
	case a.Score > b.Score:
		return -1
	}
	return 0
}

func (h *scoreHeap) count() int      { return len(h.a) }
func (h *scoreHeap) peek() *Result   { return h.a[0] }
func (h *scoreHeap) swap(i, j int)   { h.a[i], h.a[j] = h.a[j], h.a[i] }
func (h *scoreHeap) offer(r *Result) { h.a = append(h.a, r); h.pushUp(len(h.a) - 1) }

func (h *scoreHeap) pushUp(idx int) {
	for idx != 0 {
		parent := (idx - 1) / 2
		if cmp(h.a[idx], h.a[parent]) < 0 {
			return
		}
		h.swap(idx, parent)
		idx = parent
	}
}

func (h *scoreHeap) pushDown(idx int) {
	for {
		l, r := idx*2+1, idx*2+2
		var child int
		if r >= len(h.a) {
			if l >= len(h.a) {
				return
			}
			child = l
		} else if cmp(h.a[l], h.a[r]) < 0 {
			child = r
		} else {
			child = l
		}
		if cmp(h.a[idx], h.a[child]) < 0 {
			h.swap(idx, child)
			idx = child
		} else {
			return
		}
	}
}

func (h *scoreHeap) poll() *Result {
	if len(h.a) == 0 {
		return nil
	}
	item := h.a[0]
	h.a[0] = h.a[len(h.a)-1]
	h.a = h.a[:len(h.a)-1]
	if len(h.a) > 1 {
		h.pushDown(0)
	}
	return item
}
