// Command searchbench measures search (FT.*) throughput on HotKV and on
// RediSearch 2.10.5 (the search oracle of the differential tests, which
// it starts itself), side by side, for scripts/bench.sh:
//
//   - index: documents indexed per second (pipelined HSETs of a title, a
//     body of 30 words, a TAG, a NUMERIC and a 32-dimension FLOAT32
//     vector, into an index with a FLAT vector field);
//   - term, prefix, numeric, tag, knn: FT.SEARCH queries per second (a
//     frequent word; a prefix of a few words; a numeric range; a tag; the
//     10 nearest vectors), NOCONTENT, each client waiting for its reply;
//   - aggregate: FT.AGGREGATE ... GROUPBY @tag REDUCE COUNT per second;
//   - term_w: the term queries on one index while other clients write
//     documents of another index.
//
// Each line is: test, HotKV's rate, RediSearch's rate, their ratio.
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/internal/benchconn"
	"github.com/hotkv/hotkv/internal/difftest"
)

var (
	docs     = flag.Int("n", 20000, "documents")
	clients  = flag.Int("c", 20, "clients")
	duration = flag.Duration("d", 3*time.Second, "duration of each query test")
	tests    = flag.String("tests", "index,term,prefix,numeric,tag,knn,aggregate,term_w", "tests")
)

const dim = 32

func dial(addr string) *benchconn.Conn { return benchconn.Dial(addr, fail) }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "searchbench:", err)
	os.Exit(1)
}

func words(r *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = fmt.Sprintf("w%dword", int(r.ExpFloat64()*200)%2000)
	}
	return strings.Join(w, " ")
}

func vector(r *rand.Rand) string {
	b := make([]byte, 4*dim)
	for i := range dim {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(r.Float32()))
	}
	return string(b)
}

func doc(r *rand.Rand, key string) []string {
	return []string{"HSET", key, "title", words(r, 2), "body", words(r, 30),
		"tag", fmt.Sprintf("t%d", r.IntN(20)), "n", fmt.Sprint(r.IntN(1000)), "v", vector(r)}
}

const schema = "SCHEMA title TEXT WEIGHT 2 body TEXT tag TAG n NUMERIC v VECTOR FLAT 6 TYPE FLOAT32 DIM 32 DISTANCE_METRIC L2"

// load writes n documents under prefix with the clients, 16 pipelined
// HSETs at a time, and returns the documents per second.
func load(addr, prefix string, n int) float64 {
	var next atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for w := range *clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := dial(addr)
			defer c.C.Close()
			r := rand.New(rand.NewPCG(uint64(w), 1))
			var buf []byte
			for {
				first := next.Add(16) - 16
				if first >= int64(n) {
					return
				}
				last := min(first+16, int64(n))
				buf = buf[:0]
				for i := first; i < last; i++ {
					buf = append(buf, difftest.Encode(doc(r, fmt.Sprintf("%s%d", prefix, i))...)...)
				}
				c.C.Write(buf)
				for i := first; i < last; i++ {
					if rep, err := difftest.ReadReply(c.R); err != nil || rep[0] == '-' {
						fail(fmt.Errorf("HSET: %q %v", rep, err))
					}
				}
			}
		}()
	}
	wg.Wait()
	return float64(n) / time.Since(start).Seconds()
}

// queries runs query (given a client's generator) with the clients for
// the test's duration and returns the queries per second.
func queries(addr string, query func(r *rand.Rand) []string) float64 {
	var done atomic.Int64
	var wg sync.WaitGroup
	stop := time.Now().Add(*duration)
	start := time.Now()
	for w := range *clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := dial(addr)
			defer c.C.Close()
			r := rand.New(rand.NewPCG(uint64(w), 2))
			for time.Now().Before(stop) {
				if rep := c.Do(query(r)...); rep[0] == '-' {
					fail(fmt.Errorf("%q: %s", query(r), rep))
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	return float64(done.Load()) / time.Since(start).Seconds()
}

// run measures test on the server at addr, whose data is loaded.
func run(addr, test string) float64 {
	switch test {
	case "index":
		c := dial(addr)
		c.Do("FT.DROPINDEX", "ix", "DD")
		c.Do("FLUSHALL")
		c.Do(append([]string{"FT.CREATE", "ix", "ON", "HASH", "PREFIX", "1", "d:"}, strings.Fields(schema)...)...)
		rate := load(addr, "d:", *docs)
		waitIndexed(c, "ix")
		c.C.Close()
		return rate
	case "term":
		return queries(addr, func(r *rand.Rand) []string {
			return []string{"FT.SEARCH", "ix", fmt.Sprintf("w%dword", r.IntN(20)), "NOCONTENT"}
		})
	case "prefix":
		return queries(addr, func(r *rand.Rand) []string {
			return []string{"FT.SEARCH", "ix", fmt.Sprintf("w%d*", 10+r.IntN(10)), "NOCONTENT"}
		})
	case "numeric":
		return queries(addr, func(r *rand.Rand) []string {
			lo := r.IntN(900)
			return []string{"FT.SEARCH", "ix", fmt.Sprintf("@n:[%d %d]", lo, lo+50), "NOCONTENT"}
		})
	case "tag":
		return queries(addr, func(r *rand.Rand) []string {
			return []string{"FT.SEARCH", "ix", fmt.Sprintf("@tag:{t%d}", r.IntN(20)), "NOCONTENT"}
		})
	case "knn":
		return queries(addr, func(r *rand.Rand) []string {
			return []string{"FT.SEARCH", "ix", "*=>[KNN 10 @v $b]", "PARAMS", "2", "b", vector(r), "NOCONTENT", "DIALECT", "2"}
		})
	case "aggregate":
		return queries(addr, func(r *rand.Rand) []string {
			return []string{"FT.AGGREGATE", "ix", fmt.Sprintf("w%dword", r.IntN(20)), "GROUPBY", "1", "@tag", "REDUCE", "COUNT", "0", "AS", "c"}
		})
	case "term_w":
		c := dial(addr)
		c.Do("FT.DROPINDEX", "other", "DD")
		c.Do(append([]string{"FT.CREATE", "other", "ON", "HASH", "PREFIX", "1", "e:"}, strings.Fields(schema)...)...)
		c.C.Close()
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := dial(addr)
				defer c.C.Close()
				r := rand.New(rand.NewPCG(uint64(w), 3))
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					c.Do(doc(r, fmt.Sprintf("e:%d:%d", w, i%5000))...)
				}
			}()
		}
		rate := queries(addr, func(r *rand.Rand) []string {
			return []string{"FT.SEARCH", "ix", fmt.Sprintf("w%dword", r.IntN(20)), "NOCONTENT"}
		})
		close(stop)
		wg.Wait()
		return rate
	}
	fail(fmt.Errorf("unknown test %q", test))
	return 0
}

// waitIndexed waits for RediSearch's background scan (HotKV indexes as it
// writes).
func waitIndexed(c *benchconn.Conn, name string) {
	for i := 0; i < 6000 && !strings.Contains(c.Do("FT.INFO", name), "+indexing\r\n:0\r\n"); i++ {
		time.Sleep(10 * time.Millisecond)
	}
}

func main() {
	hotkv := flag.String("hotkv", "127.0.0.1:6379", "HotKV's address")
	flag.Parse()
	oracle, stopOracle, err := difftest.LaunchSearch("--save", "", "--appendonly", "no")
	if err != nil {
		fail(err)
	}
	defer stopOracle()
	fmt.Printf("%-10s %12s %12s %7s\n", "search", "hotkv/s", "redisearch/s", "ratio")
	for _, t := range strings.Split(*tests, ",") {
		h := run(*hotkv, t)
		r := run(oracle, t)
		fmt.Printf("%-10s %12.0f %12.0f %7.2f\n", t, h, r, h/r)
	}
}
