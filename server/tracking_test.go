package server

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// trackingScenarios are transcripts run on redis-server and HotKV with
// several connections each. A line is "<conn> <command>": the command is
// sent on both servers and the raw replies compared. "<conn> read" reads
// one more reply (a push) on both; a command starting with "!" is sent
// and its reply read but not compared (HELLO: versions, IDs); one
// starting with "~" has each connection's ID in its reply replaced by
// the connection's name; "<conn> send <command>" sends without reading.
// "$x" in a command is connection x's client ID on that server. After
// the transcript every connection answers a PING, compared too: a push
// one server sent and the other did not shows there.
var trackingScenarios = []struct {
	name  string
	lines string
}{
	{"argument errors", `
		a CLIENT TRACKING
		a CLIENT TRACKING maybe
		a CLIENT TRACKING on foo
		a CLIENT TRACKING on REDIRECT
		a CLIENT TRACKING on REDIRECT x
		a CLIENT TRACKING on REDIRECT 999999
		a CLIENT TRACKING on REDIRECT $b REDIRECT $b
		a CLIENT TRACKING on PREFIX a:
		a CLIENT TRACKING on BCAST OPTIN
		a CLIENT TRACKING on BCAST OPTOUT
		a CLIENT TRACKING on OPTIN OPTOUT
		a CLIENT TRACKING on BCAST PREFIX FOOBAR PREFIX FOO
		a CLIENT TRACKING on BCAST PREFIX FOO PREFIX FOOBAR
		a CLIENT TRACKING on BCAST PREFIX FOO PREFIX BAR
		a CLIENT TRACKING on BCAST PREFIX FO
		a CLIENT TRACKING on BCAST PREFIX BARB
		a CLIENT TRACKING on BCAST PREFIX BAR PREFIX ZZZ
		a CLIENT TRACKING on
		a CLIENT TRACKINGINFO
		a CLIENT TRACKING off
		a CLIENT TRACKING on OPTIN
		a CLIENT TRACKING on OPTOUT
		a CLIENT TRACKING on BCAST
		a CLIENT TRACKING off
		a CLIENT CACHING yes
		a CLIENT CACHING maybe
		a CLIENT TRACKING on
		a CLIENT CACHING yes
		a CLIENT CACHING no
		a CLIENT CACHING maybe
		a CLIENT GETREDIR foo
		a CLIENT TRACKINGINFO foo
		a CLIENT CACHING
		a CLIENT TRACKING off`},
	{"trackinginfo and getredir", `
		a CLIENT TRACKINGINFO
		a CLIENT GETREDIR
		a CLIENT TRACKING on
		a CLIENT TRACKINGINFO
		a CLIENT GETREDIR
		a CLIENT TRACKING on OPTIN NOLOOP
		a CLIENT CACHING yes
		a CLIENT TRACKINGINFO
		a CLIENT TRACKINGINFO
		a CLIENT TRACKING off
		a CLIENT TRACKING on OPTOUT
		a CLIENT CACHING no
		a CLIENT TRACKINGINFO
		a CLIENT TRACKING off
		a CLIENT TRACKING on BCAST PREFIX foo PREFIX bar
		a CLIENT TRACKINGINFO
		a CLIENT TRACKING on BCAST PREFIX baz
		a CLIENT TRACKINGINFO
		a CLIENT TRACKING off
		a CLIENT TRACKINGINFO
		a !HELLO 3
		a CLIENT TRACKING on BCAST
		a CLIENT TRACKINGINFO
		a CLIENT TRACKING off
		a ~CLIENT TRACKING on REDIRECT $b
		a ~CLIENT GETREDIR
		a ~CLIENT TRACKINGINFO
		a CLIENT TRACKING off`},
	{"RESP3 default mode", `
		a !HELLO 3
		a CLIENT TRACKING on
		b MSET k1 1 k2 2 k3 3
		a GET k1
		a MGET k2 k3
		b SET k1 2
		a PING
		a read
		b DEL k2 k3
		a read
		a read
		b SET k1 3
		a GET k1
		a SET k1 4
		a read
		a HSET h f 1
		a HGET h f
		a HDEL h f
		a read
		a GET nokey
		b SET nokey 1
		a PING
		a read
		a GET k1
		b SET k1 4 NX
		b GET k1
		a PING`},
	{"RESP3 transactions and flushes", `
		a !HELLO 3
		a CLIENT TRACKING on
		a MSET a{t} 1 b{t} 2
		a GET a{t}
		a MULTI
		a INCR a{t}
		a GET b{t}
		a EXEC
		a read
		a MULTI
		a FLUSHDB
		a EXEC
		a read
		a GET x
		b FLUSHALL
		a read
		b FLUSHALL
		a read`},
	{"NOLOOP", `
		a !HELLO 3
		a CLIENT TRACKING on NOLOOP
		a MGET other1{t} loop{t} other2{t}
		b SET other1{t} 1
		a SET loop{t} 1
		a read
		b SET other2{t} 1
		a read`},
	{"RESP2 redirect", `
		r SUBSCRIBE __redis__:invalidate
		a CLIENT TRACKING on REDIRECT $r
		a SET a{t} 1
		a SET b{t} 1
		a GET a{t}
		a INCR b{t}
		a INCR a{t}
		r read
		a MGET a{t} b{t} c{t}
		b DEL a{t} b{t} c{t}
		r read
		r read
		a !HELLO 3
		b SET k 1
		a GET k
		b SET k 2
		r read
		a !HELLO 2
		a GET k
		b FLUSHALL
		r read`},
	{"RESP3 redirect and broken redirect", `
		r !HELLO 3
		a !HELLO 3
		a CLIENT TRACKING on REDIRECT $r
		b SET k 1
		a GET k
		b SET k 2
		r read
		a GET k
		r QUIT
		b SET k 3
		a ~PING
		a read
		a ~CLIENT TRACKINGINFO`},
	{"BCAST", `
		r SUBSCRIBE __redis__:invalidate
		a CLIENT TRACKING on BCAST REDIRECT $r
		a MSET a{t} 1 b{t} 2 c{t} 3
		r read
		a CLIENT TRACKING off
		a CLIENT TRACKING on BCAST REDIRECT $r PREFIX a: PREFIX b:
		a MULTI
		a INCR a:1{t}
		a INCR a:2{t}
		a INCR b:1{t}
		a INCR b:2{t}
		a INCR c:1{t}
		a EXEC
		r read
		r read
		a CLIENT TRACKING on BCAST REDIRECT $r PREFIX c:
		a INCR c:1234
		r read
		a CLIENT TRACKING off
		a CLIENT TRACKING on BCAST REDIRECT $r NOLOOP
		b SET other1 1
		a SET loop 1
		b SET other2 1
		r read
		r read
		a MSET loop2 1 loop3 2
		b SET other3 2
		r read`},
	{"BCAST RESP3 after default mode", `
		a !HELLO 3
		a CLIENT TRACKING on
		b SET key1 1
		a GET key1
		a CLIENT TRACKING off
		a CLIENT TRACKING on BCAST
		b INCR key1
		a PING
		a read`},
	{"OPTIN and OPTOUT", `
		a !HELLO 3
		a CLIENT TRACKING on OPTIN
		b SET k1 1
		a GET k1
		b SET k1 2
		a CLIENT CACHING yes
		a GET k1
		b SET k1 3
		a read
		a CLIENT CACHING yes
		a MULTI
		a GET k1
		a GET k2
		a EXEC
		b MSET k1 4 k2 4
		a read
		a read
		a CLIENT TRACKING off
		a CLIENT TRACKING on OPTOUT
		a GET k1
		b SET k1 5
		a read
		a CLIENT CACHING no
		a GET k1
		b SET k1 6
		a GET k1
		b SET k1 7
		a read`},
	{"scripts", `
		a !HELLO 3
		a CLIENT TRACKING on
		b MSET key1{t} 1 key2{t} 1
		a EVAL "redis.call('set', 'key3{t}', 'bar')" 2 key1{t} key2{t}
		b MSET key2{t} 2 key1{t} 2
		a EVAL "redis.call('get', 'key3{t}')" 2 key1{t} key2{t}
		b MSET key2{t} 2 key1{t} 2
		a read
		a read
		a EVAL_RO "redis.call('ping')" 2 key1{t} key2{t}
		b MSET key2{t} 2 key1{t} 2
		a EVAL_RO "redis.call('get', 'key1{t}')" 2 key1{t} key2{t}
		b MSET key2{t} 3 key1{t} 3
		a read
		a read
		a CLIENT TRACKING off
		a CLIENT TRACKING on NOLOOP
		a GET key1{t}
		a EVAL "return redis.call('set', KEYS[1], '2')" 1 key1{t}
		a GET key1{t}`},
	{"client reply off", `
		a !HELLO 3
		a CLIENT TRACKING on
		b SET foo bar
		a GET foo
		a send CLIENT REPLY OFF
		b SET foo bar2
		a read
		a CLIENT REPLY ON`},
	{"blocked client served", `
		a !HELLO 3
		a RPUSH list2{t} a
		a CLIENT TRACKING on
		a LRANGE list2{t} 0 -1
		a send BLMOVE list1{t} list2{t} left left 0
		b RPUSH list1{t} foo
		a read
		a read`},
	{"RESP2 without redirect", `
		a CLIENT TRACKING on
		b SET k 1
		a GET k
		b SET k 2
		a GET k
		a FLUSHALL`},
}

// TestTrackingLikeRedis runs trackingScenarios against redis-server.
func TestTrackingLikeRedis(t *testing.T) {
	for _, sc := range trackingScenarios {
		t.Run(sc.name, func(t *testing.T) {
			runTrackingScenario(t, sc.lines)
		})
	}
}

var trackingVar = regexp.MustCompile(`\$[a-z]`)

func runTrackingScenario(t *testing.T, lines string) {
	t.Helper()
	conns := map[string]*difftest.Pair{}
	ids := map[string][2]string{} // by name: Redis's, HotKV's
	var order []string
	pair := func(name string) *difftest.Pair {
		if p := conns[name]; p != nil {
			return p
		}
		p := newPair(t)
		conns[name] = p
		order = append(order, name)
		ids[name] = [2]string{
			strings.TrimSuffix(strings.TrimPrefix(p.Redis.Do("CLIENT", "ID"), ":"), "\r\n"),
			strings.TrimSuffix(strings.TrimPrefix(p.HotKV.Do("CLIENT", "ID"), ":"), "\r\n"),
		}
		return p
	}
	// Every connection exists before the first command: their creation
	// flushes the databases.
	for _, line := range strings.Split(lines, "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			pair(f[0])
			for _, v := range trackingVar.FindAllString(line, -1) {
				pair(v[1:])
			}
		}
	}
	subst := func(args []string, side int) []string {
		out := make([]string, len(args))
		for i, a := range args {
			out[i] = trackingVar.ReplaceAllStringFunc(a, func(v string) string { return ids[v[1:]][side] })
		}
		return out
	}
	names := func(reply string, side int) string {
		for name, id := range ids {
			reply = strings.ReplaceAll(reply, ":"+id[side]+"\r\n", ":<"+name+">\r\n")
		}
		return reply
	}
	closed := map[string]bool{}
	for _, line := range strings.Split(lines, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		name, rest, _ := strings.Cut(line, " ")
		p := conns[name]
		var want, got string
		switch {
		case rest == "read":
			var err error
			if want, err = p.Redis.ReadErr(2 * time.Second); err != nil {
				t.Fatalf("%s: redis: %v", line, err)
			}
			if got, err = p.HotKV.ReadErr(2 * time.Second); err != nil {
				t.Fatalf("%s: hotkv: %v (redis: %q)", line, err, want)
			}
		case strings.HasPrefix(rest, "send "):
			args := difftest.Split(strings.TrimPrefix(rest, "send "))
			p.Redis.Send(difftest.Encode(subst(args, 0)...))
			p.HotKV.Send(difftest.Encode(subst(args, 1)...))
			continue
		default:
			unchecked, named := strings.HasPrefix(rest, "!"), strings.HasPrefix(rest, "~")
			args := difftest.Split(strings.TrimLeft(rest, "!~"))
			want, got = p.Redis.Do(subst(args, 0)...), p.HotKV.Do(subst(args, 1)...)
			if unchecked {
				continue
			}
			if named {
				want, got = names(want, 0), names(got, 1)
			}
			if strings.EqualFold(args[0], "quit") {
				closed[name] = true
			}
		}
		if want != got {
			t.Errorf("%s\n redis: %q\n hotkv: %q", line, want, got)
		}
	}
	for _, name := range order {
		if closed[name] {
			continue
		}
		p := conns[name]
		if want, got := p.Redis.Do("PING"), p.HotKV.Do("PING"); want != got {
			t.Errorf("%s PING (at the end)\n redis: %q\n hotkv: %q", name, want, got)
		}
	}
}

// TestTrackingClientList: CLIENT INFO's flags and redir= as Redis shows
// them for tracking clients (t, B, R).
func TestTrackingClientList(t *testing.T) {
	field := func(info, name string) string {
		for _, f := range strings.Fields(info) {
			if v, ok := strings.CutPrefix(f, name+"="); ok {
				return v
			}
		}
		return "?"
	}
	p, r := newPair(t), newPair(t)
	rid := [2]string{
		strings.Trim(r.Redis.Do("CLIENT", "ID"), ":\r\n"),
		strings.Trim(r.HotKV.Do("CLIENT", "ID"), ":\r\n"),
	}
	for _, step := range [][]string{
		{"CLIENT", "TRACKING", "on"},
		{"CLIENT", "TRACKING", "off"},
		{"CLIENT", "TRACKING", "on", "BCAST"},
		{"CLIENT", "TRACKING", "off"},
		{"CLIENT", "TRACKING", "on", "REDIRECT", "<r>"},
	} {
		var infos [2]string
		for side, c := range []*difftest.Conn{p.Redis, p.HotKV} {
			args := append([]string(nil), step...)
			if args[len(args)-1] == "<r>" {
				args[len(args)-1] = rid[side]
			}
			c.Do(args...)
			info := c.Do("CLIENT", "INFO")
			redir := field(info, "redir")
			if redir == rid[side] {
				redir = "<r>"
			}
			infos[side] = fmt.Sprintf("flags=%s redir=%s", field(info, "flags"), redir)
		}
		if infos[0] != infos[1] {
			t.Errorf("%v: CLIENT INFO redis %s, hotkv %s", step, infos[0], infos[1])
		}
	}
}

// TestTrackingConcurrent: tracking clients on several event loops read
// every key, then writers on other connections change every key once,
// in parallel, on different tags; each tracking client gets exactly one
// invalidation per key, before the reply to the PING it sends once the
// writers are done. Three rounds. Run with -race.
func TestTrackingConcurrent(t *testing.T) {
	_, addr := startServer(t)
	const readers, writers, tags, perTag, rounds = 6, 4, 8, 25, 3
	var keys []string
	for tg := range tags {
		for i := range perTag {
			keys = append(keys, fmt.Sprintf("{t%d}k%d", tg, i))
		}
	}
	rs := make([]*difftest.Conn, readers)
	for i := range rs {
		rs[i] = difftest.Dial(t, addr)
		rs[i].Do("HELLO", "3")
		if got := rs[i].Do("CLIENT", "TRACKING", "on"); got != "+OK\r\n" {
			t.Fatalf("CLIENT TRACKING on: %q", got)
		}
	}
	ws := make([]*difftest.Conn, writers)
	for i := range ws {
		ws[i] = difftest.Dial(t, addr)
	}
	for round := range rounds {
		parallel(t, readers, func(i int) error {
			for _, k := range keys {
				rs[i].Send(difftest.Encode("GET", k))
			}
			for range keys {
				if r, err := rs[i].ReadErr(10 * time.Second); err != nil || r[0] == '>' {
					return fmt.Errorf("reader %d: GET: %q %v", i, r, err)
				}
			}
			return nil
		})
		parallel(t, writers, func(i int) error {
			// Writer i changes the keys of the tags i, i+writers, ...
			n := 0
			for tg := i; tg < tags; tg += writers {
				for k := range perTag {
					ws[i].Send(difftest.Encode("SET", fmt.Sprintf("{t%d}k%d", tg, k), fmt.Sprint(round)))
					n++
				}
			}
			for range n {
				if r, err := ws[i].ReadErr(10 * time.Second); err != nil || r != "+OK\r\n" {
					return fmt.Errorf("writer %d: SET: %q %v", i, r, err)
				}
			}
			return nil
		})
		parallel(t, readers, func(i int) error {
			got := map[string]int{}
			rs[i].Send(difftest.Encode("PING"))
			for {
				r, err := rs[i].ReadErr(10 * time.Second)
				if err != nil {
					return fmt.Errorf("reader %d: %v (after %d invalidations)", i, err, len(got))
				}
				if r == "+PONG\r\n" {
					break
				}
				for _, k := range invalidatedKeys(r) {
					got[k]++
				}
			}
			for _, k := range keys {
				if got[k] != 1 {
					return fmt.Errorf("round %d, reader %d: %d invalidations of %s", round, i, got[k], k)
				}
			}
			if len(got) != len(keys) {
				return fmt.Errorf("round %d, reader %d: invalidations of %d keys, want %d", round, i, len(got), len(keys))
			}
			return nil
		})
	}
}

// parallel runs fn(0..n-1) on n goroutines and fails t with their errors.
func parallel(t *testing.T, n int, fn func(i int) error) {
	t.Helper()
	errs := make(chan error, n)
	for i := range n {
		go func() { errs <- fn(i) }()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
}

// invalidatedKeys returns the keys of a raw RESP3 invalidate push.
func invalidatedKeys(raw string) []string {
	const head = ">2\r\n$10\r\ninvalidate\r\n*"
	rest, ok := strings.CutPrefix(raw, head)
	if !ok {
		return []string{"unexpected:" + raw}
	}
	lines := strings.Split(rest, "\r\n")
	var out []string
	for i := 2; i < len(lines); i += 2 {
		out = append(out, lines[i])
	}
	return out
}

// TestTrackingTableMaxKeys: past tracking-table-max-keys, keys are
// evicted from the tracking table with an invalidation each, as Redis's
// trackingLimitUsedSlots (100 keys, then 200, ... per try), until the
// table is under the limit; INFO counts the table.
func TestTrackingTableMaxKeys(t *testing.T) {
	_, addr := startServer(t)
	a, b := difftest.Dial(t, addr), difftest.Dial(t, addr)
	a.Do("HELLO", "3")
	a.Do("CLIENT", "TRACKING", "on")
	const n = 250
	for i := range n {
		a.Do("GET", fmt.Sprint("key", i))
	}
	info := b.Do("INFO", "stats")
	if !strings.Contains(info, fmt.Sprintf("tracking_total_keys:%d\r\n", n)) || !strings.Contains(info, fmt.Sprintf("tracking_total_items:%d\r\n", n)) {
		t.Errorf("INFO stats: %q", info)
	}
	if got := b.Do("INFO", "clients"); !strings.Contains(got, "tracking_clients:1\r\n") {
		t.Errorf("INFO clients: %q", got)
	}
	b.Do("CONFIG", "SET", "tracking-table-max-keys", "1")
	got := map[string]bool{}
	for len(got) < n-1 {
		r, err := a.ReadErr(5 * time.Second)
		if err != nil {
			t.Fatalf("after %d invalidations: %v", len(got), err)
		}
		for _, k := range invalidatedKeys(r) {
			if got[k] {
				t.Errorf("%s invalidated twice", k)
			}
			got[k] = true
		}
	}
	if r := a.Do("PING"); r != "+PONG\r\n" {
		t.Errorf("PING after the evictions: %q", r)
	}
	if info := b.Do("INFO", "stats"); !strings.Contains(info, "tracking_total_keys:1\r\n") {
		t.Errorf("INFO stats after the evictions: %q", info)
	}
}

// TestTrackingLazyExpiryNoloop: a key that expires lazily inside a
// transaction is invalidated for a BCAST NOLOOP client even though the
// same transaction wrote it (the expiry is nobody's change, as in Redis,
// whose unit/tracking waited forever here). The sleep spans cron ticks:
// the transaction's own change must not be delivered by the cron as no
// client's while the transaction runs.
func TestTrackingLazyExpiryNoloop(t *testing.T) {
	redis := difftest.StartRedis(t, "--enable-debug-command", "yes")
	_, hotkv := startServer(t, "--enable-debug-command", "yes")
	run := func(addr string) string {
		r, redir := difftest.Dial(t, addr), difftest.Dial(t, addr)
		id := strings.TrimSuffix(strings.TrimPrefix(redir.Do("CLIENT", "ID"), ":"), "\r\n")
		redir.Do("SUBSCRIBE", "__redis__:invalidate")
		r.Do("CLIENT", "TRACKING", "on", "BCAST", "REDIRECT", id, "NOLOOP")
		for _, cmd := range [][]string{
			{"MULTI"}, {"SET", "mykey{t}", "myval", "PX", "1"}, {"SET", "mykeyotherkey{t}", "myval"},
			{"DEBUG", "SLEEP", "0.3"}, {"GET", "mykey{t}"}, {"EXEC"},
		} {
			r.Do(cmd...)
		}
		got, err := redir.ReadErr(2 * time.Second)
		if err != nil {
			return "no invalidation: " + err.Error()
		}
		return got
	}
	if want, got := run(redis), run(hotkv); got != want {
		t.Errorf("HotKV %q, Redis %q", got, want)
	}
}
