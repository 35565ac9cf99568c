package server

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/difftest"
)

// TestWatchRandom: a key watched by one client, a random command of every
// kind from another (the templates of TestRandomDifferential), then the
// watcher's transaction: it runs or aborts as in Redis, so exactly the
// commands that change a key (or expire, delete or flush it) touch it.
func TestWatchRandom(t *testing.T) {
	raddr := difftest.StartRedis(t)
	_, haddr := startServer(t)
	dial := func() *difftest.Pair {
		return &difftest.Pair{Redis: difftest.Dial(t, raddr), HotKV: difftest.Dial(t, haddr)}
	}
	watcher, other := dial(), dial()
	keys := []string{"k1", "k2", "k3", "{t}a", "{t}b"}
	r := rand.New(rand.NewPCG(51, 0x3a7))
	var tr []string
	for i := 0; i < 1500; i++ {
		args := randomCommand(r)
		if shortExpiry(args) || strings.EqualFold(args[0], "SELECT") {
			continue // the watcher stays in database 0
		}
		key := keys[r.IntN(len(keys))]
		for _, c := range []*difftest.Conn{watcher.Redis, watcher.HotKV} {
			c.Do("WATCH", key)
		}
		tr = append(tr, fmt.Sprintf("%q", args))
		want, got := other.Redis.Do(args...), other.HotKV.Do(args...)
		if want != got && !unorderedCommands[strings.ToUpper(args[0])] {
			t.Fatalf("%q: redis %q, hotkv %q", args, want, got)
		}
		var tx [2]string
		for j, c := range []*difftest.Conn{watcher.Redis, watcher.HotKV} {
			c.Do("MULTI")
			c.Do("PING")
			tx[j] = c.Do("EXEC")
		}
		if tx[0] != tx[1] {
			t.Fatalf("WATCH %s, then %q (%q) from another client: EXEC redis %q, hotkv %q\nbefore: %s",
				key, args, want, tx[0], tx[1], strings.Join(tr[max(0, len(tr)-6):], " "))
		}
	}
}
