package search

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// reducer is one GROUPBY reducer of one group: add takes a row (get
// returns its value of a key), result the reduced value.
type reducer interface {
	add(get func(k int) Value)
	result() Value
}

// newReducer checks a REDUCE clause against the stage's keys (key returns
// the key of a property, loading it if needs be) and returns a maker of
// the reducer for each group.
func newReducer(rs *reducerSpec, key func(name string) (int, error)) (func() reducer, error) {
	args := rs.args
	oneProp := func() (int, error) {
		if len(args) == 0 {
			return -1, errf(errReducerMissing, rs.name)
		}
		return key(args[0])
	}
	switch rs.name {
	case "COUNT":
		return func() reducer { return &countRed{} }, nil
	case "SUM", "MIN", "MAX", "AVG", "STDDEV", "COUNT_DISTINCT", "COUNT_DISTINCTISH", "TOLIST":
		k, err := oneProp()
		if err != nil {
			return nil, err
		}
		switch rs.name {
		case "SUM":
			return func() reducer { return &sumRed{k: k} }, nil
		case "AVG":
			return func() reducer { return &sumRed{k: k, avg: true} }, nil
		case "MIN":
			return func() reducer { return &minMaxRed{k: k, min: true, v: math.Inf(1)} }, nil
		case "MAX":
			return func() reducer { return &minMaxRed{k: k, v: math.Inf(-1)} }, nil
		case "STDDEV":
			return func() reducer { return &stddevRed{k: k} }, nil
		case "COUNT_DISTINCT", "COUNT_DISTINCTISH":
			return func() reducer { return &distinctRed{k: k, seen: map[string]bool{}} }, nil
		case "TOLIST":
			return func() reducer { return &distinctRed{k: k, seen: map[string]bool{}, list: true} }, nil
		}
	case "QUANTILE":
		k, err := oneProp()
		if err != nil {
			return nil, err
		}
		if len(args) < 2 {
			return nil, errf(errReducerArgs, rs.name, "Expected an argument, but none provided")
		}
		q, err := strconv.ParseFloat(args[1], 64)
		if err != nil {
			return nil, errf(errReducerArgs, rs.name, "Could not convert argument to expected type")
		}
		if q < 0 || q > 1 {
			return nil, Error(errQuantile)
		}
		return func() reducer { return &quantileRed{k: k, q: q} }, nil
	case "FIRST_VALUE":
		k, err := oneProp()
		if err != nil {
			return nil, err
		}
		by, asc := -1, true
		if len(args) > 1 {
			if !strings.EqualFold(args[1], "BY") {
				return nil, errf(errReducerArgs, rs.name, "Unknown argument `"+args[1]+"`")
			}
			if len(args) < 3 {
				return nil, errf(errReducerArgs, rs.name, "Expected an argument, but none provided")
			}
			if by, err = key(args[2]); err != nil {
				return nil, err
			}
			if len(args) > 3 {
				switch strings.ToUpper(args[3]) {
				case "ASC":
				case "DESC":
					asc = false
				default:
					return nil, errf(errReducerArgs, rs.name, "Unknown argument `"+args[3]+"`")
				}
			}
		}
		return func() reducer { return &firstRed{k: k, by: by, asc: asc} }, nil
	case "RANDOM_SAMPLE":
		k, err := oneProp()
		if err != nil {
			return nil, err
		}
		if len(args) < 2 {
			return nil, errf(errReducerArgs, rs.name, "Expected an argument, but none provided")
		}
		n, err := strconv.ParseUint(args[1], 10, 31)
		if err != nil || n == 0 || n > 1000 {
			return nil, errf(errReducerArgs, rs.name, "Could not convert argument to expected type")
		}
		return func() reducer { return &sampleRed{k: k, size: int(n)} }, nil
	}
	return nil, errf(errNoReducer, rs.name)
}

type countRed struct{ n int }

func (r *countRed) add(func(int) Value) { r.n++ }
func (r *countRed) result() Value       { return numVal(float64(r.n)) }

type sumRed struct {
	k   int
	avg bool
	sum float64
	n   int
}

// add sums the numbers; AVG divides by the number of rows, with a
// number or not, as RediSearch does.
func (r *sumRed) add(get func(int) Value) {
	if f, ok := get(r.k).toNumber(); ok {
		r.sum += f
	}
	r.n++
}

func (r *sumRed) result() Value {
	if r.avg {
		if r.n == 0 {
			return numVal(math.NaN())
		}
		return numVal(r.sum / float64(r.n))
	}
	return numVal(r.sum)
}

// minMaxRed is MIN or MAX: 0 when no row had a number, as RediSearch's.
type minMaxRed struct {
	k   int
	min bool
	v   float64
	n   int
}

func (r *minMaxRed) add(get func(int) Value) {
	if f, ok := get(r.k).toNumber(); ok {
		r.n++
		if r.min && f < r.v || !r.min && f > r.v {
			r.v = f
		}
	}
}

func (r *minMaxRed) result() Value {
	if r.n == 0 {
		return numVal(0)
	}
	return numVal(r.v)
}

// stddevRed is the sample standard deviation, by Welford's running sums
// as RediSearch computes it.
type stddevRed struct {
	k                      int
	n                      float64
	oldM, newM, oldS, newS float64
}

func (r *stddevRed) add(get func(int) Value) {
	d, ok := get(r.k).toNumber()
	if !ok {
		return
	}
	r.n++
	if r.n == 1 {
		r.oldM, r.newM, r.oldS = d, d, 0
		return
	}
	r.newM = r.oldM + (d-r.oldM)/r.n
	r.newS = r.oldS + (d-r.oldM)*(d-r.newM)
	r.oldM, r.oldS = r.newM, r.newS
}

func (r *stddevRed) result() Value {
	v := 0.0
	if r.n > 1 {
		v = r.newS / (r.n - 1)
	}
	return numVal(math.Sqrt(v))
}

// distinctRed counts the distinct values but null (COUNT_DISTINCT;
// exactly, also for COUNT_DISTINCTISH) or lists them, null included
// (TOLIST, in the order first seen).
type distinctRed struct {
	k    int
	seen map[string]bool
	list bool
	vals []Value
}

func (r *distinctRed) add(get func(int) Value) {
	v := get(r.k)
	if v.Kind == Missing || v.Kind == Null && !r.list {
		return
	}
	var b strings.Builder
	valueKey(&b, v)
	if !r.seen[b.String()] {
		r.seen[b.String()] = true
		r.vals = append(r.vals, v)
	}
}

func (r *distinctRed) result() Value {
	if r.list {
		return Value{Kind: Array, Arr: append([]Value{}, r.vals...)}
	}
	return numVal(float64(len(r.vals)))
}

// quantileRed is QUANTILE, RediSearch's streaming estimate (Cormode et
// al.'s targeted quantiles, epsilon 0.01, a buffer of 500 values): on the
// small groups where no samples merge it picks the same value.
type quantileRed struct {
	k       int
	q       float64
	buf     []float64
	samples []qSample
	n       float64
}

type qSample struct {
	v    float64
	g, d float32
}

const quantEpsilon = 0.01

func (r *quantileRed) maxVal(rank float64) float64 {
	if r.q*r.n <= rank {
		return (2 * quantEpsilon * rank) / r.q
	}
	return (2 * quantEpsilon * (r.n - rank)) / (1.0 - r.q)
}

func (r *quantileRed) add(get func(int) Value) {
	f, ok := get(r.k).toNumber()
	if !ok {
		return
	}
	r.buf = append(r.buf, f)
	if len(r.buf) == 500 {
		r.flush()
		r.compress()
	}
}

func (r *quantileRed) flush() {
	slices.Sort(r.buf)
	rank := 0.0
	pos := 0
	for _, v := range r.buf {
		s := qSample{v: v, g: 1}
		for pos < len(r.samples) && !(r.samples[pos].v > v) {
			rank += float64(r.samples[pos].g)
			pos++
		}
		if pos < len(r.samples) {
			s.d = float32(math.Floor(r.maxVal(rank)) - 1)
		}
		r.samples = slices.Insert(r.samples, pos, s)
		pos++ // the next value is compared from the same old sample on
		r.n++
	}
	r.buf = r.buf[:0]
}

func (r *quantileRed) compress() {
	if len(r.samples) < 2 {
		return
	}
	rank := r.n - 1 - float64(r.samples[len(r.samples)-1].g)
	for i := len(r.samples) - 2; i >= 0; i-- {
		cur, parent := r.samples[i], &r.samples[i+1]
		if float64(cur.g+parent.g+parent.d) <= r.maxVal(rank) {
			parent.g += cur.g
			r.samples = slices.Delete(r.samples, i, i+1)
		}
		rank -= float64(cur.g)
	}
}

func (r *quantileRed) result() Value {
	if len(r.buf) > 0 {
		r.flush()
	}
	if len(r.samples) == 0 {
		return numVal(0)
	}
	switch r.q { // RediSearch's extremes
	case 0:
		return numVal(r.samples[0].v)
	case 1:
		return numVal(r.samples[len(r.samples)-1].v)
	}
	t := math.Ceil(r.q * r.n)
	t += math.Floor(r.maxVal(t) / 2.0)
	prev := r.samples[0]
	rank := 0.0
	for _, cur := range r.samples[1:] {
		if rank+float64(cur.g)+float64(cur.d) >= t {
			break
		}
		rank += float64(cur.g)
		prev = cur
	}
	return numVal(prev.v)
}

// firstRed is FIRST_VALUE: the first row's value, or with BY the value of
// the row whose BY value sorts first.
type firstRed struct {
	k, by int
	asc   bool
	set   bool
	v, sv Value
}

func (r *firstRed) add(get func(int) Value) {
	v := get(r.k)
	if v.Kind == Missing {
		v = nullVal()
	}
	if r.by < 0 {
		if !r.set {
			r.v, r.set = v, true
		}
		return
	}
	sv := get(r.by)
	if sv.Kind == Missing {
		sv = nullVal()
	}
	if !r.set {
		r.v, r.sv, r.set = v, sv, true
		return
	}
	c := compareValues(sv, r.sv)
	if r.asc {
		c = -c
	}
	if c > 0 {
		r.v, r.sv = v, sv
	}
}

func (r *firstRed) result() Value {
	if !r.set {
		return nullVal()
	}
	return r.v
}

// sampleRed is RANDOM_SAMPLE: a reservoir of up to size values.
type sampleRed struct {
	k    int
	size int
	seen int
	vals []Value
}

func (r *sampleRed) add(get func(int) Value) {
	v := get(r.k)
	if v.isNull() {
		return
	}
	r.seen++
	if len(r.vals) < r.size {
		r.vals = append(r.vals, v)
	} else if i := rand.IntN(r.seen); i < r.size {
		r.vals[i] = v
	}
}

func (r *sampleRed) result() Value { return Value{Kind: Array, Arr: append([]Value{}, r.vals...)} }
