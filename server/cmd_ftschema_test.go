package server

import (
	"bufio"
	"fmt"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/difftest"
)

// FT.CREATE's options beyond the prefixes (FILTER, SCORE_FIELD, NOOFFSETS,
// NOFREQS, NOFIELDS, NOHL, MAXTEXTFIELDS, ASYNC, NOSCOREIDX), compared
// with RediSearch 2.10.5.

// TestFTCreateFilterLikeRediSearch: a FILTER decides which hashes are
// documents, on the initial scan and on every write; a document leaves
// the index when its fields no longer pass, and comes back (with a new
// id) when they do again. A filter that fails to evaluate (a missing
// field) lets the hash in, as in RediSearch.
func TestFTCreateFilterLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	p.Run(`
HSET u:1 name "alice smith" age 20 city paris
FT.CREATE f PREFIX 1 u: FILTER "@age>16" SCHEMA name TEXT age NUMERIC SORTABLE city TAG
FT.CREATE k PREFIX 1 u: FILTER "startswith(@__key, \"u:x\")" SCHEMA name TEXT
FT.CREATE a PREFIX 1 u: FILTER "@years>16 && @c==\"paris\"" SCHEMA name TEXT age AS years NUMERIC city AS c TAG
FT.CREATE x PREFIX 1 u: FILTER "exists(@nick)" SCHEMA name TEXT
FT.CREATE s PREFIX 1 u: FILTER "lower(@city)==\"rome\" || @age<10" SCHEMA name TEXT
`)
	names := []string{"f", "k", "a", "x", "s"}
	for _, name := range names {
		waitIndexed(t, p.Redis, name)
	}
	p.Run(`
HSET u:2 name "bob smith" age 12 city rome
HSET u:3 name "carol" city Rome nick cc
HSET u:x4 name "dave smith" age 40 city paris
HSET u:5 name "eve smith" age 7
HSET u:6 name "frank" age abc
HSET v:1 name "smith" age 30
`)
	for _, name := range names {
		compareFTInfo(t, p, name)
		p.DoArgs("FT.SEARCH", name, "*", "SORTBY", "name", "NOCONTENT", "LIMIT", "0", "20")
		p.DoArgs("FT.SEARCH", name, "smith", "WITHSCORES")
	}
	// Moving documents in and out. (RediSearch keeps a removed
	// document's records until its garbage collector runs: the scores
	// and term counts that follow updates are not compared.)
	p.Run(`
HSET u:2 age 30
FT.SEARCH f * SORTBY age NOCONTENT
HSET u:1 age 3
FT.SEARCH f * SORTBY age NOCONTENT
FT.SEARCH s * SORTBY name NOCONTENT
FT.SEARCH a * SORTBY name NOCONTENT
HDEL u:1 age
FT.SEARCH f * SORTBY name NOCONTENT
HSET u:1 age 17
FT.SEARCH f * SORTBY age NOCONTENT
FT.SEARCH s * SORTBY name NOCONTENT
HSET u:3 age 1
FT.SEARCH f * SORTBY name NOCONTENT
HSET u:3 nick ""
FT.SEARCH x * SORTBY name NOCONTENT
HDEL u:3 nick
FT.SEARCH x * SORTBY name NOCONTENT
HSET u:x9 name "zed"
FT.SEARCH k * SORTBY name NOCONTENT
DEL u:2
FT.SEARCH f * SORTBY age
`)
	for _, name := range names {
		compareFTInfoFields(t, p, name, "num_docs", "max_doc_id", "hash_indexing_failures", "index_definition", "index_options")
	}
	resp3(p)
	p.Run(`
FT.SEARCH f * SORTBY age
FT.SEARCH a * NOCONTENT
`)
	compareFTInfoFields(t, p, "f", "num_docs", "max_doc_id", "index_definition", "index_options")
	compareFTInfoFields(t, p, "a", "num_docs", "max_doc_id", "index_definition", "index_options")
}

// compareFTInfoFields is compareFTInfo for the fields named only.
func compareFTInfoFields(t *testing.T, p *difftest.Pair, name string, keys ...string) {
	t.Helper()
	want := ftInfoFields(p.Redis.Do("FT.INFO", name))
	got := ftInfoFields(p.HotKV.Do("FT.INFO", name))
	for _, k := range keys {
		if want[k] != got[k] || got[k] == "" {
			t.Errorf("FT.INFO %s %s\n redis: %q\n hotkv: %q", name, k, want[k], got[k])
		}
	}
}

// ftInfoFields splits an FT.INFO reply (RESP2 or RESP3) into its fields'
// raw values.
func ftInfoFields(raw string) map[string]string {
	r := bufio.NewReader(strings.NewReader(raw))
	head, _ := r.ReadString('\n')
	var n int
	fmt.Sscanf(head[1:], "%d", &n)
	if head[0] == '%' {
		n *= 2
	}
	m := map[string]string{}
	for i := 0; i < n/2; i++ {
		k, err1 := difftest.ReadReply(r)
		v, err2 := difftest.ReadReply(r)
		if err1 != nil || err2 != nil {
			break
		}
		k = strings.TrimSpace(k)
		m[k[1:]] = v
	}
	return m
}

// TestFTCreateFilterEdgesLikeRediSearch: FILTER's errors, and the
// filter that reads the hash field of an aliased schema field, which
// RediSearch cannot load: no hash passes it.
func TestFTCreateFilterEdgesLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	p.Run(`
FT.CREATE e PREFIX 1 e: FILTER "@age>" SCHEMA t TEXT
FT.CREATE e PREFIX 1 e: FILTER "foo(@a)" SCHEMA t TEXT
FT.CREATE e PREFIX 1 e: FILTER SCHEMA t TEXT
FT.CREATE e PREFIX 1 e: FILTER abc SCHEMA t TEXT
FT.CREATE e PREFIX 1 e: SCHEMA t TEXT FILTER
FT.CREATE e FILTER
FT._LIST
FT.CREATE o PREFIX 1 e: FILTER "@t" SCHEMA t TEXT
FT.CREATE z PREFIX 1 e: FILTER "0" SCHEMA t TEXT
HSET e:1 t hello a 20
HSET e:2 t hello
HSET e:3 t ""
FT.SEARCH o * SORTBY t NOCONTENT
FT.SEARCH z * NOCONTENT
`)
	waitIndexed(t, p.Redis, "o")
	waitIndexed(t, p.Redis, "z")
	compareFTInfo(t, p, "o")
	compareFTInfo(t, p, "z")
	// The hash field of an aliased schema field, alone on its prefix
	// (RediSearch's filters share their lookup across the indexes a key
	// matches, so that with other indexes on the same keys the outcome
	// depends on them).
	p.Run(`
FT.CREATE n PREFIX 1 n: FILTER "@a>16" SCHEMA t TEXT a AS age NUMERIC
HSET n:1 t hello a 20
HSET n:2 t hello
FT.SEARCH n * NOCONTENT
`)
	waitIndexed(t, p.Redis, "n")
	compareFTInfo(t, p, "n")
}

// TestFTCreateScoreFieldLikeRediSearch: SCORE_FIELD gives each document
// its score (a float; the default when the field is missing or not a
// number; a negative one scores 0), and SCORE's default is a float too.
func TestFTCreateScoreFieldLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	p.Run(`
HSET k:pre t "hi there" s 0.25
FT.CREATE s PREFIX 1 k: SCORE 0.3 SCORE_FIELD s SCHEMA t TEXT n NUMERIC
FT.CREATE d PREFIX 1 k: SCORE 0.7 SCHEMA t TEXT
FT.CREATE e PREFIX 1 k: SCORE_FIELD SCHEMA t TEXT
FT.CREATE e PREFIX 1 k: SCORE_FIELD
`)
	waitIndexed(t, p.Redis, "s")
	waitIndexed(t, p.Redis, "d")
	for i, v := range []string{"0.5", "abc", "2", "-1", "", "0", "1", "0.5x", "1e-1", "inf", "-inf", "nan", "1e400",
		"3.7", "-0.5", " 1", "INF", "0.125"} {
		p.DoArgs("HSET", fmt.Sprintf("k:%02d", i), "t", strings.Repeat("hi ", 1+i%3)+"you", "s", v, "n", fmt.Sprint(i))
	}
	p.Run(`
HSET k:none t "hi" n 1
FT.SEARCH s hi WITHSCORES NOCONTENT LIMIT 0 30
FT.SEARCH s * WITHSCORES NOCONTENT LIMIT 0 30
FT.SEARCH s "@n:[1 5]" WITHSCORES NOCONTENT LIMIT 0 30
FT.SEARCH s "hi -you" WITHSCORES LIMIT 0 30
FT.SEARCH d hi WITHSCORES NOCONTENT LIMIT 0 30
FT.SEARCH s hi RETURN 2 s t LIMIT 0 3
FT.AGGREGATE s hi LOAD 2 @s @t LIMIT 0 3
FT.AGGREGATE s hi LOAD * LIMIT 0 3
HSET k:03 s 0.9
HDEL k:00 s
FT.SEARCH s * WITHSCORES NOCONTENT LIMIT 0 30
`)
	compareFTInfo(t, p, "s")
	compareFTInfo(t, p, "d")
	resp3(p)
	p.Run(`FT.SEARCH s you WITHSCORES LIMIT 0 5`)
	compareFTInfo(t, p, "s")
}

// TestFTCreateStorageOptionsLikeRediSearch: NOOFFSETS (phrases match as
// intersections, no slop from positions), NOFREQS (each record counts
// once), NOFIELDS (field restrictions match any TEXT field), NOHL,
// MAXTEXTFIELDS, ASYNC and NOSCOREIDX, with the scores of RediSearch.
func TestFTCreateStorageOptionsLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	opts := []string{"", "NOOFFSETS", "NOFREQS", "NOFIELDS", "NOHL", "MAXTEXTFIELDS", "ASYNC", "NOSCOREIDX",
		"NOHL NOOFFSETS", "NOFREQS NOFIELDS NOOFFSETS", "NOFREQS NOOFFSETS", "NOFREQS MAXTEXTFIELDS",
		"NOOFFSETS MAXTEXTFIELDS"}
	// Left out: NOFIELDS with MAXTEXTFIELDS, on which RediSearch 2.10.5
	// crashes when it indexes a document.
	p.Run(`HSET k:0 t "hello hello world" b "world"`)
	for i, o := range opts {
		p.Do(fmt.Sprintf("FT.CREATE i%d PREFIX 1 k: %s SCHEMA t TEXT WEIGHT 2 b TEXT", i, o))
		waitIndexed(t, p.Redis, fmt.Sprintf("i%d", i))
	}
	p.Run(`
HSET k:1 t "hello world hello" b "world foo"
HSET k:2 t "foo bar" b "hello hello hello world"
HSET k:3 t "world" b "running runs"
HSET k:4 t "the quick brown fox" b "jumps over the lazy dog fox brown"
HSET k:5 t "brown dog" b "quick fox"
`)
	for i := range opts {
		name := fmt.Sprintf("i%d", i)
		for _, q := range []string{"hello", "world", `"hello world"`, "@t:hello", "@b:world", "@t:(hello world)",
			"hello world", "run", "hello|foo", `"world foo"`, `"quick brown fox"`, `"brown fox"`, "brown fox",
			"fox -dog", "(brown|quick) fox", "@b:fox"} {
			p.DoArgs("FT.SEARCH", name, q, "WITHSCORES", "NOCONTENT")
			p.DoArgs("FT.SEARCH", name, q, "WITHSCORES", "NOCONTENT", "DIALECT", "2")
		}
		p.DoArgs("FT.SEARCH", name, "hello", "INFIELDS", "1", "b", "WITHSCORES", "NOCONTENT")
		compareFTInfo(t, p, name)
	}
	resp3(p)
	for i := range opts {
		compareFTInfo(t, p, fmt.Sprintf("i%d", i))
	}
	p.Run(`FT.SEARCH i2 hello WITHSCORES`)
}

// TestFTCreateTextFieldLimitLikeRediSearch: 128 TEXT fields at most, with
// or without MAXTEXTFIELDS.
func TestFTCreateTextFieldLimitLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	schema := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, " f%d TEXT", i)
		}
		return b.String()
	}
	p.Do("FT.CREATE m1 SCHEMA" + schema(33))
	p.Do("FT.CREATE m2 MAXTEXTFIELDS SCHEMA" + schema(64))
	p.Do("FT.CREATE m3 MAXTEXTFIELDS SCHEMA" + schema(129))
	p.Do("FT.CREATE m4 SCHEMA" + schema(129))
	p.Do("FT.CREATE m5 SCHEMA" + schema(128))
	p.Do("FT.ALTER m5 SCHEMA ADD x TEXT")
	p.Do("FT.ALTER m5 SCHEMA ADD x NUMERIC")
	for _, ix := range []string{"m1", "m2", "m5"} {
		waitIndexed(t, p.Redis, ix)
		compareFTInfo(t, p, ix)
	}
}

// TestFTCreateWithSuffixTrieLikeRediSearch: WITHSUFFIXTRIE on TEXT and
// TAG fields, listed by FT.INFO, changes nothing else RediSearch shows
// (its suffix and contains queries work without it).
func TestFTCreateWithSuffixTrieLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	p.Run(`
FT.CREATE w PREFIX 1 w: SCHEMA t TEXT WITHSUFFIXTRIE SORTABLE g TAG WITHSUFFIXTRIE CASESENSITIVE u TEXT NOSTEM WITHSUFFIXTRIE SORTABLE NOINDEX v TAG SEPARATOR ; WITHSUFFIXTRIE
FT.CREATE e PREFIX 1 w: SCHEMA n NUMERIC WITHSUFFIXTRIE
FT.CREATE e PREFIX 1 w: SCHEMA t TEXT WITHSUFFIXTRIE WITHSUFFIXTRIE
HSET w:1 t "hello world running" g "abc,xyz" v "a;b"
HSET w:2 t "help wanted" g "Abc"
FT.SEARCH w hel* WITHSCORES NOCONTENT
FT.SEARCH w @g:{abc} WITHSCORES NOCONTENT
FT.SEARCH w @v:{b} WITHSCORES
FT.ALTER w SCHEMA ADD z TEXT WITHSUFFIXTRIE
`)
	waitIndexed(t, p.Redis, "w")
	compareFTInfo(t, p, "w")
	resp3(p)
	compareFTInfo(t, p, "w")
}

// TestFTCreateOptionsSurviveReload: an index with a FILTER, a SCORE_FIELD,
// a PAYLOAD_FIELD, a PHONETIC field and storage options is the same after
// DEBUG RELOAD (its definition is parsed again and its documents indexed
// again through the filter).
func TestFTCreateOptionsSurviveReload(t *testing.T) {
	_, addr := startServer(t, "--enable-debug-command", "yes")
	c := difftest.Dial(t, addr)
	runAll(c, [][]string{
		{"FT.CREATE", "o", "PREFIX", "1", "o:", "FILTER", "@age>16", "SCORE_FIELD", "s", "PAYLOAD_FIELD", "pl", "NOFREQS", "NOOFFSETS", "SCHEMA", "t", "TEXT", "PHONETIC", "dm:en", "age", "NUMERIC", "SORTABLE"},
		{"HSET", "o:1", "t", "hello hello world", "age", "20", "s", "0.5", "pl", "abc"},
		{"HSET", "o:2", "t", "hello there", "age", "10"},
		{"HSET", "o:3", "t", "world hello", "age", "30"},
	})
	view := func() string {
		waitFor(t, func() bool { return strings.Contains(c.Do("FT.INFO", "o"), "+indexing\r\n:0\r\n") })
		var b strings.Builder
		b.WriteString(maxDocID.ReplaceAllString(c.Do("FT.INFO", "o"), ""))
		for _, q := range []string{"hello", `"hello world"`, "*", "helo"} {
			b.WriteString(c.Do("FT.SEARCH", "o", q, "WITHSCORES", "WITHPAYLOADS", "SORTBY", "age"))
		}
		return b.String()
	}
	want := view()
	if !strings.Contains(want, "o:1") || strings.Contains(want, "o:2") || !strings.Contains(want, "+filter\r\n+@age>16") ||
		!strings.Contains(want, "$3\r\nabc\r\n") || strings.Count(want, "o:1") != 4 {
		t.Fatalf("before the reload: %q", want)
	}
	expect(t, c, "+OK\r\n", "DEBUG", "RELOAD")
	if got := view(); got != want {
		t.Errorf("after DEBUG RELOAD:\n got %q\nwant %q", got, want)
	}
}
