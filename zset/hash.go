package zset

import (
	"hash/maphash"
	"math/bits"
)

// node is one element of a big sorted set. The hash table chains nodes
// through next; the B+tree points at them in (score, member) order.
type node struct {
	member string
	score  float64
	next   *node // hash chain
}

// seed is fixed for the process lifetime so that ZSCAN cursors stay
// meaningful between calls.
var seed = maphash.MakeSeed()

func hashString(s string) uint64 { return maphash.String(seed, s) }

const minBuckets = 4

// htable maps members to nodes: separate chaining over a power-of-two
// bucket array, grown and shrunk by incremental rehashing as Redis's dict
// does (a few buckets move on each operation), so that no single command
// pays for moving a million elements. While rehashing, t[0] is the old
// table and t[1] the new one; buckets of t[0] below rehashIdx are empty.
type htable struct {
	t         [2][]*node
	rehashIdx int // -1 when not rehashing
	n         int
}

func newHTable(hint int) htable {
	size := minBuckets
	for size < hint {
		size <<= 1
	}
	return htable{t: [2][]*node{make([]*node, size)}, rehashIdx: -1}
}

func (h *htable) rehashing() bool { return h.rehashIdx >= 0 }

// buckets returns the number of bucket slots allocated (for MemSize).
func (h *htable) buckets() int { return len(h.t[0]) + len(h.t[1]) }

// get returns the node for member, or nil.
func (h *htable) get(member string) *node {
	hv := hashString(member)
	for i := 0; i < 2; i++ {
		t := h.t[i]
		if len(t) == 0 {
			break
		}
		for n := t[hv&uint64(len(t)-1)]; n != nil; n = n.next {
			if n.member == member {
				return n
			}
		}
		if !h.rehashing() {
			break
		}
	}
	return nil
}

// getBytes is get for a []byte member, without allocating.
func (h *htable) getBytes(member []byte) *node {
	hv := maphash.Bytes(seed, member)
	for i := 0; i < 2; i++ {
		t := h.t[i]
		if len(t) == 0 {
			break
		}
		for n := t[hv&uint64(len(t)-1)]; n != nil; n = n.next {
			if n.member == string(member) {
				return n
			}
		}
		if !h.rehashing() {
			break
		}
	}
	return nil
}

// insert adds n, whose member must not be present.
func (h *htable) insert(n *node) {
	h.step()
	t := h.t[0]
	if h.rehashing() {
		t = h.t[1]
	}
	i := hashString(n.member) & uint64(len(t)-1)
	n.next = t[i]
	t[i] = n
	h.n++
	h.maybeResize()
}

// remove unlinks the node holding member and returns it (nil if absent).
func (h *htable) remove(member string) *node {
	h.step()
	hv := hashString(member)
	for i := 0; i < 2; i++ {
		t := h.t[i]
		if len(t) == 0 {
			break
		}
		p := &t[hv&uint64(len(t)-1)]
		for n := *p; n != nil; p, n = &n.next, n.next {
			if n.member == member {
				*p = n.next
				n.next = nil
				h.n--
				h.maybeResize()
				return n
			}
		}
		if !h.rehashing() {
			break
		}
	}
	return nil
}

// maybeResize starts a rehash when the load factor leaves [1/8, 1].
func (h *htable) maybeResize() {
	if h.rehashing() {
		return
	}
	size := len(h.t[0])
	switch {
	case h.n >= size:
		h.startRehash(size * 2)
	case size > minBuckets && h.n*8 < size:
		target := minBuckets
		for target < h.n {
			target <<= 1
		}
		h.startRehash(target)
	}
}

func (h *htable) startRehash(size int) {
	h.t[1] = make([]*node, size)
	h.rehashIdx = 0
}

// step moves one bucket (visiting at most 10 empty ones) from the old
// table to the new one, finishing the rehash when the old one is empty.
func (h *htable) step() {
	if !h.rehashing() {
		return
	}
	old, nt := h.t[0], h.t[1]
	mask := uint64(len(nt) - 1)
	empty := 10
	for h.rehashIdx < len(old) && old[h.rehashIdx] == nil {
		h.rehashIdx++
		if empty--; empty == 0 {
			break
		}
	}
	if h.rehashIdx < len(old) && old[h.rehashIdx] != nil {
		for n := old[h.rehashIdx]; n != nil; {
			next := n.next
			i := hashString(n.member) & mask
			n.next = nt[i]
			nt[i] = n
			n = next
		}
		old[h.rehashIdx] = nil
		h.rehashIdx++
	}
	if h.rehashIdx >= len(old) {
		h.t[0], h.t[1] = nt, nil
		h.rehashIdx = -1
	}
}

// scan visits the nodes of the buckets the cursor designates and returns
// the next cursor (0 when the iteration is complete). It is Redis's
// dictScan: cursors advance by reverse-binary increment, so that every
// node present for the whole iteration is visited at least once even if
// the table grows, shrinks or is rehashing between calls.
func (h *htable) scan(v uint64, fn func(n *node)) uint64 {
	if h.n == 0 {
		return 0
	}
	emit := func(t []*node, i uint64) {
		for n := t[i]; n != nil; n = n.next {
			fn(n)
		}
	}
	if !h.rehashing() {
		m0 := uint64(len(h.t[0]) - 1)
		emit(h.t[0], v&m0)
		v |= ^m0
		v = bits.Reverse64(v)
		v++
		return bits.Reverse64(v)
	}
	small, large := h.t[0], h.t[1]
	if len(small) > len(large) {
		small, large = large, small
	}
	m0, m1 := uint64(len(small)-1), uint64(len(large)-1)
	emit(small, v&m0)
	for {
		emit(large, v&m1)
		v |= ^m1
		v = bits.Reverse64(v)
		v++
		v = bits.Reverse64(v)
		if v&(m0^m1) == 0 {
			break
		}
	}
	return v
}
