package search

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// TestStemsLikeRediSearch: the stems of the languages generated into
// third_party/snowball are RediSearch 2.10.5's, on words of each language
// (testdata/stems.txt, taken from its FT.EXPLAIN expansions).
func TestStemsLikeRediSearch(t *testing.T) {
	f, err := os.Open("testdata/stems.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		p := strings.Split(line, "\t")
		if len(p) != 3 {
			t.Fatalf("bad line %q", line)
		}
		l := findLanguage(p[0])
		if l == nil || l.stem == nil {
			t.Fatalf("%s: no stemmer", p[0])
		}
		if got := stem(l, p[1]); got != p[2] {
			t.Errorf("%s %q: got %q, want %q", p[0], p[1], got, p[2])
		}
		n++
	}
	if err := sc.Err(); err != nil || n < 300 {
		t.Fatalf("read %d stems: %v", n, err)
	}
}
