package server

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/config"
	"github.com/hotkv/hotkv/internal/difftest"
)

// Absolute times far in the future, so that EXPIREAT/PEXPIREAT replies and
// EXPIRETIME are deterministic.
const (
	farSec = "4000000000" // 2096
	farMs  = "4000000000000"
)

// keysInt parses a raw ":n\r\n" reply.
func keysInt(tb testing.TB, raw string) int64 {
	tb.Helper()
	if !strings.HasPrefix(raw, ":") || !strings.HasSuffix(raw, "\r\n") {
		tb.Fatalf("not an integer reply: %q", raw)
	}
	n, err := strconv.ParseInt(raw[1:len(raw)-2], 10, 64)
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// near returns a DoBoth check accepting integer replies within tol.
func keysNear(tb testing.TB, tol int64) func(redis, hotkv string) {
	return func(redis, hotkv string) {
		tb.Helper()
		r, h := keysInt(tb, redis), keysInt(tb, hotkv)
		if d := r - h; d > tol || d < -tol {
			tb.Errorf("redis %d, hotkv %d: differ by more than %d", r, h, tol)
		}
	}
}

func TestKeysArity(t *testing.T) {
	p := newPair(t)
	p.Run(`
		DEL
		UNLINK
		EXISTS
		TYPE
		TYPE a b
		TOUCH
		EXPIRE k
		PEXPIRE k
		EXPIREAT k
		PEXPIREAT k
		TTL
		TTL a b
		PTTL
		EXPIRETIME
		PEXPIRETIME a b
		PERSIST
		PERSIST a b
		RENAME a
		RENAME a b c
		RENAMENX a
		COPY a
		MOVE a
		MOVE a 1 2
		KEYS
		KEYS a b
		SCAN
		RANDOMKEY x
		DBSIZE x
		OBJECT
		OBJECT ENCODING
		OBJECT ENCODING a b
		OBJECT REFCOUNT
		OBJECT IDLETIME
		OBJECT FREQ
		OBJECT HELP x
		OBJECT foo
		OBJECT foo k
		SWAPDB 0
		SWAPDB 0 1 2
	`)
}

func TestKeysDelExistsTypeTouch(t *testing.T) {
	p := newPair(t)
	p.Run(`
		MSET a 1 b 2 c 3 {t}x 4
		EXISTS a
		EXISTS a a b nosuch
		EXISTS nosuch
		TYPE a
		TYPE nosuch
		TOUCH a b nosuch a
		TOUCH nosuch
		DEL a nosuch a
		DEL a
		EXISTS a
		UNLINK b c nosuch
		UNLINK b
		DEL {t}x
		DBSIZE
		SET "" empty
		EXISTS ""
		TYPE ""
		DEL ""
		SET k v PX 1
	`)
	time.Sleep(5 * time.Millisecond)
	p.Run(`
		EXISTS k
		TYPE k
		TOUCH k
		DEL k
	`)
}

func TestKeysExpire(t *testing.T) {
	p := newPair(t)
	p.Run(`
		SET k v
		EXPIRE nosuch 10
		PEXPIRE nosuch 10
		EXPIREAT nosuch ` + farSec + `
		PEXPIREAT nosuch ` + farMs + `
		TTL nosuch
		PTTL nosuch
		EXPIRETIME nosuch
		PEXPIRETIME nosuch
		TTL k
		PTTL k
		EXPIRETIME k
		PEXPIRETIME k
		EXPIREAT k ` + farSec + `
		EXPIRETIME k
		PEXPIRETIME k
		PEXPIREAT k 4000000000499
		EXPIRETIME k
		PEXPIREAT k 4000000000500
		EXPIRETIME k
		PEXPIRETIME k
		EXPIRE k 100
		TTL k
		PERSIST k
		PERSIST k
		PERSIST nosuch
		TTL k
		EXPIRETIME k
		# SET without KEEPTTL clears the expiry
		EXPIRE k 100
		SET k v2
		TTL k
	`)
	p.DoBoth("PEXPIRE k 100000", func(r, h string) {})
	p.DoBoth("PTTL k", keysNear(t, 50))
	p.Do("TTL k")
}

func TestKeysExpireErrors(t *testing.T) {
	p := newPair(t)
	p.Run(`
		SET k v
		EXPIRE k abc
		EXPIRE k 1.5
		EXPIRE k ""
		EXPIRE k " 1"
		EXPIRE k 99999999999999999999
		EXPIRE k 10 foo
		EXPIRE k 10 foo bar
		EXPIRE k abc foo
		EXPIRE k abc nx xx
		EXPIRE k 10 nx xx
		EXPIRE k 10 NX GT
		EXPIRE k 10 nx lt
		EXPIRE k 10 gt lt
		EXPIRE k 10 xx gt lt
		EXPIRE k 10 xx nx gt lt
		PEXPIRE k 10 LT gt
		EXPIREAT k 10 nx XX
		PEXPIREAT k 10 gt lt
		EXPIRE k 9223372036854775807
		EXPIRE k 9223372036854776
		EXPIRE k -9223372036854775808
		EXPIRE k -9223372036854776
		PEXPIRE k 9223372036854775807
		PEXPIRE k 9223372036854775000
		EXPIREAT k 9223372036854775807
		EXPIREAT k 9223372036854775
		EXPIREAT k -9223372036854776
		PEXPIREAT k 9223372036854775807
		TTL k
		PEXPIRETIME k
		EXPIRE nosuch 9223372036854775807
		EXPIRE nosuch 10 foo
		EXPIRE k 10 xx xx gt gt
		TTL k
	`)
}

func TestKeysExpireOptions(t *testing.T) {
	p := newPair(t)
	p.Run(`
		SET k v
		# no expiry: XX and GT fail, LT and NX succeed
		EXPIREAT k ` + farSec + ` XX
		EXPIREAT k ` + farSec + ` GT
		EXPIREAT k 4000000100 LT
		EXPIRETIME k
		PERSIST k
		EXPIREAT k 4000000100 NX
		EXPIREAT k 4000000200 NX
		EXPIRETIME k
		EXPIREAT k 4000000050 XX
		EXPIRETIME k
		EXPIREAT k 4000000050 GT
		EXPIREAT k 4000000049 GT
		EXPIREAT k 4000000051 GT
		EXPIRETIME k
		EXPIREAT k 4000000051 LT
		EXPIREAT k 4000000052 LT
		EXPIREAT k 4000000010 lt
		EXPIRETIME k
		EXPIREAT k 4000000020 xx gt
		EXPIREAT k 4000000015 XX LT
		EXPIREAT k 4000000016 xx lt
		EXPIRETIME k
		PEXPIREAT k 4000000015999 gt
		PEXPIRETIME k
		EXPIREAT k 4000000001 gt gt
		EXPIREAT k 4000000001 lt lt
		EXPIRETIME k
		PEXPIREAT nosuch 4000000015999 nx
		# LT with a time in the past deletes the key
		EXPIREAT k 1 LT
		EXISTS k
		SET k v
		EXPIRE k -1 NX
		EXISTS k
	`)
}

func TestKeysExpirePastDeletes(t *testing.T) {
	p := newPair(t)
	for _, c := range []string{"EXPIRE k 0", "EXPIRE k -10", "PEXPIRE k 0", "PEXPIRE k -9223372036854775808",
		"EXPIREAT k 0", "EXPIREAT k 1", "EXPIREAT k -5", "PEXPIREAT k 0", "PEXPIREAT k 1000",
		"PEXPIREAT k -9223372036854775808"} {
		p.Do("SET k v")
		p.Do(c)
		p.Run("EXISTS k\nTTL k\nDBSIZE")
	}
	p.Run(`
		SET k v EX 100
		EXPIREAT k 1
		EXISTS k
	`)
}

func TestKeysExpiryHappens(t *testing.T) {
	p := newPair(t)
	p.Run(`
		SET a v
		SET b v
		PEXPIRE a 30
		EXPIRE b 100
		TTL a
	`)
	time.Sleep(60 * time.Millisecond)
	p.Run(`
		TTL a
		PTTL a
		EXISTS a
		GET a
		TTL b
	`)
}

func TestKeysRename(t *testing.T) {
	p := newPair(t)
	p.Run(`
		RENAME nosuch x
		RENAMENX nosuch x
		RENAME nosuch nosuch
		RENAMENX nosuch nosuch
		SET a 1
		RENAME a a
		RENAMENX a a
		GET a
		RENAME a b
		EXISTS a
		GET b
		SET c 3
		RENAMENX b c
		GET b
		GET c
		RENAMENX b d
		GET d
		EXISTS b
		RENAME d c
		GET c
		DBSIZE
		# the expiry moves with the value; the destination's is dropped
		SET x 1
		EXPIREAT x ` + farSec + `
		SET y 2
		EXPIREAT y 4000000100
		RENAME x y
		EXPIRETIME y
		GET y
		RENAME y {tag}z
		EXPIRETIME {tag}z
		RENAME {tag}z plain
		SET p2 v
		RENAME plain p2
		EXPIRETIME p2
		RENAMENX p2 fresh
		EXPIRETIME fresh
	`)
	p.DoUnordered("KEYS *")
	p.Do("SET e v PX 1")
	time.Sleep(5 * time.Millisecond)
	p.Run(`
		RENAME e f
		RENAMENX e f
		SET g v PX 1
	`)
	time.Sleep(5 * time.Millisecond)
	p.Run(`
		SET h v
		RENAMENX h g
		GET g
	`)
}

func TestKeysCopy(t *testing.T) {
	p := newPair(t)
	p.Run(`
		COPY nosuch x
		COPY nosuch nosuch
		SET a hello
		COPY a a
		COPY a a DB 0
		COPY a a db 1
		COPY a b
		GET b
		COPY a b
		SET a world
		COPY a b replace
		GET b
		COPY a b REPLACE REPLACE
		COPY a b foo
		COPY a b db
		COPY a b db abc
		COPY a b db 1.5
		COPY a b db -1
		COPY a b db 16
		COPY a b db 4294967296
		COPY a b db 2 foo
		COPY a b replace db
		COPY a c db 2 db 3
		SELECT 3
		GET c
		SELECT 2
		EXISTS c
		SELECT 0
		SET x 1
		EXPIREAT x ` + farSec + `
		COPY x y
		EXPIRETIME y
		COPY x y DB 5
		SELECT 5
		EXPIRETIME y
		GET y
		SELECT 0
		SET z 1
		COPY z y replace
		TTL y
		COPY a c db 1
		COPY a c db 1
		COPY a c db 1 replace
		SELECT 1
		GET c
		GET a
		SELECT 0
		OBJECT ENCODING b
	`)
}

func TestKeysMove(t *testing.T) {
	p := newPair(t)
	p.Run(`
		MOVE nosuch 1
		MOVE nosuch 0
		MOVE nosuch abc
		MOVE nosuch -1
		MOVE nosuch 16
		MOVE nosuch 2147483648
		MOVE nosuch 1.0
		SET a 1
		MOVE a 0
		MOVE a 1
		EXISTS a
		SELECT 1
		GET a
		SET b 2
		SELECT 0
		SET b 3
		MOVE b 1
		GET b
		SET x v
		EXPIREAT x ` + farSec + `
		MOVE x 2
		EXISTS x
		SELECT 2
		EXPIRETIME x
		MOVE x 0
		SELECT 0
		EXPIRETIME x
		DBSIZE
	`)
}

func TestKeysKeys(t *testing.T) {
	p := newPair(t)
	p.Do("KEYS *")
	p.Run(`
		MSET foo 1 foobar 2 bar 3 baz 4 "" 5 "a*b" 6 "h[ae]llo" 7 hello 8 hallo 9 HELLO 10
	`)
	for _, pat := range []string{"*", "", "?", "foo*", "*o*", "ba?", "h[ae]llo", "h[^e]llo", "h[a-e]llo",
		`a\*b`, "a*b", "HELLO", "hel*", `h\[ae\]llo`, "[", "*[", "nothing", "**", "???????"} {
		p.DoUnordered("KEYS " + strconv.Quote(pat))
	}
	p.Do("SET gone v PX 1")
	time.Sleep(5 * time.Millisecond)
	p.DoUnordered("KEYS g*")
	p.Do("SELECT 1")
	p.Do("KEYS *")
}

// keysScanAll runs a full SCAN iteration on conn with the given options and
// returns the keys returned (sorted, with repeats).
func keysScanAll(tb testing.TB, conn *difftest.Conn, opts ...string) []string {
	tb.Helper()
	var keys []string
	cursor := "0"
	for i := 0; ; i++ {
		raw := conn.Do(append([]string{"SCAN", cursor}, opts...)...)
		c, elems := keysParseScan(tb, raw)
		keys = append(keys, elems...)
		if c == "0" {
			break
		}
		cursor = c
		if i > 1_000_000 {
			tb.Fatal("SCAN does not terminate")
		}
	}
	slices.Sort(keys)
	return keys
}

// keysParseScan splits a raw SCAN reply into the cursor and the keys.
func keysParseScan(tb testing.TB, raw string) (string, []string) {
	tb.Helper()
	lines := strings.Split(raw, "\r\n")
	if len(lines) < 4 || lines[0] != "*2" || lines[3][0] != '*' {
		tb.Fatalf("bad SCAN reply %q", raw)
	}
	n, _ := strconv.Atoi(lines[3][1:])
	var keys []string
	for i := 0; i < n; i++ {
		keys = append(keys, lines[5+2*i])
	}
	return lines[2], keys
}

func TestKeysScan(t *testing.T) {
	p := newPair(t)
	p.Run(`
		SCAN 0
		SCAN abc
		SCAN " 1"
		SCAN "1 "
		SCAN 1x
		SCAN -
		SCAN +
		SCAN 18446744073709551616
		SCAN 99999999999999999999999
		SCAN 0 count 0
		SCAN 0 count -1
		SCAN 0 count abc
		SCAN 0 count
		SCAN 0 match
		SCAN 0 type
		SCAN 0 foo
		SCAN 0 foo bar
		SCAN 0 count 10 match
		SCAN abc count 0
		SCAN 0 count 1 count 0
		SCAN 0 count 9223372036854775808
		SCAN "" count 0
	`)
	// Valid cursors in Redis's syntax: "" and signed forms.
	for _, cur := range []string{"", "+0", "-0", "-1", "18446744073709551615", "-18446744073709551615", "+5"} {
		p.DoBoth("SCAN "+strconv.Quote(cur), func(r, h string) {
			if !strings.HasPrefix(h, "*2\r\n$") {
				t.Errorf("SCAN %q: %q", cur, h)
			}
		})
	}
	var want []string
	for i := 0; i < 300; i++ {
		k := fmt.Sprintf("key:%d", i)
		if i%3 == 0 {
			k = fmt.Sprintf("other:%d", i)
		}
		p.Do("SET " + k + " v")
		want = append(want, k)
	}
	p.Do("SET \"\" empty")
	for _, opts := range [][]string{
		nil,
		{"COUNT", "1"},
		{"COUNT", "7"},
		{"COUNT", "1000"},
		{"count", "9223372036854775807"},
		{"MATCH", "key:*"},
		{"MATCH", "*"},
		{"MATCH", "other:1*", "COUNT", "3"},
		{"MATCH", "nothing"},
		{"MATCH", "x", "MATCH", "key:1?"},
		{"TYPE", "string"},
		{"TYPE", "STRING", "MATCH", "key:2*"},
		{"type", "hash"},
		{"TYPE", "none"},
		{"TYPE", "bogus"},
	} {
		r, h := keysScanAll(t, p.Redis, opts...), keysScanAll(t, p.HotKV, opts...)
		if !slices.Equal(r, h) {
			t.Errorf("SCAN %v: redis %d keys, hotkv %d keys\nredis %v\nhotkv %v", opts, len(r), len(h), r, h)
		}
	}
	// With no changes a full iteration returns each key exactly once.
	got := keysScanAll(t, p.HotKV, "COUNT", "5")
	if len(got) != len(want)+1 || len(slices.Compact(got)) != len(want)+1 {
		t.Errorf("full iteration returned %d keys (%d distinct), want %d", len(got), len(slices.Compact(got)), len(want)+1)
	}
	p.Do("SET gone v PX 1")
	time.Sleep(5 * time.Millisecond)
	if r, h := keysScanAll(t, p.Redis, "MATCH", "gone"), keysScanAll(t, p.HotKV, "MATCH", "gone"); len(r) != 0 || len(h) != 0 {
		t.Errorf("expired key returned by SCAN: redis %v hotkv %v", r, h)
	}
}

// TestKeysScanGuarantee adds and removes keys from a second connection
// while a SCAN iteration runs: every key present throughout must come
// back.
func TestKeysScanGuarantee(t *testing.T) {
	addr := sharedHotKV(t)
	scanner, writer := difftest.Dial(t, addr), difftest.Dial(t, addr)
	writer.Do("SELECT", "9")
	scanner.Do("SELECT", "9")
	writer.Do("FLUSHDB")
	stable := map[string]bool{}
	for i := 0; i < 1000; i++ {
		k := fmt.Sprintf("stable:%d", i)
		writer.Do("SET", k, "v")
		stable[k] = true
	}
	for _, count := range []string{"1", "10", "100"} {
		seen := map[string]bool{}
		cursor, step := "0", 0
		for {
			c, keys := keysParseScan(t, scanner.Do("SCAN", cursor, "COUNT", count))
			for _, k := range keys {
				seen[k] = true
			}
			if c == "0" {
				break
			}
			cursor = c
			step++
			// Churn: add new keys, delete earlier churn keys.
			for j := 0; j < 4; j++ {
				writer.Do("SET", fmt.Sprintf("churn:%s:%d:%d", count, step, j), "v")
			}
			if step > 2 {
				writer.Do("DEL", fmt.Sprintf("churn:%s:%d:0", count, step-2), fmt.Sprintf("churn:%s:%d:1", count, step-2))
			}
		}
		for k := range stable {
			if !seen[k] {
				t.Fatalf("COUNT %s: key %q present throughout was not returned", count, k)
			}
		}
	}
	writer.Do("FLUSHDB")
}

func TestKeysRandomKeyDBSize(t *testing.T) {
	p := newPair(t)
	p.Run(`
		RANDOMKEY
		DBSIZE
		SET only v
		RANDOMKEY
		DBSIZE
		SELECT 1
		RANDOMKEY
		DBSIZE
		SELECT 0
		MSET a 1 b 2 c 3
		DBSIZE
	`)
	for i := 0; i < 20; i++ {
		p.DoBoth("RANDOMKEY", func(r, h string) {
			if !slices.Contains([]string{"$4\r\nonly\r\n", "$1\r\na\r\n", "$1\r\nb\r\n", "$1\r\nc\r\n"}, h) {
				t.Errorf("RANDOMKEY = %q", h)
			}
		})
	}
	p.Do("FLUSHDB")
	p.Do("SET e v PX 1")
	time.Sleep(5 * time.Millisecond)
	p.Do("RANDOMKEY")
}

func TestKeysObject(t *testing.T) {
	p := newPair(t)
	p.Run(`
		OBJECT HELP
		object help
		OBJECT ENCODING nosuch
		OBJECT REFCOUNT nosuch
		OBJECT IDLETIME nosuch
		OBJECT FREQ nosuch
		SET k v
		OBJECT FREQ k
		OBJECT foo k
		OBJECT ENCODING k
		OBJECT REFCOUNT k
		OBJECT IDLETIME k
		SET e ""
		OBJECT ENCODING e
		OBJECT REFCOUNT e
	`)
	for _, v := range []string{"0", "1", "9999", "10000", "-1", "-0", "0123", "+1", " 1", "1 ", "1.5",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "12345678901234567890",
		"12345678901234567890123456789012345678901234", "123456789012345678901234567890123456789012345",
		strings.Repeat("a", 44), strings.Repeat("a", 45), strings.Repeat("x", 1000)} {
		p.DoArgs("SET", "s", v)
		p.Do("OBJECT ENCODING s")
		p.Do("OBJECT REFCOUNT s")
	}
	p.Run(`
		SET n 10
		INCR n
		OBJECT ENCODING n
		OBJECT REFCOUNT n
	`)
}

func TestKeysObjectIdletime(t *testing.T) {
	if testing.Short() {
		t.Skip("sleeps")
	}
	p := newPair(t)
	p.Do("SET k v")
	p.Do("SET t v")
	p.Do("SET r v")
	time.Sleep(2100 * time.Millisecond)
	// EXISTS, TYPE, TTL and OBJECT do not touch; GET and TOUCH do.
	p.Run(`
		EXISTS k
		TYPE k
		TTL k
		OBJECT ENCODING k
	`)
	p.DoBoth("OBJECT IDLETIME k", keysNear(t, 1))
	p.Do("TOUCH t")
	p.Do("RENAME r r2")
	p.Do("OBJECT IDLETIME t")
	p.Do("OBJECT IDLETIME r2")
}

// TestKeysObjectPolicies compares OBJECT under LFU and LRU maxmemory
// policies with a redis-server started the same way.
func TestKeysObjectPolicies(t *testing.T) {
	for _, args := range [][]string{
		{"--maxmemory-policy", "allkeys-lfu"},
		{"--maxmemory-policy", "volatile-lfu"},
		{"--maxmemory", "100mb", "--maxmemory-policy", "allkeys-lru"},
		{"--maxmemory", "100mb", "--maxmemory-policy", "volatile-ttl"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			if shared.redisErr != nil {
				t.Skip(shared.redisErr)
			}
			_, addr := startServer(t, args...)
			p := difftest.NewPair(t, difftest.StartRedis(t, args...), addr)
			p.Run(`
				SET k v
				SET n 5
			`)
			// The idle time is in seconds: a second may begin between the
			// SET and the OBJECT on either server.
			p.DoBoth("OBJECT IDLETIME k", func(r, h string) {
				if h[0] == '-' && h == r {
					return // LFU: Redis's error, as Redis's
				}
				if (h != ":0\r\n" && h != ":1\r\n") || r[0] != h[0] {
					t.Errorf("OBJECT IDLETIME: HotKV %q, Redis %q", h, r)
				}
			})
			p.Run(`
				OBJECT IDLETIME nosuch
				OBJECT FREQ nosuch
				OBJECT REFCOUNT k
				OBJECT REFCOUNT n
				OBJECT ENCODING n
			`)
			if strings.Contains(args[len(args)-1], "lfu") {
				p.DoBoth("OBJECT FREQ k", func(r, h string) {
					if keysInt(t, h) < 0 {
						t.Errorf("OBJECT FREQ = %q", h)
					}
				})
			} else {
				p.Do("OBJECT FREQ k")
			}
		})
	}
}

func TestKeysSwapDB(t *testing.T) {
	p := newPair(t)
	p.Run(`
		SWAPDB a b
		SWAPDB 0 b
		SWAPDB a 99
		SWAPDB 0 16
		SWAPDB -1 0
		SWAPDB 0 2147483648
		SWAPDB 2147483648 99
		SWAPDB 0 0
		SET a db0
		EXPIREAT a ` + farSec + `
		SELECT 1
		SET b db1
		SWAPDB 0 1
		GET b
		GET a
		EXPIRETIME a
		DBSIZE
		SELECT 0
		GET b
		GET a
		SWAPDB 1 0
		GET a
		SWAPDB 3 3
		GET a
		SWAPDB 0 7
		DBSIZE
		SELECT 7
		GET a
		KEYS *
	`)
}

func TestKeysFlush(t *testing.T) {
	p := newPair(t)
	p.Run(`
		SET a 1
		SELECT 1
		SET b 2
		FLUSHDB
		DBSIZE
		SELECT 0
		DBSIZE
		FLUSHDB foo
		FLUSHDB async extra
		FLUSHDB ASYNC
		DBSIZE
		SET a 1
		FLUSHDB sync
		DBSIZE
		SET a 1
		SELECT 1
		SET b 1
		FLUSHALL foo
		FLUSHALL sync async
		FLUSHALL ASYNC
		DBSIZE
		SELECT 0
		DBSIZE
		SET a 1
		FLUSHALL SYNC
		DBSIZE
		SET a 1
		FLUSHALL
		DBSIZE
	`)
}

func TestKeysRESP3(t *testing.T) {
	p := newPair(t)
	p.DoBoth("HELLO 3", func(r, h string) {})
	p.Run(`
		RANDOMKEY
		OBJECT ENCODING nosuch
		OBJECT HELP
		KEYS *
		SET k v
		TYPE k
		TTL k
		EXISTS k
		SCAN 0 MATCH k
		KEYS *
		RANDOMKEY
		OBJECT ENCODING k
		RENAME k j
		COPY j k
		SWAPDB 0 1
		DBSIZE
		FLUSHALL
	`)
}

func TestKeysCommandInfo(t *testing.T) {
	cfg, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := New(cfg)
	for _, tc := range []struct {
		name              string
		arity             int
		flags             Flag
		first, last, step int
	}{
		{"del", -2, Write, 1, -1, 1},
		{"unlink", -2, Write | Fast, 1, -1, 1},
		{"exists", -2, Readonly | Fast, 1, -1, 1},
		{"type", 2, Readonly | Fast, 1, 1, 1},
		{"touch", -2, Readonly | Fast, 1, -1, 1},
		{"expire", -3, Write | Fast, 1, 1, 1},
		{"pexpireat", -3, Write | Fast, 1, 1, 1},
		{"ttl", 2, Readonly | Fast, 1, 1, 1},
		{"pexpiretime", 2, Readonly | Fast, 1, 1, 1},
		{"persist", 2, Write | Fast, 1, 1, 1},
		{"rename", 3, Write, 1, 2, 1},
		{"renamenx", 3, Write | Fast, 1, 2, 1},
		{"copy", -3, Write | DenyOOM, 1, 2, 1},
		{"move", 3, Write | Fast, 1, 1, 1},
		{"keys", 2, Readonly | Global, 0, 0, 0},
		{"scan", -2, Readonly, 0, 0, 0},
		{"randomkey", 1, Readonly, 0, 0, 0},
		{"dbsize", 1, Readonly | Fast, 0, 0, 0},
		{"swapdb", 3, Write | Fast | Global, 0, 0, 0},
		{"flushdb", -1, Write | Global, 0, 0, 0},
		{"flushall", -1, Write | Global, 0, 0, 0},
		{"object|encoding", 3, Readonly, 2, 2, 1},
		{"object|refcount", 3, Readonly, 2, 2, 1},
		{"object|idletime", 3, Readonly, 2, 2, 1},
		{"object|freq", 3, Readonly, 2, 2, 1},
		{"object|help", 2, Loading | Stale, 0, 0, 0},
	} {
		name, sub, _ := strings.Cut(tc.name, "|")
		cmd := srv.table[name]
		if sub != "" && cmd != nil {
			cmd = cmd.Sub[sub]
		}
		if cmd == nil {
			t.Errorf("%s: not in the table", tc.name)
			continue
		}
		if cmd.Name != tc.name || cmd.Arity != tc.arity || cmd.Flags != tc.flags ||
			cmd.First != tc.first || cmd.Last != tc.last || cmd.Step != tc.step {
			t.Errorf("%s: got %s %d %v %d %d %d", tc.name, cmd.Name, cmd.Arity, cmd.Flags.Names(), cmd.First, cmd.Last, cmd.Step)
		}
	}
	// Every key a command touches is declared.
	for _, tc := range []struct {
		args string
		want []int
	}{
		{"RENAME a b", []int{1, 2}},
		{"COPY a b DB 3 REPLACE", []int{1, 2}},
		{"MOVE a 3", []int{1}},
		{"DEL a b c", []int{1, 2, 3}},
		{"OBJECT ENCODING k", []int{2}},
	} {
		args := difftest.Split(tc.args)
		bargs := make([][]byte, len(args))
		for i, a := range args {
			bargs[i] = []byte(a)
		}
		var buf [64]byte
		cmd, _ := srv.table.lookup(&buf, bargs)
		if got := cmd.keyPositions(nil, bargs); !slices.Equal(got, tc.want) {
			t.Errorf("%s: key positions %v, want %v", tc.args, got, tc.want)
		}
	}
}

// TestKeysActiveExpiry sets 1,000 keys with PX 500 on a private server and
// checks that the cron removes them without any access.
func TestKeysActiveExpiry(t *testing.T) {
	srv, addr := startServer(t)
	c := difftest.Dial(t, addr)
	var pipe []byte
	for i := 0; i < 1000; i++ {
		// 500 ms: the 1,001 replies and DBSIZE come first even on a
		// loaded machine under the race detector (50 ms did not).
		pipe = append(pipe, difftest.Encode("SET", fmt.Sprint("vol:", i), "v", "PX", "500")...)
	}
	pipe = append(pipe, difftest.Encode("SET", "persistent", "v")...)
	c.Send(pipe)
	for i := 0; i <= 1000; i++ {
		if r := c.Read(); r != "+OK\r\n" {
			t.Fatalf("SET: %q", r)
		}
	}
	if n := keysInt(t, c.Do("DBSIZE")); n != 1001 {
		t.Fatalf("DBSIZE = %d right after the SETs", n)
	}
	before := srv.stats.expiredKeys.Load()
	deadline := time.Now().Add(3 * time.Second) // expiry at 0.5 s; the cron sweeps every shard in 1.6 s at hz 10
	for {
		n := keysInt(t, c.Do("DBSIZE"))
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("DBSIZE = %d after 3 s: active expiry did not remove the keys", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := srv.stats.expiredKeys.Load() - before; got != 1000 {
		t.Errorf("expiredKeys grew by %d, want 1000", got)
	}
	if r := c.Do("GET", "persistent"); r != "$1\r\nv\r\n" {
		t.Errorf("persistent key: %q", r)
	}
}

// TestKeysConcurrent runs the multi-key commands from several connections
// at once on overlapping keys (meaningful under -race): no deadlock, and
// the key count stays consistent.
func TestKeysConcurrent(t *testing.T) {
	addr := sharedHotKV(t)
	setup := difftest.Dial(t, addr)
	setup.Do("SELECT", "10")
	setup.Do("FLUSHDB")
	setup.Do("SELECT", "11")
	setup.Do("FLUSHDB")
	const workers, rounds = 4, 200
	done := make(chan struct{}, workers)
	for w := 0; w < workers; w++ {
		go func() {
			defer func() { done <- struct{}{} }()
			c := difftest.Dial(t, addr)
			c.Do("SELECT", "10")
			for i := 0; i < rounds; i++ {
				a, b := fmt.Sprint("k", (i+w)%7), fmt.Sprint("k", (i*3+w)%7)
				c.Do("SET", a, "v")
				c.Do("RENAME", a, b)
				c.Do("COPY", b, a, "DB", "11", "REPLACE")
				c.Do("MOVE", b, "11")
				c.Do("EXPIRE", a, "100")
				c.Do("SCAN", "0", "COUNT", "3")
				c.Do("RANDOMKEY")
				c.Do("DBSIZE")
				if i%50 == 0 {
					c.Do("SWAPDB", "10", "11")
					c.Do("KEYS", "k*")
				}
			}
		}()
	}
	for w := 0; w < workers; w++ {
		<-done
	}
	setup.Do("SELECT", "10")
	setup.Do("FLUSHDB")
	setup.Do("SELECT", "11")
	setup.Do("FLUSHDB")
}

// TestKeysParseCursor checks the strtoul-compatible cursor parser.
func TestKeysParseCursor(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0", 0, true}, {"", 0, true}, {"123", 123, true}, {"+7", 7, true}, {"-0", 0, true},
		{"-1", math.MaxUint64, true}, {"18446744073709551615", math.MaxUint64, true},
		{"18446744073709551616", 0, false}, {"-", 0, false}, {"+", 0, false}, {" 1", 0, false},
		{"1 ", 0, false}, {"0x10", 0, false}, {"1.0", 0, false}, {"--1", 0, false},
	} {
		got, ok := parseCursor([]byte(tc.in))
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseCursor(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
