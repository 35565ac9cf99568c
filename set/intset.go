package set

import (
	"math"
	"slices"
	"unsafe"
)

// intset is Redis's intset: a sorted array of distinct integers stored at
// the narrowest width (2, 4 or 8 bytes) that holds every member. A wider
// value upgrades the whole array; it never narrows again, as in Redis.
//
// The elements live in words, a []uint64, so that the backing array is
// 8-byte aligned whatever the width; n is the element count.
type intset struct {
	words []uint64
	n     int32
	enc   uint8 // bytes per element: 2, 4 or 8 (0 for a zero intset = 2)
}

type intType interface{ ~int16 | ~int32 | ~int64 }

// view returns the first n elements of w as a []T.
func view[T intType](w []uint64, n int) []T {
	if len(w) == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(w))), n)
}

// capOf returns how many elements of width enc fit in w's capacity.
func capOf(w []uint64, enc uint8) int { return cap(w) * 8 / int(enc) }

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
		return int64(view[int16](s.words, int(s.n))[i])
	case 4:
		return int64(view[int32](s.words, int(s.n))[i])
	}
	return view[int64](s.words, int(s.n))[i]
}

// search returns the position of v and whether it is present.
func (s *intset) search(v int64) (int, bool) {
	switch s.width() {
	case 2:
		if v < math.MinInt16 || v > math.MaxInt16 {
			return 0, false
		}
		return slices.BinarySearch(view[int16](s.words, int(s.n)), int16(v))
	case 4:
		if v < math.MinInt32 || v > math.MaxInt32 {
			return 0, false
		}
		return slices.BinarySearch(view[int32](s.words, int(s.n)), int32(v))
	}
	return slices.BinarySearch(view[int64](s.words, int(s.n)), v)
}

func (s *intset) contains(v int64) bool {
	_, ok := s.search(v)
	return ok
}

// add inserts v and reports whether it was absent.
func (s *intset) add(v int64) bool {
	if w := widthOf(v); w > s.width() {
		s.upgrade(w)
		// v is beyond every current member: it goes first or last.
		pos := 0
		if v > 0 {
			pos = int(s.n)
		}
		s.insertAt(pos, v)
		return true
	}
	pos, found := s.search(v)
	if found {
		return false
	}
	s.insertAt(pos, v)
	return true
}

// grow makes room for one more element of the current width. Growth is
// modest (an eighth): intsets are small, and Redis reallocates exactly.
func (s *intset) grow() {
	enc := s.width()
	if int(s.n)+1 <= capOf(s.words, enc) {
		return
	}
	need := (int(s.n) + 1) * int(enc)
	words := (need + 7) / 8
	words += words / 8
	nw := make([]uint64, words)
	copy(nw, s.words)
	s.words = nw
}

func (s *intset) insertAt(pos int, v int64) {
	s.grow()
	n := int(s.n)
	switch s.width() {
	case 2:
		a := view[int16](s.words, n+1)
		copy(a[pos+1:], a[pos:n])
		a[pos] = int16(v)
	case 4:
		a := view[int32](s.words, n+1)
		copy(a[pos+1:], a[pos:n])
		a[pos] = int32(v)
	default:
		a := view[int64](s.words, n+1)
		copy(a[pos+1:], a[pos:n])
		a[pos] = v
	}
	s.n++
}

// upgrade widens every element to w bytes.
func (s *intset) upgrade(w uint8) {
	n := int(s.n)
	words := ((n+1)*int(w) + 7) / 8
	nw := make([]uint64, words+words/8)
	switch w {
	case 4:
		dst := view[int32](nw, n)
		for i, v := range view[int16](s.words, n) {
			dst[i] = int32(v)
		}
	case 8:
		dst := view[int64](nw, n)
		for i := 0; i < n; i++ {
			dst[i] = s.get(i)
		}
	}
	s.words = nw
	s.enc = w
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
		a := view[int16](s.words, n)
		copy(a[pos:], a[pos+1:])
	case 4:
		a := view[int32](s.words, n)
		copy(a[pos:], a[pos+1:])
	default:
		a := view[int64](s.words, n)
		copy(a[pos:], a[pos+1:])
	}
	s.n--
	// Give memory back when the set has shrunk to a quarter.
	if enc := int(s.width()); cap(s.words) > 8 && int(s.n)*enc*4 < cap(s.words)*8 {
		nw := make([]uint64, (int(s.n)*enc+7)/8+1)
		copy(nw, s.words)
		s.words = nw
	}
}

func (s *intset) clone() intset {
	d := *s
	d.words = slices.Clone(s.words)
	return d
}

func (s *intset) memSize() int64 { return int64(cap(s.words)) * 8 }
