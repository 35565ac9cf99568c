package rdb

import "encoding/binary"

// Ziplist layout (ziplist.c; Redis 7.0 no longer writes ziplists but loads
// them from RDB types 10, 12, 13 and 14): zlbytes (uint32), zltail (uint32,
// offset of the last entry), zllen (uint16, 65535 meaning "count them"),
// all little endian, the entries, and the terminator 0xFF. An entry is the
// previous entry's size (1 byte below 254, else 0xFE and a uint32), an
// encoding with the length, and the data:
//
//	00pppppp                      string of up to 63 bytes
//	01pppppp qqqqqqqq             string, 14-bit big-endian length
//	10______ + 4 bytes            string, 32-bit big-endian length
//	11000000 int16, 11010000 int32, 11100000 int64, 11110000 int24,
//	11111110 int8 (little endian), 1111xxxx (xxxx 0001-1101): xxxx-1
const (
	zlHeaderSize = 10
	zlEnd        = 0xFF
	zlBigPrevlen = 254
	zlStr06      = 0x00
	zlStr14      = 0x40
	zlStr32      = 0x80
	zlInt16      = 0xC0
	zlInt32      = 0xD0
	zlInt64      = 0xE0
	zlInt24      = 0xF0
	zlInt8       = 0xFE
	zlImmMin     = 0xF1
	zlImmMax     = 0xFD
)

// zipEncoding is ZIP_ENTRY_ENCODING: string encodings keep their two high
// bits only.
func zipEncoding(b byte) byte {
	if b < 0xC0 {
		return b & 0xC0
	}
	return b
}

// zipEncodingLenSize is zipEncodingLenSize: the size of the encoding and
// length bytes, or 0 for an invalid encoding.
func zipEncodingLenSize(enc byte) int {
	switch {
	case enc == zlInt16, enc == zlInt32, enc == zlInt24, enc == zlInt64, enc == zlInt8:
		return 1
	case enc >= zlImmMin && enc <= zlImmMax:
		return 1
	case enc == zlStr06:
		return 1
	case enc == zlStr14:
		return 2
	case enc == zlStr32:
		return 5
	}
	return 0
}

// zipIntSize is the number of data bytes of an integer encoding.
func zipIntSize(enc byte) int {
	switch enc {
	case zlInt8:
		return 1
	case zlInt16:
		return 2
	case zlInt24:
		return 3
	case zlInt32:
		return 4
	case zlInt64:
		return 8
	}
	return 0 // 4-bit immediate
}

// walkZiplist validates zl as Redis 7.0's ziplistValidateIntegrity with
// deep validation (which RDB loading always uses for ziplists) does, and
// calls visit for each entry in order after validating it. It returns the
// number of entries. Errors wrap ErrCorrupt: a blob shorter than header
// plus terminator, zlbytes other than len(zl), a last byte other than
// 0xFF, zltail past the terminator, an invalid encoding, an entry
// reaching past the terminator, a prevlen other than the previous entry's
// size (0 for the first), a terminator before the end, zltail not at the
// last entry (when there is one), or zllen other than the number of
// entries unless it is 65535.
func walkZiplist(zl []byte, visit func(e lpEntry) error) (int, error) {
	size := len(zl)
	if size < zlHeaderSize+1 {
		return 0, corruptf("ziplist of %d bytes is shorter than its header", size)
	}
	if total := binary.LittleEndian.Uint32(zl); uint64(total) != uint64(size) {
		return 0, corruptf("ziplist header says %d bytes, blob has %d", total, size)
	}
	if zl[size-1] != zlEnd {
		return 0, corruptf("ziplist does not end with 0xFF")
	}
	tail := binary.LittleEndian.Uint32(zl[4:])
	if uint64(tail) > uint64(size-1) {
		return 0, corruptf("ziplist tail offset %d past its end", tail)
	}
	headerCount := int(binary.LittleEndian.Uint16(zl[8:]))
	last := int64(size - 1) // offset of the terminator
	p, prev, prevRaw, count := zlHeaderSize, -1, int64(0), 0
	for zl[p] != zlEnd {
		// zipEntrySafe with validate_prevlen.
		prevlenSize, prevlen := 1, int64(zl[p])
		if zl[p] >= zlBigPrevlen {
			prevlenSize = 5
		}
		if int64(p+prevlenSize) > last {
			return 0, corruptf("ziplist entry at offset %d: prevlen runs past the end", p)
		}
		if prevlenSize == 5 {
			prevlen = int64(binary.LittleEndian.Uint32(zl[p+1:]))
		}
		encAt := p + prevlenSize
		enc := zipEncoding(zl[encAt])
		lensize := zipEncodingLenSize(enc)
		if lensize == 0 {
			return 0, corruptf("invalid ziplist entry encoding 0x%02x at offset %d", zl[encAt], encAt)
		}
		if int64(encAt+lensize) > last {
			return 0, corruptf("ziplist entry at offset %d: header runs past the end", p)
		}
		var dataLen int64
		switch enc {
		case zlStr06:
			dataLen = int64(zl[encAt] & 0x3F)
		case zlStr14:
			dataLen = int64(zl[encAt]&0x3F)<<8 | int64(zl[encAt+1])
		case zlStr32:
			dataLen = int64(binary.BigEndian.Uint32(zl[encAt+1:]))
		default:
			dataLen = int64(zipIntSize(enc))
		}
		headerSize := int64(prevlenSize + lensize)
		if int64(p)+headerSize+dataLen > last {
			return 0, corruptf("ziplist entry at offset %d runs past the end", p)
		}
		if int64(p)-prevlen < zlHeaderSize {
			return 0, corruptf("ziplist entry at offset %d: prevlen %d reaches before the first entry", p, prevlen)
		}
		if prevlen != prevRaw {
			return 0, corruptf("ziplist entry at offset %d: prevlen %d, previous entry has %d bytes", p, prevlen, prevRaw)
		}
		if visit != nil {
			data := zl[int64(p)+headerSize : int64(p)+headerSize+dataLen : int64(p)+headerSize+dataLen]
			if err := visit(zipEntryValue(enc, data)); err != nil {
				return 0, err
			}
		}
		prevRaw = headerSize + dataLen
		prev = p
		p += int(prevRaw)
		count++
	}
	if p != size-1 {
		return 0, corruptf("ziplist terminator at offset %d before its end", p)
	}
	if prev >= 0 && uint64(prev) != uint64(tail) {
		return 0, corruptf("ziplist tail offset %d, last entry at %d", tail, prev)
	}
	if headerCount != 0xFFFF && headerCount != count {
		return 0, corruptf("ziplist header counts %d entries, found %d", headerCount, count)
	}
	return count, nil
}

// zipEntryValue decodes an entry's data (zipLoadInteger for integers).
func zipEntryValue(enc byte, data []byte) lpEntry {
	switch enc {
	case zlStr06, zlStr14, zlStr32:
		return lpEntry{str: data}
	case zlInt8:
		return lpEntry{num: int64(int8(data[0])), isInt: true}
	case zlInt16:
		return lpEntry{num: int64(int16(binary.LittleEndian.Uint16(data))), isInt: true}
	case zlInt24:
		u := uint32(data[0])<<8 | uint32(data[1])<<16 | uint32(data[2])<<24
		return lpEntry{num: int64(int32(u) >> 8), isInt: true}
	case zlInt32:
		return lpEntry{num: int64(int32(binary.LittleEndian.Uint32(data))), isInt: true}
	case zlInt64:
		return lpEntry{num: int64(binary.LittleEndian.Uint64(data)), isInt: true}
	}
	return lpEntry{num: int64(enc&0x0F) - 1, isInt: true}
}
