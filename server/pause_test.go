package server

import (
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// Pauses affect a whole server: every test here runs on a private pair.

func TestClientPauseErrors(t *testing.T) {
	p, _, _ := privatePair(t, "")
	p.Run(`
		CLIENT PAUSE
		CLIENT PAUSE abc
		CLIENT PAUSE -1
		CLIENT PAUSE 1.5
		CLIENT PAUSE 10 foo
		CLIENT PAUSE abc foo
		CLIENT PAUSE -1 foo
		CLIENT PAUSE abc write
		CLIENT PAUSE 10 write extra
		CLIENT PAUSE 10 nosuch extra
		CLIENT UNPAUSE x
		CLIENT PAUSE 99999999999999999999
		CLIENT PAUSE 9223372036854775807 WRITE
		SET k v
		CLIENT PAUSE 0 all
		SET k v
		CLIENT UNPAUSE
		CLIENT UNPAUSE
	`)
}

// pauseSide is one server's side of a pause test: a controlling
// connection that pauses and unpauses, and its address for more.
type pauseSide struct {
	name string
	addr string
	ctrl *difftest.Conn
}

func pauseSides(t *testing.T) []pauseSide {
	_, raddr, haddr := privatePair(t, "")
	return []pauseSide{
		{"redis", raddr, difftest.Dial(t, raddr)},
		{"hotkv", haddr, difftest.Dial(t, haddr)},
	}
}

// TestClientPauseWhatWaits sends each row's command after its setup
// lines, once a pause of the row's mode began, and checks that it waits
// for the end of the pause on both servers exactly when want says, and
// that both answer the same once it ended.
func TestClientPauseWhatWaits(t *testing.T) {
	const fn = "#!lua name=plib\n" +
		"redis.register_function{function_name='pro', callback=function() return 'ro' end, flags={'no-writes'}}\n" +
		"redis.register_function('prw', function() return 'rw' end)"
	rows := []struct {
		mode  string
		setup []string
		cmd   string
		waits bool
	}{
		{"WRITE", nil, "GET foo", false},
		{"WRITE", nil, "PING", false},
		{"WRITE", nil, "SET foo bar", true},
		{"WRITE", nil, "DEL foo", true},
		{"WRITE", nil, "PFCOUNT hll", true},
		{"WRITE", nil, "PUBLISH ch msg", true},
		{"WRITE", nil, "SPUBLISH ch msg", true},
		{"WRITE", nil, "SET foo", false},                   // arity: answered at once
		{"WRITE", nil, "NOSUCH foo", false},                // unknown: answered at once
		{"WRITE", nil, "EVAL \"return 1\" 0", true},        // no shebang: may replicate
		{"WRITE", nil, "EVAL \"#!lua\nreturn 1\" 0", true}, // shebang, no flags: a write
		{"WRITE", nil, "EVAL \"#!lua flags=no-writes\nreturn 2\" 0", false},
		{"WRITE", nil, "EVAL_RO \"return redis.call('get','x')\" 1 x", false},
		{"WRITE", nil, "EVAL_RO \"#!lua\nreturn 1\" 0", true}, // declares writes
		{"WRITE", nil, "EVALSHA 0123456789012345678901234567890123456789 0", true},
		{"WRITE", nil, "EVALSHA abc 0", true},
		{"WRITE", []string{"FUNCTION LOAD REPLACE \"" + strings.ReplaceAll(fn, "\n", "\\n") + "\""}, "FCALL pro 0", false},
		{"WRITE", []string{"FUNCTION LOAD REPLACE \"" + strings.ReplaceAll(fn, "\n", "\\n") + "\""}, "FCALL prw 0", true},
		{"WRITE", []string{"FUNCTION LOAD REPLACE \"" + strings.ReplaceAll(fn, "\n", "\\n") + "\""}, "FCALL_RO prw 0", true},
		{"WRITE", nil, "FCALL nosuch 0", true},
		{"WRITE", []string{"MULTI", "GET foo", "PING"}, "EXEC", false},
		{"WRITE", []string{"MULTI", "SET foo bar"}, "EXEC", true},
		{"WRITE", []string{"MULTI", "EVAL \"#!lua flags=no-writes\nreturn 12\" 0"}, "EXEC", false},
		{"WRITE", []string{"MULTI", "EVAL \"#!lua\nreturn 12\" 0"}, "EXEC", true},
		{"WRITE", []string{"MULTI"}, "SET foo bar", true}, // queuing waits too
		{"WRITE", []string{"MULTI"}, "GET foo", false},
		{"WRITE", nil, "CLIENT UNPAUSE", false},
		{"ALL", nil, "GET foo", true},
		{"ALL", nil, "PING", true},
		{"ALL", nil, "CLIENT UNPAUSE", true},
		{"ALL", nil, "SET foo", false},
		{"ALL", []string{"MULTI"}, "GET foo", true},
		{"ALL", []string{"MULTI"}, "SAVE", false}, // no_multi: refused at once
	}
	sides := pauseSides(t)
	for _, row := range rows {
		// The two servers' runs at once (each mostly waits for its
		// command's 150 ms): a subtest each, with connections of its own.
		replies := map[string]string{}
		var mu sync.Mutex // replies
		t.Run(row.mode, func(t *testing.T) {
			for _, sd := range sides {
				t.Run(sd.name, func(t *testing.T) {
					t.Parallel()
					sd.ctrl = difftest.Dial(t, sd.addr)
					c := difftest.Dial(t, sd.addr)
					sd.ctrl.Do("PFADD", "hll", "a")
					for _, l := range row.setup {
						c.Do(difftest.Split(l)...)
					}
					// A pause of ALL postpones the controlling connection's
					// commands too: it ends by its timeout.
					timeout := "60000"
					if row.mode == "ALL" {
						timeout = "400"
					}
					if r := sd.ctrl.Do("CLIENT", "PAUSE", timeout, row.mode); r != "+OK\r\n" {
						t.Fatalf("%s: CLIENT PAUSE: %q", sd.name, r)
					}
					c.Send(difftest.Encode(difftest.Split(row.cmd)...))
					got, err := c.ReadErr(150 * time.Millisecond)
					waited := err != nil
					if waited != row.waits {
						t.Errorf("%s %s after %q: waited %v, want %v (reply %q)", sd.name, row.mode, row.cmd, waited, row.waits, got)
					}
					if row.mode == "WRITE" {
						if waited {
							waitBlocked(t, sd.ctrl, 1)
						}
						sd.ctrl.Do("CLIENT", "UNPAUSE")
					}
					if waited {
						got = c.Read()
					}
					mu.Lock()
					replies[sd.name] = got
					mu.Unlock()
					sd.ctrl.Do("FLUSHALL")
				})
			}
		})
		if len(replies) < len(sides) {
			t.FailNow() // a run stopped half-way: its server may be left paused
		}
		if replies["redis"] != replies["hotkv"] {
			t.Errorf("%s %q: redis %q, hotkv %q", row.mode, row.cmd, replies["redis"], replies["hotkv"])
		}
	}
}

// TestClientPauseResumeOrder: three clients postponed one after the other
// run their commands in that order once the pause ends; a client's
// pipeline waits behind its postponed command, in order; a postponed
// client that goes away is forgotten.
func TestClientPauseResumeOrder(t *testing.T) {
	for _, sd := range pauseSides(t) {
		sd.ctrl.Do("CLIENT", "PAUSE", "60000", "WRITE")
		var cs []*difftest.Conn
		for i := 1; i <= 3; i++ {
			c := difftest.Dial(t, sd.addr)
			c.Send(difftest.Encode("RPUSH", "l", "c"+strconv.Itoa(i)))
			waitBlocked(t, sd.ctrl, i)
			cs = append(cs, c)
		}
		// A pipeline: the read behind the postponed write waits for it.
		pipe := difftest.Dial(t, sd.addr)
		pipe.Send(append(append(difftest.Encode("INCR", "n"), difftest.Encode("GET", "n")...), difftest.Encode("INCR", "n")...))
		waitBlocked(t, sd.ctrl, 4)
		gone := difftest.Dial(t, sd.addr)
		gone.Send(difftest.Encode("RPUSH", "l", "gone"))
		waitBlocked(t, sd.ctrl, 5)
		if r := sd.ctrl.Do("CLIENT", "LIST"); strings.Count(r, "flags=b") != 5 || strings.Count(r, "cmd=rpush") != 4 {
			t.Errorf("%s: CLIENT LIST while postponed: %q", sd.name, r)
		}
		gone.Close()
		waitBlocked(t, sd.ctrl, 4)
		if r, err := cs[0].ReadErr(50 * time.Millisecond); err == nil {
			t.Errorf("%s: postponed client answered %q before UNPAUSE", sd.name, r)
		}
		sd.ctrl.Do("CLIENT", "UNPAUSE")
		for i, c := range cs {
			if r, want := c.Read(), ":"+strconv.Itoa(i+1)+"\r\n"; r != want {
				t.Errorf("%s: client %d: %q, want %q", sd.name, i+1, r, want)
			}
		}
		if r := pipe.Read() + pipe.Read() + pipe.Read(); r != ":1\r\n$1\r\n1\r\n:2\r\n" {
			t.Errorf("%s: pipeline: %q", sd.name, r)
		}
		if r := sd.ctrl.Do("LRANGE", "l", "0", "-1"); r != "*3\r\n$2\r\nc1\r\n$2\r\nc2\r\n$2\r\nc3\r\n" {
			t.Errorf("%s: LRANGE: %q", sd.name, r)
		}
		waitBlocked(t, sd.ctrl, 0)
	}
}

// TestClientPauseTimeout: a pause ends by itself at its timeout, and a
// later CLIENT PAUSE moves the end (the later end wins) and keeps the
// more restrictive mode.
func TestClientPauseTimeout(t *testing.T) {
	for _, sd := range pauseSides(t) {
		c := difftest.Dial(t, sd.addr)
		start := time.Now()
		sd.ctrl.Do("CLIENT", "PAUSE", "300", "WRITE")
		sd.ctrl.Do("CLIENT", "PAUSE", "100", "WRITE") // earlier: the end stays
		c.Send(difftest.Encode("SET", "k", "v"))
		if r := c.Read(); r != "+OK\r\n" {
			t.Errorf("%s: SET after the pause: %q", sd.name, r)
		}
		// Redis ends a pause in its cron (10 Hz): within 300-450 ms.
		if d := time.Since(start); d < 290*time.Millisecond || d > 2*time.Second {
			t.Errorf("%s: the SET waited %v, want about 300ms", sd.name, d)
		}
		// WRITE then ALL: ALL; a 0 timeout changes nothing else.
		sd.ctrl.Do("CLIENT", "PAUSE", "300", "WRITE")
		sd.ctrl.Do("CLIENT", "PAUSE", "0", "ALL")
		c.Send(difftest.Encode("GET", "k"))
		if r, err := c.ReadErr(100 * time.Millisecond); err == nil {
			t.Errorf("%s: GET ran during a pause made ALL: %q", sd.name, r)
		}
		if r := c.Read(); r != "$1\r\nv\r\n" {
			t.Errorf("%s: GET: %q", sd.name, r)
		}
		// ALL then WRITE: still ALL (in one transaction: under ALL the
		// second pause would wait for the first to end).
		sd.ctrl.Do("MULTI")
		sd.ctrl.Do("CLIENT", "PAUSE", "300", "ALL")
		sd.ctrl.Do("CLIENT", "PAUSE", "300", "WRITE")
		sd.ctrl.Do("EXEC")
		start = time.Now()
		c.Send(difftest.Encode("GET", "k"))
		if r := c.Read(); r != "$1\r\nv\r\n" || time.Since(start) < 200*time.Millisecond {
			t.Errorf("%s: GET during ALL then WRITE: %q after %v", sd.name, r, time.Since(start))
		}
	}
}

// TestClientPauseExpiry: while clients are paused no key expires, lazily
// or actively: an expired key reads as missing and stays, uncounted,
// until the pause ends. CLIENT PAUSE inside MULTI starts at the end of
// the transaction.
func TestClientPauseExpiry(t *testing.T) {
	for _, sd := range pauseSides(t) {
		c := sd.ctrl
		c.Do("CONFIG", "SET", "hz", "100")
		expired := func() string { return bhvField(c.Do("INFO", "stats"), "expired_keys") }
		before := expired()
		c.Do("MULTI")
		c.Do("SET", "foo{t}", "bar", "PX", "10")
		c.Do("SET", "bar{t}", "foo", "PX", "10")
		c.Do("CLIENT", "PAUSE", "50000", "WRITE")
		c.Do("SET", "baz{t}", "x")
		if r := c.Do("EXEC"); r != "*4\r\n+OK\r\n+OK\r\n+OK\r\n+OK\r\n" {
			t.Fatalf("%s: EXEC: %q", sd.name, r)
		}
		time.Sleep(300 * time.Millisecond) // 30 cron ticks
		for _, k := range []string{"foo{t}", "bar{t}"} {
			if r := c.Do("GET", k); r != "$-1\r\n" {
				t.Errorf("%s: GET %s: %q", sd.name, k, r)
			}
		}
		if r := c.Do("GET", "baz{t}"); r != "$1\r\nx\r\n" {
			t.Errorf("%s: GET baz{t}: %q", sd.name, r)
		}
		if got := expired(); got != before {
			t.Errorf("%s: expired_keys %s during the pause, was %s", sd.name, got, before)
		}
		c.Do("CLIENT", "UNPAUSE")
		c.Do("GET", "foo{t}")
		c.Do("GET", "bar{t}")
		if got, want := expired(), strconv.Itoa(atoiT(t, before)+2); got != want {
			t.Errorf("%s: expired_keys %s after the pause, want %s", sd.name, got, want)
		}
		c.Do("CONFIG", "SET", "hz", "10")
	}
}

func atoiT(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
