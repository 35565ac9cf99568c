package server

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hotkv/hotkv/config"
	"github.com/hotkv/hotkv/internal/difftest"
	"github.com/hotkv/hotkv/keyspace"
)

// expNewServer returns a server that is not listening, for driving the
// expiry cycle by hand.
func expNewServer(t *testing.T, args ...string) *Server {
	t.Helper()
	cfg, err := config.Load("", args)
	if err != nil {
		t.Fatal(err)
	}
	return New(cfg)
}

// expFill stores n string keys prefix:0..n-1 in db, with an expiry at
// expireAt (unix ms) unless it is 0.
func expFill(db *keyspace.DB, prefix string, n int, expireAt int64) {
	for i := range n {
		k := []byte(prefix + ":" + strconv.Itoa(i))
		db.SetString(k, []byte("v"), false)
		if expireAt != 0 {
			db.SetExpire(k, expireAt)
		}
	}
}

// expSetPX pipelines SET <prefix>:<i> v PX <ms> for n keys in database db
// over a fresh connection to addr.
func expSetPX(t *testing.T, addr string, db, n, ms int, prefix string) {
	t.Helper()
	c := difftest.Dial(t, addr)
	buf := difftest.Encode("SELECT", strconv.Itoa(db))
	for i := range n {
		buf = append(buf, difftest.Encode("SET", prefix+":"+strconv.Itoa(i), "v", "PX", strconv.Itoa(ms))...)
	}
	c.Send(buf)
	for range n + 1 {
		if r := c.Read(); r != "+OK\r\n" {
			t.Fatalf("%s: %q", addr, r)
		}
	}
}

// expKeyspace returns the body of INFO keyspace ("" when every database
// is empty, expired keys not yet removed included).
func expKeyspace(t *testing.T, c *difftest.Conn) string {
	t.Helper()
	return bhvSection(t, c.Do("INFO", "keyspace"), "Keyspace")
}

// Keys that expire without being accessed are removed by the cron's active
// expiry within about a second, in every database, as in Redis; each
// counts in expired_keys.
func TestExpireActive(t *testing.T) {
	p, _, raddr, haddr := bhvPair(t)
	p.Do("CONFIG RESETSTAT")
	var wg sync.WaitGroup
	elapsed := make([]time.Duration, 2)
	for i, addr := range []string{raddr, haddr} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			expSetPX(t, addr, 0, 1000, 50, "a")
			expSetPX(t, addr, 9, 300, 50, "b")
			expSetPX(t, addr, 15, 300, 50, "c")
			set := time.Now()
			c := difftest.Dial(t, addr)
			for expKeyspace(t, c) != "" && time.Since(set) < 5*time.Second {
				time.Sleep(10 * time.Millisecond)
			}
			elapsed[i] = time.Since(set)
		}()
	}
	wg.Wait()
	for i, who := range []string{"redis", "hotkv"} {
		t.Logf("%s: all keys gone after %v", who, elapsed[i])
		if elapsed[i] > 1500*time.Millisecond {
			t.Errorf("%s: keys with PX 50 still there after %v", who, elapsed[i])
		}
	}
	bhvSameFields(t, p, "stats", "expired_keys", "keyspace_hits", "keyspace_misses")
	bhvSameFields(t, p, "keyspace")
}

// DEBUG SET-ACTIVE-EXPIRE 0 stops the active expiry; keys that SWAPDB and
// FLUSHALL move or remove are still found (or forgotten) by the cycle.
func TestExpireSetActiveExpireAndSwapDB(t *testing.T) {
	p, _, raddr, haddr := bhvPair(t, "--enable-debug-command", "yes")
	p.Run(`
		CONFIG RESETSTAT
		DEBUG SET-ACTIVE-EXPIRE 0
	`)
	for _, addr := range []string{raddr, haddr} {
		expSetPX(t, addr, 1, 200, 20, "k")
		expSetPX(t, addr, 2, 100, 1000000, "persist")
	}
	time.Sleep(300 * time.Millisecond)
	p.Run(`
		SELECT 1
		DBSIZE
		SELECT 2
		DBSIZE
		FLUSHDB
		SWAPDB 0 1
		SELECT 0
		DBSIZE
		DEBUG SET-ACTIVE-EXPIRE 1
	`)
	deadline := time.Now().Add(2 * time.Second)
	for _, c := range []*difftest.Conn{p.Redis, p.HotKV} {
		for c.Do("DBSIZE") != ":0\r\n" && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
	}
	p.Run(`
		DBSIZE
		SELECT 1
		DBSIZE
	`)
	bhvSameFields(t, p, "stats", "expired_keys")
	p.Run(`
		DEBUG SET-ACTIVE-EXPIRE x
		DEBUG SET-ACTIVE-EXPIRE
		DEBUG SET-ACTIVE-EXPIRE 1 2
		DEBUG SET-ACTIVE-EXPIRE 1
	`)
}

// A cycle over databases without keys with an expiry costs next to
// nothing, and one over keys that are not expired samples only a few of
// them per database.
func TestExpireIdleCost(t *testing.T) {
	s := expNewServer(t)
	for i, db := range s.dbs {
		expFill(db, fmt.Sprint("p", i), 5000, 0)
	}
	const runs = 2000
	start := time.Now()
	for range runs {
		s.activeExpireCycle(10)
	}
	if per := time.Since(start) / runs; per > 50*time.Microsecond {
		t.Errorf("a cycle without volatile keys took %v", per)
	}
	for i, db := range s.dbs {
		expFill(db, fmt.Sprint("v", i), 5000, keyspace.NowMs()+3600_000)
	}
	start = time.Now()
	for range runs / 10 {
		s.activeExpireCycle(10)
	}
	if per := time.Since(start) / (runs / 10); per > time.Millisecond {
		t.Errorf("a cycle over unexpired volatile keys took %v", per)
	}
	if n := s.stats.expiredKeys.Load(); n != 0 {
		t.Errorf("expired_keys %d, want 0", n)
	}
	if st := s.expire.stale(); st != 0 {
		t.Errorf("expired_stale_perc %v, want 0", st)
	}
}

// A cycle stops at its time limit (25% of the tick) and counts it in
// expired_time_cap_reached_count; expired_stale_perc follows Redis's
// moving average; repeated cycles remove everything.
func TestExpireTimeCap(t *testing.T) {
	s := expNewServer(t)
	const n = 100000
	expFill(s.dbs[0], "k", n, keyspace.NowMs()-1)
	s.activeExpireCycle(maxHz) // 500 µs
	removed := s.stats.expiredKeys.Load()
	if removed == 0 || removed == n {
		t.Errorf("first cycle removed %d of %d keys", removed, n)
	}
	if c := s.expire.timeCapReached.Load(); c != 1 {
		t.Errorf("expired_time_cap_reached_count %d, want 1", c)
	}
	info := string(s.infoString(false, false, []string{"stats"}))
	for _, want := range []string{"expired_stale_perc:5.00\r\n", "expired_time_cap_reached_count:1\r\n"} {
		if !strings.Contains(info, want) {
			t.Errorf("INFO stats lacks %q", want)
		}
	}
	for i := 0; i < 1000 && s.dbs[0].Len() > 0; i++ {
		s.activeExpireCycle(maxHz)
	}
	if l, e := s.dbs[0].Len(), s.stats.expiredKeys.Load(); l != 0 || e != n {
		t.Errorf("after the cycles: %d keys left, expired_keys %d", l, e)
	}
	// With nothing left to sample the average decays.
	before := s.expire.stale()
	s.activeExpireCycle(maxHz)
	if after := s.expire.stale(); after >= before {
		t.Errorf("expired_stale_perc went from %v to %v on an empty cycle", before, after)
	}
	s.resetStats()
	if s.expire.stale() != 0 || s.expire.timeCapReached.Load() != 0 {
		t.Error("CONFIG RESETSTAT left the expiry statistics")
	}
}

// active-expire-effort scales the cycle as Redis's does; a key locked by a
// client is left alone.
func TestExpireEffortAndBusyKeys(t *testing.T) {
	s := expNewServer(t)
	for _, tc := range []struct {
		effort                      string
		keys, perc, acceptableStale int
	}{
		{"1", 20, 25, 10},
		{"5", 40, 33, 6},
		{"10", 65, 43, 1},
	} {
		if err := s.cfg.Set([][2]string{{"active-expire-effort", tc.effort}}); err != nil {
			t.Fatal(err)
		}
		k, p, a := s.expireEffort()
		if k != tc.keys || p != tc.perc || a != tc.acceptableStale {
			t.Errorf("effort %s: %d %d %d, want %d %d %d", tc.effort, k, p, a, tc.keys, tc.perc, tc.acceptableStale)
		}
	}
	expFill(s.dbs[3], "busy", 1, keyspace.NowMs()-1)
	g := s.locks.NewGuard(1)
	g.LockKeys([][]byte{[]byte("busy:0")}, false)
	s.activeExpireCycle(10)
	if s.dbs[3].Len() != 1 {
		t.Error("a key locked by a client was removed")
	}
	g.Unlock()
	s.activeExpireCycle(10)
	if s.dbs[3].Len() != 0 || s.stats.expiredKeys.Load() != 1 {
		t.Errorf("the expired key stayed once unlocked: len %d", s.dbs[3].Len())
	}
}
