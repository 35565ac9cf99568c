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
		"zeta eta alpha", "houses quick", "jump* alpha"}
	opts := [][]string{{"SLOP", "0"}, {"SLOP", "1"}, {"SLOP", "2"}, {"SLOP", "4"}, {"INORDER"},
		{"SLOP", "0", "INORDER"}, {"SLOP", "1", "INORDER"}, {"SLOP", "3", "INORDER"}, {"SLOP", "-1"}, {"SLOP", "-1", "INORDER"}}
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
