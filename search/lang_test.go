package search

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// readStems returns testdata/stems.txt's rows: language, word, the stem
// RediSearch 2.10.5 gives it (taken from its FT.EXPLAIN expansions).
func readStems(tb testing.TB) [][3]string {
	f, err := os.Open("testdata/stems.txt")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var rows [][3]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		p := strings.Split(line, "\t")
		if len(p) != 3 {
			tb.Fatalf("bad line %q", line)
		}
		rows = append(rows, [3]string{p[0], p[1], p[2]})
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return rows
}

// TestStemsLikeRediSearch: the stems of every language but chinese are
// RediSearch 2.10.5's, on words of each language (testdata/stems.txt).
func TestStemsLikeRediSearch(t *testing.T) {
	rows := readStems(t)
	seen := map[string]bool{}
	for _, r := range rows {
		l := findLanguage(r[0])
		if l == nil || l.stem == nil {
			t.Fatalf("%s: no stemmer", r[0])
		}
		if got := stem(l, r[1]); got != r[2] {
			t.Errorf("%s %q: got %q, want %q", r[0], r[1], got, r[2])
		}
		seen[l.name] = true
	}
	if len(rows) < 800 || len(seen) != len(languages)-1 {
		t.Fatalf("read %d stems of %d languages", len(rows), len(seen))
	}
}

// BenchmarkStem stems testdata/stems.txt's English words.
func BenchmarkStem(b *testing.B) {
	var words []string
	for _, r := range readStems(b) {
		if r[0] == "english" {
			words = append(words, r[1])
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		stem(englishLanguage, words[i%len(words)])
	}
}
