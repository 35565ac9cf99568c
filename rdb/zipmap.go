package rdb

import "encoding/binary"

// Zipmap layout (zipmap.c; RDB type 9, written by Redis before 2.6 and
// still loaded by 7.0): a count byte (254 or more meaning "count them"),
// then per pair the field length, the field, the value length, a "free"
// byte, the value and that many unused bytes, and the terminator 0xFF. A
// length is one byte below 254, else the byte 254 and a uint32 in host
// (little-endian) order.
const (
	zipmapBigLen = 254
	zipmapEnd    = 255
)

// walkZipmap validates zm as Redis 7.0's zipmapValidateIntegrity with deep
// validation (which RDB loading always uses for zipmaps) does, and calls
// visit for each field/value pair in order. Errors wrap ErrCorrupt: fewer
// than 2 bytes, a last byte other than 0xFF, a length or entry reaching
// past the terminator, no pairs, or a count byte below 254 other than the
// number of pairs.
//
// One check is stricter than Redis: a length written in 5 bytes must be
// at least 254. Redis validates with the written size but iterates
// (zipmapNext) with the size the value needs, so for a shorter length in
// 5 bytes the pairs it loads are not the ones it validated.
func walkZipmap(zm []byte, visit func(field, value []byte) error) error {
	size := len(zm)
	if size < 2 {
		return corruptf("zipmap of %d bytes", size)
	}
	if zm[size-1] != zipmapEnd {
		return corruptf("zipmap does not end with 0xFF")
	}
	last := int64(size - 1)
	outOfRange := func(p int64) bool { return p < 2 || p > last }
	// readLen reads the length at p, which is in range.
	readLen := func(p int64) (s, l int64, err error) {
		if zm[p] < zipmapBigLen {
			return 1, int64(zm[p]), nil
		}
		if outOfRange(p + 5) {
			return 0, 0, corruptf("zipmap length at offset %d runs past the end", p)
		}
		l = int64(binary.LittleEndian.Uint32(zm[p+1:]))
		if l < zipmapBigLen {
			return 0, 0, corruptf("zipmap length %d at offset %d written in 5 bytes", l, p)
		}
		return 5, l, nil
	}
	count := 0
	p := int64(1)
	for zm[p] != zipmapEnd {
		s, fieldLen, err := readLen(p)
		if err != nil {
			return err
		}
		if outOfRange(p + s) {
			return corruptf("zipmap length at offset %d runs past the end", p)
		}
		field := p + s
		p = field + fieldLen
		if outOfRange(p) {
			return corruptf("zipmap field at offset %d runs past the end", field)
		}
		s, valueLen, err := readLen(p)
		if err != nil {
			return err
		}
		if outOfRange(p + s) {
			return corruptf("zipmap length at offset %d runs past the end", p)
		}
		p += s
		free := int64(zm[p])
		value := p + 1
		p = value + valueLen + free
		count++
		if outOfRange(p) {
			return corruptf("zipmap value at offset %d runs past the end", value)
		}
		if visit != nil {
			f := zm[field : field+fieldLen : field+fieldLen]
			v := zm[value : value+valueLen : value+valueLen]
			if err := visit(f, v); err != nil {
				return err
			}
		}
	}
	if count == 0 {
		return corruptf("empty zipmap")
	}
	if zm[0] != zipmapBigLen && int(zm[0]) != count {
		return corruptf("zipmap header counts %d pairs, found %d", zm[0], count)
	}
	return nil
}
