package keyspace

// table is an open-addressing hash table (linear probing) from key to
// *Entry, one per shard. It replaces a Go map to spend fewer cache misses
// per lookup: a slot holds the key's 64-bit hash next to the entry
// pointer, and a short key is stored inside the entry, so a hit reads the
// slot and the entry and nothing else (a map[string]*Entry also reads the
// key's bytes from a separate allocation).
//
// The caller computes the hash (the keyspace already has it from choosing
// the shard) and holds the shard's mutex.
type table struct {
	slots []slot // power-of-two length, or nil when empty
	n     int    // live entries
	used  int    // live entries plus tombstones
}

// A slot is empty (e == nil, h == 0), a tombstone (e == nil, h == 1) or
// live (e != nil, h = the key's hash).
type slot struct {
	h uint64
	e *Entry
}

const minSlots = 8

func (t *table) len() int { return t.n }

// get returns the entry for key, or nil.
func (t *table) get(h uint64, key []byte) *Entry {
	if t.n == 0 {
		return nil
	}
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.e == nil {
			if s.h == 0 {
				return nil
			}
			continue
		}
		if s.h == h && s.e.key == string(key) {
			return s.e
		}
	}
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
		if s.e == nil {
			if free < 0 {
				free = int(i)
			}
			if s.h == 0 {
				break
			}
			continue
		}
		if s.h == h && s.e.key == e.key {
			old, s.e = s.e, e
			return old
		}
	}
	s := &t.slots[free]
	if s.h == 0 {
		t.used++
	}
	s.h, s.e = h, e
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
		if s.e == nil {
			if s.h == 0 {
				return false
			}
			continue
		}
		if s.e == e {
			s.h, s.e = 1, nil
			t.n--
			if t.n == 0 {
				*t = table{}
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
	for _, s := range old {
		if s.e == nil {
			continue
		}
		i := s.h & mask
		for t.slots[i].e != nil {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
}

// each calls fn for every entry, with its hash, until fn returns false.
// fn must not modify the table.
func (t *table) each(fn func(h uint64, e *Entry) bool) {
	for _, s := range t.slots {
		if s.e != nil && !fn(s.h, s.e) {
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
		if e := t.slots[(r+i)&(len(t.slots)-1)].e; e != nil {
			return e
		}
	}
	return nil
}
