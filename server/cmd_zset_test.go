package server

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/difftest"
)

// zsetEncodings runs fn twice on p: with the default thresholds (small
// sets are listpacks) and with zset-max-listpack-entries 0 (every set is
// a skiplist), restoring the setting afterwards.
func zsetEncodings(t *testing.T, p *difftest.Pair, fn func(enc string)) {
	t.Helper()
	cfgRestore(t, p, "zset-max-listpack-entries", "zset-max-listpack-value")
	for _, enc := range []string{"listpack", "skiplist"} {
		p.Do("FLUSHALL")
		if enc == "skiplist" {
			p.Do("CONFIG SET zset-max-listpack-entries 0")
		} else {
			p.Do("CONFIG SET zset-max-listpack-entries 128")
		}
		fn(enc)
	}
}

// resp3 switches both connections of p to RESP3.
func resp3(p *difftest.Pair) {
	p.Redis.Do("HELLO", "3")
	p.HotKV.Do("HELLO", "3")
}

// zsetFixture fills a few sorted sets on both servers.
const zsetFixture = `
	ZADD z 1 a 2 b 3 c 4 d 5 e 6 f
	ZADD lex 0 a 0 b 0 c 0 d 0 e 0 f 0 g 0 aa 0 ab 0 "" 0 "\x00" 0 "\xff" 0 B
	ZADD ties 1 x 1 y 1 z 2 a 2 b -1 q 0 p
	ZADD inf -inf m inf n 0 o 1.5 p -2.5 q
	SET str v
	RPUSH list x
`

func TestZSetAdd(t *testing.T) {
	p := newPair(t)
	zsetEncodings(t, p, func(enc string) {
		p.Run(zsetFixture)
		p.Run(`
			ZADD k 1 a
			ZADD k 2 b 3 c 1 a
			ZADD k CH 5 a 2 b 9 new
			ZRANGE k 0 -1 WITHSCORES
			ZADD k NX 100 a 100 nx
			ZADD k XX 100 a 100 xx
			ZADD k XX CH 100 a 7 b
			ZADD k GT CH 50 a 200 b 8 gt
			ZADD k LT CH 50 a 1 b 9 lt
			ZADD k XX GT CH 1000 a 0 b
			ZADD k XX LT 0 a 0 nothere
			ZADD k nx xx 1 a
			ZADD k NX GT 1 a
			ZADD k NX LT 1 a
			ZADD k GT LT 1 a
			ZADD k XX NX GT LT 1 a
			ZADD k INCR 1 a 2 b
			ZADD k 1
			ZADD k 1 a 2
			ZADD k NX
			ZADD k NX CH INCR
			ZADD k abc a
			ZADD k 1 a abc b
			ZADD k nan a
			ZADD k NaN a
			ZADD k "" a
			ZADD k " 1" a
			ZADD k "1 " a
			ZADD k 1e-400 a
			ZADD k 4e-320 tiny
			ZADD k 1e400 a
			ZADD k 0x10 hex 0X1p3 hexp 0x1.8p1 hexf 0x hexbad
			ZADD k "1\x00" a
			ZADD k infinity i1 -Infinity i2 +inf i3 -INF i4
			ZADD k +.5 dot 5. dot2 1e5 e5 -0 negzero 1E-3 small
			ZADD k 0.1 tenth 3.14159265358979 pi 1e17 big 123456789012345678 bigger
			ZRANGE k 0 -1 WITHSCORES
			ZSCORE k negzero
			ZINCRBY k -0 negzero
			ZADD k INCR 1 a
			ZADD k INCR -inf i1
			ZADD k INCR inf i1
			ZADD k INCR +inf i3
			ZADD k INCR -inf i3
			ZSCORE k i3
			ZADD k XX INCR 1 nothere
			ZADD k NX INCR 1 a
			ZADD k GT INCR -1 a
			ZADD k LT INCR -1 a
			ZADD k INCR GT 0 a
			ZADD nokey XX 1 a
			ZADD nokey XX INCR 1 a
			EXISTS nokey
			ZADD k ch Ch cH 1 z
			ZADD k "nx\x00junk" 1 a
			ZINCRBY k 1.5 a
			ZINCRBY k 1.5 fresh
			ZINCRBY k abc a
			ZINCRBY k nan a
			ZINCRBY k 1 a b
			ZINCRBY k 1
			ZINCRBY newz -0 m
			ZSCORE newz m
			ZINCRBY newz inf m
			ZINCRBY newz -inf m
			ZADD str 1 a
			ZINCRBY str 1 a
			ZADD list 1 a
			ZADD
			ZADD k
			ZADD k 1
			ZCARD k
			ZCARD nokey
			ZCARD str
			ZCARD
			ZCARD a b
			ZSCORE k a
			ZSCORE k nothere
			ZSCORE nokey a
			ZSCORE str a
			ZSCORE k
			ZMSCORE k a nothere b i1
			ZMSCORE nokey a b
			ZMSCORE str a
			ZMSCORE k
			ZREM k a b nothere
			ZREM k nothere
			ZREM nokey a
			ZREM str a
			ZREM k
			ZREM z a b c d e f g
			EXISTS z
			TYPE k
			OBJECT ENCODING k
		`)
		resp3(p)
		p.Run(`
			ZSCORE k z
			ZSCORE k nothere
			ZSCORE nokey a
			ZMSCORE k z nothere i2 tenth
			ZMSCORE nokey a
			ZINCRBY k 1 z
			ZADD k XX INCR 1 nothere
			ZADD k INCR 1 z
		`)
	})
}

func TestZSetRankCount(t *testing.T) {
	p := newPair(t)
	zsetEncodings(t, p, func(enc string) {
		p.Run(zsetFixture)
		p.Run(`
			ZRANK z a
			ZRANK z f
			ZRANK z nothere
			ZRANK nokey a
			ZRANK str a
			ZREVRANK z a
			ZREVRANK z f
			ZREVRANK z nothere
			ZREVRANK nokey a
			ZREVRANK str a
			ZRANK ties x
			ZRANK ties q
			ZREVRANK ties b
			ZRANK z
			ZCOUNT z 1 3
			ZCOUNT z (1 3
			ZCOUNT z (1 (3
			ZCOUNT z -inf +inf
			ZCOUNT z +inf -inf
			ZCOUNT z 3 3
			ZCOUNT z (3 3
			ZCOUNT z 3 (3
			ZCOUNT z 10 20
			ZCOUNT z "" ""
			ZCOUNT z ( +inf
			ZCOUNT z " 2" "  4"
			ZCOUNT z 0x2 0x4
			ZCOUNT z "(1e-400" 1e400
			ZCOUNT z "2\x00junk" 100
			ZCOUNT z nan 1
			ZCOUNT z 1 nan
			ZCOUNT z 1 "2 "
			ZCOUNT z ((1 2
			ZCOUNT z [1 2
			ZCOUNT z abc 2
			ZCOUNT inf -inf -inf
			ZCOUNT inf (-inf +inf
			ZCOUNT inf -inf (inf
			ZCOUNT inf inf inf
			ZCOUNT nokey 1 2
			ZCOUNT str 1 2
			ZCOUNT str a b
			ZCOUNT z 1
			ZLEXCOUNT lex - +
			ZLEXCOUNT lex + -
			ZLEXCOUNT lex - -
			ZLEXCOUNT lex + +
			ZLEXCOUNT lex [a [c
			ZLEXCOUNT lex (a [c
			ZLEXCOUNT lex (a (c
			ZLEXCOUNT lex [a (a
			ZLEXCOUNT lex [a [a
			ZLEXCOUNT lex [c [a
			ZLEXCOUNT lex [ +
			ZLEXCOUNT lex ( +
			ZLEXCOUNT lex - [
			ZLEXCOUNT lex - (
			ZLEXCOUNT lex "[\x00" "[\xff"
			ZLEXCOUNT lex "(\x00" "(\xff"
			ZLEXCOUNT lex [B [a
			ZLEXCOUNT lex a c
			ZLEXCOUNT lex "" +
			ZLEXCOUNT lex -a +
			ZLEXCOUNT lex - +a
			ZLEXCOUNT lex "+\x00" -
			ZLEXCOUNT lex "-\x00x" +
			ZLEXCOUNT ties - +
			ZLEXCOUNT ties [a [z
			ZLEXCOUNT nokey - +
			ZLEXCOUNT str - +
			ZLEXCOUNT str a b
		`)
		resp3(p)
		p.Run(`
			ZRANK z c
			ZRANK z nothere
			ZREVRANK nokey a
			ZCOUNT z 1 2
		`)
	})
}

// TestZSetRankWithScore checks Redis 7.2's ZRANK/ZREVRANK WITHSCORE, which
// the Redis 7.0 oracle does not have: the replies are checked against
// 7.2's documented ones.
func TestZSetRankWithScore(t *testing.T) {
	p := newPair(t)
	p.Do("ZADD z 1.5 a 2 b 3 c")
	for _, tc := range []struct{ cmd, want string }{
		{"ZRANK z b WITHSCORE", "*2\r\n:1\r\n$1\r\n2\r\n"},
		{"ZRANK z a withscore", "*2\r\n:0\r\n$3\r\n1.5\r\n"},
		{"ZREVRANK z a WITHSCORE", "*2\r\n:2\r\n$3\r\n1.5\r\n"},
		{"ZRANK z nothere WITHSCORE", "*-1\r\n"},
		{"ZRANK nokey a WITHSCORE", "*-1\r\n"},
		{"ZRANK z a WITHSCORES", "-ERR syntax error\r\n"},
		{"ZRANK z a WITHSCORE x", "-ERR wrong number of arguments for 'zrank' command\r\n"},
		{"ZREVRANK z a WITHSCORE x", "-ERR wrong number of arguments for 'zrevrank' command\r\n"},
		{"ZRANK z", "-ERR wrong number of arguments for 'zrank' command\r\n"},
	} {
		if got := p.HotKV.Do(difftest.Split(tc.cmd)...); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.cmd, got, tc.want)
		}
	}
	p.HotKV.Do("HELLO", "3")
	for _, tc := range []struct{ cmd, want string }{
		{"ZRANK z b WITHSCORE", "*2\r\n:1\r\n,2\r\n"},
		{"ZRANK z nothere WITHSCORE", "_\r\n"},
		{"ZRANK z nothere", "_\r\n"},
	} {
		if got := p.HotKV.Do(difftest.Split(tc.cmd)...); got != tc.want {
			t.Errorf("RESP3 %s: got %q, want %q", tc.cmd, got, tc.want)
		}
	}
}

func TestZSetRange(t *testing.T) {
	p := newPair(t)
	zsetEncodings(t, p, func(enc string) {
		p.Run(zsetFixture)
		script := `
			ZRANGE z 0 -1
			ZRANGE z 0 -1 WITHSCORES
			ZRANGE z 0 -1 withscores WITHSCORES
			ZRANGE z 2 3
			ZRANGE z -2 -1
			ZRANGE z -100 100
			ZRANGE z 3 2
			ZRANGE z 6 10
			ZRANGE z -1 -2
			ZRANGE z 0 0 WITHSCORES
			ZRANGE z -9223372036854775808 9223372036854775807
			ZRANGE z 0 9223372036854775808
			ZRANGE z a 1
			ZRANGE z 0 1 REV
			ZRANGE z 0 -1 REV WITHSCORES
			ZRANGE z 0 1 LIMIT 0 1
			ZRANGE z 0 1 LIMIT 0 -1
			ZRANGE z 0 1 LIMIT 0 -2
			ZRANGE z 0 1 LIMIT
			ZRANGE z 0 1 LIMIT 0
			ZRANGE z 0 1 LIMIT a 1
			ZRANGE z 0 1 LIMIT 0 a
			ZRANGE z 0 1 foo
			ZRANGE z 0 1 REV REV
			ZRANGE z 0 1 BYSCORE BYLEX
			ZRANGE z 1 3 BYSCORE
			ZRANGE z (1 3 BYSCORE WITHSCORES
			ZRANGE z -inf +inf BYSCORE LIMIT 1 2
			ZRANGE z -inf +inf BYSCORE LIMIT 1 -1
			ZRANGE z -inf +inf BYSCORE LIMIT -1 2
			ZRANGE z -inf +inf BYSCORE LIMIT 0 0
			ZRANGE z -inf +inf BYSCORE LIMIT 6 1
			ZRANGE z -inf +inf BYSCORE LIMIT 5 10
			ZRANGE z +inf -inf BYSCORE REV LIMIT 1 2 WITHSCORES
			ZRANGE z 3 1 BYSCORE REV
			ZRANGE z 1 3 BYSCORE REV
			ZRANGE z (3 (1 BYSCORE REV
			ZRANGE z a b BYSCORE
			ZRANGE z [a [c BYLEX
			ZRANGE lex [a [c BYLEX
			ZRANGE lex - + BYLEX LIMIT 2 3
			ZRANGE lex + - BYLEX REV LIMIT 2 3
			ZRANGE lex [c [a BYLEX REV
			ZRANGE lex - + BYLEX WITHSCORES
			ZRANGE lex a b BYLEX
			ZRANGE z 0 1 BYLEX LIMIT 0 1 WITHSCORES
			ZRANGE nokey 0 -1
			ZRANGE nokey 0 -1 WITHSCORES
			ZRANGE nokey a b
			ZRANGE str 0 -1
			ZRANGE str a b
			ZRANGE z 0
			ZREVRANGE z 0 -1
			ZREVRANGE z 0 2 WITHSCORES
			ZREVRANGE z -2 -1 WITHSCORES
			ZREVRANGE z 0 1 LIMIT 0 1
			ZREVRANGE z 0 1 REV
			ZREVRANGE z 0 1 BYSCORE
			ZREVRANGE nokey 0 1
			ZREVRANGE str 0 1
			ZRANGEBYSCORE z 2 4
			ZRANGEBYSCORE z (2 4 WITHSCORES
			ZRANGEBYSCORE z -inf +inf LIMIT 2 2 WITHSCORES
			ZRANGEBYSCORE z -inf +inf LIMIT 2 -5
			ZRANGEBYSCORE z -inf +inf LIMIT -1 2
			ZRANGEBYSCORE z 4 2
			ZRANGEBYSCORE z 2 4 BYSCORE
			ZRANGEBYSCORE z 2 4 REV
			ZRANGEBYSCORE z 2 4 LIMIT 1
			ZRANGEBYSCORE z x 4
			ZRANGEBYSCORE ties 1 1
			ZRANGEBYSCORE inf -inf -inf WITHSCORES
			ZRANGEBYSCORE inf (-inf (inf WITHSCORES
			ZRANGEBYSCORE nokey 1 2
			ZRANGEBYSCORE str 1 2
			ZREVRANGEBYSCORE z 4 2
			ZREVRANGEBYSCORE z 2 4
			ZREVRANGEBYSCORE z +inf -inf WITHSCORES LIMIT 1 3
			ZREVRANGEBYSCORE z (4 (2
			ZREVRANGEBYSCORE z 4 x
			ZRANGEBYLEX lex - +
			ZRANGEBYLEX lex [aa (c
			ZRANGEBYLEX lex - + LIMIT 3 3
			ZRANGEBYLEX lex - + LIMIT -1 3
			ZRANGEBYLEX lex - + LIMIT 1 -1
			ZRANGEBYLEX lex - + WITHSCORES
			ZRANGEBYLEX lex a +
			ZRANGEBYLEX lex + -
			ZRANGEBYLEX ties - +
			ZRANGEBYLEX nokey - +
			ZRANGEBYLEX str - +
			ZREVRANGEBYLEX lex + -
			ZREVRANGEBYLEX lex (c [aa
			ZREVRANGEBYLEX lex + - LIMIT 2 2
			ZREVRANGEBYLEX lex - +
			ZREVRANGEBYLEX ties + -
			ZREVRANGEBYLEX lex [a x
			ZRANGE ties 0 -1 WITHSCORES
			ZRANGE inf 0 -1 WITHSCORES
		`
		p.Run(script)
		if enc == "listpack" {
			// Lexical ranges over unequal scores: a listpack answers
			// deterministically (a skiplist's answer depends on its
			// random levels).
			p.Run(`
				ZRANGEBYLEX ties [x [z
				ZRANGEBYLEX ties [a [q
				ZRANGEBYLEX ties [q [b
				ZRANGEBYLEX ties (p (b LIMIT 1 10
				ZRANGEBYLEX ties [p [y LIMIT 2 10
				ZREVRANGEBYLEX ties [z [x
				ZREVRANGEBYLEX ties [q [a
				ZREVRANGEBYLEX ties [b [q LIMIT 1 10
				ZREVRANGEBYLEX ties [y [p LIMIT 1 10
				ZLEXCOUNT ties [p [y
				ZLEXCOUNT ties [b [q
				ZRANGESTORE dst ties [p [y BYLEX LIMIT 1 3
				ZRANGE dst 0 -1 WITHSCORES
				ZREMRANGEBYLEX ties [p [y
				ZRANGE ties 0 -1 WITHSCORES
			`)
		}
		resp3(p)
		p.Run(script)
	})
}

func TestZSetRangeStore(t *testing.T) {
	p := newPair(t)
	zsetEncodings(t, p, func(enc string) {
		p.Run(zsetFixture)
		p.Run(`
			ZRANGESTORE dst z 0 -1
			ZRANGE dst 0 -1 WITHSCORES
			OBJECT ENCODING dst
			ZRANGESTORE dst z 1 3 REV
			ZRANGE dst 0 -1 WITHSCORES
			ZRANGESTORE dst z 2 5 BYSCORE LIMIT 1 2
			ZRANGE dst 0 -1 WITHSCORES
			ZRANGESTORE dst z 5 2 BYSCORE REV LIMIT 1 2
			ZRANGE dst 0 -1 WITHSCORES
			ZRANGESTORE dst lex [a [c BYLEX
			ZRANGE dst 0 -1 WITHSCORES
			ZRANGESTORE dst ties [a [z BYLEX REV
			ZRANGE dst 0 -1 WITHSCORES
			ZRANGESTORE dst inf -inf inf BYSCORE
			ZRANGE dst 0 -1 WITHSCORES
			SET other x
			EXPIRE dst 100
			ZRANGESTORE other z 0 0
			TYPE other
			TTL dst
			ZRANGESTORE dst z 0 0
			TTL dst
			ZRANGESTORE dst z 10 20
			EXISTS dst
			ZRANGESTORE other nokey 0 -1
			EXISTS other
			ZRANGESTORE str2 str 0 -1
			ZRANGESTORE dst z 0 -1 WITHSCORES
			ZRANGESTORE dst z 0 -1 LIMIT 0 1
			ZRANGESTORE dst z a b
			ZRANGESTORE dst z 0 1 BYLEX
			ZRANGESTORE z z 0 1
			ZRANGE z 0 -1 WITHSCORES
			ZRANGESTORE dst z 0
		`)
	})
}

func TestZSetRemRange(t *testing.T) {
	p := newPair(t)
	zsetEncodings(t, p, func(enc string) {
		p.Run(zsetFixture)
		p.Run(`
			ZREMRANGEBYRANK z 0 0
			ZRANGE z 0 -1
			ZREMRANGEBYRANK z -2 -1
			ZRANGE z 0 -1
			ZREMRANGEBYRANK z 5 10
			ZREMRANGEBYRANK z 2 1
			ZREMRANGEBYRANK z a 1
			ZREMRANGEBYRANK z 0 -100
			ZREMRANGEBYRANK z -100 100
			EXISTS z
			ZREMRANGEBYRANK nokey 0 1
			ZREMRANGEBYRANK str 0 1
			ZREMRANGEBYRANK str a 1
			ZREMRANGEBYSCORE ties (1 2
			ZRANGE ties 0 -1 WITHSCORES
			ZREMRANGEBYSCORE ties -inf (0
			ZREMRANGEBYSCORE ties 5 1
			ZREMRANGEBYSCORE ties a 1
			ZREMRANGEBYSCORE ties -inf +inf
			EXISTS ties
			ZREMRANGEBYSCORE nokey 1 2
			ZREMRANGEBYSCORE str 1 2
			ZREMRANGEBYLEX lex [a [ab
			ZRANGE lex 0 -1
			ZREMRANGEBYLEX lex (B (c
			ZRANGE lex 0 -1
			ZREMRANGEBYLEX lex a b
			ZREMRANGEBYLEX lex + -
			ZREMRANGEBYLEX lex - +
			EXISTS lex
			ZREMRANGEBYLEX nokey - +
			ZREMRANGEBYLEX str - +
			ZREMRANGEBYLEX str a b
			ZREMRANGEBYRANK z 0
		`)
	})
}

func TestZSetPop(t *testing.T) {
	p := newPair(t)
	zsetEncodings(t, p, func(enc string) {
		p.Run(zsetFixture)
		script := `
			ZADD z 1 a 2 b 3 c 4 d 5 e 6 f
			ZPOPMIN z
			ZPOPMAX z
			ZPOPMIN z 2
			ZPOPMAX z 0
			ZPOPMIN z 1
			ZPOPMAX z 10
			EXISTS z
			ZPOPMIN z
			ZPOPMIN z 2
			ZPOPMIN z 0
			ZPOPMIN str
			ZPOPMIN str 0
			ZPOPMIN z -1
			ZPOPMIN z abc
			ZPOPMIN z 1 2
			ZPOPMAX inf 2
			ZMPOP 1 ties MIN
			ZMPOP 1 ties MAX COUNT 2
			ZMPOP 2 nokey ties MIN COUNT 100
			EXISTS ties
			ZMPOP 2 nokey ties MIN
			ZMPOP 2 nokey str MIN
			ZMPOP 2 inf str MAX
			ZMPOP 0 z MIN
			ZMPOP -1 z MIN
			ZMPOP abc z MIN
			ZMPOP 2 z MIN
			ZMPOP 1 z
			ZMPOP 1 z MID
			ZMPOP 1 z MIN COUNT
			ZMPOP 1 z MIN COUNT 0
			ZMPOP 1 z MIN COUNT -1
			ZMPOP 1 z MIN COUNT abc
			ZMPOP 1 z MIN COUNT 1 COUNT 1
			ZMPOP 1 z MIN FOO
			ZMPOP 9223372036854775807 z MIN
			ZMPOP 1
		`
		p.Run(script)
		resp3(p)
		p.Run(zsetFixture)
		p.Run(script)
	})
}

func TestZSetSetOps(t *testing.T) {
	p := newPair(t)
	zsetEncodings(t, p, func(enc string) {
		p.Run(zsetFixture)
		script := `
			ZADD a 1 x 2 y 3 z
			ZADD b 10 y 20 z 30 w
			ZADD c 100 z 200 v
			ZADD infs inf x -inf y 0 z
			ZADD neginfs -inf x inf y
			SADD s x w q
			SADD ints 1 2 3
			ZADD nums 5 1 6 2 7 9
			ZUNION 2 a b
			ZUNION 2 a b WITHSCORES
			ZUNION 3 a b c WITHSCORES
			ZUNION 3 a b c WEIGHTS 1 2 3 WITHSCORES
			ZUNION 3 a b c AGGREGATE MIN WITHSCORES
			ZUNION 3 a b c AGGREGATE MAX WITHSCORES
			ZUNION 3 a b c AGGREGATE max WEIGHTS 1 -1 0 WITHSCORES
			ZUNION 2 a nokey WITHSCORES
			ZUNION 2 nokey nokey2
			ZUNION 2 a s WITHSCORES
			ZUNION 2 ints nums WITHSCORES
			ZUNION 2 infs neginfs WITHSCORES
			ZUNION 2 infs neginfs WEIGHTS 0 1 WITHSCORES
			ZUNION 2 infs neginfs WEIGHTS -1 1 AGGREGATE MIN WITHSCORES
			ZUNION 2 a a WITHSCORES
			ZUNION 1 a WEIGHTS 2 WEIGHTS 3 WITHSCORES
			ZUNION 1 a WEIGHTS inf WITHSCORES
			ZUNION 1 a WEIGHTS 0x2 WITHSCORES
			ZUNION 2 a b WEIGHTS 1
			ZUNION 2 a b WEIGHTS 1 x
			ZUNION 2 a b WEIGHTS 1 nan
			ZUNION 2 a b AGGREGATE
			ZUNION 2 a b AGGREGATE AVG
			ZUNION 2 a b WITHSCORES FOO
			ZUNION 2 a b LIMIT 1
			ZUNION 2 a str
			ZUNION 2 str nokey WEIGHTS x y
			ZUNION 0 a
			ZUNION -1 a
			ZUNION x a
			ZUNION 3 a b
			ZUNION 9223372036854775807 a
			ZINTER 2 a b
			ZINTER 2 a b WITHSCORES
			ZINTER 3 a b c WITHSCORES
			ZINTER 2 a b WEIGHTS 2 3 AGGREGATE MAX WITHSCORES
			ZINTER 2 a b AGGREGATE MIN WITHSCORES
			ZINTER 2 a nokey
			ZINTER 2 a a WITHSCORES
			ZINTER 2 a a WEIGHTS 2 3 WITHSCORES
			ZINTER 2 a s WITHSCORES
			ZINTER 2 s s WITHSCORES
			ZINTER 2 infs neginfs WITHSCORES
			ZINTER 2 infs neginfs WEIGHTS 0 1 AGGREGATE MIN WITHSCORES
			ZINTER 2 infs neginfs WEIGHTS 0 1 AGGREGATE MAX WITHSCORES
			ZINTER 2 ints nums WITHSCORES
			ZINTER 2 a str
			ZINTER 0 a
			ZDIFF 2 a b
			ZDIFF 2 a b WITHSCORES
			ZDIFF 3 a b c WITHSCORES
			ZDIFF 2 a a
			ZDIFF 2 a nokey WITHSCORES
			ZDIFF 2 nokey a
			ZDIFF 2 a s WITHSCORES
			ZDIFF 2 s a WITHSCORES
			ZDIFF 2 a b WEIGHTS 1 2
			ZDIFF 2 a b AGGREGATE SUM
			ZDIFF 2 a str
			ZDIFF 0 a
			ZINTERCARD 2 a b
			ZINTERCARD 3 a b c
			ZINTERCARD 2 a nokey
			ZINTERCARD 2 a a
			ZINTERCARD 2 a s
			ZINTERCARD 2 a b LIMIT 0
			ZINTERCARD 2 a b LIMIT 1
			ZINTERCARD 2 a b LIMIT 10
			ZINTERCARD 2 a b LIMIT -1
			ZINTERCARD 2 a b LIMIT x
			ZINTERCARD 2 a b LIMIT
			ZINTERCARD 2 a b WITHSCORES
			ZINTERCARD 2 a b WEIGHTS 1 2
			ZINTERCARD 2 a str
			ZINTERCARD 0 a
			ZINTERCARD x a
			ZINTERCARD 3 a b
			ZUNIONSTORE dst 3 a b c
			ZRANGE dst 0 -1 WITHSCORES
			OBJECT ENCODING dst
			ZUNIONSTORE dst 2 a b WEIGHTS 2 1 AGGREGATE MIN
			ZRANGE dst 0 -1 WITHSCORES
			ZUNIONSTORE dst 2 a b WITHSCORES
			ZUNIONSTORE dst 2 nokey nokey2
			EXISTS dst
			ZUNIONSTORE dst 1 a
			ZUNIONSTORE a 2 a b
			ZRANGE a 0 -1 WITHSCORES
			ZINTERSTORE dst 2 a b
			ZRANGE dst 0 -1 WITHSCORES
			ZINTERSTORE dst 2 a c
			ZINTERSTORE dst 2 a nokey
			EXISTS dst
			ZINTERSTORE str 2 a b
			TYPE str
			ZINTERSTORE dst 2 a list
			ZDIFFSTORE dst 2 a c
			ZRANGE dst 0 -1 WITHSCORES
			ZDIFFSTORE dst 2 a a
			EXISTS dst
			ZDIFFSTORE dst 2 s a
			ZRANGE dst 0 -1 WITHSCORES
			OBJECT ENCODING dst
			ZDIFFSTORE dst 1 a WITHSCORES
			ZUNIONSTORE dst 0 a
			ZINTERSTORE dst 0 a
			ZDIFFSTORE dst 0 a
			ZUNIONSTORE dst 2 a
			ZUNIONSTORE dst x a
		`
		p.Run(script)
		resp3(p)
		p.Do("FLUSHALL")
		p.Run(zsetFixture)
		p.Run(script)
	})
}

// TestZSetUnionSumOrder checks that sums are accumulated in Redis's order
// (inputs sorted by size, stably), which floating point makes visible.
func TestZSetUnionSumOrder(t *testing.T) {
	p := newPair(t)
	p.Run(`
		ZADD a 0.1 m
		ZADD b 0.2 m 1 x
		ZADD c 0.3 m 1 y
		ZADD d 1e16 m 1 x 2 y
		ZADD e -1e16 m
		ZUNION 5 a b c d e WITHSCORES
		ZUNION 5 d c b a e WITHSCORES
		ZUNION 5 e d c b a WITHSCORES
		ZINTER 3 c b a WITHSCORES
		ZINTER 3 a b c WITHSCORES
		ZUNION 3 d e a WEIGHTS 1 1 3 WITHSCORES
	`)
}

func TestZSetEncoding(t *testing.T) {
	p := newPair(t)
	cfgRestore(t, p, "zset-max-listpack-entries", "zset-max-listpack-value")
	p.Run(`
		CONFIG SET zset-max-listpack-entries 4
		CONFIG SET zset-max-listpack-value 8
		ZADD k 1 a 2 b 3 c 4 d
		OBJECT ENCODING k
		ZADD k 5 e
		OBJECT ENCODING k
		ZREM k a b c d
		OBJECT ENCODING k
		ZADD v 1 12345678
		OBJECT ENCODING v
		ZADD v 1 123456789
		OBJECT ENCODING v
		ZADD w 1 123456789
		OBJECT ENCODING w
		ZADD x 1 a 2 123456789
		OBJECT ENCODING x
		ZADD y XX 1 a
		EXISTS y
		ZADD small 1 a 2 b
		ZADD small 3 b
		ZADD small INCR 3 b
		OBJECT ENCODING small
		ZUNIONSTORE u 1 k
		OBJECT ENCODING u
		ZUNIONSTORE u 2 k w
		OBJECT ENCODING u
		ZUNIONSTORE u 2 k x
		OBJECT ENCODING u
		ZADD big 1 a 2 b 3 c 4 d 5 e 6 f
		ZRANGESTORE r big 0 3
		OBJECT ENCODING r
		ZRANGESTORE r big 0 4
		OBJECT ENCODING r
		ZINTERSTORE r 2 big big
		OBJECT ENCODING r
		ZDIFFSTORE r 2 big k
		OBJECT ENCODING r
		ZRANGE r 0 -1 WITHSCORES
		COPY big bigcopy
		OBJECT ENCODING bigcopy
		ZRANGE bigcopy 0 -1 WITHSCORES
		COPY small smallcopy
		OBJECT ENCODING smallcopy
		ZRANGE smallcopy 0 -1 WITHSCORES
		ZADD smallcopy 9 z
		ZRANGE small 0 -1
		CONFIG SET zset-max-listpack-entries 0
		ZADD zero 1 a
		OBJECT ENCODING zero
		ZINCRBY zero2 1 a
		OBJECT ENCODING zero2
		ZUNIONSTORE u 1 small
		OBJECT ENCODING u
	`)
}

func TestZSetScan(t *testing.T) {
	p := newPair(t)
	p.Run(zsetFixture)
	// Small sets come back whole, in order, with listpack-formatted scores.
	p.Run(`
		ZADD fmt 1e17 big 123456789012345678 bigger 1e20 huge 0.1 tenth -0 nz -5 neg 2.5 f inf i -inf ni 4611686018427387904 lim
		ZSCAN fmt 0
		ZSCAN z 0
		ZSCAN z 0 COUNT 1
		ZSCAN z 0 MATCH [a-c]
		ZSCAN z 0 MATCH * COUNT 100
		ZSCAN z 0 count 0
		ZSCAN z 0 COUNT -1
		ZSCAN z 0 COUNT x
		ZSCAN z 0 MATCH
		ZSCAN z 0 TYPE zset
		ZSCAN z 0 FOO bar
		ZSCAN z x
		ZSCAN z -1
		ZSCAN z 18446744073709551616
		ZSCAN nokey 0
		ZSCAN nokey 0 FOO
		ZSCAN nokey x
		ZSCAN str 0
		ZSCAN str 0 FOO
		ZSCAN z
	`)
	resp3(p)
	p.Run(`
		ZSCAN fmt 0
		ZSCAN nokey 0
	`)

	// Big sets: every member comes back, with its score, whatever the
	// cursor order.
	p.Do("CONFIG SET zset-max-listpack-entries 128")
	args := []string{"ZADD", "bigz"}
	want := map[string]string{}
	for i := 0; i < 1000; i++ {
		m, s := fmt.Sprintf("m%d", i), strconv.FormatFloat(float64(i)/8, 'g', -1, 64)
		args = append(args, s, m)
		want[m] = s
	}
	p.DoArgs(args...)
	for _, count := range []string{"10", "100", "1"} {
		got := map[string]string{}
		cursor := "0"
		for i := 0; ; i++ {
			v := parseRV(p.HotKV.Do("ZSCAN", "bigz", cursor, "COUNT", count, "MATCH", "m*"))
			cursor = v.elems[0].str
			for j := 0; j+1 < len(v.elems[1].elems); j += 2 {
				got[v.elems[1].elems[j].str] = v.elems[1].elems[j+1].str
			}
			if cursor == "0" || i > 5000 {
				break
			}
		}
		if len(got) != len(want) {
			t.Fatalf("ZSCAN COUNT %s: %d members, want %d", count, len(got), len(want))
		}
		for m, s := range want {
			if got[m] != s {
				t.Errorf("ZSCAN: %s scored %q, want %q", m, got[m], s)
			}
		}
	}
}

// TestZSetScanGuarantee checks that a member present for a whole ZSCAN
// iteration is returned even while the set grows and shrinks (forcing
// rehashes) between calls.
func TestZSetScanGuarantee(t *testing.T) {
	p := newPair(t)
	c := p.HotKV
	for i := 0; i < 300; i++ {
		c.Do("ZADD", "g", strconv.Itoa(i), "keep"+strconv.Itoa(i))
	}
	seen := map[string]bool{}
	cursor := "0"
	for round := 0; ; round++ {
		v := parseRV(c.Do("ZSCAN", "g", cursor, "COUNT", "20"))
		cursor = v.elems[0].str
		for j := 0; j < len(v.elems[1].elems); j += 2 {
			seen[v.elems[1].elems[j].str] = true
		}
		if cursor == "0" {
			break
		}
		// Churn: grow a lot, then shrink a lot.
		if round%2 == 0 {
			for i := 0; i < 500; i++ {
				c.Do("ZADD", "g", "1", fmt.Sprintf("tmp%d-%d", round, i))
			}
		} else {
			c.Do("ZREMRANGEBYSCORE", "g", "1", "1")
			for i := 0; i < 500; i++ {
				c.Do("ZREM", "g", fmt.Sprintf("tmp%d-%d", round-1, i))
			}
		}
	}
	for i := 0; i < 300; i++ {
		if i == 1 {
			continue // removed by ZREMRANGEBYSCORE 1 1
		}
		if !seen["keep"+strconv.Itoa(i)] {
			t.Errorf("keep%d was never returned", i)
		}
	}
}

func TestZSetRandMember(t *testing.T) {
	p := newPair(t)
	zsetEncodings(t, p, func(enc string) {
		p.Run(zsetFixture)
		p.Run(`
			ZRANDMEMBER nokey
			ZRANDMEMBER nokey 5
			ZRANDMEMBER nokey 5 WITHSCORES
			ZRANDMEMBER str
			ZRANDMEMBER str 1
			ZRANDMEMBER z 0
			ZRANDMEMBER z 0 WITHSCORES
			ZRANDMEMBER z 6
			ZRANDMEMBER z 100 WITHSCORES
			ZRANDMEMBER z x
			ZRANDMEMBER z 1 WITHSCORE
			ZRANDMEMBER z 1 WITHSCORES x
			ZRANDMEMBER z -9223372036854775808
			ZRANDMEMBER z 9223372036854775807 x
			ZRANDMEMBER z -4611686018427387904 WITHSCORES
			ZRANDMEMBER z 4611686018427387904 WITHSCORES
			ZRANDMEMBER nokey -4611686018427387904 WITHSCORES
		`)
		resp3(p)
		p.Run(`
			ZRANDMEMBER z 100 WITHSCORES
			ZRANDMEMBER nokey
			ZRANDMEMBER nokey 3
		`)
		p.Redis.Do("HELLO", "2")
		p.HotKV.Do("HELLO", "2")

		members := map[string]string{"a": "1", "b": "2", "c": "3", "d": "4", "e": "5", "f": "6"}
		check := func(line string, n int, distinct, scores bool) {
			t.Helper()
			p.DoBoth(line, func(_, hot string) {
				v := parseRV(hot)
				step := 1
				if scores {
					step = 2
				}
				if len(v.elems) != n*step {
					t.Errorf("%s (%s): %d items, want %d: %q", line, enc, len(v.elems), n*step, hot)
					return
				}
				seen := map[string]bool{}
				for i := 0; i < len(v.elems); i += step {
					m := v.elems[i].str
					s, ok := members[m]
					if !ok {
						t.Errorf("%s: %q is not a member", line, m)
					}
					if scores && v.elems[i+1].str != s {
						t.Errorf("%s: %s scored %q", line, m, v.elems[i+1].str)
					}
					if distinct && seen[m] {
						t.Errorf("%s: %s twice", line, m)
					}
					seen[m] = true
				}
			})
		}
		p.Do("ZADD r 1 a 2 b 3 c 4 d 5 e 6 f")
		for i := 0; i < 20; i++ {
			check("ZRANDMEMBER r 1", 1, true, false)
			check("ZRANDMEMBER r 2", 2, true, false)
			check("ZRANDMEMBER r 3 WITHSCORES", 3, true, true)
			check("ZRANDMEMBER r 5", 5, true, false)
			check("ZRANDMEMBER r -20 WITHSCORES", 20, false, true)
			check("ZRANDMEMBER r -1", 1, false, false)
		}
		p.DoBoth("ZRANDMEMBER r", func(_, hot string) {
			if v := parseRV(hot); members[v.str] == "" {
				t.Errorf("ZRANDMEMBER r: %q", hot)
			}
		})
		// Every member turns up.
		seen := map[string]bool{}
		for i := 0; i < 200 && len(seen) < 6; i++ {
			seen[parseRV(p.HotKV.Do("ZRANDMEMBER", "r")).str] = true
		}
		if len(seen) != 6 {
			t.Errorf("ZRANDMEMBER over 200 draws saw only %v", seen)
		}
	})
	// A big set: distinct picks of the sparse kind.
	p.Do("FLUSHALL")
	args := []string{"ZADD", "big"}
	for i := 0; i < 500; i++ {
		args = append(args, strconv.Itoa(i), "m"+strconv.Itoa(i))
	}
	p.DoArgs(args...)
	v := parseRV(p.HotKV.Do("ZRANDMEMBER", "big", "100", "WITHSCORES"))
	seen := map[string]bool{}
	for i := 0; i < len(v.elems); i += 2 {
		m, s := v.elems[i].str, v.elems[i+1].str
		if seen[m] || "m"+s != m {
			t.Errorf("ZRANDMEMBER big 100: %s %s", m, s)
		}
		seen[m] = true
	}
	if len(seen) != 100 {
		t.Errorf("ZRANDMEMBER big 100: %d members", len(seen))
	}
}

func TestZSetArity(t *testing.T) {
	p := newPair(t)
	for _, cmd := range []string{"ZADD k 1", "ZINCRBY k 1", "ZREM k", "ZCARD", "ZCOUNT k 1", "ZLEXCOUNT k -",
		"ZSCORE k", "ZMSCORE k", "ZREVRANK k", "ZRANGE k 0", "ZRANGESTORE d k 0", "ZRANGEBYSCORE k 0",
		"ZREVRANGEBYSCORE k 0", "ZRANGEBYLEX k -", "ZREVRANGEBYLEX k +", "ZREVRANGE k 0",
		"ZREMRANGEBYRANK k 0", "ZREMRANGEBYSCORE k 0 1 2", "ZREMRANGEBYLEX k", "ZPOPMIN", "ZPOPMAX",
		"ZMPOP 1 k", "ZRANDMEMBER", "ZSCAN k", "ZUNION 1", "ZINTER 1", "ZDIFF 1", "ZINTERCARD 1",
		"ZUNIONSTORE d 1", "ZINTERSTORE d 1", "ZDIFFSTORE d 1"} {
		p.Do(cmd)
	}
}

func TestZSetGetKeys(t *testing.T) {
	p := newPair(t)
	p.Run(`
		COMMAND GETKEYS ZADD k 1 a
		COMMAND GETKEYS ZRANGESTORE dst src 0 -1
		COMMAND GETKEYS ZUNION 2 a b WEIGHTS 1 2
		COMMAND GETKEYS ZINTER 1 a
		COMMAND GETKEYS ZDIFF 3 a b c
		COMMAND GETKEYS ZINTERCARD 2 a b LIMIT 1
		COMMAND GETKEYS ZUNIONSTORE d 2 a b
		COMMAND GETKEYS ZINTERSTORE d 1 a
		COMMAND GETKEYS ZDIFFSTORE d 2 a b
		COMMAND GETKEYS ZMPOP 2 a b MIN COUNT 3
		COMMAND GETKEYSANDFLAGS ZUNIONSTORE d 2 a b
		COMMAND GETKEYSANDFLAGS ZMPOP 1 a MAX
		COMMAND GETKEYSANDFLAGS ZRANGESTORE dst src 0 -1
		COMMAND GETKEYS ZUNION 0 a
		COMMAND GETKEYS ZUNION 5 a
		COMMAND GETKEYS ZUNION x a
		COMMAND GETKEYS ZUNION 2abc a b
		COMMAND GETKEYS ZUNIONSTORE d 5 a
		COMMAND GETKEYS ZUNIONSTORE d 0 a
		COMMAND GETKEYS ZMPOP 0 a MIN
		COMMAND GETKEYS ZMPOP 3 a b
		COMMAND GETKEYS ZINTERCARD -1 a
	`)
}

// TestZSetRandomOps runs random commands against both servers, on both
// encodings and across the conversion, and compares every reply.
func TestZSetRandomOps(t *testing.T) {
	p := newPair(t)
	cfgRestore(t, p, "zset-max-listpack-entries", "zset-max-listpack-value")
	rnd := rand.New(rand.NewPCG(1, 2))
	member := func() string {
		if rnd.IntN(10) == 0 {
			return strings.Repeat("x", rnd.IntN(80))
		}
		return fmt.Sprintf("m%d", rnd.IntN(60))
	}
	score := func() string {
		switch rnd.IntN(8) {
		case 0:
			return "-inf"
		case 1:
			return "+inf"
		case 2:
			return strconv.FormatFloat(rnd.NormFloat64()*100, 'g', -1, 64)
		}
		return strconv.Itoa(rnd.IntN(20) - 10)
	}
	bound := func() string {
		s := score()
		if rnd.IntN(3) == 0 {
			s = "(" + s
		}
		return s
	}
	lexBound := func() string {
		switch rnd.IntN(6) {
		case 0:
			return "-"
		case 1:
			return "+"
		case 2:
			return "(" + member()
		}
		return "[" + member()
	}
	idx := func() string { return strconv.Itoa(rnd.IntN(40) - 20) }
	for _, limit := range []string{"128", "16", "0"} {
		p.Do("FLUSHALL")
		p.Do("CONFIG SET zset-max-listpack-entries " + limit)
		for i := 0; i < 1500; i++ {
			k := []string{"k1", "k2", "k3"}[rnd.IntN(3)]
			var cmd string
			switch rnd.IntN(16) {
			case 0, 1, 2:
				cmd = fmt.Sprintf("ZADD %s %s %s %s %s", k, score(), member(), score(), member())
			case 3:
				opts := []string{"", "NX", "XX", "GT", "LT", "XX GT", "XX LT", "CH", "GT CH"}
				cmd = fmt.Sprintf("ZADD %s %s %s %s", k, opts[rnd.IntN(len(opts))], score(), member())
			case 4:
				cmd = fmt.Sprintf("ZINCRBY %s %s %s", k, score(), member())
			case 5:
				cmd = fmt.Sprintf("ZREM %s %s %s", k, member(), member())
			case 6:
				cmd = fmt.Sprintf("ZRANGE %s %s %s WITHSCORES", k, idx(), idx())
			case 7:
				cmd = fmt.Sprintf("ZRANGEBYSCORE %s %s %s WITHSCORES LIMIT %d %d", k, bound(), bound(), rnd.IntN(5), rnd.IntN(10)-1)
			case 8:
				cmd = fmt.Sprintf("ZREVRANGEBYSCORE %s %s %s WITHSCORES", k, bound(), bound())
			case 9:
				cmd = fmt.Sprintf("ZCOUNT %s %s %s", k, bound(), bound())
			case 10:
				cmd = fmt.Sprintf("ZRANK %s %s", k, member())
			case 11:
				cmd = fmt.Sprintf("ZREMRANGEBYSCORE %s %s %s", k, bound(), bound())
			case 12:
				cmd = fmt.Sprintf("ZREMRANGEBYRANK %s %s %s", k, idx(), idx())
			case 13:
				ops := []string{"ZUNIONSTORE k3 2 k1 k2", "ZINTER 2 k1 k2 WITHSCORES", "ZDIFF 2 k1 k2 WITHSCORES",
					"ZUNION 3 k1 k2 k3 WEIGHTS 1 2 0.5 AGGREGATE MAX WITHSCORES", "ZPOPMIN k1 3", "ZPOPMAX k2"}
				cmd = ops[rnd.IntN(len(ops))]
			case 14:
				// Lex queries on a set with equal scores only.
				cmd = fmt.Sprintf("ZADD lex 0 %s", member())
				p.Do(cmd)
				cmd = fmt.Sprintf("ZRANGEBYLEX lex %s %s LIMIT %d %d", lexBound(), lexBound(), rnd.IntN(3), rnd.IntN(10)-1)
				p.Do(cmd)
				cmd = fmt.Sprintf("ZREVRANGEBYLEX lex %s %s", lexBound(), lexBound())
				p.Do(cmd)
				cmd = fmt.Sprintf("ZLEXCOUNT lex %s %s", lexBound(), lexBound())
			case 15:
				cmd = fmt.Sprintf("ZREMRANGEBYLEX lex %s %s", lexBound(), lexBound())
			}
			p.Do(cmd)
			if i%100 == 0 {
				p.Do("ZRANGE " + k + " 0 -1 WITHSCORES")
				p.Do("OBJECT ENCODING " + k)
				p.Do("ZCARD " + k)
			}
		}
		for _, k := range []string{"k1", "k2", "k3", "lex"} {
			p.Do("ZRANGE " + k + " 0 -1 WITHSCORES")
		}
	}
}

// TestZSetSortedMembers checks that members order by bytes (memcmp), not
// by UTF-8 or case.
func TestZSetSortedMembers(t *testing.T) {
	p := newPair(t)
	p.Run(`
		ZADD k 0 "\xff" 0 "\x00" 0 a 0 A 0 "a\x00" 0 ab 0 "é" 0 e
		ZRANGE k 0 -1
		ZRANGEBYLEX k "[a" "[b"
		ZRANGEBYLEX k "(a" +
	`)
	got := parseRV(p.HotKV.Do("ZRANGE", "k", "0", "-1"))
	var ms []string
	for _, e := range got.elems {
		ms = append(ms, e.str)
	}
	if !slices.IsSorted(ms) {
		t.Errorf("members not in byte order: %q", ms)
	}
}

// TestZSetBigRandom compares queries on sets large enough for the big
// form's tree to have several levels.
func TestZSetBigRandom(t *testing.T) {
	p := newPair(t)
	rnd := rand.New(rand.NewPCG(5, 6))
	const n = 6000
	for i := 0; i < n; i += 500 {
		args := []string{"ZADD", "big"}
		lex := []string{"ZADD", "lex"}
		for j := i; j < i+500; j++ {
			args = append(args, strconv.Itoa(rnd.IntN(n/4)), fmt.Sprintf("m%05d", j*7919%n))
			lex = append(lex, "0", fmt.Sprintf("m%05d", j*7919%n))
		}
		p.DoArgs(args...)
		p.DoArgs(lex...)
	}
	p.Do("OBJECT ENCODING big")
	idx := func() string { return strconv.Itoa(rnd.IntN(2*n) - n) }
	sc := func() string {
		s := strconv.Itoa(rnd.IntN(n/4+20) - 10)
		if rnd.IntN(3) == 0 {
			s = "(" + s
		}
		return s
	}
	lb := func() string {
		switch rnd.IntN(8) {
		case 0:
			return "-"
		case 1:
			return "+"
		case 2:
			return fmt.Sprintf("(m%05d", rnd.IntN(n+10))
		}
		return fmt.Sprintf("[m%05d", rnd.IntN(n+10))
	}
	mem := func() string { return fmt.Sprintf("m%05d", rnd.IntN(n+10)) }
	for i := 0; i < 600; i++ {
		switch rnd.IntN(12) {
		case 0:
			p.Do(fmt.Sprintf("ZRANGE big %s %s WITHSCORES", idx(), idx()))
		case 1:
			p.Do(fmt.Sprintf("ZREVRANGE big %d %d", rnd.IntN(n), rnd.IntN(n)))
		case 2:
			p.Do(fmt.Sprintf("ZRANGEBYSCORE big %s %s WITHSCORES LIMIT %d %d", sc(), sc(), rnd.IntN(20), rnd.IntN(30)))
		case 3:
			p.Do(fmt.Sprintf("ZREVRANGEBYSCORE big %s %s LIMIT %d %d", sc(), sc(), rnd.IntN(20), rnd.IntN(30)))
		case 4:
			p.Do(fmt.Sprintf("ZCOUNT big %s %s", sc(), sc()))
		case 5:
			p.Do("ZRANK big " + mem())
			p.Do("ZREVRANK big " + mem())
			p.Do("ZSCORE big " + mem())
		case 6:
			p.Do(fmt.Sprintf("ZRANGEBYLEX lex %s %s LIMIT %d %d", lb(), lb(), rnd.IntN(10), rnd.IntN(20)))
			p.Do(fmt.Sprintf("ZREVRANGEBYLEX lex %s %s LIMIT %d %d", lb(), lb(), rnd.IntN(10), rnd.IntN(20)))
		case 7:
			p.Do(fmt.Sprintf("ZLEXCOUNT lex %s %s", lb(), lb()))
		case 8:
			lo := rnd.IntN(n / 4)
			p.Do(fmt.Sprintf("ZREMRANGEBYSCORE big %d (%d", lo, lo+2))
			m := rnd.IntN(n)
			p.Do(fmt.Sprintf("ZREMRANGEBYLEX lex [m%05d (m%05d", m, m+5))
		case 9:
			p.Do(fmt.Sprintf("ZPOPMIN big %d", rnd.IntN(5)))
			p.Do(fmt.Sprintf("ZPOPMAX lex %d", rnd.IntN(5)))
		case 10:
			p.Do(fmt.Sprintf("ZADD big %d %s %d %s", rnd.IntN(n/4), mem(), rnd.IntN(n/4), mem()))
			p.Do(fmt.Sprintf("ZADD lex 0 %s 0 %s", mem(), mem()))
		case 11:
			r := rnd.IntN(n) - n/2
			p.Do(fmt.Sprintf("ZREMRANGEBYRANK big %d %d", r, r+rnd.IntN(10)))
			p.Do(fmt.Sprintf("ZREM lex %s %s %s", mem(), mem(), mem()))
		}
		if i%100 == 0 {
			p.Do("ZCARD big")
			p.Do("ZCARD lex")
		}
	}
	p.Do("ZRANGE big 0 -1 WITHSCORES")
	p.Do("ZRANGE lex 0 -1")
	if card := intReply(t, p.Do("ZCARD big")); card < n/2 {
		t.Errorf("big shrank to %d: the test lost its point", card)
	}
	p.Do("ZREMRANGEBYRANK big 100 -100")
	p.Do("ZRANGE big 0 -1 WITHSCORES")
	p.Do("ZREMRANGEBYLEX lex (m00100 (m05900")
	p.Do("ZRANGE lex 0 -1")
	p.Do("ZUNIONSTORE u 2 big lex WEIGHTS 1 2")
	p.Do("ZRANGE u 0 -1 WITHSCORES")
	p.Do("ZINTER 2 big lex WITHSCORES")
	p.Do("ZDIFF 2 lex big")
}
