package server

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"sync/atomic"

	"github.com/hotkv/hotkv/config"
	"github.com/hotkv/hotkv/glob"
	"github.com/hotkv/hotkv/hash"
	"github.com/hotkv/hotkv/keyspace"
)

// hashCommands is the hash command group (issue #3).
func hashCommands() []*Command {
	const (
		rwf = Write | DenyOOM | Fast
		wf  = Write | Fast
		rof = Readonly | Fast
		ro  = Readonly
	)
	return []*Command{
		{Name: "hset", Arity: -4, Flags: rwf, First: 1, Last: 1, Step: 1, Handler: cmdHset},
		{Name: "hmset", Arity: -4, Flags: rwf, First: 1, Last: 1, Step: 1, Handler: cmdHmset},
		{Name: "hsetnx", Arity: 4, Flags: rwf, First: 1, Last: 1, Step: 1, Handler: cmdHsetNX},
		{Name: "hget", Arity: 3, Flags: rof, First: 1, Last: 1, Step: 1, Handler: cmdHget},
		{Name: "hmget", Arity: -3, Flags: rof, First: 1, Last: 1, Step: 1, Handler: cmdHmget},
		{Name: "hdel", Arity: -3, Flags: wf, First: 1, Last: 1, Step: 1, Handler: cmdHdel},
		{Name: "hlen", Arity: 2, Flags: rof, First: 1, Last: 1, Step: 1, Handler: cmdHlen},
		{Name: "hstrlen", Arity: 3, Flags: rof, First: 1, Last: 1, Step: 1, Handler: cmdHstrlen},
		{Name: "hexists", Arity: 3, Flags: rof, First: 1, Last: 1, Step: 1, Handler: cmdHexists},
		{Name: "hkeys", Arity: 2, Flags: ro, First: 1, Last: 1, Step: 1, Handler: cmdHkeys},
		{Name: "hvals", Arity: 2, Flags: ro, First: 1, Last: 1, Step: 1, Handler: cmdHvals},
		{Name: "hgetall", Arity: 2, Flags: ro, First: 1, Last: 1, Step: 1, Handler: cmdHgetall},
		{Name: "hincrby", Arity: 4, Flags: rwf, First: 1, Last: 1, Step: 1, Handler: cmdHincrBy},
		{Name: "hincrbyfloat", Arity: 4, Flags: rwf, First: 1, Last: 1, Step: 1, Handler: cmdHincrByFloat},
		{Name: "hrandfield", Arity: -2, Flags: ro, First: 1, Last: 1, Step: 1, Handler: cmdHrandfield},
		{Name: "hscan", Arity: -3, Flags: ro, First: 1, Last: 1, Step: 1, Handler: cmdHscan},
	}
}

// hashParams caches the two listpack thresholds of the last configuration
// seen, so that a write to a small hash costs no configuration lookup by
// name (a process runs one server; tests run several).
var hashParams atomic.Pointer[hashParamSet]

type hashParamSet struct {
	cfg            *config.Config
	entries, value *config.Param
}

// hashLimits returns hash-max-listpack-entries and hash-max-listpack-value
// as they are now.
func (c *Client) hashLimits() hash.Limits {
	ps := hashParams.Load()
	if ps == nil || ps.cfg != c.srv.cfg {
		ps = &hashParamSet{
			cfg:     c.srv.cfg,
			entries: c.srv.hashMaxListpackEntries,
			value:   c.srv.hashMaxListpackValue,
		}
		hashParams.Store(ps)
	}
	return hash.Limits{
		MaxEntries: int(min(ps.entries.Int(), math.MaxInt)),
		MaxValue:   int(min(ps.value.Int(), math.MaxInt)),
	}
}

// hashRead returns key's hash for a read: nil when the key is missing.
// ok is false after replying WRONGTYPE.
func (c *Client) hashRead(key []byte) (h *hash.Hash, ok bool) {
	e := c.lookupRead(key)
	if e == nil {
		return nil, true
	}
	if !c.checkType(e, keyspace.KindHash) {
		return nil, false
	}
	return e.Obj.(*hash.Hash), true
}

// hashWrite returns key's hash for a write, or a new empty one (with e ==
// nil) when the key is missing, as Redis's hashTypeLookupWriteOrCreate;
// hashStore then stores it. ok is false after replying WRONGTYPE.
func (c *Client) hashWrite(key []byte) (h *hash.Hash, e *keyspace.Entry, ok bool) {
	e = c.lookupWrite(key)
	if e == nil {
		return hash.New(), nil, true
	}
	if !c.checkType(e, keyspace.KindHash) {
		return nil, nil, false
	}
	return e.Obj.(*hash.Hash), e, true
}

// hashStore stores the new hash h under key (e == nil) or re-accounts the
// existing entry e after an in-place change.
func (c *Client) hashStore(key []byte, e *keyspace.Entry, h *hash.Hash, event string) {
	if e == nil {
		c.db.Set(key, keyspace.NewObject(key, keyspace.KindHash, h))
	} else {
		c.db.Updated(key, e)
	}
	c.notify(evHash, event, key)
}

// hashSetPairs is HSET and HMSET: the field/value pairs from args[2].
func hashSetPairs(c *Client, args [][]byte, name string) (created int64, ok bool) {
	if len(args)%2 == 1 {
		c.errorReply(fmt.Sprintf(errArity, name))
		return 0, false
	}
	key := args[1]
	h, e, ok := c.hashWrite(key)
	if !ok {
		return 0, false
	}
	lim := c.hashLimits()
	for i := 2; i < len(args); i += 2 {
		if h.Set(args[i], args[i+1], lim) {
			created++
		}
	}
	c.hashStore(key, e, h, "hset")
	c.dirty((len(args) - 2) / 2) // every field set counts, as in Redis
	return created, true
}

// HSET key field value [field value ...]
func cmdHset(c *Client, args [][]byte) {
	if n, ok := hashSetPairs(c, args, "hset"); ok {
		c.w.Int(n)
	}
}

// HMSET key field value [field value ...]
func cmdHmset(c *Client, args [][]byte) {
	if _, ok := hashSetPairs(c, args, "hmset"); ok {
		c.w.OK()
	}
}

// HSETNX key field value
func cmdHsetNX(c *Client, args [][]byte) {
	key := args[1]
	h, e, ok := c.hashWrite(key)
	if !ok {
		return
	}
	if h.Exists(args[2]) {
		c.dirty(0)
		c.w.Int(0)
		return
	}
	h.Set(args[2], args[3], c.hashLimits())
	c.hashStore(key, e, h, "hset")
	c.w.Int(1)
}

// HGET key field
func cmdHget(c *Client, args [][]byte) {
	h, ok := c.hashRead(args[1])
	if !ok {
		return
	}
	if h != nil {
		if v, found := h.Get(args[2]); found {
			c.w.Bulk(v)
			return
		}
	}
	c.w.Null()
}

// HMGET key field [field ...]
func cmdHmget(c *Client, args [][]byte) {
	h, ok := c.hashRead(args[1])
	if !ok {
		return
	}
	c.w.Array(len(args) - 2)
	for _, f := range args[2:] {
		if h != nil {
			if v, found := h.Get(f); found {
				c.w.Bulk(v)
				continue
			}
		}
		c.w.Null()
	}
}

// HDEL key field [field ...]
func cmdHdel(c *Client, args [][]byte) {
	key := args[1]
	e := c.lookupWrite(key)
	if e == nil {
		c.dirty(0)
		c.w.Int(0)
		return
	}
	if !c.checkType(e, keyspace.KindHash) {
		return
	}
	h := e.Obj.(*hash.Hash)
	var deleted int64
	defer func() { c.dirty(int(deleted)) }()
	for _, f := range args[2:] {
		if h.Delete(f) {
			deleted++
			if h.Len() == 0 {
				break
			}
		}
	}
	if deleted > 0 {
		c.notify(evHash, "hdel", key)
	}
	if h.Len() == 0 {
		c.db.Delete(key)
		c.notify(evGeneric, "del", key)
	} else if deleted > 0 {
		c.db.Updated(key, e)
	}
	c.w.Int(deleted)
}

// HLEN key
func cmdHlen(c *Client, args [][]byte) {
	h, ok := c.hashRead(args[1])
	switch {
	case !ok:
	case h == nil:
		c.w.Int(0)
	default:
		c.w.Int(int64(h.Len()))
	}
}

// HSTRLEN key field
func cmdHstrlen(c *Client, args [][]byte) {
	h, ok := c.hashRead(args[1])
	if !ok {
		return
	}
	var n int
	if h != nil {
		v, _ := h.Get(args[2])
		n = len(v)
	}
	c.w.Int(int64(n))
}

// HEXISTS key field
func cmdHexists(c *Client, args [][]byte) {
	h, ok := c.hashRead(args[1])
	if !ok {
		return
	}
	if h != nil && h.Exists(args[2]) {
		c.w.Int(1)
	} else {
		c.w.Int(0)
	}
}

// What hashGetAll replies with.
const (
	hashFields = 1 << iota
	hashValues
)

// hashGetAll is Redis's genericHgetallCommand: HKEYS, HVALS and HGETALL.
// A missing key replies an empty array, or an empty map for HGETALL.
func hashGetAll(c *Client, key []byte, what int) {
	h, ok := c.hashRead(key)
	if !ok {
		return
	}
	n := 0
	if h != nil {
		n = h.Len()
	}
	if what == hashFields|hashValues {
		c.w.Map(n)
	} else {
		c.w.Array(n)
	}
	if h == nil {
		return
	}
	h.Each(func(f, v []byte) bool {
		if what&hashFields != 0 {
			c.w.Bulk(f)
		}
		if what&hashValues != 0 {
			c.w.Bulk(v)
		}
		return true
	})
}

// HKEYS key
func cmdHkeys(c *Client, args [][]byte) { hashGetAll(c, args[1], hashFields) }

// HVALS key
func cmdHvals(c *Client, args [][]byte) { hashGetAll(c, args[1], hashValues) }

// HGETALL key
func cmdHgetall(c *Client, args [][]byte) { hashGetAll(c, args[1], hashFields|hashValues) }

// HINCRBY key field increment
func cmdHincrBy(c *Client, args [][]byte) {
	incr, ok := c.intArg(args[3])
	if !ok {
		return
	}
	key, field := args[1], args[2]
	h, e, ok := c.hashWrite(key)
	if !ok {
		return
	}
	var cur int64
	if v, found := h.Get(field); found {
		if cur, ok = parseInt(v); !ok {
			c.errorReply(errHashNotInt)
			return
		}
	}
	if incr < 0 && cur < 0 && incr < math.MinInt64-cur ||
		incr > 0 && cur > 0 && incr > math.MaxInt64-cur {
		c.errorReply(errOverflow)
		return
	}
	cur += incr
	var tmp [24]byte
	h.Set(field, strconv.AppendInt(tmp[:0], cur, 10), c.hashLimits())
	c.hashStore(key, e, h, "hincrby")
	c.w.Int(cur)
}

// HINCRBYFLOAT key field increment
//
// The arithmetic is INCRBYFLOAT's long double emulation (cmd_string.go).
func cmdHincrByFloat(c *Client, args [][]byte) {
	incr, ok := parseLongDouble(args[3])
	if !ok {
		c.errorReply(errNotFloat)
		return
	}
	if incr.IsInf() {
		c.errorReply(errHashIncrNaN)
		return
	}
	key, field := args[1], args[2]
	h, e, ok := c.hashWrite(key)
	if !ok {
		return
	}
	cur := new(big.Float).SetPrec(ldPrec)
	if v, found := h.Get(field); found {
		if cur, ok = parseLongDouble(v); !ok {
			c.errorReply(errHashNotFloat)
			return
		}
	}
	if cur.IsInf() { // inf + finite is inf
		c.errorReply(errIncrFloatNaN)
		return
	}
	v, ok := c.addLongDoubles(cur, incr)
	if !ok {
		return
	}
	h.Set(field, v, c.hashLimits())
	c.hashStore(key, e, h, "hincrbyfloat")
	c.propagate(argHSET, key, field, v) // the value, not a float sum
	c.w.Bulk(v)
}

// HRANDFIELD key [count [WITHVALUES]]
func cmdHrandfield(c *Client, args [][]byte) {
	if len(args) >= 3 {
		count, ok := c.intArg(args[2])
		if !ok {
			return
		}
		if count == math.MinInt64 { // outside -LONG_MAX..LONG_MAX
			c.errorReply(errHashRandRange)
			return
		}
		withValues := len(args) == 4
		if len(args) > 4 || withValues && !equalFold(cstr(args[3]), "withvalues") {
			c.errorReply(errSyntax)
			return
		}
		if withValues && (count < -math.MaxInt64/2 || count > math.MaxInt64/2) {
			c.errorReply(errHashRandValuesRange)
			return
		}
		hashRandWithCount(c, args[1], count, withValues)
		return
	}
	h, ok := c.hashRead(args[1])
	switch {
	case !ok:
	case h == nil:
		c.w.Null()
	default:
		f, _ := h.Random(rand.IntN)
		c.w.Bulk(f)
	}
}

// hashRandWithCount is Redis's hrandfieldWithCountCommand. A negative
// count asks for that many picks, repeats allowed; a positive one for
// distinct fields, the whole hash (in its order) when it has no more.
// WITHVALUES replies a flat array in RESP2 and pairs in RESP3.
func hashRandWithCount(c *Client, key []byte, l int64, withValues bool) {
	h, ok := c.hashRead(key)
	if !ok {
		return
	}
	if h == nil || l == 0 {
		c.w.Array(0)
		return
	}
	pairs3 := withValues && c.w.Proto == 3
	reply := func(f, v []byte) {
		if pairs3 {
			c.w.Array(2)
		}
		c.w.Bulk(f)
		if withValues {
			c.w.Bulk(v)
		}
	}
	header := func(n int64) {
		if withValues && !pairs3 {
			n *= 2
		}
		c.w.Array(int(n))
	}
	if l < 0 || l == 1 {
		count := l
		if l < 0 {
			count = -l
		}
		header(count)
		n := 0
		h.RandomPairs(int(count), rand.IntN, func(f, v []byte) bool {
			reply(f, v)
			// A closed client stops it mid-run, as Redis.
			n++
			return n%1024 != 0 || !c.outputOverLimit()
		})
		return
	}
	size := int64(h.Len())
	header(min(l, size))
	h.RandomDistinct(int(min(l, size)), rand.IntN, reply)
}

// HSCAN key cursor [MATCH pattern] [COUNT count]
func cmdHscan(c *Client, args [][]byte) {
	cursor, ok := parseCursor(args[2])
	if !ok {
		c.errorReply(errInvalidCursor)
		return
	}
	h, ok := c.hashRead(args[1])
	if !ok {
		return
	}
	if h == nil {
		c.emptyScan()
		return
	}
	count, pattern, ok := c.scanOptions(args, 3)
	if !ok {
		return
	}
	var out [][]byte
	next := h.Scan(cursor, count, func(f, v []byte) {
		if pattern == nil || glob.Match(pattern, f, false) {
			out = append(out, f, v)
		}
	})
	c.w.Array(2)
	var tmp [24]byte
	c.w.Bulk(strconv.AppendUint(tmp[:0], next, 10))
	c.w.Array(len(out))
	for _, b := range out {
		c.w.Bulk(b)
	}
}
