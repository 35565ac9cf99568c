// Package difftest runs the same commands against a real redis-server and
// against HotKV and compares the raw replies byte for byte.
//
// Tests start redis-server themselves (StartRedis) on a free port with
// persistence off. When redis-server is not installed the tests are
// skipped with a loud message; `make test` and .ci/run install it.
package difftest

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/resp"
)

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort(tb testing.TB) int {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// ErrNoRedis reports that redis-server is not installed.
var ErrNoRedis = errors.New("redis-server is not installed (apt-get install -y redis-server)")

// Launch starts a redis-server on a free port with persistence off and
// returns its address and a function that stops it. extra are additional
// "--directive value" arguments.
func Launch(extra ...string) (addr string, stop func(), err error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return "", nil, ErrNoRedis
	}
	return launch(bin, nil, extra...)
}

// launch starts the redis-server at bin (with env added to the
// environment) on a free port with persistence off, in a temporary
// directory of its own, and returns its address and a function that
// stops it; extra are additional "--directive value" arguments. A server
// that does not start is reported with the end of its log.
func launch(bin string, env []string, extra ...string) (addr string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	dir, err := os.MkdirTemp("", "hotkv-redis-*")
	if err != nil {
		return "", nil, err
	}
	args := append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "no", "--dir", dir, "--daemonize", "no", "--logfile", filepath.Join(dir, "redis.log")}, extra...)
	cmd := exec.Command(bin, args...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	stop = func() {
		cmd.Process.Kill()
		cmd.Wait()
		os.RemoveAll(dir)
	}
	addr = fmt.Sprintf("127.0.0.1:%d", port)
	if err := WaitReady(addr, 10*time.Second); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "redis.log"))
		stop()
		return "", nil, fmt.Errorf("%s did not start: %w\n%s", bin, err, log)
	}
	return addr, stop, nil
}

// StartRedis is Launch for one test: it skips the test loudly when
// redis-server is missing and stops the server when the test ends.
func StartRedis(tb testing.TB, extra ...string) string {
	tb.Helper()
	addr, stop, err := Launch(extra...)
	if errors.Is(err, ErrNoRedis) {
		tb.Skip("SKIPPING differential test: " + err.Error())
	}
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(stop)
	return addr
}

// WaitReady waits until addr answers PING.
func WaitReady(addr string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Write([]byte("PING\r\n"))
			c.SetReadDeadline(time.Now().Add(time.Second))
			buf := make([]byte, 16)
			n, _ := c.Read(buf)
			c.Close()
			if strings.HasPrefix(string(buf[:n]), "+PONG") {
				return nil
			}
		}
		if time.Now().After(deadline) {
			if err == nil {
				err = errors.New("no PONG")
			}
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Conn is a raw RESP connection.
type Conn struct {
	tb testing.TB
	c  net.Conn
	r  *bufio.Reader
}

// Dial connects to addr.
func Dial(tb testing.TB, addr string) *Conn {
	tb.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return &Conn{tb: tb, c: c, r: bufio.NewReader(c)}
}

// DialUnix connects to the unix socket at path.
func DialUnix(tb testing.TB, path string) *Conn {
	tb.Helper()
	c, err := net.Dial("unix", path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return &Conn{tb: tb, c: c, r: bufio.NewReader(c)}
}

// DialTLS connects to addr over TLS with cfg.
func DialTLS(tb testing.TB, addr string, cfg *tls.Config) *Conn {
	tb.Helper()
	c, err := tls.Dial("tcp", addr, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return &Conn{tb: tb, c: c, r: bufio.NewReader(c)}
}

// Close closes the connection.
func (c *Conn) Close() error { return c.c.Close() }

// Addr returns the address the connection is connected to.
func (c *Conn) Addr() string { return c.c.RemoteAddr().String() }

// Encode returns args as a RESP multibulk request.
func Encode(args ...string) []byte {
	var b []byte
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(len(args)), 10)
	b = append(b, '\r', '\n')
	for _, a := range args {
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(a)), 10)
		b = append(b, '\r', '\n')
		b = append(b, a...)
		b = append(b, '\r', '\n')
	}
	return b
}

// Send writes raw bytes.
func (c *Conn) Send(raw []byte) {
	c.tb.Helper()
	if _, err := c.c.Write(raw); err != nil {
		c.tb.Fatal(err)
	}
}

// Do sends one command and returns its raw reply.
func (c *Conn) Do(args ...string) string {
	c.tb.Helper()
	c.Send(Encode(args...))
	return c.Read()
}

// Read reads one raw reply (with a 10 s deadline); "" and a test failure
// when none comes.
func (c *Conn) Read() string {
	c.tb.Helper()
	c.c.SetReadDeadline(time.Now().Add(10 * time.Second))
	r, err := ReadReply(c.r)
	if err != nil {
		c.tb.Fatalf("reading reply: %v", err)
	}
	return r
}

// ReadErr is Read returning the error instead of failing (EOF when the
// server closed the connection).
func (c *Conn) ReadErr(timeout time.Duration) (string, error) {
	c.c.SetReadDeadline(time.Now().Add(timeout))
	return ReadReply(c.r)
}

// ReadReply reads one complete RESP2/RESP3 value and returns its raw bytes.
func ReadReply(r *bufio.Reader) (string, error) {
	var out bytes.Buffer
	if err := readValue(r, &out); err != nil {
		return out.String(), err
	}
	return out.String(), nil
}

func readValue(r *bufio.Reader, out *bytes.Buffer) error {
	line, err := r.ReadString('\n')
	out.WriteString(line)
	if err != nil {
		return err
	}
	if len(line) < 3 {
		return fmt.Errorf("short line %q", line)
	}
	body := line[1 : len(line)-2]
	switch line[0] {
	case '+', '-', ':', '_', '#', ',', '(':
		return nil
	case '$', '=', '!':
		n, err := strconv.Atoi(body)
		if err != nil {
			return err
		}
		if n < 0 {
			return nil
		}
		buf := make([]byte, n+2)
		if _, err := ioReadFull(r, buf); err != nil {
			return err
		}
		out.Write(buf)
		return nil
	case '*', '~', '>', '%', '|':
		n, err := strconv.Atoi(body)
		if err != nil {
			return err
		}
		if line[0] == '%' || line[0] == '|' {
			n *= 2
		}
		for i := 0; i < n; i++ {
			if err := readValue(r, out); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("unknown reply type %q", line)
}

func ioReadFull(r *bufio.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// Pair sends every command to both servers and compares the replies.
type Pair struct {
	tb           testing.TB
	Redis, HotKV *Conn
}

// NewPair connects to both servers and flushes both.
func NewPair(tb testing.TB, redisAddr, hotkvAddr string) *Pair {
	p := &Pair{tb: tb, Redis: Dial(tb, redisAddr), HotKV: Dial(tb, hotkvAddr)}
	p.Do("FLUSHALL")
	return p
}

// PairOf compares the replies of two connections already open, without
// flushing.
func PairOf(tb testing.TB, redis, hotkv *Conn) *Pair {
	return &Pair{tb: tb, Redis: redis, HotKV: hotkv}
}

// Split splits a command line as redis-cli does (quotes and escapes).
func Split(line string) []string {
	args, _, ok := resp.SplitArgs(nil, nil, []byte(line))
	if !ok {
		panic("unbalanced quotes in test command: " + line)
	}
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = string(a)
	}
	return out
}

// Do runs the command line on both servers, fails the test when the raw
// replies differ, and returns the reply.
func (p *Pair) Do(line string) string {
	p.tb.Helper()
	return p.DoArgs(Split(line)...)
}

// DoArgs is Do with the arguments already split.
func (p *Pair) DoArgs(args ...string) string {
	p.tb.Helper()
	want := p.Redis.Do(args...)
	got := p.HotKV.Do(args...)
	if want != got {
		p.tb.Errorf("%s\n redis: %q\n hotkv: %q", quoteArgs(args), want, got)
	}
	return got
}

// Run runs each non-empty, non-comment line of script with Do.
func (p *Pair) Run(script string) {
	p.tb.Helper()
	for _, line := range strings.Split(script, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		p.Do(line)
	}
}

// DoUnordered is Do for replies whose array order is unspecified (KEYS,
// SMEMBERS): the top-level elements are compared as sorted lists.
func (p *Pair) DoUnordered(line string) {
	p.tb.Helper()
	args := Split(line)
	want := p.Redis.Do(args...)
	got := p.HotKV.Do(args...)
	if Normalize(want) != Normalize(got) {
		p.tb.Errorf("%s (unordered)\n redis: %q\n hotkv: %q", line, want, got)
	}
}

// DoBoth runs the command on both servers and hands both replies to check,
// for replies that legitimately differ (times, ids).
func (p *Pair) DoBoth(line string, check func(redis, hotkv string)) {
	p.tb.Helper()
	args := Split(line)
	check(p.Redis.Do(args...), p.HotKV.Do(args...))
}

// Normalize sorts the elements of a top-level array reply.
func Normalize(raw string) string {
	r := bufio.NewReader(strings.NewReader(raw))
	head, err := r.ReadString('\n')
	if err != nil || len(head) == 0 || !strings.ContainsRune("*~", rune(head[0])) {
		return raw
	}
	n, _ := strconv.Atoi(head[1 : len(head)-2])
	var elems []string
	for i := 0; i < n; i++ {
		e, err := ReadReply(r)
		if err != nil {
			return raw
		}
		elems = append(elems, e)
	}
	slices.Sort(elems)
	return head + strings.Join(elems, "")
}

func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = strconv.Quote(a)
	}
	return strings.Join(q, " ")
}
