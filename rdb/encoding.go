package rdb

import (
	"encoding/binary"
	"strconv"

	"github.com/hotkv/hotkv/lzf"
)

// AppendLen appends n in RDB length encoding (rdbSaveLen): one byte for
// n < 64, two bytes (big endian, high bits 01) for n < 16384, 0x80 and
// four big-endian bytes for n <= 0xffffffff, else 0x81 and eight
// big-endian bytes.
func AppendLen(dst []byte, n uint64) []byte {
	switch {
	case n < 1<<6:
		return append(dst, byte(n)|len6Bit<<6)
	case n < 1<<14:
		return append(dst, byte(n>>8)|len14Bit<<6, byte(n))
	case n <= 0xffffffff:
		return binary.BigEndian.AppendUint32(append(dst, len32Bit), uint32(n))
	default:
		return binary.BigEndian.AppendUint64(append(dst, len64Bit), n)
	}
}

// minLZFLen is the shortest string Redis tries to compress: "under 20
// bytes it's unable to compress even aaaaaaaaaaaaaaaaaa" (rdbSaveRawString
// compresses when len > 20).
const minLZFLen = 21

// AppendString appends s as an RDB string exactly as Redis's
// rdbSaveRawString does, with compress standing for the rdbcompression
// setting (on by default):
//
//   - a canonical decimal integer ("0", or an optional '-' then digits
//     without a leading zero) of at most 11 bytes that fits in 32 bits is
//     stored as 0xC0|INT8, 0xC1|INT16 or 0xC2|INT32 followed by the value in
//     1, 2 or 4 little-endian bytes, the smallest that fits;
//   - otherwise, when compress is true and len(s) > 20, s is LZF-compressed
//     into at most len(s)-4 bytes and stored as 0xC3, the compressed length,
//     the original length and the compressed bytes, if LZFCompress succeeds
//     within that limit;
//   - otherwise s is stored as its length (AppendLen) and its bytes.
//
// The value of a string key is stored the same way (an integer-encoded
// object goes through rdbSaveLongLongAsStringObject, which gives the same
// bytes), so this also encodes DUMP payloads of strings.
func AppendString[S ~string | ~[]byte](dst []byte, s S, compress bool) []byte {
	n := len(s)
	if n <= 11 {
		if v, ok := canonicalInt32(string(s)); ok {
			return appendEncodedInt(dst, v)
		}
	}
	if compress && n >= minLZFLen {
		if c := lzf.Compress([]byte(s), n-4); c != nil {
			dst = append(dst, encVal<<6|encLZF)
			dst = AppendLen(dst, uint64(len(c)))
			dst = AppendLen(dst, uint64(n))
			return append(dst, c...)
		}
	}
	dst = AppendLen(dst, uint64(n))
	return append(dst, s...)
}

// canonicalInt32 reports whether s is what Redis's string2ll accepts and
// ll2string would print back identically, with a value in rdbEncodeInteger's
// 32-bit range.
func canonicalInt32(s string) (int64, bool) {
	if s == "" || len(s) > 11 {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < -1<<31 || v > 1<<31-1 || strconv.FormatInt(v, 10) != s {
		return 0, false
	}
	return v, true
}

// appendEncodedInt is rdbEncodeInteger for a value known to fit 32 bits.
func appendEncodedInt(dst []byte, v int64) []byte {
	switch {
	case v >= -1<<7 && v <= 1<<7-1:
		return append(dst, encVal<<6|encInt8, byte(v))
	case v >= -1<<15 && v <= 1<<15-1:
		return binary.LittleEndian.AppendUint16(append(dst, encVal<<6|encInt16), uint16(v))
	default:
		return binary.LittleEndian.AppendUint32(append(dst, encVal<<6|encInt32), uint32(v))
	}
}

// Writer accumulates RDB-encoded data in memory. The zero value is an
// empty Writer that does not compress strings. A Writer is not safe for
// concurrent use.
type Writer struct {
	buf []byte
	// Compress is Redis's rdbcompression setting: whether strings longer
	// than 20 bytes may be LZF-compressed.
	Compress bool
}

// NewWriter returns a Writer appending to dst (which may be nil) with the
// given compression setting.
func NewWriter(dst []byte, compress bool) *Writer {
	return &Writer{buf: dst, Compress: compress}
}

// Bytes returns everything written so far. The slice aliases the Writer's
// buffer until the next write.
func (w *Writer) Bytes() []byte { return w.buf }

// Len returns the number of bytes written so far.
func (w *Writer) Len() int { return len(w.buf) }

// WriteType writes a one-byte object type or opcode (rdbSaveType).
func (w *Writer) WriteType(t byte) { w.buf = append(w.buf, t) }

// WriteLen writes n in RDB length encoding (see AppendLen).
func (w *Writer) WriteLen(n uint64) { w.buf = AppendLen(w.buf, n) }

// WriteString writes s as an RDB string (see AppendString).
func (w *Writer) WriteString(s string) { w.buf = AppendString(w.buf, s, w.Compress) }

// WriteStringBytes writes p as an RDB string (see AppendString).
func (w *Writer) WriteStringBytes(p []byte) { w.buf = AppendString(w.buf, p, w.Compress) }

// WriteRaw writes p verbatim.
func (w *Writer) WriteRaw(p []byte) { w.buf = append(w.buf, p...) }

// WriteFooter appends the DUMP payload footer to everything written so far
// (see AppendFooter). Nothing should be written after it.
func (w *Writer) WriteFooter() { w.buf = AppendFooter(w.buf) }
