package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// syncStream attaches to addr as Redis's test suite does
// (attach_to_replication_stream): SYNC, then syncPayload.
func syncStream(t *testing.T, addr string) (*bufio.Reader, net.Conn) {
	t.Helper()
	return syncPayload(t, addr, "SYNC\r\n")
}

// syncPayload sends sync (SYNC or PSYNC), skips what comes before the
// payload (+FULLRESYNC, the newlines sent while it is produced), reads
// the payload and returns the connection's reader after it.
func syncPayload(t *testing.T, addr, sync string) (*bufio.Reader, net.Conn) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := conn.Write([]byte(sync)); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(conn)
	var line string
	for line == "" || strings.HasPrefix(line, "+FULLRESYNC ") {
		if line, err = r.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
		line = strings.TrimRight(line, "\r\n")
	}
	if line[0] != '$' {
		t.Fatalf("%q answered %q", sync, line)
	}
	n, err := strconv.Atoi(line[1:])
	if err != nil {
		t.Fatalf("%q answered %q", sync, line)
	}
	payload := make([]byte, n)
	if _, err := io.ReadFull(r, payload); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(payload), "REDIS") {
		t.Fatalf("payload %q...", payload[:min(len(payload), 16)])
	}
	return r, conn
}

// readStream reads n commands of a replication stream, each as its words.
func readStream(t *testing.T, r *bufio.Reader, n int) []string {
	t.Helper()
	var out []string
	for range n {
		reply, err := difftest.ReadReply(r)
		if err != nil {
			t.Fatalf("after %q: %v", out, err)
		}
		out = append(out, reply)
	}
	return out
}

// TestReplicationStream: what a replica attached with SYNC receives for
// the same writes — plain commands on several databases, a transaction,
// a script, an expiry, a command rewritten for propagation — is Redis's
// stream byte for byte (the harness's attach_to_replication_stream, which
// unit/multi, expire, type/list and others read).
func TestReplicationStream(t *testing.T) {
	redis := difftest.StartRedis(t, "--repl-ping-replica-period", "3600")
	_, hotkv := startServer(t, "--repl-ping-replica-period", "3600")
	cmds := [][]string{
		{"SET", "a", "1"}, {"SELECT", "2"}, {"INCR", "a"}, {"SET", "k", "v", "EX", "100"},
		{"MULTI"}, {"SET", "x", "1"}, {"SELECT", "0"}, {"LPUSH", "l", "a", "b"}, {"EXEC"},
		{"EVAL", "redis.call('set', KEYS[1], 'v') redis.call('del', KEYS[1])", "1", "s"},
		{"GETEX", "a", "PERSIST"}, {"SET", "a", "2", "PX", "100000"}, {"GETDEL", "a"},
		{"RPUSH", "l2", "x", "y"}, {"LMPOP", "1", "l2", "LEFT", "COUNT", "10"},
		{"ZADD", "z", "1", "a"}, {"ZMPOP", "1", "z", "MIN", "COUNT", "5"},
		{"LMPOP", "2", "none1", "none2", "LEFT", "COUNT", "10"}, {"ZMPOP", "1", "none3", "MAX"},
		{"PUBLISH", "ch", "hello"}, {"MULTI"}, {"PUBLISH", "ch", "m"}, {"SET", "p", "1"}, {"EXEC"},
		{"EVAL", "redis.set_repl(redis.REPL_AOF) redis.call('set', 'aof', '1') redis.set_repl(redis.REPL_ALL) redis.call('set', 'all', '1') redis.set_repl(redis.REPL_NONE) redis.call('set', 'none', '1') return 1", "0"},
		{"EVAL", "redis.set_repl(redis.REPL_REPLICA) redis.call('set', 'r', '1') return 1", "0"},
		{"SET", "unchanged", "1"}, {"SETNX", "unchanged", "2"},
		{"GETSET", "g", "1"}, {"SET", "g", "2", "GET"}, {"SET", "g", "3", "get", "XX", "GET"},
	}
	streams := map[string][]string{}
	for name, addr := range map[string]string{"redis": redis, "hotkv": hotkv} {
		c := difftest.Dial(t, addr)
		c.Do("FLUSHALL")
		r, _ := syncStream(t, addr)
		for _, cmd := range cmds {
			c.Do(cmd...)
		}
		streams[name] = readStream(t, r, 31)
	}
	// The absolute expiry times differ by the milliseconds between runs.
	ms := regexp.MustCompile(`\$13\r\n\d{13}\r\n`)
	norm := func(s []string) string { return ms.ReplaceAllString(strings.Join(s, ""), "$$13\r\n<ms>\r\n") }
	if got, want := norm(streams["hotkv"]), norm(streams["redis"]); got != want {
		t.Errorf("stream:\nHotKV %q\nRedis %q", streams["hotkv"], streams["redis"])
	}
}

// TestRedisReplicatesHotKV: a redis-server started as HotKV's replica
// gets the dataset (PSYNC, a full resynchronization) and then every
// write, on every database, transactions and scripts included, and stays
// connected; HotKV lists it (INFO, CLIENT LIST) and sees its
// acknowledgements. Then the replica's connection is dropped and HotKV
// forgets it.
func TestRedisReplicatesHotKV(t *testing.T) {
	_, hotkv := startServer(t, "--enable-debug-command", "yes", "--repl-diskless-sync-delay", "0")
	c := difftest.Dial(t, hotkv)
	for i := range 50 {
		c.Do("SET", fmt.Sprint("pre:", i), fmt.Sprint(i))
	}
	c.Do("HSET", "h", "f", "v")
	_, port, _ := net.SplitHostPort(hotkv)
	replica := difftest.StartRedis(t, "--replicaof", "127.0.0.1", port, "--enable-debug-command", "yes")
	rc := difftest.Dial(t, replica)
	waitFor(t, func() bool { return strings.Contains(rc.Do("INFO", "replication"), "master_link_status:up") })
	c.Do("SELECT", "5")
	c.Do("SET", "db5", "x")
	c.Do("MULTI")
	c.Do("INCR", "n")
	c.Do("ZADD", "z", "1", "a")
	c.Do("EXEC")
	c.Do("EVAL", "redis.call('rpush', KEYS[1], 'a', 'b') return redis.call('lpop', KEYS[1])", "1", "l")
	c.Do("SELECT", "0")
	c.Do("DEL", "pre:7")
	info := c.Do("INFO", "replication")
	offset := between(info, "master_repl_offset:", "\r\n")
	waitFor(t, func() bool {
		return between(rc.Do("INFO", "replication"), "slave_repl_offset:", "\r\n") == offset
	})
	for db := range []int{0, 5} {
		c.Do("SELECT", strconv.Itoa(db))
		rc.Do("SELECT", strconv.Itoa(db))
	}
	if got, want := rc.Do("DEBUG", "DIGEST"), c.Do("DEBUG", "DIGEST"); got != want {
		t.Errorf("replica digest %q, HotKV %q", got, want)
	}
	waitFor(t, func() bool {
		return strings.Contains(c.Do("INFO", "replication"), ",state=online,offset="+offset+",")
	})
	if got := c.Do("INFO", "replication"); !strings.Contains(got, "connected_slaves:1\r\n") {
		t.Errorf("INFO replication: %q", got)
	}
	if mem := c.Do("INFO", "memory"); between(mem, "mem_replication_backlog:", "\r\n") == "0" {
		t.Errorf("INFO memory shows no backlog: %q", mem)
	}
	if got := c.Do("CLIENT", "LIST"); !strings.Contains(got, " flags=S ") || !strings.Contains(got, " cmd=replconf ") {
		t.Errorf("CLIENT LIST: %q", got)
	}
	rc.Do("REPLICAOF", "NO", "ONE")
	waitFor(t, func() bool {
		return strings.Contains(c.Do("INFO", "replication"), "connected_slaves:0\r\n")
	})
}

// between returns the text of s between prefix and the next end.
func between(s, prefix, end string) string {
	_, rest, _ := strings.Cut(s, prefix)
	v, _, _ := strings.Cut(rest, end)
	return v
}

// TestHotKVReplicatesRedis: HotKV as a replica of redis-server (REPLICAOF
// at run time and the replicaof directive at start): the master's
// dataset and stream on every database, its offset in INFO, clients'
// writes refused with READONLY as a Redis replica refuses them (a
// transaction's with EXECABORT, a script's write), ROLE; then REPLICAOF NO
// ONE makes it a writable master that keeps the data.
func TestHotKVReplicatesRedis(t *testing.T) {
	master := difftest.StartRedis(t, "--repl-diskless-sync-delay", "0")
	m := difftest.Dial(t, master)
	m.Do("SET", "before", "1")
	m.Do("HSET", "h", "f", "v")
	_, mport, _ := net.SplitHostPort(master)
	redisReplica := difftest.StartRedis(t, "--replicaof", "127.0.0.1", mport)
	_, hotkv := startServer(t)
	h := difftest.Dial(t, hotkv)
	if got := h.Do("REPLICAOF", "127.0.0.1", mport); got != "+OK\r\n" {
		t.Fatalf("REPLICAOF: %q", got)
	}
	if got := h.Do("REPLICAOF", "127.0.0.1", mport); got != "+OK Already connected to specified master\r\n" {
		t.Errorf("REPLICAOF again: %q", got)
	}
	r := difftest.Dial(t, redisReplica)
	for _, c := range []*difftest.Conn{h, r} {
		waitFor(t, func() bool { return strings.Contains(c.Do("INFO", "replication"), "master_link_status:up") })
	}
	m.Do("SELECT", "4")
	m.Do("RPUSH", "l", "a", "b")
	m.Do("EVAL", "redis.call('incr', 'n') return redis.call('incr', 'n')", "0")
	m.Do("SET", "ttl", "x", "EX", "1000")
	offset := between(m.Do("INFO", "replication"), "master_repl_offset:", "\r\n")
	for _, c := range []*difftest.Conn{h, r} {
		waitFor(t, func() bool { return between(c.Do("INFO", "replication"), "master_repl_offset:", "\r\n") == offset })
	}
	for _, cmd := range [][]string{{"GET", "before"}, {"HGETALL", "h"}, {"SELECT", "4"}, {"LRANGE", "l", "0", "-1"},
		{"GET", "n"}, {"TTL", "ttl"}} {
		if got, want := h.Do(cmd...), r.Do(cmd...); got != want {
			t.Errorf("%q: HotKV %q, Redis replica %q", cmd, got, want)
		}
	}
	for _, c := range []*difftest.Conn{h, r} {
		// The master's commands count in the replica's commandstats.
		if stats := c.Do("INFO", "commandstats"); !strings.Contains(stats, "cmdstat_rpush:calls=1,") {
			t.Errorf("replica's commandstats lack the master's RPUSH: %q", stats)
		}
	}
	for _, cmd := range [][]string{{"SET", "x", "1"}, {"MULTI"}, {"SET", "x", "1"}, {"EXEC"},
		{"EVAL", "return redis.call('set', 'x', '1')", "0"}, {"EVAL", "#!lua\nreturn redis.call('set', 'x', '1')", "0"},
		{"EVAL", "#!lua flags=no-writes\nreturn redis.call('get', 'n')", "0"}, {"GET", "x"}} {
		if got, want := h.Do(cmd...), r.Do(cmd...); got != want {
			t.Errorf("%q: HotKV %q, Redis replica %q", cmd, got, want)
		}
	}
	if got, want := h.Do("ROLE"), fmt.Sprintf("*5\r\n$5\r\nslave\r\n$9\r\n127.0.0.1\r\n:%s\r\n$9\r\nconnected\r\n:%s\r\n", mport, offset); got != want {
		t.Errorf("ROLE: %q, want %q", got, want)
	}
	if got := h.Do("REPLICAOF", "NO", "ONE"); got != "+OK\r\n" {
		t.Errorf("REPLICAOF NO ONE: %q", got)
	}
	if got := h.Do("SET", "x", "2"); got != "+OK\r\n" {
		t.Errorf("SET after REPLICAOF NO ONE: %q", got)
	}
	if got := h.Do("LRANGE", "l", "0", "-1"); got != "*2\r\n$1\r\na\r\n$1\r\nb\r\n" {
		t.Errorf("data after REPLICAOF NO ONE: %q", got)
	}
	if got := h.Do("ROLE"); !strings.HasPrefix(got, "*3\r\n$6\r\nmaster\r\n") {
		t.Errorf("ROLE after REPLICAOF NO ONE: %q", got)
	}

	// The directive: a HotKV started as a replica.
	_, started := startServer(t, "--replicaof", "127.0.0.1", mport)
	s := difftest.Dial(t, started)
	waitFor(t, func() bool { return strings.Contains(s.Do("INFO", "replication"), "master_link_status:up") })
	if got := s.Do("GET", "before"); got != "$1\r\n1\r\n" {
		t.Errorf("replica started with replicaof: GET before = %q", got)
	}
}

// TestReplicationRefusals: min-replicas-to-write refuses writes with
// NOREPLICAS (a transaction's at EXEC, a script's), and a replica whose
// link is down with replica-serve-stale-data no refuses commands without
// the stale flag with MASTERDOWN (a transaction queued before the link
// went down too), as Redis; the replies are compared with redis-server's.
func TestReplicationRefusals(t *testing.T) {
	redis := difftest.StartRedis(t)
	_, hotkv := startServer(t)
	steps := [][]string{
		{"SET", "xx", "1"},
		{"MULTI"}, {"INCR", "xx"}, {"@", "CONFIG", "SET", "min-replicas-to-write", "2"}, {"EXEC"},
		{"SET", "xx", "2"}, {"GET", "xx"},
		{"EVAL", "#!lua\nreturn redis.call('incr', 'xx')", "0"},
		{"EVAL", "return redis.call('incr', 'xx')", "0"},
		{"EVAL", "#!lua flags=no-writes\nreturn redis.call('get', 'xx')", "0"},
		{"CONFIG", "SET", "min-replicas-to-write", "0"},
		{"CONFIG", "SET", "replica-serve-stale-data", "no"},
		{"MULTI"}, {"GET", "xx"}, {"@", "REPLICAOF", "localhsot", "0"}, {"EXEC"},
		{"GET", "xx"}, {"PING"}, {"INFO", "keyspace"}, {"EVAL", "#!lua flags=no-writes\nreturn 1", "0"},
		{"EVAL", "return redis.call('get', 'xx')", "0"}, {"EVAL", "return 1", "0"},
		{"EVAL", "#!lua flags=no-writes,allow-stale\nreturn 1", "0"},
		{"@", "REPLICAOF", "NO", "ONE"}, {"GET", "xx"},
		{"CONFIG", "SET", "replica-serve-stale-data", "yes"},
	}
	compareSteps(t, steps, redis, hotkv)
}

// TestWait: WAIT counts the replicas that acknowledged the client's last
// write, waits up to its timeout for more, answers at once inside MULTI,
// and is refused on a replica, as Redis; HotKV's replica is HotKV here,
// Redis's is redis-server.
func TestWait(t *testing.T) {
	setup := func(master string, startReplica func(port string) string) (m, r *difftest.Conn) {
		_, port, _ := net.SplitHostPort(master)
		replica := startReplica(port)
		m, r = difftest.Dial(t, master), difftest.Dial(t, replica)
		waitFor(t, func() bool { return strings.Contains(r.Do("INFO", "replication"), "master_link_status:up") })
		return m, r
	}
	redisMaster := difftest.StartRedis(t, "--repl-diskless-sync-delay", "0")
	rm, rr := setup(redisMaster, func(port string) string { return difftest.StartRedis(t, "--replicaof", "127.0.0.1", port) })
	_, hotkvMaster := startServer(t, "--repl-diskless-sync-delay", "0")
	hm, hr := setup(hotkvMaster, func(port string) string {
		_, a := startServer(t, "--replicaof", "127.0.0.1", port)
		return a
	})
	steps := [][]string{
		{"SET", "k", "v"}, {"WAIT", "1", "0"}, {"INCR", "n"}, {"WAIT", "2", "50"}, {"WAIT", "0", "0"},
		{"WAIT", "x", "0"}, {"WAIT", "1", "-1"}, {"WAIT", "1", "x"}, {"SET", "k", "w"},
		{"R", "WAIT", "1", "0"}, {"R", "GET", "k"},
	}
	// Inside a transaction WAIT answers at once (how many acknowledged
	// depends on when the replica's ACK came: not compared).
	hm.Do("MULTI")
	hm.Do("WAIT", "5", "0")
	if got := hm.Do("EXEC"); !strings.HasPrefix(got, "*1\r\n:") {
		t.Errorf("WAIT in MULTI: %q", got)
	}
	for _, s := range steps {
		var got, want string
		if s[0] == "R" {
			waitFor(t, func() bool { return hr.Do("GET", "k") == "$1\r\nw\r\n" })
			got, want = hr.Do(s[1:]...), rr.Do(s[1:]...)
		} else {
			start := time.Now()
			got = hm.Do(s...)
			if s[0] == "WAIT" && s[2] == "50" && time.Since(start) < 50*time.Millisecond {
				t.Errorf("WAIT 2 50 returned after %v", time.Since(start))
			}
			want = rm.Do(s...)
		}
		if got != want {
			t.Errorf("%q: HotKV %q, Redis %q", s, got, want)
		}
	}
}

// TestStaleScripts: on a replica whose link is down with
// replica-serve-stale-data no, a function without allow-stale is
// refused with MASTERDOWN, one with it runs, but its non-stale commands
// are refused inside ("Can not execute the command on a stale replica"),
// as in Redis (unit/functions "allow stale").
func TestStaleScripts(t *testing.T) {
	redis := difftest.StartRedis(t)
	_, hotkv := startServer(t)
	lib := `#!lua name=test
redis.register_function{function_name='f1', callback=function() return 'hello' end, flags={'no-writes'}}
redis.register_function{function_name='f2', callback=function() return 'hello' end, flags={'allow-stale', 'no-writes'}}
redis.register_function{function_name='f3', callback=function() return redis.call('get', 'x') end, flags={'allow-stale', 'no-writes'}}
redis.register_function{function_name='f4', callback=function() return type(redis.call('info', 'server')) end, flags={'allow-stale', 'no-writes'}}`
	steps := [][]string{
		{"FUNCTION", "LOAD", "REPLACE", lib}, {"CONFIG", "SET", "replica-serve-stale-data", "no"},
		{"REPLICAOF", "127.0.0.1", "1"},
		{"FCALL", "f1", "0"}, {"FCALL", "f2", "0"}, {"FCALL", "f3", "0"}, {"FCALL", "f4", "0"},
		{"REPLICAOF", "NO", "ONE"}, {"CONFIG", "SET", "replica-serve-stale-data", "yes"}, {"FCALL", "f3", "0"},
	}
	for _, s := range steps {
		if got, want := difftest.Dial(t, hotkv).Do(s...), difftest.Dial(t, redis).Do(s...); got != want {
			t.Errorf("%.40q: HotKV %q, Redis %q", s, got, want)
		}
	}
}

// TestLazyExpireStream: SCAN removes the expired keys it meets, each
// propagated as a DEL of its own (not in MULTI/EXEC), as Redis's
// (unit/expire "SCAN: Lazy-expire should not be wrapped in MULTI/EXEC").
func TestLazyExpireStream(t *testing.T) {
	redis := difftest.StartRedis(t, "--enable-debug-command", "yes", "--repl-ping-replica-period", "3600")
	_, hotkv := startServer(t, "--enable-debug-command", "yes", "--repl-ping-replica-period", "3600")
	for _, addr := range []string{redis, hotkv} {
		c := difftest.Dial(t, addr)
		c.Do("DEBUG", "SET-ACTIVE-EXPIRE", "0")
		c.Do("SET", "foo1", "bar", "PX", "1")
		c.Do("SET", "foo2", "bar", "PX", "1")
		time.Sleep(10 * time.Millisecond)
		r, _ := syncStream(t, addr)
		c.Do("SCAN", "0")
		c.Do("SET", "after", "1")
		got := readStream(t, r, 4)
		slices.Sort(got[1:3])
		want := []string{"*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n", "*2\r\n$3\r\nDEL\r\n$4\r\nfoo1\r\n",
			"*2\r\n$3\r\nDEL\r\n$4\r\nfoo2\r\n", "*3\r\n$3\r\nSET\r\n$5\r\nafter\r\n$1\r\n1\r\n"}
		if !slices.Equal(got, want) {
			t.Errorf("%s: stream %q", addr, got)
		}
		c.Do("DEBUG", "SET-ACTIVE-EXPIRE", "1")
	}
}

// TestReplicaPause: CLIENT PAUSE WRITE on a replica holds its master's
// stream (the offset does not move) until the pause ends, as Redis's
// paused master client (unit/pause "Test when replica paused, offset
// would not grow").
func TestReplicaPause(t *testing.T) {
	_, master := startServer(t, "--repl-diskless-sync-delay", "0")
	_, mport, _ := net.SplitHostPort(master)
	_, replica := startServer(t, "--replicaof", "127.0.0.1", mport)
	m, r := difftest.Dial(t, master), difftest.Dial(t, replica)
	waitFor(t, func() bool { return strings.Contains(r.Do("INFO", "replication"), "master_link_status:up") })
	m.Do("SET", "a", "1")
	waitFor(t, func() bool { return r.Do("GET", "a") == "$1\r\n1\r\n" })
	before := between(r.Do("INFO", "replication"), "slave_repl_offset:", "\r\n")
	r.Do("CLIENT", "PAUSE", "100000", "WRITE")
	m.Do("SET", "a", "2")
	time.Sleep(200 * time.Millisecond)
	if got := between(r.Do("INFO", "replication"), "slave_repl_offset:", "\r\n"); got != before {
		t.Errorf("offset moved during the pause: %s -> %s", before, got)
	}
	mOffset := between(m.Do("INFO", "replication"), "master_repl_offset:", "\r\n")
	if got := between(r.Do("INFO", "replication"), "slave_read_repl_offset:", "\r\n"); got != mOffset {
		t.Errorf("read offset during the pause %s, master's %s", got, mOffset)
	}
	if got := r.Do("GET", "a"); got != "$1\r\n1\r\n" {
		t.Errorf("GET during the pause: %q", got)
	}
	r.Do("CLIENT", "UNPAUSE")
	waitFor(t, func() bool { return r.Do("GET", "a") == "$1\r\n2\r\n" })
}

// TestPartialResync: a replica whose link drops continues from its offset
// (PSYNC replid offset, +CONTINUE from the backlog) with no new snapshot,
// and gets the writes made while it was away; the backlog shows in INFO.
// Both with a HotKV replica and with a redis-server replica of HotKV.
func TestPartialResync(t *testing.T) {
	_, master := startServer(t, "--repl-diskless-sync-delay", "0")
	_, mport, _ := net.SplitHostPort(master)
	_, hreplica := startServer(t, "--replicaof", "127.0.0.1", mport)
	rreplica := difftest.StartRedis(t, "--replicaof", "127.0.0.1", mport)
	m := difftest.Dial(t, master)
	replicas := []*difftest.Conn{difftest.Dial(t, hreplica), difftest.Dial(t, rreplica)}
	for _, r := range replicas {
		waitFor(t, func() bool { return strings.Contains(r.Do("INFO", "replication"), "master_link_status:up") })
	}
	m.Do("SET", "a", "1")
	if info := m.Do("INFO", "replication"); !strings.Contains(info, "repl_backlog_active:1\r\n") {
		t.Fatalf("no backlog: %q", info)
	}
	if got := m.Do("CLIENT", "KILL", "TYPE", "replica"); got != ":2\r\n" {
		t.Fatalf("CLIENT KILL TYPE replica: %q", got)
	}
	m.Do("SET", "b", "2")
	m.Do("MULTI")
	m.Do("INCR", "n")
	m.Do("INCR", "n")
	m.Do("EXEC")
	offset := between(m.Do("INFO", "replication"), "master_repl_offset:", "\r\n")
	for _, r := range replicas {
		waitFor(t, func() bool { return between(r.Do("INFO", "replication"), "master_repl_offset:", "\r\n") == offset })
		if got := r.Do("MGET", "a", "b", "n"); got != "*3\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n2\r\n" {
			t.Errorf("replica's data: %q", got)
		}
	}
	stats := m.Do("INFO", "stats")
	if !strings.Contains(stats, "sync_full:2\r\n") || !strings.Contains(stats, "sync_partial_ok:2\r\n") {
		t.Errorf("INFO stats: sync_full %s, sync_partial_ok %s", between(stats, "sync_full:", "\r\n"), between(stats, "sync_partial_ok:", "\r\n"))
	}
}

// TestWritableReplicaExpiry: on a writable replica, a key its own client
// gave an expiry is removed by the replica's expiry cycle (counted in
// expired_keys), as Redis's expireSlaveKeys; keys from the master still
// wait for the master's DEL.
func TestWritableReplicaExpiry(t *testing.T) {
	_, master := startServer(t, "--repl-diskless-sync-delay", "0")
	_, mport, _ := net.SplitHostPort(master)
	_, replica := startServer(t, "--replicaof", "127.0.0.1", mport, "--replica-read-only", "no")
	r := difftest.Dial(t, replica)
	waitFor(t, func() bool { return strings.Contains(r.Do("INFO", "replication"), "master_link_status:up") })
	before := between(r.Do("INFO", "stats"), "expired_keys:", "\r\n")
	if got := r.Do("SET", "foo", "bar", "PX", "1"); got != "+OK\r\n" {
		t.Fatalf("SET on a writable replica: %q", got)
	}
	waitFor(t, func() bool { return r.Do("DBSIZE") == ":0\r\n" })
	if after := between(r.Do("INFO", "stats"), "expired_keys:", "\r\n"); after == before {
		t.Errorf("expired_keys stayed %s", after)
	}
}

// TestChainedReplicas: a HotKV replica passes its master's stream on to
// its own replicas as it came (the offsets are the master's all along the
// chain), and once promoted (REPLICAOF NO ONE) its replicas continue
// under its second replication ID without a new snapshot.
func TestChainedReplicas(t *testing.T) {
	master := difftest.StartRedis(t, "--repl-diskless-sync-delay", "0")
	_, mport, _ := net.SplitHostPort(master)
	_, middle := startServer(t, "--replicaof", "127.0.0.1", mport, "--repl-diskless-sync-delay", "0")
	_, midPort, _ := net.SplitHostPort(middle)
	m, mid := difftest.Dial(t, master), difftest.Dial(t, middle)
	waitFor(t, func() bool { return strings.Contains(mid.Do("INFO", "replication"), "master_link_status:up") })
	_, hsub := startServer(t, "--replicaof", "127.0.0.1", midPort)
	rsub := difftest.StartRedis(t, "--replicaof", "127.0.0.1", midPort)
	subs := []*difftest.Conn{difftest.Dial(t, hsub), difftest.Dial(t, rsub)}
	for _, c := range subs {
		waitFor(t, func() bool { return strings.Contains(c.Do("INFO", "replication"), "master_link_status:up") })
	}
	m.Do("SET", "a", "1")
	m.Do("SELECT", "3")
	m.Do("MULTI")
	m.Do("INCR", "n")
	m.Do("RPUSH", "l", "x")
	m.Do("EXEC")
	offset := between(m.Do("INFO", "replication"), "master_repl_offset:", "\r\n")
	for _, c := range append([]*difftest.Conn{mid}, subs...) {
		waitFor(t, func() bool { return between(c.Do("INFO", "replication"), "master_repl_offset:", "\r\n") == offset })
		c.Do("SELECT", "3")
		if got := c.Do("LRANGE", "l", "0", "-1"); got != "*1\r\n$1\r\nx\r\n" {
			t.Errorf("LRANGE on a replica: %q", got)
		}
	}
	// The middle one is promoted; its replicas continue.
	mid.Do("REPLICAOF", "NO", "ONE")
	mid.Do("SELECT", "0")
	mid.Do("SET", "after", "promotion")
	for _, c := range subs {
		c.Do("SELECT", "0")
		waitFor(t, func() bool { return c.Do("GET", "after") == "$9\r\npromotion\r\n" })
	}
	if stats := mid.Do("INFO", "stats"); !strings.Contains(stats, "sync_partial_ok:2\r\n") {
		t.Errorf("the promoted replica's replicas did not continue: %s", between(stats, "sync_full:", "\r\nsync_partial_err"))
	}
}

// TestDisklessSync: a replica that says REPLCONF capa eof, of a master
// with repl-diskless-sync yes, waits repl-diskless-sync-delay (getting
// newlines) before its +FULLRESYNC and a payload in the "$EOF:<mark>"
// form; a redis-server replica loads it. With repl-diskless-sync no, a
// sized bulk comes at once.
func TestDisklessSync(t *testing.T) {
	for _, diskless := range []string{"yes", "no"} {
		_, master := startServer(t, "--repl-diskless-sync", diskless, "--repl-diskless-sync-delay", "3")
		m := difftest.Dial(t, master)
		m.Do("SET", "k", "v")
		conn, err := net.Dial("tcp", master)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(5 * time.Second))
		start := time.Now()
		br := bufio.NewReader(conn)
		conn.Write(difftest.Encode("REPLCONF", "capa", "eof"))
		if line, _ := br.ReadString('\n'); line != "+OK\r\n" {
			t.Fatalf("REPLCONF capa eof: %q", line)
		}
		conn.Write(difftest.Encode("PSYNC", "?", "-1"))
		lines := []string{"+OK"}
		for len(lines) < 3 {
			line, err := br.ReadString('\n')
			if err != nil {
				t.Fatalf("after %q: %v", lines, err)
			}
			if line = strings.TrimRight(line, "\r\n"); line != "" {
				lines = append(lines, line)
			}
		}
		took := time.Since(start)
		if lines[0] != "+OK" || !strings.HasPrefix(lines[1], "+FULLRESYNC ") {
			t.Fatalf("repl-diskless-sync %s: %q", diskless, lines)
		}
		switch {
		case diskless == "yes" && (!strings.HasPrefix(lines[2], "$EOF:") || len(lines[2]) != 45 || took < 2900*time.Millisecond):
			t.Errorf("diskless: %q after %v", lines[2], took)
		case diskless == "no" && (!strings.HasPrefix(lines[2], "$") || strings.HasPrefix(lines[2], "$EOF:") || took > 2500*time.Millisecond):
			// (No delay: the time of a BGSAVE child's start and save,
			// seconds at most on a loaded machine under -race.)
			t.Errorf("disk: %q after %v", lines[2], took)
		}
	}
	// A redis-server replica reads the diskless form.
	_, master := startServer(t, "--repl-diskless-sync-delay", "0")
	_, mport, _ := net.SplitHostPort(master)
	difftest.Dial(t, master).Do("SET", "k", "v")
	r := difftest.Dial(t, difftest.StartRedis(t, "--replicaof", "127.0.0.1", mport))
	waitFor(t, func() bool { return r.Do("GET", "k") == "$1\r\nv\r\n" })
}

// TestRedisCliRDB: redis-cli --rdb and --functions-rdb (REPLCONF capa eof,
// rdb-only, rdb-filter-only) get the whole dataset, or the functions
// only, with no stream after; REPLCONF's errors are Redis's.
func TestRedisCliRDB(t *testing.T) {
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		t.Skip("SKIPPING: redis-cli is missing")
	}
	redis := difftest.StartRedis(t)
	_, hotkv := startServer(t, "--repl-diskless-sync-delay", "0")
	for _, cmd := range [][]string{{"REPLCONF", "rdb-only", "5"}, {"REPLCONF", "rdb-filter-only", "functions foo"}} {
		if got, want := difftest.Dial(t, hotkv).Do(cmd...), difftest.Dial(t, redis).Do(cmd...); got != want {
			t.Errorf("%q: HotKV %q, Redis %q", cmd, got, want)
		}
	}
	c := difftest.Dial(t, hotkv)
	c.Do("SET", "k", "v")
	c.Do("FUNCTION", "LOAD", "#!lua name=lib\nredis.register_function('f', function() return 1 end)")
	_, port, _ := net.SplitHostPort(hotkv)
	dir := t.TempDir()
	for _, mode := range []string{"--rdb", "--functions-rdb"} {
		path := filepath.Join(dir, mode[2:]+".rdb")
		if out, err := exec.Command(cli, "-p", port, mode, path).CombinedOutput(); err != nil {
			t.Fatalf("redis-cli %s: %v\n%s", mode, err, out)
		}
		// Load it into a redis-server: the key only with --rdb.
		r := difftest.Dial(t, difftest.StartRedis(t, "--dir", dir, "--dbfilename", filepath.Base(path)))
		wantKeys := map[string]string{"--rdb": ":1\r\n", "--functions-rdb": ":0\r\n"}[mode]
		if got := r.Do("DBSIZE"); got != wantKeys {
			t.Errorf("%s: DBSIZE %q, want %q", mode, got, wantKeys)
		}
		if got := r.Do("FCALL", "f", "0"); got != ":1\r\n" {
			t.Errorf("%s: the function: %q", mode, got)
		}
	}
	if got := c.Do("INFO", "replication"); !strings.Contains(got, "connected_slaves:0\r\n") {
		t.Errorf("a payload-only client stays a replica: %q", got)
	}
}

// TestScriptWritesOnceDirty: once a script has written, the server's
// state no longer refuses its writes (min-replicas-to-write here), as in
// Redis's scriptVerifyWriteCommandAllow; before its first write it does.
// The replies are compared with redis-server's.
func TestScriptWritesOnceDirty(t *testing.T) {
	redis := difftest.StartRedis(t, "--enable-debug-command", "yes")
	_, hotkv := startServer(t, "--enable-debug-command", "yes")
	steps := [][]string{
		{"DEBUG", "SET-DISABLE-DENY-SCRIPTS", "1"},
		{"EVAL", "redis.call('set', 'a', '1')\nredis.call('config', 'set', 'min-replicas-to-write', '1')\nreturn redis.call('set', 'b', '2')", "0"},
		{"EVAL", "return redis.call('set', 'c', '3')", "0"},
		{"CONFIG", "SET", "min-replicas-to-write", "0"},
		{"EVAL", "redis.call('config', 'set', 'min-replicas-to-write', '1')\nreturn redis.call('set', 'd', '4')", "0"},
		{"CONFIG", "SET", "min-replicas-to-write", "0"},
		{"DEBUG", "SET-DISABLE-DENY-SCRIPTS", "0"},
		{"MGET", "a", "b", "c", "d"},
	}
	run := func(addr string) []string {
		c := difftest.Dial(t, addr)
		var out []string
		for _, s := range steps {
			out = append(out, c.Do(s...))
		}
		return out
	}
	want, got := run(redis), run(hotkv)
	for i, s := range steps {
		if got[i] != want[i] {
			t.Errorf("%q: HotKV %q, Redis %q", s, got[i], want[i])
		}
	}
}

// TestExecScriptFlagsOnReplica: a script queued in MULTI counts as a
// write at EXEC by its shebang's flags (EXECABORT on a read-only
// replica), one without a shebang by EVAL's own (it runs and its write
// fails), as Redis's getCommandFlags; compared with redis-server.
func TestExecScriptFlagsOnReplica(t *testing.T) {
	redis := difftest.StartRedis(t)
	_, hotkv := startServer(t)
	steps := [][]string{
		{"MULTI"}, {"EVAL", "#!lua\nreturn 1", "0"}, {"@", "REPLICAOF", "127.0.0.1", "1"}, {"EXEC"},
		{"MULTI"}, {"EVAL", "redis.call('set', 'x', 1)\nreturn 1", "1", "x"}, {"EXEC"},
		{"MULTI"}, {"EVAL", "#!lua flags=no-writes\nreturn 1", "0"}, {"EXEC"},
		{"@", "REPLICAOF", "NO", "ONE"},
	}
	compareSteps(t, steps, redis, hotkv)
}

// compareSteps runs steps on redis-server at redis and on HotKV at hotkv
// and compares the replies: a step is a command of one client, or, after
// "@", of a second one.
func compareSteps(t *testing.T, steps [][]string, redis, hotkv string) {
	t.Helper()
	run := func(addr string) []string {
		c, other := difftest.Dial(t, addr), difftest.Dial(t, addr)
		var out []string
		for _, s := range steps {
			if s[0] == "@" {
				out = append(out, other.Do(s[1:]...))
			} else {
				out = append(out, c.Do(s...))
			}
		}
		return out
	}
	want, got := run(redis), run(hotkv)
	for i, s := range steps {
		if got[i] != want[i] {
			t.Errorf("%q: HotKV %q, Redis %q", s, got[i], want[i])
		}
	}
}

// TestMasterLinkDownSince: INFO's master_link_down_since_seconds is -1
// while a replica has never reached its master and the seconds since the
// link was lost once it had, as Redis's repl_down_since.
func TestMasterLinkDownSince(t *testing.T) {
	master, maddr := startServer(t, "--repl-diskless-sync-delay", "0")
	_, raddr := startServer(t)
	r := difftest.Dial(t, raddr)
	r.Do("REPLICAOF", "127.0.0.1", strconv.Itoa(difftest.FreePort(t)))
	if got := between(r.Do("INFO", "replication"), "master_link_down_since_seconds:", "\r\n"); got != "-1" {
		t.Errorf("never connected: master_link_down_since_seconds %q", got)
	}
	_, mport, _ := net.SplitHostPort(maddr)
	r.Do("REPLICAOF", "127.0.0.1", mport)
	waitFor(t, func() bool { return strings.Contains(r.Do("INFO", "replication"), "master_link_status:up") })
	if got := r.Do("INFO", "replication"); strings.Contains(got, "master_link_down_since_seconds") {
		t.Errorf("link up, INFO has master_link_down_since_seconds: %q", got)
	}
	master.Shutdown(context.Background())
	waitFor(t, func() bool { return strings.Contains(r.Do("INFO", "replication"), "master_link_status:down") })
	if got := between(r.Do("INFO", "replication"), "master_link_down_since_seconds:", "\r\n"); got != "0" && got != "1" {
		t.Errorf("link lost just now: master_link_down_since_seconds %q", got)
	}
}
