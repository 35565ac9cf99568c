package server

import (
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/config"
	"github.com/hotkv/hotkv/internal/difftest"
	"github.com/hotkv/hotkv/keyspace"
	"github.com/hotkv/hotkv/resp"
)

// makeList creates key as a list on both servers, for WRONGTYPE cases.
// Until HotKV has list commands, the HotKV side gets a list entry injected
// straight into the shared server's database 0.
func makeList(t *testing.T, p *difftest.Pair, key string) {
	t.Helper()
	if r := p.HotKV.Do("RPUSH", key, "x"); strings.HasPrefix(r, "-ERR unknown command") {
		shared.srv.dbs[0].Set([]byte(key), keyspace.NewObject([]byte(key), keyspace.KindList, nil))
	}
	p.Redis.Do("RPUSH", key, "x")
}

// pttl returns key's PTTL on both servers (-2 missing, -1 no expiry). It
// reads HotKV's database directly while HotKV has no PTTL command.
func pttl(t *testing.T, p *difftest.Pair, key string) (redis, hotkv int64) {
	t.Helper()
	redis = intReply(t, p.Redis.Do("PTTL", key))
	if r := p.HotKV.Do("PTTL", key); !strings.HasPrefix(r, "-ERR unknown command") {
		return redis, intReply(t, r)
	}
	db := shared.srv.dbs[0]
	e := db.Peek([]byte(key))
	switch {
	case e == nil:
		return redis, -2
	case e.Expire() == 0:
		return redis, -1
	}
	return redis, e.Expire() - db.Now()
}

// checkTTL fails unless key's PTTL agrees on both servers within a second.
func checkTTL(t *testing.T, p *difftest.Pair, key string) {
	t.Helper()
	r, h := pttl(t, p, key)
	if r < 0 || h < 0 {
		if r != h {
			t.Errorf("PTTL %s: redis %d, hotkv %d", key, r, h)
		}
		return
	}
	if d := r - h; d < -1000 || d > 1000 {
		t.Errorf("PTTL %s: redis %d, hotkv %d", key, r, h)
	}
}

func intReply(t *testing.T, r string) int64 {
	t.Helper()
	if !strings.HasPrefix(r, ":") {
		t.Fatalf("want an integer reply, got %q", r)
	}
	n, err := strconv.ParseInt(strings.TrimSpace(r[1:]), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// parseReply decodes a raw RESP2 reply into strings, int64s and []any.
func parseReply(r string) (any, string) {
	i := strings.Index(r, "\r\n")
	head, rest := r[:i], r[i+2:]
	switch head[0] {
	case '+', '-':
		return head[1:], rest
	case ':':
		n, _ := strconv.ParseInt(head[1:], 10, 64)
		return n, rest
	case '$':
		n, _ := strconv.Atoi(head[1:])
		if n < 0 {
			return nil, rest
		}
		return rest[:n], rest[n+2:]
	case '*':
		n, _ := strconv.Atoi(head[1:])
		out := make([]any, 0, max(n, 0))
		for ; n > 0; n-- {
			var v any
			v, rest = parseReply(rest)
			out = append(out, v)
		}
		return out, rest
	}
	panic("unexpected reply " + r)
}

// TestStringCommandTable checks every row of the string group against
// Redis's COMMAND INFO: arity, flags and the legacy key positions.
func TestStringCommandTable(t *testing.T) {
	p := newPair(t)
	for _, cmd := range stringCommands() {
		raw := p.Redis.Do("COMMAND", "INFO", cmd.Name)
		v, _ := parseReply(raw)
		info := v.([]any)[0].([]any)
		var flags []string
		for _, f := range info[2].([]any) {
			flags = append(flags, f.(string))
		}
		got := fmt.Sprint(cmd.Arity, cmd.Flags.Names(), cmd.First, cmd.Last, cmd.Step)
		want := fmt.Sprint(info[1], flags, info[3], info[4], info[5])
		if got != want {
			t.Errorf("%s: hotkv %s, redis %s", cmd.Name, got, want)
		}
	}
}

func TestStringGetSet(t *testing.T) {
	p := newPair(t)
	p.Run(`
		GET nokey
		SET k v
		GET k
		SET k ""
		GET k
		SET k "bin\x00ary\r\n"
		GET k
		SET k v NX
		SET k v2 XX
		GET k
		SET other v XX
		GET other
		SET other v1 NX
		SET other v2 NX GET
		SET k v3 GET
		SET new v GET
		SET new2 v XX GET
		GET new2
		SET k v nx xx
		SET k v xx nx
		SET k v nx NX
		SET k v xX Xx
		SET k v get GET
		SET k v foo
		SET k v EX
		SET k v PX
		SET k v ex 10 px 100
		SET k v ex 10 exat 100
		SET k v ex 10 keepttl
		SET k v keepttl ex 10
		SET k v keepttl keepttl
		SET k v PERSIST
		SET k v ex 10 ex 20
		SET k v px 10 px 20
		SET k v "nx\x00junk"
		SET k v "ex\x00" 10
		SET k v "e"
		SET k v nxx
		SET k v EX 0
		SET k v EX -1
		SET k v EX abc
		SET k v EX 1.5
		SET k v EX " 1"
		SET k v EX 01
		SET k v EX 9223372036854775807
		SET k v EX 9223372036854776
		SET k v EX 9223372036854775
		SET k v PX 0
		SET k v PX -5
		SET k v PX 9223372036854775807
		SET k v PX 9223372036854775808
		SET k v EXAT 0
		SET k v EXAT -1
		SET k v PXAT 0
		SET k v EXAT 9223372036854776
		SET k v EXAT 9223372036854775
		SET k v PXAT 9223372036854775807
		GET k
		SET k v PXAT 1
		GET k
		SET k v EXAT 1 GET
		GET k
		SET k
		SET
		GET
		GET a b
	`)
}

func TestStringSetExpire(t *testing.T) {
	p := newPair(t)
	for _, tc := range []struct{ script, key string }{
		{"SET k v EX 100", "k"},
		{"SET k v PX 100000", "k"},
		{"SET k v", "k"},
		{"SET k v EX 100\nSET k v2", "k"},
		{"SET k v EX 100\nSET k v2 KEEPTTL", "k"},
		{"SET k v EX 100\nSET k v2 KEEPTTL GET", "k"},
		{"SET k v EX 100\nSET k v2 XX PX 5000000", "k"},
		{"SET k v EX 100\nSET k v2 NX PX 5000000", "k"},
		{"SET k v EX 100\nSET k v2 KEEPTTL XX", "k"},
		{"SET k vvvvvvvvvvvvvvvvvvvvvv EX 100\nSET k v KEEPTTL", "k"},
		{"SET k v\nSET k v2 KEEPTTL", "k"},
		{"SET k v EXAT 4102444800", "k"},
		{"SET k v PXAT 4102444800000", "k"},
		{"SET k v EXAT 9223372036854775", "k"},
		{"SET k v EX 100\nSET k v2 EX 0", "k"},
		{"SETEX k 100 v", "k"},
		{"PSETEX k 100000 v", "k"},
		{"SETEX k 100 v\nSETEX k 200 v", "k"},
		{"SETEX k 100 v\nSETNX k v2", "k"},
		{"SETEX k 100 v\nGETSET k v2", "k"},
		{"SETEX k 100 v\nMSET k v2", "k"},
		{"SETEX k 100 v\nAPPEND k v2", "k"},
		{"SETEX k 100 v\nSETRANGE k 5 v2", "k"},
		{"SETEX k 100 10\nINCR k", "k"},
		{"SETEX k 100 10\nDECRBY k 3", "k"},
		{"SETEX k 100 10\nINCRBYFLOAT k 1.5", "k"},
		{"SET k v\nGETEX k EX 100", "k"},
		{"SET k v\nGETEX k PX 100000", "k"},
		{"SET k v\nGETEX k EXAT 4102444800", "k"},
		{"SET k v\nGETEX k PXAT 4102444800000", "k"},
		{"SETEX k 100 v\nGETEX k", "k"},
		{"SETEX k 100 v\nGETEX k PERSIST", "k"},
		{"SETEX k 100 v\nGETEX k PERSIST PERSIST", "k"},
		{"SETEX k 100 v\nGETEX k EX 0", "k"},
		{"SETEX k 100 v\nGETEX k EX 50 EX 500", "k"},
		{"SET k v\nGETEX k EXAT 1", "k"},
		{"SET k v\nGETEX k PXAT 1", "k"},
		{"SET k v\nGETEX k EX 1 PERSIST", "k"},
		{"SET k v\nGETDEL k", "k"},
	} {
		p.Do("FLUSHALL")
		p.Run(tc.script)
		p.Do("GET " + tc.key)
		checkTTL(t, p, tc.key)
	}
}

func TestStringSetVariants(t *testing.T) {
	p := newPair(t)
	p.Run(`
		SETNX k v
		SETNX k v2
		GET k
		SETNX
		SETNX k
		SETNX k v x
		SETEX k 10 v
		GET k
		SETEX k 0 v
		SETEX k -10 v
		SETEX k abc v
		SETEX k 9223372036854775 v
		SETEX k 10
		SETEX k 10 v x
		PSETEX k 10000 v2
		GET k
		PSETEX k 0 v
		PSETEX k -1 v
		PSETEX k 1.5 v
		PSETEX k 9223372036854775807 v
		PSETEX k 10
		GETSET k v3
		GETSET nokey v
		GET nokey
		GETSET k
		GETSET k v x
		GETDEL k
		GETDEL k
		GET k
		GETDEL nokey
		GETDEL
		GETDEL a b
	`)
}

func TestStringGetEx(t *testing.T) {
	p := newPair(t)
	p.Run(`
		GETEX nokey
		GETEX nokey EX 10
		GETEX nokey EX -1
		GETEX nokey EX abc
		GETEX nokey foo
		GETEX nokey EX
		SET k v
		GETEX k
		GETEX k EX 10
		GETEX k PX 10000
		GETEX k EXAT 4102444800
		GETEX k PXAT 4102444800000
		GETEX k PERSIST
		GETEX k EX 0
		GETEX k EX -1
		GETEX k PX 0
		GETEX k EXAT 0
		GETEX k PXAT -1
		GETEX k EX abc
		GETEX k EX 9223372036854775
		GETEX k PX 9223372036854775807
		GETEX k EXAT 9223372036854776
		GETEX k EX 10 PX 100
		GETEX k EX 10 PERSIST
		GETEX k PERSIST EX 10
		GETEX k PERSIST PERSIST
		GETEX k KEEPTTL
		GETEX k NX
		GETEX k XX
		GETEX k GET
		GETEX k "persist\x00x"
		GETEX k EXAT 1
		GET k
		SET k v
		GETEX k PXAT 1
		GET k
		GETEX
	`)
}

func TestStringMulti(t *testing.T) {
	p := newPair(t)
	p.Run(`
		MGET a b c
		MSET a 1 b 2
		MGET a b c
		MGET a
		MSET a 1 b
		MSET a
		MSET
		MGET
		MSET a x a y
		GET a
		MSETNX a 1 c 3
		GET c
		MSETNX c 3 d 4
		MGET a b c d
		MSETNX e 5 e 6
		GET e
		MSETNX e
		MSETNX e 1 f
		MSETNX
	`)
	makeList(t, p, "list")
	p.Run(`
		MGET a list b
		MSETNX list v z 1
		GET z
		MSET list v
		GET list
	`)
}

func TestStringAppendStrlen(t *testing.T) {
	p := newPair(t)
	p.Run(`
		STRLEN nokey
		APPEND k hello
		APPEND k " world"
		GET k
		STRLEN k
		APPEND k ""
		APPEND e ""
		GET e
		STRLEN e
		SET n 12
		APPEND n 34
		GET n
		INCR n
		APPEND n "\x00\xff"
		STRLEN n
		GET n
		APPEND
		APPEND k
		APPEND k a b
		STRLEN
		STRLEN a b
	`)
	// A long run of appends grows the buffer in place.
	for i := 0; i < 200; i++ {
		p.Do("APPEND grow " + strings.Repeat("x", i%17))
	}
	p.Do("GET grow")
	p.Do("STRLEN grow")
}

func TestStringIncrDecr(t *testing.T) {
	p := newPair(t)
	p.Run(`
		INCR n
		INCR n
		DECR n
		DECR m
		INCRBY n 10
		INCRBY n -100
		DECRBY n 5
		DECRBY n -5
		GET n
		INCRBY n abc
		INCRBY n 1.5
		INCRBY n " 1"
		INCRBY n +1
		INCRBY n 01
		INCRBY n -0
		INCRBY n 9223372036854775808
		INCRBY n -9223372036854775809
		DECRBY n -9223372036854775808
		DECRBY n 9223372036854775808
		SET n 9223372036854775807
		INCR n
		INCRBY n 0
		DECR n
		SET n -9223372036854775808
		DECR n
		DECRBY n 1
		INCRBY n -1
		INCRBY n 9223372036854775807
		DECRBY n -9223372036854775807
		SET n abc
		INCR n
		SET n ""
		INCR n
		SET n " 1"
		INCR n
		SET n "1 "
		INCR n
		SET n 1.0
		INCR n
		SET n 007
		INCR n
		SET n -0
		INCR n
		SET n 18446744073709551616
		INCR n
		SET n "1\x00"
		INCR n
		INCR
		INCR a b
		DECR
		INCRBY n
		DECRBY n
		INCRBY n 1 2
	`)
}

func TestStringIncrByFloat(t *testing.T) {
	p := newPair(t)
	p.Run(`
		INCRBYFLOAT f 10.5
		INCRBYFLOAT f 0.1
		INCRBYFLOAT f -5
		INCRBYFLOAT f 3.0e3
		INCRBYFLOAT f 5.0e3
		SET f 10.50
		INCRBYFLOAT f 5.0e3
		SET f 0.1
		INCRBYFLOAT f 0.2
		INCRBYFLOAT f -0.3
		INCRBYFLOAT g 1e20
		INCRBYFLOAT g 1e-20
		INCRBYFLOAT h -1e-20
		INCRBYFLOAT h 1.7976931348623157e308
		INCRBYFLOAT i 1e4000
		STRLEN i
		INCRBYFLOAT i 1.18e4932
		INCRBYFLOAT j 1.18e4932
		INCRBYFLOAT j 1.18e4932
		INCRBYFLOAT j -1.18e4932
		INCRBYFLOAT k 1.19e4932
		INCRBYFLOAT k 1e-4940
		INCRBYFLOAT k 1e-4951
		INCRBYFLOAT k 1.8e-4951
		INCRBYFLOAT k 1.9e-4951
		INCRBYFLOAT k 3.6e-4951
		INCRBYFLOAT k 1e-5000
		INCRBYFLOAT k 0e-99999999999999999999
		INCRBYFLOAT k 1e99999999999999999999
		INCRBYFLOAT k 1e-99999999999999999999
		INCRBYFLOAT k 0x10
		INCRBYFLOAT k 0X1.8P1
		INCRBYFLOAT k 0x.8p-1
		INCRBYFLOAT k -0x1p-3
		INCRBYFLOAT k 0x1p16383
		INCRBYFLOAT k 0x1p16384
		INCRBYFLOAT k 0x1p-16445
		INCRBYFLOAT k 0x1p-16446
		INCRBYFLOAT k 0x
		INCRBYFLOAT k 0x1p
		INCRBYFLOAT k 0xg
		INCRBYFLOAT k 0x1.
		INCRBYFLOAT k inf
		INCRBYFLOAT k -inf
		INCRBYFLOAT k +INF
		INCRBYFLOAT k Infinity
		INCRBYFLOAT k infinit
		INCRBYFLOAT k nan
		INCRBYFLOAT k NaN
		INCRBYFLOAT k -nan
		INCRBYFLOAT k "nan(1)"
		INCRBYFLOAT k abc
		INCRBYFLOAT k ""
		INCRBYFLOAT k " 1"
		INCRBYFLOAT k "1 "
		INCRBYFLOAT k "\t1"
		INCRBYFLOAT k "1\x00"
		INCRBYFLOAT k "\x00"
		INCRBYFLOAT k 1e
		INCRBYFLOAT k 1e+
		INCRBYFLOAT k 1e5x
		INCRBYFLOAT k .
		INCRBYFLOAT k -.
		INCRBYFLOAT k .5
		INCRBYFLOAT k 5.
		INCRBYFLOAT k +.5e+1
		INCRBYFLOAT k -0
		INCRBYFLOAT k 00012.5000
		INCRBYFLOAT k 1,5
		GET k
		SET z -0
		INCRBYFLOAT z -0
		SET z 0
		INCRBYFLOAT z -0.000000000000000001
		SET z 0.00000000000000001
		INCRBYFLOAT z 0
		SET z 0.000000000000000005
		INCRBYFLOAT z 0
		SET z 0.000000000000000015
		INCRBYFLOAT z 0
		SET z 0.0000000000000000151
		INCRBYFLOAT z 0
		SET z 0x1p-18
		INCRBYFLOAT z 0
		SET z 12345678901234567890123
		INCRBYFLOAT z 1
		SET z 9223372036854775807
		INCRBYFLOAT z 1
		SET s abc
		INCRBYFLOAT s 1
		SET s ""
		INCRBYFLOAT s 1
		SET s inf
		INCRBYFLOAT s 1
		SET s -inf
		INCRBYFLOAT s inf
		SET s nan
		INCRBYFLOAT s 1
		SET s " 1"
		INCRBYFLOAT s 1
		SET s 5
		INCRBYFLOAT s inf
		INCRBYFLOAT s abc
		GET s
		INCRBYFLOAT
		INCRBYFLOAT s
		INCRBYFLOAT s 1 2
	`)
	// The length limit of string2ld: 5119 characters pass, 5120 do not.
	for _, n := range []int{5118, 5119, 5120} {
		p.DoArgs("INCRBYFLOAT", "long", "1"+strings.Repeat("0", n-1))
		p.DoArgs("INCRBYFLOAT", "long2", "0."+strings.Repeat("0", n-3)+"1")
	}
	makeList(t, p, "list")
	p.Do("INCRBYFLOAT list abc")
}

// TestStringIncrByFloatRandom compares long double arithmetic and
// formatting with Redis over many random operands.
func TestStringIncrByFloatRandom(t *testing.T) {
	p := newPair(t)
	r := rand.New(rand.NewPCG(1, 2))
	num := func() string {
		var b strings.Builder
		if r.IntN(3) == 0 {
			b.WriteByte('-')
		}
		if r.IntN(20) == 0 {
			fmt.Fprintf(&b, "0x%x.%xp%d", r.Uint32(), r.Uint32(), r.IntN(200)-100)
			return b.String()
		}
		digits := 1 + r.IntN(25)
		point := r.IntN(digits + 1)
		for i := 0; i < digits; i++ {
			if i == point {
				b.WriteByte('.')
			}
			b.WriteByte(byte('0' + r.IntN(10)))
		}
		switch r.IntN(6) {
		case 0:
			fmt.Fprintf(&b, "e%d", r.IntN(40)-20)
		case 1:
			fmt.Fprintf(&b, "e%d", r.IntN(9900)-4950)
		}
		return b.String()
	}
	for i := 0; i < 400; i++ {
		if i%4 == 0 {
			p.DoArgs("SET", "f", num())
		}
		p.DoArgs("INCRBYFLOAT", "f", num())
	}
}

func TestStringGetRange(t *testing.T) {
	p := newPair(t)
	p.Run(`
		GETRANGE nokey 0 -1
		GETRANGE nokey x 1
		SET k "Hello World"
		GETRANGE k 0 4
		GETRANGE k -5 -1
		GETRANGE k 0 -1
		GETRANGE k 0 100
		GETRANGE k 5 3
		GETRANGE k 11 20
		GETRANGE k -1 -5
		GETRANGE k -100 -200
		GETRANGE k -200 -100
		GETRANGE k -100 0
		GETRANGE k 0 -100
		GETRANGE k 0 9223372036854775807
		GETRANGE k -9223372036854775808 -1
		GETRANGE k -9223372036854775808 9223372036854775807
		GETRANGE k 9223372036854775807 -9223372036854775808
		GETRANGE k x 1
		GETRANGE k 1 x
		GETRANGE k 1.5 2
		GETRANGE k 9223372036854775808 1
		SUBSTR k 0 4
		SUBSTR k -3 -1
		SUBSTR k a 1
		SET e ""
		GETRANGE e 0 -1
		GETRANGE e 0 0
		GETRANGE e -1 0
		SET n 1234
		GETRANGE n 1 2
		GETRANGE
		GETRANGE k 0
		GETRANGE k 0 1 2
		SUBSTR k 0
	`)
	makeList(t, p, "list")
	p.Do("GETRANGE list 0 -1")
	p.Do("GETRANGE list x 0")
	p.Do("SUBSTR list 0 1")
}

func TestStringSetRange(t *testing.T) {
	p := newPair(t)
	p.Run(`
		SETRANGE k 0 hello
		SETRANGE k 6 world
		GET k
		SETRANGE k 1 EL
		GET k
		SETRANGE k 20 "!"
		GET k
		STRLEN k
		SETRANGE k 3 ""
		SETRANGE k 999999999999 ""
		SETRANGE nokey 5 ""
		GET nokey
		SETRANGE nokey 0 ""
		GET nokey
		SETRANGE nokey 3 a
		GET nokey
		SETRANGE k -1 x
		SETRANGE k -1 ""
		SETRANGE nokey2 -1 ""
		SETRANGE k x x
		SETRANGE k 1.5 x
		SETRANGE k 9223372036854775808 x
		SETRANGE k 536870911 ""
		SETRANGE k 536870912 x
		SETRANGE k 536870911 xy
		SETRANGE nokey3 536870912 x
		SETRANGE nokey3 9223372036854775807 x
		SETRANGE k 9223372036854775807 x
		SETRANGE k 9223372036854775807 ""
		SET n 12
		SETRANGE n 1 5
		GET n
		INCR n
		SETRANGE n 0 "\x00"
		GET n
		SETRANGE
		SETRANGE k 0
		SETRANGE k 0 a b
	`)
	// Shrink, then grow inside the old capacity: the bytes past the old
	// end must read as zeros.
	p.Run(`
		SET big 0123456789abcdefghijklmnopqrstuvwxyz
		SET big ab
		SETRANGE big 10 Z
		GET big
		APPEND big xyz
		SETRANGE big 20 Q
		GET big
	`)
	makeList(t, p, "list")
	p.Do("SETRANGE list 0 x")
	p.Do("SETRANGE list 0 \"\"")
	p.Do("SETRANGE list -1 x")
}

func TestStringLcs(t *testing.T) {
	p := newPair(t)
	p.Run(`
		MSET key1 ohmytext key2 mynewtext
		LCS key1 key2
		LCS key1 key2 LEN
		LCS key1 key2 IDX
		LCS key1 key2 IDX MINMATCHLEN 4
		LCS key1 key2 IDX MINMATCHLEN 4 WITHMATCHLEN
		LCS key1 key2 idx withmatchlen
		LCS key1 key2 IDX MINMATCHLEN -5
		LCS key1 key2 IDX MINMATCHLEN 0
		LCS key1 key2 IDX MINMATCHLEN 100
		LCS key1 key2 IDX MINMATCHLEN 2 MINMATCHLEN 3
		LCS key1 key2 LEN LEN
		LCS key1 key2 WITHMATCHLEN
		LCS key1 key2 LEN WITHMATCHLEN
		LCS key1 key2 MINMATCHLEN 3
		LCS key1 key2 LEN IDX
		LCS key1 key2 IDX LEN
		LCS key1 key2 MINMATCHLEN
		LCS key1 key2 MINMATCHLEN x
		LCS key1 key2 MINMATCHLEN 1.5
		LCS key1 key2 MINMATCHLEN 9223372036854775808
		LCS key1 key2 FOO
		LCS key1 key2 "len\x00x"
		LCS key1 key2 IDX FOO
		LCS key1 key2 LEN IDX FOO
		LCS key1 nokey
		LCS nokey key1 IDX
		LCS nokey nokey2 LEN
		LCS key1 key1 IDX WITHMATCHLEN
		LCS key1
		LCS
		MSET a abcbdab b bdcaba
		LCS a b
		LCS b a
		LCS a b IDX WITHMATCHLEN
		LCS b a IDX WITHMATCHLEN
		MSET a "" b x
		LCS a b
		LCS a b IDX
		MSET a 1234 b 1234
		LCS a b IDX WITHMATCHLEN
		MSET a xxaaaayyy b aaaazzzaaaa
		LCS a b IDX WITHMATCHLEN
		LCS a b IDX MINMATCHLEN 4 WITHMATCHLEN
	`)
	r := rand.New(rand.NewPCG(3, 4))
	word := func() string {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = "abcd"[r.IntN(4)]
		}
		return string(b)
	}
	for i := 0; i < 60; i++ {
		p.DoArgs("MSET", "a", word(), "b", word())
		p.Do("LCS a b")
		p.Do("LCS a b IDX WITHMATCHLEN")
		p.Do("LCS a b IDX MINMATCHLEN 2")
	}
	makeList(t, p, "list")
	p.Run(`
		LCS key1 list
		LCS list key1
		LCS list nokey FOO
		LCS key1 list LEN IDX
	`)
}

// TestStringResp3 checks the replies whose RESP3 form differs: nulls and
// LCS IDX's map.
func TestStringResp3(t *testing.T) {
	p := newPair(t)
	p.DoBoth("HELLO 3", func(string, string) {})
	p.Run(`
		GET nokey
		SET k v NX GET
		SET k v2 XX GET
		SET nokey2 v XX
		GETDEL nokey
		GETEX nokey
		GETSET nokey v
		MGET k nokey
		MSET key1 ohmytext key2 mynewtext
		LCS key1 key2 IDX
		LCS key1 key2 IDX MINMATCHLEN 4 WITHMATCHLEN
		LCS key1 nokey IDX
		LCS key1 key2 LEN
		LCS key1 key2
		INCRBYFLOAT f 1.5
	`)
	p.DoBoth("HELLO 2", func(string, string) {})
}

func TestStringWrongType(t *testing.T) {
	p := newPair(t)
	makeList(t, p, "list")
	p.Run(`
		GET list
		SET list v GET
		SET list v NX GET
		SET list v EX 0 GET
		SET list v EX 10 GET
		GETSET list v
		GETDEL list
		GETEX list
		GETEX list EX 10
		GETEX list EX -1
		GETEX list FOO
		APPEND list v
		STRLEN list
		INCR list
		DECR list
		INCRBY list 1
		INCRBY list x
		DECRBY list 1
		DECRBY list -9223372036854775808
		INCRBYFLOAT list 1
		SETNX list v
		SET list v NX
	`)
	// These overwrite whatever the key held.
	makeList(t, p, "l2")
	p.Do("SET l2 v")
	p.Do("GET l2")
	makeList(t, p, "l3")
	p.Do("SETEX l3 100 v")
	p.Do("GET l3")
	makeList(t, p, "l4")
	p.Do("SET l4 v XX")
	p.Do("GET l4")
}

// TestStringProtoMaxBulk runs a pair of servers with proto-max-bulk-len at
// its minimum (1mb) to check the size limits of APPEND, SETRANGE and LCS.
func TestStringProtoMaxBulk(t *testing.T) {
	if shared.redisErr != nil {
		t.Skip("SKIPPING differential test: " + shared.redisErr.Error())
	}
	redisAddr := difftest.StartRedis(t, "--proto-max-bulk-len", "1mb")
	_, hotkvAddr := startServer(t, "--proto-max-bulk-len", "1mb")
	p := difftest.NewPair(t, redisAddr, hotkvAddr)
	p.Run(`
		SETRANGE k 1048576 x
		SETRANGE k 1048575 xy
		SETRANGE k 1048575 ""
		SETRANGE k 1048575 x
		STRLEN k
		APPEND k x
		APPEND k ""
		SETRANGE k 0 abc
		SETRANGE k 1048575 y
		SETRANGE k 1048576 ""
		GETRANGE k 0 5
		GETRANGE k -3 -1
		SETRANGE k 1048576 y
		SET small abc
		APPEND small abc
	`)
	p.DoArgs("SET", "a", strings.Repeat("x", 600))
	p.DoArgs("SET", "b", strings.Repeat("x", 600))
	p.Do("LCS a b LEN")
	p.Do("LCS a b LEN IDX")
	p.DoArgs("SET", "a", strings.Repeat("x", 500))
	p.DoArgs("SET", "b", strings.Repeat("xy", 250))
	p.Do("LCS a b LEN")
	p.Do("LCS a b IDX WITHMATCHLEN MINMATCHLEN 2")
}

// TestStringKeyspaceStats checks that the string commands count keyspace
// hits and misses as Redis does (reads count, writes do not), on a private
// pair so that no other test's commands are counted.
func TestStringKeyspaceStats(t *testing.T) {
	if shared.redisErr != nil {
		t.Skip("SKIPPING differential test: " + shared.redisErr.Error())
	}
	redisAddr := difftest.StartRedis(t)
	_, hotkvAddr := startServer(t)
	p := difftest.NewPair(t, redisAddr, hotkvAddr)
	stats := func(raw string) string {
		var out []string
		for _, line := range strings.Split(raw, "\r\n") {
			if strings.HasPrefix(line, "keyspace_hits:") || strings.HasPrefix(line, "keyspace_misses:") {
				out = append(out, line)
			}
		}
		return strings.Join(out, " ")
	}
	p.Run(`
		GET k
		SET k v
		GET k
		MGET k x y
		STRLEN k
		STRLEN x
		GETRANGE k 0 1
		SUBSTR x 0 1
		GETEX k
		GETEX x
		GETDEL k
		GETDEL k
		SET k v GET
		SET k v NX
		SET k v XX
		SET k v
		GETSET k v2
		GETSET x v
		LCS k x
		LCS k y LEN
		INCR n
		INCRBY n 2
		INCRBYFLOAT n 1
		APPEND k a
		SETRANGE k 1 b
		SETNX k v
		MSETNX k v z v
		MSET k v
		SETEX k 10 v
	`)
	r, h := stats(p.Redis.Do("INFO", "stats")), stats(p.HotKV.Do("INFO", "stats"))
	if r != h || r == "" {
		t.Errorf("keyspace stats: redis %q, hotkv %q", r, h)
	}
}

func TestStringLongDouble(t *testing.T) {
	for _, tc := range []struct{ in, out string }{
		{"10.5", "10.5"},
		{"3.0e3", "3000"},
		{"-0", "0"},
		{"0.1", "0.1"},
		{"1e20", "100000000000000000000"},
		{"0x1p-3", "0.125"},
		{"1e-18", "0"},
		{"-1e-18", "0"},
	} {
		f, ok := parseLongDouble([]byte(tc.in))
		if !ok {
			t.Errorf("parse %q failed", tc.in)
			continue
		}
		if got := string(formatLongDouble(nil, f)); got != tc.out {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.out)
		}
	}
	for _, in := range []string{"", " 1", "1 ", "nan", "1e5000", "1e-5000", "0x", "1e", ".", "+", "1\x00"} {
		if _, ok := parseLongDouble([]byte(in)); ok {
			t.Errorf("parse %q: want failure", in)
		}
	}
}

// BenchmarkGetSet runs SET and GET through the command gate, without the
// network.
func BenchmarkGetSet(b *testing.B) {
	cfg, err := config.Load("", nil)
	if err != nil {
		b.Fatal(err)
	}
	s := New(cfg)
	conn, peer := net.Pipe()
	defer conn.Close()
	defer peer.Close()
	c := &Client{srv: s, conn: newGoConn(conn), id: 1, db: s.dbs[0], w: resp.Writer{Proto: 2},
		guard: s.locks.NewGuard(1), authenticated: true}
	set := [][]byte{[]byte("SET"), []byte("key:000001"), []byte("some value of moderate size")}
	get := [][]byte{[]byte("GET"), []byte("key:000001")}
	incr := [][]byte{[]byte("INCR"), []byte("counter")}
	b.ReportAllocs()
	for b.Loop() {
		s.dispatch(c, set)
		s.dispatch(c, get)
		s.dispatch(c, incr)
		c.w.Reset()
	}
}
