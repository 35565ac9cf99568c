package geo

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/difftest"
)

// The tests in this file compare the package with a real redis-server 7.0
// (skipped, loudly, when it is not installed).
//
// Redis computes distances with glibc's sin, cos and asin, which are one
// ulp off the correctly rounded results in about 0.1% of the calls, so a
// distance can differ from ours in its last bits. Such differences are
// counted, bounded, and accepted only where they explain what differs.

// redis starts a redis-server 7.0 for the test and connects to it.
func redis(t *testing.T) *difftest.Conn {
	t.Helper()
	c := difftest.Dial(t, difftest.StartRedis(t))
	info := c.Do("INFO", "server")
	if !strings.Contains(info, "redis_version:7.0.") {
		t.Skip("SKIPPING differential test: redis-server is not version 7.0")
	}
	return c
}

// doAll pipelines the commands and returns the raw replies.
func doAll(c *difftest.Conn, cmds [][]string) []string {
	var out []string
	for len(cmds) > 0 {
		n := min(len(cmds), 256)
		for _, cmd := range cmds[:n] {
			c.Send(difftest.Encode(cmd...))
		}
		for range n {
			out = append(out, c.Read())
		}
		cmds = cmds[n:]
	}
	return out
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func bulk(s string) string { return fmt.Sprintf("$%d\r\n%s\r\n", len(s), s) }

// parse decodes a RESP2 reply: string, int64, nil, error or []any.
func parse(t *testing.T, raw string) any {
	t.Helper()
	r := bufio.NewReader(strings.NewReader(raw))
	var read func() any
	read = func() any {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("bad reply %q", raw)
		}
		body := line[1 : len(line)-2]
		n, _ := strconv.Atoi(body)
		switch line[0] {
		case '+':
			return body
		case '-':
			return errors.New(body)
		case ':':
			return int64(n)
		case '$':
			if n < 0 {
				return nil
			}
			buf := make([]byte, n+2)
			if _, err := io.ReadFull(r, buf); err != nil {
				t.Fatalf("bad reply %q", raw)
			}
			return string(buf[:n])
		case '*':
			if n < 0 {
				return nil
			}
			a := make([]any, n)
			for i := range a {
				a[i] = read()
			}
			return a
		}
		t.Fatalf("bad reply %q", raw)
		return nil
	}
	return read()
}

// ulpsNear reports whether some float64 within k ulps of v gives want
// when formatted by format: a difference explained by libm rounding.
func ulpsNear(v float64, k int, want string, format func(float64) string) bool {
	lo, hi := v, v
	for range k {
		lo, hi = math.Nextafter(lo, math.Inf(-1)), math.Nextafter(hi, math.Inf(1))
		if format(lo) == want || format(hi) == want {
			return true
		}
	}
	return false
}

// near reports whether a and b are within k ulps of each other.
func near(a, b float64, k int64) bool {
	d := int64(math.Float64bits(a)) - int64(math.Float64bits(b))
	return a == b || math.Signbit(a) == math.Signbit(b) && -k <= d && d <= k
}

// member is a position stored in the test sorted set.
type member struct {
	name     string
	score    float64
	lon, lat float64 // decoded
}

// edgeCoords are coordinates at and around the limits.
func edgeCoords() (lons, lats []float64) {
	lons = []float64{-180, 180, 0, math.Copysign(0, -1), 1e-300, -1e-300, 1e-7, -1e-7,
		math.Nextafter(180, 0), math.Nextafter(-180, 0), 179.9999999, -179.9999999, 90, -90, 0.5, 13.361389}
	lats = []float64{LatMin, LatMax, 0, math.Nextafter(LatMax, 0), math.Nextafter(LatMin, 0),
		85.05112877, -85.05112877, 1e-300, -1e-7, 45, 66, -66, 80.0001, -80.0001, 38.115556}
	return lons, lats
}

// testPositions returns edge, random and clustered positions.
func testPositions(r *rand.Rand) [][2]float64 {
	var ps [][2]float64
	lons, lats := edgeCoords()
	for _, lon := range lons {
		for _, lat := range lats {
			ps = append(ps, [2]float64{lon, lat})
		}
	}
	for range 1500 {
		ps = append(ps, [2]float64{r.Float64()*360 - 180, r.Float64()*2*LatMax - LatMax})
	}
	// Clusters of every size, some at the poles' limits and the antimeridian.
	centers := [][2]float64{{2.35, 48.85}, {-179.99, 10}, {179.99, -10}, {0, 85}, {45, -85}, {0, 0}, {-73.98, 40.75}, {151.2, -33.86}}
	for i := range 40 {
		c := centers[i%len(centers)]
		if i >= len(centers) {
			c = [2]float64{r.Float64()*360 - 180, r.Float64()*170 - 85}
		}
		spread := math.Pow(10, -float64(r.IntN(7))) // degrees: 1 .. 1e-6
		for range 60 {
			lon := math.Max(-180, math.Min(180, c[0]+(r.Float64()*2-1)*spread))
			lat := math.Max(LatMin, math.Min(LatMax, c[1]+(r.Float64()*2-1)*spread))
			ps = append(ps, [2]float64{lon, lat})
		}
		// Same longitude cell, other latitudes: Distance's shortcut.
		for range 5 {
			ps = append(ps, [2]float64{c[0], r.Float64()*170 - 85})
		}
	}
	return ps
}

// loadPositions GEOADDs the positions to key and checks the replies and
// the scores against Encode; it returns the members in sorted-set order.
func loadPositions(t *testing.T, c *difftest.Conn, key string, ps [][2]float64) []member {
	t.Helper()
	var cmds [][]string
	for i, p := range ps {
		cmds = append(cmds, []string{"GEOADD", key, ftoa(p[0]), ftoa(p[1]), "p" + strconv.Itoa(i)})
	}
	var ms []member
	for i, reply := range doAll(c, cmds) {
		bits, err := Encode(ps[i][0], ps[i][1])
		if err != nil {
			t.Fatalf("test position %v is invalid: %v", ps[i], err)
		}
		if reply != ":1\r\n" {
			t.Fatalf("GEOADD %v: %q", ps[i], reply)
		}
		lon, lat := Decode(ScoreBits(float64(bits)))
		ms = append(ms, member{"p" + strconv.Itoa(i), float64(bits), lon, lat})
	}
	cmds = nil
	for _, m := range ms {
		cmds = append(cmds, []string{"ZSCORE", key, m.name})
	}
	for i, reply := range doAll(c, cmds) {
		s, _ := parse(t, reply).(string)
		if score, err := strconv.ParseFloat(s, 64); err != nil || score != ms[i].score {
			t.Errorf("GEOADD %v: score %q, want %v", ps[i], s, ms[i].score)
		}
	}
	slices.SortFunc(ms, func(a, b member) int {
		return cmp.Or(cmp.Compare(a.score, b.score), strings.Compare(a.name, b.name))
	})
	return ms
}

func TestRedisValidation(t *testing.T) {
	t.Parallel()
	c := redis(t)
	lons, lats := edgeCoords()
	bad := []float64{math.Nextafter(180, 200), math.Nextafter(-180, -200), math.Nextafter(LatMax, 90),
		math.Nextafter(LatMin, -90), 90, -90, 200, 1e300, -1e300, math.Inf(1), math.Inf(-1), 12.3456789}
	var pairs [][2]float64
	for _, b := range bad {
		for _, v := range append(lons[:4:4], lats[:4]...) {
			pairs = append(pairs, [2]float64{b, v}, [2]float64{v, b})
		}
	}
	var cmds [][]string
	for i, p := range pairs {
		cmds = append(cmds, []string{"GEOADD", "v", ftoa(p[0]), ftoa(p[1]), "m" + strconv.Itoa(i)})
	}
	for i, reply := range doAll(c, cmds) {
		want := ":1\r\n"
		if _, err := Encode(pairs[i][0], pairs[i][1]); err != nil {
			want = "-" + err.Error() + "\r\n"
		}
		if reply != want {
			t.Errorf("GEOADD %v: redis %q, want %q", pairs[i], reply, want)
		}
	}
	// GEOSEARCH FROMLONLAT checks the same way.
	if got, want := c.Do("GEOSEARCH", "v", "FROMLONLAT", "180.5", "-91", "BYRADIUS", "1", "m"),
		"-ERR invalid longitude,latitude pair 180.500000,-91.000000\r\n"; got != want {
		t.Errorf("GEOSEARCH: %q, want %q", got, want)
	}
	for _, c2 := range []struct{ args, want string }{
		{"BYRADIUS -1 m", ErrNegativeRadius.Error()},
		{"BYRADIUS -1 parsecs", ErrNegativeRadius.Error()},
		{"BYBOX -1 1 m", ErrNegativeBox.Error()},
		{"BYBOX 1 -0.5 km", ErrNegativeBox.Error()},
		{"BYRADIUS 1 parsecs", ErrUnit.Error()},
	} {
		args := append([]string{"GEOSEARCH", "v", "FROMLONLAT", "0", "0"}, strings.Fields(c2.args)...)
		if got := c.Do(args...); got != "-"+c2.want+"\r\n" {
			t.Errorf("%v: %q, want %q", args, got, c2.want)
		}
	}
	// Units, as GEODIST parses them.
	c.Do("GEOADD", "u", "0", "0", "a", "1", "1", "b")
	a, _ := Encode(0, 0)
	b, _ := Encode(1, 1)
	alon, alat := Decode(a)
	blon, blat := Decode(b)
	units := []string{"m", "M", "km", "Km", "kM", "KM", "ft", "FT", "fT", "mi", "Mi", "MI",
		"m\x00junk", "km\x00", "", "\x00m", "meter", "k", " m", "mi ", "kms", "mm", "\xff"}
	for _, u := range units {
		want := ""
		if conv, err := ParseUnit([]byte(u)); err != nil {
			want = "-" + err.Error() + "\r\n"
		} else {
			want = bulk(FormatDistance(Distance(alon, alat, blon, blat) / conv))
		}
		if got := c.Do("GEODIST", "u", "a", "b", u); got != want {
			t.Errorf("GEODIST unit %q: redis %q, want %q", u, got, want)
		}
	}
}

// TestRedisPositions compares GEOADD scores, GEOPOS, GEOHASH and GEODIST.
func TestRedisPositions(t *testing.T) {
	t.Parallel()
	c := redis(t)
	r := rand.New(rand.NewPCG(7, 8))
	ms := loadPositions(t, c, "k", testPositions(r))
	// Members with scores that are no geohash.
	weird := []float64{-1, -0.5, -2.5, -1e30, 1 << 52, 1<<52 - 1, 1 << 53, 1<<53 + 2, 0x1p63, 0x1p63 + 0x1p20,
		0x1p64, 1e30, math.Inf(1), math.Inf(-1), 123.75, 0x1p60 + 0x1p20, 0x1p52 + 12345}
	for i, score := range weird {
		name := "w" + strconv.Itoa(i)
		if reply := c.Do("ZADD", "k", strconv.FormatFloat(score, 'g', -1, 64), name); reply != ":1\r\n" {
			t.Fatalf("ZADD %v: %q", score, reply)
		}
		lon, lat := Decode(ScoreBits(score))
		ms = append(ms, member{name, score, lon, lat})
	}

	var cmds [][]string
	var want []string
	for chunk := range slices.Chunk(ms, 100) {
		pos := []string{"GEOPOS", "k"}
		hash := []string{"GEOHASH", "k"}
		wpos := fmt.Sprintf("*%d\r\n", len(chunk))
		whash := wpos
		for _, m := range chunk {
			pos = append(pos, m.name)
			hash = append(hash, m.name)
			wpos += "*2\r\n" + bulk(FormatCoord(m.lon)) + bulk(FormatCoord(m.lat))
			whash += bulk(HashString(ScoreBits(m.score)))
		}
		cmds = append(cmds, pos, hash)
		want = append(want, wpos, whash)
	}
	for i, reply := range doAll(c, cmds) {
		if reply != want[i] {
			t.Errorf("%.40v...\n redis %q\n want  %q", cmds[i], reply, want[i])
		}
	}

	// GEODIST of random pairs, and of pairs on one meridian, in every unit.
	type pair struct{ a, b member }
	var pairs []pair
	for range 3000 {
		pairs = append(pairs, pair{ms[r.IntN(len(ms))], ms[r.IntN(len(ms))]})
	}
	meridians := map[float64][]member{}
	for _, m := range ms {
		meridians[m.lon] = append(meridians[m.lon], m)
	}
	for _, lon := range slices.Sorted(maps.Keys(meridians)) {
		on := meridians[lon]
		for i := 1; i < len(on); i++ {
			pairs = append(pairs, pair{on[i-1], on[i]})
		}
	}
	units := []string{"m", "km", "ft", "mi"}
	cmds, want = nil, nil
	var dists []float64
	for _, p := range pairs {
		for _, u := range units {
			conv, _ := ParseUnit([]byte(u))
			d := Distance(p.a.lon, p.a.lat, p.b.lon, p.b.lat) / conv
			cmds = append(cmds, []string{"GEODIST", "k", p.a.name, p.b.name, u})
			want = append(want, FormatDistance(d))
			dists = append(dists, d)
		}
	}
	var ulpDiffs int
	for i, reply := range doAll(c, cmds) {
		got, _ := parse(t, reply).(string)
		if got == want[i] {
			continue
		}
		if ulpsNear(dists[i], 16, got, FormatDistance) {
			ulpDiffs++
			continue
		}
		t.Errorf("%q: redis %q, want %q", cmds[i], got, want[i])
	}
	t.Logf("%d GEODIST, %d differing by libm rounding", len(cmds), ulpDiffs)
	if ulpDiffs > len(cmds)/1000+1 {
		t.Errorf("too many rounding differences: %d", ulpDiffs)
	}
}

// TestRedisDistanceBits compares distances to the last bit, read back from
// GEOSEARCHSTORE ... STOREDIST scores.
func TestRedisDistanceBits(t *testing.T) {
	t.Parallel()
	c := redis(t)
	r := rand.New(rand.NewPCG(9, 10))
	ms := loadPositions(t, c, "k", testPositions(r))
	byName := map[string]member{}
	for _, m := range ms {
		byName[m.name] = m
	}
	var total, diffs, sameLon, sameLonDiffs int
	for range 25 {
		center := ms[r.IntN(len(ms))]
		reply := c.Do("GEOSEARCHSTORE", "d", "k", "FROMMEMBER", center.name, "BYRADIUS", "30000", "km", "STOREDIST")
		// Members at LatMax or LonMax have scores from 2^52 on, out of
		// every range: Redis never finds them.
		want := search(Shape{Lon: center.lon, Lat: center.lat, Radius: 30000, Unit: Kilometers}, ms)
		if n, _ := parse(t, reply).(int64); n != int64(len(want)) || n < int64(len(ms))*9/10 {
			t.Fatalf("GEOSEARCHSTORE stored %q, want %d", reply, len(want))
		}
		got := parse(t, c.Do("ZRANGE", "d", "0", "-1", "WITHSCORES")).([]any)
		for i := 0; i < len(got); i += 2 {
			m := byName[got[i].(string)]
			redisD, _ := strconv.ParseFloat(got[i+1].(string), 64)
			d := Distance(center.lon, center.lat, m.lon, m.lat) / Kilometers
			total++
			if m.lon == center.lon {
				sameLon++
			}
			if d == redisD {
				continue
			}
			if !near(d, redisD, 64) {
				t.Errorf("distance %v,%v - %v,%v: redis %v km, ours %v", center.lon, center.lat, m.lon, m.lat, redisD, d)
			}
			diffs++
			if m.lon == center.lon {
				sameLonDiffs++
			}
		}
	}
	t.Logf("%d distances, %d differ in their last bits (%d on one meridian, of %d)", total, diffs, sameLonDiffs, sameLon)
	// On one meridian the distance involves no libm function: no excuse.
	if diffs > total/100 || sameLonDiffs > 0 || sameLon < 100 {
		t.Errorf("too many distances differ: %d of %d (%d of %d on one meridian)", diffs, total, sameLonDiffs, sameLon)
	}
}

// hit is one GEOSEARCH result.
type hit struct {
	name, dist string
	hash       int64
	lon, lat   string
}

// search returns what Redis replies to GEOSEARCH ... WITHDIST WITHHASH
// WITHCOORD without sorting: the matches of each range, in order.
func search(s Shape, ms []member) []hit {
	var out []hit
	for _, r := range s.Ranges() {
		i, _ := slices.BinarySearchFunc(ms, r.Min, func(m member, v float64) int { return cmp.Compare(m.score, v) })
		for ; i < len(ms) && ms[i].score < r.Max; i++ {
			m := ms[i]
			if d, ok := s.Contains(m.lon, m.lat); ok {
				out = append(out, hit{m.name, FormatDistance(d / s.Unit), int64(m.score), FormatCoord(m.lon), FormatCoord(m.lat)})
			}
		}
	}
	return out
}

func parseHits(t *testing.T, raw string) []hit {
	rows, ok := parse(t, raw).([]any)
	if !ok {
		t.Fatalf("GEOSEARCH reply %q", raw)
	}
	var out []hit
	for _, row := range rows {
		f := row.([]any)
		pos := f[3].([]any)
		out = append(out, hit{f[0].(string), f[1].(string), f[2].(int64), pos[0].(string), pos[1].(string)})
	}
	return out
}

// onBorder reports whether the member is within a few ulps of the border
// of the shape, where libm rounding decides.
func onBorder(s Shape, m member) bool {
	if !s.Box {
		return near(Distance(s.Lon, s.Lat, m.lon, m.lat), s.Radius*s.Unit, 64)
	}
	return near(Distance(m.lon, m.lat, s.Lon, m.lat), s.Width*s.Unit/2, 64)
}

// TestRedisSearch compares GEOSEARCH BYRADIUS and BYBOX, member for member
// and in order, with Ranges and Contains.
func TestRedisSearch(t *testing.T) {
	t.Parallel()
	c := redis(t)
	r := rand.New(rand.NewPCG(11, 12))
	ms := loadPositions(t, c, "k", testPositions(r))
	byName := map[string]member{}
	for _, m := range ms {
		byName[m.name] = m
	}
	units := []string{"m", "km", "ft", "mi"}
	var shapes []Shape
	for i := range 600 {
		var s Shape
		switch i % 4 {
		case 0, 1: // around a member, sized from 1 m to 20000 km
			m := ms[r.IntN(len(ms))]
			s.Lon = math.Max(-180, math.Min(180, m.lon+r.NormFloat64()*math.Pow(10, -float64(r.IntN(7)))))
			s.Lat = math.Max(LatMin, math.Min(LatMax, m.lat+r.NormFloat64()*math.Pow(10, -float64(r.IntN(7)))))
		case 2: // anywhere
			s.Lon, s.Lat = r.Float64()*360-180, r.Float64()*2*LatMax-LatMax
		case 3: // at the limits
			lons, lats := edgeCoords()
			s.Lon, s.Lat = lons[r.IntN(len(lons))], lats[r.IntN(len(lats))]
		}
		u := units[r.IntN(len(units))]
		s.Unit, _ = ParseUnit([]byte(u))
		size := func() float64 { return math.Pow(10, r.Float64()*7) / s.Unit }
		s.Radius = size()
		if r.IntN(2) == 0 {
			s.Box, s.Width, s.Height = true, size(), size()
			if r.IntN(3) == 0 {
				s.Height = s.Width
			}
		}
		if i%50 == 0 {
			s.Radius, s.Width = 0, 0
		}
		shapes = append(shapes, s)
	}
	// Searches whose border passes exactly through a member.
	for range 150 {
		m := ms[r.IntN(len(ms))]
		o := ms[r.IntN(len(ms))]
		s := Shape{Lon: m.lon, Lat: m.lat, Unit: Meters, Radius: Distance(m.lon, m.lat, o.lon, o.lat)}
		if r.IntN(2) == 0 {
			s = Shape{Lon: m.lon, Lat: m.lat, Unit: Meters, Box: true,
				Width:  2 * Distance(o.lon, o.lat, m.lon, o.lat),
				Height: 2 * latDistance(o.lat, m.lat)}
		}
		shapes = append(shapes, s)
	}

	var cmds [][]string
	for _, s := range shapes {
		cmd := []string{"GEOSEARCH", "k", "FROMLONLAT", ftoa(s.Lon), ftoa(s.Lat)}
		unit := map[float64]string{Meters: "m", Kilometers: "km", Feet: "ft", Miles: "mi"}[s.Unit]
		if s.Box {
			cmd = append(cmd, "BYBOX", ftoa(s.Width), ftoa(s.Height), unit)
		} else {
			cmd = append(cmd, "BYRADIUS", ftoa(s.Radius), unit)
		}
		cmds = append(cmds, append(cmd, "WITHDIST", "WITHHASH", "WITHCOORD"))
	}
	var found, border, distDiffs int
	for i, reply := range doAll(c, cmds) {
		s := shapes[i]
		got, want := parseHits(t, reply), search(s, ms)
		found += len(got)
		if slices.Equal(got, want) {
			continue
		}
		// Tell the differences libm rounding explains from real ones.
		wantByName := map[string]hit{}
		for _, h := range want {
			wantByName[h.name] = h
		}
		var order []string
		for _, h := range got {
			w, ok := wantByName[h.name]
			delete(wantByName, h.name)
			m := byName[h.name]
			switch {
			case !ok && onBorder(s, m):
				border++
				continue
			case !ok:
				t.Errorf("%q: redis finds %v, we do not", cmds[i], h)
				continue
			case h.dist != w.dist:
				d, _ := s.Contains(m.lon, m.lat)
				if !ulpsNear(d/s.Unit, 16, h.dist, FormatDistance) {
					t.Errorf("%q: %s at %s, want %s", cmds[i], h.name, h.dist, w.dist)
				}
				distDiffs++
				h.dist = w.dist
			}
			if h != w {
				t.Errorf("%q: redis %v, want %v", cmds[i], h, w)
			}
			order = append(order, h.name)
		}
		for name, h := range wantByName {
			if onBorder(s, byName[name]) {
				border++
			} else {
				t.Errorf("%q: we find %v, redis does not", cmds[i], h)
			}
		}
		var wantOrder []string
		for _, h := range want {
			if slices.Contains(order, h.name) {
				wantOrder = append(wantOrder, h.name)
			}
		}
		if !slices.Equal(order, wantOrder) {
			t.Errorf("%q: redis order %v, want %v", cmds[i], order, wantOrder)
		}
	}
	t.Logf("%d searches found %d members; %d border and %d distance differences from libm rounding",
		len(cmds), found, border, distDiffs)
	if found < 20*len(cmds) {
		t.Errorf("the searches found too few members (%d) to test much", found)
	}
	if border > len(shapes)/20 || distDiffs > found/10000+1 {
		t.Errorf("too many rounding differences: %d border, %d distance", border, distDiffs)
	}
}
