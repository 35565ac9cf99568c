package server

import (
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// TestMigrateLikeRedis: MIGRATE from redis-server and from HotKV, each to
// its own database of one target redis-server, step by step: the same
// replies (+NOKEY, target errors, IOERR, argument errors), the same keys
// left on each side, the same values and expiries on the target.
func TestMigrateLikeRedis(t *testing.T) {
	p := newPair(t)
	target := difftest.StartRedis(t)
	host, port, _ := net.SplitHostPort(target)
	closed := strconv.Itoa(difftest.FreePort(t)) // nothing listens there
	tc := difftest.Dial(t, target)
	steps := func(db string) [][]string {
		return [][]string{
			{"SET", "k", "v"}, {"RPUSH", "l", "a", "b", "c"}, {"SET", "t", "v", "PX", "100000"},
			{"MIGRATE", host, port, "k", db, "1000"},
			{"EXISTS", "k"},
			{"MIGRATE", host, port, "nokey", db, "1000"},
			{"MIGRATE", host, port, "", db, "1000", "KEYS", "l", "t", "nokey"},
			{"EXISTS", "l", "t"},
			{"SET", "k", "v2"},
			{"MIGRATE", host, port, "k", db, "1000"}, // BUSYKEY on the target
			{"EXISTS", "k"},
			{"MIGRATE", host, port, "k", db, "1000", "COPY", "REPLACE"},
			{"EXISTS", "k"},
			{"MIGRATE", host, port, "k", db, "1000", "AUTH", "secret"}, // no password there
			{"MIGRATE", host, port, "k", db, "1000", "KEYS", "a"},
			{"MIGRATE", host, port, "k", db, "1000", "FOO"},
			{"MIGRATE", host, port, "k", db, "1000", "AUTH"},
			{"MIGRATE", host, port, "k", "x", "1000"},
			{"MIGRATE", host, port, "k", db, "1.5"},
			{"MIGRATE", "127.0.0.1", closed, "k", db, "200"},
			{"MIGRATE", host, port, "k", db},
		}
	}
	redisSteps, hotkvSteps := steps("1"), steps("2")
	p.Redis.Do("FLUSHALL")
	p.HotKV.Do("FLUSHALL")
	tc.Do("FLUSHALL")
	for i := range redisSteps {
		want, got := p.Redis.Do(redisSteps[i]...), p.HotKV.Do(hotkvSteps[i]...)
		if got != want {
			t.Errorf("%v: HotKV %q, Redis %q", hotkvSteps[i], got, want)
		}
	}
	// What arrived, in Redis's database 1 and HotKV's 2.
	for _, key := range []string{"k", "l", "t"} {
		tc.Do("SELECT", "1")
		want, wttl := tc.Do("DUMP", key), tc.Do("PTTL", key)
		tc.Do("SELECT", "2")
		got, gttl := tc.Do("DUMP", key), tc.Do("PTTL", key)
		if got != want {
			t.Errorf("target's %s: from HotKV %q, from Redis %q", key, got, want)
		}
		if (strings.HasPrefix(wttl, ":-") || strings.HasPrefix(gttl, ":-")) && wttl != gttl {
			t.Errorf("target's %s expiry: from HotKV %s, from Redis %s", key, gttl, wttl)
		}
	}
	p.Redis.Do("FLUSHALL")
	p.HotKV.Do("FLUSHALL")
}

// TestMigrateBetweenHotKVs: keys of every kind move from one HotKV to
// another with their values and expiries, and leave the source.
func TestMigrateBetweenHotKVs(t *testing.T) {
	_, src := startServer(t)
	_, dst := startServer(t)
	s, d := difftest.Dial(t, src), difftest.Dial(t, dst)
	host, port, _ := net.SplitHostPort(dst)
	for _, cmd := range [][]string{
		{"SET", "str", "v", "EX", "100"}, {"RPUSH", "list", "a", "b"}, {"HSET", "hash", "f", "v"},
		{"SADD", "set", "1", "2", "x"}, {"ZADD", "zset", "1", "a", "2", "b"}, {"XADD", "stream", "1-1", "f", "v"},
		{"PFADD", "hll", "a", "b"},
	} {
		s.Do(cmd...)
	}
	keys := []string{"str", "list", "hash", "set", "zset", "stream", "hll"}
	dumps := map[string]string{}
	for _, k := range keys {
		dumps[k] = s.Do("DUMP", k)
	}
	if got := s.Do(append([]string{"MIGRATE", host, port, "", "0", "1000", "KEYS"}, keys...)...); got != "+OK\r\n" {
		t.Fatalf("MIGRATE: %q", got)
	}
	for _, k := range keys {
		if got := s.Do("EXISTS", k); got != ":0\r\n" {
			t.Errorf("%s still on the source", k)
		}
		if got := d.Do("DUMP", k); got != dumps[k] {
			t.Errorf("%s on the target: %q, was %q", k, got, dumps[k])
		}
	}
	if got := d.Do("TTL", "str"); got != ":100\r\n" && got != ":99\r\n" {
		t.Errorf("TTL of the migrated key: %q", got)
	}
}

// TestMigrateCachesConnections: MIGRATE keeps its connection to a target
// (INFO's migrate_cached_sockets), reuses it, transparently replaces one
// the target closed, and closes it once idle for 10 seconds.
func TestMigrateCachesConnections(t *testing.T) {
	s, src := startServer(t)
	_, dst := startServer(t)
	c, d := difftest.Dial(t, src), difftest.Dial(t, dst)
	host, port, _ := net.SplitHostPort(dst)
	cached := func() string {
		_, f := srvInfo(t, c.Do("INFO", "stats"))
		return f["migrate_cached_sockets"]
	}
	accepted := func() string {
		_, f := srvInfo(t, d.Do("INFO", "stats"))
		return f["total_connections_received"]
	}
	if got := cached(); got != "0" {
		t.Fatalf("before MIGRATE: %s", got)
	}
	migrate := func(key string) {
		t.Helper()
		c.Do("SET", key, "v")
		if got := c.Do("MIGRATE", host, port, key, "3", "1000"); got != "+OK\r\n" {
			t.Fatalf("MIGRATE %s: %q", key, got)
		}
	}
	migrate("a")
	before := accepted()
	migrate("b")
	if got := cached(); got != "1" {
		t.Errorf("after two MIGRATEs: %s cached connections", got)
	}
	if after := accepted(); after != before {
		t.Errorf("the second MIGRATE connected again (%s -> %s connections)", before, after)
	}
	// The target drops it: the next MIGRATE connects again, unseen.
	d.Do("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes")
	migrate("c")
	d.Do("SELECT", "3")
	if got := d.Do("EXISTS", "a", "b", "c"); got != ":3\r\n" {
		t.Errorf("keys on the target: %q", got)
	}
	s.migrates.expire(time.Now().Add(migrateCacheTTL + time.Second))
	if got := cached(); got != "0" {
		t.Errorf("after 10 idle seconds: %s cached connections", got)
	}
}
