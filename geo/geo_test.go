package geo

import (
	"cmp"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
)

// The Sicily example of the Redis documentation, as Redis 7.0 replies it.
func TestSicily(t *testing.T) {
	type city struct {
		name     string
		lon, lat float64
		pos      [2]string
		hash     string
	}
	cities := []city{
		{"Palermo", 13.361389, 38.115556, [2]string{"13.36138933897018433", "38.11555639549629859"}, "sqc8b49rny0"},
		{"Catania", 15.087269, 37.502669, [2]string{"15.08726745843887329", "37.50266842333162032"}, "sqdtr74hyu0"},
	}
	var pos [2][2]float64
	for i, c := range cities {
		bits, err := Encode(c.lon, c.lat)
		if err != nil {
			t.Fatal(err)
		}
		lon, lat := Decode(ScoreBits(float64(bits)))
		pos[i] = [2]float64{lon, lat}
		if got := [2]string{FormatCoord(lon), FormatCoord(lat)}; got != c.pos {
			t.Errorf("%s: GEOPOS %q, want %q", c.name, got, c.pos)
		}
		if got := HashString(bits); got != c.hash {
			t.Errorf("%s: GEOHASH %q, want %q", c.name, got, c.hash)
		}
	}
	d := Distance(pos[0][0], pos[0][1], pos[1][0], pos[1][1])
	if got := FormatDistance(d); got != "166274.1516" {
		t.Errorf("GEODIST m = %s", got)
	}
	if got := FormatDistance(d / Kilometers); got != "166.2742" {
		t.Errorf("GEODIST km = %s", got)
	}
	// GEORADIUS Sicily 15 37 200 km WITHDIST
	s := Shape{Lon: 15, Lat: 37, Radius: 200, Unit: Kilometers}
	for i, want := range []string{"190.4424", "56.4413"} {
		dist, ok := s.Contains(pos[i][0], pos[i][1])
		if !ok || FormatDistance(dist/s.Unit) != want {
			t.Errorf("%s: in radius %v at %s, want %s", cities[i].name, ok, FormatDistance(dist/s.Unit), want)
		}
		bits, _ := Encode(cities[i].lon, cities[i].lat)
		if !inRanges(s.Ranges(), float64(bits)) {
			t.Errorf("%s: score outside the ranges", cities[i].name)
		}
	}
}

func inRanges(rs []Range, score float64) bool {
	return slices.ContainsFunc(rs, func(r Range) bool { return r.Min <= score && score < r.Max })
}

func TestCheckLonLat(t *testing.T) {
	for _, c := range []struct {
		lon, lat float64
		want     string
	}{
		{0, 0, ""},
		{-180, LatMin, ""},
		{180, LatMax, ""},
		{math.Nextafter(180, 200), 0, "ERR invalid longitude,latitude pair 180.000000,0.000000"},
		{-181.5, 10, "ERR invalid longitude,latitude pair -181.500000,10.000000"},
		{0, math.Nextafter(LatMax, 90), "ERR invalid longitude,latitude pair 0.000000,85.051129"},
		{12.3456789, -90, "ERR invalid longitude,latitude pair 12.345679,-90.000000"},
		{math.Inf(1), 0, "ERR invalid longitude,latitude pair inf,0.000000"},
		{0, math.Inf(-1), "ERR invalid longitude,latitude pair 0.000000,-inf"},
		{1e20, 0, "ERR invalid longitude,latitude pair 100000000000000000000.000000,0.000000"},
		{math.NaN(), 0, "ERR invalid longitude,latitude pair nan,0.000000"},
	} {
		err := CheckLonLat(c.lon, c.lat)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("CheckLonLat(%v, %v) = %q, want %q", c.lon, c.lat, got, c.want)
		}
		if _, err := Encode(c.lon, c.lat); (err != nil) != (c.want != "") {
			t.Errorf("Encode(%v, %v) error %v", c.lon, c.lat, err)
		}
	}
}

func TestParseUnit(t *testing.T) {
	for _, c := range []struct {
		u    string
		want float64
	}{
		{"m", 1}, {"M", 1}, {"km", 1000}, {"KM", 1000}, {"kM", 1000},
		{"ft", 0.3048}, {"Ft", 0.3048}, {"mi", 1609.34}, {"MI", 1609.34},
		{"m\x00junk", 1}, {"km\x00", 1000},
		{"", 0}, {"\x00m", 0}, {"meters", 0}, {"k", 0}, {" m", 0}, {"mi ", 0}, {"\u212aM", 0},
	} {
		got, err := ParseUnit([]byte(c.u))
		if c.want == 0 {
			if err == nil || err.Error() != "ERR unsupported unit provided. please use M, KM, FT, MI" {
				t.Errorf("ParseUnit(%q) = %v, %v; want ErrUnit", c.u, got, err)
			}
		} else if err != nil || got != c.want {
			t.Errorf("ParseUnit(%q) = %v, %v; want %v", c.u, got, err, c.want)
		}
	}
	if ErrNegativeRadius.Error() != "ERR radius cannot be negative" ||
		ErrNegativeBox.Error() != "ERR height or width cannot be negative" {
		t.Error("error texts changed")
	}
}

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		v          float64
		coord, dst string
	}{
		{0, "0", "0.0000"},
		{math.Copysign(0, -1), "0", "0.0000"},
		{-1e-18, "0", "0.0000"},
		{-0.00004, "-0.00004000000000000", "0.0000"},
		{-0.00006, "-0.00006000000000000", "-0.0001"},
		{-12.34567, "-12.34567000000000014", "-12.3457"},
		{1e-17, "0.00000000000000001", "0.0000"},
		{-180, "-180", "-180.0000"},
		{85.05112878, "85.05112877999999910", "85.0511"},
		{0.5, "0.5", "0.5000"},
		{0.00005, "0.00005000000000000", "0.0000"}, // 0.5 after scaling: to even
		{0.00015, "0.00015000000000000", "0.0001"}, // 1.4999999999999998 after scaling
		{0.00025, "0.00025000000000000", "0.0002"}, // 2.5 after scaling: to even
		{0.000049999, "0.00004999900000000", "0.0000"},
		{0x1p-18, "0.00000381469726562", "0.0000"}, // exact tie in "%.17f": to even
		{123456.78125, "123456.78125", "123456.7812"},
		{1620686.40665000001899898052, "1620686.40665000001899898", "1620686.4066"}, // printf: .4067
		{5450166.25714999996125698090, "5450166.25714999996125698", "5450166.2572"}, // printf: .2571
		{9.2e14, "920000000000000", "920000000000000.0000"},
		{1e15, "1000000000000000", "-922337203685477.5808"},
		{math.Inf(1), "inf", "-922337203685477.5808"},
		{math.NaN(), "nan", "-922337203685477.5808"},
	} {
		if got := FormatCoord(c.v); got != trimZeros(c.coord) {
			t.Errorf("FormatCoord(%v) = %q, want %q", c.v, got, trimZeros(c.coord))
		}
		if got := FormatDistance(c.v); got != c.dst {
			t.Errorf("FormatDistance(%v) = %q, want %q", c.v, got, c.dst)
		}
	}
}

func trimZeros(s string) string {
	for len(s) > 1 && s[len(s)-1] == '0' && slices.Contains([]byte(s), '.') {
		s = s[:len(s)-1]
	}
	if s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	return s
}

func TestScoreBits(t *testing.T) {
	for _, c := range []struct {
		score float64
		want  uint64
	}{
		{0, 0}, {1, 1}, {0x1p52 - 1, 1<<52 - 1}, {0x1p53, 1 << 53}, {1.9, 1}, {-0.5, 0},
		{-1, math.MaxUint64}, {-2.5, math.MaxUint64 - 1}, {-0x1p63, 1 << 63}, {-1e30, 1 << 63},
		{math.Inf(-1), 1 << 63}, {0x1p63, 1 << 63}, {0x1p63 + 4096, 1<<63 + 4096},
		{0x1p64, 0}, {1e30, 0}, {math.Inf(1), 0},
	} {
		if got := ScoreBits(c.score); got != c.want {
			t.Errorf("ScoreBits(%v) = %#x, want %#x", c.score, got, c.want)
		}
	}
}

func TestConstants(t *testing.T) {
	pi, d := math.Pi, 180.0 // variables: runtime IEEE arithmetic, as C
	if degToRad != pi/d {
		t.Errorf("degToRad = %v, want %v", degToRad, pi/d)
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		lon := r.Float64()*360 - 180
		lat := r.Float64()*2*LatMax - LatMax
		bits, err := Encode(lon, lat)
		if err != nil {
			t.Fatal(err)
		}
		if bits >= 1<<52 {
			t.Fatalf("Encode(%v, %v) = %#x, over 52 bits", lon, lat, bits)
		}
		dlon, dlat := Decode(bits)
		// The cell is 360/2^26 by 170.1/2^26 degrees.
		if math.Abs(dlon-lon) > 360.0/(1<<27)*1.0001 || math.Abs(dlat-lat) > 2*LatMax/(1<<27)*1.0001 {
			t.Fatalf("Decode(Encode(%v, %v)) = %v, %v", lon, lat, dlon, dlat)
		}
		if again, _ := Encode(dlon, dlat); again != bits {
			t.Fatalf("the center of %#x encodes to %#x", bits, again)
		}
	}
	// The maximum values overflow the 26 bits of their coordinate, as in Redis.
	if bits, _ := Encode(LonMax, 0); bits < 1<<53 {
		t.Errorf("Encode(180, 0) = %#x, want the overflow bit 53", bits)
	}
	if bits, _ := Encode(0, LatMax); bits < 1<<52 || bits >= 1<<53 {
		t.Errorf("Encode(0, LatMax) = %#x, want the overflow bit 52", bits)
	}
}

func TestNeighbors(t *testing.T) {
	lonR, latR := wgs84()
	h, _ := encode(lonR, latR, 10, 20, 8)
	c := decode(lonR, latR, h)
	cells := neighbors(h)
	for i, dir := range [9][2]int{{0, 0}, {0, 1}, {0, -1}, {1, 0}, {-1, 0}, {1, 1}, {-1, 1}, {1, -1}, {-1, -1}} {
		a := decode(lonR, latR, cells[i])
		dlon := (a.lon.min - c.lon.min) / (c.lon.max - c.lon.min)
		dlat := (a.lat.min - c.lat.min) / (c.lat.max - c.lat.min)
		if math.Round(dlon) != float64(dir[0]) || math.Round(dlat) != float64(dir[1]) {
			t.Errorf("cell %d is at %v, %v cells from the center, want %v", i, dlon, dlat, dir)
		}
	}
	// Neighbors wrap around the world.
	h, _ = encode(lonR, latR, 179.9, 0, 8)
	if a := decode(lonR, latR, neighbors(h)[cellEast]); a.lon.min != -180 {
		t.Errorf("east of 179.9 starts at %v", a.lon.min)
	}
}

func TestEstimateSteps(t *testing.T) {
	for _, c := range []struct {
		meters, lat float64
		want        uint
	}{
		{0, 0, 26}, {1, 0, 24}, {1000, 0, 14}, {100000, 0, 7}, {100000, 70, 6}, {100000, -81, 5},
		{5e6, 0, 2}, {1.1e7, 0, 1}, {1e9, 0, 1}, {math.Inf(1), 0, 1}, {1e-300, 0, 26}, {-1, 0, 1},
	} {
		if got := estimateSteps(c.meters, c.lat); got != c.want {
			t.Errorf("estimateSteps(%v, %v) = %d, want %d", c.meters, c.lat, got, c.want)
		}
	}
}

// The ranges of a search are disjoint and hold the center's score.
func TestRangesCoverCenter(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 5000 {
		s := Shape{
			Lon: r.Float64()*360 - 180, Lat: r.Float64()*2*LatMax - LatMax,
			Radius: math.Pow(10, r.Float64()*8), Unit: Meters,
			Box: r.IntN(2) == 0, Width: math.Pow(10, r.Float64()*8), Height: math.Pow(10, r.Float64()*8),
		}
		rs := s.Ranges()
		if len(rs) == 0 || len(rs) > 9 {
			t.Fatalf("%+v: %d ranges", s, len(rs))
		}
		bits, _ := Encode(s.Lon, s.Lat)
		if !inRanges(rs, float64(bits)) {
			t.Fatalf("%+v: the center %v is outside %v", s, bits, rs)
		}
		slices.SortFunc(rs, func(a, b Range) int { return cmp.Compare(a.Min, b.Min) })
		for i := 1; i < len(rs); i++ {
			if rs[i].Min < rs[i-1].Max {
				t.Fatalf("%+v: overlapping ranges %v", s, rs)
			}
		}
	}
}

func TestContainsBox(t *testing.T) {
	s := Shape{Lon: 0, Lat: 0, Box: true, Width: 200, Height: 100, Unit: Kilometers}
	for _, c := range []struct {
		lon, lat float64
		in       bool
	}{
		{0, 0, true}, {0.89, 0, true}, {0.91, 0, false}, {0, 0.44, true}, {0, 0.46, false},
		{0.89, 0.44, true}, {-0.89, -0.44, true}, {0.89, 0.46, false},
	} {
		if _, ok := s.Contains(c.lon, c.lat); ok != c.in {
			t.Errorf("box contains %v, %v: %v", c.lon, c.lat, ok)
		}
	}
}

// sin, cos and asin are correctly rounded: checked against 300-bit
// references.
func TestXMathCorrectlyRounded(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	n := 300
	if testing.Short() {
		n = 50
	}
	for i := range n {
		x := (r.Float64()*2 - 1) * 4
		if i%3 == 0 {
			x = math.Ldexp(x, -r.IntN(60))
		}
		if got, want := sin(x), bigSin(x); got != want {
			t.Errorf("sin(%v) = %v, want %v", x, got, want)
		}
		if got, want := cos(x), bigCos(x); got != want {
			t.Errorf("cos(%v) = %v, want %v", x, got, want)
		}
		y := r.Float64()
		switch i % 3 {
		case 0:
			y = math.Ldexp(y, -r.IntN(60))
		case 1:
			y = 1 - math.Ldexp(y, -r.IntN(53))
		}
		if got, want := asin(y), bigAsin(y); got != want {
			t.Errorf("asin(%v) = %v, want %v", y, got, want)
		}
		if got, want := asin(-y), -bigAsin(y); got != want {
			t.Errorf("asin(%v) = %v, want %v", -y, got, want)
		}
	}
	for _, c := range [][2]float64{{0, 0}, {1, math.Pi / 2}, {-1, -math.Pi / 2}} {
		if got := asin(c[0]); got != c[1] {
			t.Errorf("asin(%v) = %v, want %v", c[0], got, c[1])
		}
	}
	if !math.IsNaN(asin(math.Nextafter(1, 2))) || !math.IsNaN(asin(math.NaN())) {
		t.Error("asin outside [-1, 1] is not NaN")
	}
	if sin(1e300) != math.Sin(1e300) || cos(-1e10) != math.Cos(-1e10) {
		t.Error("huge arguments do not fall back to package math")
	}
}

// The fast paths of sin, cos and asin stay within their error bounds, and
// decide the rounding as the slow ones do.
func TestXMathFastPath(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	n := 200000
	if testing.Short() {
		n = 20000
	}
	var fallbacks int
	check := func(name string, x float64, fast, slow dd, bound float64) {
		if e := math.Abs(fast.add(slow.neg()).hi / slow.hi); e > bound/8 {
			t.Fatalf("%s(%v): fast path off by 2^%.1f", name, x, math.Log2(e))
		}
		if v, ok := fast.rounded(bound); !ok {
			fallbacks++
		} else if v != slow.hi {
			t.Fatalf("%s(%v): fast path rounds to %v, not %v", name, x, v, slow.hi)
		}
	}
	for i := range n {
		x := (r.Float64()*2 - 1) * fastLimit
		if i%4 == 0 {
			x = math.Ldexp(x, -r.IntN(60))
		}
		fs, fc := sinCosFast(x)
		ss, sc := sinCosSlow(x)
		check("sin", x, fs, ss, fastSinCosErr)
		check("cos", x, fc, sc, fastSinCosErr)
		y := r.Float64()
		switch i % 3 {
		case 0:
			y = math.Ldexp(y, -r.IntN(60))
		case 1:
			y = 1 - math.Ldexp(y, -r.IntN(53))
		}
		if y < 1 {
			check("asin", y, asinDD(y, sinCosFast), asinDD(y, sinCosSlow), fastAsinErr)
		}
	}
	if fallbacks > 3*n/100 {
		t.Errorf("%d fallbacks to the slow path in %d calls", fallbacks, 3*n)
	}
}

const refPrec = 256

func bigF(x float64) *big.Float { return new(big.Float).SetPrec(refPrec).SetFloat64(x) }

// bigSinCos sums the Taylor series of sin (odd) or cos (even) at x.
func bigSinCos(x *big.Float, odd bool) *big.Float {
	x2 := bigF(0).Mul(x, x)
	term, n := bigF(1), 1
	if odd {
		term, n = bigF(0).Set(x), 2
	}
	sum := bigF(0).Set(term)
	eps := bigF(0x1p-250)
	for ; bigF(0).Abs(term).Cmp(eps) > 0; n += 2 {
		term.Mul(term, x2)
		term.Quo(term, bigF(float64(n*(n+1))))
		term.Neg(term)
		sum.Add(sum, term)
	}
	return sum
}

func bigSin(x float64) float64 { f, _ := bigSinCos(bigF(x), true).Float64(); return f }
func bigCos(x float64) float64 { f, _ := bigSinCos(bigF(x), false).Float64(); return f }

// bigAsin solves sin(x) = y by Newton's method.
func bigAsin(y float64) float64 {
	x := bigF(math.Asin(y))
	for range 5 {
		s := bigSinCos(x, true)
		s.Sub(s, bigF(y))
		x.Sub(x, s.Quo(s, bigSinCos(x, false)))
	}
	f, _ := x.Float64()
	return f
}

func BenchmarkEncode(b *testing.B) {
	for i := range b.N {
		Encode(float64(i%360)-179.5, 45.123)
	}
}

func BenchmarkDecode(b *testing.B) {
	for i := range b.N {
		Decode(uint64(i) * 0x9e3779b97f4a7)
	}
}

func BenchmarkDistance(b *testing.B) {
	for i := range b.N {
		Distance(13.361389, 38.115556, 15.087269+float64(i%7), 37.502669)
	}
}

func BenchmarkMathDistance(b *testing.B) {
	// The same formula with package math, for comparison.
	for i := range b.N {
		lat1, lon1 := degRad(38.115556), degRad(13.361389)
		lat2, lon2 := degRad(37.502669), degRad(15.087269+float64(i%7))
		u, v := math.Sin((lat2-lat1)/2), math.Sin((lon2-lon1)/2)
		_ = 2 * earthRadius * math.Asin(math.Sqrt(u*u+math.Cos(lat1)*math.Cos(lat2)*v*v))
	}
}

func BenchmarkRanges(b *testing.B) {
	s := Shape{Lon: 13.361389, Lat: 38.115556, Radius: 200, Unit: Kilometers}
	for range b.N {
		s.Ranges()
	}
}

func BenchmarkContainsBox(b *testing.B) {
	s := Shape{Lon: 13.361389, Lat: 38.115556, Box: true, Width: 400, Height: 300, Unit: Kilometers}
	for i := range b.N {
		s.Contains(15.087269+float64(i%7)*0.1, 37.502669)
	}
}
