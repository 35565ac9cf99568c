package server

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// aofScript is a sequence of writes whose propagated forms are compared
// with Redis's: every rewrite Redis 7.0 makes (relative times, random
// pops, floats, blocking commands, transactions and scripts as units,
// expired keys as DEL), and writes that change nothing, which Redis does
// not propagate.
var aofScript = []string{
	"SET a 1 EX 100",
	"SET b 1 PX 100000 GET",
	"SETEX c 100 v",
	"PSETEX d 100000 v",
	"SET e v EXAT 4102444800",
	"SET f v NX EX 10",
	"SET f v NX EX 10",
	"SET g v PXAT 4102444800000",
	"SET g2 v XX",
	"SETNX f x",
	"EXPIRE a 50",
	"PEXPIRE a 50000",
	"EXPIREAT a 4102444800",
	"PEXPIREAT a 4102444800001",
	"EXPIRE nokey 10",
	"EXPIRE a 10 GT",
	"EXPIRE e -1",
	"GETEX b EX 100",
	"GETEX b PERSIST",
	"GETEX b PERSIST",
	"GETEX b",
	"GETEX nokey EX 10",
	"GETEX c PXAT 1",
	"GETDEL d",
	"GETDEL nokey",
	"PERSIST g",
	"PERSIST nokey",
	"INCRBYFLOAT fl 1.5",
	"INCRBYFLOAT fl 0.1",
	"HINCRBYFLOAT h f 2.5",
	"SADD s a",
	"SPOP s",
	"SPOP s",
	"SADD s2 a b",
	"SPOP s2 5",
	"SADD s3 a",
	"SPOP s3 1",
	"SPOP nokey 3",
	"RPUSH l a b c d e f",
	"BLPOP l 0",
	"BRPOP l 0",
	"BLMOVE l l2 LEFT RIGHT 0",
	"BRPOPLPUSH l l2 0",
	"BLMPOP 0 1 l LEFT COUNT 1",
	"LMPOP 1 l RIGHT",
	"LMOVE l2 l LEFT LEFT",
	"ZADD z 1 a 2 b 3 c 4 d 5 e",
	"BZPOPMIN z 0",
	"BZPOPMAX z 0",
	"BZMPOP 0 1 z MIN COUNT 1",
	"ZMPOP 1 z MAX",
	"ZMPOP 1 nokey MAX",
	"DEL nokey",
	"DEL nokey a",
	"UNLINK nokey",
	"EVAL \"redis.call('set','x','1'); redis.call('incr','x')\" 0",
	"EVAL \"redis.call('set','y','1')\" 0",
	"EVAL \"return redis.call('get','y')\" 0",
	"EVAL \"redis.call('set',KEYS[1],'1', 'EX', 100)\" 1 y2",
	"MULTI", "SET t1 1", "INCR t1", "GET t1", "EXEC",
	"MULTI", "SET t2 1", "EXEC",
	"MULTI", "GET t2", "EXEC",
	"MULTI", "SET t3 1", "EXPIRE t3 100", "SPOP nokey", "EXEC",
	"SELECT 3", "SET k3 v", "SET k3b v", "SELECT 0", "SET k0 v",
	"INCR str", "LPUSH str x",
	"FUNCTION LOAD \"#!lua name=lib\nredis.register_function('f', function(k,a) return redis.call('set',k[1],'x') end)\"",
	"FCALL f 1 fk",
	"SWAPDB 0 3",
	"MOVE k3 5",
	"SELECT 0",
	"FLUSHDB",
}

// TestAOFMatchesRedis sends aofScript (and blocked clients served by a
// push, an expired key, a RESTORE) to HotKV and to redis-server, both with
// appendonly yes, and compares the files' commands, timestamps aside.
func TestAOFMatchesRedis(t *testing.T) {
	rdir, hdir := t.TempDir(), t.TempDir()
	raddr := difftest.StartRedis(t, "--appendonly", "yes", "--appendfsync", "always", "--dir", rdir)
	_, haddr := startServer(t, "--appendonly", "yes", "--appendfsync", "always", "--dir", hdir)
	for _, addr := range []string{raddr, haddr} {
		c := difftest.Dial(t, addr)
		for _, line := range aofScript {
			c.Do(difftest.Split(line)...)
		}
		// An expired key met by a command is propagated as a DEL.
		c.Do("SET", "pk", "v", "PX", "1")
		time.Sleep(20 * time.Millisecond)
		c.Do("GET", "pk")
		// RESTORE with a relative TTL replays with the absolute time.
		c.Do("SET", "src", "v")
		payload := bulkString(t, c.Do("DUMP", "src"))
		c.Do("RESTORE", "rk", "100000", payload)
		c.Do("RESTORE", "rk", "0", payload, "REPLACE", "ABSTTL")
		c.Do("RESTORE", "rk", "1", payload, "REPLACE", "ABSTTL") // expired: a DEL
		// Blocked clients served by a push replay as plain pops, after
		// the push.
		served := func(block, push []string) {
			b := difftest.Dial(t, addr)
			b.Send(difftest.Encode(block...))
			waitBlocked(t, c, 1)
			c.Do(push...)
			b.Read()
		}
		served([]string{"BLPOP", "q", "0"}, []string{"RPUSH", "q", "x", "y"})
		served([]string{"BLMOVE", "q2", "q3", "RIGHT", "LEFT", "0"}, []string{"RPUSH", "q2", "x"})
		served([]string{"BRPOPLPUSH", "q4", "q3", "0"}, []string{"RPUSH", "q4", "x"})
		served([]string{"BLMPOP", "0", "2", "nokey", "q5", "RIGHT", "COUNT", "2"}, []string{"RPUSH", "q5", "x", "y", "z"})
		served([]string{"BZPOPMAX", "zq", "0"}, []string{"ZADD", "zq", "1", "a", "2", "b"})
		served([]string{"BZMPOP", "0", "1", "zq2", "MIN", "COUNT", "5"}, []string{"ZADD", "zq2", "1", "a"})
		// PUBLISH goes to replicas only; a script's redis.set_repl
		// chooses where its writes go.
		c.Do("PUBLISH", "ch", "m")
		c.Do("MULTI")
		c.Do("PUBLISH", "ch", "m")
		c.Do("SET", "pub", "1")
		c.Do("EXEC")
		c.Do("EVAL", "redis.set_repl(redis.REPL_AOF) redis.call('set', 'aof', '1') redis.set_repl(redis.REPL_REPLICA) redis.call('set', 'repl', '1') redis.set_repl(redis.REPL_NONE) redis.call('set', 'none', '1') redis.set_repl(redis.REPL_ALL) redis.call('set', 'all', '1') return 1", "0")
		c.Do("EVAL", "redis.set_repl(redis.REPL_REPLICA) redis.call('set', 'repl2', '1') return 1", "0")
	}
	want := readIncr(t, rdir)
	got := readIncr(t, hdir)
	if !slices.Equal(want, got) {
		t.Errorf("append-only files differ\nredis:\n%s\nhotkv:\n%s", strings.Join(want, "\n"), strings.Join(got, "\n"))
	}
}

// bulkString returns the content of a raw bulk-string reply.
func bulkString(t *testing.T, raw string) string {
	t.Helper()
	i := strings.Index(raw, "\r\n")
	if !strings.HasPrefix(raw, "$") || i < 0 {
		t.Fatalf("not a bulk string: %q", raw)
	}
	return raw[i+2 : len(raw)-2]
}

// readIncr returns the commands of the first incremental file of the AOF
// in dir, one line each, with times near now replaced by <T>.
func readIncr(t *testing.T, dir string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "appendonlydir", "appendonly.aof.1.incr.aof"))
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.TrimRight(data, "\x00") // preallocated under appendfsync always (aof.OSFile)
	now := time.Now().UnixMilli()
	var out []string
	for _, cmd := range parseCommands(t, data) {
		for i, a := range cmd {
			if n, err := strconv.ParseInt(a, 10, 64); err == nil && len(a) == 13 && n > now-600_000 && n < now+600_000 {
				cmd[i] = "<T>"
			}
		}
		out = append(out, strconv.Quote(strings.Join(cmd, " ")))
	}
	return out
}

// parseCommands splits an AOF's commands (RESP arrays of bulk strings).
func parseCommands(t *testing.T, data []byte) [][]string {
	t.Helper()
	var cmds [][]string
	line := func() string {
		i := strings.Index(string(data), "\r\n")
		if i < 0 {
			t.Fatalf("truncated AOF at %q", data)
		}
		l := string(data[:i])
		data = data[i+2:]
		return l
	}
	for len(data) > 0 {
		h := line()
		if !strings.HasPrefix(h, "*") {
			t.Fatalf("bad AOF line %q", h)
		}
		n, _ := strconv.Atoi(h[1:])
		cmd := make([]string, n)
		for i := range cmd {
			size, _ := strconv.Atoi(line()[1:])
			cmd[i] = string(data[:size])
			data = data[size+2:]
		}
		cmds = append(cmds, cmd)
	}
	return cmds
}

// dataset describes every key of databases 0-5 of the server c is
// connected to, with its type, value and expiry time, in a canonical form.
func dataset(t *testing.T, c *difftest.Conn) string {
	t.Helper()
	var b strings.Builder
	for db := 0; db < 6; db++ {
		c.Do("SELECT", strconv.Itoa(db))
		keys := strings.Split(c.Do("KEYS", "*"), "\r\n")
		var names []string
		for i := 2; i < len(keys); i += 2 {
			names = append(names, keys[i])
		}
		slices.Sort(names)
		for _, k := range names {
			typ := c.Do("TYPE", k)
			var v string
			switch typ {
			case "+string\r\n":
				v = c.Do("GET", k)
			case "+list\r\n":
				v = c.Do("LRANGE", k, "0", "-1")
			case "+set\r\n":
				v = sortedLines(c.Do("SMEMBERS", k))
			case "+hash\r\n":
				v = sortedLines(c.Do("HGETALL", k))
			case "+zset\r\n":
				v = c.Do("ZRANGE", k, "0", "-1", "WITHSCORES")
			case "+stream\r\n":
				v = c.Do("XRANGE", k, "-", "+") + c.Do("XINFO", "GROUPS", k)
			}
			fmt.Fprintf(&b, "db%d %q %s %q expire=%s", db, k, strings.TrimSpace(typ), v, c.Do("PEXPIRETIME", k))
		}
	}
	c.Do("SELECT", "0")
	fmt.Fprintf(&b, "functions %q", c.Do("FUNCTION", "LIST"))
	return b.String()
}

func sortedLines(raw string) string {
	l := strings.Split(raw, "\r\n")
	slices.Sort(l)
	return strings.Join(l, "|")
}

// aofData writes keys of every type, expiries, a transaction, a script and
// a function in several databases.
var aofData = [][]string{
	{"SET", "s", "hello"},
	{"SET", "n", "12345"},
	{"INCR", "n"},
	{"SET", "ttl", "v", "EX", "1000"},
	{"RPUSH", "l", "a", "b", "1"},
	{"LPOP", "l"},
	{"SADD", "si", "1", "2", "3"},
	{"SADD", "ss", "x", "y"},
	{"HSET", "h", "f", "v", "g", "w"},
	{"HINCRBYFLOAT", "h", "n", "1.25"},
	{"ZADD", "z", "1.5", "a", "-2", "b", "inf", "c"},
	{"ZINCRBY", "z", "0.25", "a"},
	{"SELECT", "2"},
	{"SET", "other", "db"},
	{"PEXPIRE", "other", "500000"},
	{"SELECT", "0"},
	{"MULTI"}, {"SET", "tx", "1"}, {"INCR", "tx"}, {"EXEC"},
	{"EVAL", "redis.call('set', KEYS[1], 'a'); redis.call('append', KEYS[1], 'b')", "1", "sc"},
	{"FUNCTION", "LOAD", "#!lua name=mylib\nredis.register_function('f', function(k, a) return 1 end)"},
	{"SET", "gone", "x"},
	{"DEL", "gone"},
}

// TestAOFRestartAndRedis: HotKV restarted on its append-only file has the
// same data, and so does redis-server started on a copy of it (both
// rewritten and not).
func TestAOFRestartAndRedis(t *testing.T) {
	for _, mode := range []string{"no rewrite", "rewrite", "rewrite without preamble"} {
		rewrite := mode != "no rewrite"
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			preamble := "yes"
			if mode == "rewrite without preamble" {
				preamble = "no" // the base is commands
			}
			s, addr := startServer(t, "--appendonly", "yes", "--dir", dir, "--aof-use-rdb-preamble", preamble)
			c := difftest.Dial(t, addr)
			for _, cmd := range aofData {
				c.Do(cmd...)
			}
			if rewrite {
				expect(t, c, "+Background append only file rewriting started\r\n", "BGREWRITEAOF")
				waitRewrite(t, c)
				c.Do("SET", "after", "rewrite")
				base, _ := filepath.Glob(filepath.Join(dir, "appendonlydir", "*.base.*"))
				if want := map[string]string{"yes": ".rdb", "no": ".aof"}[preamble]; len(base) != 1 || filepath.Ext(base[0]) != want {
					t.Fatalf("base files %v, want one %s", base, want)
				}
			}
			want := dataset(t, c)
			restartMatches(t, s, dir, want)
			if _, err := exec.LookPath("redis-server"); err != nil {
				t.Skip("SKIPPING the redis-server half: redis-server is missing")
			}
			rdir := t.TempDir()
			copyDir(t, filepath.Join(dir, "appendonlydir"), filepath.Join(rdir, "appendonlydir"))
			raddr := difftest.StartRedis(t, "--appendonly", "yes", "--dir", rdir)
			if got := dataset(t, difftest.Dial(t, raddr)); got != want {
				t.Errorf("redis-server on HotKV's file:\n got %s\nwant %s", got, want)
			}
		})
	}
}

// TestAOFFromRedis: HotKV starts from the append-only directory
// redis-server wrote (an RDB base and commands), with the same data.
func TestAOFFromRedis(t *testing.T) {
	rdir := t.TempDir()
	raddr := difftest.StartRedis(t, "--appendonly", "yes", "--appendfsync", "always", "--dir", rdir)
	rc := difftest.Dial(t, raddr)
	for i, cmd := range aofData {
		rc.Do(cmd...)
		if i == len(aofData)/2 {
			rc.Do("BGREWRITEAOF")
			waitRewrite(t, rc)
		}
	}
	for _, line := range aofScript {
		rc.Do(difftest.Split(line)...)
	}
	rc.Do("SET", "last", "1")
	want := dataset(t, rc)
	hdir := t.TempDir()
	copyDir(t, filepath.Join(rdir, "appendonlydir"), filepath.Join(hdir, "appendonlydir"))
	_, haddr := startServer(t, "--appendonly", "yes", "--dir", hdir)
	if got := dataset(t, difftest.Dial(t, haddr)); got != want {
		t.Errorf("HotKV on redis-server's file:\n got %s\nwant %s", got, want)
	}
}

// waitRewrite waits for a background AOF rewrite to finish.
func waitRewrite(t *testing.T, c *difftest.Conn) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		info := c.Do("INFO", "persistence")
		if strings.Contains(info, "aof_rewrite_in_progress:0\r\n") && strings.Contains(info, "aof_rewrite_scheduled:0\r\n") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the rewrite did not finish:\n%s", info)
		}
	}
}

// restartMatches shuts s down and checks that a server started with the
// append-only file in dir has the dataset want.
func restartMatches(t *testing.T, s *Server, dir, want string) {
	t.Helper()
	shutdown(t, s)
	_, addr := startServer(t, "--appendonly", "yes", "--dir", dir)
	if got := dataset(t, difftest.Dial(t, addr)); got != want {
		t.Errorf("after restart:\n got %s\nwant %s", got, want)
	}
}

func shutdown(t *testing.T, s *Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	if err := os.CopyFS(to, os.DirFS(from)); err != nil {
		t.Fatal(err)
	}
}

// TestAOFConcurrentWritesReplay: many clients writing the same keys and
// keys of different tags at once (plain commands, transactions across
// tags, scripts, blocked clients served by pushes) while the file is
// rewritten again and again; it replays to exactly the data the server
// had, list orders included: per key, writes reach the file in the order
// they ran, and each rewrite's base is the dataset at the point its
// incremental file starts.
func TestAOFConcurrentWritesReplay(t *testing.T) {
	walkPause.Store(int64(100 * time.Microsecond)) // commands race with the snapshots' walks
	t.Cleanup(func() { walkPause.Store(0) })
	dir := t.TempDir()
	s, addr := startServer(t, "--appendonly", "yes", "--appendfsync", "everysec", "--dir", dir)
	const clients, ops = 12, 150
	done := make(chan struct{})
	stop := make(chan struct{})
	go func() {
		c := difftest.Dial(t, addr)
		for {
			select {
			case <-stop:
				done <- struct{}{}
				return
			default:
			}
			c.Do("BGREWRITEAOF")
			c.Do("BGSAVE")
			time.Sleep(2 * time.Millisecond)
		}
	}()
	for i := range clients {
		go func() {
			defer func() { done <- struct{}{} }()
			c := difftest.Dial(t, addr)
			own := fmt.Sprintf("{c%d}", i)
			for j := range ops {
				switch j % 6 {
				case 0:
					c.Do("INCR", "shared:n")
				case 1:
					c.Do("RPUSH", "shared:l", fmt.Sprintf("%d-%d", i, j))
				case 2:
					c.Do("MULTI")
					c.Do("INCRBYFLOAT", own+"f", "0.1")
					c.Do("LPUSH", "shared:l", own)
					c.Do("SADD", "shared:s", own)
					c.Do("SPOP", "shared:s")
					c.Do("EXEC")
				case 3:
					c.Do("EVAL", "redis.call('rpush', KEYS[1], ARGV[1]); return redis.call('lpop', KEYS[1])", "1", "shared:l", own)
				case 4:
					c.Do("SET", own+"k", strconv.Itoa(j), "PX", "100000")
					c.Do("APPEND", "shared:str", own)
				case 5:
					c.Do("BLMOVE", "shared:l", own+"l", "LEFT", "RIGHT", "0.01")
				}
			}
		}()
	}
	for range clients {
		<-done
	}
	close(stop)
	<-done
	c := difftest.Dial(t, addr)
	waitRewrite(t, c)
	if info := c.Do("INFO", "persistence"); !strings.Contains(info, "aof_last_bgrewrite_status:ok") || strings.Contains(info, "aof_rewrites:0\r\n") {
		t.Fatalf("no rewrite ran:\n%s", info)
	}
	want := dataset(t, c)
	if !strings.Contains(want, "shared:l") {
		t.Fatalf("no data written: %s", want)
	}
	restartMatches(t, s, dir, want)
}

// TestAOFAutoRewrite: with auto-aof-rewrite-percentage and -min-size, the
// file is rewritten once it grows past the base by the percentage; the
// data stays whole across it.
func TestAOFAutoRewrite(t *testing.T) {
	dir := t.TempDir()
	s, addr := startServer(t, "--appendonly", "yes", "--dir", dir, "--hz", "100",
		"--auto-aof-rewrite-percentage", "100", "--auto-aof-rewrite-min-size", "4kb")
	c := difftest.Dial(t, addr)
	value := strings.Repeat("v", 100)
	for i := 0; ; i++ {
		c.Do("SET", "k"+strconv.Itoa(i%20), value)
		info := c.Do("INFO", "persistence")
		if strings.Contains(info, "aof_rewrites:1\r\n") {
			break
		}
		if i > 5000 {
			t.Fatalf("no automatic rewrite:\n%s", info)
		}
		time.Sleep(100 * time.Microsecond)
	}
	waitRewrite(t, c)
	if got := c.Do("INFO", "persistence"); !strings.Contains(got, "aof_last_bgrewrite_status:ok\r\n") {
		t.Fatalf("rewrite failed:\n%s", got)
	}
	c.Do("SET", "after", "rewrite")
	restartMatches(t, s, dir, dataset(t, c))
	entries, _ := os.ReadDir(filepath.Join(dir, "appendonlydir"))
	if len(entries) != 3 {
		t.Errorf("history files were not removed: %v", entries)
	}
}

// TestAOFInfoFields: INFO persistence with the append-only file on has
// Redis's fields, in Redis's order.
func TestAOFInfoFields(t *testing.T) {
	raddr := difftest.StartRedis(t, "--appendonly", "yes", "--dir", t.TempDir())
	_, haddr := startServer(t, "--appendonly", "yes")
	names := func(addr string) []string {
		var out []string
		for _, l := range strings.Split(difftest.Dial(t, addr).Do("INFO", "persistence"), "\r\n") {
			if k, _, ok := strings.Cut(l, ":"); ok {
				out = append(out, k)
			}
		}
		return out
	}
	if want, got := names(raddr), names(haddr); !slices.Equal(want, got) {
		t.Errorf("INFO persistence fields\nredis: %v\nhotkv: %v", want, got)
	}
}

// TestAOFCommandsInMulti: BGSAVE, BGREWRITEAOF and CONFIG SET appendonly
// inside a transaction run under the transaction's global lock (they once
// deadlocked the server taking it again).
func TestAOFCommandsInMulti(t *testing.T) {
	_, addr := startServer(t)
	c := difftest.Dial(t, addr)
	for _, cmd := range [][]string{
		{"MULTI"}, {"SET", "k", "v"}, {"BGSAVE"}, {"BGREWRITEAOF"}, {"EXEC"},
		{"MULTI"}, {"SET", "k2", "v"}, {"CONFIG", "SET", "appendonly", "yes"}, {"SET", "k3", "v"}, {"EXEC"},
	} {
		c.Do(cmd...)
	}
	waitRewrite(t, c)
	for deadline := time.Now().Add(5 * time.Second); strings.Contains(c.Do("INFO", "persistence"), "rdb_bgsave_in_progress:1"); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("BGSAVE did not finish")
		}
	}
	expect(t, c, "+PONG\r\n", "PING")
	if info := c.Do("INFO", "persistence"); !strings.Contains(info, "aof_enabled:1\r\n") || !strings.Contains(info, "rdb_last_bgsave_status:ok\r\n") {
		t.Errorf("INFO persistence:\n%s", info)
	}
	expect(t, c, "*3\r\n$1\r\nv\r\n$1\r\nv\r\n$1\r\nv\r\n", "MGET", "k", "k2", "k3")
}

// TestBGSAVEPointInTime: a background save taken while transactions
// write pairs of keys on different tags holds every pair as one point in
// time (copy-on-write: no entry is copied after a command changed it).
func TestBGSAVEPointInTime(t *testing.T) {
	walkPause.Store(int64(200 * time.Microsecond))
	t.Cleanup(func() { walkPause.Store(0) })
	dir := t.TempDir()
	_, addr := startServer(t, "--dir", dir)
	c := difftest.Dial(t, addr)
	const pairs = 40
	for i := range pairs {
		c.Do("MSET", fmt.Sprintf("a{%d}", i), "0", fmt.Sprintf("b{%d}", i+1000), "0", fmt.Sprintf("n{%d}", i), "0")
		c.Do("RPUSH", fmt.Sprintf("l{%d}", i), "x")
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	for w := range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			wc := difftest.Dial(t, addr)
			for n := 1; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				i := (n*7 + w) % pairs
				v := strconv.Itoa(n*10 + w)
				wc.Do("MULTI")
				wc.Do("SET", fmt.Sprintf("a{%d}", i), v)
				wc.Do("SET", fmt.Sprintf("b{%d}", i+1000), v)
				wc.Do("INCR", fmt.Sprintf("n{%d}", i))
				wc.Do("RPUSH", fmt.Sprintf("l{%d}", i), "x")
				wc.Do("EXEC")
			}
		}()
	}
	time.Sleep(20 * time.Millisecond)
	expect(t, c, "+Background saving started\r\n", "BGSAVE")
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(c.Do("INFO", "persistence"), "rdb_bgsave_in_progress:0"); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("BGSAVE did not finish")
		}
	}
	close(stop)
	for range 4 {
		<-done
	}
	_, addr2 := startServer(t, "--dir", dir)
	r := difftest.Dial(t, addr2)
	for i := range pairs {
		a, b := r.Do("GET", fmt.Sprintf("a{%d}", i)), r.Do("GET", fmt.Sprintf("b{%d}", i+1000))
		n, l := r.Do("GET", fmt.Sprintf("n{%d}", i)), r.Do("LLEN", fmt.Sprintf("l{%d}", i))
		if a != b || strings.TrimPrefix(l, ":") != strconv.Itoa(atoiReply(n)+1)+"\r\n" {
			t.Errorf("pair %d torn in the snapshot: a=%q b=%q n=%q llen=%q", i, a, b, n, l)
		}
	}
}

// atoiReply returns the integer in a bulk-string reply ("$1\r\n5\r\n").
func atoiReply(raw string) int {
	parts := strings.Split(raw, "\r\n")
	if len(parts) < 2 {
		return -1
	}
	n, _ := strconv.Atoi(parts[1])
	return n
}

// TestAOFStreamBase: a stream with groups, consumers and pending entries
// survives a rewrite. With the RDB preamble, redis-server started on the
// file dumps the same bytes; without it, the base holds the commands
// Redis's own rewrite writes (rewriteStreamObject).
func TestAOFStreamBase(t *testing.T) {
	sdir := t.TempDir()
	src := difftest.Dial(t, difftest.StartRedis(t, "--appendonly", "yes", "--aof-use-rdb-preamble", "no", "--dir", sdir))
	for i := 1; i <= 5; i++ {
		src.Do("XADD", "st", fmt.Sprintf("%d-1", i), "f", strconv.Itoa(i), "g", "x")
	}
	src.Do("XDEL", "st", "2-1")
	src.Do("XGROUP", "CREATE", "st", "g1", "0")
	src.Do("XGROUP", "CREATE", "st", "g2", "$")
	src.Do("XGROUP", "CREATECONSUMER", "st", "g1", "idle")
	src.Do("XREADGROUP", "GROUP", "g1", "alice", "COUNT", "2", "STREAMS", "st", ">")
	src.Do("XCLAIM", "st", "g1", "bob", "0", "1-1", "TIME", "1700000000000", "RETRYCOUNT", "3")
	src.Do("XADD", "empty", "MAXLEN", "0", "9-9", "f", "v")
	src.Do("BGREWRITEAOF")
	waitRewrite(t, src)
	for _, preamble := range []string{"yes", "no"} {
		dir := t.TempDir()
		_, addr := startServer(t, "--appendonly", "yes", "--dir", dir, "--aof-use-rdb-preamble", preamble)
		c := difftest.Dial(t, addr)
		want := map[string]string{}
		for _, k := range []string{"st", "empty"} {
			want[k] = src.Do("DUMP", k)
			expect(t, c, "+OK\r\n", "RESTORE", k, "0", bulkString(t, want[k]))
		}
		c.Do("BGREWRITEAOF")
		waitRewrite(t, c)
		if preamble == "no" {
			if got, want := baseCommands(t, dir), baseCommands(t, sdir); !slices.Equal(got, want) {
				t.Errorf("command base\nredis: %q\nhotkv: %q", want, got)
			}
			continue
		}
		rdir := t.TempDir()
		copyDir(t, filepath.Join(dir, "appendonlydir"), filepath.Join(rdir, "appendonlydir"))
		r := difftest.Dial(t, difftest.StartRedis(t, "--appendonly", "yes", "--dir", rdir))
		for k, w := range want {
			if got := r.Do("DUMP", k); got != w {
				t.Errorf("%s after redis-server loaded HotKV's rewrite:\n got %q\nwant %q", k, got, w)
			}
		}
	}
}

// baseCommands returns the commands of the command base of the AOF in dir,
// sorted, SELECTs left out.
func baseCommands(t *testing.T, dir string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "appendonlydir", "*.base.aof"))
	if len(files) != 1 {
		t.Fatalf("base files in %s: %v", dir, files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, cmd := range parseCommands(t, data) {
		if cmd[0] != "SELECT" {
			out = append(out, strings.Join(cmd, " "))
		}
	}
	slices.Sort(out)
	return out
}

// TestDebugLoadAOF: DEBUG LOADAOF flushes the pending writes, empties the
// dataset and loads the files again, as redis-server does: the same data,
// nothing appended to the file, no changes since the last save; a
// restart then loads the same data again.
func TestDebugLoadAOF(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("SKIPPING: redis-server is missing")
	}
	for _, rewrite := range []bool{false, true} {
		t.Run(fmt.Sprintf("rewrite=%v", rewrite), func(t *testing.T) {
			dir, rdir := t.TempDir(), t.TempDir()
			s, addr := startServer(t, "--appendonly", "yes", "--dir", dir, "--enable-debug-command", "yes")
			raddr := difftest.StartRedis(t, "--appendonly", "yes", "--dir", rdir, "--enable-debug-command", "yes")
			c, rc := difftest.Dial(t, addr), difftest.Dial(t, raddr)
			for _, conn := range []*difftest.Conn{c, rc} {
				for i, cmd := range aofData {
					conn.Do(cmd...)
					if rewrite && i == len(aofData)/2 {
						conn.Do("BGREWRITEAOF")
						waitRewrite(t, conn)
					}
				}
				for _, line := range aofScript {
					conn.Do(difftest.Split(line)...)
				}
			}
			want, rwant := dataset(t, c), dataset(t, rc)
			// With everysec, a write is postponed while a background
			// fsync runs (as in Redis): its replies go out before it.
			waitAOFWritten(t, c)
			size := incrSize(t, dir)
			for i := 0; i < 2; i++ {
				for _, conn := range []*difftest.Conn{c, rc} {
					expect(t, conn, "+OK\r\n", "DEBUG", "LOADAOF")
					if info := conn.Do("INFO", "persistence"); !strings.Contains(info, "rdb_changes_since_last_save:0\r\n") {
						t.Errorf("changes since the last save after DEBUG LOADAOF:\n%s", info)
					}
				}
				if got := dataset(t, c); got != want {
					t.Fatalf("after DEBUG LOADAOF:\n got %s\nwant %s", got, want)
				}
				if got := dataset(t, rc); got != rwant {
					t.Fatalf("redis-server after DEBUG LOADAOF:\n got %s\nwant %s", got, rwant)
				}
				if got := incrSize(t, dir); got != size {
					t.Fatalf("DEBUG LOADAOF wrote to the file: %d bytes, was %d", got, size)
				}
			}
			c.Do("SET", "after", "load")
			restartMatches(t, s, dir, dataset(t, c))
		})
	}
}

// TestDebugLoadAOFConcurrentWriters: writes from other clients during
// DEBUG LOADAOF are neither lost nor applied twice, and nothing deadlocks.
// While the file loads they are answered LOADING, as Redis answers them,
// and sent again.
func TestDebugLoadAOFConcurrentWriters(t *testing.T) {
	_, addr := startServer(t, "--appendonly", "yes", "--dir", t.TempDir(), "--enable-debug-command", "yes")
	const writers, incrs = 4, 300
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := difftest.Dial(t, addr)
			do := func(args ...string) {
				for strings.HasPrefix(c.Do(args...), "-LOADING") {
				}
			}
			for i := 0; i < incrs; i++ {
				do("INCR", fmt.Sprintf("{c}%d", w))
				do("RPUSH", "l", "x")
			}
		}()
	}
	c := difftest.Dial(t, addr)
	for i := 0; i < 10; i++ {
		expect(t, c, "+OK\r\n", "DEBUG", "LOADAOF")
	}
	wg.Wait()
	// A write run in the same batch, not yet written to the file when
	// DEBUG LOADAOF runs, must be flushed before the load.
	c.Send(difftest.Encode("SET", "p", "1"))
	c.Send(difftest.Encode("DEBUG", "LOADAOF"))
	c.Send(difftest.Encode("GET", "p"))
	if got := c.Read() + c.Read() + c.Read(); got != "+OK\r\n+OK\r\n$1\r\n1\r\n" {
		t.Errorf("SET, DEBUG LOADAOF, GET in one pipeline: %q", got)
	}
	for w := 0; w < writers; w++ {
		expect(t, c, fmt.Sprintf("$3\r\n%d\r\n", incrs), "GET", fmt.Sprintf("{c}%d", w))
	}
	expect(t, c, fmt.Sprintf(":%d\r\n", writers*incrs), "LLEN", "l")
}

// HotKV refuses DEBUG LOADAOF without an append-only file and keeps its
// data (a deliberate difference: redis-server 7.0 exits).
func TestDebugLoadAOFWithoutFile(t *testing.T) {
	_, addr := startServer(t, "--dir", t.TempDir(), "--enable-debug-command", "yes")
	c := difftest.Dial(t, addr)
	c.Do("SET", "k", "v")
	expect(t, c, "-"+errDebugLoadAOFNone+"\r\n", "DEBUG", "LOADAOF")
	expect(t, c, "$1\r\nv\r\n", "GET", "k")
}

// incrSize is the total size of dir's incremental AOF files.
// waitAOFWritten waits until the server's AOF buffer is written and no
// background fsync is pending.
func waitAOFWritten(t *testing.T, c *difftest.Conn) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		info := c.Do("INFO", "persistence")
		if strings.Contains(info, "aof_buffer_length:0\r\n") && strings.Contains(info, "aof_pending_bio_fsync:0\r\n") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the AOF buffer was not written:\n%s", info)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func incrSize(t *testing.T, dir string) int64 {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "appendonlydir", "*.incr.aof"))
	var n int64
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		n += fi.Size()
	}
	return n
}

// The file's commands are replayed without the slow log and MONITOR
// seeing them, at start-up and by DEBUG LOADAOF, as Redis runs them
// without call(). (With every command logged, the replay once crashed on
// its client's missing connection.)
func TestAOFReplayUnseen(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--appendonly", "yes", "--dir", dir, "--slowlog-log-slower-than", "0", "--enable-debug-command", "yes"}
	s, addr := startServer(t, args...)
	c := difftest.Dial(t, addr)
	for _, cmd := range aofData {
		c.Do(cmd...)
	}
	shutdown(t, s)
	_, addr = startServer(t, args...)
	c = difftest.Dial(t, addr)
	expect(t, c, ":0\r\n", "SLOWLOG", "LEN")
	mon := difftest.Dial(t, addr)
	expect(t, mon, "+OK\r\n", "MONITOR")
	expect(t, c, "+OK\r\n", "DEBUG", "LOADAOF")
	// The slow log has the test's own commands (MONITOR's entry may come
	// late: its reply goes out as the mode starts), none of the file's.
	log := c.Do("SLOWLOG", "GET", "100")
	if !strings.Contains(log, "LOADAOF") {
		t.Errorf("DEBUG LOADAOF is not in the slow log: %q", log)
	}
	for _, cmd := range aofData {
		if strings.Contains(log, "$"+strconv.Itoa(len(cmd[0]))+"\r\n"+cmd[0]+"\r\n") {
			t.Errorf("the replayed %s is in the slow log: %q", cmd[0], log)
		}
	}
	// MONITOR shows neither the admin commands nor the replay.
	expect(t, c, "+OK\r\n", "SET", "x", "1")
	if line := mon.Read(); !strings.HasSuffix(line, `"SET" "x" "1"`+"\r\n") {
		t.Errorf("MONITOR saw %q first", line)
	}
}

// TestAOFRandomReplay runs random commands of every kind (the templates of
// TestRandomDifferential) on HotKV with appendonly yes; its file, loaded
// by redis-server and by HotKV again, gives the same data. Whatever a
// command propagates, and in whatever form, replays to what it did.
//
// From the 1500th command on, appendfsync is always, and a copy of the
// file is still one redis-server loads as it is; from the 2250th on,
// appendfsync-prealloc is yes too: a copy then ends with the zeros HotKV
// preallocates, which redis-check-aof --fix removes (documented in
// docs/compatibility.md), and a clean shutdown leaves a file
// redis-check-aof accepts as it is.
func TestAOFRandomReplay(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("SKIPPING: redis-server is missing")
	}
	dir := t.TempDir()
	s, addr := startServer(t, "--appendonly", "yes", "--dir", dir)
	c := difftest.Dial(t, addr)
	r := rand.New(rand.NewPCG(21, 0xa0f))
	for i := 1; i <= 3000; i++ {
		switch i {
		case 1500:
			expect(t, c, "+OK\r\n", "CONFIG", "SET", "appendfsync", "always")
		case 2250:
			expect(t, c, "+OK\r\n", "CONFIG", "SET", "appendfsync-prealloc", "yes")
		}
		args := randomCommand(r)
		if shortExpiry(args) {
			continue // it could expire between the two readings
		}
		c.Do(args...)
		if i%500 == 0 {
			want := dataset(t, c)
			rdir := t.TempDir()
			copyDir(t, filepath.Join(dir, "appendonlydir"), filepath.Join(rdir, "appendonlydir"))
			incr := aofIncrPath(t, rdir)
			data, _ := os.ReadFile(incr)
			if zeros := len(data) > 0 && data[len(data)-1] == 0; zeros != (i > 2250) {
				t.Fatalf("after %d commands, %s ends with zeros: %v", i, incr, zeros)
			}
			if i > 2250 {
				fix := exec.Command("redis-check-aof", "--fix", filepath.Join(rdir, "appendonlydir", "appendonly.aof.manifest"))
				fix.Stdin = strings.NewReader("y\n")
				if out, err := fix.CombinedOutput(); err != nil {
					t.Fatalf("redis-check-aof --fix: %v\n%s", err, out)
				}
			}
			raddr := difftest.StartRedis(t, "--appendonly", "yes", "--dir", rdir)
			if got := dataset(t, difftest.Dial(t, raddr)); got != want {
				t.Fatalf("after %d commands, redis-server on HotKV's file:\n got %s\nwant %s", i, got, want)
			}
		}
	}
	restartMatches(t, s, dir, dataset(t, c))
	if out, err := exec.Command("redis-check-aof", filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest")).CombinedOutput(); err != nil {
		t.Fatalf("redis-check-aof after a shutdown: %v\n%s", err, out)
	}
}

// aofIncrPath returns the path of the last incremental file of
// dir/appendonlydir.
func aofIncrPath(t *testing.T, dir string) string {
	t.Helper()
	m, err := os.ReadFile(filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest"))
	if err != nil {
		t.Fatal(err)
	}
	var last string
	for _, line := range strings.Split(string(m), "\n") {
		if f := strings.Fields(line); len(f) == 6 && f[5] == "i" {
			last = f[1]
		}
	}
	return filepath.Join(dir, "appendonlydir", last)
}

// shortExpiry reports whether a command sets an expiry under a minute.
func shortExpiry(args []string) bool {
	for i, a := range args {
		switch strings.ToUpper(a) {
		case "EXPIRE", "EX":
			if i+1 < len(args) {
				if n, err := strconv.Atoi(args[i+1]); err == nil && n < 60 {
					return true
				}
			}
		}
	}
	return false
}

// TestRDBRandomLoad: random data of every kind saved by HotKV (SAVE)
// loads into redis-server as the same data, at several points of a random
// command sequence.
func TestRDBRandomLoad(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("SKIPPING: redis-server is missing")
	}
	dir := t.TempDir()
	_, addr := startServer(t, "--dir", dir)
	c := difftest.Dial(t, addr)
	r := rand.New(rand.NewPCG(31, 0xdb))
	for i := 1; i <= 2000; i++ {
		args := randomCommand(r)
		if shortExpiry(args) {
			continue
		}
		c.Do(args...)
		if i%400 == 0 {
			expect(t, c, "+OK\r\n", "SAVE")
			want := dataset(t, c)
			rdir := t.TempDir()
			data, err := os.ReadFile(filepath.Join(dir, "dump.rdb"))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(rdir, "dump.rdb"), data, 0o644); err != nil {
				t.Fatal(err)
			}
			raddr := difftest.StartRedis(t, "--dir", rdir)
			if got := dataset(t, difftest.Dial(t, raddr)); got != want {
				t.Fatalf("after %d commands, redis-server on HotKV's dump.rdb:\n got %s\nwant %s", i, got, want)
			}
		}
	}
}

// TestAOFTimestamps: aof-timestamp-enabled set at run time annotates the
// incremental file from its next write and a command base's first line,
// as Redis's, and aof-use-rdb-preamble set at run time makes the next
// rewrite's base commands; the annotated files load (and redis-server
// loads them too).
func TestAOFTimestamps(t *testing.T) {
	dir := t.TempDir()
	// always: a write is in the file before its reply (everysec may
	// postpone it while a background fsync runs, as Redis does).
	s, addr := startServer(t, "--appendonly", "yes", "--dir", dir, "--appendfsync", "always")
	c := difftest.Dial(t, addr)
	waitRewrite(t, c) // the initial base's
	expect(t, c, "+OK\r\n", "SET", "plain", "1")
	expect(t, c, "+OK\r\n", "CONFIG", "SET", "aof-timestamp-enabled", "yes")
	expect(t, c, "+OK\r\n", "CONFIG", "SET", "aof-use-rdb-preamble", "no") // for the next rewrite
	expect(t, c, "+OK\r\n", "SET", "foo", "bar")
	incr, err := os.ReadFile(aofIncrPath(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(string(incr), "\r\n"); !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, "#TS:") }) {
		t.Errorf("no timestamp in the incremental file after CONFIG SET:\n%q", incr)
	}
	c.Do("BGREWRITEAOF")
	waitRewrite(t, c)
	files, _ := filepath.Glob(filepath.Join(dir, "appendonlydir", "*.base.aof"))
	if len(files) != 1 {
		t.Fatalf("base files: %v", files)
	}
	base, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(base), "#TS:") {
		t.Errorf("the command base does not start with a timestamp:\n%q", base)
	}
	expect(t, c, "+OK\r\n", "SET", "after", "rewrite")
	want := dataset(t, c)
	shutdown(t, s) // the file as it is left (a running one has room allocated at its end)
	rdir := t.TempDir()
	copyDir(t, filepath.Join(dir, "appendonlydir"), filepath.Join(rdir, "appendonlydir"))
	_, addr = startServer(t, "--appendonly", "yes", "--dir", dir)
	if got := dataset(t, difftest.Dial(t, addr)); got != want {
		t.Errorf("after restart:\n got %s\nwant %s", got, want)
	}
	if got := dataset(t, difftest.Dial(t, difftest.StartRedis(t, "--appendonly", "yes", "--dir", rdir))); got != want {
		t.Errorf("redis-server loaded:\n got %s\nwant %s", got, want)
	}
}

// TestDebugLoadAOFLoading: while DEBUG LOADAOF replays a script that runs
// past lua-time-limit, other clients get LOADING (not BUSY), and the
// server logs the slow script, as Redis (integration/aof "EVAL timeout
// with slow verbatim Lua script from AOF").
func TestDebugLoadAOFLoading(t *testing.T) {
	dir := t.TempDir()
	_, addr := startServer(t, "--appendonly", "yes", "--dir", dir, "--aof-use-rdb-preamble", "no",
		"--lua-time-limit", "1", "--enable-debug-command", "yes")
	c := difftest.Dial(t, addr)
	expect(t, c, "+OK\r\n", "SET", "before", "1")
	script := "redis.call('set',KEYS[1],'y') local s=redis.call('time') " +
		"repeat local n=redis.call('time') until (n[1]-s[1])*1000000+(n[2]-s[2]) > 300000 return 'ok'"
	f, err := os.OpenFile(aofIncrPath(t, dir), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(difftest.Encode("EVAL", script, "1", "x"))
	f.Close()
	loader := difftest.Dial(t, addr)
	loader.Send(difftest.Encode("DEBUG", "LOADAOF"))
	var got string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if got = c.Do("PING"); got != "+PONG\r\n" {
			break
		}
	}
	if got != "-"+errLoading+"\r\n" {
		t.Errorf("PING during DEBUG LOADAOF of a slow script: %q", got)
	}
	if got, err := loader.ReadErr(30 * time.Second); err != nil || got != "+OK\r\n" {
		t.Fatalf("DEBUG LOADAOF: %q, %v", got, err)
	}
	expect(t, c, "$1\r\ny\r\n", "GET", "x")
	expect(t, c, "$1\r\n1\r\n", "GET", "before")
	expect(t, c, "+PONG\r\n", "PING")
}

// TestAOFShutdownTrims: under appendfsync always the current file has
// zeros allocated after its data while the server runs; a shutdown
// returns only once they are trimmed (Serve and Shutdown both close the
// file: the one that comes second used to return at once, and a process
// that exited then left the zeros, which redis-server refuses).
func TestAOFShutdownTrims(t *testing.T) {
	for i := 0; i < 5; i++ {
		dir := t.TempDir()
		s, addr := startServer(t, "--appendonly", "yes", "--dir", dir, "--appendfsync", "always")
		c := difftest.Dial(t, addr)
		waitRewrite(t, c)
		expect(t, c, "+OK\r\n", "SET", "a", "1")
		c.Do("BGREWRITEAOF")
		waitRewrite(t, c)
		expect(t, c, "+OK\r\n", "SET", "b", "1")
		shutdown(t, s)
		data, err := os.ReadFile(aofIncrPath(t, dir))
		if err != nil {
			t.Fatal(err)
		}
		if cmds := parseCommands(t, bytes.TrimRight(data, "\x00")); len(data) != len(bytes.TrimRight(data, "\x00")) || len(cmds) == 0 {
			t.Fatalf("run %d: the incremental file after shutdown: %d bytes, %d of them trailing zeros", i, len(data), len(data)-len(bytes.TrimRight(data, "\x00")))
		}
	}
}
