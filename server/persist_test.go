package server

import (
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// TestDebugReload: DEBUG RELOAD saves and loads the dataset back, types,
// values, expiries and functions intact.
func TestDebugReload(t *testing.T) {
	_, addr := startServer(t, "--enable-debug-command", "yes")
	c := difftest.Dial(t, addr)
	for _, cmd := range [][]string{
		{"SET", "s", "v", "EX", "100"}, {"RPUSH", "l", "a", "b"}, {"SADD", "set", "1", "x"},
		{"HSET", "h", "f", "v"}, {"ZADD", "z", "1.5", "m"}, {"SELECT", "2"}, {"SET", "in2", "x"}, {"SELECT", "0"},
		{"FUNCTION", "LOAD", "#!lua name=lib\nredis.register_function('f', function() return 1 end)"},
	} {
		c.Do(cmd...)
	}
	checks := [][]string{{"DBSIZE"}, {"GET", "s"}, {"LRANGE", "l", "0", "-1"}, {"SCARD", "set"}, {"HGETALL", "h"},
		{"ZSCORE", "z", "m"}, {"FCALL", "f", "0"}, {"SELECT", "2"}, {"GET", "in2"}, {"SELECT", "0"}}
	want := make([]string, len(checks))
	for i, cmd := range checks {
		want[i] = c.Do(cmd...)
	}
	expect(t, c, "+OK\r\n", "DEBUG", "RELOAD")
	for i, cmd := range checks {
		if got := c.Do(cmd...); got != want[i] {
			t.Errorf("after DEBUG RELOAD, %q: %q, want %q", cmd, got, want[i])
		}
	}
	if got := c.Do("TTL", "s"); !strings.HasPrefix(got, ":9") && got != ":100\r\n" {
		t.Errorf("TTL after DEBUG RELOAD: %q", got)
	}
}

// TestSaveCommands: SAVE and BGSAVE replies and refusals, against Redis.
func TestSaveCommands(t *testing.T) {
	p := newPair(t)
	p.Run(`
		BGSAVE now
		BGSAVE a b
		MULTI
		SAVE
		EXEC
	`)
	expect(t, p.HotKV, "+OK\r\n", "SAVE")
	p.DoBoth("LASTSAVE", func(_, hotkv string) {
		if !strings.HasPrefix(hotkv, ":1") {
			t.Errorf("LASTSAVE: %q", hotkv)
		}
	})
}

// TestSavePoints: a save point ("save 1 1") starts a background save
// once a change is a second old; FLUSHALL saves at once.
func TestSavePoints(t *testing.T) {
	_, addr := startServer(t, "--save", "1", "1")
	c := difftest.Dial(t, addr)
	c.Do("SET", "k", "v")
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(c.Do("INFO", "persistence"), "rdb_saves:1\r\n") {
		if time.Now().After(deadline) {
			t.Fatalf("no save after a change:\n%s", c.Do("INFO", "persistence"))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := c.Do("INFO", "persistence"); !strings.Contains(got, "rdb_changes_since_last_save:0\r\n") {
		t.Errorf("after the save:\n%s", got)
	}
	c.Do("FLUSHALL")
	if got := c.Do("INFO", "persistence"); !strings.Contains(got, "rdb_saves:2\r\n") {
		t.Errorf("FLUSHALL with save points did not save:\n%s", got)
	}
}

// TestBgsaveSchedule: BGSAVE SCHEDULE during an AOF rewrite runs the
// save once the rewrite is done; during a background save it is refused,
// as plain BGSAVE, as in Redis (rdb.c, bgsaveCommand).
func TestBgsaveSchedule(t *testing.T) {
	_, addr := startServer(t, "--enable-debug-command", "yes", "--rdb-key-save-delay", "100")
	c := difftest.Dial(t, addr)
	c.Do("DEBUG", "POPULATE", "2000")
	expect(t, c, "+Background append only file rewriting started\r\n", "BGREWRITEAOF")
	expect(t, c, "+Background saving scheduled\r\n", "BGSAVE", "SCHEDULE")
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(c.Do("INFO", "persistence"), "rdb_bgsave_in_progress:1\r\n"); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the scheduled save did not start:\n%s", c.Do("INFO", "persistence"))
		}
	}
	expect(t, c, "-ERR Background save already in progress\r\n", "BGSAVE", "SCHEDULE")
	expect(t, c, "-ERR Background save already in progress\r\n", "BGSAVE")
}
