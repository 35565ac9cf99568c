package resp

import (
	"math"
	"strconv"
)

// Writer appends replies to an in-memory buffer in the client's protocol
// (2 or 3). It never writes to the network itself: the connection flushes
// Buf once per batch of pipelined commands.
type Writer struct {
	Buf   []byte
	Proto int // 2 or 3
}

// Reset empties the buffer, keeping its capacity.
func (w *Writer) Reset() { w.Buf = w.Buf[:0] }

func (w *Writer) line(prefix byte, n int64) {
	switch {
	case uint64(n) < 10: // most lengths of small replies: no conversion
		w.Buf = append(w.Buf, prefix, byte('0'+n), '\r', '\n')
	case uint64(n) < 100:
		w.Buf = append(w.Buf, prefix, byte('0'+n/10), byte('0'+n%10), '\r', '\n')
	default:
		w.Buf = append(w.Buf, prefix)
		w.Buf = strconv.AppendInt(w.Buf, n, 10)
		w.Buf = append(w.Buf, '\r', '\n')
	}
}

// Simple writes a status reply (+OK). s must not contain CR or LF.
func (w *Writer) Simple(s string) {
	w.Buf = append(w.Buf, '+')
	w.Buf = append(w.Buf, s...)
	w.Buf = append(w.Buf, '\r', '\n')
}

// OK writes +OK.
func (w *Writer) OK() { w.Buf = append(w.Buf, "+OK\r\n"...) }

// Error writes an error reply. msg is the full text after '-' (for example
// "ERR syntax error"); CR and LF in it are replaced by spaces, as Redis does.
func (w *Writer) Error(msg string) {
	w.Buf = append(w.Buf, '-')
	for i := 0; i < len(msg); i++ {
		c := msg[i]
		if c == '\r' || c == '\n' {
			c = ' '
		}
		w.Buf = append(w.Buf, c)
	}
	w.Buf = append(w.Buf, '\r', '\n')
}

// Int writes an integer reply.
func (w *Writer) Int(n int64) { w.line(':', n) }

// Bulk writes a bulk string.
func (w *Writer) Bulk(b []byte) {
	w.line('$', int64(len(b)))
	w.Buf = append(w.Buf, b...)
	w.Buf = append(w.Buf, '\r', '\n')
}

// BulkString writes a bulk string.
func (w *Writer) BulkString(s string) {
	w.line('$', int64(len(s)))
	w.Buf = append(w.Buf, s...)
	w.Buf = append(w.Buf, '\r', '\n')
}

// BulkInt writes n as a bulk string.
func (w *Writer) BulkInt(n int64) {
	var tmp [24]byte
	w.Bulk(strconv.AppendInt(tmp[:0], n, 10))
}

// Null writes the null bulk string ($-1 in RESP2, _ in RESP3).
func (w *Writer) Null() {
	if w.Proto == 3 {
		w.Buf = append(w.Buf, "_\r\n"...)
		return
	}
	w.Buf = append(w.Buf, "$-1\r\n"...)
}

// NullArray writes the null array (*-1 in RESP2, _ in RESP3).
func (w *Writer) NullArray() {
	if w.Proto == 3 {
		w.Buf = append(w.Buf, "_\r\n"...)
		return
	}
	w.Buf = append(w.Buf, "*-1\r\n"...)
}

// Array writes an array header for n elements.
func (w *Writer) Array(n int) { w.line('*', int64(n)) }

// Map writes a map header for n key/value pairs (a flat array of 2n
// elements in RESP2).
func (w *Writer) Map(n int) {
	if w.Proto == 3 {
		w.line('%', int64(n))
		return
	}
	w.line('*', int64(2*n))
}

// Set writes a set header (an array in RESP2).
func (w *Writer) Set(n int) {
	if w.Proto == 3 {
		w.line('~', int64(n))
		return
	}
	w.line('*', int64(n))
}

// Push writes an out-of-band push header (an array in RESP2).
func (w *Writer) Push(n int) {
	if w.Proto == 3 {
		w.line('>', int64(n))
		return
	}
	w.line('*', int64(n))
}

// Bool writes a boolean (:1/:0 in RESP2).
func (w *Writer) Bool(b bool) {
	if w.Proto == 3 {
		if b {
			w.Buf = append(w.Buf, "#t\r\n"...)
		} else {
			w.Buf = append(w.Buf, "#f\r\n"...)
		}
		return
	}
	if b {
		w.Int(1)
	} else {
		w.Int(0)
	}
}

// Double writes f as Redis 7.0's addReplyDouble does: "%.17g" (inf, -inf,
// nan spelled out), a bulk string in RESP2 and a double in RESP3.
func (w *Writer) Double(f float64) {
	var tmp [32]byte
	b := AppendDouble(tmp[:0], f)
	if w.Proto == 3 {
		w.Buf = append(w.Buf, ',')
		w.Buf = append(w.Buf, b...)
		w.Buf = append(w.Buf, '\r', '\n')
		return
	}
	w.Bulk(b)
}

// AppendDouble formats f as C's "%.17g", with inf, -inf and nan as Redis
// spells them.
func AppendDouble(dst []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	case math.IsNaN(f):
		return append(dst, "nan"...)
	}
	return strconv.AppendFloat(dst, f, 'g', 17, 64)
}

// Verbatim writes a verbatim string with a three-letter format ("txt"); a
// bulk string in RESP2.
func (w *Writer) Verbatim(format, s string) {
	if w.Proto == 3 {
		w.line('=', int64(len(s)+4))
		w.Buf = append(w.Buf, format...)
		w.Buf = append(w.Buf, ':')
		w.Buf = append(w.Buf, s...)
		w.Buf = append(w.Buf, '\r', '\n')
		return
	}
	w.BulkString(s)
}

// BigNumber writes a big number reply (a bulk string in RESP2).
func (w *Writer) BigNumber(s string) {
	if w.Proto == 3 {
		w.Buf = append(w.Buf, '(')
		w.Buf = append(w.Buf, s...)
		w.Buf = append(w.Buf, '\r', '\n')
		return
	}
	w.BulkString(s)
}

// Raw appends pre-encoded RESP.
func (w *Writer) Raw(b []byte) { w.Buf = append(w.Buf, b...) }

// AppendRepr appends b quoted as Redis's sdscatrepr does (MONITOR lines,
// CONFIG REWRITE): double quotes, \\ \" \n \r \t \a \b escapes, printable
// ASCII as is and every other byte as \xHH. SplitArgs reads it back.
func AppendRepr(dst, b []byte) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for _, c := range b {
		switch c {
		case '\\', '"':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\a':
			dst = append(dst, '\\', 'a')
		case '\b':
			dst = append(dst, '\\', 'b')
		default:
			if c >= 0x20 && c <= 0x7e {
				dst = append(dst, c)
			} else {
				dst = append(dst, '\\', 'x', hex[c>>4], hex[c&15])
			}
		}
	}
	return append(dst, '"')
}

// Attribute writes an attribute header of n key-value pairs (RESP3 only:
// RESP2 has no attributes, so the caller writes none there).
func (w *Writer) Attribute(n int) { w.line('|', int64(n)) }
