package lualib

import lua "github.com/yuin/gopher-lua"

// CheckInt is C Lua 5.1's luaL_checkint: argument n must be a number or
// a string that reads as one (lua_tonumber), otherwise it raises
// "bad argument #n to 'f' (number expected, got T)". The number is cast
// to lua_Integer (64 bits, as on x86-64) and then to a C int, which keeps
// its low 32 bits. Redis's math.randomseed and math.random read their
// arguments this way, so math.randomseed(ARGV[1]) works.
func CheckInt(L *lua.LState, n int) int32 {
	return toCInt(checkInteger(L, n))
}
