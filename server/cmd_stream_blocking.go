package server

import (
	"fmt"
	"math"
	"time"

	"github.com/hotkv/hotkv/keyspace"
	"github.com/hotkv/hotkv/resp"
	"github.com/hotkv/hotkv/stream"
)

// XREAD and XREADGROUP (xreadCommand): served at once when a stream has
// something after the ID asked for, else, with BLOCK, parked (blocking.go)
// until an XADD to one of the keys (XADD marks its key ready on every
// add, see Server.signalKeyReady), the timeout, or XGROUP DESTROY of the
// group (then NOGROUP).

// xreadDefaultBlockedCount is the COUNT of a blocked read without one
// (XREAD_BLOCKED_DEFAULT_COUNT).
const xreadDefaultBlockedCount = 1000

// xreadKeys finds XREAD's and XREADGROUP's keys (xreadGetKeys): the first
// half of the arguments after STREAMS, found by skipping the options.
func xreadKeys(args [][]byte) []int {
	pos := -1
loop:
	for i := 1; i < len(args); i++ {
		switch a := args[i]; {
		case equalFold(a, "block"), equalFold(a, "count"):
			i++
		case equalFold(a, "group"):
			i += 2
		case equalFold(a, "noack"):
		case equalFold(a, "streams"):
			pos = i
			break loop
		default:
			break loop
		}
	}
	num := len(args) - pos - 1
	if pos == -1 || num == 0 || num%2 != 0 {
		return nil
	}
	num /= 2
	keys := make([]int, num)
	for i := range keys {
		keys[i] = pos + 1 + i
	}
	return keys
}

// xreadSpec is a parsed XREAD or XREADGROUP, owning its arguments.
type xreadSpec struct {
	keys     [][]byte
	ids      []stream.ID // for ">", MaxID
	group    []byte      // nil for XREAD
	consumer []byte
	count    int
	noack    bool
}

// XREAD [COUNT count] [BLOCK milliseconds] STREAMS key [key ...] id [id ...]
// XREADGROUP GROUP group consumer [COUNT count] [BLOCK milliseconds] [NOACK] STREAMS key [key ...] id [id ...]
func cmdXRead(c *Client, args [][]byte) {
	c.propagateNothing() // what it changes is propagated as XCLAIMs
	xreadgroup := len(args[0]) == 10
	timeout := time.Duration(-1)
	var count int64
	streamsArg, nstreams := 0, 0
	var sp xreadSpec
	for i := 1; i < len(args); i++ {
		more := len(args) - i - 1
		o := args[i]
		switch {
		case equalFold(o, "block") && more > 0:
			if c.scripted {
				c.errorReply(fmt.Sprintf("ERR %s command is not allowed with BLOCK option from scripts", args[0]))
				return
			}
			i++
			ms, ok := parseInt(args[i])
			if !ok {
				c.errorReply(errTimeoutNotInt)
				return
			}
			if ms < 0 {
				c.errorReply(errTimeoutNegative)
				return
			}
			if ms > 0 && ms > math.MaxInt64-keyspace.NowMs() {
				c.errorReply("ERR timeout is out of range")
				return
			}
			timeout = time.Duration(ms) * time.Millisecond
		case equalFold(o, "count") && more > 0:
			i++
			n, ok := c.intArg(args[i])
			if !ok {
				return
			}
			count = max(n, 0)
		case equalFold(o, "streams") && more > 0:
			streamsArg = i + 1
			nstreams = len(args) - streamsArg
			if nstreams%2 != 0 {
				c.errorReply(errXReadUnbalanced) // Redis 7.0's text, XREADGROUP too
				return
			}
			nstreams /= 2
			i = len(args)
		case equalFold(o, "group") && more >= 2:
			if !xreadgroup {
				c.errorReply("ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.")
				return
			}
			sp.group, sp.consumer = args[i+1], args[i+2]
			i += 2
		case equalFold(o, "noack"):
			if !xreadgroup {
				c.errorReply("ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.")
				return
			}
			sp.noack = true
		default:
			c.errorReply(errSyntax)
			return
		}
	}
	if streamsArg == 0 {
		c.errorReply(errSyntax)
		return
	}
	if xreadgroup && sp.group == nil {
		c.errorReply("ERR Missing GROUP option for XREADGROUP")
		return
	}
	sp.count = int(min(count, math.MaxInt32))
	sp.keys = args[streamsArg : streamsArg+nstreams]
	sp.ids = make([]stream.ID, nstreams)
	for i := range nstreams {
		key, arg := sp.keys[i], args[streamsArg+nstreams+i]
		e := c.lookupRead(key)
		if !c.checkType(e, keyspace.KindStream) {
			return
		}
		if sp.group != nil && (e == nil || streamOf(e).Group(string(sp.group)) == nil) {
			c.errorReply(fmt.Sprintf("NOGROUP No such key '%s' or consumer group '%s' in XREADGROUP with GROUP option", cString(key), cString(sp.group)))
			return
		}
		switch string(arg) {
		case "$":
			if xreadgroup {
				c.errorReply("ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set.")
				return
			}
			if e != nil {
				sp.ids[i] = streamOf(e).LastID()
			}
		case ">":
			if !xreadgroup {
				c.errorReply("ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.")
				return
			}
			sp.ids[i] = stream.MaxID
		default:
			id, err := stream.ParseStrictID(arg, 0)
			if err != nil {
				c.streamErr(err)
				return
			}
			sp.ids[i] = id
		}
	}
	if c.xreadNow(&sp) {
		return
	}
	if timeout < 0 {
		c.w.NullArray()
		return
	}
	owned := copyArgs(append(append([][]byte{}, sp.keys...), sp.group, sp.consumer))
	bs := &xreadSpec{keys: owned[:nstreams], ids: sp.ids, count: sp.count, noack: sp.noack}
	if sp.group != nil {
		bs.group, bs.consumer = owned[nstreams], owned[nstreams+1]
	}
	if bs.count == 0 {
		bs.count = xreadDefaultBlockedCount
	}
	c.block(bs.keys, bs.keys, timeout,
		func(sc *Client) bool { return sc.xreadServeBlocked(bs) },
		func(w *resp.Writer) { w.NullArray() })
	if w := c.blocked; w != nil {
		w.eachTried = true // still under the keys' locks: no server has seen it
		if bs.group != nil {
			c.srv.blocking.addGroupReader(w)
		}
	}
}

// xreadResult is one stream's part of a reply.
type xreadResult struct {
	key     []byte
	entries []stream.Entry
}

// writeXRead writes the reply of a read: [[key, entries] ...] in RESP2,
// a map in RESP3.
func writeXRead(w *resp.Writer, rs []xreadResult) {
	if w.Proto == 2 {
		w.Array(len(rs))
	} else {
		w.Map(len(rs))
	}
	for _, r := range rs {
		if w.Proto == 2 {
			w.Array(2)
		}
		w.Bulk(r.key)
		writeEntries(w, r.entries)
	}
}

// xreadNow serves sp synchronously and reports whether it replied.
func (c *Client) xreadNow(sp *xreadSpec) bool {
	var rs []xreadResult
	now := c.db.Now()
	for i, key := range sp.keys {
		e := c.lookupRead(key)
		if e == nil {
			continue
		}
		s := streamOf(e)
		gt := sp.ids[i]
		if sp.group == nil {
			last, ok := s.LastValidID()
			if !ok || last.Compare(gt) <= 0 {
				continue
			}
			start, _ := gt.Incr()
			rs = append(rs, xreadResult{key, s.Range(start, stream.MaxID, sp.count, false)})
			continue
		}
		g := s.Group(string(sp.group))
		if gt != stream.MaxID {
			cons := c.readConsumer(key, g, sp, now)
			rs = append(rs, xreadResult{key, s.ReadHistory(cons, gt, sp.count, now)})
			c.db.Resized(key, e)
			continue
		}
		if last, ok := s.LastValidID(); !ok || last.Compare(g.LastID()) <= 0 {
			continue
		}
		rs = append(rs, xreadResult{key, c.readNew(key, e, g, sp)})
	}
	if len(rs) == 0 {
		return false
	}
	writeXRead(&c.w, rs)
	return true
}

// readConsumer looks up or creates (emitting the event) sp's consumer for
// a read. With NOACK no XCLAIM will create it on replay: Redis 7.0 then
// propagates its creation.
func (c *Client) readConsumer(key []byte, g *stream.Group, sp *xreadSpec, now int64) *stream.Consumer {
	cons, created := g.ConsumerFor(string(sp.consumer), now)
	if created {
		c.notify(evStream, "xgroup-createconsumer", key)
		if sp.noack {
			c.propagate([]byte("XGROUP"), []byte("CREATECONSUMER"), key, sp.group, sp.consumer)
		}
	}
	return cons
}

// readNew reads the group's new entries for sp's consumer and propagates
// the deliveries as Redis does: one XCLAIM per entry and the group's new
// last ID.
func (c *Client) readNew(key []byte, e *keyspace.Entry, g *stream.Group, sp *xreadSpec) []stream.Entry {
	now := c.db.Now()
	s := streamOf(e)
	cons := c.readConsumer(key, g, sp, now)
	es := s.ReadNew(g, cons, sp.count, sp.noack, now)
	if len(es) > 0 && c.recording() {
		for _, en := range es {
			if p := g.Pending(en.ID); p != nil && !sp.noack {
				c.propagateXClaim(key, sp.group, idBytes(en.ID), p.Consumer().Name(), p.DeliveryTime(), p.DeliveryCount(), en.ID)
			}
		}
		if sp.noack {
			// Otherwise the XCLAIMs carry the last ID (Redis 7.0).
			c.propagateGroupID(key, sp.group, g)
		}
	}
	c.db.Resized(key, e)
	return es
}

// xreadServeBlocked tries a blocked read for its client (sc stands in for
// it): the first of its keys with something new is served. A group
// reader whose ready key is no longer a stream is unblocked with an
// error, as Redis's unblockDeletedStreamReadgroupClients.
func (c *Client) xreadServeBlocked(sp *xreadSpec) bool {
	c.propagateNothing()
	if sp.group != nil {
		if e := c.lookupWrite([]byte(c.readyKey)); e == nil || e.Kind != keyspace.KindStream {
			c.errorReply(errStreamKeyGone)
			return true
		}
	}
	for i, key := range sp.keys {
		e := c.lookupWrite(key)
		if e == nil || e.Kind != keyspace.KindStream {
			continue
		}
		s := streamOf(e)
		gt := sp.ids[i]
		var g *stream.Group
		if sp.group != nil {
			if g = s.Group(string(sp.group)); g == nil {
				c.errorReply("NOGROUP the consumer group this client was blocked on no longer exists")
				return true
			}
			gt = g.LastID()
		}
		if s.LastID().Compare(gt) <= 0 {
			continue
		}
		var es []stream.Entry
		if g == nil {
			start, _ := gt.Incr()
			es = s.Range(start, stream.MaxID, sp.count, false)
		} else {
			es = c.readNew(key, e, g, sp)
		}
		writeXRead(&c.w, []xreadResult{{key, es}})
		return true
	}
	return false
}
