package server

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// geoFixture: the Sicily example, a few more places (two members sharing a
// position, so that ties show), and keys of other types.
const geoFixture = `
	GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania
	GEOADD Sicily 13.583333 37.316667 Agrigento 12.758489 38.788135 edge1 17.241510 38.788135 edge2
	GEOADD Sicily 14.5 37.5 twinA 14.5 37.5 twinB 14.5 37.5 twinC 14.0 37.2 x1 14.2 38.0 x2
	GEOADD poles -180 -85.05112878 sw 180 85.05112878 ne 0 0 origin -179.9 0 w 179.9 0 e
	SET str v
	RPUSH list x
`

func TestGeoAdd(t *testing.T) {
	p := newPair(t)
	zsetEncodings(t, p, func(string) {
		p.Run(geoFixture)
		p.Run(`
			GEOADD k 1 2 a
			GEOADD k 1 2 a 3 4 b
			GEOADD k CH 1 2 a 5 6 b 7 8 c
			GEOADD k NX 9 9 a 10 10 d
			GEOADD k XX 9 9 a 10 10 e
			GEOADD k XX CH 11 11 a 12 12 b
			GEOADD k NX CH 1 1 a 2 2 f
			GEOADD k CH XX NX 1 1 a
			GEOADD k ch nx ch 3 3 g
			ZRANGE k 0 -1 WITHSCORES
			GEOADD k NX XX 1 2 a
			GEOADD k GT 1 2 a
			GEOADD k GT 1 2
			GEOADD k nx ch ch
			GEOADD k 1 2 a 3
			GEOADD k 1 2 a 3 4
			GEOADD k x 2 a
			GEOADD k 1 x a
			GEOADD k 1 2 a 200 2 b
			GEOADD k 1 2 a 2 90 b
			GEOADD k 181 2 a
			GEOADD k -180.0000001 0 a
			GEOADD k 0 85.0511288 a
			GEOADD k 0 -85.05112878 a
			GEOADD k inf 0 a
			GEOADD k nan 0 a
			GEOADD k 0x10 0 a
			GEOADD k " 1" 0 a
			GEOADD k 1e1 1.5e1 a
			ZRANGE k 0 -1 WITHSCORES
			GEOADD str 1 2 a
			GEOADD list 1 2 a
			GEOADD str 1 2
			GEOADD nokey XX 1 2 a
			EXISTS nokey
			GEOADD k
			GEOADD k 1 2
			OBJECT ENCODING k
			ZRANGE Sicily 0 -1 WITHSCORES
			ZRANGE poles 0 -1 WITHSCORES
		`)
	})
}

func TestGeoPosHashDist(t *testing.T) {
	p := newPair(t)
	for _, proto := range []int{2, 3} {
		p.Do("FLUSHALL")
		if proto == 3 {
			resp3(p)
		}
		p.Run(geoFixture)
		p.Run(`
			ZADD Sicily 0 zero -1 neg 4503599627370496 big 1e30 huge -1e30 nhuge 3.5 frac
			GEOPOS Sicily Palermo Catania nope twinA
			GEOPOS Sicily
			GEOPOS Sicily zero neg big huge nhuge frac
			GEOPOS poles sw ne origin w e
			GEOPOS nokey a b
			GEOPOS nokey
			GEOPOS str a
			GEOHASH Sicily Palermo Catania nope twinA Agrigento
			GEOHASH Sicily
			GEOHASH Sicily zero neg big huge nhuge frac
			GEOHASH poles sw ne origin w e
			GEOHASH nokey a b
			GEOHASH list a
			GEODIST Sicily Palermo Catania
			GEODIST Sicily Palermo Catania m
			GEODIST Sicily Palermo Catania KM
			GEODIST Sicily Palermo Catania ft
			GEODIST Sicily Palermo Catania Mi
			GEODIST Sicily Palermo Catania mm
			GEODIST Sicily Palermo Catania km extra
			GEODIST Sicily Palermo Palermo
			GEODIST Sicily twinA twinB km
			GEODIST Sicily Palermo nope
			GEODIST Sicily nope Palermo km
			GEODIST Sicily Palermo zero
			GEODIST Sicily huge nhuge
			GEODIST poles sw ne
			GEODIST poles w e km
			GEODIST poles sw origin mi
			GEODIST nokey a b
			GEODIST nokey a b xx
			GEODIST str a b
			GEODIST str a b xx
		`)
	}
}

// geoSearchScript covers the options of the searches on geoFixture; {R}
// is a radius query's head, "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS"
// style, with the sizes and units to follow.
var geoSearchLines = []string{
	// GEORADIUS and its variants.
	"GEORADIUS Sicily 15 37 200 km",
	"GEORADIUS Sicily 15 37 200 km ASC",
	"GEORADIUS Sicily 15 37 200 km DESC",
	"GEORADIUS Sicily 15 37 200 km WITHDIST",
	"GEORADIUS Sicily 15 37 200 km WITHCOORD",
	"GEORADIUS Sicily 15 37 200 km WITHHASH",
	"GEORADIUS Sicily 15 37 200 km WITHDIST WITHCOORD WITHHASH",
	"GEORADIUS Sicily 15 37 200 km withhash withcoord withdist desc",
	"GEORADIUS Sicily 15 37 200 km COUNT 1",
	"GEORADIUS Sicily 15 37 200 km COUNT 3 DESC",
	"GEORADIUS Sicily 15 37 200 km COUNT 2 ANY",
	"GEORADIUS Sicily 15 37 200 km COUNT 2 ANY ASC WITHDIST",
	"GEORADIUS Sicily 15 37 200 km ANY COUNT 100",
	"GEORADIUS Sicily 15 37 200 km COUNT 100 COUNT 2",
	"GEORADIUS Sicily 15 37 200 km ASC DESC",
	"GEORADIUS Sicily 15 37 200000 m",
	"GEORADIUS Sicily 15 37 124.27 mi WITHDIST",
	"GEORADIUS Sicily 15 37 656168 ft WITHDIST",
	"GEORADIUS Sicily 14.5 37.5 0 m WITHDIST",
	"GEORADIUS Sicily 14.5 37.5 1 m WITHDIST COUNT 2",
	"GEORADIUS Sicily 14.5 37.5 1 m WITHDIST COUNT 2 DESC",
	"GEORADIUS Sicily 14.5 37.5 100 km WITHDIST COUNT 4",
	"GEORADIUS Sicily 14.5 37.5 100 km WITHDIST COUNT 5 DESC",
	"GEORADIUS Sicily 15 37 20000 km",
	"GEORADIUS Sicily 15 37 1 km",
	"GEORADIUS Sicily 15 37 x km",
	"GEORADIUS Sicily 15 37 -1 km",
	"GEORADIUS Sicily 15 37 1 kmm",
	"GEORADIUS Sicily 15 37 -1 kmm",
	"GEORADIUS Sicily 15 91 1 km",
	"GEORADIUS Sicily x 37 1 km",
	"GEORADIUS Sicily 15 x -1 kmm",
	"GEORADIUS Sicily 15 37 200 km COUNT",
	"GEORADIUS Sicily 15 37 200 km COUNT 0",
	"GEORADIUS Sicily 15 37 200 km COUNT -1",
	"GEORADIUS Sicily 15 37 200 km COUNT x",
	"GEORADIUS Sicily 15 37 200 km ANY",
	"GEORADIUS Sicily 15 37 200 km ANY WITHDIST x",
	"GEORADIUS Sicily 15 37 200 km BOGUS",
	"GEORADIUS Sicily 15 37 200 km STORE",
	"GEORADIUS Sicily 15 37 200 km FROMMEMBER Palermo",
	"GEORADIUS Sicily 15 37 200 km STORE d WITHDIST",
	"GEORADIUS Sicily 15 37 200 km WITHHASH STOREDIST d",
	"GEORADIUS Sicily 15 37 200 km STORE d COUNT 0",
	"GEORADIUS nokey 15 37 200 km",
	"GEORADIUS nokey 15 37 -1 km",
	"GEORADIUS nokey 15 37 1 km ANY",
	"GEORADIUS str 15 37 -1 km",
	"GEORADIUS poles 0 0 20000 km WITHDIST",
	"GEORADIUS poles 180 0 100 km WITHCOORD",
	"GEORADIUS poles 179.95 0 100 km WITHCOORD",
	"GEORADIUS poles -180 -85.05112878 10 km WITHCOORD",
	"GEORADIUS_RO Sicily 15 37 200 km WITHDIST ASC",
	"GEORADIUS_RO Sicily 15 37 200 km STORE d",
	"GEORADIUS_RO Sicily 15 37 200 km STOREDIST d",
	"GEORADIUS_RO nokey 15 37 200 km STOREDIST d",
	"GEORADIUS_RO str 15 37 200 km",
	"GEORADIUSBYMEMBER Sicily Palermo 200 km WITHDIST",
	"GEORADIUSBYMEMBER Sicily Agrigento 100 km WITHDIST WITHCOORD WITHHASH COUNT 3 DESC",
	"GEORADIUSBYMEMBER Sicily twinA 0 km",
	"GEORADIUSBYMEMBER Sicily nope 200 km",
	"GEORADIUSBYMEMBER Sicily nope -1 km",
	"GEORADIUSBYMEMBER Sicily Palermo -1 km",
	"GEORADIUSBYMEMBER Sicily Palermo 1 xx",
	"GEORADIUSBYMEMBER Sicily Palermo x km",
	"GEORADIUSBYMEMBER nokey nope -1 xx",
	"GEORADIUSBYMEMBER nokey nope -1 xx ANY",
	"GEORADIUSBYMEMBER nokey nope -1 xx BOGUS",
	"GEORADIUSBYMEMBER nokey nope 1 km STORE d WITHDIST",
	"GEORADIUSBYMEMBER list nope 1 km",
	"GEORADIUSBYMEMBER_RO Sicily Palermo 200 km WITHDIST",
	"GEORADIUSBYMEMBER_RO Sicily Palermo 200 km STORE d",
	"GEORADIUSBYMEMBER_RO nokey Palermo 200 km",
	// GEOSEARCH.
	"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km",
	"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km ASC WITHDIST WITHCOORD WITHHASH",
	"GEOSEARCH Sicily FROMMEMBER Palermo BYRADIUS 200 km DESC WITHDIST",
	"GEOSEARCH Sicily FROMMEMBER Palermo BYBOX 400 400 km ASC WITHDIST",
	"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 400 400 km WITHDIST",
	"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 200 100 km WITHDIST",
	"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 0 0 km",
	"GEOSEARCH Sicily FROMLONLAT 14.5 37.5 BYBOX 0 0 km",
	"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 400 400 km COUNT 2",
	"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 400 400 km COUNT 2 ANY",
	"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 400 400 km COUNT 2 ANY DESC",
	"GEOSEARCH Sicily FROMMEMBER Palermo FROMMEMBER Catania BYRADIUS 100 km",
	"GEOSEARCH Sicily FROMLONLAT 15 37 FROMLONLAT 13 38 BYRADIUS 100 km",
	"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 1 km BYRADIUS 200 km",
	"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 1 1 km BYBOX 400 400 km",
	"GEOSEARCH Sicily FROMMEMBER Palermo FROMLONLAT 15 37 BYRADIUS 100 km",
	"GEOSEARCH Sicily FROMLONLAT 15 37 FROMMEMBER Palermo BYRADIUS 100 km",
	"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 100 km BYBOX 1 1 km",
	"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 1 1 km BYRADIUS 100 km",
	"GEOSEARCH Sicily BYRADIUS 100 km ASC",
	"GEOSEARCH Sicily FROMLONLAT 15 37 ASC COUNT 1",
	"GEOSEARCH Sicily BYRADIUS 100 km FROMLONLAT",
	"GEOSEARCH Sicily FROMMEMBER nope BYRADIUS 100 km",
	"GEOSEARCH Sicily FROMMEMBER nope BYRADIUS -1 km",
	"GEOSEARCH Sicily FROMLONLAT 15 100 BYRADIUS 100 km",
	"GEOSEARCH Sicily FROMLONLAT x 37 BYRADIUS 100 km",
	"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS x km",
	"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS -5 km",
	"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 5 parsec",
	"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX x 1 km",
	"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 1 x km",
	"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX x y km",
	"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX -1 1 km",
	"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 1 -1 parsec",
	"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 1 1 parsec",
	"GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 1 1",
	"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 1",
	"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 100 km ANY",
	"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 100 km STORE d",
	"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 100 km STOREDIST",
	"GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 100 km COUNT 0",
	"GEOSEARCH nokey FROMMEMBER nope BYRADIUS 100 km",
	"GEOSEARCH nokey FROMMEMBER nope BYRADIUS -1 km",
	"GEOSEARCH nokey FROMLONLAT 15 37 BYBOX 1 1 km",
	"GEOSEARCH nokey FROMMEMBER a BYRADIUS 100 km ANY",
	"GEOSEARCH str FROMMEMBER a BYRADIUS 100 km",
	"geosearch Sicily frommember Palermo",
	"geosearch Sicily bybox 1 1 km",
	"GeoSearch Sicily withdist withhash withcoord",
	"GEOSEARCH poles FROMLONLAT 0 0 BYBOX 40000 20000 km WITHDIST",
	"GEOSEARCH poles FROMLONLAT 180 85.05112878 BYRADIUS 5000 km WITHCOORD",
	// GEOSEARCHSTORE's errors (the stores are in TestGeoStore).
	"GEOSEARCHSTORE d Sicily FROMLONLAT 15 37 BYRADIUS 200 km WITHDIST",
	"GEOSEARCHSTORE d Sicily FROMLONLAT 15 37 BYRADIUS 200 km STORE x",
	"GEOSEARCHSTORE d Sicily FROMLONLAT 15 37 BYRADIUS 200 km STOREDIST x",
	"GEOSEARCHSTORE d Sicily BYRADIUS 200 km STOREDIST",
	"GEOSEARCHSTORE d Sicily FROMLONLAT 15 37 STOREDIST ASC",
	"GEOSEARCHSTORE d Sicily FROMLONLAT 15 37 BYRADIUS 200 km ANY",
	"GEOSEARCHSTORE d str FROMLONLAT 15 37 BYRADIUS 200 km",
	"geosearchstore d Sicily frommember Palermo asc",
}

func TestGeoSearchReplies(t *testing.T) {
	p := newPair(t)
	for _, proto := range []int{2, 3} {
		zsetEncodings(t, p, func(string) {
			if proto == 3 {
				resp3(p)
			}
			p.Run(geoFixture)
			for _, line := range geoSearchLines {
				p.Do(line)
			}
		})
	}
}

func TestGeoStore(t *testing.T) {
	p := newPair(t)
	zsetEncodings(t, p, func(string) {
		p.Run(geoFixture)
		for _, cmd := range []string{
			"GEORADIUS Sicily 15 37 200 km STORE d",
			"GEORADIUS Sicily 15 37 200 km STOREDIST d",
			"GEORADIUS Sicily 15 37 200 km STORE x STOREDIST d COUNT 2",
			"GEORADIUS Sicily 15 37 200 km STOREDIST x STORE d DESC COUNT 2",
			"GEORADIUS Sicily 15 37 200 mi STOREDIST d",
			"GEORADIUS Sicily 14.5 37.5 100 km STOREDIST d COUNT 2 ANY",
			"GEORADIUSBYMEMBER Sicily Palermo 200 km STORE d",
			"GEORADIUSBYMEMBER Sicily Palermo 200 km STOREDIST d COUNT 3 DESC",
			"GEOSEARCHSTORE d Sicily FROMLONLAT 15 37 BYRADIUS 200 km",
			"GEOSEARCHSTORE d Sicily FROMLONLAT 15 37 BYRADIUS 200 km STOREDIST",
			"GEOSEARCHSTORE d Sicily FROMMEMBER Palermo BYBOX 400 400 km STOREDIST COUNT 3",
			"GEOSEARCHSTORE d Sicily FROMMEMBER Palermo BYBOX 400 400 ft STOREDIST",
			"GEOSEARCHSTORE Sicily Sicily FROMMEMBER Palermo BYRADIUS 100 km",
			"GEOSEARCHSTORE d poles FROMLONLAT 0 0 BYRADIUS 20000 km STOREDIST",
		} {
			p.Do("DEL d x")
			p.Do("SET d old")
			p.Do("EXPIRE d 1000")
			p.Do(cmd)
			p.Do("TYPE d")
			p.Do("TTL d")
			p.Do("ZRANGE d 0 -1 WITHSCORES")
			p.Do("ZRANGE x 0 -1 WITHSCORES")
			p.Do("OBJECT ENCODING d")
			// Again onto the sorted set it made.
			p.Do(cmd)
			p.Do("ZRANGE d 0 -1 WITHSCORES")
		}
		// Empty results delete the destination.
		p.Run(`
			SET d old
			GEORADIUS Sicily 0 0 1 km STORE d
			EXISTS d
			GEORADIUS Sicily 0 0 1 km STORE d
			SET d old
			GEOSEARCHSTORE d Sicily FROMLONLAT 0 0 BYRADIUS 1 km
			EXISTS d
			SET d old
			GEOSEARCHSTORE d nokey FROMLONLAT 0 0 BYRADIUS 1 km
			EXISTS d
			SET d old
			GEORADIUSBYMEMBER nokey nope 1 km STORE d
			EXISTS d
			SET d old
			GEORADIUS nokey 1 1 1 km STOREDIST d
			EXISTS d
			GEORADIUS nokey 1 1 1 km STOREDIST d
			SET d old
			GEORADIUS str 1 1 1 km STOREDIST d
			GET d
			GEOSEARCHSTORE d list FROMLONLAT 0 0 BYRADIUS 1 km
			GET d
			CONFIG SET zset-max-listpack-entries 2
			GEOSEARCHSTORE d Sicily FROMLONLAT 15 37 BYRADIUS 200 km
			OBJECT ENCODING d
			GEOSEARCHSTORE d Sicily FROMLONLAT 15 37 BYRADIUS 200 km COUNT 2
			OBJECT ENCODING d
		`)
	})
}

// TestGeoRandom compares random searches over a few hundred random
// points, including clusters (positions shared by several members) so that
// COUNT has ties to break.
func TestGeoRandom(t *testing.T) {
	p := newPair(t)
	r := rand.New(rand.NewPCG(7, 11))
	units := []string{"m", "km", "ft", "mi"}
	coord := func() (float64, float64) {
		switch r.IntN(4) {
		case 0: // anywhere
			return r.Float64()*360 - 180, r.Float64()*170.1 - 85.05
		default: // around a few centers
			cx, cy := []float64{13, -70, 179.5}[r.IntN(3)], []float64{38, 40, -60}[r.IntN(3)]
			return cx + r.NormFloat64()*2, max(-85, min(85, cy+r.NormFloat64()*2))
		}
	}
	for _, enc := range []string{"128", "0"} {
		p.Do("FLUSHALL")
		cfgRestore(t, p, "zset-max-listpack-entries")
		p.Do("CONFIG SET zset-max-listpack-entries " + enc)
		var members []string
		for i := 0; i < 400; i++ {
			lon, lat := coord()
			lon = max(-180, min(180, lon))
			m := fmt.Sprintf("m%d", i)
			members = append(members, m)
			p.Do(fmt.Sprintf("GEOADD pts %.6f %.6f %s", lon, lat, m))
			if r.IntN(10) == 0 { // a twin
				m2 := fmt.Sprintf("t%d", i)
				members = append(members, m2)
				p.Do(fmt.Sprintf("GEOADD pts %.6f %.6f %s", lon, lat, m2))
			}
		}
		for i := 0; i < 300; i++ {
			var b strings.Builder
			store := r.IntN(5) == 0
			if store {
				b.WriteString("GEOSEARCHSTORE dst pts")
			} else {
				b.WriteString("GEOSEARCH pts")
			}
			if r.IntN(2) == 0 {
				fmt.Fprintf(&b, " FROMMEMBER %s", members[r.IntN(len(members))])
			} else {
				lon, lat := coord()
				fmt.Fprintf(&b, " FROMLONLAT %.5f %.5f", max(-180, min(180, lon)), lat)
			}
			unit := units[r.IntN(len(units))]
			size := []float64{1, 1000, 100000, 500000, 3000000, 8000000, 20000000}[r.IntN(7)] * (0.5 + r.Float64())
			switch unit {
			case "km":
				size /= 1000
			case "mi":
				size /= 1609.34
			case "ft":
				size /= 0.3048
			}
			if r.IntN(2) == 0 {
				fmt.Fprintf(&b, " BYRADIUS %.3f %s", size, unit)
			} else {
				fmt.Fprintf(&b, " BYBOX %.3f %.3f %s", size, size*(0.2+r.Float64()*2), unit)
			}
			switch r.IntN(3) {
			case 1:
				b.WriteString(" ASC")
			case 2:
				b.WriteString(" DESC")
			}
			if r.IntN(2) == 0 {
				fmt.Fprintf(&b, " COUNT %d", 1+r.IntN(20))
				if r.IntN(3) == 0 {
					b.WriteString(" ANY")
				}
			}
			if store {
				if r.IntN(2) == 0 {
					b.WriteString(" STOREDIST")
				}
				p.Do(b.String())
				p.Do("ZRANGE dst 0 -1") // STOREDIST scores may differ in the last bits
				continue
			}
			for _, opt := range []string{" WITHDIST", " WITHCOORD", " WITHHASH"} {
				if r.IntN(2) == 0 {
					b.WriteString(opt)
				}
			}
			p.Do(b.String())
		}
		for i := 0; i < 100; i++ {
			a, b := members[r.IntN(len(members))], members[r.IntN(len(members))]
			p.Do(fmt.Sprintf("GEODIST pts %s %s %s", a, b, units[r.IntN(4)]))
			p.Do(fmt.Sprintf("GEORADIUSBYMEMBER pts %s %d km WITHDIST COUNT %d DESC", a, 1+r.IntN(2000), 1+r.IntN(10)))
		}
		args := []string{"GEOPOS", "pts"}
		args = append(args, members...)
		p.DoArgs(args...)
		args[0] = "GEOHASH"
		p.DoArgs(args...)
	}
}

// TestGeoNotify: GEOADD emits zadd (only on a change), the stores
// georadiusstore or geosearchstore, or del for an empty result.
func TestGeoNotify(t *testing.T) {
	diffEvents(t, `
GEOADD g 13.361389 38.115556 Palermo 15.087269 37.502669 Catania
GEOADD g 13.361389 38.115556 Palermo
GEOADD g XX 1 1 nope
GEOADD g2 XX 1 1 nope
GEOADD g CH 13 38 Palermo
GEORADIUS g 15 37 200 km
GEORADIUS g 15 37 200 km STORE d
GEORADIUSBYMEMBER g Palermo 200 km STOREDIST d
GEOSEARCHSTORE d g FROMLONLAT 15 37 BYRADIUS 200 km
GEOSEARCHSTORE d g FROMLONLAT 0 0 BYRADIUS 1 km
GEOSEARCHSTORE d g FROMLONLAT 0 0 BYRADIUS 1 km
SET d x
GEORADIUS nokey 1 1 1 km STORE d
GEORADIUS nokey 1 1 1 km STORE d
`)
}

// TestGeoAOF: GEOADD is written as the ZADD it runs as, a store as sent,
// and a write that changed nothing not at all.
func TestGeoAOF(t *testing.T) {
	rdir, hdir := t.TempDir(), t.TempDir()
	raddr := difftest.StartRedis(t, "--appendonly", "yes", "--appendfsync", "always", "--dir", rdir)
	_, haddr := startServer(t, "--appendonly", "yes", "--appendfsync", "always", "--dir", hdir)
	script := []string{
		"GEOADD g 13.361389 38.115556 Palermo 15.087269 37.502669 Catania",
		"GEOADD g 13.361389 38.115556 Palermo",
		"GEOADD g nx CH 13 38 Palermo 14 37 new",
		"GEOADD g XX 1 1 nope",
		"GEOADD g 1 100 bad",
		"GEORADIUS g 15 37 200 km",
		"GEORADIUS g 15 37 200 km STORE d",
		"GEORADIUSBYMEMBER g Palermo 200 km STOREDIST d2 COUNT 1",
		"GEOSEARCHSTORE d3 g FROMLONLAT 15 37 BYRADIUS 200 km",
		"GEOSEARCHSTORE d3 g FROMLONLAT 0 0 BYRADIUS 1 km",
		"GEOSEARCHSTORE d3 g FROMLONLAT 0 0 BYRADIUS 1 km",
		"GEORADIUS nokey 1 1 1 km STORE d4",
		"SET d4 x",
		"GEORADIUS nokey 1 1 1 km STORE d4",
		"MULTI",
		"GEOADD g 2 2 m1",
		"GEORADIUS g 2 2 1 km",
		"EXEC",
		"SET end 1",
	}
	for _, addr := range []string{raddr, haddr} {
		c := difftest.Dial(t, addr)
		for _, line := range script {
			c.Do(difftest.Split(line)...)
		}
	}
	deadline := time.Now().Add(2 * time.Second)
	var want, got []string
	for {
		want, got = readIncr(t, rdir), readIncr(t, hdir)
		if slices.Equal(want, got) || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !slices.Equal(want, got) {
		t.Errorf("append-only files differ\nredis:\n%s\nhotkv:\n%s", strings.Join(want, "\n"), strings.Join(got, "\n"))
	}
}

// TestGeoKeys: COMMAND GETKEYS finds GEORADIUS's destination as Redis does.
func TestGeoKeys(t *testing.T) {
	p := newPair(t)
	p.Run(`
		COMMAND GETKEYS GEORADIUS src 1 2 3 km
		COMMAND GETKEYS GEORADIUS src 1 2 3 km STORE d
		COMMAND GETKEYS GEORADIUS src 1 2 3 km STORE d STOREDIST e
		COMMAND GETKEYS GEORADIUS src 1 2 3 km storedist e COUNT 3
		COMMAND GETKEYS GEORADIUSBYMEMBER src m 3 km STORE d
		COMMAND GETKEYS GEOSEARCHSTORE d src FROMMEMBER m BYRADIUS 1 km
		COMMAND GETKEYS GEOSEARCH src FROMMEMBER m BYRADIUS 1 km
		COMMAND GETKEYS GEOADD k 1 2 m
		COMMAND GETKEYS GEORADIUS src 1 2 3 km STORE d STORE
		COMMAND GETKEYS GEORADIUS src 1 2 3 km STOREDIST
		COMMAND GETKEYS GEORADIUS src 1 2 3 km STORE d STOREDIST
		COMMAND GETKEYS GEORADIUS src 1 2 3 store STORE d
		COMMAND GETKEYS GEORADIUSBYMEMBER src m 3 store STORE d
		COMMAND GETKEYS GEORADIUSBYMEMBER src m 3 km STOREDIST d STORE e
	`)
}
