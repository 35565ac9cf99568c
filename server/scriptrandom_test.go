package server

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// scriptExprs are Lua expressions whose values cross the Lua-to-RESP
// conversion in every way: numbers (truncated to integers), strings,
// booleans, nil, nested tables with holes, status and error tables, and
// what the built-in libraries return.
var scriptExprs = []string{
	"3.7", "-2.5", "1e20", "-0.0", "2^53", "2^63", "10/3", "0/0", "math.huge", "-math.huge",
	"'str'", "''", "'a\\0b'", "true", "false", "nil", "{}", "{1,2,3}", "{1,nil,3}", "{nil,2}",
	"{1,{2,{3,'x'}},false}", "{a=1}", "{1,2,a=3}", "{err='boom'}", "{ok='fine'}", "{err=3}",
	"{ok={}}", "redis.status_reply('S')", "redis.error_reply('E')", "redis.error_reply('-X y')",
	"redis.call('SET', KEYS[1], '10')", "redis.call('GET', KEYS[1])", "redis.call('INCRBYFLOAT', KEYS[1], '1.5')",
	"redis.call('HSET', KEYS[2], 'f', '1', 'g', '2')", "redis.call('HGETALL', KEYS[2])",
	"redis.call('EXISTS', 'nokey')", "redis.call('GET', 'nokey')", "redis.pcall('NOSUCH')",
	"redis.pcall('GET')", "redis.pcall('INCR', KEYS[2])", "redis.call('PING')",
	"redis.call('ZADD', KEYS[3], '1.5', 'a', '2', 'b')", "redis.call('ZRANGE', KEYS[3], 0, -1, 'WITHSCORES')",
	"redis.call('ZSCORE', KEYS[3], 'a')", "redis.call('RPUSH', KEYS[4], 1, 2.5, 'x')",
	"redis.call('LRANGE', KEYS[4], 0, -1)", "redis.sha1hex('abc')", "tostring(1/3)", "tostring(1e15)",
	"tostring(123456789012)", "tonumber('0x10')", "tonumber(' 12 ')", "tonumber('1e2')",
	"tonumber('abc')", "string.format('%d %5.2f %s %q', 3.9, 2.345, 'x', 'a\\nb')",
	"string.rep('ab', 3)", "#'hello'", "math.floor(-3.5)", "math.fmod(7, 3)", "7 % -3",
	"cjson.encode({1,2,{a='b'}})", "cjson.encode({})", "cjson.decode('[1,2.5,null,\"x\"]')",
	"cjson.decode('{\"a\":[true,false]}')", "cmsgpack.pack({1,2,3})", "cmsgpack.unpack(cmsgpack.pack('a', 1.5, {x=1}))",
	"bit.band(0xff, 0x0f)", "bit.tohex(255)", "bit.lshift(1, 40)", "struct.pack('>i4', 7)",
	"struct.unpack('>i2', 'ab')", "select('#', 1, 2, 3)", "type(nil)", "unpack({1, 2})",
	"string.byte('A')", "string.char(72, 105)", "('x'):upper()", "table.concat({1, 'a', 2.5}, ',')",
	"redis.call('TYPE', KEYS[1])", "redis.call('TYPE', KEYS[1])['ok']", "redis.call('OBJECT', 'ENCODING', KEYS[1])",
	// errors that end the script
	"error('raised')", "error({err='table error'})", "error()", "redis.call('NOSUCH')",
	"redis.call('GET')", "redis.call('INCR', KEYS[2])", "nil + 1", "#nil", "({})()",
	"redis.call('SET', KEYS[1])", "redis.call(nil)", "redis.call('GET', {})", "string.rep()",
	"redis.setresp(3)", "redis.setresp(4)", "redis.log(redis.LOG_WARNING, 'w')", "redis.breakpoint()",
	"redis.set_repl(redis.REPL_ALL)", "redis.replicate_commands()", "redis.REDIS_VERSION",
	"redis.REDIS_VERSION_NUM", "loadstring", "getmetatable('')", "rawget(_G, 'x')",
	// RESP3 replies inside the script, and back out (then RESP2 again, as
	// maps would come out in Lua's table order, docs/compatibility.md)
	"(function() redis.setresp(3) local r = redis.call('ZSCORE', KEYS[3], 'a') redis.setresp(2) return r end)()",
	"(function() redis.setresp(3) local r = redis.call('SMEMBERS', 'nokey') redis.setresp(2) return r end)()",
	"(function() redis.setresp(3) local r = redis.call('ZRANGE', KEYS[3], 0, -1, 'WITHSCORES') redis.setresp(2) return r end)()",
	"(function() redis.setresp(3) local r = redis.call('GET', 'nokey') redis.setresp(2) return r end)()",
	"(function() redis.setresp(3) local r = redis.call('HGETALL', KEYS[2]) redis.setresp(2) return r.map and 'map' end)()",
	"(function() redis.setresp(3) local r = redis.call('ZSCORE', KEYS[3], 'a') redis.setresp(2) return type(r) == 'table' and r.double end)()",
	"{map={a=1}}", "{set={x=true}}", "{double=1.5}", "{double='x'}", "{big_number='123'}",
}

// TestScriptRandomDifferential runs random scripts returning random
// combinations of scriptExprs on Redis and HotKV and compares replies, in
// RESP2 and RESP3.
func TestScriptRandomDifferential(t *testing.T) {
	for _, proto := range []string{"2", "3"} {
		t.Run("RESP"+proto, func(t *testing.T) {
			p, _, _, _ := bhvPair(t)
			p.Redis.Do("HELLO", proto)
			p.HotKV.Do("HELLO", proto)
			r := rand.New(rand.NewPCG(11, 13))
			pick := func() string { return scriptExprs[r.IntN(len(scriptExprs))] }
			for i := 0; i < 400; i++ {
				var body string
				switch r.IntN(3) {
				case 0:
					body = "return " + pick()
				case 1:
					body = "return {" + pick() + ", " + pick() + ", " + pick() + "}"
				default:
					body = "local t = {" + pick() + "} t[#t + 1] = " + pick() + " return t"
				}
				args := []string{"EVAL", body, "4", "{s}a", "{s}b", "{s}c", "{s}d"}
				want, got := p.Redis.Do(args...), p.HotKV.Do(args...)
				if want != got && !sameScriptError(want, got) {
					t.Errorf("%s\n redis: %.300q\n hotkv: %.300q", body, want, got)
				}
			}
		})
	}
}

// sameScriptError accepts two errors that differ only in the script's
// SHA and line text, which name the same place.
func sameScriptError(a, b string) bool {
	return strings.HasPrefix(a, "-") && a == b
}
