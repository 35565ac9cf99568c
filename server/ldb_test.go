package server

import (
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// logs is the RESP array of simple strings the debugger sends.
func logs(lines ...string) string {
	var b strings.Builder
	b.WriteString("*" + strconv.Itoa(len(lines)) + "\r\n")
	for _, l := range lines {
		b.WriteString("+" + l + "\r\n")
	}
	return b.String()
}

// A SCRIPT DEBUG SYNC session over a raw connection, as Redis 7.0's
// synchronous debugger runs it: the script stops before its first line,
// the debugger's commands answer with logs, the script's changes stay,
// and the connection closes after the EVAL's reply. Other clients go on
// meanwhile (those that need no lock of the script's) and after.
func TestScriptDebugSession(t *testing.T) {
	addr := sharedHotKV(t)
	c := difftest.Dial(t, addr)
	other := difftest.Dial(t, addr)
	other.Do("DEL", "ldb:k")
	if r := c.Do("SCRIPT", "DEBUG", "SYNC"); r != "+OK\r\n" {
		t.Fatalf("SCRIPT DEBUG SYNC: %q", r)
	}
	steps := []struct {
		cmd  []string
		raw  string
		want string
	}{
		{cmd: []string{"EVAL", "local a = 'x'\nlocal b = 2\nreturn a .. b\n", "0"},
			want: logs("* Stopped at 1, stop reason = step over", "-> 1   local a = 'x'")},
		{cmd: []string{"step"}, want: logs("* Stopped at 2, stop reason = step over", "-> 2   local b = 2")},
		{cmd: []string{"print"}, want: logs(`<value> a = "x"`)},
		{cmd: []string{"p", "a"}, want: logs(`<value> "x"`)},
		{cmd: []string{"p", "nope"}, want: logs("No such variable.")},
		{cmd: []string{"list"}, want: logs("   1   local a = 'x'", "-> 2   local b = 2", "   3   return a .. b")},
		{cmd: []string{"break", "3"}, want: logs("-> 2   local b = 2", "  #3   return a .. b")},
		{cmd: []string{"redis", "SET", "ldb:k", "v"}, want: logs("<redis> SET ldb:k v", `<reply> "+OK"`)},
		{cmd: []string{"eval", "1 + 1"}, want: logs("<retval> 2")},
		{cmd: []string{"what"}, want: logs("<error> Unknown Redis Lua debugger command or wrong number of arguments.")},
		// Redis's "Test scripting debug protocol parsing".
		{raw: "*1\r\n$13\r\n'hello\x00world'\r\n", want: logs("<error> Unknown Redis Lua debugger command or wrong number of arguments.")},
		{raw: "*1\r\n$8\r\n'\x00hello'\r\n", want: logs("<error> Unknown Redis Lua debugger command or wrong number of arguments.")},
		// "Test scripting debug lua stack overflow": 100 arguments.
		{raw: "*101\r\n$5\r\nredis\r\n" + strings.Repeat("$4\r\ntest\r\n", 100),
			want: logs("<redis> test test test test test test test test test test ... (89 more)", "<error> Unknown Redis command called from script")},
		{cmd: []string{"continue"}, want: logs("* Stopped at 3, stop reason = break point", "->#3   return a .. b")},
	}
	for i, st := range steps {
		if st.cmd != nil {
			c.Send(difftest.Encode(st.cmd...))
		} else {
			c.Send([]byte(st.raw))
		}
		if r := c.Read(); r != st.want {
			t.Fatalf("step %d %q:\n got %q\nwant %q", i, st.cmd, r, st.want)
		}
		if i == 0 {
			// The session holds the script's locks; a command without
			// keys goes on.
			if r := other.Do("PING"); r != "+PONG\r\n" {
				t.Fatalf("PING during the session: %q", r)
			}
		}
	}
	c.Send(difftest.Encode("c"))
	if r := c.Read(); r != logs("<endsession>") {
		t.Fatalf("end: %q", r)
	}
	if r := c.Read(); r != "$2\r\nx2\r\n" {
		t.Fatalf("EVAL reply: %q", r)
	}
	if r, err := c.ReadErr(5 * time.Second); !errors.Is(err, io.EOF) {
		t.Fatalf("after the session: %q, %v, want the connection closed", r, err)
	}
	// Sync mode keeps the changes; the server goes on.
	if r := other.Do("GET", "ldb:k"); r != "$1\r\nv\r\n" {
		t.Fatalf("GET after the session: %q", r)
	}
}

// A session ended by "abort", and one whose client goes away: the script
// runs on, and its locks and busy state go with it.
func TestScriptDebugAbortAndGone(t *testing.T) {
	addr := sharedHotKV(t)
	c := difftest.Dial(t, addr)
	c.Do("SCRIPT", "DEBUG", "SYNC")
	c.Do("EVAL", "local a = 1\nreturn a", "0")
	c.Send(difftest.Encode("abort"))
	if r := c.Read(); r != logs("<endsession>") {
		t.Fatalf("abort: %q", r)
	}
	if r := c.Read(); !strings.HasPrefix(r, "-ERR script aborted for user request script: ") {
		t.Fatalf("abort reply: %q", r)
	}
	c = difftest.Dial(t, addr)
	c.Do("SCRIPT", "DEBUG", "SYNC")
	c.Do("EVAL", "redis.call('SET', 'ldb:gone', 'yes')\nreturn 1", "0")
	c.Close()
	o := difftest.Dial(t, addr)
	deadline := time.Now().Add(5 * time.Second)
	for o.Do("GET", "ldb:gone") != "$3\r\nyes\r\n" {
		if time.Now().After(deadline) {
			t.Fatal("the script did not run on once its client left")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if r := o.Do("SET", "ldb:gone", "after"); r != "+OK\r\n" {
		t.Fatalf("SET after the session: %q", r)
	}
}

// SCRIPT DEBUG's refusals: YES (no forked child in HotKV), a bad mode,
// EVALSHA in a session, inside MULTI; NO turns the debugger off.
func TestScriptDebugErrors(t *testing.T) {
	c := difftest.Dial(t, sharedHotKV(t))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"SCRIPT", "DEBUG", "YES"}, "-" + errScriptDebugYes + "\r\n"},
		{[]string{"SCRIPT", "DEBUG", "maybe"}, "-ERR Use SCRIPT DEBUG YES/SYNC/NO\r\n"},
		{[]string{"SCRIPT", "DEBUG"}, "-ERR wrong number of arguments for 'script|debug' command\r\n"},
		{[]string{"EVAL", "return redis.call('SCRIPT', 'DEBUG', 'NO')", "0"}, "-ERR This Redis command is not allowed from script script: "},
		{[]string{"SCRIPT", "DEBUG", "SYNC"}, "+OK\r\n"},
		{[]string{"EVALSHA", "0123456789012345678901234567890123456789", "0"}, "-ERR Please use EVAL instead of EVALSHA for debugging\r\n"},
		{[]string{"SCRIPT", "DEBUG", "NO"}, "+OK\r\n"},
		{[]string{"EVAL", "return 7", "0"}, ":7\r\n"},
		{[]string{"MULTI"}, "+OK\r\n"},
		{[]string{"SCRIPT", "DEBUG", "SYNC"}, "+QUEUED\r\n"},
		{[]string{"EXEC"}, "*1\r\n-ERR SCRIPT DEBUG must be called outside a pipeline\r\n"},
	} {
		if r := c.Do(tc.args...); !strings.HasPrefix(r, tc.want) {
			t.Errorf("%q: %q, want %q", tc.args, r, tc.want)
		}
	}
}

// The transcript of a session, compared with redis-server's.
func TestScriptDebugDiff(t *testing.T) {
	p := newPair(t)
	src := "local function f(x)\n  local y = x * 2\n  return y\nend\nlocal t = {}\nfor i = 1, 2 do\n  t[i] = f(i)\nend\nredis.debug('t', t)\nredis.breakpoint()\nreturn t\n"
	lines := [][]string{
		{"SCRIPT", "DEBUG", "SYNC"},
		{"EVAL", src, "1", "key1", "arg1"},
		{"s"}, {"s"}, {"s"}, {"s"}, {"p"}, {"t"}, {"b", "3"}, {"b"}, {"c"}, {"p", "x"}, {"b", "-3"}, {"b", "0"},
		{"whole"}, {"list", "7", "1"}, {"p", "KEYS"}, {"p", "ARGV"}, {"maxlen", "1"}, {"e", "string.rep('a', 100)"},
		{"r", "SET", "ldb:diff", "1"}, {"r", "INCR", "ldb:diff"}, {"r", "HGET", "ldb:diff", "f"}, {"r", "GET"},
		{"e", "x = ="}, {"help"}, {"c"}, {"c"},
	}
	for _, args := range lines {
		p.DoArgs(args...)
	}
	// The end: "<endsession>" (above), the reply, then both close the
	// connection.
	if want, got := p.Redis.Read(), p.HotKV.Read(); want != got {
		t.Errorf("EVAL reply: redis %q, hotkv %q", want, got)
	}
	for name, conn := range map[string]*difftest.Conn{"redis": p.Redis, "hotkv": p.HotKV} {
		if r, err := conn.ReadErr(5 * time.Second); !errors.Is(err, io.EOF) {
			t.Errorf("%s after the session: %q, %v", name, r, err)
		}
	}
}

// A session outlives the idle timeout: its client is running a command.
func TestScriptDebugIdleTimeout(t *testing.T) {
	_, addr := startServer(t, "--timeout", "1")
	c := difftest.Dial(t, addr)
	c.Do("SCRIPT", "DEBUG", "SYNC")
	c.Do("EVAL", "return 1", "0")
	time.Sleep(2500 * time.Millisecond)
	c.Send(difftest.Encode("c"))
	if r := c.Read(); r != logs("<endsession>") {
		t.Fatalf("after 2.5 s: %q", r)
	}
	if r := c.Read(); r != ":1\r\n" {
		t.Fatalf("EVAL reply: %q", r)
	}
}
