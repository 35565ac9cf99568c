package server

import (
	"slices"

	"github.com/hotkv/hotkv/keyspace"
	"github.com/hotkv/hotkv/resp"
	"github.com/hotkv/hotkv/zset"
)

// Range kinds and directions of ZRANGE and its older forms, as Redis's
// zrangeGenericCommand names them; auto means the options decide.
const (
	zrangeAuto = iota
	zrangeRank
	zrangeScore
	zrangeLex
)

const (
	zdirAuto = iota
	zdirForward
	zdirReverse
)

// ZRANGE key start stop [BYSCORE|BYLEX] [REV] [LIMIT offset count] [WITHSCORES]
func cmdZRange(c *Client, args [][]byte) { c.zrange(args, 1, false, zrangeAuto, zdirAuto) }

// ZRANGESTORE dst src min max [BYSCORE|BYLEX] [REV] [LIMIT offset count]
func cmdZRangeStore(c *Client, args [][]byte) { c.zrange(args, 2, true, zrangeAuto, zdirAuto) }

// ZREVRANGE key start stop [WITHSCORES]
func cmdZRevRange(c *Client, args [][]byte) { c.zrange(args, 1, false, zrangeRank, zdirReverse) }

// ZRANGEBYSCORE key min max [WITHSCORES] [LIMIT offset count]
func cmdZRangeByScore(c *Client, args [][]byte) {
	c.zrange(args, 1, false, zrangeScore, zdirForward)
}

// ZREVRANGEBYSCORE key max min [WITHSCORES] [LIMIT offset count]
func cmdZRevRangeByScore(c *Client, args [][]byte) {
	c.zrange(args, 1, false, zrangeScore, zdirReverse)
}

// ZRANGEBYLEX key min max [LIMIT offset count]
func cmdZRangeByLex(c *Client, args [][]byte) { c.zrange(args, 1, false, zrangeLex, zdirForward) }

// ZREVRANGEBYLEX key max min [LIMIT offset count]
func cmdZRevRangeByLex(c *Client, args [][]byte) {
	c.zrange(args, 1, false, zrangeLex, zdirReverse)
}

// zrange is Redis's zrangeGenericCommand: args[src] is the source key,
// followed by the two ends of the range and the options; store is
// ZRANGESTORE (the destination is args[1]).
func (c *Client) zrange(args [][]byte, src int, store bool, typ, dir int) {
	minIdx, maxIdx := src+1, src+2
	withScores := false
	offset, limit := int64(0), int64(-1)
	for j := src + 3; j < len(args); j++ {
		left := len(args) - j - 1
		opt := cstr(args[j])
		switch {
		case !store && equalFold(opt, "withscores"):
			withScores = true
		case equalFold(opt, "limit") && left >= 2:
			var ok bool
			if offset, ok = c.intArg(args[j+1]); !ok {
				return
			}
			if limit, ok = c.intArg(args[j+2]); !ok {
				return
			}
			j += 2
		case dir == zdirAuto && equalFold(opt, "rev"):
			dir = zdirReverse
		case typ == zrangeAuto && equalFold(opt, "bylex"):
			typ = zrangeLex
		case typ == zrangeAuto && equalFold(opt, "byscore"):
			typ = zrangeScore
		default:
			c.errorReply(errSyntax)
			return
		}
	}
	if typ == zrangeAuto {
		typ = zrangeRank
	}
	reverse := dir == zdirReverse
	if limit != -1 && typ == zrangeRank {
		c.errorReply(errZRangeLimit)
		return
	}
	if withScores && typ == zrangeLex {
		c.errorReply(errZRangeWithscoresLex)
		return
	}
	if reverse && typ != zrangeRank {
		minIdx, maxIdx = maxIdx, minIdx // the range is given as max, min
	}
	var start, end int64
	var sr zset.ScoreRange
	var lr zset.LexRange
	var ok bool
	switch typ {
	case zrangeRank:
		if start, ok = c.intArg(args[minIdx]); !ok {
			return
		}
		if end, ok = c.intArg(args[maxIdx]); !ok {
			return
		}
	case zrangeScore:
		if sr, ok = zset.ParseScoreRange(args[minIdx], args[maxIdx]); !ok {
			c.errorReply(errZMinMaxFloat)
			return
		}
	case zrangeLex:
		if lr, ok = zset.ParseLexRange(args[minIdx], args[maxIdx]); !ok {
			c.errorReply(errZMinMaxLex)
			return
		}
	}
	z, ok := c.readZSet(args[src])
	if !ok {
		return
	}
	out := zrangeOut{w: &c.w, withScores: withScores, store: store}
	if z != nil {
		switch typ {
		case zrangeRank:
			zrangeByRank(&out, z, start, end, reverse)
		case zrangeScore:
			lo, hi := z.ScoreRange(&sr)
			zrangeWalk(&out, z, lo, hi, reverse, offset, limit, func(_ []byte, s float64) bool {
				if reverse {
					return sr.GteMin(s)
				}
				return sr.LteMax(s)
			})
		case zrangeLex:
			lo, hi := z.LexRange(&lr, reverse)
			zrangeWalk(&out, z, lo, hi, reverse, offset, limit, func(m []byte, _ float64) bool {
				if reverse {
					return lr.GteMin(m)
				}
				return lr.LteMax(m)
			})
		}
	}
	if !store {
		out.finish()
		return
	}
	c.storeRange(args[1], out.elems, reverse)
}

// zrangeOut receives the elements of a range: written to the client (the
// header goes in front once their number is known), or kept for
// ZRANGESTORE.
type zrangeOut struct {
	w          *resp.Writer
	withScores bool
	store      bool
	started    bool
	mark, n    int
	elems      []zset.Elem
}

func (o *zrangeOut) emit(m []byte, s float64) {
	if o.store {
		o.elems = append(o.elems, zset.Elem{Member: string(m), Score: s})
		return
	}
	if !o.started {
		o.started, o.mark = true, len(o.w.Buf)
	}
	zsetElem(o.w, m, s, o.withScores)
	o.n++
}

// finish writes the reply's header in front of its elements.
func (o *zrangeOut) finish() {
	if !o.started {
		zsetHeader(o.w, 0, o.withScores)
		return
	}
	hw := resp.Writer{Proto: o.w.Proto}
	var tmp [24]byte
	hw.Buf = tmp[:0]
	zsetHeader(&hw, o.n, o.withScores)
	h := hw.Buf
	buf := o.w.Buf
	buf = append(buf, h...)
	copy(buf[o.mark+len(h):], buf[o.mark:len(buf)-len(h)])
	copy(buf[o.mark:], h)
	o.w.Buf = buf
}

// zrangeByRank is Redis's genericZrangebyrankCommand.
func zrangeByRank(out *zrangeOut, z *zset.ZSet, start, end int64, reverse bool) {
	n := int64(z.Len())
	if start < 0 {
		start += n
	}
	if end < 0 {
		end += n
	}
	if start < 0 {
		start = 0
	}
	if start > end || start >= n {
		return
	}
	if end >= n {
		end = n - 1
	}
	count := end - start + 1
	from := start
	if reverse {
		from = n - 1 - start
	}
	z.Walk(int(from), reverse, func(m []byte, s float64) bool {
		out.emit(m, s)
		count--
		return count > 0
	})
}

// zrangeWalk emits the elements of a score or lex range whose ranks are
// [lo, hi), as Redis's genericZrangebyscoreCommand does: from the first
// (or, if reverse, the last) one, skipping offset elements, then up to
// limit ones (all when limit < 0) while inRange holds.
func zrangeWalk(out *zrangeOut, z *zset.ZSet, lo, hi int, reverse bool, offset, limit int64,
	inRange func(m []byte, s float64) bool) {
	if lo >= hi || offset < 0 || offset >= int64(z.Len()) {
		// A negative offset makes Redis skip past the end.
		return
	}
	from := lo
	if reverse {
		from = hi - 1
	}
	skip := offset
	z.Walk(from, reverse, func(m []byte, s float64) bool {
		if skip > 0 {
			skip--
			return true
		}
		if limit == 0 || !inRange(m, s) {
			return false
		}
		limit--
		out.emit(m, s)
		return true
	})
}

// storeRange stores the elements of ZRANGESTORE (in range order) at dst
// and replies with their number. An empty result deletes dst.
func (c *Client) storeRange(dst []byte, elems []zset.Elem, reverse bool) {
	if len(elems) == 0 {
		c.deleteStored(dst)
		c.w.Int(0)
		return
	}
	if reverse {
		slices.Reverse(elems)
	}
	c.storeElems(dst, elems, "zrangestore")
	c.w.Int(int64(len(elems)))
}

// storeElems stores a new sorted set holding elems (in order, distinct)
// at dst, replacing whatever was there: in the small form when it is
// within the thresholds, as Redis's zsetConvertToListpackIfNeeded decides.
func (c *Client) storeElems(dst []byte, elems []zset.Elem, event string) {
	maxEntries, maxValue := c.zsetLimits()
	small := len(elems) <= maxEntries
	for _, e := range elems {
		if len(e.Member) > maxValue {
			small = false
			break
		}
	}
	c.db.Set(dst, keyspace.NewObject(dst, keyspace.KindZSet, zset.NewFromSorted(elems, small)))
	c.notify(evZset, event, dst)
}

// ZREMRANGEBYRANK key start stop
func cmdZRemRangeByRank(c *Client, args [][]byte) { c.zremrange(args, zrangeRank) }

// ZREMRANGEBYSCORE key min max
func cmdZRemRangeByScore(c *Client, args [][]byte) { c.zremrange(args, zrangeScore) }

// ZREMRANGEBYLEX key min max
func cmdZRemRangeByLex(c *Client, args [][]byte) { c.zremrange(args, zrangeLex) }

// zremrange is Redis's zremrangeGenericCommand.
func (c *Client) zremrange(args [][]byte, typ int) {
	var start, end int64
	var sr zset.ScoreRange
	var lr zset.LexRange
	var ok bool
	switch typ {
	case zrangeRank:
		if start, ok = c.intArg(args[2]); !ok {
			return
		}
		if end, ok = c.intArg(args[3]); !ok {
			return
		}
	case zrangeScore:
		if sr, ok = zset.ParseScoreRange(args[2], args[3]); !ok {
			c.errorReply(errZMinMaxFloat)
			return
		}
	case zrangeLex:
		if lr, ok = zset.ParseLexRange(args[2], args[3]); !ok {
			c.errorReply(errZMinMaxLex)
			return
		}
	}
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
	var lo, hi int
	switch typ {
	case zrangeRank:
		n := int64(z.Len())
		if start < 0 {
			start += n
		}
		if end < 0 {
			end += n
		}
		if start < 0 {
			start = 0
		}
		if start > end || start >= n {
			c.dirty(0)
			c.w.Int(0)
			return
		}
		lo, hi = int(start), int(min(end, n-1))+1
	case zrangeScore:
		lo, hi = z.ScoreRange(&sr)
	case zrangeLex:
		lo, hi = z.LexRange(&lr, false)
	}
	deleted := z.DeleteRange(lo, hi)
	c.zsetChanged(key, e, [...]string{zrangeRank: "zremrangebyrank", zrangeScore: "zremrangebyscore", zrangeLex: "zremrangebylex"}[typ], deleted > 0)
	c.dirty(deleted)
	c.w.Int(int64(deleted))
}
