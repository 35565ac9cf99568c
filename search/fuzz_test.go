package search

import (
	"testing"
)

// FuzzQuery: any query text, at either dialect, parses to a query or an
// error, and a query runs to the end over a small index, without
// panicking.
func FuzzQuery(f *testing.F) {
	for _, q := range []string{"hello", "hello world", "a|b c", "-a -b", "@t:(a b)", "@t:a|b c", `"a b" c`,
		"ap* ho*", "@n:[1 (5]", "@g:{x|y} z", "(a (b | -c)) | d", "@t|u:x", "*", "@g:{x} | y", `a\ b`, "@n:[-inf +inf]",
		"%hallo%", "%%wrld%% ~apple", "~(a|b) c", "hello=>{$weight: 2; $slop: 1}", "(a b)=>{$inorder: true}",
		"*=>[KNN 2 @v $b]", "@t:{x}=>[KNN 3 @v $b AS d]=>{$yield_distance_as: e}", "@v:[VECTOR_RANGE 1 $b]=>{$YIELD_DISTANCE_AS: d}",
		"@n:[$lo 5]", "@g:{$tag}", "ismissing(@t)", "*pple", "*ppl*", "@loc:[1 2 30 km]", `@t:""`} {
		f.Add(q, uint8(1))
		f.Add(q, uint8(2))
	}
	s, err := ParseCreate(splitArgs("SCHEMA t TEXT INDEXEMPTY INDEXMISSING u TEXT WEIGHT 2 g TAG n NUMERIC loc GEO v VECTOR HNSW 6 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2"))
	if err != nil {
		f.Fatal(err)
	}
	ix := NewIndex("f", s)
	docs := []map[string]string{
		{"t": "hello world apple", "g": "x", "n": "3", "loc": "1,2", "v": "\x00\x00\x80?\x00\x00\x00@"},
		{"t": "a b c", "u": "hello houses", "g": "x,y", "n": "5"},
		{"u": "world running runs", "n": "1"},
		{"t": "ap apple home house"},
	}
	for i, d := range docs {
		ix.Put(string(rune('a'+i)), func(f string) ([]byte, bool) { v, ok := d[f]; return []byte(v), ok })
	}
	f.Fuzz(func(t *testing.T, q string, dialect uint8) {
		r := &Request{Query: q, Num: 10, Dialect: 1 + int(dialect%2), Slop: -1,
			Params: map[string]string{"b": "\x00\x00\x80?\x00\x00\x00@", "lo": "1", "tag": "x"}}
		ix.Search(r, func(string, string) ([]byte, bool) { return nil, false })
	})
}
