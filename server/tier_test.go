package server

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/config"
	"github.com/hotkv/hotkv/internal/difftest"
)

// tierInfo returns an INFO tiering field as a number.
func tierInfo(t *testing.T, c *difftest.Conn, field string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(bhvField(c.Do("INFO", "tiering"), field), 10, 64)
	if err != nil {
		t.Fatalf("INFO tiering %s: %v", field, err)
	}
	return n
}

// startTiered starts a server with the disk tier on, a one-byte budget
// and eager demotion: every value a command touched is cold after it.
func startTiered(t *testing.T, args ...string) (*Server, *difftest.Conn) {
	t.Helper()
	port := difftest.FreePort(t)
	cfg, err := config.Load("", append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--dir", t.TempDir(), "--save", "", "--tiering", "yes", "--tiering-memory", "1", "--enable-debug-command", "yes"}, args...))
	if err != nil {
		t.Fatal(err)
	}
	s, addr := serveConfigWith(t, cfg, func(s *Server) { s.setEagerTiering(true) })
	return s, difftest.Dial(t, addr)
}

// fill writes one key of each kind, with values big enough to be held
// outside their entries.
func fill(c *difftest.Conn) {
	big := strings.Repeat("x", 300)
	c.Do("SET", "s", big)
	c.Do("SET", "small", "v")
	c.Do("RPUSH", "l", "a", "b", big)
	c.Do("HSET", "h", "f", big, "g", "1")
	c.Do("SADD", "set", "1", "2", "3")
	c.Do("ZADD", "z", "1", "a", "2", big)
	c.Do("XADD", "x", "1-1", "f", big)
}

var fillReads = [][]string{
	{"GET", "s"}, {"GET", "small"}, {"LRANGE", "l", "0", "-1"}, {"HGETALL", "h"},
	{"SMEMBERS", "set"}, {"ZRANGE", "z", "0", "-1", "WITHSCORES"}, {"XRANGE", "x", "-", "+"},
}

func TestTieringValuesRoundTrip(t *testing.T) {
	s, c := startTiered(t)
	fill(c)
	want := make([]string, len(fillReads))
	for i, r := range fillReads {
		want[i] = c.Do(r...)
	}
	if n := tierInfo(t, c, "tiering_values_on_disk"); n != 7 {
		t.Fatalf("values on disk %d, want 7", n)
	}
	c.Do("DEBUG", "SLEEP", "0") // so that the reads below find cold values
	before := tierInfo(t, c, "tiering_loads_under_lock")
	for i, r := range fillReads {
		if got := c.Do(r...); got != want[i] {
			t.Fatalf("%v after a round trip: %q, want %q", r, got, want[i])
		}
	}
	if after := tierInfo(t, c, "tiering_loads_under_lock"); after-before != int64(len(fillReads)) {
		t.Fatalf("loads under lock %d, want %d", after-before, len(fillReads))
	}
	if tierInfo(t, c, "tiering_demotions") == 0 || !strings.Contains(c.Do("INFO", "keylocks"), "keylock_disk_reads:") {
		t.Fatal("INFO does not count")
	}
	_ = s
}

// Key-only commands never read the disk, and moving values changes no
// access time.
func TestTieringKeyCommandsReadNothing(t *testing.T) {
	_, c := startTiered(t)
	fill(c)
	c.Do("DEBUG", "SET-ACTIVE-EXPIRE", "0")
	loads := tierInfo(t, c, "tiering_loads")
	for _, cmd := range [][]string{
		{"EXISTS", "s", "l", "h"}, {"TYPE", "z"}, {"TTL", "s"}, {"PTTL", "l"}, {"EXPIRE", "h", "100"},
		{"PERSIST", "h"}, {"RENAME", "s", "s2"}, {"RENAMENX", "l", "l2"}, {"MOVE", "set", "1"},
		{"SET", "z", "overwritten"}, {"DEL", "x"}, {"UNLINK", "s2"}, {"DBSIZE"}, {"KEYS", "*"},
		{"SCAN", "0"}, {"RANDOMKEY"}, {"TOUCH", "h"}, {"SET", "h", "v", "XX"}, {"SETNX", "l2", "v"},
	} {
		c.Do(cmd...)
		if n := tierInfo(t, c, "tiering_loads"); n != loads {
			t.Fatalf("%v read the disk", cmd)
		}
	}
	if got := c.Do("LRANGE", "l2", "0", "-1"); !strings.Contains(got, "xxx") {
		t.Fatalf("renamed list reads %q", got)
	}
	c.Do("SELECT", "1")
	if got := c.Do("SCARD", "set"); got != ":3\r\n" {
		t.Fatalf("moved set: %q", got)
	}
}

func TestTieringIdleTimeUnchanged(t *testing.T) {
	_, c := startTiered(t)
	c.Do("SET", "k", strings.Repeat("v", 300))
	c.Do("DEBUG", "OBJECT", "k") // no touch
	c.Do("RESTORE", "r", "0", payloadOf(t, c, "k"), "IDLETIME", "1000")
	if got := c.Do("OBJECT", "IDLETIME", "r"); got != ":1000\r\n" {
		t.Fatalf("OBJECT IDLETIME of a value moved to disk and back: %q", got)
	}
}

// payloadOf is key's DUMP payload.
func payloadOf(t *testing.T, c *difftest.Conn, key string) string {
	t.Helper()
	r := c.Do("DUMP", key)
	i := strings.Index(r, "\r\n")
	return r[i+2 : len(r)-2]
}

// Snapshots copy cold values from the tier: SAVE (live) and BGSAVE
// (copy-on-write, through a view), each reloaded.
func TestTieringSnapshots(t *testing.T) {
	for _, save := range []string{"SAVE", "BGSAVE", "BGREWRITEAOF"} {
		t.Run(save, func(t *testing.T) {
			args := []string{}
			if save == "BGREWRITEAOF" {
				args = []string{"--appendonly", "yes"}
			}
			_, c := startTiered(t, args...)
			fill(c)
			want := make([]string, len(fillReads))
			for i, r := range fillReads {
				want[i] = c.Do(r...)
			}
			loads := tierInfo(t, c, "tiering_loads")
			if got := c.Do(save); strings.HasPrefix(got, "-") {
				t.Fatal(got)
			}
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				info := c.Do("INFO", "persistence")
				if bhvField(info, "rdb_bgsave_in_progress") == "0" && bhvField(info, "aof_rewrite_in_progress") == "0" {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the save does not end")
				}
			}
			if n := tierInfo(t, c, "tiering_loads"); n != loads {
				t.Fatalf("%s loaded %d values", save, n-loads)
			}
			if got := c.Do("DEBUG", "RELOAD"); got != "+OK\r\n" {
				t.Fatal(got)
			}
			for i, r := range fillReads {
				if got := c.Do(r...); got != want[i] {
					t.Fatalf("%v after %s and a reload: %q, want %q", r, save, got, want[i])
				}
			}
		})
	}
}

func TestTieringDirectives(t *testing.T) {
	_, c := startTiered(t)
	if got := c.Do("CONFIG", "SET", "tiering", "no"); !strings.Contains(got, "immutable") {
		t.Fatalf("CONFIG SET tiering: %q", got)
	}
	if got := c.Do("CONFIG", "SET", "tiering-memory", "10mb"); got != "+OK\r\n" {
		t.Fatalf("CONFIG SET tiering-memory: %q", got)
	}
	if got := c.Do("CONFIG", "GET", "tiering-memory"); !strings.Contains(got, "10485760") {
		t.Fatalf("CONFIG GET tiering-memory: %q", got)
	}
	if n := tierInfo(t, c, "tiering_memory_budget"); n != 10<<20 {
		t.Fatalf("budget %d", n)
	}
}

// An unusable tiering-dir refuses start-up with a message naming it.
func TestTieringDirRefusesStartup(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "afile")
	os.WriteFile(file, []byte("x"), 0o644)
	for _, td := range []string{file, dir} { // a file; a directory with other data
		cfg, err := config.Load("", []string{"--dir", dir, "--tiering", "yes", "--tiering-dir", td})
		if err != nil {
			t.Fatal(err)
		}
		s := New(cfg)
		err = s.CheckStartup()
		if err == nil || !strings.Contains(err.Error(), "tiering directory "+td) {
			t.Fatalf("CheckStartup with tiering-dir %s: %v", td, err)
		}
		if s.LoadData() == nil {
			t.Fatal("LoadData with an unusable tier")
		}
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatal("the tier removed a file it does not own")
	}
}
