package list

import "math"

// Iter walks a list from one entry towards the tail or towards the head.
// The list must not change while an Iter is in use. An Iter does not
// allocate: it is meant to live on its user's stack.
type Iter struct {
	l   *List
	di  int // the current entry's node in l.dir; -1 when done
	p   int // the current entry's offset in its node's buffer
	rev bool
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
		it.di, it.p = l.locate(i)
	}
	return it
}

// Next returns the current entry and advances. The value is valid until
// the next call or a change to the list; ok is false past the end.
func (it *Iter) Next() (v []byte, ok bool) {
	if it.di < 0 {
		return nil, false
	}
	nd := &it.l.dir[it.di]
	v, sz := valueAt(nd.b, it.p, &it.sc)
	it.step(nd, sz)
	return v, true
}

// NextMatch reports whether the current entry matches m, and advances; ok
// is false past the end.
func (it *Iter) NextMatch(m *Matcher) (matched, ok bool) {
	if it.di < 0 {
		return false, false
	}
	nd := &it.l.dir[it.di]
	matched, sz := m.at(nd.b, it.p)
	it.step(nd, sz)
	return matched, true
}

// step moves past the current entry, of sz bytes, in node nd.
func (it *Iter) step(nd *node, sz int) {
	l := it.l
	if !it.rev {
		it.p += sz
		if it.p < len(nd.b) {
			return
		}
		if it.di++; it.di >= l.hi {
			it.di = -1
			return
		}
		it.p = int(l.dir[it.di].off)
		return
	}
	if it.p > int(nd.off) {
		it.p = prevStart(nd.b, it.p)
		return
	}
	if it.di--; it.di < l.lo {
		it.di = -1
		return
	}
	nd = &l.dir[it.di]
	it.p = prevStart(nd.b, len(nd.b))
}

// Insert adds v (copied) just before (or after) the first entry, from the
// head, that matches pivot. It returns false when no entry matches.
func (l *List) Insert(pivot *Matcher, v []byte, after bool) bool {
	for di := l.lo; di < l.hi; di++ {
		nd := &l.dir[di]
		for p := int(nd.off); p < len(nd.b); {
			match, sz := pivot.at(nd.b, p)
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
	e := encode(v)
	nd := &l.dir[l.lo+i]
	if l.allow(nd, &e) {
		p = l.openGap(nd, p, 0, e.size)
		e.put(nd.b[p : p+e.size])
		nd.n++
		l.count++
		return
	}
	k := l.hi - l.lo
	atStart, atEnd := p == int(nd.off), p == len(nd.b)
	switch {
	case atEnd && i+1 < k && l.allow(&l.dir[l.lo+i+1], &e):
		l.pushInto(i+1, &e, true)
	case atStart && i > 0 && l.allow(&l.dir[l.lo+i-1], &e):
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
	if !fromTail {
		for di := l.lo; di < l.hi && removed < limit; di++ {
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
			want, found, from := limit-removed, 0, int(nd.off)
			for p := len(nd.b); p > int(nd.off); {
				q := prevStart(nd.b, p)
				if match, _ := m.at(nd.b, q); match {
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

// removeIn removes up to quota entries matching m from the node at dir[di],
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
	if gone == 0 {
		return
	}
	copy(l.dir[w:], l.dir[b+1:l.hi])
	clear(l.dir[l.hi-gone : l.hi])
	l.hi -= gone
	if l.hi == l.lo {
		l.dir, l.lo, l.hi = nil, 0, 0
	}
}
