package server

import (
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/hotkv/hotkv/glob"
	"github.com/hotkv/hotkv/keyspace"
	"github.com/hotkv/hotkv/set"
)

// setCommands is the set command group (issue #3). Values are *set.Set:
// an intset for all-integer sets up to set-max-intset-entries members, a
// hashtable otherwise, as in Redis 7.0.
func setCommands() []*Command {
	const (
		rwf  = Write | DenyOOM | Fast
		rw   = Write | DenyOOM
		wf   = Write | Fast
		rof  = Readonly | Fast
		ro   = Readonly
		last = -1
	)
	return []*Command{
		{Name: "sadd", Arity: -3, Flags: rwf, First: 1, Last: 1, Step: 1, Handler: cmdSAdd},
		{Name: "srem", Arity: -3, Flags: wf, First: 1, Last: 1, Step: 1, Handler: cmdSRem},
		{Name: "smove", Arity: 4, Flags: wf, First: 1, Last: 2, Step: 1, Handler: cmdSMove},
		{Name: "sismember", Arity: 3, Flags: rof, First: 1, Last: 1, Step: 1, Handler: cmdSIsMember},
		{Name: "smismember", Arity: -3, Flags: rof, First: 1, Last: 1, Step: 1, Handler: cmdSMIsMember},
		{Name: "scard", Arity: 2, Flags: rof, First: 1, Last: 1, Step: 1, Handler: cmdSCard},
		{Name: "spop", Arity: -2, Flags: wf, First: 1, Last: 1, Step: 1, Handler: cmdSPop},
		{Name: "srandmember", Arity: -2, Flags: ro, First: 1, Last: 1, Step: 1, Handler: cmdSRandMember},
		{Name: "smembers", Arity: 2, Flags: ro, First: 1, Last: 1, Step: 1, Handler: cmdSMembers},
		{Name: "sinter", Arity: -2, Flags: ro, First: 1, Last: last, Step: 1, Handler: cmdSInter},
		{Name: "sintercard", Arity: -3, Flags: ro, Keys: sintercardKeys, Handler: cmdSInterCard},
		{Name: "sinterstore", Arity: -3, Flags: rw, First: 1, Last: last, Step: 1, Handler: cmdSInterStore},
		{Name: "sunion", Arity: -2, Flags: ro, First: 1, Last: last, Step: 1, Handler: cmdSUnion},
		{Name: "sunionstore", Arity: -3, Flags: rw, First: 1, Last: last, Step: 1, Handler: cmdSUnionStore},
		{Name: "sdiff", Arity: -2, Flags: ro, First: 1, Last: last, Step: 1, Handler: cmdSDiff},
		{Name: "sdiffstore", Arity: -3, Flags: rw, First: 1, Last: last, Step: 1, Handler: cmdSDiffStore},
		{Name: "sscan", Arity: -3, Flags: ro, First: 1, Last: 1, Step: 1, Handler: cmdSScan},
	}
}

// sintercardKeys finds the keys of "CMD numkeys key [key ...] ..." (the
// numkeys at args[1]): none when numkeys is not a positive integer or
// exceeds the arguments left, so that the handler can report the error.
// Other commands with numkeys at args[1] (ZINTERCARD, LMPOP, ...) can use
// it.
func sintercardKeys(args [][]byte) []int {
	if len(args) < 2 {
		return nil
	}
	n, ok := parseInt(args[1])
	if !ok || n < 1 || n > int64(len(args)-2) {
		return nil
	}
	pos := make([]int, n)
	for i := range pos {
		pos[i] = 2 + i
	}
	return pos
}

// maxIntset returns set-max-intset-entries.
func (c *Client) maxIntset() int {
	return int(min(c.srv.setMaxIntsetEntries.Int(), math.MaxInt32))
}

// readSet returns key's set for a read (nil when missing). It returns ok ==
// false after replying WRONGTYPE.
func (c *Client) readSet(key []byte) (s *set.Set, ok bool) {
	e := c.lookupRead(key)
	if !c.checkType(e, keyspace.KindSet) {
		return nil, false
	}
	if e == nil {
		return nil, true
	}
	return e.Obj.(*set.Set), true
}

// writeSet returns key's entry and set for a write (nil when missing). It
// returns ok == false after replying WRONGTYPE.
func (c *Client) writeSet(key []byte) (e *keyspace.Entry, s *set.Set, ok bool) {
	e = c.lookupWrite(key)
	if !c.checkType(e, keyspace.KindSet) {
		return nil, nil, false
	}
	if e == nil {
		return nil, nil, true
	}
	return e, e.Obj.(*set.Set), true
}

// setChanged records a change to key's set: the key is deleted when the
// set is empty, its memory re-accounted otherwise.
func (c *Client) setChanged(key []byte, e *keyspace.Entry, s *set.Set, event string) {
	c.notify(evSet, event, key)
	if s.Len() == 0 {
		c.db.Delete(key)
		c.notify(evGeneric, "del", key)
		return
	}
	c.db.Updated(key, e)
}

// storeSet makes s the value of key, replacing whatever was there (and its
// expiry), or deletes key when s is empty; it replies with s's size, as
// the STORE variants do.
func (c *Client) storeSet(key []byte, s *set.Set, event string) {
	if s.Len() == 0 {
		c.deleteStored(key)
		c.w.Int(0)
		return
	}
	c.db.Set(key, keyspace.NewObject(key, keyspace.KindSet, s))
	c.notify(evSet, event, key)
	c.w.Int(int64(s.Len()))
}

// deleteStored deletes the destination of a STORE command whose result is
// empty ("del" when there was one).
func (c *Client) deleteStored(key []byte) {
	if c.db.Delete(key) {
		c.notify(evGeneric, "del", key)
		c.dirty(1)
	} else {
		c.dirty(0)
	}
}

// replySet writes every member of s as a set reply (an array in RESP2).
func (c *Client) replySet(s *set.Set) {
	c.w.Set(s.Len())
	for m := range s.All() {
		c.w.Bulk(m)
	}
}

// SADD key member [member ...]
func cmdSAdd(c *Client, args [][]byte) {
	key := args[1]
	e, s, ok := c.writeSet(key)
	if !ok {
		return
	}
	created := e == nil
	if created {
		s = set.NewFor(args[2])
		e = keyspace.NewObject(key, keyspace.KindSet, s)
	}
	max := 0
	if s.IsIntset() {
		max = c.maxIntset()
	}
	added := 0
	for _, m := range args[2:] {
		if s.Add(m, max) {
			added++
		}
	}
	switch {
	case created:
		c.db.Set(key, e)
	case added > 0:
		c.db.Updated(key, e)
	}
	if added > 0 {
		c.notify(evSet, "sadd", key)
	}
	c.dirty(added)
	c.w.Int(int64(added))
}

// SREM key member [member ...]
func cmdSRem(c *Client, args [][]byte) {
	e, s, ok := c.writeSet(args[1])
	if !ok {
		return
	}
	if e == nil {
		c.dirty(0)
		c.w.Int(0)
		return
	}
	deleted := 0
	for _, m := range args[2:] {
		if s.Remove(m) {
			deleted++
			if s.Len() == 0 {
				break
			}
		}
	}
	if deleted > 0 {
		c.setChanged(args[1], e, s, "srem")
	}
	c.dirty(deleted)
	c.w.Int(int64(deleted))
}

// SMOVE source destination member
func cmdSMove(c *Client, args [][]byte) {
	srcKey, dstKey, m := args[1], args[2], args[3]
	src := c.lookupWrite(srcKey)
	dst := c.lookupWrite(dstKey)
	if src == nil {
		c.dirty(0)
		c.w.Int(0)
		return
	}
	if !c.checkType(src, keyspace.KindSet) || !c.checkType(dst, keyspace.KindSet) {
		return
	}
	srcSet := src.Obj.(*set.Set)
	if src == dst {
		c.dirty(0)
		if srcSet.Contains(m) {
			c.w.Int(1)
		} else {
			c.w.Int(0)
		}
		return
	}
	if !srcSet.Remove(m) {
		c.dirty(0)
		c.w.Int(0)
		return
	}
	c.setChanged(srcKey, src, srcSet, "srem")
	c.dirty(2) // as Redis: the removal and the addition
	if dst == nil {
		s := set.NewFor(m)
		s.Add(m, c.maxIntset())
		c.db.Set(dstKey, keyspace.NewObject(dstKey, keyspace.KindSet, s))
		c.notify(evSet, "sadd", dstKey)
	} else {
		dstSet := dst.Obj.(*set.Set)
		max := 0
		if dstSet.IsIntset() {
			max = c.maxIntset()
		}
		if dstSet.Add(m, max) {
			c.db.Updated(dstKey, dst)
			c.notify(evSet, "sadd", dstKey)
		}
	}
	c.w.Int(1)
}

// SISMEMBER key member
func cmdSIsMember(c *Client, args [][]byte) {
	s, ok := c.readSet(args[1])
	switch {
	case !ok:
	case s != nil && s.Contains(args[2]):
		c.w.Int(1)
	default:
		c.w.Int(0)
	}
}

// SMISMEMBER key member [member ...]
func cmdSMIsMember(c *Client, args [][]byte) {
	s, ok := c.readSet(args[1])
	if !ok {
		return
	}
	c.w.Array(len(args) - 2)
	for _, m := range args[2:] {
		if s != nil && s.Contains(m) {
			c.w.Int(1)
		} else {
			c.w.Int(0)
		}
	}
}

// SCARD key
func cmdSCard(c *Client, args [][]byte) {
	s, ok := c.readSet(args[1])
	switch {
	case !ok:
	case s == nil:
		c.w.Int(0)
	default:
		c.w.Int(int64(s.Len()))
	}
}

// SMEMBERS key
func cmdSMembers(c *Client, args [][]byte) {
	s, ok := c.readSet(args[1])
	switch {
	case !ok:
	case s == nil:
		c.w.Set(0)
	default:
		c.replySet(s)
	}
}

// spopMoveStrategyMul is Redis's SPOP_MOVE_STRATEGY_MUL: SPOP with a count
// keeps the remaining members in a new set when they are few.
const spopMoveStrategyMul = 5

// SPOP key [count]
func cmdSPop(c *Client, args [][]byte) {
	if len(args) == 3 {
		spopWithCount(c, args)
		return
	}
	if len(args) > 3 {
		c.errorReply(errSyntax)
		return
	}
	key := args[1]
	e, s, ok := c.writeSet(key)
	if !ok {
		return
	}
	if e == nil {
		c.propagateNothing()
		c.w.Null()
		return
	}
	var buf [20]byte
	i := rand.IntN(s.Len())
	m := s.At(i, buf[:0])
	c.w.Bulk(m)
	c.propagate(argSREM, key, m) // the member chosen, not a new choice
	s.RemoveAt(i)
	c.setChanged(key, e, s, "spop")
}

// spopWithCount is SPOP key count (Redis's spopWithCountCommand).
func spopWithCount(c *Client, args [][]byte) {
	n, ok := parseInt(args[2])
	if !ok || n < 0 {
		c.errorReply(errMustBePositive)
		return
	}
	key := args[1]
	e, s, ok := c.writeSet(key)
	if !ok {
		return
	}
	// Propagated as the SREMs of the members chosen (a MULTI/EXEC unit),
	// or a DEL of the whole set.
	c.propagateNothing()
	if e == nil || n == 0 {
		c.w.Set(0)
		return
	}
	size := int64(s.Len())
	c.dirty(int(min(n, size)))
	if n >= size {
		// The whole set, as SUNION of the one key replies it.
		c.replySet(set.Union([]*set.Set{s}, c.maxIntset()))
		c.notify(evSet, "spop", key)
		c.db.Delete(key)
		c.notify(evGeneric, "del", key)
		c.propagate(argDEL, key)
		return
	}
	count := int(n)
	remaining := int(size) - count
	c.w.Set(count)
	var buf [20]byte
	if remaining*spopMoveStrategyMul > count {
		for ; count > 0; count-- {
			i := rand.IntN(s.Len())
			m := s.At(i, buf[:0])
			c.w.Bulk(m)
			c.propagate(argSREM, key, m)
			s.RemoveAt(i)
		}
		c.db.Updated(key, e)
		c.notify(evSet, "spop", key)
		return
	}
	// Few members remain: move them to a new set and reply with the rest.
	var kept *set.Set
	max := c.maxIntset()
	for ; remaining > 0; remaining-- {
		i := rand.IntN(s.Len())
		m := s.At(i, buf[:0])
		if kept == nil {
			kept = set.NewFor(m)
		}
		kept.Add(m, max)
		s.RemoveAt(i)
	}
	for m := range s.All() {
		c.w.Bulk(m)
		c.propagate(argSREM, key, m)
	}
	e.Obj = kept
	c.db.Updated(key, e)
	c.notify(evSet, "spop", key)
}

// SRANDMEMBER key [count]
func cmdSRandMember(c *Client, args [][]byte) {
	if len(args) == 3 {
		srandmemberWithCount(c, args)
		return
	}
	if len(args) > 3 {
		c.errorReply(errSyntax)
		return
	}
	s, ok := c.readSet(args[1])
	switch {
	case !ok:
	case s == nil:
		c.w.Null()
	default:
		var buf [20]byte
		c.w.Bulk(s.Random(rand.IntN, buf[:0]))
	}
}

// srandmemberWithCount is SRANDMEMBER key count: a positive count asks
// for distinct members, a negative one for -count members that may repeat.
func srandmemberWithCount(c *Client, args [][]byte) {
	n, ok := parseInt(args[2])
	if !ok {
		c.errorReply(errNotInt)
		return
	}
	if n == math.MinInt64 {
		c.errorReply(errSRandCountRange)
		return
	}
	unique := n >= 0
	count := uint64(n)
	if !unique {
		count = uint64(-n)
	}
	s, ok := c.readSet(args[1])
	if !ok {
		return
	}
	if s == nil || count == 0 {
		c.w.Array(0)
		return
	}
	var buf [20]byte
	size := uint64(s.Len())
	switch {
	case !unique || count == 1:
		c.w.Array(int(count))
		for ; count > 0; count-- {
			c.w.Bulk(s.Random(rand.IntN, buf[:0]))
			if count%1024 == 0 && c.outputOverLimit() {
				return // the client is closed: stop mid-run, as Redis
			}
		}
	case count >= size:
		c.w.Array(int(size))
		for m := range s.All() {
			c.w.Bulk(m)
		}
	default:
		c.w.Array(int(count))
		s.Sample(int(count), rand.IntN, func(m []byte) { c.w.Bulk(m) })
	}
}

// collectSets looks up keys as sets for SINTER, SUNION, SDIFF and their
// variants: a missing key is nil. It returns ok == false after replying
// WRONGTYPE for any key holding another type, and missing reports whether
// a key was missing.
func (c *Client) collectSets(keys [][]byte) (sets []*set.Set, missing, ok bool) {
	sets = make([]*set.Set, len(keys))
	for i, k := range keys {
		s, ok := c.readSet(k)
		if !ok {
			return nil, false, false
		}
		sets[i] = s
		missing = missing || s == nil
	}
	return sets, missing, true
}

// SINTER key [key ...]
func cmdSInter(c *Client, args [][]byte) {
	sets, missing, ok := c.collectSets(args[1:])
	if !ok {
		return
	}
	if missing {
		c.w.Set(0)
		return
	}
	var flat []byte
	var ends []int
	set.Inter(sets, func(m []byte) bool {
		flat = append(flat, m...)
		ends = append(ends, len(flat))
		return true
	})
	c.w.Set(len(ends))
	start := 0
	for _, end := range ends {
		c.w.Bulk(flat[start:end])
		start = end
	}
}

// SINTERCARD numkeys key [key ...] [LIMIT limit]
func cmdSInterCard(c *Client, args [][]byte) {
	numkeys, ok := parseInt(args[1])
	if !ok || numkeys < 1 {
		c.errorReply(errSInterCardNumkeys)
		return
	}
	if numkeys > int64(len(args)-2) {
		c.errorReply(errSInterCardTooManyKeys)
		return
	}
	limit := int64(0)
	for j := 2 + int(numkeys); j < len(args); j++ {
		if equalFold(cstr(args[j]), "limit") && j+1 < len(args) {
			j++
			if limit, ok = parseInt(args[j]); !ok || limit < 0 {
				c.errorReply(errSInterCardLimit)
				return
			}
			continue
		}
		c.errorReply(errSyntax)
		return
	}
	sets, missing, ok := c.collectSets(args[2 : 2+numkeys])
	if !ok {
		return
	}
	if missing {
		c.w.Int(0)
		return
	}
	c.w.Int(int64(set.InterCard(sets, int(min(limit, math.MaxInt)))))
}

// SINTERSTORE destination key [key ...]
func cmdSInterStore(c *Client, args [][]byte) {
	sets, missing, ok := c.collectSets(args[2:])
	if !ok {
		return
	}
	if missing {
		c.deleteStored(args[1])
		c.w.Int(0)
		return
	}
	c.storeSet(args[1], set.InterStore(sets, c.maxIntset()), "sinterstore")
}

// SUNION key [key ...]
func cmdSUnion(c *Client, args [][]byte) { sunionDiff(c, args[1:], nil, false) }

// SUNIONSTORE destination key [key ...]
func cmdSUnionStore(c *Client, args [][]byte) { sunionDiff(c, args[2:], args[1], false) }

// SDIFF key [key ...]
func cmdSDiff(c *Client, args [][]byte) { sunionDiff(c, args[1:], nil, true) }

// SDIFFSTORE destination key [key ...]
func cmdSDiffStore(c *Client, args [][]byte) { sunionDiff(c, args[2:], args[1], true) }

// sunionDiff is Redis's sunionDiffGenericCommand: the union or difference
// of keys, replied or stored into dst.
func sunionDiff(c *Client, keys [][]byte, dst []byte, diff bool) {
	sets, _, ok := c.collectSets(keys)
	if !ok {
		return
	}
	var res *set.Set
	if diff {
		res = set.Diff(sets, c.maxIntset())
	} else {
		res = set.Union(sets, c.maxIntset())
	}
	if dst == nil {
		c.replySet(res)
		return
	}
	event := "sunionstore"
	if diff {
		event = "sdiffstore"
	}
	c.storeSet(dst, res, event)
}

// SSCAN key cursor [MATCH pattern] [COUNT count]
func cmdSScan(c *Client, args [][]byte) {
	cursor, ok := parseCursor(args[2])
	if !ok {
		c.errorReply(errInvalidCursor)
		return
	}
	s, ok := c.readSet(args[1])
	if !ok {
		return
	}
	if s == nil {
		c.emptyScan()
		return
	}
	count, pattern, ok := c.scanOptions(args, 3)
	if !ok {
		return
	}
	var flat []byte
	var ends []int
	next := s.Scan(cursor, count, func(m []byte) {
		if pattern != nil && !glob.Match(pattern, m, false) {
			return
		}
		flat = append(flat, m...)
		ends = append(ends, len(flat))
	})
	c.w.Array(2)
	var tmp [20]byte
	c.w.Bulk(strconv.AppendUint(tmp[:0], next, 10))
	c.w.Array(len(ends))
	start := 0
	for _, end := range ends {
		c.w.Bulk(flat[start:end])
		start = end
	}
}
