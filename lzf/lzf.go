// Package lzf is LZF compression as Redis uses it: a port of liblzf 3.6
// as vendored by Redis (lzf_c.c, lzf_d.c, lzfP.h: HLOG 16, VERY_FAST,
// CHECK_INPUT). Compress produces the same bytes as Redis's lzf_compress
// with a zeroed hash table and gives up in exactly the same cases;
// Decompress accepts what lzf_compress produces and rejects, without
// panicking, anything that does not decode to the expected length.
//
// RDB strings (package rdb) and compressed list nodes (package list, as
// Redis's quicklist compresses its inner nodes) use it. Its functions are
// safe for concurrent use.
package lzf

import (
	"errors"
	"math"
	"sync"
)

// liblzf parameters, as set by Redis's lzfP.h and lzf_c.c.
const (
	lzfHLog   = 16
	lzfHSize  = 1 << lzfHLog
	lzfMaxLit = 1 << 5
	lzfMaxOff = 1 << 13
	lzfMaxRef = (1 << 8) + (1 << 3)
)

// MaxRatio bounds how much LZF can expand: a 3-byte back reference
// stands for at most 264 bytes, so n compressed bytes never decode to more
// than MaxRatio*n bytes.
const MaxRatio = 88

// table is the compressor's hash table: for each hash of three bytes,
// the input position where it was last seen. liblzf never matches against
// position 0 (its "ref > in_data" test), so 0 doubles as "empty".
//
// Tables are pooled and not cleared between calls: a call stores base+pos
// and treats any entry below its base as empty, then moves base past its
// input, so entries left by earlier calls are never seen. The table is only
// cleared when base would overflow.
type table struct {
	slots [lzfHSize]uint32
	base  uint32
}

var tables = sync.Pool{New: func() any { return &table{base: 1} }}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// idx is liblzf's IDX with VERY_FAST and HLOG 16.
func idx(h uint32) uint32 {
	return ((h >> (3*8 - lzfHLog)) - h*5) & (lzfHSize - 1)
}

// Compress compresses in as Redis's lzf_compress(in, len(in), out,
// limit) (liblzf 3.6) does and returns the compressed bytes, or nil where
// lzf_compress returns 0: when in is empty, when limit <= 0, or when the
// output would not fit in limit bytes. liblzf's room checks are
// conservative (it may give up with up to 4 bytes to spare) and this port
// gives up in exactly the same cases. The result is never longer than
// limit, and when it is not nil it does not depend on limit.
//
// The output is byte-identical to liblzf 3.6 compiled with Redis's
// settings (HLOG 16, VERY_FAST, not ULTRA_FAST) and started from an empty
// hash table. Redis never clears its table (INIT_HTAB 0); entries left by
// earlier calls could in principle let it find other matches, though
// thousands of DUMPs compared in the tests never showed one. Any output
// decodes to the same bytes. Inputs longer than math.MaxInt32 bytes are
// not compressed (nil), a deliberate divergence: Redis's table holds 32-bit
// offsets, and such strings exceed Redis's default 512 MB proto-max-bulk-len.
func Compress(in []byte, limit int) []byte {
	inEnd := len(in)
	if inEnd == 0 || limit <= 0 || inEnd > math.MaxInt32 {
		return nil
	}
	htab := tables.Get().(*table)
	defer tables.Put(htab)
	return compress(in, limit, htab)
}

// CompressTo is Compress(in, len(out)) writing into out instead of a new
// buffer: it returns the number of compressed bytes at the start of out,
// or 0 where Compress returns nil. The bytes of out past that, and all of
// out when it returns 0, are unspecified.
func CompressTo(out, in []byte) int {
	inEnd := len(in)
	if inEnd == 0 || len(out) == 0 || inEnd > math.MaxInt32 {
		return 0
	}
	htab := tables.Get().(*table)
	defer tables.Put(htab)
	return len(compressTo(in, out, len(out), htab))
}

// compress is Compress with the hash table to use, which may hold
// entries from earlier calls.
func compress(in []byte, limit int, htab *table) []byte {
	// Nothing is written at or past limit. Nor does the output ever exceed
	// the all-literal encoding (one header byte per 32 literals) plus one
	// reserved header, so a larger limit needs no larger buffer.
	return compressTo(in, make([]byte, min(limit, len(in)+len(in)/32+16)), limit, htab)
}

// compressTo compresses into out, which is at least min(limit,
// len(in)+len(in)/32+16) bytes long, and returns the used part of out, or
// nil when the output does not fit in limit bytes.
func compressTo(in, out []byte, limit int, htab *table) []byte {
	inEnd := len(in)
	if uint64(htab.base)+uint64(inEnd) >= math.MaxUint32 {
		clear(htab.slots[:])
		htab.base = 1
	}
	base := htab.base
	defer func() { htab.base = base + uint32(inEnd) + 1 }()
	slots := &htab.slots

	outEnd := limit
	ip, op, lit := 0, 1, 0 // op 0 is reserved for the first literal run's header

	var hval uint32
	if inEnd >= 2 {
		hval = uint32(in[0])<<8 | uint32(in[1])
	}
	for ip < inEnd-2 {
		hval = hval<<8 | uint32(in[ip+2])
		slot := idx(hval)
		ref := 0 // empty
		if v := slots[slot]; v >= base {
			ref = int(v - base)
		}
		slots[slot] = base + uint32(ip)
		off := ip - ref - 1
		if ref < ip && off < lzfMaxOff && ref > 0 &&
			in[ref+2] == in[ip+2] && in[ref] == in[ip] && in[ref+1] == in[ip+1] {
			// A match of at least three bytes at ref.
			n := 2
			maxlen := min(inEnd-ip-n, lzfMaxRef)

			if op+3+1 >= outEnd { // liblzf's "faster conservative test"
				if op-b2i(lit == 0)+3+1 >= outEnd { // and "the exact but rare test"
					return nil
				}
			}
			out[op-lit-1] = byte(lit - 1) // close the literal run
			if lit == 0 {
				op-- // no literal run: drop its reserved header
			}
			// liblzf first compares 16 bytes unrolled without looking at
			// maxlen, then byte by byte up to maxlen; keep both steps so the
			// match lengths (and so the bytes) are the same.
			mismatch := false
			if maxlen > 16 {
				for range 16 {
					n++
					if in[ref+n] != in[ip+n] {
						mismatch = true
						break
					}
				}
			}
			if !mismatch {
				for {
					n++
					if n >= maxlen || in[ref+n] != in[ip+n] {
						break
					}
				}
			}
			n -= 2 // the match is n+2 bytes long
			ip++
			if n < 7 {
				out[op] = byte(off>>8 + n<<5)
				op++
			} else {
				out[op] = byte(off>>8 + 7<<5)
				out[op+1] = byte(n - 7)
				op += 2
			}
			out[op] = byte(off)
			op++
			lit = 0
			op++ // reserve the next literal run's header
			ip += n + 1
			if ip >= inEnd-2 {
				break
			}
			// VERY_FAST: hash only the last two positions of the match.
			ip -= 2
			hval = uint32(in[ip])<<8 | uint32(in[ip+1])
			hval = hval<<8 | uint32(in[ip+2])
			slots[idx(hval)] = base + uint32(ip)
			ip++
			hval = hval<<8 | uint32(in[ip+2])
			slots[idx(hval)] = base + uint32(ip)
			ip++
			continue
		}
		// One more literal byte.
		if op >= outEnd {
			return nil
		}
		lit++
		out[op] = in[ip]
		op++
		ip++
		if lit == lzfMaxLit {
			out[op-lit-1] = byte(lit - 1)
			lit = 0
			op++
		}
	}
	if op+3 > outEnd { // at most 3 more bytes are needed
		return nil
	}
	for ip < inEnd {
		lit++
		out[op] = in[ip]
		op++
		ip++
		if lit == lzfMaxLit {
			out[op-lit-1] = byte(lit - 1)
			lit = 0
			op++
		}
	}
	out[op-lit-1] = byte(lit - 1) // close the last run
	if lit == 0 {
		op--
	}
	return out[:op]
}

// ErrInvalid reports an LZF stream that does not decode to the expected
// length: a corrupt stream, a back reference before the start of the
// output, or a stream that is too short or too long for the length.
var ErrInvalid = errors.New("lzf: invalid compressed data")

// Decompress decodes the LZF stream in, which must decode to exactly
// outLen bytes, as Redis requires of an LZF-encoded RDB string
// (lzf_decompress(in, len(in), out, outLen) == outLen). It accepts every
// stream liblzf's lzf_compress produces and returns ErrInvalid otherwise: on
// a malformed instruction, a back reference before the start of the
// output, input left over once outLen bytes are written, or input ending
// early. It never panics and allocates at most outLen bytes, and only once
// outLen is known to be reachable (outLen <= MaxRatio*len(in)).
//
// outLen 0 is special in Redis: lzf_decompress then always returns 0, so
// Redis accepts any stream for an empty string; Decompress follows the
// same rule and returns an empty result for outLen 0 whatever in is.
func Decompress(in []byte, outLen int) ([]byte, error) {
	if outLen < 0 || outLen > MaxRatio*len(in) {
		return nil, ErrInvalid
	}
	if outLen == 0 {
		return []byte{}, nil
	}
	out := make([]byte, outLen)
	if decompress(in, out) != outLen {
		return nil, ErrInvalid
	}
	return out, nil
}

// DecompressTo is Decompress writing into out instead of a new buffer:
// in must decode to exactly len(out) bytes, or it returns ErrInvalid (and
// the contents of out are then unspecified). As with Decompress, an
// empty out accepts any in. It does not allocate.
func DecompressTo(out, in []byte) error {
	if len(out) == 0 {
		return nil
	}
	if decompress(in, out) != len(out) {
		return ErrInvalid
	}
	return nil
}

// decompress is lzf_decompress with CHECK_INPUT: it decodes in into out
// and returns the number of bytes written, or 0 on error (output overflow
// or malformed input), exactly as the C function does. An empty in
// decodes to nothing (C would read one byte past its buffer).
func decompress(in, out []byte) int {
	inEnd, outEnd := len(in), len(out)
	ip, op := 0, 0
	for ip < inEnd {
		ctrl := int(in[ip])
		ip++
		if ctrl < 1<<5 { // literal run of ctrl+1 bytes
			ctrl++
			if op+ctrl > outEnd {
				return 0 // E2BIG
			}
			if ip+ctrl > inEnd {
				return 0 // EINVAL
			}
			copy(out[op:op+ctrl], in[ip:ip+ctrl])
			op += ctrl
			ip += ctrl
			continue
		}
		// Back reference of n+2 bytes.
		n := ctrl >> 5
		ref := op - (ctrl&0x1f)<<8 - 1
		if ip >= inEnd {
			return 0
		}
		if n == 7 {
			n += int(in[ip])
			ip++
			if ip >= inEnd {
				return 0
			}
		}
		ref -= int(in[ip])
		ip++
		if op+n+2 > outEnd {
			return 0 // E2BIG
		}
		if ref < 0 {
			return 0 // EINVAL
		}
		if ref+n+2 <= op {
			copy(out[op:op+n+2], out[ref:ref+n+2])
			op += n + 2
		} else {
			// Overlapping: the op-ref bytes from ref repeat. Copying all
			// of out[ref:op] each time doubles what is copied, which is
			// what a byte-by-byte copy writes.
			for end := op + n + 2; op < end; {
				op += copy(out[op:end], out[ref:op])
			}
		}
	}
	return op
}
