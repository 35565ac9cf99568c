// Package hash is the data structure behind Redis hashes: a map from field
// to value, both byte strings.
//
// Like Redis, a hash has two forms. A small hash is one flat byte slice
// holding its pairs in insertion order (Redis's listpack): field and value
// each as a uvarint length followed by the bytes. Lookups scan it, which is
// fast for the few dozen pairs it holds, and it costs two or three bytes per
// pair beyond the data. Past the thresholds the caller gives (Redis's
// hash-max-listpack-entries and hash-max-listpack-value) the hash converts,
// once and for good, to an open-addressing table (Redis's "hashtable"
// encoding). The conversion points are Redis 7.0's hashTypeSet: before a
// set whose field or value is longer than the value limit, after a set that
// leaves more pairs than the entry limit.
//
// The package knows nothing of RESP, locks or configuration. A Hash is not
// safe for concurrent use; the server guards it with its key's lock.
//
// Slices returned by Get, Each, Scan and the random functions alias the
// hash's storage: they are valid until the next change to the hash. Field
// and value arguments are copied, and must not alias the hash's storage.
package hash

import (
	"encoding/binary"
	"math/bits"
	"unsafe"

	"github.com/hotkv/hotkv/block"
)

// Limits are the thresholds past which a small hash converts to a table:
// more than MaxEntries pairs, or a field or value longer than MaxValue
// bytes.
type Limits struct {
	MaxEntries int
	MaxValue   int
}

// DefaultLimits are Redis 7.0's defaults for hash-max-listpack-entries
// and hash-max-listpack-value.
var DefaultLimits = Limits{MaxEntries: 512, MaxValue: 64}

// safetySize is Redis's LISTPACK_MAX_SAFETY_SIZE: a listpack never grows
// past 1 GB, whatever the limits say.
const safetySize = 1 << 30

// Hash is a Redis hash. The zero value is an empty small hash.
//
// A Hash is 16 bytes (the allocator's 16-byte size class). Its invariants:
//
//   - size is bigMark in the big form, and then p is the *table and n is 0.
//   - In the small form, size is the listpack's length in bytes and n its
//     number of pairs. p is nil when size is 0; otherwise it points to the
//     first byte of a []byte allocation of exactly block.Size(size) bytes
//     whose first size bytes are the listpack. Because the capacity is a
//     function of the length, it needs no field of its own: every change of
//     size reallocates when block.Size changes, up or down (resize).
//   - p points to the start of its allocation, which keeps it alive for the
//     garbage collector.
//
// The listpack stays under safetySize plus one pair's length headers, and
// so its length fits size.
type Hash struct {
	p    unsafe.Pointer
	n    uint32
	size uint32
}

// bigMark in Hash.size marks the big form.
const bigMark = ^uint32(0)

// hashOverhead is what the Hash itself costs, for MemSize.
const hashOverhead = 16

// t returns the big form's table, or nil while the hash is small.
func (h *Hash) t() *table {
	if h.size != bigMark {
		return nil
	}
	return (*table)(h.p)
}

// lp returns the small form's listpack (length and capacity size). It
// aliases the hash and is valid until the next change.
func (h *Hash) lp() []byte {
	if h.p == nil {
		return nil
	}
	return unsafe.Slice((*byte)(h.p), h.size)
}

// resize sets the small form's length to n bytes, keeping the first
// min(n, old length) bytes, reallocating the block when block.Size changes,
// and returns the listpack. Bytes past the old length are undefined until
// written.
func (h *Hash) resize(n int) []byte {
	old := int(h.size)
	if size := block.Size(n); size != block.Size(old) {
		var p unsafe.Pointer
		if size > 0 {
			b := make([]byte, size)
			copy(b, h.lp()[:min(n, old)])
			p = unsafe.Pointer(unsafe.SliceData(b))
		}
		h.p = p
	}
	h.size = uint32(n)
	return h.lp()
}

// New returns an empty hash, in the small form.
func New() *Hash { return &Hash{} }

// Len returns the number of pairs.
func (h *Hash) Len() int {
	if t := h.t(); t != nil {
		return t.n
	}
	return int(h.n)
}

// IsSmall reports whether the hash is in the small (listpack) form.
func (h *Hash) IsSmall() bool { return h.t() == nil }

// Encoding names the form as Redis's OBJECT ENCODING does.
func (h *Hash) Encoding() string {
	if h.t() != nil {
		return "hashtable"
	}
	return "listpack"
}

// Get returns field's value.
func (h *Hash) Get(field []byte) ([]byte, bool) {
	if h.t() != nil {
		return h.t().get(field)
	}
	_, voff, _ := h.lpFind(field)
	if voff < 0 {
		return nil, false
	}
	v, _ := lpString(h.lp(), voff)
	return v, true
}

// Exists reports whether field is in the hash.
func (h *Hash) Exists(field []byte) bool {
	_, ok := h.Get(field)
	return ok
}

// Set sets field to value and reports whether the field is new, converting
// the hash to a table where Redis's hashTypeSet would.
func (h *Hash) Set(field, value []byte, lim Limits) (created bool) {
	if h.t() == nil {
		if len(field) > lim.MaxValue || len(value) > lim.MaxValue ||
			len(h.lp())+len(field)+len(value) > safetySize {
			h.Convert()
		} else {
			created = h.lpSet(field, value)
			if int(h.n) > lim.MaxEntries {
				h.Convert()
			}
			return created
		}
	}
	return h.t().set(field, value)
}

// Delete removes field and reports whether it was there. A hash never
// converts back to the small form.
func (h *Hash) Delete(field []byte) bool {
	if h.t() != nil {
		return h.t().delete(field)
	}
	foff, _, end := h.lpFind(field)
	if foff < 0 {
		return false
	}
	lp := h.lp()
	copy(lp[foff:], lp[end:])
	h.resize(len(lp) - (end - foff))
	h.n--
	return true
}

// Convert turns a small hash into a table; a table stays as it is.
func (h *Hash) Convert() {
	if h.t() != nil {
		return
	}
	t := newTable(int(h.n))
	h.lpEach(func(f, v []byte) bool {
		t.set(f, v)
		return true
	})
	*h = Hash{p: unsafe.Pointer(t), size: bigMark}
}

// Each calls fn for every pair until fn returns false: in insertion order
// for a small hash (as Redis's listpack), in table order otherwise.
func (h *Hash) Each(fn func(field, value []byte) bool) {
	if h.t() != nil {
		h.t().each(fn)
		return
	}
	h.lpEach(fn)
}

// Scan calls fn for some of the pairs, starting at cursor, and returns the
// cursor to continue from; 0 means the iteration is complete. A small hash
// returns everything in one call, as Redis does for listpacks. For a table,
// count is a hint of how many pairs to return, and a pair present for the
// whole of an iteration started with cursor 0 is returned at least once,
// whatever is added or removed meanwhile and however the table grows or
// shrinks (a pair may be returned more than once).
func (h *Hash) Scan(cursor uint64, count int, fn func(field, value []byte)) uint64 {
	if h.t() != nil {
		return h.t().scan(cursor, count, fn)
	}
	h.lpEach(func(f, v []byte) bool {
		fn(f, v)
		return true
	})
	return 0
}

// Random returns a pair chosen uniformly at random; rnd(n) returns a
// random int in [0, n). The hash must not be empty.
func (h *Hash) Random(rnd func(n int) int) (field, value []byte) {
	if h.t() != nil {
		return h.t().random(rnd)
	}
	i := rnd(int(h.n))
	h.lpEach(func(f, v []byte) bool {
		if i == 0 {
			field, value = f, v
			return false
		}
		i--
		return true
	})
	return field, value
}

// RandomPairs calls fn count times with a pair chosen uniformly at random
// each time (repetitions allowed), stopping early when fn returns false.
// The hash must not be empty.
func (h *Hash) RandomPairs(count int, rnd func(n int) int, fn func(field, value []byte) bool) {
	if h.t() != nil {
		for ; count > 0; count-- {
			if !fn(h.t().random(rnd)) {
				return
			}
		}
		return
	}
	offs := h.lpOffsets()
	for ; count > 0; count-- {
		f, next := lpString(h.lp(), int(offs[rnd(len(offs))]))
		v, _ := lpString(h.lp(), next)
		if !fn(f, v) {
			return
		}
	}
}

// RandomDistinct calls fn for min(count, Len()) distinct pairs chosen at
// random. A small hash yields them in insertion order (selection sampling,
// as Redis's lpRandomPairsUnique); a table in no particular order.
func (h *Hash) RandomDistinct(count int, rnd func(n int) int, fn func(field, value []byte)) {
	n := h.Len()
	if count >= n {
		h.Each(func(f, v []byte) bool {
			fn(f, v)
			return true
		})
		return
	}
	if count <= 0 {
		return
	}
	if h.t() != nil {
		h.t().randomDistinct(count, rnd, fn)
		return
	}
	left, need := n, count
	h.lpEach(func(f, v []byte) bool {
		if rnd(left) < need {
			fn(f, v)
			need--
		}
		left--
		return need > 0
	})
}

// MemSize estimates the bytes the hash occupies.
func (h *Hash) MemSize() int64 {
	if h.t() != nil {
		return hashOverhead + h.t().memSize()
	}
	return hashOverhead + int64(block.Size(int(h.size)))
}

// Clone returns a deep copy of the hash (for COPY).
func (h *Hash) Clone() any {
	if t := h.t(); t != nil {
		return &Hash{p: unsafe.Pointer(t.clone()), size: bigMark}
	}
	d := &Hash{n: h.n}
	copy(d.resize(int(h.size)), h.lp())
	return d
}

// The small form. The pairs lie one after another in lp: uvarint field
// length, field, uvarint value length, value.

// lpLen decodes the uvarint length at off and returns it with the offset
// of the bytes it counts.
func lpLen(lp []byte, off int) (int, int) {
	if c := lp[off]; c < 0x80 { // the common case: one byte
		return int(c), off + 1
	}
	n, k := binary.Uvarint(lp[off:])
	return int(n), off + k
}

// lpString decodes the string at off and returns it with the offset after
// it.
func lpString(lp []byte, off int) ([]byte, int) {
	n, start := lpLen(lp, off)
	end := start + n
	return lp[start:end:end], end
}

// lpFind returns the offsets of field's pair (field, value, end), or -1s.
func (h *Hash) lpFind(field []byte) (foff, voff, end int) {
	lp := h.lp()
	for off := 0; off < len(lp); {
		flen, fstart := lpLen(lp, off)
		next := fstart + flen
		vlen, vstart := lpLen(lp, next)
		after := vstart + vlen
		if flen == len(field) && string(lp[fstart:next]) == string(field) {
			return off, next, after
		}
		off = after
	}
	return -1, -1, -1
}

func (h *Hash) lpEach(fn func(field, value []byte) bool) {
	lp := h.lp()
	for off := 0; off < len(lp); {
		f, next := lpString(lp, off)
		v, after := lpString(lp, next)
		if !fn(f, v) {
			return
		}
		off = after
	}
}

// lpOffsets returns the offset of every pair.
func (h *Hash) lpOffsets() []int32 {
	lp := h.lp()
	offs := make([]int32, 0, h.n)
	for off := 0; off < len(lp); {
		offs = append(offs, int32(off))
		_, next := lpString(lp, off)
		_, off = lpString(lp, next)
	}
	return offs
}

// lpSet replaces field's value or appends the pair.
func (h *Hash) lpSet(field, value []byte) bool {
	if _, voff, end := h.lpFind(field); voff >= 0 {
		h.lpReplace(voff, end, value)
		return false
	}
	off := int(h.size)
	lp := h.resize(off + uvarintLen(len(field)) + len(field) + uvarintLen(len(value)) + len(value))
	off += binary.PutUvarint(lp[off:], uint64(len(field)))
	off += copy(lp[off:], field)
	off += binary.PutUvarint(lp[off:], uint64(len(value)))
	copy(lp[off:], value)
	h.n++
	return true
}

// lpReplace replaces the string lp[off:end] with value.
func (h *Hash) lpReplace(off, end int, value []byte) {
	var hdr [binary.MaxVarintLen64]byte
	k := binary.PutUvarint(hdr[:], uint64(len(value)))
	size := k + len(value)
	lp := h.lp()
	switch d := size - (end - off); {
	case d > 0:
		lp = h.resize(len(lp) + d)
		copy(lp[end+d:], lp[end:len(lp)-d])
	case d < 0:
		copy(lp[off+size:], lp[end:])
		lp = h.resize(len(lp) + d)
	}
	copy(lp[off:], hdr[:k])
	copy(lp[off+k:], value)
}

// uvarintLen returns the length of v's uvarint encoding.
func uvarintLen(v int) int { return (bits.Len64(uint64(v)|1) + 6) / 7 }
