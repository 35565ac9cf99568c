package server

import (
	"testing"
)

// geoDocs are places with text, a GEO field (good and bad values) and a
// number: a few around San Francisco, a few in Europe, a value with a
// space, values RediSearch cannot index (counted as failures).
var geoDocs = `
HSET p:1 loc "-122.4194,37.7749" t "hello world" n 1
HSET p:2 loc "-122.4313 37.7739" t "hello hello there" n 2
HSET p:3 loc "-122.2711,37.8044" t "oakland world hello" n 3
HSET p:4 loc "-121.8863,37.3382" t "san jose" n 4
HSET p:5 loc "2.3522,48.8566" t "paris hello" n 5
HSET p:6 loc "2.2945,48.8584" t "tower world" n 6
HSET p:7 loc "-0.1276,51.5072" t "london hello world" n 7
HSET p:8 loc "13.405,52.52" t "berlin" n 8
HSET p:9 loc "151.2093,-33.8688" t "sydney hello" n 9
HSET p:10 loc "0,0" t "null island" n 10
HSET p:11 loc ",5" t "empty lon" n 11
HSET p:12 t "no place hello" n 12
HSET p:20 loc "bad" t "bad hello" n 20
HSET p:21 loc "200,10" t "out of range" n 21
HSET p:22 loc "10,86" t "too far north" n 22
HSET p:23 loc "1,2,3" t "three" n 23
HSET p:24 loc "" t "empty" n 24
HSET p:25 loc " 1 , 2" t "spaces" n 25
`

// TestFTGeoLikeRediSearch: GEO fields (indexing and its failures, radius
// queries in both dialects with PARAMS, GEOFILTER, SORTBY, FT.INFO) and
// their errors, against RediSearch, with scores.
func TestFTGeoLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	p.Run(`
FT.CREATE g ON HASH PREFIX 1 p: SCHEMA loc GEO SORTABLE t TEXT n NUMERIC l2 GEO NOINDEX
FT.CREATE g2 ON HASH PREFIX 1 q: SCHEMA a GEO b GEO SORTABLE UNF
`)
	p.Run(geoDocs)
	p.Run(`
HSET q:1 a "10,20" b "1E1,2"
HSET q:2 a "9,21" b "1e0,2"
HSET q:3 a "-5,1" b "-1.5,3"
HSET q:4 a "1e1,2" b "-100,3"
`)
	compareFTInfo(t, p, "g")
	compareFTInfo(t, p, "g2")
	sf := "-122.4194 37.7749"
	for _, q := range []string{
		"@loc:[" + sf + " 5 km]", "@loc:[" + sf + " 5 KM]", "@loc:[" + sf + " 50 km]", "@loc:[" + sf + " 100 mi]",
		"@loc:[" + sf + " 1000 m]", "@loc:[" + sf + " 3000 ft]", "@loc:[" + sf + " 10000 km]", "@loc:[" + sf + " 20000 km]",
		"@loc:[2.35 48.85 10 km]", "@loc:[2.35 48.85 1000 km]", "@loc:[0 0 1 m]", "@loc:[0 0 600 km]",
		"@loc:[-122.4194,37.7749 5 km]", "@loc:[-122.4194 , 37.7749 , 5 , km]", "@loc:[" + sf + " 1e1 km]",
		"@loc:[" + sf + " +5 km]", "@loc:[" + sf + " .5e1 km]", "@n:[.5 -.5e1]", "@n:[(.5 +.5]", "@n:[..1 10]", "@loc:[" + sf + " inf km]", "@loc:[150 -30 1000 km]",
		"@loc:[-122.41 86 5 km]",
		"hello @loc:[" + sf + " 50 km]", "hello world @loc:[" + sf + " 50 km]", "@loc:[" + sf + " 50 km] hello",
		"hello | @loc:[" + sf + " 50 km]", "-@loc:[" + sf + " 50 km]", "hello -@loc:[" + sf + " 50 km]",
		"world @loc:[2.35 48.85 2000 km]", "@loc:[2.35 48.85 2000 km] @n:[5 7]", "@t:hello @loc:[2.35 48.85 10 km]",
		"(@loc:[" + sf + " 5 km] | @loc:[2.35 48.85 10 km]) hello", "@t:[" + sf + " 5 km]", "@nosuch:[" + sf + " 5 km]",
		"@l2:[" + sf + " 5 km]", "@n:[1,5]", "@n:[1 , 5]",
		// Errors.
		"@loc:[" + sf + " 5 xx]", "@loc:[" + sf + " 5]", "@loc:[" + sf + " -5 km]", "@loc:[" + sf + " 0 km]",
		"@loc:[-200 37.77 5 km]", "@loc:[-122.41 95 5 km]", "@loc:[abc 37.77 5 km]", "@loc:[" + sf + " 5km]",
		"@loc:[" + sf + " 5 km 3]", "@loc:[" + sf + " 5 km", "@loc:[1 2 3 4 5]", "@loc:[1 2 3 4]", "@n:[1 2 3]",
		"@nosuch:[" + sf + " 5 xx]", "@loc:[-200 37.77 -5 xx]", "@loc:[-200 37.77 -5 km]", "@loc:[" + sf + " -inf km]",
		`@loc:[` + sf + ` 5 "km"]`,
	} {
		for _, d := range []string{"1", "2"} {
			if q == "@loc:[abc 37.77 5 km]" && d == "2" {
				continue // a VECTOR_RANGE's grammar there (known difference)
			}
			p.DoArgs("FT.SEARCH", "g", q, "WITHSCORES", "NOCONTENT", "DIALECT", d)
		}
	}
	// PARAMS (DIALECT 2; DIALECT 1 refuses $).
	params := []string{"PARAMS", "12", "lon", "-122.4194", "lat", "37.7749", "r", "50", "u", "km", "bad", "abc", "uu", "xx"}
	for _, q := range []string{
		"@loc:[$lon $lat $r $u]", "@loc:[$lon $lat 5 km]", "@loc:[-122.4 37.7 $r km]", "@loc:[-122.4 37.7 5 $u]",
		"@loc:[$bad $lat $r km]", "@loc:[$lon $bad $r km]", "@loc:[$lon $lat $bad km]", "@loc:[$lon $lat $r $uu]",
		"@loc:[$nosuch $lat $r km]", "@loc:[$lon $lat $r $nosuch]", "@n:[$bad 5]", "@n:[1 $bad]",
	} {
		for _, d := range []string{"1", "2"} {
			p.DoArgs(append([]string{"FT.SEARCH", "g", q, "WITHSCORES", "NOCONTENT", "DIALECT", d}, params...)...)
		}
	}
	p.Run(`
FT.SEARCH g hello GEOFILTER loc -122.4194 37.7749 50 km WITHSCORES NOCONTENT
FT.SEARCH g * GEOFILTER loc -122.4194 37.7749 50 km WITHSCORES NOCONTENT
FT.SEARCH g hello GEOFILTER loc 2.35 48.85 1000 KM WITHSCORES
FT.SEARCH g world GEOFILTER loc 2.35 48.85 10000 mi FILTER n 0 6 WITHSCORES NOCONTENT
FT.SEARCH g hello GEOFILTER loc -122.4194 37.7749 5 km GEOFILTER loc 2.35 48.85 100 km WITHSCORES NOCONTENT
FT.SEARCH g hello GEOFILTER loc -122.4194 37.7749 5 km INKEYS 2 p:1 p:3 WITHSCORES NOCONTENT
FT.SEARCH g hello GEOFILTER loc -122.4194 37.7749 nan km WITHSCORES NOCONTENT
FT.SEARCH g hello GEOFILTER loc 0x10 37.77 5 km WITHSCORES NOCONTENT
FT.SEARCH g hello GEOFILTER nosuch -122.4194 37.7749 5 km
FT.SEARCH g hello GEOFILTER t -122.4194 37.7749 5 km
FT.SEARCH g hello GEOFILTER l2 -122.4194 37.7749 5 km
FT.SEARCH g hello GEOFILTER loc -122.4194 37.7749 5
FT.SEARCH g hello GEOFILTER loc abc 37.77 5 km
FT.SEARCH g hello GEOFILTER loc -122.41 abc 5 km
FT.SEARCH g hello GEOFILTER loc -122.41 37.77 abc km
FT.SEARCH g hello GEOFILTER loc -122.41 37.77 inf km
FT.SEARCH g hello GEOFILTER loc -122.41 37.77 5 xx
FT.SEARCH g hello GEOFILTER loc -200 37.77 5 km
FT.SEARCH g hello GEOFILTER loc -122.41 37.77 -5 km
FT.SEARCH g hello GEOFILTER loc -122.41 37.77 0 km
FT.SEARCH g * SORTBY loc NOCONTENT LIMIT 0 20
FT.SEARCH g * SORTBY loc DESC RETURN 1 loc LIMIT 0 20
FT.SEARCH g2 * SORTBY a NOCONTENT
FT.SEARCH g2 * SORTBY b NOCONTENT
FT.SEARCH g2 * SORTBY a DESC
FT.SEARCH g2 @a:[10 20 200 km] WITHSCORES
`)
	resp3(p)
	p.Run(`
FT.SEARCH g "hello @loc:[-122.4194 37.7749 50 km]" WITHSCORES
FT.SEARCH g hello GEOFILTER loc 2.35 48.85 1000 km WITHSCORES RETURN 1 loc
FT.SEARCH g "@loc:[-122.4194 37.7749 5 xx]"
`)
	compareFTInfo(t, p, "g")
}
