// Package list is HotKV's list value: a deque of small chunks ("nodes"),
// each a flat byte buffer of encoded entries, like Redis's quicklist of
// listpacks.
//
// Nodes are sized by the fill factor Redis calls list-max-listpack-size: a
// negative fill bounds a node's bytes (-1: 4 KB, -2: 8 KB, -3: 16 KB,
// -4: 32 KB, -5: 64 KB), a positive one its number of entries (with an
// 8 KB safety limit). The nodes live in a directory that has free slots at
// both ends, and each node's buffer keeps free room on both sides of its
// entries, so pushes and pops at either end cost O(1) amortized. Finding
// an index scans the directory's entry counts from the nearer end and then
// one node's entries: O(nodes + node size).
//
// With a compression depth (NewCompressed, Redis's list-compress-depth)
// the nodes away from the ends are held LZF-compressed; see compress.go.
//
// A List is not safe for concurrent use: readers may share it (no method
// that only reads writes anything), writers need it to themselves.
package list

import (
	"slices"
	"sync/atomic"
)

// Fill limits, as Redis's quicklist sets them.
const (
	// sizeSafetyLimit bounds a node's bytes when the fill counts entries.
	sizeSafetyLimit = 8192
	// maxFill is the largest positive fill Redis accepts (FILL_MAX).
	maxFill = 1<<15 - 1
)

// optimizationLevel is the byte limit of a node for fill -1 ... -5.
var optimizationLevel = [...]int{4096, 8192, 16384, 32768, 65536}

// node is one chunk: n entries occupying b[off:len(b)], or, when off is
// negative, compressed: b holds the LZF stream of the -off bytes of its
// entries. A node in a list is never empty.
type node struct {
	b   []byte
	off int32
	n   int32
}

// size is the bytes the entries of a raw node take.
func (nd *node) size() int { return len(nd.b) - int(nd.off) }

// nodeSize is unsafe.Sizeof(node{}).
const nodeSize = 32

// listSize is unsafe.Sizeof(List{}), a size class of its own.
const listSize = 96

// List is a list of byte strings.
//
// The directory of a list of one node (most small lists) is one[:], in the
// List itself, so that such a list takes no allocation for it; one[0] is
// the zero node whenever dir is not one[:], so that it holds no buffer
// alive. Because dir may point into the List, a List must not be copied.
type List struct {
	dir    []node // the nodes, in order, are dir[lo:hi]
	lo, hi int
	count  int
	bufMem int64 // sum of the capacities of the nodes' buffers
	fill   int32 // -5 .. maxFill
	depth  int32 // compression depth, 0 .. maxDepth; 0: no node is compressed
	one    [1]node
}

// New returns an empty, uncompressed list whose nodes follow fill (Redis's
// list-max-listpack-size; out-of-range values are clamped as Redis does).
func New(fill int) *List {
	switch {
	case fill > maxFill:
		fill = maxFill
	case fill < -len(optimizationLevel):
		fill = -len(optimizationLevel)
	case fill == 0:
		// Redis treats 0 like a count limit that is always reached: a
		// node per entry.
	}
	return &List{fill: int32(fill)}
}

// Len returns the number of entries.
func (l *List) Len() int { return l.count }

// Fill returns the list's fill factor.
func (l *List) Fill() int { return int(l.fill) }

// Nodes returns the number of nodes (for tests and statistics).
func (l *List) Nodes() int { return l.hi - l.lo }

// MemSize estimates the bytes the list occupies.
func (l *List) MemSize() int64 {
	dir := int64(cap(l.dir)) * nodeSize
	if l.dir != nil && &l.dir[0] == &l.one[0] {
		dir = 0 // counted in listSize
	}
	return listSize + dir + l.bufMem
}

// Encoding is the name Redis 7.0 gives this representation (OBJECT
// ENCODING).
func (l *List) Encoding() string { return "quicklist" }

// Clone returns a deep copy of l as an any (keyspace.Cloner).
func (l *List) Clone() any { return l.Copy() }

// Copy returns a deep copy of l, its nodes' buffers trimmed to size.
func (l *List) Copy() *List {
	k := l.hi - l.lo
	d := &List{fill: l.fill, depth: l.depth, count: l.count, hi: k}
	if k == 1 {
		d.dir = d.one[:]
	} else if k > 1 {
		d.dir = make([]node, k)
	}
	for i := range k {
		src := &l.dir[l.lo+i]
		b := append([]byte(nil), src.b[max(src.off, 0):]...)
		d.dir[i] = node{b: b, off: min(src.off, 0), n: src.n}
		d.bufMem += int64(cap(b))
	}
	return d
}

// maxBytes is the byte limit of a node, past which a node holds a single
// (large) entry.
func (l *List) maxBytes() int {
	if l.fill < 0 {
		return optimizationLevel[-l.fill-1]
	}
	return sizeSafetyLimit
}

// defaultPackedThreshold is the size from which an entry is "plain": alone
// in its node, which takes no other entry (quicklist's packed_threshold).
const defaultPackedThreshold = 1 << 30

var packedThreshold atomic.Int64

func init() { packedThreshold.Store(defaultPackedThreshold) }

// SetPackedThreshold sets the size from which entries get a node of their
// own (DEBUG QUICKLIST-PACKED-THRESHOLD; 0 restores the default of 1 GB)
// for every list, and reports false, changing nothing, for a size that
// is not below 4 GB by at least 1 MB (quicklistisSetPackedThreshold).
func SetPackedThreshold(sz uint64) bool {
	switch {
	case sz > 1<<32-1<<20:
		return false
	case sz == 0:
		sz = defaultPackedThreshold
	}
	packedThreshold.Store(int64(sz))
	return true
}

// large reports whether a value of n bytes is a plain entry.
func large(n int) bool { return int64(n) >= packedThreshold.Load() }

// plain reports whether nd holds a single plain entry.
func plain(nd *node) bool {
	if nd.n != 1 || !large(nd.rawSize()-2) { // header and backlen are at least 2 bytes
		return false
	}
	var sc [20]byte
	if nd.compressed() {
		sp := getScratch()
		defer putScratch(sp)
		b, off := nd.entries(sp)
		v, _ := valueAt(b, off, &sc)
		return large(len(v))
	}
	v, _ := valueAt(nd.b, int(nd.off), &sc)
	return large(len(v))
}

// allow reports whether the raw node nd may take one more entry, e
// (_quicklistNodeAllowInsert): an empty node takes anything, a plain entry
// goes to a node of its own, and a plain node takes nothing more.
func (l *List) allow(nd *node, e *encoded) bool {
	if nd.n == 0 {
		return true
	}
	if large(len(e.v)) || plain(nd) {
		return false
	}
	sz := nd.size() + e.size
	if l.fill < 0 {
		return sz <= optimizationLevel[-l.fill-1]
	}
	return sz <= sizeSafetyLimit && nd.n < l.fill
}

// allowMerge reports whether a and b fit in one node.
func (l *List) allowMerge(a, b *node) bool {
	if plain(a) || plain(b) {
		return false
	}
	sz := a.rawSize() + b.rawSize()
	if l.fill < 0 {
		return sz <= optimizationLevel[-l.fill-1]
	}
	return sz <= sizeSafetyLimit && a.n+b.n <= l.fill
}

// --- the directory ---

// insertNode inserts nd as the i-th node (0 <= i <= Nodes()).
func (l *List) insertNode(i int, nd node) {
	k := l.hi - l.lo
	switch {
	case i == 0 && l.lo > 0:
		l.lo--
	case i == k && l.hi < len(l.dir):
		l.hi++
	case l.hi < len(l.dir) && (2*i >= k || l.lo == 0):
		copy(l.dir[l.lo+i+1:l.hi+1], l.dir[l.lo+i:l.hi])
		l.hi++
	case l.lo > 0:
		copy(l.dir[l.lo-1:l.lo+i-1], l.dir[l.lo:l.lo+i])
		l.lo--
	default:
		l.regrowDir(k+1, i)
	}
	l.dir[l.lo+i] = nd
}

// regrowDir moves the k-1 nodes to a new directory for k nodes, leaving
// slot i free, with free slots on both sides: one[:] for a single node.
func (l *List) regrowDir(k, i int) {
	if k == 1 {
		l.dir, l.lo, l.hi = l.one[:], 0, 1
		return
	}
	c := max(4, 2*k)
	d := make([]node, c)
	lo := (c - k) / 2
	copy(d[lo:], l.dir[l.lo:l.lo+i])
	copy(d[lo+i+1:], l.dir[l.lo+i:l.hi])
	l.dir, l.lo, l.hi = d, lo, lo+k
	l.one[0] = node{}
}

// removeNode removes the i-th node, shifting the shorter side.
func (l *List) removeNode(i int) {
	k := l.hi - l.lo
	l.bufMem -= int64(cap(l.dir[l.lo+i].b))
	if 2*i < k {
		copy(l.dir[l.lo+1:l.lo+i+1], l.dir[l.lo:l.lo+i])
		l.dir[l.lo] = node{}
		l.lo++
	} else {
		copy(l.dir[l.lo+i:l.hi-1], l.dir[l.lo+i+1:l.hi])
		l.hi--
		l.dir[l.hi] = node{}
	}
	switch k--; {
	case k == 0:
		l.dir, l.lo, l.hi = nil, 0, 0
	case len(l.dir) > 64 && k < len(l.dir)/8:
		d := make([]node, 2*k)
		lo := k / 2
		copy(d[lo:], l.dir[l.lo:l.hi])
		l.dir, l.lo, l.hi = d, lo, lo+k
	}
}

// --- node buffers ---

// smallBuffer is the size below which a node's buffer grows by half rather
// than doubling.
const smallBuffer = 256

// openGap makes the newLen bytes at p of nd's buffer writable in place of
// the oldLen bytes there (p is an offset into nd.b; p+oldLen <= len(nd.b))
// and returns where they now start. The entries before and after keep
// their order; whichever side is cheaper moves.
func (l *List) openGap(nd *node, p, oldLen, newLen int) int {
	delta := newLen - oldLen
	off, end := int(nd.off), len(nd.b)
	pre, suf := p-off, end-p-oldLen
	if delta == 0 {
		return p
	}
	if delta < 0 {
		d := -delta
		if pre < suf {
			copy(nd.b[off+d:p+d], nd.b[off:p])
			nd.off = int32(off + d)
			return p + d
		}
		copy(nd.b[p+newLen:], nd.b[p+oldLen:end])
		nd.b = nd.b[:end-d]
		return p
	}
	front, back := off, cap(nd.b)-end
	if front >= delta && (pre <= suf || back < delta) {
		copy(nd.b[off-delta:p-delta], nd.b[off:p])
		nd.off = int32(off - delta)
		return p - delta
	}
	if back >= delta {
		nd.b = nd.b[:end+delta]
		copy(nd.b[p+newLen:], nd.b[p+oldLen:end])
		return p
	}
	// Neither side has the room: spread the free space (in place when the
	// buffer is already as large as a node gets), or grow the buffer.
	sz := end - off + delta
	want := 2 * sz
	if sz < smallBuffer {
		want = sz + sz/2 // most lists are short: keep their one buffer tight
	}
	if lim := l.maxBytes(); want > lim {
		want = max(sz, lim)
	}
	inPlace := want <= cap(nd.b)
	var nb []byte
	if inPlace {
		nb = nd.b[:cap(nd.b)]
	} else {
		nb = slices.Grow([]byte(nil), want)
		nb = nb[:cap(nb)]
	}
	slack := len(nb) - sz
	var newOff int
	switch {
	case pre == 0 && suf > 0:
		newOff = slack // pushing at the front: keep room there
	case suf == 0 && pre > 0:
		newOff = 0
	default:
		newOff = slack / 2
	}
	src := nd.b
	if inPlace && newOff > off {
		copy(nb[newOff+pre+newLen:], src[p+oldLen:end])
		copy(nb[newOff:], src[off:p])
	} else {
		copy(nb[newOff:], src[off:p])
		copy(nb[newOff+pre+newLen:], src[p+oldLen:end])
	}
	if !inPlace {
		l.bufMem += int64(cap(nb) - cap(nd.b))
	}
	nd.b = nb[:newOff+sz]
	nd.off = int32(newOff)
	return newOff + pre
}

// pushInto adds e at the front or back of the i-th node.
func (l *List) pushInto(i int, e *encoded, front bool) {
	nd := &l.dir[l.lo+i]
	p := len(nd.b)
	if front {
		p = int(nd.off)
	}
	p = l.openGap(nd, p, 0, e.size)
	e.put(nd.b[p : p+e.size])
	nd.n++
	l.count++
}

// PushFront adds v (copied) at the head.
func (l *List) PushFront(v []byte) {
	e := encode(v)
	if l.hi == l.lo || !l.allow(&l.dir[l.lo], &e) {
		l.insertNode(0, node{})
		l.pushInto(0, &e, true)
		if l.depth > 0 {
			l.settle(0, 0, 1)
		}
		return
	}
	l.pushInto(0, &e, true) // the head node is raw: it is in the window
}

// PushBack adds v (copied) at the tail.
func (l *List) PushBack(v []byte) {
	e := encode(v)
	if l.hi == l.lo || !l.allow(&l.dir[l.hi-1], &e) {
		l.PushBackNode(v)
		return
	}
	l.pushInto(l.hi-l.lo-1, &e, false) // the tail node is raw
}

// NodeLens appends the number of entries of each node, head to tail, to
// dst (the layout a list rebuilt with PushBackNode keeps).
func (l *List) NodeLens(dst []int) []int {
	for i := l.lo; i < l.hi; i++ {
		dst = append(dst, int(l.dir[i].n))
	}
	return dst
}

// PushBackNode appends v as the first entry of a new tail node, whatever
// room the tail node has: a list rebuilt from its entries and NodeLens
// gets the nodes it had (the later entries of each node go in with
// PushBack).
func (l *List) PushBackNode(v []byte) {
	e := encode(v)
	l.insertNode(l.hi-l.lo, node{})
	l.pushInto(l.hi-l.lo-1, &e, false)
	if l.depth > 0 {
		l.settle(l.hi-l.lo-1, l.hi-l.lo-1, 1)
	}
}

// PopFront removes the head and appends its value to dst. ok is false
// when the list is empty.
func (l *List) PopFront(dst []byte) (_ []byte, ok bool) {
	if l.count == 0 {
		return dst, false
	}
	nd := &l.dir[l.lo]
	var sc [20]byte
	v, sz := valueAt(nd.b, int(nd.off), &sc)
	dst = append(dst, v...)
	nd.off += int32(sz)
	l.dropped(0, nd)
	return dst, true
}

// PopBack removes the tail and appends its value to dst. ok is false when
// the list is empty.
func (l *List) PopBack(dst []byte) (_ []byte, ok bool) {
	if l.count == 0 {
		return dst, false
	}
	i := l.hi - l.lo - 1
	nd := &l.dir[l.hi-1]
	p := prevStart(nd.b, len(nd.b))
	var sc [20]byte
	v, _ := valueAt(nd.b, p, &sc)
	dst = append(dst, v...)
	nd.b = nd.b[:p]
	l.dropped(i, nd)
	return dst, true
}

// dropped accounts for one entry removed from the i-th node (an end
// node, so raw), removing the node when it is empty.
func (l *List) dropped(i int, nd *node) {
	nd.n--
	l.count--
	if nd.n == 0 {
		l.removeNode(i)
		if l.depth > 0 {
			l.settle(1, 0, 0) // a node may have entered a window
		}
	} else {
		l.shrink(nd)
	}
}

// shrink gives the raw node nd a smaller buffer when its entries fill a
// quarter of it or less, as a listpack shrinks when entries are deleted.
func (l *List) shrink(nd *node) {
	c, sz := cap(nd.b), nd.size()
	if c <= 512 || c < 4*sz {
		return
	}
	nb := slices.Grow([]byte(nil), 2*sz)
	nb = nb[:cap(nb)]
	off := (len(nb) - sz) / 2
	copy(nb[off:], nd.b[nd.off:])
	l.bufMem += int64(cap(nb) - c)
	nd.b = nb[:off+sz]
	nd.off = int32(off)
}

// Clear removes every entry.
func (l *List) Clear() {
	l.dir, l.lo, l.hi, l.count, l.bufMem = nil, 0, 0, 0, 0
	l.one[0] = node{}
}

// TrimFront removes the first k entries (all when k >= Len()).
func (l *List) TrimFront(k int) {
	if k >= l.count {
		l.Clear()
		return
	}
	for k > 0 {
		nd := &l.dir[l.lo]
		if int(nd.n) <= k {
			k -= int(nd.n)
			l.count -= int(nd.n)
			l.removeNode(0)
			continue
		}
		l.unpack(l.lo)
		p := int(nd.off)
		for j := 0; j < k; j++ {
			p += sizeAt(nd.b, p)
		}
		nd.off = int32(p)
		nd.n -= int32(k)
		l.count -= k
		k = 0
		l.shrink(nd)
	}
	if l.depth > 0 {
		l.settle(1, 0, 0)
	}
}

// TrimBack removes the last k entries (all when k >= Len()).
func (l *List) TrimBack(k int) {
	if k >= l.count {
		l.Clear()
		return
	}
	for k > 0 {
		i := l.hi - l.lo - 1
		nd := &l.dir[l.hi-1]
		if int(nd.n) <= k {
			k -= int(nd.n)
			l.count -= int(nd.n)
			l.removeNode(i)
			continue
		}
		l.unpack(l.hi - 1)
		p := len(nd.b)
		for j := 0; j < k; j++ {
			p = prevStart(nd.b, p)
		}
		nd.b = nd.b[:p]
		nd.n -= int32(k)
		l.count -= k
		k = 0
		l.shrink(nd)
	}
	if l.depth > 0 {
		l.settle(1, 0, 0)
	}
}

// find finds entry i (0 <= i < Len()): its node's position in dir and
// its position among the node's entries.
func (l *List) find(i int) (di, j int) {
	if i < l.count/2 {
		for di = l.lo; ; di++ {
			n := int(l.dir[di].n)
			if i < n {
				return di, i
			}
			i -= n
		}
	}
	k := l.count - 1 - i // from the tail
	for di = l.hi - 1; ; di-- {
		n := int(l.dir[di].n)
		if k < n {
			return di, n - 1 - k
		}
		k -= n
	}
}

// seek returns the offset in b of the j-th of the n entries b[off:].
func seek(b []byte, off, n, j int) int {
	if 2*j < n {
		p := off
		for ; j > 0; j-- {
			p += sizeAt(b, p)
		}
		return p
	}
	p := len(b)
	for k := n - j; k > 0; k-- {
		p = prevStart(b, p)
	}
	return p
}

// Index appends entry i to dst (negative i counts from the tail, -1 being
// the last entry). ok is false when i is out of range.
func (l *List) Index(i int, dst []byte) (_ []byte, ok bool) {
	if i < 0 {
		i += l.count
	}
	if i < 0 || i >= l.count {
		return dst, false
	}
	di, j := l.find(i)
	nd := &l.dir[di]
	var sc [20]byte
	if nd.compressed() {
		sp := getScratch()
		b, off := nd.entries(sp)
		v, _ := valueAt(b, seek(b, off, int(nd.n), j), &sc)
		dst = append(dst, v...)
		putScratch(sp)
		return dst, true
	}
	v, _ := valueAt(nd.b, seek(nd.b, int(nd.off), int(nd.n), j), &sc)
	return append(dst, v...), true
}

// Set replaces entry i (negative i counts from the tail) with v (copied).
// It returns false when i is out of range.
func (l *List) Set(i int, v []byte) bool {
	if i < 0 {
		i += l.count
	}
	if i < 0 || i >= l.count {
		return false
	}
	di, j := l.find(i)
	l.unpack(di)
	nd := &l.dir[di]
	p := seek(nd.b, int(nd.off), int(nd.n), j)
	e := encode(v)
	p = l.openGap(nd, p, sizeAt(nd.b, p), e.size)
	e.put(nd.b[p : p+e.size])
	i, added := di-l.lo, 0
	if nd.n > 1 && (nd.size() > l.maxBytes() || large(len(v))) {
		// The node outgrew its limit, or the entry is plain: give the
		// new entry a node of its own, as Redis keeps large entries apart.
		if end := p + e.size; end < len(nd.b) {
			l.splitNode(i, end)
			added++
		}
		if p > int(l.dir[l.lo+i].off) {
			l.splitNode(i, p)
			added++
		}
	}
	if l.depth > 0 {
		l.settle(i, i+added, added)
	}
	return true
}

// splitNode splits the raw i-th node at buffer offset p (strictly inside its
// entries): the entries from p on move to a new node after it.
func (l *List) splitNode(i, p int) {
	nd := &l.dir[l.lo+i]
	left := int32(0)
	for q := int(nd.off); q < p; q += sizeAt(nd.b, q) {
		left++
	}
	rb := append([]byte(nil), nd.b[p:]...)
	right := node{b: rb, n: nd.n - left}
	nd.b = nd.b[:p]
	nd.n = left
	l.bufMem += int64(cap(rb))
	l.insertNode(i+1, right)
}
