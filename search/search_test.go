package search

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// newTestIndex builds an index from an FT.CREATE argument line and
// documents given as "key f1 v1 f2 v2 ..." lines (values without spaces
// use '_' for a space).
func newTestIndex(t *testing.T, create string, docs ...string) *Index {
	t.Helper()
	s, err := ParseCreate(splitArgs(create))
	if err != nil {
		t.Fatal(err)
	}
	ix := NewIndex("idx", s)
	for _, d := range docs {
		f := strings.Fields(d)
		m := map[string]string{}
		for i := 1; i+1 < len(f); i += 2 {
			m[f[i]] = strings.ReplaceAll(f[i+1], "_", " ")
		}
		ix.Put(f[0], func(name string) ([]byte, bool) { v, ok := m[name]; return []byte(v), ok })
	}
	return ix
}

func splitArgs(s string) [][]byte {
	var out [][]byte
	for _, f := range strings.Fields(s) {
		out = append(out, []byte(f))
	}
	return out
}

// search runs a query with WITHSCORES and returns "key score ..." .
func search(t *testing.T, ix *Index, args ...string) string {
	t.Helper()
	var a [][]byte
	for _, s := range args {
		a = append(a, []byte(s))
	}
	r, err := ix.ParseSearch(a)
	if err != nil {
		return "ERR " + err.Error()
	}
	total, hits, err := ix.Search(r, func(key, field string) ([]byte, bool) { return nil, false })
	if err != nil {
		return "ERR " + err.Error()
	}
	out := fmt.Sprint(total)
	for _, h := range hits {
		out += " " + h.Key + " " + FormatScore(h.Score)
	}
	return out
}

// The expected replies are RediSearch 2.10.5's (redis-stack 7.4.1), run by
// hand on the same documents.
func TestScoresLikeRediSearch(t *testing.T) {
	ix := newTestIndex(t, "PREFIX 1 doc: SCHEMA title TEXT WEIGHT 2 body TEXT tag TAG SORTABLE n NUMERIC SORTABLE",
		"doc:1 title hello_world body the_quick_brown_fox_jumps_over_lazy_dogs_running tag a,b n 5",
		"doc:2 title hello body hello_hello_running_runs tag B n 10",
		"doc:3 title other body worlds_apart n 1.5")
	for _, c := range []struct{ q, want string }{
		{"hello", "2 doc:1 1 doc:2 1"},
		{"run*", "2 doc:1 0.5 doc:2 0.25"},
		{"world", "2 doc:1 2 doc:3 1"},
		{`"hello world"`, "1 doc:1 3"},
		{"@n:[(1.5 +inf]", "2 doc:1 0.5 doc:2 0.25"},
		{"@tag:{b}", "2 doc:1 0.5 doc:2 0.25"},
	} {
		if got := search(t, ix, c.q, "WITHSCORES"); got != c.want {
			t.Errorf("%s: got %q, want %q", c.q, got, c.want)
		}
	}
}

func TestScoresVirtualAndSlop(t *testing.T) {
	ix := newTestIndex(t, "PREFIX 1 d: SCHEMA t TEXT n NUMERIC tg TAG",
		"d:1 n 5 tg x",
		"d:2 t foo_bar n 6",
		"d:3 t foo_baz_bar_foo n 7")
	for _, c := range []struct{ q, want string }{
		{"@n:[1 10]", "3 d:1 inf d:2 1 d:3 0.5"},
		{"foo -baz", "1 d:2 1"},
		{"foo @n:[1 10]", "2 d:2 2 d:3 1.5"},
		{"foo bar", "2 d:2 2 d:3 1.5"},
		{"-baz", "2 d:1 nan d:2 0"},
		{"foo|bar", "2 d:2 2 d:3 1.5"},
		{"@tg:{x}", "1 d:1 inf"},
		{"*", "3 d:1 inf d:2 1 d:3 0.5"},
		{"fo*", "2 d:2 1 d:3 1"},
		{"@n:[(5 (7]", "1 d:2 1"},
	} {
		if got := search(t, ix, c.q, "WITHSCORES"); got != c.want {
			t.Errorf("%s: got %q, want %q", c.q, got, c.want)
		}
	}
	ix.Put("d:4", func(f string) ([]byte, bool) {
		v, ok := map[string]string{"t": "foo", "tg": "x", "n": "1"}[f]
		return []byte(v), ok
	})
	for _, c := range []struct{ q, want string }{
		{"@tg:{x}", "2 d:1 inf d:4 1"},
		{"foo @tg:{x}", "1 d:4 2"},
	} {
		if got := search(t, ix, c.q, "WITHSCORES"); got != c.want {
			t.Errorf("%s: got %q, want %q", c.q, got, c.want)
		}
	}
	if got := search(t, ix, "foo", "LIMIT", "1", "1"); got != "3 d:3 1" {
		t.Errorf("LIMIT: %q", got)
	}
}

func TestTokenize(t *testing.T) {
	var got []string
	var pos uint32
	tokenize("Hello, World! The RUNNING-dogs\\-x foo\\ bar", newStopwords(nil), englishLanguage, false, &pos, func(tk token) {
		got = append(got, fmt.Sprintf("%s/%s/%d", tk.word, tk.stem, tk.pos))
	})
	want := "hello//1 world//2 running/+run/3 dogs-x//4 foo bar//5"
	if strings.Join(got, " ") != want {
		t.Errorf("got %q, want %q", strings.Join(got, " "), want)
	}
	// Greek stems some words to nothing: their stem term is "+"; "πωσ"
	// differs from "πως" (only ASCII letters' case is ignored).
	got, pos = nil, 0
	tokenize("ήσουν άλλο εώς πως", newStopwords(nil), findLanguage("greek"), false, &pos, func(tk token) {
		got = append(got, fmt.Sprintf("%s/%s/%d", tk.word, tk.stem, tk.pos))
	})
	if want := "ήσουν/+/1 άλλο/+αλλ/2 εώς/+/3 πως/+πωσ/4"; strings.Join(got, " ") != want {
		t.Errorf("greek: got %q, want %q", strings.Join(got, " "), want)
	}
}

// TestDeepQueries: nesting past maxDepth is refused, not a stack overflow.
func TestDeepQueries(t *testing.T) {
	ix := newTestIndex(t, "SCHEMA t TEXT", "d:1 t hello")
	for _, q := range []string{strings.Repeat("(", 5000) + "hello" + strings.Repeat(")", 5000),
		strings.Repeat("-", 5000) + "hello", strings.Repeat("@t:", 3000) + "hello"} {
		for _, d := range []string{"1", "2"} {
			got := search(t, ix, q, "DIALECT", d)
			if !strings.HasPrefix(got, "ERR ") {
				t.Errorf("depth %d at DIALECT %s: %q", len(q), d, got[:min(len(got), 40)])
			}
		}
	}
	if got := search(t, ix, strings.Repeat("(", 50)+"hello"+strings.Repeat(")", 50), "DIALECT", "2"); got != "1 d:1 1" {
		t.Errorf("50 groups: %q", got)
	}
}

// TestSearchTimeout: a search that reads past its Timeout returns the
// documents read so far and says so; without one it reads them all.
func TestSearchTimeout(t *testing.T) {
	s, err := ParseCreate(splitArgs("SCHEMA t TEXT"))
	if err != nil {
		t.Fatal(err)
	}
	ix := NewIndex("to", s)
	for i := range 2000 {
		ix.Put(fmt.Sprintf("d:%d", i), func(string) ([]byte, bool) { return []byte("common word"), true })
	}
	r := &Request{Query: "common", Num: 10, Dialect: 2}
	if total, _, _ := ix.Search(r, nil); total != 2000 || r.TimedOut {
		t.Errorf("no timeout: %d documents, timed out %v", total, r.TimedOut)
	}
	r = &Request{Query: "common", Num: 10, Dialect: 2, Timeout: time.Nanosecond}
	if total, hits, _ := ix.Search(r, nil); total >= 2000 || !r.TimedOut || len(hits) != 10 {
		t.Errorf("past the timeout: %d documents, %d hits, timed out %v", total, len(hits), r.TimedOut)
	}
}
