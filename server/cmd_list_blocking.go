package server

import (
	"math/big"
	"time"

	"github.com/hotkv/hotkv/resp"
)

// The blocking list commands: each tries its non-blocking form first and,
// when every key is missing, parks the client (blocking.go) with a serve
// function that retries the same form for it.

func listBlockingCommands() []*Command {
	return []*Command{
		{Name: "blpop", Arity: -3, Flags: Write | NoScript | Blocking, First: 1, Last: -2, Step: 1, Handler: cmdBLPop},
		{Name: "brpop", Arity: -3, Flags: Write | NoScript | Blocking, First: 1, Last: -2, Step: 1, Handler: cmdBRPop},
		{Name: "brpoplpush", Arity: 4, Flags: Write | DenyOOM | NoScript | Blocking, First: 1, Last: 2, Step: 1, Handler: cmdBRPopLPush},
		{Name: "blmove", Arity: 6, Flags: Write | DenyOOM | NoScript | Blocking, First: 1, Last: 2, Step: 1, Handler: cmdBLMove},
		{Name: "blmpop", Arity: -5, Flags: Write | Blocking, Keys: numkeysKeys(2, 0), Handler: cmdBLMPop},
	}
}

// timeoutArg parses a blocking command's timeout in seconds as Redis
// 7.0's getTimeoutFromObjectOrReply does: a long double (string2ld:
// decimals, exponents, hex, inf), times 1000, rounded up to whole
// milliseconds (ceill: 0.0001 waits 1 ms, -0.0001 rounds to 0 and waits
// forever) and cast to an integer; 0 waits forever. Like the cast on x86,
// a value too large (inf included) comes out negative.
func (c *Client) timeoutArg(b []byte) (time.Duration, bool) {
	f, ok := parseLongDouble(b)
	if !ok {
		c.errorReply(errTimeoutNotFloat)
		return 0, false
	}
	ms := new(big.Float).Mul(f, big.NewFloat(1000))
	var n *big.Int
	if !ms.IsInf() {
		var acc big.Accuracy
		n, acc = ms.Int(nil) // toward zero: the ceiling of a negative value
		if ms.Sign() > 0 && acc == big.Below {
			n.Add(n, big.NewInt(1))
		}
	}
	if n == nil || !n.IsInt64() || n.Sign() < 0 {
		c.errorReply(errTimeoutNegative)
		return 0, false
	}
	return time.Duration(n.Int64()) * time.Millisecond, true
}

// BLPOP key [key ...] timeout
func cmdBLPop(c *Client, args [][]byte) { c.blockingPop(args, true) }

// BRPOP key [key ...] timeout
func cmdBRPop(c *Client, args [][]byte) { c.blockingPop(args, false) }

func (c *Client) blockingPop(args [][]byte, front bool) {
	timeout, ok := c.timeoutArg(args[len(args)-1])
	if !ok {
		return
	}
	keys := args[1 : len(args)-1]
	if c.popOneWithKey(keys, front) {
		return
	}
	owned := copyArgs(keys)
	c.block(keys, keys, timeout,
		func(sc *Client) bool { return sc.popOneWithKey(owned, front) },
		func(w *resp.Writer) { w.NullArray() })
}

// popOneWithKey pops one element from the first non-empty list among keys
// and replies [key, element]. It returns false, having replied nothing,
// when every key is missing; WRONGTYPE is replied here.
func (c *Client) popOneWithKey(keys [][]byte, front bool) bool {
	i, e, ok := c.listFirstNonEmpty(keys)
	if !ok {
		return true
	}
	if i < 0 {
		return false
	}
	l := listOf(e)
	it := l.IterAt(listEndIndex(front), !front)
	v, _ := it.Next()
	c.w.Array(2)
	c.w.Bulk(keys[i])
	c.w.Bulk(v)
	c.propagate(pick(front, argLPOP, argRPOP), keys[i]) // BLPOP replays as LPOP
	listTrim(l, front, 1)
	c.listChanged(keys[i], e, popEvent(front))
	return true
}

// BRPOPLPUSH source destination timeout
func cmdBRPopLPush(c *Client, args [][]byte) {
	timeout, ok := c.timeoutArg(args[3])
	if ok {
		c.blockingMove(args[1], args[2], false, true, timeout, nil)
	}
}

// BLMOVE source destination <LEFT | RIGHT> <LEFT | RIGHT> timeout
func cmdBLMove(c *Client, args [][]byte) {
	fromFront, ok := c.listEnd(args[3])
	if !ok {
		return
	}
	toFront, ok := c.listEnd(args[4])
	if !ok {
		return
	}
	timeout, ok := c.timeoutArg(args[5])
	if ok {
		c.blockingMove(args[1], args[2], fromFront, toFront, timeout, args[3:5])
	}
}

// ends are BLMOVE's wherefrom and whereto, nil for BRPOPLPUSH.
func (c *Client) blockingMove(src, dst []byte, fromFront, toFront bool, timeout time.Duration, ends [][]byte) {
	if c.moveAndPropagate(src, dst, fromFront, toFront, ends) {
		return
	}
	if c.tx.inExec || c.scripted {
		c.w.Null() // inside MULTI or a script: a null bulk, where a timeout is a null array
		return
	}
	keys := copyArgs([][]byte{src, dst})
	// Served later, a BLMOVE propagates its ends as Redis does then.
	var servedEnds [][]byte
	if ends != nil {
		servedEnds = [][]byte{pick(fromFront, argLeft, argRight), pick(toFront, argLeft, argRight)}
	}
	c.block(keys[:1], keys, timeout,
		func(sc *Client) bool { return sc.moveAndPropagate(keys[0], keys[1], fromFront, toFront, servedEnds) },
		func(w *resp.Writer) { w.NullArray() }) // Redis 7.0 times every blocked list command out with a null array
}

// moveAndPropagate is listMove for BLMOVE and BRPOPLPUSH, propagated as
// the plain LMOVE (with ends as its wherefrom and whereto) or RPOPLPUSH
// (ends nil) when it moved an element.
func (c *Client) moveAndPropagate(src, dst []byte, fromFront, toFront bool, ends [][]byte) bool {
	errs := c.errors
	done := c.listMove(src, dst, fromFront, toFront)
	switch {
	case !done || c.errors != errs:
	case ends == nil:
		c.propagate(argRPOPLPUSH, src, dst)
	default:
		c.propagate(argLMOVE, src, dst, ends[0], ends[1])
	}
	return done
}

// BLMPOP timeout numkeys key [key ...] <LEFT | RIGHT> [COUNT count]
func cmdBLMPop(c *Client, args [][]byte) {
	// As Redis: numkeys, the direction and COUNT, then the timeout.
	keys, front, count, ok := c.parseMPop(args, 2)
	if !ok {
		return
	}
	timeout, ok := c.timeoutArg(args[1])
	if !ok || c.listMPop(keys, front, count) {
		return
	}
	owned := copyArgs(keys)
	c.block(keys, keys, timeout,
		func(sc *Client) bool { return sc.listMPop(owned, front, count) },
		func(w *resp.Writer) { w.NullArray() })
}

// copyArgs copies arguments that must outlive the read buffer, in one
// allocation (each copy is capped, so appending to one cannot overwrite
// the next).
func copyArgs(args [][]byte) [][]byte {
	n := 0
	for _, a := range args {
		n += len(a)
	}
	buf := make([]byte, 0, n)
	out := make([][]byte, len(args))
	for i, a := range args {
		buf = append(buf, a...)
		out[i] = buf[len(buf)-len(a) : len(buf) : len(buf)]
	}
	return out
}
