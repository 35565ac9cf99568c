package search

import (
	"container/heap"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// VECTOR fields: each document's vector (the hash field's bytes, the
// little-endian floats of DIM dimensions) is kept in the field's vector
// index, FLAT (every vector compared with the query: exact) or HNSW (a
// hierarchical navigable small-world graph: approximate, as RediSearch's).
// Distances are RediSearch's: L2 is the squared Euclidean distance, IP is
// 1 - the inner product, COSINE is IP over the vectors normalised as they
// are stored and queried. They are computed in the field's type, summed
// in four lanes (l2; RediSearch's SIMD kernels sum wide vectors in lanes
// of their own, so the last bits of a distance can differ).

// VectorOpts are a VECTOR field's attributes.
type VectorOpts struct {
	Algorithm      string // FLAT or HNSW
	Type           string // FLOAT32 or FLOAT64
	Dim            int
	Metric         string // L2, IP or COSINE
	M              int    // HNSW: the links per node (twice as many on layer 0)
	EFConstruction int    // HNSW: the candidates an insertion looks at
	EFRuntime      int    // HNSW: the candidates a KNN query looks at, at least
	Epsilon        float64
}

// blobSize is the length of a vector's bytes.
func (o *VectorOpts) blobSize() int {
	if o.Type == "FLOAT64" {
		return o.Dim * 8
	}
	return o.Dim * 4
}

// parseVector parses a VECTOR field's attributes from args (args[0] is
// VECTOR) and returns how many arguments it read.
func (f *Field) parseVector(args [][]byte) (int, error) {
	f.Type = Vector
	if len(args) < 2 {
		return 0, errf(errBadArgsMissing, "vector similarity algorithm")
	}
	o := &VectorOpts{Algorithm: strings.ToUpper(string(args[1])), M: 16, EFConstruction: 200, EFRuntime: 10, Epsilon: 0.01}
	if o.Algorithm != "FLAT" && o.Algorithm != "HNSW" {
		return 0, errf(errBadArgsUnknown, "vector similarity algorithm")
	}
	n, ok := countArg(args, 2)
	switch {
	case len(args) < 3:
		return 0, errf(errBadArgsMissing, "vector similarity number of parameters")
	case !ok:
		return 0, errf(errBadArgsConvert, "vector similarity number of parameters")
	case n%2 != 0:
		return 0, errf(errVectorOddArgs, n)
	}
	what := "vector similarity " + o.Algorithm + " index "
	i := 3
	for ; i < 3+n; i += 2 {
		name := strings.ToUpper(string(args[i]))
		label := map[string]string{"TYPE": "type", "DIM": "dim", "DISTANCE_METRIC": "metric", "INITIAL_CAP": "initial cap",
			"BLOCK_SIZE": "block size", "M": "m", "EF_CONSTRUCTION": "efConstruction", "EF_RUNTIME": "efRuntime", "EPSILON": "epsilon"}[name]
		hnswOnly := name == "M" || name == "EF_CONSTRUCTION" || name == "EF_RUNTIME" || name == "EPSILON"
		if label == "" || hnswOnly && o.Algorithm != "HNSW" {
			return 0, errf(errVectorAlgoArg, o.Algorithm, string(args[i]))
		}
		if i+1 >= len(args) {
			return 0, errf(errBadArgsMissing, what+label)
		}
		v := string(args[i+1])
		positive := func(dst *int) error {
			x, err := strconv.ParseInt(v, 10, 64)
			switch {
			case err != nil:
				return errf(errBadArgsConvert, what+label)
			case x <= 0 || x > math.MaxInt32:
				return errf(errBadArgsBounds, what+label)
			}
			*dst = int(x)
			return nil
		}
		var err error
		switch name {
		case "TYPE":
			switch t := strings.ToUpper(v); t {
			case "FLOAT32", "FLOAT64":
				o.Type = t
			case "FLOAT16", "BFLOAT16":
				return 0, errf(errNotSupported, "TYPE "+t)
			default:
				return 0, errf(errBadArgsUnknown, what+label)
			}
		case "DIM":
			err = positive(&o.Dim)
		case "DISTANCE_METRIC":
			switch m := strings.ToUpper(v); m {
			case "L2", "IP", "COSINE":
				o.Metric = m
			default:
				return 0, errf(errBadArgsUnknown, what+label)
			}
		case "INITIAL_CAP", "BLOCK_SIZE":
			if _, perr := strconv.ParseUint(v, 10, 64); perr != nil {
				err = errf(errBadArgsConvert, what+label)
			}
		case "M":
			err = positive(&o.M)
		case "EF_CONSTRUCTION":
			err = positive(&o.EFConstruction)
		case "EF_RUNTIME":
			err = positive(&o.EFRuntime)
		case "EPSILON":
			e, perr := strconv.ParseFloat(v, 64)
			switch {
			case perr != nil:
				err = errf(errBadArgsConvert, what+label)
			case !(e > 0) || math.IsInf(e, 0):
				err = errf(errBadArgsBounds, what+label)
			}
			o.Epsilon = e
		}
		if err != nil {
			return 0, err
		}
	}
	for _, m := range []struct {
		set  bool
		name string
	}{{o.Type != "", "TYPE"}, {o.Dim != 0, "DIM"}, {o.Metric != "", "DISTANCE_METRIC"}} {
		if !m.set {
			return 0, errf(errVectorMissing, o.Algorithm, m.name)
		}
	}
	f.Vector = o
	return i, nil
}

// vecHit is a vector's document and its distance to a query.
type vecHit struct {
	id   uint32
	dist float64
}

// vecStore is a VECTOR field's index.
type vecStore interface {
	// put adds id's vector (blob: blobSize bytes); del removes it.
	put(id uint32, blob []byte)
	del(id uint32)
	// knn returns the k nearest vectors to q (blobSize bytes), nearest
	// first (ties by id); with accept, only among the ids it accepts
	// (exact, by comparing each). ef is the HNSW search's breadth.
	knn(q []byte, k, ef int, accept func(uint32) bool) []vecHit
	// within returns the vectors at most radius from q, by id.
	within(q []byte, radius float64) []vecHit
}

// newVecStore returns the index of a VECTOR field.
func newVecStore(o *VectorOpts) vecStore {
	if o.Type == "FLOAT64" {
		return newVectors[float64](o)
	}
	return newVectors[float32](o)
}

type float interface{ ~float32 | ~float64 }

// vectors is a vecStore of vectors of T, stored densely: the vector of
// ids[i] is data[i*Dim:(i+1)*Dim] (a removed one's place is taken by the
// last), so that comparing a query with all of them walks memory once.
type vectors[T float] struct {
	o    *VectorOpts
	ids  []uint32
	data []T
	pos  map[uint32]int32 // id -> index in ids
	g    *hnsw[T]         // nil for FLAT
	// l2 and dot compute the metrics: the generic code, or SIMD
	// instructions where there are (vecsimd.go; simd says so).
	l2, dot func(a, b []T) T
	simd    bool
	// batch computes the L2 distances of a query and vectors stored end
	// to end, where SIMD instructions can (nil: one at a time).
	batch func(q, data, out []T)
}

func newVectors[T float](o *VectorOpts) *vectors[T] {
	v := &vectors[T]{o: o, pos: map[uint32]int32{}, l2: l2[T], dot: dot[T]}
	if f, ok := any(l2f32Fast).(func(a, b []T) T); ok && f != nil {
		v.l2, v.simd = f, true
	}
	if f, ok := any(dotf32Fast).(func(a, b []T) T); ok && f != nil {
		v.dot = f
	}
	if f, ok := any(l2f32Batch).(func(q, data, out []T)); ok && f != nil && o.Dim%8 == 0 && o.Metric == "L2" {
		v.batch = f
	}
	if o.Algorithm == "HNSW" {
		v.g = newHNSW(v, o.M, o.EFConstruction)
	}
	return v
}

// decode reads a vector's bytes (normalised for COSINE).
func (v *vectors[T]) decode(b []byte) []T {
	out := make([]T, v.o.Dim)
	for i := range out {
		if v.o.Type == "FLOAT64" {
			out[i] = T(math.Float64frombits(binary.LittleEndian.Uint64(b[i*8:])))
		} else {
			out[i] = T(math.Float32frombits(binary.LittleEndian.Uint32(b[i*4:])))
		}
	}
	if v.o.Metric == "COSINE" {
		var norm T
		for _, x := range out {
			norm += T(x * x)
		}
		if norm = T(math.Sqrt(float64(norm))); norm != 0 {
			for i := range out {
				out[i] /= norm
			}
		}
	}
	return out
}

// dist is the distance between a and b (vectors of the field's Dim).
func (v *vectors[T]) dist(a, b []T) T {
	if v.o.Metric == "L2" {
		return v.l2(a, b)
	}
	return 1 - v.dot(a, b)
}

// l2 is the squared Euclidean distance of a and b (of one length),
// summed as l2Within sums.
func l2[T float](a, b []T) T {
	d, _ := l2Within(a, b, T(math.Inf(1)))
	return d
}

// l2Within is the squared Euclidean distance of a and b (of one length)
// when it is not over bound (reported true); it stops early, reporting
// false, once the sum so far is. It sums in four lanes, each every fourth
// dimension, then the lanes, as a SIMD kernel does (and about as fast as
// Go goes without one).
func l2Within[T float](a, b []T, bound T) (T, bool) {
	b = b[:len(a)]
	var s0, s1, s2, s3 T
	i := 0
	for ; i+4 <= len(a); i += 4 {
		d0, d1, d2, d3 := a[i]-b[i], a[i+1]-b[i+1], a[i+2]-b[i+2], a[i+3]-b[i+3]
		s0 += T(d0 * d0)
		s1 += T(d1 * d1)
		s2 += T(d2 * d2)
		s3 += T(d3 * d3)
		if i&12 == 12 && (s0+s1)+(s2+s3) > bound { // every 16 dimensions
			return 0, false
		}
	}
	for ; i < len(a); i++ {
		d := a[i] - b[i]
		s0 += T(d * d)
	}
	s := (s0 + s1) + (s2 + s3)
	return s, s <= bound
}

// dot is the inner product of a and b, summed as l2 sums.
func dot[T float](a, b []T) T {
	b = b[:len(a)]
	var s0, s1, s2, s3 T
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += T(a[i] * b[i])
		s1 += T(a[i+1] * b[i+1])
		s2 += T(a[i+2] * b[i+2])
		s3 += T(a[i+3] * b[i+3])
	}
	for ; i < len(a); i++ {
		s0 += T(a[i] * b[i])
	}
	return (s0 + s1) + (s2 + s3)
}

func (v *vectors[T]) put(id uint32, blob []byte) {
	vec := v.decode(blob)
	v.pos[id] = int32(len(v.ids))
	v.ids = append(v.ids, id)
	v.data = append(v.data, vec...)
	if v.g != nil {
		v.g.insert(id, vec)
	}
}

func (v *vectors[T]) del(id uint32) {
	i, ok := v.pos[id]
	if !ok {
		return
	}
	if v.g != nil {
		v.g.remove(id)
	}
	last := int32(len(v.ids) - 1)
	if i != last {
		moved := v.ids[last]
		v.ids[i] = moved
		copy(v.vec(i), v.vec(last))
		v.pos[moved] = i
	}
	v.ids = v.ids[:last]
	v.data = v.data[:int(last)*v.o.Dim]
	delete(v.pos, id)
}

// vec is the vector at index i of ids.
func (v *vectors[T]) vec(i int32) []T {
	d := v.o.Dim
	return v.data[int(i)*d : (int(i)+1)*d : (int(i)+1)*d]
}

// of is id's vector.
func (v *vectors[T]) of(id uint32) []T { return v.vec(v.pos[id]) }

func (v *vectors[T]) knn(qb []byte, k, ef int, accept func(uint32) bool) []vecHit {
	if k <= 0 || len(v.ids) == 0 {
		return nil
	}
	q := v.decode(qb)
	var hits []vecHit
	if v.g != nil && accept == nil {
		for _, c := range v.g.search(q, max(ef, k)) {
			hits = append(hits, vecHit{c.id, float64(c.d)})
		}
	} else {
		var h farHeap[T]
		keep := func(c cand[T]) {
			if len(h) < k {
				heap.Push(&h, c)
			} else if closer(c, h[0]) {
				h[0] = c
				heap.Fix(&h, 0)
			}
		}
		l2m := v.o.Metric == "L2"
		if v.batch != nil {
			// The distances of a block of vectors at a time.
			var dists [256]T
			d := v.o.Dim
			for start := 0; start < len(v.ids); start += len(dists) {
				n := min(len(dists), len(v.ids)-start)
				v.batch(q, v.data[start*d:(start+n)*d], dists[:n])
				for j, dist := range dists[:n] {
					id := v.ids[start+j]
					if len(h) == k && dist > h[0].d || accept != nil && !accept(id) {
						continue
					}
					keep(cand[T]{id, dist})
				}
			}
		}
		for i, id := range v.ids {
			if v.batch != nil {
				break // done above
			}
			if accept != nil && !accept(id) {
				continue
			}
			if l2m && len(h) == k && !v.simd {
				// Squared distances only grow as dimensions add up: a
				// vector already farther than the k-th is dropped early.
				if d, ok := l2Within(q, v.vec(int32(i)), h[0].d); ok {
					keep(cand[T]{id, d})
				}
				continue
			}
			keep(cand[T]{id, v.dist(q, v.vec(int32(i)))})
		}
		for _, c := range h {
			hits = append(hits, vecHit{c.id, float64(c.d)})
		}
	}
	slices.SortFunc(hits, func(a, b vecHit) int {
		if a.dist != b.dist {
			if a.dist < b.dist {
				return -1
			}
			return 1
		}
		return cmpU32(a.id, b.id)
	})
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits
}

func (v *vectors[T]) within(qb []byte, radius float64) []vecHit {
	q := v.decode(qb)
	var hits []vecHit
	for i, id := range v.ids {
		if d := float64(v.dist(q, v.vec(int32(i)))); d <= radius {
			hits = append(hits, vecHit{id, d})
		}
	}
	slices.SortFunc(hits, func(a, b vecHit) int { return cmpU32(a.id, b.id) })
	return hits
}

// cand is a vector and its distance to the vector being searched for.
type cand[T float] struct {
	id uint32
	d  T
}

// closer orders candidates by distance, then id.
func closer[T float](a, b cand[T]) bool {
	return a.d < b.d || a.d == b.d && a.id < b.id
}

// nearHeap pops the nearest candidate first; farHeap the farthest.
type nearHeap[T float] []cand[T]

func (h nearHeap[T]) Len() int           { return len(h) }
func (h nearHeap[T]) Less(i, j int) bool { return closer(h[i], h[j]) }
func (h nearHeap[T]) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *nearHeap[T]) Push(x any)        { *h = append(*h, x.(cand[T])) }
func (h *nearHeap[T]) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

type farHeap[T float] []cand[T]

func (h farHeap[T]) Len() int           { return len(h) }
func (h farHeap[T]) Less(i, j int) bool { return closer(h[j], h[i]) }
func (h farHeap[T]) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *farHeap[T]) Push(x any)        { *h = append(*h, x.(cand[T])) }
func (h *farHeap[T]) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// hnsw is an HNSW graph (Malkov and Yashunin) over the vectors of vs:
// each node is on layers 0 to its level (drawn with probability falling
// by 1/M per layer) and linked to at most M neighbours per layer (2M on
// layer 0), chosen by the paper's heuristic; a search descends greedily
// from the top layer's entry point and explores layer 0 with ef
// candidates. A removed node's neighbours are relinked among themselves.
type hnsw[T float] struct {
	vs       *vectors[T]
	m, m0    int
	efc      int
	ml       float64
	rng      *rand.Rand
	nodes    map[uint32]*hnswNode
	entry    uint32
	maxLevel int // -1 when empty
}

type hnswNode struct {
	links [][]uint32 // per layer
}

func newHNSW[T float](vs *vectors[T], m, efc int) *hnsw[T] {
	return &hnsw[T]{vs: vs, m: m, m0: 2 * m, efc: efc, ml: 1 / math.Log(float64(max(m, 2))),
		rng: rand.New(rand.NewPCG(1, 2)), nodes: map[uint32]*hnswNode{}, maxLevel: -1}
}

func (g *hnsw[T]) distTo(q []T, id uint32) T { return g.vs.dist(q, g.vs.of(id)) }

// greedy walks layer l from ep towards q and returns the nearest node it
// finds.
func (g *hnsw[T]) greedy(q []T, ep uint32, l int) uint32 {
	best := cand[T]{ep, g.distTo(q, ep)}
	for changed := true; changed; {
		changed = false
		for _, nb := range g.nodes[best.id].links[l] {
			if g.nodes[nb] == nil {
				continue // removed
			}
			if c := (cand[T]{nb, g.distTo(q, nb)}); closer(c, best) {
				best, changed = c, true
			}
		}
	}
	return best.id
}

// searchLayer returns the ef nearest nodes to q it finds on layer l from
// the entry points eps, nearest first.
func (g *hnsw[T]) searchLayer(q []T, eps []uint32, ef, l int) []cand[T] {
	visited := make(map[uint32]struct{}, ef*4)
	var cands nearHeap[T]
	var found farHeap[T]
	for _, ep := range eps {
		visited[ep] = struct{}{}
		c := cand[T]{ep, g.distTo(q, ep)}
		heap.Push(&cands, c)
		heap.Push(&found, c)
	}
	for cands.Len() > 0 {
		c := heap.Pop(&cands).(cand[T])
		if found.Len() >= ef && closer(found[0], c) {
			break
		}
		for _, nb := range g.nodes[c.id].links[l] {
			if _, seen := visited[nb]; seen || g.nodes[nb] == nil {
				continue
			}
			visited[nb] = struct{}{}
			nc := cand[T]{nb, g.distTo(q, nb)}
			if found.Len() < ef || closer(nc, found[0]) {
				heap.Push(&cands, nc)
				heap.Push(&found, nc)
				if found.Len() > ef {
					heap.Pop(&found)
				}
			}
		}
	}
	out := []cand[T](found)
	slices.SortFunc(out, func(a, b cand[T]) int {
		if closer(a, b) {
			return -1
		}
		return 1
	})
	return out
}

// selectNeighbors picks at most m of cands (nearest first) by the
// heuristic: a candidate is kept when it is nearer to the node than to
// every candidate kept before it; the nearest discarded ones fill up.
func (g *hnsw[T]) selectNeighbors(cands []cand[T], m int) []uint32 {
	var kept []cand[T]
	var dropped []uint32
	for _, c := range cands {
		if len(kept) >= m {
			break
		}
		good := true
		vc := g.vs.of(c.id)
		for _, k := range kept {
			if g.vs.dist(vc, g.vs.of(k.id)) < c.d {
				good = false
				break
			}
		}
		if good {
			kept = append(kept, c)
		} else {
			dropped = append(dropped, c.id)
		}
	}
	out := make([]uint32, 0, m)
	for _, k := range kept {
		out = append(out, k.id)
	}
	for _, id := range dropped {
		if len(out) >= m {
			break
		}
		out = append(out, id)
	}
	return out
}

func (g *hnsw[T]) maxLinks(l int) int {
	if l == 0 {
		return g.m0
	}
	return g.m
}

// relink sets node id's links on layer l from candidates (ids other than
// id).
func (g *hnsw[T]) relink(id uint32, l int, candidates []uint32) {
	vec := g.vs.of(id)
	cs := make([]cand[T], 0, len(candidates))
	for _, c := range candidates {
		if g.nodes[c] != nil {
			cs = append(cs, cand[T]{c, g.vs.dist(vec, g.vs.of(c))})
		}
	}
	slices.SortFunc(cs, func(a, b cand[T]) int {
		if closer(a, b) {
			return -1
		}
		return 1
	})
	g.nodes[id].links[l] = g.selectNeighbors(cs, g.maxLinks(l))
}

func (g *hnsw[T]) insert(id uint32, vec []T) {
	level := int(-math.Log(1-g.rng.Float64()) * g.ml)
	n := &hnswNode{links: make([][]uint32, level+1)}
	g.nodes[id] = n
	if g.maxLevel < 0 {
		g.entry, g.maxLevel = id, level
		return
	}
	ep := g.entry
	for l := g.maxLevel; l > level; l-- {
		ep = g.greedy(vec, ep, l)
	}
	eps := []uint32{ep}
	for l := min(level, g.maxLevel); l >= 0; l-- {
		found := g.searchLayer(vec, eps, g.efc, l)
		n.links[l] = g.selectNeighbors(found, g.m)
		for _, nb := range n.links[l] {
			links := &g.nodes[nb].links[l]
			*links = append(*links, id)
			if len(*links) > g.maxLinks(l) {
				g.relink(nb, l, *links)
			}
		}
		eps = eps[:0]
		for _, c := range found {
			eps = append(eps, c.id)
		}
	}
	if level > g.maxLevel {
		g.entry, g.maxLevel = id, level
	}
}

func (g *hnsw[T]) remove(id uint32) {
	n := g.nodes[id]
	delete(g.nodes, id)
	// Its neighbours drop it, and those that linked to it choose again
	// among their links and its links.
	for l, links := range n.links {
		for _, nb := range links {
			m := g.nodes[nb]
			if m == nil || l >= len(m.links) {
				continue
			}
			i := slices.Index(m.links[l], id)
			if i < 0 {
				continue
			}
			cands := slices.Delete(slices.Clone(m.links[l]), i, i+1)
			for _, x := range links {
				if x != nb && !slices.Contains(cands, x) {
					cands = append(cands, x)
				}
			}
			g.relink(nb, l, cands)
		}
	}
	// A link to it from a node it did not link to stays, and is skipped
	// (ids are never reused) until that node is relinked.
	if g.entry == id {
		g.maxLevel = -1
		for nid, m := range g.nodes {
			if l := len(m.links) - 1; l > g.maxLevel || l == g.maxLevel && nid < g.entry {
				g.entry, g.maxLevel = nid, l
			}
		}
	}
}

// search returns the ef nearest nodes to q it finds.
func (g *hnsw[T]) search(q []T, ef int) []cand[T] {
	if g.maxLevel < 0 {
		return nil
	}
	ep := g.entry
	for l := g.maxLevel; l > 0; l-- {
		ep = g.greedy(q, ep, l)
	}
	return g.searchLayer(q, []uint32{ep}, ef, 0)
}
