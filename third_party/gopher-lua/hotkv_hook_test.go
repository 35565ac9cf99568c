package lua

import (
	"strings"
	"testing"
	"time"
)

// hotkvState is a state opened as HotKV's script engine opens its states.
func hotkvState(t *testing.T) *LState {
	t.Helper()
	L := NewState(Options{SkipOpenLibs: true, RegistrySize: 1024, RegistryMaxSize: 1 << 20, RegistryGrowStep: 1024})
	for _, lib := range []struct {
		name string
		open LGFunction
	}{{"", OpenBase}, {TabLibName, OpenTable}, {StringLibName, OpenString}, {MathLibName, OpenMath}, {CoroutineLibName, OpenCoroutine}} {
		L.Push(L.NewFunction(lib.open))
		L.Push(LString(lib.name))
		L.Call(1, 0)
	}
	t.Cleanup(L.Close)
	return L
}

// pcallHotkv runs src with a message handler, as HotKV's engine does, and
// returns its results or its error. A Go panic escaping PCall fails the
// test.
func pcallHotkv(t *testing.T, L *LState, src string) (res []LValue, err error) {
	t.Helper()
	fn, err := L.LoadString(src)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	handler := L.NewFunction(func(L *LState) int {
		if d, ok := L.GetStack(1); ok {
			L.GetInfo("Sl", d, nil)
		}
		L.Push(L.Get(1))
		return 1
	})
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("%s: Go panic escaped PCall: %v", src, r)
		}
	}()
	top := L.GetTop()
	L.Push(fn)
	if err := L.PCall(0, MultRet, handler); err != nil {
		L.SetTop(top)
		return nil, err
	}
	for i := top + 1; i <= L.GetTop(); i++ {
		res = append(res, L.Get(i))
	}
	L.SetTop(top)
	return res, nil
}

// killHook is SCRIPT KILL as HotKV's engine does it: once killed, the hook
// runs on every instruction and raises on each, so that pcall and
// coroutine.resume cannot catch the error and go on.
type killHook struct {
	calls, after int
	threads      map[*LState]bool
}

func (k *killHook) hook(L *LState) {
	k.calls++
	k.threads[L] = true
	if k.calls >= k.after {
		L.SetCountHook(k.hook, 1)
		L.RaiseError("Script killed by user with SCRIPT KILL...")
	}
}

// A count hook set on the main state runs in coroutines, including ones
// created before it was set, and its error stops them and their resumers
// (HotKV patch: upstream threads had no hook, so an endless loop in a
// coroutine could not be killed).
func TestCountHookReachesCoroutines(t *testing.T) {
	for _, src := range []string{
		`coroutine.wrap(function() while true do end end)()`,
		`local co = coroutine.create(function() while true do end end) coroutine.resume(co) return 'went on'`,
		`local co = coroutine.create(function() while true do end end) while true do coroutine.resume(co) end`,
		`local co = coroutine.create(function() while true do end end) while true do pcall(coroutine.resume, co) end`,
		`coroutine.wrap(function() coroutine.wrap(function() while true do end end)() end)()`,
		`local co = coroutine.create(function() local c2 = coroutine.create(function() while true do end end) while true do coroutine.resume(c2) end end) while true do coroutine.resume(co) end`,
		`local co = coroutine.wrap(function() coroutine.yield() while true do end end) co() co()`,
		`coroutine.wrap(function() while true do pcall(function() while true do end end) end end)()`,
		// Nothing runs in the caller after the call that caught the error.
		`local co = coroutine.create(function() while true do end end) return coroutine.resume(co)`,
		`return pcall(function() while true do end end)`,
		`return xpcall(function() while true do end end, function(e) return e end)`,
	} {
		L := hotkvState(t)
		// A coroutine made before the hook is set shares it too.
		if err := L.DoString(`early = coroutine.create(function() while true do end end)`); err != nil {
			t.Fatal(err)
		}
		k := &killHook{after: 20, threads: map[*LState]bool{}}
		L.SetCountHook(k.hook, 1000)
		start := time.Now()
		res, err := pcallHotkv(t, L, src)
		L.SetCountHook(nil, 0)
		if err == nil || !strings.Contains(err.Error(), "Script killed") {
			t.Errorf("%s: got %v, %v; want the kill error", src, res, err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: took %v", src, d)
		}
		inCoroutine := false
		for th := range k.threads {
			inCoroutine = inCoroutine || th != L
		}
		if !inCoroutine && strings.Contains(src, "coroutine") {
			t.Errorf("%s: the hook never ran in a coroutine", src)
		}
		// The state is usable afterwards, on the main thread.
		k2 := &killHook{after: 3, threads: map[*LState]bool{}}
		L.SetCountHook(k2.hook, 1000)
		if _, err := pcallHotkv(t, L, `coroutine.resume(early)`); err == nil || !strings.Contains(err.Error(), "Script killed") {
			t.Errorf("%s: a coroutine made before the hook: %v", src, err)
		}
		L.SetCountHook(nil, 0)
		if res, err := pcallHotkv(t, L, `return coroutine.running(), 1 + 1`); err != nil || res[0] != LNil || res[1] != LNumber(2) {
			t.Errorf("%s: afterwards: %v %v", src, res, err)
		}
		if L.Broken() {
			t.Errorf("%s: state broken", src)
		}
	}
}

// armedHook raises from the first hook call after the script calls
// arm(), and records whether that call came from inside a Go function.
type armedHook struct {
	armed bool
	inGo  *LFunction
}

func (a *armedHook) hook(L *LState) {
	if a.armed {
		if cf := L.currentFrame; cf != nil && cf.Fn.IsG {
			a.inGo = cf.Fn
		}
		L.RaiseError("killed")
	}
}

// Long Go builtins count their work against the count hook, so that it can
// stop them from inside (HotKV patch: the hook ran only between VM
// instructions).
func TestCountHookStopsLongBuiltins(t *testing.T) {
	for _, c := range []struct{ name, setup, call string }{
		{"string.rep", ``, `string.rep('x', 3e7)`},
		{"string.rep", `s = string.rep('x', 100000)`, `string.rep(s, 300)`},
		{"string.gsub", `s = string.rep('a', 1e6)`, `string.gsub(s, 'a', 'b')`},
		{"string.gsub", `s = string.rep('a', 1e6)`, `string.gsub(s, '%w', {})`},
		{"string.find", `s = string.rep('a', 20000)`, `string.find(s, '.-.-.-b')`},
		{"string.match", `s = string.rep('(', 20000)`, `string.match(s, '%b()')`},
		{"string.format", `s = string.rep('x', 1e7)`, `string.format('%s%s%s%s%s%s%s%s', s, s, s, s, s, s, s, s)`},
		{"table.concat", `t = {} for i = 1, 300000 do t[i] = 'xxxxxxxxxx' end`, `table.concat(t, ',')`},
		{"table.sort", `t = {} for i = 1, 300000 do t[i] = (i * 7919) % 300007 end`, `table.sort(t)`},
	} {
		L := hotkvState(t)
		a := &armedHook{}
		L.SetGlobal("arm", L.NewFunction(func(L *LState) int { a.armed = true; return 0 }))
		if err := L.DoString(c.setup); err != nil {
			t.Fatal(err)
		}
		L.SetCountHook(a.hook, 1000)
		_, err := pcallHotkv(t, L, "arm() "+c.call)
		L.SetCountHook(nil, 0)
		if err == nil || !strings.Contains(err.Error(), "killed") {
			t.Errorf("%s: %v, want the hook's error", c.call, err)
			continue
		}
		mod, name, _ := strings.Cut(c.name, ".")
		want := L.GetField(L.GetGlobal(mod), name)
		if a.inGo != want {
			t.Errorf("%s: the hook raised from %v, want from inside %s", c.call, a.inGo, c.name)
		}
	}
}

// CheckHook costs nothing without a hook, and counts down with one.
func TestCheckHook(t *testing.T) {
	L := NewState()
	defer L.Close()
	for i := 0; i < 1000; i++ {
		L.CheckHook()
	}
	n := 0
	L.SetCountHook(func(*LState) { n++ }, 10)
	for i := 0; i < 100; i++ {
		L.CheckHook()
	}
	L.CheckHookN(25)
	if n != 11 {
		t.Errorf("hook ran %d times, want 11", n)
	}
}

// gsub builds its result once (HotKV patch: upstream copied the buffer
// once per match, over 50 s for this).
func TestGsubIsLinear(t *testing.T) {
	L := hotkvState(t)
	start := time.Now()
	res, err := pcallHotkv(t, L, `local s, n = string.rep('a', 200000):gsub('a', 'b') return #s, n, s:sub(1, 3)`)
	d := time.Since(start)
	if err != nil || res[0] != LNumber(200000) || res[1] != LNumber(200000) || res[2] != LString("bbb") {
		t.Fatalf("got %v %v", res, err)
	}
	if d > 500*time.Millisecond {
		t.Errorf("gsub of 200000 matches took %v", d)
	}
	t.Logf("gsub of 200000 matches: %v", d)
	start = time.Now()
	res, err = pcallHotkv(t, L, `local n = 0 for w in string.rep('a ', 200000):gmatch('%a') do n = n + 1 end
		local t = {} for i = 1, 200000 do t[i] = 'ab' end
		return n, #table.concat(t, ','), #string.rep('a', 1e6):gsub('', '-')`)
	if err != nil || res[0] != LNumber(200000) || res[1] != LNumber(599999) || res[2] != LNumber(2000001) {
		t.Fatalf("got %v %v", res, err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("gmatch, concat and gsub took %v", d)
	}
}

// unpack stops where C Lua's stack does (HotKV patch: upstream grew the
// registry to its maximum and the overflow panicked out of PCall when a
// message handler was set).
func TestUnpackTooManyResults(t *testing.T) {
	L := hotkvState(t)
	for _, c := range []struct{ src, want string }{
		{`return #{unpack({}, 1, 1e8)}`, "too many results to unpack"},
		{`return select('#', unpack({}, 1, 7998))`, "too many results to unpack"},
		{`return select('#', unpack({}, 1, 2^31))`, ""}, // C's int: an empty range
		{`return select('#', unpack({}, 1, 7997))`, ""},
		{`return select('#', string.byte(string.rep('a', 8000), 1, -1))`, "stack overflow (string slice too long)"},
	} {
		start := time.Now()
		res, err := pcallHotkv(t, L, c.src)
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.src, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v %v, want %q", c.src, res, err, c.want)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("%s: took %v", c.src, d)
		}
	}
	if L.Broken() {
		t.Error("a Lua error marked the state broken")
	}
}

// A full registry or call stack reaches the message handler as a Lua error
// (HotKV patch: upstream pushed the handler unprotected on the full
// registry, and a Go panic escaped PCall).
func TestOverflowsReachTheHandler(t *testing.T) {
	L := NewState(Options{RegistrySize: 1024, RegistryMaxSize: 2048, RegistryGrowStep: 64})
	defer L.Close()
	got := []string{}
	handler := L.NewFunction(func(L *LState) int {
		got = append(got, L.Get(1).String())
		L.Push(LString("handled: " + L.Get(1).String()))
		return 1
	})
	for _, c := range []struct{ src, want string }{
		{`local t = {} for i = 1, 4000 do t[i] = i end return {unpack(t, 1, 4000)}`, "registry overflow"},
		{`local function f() return 1 + f() end return f()`, "stack overflow"},
	} {
		fn, err := L.LoadString(c.src)
		if err != nil {
			t.Fatal(err)
		}
		L.Push(fn)
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("%s: Go panic escaped PCall: %v", c.src, r)
				}
			}()
			err = L.PCall(0, 0, handler)
		}()
		if err == nil || !strings.HasPrefix(err.Error(), "handled: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want the handler's result for %q", c.src, err, c.want)
		}
		if L.GetTop() != 0 {
			t.Errorf("%s: %d values left on the stack", c.src, L.GetTop())
		}
	}
	if len(got) != 2 {
		t.Errorf("handler ran %d times", len(got))
	}
}

// A Go panic in a Go function comes back from PCall as an error and marks
// the state broken (HotKV patch).
func TestGoPanicBecomesErrorAndBreaksState(t *testing.T) {
	for _, src := range []string{
		`gopanic()`,
		`pcall(gopanic)`, // pcall catches it as an error; the state is still broken
		`coroutine.wrap(function() gopanic() end)()`, // a coroutine runs a Lua function (patch 23)
		`coroutine.resume(coroutine.create(function() gopanic() end))`,
		`string.gsub('abc', '%w', gopanic)`,
	} {
		L := hotkvState(t)
		L.SetGlobal("gopanic", L.NewFunction(func(L *LState) int {
			var a []int
			return a[L.GetTop()+3] // index out of range
		}))
		if L.Broken() {
			t.Fatal("a new state is broken")
		}
		_, err := pcallHotkv(t, L, src)
		if !strings.HasPrefix(src, "pcall") && !strings.HasPrefix(src, "coroutine.resume") {
			if err == nil || !strings.Contains(err.Error(), "index out of range") {
				t.Errorf("%s: %v, want the Go panic as an error", src, err)
			}
		}
		if !L.Broken() {
			t.Errorf("%s: state not marked broken", src)
		}
	}
	// Without a message handler too.
	L := NewState()
	defer L.Close()
	L.Push(L.NewFunction(func(L *LState) int {
		var m map[string]int
		m["x"] = 1
		return 0
	}))
	if err := L.PCall(0, 0, nil); err == nil || !L.Broken() {
		t.Errorf("got %v, broken %v", err, L.Broken())
	}
}

// Coroutines as C Lua 5.1's (HotKV patch): resuming a coroutine that is
// resuming another failed into an endless recursion and a fatal Go stack
// overflow; yields across a Go call unwound it in the middle.
func TestCoroutineSemantics(t *testing.T) {
	L := hotkvState(t)
	for _, c := range []struct{ src, want string }{
		{`local co1, co2
		  co1 = coroutine.create(function() return coroutine.resume(co2) end)
		  co2 = coroutine.create(function() return coroutine.resume(co1) end)
		  local a, b, c, d = coroutine.resume(co1) return tostring(a) .. tostring(b) .. tostring(c) .. d`, "truetruefalsecannot resume normal coroutine"},
		{`local co co = coroutine.create(function() return coroutine.resume(co) end)
		  local a, b, c = coroutine.resume(co) return tostring(b) .. c`, "falsecannot resume running coroutine"},
		{`local co = coroutine.create(function() error('x') end) coroutine.resume(co)
		  local a, b = coroutine.resume(co) return b .. ' ' .. coroutine.status(co)`, "cannot resume dead coroutine dead"},
		{`local ok, e = pcall(coroutine.wrap(function() error('x') end)) return e`, "<string>:1: x"},
		{`local f = coroutine.wrap(function() error('x') end) pcall(f) local ok, e = pcall(f) return e .. tostring(coroutine.running())`, "cannot resume dead coroutinenil"},
		{`local ok, e = pcall(function() return coroutine.wrap(function() error('x') end)() end) return e`, "<string>:1: <string>:1: x"},
		{`return select(2, coroutine.wrap(function() return pcall(coroutine.yield, 1) end)())`, "attempt to yield across metamethod/C-call boundary"},
		{`local ok, e = pcall(coroutine.wrap(function() return string.gsub('abc', '.', coroutine.yield) end)) return e`, "attempt to yield across metamethod/C-call boundary"},
		{`local co = coroutine.create(function() local t = setmetatable({}, {__index = function(t, k) return coroutine.yield(k) end}) return t.x end)
		  local ok, e = coroutine.resume(co) return tostring(ok) .. e`, "falseattempt to yield across metamethod/C-call boundary"},
		{`local co1 local co2 = coroutine.create(function() return coroutine.status(co1) end)
		  co1 = coroutine.create(function() return select(2, coroutine.resume(co2)) end)
		  return select(2, coroutine.resume(co1))`, "normal"},
		{`local d = 0 local function f() d = d + 1 local ok, e = coroutine.resume(coroutine.create(f)) if not ok then error(e, 0) end end
		  local ok, e = pcall(f) return d .. e`, "199C stack overflow"},
		{`local co = coroutine.create(function(a, b) local c = coroutine.yield(a + b) local d, e = coroutine.yield(c * 2) return d + e end)
		  local r = {} local ok, v = coroutine.resume(co, 1, 2) r[1] = v ok, v = coroutine.resume(co, 10) r[2] = v
		  ok, v = coroutine.resume(co, 3, 4) r[3] = v r[4] = coroutine.status(co) return table.concat(r, ' ')`, "3 20 7 dead"},
	} {
		res, err := pcallHotkv(t, L, c.src)
		if err != nil || len(res) != 1 || res[0].String() != c.want {
			t.Errorf("%s: got %v %v, want %q", c.src, res, err, c.want)
		}
	}
	for _, c := range []struct{ src, want string }{
		{`return coroutine.yield(1)`, "attempt to yield across metamethod/C-call boundary"},
		{`local t = setmetatable({}, {__index = function(t, k) return t[k] end}) return t.x`, "<string>:1: C stack overflow"},
	} {
		if _, err := pcallHotkv(t, L, c.src); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.src, err, c.want)
		}
	}
}

// The string library's matching is C Lua 5.1's (HotKV patch); the
// expected values are Redis 7.0's.
func TestStringMatchingAsCLua(t *testing.T) {
	L := hotkvState(t)
	for _, c := range []struct{ src, want string }{
		{`return string.find('hello', '', 10)`, "6 5"},
		{`return string.find('hello', 'l', -2)`, "4 4"},
		{`return string.find('hello', 'l', '2')`, "3 3"},
		{`return string.find('a+b', '+', 1, true)`, "2 2"},
		{`return string.find('a\0(b', 'a\0(')`, "1 3"},
		{`return string.find('abab', '(ab)%1')`, "1 4 ab"},
		{`return string.find('abc', '()b()')`, "2 2 2 3"},
		{`return string.find('f(a(b)c)d', '%b()')`, "2 8"},
		{`return string.find('THE quick', '%f[%a]%a+', 4)`, "5 9"},
		{`return string.match('  trim  ', '^%s*(.-)%s*$')`, "trim"},
		{`return string.match('a]b', '[]]')`, "]"},
		{`return string.match('x123y', '%d+', -2)`, "3"},
		{`return string.match(string.rep('a', 2000000), '.*') == string.rep('a', 2000000)`, "true"},
		{`return string.gsub('abc', 'b', '%')`, "a\x00c 1"},
		{`return string.gsub('abc', 'b', '%x')`, "axc 1"},
		{`return string.gsub('abc', '()b', '%1')`, "a2c 1"},
		{`return string.gsub('abc', 'b', 5)`, "a5c 1"},
		{`return string.gsub('hello world', '%w+', '%0 %0', -1)`, "hello world 0"},
		{`return string.gsub('hello', '', 'x', 2)`, "xhxello 2"},
		{`return string.gsub('abc', '', '-')`, "-a-b-c- 4"},
		{`return string.gsub('abc', '^', '-')`, "-abc 1"},
		{`return string.gsub('abc', '%w', {a = 1, c = false})`, "1bc 3"},
		{`return pcall(string.gsub, 'abc', '%w', {b = true})`, "false invalid replacement value (a boolean)"},
		{`return string.gsub('abc', '%w', function(c) if c == 'b' then return nil end return 'x' end)`, "xbx 3"},
		{`local it = string.gmatch('a b c', '%a') return it(), it(), it(), tostring((it()))`, "a b c nil"},
		{`return select('#', string.gmatch('a', 'a'))`, "1"},
		{`local t = {} for w in string.gmatch('^a^a', '^a') do t[#t+1] = w end return #t`, "2"},
		{`local t = {} for k, v in string.gmatch('a=1, b=2', '(%w+)=(%w+)') do t[#t+1] = k .. v end return table.concat(t, ',')`, "a1,b2"},
		{`return string.byte('abc')`, "97"},
		{`return string.byte('abc', -1e300, 1e300)`, ""}, // C's cast: both are INT64_MIN
		{`return string.byte('abc', -10, 10)`, "97 98 99"},
		{`return string.sub('abcdef', -1e300)`, "abcdef"},
		{`return string.sub('abcdef', '2', -1e300)`, ""},
		{`return string.upper('a\195\169\255') == 'A\195\169\255'`, "true"},
		{`return table.concat({1, 2, 3}, 4)`, "14243"},
		{`return table.concat({1, 2, 3}, ',', '2')`, "2,3"},
		{`return pcall(table.concat, {}, ',', 1, 3)`, "false invalid value (nil) at index 1 in table for 'concat'"},
		{`return pcall(string.gsub, 'abc', 'b', true)`, "false bad argument #3 to '?' (string/function/table expected)"},
		{`return pcall(string.gsub, 'abc', '%w', function() return {} end)`, "false invalid replacement value (a table)"},
		{`return pcall(string.find, 'abc', '%')`, "false malformed pattern (ends with '%')"},
		{`return pcall(string.find, 'abc', '[a')`, "false malformed pattern (missing ']')"},
		{`return pcall(string.find, 'abc', '(a')`, "false unfinished capture"},
		{`return pcall(string.find, 'abc', '.)')`, "false invalid pattern capture"},
		{`return string.find('a)', 'a)')`, "1 2"}, // no specials: a plain find
		{`return pcall(string.find, 'abc', '%1')`, "false invalid capture index"},
		{`return pcall(string.find, 'abc', '%fa')`, "false missing '[' after '%f' in pattern"},
		{`return pcall(string.match, string.rep('a', 33), string.rep('(a)', 33))`, "false too many captures"},
		{`return pcall(string.char, 256)`, "false bad argument #1 to '?' (invalid value)"},
		{`return pcall(table.sort, {3, 1, 'x'})`, "false attempt to compare string with number"},
	} {
		res, err := pcallHotkv(t, L, c.src)
		var parts []string
		for _, v := range res {
			parts = append(parts, v.String())
		}
		if got := strings.Join(parts, " "); err != nil || got != c.want {
			t.Errorf("%s: got %q %v, want %q", c.src, got, err, c.want)
		}
	}
}

// Deeply nested syntax is an error, not a fatal Go stack overflow in the
// compiler's recursion (HotKV patch); what C Lua takes still compiles.
func TestSyntaxDepthIsBounded(t *testing.T) {
	L := NewState()
	defer L.Close()
	for _, c := range []struct {
		src string
		ok  bool
	}{
		{"return " + strings.Repeat("not ", 3000000) + "1", false},
		{"return " + strings.Repeat("(", 1000000) + "1" + strings.Repeat(")", 1000000), false},
		{"return " + strings.Repeat("{", 100000) + strings.Repeat("}", 100000), false},
		{"return " + strings.Repeat("x and ", 300000) + "1", false},
		{"return " + strings.Repeat("function() return ", 100000) + "1" + strings.Repeat(" end", 100000), false},
		{"return " + strings.Repeat("1+", 100000) + "1", true},
		{"return " + strings.Repeat("1+", 300000) + "1", false},
		{strings.Repeat("if true then ", 190) + strings.Repeat("end ", 190), true},
		{"return " + strings.Repeat("{", 190) + strings.Repeat("}", 190), true},
		{"return " + strings.Repeat("tostring(", 190) + "1" + strings.Repeat(")", 190), true},
	} {
		_, err := L.LoadString(c.src)
		if c.ok != (err == nil) || err != nil && !strings.Contains(err.Error(), "chunk has too many syntax levels") {
			t.Errorf("%.40s... (%d bytes): %v", c.src, len(c.src), err)
		}
	}
}
