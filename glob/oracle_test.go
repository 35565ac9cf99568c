package glob

import (
	"bufio"
	"fmt"
	"io"
	"math/rand"
	"net"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// redisConn is a minimal RESP2 client, enough to drive the oracle.
type redisConn struct {
	c net.Conn
	r *bufio.Reader
}

func (rc *redisConn) do(args ...string) (any, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := rc.c.Write([]byte(b.String())); err != nil {
		return nil, err
	}
	return rc.read()
}

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
		return fmt.Errorf("%s", line[1:]), nil
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

// startRedis starts a throw-away redis-server, or skips the test loudly.
func startRedis(t *testing.T) *redisConn {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("SKIPPING ORACLE TEST: redis-server not found on PATH")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skip("SKIPPING ORACLE TEST: cannot find a free port:", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	dir := t.TempDir()
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", dir, "--logfile", filepath.Join(dir, "log"))
	if err := cmd.Start(); err != nil {
		t.Skip("SKIPPING ORACLE TEST: cannot start redis-server:", err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	var c net.Conn
	for i := 0; i < 100; i++ {
		c, err = net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("cannot connect to redis-server: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return &redisConn{c: c, r: bufio.NewReader(c)}
}

// keysMatching asks Redis which of the stored keys match pattern, using KEYS
// (which calls stringmatchlen with nocase=0). KEYS special-cases the pattern
// "*", so callers must not pass it.
func keysMatching(t *testing.T, rc *redisConn, pattern string) map[string]bool {
	t.Helper()
	v, err := rc.do("KEYS", pattern)
	if err != nil {
		t.Fatal(err)
	}
	arr, ok := v.([]any)
	if !ok {
		t.Fatalf("KEYS %q: unexpected reply %v", pattern, v)
	}
	out := map[string]bool{}
	for _, k := range arr {
		out[k.(string)] = true
	}
	return out
}

// TestMatchAgainstRedis compares Match with the real stringmatchlen, through
// KEYS, on the table cases and on random patterns over a tricky alphabet.
func TestMatchAgainstRedis(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIPPING ORACLE TEST in -short mode")
	}
	rc := startRedis(t)

	// Table cases (case-sensitive ones only: KEYS is case-sensitive).
	for _, c := range matchCases {
		if c.nocase || c.pattern == "*" {
			continue
		}
		rc.do("FLUSHALL")
		rc.do("SET", c.s, "1")
		got := keysMatching(t, rc, c.pattern)[c.s]
		if got != c.want {
			t.Errorf("table case (%q, %q): table says %v, Redis says %v", c.pattern, c.s, c.want, got)
		}
	}

	// Random differential testing.
	rnd := rand.New(rand.NewSource(1))
	const alpha = "ab*?[]^-\\"
	const salpha = "ab-]^\\*?["
	randStr := func(a string, max int) string {
		n := rnd.Intn(max + 1)
		b := make([]byte, n)
		for i := range b {
			b[i] = a[rnd.Intn(len(a))]
		}
		return string(b)
	}
	rc.do("FLUSHALL")
	subjects := map[string]bool{}
	for len(subjects) < 300 {
		s := randStr(salpha, 6)
		if !subjects[s] {
			subjects[s] = true
			rc.do("SET", s, "1")
		}
	}
	keys := make([]string, 0, len(subjects))
	for s := range subjects {
		keys = append(keys, s)
	}
	sort.Strings(keys)
	mismatches := 0
	for i := 0; i < 1500 && mismatches < 20; i++ {
		p := randStr(alpha, 7)
		if p == "*" {
			continue
		}
		want := keysMatching(t, rc, p)
		for _, s := range keys {
			if got := MatchString(p, s, false); got != want[s] {
				t.Errorf("Match(%q, %q) = %v, Redis says %v", p, s, got, want[s])
				mismatches++
			}
		}
	}

	// nocase: COMMAND LIST FILTERBY PATTERN matches command names with
	// stringmatchlen(..., nocase=1).
	v, _ := rc.do("COMMAND", "LIST")
	var cmds []string
	for _, x := range v.([]any) {
		cmds = append(cmds, x.(string))
	}
	const calpha = "SsEeTtGg*?[]^-\\x"
	for i := 0; i < 300 && mismatches < 20; i++ {
		p := randStr(calpha, 5)
		v, _ := rc.do("COMMAND", "LIST", "FILTERBY", "PATTERN", p)
		want := map[string]bool{}
		for _, x := range v.([]any) {
			want[x.(string)] = true
		}
		for _, s := range cmds {
			if got := MatchString(p, s, true); got != want[s] {
				t.Errorf("Match(%q, %q, nocase) = %v, Redis says %v", p, s, got, want[s])
				mismatches++
			}
		}
	}
}
