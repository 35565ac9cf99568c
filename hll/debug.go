package hll

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// The introspection PFDEBUG and PFSELFTEST offer (Redis's pfdebugCommand
// and pfselftestCommand).

// ErrNotSparse is PFDEBUG DECODE's reply for a dense value.
const ErrNotSparse Error = "ERR HLL encoding is not sparse"

// Sparse reports whether the valid value v uses the sparse encoding.
func Sparse(v []byte) bool { return !isDense(v) }

// ToDense returns v in the dense encoding (PFDEBUG TODENSE), converting a
// sparse v, and whether it converted. The value must be valid (Validate);
// ErrInvalid for a corrupted sparse one.
func ToDense(v []byte) (nv []byte, converted bool, err error) {
	if isDense(v) {
		return v, false, nil
	}
	x := value{b: v}
	if err := x.toDense(); err != nil {
		return v, false, err
	}
	return x.b, true, nil
}

// Registers returns the 16384 registers of the valid dense value v
// (PFDEBUG GETREG, after ToDense).
func Registers(v []byte) []uint8 {
	regs := make([]uint8, numRegisters)
	r := v[hdrSize:]
	for i := range regs {
		regs[i] = denseGet(r, i)
	}
	return regs
}

// Decode describes the opcodes of the valid sparse value v as PFDEBUG
// DECODE does: "z:<len>" for ZERO, "Z:<len>" for XZERO, "v:<value>,<len>"
// for VAL, separated by spaces. ErrNotSparse for a dense value.
func Decode(v []byte) (string, error) {
	if isDense(v) {
		return "", ErrNotSparse
	}
	var b strings.Builder
	p := v[hdrSize:]
	for i, size := 0, 0; i < len(p); i += size {
		var span int
		var val uint8
		span, val, size = opcode(p, i, 0)
		switch {
		case isVal(p[i]):
			fmt.Fprintf(&b, "v:%d,%d ", val, span)
		case isZero(p[i]):
			fmt.Fprintf(&b, "z:%d ", span)
		default:
			fmt.Fprintf(&b, "Z:%d ", span)
		}
	}
	return strings.TrimRight(b.String(), " "), nil
}

// SelfTest checks the dense register layout and the estimator, as Redis's
// PFSELFTEST does: every register set and read back through random values,
// then 100,000 distinct elements added to a sparse and a dense value, their
// counts equal to each other and within Redis's error bound of the truth
// at every power of ten. It returns the failure, or nil.
func SelfTest() error {
	// Registers: set in order, read back, twice over with fresh values.
	r := make([]byte, denseBytes)
	want := make([]uint8, numRegisters)
	for round := 0; round < 2; round++ {
		clear(r)
		for i := range want {
			want[i] = uint8(rand.IntN(regMax + 1))
			setRegister(r, i, want[i])
		}
		for i, w := range want {
			if got := denseGet(r, i); got != w {
				return fmt.Errorf("TESTFAILED Register error at %d", i)
			}
		}
	}
	// The estimator, on both encodings.
	sparse := New()
	dense, _, err := ToDense(New())
	if err != nil {
		return err
	}
	relerr := 1.04 / math.Sqrt(numRegisters)
	seed := rand.Uint64()
	elem := make([]byte, 8)
	next := uint64(10)
	for j := uint64(1); j <= 100000; j++ {
		x := seed + j
		for i := range elem {
			elem[i] = byte(x >> (8 * i))
		}
		if sparse, _, err = Add(sparse, DefaultSparseMaxBytes, elem); err != nil {
			return err
		}
		if dense, _, err = Add(dense, DefaultSparseMaxBytes, elem); err != nil {
			return err
		}
		if j != next {
			continue
		}
		next *= 10
		var cs, cd uint64
		if cs, sparse, _, err = Count(sparse); err != nil {
			return err
		}
		if cd, dense, _, err = Count(dense); err != nil {
			return err
		}
		if cs != cd {
			return fmt.Errorf("TESTFAILED sparse count %d differs from dense count %d after %d elements", cs, cd, j)
		}
		// Redis's bound: 5 standard errors (6 for the smallest counts).
		maxerr := relerr * 5
		if j == 10 {
			maxerr = 1
		}
		if e := math.Abs(float64(cd)-float64(j)) / float64(j); e > maxerr {
			return fmt.Errorf("TESTFAILED Too big error. card:%d abserr:%f", j, e)
		}
	}
	return nil
}
