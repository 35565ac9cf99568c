package suggest

// The Levenshtein automaton RediSearch walks its trie with
// (src/trie/levenshtein.c, sparse_vector.c): a sparse automaton for the
// prefix turned into a DFA, whose states are shared through a cache, and a
// filter that feeds it the trie's runes, folded.

// svEntry is a sparse vector's entry: a position in the prefix and the edit
// distance there.
type svEntry struct{ idx, val int }

type automaton struct {
	str []rune16
	max int
}

func (a *automaton) start() []svEntry {
	v := make([]svEntry, a.max+1)
	for i := range v {
		v[i] = svEntry{i, i}
	}
	return v
}

func (a *automaton) step(state []svEntry, c rune16) []svEntry {
	out := make([]svEntry, 0, len(state))
	if len(state) > 0 {
		if e := state[0]; e.idx == 0 && e.val < a.max {
			out = append(out, svEntry{0, e.val + 1})
		}
	}
	for j, e := range state {
		if e.idx == len(a.str) {
			break
		}
		val := e.val
		if a.str[e.idx] != c {
			val++
		}
		if len(out) > 0 && out[len(out)-1].idx == e.idx {
			val = min(val, out[len(out)-1].val+1)
		}
		if j+1 < len(state) && state[j+1].idx == e.idx+1 {
			val = min(val, state[j+1].val+1)
		}
		if val <= a.max {
			out = append(out, svEntry{e.idx + 1, val})
		}
	}
	return out
}

func (a *automaton) isMatch(v []svEntry) bool {
	return len(v) > 0 && v[len(v)-1].idx == len(a.str)
}

type dfaEdge struct {
	r rune16
	n *dfaNode
}

type dfaNode struct {
	distance int
	match    bool
	v        []svEntry
	edges    []dfaEdge
	fallback *dfaNode
}

func (n *dfaNode) edge(r rune16) *dfaNode {
	for _, e := range n.edges {
		if e.r == r {
			return e.n
		}
	}
	return nil
}

func svEqual(a, b []svEntry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

type dfaCache []*dfaNode

func (c dfaCache) get(v []svEntry) *dfaNode {
	for _, n := range c {
		if svEqual(v, n.v) {
			return n
		}
	}
	return nil
}

// build is dfa_build.
func (a *automaton) build(parent *dfaNode, cache *dfaCache) {
	parent.match = a.isMatch(parent.v)
	for _, e := range parent.v {
		if e.idx >= len(a.str) {
			continue
		}
		c := a.str[e.idx]
		if parent.edge(c) != nil {
			continue
		}
		nv := a.step(parent.v, c)
		if len(nv) == 0 {
			continue
		}
		if dfn := cache.get(nv); dfn != nil {
			parent.edges = append(parent.edges, dfaEdge{c, dfn})
			continue
		}
		edge := &dfaNode{distance: nv[len(nv)-1].val, v: nv}
		parent.edges = append(parent.edges, dfaEdge{c, edge})
		*cache = append(*cache, edge)
		a.build(edge, cache)
	}
	nv := a.step(parent.v, 1)
	if len(nv) == 0 {
		return
	}
	if dfn := cache.get(nv); dfn != nil {
		parent.fallback = dfn
		return
	}
	parent.fallback = &dfaNode{distance: nv[len(nv)-1].val, v: nv}
	*cache = append(*cache, parent.fallback)
	a.build(parent.fallback, cache)
}

// dfaFilter is a DFAFilter: the automaton's states along the trie walk's
// current path, one per rune walked.
type dfaFilter struct {
	stack     []*dfaNode // nil: past a matched prefix
	distStack []int
	prefix    bool
}

func newDFAFilter(str []rune16, maxDist int, prefix bool) *dfaFilter {
	a := &automaton{str: str, max: maxDist}
	root := &dfaNode{v: a.start()}
	cache := dfaCache{root}
	a.build(root, &cache)
	return &dfaFilter{stack: []*dfaNode{root}, distStack: []int{maxDist + 1}, prefix: prefix}
}

// filter is FilterFunc: it feeds b and reports whether the walk goes on
// below it and whether the runes so far match; on a match it sets *dist.
func (f *dfaFilter) filter(b rune16, dist *int) (cont, matched bool) {
	dn := f.stack[len(f.stack)-1]
	minDist := f.distStack[len(f.distStack)-1]
	if dn == nil {
		f.stack = append(f.stack, nil)
		f.distStack = append(f.distStack, minDist)
		return true, true
	}
	matched = dn.match
	if matched && dist != nil {
		*dist = min(dn.distance, minDist)
	}
	folded := rune16(fold(uint32(b)))
	next := dn.edge(folded)
	if next == nil {
		next = dn.fallback
	}
	if next != nil {
		if next.match {
			matched = true
			if dist != nil {
				*dist = min(next.distance, minDist)
			}
		}
		f.stack = append(f.stack, next)
		f.distStack = append(f.distStack, min(next.distance, minDist))
		return true, matched
	}
	if f.prefix && matched {
		f.stack = append(f.stack, nil)
		f.distStack = append(f.distStack, minDist)
		return true, matched
	}
	return false, matched
}

// pop is StackPop: the walk went back up n runes.
func (f *dfaFilter) pop(n int) {
	f.stack = f.stack[:len(f.stack)-n]
	f.distStack = f.distStack[:len(f.distStack)-n]
}
