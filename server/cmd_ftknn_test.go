package server

import (
	"fmt"
	"testing"
)

// TestFTVectorScoresLikeRediSearch: WITHSCORES of KNN, hybrid KNN and
// vector range queries, with FILTER and INKEYS, over documents with and
// without TEXT fields and with several VECTOR fields (each counts in
// TFIDF's norm, where it is in the schema), against RediSearch.
func TestFTVectorScoresLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	p.Run(`
FT.CREATE a ON HASH PREFIX 1 a: SCHEMA v VECTOR FLAT 6 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2 t TEXT w VECTOR HNSW 6 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2 n NUMERIC
FT.CREATE b ON HASH PREFIX 1 a: SCHEMA n NUMERIC v VECTOR FLAT 6 TYPE FLOAT32 DIM 2 DISTANCE_METRIC IP
`)
	waitIndexed(t, p.Redis, "a")
	waitIndexed(t, p.Redis, "b")
	docs := []struct {
		t    string
		v, w []float64
		n    string
	}{
		{"red", []float64{1, 1}, []float64{1, 1}, "1"}, {"red red blue", []float64{2, 1}, nil, "2"},
		{"", []float64{0, 3}, []float64{2, 2}, "3"}, {"", []float64{4, 4}, nil, ""},
		{"", nil, nil, "5"}, {"blue", []float64{-1, 2}, []float64{0, 0}, "6"}, {"", []float64{3, 0}, nil, "7"},
	}
	for i, d := range docs {
		args := []string{"HSET", fmt.Sprintf("a:%d", i+1)}
		if d.t != "" {
			args = append(args, "t", d.t)
		}
		if d.v != nil {
			args = append(args, "v", f32s(d.v...))
		}
		if d.w != nil {
			args = append(args, "w", f32s(d.w...))
		}
		if d.n != "" {
			args = append(args, "n", d.n)
		}
		p.DoArgs(args...)
	}
	blob := f32s(1, 1)
	for _, ix := range []string{"a", "b"} {
		for _, q := range []string{"*=>[KNN 4 @v $b]", "*=>[KNN 10 @v $b]", "red=>[KNN 4 @v $b]", "(red|blue)=>[KNN 4 @v $b]",
			"@n:[1 6]=>[KNN 3 @v $b]", "@v:[VECTOR_RANGE 10 $b]", "@v:[VECTOR_RANGE 10 $b] red", "@v:[VECTOR_RANGE 10 $b] | blue",
			"*", "@n:[1 7]", "*=>[KNN 3 @w $b]", "@w:[VECTOR_RANGE 5 $b]"} {
			for _, extra := range [][]string{nil, {"INKEYS", "3", "a:3", "a:4", "a:6"}, {"FILTER", "n", "2", "7"},
				{"FILTER", "n", "2", "7", "INKEYS", "3", "a:1", "a:3", "a:7"}, {"FILTER", "n", "1", "6", "FILTER", "n", "3", "9"}} {
				args := append([]string{"FT.SEARCH", ix, q, "PARAMS", "2", "b", blob, "WITHSCORES", "NOCONTENT", "DIALECT", "2"}, extra...)
				p.DoArgs(args...)
			}
		}
		for _, s := range []string{"TFIDF.DOCNORM", "BM25", "DISMAX", "DOCSCORE"} {
			p.DoArgs("FT.SEARCH", ix, "*=>[KNN 4 @v $b]", "PARAMS", "2", "b", blob, "WITHSCORES", "NOCONTENT", "DIALECT", "2", "SCORER", s, "FILTER", "n", "1", "7")
			p.DoArgs("FT.SEARCH", ix, "red=>[KNN 4 @v $b]", "PARAMS", "2", "b", blob, "WITHSCORES", "NOCONTENT", "DIALECT", "2", "SCORER", s)
		}
	}
}
