package lualib

import (
	"encoding/binary"
	"math"
	"strconv"

	lua "github.com/yuin/gopher-lua"
)

// cmsgpack: lua-cmsgpack 0.4.0 as Redis 7.0 bundles it
// (deps/lua/src/lua_cmsgpack.c).
//
// Contract, as in Redis:
//   - cmsgpack.pack(v1, ...) encodes each argument and returns the
//     concatenation. Numbers that are whole and fit in int64 use the
//     smallest integer encoding (positive/negative fixnum, [u]int8..64),
//     others are float 32 when that is exact, else float 64. Strings use
//     fixstr, str8, str16 or str32. A table whose keys are exactly 1..n is
//     an array, every other table (the empty one included) a map. Tables
//     nested 16 deep, and every value that is not a string, boolean,
//     number or table, encode as nil.
//   - cmsgpack.unpack(s) decodes every value in s and returns them all.
//     unpack_one(s [, offset]) decodes one value and unpack_limit(s,
//     limit [, offset]) up to limit values; both return first the offset
//     to continue from (-1 at the end of s), then the values. Offsets are
//     0-based. bin, ext and the reserved type 0xc1 are "Bad data format".
//     Integers come back as Lua numbers (so above 2^53 they lose
//     precision, and uint 64 values above 2^63 wrap to negative numbers
//     as they do in Redis).

const (
	cmsgpackName        = "cmsgpack"
	cmsgpackVersion     = "lua-cmsgpack 0.4.0"
	cmsgpackCopyright   = "Copyright (C) 2012, Salvatore Sanfilippo"
	cmsgpackDescription = "MessagePack C implementation for Lua"

	// mpMaxNesting is LUACMSGPACK_MAX_NESTING: deeper tables encode as nil.
	mpMaxNesting = 16

	msgTooManyValues = "too many return values at once; use unpack_one or unpack_limit instead."
)

// OpenCMsgpack installs the cmsgpack library as the global "cmsgpack" and
// returns its table.
func OpenCMsgpack(L *lua.LState) *lua.LTable {
	t := newLib(L, cmsgpackName, map[string]lua.LGFunction{
		"pack":         mpPack,
		"unpack":       mpUnpack,
		"unpack_one":   mpUnpackOne,
		"unpack_limit": mpUnpackLimit,
	})
	t.RawSetString("_NAME", lua.LString(cmsgpackName))
	t.RawSetString("_VERSION", lua.LString(cmsgpackVersion))
	t.RawSetString("_COPYRIGHT", lua.LString(cmsgpackCopyright))
	t.RawSetString("_DESCRIPTION", lua.LString(cmsgpackDescription))
	return t
}

// ===== Encoding =====

type mpEncoder struct {
	L   *lua.LState
	buf []byte
}

// mpPack is mp_pack.
func mpPack(L *lua.LState) int {
	nargs := L.GetTop()
	if nargs == 0 {
		argError(L, 0, "MessagePack pack needs input.")
	}
	if nargs+nargs > maxCStack {
		argError(L, 0, "Too many arguments for MessagePack pack.")
	}
	e := &mpEncoder{L: L}
	for i := 1; i <= nargs; i++ {
		// The C code holds the arguments and the strings of the
		// arguments already packed, then pushes argument i.
		used := nargs + i - 1
		checkStack(L, used, 1, "in function mp_check")
		e.encodeValue(L.Get(i), 0, used+1)
	}
	L.Push(lua.LString(e.buf))
	return 1
}

func (e *mpEncoder) bytes(s string) {
	n := len(s)
	switch {
	case n < 32:
		e.buf = append(e.buf, 0xa0|byte(n))
	case n <= 0xff:
		e.buf = append(e.buf, 0xd9, byte(n))
	case n <= 0xffff:
		e.buf = append(e.buf, 0xda)
		e.buf = binary.BigEndian.AppendUint16(e.buf, uint16(n))
	default:
		e.buf = append(e.buf, 0xdb)
		e.buf = binary.BigEndian.AppendUint32(e.buf, uint32(n))
	}
	e.buf = append(e.buf, s...)
}

// double is mp_encode_double: float 32 when the value survives the
// conversion to float, float 64 otherwise.
func (e *mpEncoder) double(d float64) {
	if f := float32(d); float64(f) == d {
		e.buf = append(e.buf, 0xca)
		e.buf = binary.BigEndian.AppendUint32(e.buf, math.Float32bits(f))
		return
	}
	e.buf = append(e.buf, 0xcb)
	e.buf = binary.BigEndian.AppendUint64(e.buf, math.Float64bits(d))
}

// integer is mp_encode_int.
func (e *mpEncoder) integer(n int64) {
	b := e.buf
	if n >= 0 {
		switch {
		case n <= 127:
			b = append(b, byte(n))
		case n <= 0xff:
			b = append(b, 0xcc, byte(n))
		case n <= 0xffff:
			b = binary.BigEndian.AppendUint16(append(b, 0xcd), uint16(n))
		case n <= 0xffffffff:
			b = binary.BigEndian.AppendUint32(append(b, 0xce), uint32(n))
		default:
			b = binary.BigEndian.AppendUint64(append(b, 0xcf), uint64(n))
		}
	} else {
		switch {
		case n >= -32:
			b = append(b, byte(n))
		case n >= -128:
			b = append(b, 0xd0, byte(n))
		case n >= -32768:
			b = binary.BigEndian.AppendUint16(append(b, 0xd1), uint16(n))
		case n >= -2147483648:
			b = binary.BigEndian.AppendUint32(append(b, 0xd2), uint32(n))
		default:
			b = binary.BigEndian.AppendUint64(append(b, 0xd3), uint64(n))
		}
	}
	e.buf = b
}

// header writes an array (fix 0x90, 0xdc, 0xdd) or map (fix 0x80, 0xde,
// 0xdf) header for n elements.
func (e *mpEncoder) header(n int, fix, b16, b32 byte) {
	switch {
	case n <= 15:
		e.buf = append(e.buf, fix|byte(n))
	case n <= 65535:
		e.buf = binary.BigEndian.AppendUint16(append(e.buf, b16), uint16(n))
	default:
		e.buf = binary.BigEndian.AppendUint32(append(e.buf, b32), uint32(n))
	}
}

// number is mp_encode_lua_number: integers when the double is whole and
// converts to int64 and back unchanged.
func (e *mpEncoder) number(n float64) {
	if i := cInt64(n); !math.IsInf(n, 0) && float64(i) == n {
		e.integer(i)
		return
	}
	e.double(n)
}

// isArray is table_is_an_array: the keys are exactly 1..n (n fitting a C
// int). used is the stack slots the C code holds, the table on top.
func (e *mpEncoder) isArray(t *lua.LTable, used int) (bool, int) {
	checkStack(e.L, used, 2, "in function table_is_an_array")
	var count, max int32
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		n, ok := k.(lua.LNumber)
		if !ok {
			return false, 0
		}
		f := float64(n)
		if f <= 0 || math.IsInf(f, 0) || float64(cInt32(f)) != f {
			return false, 0
		}
		if f > float64(max) {
			max = cInt32(f)
		}
		count++
	}
	return max == count, int(count)
}

// encodeValue is mp_encode_lua_type for v at nesting level, with used
// stack slots (v on top).
func (e *mpEncoder) encodeValue(v lua.LValue, level int, used int) {
	switch x := v.(type) {
	case lua.LString:
		e.bytes(string(x))
	case lua.LBool:
		if x {
			e.buf = append(e.buf, 0xc3)
		} else {
			e.buf = append(e.buf, 0xc2)
		}
	case lua.LNumber:
		e.number(float64(x))
	case *lua.LTable:
		if level == mpMaxNesting {
			e.buf = append(e.buf, 0xc0)
			return
		}
		if ok, n := e.isArray(x, used); ok {
			e.header(n, 0x90, 0xdc, 0xdd)
			checkStack(e.L, used, 1, "in function mp_encode_lua_table_as_array")
			for j := 1; j <= n; j++ {
				e.encodeValue(x.RawGetInt(j), level+1, used+1)
			}
			return
		}
		checkStack(e.L, used, 3, "in function mp_encode_lua_table_as_map")
		n := 0
		for k, _ := x.Next(lua.LNil); k != lua.LNil; k, _ = x.Next(k) {
			n++
		}
		e.header(n, 0x80, 0xde, 0xdf)
		for k, val := x.Next(lua.LNil); k != lua.LNil; k, val = x.Next(k) {
			e.encodeValue(k, level+1, used+3)
			e.encodeValue(val, level+1, used+2)
		}
	default:
		e.buf = append(e.buf, 0xc0)
	}
}

// ===== Decoding =====

type mpError int

const (
	mpOK     mpError = iota
	mpEOF            // not enough data
	mpBadFmt         // unknown type byte
)

// mpDecoder is the cursor of mp_cur: p is the unread input.
type mpDecoder struct {
	L *lua.LState
	p string
}

// need reports whether n more bytes are available.
func (d *mpDecoder) need(n uint64) bool {
	return uint64(len(d.p)) >= n
}

// be16, be32 and be64 read big-endian integers at offset i of the unread
// input; the caller has checked the length.
func (d *mpDecoder) be16(i int) uint16 { return uint16(d.p[i])<<8 | uint16(d.p[i+1]) }
func (d *mpDecoder) be32(i int) uint32 { return uint32(d.be16(i))<<16 | uint32(d.be16(i+2)) }
func (d *mpDecoder) be64(i int) uint64 { return uint64(d.be32(i))<<32 | uint64(d.be32(i+4)) }

// fixed decodes a value of n bytes after the type byte with conv.
func (d *mpDecoder) fixed(n int, conv func() lua.LValue) (lua.LValue, mpError) {
	if !d.need(uint64(1 + n)) {
		return nil, mpEOF
	}
	v := conv()
	d.p = d.p[1+n:]
	return v, mpOK
}

// str decodes a string whose length takes hdr bytes after the type byte.
func (d *mpDecoder) str(hdr int, l uint64) (lua.LValue, mpError) {
	if !d.need(uint64(1+hdr) + l) {
		return nil, mpEOF
	}
	s := d.p[1+hdr : 1+hdr+int(l)]
	d.p = d.p[1+hdr+int(l):]
	return lua.LString(s), mpOK
}

// decodeValue is mp_decode_to_lua_type; used is the stack slots the C
// decoder holds.
func (d *mpDecoder) decodeValue(used int) (lua.LValue, mpError) {
	if !d.need(1) {
		return nil, mpEOF
	}
	checkStack(d.L, used, 1, msgTooManyValues)
	switch c := d.p[0]; c {
	case 0xcc: // uint 8
		return d.fixed(1, func() lua.LValue { return lua.LNumber(d.p[1]) })
	case 0xd0: // int 8
		return d.fixed(1, func() lua.LValue { return lua.LNumber(int8(d.p[1])) })
	case 0xcd: // uint 16
		return d.fixed(2, func() lua.LValue { return lua.LNumber(d.be16(1)) })
	case 0xd1: // int 16
		return d.fixed(2, func() lua.LValue { return lua.LNumber(int16(d.be16(1))) })
	case 0xce: // uint 32
		return d.fixed(4, func() lua.LValue { return lua.LNumber(d.be32(1)) })
	case 0xd2: // int 32
		return d.fixed(4, func() lua.LValue { return lua.LNumber(int32(d.be32(1))) })
	case 0xcf: // uint 64, pushed as a (signed) lua_Integer
		return d.fixed(8, func() lua.LValue { return lua.LNumber(int64(d.be64(1))) })
	case 0xd3: // int 64
		return d.fixed(8, func() lua.LValue { return lua.LNumber(int64(d.be64(1))) })
	case 0xc0:
		d.p = d.p[1:]
		return lua.LNil, mpOK
	case 0xc3:
		d.p = d.p[1:]
		return lua.LTrue, mpOK
	case 0xc2:
		d.p = d.p[1:]
		return lua.LFalse, mpOK
	case 0xca: // float
		return d.fixed(4, func() lua.LValue { return lua.LNumber(math.Float32frombits(d.be32(1))) })
	case 0xcb: // double
		return d.fixed(8, func() lua.LValue { return lua.LNumber(math.Float64frombits(d.be64(1))) })
	case 0xd9: // str 8
		if !d.need(2) {
			return nil, mpEOF
		}
		return d.str(1, uint64(d.p[1]))
	case 0xda: // str 16
		if !d.need(3) {
			return nil, mpEOF
		}
		return d.str(2, uint64(d.be16(1)))
	case 0xdb: // str 32
		if !d.need(5) {
			return nil, mpEOF
		}
		return d.str(4, uint64(d.be32(1)))
	case 0xdc: // array 16
		if !d.need(3) {
			return nil, mpEOF
		}
		n := uint64(d.be16(1))
		d.p = d.p[3:]
		return d.array(n, used)
	case 0xdd: // array 32
		if !d.need(5) {
			return nil, mpEOF
		}
		n := uint64(d.be32(1))
		d.p = d.p[5:]
		return d.array(n, used)
	case 0xde: // map 16
		if !d.need(3) {
			return nil, mpEOF
		}
		n := uint64(d.be16(1))
		d.p = d.p[3:]
		return d.hash(n, used)
	case 0xdf: // map 32
		if !d.need(5) {
			return nil, mpEOF
		}
		n := uint64(d.be32(1))
		d.p = d.p[5:]
		return d.hash(n, used)
	default:
		switch {
		case c&0x80 == 0: // positive fixnum
			d.p = d.p[1:]
			return lua.LNumber(c), mpOK
		case c&0xe0 == 0xe0: // negative fixnum
			d.p = d.p[1:]
			return lua.LNumber(int8(c)), mpOK
		case c&0xe0 == 0xa0: // fixstr
			return d.str(0, uint64(c&0x1f))
		case c&0xf0 == 0x90: // fixarray
			d.p = d.p[1:]
			return d.array(uint64(c&0xf), used)
		case c&0xf0 == 0x80: // fixmap
			d.p = d.p[1:]
			return d.hash(uint64(c&0xf), used)
		}
		return nil, mpBadFmt
	}
}

// array is mp_decode_to_lua_array. n comes from the input, so nothing is
// allocated from it: a short input fails at its end.
func (d *mpDecoder) array(n uint64, used int) (lua.LValue, mpError) {
	t := d.L.NewTable()
	checkStack(d.L, used+1, 1, "in function mp_decode_to_lua_array")
	for i := uint64(1); i <= n; i++ {
		v, err := d.decodeValue(used + 2)
		if err != mpOK {
			return nil, err
		}
		t.RawSet(lua.LNumber(i), v)
	}
	return t, mpOK
}

// hash is mp_decode_to_lua_hash. Keys are set as lua_settable sets them:
// nil and NaN keys are errors.
func (d *mpDecoder) hash(n uint64, used int) (lua.LValue, mpError) {
	t := d.L.NewTable()
	for i := uint64(0); i < n; i++ {
		k, err := d.decodeValue(used + 1)
		if err != mpOK {
			return nil, err
		}
		v, err := d.decodeValue(used + 2)
		if err != mpOK {
			return nil, err
		}
		switch key := k.(type) {
		case *lua.LNilType:
			raiseBare(d.L, "table index is nil")
		case lua.LNumber:
			if math.IsNaN(float64(key)) {
				raiseBare(d.L, "table index is NaN")
			}
		}
		t.RawSet(k, v)
	}
	return t, mpOK
}

// mpUnpackFull is mp_unpack_full; used is the number of arguments the C
// function still holds.
func mpUnpackFull(L *lua.LState, limit, offset int64, used int) int {
	s := checkLString(L, 1)
	if offset < 0 || limit < 0 {
		// The C code prints the input length where it means the limit.
		raise(L, "Invalid request to unpack with offset of "+strconv.Itoa(int(int32(offset)))+
			" and limit of "+strconv.Itoa(int(int32(len(s))))+".")
	} else if offset > int64(len(s)) {
		raise(L, "Start offset "+strconv.Itoa(int(int32(offset)))+" greater than input length "+
			strconv.Itoa(int(int32(len(s))))+".")
	}
	decodeAll := limit == 0 && offset == 0
	if decodeAll {
		limit = math.MaxInt32
	}
	d := &mpDecoder{L: L, p: s[offset:]}
	var values []lua.LValue
	for cnt := int64(0); len(d.p) > 0 && cnt < limit; cnt++ {
		v, err := d.decodeValue(used + len(values))
		switch err {
		case mpEOF:
			raise(L, "Missing bytes in input.")
		case mpBadFmt:
			raise(L, "Bad data format in input.")
		}
		values = append(values, v)
	}
	if !decodeAll {
		checkStack(L, used+len(values), 1, "in function mp_unpack_full")
		next := int64(len(s) - len(d.p))
		if len(d.p) == 0 {
			next = -1
		}
		L.Push(lua.LNumber(next))
	}
	for _, v := range values {
		L.Push(v)
	}
	if decodeAll {
		return len(values)
	}
	return len(values) + 1
}

// mpUnpack is mp_unpack: every value of the string.
func mpUnpack(L *lua.LState) int {
	return mpUnpackFull(L, 0, 0, L.GetTop())
}

// mpUnpackOne is mp_unpack_one: one value from offset on.
func mpUnpackOne(L *lua.LState) int {
	offset := optInteger(L, 2, 0)
	keepFirstArg(L)
	return mpUnpackFull(L, 1, offset, 1)
}

// mpUnpackLimit is mp_unpack_limit: up to limit values from offset on.
func mpUnpackLimit(L *lua.LState) int {
	limit := checkInteger(L, 2)
	offset := optInteger(L, 3, 0)
	keepFirstArg(L)
	return mpUnpackFull(L, limit, offset, 1)
}

// keepFirstArg drops the arguments after the first, as
// lua_pop(L, lua_gettop(L)-1) does.
func keepFirstArg(L *lua.LState) {
	if L.GetTop() > 1 {
		L.SetTop(1)
	}
}
