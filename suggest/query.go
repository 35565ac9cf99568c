package suggest

import (
	"math"
	"slices"
	"strings"

	"github.com/tidwall/btree"
)

// Result is a string a search found, with its score for the search.
type Result struct {
	Str     []byte
	Score   float32
	Payload []byte // nil: none
}

// SearchOptions are FT.SUGGET's: the number of results (MAX), the edit
// distance (1 for FUZZY; more counts as 1) and TRIM.
type SearchOptions struct {
	Max     int
	MaxDist int
	Trim    bool
}

// exactScore replaces the score of a string that matches the prefix
// exactly (see the package comment).
const exactScore = 2147483648

// Search returns the strings that prefix (folded) starts, or that start
// within one edit of it with o.MaxDist > 0, best first: at most o.Max of
// them, scored as the package comment says. ok is false for a prefix of
// 100 units or more.
func (t *Trie) Search(prefix []byte, o SearchOptions) (res []Result, ok bool) {
	return t.search(prefix, o, (*Trie).collect)
}

// search is Search with the walk that offers the matching entries to the
// query as a parameter: the tests compare collect with a scan of every
// entry.
func (t *Trie) search(prefix []byte, o SearchOptions, collect func(t *Trie, q *query, fuzzy bool)) (res []Result, ok bool) {
	pu := units(nil, prefix)
	if len(pu) >= maxPrefixUnits {
		return nil, false
	}
	if o.Max <= 0 || len(t.byRaw) == 0 {
		return nil, true
	}
	q := query{fp: foldUnits(pu), nbytes: len(prefix), top: topK{max: o.Max}}
	q.fpKey = keyOf(q.fp)
	collect(t, &q, o.MaxDist > 0)
	best := q.top.sorted()
	if o.Trim && len(best) > 0 {
		floor := float64(best[0].score) / 10
		for i, c := range best {
			if float64(c.score) < floor {
				best = best[:i]
				break
			}
		}
	}
	res = make([]Result, len(best))
	for i, c := range best {
		res[i] = Result{Str: text(rawUnits(c.e.raw)), Score: c.score, Payload: c.e.payload}
	}
	return res, true
}

// collect offers q every entry that matches it (each once), visiting
// little else: a prefix search walks the range of the prefix; a FUZZY one
// with an empty prefix every entry (all at distance 1), and with a
// non-empty prefix the ranges fuzzy finds.
func (t *Trie) collect(q *query, fuzzy bool) {
	switch {
	case !fuzzy:
		// Past its first entries, the range ends at the first entry above
		// the prefix's keys, found by a seek: comparing pointers to it is
		// cheaper than reading every entry's folded units (a cache miss
		// each), and a short range saves the seek.
		const checked = 64
		var stop *entry
		n := 0
		t.tree.Ascend(&entry{folded: q.fpKey}, func(e *entry) bool {
			if n < checked {
				if !strings.HasPrefix(e.folded, q.fpKey) {
					return false
				}
				if n++; n == checked {
					if k, ok := upper(q.fpKey); ok {
						stop = t.first(k)
					}
				}
			} else if e == stop {
				return false
			}
			q.offer(e, 0)
			return true
		})
	case len(q.fp) == 0:
		t.tree.Scan(func(e *entry) bool {
			q.offer(e, 1)
			return true
		})
	default:
		w := walker{q: q, it: t.tree.Iter(), pivot: new(entry)}
		w.fuzzy()
		w.it.Release()
	}
}

// walker finds the entries within one edit of a non-empty prefix with
// seeks in the tree, as a Levenshtein automaton of distance 1 intersected
// with the sorted keys. Let p be the folded prefix and s an entry's folded
// units. editDist decides at the first unit i where s differs from p (or
// ends): with A = p[:i], c = p[i] and R = p[i+1:], s is within one edit
// when s = p... (distance 0), or s = A (when R is empty), or s = A x ...
// with x ≠ c and s starting with A R (c deleted), A x R (c replaced by x)
// or A x c R (x inserted). So for each i, fuzzy enumerates the distinct
// units x that follow A in the tree (a seek past each one) and walks, for
// each x ≠ c, the ranges of those keys; when R is empty, the whole range
// of A but for A c. Ranges whose key has another of them as a prefix are
// walked once, within the other's; ranges of different i or x are
// disjoint, so each entry is offered once.
type walker struct {
	q     *query
	it    btree.IterG[*entry]
	pivot *entry // the key of a seek, reused
	hint  btree.PathHint
}

// seek moves to the first entry whose folded units are key or follow it.
func (w *walker) seek(key string) bool {
	w.pivot.folded = key
	return w.it.SeekHint(w.pivot, &w.hint)
}

// scan offers the entries from the iterator's position on that start with
// key, at distance d.
func (w *walker) scan(key string, d int, ok bool) {
	for ; ok; ok = w.it.Next() {
		e := w.it.Item()
		if !strings.HasPrefix(e.folded, key) {
			return
		}
		w.q.offer(e, d)
	}
}

// next is the least key above every key starting with a+x (x a unit of 2
// bytes), and false when there is none (x is 0xffff).
func next(a, x string) (string, bool) {
	u := uint16(x[0])<<8 | uint16(x[1]) + 1
	if u == 0 {
		return "", false
	}
	return a + string([]byte{byte(u >> 8), byte(u)}), true
}

// first is the first entry whose folded units are key or follow it, nil
// if none.
func (t *Trie) first(key string) (e *entry) {
	t.tree.Ascend(&entry{folded: key}, func(f *entry) bool {
		e = f
		return false
	})
	return e
}

// upper is the least key above every key that starts with key, and false
// when there is none (key is empty or all its units are 0xffff).
func upper(key string) (string, bool) {
	for len(key) >= 2 {
		if k, ok := next(key[:len(key)-2], key[len(key)-2:]); ok {
			return k, true
		}
		key = key[:len(key)-2]
	}
	return "", false
}

// fuzzy offers the entries within one edit of the prefix, each once.
func (w *walker) fuzzy() {
	p := w.q.fpKey
	for i := 0; i < len(p); i += 2 {
		a, c, r := p[:i], p[i:i+2], p[i+2:]
		if len(r) == 0 {
			// The last unit: every string of a (a itself included) but
			// those of a c (distance 0, offered below) is within one
			// edit, c deleted or replaced: those below a c, and those
			// above its range.
			w.scanBelow(a, p)
			if k, ok := next(a, c); ok {
				w.scan(a, 1, w.seek(k))
			}
			break
		}
		// The distinct units x following a, each found by a seek.
		for ok := w.seek(a); ok; {
			f := w.it.Item().folded
			if !strings.HasPrefix(f, a) {
				break
			}
			if len(f) == len(a) { // s = a, and r is not empty: no match
				ok = w.it.Next()
				continue
			}
			x := f[i : i+2]
			if x != c {
				keys := [3]string{a + x + r, a + x + c + r}
				if x == r[:2] {
					keys[2] = a + r
				}
				w.scanUnion(keys[:])
			}
			k, more := next(a, x)
			if !more {
				break
			}
			ok = w.seek(k)
		}
	}
	w.scan(p, 0, w.seek(p))
}

// scanBelow offers, at distance 1, the entries that start with a and sort
// below key.
func (w *walker) scanBelow(a, key string) {
	for ok := w.seek(a); ok; ok = w.it.Next() {
		e := w.it.Item()
		if e.folded >= key || !strings.HasPrefix(e.folded, a) {
			return
		}
		w.q.offer(e, 1)
	}
}

// scanUnion offers, at distance 1, the entries that start with any of the
// non-empty keys, once each: a key that another starts is left out, and
// so is a repeated key.
func (w *walker) scanUnion(keys []string) {
	for j, k := range keys {
		if k == "" {
			continue
		}
		covered := false
		for l, o := range keys {
			if l != j && o != "" && strings.HasPrefix(k, o) && (len(o) < len(k) || l < j) {
				covered = true
				break
			}
		}
		if !covered {
			w.scan(k, 1, w.seek(k))
		}
	}
}

// query is a search under way.
type query struct {
	fp     []uint16 // the prefix's folded units
	fpKey  string   // the same as a key
	nbytes int      // the prefix's length in bytes
	top    topK
}

// offer scores e, found at edit distance d, and keeps it if it is among
// the best so far.
func (q *query) offer(e *entry, d int) {
	if e.score == negInf {
		return
	}
	s := e.score
	if q.exact(e) {
		s = exactScore
	}
	if d > 0 {
		s = float32(float64(s) * math.Exp(-2*float64(d)))
	}
	diff := e.n() - q.nbytes
	if diff < 0 {
		diff = -diff
	}
	q.top.add(candidate{e: e, score: float32(float64(s) / math.Sqrt(float64(1+diff)))})
}

// exact reports whether e counts as the prefix itself: as many units as
// the folded prefix, and the same first bytes of their little-endian units,
// as many bytes as there are units (half the units, and the low byte of the
// middle one when their number is odd).
func (q *query) exact(e *entry) bool {
	n := e.n()
	if n != len(q.fp) {
		return false
	}
	for k := 0; k < n; k++ {
		i := k / 2
		su := uint16(e.raw[2*i])<<8 | uint16(e.raw[2*i+1])
		pu := q.fp[i]
		if k%2 == 1 {
			su, pu = su>>8, pu>>8
		}
		if byte(su) != byte(pu) {
			return false
		}
	}
	return true
}

// editDist is the least Levenshtein distance between the units of p and a
// prefix of s's (both big-endian pairs), capped at 2. An edit at the first
// difference decides it: one further left is equivalent to one there.
func editDist(p, s string) int {
	l := 0
	for l+1 < len(p) && l+1 < len(s) && p[l] == s[l] && p[l+1] == s[l+1] {
		l += 2
	}
	if l == len(p) {
		return 0
	}
	rest := p[l+2:] // p after the first differing unit
	switch {
	case strings.HasPrefix(s[l:], rest): // that unit deleted
		return 1
	case len(s) >= l+2 && strings.HasPrefix(s[l+2:], rest): // replaced
		return 1
	case len(s) >= l+2 && strings.HasPrefix(s[l+2:], p[l:]): // one inserted
		return 1
	}
	return 2
}

// candidate is a result in the making.
type candidate struct {
	e     *entry
	score float32
}

// better orders candidates: higher score (NaN first), then units.
func better(a, b candidate) bool {
	if c := compareScores(a.score, b.score); c != 0 {
		return c < 0
	}
	return a.e.raw < b.e.raw
}

// topK keeps the best max candidates in a heap whose root is the worst.
type topK struct {
	max int
	h   []candidate
}

func (t *topK) add(c candidate) {
	if len(t.h) < t.max {
		t.h = append(t.h, c)
		for i := len(t.h) - 1; i > 0; {
			p := (i - 1) / 2
			if !better(t.h[p], t.h[i]) {
				break
			}
			t.h[p], t.h[i] = t.h[i], t.h[p]
			i = p
		}
		return
	}
	if !better(c, t.h[0]) {
		return
	}
	t.h[0] = c
	for i := 0; ; {
		w, l, r := i, 2*i+1, 2*i+2
		if l < len(t.h) && better(t.h[w], t.h[l]) {
			w = l
		}
		if r < len(t.h) && better(t.h[w], t.h[r]) {
			w = r
		}
		if w == i {
			return
		}
		t.h[w], t.h[i] = t.h[i], t.h[w]
		i = w
	}
}

// sorted returns the candidates best first.
func (t *topK) sorted() []candidate {
	slices.SortFunc(t.h, func(a, b candidate) int {
		if better(a, b) {
			return -1
		}
		if better(b, a) {
			return 1
		}
		return 0
	})
	return t.h
}
