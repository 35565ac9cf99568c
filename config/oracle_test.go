package config

// Tests comparing the package with a real redis-server (7.0.x), when one is
// installed. They are skipped, loudly, when redis-server is not on PATH.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	mrand "math/rand"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

type redisConn struct {
	c net.Conn
	r *bufio.Reader
}

func (rc *redisConn) do(t *testing.T, args ...string) any {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	rc.c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := rc.c.Write([]byte(b.String())); err != nil {
		t.Fatal(err)
	}
	v, err := rc.read()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// redisErr is an error reply.
type redisErr string

func (rc *redisConn) read() (any, error) {
	line, err := rc.r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	line = strings.TrimSuffix(line, "\r\n")
	switch line[0] {
	case '+':
		return line[1:], nil
	case '-':
		return redisErr(line[1:]), nil
	case ':':
		return strconv.ParseInt(line[1:], 10, 64)
	case '$':
		n, _ := strconv.Atoi(line[1:])
		if n < 0 {
			return nil, nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(rc.r, buf); err != nil {
			return nil, err
		}
		return string(buf[:n]), nil
	case '*':
		n, _ := strconv.Atoi(line[1:])
		out := make([]any, 0, max(n, 0))
		for i := 0; i < n; i++ {
			v, err := rc.read()
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	return nil, fmt.Errorf("bad reply %q", line)
}

func redisBin(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("SKIPPING ORACLE TEST: redis-server not found on PATH; the comparison with Redis was not run")
	}
	if testing.Short() {
		t.Skip("SKIPPING ORACLE TEST in -short mode")
	}
	return bin
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skip("SKIPPING ORACLE TEST: no free port:", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startRedis runs redis-server with args (which must set the port) and
// connects to it.
func startRedis(t *testing.T, port int, args ...string) *redisConn {
	t.Helper()
	cmd := exec.Command(redisBin(t), args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Skip("SKIPPING ORACLE TEST: cannot start redis-server:", err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	var c net.Conn
	var err error
	for i := 0; i < 200; i++ {
		if c, err = net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			break
		}
		time.Sleep(25 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("cannot connect to redis-server: %v\n%s", err, out.String())
	}
	t.Cleanup(func() { c.Close() })
	return &redisConn{c: c, r: bufio.NewReader(c)}
}

func tempDir(t *testing.T) string {
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func pairsOf(t *testing.T, v any) map[string]string {
	t.Helper()
	arr, ok := v.([]any)
	if !ok {
		t.Fatalf("unexpected reply %v", v)
	}
	m := map[string]string{}
	for i := 0; i+1 < len(arr); i += 2 {
		m[arr[i].(string)] = arr[i+1].(string)
	}
	return m
}

// TestOracleGetAll compares CONFIG GET * of a redis-server started without
// a configuration file (only "--port P --dir D", to run it in a sandbox)
// with Default().Get("*"): the same names (192 with aliases), and the same
// values except for:
//   - port: the test server runs on a free port, Default has 6379 (the Redis
//     default too);
//   - dir: the test server runs in a temporary directory, Default reports
//     the absolute working directory (as Redis does).
//
// logfile and pidfile are "" on both sides (no daemonization). Then it
// checks that Load("", same arguments) gives exactly Redis's values.
func TestOracleGetAll(t *testing.T) {
	dir := tempDir(t)
	port := freePort(t)
	args := []string{"--port", strconv.Itoa(port), "--dir", dir}
	rc := startRedis(t, port, args...)
	want := pairsOf(t, rc.do(t, "CONFIG", "GET", "*"))

	wd, _ := os.Getwd()
	wd, _ = filepath.EvalSymlinks(wd)
	allowed := map[string][2]string{
		"port": {strconv.Itoa(port), "6379"},
		"dir":  {dir, wd},
	}
	def := map[string]string{}
	for _, kv := range Default().Get([]string{"*"}) {
		def[kv[0]] = kv[1]
	}
	for name, wv := range want {
		gv, ok := def[name]
		switch {
		case !ok:
			t.Errorf("Default: missing parameter %q (Redis: %q)", name, wv)
		case allowed[name] != [2]string{}:
			if a := allowed[name]; wv != a[0] || gv != a[1] {
				t.Errorf("Default: %s: Redis %q, HotKV %q, expected %q", name, wv, gv, a)
			}
		case gv != wv:
			t.Errorf("Default: %s: Redis %q, HotKV %q", name, wv, gv)
		}
	}
	for name := range def {
		if _, ok := want[name]; !ok && !hotkvParams[name] {
			t.Errorf("Default: extra parameter %q", name)
		}
	}

	c, err := Load("", args)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, kv := range c.Get([]string{"*"}) {
		got[kv[0]] = kv[1]
	}
	for name, wv := range want {
		if gv := got[name]; gv != wv {
			t.Errorf("Load: %s: Redis %q, HotKV %q", name, wv, gv)
		}
	}

	// Hidden parameters answer an exact CONFIG GET on both sides.
	for _, p := range c.Params() {
		if !p.Hidden() {
			continue
		}
		w := pairsOf(t, rc.do(t, "CONFIG", "GET", p.Name()))
		if w[p.Name()] != p.String() {
			t.Errorf("hidden %s: Redis %q, HotKV %q", p.Name(), w[p.Name()], p.String())
		}
	}

	// Immutable / protected flags: setting every parameter to its current
	// value gives the same reply on both sides.
	for name, v := range want {
		r := rc.do(t, "CONFIG", "SET", name, v)
		var wantErr string
		if e, ok := r.(redisErr); ok {
			wantErr = string(e)
		}
		if name == "bind" { // rebinding to HotKV's default is not tested here
			continue
		}
		var gotErr string
		if err := c.Set([][2]string{{name, got[name]}}); err != nil {
			gotErr = err.Error()
		}
		if gotErr != wantErr {
			t.Errorf("CONFIG SET %s %q: Redis %q, HotKV %q", name, v, wantErr, gotErr)
		}
	}
}

// TestOracleSet replays setErrorCases and setValueCases on redis-server.
func TestOracleSet(t *testing.T) {
	dir := tempDir(t)
	port := freePort(t)
	rc := startRedis(t, port, "--port", strconv.Itoa(port), "--dir", dir, "--save", "", "--bind", "127.0.0.1")
	for _, tc := range setErrorCases {
		args := []string{"CONFIG", "SET"}
		for _, kv := range tc.pairs {
			args = append(args, kv[0], kv[1])
		}
		r := rc.do(t, args...)
		if e, ok := r.(redisErr); !ok || string(e) != tc.want {
			t.Errorf("CONFIG SET %q: Redis says %v, table says %q", tc.pairs, r, tc.want)
		}
	}
	def := Default()
	for _, tc := range setValueCases {
		if tc.name == "bind" || (tc.name == "oom-score-adj-values" && strings.HasPrefix(tc.value, "-")) {
			continue // Redis would really rebind / lower its OOM score (needs privileges)
		}
		if r := rc.do(t, "CONFIG", "SET", tc.name, def.Lookup(tc.name).String()); r != "OK" {
			t.Fatalf("reset %s: %v", tc.name, r)
		}
		if r := rc.do(t, "CONFIG", "SET", tc.name, tc.value); r != "OK" {
			t.Errorf("CONFIG SET %s %q: Redis says %v", tc.name, tc.value, r)
			continue
		}
		if got := pairsOf(t, rc.do(t, "CONFIG", "GET", tc.name))[tc.name]; got != tc.want {
			t.Errorf("CONFIG SET %s %q; GET: Redis %q, table %q", tc.name, tc.value, got, tc.want)
		}
	}
	rc.do(t, "CONFIG", "SET", "requirepass", "")
}

// TestOracleFileErrors replays loadErrorCases with redis-server and compares
// the fatal error it prints.
func TestOracleFileErrors(t *testing.T) {
	bin := redisBin(t)
	dir := tempDir(t)
	for i, tc := range loadErrorCases {
		path := filepath.Join(dir, fmt.Sprintf("e%d.conf", i))
		os.WriteFile(path, []byte(tc.file), 0o644)
		args := append([]string{path}, tc.args...)
		if tc.args == nil {
			args = append(args, "--port", "0") // never listen if it starts after all
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Dir = dir
		out, _ := cmd.CombinedOutput()
		cancel()
		s := string(out)
		i := strings.Index(s, "*** FATAL CONFIG FILE ERROR (Redis ")
		if i < 0 {
			t.Errorf("%q %q: redis-server did not fail:\n%s", tc.file, tc.args, s)
			continue
		}
		s = strings.TrimSpace(s[i:])
		s = s[strings.Index(s, "\n")+1:]
		want := tc.reason
		if tc.line > 0 {
			want = fmt.Sprintf("Reading the configuration file, at line %d\n>>> '%s'\n%s", tc.line, tc.text, tc.reason)
		}
		if s != want {
			t.Errorf("%q %q:\nRedis:\n%s\ntable:\n%s", tc.file, tc.args, s, want)
		}
	}
}

// TestOracleRewrite runs the TestRewrite scenario on redis-server and
// compares the rewritten files. Lines appended by CONFIG REWRITE are compared
// as sets (Redis appends them in hash table order) and Redis's "user" lines
// (regenerated from its ACL, which HotKV's config package does not own) are
// ignored.
func TestOracleRewrite(t *testing.T) {
	dir := tempDir(t)
	port := freePort(t)
	os.WriteFile(filepath.Join(dir, "inc.conf"), []byte("loglevel warning\n"), 0o644)
	content := strings.Replace(rewriteScenarioFile(dir), "port 7791", "port "+strconv.Itoa(port), 1)
	redisPath := filepath.Join(dir, "redis.conf")
	ourPath := filepath.Join(dir, "hotkv.conf")
	os.WriteFile(redisPath, []byte(content), 0o644)
	os.WriteFile(ourPath, []byte(content), 0o644)

	rc := startRedis(t, port, redisPath)
	c, err := Load(ourPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{redisPath, ourPath} {
		f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString("weird \"unbalanced\nfoo bar\n")
		f.Close()
	}

	compare := func(step string) {
		t.Helper()
		want, _ := os.ReadFile(redisPath)
		got, _ := os.ReadFile(ourPath)
		wh, wt := splitRewrite(string(want))
		gh, gt := splitRewrite(string(got))
		var wt2 []string
		for _, l := range wt {
			if !strings.HasPrefix(l, "user ") {
				wt2 = append(wt2, l)
			}
		}
		if wh != gh || !reflect.DeepEqual(wt2, gt) {
			t.Errorf("%s: files differ\nRedis:\n%s\nHotKV:\n%s", step, want, got)
		}
	}

	args := []string{"CONFIG", "SET"}
	for _, kv := range rewriteScenarioSet1 {
		args = append(args, kv[0], kv[1])
	}
	if r := rc.do(t, args...); r != "OK" {
		t.Fatal(r)
	}
	if err := c.Set(rewriteScenarioSet1); err != nil {
		t.Fatal(err)
	}
	if r := rc.do(t, "CONFIG", "REWRITE"); r != "OK" {
		t.Fatal(r)
	}
	if err := c.Rewrite(); err != nil {
		t.Fatal(err)
	}
	compare("first rewrite")

	args = []string{"CONFIG", "SET"}
	for _, kv := range rewriteScenarioSet2 {
		args = append(args, kv[0], kv[1])
	}
	if r := rc.do(t, args...); r != "OK" {
		t.Fatal(r)
	}
	if err := c.Set(rewriteScenarioSet2); err != nil {
		t.Fatal(err)
	}
	rc.do(t, "CONFIG", "REWRITE")
	c.Rewrite()
	compare("second rewrite")

	// Reloading the files gives the same configuration on both sides.
	got := map[string]string{}
	for _, kv := range c.Get([]string{"*"}) {
		got[kv[0]] = kv[1]
	}
	want := pairsOf(t, rc.do(t, "CONFIG", "GET", "*"))
	var diff []string
	for k, v := range want {
		if got[k] != v {
			diff = append(diff, fmt.Sprintf("%s: Redis %q HotKV %q", k, v, got[k]))
		}
	}
	sort.Strings(diff)
	if len(diff) > 0 {
		t.Errorf("values differ after the scenario:\n%s", strings.Join(diff, "\n"))
	}
}

// TestOracleNumericFuzz sets random strings on numeric parameters of both
// sides and compares the replies and the resulting values.
func TestOracleNumericFuzz(t *testing.T) {
	dir := tempDir(t)
	port := freePort(t)
	rc := startRedis(t, port, "--port", strconv.Itoa(port), "--dir", dir, "--save", "", "--bind", "127.0.0.1")
	c, err := Load("", []string{"--port", strconv.Itoa(port), "--dir", dir, "--save", ""})
	if err != nil {
		t.Fatal(err)
	}
	rnd := newRand(7)
	const alpha = "0123456789-+kKmMgGbB% x.0"
	params := []string{"maxmemory", "maxmemory-clients", "hz", "list-max-listpack-size",
		"hash-max-listpack-value", "slowlog-log-slower-than", "repl-backlog-size",
		"active-defrag-ignore-bytes", "tcp-keepalive", "set-max-intset-entries", "proto-max-bulk-len"}
	fails := 0
	for i := 0; i < 1500 && fails < 20; i++ {
		name := params[rnd.Intn(len(params))]
		b := make([]byte, rnd.Intn(7))
		for j := range b {
			b[j] = alpha[rnd.Intn(len(alpha))]
		}
		if rnd.Intn(4) == 0 && len(b) > 0 { // bias towards valid numbers
			for j := range b {
				b[j] = "0123456789"[rnd.Intn(10)]
			}
		}
		val := string(b)
		var want string
		if e, ok := rc.do(t, "CONFIG", "SET", name, val).(redisErr); ok {
			want = string(e)
		}
		var got string
		if err := c.Set([][2]string{{name, val}}); err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("CONFIG SET %s %q: Redis %q, HotKV %q", name, val, want, got)
			fails++
			continue
		}
		wv := pairsOf(t, rc.do(t, "CONFIG", "GET", name))[name]
		if gv := c.Lookup(name).String(); gv != wv {
			t.Errorf("CONFIG SET %s %q then GET: Redis %q, HotKV %q", name, val, wv, gv)
			fails++
		}
	}
}

// TestOracleSplitArgs compares SplitArgs with Redis's sdssplitargs, which
// also splits inline commands: "RPUSH key <line>" stores the arguments.
func TestOracleSplitArgs(t *testing.T) {
	dir := tempDir(t)
	port := freePort(t)
	rc := startRedis(t, port, "--port", strconv.Itoa(port), "--dir", dir, "--save", "", "--bind", "127.0.0.1")
	reconnect := func() {
		rc.c.Close()
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatal(err)
		}
		rc.c, rc.r = c, bufio.NewReader(c)
	}
	rnd := newRand(3)
	const alpha = `ab "'\x41\\nt ` + "\t"
	fails := 0
	for i := 0; i < 600 && fails < 20; i++ {
		b := make([]byte, 1+rnd.Intn(10))
		for j := range b {
			b[j] = alpha[rnd.Intn(len(alpha))]
		}
		line := string(b)
		want, werr := SplitArgs(line)
		rc.do(t, "DEL", "k")
		rc.c.SetDeadline(time.Now().Add(10 * time.Second))
		fmt.Fprintf(rc.c, "RPUSH k %s\r\n", line)
		r, err := rc.read()
		if err != nil {
			t.Fatal(err)
		}
		if e, ok := r.(redisErr); ok {
			if strings.Contains(string(e), "unbalanced quotes") {
				if werr == nil {
					t.Errorf("SplitArgs(%q) = %q, Redis: %s", line, want, e)
					fails++
				}
				reconnect()
				continue
			}
			if strings.Contains(string(e), "wrong number of arguments") {
				if werr != nil || len(want) != 0 {
					t.Errorf("SplitArgs(%q) = %q %v, Redis: no argument", line, want, werr)
					fails++
				}
				continue
			}
			t.Fatalf("unexpected reply %s", e)
		}
		var got []string
		for _, x := range rc.do(t, "LRANGE", "k", "0", "-1").([]any) {
			got = append(got, x.(string))
		}
		if werr != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("SplitArgs(%q) = %q %v, Redis: %q", line, want, werr, got)
			fails++
		}
	}
}

func newRand(seed int64) *mrand.Rand { return mrand.New(mrand.NewSource(seed)) }

// TestOracleSpecialFuzz does the same for the special and enum parameters,
// with random token sequences.
func TestOracleSpecialFuzz(t *testing.T) {
	dir := tempDir(t)
	port := freePort(t)
	rc := startRedis(t, port, "--port", strconv.Itoa(port), "--dir", dir, "--save", "", "--bind", "127.0.0.1")
	c, err := Load("", []string{"--port", strconv.Itoa(port), "--dir", dir, "--save", ""})
	if err != nil {
		t.Fatal(err)
	}
	tokens := map[string][]string{
		"save":                              {"1", "0", "10", "-1", "x", "", "100", "2147483648", "99999999999999999999", "+5", " 7"},
		"client-output-buffer-limit":        {"normal", "replica", "slave", "pubsub", "master", "PUBSUB", "1", "0", "-1", "1mb", "2kb", "x", "", "60", "4294967296"},
		"latency-tracking-info-percentiles": {"50", "99.9", "100", "101", "-1", "abc", "1e1", "inf", "", "0.0000001", "1.23456789", "0x10", "nan", " 5"},
		"shutdown-on-sigint":                {"default", "save", "nosave", "now", "force", "x", "SAVE", ""},
		"maxmemory-policy":                  {"allkeys-lru", "ALLKEYS-LFU", "noeviction", "x", ""},
		"oom-score-adj":                     {"no", "yes", "relative", "absolute", "x"},
		"notify-keyspace-events":            {"A", "g", "K", "E", "$", "l", "s", "h", "z", "x", "e", "t", "d", "m", "n", "q", "", "KEA"},
		"proc-title-template":               {"{title}", "{port}", "{listen-addr}", "{server-mode}", "{{", "}", "{", "x", "{unixsocket}", "{tls-port}", "{config-file}", "{bad}", ""},
	}
	names := make([]string, 0, len(tokens))
	for n := range tokens {
		names = append(names, n)
	}
	sort.Strings(names)
	rnd := newRand(11)
	fails := 0
	for i := 0; i < 3000 && fails < 20; i++ {
		name := names[rnd.Intn(len(names))]
		toks := tokens[name]
		parts := make([]string, rnd.Intn(6))
		for j := range parts {
			parts[j] = toks[rnd.Intn(len(toks))]
		}
		sep := " "
		if name == "notify-keyspace-events" || name == "proc-title-template" {
			sep = ""
		}
		val := strings.Join(parts, sep)
		var want string
		if e, ok := rc.do(t, "CONFIG", "SET", name, val).(redisErr); ok {
			want = string(e)
		}
		var got string
		if err := c.Set([][2]string{{name, val}}); err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("CONFIG SET %s %q: Redis %q, HotKV %q", name, val, want, got)
			fails++
			continue
		}
		wv := pairsOf(t, rc.do(t, "CONFIG", "GET", name))[name]
		if gv := c.Lookup(name).String(); gv != wv {
			t.Errorf("CONFIG SET %s %q then GET: Redis %q, HotKV %q", name, val, wv, gv)
			fails++
		}
	}
}
