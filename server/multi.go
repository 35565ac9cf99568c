package server

import (
	"sync"
	"sync/atomic"
)

// Transactions (../shared/spec/transactions.md): MULTI queues commands,
// EXEC runs them as one step under the exclusive locks of the union of
// their keys' hash tags (the global lock when any of them needs it), and
// WATCH makes EXEC conditional on its keys not being modified.

func transactionCommands() []*Command {
	return []*Command{
		{Name: "multi", Arity: 1, Flags: NoScript | Loading | Stale | Fast | AllowBusy | TxControl, Handler: cmdMulti},
		{Name: "exec", Arity: 1, Flags: NoScript | Loading | Stale | SkipSlowlog | TxControl | EndsTx | RunsQueue, Handler: cmdExec},
		{Name: "discard", Arity: 1, Flags: NoScript | Loading | Stale | Fast | AllowBusy | TxControl | EndsTx, Handler: cmdDiscard},
		{Name: "watch", Arity: -2, Flags: NoScript | Loading | Stale | Fast | AllowBusy | LockFree | TxControl, First: 1, Last: -1, Step: 1, Handler: cmdWatch},
		{Name: "unwatch", Arity: 1, Flags: NoScript | Loading | Stale | Fast | AllowBusy, Handler: cmdUnwatch},
	}
}

// txState is a client's transaction: owned by its connection.
type txState struct {
	active bool     // between MULTI and EXEC/DISCARD
	failed bool     // a command was refused while queuing: EXEC aborts
	inExec bool     // running the queue: blocking commands must not wait
	queue  []queued // the commands, with their arguments copied
	// argv and arena hold the queued arguments; kept between transactions
	// so that queuing does not allocate.
	argv  [][]byte
	arena []byte
}

type queued struct {
	cmd  *Command
	args [][]byte
}

// queue adds cmd to c's transaction, or refuses it (making EXEC abort).
func (c *Client) queue(cmd *Command, args [][]byte) {
	if cmd.Flags&NoMulti != 0 {
		c.errorReply(errNotInMulti)
		c.tx.failed = true
		return
	}
	from := len(c.tx.argv)
	for _, a := range args {
		off := len(c.tx.arena)
		c.tx.arena = append(c.tx.arena, a...)
		end := len(c.tx.arena)
		c.tx.argv = append(c.tx.argv, c.tx.arena[off:end:end])
	}
	end := len(c.tx.argv)
	c.tx.queue = append(c.tx.queue, queued{cmd, c.tx.argv[from:end:end]})
	c.w.Simple("QUEUED")
}

// discardTx ends c's transaction and clears its watches.
func (c *Client) discardTx() {
	tx := txState{queue: c.tx.queue[:0], argv: c.tx.argv[:0], arena: c.tx.arena[:0]}
	clear(tx.queue[:cap(tx.queue)])
	clear(tx.argv[:cap(tx.argv)])
	if cap(tx.arena) > 64*1024 {
		tx.arena = nil
	}
	c.tx = tx
	if len(c.watched) > 0 || c.watchDirty.Load() {
		c.unwatchAll()
	}
}

// MULTI
func cmdMulti(c *Client, args [][]byte) {
	if c.tx.active {
		// Redis 7.0 still runs the EXEC; the spec makes it abort.
		c.errorReply(errNestedMulti)
		c.tx.failed = true
		return
	}
	c.tx.active = true
	c.w.OK()
}

// DISCARD
func cmdDiscard(c *Client, args [][]byte) {
	if !c.tx.active {
		c.errorReply(errDiscardWithoutMulti)
		return
	}
	c.discardTx()
	c.w.OK()
}

// EXEC
func cmdExec(c *Client, args [][]byte) {
	if !c.tx.active {
		c.errorReply(errExecWithoutMulti)
		return
	}
	tx := c.tx
	if tx.failed {
		c.discardTx()
		c.errorReply(errExecAbort)
		return
	}
	if reason := c.srv.execRefusal(c, tx.queue); reason != "" {
		c.discardTx()
		c.errorReply(errExecAbortBecause + reason)
		return
	}
	// Lock the union of the queued commands' keys once, exclusively; the
	// executor takes no lock for EXEC itself (RunsQueue).
	global := false
	c.keys = c.keys[:0]
	var load [][]byte // the keys whose values the queue reads
	for _, q := range tx.queue {
		if q.cmd.Flags&(Global|Scripting) != 0 || q.cmd.GlobalFor != nil && q.cmd.GlobalFor(q.args) {
			global = true
			break
		}
		c.keyPos = q.cmd.keyPositions(c.keyPos[:0], q.args)
		keysOnly := q.cmd.KeysOnly != nil && q.cmd.KeysOnly(q.args)
		for _, i := range c.keyPos {
			c.keys = append(c.keys, q.args[i])
			if !keysOnly && c.srv.tiering() {
				load = append(load, q.args[i])
			}
		}
	}
	// The executor releases them once EXEC ran (execute's complete),
	// after emitting the queue's records as one MULTI ... EXEC unit.
	// The queue's cold values are read before (lockLoaded).
	if !c.callerLocks && (global || len(c.keys) > 0) {
		if !c.srv.lockLoaded(c, c.guard, global, c.keys, load, true) {
			return // refused (EXECABORT: BUSY), or parked to run again
		}
	}
	defer c.discardTx()
	if c.watchedChanged() {
		c.w.NullArray()
		return
	}
	c.tx.inExec = true
	c.w.Array(len(tx.queue))
	s := c.srv
	for _, q := range tx.queue {
		s.execute(c, q.cmd, q.args, monoNow(), true)
		s.searchSync(c.guard) // the next command sees the indexes this one changed
	}
}

// execRefusal is the one hook that decides whether the server accepts a
// transaction's writes now; it returns the reason when it does not: OOM,
// MISCONF, or a read-only replica (the server became one after MULTI, as
// the specification says). A queued script's flags stand for its
// command's (commandFlags), as in Redis's mstate.cmd_flags.
func (s *Server) execRefusal(c *Client, queue []queued) string {
	if c.obey {
		return ""
	}
	for _, q := range queue {
		if s.commandFlags(q.cmd, q.args)&DenyOOM != 0 {
			if c.preOOM {
				return errOOM
			}
			break
		}
	}
	for _, q := range queue {
		if s.commandFlags(q.cmd, q.args)&Write != 0 {
			if msg := s.writesDenied(); msg != "" {
				return msg
			}
			if !s.enoughReplicas() {
				return errNoReplicas
			}
			if s.readOnlyReplica() {
				return errReadOnlyReplica
			}
			break
		}
	}
	if s.servingStale() {
		for _, q := range queue {
			if s.commandFlags(q.cmd, q.args)&Stale == 0 {
				return errMasterDown
			}
		}
	}
	if s.load.phase.Load() != loadNone { // queued before the load began
		for _, q := range queue {
			if msg := s.loadingRefusal(q.cmd); msg != "" {
				return msg
			}
		}
	}
	return ""
}

// watchState tracks which clients watch which keys.
type watchState struct {
	count atomic.Int64 // watched keys; the write path checks only this

	mu   sync.Mutex
	keys map[blockKey][]*watchedKey
}

// watchedKey is one key one client watches (Redis's watchedKey).
type watchedKey struct {
	blockKey
	c *Client
	// expired is set when the key was stored but already expired when
	// WATCH ran, or when SWAPDB brought an expired key where none was:
	// until the key is touched, its expiry is no change (Redis 7.0's
	// wk->expired). Guarded by watchState.mu once the key is registered.
	expired bool
}

// WATCH key [key ...]
func cmdWatch(c *Client, args [][]byte) {
	if c.tx.active {
		// Redis 7.0 still runs the EXEC; the spec makes it abort.
		c.errorReply(errWatchInMulti)
		c.tx.failed = true
		return
	}
	s := c.srv
	db := int(c.dbIndex.Load())
	for _, k := range args[1:] {
		bk := blockKey{db, string(k)}
		if c.watches(bk) {
			continue
		}
		stored, expired := s.dbs[db].Stored(k) // not under w.mu: the hooks take it under the shard lock
		wk := &watchedKey{blockKey: bk, c: c, expired: stored && expired}
		w := &s.watch
		w.mu.Lock()
		if w.keys == nil {
			w.keys = make(map[blockKey][]*watchedKey)
		}
		c.watched = append(c.watched, wk)
		w.keys[bk] = append(w.keys[bk], wk)
		w.count.Add(1)
		w.mu.Unlock()
	}
	c.w.OK()
}

// UNWATCH
func cmdUnwatch(c *Client, args [][]byte) {
	c.unwatchAll()
	c.w.OK()
}

func (c *Client) watches(bk blockKey) bool {
	for _, x := range c.watched {
		if x.blockKey == bk {
			return true
		}
	}
	return false
}

// unwatchAll forgets c's watched keys and clears its dirty mark.
func (c *Client) unwatchAll() {
	if len(c.watched) > 0 {
		w := &c.srv.watch
		w.mu.Lock()
		for _, wk := range c.watched {
			list := w.keys[wk.blockKey]
			for i, x := range list {
				if x == wk {
					list = append(list[:i:i], list[i+1:]...)
					break
				}
			}
			if len(list) == 0 {
				delete(w.keys, wk.blockKey)
			} else {
				w.keys[wk.blockKey] = list
			}
			w.count.Add(-1)
		}
		w.mu.Unlock()
		clear(c.watched)
		c.watched = c.watched[:0]
	}
	c.watchDirty.Store(false)
}

// watchedChanged reports whether a watched key was modified since WATCH,
// or has expired since (Redis's isWatchedKeyExpired: a key that was
// already expired when watched does not count, and nothing is removed).
func (c *Client) watchedChanged() bool {
	if c.watchDirty.Load() {
		return true
	}
	w := &c.srv.watch
	for _, wk := range c.watched {
		w.mu.Lock()
		stale := wk.expired
		w.mu.Unlock()
		if stale {
			continue
		}
		if _, expired := c.srv.dbs[wk.db].Stored([]byte(wk.key)); expired {
			return true
		}
	}
	return c.watchDirty.Load()
}

// touchWatched is keyspace's OnModify and OnExpire hook: key changed in
// database db (it runs under the key's shard lock), and its watchers'
// transactions fail — except a watcher that saw the key already expired:
// the first touch of such a key is its removal, no logical change, and
// from then on the key is watched as any other (Redis's touchWatchedKey).
func (s *Server) touchWatched(db int, key string) {
	w := &s.watch
	if w.count.Load() == 0 {
		return
	}
	w.mu.Lock()
	for _, wk := range w.keys[blockKey{db, key}] {
		if wk.expired {
			wk.expired = false
			continue
		}
		wk.c.watchDirty.Store(true)
	}
	w.mu.Unlock()
}

// touchWatchedInDB is Redis's touchAllWatchedKeysInDb: database emptied
// is about to be flushed (replacedWith < 0: FLUSHDB, FLUSHALL, DEBUG
// RELOAD) or to take database replacedWith's keys (SWAPDB). A watched key
// stored on either side changes, except that an expired key removed or
// replaced by another expired key is no change, and an expired key
// replacing a missing one is watched as already expired. The caller holds
// the global lock.
func (s *Server) touchWatchedInDB(emptied, replacedWith int) {
	w := &s.watch
	if w.count.Load() == 0 {
		return
	}
	w.mu.Lock()
	var keys []string
	for bk := range w.keys {
		if bk.db == emptied {
			keys = append(keys, bk.key)
		}
	}
	w.mu.Unlock()
	// Stored takes shard locks: not under w.mu.
	for _, k := range keys {
		inEmptied, _ := s.dbs[emptied].Stored([]byte(k))
		inReplacing, replacingExpired := false, false
		if replacedWith >= 0 {
			inReplacing, replacingExpired = s.dbs[replacedWith].Stored([]byte(k))
		}
		if !inEmptied && !inReplacing {
			continue
		}
		w.mu.Lock()
		for _, wk := range w.keys[blockKey{emptied, k}] {
			switch {
			case wk.expired && !inReplacing:
				wk.expired = false // the expired key is removed: no change
				continue
			case wk.expired && replacingExpired:
				continue // an expired key stays expired
			case !wk.expired && !inEmptied && replacingExpired:
				wk.expired = true // a missing key replaced by an expired one
				continue
			}
			wk.c.watchDirty.Store(true)
		}
		w.mu.Unlock()
	}
}
