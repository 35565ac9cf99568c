package config

import (
	"errors"
	"github.com/hotkv/hotkv/resp"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// ErrUnbalancedQuotes is returned by SplitArgs for unbalanced quotes, or a
// closing quote not followed by a space.
var ErrUnbalancedQuotes = errors.New("unbalanced quotes")

// SplitArgs splits a line into arguments exactly like Redis's sdssplitargs
// (resp.SplitArgs has the details): blanks separate arguments, "double" and
// 'single' quotes with Redis's escapes, a NUL byte ends the line. It
// returns ErrUnbalancedQuotes for unbalanced quotes or a closing quote not
// followed by a blank. An empty or blank line yields an empty, non-nil
// slice.
func SplitArgs(line string) ([]string, error) {
	parts, _, ok := resp.SplitArgs(nil, nil, []byte(line))
	if !ok {
		return nil, ErrUnbalancedQuotes
	}
	args := make([]string, len(parts))
	for i, p := range parts {
		args[i] = string(p)
	}
	return args, nil
}

// isCSpace is C isspace() in the "C" locale.
func isCSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// Repr quotes s the way Redis's sdscatrepr does (used by CONFIG REWRITE and
// to turn command-line options into configuration lines).
// SplitArgs(Repr(s)) returns []string{s}.
func Repr(s string) string { return string(resp.AppendRepr(nil, []byte(s))) }

// memtoull is Redis 7.0's memtoull: digits followed by an optional unit
// among b, k (1000), kb (1024), m, mb, g, gb (case-insensitive). A leading
// '-' is an error; an empty number ("" or "kb") is zero; overflows saturate
// to 2^64-1 before the unit is applied and the multiplication wraps, all as
// in Redis.
func memtoull(s string) (uint64, bool) {
	if strings.HasPrefix(s, "-") {
		return 0, false
	}
	u := 0
	for u < len(s) && s[u] >= '0' && s[u] <= '9' {
		u++
	}
	var mul uint64
	switch unit := s[u:]; {
	case unit == "" || asciiEqualFold(unit, "b"):
		mul = 1
	case asciiEqualFold(unit, "k"):
		mul = 1000
	case asciiEqualFold(unit, "kb"):
		mul = 1024
	case asciiEqualFold(unit, "m"):
		mul = 1000 * 1000
	case asciiEqualFold(unit, "mb"):
		mul = 1024 * 1024
	case asciiEqualFold(unit, "g"):
		mul = 1000 * 1000 * 1000
	case asciiEqualFold(unit, "gb"):
		mul = 1024 * 1024 * 1024
	default:
		return 0, false
	}
	if u >= 128 {
		return 0, false
	}
	var v uint64
	for i := 0; i < u; i++ {
		d := uint64(s[i] - '0')
		if v > (math.MaxUint64-d)/10 {
			v = math.MaxUint64 // strtoull saturates on ERANGE
			break
		}
		v = v*10 + d
	}
	return v * mul, true
}

// ParseMemory parses a memory amount the way redis.conf does (Redis's
// memtoull): a decimal number of bytes optionally followed by a unit, case
// insensitive: b (1), k (1000), kb (1024), m (1000^2), mb (1024^2), g
// (1000^3) or gb (1024^3). No spaces, signs or fractions are allowed; as in
// Redis an empty number counts as zero ("" and "gb" are 0). Values that do
// not fit an int64 are an error.
func ParseMemory(s string) (int64, error) {
	v, ok := memtoull(s)
	if !ok {
		return 0, errors.New("argument must be a memory value")
	}
	if v > math.MaxInt64 {
		return 0, errors.New("memory value out of range")
	}
	return int64(v), nil
}

// string2ll is Redis's strict integer parser (resp.ParseInt).
func string2ll(s string) (int64, bool) { return resp.ParseInt([]byte(s)) }

// strtoll mimics C strtoll (glibc, bases 8 and 10): it skips leading
// blanks, accepts a sign, parses as many digits as it can and returns the
// value (saturated on overflow, with erange set) and the unparsed rest. When
// no digits are found the rest is the whole input, as endptr == nptr in C.
func strtoll(s string, base int) (v int64, rest string, erange bool) {
	p := 0
	for p < len(s) && isCSpace(s[p]) {
		p++
	}
	neg := false
	if p < len(s) && (s[p] == '+' || s[p] == '-') {
		neg = s[p] == '-'
		p++
	}
	start := p
	var u uint64
	over := false
	for p < len(s) && s[p] >= '0' && int(s[p]-'0') < base {
		d := uint64(s[p] - '0')
		if u > (math.MaxUint64-d)/uint64(base) {
			over = true
		} else {
			u = u*uint64(base) + d
		}
		p++
	}
	if p == start {
		return 0, s, false
	}
	switch {
	case !neg && (over || u > math.MaxInt64):
		return math.MaxInt64, s[p:], true
	case neg && (over || u > 1<<63):
		return math.MinInt64, s[p:], true
	case neg:
		return -int64(u), s[p:], false
	}
	return int64(u), s[p:], false
}

// asciiEqualFold is C strcasecmp() == 0 in the "C" locale.
func asciiEqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if asciiLowerByte(a[i]) != asciiLowerByte(b[i]) {
			return false
		}
	}
	return true
}

func asciiLowerByte(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// asciiLower lowercases ASCII letters only (C tolower in the "C" locale).
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				b[j] = asciiLowerByte(b[j])
			}
			return string(b)
		}
	}
	return s
}

// trimSet is sdstrim: it removes bytes in cset from both ends of s.
func trimSet(s, cset string) string {
	return strings.Trim(s, cset)
}

// strerror renders an OS error like C strerror(errno) does ("No such file
// or directory"), falling back to the error text.
func strerror(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		msg := errno.Error()
		if msg != "" && msg[0] >= 'a' && msg[0] <= 'z' {
			msg = string(msg[0]-'a'+'A') + msg[1:]
		}
		return msg
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// formatFloatTrimmed is sprintf("%f") followed by Redis's trimDoubleString.
func formatFloatTrimmed(f float64) string {
	s := strconv.FormatFloat(f, 'f', 6, 64)
	if strings.IndexByte(s, '.') >= 0 {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	return s
}

// string2d is Redis's strict float parser (strtod without leading blanks,
// trailing garbage, nan or overflow).
func string2d(s string) (float64, bool) {
	if s == "" || isCSpace(s[0]) || strings.ContainsAny(s, "_") {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		// strtod accepts hexadecimal numbers without a binary exponent.
		if h := strings.TrimLeft(s, "+-"); len(h) > 2 && (h[:2] == "0x" || h[:2] == "0X") && !strings.ContainsAny(h, "pP") {
			f, err = strconv.ParseFloat(s+"p0", 64)
		}
	}
	if err != nil || math.IsNaN(f) {
		// ParseFloat reports ERANGE with ±Inf or 0, which Redis rejects.
		return 0, false
	}
	return f, true
}

// exists is a tiny helper used by the dir parameter.
func statDir(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return errors.New(strerror(err))
	}
	if !fi.IsDir() {
		return errors.New(strerror(syscall.ENOTDIR))
	}
	return nil
}
