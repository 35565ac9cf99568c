package server

import (
	"context"
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// The interop tests of issue #18, each over both directions: a
// redis-server replica of HotKV and a HotKV replica of redis-server.

// replDirections: which end of a link is HotKV.
var replDirections = []struct {
	name                      string
	hotkvMaster, hotkvReplica bool
}{
	{"hotkv-to-redis", true, false},
	{"redis-to-hotkv", false, true},
}

// replNode is one server of an interop test, HotKV (in process) or
// redis-server, with the directory and arguments it restarts with.
type replNode struct {
	t     *testing.T
	hotkv bool
	s     *Server // HotKV's
	addr  string
	port  string
	c     *difftest.Conn
	dir   string
	args  []string
}

// startReplNode starts a HotKV or a redis-server keeping its snapshot in
// a directory of its own, with the DEBUG command and diskless syncs
// without delay.
func startReplNode(t *testing.T, hotkv bool, args ...string) *replNode {
	n := &replNode{t: t, hotkv: hotkv, dir: t.TempDir(),
		args: append([]string{"--enable-debug-command", "yes", "--repl-diskless-sync-delay", "0"}, args...)}
	n.start()
	return n
}

func (n *replNode) start() {
	args := append([]string{"--dir", n.dir}, n.args...)
	if n.hotkv {
		n.s, n.addr = startServer(n.t, args...)
	} else {
		n.addr = difftest.StartRedis(n.t, args...)
	}
	_, n.port, _ = net.SplitHostPort(n.addr)
	n.c = difftest.Dial(n.t, n.addr)
}

// replicaOf starts a replica of n.
func (n *replNode) replicaOf(hotkv bool) *replNode {
	r := startReplNode(n.t, hotkv, "--replicaof", "127.0.0.1", n.port)
	linkUp(n.t, r.c)
	return r
}

// restart saves n's snapshot, stops it and starts it again from the
// snapshot (on another port); between is run while it is down.
func (n *replNode) restart(between func()) {
	t := n.t
	if n.hotkv {
		if got := n.c.Do("SAVE"); got != "+OK\r\n" {
			t.Fatalf("SAVE: %q", got)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		n.s.Shutdown(ctx)
		cancel()
	} else {
		n.c.Send(difftest.Encode("SHUTDOWN", "SAVE"))
		if r, err := n.c.ReadErr(10 * time.Second); err == nil {
			t.Fatalf("SHUTDOWN SAVE: %q", r)
		}
	}
	between()
	n.start()
}

// info returns field of INFO's section.
func (n *replNode) info(section, field string) string {
	return between(n.c.Do("INFO", section), field+":", "\r\n")
}

// waitLong is waitFor with a deadline for a loaded machine: a full sync
// of a redis-server starts from its cron.
func waitLong(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not reached in 20 s", what)
		}
	}
}

// caughtUp waits until replica r has applied master m's stream to its
// current offset, with its link up.
func caughtUp(t *testing.T, m, r *replNode) {
	t.Helper()
	offset := m.info("replication", "master_repl_offset")
	waitLong(t, "replica at the master's offset "+offset, func() bool {
		info := r.c.Do("INFO", "replication")
		return strings.Contains(info, "master_link_status:up") && between(info, "master_repl_offset:", "\r\n") == offset
	})
}

// fillTypes writes keys of every type with prefix p in databases 0 and
// 3: strings (int, embstr, raw), lists, hashes, sets (intset and not),
// sorted sets, each small and big, a stream with a consumer group, a
// pending entry and a second consumer, HyperLogLogs sparse and dense, a
// bitmap, a geo set; most with a millisecond TTL (PX, PEXPIRE, PEXPIREAT,
// GETEX), and keys with a 1 ms TTL that are gone once it returns.
func fillTypes(t *testing.T, c *difftest.Conn, p string) {
	t.Helper()
	many := func(cmd []string, n int, elem func(i int) []string) []string {
		for i := range n {
			cmd = append(cmd, elem(i)...)
		}
		return cmd
	}
	at := strconv.FormatInt(time.Now().UnixMilli()+777_777, 10)
	for _, db := range []string{"3", "0"} {
		c.Do("SELECT", db)
		for _, cmd := range [][]string{
			{"SET", p + ":int", "12345", "PX", "900001"},
			{"SET", p + ":str", "value"},
			{"SET", p + ":raw", strings.Repeat("r", 100), "PX", "800003"},
			{"RPUSH", p + ":list", "a", "b", "3"}, {"PEXPIRE", p + ":list", "700007"},
			many([]string{"RPUSH", p + ":biglist"}, 300, func(i int) []string { return []string{strconv.Itoa(i)} }),
			{"HSET", p + ":hash", "f1", "v1", "f2", "2"}, {"PEXPIREAT", p + ":hash", at},
			many([]string{"HSET", p + ":bighash"}, 200, func(i int) []string { return []string{"f" + strconv.Itoa(i), strings.Repeat("v", i)} }),
			{"SADD", p + ":intset", "1", "2", "-3"},
			{"SADD", p + ":set", "a", "b", "c"}, {"PEXPIRE", p + ":set", "600011"},
			many([]string{"SADD", p + ":bigset"}, 300, func(i int) []string { return []string{"m" + strconv.Itoa(i)} }),
			{"ZADD", p + ":zset", "1", "a", "2.5", "b"},
			many([]string{"ZADD", p + ":bigzset"}, 200, func(i int) []string { return []string{strconv.Itoa(i) + ".25", "m" + strconv.Itoa(i)} }),
			{"GETEX", p + ":str", "PX", "500009"}, {"PEXPIRE", p + ":bigzset", "200023"},
			{"XADD", p + ":stream", "1-1", "f", "v"}, {"XADD", p + ":stream", "1-2", "f", "w", "g", "x"},
			{"XADD", p + ":stream", "2-0", "a", "b"},
			{"XGROUP", "CREATE", p + ":stream", "g", "0"},
			{"XREADGROUP", "GROUP", "g", "alice", "COUNT", "2", "STREAMS", p + ":stream", ">"},
			{"XACK", p + ":stream", "g", "1-1"},
			{"XGROUP", "CREATECONSUMER", p + ":stream", "g", "bob"},
			{"XGROUP", "CREATE", p + ":stream", "g2", "$"}, {"PEXPIRE", p + ":stream", "400013"},
			{"PFADD", p + ":hll", "a", "b", "c"},
			many([]string{"PFADD", p + ":bighll"}, 3000, func(i int) []string { return []string{strconv.Itoa(i)} }),
			{"SETBIT", p + ":bits", "7", "1"}, {"SETBIT", p + ":bits", "100000", "1"}, {"PEXPIRE", p + ":bits", "300017"},
			{"GEOADD", p + ":geo", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"},
			{"SET", p + ":gone", "x", "PX", "1"}, {"HSET", p + ":gonehash", "f", "v"}, {"PEXPIRE", p + ":gonehash", "1"},
		} {
			if got := c.Do(cmd...); strings.HasPrefix(got, "-") {
				t.Fatalf("%.40q: %q", cmd, got)
			}
		}
		// The master expires them (its DELs go to the replica).
		waitFor(t, func() bool { return c.Do("EXISTS", p+":gone", p+":gonehash") == ":0\r\n" })
	}
}

// unreplicated are the fields of XINFO STREAM FULL a replica does not
// share with its master in Redis 7.0 either: a consumer's seen-time (the
// replica's clock when it applied the consumer's command), and a group's
// entries-read and lag (XREADGROUP propagates XCLAIM ... LASTID, which
// leaves the replica's entries-read unknown).
var unreplicated = regexp.MustCompile(`(seen-time|entries-read|lag)\r\n(:\d+|\$-1)\r\n`)

// sameData compares master m's dataset with replica r's once r caught
// up: DEBUG DIGEST, then every key of every database: its type,
// encoding, value digest, absolute expiry (PEXPIRETIME, to the
// millisecond), and a stream's groups, consumers and pending entries.
func sameData(t *testing.T, m, r *replNode) {
	t.Helper()
	caughtUp(t, m, r)
	if got, want := r.c.Do("DEBUG", "DIGEST"), m.c.Do("DEBUG", "DIGEST"); got != want {
		t.Errorf("replica's DEBUG DIGEST %q, master's %q", got, want)
	}
	keyspace := m.c.Do("INFO", "keyspace")
	if got := r.c.Do("INFO", "keyspace"); keysOf(got) != keysOf(keyspace) {
		t.Errorf("replica's keyspace %q, master's %q", got, keyspace)
	}
	for db := range 16 {
		if !strings.Contains(keyspace, fmt.Sprintf("db%d:", db)) {
			continue
		}
		m.c.Do("SELECT", strconv.Itoa(db))
		r.c.Do("SELECT", strconv.Itoa(db))
		keys, _ := lockBulks(m.c.Do("KEYS", "*"))
		for _, k := range keys {
			cmds := [][]string{{"TYPE", k}, {"DEBUG", "DIGEST-VALUE", k}, {"PEXPIRETIME", k}}
			if m.c.Do("TYPE", k) != "+string\r\n" {
				// (A string's depends on how it was made: a short one
				// loaded from a snapshot is embstr, made raw by PFADD.)
				cmds = append(cmds, []string{"OBJECT", "ENCODING", k})
			}
			for _, cmd := range cmds {
				if got, want := r.c.Do(cmd...), m.c.Do(cmd...); got != want {
					t.Errorf("db %d: %q: replica %q, master %q", db, cmd, got, want)
				}
			}
			if m.c.Do("TYPE", k) == "+stream\r\n" {
				got := unreplicated.ReplaceAllString(r.c.Do("XINFO", "STREAM", k, "FULL"), "$1\r\n<?>\r\n")
				want := unreplicated.ReplaceAllString(m.c.Do("XINFO", "STREAM", k, "FULL"), "$1\r\n<?>\r\n")
				if got != want {
					t.Errorf("db %d: XINFO STREAM %s FULL: replica %q, master %q", db, k, got, want)
				}
			}
		}
	}
	m.c.Do("SELECT", "0")
	r.c.Do("SELECT", "0")
}

// keysOf is INFO keyspace's lines without the average TTLs (each
// server's own estimate; a replica's is 0).
func keysOf(info string) string {
	_, info, _ = strings.Cut(info, "# Keyspace")
	return regexp.MustCompile(`,avg_ttl=\d+`).ReplaceAllString(info, "")
}

// TestReplicationAllTypes: every type, small and big encodings, with
// millisecond TTLs, on two databases, is equal on the replica after the
// full synchronization and after streaming (new keys, and changes to the
// synchronized ones), both ways.
func TestReplicationAllTypes(t *testing.T) {
	for _, d := range replDirections {
		t.Run(d.name, func(t *testing.T) {
			m := startReplNode(t, d.hotkvMaster)
			fillTypes(t, m.c, "full")
			r := m.replicaOf(d.hotkvReplica)
			sameData(t, m, r)
			fillTypes(t, m.c, "stream")
			for _, cmd := range [][]string{
				{"LPOP", "full:biglist"}, {"HDEL", "full:hash", "f1"}, {"ZINCRBY", "full:bigzset", "0.5", "m7"},
				{"SREM", "full:intset", "2"}, {"XDEL", "full:stream", "1-2"}, {"PERSIST", "full:int"},
				{"PEXPIRE", "full:str", "123457"}, {"SETRANGE", "full:raw", "3", "xyz"}, {"INCR", "full:int"},
				{"XCLAIM", "full:stream", "g", "bob", "0", "2-0"}, {"PFADD", "full:hll", "d"},
				{"BITOP", "OR", "full:bits2", "full:bits", "stream:bits"}, {"RENAME", "full:geo", "full:geo2"},
				// Commands a master rewrites for its stream.
				{"SPOP", "full:bigset", "3"}, {"INCRBYFLOAT", "full:int", "0.5"}, {"HINCRBYFLOAT", "full:hash", "f2", "1.5"},
				{"SET", "full:str", "kept", "KEEPTTL"}, {"GETEX", "stream:str", "EXAT", "4102444800"},
				{"PSETEX", "full:psetex", "654321", "v"}, {"PEXPIRE", "stream:raw", "-1"}, {"EXPIRE", "full:intset", "100", "NX"},
				{"XAUTOCLAIM", "stream:stream", "g", "carol", "0", "0-0"}, {"XTRIM", "stream:stream", "MINID", "1-2"},
				{"LMOVE", "full:list", "stream:list", "LEFT", "RIGHT"}, {"ZPOPMIN", "full:zset"}, {"COPY", "full:bighll", "copied"},
				{"SORT", "full:list", "ALPHA", "STORE", "sorted"}, {"PFMERGE", "merged", "full:hll", "stream:bighll"},
				{"GEOSEARCHSTORE", "near", "full:geo2", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "ASC"},
				{"MOVE", "full:set", "7"}, {"SWAPDB", "0", "5"},
			} {
				if got := m.c.Do(cmd...); strings.HasPrefix(got, "-") {
					t.Fatalf("%q: %q", cmd, got)
				}
			}
			sameData(t, m, r)
		})
	}
}

// TestPartialResyncInterop: a replica whose link drops (CLIENT KILL TYPE
// master on the replica, TYPE replica on the master) or that restarts
// from its snapshot continues with PSYNC (+CONTINUE: the master's
// sync_partial_ok grows, sync_full does not) and gets the writes made
// while it was away (keys of every type, expiries, a transaction, a
// script), both ways.
func TestPartialResyncInterop(t *testing.T) {
	for _, d := range replDirections {
		for _, how := range []string{"kill-master", "kill-replica", "restart"} {
			t.Run(d.name+"/"+how, func(t *testing.T) {
				m := startReplNode(t, d.hotkvMaster)
				m.c.Do("SET", "before", "1")
				m.c.Do("RPUSH", "l", "a", "b")
				r := m.replicaOf(d.hotkvReplica)
				caughtUp(t, m, r)
				waitLong(t, "replica online", func() bool { return strings.Contains(m.c.Do("INFO", "replication"), "state=online") })
				partial, full := m.info("stats", "sync_partial_ok"), m.info("stats", "sync_full")
				writes := func() {
					fillTypes(t, m.c, "away")
					m.c.Do("SET", "away", "1", "PX", "600000")
					m.c.Do("SELECT", "2")
					m.c.Do("MULTI")
					m.c.Do("INCR", "n")
					m.c.Do("LPUSH", "l", "x")
					m.c.Do("EXEC")
					m.c.Do("SELECT", "0")
					m.c.Do("EVAL", "return redis.call('rpush', KEYS[1], 'c')", "1", "l")
				}
				switch how {
				case "kill-master":
					if got := r.c.Do("CLIENT", "KILL", "TYPE", "master"); got != ":1\r\n" {
						t.Fatalf("CLIENT KILL TYPE master: %q", got)
					}
					writes()
				case "kill-replica":
					if got := m.c.Do("CLIENT", "KILL", "TYPE", "replica"); got != ":1\r\n" {
						t.Fatalf("CLIENT KILL TYPE replica: %q", got)
					}
					writes()
				case "restart":
					r.restart(writes)
				}
				sameData(t, m, r)
				if got := r.c.Do("GET", "away"); got != "$1\r\n1\r\n" {
					t.Errorf("the write made while away: %q", got)
				}
				waitLong(t, "the master's sync_partial_ok to grow", func() bool { return m.info("stats", "sync_partial_ok") != partial })
				p, _ := strconv.Atoi(partial)
				if got := m.info("stats", "sync_partial_ok"); got != strconv.Itoa(p+1) {
					t.Errorf("sync_partial_ok %s -> %s", partial, got)
				}
				if got := m.info("stats", "sync_full"); got != full {
					t.Errorf("sync_full %s -> %s: the replica synchronized again", full, got)
				}
			})
		}
	}
}

// TestWaitInterop: WAIT on the master counts the other server's
// acknowledgements (a redis-server master's REPLCONF GETACK answered by a
// HotKV replica, and the reverse), and waits its timeout for replicas it
// does not have.
func TestWaitInterop(t *testing.T) {
	for _, d := range replDirections {
		t.Run(d.name, func(t *testing.T) {
			m := startReplNode(t, d.hotkvMaster)
			r := m.replicaOf(d.hotkvReplica)
			waitLong(t, "replica online", func() bool { return strings.Contains(m.c.Do("INFO", "replication"), "state=online") })
			for i := range 3 {
				m.c.Do("INCR", "n")
				start := time.Now()
				if got := m.c.Do("WAIT", "1", "10000"); got != ":1\r\n" {
					t.Errorf("WAIT 1 10000: %q after %v", got, time.Since(start))
				}
				if got := r.c.Do("GET", "n"); got != "$1\r\n"+strconv.Itoa(i+1)+"\r\n" {
					t.Errorf("GET n on the replica after WAIT: %q", got)
				}
			}
			m.c.Do("SET", "k", "v")
			start := time.Now()
			if got := m.c.Do("WAIT", "2", "200"); got != ":1\r\n" || time.Since(start) < 200*time.Millisecond {
				t.Errorf("WAIT 2 200: %q after %v", got, time.Since(start))
			}
		})
	}
}

// TestPromotionInterop: a replica promoted with REPLICAOF NO ONE keeps
// the data and takes writes; its old master, made its replica, continues
// from there with PSYNC (the new master's second replication ID) without
// a full synchronization, both ways. (FAILOVER both ways:
// TestFailoverInterop.)
func TestPromotionInterop(t *testing.T) {
	for _, d := range replDirections {
		t.Run(d.name, func(t *testing.T) {
			m := startReplNode(t, d.hotkvMaster)
			m.c.Do("SET", "k", "1", "PX", "500000")
			m.c.Do("ZADD", "z", "1", "a")
			r := m.replicaOf(d.hotkvReplica)
			m.c.Do("INCR", "k")
			caughtUp(t, m, r)
			if got := r.c.Do("REPLICAOF", "NO", "ONE"); got != "+OK\r\n" {
				t.Fatalf("REPLICAOF NO ONE: %q", got)
			}
			if got := r.c.Do("INCR", "k"); got != ":3\r\n" {
				t.Errorf("INCR on the promoted replica: %q", got)
			}
			r.c.Do("ZADD", "z", "2", "b")
			if got := m.c.Do("REPLICAOF", "127.0.0.1", r.port); got != "+OK\r\n" {
				t.Fatalf("REPLICAOF on the old master: %q", got)
			}
			sameData(t, r, m)
			if got := m.c.Do("GET", "k"); got != "$1\r\n3\r\n" {
				t.Errorf("the old master's k: %q", got)
			}
			if p, f := r.info("stats", "sync_partial_ok"), r.info("stats", "sync_full"); p != "1" || f != "0" {
				t.Errorf("the promoted replica served sync_partial_ok %s, sync_full %s", p, f)
			}
		})
	}
}

// TestReplicaTransactionsAtomic: a transaction (MULTI/EXEC, or a
// script, which the master propagates as one) that changes keys of
// several hash tags is never seen half-applied on a HotKV replica by
// concurrent readers (MGET, MULTI/EXEC, a script), with a HotKV master
// and with a redis-server master. It fails if the replica applied the
// unit's commands one by one, releasing a key before the unit ended.
func TestReplicaTransactionsAtomic(t *testing.T) {
	for _, hotkvMaster := range []bool{true, false} {
		name := map[bool]string{true: "hotkv-master", false: "redis-master"}[hotkvMaster]
		t.Run(name, func(t *testing.T) {
			m := startReplNode(t, hotkvMaster)
			r := m.replicaOf(true)
			const readers = 4
			stop := time.Now().Add(2 * time.Second)
			conns := lockConns(t, r.addr, readers)
			w := dialLock(t, m.addr)
			var wg sync.WaitGroup
			var reads, changes atomic.Int64
			var done atomic.Bool
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer done.Store(true)
				script := "redis.call('incr', KEYS[1]) redis.call('set', KEYS[4], ARGV[1]) " +
					"redis.call('hincrby', KEYS[3], 'f', 1) return redis.call('incr', KEYS[2])"
				for i := 0; time.Now().Before(stop); i++ {
					var batch [][]string
					for j := range 10 {
						v := strconv.Itoa(i*10 + j)
						if j%3 == 2 {
							batch = append(batch, []string{"EVAL", script, "4", "{a}x", "{b}y", "{c}h", "{d}pad", v})
							continue
						}
						batch = append(batch, []string{"MULTI"}, []string{"INCR", "{a}x"}, []string{"SET", "{d}pad", v},
							[]string{"HINCRBY", "{c}h", "f", "1"}, []string{"INCR", "{b}y"}, []string{"EXEC"})
					}
					if out, err := w.pipeline(batch); err != nil || strings.HasPrefix(out[len(out)-1], "-") {
						t.Errorf("writer: %q %v", out, err)
						return
					}
				}
			}()
			for rd := range readers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					c, prev := conns[rd], ""
					for i := 0; !done.Load(); i++ {
						var vs []string
						var raw string
						var err error
						switch i % 3 {
						case 0:
							raw, err = c.do("MGET", "{b}y", "{a}x")
							if vs, _ = lockBulks(raw); len(vs) == 2 {
								vs = append(vs, vs[0])
							}
						case 1:
							var out []string
							out, err = c.pipeline([][]string{{"MULTI"}, {"GET", "{a}x"}, {"HGET", "{c}h", "f"}, {"GET", "{b}y"}, {"EXEC"}})
							if err == nil {
								raw = out[4]
								vs, _ = lockBulks(raw)
							}
						case 2:
							raw, err = c.do("EVAL", "return {redis.call('get', KEYS[1]), redis.call('hget', KEYS[2], 'f'), redis.call('get', KEYS[3])}",
								"3", "{a}x", "{c}h", "{b}y")
							vs, _ = lockBulks(raw)
						}
						if err != nil || len(vs) != 3 {
							t.Errorf("reader %d: %q %v", rd, raw, err)
							return
						}
						if vs[0] != vs[1] || vs[1] != vs[2] {
							t.Errorf("reader %d: a half-applied transaction: %q", rd, raw)
							return
						}
						reads.Add(1)
						if vs[0] != prev {
							changes.Add(1)
							prev = vs[0]
						}
					}
				}()
			}
			wg.Wait()
			t.Logf("%d reads, %d changes seen", reads.Load(), changes.Load())
			if changes.Load() < 20 {
				t.Errorf("readers saw only %d changes: the test did not race", changes.Load())
			}
			sameData(t, m, r)
		})
	}
}
