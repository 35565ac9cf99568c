package server

import (
	"slices"
	"testing"

	"github.com/hotkv/hotkv/internal/difftest"
)

// The differential tests of INDEXEMPTY and INDEXMISSING: empty values
// matched by @f:"" and @t:{""}, documents without a field by
// ismissing(@f), in both dialects, with their scores, FT.EXPLAIN's trees,
// errors and FT.INFO's flags.

// missingQueries are asked in both dialects, with scores, and explained.
var missingQueries = []string{
	`ismissing(@t)`, `ismissing(@g)`, `ismissing(@n)`, `ismissing(@geo)`, `ismissing(@v)`,
	`-ismissing(@t)`, `ismissing(@t) foo`, `foo ismissing(@t)`, `ismissing(@t) | foo`,
	`ismissing(@t) | ismissing(@n)`, `-ismissing(@t) foo`, `foo -ismissing(@g)`,
	`@x:foo ismissing(@t)`, `ISMISSING(@t)`, `ismissing( @t )`, `ismissing (@t)`, `(ismissing(@t))`,
	`ismissing(@t) | -foo`, `ismissing(@nosuch)`, `ismissing(@al)`,
	`@t:""`, `@x:""`, `""`, `"" foo`, `-""`, `-@t:""`, `@t:("")`, `@t|x:""`,
	`@x|t:""`, `@t:"" | @x:""`, `@t:"" ""`, `"" ""`, `""|""`, `@nosuch:""`, `@g:""`, `@al:""`,
	`@g:{""}`, `@g:{"" | a}`, `@g:{"a"}`, `@g:{"a b"}`,
	`@g:{"" | ""}`, `@g:{""} @t:""`, `@t:"" ismissing(@n)`, `@t:-""`,
	// Errors.
	`ismissing(@y)`, `@y:""`, `@yt:{""}`, `ismissing(t)`, `ismissing(@t`, `ismissing(@t) )`,
	`ismissing(@t foo)`,
	`@x:ismissing(@t)`, `@x:(foo ismissing(@t))`, `ismissing`, `foo | ismissing`, `ismissingx(@t)`,
	`@g:{""*}`, `""*`, `(@t)`, `@t foo`, `@t`, `@t)`, `@t|`, `@t|x)`,
}

func TestFTIndexMissingEmptyLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	p.Run(`
FT.CREATE idx PREFIX 1 d: SCHEMA t TEXT INDEXEMPTY INDEXMISSING WEIGHT 3 g TAG INDEXEMPTY INDEXMISSING n NUMERIC INDEXMISSING geo GEO INDEXMISSING x TEXT INDEXEMPTY y TEXT yt TAG nm AS al TEXT INDEXEMPTY INDEXMISSING v VECTOR FLAT 6 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2 INDEXMISSING
HSET d:1 t "hello world" g "a,b" n 1 geo "1,2" x foo
HSET d:2 t "" g "" x foo
HSET d:3 x foo y bar
HSET d:4 t hello g a
HSET d:5 t "  " g " , " x ""
HSET d:6 t the g "a,,b" x "foo bar"
HSET d:7 t "" x "a b c foo" g "a, "
HSET d:8 n "" x foo
HSET d:9 geo "" x foo
`)
	ask := func() {
		for _, q := range missingQueries {
			for _, d := range []string{"1", "2"} {
				p.DoArgs("FT.SEARCH", "idx", q, "WITHSCORES", "NOCONTENT", "DIALECT", d)
				p.DoArgs("FT.EXPLAIN", "idx", q, "DIALECT", d)
			}
		}
	}
	ask()
	// Single quotes and tag sets quirkier in DIALECT 1: DIALECT 2 only.
	for _, q := range []string{`@t:''`, `''`, `@g:{''}`, `@g:{a | ""}`, `ismissing(@t|@g)`,
		`ismissing(@t, @g)`, `ismissing()`, `ismissing(@)`} {
		p.DoArgs("FT.SEARCH", "idx", q, "WITHSCORES", "NOCONTENT", "DIALECT", "2")
		p.DoArgs("FT.EXPLAIN", "idx", q, "DIALECT", "2")
	}
	for _, s := range []string{"BM25", "TFIDF.DOCNORM", "DISMAX"} {
		p.DoArgs("FT.SEARCH", "idx", `"" foo`, "WITHSCORES", "NOCONTENT", "SCORER", s, "DIALECT", "2")
		p.DoArgs("FT.SEARCH", "idx", `@t:""`, "WITHSCORES", "NOCONTENT", "SCORER", s, "DIALECT", "2")
	}
	p.Run(`
FT.TAGVALS idx g
FT.SEARCH idx ismissing(@t) DIALECT 2
`)
	p.DoArgs("FT.SEARCH", "idx", `@g:{""}`, "RETURN", "1", "g", "DIALECT", "2")
	compareFTInfo(t, p, "idx")

	// Documents written before the index: the initial scan.
	p.Run(`
FT.CREATE late PREFIX 1 d: SCHEMA t TEXT INDEXEMPTY INDEXMISSING g TAG INDEXEMPTY INDEXMISSING n NUMERIC INDEXMISSING
`)
	waitIndexed(t, p.Redis, "late")
	// (RediSearch's scan gives ids in its own order: the keys compared
	// as sets.)
	for _, q := range []string{`ismissing(@t)`, `ismissing(@n)`, `@t:""`, `@g:{""}`} {
		unorderedKeys(t, p, "FT.SEARCH", "late", q, "NOCONTENT", "DIALECT", "2")
	}

	// Updates that empty, fill or remove a field (no scores: RediSearch
	// counts the replaced documents in its IDF until its collector runs).
	p.Run(`
HSET d:1 t ""
HDEL d:2 t g
HSET d:3 t now g "x"
HSET d:4 g ""
HDEL d:7 t
HSET d:8 n 5
DEL d:6
`)
	for _, q := range []string{`ismissing(@t)`, `ismissing(@g)`, `ismissing(@n)`, `-ismissing(@t)`,
		`@t:""`, `@g:{""}`, `""`, `-@t:""`, `ismissing(@t) | @t:""`} {
		p.DoArgs("FT.SEARCH", "idx", q, "NOCONTENT", "DIALECT", "2")
		unorderedKeys(t, p, "FT.SEARCH", "late", q, "NOCONTENT", "DIALECT", "2")
	}

	resp3(p)
	for _, q := range []string{`ismissing(@n)`, `@x:""`, `ismissing(@y)`} {
		p.DoArgs("FT.SEARCH", "idx", q, "DIALECT", "2")
	}
}

// unorderedKeys compares the keys of a search's NOCONTENT reply as sets.
func unorderedKeys(t *testing.T, p *difftest.Pair, args ...string) {
	t.Helper()
	want, got := replyStrings(p.Redis.Do(args...)), replyStrings(p.HotKV.Do(args...))
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(want, got) {
		t.Errorf("%q\n redis: %q\n hotkv: %q", args, want, got)
	}
}

func TestFTCreateIndexMissingLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	p.Run(`
FT.CREATE a SCHEMA t TEXT INDEXMISSING INDEXEMPTY WITHSUFFIXTRIE SORTABLE g TAG INDEXMISSING WITHSUFFIXTRIE INDEXEMPTY SORTABLE n NUMERIC INDEXMISSING SORTABLE geo GEO INDEXMISSING
FT.CREATE b SCHEMA t TEXT NOSTEM INDEXMISSING WEIGHT 2 c TAG CASESENSITIVE INDEXEMPTY v VECTOR HNSW 6 TYPE FLOAT32 DIM 2 DISTANCE_METRIC COSINE INDEXMISSING
FT.CREATE c SCHEMA t TEXT INDEXMISSING INDEXMISSING n NUMERIC INDEXMISSING INDEXMISSING
FT.CREATE e1 SCHEMA n NUMERIC INDEXEMPTY
FT.CREATE e2 SCHEMA n GEO INDEXEMPTY
FT.CREATE e3 SCHEMA n TEXT INDEXMISSING SORTABLE INDEXEMPTY
FT.CREATE e4 SCHEMA n TEXT NOINDEX INDEXMISSING
FT.CREATE e5 SCHEMA v VECTOR FLAT 6 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2 INDEXEMPTY
FT.CREATE e6 SCHEMA n NUMERIC SORTABLE INDEXMISSING
`)
	for _, ix := range []string{"a", "b"} {
		compareFTInfo(t, p, ix)
	}
	resp3(p)
	for _, ix := range []string{"a", "b"} {
		compareFTInfo(t, p, ix)
	}
}

// TestFTSuffixContainsLikeRediSearch: *foo and *foo* on TEXT terms and
// TAG values, with and without WITHSUFFIXTRIE (where a TEXT field has
// one, only its fields' terms expand, and a modifier must name only such
// fields), in both dialects, with scores and FT.EXPLAIN.
func TestFTSuffixContainsLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	p.Run(`
FT.CREATE trie PREFIX 1 s: SCHEMA t TEXT x TEXT WITHSUFFIXTRIE g TAG h TAG WITHSUFFIXTRIE
FT.CREATE plain PREFIX 1 s: SCHEMA t TEXT x TEXT g TAG h TAG
HSET s:1 t "running runner" x "running" g "foobar,barfoo" h "foobar"
HSET s:2 t "sunning gunner" x "bunny" g "xfoox" h "xfoox,bar"
HSET s:3 t "unfold" x "hello running" g "foo" h "foo"
HSET s:4 t "stunning cunning" x "funny nnn stunning" g "barfoo,foofoo" h "barfoo,foofoo"
HSET s:5 t "fold folding" x "unfolding" g "nofoo" h "nofoo"
`)
	for _, q := range []string{"*ing", "*unn*", "@t:*ing", "@x:*ing", "@x:*unn*", "*nn* hello", "*nn*",
		"@g:{*foo}", "@g:{*foo*}", "@h:{*foo}", "@h:{*foo*}", "@g:{*oo*|bar}", "*in", "*i", "*i*",
		"*ing*", "-*ing", "*ing|*old", "*ning", "*un", "@x:(*ing hello)", "@t|x:*ing", "*fold*",
		"*old* -*ing", "@h:{*o}", "@h:{*fo*} @g:{*bar}", "running *ing", "*ing running", "*nnn*"} {
		for _, ix := range []string{"trie", "plain"} {
			for _, d := range []string{"1", "2"} {
				p.DoArgs("FT.SEARCH", ix, q, "WITHSCORES", "NOCONTENT", "DIALECT", d)
				p.DoArgs("FT.EXPLAIN", ix, q, "DIALECT", d)
			}
		}
	}
	p.Run(`
FT.CONFIG SET MAXEXPANSIONS 2
FT.SEARCH trie *nn* WITHSCORES NOCONTENT
FT.SEARCH plain *nn* WITHSCORES NOCONTENT
FT.SEARCH trie @h:{*foo*} WITHSCORES NOCONTENT
FT.SEARCH plain @h:{*foo*} WITHSCORES NOCONTENT
FT.CONFIG SET MAXEXPANSIONS 200
`)
	resp3(p)
	p.Run(`
FT.SEARCH trie *unn* WITHSCORES NOCONTENT
FT.SEARCH plain @g:{*foo} WITHSCORES
`)
}
