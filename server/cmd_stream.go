package server

import (
	"fmt"
	"math"
	"slices"

	"github.com/hotkv/hotkv/keyspace"
	"github.com/hotkv/hotkv/resp"
	"github.com/hotkv/hotkv/stream"
)

// The stream commands (Redis 7.0's t_stream.c) on top of package stream,
// which holds the data structure: this file parses arguments, replies,
// emits keyspace events and decides what each command propagates, as
// Redis does. The reads of XREAD and XREADGROUP, blocking included, live
// in cmd_stream_blocking.go.

func streamCommands() []*Command {
	one := func(name string, arity int, flags Flag, h HandlerFunc) *Command {
		return &Command{Name: name, Arity: arity, Flags: flags, First: 1, Last: 1, Step: 1, Handler: h}
	}
	sub := func(arity int, flags Flag, h HandlerFunc) *Command {
		return &Command{Arity: arity, Flags: flags, First: 2, Last: 2, Step: 1, Handler: h}
	}
	return []*Command{
		one("xadd", -5, Write|DenyOOM|Fast, cmdXAdd),
		one("xlen", 2, Readonly|Fast, cmdXLen),
		one("xrange", -4, Readonly, cmdXRange),
		one("xrevrange", -4, Readonly, cmdXRevRange),
		one("xdel", -3, Write|Fast, cmdXDel),
		one("xtrim", -4, Write, cmdXTrim),
		one("xack", -4, Write|Fast, cmdXAck),
		one("xpending", -3, Readonly, cmdXPending),
		one("xclaim", -6, Write|Fast, cmdXClaim),
		one("xautoclaim", -6, Write|Fast, cmdXAutoClaim),
		one("xsetid", -3, Write|DenyOOM|Fast, cmdXSetID),
		{Name: "xread", Arity: -4, Flags: Readonly | Blocking, Keys: xreadKeys, Handler: cmdXRead},
		{Name: "xreadgroup", Arity: -7, Flags: Write | Blocking, Keys: xreadKeys, Handler: cmdXRead},
		{Name: "xgroup", Arity: -2, Sub: map[string]*Command{
			"create":         sub(-5, Write|DenyOOM, cmdXGroup),
			"setid":          sub(-5, Write, cmdXGroup),
			"destroy":        sub(4, Write, cmdXGroup),
			"createconsumer": sub(5, Write|DenyOOM, cmdXGroup),
			"delconsumer":    sub(5, Write, cmdXGroup),
			"help":           {Arity: 2, Flags: Loading | Stale, Handler: cmdXGroupHelp},
		}},
		{Name: "xinfo", Arity: -2, Sub: map[string]*Command{
			"stream":    sub(-3, Readonly, cmdXInfoStream),
			"groups":    sub(3, Readonly, cmdXInfoGroups),
			"consumers": sub(4, Readonly, cmdXInfoConsumers),
			"help":      {Arity: 2, Flags: Loading | Stale, Handler: cmdXInfoHelp},
		}},
	}
}

// Error texts of the stream commands (the package's own are in
// package stream).
const (
	errXMaxLenMinID     = "ERR syntax error, MAXLEN and MINID options at the same time are not compatible"
	errXMaxLenNegative  = "ERR The MAXLEN argument must be >= 0."
	errXLimitNegative   = "ERR The LIMIT argument must be >= 0."
	errXLimitNoStrategy = "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy"
	errXTrimNoStrategy  = "ERR syntax error, XTRIM must be called with a trimming strategy"
	errXLimitNoApprox   = "ERR syntax error, LIMIT cannot be used without the special ~ option"
	errXGroupNoKey      = "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically."
	errXNoGroupKey      = "NOGROUP No such consumer group '%s' for key name '%s'"
	errXNoKeyOrGroup    = "NOGROUP No such key '%s' or consumer group '%s'"
)

// streamOf returns the stream an entry of KindStream holds.
func streamOf(e *keyspace.Entry) *stream.Stream { return e.Obj.(*stream.Stream) }

// streamLimits returns the node limits configured now.
func (c *Client) streamLimits() stream.Limits {
	return stream.Limits{
		MaxBytes:   c.srv.streamNodeMaxBytes.Int(),
		MaxEntries: c.srv.streamNodeMaxEntries.Int(),
	}
}

// streamErr replies err, an error of package stream.
func (c *Client) streamErr(err error) {
	if e, ok := err.(stream.Error); ok {
		c.errorReply(string(e))
		return
	}
	c.errorReply(err.Error())
}

// writeID writes id as a bulk string.
func writeID(w *resp.Writer, id stream.ID) {
	var buf [48]byte
	w.Bulk(id.Append(buf[:0]))
}

// writeEntry writes an entry as [id, [field, value, ...]], with a null
// array for the fields of an entry that is gone.
func writeEntry(w *resp.Writer, e stream.Entry) {
	w.Array(2)
	writeID(w, e.ID)
	if e.Fields == nil {
		w.NullArray()
		return
	}
	w.Array(len(e.Fields))
	for _, f := range e.Fields {
		w.Bulk(f)
	}
}

func writeEntries(w *resp.Writer, es []stream.Entry) {
	w.Array(len(es))
	for _, e := range es {
		writeEntry(w, e)
	}
}

func idBytes(id stream.ID) []byte { return id.Append(nil) }

// lookupStreamWrite looks key up for a write: (nil, true) when missing,
// ok false after WRONGTYPE.
func (c *Client) lookupStreamWrite(key []byte) (*keyspace.Entry, bool) {
	e := c.lookupWrite(key)
	return e, c.checkType(e, keyspace.KindStream)
}

// trimArgs are XADD's and XTRIM's parsed options
// (streamParseAddOrTrimArgsOrReply).
type trimArgs struct {
	trim     stream.Trim
	argIdx   int // the index of the MAXLEN/MINID value
	id       stream.AddID
	idGiven  bool
	noMk     bool
	idPos    int
	hasTrim  bool
	hasLimit bool
}

func (c *Client) parseTrimArgs(args [][]byte, xadd bool) (ta trimArgs, ok bool) {
	i := 2
	limit := int64(0)
	for ; i < len(args); i++ {
		more := len(args) - 1 - i
		opt := args[i]
		switch {
		case xadd && string(opt) == "*":
			ta.id = stream.AddID{Auto: true}
			ta.idPos = i
			goto done
		case equalFold(opt, "maxlen") && more > 0, equalFold(opt, "minid") && more > 0:
			if ta.hasTrim {
				c.errorReply(errXMaxLenMinID)
				return ta, false
			}
			ta.trim.Approx = false
			next := string(args[i+1])
			if more >= 2 && next == "~" {
				ta.trim.Approx = true
				i++
			} else if more >= 2 && next == "=" {
				i++
			}
			if equalFold(opt, "maxlen") {
				n, ok := c.intArg(args[i+1])
				if !ok {
					return ta, false
				}
				if n < 0 {
					c.errorReply(errXMaxLenNegative)
					return ta, false
				}
				ta.trim.Strategy, ta.trim.MaxLen = stream.TrimMaxLen, uint64(n)
			} else {
				id, err := stream.ParseStrictID(args[i+1], 0)
				if err != nil {
					c.streamErr(err)
					return ta, false
				}
				ta.trim.Strategy, ta.trim.MinID = stream.TrimMinID, id
			}
			i++
			ta.hasTrim = true
			ta.argIdx = i
		case equalFold(opt, "limit") && more > 0:
			n, ok := c.intArg(args[i+1])
			if !ok {
				return ta, false
			}
			if n < 0 {
				c.errorReply(errXLimitNegative)
				return ta, false
			}
			limit = n
			ta.hasLimit = true
			i++
		case xadd && equalFold(opt, "nomkstream"):
			ta.noMk = true
		case xadd:
			id, err := stream.ParseAddID(opt)
			if err != nil {
				c.streamErr(err)
				return ta, false
			}
			ta.id, ta.idGiven, ta.idPos = id, true, i
			goto done
		default:
			c.errorReply(errSyntax)
			return ta, false
		}
	}
	ta.idPos = i
done:
	if limit != 0 && !ta.hasTrim {
		c.errorReply(errXLimitNoStrategy)
		return ta, false
	}
	if !xadd && !ta.hasTrim {
		c.errorReply(errXTrimNoStrategy)
		return ta, false
	}
	if c.db.KeepExpired.Load() {
		// Loading the append-only file: its trims are exact.
		ta.trim.Limit = 0
	} else if ta.hasLimit {
		if !ta.trim.Approx {
			c.errorReply(errXLimitNoApprox)
			return ta, false
		}
		ta.trim.Limit = limit
	} else if ta.trim.Approx {
		ta.trim.Limit = stream.DefaultTrimLimit(c.srv.streamNodeMaxEntries.Int())
	}
	return ta, true
}

// rewriteTrim returns args with an approximate trim made exact as Redis
// propagates it (streamRewriteApproxSpecifier, streamRewriteTrimArgument).
func rewriteTrim(args [][]byte, ta *trimArgs, s *stream.Stream) [][]byte {
	args[ta.argIdx-1] = []byte("=")
	if ta.trim.Strategy == stream.TrimMaxLen {
		args[ta.argIdx] = formatInt(int64(s.Len()))
	} else {
		args[ta.argIdx] = idBytes(s.HeadID())
	}
	return args
}

// XADD key [NOMKSTREAM] [<MAXLEN | MINID> [= | ~] threshold [LIMIT count]] <* | id> field value [field value ...]
func cmdXAdd(c *Client, args [][]byte) {
	ta, ok := c.parseTrimArgs(args, true)
	if !ok {
		return
	}
	fieldPos := ta.idPos + 1
	if n := len(args) - fieldPos; n < 2 || n%2 == 1 {
		c.errorReply(fmt.Sprintf(errArity, "xadd"))
		return
	}
	if ta.idGiven {
		if err := ta.id.Validate(); err != nil {
			c.streamErr(err)
			return
		}
	}
	key := args[1]
	e, ok := c.lookupStreamWrite(key)
	if !ok {
		return
	}
	if e == nil {
		if ta.noMk {
			c.propagateNothing()
			c.w.Null()
			return
		}
		e = keyspace.NewObject(key, keyspace.KindStream, stream.New())
		c.db.Set(key, e)
	}
	s := streamOf(e)
	id, err := s.Add(ta.id, c.db.Now(), args[fieldPos:], c.streamLimits())
	if err != nil {
		c.db.Resized(key, e)
		c.streamErr(err)
		return
	}
	writeID(&c.w, id)
	c.notify(evStream, "xadd", key)
	if ta.hasTrim && s.Trim(ta.trim) > 0 {
		c.notify(evStream, "xtrim", key)
	}
	c.db.Updated(key, e)
	if c.srv.propagating() { // the rewritten command costs allocations
		prop := slices.Clone(args)
		if ta.hasTrim && ta.trim.Approx {
			prop = rewriteTrim(prop, &ta, s)
		}
		if !ta.idGiven || ta.id.SeqAuto {
			prop[ta.idPos] = idBytes(id)
		}
		c.propagate(prop...)
	}
	c.srv.signalKeyReady(int(c.dbIndex.Load()), string(key))
}

// XTRIM key <MAXLEN | MINID> [= | ~] threshold [LIMIT count]
func cmdXTrim(c *Client, args [][]byte) {
	ta, ok := c.parseTrimArgs(args, false)
	if !ok {
		return
	}
	key := args[1]
	e, ok := c.lookupStreamWrite(key)
	if !ok {
		return
	}
	if e == nil {
		c.propagateNothing()
		c.w.Int(0)
		return
	}
	s := streamOf(e)
	n := s.Trim(ta.trim)
	if n == 0 {
		c.propagateNothing()
		c.w.Int(0)
		return
	}
	c.notify(evStream, "xtrim", key)
	c.db.Updated(key, e)
	if ta.trim.Approx {
		c.propagate(rewriteTrim(slices.Clone(args), &ta, s)...)
	}
	c.w.Int(n)
}

// XLEN key
func cmdXLen(c *Client, args [][]byte) {
	e := c.lookupRead(args[1])
	if !c.checkType(e, keyspace.KindStream) {
		return
	}
	if e == nil {
		c.w.Int(0)
		return
	}
	c.w.Int(int64(streamOf(e).Len()))
}

// XRANGE key start end [COUNT count]
func cmdXRange(c *Client, args [][]byte) { c.xrange(args, false) }

// XREVRANGE key end start [COUNT count]
func cmdXRevRange(c *Client, args [][]byte) { c.xrange(args, true) }

func (c *Client) xrange(args [][]byte, rev bool) {
	startArg, endArg := args[2], args[3]
	if rev {
		startArg, endArg = endArg, startArg
	}
	start, err := stream.ParseRangeStart(startArg)
	if err != nil {
		c.streamErr(err)
		return
	}
	end, err := stream.ParseRangeEnd(endArg)
	if err != nil {
		c.streamErr(err)
		return
	}
	count := int64(-1)
	for j := 4; j < len(args); j++ {
		if equalFold(args[j], "count") && j+1 < len(args) {
			n, ok := c.intArg(args[j+1])
			if !ok {
				return
			}
			count = max(n, 0)
			j++
		} else {
			c.errorReply(errSyntax)
			return
		}
	}
	e := c.lookupRead(args[1])
	if !c.checkType(e, keyspace.KindStream) {
		return
	}
	if e == nil {
		c.w.Array(0)
		return
	}
	if count == 0 {
		c.w.NullArray()
		return
	}
	if count < 0 || count > math.MaxInt32 {
		count = 0
	}
	writeEntries(&c.w, streamOf(e).Range(start, end, int(count), rev))
}

// XDEL key id [id ...]
func cmdXDel(c *Client, args [][]byte) {
	key := args[1]
	e, ok := c.lookupStreamWrite(key)
	if !ok {
		return
	}
	if e == nil {
		c.propagateNothing()
		c.w.Int(0)
		return
	}
	ids, ok := c.streamIDs(args[2:])
	if !ok {
		return
	}
	n := streamOf(e).Delete(ids...)
	if n == 0 {
		c.propagateNothing()
	} else {
		c.db.Updated(key, e)
		c.notify(evStream, "xdel", key)
	}
	c.w.Int(int64(n))
}

// XSETID key last-id [ENTRIESADDED entries-added] [MAXDELETEDID max-deleted-id]
func cmdXSetID(c *Client, args [][]byte) {
	id, err := stream.ParseStrictID(args[2], 0)
	if err != nil {
		c.streamErr(err)
		return
	}
	entriesAdded := int64(-1)
	var maxDel stream.ID
	for i := 3; i < len(args); i += 2 {
		more := len(args) - 1 - i
		switch {
		case equalFold(args[i], "entriesadded") && more > 0:
			n, ok := c.intArg(args[i+1])
			if !ok {
				return
			}
			if n < 0 {
				c.streamErr(stream.ErrEntriesAddedNegative)
				return
			}
			entriesAdded = n
		case equalFold(args[i], "maxdeletedid") && more > 0:
			m, err := stream.ParseStrictID(args[i+1], 0)
			if err != nil {
				c.streamErr(err)
				return
			}
			if id.Compare(m) < 0 {
				c.streamErr(stream.ErrSetIDBelowGivenMaxDel)
				return
			}
			maxDel = m
		default:
			c.errorReply(errSyntax)
			return
		}
	}
	key := args[1]
	e, ok := c.lookupStreamWrite(key)
	if !ok {
		return
	}
	if e == nil {
		c.errorReply(errNoSuchKey)
		return
	}
	if err := streamOf(e).SetID(id, entriesAdded, maxDel); err != nil {
		c.streamErr(err)
		return
	}
	c.db.Resized(key, e)
	c.w.OK()
	c.notify(evStream, "xsetid", key)
}

// XACK key group id [id ...]
func cmdXAck(c *Client, args [][]byte) {
	c.propagateNothing()
	e, g, ok := c.streamGroup(args[1], args[2])
	if !ok {
		return
	}
	if g == nil {
		c.w.Int(0)
		return
	}
	ids, ok := c.streamIDs(args[3:])
	if !ok {
		return
	}
	n := g.Ack(ids...)
	if n > 0 {
		c.db.Resized(args[1], e)
		c.propagate(args...)
	}
	c.w.Int(int64(n))
}

// XPENDING key group [[IDLE min-idle-time] start end count [consumer]]
func cmdXPending(c *Client, args [][]byte) {
	justInfo := len(args) == 3
	if len(args) != 3 && (len(args) < 6 || len(args) > 9) {
		c.errorReply(errSyntax)
		return
	}
	var start, end stream.ID
	var count, minIdle int64
	var consumer []byte
	if len(args) >= 6 {
		si := 3
		if equalFold(args[3], "idle") {
			n, ok := c.intArg(args[4])
			if !ok {
				return
			}
			minIdle = n
			if len(args) < 8 {
				c.errorReply(errSyntax)
				return
			}
			si += 2
		}
		n, ok := c.intArg(args[si+2])
		if !ok {
			return
		}
		count = max(n, 0)
		var err error
		if start, err = stream.ParseRangeStart(args[si]); err != nil {
			c.streamErr(err)
			return
		}
		if end, err = stream.ParseRangeEnd(args[si+1]); err != nil {
			c.streamErr(err)
			return
		}
		if si+3 < len(args) {
			consumer = args[si+3]
		}
	}
	_, g, ok := c.streamGroup(args[1], args[2])
	if !ok {
		return
	}
	if g == nil {
		c.errorReply(fmt.Sprintf(errXNoKeyOrGroup, cString(args[1]), cString(args[2])))
		return
	}
	if justInfo {
		sum := g.PendingSummary()
		c.w.Array(4)
		c.w.Int(int64(sum.Count))
		if sum.Count == 0 {
			c.w.Null()
			c.w.Null()
			c.w.NullArray()
			return
		}
		writeID(&c.w, sum.First)
		writeID(&c.w, sum.Last)
		c.w.Array(len(sum.Consumers))
		for _, cp := range sum.Consumers {
			c.w.Array(2)
			c.w.BulkString(cp.Name)
			c.w.BulkInt(int64(cp.Count))
		}
		return
	}
	var cons *stream.Consumer
	if consumer != nil {
		if cons = g.Consumer(string(consumer)); cons == nil {
			c.w.Array(0)
			return
		}
	}
	now := c.db.Now()
	limit := int(min(count, math.MaxInt32))
	ps := g.PendingRange(cons, start, end, limit, minIdle, now)
	c.w.Array(len(ps))
	for _, p := range ps {
		c.w.Array(4)
		writeID(&c.w, p.ID())
		c.w.BulkString(p.Consumer().Name())
		c.w.Int(p.Idle(now))
		c.w.Int(int64(p.DeliveryCount()))
	}
}

// pendingState is a PEL entry as it was before a claim dropped it.
type pendingState struct {
	consumer string
	time     int64
	count    uint64
}

// propagateXClaim records the XCLAIM Redis propagates for a PEL entry
// (streamPropagateXCLAIM).
func (c *Client) propagateXClaim(key, group, id []byte, consumer string, time int64, count uint64, lastID stream.ID) {
	if !c.recording() {
		return // the arguments cost allocations
	}
	c.propagate([]byte("XCLAIM"), key, group, []byte(consumer), []byte("0"), id,
		[]byte("TIME"), formatInt(time), []byte("RETRYCOUNT"), formatInt(int64(count)),
		[]byte("FORCE"), []byte("JUSTID"), []byte("LASTID"), idBytes(lastID))
}

// propagateClaimOf records the XCLAIM for id's current PEL entry.
func (c *Client) propagateClaimOf(key, group, idArg []byte, g *stream.Group, id stream.ID) {
	p := g.Pending(id)
	if p == nil {
		return
	}
	c.propagateXClaim(key, group, idArg, p.Consumer().Name(), p.DeliveryTime(), p.DeliveryCount(), g.LastID())
}

// propagateGroupID records XGROUP SETID with the group's state
// (streamPropagateGroupID).
func (c *Client) propagateGroupID(key, group []byte, g *stream.Group) {
	if !c.recording() {
		return // the arguments cost allocations
	}
	c.propagate([]byte("XGROUP"), []byte("SETID"), key, group, idBytes(g.LastID()),
		[]byte("ENTRIESREAD"), formatInt(g.EntriesRead()))
}

// XCLAIM key group consumer min-idle-time id [id ...] [IDLE ms] [TIME unix-time-milliseconds] [RETRYCOUNT count] [FORCE] [JUSTID] [LASTID lastid]
func cmdXClaim(c *Client, args [][]byte) {
	c.propagateNothing()
	key, group := args[1], args[2]
	e, g, ok := c.streamGroup(key, group)
	if !ok {
		return
	}
	if g == nil {
		c.errorReply(fmt.Sprintf(errXNoKeyOrGroup, cString(key), cString(group)))
		return
	}
	minIdle, ok := parseInt(args[4])
	if !ok {
		c.errorReply("ERR Invalid min-idle-time argument for XCLAIM")
		return
	}
	var o stream.ClaimOptions
	o.MinIdle = max(minIdle, 0)
	j := 5
	var ids []stream.ID
	for ; j < len(args); j++ {
		id, err := stream.ParseStrictID(args[j], 0)
		if err != nil {
			break
		}
		ids = append(ids, id)
	}
	idArgs := args[5:j]
	now := c.db.Now()
	for ; j < len(args); j++ {
		more := len(args) - 1 - j
		opt := args[j]
		intOpt := func(msg string) (int64, bool) {
			j++
			n, ok := parseInt(args[j])
			if !ok {
				c.errorReply(msg)
			}
			return n, ok
		}
		switch {
		case equalFold(opt, "force"):
			o.Force = true
		case equalFold(opt, "justid"):
			o.JustID = true
		case equalFold(opt, "idle") && more > 0:
			n, ok := intOpt("ERR Invalid IDLE option argument for XCLAIM")
			if !ok {
				return
			}
			o.Time, o.HasTime = now-n, true
		case equalFold(opt, "time") && more > 0:
			n, ok := intOpt("ERR Invalid TIME option argument for XCLAIM")
			if !ok {
				return
			}
			o.Time, o.HasTime = n, true
		case equalFold(opt, "retrycount") && more > 0:
			n, ok := intOpt("ERR Invalid RETRYCOUNT option argument for XCLAIM")
			if !ok {
				return
			}
			o.RetryCount, o.HasRetryCount = n, true
		case equalFold(opt, "lastid") && more > 0:
			j++
			id, err := stream.ParseStrictID(args[j], 0)
			if err != nil {
				c.streamErr(err)
				return
			}
			o.LastID = id
		default:
			c.errorReply(fmt.Sprintf("ERR Unrecognized XCLAIM option '%s'", opt))
			return
		}
	}
	s := streamOf(e)
	// The PEL entries the claim will drop, as they are now: Redis
	// propagates their removal with their state.
	gone := map[stream.ID]pendingState{}
	for _, id := range ids {
		if p := g.Pending(id); p != nil && !s.Exists(id) {
			gone[id] = pendingState{p.Consumer().Name(), p.DeliveryTime(), p.DeliveryCount()}
		}
	}
	r := s.Claim(g, string(args[3]), ids, o, now)
	if r.Created {
		c.notify(evStream, "xgroup-createconsumer", key)
	}
	c.w.Array(len(r.Claimed))
	for _, en := range r.Claimed {
		if o.JustID {
			writeID(&c.w, en.ID)
		} else {
			writeEntry(&c.w, en)
		}
	}
	// Propagation, in the order of the IDs.
	propagated := false
	next := 0
	for i, id := range ids {
		if st, ok := gone[id]; ok {
			delete(gone, id)
			c.propagateXClaim(key, group, idArgs[i], st.consumer, st.time, st.count, g.LastID())
			propagated = true
			continue
		}
		if next < len(r.Claimed) && r.Claimed[next].ID == id {
			next++
			c.propagateClaimOf(key, group, idArgs[i], g, id)
			propagated = true
		}
	}
	if r.LastIDChanged && !propagated {
		c.propagateGroupID(key, group, g)
		propagated = true
	}
	if propagated || r.Created {
		c.db.Resized(key, e)
	}
}

// XAUTOCLAIM key group consumer min-idle-time start [COUNT count] [JUSTID]
func cmdXAutoClaim(c *Client, args [][]byte) {
	c.propagateNothing()
	key, group := args[1], args[2]
	minIdle, ok := parseInt(args[4])
	if !ok {
		c.errorReply("ERR Invalid min-idle-time argument for XAUTOCLAIM")
		return
	}
	minIdle = max(minIdle, 0)
	start, err := stream.ParseRangeStart(args[5])
	if err != nil {
		c.streamErr(err)
		return
	}
	count := int64(100)
	justID := false
	for j := 6; j < len(args); j++ {
		more := len(args) - 1 - j
		switch {
		case equalFold(args[j], "count") && more > 0:
			n, ok := parseInt(args[j+1])
			if !ok || n < 1 || n > math.MaxInt64/16 {
				c.errorReply(errCountPositive)
				return
			}
			count = n
			j++
		case equalFold(args[j], "justid"):
			justID = true
		default:
			c.errorReply(errSyntax)
			return
		}
	}
	e, g, ok := c.streamGroup(key, group)
	if !ok {
		return
	}
	if g == nil {
		c.errorReply(fmt.Sprintf(errXNoKeyOrGroup, cString(key), cString(group)))
		return
	}
	s := streamOf(e)
	now := c.db.Now()
	scan := int(min(count*10, math.MaxInt32))
	gone := map[stream.ID]pendingState{}
	for _, p := range g.PendingRange(nil, start, stream.MaxID, scan, 0, now) {
		if !s.Exists(p.ID()) {
			gone[p.ID()] = pendingState{p.Consumer().Name(), p.DeliveryTime(), p.DeliveryCount()}
		}
	}
	r := s.AutoClaim(g, string(args[3]), start, int(min(count, math.MaxInt32)), minIdle, justID, now)
	if r.Created {
		c.notify(evStream, "xgroup-createconsumer", key)
	}
	c.w.Array(3)
	writeID(&c.w, r.Next)
	c.w.Array(len(r.Claimed))
	for _, en := range r.Claimed {
		if justID {
			writeID(&c.w, en.ID)
		} else {
			writeEntry(&c.w, en)
		}
	}
	c.w.Array(len(r.Deleted))
	for _, id := range r.Deleted {
		writeID(&c.w, id)
	}
	// Propagation, in PEL order: claims and removals interleaved.
	i, k := 0, 0
	for i < len(r.Claimed) || k < len(r.Deleted) {
		if k < len(r.Deleted) && (i == len(r.Claimed) || r.Deleted[k].Compare(r.Claimed[i].ID) < 0) {
			id := r.Deleted[k]
			st := gone[id]
			c.propagateXClaim(key, group, idBytes(id), st.consumer, st.time, st.count, g.LastID())
			k++
			continue
		}
		id := r.Claimed[i].ID
		c.propagateClaimOf(key, group, idBytes(id), g, id)
		i++
	}
	if len(r.Claimed) > 0 || len(r.Deleted) > 0 || r.Created {
		c.db.Resized(key, e)
	}
}

// XGROUP CREATE | SETID | DESTROY | CREATECONSUMER | DELCONSUMER
// (xgroupCommand).
func cmdXGroup(c *Client, args [][]byte) {
	opt := args[1]
	create := equalFold(opt, "create")
	setid := equalFold(opt, "setid")
	mkstream := false
	entriesRead := int64(stream.InvalidEntriesRead)
	for i := 5; i < len(args); {
		switch {
		case create && equalFold(args[i], "mkstream"):
			mkstream = true
			i++
		case (create || setid) && equalFold(args[i], "entriesread") && i+1 < len(args):
			n, ok := c.intArg(args[i+1])
			if !ok {
				return
			}
			if n < 0 && n != stream.InvalidEntriesRead {
				c.streamErr(stream.ErrEntriesRead)
				return
			}
			entriesRead = n
			i += 2
		default:
			c.xgroupSyntax(opt)
			return
		}
	}
	key, name := args[2], args[3]
	e, ok := c.lookupStreamWrite(key)
	if !ok {
		return
	}
	var s *stream.Stream
	if e != nil {
		s = streamOf(e)
	}
	if !mkstream && s == nil {
		c.errorReply(errXGroupNoKey)
		return
	}
	var g *stream.Group
	if s != nil {
		g = s.Group(string(name))
	}
	if g == nil && (setid || equalFold(opt, "createconsumer") || equalFold(opt, "delconsumer")) {
		c.errorReply(fmt.Sprintf(errXNoGroupKey, cString(name), cString(key)))
		return
	}
	switch {
	case create:
		if len(args) > 8 {
			c.xgroupSyntax(opt)
			return
		}
		var id stream.ID
		if string(args[4]) == "$" {
			if s != nil {
				id = s.LastID()
			}
		} else {
			var err error
			if id, err = stream.ParseStrictID(args[4], 0); err != nil {
				c.streamErr(err)
				return
			}
		}
		if s == nil {
			s = stream.New()
			e = keyspace.NewObject(key, keyspace.KindStream, s)
			c.db.Set(key, e)
		}
		if _, err := s.CreateGroup(string(name), id, entriesRead); err != nil {
			c.streamErr(err)
			return
		}
		c.db.Resized(key, e)
		c.w.OK()
		c.notify(evStream, "xgroup-create", key)
	case setid:
		if len(args) != 5 && len(args) != 7 {
			c.xgroupSyntax(opt)
			return
		}
		var id stream.ID
		if string(args[4]) == "$" {
			id = s.LastID()
		} else {
			var err error
			if id, err = stream.ParseID(args[4], 0); err != nil {
				c.streamErr(err)
				return
			}
		}
		g.SetID(id, entriesRead)
		c.db.Resized(key, e)
		c.w.OK()
		c.notify(evStream, "xgroup-setid", key)
	case equalFold(opt, "destroy"):
		if g == nil || !s.DestroyGroup(string(name)) {
			c.propagateNothing()
			c.w.Int(0)
			return
		}
		c.db.Resized(key, e)
		c.w.Int(1)
		c.notify(evStream, "xgroup-destroy", key)
		// Blocked XREADGROUP clients of the group get NOGROUP.
		c.srv.signalKeyReady(int(c.dbIndex.Load()), string(key))
	case equalFold(opt, "createconsumer"):
		if _, created := g.CreateConsumer(string(args[4]), c.db.Now()); !created {
			c.propagateNothing()
			c.w.Int(0)
			return
		}
		c.db.Resized(key, e)
		c.w.Int(1)
		c.notify(evStream, "xgroup-createconsumer", key)
	default: // delconsumer
		pending, ok := g.DeleteConsumer(string(args[4]))
		if !ok {
			c.propagateNothing()
			c.w.Int(0)
			return
		}
		c.db.Resized(key, e)
		c.w.Int(int64(pending))
		c.notify(evStream, "xgroup-delconsumer", key)
	}
}

func (c *Client) xgroupSyntax(opt []byte) {
	c.errorReply(fmtSubcommandArgs(opt, "XGROUP"))
}

var xgroupHelp = []string{
	"CREATE <key> <groupname> <id|$> [option]",
	"    Create a new consumer group. Options are:",
	"    * MKSTREAM",
	"      Create the empty stream if it does not exist.",
	"    * ENTRIESREAD entries_read",
	"      Set the group's entries_read counter (internal use).",
	"CREATECONSUMER <key> <groupname> <consumer>",
	"    Create a new consumer in the specified group.",
	"DELCONSUMER <key> <groupname> <consumer>",
	"    Remove the specified consumer.",
	"DESTROY <key> <groupname>",
	"    Remove the specified group.",
	"SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
	"    Set the current group ID and entries_read counter.",
}

// XGROUP HELP
func cmdXGroupHelp(c *Client, args [][]byte) { c.replyHelpLines("XGROUP", xgroupHelp) }

var xinfoHelp = []string{
	"CONSUMERS <key> <groupname>",
	"    Show consumers of <groupname>.",
	"GROUPS <key>",
	"    Show the stream consumer groups.",
	"STREAM <key> [FULL [COUNT <count>]",
	"    Show information about the stream.",
}

func (c *Client) xinfoSyntax(opt []byte) {
	c.errorReply(fmtSubcommandArgs(opt, "XINFO"))
}

// XINFO HELP
func cmdXInfoHelp(c *Client, args [][]byte) { c.replyHelpLines("XINFO", xinfoHelp) }

// lookupXInfo looks up XINFO's key: nil after an error reply.
func (c *Client) lookupXInfo(key []byte) *stream.Stream {
	e := c.lookupRead(key)
	if e == nil {
		c.errorReply(errNoSuchKey)
		return nil
	}
	if !c.checkType(e, keyspace.KindStream) {
		return nil
	}
	return streamOf(e)
}

// XINFO CONSUMERS key group
func cmdXInfoConsumers(c *Client, args [][]byte) {
	s := c.lookupXInfo(args[2])
	if s == nil {
		return
	}
	g := s.Group(string(args[3]))
	if g == nil {
		c.errorReply(fmt.Sprintf(errXNoGroupKey, cString(args[3]), cString(args[2])))
		return
	}
	now := c.db.Now()
	cs := g.Consumers()
	c.w.Array(len(cs))
	for _, cn := range cs {
		c.w.Map(3)
		c.w.BulkString("name")
		c.w.BulkString(cn.Name())
		c.w.BulkString("pending")
		c.w.Int(int64(cn.PendingCount()))
		c.w.BulkString("idle")
		c.w.Int(max(now-cn.SeenTime(), 0))
	}
}

// writeLag writes a group's lag, or a null when it is unknown.
func writeLag(w *resp.Writer, s *stream.Stream, g *stream.Group) {
	if lag, ok := s.Lag(g); ok {
		w.Int(lag)
	} else {
		w.Null()
	}
}

func writeEntriesRead(w *resp.Writer, g *stream.Group) {
	if n := g.EntriesRead(); n != stream.InvalidEntriesRead {
		w.Int(n)
	} else {
		w.Null()
	}
}

// XINFO GROUPS key
func cmdXInfoGroups(c *Client, args [][]byte) {
	s := c.lookupXInfo(args[2])
	if s == nil {
		return
	}
	gs := s.Groups()
	c.w.Array(len(gs))
	for _, g := range gs {
		c.w.Map(6)
		c.w.BulkString("name")
		c.w.BulkString(g.Name())
		c.w.BulkString("consumers")
		c.w.Int(int64(g.ConsumerCount()))
		c.w.BulkString("pending")
		c.w.Int(int64(g.PendingCount()))
		c.w.BulkString("last-delivered-id")
		writeID(&c.w, g.LastID())
		c.w.BulkString("entries-read")
		writeEntriesRead(&c.w, g)
		c.w.BulkString("lag")
		writeLag(&c.w, s, g)
	}
}

// XINFO STREAM key [FULL [COUNT count]]
func cmdXInfoStream(c *Client, args [][]byte) {
	s := c.lookupXInfo(args[2]) // the key before the options, as Redis
	if s == nil {
		return
	}
	full := false
	count := int64(10)
	if len(args) > 3 {
		if !equalFold(args[3], "full") {
			c.xinfoSyntax(args[1])
			return
		}
		full = true
		if len(args) > 4 {
			if len(args) != 6 || !equalFold(args[4], "count") {
				c.xinfoSyntax(args[1])
				return
			}
			n, ok := c.intArg(args[5])
			if !ok {
				return
			}
			count = n
			if count < 0 {
				count = 10
			}
		}
	}
	if full {
		c.w.Map(9)
	} else {
		c.w.Map(10)
	}
	c.w.BulkString("length")
	c.w.Int(int64(s.Len()))
	c.w.BulkString("radix-tree-keys")
	c.w.Int(int64(s.NodeCount()))
	c.w.BulkString("radix-tree-nodes")
	c.w.Int(raxNodes(s))
	c.w.BulkString("last-generated-id")
	writeID(&c.w, s.LastID())
	c.w.BulkString("max-deleted-entry-id")
	writeID(&c.w, s.MaxDeletedID())
	c.w.BulkString("entries-added")
	c.w.Int(int64(s.EntriesAdded()))
	c.w.BulkString("recorded-first-entry-id")
	writeID(&c.w, s.FirstID())
	if !full {
		c.w.BulkString("groups")
		c.w.Int(int64(s.GroupCount()))
		for _, rev := range []bool{false, true} {
			if rev {
				c.w.BulkString("last-entry")
			} else {
				c.w.BulkString("first-entry")
			}
			if es := s.Range(stream.MinID, stream.MaxID, 1, rev); len(es) > 0 {
				writeEntry(&c.w, es[0])
			} else {
				c.w.Null()
			}
		}
		return
	}
	n := int(min(count, math.MaxInt32))
	limit := n
	if n == 0 {
		limit = -1
	}
	c.w.BulkString("entries")
	writeEntries(&c.w, s.Range(stream.MinID, stream.MaxID, n, false))
	c.w.BulkString("groups")
	gs := s.Groups()
	c.w.Array(len(gs))
	now := c.db.Now()
	for _, g := range gs {
		c.w.Map(7)
		c.w.BulkString("name")
		c.w.BulkString(g.Name())
		c.w.BulkString("last-delivered-id")
		writeID(&c.w, g.LastID())
		c.w.BulkString("entries-read")
		writeEntriesRead(&c.w, g)
		c.w.BulkString("lag")
		writeLag(&c.w, s, g)
		c.w.BulkString("pel-count")
		c.w.Int(int64(g.PendingCount()))
		c.w.BulkString("pending")
		ps := g.PendingRange(nil, stream.MinID, stream.MaxID, limit, 0, now)
		c.w.Array(len(ps))
		for _, p := range ps {
			c.w.Array(4)
			writeID(&c.w, p.ID())
			c.w.BulkString(p.Consumer().Name())
			c.w.Int(p.DeliveryTime())
			c.w.Int(int64(p.DeliveryCount()))
		}
		c.w.BulkString("consumers")
		cs := g.Consumers()
		c.w.Array(len(cs))
		for _, cn := range cs {
			c.w.Map(4)
			c.w.BulkString("name")
			c.w.BulkString(cn.Name())
			c.w.BulkString("seen-time")
			c.w.Int(cn.SeenTime())
			c.w.BulkString("pel-count")
			c.w.Int(int64(cn.PendingCount()))
			c.w.BulkString("pending")
			cps := g.PendingRange(cn, stream.MinID, stream.MaxID, limit, 0, now)
			c.w.Array(len(cps))
			for _, p := range cps {
				c.w.Array(3)
				writeID(&c.w, p.ID())
				c.w.Int(p.DeliveryTime())
				c.w.Int(int64(p.DeliveryCount()))
			}
		}
	}
}

// raxNodes returns the number of nodes of the radix tree Redis would hold
// for the stream's nodes (XINFO's radix-tree-nodes), keyed by their
// master IDs as 16 big-endian bytes: the root, every key, every prefix
// with two or more children and every child of such a prefix.
func raxNodes(s *stream.Stream) int64 {
	d := s.Dump()
	keys := make([][16]byte, len(d.Nodes))
	for i, n := range d.Nodes {
		var k [16]byte
		for b := 0; b < 8; b++ {
			k[b] = byte(n.Master.Ms >> (56 - 8*b))
			k[8+b] = byte(n.Master.Seq >> (56 - 8*b))
		}
		keys[i] = k
	}
	slices.SortFunc(keys, func(a, b [16]byte) int { return slices.Compare(a[:], b[:]) })
	keys = slices.Compact(keys)
	nodes := map[string]struct{}{"": {}}
	for i, k := range keys {
		nodes[string(k[:])] = struct{}{}
		if i == 0 {
			continue
		}
		prev := keys[i-1]
		l := 0
		for l < 16 && prev[l] == k[l] {
			l++
		}
		// prev[:l] branches: prev[:l+1] and k[:l+1] are its children.
		nodes[string(k[:l])] = struct{}{}
		nodes[string(prev[:l+1])] = struct{}{}
		nodes[string(k[:l+1])] = struct{}{}
	}
	return int64(len(nodes))
}

// streamIDs parses explicit stream IDs (XDEL, XACK), replying with the
// error of the first invalid one.
func (c *Client) streamIDs(args [][]byte) ([]stream.ID, bool) {
	ids := make([]stream.ID, 0, len(args))
	for _, a := range args {
		id, err := stream.ParseStrictID(a, 0)
		if err != nil {
			c.streamErr(err)
			return nil, false
		}
		ids = append(ids, id)
	}
	return ids, true
}

// streamGroup looks key's stream up for a read and returns it with its
// group (nil when the key or the group does not exist); ok is false after
// replying WRONGTYPE.
func (c *Client) streamGroup(key, group []byte) (e *keyspace.Entry, g *stream.Group, ok bool) {
	e = c.lookupRead(key)
	if !c.checkType(e, keyspace.KindStream) {
		return nil, nil, false
	}
	if e != nil {
		g = streamOf(e).Group(string(group))
	}
	return e, g, true
}
