// Command tierbench measures HotKV's disk tier (tiering yes) against the
// all-memory HotKV, side by side, for scripts/bench.sh. It starts both
// servers itself (the binary -bin), loads the same dataset into each —
// -n values of -size bytes, ten times the tiered server's tiering-memory
// — and waits until the tiered server has moved what exceeds its budget
// to disk. Then, with -c clients each waiting for its reply:
//
//   - hot: GET of a hot set of keys whose values fit the budget (half of
//     it), read twice and then for two seconds beforehand (warm);
//   - uniform: GET of random keys over the whole dataset;
//   - set: a SET flood of new keys of the same size;
//   - script_declared, script_dynamic: four clients run a key-locked
//     script that reads a random cold key of tag {t}, declared in KEYS or
//     named inside the script, while the other clients INCR a key of the
//     same tag: the rate of those INCRs (a declared cold key is read
//     before the script takes its tag's lock; a dynamic one under it).
//
// Each line is: test, the tiered server's rate, p99 (ms) and the cold
// values it read from disk meanwhile, the all-memory server's rate and
// p99, and the ratio of the rates.
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/internal/benchconn"
	"github.com/hotkv/hotkv/internal/difftest"
)

var (
	bin      = flag.String("bin", "bin/hotkv", "the hotkv binary")
	keys     = flag.Int("n", 100000, "values in the dataset")
	size     = flag.Int("size", 1000, "bytes per value")
	clients  = flag.Int("c", 50, "clients")
	duration = flag.Duration("d", 3*time.Second, "duration of each test")
	tests    = flag.String("tests", "hot,uniform,set,script_declared,script_dynamic", "tests")
)

// scriptKeys is how many cold keys of tag {t} the script tests read.
const scriptKeys = 5000

func dial(addr string) *benchconn.Conn { return benchconn.Dial(addr, fail) }

// started are the servers to stop, and tmp the directory to remove,
// however the benchmark ends.
var (
	started []*server
	tmp     string
)

func fail(err error) {
	fmt.Fprintln(os.Stderr, "tierbench:", err)
	cleanup()
	os.Exit(1)
}

func cleanup() {
	for _, s := range started {
		s.stop()
	}
	if tmp != "" {
		os.RemoveAll(tmp)
	}
}

// server is a HotKV process started for the benchmark.
type server struct {
	addr string
	cmd  *exec.Cmd
}

func start(dir string, args ...string) *server {
	port := benchconn.FreePort(fail)
	args = append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--dir", dir}, args...)
	cmd := exec.Command(*bin, args...)
	log, err := os.Create(filepath.Join(dir, "hotkv.log"))
	if err != nil {
		fail(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	s := &server{addr: fmt.Sprintf("127.0.0.1:%d", port), cmd: cmd}
	started = append(started, s)
	for i := 0; ; i++ {
		if c, err := net.Dial("tcp", s.addr); err == nil {
			c.Close()
			return s
		}
		if i == 100 {
			fail(fmt.Errorf("%s did not start (see %s)", *bin, log.Name()))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *server) stop() {
	s.cmd.Process.Kill()
	s.cmd.Wait()
}

// load writes the dataset: first the script tests' {t} keys (so that they
// are the least recently used), then key:0 ... key:n-1, pipelined.
func load(addr string) {
	value := strings.Repeat("v", *size)
	c := dial(addr)
	defer c.C.Close()
	write := func(n int, name func(int) string) {
		for first := 0; first < n; first += 256 {
			last := min(first+256, n)
			var buf []byte
			for i := first; i < last; i++ {
				buf = append(buf, difftest.Encode("SET", name(i), value)...)
			}
			c.C.Write(buf)
			for i := first; i < last; i++ {
				if rep, err := difftest.ReadReply(c.R); err != nil || rep != "+OK\r\n" {
					fail(fmt.Errorf("SET: %q %v", rep, err))
				}
			}
		}
	}
	write(scriptKeys, func(i int) string { return fmt.Sprintf("{t}:c:%d", i) })
	write(*keys, func(i int) string { return fmt.Sprintf("key:%d", i) })
	c.Do("SET", "{t}:hot", "0")
}

// settle waits until the tiered server's values in memory fit its budget
// (the bytes it reports in memory include every key and its metadata).
func settle(addr string, budget int) {
	c := dial(addr)
	defer c.C.Close()
	for i := 0; i < 600; i++ {
		info := c.Do("INFO", "tiering")
		n, _ := strconv.Atoi(field(info, "tiering_values_in_memory"))
		if cold, _ := strconv.Atoi(field(info, "tiering_values_on_disk")); cold > 0 && n**size <= budget*11/10 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	fail(fmt.Errorf("the tiered server did not move its values to disk:\n%s", c.Do("INFO", "tiering")))
}

// loads returns how many cold values the tiered server has read.
func loads(addr string) int {
	c := dial(addr)
	defer c.C.Close()
	n, _ := strconv.Atoi(field(c.Do("INFO", "tiering"), "tiering_loads"))
	return n
}

func field(info, name string) string {
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			return v
		}
	}
	return ""
}

// result is a test's rate (requests per second) and p99 (ms).
type result struct{ rate, p99 float64 }

// measure runs op (given a client's generator and connection) with n
// clients for the test's duration, and returns their rate and p99.
func measure(addr string, n int, seed uint64, op func(r *rand.Rand) []string) result {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var all []time.Duration
	stop := time.Now().Add(*duration)
	start := time.Now()
	for w := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := dial(addr)
			defer c.C.Close()
			r := rand.New(rand.NewPCG(uint64(w), seed))
			var lat []time.Duration
			for t0 := time.Now(); t0.Before(stop); t0 = time.Now() {
				args := op(r)
				if rep := c.Do(args...); rep[0] == '-' {
					fail(fmt.Errorf("%q: %s", args, rep))
				}
				lat = append(lat, time.Since(t0))
			}
			mu.Lock()
			all = append(all, lat...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	slices.Sort(all)
	res := result{rate: float64(len(all)) / time.Since(start).Seconds()}
	if len(all) > 0 {
		res.p99 = float64(all[len(all)*99/100].Microseconds()) / 1000
	}
	return res
}

// hotKeys is the size of the hot set: half the budget, a twentieth of
// the dataset.
func hotKeys() int { return max(1, *keys/20) }

func hotGet(r *rand.Rand) []string { return []string{"GET", fmt.Sprintf("key:%d", r.IntN(hotKeys()))} }

// warm prepares the server at addr for test: the hot set is read twice,
// then for two seconds (the steady state: the LRU clock counts seconds, so
// values read in the second the hot set came in look as recent as it).
func warm(addr, test string) {
	if test != "hot" {
		return
	}
	c := dial(addr)
	for range 2 {
		for i := range hotKeys() {
			c.Do("GET", fmt.Sprintf("key:%d", i))
		}
	}
	c.C.Close()
	d := *duration
	*duration = 2 * time.Second
	measure(addr, *clients, 1, hotGet)
	*duration = d
}

// run measures test on the server at addr.
func run(addr, test string) result {
	switch test {
	case "hot":
		return measure(addr, *clients, 1, hotGet)
	case "uniform":
		return measure(addr, *clients, 2, func(r *rand.Rand) []string {
			return []string{"GET", fmt.Sprintf("key:%d", r.IntN(*keys))}
		})
	case "set":
		value := strings.Repeat("w", *size)
		var next atomic.Int64
		return measure(addr, *clients, 3, func(*rand.Rand) []string {
			return []string{"SET", fmt.Sprintf("new:%d", next.Add(1)), value}
		})
	case "script_declared", "script_dynamic":
		body, nkeys := "return #redis.call('GET', KEYS[1])", "1"
		if test == "script_dynamic" {
			body = "return #redis.call('GET', '{t}:c:' .. ARGV[1])"
		}
		c := dial(addr)
		sha := c.Do("SCRIPT", "LOAD", "#!lua flags=allow-key-locking\n"+body)
		c.C.Close()
		sha = strings.Split(sha, "\r\n")[1]
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := dial(addr)
				defer c.C.Close()
				r := rand.New(rand.NewPCG(uint64(w), 4))
				for {
					select {
					case <-stop:
						return
					default:
					}
					i := strconv.Itoa(r.IntN(scriptKeys))
					key := "{t}:c:" + i
					if test == "script_dynamic" {
						key = "{t}:hot"
					}
					if rep := c.Do("EVALSHA", sha, nkeys, key, i); rep[0] != ':' {
						fail(fmt.Errorf("EVALSHA: %s", rep))
					}
				}
			}()
		}
		res := measure(addr, max(1, *clients-4), 5, func(*rand.Rand) []string {
			return []string{"INCR", "{t}:hot"}
		})
		close(stop)
		wg.Wait()
		return res
	}
	fail(fmt.Errorf("unknown test %q", test))
	return result{}
}

func main() {
	flag.Parse()
	var err error
	if tmp, err = os.MkdirTemp("", "tierbench"); err != nil {
		fail(err)
	}
	defer cleanup()
	budget := *keys * *size / 10
	dirs := [2]string{filepath.Join(tmp, "tier"), filepath.Join(tmp, "memory")}
	for _, d := range dirs {
		if err := os.Mkdir(d, 0o755); err != nil {
			fail(err)
		}
	}
	tier := start(dirs[0], "--tiering", "yes", "--tiering-memory", strconv.Itoa(budget))
	mem := start(dirs[1])
	load(tier.addr)
	load(mem.addr)
	settle(tier.addr, budget)
	c := dial(tier.addr)
	info := c.Do("INFO", "tiering")
	c.C.Close()
	fmt.Printf("tiering: %d values of %d bytes, tiering-memory %d: %s on disk, %s in memory\n",
		*keys+scriptKeys, *size, budget, field(info, "tiering_values_on_disk"), field(info, "tiering_values_in_memory"))
	fmt.Printf("%-16s %12s %9s %10s %12s %9s %7s\n", "tiering", "tier/s", "p99 ms", "disk reads", "memory/s", "p99 ms", "ratio")
	for _, t := range strings.Split(*tests, ",") {
		warm(tier.addr, t)
		warm(mem.addr, t)
		before := loads(tier.addr)
		tr := run(tier.addr, t)
		read := loads(tier.addr) - before
		mr := run(mem.addr, t)
		fmt.Printf("%-16s %12.0f %9.2f %10d %12.0f %9.2f %7.2f\n", t, tr.rate, tr.p99, read, mr.rate, mr.p99, tr.rate/mr.rate)
	}
}
