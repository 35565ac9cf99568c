package server

import (
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// lazyfreed waits for c's server to have no lazy free pending and returns
// INFO's lazyfreed_objects.
func lazyfreed(t *testing.T, c *difftest.Conn) string {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; {
		info := c.Do("INFO", "memory")
		if bhvField(info, "lazyfree_pending_objects") == "0" || time.Now().After(deadline) {
			return bhvField(info, "lazyfreed_objects")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestLazyfreedObjects compares INFO's lazyfreed_objects with Redis's after
// UNLINK, DEL with lazyfree-lazy-user-del and FLUSHDB/FLUSHALL ASYNC: a
// value counts when its free effort (lazyfreeGetFreeEffort) passes 64 —
// a stream's radix-tree nodes and consumer groups (unit/lazyfree's "lazy
// free a stream with all types of metadata"), a list's quicklist nodes,
// the elements of hashtable-encoded sets and hashes and skiplist sorted
// sets — and an asynchronous flush counts its keys.
func TestLazyfreedObjects(t *testing.T) {
	p, _, _, _ := bhvPair(t, "--stream-node-max-entries", "1", "--list-max-listpack-size", "1")
	check := func(step string) {
		t.Helper()
		if r, h := lazyfreed(t, p.Redis), lazyfreed(t, p.HotKV); r != h {
			t.Fatalf("%s: lazyfreed_objects: redis %s, hotkv %s", step, r, h)
		}
	}
	check("start")
	rng := rand.New(rand.NewSource(1))
	// Streams of n one-entry nodes with scattered IDs: the radix tree's
	// shape decides when the effort passes the threshold.
	for n := 15; n <= 45; n++ {
		ms := uint64(1)
		for i := 0; i < n; i++ {
			ms += uint64(rng.Intn(1 << uint(rng.Intn(24)+1)))
			p.Do(fmt.Sprintf("XADD s %d-%d f v", ms, rng.Intn(3)))
		}
		p.Do("UNLINK s")
		check(fmt.Sprintf("stream of %d nodes", n))
	}
	p.Do("CONFIG SET stream-node-max-entries 5")
	for j := 0; j < 300; j++ {
		p.Do(fmt.Sprintf("XADD s %d-1 foo 1", 1700000000000+j*7))
	}
	p.Do("XGROUP CREATE s g1 0")
	p.Do("XGROUP CREATE s g2 0")
	p.Do("XREADGROUP GROUP g1 Alice COUNT 2 STREAMS s >")
	p.Do("UNLINK s")
	check("stream with groups")
	p.Do("XADD s 1-1 a b")
	p.Do("XGROUP CREATE s bla $")
	p.Do("XGROUP DESTROY s bla")
	p.Do("UNLINK s")
	check("stream with a deleted group")
	for _, n := range []int{64, 65} {
		args := "RPUSH l"
		for i := 0; i < n; i++ {
			args += fmt.Sprintf(" %d", i)
		}
		p.Do(args)
		p.Do("UNLINK l")
		check(fmt.Sprintf("list of %d nodes", n))
		p.Do("SADD s" + args[6:] + " x")
		p.Do("UNLINK s")
		check(fmt.Sprintf("set of %d", n+1))
		p.Do("SADD i" + args[6:])
		p.Do("UNLINK i")
		check(fmt.Sprintf("intset of %d", n))
		p.Do("ZADD z" + args[6:] + " x")
		p.Do("UNLINK z")
		check(fmt.Sprintf("zset of %d", n/2))
		p.Do("HSET h" + args[6:] + " x y")
		p.Do("DEL h")
		check("DEL without lazyfree-lazy-user-del")
		p.Do("HSET h" + args[6:] + " x y")
		p.Do("CONFIG SET lazyfree-lazy-user-del yes")
		p.Do("DEL h")
		p.Do("CONFIG SET lazyfree-lazy-user-del no")
		check("DEL with lazyfree-lazy-user-del")
	}
	p.Do("MSET a 1 b 2 c 3")
	p.Do("FLUSHDB ASYNC")
	check("FLUSHDB ASYNC")
	p.Do("MSET a 1 b 2 c 3")
	p.Do("FLUSHDB")
	check("FLUSHDB")
	p.Do("MSET a 1 b 2")
	p.Do("SELECT 1")
	p.Do("SET x 1")
	p.Do("CONFIG SET lazyfree-lazy-user-flush yes")
	p.Do("FLUSHALL")
	p.Do("CONFIG SET lazyfree-lazy-user-flush no")
	check("FLUSHALL with lazyfree-lazy-user-flush")
	p.Do("CONFIG RESETSTAT")
	check("CONFIG RESETSTAT")
}
