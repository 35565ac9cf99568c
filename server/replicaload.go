package server

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/hotkv/hotkv/aof"
	"github.com/hotkv/hotkv/keyspace"
	"github.com/hotkv/hotkv/lock"
	"github.com/hotkv/hotkv/rdb"
	"github.com/hotkv/hotkv/replication"
)

// A replica's load of its master's payload (a full synchronization), as
// repl-diskless-load says, as Redis 7.0's readSyncBulkPayload:
//   - "disabled": the payload goes to a file first (temp-<time>.<pid>.rdb
//     in dir) while the old dataset still serves; the file then replaces
//     the snapshot file (dbfilename) and is loaded from there;
//   - "on-empty-db": straight from the socket when the dataset is empty,
//     else as "disabled";
//   - "swapdb": straight from the socket into databases of its own, the
//     old dataset kept until the load succeeded. When the replica follows
//     the same history already (its replication ID is the master's), the
//     old dataset serves meanwhile (async_loading); else clients get
//     LOADING. A failed load leaves the old dataset as it was.
// Other loads empty the dataset first, and clients get LOADING while
// they run. Expired keys are kept: the master's DELs remove them.

// disklessLoad reports whether the next payload goes straight to the
// parser (LinkConfig.DisklessLoad).
func (s *Server) disklessLoad() bool {
	switch s.cfg.Lookup("repl-diskless-load").Enum() {
	case "swapdb":
		return true
	case "on-empty-db":
		for _, db := range s.dbs {
			if db.Len() > 0 {
				return false
			}
		}
		return true
	}
	return false
}

// loadFromMaster loads the payload p (LinkConfig.Load).
func (s *Server) loadFromMaster(p replication.Payload) error {
	switch {
	case !p.Diskless:
		return s.loadMasterFile(p)
	case s.cfg.Lookup("repl-diskless-load").Enum() == "swapdb":
		return s.loadMasterSwap(p)
	}
	s.logf("MASTER <-> REPLICA sync: Flushing old data")
	g := s.lockForLoad()
	defer g.Unlock()
	s.logf("MASTER <-> REPLICA sync: Loading DB in memory")
	search, err := s.loadMasterStream(p.R, max(p.Size, 0), false, s.dbs, nil)
	if err != nil {
		s.emptyData() // the half-loaded data
		return fmt.Errorf("Failed trying to load the MASTER synchronization DB from socket: %w", err)
	}
	s.searchRestore(search)
	return nil
}

// lockForLoad takes the global lock for a load into the dataset, and
// empties the dataset (a snapshot in progress gets what it still needs
// first).
func (s *Server) lockForLoad() *lock.Guard {
	g := s.locks.NewGuard(rand.Uint64())
	g.LockGlobal()
	s.completeSnapshot()
	s.emptyData()
	return g
}

// loadMasterStream reads a payload of size bytes (0: unknown) from r into
// dbs as a load clients see, asynchronous or not. Its function libraries
// go to onFunction, or (nil) replace the server's; its search indexes'
// definitions are returned, for searchRestore.
func (s *Server) loadMasterStream(r io.Reader, size int64, async bool, dbs []*keyspace.DB, onFunction func(code string) error) ([]byte, error) {
	s.startLoading(size, async)
	defer s.stopLoading()
	start := time.Now()
	var counts loadCounts
	fr := s.rdbReader(&counts, true, false, dbs)
	if onFunction != nil {
		fr.OnFunction = onFunction
	}
	if _, err := fr.Read(bufio.NewReaderSize(s.load.counting(r), 1<<20)); err != nil {
		s.reportSocketLoadError(err)
		return nil, err
	}
	s.logf("Done loading RDB, keys loaded: %d, keys expired: %d.", counts.loaded, counts.expired)
	s.logf("MASTER <-> REPLICA sync: Loaded the dataset in %.3f seconds", time.Since(start).Seconds())
	s.returnMemorySoon() // the decoding's garbage
	return counts.search, nil
}

// reportSocketLoadError logs a payload's failed load from the socket as
// Redis's rdbReportError does in a diskless load: a corrupt payload, or a
// short read (the link was lost), after which the replica goes on.
func (s *Server) reportSocketLoadError(err error) {
	offset := s.load.loaded.Load()
	if line, reason, ok := rdb.LoadReason(err); ok {
		s.warnf("Internal error in RDB reading offset %d, function at rdb.c:%d -> %s. Failure loading rdb format", offset, line, reason)
		return
	}
	s.warnf("Short read or OOM loading DB. Unrecoverable error, aborting now.")
	s.warnf("Internal error in RDB reading offset %d, function at rdb.c:3249 -> Unexpected EOF reading RDB file. Failure loading rdb format from socket, assuming connection error, resuming operation.", offset)
}

// loadMasterFile receives the payload into a file, then loads it from
// the snapshot file it becomes. The old dataset serves until the
// transfer ends.
func (s *Server) loadMasterFile(p replication.Payload) error {
	path := s.rdbPath()
	tmp := filepath.Join(filepath.Dir(path), fmt.Sprintf("temp-%d.%d.rdb", time.Now().Unix(), os.Getpid()))
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("Opening the temp file needed for MASTER <-> REPLICA synchronization: %w", err)
	}
	defer os.Remove(tmp) // once renamed, nothing
	size, err := io.Copy(f, p.R)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("Write error or short write writing to the DB dump file needed for MASTER <-> REPLICA synchronization: %w", err)
	}
	s.logf("MASTER <-> REPLICA sync: Flushing old data")
	g := s.lockForLoad()
	defer g.Unlock()
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("Failed trying to rename the temp DB into %s in MASTER <-> REPLICA synchronization: %w", filepath.Base(path), err)
	}
	aof.SyncDir(filepath.Dir(path))
	s.logf("MASTER <-> REPLICA sync: Loading DB in memory")
	rf, err := os.Open(path)
	var search []byte
	if err == nil {
		search, err = s.loadMasterStream(rf, size, false, s.dbs, nil)
		rf.Close()
	}
	if s.cfg.Lookup("rdb-del-sync-files").Bool() && s.persistenceDisabled() {
		s.logf("Removing the RDB file obtained from the master. This replica has persistence disabled")
		os.Remove(path)
	}
	if err != nil {
		return fmt.Errorf("Failed trying to load the MASTER synchronization DB from disk: %w", err)
	}
	s.searchRestore(search)
	return nil
}

// persistenceDisabled is Redis's allPersistenceDisabled: no save points
// and no append-only file.
func (s *Server) persistenceDisabled() bool {
	return s.cfg.Lookup("save").String() == "" && !s.cfg.Lookup("appendonly").Bool()
}

// loadMasterSwap loads the payload into databases of its own and swaps
// them in once it succeeded (repl-diskless-load swapdb).
func (s *Server) loadMasterSwap(p replication.Payload) error {
	tmp := make([]*keyspace.DB, len(s.dbs))
	for i := range tmp {
		tmp[i] = keyspace.New()
		tmp[i].HoldExpired.Store(true) // as the replica's own
	}
	var libs []string
	s.logf("MASTER <-> REPLICA sync: Loading DB in memory")
	async := s.repl.ReplID() == p.ReplID // the old dataset is the same history
	search, err := s.loadMasterStream(p.R, max(p.Size, 0), async, tmp, func(code string) error {
		libs = append(libs, code)
		return nil
	})
	g := s.locks.NewGuard(rand.Uint64())
	g.LockGlobal()
	defer g.Unlock()
	if err == nil {
		err = s.scripting.engine.RestoreLibraries(libs, "FLUSH")
	}
	if err != nil {
		s.logf("MASTER <-> REPLICA sync: Discarding temporary DB in background")
		return fmt.Errorf("Failed trying to load the MASTER synchronization DB from socket: %w", err)
	}
	s.completeSnapshot()
	s.logf("MASTER <-> REPLICA sync: Swapping active DB with loaded DB")
	for i, db := range s.dbs {
		s.touchWatchedInDB(i, -1) // the keys of the old dataset
		db.Swap(tmp[i])
		s.touchWatchedInDB(i, -1) // those of the new one
	}
	s.trackingFlush()
	s.searchFlushed() // the payload's indexes replace them
	s.searchRestore(search)
	for i := range s.dbs {
		s.readyWaited(i)
	}
	s.logf("MASTER <-> REPLICA sync: Discarding old DB in background")
	return nil
}
