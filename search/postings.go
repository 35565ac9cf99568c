package search

import (
	"encoding/binary"
	"slices"
)

// A term's inverted index: its postings, by ascending document id,
// encoded in blocks of at most
// blockEntries entries, each block headed by its first and last document
// ids so that a reader skipping to an id passes whole blocks, and a
// removal splices its entry out of one block. An entry is a run of
// uvarints:
//
//	doc delta   the document id less the entry before's (the first
//	            entry's: less the block's first id, so 0)
//	length      the length in bytes of the rest (a reader skipping to an
//	            id passes an entry with two uvarints)
//	freq        the term's weighted frequency in the document
//	mask+1      the TEXT fields it occurs in (textID bits), plus one
//	            (NOFIELDS's all-ones mask is then one byte): the low 64
//	            bits, then, in a wide list only, the high 64 bits
//	pos deltas  its positions, ascending, each less the one before, to
//	            the entry's end (none with NOOFFSETS)
//
// A posting of a word once in a document is 5 to 7 bytes (5.7 on
// average in TestIndexMemory's load), where a struct of its fields and
// its positions took 28.

// blockEntries is the most entries a block holds.
const blockEntries = 128

// termList is a term's inverted index.
type termList struct {
	word   string
	id     uint32 // its place in Index.termByID (documents name their terms by it)
	n      int    // postings
	blocks []postBlock
	// wide lists hold the high word of their entries' masks (fields
	// 65 to 128 of a wide schema): a list widens when the first entry
	// that needs it comes.
	wide bool
}

// postBlock is a run of a term's postings.
type postBlock struct {
	first, last uint32 // the document ids of its first and last entries
	n           uint32 // entries
	data        []byte
}

// lastDoc is the id of t's last posting (t is not empty).
func (t *termList) lastDoc() uint32 { return t.blocks[len(t.blocks)-1].last }

// add appends the posting of document doc, whose id is above every
// posting's of t.
func (t *termList) add(doc, freq uint32, mask fieldMask, pos []uint32) {
	if mask.hi != 0 && !t.wide {
		t.widen()
	}
	if len(t.blocks) == 0 || t.blocks[len(t.blocks)-1].n >= blockEntries {
		if len(t.blocks) > 0 {
			// A full block is not appended to again: trim its slack.
			b := &t.blocks[len(t.blocks)-1]
			b.data = slices.Clip(slices.Clone(b.data))
		}
		t.blocks = append(t.blocks, postBlock{first: doc, last: doc})
	}
	b := &t.blocks[len(t.blocks)-1]
	b.data = binary.AppendUvarint(b.data, uint64(doc-b.last))
	n := uvarintLen(uint64(freq)) + uvarintLen(mask.lo+1)
	if t.wide {
		n += uvarintLen(mask.hi + 1)
	}
	var prev uint32
	for _, p := range pos {
		n += uvarintLen(uint64(p - prev))
		prev = p
	}
	b.data = binary.AppendUvarint(b.data, uint64(n))
	b.data = binary.AppendUvarint(b.data, uint64(freq))
	b.data = binary.AppendUvarint(b.data, mask.lo+1)
	if t.wide {
		b.data = binary.AppendUvarint(b.data, mask.hi+1)
	}
	prev = 0
	for _, p := range pos {
		b.data = binary.AppendUvarint(b.data, uint64(p-prev))
		prev = p
	}
	b.last = doc
	b.n++
	t.n++
}

// widen rewrites t's entries as a wide list's, their high mask words 0.
func (t *termList) widen() {
	old := *t
	t.blocks, t.n, t.wide = nil, 0, true
	if old.n == 0 {
		return
	}
	c := newPostCursor(&old)
	var pos []uint32
	for c.next() {
		pos = decodePositions(pos[:0], c.data[c.pos:c.posEnd])
		t.add(c.doc, c.freq, c.mask, pos)
	}
}

// remove removes the posting of document doc, if there, and reports
// whether it was.
func (t *termList) remove(doc uint32) bool {
	bi, _ := slices.BinarySearchFunc(t.blocks, doc, func(b postBlock, id uint32) int { return cmpU32(b.last, id) })
	if bi == len(t.blocks) || t.blocks[bi].first > doc {
		return false
	}
	b := &t.blocks[bi]
	if b.n == 1 {
		if b.first != doc {
			return false
		}
		t.blocks = slices.Delete(t.blocks, bi, bi+1)
		t.n--
		return true
	}
	// Find the entry, and the one before it.
	data := b.data
	off, cur, prev := 0, b.first, b.first
	for {
		if off == len(data) {
			return false
		}
		start := off
		d, n := binary.Uvarint(data[off:])
		off += n
		prev, cur = cur, cur+uint32(d)
		off = skipEntry(data, off)
		if cur < doc {
			continue
		}
		if cur > doc {
			return false
		}
		if off == len(data) {
			// The last entry: cut it off.
			b.data, b.last = data[:start], prev
			break
		}
		// The next entry's delta becomes the sum of both; the first
		// entry's delta stays 0, the block's first id moves on.
		nd, n := binary.Uvarint(data[off:])
		tail := off + n
		if start == 0 {
			b.first += uint32(nd)
			nd = 0
		} else {
			nd += d
		}
		var tmp [binary.MaxVarintLen64]byte
		k := binary.PutUvarint(tmp[:], nd)
		copy(data[start:], tmp[:k])
		m := copy(data[start+k:], data[tail:])
		b.data = data[:start+k+m]
		break
	}
	b.n--
	t.n--
	if cap(b.data) > 64 && cap(b.data) > 2*len(b.data) {
		b.data = slices.Clone(b.data)
	}
	// A block thinned by removals joins a neighbour it fits in, so that
	// a list whose documents are rewritten keeps full blocks.
	if b.n <= blockEntries/4 {
		switch {
		case bi+1 < len(t.blocks) && b.n+t.blocks[bi+1].n <= blockEntries:
			t.merge(bi)
		case bi > 0 && t.blocks[bi-1].n+b.n <= blockEntries:
			t.merge(bi - 1)
		}
	}
	return true
}

// merge appends block i+1's entries to block i's.
func (t *termList) merge(i int) {
	a, b := &t.blocks[i], &t.blocks[i+1]
	data := make([]byte, 0, len(a.data)+len(b.data)+binary.MaxVarintLen32)
	data = append(data, a.data...)
	// b's first entry's delta, 0, is one byte: its delta is now from
	// a's last entry.
	data = binary.AppendUvarint(data, uint64(b.first-a.last))
	data = append(data, b.data[1:]...)
	a.data, a.last, a.n = data, b.last, a.n+b.n
	t.blocks = slices.Delete(t.blocks, i+1, i+2)
}

// skipEntry returns the offset past the entry whose fields after its doc
// delta start at off.
func skipEntry(data []byte, off int) int {
	n, off := uvarint(data, off)
	return off + int(n)
}

// uvarintLen is the length of v as a uvarint.
func uvarintLen(v uint64) int {
	n := 1
	for ; v >= 0x80; v >>= 7 {
		n++
	}
	return n
}

// uvarint decodes the uvarint at data[off:] (valid) and returns it and
// the offset past it.
func uvarint(data []byte, off int) (uint64, int) {
	if b := data[off]; b < 0x80 {
		return uint64(b), off + 1
	}
	return uvarintLong(data, off)
}

func uvarintLong(data []byte, off int) (uint64, int) {
	v, n := binary.Uvarint(data[off:])
	return v, off + n
}

// uvarintString is uvarint of a string.
func uvarintString(s string, off int) (uint64, int) {
	var v uint64
	for shift := 0; ; shift += 7 {
		b := s[off]
		off++
		v |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return v, off
		}
	}
}

// postCursor reads a term's postings in order.
type postCursor struct {
	tl   *termList
	end  uint32 // the list's last document
	bi   int    // the block read
	data []byte // its entries (nil: none entered yet, or past the end)
	last uint32 // its last document
	off  int    // the offset of the next entry in data
	// The entry read: its document, frequency, field mask and encoded
	// positions (data[pos:posEnd]).
	doc         uint32
	freq        uint32
	mask        fieldMask
	wide        bool // tl's, read on entering a block
	pos, posEnd int
}

// newPostCursor returns a cursor at the start of tl (not empty).
func newPostCursor(tl *termList) postCursor {
	return postCursor{tl: tl, end: tl.lastDoc()}
}

// next moves to the next entry and reports whether there was one.
func (c *postCursor) next() bool {
	if c.off >= len(c.data) && !c.nextBlock() {
		return false
	}
	data, off := c.data, c.off
	// Most entries' first four uvarints (an entry has at least four)
	// are a byte each: read at once.
	if off+4 <= len(data) && !c.wide {
		w := binary.LittleEndian.Uint32(data[off:])
		if w&0x80808080 == 0 {
			c.doc += w & 0xff
			end := off + 2 + int(w>>8&0xff)
			c.freq = w >> 16 & 0xff
			c.mask = fieldMask{lo: uint64(w>>24) - 1}
			c.pos, c.posEnd, c.off = off+4, end, end
			return true
		}
	}
	// uvarint's fast path, written out here and in skipTo: the calls
	// cost a fifth of a term query.
	v := uint64(data[off])
	if v < 0x80 {
		off++
	} else {
		v, off = uvarintLong(data, off)
	}
	c.doc += uint32(v)
	c.decode(data, off)
	return true
}

// decode reads the fields after the doc delta of the entry at off.
func (c *postCursor) decode(data []byte, off int) {
	v := uint64(data[off])
	if v < 0x80 {
		off++
	} else {
		v, off = uvarintLong(data, off)
	}
	end := off + int(v)
	if v = uint64(data[off]); v < 0x80 {
		off++
	} else {
		v, off = uvarintLong(data, off)
	}
	c.freq = uint32(v)
	if v = uint64(data[off]); v < 0x80 {
		off++
	} else {
		v, off = uvarintLong(data, off)
	}
	c.mask = fieldMask{lo: v - 1}
	if c.wide {
		v, off = uvarint(data, off)
		c.mask.hi = v - 1
	}
	c.pos, c.posEnd = off, end
	c.off = end
}

// skipTo moves to the first entry at or after id, passing whole blocks
// and, in the block, decoding only the ids of the entries it passes; it
// reports whether there was one.
func (c *postCursor) skipTo(id uint32) bool {
	if c.data == nil || c.last < id {
		c.seek(id)
	}
	for {
		if c.off >= len(c.data) && !c.nextBlock() {
			return false
		}
		data, off := c.data, c.off
		v := uint64(data[off])
		if v < 0x80 {
			off++
		} else {
			v, off = uvarintLong(data, off)
		}
		c.doc += uint32(v)
		if c.doc >= id {
			c.decode(data, off)
			return true
		}
		if v = uint64(data[off]); v < 0x80 { // the entry's length
			off++
		} else {
			v, off = uvarintLong(data, off)
		}
		c.off = off + int(v)
	}
}

// nextBlock moves to the start of the next block not read, if any.
func (c *postCursor) nextBlock() bool {
	if c.data != nil {
		c.bi++
	}
	return c.enter()
}

// enter moves to the start of block bi, if there is one.
func (c *postCursor) enter() bool {
	if c.bi >= len(c.tl.blocks) {
		c.data, c.off = nil, 0
		return false
	}
	b := &c.tl.blocks[c.bi]
	// The first entry's delta is 0.
	c.data, c.off, c.doc, c.last = b.data, 0, b.first, b.last
	c.wide = c.tl.wide
	return true
}

// seek moves the cursor, unless the block it reads ends at or after id,
// to the start of the first block that does (its entries before are all
// below id), or past the end.
func (c *postCursor) seek(id uint32) {
	bs := c.tl.blocks
	lo := c.bi
	if c.data != nil {
		if c.last >= id {
			return
		}
		lo++
	}
	hi := len(bs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if bs[m].last < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	c.bi = lo
	c.enter()
}

// decodePositions appends the positions enc encodes to buf.
func decodePositions(buf []uint32, enc []byte) []uint32 {
	var p uint32
	for off := 0; off < len(enc); {
		d := uint64(enc[off])
		if d < 0x80 {
			off++
		} else {
			d, off = uvarintLong(enc, off)
		}
		p += uint32(d)
		buf = append(buf, p)
	}
	return buf
}
