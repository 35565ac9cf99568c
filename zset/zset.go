// Package zset implements HotKV's sorted sets: members ordered by (score,
// member), with O(1) score lookup by member and O(log n) rank queries.
//
// A set starts small: a flat byte slice in order (Redis's listpack), which
// it leaves for the big form, a hash table plus an order-statistic B+tree
// (Redis's skiplist + dict), when it grows past thresholds the caller
// passes in. The conversion is one-way, as in Redis. The package knows
// nothing of RESP, locks or configuration; every method needs the caller
// to hold whatever lock guards the set.
//
// Members handed out as []byte alias the set's memory: they are valid,
// and must not be modified, until the set next changes.
package zset

import (
	"bytes"
	"encoding/binary"
	"math"
	"unsafe"

	"github.com/hotkv/hotkv/block"
)

// ZSet is a sorted set.
//
// A ZSet is 16 bytes (the allocator's 16-byte size class). Its invariants:
//
//   - size is bigMark in the big form, and then p is the *bigSet and n is 0.
//   - In the small form, size is the length in bytes of the encoded
//     elements and n their number. p is nil when size is 0; otherwise it
//     points to the first byte of a []byte allocation of exactly
//     block.Size(size) bytes whose first size bytes are the elements.
//     Because the capacity is a function of the length, it needs no field
//     of its own: every change of size reallocates when block.Size changes,
//     up or down (splice).
//   - p points to the start of its allocation, which keeps it alive for the
//     garbage collector.
//
// The small form holds at most safetySize bytes, and so its length fits
// size.
type ZSet struct {
	p    unsafe.Pointer
	n    uint32
	size uint32
}

// bigMark in ZSet.size marks the big form.
const bigMark = ^uint32(0)

// safetySize is Redis's LISTPACK_MAX_SAFETY_SIZE: past 1 GB a small set
// converts to the big form whatever the limits say (lpSafeToAdd).
const safetySize = 1 << 30

// big returns the big form, or nil while the set is small.
func (z *ZSet) big() *bigSet {
	if z.size != bigMark {
		return nil
	}
	return (*bigSet)(z.p)
}

// setBig puts the set in the big form b.
func (z *ZSet) setBig(b *bigSet) { *z = ZSet{p: unsafe.Pointer(b), size: bigMark} }

// buf returns the small form's encoded elements (length and capacity
// size). It aliases the set and is valid until the next change.
func (z *ZSet) buf() []byte {
	if z.p == nil {
		return nil
	}
	return unsafe.Slice((*byte)(z.p), z.size)
}

// splice replaces the del bytes of the small form at off with add bytes,
// undefined until written, reallocating the block when block.Size changes,
// and returns the new encoded elements.
func (z *ZSet) splice(off, del, add int) []byte {
	old := z.buf()
	n := len(old) - del + add
	if size := block.Size(n); size != block.Size(len(old)) {
		var b []byte
		if size > 0 {
			b = make([]byte, size)
			copy(b, old[:off])
			copy(b[off+add:], old[off+del:])
		}
		z.p, z.size = unsafe.Pointer(unsafe.SliceData(b)), uint32(n)
		return z.buf()
	}
	if add != del {
		b := unsafe.Slice((*byte)(z.p), block.Size(n)) // p != nil: n > 0 or add == del == 0
		copy(b[off+add:n], old[off+del:])
	}
	z.size = uint32(n)
	return z.buf()
}

type bigSet struct {
	ht          htable
	tree        btree
	memberBytes int64 // allocated bytes of the member strings
}

// New returns an empty sorted set in the small form, or in the big form
// when small is false (Redis creates a skiplist when the first member is
// already too long, or zset-max-listpack-entries is 0).
func New(small bool) *ZSet {
	z := &ZSet{}
	if !small {
		z.setBig(&bigSet{ht: newHTable(0), tree: newBTree()})
	}
	return z
}

// Elem is a member and its score.
type Elem struct {
	Member string
	Score  float64
}

// NewFromSorted returns a set holding elems, which must be in (score,
// member) order without duplicate members, in the small form if small
// (and the elements take at most safetySize bytes).
func NewFromSorted(elems []Elem, small bool) *ZSet {
	z := &ZSet{}
	size := 0
	for _, e := range elems {
		if !small || size > safetySize {
			break
		}
		size += entrySize(len(e.Member), zeroed(e.Score))
	}
	if small && size <= safetySize {
		buf := z.splice(0, 0, size)
		off := 0
		for _, e := range elems {
			off += putEntry(buf[off:], e.Member, e.Score)
		}
		z.n = uint32(len(elems))
		return z
	}
	nodes := make([]*node, len(elems))
	big := &bigSet{ht: newHTable(len(elems))}
	for i, e := range elems {
		nodes[i] = &node{member: e.Member, score: e.Score}
		big.ht.insert(nodes[i])
		big.memberBytes += allocSize(len(e.Member))
	}
	big.tree = buildBTree(nodes)
	z.setBig(big)
	return z
}

// Len returns the number of elements.
func (z *ZSet) Len() int {
	if b := z.big(); b != nil {
		return b.tree.n
	}
	return int(z.n)
}

// Encoding names the form as Redis 7.0's OBJECT ENCODING does.
func (z *ZSet) Encoding() string {
	if z.big() != nil {
		return "skiplist"
	}
	return "listpack"
}

// Small reports whether the set is in the small form.
func (z *ZSet) Small() bool { return z.big() == nil }

// Score returns member's score.
func (z *ZSet) Score(member []byte) (float64, bool) {
	if b := z.big(); b != nil {
		if n := b.ht.getBytes(member); n != nil {
			return n.score, true
		}
		return 0, false
	}
	_, s, ok := smallFind(z.buf(), member)
	return s, ok
}

// Add flags, as Redis's ZADD_IN_*.
const (
	AddNX = 1 << iota
	AddXX
	AddGT
	AddLT
	AddIncr
)

// Add results, as Redis's ZADD_OUT_*.
const (
	Added = 1 << iota
	Updated
	Nop
	NaN // the score (or the incremented one) is not a number
)

// Add adds member with score, or updates its score, as Redis's zsetAdd
// does under the AddNX/AddXX/AddGT/AddLT/AddIncr flags. It returns what
// happened and the new score. Adding a new element to a small set first
// converts it to the big form when it would exceed maxEntries elements or
// the member is longer than maxValue bytes.
func (z *ZSet) Add(member []byte, score float64, flags int, maxEntries, maxValue int) (out int, newScore float64) {
	if math.IsNaN(score) {
		return NaN, 0
	}
	incr, nx, xx := flags&AddIncr != 0, flags&AddNX != 0, flags&AddXX != 0
	gt, lt := flags&AddGT != 0, flags&AddLT != 0
	if z.big() == nil {
		off, cur, ok := smallFind(z.buf(), member)
		switch {
		case ok:
			if nx {
				return Nop, 0
			}
			if incr {
				if score += cur; math.IsNaN(score) {
					return NaN, 0
				}
			}
			if lt && score >= cur || gt && score <= cur {
				return Nop, 0
			}
			if score != cur {
				_, _, next := smallEntry(z.buf(), off)
				z.smallMove(off, next, member, score)
				out = Updated
			}
			return out, score
		case xx:
			return Nop, 0
		case int(z.n)+1 <= maxEntries && len(member) <= maxValue &&
			int(z.size)+entrySize(len(member), zeroed(score)) <= safetySize:
			z.smallInsert(member, score)
			z.n++
			return Added, score
		}
		z.toBig()
	}
	b := z.big()
	if n := b.ht.getBytes(member); n != nil {
		if nx {
			return Nop, 0
		}
		cur := n.score
		if incr {
			if score += cur; math.IsNaN(score) {
				return NaN, 0
			}
		}
		if lt && score >= cur || gt && score <= cur {
			return Nop, 0
		}
		if score != cur {
			b.tree.remove(cur, n.member)
			n.score = score
			b.tree.insert(n)
			out = Updated
		}
		return out, score
	}
	if xx {
		return Nop, 0
	}
	n := &node{member: string(member), score: score}
	b.ht.insert(n)
	b.tree.insert(n)
	b.memberBytes += allocSize(len(member))
	return Added, score
}

// toBig converts a small set to the big form.
func (z *ZSet) toBig() {
	nodes := make([]*node, 0, z.n)
	b := &bigSet{ht: newHTable(int(z.n))}
	buf := z.buf()
	for off := 0; off < len(buf); {
		m, s, next := smallEntry(buf, off)
		n := &node{member: string(m), score: s}
		nodes = append(nodes, n)
		b.ht.insert(n)
		b.memberBytes += allocSize(len(m))
		off = next
	}
	b.tree = buildBTree(nodes)
	z.setBig(b)
}

// Delete removes member and reports whether it was there.
func (z *ZSet) Delete(member []byte) bool {
	if b := z.big(); b != nil {
		n := b.ht.getBytes(member)
		if n == nil {
			return false
		}
		b.ht.remove(n.member)
		b.tree.remove(n.score, n.member)
		b.memberBytes -= allocSize(len(n.member))
		return true
	}
	off, _, ok := smallFind(z.buf(), member)
	if !ok {
		return false
	}
	_, _, next := smallEntry(z.buf(), off)
	z.splice(off, next-off, 0)
	z.n--
	return true
}

// Rank returns member's 0-based rank in ascending order and its score.
func (z *ZSet) Rank(member []byte) (rank int, score float64, ok bool) {
	if b := z.big(); b != nil {
		n := b.ht.getBytes(member)
		if n == nil {
			return 0, 0, false
		}
		return b.tree.rank(n.score, n.member), n.score, true
	}
	r := 0
	for off := 0; off < len(z.buf()); r++ {
		m, s, next := smallEntry(z.buf(), off)
		if string(m) == string(member) {
			return r, s, true
		}
		off = next
	}
	return 0, 0, false
}

// At returns the element of rank r (0 <= r < Len()).
func (z *ZSet) At(r int) (member []byte, score float64) {
	if b := z.big(); b != nil {
		l, i := b.tree.at(r)
		n := l.items[i]
		return bytesOf(n.member), n.score
	}
	m, s, _ := smallEntry(z.buf(), smallOffset(z.buf(), r))
	return m, s
}

// bytesOf returns the bytes of s without copying; they must not be
// modified.
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// Walk calls fn with the elements from rank from on, ascending or (if
// reverse) descending, until fn returns false or they run out.
func (z *ZSet) Walk(from int, reverse bool, fn func(member []byte, score float64) bool) {
	if from < 0 || from >= z.Len() {
		return
	}
	if b := z.big(); b != nil {
		b.tree.walk(from, reverse, func(n *node) bool { return fn(bytesOf(n.member), n.score) })
		return
	}
	if !reverse {
		for off := smallOffset(z.buf(), from); off < len(z.buf()); {
			m, s, next := smallEntry(z.buf(), off)
			if !fn(m, s) {
				return
			}
			off = next
		}
		return
	}
	var stack [130]int
	offs := smallOffsets(z.buf(), stack[:0])
	for i := from; i >= 0; i-- {
		m, s, _ := smallEntry(z.buf(), offs[i])
		if !fn(m, s) {
			return
		}
	}
}

// DeleteRange removes the elements of ranks [lo, hi) and returns how many
// it removed.
func (z *ZSet) DeleteRange(lo, hi int) int {
	lo, hi = max(lo, 0), min(hi, z.Len())
	if lo >= hi {
		return 0
	}
	if b := z.big(); b != nil {
		if n := b.tree.n; hi-lo > 64 && hi-lo > n/8 {
			// A big part goes: rebuild the tree from the rest, O(n),
			// rather than remove elements one at a time, O(k log n).
			kept := make([]*node, 0, n-(hi-lo))
			r := 0
			b.tree.walk(0, false, func(x *node) bool {
				if r < lo || r >= hi {
					kept = append(kept, x)
				} else {
					b.ht.remove(x.member)
					b.memberBytes -= allocSize(len(x.member))
				}
				r++
				return true
			})
			b.tree = buildBTree(kept)
			return hi - lo
		}
		for i := lo; i < hi; i++ {
			l, j := b.tree.at(lo)
			n := l.items[j]
			b.tree.remove(n.score, n.member)
			b.ht.remove(n.member)
			b.memberBytes -= allocSize(len(n.member))
		}
		return hi - lo
	}
	buf := z.buf()
	from := smallOffset(buf, lo)
	to := from + smallOffset(buf[from:], hi-lo)
	z.splice(from, to-from, 0)
	z.n -= uint32(hi - lo)
	return hi - lo
}

// ScoreRange returns the ranks [lo, hi) of the elements whose score is in r.
func (z *ZSet) ScoreRange(r *ScoreRange) (lo, hi int) {
	n := z.Len()
	if r.Empty() || n == 0 {
		return 0, 0
	}
	if b := z.big(); b != nil {
		lo = b.tree.seek(func(s float64, _ string) bool { return r.GteMin(s) })
		hi = b.tree.seek(func(s float64, _ string) bool { return !r.LteMax(s) })
		return lo, max(lo, hi)
	}
	off := 0
	for ; off < len(z.buf()) && !r.GteMin(smallScore(z.buf(), off)); lo++ {
		_, _, off = smallEntry(z.buf(), off)
	}
	hi = lo
	for ; off < len(z.buf()) && r.LteMax(smallScore(z.buf(), off)); hi++ {
		_, _, off = smallEntry(z.buf(), off)
	}
	return lo, hi
}

// LexRange returns the ranks [lo, hi) of the elements whose member is in
// r. Lexical ranges are meant for sets whose scores are all equal; for
// others, a small set answers as a Redis listpack does, scanning from the
// low end (or, if reverse, from the high end, as ZREVRANGEBYLEX does).
func (z *ZSet) LexRange(r *LexRange, reverse bool) (lo, hi int) {
	n := z.Len()
	if r.Empty() || n == 0 {
		return 0, 0
	}
	if b := z.big(); b != nil {
		// zslIsInLexRange: some of the set can be in range.
		first, last := b.tree.first.items[0], b.tree.last.items[len(b.tree.last.items)-1]
		if !r.GteMin(bytesOf(last.member)) || !r.LteMax(bytesOf(first.member)) {
			return 0, 0
		}
		lo = b.tree.seek(func(_ float64, m string) bool { return r.GteMin(bytesOf(m)) })
		hi = b.tree.seek(func(_ float64, m string) bool { return !r.LteMax(bytesOf(m)) })
		return lo, max(lo, hi)
	}
	var stack [130]int
	offs := smallOffsets(z.buf(), stack[:0])
	member := func(i int) []byte { m, _, _ := smallEntry(z.buf(), offs[i]); return m }
	// zzlIsInLexRange: some of the set can be in range.
	if !r.GteMin(member(n-1)) || !r.LteMax(member(0)) {
		return 0, 0
	}
	if !reverse {
		for lo = 0; lo < n && !r.GteMin(member(lo)); lo++ {
		}
		for hi = lo; hi < n && r.LteMax(member(hi)); hi++ {
		}
		return lo, hi
	}
	for hi = n; hi > 0 && !r.LteMax(member(hi-1)); hi-- {
	}
	for lo = hi; lo > 0 && r.GteMin(member(lo-1)); lo-- {
	}
	return lo, hi
}

// Scan visits about count elements from cursor on and returns the cursor
// to continue from (0 when done), as Redis's ZSCAN does: a small set is
// returned whole at once; a big one by hash-table buckets, so that every
// element present for the whole iteration is returned at least once.
// count counts reply items as Redis does (two per element).
func (z *ZSet) Scan(cursor uint64, count int, fn func(member []byte, score float64)) uint64 {
	b := z.big()
	if b == nil {
		buf := z.buf()
		for off := 0; off < len(buf); {
			m, s, next := smallEntry(buf, off)
			fn(m, s)
			off = next
		}
		return 0
	}
	items := 0
	maxIter := count * 10
	for {
		cursor = b.ht.scan(cursor, func(n *node) {
			fn(bytesOf(n.member), n.score)
			items += 2
		})
		if cursor == 0 || maxIter == 0 || items >= count {
			return cursor
		}
		maxIter--
	}
}

// Clone returns a deep copy in the same form (for COPY).
func (z *ZSet) Clone() any {
	if z.big() == nil {
		d := &ZSet{n: z.n}
		copy(d.splice(0, 0, int(z.size)), z.buf())
		return d
	}
	elems := make([]Elem, 0, z.Len())
	z.big().tree.walk(0, false, func(n *node) bool {
		elems = append(elems, Elem{n.member, n.score})
		return true
	})
	return NewFromSorted(elems, false)
}

// Per-element costs of the big form beyond the member bytes: the node (32
// bytes) and its slot in a leaf of the tree (8 bytes at about 3/4 fill).
const (
	bigElemOverhead = 32 + 11
	zsetOverhead    = 16 // the ZSet
)

// MemSize estimates the bytes the set occupies.
func (z *ZSet) MemSize() int64 {
	if b := z.big(); b != nil {
		return zsetOverhead + 64 + int64(b.tree.n)*bigElemOverhead + b.memberBytes + int64(b.ht.buckets())*8
	}
	return zsetOverhead + int64(block.Size(int(z.size)))
}

// allocSize approximates the bytes the Go allocator gives a string of n
// bytes.
func allocSize(n int) int64 {
	switch {
	case n == 0:
		return 0
	case n <= 8:
		return 8
	}
	return int64(n+15) &^ 15
}

// The small form, like Redis's listpack, is one flat byte slice holding
// the elements in (score, member) order, each encoded as
//
//	uvarint(len(member)<<1 | 1) | member | zigzag varint(score)
//	uvarint(len(member)<<1)     | member | score (IEEE 754 bits, little endian)
//
// the first for a score that is an integer of at most 2^53 in magnitude
// (a listpack stores those as integers too: a score of 0..127 takes one
// byte), the second for any other.
//
// Every operation is a linear scan, which for the few elements and short
// members the thresholds allow is faster than any pointer structure.

// scoreInt returns score as an integer when the small form stores it so.
func scoreInt(score float64) (int64, bool) {
	if score >= -(1<<53) && score <= 1<<53 && score == math.Trunc(score) {
		return int64(score), true
	}
	return 0, false
}

// smallEntry decodes the entry at off and returns it with the offset of
// the next one. member aliases buf.
func smallEntry(buf []byte, off int) (member []byte, score float64, next int) {
	h, k := binary.Uvarint(buf[off:])
	off += k
	end := off + int(h>>1)
	member = buf[off:end:end]
	if h&1 != 0 {
		v, k := binary.Varint(buf[end:])
		return member, float64(v), end + k
	}
	score = math.Float64frombits(binary.LittleEndian.Uint64(buf[end:]))
	return member, score, end + 8
}

// smallScore returns the score of the entry at off.
func smallScore(buf []byte, off int) float64 {
	_, s, _ := smallEntry(buf, off)
	return s
}

func entrySize(memberLen int, score float64) int {
	h := uint64(memberLen) << 1
	if v, ok := scoreInt(score); ok {
		return uvarintLen(h|1) + memberLen + uvarintLen(uint64(v<<1)^uint64(v>>63))
	}
	return uvarintLen(h) + memberLen + 8
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// smallFind returns the offset and score of member, or ok == false.
func smallFind(buf []byte, member []byte) (off int, score float64, ok bool) {
	for off < len(buf) {
		h, k := binary.Uvarint(buf[off:])
		start := off + k
		end := start + int(h>>1)
		if bytes.Equal(buf[start:end], member) {
			_, s, _ := smallEntry(buf, off)
			return off, s, true
		}
		if h&1 == 0 {
			off = end + 8
			continue
		}
		for buf[end] >= 0x80 {
			end++
		}
		off = end + 1
	}
	return 0, 0, false
}

// insertPos returns the offset in buf where (member, score), which must
// not be present, goes in the order.
func insertPos(buf []byte, member []byte, score float64) int {
	off := 0
	for off < len(buf) {
		m, s, next := smallEntry(buf, off)
		if s > score || s == score && bytes.Compare(m, member) > 0 {
			break
		}
		off = next
	}
	return off
}

// smallInsert inserts (member, score), which must not be present, at its
// place in the order of the small form.
func (z *ZSet) smallInsert(member []byte, score float64) {
	off := insertPos(z.buf(), member, score)
	buf := z.splice(off, 0, entrySize(len(member), zeroed(score)))
	putEntry(buf[off:], member, score)
}

// smallMove gives member, whose entry is buf[off:next], the new score and
// moves it to its place, reallocating the block at most once (a deletion
// and an insertion could each reallocate at a block.Size boundary).
func (z *ZSet) smallMove(off, next int, member []byte, score float64) {
	blk := unsafe.Slice((*byte)(z.p), block.Size(int(z.size))) // p != nil: the set holds member
	buf := blk[:z.size]
	// Delete in place; the block stays as it is until the end.
	buf = buf[:len(buf)-(next-off)]
	copy(buf[off:], blk[next:z.size])
	ins := insertPos(buf, member, score)
	size := entrySize(len(member), zeroed(score))
	n := len(buf) + size
	if block.Size(n) == len(blk) {
		buf = blk[:n]
		copy(buf[ins+size:], buf[ins:n-size])
	} else {
		nb := make([]byte, block.Size(n))
		copy(nb, buf[:ins])
		copy(nb[ins+size:], buf[ins:])
		z.p, buf = unsafe.Pointer(unsafe.SliceData(nb)), nb[:n]
	}
	putEntry(buf[ins:], member, score)
	z.size = uint32(n)
}

// zeroed returns score with -0 as 0, as a listpack stores a score that is
// an integer.
func zeroed(score float64) float64 {
	if score == 0 {
		return 0
	}
	return score
}

// putEntry writes (member, score) at the start of buf, which has room for
// it, and returns its size, entrySize(len(member), zeroed(score)).
func putEntry[T string | []byte](buf []byte, member T, score float64) int {
	score = zeroed(score)
	p := 0
	h := uint64(len(member)) << 1
	v, isInt := scoreInt(score)
	if isInt {
		h |= 1
	}
	p += binary.PutUvarint(buf[p:], h)
	p += copy(buf[p:], member)
	if isInt {
		return p + binary.PutVarint(buf[p:], v)
	}
	binary.LittleEndian.PutUint64(buf[p:], math.Float64bits(score))
	return p + 8
}

// smallOffsets appends to offs the offset of every entry, plus len(buf)
// at the end.
func smallOffsets(buf []byte, offs []int) []int {
	off := 0
	for off < len(buf) {
		offs = append(offs, off)
		_, _, off = smallEntry(buf, off)
	}
	return append(offs, off)
}

// smallOffset returns the offset of the entry of rank r (len(buf) when r
// is the number of entries).
func smallOffset(buf []byte, r int) int {
	off := 0
	for ; r > 0 && off < len(buf); r-- {
		_, _, off = smallEntry(buf, off)
	}
	return off
}
