package server

import (
	"fmt"

	"github.com/hotkv/hotkv/hll"
	"github.com/hotkv/hotkv/keyspace"
)

// HyperLogLog: PFADD, PFCOUNT and PFMERGE on strings in Redis's HLL
// format (package hll), so values move between HotKV and Redis; PFDEBUG
// and PFSELFTEST look inside.

func hllCommands() []*Command {
	return []*Command{
		{Name: "pfadd", Arity: -2, Flags: Write | DenyOOM | Fast, First: 1, Last: 1, Step: 1, Handler: cmdPfadd},
		// PFCOUNT is read-only for Redis, yet writes the cached cardinality
		// into the value: it locks its keys exclusively.
		{Name: "pfcount", Arity: -2, Flags: Readonly | MayReplicate | Exclusive, First: 1, Last: -1, Step: 1, Handler: cmdPfcount},
		{Name: "pfmerge", Arity: -2, Flags: Write | DenyOOM, First: 1, Last: -1, Step: 1, Handler: cmdPfmerge},
		{Name: "pfdebug", Arity: 3, Flags: Write | DenyOOM | Admin, First: 2, Last: 2, Step: 1, Handler: cmdPfdebug},
		{Name: "pfselftest", Arity: 1, Flags: Admin, Handler: cmdPfselftest},
	}
}

// PFDEBUG <GETREG | DECODE | ENCODING | TODENSE> key
func cmdPfdebug(c *Client, args [][]byte) {
	key := args[2]
	e := c.lookupWrite(key)
	if e == nil {
		c.errorReply(errPfdebugNoKey)
		return
	}
	if !c.checkType(e, keyspace.KindString) {
		return
	}
	if err := hll.Validate(e.Str()); err != nil {
		c.hllError(err)
		return
	}
	// Only a conversion to dense changes the value (and is propagated).
	toDense := func() bool {
		v, converted, err := hll.ToDense(e.Str())
		if err != nil {
			c.hllError(err)
			return false
		}
		if converted {
			c.storeHLL(key, e, v, true)
			c.dirty(1)
		} else {
			c.dirty(0)
		}
		return true
	}
	switch sub := args[1]; {
	case equalFold(sub, "getreg"):
		if !toDense() {
			return
		}
		regs := hll.Registers(e.Str())
		c.w.Array(len(regs))
		for _, r := range regs {
			c.w.Int(int64(r))
		}
	case equalFold(sub, "decode"):
		c.dirty(0)
		s, err := hll.Decode(e.Str())
		if err != nil {
			c.hllError(err)
			return
		}
		c.w.BulkString(s)
	case equalFold(sub, "encoding"):
		c.dirty(0)
		if hll.Sparse(e.Str()) {
			c.w.Simple("sparse")
		} else {
			c.w.Simple("dense")
		}
	case equalFold(sub, "todense"):
		sparse := hll.Sparse(e.Str())
		if toDense() {
			c.w.Int(b2i64(sparse))
		}
	default:
		c.dirty(0)
		c.errorReply(fmt.Sprintf(errPfdebugUnknown, cString(sub)))
	}
}

// PFSELFTEST: the HyperLogLog implementation's self test (hll.SelfTest).
func cmdPfselftest(c *Client, args [][]byte) {
	if err := hll.SelfTest(); err != nil {
		c.errorReply(err.Error())
		return
	}
	c.w.OK()
}

// hllError replies with an hll error (Redis's text).
func (c *Client) hllError(err error) { c.errorReply(err.Error()) }

// maxSparse is hll-sparse-max-bytes.
func (c *Client) maxSparse() int { return int(c.srv.hllSparseMaxBytes.Int()) }

// PFADD key [element [element ...]]
func cmdPfadd(c *Client, args [][]byte) {
	key := args[1]
	e := c.lookupWrite(key)
	if e == nil {
		c.db.Set(key, newHLLEntry(key, hll.Create(c.maxSparse(), args[2:]...)))
		c.notify(evString, "pfadd", key)
		c.w.Int(1)
		return
	}
	if !c.checkType(e, keyspace.KindString) {
		return
	}
	if err := hll.Validate(e.Str()); err != nil {
		c.hllError(err)
		return
	}
	nv, changed, err := hll.Add(e.Str(), c.maxSparse(), args[2:]...)
	c.storeHLL(key, e, nv, changed)
	if err != nil {
		c.propagateNothing()
		c.hllError(err)
		return
	}
	if !changed {
		c.propagateNothing()
		c.w.Int(0)
		return
	}
	c.notify(evString, "pfadd", key)
	c.w.Int(1)
}

// newHLLEntry returns a new entry holding the HyperLogLog v: a raw string,
// as Redis's createHLLObject makes it.
func newHLLEntry(key, v []byte) *keyspace.Entry {
	e := keyspace.NewString(key, v)
	e.MarkRaw()
	return e
}

// storeHLL makes v the value of e, key's string entry, a raw string as
// Redis unshares it. Only a change signals the key (WATCH): a PFADD that
// set no register leaves it untouched, as in Redis.
func (c *Client) storeHLL(key []byte, e *keyspace.Entry, v []byte, changed bool) {
	c.db.SetStringBuf(e, v)
	e.MarkRaw()
	if changed {
		c.db.Updated(key, e)
	} else {
		c.db.Resized(key, e)
	}
}

// unionHLL merges the HyperLogLogs of keys into u (a missing key is an
// empty one), checking them in order as Redis does; it returns false after
// replying with the error of the first key that is not a valid HLL.
func (c *Client) unionHLL(u *hll.Union, keys [][]byte) bool {
	for _, k := range keys {
		e := c.lookupRead(k)
		if e == nil {
			continue
		}
		if !c.checkType(e, keyspace.KindString) {
			return false
		}
		if err := u.Merge(e.Str()); err != nil {
			c.hllError(err)
			return false
		}
	}
	return true
}

// PFCOUNT key [key ...]
func cmdPfcount(c *Client, args [][]byte) {
	if len(args) == 2 {
		key := args[1]
		e := c.lookupRead(key)
		if e == nil {
			c.w.Int(0)
			return
		}
		if !c.checkType(e, keyspace.KindString) {
			return
		}
		n, nv, updated, err := hll.Count(e.Str())
		if err != nil {
			c.hllError(err)
			return
		}
		// The cached count is written back as Redis does, unless the key
		// is only read-locked (a read-only script): then it is not.
		if updated && c.guard.Covers(key, true) {
			c.storeHLL(key, e, nv, true)
			c.propagate(args...)
		}
		c.w.Int(int64(n))
		return
	}
	var u hll.Union
	if !c.unionHLL(&u, args[1:]) {
		return
	}
	c.w.Int(int64(u.Count()))
}

// PFMERGE destkey [sourcekey [sourcekey ...]]
func cmdPfmerge(c *Client, args [][]byte) {
	var u hll.Union
	if !c.unionHLL(&u, args[1:]) {
		return
	}
	key := args[1]
	e := c.lookupWrite(key)
	dst := hll.New()
	if e != nil {
		dst = e.Str()
	}
	nv, err := u.Store(dst, c.maxSparse())
	if err != nil {
		c.hllError(err)
		return
	}
	if e == nil {
		c.db.Set(key, newHLLEntry(key, nv))
	} else {
		c.storeHLL(key, e, nv, true)
	}
	c.notify(evString, "pfadd", key)
	c.w.OK()
}
