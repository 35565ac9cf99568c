package search

import (
	"math"
	"math/big"
	"math/bits"
	"strconv"
)

// Redis 7.4 writes a module's doubles (RedisModule_ReplyWithDouble, so
// RediSearch's scores) with d2string: integers as integers, others with
// fpconv_dtoa, Florian Loitsch's Grisu2. Grisu2's digits read back as
// the same double but are not always the shortest ("1.6174430124381871"
// where Go writes "1.617443012438187"), so FormatScore follows it.
//
// This is a port of Redis's deps/fpconv (Copyright (c) 2021, Redis Labs;
// 2013-2019, night-shift; 2009, Florian Loitsch; Boost Software License
// 1.0), its table of cached powers computed rather than copied.

// gfp is a floating-point value frac * 2^exp of Grisu's arithmetic.
type gfp struct {
	frac uint64
	exp  int
}

const (
	gFirstPower = -348 // the cached powers: 10^-348, 10^-340, ... 10^340
	gStepPowers = 8
	gNumPowers  = 87
	gExpMin     = -60 // the binary exponents a scaled value may have
	gExpMax     = -32
)

// gPowers are the cached powers of ten, 10^(gFirstPower + 8i), as 64-bit
// significands rounded to nearest (Grisu's table, computed).
var gPowers = func() [gNumPowers]gfp {
	var out [gNumPowers]gfp
	for i := range out {
		k := gFirstPower + i*gStepPowers
		// 10^k exactly (a rational), then rounded to 64 bits.
		num, den := big.NewInt(1), big.NewInt(1)
		p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(k))), nil)
		if k >= 0 {
			num = p
		} else {
			den = p
		}
		// Scale to [2^63, 2^64): frac = round(num/den * 2^-e).
		e := num.BitLen() - den.BitLen() - 64
		n, d := new(big.Int).Set(num), new(big.Int).Set(den)
		if e < 0 {
			n.Lsh(n, uint(-e))
		} else {
			d.Lsh(d, uint(e))
		}
		q, r := new(big.Int).QuoRem(n, d, new(big.Int))
		for q.BitLen() > 64 {
			e++
			d.Lsh(d, 1)
			q, r = new(big.Int).QuoRem(n, d, new(big.Int))
		}
		for q.BitLen() < 64 {
			e--
			n.Lsh(n, 1)
			q, r = new(big.Int).QuoRem(n, d, new(big.Int))
		}
		if r.Lsh(r, 1).Cmp(d) >= 0 {
			q.Add(q, big.NewInt(1))
			if q.BitLen() > 64 {
				q.Rsh(q, 1)
				e++
			}
		}
		out[i] = gfp{q.Uint64(), e}
	}
	return out
}()

func abs(k int) int {
	if k < 0 {
		return -k
	}
	return k
}

// gCachedPow10 returns the cached power of ten that brings a value of
// binary exponent exp into [gExpMin, gExpMax], and its decimal exponent.
func gCachedPow10(exp int) (gfp, int) {
	approx := int(float64(-(exp + gNumPowers)) * 0.30102999566398114)
	i := (approx - gFirstPower) / gStepPowers
	for {
		switch cur := exp + gPowers[i].exp + 64; {
		case cur < gExpMin:
			i++
		case cur > gExpMax:
			i--
		default:
			return gPowers[i], gFirstPower + i*gStepPowers
		}
	}
}

// gMul is the product's high 64 bits, rounded.
func gMul(a, b gfp) gfp {
	hi, lo := bits.Mul64(a.frac, b.frac)
	if lo&(1<<63) != 0 {
		hi++
	}
	return gfp{hi, a.exp + b.exp + 64}
}

// grisu2 returns the digits of d > 0 and their decimal exponent K
// (d ~ digits * 10^K).
func grisu2(d float64) ([]byte, int) {
	const hidden = uint64(1) << 52
	b := math.Float64bits(d)
	w := gfp{b & (hidden - 1), int(b>>52) & 0x7FF}
	if w.exp != 0 {
		w.frac += hidden
		w.exp -= 1023 + 52
	} else {
		w.exp = -(1023 + 52) + 1
	}
	// The boundaries halfway to the neighbouring doubles.
	upper := gfp{w.frac<<1 + 1, w.exp - 1}
	for upper.frac&(hidden<<1) == 0 {
		upper.frac <<= 1
		upper.exp--
	}
	upper.frac <<= 64 - 52 - 2
	upper.exp -= 64 - 52 - 2
	lshift := 1
	if w.frac == hidden {
		lshift = 2
	}
	lower := gfp{w.frac<<lshift - 1, w.exp - lshift}
	lower.frac <<= uint(lower.exp - upper.exp)
	lower.exp = upper.exp
	for w.frac&hidden == 0 {
		w.frac <<= 1
		w.exp--
	}
	w.frac <<= 64 - 52 - 1
	w.exp -= 64 - 52 - 1

	cp, k := gCachedPow10(upper.exp)
	w, upper, lower = gMul(w, cp), gMul(upper, cp), gMul(lower, cp)
	lower.frac++
	upper.frac--
	return gDigits(w, upper, lower, -k)
}

var gTens = [...]uint64{1e19, 1e18, 1e17, 1e16, 1e15, 1e14, 1e13, 1e12, 1e11, 1e10,
	1e9, 1e8, 1e7, 1e6, 1e5, 1e4, 1e3, 1e2, 1e1, 1}

// gRound moves the last digit down while that brings it nearer w.
func gRound(digits []byte, delta, rem, kappa, frac uint64) {
	for rem < frac && delta-rem >= kappa && (rem+kappa < frac || frac-rem > rem+kappa-frac) {
		digits[len(digits)-1]--
		rem += kappa
	}
}

// gDigits generates the digits of upper within its distance to lower,
// rounded towards w.
func gDigits(w, upper, lower gfp, K int) ([]byte, int) {
	wfrac := upper.frac - w.frac
	delta := upper.frac - lower.frac
	shift := uint(-upper.exp)
	one := uint64(1) << shift
	part1 := upper.frac >> shift
	part2 := upper.frac & (one - 1)
	var digits []byte
	kappa := 10
	for i := 10; kappa > 0; i++ {
		div := gTens[i]
		digit := part1 / div
		if digit != 0 || len(digits) > 0 {
			digits = append(digits, byte(digit)+'0')
		}
		part1 -= digit * div
		kappa--
		if tmp := part1<<shift + part2; tmp <= delta {
			gRound(digits, delta, tmp, div<<shift, wfrac)
			return digits, K + kappa
		}
	}
	unit := 18
	for {
		part2 *= 10
		delta *= 10
		kappa--
		digit := part2 >> shift
		if digit != 0 || len(digits) > 0 {
			digits = append(digits, byte(digit)+'0')
		}
		part2 &= one - 1
		if part2 < delta {
			gRound(digits, delta, part2, one, wfrac*gTens[unit])
			return digits, K + kappa
		}
		unit--
	}
}

// appendGrisu appends fpconv_dtoa's text of a finite, non-zero d.
func appendGrisu(dst []byte, d float64) []byte {
	neg := d < 0
	if neg {
		dst = append(dst, '-')
		d = -d
	}
	digits, K := grisu2(d)
	nd := len(digits)
	exp := abs(K + nd - 1)
	switch {
	case K >= 0 && exp < nd+7: // an integer
		dst = append(dst, digits...)
		for range K {
			dst = append(dst, '0')
		}
		return dst
	case K < 0 && (K > -7 || exp < 4): // a decimal
		if off := nd + K; off <= 0 {
			dst = append(dst, '0', '.')
			for range -off {
				dst = append(dst, '0')
			}
			return append(dst, digits...)
		} else {
			dst = append(dst, digits[:off]...)
			dst = append(dst, '.')
			return append(dst, digits[off:]...)
		}
	}
	// Scientific notation.
	nd = min(nd, 18-b2int(neg))
	dst = append(dst, digits[0])
	if nd > 1 {
		dst = append(dst, '.')
		dst = append(dst, digits[1:nd]...)
	}
	dst = append(dst, 'e')
	if K+nd-1 < 0 {
		dst = append(dst, '-')
	} else {
		dst = append(dst, '+')
	}
	cent := 0
	if exp > 99 {
		cent = exp / 100
		dst = append(dst, byte(cent)+'0')
		exp -= cent * 100
	}
	if exp > 9 {
		dst = append(dst, byte(exp/10)+'0')
		exp %= 10
	} else if cent != 0 {
		dst = append(dst, '0')
	}
	return append(dst, byte(exp)+'0')
}

// formatD2String is Redis 7.4's d2string: nan, inf, -inf, 0 and -0, an
// integral value within ±2^62 as an integer, else fpconv_dtoa's text.
func formatD2String(d float64) string {
	switch {
	case math.IsNaN(d):
		return "nan"
	case math.IsInf(d, 1):
		return "inf"
	case math.IsInf(d, -1):
		return "-inf"
	case d == 0:
		if math.Signbit(d) {
			return "-0"
		}
		return "0"
	case d >= -float64(math.MaxInt64/2) && d <= float64(math.MaxInt64/2) && d == math.Trunc(d):
		return strconv.FormatInt(int64(d), 10)
	}
	return string(appendGrisu(nil, d))
}

// b2int is 1 for true, 0 for false.
func b2int(b bool) int {
	if b {
		return 1
	}
	return 0
}
