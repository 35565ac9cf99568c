package stream

import "slices"

// pel is a pending entries list: records ordered by ID, as Redis's PEL
// radix trees. It is a list of sorted chunks, so that inserting at the
// end and removing from the front, the common cases, cost O(1), and any
// other change O(chunk + chunks).
type pel struct {
	chunks [][]*Pending // each sorted and non-empty, in order
	n      int
}

const pelChunkMax = 256

// pos is a position in a pel: chunk c, index i. The end is
// {len(chunks), 0}.
type pos struct{ c, i int }

// seek returns the position of the first record with ID >= id.
func (l *pel) seek(id ID) pos {
	c, _ := slices.BinarySearchFunc(l.chunks, id, func(ch []*Pending, id ID) int {
		return ch[len(ch)-1].id.Compare(id)
	})
	if c == len(l.chunks) {
		return pos{c, 0}
	}
	i, _ := slices.BinarySearchFunc(l.chunks[c], id, func(p *Pending, id ID) int { return p.id.Compare(id) })
	return pos{c, i}
}

// at returns the record at p, nil at the end.
func (l *pel) at(p pos) *Pending {
	if p.c == len(l.chunks) {
		return nil
	}
	return l.chunks[p.c][p.i]
}

// next returns the position after p.
func (l *pel) next(p pos) pos {
	if p.i++; p.i == len(l.chunks[p.c]) {
		return pos{p.c + 1, 0}
	}
	return p
}

// get returns the record with the given ID, nil when there is none.
func (l *pel) get(id ID) *Pending {
	if r := l.at(l.seek(id)); r != nil && r.id == id {
		return r
	}
	return nil
}

// insert adds r, which must not be in the list.
func (l *pel) insert(r *Pending) {
	l.n++
	p := l.seek(r.id)
	if p.c == len(l.chunks) {
		if p.c == 0 || len(l.chunks[p.c-1]) == pelChunkMax {
			l.chunks = append(l.chunks, make([]*Pending, 0, 16))
		}
		p = pos{len(l.chunks) - 1, len(l.chunks[len(l.chunks)-1])}
	}
	ch := slices.Insert(l.chunks[p.c], p.i, r)
	if len(ch) > pelChunkMax {
		half := len(ch) / 2
		right := slices.Clone(ch[half:])
		ch = ch[:half:half]
		l.chunks = slices.Insert(l.chunks, p.c+1, right)
	}
	l.chunks[p.c] = ch
}

// remove removes the record with the given ID and returns it, nil when
// there is none.
func (l *pel) remove(id ID) *Pending {
	p := l.seek(id)
	r := l.at(p)
	if r == nil || r.id != id {
		return nil
	}
	l.n--
	ch := l.chunks[p.c]
	switch {
	case len(ch) == 1 && p.c == 0:
		l.chunks[0] = nil
		l.chunks = l.chunks[1:]
	case len(ch) == 1:
		l.chunks = slices.Delete(l.chunks, p.c, p.c+1)
	case p.i == 0:
		ch[0] = nil
		l.chunks[p.c] = ch[1:]
	default:
		l.chunks[p.c] = slices.Delete(ch, p.i, p.i+1)
	}
	return r
}

// first and last return the records with the smallest and greatest IDs,
// nil when the list is empty.
func (l *pel) first() *Pending {
	if len(l.chunks) == 0 {
		return nil
	}
	return l.chunks[0][0]
}

func (l *pel) last() *Pending {
	if len(l.chunks) == 0 {
		return nil
	}
	ch := l.chunks[len(l.chunks)-1]
	return ch[len(ch)-1]
}

// each calls fn for the records with ID >= from, in order, until it
// returns false. fn may remove the record it is given, nothing else.
func (l *pel) each(from ID, fn func(*Pending) bool) {
	for p := l.seek(from); ; {
		r := l.at(p)
		if r == nil || !fn(r) {
			return
		}
		// The record may be gone: find the next one by ID.
		if p = l.seek(r.id); l.at(p) == r {
			p = l.next(p)
		}
	}
}
