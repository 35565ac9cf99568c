package keyspace

import (
	"sync/atomic"
	"unsafe"
)

// Entry is one key with its value. Kind and the expiry are fixed for the
// life of the Entry as far as readers are concerned (changing them goes
// through DB methods); the value (Str, Obj) belongs to the holder of the
// key's tag lock.
//
// An entry is one allocation: a 40-byte header (this struct; a test keeps
// it at that) followed by a tail holding the key and, when it fits, a
// string value (Redis's embstr, without the separate dictEntry and key).
// Allocations come in the Go allocator's size classes (entryClasses), so
// that 1M keys like "key:123456" with values like "value:123456" cost 64
// bytes each. A key longer than the largest tail lives in a string of
// its own (entryLong), with every value outside.
//
// The key never changes: RENAME stores the value in a new entry (Set).
type Entry struct {
	// Obj is a collection's data structure (a Sizer). For a string held
	// outside the entry it is the buffer: a *byte (len slen, cap aux), or
	// a *[]byte for a buffer of 4 GB or more; nil for an inline string.
	Obj    any
	expire int64         // unix milliseconds; 0 = no expiry
	lru    atomic.Uint32 // access clock or LFU counter, and the snapshot mark
	slen   uint32        // string length
	aux    uint32        // external string: its buffer's capacity; collection: accounted size (packSize)
	klen   uint8         // inline key length
	tail   uint8         // bytes after the header: the key, then an inline string's room; 0 in an entryLong
	Kind   Kind
	flags  uint8
}

const (
	flagRaw   = 1 << iota // the string was edited in place (APPEND, SETRANGE)
	flagNoInt             // the string was stored without integer encoding (INCRBYFLOAT)
	flagExt               // the string is in Obj's buffer, not inline
	flagBoxed             // ... and Obj is a *[]byte (4 GB or more)
)

// flagPooled marks an external buffer that setStr made (or took from the
// free lists) for the entry: a whole allocation of its size class that
// nothing else references, which DB.Evict may recycle (bufpool.go).
// (Bits 4 and 5 are cold.go's.)
const flagPooled = 1 << 6

const headerSize = unsafe.Sizeof(Entry{})

// The entry types, by the Go allocator's size classes from 48 to 256
// bytes (a tail of 8 + 16i bytes).
type (
	entry48 struct {
		Entry
		t [8]byte
	}
	entry64 struct {
		Entry
		t [24]byte
	}
	entry80 struct {
		Entry
		t [40]byte
	}
	entry96 struct {
		Entry
		t [56]byte
	}
	entry112 struct {
		Entry
		t [72]byte
	}
	entry128 struct {
		Entry
		t [88]byte
	}
	entry144 struct {
		Entry
		t [104]byte
	}
	entry160 struct {
		Entry
		t [120]byte
	}
	entry176 struct {
		Entry
		t [136]byte
	}
	entry192 struct {
		Entry
		t [152]byte
	}
	entry208 struct {
		Entry
		t [168]byte
	}
	entry224 struct {
		Entry
		t [184]byte
	}
	entry240 struct {
		Entry
		t [200]byte
	}
	entry256 struct {
		Entry
		t [216]byte
	}
	// entryLong holds a key longer than the largest tail.
	entryLong struct {
		Entry
		key string
	}
)

var entryClasses = [...]func() *Entry{
	func() *Entry { return &new(entry48).Entry },
	func() *Entry { return &new(entry64).Entry },
	func() *Entry { return &new(entry80).Entry },
	func() *Entry { return &new(entry96).Entry },
	func() *Entry { return &new(entry112).Entry },
	func() *Entry { return &new(entry128).Entry },
	func() *Entry { return &new(entry144).Entry },
	func() *Entry { return &new(entry160).Entry },
	func() *Entry { return &new(entry176).Entry },
	func() *Entry { return &new(entry192).Entry },
	func() *Entry { return &new(entry208).Entry },
	func() *Entry { return &new(entry224).Entry },
	func() *Entry { return &new(entry240).Entry },
	func() *Entry { return &new(entry256).Entry },
}

// maxTail is the largest tail: longer keys make an entryLong.
const maxTail = 8 + 16*(len(entryClasses)-1)

// newEntry returns an entry of kind k keyed key, with room for an inline
// string of up to room bytes when key and room fit the largest tail (and
// none otherwise).
func newEntry(key []byte, k Kind, room int) *Entry {
	var e *Entry
	switch need := len(key) + room; {
	case len(key) > maxTail:
		e = &(&entryLong{key: string(key)}).Entry
	case need > maxTail:
		room = 0
		fallthrough
	default:
		i := max(0, len(key)+room-8+15) / 16
		e = entryClasses[i]()
		e.tail = uint8(8 + 16*i)
		e.klen = uint8(len(key))
		copy(unsafe.Slice((*byte)(e.tailPtr()), e.tail), key)
	}
	e.Kind = k
	return e
}

func (e *Entry) tailPtr() unsafe.Pointer { return unsafe.Add(unsafe.Pointer(e), headerSize) }

// allocSize is the size of e's allocation, its key included.
func (e *Entry) allocSize() int64 {
	if e.tail == 0 {
		return int64(unsafe.Sizeof(entryLong{})) + int64(len(e.Key()))
	}
	return int64(headerSize) + int64(e.tail)
}

// NewString returns a string entry keyed key holding v, which it keeps
// (does not copy) when v does not fit inline.
func NewString(key, v []byte) *Entry {
	e := newEntry(key, KindString, len(v))
	e.setStrBuf(v)
	return e
}

// NewObject returns an entry of kind k keyed key holding obj.
func NewObject(key []byte, k Kind, obj any) *Entry {
	e := newEntry(key, k, 0)
	e.Obj = obj
	return e
}

// Key returns the key the entry is stored under. The string stays valid
// and unchanged for as long as it is referenced. Key reads only what is
// fixed when the entry is made (klen, tail), so it needs no lock: the
// keyspace reads it under a shard lock while the key's tag lock holder
// changes the value.
func (e *Entry) Key() string {
	if e.tail == 0 {
		return (*entryLong)(unsafe.Pointer(e)).key
	}
	return unsafe.String((*byte)(e.tailPtr()), e.klen)
}

// inlineRoom is how long an inline string may be.
func (e *Entry) inlineRoom() int { return int(e.tail) - int(e.klen) }

var emptyStr [0]byte

// Str returns a string entry's value. The slice belongs to the entry: it
// may be written in place by the holder of the key's tag lock (which
// then calls DB.Updated), but never grown; GrowString and SetStringBuf
// change its length.
func (e *Entry) Str() []byte {
	switch {
	case e.flags&flagBoxed != 0:
		return *e.Obj.(*[]byte)
	case e.flags&flagExt != 0:
		return unsafe.Slice(e.Obj.(*byte), e.aux)[:e.slen]
	case e.slen == 0:
		return emptyStr[:]
	}
	return unsafe.Slice((*byte)(unsafe.Add(e.tailPtr(), e.klen)), e.slen)
}

// dropExt forgets an external string buffer.
func (e *Entry) dropExt() {
	if e.flags&flagExt != 0 {
		e.Obj, e.aux = nil, 0
		e.flags &^= flagExt | flagBoxed | flagPooled
	}
}

// setStr makes v (copied) the string value, inline when it fits; an
// external buffer that already holds it without waste is reused.
func (e *Entry) setStr(v []byte) {
	e.flags &^= flagRaw | flagNoInt
	switch {
	case len(v) <= e.inlineRoom():
		e.setInline(v)
	case e.flags&(flagExt|flagBoxed) == flagExt && int(e.aux) >= len(v) && int(e.aux) <= 2*len(v)+16:
		e.slen = uint32(len(v))
		copy(e.Str(), v)
	default:
		b, pooled := newStrBuf(v)
		e.setExt(b)
		if pooled {
			e.flags |= flagPooled
		}
	}
}

// setInline copies v, which fits, into the tail.
func (e *Entry) setInline(v []byte) {
	e.dropExt()
	e.slen = uint32(len(v))
	if len(v) > 0 {
		copy(unsafe.Slice((*byte)(unsafe.Add(e.tailPtr(), e.klen)), len(v)), v)
	}
}

// setStrBuf makes b the string value: copied inline when it fits, kept
// (not copied) otherwise.
func (e *Entry) setStrBuf(b []byte) {
	if len(b) <= e.inlineRoom() {
		e.setInline(b)
		return
	}
	e.setExt(b)
}

// setExt makes b, which it keeps, the external string buffer.
func (e *Entry) setExt(b []byte) {
	e.flags = e.flags&^flagPooled | flagExt
	if uint64(cap(b)) > 1<<32-1 {
		e.flags |= flagBoxed
		e.Obj, e.slen, e.aux = &b, 0, 0
		return
	}
	e.flags &^= flagBoxed
	e.Obj, e.slen, e.aux = unsafe.SliceData(b), uint32(len(b)), uint32(cap(b))
}

// strMem is the heap a string entry holds besides its allocation.
func (e *Entry) strMem() int64 {
	switch {
	case e.flags&flagCold != 0:
		return coldRefMem
	case e.flags&flagBoxed != 0:
		return int64(cap(*e.Obj.(*[]byte))) + 24
	case e.flags&flagExt != 0:
		return int64(e.aux)
	}
	return 0
}

// slotOverhead is what a key costs in the table besides its entry.
const slotOverhead = 16

// packSize and unpackSize keep a collection's accounted size in 32 bits:
// exact below 2 GB, in 64 KB units above.
func packSize(n int64) uint32 {
	if n < 1<<31 {
		return uint32(max(n, 0))
	}
	return 1<<31 | uint32(min(n>>16, 1<<31-1))
}

func unpackSize(v uint32) int64 {
	if v&(1<<31) == 0 {
		return int64(v)
	}
	return int64(v&^(1<<31)) << 16
}

// objMem is a collection's size as its Sizer reports it.
func (e *Entry) objMem() int64 {
	if s, ok := e.Obj.(Sizer); ok {
		return s.MemSize()
	}
	return 0
}

// MemSize returns the bytes accounted to the entry (key and value), as
// used_memory counts them: for a collection, its size when it was last
// stored or Updated. The caller holds the key's tag lock.
func (e *Entry) MemSize() int64 {
	n := e.allocSize() + slotOverhead
	if e.Kind == KindString {
		return n + e.strMem()
	}
	return n + unpackSize(e.aux)
}

// memParts is MemSize, and the part of it that is not a value in memory
// (Entry.ValueMem): the entry's allocation (key, header, an inline value),
// its table slot, and a cold value's reference.
type memParts struct{ all, base int64 }

func (e *Entry) memParts() memParts {
	all := e.MemSize()
	if e.flags&flagCold != 0 {
		return memParts{all, all}
	}
	return memParts{all, e.allocSize() + slotOverhead}
}

// MarkNoInt records that the value was stored as Redis stores a number it
// formatted itself (INCRBYFLOAT): embstr or raw, never int.
func (e *Entry) MarkNoInt() { e.flags |= flagNoInt }

// IsNoInt reports whether MarkNoInt was called since the value was set.
func (e *Entry) IsNoInt() bool { return e.flags&flagNoInt != 0 }

// MarkRaw records that the string value was edited in place, which makes
// Redis report its encoding as "raw" whatever its length. Setting a new
// value clears it.
func (e *Entry) MarkRaw() { e.flags |= flagRaw }

// IsRaw reports whether MarkRaw was called since the value was last set.
func (e *Entry) IsRaw() bool { return e.flags&flagRaw != 0 }

// Expire returns the expiry in unix milliseconds, 0 when the key persists.
// Reading it needs the key's tag lock (the gate holds it).
func (e *Entry) Expire() int64 { return e.expire }

// Cloner is implemented by collection values that COPY can duplicate.
type Cloner interface{ Clone() any }

// Clone returns a deep copy of e, which must not be cold (Get loads it), keyed key, with the same kind and expiry
// and a fresh access time, for COPY. It returns nil when e's value cannot
// be copied (a collection whose Obj does not implement Cloner). The
// caller holds e's key's tag lock.
func (e *Entry) Clone(key []byte) *Entry {
	if e.Kind == KindString {
		v := e.Str()
		d := newEntry(key, KindString, len(v))
		d.setStr(v)
		d.flags |= e.flags & (flagRaw | flagNoInt) // COPY keeps the encoding
		d.expire = e.expire
		return d
	}
	c, ok := e.Obj.(Cloner)
	if !ok {
		return nil
	}
	d := NewObject(key, e.Kind, c.Clone())
	d.expire = e.expire
	return d
}

// rekeyed returns an entry keyed key holding e's value, expiry and
// access field (RENAME's); e is not to be used afterwards.
func (e *Entry) rekeyed(key []byte) *Entry {
	var d *Entry
	switch {
	case e.flags&flagCold != 0:
		// The reference moves; the record stays where it is.
		d = newEntry(key, e.Kind, 0)
		d.Obj, d.aux = e.Obj, e.aux
		d.flags |= e.flags & (flagRaw | flagNoInt | flagCold)
	case e.Kind == KindString:
		v := e.Str()
		d = newEntry(key, KindString, len(v))
		if e.flags&flagExt != 0 && len(v) > d.inlineRoom() {
			d.Obj, d.slen, d.aux = e.Obj, e.slen, e.aux // the buffer moves
			d.flags |= e.flags & (flagExt | flagBoxed | flagPooled)
		} else {
			d.setInline(v)
		}
		d.flags |= e.flags & (flagRaw | flagNoInt)
	default:
		d = NewObject(key, e.Kind, e.Obj)
	}
	d.expire = e.expire
	d.lru.Store(e.lru.Load())
	return d
}
