package hash

import (
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"unsafe"
)

// The big form: open addressing with linear probing over two parallel
// arrays. Slot i holds tags[i], the top 32 bits of its field's hash (never
// 0: 0 marks an empty slot), and ptrs[i], the pair. A probe reads the tags
// only, 4 bytes a slot, and looks at a pair only when its tag matches.
//
// A pair is one allocation: uvarint field length, uvarint value length,
// field, value. Keeping the pointer alone in the slot (12 bytes a slot with
// the tag, against 24 for a string header and a length) is the point of the
// unsafe code below: the lengths are read from the allocation itself.
//
// A pair's home slot is the top bits of its tag (tag >> shift), so slot
// order is hash order, and doubling or halving the table keeps that order.
// A scan cursor is therefore a position in tag space that means the same
// thing whatever the table's size: see scan.
type table struct {
	tags  []uint32
	ptrs  []*byte
	shift uint32 // 32 - log2(len(tags))
	n     int
	bytes int64 // estimated bytes of the pair allocations
}

// seed is the per-process hash seed (Redis too seeds its dict hash at
// random at startup).
var seed = maphash.MakeSeed()

// tagOf returns field's tag: the top 32 bits of its hash, never 0.
func tagOf(field []byte) uint32 {
	t := uint32(maphash.Bytes(seed, field) >> 32)
	if t == 0 {
		t = 1
	}
	return t
}

const (
	minBits = 3
	// The table grows past 3/4 full and shrinks below 1/8 full.
	maxLoadNum, maxLoadDen = 3, 4
	minLoadDen             = 8
)

// newTable returns a table sized for n pairs.
func newTable(n int) *table {
	t := &table{}
	t.alloc(bitsFor(n))
	return t
}

// bitsFor returns the log2 of the smallest table that holds n pairs under
// the maximum load.
func bitsFor(n int) uint {
	b := uint(bits.Len(uint(n*maxLoadDen/maxLoadNum + 1)))
	return max(b, minBits)
}

func (t *table) alloc(b uint) {
	t.tags = make([]uint32, 1<<b)
	t.ptrs = make([]*byte, 1<<b)
	t.shift = uint32(32 - b)
}

func (t *table) mask() int { return len(t.tags) - 1 }

// home returns the home slot of tag.
func (t *table) home(tag uint32) int { return int(tag >> t.shift) }

// newPair allocates a pair.
func newPair(field, value []byte) *byte {
	var hdr [2 * binary.MaxVarintLen64]byte
	k := binary.PutUvarint(hdr[:], uint64(len(field)))
	k += binary.PutUvarint(hdr[k:], uint64(len(value)))
	b := make([]byte, k+len(field)+len(value))
	copy(b, hdr[:k])
	copy(b[k:], field)
	copy(b[k+len(field):], value)
	return &b[0]
}

// uvarintAt decodes the uvarint at byte i of the allocation p, reading
// only the bytes that belong to it.
func uvarintAt(p *byte, i int) (int, int) {
	var x uint64
	var s uint
	for {
		c := *(*byte)(unsafe.Add(unsafe.Pointer(p), i))
		i++
		if c < 0x80 {
			return int(x | uint64(c)<<s), i
		}
		x |= uint64(c&0x7f) << s
		s += 7
	}
}

// pairOf decodes the pair p; the slices alias it.
func pairOf(p *byte) (field, value []byte) {
	flen, i := uvarintAt(p, 0)
	vlen, i := uvarintAt(p, i)
	b := unsafe.Slice(p, i+flen+vlen)
	return b[i : i+flen : i+flen], b[i+flen:]
}

// pairSize returns the bytes of the pair p's allocation.
func pairSize(p *byte) int {
	flen, i := uvarintAt(p, 0)
	vlen, i := uvarintAt(p, i)
	return i + flen + vlen
}

// allocSize estimates what the allocator hands out for n bytes (Go's size
// classes step by 8 or 16 bytes up to 256, then by about an eighth).
func allocSize(n int) int64 {
	switch {
	case n <= 8:
		return 8
	case n <= 256:
		return int64(n+15) &^ 15
	default:
		return int64(n + n/8)
	}
}

// find returns field's slot and true, or the empty slot where it would go
// and false.
func (t *table) find(field []byte, tag uint32) (int, bool) {
	mask := t.mask()
	for i := t.home(tag); ; i = (i + 1) & mask {
		switch t.tags[i] {
		case 0:
			return i, false
		case tag:
			if f, _ := pairOf(t.ptrs[i]); string(f) == string(field) {
				return i, true
			}
		}
	}
}

func (t *table) get(field []byte) ([]byte, bool) {
	i, ok := t.find(field, tagOf(field))
	if !ok {
		return nil, false
	}
	_, v := pairOf(t.ptrs[i])
	return v, true
}

// set sets field to value and reports whether the field is new.
func (t *table) set(field, value []byte) bool {
	tag := tagOf(field)
	i, found := t.find(field, tag)
	if found {
		old := t.ptrs[i]
		oldSize := pairSize(old)
		if _, v := pairOf(old); len(v) == len(value) {
			copy(v, value) // same size: overwrite in place
			return false
		}
		p := newPair(field, value)
		t.ptrs[i] = p
		t.bytes += allocSize(pairSize(p)) - allocSize(oldSize)
		return false
	}
	p := newPair(field, value)
	t.tags[i], t.ptrs[i] = tag, p
	t.n++
	t.bytes += allocSize(pairSize(p))
	if t.n*maxLoadDen > len(t.tags)*maxLoadNum {
		t.resize(bitsFor(t.n))
	}
	return true
}

// delete removes field, closing the gap by shifting the rest of its
// cluster back (no tombstones).
func (t *table) delete(field []byte) bool {
	i, ok := t.find(field, tagOf(field))
	if !ok {
		return false
	}
	t.bytes -= allocSize(pairSize(t.ptrs[i]))
	t.n--
	mask := t.mask()
	for j := (i + 1) & mask; t.tags[j] != 0; j = (j + 1) & mask {
		// The pair at j may move back to i unless its home lies
		// cyclically in (i, j].
		k := t.home(t.tags[j])
		if i <= j && i < k && k <= j || i > j && (i < k || k <= j) {
			continue
		}
		t.tags[i], t.ptrs[i] = t.tags[j], t.ptrs[j]
		i = j
	}
	t.tags[i], t.ptrs[i] = 0, nil
	if len(t.tags) > 1<<minBits && t.n*minLoadDen < len(t.tags) {
		t.resize(bitsFor(t.n * 2))
	}
	return true
}

// resize moves the pairs to a table of 2^b slots. Tags need no rehashing.
func (t *table) resize(b uint) {
	tags, ptrs := t.tags, t.ptrs
	t.alloc(b)
	mask := t.mask()
	for i, tag := range tags {
		if tag == 0 {
			continue
		}
		j := t.home(tag)
		for t.tags[j] != 0 {
			j = (j + 1) & mask
		}
		t.tags[j], t.ptrs[j] = tag, ptrs[i]
	}
}

func (t *table) each(fn func(field, value []byte) bool) {
	for i, tag := range t.tags {
		if tag != 0 {
			if !fn(pairOf(t.ptrs[i])) {
				return
			}
		}
	}
}

// scan returns the pairs whose home slot lies in a range [s0, s1) and the
// next cursor. A cursor is a position in the 2^32 tag space: the pairs with
// tags below it have been returned. s0 is the slot that holds the cursor's
// position (so pairs from just before it may come again after a shrink),
// s1 the slot where about count occupied slots (or 10*count slots, as
// Redis's maxiterations) have been walked; the next cursor is s1's first
// tag, or 0 at the end. Since every call covers at least the tags from its
// cursor to the next, a pair present throughout is returned at least once.
func (t *table) scan(cursor uint64, count int, fn func(field, value []byte)) uint64 {
	if cursor >= 1<<32 {
		return 0
	}
	count = max(count, 1)
	size := len(t.tags)
	s0 := int(cursor >> t.shift)
	s1, seen := s0, 0
	for walked := 0; s1 < size && seen < count && walked < count*10; walked++ {
		if t.tags[s1] != 0 {
			seen++
		}
		s1++
	}
	// The pairs homed in [s0, s1) lie from s0 up to the first empty slot
	// at or after s1, wrapping around the end of the table.
	mask := t.mask()
	for k := 0; k < size; k++ {
		i := (s0 + k) & mask
		tag := t.tags[i]
		if tag == 0 {
			if k >= s1-s0 {
				break
			}
			continue
		}
		if h := t.home(tag); h >= s0 && h < s1 {
			fn(pairOf(t.ptrs[i]))
		}
	}
	if s1 >= size {
		return 0
	}
	return uint64(s1) << t.shift
}

// random returns a pair chosen uniformly: every occupied slot holds one
// pair, so probing random slots until one is occupied is fair.
func (t *table) random(rnd func(n int) int) (field, value []byte) {
	for {
		i := rnd(len(t.tags))
		if t.tags[i] != 0 {
			return pairOf(t.ptrs[i])
		}
	}
}

// randomDistinct calls fn for count distinct random pairs (count < t.n).
func (t *table) randomDistinct(count int, rnd func(n int) int, fn func(field, value []byte)) {
	if count*3 > t.n {
		// Many of them: a partial Fisher-Yates shuffle of the slots.
		slots := make([]int32, 0, t.n)
		for i, tag := range t.tags {
			if tag != 0 {
				slots = append(slots, int32(i))
			}
		}
		for k := 0; k < count; k++ {
			j := k + rnd(len(slots)-k)
			slots[k], slots[j] = slots[j], slots[k]
			fn(pairOf(t.ptrs[slots[k]]))
		}
		return
	}
	// Few of them: random picks, skipping repeats.
	picked := make(map[int]struct{}, count)
	for len(picked) < count {
		i := rnd(len(t.tags))
		if t.tags[i] == 0 {
			continue
		}
		if _, dup := picked[i]; dup {
			continue
		}
		picked[i] = struct{}{}
		fn(pairOf(t.ptrs[i]))
	}
}

func (t *table) memSize() int64 {
	const header = 80
	return header + int64(len(t.tags))*12 + t.bytes
}

// clone copies the table and every pair (pairs are overwritten in place,
// so they cannot be shared).
func (t *table) clone() *table {
	d := &table{
		tags:  append([]uint32(nil), t.tags...),
		ptrs:  make([]*byte, len(t.ptrs)),
		shift: t.shift,
		n:     t.n,
		bytes: t.bytes,
	}
	for i, p := range t.ptrs {
		if p != nil {
			d.ptrs[i] = newPair(pairOf(p))
		}
	}
	return d
}
