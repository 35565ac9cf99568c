package stream

import (
	"encoding/binary"
	"math"
	"strconv"
)

// The listpack format of Redis 7.0 (src/listpack.c), as far as streams use
// it: a 6-byte header (total bytes, uint32 LE; element count, uint16 LE,
// 65535 meaning "unknown"), the elements, and a 0xFF terminator. An
// element is its encoding (type, length and data) followed by a "backlen",
// the encoding's length in 1 to 5 bytes. A string that is an int64 in
// canonical decimal form is stored as an integer, in the smallest of the
// 7-, 13-, 16-, 24-, 32- and 64-bit forms that holds it.

const (
	lpHeaderSize  = 6
	lpNumeleLimit = 65535 // LP_HDR_NUMELE_UNKNOWN
	lpEOF         = 0xFF
	lpEmptySize   = lpHeaderSize + 1

	// maxListpackSize is STREAM_LISTPACK_MAX_SIZE: no node grows past it,
	// whatever stream-node-max-bytes says.
	maxListpackSize = 1 << 30
)

// lpIntEncLen returns the length of the encoding of v.
func lpIntEncLen(v int64) int {
	switch {
	case v >= 0 && v <= 127:
		return 1
	case v >= -4096 && v <= 4095:
		return 2
	case v >= -32768 && v <= 32767:
		return 3
	case v >= -8388608 && v <= 8388607:
		return 4
	case v >= math.MinInt32 && v <= math.MaxInt32:
		return 5
	}
	return 9
}

// lpStrEncLen returns the length of the encoding of a string of n bytes
// that is not stored as an integer.
func lpStrEncLen(n int) int {
	switch {
	case n < 64:
		return 1 + n
	case n < 4096:
		return 2 + n
	}
	return 5 + n
}

// lpBacklenSize returns the size of the backlen of an encoding l bytes
// long.
func lpBacklenSize(l int) int {
	switch {
	case l <= 127:
		return 1
	case l < 16383:
		return 2
	case l < 2097151:
		return 3
	case l < 268435455:
		return 4
	}
	return 5
}

// lpIntSize returns the bytes the element for the integer v takes.
func lpIntSize(v int64) int { return lpIntEncLen(v) + 1 }

// lpStrSize returns the bytes the element for the string s takes.
func lpStrSize(s []byte) int {
	if v, ok := parseCanonicalInt(s); ok {
		return lpIntSize(v)
	}
	l := lpStrEncLen(len(s))
	return l + lpBacklenSize(l)
}

// lpWriter builds a listpack.
type lpWriter struct {
	b []byte
	n int // elements
}

func newLPWriter(size int) *lpWriter {
	return &lpWriter{b: make([]byte, lpHeaderSize, max(size, lpHeaderSize))}
}

func (w *lpWriter) backlen(l int) {
	switch n := lpBacklenSize(l); n {
	case 1:
		w.b = append(w.b, byte(l))
	default:
		// The first byte holds the high bits; every later one has the
		// continuation bit set, so the size can be read backwards.
		for i := n - 1; i >= 0; i-- {
			c := byte(l>>(7*i)) & 127
			if i != n-1 {
				c |= 128
			}
			w.b = append(w.b, c)
		}
	}
}

// int appends the integer v.
func (w *lpWriter) int(v int64) {
	start := len(w.b)
	switch lpIntEncLen(v) {
	case 1:
		w.b = append(w.b, byte(v))
	case 2:
		u := uint64(v) & (1<<13 - 1)
		w.b = append(w.b, byte(u>>8)|0xC0, byte(u))
	case 3:
		w.b = append(w.b, 0xF1)
		w.b = binary.LittleEndian.AppendUint16(w.b, uint16(v))
	case 4:
		w.b = append(w.b, 0xF2, byte(v), byte(v>>8), byte(v>>16))
	case 5:
		w.b = append(w.b, 0xF3)
		w.b = binary.LittleEndian.AppendUint32(w.b, uint32(v))
	default:
		w.b = append(w.b, 0xF4)
		w.b = binary.LittleEndian.AppendUint64(w.b, uint64(v))
	}
	w.backlen(len(w.b) - start)
	w.n++
}

// str appends the string s, as an integer when it is one.
func (w *lpWriter) str(s []byte) {
	if v, ok := parseCanonicalInt(s); ok {
		w.int(v)
		return
	}
	start := len(w.b)
	switch n := len(s); {
	case n < 64:
		w.b = append(w.b, byte(n)|0x80)
	case n < 4096:
		w.b = append(w.b, byte(n>>8)|0xE0, byte(n))
	default:
		w.b = append(w.b, 0xF0)
		w.b = binary.LittleEndian.AppendUint32(w.b, uint32(n))
	}
	w.b = append(w.b, s...)
	w.backlen(len(w.b) - start)
	w.n++
}

// bytes terminates the listpack and returns it.
func (w *lpWriter) bytes() []byte {
	w.b = append(w.b, lpEOF)
	binary.LittleEndian.PutUint32(w.b, uint32(len(w.b)))
	binary.LittleEndian.PutUint16(w.b[4:], uint16(min(w.n, lpNumeleLimit)))
	return w.b
}

// lpElem is one decoded element: an integer, or a string when str is not
// nil.
type lpElem struct {
	str []byte
	i   int64
}

// bytes returns the element as a string, integers in decimal.
func (e lpElem) bytes() []byte {
	if e.str != nil {
		return e.str
	}
	return strconv.AppendInt(nil, e.i, 10)
}

// lpDecode splits a listpack into its elements, checking its header,
// every element's backlen and the terminator. Strings alias lp.
func lpDecode(lp []byte) ([]lpElem, bool) {
	if len(lp) < lpEmptySize || int(binary.LittleEndian.Uint32(lp)) != len(lp) || lp[len(lp)-1] != lpEOF {
		return nil, false
	}
	var out []lpElem
	p := lpHeaderSize
	end := len(lp) - 1
	for p < end {
		c := lp[p]
		var e lpElem
		var enc int // length of the encoding
		need := func(n int) bool { return p+n <= end }
		switch {
		case c&0x80 == 0:
			e.i, enc = int64(c), 1
		case c&0xC0 == 0x80:
			n := int(c & 0x3F)
			if !need(1 + n) {
				return nil, false
			}
			e.str, enc = lp[p+1:p+1+n:p+1+n], 1+n
		case c&0xE0 == 0xC0:
			if !need(2) {
				return nil, false
			}
			u := int64(c&0x1F)<<8 | int64(lp[p+1])
			if u >= 1<<12 {
				u -= 1 << 13
			}
			e.i, enc = u, 2
		case c&0xF0 == 0xE0:
			if !need(2) {
				return nil, false
			}
			n := int(c&0x0F)<<8 | int(lp[p+1])
			if !need(2 + n) {
				return nil, false
			}
			e.str, enc = lp[p+2:p+2+n:p+2+n], 2+n
		case c == 0xF0:
			if !need(5) {
				return nil, false
			}
			n := int(binary.LittleEndian.Uint32(lp[p+1:]))
			if n < 0 || !need(5+n) {
				return nil, false
			}
			e.str, enc = lp[p+5:p+5+n:p+5+n], 5+n
		case c == 0xF1:
			if !need(3) {
				return nil, false
			}
			e.i, enc = int64(int16(binary.LittleEndian.Uint16(lp[p+1:]))), 3
		case c == 0xF2:
			if !need(4) {
				return nil, false
			}
			u := int32(uint32(lp[p+1])<<8|uint32(lp[p+2])<<16|uint32(lp[p+3])<<24) >> 8
			e.i, enc = int64(u), 4
		case c == 0xF3:
			if !need(5) {
				return nil, false
			}
			e.i, enc = int64(int32(binary.LittleEndian.Uint32(lp[p+1:]))), 5
		case c == 0xF4:
			if !need(9) {
				return nil, false
			}
			e.i, enc = int64(binary.LittleEndian.Uint64(lp[p+1:])), 9
		default:
			return nil, false
		}
		bl := lpBacklenSize(enc)
		if !need(enc + bl) {
			return nil, false
		}
		w := lpWriter{}
		w.backlen(enc)
		if string(w.b) != string(lp[p+enc:p+enc+bl]) {
			return nil, false
		}
		out = append(out, e)
		p += enc + bl
	}
	if n := int(binary.LittleEndian.Uint16(lp[4:])); n != lpNumeleLimit && n != len(out) {
		return nil, false
	}
	return out, true
}
