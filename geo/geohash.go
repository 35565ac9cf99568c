package geo

// This file is src/geohash.c. Products that C rounds before an addition
// are wrapped in float64() so that Go never fuses them into an FMA.

// hashBits is a geohash of 2*step bits (GeoHashBits).
type hashBits struct {
	bits uint64
	step uint
}

// isZero reports a hash zeroed by GZERO (HASHISZERO).
func (h hashBits) isZero() bool { return h.bits == 0 && h.step == 0 }

// coordRange is a GeoHashRange.
type coordRange struct{ min, max float64 }

// area is a GeoHashArea: the cell a hash covers.
type area struct{ lon, lat coordRange }

// wgs84 returns the ranges Redis indexes (geohashGetCoordRange).
func wgs84() (lon, lat coordRange) {
	return coordRange{LonMin, LonMax}, coordRange{LatMin, LatMax}
}

// interleave64 puts the bits of x in the even positions and those of y in
// the odd ones.
func interleave64(xlo, ylo uint32) uint64 {
	x, y := uint64(xlo), uint64(ylo)
	x = (x | x<<16) & 0x0000FFFF0000FFFF
	y = (y | y<<16) & 0x0000FFFF0000FFFF
	x = (x | x<<8) & 0x00FF00FF00FF00FF
	y = (y | y<<8) & 0x00FF00FF00FF00FF
	x = (x | x<<4) & 0x0F0F0F0F0F0F0F0F
	y = (y | y<<4) & 0x0F0F0F0F0F0F0F0F
	x = (x | x<<2) & 0x3333333333333333
	y = (y | y<<2) & 0x3333333333333333
	x = (x | x<<1) & 0x5555555555555555
	y = (y | y<<1) & 0x5555555555555555
	return x | y<<1
}

// deinterleave64 undoes interleave64: x in the low 32 bits, y in the high.
func deinterleave64(v uint64) uint64 {
	x, y := v, v>>1
	x &= 0x5555555555555555
	y &= 0x5555555555555555
	x = (x | x>>1) & 0x3333333333333333
	y = (y | y>>1) & 0x3333333333333333
	x = (x | x>>2) & 0x0F0F0F0F0F0F0F0F
	y = (y | y>>2) & 0x0F0F0F0F0F0F0F0F
	x = (x | x>>4) & 0x00FF00FF00FF00FF
	y = (y | y>>4) & 0x00FF00FF00FF00FF
	x = (x | x>>8) & 0x0000FFFF0000FFFF
	y = (y | y>>8) & 0x0000FFFF0000FFFF
	x = (x | x>>16) & 0x00000000FFFFFFFF
	y = (y | y>>16) & 0x00000000FFFFFFFF
	return x | y<<32
}

// encode is geohashEncode: latitude bits in the even positions, longitude
// bits in the odd ones; false outside the WGS84 limits or the ranges.
func encode(lonR, latR coordRange, lon, lat float64, step uint) (hashBits, bool) {
	if !(lon >= LonMin && lon <= LonMax && lat >= LatMin && lat <= LatMax) ||
		lat < latR.min || lat > latR.max || lon < lonR.min || lon > lonR.max {
		return hashBits{}, false
	}
	latOffset := (lat - latR.min) / (latR.max - latR.min)
	lonOffset := (lon - lonR.min) / (lonR.max - lonR.min)
	scale := float64(uint64(1) << step)
	// An offset of exactly 1 (lat == max or lon == max) sets bit 'step',
	// overflowing into the next pair of bits, as in Redis.
	return hashBits{interleave64(uint32(latOffset*scale), uint32(lonOffset*scale)), step}, true
}

// decode is geohashDecode: the cell of h. The cell indexes are 32-bit
// unsigned integers, as in C (index+1 wraps).
func decode(lonR, latR coordRange, h hashBits) area {
	sep := deinterleave64(h.bits)
	ilat, ilon := uint32(sep), uint32(sep>>32)
	return area{
		lon: cellRange(lonR, ilon, h.step),
		lat: cellRange(latR, ilat, h.step),
	}
}

func cellRange(r coordRange, i uint32, step uint) coordRange {
	scale := r.max - r.min
	div := float64(uint64(1) << step)
	return coordRange{
		min: r.min + float64(float64(i)/div*scale),
		max: r.min + float64(float64(i+1)/div*scale),
	}
}

// center is geohashDecodeAreaToLongLat: the middle of the cell, clamped to
// the WGS84 limits.
func (a area) center() (lon, lat float64) {
	lon = clamp((a.lon.min+a.lon.max)/2, LonMin, LonMax)
	lat = clamp((a.lat.min+a.lat.max)/2, LatMin, LatMax)
	return lon, lat
}

func clamp(v, lo, hi float64) float64 {
	if v > hi {
		v = hi
	}
	if v < lo {
		v = lo
	}
	return v
}

// align52 is geohashAlign52Bits.
func align52(h hashBits) uint64 { return h.bits << (52 - h.step*2) }

// moveX is geohash_move_x: one cell east (d > 0) or west (d < 0).
func moveX(h hashBits, d int) hashBits { return move(h, d, 0xaaaaaaaaaaaaaaaa) }

// moveY is geohash_move_y: one cell north (d > 0) or south (d < 0).
func moveY(h hashBits, d int) hashBits { return move(h, d, 0x5555555555555555) }

// move moves h one cell along the axis whose interleaved bits are mask,
// forward when d > 0 and back when d < 0, as Redis's geohash_move_x and
// geohash_move_y do.
func move(h hashBits, d int, mask uint64) hashBits {
	if d == 0 {
		return h
	}
	v := h.bits & mask
	other := h.bits &^ mask
	zz := ^mask >> (64 - h.step*2)
	if d > 0 {
		v += zz + 1
	} else {
		v |= zz
		v -= zz + 1
	}
	v &= mask >> (64 - h.step*2)
	return hashBits{v | other, h.step}
}

// The nine cells of a search, in the order Redis scans them
// (membersOfAllNeighbors).
const (
	cellCenter = iota
	cellNorth
	cellSouth
	cellEast
	cellWest
	cellNorthEast
	cellNorthWest
	cellSouthEast
	cellSouthWest
)

// neighbors is geohashNeighbors: h and its eight neighbors, indexed by the
// cell constants.
func neighbors(h hashBits) [9]hashBits {
	move := func(dx, dy int) hashBits { return moveY(moveX(h, dx), dy) }
	return [9]hashBits{
		cellCenter:    h,
		cellNorth:     move(0, 1),
		cellSouth:     move(0, -1),
		cellEast:      move(1, 0),
		cellWest:      move(-1, 0),
		cellNorthEast: move(1, 1),
		cellNorthWest: move(-1, 1),
		cellSouthEast: move(1, -1),
		cellSouthWest: move(-1, -1),
	}
}

// Encode returns the 52-bit geohash of lon, lat (geohashEncodeWGS84 at
// StepMax, aligned to 52 bits), or the error of CheckLonLat. The sorted-set
// score is float64(bits). As in Redis, lon == LonMax or lat == LatMax sets a
// bit above the 52 (the cell index overflows).
func Encode(lon, lat float64) (uint64, error) {
	if err := CheckLonLat(lon, lat); err != nil {
		return 0, err
	}
	lonR, latR := wgs84()
	h, _ := encode(lonR, latR, lon, lat, StepMax)
	return align52(h), nil
}

// ScoreBits converts a sorted-set score to the hash bits as Redis's
// (uint64_t) cast does on x86-64, also for scores that are no geohash
// (negative ones wrap, those from 2^64 on give 0).
func ScoreBits(score float64) uint64 {
	const two63 = 1 << 63
	switch {
	case score < two63 && score >= -two63:
		return uint64(int64(score))
	case score >= two63 && score < 2*two63:
		return uint64(int64(score-two63)) ^ two63
	case score >= 2*two63:
		return 0
	}
	return two63 // below -2^63, and NaN
}

// Decode returns the position GEOPOS reports for hash bits
// (geohashDecodeToLongLatWGS84): the center of the cell, clamped to the
// limits.
func Decode(bits uint64) (lon, lat float64) {
	lonR, latR := wgs84()
	return decode(lonR, latR, hashBits{bits, StepMax}).center()
}

// HashString returns the 11-character GEOHASH string of hash bits: the
// position decoded, re-encoded with the standard latitude range -90..90 and
// written in base32 "0123456789bcdefghjkmnpqrstuvwxyz", the 11th character
// always '0' (52 bits fill only 10.4 characters).
func HashString(bits uint64) string {
	const alphabet = "0123456789bcdefghjkmnpqrstuvwxyz"
	lon, lat := Decode(bits)
	h, _ := encode(coordRange{-180, 180}, coordRange{-90, 90}, lon, lat, StepMax)
	var buf [11]byte
	for i := range 10 {
		buf[i] = alphabet[h.bits>>(52-(i+1)*5)&0x1f]
	}
	buf[10] = alphabet[0]
	return string(buf[:])
}
