// Command txbench measures transactions per second: each of -c clients
// sends MULTI, INCR {t}:a, INCR {t}:b, EXEC on a random tag t (of -r) and
// waits for the replies, until -n transactions are done. It prints the
// rate, for scripts/bench.sh.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:6379", "server address")
	clients := flag.Int("c", 50, "clients")
	total := flag.Int64("n", 100000, "transactions")
	tags := flag.Int("r", 100000, "random tags")
	flag.Parse()

	var left atomic.Int64
	left.Store(*total)
	var wg sync.WaitGroup
	start := time.Now()
	for i := 0; i < *clients; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := net.Dial("tcp", *addr)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			defer conn.Close()
			r := bufio.NewReader(conn)
			var req []byte
			for left.Add(-1) >= 0 {
				t := rand.IntN(*tags)
				req = req[:0]
				req = append(req, difftest.Encode("MULTI")...)
				req = append(req, difftest.Encode("INCR", fmt.Sprintf("{%d}:a", t))...)
				req = append(req, difftest.Encode("INCR", fmt.Sprintf("{%d}:b", t))...)
				req = append(req, difftest.Encode("EXEC")...)
				if _, err := conn.Write(req); err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(1)
				}
				for j := 0; j < 4; j++ {
					if _, err := difftest.ReadReply(r); err != nil {
						fmt.Fprintln(os.Stderr, err)
						os.Exit(1)
					}
				}
			}
		}()
	}
	wg.Wait()
	fmt.Printf("%.2f\n", float64(*total)/time.Since(start).Seconds())
}
