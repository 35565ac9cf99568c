// Package set is the data structure behind HotKV's set type: Redis 7.0's
// two encodings, an intset (a sorted array of integers at the narrowest
// width, for all-integer sets up to set-max-intset-entries members) and a
// hashtable (for everything else), with one-way conversion from the first
// to the second, uniform random sampling, a SCAN cursor with Redis's
// guarantees, and the set algebra of SINTER, SUNION and SDIFF.
//
// The package knows nothing of RESP, locks or configuration: thresholds
// are arguments, and the caller serialises access (the server holds the
// key's lock). Member slices handed out alias the set's memory and are
// valid only until the set next changes.
package set

import (
	"iter"
	"slices"
	"strconv"
	"unsafe"
)

// Set is a set of byte strings. The zero value is an empty intset.
//
// A Set is 16 bytes (the allocator's 16-byte size class): the intset's
// fields, which hold the *table instead when the set is a hashtable (see
// intset for the layout).
type Set struct {
	is intset
}

// ht returns the hashtable, or nil in the intset encoding.
func (s *Set) ht() *table {
	if s.is.enc != encTable {
		return nil
	}
	return (*table)(s.is.p)
}

// setTable puts the set in the hashtable encoding, holding t.
func (s *Set) setTable(t *table) { s.is = intset{p: unsafe.Pointer(t), enc: encTable} }

// New returns an empty set in the intset encoding.
func New() *Set { return &Set{} }

// NewHashtable returns an empty set in the hashtable encoding, sized for
// hint members.
func NewHashtable(hint int) *Set {
	s := &Set{}
	s.setTable(newTable(hint))
	return s
}

// NewFor returns an empty set that can hold first in its most compact
// encoding, as Redis's setTypeCreate: an intset when first is an integer.
func NewFor(first []byte) *Set {
	if _, ok := ParseInt(first); ok {
		return New()
	}
	return NewHashtable(0)
}

// ParseInt is Redis's string2ll as isSdsRepresentableAsLongLong uses it:
// a member is an integer when it is the canonical decimal form of an int64
// (no sign but '-', no leading zeros, no "-0", no spaces).
func ParseInt(b []byte) (int64, bool) {
	n := len(b)
	if n == 0 || n > 20 {
		return 0, false
	}
	if n == 1 && b[0] == '0' {
		return 0, true
	}
	i, neg := 0, false
	if b[0] == '-' {
		neg, i = true, 1
		if n == 1 {
			return 0, false
		}
	}
	if b[i] < '1' || b[i] > '9' {
		return 0, false
	}
	var v uint64
	for ; i < n; i++ {
		d := b[i] - '0'
		if d > 9 {
			return 0, false
		}
		if v > (1<<64-1)/10 {
			return 0, false
		}
		v *= 10
		if v > 1<<64-1-uint64(d) {
			return 0, false
		}
		v += uint64(d)
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return -int64(v), true
	}
	if v > 1<<63-1 {
		return 0, false
	}
	return int64(v), true
}

// Len returns the number of members.
func (s *Set) Len() int {
	if s.ht() != nil {
		return s.ht().len()
	}
	return s.is.len()
}

// IsIntset reports whether the set is in the intset encoding.
func (s *Set) IsIntset() bool { return s.ht() == nil }

// Encoding names the encoding as OBJECT ENCODING reports it.
func (s *Set) Encoding() string {
	if s.ht() != nil {
		return "hashtable"
	}
	return "intset"
}

// maxIntsetCap is the cap Redis 7.0 puts on set-max-intset-entries.
const maxIntsetCap = 1 << 30

// Add inserts m and reports whether it was absent. An intset converts to
// a hashtable when m is not an integer or when it would hold more than
// maxIntset members, as Redis's setTypeAdd does.
func (s *Set) Add(m []byte, maxIntset int) bool {
	if s.ht() != nil {
		return s.ht().add(m)
	}
	v, ok := ParseInt(m)
	if !ok {
		s.convert(1)
		s.ht().insert(m, hash32(m))
		return true
	}
	return s.addInt(v, maxIntset)
}

// addInt adds v to an intset, converting it past maxIntset members.
func (s *Set) addInt(v int64, maxIntset int) bool {
	if !s.is.add(v) {
		return false
	}
	if maxIntset > maxIntsetCap {
		maxIntset = maxIntsetCap
	}
	if s.is.len() > maxIntset {
		s.convert(0)
	}
	return true
}

// convert turns an intset into a hashtable sized for extra more members.
func (s *Set) convert(extra int) {
	n := s.is.len()
	t := newTable(n + extra)
	var buf [20]byte
	for i := 0; i < n; i++ {
		b := strconv.AppendInt(buf[:0], s.is.get(i), 10)
		t.insert(b, hash32(b))
	}
	s.setTable(t)
}

// Remove deletes m and reports whether it was present.
func (s *Set) Remove(m []byte) bool {
	if s.ht() != nil {
		return s.ht().remove(m)
	}
	v, ok := ParseInt(m)
	return ok && s.is.remove(v)
}

// Contains reports whether m is a member.
func (s *Set) Contains(m []byte) bool {
	if s.ht() != nil {
		return s.ht().find(m) >= 0
	}
	v, ok := ParseInt(m)
	return ok && s.is.contains(v)
}

// containsInt reports whether the integer v (as its decimal form) is a
// member.
func (s *Set) containsInt(v int64) bool {
	if s.ht() == nil {
		return s.is.contains(v)
	}
	var buf [20]byte
	return s.ht().find(strconv.AppendInt(buf[:0], v, 10)) >= 0
}

// At returns the member at index i (0 <= i < Len()): the i-th smallest
// for an intset, an arbitrary but fixed member for a hashtable until the
// set changes. An intset member is formatted into buf; a hashtable member
// aliases the set.
func (s *Set) At(i int, buf []byte) []byte {
	if s.ht() != nil {
		return s.ht().member(i)
	}
	return strconv.AppendInt(buf[:0], s.is.get(i), 10)
}

// RemoveAt deletes the member at index i (see At). Other members may
// change index.
func (s *Set) RemoveAt(i int) {
	if s.ht() != nil {
		s.ht().removeAt(i)
		return
	}
	s.is.removeAt(i)
}

// Random returns a uniformly random member of a non-empty set; rnd(n)
// returns a random int in [0, n). See At for buf and aliasing.
func (s *Set) Random(rnd func(n int) int, buf []byte) []byte {
	return s.At(rnd(s.Len()), buf)
}

// Sample calls fn with k distinct members chosen uniformly at random
// (0 < k < Len()), in random order. fn's argument is valid only during
// the call.
func (s *Set) Sample(k int, rnd func(n int) int, fn func(m []byte)) {
	n := s.Len()
	var buf [20]byte
	if k*3 > n {
		// A partial Fisher-Yates shuffle of the indexes.
		idx := make([]int32, n)
		for i := range idx {
			idx[i] = int32(i)
		}
		for i := 0; i < k; i++ {
			j := i + rnd(n-i)
			idx[i], idx[j] = idx[j], idx[i]
			fn(s.At(int(idx[i]), buf[:0]))
		}
		return
	}
	// Floyd's algorithm: k distinct indexes in k steps.
	seen := make(map[int]struct{}, k)
	for j := n - k; j < n; j++ {
		t := rnd(j + 1)
		if _, dup := seen[t]; dup {
			t = j
		}
		seen[t] = struct{}{}
		fn(s.At(t, buf[:0]))
	}
}

// All iterates over the members: ascending for an intset, in storage
// order for a hashtable. Each member is valid only during its step, and
// the set must not change meanwhile.
func (s *Set) All() iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		var buf [20]byte
		for i, n := 0, s.Len(); i < n; i++ {
			if !yield(s.At(i, buf[:0])) {
				return
			}
		}
	}
}

// Scan is SSCAN's iteration step, Redis's scanGenericCommand for sets: an
// intset returns every member and cursor 0; a hashtable visits buckets
// from cursor until count members were found, the iteration ended, or
// 10*count buckets were visited, and returns the next cursor (0 at the
// end). A member present for a whole iteration is returned at least once.
func (s *Set) Scan(cursor uint64, count int, fn func(m []byte)) uint64 {
	if s.ht() == nil {
		var buf [20]byte
		for i := 0; i < s.is.len(); i++ {
			fn(s.At(i, buf[:0]))
		}
		return 0
	}
	if count < 1 {
		count = 1
	}
	maxIter := count * 10
	if maxIter/10 != count {
		maxIter = int(^uint(0) >> 1)
	}
	found := 0
	for {
		cursor = s.ht().scan(cursor, func(m []byte) {
			found++
			fn(m)
		})
		if cursor == 0 || maxIter == 0 || found >= count {
			return cursor
		}
		maxIter--
	}
}

// Clone returns a deep copy in the same encoding (for COPY).
func (s *Set) Clone() any {
	d := &Set{}
	if t := s.ht(); t != nil {
		d.setTable(t.clone())
	} else {
		d.is = s.is.clone()
	}
	return d
}

// setOverhead is the Set itself: 16 bytes.
const setOverhead = 16

// MemSize estimates the bytes the set occupies.
func (s *Set) MemSize() int64 {
	if s.ht() != nil {
		return setOverhead + s.ht().memSize()
	}
	return setOverhead + s.is.memSize()
}

// The set algebra follows Redis 7.0's sinterGenericCommand and
// sunionDiffGenericCommand step by step, because the order of a reply and
// the encoding of a stored result depend on it: a result built from
// scratch starts as an intset, so it replies in ascending order when it
// stays one.

// bySize returns sets (all non-nil) sorted by ascending size, stably.
func bySize(sets []*Set) []*Set {
	sorted := slices.Clone(sets)
	slices.SortStableFunc(sorted, func(a, b *Set) int { return a.Len() - b.Len() })
	return sorted
}

// inAll reports whether member i of sets[0] belongs to every other set.
func inAll(sets []*Set, i int) bool {
	first := sets[0]
	if first.ht() == nil {
		v := first.is.get(i)
		for _, o := range sets[1:] {
			if o != first && !o.containsInt(v) {
				return false
			}
		}
		return true
	}
	m := first.ht().member(i)
	for _, o := range sets[1:] {
		if o != first && !o.Contains(m) {
			return false
		}
	}
	return true
}

// Inter calls fn with each member of the intersection of sets (all
// non-nil, at least one), in the order of the smallest set (the first of
// the smallest, ascending for an intset), until fn returns false. The
// member is valid only during the call.
func Inter(sets []*Set, fn func(m []byte) bool) {
	sorted := bySize(sets)
	first := sorted[0]
	var buf [20]byte
	for i, n := 0, first.Len(); i < n; i++ {
		if inAll(sorted, i) && !fn(first.At(i, buf[:0])) {
			return
		}
	}
}

// InterCard returns the size of the intersection of sets, counting no
// further than limit when limit > 0 (SINTERCARD).
func InterCard(sets []*Set, limit int) int {
	card := 0
	Inter(sets, func([]byte) bool {
		card++
		return limit <= 0 || card < limit
	})
	return card
}

// InterStore returns the intersection of sets as a new set, built as
// SINTERSTORE builds it.
func InterStore(sets []*Set, maxIntset int) *Set {
	dst := New()
	Inter(sets, func(m []byte) bool {
		dst.Add(m, maxIntset)
		return true
	})
	return dst
}

// addAll adds every member of src to dst and returns how many were new.
func addAll(dst, src *Set, maxIntset int) int {
	added := 0
	if src.ht() == nil {
		for i := 0; i < src.is.len(); i++ {
			v := src.is.get(i)
			var ok bool
			if dst.ht() == nil {
				ok = dst.addInt(v, maxIntset)
			} else {
				var buf [20]byte
				ok = dst.ht().add(strconv.AppendInt(buf[:0], v, 10))
			}
			if ok {
				added++
			}
		}
		return added
	}
	for i := 0; i < src.ht().len(); i++ {
		if dst.Add(src.ht().member(i), maxIntset) {
			added++
		}
	}
	return added
}

// Union returns the union of sets (nil ones are empty) as a new set.
func Union(sets []*Set, maxIntset int) *Set {
	dst := New()
	for _, s := range sets {
		if s != nil {
			addAll(dst, s, maxIntset)
		}
	}
	return dst
}

// Diff returns the members of sets[0] that are in none of the others (nil
// sets are empty) as a new set, choosing between Redis's two algorithms
// as Redis does.
func Diff(sets []*Set, maxIntset int) *Set {
	dst := New()
	first := sets[0]
	if first == nil {
		return dst
	}
	for _, s := range sets[1:] {
		if s == first {
			return dst // the same key again: the difference is empty
		}
	}
	work1, work2 := 0, 0
	for _, s := range sets {
		if s != nil {
			work1 += first.Len()
			work2 += s.Len()
		}
	}
	if work1/2 <= work2 {
		// Algorithm 1: test each member of the first set against the
		// others, largest first.
		others := slices.Clone(sets[1:])
		slices.SortStableFunc(others, func(a, b *Set) int { return size(b) - size(a) })
		var buf [20]byte
	next:
		for i, n := 0, first.Len(); i < n; i++ {
			m := first.At(i, buf[:0])
			for _, o := range others {
				if o != nil && o.Contains(m) {
					continue next
				}
			}
			dst.Add(m, maxIntset)
		}
		return dst
	}
	// Algorithm 2: add the first set, remove the others.
	card := addAll(dst, first, maxIntset)
	for _, s := range sets[1:] {
		if card == 0 {
			break
		}
		if s == nil {
			continue
		}
		var buf [20]byte
		for i, n := 0, s.Len(); i < n; i++ {
			if dst.Remove(s.At(i, buf[:0])) {
				card--
			}
		}
	}
	return dst
}

func size(s *Set) int {
	if s == nil {
		return 0
	}
	return s.Len()
}
