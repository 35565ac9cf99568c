package keyspace

import "sync/atomic"

// table is an open-addressing hash table (linear probing) from key to
// *Entry, one per shard. It replaces a Go map to spend fewer bytes and
// cache misses per key: a slot is 12 bytes, a 32-bit fragment of the
// key's hash (hs) beside the entry pointer (es), so that a probe compares
// fragments and reads an entry only where they match, and a resize
// re-places entries without reading them. Its size is any number of
// slots (a fragment's home slot is found by multiplication, not a mask),
// kept between 53% and 80% full: power-of-two sizes leave many shards
// half empty.
//
// The caller computes the key's 64-bit hash (the keyspace already has it
// from choosing the shard) and holds the shard's mutex, except for home,
// which only reads, atomically, without locks: the pointer array is
// published through pub and entry pointers are atomic (plain moves on
// amd64).
type table struct {
	hs   []uint32                // fragHash of each slot's key; 0: empty, 1: tombstone
	es   []atomic.Pointer[Entry] // the entries (nil in empty slots and tombstones)
	n    atomic.Int64            // live entries: written under the shard's lock, read without it (DB.Len)
	used int                     // live entries plus tombstones
	pub  atomic.Pointer[[]atomic.Pointer[Entry]]
}

const minSlots = 8

// fragBits is where a hash's fragment starts: the 32 bits just below the
// shard index (the top shardBits bits), so that a shard's fragments are
// spread and ordering by (shard, fragment) orders by hash (SCAN).
const fragBits = 64 - shardBits - 32

// fragHash is the fragment of h the table keeps (never 0 or 1).
func fragHash(h uint64) uint32 {
	f := uint32(h >> fragBits)
	if f < 2 {
		f += 2
	}
	return f
}

// homeSlot is the slot where probing for fragment f starts, in a table
// of size slots.
func homeSlot(f uint32, size int) int { return int(uint64(f) * uint64(size) >> 32) }

// nextSlot is the slot probed after i (linear probing wraps around).
func nextSlot(i, size int) int {
	if i++; i == size {
		return 0
	}
	return i
}

func (t *table) len() int { return int(t.n.Load()) }

// reset empties t.
func (t *table) reset() {
	t.hs, t.es, t.used = nil, nil, 0
	t.n.Store(0)
	t.pub.Store(nil)
}

// swap exchanges the contents of t and o.
func (t *table) swap(o *table) {
	t.hs, o.hs = o.hs, t.hs
	t.es, o.es = o.es, t.es
	n := t.n.Load()
	t.n.Store(o.n.Load())
	o.n.Store(n)
	t.used, o.used = o.used, t.used
	p := t.pub.Load()
	t.pub.Store(o.pub.Load())
	o.pub.Store(p)
}

// get returns the entry for key (of hash h), or nil.
func (t *table) get(h uint64, key []byte) *Entry {
	if t.n.Load() == 0 {
		return nil
	}
	f, size := fragHash(h), len(t.hs)
	for i := homeSlot(f, size); ; {
		switch t.hs[i] {
		case 0:
			return nil
		case f:
			if e := t.es[i].Load(); e.Key() == string(key) {
				return e
			}
		}
		i = nextSlot(i, size)
	}
}

// home returns the entry in the slot where a key of hash h would be
// first looked for, which is most often that key's. It takes no lock:
// what it finds may be stale (keyspace.DB.Prefetch only warms with it).
func (t *table) home(h uint64) *Entry {
	p := t.pub.Load()
	if p == nil {
		return nil
	}
	es := *p
	return es[homeSlot(fragHash(h), len(es))].Load()
}

// put stores e under hash h (of e's key), replacing and returning the
// entry with the same key, if any.
func (t *table) put(h uint64, e *Entry) (old *Entry) {
	if (t.used+1)*5 > len(t.hs)*4 {
		t.resize(t.len() + 1)
	}
	f, size := fragHash(h), len(t.hs)
	free := -1
	for i := homeSlot(f, size); ; {
		switch t.hs[i] {
		case 0:
			if free < 0 {
				free = i
			}
			if t.hs[free] == 0 {
				t.used++
			}
			t.hs[free] = f
			t.es[free].Store(e)
			t.n.Add(1)
			return nil
		case 1:
			if free < 0 {
				free = i
			}
		case f:
			if se := t.es[i].Load(); se.Key() == e.Key() {
				t.es[i].Store(e)
				return se
			}
		}
		i = nextSlot(i, size)
	}
}

// remove deletes e (found by its hash h and pointer) and reports whether
// it was there.
func (t *table) remove(h uint64, e *Entry) bool {
	if t.n.Load() == 0 {
		return false
	}
	f, size := fragHash(h), len(t.hs)
	for i := homeSlot(f, size); ; {
		switch t.hs[i] {
		case 0:
			return false
		case f:
			if t.es[i].Load() == e {
				t.hs[i] = 1
				t.es[i].Store(nil)
				n := t.n.Add(-1)
				if n == 0 {
					t.reset()
				} else if len(t.hs) > minSlots && int(n)*8 < len(t.hs) {
					t.resize(int(n))
				}
				return true
			}
		}
		i = nextSlot(i, size)
	}
}

// resize rehashes into a table with room for n entries at 53% load,
// dropping tombstones.
func (t *table) resize(n int) { t.rehash(max(minSlots, n*15/8)) }

// reserve makes room for n more entries without a resize, at about 77%
// load once they are in: a load that knows how many keys come (RESIZEDB)
// rehashes each table once instead of a dozen times.
func (t *table) reserve(n int) {
	if size := (t.len() + n) * 13 / 10; size > len(t.hs) {
		t.rehash(max(minSlots, size))
	}
}

// rehash rehashes into a table of size slots, dropping tombstones.
func (t *table) rehash(size int) {
	hs, es := t.hs, t.es
	t.hs, t.es = make([]uint32, size), make([]atomic.Pointer[Entry], size)
	t.used = t.len()
	for j, f := range hs {
		if f < 2 {
			continue
		}
		i := homeSlot(f, size)
		for t.hs[i] != 0 {
			i = nextSlot(i, size)
		}
		t.hs[i] = f
		t.es[i].Store(es[j].Load())
	}
	es = t.es
	t.pub.Store(&es)
}

// each calls fn for every entry, with its hash fragment, until fn
// returns false. fn must not modify the table.
func (t *table) each(fn func(f uint32, e *Entry) bool) {
	for i, f := range t.hs {
		if f >= 2 && !fn(f, t.es[i].Load()) {
			return
		}
	}
}

// size is the number of slots.
func (t *table) size() int { return len(t.hs) }

// at returns the entry in slot i (0 <= i < size), or nil.
func (t *table) at(i int) *Entry { return t.es[i].Load() }

// random returns the entry at or after slot index r (mod the size), or nil
// when the table is empty.
func (t *table) random(r int) *Entry {
	if t.n.Load() == 0 {
		return nil
	}
	for i := 0; i < len(t.es); i++ {
		if e := t.at((r + i) % len(t.es)); e != nil {
			return e
		}
	}
	return nil
}
