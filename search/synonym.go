package search

import (
	"encoding/binary"
	"math/bits"
	"sync"
)

// Synonyms: FT.SYNUPDATE's groups of an index. A term of a group is
// indexed, besides itself, as the group's id "~id" (at its position, with
// its field's weight, not counted in the document's length), and a query
// term expands to the ids of its groups, as in RediSearch 2.10.
//
// FT.SYNDUMP lists the terms in the order of RediSearch's dictionary, a
// copy of Redis's dict (SipHash-1-2 with a zero key, chaining, tables of
// powers of two grown incrementally): synDict emulates it, down to the
// rehash steps its lookups make (queries look their terms up in it too).

// synTerm is a term and the ids of its groups ("~" and the id), in the
// order they were given.
type synTerm struct {
	term   string
	groups []string
}

// SynEntry is a term of FT.SYNDUMP and its groups' ids.
type SynEntry struct {
	Term   string
	Groups []string
}

// synMap is an index's synonyms, safe for concurrent use (queries step
// the dictionary's rehashing).
type synMap struct {
	mu sync.Mutex
	d  synDict
}

// SynUpdate adds terms (lowercased: ASCII letters only) to the group id.
func (ix *Index) SynUpdate(id string, terms []string) {
	if ix.syn == nil {
		ix.syn = &synMap{}
	}
	s := ix.syn
	s.mu.Lock()
	defer s.mu.Unlock()
	g := "~" + id
	for _, t := range terms {
		t = lowerASCII(t)
		e := s.d.find(t)
		if e == nil {
			e = &synTerm{term: t}
			s.d.add(e)
		}
		if !slicesContains(e.groups, g) {
			e.groups = append(e.groups, g)
		}
	}
}

// SynDump returns the synonyms in RediSearch's order.
func (ix *Index) SynDump() []SynEntry {
	if ix.syn == nil {
		return nil
	}
	s := ix.syn
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []SynEntry
	s.d.each(func(e *synTerm) {
		g := make([]string, len(e.groups))
		for i, id := range e.groups {
			g[i] = id[1:]
		}
		out = append(out, SynEntry{Term: e.term, Groups: g})
	})
	return out
}

// synGroups returns the group ids of word, for indexing (a lookup in
// RediSearch's read-only copy of the map: no rehash step).
func (ix *Index) synGroups(word string) []string {
	if ix.syn == nil {
		return nil
	}
	ix.syn.mu.Lock()
	defer ix.syn.mu.Unlock()
	if e := ix.syn.d.lookup(word); e != nil {
		return e.groups
	}
	return nil
}

// synExpand returns the group ids of a query's word (a lookup in the map
// itself, which steps its rehashing).
func (ix *Index) synExpand(word string) []string {
	if ix.syn == nil {
		return nil
	}
	ix.syn.mu.Lock()
	defer ix.syn.mu.Unlock()
	if e := ix.syn.d.find(word); e != nil {
		return e.groups
	}
	return nil
}

// synDict holds the synonym terms in the order FT.SYNDUMP lists them,
// RediSearch's: that of a chained hash table (Redis's dict, whose order
// is observable) keyed by sipHash12, whose buckets are listed in order,
// each chain newest entry first. It has 4 buckets at first and grows to
// the power of two at least twice its entries when an insertion finds it
// full. Growing is incremental: while it lasts, new entries go to the
// new table, and every insertion or find (a query's expansion too) first
// moves one chain of the old table (its entries, newest first, each to
// the head of its chain in the new table), skipping at most 9 empty
// buckets (after a 10th the step stops). A dump lists the old table then
// the new one.
type synDict struct {
	cur     synTable
	next    synTable // the table being grown into (growing)
	growing bool
	moved   int // cur's buckets before it have been moved to next
}

// synTable is one table: each bucket's chain, oldest entry first.
type synTable struct {
	buckets [][]*synTerm
	n       int
}

func newSynTable(size int) synTable { return synTable{buckets: make([][]*synTerm, size)} }

// put adds t at the head of its chain.
func (t *synTable) put(e *synTerm) {
	h := sipHash12([]byte(e.term)) & uint64(len(t.buckets)-1)
	t.buckets[h] = append(t.buckets[h], e)
	t.n++
}

// get finds key in its chain.
func (t *synTable) get(key string, h uint64) *synTerm {
	chain := t.buckets[h&uint64(len(t.buckets)-1)]
	for i := len(chain) - 1; i >= 0; i-- {
		if chain[i].term == key {
			return chain[i]
		}
	}
	return nil
}

// each calls f on the table's entries in dump order.
func (t *synTable) each(f func(*synTerm)) {
	for _, chain := range t.buckets {
		for i := len(chain) - 1; i >= 0; i-- {
			f(chain[i])
		}
	}
}

// each calls f on every entry in dump order.
func (d *synDict) each(f func(*synTerm)) {
	d.cur.each(f)
	if d.growing {
		d.next.each(f)
	}
}

// step moves one chain while growing (see synDict).
func (d *synDict) step() {
	if !d.growing {
		return
	}
	for skipped := 0; len(d.cur.buckets[d.moved]) == 0; {
		d.moved++
		if skipped++; skipped == 10 {
			return
		}
	}
	chain := d.cur.buckets[d.moved]
	for i := len(chain) - 1; i >= 0; i-- {
		d.next.put(chain[i])
	}
	d.cur.n -= len(chain)
	d.cur.buckets[d.moved] = nil
	d.moved++
	if d.cur.n == 0 {
		d.cur, d.next, d.growing, d.moved = d.next, synTable{}, false, 0
	}
}

// find is a lookup that first steps a growth under way.
func (d *synDict) find(key string) *synTerm {
	if d.cur.n+d.next.n == 0 {
		return nil
	}
	d.step()
	return d.lookup(key)
}

// lookup finds key without a growth step.
func (d *synDict) lookup(key string) *synTerm {
	if d.cur.n+d.next.n == 0 {
		return nil
	}
	h := sipHash12([]byte(key))
	if e := d.cur.get(key, h); e != nil || !d.growing {
		return e
	}
	return d.next.get(key, h)
}

// add inserts e, whose term is not in d.
func (d *synDict) add(e *synTerm) {
	d.step()
	if !d.growing {
		switch {
		case len(d.cur.buckets) == 0:
			d.cur = newSynTable(4)
		case d.cur.n >= len(d.cur.buckets):
			size := 4
			for size < 2*d.cur.n {
				size *= 2
			}
			if size != len(d.cur.buckets) {
				d.next, d.growing, d.moved = newSynTable(size), true, 0
			}
		}
	}
	if d.growing {
		d.next.put(e)
	} else {
		d.cur.put(e)
	}
}

// sipHash12 is Redis's siphash (SipHash-1-2) with a zero key.
func sipHash12(b []byte) uint64 {
	v0 := uint64(0x736f6d6570736575)
	v1 := uint64(0x646f72616e646f6d)
	v2 := uint64(0x6c7967656e657261)
	v3 := uint64(0x7465646279746573)
	round := func() {
		v0 += v1
		v1 = bits.RotateLeft64(v1, 13)
		v1 ^= v0
		v0 = bits.RotateLeft64(v0, 32)
		v2 += v3
		v3 = bits.RotateLeft64(v3, 16)
		v3 ^= v2
		v0 += v3
		v3 = bits.RotateLeft64(v3, 21)
		v3 ^= v0
		v2 += v1
		v1 = bits.RotateLeft64(v1, 17)
		v1 ^= v2
		v2 = bits.RotateLeft64(v2, 32)
	}
	n := len(b) / 8 * 8
	for i := 0; i < n; i += 8 {
		m := binary.LittleEndian.Uint64(b[i:])
		v3 ^= m
		round()
		v0 ^= m
	}
	last := uint64(len(b)&0xff) << 56
	for i, c := range b[n:] {
		last |= uint64(c) << (8 * i)
	}
	v3 ^= last
	round()
	v0 ^= last
	v2 ^= 0xff
	round()
	round()
	return v0 ^ v1 ^ v2 ^ v3
}
