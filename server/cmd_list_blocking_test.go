package server

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// TestListBlockingImmediate: with data present (or a wrong type, or bad
// arguments) the blocking commands answer at once, exactly as Redis.
func TestListBlockingImmediate(t *testing.T) {
	p := newPair(t)
	p.Run(`
		RPUSH l a b c d e f
		BLPOP l 0
		BRPOP nosuch l 0
		BLPOP nosuch 0.01
		BRPOPLPUSH l dst 0
		LRANGE dst 0 -1
		BLMOVE l dst LEFT RIGHT 0
		BLMOVE nosuch dst LEFT RIGHT 0.01
		RPUSH l2 1 2 3 4
		BLMPOP 0 2 nosuch l2 RIGHT COUNT 3
		BLMPOP 0.01 1 nosuch LEFT
		SET s x
		BLPOP s 0
		BLPOP nosuch s 0
		BRPOPLPUSH s dst 0
		BLMOVE l2 s LEFT LEFT 0
		BLPOP l -1
		BLPOP l abc
		BLPOP l 1e20
		BLPOP l inf
		BLPOP l nan
		BLMOVE l dst UP LEFT 0
		BLMOVE l dst LEFT RIGHT x
		BLMPOP 0 0 l LEFT
		BLMPOP x 1 l LEFT
		BLMPOP 0 1 l MIDDLE
		BLMPOP 0 1 l LEFT COUNT 0
		BLMPOP 0 3 l LEFT
		BLPOP l
		BLMOVE a b
		BLPOP l 1e400
		BLPOP l 1e5000
		BLPOP l -inf
		BLPOP l " 1"
		RPUSH l3 x y
		BLPOP l3 0x10
		BLPOP l3 0x1p-3
		BLMPOP x 0 l LEFT
		BLMPOP x 1 l UP
		BLMPOP x 1 l LEFT COUNT 0
		BLMPOP 1e400 1 l LEFT
		ZADD z 1 a
		BZMPOP x 0 z MIN
		BZMPOP x 1 z MIDDLE
		BZMPOP inf 1 z MIN
		BZPOPMIN z 0x10
		BZPOPMAX z 1e400
	`)
	p.Redis.Do("HELLO", "3")
	p.HotKV.Do("HELLO", "3")
	p.Run(`
		BLPOP nosuch 0.01
		BLMOVE nosuch dst LEFT RIGHT 0.01
		BLMPOP 0.01 1 nosuch LEFT
		RPUSH l3 x
		BLPOP l3 0
	`)
}

// TestListBlockingServed: a blocked client gets the element pushed later,
// from another connection, with Redis's reply shapes; FIFO per key.
func TestListBlockingServed(t *testing.T) {
	s, addr := startServer(t)
	push := difftest.Dial(t, addr)
	type tc struct {
		block []string
		push  []string
		want  string
	}
	for _, x := range []tc{
		{[]string{"BLPOP", "q1", "q2", "0"}, []string{"RPUSH", "q2", "a", "b"}, "*2\r\n$2\r\nq2\r\n$1\r\na\r\n"},
		{[]string{"BRPOP", "q1", "0"}, []string{"RPUSH", "q1", "a", "b"}, "*2\r\n$2\r\nq1\r\n$1\r\nb\r\n"},
		{[]string{"BRPOPLPUSH", "src", "dst", "0"}, []string{"LPUSH", "src", "v"}, "$1\r\nv\r\n"},
		{[]string{"BLMOVE", "src", "dst", "LEFT", "RIGHT", "0"}, []string{"RPUSH", "src", "w"}, "$1\r\nw\r\n"},
		{[]string{"BLMPOP", "0", "2", "m1", "m2", "LEFT", "COUNT", "5"}, []string{"RPUSH", "m2", "1", "2"}, "*2\r\n$2\r\nm2\r\n*2\r\n$1\r\n1\r\n$1\r\n2\r\n"},
	} {
		push.Do("FLUSHALL")
		c := difftest.Dial(t, addr)
		c.Send(difftest.Encode(x.block...))
		waitFor(t, func() bool { return s.blockedCount() == 1 })
		push.Do(x.push...)
		if got := c.Read(); got != x.want {
			t.Errorf("%v then %v: got %q, want %q", x.block, x.push, got, x.want)
		}
	}
	// BRPOPLPUSH delivered to dst.
	push.Do("FLUSHALL")
	c := difftest.Dial(t, addr)
	c.Send(difftest.Encode("BLMOVE", "src", "dst", "LEFT", "LEFT", "0"))
	waitFor(t, func() bool { return s.blockedCount() == 1 })
	push.Do("RPUSH", "src", "x")
	c.Read()
	if got := push.Do("LRANGE", "dst", "0", "-1"); got != "*1\r\n$1\r\nx\r\n" {
		t.Errorf("BLMOVE destination: %q", got)
	}
	if got := push.Do("EXISTS", "src"); got != ":0\r\n" {
		t.Errorf("BLMOVE source left behind: %q", got)
	}
	// Timeout with decimals.
	start := time.Now()
	if got := c.Do("BLPOP", "nosuch", "0.05"); got != "*-1\r\n" {
		t.Errorf("timeout: %q", got)
	}
	if time.Since(start) < 45*time.Millisecond {
		t.Error("BLPOP 0.05 returned before its timeout")
	}
}

// TestListBlockingManyClients: many clients blocked on one key and several
// pushers: every element reaches exactly one client, in push order per
// pusher, and a push to another tag wakes nobody on this one.
func TestListBlockingManyClients(t *testing.T) {
	s, addr := startServer(t)
	const clients, each = 10, 20
	got := make(chan string, clients*each)
	var wg sync.WaitGroup
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := difftest.Dial(t, addr)
			for j := 0; j < each; j++ {
				got <- c.Do("BLPOP", "{jobs}:q", "5")
			}
		}()
	}
	waitFor(t, func() bool { return s.blockedCount() >= 1 })
	other := difftest.Dial(t, addr)
	other.Do("RPUSH", "{other}:q", "x")
	var pw sync.WaitGroup
	for i := 0; i < 4; i++ {
		pw.Add(1)
		go func(i int) {
			defer pw.Done()
			c := difftest.Dial(t, addr)
			for j := 0; j < clients*each/4; j++ {
				c.Do("RPUSH", "{jobs}:q", fmt.Sprintf("%d-%d", i, j))
			}
		}(i)
	}
	pw.Wait()
	wg.Wait()
	close(got)
	seen := map[string]bool{}
	for r := range got {
		if r == "*-1\r\n" {
			t.Fatal("a client timed out: an element was lost")
		}
		if seen[r] {
			t.Fatalf("delivered twice: %q", r)
		}
		seen[r] = true
	}
	if got := other.Do("LLEN", "{other}:q"); got != ":1\r\n" {
		t.Errorf("the push to another tag was taken: LLEN %q", got)
	}
}

// TestBlockedServedLikeRedis: how a blocked client is woken, against
// redis-server — a key that becomes another type before it is served
// leaves it blocked (it gets the next value of its type, not WRONGTYPE),
// SWAPDB wakes the clients waiting on keys it brings in, and a stream
// that is deleted or overwritten unblocks its XREADGROUP readers with an
// error (they waited forever) but not its XREAD readers.
func TestBlockedServedLikeRedis(t *testing.T) {
	if shared.redisErr != nil {
		newPair(t) // skips or fails as every differential test does
	}
	sharedHotKV(t)
	group := [][]string{{"XADD", "s", "666", "f", "v"}, {"XGROUP", "CREATE", "s", "g", "$"}}
	xreadgroup := []string{"XREADGROUP", "GROUP", "g", "Alice", "BLOCK", "0", "STREAMS", "s", ">"}
	scenarios := []struct {
		name   string
		before [][]string
		block  []string
		db     string // the blocked client's database
		then   [][]string
	}{
		{"XREADGROUP, stream deleted", group, xreadgroup, "0", [][]string{{"DEL", "s"}}},
		{"XREADGROUP, stream overwritten by SET", group, xreadgroup, "0", [][]string{{"SET", "s", "x"}}},
		{"XREADGROUP, stream turned into a set", group, xreadgroup, "0", [][]string{
			{"MULTI"}, {"DEL", "s"}, {"SADD", "s", "e1"}, {"EXEC"}}},
		{"XREADGROUP, FLUSHALL", group, xreadgroup, "0", [][]string{{"FLUSHALL"}}},
		{"XREADGROUP, stream grows", group, xreadgroup, "0", [][]string{{"XADD", "s", "667", "a", "b"}}},
		{"XREAD, stream deleted then added to", [][]string{{"XADD", "s", "666", "f", "v"}},
			[]string{"XREAD", "BLOCK", "0", "STREAMS", "s", "$"}, "0", [][]string{{"DEL", "s"}, {"XADD", "s", "667", "f", "v"}}},
		{"list becomes a string in MULTI", nil, []string{"BLPOP", "list", "0"}, "0", [][]string{
			{"MULTI"}, {"LPUSH", "list", "a"}, {"DEL", "list"}, {"SET", "list", "foo"}, {"EXEC"},
			{"DEL", "list"}, {"LPUSH", "list", "b"}}},
		{"BLMPOP, list becomes a string", nil, []string{"BLMPOP", "0", "1", "list", "LEFT"}, "0", [][]string{
			{"MULTI"}, {"LPUSH", "list", "a"}, {"DEL", "list"}, {"SET", "list", "foo"}, {"EXEC"},
			{"DEL", "list"}, {"LPUSH", "list", "b"}}},
		{"sorted set becomes a string", nil, []string{"BZPOPMIN", "z", "0"}, "0", [][]string{
			{"MULTI"}, {"ZADD", "z", "1", "a"}, {"DEL", "z"}, {"SET", "z", "foo"}, {"EXEC"},
			{"DEL", "z"}, {"ZADD", "z", "2", "b"}}},
		{"SWAPDB brings a list in", nil, []string{"BRPOP", "k", "5"}, "9", [][]string{
			{"SELECT", "1"}, {"RPUSH", "k", "hello"}, {"SWAPDB", "1", "9"}}},
		{"SWAPDB brings a sorted set in", nil, []string{"BZPOPMAX", "k", "5"}, "9", [][]string{
			{"SELECT", "1"}, {"ZADD", "k", "3", "m"}, {"SWAPDB", "1", "9"}}},
	}
	run := func(addr string, before [][]string, blockDB string, block []string, then [][]string) string {
		c, b := difftest.Dial(t, addr), difftest.Dial(t, addr)
		c.Do("FLUSHALL")
		for _, cmd := range before {
			c.Do(cmd...)
		}
		b.Do("SELECT", blockDB)
		b.Send(difftest.Encode(block...))
		waitBlocked(t, c, 1)
		for _, cmd := range then {
			c.Do(cmd...)
		}
		got := b.Read()
		c.Do("FLUSHALL")
		return got
	}
	for _, sc := range scenarios {
		want := run(shared.redis, sc.before, sc.db, sc.block, sc.then)
		if got := run(shared.hotkv, sc.before, sc.db, sc.block, sc.then); got != want {
			t.Errorf("%s: HotKV %q, Redis %q", sc.name, got, want)
		}
	}
}
