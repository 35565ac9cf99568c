package keyspace

import (
	"fmt"
	"sync"
	"unsafe"
)

// Cold entries: a value that went idle can move to the disk tier (package
// tier, wired in by the server), leaving its entry in memory with the key,
// Kind, expiry, encoding marks and access field; the value is replaced by
// a reference to a tier record (its ID and the memory the value held).
//
// The entry's access word carries the cold mark (coldBit), so that
// whether a key is cold can be read with no lock at all (IsCold), before
// a command takes its locks. Under the locks, flagCold says the same.
//
// What never reads the disk: everything that only needs the key, the
// kind or the expiry (Len, Scan, Sample, Random, StoredEntry, SetExpire,
// Delete, Detach, Set over a cold entry, SetString's full overwrite, Swap,
// Flush, expiry): removing a cold entry frees its record (Tier.Free),
// moving it (RENAME's Detach and Set, MOVE, SWAPDB) moves the reference.
// What does: Get and Peek, which hand out a value, load a cold one
// synchronously through the DB's Tier, under the caller's tag lock; and
// Load, for the callers of ForEach and Scan that read values.
//
// Moving a value either way (Demote, Install, the loads) is invisible:
// no OnModify, no OnCreate, no access recorded; only the memory
// accounting changes.
//
// Who changes a value's place: Demote needs the key's tag lock
// exclusively (nobody reads the value meanwhile); a load needs the tag
// lock shared at least, and loads of one entry are serialized by a
// striped mutex (loadMu) so that two readers sharing a tag load it once.
// The swap itself (Obj, flags, the cold mark) happens under the shard
// mutex, so that ColdID may read the reference holding only that.

// coldBit marks a cold entry in Entry.lru.
const coldBit = 1 << 30

// flagCold marks a cold entry in Entry.flags (read under the key's locks).
const flagCold = 1 << 4

// coldRef is a cold entry's Obj.
type coldRef struct {
	id     uint64 // the tier record
	size   int64  // the record's payload bytes
	mem    int64  // what the value held in memory (MemSize beyond the entry)
	effort int64  // what the server noted of the value (Demote), for UNLINK's bookkeeping
}

// coldRefMem is what a coldRef costs in memory: its allocation and the
// interface it sits in.
const coldRefMem = int64(unsafe.Sizeof(coldRef{})) + 8

// MemSize accounts a cold collection's reference (Sizer).
func (r *coldRef) MemSize() int64 { return coldRefMem }

// Tier is where a database's cold values live: the server's disk tier.
// It is shared by the databases of a server (DB.Tier).
type Tier interface {
	// Load reads and decodes the record id of a cold value of kind k:
	// a string's bytes (str, which the entry then keeps), or a
	// collection (obj, a Sizer). It is called under the key's tag lock
	// (the synchronous path: a value needed and not loaded before the
	// locks), and with no keyspace mutex but loadMu held.
	Load(k Kind, id uint64) (str []byte, obj any, err error)
	// Free forgets the record id (size payload bytes): the value is gone
	// (deleted, overwritten, expired, flushed). It is called under a
	// shard mutex and must not block or call into the DB.
	Free(id uint64, size int64)
}

// LoadError is what Get and Peek panic with when a cold value cannot be
// read (a failing disk, a corrupt record): never a wrong value. The
// server's handler recovery turns it into an error reply.
type LoadError struct {
	Key string
	Err error
}

func (e *LoadError) Error() string {
	return fmt.Sprintf("cannot load key %q from the disk tier: %v", e.Key, e.Err)
}

func (e *LoadError) Unwrap() error { return e.Err }

// loadMu serializes loads of one entry, by its address.
var loadMu [64]struct {
	sync.Mutex
	_ [56]byte
}

func loadLock(e *Entry) *sync.Mutex { return &loadMu[uintptr(unsafe.Pointer(e))>>6%64].Mutex }

// IsCold reports whether e's value is on disk. It takes no lock: a
// caller without e's tag lock gets an answer that may be stale at once.
func (e *Entry) IsCold() bool { return e.lru.Load()&coldBit != 0 }

// isColdLocked is IsCold for a caller holding e's tag lock or shard mutex.
func (e *Entry) isColdLocked() bool { return e.flags&flagCold != 0 }

// ColdEffort returns what Demote noted of a cold entry's value, and
// false for a value in memory. The caller holds the key's tag lock.
func (e *Entry) ColdEffort() (int64, bool) {
	if !e.isColdLocked() {
		return 0, false
	}
	return e.Obj.(*coldRef).effort, true
}

// ColdRecord returns the record of a cold entry and its payload size. The
// caller holds the key's tag lock (the entry cannot change place).
func (e *Entry) ColdRecord() (id uint64, size int64, ok bool) {
	if !e.isColdLocked() {
		return 0, 0, false
	}
	r := e.Obj.(*coldRef)
	return r.id, r.size, true
}

// ColdID returns the kind and record ID of key's value when the key is
// stored and cold, holding only the shard mutex (the pre-lock loads: the
// answer may be stale once returned; Install checks it again under the
// locks).
func (db *DB) ColdID(key []byte) (Kind, uint64, bool) {
	h, s := db.locate(key)
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.m.get(h, key)
	// The cold mark first: without the tag lock, a hot entry's flags and
	// value belong to their writer; a cold one's change only under the
	// shard mutex held here.
	if e == nil || !e.IsCold() {
		return KindNone, 0, false
	}
	return e.Kind, e.Obj.(*coldRef).id, true
}

// ValueMem is what e's value holds in memory beyond the entry: what
// demoting it would free. The caller holds the key's tag lock.
func (e *Entry) ValueMem() int64 {
	if e.isColdLocked() {
		return 0
	}
	return e.MemSize() - e.allocSize() - slotOverhead
}

// Demote makes e, key's live entry, cold: its value is now the tier
// record id (size payload bytes), which the caller wrote. effort is what
// the caller wants to know of the value while it is cold, without reading
// it (ColdEffort: the server's free effort, for UNLINK). Nothing but the
// memory accounting sees it. The caller holds key's tag lock exclusively
// and has captured e for a running snapshot (CaptureEntry) first.
func (db *DB) Demote(e *Entry, id uint64, size, effort int64) {
	s := db.shardOf(e)
	s.mu.Lock()
	defer s.mu.Unlock()
	if e.isColdLocked() {
		return
	}
	before := e.memParts()
	r := &coldRef{id: id, size: size, mem: e.ValueMem(), effort: effort}
	e.Obj = r
	e.flags = e.flags&^(flagExt|flagBoxed|flagPooled) | flagCold
	if e.Kind == KindString {
		e.slen, e.aux = 0, 0
	} else {
		e.aux = packSize(coldRefMem)
	}
	e.lru.Or(coldBit)
	db.addMem(e, before, e.memParts())
	db.cold.Add(1)
	db.coldMem.Add(r.mem)
}

// Install makes key's entry hot again with a value read from the tier
// record id before the key's lock was taken (a string's bytes, which the
// entry keeps, or a collection), if the entry stored under key is still
// cold with that record; it reports whether it did, and frees the record
// when it did. Anything else (loaded meanwhile, deleted, renamed, demoted
// again to another record) leaves the entry alone. The caller holds
// key's tag lock, shared at least.
func (db *DB) Install(key []byte, id uint64, str []byte, obj any) bool {
	h, s := db.locate(key)
	s.mu.RLock()
	e := s.m.get(h, key)
	s.mu.RUnlock()
	if e == nil || e.lru.Load()&coldBit == 0 {
		return false
	}
	mu := loadLock(e)
	mu.Lock()
	defer mu.Unlock()
	return db.installLoadLocked(e, id, str, obj)
}

// installLoadLocked installs a value in e if e is still stored, cold,
// with record id. The caller holds e's loadLock.
func (db *DB) installLoadLocked(e *Entry, id uint64, str []byte, obj any) bool {
	s := db.shardOf(e)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !e.isColdLocked() || s.m.get(entryHash(e), unsafe.Slice(unsafe.StringData(e.Key()), len(e.Key()))) != e {
		return false
	}
	r := e.Obj.(*coldRef)
	if r.id != id {
		return false
	}
	before := e.memParts()
	e.flags &^= flagCold
	if e.Kind == KindString {
		e.Obj = nil
		e.setStrBuf(str[:len(str):len(str)]) // accounted as SetString's copy
	} else {
		e.Obj = obj
		e.aux = packSize(e.objMem())
	}
	e.lru.And(^uint32(coldBit))
	db.addMem(e, before, e.memParts())
	db.cold.Add(-1)
	db.coldMem.Add(-r.mem)
	if db.Tier != nil {
		db.Tier.Free(r.id, r.size)
	}
	return true
}

// Load makes e's value available, reading it from the tier if e is
// cold (synchronously, under the caller's tag lock, shared at least). It
// panics with a *LoadError when the value cannot be read.
func (db *DB) Load(e *Entry) {
	if e.lru.Load()&coldBit == 0 {
		return
	}
	mu := loadLock(e)
	mu.Lock()
	defer mu.Unlock()
	if !e.isColdLocked() {
		return // loaded meanwhile by another reader
	}
	r := e.Obj.(*coldRef)
	if db.Tier == nil {
		panic(&LoadError{Key: e.Key(), Err: fmt.Errorf("no tier")})
	}
	str, obj, err := db.Tier.Load(e.Kind, r.id)
	if err != nil {
		panic(&LoadError{Key: e.Key(), Err: err})
	}
	db.installLoadLocked(e, r.id, str, obj)
}

// freeColdLocked counts out e, a cold entry leaving the database, and
// frees its record unless Detach detached it. The caller holds e's shard
// mutex.
func (db *DB) freeColdLocked(e *Entry) {
	if !e.isColdLocked() {
		return
	}
	r := e.Obj.(*coldRef)
	db.cold.Add(-1)
	db.coldMem.Add(-r.mem)
	if e.flags&flagDetached == 0 && db.Tier != nil {
		db.Tier.Free(r.id, r.size)
	}
}

// storedColdLocked counts in e, a cold entry stored in the database (a
// detached one moved here, or RENAME's copy of one). The caller holds
// e's shard mutex.
func (db *DB) storedColdLocked(e *Entry) {
	if !e.isColdLocked() {
		return
	}
	e.flags &^= flagDetached
	db.cold.Add(1)
	db.coldMem.Add(e.Obj.(*coldRef).mem)
}

// shardOf is the shard e is stored in.
func (db *DB) shardOf(e *Entry) *shard { return &db.shards[shardIndex(entryHash(e))] }

// dropColdLocked turns e, a cold string about to be overwritten in place
// (SetString), into an empty hot string, freeing its record. The caller
// holds its shard mutex and accounts the memory.
func (db *DB) dropColdLocked(e *Entry) {
	if !e.isColdLocked() {
		return
	}
	db.freeColdLocked(e)
	e.flags &^= flagCold
	e.Obj, e.slen, e.aux = nil, 0, 0
	e.lru.And(^uint32(coldBit))
}

// Detach is Delete for an entry the caller stores again, under another
// key or in another database (RENAME, MOVE): a cold entry's record is
// not freed, it moves with the entry.
func (db *DB) Detach(key []byte) bool { return db.remove(key, true, false) }

// flagDetached marks a cold entry Detach removed: its record belongs to
// whoever stores it again.
const flagDetached = 1 << 5

// ColdStats returns the number of cold entries and the memory their
// values held before they moved to disk.
func (db *DB) ColdStats() (n, mem int64) { return db.cold.Load(), db.coldMem.Load() }

// ColdAccess reports whether an access word read before (Sampled.Access)
// carried the cold mark.
func ColdAccess(v uint32) bool { return v&coldBit != 0 }
