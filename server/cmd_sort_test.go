package server

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// sortRows runs rows on a fresh differential pair in RESP2, then again in
// RESP3, resetting Redis's errno before each SORT (sortResetErrno).
func sortRows(t *testing.T, rows string) {
	t.Helper()
	for _, proto := range []string{"2", "3"} {
		t.Run("RESP"+proto, func(t *testing.T) {
			p := newPair(t)
			p.DoBoth("HELLO "+proto, func(string, string) {})
			for _, line := range strings.Split(rows, "\n") {
				line = strings.TrimSpace(line)
				if line == "" {
					continue
				}
				if strings.HasPrefix(strings.ToUpper(line), "SORT") {
					sortResetErrno(p)
				}
				p.Do(line)
			}
		})
	}
}

// sortResetErrno clears errno in the Redis oracle. Redis 7.0's SORT tests
// errno == ERANGE after strtod without clearing it first, so once a value
// out of range has set it, every later numeric SORT fails with "One or
// more scores can't be converted into double" until something else
// clears it (here: ZADD parsing a score; XX on a missing key changes
// nothing). HotKV behaves as Redis with errno cleared.
func sortResetErrno(p *difftest.Pair) {
	p.Redis.Do("ZADD", "sort:errno:reset", "XX", "1", "x")
}

func TestSortCommandTable(t *testing.T) {
	p := newPair(t)
	p.Run(`
		COMMAND INFO sort sort_ro
		COMMAND GETKEYS sort a
		COMMAND GETKEYS sort a STORE d
		COMMAND GETKEYS sort a BY w_* GET h_*->f LIMIT 0 1 STORE d DESC ALPHA
		COMMAND GETKEYS sort a STORE d STORE e
		COMMAND GETKEYS sort a STORE
		COMMAND GETKEYS sort a LIMIT store d
		COMMAND GETKEYS sort a GET store d
		COMMAND GETKEYS sort a BY store
		COMMAND GETKEYS sort a STORE limit STORE d
		COMMAND GETKEYS sort a "store\x00x" d
		COMMAND GETKEYS sort a nosuch store d
		COMMAND GETKEYS sort_ro a
		COMMAND GETKEYS sort_ro a BY w_* GET # STORE d
		COMMAND GETKEYSANDFLAGS sort a STORE d
		COMMAND GETKEYSANDFLAGS sort a BY x GET y
		COMMAND GETKEYSANDFLAGS sort_ro a BY x GET y
		COMMAND GETKEYS sort
	`)
}

func TestSortNumeric(t *testing.T) {
	sortRows(t, `
		SORT nosuch
		SORT nosuch DESC LIMIT 0 10
		RPUSH l 3 1 2 10 -5 2.5 1e3 -inf +inf 0x10 " 7" "" 1
		SORT l
		SORT l ASC
		SORT l DESC
		SORT l desc asc
		SORT l LIMIT 0 3
		SORT l LIMIT 2 4
		SORT l LIMIT 2 4 DESC
		SORT l LIMIT -5 2
		SORT l LIMIT 0 -1
		SORT l LIMIT 0 -5
		SORT l LIMIT 3 0
		SORT l LIMIT 12 5
		SORT l LIMIT 13 5
		SORT l LIMIT 100 5
		SORT l LIMIT 1 9223372036854775807
		SORT l LIMIT 9223372036854775807 9223372036854775807
		SORT l LIMIT -9223372036854775808 -9223372036854775808
		SORT l LIMIT 0 1 LIMIT 1 2
		SORT_RO l
		SORT_RO l DESC LIMIT 1 3
		RPUSH dup 2 1 2 1 02 2.0 1
		SORT dup
		SORT dup DESC
		RPUSH z 0 -0 0.0 +0 -0.0
		SORT z
		SORT z DESC
		RPUSH big 18446744073709551616 9007199254740993 9007199254740992 1.7976931348623157e308
		SORT big
		SORT big DESC
	`)
}

func TestSortConversionErrors(t *testing.T) {
	rows := `
		RPUSH a 1 x 2
		SORT a
		SORT a DESC LIMIT 0 1
		SORT a STORE dst
		EXISTS dst
		SORT a ALPHA
	`
	// Values strtod rejects (or reads only partly), and edge cases it takes.
	for _, v := range []string{`"5 "`, `" "`, `nan`, `-nan`, `"nan(12)"`, `1e400`, `-1e400`,
		`1e-400`, `1e-310`, `4.9e-324`, `0x1p-1074`, `0x1p-1030`, `0x1.8p-1074`,
		`2.2250738585072011e-308`, `2.2250738585072014e-308`, `0x1p1024`, `1e5x`, `0x`,
		`-`, `+`, `.`, `e5`, `"5\x00abc"`, `"\x00"`, `"\x001"`, `"1\x00"`, `infinity`, `INF`, `infinit`,
		`"\t\n12"`, `1.5e`, `1.5e+`, `0x1.8`, `0x1p`, `-0x10`, `0X1P+3`} {
		rows += "DEL v\nRPUSH v 1 " + v + "\nSORT v\nSORT v DESC\n"
	}
	sortRows(t, rows)
}

func TestSortAlpha(t *testing.T) {
	sortRows(t, `
		RPUSH l banana apple Cherry "" 10 9 "a\x00c" "a\x00b" "a" "\xff" "\xc3\xa9" apple
		SORT l ALPHA
		SORT l ALPHA DESC
		SORT l ALPHA LIMIT 2 3
		SORT l ALPHA STORE dst
		LRANGE dst 0 -1
		SORT l ALPHA DESC STORE dst
		LRANGE dst 0 -1
		SORT_RO l ALPHA desc limit 0 4
		SORT l alpha asc
		RPUSH n 10 9 100 -1
		SORT n ALPHA
		SORT n ALPHA DESC
	`)
}

func TestSortBy(t *testing.T) {
	sortRows(t, `
		RPUSH l 1 2 3 4 5 6
		MSET w_1 50 w_2 40 w_3 30 w_4 40 w_6 x
		SORT l BY w_*
		SET w_6 -1
		SORT l BY w_*
		SORT l BY w_* DESC
		SORT l BY w_* LIMIT 1 2
		SORT l BY w_* LIMIT 0 100
		SORT l BY w_* ALPHA
		SORT l BY w_* ALPHA DESC
		SORT l BY w_* ALPHA STORE dst
		LRANGE dst 0 -1
		SORT l BY w_* ALPHA LIMIT 0 3
		SORT l BY nosort
		SORT l BY nosort DESC
		SORT l BY nosort LIMIT 1 3
		SORT l BY nosort LIMIT 1 3 DESC
		SORT l BY nosort LIMIT 4 10 DESC
		SORT l BY nosort LIMIT 6 1
		SORT l BY nosort LIMIT 2 0
		SORT l BY nosort ALPHA DESC
		SORT l BY w_* BY nosort
		SORT l BY nosort BY w_*
		SORT l BY "#"
		SORT l BY "w_\x00*"
		HSET h_1 f 3 g z
		HSET h_2 f 1
		HSET h_3 f 2 g a
		HSET h_4 f 1.5
		HSET h_5 f 10
		HSET h_6 g b
		SORT l BY h_*->f
		SORT l BY h_*->f DESC
		SORT l BY h_*->g ALPHA
		SORT l BY h_*->g ALPHA DESC
		SORT l BY h_*->
		SORT l BY h_*->nosuch
		SORT l BY h_*->f LIMIT 2 2
		SET h_3 notahash
		SORT l BY h_*->f
		RPUSH w_5 x
		SORT l BY w_*
		MSET *x_1 1 1x_* 2
		SORT l BY *x_*
		MSET p->1 3 p->2 1 p->3 2 p->4 4 p->5 5 p->6 6
		SORT l BY p->*
		HSET p_1-> x 9
		SORT l BY p_*->x
		MSET pre1post 6 pre2post 5 pre3post 4 pre4post 3 pre5post 2 pre6post 1
		SORT l BY pre*post
		SORT l BY pre*post->
		SORT l BY pre*post->x
		HSET pre4post x 2
		SORT l BY "pre*post->\x00y"
		SORT l BY *
		SORT l BY **
	`)
}

func TestSortGet(t *testing.T) {
	sortRows(t, `
		RPUSH l 3 1 2
		MSET d_1 one d_2 two
		HSET h_1 name a
		HSET h_3 name c age 30
		SORT l GET d_*
		SORT l GET # GET d_*
		SORT l GET d_* GET # GET h_*->name GET h_*->age
		SORT l GET nostar
		SORT l GET # DESC LIMIT 1 1
		SORT l GET "#\x00x"
		SORT l GET "##"
		SORT l GET #*
		SORT l BY nosort GET d_*
		SORT l BY d_* ALPHA GET d_* GET #
		SORT l GET d_* STORE dst
		LRANGE dst 0 -1
		SORT l GET # GET h_*->name GET nostar STORE dst
		LRANGE dst 0 -1
		SORT l LIMIT 5 5 GET d_* STORE dst
		EXISTS dst
		SORT_RO l GET d_* GET # GET h_*->age
		SET h_1 str
		SORT l GET h_*->name
		RPUSH d_3 list
		SORT l GET d_*
		SORT l GET d_* GET d_* LIMIT 0 1
	`)
}

func TestSortStore(t *testing.T) {
	sortRows(t, `
		RPUSH l 3 1 2
		SET dst x EX 100
		SORT l STORE dst
		TYPE dst
		TTL dst
		LRANGE dst 0 -1
		OBJECT ENCODING dst
		SORT l DESC STORE dst
		LRANGE dst 0 -1
		SORT nosuch STORE dst
		EXISTS dst
		SORT l LIMIT 0 0 STORE dst
		SORT l STORE dst
		SORT l LIMIT 10 1 STORE dst
		EXISTS dst
		SORT l STORE l
		LRANGE l 0 -1
		SORT l DESC STORE l
		LRANGE l 0 -1
		HSET hdst f v
		SORT l STORE hdst
		TYPE hdst
		SORT l STORE a STORE b
		EXISTS a b
		SORT l store "b\x00" STORE
		SADD s 5 3 9 1
		SORT s BY nosort STORE dst
		LRANGE dst 0 -1
		SORT s BY nosort DESC STORE dst
		LRANGE dst 0 -1
		SORT s BY nosort GET # LIMIT 1 2 STORE dst
		LRANGE dst 0 -1
		SADD s b a 10
		SORT s BY nosort STORE dst
		LRANGE dst 0 -1
		ZADD z 1 c 2 b 3 a
		SORT z BY nosort STORE dst
		LRANGE dst 0 -1
		SORT z ALPHA STORE z
		TYPE z
		LRANGE z 0 -1
		CONFIG SET list-max-listpack-size 2
		SORT l STORE dst
		OBJECT ENCODING dst
		LRANGE dst 0 -1
		CONFIG SET list-max-listpack-size -2
	`)
}

func TestSortSets(t *testing.T) {
	sortRows(t, `
		SADD i 5 -3 100 0 7
		SORT i
		SORT i DESC LIMIT 1 2
		SORT i ALPHA
		SORT i BY nosort
		SORT i BY nosort DESC LIMIT 1 3
		MSET w_5 1 w_-3 2 w_100 3 w_0 4 w_7 5
		SORT i BY w_*
		SORT i BY w_* DESC GET # GET w_*
		SORT i BY nosuch_* ALPHA
		SORT i BY nosuch_* ALPHA LIMIT 1 3
		SORT i BY nosuch_* ALPHA DESC LIMIT 0 2
		SORT_RO i BY w_*
		SADD s x y z 1 2
		SORT s ALPHA
		SORT s ALPHA DESC
		SORT s
		SORT s ALPHA LIMIT 1 3 GET #
		SADD e 1
		SREM e 1
		SORT e
	`)
	// A hash table's order is its own: compare without order.
	p := newPair(t)
	p.Run(`
		SADD s x y z 1 2 3 4 5 6 7 8 9 10
		SADD i 1 2 3
	`)
	p.DoUnordered("SORT s BY nosort")
	p.DoUnordered("SORT_RO s BY nosort")
	p.DoUnordered("SORT s BY nosort GET #")
	p.DoUnordered("SORT i BY nosort DESC")
	p.Do("SORT s BY nosort LIMIT 0 0")
	p.Do("SORT s BY nosort LIMIT 20 10")
}

func TestSortZSet(t *testing.T) {
	sortRows(t, `
		ZADD z 3 10 1 30 2 20 5 -1
		SORT z
		SORT z DESC
		SORT z BY nosort
		SORT z BY nosort DESC
		SORT z BY nosort LIMIT 1 2
		SORT z BY nosort LIMIT 1 2 DESC
		SORT z BY nosort LIMIT 3 10 DESC
		SORT z BY nosort LIMIT 4 1 DESC
		SORT z BY nosort LIMIT 5 1
		SORT z BY nosort LIMIT 0 0
		SORT z ALPHA
		SORT z ALPHA DESC LIMIT 0 2 GET #
		MSET w_10 c w_30 a w_20 b w_-1 d
		SORT z BY w_* ALPHA
		SORT z BY w_* ALPHA GET w_* STORE dst
		LRANGE dst 0 -1
		OBJECT ENCODING z
		ZADD m 1 a 2 b
		SORT m
		OBJECT ENCODING m
		ZADD m 3 c
		OBJECT ENCODING m
		ZADD m2 1 a
		SORT m2 LIMIT x 1
		OBJECT ENCODING m2
		SORT m2 BY nosort
		OBJECT ENCODING m2
		CONFIG SET zset-max-listpack-entries 0
		ZADD big 1 a
		OBJECT ENCODING big
		SORT big BY nosort
		CONFIG SET zset-max-listpack-entries 128
	`)
	// Redis's SORT_RO converts a listpack to a skiplist too; HotKV holds
	// the key only shared under SORT_RO and leaves it.
	p := newPair(t)
	p.Run(`
		ZADD z 1 a 2 b
		SORT_RO z BY nosort
	`)
	p.DoBoth("OBJECT ENCODING z", func(redis, hotkv string) {
		if redis != "$8\r\nskiplist\r\n" || hotkv != "$8\r\nlistpack\r\n" {
			t.Errorf("SORT_RO encoding: redis %q, hotkv %q", redis, hotkv)
		}
	})
}

func TestSortErrors(t *testing.T) {
	sortRows(t, `
		SORT
		SORT_RO
		SET s v
		SORT s
		SORT s BY nosort
		SORT_RO s
		HSET h f v
		SORT h
		SORT s LIMIT
		SORT s BADOPT
		SORT nosuch LIMIT 1
		SORT nosuch LIMIT 0 x
		SORT nosuch LIMIT x 0
		SORT nosuch LIMIT 1.5 2
		SORT nosuch LIMIT 99999999999999999999 1
		SORT nosuch LIMIT " 1" 1
		SORT nosuch BY
		SORT nosuch GET
		SORT nosuch STORE
		SORT nosuch ALPHA STORE
		SORT_RO nosuch STORE dst
		SORT_RO s STORE dst
		SORT s LIMIT x 1
		SORT s BY nosort BADOPT
		SORT nosuch "asc\x00junk" "DESC\x00" "alpha\x00x"
		SORT nosuch "limit\x00" 1 2 "get\x00" x "by\x00" y
		SORT nosuch ASCX
		RPUSH l 1 x
		SORT l LIMIT 0 x
		SORT l BADOPT
		SET w_1 a
		SORT l BY w_*
		SORT l BY w_* ALPHA
	`)
}

// TestSortTies compares the order of elements that compare equal, which
// comes from the sort algorithm: glibc's stable merge sort, or Redis's
// pqsort (a partial quicksort) with BY and a LIMIT.
func TestSortTies(t *testing.T) {
	p := newPair(t)
	sortResetErrno(p)
	rng := rand.New(rand.NewPCG(7, 9))
	for round := range 120 {
		p.Do("FLUSHALL")
		n := rng.IntN(70)
		if round%10 == 0 {
			n = 100 + rng.IntN(200)
		}
		args := []string{"RPUSH", "l"}
		var weights []string
		for i := 0; i < n; i++ {
			e := strconv.Itoa(rng.IntN(n + 1))
			if rng.IntN(3) == 0 {
				e = "e" + e
			}
			args = append(args, e)
			switch rng.IntN(4) {
			case 0: // missing
			case 1:
				weights = append(weights, "w_"+e, strconv.Itoa(rng.IntN(3)))
			default:
				weights = append(weights, "w_"+e, string(rune('a'+rng.IntN(3))))
			}
		}
		if n > 0 {
			p.DoArgs(args...)
		}
		if len(weights) > 0 {
			p.DoArgs(append([]string{"MSET"}, weights...)...)
		}
		for range 8 {
			line := "SORT l BY w_* ALPHA"
			if rng.IntN(3) == 0 {
				line += " DESC"
			}
			if rng.IntN(4) != 0 {
				line += fmt.Sprintf(" LIMIT %d %d", rng.IntN(n+3)-1, rng.IntN(n+3)-1)
			}
			if rng.IntN(3) == 0 {
				line += " GET # GET w_*"
			}
			if rng.IntN(4) == 0 {
				line += " STORE dst"
				p.Do(line)
				p.Do("LRANGE dst 0 -1")
				continue
			}
			p.Do(line)
		}
	}
}

// TestSortRandomized runs random option combinations over random lists,
// intsets and sorted sets.
func TestSortRandomized(t *testing.T) {
	p := newPair(t)
	sortResetErrno(p)
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 150 {
		p.Do("FLUSHALL")
		n := rng.IntN(40)
		kind := rng.IntN(3)
		var elems []string
		for i := 0; i < n; i++ {
			elems = append(elems, strconv.Itoa(rng.IntN(100)-20))
		}
		switch {
		case n == 0:
		case kind == 0:
			p.DoArgs(append([]string{"RPUSH", "k"}, elems...)...)
		case kind == 1:
			p.DoArgs(append([]string{"SADD", "k"}, elems...)...)
		default:
			args := []string{"ZADD", "k"}
			for _, e := range elems {
				args = append(args, strconv.Itoa(rng.IntN(10)), e)
			}
			p.DoArgs(args...)
		}
		for i := -20; i < 80; i++ {
			switch rng.IntN(3) {
			case 0:
				p.DoArgs("SET", fmt.Sprintf("w_%d", i), strconv.Itoa(rng.IntN(1000)))
			case 1:
				p.DoArgs("HSET", fmt.Sprintf("h_%d", i), "f", fmt.Sprintf("v%d", rng.IntN(1000)))
			}
		}
		for range 10 {
			var opts []string
			for range rng.IntN(5) {
				switch rng.IntN(8) {
				case 0:
					opts = append(opts, "BY", []string{"w_*", "nosort", "h_*->f", "nosuch_*"}[rng.IntN(4)])
				case 1:
					opts = append(opts, "LIMIT", strconv.Itoa(rng.IntN(n+4)-2), strconv.Itoa(rng.IntN(n+4)-2))
				case 2:
					opts = append(opts, "GET", []string{"#", "w_*", "h_*->f", "x"}[rng.IntN(4)])
				case 3:
					opts = append(opts, "DESC")
				case 4:
					opts = append(opts, "ASC")
				case 5:
					opts = append(opts, "ALPHA")
				case 6:
					opts = append(opts, "STORE", "dst")
				}
			}
			line := "SORT k " + strings.Join(opts, " ")
			store := strings.Contains(line, "STORE")
			nosort := strings.Contains(line, "nosort")
			switch {
			case kind == 1 && nosort && !store:
				// A hash table's order is Redis's own (an intset's is not).
				p.DoUnordered(line)
			case kind == 2 && strings.Contains(line, "BY") && !nosort && strings.Contains(line, "ALPHA"):
				// Elements that compare equal keep the order they were
				// loaded in: Redis walks a sorted set's hash table.
				if strings.Contains(line, "LIMIT") {
					p.DoBoth(line, func(redis, hotkv string) {
						if strings.SplitN(redis, "\r\n", 2)[0] != strings.SplitN(hotkv, "\r\n", 2)[0] {
							t.Errorf("%s: redis %q, hotkv %q", line, redis, hotkv)
						}
					})
					continue
				}
				p.DoUnordered(line)
				if store {
					p.DoUnordered("LRANGE dst 0 -1")
				}
			default:
				p.Do(line)
				if store {
					p.Do("LRANGE dst 0 -1")
				}
			}
		}
		_ = round
	}
}

func TestSortGlobalFor(t *testing.T) {
	split := func(line string) [][]byte {
		var args [][]byte
		for _, a := range difftest.Split(line) {
			args = append(args, []byte(a))
		}
		return args
	}
	for _, row := range []struct {
		line   string
		global bool
	}{
		{"SORT l", false},
		{"SORT l DESC LIMIT 0 10 ALPHA", false},
		{"SORT l STORE d", false},
		{"SORT l BY nosort", false},
		{"SORT l BY nosort GET #", false},
		{"SORT l GET nostar", false},
		{"SORT l BY w_*", true},
		{"SORT l BY w_* BY nosort", false},
		{"SORT l GET #", false},
		{"SORT l GET d_*", true},
		{"SORT l GET # GET h_*->f", true},
		{`SORT l BY "w_\x00*"`, false},
		{"SORT l BY #*", true},
		{"SORT l BY w_* BADOPT", false},    // a syntax error touches no key
		{"SORT l BY w_* LIMIT x 1", false}, // neither does a bad number
		{"SORT {t}l BY {t}w_*", false},
		{"SORT {t}l BY {t}w_*->f GET {t}d_* GET #", false},
		{"SORT {t}l BY w{t}_*", false},
		{"SORT {t}l BY {u}w_*", true},
		{"SORT {t}l BY {}w_*", true},
		{"SORT {t}l BY {t*}", true},
		{"SORT {t}l BY {*}", true},
		{"SORT {t}l BY *{t}", true},
		{"SORT t BY {t}w_*", false},
		{"SORT l BY {t}w_* STORE {t}d", false},
		{"SORT l BY {t}w_* STORE {u}d", true},
		{"SORT l STORE limit STORE d", true},
		{"SORT l STORE limit STORE l", false},
		{"SORT l STORE d STORE e", false},
		{"SORT_RO l", false},
		{"SORT_RO l BY w_*", true},
		{"SORT_RO {t}l BY {t}w_* GET {t}x_*", false},
		{"SORT_RO l STORE d", false},
	} {
		args := split(row.line)
		sharedHotKV(t)
		cmd := shared.srv.table[strings.ToLower(string(args[0]))]
		if got := cmd.GlobalFor(args); got != row.global {
			t.Errorf("%s: global %v, want %v", row.line, got, row.global)
		}
	}
}

// TestSortPatternsConcurrent sorts by and gets pattern keys while other
// clients rewrite them: every reply must come from one consistent
// state (MSET sets all the pattern keys at once), with the global lock,
// or the tag lock when the patterns share the sorted key's hash tag.
func TestSortPatternsConcurrent(t *testing.T) {
	addr := sharedHotKV(t)
	const n = 20
	for _, tag := range []string{"", "{t}"} {
		t.Run("tag="+tag, func(t *testing.T) {
			list := tag + "sortconc:l"
			w := tag + "sortconc:w_"
			h := tag + "sortconc:h_"
			setup := difftest.Dial(t, addr)
			args := []string{"DEL", list}
			for i := range n {
				args = append(args, w+strconv.Itoa(i), h+strconv.Itoa(i))
			}
			setup.Do(args...)
			args = []string{"RPUSH", list}
			for i := range n {
				args = append(args, strconv.Itoa(i))
			}
			setup.Do(args...)
			// Generation g: weight w_i = g*1000 + i (g even) or g*1000 +
			// n-i (g odd); h_i's field f = g.
			write := func(c *difftest.Conn, g int) {
				args := []string{"MSET"}
				for i := range n {
					v := i
					if g%2 == 1 {
						v = n - i
					}
					args = append(args, w+strconv.Itoa(i), strconv.Itoa(g*1000+v))
				}
				if r := c.Do(args...); r != "+OK\r\n" {
					t.Errorf("MSET: %q", r)
				}
				for i := range n {
					c.Do("HSET", h+strconv.Itoa(i), "f", strconv.Itoa(g))
				}
			}
			write(setup, 0)

			var stop atomic.Bool
			var wg sync.WaitGroup
			for wi := range 2 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					c := difftest.Dial(t, addr)
					for g := 1 + wi; !stop.Load(); g += 2 {
						write(c, g)
					}
				}()
			}
			defer func() { // also when a check fails
				stop.Store(true)
				wg.Wait()
			}()
			deadline := time.Now().Add(time.Second)
			checks := 0
			for time.Now().Before(deadline) {
				for _, ro := range []string{"SORT", "SORT_RO"} {
					checks++
					r := parseRV(setup.Do(ro, list, "BY", w+"*", "GET", "#", "GET", w+"*", "GET", h+"*->f"))
					if len(r.elems) != 3*n {
						t.Fatalf("%s: reply %q", ro, r.raw)
					}
					prev, gen := -1, -1
					for i := 0; i < 3*n; i += 3 {
						id, _ := strconv.Atoi(r.elems[i].str)
						wt, err := strconv.Atoi(r.elems[i+1].str)
						if err != nil {
							t.Fatalf("%s: weight %q", ro, r.elems[i+1].str)
						}
						if wt <= prev {
							t.Fatalf("%s: weights out of order: %q", ro, r.raw)
						}
						prev = wt
						g := wt / 1000
						if gen == -1 {
							gen = g
						}
						want := id
						if g%2 == 1 {
							want = n - id
						}
						if g != gen || wt != g*1000+want {
							t.Fatalf("%s: mixed generations: %q", ro, r.raw)
						}
					}
				}
			}
			t.Logf("%d consistent sorts", checks)
		})
	}
}

// Pattern lookups count as keyspace hits and misses, as Redis's
// lookupKeyRead counts them.
func TestSortKeyspaceStats(t *testing.T) {
	p := newPair(t)
	sortResetErrno(p)
	p.Run(`
		RPUSH l 1 2 3 4
		MSET w_1 4 w_2 3 d_1 x
		HSET h_3 f 1
		CONFIG RESETSTAT
		SORT l BY w_* GET d_* GET # GET h_*->f GET nostar
		SORT_RO l BY h_*->f ALPHA LIMIT 1 2 GET w_*
		SORT l BY nosort GET d_* STORE dst
		SORT nosuch BY w_* GET d_*
		SORT l BY w_* LIMIT 0 0 GET d_*
	`)
	bhvSameFields(t, p, "stats", "keyspace_hits", "keyspace_misses")
}

// pqsort puts in ranks lo..hi what a full sort puts there; msort is a
// stable sort. No redis-server needed.
func TestSortAlgorithms(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	cmp := func(a, b *sortItem) int {
		switch {
		case a.score < b.score:
			return -1
		case a.score > b.score:
			return 1
		}
		return 0
	}
	for range 2000 {
		n := rng.IntN(300)
		v := make([]sortItem, n)
		for i := range v {
			v[i].score = float64(rng.IntN(n/3 + 1))
			v[i].elem = []byte(strconv.Itoa(i)) // the original position
		}
		want := slices.Clone(v)
		slices.SortStableFunc(want, func(a, b sortItem) int { return cmp(&a, &b) })
		got := slices.Clone(v)
		msort(got, make([]sortItem, n), cmp)
		for i := range got {
			if string(got[i].elem) != string(want[i].elem) {
				t.Fatalf("msort: position %d holds %s, want %s", i, got[i].elem, want[i].elem)
			}
		}
		if n == 0 {
			continue
		}
		lo := rng.IntN(n)
		hi := lo + rng.IntN(n-lo)
		got = slices.Clone(v)
		pqsort(got, lo, hi, cmp)
		for i := lo; i <= hi; i++ {
			if got[i].score != want[i].score {
				t.Fatalf("pqsort %d..%d of %d: rank %d holds %v, want %v", lo, hi, n, i, got[i].score, want[i].score)
			}
		}
	}
}

// SORT ... STORE serves a client blocked on the destination, with or
// without the global lock.
func TestSortStoreServesBlocked(t *testing.T) {
	newPair(t) // skips without redis-server, flushes both
	for _, addr := range []string{shared.redis, sharedHotKV(t)} {
		for _, by := range []string{"nosort", "w_*"} {
			c := difftest.Dial(t, addr)
			waiter := difftest.Dial(t, addr)
			c.Do("DEL", "sortblk:l", "sortblk:dst")
			c.Do("RPUSH", "sortblk:l", "3", "1", "2")
			waiter.Send(difftest.Encode("BLPOP", "sortblk:dst", "5"))
			for !strings.Contains(c.Do("INFO", "clients"), "blocked_clients:1") {
				time.Sleep(time.Millisecond)
			}
			if r := c.Do("SORT", "sortblk:l", "BY", by, "STORE", "sortblk:dst"); r != ":3\r\n" {
				t.Fatalf("%s: SORT: %q", addr, r)
			}
			want := "*2\r\n$11\r\nsortblk:dst\r\n$1\r\n3\r\n"
			if by != "nosort" {
				want = "*2\r\n$11\r\nsortblk:dst\r\n$1\r\n1\r\n"
			}
			if r := waiter.Read(); r != want {
				t.Errorf("%s BY %s: BLPOP got %q, want %q", addr, by, r, want)
			}
			if r := c.Do("LRANGE", "sortblk:dst", "0", "-1"); r != "*2\r\n$1\r\n2\r\n$1\r\n3\r\n" && r != "*2\r\n$1\r\n1\r\n$1\r\n2\r\n" {
				t.Errorf("%s BY %s: left %q", addr, by, r)
			}
		}
	}
}
