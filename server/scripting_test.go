package server

import (
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
	lua "github.com/yuin/gopher-lua"
)

// The examples of ../shared/spec/key-based-locking.md, verbatim. Redis
// refuses the allow-key-locking flag, so these run on HotKV only.
const (
	specCounter = `#!lua flags=allow-key-locking
local current = tonumber(redis.call('GET', KEYS[1]) or "0")
if current >= tonumber(ARGV[1]) then
  return 0
end
redis.call('INCR', KEYS[1])
return 1`
	specIncrTwo = `#!lua flags=allow-key-locking
redis.call('INCR', KEYS[1])
redis.call('INCRBY', KEYS[2], ARGV[1])
return "OK"`
	specQueue = `#!lua flags=allow-key-locking
local destination = '{queue}:' .. ARGV[1]
local job = redis.call('LPOP', KEYS[1])
if job then
  redis.call('RPUSH', destination, job)
end
return job`
	specLibrary = `#!lua name=locks
local function incr_if_below(keys, args)
  local current = tonumber(redis.call('GET', keys[1]) or "0")
  if current >= tonumber(args[1]) then
    return 0
  end
  redis.call('INCR', keys[1])
  return 1
end
redis.register_function{
  function_name='incr_if_below',
  callback=incr_if_below,
  flags={'allow-key-locking'}
}`
)

const dynamicKeyErr = "-ERR Dynamic keys are not allowed in Lua scripts when 'allow-key-locking' flag is set. Key was: "

func expect(t *testing.T, c *difftest.Conn, want string, args ...string) {
	t.Helper()
	if got := c.Do(args...); got != want {
		t.Errorf("%q: got %q, want %q", args, got, want)
	}
}

func TestScriptSpecExamples(t *testing.T) {
	c := difftest.Dial(t, sharedHotKV(t))
	c.Do("FLUSHALL")
	c.Do("FUNCTION", "FLUSH")
	// Key-locked counter: EVAL "<script>" 1 user:42:quota 100
	expect(t, c, "+OK\r\n", "SET", "user:42:quota", "98")
	expect(t, c, ":1\r\n", "EVAL", specCounter, "1", "user:42:quota", "100")
	expect(t, c, ":1\r\n", "EVAL", specCounter, "1", "user:42:quota", "100")
	expect(t, c, ":0\r\n", "EVAL", specCounter, "1", "user:42:quota", "100")
	expect(t, c, "$3\r\n100\r\n", "GET", "user:42:quota")
	// Two declared keys.
	expect(t, c, "$2\r\nOK\r\n", "EVAL", specIncrTwo, "2", "a", "b", "5")
	expect(t, c, "$1\r\n5\r\n", "GET", "b")
	// Dynamic keys with a shared hash tag: EVAL "<script>" 1 {queue}:wait active
	expect(t, c, ":2\r\n", "RPUSH", "{queue}:wait", "job1", "job2")
	expect(t, c, "$4\r\njob1\r\n", "EVAL", specQueue, "1", "{queue}:wait", "active")
	expect(t, c, "*1\r\n$4\r\njob1\r\n", "LRANGE", "{queue}:active", "0", "-1")
	// Constructing {other}:active is rejected, and nothing ran after it.
	other := strings.Replace(specQueue, "'{queue}:'", "'{other}:'", 1)
	got := c.Do("EVAL", other, "1", "{queue}:wait", "active")
	if !strings.HasPrefix(got, dynamicKeyErr+"{other}:active script: ") {
		t.Errorf("{other}:active: %q", got)
	}
	expect(t, c, "*0\r\n", "LRANGE", "{other}:active", "0", "-1")
	expect(t, c, ":0\r\n", "LLEN", "{queue}:wait") // no rollback: job2 was popped
	// A key with no valid tag is covered only when it is itself in KEYS.
	expect(t, c, "$-1\r\n", "EVAL", "#!lua flags=allow-key-locking\nreturn redis.call('GET', KEYS[1])", "1", "plain")
	if got := c.Do("EVAL", "#!lua flags=allow-key-locking\nreturn redis.call('GET', 'plain2')", "1", "plain"); !strings.HasPrefix(got, dynamicKeyErr+"plain2 script: ") {
		t.Errorf("untagged dynamic key: %q", got)
	}
	// "Dynamic Keys and Latency": a same-tag dynamic key is covered; the
	// declared key too.
	latency := "#!lua flags=allow-key-locking\n" +
		"-- A same-tag dynamic key is locked, but may be read from disk under that lock\n" +
		"local key = '{user:42}:' .. ARGV[1]\n" +
		"redis.call('INCR', key)\n" +
		"\n" +
		"-- Declared key: loaded before the script runs, outside the locked section\n" +
		"redis.call('INCR', KEYS[1])"
	expect(t, c, "$-1\r\n", "EVAL", latency, "1", "{user:42}:visits", "logins")
	expect(t, c, "$1\r\n1\r\n", "GET", "{user:42}:logins")
	expect(t, c, "$1\r\n1\r\n", "GET", "{user:42}:visits")
	// redis.pcall returns the error as a table.
	expect(t, c, dynamicKeyErr+"{b}x\r\n", "EVAL", "#!lua flags=allow-key-locking\nreturn redis.pcall('GET', '{b}x')", "1", "{a}")
	// Database-wide commands are refused.
	if got := c.Do("EVAL", "#!lua flags=allow-key-locking\nreturn redis.call('FLUSHDB')", "1", "k"); !strings.HasPrefix(got, "-ERR This command needs the global lock") {
		t.Errorf("FLUSHDB in a key-locked script: %q", got)
	}
	expect(t, c, ":1\r\n", "EXISTS", "b")
	// Read-only and key-locked: shared locks, writes refused as in Redis.
	expect(t, c, "$1\r\n5\r\n", "EVAL", "#!lua flags=no-writes,allow-key-locking\nreturn redis.call('GET', KEYS[1])", "1", "b")
	if got := c.Do("EVAL", "#!lua flags=no-writes,allow-key-locking\nreturn redis.call('SET', KEYS[1], 1)", "1", "b"); !strings.HasPrefix(got, "-ERR Write commands are not allowed from read-only scripts.") {
		t.Errorf("write in a no-writes script: %q", got)
	}
	expect(t, c, "$1\r\n5\r\n", "EVAL_RO", "#!lua flags=no-writes,allow-key-locking\nreturn redis.call('GET', KEYS[1])", "1", "b")
	// Without the flag, dynamic keys work (global lock).
	expect(t, c, ":1\r\n", "RPUSH", "{queue}:wait", "job3")
	expect(t, c, "$4\r\njob3\r\n", "EVAL", "return redis.call('LPOP', '{queue}:' .. ARGV[1])", "0", "wait")

	// Functions: the flag is set per function.
	expect(t, c, "$5\r\nlocks\r\n", "FUNCTION", "LOAD", specLibrary)
	expect(t, c, ":1\r\n", "FCALL", "incr_if_below", "1", "user:42:quota", "101")
	expect(t, c, ":0\r\n", "FCALL", "incr_if_below", "1", "user:42:quota", "101")
	lib := `#!lua name=dyn
redis.register_function{function_name='touch', callback=function(keys, args) return redis.call('INCR', args[1]) end, flags={'allow-key-locking'}}
redis.register_function{function_name='plain_touch', callback=function(keys, args) return redis.call('INCR', args[1]) end}
redis.register_function{function_name='ro_get', callback=function(keys, args) return redis.call('GET', keys[1]) end, flags={'no-writes', 'allow-key-locking'}}`
	expect(t, c, "$3\r\ndyn\r\n", "FUNCTION", "LOAD", lib)
	// A key passed as a plain argument is covered only through a locked tag.
	expect(t, c, ":1\r\n", "FCALL", "touch", "1", "{u1}:a", "{u1}:b")
	if got := c.Do("FCALL", "touch", "1", "{u1}:a", "{u2}:b"); !strings.HasPrefix(got, dynamicKeyErr+"{u2}:b script: touch, on @user_function:2.") {
		t.Errorf("function dynamic key: %q", got)
	}
	expect(t, c, ":1\r\n", "FCALL", "plain_touch", "0", "{u2}:b")
	expect(t, c, "$1\r\n1\r\n", "FCALL_RO", "ro_get", "1", "{u1}:b")
	// The flag appears in FUNCTION LIST.
	if got := c.Do("FUNCTION", "LIST", "LIBRARYNAME", "locks"); !strings.Contains(got, "allow-key-locking") {
		t.Errorf("FUNCTION LIST: %q", got)
	}
}

// TestScriptPortableFlags: the "--!hotkv" first line declares flags that
// stock Redis ignores; SCRIPT FLAGS sets them on a cached script.
func TestScriptPortableFlags(t *testing.T) {
	p := newPair(t)
	portable := "--!hotkv flags=allow-key-locking\nreturn redis.call('GET', '{other}:' .. ARGV[1])"
	// Redis runs it as a plain script.
	if got := p.Redis.Do("EVAL", portable, "1", "{mine}:k", "x"); got != "$-1\r\n" {
		t.Fatalf("redis: %q", got)
	}
	if got := p.HotKV.Do("EVAL", portable, "1", "{mine}:k", "x"); !strings.HasPrefix(got, dynamicKeyErr+"{other}:x script: ") {
		t.Errorf("hotkv portable flags: %q", got)
	}
	expect(t, p.HotKV, "$-1\r\n", "EVAL", strings.Replace(portable, "{other}", "{mine}", 1), "1", "{mine}:k", "x")
	if got := p.HotKV.Do("EVAL", "--!hotkv flags=bogus\nreturn 1", "0"); got != "-ERR Unexpected flag in script shebang: bogus\r\n" {
		t.Errorf("bad portable flag: %q", got)
	}

	// SCRIPT FLAGS turns a cached plain script into a key-locked one and
	// back.
	body := "return redis.call('GET', '{other}:x')"
	sha := p.HotKV.Do("SCRIPT", "LOAD", body)[5:45]
	expect(t, p.HotKV, "$-1\r\n", "EVALSHA", sha, "1", "{mine}:k")
	expect(t, p.HotKV, "+OK\r\n", "SCRIPT", "FLAGS", sha, "allow-key-locking")
	if got := p.HotKV.Do("EVALSHA", sha, "1", "{mine}:k"); !strings.HasPrefix(got, dynamicKeyErr) {
		t.Errorf("after SCRIPT FLAGS: %q", got)
	}
	expect(t, p.HotKV, "+OK\r\n", "SCRIPT", "FLAGS", sha)
	expect(t, p.HotKV, "$-1\r\n", "EVALSHA", sha, "1", "{mine}:k")
	expect(t, p.HotKV, "-ERR Unexpected flag: nope\r\n", "SCRIPT", "FLAGS", sha, "nope")

	// script-default-flags applies to scripts without a shebang.
	expect(t, p.HotKV, "+OK\r\n", "CONFIG", "SET", "script-default-flags", "allow-key-locking no-writes")
	t.Cleanup(func() { p.HotKV.Do("CONFIG", "SET", "script-default-flags", "none") })
	expect(t, p.HotKV, "*2\r\n$20\r\nscript-default-flags\r\n$27\r\nno-writes allow-key-locking\r\n", "CONFIG", "GET", "script-default-flags")
	if got := p.HotKV.Do("EVAL", body, "1", "{mine}:k"); !strings.HasPrefix(got, dynamicKeyErr) {
		t.Errorf("with script-default-flags: %q", got)
	}
	if got := p.HotKV.Do("EVAL", "return redis.call('SET', KEYS[1], 1)", "1", "{mine}:k"); !strings.HasPrefix(got, "-ERR Write commands are not allowed from read-only scripts.") {
		t.Errorf("no-writes by default: %q", got)
	}
	expect(t, p.HotKV, "$-1\r\n", "EVAL", "#!lua\nreturn redis.call('GET', '{other}:x')", "1", "{mine}:k") // a shebang wins
	expect(t, p.HotKV, "+OK\r\n", "CONFIG", "SET", "script-default-flags", "none")
	expect(t, p.HotKV, "$-1\r\n", "EVAL", body, "1", "{mine}:k")
	if got := p.HotKV.Do("CONFIG", "SET", "script-default-flags", "bogus"); !strings.HasPrefix(got, "-ERR CONFIG SET failed") {
		t.Errorf("bad default flag: %q", got)
	}
	expect(t, p.HotKV, "-NOSCRIPT No matching script. Please use EVAL.\r\n", "SCRIPT", "FLAGS", "0000000000000000000000000000000000000000")
}

// TestScriptLockStats: INFO keylocks tells scripts under the global lock
// from scripts under key locks.
func TestScriptLockStats(t *testing.T) {
	_, addr := startServer(t)
	c := difftest.Dial(t, addr)
	c.Do("EVAL", "return 1", "0")
	c.Do("EVAL", specCounter, "1", "k", "10")
	c.Do("EVAL", specCounter, "1", "k", "10")
	c.Do("MULTI")
	c.Do("EVAL", specCounter, "1", "k", "10") // in MULTI: global lock
	c.Do("EXEC")
	info := c.Do("INFO", "keylocks")
	for _, want := range []string{"scripts_global_lock:2\r\n", "scripts_key_locks:2\r\n"} {
		if !strings.Contains(info, want) {
			t.Errorf("INFO keylocks lacks %q:\n%s", want, info)
		}
	}
}

// slowScript loops for ARGV[1] milliseconds, reading TIME.
const slowLoop = `
local function now() local t = redis.call('TIME') return t[1] * 1000 + t[2] / 1000 end
local stop = now() + tonumber(ARGV[1])
while now() < stop do end
return 'done'`

// startSlow sends a slow script and returns a flag set when its reply
// arrives; it returns once the script holds its locks (INFO keylocks
// shows locks held, or the global lock was taken).
func startSlow(t *testing.T, addr string, body string, keys ...string) *atomic.Bool {
	t.Helper()
	c := difftest.Dial(t, addr)
	info := difftest.Dial(t, addr)
	before := info.Do("INFO", "keylocks")
	var done atomic.Bool
	args := append([]string{"EVAL", body, strconv.Itoa(len(keys))}, keys...)
	// 2 s: a command that must not wait for the script is answered well
	// before it ends even on a loaded machine (-race, parallel packages).
	c.Send(difftest.Encode(append(args, "2000")...))
	go func() {
		c.Read()
		done.Store(true)
	}()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		// The script counters move once its locks are held.
		if scriptCounters(info.Do("INFO", "keylocks")) != scriptCounters(before) {
			return &done
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("the slow script did not start")
	return nil
}

// arrives reports whether the slow script's reply arrives within 1 s:
// it was sent before the reply the test just read (the reading goroutine
// may lag a little), while a script the command did not wait for still
// has most of its 2 s to run.
func arrives(done *atomic.Bool) bool {
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if done.Load() {
			return true
		}
	}
	return false
}

func scriptCounters(info string) string {
	_, after, _ := strings.Cut(info, "scripts_global_lock:")
	return after
}

// TestScriptKeyLockParallelism: a slow allow-key-locking script on {a}
// does not delay a GET on {b} but does delay a GET on another {a} key;
// two read-only flagged scripts on one tag run at once and block a
// writer; a plain script blocks everything that takes a lock.
func TestScriptKeyLockParallelism(t *testing.T) {
	_, addr := startServer(t, "--io-threads", "1")
	other := difftest.Dial(t, addr)

	done := startSlow(t, addr, "#!lua flags=allow-key-locking\nredis.call('SET', KEYS[1], 1)\n"+slowLoop, "{a}1")
	expect(t, other, "$-1\r\n", "GET", "{b}x")
	if done.Load() {
		t.Fatal("GET {b}x waited for the script on {a}")
	}
	expect(t, other, "$-1\r\n", "GET", "{a}2")
	if !arrives(done) {
		t.Fatal("GET {a}2 did not wait for the script on {a}")
	}

	ro := "#!lua flags=no-writes,allow-key-locking\n" + slowLoop
	done = startSlow(t, addr, ro, "{a}1")
	expect(t, other, "$4\r\ndone\r\n", "EVAL", "#!lua flags=no-writes,allow-key-locking\nreturn 'done'", "1", "{a}2")
	if done.Load() {
		t.Fatal("a second read-only script on {a} waited for the first")
	}
	expect(t, other, "+OK\r\n", "SET", "{a}2", "x")
	if !arrives(done) {
		t.Fatal("a writer on {a} did not wait for the read-only script")
	}

	done = startSlow(t, addr, slowLoop)
	expect(t, other, "$-1\r\n", "GET", "{b}y")
	if !arrives(done) {
		t.Fatal("GET {b}y did not wait for the plain script")
	}
}

// TestScriptBusyAndKill: past busy-reply-threshold, commands that need a
// script's locks get BUSY; SCRIPT KILL stops a script that has not
// written, FUNCTION KILL a function; a script that wrote is UNKILLABLE.
func TestScriptBusyAndKill(t *testing.T) {
	_, addr := startServer(t, "--busy-reply-threshold", "50")
	c := difftest.Dial(t, addr)
	other := difftest.Dial(t, addr)
	expect(t, other, "-NOTBUSY No scripts in execution right now.\r\n", "SCRIPT", "KILL")

	loop := "local i = 0 while true do i = i + 1 end"
	c.Send(difftest.Encode("EVAL", loop, "0"))
	waitBusy(t, other, "GET", "x")
	expect(t, other, "-"+errBusyScript+"\r\n", "GET", "x")
	expect(t, other, "-"+errBusyScript+"\r\n", "PING") // the server is busy, as Redis's
	// MULTI is allow_busy; what it queues meanwhile is refused, and EXEC
	// aborts.
	expect(t, other, "+OK\r\n", "MULTI")
	expect(t, other, "-"+errBusyScript+"\r\n", "INCR", "x")
	expect(t, other, "-"+errExecAbortBecause+errBusyScript+"\r\n", "EXEC")
	expect(t, other, "-"+errBusyScript+"\r\n", "SHUTDOWN")
	expect(t, other, "-"+errBusyScript+"\r\n", "FUNCTION", "KILL")
	expect(t, other, "-"+errBusyScript+"\r\n", "FUNCTION", "STATS")
	expect(t, other, "+OK\r\n", "SCRIPT", "KILL")
	if got := c.Read(); !strings.HasPrefix(got, "-ERR Script killed by user with SCRIPT KILL... script: ") {
		t.Errorf("killed script replied %q", got)
	}
	expect(t, other, "$-1\r\n", "GET", "x")

	// pcall cannot catch the kill.
	c.Send(difftest.Encode("EVAL", "while true do pcall(function() while true do end end) end", "0"))
	waitBusy(t, other, "GET", "x")
	expect(t, other, "+OK\r\n", "SCRIPT", "KILL")
	if got := c.Read(); !strings.Contains(got, "Script killed by user") {
		t.Errorf("killed script replied %q", got)
	}

	// A key-locked script is busy only for its own tag.
	c.Send(difftest.Encode("EVAL", "#!lua flags=allow-key-locking\n"+loop, "1", "{a}"))
	waitBusy(t, other, "GET", "{a}x")
	expect(t, other, "-"+errBusyScript+"\r\n", "GET", "{a}x")
	expect(t, other, "$-1\r\n", "GET", "{b}x")
	expect(t, other, "+OK\r\n", "SCRIPT", "KILL")
	c.Read()

	// A function.
	expect(t, other, "$4\r\nspin\r\n", "FUNCTION", "LOAD", "#!lua name=spin\nredis.register_function('spin', function() while true do end end)")
	c.Send(difftest.Encode("FCALL", "spin", "0"))
	waitBusy(t, other, "GET", "x")
	expect(t, other, "-"+errBusyFunction+"\r\n", "GET", "x")
	expect(t, other, "-"+errBusyFunction+"\r\n", "SCRIPT", "KILL")
	if got := other.Do("FUNCTION", "STATS"); !strings.Contains(got, "spin") {
		t.Errorf("FUNCTION STATS while spin runs: %q", got)
	}
	expect(t, other, "+OK\r\n", "FUNCTION", "KILL")
	if got := c.Read(); !strings.Contains(got, "Script killed by user") {
		t.Errorf("killed function replied %q", got)
	}

	// A script that wrote cannot be killed.
	c.Send(difftest.Encode("EVAL", "redis.call('SET', 'w', 1) "+loop, "0"))
	waitBusy(t, other, "GET", "x")
	expect(t, other, "-"+errUnkillable+"\r\n", "SCRIPT", "KILL")
	expect(t, other, "-"+errUnkillable+"\r\n", "FUNCTION", "KILL")
}

// waitBusy waits until the command gets a BUSY reply.
func waitBusy(t *testing.T, c *difftest.Conn, args ...string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if strings.HasPrefix(c.Do(args...), "-BUSY") {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("the script never became busy")
}

// TestScriptEveryCommand calls every command of the table from a script
// (with a few arguments): the server must answer each, never with an
// internal error, and keep serving.
func TestScriptEveryCommand(t *testing.T) {
	s, addr := startServer(t)
	c := difftest.Dial(t, addr)
	for _, cmd := range tableCommands(s.table) {
		name := strings.ReplaceAll(cmd.Name, "|", "', '")
		for _, extra := range []string{"", ", 'a'", ", 'a', 'b'", ", 'a', '1', 'b'"} {
			got := c.Do("EVAL", "return redis.pcall('"+name+"'"+extra+")", "0")
			if strings.Contains(got, "internal error") {
				t.Errorf("%s%s from a script: %q", cmd.Name, extra, got)
			}
		}
	}
	expect(t, c, "+PONG\r\n", "PING")
}

// TestScriptHugeStrings: a script that builds an enormous string gets an
// error instead of exhausting the server's memory.
func TestScriptHugeStrings(t *testing.T) {
	// A 1 MB bound keeps the test light (the default is 512 MB).
	defer lua.SetMaxStringLen(lua.SetMaxStringLen(1 << 20))
	c := difftest.Dial(t, sharedHotKV(t))
	for _, body := range []string{
		"return #string.rep('xxxxxxxxxx', 2^20)",
		"local s = 'x' for i = 1, 40 do s = s .. s end return #s",
	} {
		if got := c.Do("EVAL", body, "0"); !strings.HasPrefix(got, "-ERR user_script:1: not enough memory script: ") {
			t.Errorf("%s: %q", body, got)
		}
	}
	expect(t, c, "+PONG\r\n", "PING")
}

// TestScriptInMulti: scripts queue in MULTI and run in EXEC, as in Redis.
func TestScriptInMulti(t *testing.T) {
	p := newPair(t)
	p.Run(`
		MULTI
		EVAL "return redis.call('INCR', KEYS[1])" 1 counter
		EVAL "return redis.call('nosuch')" 0
		EVALSHA 0000000000000000000000000000000000000000 0
		SET other 1
		EXEC
		GET counter
		MULTI
		EVAL "return redis.call('BLPOP', 'nolist', 0)" 0
		EXEC
	`)
	// allow-key-locking scripts run under the transaction's global lock:
	// dynamic keys work there.
	expect(t, p.HotKV, "+OK\r\n", "MULTI")
	expect(t, p.HotKV, "+QUEUED\r\n", "EVAL", "#!lua flags=allow-key-locking\nreturn redis.call('INCR', '{x}:' .. ARGV[1])", "1", "{y}", "a")
	expect(t, p.HotKV, "*1\r\n:1\r\n", "EXEC")
}

// TestScriptOOM: Redis's maxmemory checks for scripts with and without a
// shebang.
func TestScriptOOM(t *testing.T) {
	p := newPair(t)
	p.Do("SET big " + strings.Repeat("x", 1000))
	for _, c := range []*difftest.Conn{p.Redis, p.HotKV} {
		c.Do("CONFIG", "SET", "maxmemory", "1")
	}
	defer func() {
		for _, c := range []*difftest.Conn{p.Redis, p.HotKV} {
			c.Do("CONFIG", "SET", "maxmemory", "0")
		}
	}()
	for _, c := range [][]string{
		{"return redis.call('SET', 'k', 'v')", "0"},
		{"return redis.call('GET', 'k')", "0"},
		{"redis.call('DEL', 'k') return redis.call('SET', 'k', 'v')", "0"},
		{"#!lua\nreturn redis.call('GET', 'k')", "0"},
		{"#!lua flags=no-writes\nreturn redis.call('GET', 'k')", "0"},
		{"#!lua flags=allow-oom\nreturn redis.call('SET', 'k', 'v')", "0"},
	} {
		p.DoArgs(append([]string{"EVAL"}, c...)...)
	}
}

// TestScriptWakesBlocked: a script that pushes to a list serves a client
// blocked on it, after the script; inside MULTI after the EXEC.
func TestScriptWakesBlocked(t *testing.T) {
	p := newPair(t)
	for _, inMulti := range []bool{false, true} {
		for _, c := range []*difftest.Conn{p.Redis, p.HotKV} {
			blocked := difftest.Dial(t, c.Addr())
			blocked.Send(difftest.Encode("BLPOP", "q", "5"))
			waitBlocked(t, c, 1)
			if inMulti {
				c.Do("MULTI")
				c.Do("EVAL", "redis.call('RPUSH', KEYS[1], 'a', 'b') return redis.call('LLEN', KEYS[1])", "1", "q")
				if got := c.Do("EXEC"); got != "*1\r\n:2\r\n" {
					t.Errorf("EXEC: %q", got)
				}
			} else if got := c.Do("EVAL", "redis.call('RPUSH', KEYS[1], 'a', 'b') return redis.call('LLEN', KEYS[1])", "1", "q"); got != ":2\r\n" {
				t.Errorf("EVAL: %q", got)
			}
			if got := blocked.Read(); got != "*2\r\n$1\r\nq\r\n$1\r\na\r\n" {
				t.Errorf("blocked client got %q (multi %v)", got, inMulti)
			}
			if got := c.Do("LRANGE", "q", "0", "-1"); got != "*1\r\n$1\r\nb\r\n" {
				t.Errorf("left %q", got)
			}
			c.Do("DEL", "q")
		}
	}
}

// waitBlocked waits until the server reports n blocked clients.
func waitBlocked(t *testing.T, c *difftest.Conn, n int) {
	t.Helper()
	want := "blocked_clients:" + strconv.Itoa(n) + "\r\n"
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(c.Do("INFO", "clients"), want); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %d blocked clients", n)
		}
	}
}

// TestScriptInfoMemory: INFO memory counts cached scripts, libraries and
// functions.
func TestScriptInfoMemory(t *testing.T) {
	_, addr := startServer(t)
	c := difftest.Dial(t, addr)
	c.Do("SCRIPT", "LOAD", "return 1")
	c.Do("EVAL", "return 2", "0")
	c.Do("FUNCTION", "LOAD", "#!lua name=l\nredis.register_function('a', function() end)\nredis.register_function('b', function() end)")
	info := c.Do("INFO", "memory")
	for _, want := range []string{"number_of_cached_scripts:2\r\n", "number_of_functions:2\r\n", "number_of_libraries:1\r\n"} {
		if !strings.Contains(info, want) {
			t.Errorf("INFO memory lacks %q", want)
		}
	}
	if strings.Contains(info, "used_memory_vm_eval:0\r\n") {
		t.Errorf("no memory for the Lua state that ran EVAL:\n%s", info)
	}
	c.Do("SCRIPT", "FLUSH")
	if info := c.Do("INFO", "memory"); !strings.Contains(info, "number_of_cached_scripts:0\r\n") {
		t.Errorf("after SCRIPT FLUSH:\n%s", info)
	}
}

// TestDisableDenyScripts: DEBUG SET-DISABLE-DENY-SCRIPTS 1 lets scripts
// call noscript commands (unit/scripting uses it to run CLIENT LIST and
// DEBUG PROTOCOL from scripts), 0 denies them again, as in Redis.
func TestDisableDenyScripts(t *testing.T) {
	redis := difftest.StartRedis(t, "--enable-debug-command", "yes")
	_, hotkv := startServer(t, "--enable-debug-command", "yes")
	cmds := [][]string{
		{"EVAL", "return redis.call('debug', 'protocol', 'bignum')", "0"},
		{"DEBUG", "SET-DISABLE-DENY-SCRIPTS", "1"},
		{"EVAL", "return redis.call('debug', 'protocol', 'bignum')", "0"},
		{"EVAL", "return type(redis.call('client', 'list'))", "0"},
		{"DEBUG", "SET-DISABLE-DENY-SCRIPTS", "0"},
		{"EVAL", "return redis.call('debug', 'protocol', 'bignum')", "0"},
	}
	for _, addr := range []string{redis, hotkv} {
		difftest.Dial(t, addr).Do("FLUSHALL")
	}
	r, h := difftest.Dial(t, redis), difftest.Dial(t, hotkv)
	for _, cmd := range cmds {
		if got, want := h.Do(cmd...), r.Do(cmd...); got != want {
			t.Errorf("%q: HotKV %q, Redis %q", cmd, got, want)
		}
	}
}

// TestScriptTimeStandsStill: a key that expires while a script runs is
// still there for the script (Redis pretends time is blocked at the
// script's start), and gone after it, as in Redis (unit/scripting "Script
// block the time during execution").
func TestScriptTimeStandsStill(t *testing.T) {
	redis := difftest.StartRedis(t, "--enable-debug-command", "yes")
	_, hotkv := startServer(t, "--enable-debug-command", "yes")
	body := `redis.call("SET", "key", "value", "PX", "1")
redis.call("DEBUG", "SLEEP", 0.01)
return redis.call("EXISTS", "key")`
	for _, addr := range []string{redis, hotkv} {
		c := difftest.Dial(t, addr)
		c.Do("DEBUG", "SET-DISABLE-DENY-SCRIPTS", "1")
		if got := c.Do("EVAL", body, "0"); got != ":1\r\n" {
			t.Errorf("%s: EXISTS inside the script: %q", addr, got)
		}
		if got := c.Do("EXISTS", "key"); got != ":0\r\n" {
			t.Errorf("%s: EXISTS after the script: %q", addr, got)
		}
		c.Do("DEBUG", "SET-DISABLE-DENY-SCRIPTS", "0")
	}
}
