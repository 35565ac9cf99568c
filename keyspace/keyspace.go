// Package keyspace holds HotKV's databases: maps from key to Entry, with
// expiry, memory accounting and stable SCAN cursors.
//
// Concurrency contract: a DB is split into shards, each guarded by a short
// internal mutex that protects the map itself and every Entry's Kind and
// expire fields. An Entry's value (Str, Obj) is NOT guarded here: the caller
// must hold the key's hash-tag lock (shared to read, exclusive to write), as
// the server's command gate does. Whole-DB operations (Flush, Swap) need the
// global lock held exclusively.
package keyspace

import (
	"hash/maphash"
	"math"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// Kind is the type of a value.
type Kind uint8

// Value kinds, named as TYPE reports them.
const (
	KindNone Kind = iota
	KindString
	KindList
	KindHash
	KindSet
	KindZSet
	KindStream
	// KindSuggest is a RediSearch suggestion dictionary (FT.SUGADD), a
	// module type in Redis: TYPE names it trietype0.
	KindSuggest
)

var kindNames = [...]string{"none", "string", "list", "hash", "set", "zset", "stream", "trietype0"}

func (k Kind) String() string { return kindNames[k] }

// Sizer is implemented by collection values so that used_memory can follow
// them. MemSize returns an estimate of the bytes the value occupies.
type Sizer interface{ MemSize() int64 }

const (
	shardBits = 10
	numShards = 1 << shardBits
)

// seed is shared by every DB so that SCAN cursors stay meaningful across
// SWAPDB, and fixed for the process lifetime.
var seed = maphash.MakeSeed()

func hashKey(key []byte) uint64 { return maphash.Bytes(seed, key) }

// entryHash is the hash of e's key.
func entryHash(e *Entry) uint64 { return maphash.String(seed, e.Key()) }

func shardIndex(h uint64) int { return int(h >> (64 - shardBits)) }

// ShardOf returns the index (0 to NumShards-1) of the shard that holds key,
// in every database alike: goroutines that each write the keys of their
// own shards never contend for a shard lock, and the writes to one key
// stay in the order one goroutine makes them (a parallel load).
func ShardOf(key []byte) int { return shardIndex(hashKey(key)) }

type shard struct {
	mu       sync.RWMutex
	m        table
	volatile map[*Entry]struct{} // entries with an expiry
	_        [24]byte
}

// memStripes is how many counters a DB's memory is spread over: enough
// that writers on different cores rarely share one, few enough that Mem,
// which used_memory sums for every eviction check, stays cheap.
const memStripes = 64

// memStripe is one of them, alone in its cache line.
type memStripe struct {
	n    atomic.Int64
	base atomic.Int64 // the part of n that is the entries' own (memParts)
	_    [48]byte
}

// DB is one numbered database.
type DB struct {
	shards [numShards]shard
	// mem is the bytes accounted to the entries, striped by shard.
	mem [memStripes]memStripe
	// Now returns the current unix time in milliseconds; tests replace it.
	Now func() int64
	// KeepExpired makes every key live whatever its expiry, as Redis
	// treats keys while it loads the append-only file: the file's DELs
	// say when keys expired. Set before serving, or under the exclusive
	// global lock (DEBUG LOADAOF), while the cron may read it.
	KeepExpired atomic.Bool
	// HoldExpired keeps expired keys in the database while they read as
	// missing: lazy expiry (Get, Peek, Random) removes nothing and calls
	// no hook, as Redis 7.0's expireIfNeeded while clients are paused
	// (CLIENT PAUSE keeps the dataset still). Writes that replace an
	// expired key still remove it.
	HoldExpired atomic.Bool
	// Frozen, when set and not 0, is the time (unix ms) expiries compare
	// with instead of Now: a script sees time stand still while it runs,
	// as in Redis. The server shares one among its databases.
	Frozen *atomic.Int64
	// OnExpire, when set, is called (under the shard lock; it must not
	// call back into the DB) with each key removed lazily by expiry: on
	// access, or when a write (SET, DEL) meets the expired key. Keys the
	// active expiry cycle removes (DeleteExpired) are not reported. The
	// removal itself calls no OnModify (Redis signals it as modified by
	// no client): the hook does what a modification does; a write that
	// then stores the key calls OnModify for what it stores.
	OnExpire func(key string)
	// OnCreate, when set, is called (under the shard lock; it must not call
	// back into the DB) with each key Set creates where none was: the
	// server wakes the clients blocked on it.
	OnCreate func(key string, kind Kind)
	// OnModify, when set, is called (under the shard lock or the key's tag
	// lock; it must not call back into the DB) with each key whose value,
	// kind, expiry or existence changes — Redis's signalModifiedKey, for
	// WATCH.
	OnModify func(key string)
	// Snapshots, when set, is the snapshot state shared with the other
	// databases, and OnCapture receives each entry a running snapshot
	// captures (snapshot.go), under its key's tag lock and no shard lock;
	// it must not call back into the DB.
	Snapshots *Snapshots
	OnCapture func(e *Entry)
	// Access, when set, is the access tracking shared with the other
	// databases (access.go); nil records last-access times (LRU).
	Access *Access
	// Tier, when set, is where cold values live (cold.go). Set before
	// serving.
	Tier Tier

	// cold and coldMem count the cold entries and the memory their values
	// held (cold.go).
	cold, coldMem atomic.Int64

	// volShards has a bit set for each shard whose volatile set may be
	// non-empty, so that the active expiry cycle skips the others at no
	// cost. A bit is set, under the shard lock, when a key gains an
	// expiry; only SampleExpired clears it, under the shard lock, after
	// finding the set empty.
	volShards [numShards / 64]atomic.Uint64
}

// NowMs is the default clock.
func NowMs() int64 { return time.Now().UnixMilli() }

// New returns an empty database.
func New() *DB { return &DB{Now: NowMs} }

// expiryNow is the time expiries are compared with: Now, or, with
// KeepExpired, a time before every expiry.
func (db *DB) expiryNow() int64 {
	if db.KeepExpired.Load() {
		return math.MinInt64
	}
	if f := db.Frozen; f != nil {
		if t := f.Load(); t != 0 {
			return t
		}
	}
	return db.Now()
}

// IsExpired reports whether an expiry time at (unix ms; 0: none) has
// passed, as the keyspace judges it (never with KeepExpired).
func (db *DB) IsExpired(at int64) bool { return at != 0 && at <= db.expiryNow() }

// locate returns key's hash and shard.
func (db *DB) locate(key []byte) (uint64, *shard) {
	h := hashKey(key)
	return h, &db.shards[shardIndex(h)]
}

// Get returns the live entry for key, or nil. An expired entry is removed.
// The caller holds key's tag lock (shared at least).
func (db *DB) Get(key []byte) *Entry {
	e := db.GetRef(key)
	if e != nil {
		db.Load(e)
	}
	return e
}

// GetRef is Get for a command that needs only the key, its kind and its
// expiry (EXISTS, TYPE, TTL, EXPIRE, RENAME...): a cold value is not
// loaded, and the entry returned must not be read for its value.
func (db *DB) GetRef(key []byte) *Entry {
	h, s := db.locate(key)
	s.mu.RLock()
	e := s.m.get(h, key)
	if e == nil {
		s.mu.RUnlock()
		return nil
	}
	exp := e.expire
	s.mu.RUnlock()
	if exp != 0 && exp <= db.expiryNow() {
		db.expireIfSame(s, e)
		return nil
	}
	db.capture(e)
	db.touch(e)
	return e
}

// Prefetch is called with keys that commands will use soon, before their
// locks are taken (a script's declared keys, a multi-key command's keys,
// the keys of the commands pipelined after the current one). It warms the CPU cache with each
// key's table slot and entry, all keys at once, so that their cache
// misses overlap instead of each stalling its command (cold values are
// loaded before the locks by the server, through ColdID and Install). It takes no lock and changes nothing (atomic loads only, which
// the compiler keeps).
func (db *DB) Prefetch(keys [][]byte) {
	// Two passes, so that each is a run of independent loads: the slots
	// of all keys, then the entries found there.
	var found [32]*Entry
	for len(keys) > 0 {
		n := min(len(keys), len(found))
		for i, k := range keys[:n] {
			h := hashKey(k)
			found[i] = db.shards[shardIndex(h)].m.home(h)
		}
		for _, e := range found[:n] {
			if e != nil {
				e.lru.Load()
			}
		}
		keys = keys[n:]
	}
}

// Peek is Get without updating the access time (OBJECT, TYPE with
// NO-TOUCH, SCAN). It loads a cold value, as Get.
func (db *DB) Peek(key []byte) *Entry {
	e := db.PeekRef(key)
	if e != nil {
		db.Load(e)
	}
	return e
}

// PeekRef is Peek without loading a cold value (GetRef).
func (db *DB) PeekRef(key []byte) *Entry {
	h, s := db.locate(key)
	s.mu.RLock()
	e := s.m.get(h, key)
	var exp int64
	if e != nil {
		exp = e.expire
	}
	s.mu.RUnlock()
	if e != nil && exp != 0 && exp <= db.expiryNow() {
		db.expireIfSame(s, e)
		return nil
	}
	if e != nil {
		db.capture(e)
	}
	return e
}

// StoredEntry returns the entry stored under key, live or expired (Redis's
// dictFind, which DEBUG OBJECT uses): it removes nothing, calls no hook
// and leaves the access time. A cold value is not loaded (Load does).
// The caller holds key's tag lock.
func (db *DB) StoredEntry(key []byte) *Entry {
	h, s := db.locate(key)
	s.mu.RLock()
	e := s.m.get(h, key)
	s.mu.RUnlock()
	return e
}

// StoredLive is StoredEntry of an entry that has not expired (nil for an
// expired one, which it leaves in place, as Stored does).
func (db *DB) StoredLive(key []byte) *Entry {
	h, s := db.locate(key)
	s.mu.RLock()
	e := s.m.get(h, key)
	if e != nil && e.expire != 0 && e.expire <= db.expiryNow() {
		e = nil
	}
	s.mu.RUnlock()
	return e
}

// Stored reports whether an entry is stored under key, live or expired,
// and whether it is expired — Redis's dictFind and keyIsExpired, which
// WATCH needs: it removes nothing and calls no hook. The caller must not
// hold key's shard lock (the hooks run under it).
func (db *DB) Stored(key []byte) (stored, expired bool) {
	h, s := db.locate(key)
	s.mu.RLock()
	e := s.m.get(h, key)
	if e != nil {
		stored, expired = true, e.expire != 0 && e.expire <= db.expiryNow()
	}
	s.mu.RUnlock()
	return stored, expired
}

// Expired reports whether key is stored with an expiry that has passed
// (Stored's expired). When no key of key's shard has an expiry, it costs
// a hash and a bit test: no lookup (a replica asks it of every key of its
// master's stream, whose keys seldom expire).
func (db *DB) Expired(key []byte) bool {
	h := hashKey(key)
	si := shardIndex(h)
	if db.volShards[si>>6].Load()&(1<<(si&63)) == 0 {
		return false
	}
	s := &db.shards[si]
	s.mu.RLock()
	e := s.m.get(h, key)
	expired := e != nil && e.expire != 0 && e.expire <= db.expiryNow()
	s.mu.RUnlock()
	return expired
}

// expireIfSame removes the expired entry e if it is still in the shard
// (not while HoldExpired).
func (db *DB) expireIfSame(s *shard, e *Entry) {
	if db.HoldExpired.Load() {
		return
	}
	s.mu.Lock()
	if db.removeLocked(s, e) && db.OnExpire != nil {
		db.OnExpire(e.Key())
	}
	s.mu.Unlock()
}

// modified runs the OnModify hook.
func (db *DB) modified(key string) {
	if db.OnModify != nil {
		db.OnModify(key)
	}
}

// removeLocked removes e from s, if there, and reports whether it was.
// The caller holds s.mu.
func (db *DB) removeLocked(s *shard, e *Entry) bool {
	if !s.m.remove(entryHash(e), e) {
		return false
	}
	if e.expire != 0 {
		delete(s.volatile, e)
	}
	db.addMem(e, e.memParts(), memParts{})
	db.freeColdLocked(e)
	return true
}

// addVolatileLocked records that e has an expiry. The caller holds s.mu.
func (db *DB) addVolatileLocked(s *shard, si int, e *Entry) {
	if s.volatile == nil {
		s.volatile = make(map[*Entry]struct{})
	}
	s.volatile[e] = struct{}{}
	db.markVolatile(si)
}

// Set stores e under key, replacing any previous entry, and returns the
// entry stored: e itself, or, when e is keyed for another key (RENAME,
// MOVE), a new entry its value and expiry moved to (e is then not to be
// used). The expiry is kept as it is (0 for a fresh entry). The caller
// holds key's tag lock exclusively.
func (db *DB) Set(key []byte, e *Entry) *Entry { return db.Insert(key, e, e.expire) }

// Insert stores e under key with the expiration at (unix ms, 0: none),
// replacing any entry there, as Set followed by SetExpire would but with
// one lookup and one lock: a load's way of storing the keys it read. It
// calls no OnModify hook (OnCreate for a new key, as Set). It returns the
// entry stored.
func (db *DB) Insert(key []byte, e *Entry, at int64) *Entry {
	if e.Key() != string(key) {
		e = e.rekeyed(key)
	}
	db.captureKey(key) // the entry replaced
	db.stamp(e)
	e.expire = at
	h := hashKey(key)
	si := shardIndex(h)
	s := &db.shards[si]
	s.mu.Lock()
	old, created := db.storeLocked(s, si, h, e)
	s.mu.Unlock()
	db.stored(e, old, created)
	return e
}

// InsertString is Insert of a string entry holding a copy of v.
func (db *DB) InsertString(key, v []byte, at int64) *Entry {
	e := newEntry(key, KindString, len(v))
	e.setStr(v)
	return db.Insert(key, e, at)
}

// storeLocked puts e, a stamped entry of hash h, in shard s (index si),
// whose lock the caller holds, and returns the entry it replaced and
// whether the key is new (none, or an expired one); the caller then
// calls stored, without the lock.
func (db *DB) storeLocked(s *shard, si int, h uint64, e *Entry) (old *Entry, created bool) {
	before := e.memParts() // accounted already if e is stored there
	if e.Kind != KindString {
		e.aux = packSize(e.objMem())
	}
	old = s.m.put(h, e)
	created = old == nil || old.expire != 0 && old.expire <= db.expiryNow()
	if old != nil && old != e {
		if old.expire != 0 {
			delete(s.volatile, old)
			if db.OnExpire != nil && old.expire <= db.expiryNow() {
				db.OnExpire(old.Key())
			}
		}
		db.addMem(old, old.memParts(), memParts{})
		db.freeColdLocked(old)
		db.storedColdLocked(e)
	}
	if old == nil {
		db.storedColdLocked(e)
	}
	if old == e {
		db.addMem(e, before, e.memParts())
	} else {
		db.addMem(e, memParts{}, e.memParts())
	}
	if e.expire != 0 {
		db.addVolatileLocked(s, si, e)
	}
	if created && db.OnCreate != nil {
		db.OnCreate(e.Key(), e.Kind)
	}
	db.modified(e.Key())
	return old, created
}

// stored records the access of a store (storeLocked's results).
func (db *DB) stored(e, old *Entry, created bool) {
	switch {
	case created:
		db.created(e)
	case old != e:
		db.overwritten(e, old)
	default:
		db.touch(e)
	}
}

// Updated re-accounts e's memory after its value changed in place. The
// caller holds key's tag lock exclusively.
func (db *DB) Updated(key []byte, e *Entry) {
	db.modified(e.Key())
	db.Resized(key, e)
}

// SignalModified reports key as modified without a change of its own (the
// OnModify hook: WATCH, tracking), as Redis's signalModifiedKey after a
// module closes a key it opened for writing, even when it wrote nothing.
// The caller holds key's tag lock exclusively.
func (db *DB) SignalModified(key []byte) { db.modified(string(key)) }

// Resized re-accounts the memory of e, key's live entry, after a change
// that is not a modification of its value (an encoding conversion): no
// OnModify, so WATCH is not touched, as Redis's conversions do not signal
// the key. The caller holds key's tag lock exclusively.
func (db *DB) Resized(key []byte, e *Entry) {
	if e.Kind == KindString {
		return // strings are accounted as they change
	}
	before := e.memParts()
	e.aux = packSize(e.objMem())
	db.addMem(e, before, e.memParts())
}

// OverwriteString replaces the value of e, a live string entry of this
// database, with v (copied), in place. The caller holds its key's tag lock
// exclusively; the expiry is kept.
func (db *DB) OverwriteString(key []byte, e *Entry, v []byte) {
	db.changeString(e, func() { e.setStr(v) })
	db.modified(e.Key())
}

// SetStringBuf makes b the value of e, a live string entry of this
// database, taking b over (APPEND, SETRANGE, PFADD: the caller must not
// use b afterwards): a short value is copied inline. The encoding marks
// are kept. The caller holds its key's tag lock exclusively and calls
// Updated afterwards.
func (db *DB) SetStringBuf(e *Entry, b []byte) {
	db.changeString(e, func() { e.setStrBuf(b) })
}

// GrowString makes the value of e, a live string entry of this database,
// at least n bytes long, zero-filled, and returns it (SETRANGE, SETBIT).
// The caller holds its key's tag lock exclusively and calls Updated
// afterwards.
func (db *DB) GrowString(e *Entry, n int) []byte {
	v := e.Str()
	if old := len(v); n > old {
		// In place when an outside buffer has room (an inline value's
		// slice has none); else amortized, as append grows.
		b := slices.Grow(v, n-old)[:n]
		clear(b[old:])
		db.SetStringBuf(e, b)
	}
	return e.Str()
}

// changeString runs fn, which changes e's string value, and accounts the
// change in memory.
func (db *DB) changeString(e *Entry, fn func()) {
	before := e.memParts()
	fn()
	db.addMem(e, before, e.memParts())
}

// Delete removes key and reports whether a live entry was there.
func (db *DB) Delete(key []byte) bool { return db.remove(key, false, false) }

// Evict is Delete for a key evicted under maxmemory: a string's buffer
// is recycled for the next value of its size class (bufpool.go). The
// caller holds key's tag lock exclusively and reads nothing of the value
// afterwards.
func (db *DB) Evict(key []byte) bool { return db.remove(key, false, true) }

// remove is Delete, or Detach when detach: a cold entry then keeps its
// tier record, which moves with the entry. With recycle, the removed
// entry's string buffer goes to the free lists.
func (db *DB) remove(key []byte, detach, recycle bool) bool {
	db.captureKey(key)
	h, s := db.locate(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.m.get(h, key)
	if e == nil {
		return false
	}
	live := e.expire == 0 || e.expire > db.expiryNow()
	if detach && e.isColdLocked() {
		// The record goes with the entry: removeLocked counts it out
		// without freeing it, storeLocked counts it in again.
		e.flags |= flagDetached
	}
	db.removeLocked(s, e)
	switch {
	case live:
		db.modified(e.Key())
	case db.OnExpire != nil:
		db.OnExpire(e.Key())
	}
	if recycle {
		e.recycleStr()
	}
	return live
}

// SetExpire sets the expiry of the live key (unix ms, 0 to persist) and
// reports whether the key exists.
func (db *DB) SetExpire(key []byte, at int64) bool {
	db.captureKey(key)
	h := hashKey(key)
	si := shardIndex(h)
	s := &db.shards[si]
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.m.get(h, key)
	if e == nil {
		return false
	}
	switch {
	case at == 0 && e.expire != 0:
		delete(s.volatile, e)
	case at != 0 && e.expire == 0:
		db.addVolatileLocked(s, si, e)
	}
	e.expire = at
	db.modified(e.Key())
	return true
}

// addMem accounts the change of e's memory from before to after, on a
// stripe picked by its address.
func (db *DB) addMem(e *Entry, before, after memParts) {
	if before == after {
		return
	}
	m := &db.mem[uintptr(unsafe.Pointer(e))>>6%memStripes]
	m.n.Add(after.all - before.all)
	if d := after.base - before.base; d != 0 {
		m.base.Add(d)
	}
}

// Reserve makes room for n more keys, spread over the shards as keys are
// (an RDB load's RESIZEDB hint): the tables are rehashed once now rather
// than many times as the keys arrive. It only grows tables.
func (db *DB) Reserve(n int) {
	per := n / NumShards
	if per < 16 {
		return // small: the tables grow as cheaply
	}
	per += per / 8 // the shards' counts vary around the mean
	for i := range db.shards {
		s := &db.shards[i]
		s.mu.Lock()
		s.m.reserve(per)
		s.mu.Unlock()
	}
}

// Len returns the number of keys, counting expired keys not yet removed
// (as Redis's DBSIZE does).
func (db *DB) Len() int {
	n := 0
	for i := range db.shards {
		n += db.shards[i].m.len() // an atomic load: no shard lock
	}
	return n
}

// Volatile returns the number of keys with an expiry.
func (db *DB) Volatile() int {
	n := 0
	for i := db.NextVolatileShard(0); i >= 0; i = db.NextVolatileShard(i + 1) {
		s := &db.shards[i]
		s.mu.RLock()
		n += len(s.volatile)
		s.mu.RUnlock()
	}
	return n
}

// Mem returns the bytes accounted to this database.
func (db *DB) Mem() int64 {
	var n int64
	for i := range db.mem {
		n += db.mem[i].n.Load()
	}
	return n
}

// ValuesMem returns the part of Mem that the values hold beyond their
// entries (what demoting every value would free; Entry.ValueMem summed).
func (db *DB) ValuesMem() int64 {
	var n int64
	for i := range db.mem {
		n += db.mem[i].n.Load() - db.mem[i].base.Load()
	}
	return n
}

// Flush removes every key. The caller holds the global lock exclusively.
//
// No snapshot may be running (it would lose the entries it has not
// captured yet): the caller completes it first.
func (db *DB) Flush() {
	for i := range db.shards {
		s := &db.shards[i]
		s.mu.Lock()
		if db.cold.Load() > 0 {
			s.m.each(func(_ uint32, e *Entry) bool {
				db.freeColdLocked(e)
				return true
			})
		}
		s.m.reset()
		s.volatile = nil
		s.mu.Unlock()
	}
	for i := range db.mem {
		db.mem[i].n.Store(0)
		db.mem[i].base.Store(0)
	}
}

// Swap exchanges the contents of two databases. The caller holds the
// global lock exclusively; the shard locks are taken too, for the readers
// that take no key locks (SCAN, DBSIZE, RANDOMKEY).
//
// No snapshot may be running (see Flush).
func (db *DB) Swap(other *DB) {
	if db == other {
		return
	}
	for i := range db.shards {
		a, b := &db.shards[i], &other.shards[i]
		a.mu.Lock()
		b.mu.Lock()
		a.m.swap(&b.m)
		a.volatile, b.volatile = b.volatile, a.volatile
		if len(a.volatile) > 0 {
			db.markVolatile(i)
		}
		if len(b.volatile) > 0 {
			other.markVolatile(i)
		}
		b.mu.Unlock()
		a.mu.Unlock()
	}
	for i := range db.mem {
		for _, p := range [...][2]*atomic.Int64{{&db.mem[i].n, &other.mem[i].n}, {&db.mem[i].base, &other.mem[i].base}} {
			n := p[0].Load()
			p[0].Store(p[1].Load())
			p[1].Store(n)
		}
	}
	for _, p := range [...][2]*atomic.Int64{{&db.cold, &other.cold}, {&db.coldMem, &other.coldMem}} {
		n := p[0].Load()
		p[0].Store(p[1].Load())
		p[1].Store(n)
	}
}

// ForEach calls fn for every live key until fn returns false. It holds one
// shard's lock at a time, so fn must not call into the DB; for a
// consistent view the caller holds the global lock exclusively. An entry
// may be cold (cold.go): a caller that reads values calls Load after
// ForEach returns, or reads the cold record.
func (db *DB) ForEach(fn func(key string, e *Entry) bool) { db.forEach(fn, true) }

// ForEachStored is ForEach over every stored key, expired ones included
// (a snapshot saves them, as Redis's rdbSaveDb: a load counts them).
func (db *DB) ForEachStored(fn func(key string, e *Entry) bool) { db.forEach(fn, false) }

func (db *DB) forEach(fn func(key string, e *Entry) bool, liveOnly bool) {
	now := db.expiryNow()
	for i := range db.shards {
		s := &db.shards[i]
		s.mu.RLock()
		more := true
		s.m.each(func(_ uint32, e *Entry) bool {
			if liveOnly && e.expire != 0 && e.expire <= now {
				return true
			}
			more = fn(e.Key(), e)
			return more
		})
		s.mu.RUnlock()
		if !more {
			return
		}
	}
}

// Random returns a random live key, or "" and false when there is none.
func (db *DB) Random(rand func(n int) int) (string, bool) {
	now := db.expiryNow()
	// Like Redis, remove the expired keys met on the way: each try either
	// finds a live key or removes one, so this ends. While HoldExpired
	// nothing is removed: after 100 expired keys one of them is returned,
	// as Redis 7.2's dbRandomKey does (7.0 loops forever there).
	for tries := 0; ; tries++ {
		k, e, exp, s, ok := db.randomEntry(rand)
		if !ok {
			return "", false
		}
		if exp == 0 || exp > now || tries >= 100 && db.HoldExpired.Load() {
			return k, true
		}
		db.expireIfSame(s, e)
	}
}

// Sampled is a key picked by Sample, with what eviction ranks it by.
type Sampled struct {
	Key    string
	Expire int64  // unix ms; 0: none
	Access uint32 // the access field (access.go), for IdleOf and Access.Freq
	// Hash is 42 bits of Key's hash (never 0): keys of different Hash
	// differ, so that a pool of candidates compares numbers, not keys.
	Hash uint64
}

// Sample appends to out up to n keys picked at random (consecutive slots
// of random shards, as Redis's dictGetSomeKeys), among the keys with an
// expiry when volatile is set, expired keys included. It takes each
// shard's lock in turn, and none of the keys' locks: a sampled key may be
// gone or changed by the time the caller locks it.
func (db *DB) Sample(n int, volatile bool, rand func(n int) int, out []Sampled) []Sampled {
	start, got := rand(numShards), 0
	for j := 0; j < numShards && got < n; j++ {
		si := (start + j) % numShards
		if volatile && db.volShards[si>>6].Load()&(1<<(si&63)) == 0 {
			continue
		}
		s := &db.shards[si]
		s.mu.RLock()
		if volatile {
			for e := range s.volatile {
				if got == n {
					break
				}
				out = append(out, Sampled{e.Key(), e.expire, e.lru.Load(), sampleHash(si, fragHash(entryHash(e)))})
				got++
			}
		} else if s.m.len() > 0 {
			// The fragments tell the empty slots, without loading
			// their entry pointers.
			size := s.m.size()
			j := rand(size)
			for i := 0; i < size && got < n; i++ {
				if f := s.m.hs[j]; f >= 2 {
					if e := s.m.at(j); e != nil {
						out = append(out, Sampled{e.Key(), e.expire, e.lru.Load(), sampleHash(si, f)})
						got++
					}
				}
				if j++; j == size {
					j = 0
				}
			}
		}
		s.mu.RUnlock()
	}
	return out
}

// sampleHash is Sampled.Hash of a key in shard si with table fragment f.
func sampleHash(si int, f uint32) uint64 { return uint64(si)<<32 | uint64(f) }

// randomEntry picks a random entry (with its expiry, read under the shard
// lock): a random element of the first non-empty shard from a random start.
func (db *DB) randomEntry(rand func(n int) int) (string, *Entry, int64, *shard, bool) {
	start := rand(numShards)
	for j := 0; j < numShards; j++ {
		s := &db.shards[(start+j)%numShards]
		s.mu.RLock()
		if s.m.len() > 0 {
			e := s.m.random(rand(s.m.size()))
			k, exp := e.Key(), e.expire
			s.mu.RUnlock()
			return k, e, exp, s, true
		}
		s.mu.RUnlock()
	}
	return "", nil, 0, nil, false
}

// Scan hands fn entries that may be cold (cold.go): fn reads no value
// without Load.
//
// Scan returns keys in ascending order of their hash (its shard index and
// the fragment the table keeps: equal ones are returned together), starting at cursor,
// until about count keys were collected, and the cursor to continue from
// (0 when the iteration is complete). Every key that exists for the whole
// iteration is returned at least once, whatever else is added or removed.
// Expired keys are skipped (but counted, as Redis counts them) and
// removed, with the OnExpire hook, as lazy expiry removes them (not while
// HoldExpired).
//
// Like Redis's, the work per call is bounded by count, not by how sparse
// the keyspace is: empty shards cost nothing, so an empty database ends
// at once (cursor 0) and one with fewer than count keys is returned whole
// by the first call, as Redis returns a small dict.
func (db *DB) Scan(cursor uint64, count int, fn func(key string, e *Entry)) uint64 {
	count = max(count, 1)
	now := db.expiryNow()
	type hk struct {
		h    uint64
		k    string
		e    *Entry
		live bool // read under the shard lock, which guards expire
	}
	var batch []hk
	found := 0
	for si := shardIndex(cursor); si < numShards; si++ {
		s := &db.shards[si]
		batch = batch[:0]
		s.mu.RLock()
		s.m.each(func(f uint32, e *Entry) bool {
			if h := uint64(si)<<(64-shardBits) | uint64(f)<<fragBits; h >= cursor {
				batch = append(batch, hk{h, e.Key(), e, e.expire == 0 || e.expire > now})
			}
			return true
		})
		s.mu.RUnlock()
		slices.SortFunc(batch, func(a, b hk) int {
			switch {
			case a.h < b.h:
				return -1
			case a.h > b.h:
				return 1
			}
			return 0
		})
		for i, x := range batch {
			if found >= count && x.h != batch[i-1].h {
				return x.h
			}
			if x.live {
				fn(x.k, x.e)
			} else {
				db.expireIfSame(s, x.e) // as Redis's SCAN, which expires what it meets
			}
			found++
		}
		if si == numShards-1 {
			return 0
		}
		cursor = uint64(si+1) << (64 - shardBits)
		if found >= count {
			return cursor
		}
	}
	return 0
}

// ExpireCandidates appends to out the expired keys among up to max keys
// with an expiry in shard si; the active expiry cycle then locks each one
// and calls DeleteExpired.
func (db *DB) ExpireCandidates(si int, max int, out []string) []string {
	s := &db.shards[si%numShards]
	now := db.expiryNow()
	s.mu.RLock()
	for e := range s.volatile {
		if max == 0 {
			break
		}
		max--
		if e.expire <= now {
			out = append(out, e.Key())
		}
	}
	s.mu.RUnlock()
	return out
}

// NumShards is the number of shards ExpireCandidates cycles over.
const NumShards = numShards

// markVolatile records that shard si holds keys with an expiry. The
// caller holds the shard's lock.
func (db *DB) markVolatile(si int) {
	w, bit := &db.volShards[si>>6], uint64(1)<<(si&63)
	if w.Load()&bit == 0 {
		w.Or(bit)
	}
}

// NextVolatileShard returns the first shard at or after from (0 <= from <
// NumShards) that may hold keys with an expiry, or -1 when there is none
// up to the last shard. Shards without volatile keys cost a bit test.
func (db *DB) NextVolatileShard(from int) int {
	for wi := from >> 6; wi < len(db.volShards); wi++ {
		w := db.volShards[wi].Load()
		if wi == from>>6 {
			w &= ^uint64(0) << (from & 63)
		}
		if w != 0 {
			return wi<<6 | bits.TrailingZeros64(w)
		}
	}
	return -1
}

// SampleExpired looks at up to max keys with an expiry in shard si, in
// the map's (random) order, and appends the expired ones to out. It
// returns out and the number of keys looked at; 0 means the shard has no
// volatile keys left, and the shard is then skipped by NextVolatileShard
// until a key gains an expiry there. The active expiry cycle then locks
// each candidate and calls DeleteExpired.
func (db *DB) SampleExpired(si int, max int, out []string) ([]string, int) {
	s := &db.shards[si]
	now := db.expiryNow()
	sampled := 0
	s.mu.RLock()
	for e := range s.volatile {
		if sampled == max {
			break
		}
		sampled++
		if e.expire <= now {
			out = append(out, e.Key())
		}
	}
	s.mu.RUnlock()
	if sampled == 0 {
		s.mu.Lock()
		if len(s.volatile) == 0 {
			db.volShards[si>>6].And(^(uint64(1) << (si & 63)))
		}
		s.mu.Unlock()
	}
	return out, sampled
}

// DeleteExpired removes key if it is expired and reports whether it did.
// The caller holds key's tag lock exclusively.
func (db *DB) DeleteExpired(key []byte) bool {
	h, s := db.locate(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.m.get(h, key)
	if e == nil || e.expire == 0 || e.expire > db.expiryNow() {
		return false
	}
	if !db.removeLocked(s, e) {
		return false
	}
	db.modified(e.Key())
	return true
}

// SetString stores v (copied) as key's string value. It overwrites the
// existing entry in place (reusing its buffer when the size fits), so an
// overwrite neither allocates a key nor touches the map. With keepTTL the
// key's expiry stays, otherwise it is cleared. The caller holds key's tag
// lock exclusively.
func (db *DB) SetString(key, v []byte, keepTTL bool) *Entry {
	db.captureKey(key) // the value overwritten in place
	h, s := db.locate(key)
	s.mu.Lock()
	e := s.m.get(h, key)
	if e != nil && e.expire != 0 && e.expire <= db.expiryNow() {
		db.removeLocked(s, e)
		if db.OnExpire != nil {
			db.OnExpire(e.Key())
		}
		e = nil
	}
	if e == nil {
		// Stored under the lock already held: one hash and one probe.
		e = newEntry(key, KindString, len(v))
		e.setStr(v)
		db.stamp(e)
		old, created := db.storeLocked(s, shardIndex(h), h, e)
		s.mu.Unlock()
		db.stored(e, old, created)
		return e
	}
	db.changeString(e, func() {
		db.dropColdLocked(e) // a full overwrite reads nothing
		if e.Kind != KindString {
			e.Kind, e.Obj, e.aux = KindString, nil, 0
		}
		e.setStr(v)
	})
	if !keepTTL && e.expire != 0 {
		delete(s.volatile, e)
		e.expire = 0
	}
	db.modified(e.Key())
	s.mu.Unlock()
	db.touch(e)
	return e
}
