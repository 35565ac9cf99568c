package hll

import "math"

// alphaInf is 0.5/ln(2), Redis's HLL_ALPHA_INF.
const alphaInf = 0.721347520444481703680

// histogram counts registers by value: h[v] is the number of registers
// holding v (0 to 63). It is the input of the estimator.
type histogram [64]int

// addDense counts the dense registers r (Redis's hllDenseRegHisto).
func (h *histogram) addDense(r []byte) {
	for i := 0; i+3 <= len(r); i += 3 {
		r0, r1, r2, r3 := unpack4(r[i], r[i+1], r[i+2])
		h[r0]++
		h[r1]++
		h[r2]++
		h[r3]++
	}
}

// addSparse counts the registers of the sparse opcodes p and reports
// whether they cover exactly 16384 registers (Redis's hllSparseRegHisto;
// a false result is ErrInvalid).
func (h *histogram) addSparse(p []byte) bool {
	n := 0
	for i := 0; i < len(p); {
		span, val, size := opcode(p, i, 0)
		n += span
		h[val] += span
		i += size
	}
	return n == numRegisters
}

// addRaw counts registers kept one per byte (Redis's hllRawRegHisto).
func (h *histogram) addRaw(regs *[numRegisters]uint8) {
	for _, v := range regs {
		h[v]++
	}
}

// estimate returns the cardinality estimate of the registers counted in h:
// Otmar Ertl's improved estimator ("New cardinality estimation algorithms
// for HyperLogLog sketches", arXiv:1702.01284) with the exact floating
// point steps of Redis's hllCount, so that results match to the unit.
// Where Redis's llroundl overflows (only for forged registers above 50)
// the result is 1<<63, which Redis replies as -9223372036854775808.
func (h *histogram) estimate() uint64 {
	m := float64(numRegisters)
	z := m * tau((m-float64(h[hllQ+1]))/m)
	for j := hllQ; j >= 1; j-- {
		z += float64(h[j])
		z *= 0.5
	}
	z += float64(m * sigma(float64(h[0])/m))
	e := math.Round(alphaInf * m * m / z)
	if !(e < 1<<63) {
		return 1 << 63
	}
	return uint64(e)
}

// sigma is Ertl's sigma function (Redis's hllSigma), for 0 <= x <= 1.
// The explicit float64 conversions keep Go from fusing a multiply and an
// add, which would round differently from Redis.
func sigma(x float64) float64 {
	if x == 1 {
		return math.Inf(1)
	}
	y, z := 1.0, x
	for {
		x *= x
		zPrime := z
		z += float64(x * y)
		y += y
		if z == zPrime {
			return z
		}
	}
}

// tau is Ertl's tau function (Redis's hllTau), for 0 <= x <= 1.
func tau(x float64) float64 {
	if x == 0 || x == 1 {
		return 0
	}
	y, z := 1.0, 1-x
	for {
		x = math.Sqrt(x)
		zPrime := z
		y *= 0.5
		d := 1 - x
		z -= float64(float64(d*d) * y)
		if z == zPrime {
			return z / 3
		}
	}
}
