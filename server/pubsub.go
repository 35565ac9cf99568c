package server

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/hotkv/hotkv/glob"
	"github.com/hotkv/hotkv/journal"
	"github.com/hotkv/hotkv/resp"
)

// Pub/sub: SUBSCRIBE, PSUBSCRIBE, SSUBSCRIBE and PUBLISH, as Redis 7.0's
// pubsub.c. A publisher appends each message to the subscribers' push
// queues and never waits for them; a subscriber's loop writes its queue
// out once per batch (one write for many messages, as Redis writes a
// client's buffer once per event-loop iteration). A subscriber whose
// queued output passes client-output-buffer-limit pubsub is disconnected,
// as Redis does.
//
// Order: a subscriber's confirmation is written before the subscription
// is registered; its replies are flushed after each command, each flush
// writing the messages queued before it first. So a message published
// before an UNSUBSCRIBE ran reaches the client before its confirmation.

// The kinds of subscription.
const (
	subChannel = iota
	subPattern
	subShard
	subKinds
)

// subKind describes one kind: its commands' reply names.
var subKinds_ = [subKinds]struct{ sub, unsub, message string }{
	subChannel: {"subscribe", "unsubscribe", "message"},
	subPattern: {"psubscribe", "punsubscribe", "pmessage"},
	subShard:   {"ssubscribe", "sunsubscribe", "smessage"},
}

// pubsubState is every subscription of the server, by kind and name.
// mu is a leaf: messages are written to connections under its read lock
// (a connection's Write never blocks).
type pubsubState struct {
	mu   sync.RWMutex
	subs [subKinds]map[string]map[*Client]struct{}
}

// clientSubs are a client's subscriptions, in the order made; names
// guarded by the client's own goroutine, counts read by CLIENT LIST.
type clientSubs struct {
	names  [subKinds][]string
	counts [subKinds]atomic.Int32
	// proto mirrors the client's protocol for publishers (0 means 2).
	proto atomic.Int32
	// active is subscribed() for c's own goroutine: one plain load on
	// the path of every command. used: c has subscribed at some point (its
	// flushes write queued messages first, even after the last
	// UNSUBSCRIBE, whose confirmation follows the messages before it).
	active, used bool
	// push is the messages not yet written to the connection.
	push struct {
		sync.Mutex
		buf, spare []byte
		scheduled  bool // a writePushes task is queued on the loop
		// queued is len(buf), for any goroutine (queuedOutput).
		queued atomic.Int64
	}
}

// subscribed reports whether c has any subscription (Redis's
// CLIENT_PUBSUB flag); safe from any goroutine.
func (c *Client) subscribed() bool {
	s := &c.subs
	return s.counts[subChannel].Load()+s.counts[subPattern].Load()+s.counts[subShard].Load() > 0
}

// countSub adds d to c's subscriptions of kind; c's own goroutine only.
func (c *Client) countSub(kind int, d int32) {
	c.subs.counts[kind].Add(d)
	c.subs.active = c.subscribed()
	c.subs.used = true
}

// pushProto returns the protocol messages to c are encoded in, 2 or 3
// (safe from any goroutine).
func (c *Client) pushProto() int {
	if c.subs.proto.Load() == 3 {
		return 3
	}
	return 2
}

// subCount is the count a (un)subscribe confirmation reports: channels
// and patterns together, or shard channels.
func (c *Client) subCount(kind int) int64 {
	s := &c.subs
	if kind == subShard {
		return int64(s.counts[subShard].Load())
	}
	return int64(s.counts[subChannel].Load() + s.counts[subPattern].Load())
}

func pubsubCommands() []*Command {
	const ps = PubSub | NoScript | Loading | Stale | Subscribed
	return []*Command{
		{Name: "subscribe", Arity: -2, Flags: ps, Handler: cmdSubscribe(subChannel)},
		{Name: "psubscribe", Arity: -2, Flags: ps, Handler: cmdSubscribe(subPattern)},
		{Name: "ssubscribe", Arity: -2, Flags: ps, First: 1, Last: -1, Step: 1, Handler: cmdSubscribe(subShard)},
		{Name: "unsubscribe", Arity: -1, Flags: ps, Handler: cmdUnsubscribe(subChannel)},
		{Name: "punsubscribe", Arity: -1, Flags: ps, Handler: cmdUnsubscribe(subPattern)},
		{Name: "sunsubscribe", Arity: -1, Flags: ps, First: 1, Last: -1, Step: 1, Handler: cmdUnsubscribe(subShard)},
		{Name: "publish", Arity: 3, Flags: PubSub | Loading | Stale | Fast | MayReplicate, Handler: cmdPublish(subChannel)},
		{Name: "spublish", Arity: 3, Flags: PubSub | Loading | Stale | Fast | MayReplicate, First: 1, Last: 1, Step: 1, Handler: cmdPublish(subShard)},
		{Name: "pubsub", Arity: -2, Sub: map[string]*Command{
			"channels":      {Arity: -2, Flags: PubSub | Loading | Stale, Handler: cmdPubsubChannels(subChannel)},
			"shardchannels": {Arity: -2, Flags: PubSub | Loading | Stale, Handler: cmdPubsubChannels(subShard)},
			"numsub":        {Arity: -2, Flags: PubSub | Loading | Stale, Handler: cmdPubsubNumsub(subChannel)},
			"shardnumsub":   {Arity: -2, Flags: PubSub | Loading | Stale, Handler: cmdPubsubNumsub(subShard)},
			"numpat":        {Arity: 2, Flags: PubSub | Loading | Stale, Handler: cmdPubsubNumpat},
			"help":          {Arity: 2, Flags: Loading | Stale, Handler: cmdPubsubHelp},
		}},
	}
}

// confirm writes a (un)subscribe confirmation: [kind, name, count]; a nil
// name is Redis's null (UNSUBSCRIBE with nothing subscribed).
func (c *Client) confirm(what string, name []byte, count int64) {
	writeConfirm(&c.w, what, name, count)
	c.pushing = true // sent even under CLIENT REPLY OFF/SKIP
}

func writeConfirm(w *resp.Writer, what string, name []byte, count int64) {
	if w.Proto >= 3 {
		w.Push(3)
	} else {
		w.Array(3)
	}
	w.BulkString(what)
	if name == nil {
		w.Null()
	} else {
		w.Bulk(name)
	}
	w.Int(count)
}

// SUBSCRIBE channel [channel ...], PSUBSCRIBE pattern [pattern ...],
// SSUBSCRIBE shardchannel [shardchannel ...]
//
// Each subscription is registered and its confirmation queued as a push
// under the registry's lock, so that no message can go out before the
// confirmation and every message published once the client has read it
// reaches the client. The replies before it are written first.
func cmdSubscribe(kind int) func(c *Client, args [][]byte) {
	return func(c *Client, args [][]byte) {
		ps := &c.srv.pubsub
		queue := evented(c.conn)
		if queue {
			c.flush()
		}
		var conf resp.Writer
		for _, name := range args[1:] {
			key := string(name)
			ps.mu.Lock()
			if _, already := ps.subs[kind][key][c]; !already {
				if ps.subs[kind] == nil {
					ps.subs[kind] = make(map[string]map[*Client]struct{})
				}
				if ps.subs[kind][key] == nil {
					ps.subs[kind][key] = make(map[*Client]struct{})
				}
				ps.subs[kind][key][c] = struct{}{}
				c.subs.names[kind] = append(c.subs.names[kind], key)
				c.countSub(kind, 1)
			}
			if !queue {
				// One goroutine per connection: the confirmation is a
				// reply (a message may overtake it).
				ps.mu.Unlock()
				c.confirm(subKinds_[kind].sub, name, c.subCount(kind))
				continue
			}
			conf = resp.Writer{Proto: c.w.Proto}
			writeConfirm(&conf, subKinds_[kind].sub, name, c.subCount(kind))
			c.queuePush(conf.Buf)
			ps.mu.Unlock()
		}
	}
}

// UNSUBSCRIBE [channel ...], PUNSUBSCRIBE [pattern ...], SUNSUBSCRIBE
// [shardchannel ...]: without names, from every one of the kind.
func cmdUnsubscribe(kind int) func(c *Client, args [][]byte) {
	return func(c *Client, args [][]byte) {
		names := args[1:]
		if len(names) == 0 {
			if len(c.subs.names[kind]) == 0 {
				c.confirm(subKinds_[kind].unsub, nil, c.subCount(kind))
				return
			}
			for _, n := range slices.Clone(c.subs.names[kind]) {
				c.unsubscribe(kind, n, true)
			}
			return
		}
		for _, n := range names {
			c.unsubscribe(kind, string(n), true)
		}
	}
}

// unsubscribe removes c's subscription of the kind to name, confirming it
// when reply is set (even when c was not subscribed, as Redis does).
func (c *Client) unsubscribe(kind int, name string, reply bool) {
	if i := slices.Index(c.subs.names[kind], name); i >= 0 {
		c.subs.names[kind] = slices.Delete(c.subs.names[kind], i, i+1)
		c.countSub(kind, -1)
		ps := &c.srv.pubsub
		ps.mu.Lock()
		if m := ps.subs[kind][name]; m != nil {
			delete(m, c)
			if len(m) == 0 {
				delete(ps.subs[kind], name)
			}
		}
		ps.mu.Unlock()
	}
	if reply {
		c.confirm(subKinds_[kind].unsub, []byte(name), c.subCount(kind))
	}
}

// unsubscribeAll drops every subscription of c without replies (RESET, a
// closed connection).
func (c *Client) unsubscribeAll() {
	for kind := range subKinds {
		for len(c.subs.names[kind]) > 0 {
			c.unsubscribe(kind, c.subs.names[kind][0], false)
		}
	}
}

// PUBLISH channel message, SPUBLISH shardchannel message
func cmdPublish(kind int) func(c *Client, args [][]byte) {
	return func(c *Client, args [][]byte) {
		c.w.Int(c.srv.publish(c, kind, args[1], args[2]))
		// Replicas get it (their subscribers too), the AOF does not.
		c.propagateTo(journal.ToReplicas, args...)
	}
}

// publish delivers message to the subscribers of channel (and, for
// channels, of the patterns matching it) and returns how many got it. from
// is the publishing client: a subscriber that is the publisher gets the
// message in its reply buffer, before the reply.
func (s *Server) publish(from *Client, kind int, channel, message []byte) int64 {
	ps := &s.pubsub
	var msgs [2][]byte // by protocol: RESP2, RESP3
	encode := func(proto int, pattern []byte) []byte {
		w := resp.Writer{Proto: proto}
		n := 3
		if pattern != nil {
			n = 4
		}
		if proto >= 3 {
			w.Push(n)
		} else {
			w.Array(n)
		}
		if pattern != nil {
			w.BulkString("pmessage")
			w.Bulk(pattern)
		} else {
			w.BulkString(subKinds_[kind].message)
		}
		w.Bulk(channel)
		w.Bulk(message)
		return w.Buf
	}
	var n int64
	ps.mu.RLock()
	defer ps.mu.RUnlock()
	for sub := range ps.subs[kind][string(channel)] {
		proto := sub.pushProto()
		i := proto - 2
		if msgs[i] == nil {
			msgs[i] = encode(proto, nil)
		}
		sub.deliver(from, msgs[i])
		n++
	}
	if kind != subChannel {
		return n
	}
	for pattern, subs := range ps.subs[subPattern] {
		if !glob.MatchString(pattern, string(channel), false) {
			continue
		}
		var pmsgs [2][]byte
		for sub := range subs {
			proto := sub.pushProto()
			i := proto - 2
			if pmsgs[i] == nil {
				pmsgs[i] = encode(proto, []byte(pattern))
			}
			sub.deliver(from, pmsgs[i])
			n++
		}
	}
	return n
}

// deliver queues a message for subscriber c, from the publishing client
// from (which gets it in its reply buffer when it is c). A subscriber
// whose queued output passes the pubsub class's client-output-buffer-limit
// is disconnected.
func (c *Client) deliver(from *Client, msg []byte) {
	if c == from {
		c.w.Raw(msg)
		return
	}
	if !evented(c.conn) {
		c.conn.Write(msg) // one goroutine per connection: no loop to batch on
		return
	}
	c.queuePush(msg)
	if !c.closeOnOutputLimit(0, false) {
		c.srv.requestClientEviction(c)
	}
}

// queuePush appends p to c's push queue, to be written by c's loop, and
// returns the bytes queued. c's connection is an event-loop one.
func (c *Client) queuePush(p []byte) int {
	q := &c.subs.push
	q.Lock()
	q.buf = append(q.buf, p...)
	schedule := !q.scheduled
	q.scheduled = true
	n := len(q.buf)
	q.queued.Store(int64(n))
	q.Unlock()
	if schedule {
		c.conn.Invoke(c.writePushes)
	}
	return n
}

// writePushes writes the messages queued for c; it runs on c's loop (a
// task, or c's flush).
func (c *Client) writePushes() {
	q := &c.subs.push
	q.Lock()
	buf := q.buf
	q.buf, q.spare = q.spare[:0], nil
	q.scheduled = false
	q.queued.Store(0)
	q.Unlock()
	if len(buf) == 0 {
		return
	}
	c.conn.Write(buf) // copies what the socket does not take at once
	q.Lock()
	if q.spare == nil && cap(buf) <= 1<<20 {
		q.spare = buf[:0]
	}
	q.Unlock()
}

// PUBSUB CHANNELS [pattern], PUBSUB SHARDCHANNELS [pattern]
func cmdPubsubChannels(kind int) func(c *Client, args [][]byte) {
	return func(c *Client, args [][]byte) {
		if len(args) > 3 {
			c.errorReply(fmtSubcommandArgs(args[1], "PUBSUB"))
			return
		}
		ps := &c.srv.pubsub
		ps.mu.RLock()
		var names []string
		for name := range ps.subs[kind] {
			if len(args) < 3 || glob.MatchString(string(args[2]), name, false) {
				names = append(names, name)
			}
		}
		ps.mu.RUnlock()
		c.w.Array(len(names))
		for _, n := range names {
			c.w.BulkString(n)
		}
	}
}

// PUBSUB NUMSUB [channel ...], PUBSUB SHARDNUMSUB [shardchannel ...]
func cmdPubsubNumsub(kind int) func(c *Client, args [][]byte) {
	return func(c *Client, args [][]byte) {
		ps := &c.srv.pubsub
		c.w.Array(2 * (len(args) - 2))
		ps.mu.RLock()
		defer ps.mu.RUnlock()
		for _, ch := range args[2:] {
			c.w.Bulk(ch)
			c.w.Int(int64(len(ps.subs[kind][string(ch)])))
		}
	}
}

// PUBSUB NUMPAT
func cmdPubsubNumpat(c *Client, args [][]byte) {
	ps := &c.srv.pubsub
	ps.mu.RLock()
	n := len(ps.subs[subPattern])
	ps.mu.RUnlock()
	c.w.Int(int64(n))
}

// pubsubCounts returns the number of channels, patterns and shard
// channels with subscribers (INFO stats).
func (s *Server) pubsubCounts() (channels, patterns, shard int) {
	ps := &s.pubsub
	ps.mu.RLock()
	defer ps.mu.RUnlock()
	return len(ps.subs[subChannel]), len(ps.subs[subPattern]), len(ps.subs[subShard])
}

// PUBSUB HELP
func cmdPubsubHelp(c *Client, args [][]byte) {
	c.replyHelpLines("PUBSUB", []string{
		"CHANNELS [<pattern>]",
		"    Return the currently active channels matching a <pattern> (default: '*').",
		"NUMPAT",
		"    Return number of subscriptions to patterns.",
		"NUMSUB [<channel> ...]",
		"    Return the number of subscribers for the specified channels, excluding",
		"    pattern subscriptions(default: no channels).",
		"SHARDCHANNELS [<pattern>]",
		"    Return the currently active shard level channels matching a <pattern> (default: '*').",
		"SHARDNUMSUB [<shardchannel> ...]",
		"    Return the number of subscribers for the specified shard level channel(s)",
	})
}
