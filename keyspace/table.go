package keyspace

import "sync/atomic"

// table is an open-addressing hash table (linear probing) from key to
// *Entry, one per shard. It replaces a Go map to spend fewer cache misses
// per lookup: a slot holds the key's 64-bit hash next to the entry
// pointer, and a short key is stored inside the entry, so a hit reads the
// slot and the entry and nothing else (a map[string]*Entry also reads the
// key's bytes from a separate allocation).
//
// The caller computes the hash (the keyspace already has it from choosing
// the shard) and holds the shard's mutex, except for home, which only
// reads, atomically, without locks: the slot array is published through
// pub and entry pointers are atomic (plain moves on amd64).
type table struct {
	slots []slot // power-of-two length, or nil when empty
	n     int    // live entries
	used  int    // live entries plus tombstones
	pub   atomic.Pointer[[]slot]
}

// A slot is empty (e == nil, h == 0), a tombstone (e == nil, h == 1) or
// live (e != nil, h = the key's hash).
type slot struct {
	h uint64
	e atomic.Pointer[Entry]
}

const minSlots = 8

func (t *table) len() int { return t.n }

// reset empties t.
func (t *table) reset() {
	t.slots, t.n, t.used = nil, 0, 0
	t.pub.Store(nil)
}

// swap exchanges the contents of t and o.
func (t *table) swap(o *table) {
	t.slots, o.slots = o.slots, t.slots
	t.n, o.n = o.n, t.n
	t.used, o.used = o.used, t.used
	p := t.pub.Load()
	t.pub.Store(o.pub.Load())
	o.pub.Store(p)
}

// get returns the entry for key, or nil.
func (t *table) get(h uint64, key []byte) *Entry {
	if t.n == 0 {
		return nil
	}
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		e := s.e.Load()
		if e == nil {
			if s.h == 0 {
				return nil
			}
			continue
		}
		if s.h == h && e.key == string(key) {
			return e
		}
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
	slots := *p
	return slots[h&uint64(len(slots)-1)].e.Load()
}

// put stores e (whose key field is set) under hash h, replacing and
// returning the entry with the same key, if any.
func (t *table) put(h uint64, e *Entry) (old *Entry) {
	if (t.used+1)*4 > len(t.slots)*3 {
		t.resize(max(minSlots, t.n*2))
	}
	mask := uint64(len(t.slots) - 1)
	free := -1
	for i := h & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		se := s.e.Load()
		if se == nil {
			if free < 0 {
				free = int(i)
			}
			if s.h == 0 {
				break
			}
			continue
		}
		if s.h == h && se.key == e.key {
			s.e.Store(e)
			return se
		}
	}
	s := &t.slots[free]
	if s.h == 0 {
		t.used++
	}
	s.h = h
	s.e.Store(e)
	t.n++
	return nil
}

// remove deletes e (found by its hash and key) and reports whether it was
// there.
func (t *table) remove(h uint64, e *Entry) bool {
	if t.n == 0 {
		return false
	}
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		se := s.e.Load()
		if se == nil {
			if s.h == 0 {
				return false
			}
			continue
		}
		if se == e {
			s.h = 1
			s.e.Store(nil)
			t.n--
			if t.n == 0 {
				t.reset()
			} else if len(t.slots) > minSlots && t.n*8 < len(t.slots) {
				t.resize(t.n * 2)
			}
			return true
		}
	}
}

// resize rehashes into a table with room for n entries, dropping
// tombstones.
func (t *table) resize(n int) {
	size := minSlots
	for size*3 < n*4 {
		size *= 2
	}
	old := t.slots
	t.slots = make([]slot, size)
	t.used = t.n
	mask := uint64(size - 1)
	for j := range old {
		s := &old[j]
		e := s.e.Load()
		if e == nil {
			continue
		}
		i := s.h & mask
		for t.slots[i].e.Load() != nil {
			i = (i + 1) & mask
		}
		t.slots[i].h = s.h
		t.slots[i].e.Store(e)
	}
	slots := t.slots
	t.pub.Store(&slots)
}

// each calls fn for every entry, with its hash, until fn returns false.
// fn must not modify the table.
func (t *table) each(fn func(h uint64, e *Entry) bool) {
	for i := range t.slots {
		s := &t.slots[i]
		if e := s.e.Load(); e != nil && !fn(s.h, e) {
			return
		}
	}
}

// random returns the entry at or after slot index r (mod the size), or nil
// when the table is empty.
func (t *table) random(r int) *Entry {
	if t.n == 0 {
		return nil
	}
	for i := 0; i < len(t.slots); i++ {
		if e := t.slots[(r+i)&(len(t.slots)-1)].e.Load(); e != nil {
			return e
		}
	}
	return nil
}
