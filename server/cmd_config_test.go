package server

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/config"
	"github.com/hotkv/hotkv/internal/difftest"
)

// cfgPairs decodes a CONFIG GET reply into sorted "name=value" strings:
// Redis lists glob matches in its hash table's order.
func cfgPairs(t *testing.T, raw string) []string {
	t.Helper()
	a, ok := srvParse(t, raw).([]any)
	if !ok || len(a)%2 != 0 {
		t.Fatalf("CONFIG GET reply: %q", raw)
	}
	var out []string
	for i := 0; i < len(a); i += 2 {
		out = append(out, a[i].(string)+"="+a[i+1].(string))
	}
	slices.Sort(out)
	return out
}

func TestConfigErrors(t *testing.T) {
	p := newPair(t)
	p.Run(`
		CONFIG
		CONFIG foo
		CONFIG HELP
		CONFIG help x
		CONFIG GET
		CONFIG SET
		CONFIG SET a
		CONFIG SET a b
		CONFIG SET a b c
		CONFIG SET maxmemory 1mb hz
		CONFIG SET maxmemory abc
		CONFIG SET maxmemory -1
		CONFIG SET maxmemory 1mb maxmemory 2mb
		CONFIG SET hz abc
		CONFIG SET timeout -1
		CONFIG SET port 99999
		CONFIG SET daemonize yes
		CONFIG SET databases 3
		CONFIG SET dir /tmp
		CONFIG SET hash-max-listpack-entries 1 foo bar
		CONFIG SET hash-max-listpack-entries x
		CONFIG SET maxmemory-policy foo
		CONFIG SET appendfsync sometimes
		CONFIG SET lazyfree-lazy-eviction maybe
		CONFIG RESETSTAT x
		CONFIG REWRITE x
		CONFIG REWRITE
	`)
}

func TestConfigGet(t *testing.T) {
	p := newPair(t)
	p.Run(`
		CONFIG GET maxmemory
		CONFIG GET MAXMEMORY
		CONFIG GET timeout
		CONFIG GET hash-max-listpack-entries
		CONFIG GET hash-max-ziplist-entries
		CONFIG GET maxmemory-policy
		CONFIG GET slowlog-max-len
		CONFIG GET nosuchparam
	`)
	srvHello(p, "3")
	p.Do("CONFIG GET maxmemory")
	p.Do("CONFIG GET nosuch")
	srvHello(p, "2")
	for _, line := range []string{
		"CONFIG GET *max-*-entries*",
		"CONFIG GET *listpack*",
		"CONFIG GET maxmemory*",
		"CONFIG GET slowlog*",
		"CONFIG GET lazyfree-*",
		"CONFIG GET *max-*-entries* hash-*",
		"CONFIG GET active-expire-effort hz",
		"CONFIG GET zset-max-*-value",
		"CONFIG GET no*such*",
		"CONFIG GET maxmemory HZ MaxMemory",
		"CONFIG GET maxmemory nosuch timeout",
	} {
		p.DoBoth(line, func(redis, hotkv string) {
			if a, b := cfgPairs(t, redis), cfgPairs(t, hotkv); !slices.Equal(a, b) {
				t.Errorf("%s\n redis: %v\n hotkv: %v", line, a, b)
			}
		})
	}
}

// cfgRestore puts parameters of the shared servers back when the test ends.
func cfgRestore(t *testing.T, p *difftest.Pair, names ...string) {
	t.Helper()
	for _, name := range names {
		old := cfgPairs(t, p.Do("CONFIG GET "+name))
		t.Cleanup(func() {
			for _, kv := range old {
				k, v, _ := strings.Cut(kv, "=")
				p.DoArgs("CONFIG", "SET", k, v)
			}
		})
	}
}

func TestConfigSetRoundTrip(t *testing.T) {
	p := newPair(t)
	cfgRestore(t, p, "hash-max-listpack-entries", "hash-max-listpack-value", "set-max-intset-entries",
		"zset-max-listpack-entries", "list-max-listpack-size", "timeout", "maxmemory-policy", "hz")
	p.Run(`
		CONFIG SET hash-max-listpack-entries 64
		CONFIG GET hash-max-listpack-entries
		CONFIG GET hash-max-ziplist-entries
		CONFIG SET hash-max-ziplist-entries 100
		CONFIG GET hash-max-listpack-entries
		CONFIG SET hash-max-listpack-value 32 set-max-intset-entries 1024 zset-max-listpack-entries 16
		CONFIG GET hash-max-listpack-value
		CONFIG GET set-max-intset-entries
		CONFIG GET zset-max-ziplist-entries
		CONFIG SET list-max-listpack-size -3
		CONFIG GET list-max-ziplist-size
		CONFIG SET list-max-ziplist-size 100
		CONFIG GET list-max-listpack-size
		CONFIG SET TIMEOUT 300
		CONFIG GET timeout
		CONFIG SET maxmemory-policy ALLKEYS-LRU
		CONFIG GET maxmemory-policy
		CONFIG SET hz 1000
		CONFIG GET hz
		CONFIG SET hash-max-listpack-entries 1 hash-max-listpack-entries 2
		CONFIG SET hz 20 timeout x
		CONFIG GET hz
	`)
	p.DoBoth("CONFIG GET *max-*-entries*", func(redis, hotkv string) {
		if a, b := cfgPairs(t, redis), cfgPairs(t, hotkv); !slices.Equal(a, b) {
			t.Errorf("after SET\n redis: %v\n hotkv: %v", a, b)
		}
	})
}

func TestConfigMaxmemoryInfo(t *testing.T) {
	p := newPair(t)
	cfgRestore(t, p, "maxmemory")
	p.Run(`
		CONFIG SET maxmemory 100mb
		CONFIG GET maxmemory
	`)
	p.DoBoth("INFO memory", func(redis, hotkv string) {
		_, rf := srvInfo(t, redis)
		_, hf := srvInfo(t, hotkv)
		for _, k := range []string{"maxmemory", "maxmemory_human", "maxmemory_policy"} {
			if rf[k] != hf[k] {
				t.Errorf("INFO %s: redis %q, hotkv %q", k, rf[k], hf[k])
			}
		}
	})
	p.Do("CONFIG SET maxmemory 0")
}

// TestConfigBusyPoll: busy-poll-usec (HotKV's; no Redis has it) reaches
// the event loops, at start-up and by CONFIG SET. (The loops are read
// after Shutdown, which orders the test after the server's goroutines.)
func TestConfigBusyPoll(t *testing.T) {
	s, addr := startServer(t, "--busy-poll-usec", "20")
	expect(t, difftest.Dial(t, addr), "*2\r\n$14\r\nbusy-poll-usec\r\n$2\r\n20\r\n", "CONFIG", "GET", "busy-poll-usec")
	shutdown(t, s)
	if got := s.loops.MaxSpin(); got != 20*time.Microsecond {
		t.Fatalf("busy-poll-usec 20 at start-up: loops poll for %v", got)
	}
	s, addr = startServer(t)
	c := difftest.Dial(t, addr)
	expect(t, c, "*2\r\n$14\r\nbusy-poll-usec\r\n$2\r\n50\r\n", "CONFIG", "GET", "busy-poll-usec")
	for _, v := range []string{"0", "1000000", "7"} {
		expect(t, c, "+OK\r\n", "CONFIG", "SET", "busy-poll-usec", v)
		expect(t, c, "+PONG\r\n", "PING")
	}
	expect(t, c, "-ERR CONFIG SET failed (possibly related to argument 'busy-poll-usec') - argument must be between 0 and 1000000 inclusive\r\n",
		"CONFIG", "SET", "busy-poll-usec", "-1")
	shutdown(t, s)
	if got := s.loops.MaxSpin(); got != 7*time.Microsecond {
		t.Fatalf("CONFIG SET busy-poll-usec 7: loops poll for %v", got)
	}
}

// With maxmemory reached and the noeviction policy, commands flagged
// denyoom fail; reads, DEL and FLUSHALL still work, and once memory is
// freed writes work again.
//
// Eviction policies other than noeviction (allkeys-random, volatile-ttl,
// the LRU/LFU ones) are accepted by CONFIG SET but not implemented yet:
// the server behaves as with noeviction.
func TestConfigMaxmemoryOOM(t *testing.T) {
	_, addr := startServer(t)
	c := difftest.Dial(t, addr)
	if got := c.Do("CONFIG", "SET", "maxmemory", "1mb"); got != "+OK\r\n" {
		t.Fatalf("CONFIG SET maxmemory: %q", got)
	}
	const oom = "-OOM command not allowed when used memory > 'maxmemory'.\r\n"
	val := strings.Repeat("v", 10000)
	n := 0
	for ; n < 1000; n++ {
		got := c.Do("SET", "k"+strconv.Itoa(n), val)
		if got == oom {
			break
		}
		if got != "+OK\r\n" {
			t.Fatalf("SET %d: %q", n, got)
		}
	}
	if n == 0 || n == 1000 {
		t.Fatalf("OOM after %d SETs of 10KB with maxmemory 1mb", n)
	}
	for _, cmd := range [][]string{{"SET", "x", "y"}, {"INCR", "counter"}, {"MSET", "a", "1", "b", "2"}} {
		if got := c.Do(cmd...); got != oom {
			t.Errorf("%v at OOM: %q", cmd, got)
		}
	}
	if got := c.Do("GET", "k0"); got != "$10000\r\n"+val+"\r\n" {
		t.Errorf("GET at OOM: %.40q", got)
	}
	_, f := srvInfo(t, c.Do("INFO", "memory", "commandstats"))
	if f["maxmemory"] != "1048576" || f["maxmemory_human"] != "1.00M" {
		t.Errorf("INFO maxmemory %q %q", f["maxmemory"], f["maxmemory_human"])
	}
	if used, _ := strconv.ParseInt(f["used_memory"], 10, 64); used <= 1<<20 {
		t.Errorf("INFO used_memory %d at OOM", used)
	}
	if !strings.Contains(f["cmdstat_set"], "rejected_calls=2,") {
		t.Errorf("cmdstat_set %q: want 2 rejected calls", f["cmdstat_set"])
	}
	if got := c.Do("DEL", "k0", "k1"); got != ":2\r\n" {
		t.Errorf("DEL at OOM: %q", got)
	}
	if got := c.Do("FLUSHALL"); got != "+OK\r\n" {
		t.Errorf("FLUSHALL at OOM: %q", got)
	}
	time.Sleep(5 * time.Millisecond) // used memory is recomputed once a millisecond
	if got := c.Do("SET", "x", "y"); got != "+OK\r\n" {
		t.Errorf("SET after FLUSHALL: %q", got)
	}
	if got := c.Do("CONFIG", "SET", "maxmemory", "0"); got != "+OK\r\n" {
		t.Errorf("CONFIG SET maxmemory 0: %q", got)
	}
	for i := 0; i < 200; i++ {
		if got := c.Do("SET", "k"+strconv.Itoa(i), val); got != "+OK\r\n" {
			t.Fatalf("SET with maxmemory 0: %q", got)
		}
	}
}

var cfgUsecRe = regexp.MustCompile(`usec=\d+,usec_per_call=[\d.]+`)

func TestConfigResetStat(t *testing.T) {
	r := difftest.StartRedis(t)
	_, h := startServer(t)
	p := difftest.NewPair(t, r, h)
	p.Run(`
		SET a 1
		GET a
		GET nokey
		GET
		INCR a
		SET s x
		INCR s
		CONFIG RESETSTAT
	`)
	p.DoBoth("INFO commandstats", func(redis, hotkv string) {
		// The bulk length varies with the number of digits of usec.
		a := cfgUsecRe.ReplaceAllString(srvParse(t, redis).(string), "usec=N")
		b := cfgUsecRe.ReplaceAllString(srvParse(t, hotkv).(string), "usec=N")
		if a != b {
			t.Errorf("INFO commandstats after RESETSTAT\n redis: %q\n hotkv: %q", a, b)
		}
	})
	p.DoBoth("INFO stats keylocks", func(redis, hotkv string) {
		_, rf := srvInfo(t, redis)
		_, hf := srvInfo(t, hotkv)
		for _, k := range []string{"keyspace_hits", "keyspace_misses", "total_connections_received",
			"total_error_replies", "expired_keys", "evicted_keys", "rejected_connections"} {
			if rf[k] != hf[k] {
				t.Errorf("INFO %s after RESETSTAT: redis %q, hotkv %q", k, rf[k], hf[k])
			}
		}
		for _, k := range []string{"keylock_acquisitions", "keylock_waits", "keylock_wait_usec", "global_lock_exclusive_acquisitions"} {
			if hf[k] != "0" {
				t.Errorf("INFO %s after RESETSTAT: %q", k, hf[k])
			}
		}
	})
}

func TestConfigRewrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "hotkv.conf")
	port := difftest.FreePort(t)
	conf := "# test configuration\nport " + strconv.Itoa(port) + "\nbind 127.0.0.1\nmaxmemory 10mb\n"
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := New(cfg)
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	go s.Serve()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	c := difftest.Dial(t, s.Addr().String())
	for _, cmd := range [][]string{
		{"CONFIG", "SET", "maxmemory", "20mb", "hash-max-listpack-entries", "64"},
		{"CONFIG", "REWRITE"},
	} {
		if got := c.Do(cmd...); got != "+OK\r\n" {
			t.Fatalf("%v: %q", cmd, got)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, want := range []string{"# test configuration\n", "maxmemory 20mb\n", "hash-max-listpack-entries 64\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("rewritten file lacks %q:\n%s", want, text)
		}
	}
	_, f := srvInfo(t, c.Do("INFO", "server"))
	if f["config_file"] != path {
		t.Errorf("config_file %q, want %q", f["config_file"], path)
	}
}

// TestConfigSetRebinds: CONFIG SET port and bind move the listeners at
// once, and a port or address that cannot be listened on is refused with
// Redis's error, every parameter of the CONFIG SET rolled back and the
// server still listening where it was.
func TestConfigSetRebinds(t *testing.T) {
	_, addr := startServer(t)
	c := difftest.Dial(t, addr)
	p2 := strconv.Itoa(difftest.FreePort(t))
	if got := c.Do("CONFIG", "SET", "port", p2); got != "+OK\r\n" {
		t.Fatalf("CONFIG SET port: %q", got)
	}
	if _, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		t.Error("the old port still accepts connections")
	}
	c2 := difftest.Dial(t, "127.0.0.1:"+p2)
	if got := c2.Do("PING"); got != "+PONG\r\n" {
		t.Fatalf("PING on the new port: %q", got)
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	p3 := strconv.Itoa(busy.Addr().(*net.TCPAddr).Port)
	want := "-ERR CONFIG SET failed (possibly related to argument 'port') - Unable to listen on this port\r\n"
	if got := c2.Do("CONFIG", "SET", "maxmemory", "10000001", "port", p3, "client-query-buffer-limit", "10m"); got != want {
		t.Errorf("CONFIG SET of a port in use: %q", got)
	}
	for _, kv := range [][2]string{{"maxmemory", "0"}, {"port", p2}, {"client-query-buffer-limit", "1073741824"}} {
		if got := c2.Do("CONFIG", "GET", kv[0]); !strings.HasSuffix(got, "$"+strconv.Itoa(len(kv[1]))+"\r\n"+kv[1]+"\r\n") {
			t.Errorf("%s not rolled back: %q", kv[0], got)
		}
	}
	want = "-ERR CONFIG SET failed (possibly related to argument 'bind') - Failed to bind to specified addresses.\r\n"
	if got := c2.Do("CONFIG", "SET", "bind", "192.0.2.1"); got != want {
		t.Errorf("CONFIG SET bind to an address not ours: %q", got)
	}
	if got := difftest.Dial(t, "127.0.0.1:"+p2).Do("PING"); got != "+PONG\r\n" {
		t.Errorf("PING after the refused changes: %q", got)
	}
}
