// Package suggest is RediSearch's auto-complete dictionary (FT.SUGADD,
// FT.SUGGET, FT.SUGDEL, FT.SUGLEN): a trie of strings with float scores and
// optional payloads, ported from RediSearch 2.10's src/trie (trie.c,
// trie_type.c, levenshtein.c) so that its answers, their order among equal
// scores and their printed scores are RediSearch's.
//
// What the port keeps, because replies depend on it:
//
//   - Strings are stored as given, as 16-bit runes (runes.go); only a
//     search's prefix is case-folded, and the trie's runes are folded as
//     the search walks them: "Hello" and "hello" are two entries, and both
//     complete "HEL".
//   - Scores are float32. A node's maxChildScore only grows as strings are
//     added (an INCR raises it by the increment, a replacement by the new
//     score), and is recomputed along a deletion's path; children are kept
//     sorted by it, and a search skips children whose maxChildScore and
//     score are below the worst score it has kept so far.
//   - A search keeps the best results in RediSearch's binary heap, whose
//     handling of equal scores decides their order.
//   - A deleted string's node is marked and pruned along the deletion's
//     path, with RediSearch's merges of single children.
//
// A Trie is not safe for concurrent use; the caller serialises access (the
// server's key locks). It knows nothing of keys or connections.
package suggest

import (
	"slices"
	"sort"
)

const (
	// maxStringRunes bounds the strings a Trie holds: RediSearch's
	// TRIE_INITIAL_STRING_LEN; a string of as many runes or more is not
	// added.
	maxStringRunes = 256
	// maxPrefixRunes bounds a search's prefix (TRIE_MAX_PREFIX).
	maxPrefixRunes = 100
	// MaxPrefixBytes is the longest prefix, in bytes, a search accepts:
	// FT.SUGGET refuses longer ones (TRIE_MAX_PREFIX runes of 2 bytes).
	MaxPrefixBytes = maxPrefixRunes*2 - 1
)

// Node flags.
const (
	flagTerminal = 1
	flagDeleted  = 2
)

// node is a TrieNode: a run of runes, the children that continue it (each
// starting with a different rune), and, when it ends a string, that
// string's score and payload.
type node struct {
	str           []rune16
	children      []*node
	flags         uint8
	score         float32
	maxChildScore float32
	payload       []byte // nil: none
}

func (n *node) terminal() bool { return n.flags&flagTerminal != 0 }
func (n *node) deleted() bool  { return n.flags&flagDeleted != 0 }

// max32 is C's MAX(a, b).
func max32(a, b float32) float32 {
	if a > b {
		return a
	}
	return b
}

func (n *node) updateScore(v float32) { n.maxChildScore = max32(n.maxChildScore, v) }

// newNode is a terminal node holding str (copied).
func newNode(str []rune16, payload []byte, score float32) *node {
	n := &node{str: slices.Clone(str), score: score, maxChildScore: score, flags: flagTerminal}
	if len(payload) > 0 {
		n.payload = slices.Clone(payload)
	}
	return n
}

// addChild inserts a new terminal child holding str at index idx.
func (n *node) addChild(str []rune16, payload []byte, score float32, idx int) {
	n.children = slices.Insert(n.children, idx, newNode(str, payload, score))
}

// split cuts n after offset runes: n keeps the first part, without score,
// and one child holds the rest with n's score, payload and children.
func (n *node) split(offset int) {
	child := &node{
		str:           slices.Clone(n.str[offset:]),
		children:      n.children,
		flags:         n.flags,
		score:         n.score,
		maxChildScore: n.maxChildScore,
		payload:       n.payload,
	}
	n.str = slices.Clone(n.str[:offset])
	n.children = []*node{child}
	n.payload = nil
	n.score = 0
	n.flags &^= flagTerminal | flagDeleted
	n.updateScore(child.score)
}

// add is TrieNode_Add: it adds str under n (whose runes it starts with)
// and reports whether str is new (1) or was there (0). A score of 0 adds
// nothing.
func add(n *node, str []rune16, payload []byte, score float32, incr bool) int {
	if score == 0 || len(str) == 0 {
		return 0
	}
	offset := 0
	for offset < len(str) && offset < len(n.str) && str[offset] == n.str[offset] {
		offset++
	}
	if offset < len(n.str) {
		// str leaves n's runes: n splits where it does.
		n.split(offset)
		if offset == len(str) {
			n.score = score
			n.flags |= flagTerminal
			n.payload = nil
			if len(payload) > 0 {
				n.payload = slices.Clone(payload)
			}
		} else {
			idx := 0
			if str[offset] > n.children[0].str[0] {
				idx = 1
			}
			n.addChild(str[offset:], payload, score, idx)
			n.updateScore(score)
		}
		return 1
	}
	n.updateScore(score)
	if offset == len(str) {
		was := n.terminal() && !n.deleted()
		if incr {
			n.score += score
		} else {
			n.score = score
		}
		if len(payload) > 0 {
			n.payload = slices.Clone(payload)
		}
		n.flags |= flagTerminal
		n.flags &^= flagDeleted
		if was {
			return 0
		}
		return 1
	}
	scoreIdx := -1
	for idx, child := range n.children {
		if str[offset] == child.str[0] {
			rc := add(child, str[offset:], payload, score, incr)
			if len(n.children) > 1 {
				// RediSearch compares with the next child only up to the
				// one before last.
				if idx > 0 && child.maxChildScore > n.children[idx-1].maxChildScore ||
					idx < len(n.children)-2 && child.maxChildScore < n.children[idx+1].maxChildScore {
					n.sortChildren()
				}
			}
			return rc
		}
		if child.maxChildScore < score && scoreIdx == -1 {
			scoreIdx = idx
		}
	}
	idx := len(n.children)
	if scoreIdx != -1 {
		idx = scoreIdx
	}
	n.addChild(str[offset:], payload, score, idx)
	return 1
}

// runecmp compares rune strings as RediSearch's runecmp does.
func runecmp(a, b []rune16) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if d := int(a[i]) - int(b[i]); d != 0 {
			return d
		}
	}
	return len(a) - len(b)
}

// sortChildren orders n's children by maxChildScore, highest first, then
// by their runes.
func (n *node) sortChildren() {
	if len(n.children) < 2 {
		return
	}
	sort.Slice(n.children, func(i, j int) bool {
		a, b := n.children[i], n.children[j]
		if a.maxChildScore != b.maxChildScore {
			return a.maxChildScore > b.maxChildScore
		}
		return runecmp(a.str, b.str) < 0
	})
}

// mergeWithSingleChild returns n joined with its only child when n ends
// no string, else n.
func (n *node) mergeWithSingleChild() *node {
	if n.terminal() || len(n.children) != 1 {
		return n
	}
	ch := n.children[0]
	str := make([]rune16, 0, len(n.str)+len(ch.str))
	return &node{
		str:           append(append(str, n.str...), ch.str...),
		children:      ch.children,
		flags:         ch.flags,
		score:         ch.score,
		maxChildScore: ch.maxChildScore,
		payload:       ch.payload,
	}
}

// optimizeChildren is __trieNode_optimizeChildren: it removes the first
// deleted child that has no children (merging the single-child children
// before it), recomputes n's maxChildScore and sorts the children again.
func (n *node) optimizeChildren() {
	n.maxChildScore = n.score
	for i := 0; i < len(n.children); i++ {
		if c := n.children[i]; len(c.children) == 0 && c.deleted() {
			n.children = slices.Delete(n.children, i, i+1)
			for _, r := range n.children[i:] {
				n.updateScore(r.maxChildScore)
			}
			break
		}
		if len(n.children[i].children) == 1 {
			n.children[i] = n.children[i].mergeWithSingleChild()
		}
		n.updateScore(n.children[i].maxChildScore)
	}
	n.sortChildren()
}

// Trie is a suggestion dictionary: RediSearch's Trie sorted by score.
type Trie struct {
	root *node
	size int
	// bytes estimates the memory of the strings held (MemSize).
	bytes int64
}

// stringOverhead is what a string costs beyond its runes and payload: its
// node (struct, slice headers) and its parent's pointer, roughly.
const stringOverhead = 96

// find returns the node that ends rs when rs is a string of the
// dictionary, else nil.
func (t *Trie) find(rs []rune16) *node {
	n, offset := t.root, 0
	for n != nil {
		if len(rs)-offset < len(n.str) || runecmp(rs[offset:offset+len(n.str)], n.str) != 0 {
			return nil
		}
		offset += len(n.str)
		if offset == len(rs) {
			if n.terminal() && !n.deleted() {
				return n
			}
			return nil
		}
		var next *node
		for _, c := range n.children {
			if c.str[0] == rs[offset] {
				next = c
				break
			}
		}
		n = next
	}
	return nil
}

// cost is the memory estimate of the string rs, when held.
func (t *Trie) cost(rs []rune16) int64 {
	if n := t.find(rs); n != nil {
		return stringOverhead + int64(2*len(rs)+len(n.payload))
	}
	return 0
}

// New returns an empty dictionary.
func New() *Trie { return &Trie{root: &node{}} }

// Len is the number of strings held (FT.SUGLEN).
func (t *Trie) Len() int { return t.size }

// Insert adds s with score (as a float32), or, when s is there, replaces
// its score (adds to it with incr); a non-empty payload replaces s's
// payload. It reports whether s is new. As RediSearch: nothing is added for
// a score that is 0 as a float32, an empty string, a string over 512 bytes
// or of 256 runes or more.
func (t *Trie) Insert(s []byte, score float64, incr bool, payload []byte) bool {
	if len(s) > maxStringRunes*2 {
		return false
	}
	rs := toRunes(s)
	if len(rs) == 0 || len(rs) >= maxStringRunes {
		return false
	}
	before := t.cost(rs)
	rc := add(t.root, rs, payload, float32(score), incr)
	t.size += rc
	t.bytes += t.cost(rs) - before
	return rc == 1
}

// Delete removes s (compared rune for rune, without folding) and reports
// whether it was there.
func (t *Trie) Delete(s []byte) bool {
	rs := toRunes(s)
	if len(rs) > maxStringRunes {
		return false
	}
	t.bytes -= t.cost(rs) // 0 when rs is not held
	n, offset, rc := t.root, 0, 0
	var stack []*node
	for n != nil && offset < len(rs) {
		stack = append(stack, n)
		local := 0
		for offset < len(rs) && local < len(n.str) && rs[offset] == n.str[local] {
			offset++
			local++
		}
		if offset == len(rs) {
			if local == len(n.str) && !n.deleted() && n.terminal() {
				n.flags |= flagDeleted
				n.flags &^= flagTerminal
				n.score = 0
				rc = 1
			}
			break
		}
		if local != len(n.str) {
			break
		}
		var next *node
		for _, c := range n.children {
			if c.str[0] == rs[offset] {
				next = c
				break
			}
		}
		n = next
	}
	for i := len(stack) - 1; i >= 0; i-- {
		stack[i].optimizeChildren()
	}
	t.size -= rc
	return rc == 1
}

// Entry is a string of the dictionary with its score and payload.
type Entry struct {
	Str     []byte
	Score   float32
	Payload []byte // nil: none
}

// Entries returns every string in the order RediSearch saves them (its
// trie walk: children by maxChildScore), which is the order that rebuilds
// the same trie when they are inserted again, as RediSearch's load does.
func (t *Trie) Entries() []Entry {
	var out []Entry
	it := newIterator(t.root, nil)
	for {
		rs, n, ok := it.next(nil)
		if !ok {
			return out
		}
		out = append(out, Entry{Str: runesToString(rs), Score: n.score, Payload: slices.Clone(n.payload)})
	}
}

// Clone returns a deep copy.
func (t *Trie) Clone() *Trie { return &Trie{root: t.root.clone(), size: t.size, bytes: t.bytes} }

func (n *node) clone() *node {
	d := *n
	d.str = slices.Clone(n.str)
	d.payload = slices.Clone(n.payload)
	d.children = make([]*node, len(n.children))
	for i, c := range n.children {
		d.children[i] = c.clone()
	}
	return &d
}

// Encoding is OBJECT ENCODING's answer for a module value: raw.
func (t *Trie) Encoding() string { return "raw" }

// MemSize estimates the memory the dictionary holds (the keyspace's
// accounting, used_memory): per string, its runes, payload and node.
func (t *Trie) MemSize() int64 { return 64 + t.bytes }

// ModuleMemUsage is the dictionary's size as RediSearch's
// TrieType_MemUsage reports it (MEMORY USAGE): per string, a node (21
// bytes packed), a child pointer, a child key and two runes.
func (t *Trie) ModuleMemUsage() int64 { return int64(t.size) * (21 + 8 + 2 + 4) }
