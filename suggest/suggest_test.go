package suggest

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// render writes results as FT.SUGGET WITHSCORES WITHPAYLOADS lists them.
func render(res []Result) string {
	var b strings.Builder
	for _, r := range res {
		fmt.Fprintf(&b, "%s %s %q;", r.Str, strconv.FormatFloat(float64(r.Score), 'g', 17, 64), r.Payload)
	}
	return b.String()
}

func TestSearchScores(t *testing.T) {
	tr := New()
	tr.Insert([]byte("hello"), 1, false, nil)
	tr.Insert([]byte("help"), 2, false, nil)
	res, ok := tr.Search([]byte("hel"), SearchOptions{Max: 5})
	if !ok {
		t.Fatal("search refused")
	}
	if got, want := render(res), `help 1.4142135381698608 "";hello 0.57735025882720947 "";`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}
