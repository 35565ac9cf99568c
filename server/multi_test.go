package server

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// TestMultiSpecExamples: every example of ../shared/spec/transactions.md,
// against Redis too (the spec agrees with Redis on all of these).
func TestMultiSpecExamples(t *testing.T) {
	p := newPair(t)
	p.Run(`
		MULTI
		INCR account:42:balance
		LPUSH account:42:history deposit
		EXEC
		MULTI
		SET draft "not saved"
		DISCARD
		GET draft
		MULTI
		SET a 1
		INCR
		EXEC
		GET a
		SET name Ada
		MULTI
		INCR name
		SET visited yes
		EXEC
		GET visited
		SET stock:widget 5
		WATCH stock:widget
		GET stock:widget
		MULTI
		SET stock:widget 4
		EXEC
		EXEC
		DISCARD
		UNWATCH
		MULTI
		SHUTDOWN
		EXEC
		MULTI
		NOSUCHCOMMAND x
		EXEC
		MULTI
		PING
		RESET
		PING
	`)
	// RESP3 shapes.
	p.Redis.Do("HELLO", "3")
	p.HotKV.Do("HELLO", "3")
	p.Run(`
		MULTI
		SET k v
		HGETALL nosuch
		EXEC
	`)
}

// TestMultiSpecDeviations: where the spec is stricter than Redis 7.0 (a
// nested MULTI or a WATCH inside MULTI aborts EXEC), HotKV alone.
func TestMultiSpecDeviations(t *testing.T) {
	_, addr := startServer(t)
	c := difftest.Dial(t, addr)
	for _, tc := range []struct{ bad, err string }{
		{"MULTI", "-ERR MULTI calls can not be nested\r\n"},
		{"WATCH", "-ERR WATCH inside MULTI is not allowed\r\n"},
	} {
		c.Do("MULTI")
		c.Do("SET", "x", "1")
		var got string
		if tc.bad == "MULTI" {
			got = c.Do("MULTI")
		} else {
			got = c.Do("WATCH", "x")
		}
		if got != tc.err {
			t.Errorf("%s inside MULTI: %q", tc.bad, got)
		}
		if got := c.Do("EXEC"); got != "-EXECABORT Transaction discarded because of previous errors.\r\n" {
			t.Errorf("EXEC after %s inside MULTI: %q", tc.bad, got)
		}
		if got := c.Do("GET", "x"); got != "$-1\r\n" {
			t.Errorf("the aborted transaction ran: GET x = %q", got)
		}
	}
}

// TestMultiWatch: WATCH against Redis: a change by another client (even to
// the same value), a delete, an expiry, FLUSHALL, SWAPDB each abort EXEC.
func TestMultiWatch(t *testing.T) {
	p := newPair(t)
	o := newPair(t) // the "other client" on both servers
	o.Do("FLUSHALL")
	for _, change := range []string{
		"SET w 1", "SET w 0", "DEL w", "INCR w", "EXPIRE w 100", "FLUSHALL", "SWAPDB 0 1", "APPEND w x", "RENAME w w2",
	} {
		p.Do("SET w 0")
		p.Do("WATCH w")
		o.Do(change)
		p.Do("MULTI")
		p.Do("SET w 9")
		p.Do("EXEC")
		p.Do("FLUSHALL")
	}
	// An untouched watch lets EXEC run; a watch on a missing key that stays
	// missing too; FLUSHALL with the watched key absent does not abort.
	p.Run(`
		WATCH w
		MULTI
		SET w 1
		EXEC
		WATCH nosuch
		FLUSHALL
		MULTI
		SET y 1
		EXEC
		SET e 1 PX 20
		WATCH e
	`)
	time.Sleep(40 * time.Millisecond)
	p.Run(`
		MULTI
		SET e2 1
		EXEC
	`)
}

// TestMultiBlockingInside: blocking commands in a transaction answer at
// once (data or a null reply), as Redis.
func TestMultiBlockingInside(t *testing.T) {
	p := newPair(t)
	p.Run(`
		RPUSH l a
		MULTI
		BLPOP l 0
		BLPOP l 0
		BRPOPLPUSH l m 0
		BLMOVE l m LEFT RIGHT 0
		BLMPOP 0 1 l LEFT
		BZPOPMIN z 0
		BZMPOP 0 1 z MIN
		EXEC
	`)
}

// TestMultiIsolation: transfers between accounts with WATCH/MULTI/EXEC from
// many clients while auditors read every account in one MULTI: the total
// never changes and no transfer is lost. One tag, then several tags.
func TestMultiIsolation(t *testing.T) {
	for _, keyFmt := range []string{"{bank}:acct:%d", "acct:%d"} {
		t.Run(keyFmt, func(t *testing.T) {
			_, addr := startServer(t)
			const accounts, start = 6, 100
			setup := difftest.Dial(t, addr)
			var keys []string
			for i := 0; i < accounts; i++ {
				k := fmt.Sprintf(keyFmt, i)
				keys = append(keys, k)
				setup.Do("SET", k, strconv.Itoa(start))
			}
			var wg sync.WaitGroup
			var mu sync.Mutex
			done := 0
			deadline := time.Now().Add(1500 * time.Millisecond)
			for w := 0; w < 8; w++ {
				wg.Add(1)
				go func(w int) {
					defer wg.Done()
					c := difftest.Dial(t, addr)
					for i := 0; time.Now().Before(deadline); i++ {
						from, to := keys[(w+i)%accounts], keys[(w+2*i+1)%accounts]
						if from == to {
							continue
						}
						c.Do("WATCH", from, to)
						a, _ := strconv.Atoi(strings.Split(c.Do("GET", from), "\r\n")[1])
						b, _ := strconv.Atoi(strings.Split(c.Do("GET", to), "\r\n")[1])
						c.Do("MULTI")
						c.Do("SET", from, strconv.Itoa(a-1))
						c.Do("SET", to, strconv.Itoa(b+1))
						if r := c.Do("EXEC"); strings.HasPrefix(r, "*2") {
							mu.Lock()
							done++
							mu.Unlock()
						}
					}
				}(w)
			}
			for a := 0; a < 2; a++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					c := difftest.Dial(t, addr)
					for time.Now().Before(deadline) {
						c.Send(difftest.Encode("MULTI"))
						for _, k := range keys {
							c.Send(difftest.Encode("GET", k))
						}
						c.Send(difftest.Encode("EXEC"))
						for i := 0; i <= accounts; i++ {
							c.Read()
						}
						r := c.Read()
						sum := 0
						for _, line := range strings.Split(r, "\r\n") {
							if n, err := strconv.Atoi(line); err == nil {
								sum += n
							}
						}
						if sum != accounts*start {
							t.Errorf("an auditor saw a total of %d", sum)
							return
						}
					}
				}()
			}
			wg.Wait()
			if done == 0 {
				t.Fatal("no transfer committed")
			}
			sum := 0
			for _, k := range keys {
				n, _ := strconv.Atoi(strings.Split(setup.Do("GET", k), "\r\n")[1])
				sum += n
			}
			if sum != accounts*start {
				t.Fatalf("final total %d after %d transfers", sum, done)
			}
		})
	}
}

// TestMultiParallelism: while a transaction holds tag {a} (its EXEC runs a
// test command that blocks in its handler), a command on {b} completes and
// one on {a} waits.
func TestMultiParallelism(t *testing.T) {
	s, addr := startServer(t)
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	s.mu.Lock()
	s.table.add(&Command{Name: "testhold", Arity: 2, Flags: Write, First: 1, Last: 1, Step: 1, Handler: func(c *Client, args [][]byte) {
		entered <- struct{}{}
		<-release
		c.w.OK()
	}})
	s.mu.Unlock()
	// Connections are spread over the 4 loops round-robin: open 4 so that
	// the other clients are not on the transaction's loop.
	var conns []*difftest.Conn
	for i := 0; i < 4; i++ {
		conns = append(conns, difftest.Dial(t, addr))
	}
	tx := conns[0]
	tx.Do("MULTI")
	tx.Do("SET", "{a}1", "x")
	tx.Do("TESTHOLD", "{a}2")
	tx.Send(difftest.Encode("EXEC"))
	<-entered
	if got := conns[1].Do("SET", "{b}1", "y"); got != "+OK\r\n" {
		t.Fatalf("SET on another tag: %q", got)
	}
	waiting := conns[2]
	waiting.Send(difftest.Encode("GET", "{a}1"))
	if _, err := waiting.ReadErr(100 * time.Millisecond); err == nil {
		t.Fatal("a GET on the transaction's tag did not wait")
	}
	close(release)
	if got := tx.Read(); got != "*2\r\n+OK\r\n+OK\r\n" {
		t.Fatalf("EXEC: %q", got)
	}
	if got := waiting.Read(); got != "$1\r\nx\r\n" {
		t.Fatalf("GET after the transaction: %q", got)
	}
}

// TestMultiExecOOM: memory over maxmemory at EXEC time (though not while
// queuing) aborts a transaction with writes, with Redis's text.
func TestMultiExecOOM(t *testing.T) {
	if shared.redisErr != nil {
		t.Skip(shared.redisErr)
	}
	_, addr := startServer(t)
	p := difftest.NewPair(t, difftest.StartRedis(t), addr)
	o := difftest.NewPair(t, p.Redis.Addr(), addr)
	p.Run(`
		MULTI
		SET k v
	`)
	o.Do("CONFIG SET maxmemory 1")
	p.Do("EXEC")
	p.Do("GET k")
	p.Run(`
		MULTI
		GET k
	`)
	p.Do("EXEC") // read-only transactions still run
	o.Do("CONFIG SET maxmemory 0")
}

// TestWatchStaleKeys: a key already expired (but not yet removed) when
// WATCH runs is no change when it is removed, by an access, FLUSHDB or
// SWAPDB, nor when SWAPDB brings an expired key where there was none;
// a key that expires after WATCH fails the EXEC (Redis 7.0's
// wk->expired; unit/multi's "stale keys" tests). Against redis-server
// with active expiry off, so that only the commands remove keys.
func TestWatchStaleKeys(t *testing.T) {
	redis := difftest.StartRedis(t, "--enable-debug-command", "yes")
	_, hotkv := startServer(t, "--enable-debug-command", "yes")
	scenarios := map[string][][]string{
		"stale":          {{"SET", "x", "foo", "PX", "1"}, {"SLEEP"}, {"WATCH", "x"}},
		"stale accessed": {{"SET", "x", "foo", "PX", "1"}, {"SLEEP"}, {"WATCH", "x"}, {"EXISTS", "x"}},
		"stale flushed":  {{"SET", "x", "foo", "PX", "1"}, {"SLEEP"}, {"WATCH", "x"}, {"FLUSHDB"}},
		"stale set anew": {{"SET", "x", "foo", "PX", "1"}, {"SLEEP"}, {"WATCH", "x"}, {"SET", "x", "bar"}},
		"stale swapped out": {{"SELECT", "1"}, {"SET", "x", "foo", "PX", "1"}, {"SLEEP"}, {"WATCH", "x"},
			{"SWAPDB", "0", "1"}},
		"missing swapped for stale": {{"SET", "x", "foo", "PX", "1"}, {"SLEEP"}, {"SELECT", "1"}, {"WATCH", "x"},
			{"SWAPDB", "0", "1"}},
		"stale swapped for stale": {{"SELECT", "1"}, {"SET", "x", "foo", "PX", "1"}, {"SELECT", "0"},
			{"SET", "x", "bar", "PX", "1"}, {"SLEEP"}, {"SELECT", "1"}, {"WATCH", "x"}, {"SWAPDB", "0", "1"}},
		"stale swapped for live": {{"SELECT", "1"}, {"SET", "x", "foo", "PX", "1"}, {"SELECT", "0"},
			{"SET", "x", "bar"}, {"SLEEP"}, {"SELECT", "1"}, {"WATCH", "x"}, {"SWAPDB", "0", "1"}},
		"expires after watch": {{"SET", "x", "foo", "PX", "50"}, {"WATCH", "x"}, {"SLEEP"}},
		"lazily expires after watch": {{"SET", "x", "foo", "PX", "50"}, {"WATCH", "x"}, {"SLEEP"},
			{"GET", "x"}},
	}
	run := func(addr string, steps [][]string) string {
		c := difftest.Dial(t, addr)
		c.Do("FLUSHALL")
		c.Do("DEBUG", "SET-ACTIVE-EXPIRE", "0")
		defer c.Do("DEBUG", "SET-ACTIVE-EXPIRE", "1")
		var out []string
		for _, s := range steps {
			if s[0] == "SLEEP" {
				time.Sleep(60 * time.Millisecond)
				continue
			}
			out = append(out, c.Do(s...))
		}
		c.Do("MULTI")
		c.Do("PING")
		return strings.Join(append(out, c.Do("EXEC"), c.Do("DBSIZE")), " ")
	}
	for name, steps := range scenarios {
		if want, got := run(redis, steps), run(hotkv, steps); got != want {
			t.Errorf("%s: HotKV %q, Redis %q", name, got, want)
		}
	}
}

// TestMultiBgrewriteaof: BGREWRITEAOF inside EXEC is scheduled, as in
// Redis, and the cron starts it (INFO's total_forks counts it).
func TestMultiBgrewriteaof(t *testing.T) {
	_, hotkv := startServer(t)
	c := difftest.Dial(t, hotkv)
	forks := between(c.Do("INFO", "stats"), "total_forks:", "\r\n")
	c.Do("MULTI")
	c.Do("SET", "foo", "bar")
	c.Do("BGREWRITEAOF")
	if got := c.Do("EXEC"); got != "*2\r\n+OK\r\n+Background append only file rewriting scheduled\r\n" {
		t.Fatalf("EXEC: %q", got)
	}
	waitFor(t, func() bool { return between(c.Do("INFO", "stats"), "total_forks:", "\r\n") != forks })
	waitFor(t, func() bool {
		return strings.Contains(c.Do("INFO", "persistence"), "aof_rewrite_in_progress:0\r\naof_rewrite_scheduled:0\r\n")
	})
}

// TestMultiConfigSetAppendonly: CONFIG SET appendonly yes inside EXEC
// schedules the rewrite that makes the file whole, as Redis's
// startAppendOnly ("AOF was enabled during a transaction"), and the cron
// starts it (INFO's total_forks counts it).
func TestMultiConfigSetAppendonly(t *testing.T) {
	logfile := filepath.Join(t.TempDir(), "log")
	_, hotkv := startServer(t, "--logfile", logfile)
	c := difftest.Dial(t, hotkv)
	forks := between(c.Do("INFO", "stats"), "total_forks:", "\r\n")
	c.Do("MULTI")
	c.Do("SET", "foo", "bar")
	c.Do("CONFIG", "SET", "appendonly", "yes")
	if got := c.Do("EXEC"); got != "*2\r\n+OK\r\n+OK\r\n" {
		t.Fatalf("EXEC: %q", got)
	}
	if log, _ := os.ReadFile(logfile); !strings.Contains(string(log), "AOF was enabled during a transaction. An AOF background was scheduled to start when possible.") {
		t.Errorf("the log lacks the scheduled rewrite:\n%s", log)
	}
	waitFor(t, func() bool { return between(c.Do("INFO", "stats"), "total_forks:", "\r\n") != forks })
	waitFor(t, func() bool {
		return strings.Contains(c.Do("INFO", "persistence"), "aof_rewrite_in_progress:0\r\naof_rewrite_scheduled:0\r\n")
	})
}
