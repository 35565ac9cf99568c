package search

import (
	"math"
	"slices"
	"strings"

	"github.com/hotkv/hotkv/geo"
	"github.com/hotkv/hotkv/zset"
)

// GEO fields, as RediSearch 2.10 indexes them: a value "lon,lat" (or
// "lon lat") is stored as its 52-bit geohash in a numeric range tree, and
// a radius query (@field:[lon lat radius unit], or GEOFILTER) is a union
// of up to nine numeric readers, one per geohash cell around the center
// (RediSearch's copy of Redis's older geohash helper, geo.SearchRanges),
// each reading the tree's entries in that cell's range that lie within
// the radius.
//
// The range tree is modelled as one leaf (RediSearch's holds its first
// values in one leaf and splits it as distinct values grow): a cell's
// reader exists when the cell's range meets the span of the values
// indexed, and estimates the leaf's entries. Over many distinct values
// RediSearch's leaves split, which can change which readers exist and so
// a score's "slop" (see doc.go).

// geoStore is a GEO field's index.
type geoStore struct {
	ids      []uint32 // ascending
	vals     map[uint32]float64
	min, max float64 // the span of the values indexed (the leaf's range)
	any      bool
}

func newGeoStore() *geoStore { return &geoStore{vals: map[uint32]float64{}} }

func (g *geoStore) put(id uint32, v float64) {
	g.ids = append(g.ids, id) // ids only grow
	g.vals[id] = v
	if !g.any || v < g.min {
		g.min = v
	}
	if !g.any || v > g.max {
		g.max = v
	}
	g.any = true
}

func (g *geoStore) del(id uint32) {
	if i, ok := slices.BinarySearch(g.ids, id); ok {
		g.ids = slices.Delete(g.ids, i, i+1)
	}
	delete(g.vals, id)
}

// geoHash parses a GEO value as RediSearch does (the longitude
// up to the first space or comma, the latitude after it, each read whole
// by strtod; an empty one is 0) and returns its geohash; false for a value
// that cannot be indexed.
func geoHash(v []byte) (float64, bool) {
	if len(v) > 128 {
		return 0, false
	}
	i := slices.IndexFunc(v, func(c byte) bool { return c == ' ' || c == ',' })
	if i < 0 {
		return 0, false
	}
	lon, ok1 := strtodWhole(v[:i])
	lat, ok2 := strtodWhole(v[i+1:])
	if !ok1 || !ok2 || math.IsNaN(lon) || math.IsNaN(lat) {
		// NaN passes RediSearch's checks and is encoded as garbage:
		// refused here.
		return 0, false
	}
	bits, err := geo.Encode(lon, lat)
	if err != nil {
		return 0, false
	}
	return float64(bits), true
}

// strtodWhole is C's strtod that must read all of b (as "*end == 0"):
// an empty b reads as 0.
func strtodWhole(b []byte) (float64, bool) {
	if i := slices.Index(b, 0); i >= 0 {
		b = b[:i]
	}
	v, n, _ := zset.Strtod(b)
	return v, n == len(b)
}

// geoFilter is a radius query: @field:[lon lat radius unit] or GEOFILTER.
type geoFilter struct {
	lon, lat, radius float64
	unit             float64 // meters per unit
}

// geoUnit returns the meters of a RediSearch distance unit, 0 for none.
func geoUnit(u string) float64 {
	switch strings.ToLower(u) {
	case "m":
		return 1
	case "km":
		return 1000
	case "ft":
		return 0.3048
	case "mi":
		return 1609.34
	}
	return 0
}

// validate returns the error a radius query's unit, coordinates or radius
// gets.
func (gf *geoFilter) validate() error {
	switch {
	case gf.unit == 0:
		return Error(errGeoUnit)
	case gf.lat > 90 || gf.lat < -90 || gf.lon > 180 || gf.lon < -180:
		return Error(errGeoLatLon)
	case gf.radius <= 0:
		return Error(errGeoRadius)
	}
	return nil
}

// geoIter is a radius query's iterator: a reader per cell around the center
// whose range meets the values indexed, their union (quick exit) when
// more than one, nil when none.
func (e *evaluator) geoIter(f *Field, gf *geoFilter) iterator {
	g := e.ix.geos[f.slot]
	if !g.any || gf.radius <= 0 || gf.lon > geo.LonMax || gf.lon < geo.LonMin ||
		gf.lat > geo.LatMax || gf.lat < geo.LatMin {
		return nil
	}
	radius := gf.radius * gf.unit
	ranges, ok := geo.SearchRanges(gf.lon, gf.lat, radius)
	var kids []iterator
	for i, r := range ranges {
		if !ok[i] || r.Min > g.max || r.Max < g.min {
			continue
		}
		lo, hi := r.Min, r.Max
		ids := g.ids
		it := &listIter{ids: ids, count: len(ids)}
		it.rec.kind, it.rec.freq = resNumeric, 1
		it.keep = func(i int) bool {
			v := g.vals[ids[i]]
			if v < lo || v > hi {
				return false
			}
			lon, lat := geo.Decode(uint64(v))
			return !(geo.SearchDistance(gf.lon, gf.lat, lon, lat) > radius)
		}
		kids = append(kids, it)
	}
	switch len(kids) {
	case 0:
		return nil
	case 1:
		return kids[0]
	}
	return newUnion(kids, true)
}
