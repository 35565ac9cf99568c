package server

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
	"github.com/hotkv/hotkv/keyspace"
	"github.com/hotkv/hotkv/resp"
)

// testQueue is a minimal list value for exercising the blocking machinery
// independently of the list commands.
type testQueue struct{ items [][]byte }

// addBlockingTestCommands registers on s:
//
//	TQPUSH key value      append to a queue (creating it signals waiters)
//	TQBPOP key timeout-ms pop the head, blocking while the queue is empty
func addBlockingTestCommands(s *Server) {
	pop := func(db *keyspace.DB, key []byte, w *resp.Writer) bool {
		e := db.Get(key)
		if e == nil {
			return false
		}
		q := e.Obj.(*testQueue)
		w.Bulk(q.items[0])
		q.items = q.items[1:]
		if len(q.items) == 0 {
			db.Delete(key)
		}
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.table.add(
		&Command{Name: "tqpush", Arity: 3, Flags: Write, First: 1, Last: 1, Step: 1, Handler: func(c *Client, args [][]byte) {
			if e := c.db.Get(args[1]); e != nil {
				q := e.Obj.(*testQueue)
				q.items = append(q.items, append([]byte(nil), args[2]...))
				c.w.Int(int64(len(q.items)))
				return
			}
			c.db.Set(args[1], keyspace.NewObject(args[1], keyspace.KindList, &testQueue{items: [][]byte{append([]byte(nil), args[2]...)}}))
			c.w.Int(1)
		}},
		&Command{Name: "tqbpop", Arity: 3, Flags: Write | Blocking, First: 1, Last: 1, Step: 1, Handler: func(c *Client, args [][]byte) {
			if pop(c.db, args[1], &c.w) {
				return
			}
			ms, _ := strconv.Atoi(string(args[2]))
			key := [][]byte{args[1]}
			k := append([]byte(nil), args[1]...)
			c.block(key, key, time.Duration(ms)*time.Millisecond,
				func(sc *Client) bool { return pop(sc.db, k, &sc.w) },
				func(w *resp.Writer) { w.Null() })
		}},
	)
}

func startBlockingServer(t *testing.T) (*Server, string) {
	s, addr := startServer(t)
	addBlockingTestCommands(s)
	return s, addr
}

func TestBlockingServedInOrder(t *testing.T) {
	s, addr := startBlockingServer(t)
	var conns []*difftest.Conn
	for i := 0; i < 5; i++ {
		c := difftest.Dial(t, addr)
		c.Send(difftest.Encode("TQBPOP", "q", "0"))
		conns = append(conns, c)
		waitFor(t, func() bool { return s.blockedCount() == int64(i+1) })
	}
	p := difftest.Dial(t, addr)
	for i := 0; i < 5; i++ {
		p.Do("TQPUSH", "q", fmt.Sprint("v", i))
	}
	for i, c := range conns {
		if got, want := c.Read(), fmt.Sprintf("$2\r\nv%d\r\n", i); got != want {
			t.Errorf("waiter %d got %q, want %q (first blocked, first served)", i, got, want)
		}
	}
	if n := s.blockedCount(); n != 0 {
		t.Errorf("%d clients still blocked", n)
	}
}

func TestBlockingTimeoutAndPipeline(t *testing.T) {
	_, addr := startBlockingServer(t)
	c := difftest.Dial(t, addr)
	start := time.Now()
	// The commands after the blocked one wait, then run in order.
	c.Send(append(difftest.Encode("TQBPOP", "q", "100"), difftest.Encode("PING")...))
	if got := c.Read(); got != "$-1\r\n" {
		t.Fatalf("timeout reply %q", got)
	}
	if d := time.Since(start); d < 90*time.Millisecond {
		t.Fatalf("unblocked after %v, before the 100 ms timeout", d)
	}
	if got := c.Read(); got != "+PONG\r\n" {
		t.Fatalf("command after the blocked one: %q", got)
	}
}

func TestBlockingClientUnblock(t *testing.T) {
	s, addr := startBlockingServer(t)
	b, ctl := difftest.Dial(t, addr), difftest.Dial(t, addr)
	id := strings.TrimSuffix(strings.TrimPrefix(b.Do("CLIENT", "ID"), ":"), "\r\n")
	if got := ctl.Do("CLIENT", "UNBLOCK", id); got != ":0\r\n" {
		t.Fatalf("unblocking a client that is not blocked: %q", got)
	}
	b.Send(difftest.Encode("TQBPOP", "q", "0"))
	waitFor(t, func() bool { return s.blockedCount() == 1 })
	if got := ctl.Do("CLIENT", "LIST", "ID", id); !strings.Contains(got, "flags=b") {
		t.Errorf("CLIENT LIST of a blocked client: %q", got)
	}
	if got := ctl.Do("CLIENT", "UNBLOCK", id, "ERROR"); got != ":1\r\n" {
		t.Fatalf("CLIENT UNBLOCK: %q", got)
	}
	if got := b.Read(); got != "-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n" {
		t.Fatalf("unblocked client got %q", got)
	}
	b.Send(difftest.Encode("TQBPOP", "q", "0"))
	waitFor(t, func() bool { return s.blockedCount() == 1 })
	ctl.Do("CLIENT", "UNBLOCK", id, "TIMEOUT")
	if got := b.Read(); got != "$-1\r\n" {
		t.Fatalf("unblocked with TIMEOUT: %q", got)
	}
	if got := ctl.Do("CLIENT", "UNBLOCK", id, "MAYBE"); got != "-ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR\r\n" {
		t.Fatalf("bad reason: %q", got)
	}
}

// TestBlockingDisconnect: a blocked client that goes away takes nothing: the
// next push goes to the next waiter.
func TestBlockingDisconnect(t *testing.T) {
	s, addr := startBlockingServer(t)
	gone, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	gone.Write(difftest.Encode("TQBPOP", "q", "0"))
	waitFor(t, func() bool { return s.blockedCount() == 1 })
	stays := difftest.Dial(t, addr)
	stays.Send(difftest.Encode("TQBPOP", "q", "0"))
	waitFor(t, func() bool { return s.blockedCount() == 2 })
	gone.Close()
	waitFor(t, func() bool { return s.blockedCount() == 1 })
	difftest.Dial(t, addr).Do("TQPUSH", "q", "x")
	if got := stays.Read(); got != "$1\r\nx\r\n" {
		t.Fatalf("remaining waiter got %q", got)
	}
}

// TestBlockingNoLossUnderLoad: many waiters and many pushers; every pushed
// value reaches exactly one waiter.
func TestBlockingNoLossUnderLoad(t *testing.T) {
	s, addr := startBlockingServer(t)
	const waiters, perWaiter = 8, 50
	got := make(chan string, waiters*perWaiter)
	var wg sync.WaitGroup
	for i := 0; i < waiters; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := difftest.Dial(t, addr)
			for j := 0; j < perWaiter; j++ {
				r := c.Do("TQBPOP", "{q}", "0")
				got <- r
			}
		}()
	}
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c := difftest.Dial(t, addr)
			for j := 0; j < waiters*perWaiter/4; j++ {
				c.Do("TQPUSH", "{q}", fmt.Sprintf("p%d-%d", i, j))
			}
		}(i)
	}
	wg.Wait()
	close(got)
	seen := map[string]bool{}
	for r := range got {
		if seen[r] {
			t.Fatalf("value delivered twice: %q", r)
		}
		seen[r] = true
	}
	if len(seen) != waiters*perWaiter {
		t.Fatalf("%d values delivered, want %d", len(seen), waiters*perWaiter)
	}
	if n := s.blockedCount(); n != 0 {
		t.Fatalf("%d clients still blocked", n)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 5 s")
		}
	}
}

// TestUnblockErrorStats: a client unblocked with CLIENT UNBLOCK ... ERROR
// gets an error its command counts: in errorstats, total_error_replies and
// the command's failed calls, as in Redis.
func TestUnblockErrorStats(t *testing.T) {
	redis := difftest.StartRedis(t)
	_, hotkv := startServer(t)
	stats := func(addr string) string {
		ctl, b := difftest.Dial(t, addr), difftest.Dial(t, addr)
		ctl.Do("CONFIG", "RESETSTAT")
		id := strings.TrimSuffix(strings.TrimPrefix(b.Do("CLIENT", "ID"), ":"), "\r\n")
		b.Send(difftest.Encode("BLPOP", "list1", "0"))
		waitBlocked(t, ctl, 1)
		ctl.Do("CLIENT", "UNBLOCK", id, "ERROR")
		reply := b.Read()
		var out []string
		for _, sec := range []string{"errorstats", "stats", "commandstats"} {
			for _, line := range strings.Split(ctl.Do("INFO", sec), "\r\n") {
				if strings.HasPrefix(line, "errorstat_") || strings.HasPrefix(line, "total_error_replies") {
					out = append(out, line)
				}
				if name, rest, ok := strings.Cut(line, ":calls="); ok && name == "cmdstat_blpop" {
					_, counts, _ := strings.Cut(rest, "rejected_calls=")
					out = append(out, name+":"+counts)
				}
			}
		}
		return reply + strings.Join(out, "\n")
	}
	if r, h := stats(redis), stats(hotkv); r != h {
		t.Errorf("CLIENT UNBLOCK ERROR\nredis:\n%s\nhotkv:\n%s", r, h)
	}
}
