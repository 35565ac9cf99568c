// Package lock is HotKV's key-lock manager: one shared/exclusive lock per
// hash tag, under one global lock that every command holds shared and that
// database-wide commands hold exclusively.
//
// # Lock order
//
// See LOCKING.md: the global lock first, then tag locks in ascending
// bytewise order of the tag. Every acquisition goes through a Guard, which
// sorts and de-duplicates its tags, so two commands can never wait on each
// other in a cycle. A request for several tags keeps the ones it has while
// it waits for the next.
//
// # Queues and fairness
//
// Every lock has an explicit FIFO queue of the guards that wait for it.
//
//   - A tag lock grants requests in arrival order. A request queues when the
//     tag is held in a conflicting mode or when another request is already
//     queued: a shared request that arrives behind a queued exclusive one
//     waits for it (readers cannot starve a writer). When the head of the
//     queue can be granted, it is, together with, if it is shared, every
//     shared request behind it up to the next exclusive one (writers cannot
//     starve readers).
//   - The global lock is one reader counter per slot (Slots) plus a queue.
//     A shared acquisition increments its slot's counter; while an
//     exclusive request holds the global lock or is queued for it, shared
//     acquisitions queue behind it instead, so a stream of commands cannot
//     starve it. When it releases, the shared requests queued before the
//     next exclusive one are granted; exclusive requests are granted in
//     arrival order, each once every shared holder has left.
//   - TryLockGlobal, TryLockKeys and TryLockKey never queue and never jump
//     a queue: they fail when a lock is held in a conflicting mode or has
//     waiters that they would pass (but for a request of their own domain
//     that a release woke, see Guard.SetDomain).
//
// # Asynchronous acquisition
//
// LockKeysAsync and LockGlobalAsync do not wait on the caller's goroutine:
// when a lock is busy they queue the guard and return false, and once the
// guard holds every lock it asked for, the goroutine that released the last
// lock it waited for calls its granted function, after releasing its own
// locks and with no mutex of this package held. An event loop can so park
// a client instead of blocking its thread. Until then the guard is pending:
// its owner may only call Cancel (which withdraws the request), Pending and
// FlushStats.
// LockKeys and LockGlobal are the same machinery, waiting on a channel.
//
// A goroutine that releases locks (Unlock, Cancel, or a shared acquisition
// that backs off for an exclusive request) continues the requests it
// grants: it takes their next locks (which may queue them again) and calls
// granted for those that hold everything, one after the other, in a loop.
// granted must therefore be quick, must not block or panic, and must not
// call into any Guard or Manager; it typically hands the client to its
// event loop.
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
//
// The global lock is a reader counter per slot, blocked, and mu. A shared
// acquisition increments its slot's counter and then loads blocked; an
// exclusive one sets blocked and then checks that every counter is zero
// (Dekker style: with sequentially consistent atomics, at least one of the
// two sees the other). A shared acquirer that sees blocked set backs off
// (decrements) and queues under mu; the last shared holder to leave a slot
// while blocked is set checks, under mu, whether the exclusive request at
// the head of the queue can now be granted.
type Manager struct {
	seed maphash.Seed
	// slots is how many of global are used: twice the cores (a power of
	// two, at most globalSlots). Shared holders rarely share a slot, and
	// an exclusive holder, which waits for every slot, checks no more than
	// it must (scripts without allow-key-locking take it on every call).
	slots int

	_ [cacheLinePad]byte
	// blocked is 1 while an exclusive global request holds the global
	// lock or is queued for it (mu.held, or mu.queue is not empty), and,
	// for an instant, during TryLockGlobal. Written only under mu.
	blocked atomic.Int32
	_       [cacheLinePad - 4]byte

	global [globalSlots]globalSlot

	// mu guards the exclusive side of the global lock. It is held only
	// for short sections and never while waiting.
	mu struct {
		sync.Mutex
		held bool // an exclusive holder has the global lock
		// queue holds the global requests that wait, shared and
		// exclusive, in arrival order. While the lock is not held
		// exclusively, its head (if any) is an exclusive request
		// waiting for the shared holders to leave.
		queue waitQueue
	}
	globalExclusive atomic.Int64

	shards [numShards]shard
}

type globalSlot struct {
	// readers counts the shared holders of the global lock on this slot
	// (and, for an instant, acquirers that back off for an exclusive
	// request).
	readers atomic.Int32
	// acquisitions counts the tag locks taken by the guards of this slot,
	// added by Guard.FlushStats.
	acquisitions atomic.Int64
	_            [cacheLinePad - 16]byte
}

type shard struct {
	// mu guards the table of tags in use and the state of each of their
	// locks (tagLock's fields). It is a leaf, held only for short sections.
	mu struct {
		sync.Mutex
		active []*tagLock          // tags in use, while few: scanned linearly
		many   map[string]*tagLock // tags in use beyond maxActive
		free   []*tagLock          // unused locks kept for reuse
	}
	st Stats
	_  [cacheLinePad]byte
}

// A shard keeps its tags in use in a short slice: with 512 shards, a
// shard rarely has more than one or two tags locked at once, and scanning
// a slice beats hashing into a map. Tags past maxActive go to a map.
const (
	maxActive = 16
	maxFree   = 16
)

// tagLock is the lock of one tag. Every field is guarded by its shard's mu.
//
// Invariant: whenever the lock is not held exclusively, the head of queue
// (if any) is an exclusive request (a shared one would have been granted).
type tagLock struct {
	refs    int32 // holders and waiters
	readers int32 // shared holders
	writer  bool  // held exclusively
	queue   waitQueue
	hash    uint64
	name    []byte
}

// grantableLocked reports whether a request in mode excl from domain can
// take l now without passing a queued one, other than a woken request of
// its own domain (see Guard.SetDomain). The caller holds the shard's mu.
func (l *tagLock) grantableLocked(excl bool, domain uint32) bool {
	if l.writer || excl && l.readers != 0 {
		return false
	}
	h := l.queue.head
	return h == nil || domain != 0 && h.woken && h.domain == domain
}

// wakeable reports whether a release that could grant w its lock wakes it
// instead (see Guard.SetDomain): an exclusive asynchronous request of a
// domain that has not found the lock taken once already.
func (w *Guard) wakeable() bool {
	return w.domain != 0 && w.excl && !w.strict && w.granted != nil
}

// takeLocked takes l in mode excl. The caller holds the shard's mu.
func (l *tagLock) takeLocked(excl bool) {
	if excl {
		l.writer = true
	} else {
		l.readers++
	}
}

// grantLocked grants l to the requests at the head of its queue that it
// can now serve: the head when it is exclusive and l is free, or every
// shared request before the next exclusive one when l is not held
// exclusively. It adds them to list, counting their waits in s's
// statistics. The caller holds s.mu.
func (l *tagLock) grantLocked(s *shard, list *waitQueue) {
	for w := l.queue.head; w != nil; w = l.queue.head {
		if l.writer || w.excl && l.readers != 0 || w.woken {
			return // a woken request takes the lock itself (Resume)
		}
		if w.wakeable() {
			// Wake it instead (see Guard.SetDomain): it stays first in
			// line, and the lock stays free for its domain meanwhile.
			w.woken = true
			list.wakes = append(list.wakes, w.granted)
			return
		}
		l.takeLocked(w.excl)
		l.queue.pop()
		s.st.Waits.Add(1)
		s.st.WaitNanos.Add(int64(time.Since(w.since)))
		w.taken++
		w.state.Store(stateMoving)
		list.push(w)
	}
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
// time in microseconds, exclusive global acquisitions, and tags in use now
// (held or waited for).
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
		held += int64(len(s.mu.active) + len(s.mu.many))
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

// shardOf returns the shard of tag and tag's hash.
func (m *Manager) shardOf(tag []byte) (*shard, uint64) {
	h := maphash.Bytes(m.seed, tag)
	return &m.shards[h%numShards], h
}

// refLocked finds or creates the lock for tag, whose hash is h, and counts
// the caller as a user. The caller holds s.mu.
func (s *shard) refLocked(h uint64, tag []byte) *tagLock {
	var l *tagLock
	for _, x := range s.mu.active {
		if x.hash == h && string(x.name) == string(tag) {
			l = x
			break
		}
	}
	if l == nil && s.mu.many != nil {
		l = s.mu.many[string(tag)]
	}
	if l == nil {
		if n := len(s.mu.free); n > 0 {
			l = s.mu.free[n-1]
			s.mu.free = s.mu.free[:n-1]
		} else {
			l = new(tagLock)
		}
		l.hash = h
		l.name = append(l.name[:0], tag...)
		if len(s.mu.active) < maxActive {
			s.mu.active = append(s.mu.active, l)
		} else {
			if s.mu.many == nil {
				s.mu.many = make(map[string]*tagLock)
			}
			s.mu.many[string(l.name)] = l
		}
	}
	l.refs++
	return l
}

// unrefLocked drops a user of l; the last one takes l out of the table
// (and keeps it for reuse). The caller holds s.mu.
func (s *shard) unrefLocked(l *tagLock) {
	l.refs--
	if l.refs != 0 {
		return
	}
	removed := false
	for i, x := range s.mu.active {
		if x == l {
			last := len(s.mu.active) - 1
			s.mu.active[i] = s.mu.active[last]
			s.mu.active[last] = nil
			s.mu.active = s.mu.active[:last]
			removed = true
			break
		}
	}
	if !removed {
		delete(s.mu.many, string(l.name))
		if len(s.mu.many) == 0 {
			s.mu.many = nil
		}
	}
	if len(s.mu.free) < maxFree && cap(l.name) <= 256 {
		s.mu.free = append(s.mu.free, l)
	}
}

// slotsIdleLocked reports whether no one holds the global lock shared. The
// caller holds m.mu and has set blocked.
func (m *Manager) slotsIdleLocked() bool {
	for i := range m.global[:m.slots] {
		if m.global[i].readers.Load() != 0 {
			return false
		}
	}
	return true
}

// openLocked reports whether the global queue lets an exclusive request
// from domain take the lock now: it is empty, or its head is a woken
// request of domain (see Guard.SetDomain). The caller holds m.mu.
func (m *Manager) openLocked(domain uint32) bool {
	h := m.mu.queue.head
	return h == nil || domain != 0 && h.woken && h.domain == domain
}

// advanceGlobalLocked grants the global requests at the head of the queue
// that can now be granted: the shared ones before the first exclusive one
// and, once no one holds the global lock, that exclusive one. It adds them
// to list and clears blocked when no exclusive request is left. The caller
// holds m.mu.
func (m *Manager) advanceGlobalLocked(list *waitQueue) {
	q := &m.mu.queue
	for !m.mu.held && q.head != nil {
		w := q.head
		if w.woken {
			break // a woken request takes the lock itself (Resume)
		}
		if w.want == globalExclusive {
			if !m.slotsIdleLocked() { // blocked is set: w is queued
				break
			}
			if w.wakeable() {
				// Wake it instead (see Guard.SetDomain): it stays
				// first in line, and the lock stays free for its
				// domain meanwhile.
				w.woken = true
				list.wakes = append(list.wakes, w.granted)
				break
			}
			m.mu.held = true
			m.globalExclusive.Add(1)
		} else {
			m.global[w.slot].readers.Add(1)
		}
		q.pop()
		w.global = w.want
		w.state.Store(stateMoving)
		list.push(w)
	}
	if !m.mu.held && q.head == nil {
		m.blocked.Store(0)
	}
}

// releaseSlot drops a shared holder of the global lock on slot i. The last
// one to leave a slot while an exclusive request is queued checks whether
// it can be granted now, adding it to list.
func (m *Manager) releaseSlot(i int, list *waitQueue) {
	if m.global[i].readers.Add(-1) == 0 && m.blocked.Load() != 0 {
		m.mu.Lock()
		m.advanceGlobalLocked(list)
		m.mu.Unlock()
	}
}

// waitQueue is a FIFO list of guards linked through Guard.next. A guard is
// in at most one list at a time: the queue of the lock it waits for, or
// the list of requests that a release has just granted.
type waitQueue struct {
	head, tail *Guard
	// wakes are the granted functions of the requests woken rather than
	// granted (grantLocked), to be called once no mutex is held.
	wakes []func()
}

func (q *waitQueue) push(g *Guard) {
	g.next = nil
	if q.tail == nil {
		q.head = g
	} else {
		q.tail.next = g
	}
	q.tail = g
}

func (q *waitQueue) pop() *Guard {
	g := q.head
	q.head = g.next
	if q.head == nil {
		q.tail = nil
	}
	g.next = nil
	return g
}

// remove takes g out of q, wherever it is.
func (q *waitQueue) remove(g *Guard) {
	var prev *Guard
	for x := q.head; x != nil; prev, x = x, x.next {
		if x != g {
			continue
		}
		if prev == nil {
			q.head = x.next
		} else {
			prev.next = x.next
		}
		if q.tail == x {
			q.tail = prev
		}
		x.next = nil
		return
	}
}

// run continues, in order, the requests in q that a release has granted a
// lock: each takes the locks it still lacks (and may so be queued again),
// and each that holds everything is handed to its owner (granted, or the
// channel of a blocking call). The caller holds no mutex of this package.
// Taking locks grants nothing to others, so q does not grow.
func (q *waitQueue) run() {
	for g := q.head; g != nil; {
		next := g.next
		g.next = nil
		if g.global == globalExclusive || g.lockTags() {
			g.finish()
		}
		g = next
	}
	q.head, q.tail = nil, nil
	for _, fn := range q.wakes {
		fn()
	}
	q.wakes = nil
}

// Guard records the locks one command (or one transaction or script) holds.
// A Guard is reused by its owner; it is not safe for concurrent use.
//
// While the guard is pending (queued by an acquisition that has not been
// granted yet), its fields belong to whoever moves it on: the mutex of the
// lock whose queue it is in, then the goroutine that granted it that lock.
// The owner gets them back when granted is called (or the blocking call
// returns, or Cancel reports true); state, an atomic, tells where it is.
type Guard struct {
	m        *Manager
	slot     int
	global   int8 // held: 0 none, globalShared, globalExclusive
	excl     bool // the tag locks are (to be) taken exclusively
	tags     []held
	taken    int   // tags[:taken] are held: all of them, unless pending
	acquired int64 // tag locks asked for since the last FlushStats; the owner's alone

	// state is stateIdle, stateMoving, stateQueuedGlobal, or
	// stateQueuedTag+i while queued for tags[i]. It leaves a queued state
	// only under the mutex of that queue's lock.
	state   atomic.Int32
	want    int8          // the global mode asked for, while in the global queue
	next    *Guard        // link in a waitQueue
	granted func()        // called once a pending acquisition holds everything
	wake    chan struct{} // signals a blocking call instead, when granted is nil
	since   time.Time     // when the guard was queued for a tag
	// domain is the guard's domain (SetDomain; 0: none). woken and
	// strict belong to the queue the guard is in (its lock's shard mu):
	// woken is set when a release woke the guard rather than granting it
	// the lock; strict once a woken guard found the lock taken, so that
	// the next release grants it.
	domain uint32
	woken  bool
	strict bool
}

const (
	globalShared    = 1
	globalExclusive = 2
)

// Guard states.
const (
	stateIdle int32 = iota // not pending
	// stateMoving: a release granted the guard a lock and is taking its
	// next ones (or is about to call granted).
	stateMoving
	stateQueuedGlobal // in the global queue
	stateQueuedTag    // + i: in the queue of tags[i]
)

// FlushStats adds the guard's acquisitions to the manager's statistics.
// Owners call it now and then (the server: once per batch of commands),
// so that counting costs no shared write per lock. It may be called while
// the guard is pending (no one else touches the count).
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

// SetDomain puts the guard's asynchronous exclusive requests (for tags or
// for the global lock) in domain d (0, the default: none): the owners of
// a domain's guards run one at a time on one goroutine, as the clients of
// an event loop do, so
// handing a lock from one of them to the next, in the order they queued,
// serves no fairness and builds convoys. A loop's clients that pipeline
// writes to one tag behind a handed-off holder would take turns forever,
// one command each, every turn a park and a task; so would a loop's
// clients that pipeline scripts (the global lock) behind a handed-off one.
//
// So a release whose next request is such a guard's wakes it instead of
// granting it the lock: its granted function is called, the guard stays
// first in line, and the lock stays free, open to the guards of that
// domain alone (TryLockKeys, or an asynchronous request, takes it past the
// woken guard and everything behind it; other domains queue). The woken
// guard's owner calls Resume, which takes the lock if it is free, or else
// leaves the guard first in line with the next release granting it as
// usual. A domain's requests may so pass one another between a release
// and the woken owner's turn, which its goroutine bounds; no other
// domain's request is passed by more than that.
func (g *Guard) SetDomain(d uint32) { g.domain = d }

// Resume is called by the owner of an asynchronous acquisition when its
// granted function has been called: it reports whether the guard now
// holds everything it asked for. When not, the guard was woken (see
// SetDomain), found a lock taken or took it and was queued for the next
// one, and is pending again: granted will be called again.
func (g *Guard) Resume() bool {
	st := g.state.Load()
	if st == stateIdle {
		return true
	}
	if st == stateQueuedGlobal {
		return g.resumeGlobal()
	}
	if st < stateQueuedTag {
		return false // cannot be woken: not for the owner to look at
	}
	h := &g.tags[st-stateQueuedTag]
	s, l := h.shard, h.lock
	s.mu.Lock()
	if g.state.Load() != st || !g.woken || l.queue.head != g {
		s.mu.Unlock() // a stale call: granted will be called again
		return false
	}
	g.woken = false
	if l.writer || g.excl && l.readers != 0 {
		// Another of its domain (a handed-off call) holds it: the
		// next release grants it.
		g.strict = true
		s.mu.Unlock()
		return false
	}
	l.queue.pop()
	l.takeLocked(g.excl)
	s.st.Waits.Add(1)
	s.st.WaitNanos.Add(int64(time.Since(g.since)))
	g.taken++
	g.state.Store(stateMoving)
	s.mu.Unlock()
	if !g.lockTags() {
		return false
	}
	g.granted = nil
	g.state.Store(stateIdle)
	return true
}

// resumeGlobal is Resume for a guard in the global queue.
func (g *Guard) resumeGlobal() bool {
	m := g.m
	m.mu.Lock()
	if g.state.Load() != stateQueuedGlobal || !g.woken || m.mu.queue.head != g {
		m.mu.Unlock() // a stale call: granted will be called again
		return false
	}
	g.woken = false
	if m.mu.held || !m.slotsIdleLocked() {
		// Another of its domain (a handed-off call) holds it: the
		// next release grants it.
		g.strict = true
		m.mu.Unlock()
		return false
	}
	m.mu.queue.pop() // blocked stays set: g holds the lock exclusively
	m.mu.held = true
	m.globalExclusive.Add(1)
	g.global = globalExclusive
	g.granted = nil
	g.state.Store(stateIdle)
	m.mu.Unlock()
	return true
}

// Held reports whether the guard holds any lock.
func (g *Guard) Held() bool { return g.global != 0 }

// GlobalExclusive reports whether the guard holds the global lock
// exclusively (and so covers every key).
func (g *Guard) GlobalExclusive() bool { return g.global == globalExclusive }

// Pending reports whether an asynchronous acquisition is queued and not
// granted yet. It turns false just before granted is called: the guard
// then holds its locks.
func (g *Guard) Pending() bool { return g.state.Load() != stateIdle }

// LockGlobal takes the global lock exclusively: it waits for every running
// command to finish and keeps all others out until Unlock. Commands that
// arrive while it waits queue behind it.
func (g *Guard) LockGlobal() {
	if !g.lockGlobal(nil) {
		<-g.wake
	}
}

// LockGlobalAsync is LockGlobal without waiting on the caller's goroutine,
// as LockKeysAsync.
func (g *Guard) LockGlobalAsync(granted func()) bool {
	if granted == nil {
		panic("lock: LockGlobalAsync with a nil granted")
	}
	return g.lockGlobal(granted)
}

// lockGlobal takes the global lock exclusively and reports true, or queues
// g for it and reports false; granted (or, when nil, g.wake) then tells
// the owner.
func (g *Guard) lockGlobal(granted func()) bool {
	m := g.m
	m.mu.Lock()
	m.blocked.Store(1) // keeps new shared acquisitions out from here on
	if !m.mu.held && m.openLocked(g.domain) && m.slotsIdleLocked() {
		m.mu.held = true
		m.mu.Unlock()
		m.globalExclusive.Add(1)
		g.global = globalExclusive
		return true
	}
	// The last shared holder to leave, or the exclusive holder's Unlock,
	// grants g.
	g.want = globalExclusive
	g.excl = true
	g.granted = granted
	g.enqueueLocked(&m.mu.queue, stateQueuedGlobal)
	m.mu.Unlock()
	return false
}

// LockKeys takes the global lock shared, then the tag lock of every key:
// exclusive when write is set, shared otherwise, in ascending tag order.
// It waits, on the caller's goroutine, for the locks that are busy.
// keys may alias a buffer: the guard copies nothing but the tag slices, so
// keys must stay unchanged until Unlock.
func (g *Guard) LockKeys(keys [][]byte, write bool) {
	if !g.lockKeys(keys, write, nil) {
		<-g.wake
	}
}

// LockKeysAsync is LockKeys without waiting on the caller's goroutine. If
// every lock is free it takes them and returns true (granted is never
// called). Otherwise it queues the guard and returns false: once all the
// locks are held, granted is called exactly once, on whichever goroutine
// released the last lock the guard waited for, with no lock-package mutex
// held. granted must not block (it typically hands work to an event loop)
// and must not call into any Guard or Manager. Until granted runs (or
// Cancel succeeds) the guard is pending: its owner may only call Cancel,
// Pending or FlushStats. keys must stay unchanged until Unlock.
func (g *Guard) LockKeysAsync(keys [][]byte, write bool, granted func()) bool {
	if granted == nil {
		panic("lock: LockKeysAsync with a nil granted")
	}
	return g.lockKeys(keys, write, granted)
}

// lockKeys takes the global lock shared and keys' tag locks and reports
// true, or queues g for the first busy one and reports false; granted (or,
// when nil, g.wake) then tells the owner.
func (g *Guard) lockKeys(keys [][]byte, write bool, granted func()) bool {
	m := g.m
	g.excl = write
	g.setTags(keys)
	g.acquired += int64(len(g.tags))
	g.granted = granted
	m.global[g.slot].readers.Add(1)
	if m.blocked.Load() != 0 && !g.lockSharedSlow(true) {
		return false
	}
	g.global = globalShared
	if !g.lockTags() {
		return false
	}
	g.granted = nil
	return true
}

// lockSharedSlow is the shared global acquisition that found blocked set
// after incrementing its slot: it backs off and, under m.mu, takes the
// lock if the exclusive request has gone meanwhile, or else, when queue is
// set, queues g behind it. It reports whether g holds the lock.
func (g *Guard) lockSharedSlow(queue bool) bool {
	m := g.m
	var list waitQueue
	m.releaseSlot(g.slot, &list)
	m.mu.Lock()
	ok := m.blocked.Load() == 0 // no exclusive request, none queued
	if ok {
		m.global[g.slot].readers.Add(1)
		g.global = globalShared
	} else if queue {
		g.want = globalShared
		g.enqueueLocked(&m.mu.queue, stateQueuedGlobal)
	}
	m.mu.Unlock()
	list.run()
	return ok
}

// lockTags takes, in order, the tag locks that g still lacks. It reports
// whether g holds them all; when not, g is queued for the next one and
// belongs to that lock's queue: the caller must not touch it any more.
func (g *Guard) lockTags() bool {
	for g.taken < len(g.tags) {
		h := &g.tags[g.taken]
		s, hash := g.m.shardOf(h.tag)
		s.mu.Lock()
		l := s.refLocked(hash, h.tag)
		h.lock, h.shard = l, s
		if !l.grantableLocked(g.excl, g.domain) {
			// The release that grants it continues g.
			g.enqueueLocked(&l.queue, stateQueuedTag+int32(g.taken))
			s.mu.Unlock()
			return false
		}
		l.takeLocked(g.excl)
		s.mu.Unlock()
		g.taken++
	}
	return true
}

// enqueueLocked appends g to q, the queue of the lock it waits for, and
// sets its state to st. The caller holds the mutex of q's lock; once it
// releases it, g belongs to the queue.
func (g *Guard) enqueueLocked(q *waitQueue, st int32) {
	if g.granted == nil && g.wake == nil {
		g.wake = make(chan struct{}, 1) // the first wait of a blocking call
	}
	g.since = time.Now()
	g.woken, g.strict = false, false
	q.push(g)
	g.state.Store(st)
}

// finish hands a guard that now holds everything back to its owner.
func (g *Guard) finish() {
	fn, wake := g.granted, g.wake
	g.granted = nil
	g.state.Store(stateIdle) // g is the owner's from here on
	if fn != nil {
		fn()
	} else {
		wake <- struct{}{}
	}
}

// Cancel withdraws a pending acquisition: it releases what it had taken so
// far, and reports true; granted will then never be called. It reports
// false when the acquisition is not pending anymore (granted ran or is
// about to run: the guard holds, or will hold, the locks and the owner
// must Unlock after granted). Requests that the withdrawal lets through
// are continued on the caller's goroutine, as by Unlock. While a release
// is taking the guard's next locks, Cancel waits for it to queue the guard
// again or grant it (a short, non-blocking step).
func (g *Guard) Cancel() bool {
	for {
		st := g.state.Load()
		switch st {
		case stateIdle:
			return false
		case stateMoving:
			runtime.Gosched()
			continue
		}
		if testHookCancel != nil {
			testHookCancel()
		}
		var list waitQueue
		if st == stateQueuedGlobal {
			m := g.m
			m.mu.Lock()
			if g.state.Load() != st {
				m.mu.Unlock()
				continue
			}
			m.mu.queue.remove(g)
			g.state.Store(stateIdle)
			// An exclusive request that leaves may let the shared
			// ones behind it in, or clear blocked.
			m.advanceGlobalLocked(&list)
			m.mu.Unlock()
		} else {
			// tags[i] was set before the state was stored.
			h := &g.tags[st-stateQueuedTag]
			s, l := h.shard, h.lock
			s.mu.Lock()
			if g.state.Load() != st {
				s.mu.Unlock()
				continue
			}
			l.queue.remove(g)
			g.state.Store(stateIdle)
			l.grantLocked(s, &list) // those behind g, if they can go now
			s.unrefLocked(l)
			s.mu.Unlock()
		}
		g.acquired -= int64(len(g.tags) - g.taken)
		g.granted = nil
		g.release(&list)
		list.run()
		return true
	}
}

// testHookCancel, when set (by tests), runs in Cancel between reading the
// guard's state and locking the queue it names.
var testHookCancel func()

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
// exclusively only if no one holds any part of it and no request is
// queued for it, and reports whether it did. Failing leaves no trace.
func (g *Guard) TryLockGlobal() bool {
	m := g.m
	m.mu.Lock()
	if m.mu.held || !m.openLocked(g.domain) {
		m.mu.Unlock()
		return false
	}
	m.blocked.Store(1)
	if !m.slotsIdleLocked() {
		// Shared acquirers that saw blocked meanwhile back off and wait
		// for mu; none could queue, since queueing takes mu. (With a
		// woken request in the queue, blocked was set before.)
		if m.mu.queue.head == nil {
			m.blocked.Store(0)
		}
		m.mu.Unlock()
		return false
	}
	m.mu.held = true
	m.mu.Unlock()
	m.globalExclusive.Add(1)
	g.global = globalExclusive
	return true
}

// TryLockKeys is LockKeys without waiting: it takes every lock or none
// and reports whether it did. It fails when a lock is busy or has queued
// requests.
func (g *Guard) TryLockKeys(keys [][]byte, write bool) bool {
	if !g.tryLockShared() {
		return false
	}
	g.excl = write
	g.setTags(keys)
	for g.taken < len(g.tags) {
		if !g.tryLockTag(&g.tags[g.taken]) {
			g.Unlock() // what it took
			return false
		}
		g.taken++
	}
	g.acquired += int64(len(g.tags))
	return true
}

// TryLockKey takes the global lock shared and key's tag lock exclusively
// without waiting; it reports whether it succeeded (used by background
// work such as active expiry, which skips busy keys).
func (g *Guard) TryLockKey(key []byte) bool {
	if !g.tryLockShared() {
		return false
	}
	g.excl = true
	g.tags = append(g.tags[:0], held{tag: Tag(key)})
	h := &g.tags[0]
	if !g.tryLockTag(h) {
		g.Unlock()
		return false
	}
	g.taken = 1
	h.shard.st.Acquisitions.Add(1)
	return true
}

// tryLockShared takes the global lock shared on g's slot if no exclusive
// request holds it or waits for it.
func (g *Guard) tryLockShared() bool {
	m := g.m
	m.global[g.slot].readers.Add(1)
	if m.blocked.Load() != 0 {
		return g.lockSharedSlow(false)
	}
	g.global = globalShared
	return true
}

// tryLockTag takes h's tag lock in g's mode if it can be granted now.
func (g *Guard) tryLockTag(h *held) bool {
	s, hash := g.m.shardOf(h.tag)
	s.mu.Lock()
	l := s.refLocked(hash, h.tag)
	ok := l.grantableLocked(g.excl, g.domain)
	if ok {
		l.takeLocked(g.excl)
		h.lock, h.shard = l, s
	} else {
		s.unrefLocked(l)
	}
	s.mu.Unlock()
	return ok
}

// Covers reports whether key's tag is locked by the guard (exclusively when
// write is set), or the guard holds the global lock exclusively.
func (g *Guard) Covers(key []byte, write bool) bool {
	if g.global == globalExclusive {
		return true
	}
	if g.global == 0 || write && !g.excl {
		return false
	}
	tag := Tag(key)
	for _, h := range g.tags[:g.taken] {
		if string(h.tag) == string(tag) {
			return true
		}
	}
	return false
}

// Unlock releases everything the guard holds, in reverse order, and
// continues, on the caller's goroutine, the requests this grants (see
// LockKeysAsync). It must not be called while the guard is pending.
func (g *Guard) Unlock() {
	if g.state.Load() != stateIdle {
		panic("lock: Unlock of a pending Guard")
	}
	if g.global == 0 {
		return
	}
	var list waitQueue
	g.release(&list)
	if list.head != nil || list.wakes != nil {
		list.run()
	}
}

// release releases the global lock and tags[:taken] and resets g, adding
// to list the requests this grants.
func (g *Guard) release(list *waitQueue) {
	m := g.m
	switch g.global {
	case globalExclusive:
		m.mu.Lock()
		m.mu.held = false
		m.advanceGlobalLocked(list)
		m.mu.Unlock()
	case globalShared:
		for i := g.taken - 1; i >= 0; i-- {
			s, l := g.tags[i].shard, g.tags[i].lock
			s.mu.Lock()
			if g.excl {
				l.writer = false
			} else {
				l.readers--
			}
			if l.queue.head != nil {
				l.grantLocked(s, list)
			}
			s.unrefLocked(l)
			s.mu.Unlock()
		}
		m.releaseSlot(g.slot, list)
	}
	clear(g.tags) // drop the references to the keys and locks
	g.tags = g.tags[:0]
	g.taken = 0
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
