package search

// l2f32Fast and dotf32Fast, when the CPU has what they need (set at
// start-up on amd64 with AVX2 and FMA: vecsimd_amd64.go), are l2 and dot
// for float32 vectors in SIMD instructions; nil elsewhere.
var l2f32Fast, dotf32Fast func(a, b []float32) float32

// l2f32Batch, when set, computes l2 of q and each of len(out) vectors
// stored end to end in data, into out, for a q whose length is a multiple
// of 8.
var l2f32Batch func(q, data, out []float32)
