package list

import (
	"bytes"
	"encoding/binary"
	"math"
	"strconv"
)

// Entries are stored back to back in a node's buffer, encoded much as
// Redis's listpack encodes them: a header, the payload, and a "backlen"
// that lets the entry be found from its end, so a node can be walked in
// both directions.
//
//	0xxxxxxx                  integer 0..127 (no payload)
//	10llllll data             string shorter than 64 bytes
//	110lllll llllllll data    string shorter than 8192 bytes
//	0xE0 int16                integers, little endian, in the
//	0xE1 int24                smallest width that holds them
//	0xE2 int32
//	0xE3 int64
//	0xF0 uvarint(len) data    string of any length
//
// The backlen is the size of header and payload, 7 bits a byte, the least
// significant group last; every byte but the leftmost has its high bit set.
// Only strings that are an integer in canonical form ("12", "-7", not "012",
// "+1" or "-0") are stored as integers, so that reading one back gives the
// very bytes that were pushed.
const (
	encStr6   = 0x80
	encStr13  = 0xC0
	encInt16  = 0xE0
	encInt24  = 0xE1
	encInt32  = 0xE2
	encInt64  = 0xE3
	encStrBig = 0xF0
)

// intWidth is the payload size of each integer encoding.
var intWidth = [4]int{2, 3, 4, 8}

// parseCanonical returns v as an integer when v is the canonical decimal
// form of an int64.
func parseCanonical(v []byte) (int64, bool) {
	n := len(v)
	if n == 0 || n > 20 {
		return 0, false
	}
	i, neg := 0, false
	if v[0] == '-' {
		if n == 1 {
			return 0, false
		}
		i, neg = 1, true
	}
	if v[i] == '0' {
		return 0, n == 1
	}
	var u uint64
	for ; i < n; i++ {
		d := uint64(v[i] - '0')
		if d > 9 || u > (math.MaxUint64-d)/10 {
			return 0, false
		}
		u = u*10 + d
	}
	if neg {
		if u > 1<<63 {
			return 0, false
		}
		return int64(-u), true
	}
	if u > math.MaxInt64 {
		return 0, false
	}
	return int64(u), true
}

// backlenSize is the number of bytes the backlen of an entry body of l
// bytes takes.
func backlenSize(l int) int {
	n := 1
	for l >= 128 {
		l >>= 7
		n++
	}
	return n
}

// encoded is a value ready to be written into a node.
type encoded struct {
	v    []byte
	iv   int64
	tag  byte // first header byte (for small integers, the value)
	body int  // header + payload
	size int  // body + backlen
}

func encode(v []byte) encoded {
	e := encoded{v: v}
	if iv, ok := parseCanonical(v); ok {
		e.iv = iv
		switch {
		case iv >= 0 && iv <= 127:
			e.tag, e.body = byte(iv), 1
		case iv >= math.MinInt16 && iv <= math.MaxInt16:
			e.tag, e.body = encInt16, 3
		case iv >= -1<<23 && iv < 1<<23:
			e.tag, e.body = encInt24, 4
		case iv >= math.MinInt32 && iv <= math.MaxInt32:
			e.tag, e.body = encInt32, 5
		default:
			e.tag, e.body = encInt64, 9
		}
	} else {
		switch n := len(v); {
		case n < 64:
			e.tag, e.body = encStr6|byte(n), 1+n
		case n < 8192:
			e.tag, e.body = encStr13|byte(n>>8), 2+n
		default:
			e.tag, e.body = encStrBig, 1+uvarintSize(uint64(n))+n
		}
	}
	e.size = e.body + backlenSize(e.body)
	return e
}

func uvarintSize(x uint64) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}

// put writes the entry into dst, which is exactly e.size bytes long.
func (e *encoded) put(dst []byte) {
	dst[0] = e.tag
	switch {
	case e.tag < 0x80:
	case e.tag >= encInt16 && e.tag <= encInt64:
		x := uint64(e.iv)
		for i := 0; i < intWidth[e.tag-encInt16]; i++ {
			dst[1+i] = byte(x >> (8 * i))
		}
	case e.tag < encStr13:
		copy(dst[1:], e.v)
	case e.tag < encInt16:
		dst[1] = byte(len(e.v))
		copy(dst[2:], e.v)
	default:
		n := binary.PutUvarint(dst[1:], uint64(len(e.v)))
		copy(dst[1+n:], e.v)
	}
	// backlen, least significant group last
	l := e.body
	for i := e.size - 1; i >= e.body; i-- {
		b := byte(l & 0x7f)
		if i > e.body {
			b |= 0x80
		}
		dst[i] = b
		l >>= 7
	}
}

// bodyAt decodes the header of the entry at p: the header length, the
// payload length and, for integers, the value.
func bodyAt(b []byte, p int) (hdr, plen int, iv int64, isInt bool) {
	tag := b[p]
	switch {
	case tag < 0x80:
		return 1, 0, int64(tag), true
	case tag < encStr13:
		return 1, int(tag & 0x3f), 0, false
	case tag < encInt16:
		return 2, int(tag&0x1f)<<8 | int(b[p+1]), 0, false
	case tag <= encInt64:
		w := intWidth[tag-encInt16]
		var x uint64
		for i := 0; i < w; i++ {
			x |= uint64(b[p+1+i]) << (8 * i)
		}
		shift := 64 - 8*w
		return 1, w, int64(x<<shift) >> shift, true
	default:
		n, k := binary.Uvarint(b[p+1:])
		return 1 + k, int(n), 0, false
	}
}

// sizeAt returns the full size of the entry at p.
func sizeAt(b []byte, p int) int {
	var body int
	switch tag := b[p]; {
	case tag < 0x80:
		return 2
	case tag < encStr13:
		body = 1 + int(tag&0x3f)
	case tag < encInt16:
		body = 2 + (int(tag&0x1f)<<8 | int(b[p+1]))
	case tag <= encInt64:
		body = 1 + intWidth[tag-encInt16]
	default:
		n, k := binary.Uvarint(b[p+1:])
		body = 1 + k + int(n)
	}
	return body + backlenSize(body)
}

// prevStart returns the start of the entry that ends at end.
func prevStart(b []byte, end int) int {
	q := end - 1
	c := b[q]
	l := int(c & 0x7f)
	shift := 7
	for c&0x80 != 0 {
		q--
		c = b[q]
		l |= int(c&0x7f) << shift
		shift += 7
	}
	return q - l
}

// valueAt returns the value of the entry at p and the entry's size.
// Integers are formatted into sc.
func valueAt(b []byte, p int, sc *[20]byte) (v []byte, size int) {
	hdr, plen, iv, isInt := bodyAt(b, p)
	body := hdr + plen
	if isInt {
		v = strconv.AppendInt(sc[:0], iv, 10)
	} else {
		v = b[p+hdr : p+body]
	}
	return v, body + backlenSize(body)
}

// Matcher compares list entries with one value without decoding them.
type Matcher struct {
	v     []byte
	iv    int64
	isInt bool
}

// NewMatcher returns a Matcher for entries equal to v. It keeps v.
func NewMatcher(v []byte) Matcher {
	iv, ok := parseCanonical(v)
	return Matcher{v: v, iv: iv, isInt: ok}
}

// at reports whether the entry at p equals the matcher's value, and
// returns the entry's size.
func (m *Matcher) at(b []byte, p int) (bool, int) {
	hdr, plen, iv, isInt := bodyAt(b, p)
	body := hdr + plen
	size := body + backlenSize(body)
	if isInt {
		return m.isInt && iv == m.iv, size
	}
	return !m.isInt && plen == len(m.v) && bytes.Equal(b[p+hdr:p+body], m.v), size
}
