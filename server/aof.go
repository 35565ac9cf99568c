package server

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/aof"
	"github.com/hotkv/hotkv/bgchild"
	"github.com/hotkv/hotkv/config"
	"github.com/hotkv/hotkv/journal"
	"github.com/hotkv/hotkv/keyspace"
	"github.com/hotkv/hotkv/lock"
	"github.com/hotkv/hotkv/rdb"
	"github.com/hotkv/hotkv/rlog"
	"github.com/hotkv/hotkv/stream"
)

// The append-only file (appendonly yes): Redis 7.0's multi-part AOF,
// written through package aof.
//
// The AOF is a subscriber of the journal (propagate.go): each unit is
// written to the stage as it is appended, under the journal's mutex, while
// the command that appends it holds its keys' locks. Replies are sent
// only once the stage is written to the file (appendfsync everysec and
// no) or written and fsynced (always), as Redis writes its AOF buffer
// before any reply of an event loop iteration: a client's flush holds its
// output while the stream is behind (eventloop.Conn.Hold). At the end of the loop's batch one write
// (and with always one fsync) covers every client of the batch, and those
// of the other loops waiting at the same time (group commit: whoever
// holds wmu writes and fsyncs everything staged).
//
// A rewrite (BGREWRITEAOF, auto-aof-rewrite-percentage) has no fork: under
// the exclusive global lock the stage is flushed, a new incremental file
// started and the dataset copied (the pause); the new base is written
// from the copy in the background and installed with the manifest.

// aofState is the append-only file's state.
type aofState struct {
	// log is the server's log (fatal errors are written there).
	log *rlog.Logger

	// on: the file is open and the AOF subscribed to the journal.
	on atomic.Bool

	// journal is the stream the AOF subscribes to. Its mutex guards the
	// stage and the feeder: Write runs under it, everything else reaches
	// them through journal.Do (one mutex per write, not two).
	journal *journal.Journal
	stage   []byte
	feeder  *aof.Feeder
	// timestamps is aof-timestamp-enabled, read at every write (CONFIG SET
	// takes effect at once, as in Redis).
	timestamps *config.Param
	// closeLogged is set once the shutdown's close was logged (closeAOF).
	closeLogged atomic.Bool
	// fed is the AOF's own offset of the end of the stage (bytes staged
	// since start-up, with its SELECTs and timestamps); written and synced
	// how far the file has it.
	fed, written, synced atomic.Int64

	// wmu owns the files: the appender, the directory, rotation. Never
	// taken under the journal's mutex or a key lock (but under the exclusive global lock
	// when a rewrite starts).
	wmu    sync.Mutex
	app    atomic.Pointer[aof.Appender]
	dir    *aof.Dir
	spare  []byte
	always atomic.Bool // appendfsync always
	// failed: the last write or fsync failed (writes get MISCONF).
	failed atomic.Bool
	// waitRewrite: AOF was turned on at run time and writes go to the
	// temporary incremental file until the first rewrite is installed.
	waitRewrite bool
	// tempIncrGone: under waitRewrite, a failed rewrite removed the
	// temporary incremental file (the appender writes to the unlinked
	// file until the next rewrite opens a new one).
	tempIncrGone bool

	// curSize is aof_current_size, baseSize aof_base_size.
	curSize, baseSize atomic.Int64

	rewriting   atomic.Bool
	rwScheduled atomic.Bool
	// enableInExec: CONFIG SET appendonly runs inside EXEC (the
	// appendonly hook schedules its rewrite); under the exclusive global
	// lock, which that CONFIG SET holds.
	enableInExec bool
	rwStarted    atomic.Int64 // unix seconds
	rwLastSecs   atomic.Int64 // -1 before one
	rwCount      atomic.Int64
	rwFailures   atomic.Int64 // consecutive
	rwLastOK     atomic.Bool
	rwKill       killSwitch   // stops the running rewrite (appendonly no)
	lastCow      atomic.Int64 // what the last rewrite's snapshot copied (aof_last_cow_size)
	// limitDelay (minutes) and limitNext (unix seconds) are the limit on
	// the cron's rewrites after failures (aofRewriteLimited; cron only).
	limitDelay, limitNext int64
	// flushSleep is DEBUG AOF-FLUSH-SLEEP's microseconds: a flush with
	// data to write sleeps that long first, as Redis's (tests).
	flushSleep atomic.Int64
	// child is the running rewrite's child process, nil without one.
	child atomic.Pointer[bgchild.Child]
}

// exitProcess ends the process after a fatal error (tests replace it).
var exitProcess = os.Exit

// Write appends a unit of the journal to the stage: its commands (MULTI
// ... EXEC around several records) through the AOF's feeder, which adds
// the SELECTs of the file (its own: a rewrite's new incremental file
// starts with one) and the timestamps. It is the AOF's journal.Subscriber:
// called under the journal's mutex, while subscribed (on).
func (a *aofState) Write(u *journal.Unit) {
	var now int64
	if a.feeder.Timestamps = a.timestamps.Bool(); a.feeder.Timestamps {
		now = time.Now().Unix()
	}
	n := len(a.stage)
	for i := range u.Commands() {
		if u.Target(i)&journal.ToAOF == 0 {
			continue // for replicas only (PUBLISH, redis.set_repl)
		}
		db, cmd := u.Command(i)
		a.stage = a.feeder.FeedEncoded(a.stage, now, db, cmd)
	}
	a.fed.Add(int64(len(a.stage) - n))
}

// behind reports whether replies must wait for the file: the stream fed
// so far is not yet written (fsynced with always).
func (a *aofState) behind() bool {
	if !a.on.Load() {
		return false
	}
	if a.always.Load() {
		return a.synced.Load() < a.fed.Load()
	}
	return a.written.Load() < a.fed.Load()
}

// sync makes the stream fed so far as durable as appendfsync promises
// before replies are sent. Concurrent callers share one write and fsync.
func (a *aofState) sync() {
	if !a.behind() {
		return
	}
	a.wmu.Lock()
	if a.behind() {
		a.flushLocked(false)
	}
	a.wmu.Unlock()
}

// flushLocked hands the stage to the appender and flushes it according to
// appendfsync (force: now, even while a background fsync runs). With
// always a failed write or fsync ends the process, as in Redis; otherwise
// the error is remembered and writes are refused (MISCONF) until a later
// flush succeeds. The caller holds wmu.
func (a *aofState) flushLocked(force bool) error {
	app := a.app.Load()
	if app == nil {
		return nil
	}
	var buf []byte
	var off int64
	a.journal.Do(func() {
		buf, off = a.stage, a.fed.Load()
		a.stage = a.spare[:0]
	})
	if us := a.flushSleep.Load(); us > 0 && len(buf) > 0 {
		time.Sleep(time.Duration(us) * time.Microsecond)
	}
	app.Append(buf)
	if cap(buf) <= 1<<20 {
		a.spare = buf[:0]
	} else {
		a.spare = nil
	}
	before := app.Size()
	res, err := app.Flush(force)
	a.curSize.Add(app.Size() - before)
	if err == nil && app.Policy == aof.FsyncAlways && !res.Synced && a.synced.Load() < off {
		err = app.Sync() // data written before the policy became always
	}
	a.failed.Store(app.Err() != nil)
	if err != nil {
		if app.Policy == aof.FsyncAlways {
			a.logFatal("Can't recover from AOF write error when the AOF fsync policy is 'always': %v. Exiting...", err)
		}
		return err
	}
	if res.Postponed {
		return nil
	}
	a.written.Store(off)
	if app.Policy == aof.FsyncAlways {
		a.synced.Store(off)
	}
	return nil
}

// logFatal logs a fatal error at warning level and ends the process.
func (a *aofState) logFatal(format string, args ...any) {
	a.log.Logf(rlog.Warning, format, args...)
	exitProcess(1)
}

// cron is the AOF's part of the server cron: postponed writes, the
// once-a-second fsync (everysec), retries after a write error, and the
// automatic rewrite.
func (s *Server) aofCron() {
	a := &s.aof
	if a.on.Load() {
		a.wmu.Lock()
		a.flushLocked(false)
		a.wmu.Unlock()
	}
	if a.rwScheduled.Load() && !a.rewriting.Load() && !s.persist.bgRunning.Load() && !s.aofRewriteLimited() {
		if s.rewriteAOF(false) == nil {
			a.rwScheduled.Store(false)
		}
		return
	}
	if !a.on.Load() || a.rewriting.Load() || s.persist.bgRunning.Load() {
		return // one child at a time, as in Redis
	}
	perc := s.cfg.Lookup("auto-aof-rewrite-percentage").Int()
	minSize := s.cfg.Lookup("auto-aof-rewrite-min-size").Int()
	cur, base := a.curSize.Load(), max(a.baseSize.Load(), 1)
	if perc > 0 && cur > minSize && (cur*100/base)-100 >= perc && !s.aofRewriteLimited() {
		s.logf("Starting automatic rewriting of AOF on %d%% growth", (cur*100/base)-100)
		s.rewriteAOF(false)
	}
}

// The limit on automatic rewrites after failures (Redis's
// AOF_REWRITE_LIMITE_THRESHOLD and AOF_REWRITE_LIMITE_MAX_MINUTES).
const (
	rewriteLimitThreshold  = 3
	rewriteLimitMaxMinutes = 60
)

// aofRewriteLimited is Redis's aofRewriteLimited: after 3 consecutive
// failed rewrites, the cron's rewrites (scheduled or automatic) wait 1
// minute, then 2, 4 ... up to an hour, each wait logged; BGREWRITEAOF
// still runs at once. Called by the cron only (limitDelay, limitNext are
// its own).
func (s *Server) aofRewriteLimited() bool {
	a := &s.aof
	if a.rwFailures.Load() < rewriteLimitThreshold {
		a.limitDelay, a.limitNext = 0, 0
		return false
	}
	now := time.Now().Unix()
	if a.limitNext != 0 {
		if now < a.limitNext {
			return true
		}
		a.limitNext = 0
		return false
	}
	a.limitDelay = min(max(a.limitDelay*2, 1), rewriteLimitMaxMinutes)
	a.limitNext = now + a.limitDelay*60
	s.warnf("Background AOF rewrite has repeatedly failed and triggered the limit, will retry in %d minutes", a.limitDelay)
	return true
}

// misconf returns the error that refuses writes while the AOF cannot be
// written, or "".
func (a *aofState) misconf() string {
	if !a.failed.Load() || !a.on.Load() {
		return ""
	}
	if app := a.app.Load(); app != nil {
		return app.Misconf()
	}
	return ""
}

// writesDenied returns the MISCONF error that refuses writes while the
// data cannot be persisted, as Redis's writeCommandsDeniedByDiskError: the
// last snapshot failed (stop-writes-on-bgsave-error, with save points),
// or writing or fsyncing the AOF failed; "" when writes are accepted.
func (s *Server) writesDenied() string {
	if ps := &s.persist; !ps.lastOK.Load() && ps.failed.Load() > 0 &&
		s.cfg.Lookup("stop-writes-on-bgsave-error").Bool() && s.cfg.Lookup("save").String() != "" {
		return errMisconfRDB
	}
	return s.aof.misconf()
}

// aofDir opens the AOF directory named by the configuration.
func (s *Server) aofDir() (*aof.Dir, error) {
	path := filepath.Join(s.cfg.Lookup("dir").String(), s.cfg.Lookup("appenddirname").String())
	d, err := aof.OpenDir(path, s.cfg.Lookup("appendfilename").String())
	if err != nil {
		return nil, err
	}
	d.RDBPreamble = s.cfg.Lookup("aof-use-rdb-preamble").Bool()
	d.Log = s.aofLog
	return d, nil
}

func (s *Server) aofLog(level aof.LogLevel, msg string) {
	if level == aof.LogWarning {
		s.warnf("%s", msg)
	} else {
		s.logf("%s", msg)
	}
}

// LoadData loads the dataset at start-up, as Redis's loadDataFromDisk:
// from the append-only file when appendonly is yes (and then opens it for
// appending), else from the snapshot file.
func (s *Server) LoadData() error {
	if s.tierErr != nil {
		return s.tierErr // start-up is refused
	}
	if !s.cfg.Lookup("appendonly").Bool() {
		return s.LoadSnapshot()
	}
	d, err := s.aofDir()
	if err != nil {
		return err
	}
	if _, err := d.UpgradeOldStyle(s.cfg.Lookup("dir").String()); err != nil {
		return err
	}
	start := time.Now()
	res, err := loadStartup(s, 0, func(g *lock.Guard) (*aof.LoadResult, error) { return s.loadAOF(d, g) })
	var le *aof.LoadError
	if errors.As(err, &le) {
		// Logged as Redis logs it, which then exits without a word more.
		return fmt.Errorf("%w: %w", ErrLoadTerminated, err)
	}
	if err != nil {
		return err
	}
	if res.Status != aof.StatusNotExist {
		s.logf("DB loaded from append only file: %.3f seconds", time.Since(start).Seconds())
		s.returnMemorySoon() // the decoding's garbage
	}
	for _, t := range res.Trims {
		if err := t.Apply(); err != nil {
			return err
		}
		s.logf("Removed the %d bytes of zeros preallocated after the last command of %s", t.Size-t.ValidLength, t.File)
	}
	if res.Truncation != nil {
		if err := res.Truncation.Apply(); err != nil {
			return err
		}
	}
	f, _, size, err := d.OpenForAppend(func(w io.Writer) error {
		return s.encodeSnapshot(w, s.liveSnapshot(), s.defaultEncodeOptions(), true)
	})
	if err != nil {
		return err
	}
	a := &s.aof
	a.wmu.Lock()
	defer a.wmu.Unlock()
	a.dir = d
	a.baseSize.Store(res.BaseSize)
	a.curSize.Store(res.TotalSize)
	if res.Status == aof.StatusNotExist {
		a.baseSize.Store(s.aofBaseSize(d))
		a.curSize.Store(a.baseSize.Load())
	}
	s.startAppender(f, size)
	if !s.cfg.Lookup("aof-disable-auto-gc").Bool() {
		d.DeleteHistory()
	}
	return nil
}

// aofBaseSize returns the size of d's base file (0 without one).
func (s *Server) aofBaseSize(d *aof.Dir) int64 {
	if d.Manifest.Base == nil {
		return 0
	}
	fi, err := os.Stat(d.FilePath(d.Manifest.Base.Name))
	if err != nil {
		return 0
	}
	return fi.Size()
}

// startAppender starts writing to f (size bytes long) and subscribes the
// AOF to the journal (which turns propagation on). The caller holds wmu
// and no command runs (start-up, or the exclusive global lock).
func (s *Server) startAppender(f *os.File, size int64) {
	a := &s.aof
	app := aof.NewAppender(aof.OSFile(f, size), size)
	app.Log = s.aofLog
	a.app.Store(app)
	s.applyFsyncPolicy()
	feeder := aof.NewFeeder()
	a.journal.Do(func() {
		a.feeder = feeder
		a.stage = a.stage[:0]
		off := a.fed.Load()
		a.written.Store(off)
		a.synced.Store(off)
		a.on.Store(true)
	})
	a.journal.Subscribe(a)
}

// applyFsyncPolicy sets the appender's policy from appendfsync and
// appendfsync-prealloc.
func (s *Server) applyFsyncPolicy() {
	a := &s.aof
	app := a.app.Load()
	if app == nil {
		return
	}
	switch s.cfg.Lookup("appendfsync").String() {
	case "always":
		app.Policy = aof.FsyncAlways
	case "no":
		app.Policy = aof.FsyncNo
	default:
		app.Policy = aof.FsyncEverySec
	}
	app.Prealloc = s.cfg.Lookup("appendfsync-prealloc").Bool()
	a.always.Store(app.Policy == aof.FsyncAlways)
}

// loadAOF replays the files of d into the empty dataset: commands through
// the gate on a client of its own, an RDB base through the snapshot
// loader. Keys do not expire meanwhile (the file's DELs say when they
// did), as in Redis. With held, a guard holding the global lock
// exclusively (DEBUG LOADAOF), the commands take no locks.
func (s *Server) loadAOF(d *aof.Dir, held *lock.Guard) (*aof.LoadResult, error) {
	lc := s.newInternalClient(replayClient, 0, 0)
	if held != nil {
		lc.guard, lc.callerLocks = held, true
	}
	for _, db := range s.dbs {
		db.KeepExpired.Store(true)
	}
	defer func() {
		for _, db := range s.dbs {
			db.KeepExpired.Store(false)
		}
	}()
	var counts loadCounts
	// With the disk tier, values spill as the commands load them, as a
	// snapshot's do (tierSpill): the demoter waits for the load, and a
	// file larger than memory must load. Checked every 256 commands
	// (the dataset's size sums every shard).
	restored := false
	restore := func() { // once the RDB base, if any, is in
		if !restored {
			restored = true
			s.searchRestore(counts.search)
		}
	}
	spill := held != nil && held.GlobalExclusive() && s.tiering()
	var spillScratch demoteScratch
	replayed := 0
	l := &aof.Loader{
		AllowTruncated: s.cfg.Lookup("aof-load-truncated").Bool(),
		RDB:            s.rdbReader(&counts, true, false, s.dbs),
		RDBInput:       s.load.counting, // progress, and the start-up gate
		Log:            s.aofLog,
		OnCommand: func(args [][]byte) error {
			s.load.openGate() // as Redis serves from the first command
			restore()         // the RDB base's indexes follow the commands
			if lc.lookupMemo(args) == nil {
				return fmt.Errorf("%w", aof.ErrUnknownCommand)
			}
			s.dispatch(lc, args)
			if held != nil {
				s.searchSync(held) // as complete does for commands with locks of their own
			}
			lc.w.Reset()
			if replayed++; spill && replayed%256 == 0 {
				s.demoteToBudget(nil, &spillScratch, nil)
			}
			return nil
		},
	}
	res, err := l.Load(d)
	if err == nil {
		restore()
	}
	return res, err
}

// debugLoadAOF is DEBUG LOADAOF, under the global lock DEBUG holds: the
// pending writes are flushed to the file, the dataset is emptied and the
// append-only files are loaded again, as Redis does. A file that does not
// load ends the process, as in Redis (the dataset is half loaded); with no
// file at all HotKV refuses and keeps the dataset, where Redis 7.0 exits.
func debugLoadAOF(c *Client) {
	s := c.srv
	a := &s.aof
	a.wmu.Lock()
	defer a.wmu.Unlock()
	d := a.dir
	if a.on.Load() {
		a.flushLocked(true) // a failure stays in INFO (and MISCONF) as for any flush
	} else {
		var err error
		if d, err = s.aofDir(); err != nil {
			s.warnf("DEBUG LOADAOF: %v", err)
			c.errorReply(errDebugLoadAOFNone)
			return
		}
	}
	if d == nil || d.Manifest.Base == nil && len(d.Manifest.Incr) == 0 {
		c.errorReply(errDebugLoadAOFNone)
		return
	}
	s.emptyData()
	// Clients see the load as Redis's loadAppendOnlyFiles shows it: LOADING
	// (a slow script in the file makes no one BUSY meanwhile).
	s.startLoading(0, false)
	res, err := s.loadAOF(d, c.guard)
	s.stopLoading()
	if err != nil {
		s.aof.logFatal("DEBUG LOADAOF: %v", err)
		return
	}
	if !a.on.Load() {
		for _, t := range res.Trims {
			t.Apply()
		}
		if res.Truncation != nil {
			res.Truncation.Apply()
		}
	}
	if !s.cfg.Lookup("aof-disable-auto-gc").Bool() {
		d.DeleteHistory()
	}
	s.persist.savedDirty.Store(s.dirty()) // as Redis: no changes since the file
	s.logf("Append Only File loaded by DEBUG LOADAOF")
	c.w.OK()
}

// encodeSnapshot writes snap as an RDB file to w (aofBase: as the base
// of an append-only file).
func (s *Server) encodeSnapshot(w io.Writer, snap *snapshot, opts rdb.EncodeOptions, aofBase bool) error {
	repl := snap.repl
	if aofBase {
		repl = nil // as Redis's rewrite, which records no stream state
	}
	hw := &holdWriter{w: w}
	fw, err := rdb.NewFileWriter(hw, rdb.FileWriterOptions{
		RedisVersion:    RedisVersion,
		CTime:           time.Now().Unix(),
		UsedMem:         s.usedMemory(),
		AOFBase:         aofBase,
		Repl:            repl,
		DisableChecksum: !s.cfg.Lookup("rdbchecksum").Bool(),
		Encode:          opts,
	})
	if err != nil {
		return err
	}
	if snap.search != nil {
		if err := fw.WriteAux(searchAux, string(snap.search)); err != nil {
			return err
		}
	}
	for _, code := range snap.functions {
		if err := fw.WriteFunction(code); err != nil {
			return err
		}
	}
	// As Redis's rdbSaveKeyValuePair: the idle time under an LRU policy,
	// the LFU counter under an LFU one (whether or not maxmemory is set).
	p := s.evict.policyNow()
	access := func(idle int64, freq int) (int64, int) {
		switch {
		case p.LRU():
			return idle, -1
		case p.LFU():
			return -1, freq
		}
		return -1, -1
	}
	sug := newSugAux() // the dictionaries, written after the keys
	for i, db := range snap.live {
		if err := s.encodeLiveDB(fw, i, db, snap.kill, access, sug); err != nil {
			return err
		}
	}
	var str rdb.Value // the strings' values
	err = s.eachSnapKey(snap, hw, func(db int, keys, expires uint64) error {
		return fw.SelectDB(db, keys, expires)
	}, func(db int, k *snapKey) error {
		idle, freq := access(k.idle, k.freq)
		switch {
		case k.cold != 0:
			enc, err := s.snapColdPayload(snap, k.cold)
			if err == nil {
				err = fw.WriteKeyEncoded(k.key, enc, k.expire, idle, freq)
			}
			return err
		case k.sug != nil:
			sug.add(db, k.key, k.sug, k.expire)
			return nil
		}
		return fw.WriteKey(k.key, k.value(&str), k.expire, idle, freq)
	})
	if err != nil {
		return err
	}
	if len(sug.b) > 0 {
		if err := fw.WriteAux(sugAux, string(sug.b)); err != nil {
			return err
		}
	}
	return fw.Finish()
}

// encodeLiveDB writes database i, db, as it is: the caller holds the
// global lock exclusively. Keys already expired are saved too, as Redis
// 7.0's rdbSaveDb does (a load skips and counts them).
func (s *Server) encodeLiveDB(fw *rdb.FileWriter, i int, db *keyspace.DB, kill <-chan struct{}, access func(int64, int) (int64, int), sug *sugAuxBuilder) error {
	n := db.Len()
	if n == 0 {
		return nil
	}
	if err := fw.SelectDB(i, uint64(n), uint64(db.Volatile())); err != nil {
		return err
	}
	var err error
	var str rdb.Value // a string's value, reused: nothing is copied
	db.ForEachStored(func(key string, e *keyspace.Entry) bool {
		if err = s.keySaveDelay(kill); err != nil {
			return false
		}
		exp := e.Expire()
		if exp == 0 {
			exp = -1
		}
		idle, freq := access(e.IdleSeconds(), db.Freq(e))
		if id, _, cold := e.ColdRecord(); cold {
			// Copied from the tier as it is, never loaded.
			var enc []byte
			if enc, err = s.coldPayload(nil, id); err == nil {
				err = fw.WriteKeyEncoded(bytesOfString(key), enc, exp, idle, freq)
			}
			return err == nil
		}
		v := &str
		switch {
		case e.Kind == keyspace.KindString:
			str = rdb.Value{Kind: rdb.KindString, Str: e.Str()}
		case e.Kind == keyspace.KindSuggest:
			sug.add(i, bytesOfString(key), sugOf(e), exp) // in sugAux
			return true
		default:
			if v = entryValue(e); v == nil {
				return true
			}
		}
		err = fw.WriteKey(bytesOfString(key), v, exp, idle, freq)
		return err == nil
	})
	return err
}

// errRewriteRunning refuses a second rewrite.
var errRewriteRunning = errors.New(errAOFRewriteInProgress)

// rewriteAOF starts a background rewrite: the pause under the exclusive
// global lock, which the caller holds when held, else taken here (flush,
// new incremental file, copy of the dataset), then the base written and
// installed on a goroutine of its own.
func (s *Server) rewriteAOF(held bool) error {
	a := &s.aof
	if !a.rewriting.CompareAndSwap(false, true) {
		return errRewriteRunning
	}
	a.rwStarted.Store(time.Now().Unix())
	if !held {
		g := s.locks.NewGuard(0)
		g.LockGlobal()
		defer g.Unlock()
	}
	a.wmu.Lock()
	d := a.dir
	var err error
	if d == nil {
		d, err = s.aofDir() // appendonly no: a base and a manifest only
		a.dir = d
	}
	if d != nil {
		// As Redis, the base's form is the configuration's at the rewrite
		// (CONFIG SET aof-use-rdb-preamble applies to the next one).
		d.RDBPreamble = s.cfg.Lookup("aof-use-rdb-preamble").Bool()
	}
	if err == nil && a.on.Load() && a.waitRewrite && a.tempIncrGone {
		// The last rewrite failed and removed the temporary incremental
		// file: a new one, as Redis's openNewIncrAofForAppend.
		err = a.flushLocked(true)
		var f *os.File
		if err == nil {
			f, err = d.CreateTempIncr()
		}
		if err == nil {
			a.app.Load().Reopen(aof.OSFile(f, 0), 0)
			a.journal.Do(func() { a.feeder.ForceSelect() })
			a.tempIncrGone = false
		}
	}
	if err == nil && a.on.Load() && !a.waitRewrite {
		err = a.flushLocked(true)
		var f *os.File
		if err == nil {
			f, _, err = d.RotateIncr()
		}
		if err == nil {
			a.app.Load().Reopen(aof.OSFile(f, 0), 0)
			a.journal.Do(func() { a.feeder.ForceSelect() })
		}
	}
	a.wmu.Unlock()
	if err != nil {
		s.rewriteDone(err)
		return err
	}
	a.rwCount.Add(1) // aof_rewrites counts the rewrites started, as Redis's
	// The child that writes the base, in dir as Redis's (its working
	// directory), then installed from there.
	ch, err := s.startChild(bgchild.AOFRewrite, s.cfg.Lookup("dir").String(), "")
	if err == nil {
		err = d.MakeDir()
		if err != nil {
			ch.Finish(false)
		}
	} else {
		s.warnf("Can't rewrite append only file in background: fork: %s", errnoText(err))
		err = fmt.Errorf("%w: %w", errChildFailed, err)
	}
	if err != nil {
		s.rewriteDone(err)
		return err
	}
	// The snapshot starts at the same point as the new incremental file.
	cs := s.startSnapshot()
	progress := s.startProgress()
	opts := s.defaultEncodeOptions()
	delay := s.childSaveDelay()
	s.logf("Background append only file rewriting started by pid %d", ch.Pid())
	kill := a.rwKill.arm()
	a.child.Store(ch)
	go func() {
		snap := cs.snap
		st := s.feedChild(ch, kill, func(w io.Writer, stop <-chan struct{}) error {
			snap.kill, snap.delay, snap.progress = stop, delay, progress
			if !d.RDBPreamble {
				return s.writeCommandBase(w, snap, s.aof.timestamps.Bool())
			}
			return s.encodeSnapshot(w, snap, opts, true)
		})
		cs.release()
		a.lastCow.Store(cs.copied.Load())
		a.rwKill.disarm(kill)
		s.endProgress()
		a.child.Store(nil)
		var err error
		switch {
		case st.OK():
			s.logf("Background AOF rewrite terminated with success")
			err = s.installRewrite(d, ch.TempPath())
		case st.Signal == 0:
			s.warnf("Background AOF rewrite terminated with error")
			err = errChildFailed
		default:
			s.warnf("Background AOF rewrite terminated by signal %d", int(st.Signal))
			err = errChildFailed
			if st.Killed() { // SIGUSR1 is no error, as in Redis
				err = errSaveKilled
			}
		}
		if err != nil {
			s.rewriteFailed(d)
		}
		s.rewriteDone(err)
	}()
	return nil
}

// rewriteFailed cleans up after a rewrite that failed or was killed, as
// Redis's backgroundRewriteDoneHandler: while the AOF waits for its first
// rewrite (turned on at run time), the temporary incremental file is
// removed — the next rewrite, scheduled here, opens a new one, and its
// base covers what the removed one had.
func (s *Server) rewriteFailed(d *aof.Dir) {
	a := &s.aof
	a.wmu.Lock()
	defer a.wmu.Unlock()
	if a.dir != d || !a.on.Load() || !a.waitRewrite || a.tempIncrGone {
		return
	}
	a.flushLocked(true)
	d.RemoveTempIncr()
	a.tempIncrGone = true
	a.rwScheduled.Store(true)
}

// installRewrite installs the base written to tmp.
func (s *Server) installRewrite(d *aof.Dir, tmp string) error {
	a := &s.aof
	a.wmu.Lock()
	defer a.wmu.Unlock()
	if a.dir != d {
		os.Remove(tmp) // AOF was turned off meanwhile
		return errors.New("the append-only file was turned off during the rewrite")
	}
	on := a.on.Load()
	if _, err := d.InstallRewrite(tmp, on, a.waitRewrite); err != nil {
		os.Remove(tmp)
		return err
	}
	a.waitRewrite, a.tempIncrGone = false, false
	if on {
		a.journal.Do(func() { a.feeder.ForceSelect() })
	}
	base := s.aofBaseSize(d)
	a.baseSize.Store(base)
	size := base
	if app := a.app.Load(); app != nil && on {
		size += app.Size()
	}
	a.curSize.Store(size)
	if !s.cfg.Lookup("aof-disable-auto-gc").Bool() {
		d.DeleteHistory()
	}
	return nil
}

// rewriteDone records the outcome of a rewrite.
func (s *Server) rewriteDone(err error) {
	a := &s.aof
	if errors.Is(err, errSaveKilled) { // killAppendOnlyChild: no outcome
		a.rewriting.Store(false)
		return
	}
	a.rwLastSecs.Store(time.Now().Unix() - a.rwStarted.Load())
	if err != nil {
		a.rwLastOK.Store(false)
		a.rwFailures.Add(1)
		if !errors.Is(err, errChildFailed) { // else logged already
			s.warnf("Background AOF rewrite failed: %v", err)
		}
	} else {
		a.rwLastOK.Store(true)
		a.rwFailures.Store(0)
		s.logf("Background AOF rewrite finished successfully")
	}
	a.rewriting.Store(false)
}

// startAOF turns the append-only file on at run time (CONFIG SET
// appendonly yes), as Redis's startAppendOnly: writes go to a temporary
// incremental file while a rewrite writes the base; once it is installed
// the directory is complete. The caller holds the global lock
// exclusively.
func (s *Server) startAOF() error {
	a := &s.aof
	if a.on.Load() {
		return nil
	}
	for a.rewriting.Load() {
		// Redis kills a running rewrite; this one only has its base
		// left to write (it takes no lock): let it finish.
		time.Sleep(time.Millisecond)
	}
	a.wmu.Lock()
	d, err := s.aofDir()
	var f *os.File
	if err == nil {
		f, err = d.CreateTempIncr()
	}
	if err != nil {
		a.wmu.Unlock()
		s.warnf("AOF: could not turn on the append-only file: %v", err)
		return err
	}
	a.dir = d
	a.waitRewrite = true
	s.startAppender(f, 0)
	a.wmu.Unlock()
	// The rewrite that makes the file whole waits, as Redis's, for the
	// end of a transaction or of a background save: the cron starts it.
	switch {
	case s.persist.bgRunning.Load():
		a.rwScheduled.Store(true)
		s.warnf("AOF was enabled but there is already another background operation. An AOF background was scheduled to start when possible.")
		return nil
	case a.enableInExec:
		a.rwScheduled.Store(true)
		s.warnf("AOF was enabled during a transaction. An AOF background was scheduled to start when possible.")
		return nil
	}
	return s.rewriteAOF(true)
}

// stopAOF turns the append-only file off (CONFIG SET appendonly no): the
// AOF leaves the journal, what is staged is written and fsynced, and the
// file closed.
func (s *Server) stopAOF() {
	a := &s.aof
	a.wmu.Lock()
	defer a.wmu.Unlock()
	if !a.on.Load() {
		return
	}
	a.journal.Unsubscribe(a)
	a.flushLocked(true)
	a.journal.Do(func() {
		a.on.Store(false)
		a.stage = a.stage[:0]
	})
	if app := a.app.Load(); app != nil {
		app.Sync()
		app.Close()
	}
	a.app.Store(nil)
	a.rwScheduled.Store(false)
	if ch := a.child.Load(); ch != nil && a.rwKill.kill() {
		// The rewrite's goroutine sees its child exit, stops encoding and
		// removes the child's temporary file.
		s.logf("Killing running AOF rewrite child: %d", ch.Pid())
	}
	if a.waitRewrite {
		if !a.tempIncrGone {
			a.dir.RemoveTempIncr()
		}
		a.waitRewrite, a.tempIncrGone = false, false
	}
	a.dir = nil
}

// closeAOF writes and fsyncs what is staged at shutdown, as Redis does
// before it exits. Serve and Shutdown both call it: the second waits in
// stopAOF (wmu) until the first has closed the file, so that neither
// returns while the file is still being closed (its preallocated zeros
// not yet trimmed: a process that exits then leaves them).
func (s *Server) closeAOF() {
	a := &s.aof
	if a.on.Load() && a.closeLogged.CompareAndSwap(false, true) {
		s.logf("Calling fsync() on the AOF file.")
	}
	s.stopAOF()
}

// defaultEncodeOptions are the encoding limits of the configuration.
func (s *Server) defaultEncodeOptions() rdb.EncodeOptions {
	return (&Client{srv: s}).encodeOptions()
}

// BGREWRITEAOF
func cmdBgrewriteaof(c *Client, args [][]byte) {
	s := c.srv
	if s.aof.rewriting.Load() {
		c.errorReply(errAOFRewriteInProgress)
		return
	}
	// Redis schedules it when another child is active, and inside EXEC
	// (the cron starts it).
	if s.persist.bgRunning.Load() || c.tx.inExec {
		s.aof.rwScheduled.Store(true)
		s.aof.rwFailures.Store(0)
		c.w.Simple("Background append only file rewriting scheduled")
		return
	}
	// The gate took the global lock (the command is flagged Global).
	if err := s.rewriteAOF(true); err != nil {
		c.errorReply(errAOFRewriteFailed)
		return
	}
	c.w.Simple("Background append only file rewriting started")
}

// appendAOFInfo appends INFO persistence's AOF fields.
func (s *Server) appendAOFInfo(b []byte) []byte {
	a := &s.aof
	on := a.on.Load()
	inProgress, current := 0, int64(-1)
	if a.rewriting.Load() {
		inProgress, current = 1, time.Now().Unix()-a.rwStarted.Load()
	}
	status := "ok"
	if !a.rwLastOK.Load() {
		status = "err"
	}
	writeStatus := "ok"
	app := a.app.Load()
	if app != nil && app.Err() != nil {
		writeStatus = "err"
	}
	b = fmt.Appendf(b, "aof_enabled:%d\r\naof_rewrite_in_progress:%d\r\naof_rewrite_scheduled:%d\r\n",
		b2i(on), inProgress, b2i(a.rwScheduled.Load()))
	b = fmt.Appendf(b, "aof_last_rewrite_time_sec:%d\r\naof_current_rewrite_time_sec:%d\r\n", a.rwLastSecs.Load(), current)
	b = fmt.Appendf(b, "aof_last_bgrewrite_status:%s\r\naof_rewrites:%d\r\naof_rewrites_consecutive_failures:%d\r\n",
		status, a.rwCount.Load(), a.rwFailures.Load())
	b = fmt.Appendf(b, "aof_last_write_status:%s\r\naof_last_cow_size:%d\r\nmodule_fork_in_progress:0\r\nmodule_fork_last_cow_size:0\r\n", writeStatus, a.lastCow.Load())
	if on && app != nil {
		a.wmu.Lock() // the appender's buffer
		buffered := app.Buffered()
		a.wmu.Unlock()
		var staged int
		a.journal.Do(func() { staged = len(a.stage) })
		b = fmt.Appendf(b, "aof_current_size:%d\r\naof_base_size:%d\r\naof_pending_rewrite:0\r\n", a.curSize.Load(), a.baseSize.Load())
		b = fmt.Appendf(b, "aof_buffer_length:%d\r\naof_pending_bio_fsync:%d\r\naof_delayed_fsync:%d\r\n",
			staged+buffered, app.PendingFsyncs(), app.DelayedFsyncs())
	}
	return b
}

func b2i(v bool) int {
	if v {
		return 1
	}
	return 0
}

// rewriteItemsPerCmd is Redis's AOF_REWRITE_ITEMS_PER_CMD: the elements
// one command of a command base carries.
const rewriteItemsPerCmd = 64

// writeCommandBase writes snap as commands (aof-use-rdb-preamble no), as
// Redis's rewriteAppendOnlyFileRio: the function libraries, the search
// indexes' definitions (searchload.go), then per database a SELECT and, per key, the commands that build it and its
// PEXPIREAT, after a timestamp annotation when timestamps
// (aof-timestamp-enabled). The key delay runs between keys (eachSnapKey).
func (s *Server) writeCommandBase(w io.Writer, snap *snapshot, timestamps bool) error {
	hw := &holdWriter{w: w}
	var buf []byte
	if timestamps {
		if _, err := w.Write(aof.AppendTimestamp(nil, time.Now().Unix())); err != nil {
			return err
		}
	}
	put := func(args ...[]byte) error {
		buf = aof.AppendCommand(buf[:0], args)
		_, err := hw.Write(buf)
		return err
	}
	for _, code := range snap.functions {
		if err := put([]byte("FUNCTION"), []byte("LOAD"), []byte(code)); err != nil {
			return err
		}
	}
	// The search indexes before the keys: each key's commands index it.
	if _, err := w.Write(snap.search); err != nil {
		return err
	}
	return s.eachSnapKey(snap, hw, func(db int, _, _ uint64) error {
		_, err := hw.Write(aof.AppendSelect(nil, db))
		return err
	}, func(_ int, k *snapKey) error {
		kv := *k
		if kv.cold != 0 {
			// A value on the disk tier: decoded from the snapshot's
			// view of its record, as the RDB form copies it.
			enc, err := s.snapColdPayload(snap, kv.cold)
			if err == nil {
				kv.v, err = rdb.DecodeEncoded(enc)
			}
			if err != nil {
				return err
			}
		}
		return writeKeyCommands(put, kv)
	})
}

func writeKeyCommands(put func(args ...[]byte) error, k snapKey) error {
	if k.sug != nil {
		return forEachSugCommand(k.key, k.sug, k.expire, put)
	}
	var str rdb.Value
	v := k.value(&str)
	batch := func(name string, n int, item func(args [][]byte, i int) [][]byte) error {
		for i := 0; i < n; {
			args := [][]byte{[]byte(name), k.key}
			for end := min(i+rewriteItemsPerCmd, n); i < end; i++ {
				args = item(args, i)
			}
			if err := put(args...); err != nil {
				return err
			}
		}
		return nil
	}
	var err error
	switch v.Kind {
	case rdb.KindString:
		err = put([]byte("SET"), k.key, v.Str)
	case rdb.KindList:
		err = batch("RPUSH", len(v.Items), func(a [][]byte, i int) [][]byte { return append(a, v.Items[i]) })
	case rdb.KindSet:
		err = batch("SADD", len(v.Items), func(a [][]byte, i int) [][]byte { return append(a, v.Items[i]) })
	case rdb.KindHash:
		err = batch("HMSET", len(v.Pairs), func(a [][]byte, i int) [][]byte { return append(a, v.Pairs[i][0], v.Pairs[i][1]) })
	case rdb.KindZSet:
		err = batch("ZADD", len(v.ZSet), func(a [][]byte, i int) [][]byte {
			return append(a, []byte(formatScore17(v.ZSet[i].Score)), v.ZSet[i].Member)
		})
	case rdb.KindStream:
		err = writeStreamCommands(put, k.key, v.Stream)
	}
	if err == nil && k.expire >= 0 {
		err = put([]byte("PEXPIREAT"), k.key, strconv.AppendInt(nil, k.expire, 10))
	}
	return err
}

// writeStreamCommands writes the commands that rebuild a stream, as
// Redis's rewriteStreamObject: its entries (XADD; an empty stream through
// the XADD MAXLEN 0 trick), its counters (XSETID), then each group (XGROUP
// CREATE), each pending entry (XCLAIM ... JUSTID FORCE) and each consumer
// without one (XGROUP CREATECONSUMER).
func writeStreamCommands(put func(args ...[]byte) error, key []byte, d *stream.Dump) error {
	id := func(x stream.ID) []byte { return x.Append(nil) }
	s, err := stream.Load(*d)
	if err != nil {
		return err
	}
	if s.Len() > 0 {
		s.Scan(stream.MinID, stream.MaxID, false, func(e stream.Entry) bool {
			err = put(append([][]byte{[]byte("XADD"), key, id(e.ID)}, e.Fields...)...)
			return err == nil
		})
	} else {
		err = put([]byte("XADD"), key, []byte("MAXLEN"), []byte("0"), id(stream.ID{Seq: 1}), []byte("x"), []byte("y"))
	}
	if err == nil {
		err = put([]byte("XSETID"), key, id(d.LastID), []byte("ENTRIESADDED"), strconv.AppendUint(nil, d.EntriesAdded, 10),
			[]byte("MAXDELETEDID"), id(d.MaxDeletedID))
	}
	for _, g := range d.Groups {
		if err != nil {
			return err
		}
		name := []byte(g.Name)
		err = put([]byte("XGROUP"), []byte("CREATE"), key, name, id(g.LastID), []byte("ENTRIESREAD"), strconv.AppendInt(nil, g.EntriesRead, 10))
		pending := make(map[stream.ID]stream.PendingDump, len(g.Pending))
		for _, p := range g.Pending {
			pending[p.ID] = p
		}
		for _, c := range g.Consumers {
			if err == nil && len(c.Pending) == 0 {
				err = put([]byte("XGROUP"), []byte("CREATECONSUMER"), key, name, []byte(c.Name))
			}
			for _, pid := range c.Pending {
				if err != nil {
					break
				}
				p := pending[pid]
				err = put([]byte("XCLAIM"), key, name, []byte(c.Name), []byte("0"), id(pid),
					[]byte("TIME"), strconv.AppendInt(nil, p.DeliveryTime, 10),
					[]byte("RETRYCOUNT"), strconv.AppendUint(nil, p.DeliveryCount, 10), []byte("JUSTID"), []byte("FORCE"))
			}
		}
	}
	return err
}

// formatScore17 formats a score as Redis's rioWriteBulkDouble ("%.17g").
func formatScore17(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'g', 17, 64)
}
