package server

import (
	"math"
	"strconv"
	"strings"

	"github.com/hotkv/hotkv/resp"
)

// parseInt parses a Redis integer argument (string2ll: no spaces, no '+',
// no leading zeros).
func parseInt(b []byte) (int64, bool) { return resp.ParseInt(b) }

// intArg parses args[i] as an integer or replies errNotInt.
func (c *Client) intArg(b []byte) (int64, bool) {
	n, ok := parseInt(b)
	if !ok {
		c.errorReply(errNotInt)
	}
	return n, ok
}

// parseFloat parses a Redis double argument as strtold does: decimal or
// exponent notation, "inf"/"-inf"/"+inf" in any case; no spaces, no NaN,
// no hex.
func parseFloat(b []byte) (float64, bool) {
	if len(b) == 0 || len(b) > 5000 {
		return 0, false
	}
	if isSpace(b[0]) || isSpace(b[len(b)-1]) {
		return 0, false
	}
	s := string(b)
	switch strings.ToLower(s) {
	case "inf", "+inf", "infinity", "+infinity":
		return math.Inf(1), true
	case "-inf", "-infinity":
		return math.Inf(-1), true
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+') {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return f, !math.IsInf(f, 0) // underflow is fine, overflow is not
		}
		return 0, false
	}
	return f, !math.IsNaN(f)
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// equalFold is strcasecmp(b, w) == 0 for ASCII (bytes above 127 compare
// exactly), without allocating.
func equalFold[T ~string | ~[]byte](b T, w string) bool {
	if len(b) != len(w) {
		return false
	}
	for i := 0; i < len(b); i++ {
		x, y := b[i], w[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// formatInt returns n in decimal.
func formatInt(n int64) []byte { return appendInt(nil, n) }

// appendInt appends n in decimal.
func appendInt(dst []byte, n int64) []byte { return strconv.AppendInt(dst, n, 10) }

// numkeysKeys returns the key finder of a command whose keys follow a
// numkeys argument at index numkeysIdx, preceded by a destination key at
// index dst when dst > 0 (ZUNIONSTORE). Like Redis's getkeys procedures it
// reads numkeys as atoi does and finds no keys when the count is out of
// range (the command then fails before touching any key). Without a
// destination a few consecutive positions come from a shared table,
// without allocating (EVALSHA runs it per call): callers only read them.
func numkeysKeys(numkeysIdx, dst int) func(args [][]byte) []int {
	return func(args [][]byte) []int {
		if numkeysIdx >= len(args) {
			return nil
		}
		n := cAtoi(args[numkeysIdx])
		if n < 1 || n > len(args)-numkeysIdx-1 {
			return nil
		}
		if first := numkeysIdx + 1; dst == 0 && first+n <= len(positions) {
			return positions[first : first+n : first+n]
		}
		keys := make([]int, 0, n+1)
		if dst > 0 {
			keys = append(keys, dst)
		}
		for i := 0; i < n; i++ {
			keys = append(keys, numkeysIdx+1+i)
		}
		return keys
	}
}

// positions is 0, 1, 2, ...: argument positions numkeysKeys hands out
// without allocating.
var positions = func() []int {
	p := make([]int, 64)
	for i := range p {
		p[i] = i
	}
	return p
}()

// cAtoi is C's atoi as glibc implements it: (int)strtol(s, NULL, 10),
// with leading white space, a sign, saturation at the long limits and
// truncation to 32 bits; it stops at the first non-digit (or NUL).
func cAtoi(b []byte) int {
	i := 0
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	var u uint64
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		if u <= 1<<63 {
			u = u*10 + uint64(b[i]-'0')
		}
	}
	var v int64
	switch {
	case neg && u >= 1<<63:
		v = math.MinInt64
	case neg:
		v = -int64(u)
	case u > math.MaxInt64:
		v = math.MaxInt64
	default:
		v = int64(u)
	}
	return int(int32(v))
}
