package list

import (
	"math"
	"sync"

	"github.com/hotkv/hotkv/lzf"
)

// Compression (list-compress-depth), as Redis's quicklist does it: the
// depth nodes at each end of a list stay raw, and every other node of at
// least minCompressBytes is held LZF-compressed, unless compressing it
// saves fewer than minCompressImprove bytes (then it stays raw). Depth 0
// compresses nothing.
//
// A compressed node keeps its LZF bytes in b (exactly sized, so b[0:] is
// the whole stream) and the size of its entries, negated, in off: off < 0
// marks a compressed node. Readers decompress a node into a scratch
// buffer, never into the list, so that readers may still share a list;
// writers decompress the nodes they edit (unpack) and, once done, restore
// the invariant with settle: exactly the nodes outside the depth windows
// that can be compressed are compressed.
const (
	minCompressBytes   = 48 // MIN_COMPRESS_BYTES
	minCompressImprove = 8  // MIN_COMPRESS_IMPROVE
	// maxDepth is the largest depth Redis accepts (COMPRESS_MAX).
	maxDepth = 1<<16 - 1
)

// compressed reports whether nd holds LZF-compressed entries.
func (nd *node) compressed() bool { return nd.off < 0 }

// rawSize is the bytes nd's entries take uncompressed.
func (nd *node) rawSize() int {
	if nd.off < 0 {
		return int(-nd.off)
	}
	return len(nd.b) - int(nd.off)
}

// scratchMax is the largest buffer kept in the scratch pool: a node
// bounded by the fill is at most 64 KB; larger (plain) nodes get buffers
// of their own.
const scratchMax = 1 << 17

var scratchPool = sync.Pool{New: func() any { return new([]byte) }}

// getScratch returns a pooled buffer (release it with putScratch).
func getScratch() *[]byte { return scratchPool.Get().(*[]byte) }

func putScratch(sp *[]byte) {
	if cap(*sp) <= scratchMax {
		scratchPool.Put(sp)
	}
}

// entries returns nd's entries as b[off:]: its own buffer when it is raw,
// or *buf (grown as needed) holding them decompressed, with off 0. It
// writes nothing but *buf.
func (nd *node) entries(buf *[]byte) (b []byte, off int) {
	if nd.off >= 0 {
		return nd.b, int(nd.off)
	}
	n := int(-nd.off)
	if cap(*buf) < n {
		*buf = make([]byte, n)
	}
	b = (*buf)[:n]
	if err := lzf.DecompressTo(b, nd.b); err != nil {
		panic("list: corrupt compressed node")
	}
	return b, 0
}

// unpack makes the node dir[di] raw, if it is compressed: its entries get
// a buffer of their own, exactly sized, from offset 0 (the offsets of a
// view given by entries stay valid).
func (l *List) unpack(di int) {
	nd := &l.dir[di]
	if nd.off >= 0 {
		return
	}
	b := make([]byte, -nd.off)
	if err := lzf.DecompressTo(b, nd.b); err != nil {
		panic("list: corrupt compressed node")
	}
	l.bufMem += int64(cap(b) - cap(nd.b))
	nd.b, nd.off = b, 0
}

// pack compresses the node dir[di] if it is raw, holds at least
// minCompressBytes and compressing saves at least minCompressImprove
// bytes (__quicklistCompressNode).
func (l *List) pack(di int) {
	nd := &l.dir[di]
	if nd.off < 0 {
		return
	}
	sz := nd.size()
	if sz < minCompressBytes || sz > math.MaxInt32 {
		return
	}
	sp := getScratch()
	if cap(*sp) < sz {
		*sp = make([]byte, sz)
	}
	out := (*sp)[:sz]
	c := lzf.CompressTo(out, nd.b[nd.off:])
	if c > 0 && c+minCompressImprove < sz {
		b := make([]byte, c)
		copy(b, out)
		l.bufMem += int64(cap(b) - cap(nd.b))
		nd.b, nd.off = b, -int32(sz)
	}
	putScratch(sp)
}

// settle restores the compression invariant after a change to the list
// (__quicklistCompress): the nodes of each depth window are made raw, and
// those outside both windows that may have become compressible are
// compressed. a..b are the positions (0 is the head node) of the nodes the
// change edited or created, and added the number of nodes it added: the
// nodes that left a window are within added positions of its edge. Every
// other node kept both its contents and its side of the windows.
func (l *List) settle(a, b, added int) {
	d := int(l.depth)
	k := l.hi - l.lo
	for i := range min(d, k) {
		l.unpack(l.lo + i)
		l.unpack(l.hi - 1 - i)
	}
	if k <= 2*d {
		return
	}
	last := k - 1 - d // the last position outside the windows
	for i := d; i < d+added && i <= last; i++ {
		l.pack(l.lo + i)
	}
	for i := last; i > last-added && i >= d; i-- {
		l.pack(l.lo + i)
	}
	for i := max(a, d); i <= min(b, last); i++ {
		l.pack(l.lo + i)
	}
}

// NewCompressed returns an empty list whose nodes follow fill (as New)
// and which keeps all but the depth nodes at each end compressed (Redis's
// list-compress-depth; 0 compresses nothing, and depth is clamped to
// 0..65535 as Redis does).
func NewCompressed(fill, depth int) *List {
	l := New(fill)
	l.depth = int32(min(max(depth, 0), maxDepth))
	return l
}

// CompressDepth returns the list's compression depth (0: none).
func (l *List) CompressDepth() int { return int(l.depth) }

// RawSize returns the bytes the list's entries take uncompressed: the sum
// of its nodes' sizes (DEBUG OBJECT's ql_uncompressed_size).
func (l *List) RawSize() int {
	n := 0
	for i := l.lo; i < l.hi; i++ {
		n += l.dir[i].rawSize()
	}
	return n
}

// CompressedNodes returns the number of nodes held compressed.
func (l *List) CompressedNodes() int {
	n := 0
	for i := l.lo; i < l.hi; i++ {
		if l.dir[i].compressed() {
			n++
		}
	}
	return n
}
