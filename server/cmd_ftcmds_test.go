package server

import (
	"net"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// TestFTAliasesLikeRediSearch: FT.ALIASADD, FT.ALIASUPDATE and
// FT.ALIASDEL, their errors, and the commands that resolve an alias (an
// index of the alias's name first); dropping an index drops its aliases.
func TestFTAliasesLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	p.Run(`
FT.CREATE idx PREFIX 1 doc: SCHEMA t TEXT g TAG n NUMERIC
FT.CREATE idx2 PREFIX 1 other: SCHEMA t TEXT
HSET doc:1 t hello g "A,b" n 3
HSET other:1 t hello
FT.ALIASADD
FT.ALIASADD al
FT.ALIASADD al idx extra
FT.ALIASADD al idx
FT.ALIASADD al idx
FT.ALIASADD al idx2
FT.ALIASADD al2 nosuch
FT.ALIASADD al3 al
FT.ALIASADD idx2 idx
`)
	compareFTInfo(t, p, "al")
	p.Run(`
FT.SEARCH al hello NOCONTENT
FT.SEARCH AL hello NOCONTENT
FT.SEARCH idx2 hello NOCONTENT
FT.ALIASUPDATE
FT.ALIASUPDATE x
FT.ALIASUPDATE al idx2
FT.SEARCH al hello NOCONTENT
FT.ALIASUPDATE al nosuch
FT.SEARCH al hello NOCONTENT
FT.ALIASUPDATE new idx
FT.ALIASUPDATE idx2 idx
FT.ALIASUPDATE al al
FT.ALIASDEL
FT.ALIASDEL a b
FT.ALIASDEL nosuch
FT.ALIASDEL new
FT.ALIASDEL new
FT.ALIASDEL idx2
FT.ALIASDEL idx
FT.ALTER al SCHEMA ADD x TEXT
FT.SEARCH idx2 hello NOCONTENT
FT.ALIASADD q idx2
FT.ALIASADD r idx2
FT.DROPINDEX al
FT.SEARCH q hello
FT.SEARCH r hello
FT.ALIASDEL q
FT.ALIASADD q idx
FT.SEARCH q hello NOCONTENT
FT.CREATE q PREFIX 1 other: SCHEMA t TEXT
`)
	waitIndexed(t, p.Redis, "q") // RediSearch scans existing keys in the background
	compareFTInfo(t, p, "q")
	p.Run(`
FT.SEARCH q hello NOCONTENT
FT.ALIASDEL q
FT.ALIASADD q idx
FT.DROPINDEX q
FT.SEARCH q hello NOCONTENT
FT.ALIASDEL q
FT.DROPINDEX q DD
FT.SEARCH q hello
`)
	p.DoUnordered("FT._LIST")
	resp3(p)
	p.Run(`
FT.ALIASADD r idx
FT.ALIASADD r idx
FT.SEARCH r hello NOCONTENT
FT.ALIASUPDATE r nosuch
FT.ALIASDEL r
FT.ALIASDEL r
`)
}

// TestFTAliasLocksItsIndex: a search through an alias locks the index's
// lock: a writer of one of its keys holding it blocks the search until it
// is released.
func TestFTAliasLocksItsIndex(t *testing.T) {
	s, addr := startServer(t)
	c := difftest.Dial(t, addr)
	for _, cmd := range [][]string{
		{"FT.CREATE", "ia", "PREFIX", "1", "a:", "SCHEMA", "f", "TEXT"},
		{"FT.CREATE", "ib", "PREFIX", "1", "b:", "SCHEMA", "f", "TEXT"},
		{"FT.ALIASADD", "al", "ia"},
		{"FT.ALIASADD", "bl", "ib"},
	} {
		if r := c.Do(cmd...); r != "+OK\r\n" {
			t.Fatalf("%v: %q", cmd, r)
		}
	}
	g := s.locks.NewGuard(1)
	if !g.TryLockKeys([][]byte{[]byte("a:other"), []byte("ia")}, true) {
		t.Fatal("could not lock")
	}
	dial := func() net.Conn {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		return conn
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
	ca, cb := dial(), dial()
	ca.Write(difftest.Encode("FT.SEARCH", "al", "x", "NOCONTENT"))
	cb.Write(difftest.Encode("FT.SEARCH", "bl", "x", "NOCONTENT"))
	ra, rb := reply(ca), reply(cb)
	select {
	case r := <-rb:
		if r != "*1\r\n:0\r\n" {
			t.Errorf("search of ib: %q", r)
		}
	case <-time.After(2 * time.Second):
		t.Error("a search through an alias of ib waited for index ia's lock")
	}
	select {
	case r := <-ra:
		t.Errorf("a search through an alias of ia ran while its lock was held: %q", r)
	case <-time.After(200 * time.Millisecond):
	}
	g.Unlock()
	select {
	case r := <-ra:
		if r != "*1\r\n:0\r\n" {
			t.Errorf("search of ia: %q", r)
		}
	case <-time.After(2 * time.Second):
		t.Error("the search did not run once the lock was released")
	}
	c.Do("HSET", "a:1", "f", "x")
	if r := c.Do("FT.SEARCH", "al", "x", "NOCONTENT"); r != "*2\r\n:1\r\n$3\r\na:1\r\n" {
		t.Errorf("FT.SEARCH al: %q", r)
	}
	if r := c.Do("FT.ALIASUPDATE", "al", "ib"); r != "+OK\r\n" {
		t.Errorf("FT.ALIASUPDATE: %q", r)
	}
	if r := c.Do("FT.SEARCH", "al", "x", "NOCONTENT"); r != "*1\r\n:0\r\n" {
		t.Errorf("FT.SEARCH al after the update: %q", r)
	}
}

// TestFTTagValsLikeRediSearch: FT.TAGVALS's values (lower-cased as
// RediSearch lowercases, ASCII only, unless CASESENSITIVE; in its trie's
// order) and errors, RESP2 and RESP3.
func TestFTTagValsLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	p.Run(`
FT.CREATE t PREFIX 1 t: SCHEMA g TAG cs TAG CASESENSITIVE sep TAG SEPARATOR ; n NUMERIC x TEXT ni TAG NOINDEX e TAG
HSET t:1 g "Foo,bar, Baz ,zz" cs "Foo,foo,BAR" sep "a;b,c;  D " n 1 x y ni q
HSET t:2 g "Ünïcode,ÄB,éé,a b,a-b,ab,a,~x,Zz" cs ""
HSET t:3 g ""
HSET t:4 g "a,,b"
FT.TAGVALS
FT.TAGVALS t
FT.TAGVALS t g extra
FT.TAGVALS t g
FT.TAGVALS t cs
FT.TAGVALS t sep
FT.TAGVALS t n
FT.TAGVALS t x
FT.TAGVALS t nosuch
FT.TAGVALS t G
FT.TAGVALS nosuch g
FT.TAGVALS t ni
FT.TAGVALS t e
FT.SEARCH t "@g:{ÄB}" NOCONTENT
FT.SEARCH t "@g:{äb}" NOCONTENT
FT.SEARCH t "@g:{äb}" NOCONTENT DIALECT 2
FT.ALIASADD ta t
FT.TAGVALS ta g
`)
	resp3(p)
	p.Run(`
FT.TAGVALS t g
FT.TAGVALS t cs
FT.TAGVALS t e
FT.TAGVALS t n
`)
}

// TestFTDictLikeRediSearch: FT.DICTADD, FT.DICTDEL and FT.DICTDUMP —
// server-wide dictionaries, kept once emptied, dropped by FLUSHALL and
// FLUSHDB — RESP2 and RESP3.
func TestFTDictLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	p.Run(`
FLUSHALL
FT.DICTADD
FT.DICTADD d
FT.DICTADD d foo bar Foo foo
FT.DICTADD d baz
FT.DICTDUMP d
FT.DICTDUMP
FT.DICTDUMP d x
FT.DICTDUMP nosuch
FT.DICTDEL d
FT.DICTDEL d nosuch
FT.DICTDEL nosuch x
FT.DICTDEL d foo Foo foo
FT.DICTDUMP d
FT.DICTDEL d bar baz
FT.DICTDUMP d
FT.DICTADD d é Éa a b ab A "" "a b" ~
FT.DICTDUMP d
FT.DICTADD e ""
FT.DICTDUMP e
FT.DICTDUMP E
FT.DICTADD e2 x
SELECT 1
FLUSHDB
SELECT 0
FT.DICTDUMP d
FT.DICTDUMP e2
FT.DICTADD e3 x y
`)
	resp3(p)
	p.Run(`
FT.DICTADD e3 z
FT.DICTDUMP e3
FT.DICTDUMP nosuch
FT.DICTDEL e3 x y z
FT.DICTDUMP e3
FLUSHALL
FT.DICTDUMP e3
`)
}

// TestFTConfigLikeRediSearch: FT.CONFIG GET and HELP of every option (in
// RediSearch's order, with its defaults), SET of the options HotKV
// honours — which change queries as they change RediSearch's — and the
// errors, RESP2 and RESP3.
func TestFTConfigLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	t.Cleanup(func() {
		for _, c := range []*difftest.Conn{p.Redis, p.HotKV} {
			for _, kv := range [][2]string{{"MINPREFIX", "2"}, {"MAXEXPANSIONS", "200"}, {"DEFAULT_DIALECT", "1"}, {"MAXSEARCHRESULTS", "1000000"}} {
				c.Do("FT.CONFIG", "SET", kv[0], kv[1])
			}
		}
	})
	// Left out: DEFAULT_DIALECT 0, -1 or not a number, whose error
	// RediSearch picks from an uninitialized variable.
	p.Run(`
FT.CONFIG GET *
FT.CONFIG HELP *
FT.CONFIG GET timeout
FT.CONFIG GET TIMEOUT extra
FT.CONFIG GET nosuch
FT.CONFIG GET MAX*
FT.CONFIG HELP timeout
FT.CONFIG HELP extload
FT.CONFIG HELP nosuch
FT.CONFIG get minprefix
FT.CONFIG
FT.CONFIG GET
FT.CONFIG HELP
FT.CONFIG bogus x
FT.CONFIG SET nosuch 1
FT.CONFIG SET nosuch
FT.CONFIG SET * 1
FT.CONFIG SET gc_policy legacy
FT.CONFIG SET extload x
FT.CONFIG SET minprefix
FT.CONFIG SET minprefix abc
FT.CONFIG SET minprefix 2.5
FT.CONFIG SET minprefix 0
FT.CONFIG SET minprefix -1
FT.CONFIG SET maxexpansions 0
FT.CONFIG SET default_dialect 5
FT.CONFIG SET maxsearchresults abc
FT.CREATE idx PREFIX 1 doc: SCHEMA t TEXT g TAG
HSET doc:1 t "hello happy" g "ab,ac"
HSET doc:2 t "hat hello" g "ad"
HSET doc:3 t "world" g "ae"
FT.SEARCH idx h* NOCONTENT
FT.SEARCH idx "@g:{a*}" NOCONTENT
FT.CONFIG SET MINPREFIX 1
FT.SEARCH idx h* NOCONTENT
FT.SEARCH idx "@g:{a*}" NOCONTENT
FT.CONFIG SET minprefix 3 extra
FT.CONFIG GET minprefix
FT.SEARCH idx ha* NOCONTENT
FT.SEARCH idx hap* NOCONTENT
FT.CONFIG SET minprefix 2
FT.CONFIG SET maxprefixexpansions 1
FT.CONFIG GET maxexpansions
FT.SEARCH idx ha* NOCONTENT
FT.SEARCH idx "@g:{a*}" NOCONTENT
FT.CONFIG SET maxexpansions 200
FT.SEARCH idx "hello -world | happy" NOCONTENT
FT.CONFIG SET default_dialect 2
FT.CONFIG GET default_dialect
FT.SEARCH idx "hello -world | happy" NOCONTENT
FT.SEARCH idx "hello -world | happy" NOCONTENT DIALECT 1
FT.CONFIG SET default_dialect 1
FT.CONFIG SET maxsearchresults 1
FT.SEARCH idx hello NOCONTENT
FT.SEARCH idx hello NOCONTENT LIMIT 0 2
FT.SEARCH idx hello NOCONTENT LIMIT 1 1
FT.SEARCH idx hello NOCONTENT LIMIT 0 1
FT.CONFIG SET maxsearchresults -1
FT.CONFIG GET maxsearchresults
FT.SEARCH idx hello NOCONTENT LIMIT 0 2000000
FT.CONFIG SET maxsearchresults 1000000
FT.SEARCH idx hello NOCONTENT LIMIT 0 1000001
`)
	resp3(p)
	p.Run(`
FT.CONFIG GET *
FT.CONFIG HELP *
FT.CONFIG GET timeout
FT.CONFIG GET nosuch
FT.CONFIG HELP nosuch
FT.CONFIG HELP frisoini
FT.CONFIG SET minprefix 2
FT.CONFIG SET minprefix 2 x
FT.CONFIG bogus x
`)
}

// TestFTExplainLikeRediSearch: FT.EXPLAIN and FT.EXPLAINCLI print the
// query tree as RediSearch does — terms with their stem expansions,
// phrases, unions, intersections, negations, prefixes, numeric ranges,
// tag sets, field modifiers — at both dialects, and their errors.
func TestFTExplainLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	p.Run(`FT.CREATE idx PREFIX 1 doc: SCHEMA title TEXT WEIGHT 2 body TEXT tag TAG n NUMERIC`)
	for _, q := range []string{
		"hello", "hello world", "hello|world", "hello -world", `"hello world"`, "hel*", "h*",
		"@title:hello", "@title|body:(hello world)", "@body|title:hello", "@n:[1 5]", "@n:[(1 +inf]",
		"@n:[-inf (5]", "@n:[1.5 2e3]", "@tag:{a|b}", "@tag:{a}", "@tag:{ab*}", "@tag:{a*}",
		"@tag:{hello world}", "@tag:{a} @tag:{b}", "running", "*", "the", "-hello", "(hello|fox) brown",
		"hello nosuchfield", "@nosuch:hello", "@nosuch:{a}", "@nosuch:[1 2]", "@title:{a}", "@title:hel*",
		"-(hello world)", "hello|world fox", `@title:"hello world"`, "@title:hello @body:fox", "fo",
		"hello world|fox -brown", "(a b) c", "a (b c)", "a b* c*", "@tag:{a} hello", "hello @n:[1 2] -@tag:{x}",
		"@title:(hello|world) -fox", "runs ran running", "hello -(world|fox)", "Hello WORLD",
		"@tag:{a}|@tag:{b}", "@tag:{a} | hello",
	} {
		for _, d := range []string{"1", "2"} {
			p.DoArgs("FT.EXPLAIN", "idx", q, "DIALECT", d)
		}
		p.DoArgs("FT.EXPLAINCLI", "idx", q)
	}
	// Tag sets of words with spaces among other operands: DIALECT 2 (a
	// known difference at DIALECT 1: RediSearch refuses some).
	for _, q := range []string{"@tag:{a b} hello", "hello @tag:{a b} fox", "@tag:{a b|c}"} {
		p.DoArgs("FT.EXPLAIN", "idx", q, "DIALECT", "2")
	}
	p.Run(`
FT.EXPLAIN idx hello VERBATIM
FT.EXPLAIN nosuch x
FT.EXPLAIN idx
FT.EXPLAIN
FT.EXPLAINCLI idx
FT.EXPLAIN idx (hello
FT.EXPLAIN idx hello DIALECT 5
FT.EXPLAIN idx hello DIALECT
FT.EXPLAIN idx hello bogus
FT.ALIASADD ex idx
FT.EXPLAIN ex hello
`)
	resp3(p)
	p.Run(`
FT.EXPLAIN idx "hello -world"
FT.EXPLAINCLI idx "hello -world"
`)
}
