package lualib_test

import "testing"

// values covers the 32-bit boundaries, fractions (rounded to nearest even
// by barg), numbers beyond 2^32 and 2^52 (which wrap) and special values.
const bitValues = `{0, 1, -1, 2, 7, 31, 32, 33, 0x7fffffff, 0x80000000, -0x80000000, -0x80000001, 0xffffffff, 0x100000000, 0x123456789, 2^52, 2^52 + 1, 2^53, 2^63, -2^63, 1e20, 0.5, 1.5, 2.5, -0.5, -1.5, 0.49999999999999994, 1/0, -1/0, 0/0, "12", "0x10", " 3 ", "1e2"}`

var bitCases = []diffCase{
	{name: "tobit", src: `local out = {} for _, v in ipairs(` + bitValues + `) do out[#out + 1] = num(bit.tobit(v)) end return table.concat(out, " ")`},
	{name: "bnot", src: `local out = {} for _, v in ipairs(` + bitValues + `) do out[#out + 1] = num(bit.bnot(v)) end return table.concat(out, " ")`},
	{name: "bswap", src: `local out = {} for _, v in ipairs(` + bitValues + `) do out[#out + 1] = num(bit.bswap(v)) end return table.concat(out, " ")`},
	{name: "tohex", src: `local out = {} for _, v in ipairs(` + bitValues + `) do out[#out + 1] = bit.tohex(v) .. "/" .. bit.tohex(v, -4) .. "/" .. bit.tohex(v, 2) .. "/" .. bit.tohex(v, 12) .. "/" .. bit.tohex(v, -12) .. "/" .. bit.tohex(v, 0) end return table.concat(out, " ")`},
	{name: "tohex/n-wraps", src: `return bit.tohex(0x12345678, 2^32 + 3) .. " " .. bit.tohex(0x12345678, -(2^32 + 3)) .. " " .. bit.tohex(255, 1.5) .. " " .. bit.tohex(255, "-2")`, want: `678 678 ff FF`},
	{name: "and-or-xor", src: `local out = {} for _, a in ipairs(` + bitValues + `) do for _, b in ipairs({0, -1, 0x0f0f0f0f, 2^40 + 5, 1.5}) do out[#out + 1] = num(bit.band(a, b)) .. "," .. num(bit.bor(a, b)) .. "," .. num(bit.bxor(a, b)) end end return table.concat(out, " ")`},
	{name: "variadic", src: `return show(bit.band(0xff, 0x0f, 0x3), bit.bor(1, 2, 4, 8, 16), bit.bxor(1, 3, 7, 15), bit.band(5), bit.bor(-1), bit.bxor(0x80000000))`, want: `3 31 10 5 -1 -2147483648`},
	{name: "shifts", src: `local out = {} for _, a in ipairs({1, -1, 0x80000000, 0x12345678, 0xdeadbeef, 2^40 + 3}) do for _, n in ipairs({0, 1, 4, 31, 32, 33, -1, -31, 1.5, 2^32 + 2}) do out[#out + 1] = num(bit.lshift(a, n)) .. "," .. num(bit.rshift(a, n)) .. "," .. num(bit.arshift(a, n)) .. "," .. num(bit.rol(a, n)) .. "," .. num(bit.ror(a, n)) end end return table.concat(out, " ")`},
	{name: "errors", src: `return table.concat({try(bit.tobit), try(bit.tobit, "x"), try(bit.tobit, {}), try(bit.band, 1, "a"), try(bit.band, 1, {}, "a"), try(bit.band, "a", {}), try(bit.lshift, 1), try(bit.lshift, nil, {}), try(bit.tohex, 1, nil), try(bit.tohex, "z"), try(bit.bnot, true), try(bit.bswap)}, " | ")`},
	{name: "direct-error", src: `local ok, err = pcall(function() return bit.band(1, "x") end) return err`, want: `user_script:1: bad argument #2 to 'band' (number expected, got string)`},
	{name: "string-number", src: `return show(bit.tobit("0"), bit.tobit("  0x1f  "), bit.tobit("1e1"), bit.tobit("inf"), bit.tobit("nan"), bit.tobit("-0x10"))`},
	{name: "library", src: `local ks = {} for k, v in pairs(bit) do ks[#ks + 1] = k .. ":" .. type(v) end table.sort(ks) return table.concat(ks, " ")`,
		want: `arshift:function band:function bnot:function bor:function bswap:function bxor:function lshift:function rol:function ror:function rshift:function tobit:function tohex:function`},
}

func TestBit(t *testing.T) {
	runCases(t, "bit", bitCases)
}
