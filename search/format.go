package search

import (
	"math"
	"math/big"
	"math/bits"
	"strconv"
)

// FormatScore formats a score as RediSearch's replies do: Redis 7.4's
// addReplyDouble (d2string): inf, -inf, nan, 0 and -0; an integer up to
// 2^62 in magnitude in full; else fpconv_dtoa's digits (Grisu2: short, but
// not always the shortest that read back as the same double), written
// plainly for integers below 10^(digits+7) and decimals within 7 places or
// above 0.0001, else as d.ddde±x.
func FormatScore(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	case f == 0 && math.Signbit(f):
		return "-0"
	case f >= -(1<<62) && f <= 1<<62 && f == math.Trunc(f):
		return strconv.FormatInt(int64(f), 10)
	}
	return string(appendGrisu(nil, f))
}

// appendGrisu appends fpconv_dtoa's text of a finite f.
func appendGrisu(dst []byte, f float64) []byte {
	neg := math.Signbit(f)
	if neg {
		dst = append(dst, '-')
	}
	if f == 0 {
		return append(dst, '0')
	}
	var buf [20]byte
	digits, k := grisu2(math.Abs(f), buf[:0])
	return emitDigits(dst, digits, k, neg)
}

// diyFp is a floating-point number f × 2^e with a 64-bit significand.
type diyFp struct {
	f uint64
	e int
}

const (
	fpFracMask  = 1<<52 - 1
	fpHiddenBit = 1 << 52
	fpExpBias   = 1023 + 52
)

func fpOf(d float64) diyFp {
	b := math.Float64bits(d)
	fp := diyFp{f: b & fpFracMask, e: int(b >> 52 & 0x7FF)}
	if fp.e != 0 {
		fp.f += fpHiddenBit
		fp.e -= fpExpBias
	} else {
		fp.e = 1 - fpExpBias
	}
	return fp
}

func (fp diyFp) normalized() diyFp {
	for fp.f&fpHiddenBit == 0 {
		fp.f <<= 1
		fp.e--
	}
	return diyFp{fp.f << 11, fp.e - 11}
}

// boundaries returns the normalized neighbours halfway to the doubles
// below and above fp, with the same exponent.
func (fp diyFp) boundaries() (lower, upper diyFp) {
	upper = diyFp{fp.f<<1 + 1, fp.e - 1}
	for upper.f&(fpHiddenBit<<1) == 0 {
		upper.f <<= 1
		upper.e--
	}
	upper = diyFp{upper.f << 10, upper.e - 10}
	shift := 1
	if fp.f == fpHiddenBit {
		shift = 2
	}
	lower = diyFp{fp.f<<shift - 1, fp.e - shift}
	lower = diyFp{lower.f << uint(lower.e-upper.e), upper.e}
	return lower, upper
}

// mul is the product's upper 64 bits, rounded half up.
func (a diyFp) mul(b diyFp) diyFp {
	hi, lo := bits.Mul64(a.f, b.f)
	if _, carry := bits.Add64(lo, 1<<63, 0); carry != 0 {
		hi++
	}
	return diyFp{hi, a.e + b.e + 64}
}

// Grisu's cached powers of ten: 10^(firstPow10 + 8i), normalized and
// rounded to nearest, computed once.
const (
	firstPow10 = -348
	stepPow10  = 8
	numPow10   = 87
)

var cachedPow10 = func() [numPow10]diyFp {
	var out [numPow10]diyFp
	for i := range out {
		k := firstPow10 + stepPow10*i
		// 10^k as an exact rational, scaled by 2^-e into [2^63, 2^64).
		r := new(big.Rat)
		if k >= 0 {
			r.SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(k)), nil))
		} else {
			r.SetFrac(big.NewInt(1), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-k)), nil))
		}
		// e ≈ log2(10^k) - 63, adjusted until the rounded significand
		// has 64 bits.
		e := int(math.Floor(float64(k)*math.Log2(10))) - 63
		for {
			q := roundRat(new(big.Rat).Mul(r, pow2Rat(-e)))
			if n := q.BitLen(); n > 64 {
				e++
			} else if n < 64 {
				e--
			} else {
				out[i] = diyFp{q.Uint64(), e}
				break
			}
		}
	}
	return out
}()

func pow2Rat(n int) *big.Rat {
	if n >= 0 {
		return new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(n)))
	}
	return new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), uint(-n)))
}

// roundRat rounds r (positive) to the nearest integer, halves up.
func roundRat(r *big.Rat) *big.Int {
	num := new(big.Int).Mul(r.Num(), big.NewInt(2))
	num.Add(num, r.Denom())
	den := new(big.Int).Mul(r.Denom(), big.NewInt(2))
	return num.Quo(num, den)
}

// cachedPow10For returns the cached power c whose product with a number
// of binary exponent e has its exponent in [-60, -32], and its decimal
// exponent.
func cachedPow10For(e int) (diyFp, int) {
	approx := int(float64(-(e + numPow10)) * 0.30102999566398114)
	idx := (approx - firstPow10) / stepPow10
	for {
		switch cur := e + cachedPow10[idx].e + 64; {
		case cur < -60:
			idx++
		case cur > -32:
			idx--
		default:
			return cachedPow10[idx], firstPow10 + idx*stepPow10
		}
	}
}

var pow10u64 = [...]uint64{
	1e19, 1e18, 1e17, 1e16, 1e15, 1e14, 1e13, 1e12, 1e11, 1e10,
	1e9, 1e8, 1e7, 1e6, 1e5, 1e4, 1e3, 100, 10, 1,
}

// grisu2 appends d's digits to digits and returns them with the decimal
// exponent of the last one.
func grisu2(d float64, digits []byte) ([]byte, int) {
	w := fpOf(d)
	lower, upper := w.boundaries()
	w = w.normalized()
	c, k := cachedPow10For(upper.e)
	w, upper, lower = w.mul(c), upper.mul(c), lower.mul(c)
	lower.f++
	upper.f--
	K := -k

	wfrac := upper.f - w.f
	delta := upper.f - lower.f
	shift := uint(-upper.e)
	one := uint64(1) << shift
	part1 := upper.f >> shift
	part2 := upper.f & (one - 1)
	kappa := 10
	for i := 10; kappa > 0; i++ {
		div := pow10u64[i]
		digit := part1 / div
		if digit != 0 || len(digits) > 0 {
			digits = append(digits, byte(digit)+'0')
		}
		part1 -= digit * div
		kappa--
		if rest := part1<<shift + part2; rest <= delta {
			roundLastDigit(digits, delta, rest, div<<shift, wfrac)
			return digits, K + kappa
		}
	}
	for unit := 18; ; unit-- {
		part2 *= 10
		delta *= 10
		kappa--
		digit := part2 >> shift
		if digit != 0 || len(digits) > 0 {
			digits = append(digits, byte(digit)+'0')
		}
		part2 &= one - 1
		if part2 < delta {
			roundLastDigit(digits, delta, part2, one, wfrac*pow10u64[unit])
			return digits, K + kappa
		}
	}
}

// roundLastDigit moves the last digit towards the exact value while the
// result stays within the boundaries (Grisu's weeding).
func roundLastDigit(digits []byte, delta, rest, ten, wfrac uint64) {
	for rest < wfrac && delta-rest >= ten && (rest+ten < wfrac || wfrac-rest > rest+ten-wfrac) {
		digits[len(digits)-1]--
		rest += ten
	}
}

// emitDigits writes digits × 10^k as fpconv's emit_digits.
func emitDigits(dst, digits []byte, k int, neg bool) []byte {
	nd := len(digits)
	exp := k + nd - 1
	if exp < 0 {
		exp = -exp
	}
	switch {
	case k >= 0 && exp < nd+7:
		dst = append(dst, digits...)
		for range k {
			dst = append(dst, '0')
		}
		return dst
	case k < 0 && (k > -7 || exp < 4):
		off := nd + k
		if off <= 0 {
			dst = append(dst, '0', '.')
			for range -off {
				dst = append(dst, '0')
			}
			return append(dst, digits...)
		}
		dst = append(dst, digits[:off]...)
		dst = append(dst, '.')
		return append(dst, digits[off:]...)
	}
	if max := 18; neg && nd > max-1 {
		nd = max - 1
	} else if nd > max {
		nd = max
	}
	dst = append(dst, digits[0])
	if nd > 1 {
		dst = append(dst, '.')
		dst = append(dst, digits[1:nd]...)
	}
	dst = append(dst, 'e')
	if k+nd-1 < 0 {
		dst = append(dst, '-')
	} else {
		dst = append(dst, '+')
	}
	return strconv.AppendInt(dst, int64(exp), 10)
}
