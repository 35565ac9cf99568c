package server

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"github.com/hotkv/hotkv/suggest"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/hotkv/hotkv/bgchild"
	"github.com/hotkv/hotkv/config"
	"github.com/hotkv/hotkv/keyspace"
	"github.com/hotkv/hotkv/lock"
	"github.com/hotkv/hotkv/rdb"
	"github.com/hotkv/hotkv/tier"
)

// Snapshots (SAVE, BGSAVE, dump.rdb at start-up) in Redis 7.0's RDB
// format. SAVE writes the live dataset under the exclusive global lock, on
// the client's goroutine. BGSAVE takes a copy-on-write snapshot (cow.go)
// and encodes it on a goroutine of its own into a child process that
// writes the file (bgjob.go), as Redis's forked child does.

// persistState is the snapshot bookkeeping INFO persistence reports.
type persistState struct {
	mu        sync.Mutex // one save at a time writes the file
	bgRunning atomic.Bool
	bgStarted atomic.Int64 // unix seconds
	// replPayloads counts the replication payloads being produced, the
	// last started at replStarted (unix seconds): saves in progress too.
	replPayloads atomic.Int32
	replStarted  atomic.Int64
	lastOK       atomic.Bool  // the last save succeeded
	lastBgSecs   atomic.Int64 // duration of the last BGSAVE, -1 before one
	saves        atomic.Int64
	failed       atomic.Int64
	loadedKeys   atomic.Int64
	expiredAt    atomic.Int64 // keys found expired when loading
	// savedDirty is the dirty count the last successful save covers;
	// lastTry when the cron last started a save.
	savedDirty atomic.Int64
	lastTry    atomic.Int64
	scheduled  atomic.Bool // BGSAVE SCHEDULE: another save after the running one
	bgKill     killSwitch  // stops the running BGSAVE (SHUTDOWN)
	// child is the running BGSAVE's child process, nil without one.
	child atomic.Pointer[bgchild.Child]
	// keysTotal and keysDone are the running child job's progress, a
	// BGSAVE's or a rewrite's (one at a time): current_save_keys_total,
	// current_save_keys_processed, current_fork_perc; 0 without one.
	keysTotal, keysDone atomic.Int64
	// lastCow is what the last BGSAVE's snapshot copied
	// (rdb_last_cow_size).
	lastCow atomic.Int64
}

// startProgress starts counting a child job's progress: the keys there
// are now (the caller holds the global lock exclusively).
func (s *Server) startProgress() *atomic.Int64 {
	var n int64
	for _, db := range s.dbs {
		n += int64(db.Len())
	}
	s.persist.keysDone.Store(0)
	s.persist.keysTotal.Store(n)
	return &s.persist.keysDone
}

// endProgress clears the progress once a child job ended, as Redis's
// resetChildState.
func (s *Server) endProgress() {
	s.persist.keysTotal.Store(0)
	s.persist.keysDone.Store(0)
}

// dirty returns the number of write commands run so far.
func (s *Server) dirty() int64 {
	return s.stats.sum(func(i int) *atomic.Int64 { return &s.stats.slots[i].dirty })
}

// changesSinceSave is rdb_changes_since_last_save (write commands run
// since the last save, where Redis counts the changes they made).
func (s *Server) changesSinceSave() int64 { return s.dirty() - s.persist.savedDirty.Load() }

// savePoints is the cron's check of the save points ("save 3600 1 300
// 100"): a background save starts when one is reached, as in Redis, and
// not sooner than 5 s after a failed one.
func (s *Server) savePoints(now time.Time) {
	ps := &s.persist
	if ps.bgRunning.Load() || s.aof.rewriting.Load() {
		return // one child at a time, as in Redis
	}
	if !s.closing.Load() && ps.scheduled.CompareAndSwap(true, false) {
		s.bgsave(s.newInternalClient(backgroundClient, 0, 0)) // a failure is logged
		return
	}
	points := strings.Fields(s.cfg.Lookup("save").String())
	if len(points) == 0 {
		return
	}
	changes := s.changesSinceSave()
	since := now.Unix() - s.lastSave.Load()
	if !ps.lastOK.Load() && ps.failed.Load() > 0 && now.Unix()-ps.lastTry.Load() < 5 {
		return
	}
	for i := 0; i+1 < len(points); i += 2 {
		secs, _ := strconv.ParseInt(points[i], 10, 64)
		n, _ := strconv.ParseInt(points[i+1], 10, 64)
		if changes >= n && since >= secs {
			s.logf("%d changes in %d seconds. Saving...", n, secs)
			ps.lastTry.Store(now.Unix())
			s.bgsave(s.newInternalClient(backgroundClient, 0, 0)) // a failure is logged
			return
		}
	}
}

// snapKey is one key of a snapshot.
type snapKey struct {
	key    []byte
	str    []byte        // a string's value (v is nil)
	v      *rdb.Value    // a collection's value
	sug    *suggest.Trie // a suggestion dictionary (a copy), saved in sugAux
	cold   uint64        // a cold value's tier record (str and v are nil), read through the snapshot's view
	expire int64         // unix ms, or -1
	idle   int64         // seconds since last access (under LRU)
	freq   int           // the LFU counter (under LFU)
}

// value returns k's value, a string's in scratch.
func (k *snapKey) value(scratch *rdb.Value) *rdb.Value {
	if k.v != nil {
		return k.v
	}
	*scratch = rdb.Value{Kind: rdb.KindString, Str: k.str}
	return scratch
}

// byteArena hands out copies of byte strings from shared chunks: a
// snapshot's keys and strings cost the collector a few big pointer-free
// allocations instead of two small ones each.
type byteArena struct{ buf []byte }

const (
	arenaChunk = 256 << 10
	arenaOwn   = 16 << 10 // strings from this size get an allocation of their own
)

func (a *byteArena) copy(b []byte) []byte {
	return a.copyString(unsafe.String(unsafe.SliceData(b), len(b)))
}

func (a *byteArena) copyString(s string) []byte {
	if len(s) >= arenaOwn {
		return []byte(s)
	}
	if cap(a.buf)-len(a.buf) < len(s) {
		a.buf = make([]byte, 0, arenaChunk)
	}
	n := len(a.buf)
	a.buf = append(a.buf, s...)
	return a.buf[n:len(a.buf):len(a.buf)]
}

// snapshot is a consistent image of the dataset: every database's keys
// and the function libraries. A background snapshot (cow) is read from
// the live dataset as it is encoded, except the keys commands copied
// before the encoder reached them (dbs); a save made under the global
// lock reads the databases themselves (live).
type snapshot struct {
	dbs [][]snapKey
	// cow is the copy-on-write snapshot whose walk hands the encoder
	// the keys not in dbs (eachSnapKey); sizes are its databases' keys
	// and keys with an expiration when it started (RESIZEDB hints).
	cow   *cowSnap
	sizes [][2]uint64
	// live, when set instead of dbs, are the databases, encoded in place:
	// the snapshot is written under the global lock, held exclusively
	// from liveSnapshot on (SAVE, FLUSHALL, DEBUG RELOAD, shutdown).
	live      []*keyspace.DB
	functions []string
	search    []byte // the search indexes' definitions (searchDefinitions)
	// repl is the replication stream's state at the snapshot, written in
	// the file's auxiliary fields (nil: none; replication.Master.SaveInfo).
	repl  *rdb.ReplInfo
	dirty int64 // the write commands it covers
	// kill, when closed, stops writing the snapshot (errSaveKilled);
	// nil for a save nothing can kill.
	kill <-chan struct{}
	// delay runs before each key (rdb-key-save-delay); nil: keySaveDelay.
	delay func(kill <-chan struct{}) error
	// progress, when set, counts the keys written (a child's job:
	// current_save_keys_processed).
	progress *atomic.Int64
	// view is the disk tier as it was when the snapshot started, which
	// its cold values (snapKey.cold) are read from; nil without tiering
	// and for a live snapshot (read from the store itself).
	view *snapView
}

// eachSnapKey calls fn for every key of snap, database by database,
// after sel at each change of database; what they write goes through hw.
// With a copy-on-write snapshot the walk comes first: fn gets each entry
// no command has copied, read where it is under its key lock, and hw
// holds what fn writes until the lock is released. The copies follow,
// database by database again. The key delay (rdb-key-save-delay) runs
// after each key, unlocked, before the key counts as written (as in
// Redis's rdbSaveKeyValuePair).
func (s *Server) eachSnapKey(snap *snapshot, hw *holdWriter, sel func(db int, keys, expires uint64) error, fn func(db int, k *snapKey) error) error {
	delay := snap.keyDelay(s)
	cur := -1
	use := func(db int, keys, expires uint64) error {
		if db == cur {
			return nil
		}
		cur = db
		return sel(db, keys, expires)
	}
	if cs := snap.cow; cs != nil {
		if !cs.walking.CompareAndSwap(false, true) {
			return errors.New("snapshot encoded twice")
		}
		err := cs.walk(func(db int, e *keyspace.Entry) error {
			k, ok := s.snapKeyOf(db, e)
			if !ok {
				return nil
			}
			hw.held = true
			if err := use(db, snap.sizes[db][0], snap.sizes[db][1]); err != nil {
				return err
			}
			return fn(db, &k)
		}, func() error {
			if err := hw.release(); err != nil {
				return err
			}
			if err := delay(snap.kill); err != nil {
				return err
			}
			snap.wrote()
			return nil
		})
		if err != nil {
			return err
		}
	}
	for i, keys := range snap.dbs {
		if len(keys) == 0 {
			continue
		}
		expires := 0
		for _, k := range keys {
			if k.expire >= 0 {
				expires++
			}
		}
		if err := use(i, uint64(len(keys)), uint64(expires)); err != nil {
			return err
		}
		for j := range keys {
			if err := fn(i, &keys[j]); err != nil {
				return err
			}
			if err := delay(snap.kill); err != nil {
				return err
			}
			snap.wrote()
		}
	}
	return nil
}

// holdWriter passes writes to w, except while held: then it keeps them
// until release. The snapshot's walk encodes a key under the key's lock,
// and writes it to a pipe or a replica only once the lock is released.
type holdWriter struct {
	w    io.Writer
	held bool
	buf  []byte
}

func (h *holdWriter) Write(p []byte) (int, error) {
	if h.held {
		h.buf = append(h.buf, p...)
		return len(p), nil
	}
	return h.w.Write(p)
}

// release writes what was held and stops holding.
func (h *holdWriter) release() error {
	h.held = false
	if len(h.buf) == 0 {
		return nil
	}
	_, err := h.w.Write(h.buf)
	h.buf = h.buf[:0]
	if cap(h.buf) > 1<<20 {
		h.buf = nil // a big value's: not kept for the small ones
	}
	return err
}

// wrote counts a key written.
func (snap *snapshot) wrote() {
	if snap.progress != nil {
		snap.progress.Add(1)
	}
}

// keyDelay is the delay snap's encoder runs before each key.
func (snap *snapshot) keyDelay(s *Server) func(kill <-chan struct{}) error {
	if snap.delay != nil {
		return snap.delay
	}
	return s.keySaveDelay
}

// snapView holds a background snapshot's view of the disk tier. It is
// closed when the last snapshot that uses it is collected (a snapshot
// may be written several times: a BGSAVE and replicas' full syncs).
type snapView struct{ v *tier.View }

// newSnapView returns a view of the tier, or nil without tiering.
func (s *Server) newSnapView() *snapView {
	if !s.tiering() {
		return nil
	}
	sv := &snapView{v: s.tier.store.View()}
	runtime.AddCleanup(sv, func(v *tier.View) { v.Close() }, sv.v)
	return sv
}

// saveLive writes the snapshot file from the live dataset under the
// global lock, taken exclusively with g unless g holds it already: the
// server waits for the save, as Redis's SAVE blocks it.
func (s *Server) saveLive(g *lock.Guard, opts rdb.EncodeOptions) error {
	if !g.GlobalExclusive() {
		g.LockGlobal()
		defer g.Unlock()
	}
	return s.writeSnapshot(s.liveSnapshot(), opts)
}

// liveSnapshot is the dataset as it is, for a snapshot written before the
// caller, which holds the global lock exclusively, releases it: nothing
// is copied.
func (s *Server) liveSnapshot() *snapshot {
	snap := &snapshot{live: s.dbs, dirty: s.dirty(), repl: s.replSaveInfo(), search: s.searchDefinitions()}
	for _, l := range s.scripting.engine.Libraries() {
		snap.functions = append(snap.functions, l.Code)
	}
	return snap
}

// replSaveInfo is the replication state a snapshot records (the caller
// holds the global lock exclusively), nil when there is none.
func (s *Server) replSaveInfo() *rdb.ReplInfo {
	if l := s.replicaLink(); l != nil {
		// A replica records its master's stream, for a restart to
		// continue it (Redis's rdbPopulateSaveInfo).
		id := l.ReplID()
		if id == "" {
			return nil // it never synchronized
		}
		off := s.appliedOffset(l)
		if off < 0 {
			return nil
		}
		return &rdb.ReplInfo{StreamDB: int(s.replica.master.dbIndex.Load()), ID: id, Offset: off}
	}
	id, offset, db, ok := s.repl.SaveInfo()
	if !ok {
		return nil
	}
	return &rdb.ReplInfo{StreamDB: db, ID: id, Offset: offset}
}

// rdbPath is the snapshot file: dbfilename in dir.
func (s *Server) rdbPath() string {
	return filepath.Join(s.cfg.Lookup("dir").String(), s.cfg.Lookup("dbfilename").String())
}

// writeSnapshot writes snap to the snapshot file, through a temporary file
// renamed over it once synced, as Redis does.
func (s *Server) writeSnapshot(snap *snapshot, opts rdb.EncodeOptions) error {
	ps := &s.persist
	ps.mu.Lock()
	defer ps.mu.Unlock()
	path := s.rdbPath()
	tmp := filepath.Join(filepath.Dir(path), fmt.Sprintf("temp-%d.rdb", os.Getpid()))
	err := killed(snap.kill)
	if err == nil {
		err = s.writeRDB(tmp, snap, opts)
	}
	if err == nil {
		err = killed(snap.kill) // a killed save never replaces the file
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		if !errors.Is(err, errSaveKilled) {
			s.warnf("Failed saving the DB: %v", err)
		}
		return err
	}
	ps.lastOK.Store(true)
	ps.saves.Add(1)
	ps.savedDirty.Store(snap.dirty)
	s.lastSave.Store(time.Now().Unix())
	s.logf("DB saved on disk")
	return nil
}

func (s *Server) writeRDB(path string, snap *snapshot, opts rdb.EncodeOptions) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	if err := s.encodeSnapshot(bw, snap, opts, false); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return f.Sync()
}

// SAVE
func cmdSave(c *Client, args [][]byte) {
	s := c.srv
	if s.persist.bgRunning.Load() {
		c.errorReply(errBgsaveInProgress)
		return
	}
	if err := s.saveLive(c.guard, c.encodeOptions()); err != nil {
		c.errorReply(errSaveFailed)
		return
	}
	c.w.OK()
}

// BGSAVE [SCHEDULE]
func cmdBgsave(c *Client, args [][]byte) {
	if len(args) > 2 || len(args) == 2 && !equalFold(args[1], "schedule") {
		c.errorReply(errSyntax)
		return
	}
	s := c.srv
	if !s.persist.bgRunning.Load() && (s.aof.rewriting.Load() || c.tx.inExec) {
		// One child at a time, as in Redis: the cron starts a scheduled
		// save once the rewrite's child is done.
		if len(args) == 2 || c.tx.inExec {
			s.persist.scheduled.Store(true)
			c.w.Simple("Background saving scheduled")
			return
		}
		c.errorReply(errBgsaveOtherChild)
		return
	}
	switch err := s.bgsave(c); {
	case errors.Is(err, errBgRunning):
		c.errorReply(errBgsaveInProgress) // SCHEDULE too, as in Redis
	case err != nil:
		c.errorReply(errSaveFailed) // Redis's shared.err
	default:
		c.w.Simple("Background saving started")
	}
}

// errBgRunning: a background save is running already.
var errBgRunning = errors.New("a background save is running")

// bgsave starts a background save: the child that writes the file
// (bgjob.go), then a snapshot of the dataset under the global lock (held
// by c's guard, or taken with it), which a goroutine of its own encodes
// into the child. It returns errBgRunning when a background save is
// running already, and the error (logged, and rdb_last_bgsave_status
// err, as Redis's failed fork) when the child cannot be started.
func (s *Server) bgsave(c *Client) error {
	ps := &s.persist
	if !ps.bgRunning.CompareAndSwap(false, true) {
		return errBgRunning
	}
	path := s.rdbPath()
	ch, err := s.startChild(bgchild.RDB, filepath.Dir(path), path)
	if err != nil {
		s.warnf("Can't save in background: fork: %s", errnoText(err))
		ps.lastOK.Store(false)
		ps.failed.Add(1)
		ps.bgRunning.Store(false)
		return err
	}
	g := c.guard
	if !g.GlobalExclusive() {
		g.LockGlobal()
		defer g.Unlock()
	}
	cs := s.startSnapshot()
	progress := s.startProgress()
	opts := c.encodeOptions()
	delay := s.childSaveDelay()
	ps.bgStarted.Store(time.Now().Unix())
	s.logf("Background saving started by pid %d", ch.Pid())
	kill := ps.bgKill.arm()
	ps.child.Store(ch)
	go func() {
		defer ps.child.Store(nil)
		start := time.Now()
		snap := cs.snap
		ps.mu.Lock() // one save at a time writes the file
		st := s.feedChild(ch, kill, func(w io.Writer, stop <-chan struct{}) error {
			snap.kill, snap.delay, snap.progress = stop, delay, progress
			return s.encodeSnapshot(w, snap, opts, false)
		})
		cs.release()
		ps.lastCow.Store(cs.copied.Load())
		s.bgsaveDone(snap, st)
		s.endProgress()
		ps.mu.Unlock()
		ps.bgKill.disarm(kill)
		ps.lastBgSecs.Store(int64(time.Since(start).Seconds()))
		ps.bgRunning.Store(false)
		if ps.scheduled.CompareAndSwap(true, false) && !s.closing.Load() {
			s.bgsave(s.newInternalClient(backgroundClient, 0, 0))
		}
	}()
	return nil
}

// bgsaveDone records the outcome of a background save whose child ended
// with st, as Redis's backgroundSaveDoneHandlerDisk. Only a background
// save's failure is rdb_last_bgsave_status's (and MISCONF's): SAVE's and
// a shutdown's are not, in Redis.
func (s *Server) bgsaveDone(snap *snapshot, st bgchild.Status) {
	ps := &s.persist
	switch {
	case st.OK():
		s.logf("Background saving terminated with success")
		ps.lastOK.Store(true)
		ps.saves.Add(1)
		ps.savedDirty.Store(snap.dirty)
		s.lastSave.Store(time.Now().Unix())
	case st.Signal == 0:
		s.warnf("Background saving error")
		ps.lastOK.Store(false)
		ps.failed.Add(1)
	default:
		s.warnf("Background saving terminated by signal %d", int(st.Signal))
		if !st.Killed() { // SIGUSR1 is no error, as in Redis
			ps.lastOK.Store(false)
			ps.failed.Add(1)
		}
	}
}

// saveForShutdown writes a snapshot when SHUTDOWN (or a signal) asks for
// one: with SAVE, or by default when save points are configured.
// A running BGSAVE is killed first, as Redis's prepareForShutdown kills
// its child.
func (s *Server) saveForShutdown(c *Client, save, nosave bool) error {
	if s.persist.bgKill.kill() || len(s.killSyncChildren()) > 0 {
		s.warnf("There is a child saving an .rdb. Killing it!")
	}
	if a := &s.aof; a.child.Load() != nil && a.rwKill.kill() {
		s.warnf("There is a child rewriting the AOF. Killing it!")
	}
	// The killed jobs removing their children's files (rdbRemoveTempFile,
	// killAppendOnlyChild's aofRemoveTempFile).
	for s.persist.bgRunning.Load() || s.aof.child.Load() != nil {
		time.Sleep(time.Millisecond)
	}
	if nosave || !save && s.cfg.Lookup("save").String() == "" {
		return nil
	}
	if s.load.phase.Load() != loadNone {
		return nil // the dataset is half there: never saved, as in Redis
	}
	s.logf("Saving the final RDB snapshot before exiting.")
	return s.saveLive(c.guard, c.encodeOptions())
}

// SaveOnSignal is the save a SIGTERM (sigint false) or SIGINT makes before
// the process exits, as Redis's: a snapshot when save points are
// configured, unless shutdown-on-sigterm (shutdown-on-sigint) says
// "save" (always) or "nosave" (never). It reports whether the process may
// exit: a failed save stops it unless the flags say "force", as in Redis.
func (s *Server) SaveOnSignal(sigint bool) (exit bool) {
	name := "shutdown-on-sigterm"
	if sigint {
		name = "shutdown-on-sigint"
	}
	flags := s.cfg.Lookup(name).Int()
	c := s.newInternalClient(backgroundClient, 0, 0)
	s.warnf("User requested shutdown...")
	if err := s.saveForShutdown(c, flags&config.ShutdownSave != 0, flags&config.ShutdownNoSave != 0); err != nil {
		if flags&config.ShutdownForce != 0 {
			s.warnf("Error trying to save the DB. Exit anyway.")
			return true
		}
		s.warnf("Error trying to save the DB, can't exit.")
		return false
	}
	return true
}

// LoadSnapshot loads the snapshot file (dir/dbfilename) into the empty
// server at start-up, if it exists. A corrupt file is an error naming the
// file and the offset.
//
// At start-up, a file whose content is corrupt or truncated is what Redis
// reports through rdbReportError and exits for: the reason is logged, then
// a summary as redis-check-rdb's on standard output, then "Terminating
// server after rdb file reading failure.", and the error is
// ErrLoadTerminated (the process exits without another message).
func (s *Server) LoadSnapshot() error { return s.loadSnapshot(true, dupReplace) }

// loadStartup runs load, the load at start-up, as a load clients see
// (loading.go) of total bytes (0: unknown), under the global lock, which
// it hands to load.
//
// Under LoadAndServe the load phase began before and ends only once
// LoadData is done — its append-only file open included: a write
// accepted before the appender starts would be acknowledged and lost.
func loadStartup[T any](s *Server, total int64, load func(*lock.Guard) (T, error)) (T, error) {
	g := s.locks.NewGuard(0)
	g.LockGlobal()
	defer g.Unlock()
	if s.load.phase.Load() == loadNone {
		s.startLoading(total, false)
		defer s.stopLoading()
	} else {
		s.load.total.Store(total)
		s.load.loaded.Store(0)
	}
	return load(g)
}

// dupMode says what loading a key or function library that exists
// already does.
type dupMode int

const (
	// dupReplace: the loaded one replaces it (a fresh dataset; DEBUG
	// RELOAD MERGE).
	dupReplace dupMode = iota
	// dupRefuse: the load fails (DEBUG RELOAD NOFLUSH).
	dupRefuse
)

// ErrLoadTerminated is LoadSnapshot's error after Redis's "Terminating
// server after rdb file reading failure.", logged already.
var ErrLoadTerminated = errors.New("terminating server after rdb file reading failure")

func (s *Server) loadSnapshot(startup bool, dup dupMode) error {
	path := s.rdbPath()
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if startup {
		var size int64
		if fi, err := f.Stat(); err == nil {
			size = fi.Size()
		}
		_, err := loadStartup(s, size, func(*lock.Guard) (struct{}, error) {
			return struct{}{}, s.readSnapshot(path, f, true, dup)
		})
		return err
	}
	return s.readSnapshot(path, f, false, dup)
}

// readSnapshot loads the snapshot file f (at path), at start-up or not.
func (s *Server) readSnapshot(path string, f *os.File, startup bool, dup dupMode) error {
	start := time.Now()
	var counts loadCounts
	fr := s.rdbReader(&counts, false, dup == dupRefuse, s.dbs)
	if dup == dupRefuse {
		onKey := fr.OnKey
		fr.OnKey = func(i int, key []byte, v *rdb.Value, expireMs, idle int64, freq int) error {
			if s.dbs[i].Peek(key) != nil {
				s.warnf("RDB has duplicated key '%s' in DB %d", key, i)
				return fmt.Errorf("duplicated key %q in DB %d", key, i)
			}
			return onKey(i, key, v, expireMs, idle, freq)
		}
	} else if !startup {
		fr.OnFunction = func(code string) error {
			_, err := s.scripting.engine.LoadLibrary(code, true)
			return err
		}
	}
	fr.SkipChecksum = !s.cfg.Lookup("rdbchecksum").Bool() || s.skipChecksum.Load()
	var repl replAux
	onAux := fr.OnAux // the load's own fields (used-mem)
	fr.OnAux = func(key, value []byte) error {
		onAux(key, value)
		return repl.read(key, value)
	}
	if startup {
		// A master that continues its stream (replAux) propagates the
		// keys the load found expired, as Redis feeds its backlog while
		// it loads: its replicas continue with them.
		onKey := fr.OnKey
		fr.OnKey = func(i int, key []byte, v *rdb.Value, expireMs, idle int64, freq int) error {
			expired := counts.expired
			err := onKey(i, key, v, expireMs, idle, freq)
			if counts.expired != expired && repl.valid() {
				repl.expired = append(repl.expired, dbKey{i, string(key)})
			}
			return err
		}
	}
	info, err := fr.Read(bufio.NewReaderSize(s.load.counting(f), 1<<20))
	if err != nil {
		if startup {
			if s.reportFileError(path, err, &counts) {
				return ErrLoadTerminated
			}
		} else {
			s.reportLoadError(err, true)
		}
		return fmt.Errorf("loading %s: %w", path, err)
	}
	if info.Version >= 5 && info.Checksum == 0 && !fr.SkipChecksum {
		s.warnf("RDB file was saved with checksum disabled: no check performed.")
	}
	s.searchRestore(counts.search)
	s.persist.loadedKeys.Store(counts.loaded)
	s.persist.expiredAt.Store(counts.expired)
	if info.EmptyKeysSkipped > 0 {
		s.warnf("Done loading RDB, keys loaded: %d, keys expired: %d, empty keys skipped: %d.", counts.loaded, counts.expired, info.EmptyKeysSkipped)
	} else {
		s.logf("Done loading RDB, keys loaded: %d, keys expired: %d.", counts.loaded, counts.expired)
	}
	s.logf("DB loaded from disk: %.3f seconds", time.Since(start).Seconds())
	s.returnMemorySoon() // the decoding's garbage
	if _, _, replica := s.cfg.Lookup("replicaof").ReplicaOf(); startup && repl.valid() && !replica {
		// The replicas of the master before the restart may continue.
		s.repl.Restart(repl.id, repl.offset)
		for _, k := range repl.expired {
			s.propagateDel(k.db, k.key)
		}
	} else if startup && repl.valid() && int(repl.db) < len(s.dbs) {
		// A replica continues its master's stream from there.
		s.repl.Follow(repl.id, repl.offset, true)
		s.replica.mu.Lock()
		s.replica.restored = &rdb.ReplInfo{ID: repl.id, Offset: repl.offset, StreamDB: int(repl.db)}
		s.replica.mu.Unlock()
	}
	return nil
}

// readAux takes what a load shows of a snapshot's auxiliary field: its
// used-mem, INFO's loading_rdb_used_mem.
func (s *Server) readAux(key, value []byte) {
	if string(key) == "used-mem" {
		s.load.usedMem.Store(max(parseIntDefault(value), 0))
	}
}

// replAux collects the replication fields of a snapshot being loaded.
type replAux struct {
	id           string
	offset, db   int64
	seenOffset   bool
	seenStreamDB bool
	expired      []dbKey // the keys the load found expired
}

// dbKey is a key of a database.
type dbKey struct {
	db  int
	key string
}

func (r *replAux) read(key, value []byte) error {
	switch string(key) {
	case "repl-id":
		r.id = string(value)
	case "repl-offset":
		r.offset, r.seenOffset = parseIntDefault(value), true
	case "repl-stream-db":
		r.db, r.seenStreamDB = parseIntDefault(value), true
	}
	return nil
}

// valid is Redis's check: an ID, an offset and a stream database (older
// versions wrote -1 there wrongly).
func (r *replAux) valid() bool {
	return len(r.id) == 40 && r.seenOffset && r.offset != -1 && r.seenStreamDB && r.db != -1
}

// parseIntDefault is parseInt, -1 for what is not an integer.
func parseIntDefault(b []byte) int64 {
	if n, ok := parseInt(b); ok {
		return n
	}
	return -1
}

// reportFileError logs, for a file whose content Redis would refuse at
// start-up, what Redis logs before it exits (rdbReportError with
// rdbFileBeingLoaded set): a checksum mismatch, the report of a corrupt
// value, or, for a file that ends early or a value rejected without a
// report, "Short read or OOM loading DB" and "Unexpected EOF reading RDB
// file"; then redis-check-rdb's summary on standard output (reduced to
// the error and the counts: HotKV does not list the file's fields) and the
// termination line. It returns false, logging nothing, for other errors
// (I/O errors, a wrong signature or version, unsupported data), which
// Redis reports as a fatal error loading the DB.
func (s *Server) reportFileError(path string, err error, counts *loadCounts) bool {
	var fe *rdb.FileError
	if !errors.As(err, &fe) || fe.Offset < 9 || errors.Is(err, rdb.ErrUnsupported) ||
		!(errors.Is(err, rdb.ErrCorrupt) || errors.Is(err, rdb.ErrTruncated)) {
		return false
	}
	// redis-check-rdb finds a wrong checksum or a short read itself, and
	// exits; a corrupt value it reports as the server did, and returns.
	var ce *rdb.ChecksumError
	if errors.As(err, &ce) {
		s.warnf("Wrong RDB checksum expected: (%x) but got (%x). Aborting now.", ce.Computed, ce.Stored)
	}
	check, terminate := "", true
	switch msg := s.reportLoadError(err, false); {
	case errors.As(err, &ce):
		check, terminate = "RDB CRC error", false
	case msg != "":
		check = msg
	default:
		s.warnf("Short read or OOM loading DB. Unrecoverable error, aborting now.")
		s.warnf("Internal error in RDB reading offset 0, function at rdb.c:3249 -> Unexpected EOF reading RDB file")
		check, terminate = "Unexpected EOF reading RDB file", false
	}
	fmt.Fprintf(os.Stdout, "[offset 0] Checking RDB file %s\n--- RDB ERROR DETECTED ---\n[offset %d] %s\n"+
		"[info] %d keys read\n[info] %d expires\n[info] %d already expired\n",
		filepath.Base(path), fe.Offset, check, counts.loaded+counts.expired, counts.withExpire, counts.expired)
	if terminate {
		s.warnf("Terminating server after rdb file reading failure.")
	}
	return true
}

// loadCounts counts the keys an RDB load read, and keeps the search
// indexes' definitions it found (searchAux) for searchRestore.
type loadCounts struct {
	loaded, expired, withExpire int64
	search                      []byte
}

// rdbReader returns a reader that loads an RDB file into dbs, empty
// databases (the dataset's, or a replica's databases for an asynchronous
// load). Keys already expired are skipped, unless keepExpired (the base
// of an append-only file, whose commands may still use them; a replica's
// payload, whose expired keys the master's DELs remove). Its keys are
// stored by insert workers (loadpar.go) unless inline: a caller that
// looks each key up before it is stored (a duplicate check) needs it.
func (s *Server) rdbReader(counts *loadCounts, keepExpired, inline bool, dbs []*keyspace.DB) *rdb.FileReader {
	now := s.dbs[0].Now()
	empty := 0
	ins := s.newKeyInserter(inline)
	return &rdb.FileReader{
		Databases:    len(s.dbs),
		ShareStrings: true, // SetString copies them
		OnAux: func(key, value []byte) error {
			s.readAux(key, value)
			switch string(key) {
			case searchAux:
				counts.search = bytes.Clone(value)
			case sugAux: // after the keys: the dictionaries join them
				ins.wait()
				loaded, expired := s.sugRestore(dbs, value, keepExpired, now)
				counts.loaded += loaded
				counts.expired += expired
			}
			return nil
		},
		OnFunction: func(code string) error {
			_, err := s.scripting.engine.LoadLibrary(code, false)
			return err
		},
		OnResizeDB: func(i int, keys, _ uint64) error {
			if i < len(dbs) {
				dbs[i].Reserve(int(min(keys, 1<<30))) // a hint: a wrong one costs memory, nothing else
			}
			return nil
		},
		OnEmptyKey: func(_ int, key []byte) error {
			if empty++; empty <= 10 {
				s.warnf("rdbLoadObject skipping empty key: %s", key)
			}
			return nil
		},
		OnKey: func(i int, key []byte, v *rdb.Value, expireMs, idle int64, freq int) error {
			if expireMs >= 0 {
				counts.withExpire++
			}
			if !keepExpired && expireMs >= 0 && expireMs <= now {
				counts.expired++
				return nil
			}
			ins.insert(dbs[i], key, v, expireMs, idle, freq)
			counts.loaded++
			return nil
		},
		OnEnd: func() error {
			ins.wait()
			return nil
		},
	}
}
