package script

import (
	"bytes"
	"math"
	"strconv"
	"strings"

	"github.com/hotkv/hotkv/resp"
	lua "github.com/yuin/gopher-lua"
)

// Conversions between RESP replies and Lua values, as Redis 7.0's
// script_lua.c does them.

// replyToLua converts one complete RESP reply (as the server wrote it for
// a redis.call) to a Lua value and returns the bytes after it. Replies come
// from the server's own writer, so the input is well-formed.
//
//	integer -> number          bulk -> string      null bulk/array -> false
//	status -> {ok=s}           error -> {err=s}     array -> table
//	RESP3: null -> nil, bool -> boolean, double -> {double=n},
//	map -> {map={k=v}}, set -> {set={m=true}}, big number -> {big_number=s},
//	verbatim -> {verbatim_string={format=f, string=s}}; attributes dropped.
func replyToLua(L *lua.LState, b []byte) (lua.LValue, []byte) {
	line, rest := cutLine(b[1:])
	switch b[0] {
	case ':':
		// Boxed in L's number blocks: INCR's reply allocates nothing.
		return L.NumberValue(lua.LNumber(replyInt(line))), rest
	case '$':
		n := int(replyInt(line))
		if n < 0 {
			return lua.LFalse, rest
		}
		return L.BytesValue(rest[:n]), rest[n+2:]
	case '+':
		t := L.NewTable()
		t.RawSetString("ok", lua.LString(line))
		return t, rest
	case '-':
		t := errorTable(L, "-"+string(line))
		// Already counted in the error statistics when the command failed.
		t.RawSetString("ignore_error_stats_update", lua.LTrue)
		return t, rest
	case '*', '~', '%':
		n, _ := strconv.Atoi(string(line))
		if n < 0 {
			return lua.LFalse, rest
		}
		switch b[0] {
		case '*':
			t := L.CreateTable(n, 0)
			for i := 1; i <= n; i++ {
				var v lua.LValue
				v, rest = replyToLua(L, rest)
				t.RawSetInt(i, v)
			}
			return t, rest
		case '~':
			set := L.CreateTable(0, n)
			for i := 0; i < n; i++ {
				var v lua.LValue
				v, rest = replyToLua(L, rest)
				set.RawSet(v, lua.LTrue)
			}
			t := L.NewTable()
			t.RawSetString("set", set)
			return t, rest
		default:
			m := L.CreateTable(0, n)
			for i := 0; i < n; i++ {
				var k, v lua.LValue
				k, rest = replyToLua(L, rest)
				v, rest = replyToLua(L, rest)
				m.RawSet(k, v)
			}
			t := L.NewTable()
			t.RawSetString("map", m)
			return t, rest
		}
	case '_':
		return lua.LNil, rest
	case '#':
		return lua.LBool(len(line) > 0 && line[0] == 't'), rest
	case ',':
		t := L.NewTable()
		t.RawSetString("double", lua.LNumber(parseDouble(string(line))))
		return t, rest
	case '(':
		t := L.NewTable()
		t.RawSetString("big_number", lua.LString(line))
		return t, rest
	case '=':
		n, _ := strconv.Atoi(string(line))
		body := rest[:n]
		rest = rest[n+2:]
		v := L.NewTable()
		v.RawSetString("string", lua.LString(body[4:]))
		v.RawSetString("format", lua.LString(body[:3]))
		t := L.NewTable()
		t.RawSetString("verbatim_string", v)
		return t, rest
	case '|':
		n, _ := strconv.Atoi(string(line))
		for i := 0; i < 2*n; i++ {
			_, rest = replyToLua(L, rest)
		}
		return replyToLua(L, rest)
	}
	return lua.LNil, rest
}

func cutLine(b []byte) (line, rest []byte) {
	i := bytes.IndexByte(b, '\r')
	if i < 0 || i+1 >= len(b) || b[i+1] != '\n' {
		i = bytes.Index(b, []byte("\r\n")) // a lone CR in a status line
	}
	return b[:i], b[i+2:]
}

// replyInt parses the decimal integer of an integer reply or a length
// line, as the server's writer wrote it ("-1" included), without the
// string conversion strconv needs.
func replyInt(b []byte) int64 {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) > 18 { // near the int64 limits: the careful parse
		n, _ := strconv.ParseInt(string(b), 10, 64)
		if neg {
			if n == math.MaxInt64 && string(b) == "9223372036854775808" {
				return math.MinInt64
			}
			return -n
		}
		return n
	}
	var n int64
	for _, c := range b {
		n = n*10 + int64(c-'0')
	}
	if neg {
		return -n
	}
	return n
}

func parseDouble(s string) float64 {
	switch s {
	case "inf":
		return math.Inf(1)
	case "-inf":
		return math.Inf(-1)
	}
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// errorTable builds the error table redis.pcall returns and redis.call
// raises: {err="CODE message"}. msg is either "-CODE message" (a Redis
// error reply: the code is its first word, "ERR" when it has a single
// word) or a bare message, which gets the code ERR. A trailing CR/LF is
// trimmed.
func errorTable(L *lua.LState, msg string) *lua.LTable {
	code := "ERR"
	if rest, ok := strings.CutPrefix(msg, "-"); ok {
		if c, m, found := strings.Cut(rest, " "); found {
			code, msg = c, m
		} else {
			msg = rest
		}
	}
	msg = strings.Trim(msg, "\r\n")
	t := L.NewTable()
	t.RawSetString("err", lua.LString(code+" "+msg))
	return t
}

// luaToReply writes v as a RESP reply for the script's caller, as
// luaReplyToRedisReply does. proto is the script's RESP version (set by
// redis.setresp): it decides how booleans convert.
func luaToReply(L *lua.LState, w *resp.Writer, v lua.LValue, proto int, depth int, run *Run) {
	if depth > maxReplyDepth {
		w.Error("ERR reached lua stack limit")
		run.error("ERR reached lua stack limit", false)
		return
	}
	switch v := v.(type) {
	case lua.LString:
		w.BulkString(string(v))
	case lua.LBool:
		switch {
		case proto == 2 && bool(v):
			w.Int(1)
		case proto == 2:
			w.Null()
		default:
			w.Bool(bool(v))
		}
	case lua.LNumber:
		w.Int(luaToInt(float64(v)))
	case *lua.LTable:
		tableToReply(L, w, v, proto, depth, run)
	default:
		w.Null()
	}
}

// maxReplyDepth bounds the nesting of a returned table (C Lua's stack
// limit answers "reached lua stack limit" for self-referencing tables).
const maxReplyDepth = 1000

// luaToInt is C's (long long) cast of a lua_Number: truncation toward
// zero; out-of-range values and NaN give LLONG_MIN as on x86-64.
func luaToInt(f float64) int64 {
	if f != f || f >= 9223372036854775808.0 || f < -9223372036854775808.0 {
		return math.MinInt64
	}
	return int64(f)
}

func tableToReply(L *lua.LState, w *resp.Writer, t *lua.LTable, proto int, depth int, run *Run) {
	if e, ok := t.RawGetString("err").(lua.LString); ok {
		w.Error(string(e))
		run.error(string(e), t.RawGetString("ignore_error_stats_update") == lua.LTrue)
		return
	}
	if ok, isStr := t.RawGetString("ok").(lua.LString); isStr {
		w.Simple(strings.NewReplacer("\r", " ", "\n", " ").Replace(string(ok)))
		return
	}
	if d, ok := t.RawGetString("double").(lua.LNumber); ok {
		w.Double(float64(d))
		return
	}
	if n, ok := t.RawGetString("big_number").(lua.LString); ok {
		w.BigNumber(strings.NewReplacer("\r", " ", "\n", " ").Replace(string(n)))
		return
	}
	if vs, ok := t.RawGetString("verbatim_string").(*lua.LTable); ok {
		f, fok := vs.RawGetString("format").(lua.LString)
		s, sok := vs.RawGetString("string").(lua.LString)
		if fok && sok {
			w.Verbatim(string(f), string(s))
			return
		}
	}
	if m, ok := t.RawGetString("map").(*lua.LTable); ok {
		n := 0
		m.ForEach(func(lua.LValue, lua.LValue) { n++ })
		w.Map(n)
		m.ForEach(func(k, v lua.LValue) {
			luaToReply(L, w, k, proto, depth+1, run)
			luaToReply(L, w, v, proto, depth+1, run)
		})
		return
	}
	if s, ok := t.RawGetString("set").(*lua.LTable); ok {
		n := 0
		s.ForEach(func(lua.LValue, lua.LValue) { n++ })
		w.Set(n)
		s.ForEach(func(k, _ lua.LValue) { luaToReply(L, w, k, proto, depth+1, run) })
		return
	}
	n := 0
	for t.RawGetInt(n+1) != lua.LNil {
		n++
	}
	w.Array(n)
	for i := 1; i <= n; i++ {
		luaToReply(L, w, t.RawGetInt(i), proto, depth+1, run)
	}
}
