package geo

import "math"

// This file holds correctly rounded sin, cos and asin. Redis computes its
// distances with glibc's libm, whose results are the correctly rounded ones
// in all but about 0.1% of the calls, while Go's math package is one ulp
// away in 20% to 30% of them. Rounding once a result known to about 104 bits
// reproduces glibc's bits, except where glibc itself is off.
//
// Each function first computes its result to about 67 bits, which decides
// the rounding in more than 99% of the calls (Ziv's strategy); otherwise it
// computes the result again in double-double arithmetic to about 104 bits.

// dd is the unevaluated sum hi+lo of two float64, |lo| <= ulp(hi)/2 when
// normalized.
type dd struct{ hi, lo float64 }

// twoSum returns a+b exactly as a dd.
func twoSum(a, b float64) dd {
	s := a + b
	bb := s - a
	return dd{s, (a - (s - bb)) + (b - bb)}
}

// fastTwoSum is twoSum for |a| >= |b| (or a == 0).
func fastTwoSum(a, b float64) dd {
	s := a + b
	return dd{s, b - (s - a)}
}

// twoProd returns a*b exactly as a dd.
func twoProd(a, b float64) dd {
	p := a * b
	return dd{p, math.FMA(a, b, -p)}
}

func (a dd) add(b dd) dd {
	s := twoSum(a.hi, b.hi)
	t := twoSum(a.lo, b.lo)
	s = fastTwoSum(s.hi, s.lo+t.hi)
	return fastTwoSum(s.hi, s.lo+t.lo)
}

func (a dd) neg() dd { return dd{-a.hi, -a.lo} }

func (a dd) mul(b dd) dd {
	p := twoProd(a.hi, b.hi)
	return fastTwoSum(p.hi, p.lo+(a.hi*b.lo+a.lo*b.hi))
}

// div returns a/b for a float64 b.
func (a dd) div(b float64) dd {
	q := a.hi / b
	p := twoProd(q, b)
	return fastTwoSum(q, (a.hi-p.hi-p.lo+a.lo)/b)
}

// rounded returns the normalized a rounded to float64, and whether an
// error of up to relErr*|a| cannot change that rounding.
func (a dd) rounded(relErr float64) (float64, bool) {
	e := relErr * math.Abs(a.hi)
	return a.hi, a.hi+(a.lo+e) == a.hi && a.hi+(a.lo-e) == a.hi
}

// pi/2 as the sum of three float64.
const (
	pio2a = 0x1.921fb54442d18p+0
	pio2b = 0x1.1a62633145c07p-54
	pio2c = -0x1.f1976b7ed8fbcp-110
)

const (
	// fastLimit bounds the arguments of the fast sin and cos, where the
	// reduction by pi/2 is exact enough; distances need |x| <= pi.
	fastLimit = 8
	// reduceLimit bounds the arguments reduced in double-double; beyond
	// it Go's math is used. Only absurd search sizes get there, where the
	// result does not matter.
	reduceLimit = 1 << 20
	// Relative error bounds of the fast results, with a margin.
	fastSinCosErr = 0x1p-64
	fastAsinErr   = 0x1p-62
)

// reduce returns r = x - k*pi/2 to about 104 bits, |r| <= pi/4, and k mod 4.
func reduce(x float64) (dd, int) {
	k := math.Round(x * (2 / math.Pi))
	r := dd{x, 0}
	if k != 0 {
		r = r.add(twoProd(-k, pio2a)).add(twoProd(-k, pio2b)).add(dd{-k * pio2c, 0})
	}
	return r, int(int64(k) & 3)
}

// quadrant turns sin(r), cos(r) into sin(x), cos(x) for x = r + q*pi/2.
func quadrant(s, c dd, q int) (dd, dd) {
	switch q {
	case 1:
		return c, s.neg()
	case 2:
		return s.neg(), c.neg()
	case 3:
		return c.neg(), s
	}
	return s, c
}

// sinCosTable holds sin(j/64) and cos(j/64) to about 104 bits, for
// 0 <= j/64 <= pi/4. Computed once; read only.
var sinCosTable = func() (t [51][2]dd) {
	for j := range t {
		a := dd{float64(j) / 64, 0}
		t[j] = [2]dd{sinTaylor(a), cosTaylor(a)}
	}
	return t
}()

// sinCosFast returns sin(x) and cos(x) with a relative error below
// fastSinCosErr, for |x| <= fastLimit: x is reduced to r = j/64 + t, and
// sin(t), cos(t) are combined with the table.
func sinCosFast(x float64) (dd, dd) {
	r, q := reduce(x)
	j := math.Round(r.hi * 64)
	st, ct := sinCosSmall(twoSum(r.hi-j/64, r.lo)) // r.hi - j/64 is exact
	e := sinCosTable[int(math.Abs(j))]
	sa, ca := e[0], e[1]
	if j < 0 {
		sa = sa.neg()
	}
	s := sa.mul(ct).add(ca.mul(st))
	c := ca.mul(ct).add(sa.mul(st).neg())
	return quadrant(s, c, q)
}

// sinCosSmall returns sin(t) and cos(t) for |t| <= 1/128 (plus rounding),
// to about 2^-67 and 2^-83 relative: the leading terms of the Taylor series
// exactly, the others in float64.
func sinCosSmall(t dd) (dd, dd) {
	th, tl := t.hi, t.lo
	t2 := th * th
	p := th * t2 * (-1.0/6 + t2*(1.0/120+t2*(-1.0/5040+t2*(1.0/362880))))
	s := twoSum(th, tl+p)
	sq := twoProd(th, th)
	q := -sq.lo/2 - th*tl + t2*t2*(1.0/24+t2*(-1.0/720+t2*(1.0/40320)))
	c := dd{1, 0}.add(dd{-sq.hi / 2, q})
	return s, c
}

// sinCosSlow returns sin(x) and cos(x) to about 104 bits, for
// |x| <= reduceLimit.
func sinCosSlow(x float64) (dd, dd) {
	r, q := reduce(x)
	return quadrant(sinTaylor(r), cosTaylor(r), q)
}

// sinTaylor sums the Taylor series of sin for |r| <= pi/4.
func sinTaylor(r dd) dd {
	r2 := r.mul(r).neg()
	term, sum := r, r
	for n := 2.0; math.Abs(term.hi) > 0x1p-112*math.Abs(sum.hi); n += 2 {
		term = term.mul(r2).div(n * (n + 1))
		sum = sum.add(term)
	}
	return sum
}

// cosTaylor sums the Taylor series of cos for |r| <= pi/4.
func cosTaylor(r dd) dd {
	r2 := r.mul(r).neg()
	term, sum := dd{1, 0}, dd{1, 0}
	for n := 1.0; math.Abs(term.hi) > 0x1p-112; n += 2 {
		term = term.mul(r2).div(n * (n + 1))
		sum = sum.add(term)
	}
	return sum
}

// sin returns the correctly rounded sine of x.
func sin(x float64) float64 {
	if math.Abs(x) <= fastLimit {
		s, _ := sinCosFast(x)
		if v, ok := s.rounded(fastSinCosErr); ok {
			return v
		}
	}
	if !(math.Abs(x) <= reduceLimit) {
		return math.Sin(x)
	}
	s, _ := sinCosSlow(x)
	return s.hi
}

// cos returns the correctly rounded cosine of x.
func cos(x float64) float64 {
	if math.Abs(x) <= fastLimit {
		_, c := sinCosFast(x)
		if v, ok := c.rounded(fastSinCosErr); ok {
			return v
		}
	}
	if !(math.Abs(x) <= reduceLimit) {
		return math.Cos(x)
	}
	_, c := sinCosSlow(x)
	return c.hi
}

// asin returns the correctly rounded arc sine of y; NaN outside [-1, 1].
func asin(y float64) float64 {
	switch {
	case y != y:
		return y
	case y < 0:
		return -asin(-y)
	case y > 1:
		return math.NaN()
	case y == 1:
		return pio2a
	}
	if v, ok := asinDD(y, sinCosFast).rounded(fastAsinErr); ok {
		return v
	}
	return asinDD(y, sinCosSlow).hi
}

// asinDD returns asin(y) for 0 <= y < 1 with the precision of sinCos:
// asin(y) = pi/2 - 2 asin(sqrt((1-y)/2)) brings y above 0.5 below it, and
// one Newton step refines Go's estimate.
func asinDD(y float64, sinCos func(float64) (dd, dd)) dd {
	if y <= 0.5 {
		return asinNewton(dd{y, 0}, sinCos)
	}
	w := (1 - y) / 2 // exact
	s := math.Sqrt(w)
	z := fastTwoSum(s, math.FMA(-s, s, w)/(2*s))
	t := asinNewton(z, sinCos)
	return dd{pio2a, pio2b}.add(dd{pio2c, 0}).add(dd{-2 * t.hi, -2 * t.lo})
}

// asinNewton returns asin(z) for 0 <= z <= 0.5.
func asinNewton(z dd, sinCos func(float64) (dd, dd)) dd {
	x0 := math.Asin(z.hi)
	s, c := sinCos(x0)
	return fastTwoSum(x0, z.add(s.neg()).hi/c.hi)
}
