// Package tier is HotKV's disk tier: where cold values live while their
// keys stay in memory. It is a Store of opaque value records over Pebble,
// keyed by a 64-bit ID the caller draws from the Store (NextID), never by
// the key's name: RENAME, MOVE and SWAPDB move a cold value by moving its
// ID, with no disk I/O.
//
// Record format, per ID:
//
//	key:   8 bytes, the ID big endian
//	value: 4 bytes CRC-32C (Castagnoli) of the payload, little endian
//	       payload (the caller's bytes: HotKV stores a value's RDB encoding)
//
// A record whose checksum does not match reads as ErrCorrupt, never as a
// wrong value.
//
// Durability is not the tier's job: the append-only file and the RDB
// snapshot are the sources of truth. The Store writes no WAL and never
// syncs, and Open wipes the directory it is given and starts empty (a
// restart reloads the dataset from the AOF or RDB, and cold values spill
// to disk again as they load). A crash therefore loses nothing
// acknowledged, and no stale record can be mistaken for a live one.
//
// Concurrency: every method is safe for concurrent use. The Store takes
// no lock of HotKV's; Pebble's own mutexes are leaves from HotKV's point
// of view. Reads and writes do disk I/O: callers must not hold a key lock
// across them unless they mean to (the "load under the lock" path).
package tier

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"
)

// ErrCorrupt is returned for a record whose checksum does not match.
var ErrCorrupt = errors.New("tier: corrupt record")

// ErrNotFound is returned by Get for an ID with no record.
var ErrNotFound = errors.New("tier: no such record")

// ErrClosed is returned by every operation after Close.
var ErrClosed = errors.New("tier: closed")

// Op is what a Disk hook is told is about to happen.
type Op uint8

// The operations a Disk hook sees.
const (
	OpRead Op = iota
	OpWrite
	OpDelete
)

func (o Op) String() string {
	switch o {
	case OpRead:
		return "read"
	case OpWrite:
		return "write"
	}
	return "delete"
}

// Disk lets tests slow down or fail the tier's disk operations. Before is
// called before each Get, Put and Delete (and each View.Get) with no
// lock of the Store held; a non-nil error fails the operation with it,
// wrapped. It may sleep.
type Disk interface {
	Before(op Op, id uint64) error
}

// Options configure Open.
type Options struct {
	// Dir is the directory of the tier: empty, missing, or a tier
	// directory from before (its HOTKV-TIER marker), whose contents Open
	// removes. Any other directory is refused.
	Dir string
	// CacheSize is Pebble's block cache, in bytes; 0 picks 8 MB.
	CacheSize int64
	// Disk, when set, is called before each disk operation (tests).
	Disk Disk
}

// Store holds cold values by ID.
type Store struct {
	db     *pebble.DB
	cache  interface{ Unref() }
	disk   atomic.Pointer[Disk]
	nextID atomic.Uint64
	// closeMu is held shared by every operation and exclusively by
	// Close, so that nothing reaches Pebble after it closed.
	closeMu sync.RWMutex
	closed  atomic.Bool

	records atomic.Int64 // live records
	bytes   atomic.Int64 // their payload bytes
	reads   atomic.Int64
	writes  atomic.Int64
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Open wipes opts.Dir (creating it if needed; refusing a non-empty
// directory without the tier's marker) and opens an empty Store
// there. It returns an error naming the directory when the directory
// cannot be created, emptied or written.
func Open(opts Options) (*Store, error) {
	if opts.Dir == "" {
		return nil, errors.New("tier: no directory")
	}
	if err := wipe(opts.Dir); err != nil {
		return nil, err
	}
	size := opts.CacheSize
	if size <= 0 {
		size = 8 << 20
	}
	cache := pebble.NewCache(size)
	po := &pebble.Options{
		Cache:      cache,
		DisableWAL: true,
		Logger:     quietLogger{},
	}
	db, err := pebble.Open(opts.Dir, po)
	if err != nil {
		cache.Unref()
		return nil, fmt.Errorf("tier: cannot open %q: %w", opts.Dir, err)
	}
	st := &Store{db: db, cache: cache}
	st.SetDisk(opts.Disk)
	return st, nil
}

// marker is the file that tells a tier directory from any other: Open
// empties a non-empty directory only when it holds one, so that a
// tiering-dir pointed at a folder with other data in it (the RDB's) is
// refused instead of wiped.
const marker = "HOTKV-TIER"

// wipe makes dir an empty, writable directory holding only the marker.
func wipe(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("tier: cannot create directory %q: %w", dir, err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("tier: cannot read directory %q: %w", dir, err)
	}
	if len(ents) > 0 {
		if _, err := os.Stat(filepath.Join(dir, marker)); err != nil {
			return fmt.Errorf("tier: directory %q is not empty and is not a tier directory (no %s file): refusing to empty it", dir, marker)
		}
	}
	for _, e := range ents {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return fmt.Errorf("tier: cannot empty directory %q: %w", dir, err)
		}
	}
	f, err := os.Create(filepath.Join(dir, marker))
	if err != nil {
		return fmt.Errorf("tier: directory %q is not writable: %w", dir, err)
	}
	f.Close()
	return nil
}

// quietLogger keeps Pebble's informational logging out of the server's
// log; fatal errors still panic, as Pebble's default logger does.
type quietLogger struct{}

func (quietLogger) Infof(string, ...any)  {}
func (quietLogger) Errorf(string, ...any) {}
func (quietLogger) Fatalf(format string, args ...any) {
	panic(fmt.Sprintf("tier: pebble: "+format, args...))
}

// NextID returns a fresh record ID: IDs are never reused while the Store
// is open (a consistent View may still hold a deleted ID's record).
func (st *Store) NextID() uint64 { return st.nextID.Add(1) }

func recordKey(id uint64) []byte { return binary.BigEndian.AppendUint64(make([]byte, 0, 8), id) }

// SetDisk replaces the Disk hook (nil: none), for tests that slow or fail
// a running Store.
func (st *Store) SetDisk(d Disk) {
	if d == nil {
		st.disk.Store(nil)
		return
	}
	st.disk.Store(&d)
}

func (st *Store) before(op Op, id uint64) error {
	if st.closed.Load() {
		return ErrClosed
	}
	if d := st.disk.Load(); d != nil {
		if err := (*d).Before(op, id); err != nil {
			return fmt.Errorf("tier: %s failed: %w", op, err)
		}
	}
	return nil
}

// Put stores payload as the record id (which must not hold one). It does
// not keep payload.
func (st *Store) Put(id uint64, payload []byte) error {
	st.closeMu.RLock()
	defer st.closeMu.RUnlock()
	if err := st.before(OpWrite, id); err != nil {
		return err
	}
	v := make([]byte, 4+len(payload))
	binary.LittleEndian.PutUint32(v, crc32.Checksum(payload, castagnoli))
	copy(v[4:], payload)
	if err := st.db.Set(recordKey(id), v, pebble.NoSync); err != nil {
		return fmt.Errorf("tier: write failed: %w", err)
	}
	st.writes.Add(1)
	st.records.Add(1)
	st.bytes.Add(int64(len(payload)))
	return nil
}

// Get returns a copy of the record id's payload.
func (st *Store) Get(id uint64) ([]byte, error) {
	st.closeMu.RLock()
	defer st.closeMu.RUnlock()
	if err := st.before(OpRead, id); err != nil {
		return nil, err
	}
	st.reads.Add(1)
	return get(st.db.Get, id)
}

// get reads id through read (the DB's or a snapshot's Get) and checks it.
func get(read func([]byte) ([]byte, io.Closer, error), id uint64) ([]byte, error) {
	v, closer, err := read(recordKey(id))
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("tier: read failed: %w", err)
	}
	defer closer.Close()
	if len(v) < 4 || crc32.Checksum(v[4:], castagnoli) != binary.LittleEndian.Uint32(v) {
		return nil, fmt.Errorf("%w %d", ErrCorrupt, id)
	}
	return append([]byte(nil), v[4:]...), nil
}

// Delete removes the record id, whose payload was size bytes (for the
// byte count). Deleting what is not there is not an error.
func (st *Store) Delete(id uint64, size int64) error {
	st.closeMu.RLock()
	defer st.closeMu.RUnlock()
	if err := st.before(OpDelete, id); err != nil {
		return err
	}
	if err := st.db.Delete(recordKey(id), pebble.NoSync); err != nil {
		return fmt.Errorf("tier: delete failed: %w", err)
	}
	st.records.Add(-1)
	st.bytes.Add(-size)
	return nil
}

// View is a consistent, read-only view of the Store as it was when made:
// records written later are not in it, records deleted later still are.
// Snapshots of the dataset read cold values through one.
type View struct {
	st   *Store
	snap *pebble.Snapshot
}

// View returns a consistent view of the Store (nil after Close); Close
// it when done.
func (st *Store) View() *View {
	st.closeMu.RLock()
	defer st.closeMu.RUnlock()
	if st.closed.Load() {
		return &View{st: st}
	}
	return &View{st: st, snap: st.db.NewSnapshot()}
}

// Get returns a copy of the record id's payload as the view sees it.
func (v *View) Get(id uint64) ([]byte, error) {
	v.st.closeMu.RLock()
	defer v.st.closeMu.RUnlock()
	if err := v.st.before(OpRead, id); err != nil {
		return nil, err
	}
	v.st.reads.Add(1)
	return get(v.snap.Get, id)
}

// Close releases the view. A view outliving its Store needs no Close.
func (v *View) Close() error {
	v.st.closeMu.RLock()
	defer v.st.closeMu.RUnlock()
	if v.snap == nil || v.st.closed.Load() {
		return nil
	}
	return v.snap.Close()
}

// Stats are the Store's figures, for INFO.
type Stats struct {
	Records, Bytes    int64 // live records and their payload bytes
	Reads, Writes     int64 // since Open
	DiskUsage         uint64
	Compactions       int64
	CompactionDebt    uint64
	CompactionsNow    int64
	Flushes           int64
	CacheSize         int64
	CacheCount        int64
	CacheHits         int64
	CacheMisses       int64
	MemtableSize      uint64
	MemtableCount     int64
	SSTables          int64
	ReadAmplification int
}

// Stats returns the Store's figures, Pebble's included.
func (st *Store) Stats() Stats {
	st.closeMu.RLock()
	defer st.closeMu.RUnlock()
	s := Stats{Records: st.records.Load(), Bytes: st.bytes.Load(), Reads: st.reads.Load(), Writes: st.writes.Load()}
	if st.closed.Load() {
		return s
	}
	m := st.db.Metrics()
	s.DiskUsage = m.DiskSpaceUsage()
	s.Compactions = m.Compact.Count
	s.CompactionDebt = m.Compact.EstimatedDebt
	s.CompactionsNow = m.Compact.NumInProgress
	s.Flushes = m.Flush.Count
	s.CacheSize, s.CacheCount = m.BlockCache.Size, m.BlockCache.Count
	s.CacheHits, s.CacheMisses = m.BlockCache.Hits, m.BlockCache.Misses
	s.MemtableSize, s.MemtableCount = m.MemTable.Size, m.MemTable.Count
	s.SSTables = m.Total().TablesCount
	s.ReadAmplification = m.ReadAmp()
	return s
}

// Close closes the Store; it may be called more than once, and any
// operation afterwards fails with ErrClosed. Open views are released.
func (st *Store) Close() error {
	st.closeMu.Lock()
	defer st.closeMu.Unlock()
	if st.closed.Swap(true) {
		return nil
	}
	err := st.db.Close()
	st.cache.Unref()
	return err
}
