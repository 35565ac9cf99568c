package set

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"math/bits"
)

// table is the hashtable encoding: a chained hash table whose entries are
// indexes into one dense slice, with every member's bytes in one arena.
// It holds no Go pointers besides its three slices, so the garbage
// collector never scans it, and a member costs its bytes, a length byte or
// two, a 16-byte entry and 4 to 8 bytes of bucket.
//
//   - buckets: power-of-two length; each holds 1 + the index of the first
//     entry of its chain, 0 when empty.
//   - ents: dense (removal moves the last entry into the hole), so a
//     uniformly random member is ents[rand(n)], and index i is a stable
//     name for a member until the next change.
//   - arena: each member as a uvarint length followed by its bytes. Removed
//     members leave garbage, reclaimed by compaction once it is half the
//     arena.
//
// Chains are walked by bucket = hash & mask, and SCAN visits buckets in
// Redis's reverse-binary cursor order, so its guarantee (a member present
// for a whole iteration is returned at least once) holds across resizes.
type table struct {
	buckets []uint32
	ents    []entry
	arena   []byte
	garbage int
}

type entry struct {
	off  uint64 // position of the member's length prefix in arena
	hash uint32
	next uint32 // 1 + index of the next entry in the chain, 0 at the end
}

const minBuckets = 4

var seed = maphash.MakeSeed()

func hash32(b []byte) uint32 {
	h := maphash.Bytes(seed, b)
	return uint32(h ^ h>>32)
}

func newTable(hint int) *table {
	n := minBuckets
	for n < hint {
		n <<= 1
	}
	return &table{
		buckets: make([]uint32, n),
		ents:    make([]entry, 0, hint),
	}
}

func (t *table) len() int { return len(t.ents) }

// member returns the bytes of entry i, aliasing the arena.
func (t *table) member(i int) []byte {
	off := t.ents[i].off
	n, k := binary.Uvarint(t.arena[off:])
	start := off + uint64(k)
	return t.arena[start : start+n : start+n]
}

func (t *table) mask() uint32 { return uint32(len(t.buckets) - 1) }

// find returns the index of m, or -1.
func (t *table) find(m []byte) int {
	h := hash32(m)
	for i := t.buckets[h&t.mask()]; i != 0; {
		e := &t.ents[i-1]
		if e.hash == h && bytes.Equal(t.member(int(i-1)), m) {
			return int(i - 1)
		}
		i = e.next
	}
	return -1
}

// add inserts m (copied) and reports whether it was absent.
func (t *table) add(m []byte) bool {
	h := hash32(m)
	for i := t.buckets[h&t.mask()]; i != 0; {
		e := &t.ents[i-1]
		if e.hash == h && bytes.Equal(t.member(int(i-1)), m) {
			return false
		}
		i = e.next
	}
	t.insert(m, h)
	return true
}

// insert appends m, known to be absent, with hash h.
func (t *table) insert(m []byte, h uint32) {
	if len(t.ents) >= len(t.buckets) {
		t.rehash(len(t.buckets) * 2)
	}
	off := uint64(len(t.arena))
	t.arena = binary.AppendUvarint(t.arena, uint64(len(m)))
	t.arena = append(t.arena, m...)
	b := &t.buckets[h&t.mask()]
	t.ents = append(t.ents, entry{off: off, hash: h, next: *b})
	*b = uint32(len(t.ents))
}

// rehash rebuilds the chains over n buckets (a power of two).
func (t *table) rehash(n int) {
	if n < minBuckets {
		n = minBuckets
	}
	if n == len(t.buckets) {
		clear(t.buckets)
	} else {
		t.buckets = make([]uint32, n)
	}
	mask := t.mask()
	for i := range t.ents {
		e := &t.ents[i]
		b := &t.buckets[e.hash&mask]
		e.next = *b
		*b = uint32(i + 1)
	}
}

// remove deletes m and reports whether it was present.
func (t *table) remove(m []byte) bool {
	i := t.find(m)
	if i < 0 {
		return false
	}
	t.removeAt(i)
	return true
}

// unlink removes entry i from its chain.
func (t *table) unlink(i int) {
	e := &t.ents[i]
	p := &t.buckets[e.hash&t.mask()]
	for *p != uint32(i+1) {
		p = &t.ents[*p-1].next
	}
	*p = e.next
}

// removeAt deletes entry i, moving the last entry into its place.
func (t *table) removeAt(i int) {
	t.unlink(i)
	off := t.ents[i].off
	n, k := binary.Uvarint(t.arena[off:])
	t.garbage += k + int(n)
	last := len(t.ents) - 1
	if i != last {
		// Point whatever referred to the last entry at slot i.
		le := &t.ents[last]
		p := &t.buckets[le.hash&t.mask()]
		for *p != uint32(last+1) {
			p = &t.ents[*p-1].next
		}
		*p = uint32(i + 1)
		t.ents[i] = *le
	}
	t.ents = t.ents[:last]
	t.shrink()
}

// shrink gives memory back after removals: fewer buckets once the table
// is under a tenth full (as Redis's htNeedsResize), a smaller entry slice,
// and a compacted arena once half of it is garbage.
func (t *table) shrink() {
	n := len(t.ents)
	if len(t.buckets) > minBuckets && n*10 < len(t.buckets) {
		size := minBuckets
		for size < n {
			size <<= 1
		}
		t.rehash(size)
		if cap(t.ents) > 2*n+8 {
			ents := make([]entry, n, n+n/4+1)
			copy(ents, t.ents)
			t.ents = ents
		}
	}
	if t.garbage > 64 && t.garbage*2 > len(t.arena) {
		t.compact()
	}
}

// compact rewrites the arena without garbage.
func (t *table) compact() {
	live := len(t.arena) - t.garbage
	arena := make([]byte, 0, live+live/8)
	for i := range t.ents {
		m := t.member(i)
		off := uint64(len(arena))
		arena = binary.AppendUvarint(arena, uint64(len(m)))
		arena = append(arena, m...)
		t.ents[i].off = off
	}
	t.arena = arena
	t.garbage = 0
}

// scan visits the chain of the bucket cursor names and returns the next
// cursor (0 when the iteration is complete), as Redis's dictScan does for
// a table that is not being rehashed.
func (t *table) scan(cursor uint64, fn func(m []byte)) uint64 {
	mask := uint64(t.mask())
	for i := t.buckets[cursor&mask]; i != 0; i = t.ents[i-1].next {
		fn(t.member(int(i - 1)))
	}
	cursor |= ^mask
	cursor = bits.Reverse64(cursor)
	cursor++
	return bits.Reverse64(cursor)
}

func (t *table) clone() *table {
	d := &table{
		buckets: append([]uint32(nil), t.buckets...),
		ents:    append([]entry(nil), t.ents...),
	}
	if t.garbage > 0 {
		d.arena = make([]byte, 0, len(t.arena)-t.garbage)
		for i := range d.ents {
			m := t.member(i)
			d.ents[i].off = uint64(len(d.arena))
			d.arena = binary.AppendUvarint(d.arena, uint64(len(m)))
			d.arena = append(d.arena, m...)
		}
	} else {
		d.arena = append([]byte(nil), t.arena...)
	}
	return d
}

const tableOverhead = 3*24 + 8

func (t *table) memSize() int64 {
	return tableOverhead + int64(cap(t.buckets))*4 + int64(cap(t.ents))*16 + int64(cap(t.arena))
}
