package geo

import "math"

// This file is the search part of src/geohash_helper.c and src/geo.c.

const (
	degToRad    = 0x1.1df46a2529d39p-6 // M_PI / 180.0 as C rounds it (D_R)
	earthRadius = 6372797.560856       // EARTH_RADIUS_IN_METERS
	mercatorMax = 20037726.37          // MERCATOR_MAX
)

func degRad(ang float64) float64 { return float64(ang * degToRad) }
func radDeg(ang float64) float64 { return ang / degToRad }

// Distance returns the great-circle distance in meters between two
// positions given in degrees, as Redis 7.0.15 computes it
// (geohashGetDistance): the haversine formula on a sphere of radius
// 6372797.560856 m, or, when the longitudes give a zero sine, the
// latitude-only distance of latDistance.
func Distance(lon1, lat1, lon2, lat2 float64) float64 {
	lon1r, lon2r := degRad(lon1), degRad(lon2)
	v := sin((lon2r - lon1r) / 2)
	if v == 0 {
		return latDistance(lat1, lat2)
	}
	lat1r, lat2r := degRad(lat1), degRad(lat2)
	u := sin((lat2r - lat1r) / 2)
	a := float64(u*u) + float64(float64(float64(cos(lat1r)*cos(lat2r))*v)*v)
	return 2.0 * earthRadius * asin(math.Sqrt(a))
}

// latDistance is geohashGetLatDistance: the distance between two
// latitudes on one meridian (the haversine formula simplified).
func latDistance(lat1, lat2 float64) float64 {
	return earthRadius * math.Abs(degRad(lat2)-degRad(lat1))
}

// Shape is the area of a GEOSEARCH or GEORADIUS query (GeoShape): a circle
// of Radius (BYRADIUS) or, when Box is set, a rectangle Width wide (east to
// west) and Height high (BYBOX), around the center Lon, Lat. Sizes are in
// units of Unit meters (see ParseUnit), as the command gave them. The
// center must pass CheckLonLat, the sizes must not be negative (Redis
// replies ErrNegativeRadius or ErrNegativeBox) and Unit must be positive.
type Shape struct {
	Lon, Lat      float64
	Radius        float64
	Width, Height float64
	Box           bool
	Unit          float64
}

// Range is the span of sorted-set scores Min <= score < Max covering one
// geohash cell.
type Range struct{ Min, Max float64 }

// Ranges returns the score ranges to scan for candidates, in the order
// Redis scans them (membersOfAllNeighbors): the cell of the center, then its
// north, south, east, west, north-east, north-west, south-east and
// south-west neighbors, leaving out those geohashCalculateAreasByShapeWGS84
// excludes and those equal to the one scanned just before. Within a range
// Redis visits the members in sorted-set order (score, then member), and a
// GEOSEARCH without ASC, DESC or COUNT replies them in that order. For a
// COUNT ... ANY search Redis stops scanning, between ranges or within one,
// as soon as it holds COUNT matches.
func (s Shape) Ranges() []Range {
	cells := s.cells()
	out := make([]Range, 0, len(cells))
	last := 0
	for i, c := range cells {
		if c.isZero() || last != 0 && c == cells[last] {
			continue
		}
		next := hashBits{c.bits + 1, c.step}
		out = append(out, Range{float64(align52(c)), float64(align52(next))})
		last = i
	}
	return out
}

// Contains reports whether the position lon, lat (a decoded member) is in
// the shape, and its distance in meters from the center, as Redis filters
// candidates: geohashGetDistanceIfInRadiusWGS84 for a circle,
// geohashGetDistanceIfInRectangle for a box. Divide the distance by Unit to
// reply it. dist is meaningless when ok is false.
func (s Shape) Contains(lon, lat float64) (dist float64, ok bool) {
	if s.Box {
		return inRectangle(s.Width*s.Unit, s.Height*s.Unit, s.Lon, s.Lat, lon, lat)
	}
	dist = Distance(s.Lon, s.Lat, lon, lat)
	return dist, !(dist > s.Radius*s.Unit)
}

// inRectangle is geohashGetDistanceIfInRectangle: the north-south distance
// of x2, y2 from the center x1, y1, then its east-west distance along its
// own latitude, must not exceed half the height and the width.
func inRectangle(widthM, heightM, x1, y1, x2, y2 float64) (float64, bool) {
	if latDistance(y2, y1) > heightM/2 {
		return 0, false
	}
	if Distance(x2, y2, x1, y2) > widthM/2 {
		return 0, false
	}
	return Distance(x1, y1, x2, y2), true
}

// boundingBox is geohashBoundingBox: the longitudes and latitudes the
// shape spans.
func (s Shape) boundingBox() (minLon, minLat, maxLon, maxLat float64) {
	height, width := s.Unit*s.Radius, s.Unit*s.Radius
	if s.Box {
		height, width = s.Unit*(s.Height/2), s.Unit*(s.Width/2)
	}
	latDelta := radDeg(height / earthRadius)
	lonDeltaTop := radDeg(width / earthRadius / cos(degRad(s.Lat+latDelta)))
	lonDeltaBottom := radDeg(width / earthRadius / cos(degRad(s.Lat-latDelta)))
	lonDelta := lonDeltaTop
	if s.Lat < 0 {
		lonDelta = lonDeltaBottom
	}
	return s.Lon - lonDelta, s.Lat - latDelta, s.Lon + lonDelta, s.Lat + latDelta
}

// radiusMeters is the radius geohashCalculateAreasByShapeWGS84 sizes the
// cells for: the radius, or the half diagonal of the box.
func (s Shape) radiusMeters() float64 {
	r := s.Radius
	if s.Box {
		w, h := s.Width/2, s.Height/2
		r = math.Sqrt(float64(w*w) + float64(h*h))
	}
	return r * s.Unit
}

// estimateSteps is geohashEstimateStepsByRadius: the precision of the nine
// cells for a search of rangeMeters around latitude lat.
func estimateSteps(rangeMeters, lat float64) uint {
	if rangeMeters == 0 {
		return StepMax
	}
	step := 1
	// rangeMeters > 0 only guards against a negative size looping forever.
	for rangeMeters < mercatorMax && rangeMeters > 0 {
		rangeMeters *= 2
		step++
	}
	step -= 2 // make sure the range is included in most of the base cases
	// Wider cells towards the poles.
	if lat > 66 || lat < -66 {
		step--
		if lat > 80 || lat < -80 {
			step--
		}
	}
	return uint(min(max(step, 1), StepMax))
}

// cells is geohashCalculateAreasByShapeWGS84: the nine cells covering the
// shape, indexed by the cell constants, the useless ones zeroed.
func (s Shape) cells() [9]hashBits {
	minLon, minLat, maxLon, maxLat := s.boundingBox()
	steps := estimateSteps(s.radiusMeters(), s.Lat)
	lonR, latR := wgs84()

	hash, _ := encode(lonR, latR, s.Lon, s.Lat, steps)
	cells := neighbors(hash)
	// Decrease the step when a neighbor does not reach the limits of the
	// search area.
	north := decode(lonR, latR, cells[cellNorth])
	south := decode(lonR, latR, cells[cellSouth])
	east := decode(lonR, latR, cells[cellEast])
	west := decode(lonR, latR, cells[cellWest])
	if steps > 1 && (north.lat.max < maxLat || south.lat.min > minLat ||
		east.lon.max < maxLon || west.lon.min > minLon) {
		steps--
		hash, _ = encode(lonR, latR, s.Lon, s.Lat, steps)
		cells = neighbors(hash)
	}
	if steps < 2 {
		return cells
	}
	// Exclude the cells beyond the search area.
	center := decode(lonR, latR, hash)
	if center.lat.min < minLat {
		zero(&cells, cellSouth, cellSouthWest, cellSouthEast)
	}
	if center.lat.max > maxLat {
		zero(&cells, cellNorth, cellNorthEast, cellNorthWest)
	}
	if center.lon.min < minLon {
		zero(&cells, cellWest, cellSouthWest, cellNorthWest)
	}
	if center.lon.max > maxLon {
		zero(&cells, cellEast, cellSouthEast, cellNorthEast)
	}
	return cells
}

func zero(cells *[9]hashBits, which ...int) {
	for _, i := range which {
		cells[i] = hashBits{}
	}
}
