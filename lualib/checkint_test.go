package lualib

import (
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// TestCheckInt: luaL_checkint takes numbers and strings that read as
// numbers (lua_tonumber), truncates toward zero to a 64-bit lua_Integer
// and keeps the low 32 bits, and raises luaL_typerror's message otherwise.
func TestCheckInt(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`return ci(10)`, "10"},
		{`return ci("10")`, "10"},
		{`return ci(" 0x0a ")`, "10"},
		{`return ci("1e1")`, "10"},
		{`return ci(-1.9)`, "-1"},
		{`return ci(1.9)`, "1"},
		{`return ci(4294967306)`, "10"},
		{`return ci(2^31)`, "-2147483648"},
		{`return ci(-2^31 - 1)`, "2147483647"},
		{`return ci("4294967306")`, "10"},
		{`return ci(2^63)`, "0"}, // (int)INT64_MIN
		{`return ci(0/0)`, "0"},
		{`return ci("x")`, "error: <string>:1: bad argument #1 to 'ci' (number expected, got string)"},
		{`return ci({})`, "error: <string>:1: bad argument #1 to 'ci' (number expected, got table)"},
		{`return ci()`, "error: <string>:1: bad argument #1 to 'ci' (number expected, got no value)"},
		{`return ci(nil)`, "error: <string>:1: bad argument #1 to 'ci' (number expected, got nil)"},
		{`return ci(true)`, "error: <string>:1: bad argument #1 to 'ci' (number expected, got boolean)"},
	} {
		L := lua.NewState()
		L.SetGlobal("ci", L.NewFunction(func(L *lua.LState) int {
			L.Push(lua.LNumber(CheckInt(L, 1)))
			return 1
		}))
		got := ""
		if err := L.DoString(c.src); err != nil {
			got = "error: " + strings.SplitN(err.Error(), "\n", 2)[0]
		} else {
			got = L.Get(-1).String()
		}
		L.Close()
		if got != c.want {
			t.Errorf("%s = %q, want %q", c.src, got, c.want)
		}
	}
}
