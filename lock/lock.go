// Package lock is HotKV's key-lock manager: one shared/exclusive lock per
// hash tag, under one global lock that every command holds shared and that
// database-wide commands hold exclusively.
//
// Lock order (see LOCKING.md): the global lock first, then tag locks in
// ascending bytewise order of the tag. Every acquisition goes through a
// Guard, which sorts and de-duplicates its tags, so two commands can never
// wait on each other in a cycle.
//
// Tag locks exist only while a command holds or waits for them (their
// memory is recycled), so the table holds just the tags in use. Two
// different tags never share a lock.
package lock

import (
	"hash/maphash"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Tag returns the hash tag of key: the non-empty text between the first '{'
// and the first '}' after it, or the whole key when there is none.
func Tag(key []byte) []byte {
	for i, c := range key {
		if c == '{' {
			for j := i + 1; j < len(key); j++ {
				if key[j] == '}' {
					if j == i+1 {
						return key // "{}": no valid tag
					}
					return key[i+1 : j]
				}
			}
			return key
		}
	}
	return key
}

const (
	numShards    = 512
	globalSlots  = 64
	cacheLinePad = 64
)

// Manager owns all locks. The zero value is not usable; use NewManager.
type Manager struct {
	seed   maphash.Seed
	global [globalSlots]globalSlot
	// slots is how many of global are used: twice the cores (a power of
	// two, at most globalSlots). Shared holders rarely share a slot, and
	// an exclusive holder, which takes every slot, takes no more than it
	// must (scripts without allow-key-locking do, on every call).
	slots  int
	shards [numShards]shard
	// exclusive serialises exclusive global acquisitions so that two of
	// them never interleave their sweeps over the slots.
	exclusive       sync.Mutex
	globalExclusive atomic.Int64
}

type globalSlot struct {
	mu sync.RWMutex
	// acquisitions counts the tag locks taken by the guards of this slot,
	// added by Guard.FlushStats.
	acquisitions atomic.Int64
	_            [cacheLinePad - 32]byte
}

type shard struct {
	mu     sync.Mutex
	active []*tagLock          // tags in use, while few: scanned linearly
	many   map[string]*tagLock // tags in use beyond maxActive
	free   []*tagLock          // unused locks kept for reuse
	st     Stats
	_      [cacheLinePad]byte
}

// A shard keeps its tags in use in a short slice: with 512 shards, a
// shard rarely has more than one or two tags locked at once, and scanning
// a slice beats hashing into a map. Tags past maxActive go to a map.
const (
	maxActive = 16
	maxFree   = 16
)

type tagLock struct {
	rw   sync.RWMutex
	refs int32 // holders and waiters; guarded by the shard's mu
	hash uint64
	name []byte
}

// Stats counts tag-lock acquisitions, those that had to wait, and the total
// time spent waiting.
type Stats struct {
	Acquisitions atomic.Int64
	Waits        atomic.Int64
	WaitNanos    atomic.Int64
}

// NewManager returns an empty lock manager.
func NewManager() *Manager {
	slots := 1
	for slots < 2*runtime.GOMAXPROCS(0) && slots < globalSlots {
		slots *= 2
	}
	return &Manager{seed: maphash.MakeSeed(), slots: slots}
}

// Slots returns how many slots the global lock has: a Guard made with
// hint uses slot hint % Slots().
func (m *Manager) Slots() int { return m.slots }

// Snapshot sums the statistics over all shards: acquisitions, waits, wait
// time in microseconds, exclusive global acquisitions, and tags held now.
func (m *Manager) Snapshot() (acq, waits, waitMicros, global, held int64) {
	for i := range m.shards {
		s := &m.shards[i]
		acq += s.st.Acquisitions.Load()
		if i < globalSlots {
			acq += m.global[i].acquisitions.Load()
		}
		waits += s.st.Waits.Load()
		waitMicros += s.st.WaitNanos.Load() / 1000
		s.mu.Lock()
		held += int64(len(s.active) + len(s.many))
		s.mu.Unlock()
	}
	return acq, waits, waitMicros, m.globalExclusive.Load(), held
}

// ResetStats zeroes the counters (CONFIG RESETSTAT).
func (m *Manager) ResetStats() {
	for i := range m.shards {
		s := &m.shards[i]
		s.st.Acquisitions.Store(0)
		if i < globalSlots {
			m.global[i].acquisitions.Store(0)
		}
		s.st.Waits.Store(0)
		s.st.WaitNanos.Store(0)
	}
	m.globalExclusive.Store(0)
}

// ref finds or creates the lock for tag and counts the caller as a user.
func (m *Manager) ref(tag []byte) (*shard, *tagLock) {
	h := maphash.Bytes(m.seed, tag)
	s := &m.shards[h%numShards]
	s.mu.Lock()
	var l *tagLock
	for _, x := range s.active {
		if x.hash == h && string(x.name) == string(tag) {
			l = x
			break
		}
	}
	if l == nil && s.many != nil {
		l = s.many[string(tag)]
	}
	if l == nil {
		if n := len(s.free); n > 0 {
			l = s.free[n-1]
			s.free = s.free[:n-1]
		} else {
			l = new(tagLock)
		}
		l.hash = h
		l.name = append(l.name[:0], tag...)
		if len(s.active) < maxActive {
			s.active = append(s.active, l)
		} else {
			if s.many == nil {
				s.many = make(map[string]*tagLock)
			}
			s.many[string(l.name)] = l
		}
	}
	l.refs++
	s.mu.Unlock()
	return s, l
}

func (m *Manager) unref(s *shard, l *tagLock) {
	s.mu.Lock()
	l.refs--
	if l.refs == 0 {
		removed := false
		for i, x := range s.active {
			if x == l {
				last := len(s.active) - 1
				s.active[i] = s.active[last]
				s.active[last] = nil
				s.active = s.active[:last]
				removed = true
				break
			}
		}
		if !removed {
			delete(s.many, string(l.name))
			if len(s.many) == 0 {
				s.many = nil
			}
		}
		if len(s.free) < maxFree && cap(l.name) <= 256 {
			s.free = append(s.free, l)
		}
	}
	s.mu.Unlock()
}

// Guard records the locks one command (or one transaction or script) holds.
// A Guard is reused by its owner; it is not safe for concurrent use.
type Guard struct {
	m        *Manager
	slot     int
	global   int8 // 0 none, 1 shared, 2 exclusive
	excl     bool
	tags     []held
	acquired int64 // tag locks taken since the last FlushStats
}

// FlushStats adds the guard's acquisitions to the manager's statistics.
// Owners call it now and then (the server: once per batch of commands),
// so that counting costs no shared write per lock.
func (g *Guard) FlushStats() {
	if g.acquired != 0 {
		g.m.global[g.slot].acquisitions.Add(g.acquired)
		g.acquired = 0
	}
}

type held struct {
	tag   []byte
	lock  *tagLock
	shard *shard
}

// NewGuard returns a Guard whose shared global acquisitions use the slot
// chosen by hint (a connection id spreads connections over the slots).
func (m *Manager) NewGuard(hint uint64) *Guard {
	return &Guard{m: m, slot: int(hint % uint64(m.slots))}
}

// Held reports whether the guard holds any lock.
func (g *Guard) Held() bool { return g.global != 0 }

// GlobalExclusive reports whether the guard holds the global lock
// exclusively (and so covers every key).
func (g *Guard) GlobalExclusive() bool { return g.global == 2 }

// LockGlobal takes the global lock exclusively: it waits for every running
// command to finish and keeps all others out until Unlock.
func (g *Guard) LockGlobal() {
	m := g.m
	m.exclusive.Lock()
	for i := range m.global[:m.slots] {
		m.global[i].mu.Lock()
	}
	m.globalExclusive.Add(1)
	g.global = 2
}

// LockKeys takes the global lock shared, then the tag lock of every key:
// exclusive when write is set, shared otherwise, in ascending tag order.
// keys may alias a buffer: the guard copies nothing but the tag slices, so
// keys must stay unchanged until Unlock.
func (g *Guard) LockKeys(keys [][]byte, write bool) {
	g.m.global[g.slot].mu.RLock()
	g.global = 1
	g.excl = write
	g.setTags(keys)
	for i := range g.tags {
		s, l := g.m.ref(g.tags[i].tag)
		g.tags[i].lock, g.tags[i].shard = l, s
		g.acquired++
		if write {
			if !l.rw.TryLock() {
				start := time.Now()
				l.rw.Lock()
				s.st.Waits.Add(1)
				s.st.WaitNanos.Add(int64(time.Since(start)))
			}
		} else if !l.rw.TryRLock() {
			start := time.Now()
			l.rw.RLock()
			s.st.Waits.Add(1)
			s.st.WaitNanos.Add(int64(time.Since(start)))
		}
	}
}

// setTags sets the guard's tags to those of keys, sorted and without
// duplicates: the order every acquisition follows.
func (g *Guard) setTags(keys [][]byte) {
	g.tags = g.tags[:0]
	for _, k := range keys {
		g.tags = append(g.tags, held{tag: Tag(k)})
	}
	switch n := len(g.tags); {
	case n > 16:
		slices.SortFunc(g.tags, func(a, b held) int { return compareBytes(a.tag, b.tag) })
	case n > 1:
		// Insertion sort: no comparison through a function value
		// (MSET of 10 keys spent 4% of its CPU in slices.SortFunc).
		t := g.tags
		for i := 1; i < n; i++ {
			for j := i; j > 0 && string(t[j].tag) < string(t[j-1].tag); j-- {
				t[j], t[j-1] = t[j-1], t[j]
			}
		}
	}
	if len(g.tags) > 1 {
		g.tags = slices.CompactFunc(g.tags, func(a, b held) bool { return string(a.tag) == string(b.tag) })
	}
}

func compareBytes(a, b []byte) int {
	switch {
	case string(a) < string(b):
		return -1
	case string(a) > string(b):
		return 1
	}
	return 0
}

// TryLockGlobal is LockGlobal without waiting: it takes the global lock
// exclusively only if no one holds any part of it, and reports whether it
// did.
func (g *Guard) TryLockGlobal() bool {
	m := g.m
	if !m.exclusive.TryLock() {
		return false
	}
	for i := range m.global[:m.slots] {
		if !m.global[i].mu.TryLock() {
			for j := i - 1; j >= 0; j-- {
				m.global[j].mu.Unlock()
			}
			m.exclusive.Unlock()
			return false
		}
	}
	m.globalExclusive.Add(1)
	g.global = 2
	return true
}

// TryLockKeys is LockKeys without waiting: it takes every lock or none
// and reports whether it did.
func (g *Guard) TryLockKeys(keys [][]byte, write bool) bool {
	if !g.m.global[g.slot].mu.TryRLock() {
		return false
	}
	g.global = 1
	g.excl = write
	g.setTags(keys)
	for i := range g.tags {
		s, l := g.m.ref(g.tags[i].tag)
		var ok bool
		if write {
			ok = l.rw.TryLock()
		} else {
			ok = l.rw.TryRLock()
		}
		if !ok {
			g.m.unref(s, l)
			g.tags = g.tags[:i] // Unlock releases those taken
			g.Unlock()
			return false
		}
		g.tags[i].lock, g.tags[i].shard = l, s
		g.acquired++
	}
	return true
}

// TryLockKey takes the global lock shared and key's tag lock exclusively
// without waiting; it reports whether it succeeded (used by background
// work such as active expiry, which skips busy keys).
func (g *Guard) TryLockKey(key []byte) bool {
	if !g.m.global[g.slot].mu.TryRLock() {
		return false
	}
	s, l := g.m.ref(Tag(key))
	if !l.rw.TryLock() {
		g.m.unref(s, l)
		g.m.global[g.slot].mu.RUnlock()
		return false
	}
	s.st.Acquisitions.Add(1)
	g.global, g.excl = 1, true
	g.tags = append(g.tags[:0], held{tag: Tag(key), lock: l, shard: s})
	return true
}

// Covers reports whether key's tag is locked by the guard (exclusively when
// write is set), or the guard holds the global lock exclusively.
func (g *Guard) Covers(key []byte, write bool) bool {
	if g.global == 2 {
		return true
	}
	if g.global == 0 || write && !g.excl {
		return false
	}
	tag := Tag(key)
	for _, h := range g.tags {
		if string(h.tag) == string(tag) {
			return true
		}
	}
	return false
}

// Unlock releases everything the guard holds, in reverse order.
func (g *Guard) Unlock() {
	switch g.global {
	case 0:
		return
	case 2:
		m := g.m
		for i := m.slots - 1; i >= 0; i-- {
			m.global[i].mu.Unlock()
		}
		m.exclusive.Unlock()
	case 1:
		for i := len(g.tags) - 1; i >= 0; i-- {
			h := g.tags[i]
			if g.excl {
				h.lock.rw.Unlock()
			} else {
				h.lock.rw.RUnlock()
			}
			g.m.unref(h.shard, h.lock)
			g.tags[i] = held{}
		}
		g.tags = g.tags[:0]
		g.m.global[g.slot].mu.RUnlock()
	}
	g.global = 0
}

// CoversAll reports whether the guard covers writes to every key.
func (g *Guard) CoversAll(keys [][]byte) bool {
	for _, k := range keys {
		if !g.Covers(k, true) {
			return false
		}
	}
	return true
}
