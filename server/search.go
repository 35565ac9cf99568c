package server

import (
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/hotkv/hotkv/hash"
	"github.com/hotkv/hotkv/keyspace"
	"github.com/hotkv/hotkv/lock"
	"github.com/hotkv/hotkv/search"
)

// Search (FT.*) joins the executor here. Indexes follow the hashes of
// database 0 whose keys start with one of their prefixes, as RediSearch's.
//
// Locking (LOCKING.md): an index's lock is the tag lock of its name —
// RediSearch declares the index name as the key of FT.* commands (first
// key 1), so FT.SEARCH and FT.INFO lock it shared through their key spec.
// A write command also locks, exclusively, every index one of its keys
// matches (lockFor adds the index names to the keys it locks), in the same
// sorted pass as its keys. A script with allow-key-locking gets the
// indexes of its declared keys; a dynamic key that needs another index is
// refused. FT.CREATE, FT.DROPINDEX and FT.ALTER take the global lock.
//
// FLUSHALL and FLUSHDB drop every index, as in RediSearch.
//
// Indexing is synchronous: the keyspace's OnModify and OnExpire hooks
// mark the keys that changed (searchState.dirty), and the command that
// changed them, before it releases its locks (complete), re-reads each of
// them and updates the indexes they match. Active expiry and eviction do
// the same under the key's lock. Each index also has a mutex of its own,
// which guards its data: a leaf, held only while it is read or updated.
type searchState struct {
	// mu serialises changes to the registry (FT.CREATE, FT.DROPINDEX;
	// both under the global lock); readers load list without it.
	mu   sync.Mutex
	list atomic.Pointer[[]*ftIndex]

	// aliases maps an alias (FT.ALIASADD) to its index: an immutable map,
	// replaced under mu and the global lock, read without a lock.
	// aliasGen counts its changes: a command that locked an alias's index
	// before it held its locks checks that no alias changed meanwhile
	// (lockLoaded).
	aliases  atomic.Pointer[map[string]*ftIndex]
	aliasGen atomic.Uint64

	// config is FT.CONFIG's part the engine honours (search.Config:
	// atomics, read by queries without a lock); confMu serialises
	// FT.CONFIG SET's changes and what they propagate.
	config *search.Config
	confMu sync.Mutex

	// dicts are FT.DICTADD's dictionaries, by name: server-wide, not
	// keys (RediSearch's spell-check dictionaries); FLUSHALL and FLUSHDB
	// drop them, as in RediSearch. dictMu guards them (a leaf: the
	// commands take no key lock).
	dictMu sync.Mutex
	dicts  map[string]map[string]struct{}

	// dirty holds the keys of database 0 that changed and match an
	// index, until a command holding their lock re-indexes them.
	dirtyMu sync.Mutex
	dirty   map[string]struct{}
	pending atomic.Bool

	// buildStep, set by tests, runs before each step of a background
	// build (searchBuild) with the index's name.
	buildStep atomic.Pointer[func(name string)]

	cursors ftCursors // FT.AGGREGATE's cursors (cmd_ftaggregate.go)
}

// ftIndex is one index.
type ftIndex struct {
	name    string
	lockKey []byte // the name, locked as a key is
	// def is the commands that defined the index: its FT.CREATE, then
	// each FT.ALTER (searchload.go). Changed under the global lock.
	def [][][]byte

	// building is set while a background build runs (searchBuild),
	// which has looked at scanned of database 0's total keys.
	building       atomic.Bool
	scanned, total atomic.Int64

	// used is when the index was last searched or written (Unix ms),
	// for TEMPORARY (searchTemporaryCron).
	used atomic.Int64

	mu sync.RWMutex // guards ix: shared to search, exclusive to update
	ix *search.Index

	// aliases are the index's aliases, in the order they were added;
	// changed and read under the global lock.
	aliases []string
}

// searchIndexes returns the indexes (an immutable list).
func (s *Server) searchIndexes() []*ftIndex {
	if p := s.search.list.Load(); p != nil {
		return *p
	}
	return nil
}

// searchFind returns the index called name, or nil.
func (s *Server) searchFind(name string) *ftIndex {
	for _, fi := range s.searchIndexes() {
		if fi.name == name {
			return fi
		}
	}
	return nil
}

// searchResolve returns the index name designates — the index of that
// name, else the index the alias name names — or nil, as RediSearch's
// IndexSpec_Load resolves the name FT.SEARCH, FT.INFO, FT.ALTER,
// FT.DROPINDEX and the others are given (FT.CREATE and FT.ALIASADD's
// target take index names only: searchFind).
func (s *Server) searchResolve(name string) *ftIndex {
	if fi := s.searchFind(name); fi != nil {
		return fi
	}
	return s.searchAlias(name)
}

// searchAlias returns the index alias names, or nil.
func (s *Server) searchAlias(alias string) *ftIndex {
	if m := s.search.aliases.Load(); m != nil {
		return (*m)[alias]
	}
	return nil
}

// searchAliasSet makes alias name fi (fi nil: removes it). The caller
// holds the global lock exclusively.
func (s *Server) searchAliasSet(alias string, fi *ftIndex) {
	s.search.mu.Lock()
	defer s.search.mu.Unlock()
	m := map[string]*ftIndex{}
	if old := s.search.aliases.Load(); old != nil {
		for k, v := range *old {
			m[k] = v
		}
	}
	if prev := m[alias]; prev != nil {
		prev.aliases = slices.DeleteFunc(prev.aliases, func(a string) bool { return a == alias })
		delete(m, alias)
	}
	if fi != nil {
		m[alias] = fi
		fi.aliases = append(fi.aliases, alias)
	}
	s.search.aliases.Store(&m)
	s.search.aliasGen.Add(1)
}

// searchAliasCommands returns the FT.ALIASADD commands that recreate
// every alias (for persistence), index by index, each index's aliases in
// the order they were added. The caller holds the global lock.
func (s *Server) searchAliasCommands() [][][]byte {
	var out [][][]byte
	for _, fi := range s.searchIndexes() {
		for _, a := range fi.aliases {
			out = append(out, [][]byte{[]byte("FT.ALIASADD"), []byte(a), []byte(fi.name)})
		}
	}
	return out
}

// searchKeyChanged is the OnModify and OnExpire hooks' part for search:
// it marks key for re-indexing when it is in database 0 and matches an
// index. It runs under a shard mutex or the key's lock: dirtyMu is a leaf.
func (s *Server) searchKeyChanged(db int, key string) {
	if db != 0 {
		return
	}
	for _, fi := range s.searchIndexes() {
		if fi.ix.Schema.Matches(key) {
			s.search.dirtyMu.Lock()
			if s.search.dirty == nil {
				s.search.dirty = map[string]struct{}{}
			}
			s.search.dirty[key] = struct{}{}
			s.search.pending.Store(true)
			s.search.dirtyMu.Unlock()
			return
		}
	}
}

// searchLocks returns keys with index names added (each once) for a
// command to lock with its keys: for a write, the names of the indexes
// its keys match; for any command, the name of the index a key that is
// an alias names (FT.SEARCH alias locks the index's lock, as FT.SEARCH
// index does; a key that only shares an alias's name gets the lock too,
// harmless). keys is returned unchanged when there is none.
func (s *Server) searchLocks(keys [][]byte, write bool) [][]byte {
	var out [][]byte
	add := func(k []byte) {
		if out == nil {
			out = append(make([][]byte, 0, len(keys)+1), keys...)
		}
		out = append(out, k)
	}
	if write {
		for _, fi := range s.searchIndexes() {
			for _, k := range keys {
				if fi.ix.Schema.Matches(string(k)) {
					add(fi.lockKey)
					break
				}
			}
		}
	}
	if m := s.search.aliases.Load(); m != nil && len(*m) > 0 {
		for _, k := range keys {
			if fi := (*m)[string(k)]; fi != nil {
				add(fi.lockKey)
			}
		}
	}
	if out == nil {
		return keys
	}
	return out
}

// searchCovers reports whether g holds the locks of every index key
// matches (exclusively, for a write: a script's dynamic key must not need
// another) and of the index key is an alias of.
func (s *Server) searchCovers(g *lock.Guard, key []byte, write bool) bool {
	if write {
		for _, fi := range s.searchIndexes() {
			if fi.ix.Schema.Matches(string(key)) && !g.Covers(fi.lockKey, true) {
				return false
			}
		}
	}
	if m := s.search.aliases.Load(); m != nil && len(*m) > 0 {
		if fi := (*m)[string(key)]; fi != nil && !g.Covers(fi.lockKey, write) {
			return false
		}
	}
	return true
}

// searchSync re-indexes the changed keys whose locks g holds (all of them
// under the exclusive global lock). The caller holds g's locks.
func (s *Server) searchSync(g *lock.Guard) {
	if !s.search.pending.Load() {
		return
	}
	var keys []string
	s.search.dirtyMu.Lock()
	all := g.GlobalExclusive()
	for k := range s.search.dirty {
		if all || g.Covers([]byte(k), false) {
			keys = append(keys, k)
			delete(s.search.dirty, k)
		}
	}
	s.search.pending.Store(len(s.search.dirty) > 0)
	s.search.dirtyMu.Unlock()
	for _, k := range keys {
		s.searchReindex(k)
	}
}

// searchHash returns the hash stored under key in database 0, or nil
// (none, another type, or expired). It changes nothing — no lazy expiry,
// no snapshot capture — so that FT.SEARCH, which holds the index's lock
// but not its documents' keys' locks, may call it: every command that
// writes those keys holds the index's lock exclusively.
//
// An indexed hash is never cold (the disk tier leaves the keys an index
// matches in memory: searchIndexed): its value can be read without the
// key's lock. A document that was cold when its index began to follow it
// was loaded then (searchDoc), under the global lock.
func (s *Server) searchHash(key string) *hash.Hash {
	// One lookup, of the key's bytes in place (StoredLive keeps nothing):
	// FT.AGGREGATE's LOAD calls this for every row.
	e := s.dbs[0].StoredLive(unsafe.Slice(unsafe.StringData(key), len(key)))
	if e != nil && e.Kind == keyspace.KindHash && !e.IsCold() {
		return e.Obj.(*hash.Hash)
	}
	return nil
}

// searchDoc returns the hash stored under key in database 0, which an
// index begins to follow, loading it from the disk tier if it is cold.
// The caller holds the global lock exclusively (FT.CREATE, FT.ALTER,
// SWAPDB) and found the key with searchMatching.
func (s *Server) searchDoc(key string) *hash.Hash {
	db := s.dbs[0]
	e := db.StoredEntry([]byte(key))
	db.Load(e)
	return e.Obj.(*hash.Hash)
}

// searchIndexed reports whether key of database dbi is a document some
// index may follow: the disk tier leaves its value in memory. The caller
// holds key's lock (the list of indexes changes under the global lock).
func (s *Server) searchIndexed(dbi int, key []byte) bool {
	if dbi != 0 {
		return false
	}
	for _, fi := range s.searchIndexes() {
		if fi.ix.Schema.Matches(string(key)) {
			return true
		}
	}
	return false
}

// searchReindex updates every index key matches from database 0's value
// of key. The caller holds key's lock.
func (s *Server) searchReindex(key string) {
	h := s.searchHash(key)
	for _, fi := range s.searchIndexes() {
		if !fi.ix.Schema.Matches(key) {
			continue
		}
		fi.mu.Lock()
		if h == nil {
			fi.ix.Delete(key)
		} else {
			fi.ix.Put(key, func(f string) ([]byte, bool) { return h.Get([]byte(f)) })
		}
		fi.mu.Unlock()
		fi.touch()
	}
}

// searchScan indexes every hash of database 0 that fi matches. The
// caller holds the global lock exclusively.
func (s *Server) searchScan(fi *ftIndex) {
	fi.mu.Lock()
	defer fi.mu.Unlock()
	for _, key := range s.searchMatching(fi) {
		h := s.searchDoc(key)
		fi.ix.Put(key, func(f string) ([]byte, bool) { return h.Get([]byte(f)) })
	}
}

// searchMatching returns the keys of the hashes of database 0 that fi
// matches. The caller holds the global lock exclusively.
func (s *Server) searchMatching(fi *ftIndex) []string {
	var keys []string
	s.dbs[0].ForEach(func(key string, e *keyspace.Entry) bool {
		if e.Kind == keyspace.KindHash && fi.ix.Schema.Matches(key) {
			keys = append(keys, key)
		}
		return true
	})
	return keys
}

// searchFlushed drops every index, as RediSearch does on FLUSHALL and on
// FLUSHDB of any database. The caller holds the global lock exclusively.
func (s *Server) searchFlushed() {
	s.search.mu.Lock()
	s.search.list.Store(nil)
	if s.search.aliases.Load() != nil {
		s.search.aliases.Store(nil)
		s.search.aliasGen.Add(1)
	}
	s.search.mu.Unlock()
	s.search.dictMu.Lock()
	s.search.dicts = nil
	s.search.dictMu.Unlock()
	s.search.dirtyMu.Lock()
	clear(s.search.dirty)
	s.search.pending.Store(false)
	s.search.dirtyMu.Unlock()
}

// searchDictCommands returns the commands that recreate the dictionaries
// (for persistence), by name, each one's terms in order: FT.DICTADD, and
// for an emptied one (which RediSearch keeps) an FT.DICTDEL after.
func (s *Server) searchDictCommands() [][][]byte {
	s.search.dictMu.Lock()
	defer s.search.dictMu.Unlock()
	var out [][][]byte
	for _, name := range slices.Sorted(maps.Keys(s.search.dicts)) {
		d := s.search.dicts[name]
		cmd := [][]byte{[]byte("FT.DICTADD"), []byte(name)}
		if len(d) == 0 {
			out = append(out, append(cmd, []byte("x")), [][]byte{[]byte("FT.DICTDEL"), []byte(name), []byte("x")})
			continue
		}
		for _, t := range slices.Sorted(maps.Keys(d)) {
			cmd = append(cmd, []byte(t))
		}
		out = append(out, cmd)
	}
	return out
}

// searchRescan indexes again the documents fi holds, in the order they
// were indexed, then the other hashes of database 0 it matches (FT.ALTER:
// the new fields count for all). The caller holds the global lock
// exclusively.
func (s *Server) searchRescan(fi *ftIndex) {
	fi.mu.Lock()
	keys := fi.ix.Keys()
	for _, k := range keys {
		if h := s.searchHash(k); h != nil {
			fi.ix.Put(k, func(f string) ([]byte, bool) { return h.Get([]byte(f)) })
		} else {
			fi.ix.Delete(k)
		}
	}
	fi.mu.Unlock()
	for _, key := range s.searchMatching(fi) {
		if !fi.ix.Has(key) {
			h := s.searchDoc(key)
			fi.mu.Lock()
			fi.ix.Put(key, func(f string) ([]byte, bool) { return h.Get([]byte(f)) })
			fi.mu.Unlock()
		}
	}
}

// searchReset rebuilds every index from database 0 after SWAPDB replaced
// it wholesale (RediSearch does not follow SWAPDB; HotKV's indexes keep
// following database 0). The caller holds the global lock exclusively.
func (s *Server) searchReset() {
	list := s.searchIndexes()
	if len(list) == 0 {
		return
	}
	s.search.dirtyMu.Lock()
	clear(s.search.dirty)
	s.search.pending.Store(false)
	s.search.dirtyMu.Unlock()
	for _, fi := range list {
		fi.mu.Lock()
		fi.ix.Clear()
		fi.mu.Unlock()
		s.searchScan(fi)
	}
}

// searchAdd registers fi. The caller holds the global lock exclusively.
func (s *Server) searchAdd(fi *ftIndex) {
	s.search.mu.Lock()
	defer s.search.mu.Unlock()
	list := append(append([]*ftIndex(nil), s.searchIndexes()...), fi)
	s.search.list.Store(&list)
}

// searchRemove unregisters fi and its aliases. The caller holds the
// global lock exclusively.
func (s *Server) searchRemove(fi *ftIndex) {
	for len(fi.aliases) > 0 {
		s.searchAliasSet(fi.aliases[0], nil)
	}
	s.search.mu.Lock()
	defer s.search.mu.Unlock()
	var list []*ftIndex
	for _, x := range s.searchIndexes() {
		if x != fi {
			list = append(list, x)
		}
	}
	s.search.list.Store(&list)
}

// touch restarts fi's TEMPORARY timer.
func (fi *ftIndex) touch() { fi.used.Store(time.Now().UnixMilli()) }

// searchTemporaryCron drops, with their documents, the TEMPORARY indexes
// idle for their time (a search or a write of one of their documents
// restarts it), as RediSearch does, propagating FT.DROPINDEX and the
// DELs. A replica leaves it to its master. It takes the global lock
// without waiting: a busy server drops them at a later tick.
func (s *Server) searchTemporaryCron(now time.Time) {
	if s.isReplica() {
		return
	}
	idle := func(fi *ftIndex) bool {
		t := fi.ix.Schema.Temporary
		return t >= 0 && now.UnixMilli()-fi.used.Load() >= t*1000
	}
	if !slices.ContainsFunc(s.searchIndexes(), idle) {
		return
	}
	g := s.locks.NewGuard(rand.Uint64())
	if !g.TryLockGlobal() {
		return
	}
	defer g.Unlock()
	for _, fi := range s.searchIndexes() {
		if !idle(fi) {
			continue
		}
		s.searchRemove(fi)
		if s.propagating() {
			s.journal.AppendCommand(0, []byte("FT.DROPINDEX"), []byte(fi.name))
		}
		fi.mu.RLock()
		keys := fi.ix.Keys()
		fi.mu.RUnlock()
		for _, k := range keys {
			if s.dbs[0].Delete([]byte(k)) {
				s.propagateDel(0, k)
			}
		}
	}
	s.searchSync(g) // the other indexes of the deleted documents
}
