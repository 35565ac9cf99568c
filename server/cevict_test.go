package server

import (
	"fmt"
	"io"
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

// cevVictim connects a client named name to addr that reads nothing
// more after its CLIENT SETNAME.
func cevVictim(t *testing.T, addr, name string, noEvict bool) net.Conn {
	t.Helper()
	v, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	v.(*net.TCPConn).SetReadBuffer(4096)
	v.Write(difftest.Encode("CLIENT", "SETNAME", name))
	if _, err := io.ReadFull(v, make([]byte, 5)); err != nil {
		t.Fatal(err)
	}
	if noEvict {
		v.Write(difftest.Encode("CLIENT", "NO-EVICT", "ON"))
		if _, err := io.ReadFull(v, make([]byte, 5)); err != nil {
			t.Fatal(err)
		}
	}
	return v
}

// partialArg sends the start of a command whose one argument is n bytes,
// all but its final CRLF: n bytes wait in the query buffer.
func partialArg(v net.Conn, n int) {
	v.Write([]byte(fmt.Sprintf("*1\r\n$%d\r\n", n)))
	v.Write([]byte(strings.Repeat("v", n)))
}

// clientField returns the field f of the CLIENT LIST line of the client
// named name, and whether there is one.
func clientField(c *difftest.Conn, name, f string) (int64, bool) {
	for _, line := range strings.Split(c.Do("CLIENT", "LIST"), "\n") {
		if !strings.Contains(line, " name="+name+" ") {
			continue
		}
		m := regexp.MustCompile(" " + f + `=(-?\d+)`).FindStringSubmatch(line)
		if m == nil {
			return 0, false
		}
		n, _ := strconv.ParseInt(m[1], 10, 64)
		return n, true
	}
	return 0, false
}

// evictedClients returns INFO stats' integer field f.
func evictedClients(c *difftest.Conn, f string) int64 {
	m := regexp.MustCompile(f + `:(\d+)`).FindStringSubmatch(c.Do("INFO", "stats"))
	if m == nil {
		return -1
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	return n
}

// cevScenario fills one or more clients' memory on a server with
// maxmemory-clients set, and says which of them are still connected and
// how many clients INFO counts as evicted.
type cevScenario struct {
	name  string
	limit string
	fill  func(t *testing.T, addr string, c *difftest.Conn)
	// count: only how many are connected is told (which of clients of
	// about one size go first depends on the allocator).
	count bool
	want  string
}

func (sc cevScenario) run(t *testing.T, addr string) string {
	c := difftest.Dial(t, addr)
	c.Do("FLUSHALL")
	c.Do("CLIENT", "SETNAME", "control")
	c.Do("CLIENT", "NO-EVICT", "ON")
	c.Do("CONFIG", "SET", "maxmemory-clients", sc.limit)
	c.Do("CONFIG", "RESETSTAT")
	defer c.Do("CONFIG", "SET", "maxmemory-clients", "0")
	sc.fill(t, addr, c)
	time.Sleep(200 * time.Millisecond)
	var out []string
	for _, line := range strings.Split(c.Do("CLIENT", "LIST"), "\n") {
		if m := regexp.MustCompile(` name=(v\S*) `).FindStringSubmatch(line); m != nil {
			out = append(out, m[1])
		}
	}
	if sc.count {
		return fmt.Sprintf("%d connected, evicted_clients %d", len(out), evictedClients(c, "evicted_clients"))
	}
	return fmt.Sprintf("connected %q, evicted_clients %d", out, evictedClients(c, "evicted_clients"))
}

// waitQbuf waits until the client named name has at least n bytes in its
// query buffer.
func waitQbuf(t *testing.T, c *difftest.Conn, name string, n int64) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if q, ok := clientField(c, name, "qbuf"); !ok || q >= n {
			return // evicted, or filled
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s's query buffer never reached %d", name, n)
		}
	}
}

// TestClientEviction: clients whose query buffer or output passes
// maxmemory-clients are evicted, largest first and only until the rest
// is under the limit, as redis-server evicts them; CLIENT NO-EVICT
// clients are not; lowering the limit evicts at once; INFO counts them.
// Differential: each scenario runs on a redis-server started here and on
// HotKV.
func TestClientEviction(t *testing.T) {
	redis := difftest.StartRedis(t)
	_, hotkv := startServer(t)
	for _, sc := range []cevScenario{
		{name: "under the limit", limit: "1mb", want: `connected ["v1"], evicted_clients 0`,
			fill: func(t *testing.T, addr string, c *difftest.Conn) {
				partialArg(cevVictim(t, addr, "v1", false), 200000)
				waitQbuf(t, c, "v1", 200000)
				if m, _ := clientField(c, "v1", "tot-mem"); m < 200000 || m > 300000 {
					t.Errorf("tot-mem %d for a 200000-byte argument", m)
				}
			}},
		{name: "query buffer", limit: "1mb", want: `connected [], evicted_clients 1`,
			fill: func(t *testing.T, addr string, c *difftest.Conn) {
				partialArg(cevVictim(t, addr, "v1", false), 2000000)
			}},
		{name: "no-evict", limit: "1mb", want: `connected ["v1"], evicted_clients 0`,
			fill: func(t *testing.T, addr string, c *difftest.Conn) {
				partialArg(cevVictim(t, addr, "v1", true), 2000000)
				waitQbuf(t, c, "v1", 2000000)
			}},
		{name: "output", limit: "1mb", want: `connected [], evicted_clients 1`,
			fill: func(t *testing.T, addr string, c *difftest.Conn) {
				c.Do("SETRANGE", "big", strconv.Itoa(1<<20-1), "x")
				v := cevVictim(t, addr, "v1", false)
				for i := 0; i < 10; i++ {
					v.Write(difftest.Encode("GET", "big"))
				}
			}},
		{name: "transaction", limit: "1mb", want: `connected [], evicted_clients 1`,
			fill: func(t *testing.T, addr string, c *difftest.Conn) {
				v := cevVictim(t, addr, "v1", false)
				v.Write(difftest.Encode("MULTI"))
				val := strings.Repeat("m", 300000)
				for i := 0; i < 5; i++ {
					v.Write(difftest.Encode("SET", "k", val))
				}
			}},
		{name: "largest first", limit: "1mb", want: `connected ["v1" "v2"], evicted_clients 1`,
			fill: func(t *testing.T, addr string, c *difftest.Conn) {
				partialArg(cevVictim(t, addr, "v1", false), 200000)
				waitQbuf(t, c, "v1", 200000)
				partialArg(cevVictim(t, addr, "v2", false), 300000)
				waitQbuf(t, c, "v2", 300000)
				partialArg(cevVictim(t, addr, "v3", false), 700000)
			}},
		{name: "limit lowered", limit: "2mb", count: true, want: `2 connected, evicted_clients 2`,
			fill: func(t *testing.T, addr string, c *difftest.Conn) {
				for i := 1; i <= 4; i++ {
					name := fmt.Sprint("v", i)
					partialArg(cevVictim(t, addr, name, false), 300000)
					waitQbuf(t, c, name, 300000)
				}
				c.Do("CONFIG", "SET", "maxmemory-clients", "900kb")
				// At once: before CONFIG SET's reply.
				if n := strings.Count(c.Do("CLIENT", "LIST"), " name=v"); n != 2 {
					t.Errorf("%d clients left right after CONFIG SET, want 2", n)
				}
			}},
	} {
		t.Run(sc.name, func(t *testing.T) {
			got, want := sc.run(t, hotkv), sc.run(t, redis)
			if got != want {
				t.Errorf("HotKV: %s\nRedis: %s", got, want)
			}
			if want != sc.want {
				t.Errorf("Redis: %s, expected %s", want, sc.want)
			}
		})
	}
}

// TestClientEvictionLimit: maxmemory-clients as a percentage of
// maxmemory, Redis's 128 KB floor, and no eviction while it is 0.
func TestClientEvictionLimit(t *testing.T) {
	srv, addr := startServer(t)
	c := difftest.Dial(t, addr)
	for _, tc := range []struct {
		clients, maxmemory string
		want               int64
	}{
		{"0", "0", 0},
		{"1mb", "0", 1 << 20},
		{"1", "0", 128 << 10},
		{"10%", "0", 0},
		{"10%", "100mb", 10 << 20},
		{"1%", "1mb", 128 << 10},
	} {
		c.Do("CONFIG", "SET", "maxmemory", tc.maxmemory, "maxmemory-clients", tc.clients)
		if got := srv.clientEvictionLimit(); got != tc.want {
			t.Errorf("maxmemory-clients %s, maxmemory %s: limit %d, want %d", tc.clients, tc.maxmemory, got, tc.want)
		}
	}
	c.Do("CONFIG", "SET", "maxmemory", "0", "maxmemory-clients", "0")
}

// TestClientEvictionConcurrent (run it with -race): clients that fill
// their query buffers past maxmemory-clients are evicted while other
// clients keep running commands, listing clients and publishing to a
// subscriber: none of those is evicted, every evicted client is counted,
// and the sum of the clients' memory comes back to what the survivors
// hold.
func TestClientEvictionConcurrent(t *testing.T) {
	srv, addr := startServer(t)
	c := difftest.Dial(t, addr)
	c.Do("CLIENT", "NO-EVICT", "ON")
	c.Do("CONFIG", "SET", "maxmemory-clients", "1mb")
	defer c.Do("CONFIG", "SET", "maxmemory-clients", "0")

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var failures atomic.Int64
	const workers = 6
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wc := difftest.Dial(t, addr)
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				key := fmt.Sprint("w", w, ":", i%10)
				var got string
				switch i % 4 {
				case 0:
					got = wc.Do("SET", key, "v")
				case 1:
					got = wc.Do("GET", key)
				case 2:
					got = wc.Do("CLIENT", "LIST")
				case 3:
					got = wc.Do("PUBLISH", "ch", strings.Repeat("p", 1000))
				}
				if strings.HasPrefix(got, "-") {
					failures.Add(1)
				}
			}
		}()
	}
	sub := difftest.Dial(t, addr)
	sub.Do("SUBSCRIBE", "ch")
	go func() {
		for {
			if _, err := sub.ReadErr(time.Second); err != nil {
				select {
				case <-stop:
					return
				default:
				}
			}
		}
	}()

	const hogs = 20
	var hwg sync.WaitGroup
	for h := 0; h < hogs; h++ {
		hwg.Add(1)
		go func() {
			defer hwg.Done()
			v, err := net.Dial("tcp", addr)
			if err != nil {
				t.Error(err)
				return
			}
			defer v.Close()
			v.Write([]byte("*1\r\n$600000\r\n"))
			chunk := []byte(strings.Repeat("h", 10000))
			for i := 0; i < 60; i++ {
				if _, err := v.Write(chunk); err != nil {
					return
				}
			}
			// Evicted: the server closes the connection.
			v.SetReadDeadline(time.Now().Add(10 * time.Second))
			io.Copy(io.Discard, v)
		}()
	}
	hwg.Wait()
	close(stop)
	wg.Wait()
	if n := failures.Load(); n > 0 {
		t.Errorf("%d commands of the other clients failed", n)
	}
	if n := evictedClients(c, "evicted_clients"); n < hogs/2 || n > hogs {
		t.Errorf("evicted_clients %d for %d clients over the limit", n, hogs)
	}
	if got := c.Do("PING"); got != "+PONG\r\n" {
		t.Errorf("the control client: %q", got)
	}
	var sum int64
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		srv.evictClients(true)
		if sum = srv.cev.sum.Load(); sum < 1<<20 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the clients' memory is %d once the hogs are gone", sum)
		}
	}
	c.Do("CONFIG", "SET", "maxmemory-clients", "0")
	c.Do("PING")
	if got := srv.cev.sum.Load(); got != 0 {
		t.Errorf("the clients' memory is %d with maxmemory-clients 0", got)
	}
}
