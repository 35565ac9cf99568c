package set

import (
	"math"
	"slices"
	"unsafe"

	"github.com/hotkv/hotkv/block"
)

// intset is Redis's intset: a sorted array of distinct integers stored at
// the narrowest width (2, 4 or 8 bytes) that holds every member. A wider
// value upgrades the whole array; it never narrows again, as in Redis.
//
// An intset is 16 bytes, so that a Set, which is one, takes the allocator's
// 16-byte size class. Its invariants:
//
//   - enc is the width in bytes, 2, 4 or 8, or 0 for a zero intset (width
//     2); a Set in the hashtable encoding keeps its *table in p and sets enc
//     to encTable, and then n is 0 and no intset method may be called.
//   - n is the member count. p is nil when n is 0; otherwise it points to
//     the first byte of a []uint64 allocation (so 8-byte aligned, whatever
//     the width) of exactly block.Size(n*width) bytes, whose first n*width
//     bytes hold the members in ascending order. Because the capacity is a
//     function of the length, it needs no field of its own; every change of
//     n reallocates when block.Size changes, up or down.
//   - p points to the start of the allocation, which keeps it alive for the
//     garbage collector; the allocation holds no pointers.
type intset struct {
	p   unsafe.Pointer
	n   uint32
	enc uint8
}

// encTable marks, in intset.enc, a Set in the hashtable encoding.
const encTable = 1

// allocBlock returns a new zeroed block of block.Size(n) bytes, or nil when
// that is 0.
func allocBlock(n int) unsafe.Pointer {
	size := block.Size(n)
	if size == 0 {
		return nil
	}
	return unsafe.Pointer(unsafe.SliceData(make([]uint64, size/8)))
}

type intType interface{ ~int16 | ~int32 | ~int64 }

// view returns the n elements of width sizeof(T) at p as a []T; p must hold
// at least n of them.
func view[T intType](p unsafe.Pointer, n int) []T {
	if p == nil {
		return nil
	}
	return unsafe.Slice((*T)(p), n)
}

// rawBytes returns the n bytes at p; p must hold at least n bytes.
func rawBytes(p unsafe.Pointer, n int) []byte {
	if p == nil {
		return nil
	}
	return unsafe.Slice((*byte)(p), n)
}

// widthOf is the narrowest width holding v.
func widthOf(v int64) uint8 {
	switch {
	case v >= math.MinInt16 && v <= math.MaxInt16:
		return 2
	case v >= math.MinInt32 && v <= math.MaxInt32:
		return 4
	}
	return 8
}

func (s *intset) width() uint8 {
	if s.enc == 0 {
		return 2
	}
	return s.enc
}

func (s *intset) len() int { return int(s.n) }

// get returns the i-th smallest element.
func (s *intset) get(i int) int64 {
	switch s.width() {
	case 2:
		return int64(view[int16](s.p, int(s.n))[i])
	case 4:
		return int64(view[int32](s.p, int(s.n))[i])
	}
	return view[int64](s.p, int(s.n))[i]
}

// search returns the position of v and whether it is present.
func (s *intset) search(v int64) (int, bool) {
	switch s.width() {
	case 2:
		if v < math.MinInt16 || v > math.MaxInt16 {
			return 0, false
		}
		return slices.BinarySearch(view[int16](s.p, int(s.n)), int16(v))
	case 4:
		if v < math.MinInt32 || v > math.MaxInt32 {
			return 0, false
		}
		return slices.BinarySearch(view[int32](s.p, int(s.n)), int32(v))
	}
	return slices.BinarySearch(view[int64](s.p, int(s.n)), v)
}

func (s *intset) contains(v int64) bool {
	_, ok := s.search(v)
	return ok
}

// add inserts v and reports whether it was absent.
func (s *intset) add(v int64) bool {
	if w := widthOf(v); w > s.width() {
		s.upgradeAdd(w, v)
		return true
	}
	pos, found := s.search(v)
	if found {
		return false
	}
	s.insertAt(pos, v)
	return true
}

// resize sets the member count to n, keeping the first min(n, s.n)
// members, and reallocates the block when its size changes. Members past
// the old count are undefined until written.
func (s *intset) resize(n int) {
	w := int(s.width())
	old := int(s.n)
	if block.Size(n*w) != block.Size(old*w) {
		p := allocBlock(n * w)
		copy(rawBytes(p, n*w), rawBytes(s.p, min(n, old)*w))
		s.p = p
	}
	s.n = uint32(n)
}

func (s *intset) insertAt(pos int, v int64) {
	n := int(s.n)
	s.resize(n + 1)
	switch s.width() {
	case 2:
		a := view[int16](s.p, n+1)
		copy(a[pos+1:], a[pos:n])
		a[pos] = int16(v)
	case 4:
		a := view[int32](s.p, n+1)
		copy(a[pos+1:], a[pos:n])
		a[pos] = int32(v)
	default:
		a := view[int64](s.p, n+1)
		copy(a[pos+1:], a[pos:n])
		a[pos] = v
	}
}

// upgradeAdd widens every element to w bytes and adds v, which needs that
// width, so that it lies beyond every current member: it goes first when
// negative, last otherwise.
func (s *intset) upgradeAdd(w uint8, v int64) {
	n := int(s.n)
	p := allocBlock((n + 1) * int(w))
	first := 0
	if v < 0 {
		first = 1
	}
	switch w {
	case 4:
		dst := view[int32](p, n+1)
		for i, x := range view[int16](s.p, n) {
			dst[first+i] = int32(x)
		}
		dst[(1-first)*n] = int32(v)
	case 8:
		dst := view[int64](p, n+1)
		for i := 0; i < n; i++ {
			dst[first+i] = s.get(i)
		}
		dst[(1-first)*n] = v
	}
	s.p, s.n, s.enc = p, uint32(n+1), w
}

// remove deletes v and reports whether it was present.
func (s *intset) remove(v int64) bool {
	pos, found := s.search(v)
	if !found {
		return false
	}
	s.removeAt(pos)
	return true
}

func (s *intset) removeAt(pos int) {
	n := int(s.n)
	switch s.width() {
	case 2:
		a := view[int16](s.p, n)
		copy(a[pos:], a[pos+1:])
	case 4:
		a := view[int32](s.p, n)
		copy(a[pos:], a[pos+1:])
	default:
		a := view[int64](s.p, n)
		copy(a[pos:], a[pos+1:])
	}
	s.resize(n - 1)
}

func (s *intset) clone() intset {
	d := *s
	size := int(s.n) * int(s.width())
	d.p = allocBlock(size)
	copy(rawBytes(d.p, size), rawBytes(s.p, size))
	return d
}

func (s *intset) memSize() int64 { return int64(block.Size(int(s.n) * int(s.width()))) }
