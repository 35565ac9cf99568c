package server

import (
	"bytes"
	"cmp"
	"slices"
	"strconv"

	"github.com/hotkv/hotkv/geo"
	"github.com/hotkv/hotkv/keyspace"
	"github.com/hotkv/hotkv/zset"
)

// geoCommands is the geospatial command group: Redis 7.0's geo.c on top of
// sorted sets, with the arithmetic of package geo. A position is a member
// scored by its 52-bit geohash.
func geoCommands() []*Command {
	const (
		rw = Write | DenyOOM
		ro = Readonly
	)
	return []*Command{
		{Name: "geoadd", Arity: -5, Flags: rw, First: 1, Last: 1, Step: 1, Handler: cmdGeoAdd},
		{Name: "geodist", Arity: -4, Flags: ro, First: 1, Last: 1, Step: 1, Handler: cmdGeoDist},
		{Name: "geohash", Arity: -2, Flags: ro, First: 1, Last: 1, Step: 1, Handler: cmdGeoHash},
		{Name: "geopos", Arity: -2, Flags: ro, First: 1, Last: 1, Step: 1, Handler: cmdGeoPos},
		{Name: "georadius", Arity: -6, Flags: rw, First: 1, Last: 1, Step: 1, Keys: georadiusKeys(6), Handler: cmdGeoRadius},
		{Name: "georadiusbymember", Arity: -5, Flags: rw, First: 1, Last: 1, Step: 1, Keys: georadiusKeys(5), Handler: cmdGeoRadiusByMember},
		{Name: "georadius_ro", Arity: -6, Flags: ro, First: 1, Last: 1, Step: 1, Handler: cmdGeoRadiusRO},
		{Name: "georadiusbymember_ro", Arity: -5, Flags: ro, First: 1, Last: 1, Step: 1, Handler: cmdGeoRadiusByMemberRO},
		{Name: "geosearch", Arity: -7, Flags: ro, First: 1, Last: 1, Step: 1, Handler: cmdGeoSearch},
		{Name: "geosearchstore", Arity: -8, Flags: rw, First: 1, Last: 2, Step: 1, Handler: cmdGeoSearchStore},
	}
}

// georadiusKeys finds the keys of GEORADIUS and GEORADIUSBYMEMBER as
// Redis 7.0's COMMAND GETKEYS does, from the key specs: the source, then
// the argument after the first STORE, then the one after the first
// STOREDIST, each keyword looked for from index first on; when a keyword
// is the last argument the specs are invalid and Redis falls back to
// georadiusGetKeys (the source and the destination of the last STORE or
// STOREDIST followed by an argument, from index 5 on). The destination the
// handler writes, georadiusGetKeys's, is always among the keys returned,
// so that the gate locks it (after "STORE a STORE b" Redis's specs name
// only a; HotKV reports b as well).
func georadiusKeys(first int) func(args [][]byte) []int {
	return func(args [][]byte) []int {
		if len(args) < 2 {
			return nil
		}
		stored := georadiusStoreIndex(args, 5)
		keys := []int{1}
		for _, kw := range []string{"store", "storedist"} {
			for i := first; i < len(args); i++ {
				if equalFold(cstr(args[i]), kw) {
					if i+1 >= len(args) { // an invalid spec
						if stored < 0 {
							return []int{1}
						}
						return []int{1, stored}
					}
					keys = append(keys, i+1)
					break
				}
			}
		}
		// The destination the handler writes (the parser's options start
		// at first: a command with STORE at index 5 fails).
		if stored := georadiusStoreIndex(args, first); stored >= 0 && !slices.Contains(keys, stored) {
			keys = append(keys, stored)
		}
		return keys
	}
}

// georadiusStoreIndex is the index of the destination after the last
// STORE or STOREDIST followed by an argument, looked for from index from
// on; -1 if none.
func georadiusStoreIndex(args [][]byte, from int) int {
	stored := -1
	for i := from; i < len(args); i++ {
		a := cstr(args[i])
		if (equalFold(a, "store") || equalFold(a, "storedist")) && i+1 < len(args) {
			stored = i + 1
			i++
		}
	}
	return stored
}

// Error replies of the geo commands not in package geo.
const (
	errGeoMember      = "ERR could not decode requested zset member"
	errGeoRadiusNum   = "ERR need numeric radius"
	errGeoWidthNum    = "ERR need numeric width"
	errGeoHeightNum   = "ERR need numeric height"
	errGeoAnyNoCount  = "ERR the ANY argument requires COUNT argument"
	errGeoStoreRadius = "ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD options"
	errGeoStoreSearch = "ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD options"
)

// geoDouble parses a double argument as getDoubleFromObjectOrReply does,
// replying msg (errNotFloat when empty) on failure.
func (c *Client) geoDouble(b []byte, msg string) (float64, bool) {
	v, ok := zset.ParseDouble(b)
	if !ok {
		if msg == "" {
			msg = errNotFloat
		}
		c.errorReply(msg)
	}
	return v, ok
}

// geoLonLat is extractLongLatOrReply.
func (c *Client) geoLonLat(args [][]byte) (lon, lat float64, ok bool) {
	if lon, ok = c.geoDouble(args[0], ""); !ok {
		return
	}
	if lat, ok = c.geoDouble(args[1], ""); !ok {
		return
	}
	if err := geo.CheckLonLat(lon, lat); err != nil {
		c.errorReply(err.Error())
		return 0, 0, false
	}
	return lon, lat, true
}

// geoUnit is extractUnitOrReply.
func (c *Client) geoUnit(b []byte) (float64, bool) {
	u, err := geo.ParseUnit(b)
	if err != nil {
		c.errorReply(err.Error())
		return 0, false
	}
	return u, true
}

// geoRadius is extractDistanceOrReply: radius and unit.
func (c *Client) geoRadius(args [][]byte) (radius, unit float64, ok bool) {
	if radius, ok = c.geoDouble(args[0], errGeoRadiusNum); !ok {
		return
	}
	if radius < 0 {
		c.errorReply(geo.ErrNegativeRadius.Error())
		return 0, 0, false
	}
	unit, ok = c.geoUnit(args[1])
	return
}

// geoBox is extractBoxOrReply: width, height and unit.
func (c *Client) geoBox(args [][]byte) (width, height, unit float64, ok bool) {
	if width, ok = c.geoDouble(args[0], errGeoWidthNum); !ok {
		return
	}
	if height, ok = c.geoDouble(args[1], errGeoHeightNum); !ok {
		return
	}
	if height < 0 || width < 0 {
		c.errorReply(geo.ErrNegativeBox.Error())
		return 0, 0, 0, false
	}
	unit, ok = c.geoUnit(args[2])
	return
}

// geoMember is longLatFromMember.
func geoMember(z *zset.ZSet, member []byte) (lon, lat float64, ok bool) {
	s, ok := z.Score(member)
	if !ok {
		return 0, 0, false
	}
	lon, lat = geo.Decode(geo.ScoreBits(s))
	return lon, lat, true
}

// geoCoord writes a coordinate as addReplyHumanLongDouble: a bulk string
// in RESP2, a double in RESP3.
func (c *Client) geoCoord(v float64) {
	s := geo.FormatCoord(v)
	if c.w.Proto > 2 {
		c.w.Buf = append(c.w.Buf, ',')
		c.w.Buf = append(c.w.Buf, s...)
		c.w.Buf = append(c.w.Buf, '\r', '\n')
		return
	}
	c.w.BulkString(s)
}

// GEOADD key [NX|XX] [CH] longitude latitude member [longitude latitude member ...]
//
// As Redis, it runs as the ZADD it rewrites itself to, and propagates that
// ZADD (with the options as sent and the hashes as integer scores).
func cmdGeoAdd(c *Client, args [][]byte) {
	nx, xx, ch := false, false, false
	longidx := 2
	for ; longidx < len(args); longidx++ {
		opt := cstr(args[longidx])
		switch {
		case equalFold(opt, "nx"):
			nx = true
		case equalFold(opt, "xx"):
			xx = true
		case equalFold(opt, "ch"):
			ch = true
		default:
			goto parsed
		}
	}
parsed:
	if (len(args)-longidx)%3 != 0 || nx && xx {
		c.errorReply(errSyntax)
		return
	}
	elements := (len(args) - longidx) / 3
	zargs := make([][]byte, 0, longidx+2*elements)
	zargs = append(zargs, []byte("zadd"))
	zargs = append(zargs, args[1:longidx]...)
	scores := make([]float64, elements)
	for i := range elements {
		lon, lat, ok := c.geoLonLat(args[longidx+3*i:])
		if !ok {
			return
		}
		bits, _ := geo.Encode(lon, lat)
		scores[i] = float64(bits)
		zargs = append(zargs, strconv.AppendUint(nil, bits, 10), args[longidx+3*i+2])
	}
	if elements == 0 { // ZADD with no score-member pair
		c.errorReply(errSyntax)
		return
	}
	key := args[1]
	e, ok := c.writeZSet(key)
	if !ok {
		return
	}
	flags := 0
	if nx {
		flags |= zset.AddNX
	}
	if xx {
		flags |= zset.AddXX
	}
	added, updated := 0, 0
	if e == nil && !xx {
		maxEntries, maxValue := c.zsetLimits()
		z := zset.New(maxEntries != 0 && len(args[longidx+2]) <= maxValue)
		e = keyspace.NewObject(key, keyspace.KindZSet, z)
		c.db.Set(key, e)
	}
	if e != nil {
		z := zsetOf(e)
		maxEntries, maxValue := c.zsetLimits()
		for i, s := range scores {
			out, _ := z.Add(args[longidx+3*i+2], s, flags, maxEntries, maxValue)
			if out&zset.Added != 0 {
				added++
			}
			if out&zset.Updated != 0 {
				updated++
			}
		}
		c.zsetChanged(key, e, "zadd", added+updated > 0)
	}
	if added+updated > 0 {
		c.propagate(zargs...)
	}
	c.dirty(added + updated)
	if ch {
		c.w.Int(int64(added + updated))
	} else {
		c.w.Int(int64(added))
	}
}

// GEODIST key member1 member2 [M|KM|FT|MI]
func cmdGeoDist(c *Client, args [][]byte) {
	unit := 1.0
	if len(args) == 5 {
		var ok bool
		if unit, ok = c.geoUnit(args[4]); !ok {
			return
		}
	} else if len(args) > 5 {
		c.errorReply(errSyntax)
		return
	}
	z, ok := c.readZSet(args[1])
	if !ok {
		return
	}
	if z == nil {
		c.w.Null()
		return
	}
	lon1, lat1, ok1 := geoMember(z, args[2])
	lon2, lat2, ok2 := geoMember(z, args[3])
	if !ok1 || !ok2 {
		c.w.Null()
		return
	}
	c.w.BulkString(geo.FormatDistance(geo.Distance(lon1, lat1, lon2, lat2) / unit))
}

// GEOHASH key [member [member ...]]
func cmdGeoHash(c *Client, args [][]byte) {
	z, ok := c.readZSet(args[1])
	if !ok {
		return
	}
	c.w.Array(len(args) - 2)
	for _, m := range args[2:] {
		var s float64
		found := false
		if z != nil {
			s, found = z.Score(m)
		}
		if !found {
			c.w.Null()
			continue
		}
		c.w.BulkString(geo.HashString(geo.ScoreBits(s)))
	}
}

// GEOPOS key [member [member ...]]
func cmdGeoPos(c *Client, args [][]byte) {
	z, ok := c.readZSet(args[1])
	if !ok {
		return
	}
	c.w.Array(len(args) - 2)
	for _, m := range args[2:] {
		var lon, lat float64
		found := false
		if z != nil {
			lon, lat, found = geoMember(z, m)
		}
		if !found {
			c.w.NullArray()
			continue
		}
		c.w.Array(2)
		c.geoCoord(lon)
		c.geoCoord(lat)
	}
}

// Variants of georadiusGeneric, as Redis's flags.
const (
	geoRadiusCoords = 1 << iota // GEORADIUS: around a position
	geoRadiusMember             // GEORADIUSBYMEMBER: around a member
	geoNoStore                  // the _RO variants: no STORE or STOREDIST
	geoSearch                   // GEOSEARCH's arguments
	geoSearchStore              // GEOSEARCHSTORE: STOREDIST as a flag
)

// GEORADIUS key longitude latitude radius M|KM|FT|MI [WITHCOORD] [WITHDIST] [WITHHASH] [COUNT count [ANY]] [ASC|DESC] [STORE key] [STOREDIST key]
func cmdGeoRadius(c *Client, args [][]byte) { c.georadius(args, 1, geoRadiusCoords) }

// GEORADIUSBYMEMBER key member radius M|KM|FT|MI [...]
func cmdGeoRadiusByMember(c *Client, args [][]byte) { c.georadius(args, 1, geoRadiusMember) }

// GEORADIUS_RO key longitude latitude radius M|KM|FT|MI [...]
func cmdGeoRadiusRO(c *Client, args [][]byte) {
	c.georadius(args, 1, geoRadiusCoords|geoNoStore)
}

// GEORADIUSBYMEMBER_RO key member radius M|KM|FT|MI [...]
func cmdGeoRadiusByMemberRO(c *Client, args [][]byte) {
	c.georadius(args, 1, geoRadiusMember|geoNoStore)
}

// GEOSEARCH key FROMMEMBER member|FROMLONLAT longitude latitude BYRADIUS radius unit|BYBOX width height unit [ASC|DESC] [COUNT count [ANY]] [WITHCOORD] [WITHDIST] [WITHHASH]
func cmdGeoSearch(c *Client, args [][]byte) { c.georadius(args, 1, geoSearch) }

// GEOSEARCHSTORE destination source FROMMEMBER ...|FROMLONLAT ... BYRADIUS ...|BYBOX ... [ASC|DESC] [COUNT count [ANY]] [STOREDIST]
func cmdGeoSearchStore(c *Client, args [][]byte) {
	c.georadius(args, 2, geoSearch|geoSearchStore)
}

// geoPoint is a member found by a search.
type geoPoint struct {
	member   []byte
	score    float64
	lon, lat float64
	dist     float64 // meters
}

const (
	geoSortNone = iota
	geoSortAsc
	geoSortDesc
)

// georadius is Redis 7.0's georadiusGeneric: args[src] is the source key.
func (c *Client) georadius(args [][]byte, src int, flags int) {
	var z *zset.ZSet
	if e := c.lookupRead(args[src]); e != nil {
		if e.Kind != keyspace.KindZSet {
			c.errorReply(errWrongType)
			return
		}
		z = zsetOf(e)
	}
	var shape geo.Shape
	var store []byte
	storeIdx := -1
	base := 0
	var ok bool
	switch {
	case flags&geoRadiusCoords != 0:
		base = 6
		if shape.Lon, shape.Lat, ok = c.geoLonLat(args[2:]); !ok {
			return
		}
		if shape.Radius, shape.Unit, ok = c.geoRadius(args[4:]); !ok {
			return
		}
	case flags&geoRadiusMember != 0 && z == nil:
		// No source: parse the options all the same, to know the reply.
		base = 5
	case flags&geoRadiusMember != 0:
		base = 5
		if shape.Lon, shape.Lat, ok = geoMember(z, args[2]); !ok {
			c.errorReply(errGeoMember)
			return
		}
		if shape.Radius, shape.Unit, ok = c.geoRadius(args[3:]); !ok {
			return
		}
	default: // GEOSEARCH, GEOSEARCHSTORE
		base = 2
		if flags&geoSearchStore != 0 {
			base = 3
			store, storeIdx = args[1], 1
		}
	}

	withDist, withHash, withCoord := false, false, false
	fromMember, fromLoc, byRadius, byBox := false, false, false, false
	sort, any, storeDist := geoSortNone, false, false
	count := int64(0)
	search := flags&geoSearch != 0
	canStore := flags&(geoNoStore|geoSearch) == 0
	for i := base; i < len(args); i++ {
		left := len(args) - i - 1
		arg := cstr(args[i])
		switch {
		case equalFold(arg, "withdist"):
			withDist = true
		case equalFold(arg, "withhash"):
			withHash = true
		case equalFold(arg, "withcoord"):
			withCoord = true
		case equalFold(arg, "any"):
			any = true
		case equalFold(arg, "asc"):
			sort = geoSortAsc
		case equalFold(arg, "desc"):
			sort = geoSortDesc
		case equalFold(arg, "count") && left >= 1:
			if count, ok = c.intArg(args[i+1]); !ok {
				return
			}
			if count <= 0 {
				c.errorReply(errCountPositive)
				return
			}
			i++
		case equalFold(arg, "store") && left >= 1 && canStore:
			store, storeIdx, storeDist = args[i+1], i+1, false
			i++
		case equalFold(arg, "storedist") && left >= 1 && canStore:
			store, storeIdx, storeDist = args[i+1], i+1, true
			i++
		case equalFold(arg, "storedist") && search && flags&geoSearchStore != 0:
			storeDist = true
		case equalFold(arg, "frommember") && left >= 1 && search && !fromLoc:
			if z != nil {
				if shape.Lon, shape.Lat, ok = geoMember(z, args[i+1]); !ok {
					c.errorReply(errGeoMember)
					return
				}
			}
			fromMember = true
			i++
		case equalFold(arg, "fromlonlat") && left >= 2 && search && !fromMember:
			if shape.Lon, shape.Lat, ok = c.geoLonLat(args[i+1:]); !ok {
				return
			}
			fromLoc = true
			i += 2
		case equalFold(arg, "byradius") && left >= 2 && search && !byBox:
			if shape.Radius, shape.Unit, ok = c.geoRadius(args[i+1:]); !ok {
				return
			}
			shape.Box = false
			byRadius = true
			i += 2
		case equalFold(arg, "bybox") && left >= 3 && search && !byRadius:
			if shape.Width, shape.Height, shape.Unit, ok = c.geoBox(args[i+1:]); !ok {
				return
			}
			shape.Box = true
			byBox = true
			i += 3
		default:
			c.errorReply(errSyntax)
			return
		}
	}

	if store != nil && (withDist || withHash || withCoord) {
		if flags&geoSearchStore != 0 {
			c.errorReply(errGeoStoreSearch)
		} else {
			c.errorReply(errGeoStoreRadius)
		}
		return
	}
	if search && !fromMember && !fromLoc {
		c.errorReply("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " + string(cstr(args[0])))
		return
	}
	if search && !byRadius && !byBox {
		c.errorReply("ERR exactly one of BYRADIUS and BYBOX can be specified for " + string(cstr(args[0])))
		return
	}
	if any && count == 0 {
		c.errorReply(errGeoAnyNoCount)
		return
	}
	if store != nil && flags&geoSearchStore == 0 && storeIdx != georadiusStoreIndex(args, base) {
		// Never: the gate locked georadiusGetKeys's destination, which
		// the parser agrees with on every command it accepts.
		c.errorReply(errSyntax)
		return
	}
	if z == nil {
		if store != nil {
			c.geoStoreEmpty(store)
			c.w.Int(0)
		} else {
			c.propagateNothing()
			c.w.Array(0)
		}
		return
	}
	if count != 0 && sort == geoSortNone && !any {
		sort = geoSortAsc
	}
	limit := 0
	if any {
		limit = int(min(count, int64(z.Len())+1))
	}
	points := geoCollect(z, shape, limit)

	if len(points) == 0 && store == nil {
		c.propagateNothing()
		c.w.Array(0)
		return
	}
	returned := len(points)
	if count != 0 && int64(returned) > count {
		returned = int(count)
	}
	if sort != geoSortNone {
		if returned == len(points) {
			slices.SortStableFunc(points, func(a, b geoPoint) int {
				if sort == geoSortDesc {
					return cmp.Compare(b.dist, a.dist)
				}
				return cmp.Compare(a.dist, b.dist)
			})
		} else {
			geoPartialSort(points, returned, sort == geoSortDesc)
		}
	}
	points = points[:returned]

	if store == nil {
		c.propagateNothing()
		opts := 0
		for _, b := range []bool{withDist, withCoord, withHash} {
			if b {
				opts++
			}
		}
		c.w.Array(len(points))
		for _, p := range points {
			if opts > 0 {
				c.w.Array(opts + 1)
			}
			c.w.Bulk(p.member)
			if withDist {
				c.w.BulkString(geo.FormatDistance(p.dist / shape.Unit))
			}
			if withHash {
				c.w.Int(int64(p.score))
			}
			if withCoord {
				c.w.Array(2)
				c.geoCoord(p.lon)
				c.geoCoord(p.lat)
			}
		}
		return
	}

	if len(points) == 0 {
		c.geoStoreEmpty(store)
		c.w.Int(0)
		return
	}
	elems := make([]zset.Elem, len(points))
	for i, p := range points {
		s := p.score
		if storeDist {
			s = p.dist / shape.Unit
		}
		elems[i] = zset.Elem{Member: string(p.member), Score: s}
	}
	slices.SortFunc(elems, func(a, b zset.Elem) int {
		if c := cmp.Compare(a.Score, b.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.Member, b.Member)
	})
	event := "georadiusstore"
	if search {
		event = "geosearchstore"
	}
	c.storeElems(store, elems, event)
	c.w.Int(int64(len(elems)))
}

// geoStoreEmpty deletes the destination of a store that found nothing,
// propagating the command only when there was one to delete.
func (c *Client) geoStoreEmpty(dst []byte) {
	if c.db.Delete(dst) {
		c.notify(evGeneric, "del", dst)
	} else {
		c.propagateNothing()
	}
}

// geoCollect is membersOfAllNeighbors: the members in the shape, in the
// order Redis finds them, stopping at limit matches when limit > 0.
func geoCollect(z *zset.ZSet, shape geo.Shape, limit int) []geoPoint {
	var points []geoPoint
	for _, r := range shape.Ranges() {
		if len(points) > 0 && limit > 0 && len(points) >= limit {
			break
		}
		sr := zset.ScoreRange{Min: r.Min, Max: r.Max, MaxEx: true}
		lo, hi := z.ScoreRange(&sr)
		if lo >= hi {
			continue
		}
		n := hi - lo
		z.Walk(lo, false, func(m []byte, s float64) bool {
			lon, lat := geo.Decode(geo.ScoreBits(s))
			if dist, in := shape.Contains(lon, lat); in {
				points = append(points, geoPoint{member: bytes.Clone(m), score: s, lon: lon, lat: lat, dist: dist})
			}
			if len(points) > 0 && limit > 0 && len(points) >= limit {
				return false
			}
			n--
			return n > 0
		})
	}
	return points
}

// geoPartialSort is Redis's pqsort (NetBSD's qsort, Bentley & McIlroy,
// sorting only the partitions that overlap ranks [0, n)), with geo.c's
// comparators, so that ties come out in Redis's order. Redis 7.0.15's
// pqsort.c has no switch to insertion sort after a partition that swapped
// nothing (the order of ties, tested against redis-server, shows it).
func geoPartialSort(p []geoPoint, n int, desc bool) {
	cmpf := func(i, j int) int {
		r := cmp.Compare(p[i].dist, p[j].dist)
		if desc {
			return -r
		}
		return r
	}
	geoPQSort(p, 0, len(p), cmpf, 0, n-1)
}

func geoPQSort(p []geoPoint, a, n int, cmpf func(i, j int) int, lr, rr int) {
	swap := func(i, j int) { p[i], p[j] = p[j], p[i] }
	vecswap := func(i, j, k int) {
		for ; k > 0; k-- {
			swap(i, j)
			i++
			j++
		}
	}
	med3 := func(x, y, z int) int {
		if cmpf(x, y) < 0 {
			if cmpf(y, z) < 0 {
				return y
			}
			if cmpf(x, z) < 0 {
				return z
			}
			return x
		}
		if cmpf(y, z) > 0 {
			return y
		}
		if cmpf(x, z) < 0 {
			return x
		}
		return z
	}
	insertion := func() {
		for pm := a + 1; pm < a+n; pm++ {
			for pl := pm; pl > a && cmpf(pl-1, pl) > 0; pl-- {
				swap(pl, pl-1)
			}
		}
	}
	outside := func(s, cnt int) bool {
		return lr < s && rr < s || lr >= s+cnt && rr >= s+cnt
	}
	for {
		if n < 7 {
			insertion()
			return
		}
		pm := a + n/2
		if n > 7 {
			pl, pn := a, a+n-1
			if n > 40 {
				d := n / 8
				pl = med3(pl, pl+d, pl+2*d)
				pm = med3(pm-d, pm, pm+d)
				pn = med3(pn-2*d, pn-d, pn)
			}
			pm = med3(pl, pm, pn)
		}
		swap(a, pm)
		pa, pb := a+1, a+1
		pc, pd := a+n-1, a+n-1
		for {
			for pb <= pc {
				r := cmpf(pb, a)
				if r > 0 {
					break
				}
				if r == 0 {
					swap(pa, pb)
					pa++
				}
				pb++
			}
			for pb <= pc {
				r := cmpf(pc, a)
				if r < 0 {
					break
				}
				if r == 0 {
					swap(pc, pd)
					pd--
				}
				pc--
			}
			if pb > pc {
				break
			}
			swap(pb, pc)
			pb++
			pc--
		}
		pn := a + n
		r := min(pa-a, pb-pa)
		vecswap(a, pb-r, r)
		r = min(pd-pc, pn-pd-1)
		vecswap(pb, pn-r, r)
		if r = pb - pa; r > 1 && !outside(a, r) {
			geoPQSort(p, a, r, cmpf, lr, rr)
		}
		if r = pd - pc; r > 1 {
			a, n = pn-r, r
			if !outside(a, n) {
				continue
			}
		}
		return
	}
}
