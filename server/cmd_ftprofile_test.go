package server

import "testing"

// TestFTSearchExplainScoreLikeRediSearch: EXPLAINSCORE's explanation trees
// (terms, stems, phrases, unions, intersections, negations, tags, numeric
// ranges, the wildcard) under each scorer, byte for byte with RediSearch's.
func TestFTSearchExplainScoreLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	loadSearchCorpus(p)
	queries := []string{"alpha", "running", "house", "alpha beta", "alpha|beta", "alpha -beta",
		`"alpha beta"`, "@b:alpha", "@a:run*", "alpha @t:{x}", "@t:{x|z} beta", "@n:[10 20]",
		"(alpha|delta) (beta|gamma)", "-alpha -beta", "*", "running -house quick",
		"(running house)|(quick -alpha)", "nosuchword"}
	for _, q := range queries {
		for _, s := range []string{"TFIDF", "TFIDF.DOCNORM", "BM25", "DISMAX", "DOCSCORE", "HAMMING"} {
			p.DoArgs("FT.SEARCH", "gen", q, "WITHSCORES", "EXPLAINSCORE", "NOCONTENT", "LIMIT", "0", "200", "SCORER", s)
		}
		p.DoArgs("FT.SEARCH", "gen", q, "WITHSCORES", "EXPLAINSCORE", "NOCONTENT", "LIMIT", "0", "200", "DIALECT", "2")
	}
	p.Run(`
FT.SEARCH gen alpha EXPLAINSCORE WITHSCORES LIMIT 0 3 RETURN 1 n
FT.SEARCH gen alpha WITHSCORES EXPLAINSCORE SORTBY n LIMIT 0 3
FT.SEARCH gen alpha EXPLAINSCORE
FT.SEARCH gen alpha EXPLAINSCORE NOCONTENT bogus
FT.SEARCH gen alpha bogus EXPLAINSCORE
FT.SEARCH gen alpha EXPLAINSCORE SCORER nosuch
FT.SEARCH gen alpha SCORER nosuch LIMIT 0 -1
FT.SEARCH gen alpha SCORER nosuch bogus
FT.SEARCH gen alpha EXPLAINSCORE LIMIT 0 -1
FT.SEARCH gen alpha EXPLAINSCORE DIALECT 9
`)
	resp3(p)
	p.Run(`
FT.SEARCH gen "alpha beta" WITHSCORES EXPLAINSCORE LIMIT 0 3 RETURN 1 n
FT.SEARCH gen alpha|house WITHSCORES EXPLAINSCORE NOCONTENT LIMIT 0 5 SCORER BM25
FT.SEARCH gen alpha WITHSCORES EXPLAINSCORE NOCONTENT LIMIT 0 2 SCORER DOCSCORE
`)
}

// TestFTSearchExplainScoreFieldLikeRediSearch: documents whose SCORE_FIELD
// is 0 or negative (RediSearch's "Document score is 0" and its minimum
// score lines).
func TestFTSearchExplainScoreFieldLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	p.Run(`
FT.CREATE sf PREFIX 1 s: SCORE_FIELD sc SCHEMA t TEXT
HSET s:1 t "zero one" sc 0
HSET s:2 t "zero two" sc -1
HSET s:3 t "zero zero three" sc 0.5
HSET s:4 t "zero four"
`)
	waitIndexed(t, p.Redis, "sf")
	for _, s := range []string{"TFIDF", "TFIDF.DOCNORM", "BM25", "DISMAX", "DOCSCORE"} {
		p.DoArgs("FT.SEARCH", "sf", "zero", "WITHSCORES", "EXPLAINSCORE", "NOCONTENT", "SCORER", s)
		p.DoArgs("FT.SEARCH", "sf", "zero|one", "WITHSCORES", "EXPLAINSCORE", "NOCONTENT", "SCORER", s)
	}
}
