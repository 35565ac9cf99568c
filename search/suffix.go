package search

import (
	"strings"

	"github.com/tidwall/btree"
)

// suffixTrie is RediSearch's suffix trie (WITHSUFFIXTRIE): every suffix
// of the terms (or tag values) added, each with the terms that end with
// it in the order they were first added. As RediSearch's, it forgets
// nothing until the index is cleared (its garbage collector prunes it);
// a term without documents expands to no reader.
type suffixTrie struct {
	seen  map[string]bool
	terms map[string][]string // suffix -> terms
	set   *btree.BTreeG[string]
}

func newSuffixTrie() *suffixTrie {
	return &suffixTrie{seen: map[string]bool{}, terms: map[string][]string{}, set: newStringSet()}
}

func (t *suffixTrie) add(term string) {
	if term == "" || t.seen[term] {
		return
	}
	t.seen[term] = true
	for j := 0; j < len(term); j++ {
		s := term[j:]
		if _, ok := t.terms[s]; !ok {
			t.set.Set(s)
		}
		t.terms[s] = append(t.terms[s], term)
	}
}

// match returns, at most max, the terms that end with w (contains false)
// or contain it, in the trie's order.
func (t *suffixTrie) match(w string, contains bool, max int64) []string {
	if !contains {
		out := t.terms[w]
		if int64(len(out)) > max {
			out = out[:max]
		}
		return out
	}
	var out []string
	dup := map[string]bool{}
	t.set.Ascend(w, func(s string) bool {
		if !strings.HasPrefix(s, w) {
			return false
		}
		for _, term := range t.terms[s] {
			if int64(len(out)) == max {
				return false
			}
			if !dup[term] {
				dup[term] = true
				out = append(out, term)
			}
		}
		return true
	})
	return out
}

// scanMatch returns, at most max, the members of set (in order) that end
// with w or contain it: RediSearch's walk of its term or tag trie where no
// suffix trie is kept.
func scanMatch(set *btree.BTreeG[string], w string, contains bool, max int64) []string {
	var out []string
	set.Scan(func(s string) bool {
		if int64(len(out)) == max {
			return false
		}
		if contains && strings.Contains(s, w) || !contains && strings.HasSuffix(s, w) {
			out = append(out, s)
		}
		return true
	})
	return out
}

// suffixTerms returns the terms a TEXT suffix or contains query expands
// to: from the index's suffix trie when a TEXT field has WITHSUFFIXTRIE
// (only those fields' terms), else from all the terms.
func (e *evaluator) suffixTerms(w string, contains bool) []string {
	max := e.ix.Config.MaxExpansions()
	if e.ix.suffix != nil {
		return e.ix.suffix.match(w, contains, max)
	}
	// The walk of the term trie meets the stems ("+run" ends with
	// "un") too.
	return scanMatch(e.ix.termSet, w, contains, max)
}

// tagSuffixValues is suffixTerms for the values of the TAG field f.
func (e *evaluator) tagSuffixValues(f *Field, w string, contains bool) []string {
	max := e.ix.Config.MaxExpansions()
	if t := e.ix.tagSuffix[f.slot]; t != nil {
		return t.match(w, contains, max)
	}
	return scanMatch(e.ix.tagSets[f.slot], w, contains, max)
}

// hasTextSuffixTrie reports whether a TEXT field has WITHSUFFIXTRIE.
func (s *Schema) hasTextSuffixTrie() bool {
	for _, f := range s.Fields {
		if f.Type == Text && f.WithSuffixTrie && !f.NoIndex {
			return true
		}
	}
	return false
}
