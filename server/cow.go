package server

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/keyspace"
	"github.com/hotkv/hotkv/lock"
)

// Background snapshots (BGSAVE, save points, AOF rewrites) are
// copy-on-write, Go's stand-in for Redis's fork: starting one takes the
// global lock only for a moment; then every entry is copied the first
// time a command reaches it (keyspace/snapshot.go), before the command can
// change it, and a walk copies the entries nobody touched, one key lock at
// a time. The copy is the dataset as it was when the snapshot started.
//
// A command that takes the global lock to change the whole keyspace
// (FLUSHALL, SWAPDB, a script without allow-key-locking...) completes a
// running snapshot first, copying what is left under its lock.

// walkPause slows the walk down, key by key (tests: it widens the window
// in which commands race with it).
var walkPause atomic.Int64

// cowSnap is a snapshot being taken.
type cowSnap struct {
	s     *Server
	mu    sync.Mutex
	snap  *snapshot // filled by capture, guarded by mu
	arena byteArena // the captured keys and strings, guarded by mu
	done  atomic.Bool
	ready chan struct{} // closed when done
}

// startSnapshot starts a snapshot of the dataset; the caller holds the
// global lock exclusively.
func (s *Server) startSnapshot() *cowSnap {
	s.completeSnapshot()
	cs := &cowSnap{s: s, ready: make(chan struct{}),
		snap: &snapshot{dbs: make([][]snapKey, len(s.dbs)), dirty: s.dirty(), repl: s.replSaveInfo(), view: s.newSnapView(),
			search: s.searchDefinitions()}}
	for i, db := range s.dbs {
		// Room for every key there is: keys created meanwhile are not
		// captured, so the slices never grow (and never move).
		cs.snap.dbs[i] = make([]snapKey, 0, db.Len())
	}
	for _, l := range s.scripting.engine.Libraries() {
		cs.snap.functions = append(cs.snap.functions, l.Code)
	}
	s.cow.Store(cs)
	s.snaps.Start()
	s.stats.forks.Add(1) // Redis forks a child for each
	go cs.walk()
	return cs
}

// backgroundSnapshot starts a snapshot under the global lock, taken with
// g unless g holds it.
func (s *Server) backgroundSnapshot(g *lock.Guard) *cowSnap {
	if !g.GlobalExclusive() {
		g.LockGlobal()
		defer g.Unlock()
	}
	return s.startSnapshot()
}

// capture copies e, an entry of database db, into the snapshot: the
// keyspace's OnCapture hook, under e's key lock.
func (cs *cowSnap) capture(db int, e *keyspace.Entry) {
	exp := e.Expire() // an expired key is saved too, as Redis 7.0 does
	if exp == 0 {
		exp = -1
	}
	k := snapKey{expire: exp, idle: e.IdleSeconds(), freq: cs.s.dbs[db].Freq(e)}
	if id, _, cold := e.ColdRecord(); cold {
		// Cold since before the snapshot started (the demoter captures
		// a value before it moves it): the view holds its record.
		k.cold = id
	} else if e.Kind == keyspace.KindSuggest {
		k.sug = sugOf(e).Clone()
	} else if e.Kind != keyspace.KindString {
		if k.v = entryValue(e); k.v == nil {
			return
		}
	}
	cs.mu.Lock()
	k.key = cs.arena.copyString(e.Key())
	if k.v == nil && k.cold == 0 && k.sug == nil {
		k.str = cs.arena.copy(e.Str()) // strings change in place
	}
	cs.snap.dbs[db] = append(cs.snap.dbs[db], k)
	cs.mu.Unlock()
}

// walk captures the entries no command has touched, taking each key's
// lock shared (on its own goroutine, which holds nothing else while it
// waits), then completes the snapshot.
func (cs *cowSnap) walk() {
	s := cs.s
	g := s.locks.NewGuard(rand.Uint64())
	var keys []string
	var ents []*keyspace.Entry
	key := make([][]byte, 1)
	for _, db := range s.dbs {
		for si := 0; si < keyspace.NumShards; si++ {
			keys, ents = db.Uncaptured(si, keys[:0], ents[:0])
			for i, e := range ents {
				key[0] = append(key[0][:0], keys[i]...)
				// A busy key is waited for in its lock's FIFO queue:
				// with queues, polling could starve behind a hot key's
				// stream of commands.
				g.LockKeys(key, false)
				if cs.done.Load() {
					g.Unlock() // a command under the global lock completed it
					return
				}
				db.CaptureEntry(e)
				g.Unlock()
				if d := walkPause.Load(); d > 0 {
					time.Sleep(time.Duration(d))
				}
			}
			if cs.done.Load() {
				return
			}
		}
	}
	// Commands that captured an entry may still be copying it: they end
	// before the global lock is granted.
	g.LockGlobal()
	cs.finish()
	g.Unlock()
}

// completeSnapshot captures what a running snapshot has not yet, and
// completes it. The caller holds the global lock exclusively.
func (s *Server) completeSnapshot() {
	cs := s.cow.Load()
	if cs == nil || cs.done.Load() {
		return
	}
	var keys []string
	var ents []*keyspace.Entry
	for _, db := range s.dbs {
		for si := 0; si < keyspace.NumShards; si++ {
			keys, ents = db.Uncaptured(si, keys[:0], ents[:0])
			for _, e := range ents {
				db.CaptureEntry(e)
			}
		}
	}
	cs.finish()
}

// finish marks the snapshot complete and stops capturing; the caller
// holds the global lock exclusively.
func (cs *cowSnap) finish() {
	if cs.done.CompareAndSwap(false, true) {
		cs.s.snaps.Stop()
		close(cs.ready)
	}
}

// wait returns the snapshot once complete.
func (cs *cowSnap) wait() *snapshot {
	<-cs.ready
	return cs.snap
}
