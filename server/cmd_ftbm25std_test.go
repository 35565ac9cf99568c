package server

import "testing"

// TestFTSearchBM25STDLikeRediSearch: SCORER BM25STD (Okapi BM25 over the
// document's length, its IDF over the number of documents) and its
// EXPLAINSCORE lines over the generated corpus and a small index with a
// document score, weights, optional operands, negation and the wildcard,
// against RediSearch 2.10.5, which has no other BM25STD variant.
func TestFTSearchBM25STDLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	loadSearchCorpus(p)
	for _, q := range []string{"alpha", "running", "house", "alpha beta", "alpha|beta", "alpha -beta",
		`"alpha beta"`, "@b:alpha", "@a:run*", "jump*", "alpha @t:{x}", "@t:{x|z} beta", "@n:[10 20]",
		"@n:[10 20] alpha", "(alpha|delta) (beta|gamma)", "-alpha -beta", "*", "running -house quick",
		"quick running house", "(running house)|(quick -alpha)", "zeta|eta|apples", "nosuchword"} {
		p.DoArgs("FT.SEARCH", "gen", q, "SCORER", "BM25STD", "WITHSCORES", "NOCONTENT", "LIMIT", "0", "200")
		if q != "@n:[10 20] alpha" { // a numeric filter's place among its intersection's children differs
			p.DoArgs("FT.SEARCH", "gen", q, "SCORER", "BM25STD", "WITHSCORES", "EXPLAINSCORE", "NOCONTENT", "LIMIT", "0", "200")
		}
	}
	p.Run(`FT.CREATE w ON HASH PREFIX 1 w: SCORE 0.5 SCHEMA title TEXT WEIGHT 3 body TEXT n NUMERIC SORTABLE t TAG`)
	waitIndexed(t, p.Redis, "w")
	p.Run(`
HSET w:1 title "hello world" body "the quick brown fox jumps" n 3 t a
HSET w:2 title "hello hello" body "lazy dog and the fox" n 1.5 t b
HSET w:3 title "world of foxes" body "hello there, hello again" n 0.1 t a
HSET w:4 body "a fox is a fox" n 7 t c
HSET w:5 title "nothing to see"
HSET w:6 title "hello" __score 0.25
`)
	for _, q := range []string{"hello", "fox", "foxes", "hello fox", "hello|fox", "-hello", "*", "@n:[1 5]",
		"hello @n:[1 5]", "hello ~fox", "hello ~nothing", "hello -world", "@t:{a} hello", "@t:{a|c}",
		"(hello fox)=>{$weight: 2.5}", "hello=>{$weight: 3}|fox", "@title:hello"} {
		for _, dialect := range []string{"1", "2"} {
			p.DoArgs("FT.SEARCH", "w", q, "SCORER", "BM25STD", "WITHSCORES", "NOCONTENT", "DIALECT", dialect)
		}
		if q != "hello @n:[1 5]" {
			p.DoArgs("FT.SEARCH", "w", q, "SCORER", "BM25STD", "WITHSCORES", "EXPLAINSCORE", "RETURN", "1", "n", "DIALECT", "2")
		}
	}
	p.Run(`
FT.SEARCH w hello SCORER BM25STD.TANH
FT.SEARCH w hello SCORER BM25STD.NORM
FT.SEARCH w hello SCORER bm25std
`)
	resp3(p)
	p.DoArgs("FT.SEARCH", "w", "hello|fox", "SCORER", "BM25STD", "WITHSCORES", "EXPLAINSCORE")
}
