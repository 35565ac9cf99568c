package rdb

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/hotkv/hotkv/lzf"
)

// ErrTruncated reports data that ends in the middle of a value (Redis:
// a short rioRead).
var ErrTruncated = errors.New("rdb: unexpected end of data")

// ErrCorrupt reports data that cannot be valid RDB (Redis:
// rdbReportCorruptRDB). Errors returned by Reader wrap it or ErrTruncated
// with details; test with errors.Is.
var ErrCorrupt = errors.New("rdb: corrupt data")

// Reader decodes RDB-encoded values from a byte slice, keeping an offset.
// Every method either consumes one whole value and returns it, or returns
// an error wrapping ErrTruncated or ErrCorrupt and leaves the offset where
// it was. Methods never panic, whatever the data, and allocate no more than
// the data they consume can justify (lzf.MaxRatio times its size for
// compressed strings). A Reader is not safe for concurrent use.
type Reader struct {
	p   []byte
	off int
}

// NewReader returns a Reader at the start of p. It does not copy p; p
// must not change while the Reader is in use.
func NewReader(p []byte) *Reader { return &Reader{p: p} }

// Offset returns the number of bytes consumed so far.
func (r *Reader) Offset() int { return r.off }

// Remaining returns the number of bytes not consumed yet.
func (r *Reader) Remaining() int { return len(r.p) - r.off }

func truncated(what string) error { return fmt.Errorf("%w reading %s", ErrTruncated, what) }

// ReadType reads a one-byte object type or opcode (rdbLoadType).
func (r *Reader) ReadType() (byte, error) {
	if r.off >= len(r.p) {
		return 0, truncated("type")
	}
	t := r.p[r.off]
	r.off++
	return t, nil
}

// ReadRaw reads the next n bytes verbatim. The result aliases the Reader's
// data.
func (r *Reader) ReadRaw(n int) ([]byte, error) {
	if n < 0 || n > r.Remaining() {
		return nil, truncated(strconv.Itoa(n) + " raw bytes")
	}
	b := r.p[r.off : r.off+n : r.off+n]
	r.off += n
	return b, nil
}

// ReadLenEncoded reads a length as rdbLoadLenByRef does. When the first
// byte has its two high bits set (11xxxxxx), encoded is true and n is the
// special string encoding in its low six bits; otherwise n is the length.
// First bytes 0x82 to 0xBF are corrupt.
func (r *Reader) ReadLenEncoded() (n uint64, encoded bool, err error) {
	if r.off >= len(r.p) {
		return 0, false, truncated("length")
	}
	b := r.p[r.off]
	switch {
	case b>>6 == encVal:
		r.off++
		return uint64(b & 0x3f), true, nil
	case b>>6 == len6Bit:
		r.off++
		return uint64(b & 0x3f), false, nil
	case b>>6 == len14Bit:
		if r.Remaining() < 2 {
			return 0, false, truncated("14-bit length")
		}
		n = uint64(b&0x3f)<<8 | uint64(r.p[r.off+1])
		r.off += 2
		return n, false, nil
	case b == len32Bit:
		if r.Remaining() < 5 {
			return 0, false, truncated("32-bit length")
		}
		n = uint64(binary.BigEndian.Uint32(r.p[r.off+1:]))
		r.off += 5
		return n, false, nil
	case b == len64Bit:
		if r.Remaining() < 9 {
			return 0, false, truncated("64-bit length")
		}
		n = binary.BigEndian.Uint64(r.p[r.off+1:])
		r.off += 9
		return n, false, nil
	default:
		return 0, false, report(lineUnknownLenEncoding, fmt.Errorf("%w: unknown length encoding 0x%02x", ErrCorrupt, b),
			"Unknown length encoding %d in rdbLoadLen()", b>>6)
	}
}

// ReadLen reads a length as rdbLoadLen(rdb, NULL) does: like
// ReadLenEncoded, except that a special-encoding byte (11xxxxxx) is not an
// error but yields its low six bits as the length, and that the length
// 2^64-1 is an error (ErrCorrupt): rdbLoadLen returns it as RDB_LENERR.
func (r *Reader) ReadLen() (uint64, error) {
	n, _, err := r.ReadLenEncoded()
	if err == nil && n == math.MaxUint64 {
		r.off -= 9
		return 0, fmt.Errorf("%w: length 2^64-1 (RDB_LENERR)", ErrCorrupt)
	}
	return n, err
}

// ReadString reads an RDB string (rdbGenericLoadStringObject): a raw
// length-prefixed string, an integer-encoded one (returned in decimal, as
// Redis's ll2string prints it), or an LZF-compressed one.
func (r *Reader) ReadString() (string, error) {
	b, err := r.readString()
	return string(b), err
}

// ReadStringBytes is ReadString returning bytes. The result may alias the
// Reader's data (for raw strings); callers that modify it must copy it.
func (r *Reader) ReadStringBytes() ([]byte, error) {
	return r.readString()
}

func (r *Reader) readString() ([]byte, error) {
	start := r.off
	b, err := r.readStringAt()
	if err != nil {
		r.off = start
		return nil, err
	}
	return b, nil
}

func (r *Reader) readStringAt() ([]byte, error) {
	n, encoded, err := r.ReadLenEncoded()
	if err != nil {
		return nil, err
	}
	if !encoded {
		if n > uint64(r.Remaining()) {
			return nil, truncated(strconv.FormatUint(n, 10) + "-byte string")
		}
		return r.ReadRaw(int(n))
	}
	switch n {
	case encInt8, encInt16, encInt32:
		size := 1 << n // 1, 2 or 4 bytes
		raw, err := r.ReadRaw(size)
		if err != nil {
			return nil, truncated("integer-encoded string")
		}
		var v int64
		switch n {
		case encInt8:
			v = int64(int8(raw[0]))
		case encInt16:
			v = int64(int16(binary.LittleEndian.Uint16(raw)))
		default:
			v = int64(int32(binary.LittleEndian.Uint32(raw)))
		}
		return strconv.AppendInt(nil, v, 10), nil
	case encLZF:
		clen, err := r.ReadLen()
		if err != nil {
			return nil, err
		}
		ulen, err := r.ReadLen()
		if err != nil {
			return nil, err
		}
		if clen > uint64(r.Remaining()) {
			return nil, truncated("LZF-compressed string")
		}
		c, _ := r.ReadRaw(int(clen))
		if ulen > math.MaxInt {
			return nil, fmt.Errorf("%w: LZF string of %d bytes", ErrCorrupt, ulen)
		}
		out, err := lzf.Decompress(c, int(ulen))
		if err != nil {
			return nil, report(lineLZF, fmt.Errorf("%w: invalid LZF compressed string", ErrCorrupt), "Invalid LZF compressed string")
		}
		return out, nil
	default:
		return nil, report(lineUnknownStringEnc, fmt.Errorf("%w: unknown RDB string encoding type %d", ErrCorrupt, n),
			"Unknown RDB string encoding type %d", n)
	}
}
