package server

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// Concurrency tests of the key-lock gate and the event-loop transport,
// against a private server (startServer: four event loops). Each test is
// bounded in time and in count.
//
// A command whose handler waits (for a key lock, or in the test command
// testhold) stalls its connection's event loop, and every connection on
// that loop, until it returns. The loops take connections round-robin, so
// connections dialled one after another (each one served before the next
// is dialled: lockConns) land on different loops: four consecutive ones
// on four different loops. Tests that need two commands to run at the
// same time put them on such connections.

// lockClient is a minimal RESP client usable from any goroutine (its
// methods return errors instead of failing the test).
type lockClient struct {
	c net.Conn
	r *bufio.Reader
}

func dialLock(t *testing.T, addr string) *lockClient {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &lockClient{c: c, r: bufio.NewReaderSize(c, 64<<10)}
}

// lockConns dials n connections, each served (PING answered) before the
// next is dialled, so that consecutive ones are on different loops.
func lockConns(t *testing.T, addr string, n int) []*lockClient {
	t.Helper()
	cs := make([]*lockClient, n)
	for i := range cs {
		cs[i] = dialLock(t, addr)
		if r, err := cs[i].do("PING"); r != "+PONG\r\n" {
			t.Fatalf("PING: %q %v", r, err)
		}
	}
	return cs
}

func (c *lockClient) send(args ...string) error {
	c.c.SetWriteDeadline(time.Now().Add(5 * time.Second))
	_, err := c.c.Write(difftest.Encode(args...))
	return err
}

func (c *lockClient) read() (string, error) {
	c.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	return difftest.ReadReply(c.r)
}

func (c *lockClient) do(args ...string) (string, error) {
	if err := c.send(args...); err != nil {
		return "", err
	}
	return c.read()
}

// pipeline sends cmds in one write and reads their replies.
func (c *lockClient) pipeline(cmds [][]string) ([]string, error) {
	var b []byte
	for _, cmd := range cmds {
		b = append(b, difftest.Encode(cmd...)...)
	}
	c.c.SetWriteDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.c.Write(b); err != nil {
		return nil, err
	}
	out := make([]string, len(cmds))
	for i := range out {
		r, err := c.read()
		if err != nil {
			return out[:i], err
		}
		out[i] = r
	}
	return out, nil
}

// async sends a command and returns a channel that gets its reply (or
// the error, as "error: ...").
func (c *lockClient) async(args ...string) <-chan string {
	ch := make(chan string, 1)
	go func() {
		r, err := c.do(args...)
		if err != nil {
			r = "error: " + err.Error()
		}
		ch <- r
	}()
	return ch
}

// lockBulks parses an array of bulk strings (nil elements as "<nil>").
func lockBulks(raw string) ([]string, bool) {
	parts := strings.Split(raw, "\r\n")
	if len(parts) < 2 || !strings.HasPrefix(parts[0], "*") || parts[len(parts)-1] != "" {
		return nil, false
	}
	n, err := strconv.Atoi(parts[0][1:])
	if err != nil {
		return nil, false
	}
	var out []string
	for i := 1; i < len(parts)-1; i++ {
		if parts[i] == "$-1" {
			out = append(out, "<nil>")
			continue
		}
		if !strings.HasPrefix(parts[i], "$") || i+1 >= len(parts)-1 {
			return nil, false
		}
		out = append(out, parts[i+1])
		i++
	}
	return out, len(out) == n
}

func lockInt(raw string) (int64, bool) {
	if !strings.HasPrefix(raw, ":") || !strings.HasSuffix(raw, "\r\n") {
		return 0, false
	}
	n, err := strconv.ParseInt(raw[1:len(raw)-2], 10, 64)
	return n, err == nil
}

// startLockServer starts a private server with the test commands:
//
//	TESTHOLD key     (write)     and
//	TESTHOLDRO key   (read-only)
//
// whose handlers, called with the key's tag lock held (exclusively and
// shared), report on entered and wait until release(key) (10 s at most).
func startLockServer(t *testing.T) (*Server, string, *lockHolds) {
	t.Helper()
	s, addr := startServer(t)
	h := &lockHolds{entered: make(chan string, 64), rel: make(map[string]chan struct{})}
	handler := func(c *Client, args [][]byte) {
		key := string(args[1])
		h.entered <- key
		select {
		case <-h.ch(key):
		case <-time.After(10 * time.Second):
		}
		c.w.OK()
	}
	s.mu.Lock() // ordered before the connections' goroutines (newClient)
	s.table.add(
		&Command{Name: "testhold", Arity: 2, Flags: Write, First: 1, Last: 1, Step: 1, Handler: handler},
		&Command{Name: "testholdro", Arity: 2, Flags: Readonly, First: 1, Last: 1, Step: 1, Handler: handler},
	)
	s.mu.Unlock()
	t.Cleanup(h.releaseAll)
	return s, addr, h
}

type lockHolds struct {
	entered chan string
	mu      sync.Mutex
	rel     map[string]chan struct{}
}

func (h *lockHolds) ch(key string) chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	c := h.rel[key]
	if c == nil {
		c = make(chan struct{})
		h.rel[key] = c
	}
	return c
}

func (h *lockHolds) release(key string) { close(h.ch(key)) }

func (h *lockHolds) releaseAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for k, c := range h.rel {
		select {
		case <-c:
		default:
			close(c)
		}
		delete(h.rel, k)
	}
}

// waitEntered waits until a holding handler for key runs.
func (h *lockHolds) waitEntered(t *testing.T, key string) {
	t.Helper()
	select {
	case k := <-h.entered:
		if k != key {
			t.Fatalf("handler entered for %q, want %q", k, key)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("handler for %q never ran", key)
	}
}

// lockStays reports whether no reply arrives on ch for a while.
func lockStays(ch <-chan string) (string, bool) {
	select {
	case r := <-ch:
		return r, false
	case <-time.After(150 * time.Millisecond):
		return "", true
	}
}

func lockWithin(t *testing.T, what string, ch <-chan string) string {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: no reply in 5 s", what)
		return ""
	}
}

// lockHeldTags waits (2 s at most) until the lock manager holds no tag lock
// and reports the number still held.
func lockHeldTags(s *Server) int64 {
	var held int64
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if _, _, _, _, held = s.locks.Snapshot(); held == 0 {
			break
		}
	}
	return held
}

// TestLockTornReads: MSET of two keys of different tags is atomic for
// MGET of both, whatever the order of the keys in either command. Writers
// set both keys to the same value ("writer-seq", seq incrementing); readers
// must never see two different values, nor a writer's seq going back. It
// fails if LockKeys took only some of the tags, released one before the
// write was complete, or if MGET read without its tags' shared locks.
func TestLockTornReads(t *testing.T) {
	_, addr := startServer(t)
	const writers, readers = 16, 8
	const maxOps = 3000
	stop := time.Now().Add(1500 * time.Millisecond)
	conns := lockConns(t, addr, writers+readers)
	var wg sync.WaitGroup
	var reads, mixed atomic.Int64
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := conns[w]
			for seq := 1; seq <= maxOps && time.Now().Before(stop); seq++ {
				v := fmt.Sprintf("%d-%d", w, seq)
				var r string
				var err error
				if seq%2 == 0 {
					r, err = c.do("MSET", "{a}x", v, "{b}y", v)
				} else {
					r, err = c.do("MSET", "{b}y", v, "{a}x", v)
				}
				if r != "+OK\r\n" {
					t.Errorf("writer %d: MSET: %q %v", w, r, err)
					return
				}
			}
		}()
	}
	for rd := 0; rd < readers; rd++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := conns[writers+rd]
			last := make(map[string]int) // writer -> last seq seen
			prev := ""
			for i := 0; i < maxOps && time.Now().Before(stop); i++ {
				var r string
				var err error
				if i%2 == 0 {
					r, err = c.do("MGET", "{a}x", "{b}y")
				} else {
					r, err = c.do("MGET", "{b}y", "{a}x")
				}
				vs, ok := lockBulks(r)
				if err != nil || !ok || len(vs) != 2 {
					t.Errorf("reader %d: MGET: %q %v", rd, r, err)
					return
				}
				if vs[0] != vs[1] {
					t.Errorf("reader %d: torn read: MGET saw %q and %q", rd, vs[0], vs[1])
					return
				}
				reads.Add(1)
				if vs[0] != prev {
					mixed.Add(1)
					prev = vs[0]
				}
				if w, s, ok := strings.Cut(vs[0], "-"); ok {
					seq, _ := strconv.Atoi(s)
					if seq < last[w] {
						t.Errorf("reader %d: writer %s's value went back from seq %d to %d", rd, w, last[w], seq)
						return
					}
					last[w] = seq
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("%d MGETs, %d changes seen", reads.Load(), mixed.Load())
	if mixed.Load() < 10 {
		t.Errorf("readers saw only %d changes: the test did not race", mixed.Load())
	}
}

// TestLockLostUpdates: concurrent read-modify-write commands on one key,
// and on keys of several tags, lose no update: 16 connections INCR one key
// (every reply distinct, the final value exact), INCRBY/DECRBY keys of
// eight tags (the sum is the sum of the deltas), APPEND one key (the
// length is exact).
func TestLockLostUpdates(t *testing.T) {
	s, addr := startServer(t)
	const conns, batches, perBatch = 16, 150, 50
	stop := time.Now().Add(time.Second)
	cs := lockConns(t, addr, conns)
	var wg sync.WaitGroup
	incrs := make([][]int64, conns)
	var deltaSum, appends atomic.Int64
	for i := 0; i < conns; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			var sum int64
			defer func() { deltaSum.Add(sum) }()
			for b := 0; b < batches && time.Now().Before(stop); b++ {
				var cmds [][]string
				var kinds []int
				for k := 0; k < perBatch; k++ {
					switch k % 3 {
					case 0:
						cmds = append(cmds, []string{"INCR", "{ctr}n"})
					case 1:
						d := rng.Int64N(2001) - 1000
						sum += d
						key := fmt.Sprintf("{t%d}sum", rng.IntN(8))
						if d < 0 && rng.IntN(2) == 0 {
							cmds = append(cmds, []string{"DECRBY", key, strconv.FormatInt(-d, 10)})
						} else {
							cmds = append(cmds, []string{"INCRBY", key, strconv.FormatInt(d, 10)})
						}
					case 2:
						cmds = append(cmds, []string{"APPEND", "{app}s", "xy"})
						appends.Add(1)
					}
					kinds = append(kinds, k%3)
				}
				rs, err := cs[i].pipeline(cmds)
				if err != nil {
					t.Errorf("conn %d: %v", i, err)
					return
				}
				for k, r := range rs {
					n, ok := lockInt(r)
					if !ok {
						t.Errorf("conn %d: %q: %q", i, cmds[k], r)
						return
					}
					if kinds[k] == 0 {
						incrs[i] = append(incrs[i], n)
					}
				}
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	c := cs[0]
	seen := make(map[int64]bool)
	total := 0
	for i, got := range incrs {
		for j, n := range got {
			if seen[n] {
				t.Fatalf("INCR replied %d twice (a lost update)", n)
			}
			seen[n] = true
			if j > 0 && n <= got[j-1] {
				t.Errorf("conn %d: INCR replies not increasing: %d after %d", i, n, got[j-1])
			}
		}
		total += len(got)
	}
	if r, _ := c.do("GET", "{ctr}n"); r != fmt.Sprintf("$%d\r\n%d\r\n", len(strconv.Itoa(total)), total) {
		t.Errorf("after %d INCRs: GET = %q", total, r)
	}
	var keys []string
	for k := 0; k < 8; k++ {
		keys = append(keys, fmt.Sprintf("{t%d}sum", k))
	}
	r, _ := c.do(append([]string{"MGET"}, keys...)...)
	vs, ok := lockBulks(r)
	if !ok {
		t.Fatalf("MGET: %q", r)
	}
	var sum int64
	for _, v := range vs {
		if v != "<nil>" {
			n, _ := strconv.ParseInt(v, 10, 64)
			sum += n
		}
	}
	if sum != deltaSum.Load() {
		t.Errorf("INCRBY/DECRBY over 8 tags: keys sum to %d, deltas to %d", sum, deltaSum.Load())
	}
	if r, _ := c.do("STRLEN", "{app}s"); r != fmt.Sprintf(":%d\r\n", 2*appends.Load()) {
		t.Errorf("after %d APPENDs of 2 bytes: STRLEN = %q", appends.Load(), r)
	}
	if n := lockHeldTags(s); n != 0 {
		t.Errorf("%d tag locks still held after all commands ended", n)
	}
}

// TestLockParallelism shows what runs in parallel and what waits, with a
// command (TESTHOLD, TESTHOLDRO) that holds its key's tag lock until
// released. The connections are on different loops (see the top of the
// file): a command waiting for a lock stalls only its own loop.
func TestLockParallelism(t *testing.T) {
	t.Run("other tag runs, same tag waits", func(t *testing.T) {
		s, addr, h := startLockServer(t)
		cs := lockConns(t, addr, 4) // four loops
		holder, other, same := cs[0], cs[1], cs[2]
		hold := holder.async("TESTHOLD", "{h}k")
		h.waitEntered(t, "{h}k")
		// (a) another tag, from another loop: runs while {h} is held.
		for _, cmd := range [][]string{{"SET", "{o}k", "v"}, {"GET", "{o}k"}, {"MSET", "{o}a", "1", "{p}b", "2"}, {"INCR", "{o}n"}} {
			if r, err := other.do(cmd...); err != nil || strings.HasPrefix(r, "-") {
				t.Fatalf("%q while {h} is held: %q %v", cmd, r, err)
			}
		}
		// (b) the same tag waits until TESTHOLD returns.
		get := same.async("GET", "{h}other")
		mset := cs[3].async("MSET", "{a}k", "1", "{h}k2", "2")
		if r, waited := lockStays(get); !waited {
			t.Fatalf("GET on a held tag replied %q while it was held", r)
		}
		if r, waited := lockStays(mset); !waited {
			t.Fatalf("MSET including a held tag replied %q while it was held", r)
		}
		h.release("{h}k")
		if r := lockWithin(t, "TESTHOLD", hold); r != "+OK\r\n" {
			t.Fatalf("TESTHOLD: %q", r)
		}
		if r := lockWithin(t, "GET after release", get); r != "$-1\r\n" {
			t.Fatalf("GET after release: %q", r)
		}
		if r := lockWithin(t, "MSET after release", mset); r != "+OK\r\n" {
			t.Fatalf("MSET after release: %q", r)
		}
		if n := lockHeldTags(s); n != 0 {
			t.Errorf("%d tag locks still held", n)
		}
	})
	t.Run("readers share, writers wait", func(t *testing.T) {
		_, addr, h := startLockServer(t)
		cs := lockConns(t, addr, 4)
		if r, _ := cs[0].do("SET", "{r}k", "v"); r != "+OK\r\n" {
			t.Fatal(r)
		}
		ro1 := cs[0].async("TESTHOLDRO", "{r}k")
		h.waitEntered(t, "{r}k")
		// (c) another reader of the same tag: does not wait.
		if r, err := cs[1].do("GET", "{r}k"); r != "$1\r\nv\r\n" {
			t.Fatalf("GET while {r} is held shared: %q %v", r, err)
		}
		if r, err := cs[1].do("MGET", "{r}k", "{r}j"); r != "*2\r\n$1\r\nv\r\n$-1\r\n" {
			t.Fatalf("MGET while {r} is held shared: %q %v", r, err)
		}
		// A second holding reader enters while the first holds.
		ro2 := cs[2].async("TESTHOLDRO", "{r}k2")
		h.waitEntered(t, "{r}k2")
		// A writer waits for both.
		set := cs[3].async("SET", "{r}k", "w")
		if r, waited := lockStays(set); !waited {
			t.Fatalf("SET on a tag held shared replied %q while held", r)
		}
		h.release("{r}k")
		if r := lockWithin(t, "TESTHOLDRO", ro1); r != "+OK\r\n" {
			t.Fatalf("TESTHOLDRO: %q", r)
		}
		if r, waited := lockStays(set); !waited {
			t.Fatalf("SET replied %q while a second reader held the tag", r)
		}
		h.release("{r}k2")
		lockWithin(t, "TESTHOLDRO 2", ro2)
		if r := lockWithin(t, "SET after release", set); r != "+OK\r\n" {
			t.Fatalf("SET after release: %q", r)
		}
	})
	t.Run("FLUSHALL waits and holds back later commands", func(t *testing.T) {
		// Later commands: the global lock is one RWMutex per slot
		// (connection id % slots); FLUSHALL takes the slots in order and
		// waits at the holder's. The holder is a connection of the last
		// slot and the later ones have lower slots, taken already: their
		// commands wait until FLUSHALL is done (and then see its effect).
		s, addr, h := startLockServer(t)
		slots := s.locks.Slots()
		var holder *lockClient
		var lower []*lockClient
		for holder == nil || len(lower) < 3 {
			c := lockConns(t, addr, 1)[0]
			r, _ := c.do("CLIENT", "ID")
			id, _ := strconv.Atoi(strings.Trim(r, ":\r\n"))
			if id%slots == slots-1 {
				if holder == nil {
					holder = c
				}
			} else {
				lower = append(lower, c)
			}
		}
		later1, later2, flusher := lower[0], lower[1], lower[2]
		if r, _ := later1.do("MSET", "{f}k", "v", "{g}k", "v", "{e}k", "v"); r != "+OK\r\n" {
			t.Fatal(r)
		}
		hold := holder.async("TESTHOLD", "{f}k")
		h.waitEntered(t, "{f}k")
		flush := flusher.async("FLUSHALL")
		if r, waited := lockStays(flush); !waited {
			t.Fatalf("FLUSHALL replied %q while a command held a key", r)
		}
		get1 := later1.async("GET", "{g}k")
		get2 := later2.async("EXISTS", "{e}k")
		r1, waited1 := lockStays(get1)
		r2, waited2 := lockStays(get2)
		t.Logf("later commands held back by the waiting FLUSHALL: %v, %v", waited1, waited2)
		if !waited1 && !waited2 {
			t.Errorf("commands sent while FLUSHALL waited ran at once (%q, %q): FLUSHALL can be starved", r1, r2)
		}
		h.release("{f}k")
		lockWithin(t, "TESTHOLD", hold)
		if r := lockWithin(t, "FLUSHALL", flush); r != "+OK\r\n" {
			t.Fatalf("FLUSHALL: %q", r)
		}
		if waited1 {
			if r := lockWithin(t, "GET after FLUSHALL", get1); r != "$-1\r\n" {
				t.Errorf("GET held back by FLUSHALL ran before it: %q", r)
			}
		}
		if waited2 {
			if r := lockWithin(t, "EXISTS after FLUSHALL", get2); r != ":0\r\n" {
				t.Errorf("EXISTS held back by FLUSHALL ran before it: %q", r)
			}
		}
		if r, _ := holder.do("DBSIZE"); r != ":0\r\n" {
			t.Errorf("DBSIZE after FLUSHALL: %q", r)
		}
		if n := lockHeldTags(s); n != 0 {
			t.Errorf("%d tag locks still held", n)
		}
	})
	t.Run("a killed client waiting for a lock", func(t *testing.T) {
		s, addr, h := startLockServer(t)
		cs := lockConns(t, addr, 3)
		hold := cs[0].async("TESTHOLD", "{k}k")
		h.waitEntered(t, "{k}k")
		r, _ := cs[1].do("CLIENT", "ID")
		id, _ := lockInt(r)
		waiting := cs[1].async("INCR", "{k}n")
		if r, waited := lockStays(waiting); !waited {
			t.Fatalf("INCR on a held tag replied %q", r)
		}
		if r, err := cs[2].do("CLIENT", "KILL", "ID", strconv.FormatInt(id, 10)); r != ":1\r\n" {
			t.Fatalf("CLIENT KILL: %q %v", r, err)
		}
		h.release("{k}k")
		lockWithin(t, "TESTHOLD", hold)
		lockWithin(t, "killed client", waiting) // a reply or the end of the connection
		if r, _ := cs[2].do("INCR", "{k}n"); r != ":1\r\n" && r != ":2\r\n" {
			t.Errorf("INCR after the kill: %q", r)
		}
		if n := lockHeldTags(s); n != 0 {
			t.Errorf("%d tag locks still held", n)
		}
	})
}

// TestLockNoDeadlock: many connections run random multi-key commands over
// a few tags, keys in random order, with FLUSHALL, FLUSHDB, SWAPDB, KEYS
// and SELECT among them, for about 1.5 s. Every connection finishes (a
// lock-order cycle, or a global lock taken inside a tag lock, would leave
// some waiting forever), no tag lock stays held, and the server answers.
func TestLockNoDeadlock(t *testing.T) {
	s, addr := startServer(t)
	const conns = 12
	cs := lockConns(t, addr, conns)
	stop := time.Now().Add(1500 * time.Millisecond)
	var ops atomic.Int64
	done := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < conns; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(i), 42))
			key := func() string { return fmt.Sprintf("{t%d}k%d", rng.IntN(4), rng.IntN(3)) }
			keys := func(n int) []string {
				out := make([]string, n)
				for j := range out {
					out[j] = key()
				}
				return out
			}
			for round := 0; round < 2000 && time.Now().Before(stop); round++ {
				var cmds [][]string
				for k := 0; k < 8; k++ {
					var cmd []string
					switch p := rng.IntN(100); {
					case p < 20:
						cmd = []string{"MSET"}
						for _, k := range keys(1 + rng.IntN(4)) {
							cmd = append(cmd, k, "v")
						}
					case p < 40:
						cmd = append([]string{"MGET"}, keys(1+rng.IntN(4))...)
					case p < 50:
						cmd = append([]string{"DEL"}, keys(1+rng.IntN(3))...)
					case p < 60:
						cmd = append([]string{"EXISTS"}, keys(1+rng.IntN(4))...)
					case p < 70:
						cmd = append([]string{"RENAME"}, keys(2)...)
					case p < 75:
						cmd = append([]string{"RENAMENX"}, keys(2)...)
					case p < 85:
						cmd = append([]string{"COPY"}, keys(2)...)
						cmd = append(cmd, "REPLACE")
						if rng.IntN(2) == 0 {
							cmd = append(cmd, "DB", strconv.Itoa(rng.IntN(2)))
						}
					case p < 90:
						cmd = []string{"MSETNX", key(), "n", key(), "n"}
					case p < 93:
						cmd = []string{"SELECT", strconv.Itoa(rng.IntN(2))}
					case p < 94:
						cmd = []string{"FLUSHALL"}
					case p < 95:
						cmd = []string{"FLUSHDB"}
					case p < 97:
						cmd = []string{"SWAPDB", "0", "1"}
					case p < 98:
						cmd = []string{"KEYS", "{t1}*"}
					default:
						cmd = []string{"MOVE", key(), "1"}
					}
					cmds = append(cmds, cmd)
				}
				rs, err := cs[i].pipeline(cmds)
				if err != nil {
					t.Errorf("conn %d: after %d of %q: %v (deadlock?)", i, len(rs), cmds, err)
					return
				}
				for k, r := range rs {
					if strings.HasPrefix(r, "-") && !lockExpectedErrors[r] {
						t.Errorf("conn %d: %q: %q", i, cmds[k], r)
						return
					}
				}
				ops.Add(int64(len(cmds)))
			}
		}()
	}
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		buf := make([]byte, 1<<20)
		t.Fatalf("connections still running after 15 s: deadlock\n%s", buf[:runtime.Stack(buf, true)])
	}
	t.Logf("%d commands", ops.Load())
	c := dialLock(t, addr)
	if r, err := c.do("PING"); r != "+PONG\r\n" {
		t.Fatalf("PING after the storm: %q %v", r, err)
	}
	if n := lockHeldTags(s); n != 0 {
		t.Errorf("%d tag locks still held after every command ended", n)
	}
}

// lockExpectedErrors are the errors random commands may get.
var lockExpectedErrors = map[string]bool{
	"-ERR no such key\r\n":                                 true, // RENAME of a missing key
	"-ERR source and destination objects are the same\r\n": true, // COPY k k, MOVE k to its own DB
}

// TestLockKillMidPipeline: CLIENT KILL of a client in the middle of a long
// pipeline: the victim's connection ends, the replies it got are a prefix
// of the right ones (in order), the commands it ran are all counted, its
// locks are released and it leaves the client list.
func TestLockKillMidPipeline(t *testing.T) {
	s, addr := startServer(t)
	cs := lockConns(t, addr, 2)
	victim, killer := cs[0], cs[1]
	r, _ := victim.do("CLIENT", "ID")
	id, ok := lockInt(r)
	if !ok {
		t.Fatalf("CLIENT ID: %q", r)
	}
	batch := bytes.Repeat(difftest.Encode("INCR", "{v}n"), 1000)
	writer := make(chan struct{})
	defer func() { <-writer }()
	go func() { // the victim writes until the connection breaks
		defer close(writer)
		for i := 0; i < 200; i++ {
			victim.c.SetWriteDeadline(time.Now().Add(5 * time.Second))
			if _, err := victim.c.Write(batch); err != nil {
				return
			}
		}
	}()
	got := make(chan int64, 1)
	var progress atomic.Int64
	go func() { // and reads its replies until it ends
		var n int64
		defer func() { got <- n }()
		for {
			r, err := victim.read()
			if err != nil {
				return
			}
			if r != fmt.Sprintf(":%d\r\n", n+1) {
				t.Errorf("victim: reply %d is %q", n+1, r)
				return
			}
			n++
			progress.Store(n)
		}
	}()
	for deadline := time.Now().Add(5 * time.Second); progress.Load() < 2000; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("victim got only %d replies", progress.Load())
		}
	}
	if r, err := killer.do("CLIENT", "KILL", "ID", strconv.FormatInt(id, 10)); r != ":1\r\n" {
		t.Fatalf("CLIENT KILL: %q %v", r, err)
	}
	var n int64
	select {
	case n = <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("the victim's connection did not end after CLIENT KILL")
	}
	// The victim may finish the command it was running when killed: its
	// client goes away after that.
	if !lockWaitClients(s, 1) {
		t.Errorf("the killed client is still listed:\n%s", lockMustDo(killer, "CLIENT", "LIST"))
	}
	r, _ = killer.do("GET", "{v}n")
	ran, _ := strconv.ParseInt(strings.Split(r, "\r\n")[1], 10, 64)
	if ran < n {
		t.Errorf("victim got %d replies but the counter is %d", n, ran)
	}
	if ran >= 200_000 {
		t.Errorf("the whole pipeline ran (%d): the kill did not stop it", ran)
	}
	if r, _ := killer.do("INCR", "{v}n"); r != fmt.Sprintf(":%d\r\n", ran+1) {
		t.Errorf("INCR after the kill: %q, want %d", r, ran+1)
	}
	if n := lockHeldTags(s); n != 0 {
		t.Errorf("%d tag locks still held", n)
	}
}

// lockWaitClients waits (3 s at most) until the server has n clients.
func lockWaitClients(s *Server, n int) bool {
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		s.mu.Lock()
		got := len(s.mu.clients)
		s.mu.Unlock()
		if got == n {
			return true
		}
	}
	return false
}

func lockMustDo(c *lockClient, args ...string) string {
	r, err := c.do(args...)
	if err != nil {
		return err.Error()
	}
	return r
}

// TestLockDisconnectWithPendingReply: a client that asks for a huge reply,
// does not read it and disconnects (with more commands queued behind the
// reply, or not) is dropped: it leaves the client list, and the server,
// its loop included, keeps serving.
func TestLockDisconnectWithPendingReply(t *testing.T) {
	s, addr := startServer(t)
	admin := lockConns(t, addr, 1)[0]
	value := strings.Repeat("z", 1<<20)
	if r, _ := admin.do("SET", "{big}v", value); r != "+OK\r\n" {
		t.Fatal(r)
	}
	for i := 0; i < 4; i++ {
		c := dialLock(t, addr)
		c.c.(*net.TCPConn).SetReadBuffer(64 << 10) // keep most of it queued
		var b []byte
		for k := 0; k < 24; k++ { // 24 MB of replies
			b = append(b, difftest.Encode("GET", "{big}v")...)
		}
		if _, err := c.c.Write(b); err != nil {
			t.Fatal(err)
		}
		// Wait until the reply is under way, then leave without reading.
		c.c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.ReadFull(c.r, make([]byte, 1000)); err != nil {
			t.Fatal(err)
		}
		// Let the server finish the batch (its output queued, the
		// connection idle), then send input that waits behind the output
		// (odd rounds), then go away.
		time.Sleep(100 * time.Millisecond)
		if i%2 == 1 {
			c.send("SET", "{big}w", "x")
			time.Sleep(5 * time.Millisecond)
		}
		c.c.Close()
		if !lockWaitClients(s, 1) {
			t.Fatalf("round %d: a client that disconnected with its reply pending is still listed:\n%s", i, lockMustDo(admin, "CLIENT", "LIST"))
		}
	}
	// Every loop still serves.
	for i, c := range lockConns(t, addr, 4) {
		if r, err := c.do("STRLEN", "{big}v"); r != ":1048576\r\n" {
			t.Fatalf("conn %d: STRLEN: %q %v", i, r, err)
		}
	}
}

// TestLockLongPipeline: 100,000 commands sent in one write are all
// answered, in order (INCR replies count up, ECHO replies echo their own
// argument), while the client reads as they come.
func TestLockLongPipeline(t *testing.T) {
	_, addr := startServer(t)
	c := lockConns(t, addr, 1)[0]
	const n = 100_000
	var b []byte
	for i := 0; i < n; i++ {
		switch i % 3 {
		case 0:
			b = append(b, difftest.Encode("INCR", "{p}n")...)
		case 1:
			b = append(b, difftest.Encode("ECHO", "e"+strconv.Itoa(i))...)
		case 2:
			b = append(b, difftest.Encode("SET", "{p}k"+strconv.Itoa(i%100), strconv.Itoa(i))...)
		}
	}
	werr := make(chan error, 1)
	go func() {
		c.c.SetWriteDeadline(time.Now().Add(10 * time.Second))
		_, err := c.c.Write(b)
		werr <- err
	}()
	c.c.SetReadDeadline(time.Now().Add(10 * time.Second))
	incr := 0
	for i := 0; i < n; i++ {
		r, err := difftest.ReadReply(c.r)
		if err != nil {
			t.Fatalf("reply %d of %d: %v", i, n, err)
		}
		var want string
		switch i % 3 {
		case 0:
			incr++
			want = fmt.Sprintf(":%d\r\n", incr)
		case 1:
			e := "e" + strconv.Itoa(i)
			want = fmt.Sprintf("$%d\r\n%s\r\n", len(e), e)
		case 2:
			want = "+OK\r\n"
		}
		if r != want {
			t.Fatalf("reply %d: %q, want %q", i, r, want)
		}
	}
	if err := <-werr; err != nil {
		t.Fatal(err)
	}
	if r, _ := c.do("PING"); r != "+PONG\r\n" {
		t.Fatalf("PING after the pipeline: %q", r)
	}
}
