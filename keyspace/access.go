package keyspace

import (
	"math/rand/v2"
	"sync/atomic"
	"time"
)

// Access tracking: each entry records how it is used, for OBJECT IDLETIME
// and FREQ and for eviction, in 31 bits of Entry.lru (the 32nd is the
// snapshot mark). As in Redis, one field serves either policy:
//
//   - LRU (the default): the access clock, in seconds, at the last access.
//   - LFU: Redis's 24-bit layout, the minutes (16 bits, wrapping) at the
//     last decrement and a logarithmic access counter (8 bits): each access
//     first decays the counter by one per lfu-decay-time minutes elapsed,
//     then increments it with probability 1/((counter-5)*lfu-log-factor+1).
//
// Switching the mode reinterprets the field, as Redis does: values written
// under the other mode read as noise until keys are accessed again.

// Access is how a server's databases record accesses, shared by them
// (DB.Access; nil is LRU). Its settings may change at any time.
type Access struct {
	lfu       atomic.Bool
	logFactor atomic.Int64
	decayTime atomic.Int64 // minutes per decrement; 0: no decay
}

// NewAccess returns LRU tracking, with Redis's LFU defaults (lfu-log-factor
// 10, lfu-decay-time 1) for when LFU is turned on.
func NewAccess() *Access {
	a := &Access{}
	a.logFactor.Store(10)
	a.decayTime.Store(1)
	return a
}

// SetLFU turns LFU counting on or off (LRU).
func (a *Access) SetLFU(on bool) { a.lfu.Store(on) }

// LFU reports whether accesses are counted (LFU) rather than timed.
func (a *Access) LFU() bool { return a.lfu.Load() }

// SetLogFactor sets lfu-log-factor.
func (a *Access) SetLogFactor(n int64) { a.logFactor.Store(n) }

// SetDecayTime sets lfu-decay-time, in minutes.
func (a *Access) SetDecayTime(minutes int64) { a.decayTime.Store(minutes) }

// LFUInit is Redis's LFU_INIT_VAL: the counter of a new key, which the
// first accesses raise at once (below it the increment is certain), so
// that new keys are not evicted before they had a chance to be used.
const LFUInit = 5

const lruMask = 1<<30 - 1

// isLFU reports whether db's accesses are counted (LFU).
func (db *DB) isLFU() bool { return db.Access != nil && db.Access.lfu.Load() }

// lfuMinutes is Redis's LFUGetTimeInMinutes: the unix time in minutes,
// wrapping at 16 bits.
func lfuMinutes() uint32 {
	return uint32((int64(lruClock.Load())+lruBase)/60) & 0xFFFF
}

// Freq returns the decayed LFU counter held in an access field v (Redis's
// LFUDecrAndReturn), without updating it.
func (a *Access) Freq(v uint32) int {
	v &= lruMask
	counter := int64(v & 0xFF)
	if d := a.decayTime.Load(); d > 0 {
		ldt, now := v>>8&0xFFFF, lfuMinutes()
		elapsed := int64(now) - int64(ldt)
		if now < ldt {
			elapsed = 65535 - int64(ldt) + int64(now)
		}
		counter = max(counter-elapsed/d, 0)
	}
	return int(counter)
}

// lfuIncr is Redis's LFULogIncr.
func (a *Access) lfuIncr(counter int) int {
	if counter == 255 {
		return 255
	}
	base := float64(max(counter-LFUInit, 0))
	if rand.Float64() < 1/(base*float64(a.logFactor.Load())+1) {
		counter++
	}
	return counter
}

// IdleSeconds returns the seconds since the entry was last accessed, on
// the same coarse clock that records accesses (as Redis's LRU clock).
// Under LFU the field holds a counter and the result means nothing, as
// Redis's estimateObjectIdleTime then.
func (e *Entry) IdleSeconds() int64 { return IdleOf(e.lru.Load()) }

// IdleOf is IdleSeconds for an access field v read before (Sampled).
func IdleOf(v uint32) int64 {
	d := int64(lruClock.Load()) - int64(v&lruMask)
	if d < 0 {
		return 0
	}
	return d
}

// Freq returns e's decayed LFU counter (OBJECT FREQ), without counting
// an access. Meaningful under LFU only.
func (db *DB) Freq(e *Entry) int {
	a := db.Access
	if a == nil {
		return LFUInit
	}
	return a.Freq(e.lru.Load())
}

// SetAccess sets what RESTORE's IDLETIME and FREQ (and the RDB's IDLE and
// FREQ) give, under the mode they belong to (Redis's objectSetLRUOrLFU):
// idle seconds backdate the last access under LRU, freq becomes the
// counter under LFU; -1 is not given.
func (db *DB) SetAccess(e *Entry, idle int64, freq int) {
	if db.isLFU() {
		if freq >= 0 {
			e.setLRU(lfuMinutes()<<8 | uint32(min(freq, 255)))
		}
		return
	}
	if idle >= 0 {
		now := int64(lruClock.Load())
		e.setLRU(uint32(max(now-idle, 0)))
	}
}

// created initializes the access field of a new entry (Redis's
// createObject): the clock, or a new key's counter.
func (db *DB) created(e *Entry) {
	if db.isLFU() {
		e.setLRU(lfuMinutes()<<8 | LFUInit)
		return
	}
	db.touch(e)
}

// overwritten records an access to e, which replaced old under the same
// key: under LFU the counter carries over (Redis's dbOverwrite), counting
// the write's lookup.
func (db *DB) overwritten(e, old *Entry) {
	if db.isLFU() {
		e.setLRU(old.lru.Load() & lruMask)
	}
	db.touch(e)
}

// touch records an access to e (Redis's lookupKey without NOTOUCH): the
// clock, or a decay and a probabilistic increment of the counter.
func (db *DB) touch(e *Entry) {
	if db.isLFU() {
		a := db.Access
		c := a.lfuIncr(a.Freq(e.lru.Load()))
		e.setLRU(lfuMinutes()<<8 | uint32(c))
		return
	}
	if s := lruClock.Load(); e.lru.Load()&lruMask != s {
		e.setLRU(s)
	}
}

// setLRU sets the access field of e, keeping its snapshot and cold marks.
func (e *Entry) setLRU(v uint32) {
	for {
		old := e.lru.Load()
		if e.lru.CompareAndSwap(old, old&(snapBit|coldBit)|v) {
			return
		}
	}
}

// lruClock is the access clock in seconds since lruBase, advanced by
// Tick: entries record it on access instead of reading the time on every
// command. It fits in 30 bits (the 31st is coldBit, the 32nd snapBit)
// for 17 years of uptime, and idle times of up to 17 years can be set.
var (
	lruClock atomic.Uint32
	lruBase  = time.Now().Unix() - 1<<29
)

func init() { Tick(NowMs()) }

// Tick advances the access clock; the server's cron calls it.
func Tick(nowMs int64) {
	// Several servers (tests) may tick one clock: it only moves forward.
	now := uint32(nowMs/1000 - lruBase)
	for {
		cur := lruClock.Load()
		if now <= cur || lruClock.CompareAndSwap(cur, now) {
			return
		}
	}
}
