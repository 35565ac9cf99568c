package server

import (
	"testing"
)

// TestFTSearchOptionsLikeRediSearch: FT.SEARCH's SCORER (each scorer's
// scores over the generated corpus and a weighted index), WITHSORTKEYS,
// WITHPAYLOADS, PAYLOAD, EXPANDER, TIMEOUT, LANGUAGE, NOSTOPWORDS,
// WITHCOUNT and their errors, against RediSearch, RESP2 and RESP3.
func TestFTSearchOptionsLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	loadSearchCorpus(p)
	queries := []string{"alpha", "running", "alpha beta", "alpha|beta", "alpha -beta", "quick running house",
		`"alpha beta"`, "@b:alpha", "jump*", "alpha @t:{x}", "@n:[10 20] alpha", "(alpha|delta) (beta|gamma)",
		"*", "-alpha", "@n:[10 30]", "zeta|eta|apples"}
	for _, scorer := range []string{"TFIDF", "TFIDF.DOCNORM", "BM25", "DISMAX", "DOCSCORE", "HAMMING"} {
		for _, q := range queries {
			p.DoArgs("FT.SEARCH", "gen", q, "SCORER", scorer, "WITHSCORES", "NOCONTENT", "LIMIT", "0", "200")
		}
	}
	// A weighted TEXT field, a document score and stop words.
	// RediSearch scans the keyspace after FT.CREATE, indexing again (with
	// new ids) the keys it meets: wait for it before writing.
	p.Run(`FT.CREATE w ON HASH PREFIX 1 w: SCORE 0.5 SCHEMA title TEXT WEIGHT 3 body TEXT n NUMERIC SORTABLE s TEXT SORTABLE`)
	waitIndexed(t, p.Redis, "w")
	p.Run(`
HSET w:1 title "hello world" body "the quick brown fox jumps" n 3 s "Beta"
HSET w:2 title "hello hello" body "lazy dog and the fox" n 1.5 s "alpha"
HSET w:3 title "world of foxes" body "hello there, hello again" n 0.1 s "Gamma"
HSET w:4 body "a fox is a fox" n 7
HSET w:5 title "nothing to see"
`)
	for _, scorer := range []string{"TFIDF", "TFIDF.DOCNORM", "BM25", "DISMAX", "DOCSCORE", "HAMMING"} {
		for _, q := range []string{"hello", "fox", "hello fox", "hello|fox", "-hello", "*", "@n:[1 5]", "fox @n:[0 5]"} {
			p.DoArgs("FT.SEARCH", "w", q, "SCORER", scorer, "WITHSCORES", "NOCONTENT")
		}
	}
	p.Run(`
FT.SEARCH w hello SCORER BM25 WITHSCORES PAYLOAD abc
FT.SEARCH w hello SCORER HAMMING WITHSCORES PAYLOAD abc
FT.SEARCH w hello SCORER bm25
FT.SEARCH w hello SCORER NOPE
FT.SEARCH w hello SCORER
FT.SEARCH w hello WITHSORTKEYS
FT.SEARCH w * WITHSORTKEYS SORTBY n NOCONTENT
FT.SEARCH w * WITHSORTKEYS SORTBY n DESC WITHSCORES
FT.SEARCH w * WITHSORTKEYS SORTBY s NOCONTENT
FT.SEARCH w * WITHSORTKEYS SORTBY body NOCONTENT
FT.SEARCH w * WITHSORTKEYS SORTBY title RETURN 1 n
FT.SEARCH w hello WITHPAYLOADS
FT.SEARCH w hello WITHPAYLOADS WITHSORTKEYS WITHSCORES SORTBY n
FT.SEARCH w hello WITHPAYLOADS WITHSORTKEYS NOCONTENT
FT.SEARCH w hello PAYLOAD
FT.SEARCH w hello EXPANDER DefaultExpander WITHSCORES
FT.SEARCH w hello EXPANDER nope WITHSCORES NOCONTENT
FT.SEARCH w hello EXPANDER
FT.SEARCH w hello TIMEOUT 100 NOCONTENT
FT.SEARCH w hello TIMEOUT 0 NOCONTENT
FT.SEARCH w hello TIMEOUT -1
FT.SEARCH w hello TIMEOUT abc
FT.SEARCH w hello TIMEOUT
FT.SEARCH w hello LANGUAGE english WITHSCORES NOCONTENT
FT.SEARCH w hello LANGUAGE English NOCONTENT
FT.SEARCH w hello LANGUAGE nope
FT.SEARCH w hello LANGUAGE
FT.SEARCH w hello WITHCOUNT WITHSCORES NOCONTENT
FT.SEARCH w "the fox" WITHSCORES NOCONTENT
FT.SEARCH w "the fox" NOSTOPWORDS WITHSCORES NOCONTENT
FT.SEARCH w "the" NOSTOPWORDS NOCONTENT
FT.SEARCH w "fox|the" NOSTOPWORDS WITHSCORES NOCONTENT
FT.SEARCH w "fox -the" NOSTOPWORDS WITHSCORES NOCONTENT
FT.SEARCH w "a fox" NOSTOPWORDS WITHSCORES NOCONTENT DIALECT 2
`)
	resp3(p)
	p.Run(`
FT.SEARCH w hello WITHPAYLOADS WITHSORTKEYS WITHSCORES SORTBY n
FT.SEARCH w hello WITHPAYLOADS WITHSORTKEYS NOCONTENT
FT.SEARCH w * WITHSORTKEYS SORTBY s RETURN 1 s
FT.SEARCH w hello SCORER BM25 WITHSCORES NOCONTENT
FT.SEARCH w hello SCORER DISMAX WITHSCORES
FT.SEARCH w hello SCORER NOPE
`)
}
