package server

import (
	"strings"
	"testing"
)

// evalCases are scripts run with EVAL against both servers; each entry is
// the script, then numkeys, keys and arguments.
var evalCases = [][]string{
	// Sandbox: read-only globals, nonexistent globals, removed functions.
	{"x = 5 return x", "0"},
	{"return x", "0"},
	{"local function f() y = 1 end f() return 1", "0"},
	{"string.x = 1", "0"},
	{"return rawset(_G, 'x', 1)", "0"},
	{"setmetatable(_G, nil)", "0"},
	{"table.insert(KEYS, 1)", "0"},
	{"local t = {} table.insert(t, 1) return t", "0"},
	{"return loadstring('return 1')()", "0"},
	{"return os", "0"}, {"return io", "0"}, {"return print", "0"}, {"return dofile", "0"},
	{"return loadfile", "0"}, {"return getfenv", "0"}, {"return require", "0"}, {"return debug", "0"},
	{"local t={} for k,v in pairs(_G) do t[#t+1]=k end table.sort(t) return t", "0"},
	{"local t={} for k,v in pairs(redis) do t[#t+1]=k end table.sort(t) return t", "0"},
	{"return {type(redis.breakpoint), type(redis.debug), redis.replicate_commands()}", "0"},
	{"return redis.REDIS_VERSION_NUM > 0 and redis.REDIS_VERSION ~= ''", "0"},
	// Errors and their positions.
	{"error('boom')", "0"},
	{"\n\nerror('line three')", "0"},
	{"error({err='custom table'})", "0"},
	{"error()", "0"},
	{"return nil + 1", "0"},
	{"return 1 +", "0"},
	{"local a = ", "0"},
	// redis.call and redis.pcall.
	{"return redis.call('set', KEYS[1], ARGV[1])", "1", "k", "v"},
	{"return redis.call('get', KEYS[1])", "1", "k"},
	{"return redis.call('incr', KEYS[1])", "1", "k"},
	{"return redis.pcall('incr', KEYS[1])", "1", "k"},
	{"return redis.pcall('incr', KEYS[1])['err']", "1", "k"},
	{"return pcall(redis.call, 'incr', KEYS[1])", "1", "k"},
	{"return {pcall(redis.call, 'incr', KEYS[1])}", "1", "k"},
	{"return redis.call('nosuch', 's')", "0"},
	{"return redis.pcall('nosuch', 's')", "0"},
	{"return redis.call()", "0"},
	{"return redis.pcall()", "0"},
	{"return redis.call('get')", "0"},
	{"return redis.call('get', {})", "0"},
	{"return redis.call('eval', 'return 1', 0)", "0"},
	{"return redis.call('multi')", "0"},
	{"return redis.call('set', 'n', 1.5)", "0"},
	{"return redis.call('set', 'n', 10000000000000001)", "0"},
	{"redis.call('set', 'n', 1/3) return redis.call('get', 'n')", "0"},
	{"return redis.call('ping')", "0"},
	{"return redis.call('ping')['ok']", "0"},
	{"return redis.call('lpush', 'l', 1, 2, 3)", "0"},
	{"return redis.call('lrange', 'l', 0, -1)", "0"},
	{"return redis.call('blpop', 'nolist', 0)", "0"},
	{"return redis.call('brpoplpush', 'nolist', 'other', 0)", "0"},
	{"return redis.call('hgetall', 'nosuch')", "0"},
	{"return redis.call('get', 'nosuch')", "0"},
	{"return tostring(redis.call('get', 'nosuch'))", "0"},
	{"return redis.call('select', 5)", "0"},
	{"return redis.call('exists', 'l')", "0"},
	{"redis.call('select', 3) redis.call('set', 'in3', 'x') return redis.call('dbsize')", "0"},
	// Conversions Lua -> RESP.
	{"return {1,2,3,'x',{4,5}, nil, 7}", "0"},
	{"return {1.9, -1.9, true, false}", "0"},
	{"return true", "0"}, {"return false", "0"}, {"return nil", "0"}, {"return 3.99", "0"},
	{"return 2^63", "0"}, {"return -2^63", "0"}, {"return 0/0", "0"},
	{"return {1, {2, {3}}}", "0"},
	{"return {ok='a\\r\\nb'}", "0"},
	{"return {err='x\\r\\ny'}", "0"},
	{"return {ok='a\r\nb'}", "0"},
	{"return 'abc", "0"},
	{"return {KEYS[1], ARGV[1], #KEYS, #ARGV}", "2", "a", "b", "c", "d"},
	{"return redis.status_reply('PONG')", "0"},
	{"return redis.status_reply(1)", "0"},
	{"return redis.error_reply('x')", "0"},
	{"return redis.error_reply('My error')", "0"},
	{"return redis.error_reply('-My error')", "0"},
	{"return {err='boom'}", "0"},
	{"return redis.sha1hex('')", "0"},
	{"return redis.sha1hex()", "0"},
	{"return function() end", "0"},
	// RESP3 from scripts.
	{"redis.setresp(3) return redis.call('hgetall', 'nosuch')", "0"},
	{"redis.setresp(3) return {double=1.5}", "0"},
	{"redis.setresp(3) return {map={a=1}}", "0"},
	{"redis.setresp(3) return {set={a=true}}", "0"},
	{"redis.setresp(3) return true", "0"},
	{"redis.setresp(3) return false", "0"},
	{"redis.setresp(3) return {big_number='123456789012345678901234567890'}", "0"},
	{"redis.setresp(3) local r = redis.call('hset', 'h', 'f', 'v') return redis.call('hgetall', 'h')['map']['f']", "0"},
	{"redis.setresp(3) return type(redis.call('get', 'nosuch'))", "0"},
	{"redis.setresp(3) return redis.call('zadd', 'z', 1.5, 'm')", "0"},
	{"redis.setresp(3) return redis.call('zscore', 'z', 'm')['double']", "0"},
	{"redis.setresp(3) return redis.call('smembers', 'nosuchset')['set']", "0"},
	{"redis.setresp(4)", "0"},
	{"redis.setresp()", "0"},
	// Numbers and strings as C Lua formats them.
	{"return tostring(1/3) .. ' ' .. 2^53 .. ' ' .. math.huge .. ' ' .. -math.huge", "0"},
	{"return 'a' .. 1e15 .. ' ' .. 1e14 .. ' ' .. 123456789012345", "0"},
	{"return tostring(-0.0) .. tostring(0.1) .. tostring(1e100)", "0"},
	{"return string.format('%d %s %5.2f %x', 3, 'x', 1.5, 255)", "0"},
	{"return string.format('%g %g %g %g %G', 1/3, 1e20, 100000, 1e-5, 1e300)", "0"},
	{"return string.format('%d %i %u %x %X %o', -3.9, 7.5, -1, -1, 255, 8)", "0"},
	{"return string.format('%5d|%-5d|%05d|%+d|% d', 42, 42, 42, 42, 42)", "0"},
	{"return string.format('%e %.3e %10.2f %-10.2f| %.0f %#x %#o', 12345.678, 0.5, 3.14159, 2.5, 2.5, 255, 8)", "0"},
	{"return string.format('%f %f %f %e %g', 1/0, -1/0, 0/0, 1/0, -1/0)", "0"},
	{"return string.format('%5.1s|%.2s|%10s|%-10s|', 'abc', 'abc', 'abc', 'abc')", "0"},
	{"return string.format('%q', 'a\\nb\\0c\\\\d\"e\\r')", "0"},
	{"return string.format('%c%c%c', 72, 105, 33)", "0"},
	{"return string.format('%s %s %s', 1, 1.5, 2^53)", "0"},
	{"return string.format('%%d %s', 'x')", "0"},
	{"return string.format('%0999d', 1)", "0"},
	{"return string.format('%y', 1)", "0"},
	{"return string.format('%d')", "0"},
	{"return string.format('%d', 'x')", "0"},
	{"return string.format('%------5d', 1)", "0"},
	{"return string.format('%s', string.rep('x', 150))", "0"},
	{"return tonumber('0x10') + tonumber('  12  ')", "0"},
	{"return #string.rep('x', 2^40) + #string.rep('x', 2^31) + #string.rep('ab', 3)", "0"},
	// math.random is Redis's generator.
	{"math.randomseed(5) return {math.random(100), math.random(1,10), math.random(1000000)}", "0"},
	{"return math.random(0)", "0"},
	// redis.log and set_repl argument checks.
	{"return redis.log(redis.LOG_WARNING, 'hi')", "0"},
	{"return redis.log(1)", "0"},
	{"return redis.log(9, 'x')", "0"},
	{"return redis.log('a', 'x')", "0"},
	{"return redis.set_repl()", "0"},
	{"return redis.set_repl(9)", "0"},
	{"return redis.set_repl(redis.REPL_ALL)", "0"},
	{"return redis.acl_check_cmd('get', 'x')", "0"},
	{"return redis.acl_check_cmd('nosuch')", "0"},
	// Libraries.
	{"return cjson.encode({1,2,{a=1}})", "0"},
	{"return cjson.decode('[1,2,3]')", "0"},
	{"return cmsgpack.unpack(cmsgpack.pack({1,2,3}))", "0"},
	{"return bit.band(0xff, 0x0f)", "0"},
	{"return struct.pack('>I2', 258)", "0"},
	// The standard library as Redis's Lua 5.1 has it.
	{"return {string.find('hello world', 'o w')}", "0"},
	{"return {string.find('hello', 'l+')}", "0"},
	{"return {string.match('key:123:x', '(%a+):(%d+)')}", "0"},
	{"local t = {} for w in string.gmatch('a,b,,c', '([^,]*)') do t[#t+1] = w end return t", "0"},
	{"return {string.gsub('hello world', 'o', '0')}", "0"},
	{"return {string.gsub('abc', '%w', '%0%0')}", "0"},
	{"return string.byte('ABC', 1, 3)", "0"},
	{"return {string.byte('ABC', 1, 3)}", "0"},
	{"return string.char(72, 105)", "0"},
	{"return string.sub('hello', -3)", "0"},
	{"return string.sub('hello', 2, 100)", "0"},
	{"return string.upper('abc') .. string.lower('DEF') .. string.len('xyz')", "0"},
	{"return string.reverse('abc')", "0"},
	{"local t = {3,1,2} table.sort(t) return t", "0"},
	{"local t = {3,1,2} table.sort(t, function(a,b) return a > b end) return t", "0"},
	{"return table.concat({1,2,3}, '-')", "0"},
	{"return table.concat({1,2,3}, '-', 2, 3)", "0"},
	{"return table.concat({1,{},3})", "0"},
	{"return {unpack({1,2,3})}", "0"},
	{"return select('#', 1, nil, 3)", "0"},
	{"return {select(2, 'a', 'b', 'c')}", "0"},
	{"return tostring(nil) .. tostring(true) .. tostring(12)", "0"},
	{"return type(tostring({})) .. tostring({}):sub(1,7)", "0"},
	{"return math.floor(3.7) + math.ceil(3.2) + math.abs(-2) + math.max(1,5,3) + math.min(4,2)", "0"},
	{"return math.fmod(7, 3) .. ' ' .. math.sqrt(16) .. ' ' .. math.pow(2, 10) .. ' ' .. 7 % 3 .. ' ' .. -7 % 3", "0"},
	{"return tostring(math.pi)", "0"},
	{"return tostring(math.log(100)) .. ' ' .. tostring(math.log10(100)) .. ' ' .. tostring(math.exp(1))", "0"},
	{"return {math.modf(3.7)}", "0"},
	{"return tostring(1e308 * 10) .. ' ' .. tostring(-(0/0))", "0"},
	{"return tonumber('10', 2) + tonumber('ff', 16) + tonumber('z', 36)", "0"},
	{"return tonumber('abc') == nil", "0"},
	{"return tonumber('1e2')", "0"},
	{"return tonumber(' 0x1p4 ')", "0"},
	{"return #'abc' + #{1,2,3}", "0"},
	{"local a, b = pcall(error, 'x') return {tostring(a), b}", "0"},
	{"local ok, e = pcall(function() error({code=1}) end) return type(e)", "0"},
	{"return xpcall(function() error('boom') end, function(e) return 'handled: ' .. e end)", "0"},
	{"return {xpcall(function() error('boom') end, function(e) return 'handled: ' .. e end)}", "0"},
	{"local co = coroutine.create(function(a) local b = coroutine.yield(a + 1) return b * 2 end) local _, x = coroutine.resume(co, 1) local _, y = coroutine.resume(co, 10) return {x, y, coroutine.status(co)}", "0"},
	{"return string.format('%s', {}) ~= nil", "0"},
	{"return ('x'):rep(3)", "0"},
	{"local s = 0 for i = 1, 10, 3 do s = s + i end return s", "0"},
	{"local t = setmetatable({}, {__index = function(t, k) return k .. '!' end}) return t.foo", "0"},
	{"return next({})", "0"},
	{"local t = {a=1} return next(t)", "0"},
	{"return rawequal('a', 'a')", "0"},
	{"return rawlen", "0"},
	{"return #arg", "0"},
	{"return loadstring('return 1 +')", "0"},
	{"return {loadstring('return 1 +')}", "0"},
	{"return assert(false, 'assert msg')", "0"},
	{"return assert(nil)", "0"},
	{"return string.rep('ab', 3, ',')", "0"},
	{"return math.random(1, 0)", "0"},
	{"return string.find('a.b', '.', 1, true)", "0"},
	{"return {string.find('abc', 'b', -1)}", "0"},
	{"return string.format('%5.2s|', 'abc')", "0"},
	{"return tostring(2^63) .. ' ' .. tostring(-2^63) .. ' ' .. 2^31", "0"},
	{"return 10 / 3", "0"},
	{"return {10 / 3}", "0"},
	{"return 7 // 2", "0"},
	{"return gcinfo() >= 0", "0"},
	{"return collectgarbage('count') > 0", "0"},
	{"return collectgarbage()", "0"},
	{"return _VERSION", "0"},
	{"return tostring(print)", "0"},
	{"return getmetatable('').__index == string", "0"},
	{"return #KEYS", "2", "a", "b"},
	{"KEYS[1] = 'z' return KEYS[1]", "1", "a"},
	{"return table.getn({1,2})", "0"},
	{"return table.maxn({1,2,nil,4})", "0"},
	{"return table.insert({}, 1, 2, 3)", "0"},
	{"return {table.remove({1,2,3})}", "0"},
	{"return bit.tohex(255) .. bit.band(12, 10)", "0"},
	{"return cjson.encode({a={1,2,{b=cjson.null}}})", "0"},
	{"return cjson.decode('{\"a\":[1,2]}').a[2]", "0"},
	{"return {pcall(string.rep)}", "0"},
	{"return {pcall(string.sub)}", "0"},
	{"return {pcall(select, 0, 'a')}", "0"},
	{"return {string.gsub('hello world from lua', '(%w+)', '<%1>')}", "0"},
	{"return {tonumber('  10  '), tonumber('10a'), tonumber(''), tonumber('0x'), tonumber('1e'), tonumber('.5'), tonumber('5.')}", "0"},
	{"return tostring(tonumber('inf')) .. tostring(tonumber('-inf')) .. tostring(tonumber('nan'))", "0"},
	{"return {redis.call('ECHO', 1e15), redis.call('ECHO', 0.1), redis.call('ECHO', 1/3), redis.call('ECHO', 2^53 + 1)}", "0"},
	// numkeys.
	{"return 1", "x"},
	{"return 1", "2", "a"},
	{"return 1", "-1"},
}

// TestScriptEvalDifferential runs every evalCases script on both servers.
func TestScriptEvalDifferential(t *testing.T) {
	p := newPair(t)
	p.Do("SCRIPT FLUSH")
	for _, c := range evalCases {
		p.DoArgs(append([]string{"EVAL"}, c...)...)
	}
	// The same scripts by SHA, and EVAL_RO.
	for _, c := range evalCases[:20] {
		sha := p.DoArgs("SCRIPT", "LOAD", c[0])
		if strings.HasPrefix(sha, "$40") {
			p.DoArgs(append([]string{"EVALSHA", sha[5:45]}, c[1:]...)...)
			p.DoArgs(append([]string{"EVALSHA_RO", strings.ToUpper(sha[5:45])}, c[1:]...)...)
		}
	}
	p.Run(`
		EVALSHA abc 0
		EVALSHA 0000000000000000000000000000000000000000 0
		SCRIPT EXISTS e0e1f9fabfc9d4800c877a703b823ac0578ff8db abc
		SCRIPT LOAD "return 1"
		SCRIPT EXISTS e0e1f9fabfc9d4800c877a703b823ac0578ff8db abc
		SCRIPT FLUSH bad
		SCRIPT FLUSH ASYNC
		SCRIPT EXISTS e0e1f9fabfc9d4800c877a703b823ac0578ff8db
		SCRIPT FLUSH SYNC
		SCRIPT KILL
		SCRIPT HELP
		SCRIPT NOSUCH
		EVAL_RO "return redis.call('set','a','b')" 0
		EVAL_RO "return redis.call('get','a')" 0
		FUNCTION KILL
	`)
	// RESP3 caller: the script's RESP2 replies convert for it.
	p.Redis.Do("HELLO", "3")
	p.HotKV.Do("HELLO", "3")
	for _, c := range evalCases[50:80] {
		p.DoArgs(append([]string{"EVAL"}, c...)...)
	}
}

// TestScriptShebang: Redis's shebang flags, their checks and errors.
func TestScriptShebang(t *testing.T) {
	p := newPair(t)
	for _, c := range [][]string{
		{"#!lua flags=foo\nreturn 1", "0"},
		{"#!python\nreturn 1", "0"},
		{"#!lua xx=1\nreturn 1", "0"},
		{"#!lua\nreturn 1"},
		{"#!lua", "0"},
		{"#!lua flags=\nreturn 1", "0"},
		{"#!lua name=x\nreturn 1", "0"},
		{"#!lua\nreturn redis.call('set','a','b')", "0"},
		{"#!lua flags=no-writes\nreturn redis.call('set','a','b')", "0"},
		{"#!lua flags=no-writes\nreturn redis.call('get','a')", "0"},
		{"#!lua flags=no-writes,allow-oom,allow-stale,no-cluster\nreturn 1", "0"},
		{"#!lua flags=allow-cross-slot-keys\nreturn 1", "0"},
		{"#!lua \"flags=no-writes\"\nreturn 1", "0"},
		{"#!lua\nerror('line two')", "0"},
		{"#!lua\n\nreturn x", "0"},
	} {
		p.DoArgs(append([]string{"EVAL"}, c...)...)
		if len(c) > 1 {
			p.DoArgs(append([]string{"EVAL_RO"}, c...)...)
		}
	}
}

// TestFunctionDifferential: FUNCTION and FCALL against Redis.
func TestFunctionDifferential(t *testing.T) {
	p := newPair(t)
	p.Do("FUNCTION FLUSH")
	lib := "#!lua name=mylib\nlocal function f(keys, args) return {keys, args} end\nredis.register_function{function_name='f2', callback=f, flags={'no-writes', 'allow-oom'}, description='desc'}"
	for _, code := range []string{
		lib,
		lib, // exists
		"#!lua name=other\nredis.register_function('f2', function() return 1 end)", // function exists
		"#!lua\nreturn 1",
		"return 1",
		"#!lua name=y\nreturn 1",
		"#!lua name=y\nredis.call('ping')",
		"#!lua name=y\nredis.register_function('a b', function() end)",
		"#!lua name=y x=1\n",
		"#!lua name=x name=y\n",
		"#!python name=x\n",
		"#!lua name=a-b\nredis.register_function('f', function() end)",
		"#!lua name=y\nredis.register_function('g', function() end, 1)",
		"#!lua name=y\nredis.register_function{function_name='g', callback=function() end, flags={'bad'}}",
		"#!lua name=y\nredis.register_function{function_name='g', callback=function() end, foo=1}",
		"#!lua name=y\nredis.register_function{function_name='g', callback=1}",
		"#!lua name=y\nredis.register_function{callback=function() end}",
		"#!lua name=y\nredis.register_function{function_name='g', callback=function() end, flags='no-writes'}",
		"#!lua name=y\nredis.register_function{function_name='g', callback=function() end, description=1}",
		"#!lua name=y\nredis.register_function('g')",
		"#!lua name=y\nredis.register_function('g', function() end)\nredis.register_function('g', function() end)",
		"#!lua name=y\nx = 1",
		"#!lua name=y\nlocal a = 1 +",
		"#!lua name=y\nerror('boom')",
		"#!lua name=y\nlocal t = {} for k in pairs(_G) do end",
		"#!lua name=y\nredis.register_function('g', function() return redis.setresp end)",
	} {
		p.DoArgs("FUNCTION", "LOAD", code)
	}
	p.Run(`
		FUNCTION LOAD replace2 x
		FUNCTION LOAD replace
		FUNCTION LIST libraryname
		FUNCTION LIST bad
		FUNCTION LIST WITHCODE LIBRARYNAME mylib
		FUNCTION LIST LIBRARYNAME MYL*
		FUNCTION LIST LIBRARYNAME nomatch
		FCALL f2 2 a b c
		FCALL_RO f2 1 a b
		FCALL f2 x
		FCALL f2 3 a
		FCALL f2 -1
		FCALL nosuch 0
		FCALL nosuch x
		FCALL g 0
		FUNCTION DELETE nosuch
		FUNCTION DELETE y
		FUNCTION FLUSH bad
		FUNCTION RESTORE bad flush2
		FUNCTION RESTORE bad
		FUNCTION STATS
		FUNCTION HELP
		FUNCTION KILL
	`)
	errs := "#!lua name=q\n" +
		"redis.register_function('q', function(keys, args) return redis.call('nosuch') end)\n" +
		"redis.register_function('q2', function(keys, args) error('boom') end)\n" +
		"redis.register_function('q3', function(keys, args) return redis.call('set', 'x', 'y') end)\n" +
		"redis.register_function{function_name='q4', callback=function(keys, args) return redis.call('set', 'x', 'y') end, flags={'no-writes'}}\n" +
		"redis.register_function('q5', function(keys, args) return KEYS end)\n" +
		"redis.register_function('q6', function(keys, args) x = 1 end)\n" +
		"redis.register_function('q7', function(keys, args) return redis.register_function end)\n" +
		"redis.register_function('q8', function(keys, args) local t = {} for k in pairs(_G) do t[#t+1] = k end table.sort(t) return t end)\n" +
		"redis.register_function('q9', function(keys, args) local t = {} for k in pairs(redis) do t[#t+1] = k end table.sort(t) return t end)"
	p.DoArgs("FUNCTION", "LOAD", errs)
	p.Run(`
		FCALL q 0
		FCALL q2 0
		FCALL_RO q3 0
		FCALL q3 0
		FCALL q4 0
		FCALL q5 0
		FCALL q6 0
		FCALL q7 0
		FCALL q8 0
		FCALL q9 0
		EVAL "return redis.call('fcall', 'q3', 0)" 0
		FUNCTION DELETE q
		FCALL q 0
	`)
	// DUMP from one server restores into the other, both ways.
	p.Do("FUNCTION FLUSH")
	p.DoArgs("FUNCTION", "LOAD", lib)
	p.DoArgs("FUNCTION", "LOAD", "#!lua name=second\nredis.register_function('s', function() return 'second' end)")
	fromRedis := p.Redis.Do("FUNCTION", "DUMP")
	fromHotKV := p.HotKV.Do("FUNCTION", "DUMP")
	p.Do("FUNCTION FLUSH")
	p.Redis.Do("FUNCTION", "RESTORE", bulkBody(fromHotKV))
	p.HotKV.Do("FUNCTION", "RESTORE", bulkBody(fromRedis))
	p.DoUnordered("FUNCTION LIST WITHCODE")
	p.Do("FCALL s 0")
	p.DoArgs("FUNCTION", "DELETE", "second")
	p.DoArgs("FUNCTION", "RESTORE", bulkBody(fromRedis)) // mylib exists (the order of checks is Redis's dict order)
	p.DoArgs("FUNCTION", "RESTORE", bulkBody(fromRedis), "REPLACE")
	p.DoArgs("FUNCTION", "RESTORE", bulkBody(fromRedis), "FLUSH")
	p.DoArgs("FUNCTION", "RESTORE", bulkBody(fromRedis)[:10], "FLUSH")
	p.Do("FCALL s 0")
	p.Do("FUNCTION FLUSH ASYNC")
	p.Do("FUNCTION DUMP")
	p.Do("FUNCTION STATS")
	// RESP3.
	p.Redis.Do("HELLO", "3")
	p.HotKV.Do("HELLO", "3")
	p.DoArgs("FUNCTION", "LOAD", lib)
	p.Run(`
		FUNCTION LIST
		FUNCTION STATS
		FCALL f2 1 a b
	`)
	p.Do("FUNCTION FLUSH")
}

// bulkBody returns the payload of a raw bulk reply.
func bulkBody(raw string) string {
	_, body, _ := strings.Cut(raw, "\r\n")
	return strings.TrimSuffix(body, "\r\n")
}
