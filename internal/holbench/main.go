// Command holbench measures head-of-line blocking: while one client runs
// long operations on hash tag {a} back to back, -c probe clients send
// GET {b}probe round trips, and it prints the probes' p50 and p99 in
// milliseconds and the holder's mean operation time, for scripts/bench.sh.
//
// Operations (-op): script, a Lua script that runs -ms milliseconds on
// {a} (with -kl, HotKV's allow-key-locking flag); sort, SORT of a list on
// {a} with STORE, its length sized so that one SORT takes about -ms on
// this server.
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/hotkv/hotkv/internal/benchconn"
)

func dial(addr string) *benchconn.Conn { return benchconn.Dial(addr, fail) }

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

const slowScript = `local function now() local t = redis.call('TIME') return t[1] * 1000 + t[2] / 1000 end
local stop = now() + tonumber(ARGV[1])
while now() < stop do end
return 1`

func main() {
	addr := flag.String("addr", "127.0.0.1:6379", "server address")
	probes := flag.Int("c", 4, "probe clients")
	op := flag.String("op", "script", "holder operation: script or sort")
	ms := flag.Int("ms", 250, "length of one operation, in milliseconds")
	kl := flag.Bool("kl", false, "scripts carry allow-key-locking (HotKV)")
	dur := flag.Duration("t", 3*time.Second, "how long to measure")
	flag.Parse()

	setup := dial(*addr)
	setup.Do("SET", "{b}probe", "v")
	var holderArgs []string
	switch *op {
	case "script":
		body := slowScript
		if *kl {
			body = "#!lua flags=allow-key-locking\n" + body
		}
		holderArgs = []string{"EVAL", body, "1", "{a}k", strconv.Itoa(*ms)}
	case "sort":
		setup.Do("DEL", "{a}list")
		n := 0
		for grow := 50000; ; grow *= 2 {
			for i := 0; i < grow; i += 1000 {
				args := []string{"RPUSH", "{a}list"}
				for j := 0; j < 1000; j++ {
					args = append(args, strconv.Itoa(((n+i+j)*7919)%1000003))
				}
				setup.Do(args...)
			}
			n += grow
			start := time.Now()
			setup.Do("SORT", "{a}list", "STORE", "{a}dst")
			if time.Since(start) >= time.Duration(*ms)*time.Millisecond || n > 8000000 {
				break
			}
		}
		holderArgs = []string{"SORT", "{a}list", "STORE", "{a}dst"}
	default:
		fail(fmt.Errorf("unknown -op %q", *op))
	}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var rtts []time.Duration
	var ops int
	var opTime time.Duration
	wg.Add(1)
	go func() {
		defer wg.Done()
		h := dial(*addr)
		for {
			select {
			case <-stop:
				return
			default:
			}
			start := time.Now()
			h.Do(holderArgs...)
			mu.Lock()
			ops++
			opTime += time.Since(start)
			mu.Unlock()
		}
	}()
	time.Sleep(50 * time.Millisecond)
	for i := 0; i < *probes; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := dial(*addr)
			var mine []time.Duration
			for {
				select {
				case <-stop:
					mu.Lock()
					rtts = append(rtts, mine...)
					mu.Unlock()
					return
				default:
				}
				start := time.Now()
				p.Do("GET", "{b}probe")
				mine = append(mine, time.Since(start))
				time.Sleep(time.Millisecond)
			}
		}()
	}
	time.Sleep(*dur)
	close(stop)
	wg.Wait()
	slices.Sort(rtts)
	pct := func(p float64) float64 {
		if len(rtts) == 0 {
			return 0
		}
		return float64(rtts[min(len(rtts)-1, int(float64(len(rtts))*p))]) / 1e6
	}
	mean := 0.0
	if ops > 0 {
		mean = float64(opTime) / float64(ops) / 1e6
	}
	fmt.Printf("%.2f %.2f %.0f\n", pct(0.5), pct(0.99), mean)
}
