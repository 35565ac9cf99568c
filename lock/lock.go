// Package lock is HotKV's key-lock manager: one shared/exclusive lock per
// hash tag, under one global lock that every command holds shared and that
// database-wide commands hold exclusively.
//
// Lock order (see LOCKING.md): the global lock first, then tag locks in
// ascending bytewise order of the tag. Every acquisition goes through a
// Guard, which sorts and de-duplicates its tags, so two commands can never
// wait on each other in a cycle.
//
// Tag locks are created on demand; once the last holder or waiter leaves,
// a bounded number per shard stay for reuse and the rest are swept, so the
// table holds the tags in use plus a small cache. Two different tags never
// share a lock.
package lock

import (
	"hash/maphash"
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
	shards [numShards]shard
	// exclusive serialises exclusive global acquisitions so that two of
	// them never interleave their sweeps over the slots.
	exclusive       sync.Mutex
	globalExclusive atomic.Int64
}

type globalSlot struct {
	mu sync.RWMutex
	_  [cacheLinePad - 24]byte
}

type shard struct {
	mu   sync.Mutex
	tags map[string]*tagLock
	idle int // entries in tags with refs == 0, kept to avoid reallocating
	st   Stats
	_    [cacheLinePad]byte
}

// maxIdle bounds the unused tag locks a shard keeps for reuse: a hot tag
// whose holders come and go keeps its entry instead of allocating one per
// command; past the bound the idle entries are swept.
const maxIdle = 64

type tagLock struct {
	rw    sync.RWMutex
	refs  int32
	name  string
	shard *shard
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
	m := &Manager{seed: maphash.MakeSeed()}
	for i := range m.shards {
		m.shards[i].tags = make(map[string]*tagLock)
	}
	return m
}

// Snapshot sums the statistics over all shards: acquisitions, waits, wait
// time in microseconds, exclusive global acquisitions, and tags held now.
func (m *Manager) Snapshot() (acq, waits, waitMicros, global, held int64) {
	for i := range m.shards {
		s := &m.shards[i]
		acq += s.st.Acquisitions.Load()
		waits += s.st.Waits.Load()
		waitMicros += s.st.WaitNanos.Load() / 1000
		s.mu.Lock()
		held += int64(len(s.tags) - s.idle)
		s.mu.Unlock()
	}
	return acq, waits, waitMicros, m.globalExclusive.Load(), held
}

// ResetStats zeroes the counters (CONFIG RESETSTAT).
func (m *Manager) ResetStats() {
	for i := range m.shards {
		s := &m.shards[i]
		s.st.Acquisitions.Store(0)
		s.st.Waits.Store(0)
		s.st.WaitNanos.Store(0)
	}
	m.globalExclusive.Store(0)
}

func (m *Manager) shardOf(tag []byte) *shard {
	return &m.shards[maphash.Bytes(m.seed, tag)%numShards]
}

// ref finds or creates the lock for tag and counts the caller as a user.
func (m *Manager) ref(tag []byte) (*shard, *tagLock) {
	s := m.shardOf(tag)
	s.mu.Lock()
	l := s.tags[string(tag)]
	if l == nil {
		if s.idle >= maxIdle {
			for name, x := range s.tags {
				if x.refs == 0 {
					delete(s.tags, name)
				}
			}
			s.idle = 0
		}
		l = &tagLock{name: string(tag), shard: s}
		s.tags[l.name] = l
	} else if l.refs == 0 {
		s.idle--
	}
	l.refs++
	s.mu.Unlock()
	return s, l
}

func (m *Manager) unref(l *tagLock) {
	s := l.shard
	s.mu.Lock()
	l.refs--
	if l.refs == 0 {
		s.idle++
	}
	s.mu.Unlock()
}

// Guard records the locks one command (or one transaction or script) holds.
// A Guard is reused by its owner; it is not safe for concurrent use.
type Guard struct {
	m      *Manager
	slot   int
	global int8 // 0 none, 1 shared, 2 exclusive
	excl   bool
	tags   []held
}

type held struct {
	tag  []byte
	lock *tagLock
}

// NewGuard returns a Guard whose shared global acquisitions use the slot
// chosen by hint (a connection id spreads connections over the slots).
func (m *Manager) NewGuard(hint uint64) *Guard {
	return &Guard{m: m, slot: int(hint % globalSlots)}
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
	for i := range m.global {
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
	g.tags = g.tags[:0]
	for _, k := range keys {
		g.tags = append(g.tags, held{tag: Tag(k)})
	}
	if len(g.tags) > 1 {
		slices.SortFunc(g.tags, func(a, b held) int { return compareBytes(a.tag, b.tag) })
		g.tags = slices.CompactFunc(g.tags, func(a, b held) bool { return string(a.tag) == string(b.tag) })
	}
	for i := range g.tags {
		s, l := g.m.ref(g.tags[i].tag)
		g.tags[i].lock = l
		s.st.Acquisitions.Add(1)
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

func compareBytes(a, b []byte) int {
	switch {
	case string(a) < string(b):
		return -1
	case string(a) > string(b):
		return 1
	}
	return 0
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
		g.m.unref(l)
		g.m.global[g.slot].mu.RUnlock()
		return false
	}
	s.st.Acquisitions.Add(1)
	g.global, g.excl = 1, true
	g.tags = append(g.tags[:0], held{tag: Tag(key), lock: l})
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
		for i := len(m.global) - 1; i >= 0; i-- {
			m.global[i].mu.Unlock()
		}
		m.exclusive.Unlock()
	case 1:
		for i := len(g.tags) - 1; i >= 0; i-- {
			l := g.tags[i].lock
			if g.excl {
				l.rw.Unlock()
			} else {
				l.rw.RUnlock()
			}
			g.m.unref(l)
			g.tags[i] = held{}
		}
		g.tags = g.tags[:0]
		g.m.global[g.slot].mu.RUnlock()
	}
	g.global = 0
}
