package server

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hotkv/hotkv/config"
	"github.com/hotkv/hotkv/internal/difftest"
	"github.com/hotkv/hotkv/keyspace"
)

// memInfo returns an integer field of c's INFO memory, or of INFO stats
// for evicted_keys.
func memInfo(t *testing.T, c *difftest.Conn, field string) int64 {
	t.Helper()
	section := "memory"
	if field == "evicted_keys" {
		section = "stats"
	}
	n, err := strconv.ParseInt(bhvField(c.Do("INFO", section), field), 10, 64)
	if err != nil {
		t.Fatalf("INFO %s: %v", field, err)
	}
	return n
}

// fillToLimit sets maxmemory to 100 KB over what c's server uses, under
// policy, and adds keys with add until used_memory is within 4 KB of it
// (unit/maxmemory's set-up). It returns the limit and the keys added.
//
// used_memory is read between steps of keys, not after every key: INFO
// memory costs HotKV some 15 ms under the race detector (it counts the
// keys of every shard of every database), and a fill of small keys took
// a thousand of them. A step is 8 keys at first (or while used_memory
// has not grown), then half the keys that fit in the room left below the
// 4 KB margin at the bytes a key took so far, at least one. A step of
// several keys thus takes at most half that room (keys up to twice the
// average would still fit; a fill's keys are all alike) and cannot
// cross the margin: the fill ends, as when it checked every key, at the
// first key that brings used_memory within 4 KB of the limit.
func fillToLimit(t *testing.T, c *difftest.Conn, policy string, add func(i int)) (limit int64, n int) {
	t.Helper()
	c.Do("FLUSHALL")
	start := memInfo(t, c, "used_memory")
	limit = start + 100*1024
	c.Do("CONFIG", "SET", "maxmemory", strconv.FormatInt(limit, 10))
	c.Do("CONFIG", "SET", "maxmemory-policy", policy)
	for used := start; used+4096 <= limit; used = memInfo(t, c, "used_memory") {
		step := int64(8)
		if n > 0 && used > start {
			perKey := (used - start + int64(n) - 1) / int64(n)
			step = max((limit-4096-used)/(2*perKey), 1)
		}
		for range step {
			add(n)
			n++
		}
	}
	if n <= 10 {
		t.Fatalf("%s: only %d keys before the limit", policy, n)
	}
	return limit, n
}

// TestMaxmemoryPolicies is unit/maxmemory's policy tests on HotKV and on
// Redis: each policy keeps used_memory under the limit while as many keys
// again are added; volatile policies evict only keys with an expiry and
// refuse writes with Redis's OOM error once none is left; noeviction
// refuses them at once.
func TestMaxmemoryPolicies(t *testing.T) {
	redis := difftest.StartRedis(t)
	_, hotkv := startServer(t)
	x := strings.Repeat("x", 1000) // fewer keys to the limit than Redis's test's "x"
	for _, server := range []struct{ name, addr string }{{"redis", redis}, {"hotkv", hotkv}} {
		c := difftest.Dial(t, server.addr)
		for _, policy := range []string{"allkeys-random", "allkeys-lru", "allkeys-lfu",
			"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl"} {
			// Honoured with volatile keys.
			key := func(i int) string { return fmt.Sprintf("key:%d:%d", i, rand.IntN(1e9)) }
			limit, n := fillToLimit(t, c, policy, func(i int) { c.Do("SETEX", key(i), "10000", x) })
			for i := range n {
				if r := c.Do("SETEX", key(i), "10000", x); r != "+OK\r\n" {
					t.Fatalf("%s %s: SETEX: %q", server.name, policy, r)
				}
			}
			if used := memInfo(t, c, "used_memory"); used >= limit+4096 {
				t.Errorf("%s %s: used_memory %d over the limit %d", server.name, policy, used, limit)
			}
			// Only volatile keys evicted: half the keys have no expiry.
			_, n = fillToLimit(t, c, policy, func(i int) {
				if i%2 == 1 {
					c.Do("SETEX", fmt.Sprintf("key:%d", i), "10000", x)
				} else {
					c.Do("SET", fmt.Sprintf("key:%d", i), x)
				}
			})
			oom := false
			for i := range n {
				r := c.Do("SETEX", fmt.Sprintf("foo:%d", i), "10000", x)
				oom = oom || strings.Contains(r, "used memory")
			}
			if strings.HasPrefix(policy, "volatile-") {
				for i := 0; i < n; i += 2 {
					if r := c.Do("EXISTS", fmt.Sprintf("key:%d", i)); r != ":1\r\n" {
						t.Fatalf("%s %s: key:%d (no expiry) was evicted", server.name, policy, i)
					}
				}
			}
			// Plain SETs: allkeys-* still fit, volatile-* run out of
			// volatile keys and refuse writes.
			_, n = fillToLimit(t, c, policy, func(i int) { c.Do("SET", key(i), x) })
			oom = false
			for i := range n {
				if r := c.Do("SET", key(i), x); strings.HasPrefix(r, "-") {
					if r != "-OOM command not allowed when used memory > 'maxmemory'.\r\n" {
						t.Fatalf("%s %s: %q", server.name, policy, r)
					}
					oom = true
				}
			}
			if strings.HasPrefix(policy, "allkeys-") == oom {
				t.Errorf("%s %s: OOM refusals %v", server.name, policy, oom)
			}
		}
		// noeviction refuses writes, not reads, nor DEL.
		fillToLimit(t, c, "noeviction", func(i int) { c.Do("SET", fmt.Sprint("k", i), "x") })
		for i := 0; ; i++ {
			r := c.Do("SET", fmt.Sprint("more", i), "x")
			if strings.HasPrefix(r, "-OOM") {
				break
			}
			if i > 1000 {
				t.Fatalf("%s noeviction: no OOM", server.name)
			}
		}
		if r := c.Do("GET", "k1"); r != "$1\r\nx\r\n" {
			t.Errorf("%s noeviction: GET %q", server.name, r)
		}
		if r := c.Do("DEL", "k1"); r != ":1\r\n" {
			t.Errorf("%s noeviction: DEL %q", server.name, r)
		}
		c.Do("CONFIG", "SET", "maxmemory", "0")
	}
}

// TestMaxmemoryVolatileTTL: volatile-ttl evicts the keys that expire
// soonest first.
func TestMaxmemoryVolatileTTL(t *testing.T) {
	_, addr := startServer(t)
	c := difftest.Dial(t, addr)
	_, n := fillToLimit(t, c, "volatile-ttl", func(i int) {
		c.Do("SET", fmt.Sprint("k", i), "x", "EX", strconv.Itoa(100000+i))
	})
	for i := range n / 4 {
		c.Do("SET", fmt.Sprint("late", i), "x", "EX", "900000")
	}
	t.Logf("%d keys, %d more, evicted %d", n, n/4, memInfo(t, c, "evicted_keys"))
	gone := 0
	for i := range n {
		if c.Do("EXISTS", fmt.Sprint("k", i)) == ":0\r\n" {
			gone++
			// Sampling is approximate: a key of the last quarter may go,
			// but the later keys survive far more often.
		}
	}
	if gone < n/8 {
		t.Fatalf("only %d of %d keys evicted", gone, n)
	}
	early, late := 0, 0
	for i := range n / 4 {
		if c.Do("EXISTS", fmt.Sprint("k", i)) == ":0\r\n" {
			early++
		}
		if c.Do("EXISTS", fmt.Sprint("k", n-1-i)) == ":0\r\n" {
			late++
		}
	}
	if early <= 2*late {
		t.Errorf("volatile-ttl evicted %d of the soonest quarter and %d of the latest", early, late)
	}
}

// hitRate fills c's server with n keys, lets them age past the access
// clock's one-second resolution, reads the first hot ones a few times,
// then, under maxmemory-policy policy and a limit at what the n keys
// take, writes n/2 new keys; it returns the fraction of the hot keys
// still there.
func hitRate(t *testing.T, addr, policy string, n, hot int) float64 {
	c := difftest.Dial(t, addr)
	c.Do("FLUSHALL")
	c.Do("CONFIG", "SET", "maxmemory", "0")
	c.Do("CONFIG", "SET", "maxmemory-policy", policy)
	val := strings.Repeat("v", 200)
	var pipe []byte
	for i := range n {
		pipe = append(pipe, difftest.Encode("SET", fmt.Sprint("key:", i), val)...)
	}
	c.Send(pipe)
	for range n {
		c.Read()
	}
	limit := memInfo(t, c, "used_memory")
	time.Sleep(2100 * time.Millisecond)
	for range 3 {
		for i := range hot {
			c.Do("GET", fmt.Sprint("key:", i))
		}
	}
	c.Do("CONFIG", "SET", "maxmemory", strconv.FormatInt(limit, 10))
	for i := range n / 2 {
		c.Do("SET", fmt.Sprint("new:", i), val)
	}
	hits := 0
	for i := range hot {
		if c.Do("EXISTS", fmt.Sprint("key:", i)) == ":1\r\n" {
			hits++
		}
	}
	c.Do("CONFIG", "SET", "maxmemory", "0")
	return float64(hits) / float64(hot)
}

// TestMaxmemoryKeepsWorkingSet: under allkeys-lru and allkeys-lfu a set
// of recently or often read keys survives a stream of writes about as
// well as on Redis (redis-cli --lru-test's idea: the approximation is as
// good), and far better than under allkeys-random.
func TestMaxmemoryKeepsWorkingSet(t *testing.T) {
	policies := []string{"allkeys-lru", "allkeys-lfu"}
	// Each hit rate on a server of its own, all at once: each waits
	// seconds for its keys to age.
	var mu sync.Mutex
	rates := map[string]float64{} // "redis allkeys-lru", ...
	t.Run("rates", func(t *testing.T) {
		for _, run := range []string{"hotkv allkeys-random", "redis allkeys-lru", "hotkv allkeys-lru",
			"redis allkeys-lfu", "hotkv allkeys-lfu"} {
			t.Run(run, func(t *testing.T) {
				t.Parallel()
				server, policy, _ := strings.Cut(run, " ")
				var addr string
				if server == "redis" {
					addr = difftest.StartRedis(t)
				} else {
					_, addr = startServer(t)
				}
				rate := hitRate(t, addr, policy, 2000, 200)
				mu.Lock()
				rates[run] = rate
				mu.Unlock()
			})
		}
	})
	if t.Failed() {
		return
	}
	if len(rates) < 5 {
		t.Skip("a run skipped (no redis-server)")
	}
	random := rates["hotkv allkeys-random"]
	for _, policy := range policies {
		want, got := rates["redis "+policy], rates["hotkv "+policy]
		t.Logf("%s: hot keys kept: redis %.2f, hotkv %.2f (allkeys-random %.2f)", policy, want, got, random)
		if got < want-0.1 || got < random+0.3 {
			t.Errorf("%s: hotkv kept %.2f of the hot keys, redis %.2f, random %.2f", policy, got, want, random)
		}
	}
}

// TestObjectFreq: OBJECT FREQ follows Redis's LFU counter where it is
// deterministic (a new key's 5, the certain first increment), RESTORE
// FREQ sets it, and OBJECT IDLETIME / FREQ refuse under the other policy.
func TestObjectFreq(t *testing.T) {
	p, _, _, _ := bhvPair(t)
	p.Run(`
		CONFIG SET maxmemory-policy allkeys-lfu
		SET k v
		OBJECT FREQ k
		GET k
		OBJECT FREQ k
		OBJECT IDLETIME k
		SET k2 v
		SET k2 w
		OBJECT FREQ k2
	`)
	dump := p.Redis.Do("DUMP", "k")
	payload := dump[strings.Index(dump, "\r\n")+2 : len(dump)-2]
	p.DoArgs("RESTORE", "k3", "0", payload, "FREQ", "100")
	p.Run(`
		OBJECT FREQ k3
		CONFIG SET maxmemory-policy allkeys-lru
		OBJECT FREQ k
		CONFIG SET maxmemory-policy noeviction
	`)
}

// TestEvictionSignals: an evicted key is announced with the `evicted`
// keyspace event, touches a WATCH, counts in evicted_keys, and goes to
// the replication stream as DEL — as on Redis.
func TestEvictionSignals(t *testing.T) {
	redis := difftest.StartRedis(t)
	_, hotkv := startServer(t)
	for _, addr := range []string{redis, hotkv} {
		c, sub, w := difftest.Dial(t, addr), difftest.Dial(t, addr), difftest.Dial(t, addr)
		c.Do("CONFIG", "SET", "notify-keyspace-events", "Ee")
		sub.Do("SUBSCRIBE", "__keyevent@0__:evicted")
		c.Do("SET", "victim", "x")
		w.Do("WATCH", "victim")
		w.Do("MULTI")
		w.Do("SET", "victim", "y")
		c.Do("CONFIG", "SET", "maxmemory-policy", "allkeys-lru")
		c.Do("CONFIG", "SET", "maxmemory", "1")
		// The next command evicts (and CONFIG SET started a background
		// evictor): wait for the database to empty.
		deadline := time.Now().Add(5 * time.Second)
		for c.Do("DBSIZE") != ":0\r\n" {
			if time.Now().After(deadline) {
				t.Fatalf("%s: keys not evicted", addr)
			}
			time.Sleep(5 * time.Millisecond)
		}
		msg, err := sub.ReadErr(2 * time.Second)
		if want := "*3\r\n$7\r\nmessage\r\n$22\r\n__keyevent@0__:evicted\r\n$6\r\nvictim\r\n"; err != nil || msg != want {
			t.Errorf("%s: evicted event %q, %v", addr, msg, err)
		}
		c.Do("CONFIG", "SET", "maxmemory", "0")
		if r := w.Do("EXEC"); r != "*-1\r\n" {
			t.Errorf("%s: EXEC after the watched key's eviction: %q", addr, r)
		}
		if n := memInfo(t, c, "evicted_keys"); n != 1 {
			t.Errorf("%s: evicted_keys %d", addr, n)
		}
		c.Do("CONFIG", "SET", "maxmemory-policy", "noeviction")
	}
}

// TestEvictionPropagatesDel is unit/maxmemory's "propagation with
// eviction in MULTI": writes inside EXEC are not refused or evicted while
// it runs; the eviction afterwards reaches a replica as DEL.
func TestEvictionPropagatesDel(t *testing.T) {
	_, master := startServer(t, "--repl-diskless-sync-delay", "0")
	_, replica := startServer(t)
	m, r := difftest.Dial(t, master), difftest.Dial(t, replica)
	host, port, _ := strings.Cut(master, ":")
	r.Do("REPLICAOF", host, port)
	waitFor(t, func() bool { return strings.Contains(r.Do("INFO", "replication"), "master_link_status:up") })
	m.Do("CONFIG", "SET", "maxmemory-policy", "allkeys-lru")
	m.Do("SET", "other", "1")
	m.Do("MULTI")
	m.Do("INCR", "x")
	m.Do("CONFIG", "SET", "maxmemory", "1")
	m.Do("INCR", "x")
	if got := m.Do("EXEC"); got != "*3\r\n:1\r\n+OK\r\n:2\r\n" {
		t.Fatalf("EXEC: %q", got)
	}
	waitFor(t, func() bool { return m.Do("DBSIZE") == ":0\r\n" })
	waitFor(t, func() bool { return r.Do("DBSIZE") == ":0\r\n" })
	m.Do("CONFIG", "SET", "maxmemory", "0")
}

// TestEvictionUnderConcurrentWrites: clients on several event loops write
// and read under allkeys-lru while the evictor runs: no deadlock, memory
// stays near the limit, and every value read is whole (a value is its
// key repeated, so a torn or mixed-up write would show).
func TestEvictionUnderConcurrentWrites(t *testing.T) {
	_, addr := startServer(t, "--maxmemory", "4mb", "--maxmemory-policy", "allkeys-lru",
		"--maxmemory-eviction-tenacity", "0")
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := difftest.Dial(t, addr)
			for i := range 1500 {
				k := fmt.Sprintf("{t%d}k%d", i%4, rand.IntN(4000))
				v := strings.Repeat(k, 40)
				if r := c.Do("SET", k, v); r != "+OK\r\n" {
					errs <- fmt.Sprintf("writer %d: SET %q", w, r)
					return
				}
				k = fmt.Sprintf("{t%d}k%d", rand.IntN(4), rand.IntN(4000))
				if r := c.Do("GET", k); r != "$-1\r\n" && r != fmt.Sprintf("$%d\r\n%s\r\n", 40*len(k), strings.Repeat(k, 40)) {
					errs <- fmt.Sprintf("writer %d: GET %s: %q", w, k, r)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	c := difftest.Dial(t, addr)
	if used := memInfo(t, c, "used_memory"); used > 4<<20+64<<10 {
		t.Errorf("used_memory %d over maxmemory 4mb", used)
	}
	if memInfo(t, c, "evicted_keys") == 0 {
		t.Error("nothing evicted")
	}
}

// TestRDBAccessInfo: under an LFU policy the snapshot carries each key's
// counter, under an LRU one its idle time (RDB_OPCODE_FREQ and _IDLE, as
// Redis's rdbSaveKeyValuePair writes them), and redis-server loading the
// file under the same policy reads them back — and the reverse.
func TestRDBAccessInfo(t *testing.T) {
	for _, c := range []struct {
		policy, set, ask, want string
	}{
		{"allkeys-lfu", "FREQ", "FREQ", ":100\r\n"},
		{"allkeys-lru", "IDLETIME", "IDLETIME", ":1000\r\n"},
	} {
		args := []string{"--maxmemory-policy", c.policy, "--lfu-decay-time", "0"}
		hdir, rdir := t.TempDir(), t.TempDir()
		_, haddr := startServer(t, append(args, "--dir", hdir)...)
		raddr := difftest.StartRedis(t, append(args, "--dir", rdir)...)
		h, r := difftest.Dial(t, haddr), difftest.Dial(t, raddr)
		r.Do("SET", "src", "value")
		dump := r.Do("DUMP", "src")
		payload := dump[strings.Index(dump, "\r\n")+2 : len(dump)-2]
		for _, conn := range []*difftest.Conn{h, r} {
			if got := conn.Do("RESTORE", "k", "0", payload, c.set, strings.Trim(c.want, ":\r\n")); got != "+OK\r\n" {
				t.Fatalf("RESTORE: %q", got)
			}
			conn.Do("SAVE")
		}
		// Each server's file, loaded by the other.
		for _, from := range []struct{ dir, name string }{{hdir, "hotkv"}, {rdir, "redis"}} {
			data, err := os.ReadFile(filepath.Join(from.dir, "dump.rdb"))
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "dump.rdb"), data, 0o644); err != nil {
				t.Fatal(err)
			}
			var addr string
			if from.name == "hotkv" {
				addr = difftest.StartRedis(t, append(args, "--dir", dir)...)
			} else {
				_, addr = startServer(t, append(args, "--dir", dir)...)
			}
			got := difftest.Dial(t, addr).Do("OBJECT", c.ask, "k")
			if c.ask == "IDLETIME" && got == ":1001\r\n" {
				got = c.want // a second may turn between save and load
			}
			if got != c.want {
				t.Errorf("%s: OBJECT %s of a key from %s's file: %q, want %q", c.policy, c.ask, from.name, got, c.want)
			}
		}
	}
}

// TestFlushReturnsMemory: the memory a FLUSHALL frees goes back to the
// operating system within seconds (Redis's allocator returns it at once;
// Go's scavenger would keep most of it).
func TestFlushReturnsMemory(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory makes RSS meaningless")
	}
	_, addr := startServer(t, "--enable-debug-command", "yes")
	c := difftest.Dial(t, addr)
	before := rssBytes()
	c.Do("DEBUG", "POPULATE", "1000000")
	grown := rssBytes() - before
	if grown < 50<<20 {
		t.Fatalf("RSS grew by only %d MB with a million keys", grown>>20)
	}
	c.Do("FLUSHALL")
	deadline := time.Now().Add(5 * time.Second)
	for rssBytes()-before > grown/4 {
		if time.Now().After(deadline) {
			t.Fatalf("RSS still %d MB over the start 5 s after FLUSHALL (%d MB with the keys)",
				(rssBytes()-before)>>20, grown>>20)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestLoadReturnsMemory: the garbage a start-up load leaves (each
// collection is decoded into a value the keyspace then builds its own
// from) goes back to the operating system within seconds: RSS comes down
// to about what a forced return would leave. (A DEBUG RELOAD's flush
// returns memory by itself: used_memory drops.)
func TestLoadReturnsMemory(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory makes RSS meaningless")
	}
	dir := t.TempDir()
	serve := func() (*Server, *difftest.Conn) {
		cfg, err := config.Load("", []string{"--port", strconv.Itoa(difftest.FreePort(t)), "--bind", "127.0.0.1",
			"--dir", dir, "--save", ""})
		if err != nil {
			t.Fatal(err)
		}
		s, addr := serveConfig(t, cfg)
		return s, difftest.Dial(t, addr)
	}
	a, c := serve()
	const hashes, batch = 200000, 1000
	for i := 0; i < hashes; i += batch {
		var pipe []byte
		for j := i; j < i+batch; j++ {
			k := strconv.Itoa(j)
			pipe = append(pipe, difftest.Encode("HSET", "h:"+k, "a", k, "b", k, "c", k, "d", k, "e", k)...)
		}
		c.Send(pipe)
		for j := 0; j < batch; j++ {
			c.Read()
		}
	}
	c.Do("SAVE")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	a.Shutdown(ctx)
	debug.FreeOSMemory()
	before := rssBytes()
	_, c = serve() // loads dump.rdb
	if got := c.Do("DBSIZE"); got != ":200000\r\n" {
		t.Fatalf("DBSIZE after the load: %q", got)
	}
	loaded := rssBytes() - before
	time.Sleep(3 * time.Second)
	left := rssBytes()
	debug.FreeOSMemory()
	if extra := left - rssBytes(); extra > loaded/5 {
		t.Fatalf("3 s after a load that grew RSS by %d MB, a forced return still gave back %d MB", loaded>>20, extra>>20)
	}
}

// TestEvictionRecycledValuesIntact: under a write flood at maxmemory the
// evicted strings' buffers are recycled for new values (keyspace's
// bufpool.go), while pipelined readers (GET, MGET, GETRANGE, GETDEL, a
// script's GET) and a BGSAVE read values of every key. Every value read,
// and every value of the snapshot once loaded by a second server, must
// be its key's own: a buffer recycled while something still read it
// would show another key's bytes (-race reports the unordered accesses
// too).
func TestEvictionRecycledValuesIntact(t *testing.T) {
	dir := t.TempDir()
	_, addr := startServer(t, "--dir", dir, "--maxmemory", "2mb", "--maxmemory-policy", "allkeys-lru")
	_, reusedBefore := keyspace.BufferStats()
	value := func(k string) string { return strings.Repeat("<"+k+">", 1000/(len(k)+2)+1)[:1000] }
	bulk := func(k string) string { return fmt.Sprintf("$1000\r\n%s\r\n", value(k)) }
	key := func(r *rand.Rand) string { return fmt.Sprintf("{t%d}k%d", r.IntN(8), r.IntN(20000)) }
	var wg sync.WaitGroup
	errs := make(chan string, 32)
	fail := func(format string, a ...any) {
		select {
		case errs <- fmt.Sprintf(format, a...):
		default:
		}
	}
	const batch = 16
	for w := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := difftest.Dial(t, addr)
			r := rand.New(rand.NewPCG(uint64(w), 7))
			for range 300 {
				var out []byte
				for range batch {
					k := key(r)
					out = append(out, difftest.Encode("SET", k, value(k))...)
				}
				c.Send(out)
				for range batch {
					if rep := c.Read(); rep != "+OK\r\n" {
						fail("SET: %q", rep)
						return
					}
				}
			}
		}()
	}
	check := func(what, k, rep string) bool {
		if rep != "$-1\r\n" && rep != bulk(k) {
			fail("%s %s: %.60q", what, k, rep)
			return false
		}
		return true
	}
	for rd := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := difftest.Dial(t, addr)
			r := rand.New(rand.NewPCG(uint64(rd), 11))
			for range 300 {
				keys := make([]string, batch)
				var out []byte
				for i := range keys {
					keys[i] = key(r)
					switch i % 4 {
					case 0, 1:
						out = append(out, difftest.Encode("GET", keys[i])...)
					case 2:
						out = append(out, difftest.Encode("EVAL", "return redis.call('GET', KEYS[1])", "1", keys[i])...)
					default:
						out = append(out, difftest.Encode("GETRANGE", keys[i], "0", "-1")...)
					}
				}
				c.Send(out)
				for i, k := range keys {
					rep := c.Read()
					if i%4 == 3 && rep == "$0\r\n\r\n" {
						continue // GETRANGE of a missing key
					}
					if !check("read", k, rep) {
						return
					}
				}
				// Several keys of one tag at once, and a GETDEL.
				tag := fmt.Sprintf("{t%d}", r.IntN(8))
				mk := []string{tag + "k" + strconv.Itoa(r.IntN(20000)), tag + "k" + strconv.Itoa(r.IntN(20000))}
				rep := c.Do("MGET", mk[0], mk[1])
				if want0, want1 := []string{"$-1\r\n", bulk(mk[0])}, []string{"$-1\r\n", bulk(mk[1])}; !strings.HasPrefix(rep, "*2\r\n") ||
					!oneOfPair(rep[4:], want0, want1) {
					fail("MGET %v: %.80q", mk, rep)
					return
				}
				if k := key(r); !check("GETDEL", k, c.Do("GETDEL", k)) {
					return
				}
			}
		}()
	}
	// A snapshot taken while the flood recycles buffers.
	wg.Add(1)
	go func() {
		defer wg.Done()
		c := difftest.Dial(t, addr)
		deadline := time.Now().Add(20 * time.Second)
		for memInfo(t, c, "evicted_keys") < 500 && time.Now().Before(deadline) {
			time.Sleep(2 * time.Millisecond)
		}
		if rep := c.Do("BGSAVE"); !strings.HasPrefix(rep, "+") {
			fail("BGSAVE: %q", rep)
			return
		}
		for !strings.Contains(c.Do("INFO", "persistence"), "rdb_bgsave_in_progress:0") {
			if time.Now().After(deadline) {
				fail("BGSAVE did not end")
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	c := difftest.Dial(t, addr)
	if memInfo(t, c, "evicted_keys") == 0 {
		t.Fatal("nothing evicted")
	}
	if _, reused := keyspace.BufferStats(); reused == reusedBefore && !tieringTests {
		t.Error("no buffer was recycled")
	}
	// The snapshot, loaded by another server: every value its key's.
	_, addr2 := startServer(t, "--dir", dir)
	c2 := difftest.Dial(t, addr2)
	n := 0
	for _, k := range bulkArray(t, c2.Do("KEYS", "*")) {
		n++
		if rep := c2.Do("GET", k); rep != bulk(k) {
			t.Fatalf("the snapshot's %s: %.60q", k, rep)
		}
	}
	if n == 0 {
		t.Error("the snapshot holds no key")
	}
}

// oneOfPair reports whether s is one of a's replies followed by one of
// b's.
func oneOfPair(s string, a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if s == x+y {
				return true
			}
		}
	}
	return false
}

// bulkArray returns the strings of a raw array-of-bulks reply.
func bulkArray(t *testing.T, rep string) []string {
	t.Helper()
	line, rest, _ := strings.Cut(rep, "\r\n")
	n, err := strconv.Atoi(strings.TrimPrefix(line, "*"))
	if err != nil || !strings.HasPrefix(line, "*") {
		t.Fatalf("not an array: %.40q", rep)
	}
	out := make([]string, 0, n)
	for range n {
		line, rest, _ = strings.Cut(rest, "\r\n")
		l, err := strconv.Atoi(strings.TrimPrefix(line, "$"))
		if err != nil || len(rest) < l+2 {
			t.Fatalf("bad bulk in %.40q", rep)
		}
		out = append(out, rest[:l])
		rest = rest[l+2:]
	}
	return out
}

// TestEvictionPassWithinSlack: a write flood over maxmemory keeps
// used_memory between the limit less the pass's slack (and a key) and the
// limit plus a key: a pass frees a little more than the excess, so that
// the next writes skip it, but never much more. Every key evicted is
// counted once.
func TestEvictionPassWithinSlack(t *testing.T) {
	const mm = 4 << 20
	_, addr := startServer(t, "--maxmemory", strconv.Itoa(mm), "--maxmemory-policy", "allkeys-lru")
	c := difftest.Dial(t, addr)
	val := strings.Repeat("v", 1000)
	const n, batch = 8000, 16
	var raw []byte
	for i := 0; i < n; i += batch {
		raw = raw[:0]
		for j := range batch {
			k := fmt.Sprintf("key:%06d", i+j)
			raw = fmt.Appendf(raw, "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", len(k), k, len(val), val)
		}
		c.Send(raw)
		for range batch {
			if r := c.Read(); r != "+OK\r\n" {
				t.Fatalf("SET: %q", r)
			}
		}
	}
	time.Sleep(5 * time.Millisecond) // used_memory is summed anew after a millisecond
	used, evicted := memInfo(t, c, "used_memory"), memInfo(t, c, "evicted_keys")
	slack := int64(min(mm/1024, 64<<10))
	perKey := int64(1200) // a key of 1,000 bytes and its entry, with room
	if used > mm+perKey || used < mm-slack-perKey {
		t.Errorf("used_memory %d after the flood: want within [%d, %d]", used, mm-slack-perKey, mm+perKey)
	}
	dbsize, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimPrefix(c.Do("DBSIZE"), ":")), 10, 64)
	if dbsize+evicted != n {
		t.Errorf("dbsize %d + evicted_keys %d, want %d keys written", dbsize, evicted, n)
	}
}
