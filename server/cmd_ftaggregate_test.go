package server

import (
	"strings"
	"testing"
	"time"
)

// aggDocs are the documents of the FT.AGGREGATE tests: titles (SORTABLE
// TEXT), bodies, tags (SORTABLE TAG), categories (TAG, some missing), n
// (SORTABLE NUMERIC, integers and decimals), m and t (NUMERIC, loaded from
// the hash; "1.50" and "1e3" print as the numbers they are).
const aggDocs = `
FT.CREATE ag ON HASH PREFIX 1 a: SCHEMA title TEXT SORTABLE body TEXT tag TAG SORTABLE cat TAG n NUMERIC SORTABLE m NUMERIC t NUMERIC
HSET a:1 title "Quick dog" body "world jumps" tag "c" cat x n 96 m 1 t 1658202938
HSET a:2 title "World brown" body "jumps dog" tag "a" cat y n 60 m 9 t 1678590039
HSET a:3 title "Hello brown" body "jumps quick" tag "d,a" cat x n 53 m 1
HSET a:4 title "Over apart brown" body "world jumps again world" tag "b" cat w n 21.9 t 1662492024
HSET a:5 title "Running lazy fox" body "baz quick again" cat y n 24.47 m 5 t 1697904489
HSET a:6 title "Fox over" body "world jumps" tag "b,d" n 46.0 m 0
HSET a:7 body "baz jumps" tag "c,d" cat z n 19.8 m 1 t 1612562241
HSET a:8 title "Running again" body "hello again" tag "d,b" cat w n 93 t 1661967692
HSET a:9 title "Quick over" body "running hello" tag "c" cat y n 4.86 m 7
HSET a:10 title "Quick" body "dog jumps fox quick dog" cat z n 14.92 m 6 t 1630970943
HSET a:11 title "World" body "quick brown apart" tag "a" cat w n 25.35 m 4 t 1600549434
HSET a:12 title "Dog" body "lazy over over lazy quick again" tag "d" n 42.26
HSET a:13 title "Dog dog" body "running apart" tag "a,d" cat x n 6 m 5 t 1680628248
HSET a:14 body "world hello" tag "a" cat z n 58 m 9 t 1650496650
HSET a:15 title "Apart" body "lazy over lazy running" cat x n 40.94 m 7
HSET a:16 title "Fox world" body "world again lazy" tag "d,c" cat y n -8.61 t 1619676659
HSET a:17 title "Jumps hello baz" body "fox apart world again fox jumps" tag "b,d" cat y n 22.49 m 3 t 1682306098
HSET a:18 title "Baz" body "dog again baz" tag "b" n 46 m 0
HSET a:19 title "Running fox" body "again over lazy" tag "c,b" cat x n -3.87 m 3 t 1645330357
HSET a:20 title "Running" body "over hello running apart lazy baz" cat x n 29.64 t 1695494971
HSET a:21 body "running quick dog" tag "a,c" cat w n 39 m 2
HSET a:22 title "Quick" body "quick over" tag "b,c" cat w n 64 m 8 t 1673589642
HSET a:23 title "Hello" body "baz again" tag "b" cat w n 91 m 0 t 1633800696
HSET a:24 title "Fox" body "brown baz over lazy fox jumps" tag "b,a" n 34.4
HSET a:25 title "Over jumps dog" body "quick jumps quick jumps jumps hello" cat w n 79 m 2 t 1623131984
HSET a:26 title "Running" body "again world jumps hello lazy apart" tag "a,c" cat x n 11 m 1 t 1668144218
HSET a:27 title "Jumps hello" body "running lazy" tag "c" cat w n 22.0 m 8
HSET a:28 body "again jumps fox" tag "d" cat y n -2.7 t 1642410090
HSET a:29 title "Apart" body "dog world brown" tag "a,d" cat z n -2 m 7 t 1629472579
HSET a:30 title "World dog running" body "apart brown quick" n 15.89 m 5
HSET a:31 title "ZZ Top" n 1.50 m 2.50 t "1e3" cat "X"
`

// TestFTAggregateLikeRediSearch: every step, the deterministic reducers,
// the expression language and the errors, against RediSearch 2.10.5.
// GROUPBY's groups come out in RediSearch's hash table order, so every
// GROUPBY is followed by a SORTBY on keys without ties.
func TestFTAggregateLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	p.Run(aggDocs)
	p.Run(aggCommands)
}

const aggCommands = `
FT.AGGREGATE ag *
FT.AGGREGATE ag * LIMIT 0 3
FT.AGGREGATE ag * LOAD 2 @n @title
FT.AGGREGATE ag * LOAD 1 @cat
FT.AGGREGATE ag hello LOAD 1 @body
FT.AGGREGATE ag nosuchword
FT.AGGREGATE ag nosuchword SORTBY 1 @n
FT.AGGREGATE ag nosuchword GROUPBY 1 @n
FT.AGGREGATE ag @title:zz LOAD 3 @m @t @n
FT.AGGREGATE ag @title:zz LOAD 3 @title @tag @cat
FT.AGGREGATE ag * LOAD * LIMIT 0 2
FT.AGGREGATE ag * LOAD 1 n LIMIT 0 2
FT.AGGREGATE ag * LOAD 3 @n AS nn LIMIT 0 2
FT.AGGREGATE ag * LOAD 1 @extra LIMIT 0 2
FT.AGGREGATE ag * LOAD 2 @__key @n SORTBY 2 @n DESC LIMIT 8 2
FT.AGGREGATE ag * LOAD 2 @__key @n SORTBY 2 @n ASC LIMIT 20 2
FT.AGGREGATE ag * VERBATIM LOAD 1 @__key DIALECT 2 LIMIT 0 3
FT.AGGREGATE ag * SORTBY 2 @n ASC
FT.AGGREGATE ag * SORTBY 2 @n DESC LIMIT 0 2
FT.AGGREGATE ag * SORTBY 2 @n DESC LIMIT 0 20
FT.AGGREGATE ag * LIMIT 0 20 SORTBY 2 @n DESC
FT.AGGREGATE ag * SORTBY 2 @n DESC MAX 3 LIMIT 1 5
FT.AGGREGATE ag * SORTBY 2 @n DESC MAX 2
FT.AGGREGATE ag * SORTBY 2 @n DESC LIMIT 25 10
FT.AGGREGATE ag * SORTBY 4 @cat ASC @n DESC LIMIT 0 8
FT.AGGREGATE ag * SORTBY 1 @m LIMIT 0 40
FT.AGGREGATE ag * SORTBY 2 @m DESC LIMIT 20 20
FT.AGGREGATE ag * SORTBY 2 @title DESC LIMIT 0 2
FT.AGGREGATE ag * SORTBY 2 @n DESC FILTER '@n<50' LIMIT 0 2
FT.AGGREGATE ag * SORTBY 2 @n DESC FILTER @n<-5
FT.AGGREGATE ag * SORTBY 2 @n ASC LIMIT 0 100 FILTER '@n>46.5||@n<=46 && @n>=45'
FT.AGGREGATE ag * LIMIT 0 5 SORTBY 2 @n DESC LIMIT 0 3
FT.AGGREGATE ag * LIMIT 0 2 LIMIT 0 3
FT.AGGREGATE ag * LOAD 1 @n FILTER @n>90
FT.AGGREGATE ag * LOAD 1 @n FILTER @n<50 LIMIT 0 1
FT.AGGREGATE ag * LOAD 1 @n LIMIT 3 1
FT.AGGREGATE ag * GROUPBY 1 @cat SORTBY 2 @cat DESC
FT.AGGREGATE ag * GROUPBY 1 @cat SORTBY 2 @cat ASC LIMIT 1 1
FT.AGGREGATE ag * GROUPBY 1 @cat FILTER '@cat=="x"'
FT.AGGREGATE ag * GROUPBY 1 @cat SORTBY 2 @cat DESC LIMIT 0 2 APPLY 'upper(@cat)' AS u
FT.AGGREGATE ag * GROUPBY 1 @cat REDUCE COUNT 0 REDUCE COUNT_DISTINCT 1 @tag REDUCE SUM 1 @n REDUCE MIN 1 @n REDUCE MAX 1 @n REDUCE AVG 1 @m REDUCE STDDEV 1 @n SORTBY 2 @cat ASC
FT.AGGREGATE ag * GROUPBY 1 @cat REDUCE QUANTILE 2 @n 0.5 REDUCE QUANTILE 2 @n 0.9 REDUCE QUANTILE 2 @m 0 REDUCE QUANTILE 2 @m 1 SORTBY 2 @cat ASC
FT.AGGREGATE ag * GROUPBY 1 @cat REDUCE FIRST_VALUE 1 @title REDUCE FIRST_VALUE 3 @title BY @n REDUCE FIRST_VALUE 4 @title BY @n ASC AS lo REDUCE FIRST_VALUE 4 @n BY @n DESC AS hi SORTBY 2 @cat ASC
FT.AGGREGATE ag * GROUPBY 1 @cat REDUCE MIN 1 @t AS a REDUCE MAX 1 @t AS b REDUCE AVG 1 @t AS c REDUCE SUM 1 @tag AS d SORTBY 2 @cat ASC
FT.AGGREGATE ag * GROUPBY 1 @cat REDUCE QUANTILE 2 @t 0.25 AS q REDUCE STDDEV 1 @t AS s SORTBY 2 @cat ASC
FT.AGGREGATE ag * LOAD 2 @title @n APPLY 'format("%s:%s", @title, @n)' AS f SORTBY 2 @n ASC LIMIT 0 3
FT.AGGREGATE ag * APPLY 'timefmt(@n, "%b %a %j %e %I%p")' AS s LIMIT 0 2
FT.AGGREGATE ag * GROUPBY 2 @cat @m REDUCE COUNT 0 AS c SORTBY 4 @cat ASC @m ASC
FT.AGGREGATE ag * GROUPBY 0 REDUCE COUNT 0 AS c REDUCE SUM 1 @m AS s
FT.AGGREGATE ag * LOAD 1 @m GROUPBY 0 REDUCE SUM 1 @m AS s REDUCE AVG 1 @m
FT.AGGREGATE ag * GROUPBY 1 @tag REDUCE COUNT 0 AS c SORTBY 2 @tag ASC
FT.AGGREGATE ag * LOAD 1 @__key GROUPBY 1 @m REDUCE COUNT 0 AS c SORTBY 2 @m ASC LIMIT 0 3
FT.AGGREGATE ag * APPLY '@n*2' AS x GROUPBY 1 @x SORTBY 2 @x DESC LIMIT 0 2
FT.AGGREGATE ag * GROUPBY 1 @n REDUCE TOLIST 1 @cat AS l SORTBY 2 @n ASC LIMIT 0 6
FT.AGGREGATE ag * GROUPBY 1 @cat REDUCE COUNT 0 AS c GROUPBY 1 @c REDUCE TOLIST 1 @cat AS cats SORTBY 2 @c DESC
FT.AGGREGATE ag * APPLY @n*2
FT.AGGREGATE ag * APPLY '@n/3' AS x SORTBY 2 @x DESC LIMIT 0 4
FT.AGGREGATE ag @title:zz APPLY '1e20' AS a APPLY '0.1+0.2' AS b APPLY '1/3' AS c APPLY '-0' AS d APPLY '10/0' AS e APPLY '0/0' AS f APPLY '7%3' AS g APPLY '2^10' AS h APPLY '-2^2' AS i APPLY '2+3*4' AS j APPLY '(2+3)*4' AS k APPLY '7.5%2' AS l APPLY '1e-5' AS m2 APPLY '123456789012345' AS n2 APPLY '2^0.5' AS o
FT.AGGREGATE ag @title:zz APPLY '3 > 1 + 3' AS a APPLY '0 && 1 || 1' AS b APPLY '5 % 0' AS c APPLY '-7 % 3' AS d APPLY '1 < "2"' AS e APPLY '"a" < "b"' AS f APPLY '"10" == 10' AS g APPLY '!"x"' AS h APPLY '!""' AS i APPLY 'NULL' AS j APPLY '"a"=="a"' AS k APPLY '2 != 2' AS l
FT.AGGREGATE ag @title:zz APPLY "'it\\'s'" AS b APPLY '"q\"q"' AS c APPLY "'sq'" AS d
FT.AGGREGATE ag @title:zz APPLY 'log(100)' AS a APPLY 'abs(-3.5)' AS b APPLY 'ceil(2.1)' AS c APPLY 'floor(-2.1)' AS d APPLY 'log2(8)' AS e APPLY 'exp(1)' AS f APPLY 'sqrt(2)' AS g APPLY 'sqrt(-1)' AS h APPLY 'log(0)' AS i APPLY 'log("x")' AS j APPLY 'abs("-3")' AS k
FT.AGGREGATE ag @title:zz APPLY 'timefmt(1700000000)' AS a APPLY 'timefmt(1700000000,"%Y/%m/%d %H")' AS b APPLY 'parsetime("2023-11-14","%Y-%m-%d")' AS c APPLY 'day(1700000000)' AS d APPLY 'hour(1700000000)' AS e APPLY 'minute(1700000000)' AS f APPLY 'month(1700000000)' AS g APPLY 'dayofweek(1700000000)' AS h APPLY 'dayofmonth(1700000000)' AS i APPLY 'dayofyear(1700000000)' AS j APPLY 'year(1700000000)' AS k APPLY 'monthofyear(1700000000)' AS l APPLY 'timefmt("x")' AS m2 APPLY 'year("x")' AS n2
FT.AGGREGATE ag @title:zz LOAD 1 @title APPLY 'upper(@title)' AS a APPLY 'lower(@title)' AS b APPLY 'strlen(@title)' AS c APPLY 'substr(@title,1,3)' AS d APPLY 'substr(@title,-2,-1)' AS e APPLY 'startswith(@title,"ZZ")' AS f APPLY 'contains(@title,"Z")' AS g APPLY 'format("%s-%s",@title,@n)' AS h APPLY 'split("a, b ,c")' AS i APPLY 'split("a;b;c",";")' AS j APPLY 'exists(@title)' AS k
FT.AGGREGATE ag @title:zz APPLY 'format("%s|%s",NULL,1.5)' AS a APPLY 'format("100%%")' AS b APPLY 'lower(NULL)' AS c APPLY 'exists(NULL)' AS d APPLY 'upper(12)' AS e
FT.AGGREGATE ag @title:zz APPLY 'split("a,b")' AS s APPLY 'upper(@s)' AS u
FT.AGGREGATE ag @title:zz APPLY 'abs(-3)' AS a APPLY '@a*2' AS b FILTER '@b>5'
FT.AGGREGATE ag @title:zz FILTER '@n'
FT.AGGREGATE ag @title:zz FILTER '"x"'
FT.AGGREGATE ag @title:zz FILTER '0'
FT.AGGREGATE ag @title:zz APPLY '@n' AS n
FT.AGGREGATE ag @title:zz APPLY '@n+1' AS n
FT.AGGREGATE ag * LOAD 1 @tag APPLY 'upper(@tag)' AS e LIMIT 0 6
FT.AGGREGATE ag * LOAD 1 @tag APPLY 'exists(@tag)' AS e APPLY '@tag' AS t2 FILTER '@e==0' LIMIT 0 2
FT.AGGREGATE ag * LOAD 1 @tag APPLY '@tag+1' AS e LIMIT 0 6
FT.AGGREGATE ag * LOAD 1 @t APPLY 'year(@t)' AS y APPLY 'monthofyear(@t)' AS mo GROUPBY 2 @y @mo REDUCE COUNT 0 AS c SORTBY 4 @y ASC @mo ASC
# errors
FT.AGGREGATE ag
FT.AGGREGATE nosuch *
FT.AGGREGATE ag * BOGUS
FT.AGGREGATE ag * LOAD 2 @n
FT.AGGREGATE ag * LOAD x
FT.AGGREGATE ag * LIMIT 0
FT.AGGREGATE ag * LIMIT a b
FT.AGGREGATE ag * WITHCURSOR COUNT x
FT.AGGREGATE ag * WITHCURSOR COUNT 0
FT.AGGREGATE ag * WITHCURSOR MAXIDLE x
FT.AGGREGATE ag * GROUPBY 1 @nosuch
FT.AGGREGATE ag * GROUPBY 1 @cat REDUCE NOPE 0
FT.AGGREGATE ag * GROUPBY 1 @cat REDUCE SUM 1 @nosuch
FT.AGGREGATE ag * GROUPBY 1 @cat REDUCE SUM 2 @n
FT.AGGREGATE ag * GROUPBY 1 @cat REDUCE SUM 0
FT.AGGREGATE ag * GROUPBY 1 cat
FT.AGGREGATE ag * GROUPBY 2 @cat
FT.AGGREGATE ag * GROUPBY x @cat
FT.AGGREGATE ag * GROUPBY 1 @cat REDUCE COUNT 0 AS
FT.AGGREGATE ag * GROUPBY 1 @cat REDUCE QUANTILE 2 @n 2
FT.AGGREGATE ag * GROUPBY 1 @cat REDUCE FIRST_VALUE 3 @n BY
FT.AGGREGATE ag * SORTBY 1 @nosuch
FT.AGGREGATE ag * SORTBY 1 n
FT.AGGREGATE ag * SORTBY 2 @n DESC MAX x
FT.AGGREGATE ag * SORTBY 2 @n DESC SORTBY 2 @n ASC
FT.AGGREGATE ag * FILTER '@nosuch>1'
FT.AGGREGATE ag @title:zz APPLY @m*2 AS x
FT.AGGREGATE ag @title:zz APPLY '"abc"+1' AS a
FT.AGGREGATE ag @title:zz APPLY '@n*' AS x
FT.AGGREGATE ag @title:zz APPLY 'foo(@n)' AS x
FT.AGGREGATE ag @title:zz APPLY 'upper()' AS a
FT.AGGREGATE ag @title:zz APPLY 'upper(1,2)' AS a
FT.AGGREGATE ag @title:zz APPLY 'substr("abc","x",1)' AS a
FT.AGGREGATE ag @title:zz APPLY 'format("%d",1)' AS a
FT.AGGREGATE ag @title:zz APPLY 'format("%s")' AS a
FT.AGGREGATE ag @title:zz APPLY 'startswith(1,"a")' AS a
FT.AGGREGATE ag @title:zz APPLY 'strlen(12)' AS a
FT.AGGREGATE ag @title:zz APPLY '"abc' AS a
FT.AGGREGATE ag @title:zz APPLY '1 +' AS a
FT.AGGREGATE ag @title:zz APPLY '' AS a
FT.AGGREGATE ag @title:zz APPLY 'abc' AS a
FT.AGGREGATE ag @title:zz APPLY '@' AS a
FT.AGGREGATE ag @title:zz APPLY '(1' AS a
FT.AGGREGATE ag @title:zz APPLY '1)' AS a
FT.AGGREGATE ag @title:zz APPLY '1 2' AS a
FT.AGGREGATE ag @title:zz APPLY '10-2-3' AS a
FT.AGGREGATE ag @title:zz APPLY 'abs(1' AS a
FT.AGGREGATE ag @title:zz APPLY '1 +* 2' AS a
FT.AGGREGATE ag @title:zz APPLY '@n @n' AS a
FT.AGGREGATE ag @title:zz APPLY '"x" "y"' AS a
FT.AGGREGATE ag @title:zz APPLY '1,2' AS a
FT.AGGREGATE ag @title:zz APPLY '$' AS a
FT.AGGREGATE ag @title:zz APPLY 'upper(@n) x' AS a
FT.AGGREGATE ag "@n:[$lo $hi]" PARAMS 4 lo 20 hi 60 DIALECT 2 LOAD 1 @n SORTBY 2 @n ASC
FT.AGGREGATE ag "@tag:{$t}" PARAMS 2 t a DIALECT 2 GROUPBY 1 @cat REDUCE COUNT 0 AS c SORTBY 2 @cat ASC
FT.AGGREGATE ag "@n:[$lo 60]" PARAMS 2 x 1 DIALECT 2
FT.AGGREGATE ag * PARAMS 3 a b c DIALECT 2
FT.AGGREGATE ag * PARAMS 2 a b PARAMS 2 a b DIALECT 2
FT.AGGREGATE ag * PARAMS x DIALECT 2
`

// TestFTAggregateRESP3LikeRediSearch: RESP3's map replies (numbers still
// bulk strings, a group's null value a RESP3 null).
func TestFTAggregateRESP3LikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	p.Run(aggDocs)
	resp3(p)
	p.Run(`
FT.AGGREGATE ag * LOAD 2 @n @title SORTBY 2 @n DESC LIMIT 0 2 APPLY 'split("a,b")' AS s
FT.AGGREGATE ag * GROUPBY 1 @cat REDUCE COUNT 0 AS c SORTBY 2 @cat ASC LIMIT 0 2
FT.AGGREGATE ag nosuchword
FT.AGGREGATE ag * APPLY '1/3' AS x LIMIT 0 1
FT.AGGREGATE ag * GROUPBY 1 @nosuch
`)
}

// TestFTAggregateRandomSampleLikeRediSearch: RANDOM_SAMPLE is random, so
// only its size is compared, and its members checked.
func TestFTAggregateRandomSample(t *testing.T) {
	p := newSearchPair(t)
	p.Run(aggDocs)
	p.DoBoth("FT.AGGREGATE ag * GROUPBY 1 @cat REDUCE RANDOM_SAMPLE 2 @n 3 AS r REDUCE COUNT 0 AS c SORTBY 2 @cat ASC",
		func(redis, hotkv string) {
			if strings.Count(redis, "\n") != strings.Count(hotkv, "\n") {
				t.Errorf("RANDOM_SAMPLE sizes differ\n redis: %q\n hotkv: %q", redis, hotkv)
			}
		})
	got := p.HotKV.Do("FT.AGGREGATE", "ag", "@title:zz", "GROUPBY", "0", "REDUCE", "RANDOM_SAMPLE", "2", "@n", "5", "AS", "r")
	if got != "*2\r\n:1\r\n*2\r\n$1\r\nr\r\n*1\r\n$3\r\n1.5\r\n" {
		t.Errorf("RANDOM_SAMPLE of one: %q", got)
	}
}

// TestFTAggregateCursorLikeRediSearch: WITHCURSOR's chunks, READ until the
// cursor is done (id 0), DEL, and the errors. Cursor ids are random: the
// replies are compared with the id left out.
func TestFTAggregateCursorLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	p.Run(aggDocs)
	split := func(raw string) (string, string) {
		i := strings.LastIndex(raw, ":")
		if i < 0 || !strings.HasPrefix(raw, "*2\r\n") {
			return raw, ""
		}
		return raw[:i], strings.TrimSpace(raw[i+1:])
	}
	var rid, hid string
	both := func(args ...string) (bool, bool) {
		t.Helper()
		want, wid := split(p.Redis.Do(args...))
		got, gid := split(p.HotKV.Do(args...))
		if want != got || (wid == "0") != (gid == "0") {
			t.Errorf("%q\n redis: %q %s\n hotkv: %q %s", args, want, wid, got, gid)
		}
		rid, hid = wid, gid
		return wid == "0", gid == "0"
	}
	for _, q := range [][]string{
		{"LOAD", "1", "@n", "SORTBY", "2", "@n", "DESC", "LIMIT", "0", "7", "WITHCURSOR", "COUNT", "3"},
		{"LOAD", "1", "@n", "WITHCURSOR", "COUNT", "4"},
		{"GROUPBY", "1", "@cat", "SORTBY", "2", "@cat", "ASC", "WITHCURSOR", "COUNT", "2"},
		{"LOAD", "1", "@n", "LIMIT", "0", "6", "WITHCURSOR", "COUNT", "3"},
	} {
		both(append([]string{"FT.AGGREGATE", "ag", "*"}, q...)...)
		for range 20 {
			if rid == "0" || hid == "0" {
				break
			}
			want, wid := split(p.Redis.Do("FT.CURSOR", "READ", "ag", rid))
			got, gid := split(p.HotKV.Do("FT.CURSOR", "READ", "ag", hid))
			if want != got || (wid == "0") != (gid == "0") {
				t.Errorf("READ after %q\n redis: %q %s\n hotkv: %q %s", q, want, wid, got, gid)
			}
			rid, hid = wid, gid
		}
	}
	// READ with COUNT, DEL, then the cursor is gone.
	both("FT.AGGREGATE", "ag", "*", "LOAD", "1", "@n", "WITHCURSOR", "COUNT", "2")
	r, h := rid, hid
	want, _ := split(p.Redis.Do("FT.CURSOR", "READ", "ag", r, "COUNT", "5"))
	got, _ := split(p.HotKV.Do("FT.CURSOR", "READ", "ag", h, "COUNT", "5"))
	if want != got {
		t.Errorf("READ COUNT 5\n redis: %q\n hotkv: %q", want, got)
	}
	for _, sub := range [][]string{{"READ", "ag", "COUNT", "x"}, {"READ", "ag", "FOO", "x"}, {"DEL", "nosuch"}, {"DEL", "ag"}, {"DEL", "ag"}, {"READ", "ag"}} {
		a := append([]string{"FT.CURSOR", sub[0], sub[1], r}, sub[2:]...)
		b := append([]string{"FT.CURSOR", sub[0], sub[1], h}, sub[2:]...)
		if want, got := p.Redis.Do(a...), p.HotKV.Do(b...); want != got {
			t.Errorf("FT.CURSOR %q\n redis: %q\n hotkv: %q", sub, want, got)
		}
	}
	p.Run(`
FT.CURSOR READ ag 123
FT.CURSOR DEL ag 123
FT.CURSOR READ nosuch 123
FT.CURSOR BOGUS ag 123
FT.CURSOR READ ag
FT.CURSOR READ ag abc
FT.AGGREGATE ag nosuchword WITHCURSOR
`)
}

// TestFTAggregateCursorExpires: a cursor idle longer than its MAXIDLE is
// gone (RediSearch drops it at its next cursor collection, not at once).
func TestFTAggregateCursorExpires(t *testing.T) {
	p := newSearchPair(t)
	p.Run(aggDocs)
	c := p.HotKV
	raw := c.Do("FT.AGGREGATE", "ag", "*", "WITHCURSOR", "COUNT", "1", "MAXIDLE", "50")
	id := strings.TrimSpace(raw[strings.LastIndex(raw, ":")+1:])
	if got := c.Do("FT.CURSOR", "READ", "ag", id); !strings.HasPrefix(got, "*2\r\n*2\r\n") {
		t.Fatalf("READ: %q", got)
	}
	time.Sleep(120 * time.Millisecond)
	if got := c.Do("FT.CURSOR", "READ", "ag", id); got != "-Cursor not found\r\n" {
		t.Fatalf("READ after MAXIDLE: %q", got)
	}
}
