package zset

import (
	"bytes"
	"math"
	"strconv"
)

// ScoreRange is a score interval as ZRANGEBYSCORE takes it: each end
// inclusive unless exclusive ("(1.5").
type ScoreRange struct {
	Min, Max     float64
	MinEx, MaxEx bool
}

// GteMin reports whether s is above the low end.
func (r *ScoreRange) GteMin(s float64) bool {
	if r.MinEx {
		return s > r.Min
	}
	return s >= r.Min
}

// LteMax reports whether s is below the high end.
func (r *ScoreRange) LteMax(s float64) bool {
	if r.MaxEx {
		return s < r.Max
	}
	return s <= r.Max
}

// Empty reports whether no score can be in the range.
func (r *ScoreRange) Empty() bool {
	return r.Min > r.Max || r.Min == r.Max && (r.MinEx || r.MaxEx)
}

// ParseScoreRange parses ZRANGEBYSCORE's min and max as Redis's
// zslParseRange does: an optional '(' for an exclusive end, then what C's
// strtod reads, up to the first NUL byte, with nothing after it (so ""
// is 0, " 1" and "0x10" are accepted) and no NaN.
func ParseScoreRange(min, max []byte) (ScoreRange, bool) {
	var r ScoreRange
	var ok bool
	if r.Min, r.MinEx, ok = parseRangeEnd(min); !ok {
		return r, false
	}
	if r.Max, r.MaxEx, ok = parseRangeEnd(max); !ok {
		return r, false
	}
	return r, true
}

func parseRangeEnd(b []byte) (v float64, ex, ok bool) {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	if len(b) > 0 && b[0] == '(' {
		ex = true
		b = b[1:]
	}
	v, n, _ := Strtod(b)
	if n != len(b) || math.IsNaN(v) {
		return 0, false, false
	}
	return v, ex, true
}

// LexRange is a member interval as ZRANGEBYLEX takes it: "[a" inclusive,
// "(a" exclusive, "-" and "+" the lowest and highest possible strings.
type LexRange struct {
	Min, Max lexBound
}

// lexBound is one end of a LexRange.
type lexBound struct {
	inf int8 // -1: "-", +1: "+", 0: val
	ex  bool
	val []byte
}

// cmpValue compares a member with a bound (Redis's sdscmplex).
func cmpValue(m []byte, b *lexBound) int {
	switch b.inf {
	case -1:
		return 1
	case 1:
		return -1
	}
	return bytes.Compare(m, b.val)
}

// GteMin reports whether m is above the low end.
func (r *LexRange) GteMin(m []byte) bool {
	c := cmpValue(m, &r.Min)
	if r.Min.ex {
		return c > 0
	}
	return c >= 0
}

// LteMax reports whether m is below the high end.
func (r *LexRange) LteMax(m []byte) bool {
	c := cmpValue(m, &r.Max)
	if r.Max.ex {
		return c < 0
	}
	return c <= 0
}

// Empty reports whether no member can be in the range.
func (r *LexRange) Empty() bool {
	var c int
	a, b := &r.Min, &r.Max
	switch {
	case a.inf != 0 && a.inf == b.inf:
		c = 0
	case a.inf == -1 || b.inf == 1:
		c = -1
	case a.inf == 1 || b.inf == -1:
		c = 1
	default:
		c = bytes.Compare(a.val, b.val)
	}
	return c > 0 || c == 0 && (a.ex || b.ex)
}

// ParseLexRange parses ZRANGEBYLEX's min and max as Redis's
// zslParseLexRange does. The bounds alias min and max.
func ParseLexRange(min, max []byte) (LexRange, bool) {
	var r LexRange
	var ok bool
	if r.Min, ok = parseLexItem(min); !ok {
		return r, false
	}
	if r.Max, ok = parseLexItem(max); !ok {
		return r, false
	}
	return r, true
}

func parseLexItem(b []byte) (lexBound, bool) {
	if len(b) == 0 {
		return lexBound{}, false
	}
	switch b[0] {
	case '+', '-':
		// Redis looks at the C string: "+" followed by a NUL is "+".
		if len(b) > 1 && b[1] != 0 {
			return lexBound{}, false
		}
		if b[0] == '+' {
			return lexBound{inf: 1, ex: true}, true
		}
		return lexBound{inf: -1, ex: true}, true
	case '(':
		return lexBound{ex: true, val: b[1:]}, true
	case '[':
		return lexBound{val: b[1:]}, true
	}
	return lexBound{}, false
}

// ParseDouble parses a score, weight or increment as Redis's
// getDoubleFromObject does: all of b must be what C's strtod reads (so
// decimal and hexadecimal notation, "inf" and "infinity" in any case),
// with no leading space, and neither NaN nor a finite number that
// overflows to infinity or underflows to zero.
func ParseDouble(b []byte) (float64, bool) {
	if len(b) == 0 || isSpace(b[0]) {
		return 0, false
	}
	v, n, erange := Strtod(b)
	if n != len(b) || math.IsNaN(v) || erange && (math.IsInf(v, 0) || v == 0) {
		return 0, false
	}
	return v, true
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// hasPrefixFold reports whether b starts with the lower-case word w, in
// any case.
func hasPrefixFold(b []byte, w string) bool {
	if len(b) < len(w) {
		return false
	}
	for i := 0; i < len(w); i++ {
		if lower(b[i]) != w[i] {
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= lower(c) && lower(c) <= 'f'
}

// Strtod reads a double from the start of b as glibc's strtod does in the
// C locale: leading white space, a sign, then "inf", "infinity", "nan",
// "nan(chars)", a hexadecimal ("0x1.8p3") or a decimal number. It returns
// the value, the number of bytes read (0 when nothing could be) and
// whether the value overflowed or underflowed to zero (ERANGE). A NUL
// byte ends the input like any other byte that cannot continue a number.
func Strtod(b []byte) (v float64, n int, erange bool) {
	i := 0
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	start := i
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	sign := func(f float64) float64 {
		if neg {
			return -f
		}
		return f
	}
	rest := b[i:]
	switch {
	case hasPrefixFold(rest, "inf"):
		if hasPrefixFold(rest, "infinity") {
			return sign(math.Inf(1)), i + 8, false
		}
		return sign(math.Inf(1)), i + 3, false
	case hasPrefixFold(rest, "nan"):
		j := i + 3
		if j < len(b) && b[j] == '(' {
			k := j + 1
			for k < len(b) && (b[k] == '_' || '0' <= b[k] && b[k] <= '9' || 'a' <= lower(b[k]) && lower(b[k]) <= 'z') {
				k++
			}
			if k < len(b) && b[k] == ')' {
				j = k + 1
			}
		}
		return math.NaN(), j, false
	case len(rest) >= 2 && rest[0] == '0' && lower(rest[1]) == 'x':
		if v, m, er, ok := parseHex(rest[2:]); ok {
			return sign(v), i + 2 + m, er
		}
		return sign(0), i + 1, false // just the "0"
	}
	// Decimal: digits, an optional point and digits, at least one digit,
	// then an exponent if digits follow the 'e'.
	j := i
	digits, nonzero := 0, false
	for j < len(b) && '0' <= b[j] && b[j] <= '9' {
		nonzero = nonzero || b[j] != '0'
		j++
		digits++
	}
	if j < len(b) && b[j] == '.' {
		j++
		for j < len(b) && '0' <= b[j] && b[j] <= '9' {
			nonzero = nonzero || b[j] != '0'
			j++
			digits++
		}
	}
	if digits == 0 {
		return 0, 0, false
	}
	if j < len(b) && lower(b[j]) == 'e' {
		k := j + 1
		if k < len(b) && (b[k] == '+' || b[k] == '-') {
			k++
		}
		if k < len(b) && '0' <= b[k] && b[k] <= '9' {
			for k < len(b) && '0' <= b[k] && b[k] <= '9' {
				k++
			}
			j = k
		}
	}
	f, err := strconv.ParseFloat(string(b[start:j]), 64)
	if err != nil {
		// Only ErrRange is possible here: f is ±Inf.
		return f, j, true
	}
	return f, j, f == 0 && nonzero
}

// parseHex reads the part of a hexadecimal float after "0x": hex digits
// with an optional point (at least one digit), then an optional binary
// exponent "p[+-]digits". ok is false when there is no digit.
func parseHex(b []byte) (v float64, n int, erange, ok bool) {
	j := 0
	digits, nonzero := 0, false
	for j < len(b) && isHex(b[j]) {
		nonzero = nonzero || b[j] != '0'
		j++
		digits++
	}
	if j < len(b) && b[j] == '.' {
		j++
		for j < len(b) && isHex(b[j]) {
			nonzero = nonzero || b[j] != '0'
			j++
			digits++
		}
	}
	if digits == 0 {
		return 0, 0, false, false
	}
	mant := b[:j]
	exp := []byte("p0")
	if j < len(b) && lower(b[j]) == 'p' {
		k := j + 1
		if k < len(b) && (b[k] == '+' || b[k] == '-') {
			k++
		}
		if k < len(b) && '0' <= b[k] && b[k] <= '9' {
			for k < len(b) && '0' <= b[k] && b[k] <= '9' {
				k++
			}
			exp = b[j:k]
			j = k
		}
	}
	s := "0x" + string(mant) + string(exp)
	if mant[0] == '.' {
		s = "0x0" + string(mant) + string(exp)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return f, j, true, true
	}
	return f, j, f == 0 && nonzero, true
}
