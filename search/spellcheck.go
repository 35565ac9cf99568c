package search

import (
	"cmp"
	"slices"
	"strings"
)

// Suggestion is a word FT.SPELLCHECK offers for a misspelled term, and
// its score: the share of the index's documents that hold it (0 for a
// word from an INCLUDE dictionary).
type Suggestion struct {
	Word  string
	Score float64
}

// Misspelled is a term of a query that is not in the index, with the
// suggestions for it.
type Misspelled struct {
	Term        string
	Suggestions []Suggestion
}

// SpellCheck returns, for each term of query (DIALECT dialect) that is
// not a word of the index nor in an exclude dictionary, the words at
// most distance edits away (Levenshtein) from the index's terms (its
// stems, "+stem", among them) and from the include dictionaries, as RediSearch's
// FT.SPELLCHECK: by score, highest first (ties: bytewise; RediSearch's
// order of ties follows its term trie's).
func (ix *Index) SpellCheck(query string, dialect, distance int, include, exclude []map[string]struct{}) ([]Misspelled, error) {
	root, err := parseQuery(ix.Schema, ix.stop, query, dialect, ix.Config)
	if err != nil {
		return nil, err
	}
	var out []Misspelled
	in := func(dicts []map[string]struct{}, w string) bool {
		for _, d := range dicts {
			if _, ok := d[w]; ok {
				return true
			}
		}
		return false
	}
	for _, t := range queryTerms(root, nil) {
		if _, ok := ix.terms[t]; ok || in(exclude, t) {
			continue
		}
		m := Misspelled{Term: t}
		ix.termSet.Scan(func(w string) bool {
			if withinEdits(t, w, distance, false) { // stems too ("+peac"), as RediSearch's trie walk finds them
				m.Suggestions = append(m.Suggestions, Suggestion{w, float64(ix.terms[w].n) / float64(len(ix.docs))})
			}
			return true
		})
		for _, d := range include {
			for w := range d {
				if withinEdits(t, w, distance, false) && !slices.ContainsFunc(m.Suggestions, func(s Suggestion) bool { return s.Word == w }) {
					m.Suggestions = append(m.Suggestions, Suggestion{w, 0})
				}
			}
		}
		slices.SortFunc(m.Suggestions, func(a, b Suggestion) int {
			if c := cmp.Compare(b.Score, a.Score); c != 0 {
				return c
			}
			return strings.Compare(a.Word, b.Word)
		})
		out = append(out, m)
	}
	return out, nil
}

// queryTerms appends the words of n's terms and phrases (negated ones
// too; not prefixes, tags or ranges) to out, each once, in query order.
func queryTerms(n *node, out []string) []string {
	if n == nil {
		return out
	}
	if n.op == opTerm {
		if !slices.Contains(out, n.word) {
			out = append(out, n.word)
		}
		return out
	}
	if n.op == opPrefix || n.op == opTag || n.op == opTagPrefix {
		return out
	}
	for _, k := range n.kids {
		out = queryTerms(k, out)
	}
	return out
}

// withinEdits reports whether a and b (bytes) are at most d edits
// apart, an edit being an insertion, a deletion, a substitution or, with
// transpose, the transposition of two adjacent bytes (the optimal string
// alignment distance: RediSearch's fuzzy terms count transpositions, its
// FT.SPELLCHECK does not).
func withinEdits(a, b string, d int, transpose bool) bool {
	if len(a)-len(b) > d || len(b)-len(a) > d {
		return false
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if transpose && i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			best = min(best, cur[j])
		}
		if best > d {
			return false
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)] <= d
}
