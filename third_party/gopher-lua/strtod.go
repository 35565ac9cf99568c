package lua

import (
	"math"
	"strconv"
)

// HotKV patch. Number parsing as glibc's strtod and Lua 5.1's luaO_str2d do it. Redis
// links its Lua with glibc, so lua_tonumber("0x10") is 16, "inf" and "nan"
// are numbers, and cjson.decode reads its numbers with strtod as well.

// sdQuietNaN is the NaN strtod returns for "nan": positive, quiet, no payload.
const sdQuietNaN = 0x7ff8000000000000

// sdIsSpace is isspace in the C locale.
func sdIsSpace(c byte) bool {
	return c == ' ' || (c >= '\t' && c <= '\r')
}

func sdIsDigit(c byte) bool { return c >= '0' && c <= '9' }

func sdIsHexDigit(c byte) bool {
	return sdIsDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f')
}

func sdIsAlnum(c byte) bool {
	return sdIsDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

// sdHasPrefixFold reports whether s starts with the lower-case ASCII word
// prefix, ignoring case (strncasecmp).
func sdHasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		if s[i]|0x20 != prefix[i] {
			return false
		}
	}
	return true
}

// Strtod parses the longest prefix of s that glibc's strtod accepts and
// returns its value and length; n is 0 when nothing converts. s is read as
// a C string: a NUL byte ends it. Accepted: leading white space, a sign,
// then a decimal number with optional fraction and exponent, a hexadecimal
// number ("0x1.8p3", the binary exponent optional), "inf", "infinity" or
// "nan" with an optional "(n-char-sequence)" payload, letters in any case.
// Overflow gives ±Inf and underflow a denormal or zero, correctly rounded.
func Strtod(s string) (v float64, n int) {
	i := 0
	for i < len(s) && sdIsSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	withSign := func(f float64) float64 {
		if neg {
			return math.Float64frombits(math.Float64bits(f) ^ (1 << 63))
		}
		return f
	}
	rest := s[i:]
	switch {
	case sdHasPrefixFold(rest, "inf"):
		if sdHasPrefixFold(rest, "infinity") {
			return withSign(math.Inf(1)), i + 8
		}
		return withSign(math.Inf(1)), i + 3
	case sdHasPrefixFold(rest, "nan"):
		f, m := sdParseNaN(rest)
		return withSign(f), i + m
	case len(rest) >= 2 && rest[0] == '0' && rest[1]|0x20 == 'x':
		if f, m := sdParseHexFloat(rest); m > 0 {
			return withSign(f), i + m
		}
		// "0x" without hex digits: only the "0" converts.
		return withSign(0), i + 1
	}
	m := sdScanDecimal(rest)
	if m == 0 {
		return 0, 0
	}
	f, err := strconv.ParseFloat(rest[:m], 64)
	if err != nil && !sdIsRangeErr(err) {
		return 0, 0
	}
	return withSign(f), i + m
}

func sdIsRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// sdScanDecimal returns the length of the decimal number at the start of s:
// digits with an optional '.' (at least one digit in all), then an optional
// exponent that is only taken when it has digits.
func sdScanDecimal(s string) int {
	i, digits := 0, 0
	for i < len(s) && sdIsDigit(s[i]) {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && sdIsDigit(s[i]) {
			i++
			digits++
		}
	}
	if digits == 0 {
		return 0
	}
	return i + sdScanExponent(s[i:], 'e')
}

// sdScanExponent returns the length of an exponent ("e-12", "p+3") at the
// start of s, or 0 when there is none with digits.
func sdScanExponent(s string, mark byte) int {
	if len(s) == 0 || s[0]|0x20 != mark {
		return 0
	}
	j := 1
	if j < len(s) && (s[j] == '+' || s[j] == '-') {
		j++
	}
	start := j
	for j < len(s) && sdIsDigit(s[j]) {
		j++
	}
	if j == start {
		return 0
	}
	return j
}

// sdParseHexFloat parses "0x" hex digits with an optional '.' and binary
// exponent at the start of s; n is 0 when there is no hex digit.
func sdParseHexFloat(s string) (float64, int) {
	i, digits := 2, 0
	for i < len(s) && sdIsHexDigit(s[i]) {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && sdIsHexDigit(s[i]) {
			i++
			digits++
		}
	}
	if digits == 0 {
		return 0, 0
	}
	mant := s[:i]
	e := sdScanExponent(s[i:], 'p')
	exp := "p0"
	if e > 0 {
		exp = s[i : i+e]
	}
	f, err := strconv.ParseFloat(mant+exp, 64)
	if err != nil && !sdIsRangeErr(err) {
		return 0, 0
	}
	return f, i + e
}

// sdParseNaN parses "nan" and an optional "(n-char-sequence)" at the start
// of s. As glibc does, a sequence that reads entirely as an unsigned number
// (strtoull, base 0) sets the low 51 mantissa bits of the quiet NaN.
func sdParseNaN(s string) (float64, int) {
	bits := uint64(sdQuietNaN)
	n := 3
	if n < len(s) && s[n] == '(' {
		j := n + 1
		for j < len(s) && (sdIsAlnum(s[j]) || s[j] == '_') {
			j++
		}
		if j < len(s) && s[j] == ')' {
			if payload, ok := sdParseCULL(s[n+1 : j]); ok {
				bits |= payload & (1<<51 - 1)
			}
			n = j + 1
		}
	}
	return math.Float64frombits(bits), n
}

// sdParseCULL reports the value of s read by strtoull with base 0 and
// whether that read consumed all of s. Overflow saturates as strtoull does.
func sdParseCULL(s string) (uint64, bool) {
	if s == "" {
		return 0, true
	}
	base, digits := uint64(10), s
	switch {
	case len(s) > 2 && s[0] == '0' && s[1]|0x20 == 'x' && sdIsHexDigit(s[2]):
		base, digits = 16, s[2:]
	case s[0] == '0':
		base = 8
	}
	var v uint64
	overflow := false
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		var d uint64
		switch {
		case sdIsDigit(c):
			d = uint64(c - '0')
		case c|0x20 >= 'a' && c|0x20 <= 'z':
			d = uint64(c|0x20-'a') + 10
		default:
			return 0, false
		}
		if d >= base {
			return 0, false
		}
		if v > (math.MaxUint64-d)/base {
			overflow = true
		}
		v = v*base + d
	}
	if overflow {
		v = math.MaxUint64
	}
	return v, true
}

// Str2Number is luaO_str2d, the string-to-number conversion of lua_tonumber:
// strtod on the string up to its first NUL, then only white space may
// follow. (Lua's strtoul retry for a stop at 'x' cannot succeed after
// glibc's strtod, which reads hexadecimal itself.)
func Str2Number(s string) (float64, bool) {
	if f, ok := sdSmallInt(s); ok {
		return f, true
	}
	s = sdCString(s)
	f, n := Strtod(s)
	if n == 0 {
		return 0, false
	}
	for _, c := range []byte(s[n:]) {
		if !sdIsSpace(c) {
			return 0, false
		}
	}
	return f, true
}

// sdSmallInt converts s when it is only an optional '-' and 1 to 15
// decimal digits — the counters scripts read with tonumber, exact in a
// float64 — without Strtod's general parse (HotKV patch 25).
func sdSmallInt(s string) (float64, bool) {
	digits := s
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 15 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if len(digits) != len(s) {
		if n == 0 {
			return math.Copysign(0, -1), true // "-0" is -0, as strtod reads it
		}
		n = -n
	}
	return float64(n), true
}

// sdCString cuts s at its first NUL byte, as C reads a string.
func sdCString(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return s[:i]
		}
	}
	return s
}
