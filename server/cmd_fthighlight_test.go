package server

import (
	"testing"
)

// TestFTSearchSlopInorderLikeRediSearch: FT.SEARCH's SLOP and INORDER
// (which documents match, and their scores) over the generated corpus,
// whose texts repeat words, at both dialects, and their errors, against
// RediSearch.
func TestFTSearchSlopInorderLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	loadSearchCorpus(p)
	queries := []string{"alpha beta", "beta alpha", "alpha beta gamma", "running house", "run house",
		"alpha alpha", "alpha (beta|gamma)", "(alpha|delta) (beta|gamma)", "quick apple*", "@a:alpha @b:beta",
		"alpha @b:beta", "alpha -beta gamma", `"alpha beta"`, `"alpha beta" gamma`, `"alpha alpha"`, `"beta alpha beta"`, "alpha @t:{x}",
		"zeta eta alpha", "houses quick", "jump* alpha", "alpha @t:{x|y} beta", "beta beta alpha"}
	opts := [][]string{{"SLOP", "0"}, {"SLOP", "1"}, {"SLOP", "2"}, {"SLOP", "4"}, {"INORDER"},
		{"SLOP", "0", "INORDER"}, {"SLOP", "1", "INORDER"}, {"SLOP", "3", "INORDER"}, {"SLOP", "-1"}, {"SLOP", "-1", "INORDER"},
		{"SLOP", "-2"}, {"SLOP", "-2", "INORDER"}}
	for _, d := range []string{"1", "2"} {
		for _, q := range queries {
			for _, o := range opts {
				args := append([]string{"FT.SEARCH", "gen", q, "WITHSCORES", "NOCONTENT", "LIMIT", "0", "200", "DIALECT", d}, o...)
				p.DoArgs(args...)
			}
		}
	}
	for _, o := range opts {
		for _, f := range [][]string{{"INKEYS", "3", "g:1", "g:5", "g:9"}, {"INKEYS", "4", "g:1", "g:7", "g:12", "g:34"}} {
			args := append([]string{"FT.SEARCH", "gen", "alpha beta", "WITHSCORES", "NOCONTENT", "LIMIT", "0", "200"}, o...)
			p.DoArgs(append(args, f...)...)
			args[2] = "alpha"
			p.DoArgs(append(args, f...)...)
		}
	}
	for _, s := range []string{"", "x", "1.5", "-2", "2.9", "99999999999", "1e3", "-1e20", "inf", "-inf", "nan", "+3"} {
		args := []string{"FT.SEARCH", "gen", "alpha beta", "WITHSCORES", "NOCONTENT", "SLOP"}
		if s != "" {
			args = append(args, s)
		}
		p.DoArgs(args...)
	}
	for _, s := range []string{"-2", "1.5"} {
		p.DoArgs("FT.SEARCH", "gen", "alpha beta", "WITHSCORES", "NOCONTENT", "INORDER", "SLOP", s)
	}
	p.DoArgs("FT.SEARCH", "gen", "alpha", "SLOP", "x", "INORDER")
}

// TestFTSearchSummarizeHighlightLikeRediSearch: SUMMARIZE and HIGHLIGHT
// (fragments, context, separators, tags, stems, several fields, fields
// without matches, non-TEXT fields) and their errors, against
// RediSearch, RESP2 and RESP3. A hash with several fields keeps its
// values short here: a longer one makes Redis's hash a table, whose
// field order RediSearch replies and HotKV does not.
func TestFTSearchSummarizeHighlightLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	p.Run(`FT.CREATE h ON HASH PREFIX 1 h: SCHEMA title TEXT body TEXT n NUMERIC tg TAG`)
	waitIndexed(t, p.Redis, "h")
	p.Run(`
HSET h:1 title "hello big world" body "world hello" n 5 tg x
HSET h:2 title "world says hello to the world" n 3
HSET h:3 title "The quick brown fox, jumping over the lazy dogs. Running and runs: hello!!  Hello   world... again hello world here"
HSET h:7 title "hello there, runner" body "xx  yy" n 12345 tg "abc def" extra "some extra stuff here"
HSET h:4 body "In the beginning the world was without form, and void; and darkness was upon the face of the deep. And the Spirit of God moved upon the face of the waters. And God said, Let there be light: and there was light. And God saw the light, that it was good: and God divided the light from the darkness. And God called the light Day, and the darkness he called Night. And the evening and the morning were the first day. Hello world, says the runner who runs and ran."
HSET h:5 title "Jumped! jumping; JUMPS (jump) - hello-world, hello_world" body "tab\there\nnewline  and   spaces world"
HSET h:6 title "nothing matches here at all, really nothing" body "lorem ipsum dolor sit amet consectetur adipiscing elit sed"
`)
	queries := []string{"hello", "world", "hello world", "light god", "darkness|face", "run*", "running", "jump",
		`"hello world"`, "@title:hello", "@body:world", "hello -nothing", "nothing", "*", "god light darkness day night",
		"hello|hell*", "(hello world)|hello", "world world", "the|and|light"}
	opts := [][]string{{"HIGHLIGHT"}, {"SUMMARIZE"}, {"HIGHLIGHT", "SUMMARIZE"}, {"SUMMARIZE", "FRAGS", "1", "LEN", "3"},
		{"SUMMARIZE", "FRAGS", "2", "LEN", "5", "SEPARATOR", " | "}, {"SUMMARIZE", "LEN", "0"}, {"SUMMARIZE", "FRAGS", "0"},
		{"HIGHLIGHT", "TAGS", "[", "]"}, {"HIGHLIGHT", "FIELDS", "1", "title"}, {"SUMMARIZE", "FIELDS", "1", "body", "LEN", "8"},
		{"HIGHLIGHT", "FIELDS", "1", "body", "SUMMARIZE", "FIELDS", "1", "title"},
		{"HIGHLIGHT", "FIELDS", "1", "title", "SUMMARIZE"}, {"SUMMARIZE", "FIELDS", "1", "title", "HIGHLIGHT"},
		{"SUMMARIZE", "FIELDS", "1", "n"}, {"HIGHLIGHT", "RETURN", "2", "title", "body"},
		{"SUMMARIZE", "FIELDS", "1", "body", "RETURN", "2", "title", "body"}, {"RETURN", "1", "body", "SUMMARIZE", "LEN", "4"},
		{"HIGHLIGHT", "SORTBY", "n"}, {"SUMMARIZE", "FRAGS", "5", "LEN", "2", "WITHSCORES", "LIMIT", "0", "3"},
		{"SUMMARIZE", "LEN", "1"}, {"SUMMARIZE", "FRAGS", "1", "LEN", "30"}, {"SUMMARIZE", "FRAGS", "4", "LEN", "7", "HIGHLIGHT", "TAGS", "", ""}}
	for _, q := range queries {
		for _, o := range opts {
			p.DoArgs(append([]string{"FT.SEARCH", "h", q}, o...)...)
		}
	}
	p.Run(`
FT.SEARCH h hello SUMMARIZE FRAGS
FT.SEARCH h hello SUMMARIZE FRAGS -1
FT.SEARCH h hello SUMMARIZE LEN x
FT.SEARCH h hello SUMMARIZE SEPARATOR
FT.SEARCH h hello HIGHLIGHT TAGS a
FT.SEARCH h hello SUMMARIZE FIELDS
FT.SEARCH h hello SUMMARIZE FIELDS x
FT.SEARCH h hello SUMMARIZE FIELDS 3 title
FT.SEARCH h hello HIGHLIGHT FIELDS 1 nope
FT.SEARCH h hello RETURN 1 nope HIGHLIGHT
FT.SEARCH h hello HIGHLIGHT FIELDS 1 tg
FT.SEARCH h hello summarize fields 1 title frags 1 len 2 separator ;
FT.SEARCH h hello HIGHLIGHT TAGS <i> </i> TAGS <u> </u>
`)
	p.Run(`FT.CREATE noff ON HASH PREFIX 1 no: NOOFFSETS SCHEMA title TEXT`)
	p.Run(`FT.SEARCH noff hello HIGHLIGHT`)
	resp3(p)
	p.Run(`
FT.SEARCH h "hello world" HIGHLIGHT
FT.SEARCH h "light god" SUMMARIZE FRAGS 2 LEN 6 WITHSCORES
FT.SEARCH h hello HIGHLIGHT FIELDS 1 nope
`)
}
