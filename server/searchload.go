package server

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"strings"

	"github.com/hotkv/hotkv/aof"
	"github.com/hotkv/hotkv/hash"
	"github.com/hotkv/hotkv/keyspace"
	"github.com/hotkv/hotkv/resp"
	"github.com/hotkv/hotkv/search"
)

// How search indexes outlive a restart and reach replicas.
//
// An index's definition is the commands that made it: its FT.CREATE, then
// each FT.ALTER and FT.SYNUPDATE, as they were given (ftIndex.def); the server-wide state
// of search is the aliases and the dictionaries, as FT.ALIASADD and
// FT.DICTADD commands. They are propagated
// verbatim, so the append-only file and the replicas get them where they
// ran, as RediSearch replicates them. A snapshot records the definitions
// of every index in an auxiliary field (searchAux), in RESP, as an
// append-only file would hold them; a command-based AOF rewrite writes
// them as commands before the keys. redis-server skips auxiliary fields it
// does not know, so it loads HotKV's snapshots (without the indexes);
// RediSearch's own snapshots keep theirs as module data, which no server
// without the module can load.
//
// A load replaces the dataset, and with it the indexes: emptyData drops
// them, and the loaded file's definitions re-create them (searchRestore)
// once its data is in place: after a snapshot, before an append-only
// file's first command. Indexes are never saved, only their definitions:
// each is rebuilt from the data, in the background (searchBuild), so that
// neither the load nor clients of other indexes and keys wait for it.
// SKIPINITIALSCAN is not honoured there: a restored index holds every
// matching hash, as RediSearch's rebuild after a load does.

// searchAux is the snapshot's auxiliary field that holds the search
// indexes' definitions.
const searchAux = "hotkv-search"

// searchBuildBatch is how many keys of the scan one step of a background
// build looks at under its locks.
const searchBuildBatch = 256

// newFTIndex returns an index called name over schema, defined by def
// (its FT.CREATE, copied), under the server's FT.CONFIG settings.
func (s *Server) newFTIndex(name string, schema *search.Schema, def [][]byte) *ftIndex {
	fi := &ftIndex{name: name, lockKey: []byte(name), ix: search.NewIndex(name, schema), def: [][][]byte{copyArgs(def)}}
	fi.ix.Config = s.search.config
	fi.touch()
	return fi
}

// searchDefinitions returns the commands that define every index, then
// those that recreate the aliases and dictionaries, in RESP; nil when
// there is none. The caller holds the global lock
// exclusively (definitions change under it).
func (s *Server) searchDefinitions() []byte {
	var b []byte
	for _, fi := range s.searchIndexes() {
		for _, args := range fi.def {
			b = aof.AppendCommand(b, args)
		}
	}
	for _, args := range append(s.searchAliasCommands(), s.searchDictCommands()...) {
		b = aof.AppendCommand(b, args)
	}
	return b
}

// searchRestore re-creates the indexes defs (a snapshot's searchAux)
// defines, each replacing an index of the same name, and its aliases and
// dictionaries, and builds them from
// database 0 in the background. A definition that does not parse is
// logged and skipped. The caller holds the global lock exclusively, and
// the loaded data is in place.
func (s *Server) searchRestore(defs []byte) {
	if len(defs) == 0 {
		return
	}
	r := resp.NewReader(bytes.NewReader(defs))
	var built []*ftIndex
	for {
		args, err := r.ReadCommand()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			s.warnf("Search index definitions of the loaded data are unreadable: %v", err)
			break
		}
		if len(args) < 2 {
			continue
		}
		name := string(args[1])
		switch cmd := strings.ToUpper(string(args[0])); cmd {
		case "FT.CREATE":
			schema, err := search.ParseCreate(args[2:])
			if err != nil {
				s.warnf("Search index %s not restored: %v", name, err)
				continue
			}
			if old := s.searchFind(name); old != nil {
				s.searchRemove(old)
			}
			fi := s.newFTIndex(name, schema, args)
			s.searchAdd(fi)
			built = append(built, fi)
		case "FT.ALTER":
			fi := s.searchFind(name)
			if fi == nil {
				s.warnf("Search index %s not altered: no such index", name)
				continue
			}
			fields, _, err := fi.ix.Schema.ParseAlter(args[2:])
			if err != nil {
				s.warnf("Search index %s not altered: %v", name, err)
				continue
			}
			fi.ix.AddFields(fields) // no document yet: nothing to lock
			fi.def = append(fi.def, copyArgs(args))
		case "FT.SYNUPDATE":
			fi := s.searchFind(name)
			if fi == nil || len(args) < 4 {
				s.warnf("Search index %s: synonyms not restored: no such index", name)
				continue
			}
			terms, _ := synTerms(args)
			fi.ix.SynUpdate(string(args[2]), terms) // no document yet
			fi.def = append(fi.def, copyArgs(args))
		case "FT.ALIASADD":
			if fi := s.searchFind(string(args[2])); len(args) == 3 && fi != nil {
				s.searchAliasSet(name, fi)
			}
		case "FT.DICTADD":
			s.searchDictAdd(name, args[2:])
		case "FT.DICTDEL":
			s.searchDictDel(name, args[2:])
		default:
			s.warnf("Search index definitions of the loaded data: %s skipped", cmd)
		}
	}
	for _, fi := range built {
		fi.building.Store(true)
		s.logf("Search index %s restored, building it in the background", fi.name)
		go s.searchBuild(fi)
	}
}

// searchBuild indexes the hashes of database 0 that fi matches and does
// not hold yet. It scans the database in steps of searchBuildBatch keys,
// each indexed under the locks a write of them takes (their keys' and
// fi's, exclusively): writers and searches of fi interleave with the
// build, and other keys and indexes never wait for it. A key written
// meanwhile is indexed by its writer, which is why the build skips the
// keys fi holds. It stops early when fi is dropped or replaced.
func (s *Server) searchBuild(fi *ftIndex) {
	defer fi.building.Store(false)
	step := func() {
		if f := s.search.buildStep.Load(); f != nil {
			(*f)(fi.name)
		}
	}
	step()
	g := s.locks.NewGuard(rand.Uint64())
	db := s.dbs[0]
	fi.total.Store(int64(db.Len()))
	var cursor uint64
	var keys [][]byte
	for {
		keys = keys[:0]
		seen := 0
		cursor = db.Scan(cursor, searchBuildBatch, func(k string, _ *keyspace.Entry) {
			seen++
			if fi.ix.Schema.Matches(k) {
				keys = append(keys, []byte(k))
			}
		})
		if len(keys) > 0 {
			g.LockKeys(append(keys, fi.lockKey), true)
			if s.searchFind(fi.name) != fi {
				g.Unlock()
				return
			}
			fi.mu.Lock()
			for _, k := range keys {
				if fi.ix.Has(string(k)) {
					continue
				}
				if h := s.searchDocLocked(k); h != nil {
					fi.ix.Put(string(k), func(f string) ([]byte, bool) { return h.Get([]byte(f)) })
				}
			}
			fi.mu.Unlock()
			g.Unlock()
		}
		fi.scanned.Add(int64(seen))
		if cursor == 0 || s.searchFind(fi.name) != fi {
			return
		}
		step()
	}
}

// searchDocLocked returns the hash stored under key in database 0, loaded
// from the disk tier if it is cold, or nil (none, another type, expired,
// or unreadable: logged). The caller holds key's lock.
func (s *Server) searchDocLocked(key []byte) (h *hash.Hash) {
	db := s.dbs[0]
	if stored, expired := db.Stored(key); !stored || expired {
		return nil
	}
	e := db.StoredEntry(key)
	if e == nil || e.Kind != keyspace.KindHash {
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			var le *keyspace.LoadError
			if err, ok := r.(error); !ok || !errors.As(err, &le) {
				panic(r)
			}
			s.warnf("Search index build: %s not indexed: %v", key, le)
			h = nil
		}
	}()
	db.Load(e)
	return e.Obj.(*hash.Hash)
}

// searchProgress reports whether fi is being built and the share of
// database 0 its build has looked at (1 when it is not being built).
func (fi *ftIndex) searchProgress() (bool, float64) {
	if !fi.building.Load() {
		return false, 1
	}
	total := fi.total.Load()
	if total == 0 {
		return true, 0
	}
	return true, min(float64(fi.scanned.Load())/float64(total), 1)
}
