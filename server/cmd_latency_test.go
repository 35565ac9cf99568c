package server

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// TestLatencyAgainstRedis: the LATENCY replies that do not depend on
// timing match redis-server's byte for byte.
func TestLatencyAgainstRedis(t *testing.T) {
	p := newPair(t)
	p.Run(`
		CONFIG SET latency-monitor-threshold 0
		LATENCY RESET
		LATENCY HELP
		LATENCY HELP xxx
		LATENCY
		LATENCY foo
		LATENCY LATEST
		LATENCY LATEST x
		LATENCY HISTORY
		LATENCY HISTORY blabla
		LATENCY GRAPH blabla
		LATENCY GRAPH
		LATENCY RESET blabla
		LATENCY RESET blabla other
		LATENCY DOCTOR
		CONFIG RESETSTAT
		LATENCY HISTOGRAM blabla
		LATENCY HISTOGRAM blabla blabla2
		LATENCY HISTOGRAM a|b|c
	`)
	srvHello(p, "3")
	p.Run(`
		LATENCY LATEST
		LATENCY HISTORY blabla
		LATENCY DOCTOR
	`)
	srvHello(p, "2")
}

// TestLatencyHistogram: every command run since CONFIG RESETSTAT has a
// histogram — plain, queued in MULTI, called by a script — with the
// bucket keys Redis's hdr_histogram gives; containers name their
// subcommands.
func TestLatencyHistogram(t *testing.T) {
	_, addr := startServer(t)
	c := difftest.Dial(t, addr)
	c.Do("CONFIG", "RESETSTAT")
	if got := c.Do("LATENCY", "HISTOGRAM"); !strings.HasPrefix(got, "*2\r\n$16\r\nconfig|resetstat\r\n*4\r\n$5\r\ncalls\r\n:1\r\n$14\r\nhistogram_usec\r\n*") {
		t.Errorf("after CONFIG RESETSTAT: %q", got)
	}
	c.Do("SET", "a", "b")
	c.Do("SET", "c", "d")
	c.Do("MULTI")
	c.Do("SET", "e", "f")
	c.Do("EXEC")
	c.Do("EVAL", "return redis.call('SET', 'g', 'h')", "0")
	c.Do("CLIENT", "ID")
	c.Do("CLIENT", "INFO")
	got := c.Do("LATENCY", "HISTOGRAM", "set", "client", "nosuch", "CLIENT|ID")
	calls := regexp.MustCompile(`\$(\d+)\r\n([a-z|]+)\r\n\*4\r\n\$5\r\ncalls\r\n:(\d+)\r\n`).FindAllStringSubmatch(got, -1)
	var seen []string
	for _, m := range calls {
		seen = append(seen, m[2]+"="+m[3])
	}
	if want := "set=4 client|id=1 client|info=1 client|id=1"; strings.Join(seen, " ") != want {
		t.Errorf("LATENCY HISTOGRAM set client nosuch CLIENT|ID: %s, want %s\n%q", strings.Join(seen, " "), want, got)
	}
	// Every bucket key is one Redis can report.
	keys := map[string]bool{}
	for _, k := range strings.Fields("1 2 4 8 16 33 66 132 264 528 1056 2113 4227 8454 16908 33816 67633 135266 270532 541065 1073741") {
		keys[k] = true
	}
	for _, m := range regexp.MustCompile(`histogram_usec\r\n\*(\d+)\r\n((?::\d+\r\n)*)`).FindAllStringSubmatch(got, -1) {
		vals := strings.Fields(strings.NewReplacer(":", " ", "\r\n", " ").Replace(m[2]))
		for i := 0; i < len(vals); i += 2 {
			if !keys[vals[i]] {
				t.Errorf("bucket key %s is not one of Redis's", vals[i])
			}
		}
	}
	info := c.Do("INFO", "latencystats")
	if !regexp.MustCompile(`\r\nlatency_percentiles_usec_set:p50=\d+\.\d{3},p99=\d+\.\d{3},p99\.9=\d+\.\d{3}\r\n`).MatchString(info) {
		t.Errorf("INFO latencystats: %q", info)
	}
	c.Do("CONFIG", "SET", "latency-tracking-info-percentiles", "0 100")
	if info := c.Do("INFO", "latencystats"); !strings.Contains(info, "latency_percentiles_usec_set:p0=") || !strings.Contains(info, ",p100=") {
		t.Errorf("INFO latencystats with percentiles 0 100: %q", info)
	}
	c.Do("CONFIG", "SET", "latency-tracking", "no")
	c.Do("CONFIG", "RESETSTAT")
	c.Do("SET", "a", "b")
	if got := c.Do("LATENCY", "HISTOGRAM"); got != "*0\r\n" {
		t.Errorf("latency-tracking no: %q", got)
	}
	if info := c.Do("INFO", "latencystats"); info != "$16\r\n# Latencystats\r\n\r\n" {
		t.Errorf("INFO latencystats with latency-tracking no: %q", info)
	}
}

// TestLatencyEvents: commands over latency-monitor-threshold become
// "command" events, fast ones "fast-command"; LATEST, HISTORY, GRAPH,
// DOCTOR and RESET report them.
func TestLatencyEvents(t *testing.T) {
	_, addr := startServer(t, "--latency-monitor-threshold", "100", "--enable-debug-command", "yes")
	c := difftest.Dial(t, addr)
	if got := c.Do("DEBUG", "SLEEP", "0.15"); got != "+OK\r\n" {
		t.Fatalf("DEBUG SLEEP: %q", got)
	}
	c.Do("GET", "x") // fast, under the threshold: no event
	latest := c.Do("LATENCY", "LATEST")
	m := regexp.MustCompile(`^\*1\r\n\*4\r\n\$7\r\ncommand\r\n:(\d+)\r\n:(\d+)\r\n:(\d+)\r\n$`).FindStringSubmatch(latest)
	if m == nil {
		t.Fatalf("LATENCY LATEST: %q", latest)
	}
	at, _ := strconv.ParseInt(m[1], 10, 64)
	ms, _ := strconv.ParseInt(m[2], 10, 64)
	if now := time.Now().Unix(); at < now-5 || at > now || ms < 150 || m[3] != m[2] {
		t.Errorf("LATENCY LATEST: %q (now %d)", latest, now)
	}
	if got := c.Do("LATENCY", "HISTORY", "command"); !strings.HasPrefix(got, "*1\r\n*2\r\n:"+m[1]+"\r\n:"+m[2]+"\r\n") {
		t.Errorf("LATENCY HISTORY command: %q", got)
	}
	if got := c.Do("LATENCY", "GRAPH", "command"); !strings.Contains(got, "command - high "+m[2]+" ms, low "+m[2]+" ms (all time high "+m[3]+" ms)\n") {
		t.Errorf("LATENCY GRAPH command: %q", got)
	}
	if got := c.Do("LATENCY", "DOCTOR"); !strings.Contains(got, "1. command: 1 latency spikes (average "+m[2]+"ms") {
		t.Errorf("LATENCY DOCTOR: %q", got)
	}
	if got := c.Do("LATENCY", "RESET", "COMMAND"); got != ":1\r\n" {
		t.Errorf("LATENCY RESET COMMAND: %q", got)
	}
	if got := c.Do("LATENCY", "LATEST"); got != "*0\r\n" {
		t.Errorf("LATENCY LATEST after RESET: %q", got)
	}
}
