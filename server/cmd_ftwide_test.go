package server

import (
	"fmt"
	"strings"
	"testing"
)

// TestFTWideSchemaLikeRediSearch: indexes of more than 64 TEXT fields
// (RediSearch's 128-bit field masks): @field restrictions, INFIELDS,
// RETURN, HIGHLIGHT and SUMMARIZE, FT.EXPLAIN and FT.ALTER on fields past
// the 64th, against RediSearch.
func TestFTWideSchemaLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	schema := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, " f%d TEXT", i)
		}
		return b.String()
	}
	// A document indexed before the schema grows past 64 fields.
	p.Run(`HSET w:0 f1 "hello world" f70 "hello there"`)
	p.Do("FT.CREATE w PREFIX 1 w: MAXTEXTFIELDS SCHEMA" + schema(60) + " n NUMERIC")
	p.Do("FT.CREATE v PREFIX 1 w: SCHEMA" + schema(128))
	p.Do("FT.CREATE x PREFIX 1 w: MAXTEXTFIELDS SCHEMA" + schema(101) + " g TAG" + strings.ReplaceAll(schema(128)[len(schema(101)):], " f", " z"))
	waitIndexed(t, p.Redis, "w")
	waitIndexed(t, p.Redis, "v")
	waitIndexed(t, p.Redis, "x")
	p.Run(`
HSET w:1 f1 "hello world" f59 "quick fox" n 1
FT.ALTER w SCHEMA ADD f60 TEXT f61 TEXT f62 TEXT f63 TEXT f64 TEXT f65 TEXT g TAG f66 TEXT f67 TEXT f68 TEXT f69 TEXT f70 TEXT f71 TEXT
FT.ALTER w SCHEMA ADD f99 TEXT f100 TEXT f127 TEXT
HSET w:2 f64 "hello fox" f65 "world" f127 "quick brown fox" n 2
HSET w:3 f0 "fox" f63 "hello" f64 "quick" f100 "hello hello world" g a
HSET w:4 f70 "hello world fox" f71 "world hello" f99 "brown"
HSET w:5 f1 "fox" f66 "fox" f127 "hello"
`)
	waitIndexed(t, p.Redis, "w")
	// RediSearch scores 0 and renumbers the documents of an index that
	// FT.ALTER took past 64 TEXT fields: w's results are compared as
	// sets.
	for _, q := range []string{"hello", "@f64:hello", "@f70:hello", "@f127:fox", "@f0|f64:fox", "@f1:hello @f70:world",
		"@f100:hello -@f64:quick", "@f65|f99:(world|brown)"} {
		p.DoUnordered(fmt.Sprintf("FT.SEARCH w %q NOCONTENT", q))
	}
	for _, ix := range []string{"v", "x"} {
		for _, q := range []string{"hello", "@f64:hello", "@f70:hello", "@f127:fox", "@f0|f64:fox", "@f63|f64|f127:(quick fox)",
			"@f1:hello @f70:world", "@f100:hello -@f64:quick", "@f65|f99:(world|brown)", `@f70:"hello world"`, "@f71:hel*",
			"@f64:%helo%", "@f127:(-fox)", "@f200:hello", "fox -@f66:fox"} {
			for _, d := range []string{"1", "2"} {
				p.DoArgs("FT.SEARCH", ix, q, "WITHSCORES", "NOCONTENT", "DIALECT", d)
				p.DoArgs("FT.EXPLAIN", ix, q, "DIALECT", d)
			}
		}
		p.DoArgs("FT.SEARCH", ix, "hello", "INFIELDS", "2", "f70", "f100", "WITHSCORES", "NOCONTENT")
		p.DoArgs("FT.SEARCH", ix, "fox", "INFIELDS", "3", "f0", "f64", "f127", "RETURN", "3", "f0", "f64", "f127")
		p.DoArgs("FT.SEARCH", ix, "hello", "HIGHLIGHT", "FIELDS", "2", "f70", "f100", "RETURN", "3", "f70", "f100", "f1")
		p.DoArgs("FT.SEARCH", ix, "hello|fox", "SUMMARIZE", "FIELDS", "1", "f127", "LEN", "2", "RETURN", "2", "f127", "f64")
		p.DoArgs("FT.AGGREGATE", ix, "@f127:fox|@f70:hello", "LOAD", "2", "@f70", "@f127")
		compareFTInfo(t, p, ix)
	}
}
