package server

import (
	"github.com/hotkv/hotkv/keyspace"
	"github.com/hotkv/hotkv/resp"
)

// The blocking sorted-set pops: like the list ones (cmd_list_blocking.go),
// each tries the non-blocking form and parks the client when every key is
// missing.

func zsetBlockingCommands() []*Command {
	return []*Command{
		{Name: "bzpopmin", Arity: -3, Flags: Write | NoScript | Blocking | Fast, First: 1, Last: -2, Step: 1, Handler: cmdBZPopMin},
		{Name: "bzpopmax", Arity: -3, Flags: Write | NoScript | Blocking | Fast, First: 1, Last: -2, Step: 1, Handler: cmdBZPopMax},
		{Name: "bzmpop", Arity: -5, Flags: Write | Blocking, Keys: numkeysKeys(2, 0), Handler: cmdBZMPop},
	}
}

// BZPOPMIN key [key ...] timeout
func cmdBZPopMin(c *Client, args [][]byte) { c.blockingZPop(args, false) }

// BZPOPMAX key [key ...] timeout
func cmdBZPopMax(c *Client, args [][]byte) { c.blockingZPop(args, true) }

func (c *Client) blockingZPop(args [][]byte, max bool) {
	timeout, ok := c.timeoutArg(args[len(args)-1])
	if !ok {
		return
	}
	keys := args[1 : len(args)-1]
	if c.zpopFirst(keys, max, 1, popKeyFlat) {
		return
	}
	owned := copyArgs(keys)
	c.block(keys, keys, timeout,
		func(sc *Client) bool { return sc.zpopFirst(owned, max, 1, popKeyFlat) },
		func(w *resp.Writer) { w.NullArray() })
}

// BZMPOP timeout numkeys key [key ...] <MIN | MAX> [COUNT count]
func cmdBZMPop(c *Client, args [][]byte) {
	// As Redis: numkeys, MIN or MAX and COUNT, then the timeout.
	keys, max, count, ok := c.parseZMPop(args, 2)
	if !ok {
		return
	}
	timeout, ok := c.timeoutArg(args[1])
	if !ok || c.zpopFirst(keys, max, count, popKeyNested) {
		return
	}
	owned := copyArgs(keys)
	c.block(keys, keys, timeout,
		func(sc *Client) bool { return sc.zpopFirst(owned, max, count, popKeyNested) },
		func(w *resp.Writer) { w.NullArray() })
}

// propagateZPop propagates a pop from e of BZPOPMIN, BZPOPMAX, ZMPOP or
// BZMPOP, before it is made, as the plain ZPOPMIN or ZPOPMAX (with the
// count it pops for the MPOP forms, as Redis).
func (c *Client) propagateZPop(key []byte, e *keyspace.Entry, max bool, count int64, withCount bool) {
	name := pick(max, argZPOPMAX, argZPOPMIN)
	if !withCount {
		c.propagate(name, key)
		return
	}
	c.propagate(name, key, intBytes(min(count, int64(zsetOf(e).Len()))))
}

// zpopFirst pops from the first non-empty sorted set among keys and
// replies in the given shape. It returns false, having replied nothing,
// when every key is missing; WRONGTYPE is replied here.
func (c *Client) zpopFirst(keys [][]byte, max bool, count int64, shape int) bool {
	for _, key := range keys {
		if c.servingBlocked {
			// A blocked client is served only from a sorted set: a key
			// that became another type leaves it blocked, as in Redis.
			if e := c.lookupWrite(key); e != nil && e.Kind != keyspace.KindZSet {
				continue
			}
		}
		e, ok := c.writeZSet(key)
		if !ok {
			return true
		}
		if e != nil {
			c.propagateZPop(key, e, max, count, shape == popKeyNested)
			c.zsetPop(key, e, max, count, shape)
			return true
		}
	}
	return false
}
