// Package geo holds the geospatial arithmetic of Redis 7.0 (src/geohash.c,
// src/geohash_helper.c and the computations of src/geo.c), so that the GEO
// commands can be built on sorted sets exactly as Redis does. The reference
// is Redis 7.0.15, whose 7.0 branch took in later changes: the latitude-only
// distance shortcut, the cheaper box test and the fixed-point formatting of
// distances are those of 7.0.15, not of 7.0.0.
//
// A position is stored as a sorted-set member whose score is its 52-bit
// geohash (26 bits per coordinate, interleaved) converted to float64. The
// commands use this package as follows:
//
//	GEOADD     bits, err := Encode(lon, lat); score := float64(bits)
//	GEOPOS     lon, lat := Decode(ScoreBits(score)); FormatCoord(lon), FormatCoord(lat)
//	GEOHASH    HashString(ScoreBits(score))
//	GEODIST    FormatDistance(Distance(lon1, lat1, lon2, lat2) / unit)
//	GEOSEARCH  for each r in shape.Ranges(), each member with r.Min <= score < r.Max:
//	           lon, lat := Decode(ScoreBits(score)); dist, ok := shape.Contains(lon, lat)
//	           WITHDIST: FormatDistance(dist / shape.Unit); WITHCOORD: FormatCoord;
//	           WITHHASH: int64(score); STOREDIST: dist / shape.Unit as the score
//
// Everything is bit for bit as Redis on x86-64 except the last bits of
// about 0.3% of the distances: Distance uses correctly rounded sin, cos and
// asin, while glibc's, which Redis uses, are one ulp off in about 0.1% of
// their calls. That shows in STOREDIST scores and, far more rarely (less
// than once in a million distances), in a 4-decimal reply or for a member
// lying exactly on the border of a search.
package geo

import (
	"bytes"
	"math"
	"strconv"
	"strings"
)

// Limits of the positions Redis can index (EPSG:900913), and the precision
// of the stored hashes.
const (
	LonMin  = -180.0
	LonMax  = 180.0
	LatMin  = -85.05112878
	LatMax  = 85.05112878
	StepMax = 26 // bits per coordinate: 26*2 = 52-bit hashes
)

// Conversion factors to meters of the units Redis accepts.
const (
	Meters     = 1.0
	Kilometers = 1000.0
	Feet       = 0.3048
	Miles      = 1609.34
)

// Error is a Redis error reply text, without the leading '-'.
type Error string

// Error returns the reply text.
func (e Error) Error() string { return string(e) }

// Error replies of the GEO commands that concern the arithmetic here.
const (
	// ErrUnit: a unit ParseUnit rejects (GEODIST, BYRADIUS, BYBOX,
	// GEORADIUS), checked after the sizes.
	ErrUnit Error = "ERR unsupported unit provided. please use M, KM, FT, MI"
	// ErrNegativeRadius: a BYRADIUS or GEORADIUS radius below 0.
	ErrNegativeRadius Error = "ERR radius cannot be negative"
	// ErrNegativeBox: a BYBOX width or height below 0.
	ErrNegativeBox Error = "ERR height or width cannot be negative"
)

// CheckLonLat reports whether lon, lat can be indexed, as GEOADD, GEORADIUS
// and GEOSEARCH FROMLONLAT check it: nil, or the Error
// "ERR invalid longitude,latitude pair %f,%f" formatted as C does. NaN, which
// Redis's number parser never lets through, is rejected too.
func CheckLonLat(lon, lat float64) error {
	if lon >= LonMin && lon <= LonMax && lat >= LatMin && lat <= LatMax {
		return nil
	}
	return Error("ERR invalid longitude,latitude pair " + formatF(lon, 6) + "," + formatF(lat, 6))
}

// ParseUnit returns the factor converting the unit u to meters: "m", "km",
// "ft" or "mi", in any case; ErrUnit otherwise. Like Redis's strcasecmp, it
// ignores anything from a NUL byte on.
func ParseUnit(u []byte) (float64, error) {
	if i := bytes.IndexByte(u, 0); i >= 0 {
		u = u[:i]
	}
	switch {
	case asciiEqualFold(u, "m"):
		return Meters, nil
	case asciiEqualFold(u, "km"):
		return Kilometers, nil
	case asciiEqualFold(u, "ft"):
		return Feet, nil
	case asciiEqualFold(u, "mi"):
		return Miles, nil
	}
	return 0, ErrUnit
}

// asciiEqualFold is strcasecmp in the C locale: ASCII letters only
// (bytes.EqualFold would also take the Kelvin sign for a K).
func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

// FormatDistance formats a distance as GEODIST and WITHDIST reply it, with
// 4 decimals (fixedpoint_d2string): d*10000 is rounded to a float64, then
// to an integer, half to even, so a value just beside a half (x.xxxx5)
// may round unlike printf's "%.4f". Zero, also negative, gives "0.0000", a
// negative value rounding to zero too; NaN and values beyond ±9.2e14 give
// "-922337203685477.5808", as on x86-64.
func FormatDistance(d float64) string {
	if d == 0 {
		return "0.0000"
	}
	v := llrint(d * 10000)
	u := uint64(v)
	sign := ""
	if v < 0 {
		u, sign = -u, "-"
	}
	frac := strconv.FormatUint(10000+u%10000, 10)[1:]
	return sign + strconv.FormatUint(u/10000, 10) + "." + frac
}

// llrint is C's llrint on x86-64: x rounded half to even, or the "integer
// indefinite" MinInt64 when that does not fit an int64 (NaN included).
func llrint(x float64) int64 {
	r := math.RoundToEven(x)
	if r >= -0x1p63 && r < 0x1p63 {
		return int64(r)
	}
	return math.MinInt64
}

// FormatCoord formats a coordinate as GEOPOS and WITHCOORD reply it
// (addReplyHumanLongDouble, a bulk string in RESP2 and a double in RESP3):
// C's "%.17Lf" with the trailing zeros, and a trailing '.', removed, and
// "-0" turned into "0".
func FormatCoord(v float64) string {
	s := formatF(v, 17)
	if strings.IndexByte(s, '.') >= 0 {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// formatF is C's "%.<prec>f" as glibc prints it.
func formatF(v float64, prec int) string {
	switch {
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	case math.IsNaN(v):
		return "nan"
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}
