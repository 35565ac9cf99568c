package search

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSIMDKernels: where the CPU has them, the SIMD kernels agree with
// the generic code (within float32 rounding: they sum in another order,
// with fused multiply-adds), for every width and for blocks of vectors.
func TestSIMDKernels(t *testing.T) {
	if l2f32Fast == nil {
		t.Skip("SKIPPING: no SIMD kernels on this CPU")
	}
	r := rand.New(rand.NewPCG(3, 3))
	vec := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = r.Float32()*2 - 1
		}
		return v
	}
	near := func(got, want float32) bool {
		return math.Abs(float64(got-want)) <= 1e-5*math.Max(1, math.Abs(float64(want)))
	}
	for n := 1; n <= 72; n++ {
		a, b := vec(n), vec(n)
		if got, want := l2f32Fast(a, b), l2(a, b); !near(got, want) {
			t.Errorf("dim %d: l2 %v, want %v", n, got, want)
		}
		if got, want := dotf32Fast(a, b), dot(a, b); !near(got, want) {
			t.Errorf("dim %d: dot %v, want %v", n, got, want)
		}
		if n%8 != 0 {
			continue
		}
		const count = 37
		data := vec(n * count)
		out := make([]float32, count)
		l2f32Batch(a, data, out)
		for j := range out {
			if want := l2(a, data[j*n:(j+1)*n]); !near(out[j], want) {
				t.Errorf("dim %d, vector %d of a block: %v, want %v", n, j, out[j], want)
			}
		}
	}
}
