package rdb

import (
	"encoding/binary"
	"fmt"
)

// Listpack layout (listpack.c in Redis 7.0): a 6-byte header (total bytes,
// uint32 little endian; number of entries, uint16 little endian, 65535
// meaning "too many, count them"), the entries, and the terminator 0xFF.
// Each entry is an encoding byte, optional length bytes, the data, and a
// "backlen": the size of encoding+length+data written in 1 to 5 bytes of
// 7 bits each, most significant group first, every byte but the first with
// its high bit set (so it can be read backwards from the entry's end).
const (
	lpHeaderSize     = 6
	lpEOF            = 0xFF
	lpNumeleUnknown  = 0xFFFF
	lpMaxSafetySize  = 1 << 30 // LISTPACK_MAX_SAFETY_SIZE: lpSafeToAdd's limit
	lpMaxStrLen      = 1<<32 - 1
	lpEncoding7Bit   = 0x00 // 0xxxxxxx: unsigned 7-bit integer
	lpEncoding6Str   = 0x80 // 10xxxxxx: string of up to 63 bytes
	lpEncoding13Int  = 0xC0 // 110xxxxx yyyyyyyy: signed 13-bit integer
	lpEncoding12Str  = 0xE0 // 1110xxxx yyyyyyyy: string of up to 4095 bytes
	lpEncoding32Str  = 0xF0 // then a 4-byte little-endian length
	lpEncoding16Int  = 0xF1
	lpEncoding24Int  = 0xF2
	lpEncoding32Int  = 0xF3
	lpEncoding64Int  = 0xF4
	maxStrictIntLen  = 20 // LONG_STR_SIZE-1: the longest string string2ll accepts
	listpackEmptyLen = lpHeaderSize + 1
)

// parseStrictInt is Redis's string2ll (util.c), which listpack.c copies as
// lpStringToInt64: it accepts exactly the strings that are the canonical
// decimal form of an int64 ("0", or an optional '-' then digits without a
// leading zero, at most 20 bytes) and nothing else (no '+', no spaces,
// no "-0"). Those are the strings Redis stores as integers in listpacks,
// intsets and ziplists.
func parseStrictInt[S ~string | ~[]byte](s S) (int64, bool) {
	n := len(s)
	if n == 0 || n > maxStrictIntLen {
		return 0, false
	}
	if n == 1 && s[0] == '0' {
		return 0, true
	}
	i, neg := 0, false
	if s[0] == '-' {
		neg, i = true, 1
		if n == 1 {
			return 0, false
		}
	}
	if s[i] < '1' || s[i] > '9' {
		return 0, false
	}
	var v uint64
	for ; i < n; i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if v > (1<<64-1)/10 {
			return 0, false
		}
		v *= 10
		if v > 1<<64-1-uint64(c-'0') {
			return 0, false
		}
		v += uint64(c - '0')
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return -int64(v), true // -(1<<63) wraps to itself, which is right
	}
	if v > 1<<63-1 {
		return 0, false
	}
	return int64(v), true
}

// appendBacklen appends the backlen of an entry whose encoding, length and
// data take l bytes (lpEncodeBacklen; note its boundaries 16383, 2097151
// and 268435455 are exclusive).
func appendBacklen(dst []byte, l uint64) []byte {
	switch {
	case l <= 127:
		return append(dst, byte(l))
	case l < 16383:
		return append(dst, byte(l>>7), byte(l&127)|128)
	case l < 2097151:
		return append(dst, byte(l>>14), byte((l>>7)&127)|128, byte(l&127)|128)
	case l < 268435455:
		return append(dst, byte(l>>21), byte((l>>14)&127)|128, byte((l>>7)&127)|128, byte(l&127)|128)
	default:
		return append(dst, byte(l>>28), byte((l>>21)&127)|128, byte((l>>14)&127)|128,
			byte((l>>7)&127)|128, byte(l&127)|128)
	}
}

// backlenSize is the number of bytes appendBacklen writes for l.
func backlenSize(l uint64) uint64 {
	switch {
	case l <= 127:
		return 1
	case l < 16383:
		return 2
	case l < 2097151:
		return 3
	case l < 268435455:
		return 4
	default:
		return 5
	}
}

// appendListpackInt appends an integer entry in the smallest encoding
// (lpEncodeIntegerGetType) followed by its backlen.
func appendListpackInt(dst []byte, v int64) []byte {
	start := len(dst)
	switch {
	case v >= 0 && v <= 127:
		dst = append(dst, byte(v))
	case v >= -4096 && v <= 4095:
		u := uint64(v) & (1<<13 - 1)
		dst = append(dst, byte(u>>8)|lpEncoding13Int, byte(u))
	case v >= -32768 && v <= 32767:
		dst = binary.LittleEndian.AppendUint16(append(dst, lpEncoding16Int), uint16(v))
	case v >= -8388608 && v <= 8388607:
		u := uint32(v)
		dst = append(dst, lpEncoding24Int, byte(u), byte(u>>8), byte(u>>16))
	case v >= -2147483648 && v <= 2147483647:
		dst = binary.LittleEndian.AppendUint32(append(dst, lpEncoding32Int), uint32(v))
	default:
		dst = binary.LittleEndian.AppendUint64(append(dst, lpEncoding64Int), uint64(v))
	}
	return appendBacklen(dst, uint64(len(dst)-start))
}

// appendListpackEntry appends s as lpAppend does: as an integer entry when
// s is a canonical int64 (parseStrictInt), else as a string with a 6-bit,
// 12-bit or 32-bit length. s must be shorter than 2^32 bytes.
func appendListpackEntry[S ~string | ~[]byte](dst []byte, s S) []byte {
	if v, ok := parseStrictInt(s); ok {
		return appendListpackInt(dst, v)
	}
	start := len(dst)
	n := len(s)
	switch {
	case n < 64:
		dst = append(dst, lpEncoding6Str|byte(n))
	case n < 4096:
		dst = append(dst, lpEncoding12Str|byte(n>>8), byte(n))
	default:
		dst = binary.LittleEndian.AppendUint32(append(dst, lpEncoding32Str), uint32(n))
	}
	dst = append(dst, s...)
	return appendBacklen(dst, uint64(len(dst)-start))
}

// listpackEntrySize is the number of bytes appendListpackEntry appends for
// s, without appending.
func listpackEntrySize[S ~string | ~[]byte](s S) uint64 {
	var l uint64
	if v, ok := parseStrictInt(s); ok {
		switch {
		case v >= 0 && v <= 127:
			l = 1
		case v >= -4096 && v <= 4095:
			l = 2
		case v >= -32768 && v <= 32767:
			l = 3
		case v >= -8388608 && v <= 8388607:
			l = 4
		case v >= -2147483648 && v <= 2147483647:
			l = 5
		default:
			l = 9
		}
	} else {
		n := uint64(len(s))
		switch {
		case n < 64:
			l = 1 + n
		case n < 4096:
			l = 2 + n
		default:
			l = 5 + n
		}
	}
	return l + backlenSize(l)
}

// listpackBuilder builds one listpack at the end of a byte slice, as a
// sequence of lpAppend calls on lpNew(0) would.
type listpackBuilder struct {
	buf   []byte
	start int
	count int
}

// newListpack starts a listpack at the end of dst.
func newListpack(dst []byte) listpackBuilder {
	return listpackBuilder{buf: append(dst, 0, 0, 0, 0, 0, 0), start: len(dst)}
}

// add appends s (see appendListpackEntry).
func (b *listpackBuilder) add(s []byte) {
	b.buf = appendListpackEntry(b.buf, s)
	b.count++
}

// addString appends s (see appendListpackEntry).
func (b *listpackBuilder) addString(s string) {
	b.buf = appendListpackEntry(b.buf, s)
	b.count++
}

// bytes is lpBytes of the listpack built so far, terminator included.
func (b *listpackBuilder) bytes() int { return len(b.buf) - b.start + 1 }

// finish appends the terminator, fills in the header and returns the
// whole slice (the bytes before the listpack, then the listpack). The
// listpack must be shorter than 2^32 bytes.
func (b *listpackBuilder) finish() []byte {
	b.buf = append(b.buf, lpEOF)
	hdr := b.buf[b.start:]
	binary.LittleEndian.PutUint32(hdr, uint32(len(hdr)))
	binary.LittleEndian.PutUint16(hdr[4:], uint16(min(b.count, lpNumeleUnknown)))
	return b.buf
}

// lpEntry is one decoded listpack, ziplist or zipmap entry: a string
// (isInt false, str valid, aliasing the blob) or an integer (isInt true,
// num valid).
type lpEntry struct {
	str   []byte
	num   int64
	isInt bool
}

// appendTo appends the entry's bytes, integers in decimal as Redis's
// lpGet and ziplistGet callers print them (ll2string).
func (e lpEntry) appendTo(dst []byte) []byte {
	if e.isInt {
		return appendInt(dst, e.num)
	}
	return append(dst, e.str...)
}

func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
}

// lpEncodedSizeBytes is lpCurrentEncodedSizeBytes: the size of an entry's
// encoding and length bytes, or 0 for the invalid encodings 0xF5-0xFE.
func lpEncodedSizeBytes(b byte) uint64 {
	switch {
	case b&0x80 == lpEncoding7Bit, b&0xC0 == lpEncoding6Str, b&0xE0 == lpEncoding13Int:
		return 1
	case b == lpEncoding16Int, b == lpEncoding24Int, b == lpEncoding32Int, b == lpEncoding64Int:
		return 1
	case b&0xF0 == lpEncoding12Str:
		return 2
	case b == lpEncoding32Str:
		return 5
	case b == lpEOF:
		return 1
	}
	return 0
}

// lpEncodedSize is lpCurrentEncodedSizeUnsafe computed without overflow:
// the size of an entry's encoding, length and data, given that its first
// lpEncodedSizeBytes bytes are readable.
func lpEncodedSize(p []byte) uint64 {
	b := p[0]
	switch {
	case b&0x80 == lpEncoding7Bit:
		return 1
	case b&0xC0 == lpEncoding6Str:
		return 1 + uint64(b&0x3F)
	case b&0xE0 == lpEncoding13Int:
		return 2
	case b == lpEncoding16Int:
		return 3
	case b == lpEncoding24Int:
		return 4
	case b == lpEncoding32Int:
		return 5
	case b == lpEncoding64Int:
		return 9
	case b&0xF0 == lpEncoding12Str:
		return 2 + (uint64(b&0x0F)<<8 | uint64(p[1]))
	case b == lpEncoding32Str:
		return 5 + uint64(binary.LittleEndian.Uint32(p[1:]))
	}
	return 1 // lpEOF; invalid encodings are rejected before
}

// lpDecodeBacklen is lpDecodeBacklen reading backwards from lp[at]; ok is
// false where Redis returns UINT64_MAX (more than 5 bytes) or the walk
// would leave lp.
func lpDecodeBacklen(lp []byte, at int) (v uint64, ok bool) {
	var shift uint
	for {
		if at < 0 {
			return 0, false
		}
		b := lp[at]
		v |= uint64(b&127) << shift
		if b&128 == 0 {
			return v, true
		}
		shift += 7
		at--
		if shift > 28 {
			return 0, false
		}
	}
}

// lpGet decodes the entry at lp[p:], which lpValidateNext accepted, as
// lpGetWithSize does.
func lpGet(lp []byte, p int) lpEntry {
	b := lp[p]
	var uval, negstart, negmax uint64
	switch {
	case b&0x80 == lpEncoding7Bit:
		return lpEntry{num: int64(b & 0x7F), isInt: true}
	case b&0xC0 == lpEncoding6Str:
		n := int(b & 0x3F)
		return lpEntry{str: lp[p+1 : p+1+n : p+1+n]}
	case b&0xE0 == lpEncoding13Int:
		uval = uint64(b&0x1F)<<8 | uint64(lp[p+1])
		negstart, negmax = 1<<12, 8191
	case b == lpEncoding16Int:
		uval = uint64(binary.LittleEndian.Uint16(lp[p+1:]))
		negstart, negmax = 1<<15, 1<<16-1
	case b == lpEncoding24Int:
		uval = uint64(lp[p+1]) | uint64(lp[p+2])<<8 | uint64(lp[p+3])<<16
		negstart, negmax = 1<<23, 1<<24-1
	case b == lpEncoding32Int:
		uval = uint64(binary.LittleEndian.Uint32(lp[p+1:]))
		negstart, negmax = 1<<31, 1<<32-1
	case b == lpEncoding64Int:
		uval = binary.LittleEndian.Uint64(lp[p+1:])
		negstart, negmax = 1<<63, 1<<64-1
	case b&0xF0 == lpEncoding12Str:
		n := int(b&0x0F)<<8 | int(lp[p+1])
		return lpEntry{str: lp[p+2 : p+2+n : p+2+n]}
	default: // lpEncoding32Str
		n := int(binary.LittleEndian.Uint32(lp[p+1:]))
		return lpEntry{str: lp[p+5 : p+5+n : p+5+n]}
	}
	if uval >= negstart {
		return lpEntry{num: -int64(negmax-uval) - 1, isInt: true}
	}
	return lpEntry{num: int64(uval), isInt: true}
}

// walkListpack validates lp as Redis 7.0's lpValidateIntegrity with deep
// sanitization does (lpValidateNext for every entry) and calls visit for
// each entry in order, after validating it. It returns the number of
// entries. Errors wrap ErrCorrupt. Every check of Redis is made: a header
// no shorter than 6 bytes plus terminator, the total-bytes field equal to
// len(lp), the last byte 0xFF, valid encoding bytes, entries within the
// listpack, each entry's backlen equal to its size, the terminator right
// after the last entry, and the header's count equal to the number of
// entries unless it is 65535. Lengths are computed without the 32-bit
// overflow Redis has for 32-bit string lengths near 2^32 (Redis would
// accept some such entries and then read out of bounds; they are rejected
// here).
func walkListpack(lp []byte, visit func(e lpEntry) error) (int, error) {
	size := len(lp)
	if size < lpHeaderSize+1 {
		return 0, corruptf("listpack of %d bytes is shorter than its header", size)
	}
	if total := binary.LittleEndian.Uint32(lp); uint64(total) != uint64(size) {
		return 0, corruptf("listpack header says %d bytes, blob has %d", total, size)
	}
	if lp[size-1] != lpEOF {
		return 0, corruptf("listpack does not end with 0xFF")
	}
	numele := int(binary.LittleEndian.Uint16(lp[4:]))
	last := uint64(size - 1) // offset of the terminator
	p, count := lpHeaderSize, 0
	for lp[p] != lpEOF {
		lenbytes := lpEncodedSizeBytes(lp[p])
		if lenbytes == 0 {
			return 0, corruptf("invalid listpack entry encoding 0x%02x at offset %d", lp[p], p)
		}
		if uint64(p)+lenbytes > last {
			return 0, corruptf("listpack entry header at offset %d runs past the end", p)
		}
		entrylen := lpEncodedSize(lp[p:])
		backlen := backlenSize(entrylen)
		if uint64(p)+entrylen+backlen > last {
			return 0, corruptf("listpack entry at offset %d runs past the end", p)
		}
		next := p + int(entrylen+backlen)
		if prev, ok := lpDecodeBacklen(lp, next-1); !ok || prev != entrylen {
			return 0, corruptf("listpack entry at offset %d has a wrong backlen", p)
		}
		if visit != nil {
			if err := visit(lpGet(lp, p)); err != nil {
				return 0, err
			}
		}
		p = next
		count++
	}
	if p != size-1 {
		return 0, corruptf("listpack terminator at offset %d before its end", p)
	}
	if numele != lpNumeleUnknown && numele != count {
		return 0, corruptf("listpack header counts %d entries, found %d", numele, count)
	}
	return count, nil
}
