package script

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/resp"
)

// fakeDebugger feeds a session its commands and keeps what it sends.
type fakeDebugger struct {
	in      []string // RESP commands, one per Read
	sent    [][]string
	timeout time.Duration
}

func (f *fakeDebugger) Send(logs []string) { f.sent = append(f.sent, logs) }

func (f *fakeDebugger) Read(p []byte) (int, bool) {
	if len(f.in) == 0 {
		return 0, false // the client is gone
	}
	n := copy(p, f.in[0])
	f.in = f.in[1:]
	return n, true
}

func (f *fakeDebugger) Timeout() time.Duration {
	if f.timeout == 0 {
		return time.Hour
	}
	return f.timeout
}

func cmd(args ...string) string {
	var w resp.Writer
	w.Array(len(args))
	for _, a := range args {
		w.BulkString(a)
	}
	return string(w.Buf)
}

// A session as Redis 7.0's debugger runs it: stops at each line when
// stepping, prints locals, logs redis.call and redis.debug, ends with
// "<endsession>" before the script's reply.
func TestDebugSession(t *testing.T) {
	e := NewEngine()
	s, err := e.Load("local a = 5\nredis.debug('v', a)\nredis.call('GET', 'k')\nreturn a\n")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeDebugger{in: []string{cmd("step"), cmd("print"), cmd("s"), cmd("nosuch"), cmd("b", "4"), cmd("c"), cmd("list", "4", "0"), cmd("c")}}
	var w resp.Writer
	e.Eval(s, &Run{Call: fakeCall, Debug: f}, &w)
	want := [][]string{
		{"* Stopped at 1, stop reason = step over", "-> 1   local a = 5"},
		{"* Stopped at 2, stop reason = step over", "-> 2   redis.debug('v', a)"},
		{"<value> a = 5"},
		{"<debug> line 2: \"v\", 5", "* Stopped at 3, stop reason = step over", "-> 3   redis.call('GET', 'k')"},
		{"<error> Unknown Redis Lua debugger command or wrong number of arguments."},
		{"-> 3   redis.call('GET', 'k')", "  #4   return a"}, // the trailing newline is cut
		{"* Stopped at 4, stop reason = break point", "->#4   return a"},
		{"->#4   return a"},
		{"<endsession>"},
	}
	if !reflect.DeepEqual(f.sent, want) {
		t.Errorf("sent\n%q\nwant\n%q", f.sent, want)
	}
	if string(w.Buf) != ":5\r\n" {
		t.Errorf("reply %q", w.Buf)
	}
}

// The client gone, the script runs on; abort and a protocol error end it
// with an error.
func TestDebugEnds(t *testing.T) {
	e := NewEngine()
	s, _ := e.Load("local a = 1\nreturn a + 1")
	for _, c := range []struct {
		in    []string
		reply string
	}{
		{nil, ":2\r\n"},
		{[]string{cmd("abort")}, "-ERR script aborted for user request script: "},
		{[]string{"*1\r\n$0\r\n\r\n"}, "-ERR protocol error script: "},
		{[]string{"x"}, "-ERR protocol error script: "},
	} {
		f := &fakeDebugger{in: c.in}
		var w resp.Writer
		e.Eval(s, &Run{Call: fakeCall, Debug: f}, &w)
		if !strings.HasPrefix(string(w.Buf), c.reply) {
			t.Errorf("%q: reply %q, want %q...", c.in, w.Buf, c.reply)
		}
		if last := f.sent[len(f.sent)-1]; !reflect.DeepEqual(last, []string{"<endsession>"}) {
			t.Errorf("%q: last logs %q", c.in, last)
		}
	}
}

// Commands split over reads are put together; "redis" with many
// arguments logs ten of them, and the rejection.
func TestDebugRedisCommand(t *testing.T) {
	e := NewEngine()
	s, _ := e.Load("return 1")
	big := []string{"redis"}
	for i := 0; i < 100; i++ {
		big = append(big, "test")
	}
	c := cmd(big...)
	f := &fakeDebugger{in: []string{c[:7], c[7:30], c[30:]}}
	var w resp.Writer
	e.Eval(s, &Run{Call: fakeCall, Debug: f}, &w)
	want := []string{"<redis> test test test test test test test test test test ... (89 more)", "<error> Unknown Redis command called from script"}
	if len(f.sent) < 2 || !reflect.DeepEqual(f.sent[1], want) {
		t.Errorf("sent %q", f.sent)
	}
}

func TestSendLogs(t *testing.T) {
	if got := string(SendLogs(nil, []string{"a\r\nb", ""})); got != "*2\r\n+a  b\r\n+\r\n" {
		t.Errorf("%q", got)
	}
}

// A loop that runs past the timeout without a stop is stopped ("timeout
// reached, infinite loop?"), although each turn is a line event.
func TestDebugTimeout(t *testing.T) {
	e := NewEngine()
	s, _ := e.Load("local i = 0\nwhile true do\n  i = i + 1\nend\n")
	f := &fakeDebugger{in: []string{cmd("c"), cmd("abort")}, timeout: 50 * time.Millisecond}
	var w resp.Writer
	e.Eval(s, &Run{Call: fakeCall, Debug: f}, &w)
	// The stop is on whichever line of the loop the count event finds.
	if len(f.sent) != 3 || len(f.sent[1]) != 2 || !strings.HasSuffix(f.sent[1][0], ", stop reason = timeout reached, infinite loop?") {
		t.Errorf("sent %q", f.sent)
	}
	if !strings.HasPrefix(string(w.Buf), "-ERR script aborted for user request") {
		t.Errorf("reply %q", w.Buf)
	}
}
