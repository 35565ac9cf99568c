// Command pubbench measures PUBLISH throughput with subscribers: -s
// clients subscribe to one channel, then -c clients PUBLISH to it and
// wait for each reply until -n messages are published; the subscribers
// must receive every one. It prints the publishes per second, for
// scripts/bench.sh.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:6379", "server address")
	clients := flag.Int("c", 50, "publishing clients")
	subs := flag.Int("s", 10, "subscribers")
	total := flag.Int64("n", 100000, "messages")
	flag.Parse()

	fail := func(err error) {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var received sync.WaitGroup
	for range *subs {
		conn, err := net.Dial("tcp", *addr)
		if err != nil {
			fail(err)
		}
		r := bufio.NewReaderSize(conn, 64<<10)
		conn.Write(difftest.Encode("SUBSCRIBE", "bench:ch"))
		if _, err := difftest.ReadReply(r); err != nil {
			fail(err)
		}
		received.Add(1)
		go func() {
			defer received.Done()
			for range *total {
				if _, err := difftest.ReadReply(r); err != nil {
					fail(err)
				}
			}
		}()
	}
	var left atomic.Int64
	left.Store(*total)
	var wg sync.WaitGroup
	start := time.Now()
	for range *clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := net.Dial("tcp", *addr)
			if err != nil {
				fail(err)
			}
			defer conn.Close()
			r := bufio.NewReader(conn)
			req := difftest.Encode("PUBLISH", "bench:ch", "hello world")
			for left.Add(-1) >= 0 {
				if _, err := conn.Write(req); err != nil {
					fail(err)
				}
				if _, err := difftest.ReadReply(r); err != nil {
					fail(err)
				}
			}
		}()
	}
	wg.Wait()
	received.Wait()
	fmt.Printf("%.2f\n", float64(*total)/time.Since(start).Seconds())
}
