package server

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
	"github.com/hotkv/hotkv/keyspace"
)

// bhvPair starts a private redis-server and a private HotKV with the same
// "--directive value" arguments and returns a pair over them, the HotKV
// server and both addresses.
func bhvPair(t *testing.T, args ...string) (p *difftest.Pair, srv *Server, raddr, haddr string) {
	t.Helper()
	if shared.redisErr != nil {
		newPair(t) // skips or fails as the shared pair does
	}
	raddr = difftest.StartRedis(t, args...)
	srv, haddr = startServer(t, args...)
	return difftest.NewPair(t, raddr, haddr), srv, raddr, haddr
}

// bhvField returns the value of field in a raw INFO reply ("" if absent).
func bhvField(raw, field string) string {
	i := strings.Index(raw, "\n"+field+":")
	if i < 0 {
		return ""
	}
	v := raw[i+len(field)+2:]
	if j := strings.IndexByte(v, '\r'); j >= 0 {
		v = v[:j]
	}
	return v
}

// bhvSameFields runs INFO <section> on both servers and compares the
// named fields.
func bhvSameFields(t *testing.T, p *difftest.Pair, section string, fields ...string) {
	t.Helper()
	p.DoBoth("INFO "+section, func(r, h string) {
		t.Helper()
		for _, f := range fields {
			if rv, hv := bhvField(r, f), bhvField(h, f); rv != hv || rv == "" {
				t.Errorf("INFO %s: %s: redis %q, hotkv %q", section, f, rv, hv)
			}
		}
	})
}

// bhvSection returns the field lines of an INFO section in a raw reply,
// each ending in CRLF ("" for an empty section).
func bhvSection(t *testing.T, raw, title string) string {
	t.Helper()
	i := strings.Index(raw, "# "+title+"\r\n")
	if i < 0 {
		t.Fatalf("no section %q in %q", title, raw)
	}
	var b strings.Builder
	for _, line := range strings.Split(raw[i+len(title)+4:], "\r\n") {
		if line == "" || strings.HasPrefix(line, "# ") {
			break
		}
		b.WriteString(line + "\r\n")
	}
	return b.String()
}

// total_commands_processed counts a command once it ran (INFO does not
// count itself, rejected commands are not counted), also inside a
// pipeline; total_error_replies counts every error.
func TestBehaviourTotalCommands(t *testing.T) {
	p, _, _, _ := bhvPair(t)
	p.Run(`
		CONFIG RESETSTAT
		PING
		NOSUCHCOMMAND a b
		GET
		CONFIG NOSUCHSUB
		SET k v
		GET k
		GET missing
		INCR k
		SET k v EX 0
	`)
	bhvSameFields(t, p, "stats", "total_commands_processed", "total_error_replies",
		"keyspace_hits", "keyspace_misses", "expired_keys", "evicted_keys")
	// A pipeline: the commands before INFO count, INFO itself does not.
	pipe := difftest.Encode("PING")
	pipe = append(pipe, difftest.Encode("GET", "k")...)
	pipe = append(pipe, difftest.Encode("GET", "nokey")...)
	pipe = append(pipe, difftest.Encode("NOSUCH")...)
	pipe = append(pipe, difftest.Encode("INFO", "stats")...)
	pipe = append(pipe, difftest.Encode("CONFIG", "RESETSTAT")...)
	pipe = append(pipe, difftest.Encode("PING")...)
	pipe = append(pipe, difftest.Encode("INFO", "stats")...)
	var replies [2][]string
	for i, c := range []*difftest.Conn{p.Redis, p.HotKV} {
		c.Send(pipe)
		for range 8 {
			replies[i] = append(replies[i], c.Read())
		}
	}
	for _, i := range []int{4, 7} {
		for _, f := range []string{"total_commands_processed", "total_error_replies", "keyspace_hits", "keyspace_misses"} {
			if r, h := bhvField(replies[0][i], f), bhvField(replies[1][i], f); r != h {
				t.Errorf("pipelined INFO #%d: %s: redis %q, hotkv %q", i, f, r, h)
			}
		}
	}
	bhvSameFields(t, p, "stats", "total_commands_processed", "total_error_replies")
}

// INFO errorstats counts the error replies by code, resets with CONFIG
// RESETSTAT, and counts protocol errors too.
func TestBehaviourErrorStats(t *testing.T) {
	p, srv, raddr, haddr := bhvPair(t)
	// HotKV has no list commands yet: inject the list on its side.
	p.Redis.Do("RPUSH", "list", "x")
	srv.dbs[0].Set([]byte("list"), keyspace.NewObject([]byte("list"), keyspace.KindList, nil))
	p.Run(`
		CONFIG RESETSTAT
		INFO errorstats
		SET k v
		INCR k
		SET k v XX NX
		NOSUCHCOMMAND
		GET
		CONFIG NOSUCHSUB
		GET list
		STRLEN list
		AUTH wrong
		AUTH default wrong
		INFO errorstats
	`)
	bhvSameFields(t, p, "stats", "total_error_replies")
	// OOM and NOAUTH, on the same servers.
	p.Run(`
		CONFIG SET maxmemory 1
		SET k v
		GET k
		CONFIG SET maxmemory 0
		CONFIG SET requirepass secret
	`)
	for _, addr := range []string{raddr, haddr} {
		c := difftest.Dial(t, addr)
		c.Do("PING")
		c.Do("GET", "k")
	}
	p.Run(`
		CONFIG SET requirepass ""
		INFO errorstats
	`)
	// Protocol errors count as ERR.
	for _, addr := range []string{raddr, haddr} {
		c := difftest.Dial(t, addr)
		c.Send([]byte("*1\r\n$4\r\nPING\r\n*x\r\n"))
		c.Read()
		c.Read()
	}
	p.Do("INFO errorstats")
	bhvSameFields(t, p, "stats", "total_error_replies")
	p.Run(`
		CONFIG RESETSTAT
		INFO errorstats
		GET
		INFO errorstats
	`)
	bhvSameFields(t, p, "stats", "total_error_replies")
}

// keyspace_hits and keyspace_misses, and expired_keys for keys removed
// lazily (active expiry off on both sides).
func TestBehaviourKeyspaceStats(t *testing.T) {
	p, _, _, _ := bhvPair(t, "--enable-debug-command", "yes")
	p.Run(`
		DEBUG SET-ACTIVE-EXPIRE 0
		CONFIG RESETSTAT
		SET a v PX 1
		SET b v PX 1
		SET c v PX 1
		SET d v PX 1
		SET e v PX 1
		SET f v PX 1
		SET g v PX 1
		SET live v
	`)
	time.Sleep(20 * time.Millisecond)
	p.Run(`
		GET a
		SET b v2
		DEL c
		EXISTS d
		TYPE e
		STRLEN f
		GET live
		MGET live nokey live
		EXISTS live nokey
		STRLEN live
		GETRANGE live 0 -1
		DBSIZE
	`)
	bhvSameFields(t, p, "stats", "expired_keys", "keyspace_hits", "keyspace_misses",
		"total_commands_processed", "evicted_keys", "expired_time_cap_reached_count")
	p.Do("DEBUG SET-ACTIVE-EXPIRE 1")
}

// `timeout`: the cron closes clients idle for longer, not MONITOR clients
// nor clients that keep talking; CONFIG SET timeout takes effect at once.
func TestBehaviourTimeout(t *testing.T) {
	p, _, raddr, haddr := bhvPair(t)
	p.Do("CONFIG SET timeout 1")
	type clients struct{ idle, busy, monitor *difftest.Conn }
	var cs [2]clients
	for i, addr := range []string{raddr, haddr} {
		cs[i] = clients{difftest.Dial(t, addr), difftest.Dial(t, addr), difftest.Dial(t, addr)}
		cs[i].idle.Do("PING")
		if r := cs[i].monitor.Do("MONITOR"); r != "+OK\r\n" {
			t.Fatalf("MONITOR: %q", r)
		}
	}
	var wg sync.WaitGroup
	for i := range cs {
		wg.Add(1)
		go func(c *difftest.Conn) {
			defer wg.Done()
			for range 12 {
				c.Do("PING")
				time.Sleep(300 * time.Millisecond)
			}
		}(cs[i].busy)
	}
	wg.Wait() // 3.6 s: past the 1 s timeout, rounded to seconds, and a cron check
	for i, who := range []string{"redis", "hotkv"} {
		if r, err := cs[i].idle.ReadErr(2 * time.Second); err == nil {
			t.Errorf("%s: idle client got %q, want the connection closed", who, r)
		}
		cs[i].busy.Send(difftest.Encode("PING"))
		if r, err := cs[i].busy.ReadErr(2 * time.Second); r != "+PONG\r\n" {
			t.Errorf("%s: busy client: %q, %v", who, r, err)
		}
		// The monitor is still open: it saw the busy client's commands.
		if r, err := cs[i].monitor.ReadErr(2 * time.Second); err != nil || !strings.Contains(r, `"PING"`) {
			t.Errorf("%s: monitor client: %q, %v", who, r, err)
		}
	}
	// The pair's own connections were idle too.
	for _, c := range []*difftest.Conn{p.Redis, p.HotKV} {
		if _, err := c.ReadErr(2 * time.Second); err == nil {
			t.Error("the pair's idle connection is still open")
		}
	}
}

// maxclients refuses the connections over the limit with Redis's error and
// counts them in rejected_connections; CONFIG SET maxclients applies to the
// next connection.
func TestBehaviourMaxClients(t *testing.T) {
	p, _, raddr, haddr := bhvPair(t, "--maxclients", "3")
	// The pair holds one connection to each; two more are accepted, a
	// fourth is not.
	for _, addr := range []string{raddr, haddr} {
		for range 2 {
			if r := difftest.Dial(t, addr).Do("PING"); r != "+PONG\r\n" {
				t.Fatalf("%s: client under the limit: %q", addr, r)
			}
		}
		fourth := difftest.Dial(t, addr)
		r, err := fourth.ReadErr(5 * time.Second)
		if r != "-ERR max number of clients reached\r\n" {
			t.Errorf("%s: fourth client got %q, %v", addr, r, err)
		}
		if r, err := fourth.ReadErr(5 * time.Second); err == nil {
			t.Errorf("%s: fourth client not closed: %q", addr, r)
		}
	}
	bhvSameFields(t, p, "stats", "rejected_connections")
	bhvSameFields(t, p, "clients", "maxclients")
	p.Do("CONFIG SET maxclients 10")
	for _, addr := range []string{raddr, haddr} {
		if r := difftest.Dial(t, addr).Do("PING"); r != "+PONG\r\n" {
			t.Errorf("%s: after CONFIG SET maxclients 10: %q", addr, r)
		}
	}
}

// requirepass set at runtime: existing connections stay authenticated, new
// ones need AUTH; clearing it lets new connections in again.
func TestBehaviourRequirepass(t *testing.T) {
	p, _, raddr, haddr := bhvPair(t)
	p.Do("CONFIG SET requirepass secret")
	p.Run(`
		PING
		SET k v
		GET k
	`)
	// NewPair's FLUSHALL is refused (NOAUTH) on both sides.
	p2 := difftest.NewPair(t, raddr, haddr)
	p2.Run(`
		PING
		GET k
		AUTH wrong
		PING
		AUTH secret
		PING
		GET k
	`)
	p.Do(`CONFIG SET requirepass ""`)
	p3 := difftest.NewPair(t, raddr, haddr)
	p3.Run(`
		PING
		GET k
	`)
}

// slowlog-log-slower-than and slowlog-max-len apply from the next command.
func TestBehaviourSlowlogConfig(t *testing.T) {
	p, _, _, _ := bhvPair(t)
	p.Run(`
		CONFIG SET slowlog-log-slower-than 0
		SLOWLOG RESET
		PING
		SET k v
		SLOWLOG LEN
		CONFIG SET slowlog-max-len 2
		SLOWLOG LEN
		PING
		SLOWLOG LEN
		CONFIG SET slowlog-log-slower-than -1
		PING
		SLOWLOG LEN
		CONFIG SET slowlog-log-slower-than 10000000
		SLOWLOG RESET
		PING
		SLOWLOG LEN
		CONFIG SET slowlog-log-slower-than 0
		CONFIG SET slowlog-max-len 0
		PING
		SLOWLOG LEN
	`)
	p.Run(`
		CONFIG SET slowlog-log-slower-than 10000
		CONFIG SET slowlog-max-len 128
	`)
}

// maxmemory set at runtime: write commands get OOM above it, reads still
// run; back to 0 writes run again.
func TestBehaviourMaxmemoryConfig(t *testing.T) {
	p, _, _, _ := bhvPair(t)
	p.Run(`
		SET k v
		CONFIG SET maxmemory 1
		SET k2 v
		APPEND k x
		INCR n
		GET k
		DEL k
		CONFIG SET maxmemory 0
		SET k2 v
		GET k2
	`)
	bhvSameFields(t, p, "memory", "maxmemory")
}

// hz: CONFIG SET clamps to 1-500 like Redis, INFO reports it, and the cron
// follows the new frequency at once.
func TestBehaviourHz(t *testing.T) {
	p, srv, raddr, haddr := bhvPair(t, "--hz", "1")
	bhvSameFields(t, p, "server", "hz", "configured_hz")
	p.Run(`
		CONFIG SET hz 1000
		CONFIG GET hz
		CONFIG SET hz 0
		CONFIG GET hz
		CONFIG SET hz -1
	`)
	ticks := func(d time.Duration) int64 {
		n := srv.cronTicks.Load()
		time.Sleep(d)
		return srv.cronTicks.Load() - n
	}
	time.Sleep(1100 * time.Millisecond) // the pending 1 Hz tick
	if n := ticks(1500 * time.Millisecond); n < 1 || n > 2 {
		t.Errorf("hz 1: %d ticks in 1.5 s", n)
	}
	p.Do("CONFIG SET hz 100")
	time.Sleep(1100 * time.Millisecond) // the pending 1 Hz tick
	if n := ticks(500 * time.Millisecond); n < 25 || n > 60 {
		t.Errorf("hz 100: %d ticks in 0.5 s", n)
	}
	bhvSameFields(t, p, "server", "hz", "configured_hz")
	// dynamic-hz: over 200 clients per tick, the cron runs faster (hz
	// doubles) while configured_hz stays.
	p.Do("CONFIG SET hz 1")
	for _, addr := range []string{raddr, haddr} {
		for range maxClientsPerCronTick + 1 {
			difftest.Dial(t, addr)
		}
	}
	time.Sleep(2200 * time.Millisecond) // a 1 Hz cron run on both
	bhvSameFields(t, p, "server", "hz", "configured_hz")
	p.DoBoth("INFO server", func(r, h string) {
		if got := bhvField(h, "hz"); got != "2" {
			t.Errorf("dynamic hz with %d clients: %q, want 2", maxClientsPerCronTick+2, got)
		}
	})
}
