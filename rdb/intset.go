package rdb

import (
	"encoding/binary"
	"math"
)

// Intset layout (intset.c): the element width in bytes (2, 4 or 8) as a
// uint32, the number of elements as a uint32, then the elements in
// ascending order, each that many bytes, all little endian.
const intsetHeaderSize = 8

// intsetWidth is _intsetValueEncoding: the smallest width holding v.
func intsetWidth(v int64) int {
	switch {
	case v < math.MinInt32 || v > math.MaxInt32:
		return 8
	case v < math.MinInt16 || v > math.MaxInt16:
		return 4
	default:
		return 2
	}
}

// appendIntset appends the intset holding vals, which must be sorted in
// ascending order without duplicates, with the smallest width that holds
// them all: the blob Redis builds by adding the same values to an empty
// intset (an intset never narrows, so a set that once held a wider value
// keeps its width in Redis; this always writes the narrowest).
func appendIntset(dst []byte, vals []int64) []byte {
	width := 2
	if len(vals) > 0 {
		width = max(intsetWidth(vals[0]), intsetWidth(vals[len(vals)-1]))
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(width))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(vals)))
	for _, v := range vals {
		switch width {
		case 2:
			dst = binary.LittleEndian.AppendUint16(dst, uint16(v))
		case 4:
			dst = binary.LittleEndian.AppendUint32(dst, uint32(v))
		default:
			dst = binary.LittleEndian.AppendUint64(dst, uint64(v))
		}
	}
	return dst
}

// walkIntset validates b as Redis 7.0's intsetValidateIntegrity with deep
// sanitization does and calls visit for each element in order. Errors wrap
// ErrCorrupt: a blob shorter than the header, a width other than 2, 4 or
// 8, a size other than header + count*width, no elements, or elements not
// strictly ascending (duplicates or disorder). Narrower values stored in a
// wider width are valid, as in Redis.
func walkIntset(b []byte, visit func(v int64)) error {
	if len(b) < intsetHeaderSize {
		return corruptf("intset of %d bytes is shorter than its header", len(b))
	}
	width := binary.LittleEndian.Uint32(b)
	if width != 2 && width != 4 && width != 8 {
		return corruptf("intset encoding %d", width)
	}
	count := binary.LittleEndian.Uint32(b[4:])
	if uint64(intsetHeaderSize)+uint64(count)*uint64(width) != uint64(len(b)) {
		return corruptf("intset of %d %d-byte elements in %d bytes", count, width, len(b))
	}
	if count == 0 {
		return corruptf("empty intset")
	}
	var prev int64
	for i := range int(count) {
		p := b[intsetHeaderSize+i*int(width):]
		var v int64
		switch width {
		case 2:
			v = int64(int16(binary.LittleEndian.Uint16(p)))
		case 4:
			v = int64(int32(binary.LittleEndian.Uint32(p)))
		default:
			v = int64(binary.LittleEndian.Uint64(p))
		}
		if i > 0 && v <= prev {
			return corruptf("intset elements out of order or duplicated at index %d", i)
		}
		prev = v
		visit(v)
	}
	return nil
}
