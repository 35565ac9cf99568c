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
