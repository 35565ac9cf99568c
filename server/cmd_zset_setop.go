package server

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"unsafe"

	"github.com/hotkv/hotkv/keyspace"
	"github.com/hotkv/hotkv/set"
	"github.com/hotkv/hotkv/zset"
)

// Set operations of ZUNION, ZINTER, ZDIFF and their STORE forms.
const (
	zopUnion = iota
	zopInter
	zopDiff
)

// Score aggregation of ZUNION and ZINTER.
const (
	aggrSum = iota
	aggrMin
	aggrMax
)

// ZUNION numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE SUM|MIN|MAX] [WITHSCORES]
func cmdZUnion(c *Client, args [][]byte) { c.zsetOp(args, nil, 1, zopUnion, false, "zunion") }

// ZINTER numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE SUM|MIN|MAX] [WITHSCORES]
func cmdZInter(c *Client, args [][]byte) { c.zsetOp(args, nil, 1, zopInter, false, "zinter") }

// ZDIFF numkeys key [key ...] [WITHSCORES]
func cmdZDiff(c *Client, args [][]byte) { c.zsetOp(args, nil, 1, zopDiff, false, "zdiff") }

// ZINTERCARD numkeys key [key ...] [LIMIT limit]
func cmdZInterCard(c *Client, args [][]byte) {
	c.zsetOp(args, nil, 1, zopInter, true, "zintercard")
}

// ZUNIONSTORE destination numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE SUM|MIN|MAX]
func cmdZUnionStore(c *Client, args [][]byte) {
	c.zsetOp(args, args[1], 2, zopUnion, false, "zunionstore")
}

// ZINTERSTORE destination numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE SUM|MIN|MAX]
func cmdZInterStore(c *Client, args [][]byte) {
	c.zsetOp(args, args[1], 2, zopInter, false, "zinterstore")
}

// ZDIFFSTORE destination numkeys key [key ...]
func cmdZDiffStore(c *Client, args [][]byte) {
	c.zsetOp(args, args[1], 2, zopDiff, false, "zdiffstore")
}

// zopSource is one input of a set operation: a sorted set, a plain set
// (whose members all score 1), or nothing (a missing key).
type zopSource struct {
	z      *zset.ZSet
	s      *set.Set
	obj    any // identity: the same key given twice is the same object
	weight float64
}

func (src *zopSource) len() int {
	switch {
	case src.z != nil:
		return src.z.Len()
	case src.s != nil:
		return src.s.Len()
	}
	return 0
}

// find returns member's score in the source.
func (src *zopSource) find(m []byte) (float64, bool) {
	switch {
	case src.z != nil:
		return src.z.Score(m)
	case src.s != nil:
		return 1, src.s.Contains(m)
	}
	return 0, false
}

// each calls fn with every element of the source.
func (src *zopSource) each(fn func(m []byte, s float64) bool) {
	switch {
	case src.z != nil:
		src.z.Walk(0, false, fn)
	case src.s != nil:
		for m := range src.s.All() {
			if !fn(m, 1) {
				return
			}
		}
	}
}

// aggregate is Redis's zunionInterAggregate.
func aggregate(target *float64, v float64, aggr int) {
	switch aggr {
	case aggrSum:
		*target += v
		// +inf + -inf is NaN: Redis makes it 0.
		if math.IsNaN(*target) {
			*target = 0
		}
	case aggrMin:
		if v < *target {
			*target = v
		}
	case aggrMax:
		if v > *target {
			*target = v
		}
	}
}

// zsetOp is Redis's zunionInterDiffGenericCommand: the inputs follow a
// numkeys argument at numkeysIdx; dst is the destination of the STORE
// forms (nil otherwise); cardOnly is ZINTERCARD.
func (c *Client) zsetOp(args [][]byte, dst []byte, numkeysIdx, op int, cardOnly bool, name string) {
	setnum, ok := c.intArg(args[numkeysIdx])
	if !ok {
		return
	}
	if setnum < 1 {
		c.errorReply(fmt.Sprintf(errZNeedKey, name))
		return
	}
	if setnum > int64(len(args)-numkeysIdx-1) {
		c.errorReply(errSyntax)
		return
	}
	src := make([]zopSource, setnum)
	j := numkeysIdx + 1
	for i := range src {
		src[i].weight = 1
		e := c.lookupRead(args[j])
		j++
		if e == nil {
			continue
		}
		switch e.Kind {
		case keyspace.KindZSet:
			src[i].z = zsetOf(e)
		case keyspace.KindSet:
			src[i].s = e.Obj.(*set.Set)
		default:
			c.errorReply(errWrongType)
			return
		}
		src[i].obj = e.Obj
	}
	aggr, withScores := aggrSum, false
	limit := int64(0)
	for j < len(args) {
		remaining := len(args) - j
		opt := cstr(args[j])
		switch {
		case op != zopDiff && !cardOnly && remaining >= int(setnum)+1 && equalFold(opt, "weights"):
			j++
			for i := range src {
				w, ok := zset.ParseDouble(args[j])
				if !ok {
					c.errorReply(errZWeightFloat)
					return
				}
				src[i].weight = w
				j++
			}
		case op != zopDiff && !cardOnly && remaining >= 2 && equalFold(opt, "aggregate"):
			switch a := cstr(args[j+1]); {
			case equalFold(a, "sum"):
				aggr = aggrSum
			case equalFold(a, "min"):
				aggr = aggrMin
			case equalFold(a, "max"):
				aggr = aggrMax
			default:
				c.errorReply(errSyntax)
				return
			}
			j += 2
		case dst == nil && !cardOnly && equalFold(opt, "withscores"):
			withScores = true
			j++
		case cardOnly && remaining >= 2 && equalFold(opt, "limit"):
			n, ok := parseInt(args[j+1])
			if !ok || n < 0 {
				c.errorReply(errZLimitNegative)
				return
			}
			limit = n
			j += 2
		default:
			c.errorReply(errSyntax)
			return
		}
	}
	if op != zopDiff {
		// Smallest first, as Redis sorts them (its qsort is stable here).
		slices.SortStableFunc(src, func(a, b zopSource) int { return cmp.Compare(a.len(), b.len()) })
	}
	if cardOnly {
		c.w.Int(int64(zinterCard(src, limit)))
		return
	}
	var elems []zset.Elem
	switch op {
	case zopInter:
		elems = zinter(src, aggr)
	case zopUnion:
		elems = zunion(src, aggr)
	case zopDiff:
		elems = zdiff(src)
	}
	slices.SortFunc(elems, func(a, b zset.Elem) int {
		switch {
		case a.Score < b.Score:
			return -1
		case a.Score > b.Score:
			return 1
		}
		return strings.Compare(a.Member, b.Member)
	})
	if dst != nil {
		if len(elems) == 0 {
			c.deleteStored(dst)
			c.w.Int(0)
			return
		}
		c.storeElems(dst, elems, name)
		c.w.Int(int64(len(elems)))
		return
	}
	zsetHeader(&c.w, len(elems), withScores)
	for _, e := range elems {
		zsetElem(&c.w, bytesOfString(e.Member), e.Score, withScores)
	}
}

// bytesOfString returns the bytes of s without copying (to be written,
// never modified).
func bytesOfString(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// zinter intersects the sources (sorted smallest first), walking the
// first and looking its members up in the others.
func zinter(src []zopSource, aggr int) []zset.Elem {
	var out []zset.Elem
	if src[0].len() == 0 {
		return nil
	}
	src[0].each(func(m []byte, s float64) bool {
		score := src[0].weight * s
		if math.IsNaN(score) {
			score = 0
		}
		for j := 1; j < len(src); j++ {
			if src[j].obj == src[0].obj {
				aggregate(&score, s*src[j].weight, aggr)
				continue
			}
			v, ok := src[j].find(m)
			if !ok {
				return true
			}
			aggregate(&score, v*src[j].weight, aggr)
		}
		out = append(out, zset.Elem{Member: string(m), Score: score})
		return true
	})
	return out
}

// zinterCard counts the intersection, stopping at limit (0: no limit).
func zinterCard(src []zopSource, limit int64) int64 {
	var n int64
	if src[0].len() == 0 {
		return 0
	}
	src[0].each(func(m []byte, _ float64) bool {
		for j := 1; j < len(src); j++ {
			if src[j].obj == src[0].obj {
				continue
			}
			if _, ok := src[j].find(m); !ok {
				return true
			}
		}
		n++
		return limit == 0 || n < limit
	})
	return n
}

// zunion accumulates the sources in order (smallest first).
func zunion(src []zopSource, aggr int) []zset.Elem {
	acc := make(map[string]int)
	var out []zset.Elem
	for i := range src {
		src[i].each(func(m []byte, s float64) bool {
			score := src[i].weight * s
			if math.IsNaN(score) {
				score = 0
			}
			if k, ok := acc[string(m)]; ok {
				aggregate(&out[k].Score, score, aggr)
				return true
			}
			member := string(m)
			acc[member] = len(out)
			out = append(out, zset.Elem{Member: member, Score: score})
			return true
		})
	}
	return out
}

// zdiff keeps the elements of the first source that no other has.
func zdiff(src []zopSource) []zset.Elem {
	if src[0].len() == 0 {
		return nil
	}
	for _, o := range src[1:] {
		if o.obj != nil && o.obj == src[0].obj {
			return nil
		}
	}
	var out []zset.Elem
	src[0].each(func(m []byte, s float64) bool {
		for _, o := range src[1:] {
			if _, ok := o.find(m); ok {
				return true
			}
		}
		out = append(out, zset.Elem{Member: string(m), Score: s})
		return true
	})
	return out
}
