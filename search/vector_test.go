package search

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

func blob32(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// TestHNSWRecall: the HNSW graph finds nearly all of the exact nearest
// neighbours (FLAT's), before and after half of the vectors are removed,
// and never returns a removed one.
func TestHNSWRecall(t *testing.T) {
	const n, dim, k = 2000, 16, 10
	rng := rand.New(rand.NewPCG(1, 1))
	for _, metric := range []string{"L2", "IP", "COSINE"} {
		opts := func(algo string) *VectorOpts {
			return &VectorOpts{Algorithm: algo, Type: "FLOAT32", Dim: dim, Metric: metric, M: 16, EFConstruction: 200, EFRuntime: 10}
		}
		flat, hnsw := newVecStore(opts("FLAT")), newVecStore(opts("HNSW"))
		vec := func() []byte {
			v := make([]float32, dim)
			for i := range v {
				v[i] = rng.Float32()*2 - 1
			}
			return blob32(v)
		}
		for id := uint32(1); id <= n; id++ {
			b := vec()
			flat.put(id, b)
			hnsw.put(id, b)
		}
		recall := func(removed map[uint32]bool) float64 {
			found, want := 0, 0
			for range 50 {
				q := vec()
				exact := map[uint32]bool{}
				for _, h := range flat.knn(q, k, 0, nil) {
					exact[h.id] = true
				}
				want += len(exact)
				for _, h := range hnsw.knn(q, k, 50, nil) {
					if removed[h.id] {
						t.Fatalf("%s: removed vector %d returned", metric, h.id)
					}
					if exact[h.id] {
						found++
					}
				}
			}
			return float64(found) / float64(want)
		}
		if r := recall(nil); r < 0.9 {
			t.Errorf("%s: recall %.3f", metric, r)
		}
		removed := map[uint32]bool{}
		for id := uint32(1); id <= n; id += 2 {
			flat.del(id)
			hnsw.del(id)
			removed[id] = true
		}
		if r := recall(removed); r < 0.9 {
			t.Errorf("%s: recall after removals %.3f", metric, r)
		}
	}
}

// TestVectorRange: a range query returns exactly the vectors within the
// radius, by id.
func TestVectorRange(t *testing.T) {
	s := newVecStore(&VectorOpts{Algorithm: "FLAT", Type: "FLOAT32", Dim: 2, Metric: "L2"})
	for i, v := range [][]float32{{0, 0}, {1, 0}, {2, 0}, {0, 3}} {
		s.put(uint32(i+1), blob32(v))
	}
	hits := s.within(blob32([]float32{0, 0}), 3.9)
	if len(hits) != 2 || hits[0].id != 1 || hits[1].id != 2 || hits[1].dist != 1 {
		t.Fatalf("within: %v", hits)
	}
}
