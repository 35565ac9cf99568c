package hll

import "slices"

// The sparse encoding is a run-length encoding of the registers with three
// opcodes:
//
//	ZERO   00xxxxxx           xxxxxx+1 registers (1-64) set to 0
//	XZERO  01xxxxxx yyyyyyyy  xxxxxxyyyyyyyy+1 registers (1-16384) set to 0
//	VAL    1vvvvvxx           xx+1 registers (1-4) set to vvvvv+1 (1-32)
//
// A valid value's opcodes cover exactly 16384 registers. Corrupted values
// are handled as Redis handles them. In particular an XZERO cut by the end
// of the value reads its low byte from past the end of the string: the
// terminator Redis's strings carry (0), or what an edit left there (see
// value).
const (
	sparseValMax   = 32   // largest VAL value
	sparseValLen   = 4    // longest VAL run
	sparseZeroLen  = 64   // longest ZERO run
	sparseXZeroBit = 0x40 // XZERO opcode bits
	sparseValBit   = 0x80 // VAL opcode bit
	sparseOpMask   = 0xc0 // opcode kind bits
	sparseLenMask  = 0x3f // ZERO/XZERO length bits in the first byte
)

// isZero, isXZero and isVal classify the opcode starting with byte b.
func isZero(b byte) bool  { return b&sparseOpMask == 0 }
func isXZero(b byte) bool { return b&sparseOpMask == sparseXZeroBit }
func isVal(b byte) bool   { return b&sparseValBit != 0 }

// valValue and valLen decode a VAL opcode.
func valValue(b byte) uint8 { return b>>2&0x1f + 1 }
func valLen(b byte) int     { return int(b&3) + 1 }

// valOp encodes VAL: n registers (1-4) set to v (1-32).
func valOp(v uint8, n int) byte { return (v-1)<<2 | byte(n-1) | sparseValBit }

// appendZeros appends ZERO or, for more than 64 registers, XZERO
// covering n registers, as Redis's split does.
func appendZeros(seq []byte, n int) []byte {
	if n > sparseZeroLen {
		return append(seq, byte((n-1)>>8)|sparseXZeroBit, byte(n-1))
	}
	return append(seq, byte(n-1))
}

// opcode decodes the opcode at p[i]: the number of registers it covers,
// their value (0 for ZERO and XZERO) and its size in bytes. past is the
// byte after the end of p, read by an XZERO cut by the end.
func opcode(p []byte, i int, past byte) (span int, val uint8, size int) {
	switch b := p[i]; {
	case isVal(b):
		return valLen(b), valValue(b), 1
	case isZero(b):
		return int(b&sparseLenMask) + 1, 0, 1
	}
	return xzeroLen(p, i, past), 0, 2
}

// xzeroLen returns the number of registers of the XZERO at p[i] (see
// opcode).
func xzeroLen(p []byte, i int, past byte) int {
	low := past
	if i+1 < len(p) {
		low = p[i+1]
	}
	return (int(p[i]&sparseLenMask)<<8 | int(low)) + 1
}

// walkSparse calls fn for each run of nonzero registers of the sparse
// opcodes p (followed by the byte past), the way Redis's hllMerge and
// hllSparseToDense read them, and reports whether the opcodes cover
// exactly 16384 registers. Like Redis (since the fix for CVE-2025-32023,
// which the 7.0.15 packages carry), the walk stops at the first opcode
// reaching past register 16383. fn gets the first register of the run,
// its length and value.
func walkSparse(p []byte, past byte, fn func(first, n int, v uint8)) bool {
	idx := 0
	for i, size := 0, 0; i < len(p); i += size {
		var span int
		var val uint8
		span, val, size = opcode(p, i, past)
		if idx+span > numRegisters {
			return false
		}
		if val != 0 {
			fn(idx, span, val)
		}
		idx += span
	}
	return idx == numRegisters
}

// value is a valid HyperLogLog being modified by one operation, with the
// byte Redis's string holds right after its end. That byte is the
// terminator, 0, in a value fresh from the keyspace; but when Redis splits
// an XZERO cut by the end of a corrupted value, it writes the split one
// byte past the new end and reads it back later. Tracking it keeps one
// operation exact; across operations this package assumes the terminator
// again (Redis keeps the byte while the string stays in memory unchanged).
type value struct {
	b    []byte // the value, header included
	past byte   // the byte after b's end
}

// set raises register index to count, in either encoding, and reports
// whether it changed (Redis's hllDenseSet and hllSparseSet).
func (x *value) set(index int, count uint8, maxSparse int) (bool, error) {
	if isDense(x.b) {
		return denseSet(x.b[hdrSize:], index, count), nil
	}
	return x.sparseSet(index, count, maxSparse)
}

// toDense converts a sparse x to the dense encoding, keeping its header
// (magic, unused bytes and cache), as Redis's hllSparseToDense does; x is
// unchanged on error (ErrInvalid).
func (x *value) toDense() error {
	if isDense(x.b) {
		return nil
	}
	d := make([]byte, denseSize)
	copy(d, x.b[:hdrSize])
	d[encodingPos] = encDense
	r := d[hdrSize:]
	ok := walkSparse(x.b[hdrSize:], x.past, func(first, n int, val uint8) {
		for i := first; i < first+n; i++ {
			denseSet(r, i, val)
		}
	})
	if !ok {
		return ErrInvalid
	}
	x.b, x.past = d, 0
	return nil
}

// sparseSet raises register index of the sparse x to count, as Redis's
// hllSparseSet does, and reports whether it changed. The opcode covering
// the register is rewritten in place, split into up to three opcodes, and
// adjacent VALs are merged afterwards; the cache is marked stale. x is
// promoted to dense when count exceeds 32 or when the split would make it
// longer than maxSparse bytes. ErrInvalid when no opcode covers the
// register, or when the promotion finds x corrupted; x is then unchanged.
func (x *value) sparseSet(index int, count uint8, maxSparse int) (bool, error) {
	if count > sparseValMax {
		return x.promote(index, count)
	}
	// Find the opcode at p covering index; it covers registers
	// first..first+span-1 and follows the opcode at prev (-1: none).
	v := x.b
	p, prev, first, span, size := hdrSize, -1, 0, 0, 0
	for ; p < len(v); p += size {
		span, _, size = opcode(v, p, x.past)
		if index < first+span {
			break
		}
		prev = p
		first += span
	}
	if p >= len(v) {
		return false, ErrInvalid
	}
	op := v[p]
	switch {
	case isVal(op) && valValue(op) >= count:
		return false, nil
	case isVal(op) && span == 1, isZero(op) && span == 1:
		v[p] = valOp(count, 1)
	default:
		seq := split(op, index-first, span, count)
		if delta := len(seq) - size; delta > 0 && len(v)+delta > maxSparse {
			return x.promote(index, count)
		}
		x.replaceOp(p, size, seq)
	}
	x.mergeVals(prev)
	invalidate(x.b)
	return true, nil
}

// split returns the opcodes replacing op, which covers span registers,
// when its register at offset off is set to count: the registers before
// and after keep op's value.
func split(op byte, off, span int, count uint8) []byte {
	seq := make([]byte, 0, 5)
	if isVal(op) {
		if off > 0 {
			seq = append(seq, valOp(valValue(op), off))
		}
		seq = append(seq, valOp(count, 1))
		if rest := span - off - 1; rest > 0 {
			seq = append(seq, valOp(valValue(op), rest))
		}
		return seq
	}
	if off > 0 {
		seq = appendZeros(seq, off)
	}
	seq = append(seq, valOp(count, 1))
	if rest := span - off - 1; rest > 0 {
		seq = appendZeros(seq, rest)
	}
	return seq
}

// replaceOp replaces the opcode of size bytes at p with seq. Like Redis,
// an XZERO cut by the end only had one byte to replace: the value grows by
// len(seq)-size, so seq's last byte lands past the new end.
func (x *value) replaceOp(p, size int, seq []byte) {
	n := len(x.b) + len(seq) - size
	if p+size <= len(x.b) {
		x.b, x.past = slices.Replace(x.b, p, p+size, seq...), 0
		return
	}
	x.b, x.past = append(x.b[:p], seq[:n-p]...), seq[n-p]
}

// mergeVals merges adjacent VAL opcodes with the same value, scanning up
// to five opcodes from prev (or from the first opcode when prev is -1),
// as the last step of Redis's hllSparseSet.
func (x *value) mergeVals(prev int) {
	p := max(prev, hdrSize)
	for scan := 5; p < len(x.b) && scan > 0; scan-- {
		v := x.b
		switch b := v[p]; {
		case isXZero(b):
			p += 2
		case isZero(b):
			p++
		case p+1 < len(v) && isVal(v[p+1]) && valValue(v[p+1]) == valValue(b) &&
			valLen(b)+valLen(v[p+1]) <= sparseValLen:
			v[p+1] = valOp(valValue(b), valLen(b)+valLen(v[p+1]))
			// Stay at p, which may merge again. Redis's shift also
			// overwrites the byte past the end with the terminator.
			x.b, x.past = slices.Delete(v, p, p+1), 0
		default:
			p++
		}
	}
}

// promote converts the sparse x to dense and raises register index to
// count there (always a change, as Redis asserts).
func (x *value) promote(index int, count uint8) (bool, error) {
	if err := x.toDense(); err != nil {
		return false, err
	}
	return denseSet(x.b[hdrSize:], index, count), nil
}
