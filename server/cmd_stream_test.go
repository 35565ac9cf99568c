package server

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// Replies with times in them: idle times (XPENDING, XINFO CONSUMERS) and
// absolute times near now (XINFO STREAM FULL) are masked.
var (
	pendingIdle = regexp.MustCompile(`(\*4\r\n\$\d+\r\n[^\r]*\r\n\$\d+\r\n[^\r]*\r\n):\d+`)
	infoIdle    = regexp.MustCompile(`(\$4\r\nidle\r\n):\d+`)
	nowMs       = regexp.MustCompile(`:\d{13}\r\n`)
)

func maskTimes(r string) string {
	r = pendingIdle.ReplaceAllString(r, "${1}:<idle>")
	r = infoIdle.ReplaceAllString(r, "${1}:<idle>")
	return nowMs.ReplaceAllString(r, ":<T>\r\n")
}

// runMasked is p.Run comparing the replies with their times masked.
func runMasked(t *testing.T, p *difftest.Pair, script string) {
	t.Helper()
	for _, line := range strings.Split(script, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		p.DoBoth(line, func(redis, hotkv string) {
			if maskTimes(redis) != maskTimes(hotkv) {
				t.Errorf("%s\n redis: %q\n hotkv: %q", line, redis, hotkv)
			}
		})
	}
}

func TestStreamXAddRangeDiff(t *testing.T) {
	p := newPair(t)
	p.Run(`
XADD s 1-1 f v
XADD s 1-2 a b c d
XADD s 1 f v
XADD s 2 f v
XADD s 2-* f v
XADD s 3-* f v
XADD s 0-0 f v
XADD s2 0-0 f v
XADD s2 0 f v
EXISTS s2
XADD s 0-1 f v
XADD s 5-0 f
XADD s 5-0 f v g
XADD s 5-0
XADD s abc f v
XADD s 1-2-3 f v
XADD s - f v
XADD s + f v
XADD s 18446744073709551616 f v
XADD s NOMKSTREAM 9 f v
XADD nokey NOMKSTREAM 9 f v
EXISTS nokey
XADD s MAXLEN
XADD s MAXLEN 2
XADD s MAXLEN x 10 f v
XADD s MAXLEN -1 10 f v
XADD s MAXLEN 2 MINID 1 10 f v
XADD s LIMIT 10 11 f v
XADD s LIMIT 0 11 f v
XADD s MAXLEN 5 LIMIT 10 11 f v
XADD s MAXLEN ~ 5 LIMIT -1 11 f v
XADD s MINID bad 11 f v
XADD s MINID - 11 f v
XLEN s
XLEN nokey
XRANGE s - +
XREVRANGE s + -
XRANGE s 1 1
XRANGE s (1-1 +
XRANGE s - (3-0
XRANGE s (1-1 (3
XRANGE s - + COUNT 2
XRANGE s - + COUNT 0
XRANGE s - + COUNT -1
XRANGE s - + COUNT x
XRANGE s - + COUNT
XRANGE s - + FOO 1
XREVRANGE s + - COUNT 3
XREVRANGE s (3 (1-1
XRANGE s (18446744073709551615-18446744073709551615 +
XRANGE s - (0-0
XRANGE s x +
XRANGE s - x
XRANGE s ( +
XRANGE nokey - +
XRANGE nokey - + COUNT 0
SET str v
XADD str 1 f v
XLEN str
XRANGE str - +
XDEL str 1
XTRIM str MAXLEN 1
XDEL s 1-1 1-2 99
XDEL s 1-1
XDEL s bad
XDEL nokey bad
XRANGE s - +
XTRIM s MAXLEN 2
XRANGE s - +
XTRIM s
XTRIM s MAXLEN
XTRIM s FOO
XTRIM s MAXLEN 1 LIMIT 10
XTRIM s MINID 3-0
XTRIM s MINID = 4
XTRIM nokey MAXLEN 0
XTRIM s MAXLEN 0
XLEN s
EXISTS s
XADD s 9-* f v
XLEN s
XADD m MAXLEN 0 1 f v
XLEN m
XADD e 18446744073709551615-18446744073709551615 f v
XADD e * f v
XADD e 18446744073709551615-* f v
`)
}

func TestStreamTrimNodesDiff(t *testing.T) {
	p := newPair(t)
	for i := 1; i <= 350; i++ {
		p.Do(fmt.Sprintf("XADD s %d-0 field%d value%d", i, i%7, i))
	}
	p.Run(`
XLEN s
XTRIM s MAXLEN ~ 300
XLEN s
XTRIM s MAXLEN ~ 120 LIMIT 100
XLEN s
XTRIM s MAXLEN ~ 10 LIMIT 0
XLEN s
XTRIM s MINID ~ 320
XLEN s
XRANGE s - + COUNT 3
XADD s MAXLEN ~ 5 1000-0 f v
XLEN s
XADD s MINID ~ 1000 1001-0 f v
XLEN s
XDEL s 320-0 321-0 1000-0
XINFO STREAM s
XTRIM s MAXLEN = 3
XINFO STREAM s
XINFO STREAM s FULL
XINFO STREAM s FULL COUNT 1
XINFO STREAM s FULL COUNT 0
XINFO STREAM s FULL COUNT -3
XINFO STREAM s FULL COUNT
XINFO STREAM s FULL COUNT x
XINFO STREAM s FOO
XINFO STREAM s FULL FOO 1
XINFO STREAM nokey
XINFO GROUPS nokey
XINFO HELP
XINFO HELP x
XINFO FOO s
XINFO STREAM
`)
	p.Do("CONFIG SET stream-node-max-entries 7")
	defer p.Do("CONFIG SET stream-node-max-entries 100")
	p.Do("CONFIG SET stream-node-max-bytes 200")
	defer p.Do("CONFIG SET stream-node-max-bytes 4096")
	for i := 1; i <= 100; i++ {
		p.Do(fmt.Sprintf("XADD t %d-%d f%d %s", i/3, i, i, strings.Repeat("x", i%40)))
	}
	p.Run(`
XINFO STREAM t
XTRIM t MAXLEN ~ 50
XINFO STREAM t
XTRIM t MINID ~ 20
XINFO STREAM t
XDEL t 25-75 25-76
XINFO STREAM t
`)
}

func TestStreamXSetIDDiff(t *testing.T) {
	p := newPair(t)
	p.Run(`
XSETID nokey 1-1
XADD s 5-5 f v
XSETID s 1-1
XSETID s 5-5
XSETID s 10-0 ENTRIESADDED 0
XSETID s 10-0 ENTRIESADDED -1
XSETID s 10-0 ENTRIESADDED x
XSETID s 10-0 MAXDELETEDID 11-0
XSETID s 10-0 MAXDELETEDID bad
XSETID s 10-0 FOO
XSETID s bad
XSETID s - 
XSETID s 20-0 ENTRIESADDED 100 MAXDELETEDID 15-0
XINFO STREAM s
XDEL s 5-5
XSETID s 1-0
XINFO STREAM s
`)
}

func TestStreamXGroupDiff(t *testing.T) {
	p := newPair(t)
	runMasked(t, p, `
XGROUP CREATE s g $
XGROUP CREATE s g $ MKSTREAM
XGROUP CREATE s g $ MKSTREAM
XGROUP CREATE s g2 0 ENTRIESREAD -2
XGROUP CREATE s g2 0 ENTRIESREAD x
XGROUP CREATE s g2 0 ENTRIESREAD 5 MKSTREAM
XGROUP CREATE s g3 0 FOO
XGROUP CREATE s g3 bad
XGROUP CREATE s g3 -
XGROUP CREATE s g4 0 MKSTREAM ENTRIESREAD 1 MKSTREAM
XGROUP SETID s nog 0
XGROUP SETID s g 0 MKSTREAM
XGROUP SETID s g 0 ENTRIESREAD
XGROUP SETID s g - ENTRIESREAD 3
XGROUP SETID s g + 
XGROUP SETID s g $
XGROUP SETID s g bad
XGROUP SETID nokey g 0
XGROUP DESTROY nokey g
XGROUP DESTROY s nog
XGROUP DESTROY s g4
XGROUP CREATECONSUMER s g c1
XGROUP CREATECONSUMER s g c1
XGROUP CREATECONSUMER s nog c1
XGROUP DELCONSUMER s g c1
XGROUP DELCONSUMER s g c1
XGROUP DELCONSUMER s nog c1
XGROUP HELP
XGROUP HELP x
XGROUP FOO
XGROUP CREATE s
XGROUP DESTROY s g x
SET str v
XGROUP CREATE str g $
XGROUP CREATE str g $ MKSTREAM
XINFO GROUPS s
XINFO GROUPS str
XINFO CONSUMERS s nog
XINFO CONSUMERS nokey g
`)
}

func TestStreamXReadGroupDiff(t *testing.T) {
	p := newPair(t)
	runMasked(t, p, `
XADD s 1-0 a 1
XADD s 2-0 b 2
XADD s 3-0 c 3
XGROUP CREATE s g 0
XREADGROUP GROUP g c1 COUNT 1 STREAMS s >
XREADGROUP GROUP g c1 STREAMS s >
XREADGROUP GROUP g c1 STREAMS s >
XREADGROUP GROUP g c2 STREAMS s 0
XREADGROUP GROUP g c1 STREAMS s 0
XREADGROUP GROUP g c1 COUNT 1 STREAMS s 1
XINFO GROUPS s
XPENDING s g
XPENDING s g - + 10
XPENDING s g - + 10 c1
XPENDING s g - + 10 nobody
XPENDING s g (1 + 10
XPENDING s g - + 0
XPENDING s g - + -5
XPENDING s g IDLE 0 - + 10
XPENDING s g IDLE 100000 - + 10
XPENDING s g IDLE 0 - +
XPENDING s g IDLE x - + 10
XPENDING s g - + x
XPENDING s g x + 10
XPENDING s g - x 10
XPENDING s g - + 10 c1 extra extra
XPENDING s g -
XPENDING s nog
XPENDING nokey g
XPENDING nokey g - + 10
XACK s g 1-0 9-0
XACK s g 1-0
XACK s g bad
XACK s nog 1-0
XACK nokey g 1-0
XDEL s 2-0
XREADGROUP GROUP g c1 STREAMS s 0
XPENDING s g
XADD s 4-0 d 4
XREADGROUP GROUP g c1 NOACK STREAMS s >
XPENDING s g
XINFO GROUPS s
XGROUP CREATE s g5 0
XGROUP SETID s g5 0 ENTRIESREAD 0
XINFO GROUPS s
XREADGROUP GROUP g5 c COUNT 10 STREAMS s >
XINFO GROUPS s
XGROUP DELCONSUMER s g c1
XPENDING s g
XREADGROUP GROUP g c1 STREAMS s
XREADGROUP GROUP g c1 STREAMS s $
XREADGROUP GROUP g STREAMS s >
XREADGROUP STREAMS s >
XREADGROUP GROUP nog c STREAMS s >
XREADGROUP GROUP g c STREAMS nokey >
XREADGROUP GROUP g c STREAMS s bad
XREADGROUP GROUP g c COUNT x STREAMS s >
XREADGROUP GROUP g c BLOCK x STREAMS s >
XREADGROUP GROUP g c BLOCK -1 STREAMS s >
XREADGROUP GROUP g c FOO STREAMS s >
XREAD STREAMS s 0
XREAD COUNT 1 STREAMS s 0
XREAD STREAMS s nokey 0 0
XREAD STREAMS s $
XREAD STREAMS s 5
XREAD STREAMS s 
XREAD STREAMS s >
XREAD GROUP g c STREAMS s 0
XREAD NOACK STREAMS s 0
XREAD COUNT 1
XREAD FOO STREAMS s 0
XREAD STREAMS s bad
SET str v
XREAD STREAMS str 0
XREADGROUP GROUP g c STREAMS str >
`)
}

func TestStreamXClaimDiff(t *testing.T) {
	p := newPair(t)
	runMasked(t, p, `
XADD s 1-0 a 1
XADD s 2-0 b 2
XADD s 3-0 c 3
XADD s 4-0 d 4
XGROUP CREATE s g 0
XREADGROUP GROUP g c1 STREAMS s >
XCLAIM s g c2 0 1-0 2-0
XCLAIM s g c2 0 1-0 JUSTID
XCLAIM s g c2 3600000 3-0
XCLAIM s g c3 0 3-0 TIME 1000 RETRYCOUNT 7
XPENDING s g - + 10
XCLAIM s g c3 0 4-0 IDLE 5000 RETRYCOUNT 2 JUSTID
XCLAIM s g c3 0 9-0 FORCE
XCLAIM s g c3 0 1-0 LASTID 10-0 JUSTID
XINFO GROUPS s
XCLAIM s g c3 0 1-0 FOO
XCLAIM s g c3 x 1-0
XCLAIM s g c3 0 1-0 IDLE x
XCLAIM s g c3 0 1-0 TIME x
XCLAIM s g c3 0 1-0 RETRYCOUNT x
XCLAIM s g c3 0 1-0 LASTID x
XCLAIM s nog c3 0 1-0
XCLAIM nokey g c3 0 1-0
XDEL s 2-0
XCLAIM s g c4 0 2-0 3-0
XPENDING s g
XACK s g 1-0 2-0 3-0 4-0
XADD s 5-0 e 5
XCLAIM s g c5 0 5-0 FORCE JUSTID
XPENDING s g - + 10
XREADGROUP GROUP g c1 STREAMS s 0
XINFO CONSUMERS s nog
`)
	runMasked(t, p, `
DEL s
XADD s 1-0 a 1
XADD s 2-0 b 2
XADD s 3-0 c 3
XADD s 4-0 d 4
XADD s 5-0 e 5
XGROUP CREATE s g 0
XREADGROUP GROUP g c1 STREAMS s >
XDEL s 2-0 4-0
XAUTOCLAIM s g c2 0 0 COUNT 2
XAUTOCLAIM s g c2 0 0 COUNT 10 JUSTID
XAUTOCLAIM s g c2 3600000 0
XAUTOCLAIM s g c3 0 (1-0 COUNT 1
XAUTOCLAIM s g c3 0 0 COUNT 0
XAUTOCLAIM s g c3 0 0 COUNT x
XAUTOCLAIM s g c3 0 0 FOO
XAUTOCLAIM s g c3 x 0
XAUTOCLAIM s g c3 0 x
XAUTOCLAIM s nog c3 0 0
XAUTOCLAIM nokey g c3 0 0
XAUTOCLAIM s g c3 0 0 COUNT 1 JUSTID
XPENDING s g - + 10
XINFO STREAM s FULL
`)
}

// TestStreamRESP3Diff checks the map replies of HELLO 3.
func TestStreamRESP3Diff(t *testing.T) {
	p := newPair(t)
	p.Redis.Do("HELLO", "3")
	p.HotKV.Do("HELLO", "3")
	runMasked(t, p, `
XADD s 1-0 a 1
XGROUP CREATE s g 0
XREAD STREAMS s 0
XREADGROUP GROUP g c STREAMS s >
XINFO STREAM s
XINFO GROUPS s
XPENDING s g
XREAD STREAMS s 5
XADD nokey NOMKSTREAM * f v
`)
	p.Redis.Do("HELLO", "2")
	p.HotKV.Do("HELLO", "2")
}

// TestStreamNotifyDiff compares the keyspace events of the stream
// commands with Redis's.
func TestStreamNotifyDiff(t *testing.T) {
	p := newPair(t)
	p.Do("CONFIG SET notify-keyspace-events KEA")
	defer p.Do("CONFIG SET notify-keyspace-events \"\"")
	subs := map[string]*difftest.Conn{}
	for name, addr := range map[string]string{"redis": shared.redis, "hotkv": shared.hotkv} {
		sc := difftest.Dial(t, addr)
		sc.Do("PSUBSCRIBE", "__key*__:*")
		subs[name] = sc
	}
	p.Run(`
XADD s 1-0 a 1
XADD s MAXLEN 1 2-0 b 2
XADD s MAXLEN 5 3-0 b 2
XDEL s 1-0
XDEL s 3-0
XTRIM s MAXLEN 0
XTRIM s MAXLEN 0
XSETID s 10-0
XGROUP CREATE s g $
XGROUP CREATE s2 g $ MKSTREAM
XGROUP SETID s g 0
XGROUP CREATECONSUMER s g c
XGROUP CREATECONSUMER s g c
XADD s 11-0 a 1
XREADGROUP GROUP g c2 STREAMS s >
XREADGROUP GROUP g c3 STREAMS s 0
XCLAIM s g c4 0 11-0
XAUTOCLAIM s g c5 0 0
XGROUP DELCONSUMER s g c
XGROUP DELCONSUMER s g c
XGROUP DESTROY s g
XGROUP DESTROY s g
DEL s
`)
	p.Do("PING")
	// Collect the events each server sent, up to a marker.
	p.Do("SET marker x")
	read := func(sc *difftest.Conn) []string {
		var evs []string
		for {
			r := sc.Read()
			evs = append(evs, r)
			if strings.Contains(r, "marker") && strings.Contains(r, "__keyevent") {
				return evs
			}
		}
	}
	want, got := read(subs["redis"]), read(subs["hotkv"])
	if !slices.Equal(want, got) {
		t.Errorf("events differ\nredis: %q\nhotkv: %q", want, got)
	}
}

// TestStreamXReadBlocking: XREAD BLOCK is woken by XADD, times out with a
// null array, and does not block inside MULTI.
func TestStreamXReadBlocking(t *testing.T) {
	p := newPair(t)
	p.Do("XADD s 1-0 f v")
	for _, addr := range []string{shared.redis, shared.hotkv} {
		c := difftest.Dial(t, addr)
		b := difftest.Dial(t, addr)
		b.Send(difftest.Encode("XREAD", "BLOCK", "0", "STREAMS", "nokey", "s", "$", "$"))
		waitBlocked(t, c, 1)
		c.Do("XADD", "s", "2-0", "g", "w")
		if got, want := b.Read(), "*1\r\n*2\r\n$1\r\ns\r\n*1\r\n*2\r\n$3\r\n2-0\r\n*2\r\n$1\r\ng\r\n$1\r\nw\r\n"; got != want {
			t.Errorf("%s: woken XREAD %q, want %q", addr, got, want)
		}
		// A second add wakes a new reader too (not only creation).
		b.Send(difftest.Encode("XREAD", "BLOCK", "0", "STREAMS", "s", "$"))
		waitBlocked(t, c, 1)
		c.Do("XADD", "s", "3-0", "h", "x")
		if got := b.Read(); !strings.Contains(got, "3-0") {
			t.Errorf("%s: second woken XREAD %q", addr, got)
		}
		if got := b.Do("XREAD", "BLOCK", "50", "STREAMS", "s", "$"); got != "*-1\r\n" {
			t.Errorf("%s: timed out XREAD %q", addr, got)
		}
		b.Do("MULTI")
		b.Do("XREAD", "BLOCK", "0", "STREAMS", "s", "$")
		b.Do("XREADGROUP", "GROUP", "nog", "c", "BLOCK", "0", "STREAMS", "s", ">")
		if got := b.Do("EXEC"); !strings.HasPrefix(got, "*2\r\n*-1\r\n-NOGROUP") {
			t.Errorf("%s: XREAD BLOCK in MULTI: %q", addr, got)
		}
		// XGROUP DESTROY ends blocked XREADGROUP clients with NOGROUP.
		c.Do("XGROUP", "CREATE", "s", "g", "$")
		b.Send(difftest.Encode("XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">"))
		waitBlocked(t, c, 1)
		c.Do("XGROUP", "DESTROY", "s", "g")
		if got := b.Read(); got != "-NOGROUP the consumer group this client was blocked on no longer exists\r\n" {
			t.Errorf("%s: XREADGROUP after DESTROY: %q", addr, got)
		}
		c.Do("DEL", "s")
		c.Do("XADD", "s", "1-0", "f", "v")
	}
	p.Do("XREAD BLOCK 10 STREAMS s $")
	p.Do("EVAL \"return redis.call('xread','block','0','streams','s','$')\" 0")
}

// TestStreamXReadGroupBlockingExactlyOnce: blocked consumers of one group
// under concurrent XADDs receive each entry exactly once.
func TestStreamXReadGroupBlockingExactlyOnce(t *testing.T) {
	_, addr := startServer(t)
	c := difftest.Dial(t, addr)
	c.Do("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM")
	const consumers, producers, perProducer = 6, 4, 150
	total := producers * perProducer
	var mu sync.Mutex
	seen := map[string]int{}
	done := make(chan struct{})
	var wg sync.WaitGroup
	re := regexp.MustCompile(`\d+-\d+`)
	for i := range consumers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cc := difftest.Dial(t, addr)
			for {
				select {
				case <-done:
					return
				default:
				}
				r := cc.Do("XREADGROUP", "GROUP", "g", fmt.Sprint("c", i), "COUNT", "3", "BLOCK", "100", "STREAMS", "s", ">")
				if r == "*-1\r\n" {
					continue
				}
				mu.Lock()
				for _, id := range re.FindAllString(r, -1) {
					seen[id]++
				}
				mu.Unlock()
			}
		}()
	}
	var pw sync.WaitGroup
	for i := range producers {
		pw.Add(1)
		go func() {
			defer pw.Done()
			pc := difftest.Dial(t, addr)
			for j := range perProducer {
				pc.Do("XADD", "s", "*", "p", fmt.Sprint(i), "n", fmt.Sprint(j))
			}
		}()
	}
	pw.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := len(seen)
		mu.Unlock()
		if n >= total || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(done)
	wg.Wait()
	if len(seen) != total {
		t.Errorf("consumers saw %d distinct entries, want %d", len(seen), total)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("entry %s delivered %d times", id, n)
		}
	}
	if r := c.Do("XPENDING", "s", "g"); !strings.HasPrefix(r, fmt.Sprintf("*4\r\n:%d\r\n", total)) {
		t.Errorf("XPENDING %q, want %d pending", r, total)
	}
}

// streamAOFScript are stream writes whose propagated forms are compared
// with Redis's.
var streamAOFScript = []string{
	"XADD s 1-1 f v",
	"XADD s 1-* f v",
	"XADD s3 * f v",
	"XADD s3 MAXLEN ~ 0 * f v",
	"XADD s2 NOMKSTREAM * f v",
	"XADD s MAXLEN = 2 5-0 f v",
	"XADD s MAXLEN ~ 1 6-0 f v",
	"XADD s MINID ~ 6 7-0 f v",
	"XADD s MAXLEN ~ 1 LIMIT 5 8-* f v",
	"XTRIM s MAXLEN ~ 1",
	"XTRIM s MAXLEN 10",
	"XTRIM s MINID 7",
	"XTRIM s MINID ~ 8",
	"XDEL s 1-1",
	"XDEL s 8-0",
	"XSETID s 100-0",
	"XGROUP CREATE s g 0",
	"XGROUP CREATE s g 0",
	"XGROUP CREATE s2 g $ MKSTREAM",
	"XGROUP SETID s g 0 ENTRIESREAD 0",
	"XGROUP CREATECONSUMER s g c",
	"XGROUP CREATECONSUMER s g c",
	"XADD s 101-0 a 1",
	"XADD s 102-0 b 2",
	"XADD s 103-0 c 3",
	"XREADGROUP GROUP g c1 COUNT 2 STREAMS s >",
	"XREADGROUP GROUP g c2 NOACK STREAMS s >",
	"XREADGROUP GROUP g c1 STREAMS s >",
	"XREADGROUP GROUP g c1 STREAMS s 0",
	"XREADGROUP GROUP g c9 STREAMS s 0",
	"XREADGROUP GROUP g c10 NOACK STREAMS s 0",
	"XREADGROUP GROUP g c11 NOACK STREAMS s >",
	"XREAD STREAMS s 0",
	"XACK s g 101-0",
	"XACK s g 101-0",
	"XDEL s 102-0",
	"XCLAIM s g c3 0 102-0 7-0",
	"XCLAIM s g c3 0 200-0 LASTID 150-0",
	"XCLAIM s g c3 0 200-0",
	"XADD s 201-0 d 4",
	"XADD s 202-0 e 5",
	"XREADGROUP GROUP g c1 STREAMS s >",
	"XDEL s 201-0",
	"XAUTOCLAIM s g c4 0 0 COUNT 10",
	"XAUTOCLAIM s g c4 3600000 0",
	"XGROUP DELCONSUMER s g c1",
	"XGROUP DELCONSUMER s g c1",
	"XGROUP DESTROY s g",
	"XGROUP DESTROY s g",
}

var streamAutoID = regexp.MustCompile(`\b\d{13}-\d+\b`)

// TestAOFStreamsMatchRedis compares the append-only files of stream writes
// (and of a blocked XREADGROUP served by an XADD) with Redis's.
func TestAOFStreamsMatchRedis(t *testing.T) {
	if shared.redisErr != nil {
		t.Skip("SKIPPING: " + shared.redisErr.Error())
	}
	rdir, hdir := t.TempDir(), t.TempDir()
	raddr := difftest.StartRedis(t, "--appendonly", "yes", "--appendfsync", "always", "--dir", rdir)
	_, haddr := startServer(t, "--appendonly", "yes", "--appendfsync", "always", "--dir", hdir)
	for _, addr := range []string{raddr, haddr} {
		c := difftest.Dial(t, addr)
		for _, line := range streamAOFScript {
			c.Do(difftest.Split(line)...)
		}
		c.Do("XGROUP", "CREATE", "q", "g", "$", "MKSTREAM")
		b := difftest.Dial(t, addr)
		b.Send(difftest.Encode("XREADGROUP", "GROUP", "g", "bc", "BLOCK", "0", "STREAMS", "q", ">"))
		waitBlocked(t, c, 1)
		c.Do("XADD", "q", "5-0", "f", "v")
		b.Read()
		b.Send(difftest.Encode("XREADGROUP", "GROUP", "g", "bc2", "NOACK", "BLOCK", "0", "STREAMS", "q", ">"))
		waitBlocked(t, c, 1)
		c.Do("XADD", "q", "6-0", "f", "v")
		b.Read()
		b.Send(difftest.Encode("XREAD", "BLOCK", "0", "STREAMS", "q", "$"))
		waitBlocked(t, c, 1)
		c.Do("XADD", "q", "7-0", "f", "v")
		b.Read()
	}
	norm := func(lines []string) []string {
		out := make([]string, len(lines))
		for i, l := range lines {
			out[i] = streamAutoID.ReplaceAllString(l, "<ID>")
		}
		return out
	}
	want := norm(readIncr(t, rdir))
	got := norm(readIncr(t, hdir))
	if !slices.Equal(want, got) {
		t.Errorf("append-only files differ\nredis:\n%s\nhotkv:\n%s", strings.Join(want, "\n"), strings.Join(got, "\n"))
	}
}

// TestStreamObjectAndCopy: OBJECT ENCODING, COPY and TYPE of a stream.
func TestStreamObjectAndCopy(t *testing.T) {
	p := newPair(t)
	p.Run(`
XADD s 1-1 f v
XGROUP CREATE s g 0
OBJECT ENCODING s
TYPE s
COPY s s2
XRANGE s2 - +
XINFO GROUPS s2
XADD s2 2-1 f w
XLEN s
XLEN s2
`)
}
