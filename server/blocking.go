package server

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/keyspace"
	"github.com/hotkv/hotkv/lock"
	"github.com/hotkv/hotkv/resp"
)

// Blocking commands (BLPOP, BLMOVE, BZPOPMIN, ...) that find no data park
// their client here, holding no lock, until a write makes one of their
// keys ready, the timeout passes, CLIENT UNBLOCK arrives or the client
// goes away.
//
// The way of a blocked client:
//
//  1. The handler runs under its keys' locks, finds nothing, and calls
//     c.block. The waiter is registered under those locks, so a push to
//     one of its keys either came before (and the handler saw the data)
//     or comes after and finds the waiter.
//  2. The client's connection stops running commands: input that arrives
//     is read into its buffer (so a disconnect is noticed) but waits.
//  3. A write that creates a list or sorted-set key (keyspace's OnCreate
//     hook) marks the key ready. After that write's command, the gate
//     serves the waiters of ready keys in the order they blocked (first
//     blocked, first served, per key): it locks each waiter's keys, runs
//     the waiter's serve function, and hands the reply to the waiter's
//     connection, which then goes on with its buffered commands.
//
// Lock order: blockState.mu is a leaf. It is taken under tag locks and
// under a keyspace shard lock (the OnCreate hook), never the reverse.
type blockState struct {
	count atomic.Int64 // registered waiters; the write path checks only this
	ready atomic.Bool  // readyKeys is not empty
	// groupKeys holds the keys XREADGROUPs wait on (with how many wait on
	// each): a change of one of them marks it ready (a stream deleted or
	// overwritten unblocks them with an error, as in Redis). It is
	// replaced, never changed, under mu; the write path reads it without
	// a lock.
	groupKeys atomic.Pointer[map[blockKey]int]

	mu        sync.Mutex
	waiters   map[blockKey][]*waiter
	readyKeys []blockKey
}

type blockKey struct {
	db  int
	key string
}

// Waiter states.
const (
	waiterBlocked = iota
	waiterServing // a server is trying it, under its keys' locks
	waiterDone
)

// waiter is one blocked command.
type waiter struct {
	c    *Client
	db   int
	keys []string // the keys it waits on
	// lockKeys are locked (exclusively) to serve it: keys, plus a
	// destination for BLMOVE-like commands.
	lockKeys [][]byte
	// serve tries to complete the command, with sc standing in for the
	// blocked client (its database, a fresh reply writer): it writes the
	// reply to sc.w, or returns false when there is still no data.
	serve func(sc *Client) bool
	// onTimeout writes the reply for a timeout (a null of the right kind).
	onTimeout func(w *resp.Writer)
	proto     int
	timer     atomic.Pointer[time.Timer]
	// eachTried: a waiter that finds nothing does not stop the serving
	// of the key's next waiters (stream readers).
	eachTried bool
	// groupReader: an XREADGROUP (blockState.groupKeys).
	groupReader bool
	// closeAfter: its connection closes once the reply that ended the
	// wait is sent (disconnectBlocked).
	closeAfter atomic.Bool

	state atomic.Int32
	// cmd and args are the blocked command, took how long its first run
	// took: its statistics and slow-log entry wait for its answer.
	cmd  *Command
	args [][]byte
	took time.Duration
	// guard locks the waiter's keys when it is served after the locks of
	// the command that made its key ready (lockGuard); only its server
	// (the waiter in state waiterServing) uses it.
	guard *lock.Guard
	// cancel, when set while the waiter is being served, ends it after the
	// attempt (timeout or CLIENT UNBLOCK raced with a server).
	cancel atomic.Pointer[func(w *resp.Writer)]
}

// block parks c on keys (in c's database) until serve succeeds, the
// timeout (0: none) passes, or the client is unblocked. The caller is a
// handler holding the locks of keys (and of any destination in
// lockKeys); it writes no reply.
func (c *Client) block(keys [][]byte, lockKeys [][]byte, timeout time.Duration,
	serve func(sc *Client) bool, onTimeout func(w *resp.Writer)) {
	c.propagateNothing() // until served (serveKey)
	if c.tx.inExec || c.scripted {
		// Inside a transaction or a script nothing waits: no data is a
		// timeout.
		onTimeout(&c.w)
		return
	}
	s := c.srv
	w := &waiter{c: c, db: int(c.dbIndex.Load()), serve: serve, onTimeout: onTimeout, proto: c.w.Proto}
	for _, k := range keys {
		w.keys = append(w.keys, string(k))
	}
	for _, k := range lockKeys {
		w.lockKeys = append(w.lockKeys, append([]byte(nil), k...))
	}
	b := &s.blocking
	b.mu.Lock()
	if b.waiters == nil {
		b.waiters = make(map[blockKey][]*waiter)
	}
	for _, k := range w.keys {
		bk := blockKey{w.db, k}
		b.waiters[bk] = append(b.waiters[bk], w)
	}
	b.count.Add(1)
	b.mu.Unlock()
	c.blocked = w
	c.setBlockedFlag(true)
	if timeout > 0 {
		w.timer.Store(time.AfterFunc(timeout, func() { s.unblock(w, w.onTimeout) }))
	}
}

// signalCreated is keyspace's OnCreate hook: a list or sorted-set key was
// created in database db. It runs under the key's shard lock.
func (s *Server) signalCreated(db int, key string, kind keyspace.Kind) {
	b := &s.blocking
	if b.count.Load() == 0 || kind != keyspace.KindList && kind != keyspace.KindZSet && kind != keyspace.KindStream {
		return
	}
	s.markReady(db, key)
}

// signalKeyReady marks key of database db ready when clients wait on it:
// XADD calls it on every add (a stream wakes its readers whenever it
// grows, not only when it is created). The caller holds the key's lock.
func (s *Server) signalKeyReady(db int, key string) {
	if s.blocking.count.Load() != 0 {
		s.markReady(db, key)
	}
}

// readyWaited marks ready every key of the databases dbs that a client
// waits on, after SWAPDB or FLUSHDB/FLUSHALL replaced them wholesale:
// serving finds which have data now (SWAPDB brought in a list), and which
// streams are gone (their group readers are unblocked with an error), as
// Redis's scanDatabaseForReadyKeys and scanDatabaseForDeletedStreams. The
// caller holds the global lock exclusively.
func (s *Server) readyWaited(dbs ...int) {
	bs := &s.blocking
	if bs.count.Load() == 0 {
		return
	}
	bs.mu.Lock()
	for bk := range bs.waiters {
		if slices.Contains(dbs, bk.db) {
			bs.readyKeys = append(bs.readyKeys, bk)
			bs.ready.Store(true)
		}
	}
	bs.mu.Unlock()
}

// keyChanged is the databases' OnModify hook's part for blocked clients:
// while XREADGROUPs wait, a change of key (a stream deleted, overwritten,
// turned into another type) marks it ready. The caller holds the key's
// lock or its shard mutex.
func (s *Server) keyChanged(db int, key string) {
	if m := s.blocking.groupKeys.Load(); m != nil && (*m)[blockKey{db, key}] > 0 {
		s.markReady(db, key)
	}
}

// addGroupReader registers w, a blocked XREADGROUP, in groupKeys.
func (b *blockState) addGroupReader(w *waiter) {
	b.mu.Lock()
	if w.state.Load() != waiterDone { // else finish already removed it
		w.groupReader = true
		b.countGroupKeys(w, 1)
	}
	b.mu.Unlock()
}

// countGroupKeys adds delta to the count of w's keys in groupKeys, as a
// new map. The caller holds mu.
func (b *blockState) countGroupKeys(w *waiter, delta int) {
	m := make(map[blockKey]int)
	if old := b.groupKeys.Load(); old != nil {
		for k, n := range *old {
			m[k] = n
		}
	}
	for _, k := range w.keys {
		bk := blockKey{w.db, k}
		if m[bk] += delta; m[bk] <= 0 {
			delete(m, bk)
		}
	}
	if len(m) == 0 {
		b.groupKeys.Store(nil)
	} else {
		b.groupKeys.Store(&m)
	}
}

func (s *Server) markReady(db int, key string) {
	b := &s.blocking
	bk := blockKey{db, key}
	b.mu.Lock()
	if len(b.waiters[bk]) > 0 {
		b.readyKeys = append(b.readyKeys, bk)
		b.ready.Store(true)
	}
	b.mu.Unlock()
}

// serveReady serves the waiters of the keys made ready by the command c
// just ran. With held, c still holds its command's locks: waiters whose
// keys those locks cover are served at once, before any other command can
// take the new data, as in Redis; a key whose next waiter needs other
// locks is left for the pass after c's locks are released (held false),
// which locks each waiter's keys with c's guard.
func (s *Server) serveReady(c *Client, held bool) {
	b := &s.blocking
	for b.ready.Load() {
		b.mu.Lock()
		ready := b.readyKeys
		b.readyKeys = nil
		b.ready.Store(false)
		b.mu.Unlock()
		var later []blockKey
		for _, bk := range ready {
			if !s.serveKey(c, bk, held) {
				later = append(later, bk)
			}
		}
		if len(later) > 0 {
			b.mu.Lock()
			b.readyKeys = append(b.readyKeys, later...)
			b.ready.Store(true)
			b.mu.Unlock()
			return
		}
	}
}

// serveKey serves bk's waiters in order until one finds no data. With
// held it stops, returning false, at a waiter whose keys c's held locks
// do not cover. Without, it locks each waiter's keys with the waiter's own
// guard; when they are taken, the waiter is served later, on its own
// loop, once the locks are granted (serveParked), and the key's next
// waiters after it: no loop waits for a lock.
func (s *Server) serveKey(c *Client, bk blockKey, held bool) bool {
	b := &s.blocking
	var tried map[*waiter]bool // stream readers that found nothing
	for {
		b.mu.Lock()
		var w *waiter
		for _, x := range b.waiters[bk] {
			if x.state.Load() == waiterBlocked && !tried[x] {
				w = x
				break
			}
		}
		b.mu.Unlock()
		if w == nil {
			return true
		}
		if held && !c.guard.CoversAll(w.lockKeys) {
			return false
		}
		if !w.state.CompareAndSwap(waiterBlocked, waiterServing) {
			continue
		}
		var g *lock.Guard
		if !held {
			g = w.lockGuard()
			if !g.TryLockKeys(w.lockKeys, true) {
				if !g.LockKeysAsync(w.lockKeys, true, func() {
					w.c.invoke(func() { s.serveParked(w, bk) })
				}) {
					return true
				}
			}
		}
		switch s.serveWaiter(w, g, bk.key) {
		case serveEmpty:
			return true
		case serveEmptyNext:
			if tried == nil {
				tried = map[*waiter]bool{}
			}
			tried[w] = true
		}
	}
}

// serveParked serves w, whose keys' locks its guard now holds, and then
// the rest of bk's waiters.
func (s *Server) serveParked(w *waiter, bk blockKey) {
	s.serveWaiter(w, w.guard, bk.key)
	s.serveKey(nil, bk, false)
}

// Outcomes of serveWaiter.
const (
	serveDone      = iota // served
	serveEmpty            // no data for it: the key's next waiters need none either
	serveEmptyNext        // no data for this stream reader; the next may find some
)

// serveWaiter tries w (in state waiterServing), for its key ready, with g
// holding its keys' locks (nil: held by the caller), releases g, and
// finishes w when it was served.
func (s *Server) serveWaiter(w *waiter, g *lock.Guard, ready string) int {
	sc := s.standIn(w)
	sc.readyKey = ready
	served := w.serve(sc)
	s.emit(sc)
	if g != nil {
		g.Unlock()
	}
	if !served {
		w.state.Store(waiterBlocked)
		if cancel := w.cancel.Load(); cancel != nil {
			s.unblock(w, *cancel)
		}
		if w.eachTried {
			// One stream reader finding nothing (its group took
			// everything) says nothing of the next.
			return serveEmptyNext
		}
		return serveEmpty
	}
	w.state.Store(waiterDone)
	s.finish(w, sc.w.Buf)
	return serveDone
}

// lockGuard returns the guard that locks w's keys to serve it: its own,
// since whoever serves it may hold other locks.
func (w *waiter) lockGuard() *lock.Guard {
	if w.guard == nil {
		w.guard = w.c.srv.locks.NewGuard(w.c.id)
	}
	return w.guard
}

// standIn returns a client that stands in for w's blocked client while a
// server runs w.serve on another connection's goroutine: same database and
// protocol, its own reply buffer, none of the blocked connection's state.
func (s *Server) standIn(w *waiter) *Client {
	sc := s.newInternalClient(standInClient, w.c.id, w.db)
	sc.w.Proto = w.proto
	return sc
}

// unblock ends a waiter that was not served (timeout, CLIENT UNBLOCK, a
// disconnect when reply is nil) and reports whether it did. A waiter being
// served right now is ended by its server after the attempt.
func (s *Server) unblock(w *waiter, reply func(w *resp.Writer)) bool {
	for {
		switch w.state.Load() {
		case waiterDone:
			return false
		case waiterServing:
			w.cancel.Store(&reply)
			if w.state.Load() != waiterBlocked {
				return true // its server sees cancel after the attempt
			}
		}
		if w.state.CompareAndSwap(waiterBlocked, waiterDone) {
			break
		}
	}
	var buf []byte
	if reply != nil {
		wr := resp.Writer{Proto: w.proto}
		reply(&wr)
		buf = wr.Buf
	}
	s.finish(w, buf)
	return true
}

// finish removes a done waiter from the registry and hands its reply to
// its client's connection, which then resumes.
func (s *Server) finish(w *waiter, reply []byte) {
	if t := w.timer.Load(); t != nil {
		t.Stop()
	}
	b := &s.blocking
	b.mu.Lock()
	for _, k := range w.keys {
		bk := blockKey{w.db, k}
		list := b.waiters[bk]
		for i, x := range list {
			if x == w {
				list = append(list[:i:i], list[i+1:]...)
				break
			}
		}
		if len(list) == 0 {
			delete(b.waiters, bk)
		} else {
			b.waiters[bk] = list
		}
	}
	b.count.Add(-1)
	if w.groupReader {
		b.countGroupKeys(w, -1)
	}
	b.mu.Unlock()
	if reply == nil {
		return // the client is gone
	}
	c := w.c
	c.invoke(func() {
		if c.blocked != w {
			return
		}
		c.blocked = nil
		c.setBlockedFlag(false)
		c.w.Raw(reply)
		c.closeAfter = c.closeAfter || w.closeAfter.Load()
		if w.cmd != nil {
			failed := reply[0] == '-'
			c.stats.count(w.cmd, w.took, failed, b2i(!failed && w.cmd.Flags&Write != 0), s.latencyTracking.Bool())
			s.slowlog.maybeAdd(s, c, w.cmd, w.args, w.took)
		}
		c.resume()
	})
}

// blockedCount returns the number of blocked clients (INFO).
func (s *Server) blockedCount() int64 { return s.blocking.count.Load() }

// setBlockedFlag publishes c's blocked command to other connections
// (CLIENT LIST, CLIENT UNBLOCK).
func (c *Client) setBlockedFlag(on bool) {
	c.isBlocked.Store(on)
	c.mu.Lock()
	if on {
		c.mu.waiter = c.blocked
	} else {
		c.mu.waiter = nil
	}
	c.mu.Unlock()
}

// disconnectBlocked ends every blocked command with Redis's UNBLOCKED
// error and closes its connection after the reply, as Redis's
// disconnectAllBlockedClients when the server becomes a replica: the
// keys they wait on now change only by the master's stream. Clients
// postponed by a pause are not blocked in this sense.
func (s *Server) disconnectBlocked() {
	if s.blocking.count.Load() == 0 {
		return
	}
	s.mu.Lock()
	clients := make([]*Client, 0, len(s.mu.clients))
	for _, c := range s.mu.clients {
		clients = append(clients, c)
	}
	s.mu.Unlock()
	for _, c := range clients {
		c.mu.Lock()
		w := c.mu.waiter
		c.mu.Unlock()
		if w == nil {
			continue
		}
		w.closeAfter.Store(true)
		if s.unblock(w, func(wr *resp.Writer) { wr.Error(errUnblockedRoleChange) }) {
			s.countError(errUnblockedRoleChange)
		}
	}
}

// unblockOnClose ends c's wait when its connection goes away.
func (c *Client) unblockOnClose() {
	if w := c.blocked; w != nil {
		c.srv.unblock(w, nil)
		c.blocked = nil
		c.setBlockedFlag(false)
	}
}
