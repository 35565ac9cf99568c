package lualib

import (
	"math"

	lua "github.com/yuin/gopher-lua"
)

// bit: Lua BitOp 1.0.2 as Redis 7.0 bundles it (deps/lua/src/lua_bit.c).
//
// Contract, as in Redis: every argument is a number (or a string that
// converts to one) reduced to 32 bits the way LuaBitOp does it, by adding
// 2^52+2^51 to the double and keeping the low 32 bits of its
// representation (so fractions round to nearest even and larger values
// wrap modulo 2^32); results are signed 32-bit numbers.
//   - tobit(x), bnot(x), bswap(x)
//   - band, bor, bxor(x1 [, x2...])
//   - lshift, rshift, arshift, rol, ror(x, n): n is taken modulo 32
//   - tohex(x [, n]): n hex digits (default 8, at most 8); a negative n
//     gives upper-case digits.

// OpenBit installs the bit library as the global "bit" and returns its
// table.
func OpenBit(L *lua.LState) *lua.LTable {
	return newLib(L, "bit", map[string]lua.LGFunction{
		"tobit":   bitTobit,
		"bnot":    bitBnot,
		"band":    bitOp(func(a, b uint32) uint32 { return a & b }),
		"bor":     bitOp(func(a, b uint32) uint32 { return a | b }),
		"bxor":    bitOp(func(a, b uint32) uint32 { return a ^ b }),
		"lshift":  bitShift(func(b, n uint32) uint32 { return b << n }),
		"rshift":  bitShift(func(b, n uint32) uint32 { return b >> n }),
		"arshift": bitShift(func(b, n uint32) uint32 { return uint32(int32(b) >> n) }),
		"rol":     bitShift(func(b, n uint32) uint32 { return b<<n | b>>(32-n) }),
		"ror":     bitShift(func(b, n uint32) uint32 { return b<<(32-n) | b>>n }),
		"bswap":   bitBswap,
		"tohex":   bitTohex,
	})
}

// barg is LuaBitOp's barg: argument idx reduced to 32 bits. An argument
// that is not a number is an error, unless it happens to reduce to
// something else than 0 (it cannot: non-numbers read as 0).
func barg(L *lua.LState, idx int) uint32 {
	v := L.Get(idx)
	if idx > L.GetTop() {
		v = lua.LNil
	}
	n, ok := toNumber(v)
	b := uint32(math.Float64bits(n + 6755399441055744.0)) // 2^52+2^51
	if b == 0 && !ok {
		typeError(L, idx, "number")
	}
	return b
}

// bret pushes a bit result as a signed 32-bit number.
func bret(L *lua.LState, b uint32) int {
	L.Push(lua.LNumber(int32(b)))
	return 1
}

func bitTobit(L *lua.LState) int { return bret(L, barg(L, 1)) }

func bitBnot(L *lua.LState) int { return bret(L, ^barg(L, 1)) }

// bitOp folds op over all arguments, reading them from the last to the
// second as the C code does (which matters for which bad argument is
// reported).
func bitOp(op func(a, b uint32) uint32) lua.LGFunction {
	return func(L *lua.LState) int {
		b := barg(L, 1)
		for i := L.GetTop(); i > 1; i-- {
			b = op(b, barg(L, i))
		}
		return bret(L, b)
	}
}

// bitShift applies a shift or rotation by the second argument modulo 32.
func bitShift(fn func(b, n uint32) uint32) lua.LGFunction {
	return func(L *lua.LState) int {
		b := barg(L, 1)
		n := barg(L, 2) & 31
		return bret(L, fn(b, n))
	}
}

func bitBswap(L *lua.LState) int {
	b := barg(L, 1)
	b = b>>24 | (b>>8)&0xff00 | (b&0xff00)<<8 | b<<24
	return bret(L, b)
}

func bitTohex(L *lua.LState) int {
	b := barg(L, 1)
	n := int32(8)
	if L.GetTop() >= 2 {
		n = int32(barg(L, 2))
	}
	digits := "0123456789abcdef"
	if n < 0 {
		if n == math.MinInt32 {
			// -n overflows and C pushes a string of length (size_t)n:
			// Redis cannot allocate it.
			raiseBare(L, "not enough memory")
		}
		n = -n
		digits = "0123456789ABCDEF"
	}
	if n > 8 {
		n = 8
	}
	buf := make([]byte, n)
	for i := n - 1; i >= 0; i-- {
		buf[i] = digits[b&15]
		b >>= 4
	}
	L.Push(lua.LString(buf))
	return 1
}
