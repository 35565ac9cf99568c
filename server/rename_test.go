package server

import (
	"testing"

	"github.com/hotkv/hotkv/internal/difftest"
)

// TestRenameCommandMatchesRedis: a command renamed or disabled with
// rename-command answers as in redis-server, through plain calls,
// transactions and scripts.
func TestRenameCommandMatchesRedis(t *testing.T) {
	args := []string{"--rename-command", "flushdb", "", "--rename-command", "GET", "fetch"}
	_, addr := startServer(t, args...)
	p := difftest.NewPair(t, difftest.StartRedis(t, args...), addr)
	p.Run(`
SET k v
FETCH k
GET k
FLUSHDB
fetch k
EVAL "return redis.call('fetch', KEYS[1])" 1 k
EVAL "return redis.pcall('get', KEYS[1])" 1 k
MULTI
FETCH k
GET k
EXEC
FLUSHALL
`)
}

// TestRenameCommandReplay: the append-only file replays with renamed
// commands, whichever name it holds them by (the client's, or the
// original name of a command the server generated).
func TestRenameCommandReplay(t *testing.T) {
	_, addr := startServer(t, "--appendonly", "yes", "--enable-debug-command", "yes",
		"--rename-command", "set", "put", "--rename-command", "del", "")
	c := difftest.Dial(t, addr)
	for _, cmd := range [][]string{{"PUT", "a", "1"}, {"PUT", "b", "2", "PX", "1"}, {"INCR", "n"}} {
		if r := c.Do(cmd...); r[0] == '-' {
			t.Fatalf("%v: %q", cmd, r)
		}
	}
	waitFor(t, func() bool { return c.Do("EXISTS", "b") == ":0\r\n" }) // expired: DEL in the file
	if r := c.Do("DEBUG", "LOADAOF"); r != "+OK\r\n" {
		t.Fatalf("DEBUG LOADAOF: %q", r)
	}
	if r := c.Do("MGET", "a", "b", "n"); r != "*3\r\n$1\r\n1\r\n$-1\r\n$1\r\n1\r\n" {
		t.Errorf("after replay: %q", r)
	}
}
