package server

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/keyspace"
	"github.com/hotkv/hotkv/lock"
)

// Background snapshots (BGSAVE, save points, AOF rewrites, full
// synchronizations) are copy-on-write, Go's stand-in for Redis's fork:
// starting one takes the global lock only for a moment. From then on an
// entry is copied only if a command reaches it (keyspace/snapshot.go)
// before the snapshot's encoder does: the encoder's walk (eachSnapKey) reads
// every other entry where it is, under its key lock, as Redis's child
// reads its copy of the parent's pages. What the copies hold is INFO's
// current_cow_size (Redis's: the pages the parent changed meanwhile).
//
// Whoever starts a snapshot encodes it once (encodeSnapshot,
// writeCommandBase) or releases it: a snapshot nobody encodes, or whose
// encoding stopped early, is walked to its end in the background without
// reading anything, so that capturing stops.
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
	snap  *snapshot // its dbs filled by capture, guarded by mu
	arena byteArena // the captured keys and strings, guarded by mu
	// copied is the size of what capture copied (keys and values).
	copied atomic.Int64
	// walking is set by the first walk: the encoder's, or the release's.
	walking atomic.Bool
	done    atomic.Bool   // every entry is captured or claimed
	ready   chan struct{} // closed when done
	// released: the starter is done with it (its copies are garbage).
	released atomic.Bool
}

// startSnapshot starts a snapshot of the dataset; the caller holds the
// global lock exclusively.
func (s *Server) startSnapshot() *cowSnap {
	s.completeSnapshot()
	cs := &cowSnap{s: s, ready: make(chan struct{}),
		snap: &snapshot{dbs: make([][]snapKey, len(s.dbs)), dirty: s.dirty(), repl: s.replSaveInfo(), view: s.newSnapView(),
			search: s.searchDefinitions(), sizes: make([][2]uint64, len(s.dbs))}}
	cs.snap.cow = cs
	for i, db := range s.dbs {
		cs.snap.sizes[i] = [2]uint64{uint64(db.Len()), uint64(db.Volatile())}
	}
	for _, l := range s.scripting.engine.Libraries() {
		cs.snap.functions = append(cs.snap.functions, l.Code)
	}
	s.cow.Store(cs)
	s.snaps.Start()
	s.stats.forks.Add(1) // Redis forks a child for each
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
	k, ok := cs.s.snapKeyOf(db, e)
	if !ok {
		return
	}
	size := len(k.key)
	if k.v != nil || k.sug != nil {
		size += int(e.ValueMem())
	}
	if k.sug != nil {
		k.sug = k.sug.Clone()
	}
	cs.mu.Lock()
	k.key = cs.arena.copy(k.key)
	if k.v == nil && k.sug == nil && k.cold == 0 {
		k.str = cs.arena.copy(k.str) // strings change in place
		size += len(k.str)
	}
	cs.snap.dbs[db] = append(cs.snap.dbs[db], k)
	cs.mu.Unlock()
	cs.copied.Add(int64(size))
}

// snapKeyOf is e, an entry of database db, as a snapshot saves it,
// reading e where it is: the caller holds e's key lock while it uses
// the result, or copies it. ok is false for an entry with nothing to
// save.
func (s *Server) snapKeyOf(db int, e *keyspace.Entry) (k snapKey, ok bool) {
	exp := e.Expire() // an expired key is saved too, as Redis 7.0 does
	if exp == 0 {
		exp = -1
	}
	k = snapKey{key: bytesOfString(e.Key()), expire: exp, idle: e.IdleSeconds(), freq: s.dbs[db].Freq(e)}
	switch id, _, cold := e.ColdRecord(); {
	case cold:
		// Cold since before the snapshot started (the demoter captures
		// a value before it moves it): the view holds its record.
		k.cold = id
	case e.Kind == keyspace.KindSuggest:
		k.sug = sugOf(e)
	case e.Kind == keyspace.KindString:
		k.str = e.Str()
	default:
		if k.v = entryValue(e); k.v == nil {
			return k, false
		}
	}
	return k, true
}

// cowSize is what the running snapshot's copies hold (current_cow_size),
// 0 without one.
func (s *Server) cowSize() int64 {
	if cs := s.cow.Load(); cs != nil && !cs.released.Load() {
		return cs.copied.Load()
	}
	return 0
}

// walk claims the entries no command has captured, taking each key's
// lock shared (on its own goroutine, which holds nothing else while it
// waits), then completes the snapshot. visit, when set, gets each
// claimed entry under its lock; after, when set, runs once the lock is
// released. An error of either stops the walk, which then goes on in the
// background without them, and is returned.
func (cs *cowSnap) walk(visit func(db int, e *keyspace.Entry) error, after func() error) error {
	s := cs.s
	g := s.locks.NewGuard(rand.Uint64())
	var keys []string
	var ents []*keyspace.Entry
	key := make([][]byte, 1)
	var err error
	claim := func(e *keyspace.Entry) {}
	for dbi, db := range s.dbs {
		if visit != nil {
			claim = func(e *keyspace.Entry) { err = visit(dbi, e) }
		}
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
					return nil
				}
				claimed := db.Claim(e, claim)
				g.Unlock()
				if err == nil && claimed && after != nil {
					err = after()
				}
				if err != nil {
					go cs.walk(nil, nil)
					return err
				}
				if d := walkPause.Load(); d > 0 {
					time.Sleep(time.Duration(d))
				}
			}
			if cs.done.Load() {
				return nil
			}
		}
	}
	// Commands that captured an entry may still be copying it: they end
	// before the global lock is granted.
	g.LockGlobal()
	cs.finish()
	g.Unlock()
	return nil
}

// release is the end of the starter's use of the snapshot: one nobody
// walked is walked in the background, claiming without reading. It may
// be called more than once, and after an encoding.
func (cs *cowSnap) release() {
	cs.released.Store(true)
	if cs.walking.CompareAndSwap(false, true) {
		go cs.walk(nil, nil)
	}
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

// wait waits until the snapshot is complete (every entry captured or
// claimed): a snapshot already being encoded, or released.
func (cs *cowSnap) wait() {
	<-cs.ready
}
