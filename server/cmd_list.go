package server

import (
	"fmt"
	"math"

	"github.com/hotkv/hotkv/keyspace"
	"github.com/hotkv/hotkv/list"
)

// listCommands is the list command group (issue #3). The blocking variants
// (BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP) wait for the server's
// blocking-client mechanism; their cores are listMPop (pop from the first
// non-empty key), listPopRangeWithKey, listFirstNonEmpty and listMove
// (move an element between lists), which reply nothing when there is
// nothing to pop, so that a blocking caller can wait instead.
func listCommands() []*Command {
	const (
		rwf = Write | DenyOOM | Fast
		rw  = Write | DenyOOM
		wf  = Write | Fast
		rof = Readonly | Fast
	)
	one := func(name string, arity int, flags Flag, h HandlerFunc) *Command {
		return &Command{Name: name, Arity: arity, Flags: flags, First: 1, Last: 1, Step: 1, Handler: h}
	}
	return []*Command{
		one("lpush", -3, rwf, cmdLPush),
		one("rpush", -3, rwf, cmdRPush),
		one("lpushx", -3, rwf, cmdLPushX),
		one("rpushx", -3, rwf, cmdRPushX),
		one("lpop", -2, wf, cmdLPop),
		one("rpop", -2, wf, cmdRPop),
		one("llen", 2, rof, cmdLLen),
		one("lrange", 4, Readonly, cmdLRange),
		one("lindex", 3, Readonly, cmdLIndex),
		one("lset", 4, rw, cmdLSet),
		one("linsert", 5, rw, cmdLInsert),
		one("lrem", 4, Write, cmdLRem),
		one("ltrim", 4, Write, cmdLTrim),
		one("lpos", -3, Readonly, cmdLPos),
		{Name: "lmove", Arity: 5, Flags: rw, First: 1, Last: 2, Step: 1, Handler: cmdLMove},
		{Name: "rpoplpush", Arity: 3, Flags: rw, First: 1, Last: 2, Step: 1, Handler: cmdRPopLPush},
		{Name: "lmpop", Arity: -4, Flags: Write, Keys: numkeysKeys(1, 0), Handler: cmdLMPop},
	}
}

// listOf returns the list an entry of KindList holds.
func listOf(e *keyspace.Entry) *list.List { return e.Obj.(*list.List) }

// newList returns an empty list with the node size and the compression
// depth configured now (list-max-listpack-size, list-compress-depth), as
// Redis's createQuicklistObject does: a list keeps them for its life.
func (c *Client) newList() *list.List {
	return list.NewCompressed(int(c.srv.listMaxListpackSize.Int()), int(c.srv.listCompressDepth.Int()))
}

// listChanged re-accounts key's list after a change that removed
// elements and emits event, then deletes the key when the list is now
// empty ("del").
func (c *Client) listChanged(key []byte, e *keyspace.Entry, event string) {
	c.notify(evList, event, key)
	if listOf(e).Len() == 0 {
		c.db.Delete(key)
		c.notify(evGeneric, "del", key)
	} else {
		c.db.Updated(key, e)
	}
}

// pushEvent is the event of a push at the head (front) or the tail.
func pushEvent(front bool) string {
	if front {
		return "lpush"
	}
	return "rpush"
}

// popEvent is the event of a pop from the head (front) or the tail.
func popEvent(front bool) string {
	if front {
		return "lpop"
	}
	return "rpop"
}

// listEnd parses LEFT or RIGHT (getListPositionFromObjectOrReply): front
// is true for LEFT.
func (c *Client) listEnd(arg []byte) (front, ok bool) {
	switch a := cstr(arg); {
	case equalFold(a, "left"):
		return true, true
	case equalFold(a, "right"):
		return false, true
	}
	c.errorReply(errSyntax)
	return false, false
}

// listRangeArg parses an integer option that must lie in [min, max]
// (getRangeLongFromObjectOrReply with a message): msg answers both a bad
// number and one out of range.
func (c *Client) listRangeArg(arg []byte, min, max int64, msg string) (int64, bool) {
	n, ok := parseInt(arg)
	if !ok || n < min || n > max {
		c.errorReply(msg)
		return 0, false
	}
	return n, true
}

// LPUSH key element [element ...]
func cmdLPush(c *Client, args [][]byte) { c.listPush(args, true, false) }

// RPUSH key element [element ...]
func cmdRPush(c *Client, args [][]byte) { c.listPush(args, false, false) }

// LPUSHX key element [element ...]
func cmdLPushX(c *Client, args [][]byte) { c.listPush(args, true, true) }

// RPUSHX key element [element ...]
func cmdRPushX(c *Client, args [][]byte) { c.listPush(args, false, true) }

// listPush is Redis's pushGenericCommand: push args[2:] one by one at the
// head (front) or the tail, creating the list unless onlyExisting.
func (c *Client) listPush(args [][]byte, front, onlyExisting bool) {
	key := args[1]
	e := c.lookupWrite(key)
	if !c.checkType(e, keyspace.KindList) {
		return
	}
	if e == nil && onlyExisting {
		c.dirty(0)
		c.w.Int(0)
		return
	}
	var l *list.List
	if e == nil {
		l = c.newList()
	} else {
		l = listOf(e)
	}
	for _, v := range args[2:] {
		if front {
			l.PushFront(v)
		} else {
			l.PushBack(v)
		}
	}
	if e == nil {
		c.db.Set(key, keyspace.NewObject(key, keyspace.KindList, l))
	} else {
		c.db.Updated(key, e)
	}
	c.notify(evList, pushEvent(front), key)
	c.dirty(len(args) - 2)
	c.w.Int(int64(l.Len()))
}

// LPOP key [count]
func cmdLPop(c *Client, args [][]byte) { c.listPop(args, true) }

// RPOP key [count]
func cmdRPop(c *Client, args [][]byte) { c.listPop(args, false) }

// listPop is Redis's popGenericCommand.
func (c *Client) listPop(args [][]byte, front bool) {
	if len(args) > 3 {
		name := "rpop"
		if front {
			name = "lpop"
		}
		c.errorReply(fmt.Sprintf(errArity, name))
		return
	}
	hasCount := len(args) == 3
	var count int64
	if hasCount {
		var ok bool
		if count, ok = c.listRangeArg(args[2], 0, math.MaxInt64, errMustBePositive); !ok {
			return
		}
	}
	key := args[1]
	e := c.lookupWrite(key)
	switch {
	case e == nil && hasCount:
		c.dirty(0)
		c.w.NullArray()
		return
	case e == nil:
		c.dirty(0)
		c.w.Null()
		return
	case !c.checkType(e, keyspace.KindList):
		return
	case hasCount && count == 0:
		c.w.Array(0)
		return
	}
	if !hasCount {
		l := listOf(e)
		it := l.IterAt(listEndIndex(front), !front)
		v, _ := it.Next()
		c.w.Bulk(v)
		listTrim(l, front, 1)
		c.listChanged(key, e, popEvent(front))
		return
	}
	c.listPopRange(key, e, front, count)
}

// listEndIndex is the index of the head (front) or the tail.
func listEndIndex(front bool) int {
	if front {
		return 0
	}
	return -1
}

// listTrim removes n elements from the head (front) or the tail.
func listTrim(l *list.List, front bool, n int) {
	if front {
		l.TrimFront(n)
	} else {
		l.TrimBack(n)
	}
}

// listPopRange pops up to count elements from the head (front) or the
// tail of key's list (e, not empty), replying with them in the order
// popped, and deletes the key when the list is left empty.
func (c *Client) listPopRange(key []byte, e *keyspace.Entry, front bool, count int64) {
	l := listOf(e)
	n := int(min(count, int64(l.Len())))
	c.w.Array(n)
	it := l.IterAt(listEndIndex(front), !front)
	for range n {
		v, _ := it.Next()
		c.w.Bulk(v)
	}
	listTrim(l, front, n)
	c.listChanged(key, e, popEvent(front))
	c.dirty(n)
}

// listPopRangeWithKey is Redis's listPopRangeAndReplyWithKey, the reply of
// LMPOP and BLMPOP: [key, [elements...]].
func (c *Client) listPopRangeWithKey(key []byte, e *keyspace.Entry, front bool, count int64) {
	c.w.Array(2)
	c.w.Bulk(key)
	c.listPopRange(key, e, front, count)
}

// listFirstNonEmpty returns the index in keys of the first key holding a
// non-empty list, and its entry. It returns ok == false after replying
// WRONGTYPE when a key before it holds another kind, and i == -1 (having
// replied nothing) when every key is missing.
func (c *Client) listFirstNonEmpty(keys [][]byte) (i int, e *keyspace.Entry, ok bool) {
	for i, k := range keys {
		e := c.lookupWrite(k)
		if e == nil || c.servingBlocked && e.Kind != keyspace.KindList {
			// A blocked client is served only from a list: a key that
			// became another type leaves it blocked, as in Redis.
			continue
		}
		if !c.checkType(e, keyspace.KindList) {
			return -1, nil, false
		}
		if listOf(e).Len() > 0 {
			return i, e, true
		}
	}
	return -1, nil, true
}

// listMPop is Redis's mpopGenericCommand for lists: it pops up to count
// elements from the first non-empty list among keys and replies [key,
// [elements]]. It returns false, having replied nothing, when every key
// is missing (LMPOP then replies a null array; BLMPOP will block).
func (c *Client) listMPop(keys [][]byte, front bool, count int64) bool {
	i, e, ok := c.listFirstNonEmpty(keys)
	if !ok {
		return true
	}
	if i < 0 {
		return false
	}
	// (B)LMPOP replays as LPOP key count, with the count it pops.
	n := min(count, int64(listOf(e).Len()))
	c.propagate(pick(front, argLPOP, argRPOP), keys[i], intBytes(n))
	c.listPopRangeWithKey(keys[i], e, front, count)
	return true
}

// LLEN key
func cmdLLen(c *Client, args [][]byte) {
	e := c.lookupRead(args[1])
	if !c.checkType(e, keyspace.KindList) {
		return
	}
	if e == nil {
		c.w.Int(0)
		return
	}
	c.w.Int(int64(listOf(e).Len()))
}

// listRange converts LRANGE/LTRIM's start and stop, which may be negative,
// into a range of a list of n elements: the first index and the number of
// elements (0 when the range is empty).
func listRange(start, stop int64, n int) (from, count int) {
	llen := int64(n)
	if start < 0 {
		start += llen
	}
	if stop < 0 {
		stop += llen
	}
	if start < 0 {
		start = 0
	}
	if start > stop || start >= llen {
		return 0, 0
	}
	if stop >= llen {
		stop = llen - 1
	}
	return int(start), int(stop - start + 1)
}

// LRANGE key start stop
func cmdLRange(c *Client, args [][]byte) {
	start, ok := c.intArg(args[2])
	if !ok {
		return
	}
	stop, ok := c.intArg(args[3])
	if !ok {
		return
	}
	e := c.lookupRead(args[1])
	if !c.checkType(e, keyspace.KindList) {
		return
	}
	if e == nil {
		c.w.Array(0)
		return
	}
	l := listOf(e)
	from, n := listRange(start, stop, l.Len())
	c.w.Array(n)
	if n == 0 {
		return
	}
	it := l.IterAt(from, false)
	for range n {
		v, _ := it.Next()
		c.w.Bulk(v)
	}
}

// LINDEX key index
func cmdLIndex(c *Client, args [][]byte) {
	e := c.lookupRead(args[1])
	if !c.checkType(e, keyspace.KindList) {
		return
	}
	if e == nil {
		c.w.Null()
		return
	}
	idx, ok := c.intArg(args[2])
	if !ok {
		return
	}
	l := listOf(e)
	if idx < -int64(l.Len()) || idx >= int64(l.Len()) {
		c.w.Null()
		return
	}
	it := l.IterAt(int(idx), false)
	v, _ := it.Next()
	c.w.Bulk(v)
}

// LSET key index element
func cmdLSet(c *Client, args [][]byte) {
	key := args[1]
	e := c.lookupWrite(key)
	if e == nil {
		c.errorReply(errNoSuchKey)
		return
	}
	if !c.checkType(e, keyspace.KindList) {
		return
	}
	idx, ok := c.intArg(args[2])
	if !ok {
		return
	}
	l := listOf(e)
	if idx < -int64(l.Len()) || idx >= int64(l.Len()) || !l.Set(int(idx), args[3]) {
		c.errorReply(errListIndexRange)
		return
	}
	c.db.Updated(key, e)
	c.notify(evList, "lset", key)
	c.w.OK()
}

// LINSERT key <BEFORE | AFTER> pivot element
func cmdLInsert(c *Client, args [][]byte) {
	var after bool
	switch w := cstr(args[2]); {
	case equalFold(w, "after"):
		after = true
	case equalFold(w, "before"):
	default:
		c.errorReply(errSyntax)
		return
	}
	key := args[1]
	e := c.lookupWrite(key)
	if !c.checkType(e, keyspace.KindList) {
		return
	}
	if e == nil {
		c.dirty(0)
		c.w.Int(0)
		return
	}
	l := listOf(e)
	m := list.NewMatcher(args[3])
	if !l.Insert(&m, args[4], after) {
		c.dirty(0)
		c.w.Int(-1)
		return
	}
	c.db.Updated(key, e)
	c.notify(evList, "linsert", key)
	c.w.Int(int64(l.Len()))
}

// LREM key count element
func cmdLRem(c *Client, args [][]byte) {
	toRemove, ok := c.intArg(args[2])
	if !ok {
		return
	}
	key := args[1]
	e := c.lookupWrite(key)
	if !c.checkType(e, keyspace.KindList) {
		return
	}
	if e == nil {
		c.dirty(0)
		c.w.Int(0)
		return
	}
	// A negative count removes from the tail. Redis negates it in a long:
	// LONG_MIN stays negative and, never reached, removes them all.
	limit, fromTail := toRemove, false
	if toRemove < 0 {
		limit, fromTail = -toRemove, true
		if limit < 0 {
			limit = 0
		}
	}
	m := list.NewMatcher(args[3])
	n := listOf(e).Remove(&m, int(limit), fromTail)
	if n > 0 {
		c.listChanged(key, e, "lrem")
	}
	c.dirty(n)
	c.w.Int(int64(n))
}

// LTRIM key start stop
func cmdLTrim(c *Client, args [][]byte) {
	start, ok := c.intArg(args[2])
	if !ok {
		return
	}
	stop, ok := c.intArg(args[3])
	if !ok {
		return
	}
	key := args[1]
	e := c.lookupWrite(key)
	if !c.checkType(e, keyspace.KindList) {
		return
	}
	if e == nil {
		c.dirty(0)
		c.w.OK()
		return
	}
	l := listOf(e)
	llen := l.Len()
	from, n := listRange(start, stop, llen)
	c.dirty(llen - n)
	if n == 0 {
		l.Clear()
	} else {
		l.TrimBack(llen - from - n)
		l.TrimFront(from)
	}
	c.listChanged(key, e, "ltrim")
	c.w.OK()
}

// LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len]
func cmdLPos(c *Client, args [][]byte) {
	rank, count, maxlen := int64(1), int64(-1), int64(0) // count -1: no COUNT
	for j := 3; j < len(args); j++ {
		opt := cstr(args[j])
		more := j < len(args)-1
		switch {
		case equalFold(opt, "rank") && more:
			j++
			var ok bool
			if rank, ok = c.intArg(args[j]); !ok {
				return
			}
			if rank == 0 {
				c.errorReply(errListRankZero)
				return
			}
		case equalFold(opt, "count") && more:
			j++
			var ok bool
			if count, ok = c.listRangeArg(args[j], 0, math.MaxInt64, errListCountNegative); !ok {
				return
			}
		case equalFold(opt, "maxlen") && more:
			j++
			var ok bool
			if maxlen, ok = c.listRangeArg(args[j], 0, math.MaxInt64, errListMaxlenNegative); !ok {
				return
			}
		default:
			c.errorReply(errSyntax)
			return
		}
	}
	// A negative rank searches from the tail. As in Redis, the negation
	// wraps for the smallest long, which then matches from the first hit.
	reverse := false
	if rank < 0 {
		rank = -rank
		reverse = true
	}
	e := c.lookupRead(args[1])
	if e == nil {
		if count != -1 {
			c.w.Array(0)
		} else {
			c.w.Null()
		}
		return
	}
	if !c.checkType(e, keyspace.KindList) {
		return
	}
	l := listOf(e)
	llen := int64(l.Len())
	m := list.NewMatcher(args[2])
	it := l.IterAt(listEndIndex(!reverse), reverse)
	var found [16]int64
	res := found[:0]
	var index, matches int64
	matchIndex := int64(-1)
	for maxlen == 0 || index < maxlen {
		matched, ok := it.NextMatch(&m)
		if !ok {
			break
		}
		if matched {
			matches++
			matchIndex = index
			if reverse {
				matchIndex = llen - index - 1
			}
			if matches >= rank {
				if count == -1 {
					break
				}
				res = append(res, matchIndex)
				if count != 0 && matches-rank+1 >= count {
					break
				}
			}
		}
		index++
		matchIndex = -1
	}
	switch {
	case count != -1:
		c.w.Array(len(res))
		for _, x := range res {
			c.w.Int(x)
		}
	case matchIndex != -1:
		c.w.Int(matchIndex)
	default:
		c.w.Null()
	}
}

// LMOVE source destination <LEFT | RIGHT> <LEFT | RIGHT>
func cmdLMove(c *Client, args [][]byte) {
	fromFront, ok := c.listEnd(args[3])
	if !ok {
		return
	}
	toFront, ok := c.listEnd(args[4])
	if !ok {
		return
	}
	if !c.listMove(args[1], args[2], fromFront, toFront) {
		c.dirty(0)
		c.w.Null()
	}
}

// RPOPLPUSH source destination
func cmdRPopLPush(c *Client, args [][]byte) {
	if !c.listMove(args[1], args[2], false, true) {
		c.dirty(0)
		c.w.Null()
	}
}

// listMove is Redis's lmoveGenericCommand: it pops an element from the
// head (fromFront) or tail of src's list, pushes it at the head (toFront)
// or tail of dst's (creating it), and replies with the element. src and
// dst may be the same key (a rotation). It returns false, having replied
// nothing, when src does not exist (LMOVE replies null; BLMOVE will block);
// WRONGTYPE on either key is replied here.
func (c *Client) listMove(src, dst []byte, fromFront, toFront bool) bool {
	se := c.lookupWrite(src)
	if se == nil {
		return false
	}
	if !c.checkType(se, keyspace.KindList) {
		return true
	}
	sl := listOf(se)
	if sl.Len() == 0 {
		return false
	}
	de := c.lookupWrite(dst)
	if !c.checkType(de, keyspace.KindList) {
		return true
	}
	// Copy the element out before any change: src and dst may share
	// buffers when they are the same list.
	var small [128]byte
	it := sl.IterAt(listEndIndex(fromFront), !fromFront)
	v, _ := it.Next()
	v = append(small[:0], v...)
	listTrim(sl, fromFront, 1)
	var dl *list.List
	if de == nil {
		dl = c.newList()
	} else {
		dl = listOf(de)
	}
	if toFront {
		dl.PushFront(v)
	} else {
		dl.PushBack(v)
	}
	if de == nil {
		c.db.Set(dst, keyspace.NewObject(dst, keyspace.KindList, dl))
	} else if de != se {
		c.db.Updated(dst, de)
	}
	c.notify(evList, pushEvent(toFront), dst)
	c.listChanged(src, se, popEvent(fromFront))
	c.w.Bulk(v)
	return true
}

// lmpopKeys finds LMPOP's keys: numkeys at 1, keys from 2.

// LMPOP numkeys key [key ...] <LEFT | RIGHT> [COUNT count]
func cmdLMPop(c *Client, args [][]byte) {
	keys, front, count, ok := c.parseMPop(args, 1)
	if ok && !c.listMPop(keys, front, count) {
		c.propagateNothing() // nothing popped
		c.w.NullArray()
	}
}

// parseMPop parses LMPOP's arguments from args[at] (numkeys) on: the keys,
// the end to pop from and the count (1 when not given), replying with
// Redis's error when they are malformed. BLMPOP calls it with at 2.
func (c *Client) parseMPop(args [][]byte, at int) (keys [][]byte, front bool, count int64, ok bool) {
	numkeys, ok := c.listRangeArg(args[at], 1, math.MaxInt64, errListNumkeys)
	if !ok {
		return nil, false, 0, false
	}
	if numkeys > int64(len(args)-at-2) { // where LEFT|RIGHT should be
		c.errorReply(errSyntax)
		return nil, false, 0, false
	}
	whereIdx := at + 1 + int(numkeys)
	if front, ok = c.listEnd(args[whereIdx]); !ok {
		return nil, false, 0, false
	}
	count = -1
	for j := whereIdx + 1; j < len(args); j++ {
		if count == -1 && equalFold(cstr(args[j]), "count") && j < len(args)-1 {
			j++
			if count, ok = c.listRangeArg(args[j], 1, math.MaxInt64, errListCount); !ok {
				return nil, false, 0, false
			}
			continue
		}
		c.errorReply(errSyntax)
		return nil, false, 0, false
	}
	if count == -1 {
		count = 1
	}
	return args[at+1 : whereIdx], front, count, true
}
