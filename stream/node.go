package stream

import (
	"bytes"
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
type node struct {
	master  ID       // the radix tree key: the ID of the node's first entry
	fields  [][]byte // the master entry's fields
	entries []entry  // in ID order, deleted ones included
	live    int      // count: entries not deleted
	deleted int      // entries flagged deleted
	body    int      // listpack bytes of every element but count and deleted
}

// entry is one stream entry inside a node.
type entry struct {
	id    ID
	fv    [][]byte // field, value, ...; fields alias the master's when flagSameFields
	flags uint8
}

// size returns the byte size of the node's listpack (lpBytes).
func (n *node) size() int {
	return lpEmptySize + lpIntSize(int64(n.live)) + lpIntSize(int64(n.deleted)) + n.body
}

// last returns the ID of the node's last entry, deleted or not.
func (n *node) last() ID { return n.entries[len(n.entries)-1].id }

// newNode starts a node whose master entry takes the fields of fv.
func newNode(id ID, fv [][]byte) *node {
	n := &node{master: id, fields: make([][]byte, 0, len(fv)/2)}
	n.body = lpIntSize(int64(len(fv)/2)) + lpIntSize(0)
	for i := 0; i < len(fv); i += 2 {
		n.fields = append(n.fields, fv[i])
		n.body += lpStrSize(fv[i])
	}
	return n
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
// when they are the master's as streamAppendItem does; fv is owned by the
// node from now on.
func (n *node) append(id ID, fv [][]byte) { n.add(id, fv, n.sameFields(fv)) }

// add adds an entry at the end of the node, flagged flagSameFields if
// same, which requires its fields to be the master's.
func (n *node) add(id ID, fv [][]byte, same bool) {
	e := entry{id: id, fv: fv}
	nf := len(fv) / 2
	lpCount := nf + 3
	if same {
		e.flags = flagSameFields
		for i := range n.fields {
			fv[2*i] = n.fields[i]
		}
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
	n.body += lpIntSize(int64(e.flags)) +
		lpIntSize(int64(id.Ms-n.master.Ms)) + lpIntSize(int64(id.Seq-n.master.Seq)) +
		lpIntSize(int64(lpCount))
	n.entries = append(n.entries, e)
	n.live++
}

// search returns the index of the first entry whose ID is >= id.
func (n *node) search(id ID) int {
	i, _ := slices.BinarySearchFunc(n.entries, id, func(e entry, id ID) int { return e.id.Compare(id) })
	return i
}

// markDeleted flags entry i deleted and updates the counters. Flags are
// 0..3, one byte encoded whatever their value, so only the counters can
// change the node's size.
func (n *node) markDeleted(i int) {
	n.entries[i].flags |= flagDeleted
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
	for _, e := range n.entries {
		nf := len(e.fv) / 2
		same := e.flags&flagSameFields != 0
		w.int(int64(e.flags))
		w.int(int64(e.id.Ms - n.master.Ms))
		w.int(int64(e.id.Seq - n.master.Seq))
		if !same {
			w.int(int64(nf))
		}
		for i := 0; i < len(e.fv); i += 2 {
			if !same {
				w.str(e.fv[i])
			}
			w.str(e.fv[i+1])
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
	for total := live + deleted; total > 0; total-- {
		flags, ok1 := integer()
		msd, ok2 := integer()
		seqd, ok3 := integer()
		if !ok1 || !ok2 || !ok3 || flags&^(flagDeleted|flagSameFields) != 0 {
			return nil, ErrCorrupt
		}
		id := ID{master.Ms + uint64(msd), master.Seq + uint64(seqd)}
		if len(n.entries) > 0 && id.Compare(prev) <= 0 {
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
		fv := make([][]byte, 0, 2*k)
		for i := int64(0); i < k; i++ {
			if !same {
				if p >= len(el) {
					return nil, ErrCorrupt
				}
				fv = append(fv, bytes.Clone(el[p].bytes()))
				p++
			} else {
				fv = append(fv, fields[i])
			}
			if p >= len(el) {
				return nil, ErrCorrupt
			}
			fv = append(fv, bytes.Clone(el[p].bytes()))
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
			n.markDeleted(len(n.entries) - 1)
		}
	}
	if len(n.entries) == 0 || p != len(el) || int64(n.live) != live || int64(n.deleted) != deleted {
		return nil, ErrCorrupt
	}
	return n, nil
}
