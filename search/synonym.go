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
		ix.syn = &synMap{d: synDict{rehashIdx: -1}}
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
			s.d.add(t, e)
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
	for t := range 2 {
		for _, e := range s.d.ht[t].table {
			for ; e != nil; e = e.next {
				g := make([]string, len(e.val.groups))
				for i, id := range e.val.groups {
					g[i] = id[1:]
				}
				out = append(out, SynEntry{Term: e.val.term, Groups: g})
			}
		}
		if s.d.rehashIdx == -1 {
			break
		}
	}
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
		return e.val.groups
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

// synDict is a chained hash table with incremental rehashing (Redis's
// dict's observable behaviour: power-of-two tables from 4, doubled when
// full, one bucket moved per lookup or insertion while rehashing), kept
// for the order FT.SYNDUMP lists its entries in.
type synDict struct {
	ht        [2]synTable
	rehashIdx int
}

type synTable struct {
	table []*synEntry
	used  int
}

type synEntry struct {
	key  string
	val  *synTerm
	next *synEntry
}

func (d *synDict) rehashing() bool { return d.rehashIdx != -1 }

func (d *synDict) rehash(n int) {
	empty := n * 10
	if !d.rehashing() {
		return
	}
	for ; n > 0 && d.ht[0].used != 0; n-- {
		for d.ht[0].table[d.rehashIdx] == nil {
			d.rehashIdx++
			if empty--; empty == 0 {
				return
			}
		}
		for de := d.ht[0].table[d.rehashIdx]; de != nil; {
			next := de.next
			h := sipHash12([]byte(de.key)) & uint64(len(d.ht[1].table)-1)
			de.next = d.ht[1].table[h]
			d.ht[1].table[h] = de
			d.ht[0].used--
			d.ht[1].used++
			de = next
		}
		d.ht[0].table[d.rehashIdx] = nil
		d.rehashIdx++
	}
	if d.ht[0].used == 0 {
		d.ht[0], d.ht[1] = d.ht[1], synTable{}
		d.rehashIdx = -1
	}
}

// find is a lookup that first moves one bucket of a rehash under way.
func (d *synDict) find(key string) *synTerm {
	if d.ht[0].used+d.ht[1].used == 0 {
		return nil
	}
	if d.rehashing() {
		d.rehash(1)
	}
	if e := d.lookup(key); e != nil {
		return e.val
	}
	return nil
}

// lookup finds key without a rehash step.
func (d *synDict) lookup(key string) *synEntry {
	if d.ht[0].used+d.ht[1].used == 0 {
		return nil
	}
	h := sipHash12([]byte(key))
	for t := range 2 {
		tb := d.ht[t].table
		for e := tb[h&uint64(len(tb)-1)]; e != nil; e = e.next {
			if e.key == key {
				return e
			}
		}
		if !d.rehashing() {
			break
		}
	}
	return nil
}

// add is dictAdd of a key that is not there.
func (d *synDict) add(key string, v *synTerm) {
	if d.rehashing() {
		d.rehash(1)
	}
	// Grow when full (the first table has 4 buckets).
	if !d.rehashing() {
		if len(d.ht[0].table) == 0 {
			d.expand(4)
		} else if d.ht[0].used >= len(d.ht[0].table) {
			d.expand(d.ht[0].used * 2)
		}
	}
	t := &d.ht[0]
	if d.rehashing() {
		t = &d.ht[1]
	}
	i := sipHash12([]byte(key)) & uint64(len(t.table)-1)
	t.table[i] = &synEntry{key: key, val: v, next: t.table[i]}
	t.used++
}

func (d *synDict) expand(size int) {
	n := 4
	for n < size {
		n *= 2
	}
	if n == len(d.ht[0].table) {
		return
	}
	if d.ht[0].table == nil {
		d.ht[0] = synTable{table: make([]*synEntry, n)}
		return
	}
	d.ht[1] = synTable{table: make([]*synEntry, n)}
	d.rehashIdx = 0
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
