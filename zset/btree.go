package zset

import (
	"slices"
	"strings"
)

// The order of a big sorted set is kept by a B+tree of node pointers with
// subtree counts (an order-statistic tree): finding a key, the element of
// a rank and the rank of a key all cost O(log n), and the leaves, chained
// both ways, are walked for ranges. Compared with Redis's skiplist it
// costs about one pointer per element instead of a node with a random
// number of levels, and its searches touch contiguous arrays.
const (
	maxLeaf  = 64
	minLeaf  = maxLeaf / 4
	maxInner = 64
	minInner = maxInner / 4
	maxDepth = 40 // far more than 64^k elements can need
)

// key is a copy of an element's sort key, used as a separator in inner
// nodes. Separators need not be present elements: seps[i] is <= every
// key under kids[i] and > every key under kids[i-1].
type key struct {
	score  float64
	member string
}

// cmpKey orders (score, member) pairs as Redis does: by score, then by
// member bytes. -0 and 0 compare equal, as C doubles do.
func cmpKey(s1 float64, m1 string, s2 float64, m2 string) int {
	switch {
	case s1 < s2:
		return -1
	case s1 > s2:
		return 1
	}
	return strings.Compare(m1, m2)
}

// bnode is a leaf (kids == nil) or an inner node.
type bnode struct {
	items      []*node  // leaf: elements in order
	prev, next *bnode   // leaf: neighbours
	kids       []*bnode // inner: children
	seps       []key    // inner: separators; seps[0] is unused
	counts     []int    // inner: number of elements under each child
}

func (b *bnode) leaf() bool { return b.kids == nil }

func (b *bnode) size() int {
	if b.leaf() {
		return len(b.items)
	}
	return len(b.kids)
}

// childFor returns the index of the child whose range holds (s, m).
func (b *bnode) childFor(s float64, m string) int {
	lo, hi := 1, len(b.kids)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if cmpKey(b.seps[mid].score, b.seps[mid].member, s, m) <= 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo - 1
}

// lowerBound returns the index of the first item >= (s, m) in a leaf.
func (b *bnode) lowerBound(s float64, m string) int {
	lo, hi := 0, len(b.items)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		it := b.items[mid]
		if cmpKey(it.score, it.member, s, m) < 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

type btree struct {
	root        *bnode
	first, last *bnode // leftmost and rightmost leaves
	n           int
}

func newBTree() btree {
	l := &bnode{}
	return btree{root: l, first: l, last: l}
}

type pathElem struct {
	b *bnode
	i int
}

// insertItem inserts x at index j of a leaf, never growing its array past
// maxLeaf+1 slots.
func insertItem(items []*node, j int, x *node) []*node {
	if len(items) == cap(items) {
		grown := make([]*node, len(items), min(max(2*cap(items), 4), maxLeaf+1))
		copy(grown, items)
		items = grown
	}
	items = items[:len(items)+1]
	copy(items[j+1:], items[j:])
	items[j] = x
	return items
}

// insert adds x, whose key must not be present.
func (t *btree) insert(x *node) {
	var path [maxDepth]pathElem
	d := 0
	b := t.root
	for !b.leaf() {
		i := b.childFor(x.score, x.member)
		b.counts[i]++
		path[d] = pathElem{b, i}
		d++
		b = b.kids[i]
	}
	j := b.lowerBound(x.score, x.member)
	b.items = insertItem(b.items, j, x)
	t.n++
	if len(b.items) <= maxLeaf {
		return
	}
	// Split the leaf. Appending at the right end (or prepending at the
	// left end), the common pattern of time-ordered scores, leaves the
	// old leaf full instead of half full.
	at := len(b.items) / 2
	switch {
	case b == t.last && j == len(b.items)-1:
		at = maxLeaf
	case b == t.first && j == 0:
		at = 1
	}
	r := &bnode{items: make([]*node, len(b.items)-at, maxLeaf+1)}
	copy(r.items, b.items[at:])
	clear(b.items[at:])
	b.items = b.items[:at]
	r.prev, r.next = b, b.next
	if b.next != nil {
		b.next.prev = r
	} else {
		t.last = r
	}
	b.next = r
	t.addChild(path[:d], b, r, key{r.items[0].score, r.items[0].member}, len(b.items), len(r.items))
}

// addChild records, in the parent at the end of path, that its child
// left was split into left and right (with nl and nr elements), splitting
// parents in turn as they overflow.
func (t *btree) addChild(path []pathElem, left, right *bnode, sep key, nl, nr int) {
	for {
		if len(path) == 0 {
			t.root = &bnode{kids: []*bnode{left, right}, seps: []key{{}, sep}, counts: []int{nl, nr}}
			return
		}
		pe := path[len(path)-1]
		path = path[:len(path)-1]
		p, i := pe.b, pe.i
		p.counts[i] = nl
		p.kids = slices.Insert(p.kids, i+1, right)
		p.seps = slices.Insert(p.seps, i+1, sep)
		p.counts = slices.Insert(p.counts, i+1, nr)
		if len(p.kids) <= maxInner {
			return
		}
		at := len(p.kids) / 2
		r := &bnode{
			kids:   slices.Clone(p.kids[at:]),
			seps:   slices.Clone(p.seps[at:]),
			counts: slices.Clone(p.counts[at:]),
		}
		sep = r.seps[0]
		r.seps[0] = key{}
		clear(p.kids[at:])
		clear(p.seps[at:])
		p.kids, p.seps, p.counts = p.kids[:at], p.seps[:at], p.counts[:at]
		left, right = p, r
		nl, nr = sum(p.counts), sum(r.counts)
	}
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// remove deletes the element with key (s, m) and reports whether it was
// there.
func (t *btree) remove(s float64, m string) bool {
	var path [maxDepth]pathElem
	d := 0
	b := t.root
	for !b.leaf() {
		i := b.childFor(s, m)
		path[d] = pathElem{b, i}
		d++
		b = b.kids[i]
	}
	j := b.lowerBound(s, m)
	if j == len(b.items) || b.items[j].member != m || b.items[j].score != s {
		return false
	}
	copy(b.items[j:], b.items[j+1:])
	b.items[len(b.items)-1] = nil
	b.items = b.items[:len(b.items)-1]
	for k := 0; k < d; k++ {
		path[k].b.counts[path[k].i]--
	}
	t.n--
	t.rebalance(path[:d], b)
	return true
}

// rebalance restores the minimum fill of b (the last node of a removal's
// path) by merging with or borrowing from a sibling, up the path.
func (t *btree) rebalance(path []pathElem, b *bnode) {
	for len(path) > 0 {
		minSize, maxSize := minInner, maxInner
		if b.leaf() {
			minSize, maxSize = minLeaf, maxLeaf
		}
		if b.size() >= minSize {
			break
		}
		pe := path[len(path)-1]
		path = path[:len(path)-1]
		p := pe.b
		li := pe.i
		if li > 0 {
			li--
		}
		if li+1 >= len(p.kids) {
			break // p has one child: only a root can, and it collapses below
		}
		l, r := p.kids[li], p.kids[li+1]
		if l.size()+r.size() <= maxSize {
			t.merge(p, li)
			b = p
			continue
		}
		t.redistribute(p, li)
		break
	}
	for !t.root.leaf() && len(t.root.kids) == 1 {
		t.root = t.root.kids[0]
	}
}

// merge moves p.kids[li+1] into p.kids[li] and drops it from p.
func (t *btree) merge(p *bnode, li int) {
	l, r := p.kids[li], p.kids[li+1]
	if l.leaf() {
		l.items = append(l.items, r.items...)
		l.next = r.next
		if r.next != nil {
			r.next.prev = l
		} else {
			t.last = l
		}
	} else {
		l.kids = append(l.kids, r.kids...)
		l.seps = append(l.seps, p.seps[li+1])
		l.seps = append(l.seps, r.seps[1:]...)
		l.counts = append(l.counts, r.counts...)
	}
	p.counts[li] += p.counts[li+1]
	p.kids = slices.Delete(p.kids, li+1, li+2)
	p.seps = slices.Delete(p.seps, li+1, li+2)
	p.counts = slices.Delete(p.counts, li+1, li+2)
}

// redistribute evens out the sizes of p.kids[li] and p.kids[li+1].
func (t *btree) redistribute(p *bnode, li int) {
	l, r := p.kids[li], p.kids[li+1]
	if l.leaf() {
		all := append(slices.Clone(l.items), r.items...)
		at := len(all) / 2
		l.items = append(l.items[:0], all[:at]...)
		clear(l.items[len(l.items):cap(l.items)])
		r.items = append(r.items[:0], all[at:]...)
		clear(r.items[len(r.items):cap(r.items)])
		p.seps[li+1] = key{r.items[0].score, r.items[0].member}
		p.counts[li], p.counts[li+1] = len(l.items), len(r.items)
		return
	}
	kids := append(slices.Clone(l.kids), r.kids...)
	seps := append(slices.Clone(l.seps), p.seps[li+1])
	seps = append(seps, r.seps[1:]...)
	counts := append(slices.Clone(l.counts), r.counts...)
	at := len(kids) / 2
	l.kids, l.seps, l.counts = slices.Clone(kids[:at]), slices.Clone(seps[:at]), slices.Clone(counts[:at])
	r.kids, r.seps, r.counts = slices.Clone(kids[at:]), slices.Clone(seps[at:]), slices.Clone(counts[at:])
	p.seps[li+1] = r.seps[0]
	r.seps[0] = key{}
	p.counts[li], p.counts[li+1] = sum(l.counts), sum(r.counts)
}

// rank returns the 0-based rank of the element with key (s, m), or -1.
func (t *btree) rank(s float64, m string) int {
	r := 0
	b := t.root
	for !b.leaf() {
		i := b.childFor(s, m)
		for _, c := range b.counts[:i] {
			r += c
		}
		b = b.kids[i]
	}
	j := b.lowerBound(s, m)
	if j < len(b.items) && b.items[j].member == m {
		return r + j
	}
	return -1
}

// at returns the leaf and index of the element of rank r (0 <= r < n).
func (t *btree) at(r int) (*bnode, int) {
	b := t.root
	for !b.leaf() {
		i := 0
		for r >= b.counts[i] {
			r -= b.counts[i]
			i++
		}
		b = b.kids[i]
	}
	return b, r
}

// seek returns the rank of the first element for which pred is true
// (t.n when none is); pred must be monotone: false, then true, in key
// order.
func (t *btree) seek(pred func(s float64, m string) bool) int {
	r := 0
	b := t.root
	for !b.leaf() {
		lo, hi := 1, len(b.kids)
		for lo < hi {
			mid := int(uint(lo+hi) >> 1)
			if pred(b.seps[mid].score, b.seps[mid].member) {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		i := lo - 1
		for _, c := range b.counts[:i] {
			r += c
		}
		b = b.kids[i]
	}
	lo, hi := 0, len(b.items)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if pred(b.items[mid].score, b.items[mid].member) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return r + lo
}

// walk visits the elements from rank r on, upwards or downwards, until fn
// returns false or the elements run out.
func (t *btree) walk(r int, reverse bool, fn func(n *node) bool) {
	if r < 0 || r >= t.n {
		return
	}
	b, i := t.at(r)
	for b != nil {
		if reverse {
			for ; i >= 0; i-- {
				if !fn(b.items[i]) {
					return
				}
			}
			b = b.prev
			if b != nil {
				i = len(b.items) - 1
			}
		} else {
			for ; i < len(b.items); i++ {
				if !fn(b.items[i]) {
					return
				}
			}
			b, i = b.next, 0
		}
	}
}

// buildBTree bulk-loads a tree from nodes in key order, with leaves
// filled evenly to about three quarters.
func buildBTree(nodes []*node) btree {
	if len(nodes) == 0 {
		return newBTree()
	}
	const fill = maxLeaf * 3 / 4
	type sub struct {
		b     *bnode
		min   key
		count int
	}
	nl := (len(nodes) + fill - 1) / fill
	level := make([]sub, 0, nl)
	var prev *bnode
	for i := 0; i < nl; i++ {
		lo, hi := i*len(nodes)/nl, (i+1)*len(nodes)/nl
		l := &bnode{items: make([]*node, hi-lo, maxLeaf+1), prev: prev}
		copy(l.items, nodes[lo:hi])
		if prev != nil {
			prev.next = l
		}
		prev = l
		level = append(level, sub{l, key{nodes[lo].score, nodes[lo].member}, hi - lo})
	}
	t := btree{first: level[0].b, last: prev, n: len(nodes)}
	const innerFill = maxInner * 3 / 4
	for len(level) > 1 {
		np := (len(level) + innerFill - 1) / innerFill
		up := make([]sub, 0, np)
		for i := 0; i < np; i++ {
			lo, hi := i*len(level)/np, (i+1)*len(level)/np
			p := &bnode{kids: make([]*bnode, 0, hi-lo), seps: make([]key, 0, hi-lo), counts: make([]int, 0, hi-lo)}
			total := 0
			for j, s := range level[lo:hi] {
				p.kids = append(p.kids, s.b)
				if j == 0 {
					p.seps = append(p.seps, key{})
				} else {
					p.seps = append(p.seps, s.min)
				}
				p.counts = append(p.counts, s.count)
				total += s.count
			}
			up = append(up, sub{p, level[lo].min, total})
		}
		level = up
	}
	t.root = level[0].b
	return t
}
