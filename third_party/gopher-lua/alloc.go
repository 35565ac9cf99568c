package lua

import (
	"reflect"
	"unsafe"
)

// iface is an internal representation of the go-interface.
type iface struct {
	itab unsafe.Pointer
	word unsafe.Pointer
}

const preloadLimit LNumber = 128

var _fv float64
var _uv uintptr

var preloads [int(preloadLimit)]LValue

func init() {
	for i := 0; i < int(preloadLimit); i++ {
		preloads[i] = LNumber(i)
	}
}

// allocator is a fast bulk memory allocator for the LValue.
type allocator struct {
	size    int
	fptrs   []float64
	fheader *reflect.SliceHeader

	scratchValue  LValue
	scratchValueP *iface

	// HotKV patch 26: string headers, as fptrs holds floats.
	sptrs          []LString
	scratchString  LValue
	scratchStringP *iface

	// HotKV patch 28: the bytes of short strings made by BytesValue.
	bytes []byte
}

func newAllocator(size int) *allocator {
	al := &allocator{
		size:    size,
		fptrs:   make([]float64, 0, size),
		fheader: nil,
	}
	al.fheader = (*reflect.SliceHeader)(unsafe.Pointer(&al.fptrs))
	al.scratchValue = LNumber(0)
	al.scratchValueP = (*iface)(unsafe.Pointer(&al.scratchValue))
	al.scratchString = LString("x")
	al.scratchStringP = (*iface)(unsafe.Pointer(&al.scratchString))

	return al
}

// LNumber2I takes a number value and returns an interface LValue representing the same number.
// Converting an LNumber to a LValue naively, by doing:
// `var val LValue = myLNumber`
// will result in an individual heap alloc of 8 bytes for the float value. LNumber2I amortizes the cost and memory
// overhead of these allocs by allocating blocks of floats instead.
// The downside of this is that all of the floats on a given block have to become eligible for gc before the block
// as a whole can be gc-ed.
func (al *allocator) LNumber2I(v LNumber) LValue {
	// first check for shared preloaded numbers
	if v >= 0 && v < preloadLimit && float64(v) == float64(int64(v)) {
		return preloads[int(v)]
	}

	// check if we need a new alloc page
	if cap(al.fptrs) == len(al.fptrs) {
		al.fptrs = make([]float64, 0, al.size)
		al.fheader = (*reflect.SliceHeader)(unsafe.Pointer(&al.fptrs))
	}

	// alloc a new float, and store our value into it
	al.fptrs = append(al.fptrs, float64(v))
	fptr := &al.fptrs[len(al.fptrs)-1]

	// hack our scratch LValue to point to our allocated value
	// this scratch lvalue is copied when this function returns meaning the scratch value can be reused
	// on the next call
	al.scratchValueP.word = unsafe.Pointer(fptr)

	return al.scratchValue
}

// LString2I returns v as an LValue whose string header comes from a block
// of headers (HotKV patch 26): converting a string to an interface
// otherwise allocates 16 bytes for the header alone, once per KEYS and
// ARGV item and per bulk string a redis.call returns. As with
// LNumber2I, a block is freed once none of its values is reachable, and
// it keeps the strings its headers point to alive until then.
func (al *allocator) LString2I(v LString) LValue {
	if len(v) == 0 {
		return LString("")
	}
	if cap(al.sptrs) == len(al.sptrs) {
		al.sptrs = make([]LString, 0, stringBlock)
	}
	al.sptrs = append(al.sptrs, v)
	al.scratchStringP.word = unsafe.Pointer(&al.sptrs[len(al.sptrs)-1])
	return al.scratchString
}

// StringValue is s as an LValue, its header taken from L's block
// allocator (HotKV patch 26).
func (ls *LState) StringValue(s string) LValue { return ls.alloc.LString2I(LString(s)) }

// BytesValue is a copy of b as a string LValue (HotKV patch 28): a short
// string's bytes are copied into a block of bytes shared with other
// strings, and its header comes from a block of headers, so that boxing
// one allocates nothing most of the time. A block's bytes are written
// once, each string's bytes at their own place, and never changed; the
// block is freed once none of its strings is reachable, and it is kept
// alive until then (bytesBlock bytes at most, per string kept).
func (ls *LState) BytesValue(b []byte) LValue {
	al := ls.alloc
	if len(b) == 0 {
		return LString("")
	}
	if len(b) > bytesBlock/8 {
		return al.LString2I(LString(b))
	}
	if cap(al.bytes)-len(al.bytes) < len(b) {
		al.bytes = make([]byte, 0, bytesBlock)
	}
	start := len(al.bytes)
	al.bytes = append(al.bytes, b...)
	return al.LString2I(LString(unsafe.String(&al.bytes[start], len(b))))
}

// bytesBlock is the size of BytesValue's blocks of bytes, and
// stringBlock the number of string headers in a block of LString2I's
// (2 KB as well: a script run boxes a few strings, and a smaller block
// was made, zeroed and scanned every few runs).
const (
	bytesBlock  = 2048
	stringBlock = 128
)

// NumberValue is n as an LValue, boxed in L's number blocks (HotKV patch
// 28): converting an LNumber to an interface otherwise allocates 8 bytes
// for each number outside 0..255.
func (ls *LState) NumberValue(n LNumber) LValue { return ls.alloc.LNumber2I(n) }
