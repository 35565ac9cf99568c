package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/difftest"
)

// dumpFixtures creates, with the same commands on both servers, a key of
// every type in each of its encodings.
var dumpFixtures = []string{
	"SET s:int 12345",
	"SET s:short hello",
	"SET s:long " + strings.Repeat("abcdefghij", 10),
	"SET s:empty ''",
	"RPUSH l:small a b c 1 2 -3 " + strings.Repeat("x", 70),
	"SADD set:int 1 2 3 -4 100000",
	"SADD set:str a b c",
	"HSET h:small f1 v1 f2 2 f3 ''",
	"HSET h:big " + strings.Repeat("k v ", 0) + "long " + strings.Repeat("y", 100),
	"ZADD z:small 1 a 2.5 b -3 c inf d",
	"ZADD z:big 1 " + strings.Repeat("m", 100) + " 2 n",
}

func init() {
	// Big collections: past every listpack/intset threshold.
	var l, si, ss, h, z strings.Builder
	for i := 0; i < 600; i++ {
		fmt.Fprintf(&l, " e%d", i)
		fmt.Fprintf(&si, " %d", i*7)
		fmt.Fprintf(&ss, " m%d", i)
		fmt.Fprintf(&h, " f%d v%d", i, i)
		fmt.Fprintf(&z, " %d z%d", i%17, i)
	}
	dumpFixtures = append(dumpFixtures,
		"RPUSH l:big"+l.String(),
		"SADD set:bigint"+si.String(),
		"SADD set:bigstr"+ss.String(),
		"HSET h:many"+h.String(),
		"ZADD z:many"+z.String(),
	)
}

// dumpReaders read a key back by type, for comparing restored values.
func dumpRead(p *difftest.Pair, c *difftest.Conn, key string) string {
	typ := c.Do("TYPE", key)
	var args []string
	switch typ {
	case "+string\r\n":
		args = []string{"GET", key}
	case "+list\r\n":
		args = []string{"LRANGE", key, "0", "-1"}
	case "+set\r\n":
		return difftest.Normalize(c.Do("SMEMBERS", key))
	case "+hash\r\n":
		return difftest.Normalize(c.Do("HGETALL", key))
	case "+zset\r\n":
		args = []string{"ZRANGE", key, "0", "-1", "WITHSCORES"}
	default:
		return typ
	}
	return typ + c.Do(args...)
}

// TestDumpRestoreDifferential: a DUMP from redis-server restores into
// HotKV and the reverse, for every type and encoding; the restored values
// and their encodings match.
func TestDumpRestoreDifferential(t *testing.T) {
	p := newPair(t)
	for _, f := range dumpFixtures {
		p.Do(f)
	}
	keys := []string{}
	for _, f := range dumpFixtures {
		keys = append(keys, difftest.Split(f)[1])
	}
	for _, k := range keys {
		p.Do("OBJECT ENCODING " + k)
		fromRedis := p.Redis.Do("DUMP", k)
		fromHotKV := p.HotKV.Do("DUMP", k)
		if !strings.HasPrefix(fromRedis, "$") || !strings.HasPrefix(fromHotKV, "$") {
			t.Fatalf("DUMP %s: redis %q, hotkv %q", k, fromRedis, fromHotKV)
		}
		// Each restores the other's payload under a new name.
		if got := p.HotKV.Do("RESTORE", k+":r", "0", bulkBody(fromRedis)); got != "+OK\r\n" {
			t.Errorf("HotKV RESTORE of Redis's %s: %q", k, got)
		}
		if got := p.Redis.Do("RESTORE", k+":r", "0", bulkBody(fromHotKV)); got != "+OK\r\n" {
			t.Errorf("Redis RESTORE of HotKV's %s: %q", k, got)
		}
		if r, h := dumpRead(p, p.Redis, k+":r"), dumpRead(p, p.HotKV, k+":r"); r != h {
			t.Errorf("%s restored:\n redis: %.200q\n hotkv: %.200q", k, r, h)
		}
		if r, h := dumpRead(p, p.Redis, k), dumpRead(p, p.HotKV, k+":r"); r != h {
			t.Errorf("%s round trip:\n original: %.200q\n restored: %.200q", k, r, h)
		}
		p.Do("OBJECT ENCODING " + k + ":r")
	}
}

// TestDumpSmallEncodingsLikeRedis: the small encodings HotKV writes
// (quicklist of listpacks, intsets at each width, listpack hashes and
// sorted sets) are byte for byte Redis's, after edits that grow, shrink and
// move entries, and across the largest small form.
func TestDumpSmallEncodingsLikeRedis(t *testing.T) {
	p := newPair(t)
	var big16, big64, hfull, zfull strings.Builder
	for i := 0; i < 512; i++ {
		fmt.Fprintf(&big16, " %d", i*7-1000)
		fmt.Fprintf(&big64, " %d", int64(i)*40000000000-7)
		fmt.Fprintf(&hfull, " f%d %s", i, strings.Repeat("v", i%64))
	}
	for i := 0; i < 128; i++ {
		fmt.Fprintf(&zfull, " %d.5 %s%d", i%9, strings.Repeat("m", i%60), i)
	}
	p.Run(`
		RPUSH l:one a b c 1 2 -3
		LPUSH l:one x 12345678901
		LREM l:one 1 b
		SADD i:16 5 -3 7 1
		SREM i:16 7
		SADD i:32 1 2 -70000
		SADD i:64 9 -9000000000 8
		SREM i:64 8
		SADD i:full16` + big16.String() + `
		SADD i:full64` + big64.String() + `
		HSET h:one f1 v1 f2 2 f3 ''
		HDEL h:one f2
		HSET h:one f1 a-longer-value f4 x
		HSET h:one f1 y
		HSET h:full` + hfull.String() + `
		ZADD z:one 1 a 2.5 b -3 c inf d 300 e -70000 f
		ZINCRBY z:one 5 a
		ZADD z:one 0.125 e
		ZREM z:one c
		ZREMRANGEBYRANK z:one 0 0
		ZADD z:full` + zfull.String() + `
		ZINCRBY z:full 100 m1
	`)
	for _, k := range []string{"l:one", "i:16", "i:32", "i:64", "i:full16", "i:full64", "h:one", "h:full", "z:one", "z:full"} {
		p.Do("OBJECT ENCODING " + k)
		if r, h := p.Redis.Do("DUMP", k), p.HotKV.Do("DUMP", k); r != h {
			t.Errorf("DUMP %s:\n redis: %q\n hotkv: %q", k, r, h)
		}
	}
}

// TestRestoreOptionsAndErrors: RESTORE's options and error replies, against
// Redis.
func TestRestoreOptionsAndErrors(t *testing.T) {
	p := newPair(t)
	p.Do("SET k v")
	payload := bulkBody(p.Redis.Do("DUMP", "k"))
	r := func(args ...string) string { return p.DoArgs(append([]string{"RESTORE"}, args...)...) }
	r("k", "0", payload)
	r("k", "0", payload, "REPLACE")
	r("n", "-1", payload)
	r("n", "x", payload)
	r("n", "0", payload, "IDLETIME", "-1")
	r("n", "0", payload, "FREQ", "256")
	r("n", "0", payload, "IDLETIME", "1", "FREQ", "1")
	r("n", "0", payload, "BOGUS")
	r("n", "0", payload, "IDLETIME")
	r("n", "0", "garbage")
	r("n", "0", "")
	r("n", "0", payload[:len(payload)-1])
	r("n", "1", payload, "ABSTTL") // long expired: nothing created
	p.Do("EXISTS n")
	r("n", "100000", payload)
	p.DoBoth("PTTL n", func(redis, hotkv string) {
		if !strings.HasPrefix(hotkv, ":99") && !strings.HasPrefix(hotkv, ":100000") {
			t.Errorf("PTTL after RESTORE 100000: %q", hotkv)
		}
	})
	r("i", "0", payload, "IDLETIME", "1000")
	p.DoBoth("OBJECT IDLETIME i", func(redis, hotkv string) {
		if hotkv != redis && hotkv != ":1001\r\n" {
			t.Errorf("OBJECT IDLETIME: redis %q, hotkv %q", redis, hotkv)
		}
	})
	p.Do("DUMP nosuch")
	// A stream restores and dumps back to Redis's bytes.
	p.Redis.Do("XADD", "st", "*", "f", "v")
	p.Redis.Do("XGROUP", "CREATE", "st", "g", "0")
	p.Redis.Do("XREADGROUP", "GROUP", "g", "alice", "STREAMS", "st", ">")
	streamPayload := p.Redis.Do("DUMP", "st")
	if got := p.HotKV.Do("RESTORE", "st", "0", bulkBody(streamPayload)); got != "+OK\r\n" {
		t.Errorf("RESTORE of a stream: %q", got)
	}
	if got := p.HotKV.Do("DUMP", "st"); got != streamPayload {
		t.Errorf("DUMP of a restored stream:\n got %q\nwant %q", got, streamPayload)
	}
	// Every truncation and a flipped byte of a real payload are refused,
	// never a crash.
	big := bulkBody(p.Redis.Do("DUMP", "k"))
	for i := 0; i < len(big); i++ {
		got := p.HotKV.Do("RESTORE", "t", "0", big[:i])
		if !strings.HasPrefix(got, "-ERR ") {
			t.Errorf("truncated at %d: %q", i, got)
		}
		flipped := []byte(big)
		flipped[i] ^= 0x5a
		p.HotKV.Do("RESTORE", "t", "0", string(flipped), "REPLACE")
	}
	expect(t, p.HotKV, "+PONG\r\n", "PING")
}

// A sorted set held as a skiplist while small (SORT converted it, or it
// shrank) dumps as Redis's RDB_TYPE_ZSET_2, byte for byte; restored, it
// is small again in both.
func TestDumpBigSmallZSet(t *testing.T) {
	p := newPair(t)
	var many strings.Builder
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&many, " %d m%d", i, i)
	}
	p.Run(`
ZADD z 1 a 2 b 2.5 c
SORT z ALPHA
OBJECT ENCODING z
DUMP z
ZADD shrunk` + many.String() + `
ZREMRANGEBYRANK shrunk 0 -3
OBJECT ENCODING shrunk
DUMP shrunk
`)
	p.DoArgs("RESTORE", "r", "0", bulkBody(p.Redis.Do("DUMP", "z")))
	p.Run(`
OBJECT ENCODING r
DUMP r
`)
}

// TestClusterModeCommandsLikeRedis: outside a cluster, ASKING, READONLY
// and READWRITE are refused and RESTORE-ASKING is RESTORE, as Redis.
func TestClusterModeCommandsLikeRedis(t *testing.T) {
	p := newPair(t)
	p.Run(`
		ASKING
		READONLY
		READWRITE
		ASKING x
		SET k v
	`)
	p.DoBoth("DUMP k", func(redis, hotkv string) {
		payload := hotkv[strings.Index(hotkv, "\r\n")+2 : len(hotkv)-2]
		p.DoArgs("RESTORE-ASKING", "k2", "0", payload)
		p.DoArgs("RESTORE-ASKING", "k2", "0", payload)
		p.DoArgs("RESTORE-ASKING", "k2", "0", payload, "REPLACE")
	})
	p.Run(`
		GET k2
		RESTORE-ASKING k3 0 garbage
		DEL k k2
	`)
}
