package server

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// cliMasked are the CLIENT LIST fields whose values legitimately differ
// between Redis and HotKV (ids, ports, times, buffer sizes); the rest
// must match, and so must the field names and their order.
var cliMasked = map[string]bool{
	"id": true, "addr": true, "laddr": true, "fd": true, "age": true, "idle": true,
	"qbuf-free": true, "rbs": true, "rbp": true, "tot-mem": true,
}

// cliBody returns the text of a CLIENT LIST/INFO reply (bulk or verbatim).
func cliBody(t *testing.T, raw string) string {
	t.Helper()
	head, rest, ok := strings.Cut(raw, "\r\n")
	if !ok || len(head) < 2 || (head[0] != '$' && head[0] != '=') {
		t.Fatalf("not a bulk or verbatim reply: %q", raw)
	}
	n, err := strconv.Atoi(head[1:])
	if err != nil || len(rest) != n+2 {
		t.Fatalf("bad reply length: %q", raw)
	}
	body := rest[:n]
	if head[0] == '=' {
		if !strings.HasPrefix(body, "txt:") {
			t.Fatalf("verbatim reply not txt: %q", raw)
		}
		body = body[4:]
	}
	return body
}

// cliNorm masks the varying fields of every line of a CLIENT LIST body.
func cliNorm(body string) string {
	lines := strings.Split(body, "\n")
	for i, line := range lines {
		fields := strings.Split(line, " ")
		for j, f := range fields {
			if k, _, ok := strings.Cut(f, "="); ok && cliMasked[k] {
				fields[j] = k + "=*"
			}
		}
		lines[i] = strings.Join(fields, " ")
	}
	return strings.Join(lines, "\n")
}

// cliField returns one field of a CLIENT INFO/LIST line.
func cliField(line, name string) string {
	for _, f := range strings.Split(strings.TrimSuffix(line, "\n"), " ") {
		if k, v, ok := strings.Cut(f, "="); ok && k == name {
			return v
		}
	}
	return ""
}

// cliSameInfo compares CLIENT LIST/INFO replies with the varying fields
// masked.
func cliSameInfo(t *testing.T) func(redis, hotkv string) {
	return func(redis, hotkv string) {
		t.Helper()
		if redis[0] != hotkv[0] {
			t.Errorf("reply types differ\n redis: %q\n hotkv: %q", redis, hotkv)
			return
		}
		r, h := cliNorm(cliBody(t, redis)), cliNorm(cliBody(t, hotkv))
		if r != h {
			t.Errorf("CLIENT LIST/INFO\n redis: %q\n hotkv: %q", r, h)
		}
	}
}

// cliInfo returns conn's own CLIENT INFO line.
func cliInfo(t *testing.T, c *difftest.Conn) string {
	t.Helper()
	return cliBody(t, c.Do("CLIENT", "INFO"))
}

func TestClientID(t *testing.T) {
	p := newPair(t)
	p.DoBoth("CLIENT ID", func(redis, hotkv string) {
		if !regexp.MustCompile(`^:[1-9]\d*\r\n$`).MatchString(hotkv) {
			t.Fatalf("CLIENT ID: %q", hotkv)
		}
	})
	_, haddr := startServer(t)
	var last int64
	for i := 0; i < 3; i++ {
		c := difftest.Dial(t, haddr)
		id := intReply(t, c.Do("CLIENT", "ID"))
		if id <= last {
			t.Fatalf("ids not increasing: %d after %d", id, last)
		}
		if again := intReply(t, c.Do("client", "id")); again != id {
			t.Fatalf("CLIENT ID changed: %d, %d", id, again)
		}
		if got := cliField(cliInfo(t, c), "id"); got != strconv.FormatInt(id, 10) {
			t.Fatalf("CLIENT INFO id=%s, CLIENT ID %d", got, id)
		}
		last = id
	}
}

func TestClientSetNameGetName(t *testing.T) {
	p := newPair(t)
	p.Run(`
		CLIENT GETNAME
		CLIENT SETNAME myname
		CLIENT GETNAME
		client setname Other-Name_1!~
		CLIENT GETNAME
		CLIENT SETNAME "a b"
		CLIENT SETNAME "a\nb"
		CLIENT SETNAME "\x7f"
		CLIENT SETNAME "\xc3\xa9"
		CLIENT GETNAME
		CLIENT SETNAME ""
		CLIENT GETNAME
		CLIENT SETNAME
		CLIENT SETNAME a b
		CLIENT GETNAME x
	`)
	p.DoBoth("CLIENT SETNAME shown", func(string, string) {})
	p.DoBoth("CLIENT INFO", cliSameInfo(t))
}

func TestClientHelp(t *testing.T) {
	p := newPair(t)
	p.Do("CLIENT HELP")
	p.Do("client help")
	p.DoBoth("HELLO 3", connSameHello(t))
	p.Do("CLIENT HELP")
}

func TestClientErrors(t *testing.T) {
	p := newPair(t)
	p.Run(`
		CLIENT
		CLIENT NOSUCH
		CLIENT LIST foo
		CLIENT LIST TYPE
		CLIENT LIST TYPE foo
		CLIENT LIST TYPE normal extra
		CLIENT LIST ID
		CLIENT LIST ID abc
		CLIENT LIST ID 1 abc
		CLIENT LIST ID 1.5
		CLIENT LIST ID 99999999999999999999
		CLIENT INFO extra
		CLIENT KILL
		CLIENT KILL 1.2.3.4:5
		CLIENT KILL nosuch
		CLIENT KILL id
		CLIENT KILL ID abc
		CLIENT KILL ID 0
		CLIENT KILL ID -1
		CLIENT KILL ID 99999999
		CLIENT KILL ID 1 TYPE
		CLIENT KILL TYPE foo
		CLIENT KILL TYPE master
		CLIENT KILL TYPE replica
		CLIENT KILL TYPE slave
		CLIENT KILL TYPE pubsub
		CLIENT KILL FOO bar
		CLIENT KILL SKIPME maybe
		CLIENT KILL SKIPME yes ID 99999999
		CLIENT KILL USER nobody
		CLIENT KILL USER DEFAULT
		CLIENT KILL ADDR 1.1.1.1:1 ID 5
		CLIENT KILL LADDR 1.1.1.1:1
		CLIENT KILL ADDR 1.1.1.1:1 SKIPME no
		CLIENT REPLY
		CLIENT REPLY foo
		CLIENT REPLY on extra
		CLIENT NO-EVICT
		CLIENT NO-EVICT maybe
		CLIENT NO-EVICT on extra
		CLIENT SETNAME
		CLIENT GETNAME extra
		CLIENT ID extra
		CLIENT HELP extra
	`)
}

func TestClientInfo(t *testing.T) {
	p := newPair(t)
	p.DoBoth("CLIENT INFO", cliSameInfo(t))
	p.Run(`
		SELECT 5
		CLIENT SETNAME infoname
		CLIENT NO-EVICT on
	`)
	p.DoBoth("CLIENT INFO", cliSameInfo(t))
	p.DoBoth("HELLO 3", connSameHello(t))
	p.DoBoth("client info", cliSameInfo(t))
	p.Run(`
		CLIENT NO-EVICT off
		SELECT 0
	`)
	p.DoBoth("HELLO 2", connSameHello(t))
	p.DoBoth("CLIENT INFO", cliSameInfo(t))

	// The fields HotKV fills itself must be plausible.
	_, haddr := startServer(t)
	c := difftest.Dial(t, haddr)
	line := cliInfo(t, c)
	if got := cliField(line, "laddr"); got != haddr {
		t.Errorf("laddr=%s, server at %s", got, haddr)
	}
	if fd, err := strconv.Atoi(cliField(line, "fd")); err != nil || fd < 0 {
		t.Errorf("fd=%s", cliField(line, "fd"))
	}
	if got := cliField(line, "qbuf"); got != "26" { // *2 $6 client $4 info
		t.Errorf("qbuf=%s", got)
	}
	if got := cliField(line, "argv-mem"); got != "10" {
		t.Errorf("argv-mem=%s", got)
	}
}

// CLIENT LIST on private servers, where the set of clients is known.
func TestClientList(t *testing.T) {
	p, raddr, haddr := privatePair(t, "")
	var rconns, hconns []*difftest.Conn
	for i := 0; i < 3; i++ {
		rc, hc := difftest.Dial(t, raddr), difftest.Dial(t, haddr)
		for _, line := range [][]string{{"CLIENT", "SETNAME", "c" + strconv.Itoa(i)}, {"SELECT", strconv.Itoa(i)}} {
			if r, h := rc.Do(line...), hc.Do(line...); r != h {
				t.Fatalf("%q: redis %q, hotkv %q", line, r, h)
			}
		}
		rconns, hconns = append(rconns, rc), append(hconns, hc)
	}
	// A connection that never sent a command shows cmd=NULL.
	difftest.Dial(t, raddr)
	difftest.Dial(t, haddr)
	waitClients(t, p, 5)

	p.DoBoth("CLIENT LIST", cliSameInfo(t))
	p.DoBoth("client list type NORMAL", cliSameInfo(t))
	p.Run(`
		CLIENT LIST TYPE master
		CLIENT LIST TYPE replica
		CLIENT LIST TYPE slave
		CLIENT LIST TYPE pubsub
		CLIENT LIST ID 99999
		CLIENT LIST ID -1 0
	`)
	// CLIENT LIST ID lists the given clients in argument order, skipping
	// unknown ids.
	rid := func(c *difftest.Conn) string { return cliField(cliInfo(t, c), "id") }
	r0, r2, h0, h2 := rid(rconns[0]), rid(rconns[2]), rid(hconns[0]), rid(hconns[2])
	check := cliSameInfo(t)
	check(p.Redis.Do("CLIENT", "LIST", "ID", r2, "99999", r0, r2), p.HotKV.Do("CLIENT", "LIST", "ID", h2, "99999", h0, h2))
	p.DoBoth("HELLO 3", connSameHello(t))
	p.DoBoth("CLIENT LIST", cliSameInfo(t))
	check(p.Redis.Do("CLIENT", "LIST", "ID", r0), p.HotKV.Do("CLIENT", "LIST", "ID", h0))
}

// waitClients waits until both servers list n clients (closed connections
// leave asynchronously).
func waitClients(t *testing.T, p *difftest.Pair, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; {
		r := strings.Count(cliBody(t, p.Redis.Do("CLIENT", "LIST")), "\n")
		h := strings.Count(cliBody(t, p.HotKV.Do("CLIENT", "LIST")), "\n")
		if r == n && h == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("want %d clients; redis has %d, hotkv %d", n, r, h)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// cliClosed fails unless the server closed c.
func cliClosed(t *testing.T, c *difftest.Conn, who string) {
	t.Helper()
	if r, err := c.ReadErr(5 * time.Second); err == nil {
		t.Errorf("%s: connection still open, got %q", who, r)
	}
}

func TestClientKill(t *testing.T) {
	p, raddr, haddr := privatePair(t, "")
	type victim struct{ r, h *difftest.Conn }
	newVictim := func() victim {
		v := victim{difftest.Dial(t, raddr), difftest.Dial(t, haddr)}
		v.r.Do("PING")
		v.h.Do("PING")
		return v
	}
	// both runs a command built per server from a victim's field.
	both := func(v victim, field string, build func(val string) []string) {
		t.Helper()
		want := p.Redis.Do(build(cliField(cliInfo(t, v.r), field))...)
		got := p.HotKV.Do(build(cliField(cliInfo(t, v.h), field))...)
		if want != got {
			t.Errorf("%q\n redis: %q\n hotkv: %q", build(field), want, got)
		}
	}

	// Old form: by address; a second time there is no such client.
	v := newVictim()
	ra, ha := cliField(cliInfo(t, v.r), "addr"), cliField(cliInfo(t, v.h), "addr")
	for i := 0; i < 2; i++ {
		if r, h := p.Redis.Do("CLIENT", "KILL", ra), p.HotKV.Do("CLIENT", "KILL", ha); r != h {
			t.Errorf("CLIENT KILL addr (%d)\n redis: %q\n hotkv: %q", i, r, h)
		}
		cliClosed(t, v.r, "redis")
		cliClosed(t, v.h, "hotkv")
	}

	// Filters.
	v = newVictim()
	both(v, "id", func(id string) []string { return []string{"CLIENT", "KILL", "ID", id} })
	cliClosed(t, v.r, "redis")
	cliClosed(t, v.h, "hotkv")
	v = newVictim()
	both(v, "addr", func(a string) []string { return []string{"CLIENT", "KILL", "ADDR", a, "ID", "99999"} })
	both(v, "addr", func(a string) []string {
		return []string{"client", "kill", "addr", a, "type", "normal", "user", "default"}
	})
	cliClosed(t, v.r, "redis")
	cliClosed(t, v.h, "hotkv")
	v = newVictim()
	both(v, "laddr", func(a string) []string { return []string{"CLIENT", "KILL", "LADDR", a, "ID", "99999"} })
	both(v, "id", func(id string) []string { return []string{"CLIENT", "KILL", "ID", id, "SKIPME", "yes"} })
	cliClosed(t, v.r, "redis")
	cliClosed(t, v.h, "hotkv")

	// TYPE normal kills every other client; the caller survives.
	v, v2 := newVictim(), newVictim()
	waitClients(t, p, 3)
	p.Do("CLIENT KILL TYPE normal")
	cliClosed(t, v.r, "redis")
	cliClosed(t, v.h, "hotkv")
	cliClosed(t, v2.r, "redis")
	cliClosed(t, v2.h, "hotkv")
	p.Do("PING")
	waitClients(t, p, 1)
	p.DoBoth("CLIENT LIST", cliSameInfo(t))

	// LADDR of every client, SKIPME yes: the others only.
	v = newVictim()
	waitClients(t, p, 2)
	both(v, "laddr", func(a string) []string { return []string{"CLIENT", "KILL", "LADDR", a} })
	p.Do("PING")
}

// A client can kill itself: the old form always may, the filter form with
// SKIPME no. It gets its reply, then the connection closes.
func TestClientKillSelf(t *testing.T) {
	p, raddr, haddr := privatePair(t, "")
	addr := func(c *difftest.Conn) string { return cliField(cliInfo(t, c), "addr") }
	for _, form := range []func(addr, id string) []string{
		func(addr, id string) []string { return []string{"CLIENT", "KILL", addr} },
		func(addr, id string) []string { return []string{"CLIENT", "KILL", "ID", id, "SKIPME", "no"} },
		func(addr, id string) []string { return []string{"CLIENT", "KILL", "USER", "default", "SKIPME", "NO"} },
	} {
		rc, hc := difftest.Dial(t, raddr), difftest.Dial(t, haddr)
		want := rc.Do(form(addr(rc), cliField(cliInfo(t, rc), "id"))...)
		got := hc.Do(form(addr(hc), cliField(cliInfo(t, hc), "id"))...)
		if want != got {
			t.Errorf("%q\n redis: %q\n hotkv: %q", form("ADDR", "ID"), want, got)
		}
		cliClosed(t, rc, "redis")
		cliClosed(t, hc, "hotkv")
	}
	_ = p
	// SKIPME yes (the default) spares the caller even when it matches.
	rc, hc := difftest.Dial(t, raddr), difftest.Dial(t, haddr)
	want := rc.Do("CLIENT", "KILL", "ID", cliField(cliInfo(t, rc), "id"))
	got := hc.Do("CLIENT", "KILL", "ID", cliField(cliInfo(t, hc), "id"))
	if want != got || want != ":0\r\n" {
		t.Errorf("skipme: redis %q, hotkv %q", want, got)
	}
}

func TestClientReply(t *testing.T) {
	p := newPair(t)
	// OFF: nothing until ON, whose +OK is the next reply.
	for _, c := range []*difftest.Conn{p.Redis, p.HotKV} {
		c.Send([]byte("CLIENT REPLY OFF\r\nPING\r\nSET k v\r\nGET k\r\nCLIENT REPLY SKIP\r\nPING\r\nCLIENT REPLY ON\r\nGET k\r\n"))
	}
	for i := 0; i < 2; i++ {
		if r, h := p.Redis.Read(), p.HotKV.Read(); r != h {
			t.Errorf("reply %d: redis %q, hotkv %q", i, r, h)
		}
	}
	p.Do("client reply on")
	p.Do("PING")
}

// CLIENT REPLY SKIP silences itself and the next command only.
func TestClientReplySkip(t *testing.T) {
	p := newPair(t)
	for _, c := range []*difftest.Conn{p.Redis, p.HotKV} {
		c.Send([]byte("CLIENT REPLY SKIP\r\nECHO skipped\r\nECHO one\r\n" +
			"CLIENT REPLY SKIP\r\nCLIENT REPLY SKIP\r\nECHO skipped\r\nECHO two\r\n" +
			"CLIENT REPLY SKIP\r\nCLIENT REPLY ON\r\nECHO three\r\n" +
			"CLIENT REPLY SKIP\r\nCLIENT REPLY OFF\r\nECHO skipped\r\nCLIENT REPLY ON\r\nECHO four\r\n"))
	}
	for i := 0; i < 6; i++ {
		if r, h := p.Redis.Read(), p.HotKV.Read(); r != h {
			t.Fatalf("reply %d: redis %q, hotkv %q", i, r, h)
		}
	}
}

// Commands rejected before they run (unknown, wrong arity) are silenced
// by CLIENT REPLY OFF and SKIP too.
func TestClientReplyRejected(t *testing.T) {
	p := newPair(t)
	for _, c := range []*difftest.Conn{p.Redis, p.HotKV} {
		c.Send([]byte("CLIENT REPLY OFF\r\nNOSUCH\r\nGET\r\nCLIENT REPLY ON\r\n" +
			"CLIENT REPLY SKIP\r\nNOSUCH\r\nECHO after\r\n"))
	}
	for i := 0; i < 2; i++ {
		if r, h := p.Redis.Read(), p.HotKV.Read(); r != h {
			t.Fatalf("reply %d: redis %q, hotkv %q", i, r, h)
		}
	}
}

func TestClientNoEvict(t *testing.T) {
	p := newPair(t)
	p.Run(`
		CLIENT NO-EVICT on
		CLIENT NO-EVICT ON
	`)
	p.DoBoth("CLIENT INFO", cliSameInfo(t))
	p.Run(`
		CLIENT NO-EVICT OFF
		client no-evict off
	`)
	p.DoBoth("CLIENT INFO", cliSameInfo(t))
}

// CLIENT NO-TOUCH and CLIENT SETINFO are Redis 7.2 commands: the Redis
// 7.0.15 oracle knows neither, so they are checked against 7.2's
// documented behaviour, HotKV alone.
func TestClientNoTouchSetInfo72(t *testing.T) {
	p := newPair(t)
	if r := p.Redis.Do("CLIENT", "NO-TOUCH", "on"); !strings.HasPrefix(r, "-ERR unknown subcommand") {
		t.Logf("the oracle knows CLIENT NO-TOUCH now: %q", r)
	}
	c := difftest.Dial(t, sharedHotKV(t))
	for _, tc := range []struct{ cmd, want string }{
		{"CLIENT NO-TOUCH on", "+OK\r\n"},
		{"CLIENT INFO", "flags=T "},
		{"client no-touch OFF", "+OK\r\n"},
		{"CLIENT INFO", "flags=N "},
		{"CLIENT NO-TOUCH maybe", "-ERR syntax error\r\n"},
		{"CLIENT NO-TOUCH", "-ERR wrong number of arguments for 'client|no-touch' command\r\n"},
		{"CLIENT NO-TOUCH on", "+OK\r\n"},
		{"CLIENT NO-EVICT on", "+OK\r\n"},
		{"CLIENT INFO", "flags=eT "},
		{"RESET", "+RESET\r\n"},
		{"CLIENT INFO", "flags=e "}, // RESET clears NO-TOUCH (7.2), keeps NO-EVICT (7.0)
		{"CLIENT SETINFO LIB-NAME go-redis(v9)", "+OK\r\n"},
		{"CLIENT SETINFO lib-ver 9.0.5", "+OK\r\n"},
		{"CLIENT SETINFO lib-name \"\"", "+OK\r\n"},
		{"CLIENT SETINFO LIB-NAME \"a b\"", "-ERR LIB-NAME cannot contain spaces, newlines or special characters.\r\n"},
		{"CLIENT SETINFO lib-ver \"1\n\"", "-ERR lib-ver cannot contain spaces, newlines or special characters.\r\n"},
		{"CLIENT SETINFO foo bar", "-ERR Unrecognized option 'foo'\r\n"},
		{"CLIENT SETINFO lib-name", "-ERR wrong number of arguments for 'client|setinfo' command\r\n"},
		{"CLIENT SETINFO lib-name a b", "-ERR wrong number of arguments for 'client|setinfo' command\r\n"},
	} {
		r := c.Do(difftest.Split(tc.cmd)...)
		if tc.cmd == "CLIENT INFO" {
			if !strings.Contains(r, " "+tc.want) {
				t.Errorf("%s: want %q in %q", tc.cmd, tc.want, r)
			}
		} else if r != tc.want {
			t.Errorf("%s: got %q, want %q", tc.cmd, r, tc.want)
		}
	}
}

// NO-TOUCH reads leave a key's idle time alone; normal reads reset it.
func TestClientNoTouchIdle(t *testing.T) {
	s, addr := startServer(t)
	c := difftest.Dial(t, addr)
	c.Do("SET", "k", "v")
	idle := func() int64 {
		e := s.dbs[0].Peek([]byte("k"))
		if e == nil {
			t.Fatal("key missing")
		}
		return e.IdleSeconds()
	}
	// The access clock has a one-second resolution and lags up to 1/hz:
	// 2.1 s leave an idle time of at least 2 that a touch would reset to
	// at most 1.
	time.Sleep(2100 * time.Millisecond)
	c.Do("CLIENT", "NO-TOUCH", "on")
	c.Do("GET", "k")
	if n := idle(); n < 2 {
		t.Errorf("GET under NO-TOUCH reset the idle time (%d)", n)
	}
	c.Do("CLIENT", "NO-TOUCH", "off")
	c.Do("GET", "k")
	if n := idle(); n > 1 {
		t.Errorf("GET without NO-TOUCH left idle time %d", n)
	}
}

var monitorLineRe = regexp.MustCompile(`^\+(\d+)\.(\d{6}) \[(\d+) ([^\]]+)\] (.*)\r\n$`)

// cliMonitorLines reads monitor lines until one contains marker and
// returns them as "[db] args", checking the timestamp and the address.
func cliMonitorLines(t *testing.T, m *difftest.Conn, addr, marker string) []string {
	t.Helper()
	var out []string
	for {
		line := m.Read()
		g := monitorLineRe.FindStringSubmatch(line)
		if g == nil {
			t.Fatalf("not a monitor line: %q", line)
		}
		if sec, _ := strconv.ParseInt(g[1], 10, 64); sec < time.Now().Unix()-60 || sec > time.Now().Unix()+1 {
			t.Errorf("timestamp %s.%s is not now", g[1], g[2])
		}
		if g[4] == "lua" { // a command a script ran
			out = append(out, "["+g[3]+" lua] "+g[5])
			continue
		}
		if g[4] != addr {
			t.Errorf("address %s, client at %s", g[4], addr)
		}
		out = append(out, "["+g[3]+"] "+g[5])
		if strings.Contains(line, marker) {
			return out
		}
	}
}

func TestClientMonitor(t *testing.T) {
	_, raddr, haddr := privatePair(t, "")
	var feeds [2][]string
	for i, addr := range []string{raddr, haddr} {
		m, c := difftest.Dial(t, addr), difftest.Dial(t, addr)
		caddr := cliField(cliInfo(t, c), "addr")
		if r := m.Do("MONITOR"); r != "+OK\r\n" {
			t.Fatalf("MONITOR: %q", r)
		}
		for _, line := range []string{
			`SET k "a b\x00\n\"\\\xff"`,
			"GET k",
			"SELECT 1",
			"GET k",
			"SELECT 99",
			"SELECT x",
			"select 0",
			"AUTH secret",
			"AUTH user secret",
			"AUTH a b c",
			"HELLO 2 AUTH default secret",
			"HELLO 3 AUTH nobody secret AUTH default secret2",
			"HELLO 2 AUTH default",
			"HELLO 4 AUTH a b",
			"HELLO 2 SETNAME \"bad name\" AUTH default secret",
			"HELLO 2 SETNAME good AUTH default secret",
			"CLIENT LIST",
			"CLIENT KILL ID 99999",
			"CLIENT SETNAME monitored",
			"CLIENT INFO",
			`EVAL "redis.call('set', KEYS[1], 1) redis.call('select', 2) return redis.call('get', KEYS[1])" 1 x`,
			`EVAL "return redis.call('nosuch')" 0`,
			"NOSUCHCOMMAND arg",
			"GET",
			"PING",
			"ECHO ''",
			"RESET",
			"ECHO end-marker",
		} {
			c.Do(difftest.Split(line)...)
		}
		feeds[i] = cliMonitorLines(t, m, caddr, "end-marker")

		// A second MONITOR gets no reply.
		m.Send([]byte("MONITOR\r\n"))
		time.Sleep(50 * time.Millisecond)
		c.Do("ECHO", "second-marker")
		if got := cliMonitorLines(t, m, caddr, "second-marker"); len(got) != 1 {
			t.Errorf("after a second MONITOR: %q", got)
		}
		// RESET ends MONITOR mode: its +RESET comes after the lines fed
		// before it, and no line after.
		if r := m.Do("RESET"); r != "+RESET\r\n" {
			t.Fatalf("RESET from the monitor: %q", r)
		}
		c.Do("SET", "after", "reset")
		if r := m.Do("PING"); r != "+PONG\r\n" {
			t.Errorf("monitor after RESET: PING replied %q", r)
		}
	}
	if strings.Join(feeds[0], "\n") != strings.Join(feeds[1], "\n") {
		t.Errorf("MONITOR feeds differ\n redis:\n%s\n hotkv:\n%s", strings.Join(feeds[0], "\n"), strings.Join(feeds[1], "\n"))
	}
}

// A monitor that leaves (closes its connection) stops being fed; the
// server keeps serving.
func TestClientMonitorClose(t *testing.T) {
	s, addr := startServer(t)
	m, c := difftest.Dial(t, addr), difftest.Dial(t, addr)
	if r := m.Do("MONITOR"); r != "+OK\r\n" {
		t.Fatalf("MONITOR: %q", r)
	}
	c.Do("PING")
	m.Read()
	c.Do("CLIENT", "KILL", "TYPE", "normal")
	cliClosed(t, m, "monitor")
	for deadline := time.Now().Add(5 * time.Second); s.monitors.Load() != 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("monitor still registered")
		}
	}
	if r := c.Do("PING"); r != "+PONG\r\n" {
		t.Fatalf("PING: %q", r)
	}
}

// TestQueryBufferResized: another client's CLIENT LIST shows a client's
// query buffer (qbuf + qbuf-free) as Redis does: 16 KB when it is fresh,
// freed once the client is idle for over 2 seconds, grown by a large
// command and cut back to the recent peak by the cron when smaller ones
// follow.
func TestQueryBufferResized(t *testing.T) {
	_, addr := startServer(t)
	c, probe := difftest.Dial(t, addr), difftest.Dial(t, addr)
	c.Do("CLIENT", "SETNAME", "test_client")
	size := func() int {
		for _, line := range strings.Split(probe.Do("CLIENT", "LIST"), "\n") {
			if strings.Contains(line, "name=test_client ") {
				q, _ := strconv.Atoi(cliField(line, "qbuf"))
				f, _ := strconv.Atoi(cliField(line, "qbuf-free"))
				return q + f
			}
		}
		t.Fatal("test_client not in CLIENT LIST")
		return 0
	}
	if n := size(); n < 16384 || n >= 32768 {
		t.Errorf("fresh client's query buffer: %d", n)
	}
	deadline := time.Now().Add(6 * time.Second)
	for size() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("idle client's query buffer not freed: %d", size())
		}
		time.Sleep(100 * time.Millisecond)
	}
	c.Do("SET", "x", strings.Repeat("A", 400000))
	big := size()
	if big <= 32768 {
		t.Errorf("after a 400 KB SET: %d", big)
	}
	// Smaller commands let the cron cut it back to their peak, not to 0.
	deadline = time.Now().Add(3 * time.Second)
	for {
		c.Do("SET", "x", strings.Repeat("A", 100))
		if n := size(); n < big {
			if n == 0 {
				t.Errorf("shrunk to 0 while in use")
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("query buffer of %d not shrunk", big)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestNormalOutputLimit: a normal client whose reply passes the normal
// class's client-output-buffer-limit hard limit is closed without it — a
// huge HRANDFIELD, SRANDMEMBER or ZRANDMEMBER stops mid-run instead of
// building gigabytes (Redis's unit/obuf-limits stalled on it) — and the
// server serves the next client; under the limit nothing changes.
func TestNormalOutputLimit(t *testing.T) {
	_, hotkv := startServer(t)
	c := difftest.Dial(t, hotkv)
	c.Do("HSET", "h", "a", "b")
	c.Do("SADD", "s", "a")
	c.Do("ZADD", "z", "1", "a")
	if got := c.Do("HRANDFIELD", "h", "-3"); got != "*3\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n" {
		t.Fatalf("HRANDFIELD under no limit: %q", got)
	}
	c.Do("CONFIG", "SET", "client-output-buffer-limit", "normal 1000000 0 0")
	for _, cmd := range [][]string{{"HRANDFIELD", "h", "-999999999"}, {"SRANDMEMBER", "s", "-999999999"},
		{"ZRANDMEMBER", "z", "-999999999"}} {
		start := time.Now()
		b := difftest.Dial(t, hotkv)
		b.Send(difftest.Encode(cmd...))
		if got, err := b.ReadErr(10 * time.Second); err == nil {
			t.Errorf("%q answered %.40q", cmd, got)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%q took %v", cmd, d)
		}
	}
	if got := c.Do("PING"); got != "+PONG\r\n" {
		t.Errorf("PING after: %q", got)
	}
	c.Do("CONFIG", "SET", "client-output-buffer-limit", "normal 0 0 0")
}
