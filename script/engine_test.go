package script

import (
	"testing"

	"github.com/hotkv/hotkv/resp"
)

// counter is the key-locked counter of the key-based-locking spec.
const counter = `#!lua flags=allow-key-locking
local current = tonumber(redis.call('GET', KEYS[1]) or "0")
if current >= tonumber(ARGV[1]) then
  return 0
end
redis.call('INCR', KEYS[1])
return 1`

// fakeCall answers GET with a number and INCR with an integer.
func fakeCall(args [][]byte, proto int) ([]byte, string) {
	switch string(args[0]) {
	case "GET":
		return []byte("$2\r\n41\r\n"), ""
	case "INCR":
		return []byte(":42\r\n"), ""
	}
	return nil, "-ERR Unknown Redis command called from script"
}

func TestEvalCounter(t *testing.T) {
	e := NewEngine()
	s, err := e.Load(counter)
	if err != nil {
		t.Fatal(err)
	}
	if s.Flags != AllowKeyLocking {
		t.Errorf("flags = %v", s.Flags)
	}
	for _, c := range []struct{ limit, want string }{{"100", ":1\r\n"}, {"41", ":0\r\n"}} {
		var w resp.Writer
		e.Eval(s, &Run{Keys: [][]byte{[]byte("k")}, Args: [][]byte{[]byte(c.limit)}, Call: fakeCall}, &w)
		if string(w.Buf) != c.want {
			t.Errorf("limit %s: %q, want %q", c.limit, w.Buf, c.want)
		}
	}
}

// TestKeysArgvIsolation: a state's KEYS and ARGV are reused, but nothing
// a script puts in them reaches the next script.
func TestKeysArgvIsolation(t *testing.T) {
	e := NewEngine()
	put, _ := e.Load("KEYS.extra = 'x' ARGV[5] = 'y' setmetatable(KEYS, {__index = function() return 'm' end}) return 1")
	get, _ := e.Load("return {tostring(rawget(KEYS, 'extra')), tostring(ARGV[5]), #KEYS, #ARGV, tostring(KEYS.zzz)}")
	var w resp.Writer
	e.Eval(put, &Run{Keys: [][]byte{[]byte("a"), []byte("b")}}, &w)
	w.Reset()
	e.Eval(get, &Run{Keys: [][]byte{[]byte("c")}}, &w)
	if want := "*5\r\n$3\r\nnil\r\n$3\r\nnil\r\n:1\r\n:0\r\n$3\r\nnil\r\n"; string(w.Buf) != want {
		t.Errorf("second script saw %q, want %q", w.Buf, want)
	}
}

func TestParseShebang(t *testing.T) {
	for _, c := range []struct {
		body  string
		flags Flags
		skip  int
		err   string
	}{
		{"return 1", Compat, 0, ""},
		{"#!lua\nreturn 1", 0, 5, ""},
		{"#!lua flags=no-writes,allow-key-locking\n", NoWrites | AllowKeyLocking, 39, ""},
		{"#!lua flags=\n", 0, 12, ""},
		{"--!hotkv flags=allow-key-locking\nreturn 1", AllowKeyLocking, 0, ""},
		{"--!hotkvx\nreturn 1", Compat, 0, ""},
		{"#!lua", 0, 0, "Invalid script shebang"},
		{"#!lua flags=nope\n", 0, 0, "Unexpected flag in script shebang: nope"},
		{"#!lua name=x\n", 0, 0, "Unknown lua shebang option: name=x"},
		{"#!perl\n", 0, 0, "Unexpected engine in script shebang: #!perl"},
	} {
		flags, skip, err := parseShebang(c.body)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%q: error %v, want %q", c.body, err, c.err)
			}
			continue
		}
		if err != nil || flags != c.flags || skip != c.skip {
			t.Errorf("%q: %v, %d, %v; want %v, %d", c.body, flags, skip, err, c.flags, c.skip)
		}
	}
}

func BenchmarkEvalCounter(b *testing.B) {
	e := NewEngine()
	s, _ := e.Load(counter)
	run := &Run{Keys: [][]byte{[]byte("user:42:quota")}, Args: [][]byte{[]byte("100")}, Call: fakeCall}
	var w resp.Writer
	b.ReportAllocs()
	for b.Loop() {
		w.Reset()
		e.Eval(s, run, &w)
	}
}

// TestPoolDropsGrownStates: a state a script made grow is not pooled.
func TestPoolDropsGrownStates(t *testing.T) {
	e := NewEngine()
	// unpack stops at 8000 values, as C Lua's stack check: recursion
	// with 1000 values per call makes the value stack grow instead.
	big, _ := e.Load("local function f(n, ...) if n == 0 then return select('#', ...) end local r = f(n - 1, ...) return r end return f(100, unpack({}, 1, 1000))")
	var w resp.Writer
	e.Eval(big, &Run{}, &w)
	if string(w.Buf) != ":1000\r\n" {
		t.Fatalf("big script: %q", w.Buf)
	}
	if st := e.MemoryStats(); st.EvalStates != 0 {
		t.Errorf("the grown state stayed in the pool: %d states", st.EvalStates)
	}
	small, _ := e.Load("return 1")
	w.Reset()
	e.Eval(small, &Run{}, &w)
	if st := e.MemoryStats(); st.EvalStates != 1 {
		t.Errorf("a small script's state was not pooled: %d states", st.EvalStates)
	}
}
