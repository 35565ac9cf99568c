package server

import (
	"fmt"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// The execution core's promise: a command on one hash tag never holds up
// clients on another for longer than about a millisecond, whatever runs
// on the first (a long transaction, a slow command, a key-locked script)
// and whoever waits for it (a parked client), with one event loop or
// several.

// probeRoundTrips runs n clients doing GET {b}probe round trips until
// stop is closed and returns every round trip's duration.
func probeRoundTrips(t *testing.T, addr string, n int, stop <-chan struct{}) func() []time.Duration {
	t.Helper()
	var mu sync.Mutex
	var all []time.Duration
	var wg sync.WaitGroup
	conns := make([]*difftest.Conn, n)
	for i := range conns {
		conns[i] = difftest.Dial(t, addr)
	}
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for {
				select {
				case <-stop:
					mu.Lock()
					all = append(all, mine...)
					mu.Unlock()
					return
				default:
				}
				start := time.Now()
				if got := c.Do("GET", "{b}probe"); got != "$1\r\nv\r\n" {
					t.Errorf("probe: %q", got)
				}
				mine = append(mine, time.Since(start))
			}
		}()
	}
	return func() []time.Duration {
		wg.Wait()
		slices.Sort(all)
		return all
	}
}

// sampleLoops records the loops' handoff state (eventloop.Group.Debug)
// every 100 ms until stop is closed, and returns the records once it is:
// what a test that found a loop stalled logs.
func sampleLoops(s *Server, stop <-chan struct{}) func() []string {
	var states []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		start := time.Now()
		for {
			states = append(states, fmt.Sprintf("%4d ms: %s", time.Since(start).Milliseconds(), s.loops.Debug()))
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return func() []string { <-done; return states }
}

// explainStall logs the loops' handoff state and every goroutine's stack,
// for a test that found a loop that does not answer.
func explainStall(t *testing.T, s *Server) {
	t.Helper()
	var b strings.Builder
	pprof.Lookup("goroutine").WriteTo(&b, 1)
	t.Logf("%s\n%s", s.loops.Debug(), b.String())
}

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	return d[min(len(d)-1, int(float64(len(d))*p))]
}

// fillBigList makes key a list of n numbers, in batches.
func fillBigList(t *testing.T, c *difftest.Conn, key string, n int) {
	t.Helper()
	for i := 0; i < n; {
		args := []string{"RPUSH", key}
		for j := 0; j < 1000 && i < n; j++ {
			args = append(args, strconv.Itoa((i*7919)%n))
			i++
		}
		c.Do(args...)
	}
}

// TestHeadOfLine: while one client works on {a} for a quarter of a second
// or more, and another waits for {a}, probe clients on {b} — on every loop,
// the holder's and the waiter's included — keep their round trips short.
func TestHeadOfLine(t *testing.T) {
	for _, loops := range []string{"1", "4"} {
		srv, addr := startServer(t, "--io-threads", loops)
		setup := difftest.Dial(t, addr)
		setup.Do("SET", "{b}probe", "v")
		fillBigList(t, setup, "{a}big", 300000)
		holders := []struct {
			name string
			args []string
		}{
			{"slow command", []string{"SORT", "{a}big", "STORE", "{a}dst"}},
			{"script", []string{"EVAL", "#!lua flags=allow-key-locking\n" + slowLoop, "1", "{a}big", "300"}},
			{"exec", nil}, // MULTI, SORT, SORT, EXEC
		}
		for _, h := range holders {
			t.Run(loops+" loops/"+h.name, func(t *testing.T) {
				holder := difftest.Dial(t, addr)
				waiter := difftest.Dial(t, addr)
				stop := make(chan struct{})
				results := probeRoundTrips(t, addr, 6, stop)
				states := sampleLoops(srv, stop)
				time.Sleep(20 * time.Millisecond)
				start := time.Now()
				if h.args == nil {
					holder.Do("MULTI")
					holder.Do("SORT", "{a}big", "STORE", "{a}dst")
					holder.Do("SORT", "{a}big", "DESC", "STORE", "{a}dst")
					holder.Send(difftest.Encode("EXEC"))
				} else {
					holder.Send(difftest.Encode(h.args...))
				}
				time.Sleep(5 * time.Millisecond)
				waiter.Send(difftest.Encode("SET", "{a}x", "1")) // parks behind the holder
				holder.Read()
				held := time.Since(start)
				if got := waiter.Read(); got != "+OK\r\n" {
					t.Errorf("waiter: %q", got)
				}
				close(stop)
				d := results()
				p50, p99 := percentile(d, 0.5), percentile(d, 0.99)
				t.Logf("holder %v; %d probes: p50 %v, p99 %v, max %v", held, len(d), p50, p99, d[len(d)-1])
				if held < 100*time.Millisecond {
					t.Skipf("the holder took only %v: too fast a machine to tell", held)
				}
				// Generous bounds for a loaded 2-core machine under -race;
				// a stalled loop makes them the holder's duration.
				if p50 > 10*time.Millisecond || p99 > held/3 || d[len(d)-1] > held*2/3 {
					t.Errorf("probes on {b} waited for {a}: p50 %v, p99 %v, max %v, holder %v", p50, p99, d[len(d)-1], held)
					t.Logf("the loops during the hold:\n%s", strings.Join(states(), "\n"))
				}
			})
		}
	}
}

// TestGlobalBusyAnswersEveryone: while a script under the global lock is
// busy, every client gets an answer at once — BUSY, or what allow_busy
// commands answer — and none is queued behind it, the one that waits in
// WATCH or in a blocking command's serving included.
func TestGlobalBusyAnswersEveryone(t *testing.T) {
	for _, loops := range []string{"1", "4"} {
		t.Run(loops+" loops", func(t *testing.T) {
			_, addr := startServer(t, "--io-threads", loops, "--busy-reply-threshold", "10")
			script := difftest.Dial(t, addr)
			other := difftest.Dial(t, addr)
			blocked := difftest.Dial(t, addr)
			blocked.Send(difftest.Encode("BLMOVE", "{c}src", "{c}dst", "LEFT", "LEFT", "0"))
			for !strings.Contains(other.Do("INFO", "clients"), "blocked_clients:1") {
				time.Sleep(time.Millisecond)
			}
			script.Send(difftest.Encode("EVAL", "while true do end", "0"))
			waitBusy(t, other, "PING")
			start := time.Now()
			expect(t, other, "+OK\r\n", "WATCH", "x")
			expect(t, other, "-"+errBusyScript+"\r\n", "GET", "x")
			expect(t, other, "-"+errBusyScript+"\r\n", "LPUSH", "{c}src", "v")
			expect(t, other, "+OK\r\n", "MULTI")
			expect(t, other, "-"+errBusyScript+"\r\n", "INCR", "x")
			expect(t, other, "-"+errExecAbortBecause+errBusyScript+"\r\n", "EXEC")
			if !strings.HasPrefix(other.Do("FUNCTION", "STATS"), "-BUSY") {
				t.Error("FUNCTION STATS during a busy EVAL is not BUSY")
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("answers during the busy script took %v", d)
			}
			expect(t, other, "+OK\r\n", "SCRIPT", "KILL")
			if got := script.Read(); !strings.Contains(got, "Script killed by user") {
				t.Errorf("killed script: %q", got)
			}
			expect(t, other, "+PONG\r\n", "PING")
			expect(t, other, ":1\r\n", "LPUSH", "{c}src", "v")
			if got := blocked.Read(); got != "$1\r\nv\r\n" {
				t.Errorf("BLMOVE after the script: %q", got)
			}
		})
	}
}

// TestParkedBehindBusyKeyScript: clients parked for a key-locked script's
// tag get BUSY when it becomes busy; clients on other tags run on; after
// SCRIPT KILL the tag is free.
func TestParkedBehindBusyKeyScript(t *testing.T) {
	srv, addr := startServer(t, "--io-threads", "1", "--busy-reply-threshold", "200")
	script := difftest.Dial(t, addr)
	other := difftest.Dial(t, addr)
	script.Send(difftest.Encode("EVAL", "#!lua flags=allow-key-locking\nredis.call('GET', KEYS[1]) while true do end", "1", "{a}k"))
	time.Sleep(20 * time.Millisecond) // running, not busy yet
	var parked []*difftest.Conn
	for _, cmd := range [][]string{{"SET", "{a}k", "1"}, {"GET", "{a}k"}, {"MULTI"}} {
		c := difftest.Dial(t, addr)
		if cmd[0] == "MULTI" {
			c.Send(difftest.Encode("MULTI"))
			if got, err := c.ReadErr(5 * time.Second); err != nil || got != "+OK\r\n" {
				explainStall(t, srv)
				t.Fatalf("MULTI while a key-locked script runs: %q, %v", got, err)
			}
			c.Do("INCR", "{a}n")
			cmd = []string{"EXEC"}
		}
		c.Send(difftest.Encode(cmd...))
		parked = append(parked, c)
	}
	expect(t, other, "+OK\r\n", "SET", "{b}k", "1") // other tags run on
	want := []string{"-" + errBusyScript + "\r\n", "-" + errBusyScript + "\r\n", "-" + errExecAbortBecause + errBusyScript + "\r\n"}
	for i, c := range parked {
		got, err := c.ReadErr(5 * time.Second)
		if err != nil || got != want[i] {
			t.Errorf("parked client %d: %q, %v; want %q", i, got, err, want[i])
		}
	}
	expect(t, other, "-"+errBusyScript+"\r\n", "GET", "{a}k")
	expect(t, other, "+OK\r\n", "SCRIPT", "KILL")
	script.Read()
	expect(t, other, "$-1\r\n", "GET", "{a}k")
}

// TestParkedPipelineOrder: a client that parks keeps its pipeline in
// order: the commands after the parked one wait for it, and CLIENT REPLY
// SKIP applies to the parked command's reply when it comes.
func TestParkedPipelineOrder(t *testing.T) {
	_, addr := startServer(t, "--io-threads", "1")
	holder := difftest.Dial(t, addr)
	c := difftest.Dial(t, addr)
	holder.Send(difftest.Encode("EVAL", "#!lua flags=allow-key-locking\n"+slowLoop, "1", "{a}k", "200"))
	time.Sleep(20 * time.Millisecond)
	var pipe []byte
	pipe = append(pipe, difftest.Encode("CLIENT", "REPLY", "SKIP")...)
	pipe = append(pipe, difftest.Encode("INCR", "{a}n")...) // parks; its reply is skipped
	pipe = append(pipe, difftest.Encode("INCR", "{b}n")...)
	pipe = append(pipe, difftest.Encode("INCR", "{a}n")...)
	pipe = append(pipe, difftest.Encode("GET", "{b}n")...)
	c.Send(pipe)
	for i, want := range []string{":1\r\n", ":2\r\n", "$1\r\n1\r\n"} {
		if got := c.Read(); got != want {
			t.Errorf("reply %d: %q, want %q", i, got, want)
		}
	}
	if got := holder.Read(); got != "$4\r\ndone\r\n" {
		t.Errorf("holder: %q", got)
	}
}

// TestNoConvoyBehindHandoff: clients of one loop that pipeline writes to
// a tag while a handed-off script holds it park once each, not once per
// command. With every lock passed in turn, the loop's writers took turns
// one command at a time for as long as they had commands, each turn a
// park and a task: a convoy that one handed-off writer started and the
// load kept going (a search index's writers ran at half RediSearch's
// rate; pipelined EVALSHAs of a script without flags, which take the
// global lock, at a third of Redis's).
func TestNoConvoyBehindHandoff(t *testing.T) {
	const incr = "return redis.call('INCR', KEYS[1])"
	for _, tc := range []struct {
		name   string
		holder string   // the handed-off script
		cmd    []string // what each writer pipelines
	}{
		{"INCR behind a key-locked script", "#!lua flags=allow-key-locking\n" + slowLoop, []string{"INCR", "{a}n"}},
		{"key-locked scripts", "#!lua flags=allow-key-locking\n" + slowLoop, []string{"EVAL", "#!lua flags=allow-key-locking\n" + incr, "1", "{a}n"}},
		{"scripts without flags", slowLoop, []string{"EVAL", incr, "1", "{a}n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, addr := startServer(t, "--io-threads", "1")
			info := difftest.Dial(t, addr)
			holder := difftest.Dial(t, addr)
			holder.Send(difftest.Encode("EVAL", tc.holder, "1", "{a}k", "100"))
			time.Sleep(20 * time.Millisecond)
			const writers, each = 8, 200
			var pipe []byte
			for range each {
				pipe = append(pipe, difftest.Encode(tc.cmd...)...)
			}
			conns := make([]*difftest.Conn, writers)
			for i := range conns {
				conns[i] = difftest.Dial(t, addr)
				conns[i].Send(pipe)
			}
			for _, c := range conns {
				for range each {
					if got := c.Read(); !strings.HasPrefix(got, ":") {
						t.Fatalf("%s: %q", tc.cmd[0], got)
					}
				}
			}
			if got := holder.Read(); got != "$4\r\ndone\r\n" {
				t.Errorf("holder: %q", got)
			}
			if got := info.Do("GET", "{a}n"); got != fmt.Sprintf("$4\r\n%d\r\n", writers*each) {
				t.Errorf("counter %q: an increment was lost", got)
			}
			parks, err := strconv.Atoi(bhvField(info.Do("INFO", "keylocks"), "parked_commands"))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d writers of %d commands each behind a handed-off script: %d parked", writers, each, parks)
			if parks > writers*each/4 {
				t.Errorf("%d commands parked of %d: the writers took turns command by command", parks, writers*each)
			}
		})
	}
}

// TestLockFairness: a writer queued behind a stream of readers of one tag
// gets the lock in bounded time, and readers behind a stream of writers.
func TestLockFairness(t *testing.T) {
	_, addr := startServer(t)
	setup := difftest.Dial(t, addr)
	fillBigList(t, setup, "{f}list", 100000)
	for _, tc := range []struct{ stream, one []string }{
		{[]string{"LRANGE", "{f}list", "0", "-1"}, []string{"RPUSH", "{f}list", "x"}},
		{[]string{"LSET", "{f}list", "0", "y"}, []string{"LLEN", "{f}list"}},
	} {
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for i := 0; i < 6; i++ {
			c := difftest.Dial(t, addr)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
						c.Do(tc.stream...)
					}
				}
			}()
		}
		time.Sleep(100 * time.Millisecond)
		one := difftest.Dial(t, addr)
		var worst time.Duration
		for i := 0; i < 10; i++ {
			start := time.Now()
			one.Do(tc.one...)
			worst = max(worst, time.Since(start))
		}
		close(stop)
		wg.Wait()
		t.Logf("%s behind a stream of %s: worst %v", tc.one[0], tc.stream[0], worst)
		if worst > 2*time.Second {
			t.Errorf("%s behind a stream of %s waited %v", tc.one[0], tc.stream[0], worst)
		}
	}
}

// TestScriptWedges: each way a script used to wedge the server for good.
// After each, the server answers the next commands normally.
func TestScriptWedges(t *testing.T) {
	_, addr := startServer(t, "--io-threads", "1", "--busy-reply-threshold", "10")
	c := difftest.Dial(t, addr)
	other := difftest.Dial(t, addr)
	healthy := func(what string) {
		t.Helper()
		expect(t, other, "+PONG\r\n", "PING")
		expect(t, other, "+OK\r\n", "SET", "{a}k", "v")
		expect(t, other, "$1\r\nv\r\n", "GET", "{a}k")
		expect(t, other, "-NOTBUSY No scripts in execution right now.\r\n", "SCRIPT", "KILL")
		expect(t, other, "-NOTBUSY No scripts in execution right now.\r\n", "FUNCTION", "KILL")
		if t.Failed() {
			t.Fatalf("the server is not itself after %s", what)
		}
	}
	// A Go panic inside the VM.
	if got := c.Do("EVAL", "return #{unpack({},1,1e8)}", "0"); !strings.HasPrefix(got, "-") {
		t.Errorf("unpack of 1e8 values: %q", got)
	}
	healthy("unpack({},1,1e8)")
	// A function that fails after it became busy.
	lib := "#!lua name=wedge\nredis.register_function('f', function() local t = redis.call('TIME') local stop = t[1] + 1 " +
		"local i = 0 while i < 3000000 do i = i + 1 end return #{unpack({},1,1e8)} end)"
	expect(t, c, "$5\r\nwedge\r\n", "FUNCTION", "LOAD", lib)
	if got := c.Do("FCALL", "f", "0"); !strings.HasPrefix(got, "-") {
		t.Errorf("failing function: %q", got)
	}
	healthy("a busy function that failed")
	// An endless loop inside a coroutine can be killed.
	for _, body := range []string{
		"coroutine.wrap(function() while true do end end)()",
		"local co = coroutine.create(function() while true do end end) return coroutine.resume(co)",
		"coroutine.wrap(function() coroutine.wrap(function() while true do end end)() end)()",
	} {
		c.Send(difftest.Encode("EVAL", body, "0"))
		waitBusy(t, other, "PING")
		expect(t, other, "+OK\r\n", "SCRIPT", "KILL")
		if got, err := c.ReadErr(5 * time.Second); err != nil || !strings.Contains(got, "Script killed by user") {
			t.Errorf("%s: killed script replied %q, %v", body, got, err)
		}
		healthy(body)
	}
	// A long Lua builtin is quick or can be killed.
	start := time.Now()
	expect(t, c, ":200000\r\n", "EVAL", "return #(string.rep('a',200000):gsub('a','b'))", "0")
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("gsub of 200,000 matches took %v", d)
	}
	healthy("gsub")
	// A blocked client whose serving needs a busy key-locked script's tag.
	blocked := difftest.Dial(t, addr)
	blocked.Send(difftest.Encode("BLMOVE", "{c}src", "{a}dst", "LEFT", "LEFT", "0"))
	for !strings.Contains(other.Do("INFO", "clients"), "blocked_clients:1") {
		time.Sleep(time.Millisecond)
	}
	c.Send(difftest.Encode("EVAL", "#!lua flags=allow-key-locking\nredis.call('GET', KEYS[1]) while true do end", "1", "{a}dst"))
	waitBusy(t, other, "GET", "{a}dst")
	expect(t, other, ":1\r\n", "LPUSH", "{c}src", "x") // the serving parks
	expect(t, other, "+PONG\r\n", "PING")
	expect(t, other, "+OK\r\n", "SCRIPT", "KILL")
	c.Read()
	if got, err := blocked.ReadErr(5 * time.Second); err != nil || got != "$1\r\nx\r\n" {
		t.Errorf("BLMOVE served after the script: %q, %v", got, err)
	}
	expect(t, other, "*1\r\n$1\r\nx\r\n", "LRANGE", "{a}dst", "0", "-1")
}

// TestTableDuplicatePanics: a command registered twice is refused at
// start-up instead of silently replacing the first.
func TestTableDuplicatePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("registering PING twice did not panic")
		}
	}()
	tb := Table{}
	tb.add(&Command{Name: "ping", Arity: -1})
	tb.add(&Command{Name: "ping", Arity: -1})
}

// TestScriptErrorStats: the errors of scripts count in INFO errorstats,
// total_error_replies and the calls' failed/rejected counters as Redis
// counts them: once, where they arise (a redis.call's refusal or failure,
// a runtime error, an error reply the script returns, nested or not; a
// command queued in MULTI, not the EXEC that ran it).
func TestScriptErrorStats(t *testing.T) {
	redis := difftest.StartRedis(t)
	_, hotkv := startServer(t)
	stats := func(addr string) string {
		c := difftest.Dial(t, addr)
		c.Do("CONFIG", "RESETSTAT")
		c.Do("SET", "str", "x")
		for _, cmd := range [][]string{
			{"EVAL", "return redis.call('select',99)", "0"},
			{"EVAL", "return redis.error_reply('MY_ERR custom')", "0"},
			{"EVAL", "return redis.error_reply('')", "0"},
			{"EVAL", "local t = redis.pcall('select',99) return 1", "0"},
			{"EVAL", "return redis.pcall('select',99)", "0"},
			{"EVAL", "return foo()", "0"},
			{"EVAL_RO", "return redis.call('set','x','y')", "1", "x"},
			{"EVAL", "return {1, redis.error_reply('NESTED x')}", "0"},
			{"EVAL", "return redis.call('nosuchcommand')", "0"},
			{"EVAL", "return redis.call('lpush', KEYS[1], 'a')", "1", "str"},
			// A queued command's error is its own, not EXEC's.
			{"MULTI"}, {"SET", "a", "b"}, {"AUTH", "a"}, {"EXEC"}, {"EXEC"},
			{"MULTI"}, {"EVAL", "return redis.call('select',99)", "0"}, {"INCR", "str"}, {"EXEC"},
		} {
			c.Do(cmd...)
		}
		var out []string
		for _, sec := range []string{"errorstats", "commandstats", "stats"} {
			for _, line := range strings.Split(c.Do("INFO", sec), "\r\n") {
				if strings.HasPrefix(line, "errorstat_") || strings.HasPrefix(line, "total_error_replies") {
					out = append(out, line)
				}
				if name, rest, ok := strings.Cut(line, ":calls="); ok && strings.HasPrefix(name, "cmdstat_") && !strings.Contains(name, "config") && !strings.Contains(name, "info") {
					_, counts, _ := strings.Cut(rest, "rejected_calls=")
					out = append(out, name+":"+counts)
				}
			}
		}
		slices.Sort(out)
		return strings.Join(out, "\n")
	}
	if r, h := stats(redis), stats(hotkv); r != h {
		t.Errorf("error statistics differ\nredis:\n%s\nhotkv:\n%s", r, h)
	}
}

// TestSlowlogSeesEveryCommand: the one executor logs every command that
// runs — plain, queued in MULTI, called from a script (whose entries
// carry the Lua client's "?:0") — as Redis does; EXEC itself is
// skip_slowlog.
func TestSlowlogSeesEveryCommand(t *testing.T) {
	redis := difftest.StartRedis(t)
	_, hotkv := startServer(t)
	entries := func(addr string) string {
		c := difftest.Dial(t, addr)
		c.Do("CONFIG", "SET", "slowlog-log-slower-than", "0")
		c.Do("SLOWLOG", "RESET")
		c.Do("EVAL", "redis.call('set','a','b') return redis.call('get','a')", "0")
		c.Do("MULTI")
		c.Do("SET", "q", "1")
		c.Do("GET", "q")
		c.Do("EXEC")
		c.Do("CONFIG", "SET", "slowlog-log-slower-than", "-1")
		var out []string
		for _, line := range strings.Split(c.Do("SLOWLOG", "GET", "20"), "\r\n") {
			// Keep the arguments and the Lua client's peer; drop ids,
			// times, durations and the connection's own address.
			if line == "" || line[0] == '*' || line[0] == ':' || line[0] == '$' || strings.HasPrefix(line, "127.0.0.1:") {
				continue
			}
			out = append(out, line)
		}
		return strings.Join(out, " ")
	}
	if r, h := entries(redis), entries(hotkv); r != h {
		t.Errorf("slow logs differ\nredis: %s\nhotkv: %s", r, h)
	}
}

// TestRepliesBeforeCloseWithAOF: the replies of a connection's last batch
// reach it when the connection closes right after (QUIT, a half-close,
// a protocol error), even while the append-only file is behind: they are
// not held for a batch end that the closed connection never sees.
func TestRepliesBeforeCloseWithAOF(t *testing.T) {
	for _, policy := range []string{"always", "everysec"} {
		_, addr := startServer(t, "--appendonly", "yes", "--appendfsync", policy)
		for i := 0; i < 20; i++ {
			c := difftest.Dial(t, addr)
			c.Send(append(difftest.Encode("SET", "k", strconv.Itoa(i)), difftest.Encode("QUIT")...))
			for _, want := range []string{"+OK\r\n", "+OK\r\n"} {
				if got, err := c.ReadErr(5 * time.Second); err != nil || got != want {
					t.Fatalf("%s: %q, %v; want %q", policy, got, err, want)
				}
			}
		}
	}
}

// TestMonitorAfterRun: MONITOR shows a command once it ran, as Redis's
// call(): a transaction as MULTI, its commands, EXEC; an aborted one as
// MULTI, EXEC; a script's EVAL before the commands it runs.
func TestMonitorAfterRun(t *testing.T) {
	redis := difftest.StartRedis(t)
	_, hotkv := startServer(t)
	lines := func(addr string) string {
		mon := difftest.Dial(t, addr)
		mon.Do("MONITOR")
		c := difftest.Dial(t, addr)
		c.Do("MULTI")
		c.Do("SET", "foo", "bar")
		c.Do("EXEC")
		c.Do("MULTI")
		c.Do("NOSUCH")
		c.Do("EXEC")
		c.Do("EVAL", "return redis.call('get', 'foo')", "0")
		c.Do("PING")
		var out []string
		for len(out) < 7 {
			line := mon.Read()
			_, cmd, _ := strings.Cut(line, "] ")
			out = append(out, strings.TrimSpace(cmd))
		}
		return strings.Join(out, " | ")
	}
	if r, h := lines(redis), lines(hotkv); r != h {
		t.Errorf("MONITOR differs\nredis: %s\nhotkv: %s", r, h)
	}
}

// TestSlowlogRedactsLikeRedis: the slow log shows "(redacted)" for the
// credentials of AUTH, HELLO, MIGRATE and CONFIG SET's sensitive
// parameters, as Redis's redactClientCommandArgument, against
// redis-server.
func TestSlowlogRedactsLikeRedis(t *testing.T) {
	redis := difftest.StartRedis(t)
	_, hotkv := startServer(t)
	entries := func(addr string) string {
		c := difftest.Dial(t, addr)
		c.Do("CONFIG", "SET", "slowlog-log-slower-than", "0")
		c.Do("SLOWLOG", "RESET")
		for _, cmd := range [][]string{
			{"MIGRATE", "127.0.0.1", "1", "nokey", "9", "100"},
			{"MIGRATE", "127.0.0.1", "1", "nokey", "9", "100", "AUTH", "secret"},
			{"MIGRATE", "127.0.0.1", "1", "nokey", "9", "100", "COPY", "AUTH2", "user", "secret", "REPLACE"},
			{"MIGRATE", "127.0.0.1", "1", "", "9", "100", "AUTH", "secret", "KEYS", "a", "b"},
			{"CONFIG", "SET", "requirepass", "", "maxmemory-samples", "5"},
			{"AUTH", "secret"},
			{"AUTH", "user", "secret"},
			{"AUTH", "a", "b", "c"},
		} {
			c.Do(cmd...)
		}
		c.Do("CONFIG", "SET", "slowlog-log-slower-than", "-1")
		var out []string
		for _, e := range srvParse(t, c.Do("SLOWLOG", "GET", "-1")).([]any) {
			var args []string
			for _, a := range e.([]any)[3].([]any) {
				args = append(args, a.(string))
			}
			out = append(out, strings.Join(args, " "))
		}
		return strings.Join(out, "\n")
	}
	if r, h := entries(redis), entries(hotkv); r != h {
		t.Errorf("slow log\nredis:\n%s\nhotkv:\n%s", r, h)
	}
}
