package server

import (
	"bufio"
	"fmt"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/difftest"
)

// TestFTSearchExplainScoreLikeRediSearch: EXPLAINSCORE's explanation trees
// (terms, stems, phrases, unions, intersections, negations, tags, numeric
// ranges, the wildcard) under each scorer, byte for byte with RediSearch's.
func TestFTSearchExplainScoreLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	loadSearchCorpus(p)
	queries := []string{"alpha", "running", "house", "alpha beta", "alpha|beta", "alpha -beta",
		`"alpha beta"`, "@b:alpha", "@a:run*", "alpha @t:{x}", "@t:{x|z} beta", "@n:[10 20]",
		"(alpha|delta) (beta|gamma)", "-alpha -beta", "*", "running -house quick",
		"(running house)|(quick -alpha)", "nosuchword"}
	for _, q := range queries {
		for _, s := range []string{"TFIDF", "TFIDF.DOCNORM", "BM25", "DISMAX", "DOCSCORE", "HAMMING"} {
			p.DoArgs("FT.SEARCH", "gen", q, "WITHSCORES", "EXPLAINSCORE", "NOCONTENT", "LIMIT", "0", "200", "SCORER", s)
		}
		p.DoArgs("FT.SEARCH", "gen", q, "WITHSCORES", "EXPLAINSCORE", "NOCONTENT", "LIMIT", "0", "200", "DIALECT", "2")
	}
	p.Run(`
FT.SEARCH gen alpha EXPLAINSCORE WITHSCORES LIMIT 0 3 RETURN 1 n
FT.SEARCH gen alpha WITHSCORES EXPLAINSCORE SORTBY n LIMIT 0 3
FT.SEARCH gen alpha EXPLAINSCORE
FT.SEARCH gen alpha EXPLAINSCORE NOCONTENT bogus
FT.SEARCH gen alpha bogus EXPLAINSCORE
FT.SEARCH gen alpha EXPLAINSCORE SCORER nosuch
FT.SEARCH gen alpha SCORER nosuch LIMIT 0 -1
FT.SEARCH gen alpha SCORER nosuch bogus
FT.SEARCH gen alpha EXPLAINSCORE LIMIT 0 -1
FT.SEARCH gen alpha EXPLAINSCORE DIALECT 9
`)
	resp3(p)
	p.Run(`
FT.SEARCH gen "alpha beta" WITHSCORES EXPLAINSCORE LIMIT 0 3 RETURN 1 n
FT.SEARCH gen alpha|house WITHSCORES EXPLAINSCORE NOCONTENT LIMIT 0 5 SCORER BM25
FT.SEARCH gen alpha WITHSCORES EXPLAINSCORE NOCONTENT LIMIT 0 2 SCORER DOCSCORE
`)
}

// TestFTSearchExplainScoreFieldLikeRediSearch: documents whose SCORE_FIELD
// is 0 or negative (RediSearch's "Document score is 0" and its minimum
// score lines).
func TestFTSearchExplainScoreFieldLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	p.Run(`
FT.CREATE sf PREFIX 1 s: SCORE_FIELD sc SCHEMA t TEXT
HSET s:1 t "zero one" sc 0
HSET s:2 t "zero two" sc -1
HSET s:3 t "zero zero three" sc 0.5
HSET s:4 t "zero four"
`)
	waitIndexed(t, p.Redis, "sf")
	for _, s := range []string{"TFIDF", "TFIDF.DOCNORM", "BM25", "DISMAX", "DOCSCORE"} {
		p.DoArgs("FT.SEARCH", "sf", "zero", "WITHSCORES", "EXPLAINSCORE", "NOCONTENT", "SCORER", s)
		p.DoArgs("FT.SEARCH", "sf", "zero|one", "WITHSCORES", "EXPLAINSCORE", "NOCONTENT", "SCORER", s)
	}
}

// profileTimes replaces the values of a profile's time fields (RESP2 bulk
// strings, RESP3 doubles) with "T": they are each server's own.
func profileTimes(raw string) string {
	lines := strings.SplitAfter(raw, "\r\n")
	var b strings.Builder
	for i := 0; i < len(lines); i++ {
		b.WriteString(lines[i])
		switch strings.TrimSuffix(lines[i], "\r\n") {
		case "+Total profile time", "+Parsing time", "+Pipeline creation time", "+Time":
			if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "$") {
				i += 2
			} else {
				i++
			}
			b.WriteString("T\r\n")
		}
	}
	return b.String()
}

// profileOnly is the profile of a RESP2 FT.PROFILE reply, times aside
// (the reply itself when it is not [results, profile]).
func profileOnly(raw string) string {
	r := bufio.NewReader(strings.NewReader(raw))
	if head, err := r.ReadString('\n'); err != nil || head != "*2\r\n" {
		return raw
	}
	if _, err := difftest.ReadReply(r); err != nil {
		return raw
	}
	prof, err := difftest.ReadReply(r)
	if err != nil {
		return raw
	}
	return profileTimes(prof)
}

// ftProfileLike runs each FT.PROFILE line on both servers and compares
// the replies, times aside.
func ftProfileLike(t *testing.T, p *difftest.Pair, script string) {
	t.Helper()
	for _, line := range strings.Split(script, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		p.DoBoth(line, func(redis, hotkv string) {
			if profileTimes(redis) != profileTimes(hotkv) {
				t.Errorf("%s\n redis: %q\n hotkv: %q", line, redis, hotkv)
			}
		})
	}
}

// TestFTProfileLikeRediSearch: FT.PROFILE SEARCH's results and profile
// (iterator types, terms, counters, sizes and children; the result
// processors and their counters) against RediSearch's, RESP2 and RESP3,
// times aside.
func TestFTProfileLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	p.Run(`
FT.CREATE idx PREFIX 1 d: SCHEMA t TEXT n NUMERIC SORTABLE g TAG
HSET d:1 t "hello world foo bar hello number one" n 1 g a,b1
HSET d:2 t "hello world foo bar hello number two" n 2 g a,b2
HSET d:3 t "hello world foo bar hello number three" n 3 g a,b3
HSET d:4 t "hello world foo bar hello number four" n 4 g a,b4
HSET d:5 t "hello world foo bar hello number five" n 5 g a,b5
HSET d:6 t "world peace" n 10 g a
`)
	waitIndexed(t, p.Redis, "idx")
	var script strings.Builder
	for _, q := range []string{"hello", "hello world", `"hello world"`, "hello|peace", "hello|world|peace",
		"hel*", "@g:{a}", "@g:{a|b1}", "@g:{a} hello", "@n:[1 3]", "@n:[-inf +inf]", "*", "-hello",
		"hello -world", "-nosuch", "nosuch", "hello nosuch", "hello nosuch world", "a", "(hello|peace) world",
		"hello -(world peace)", "-(hello|peace)"} {
		for _, lim := range []string{"", "LIMITED "} {
			fmt.Fprintf(&script, "FT.PROFILE idx SEARCH %sQUERY %q NOCONTENT\n", lim, q)
		}
	}
	script.WriteString(`FT.PROFILE idx SEARCH QUERY hello INKEYS 2 d:1 d:2 NOCONTENT
FT.PROFILE idx SEARCH QUERY hello WITHSCORES LIMIT 0 2
FT.PROFILE idx SEARCH QUERY hello WITHSCORES EXPLAINSCORE LIMIT 0 2 RETURN 1 n
FT.PROFILE idx SEARCH QUERY hello SORTBY n DESC LIMIT 0 2
FT.PROFILE idx SEARCH QUERY hello SORTBY n RETURN 1 n
FT.PROFILE idx SEARCH QUERY hello RETURN 1 t LIMIT 1 2
FT.PROFILE idx SEARCH QUERY hello RETURN 0
FT.PROFILE idx SEARCH QUERY hello HIGHLIGHT LIMIT 0 2
FT.PROFILE idx SEARCH QUERY "hello world" HIGHLIGHT LIMIT 0 2
FT.PROFILE idx SEARCH QUERY "hello|peace" SUMMARIZE LIMIT 1 2
FT.PROFILE idx SEARCH QUERY hello LIMIT 0 0
FT.PROFILE idx SEARCH QUERY hello LIMIT 0 0 WITHSCORES
FT.PROFILE idx SEARCH QUERY nosuch LIMIT 0 0
FT.PROFILE idx SEARCH QUERY hello WITHSORTKEYS SORTBY n NOCONTENT LIMIT 0 1
`)
	for _, l := range []string{"0 1", "0 3", "0 5", "0 6", "1 1", "1 2", "1 4", "1 5", "2 2", "4 1", "5 1", "7 2"} {
		fmt.Fprintf(&script, "FT.PROFILE idx SEARCH QUERY hello NOCONTENT LIMIT %s\n", l)
		fmt.Fprintf(&script, "FT.PROFILE idx SEARCH QUERY hello LIMIT %s\n", l)
	}
	script.WriteString("FT.PROFILE idx SEARCH QUERY nosuch NOCONTENT LIMIT 1 2\n")
	ftProfileLike(t, p, script.String())
	p.Run(`
FT.PROFILE idx
FT.PROFILE idx SEARCH
FT.PROFILE idx SEARCH QUERY
FT.PROFILE idx FOO QUERY hello
FT.PROFILE idx SEARCH hello x
FT.PROFILE idx SEARCH LIMITED hello
FT.PROFILE nosuch SEARCH QUERY hello
FT.PROFILE idx SEARCH QUERY hello bogus
FT.PROFILE idx SEARCH LIMITED QUERY
`)
	// Refused, not half-done: iterators whose profile is not
	// RediSearch's here (tag prefixes, suffixes).
	for _, line := range []string{
		"FT.PROFILE idx SEARCH QUERY @g:{b1*}",
		"FT.PROFILE idx SEARCH QUERY *ello DIALECT 2",
	} {
		if got := p.HotKV.Do(difftest.Split(line)...); !strings.Contains(got, "not supported by HotKV") {
			t.Errorf("%s: %q", line, got)
		}
	}
	resp3(p)
	ftProfileLike(t, p, `
FT.PROFILE idx SEARCH QUERY "hello -world" NOCONTENT LIMIT 0 1
FT.PROFILE idx SEARCH LIMITED QUERY "hel* | peace" WITHSCORES LIMIT 1 2
FT.PROFILE idx SEARCH QUERY "hello nosuch" RETURN 1 n
FT.PROFILE idx SEARCH QUERY "@g:{a|b1} -@n:[2 3]" LIMIT 0 0
`)
}

// TestFTProfileGeneratedLikeRediSearch: FT.PROFILE over the generated
// corpus (stems, prefixes, phrases, tags, negations, unions in
// intersections), both dialects, with and without LIMITED and a pager.
// Left out: numeric ranges, whose range tree here is one leaf (RediSearch
// splits it, so its readers' terms and sizes differ).
func TestFTProfileGeneratedLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	loadSearchCorpus(p)
	var b strings.Builder
	for _, q := range []string{"alpha", "running", "run", "runs", "jump*", "house", "houses", "apple",
		"alpha beta", "alpha|beta", "alpha -beta", "alpha beta gamma", "quick running house",
		`"alpha beta"`, "@b:alpha", "@a:run*", "alpha @t:{x}", "@t:{x|z} beta",
		"(alpha|delta) (beta|gamma)", "-alpha -beta", "zeta|eta|apples", "*", "alpha -beta gamma",
		"-(alpha|beta) house", "running -house quick", "runn* -alpha", "quick* house*",
		"alpha beta|gamma delta", "(running house)|(quick -alpha)", "@t:{x}", "@t:{x|y|z}"} {
		for _, d := range []string{"1", "2"} {
			fmt.Fprintf(&b, "FT.PROFILE gen SEARCH QUERY %q NOCONTENT LIMIT 0 200 DIALECT %s\n", q, d)
			fmt.Fprintf(&b, "FT.PROFILE gen SEARCH LIMITED QUERY %q WITHSCORES LIMIT 3 5 DIALECT %s\n", q, d)
		}
	}
	ftProfileLike(t, p, b.String())
}

// TestFTProfileAggregateLikeRediSearch: FT.PROFILE AGGREGATE's rows and
// profile (the iterators as rows are pulled; the result processors, their
// types, APPLY's and FILTER's expressions, and their counters under
// pagers, sorters and groupers) against RediSearch's, RESP2 and RESP3,
// times aside, and its errors.
func TestFTProfileAggregateLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	p.Run(`
FT.CREATE idx PREFIX 1 d: SCHEMA t TEXT n NUMERIC SORTABLE g TAG
HSET d:1 t "hello world number one" n 1 g a,b1
HSET d:2 t "hello world number two" n 2 g a,b2
HSET d:3 t "hello world number three" n 3 g a,b3
HSET d:4 t "hello world number four" n 4 g a,b4
HSET d:5 t "hello world number five" n 5 g a,b5
HSET d:6 t "world peace" n 10 g a
`)
	waitIndexed(t, p.Redis, "idx")
	var script strings.Builder
	for _, steps := range []string{"", "LIMIT 0 2", "LIMIT 1 2", "LIMIT 3 10", "LIMIT 9 2", "SORTBY 1 @n",
		"SORTBY 1 @n LIMIT 0 2", "SORTBY 1 @n LIMIT 1 2", "SORTBY 2 @n DESC MAX 3", "SORTBY 2 @t ASC",
		"LOAD 1 @t SORTBY 2 @t ASC LIMIT 2 2", "LOAD 1 @t", "LOAD 2 @t @g LIMIT 0 1", "LOAD *",
		"GROUPBY 1 @g SORTBY 1 @g", "GROUPBY 1 @n REDUCE COUNT 0 AS c SORTBY 1 @n",
		"LOAD 1 @t GROUPBY 1 @g REDUCE COUNT 0 AS c SORTBY 4 @c DESC @g ASC LIMIT 0 2",
		`APPLY "@n+1" AS x LIMIT 0 2`, `APPLY "@n+1" AS x FILTER "@x>3" LIMIT 0 1`, `LIMIT 0 2 APPLY "@n+1" AS x`,
		`LOAD 1 @t APPLY "upper(@t)" AS u APPLY @n AS m APPLY "!@n" AS z APPLY "0-@n" AS w APPLY "'s'" AS y FILTER "@n<3 || @n>4"`,
		`APPLY "@n*2" AS x FILTER "@x>4" SORTBY 2 @x DESC LIMIT 1 1`, `FILTER "@n==2 && @n!=3"`,
		`GROUPBY 1 @n REDUCE SUM 1 @n AS s GROUPBY 0 REDUCE COUNT 0 AS k`, "LOAD 1 @t LIMIT 0 0",
		"SORTBY 1 @n LIMIT 0 0", `LIMIT 0 0 APPLY "@n+1" AS x`} {
		for _, q := range []string{"hello", "*", "world -hello", "nosuch", "hel*|peace"} {
			fmt.Fprintf(&script, "FT.PROFILE idx AGGREGATE QUERY %q %s\n", q, steps)
		}
		fmt.Fprintf(&script, "FT.PROFILE idx AGGREGATE LIMITED QUERY %q %s\n", "hel*|peace", steps)
	}
	ftProfileLike(t, p, script.String())
	// GROUPBY's order without a SORTBY is RediSearch's hash table's:
	// the profiles alone.
	for _, steps := range []string{"GROUPBY 1 @g", "GROUPBY 1 @n REDUCE COUNT 0 AS c",
		"GROUPBY 1 @n REDUCE COUNT 0 AS c LIMIT 0 2", "GROUPBY 1 @n REDUCE COUNT 0 AS c LIMIT 1 3"} {
		for _, q := range []string{"hello", "*", "hel*|peace"} {
			line := fmt.Sprintf("FT.PROFILE idx AGGREGATE QUERY %q %s", q, steps)
			p.DoBoth(line, func(redis, hotkv string) {
				if profileOnly(redis) != profileOnly(hotkv) {
					t.Errorf("%s\n redis: %q\n hotkv: %q", line, redis, hotkv)
				}
			})
		}
	}
	p.Run(`
FT.AGGREGATE idx hello LOAD 1 @t LIMIT 0 0
FT.AGGREGATE idx hello SORTBY 1 @n LIMIT 2 0
FT.AGGREGATE idx * LIMIT 0 0 APPLY "@n+1" AS x
FT.PROFILE idx AGGREGATE QUERY hello WITHCURSOR
FT.PROFILE idx SEARCH QUERY hello WITHCURSOR
FT.PROFILE nosuch AGGREGATE QUERY hello withcursor COUNT 1
FT.PROFILE idx AGGREGATE QUERY hello bogus
FT.PROFILE idx AGGREGATE QUERY hello SORTBY 1 @nosuch
FT.PROFILE idx AGGREGATE QUERY hello APPLY "@nosuch" AS x
FT.PROFILE nosuch AGGREGATE QUERY hello
FT.PROFILE idx AGGREGATE QUERY
FT.PROFILE idx AGGREGATE LIMITED
`)
	resp3(p)
	ftProfileLike(t, p, `
FT.PROFILE idx AGGREGATE QUERY hello LOAD 1 @t LIMIT 0 1
FT.PROFILE idx AGGREGATE LIMITED QUERY "hel* | peace" GROUPBY 1 @g REDUCE COUNT 0 AS c SORTBY 4 @c DESC @g ASC
FT.PROFILE idx AGGREGATE QUERY nosuch
FT.PROFILE idx AGGREGATE QUERY hello SORTBY 1 @n LIMIT 0 0
`)
	p.Run(`
FT.AGGREGATE idx hello LIMIT 0 0
FT.AGGREGATE idx hello SORTBY 2 @n DESC LIMIT 1 2
FT.AGGREGATE idx hello LIMIT 0 0 WITHCURSOR COUNT 1
`)
}
