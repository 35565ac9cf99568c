// Command membench measures the memory of each data type in HotKV against
// redis-server, side by side, for scripts/bench.sh. For each dataset it
// starts a fresh server of each kind (the binary -bin, and redis-server),
// reads its RSS (VmRSS of /proc/PID/status) and used_memory, loads the
// dataset with pipelined commands, sends MEMORY PURGE, waits a second and
// reads them again. Each line is: dataset, HotKV's RSS growth and
// used_memory growth (MB), Redis's, and the ratios HotKV / Redis.
//
// The datasets (-sets, comma-separated; "all" for every one) hold a
// million elements each, short strings ("e:N", "f:N" = "v:N", "m:N"):
//
//	list_small  100,000 lists of 5 elements
//	list_1k     1,000 lists of 1,000 elements
//	list_big    10 lists of 100,000 elements
//	hash_small  100,000 hashes of 10 fields
//	hash_big    10 hashes of 100,000 fields
//	set_int     100,000 sets of 10 integers (intsets)
//	set_small   100,000 sets of 10 strings
//	set_big     10 sets of 100,000 strings
//	zset_small  100,000 sorted sets of 10 members
//	zset_big    10 sorted sets of 100,000 members
//	stream      10 streams of 100,000 entries (one field each)
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hotkv/hotkv/internal/benchconn"
	"github.com/hotkv/hotkv/internal/difftest"
)

var (
	bin   = flag.String("bin", "bin/hotkv", "the hotkv binary")
	redis = flag.String("redis", "redis-server", "the redis-server binary")
	sets  = flag.String("sets", "all", "datasets, comma-separated")
)

type dataset struct {
	name string
	// keys of elems elements each; cmd returns the command that adds
	// elements [from, to) of key k.
	keys, elems, batch int
	cmd                func(k, from, to int) []string
}

func collection(verb string, pair func(j int) []string) func(k, from, to int) []string {
	return func(k, from, to int) []string {
		args := []string{verb, fmt.Sprintf("%s:%d", strings.ToLower(verb[:1]), k)}
		for j := from; j < to; j++ {
			args = append(args, pair(j)...)
		}
		return args
	}
}

var (
	elem    = func(j int) []string { return []string{"e:" + strconv.Itoa(j)} }
	field   = func(j int) []string { return []string{"f:" + strconv.Itoa(j), "v:" + strconv.Itoa(j)} }
	member  = func(j int) []string { return []string{"m:" + strconv.Itoa(j)} }
	integer = func(j int) []string { return []string{strconv.Itoa(j * 7)} }
	scored  = func(j int) []string { return []string{strconv.Itoa(j), "m:" + strconv.Itoa(j)} }
)

var datasets = []dataset{
	{"list_small", 100000, 5, 5, collection("RPUSH", elem)},
	{"list_1k", 1000, 1000, 100, collection("RPUSH", elem)},
	{"list_big", 10, 100000, 100, collection("RPUSH", elem)},
	{"hash_small", 100000, 10, 10, collection("HSET", field)},
	{"hash_big", 10, 100000, 100, collection("HSET", field)},
	{"set_int", 100000, 10, 10, collection("SADD", integer)},
	{"set_small", 100000, 10, 10, collection("SADD", member)},
	{"set_big", 10, 100000, 100, collection("SADD", member)},
	{"zset_small", 100000, 10, 10, collection("ZADD", scored)},
	{"zset_big", 10, 100000, 100, collection("ZADD", scored)},
	{"stream", 10, 100000, 1, func(k, from, _ int) []string {
		return []string{"XADD", "x:" + strconv.Itoa(k), "*", "f", "v:" + strconv.Itoa(from)}
	}},
}

var (
	started []*exec.Cmd
	tmp     string
)

func fail(err error) {
	fmt.Fprintln(os.Stderr, "membench:", err)
	cleanup()
	os.Exit(1)
}

func cleanup() {
	stop()
	if tmp != "" {
		os.RemoveAll(tmp)
	}
}

// stop ends the servers started.
func stop() {
	for _, c := range started {
		c.Process.Kill()
		c.Wait()
	}
	started = nil
}

// server starts binary (hotkv or redis-server) on a free port.
func server(binary string, redis bool) (*exec.Cmd, *benchconn.Conn) {
	port := benchconn.FreePort(fail)
	dir, err := os.MkdirTemp(tmp, "srv")
	if err != nil {
		fail(err)
	}
	args := []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--dir", dir}
	if redis {
		args = append(args, "--appendonly", "no")
	}
	cmd := exec.Command(binary, args...)
	log, err := os.Create(filepath.Join(dir, "log"))
	if err != nil {
		fail(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	started = append(started, cmd)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	if err := difftest.WaitReady(addr, 10*time.Second); err != nil {
		fail(err)
	}
	return cmd, benchconn.Dial(addr, fail)
}

func rss(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		fail(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func usedMemory(c *benchconn.Conn) int64 {
	for _, line := range strings.Split(c.Do("INFO", "memory"), "\r\n") {
		if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return 0
}

// settle returns the server's RSS and used_memory once it has purged.
func settle(cmd *exec.Cmd, c *benchconn.Conn) (int64, int64) {
	c.Do("MEMORY", "PURGE")
	time.Sleep(time.Second)
	return rss(cmd.Process.Pid), usedMemory(c)
}

// measure loads d into a fresh server and returns its growth in RSS and
// used_memory.
func measure(d dataset, binary string, redis bool) (int64, int64) {
	cmd, c := server(binary, redis)
	defer stop()
	rss0, used0 := settle(cmd, c)
	const pipeline = 1000
	w := bufio.NewWriterSize(c.C, 64<<10)
	n := 0
	for k := 0; k < d.keys; k++ {
		for from := 0; from < d.elems; from += d.batch {
			w.Write(difftest.Encode(d.cmd(k, from, min(from+d.batch, d.elems))...))
			if n++; n == pipeline {
				drain(c, w, n)
				n = 0
			}
		}
	}
	drain(c, w, n)
	rss1, used1 := settle(cmd, c)
	return rss1 - rss0, used1 - used0
}

// drain sends what w holds and reads n replies, failing on an error.
func drain(c *benchconn.Conn, w *bufio.Writer, n int) {
	if err := w.Flush(); err != nil {
		fail(err)
	}
	for range n {
		rep, err := difftest.ReadReply(c.R)
		if err != nil {
			fail(err)
		}
		if strings.HasPrefix(rep, "-") {
			fail(fmt.Errorf("error reply: %s", rep))
		}
	}
}

func mb(n int64) string { return fmt.Sprintf("%.1f", float64(n)/1e6) }

func main() {
	flag.Parse()
	var err error
	if tmp, err = os.MkdirTemp("", "membench"); err != nil {
		fail(err)
	}
	defer cleanup()
	want := map[string]bool{}
	for _, s := range strings.Split(*sets, ",") {
		want[s] = true
	}
	fmt.Printf("%-11s %22s %22s %12s\n", "memory", "hotkv rss/used MB", "redis rss/used MB", "ratio r/u")
	for _, d := range datasets {
		if !want["all"] && !want[d.name] {
			continue
		}
		hr, hu := measure(d, *bin, false)
		rr, ru := measure(d, *redis, true)
		fmt.Printf("%-11s %22s %22s %12s\n", d.name, mb(hr)+"/"+mb(hu), mb(rr)+"/"+mb(ru),
			fmt.Sprintf("%.2f/%.2f", float64(hr)/float64(rr), float64(hu)/float64(ru)))
	}
}
