// Package suggest holds the auto-complete dictionaries of FT.SUGADD,
// FT.SUGGET, FT.SUGDEL and FT.SUGLEN: strings with float32 scores and
// optional payloads, searched by prefix, exactly or within one edit.
//
// Contracts (RediSearch's replies, observed):
//
//   - Text is a sequence of 16-bit units. Bytes decode leniently (see
//     units): a malformed sequence still yields units, a code point keeps
//     its low 16 bits, and decoding stops at a NUL. A reply shows a string
//     as UTF-8 up to its first 0 unit.
//   - Strings are stored as given and compared unit for unit (FT.SUGDEL,
//     replacement): "Hello" and "hello" are two entries. A search folds its
//     prefix and the strings' units (Unicode full case folding, first code
//     point) and returns the strings that start with the prefix, or with
//     FUZZY those with a prefix at Levenshtein distance 1 or less from it.
//   - Insert refuses an empty string, one over 512 bytes or of 256 units or
//     more, and a score that is 0 as a float32 (which changes nothing).
//   - A result's score is its own, or 2147483648 when it has as many units
//     as the prefix and the first bytes of their units (little-endian, as
//     many bytes as there are units; the prefix folded) are equal; times
//     exp(-2·distance) for FUZZY; divided by sqrt(1 + |units of the
//     string − bytes of the prefix|); each step computed in float64 and
//     rounded to a float32. An empty prefix with FUZZY counts every
//     string at distance 1. Strings scored -Inf are never returned.
//   - Results are the best Max by score, highest first; equal scores are
//     ordered by the string's bytes (RediSearch orders them by its trie's
//     internals, which this package does not reproduce). TRIM then drops
//     the results scored below a tenth of the first.
//
// Design: entries are held in a map by their units and in a B-tree ordered
// by their folded units, so that a prefix search walks one range of the
// tree; a FUZZY search walks only the ranges within one edit of the
// prefix, found by seeks (a Levenshtein automaton of distance 1 run over
// the sorted keys: see walker). A bounded heap keeps the best results.
//
// A Trie is not safe for concurrent use; the caller serialises access (the
// server's key locks). It knows nothing of keys or connections.
package suggest

import (
	"math"
	"slices"
	"strings"

	"github.com/tidwall/btree"
)

const (
	// maxStringBytes and maxStringUnits bound an entry: longer strings
	// are not added.
	maxStringBytes = 512
	maxStringUnits = 256
	// maxPrefixUnits: a search refuses a prefix of this many units.
	maxPrefixUnits = 100

	// MaxPrefixBytes is the longest prefix, in bytes, FT.SUGGET accepts.
	MaxPrefixBytes = 199

	// entryOverhead is MemSize's estimate of an entry's fixed cost (map
	// slot, tree slot, struct, string headers).
	entryOverhead = 120
)

// entry is a string of the dictionary.
type entry struct {
	raw     string // units, big-endian pairs: identity
	folded  string // folded units, big-endian pairs: order of the tree
	score   float32
	payload []byte // nil: none
}

// n is the string's length in units.
func (e *entry) n() int { return len(e.raw) / 2 }

func (e *entry) cost() int64 { return entryOverhead + int64(2*len(e.raw)+len(e.payload)) }

func entryLess(a, b *entry) bool {
	if c := strings.Compare(a.folded, b.folded); c != 0 { // one comparison, not two
		return c < 0
	}
	return a.raw < b.raw
}

// Trie is a suggestion dictionary.
type Trie struct {
	byRaw map[string]*entry
	tree  *btree.BTreeG[*entry]
	bytes int64 // MemSize's sum over entries
}

func newTree() *btree.BTreeG[*entry] {
	return btree.NewBTreeGOptions(entryLess, btree.Options{NoLocks: true})
}

// New returns an empty dictionary.
func New() *Trie { return &Trie{byRaw: map[string]*entry{}, tree: newTree()} }

// Len is the number of strings held (FT.SUGLEN).
func (t *Trie) Len() int { return len(t.byRaw) }

// Insert adds s with score (as a float32), or, when s is there, replaces
// its score (adds to it with incr); a non-empty payload replaces s's
// payload. It reports whether s is new. Nothing changes for a score that
// is 0 as a float32, an empty string, a string over 512 bytes or of 256
// units or more.
func (t *Trie) Insert(s []byte, score float64, incr bool, payload []byte) bool {
	f := float32(score)
	if f == 0 || len(s) > maxStringBytes {
		return false
	}
	us := units(nil, s)
	if len(us) == 0 || len(us) >= maxStringUnits {
		return false
	}
	raw := keyOf(us)
	if e := t.byRaw[raw]; e != nil {
		if incr {
			e.score = float32(float64(e.score) + score) // added as doubles
		} else {
			e.score = f
		}
		if len(payload) > 0 {
			t.bytes += int64(len(payload) - len(e.payload))
			e.payload = slices.Clone(payload)
		}
		return false
	}
	e := &entry{raw: raw, folded: keyOf(foldUnits(us)), score: f}
	if len(payload) > 0 {
		e.payload = slices.Clone(payload)
	}
	t.byRaw[raw] = e
	t.tree.Set(e)
	t.bytes += e.cost()
	return true
}

// Delete removes s (compared unit for unit, without folding) and reports
// whether it was there.
func (t *Trie) Delete(s []byte) bool {
	e := t.byRaw[keyOf(units(nil, s))]
	if e == nil {
		return false
	}
	delete(t.byRaw, e.raw)
	t.tree.Delete(e)
	t.bytes -= e.cost()
	return true
}

// Entry is a string of the dictionary with its score and payload.
type Entry struct {
	Str     []byte
	Score   float32
	Payload []byte // nil: none
}

// Entries returns every string, as a reply shows it, highest score first
// (equal scores by their bytes): inserting them again in this order
// rebuilds a dictionary that answers every search the same (but for
// strings whose score is 0, which Insert refuses, and strings holding a 0
// unit, which are cut there).
func (t *Trie) Entries() []Entry {
	out := make([]Entry, 0, len(t.byRaw))
	for _, e := range t.byRaw {
		out = append(out, Entry{Str: text(rawUnits(e.raw)), Score: e.score, Payload: e.payload})
	}
	slices.SortFunc(out, func(a, b Entry) int {
		if c := compareScores(a.Score, b.Score); c != 0 {
			return c
		}
		return strings.Compare(string(a.Str), string(b.Str))
	})
	return out
}

// compareScores orders scores highest first, NaN before any number.
func compareScores(a, b float32) int {
	an, bn := a != a, b != b
	switch {
	case an && bn:
		return 0
	case an:
		return -1
	case bn:
		return 1
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// rawUnits decodes big-endian pairs.
func rawUnits(raw string) []uint16 {
	us := make([]uint16, len(raw)/2)
	for i := range us {
		us[i] = uint16(raw[2*i])<<8 | uint16(raw[2*i+1])
	}
	return us
}

// Clone returns a deep copy.
func (t *Trie) Clone() *Trie {
	c := &Trie{byRaw: make(map[string]*entry, len(t.byRaw)), tree: newTree(), bytes: t.bytes}
	t.tree.Scan(func(e *entry) bool {
		d := *e
		c.byRaw[d.raw] = &d
		c.tree.Load(&d) // in order
		return true
	})
	return c
}

// Encoding is OBJECT ENCODING's answer for a module value: raw.
func (t *Trie) Encoding() string { return "raw" }

// MemSize estimates the memory the dictionary holds (the keyspace's
// accounting, used_memory): per string, its units, folded units, payload
// and a fixed overhead.
func (t *Trie) MemSize() int64 { return 64 + t.bytes }

// ModuleMemUsage is the dictionary's size as RediSearch's MEMORY USAGE
// reports it: 35 bytes a string.
func (t *Trie) ModuleMemUsage() int64 { return int64(len(t.byRaw)) * 35 }

var negInf = float32(math.Inf(-1))
