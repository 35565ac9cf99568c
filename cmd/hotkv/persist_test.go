package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// hotkvProc is the real binary running for a test.
type hotkvProc struct {
	cmd  *exec.Cmd
	addr string
	out  *strings.Builder
}

func startHotKV(t *testing.T, bin string, args ...string) *hotkvProc {
	t.Helper()
	port := difftest.FreePort(t)
	p := &hotkvProc{addr: "127.0.0.1:" + strconv.Itoa(port), out: &strings.Builder{}}
	p.cmd = exec.Command(bin, append([]string{"--port", strconv.Itoa(port)}, args...)...)
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out // the log (stdout) and startup errors
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.cmd.Process.Kill(); p.cmd.Wait() })
	if err := difftest.WaitReady(p.addr, 10*time.Second); err != nil {
		t.Fatalf("hotkv did not start: %v\n%s", err, p.out)
	}
	return p
}

// wait waits for the process to exit and returns its error.
func (p *hotkvProc) wait(t *testing.T) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("hotkv did not exit")
		return nil
	}
}

// snapshotData writes keys of every type, in two databases, with an
// expiry and a function library.
var snapshotData = [][]string{
	{"SET", "s", "hello"},
	{"SET", "n", "12345"},
	{"SET", "ttl", "v", "EX", "1000"},
	{"RPUSH", "l", "a", "b", "1"},
	{"SADD", "si", "1", "2", "3"},
	{"SADD", "ss", "x", "y"},
	{"HSET", "h", "f", "v", "g", "w"},
	{"ZADD", "z", "1", "a", "2.5", "b"},
	{"SELECT", "3"},
	{"SET", "in3", "three"},
	{"SELECT", "0"},
	{"FUNCTION", "LOAD", "#!lua name=lib\nredis.register_function('f', function() return 'from lib' end)"},
}

// snapshotChecks read the data back; the replies must be the same on the
// server that wrote the snapshot and the one that loaded it.
var snapshotChecks = [][]string{
	{"DBSIZE"}, {"GET", "s"}, {"GET", "n"}, {"OBJECT", "ENCODING", "n"}, {"GET", "ttl"},
	{"LRANGE", "l", "0", "-1"}, {"SMEMBERS", "si"}, {"SISMEMBER", "ss", "x"}, {"SCARD", "ss"},
	{"HGET", "h", "g"}, {"HLEN", "h"}, {"ZRANGE", "z", "0", "-1", "WITHSCORES"},
	{"FCALL", "f", "0"}, {"SELECT", "3"}, {"DBSIZE"}, {"GET", "in3"}, {"SELECT", "0"},
}

func checkTTL(t *testing.T, c *difftest.Conn) {
	t.Helper()
	if got := c.Do("TTL", "ttl"); !strings.HasPrefix(got, ":99") && got != ":1000\r\n" {
		t.Errorf("TTL after loading: %q", got)
	}
}

// TestSnapshotRestart: SAVE, then a restart (after SIGKILL) loads the
// snapshot; SHUTDOWN and SIGTERM save when save points are set.
func TestSnapshotRestart(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	p := startHotKV(t, bin, "--dir", dir, "--save", "")
	c := difftest.Dial(t, p.addr)
	for _, cmd := range snapshotData {
		c.Do(cmd...)
	}
	want := make([]string, len(snapshotChecks))
	for i, cmd := range snapshotChecks {
		want[i] = c.Do(cmd...)
	}
	if got := c.Do("SAVE"); got != "+OK\r\n" {
		t.Fatalf("SAVE: %q", got)
	}
	if got := c.Do("INFO", "persistence"); !strings.Contains(got, "rdb_saves:1\r\n") || !strings.Contains(got, "rdb_last_bgsave_status:ok\r\n") {
		t.Errorf("INFO persistence after SAVE:\n%s", got)
	}
	c.Do("SET", "unsaved", "x")
	p.cmd.Process.Signal(syscall.SIGKILL)
	p.wait(t)

	p = startHotKV(t, bin, "--dir", dir, "--save", "")
	c = difftest.Dial(t, p.addr)
	for i, cmd := range snapshotChecks {
		if got := c.Do(cmd...); got != want[i] {
			t.Errorf("after restart, %q: %q, want %q", cmd, got, want[i])
		}
	}
	checkTTL(t, c)
	if got := c.Do("EXISTS", "unsaved"); got != ":0\r\n" {
		t.Errorf("a write after SAVE survived SIGKILL: %q", got)
	}
	if got := c.Do("INFO", "persistence"); !strings.Contains(got, "rdb_last_load_keys_loaded:9\r\n") {
		t.Errorf("INFO persistence after loading:\n%s", got)
	}

	// BGSAVE, then SHUTDOWN with the default save points saves too.
	c.Do("SET", "later", "1")
	if got := c.Do("BGSAVE"); got != "+Background saving started\r\n" {
		t.Errorf("BGSAVE: %q", got)
	}
	c.Do("SET", "last", "2")
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(c.Do("INFO", "persistence"), "rdb_bgsave_in_progress:0\r\n"); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("BGSAVE did not finish")
		}
	}
	if got := c.Do("INFO", "persistence"); !strings.Contains(got, "rdb_saves:1\r\n") {
		t.Errorf("INFO persistence after BGSAVE:\n%s", got)
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	if err := p.wait(t); err != nil {
		t.Fatal(err)
	}
	// This server had no save points: SIGTERM did not save "last".
	p = startHotKV(t, bin, "--dir", dir)
	c = difftest.Dial(t, p.addr)
	if got := c.Do("MGET", "later", "last"); got != "*2\r\n$1\r\n1\r\n$-1\r\n" {
		t.Errorf("after BGSAVE and SIGTERM without save points: %q", got)
	}
	c.Do("SET", "last", "3")
	c.Send(difftest.Encode("SHUTDOWN"))
	if err := p.wait(t); err != nil {
		t.Fatal(err)
	}
	p = startHotKV(t, bin, "--dir", dir)
	c = difftest.Dial(t, p.addr)
	if got := c.Do("GET", "last"); got != "$1\r\n3\r\n" {
		t.Errorf("SHUTDOWN with save points did not save: %q", got)
	}
	c.Do("SET", "last", "4")
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.wait(t)
	p = startHotKV(t, bin, "--dir", dir)
	if got := difftest.Dial(t, p.addr).Do("GET", "last"); got != "$1\r\n4\r\n" {
		t.Errorf("SIGTERM with save points did not save: %q", got)
	}
}

// TestSnapshotInterop: a dump.rdb written by redis-server loads into
// HotKV, and one written by HotKV into redis-server.
func TestSnapshotInterop(t *testing.T) {
	bin := buildBinary(t)
	redisDir := t.TempDir()
	raddr := difftest.StartRedis(t, "--dir", redisDir)
	r := difftest.Dial(t, raddr)
	for _, cmd := range snapshotData {
		r.Do(cmd...)
	}
	if got := r.Do("SAVE"); got != "+OK\r\n" {
		t.Fatalf("redis SAVE: %q", got)
	}
	p := startHotKV(t, bin, "--dir", redisDir, "--save", "")
	h := difftest.Dial(t, p.addr)
	for _, cmd := range snapshotChecks {
		if want, got := r.Do(cmd...), h.Do(cmd...); got != want {
			t.Errorf("HotKV loading Redis's dump, %q: %q, want %q", cmd, got, want)
		}
	}
	checkTTL(t, h)

	hotkvDir := t.TempDir()
	p = startHotKV(t, bin, "--dir", hotkvDir, "--save", "")
	h = difftest.Dial(t, p.addr)
	for _, cmd := range snapshotData {
		h.Do(cmd...)
	}
	if got := h.Do("SAVE"); got != "+OK\r\n" {
		t.Fatalf("hotkv SAVE: %q", got)
	}
	raddr2 := difftest.StartRedis(t, "--dir", hotkvDir)
	r2 := difftest.Dial(t, raddr2)
	for _, cmd := range snapshotChecks {
		if want, got := h.Do(cmd...), r2.Do(cmd...); got != want {
			t.Errorf("Redis loading HotKV's dump, %q: %q, want %q", cmd, got, want)
		}
	}
	checkTTL(t, r2)
}

// TestSnapshotCorrupt: a damaged dump.rdb stops start-up with Redis's
// report, naming the file and the offset.
func TestSnapshotCorrupt(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	p := startHotKV(t, bin, "--dir", dir, "--save", "")
	c := difftest.Dial(t, p.addr)
	c.Do("SET", "k", strings.Repeat("v", 100))
	c.Do("SAVE")
	p.cmd.Process.Signal(syscall.SIGKILL)
	p.wait(t)
	path := filepath.Join(dir, "dump.rdb")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0xff
	os.WriteFile(path, data, 0o644)
	cmd := exec.Command(bin, "--port", strconv.Itoa(difftest.FreePort(t)), "--dir", dir)
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("started with a corrupt dump.rdb:\n%s", out)
	}
	// As Redis: its log lines, then redis-check-rdb's report, which
	// names the file (as dbfilename has it) and the offset.
	if !strings.Contains(string(out), "Checking RDB file dump.rdb") || !strings.Contains(string(out), "[offset ") {
		t.Errorf("the error does not name the file and offset:\n%s", out)
	}
}
