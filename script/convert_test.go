package script

import (
	"math"
	"strconv"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// replyInt parses what the server's writer writes for integers and
// lengths, at the int64 limits too, as strconv does.
func TestReplyInt(t *testing.T) {
	for _, n := range []int64{0, 1, -1, 7, 42, -42, 1000000000, 999999999999999999, -999999999999999999,
		1000000000000000000, -1000000000000000000, math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1} {
		if got := replyInt([]byte(strconv.FormatInt(n, 10))); got != n {
			t.Errorf("replyInt(%d) = %d", n, got)
		}
	}
}

// Integer and bulk replies become Lua numbers and strings that own their
// bytes: the reply buffer is reused for the next redis.call.
func TestReplyToLuaCopies(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	buf := []byte(":-9223372036854775808\r\n")
	v, rest := replyToLua(L, buf)
	if v != lua.LNumber(math.MinInt64) || len(rest) != 0 {
		t.Fatalf("integer: %#v, rest %q", v, rest)
	}
	buf = []byte("$5\r\nhello\r\n")
	v, rest = replyToLua(L, buf)
	copy(buf, "$5\r\nXXXXX\r\n")
	if v != lua.LString("hello") || len(rest) != 0 {
		t.Fatalf("bulk: %#v, rest %q", v, rest)
	}
}
