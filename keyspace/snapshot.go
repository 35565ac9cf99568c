package keyspace

import "sync/atomic"

// Copy-on-write snapshots: a point-in-time copy of the databases taken
// while commands go on (Go has no fork). Starting one flips the snapshot
// mark and turns capturing on; from then on every entry is handed to
// DB.OnCapture exactly once, under its key's tag lock, before anything
// changes it: when a command first reaches it (Get, Peek, SetString), or
// replaces, deletes or re-expires it; or the snapshot's own walk claims it
// (Claim), reading it in place, not copied. Entries created meanwhile carry the new mark
// and are never captured. Each entry keeps its mark in the top bit of
// its access clock.
//
// Invariant between snapshots: every entry carries the mark of the last
// snapshot (the walk marks those nobody touched; new entries get it), so
// flipping the mark makes them all uncaptured at once.

// snapBit is the snapshot mark in Entry.lru.
const snapBit = 1 << 31

// Snapshots is the snapshot state shared by the databases of a server.
type Snapshots struct {
	on   atomic.Bool
	mark atomic.Uint32 // snapBit or 0: the current (or last) snapshot's mark
}

// Start starts a snapshot: every existing entry becomes uncaptured. The
// caller holds the global lock exclusively and has completed the previous
// snapshot.
func (sn *Snapshots) Start() {
	sn.mark.Store(sn.mark.Load() ^ snapBit)
	sn.on.Store(true)
}

// Stop ends capturing, once every entry is captured (or was expired).
func (sn *Snapshots) Stop() { sn.on.Store(false) }

// Active reports whether a snapshot is being taken.
func (sn *Snapshots) Active() bool { return sn.on.Load() }

// capture hands e to OnCapture if the running snapshot has not captured
// it yet. The caller holds e's tag lock (shared at least).
func (db *DB) capture(e *Entry) { db.captureWith(e, db.OnCapture) }

// captureWith hands e to f if the running snapshot has not captured it
// yet, and reports whether it did. The caller holds e's tag lock (shared
// at least).
func (db *DB) captureWith(e *Entry, f func(*Entry)) bool {
	sn := db.Snapshots
	if sn == nil || !sn.on.Load() {
		return false
	}
	mark := sn.mark.Load()
	for {
		old := e.lru.Load()
		if old&snapBit == mark {
			return false
		}
		if e.lru.CompareAndSwap(old, old&^snapBit|mark) {
			if old&coldBit != 0 {
				// Another holder of the shared tag lock may be loading
				// the value: the capture sees it cold or loaded, whole.
				mu := loadLock(e)
				mu.Lock()
				defer mu.Unlock()
			}
			f(e)
			return true
		}
	}
}

// stamp marks a new entry as not part of the running snapshot (and, with
// none running, as the last one left entries).
func (db *DB) stamp(e *Entry) {
	if sn := db.Snapshots; sn != nil {
		e.setMark(sn.mark.Load())
	}
}

func (e *Entry) setMark(mark uint32) {
	for {
		old := e.lru.Load()
		if old&snapBit == mark || e.lru.CompareAndSwap(old, old&^snapBit|mark) {
			return
		}
	}
}

// CaptureEntry captures e for the running snapshot unless it already is.
// The caller holds e's tag lock, shared at least, or the global lock
// exclusively.
func (db *DB) CaptureEntry(e *Entry) { db.capture(e) }

// Claim is the snapshot's own walk reaching e: unless the running
// snapshot has captured e already, it marks e captured and hands it to
// visit instead of OnCapture (the walk reads the entry where it is), and
// reports whether it did. The caller holds e's tag lock, shared at least,
// until it is done with what visit reads; a cold entry being loaded
// meanwhile is seen cold or loaded, whole, by visit.
func (db *DB) Claim(e *Entry, visit func(*Entry)) bool { return db.captureWith(e, visit) }

// Uncaptured appends to keys and ents the entries of shard si the running
// snapshot has not captured yet, and their keys, for its walk.
func (db *DB) Uncaptured(si int, keys []string, ents []*Entry) ([]string, []*Entry) {
	sn := db.Snapshots
	if sn == nil {
		return keys, ents
	}
	mark := sn.mark.Load()
	s := &db.shards[si]
	s.mu.RLock()
	s.m.each(func(_ uint32, e *Entry) bool {
		if e.lru.Load()&snapBit != mark {
			keys = append(keys, e.Key())
			ents = append(ents, e)
		}
		return true
	})
	s.mu.RUnlock()
	return keys, ents
}

// captureKey captures the entry under key before a change, if a snapshot
// is running. The caller holds key's tag lock exclusively.
func (db *DB) captureKey(key []byte) {
	if sn := db.Snapshots; sn == nil || !sn.on.Load() {
		return
	}
	h, s := db.locate(key)
	s.mu.RLock()
	e := s.m.get(h, key)
	s.mu.RUnlock()
	if e != nil {
		db.capture(e)
	}
}
