package server

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync/atomic"

	"github.com/hotkv/hotkv/config"
	"github.com/hotkv/hotkv/glob"
	"github.com/hotkv/hotkv/keyspace"
	"github.com/hotkv/hotkv/resp"
	"github.com/hotkv/hotkv/zset"
)

// zsetCommands is the sorted-set command group (issue #3). Ranges are in
// cmd_zset_range.go, ZUNION and friends in cmd_zset_setop.go. BZPOPMIN,
// BZPOPMAX and BZMPOP are left to the blocking mechanism; they can reply
// through zsetPop, as ZPOPMIN and ZMPOP do.
func zsetCommands() []*Command {
	const (
		rwf = Write | DenyOOM | Fast
		rw  = Write | DenyOOM
		wf  = Write | Fast
		rof = Readonly | Fast
		ro  = Readonly
	)
	return []*Command{
		{Name: "zadd", Arity: -4, Flags: rwf, First: 1, Last: 1, Step: 1, Handler: cmdZAdd},
		{Name: "zincrby", Arity: 4, Flags: rwf, First: 1, Last: 1, Step: 1, Handler: cmdZIncrBy},
		{Name: "zrem", Arity: -3, Flags: wf, First: 1, Last: 1, Step: 1, Handler: cmdZRem},
		{Name: "zcard", Arity: 2, Flags: rof, First: 1, Last: 1, Step: 1, Handler: cmdZCard},
		{Name: "zcount", Arity: 4, Flags: rof, First: 1, Last: 1, Step: 1, Handler: cmdZCount},
		{Name: "zlexcount", Arity: 4, Flags: rof, First: 1, Last: 1, Step: 1, Handler: cmdZLexCount},
		{Name: "zscore", Arity: 3, Flags: rof, First: 1, Last: 1, Step: 1, Handler: cmdZScore},
		{Name: "zmscore", Arity: -3, Flags: rof, First: 1, Last: 1, Step: 1, Handler: cmdZMScore},
		// Arity -3: the WITHSCORE option of Redis 7.2.
		{Name: "zrank", Arity: -3, Flags: rof, First: 1, Last: 1, Step: 1, Handler: cmdZRank},
		{Name: "zrevrank", Arity: -3, Flags: rof, First: 1, Last: 1, Step: 1, Handler: cmdZRevRank},
		{Name: "zrange", Arity: -4, Flags: ro, First: 1, Last: 1, Step: 1, Handler: cmdZRange},
		{Name: "zrangestore", Arity: -5, Flags: rw, First: 1, Last: 2, Step: 1, Handler: cmdZRangeStore},
		{Name: "zrangebyscore", Arity: -4, Flags: ro, First: 1, Last: 1, Step: 1, Handler: cmdZRangeByScore},
		{Name: "zrevrangebyscore", Arity: -4, Flags: ro, First: 1, Last: 1, Step: 1, Handler: cmdZRevRangeByScore},
		{Name: "zrangebylex", Arity: -4, Flags: ro, First: 1, Last: 1, Step: 1, Handler: cmdZRangeByLex},
		{Name: "zrevrangebylex", Arity: -4, Flags: ro, First: 1, Last: 1, Step: 1, Handler: cmdZRevRangeByLex},
		{Name: "zrevrange", Arity: -4, Flags: ro, First: 1, Last: 1, Step: 1, Handler: cmdZRevRange},
		{Name: "zremrangebyrank", Arity: 4, Flags: Write, First: 1, Last: 1, Step: 1, Handler: cmdZRemRangeByRank},
		{Name: "zremrangebyscore", Arity: 4, Flags: Write, First: 1, Last: 1, Step: 1, Handler: cmdZRemRangeByScore},
		{Name: "zremrangebylex", Arity: 4, Flags: Write, First: 1, Last: 1, Step: 1, Handler: cmdZRemRangeByLex},
		{Name: "zpopmin", Arity: -2, Flags: wf, First: 1, Last: 1, Step: 1, Handler: cmdZPopMin},
		{Name: "zpopmax", Arity: -2, Flags: wf, First: 1, Last: 1, Step: 1, Handler: cmdZPopMax},
		{Name: "zmpop", Arity: -4, Flags: Write, Keys: numkeysKeys(1, 0), Handler: cmdZMPop},
		{Name: "zrandmember", Arity: -2, Flags: ro, First: 1, Last: 1, Step: 1, Handler: cmdZRandMember},
		{Name: "zscan", Arity: -3, Flags: ro, First: 1, Last: 1, Step: 1, Handler: cmdZScan},
		{Name: "zunion", Arity: -3, Flags: ro, Keys: numkeysKeys(1, 0), Handler: cmdZUnion},
		{Name: "zinter", Arity: -3, Flags: ro, Keys: numkeysKeys(1, 0), Handler: cmdZInter},
		{Name: "zdiff", Arity: -3, Flags: ro, Keys: numkeysKeys(1, 0), Handler: cmdZDiff},
		{Name: "zintercard", Arity: -3, Flags: ro, Keys: numkeysKeys(1, 0), Handler: cmdZInterCard},
		{Name: "zunionstore", Arity: -4, Flags: rw, First: 1, Last: 1, Step: 1, Keys: numkeysKeys(2, 1), Handler: cmdZUnionStore},
		{Name: "zinterstore", Arity: -4, Flags: rw, First: 1, Last: 1, Step: 1, Keys: numkeysKeys(2, 1), Handler: cmdZInterStore},
		{Name: "zdiffstore", Arity: -4, Flags: rw, First: 1, Last: 1, Step: 1, Keys: numkeysKeys(2, 1), Handler: cmdZDiffStore},
	}
}

// zsetOf returns the sorted set of a zset entry.
func zsetOf(e *keyspace.Entry) *zset.ZSet { return e.Obj.(*zset.ZSet) }

// readZSet looks key up for a read: nil when it is missing, ok == false
// after replying WRONGTYPE.
func (c *Client) readZSet(key []byte) (z *zset.ZSet, ok bool) {
	e := c.lookupRead(key)
	if e == nil {
		return nil, true
	}
	if e.Kind != keyspace.KindZSet {
		c.errorReply(errWrongType)
		return nil, false
	}
	return zsetOf(e), true
}

// writeZSet looks key up for a write: nil when it is missing, ok == false
// after replying WRONGTYPE.
func (c *Client) writeZSet(key []byte) (e *keyspace.Entry, ok bool) {
	e = c.lookupWrite(key)
	if e != nil && e.Kind != keyspace.KindZSet {
		c.errorReply(errWrongType)
		return nil, false
	}
	return e, true
}

// zsetParams caches the threshold parameters of the configuration last
// seen, sparing ZADD two map lookups.
var zsetParams atomic.Pointer[zsetParamCache]

type zsetParamCache struct {
	cfg            *config.Config
	entries, value *config.Param
}

// zsetLimits returns zset-max-listpack-entries and zset-max-listpack-value.
func (c *Client) zsetLimits() (entries, value int) {
	pc := zsetParams.Load()
	if pc == nil || pc.cfg != c.srv.cfg {
		pc = &zsetParamCache{cfg: c.srv.cfg,
			entries: c.srv.zsetMaxListpackEntries,
			value:   c.srv.zsetMaxListpackValue}
		zsetParams.Store(pc)
	}
	return int(min(pc.entries.Int(), math.MaxInt32)), int(min(pc.value.Int(), math.MaxInt32))
}

// zsetChanged accounts for an in-place change of the set at key, deleting
// the key when the set is empty.
func (c *Client) zsetChanged(key []byte, e *keyspace.Entry, event string, changed bool) {
	if !changed {
		return // nothing to signal: WATCH is not touched, as in Redis
	}
	c.notify(evZset, event, key)
	if zsetOf(e).Len() == 0 {
		c.db.Delete(key)
		c.notify(evGeneric, "del", key)
		return
	}
	c.db.Updated(key, e)
}

// zsetHeader writes the header of a reply of n elements, with their
// scores when withScores: one flat array in RESP2, an array of pairs in
// RESP3.
func zsetHeader(w *resp.Writer, n int, withScores bool) {
	if withScores && w.Proto == 2 {
		w.Array(2 * n)
	} else {
		w.Array(n)
	}
}

// zsetElem writes one element of a reply zsetHeader began.
func zsetElem(w *resp.Writer, member []byte, score float64, withScores bool) {
	if withScores && w.Proto > 2 {
		w.Array(2)
	}
	w.Bulk(member)
	if withScores {
		w.Double(score)
	}
}

// ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member [score member ...]
func cmdZAdd(c *Client, args [][]byte) { c.zadd(args, 0) }

// ZINCRBY key increment member
func cmdZIncrBy(c *Client, args [][]byte) { c.zadd(args, zset.AddIncr) }

// zadd is Redis's zaddGenericCommand.
func (c *Client) zadd(args [][]byte, flags int) {
	ch := false
	i := 2
options:
	for ; i < len(args); i++ {
		opt := cstr(args[i])
		switch {
		case equalFold(opt, "nx"):
			flags |= zset.AddNX
		case equalFold(opt, "xx"):
			flags |= zset.AddXX
		case equalFold(opt, "ch"):
			ch = true
		case equalFold(opt, "incr"):
			flags |= zset.AddIncr
		case equalFold(opt, "gt"):
			flags |= zset.AddGT
		case equalFold(opt, "lt"):
			flags |= zset.AddLT
		default:
			break options
		}
	}
	incr, nx, xx := flags&zset.AddIncr != 0, flags&zset.AddNX != 0, flags&zset.AddXX != 0
	gt, lt := flags&zset.AddGT != 0, flags&zset.AddLT != 0
	pairs := args[i:]
	if len(pairs)%2 != 0 || len(pairs) == 0 {
		c.errorReply(errSyntax)
		return
	}
	switch {
	case nx && xx:
		c.errorReply(errZAddXXNX)
		return
	case gt && nx || lt && nx || gt && lt:
		c.errorReply(errGTLTNX)
		return
	case incr && len(pairs) > 2:
		c.errorReply(errZAddIncrPair)
		return
	}
	var buf [8]float64
	scores := buf[:0]
	for j := 0; j < len(pairs); j += 2 {
		s, ok := zset.ParseDouble(pairs[j])
		if !ok {
			c.errorReply(errNotFloat)
			return
		}
		scores = append(scores, s)
	}
	key := args[1]
	e, ok := c.writeZSet(key)
	if !ok {
		return
	}
	added, updated, processed := 0, 0, 0
	var score float64
	if e == nil && !xx {
		maxEntries, maxValue := c.zsetLimits()
		z := zset.New(maxEntries != 0 && len(pairs[1]) <= maxValue)
		e = keyspace.NewObject(key, keyspace.KindZSet, z)
		c.db.Set(key, e)
	}
	if e != nil {
		z := zsetOf(e)
		maxEntries, maxValue := c.zsetLimits()
		for j, s := range scores {
			out, ns := z.Add(pairs[2*j+1], s, flags, maxEntries, maxValue)
			if out&zset.NaN != 0 { // INCR's one pair: nothing changed
				c.errorReply(errZScoreNaN)
				return
			}
			if out&zset.Added != 0 {
				added++
			}
			if out&zset.Updated != 0 {
				updated++
			}
			if out&zset.Nop == 0 {
				processed++
			}
			score = ns
		}
		event := "zadd"
		if incr {
			event = "zincr"
		}
		c.zsetChanged(key, e, event, added+updated > 0)
	}
	c.dirty(added + updated)
	switch {
	case !incr && ch:
		c.w.Int(int64(added + updated))
	case !incr:
		c.w.Int(int64(added))
	case processed > 0:
		c.w.Double(score)
	default:
		c.w.Null()
	}
}

// ZREM key member [member ...]
func cmdZRem(c *Client, args [][]byte) {
	key := args[1]
	e, ok := c.writeZSet(key)
	if !ok {
		return
	}
	if e == nil {
		c.dirty(0)
		c.w.Int(0)
		return
	}
	z := zsetOf(e)
	deleted := 0
	for _, m := range args[2:] {
		if z.Delete(m) {
			deleted++
		}
		if z.Len() == 0 {
			break
		}
	}
	c.zsetChanged(key, e, "zrem", deleted > 0)
	c.dirty(deleted)
	c.w.Int(int64(deleted))
}

// ZCARD key
func cmdZCard(c *Client, args [][]byte) {
	z, ok := c.readZSet(args[1])
	switch {
	case !ok:
	case z == nil:
		c.w.Int(0)
	default:
		c.w.Int(int64(z.Len()))
	}
}

// ZSCORE key member
func cmdZScore(c *Client, args [][]byte) {
	z, ok := c.readZSet(args[1])
	if !ok {
		return
	}
	if z == nil {
		c.w.Null()
		return
	}
	if s, ok := z.Score(args[2]); ok {
		c.w.Double(s)
	} else {
		c.w.Null()
	}
}

// ZMSCORE key member [member ...]
func cmdZMScore(c *Client, args [][]byte) {
	z, ok := c.readZSet(args[1])
	if !ok {
		return
	}
	c.w.Array(len(args) - 2)
	for _, m := range args[2:] {
		if z == nil {
			c.w.Null()
		} else if s, ok := z.Score(m); ok {
			c.w.Double(s)
		} else {
			c.w.Null()
		}
	}
}

// ZRANK key member [WITHSCORE]
func cmdZRank(c *Client, args [][]byte) { c.zrank(args, false) }

// ZREVRANK key member [WITHSCORE]
func cmdZRevRank(c *Client, args [][]byte) { c.zrank(args, true) }

// zrank is Redis 7.2's zrankGenericCommand (WITHSCORE is a 7.2 option).
func (c *Client) zrank(args [][]byte, reverse bool) {
	if len(args) > 4 {
		name := "zrank"
		if reverse {
			name = "zrevrank"
		}
		c.errorReply(fmt.Sprintf(errArity, name))
		return
	}
	withScore := false
	if len(args) == 4 {
		if !equalFold(cstr(args[3]), "withscore") {
			c.errorReply(errSyntax)
			return
		}
		withScore = true
	}
	null := c.w.Null
	if withScore {
		null = c.w.NullArray
	}
	z, ok := c.readZSet(args[1])
	if !ok {
		return
	}
	if z == nil {
		null()
		return
	}
	r, s, found := z.Rank(args[2])
	if !found {
		null()
		return
	}
	if reverse {
		r = z.Len() - 1 - r
	}
	if withScore {
		c.w.Array(2)
	}
	c.w.Int(int64(r))
	if withScore {
		c.w.Double(s)
	}
}

// ZCOUNT key min max
func cmdZCount(c *Client, args [][]byte) {
	r, ok := zset.ParseScoreRange(args[2], args[3])
	if !ok {
		c.errorReply(errZMinMaxFloat)
		return
	}
	z, ok := c.readZSet(args[1])
	switch {
	case !ok:
	case z == nil:
		c.w.Int(0)
	default:
		lo, hi := z.ScoreRange(&r)
		c.w.Int(int64(hi - lo))
	}
}

// ZLEXCOUNT key min max
func cmdZLexCount(c *Client, args [][]byte) {
	r, ok := zset.ParseLexRange(args[2], args[3])
	if !ok {
		c.errorReply(errZMinMaxLex)
		return
	}
	z, ok := c.readZSet(args[1])
	switch {
	case !ok:
	case z == nil:
		c.w.Int(0)
	default:
		lo, hi := z.LexRange(&r, false)
		c.w.Int(int64(hi - lo))
	}
}

// Shapes of a pop reply, as Redis's genericZpopCommand writes them.
const (
	popFlat      = iota // ZPOPMIN/ZPOPMAX in RESP2 or without a count: [m, s, ...]
	popNested           // ZPOPMIN/ZPOPMAX with a count in RESP3: [[m, s], ...]
	popKeyFlat          // BZPOPMIN/BZPOPMAX: [key, m, s]
	popKeyNested        // ZMPOP/BZMPOP: [key, [[m, s], ...]]
)

// zsetPop pops up to count (>= 1) elements from the low end (or, if max,
// the high end) of the non-empty sorted set e at key in db, writes them
// to w in the given shape, and deletes the key if the set empties. The
// caller holds key's lock exclusively. It is the core of ZPOPMIN,
// ZPOPMAX and ZMPOP, meant for their blocking forms too.
func (c *Client) zsetPop(key []byte, e *keyspace.Entry, max bool, count int64, shape int) {
	w := &c.w
	z := zsetOf(e)
	n := int(min(count, int64(z.Len())))
	switch shape {
	case popFlat:
		w.Array(2 * n)
	case popNested:
		w.Array(n)
	case popKeyFlat:
		w.Array(2*n + 1)
		w.Bulk(key)
	case popKeyNested:
		w.Array(2)
		w.Bulk(key)
		w.Array(n)
	}
	nested := shape == popNested || shape == popKeyNested
	from := 0
	if max {
		from = z.Len() - 1
	}
	left := n
	z.Walk(from, max, func(m []byte, s float64) bool {
		if nested {
			w.Array(2)
		}
		w.Bulk(m)
		w.Double(s)
		left--
		return left > 0
	})
	if max {
		z.DeleteRange(z.Len()-n, z.Len())
	} else {
		z.DeleteRange(0, n)
	}
	event := "zpopmin"
	if max {
		event = "zpopmax"
	}
	c.zsetChanged(key, e, event, n > 0)
}

// ZPOPMIN key [count]
func cmdZPopMin(c *Client, args [][]byte) { c.zpopMinMax(args, false) }

// ZPOPMAX key [count]
func cmdZPopMax(c *Client, args [][]byte) { c.zpopMinMax(args, true) }

func (c *Client) zpopMinMax(args [][]byte, max bool) {
	if len(args) > 3 {
		c.errorReply(errSyntax)
		return
	}
	count := int64(-1)
	if len(args) == 3 {
		n, ok := parseInt(args[2])
		if !ok || n < 0 {
			c.errorReply(errMustBePositive)
			return
		}
		count = n
	}
	shape := popFlat
	if c.w.Proto > 2 && count != -1 {
		shape = popNested
	}
	e, ok := c.writeZSet(args[1])
	switch {
	case !ok:
	case e == nil || count == 0:
		c.w.Array(0)
	default:
		if count == -1 {
			count = 1
		}
		c.zsetPop(args[1], e, max, count, shape)
	}
}

// ZMPOP numkeys key [key ...] MIN|MAX [COUNT count]
func cmdZMPop(c *Client, args [][]byte) {
	keys, max, count, ok := c.parseZMPop(args, 1)
	if !ok {
		return
	}
	for _, key := range keys {
		e, ok := c.writeZSet(key)
		if !ok {
			return
		}
		if e != nil {
			c.propagateZPop(key, e, max, count, true)
			c.zsetPop(key, e, max, count, popKeyNested)
			return
		}
	}
	c.propagateNothing()
	c.w.NullArray()
}

// parseZMPop parses the arguments of ZMPOP (numkeys at index 1) or BZMPOP
// (at index 2) as Redis's zmpopGenericCommand does.
func (c *Client) parseZMPop(args [][]byte, numkeysIdx int) (keys [][]byte, max bool, count int64, ok bool) {
	numkeys, ok := parseInt(args[numkeysIdx])
	if !ok || numkeys < 1 {
		c.errorReply(errZNumkeys)
		return nil, false, 0, false
	}
	if numkeys >= int64(len(args)-numkeysIdx-1) {
		c.errorReply(errSyntax)
		return nil, false, 0, false
	}
	whereIdx := numkeysIdx + int(numkeys) + 1
	switch where := cstr(args[whereIdx]); {
	case equalFold(where, "min"):
	case equalFold(where, "max"):
		max = true
	default:
		c.errorReply(errSyntax)
		return nil, false, 0, false
	}
	count = -1
	for j := whereIdx + 1; j < len(args); j++ {
		if count == -1 && equalFold(cstr(args[j]), "count") && j+1 < len(args) {
			j++
			n, ok := parseInt(args[j])
			if !ok || n < 1 {
				c.errorReply(errZCount)
				return nil, false, 0, false
			}
			count = n
			continue
		}
		c.errorReply(errSyntax)
		return nil, false, 0, false
	}
	if count == -1 {
		count = 1
	}
	return args[numkeysIdx+1 : whereIdx], max, count, true
}

// ZRANDMEMBER key [count [WITHSCORES]]
func cmdZRandMember(c *Client, args [][]byte) {
	if len(args) >= 3 {
		l, ok := c.intArg(args[2])
		if !ok {
			return
		}
		if l == math.MinInt64 {
			c.errorReply(errZCountRange)
			return
		}
		withScores := false
		if len(args) > 4 || len(args) == 4 && !equalFold(cstr(args[3]), "withscores") {
			c.errorReply(errSyntax)
			return
		} else if len(args) == 4 {
			withScores = true
			if l < -math.MaxInt64/2 || l > math.MaxInt64/2 {
				c.errorReply(errZCountWithscores)
				return
			}
		}
		c.zrandWithCount(args[1], l, withScores)
		return
	}
	z, ok := c.readZSet(args[1])
	switch {
	case !ok:
	case z == nil:
		c.w.Null()
	default:
		m, _ := z.At(rand.IntN(z.Len()))
		c.w.Bulk(m)
	}
}

// zrandWithCount is Redis's zrandmemberWithCountCommand.
func (c *Client) zrandWithCount(key []byte, l int64, withScores bool) {
	z, ok := c.readZSet(key)
	if !ok {
		return
	}
	if z == nil || l == 0 {
		c.w.Array(0)
		return
	}
	size := z.Len()
	w := &c.w
	// Negative count: that many independent picks, repetitions allowed.
	if l < 0 || l == 1 {
		count := -l
		if l == 1 {
			count = 1
		}
		zsetHeader(w, int(count), withScores)
		for ; count > 0; count-- {
			m, s := z.At(rand.IntN(size))
			zsetElem(w, m, s, withScores)
			if count%1024 == 0 && c.outputOverLimit() {
				return // the client is closed: stop mid-run, as Redis
			}
		}
		return
	}
	count := int(min(l, int64(size)))
	zsetHeader(w, count, withScores)
	// The whole set, in the order Redis's iterator visits it: descending.
	if count == size {
		z.Walk(size-1, true, func(m []byte, s float64) bool {
			zsetElem(w, m, s, withScores)
			return true
		})
		return
	}
	// Distinct ranks: a partial shuffle of all of them when count is a
	// good part of the set, else random draws until enough are distinct.
	var ranks []int
	if count*3 > size {
		all := make([]int, size)
		for i := range all {
			all[i] = i
		}
		for i := 0; i < count; i++ {
			j := i + rand.IntN(size-i)
			all[i], all[j] = all[j], all[i]
		}
		ranks = all[:count]
	} else {
		seen := make(map[int]struct{}, count)
		for len(ranks) < count {
			r := rand.IntN(size)
			if _, dup := seen[r]; !dup {
				seen[r] = struct{}{}
				ranks = append(ranks, r)
			}
		}
		if z.Small() {
			slices.Sort(ranks) // a listpack gives its unique samples in order
		}
	}
	for _, r := range ranks {
		m, s := z.At(r)
		zsetElem(w, m, s, withScores)
	}
}

// ZSCAN key cursor [MATCH pattern] [COUNT count]
func cmdZScan(c *Client, args [][]byte) {
	cursor, ok := parseCursor(args[2])
	if !ok {
		c.errorReply(errInvalidCursor)
		return
	}
	z, ok := c.readZSet(args[1])
	if !ok {
		return
	}
	if z == nil {
		c.emptyScan()
		return
	}
	count, pattern, ok := c.scanOptions(args, 3)
	if !ok {
		return
	}
	type elem struct {
		m []byte
		s float64
	}
	var out []elem
	small := z.Small()
	next := z.Scan(cursor, count, func(m []byte, s float64) {
		if pattern == nil || glob.Match(pattern, m, false) {
			out = append(out, elem{m, s})
		}
	})
	c.w.Array(2)
	var tmp [32]byte
	c.w.Bulk(strconv.AppendUint(tmp[:0], next, 10))
	c.w.Array(2 * len(out))
	for _, e := range out {
		c.w.Bulk(e.m)
		c.w.Bulk(scanScore(tmp[:0], e.s, small))
	}
}

// scanScore formats a score as ZSCAN returns it: as a listpack holds it
// (an integer when the score is one, within ±2^62) for a small set, as
// "%.17g" otherwise.
func scanScore(dst []byte, s float64, small bool) []byte {
	const lim = math.MaxInt64 / 2
	if small && s >= -lim && s <= lim && s == math.Trunc(s) {
		return strconv.AppendInt(dst, int64(s), 10)
	}
	return resp.AppendDouble(dst, s)
}
