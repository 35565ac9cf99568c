package list

import "math"

// Iter walks a list from one entry towards the tail or towards the head.
// The list must not change while an Iter is in use. An Iter does not
// allocate, except for a buffer it reuses to read compressed nodes in: it
// is meant to live on its user's stack. Copies of an Iter must not be
// used.
type Iter struct {
	l   *List
	di  int    // the current entry's node in l.dir; -1 when done
	b   []byte // the current node's entries are b[off:]; nil until loaded
	off int
	p   int // the current entry's offset in b
	rev bool
	buf []byte   // a compressed node's entries, decompressed
	sc  [20]byte // integer entries are formatted here
}

// IterAt returns an iterator at entry i (negative i counts from the
// tail), moving towards the head when reverse is set. At an index out of
// range the iterator yields nothing.
func (l *List) IterAt(i int, reverse bool) Iter {
	it := Iter{l: l, di: -1, rev: reverse}
	if i < 0 {
		i += l.count
	}
	if i >= 0 && i < l.count {
		var j int
		it.di, j = l.find(i)
		it.load()
		it.p = seek(it.b, it.off, int(l.dir[it.di].n), j)
	}
	return it
}

// load makes the entries of node it.di readable in it.b, and sets it.p to
// the node's first entry in the iterator's direction.
func (it *Iter) load() {
	it.b, it.off = it.l.dir[it.di].entries(&it.buf)
	if !it.rev {
		it.p = it.off
	} else {
		it.p = prevStart(it.b, len(it.b))
	}
}

// Next returns the current entry and advances. The value is valid until
// the next call or a change to the list; ok is false past the end.
func (it *Iter) Next() (v []byte, ok bool) {
	if it.di < 0 {
		return nil, false
	}
	if it.b == nil {
		it.load()
	}
	v, sz := valueAt(it.b, it.p, &it.sc)
	it.step(sz)
	return v, true
}

// NextMatch reports whether the current entry matches m, and advances; ok
// is false past the end.
func (it *Iter) NextMatch(m *Matcher) (matched, ok bool) {
	if it.di < 0 {
		return false, false
	}
	if it.b == nil {
		it.load()
	}
	matched, sz := m.at(it.b, it.p)
	it.step(sz)
	return matched, true
}

// step moves past the current entry, of sz bytes. On reaching another
// node it only records the node: the next call loads it, so that the value
// just returned, which may be in it.buf, stays valid until then.
func (it *Iter) step(sz int) {
	l := it.l
	if !it.rev {
		it.p += sz
		if it.p < len(it.b) {
			return
		}
		if it.di++; it.di >= l.hi {
			it.di = -1
		}
		it.b = nil
		return
	}
	if it.p > it.off {
		it.p = prevStart(it.b, it.p)
		return
	}
	if it.di--; it.di < l.lo {
		it.di = -1
	}
	it.b = nil
}

// Insert adds v (copied) just before (or after) the first entry, from the
// head, that matches pivot. It returns false when no entry matches.
func (l *List) Insert(pivot *Matcher, v []byte, after bool) bool {
	var sp *[]byte
	defer func() {
		if sp != nil {
			putScratch(sp)
		}
	}()
	for di := l.lo; di < l.hi; di++ {
		nd := &l.dir[di]
		b, off := nd.b, int(nd.off)
		if nd.compressed() {
			if sp == nil {
				sp = getScratch()
			}
			b, off = nd.entries(sp) // insertAt unpacks it with the same offsets
		}
		for p := off; p < len(b); {
			match, sz := pivot.at(b, p)
			if match {
				if after {
					p += sz
				}
				l.insertAt(di-l.lo, p, v)
				return true
			}
			p += sz
		}
	}
	return false
}

// insertAt inserts v at buffer offset p of the i-th node (p is an entry
// boundary), using a neighbour or splitting the node when it is full, as
// quicklist's _quicklistInsert does.
func (l *List) insertAt(i, p int, v []byte) {
	k := l.hi - l.lo
	if l.depth > 0 {
		defer func() {
			added := l.hi - l.lo - k
			l.settle(i-1, i+2, added) // i's neighbours, and up to 2 new nodes
		}()
	}
	e := encode(v)
	l.unpack(l.lo + i)
	nd := &l.dir[l.lo+i]
	if l.allow(nd, &e) {
		p = l.openGap(nd, p, 0, e.size)
		e.put(nd.b[p : p+e.size])
		nd.n++
		l.count++
		return
	}
	atStart, atEnd := p == int(nd.off), p == len(nd.b)
	switch {
	case atEnd && i+1 < k && l.allowAt(i+1, &e):
		l.pushInto(i+1, &e, true)
	case atStart && i > 0 && l.allowAt(i-1, &e):
		l.pushInto(i-1, &e, false)
	case atEnd:
		l.insertNode(i+1, node{})
		l.pushInto(i+1, &e, false)
	case atStart:
		l.insertNode(i, node{})
		l.pushInto(i, &e, false)
	default:
		l.splitNode(i, p)
		switch {
		case l.allow(&l.dir[l.lo+i], &e):
			l.pushInto(i, &e, false)
		case l.allow(&l.dir[l.lo+i+1], &e):
			l.pushInto(i+1, &e, true)
		default:
			l.insertNode(i+1, node{})
			l.pushInto(i+1, &e, false)
		}
	}
}

// allowAt reports whether the i-th node may take e, unpacking it.
func (l *List) allowAt(i int, e *encoded) bool {
	l.unpack(l.lo + i)
	return l.allow(&l.dir[l.lo+i], e)
}

// Remove removes entries that match m: at most limit of them (all when
// limit <= 0), the first ones from the head, or from the tail when
// fromTail is set. It returns how many it removed. Nodes left small are
// merged with their neighbours.
func (l *List) Remove(m *Matcher, limit int, fromTail bool) int {
	if limit <= 0 {
		limit, fromTail = math.MaxInt, false
	}
	removed := 0
	first, last := -1, -1
	var sp *[]byte
	defer func() {
		if sp != nil {
			putScratch(sp)
		}
	}()
	if !fromTail {
		for di := l.lo; di < l.hi && removed < limit; di++ {
			if l.dir[di].compressed() {
				if sp == nil {
					sp = getScratch()
				}
				if !l.dir[di].has(m, sp) {
					continue
				}
				l.unpack(di)
			}
			if r := l.removeIn(di, int(l.dir[di].off), m, limit-removed); r > 0 {
				removed += r
				if first < 0 {
					first = di
				}
				last = di
			}
		}
	} else {
		for di := l.hi - 1; di >= l.lo && removed < limit; di-- {
			// Find the first entry to look at: the want-th match from the
			// node's end, or the node's start when it has fewer.
			nd := &l.dir[di]
			b, off := nd.b, int(nd.off)
			if nd.compressed() {
				if sp == nil {
					sp = getScratch()
				}
				b, off = nd.entries(sp)
			}
			want, found, from := limit-removed, 0, off
			for p := len(b); p > off; {
				q := prevStart(b, p)
				if match, _ := m.at(b, q); match {
					if found++; found == want {
						from = q
						break
					}
				}
				p = q
			}
			if found == 0 {
				continue
			}
			l.unpack(di) // the offsets of b stay valid
			removed += l.removeIn(di, from, m, found)
			if last < 0 {
				last = di
			}
			first = di
		}
	}
	if removed > 0 {
		l.compact(first, last)
	}
	return removed
}

// has reports whether an entry of nd matches m.
func (nd *node) has(m *Matcher, sp *[]byte) bool {
	b, off := nd.entries(sp)
	for p := off; p < len(b); {
		match, sz := m.at(b, p)
		if match {
			return true
		}
		p += sz
	}
	return false
}

// removeIn removes up to quota entries matching m from the raw node at dir[di],
// looking from buffer offset from on, and returns how many it removed. The
// node may be left empty (compact removes it).
func (l *List) removeIn(di, from int, m *Matcher, quota int) int {
	nd := &l.dir[di]
	w, r, end, removed := from, from, len(nd.b), 0
	for r < end && removed < quota {
		match, sz := m.at(nd.b, r)
		if match {
			removed++
		} else {
			if w != r {
				copy(nd.b[w:], nd.b[r:r+sz])
			}
			w += sz
		}
		r += sz
	}
	if removed == 0 {
		return 0
	}
	w += copy(nd.b[w:], nd.b[r:end])
	nd.b = nd.b[:w]
	nd.n -= int32(removed)
	l.count -= removed
	if nd.n > 0 {
		l.shrink(nd)
	}
	return removed
}

// compact removes the empty nodes among dir[a..b] and merges neighbours
// (including those just outside the range) that fit in one node.
func (l *List) compact(a, b int) {
	a, b = max(a-1, l.lo), min(b+1, l.hi-1)
	w := a
	for r := a; r <= b; r++ {
		nd := l.dir[r]
		switch {
		case nd.n == 0:
			l.bufMem -= int64(cap(nd.b))
		case w > a && l.allowMerge(&l.dir[w-1], &nd):
			if nd.compressed() {
				l.unpack(r)
				nd = l.dir[r]
			}
			l.unpack(w - 1)
			prev := &l.dir[w-1]
			p := l.openGap(prev, len(prev.b), 0, nd.size())
			copy(prev.b[p:], nd.b[nd.off:])
			prev.n += nd.n
			l.bufMem -= int64(cap(nd.b))
		default:
			l.dir[w] = nd
			w++
		}
	}
	gone := b + 1 - w
	if gone > 0 {
		copy(l.dir[w:], l.dir[b+1:l.hi])
		clear(l.dir[l.hi-gone : l.hi])
		l.hi -= gone
		if l.hi == l.lo {
			l.dir, l.lo, l.hi = nil, 0, 0
		}
	}
	if l.depth > 0 {
		l.settle(a-l.lo, w-1-l.lo, 0)
	}
}
