package lualib_test

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/difftest"
	"github.com/hotkv/hotkv/lualib"
	lua "github.com/yuin/gopher-lua"
)

// The differential tests run each Lua snippet in gopher-lua with the
// libraries of this package and on a real redis-server (EVAL snippet 0),
// and compare the replies byte for byte. Every snippet returns a string,
// so both sides give one bulk reply.
//
// prelude is prepended to every snippet, on the same line so that line
// numbers in error messages are those of the snippet. It resets the cjson
// settings (Redis keeps them across scripts) and defines helpers:
//
//	hex(s)      s as lower-case hex
//	dump(v)     a deterministic rendering of v (sorted table keys, numbers
//	            with 17 significant digits, strings escaped)
//	show(...)   dump of every value, separated by spaces
//	try(f, ...) show(pcall(f, ...))
const prelude = `cjson.encode_max_depth(1000) cjson.decode_max_depth(1000) ` +
	`cjson.encode_number_precision(14) cjson.encode_invalid_numbers(false) ` +
	`cjson.decode_invalid_numbers(true) cjson.encode_sparse_array(false, 2, 10) ` +
	`cjson.encode_keep_buffer(true) ` +
	`local function hex(s) return (string.gsub(s, ".", function(c) return string.format("%02x", string.byte(c)) end)) end ` +
	`local function num(n) if n ~= n or n == 1/0 or n == -1/0 then return tostring(n) end return string.format("%.17g", n) end ` +
	`local function qstr(s) local out = {} for i = 1, #s do local b = string.byte(s, i) ` +
	`if b < 32 or b > 126 or b == 34 or b == 92 then out[i] = string.format("\\x%02x", b) else out[i] = string.char(b) end end ` +
	`return '"' .. table.concat(out) .. '"' end ` +
	`local function keyless(a, b) local ta, tb = type(a), type(b) if ta ~= tb then return ta < tb end if ta == "number" or ta == "string" then return a < b end return tostring(a) < tostring(b) end ` +
	`local dump ` +
	`dump = function(v) local t = type(v) ` +
	`if t == "string" then return qstr(v) elseif t == "number" then return num(v) ` +
	`elseif t == "table" then local keys = {} for k in pairs(v) do keys[#keys + 1] = k end table.sort(keys, keyless) ` +
	`local parts = {} for _, k in ipairs(keys) do parts[#parts + 1] = "[" .. dump(k) .. "]=" .. dump(v[k]) end return "{" .. table.concat(parts, ",") .. "}" ` +
	`elseif v == cjson.null then return "null" end return tostring(v) end ` +
	`local function show(...) local out = {} for i = 1, select("#", ...) do out[i] = dump((select(i, ...))) end return table.concat(out, " ") end ` +
	`local function try(f, ...) return show(pcall(f, ...)) end `

// Set LUALIB_SHOW=1 with -v to log every result.
//
// diffCase is one snippet; want, when set, is the expected result, checked
// even when redis-server is not installed.
type diffCase struct {
	name string
	src  string
	want string
}

// newState returns a gopher-lua state with the libraries installed and a
// registry large enough for the 7999 results cmsgpack.unpack may return
// and a call stack as deep as C Lua's (for recursive test helpers).
func newState() *lua.LState {
	L := lua.NewState(lua.Options{
		RegistrySize:        1024 * 20,
		RegistryMaxSize:     1024 * 80,
		CallStackSize:       20000,
		MinimizeStackMemory: true,
	})
	lualib.Open(L)
	return L
}

// runGopher runs script as Redis does (chunk "@user_script") and returns
// its result as a RESP reply.
func runGopher(script string) string {
	L := newState()
	defer L.Close()
	fn, err := L.Load(strings.NewReader(script), "@user_script")
	if err != nil {
		return "-ERR compile: " + err.Error() + "\r\n"
	}
	L.Push(fn)
	if err := L.PCall(0, 1, nil); err != nil {
		var ae *lua.ApiError
		if errors.As(err, &ae) && ae.Type == lua.ApiErrorPanic {
			return "-GOPANIC " + err.Error() + "\r\n"
		}
		return "-ERR " + err.Error() + "\r\n"
	}
	v := L.Get(-1)
	s, ok := v.(lua.LString)
	if !ok {
		return "-ERR snippet returned a " + v.Type().String() + "\r\n"
	}
	return bulk(string(s))
}

func bulk(s string) string {
	return "$" + strconv.Itoa(len(s)) + "\r\n" + s + "\r\n"
}

// runCases runs every case of library lib in gopher-lua and compares the
// result with redis-server's when one can be started (the "redis"
// subtests), and with the reply Redis gave when the golden file was
// recorded, or the case's want (the "golden" subtests, which need no
// redis-server).
func runCases(t *testing.T, lib string, cases []diffCase) {
	t.Helper()
	t.Run("redis", func(t *testing.T) {
		conn := difftest.Dial(t, difftest.StartRedis(t))
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				script := prelude + c.src
				got := runGopher(script)
				want := conn.Do("EVAL", script, "0")
				if testing.Verbose() && os.Getenv("LUALIB_SHOW") != "" {
					t.Logf("%s", clip(got))
				}
				if got != want {
					t.Errorf("snippet: %s\ngopher-lua: %q\nredis:      %q", c.src, clip(got), clip(want))
				}
				if *update {
					recorded[lib+"/"+c.name] = want
				}
			})
		}
	})
	t.Run("golden", func(t *testing.T) {
		golden := loadGolden(t)
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				want, ok := golden[lib+"/"+c.name]
				if !ok && c.want == "" {
					t.Skip("no recorded reply: run the tests with -update and redis-server installed")
				}
				got := runGopher(prelude + c.src)
				if ok && got != want {
					t.Errorf("snippet: %s\ngot:      %q\nrecorded: %q", c.src, clip(got), clip(want))
				}
				if c.want != "" && got != bulk(c.want) {
					t.Errorf("snippet: %s\ngot:  %q\nwant: %q", c.src, clip(got), bulk(c.want))
				}
			})
		}
	})
}

// The golden file holds the replies redis-server 7.0 gave to every case,
// one "library/case<TAB>quoted reply" line each, so that the comparison
// also runs where redis-server is not installed. go test -update
// rewrites it from a live redis-server.
const goldenFile = "testdata/redis7.golden"

var (
	update   = flag.Bool("update", false, "rewrite "+goldenFile+" from redis-server's replies")
	recorded = map[string]string{}
)

// allCases lists every case list by library, to prune the golden file.
func allCases() map[string][]diffCase {
	return map[string][]diffCase{
		"cjson":    append(append([]diffCase{}, cjsonCases...), cjsonDocCases...),
		"cmsgpack": cmsgpackCases,
		"bit":      bitCases,
		"struct":   structCases,
	}
}

func loadGolden(t testing.TB) map[string]string {
	t.Helper()
	golden := map[string]string{}
	data, err := os.ReadFile(goldenFile)
	if errors.Is(err, os.ErrNotExist) {
		return golden
	}
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		name, quoted, ok := strings.Cut(line, "\t")
		reply, err := strconv.Unquote(quoted)
		if !ok || err != nil {
			t.Fatalf("%s:%d: malformed line", goldenFile, i+1)
		}
		golden[name] = reply
	}
	return golden
}

// writeGolden merges the recorded replies into the golden file, dropping
// entries of cases that no longer exist.
func writeGolden() error {
	known := map[string]bool{}
	for lib, cases := range allCases() {
		for _, c := range cases {
			known[lib+"/"+c.name] = true
		}
	}
	golden := loadGolden(&testing.T{})
	for name, reply := range recorded {
		golden[name] = reply
	}
	var names []string
	for name := range golden {
		if known[name] {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	var b strings.Builder
	for _, name := range names {
		b.WriteString(name + "\t" + strconv.Quote(golden[name]) + "\n")
	}
	if err := os.MkdirAll(filepath.Dir(goldenFile), 0o755); err != nil {
		return err
	}
	return os.WriteFile(goldenFile, []byte(b.String()), 0o644)
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if *update && len(recorded) > 0 {
		if err := writeGolden(); err != nil {
			fmt.Fprintln(os.Stderr, "writing golden file:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// clip shortens a reply for an error message.
func clip(s string) string {
	if len(s) > 1500 {
		return s[:1500] + "...(" + strconv.Itoa(len(s)) + " bytes)"
	}
	return s
}
