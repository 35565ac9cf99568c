package server

import (
	"bufio"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/difftest"
)

// hashElems splits a raw array, set or map reply into its header line and
// the raw replies of its top-level elements (2n of them for a map).
func hashElems(t *testing.T, raw string) (head string, elems []string) {
	t.Helper()
	r := bufio.NewReader(strings.NewReader(raw))
	head, err := r.ReadString('\n')
	if err != nil || len(head) < 3 || !strings.ContainsRune("*~%", rune(head[0])) {
		t.Fatalf("want an aggregate reply, got %q", raw)
	}
	n, _ := strconv.Atoi(head[1 : len(head)-2])
	if head[0] == '%' {
		n *= 2
	}
	for i := 0; i < n; i++ {
		e, err := difftest.ReadReply(r)
		if err != nil {
			t.Fatalf("bad reply %q: %v", raw, err)
		}
		elems = append(elems, e)
	}
	return head, elems
}

// hashBulk returns the text of a raw bulk string reply.
func hashBulk(t *testing.T, raw string) string {
	t.Helper()
	v, rest := parseReply(raw)
	s, ok := v.(string)
	if !ok || rest != "" || raw[0] != '$' {
		t.Fatalf("want a bulk string, got %q", raw)
	}
	return s
}

// hashSameUnordered runs line on both servers and compares replies that
// are aggregates of elements (step 1) or of field/value pairs (step 2) in
// an unspecified order.
func hashSameUnordered(t *testing.T, p *difftest.Pair, line string, step int) {
	t.Helper()
	args := difftest.Split(line)
	want, got := p.Redis.Do(args...), p.HotKV.Do(args...)
	group := func(raw string) string {
		head, elems := hashElems(t, raw)
		var items []string
		for i := 0; i+step <= len(elems); i += step {
			items = append(items, strings.Join(elems[i:i+step], ""))
		}
		slices.Sort(items)
		return head + strings.Join(items, "")
	}
	if group(want) != group(got) {
		t.Errorf("%s (unordered)\n redis: %q\n hotkv: %q", line, want, got)
	}
}

// hashFill fills key with n fields "f<i>" = "v<i>" on both servers.
func hashFill(t *testing.T, p *difftest.Pair, key string, n int) {
	t.Helper()
	args := []string{"HSET", key}
	for i := 0; i < n; i++ {
		args = append(args, "f"+strconv.Itoa(i), "v"+strconv.Itoa(i))
	}
	p.DoArgs(args...)
}

func TestHashSetGet(t *testing.T) {
	p := newPair(t)
	p.Run(`
		HSET h a 1
		HSET h b 2 c 3
		HSET h a 10 d 4
		HSET h a 10
		HGET h a
		HGET h nofield
		HGET nokey a
		HMSET h e 5 f 6
		HMSET h2 x y
		HGETALL h
		HGETALL h2
		HSETNX h a 100
		HSETNX h g 7
		HSETNX newkey f v
		HGETALL newkey
		HMGET h a b nofield g
		HMGET nokey a b
		HLEN h
		HLEN nokey
		HSTRLEN h a
		HSTRLEN h nofield
		HSTRLEN nokey a
		HEXISTS h a
		HEXISTS h nofield
		HEXISTS nokey a
		HKEYS h
		HVALS h
		HKEYS nokey
		HVALS nokey
		HGETALL nokey
		HDEL h a nofield b
		HDEL h nofield
		HDEL nokey a
		HGETALL h
		HSET h "" ""
		HGET h ""
		HSTRLEN h ""
		HSET h "sp ace" "new\r\nline" "\x00bin\xff" "\xff\x00"
		HGETALL h
		HSET h a 1
		HGETALL h
		HDEL h c d e f g "" "sp ace" "\x00bin\xff" a
		EXISTS h
		HGETALL h
		TYPE h2
		OBJECT ENCODING h2
		HDEL h2 x
		EXISTS h2
		HSET h 123 456 -1 -2 9223372036854775808 x
		HGETALL h
		HSTRLEN h 123
	`)
}

// TestHashOrderAfterUpdates: a small hash keeps the order Redis's listpack
// keeps through updates of every size and deletions.
func TestHashOrderAfterUpdates(t *testing.T) {
	p := newPair(t)
	hashFill(t, p, "h", 20)
	p.Run(`
		HSET h f3 longer-value-than-before f5 "" f7 v8
		HDEL h f0 f10 f19
		HSET h f0 back
		HINCRBY h f1 5
		HINCRBYFLOAT h f2 1.5
		HINCRBY h new 1
		HGETALL h
		HKEYS h
		HVALS h
		HRANDFIELD h 100
		HRANDFIELD h 19 WITHVALUES
		HSCAN h 0
		OBJECT ENCODING h
	`)
}

func TestHashErrors(t *testing.T) {
	p := newPair(t)
	p.Run(`
		SET str v
		HSET str a 1
		HMSET str a 1
		HSETNX str a 1
		HGET str a
		HMGET str a
		HDEL str a
		HLEN str
		HSTRLEN str a
		HEXISTS str a
		HKEYS str
		HVALS str
		HGETALL str
		HINCRBY str a 1
		HINCRBYFLOAT str a 1
		HRANDFIELD str
		HRANDFIELD str 2
		HRANDFIELD str -2 WITHVALUES
		HSCAN str 0
		HSCAN str 0 COUNT 0
		GET str
		HSET h a 1
		GET h
		HSET h
		HSET h a
		HSET h a 1 b
		HMSET h a
		HMSET h a 1 b
		HSETNX h a
		HSETNX h a 1 2
		HGET h
		HGET h a b
		HMGET h
		HDEL h
		HLEN
		HLEN h h
		HSTRLEN h
		HEXISTS h
		HKEYS
		HVALS h x
		HGETALL h x
		HINCRBY h a
		HINCRBYFLOAT h a 1 2
		HRANDFIELD
		HSCAN h
		HGETALL h
		EXISTS nokey
	`)
}

func TestHashIncrBy(t *testing.T) {
	p := newPair(t)
	p.Run(`
		HINCRBY h a 1
		HINCRBY h a -11
		HINCRBY h b 9223372036854775807
		HINCRBY h b 1
		HINCRBY h b 0
		HINCRBY h c -9223372036854775808
		HINCRBY h c -1
		HINCRBY h c 9223372036854775807
		HINCRBY h a x
		HINCRBY h a 1.5
		HINCRBY h a ""
		HINCRBY h a " 1"
		HINCRBY h a 9223372036854775808
		HINCRBY nokey a x
		EXISTS nokey
		HSET h s str f 1.5 sp " 1" lz 01 big 9223372036854775808 e ""
		HINCRBY h s 1
		HINCRBY h f 1
		HINCRBY h sp 1
		HINCRBY h lz 1
		HINCRBY h big 1
		HINCRBY h e 1
		HSET h n -0
		HINCRBY h n 1
		HGETALL h
	`)
}

func TestHashIncrByFloat(t *testing.T) {
	p := newPair(t)
	p.Run(`
		HINCRBYFLOAT h a 1.5
		HINCRBYFLOAT h a 0.1
		HINCRBYFLOAT h a 0.2
		HINCRBYFLOAT h a -1.8
		HINCRBYFLOAT h b 5.0e3
		HINCRBYFLOAT h b -5000
		HINCRBYFLOAT h c 1e300
		OBJECT ENCODING h
		HGET h c
		HINCRBYFLOAT h2 x 0x10
		HINCRBYFLOAT h2 x 1.7976931348623157e308
		HINCRBYFLOAT h2 x 1e4000
		HINCRBYFLOAT h2 y 1e4932
		HINCRBYFLOAT h2 y 1e4932
		HINCRBYFLOAT h2 z 1e-4950
		HINCRBYFLOAT h2 x abc
		HINCRBYFLOAT h2 x ""
		HINCRBYFLOAT h2 x " 1"
		HINCRBYFLOAT h2 x inf
		HINCRBYFLOAT h2 x -inf
		HINCRBYFLOAT h2 x +Infinity
		HINCRBYFLOAT h2 x nan
		HINCRBYFLOAT h2 x 1e5000
		HINCRBYFLOAT h2 x 1e-5000
		HINCRBYFLOAT nokey x nan
		HINCRBYFLOAT nokey x inf
		EXISTS nokey
		HSET h3 s str i 10 sp " 1" inf inf ninf -inf hex 0x1p3 tiny 1e-5000 e ""
		HINCRBYFLOAT h3 s 1
		HINCRBYFLOAT h3 i 1
		HINCRBYFLOAT h3 sp 1
		HINCRBYFLOAT h3 inf 1
		HINCRBYFLOAT h3 ninf 1
		HINCRBYFLOAT h3 hex 1
		HINCRBYFLOAT h3 tiny 1
		HINCRBYFLOAT h3 e 1
		HINCRBYFLOAT h3 i -10
		HINCRBYFLOAT h3 i -0.0
		HINCRBYFLOAT h3 i 3.0000000000000000001
		HINCRBYFLOAT h3 i 1e-20
		HGETALL h3
		OBJECT ENCODING h3
	`)
}

// TestHashEncoding checks OBJECT ENCODING at Redis's conversion points,
// under the default thresholds and under changed ones.
func TestHashEncoding(t *testing.T) {
	p := newPair(t)
	t.Cleanup(func() {
		p.Do("CONFIG SET hash-max-listpack-entries 512")
		p.Do("CONFIG SET hash-max-listpack-value 64")
	})
	v64, v65 := strings.Repeat("x", 64), strings.Repeat("x", 65)
	p.Do("HSET h a 1")
	p.Do("OBJECT ENCODING h")
	p.Do("OBJECT ENCODING nokey")
	hashFill(t, p, "big", 512)
	p.Do("OBJECT ENCODING big")
	p.Do("HSET big f511 changed")
	p.Do("OBJECT ENCODING big")
	p.Do("HSET big one more")
	p.Do("OBJECT ENCODING big")
	p.Do("HDEL big one f0 f1 f2")
	p.Do("OBJECT ENCODING big") // never converts back
	for _, c := range []struct{ cmd, enc string }{
		{"HSET k a " + v64, ""},
		{"HSET k a " + v65, ""},
		{"HSET k " + v65 + " 1", ""},
		{"HMSET k a 1 b " + v65, ""},
		{"HSETNX k " + v65 + " 1", ""},
		{"HINCRBY k " + v65 + " 1", ""},
		{"HINCRBYFLOAT k " + v65 + " 1", ""},
		{"HINCRBYFLOAT k a 1e70", ""},
	} {
		p.Do("DEL k")
		p.Do("HSET k z 1")
		p.Do(c.cmd)
		p.Do("OBJECT ENCODING k")
	}
	// HSETNX on an existing field with a long value changes nothing.
	p.Run(`
		DEL k
		HSET k a 1
		HSETNX k a ` + v65 + `
		OBJECT ENCODING k
		CONFIG SET hash-max-listpack-entries 2
		HSET k b 2
		OBJECT ENCODING k
		HSET k c 3
		OBJECT ENCODING k
		DEL k
		CONFIG SET hash-max-listpack-entries 512
		HSET k a 1 b 2 c 3
		CONFIG SET hash-max-listpack-entries 2
		HGET k a
		HDEL k a
		OBJECT ENCODING k
		HSETNX k b 4
		OBJECT ENCODING k
		HINCRBY k b 1
		OBJECT ENCODING k
		HSET k a 1
		OBJECT ENCODING k
		CONFIG SET hash-max-listpack-entries 0
		HSET k0 a 1
		OBJECT ENCODING k0
		CONFIG SET hash-max-listpack-entries 512
		CONFIG SET hash-max-listpack-value 0
		HSET kv "" ""
		OBJECT ENCODING kv
		HSET kv a ""
		OBJECT ENCODING kv
		CONFIG SET hash-max-listpack-value 1kb
		HSET kv2 a ` + v65 + `
		OBJECT ENCODING kv2
	`)
}

// TestHashBig checks a hash in the table form: replies whose order is the
// table's are compared without order.
func TestHashBig(t *testing.T) {
	p := newPair(t)
	hashFill(t, p, "h", 1000)
	p.Run(`
		OBJECT ENCODING h
		HLEN h
		HGET h f500
		HMGET h f0 f999 f1000
		HEXISTS h f999
		HSTRLEN h f999
		HSET h f1 changed f2 "" f3 v3 new 1
		HINCRBY h f4 1
		HINCRBY h f5 1
		HINCRBYFLOAT h f6 0.5
		HINCRBY h v 1
		HDEL h f7 f8 nofield
		HLEN h
		HMGET h f1 f2 f3 f4 f5 f6 f7 new v
	`)
	hashSameUnordered(t, p, "HGETALL h", 2)
	hashSameUnordered(t, p, "HKEYS h", 1)
	hashSameUnordered(t, p, "HVALS h", 1)
	p.Redis.Do("HELLO", "3")
	p.HotKV.Do("HELLO", "3")
	hashSameUnordered(t, p, "HGETALL h", 2)
	args := []string{"HDEL", "h"}
	for i := 0; i < 1000; i++ {
		args = append(args, "f"+strconv.Itoa(i))
	}
	p.DoArgs(args...)
	hashSameUnordered(t, p, "HGETALL h", 2)
	p.Run(`
		HDEL h new v
		EXISTS h
		OBJECT ENCODING h
	`)
}

// TestHashResp3 checks the replies that differ in RESP3.
func TestHashResp3(t *testing.T) {
	p := newPair(t)
	p.Redis.Do("HELLO", "3")
	p.HotKV.Do("HELLO", "3")
	hashFill(t, p, "h", 5)
	p.Run(`
		HGETALL h
		HGETALL nokey
		HGET h nofield
		HGET nokey a
		HMGET h f0 nofield
		HKEYS h
		HVALS nokey
		HRANDFIELD nokey
		HRANDFIELD nokey 5
		HRANDFIELD nokey 5 WITHVALUES
		HRANDFIELD h 10 WITHVALUES
		HRANDFIELD h 5
		HRANDFIELD h 0 WITHVALUES
		HINCRBYFLOAT h x 1.5
		HINCRBY h y 1
		HSCAN h 0
		HSCAN nokey 0
		HEXISTS h f0
	`)
	p.DoBoth("HRANDFIELD h -3 WITHVALUES", func(redis, hotkv string) {
		for _, raw := range []string{redis, hotkv} {
			head, elems := hashElems(t, raw)
			if head != "*3\r\n" {
				t.Fatalf("HRANDFIELD -3 WITHVALUES: %q", raw)
			}
			for _, e := range elems {
				if _, pair := hashElems(t, e); len(pair) != 2 {
					t.Fatalf("RESP3 pair %q", e)
				}
			}
		}
	})
	p.DoBoth("HRANDFIELD h 2 WITHVALUES", func(redis, hotkv string) {
		if head, _ := hashElems(t, hotkv); head != "*2\r\n" {
			t.Fatalf("HRANDFIELD 2 WITHVALUES: %q (redis %q)", hotkv, redis)
		}
	})
	hashFill(t, p, "big", 600)
	hashSameUnordered(t, p, "HGETALL big", 2)
}

// hashRandCheck runs HRANDFIELD on both servers and checks each reply's
// properties: its length, that every field (and value) is in the hash,
// and distinctness for positive counts.
func hashRandCheck(t *testing.T, p *difftest.Pair, key string, size int, count int64, withValues bool) {
	t.Helper()
	line := fmt.Sprintf("HRANDFIELD %s %d", key, count)
	if withValues {
		line += " WITHVALUES"
	}
	p.DoBoth(line, func(redis, hotkv string) {
		t.Helper()
		for _, raw := range []string{redis, hotkv} {
			_, elems := hashElems(t, raw)
			step := 1
			if withValues {
				step = 2
			}
			want := int(-count)
			if count > 0 {
				want = min(int(count), size)
			}
			if len(elems) != want*step {
				t.Fatalf("%s: %d elements, want %d: %q", line, len(elems), want*step, raw)
			}
			seen := map[string]bool{}
			for i := 0; i < len(elems); i += step {
				f := hashBulk(t, elems[i])
				n, err := strconv.Atoi(strings.TrimPrefix(f, "f"))
				if !strings.HasPrefix(f, "f") || err != nil || n < 0 || n >= size {
					t.Fatalf("%s: field %q not in the hash", line, f)
				}
				if withValues && hashBulk(t, elems[i+1]) != "v"+f[1:] {
					t.Fatalf("%s: %q = %q", line, f, elems[i+1])
				}
				if count > 0 && seen[f] {
					t.Fatalf("%s: %q twice", line, f)
				}
				seen[f] = true
			}
		}
	})
}

func TestHashRandfield(t *testing.T) {
	p := newPair(t)
	p.Run(`
		HRANDFIELD nokey
		HRANDFIELD nokey 3
		HRANDFIELD nokey -3 WITHVALUES
		HRANDFIELD nokey 0
		HRANDFIELD nokey x
		HRANDFIELD h x
		HRANDFIELD h 1.5
		HRANDFIELD h 1 WITHVALUE
		HRANDFIELD h 1 WITHVALUES x
		HRANDFIELD nokey 1 WITHVALUE
		HRANDFIELD nokey -9223372036854775808
		HRANDFIELD nokey 9223372036854775807 WITHVALUES
		HRANDFIELD nokey 4611686018427387904 WITHVALUES
		HRANDFIELD nokey -4611686018427387904 WITHVALUES
		HRANDFIELD nokey 4611686018427387903 WITHVALUES
		HRANDFIELD nokey -4611686018427387903 WITHVALUES
		HRANDFIELD nokey 9223372036854775808
		HSET h only 1
		HRANDFIELD h
		HRANDFIELD h 1
		HRANDFIELD h -1
		HRANDFIELD h -3 WITHVALUES
		HRANDFIELD h 5 withvalues
		HRANDFIELD h 0
		HRANDFIELD h 1 "WITHVALUES\x00junk"
	`)
	for _, size := range []int{10, 1000} {
		key := "h" + strconv.Itoa(size)
		hashFill(t, p, key, size)
		for _, count := range []int64{1, 2, 3, 5, int64(size/3 + 1), int64(size - 1), int64(size), int64(size + 5), -1, -5, -int64(size * 2)} {
			hashRandCheck(t, p, key, size, count, false)
			hashRandCheck(t, p, key, size, count, true)
		}
		p.DoBoth("HRANDFIELD "+key, func(redis, hotkv string) {
			for _, raw := range []string{redis, hotkv} {
				if f := hashBulk(t, raw); !strings.HasPrefix(f, "f") {
					t.Fatalf("HRANDFIELD: %q", raw)
				}
			}
		})
	}
	// Whole small hashes come back in the hash's order: identical replies.
	p.Do("HRANDFIELD h10 10")
	p.Do("HRANDFIELD h10 11 WITHVALUES")
	// Every field turns up.
	seen := map[string]bool{}
	for i := 0; i < 200 && len(seen) < 10; i++ {
		seen[hashBulk(t, p.HotKV.Do("HRANDFIELD", "h10"))] = true
	}
	if len(seen) != 10 {
		t.Fatalf("HRANDFIELD drew only %d of 10 fields in 200 tries", len(seen))
	}
}

func TestHashScan(t *testing.T) {
	p := newPair(t)
	hashFill(t, p, "h", 20)
	p.Run(`
		HSCAN h 0
		HSCAN h 0 COUNT 1
		HSCAN h 12345 COUNT 3
		HSCAN h 0 MATCH f1*
		HSCAN h 0 match F1* count 100
		HSCAN h 0 MATCH *
		HSCAN h 0 MATCH nothing
		HSCAN h 0 MATCH f? MATCH f1?
		HSCAN h 0 COUNT 5 COUNT 7
		HSCAN h 0 COUNT 0
		HSCAN h 0 COUNT -1
		HSCAN h 0 COUNT x
		HSCAN h 0 COUNT
		HSCAN h 0 MATCH
		HSCAN h 0 TYPE string
		HSCAN h 0 NOVALUES
		HSCAN h x
		HSCAN h -1
		HSCAN h 18446744073709551616
		HSCAN h ""
		HSCAN nokey 0
		HSCAN nokey 0 COUNT 0
		HSCAN nokey 0 badoption
		HSCAN nokey x
		HSCAN h 0 "COUNT\x00x" 2
	`)
	// A big hash: a full iteration returns every field exactly as Redis
	// has them, whatever the COUNT.
	hashFill(t, p, "big", 2000)
	for _, count := range []string{"", " COUNT 1", " COUNT 100", " COUNT 5000"} {
		for _, match := range []string{"", " MATCH f1*"} {
			want := map[string]string{}
			got := map[string]string{}
			for _, side := range []struct {
				c   *difftest.Conn
				out map[string]string
			}{{p.Redis, want}, {p.HotKV, got}} {
				cursor := "0"
				for calls := 0; ; calls++ {
					if calls > 10000 {
						t.Fatal("HSCAN does not end")
					}
					raw := side.c.Do(difftest.Split("HSCAN big " + cursor + match + count)...)
					_, top := hashElems(t, raw)
					cursor = hashBulk(t, top[0])
					_, elems := hashElems(t, top[1])
					for i := 0; i < len(elems); i += 2 {
						side.out[hashBulk(t, elems[i])] = hashBulk(t, elems[i+1])
					}
					if cursor == "0" {
						break
					}
				}
			}
			if fmt.Sprint(want) != fmt.Sprint(got) {
				t.Errorf("HSCAN big%s%s: redis %d fields, hotkv %d", match, count, len(want), len(got))
			}
		}
	}
	p.DoBoth("HSCAN big 0 COUNT 10", func(redis, hotkv string) {
		_, top := hashElems(t, hotkv)
		_, elems := hashElems(t, top[1])
		if hashBulk(t, top[0]) == "0" || len(elems) == 0 || len(elems) > 2*100 {
			t.Errorf("HSCAN big 0 COUNT 10: %q", hotkv)
		}
	})
}

// TestHashKeyspace checks hashes through the generic key commands.
func TestHashKeyspace(t *testing.T) {
	p := newPair(t)
	hashFill(t, p, "h", 5)
	hashFill(t, p, "big", 600)
	p.Run(`
		TYPE h
		COPY h h2
		HSET h f0 changed
		HDEL h f1
		HGETALL h2
		OBJECT ENCODING h2
		COPY big big2
		HSET big f0 changed
		HGET big2 f0
		HLEN big2
		OBJECT ENCODING big2
		RENAME h h3
		HGETALL h3
		EXISTS h
		DEL h3 big
		EXISTS h3 big
		EXPIRE h2 100
		HSET h2 new 1
		TTL h2
	`)
}
