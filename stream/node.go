package stream

import (
	"bytes"
	"encoding/binary"
	"slices"
)

// Limits are the node limits Redis reads from its configuration: a new
// node is started when the last one holds MaxEntries entries, deleted ones
// included (stream-node-max-entries; 0 for no limit), or when the new
// entry's fields and values would bring its listpack to MaxBytes bytes
// (stream-node-max-bytes; 0, or more than 1 GiB, for 1 GiB).
type Limits struct {
	MaxBytes   int64
	MaxEntries int64
}

// DefaultLimits are Redis 7.0's defaults.
var DefaultLimits = Limits{MaxBytes: 4096, MaxEntries: 100}

// Entry flags, as stored in the listpack.
const (
	flagDeleted    = 1 << 0 // STREAM_ITEM_FLAG_DELETED
	flagSameFields = 1 << 1 // STREAM_ITEM_FLAG_SAMEFIELDS
)

// A node is one listpack of Redis's radix tree. Its layout, which size and
// Listpack follow, is
//
//	count, deleted, num-fields, field_1..field_N, 0      (master entry)
//	flags, ms-diff, seq-diff, [num-fields, field_1,] value_1, ..., lp-count
//
// for each entry, deleted ones included: Redis only flags an entry deleted
// (XDEL, exact trimming) and drops a node as a whole. Entries whose fields
// are the master's (flagSameFields) omit num-fields and the field names.
// The diffs are taken from the node's master ID modulo 2^64 and stored as
// int64, as Redis's lpAppendInteger(lp, id.ms - master_id.ms) does.
//
// The node itself keeps its entries packed in one buffer, data, as a
// listpack does, with the offset of each in offs (binary search, and
// walking backwards, without a backlen): per entry
//
//	flags, uvarint ms - master.ms, uvarint seq,
//	[uvarint num-fields,] (uvarint len, bytes) for each field and value
//
// where the field names are left out, as in the listpack, for an entry
// flagged flagSameFields. data is only appended to (and a flag byte
// changed), so the field and value slices handed out stay valid.
type node struct {
	master  ID       // the radix tree key: the ID of the node's first entry
	fields  [][]byte // the master entry's fields
	data    []byte   // the entries, packed
	offs    []uint32 // the offset in data of each entry, deleted ones included
	live    int      // count: entries not deleted
	deleted int      // entries flagged deleted
	body    int      // listpack bytes of every element but count and deleted
}

// size returns the byte size of the node's listpack (lpBytes).
func (n *node) size() int {
	return lpEmptySize + lpIntSize(int64(n.live)) + lpIntSize(int64(n.deleted)) + n.body
}

// count returns the number of entries, deleted ones included.
func (n *node) count() int { return len(n.offs) }

// flags returns entry i's flags.
func (n *node) flags(i int) uint8 { return n.data[n.offs[i]] }

// id returns entry i's ID.
func (n *node) id(i int) ID {
	id, _, _ := n.head(i)
	return id
}

// head decodes entry i's ID and flags, and returns the offset in data of
// what follows them.
func (n *node) head(i int) (ID, uint8, int) {
	d := n.data
	p := int(n.offs[i])
	flags := d[p]
	p++
	ms, l := binary.Uvarint(d[p:])
	p += l
	seq, l := binary.Uvarint(d[p:])
	return ID{n.master.Ms + ms, seq}, flags, p + l
}

// pairs returns the number of field/value pairs of the entry with the
// given flags whose fields and values start at p (as head returns it).
func (n *node) pairs(flags uint8, p int) int {
	if flags&flagSameFields != 0 {
		return len(n.fields)
	}
	nf, _ := binary.Uvarint(n.data[p:])
	return int(nf)
}

// fv appends entry i's fields and values, alternating, to dst.
func (n *node) fv(i int, dst [][]byte) [][]byte {
	_, flags, p := n.head(i)
	return n.fvAt(flags, p, dst)
}

// fvAt appends the fields and values of the entry with the given flags
// that start at p (as head returns it) to dst.
func (n *node) fvAt(flags uint8, p int, dst [][]byte) [][]byte {
	d := n.data
	str := func() []byte {
		k, l := binary.Uvarint(d[p:])
		p += l
		b := d[p : p+int(k) : p+int(k)]
		p += int(k)
		return b
	}
	if flags&flagSameFields != 0 {
		for _, f := range n.fields {
			dst = append(dst, f, str())
		}
		return dst
	}
	nf, l := binary.Uvarint(d[p:])
	p += l
	for ; nf > 0; nf-- {
		f := str()
		dst = append(dst, f, str())
	}
	return dst
}

// last returns the ID of the node's last entry, deleted or not.
func (n *node) last() ID { return n.id(len(n.offs) - 1) }

// newNode starts a node whose master entry takes the fields of fv (copied).
func newNode(id ID, fv [][]byte) *node {
	n := &node{master: id, fields: make([][]byte, 0, len(fv)/2)}
	n.body = lpIntSize(int64(len(fv)/2)) + lpIntSize(0)
	total := 0
	for i := 0; i < len(fv); i += 2 {
		total += len(fv[i])
	}
	buf := make([]byte, 0, total)
	for i := 0; i < len(fv); i += 2 {
		buf = append(buf, fv[i]...)
		n.fields = append(n.fields, buf[len(buf)-len(fv[i]):len(buf):len(buf)])
		n.body += lpStrSize(fv[i])
	}
	return n
}

// clip gives back the spare capacity of the node's buffers, once no entry
// is to be appended to it.
func (n *node) clip() {
	if cap(n.data)-len(n.data) > len(n.data)/16 {
		n.data = append(make([]byte, 0, len(n.data)), n.data...)
	}
	if cap(n.offs) > len(n.offs) {
		n.offs = slices.Clone(n.offs)
	}
}

// sameFields reports whether the fields of fv are the master's, in order.
func (n *node) sameFields(fv [][]byte) bool {
	if len(fv)/2 != len(n.fields) {
		return false
	}
	for i, f := range n.fields {
		if !bytes.Equal(f, fv[2*i]) {
			return false
		}
	}
	return true
}

// append adds an entry at the end of the node, compressing its fields
// when they are the master's as streamAppendItem does; fv is copied.
func (n *node) append(id ID, fv [][]byte) { n.add(id, fv, n.sameFields(fv)) }

// add adds an entry at the end of the node, flagged flagSameFields if
// same, which requires its fields to be the master's; fv is copied.
func (n *node) add(id ID, fv [][]byte, same bool) {
	var flags uint8
	nf := len(fv) / 2
	lpCount := nf + 3
	if same {
		flags = flagSameFields
	} else {
		lpCount += nf + 1
		n.body += lpIntSize(int64(nf))
		for i := 0; i < len(fv); i += 2 {
			n.body += lpStrSize(fv[i])
		}
	}
	for i := 1; i < len(fv); i += 2 {
		n.body += lpStrSize(fv[i])
	}
	n.body += lpIntSize(int64(flags)) +
		lpIntSize(int64(id.Ms-n.master.Ms)) + lpIntSize(int64(id.Seq-n.master.Seq)) +
		lpIntSize(int64(lpCount))

	n.offs = append(n.offs, uint32(len(n.data)))
	d := append(n.data, flags)
	d = binary.AppendUvarint(d, id.Ms-n.master.Ms)
	d = binary.AppendUvarint(d, id.Seq)
	if !same {
		d = binary.AppendUvarint(d, uint64(nf))
	}
	for i, b := range fv {
		if same && i%2 == 0 {
			continue
		}
		d = binary.AppendUvarint(d, uint64(len(b)))
		d = append(d, b...)
	}
	n.data = d
	n.live++
}

// search returns the index of the first entry whose ID is >= id.
func (n *node) search(id ID) int {
	lo, hi := 0, len(n.offs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if n.id(m).Compare(id) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// markDeleted flags entry i deleted and updates the counters. Flags are
// 0..3, one byte encoded whatever their value, so only the counters can
// change the node's size.
func (n *node) markDeleted(i int) {
	n.data[n.offs[i]] |= flagDeleted
	n.live--
	n.deleted++
}

// listpack returns the node's listpack exactly as Redis 7.0 lays it out.
func (n *node) listpack() []byte {
	w := newLPWriter(n.size())
	w.int(int64(n.live))
	w.int(int64(n.deleted))
	w.int(int64(len(n.fields)))
	for _, f := range n.fields {
		w.str(f)
	}
	w.int(0)
	var fv [][]byte
	for i := range n.offs {
		id, flags, p := n.head(i)
		fv = n.fvAt(flags, p, fv[:0])
		nf := len(fv) / 2
		same := flags&flagSameFields != 0
		w.int(int64(flags))
		w.int(int64(id.Ms - n.master.Ms))
		w.int(int64(id.Seq - n.master.Seq))
		if !same {
			w.int(int64(nf))
		}
		for i := 0; i < len(fv); i += 2 {
			if !same {
				w.str(fv[i])
			}
			w.str(fv[i+1])
		}
		lpCount := nf + 3
		if !same {
			lpCount += nf + 1
		}
		w.int(int64(lpCount))
	}
	return w.bytes()
}

// decodeNode rebuilds a node from its radix tree key and listpack, with
// the checks of Redis's streamValidateListpackIntegrity (deep).
func decodeNode(master ID, lp []byte) (*node, error) {
	el, ok := lpDecode(lp)
	if !ok {
		return nil, ErrCorrupt
	}
	p := 0
	integer := func() (int64, bool) {
		if p >= len(el) || el[p].str != nil {
			return 0, false
		}
		p++
		return el[p-1].i, true
	}
	live, ok1 := integer()
	deleted, ok2 := integer()
	nf, ok3 := integer()
	if !ok1 || !ok2 || !ok3 || live < 0 || deleted < 0 || nf < 0 || nf > int64(len(el)) {
		return nil, ErrCorrupt
	}
	fields := make([][]byte, 0, nf)
	for ; nf > 0 && p < len(el); nf-- {
		fields = append(fields, bytes.Clone(el[p].bytes()))
		p++
	}
	if z, ok := integer(); !ok || z != 0 || nf != 0 {
		return nil, ErrCorrupt
	}
	n := newNode(master, nil)
	n.fields = fields
	n.body = lpIntSize(int64(len(fields))) + lpIntSize(0)
	for _, f := range fields {
		n.body += lpStrSize(f)
	}
	var prev ID
	var fv [][]byte
	for total := live + deleted; total > 0; total-- {
		flags, ok1 := integer()
		msd, ok2 := integer()
		seqd, ok3 := integer()
		if !ok1 || !ok2 || !ok3 || flags&^(flagDeleted|flagSameFields) != 0 {
			return nil, ErrCorrupt
		}
		id := ID{master.Ms + uint64(msd), master.Seq + uint64(seqd)}
		if n.count() > 0 && id.Compare(prev) <= 0 {
			return nil, ErrCorrupt
		}
		prev = id
		same := flags&flagSameFields != 0
		k := int64(len(fields))
		if !same {
			if k, ok = integer(); !ok || k < 0 || k > int64(len(el)) {
				return nil, ErrCorrupt
			}
		}
		fv = fv[:0]
		for i := int64(0); i < k; i++ {
			if !same {
				if p >= len(el) {
					return nil, ErrCorrupt
				}
				fv = append(fv, el[p].bytes())
				p++
			} else {
				fv = append(fv, fields[i])
			}
			if p >= len(el) {
				return nil, ErrCorrupt
			}
			fv = append(fv, el[p].bytes())
			p++
		}
		want := k + 3
		if !same {
			want += k + 1
		}
		if c, ok := integer(); !ok || c != want {
			return nil, ErrCorrupt
		}
		n.add(id, fv, same)
		if flags&flagDeleted != 0 {
			n.markDeleted(n.count() - 1)
		}
	}
	n.clip()
	if n.count() == 0 || p != len(el) || int64(n.live) != live || int64(n.deleted) != deleted {
		return nil, ErrCorrupt
	}
	return n, nil
}
