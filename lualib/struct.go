package lualib

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// struct: Roberto Ierusalimschy's struct library as Redis 7.0 bundles it
// (deps/lua/src/lua_struct.c, with Redis's overflow and offset checks),
// with the sizes of an x86-64 build.
//
// Contract, as in Redis. A format is a sequence of options:
//
//	>  big endian          <  little endian (the default, native)
//	![n]  maximum alignment n (a power of 2; 8 when n is absent): items
//	      are then aligned to min(size, n); formats start unaligned
//	x  one padding byte    ' '  ignored
//	b/B  signed/unsigned char (1)    h/H  short (2)
//	l/L  long (8)                    T    size_t (8)
//	i/I[n]  integer of n bytes (default 4, at most 32)
//	f  float (4)    d  double (8)
//	c[n]  n chars (n defaults to 1); when packing, c0 packs the whole
//	      string; when unpacking, c0 takes its length from the value
//	      read just before
//	s  zero-terminated string
//
//   - struct.pack(fmt, ...) returns the packed string.
//   - struct.unpack(fmt, s [, pos]) returns the values read from s at
//     1-based position pos (default 1), then the position after them.
//   - struct.size(fmt) returns the size of fmt, which must not contain 's'
//     or 'c0'.
//
// Numbers are converted to integers as the C code converts doubles on
// x86-64 (out-of-range values included); integers of more than 8 bytes are
// padded with zero bytes (and read back from their low 8 bytes).

const (
	structMaxIntSize = 32
	structMaxAlign   = 8
	structBig        = 0
	structLittle     = 1
	structNative     = structLittle
)

// OpenStruct installs the struct library as the global "struct" and
// returns its table.
func OpenStruct(L *lua.LState) *lua.LTable {
	return newLib(L, "struct", map[string]lua.LGFunction{
		"pack":   structPack,
		"unpack": structUnpack,
		"size":   structSize,
	})
}

// structHeader holds the current endianness and maximum alignment.
type structHeader struct {
	endian int
	align  uint64
}

// structFormat is a format being read; fmt is a C string.
type structFormat struct {
	L   *lua.LState
	fmt string
	pos int
}

func (f *structFormat) more() bool { return f.pos < len(f.fmt) }

func (f *structFormat) next() byte {
	c := f.fmt[f.pos]
	f.pos++
	return c
}

// getnum reads an optional decimal count, df when there is none.
func (f *structFormat) getnum(df int) int {
	if !f.more() || !isDigit(f.fmt[f.pos]) {
		return df
	}
	a := 0
	for f.more() && isDigit(f.fmt[f.pos]) {
		d := int(f.fmt[f.pos] - '0')
		if a > math.MaxInt32/10 || a*10 > math.MaxInt32-d {
			raise(f.L, "integral size overflow")
		}
		a = a*10 + d
		f.pos++
	}
	return a
}

// optsize is the size of option opt (0 for the options without one).
func (f *structFormat) optsize(opt byte) uint64 {
	switch opt {
	case 'B', 'b', 'x':
		return 1
	case 'H', 'h':
		return 2
	case 'L', 'l', 'T', 'd':
		return 8
	case 'f':
		return 4
	case 'c':
		return uint64(f.getnum(1))
	case 'i', 'I':
		sz := f.getnum(4)
		if sz > structMaxIntSize {
			raise(f.L, "integral size "+strconv.Itoa(sz)+" is larger than limit of "+strconv.Itoa(structMaxIntSize))
		}
		return uint64(sz)
	}
	return 0
}

// gettoalign is the padding that aligns an item of size at offset n.
func gettoalign(n uint64, h *structHeader, opt byte, size uint64) uint64 {
	if size == 0 || opt == 'c' {
		return 0
	}
	if size > h.align {
		size = h.align
	}
	return (size - (n & (size - 1))) & (size - 1)
}

// controloptions handles the options that are not items.
func (f *structFormat) controloptions(opt byte, h *structHeader) {
	switch opt {
	case ' ':
	case '>':
		h.endian = structBig
	case '<':
		h.endian = structLittle
	case '!':
		a := f.getnum(structMaxAlign)
		if a <= 0 || a&(a-1) != 0 {
			raise(f.L, "alignment "+strconv.Itoa(a)+" is not a power of 2")
		}
		h.align = uint64(a)
	default:
		argError(f.L, 1, "invalid format option '"+string([]byte{opt})+"'")
	}
}

// putInteger appends n as an integer of size bytes.
func putInteger(buf []byte, n float64, endian int, size int) []byte {
	var value uint64
	if n < 0 {
		value = uint64(cInt64(n))
	} else {
		value = cUint64(n)
	}
	b := make([]byte, size)
	for i := 0; i < size; i++ {
		j := i
		if endian == structBig {
			j = size - 1 - i
		}
		b[j] = byte(value)
		value >>= 8
	}
	return append(buf, b...)
}

// appendOrdered appends the little-endian bytes le in the byte order of
// endian.
func appendOrdered(buf, le []byte, endian int) []byte {
	if endian != structNative {
		for i, j := 0, len(le)-1; i < j; i, j = i+1, j-1 {
			le[i], le[j] = le[j], le[i]
		}
	}
	return append(buf, le...)
}

func structPack(L *lua.LState) int {
	f := &structFormat{L: L, fmt: cString(checkLString(L, 1))}
	// The C code pushes a nil to mark the end of the arguments, so a
	// missing argument reads as nil, not as no value.
	L.Push(lua.LNil)
	h := structHeader{endian: structNative, align: 1}
	arg := 2
	var buf []byte
	var total uint64
	for f.more() {
		opt := f.next()
		size := f.optsize(opt)
		toalign := gettoalign(total, &h, opt, size)
		total += toalign
		for ; toalign > 0; toalign-- {
			buf = append(buf, 0)
		}
		switch opt {
		case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I':
			buf = putInteger(buf, checkNumber(L, arg), h.endian, int(size))
			arg++
		case 'x':
			buf = append(buf, 0)
		case 'f':
			le := binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(checkNumber(L, arg))))
			arg++
			buf = appendOrdered(buf, le, h.endian)
		case 'd':
			le := binary.LittleEndian.AppendUint64(nil, math.Float64bits(checkNumber(L, arg)))
			arg++
			buf = appendOrdered(buf, le, h.endian)
		case 'c', 's':
			s := checkLString(L, arg)
			arg++
			if size == 0 {
				size = uint64(len(s))
			}
			if uint64(len(s)) < size {
				// C reports the argument after the string.
				argError(L, arg, "string too short")
			}
			buf = append(buf, s[:size]...)
			if opt == 's' {
				buf = append(buf, 0)
				size++
			}
		default:
			f.controloptions(opt, &h)
		}
		total += size
	}
	L.Push(lua.LString(buf))
	return 1
}

// getInteger reads an integer of size bytes.
func getInteger(b string, endian int, signed bool, size int) float64 {
	var l uint64
	for i := 0; i < size; i++ {
		j := i
		if endian != structBig {
			j = size - 1 - i
		}
		l = l<<8 | uint64(b[j])
	}
	if !signed {
		return float64(l)
	}
	// The C shift count is not reduced for sizes above 8: x86-64 takes
	// it modulo 64.
	mask := ^uint64(0) << ((size*8 - 1) & 63)
	if l&mask != 0 {
		l |= mask
	}
	return float64(int64(l))
}

// littleEndianBytes returns the bytes of b, stored in endian order, in
// little-endian order.
func littleEndianBytes(b string, endian int) []byte {
	le := []byte(b)
	if endian != structNative {
		for i, j := 0, len(le)-1; i < j; i, j = i+1, j-1 {
			le[i], le[j] = le[j], le[i]
		}
	}
	return le
}

func structUnpack(L *lua.LState) int {
	f := &structFormat{L: L, fmt: cString(checkLString(L, 1))}
	data := checkLString(L, 2)
	ld := uint64(len(data))
	pos := uint64(optInteger(L, 3, 1))
	if pos == 0 {
		argError(L, 3, "offset must be 1 or greater")
	}
	pos-- // 0-based from here on
	h := structHeader{endian: structNative, align: 1}
	args := L.GetTop()
	var results []lua.LValue
	for f.more() {
		opt := f.next()
		size := f.optsize(opt)
		pos += gettoalign(pos, &h, opt, size)
		if size > ld || pos > ld-size {
			argError(L, 2, "data string too short")
		}
		checkStack(L, args+len(results), 2, "too many results")
		switch opt {
		case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I':
			signed := opt >= 'a' && opt <= 'z'
			results = append(results, lua.LNumber(getInteger(data[pos:pos+size], h.endian, signed, int(size))))
		case 'x':
		case 'f':
			le := littleEndianBytes(data[pos:pos+4], h.endian)
			results = append(results, lua.LNumber(math.Float32frombits(binary.LittleEndian.Uint32(le))))
		case 'd':
			le := littleEndianBytes(data[pos:pos+8], h.endian)
			results = append(results, lua.LNumber(math.Float64frombits(binary.LittleEndian.Uint64(le))))
		case 'c':
			if size == 0 {
				var n float64
				ok := false
				if len(results) > 0 {
					n, ok = toNumber(results[len(results)-1])
				}
				if !ok {
					raise(L, "format 'c0' needs a previous size")
				}
				size = cUint64(n)
				results = results[:len(results)-1]
				if size > ld || pos > ld-size {
					argError(L, 2, "data string too short")
				}
			}
			results = append(results, lua.LString(data[pos:pos+size]))
		case 's':
			e := strings.IndexByte(data[pos:], 0)
			if e < 0 {
				raise(L, "unfinished string in data")
			}
			size = uint64(e) + 1
			results = append(results, lua.LString(data[pos:pos+uint64(e)]))
		default:
			f.controloptions(opt, &h)
		}
		pos += size
	}
	for _, v := range results {
		L.Push(v)
	}
	L.Push(lua.LNumber(int64(pos + 1)))
	return len(results) + 1
}

func structSize(L *lua.LState) int {
	f := &structFormat{L: L, fmt: cString(checkLString(L, 1))}
	h := structHeader{endian: structNative, align: 1}
	var pos uint64
	for f.more() {
		opt := f.next()
		size := f.optsize(opt)
		pos += gettoalign(pos, &h, opt, size)
		if opt == 's' {
			argError(L, 1, "option 's' has no fixed size")
		} else if opt == 'c' && size == 0 {
			argError(L, 1, "option 'c0' has no fixed size")
		}
		if !isAlnum(opt) {
			f.controloptions(opt, &h)
		}
		pos += size
	}
	L.Push(lua.LNumber(int64(pos)))
	return 1
}
