package search

import "golang.org/x/sys/cpu"

//go:noescape
func l2sqAVX2(a, b *float32, n int) float32

//go:noescape
func dotAVX2(a, b *float32, n int) float32

//go:noescape
func l2sqBatchAVX2(q, data *float32, dim, count int, out *float32)

func init() {
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		l2f32Fast, dotf32Fast, l2f32Batch = l2f32AVX2, dotf32AVX2, l2f32BatchAVX2
	}
}

// l2f32BatchAVX2 sets out[j] to l2f32AVX2(q, data[j*len(q):]) for each
// j below len(out), which data must hold; len(q) is a multiple of 8.
func l2f32BatchAVX2(q, data, out []float32) {
	if len(out) == 0 {
		return
	}
	_ = data[len(out)*len(q)-1]
	l2sqBatchAVX2(&q[0], &data[0], len(q), len(out), &out[0])
}

// l2f32AVX2 is l2 for float32 vectors with AVX2: eight lanes in two
// accumulators, fused multiply-adds (as RediSearch's vector kernels sum).
func l2f32AVX2(a, b []float32) float32 {
	b = b[:len(a)]
	n := len(a) &^ 7
	var s float32
	if n > 0 {
		s = l2sqAVX2(&a[0], &b[0], n)
	}
	for i := n; i < len(a); i++ {
		d := a[i] - b[i]
		s += d * d
	}
	return s
}

// dotf32AVX2 is dot for float32 vectors with AVX2.
func dotf32AVX2(a, b []float32) float32 {
	b = b[:len(a)]
	n := len(a) &^ 7
	var s float32
	if n > 0 {
		s = dotAVX2(&a[0], &b[0], n)
	}
	for i := n; i < len(a); i++ {
		s += a[i] * b[i]
	}
	return s
}
