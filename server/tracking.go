package server

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/hotkv/hotkv/lock"
	"github.com/hotkv/hotkv/resp"
	"github.com/hotkv/hotkv/tracking"
)

// Client-side caching: CLIENT TRACKING and its invalidation messages, as
// Redis 7.0's tracking.c. Package tracking keeps the tables; this file
// wires them to the keyspace, the executor and the connections.
//
// When a key changes, the keyspace's OnModify hook (OnExpire for an
// expiry) takes the key's readers out of the table and records a fired
// invalidation; nothing is sent from the hook, which runs under a shard
// mutex and does not know which client made the change. The command that
// made it claims the invalidations of the keys its locks cover when it
// completes (complete, still under its locks): it is Redis's
// current_client, which NOLOOP compares with, and the modifier of the
// BCAST batch, sent once per command (Redis sends the batch once per
// event-loop iteration). The active expiry claims what it deletes; the
// cron delivers what no command claimed (changes made outside a
// command's locks).
//
// An invalidation for a tracking client's own connection is queued on
// the client (clientTracking.q) and appended to its reply buffer by its
// own goroutine: before and after each command it runs (so it follows
// the reply of the command that read the key, and of the command that
// changed it, as Redis's pending invalidations do), or by a task on its
// loop when it is idle. Messages for a redirection client go through its
// push queue, as pub/sub messages do.

// Tracking flags of a client, readable from any goroutine.
const (
	trkOn uint32 = 1 << iota
	trkBcast
	trkOptin
	trkOptout
	trkNoloop
	trkBrokenRedir
)

// clientTracking is a client's tracking state. flags and redirect are
// written by the client's own goroutine and read by those delivering
// invalidations; the rest belongs to the client's goroutine, but for q.
type clientTracking struct {
	flags    atomic.Uint32
	redirect atomic.Int64
	// on mirrors trkOn for the read path (a plain load); used is set once
	// tracking was ever on: the client's queue may hold messages.
	on, used bool
	// caching is CLIENT CACHING's mark for the next command.
	caching  bool
	prefixes []string // BCAST prefixes, sorted
	// q is the invalidations not yet appended to the reply buffer.
	q struct {
		sync.Mutex
		buf       []byte
		scheduled bool // a trackingTask is queued on the loop
	}
}

// trackingState is the server's side: the tables, the tracking clients
// and the invalidations fired but not delivered yet.
type trackingState struct {
	clients atomic.Int64 // tracking_clients
	// live is set while the table has keys or prefixes: the keyspace
	// hooks look at nothing else when it is not.
	live atomic.Bool
	// fired is set while mu.fired is not empty.
	fired atomic.Bool
	// cronGuard locks the leftover invalidations' keys for trackingCron
	// (the cron's goroutine only).
	cronGuard *lock.Guard

	mu struct {
		sync.Mutex
		table tracking.Table
		byID  map[uint64]*Client // the clients with tracking on
		fired []firedKey
		gen   uint64 // cron ticks, for leftovers (trackingCron)
		// strain is Redis's timeout_counter: consecutive evictions
		// that could not get under tracking-table-max-keys.
		strain int
	}
}

// firedKey is a changed key's invalidation, not delivered yet: the
// clients that read it, the BCAST prefixes it matches, and whether the
// change was an expiry (no modifier, for NOLOOP).
type firedKey struct {
	key      string
	ids      []uint64
	prefixes []string
	expired  bool
	gen      uint64
}

// setLiveLocked updates live after a table change. The caller holds
// t.mu.
func (t *trackingState) setLiveLocked() { t.live.Store(!t.mu.table.Empty()) }

// trackingTouched is called by the keyspace hooks (under a shard mutex
// or the key's tag lock) for each changed key of any database: the
// key's readers and prefixes are recorded as a fired invalidation, for
// the command that changed it to claim (Redis's trackingInvalidateKey).
func (s *Server) trackingTouched(key string, expired bool) {
	t := &s.tracking
	if !t.live.Load() {
		return
	}
	t.mu.Lock()
	ids := t.mu.table.Invalidate(key)
	var prefixes []string
	if t.mu.table.Prefixes() > 0 {
		prefixes = t.mu.table.Matching(nil, key)
	}
	if ids != nil || prefixes != nil {
		t.mu.fired = append(t.mu.fired, firedKey{key, ids, prefixes, expired, t.mu.gen})
		t.fired.Store(true)
		t.setLiveLocked()
	}
	t.mu.Unlock()
}

// trackingClaim delivers the fired invalidations of the keys g covers
// (every one when g is nil), changed by cur (nil: no client, as an
// expiry or an eviction). Callers hold g's locks.
func (s *Server) trackingClaim(cur *Client, g *lock.Guard) {
	t := &s.tracking
	if !t.fired.Load() {
		return
	}
	t.mu.Lock()
	var mine []firedKey
	rest := t.mu.fired[:0]
	for _, f := range t.mu.fired {
		if g == nil || g.Covers([]byte(f.key), false) {
			mine = append(mine, f)
		} else {
			rest = append(rest, f)
		}
	}
	clear(t.mu.fired[len(rest):])
	t.mu.fired = rest
	t.fired.Store(len(rest) > 0)
	msgs := t.messagesLocked(cur, mine)
	t.mu.Unlock()
	for _, m := range msgs {
		s.sendInvalidation(m.to, m.keys, false)
	}
}

// trackingMsg is one invalidation to send: keys to client to.
type trackingMsg struct {
	to   *Client
	keys []string
}

// messagesLocked turns fired invalidations into messages: one per key
// for each client that read it and tracks in the default mode (but cur
// itself with NOLOOP), then one per prefix for the BCAST clients
// following it, without the keys they changed themselves with NOLOOP.
// The caller holds t.mu.
func (t *trackingState) messagesLocked(cur *Client, fired []firedKey) []trackingMsg {
	var msgs []trackingMsg
	var batch tracking.Batch
	var curID uint64
	if cur != nil {
		curID = cur.id
	}
	for _, f := range fired {
		for _, id := range f.ids {
			to := t.mu.byID[id]
			if to == nil {
				continue
			}
			fl := to.trk.flags.Load()
			if fl&trkBcast != 0 || fl&trkNoloop != 0 && to == cur {
				continue
			}
			msgs = append(msgs, trackingMsg{to, []string{f.key}})
		}
		by := curID
		if f.expired {
			by = 0
		}
		for _, p := range f.prefixes {
			batch.Add(p, f.key, by)
		}
	}
	if batch.Empty() {
		return msgs
	}
	for _, p := range batch.Prefixes() {
		var all []string
		for _, id := range t.mu.table.Followers(p) {
			to := t.mu.byID[id]
			if to == nil {
				continue
			}
			var keys []string
			if to.trk.flags.Load()&trkNoloop != 0 {
				keys = batch.Keys(p, id)
			} else {
				if all == nil {
					all = batch.Keys(p, 0)
				}
				keys = all
			}
			if keys != nil {
				msgs = append(msgs, trackingMsg{to, keys})
			}
		}
	}
	return msgs
}

// sendInvalidation sends an invalidation of keys (of every key: flush)
// meant for tracking client to: to its redirection client when it has
// one — a RESP3 push, or a message on __redis__:invalidate to a
// subscribed RESP2 client — else, in RESP3, to its own connection
// (Redis's sendTrackingMessage). A redirection client that is gone gets
// to the tracking-redir-broken push instead.
func (s *Server) sendInvalidation(to *Client, keys []string, flush bool) {
	proto := to.pushProto()
	if redir := to.trk.redirect.Load(); redir != 0 {
		r := s.clientByID(redir)
		if r == nil {
			to.trk.flags.Or(trkBrokenRedir)
			if proto == 3 {
				w := resp.Writer{Proto: 3}
				w.Push(2)
				w.BulkString("tracking-redir-broken")
				w.Int(redir)
				to.queueTracking(w.Buf)
			}
			return
		}
		rproto := r.pushProto()
		w := resp.Writer{Proto: rproto}
		if rproto == 3 {
			w.Push(2)
			w.BulkString("invalidate")
		} else if r.subscribed() {
			w.Array(3)
			w.BulkString("message")
			w.BulkString(trackingChannel)
		} else {
			return // RESP2 and not subscribed: nowhere to say it
		}
		appendInvalidated(&w, keys, flush, proto)
		r.deliver(nil, w.Buf)
		return
	}
	if proto != 3 {
		return // RESP2 cannot push on the connection itself
	}
	w := resp.Writer{Proto: 3}
	w.Push(2)
	w.BulkString("invalidate")
	appendInvalidated(&w, keys, flush, 3)
	to.queueTracking(w.Buf)
}

// trackingChannel is the channel RESP2 redirection clients get
// invalidations on.
const trackingChannel = "__redis__:invalidate"

// appendInvalidated appends an invalidation's value: the keys, or for a
// flush the null of the tracking client's protocol (Redis's
// shared.null[c->resp]).
func appendInvalidated(w *resp.Writer, keys []string, flush bool, proto int) {
	if flush {
		if proto == 3 {
			w.Raw([]byte("_\r\n"))
		} else {
			w.Raw([]byte("$-1\r\n"))
		}
		return
	}
	w.Array(len(keys))
	for _, k := range keys {
		w.BulkString(k)
	}
}

// queueTracking queues msg for c's own connection; a task on c's loop
// writes it if c does not first (trackingDrain).
func (c *Client) queueTracking(msg []byte) {
	q := &c.trk.q
	q.Lock()
	q.buf = append(q.buf, msg...)
	schedule := !q.scheduled
	q.scheduled = true
	q.Unlock()
	if schedule {
		c.invoke(c.trackingTask)
	}
}

// trackingTask writes the invalidations queued for an idle client. A
// blocked or parked client's wait for its reply: they follow it.
func (c *Client) trackingTask() {
	q := &c.trk.q
	q.Lock()
	q.scheduled = false
	q.Unlock()
	if c.gone.Load() || c.blocked != nil || c.parked != nil {
		return
	}
	c.flush()
}

// trackingDrain appends the invalidations queued for c to its replies;
// c's own goroutine, between commands (serveInput, flush).
func (c *Client) trackingDrain() {
	q := &c.trk.q
	q.Lock()
	if len(q.buf) > 0 {
		c.w.Raw(q.buf)
		q.buf = q.buf[:0]
	}
	q.Unlock()
}

// trackingAfter runs after each command c sent: the invalidations queued
// meanwhile follow its reply, and CLIENT CACHING's mark ends with the
// command after it, unless that is inside MULTI or another CLIENT
// command, as Redis's resetClient.
func (c *Client) trackingAfter() {
	c.trackingDrain()
	if c.trk.caching && !c.tx.active {
		if cmd := c.curCmd; cmd == nil || cmd.parent == nil || cmd.parent.Name != "client" {
			c.trk.caching = false
		}
	}
}

// trackingActor is the client that counts as having run c's command:
// for a script's engine client, the script's caller (Redis's
// script_caller).
func (c *Client) trackingActor() *Client {
	if c.scripted && c.sr.caller != nil {
		return c.sr.caller
	}
	return c
}

// trackingRemember records the keys a read-only command read for the
// tracking client that ran it — for a script's command, the keys the
// script declared, for its caller — unless OPTIN without CLIENT CACHING
// yes, or OPTOUT with CLIENT CACHING no (trackingRememberKeys).
func (s *Server) trackingRemember(c *Client, cmd *Command, args [][]byte) {
	tc := c.trackingActor()
	if !tc.trk.on {
		return
	}
	fl := tc.trk.flags.Load()
	if fl&trkBcast != 0 || fl&trkOptin != 0 && !tc.trk.caching || fl&trkOptout != 0 && tc.trk.caching {
		return
	}
	var keys [][]byte
	if tc != c {
		keys = c.sr.run.Keys
	} else {
		if cmd.Flags&PubSub != 0 {
			return
		}
		c.keyPos = cmd.keyPositions(c.keyPos[:0], args)
		for _, i := range c.keyPos {
			keys = append(keys, args[i])
		}
	}
	if len(keys) == 0 {
		return
	}
	t := &s.tracking
	t.mu.Lock()
	for _, k := range keys {
		t.mu.table.Remember(tc.id, string(k))
	}
	t.setLiveLocked()
	t.mu.Unlock()
}

// trackingLimit evicts keys from the tracking table while it holds more
// than tracking-table-max-keys, sending their readers an invalidation as
// if they changed — with Redis's effort: 100 keys, 100 more for each
// call in a row that could not get under the limit
// (trackingLimitUsedSlots).
func (s *Server) trackingLimit() {
	t := &s.tracking
	max := int(s.trackingMaxKeys.Int())
	if max == 0 || !t.live.Load() {
		return
	}
	t.mu.Lock()
	if t.mu.table.Keys() <= max {
		t.mu.strain = 0
		t.mu.Unlock()
		return
	}
	var fired []firedKey
	under := false
	for effort := 100 * (t.mu.strain + 1); effort > 0; effort-- {
		key, ok := t.mu.table.RandomKey()
		if !ok {
			break
		}
		fired = append(fired, firedKey{key: key, ids: t.mu.table.Invalidate(key)})
		if t.mu.table.Keys() <= max {
			under = true
			break
		}
	}
	if under {
		t.mu.strain = 0
	} else {
		t.mu.strain++
	}
	t.setLiveLocked()
	msgs := t.messagesLocked(nil, fired)
	t.mu.Unlock()
	for _, m := range msgs {
		s.sendInvalidation(m.to, m.keys, false)
	}
}

// trackingFlush is FLUSHDB's and FLUSHALL's (and DEBUG RELOAD's): every tracking
// client is told that all its keys are invalid (a null), and the
// tracking table is emptied (trackingInvalidateKeysOnFlush). SWAPDB
// sends nothing, as in Redis 7.0.
func (s *Server) trackingFlush() {
	t := &s.tracking
	if !t.live.Load() && t.clients.Load() == 0 {
		return
	}
	t.mu.Lock()
	clients := make([]*Client, 0, len(t.mu.byID))
	for _, c := range t.mu.byID {
		clients = append(clients, c)
	}
	t.mu.table.Forget()
	t.setLiveLocked()
	t.mu.Unlock()
	slices.SortFunc(clients, func(a, b *Client) int { return cmp.Compare(a.id, b.id) })
	for _, c := range clients {
		s.sendInvalidation(c, nil, true)
	}
}

// trackingCron runs in the cron: the eviction of tracking-table-max-keys,
// and the delivery of invalidations fired at least a tick ago that no
// command claimed (changed outside a command's locks). A key whose tag
// is locked is left to its holder, which may be the command that changed
// it and has not completed (a MULTI running DEBUG SLEEP): delivered from
// here it would count as no client's change, and reach a NOLOOP client.
func (s *Server) trackingCron() {
	t := &s.tracking
	if t.clients.Load() > 0 {
		s.trackingLimit()
	}
	t.mu.Lock()
	var old []string
	for _, f := range t.mu.fired {
		if f.gen < t.mu.gen {
			old = append(old, f.key)
		}
	}
	t.mu.gen++
	t.mu.Unlock()
	if len(old) == 0 {
		return
	}
	if t.cronGuard == nil {
		t.cronGuard = s.locks.NewGuard(rand.Uint64())
	}
	// Not under t.mu: it comes after the tag locks (LOCKING.md).
	g := t.cronGuard
	for _, k := range old {
		if g.TryLockKey([]byte(k)) {
			s.trackingClaim(nil, g)
			g.Unlock()
		}
	}
}

// enableTracking turns tracking on for c with the options given (Redis's
// enableTracking): the mode flags are replaced, BCAST prefixes added.
func (s *Server) enableTracking(c *Client, redir int64, opts uint32, prefixes []string) {
	t := &s.tracking
	t.mu.Lock()
	if t.mu.byID == nil {
		t.mu.byID = make(map[uint64]*Client)
	}
	if !c.trk.on {
		t.clients.Add(1)
	}
	t.mu.byID[c.id] = c
	if opts&trkBcast != 0 {
		if len(prefixes) == 0 {
			prefixes = []string{""}
		}
		for _, p := range prefixes {
			if !slices.Contains(c.trk.prefixes, p) {
				t.mu.table.Follow(c.id, p)
				c.trk.prefixes = append(c.trk.prefixes, p)
			}
		}
		slices.Sort(c.trk.prefixes)
	}
	c.trk.redirect.Store(redir)
	c.trk.flags.Store(trkOn | opts&(trkBcast|trkOptin|trkOptout|trkNoloop))
	t.setLiveLocked()
	t.mu.Unlock()
	c.trk.on, c.trk.used = true, true
}

// disableTracking turns tracking off for c (CLIENT TRACKING OFF, RESET,
// a closed connection). Its keys stay in the table until they change,
// as in Redis: IDs are cleaned up lazily.
func (s *Server) disableTracking(c *Client) {
	if !c.trk.on {
		return
	}
	t := &s.tracking
	t.mu.Lock()
	for _, p := range c.trk.prefixes {
		t.mu.table.Unfollow(c.id, p)
	}
	delete(t.mu.byID, c.id)
	t.clients.Add(-1)
	t.setLiveLocked()
	t.mu.Unlock()
	c.trk.prefixes = nil
	c.trk.flags.Store(0)
	c.trk.on, c.trk.caching = false, false
}

// trackingStats returns INFO's tracking_total_keys, _items and
// _prefixes.
func (s *Server) trackingStats() (keys, items, prefixes int) {
	t := &s.tracking
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.mu.table.Keys(), t.mu.table.Items(), t.mu.table.Prefixes()
}

// CLIENT TRACKING ON|OFF [REDIRECT client-id] [PREFIX prefix [PREFIX prefix ...]] [BCAST] [OPTIN] [OPTOUT] [NOLOOP]
func cmdClientTracking(c *Client, args [][]byte) {
	s := c.srv
	var redir int64
	var opts uint32
	var prefixes []string
	for j := 3; j < len(args); j++ {
		more := j < len(args)-1
		switch a := args[j]; {
		case equalFold(a, "redirect") && more:
			j++
			if redir != 0 {
				c.errorReply(errTrackingRedirectTwice)
				return
			}
			n, ok := c.intArg(args[j])
			if !ok {
				return
			}
			redir = n
			if s.clientByID(redir) == nil {
				c.errorReply(errTrackingRedirectNoClient)
				return
			}
		case equalFold(a, "bcast"):
			opts |= trkBcast
		case equalFold(a, "optin"):
			opts |= trkOptin
		case equalFold(a, "optout"):
			opts |= trkOptout
		case equalFold(a, "noloop"):
			opts |= trkNoloop
		case equalFold(a, "prefix") && more:
			j++
			prefixes = append(prefixes, string(args[j]))
		default:
			c.errorReply(errSyntax)
			return
		}
	}
	switch {
	case equalFold(args[2], "on"):
		fl := c.trk.flags.Load()
		switch {
		case opts&trkBcast == 0 && len(prefixes) > 0:
			c.errorReply(errTrackingPrefixNeedsBcast)
			return
		case fl&trkOn != 0 && fl&trkBcast != opts&trkBcast:
			c.errorReply(errTrackingSwitchBcast)
			return
		case opts&trkBcast != 0 && opts&(trkOptin|trkOptout) != 0:
			c.errorReply(errTrackingOptBcast)
			return
		case opts&trkOptin != 0 && opts&trkOptout != 0:
			c.errorReply(errTrackingOptinOptout)
			return
		case opts&trkOptin != 0 && fl&trkOptout != 0, opts&trkOptout != 0 && fl&trkOptin != 0:
			c.errorReply(errTrackingSwitchOpt)
			return
		}
		if opts&trkBcast != 0 {
			if p, with, existing, found := tracking.Overlap(c.trk.prefixes, prefixes); found {
				if existing {
					c.errorReply(fmt.Sprintf(errTrackingPrefixOverlap, cString([]byte(p)), cString([]byte(with))))
				} else {
					c.errorReply(fmt.Sprintf(errTrackingPrefixOverlapArgs, cString([]byte(p)), cString([]byte(with))))
				}
				return
			}
		}
		s.enableTracking(c, redir, opts, prefixes)
	case equalFold(args[2], "off"):
		s.disableTracking(c)
	default:
		c.errorReply(errSyntax)
		return
	}
	c.w.OK()
}

// CLIENT CACHING YES|NO
func cmdClientCaching(c *Client, args [][]byte) {
	fl := c.trk.flags.Load()
	if fl&trkOn == 0 {
		c.errorReply(errCachingNotTracking)
		return
	}
	switch {
	case equalFold(args[2], "yes"):
		if fl&trkOptin == 0 {
			c.errorReply(errCachingYes)
			return
		}
	case equalFold(args[2], "no"):
		if fl&trkOptout == 0 {
			c.errorReply(errCachingNo)
			return
		}
	default:
		c.errorReply(errSyntax)
		return
	}
	c.trk.caching = true
	c.w.OK()
}

// trackingRedir is the redirection CLIENT GETREDIR, TRACKINGINFO and
// CLIENT LIST show: -1 when tracking is off, 0 for no redirection.
func (c *Client) trackingRedir() int64 {
	if c.trk.flags.Load()&trkOn == 0 {
		return -1
	}
	return c.trk.redirect.Load()
}

// CLIENT GETREDIR
func cmdClientGetRedir(c *Client, args [][]byte) { c.w.Int(c.trackingRedir()) }

// CLIENT TRACKINGINFO
func cmdClientTrackingInfo(c *Client, args [][]byte) {
	fl := c.trk.flags.Load()
	flags := []string{"off"}
	if fl&trkOn != 0 {
		flags[0] = "on"
	}
	if fl&trkBcast != 0 {
		flags = append(flags, "bcast")
	}
	if fl&trkOptin != 0 {
		flags = append(flags, "optin")
		if c.trk.caching {
			flags = append(flags, "caching-yes")
		}
	}
	if fl&trkOptout != 0 {
		flags = append(flags, "optout")
		if c.trk.caching {
			flags = append(flags, "caching-no")
		}
	}
	if fl&trkNoloop != 0 {
		flags = append(flags, "noloop")
	}
	if fl&trkBrokenRedir != 0 {
		flags = append(flags, "broken_redirect")
	}
	c.w.Map(3)
	c.w.BulkString("flags")
	c.w.Set(len(flags))
	for _, f := range flags {
		c.w.BulkString(f)
	}
	c.w.BulkString("redirect")
	c.w.Int(c.trackingRedir())
	c.w.BulkString("prefixes")
	c.w.Array(len(c.trk.prefixes))
	for _, p := range c.trk.prefixes {
		c.w.BulkString(p)
	}
}

// trackingFlags appends CLIENT LIST's tracking flags: t (tracking), R
// (broken redirection), B (BCAST).
func trackingFlags(dst []byte, cl *Client) []byte {
	fl := cl.trk.flags.Load()
	if fl&trkOn != 0 {
		dst = append(dst, 't')
	}
	if fl&trkBrokenRedir != 0 {
		dst = append(dst, 'R')
	}
	if fl&trkBcast != 0 {
		dst = append(dst, 'B')
	}
	return dst
}
