// Package lualib implements, for gopher-lua, the four libraries that
// Redis 7 gives to Lua scripts: cjson (lua_cjson.c), cmsgpack
// (lua_cmsgpack.c), bit (LuaBitOp) and struct (lua_struct.c).
//
// The goal is byte-for-byte compatibility with Redis 7.0 (whose C sources
// these files port): the same results, the same corner cases (C casts of
// out-of-range numbers behave as on x86-64, glibc strtod and printf("%g")
// are reproduced) and the same error messages. Errors are raised the way
// luaL_error and luaL_argerror raise them in C Lua 5.1: a library error
// carries a "chunk:line: " prefix only when the library function was called
// directly from Lua code, and argument errors name the function as the
// calling instruction does ("bad argument #1 to 'encode' (...)", or '?'
// when called through pcall).
//
// C Lua limits the stack of one C function call to LUAI_MAXCSTACK (8000)
// slots, and several limits of these libraries (how many values
// cmsgpack.unpack may return, how deep cjson or cmsgpack data may nest
// when the depth limits are raised) come from that. The ports keep an
// account of the slots the C code would use and fail where it fails, with
// its "stack overflow (...)" messages.
//
// The libraries never let a Go panic escape: malformed input gives a Lua
// error.
package lualib

import (
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Open installs cjson, cmsgpack, bit and struct as global tables in L, as
// Redis does for every scripting state.
func Open(L *lua.LState) {
	OpenCJSON(L)
	OpenCMsgpack(L)
	OpenBit(L)
	OpenStruct(L)
}

// maxCStack is Lua 5.1's LUAI_MAXCSTACK: lua_checkstack fails when a C
// function would hold more than this many stack slots.
const maxCStack = 8000

// newLib builds a library table from funcs, sets it as the global name and
// returns it.
func newLib(L *lua.LState, name string, funcs map[string]lua.LGFunction) *lua.LTable {
	t := L.NewTable()
	for k, fn := range funcs {
		t.RawSetString(k, L.NewFunction(fn))
	}
	L.SetGlobal(name, t)
	return t
}

// ---------------------------------------------------------------------------
// Errors, as lauxlib raises them.

// where returns what luaL_where(L, 1) returns: "chunk:line: " when the
// function that called the running Go function is a Lua function with line
// information, "" otherwise (for example when called by pcall).
func where(L *lua.LState) string {
	dbg, ok := L.GetStack(1)
	if !ok {
		return ""
	}
	if _, err := L.GetInfo("Sl", dbg, lua.LNil); err != nil || dbg.CurrentLine <= 0 {
		return ""
	}
	return chunkID(dbg.Source) + ":" + strconv.Itoa(dbg.CurrentLine) + ": "
}

// chunkID shortens a chunk name as luaO_chunkid does for the names a host
// uses: "@file" and "=name" lose their prefix; other names (gopher-lua's
// usual style, for example "user_script") are kept.
func chunkID(source string) string {
	if strings.HasPrefix(source, "@") || strings.HasPrefix(source, "=") {
		return source[1:]
	}
	return source
}

// raise is luaL_error: it raises msg with the caller's position.
func raise(L *lua.LState, msg string) {
	L.Error(lua.LString(where(L)+msg), 0)
}

// raiseBare raises msg without position information, as luaG_runerror does
// for errors found while a C function runs ("table index is nil").
func raiseBare(L *lua.LState, msg string) {
	L.Error(lua.LString(msg), 0)
}

// funcName returns the name luaL_argerror gives the running function: the
// name the calling Lua instruction used, or "?" when the caller is not a
// Lua function.
func funcName(L *lua.LState) string {
	caller, ok := L.GetStack(1)
	if !ok {
		return "?"
	}
	if _, err := L.GetInfo("S", caller, lua.LNil); err != nil || caller.What == "G" {
		return "?"
	}
	cur, ok := L.GetStack(0)
	if !ok {
		return "?"
	}
	if _, err := L.GetInfo("n", cur, lua.LNil); err != nil {
		return "?"
	}
	switch name := cur.Name; {
	case name == "" || name == "?" || name == "(anonymous)" || name == "main chunk" || strings.HasPrefix(name, "<"):
		return "?"
	default:
		return name
	}
}

// argError is luaL_argerror.
func argError(L *lua.LState, narg int, extramsg string) {
	raise(L, "bad argument #"+strconv.Itoa(narg)+" to '"+funcName(L)+"' ("+extramsg+")")
}

// typeError is luaL_typerror.
func typeError(L *lua.LState, narg int, tname string) {
	argError(L, narg, tname+" expected, got "+typeName(L, narg))
}

// checkStack is luaL_checkstack for a C function currently holding used
// stack slots: it fails with "stack overflow (msg)" when used+extra would
// exceed LUAI_MAXCSTACK.
func checkStack(L *lua.LState, used, extra int, msg string) {
	if used+extra > maxCStack {
		raise(L, "stack overflow ("+msg+")")
	}
}

// typeName is luaL_typename: the type of argument n, "no value" when
// absent.
func typeName(L *lua.LState, n int) string {
	if n > L.GetTop() {
		return "no value"
	}
	return luaType(L.Get(n))
}

// luaType is lua_typename(lua_type(v)).
func luaType(v lua.LValue) string {
	return v.Type().String()
}

// ---------------------------------------------------------------------------
// Argument conversions, as the Lua 5.1 API does them.

// toNumber is lua_tonumber: numbers, and strings that read as numbers
// (luaO_str2d), convert.
func toNumber(v lua.LValue) (float64, bool) {
	switch x := v.(type) {
	case lua.LNumber:
		return float64(x), true
	case lua.LString:
		return lua.Str2Number(string(x))
	}
	return 0, false
}

// toLString is lua_tolstring: strings, and numbers formatted with "%.14g".
func toLString(v lua.LValue) (string, bool) {
	switch x := v.(type) {
	case lua.LString:
		return string(x), true
	case lua.LNumber:
		return lua.FormatNumber(float64(x)), true
	}
	return "", false
}

// checkNumber is luaL_checknumber.
func checkNumber(L *lua.LState, n int) float64 {
	f, ok := toNumber(L.Get(n))
	if !ok {
		typeError(L, n, "number")
	}
	return f
}

// checkInteger is luaL_checkinteger (lua_Integer is 64 bits).
func checkInteger(L *lua.LState, n int) int64 {
	return cInt64(checkNumber(L, n))
}

// optInteger is luaL_optinteger.
func optInteger(L *lua.LState, n int, def int64) int64 {
	if isNoneOrNil(L, n) {
		return def
	}
	return checkInteger(L, n)
}

// checkLString is luaL_checklstring.
func checkLString(L *lua.LState, n int) string {
	s, ok := toLString(L.Get(n))
	if !ok {
		typeError(L, n, "string")
	}
	return s
}

// isNoneOrNil is lua_isnoneornil.
func isNoneOrNil(L *lua.LState, n int) bool {
	return n > L.GetTop() || L.Get(n) == lua.LNil
}

// cString returns s up to its first NUL byte, as C code that takes a
// Lua string as a char* sees it.
func cString(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// ---------------------------------------------------------------------------
// C conversions of doubles, as compiled for x86-64 (cvttsd2si returns the
// "integer indefinite" value, the lowest integer, for NaN and values out
// of range).

// cInt64 is the C cast (int64_t)f.
func cInt64(f float64) int64 {
	if f >= -9223372036854775808.0 && f < 9223372036854775808.0 {
		return int64(f)
	}
	return math.MinInt64
}

// cInt32 is the C cast (int)f.
func cInt32(f float64) int32 {
	if f > -2147483649.0 && f < 2147483648.0 {
		return int32(f)
	}
	return math.MinInt32
}

// cUint64 is the C cast (uint64_t)f as GCC compiles it for x86-64: values
// below 2^63 (and NaN) go through the signed conversion, larger ones are
// reduced by 2^63 first, so values of 2^64 and more give 0.
func cUint64(f float64) uint64 {
	const two63 = 9223372036854775808.0
	if !(f >= two63) {
		return uint64(cInt64(f))
	}
	return uint64(cInt64(f-two63)) ^ (1 << 63)
}

// toCInt stores a lua_Integer in a C int, which keeps its low 32 bits.
func toCInt(n int64) int32 {
	return int32(n)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isAlnum(c byte) bool {
	return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

// hasPrefixFold reports whether s starts with the lower-case ASCII word
// prefix, ignoring case (strncasecmp).
func hasPrefixFold(s, prefix string) bool {
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
