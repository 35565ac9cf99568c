package server

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// eventLog runs script on the server at addr, with a subscriber to every
// keyspace and keyevent channel, and returns, per command, its reply and
// the events it emitted.
func eventLog(t *testing.T, addr string, script []string) []string {
	t.Helper()
	c := difftest.Dial(t, addr)
	c.Do("CONFIG", "SET", "notify-keyspace-events", "KEAnm")
	c.Do("DEBUG", "SET-ACTIVE-EXPIRE", "0")
	sub, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	r := bufio.NewReader(sub)
	sub.Write(difftest.Encode("PSUBSCRIBE", "__key*__:*"))
	if _, err := difftest.ReadReply(r); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range script {
		reply := c.Do(difftest.Split(line)...)
		c.Do("PUBLISH", "__keymark__:end", "end") // the subscriber sees it after the command's events
		if name := strings.ToUpper(difftest.Split(line)[0]); (name == "TTL" || name == "PTTL") && !strings.HasPrefix(reply, ":-") {
			reply = ":<ttl>" // depends on the time since the expiry was set, which differs between the runs
		}
		entry := line + " => " + reply
		sub.SetReadDeadline(time.Now().Add(5 * time.Second))
		for {
			ev, err := difftest.ReadReply(r)
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			if strings.Contains(ev, "__keymark__:end") {
				break
			}
			parts := strings.Split(ev, "\r\n")
			entry += "\n    " + parts[6] + " " + parts[len(parts)-2]
		}
		out = append(out, entry)
	}
	return out
}

// diffEvents compares the events script emits on Redis and on HotKV.
func diffEvents(t *testing.T, script string) {
	t.Helper()
	var lines []string
	for _, l := range strings.Split(script, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	raddr := difftest.StartRedis(t, "--enable-debug-command", "yes")
	_, haddr := startServer(t, "--enable-debug-command", "yes")
	want, got := eventLog(t, raddr, lines), eventLog(t, haddr, lines)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("\nredis: %s\nhotkv: %s", want[i], got[i])
		}
	}
}

// TestNotifyGeneric: the events of the key commands.
func TestNotifyGeneric(t *testing.T) {
	diffEvents(t, `
SET a 1
DEL a
DEL a nokey
SET a 1
UNLINK a
SET a 1
EXPIRE a 100
PEXPIRE a 100000
EXPIREAT a 4102444800
PEXPIREAT a 4102444800000
EXPIRE nokey 10
EXPIRE a 10 GT
PERSIST a
PERSIST a
EXPIRE a -1
EXISTS a
SET a 1
RENAME a b
RENAME b b
RENAMENX b c
SET d 1
RENAMENX c d
MOVE c 3
MOVE d 3
SELECT 3
MOVE c 0
SELECT 0
COPY d e
COPY d e
COPY d e REPLACE
COPY d e DB 2
SET x v PX 1
DEBUG SLEEP 0.01
GET x
SET x v PX 1
DEBUG SLEEP 0.01
SET x w
RPUSH l 3 1 2
SORT l STORE sl
SORT l STORE sl2 BY nosort LIMIT 5 1
TYPE sl
SWAPDB 0 1
SWAPDB 0 1
FLUSHDB
SET a 1
FLUSHALL
SET src v
RESTORE r 0 "\x00\x01v\n\x00\x91\x08\xce\xb2\x198\x8a\xce"
RESTORE r 0 "\x00\x01v\n\x00\x91\x08\xce\xb2\x198\x8a\xce" REPLACE
`)
}

// TestNotifyStrings: the events of the string and bitmap commands.
func TestNotifyStrings(t *testing.T) {
	diffEvents(t, `
SET s v
SET s v EX 100
SET s v KEEPTTL
SET s v NX
SET s2 v XX
SET s w GET
SETNX s x
SETNX s3 x
SETEX s4 100 v
PSETEX s5 100000 v
MSET m1 a m2 b
MSETNX m1 a m3 c
MSETNX m4 a m5 b
GETSET s x
GETDEL s
GETDEL s
GETEX s3 EX 100
GETEX s3 PERSIST
GETEX s3
GETEX s3 PXAT 1
APPEND ap x
APPEND ap y
SETRANGE sr 5 x
SETRANGE sr 0 ""
INCR n
DECR n
INCRBY n 5
DECRBY n 5
INCRBYFLOAT f 1.5
INCR s5
SETBIT b 7 1
SETBIT b 7 1
BITFIELD bf SET u8 0 1 INCRBY u8 0 1
BITFIELD bf GET u8 0
BITOP OR bo b bf
BITOP AND bo nokey
PFADD hl a b
PFADD hl a
PFCOUNT hl
PFMERGE hm hl
`)
}

// TestNotifyCollections: the events of the list, set, hash and sorted-set
// commands, blocking ones included.
func TestNotifyCollections(t *testing.T) {
	diffEvents(t, `
LPUSH l a b c
RPUSH l d
LPUSHX nokey a
RPUSHX l e
LINSERT l BEFORE a x
LINSERT l BEFORE nosuch x
LSET l 0 y
LREM l 1 y
LREM l 1 nosuch
LTRIM l 0 2
LPOP l
RPOP l 1
LMOVE l l2 LEFT RIGHT
RPOPLPUSH l2 l2
LMOVE l2 l3 RIGHT LEFT
RPUSH m a b c
LMPOP 1 m LEFT COUNT 2
BLPOP m 0
BRPOP nokey 0.01
RPUSH m a
BLMOVE m m2 RIGHT LEFT 0
BLMPOP 0 1 m2 RIGHT
LTRIM nokey 0 1
RPUSH t a
LTRIM t 5 10
SADD s a b c
SADD s a
SREM s a
SREM s zz
SREM s b
SPOP s 5
SADD s1 a
SPOP s1
SADD s a b
SMOVE s s2 a
SMOVE s s2 b
SMOVE s2 s2 a
SADD x 1 2 3
SADD y 2 3 4
SINTERSTORE si x y
SUNIONSTORE su x y
SDIFFSTORE sd x y
SDIFFSTORE sd x x
SINTERSTORE su nokey x
HSET h f v g w
HSET h f v
HMSET h a b
HSETNX h a c
HSETNX h z c
HDEL h a nosuch
HINCRBY h n 1
HINCRBYFLOAT h n 1.5
HDEL h f g z n
ZADD z 1 a 2 b
ZADD z 1 a
ZADD z 3 a
ZADD z INCR 1 a
ZADD z NX 5 a
ZINCRBY z 2 b
ZREM z a nosuch
ZADD z 1 a 2 c 3 d 4 e
ZREMRANGEBYSCORE z 1 1
ZREMRANGEBYRANK z 0 0
ZREMRANGEBYLEX z [a [b
ZPOPMIN z
ZPOPMAX z 1
ZADD z 1 a 2 b
ZMPOP 1 z MIN COUNT 1
BZPOPMIN z 0
BZPOPMAX nokey 0.01
ZADD za 1 a 2 b
ZADD zb 2 b 3 c
ZUNIONSTORE zu 2 za zb
ZINTERSTORE zi 2 za zb
ZDIFFSTORE zd 2 za zb
ZRANGESTORE zr za 0 -1
ZRANGESTORE zr za 5 6
ZINTERSTORE zi 2 za nokey
`)
}

// TestNotifyKeyMiss: the keymiss events of read commands (class m).
func TestNotifyKeyMiss(t *testing.T) {
	diffEvents(t, `
GET nokey
MGET a nokey b
SET a 1
GET a
EXISTS nokey
TYPE nokey
TTL nokey
OBJECT ENCODING nokey
TOUCH nokey
STRLEN nokey
LRANGE nokey 0 -1
SMEMBERS nokey
HGET nokey f
ZRANGE nokey 0 -1
LPUSH nokey2 x
INCR nokey3
`)
}

// TestNotifyRandom: the events of random commands of every kind (the
// templates of TestRandomDifferential), command by command, as Redis.
func TestNotifyRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 0xe7))
	var lines []string
	for len(lines) < 1500 {
		args := randomCommand(r)
		if shortExpiry(args) {
			continue
		}
		quoted := make([]string, len(args))
		for i, a := range args {
			quoted[i] = redisQuote(a)
		}
		lines = append(lines, strings.Join(quoted, " "))
	}
	raddr := difftest.StartRedis(t, "--enable-debug-command", "yes")
	_, haddr := startServer(t, "--enable-debug-command", "yes")
	want, got := eventLog(t, raddr, lines), eventLog(t, haddr, lines)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("command %d:\nredis: %s\nhotkv: %s", i, want[i], got[i])
		}
	}
}

// redisQuote quotes s as redis-cli reads a double-quoted argument.
func redisQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch == '"' || ch == '\\':
			b.WriteByte('\\')
			b.WriteByte(ch)
		case ch < ' ' || ch > '~':
			fmt.Fprintf(&b, "\\x%02x", ch)
		default:
			b.WriteByte(ch)
		}
	}
	b.WriteByte('"')
	return b.String()
}
