package server

import (
	"fmt"
	"strconv"
	"testing"
)

// TestFTDialect3LikeRediSearch: DIALECT 3 over HASH documents, given to
// FT.SEARCH, FT.AGGREGATE, FT.EXPLAIN, FT.PROFILE and FT.SPELLCHECK and
// set as FT.CONFIG's DEFAULT_DIALECT, replies as RediSearch's.
func TestFTDialect3LikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	t.Cleanup(func() { p.Do("FT.CONFIG SET DEFAULT_DIALECT 1") })
	p.Run(`FT.CREATE d ON HASH PREFIX 1 d: SCHEMA t TEXT SORTABLE n NUMERIC SORTABLE g TAG v VECTOR FLAT 6 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2`)
	waitIndexed(t, p.Redis, "d")
	for i, doc := range []struct {
		t, g string
		v    [2]float64
	}{{"hello world", "a", [2]float64{1, 1}}, {"hello there world", "b", [2]float64{2, 2}},
		{"goodbye moon", "a,b", [2]float64{0, 1}}, {"the hello", "c", [2]float64{5, 5}}} {
		p.DoArgs("HSET", fmt.Sprintf("d:%d", i+1), "t", doc.t, "n", strconv.Itoa(i+1), "g", doc.g, "v", f32s(doc.v[0], doc.v[1]))
	}
	blob := f32s(1, 1)
	for _, q := range []string{"hello", "hello world", "hello -world | moon", `"hello world"`, "@t:hello @n:[1 3]",
		"@g:{a}", "hel*", "%helo%", "the hello", "*", "-hello", "@n:[$lo 3]", "@g:{$w}", "(hello", "@nosuch:x"} {
		for _, d := range []string{"2", "3"} {
			p.DoArgs("FT.SEARCH", "d", q, "DIALECT", d, "WITHSCORES", "PARAMS", "4", "lo", "2", "w", "hello")
			p.DoArgs("FT.AGGREGATE", "d", q, "DIALECT", d, "LOAD", "2", "@t", "@n", "PARAMS", "4", "lo", "2", "w", "hello")
			p.DoArgs("FT.EXPLAIN", "d", q, "DIALECT", d, "PARAMS", "4", "lo", "2", "w", "hello")
		}
	}
	for _, d := range []string{"3", "5", "0", "x", "2.5", "-3"} {
		p.DoArgs("FT.SEARCH", "d", "*=>[KNN 2 @v $b]", "PARAMS", "2", "b", blob, "DIALECT", d, "RETURN", "1", "__v_score")
	}
	p.Run(`
FT.SEARCH d * DIALECT 3 SORTBY n DESC LIMIT 0 2
FT.SEARCH d * DIALECT 3 LIMIT 0 0
FT.SEARCH d hello DIALECT 3 RETURN 2 t n SUMMARIZE
FT.AGGREGATE d * DIALECT 3 GROUPBY 1 @g REDUCE COUNT 0 AS c SORTBY 2 @g ASC
FT.EXPLAINCLI d "hello|world -x" DIALECT 3
FT.SPELLCHECK d helo DIALECT 3
FT.SPELLCHECK d helo DIALECT 4
FT.CONFIG SET DEFAULT_DIALECT 3
FT.CONFIG GET DEFAULT_DIALECT
FT.SEARCH d "hello -world | moon" WITHSCORES NOCONTENT
FT.EXPLAIN d "hello -world | moon"
FT.SEARCH d "hello -world | moon" NOCONTENT DIALECT 1
FT.CONFIG SET DEFAULT_DIALECT 1
`)
	ftProfileLike(t, p, `
FT.PROFILE d SEARCH QUERY "hello world" DIALECT 3
FT.PROFILE d SEARCH QUERY "hello -world | moon" DIALECT 3 NOCONTENT
FT.PROFILE d AGGREGATE QUERY "hello" DIALECT 3 LOAD 1 @t
`)
	resp3(p)
	p.Run(`
FT.SEARCH d "hello world" DIALECT 3 WITHSCORES
FT.AGGREGATE d hello DIALECT 3 LOAD 1 @n
`)
}
