package geo

import "math"

// RediSearch 2.10 indexes GEO fields with its own copy of Redis's geohash
// helper (deps/geohash), older than Redis 7.0's: the bounding box uses the
// cosine of the center's latitude, the step is decreased when a neighbor's
// border is nearer than the radius (measured with the haversine formula,
// without Redis 7.0's latitude-only shortcut), and the nine cells are the
// same otherwise. SearchRanges and SearchDistance are that code.

// SearchDistance is RediSearch's geohashGetDistance: the haversine
// distance in meters, with no shortcut for equal longitudes.
func SearchDistance(lon1, lat1, lon2, lat2 float64) float64 {
	lat1r, lon1r := degRad(lat1), degRad(lon1)
	lat2r, lon2r := degRad(lat2), degRad(lon2)
	u := sin((lat2r - lat1r) / 2)
	v := sin((lon2r - lon1r) / 2)
	a := float64(u*u) + float64(float64(float64(cos(lat1r)*cos(lat2r))*v)*v)
	return 2.0 * earthRadius * asin(math.Sqrt(a))
}

// SearchRanges returns the geohash ranges [Min, Max] (52-bit scores) a
// RediSearch GEO query of radiusM meters around lon, lat reads
// (calcRanges: geohashGetAreasByRadiusWGS84, then the center and its eight
// neighbors in that order, leaving out zeroed cells and a cell equal to
// the one kept before it). Each is indexed by its cell (0 the center, then
// north, south, east, west, north-east, north-west, south-east,
// south-west); ok[i] is false for the cells left out.
func SearchRanges(lon, lat, radiusM float64) (out [9]Range, ok [9]bool) {
	cells := searchCells(lon, lat, radiusM)
	last := 0
	for i, c := range cells {
		if c.isZero() || last != 0 && c == cells[last] {
			continue
		}
		next := hashBits{c.bits + 1, c.step}
		out[i] = Range{float64(align52(c)), float64(align52(next))}
		ok[i] = out[i].Min != out[i].Max
		last = i
	}
	return out, ok
}

// searchCells is RediSearch's geohashGetAreasByRadius.
func searchCells(lon, lat, radiusM float64) [9]hashBits {
	d := radDeg(radiusM / earthRadius / cos(degRad(lat)))
	minLon, maxLon := lon-d, lon+d
	dl := radDeg(radiusM / earthRadius)
	minLat, maxLat := lat-dl, lat+dl

	steps := searchSteps(radiusM, lat)
	lonR, latR := wgs84()
	enc := func(step uint) hashBits {
		h, ok := encode(lonR, latR, lon, lat, step)
		if !ok {
			return hashBits{0, step} // geohashEncode zeroes the bits first
		}
		return h
	}
	hash := enc(steps)
	cells := neighbors(hash)
	north := decode(lonR, latR, cells[cellNorth])
	south := decode(lonR, latR, cells[cellSouth])
	east := decode(lonR, latR, cells[cellEast])
	west := decode(lonR, latR, cells[cellWest])
	decrease := SearchDistance(lon, lat, lon, north.lat.max) < radiusM ||
		SearchDistance(lon, lat, lon, south.lat.min) < radiusM ||
		SearchDistance(lon, lat, east.lon.max, lat) < radiusM ||
		SearchDistance(lon, lat, west.lon.min, lat) < radiusM
	if steps > 1 && decrease {
		steps--
		hash = enc(steps)
		cells = neighbors(hash)
	}
	if steps >= 2 {
		a := decode(lonR, latR, hash)
		if a.lat.min < minLat {
			zero(&cells, cellSouth, cellSouthWest, cellSouthEast)
		}
		if a.lat.max > maxLat {
			zero(&cells, cellNorth, cellNorthEast, cellNorthWest)
		}
		if a.lon.min < minLon {
			zero(&cells, cellWest, cellSouthWest, cellNorthWest)
		}
		if a.lon.max > maxLon {
			zero(&cells, cellEast, cellSouthEast, cellNorthEast)
		}
	}
	return cells
}

// searchSteps is geohashEstimateStepsByRadius (RediSearch's copy, which
// has no guard for a negative radius: RediSearch refuses those before).
func searchSteps(rangeMeters, lat float64) uint {
	if rangeMeters == 0 {
		return 26
	}
	step := 1
	for rangeMeters < mercatorMax && rangeMeters > 0 {
		rangeMeters *= 2
		step++
	}
	step -= 2
	if lat > 66 || lat < -66 {
		step--
		if lat > 80 || lat < -80 {
			step--
		}
	}
	return uint(min(max(step, 1), StepMax))
}
