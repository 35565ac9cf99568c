package aof

import (
	"errors"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// FsyncPolicy is appendfsync.
type FsyncPolicy int

const (
	// FsyncEverySec: Flush writes, and a background fsync runs at most
	// once per second (Redis's default).
	FsyncEverySec FsyncPolicy = iota
	// FsyncAlways: Flush writes and fsyncs before it returns; the file
	// keeps zeros written ahead of the data (see OSFile).
	FsyncAlways
	// FsyncNo: never fsync; the operating system flushes when it wants.
	FsyncNo
)

func (p FsyncPolicy) String() string {
	switch p {
	case FsyncEverySec:
		return "everysec"
	case FsyncAlways:
		return "always"
	case FsyncNo:
		return "no"
	}
	return "FsyncPolicy(?)"
}

// Appender appends to the current incremental file through a buffer, as
// Redis's aof_buf and flushAppendOnlyFile do: commands are Appended to the
// buffer while they execute, and the buffer is written (Write, Flush)
// before the replies are sent. Errors are remembered, as Redis remembers
// aof_last_write_status and aof_bio_fsync_status, until a later write or
// fsync succeeds: Err and Misconf report them, so that the server refuses
// writes with MISCONF meanwhile.
//
// An Appender is not safe for concurrent use, except for Err, Misconf,
// FsyncInProgress and the other reporting methods, which may be called
// from any goroutine. Its background fsyncs run in a goroutine of its own,
// started when first needed and stopped by Close.
type Appender struct {
	// Policy is appendfsync; it may be changed between calls.
	Policy FsyncPolicy
	// Prealloc, under FsyncAlways, keeps zeros written ahead of the data
	// (see OSFile); without it, or under another policy, the file holds
	// its data only. It may be changed between calls.
	Prealloc bool
	// SkipFsync is no-appendfsync-on-rewrite while a child process (a
	// rewrite or a snapshot) is running: Flush writes but does not fsync.
	SkipFsync bool
	// Now is the clock of the once-per-second logic; nil means time.Now.
	Now func() time.Time
	// Log, when set, receives the messages Redis logs ("Asynchronous AOF
	// fsync is taking too long ...", "AOF write error looks solved ...",
	// "Fail to fsync the AOF file: ..."); it is also called from the
	// background fsync goroutine, so it must be safe for concurrent use.
	Log func(level LogLevel, msg string)

	f     File
	buf   []byte
	size  int64 // bytes in the current file (aof_last_incr_size)
	total int64 // bytes written through this Appender, all files together

	fsyncOffset    int64 // total when the last fsync was done or started (aof_fsync_offset)
	lastFsync      int64 // unix time of the last fsync (aof_last_fsync)
	postponedStart int64 // aof_flush_postponed_start

	mu       sync.Mutex
	writeErr error // aof_last_write_status / errno
	syncErr  error // a failed fsync (aof_bio_fsync_status / errno)

	delayed atomic.Uint64 // aof_delayed_fsync
	bg      atomic.Pointer[bgWorker]
}

// NewAppender returns an Appender writing to f, whose size is size (the
// bytes already in it). The policy is everysec.
func NewAppender(f File, size int64) *Appender {
	return &Appender{f: f, size: size}
}

func (a *Appender) now() int64 {
	if a.Now != nil {
		return a.Now().Unix()
	}
	return time.Now().Unix()
}

func (a *Appender) log(level LogLevel, msg string) {
	if a.Log != nil {
		a.Log(level, msg)
	}
}

// Append adds p, one or more encoded commands (AppendCommand, Feeder), to
// the buffer.
func (a *Appender) Append(p []byte) { a.buf = append(a.buf, p...) }

// Buffered returns the number of bytes in the buffer (aof_buffer_length).
func (a *Appender) Buffered() int { return len(a.buf) }

// Size returns the size of the current file: the bytes it had when the
// Appender was made or reopened, plus those written since.
func (a *Appender) Size() int64 { return a.size }

// Write writes the buffer to the file, as flushAppendOnlyFile does. On
// success the buffer is empty and a remembered write error is cleared. On
// failure the error is returned and remembered: after a short write the
// file is truncated back to its former size (ftruncate) and the whole
// buffer kept, to be written again by the next call; if the truncation
// fails too, the bytes written are counted and dropped from the buffer.
// A short write without an error is reported as ENOSPC, as by Redis.
func (a *Appender) Write() error {
	if len(a.buf) == 0 {
		return nil
	}
	n, err := a.f.Write(a.buf)
	if n == len(a.buf) && err == nil {
		a.size += int64(n)
		a.total += int64(n)
		if cap(a.buf) <= 64<<10 {
			a.buf = a.buf[:0]
		} else {
			a.buf = nil
		}
		a.mu.Lock()
		solved := a.writeErr != nil
		a.writeErr = nil
		a.mu.Unlock()
		if solved {
			a.log(LogWarning, "AOF write error looks solved, Redis can write again.")
		}
		return nil
	}
	if err == nil {
		err = &os.PathError{Op: "write", Path: "AOF", Err: syscall.ENOSPC}
	}
	if n > 0 {
		if a.f.Truncate(a.size) == nil {
			n = 0
		} else {
			a.size += int64(n)
			a.total += int64(n)
			a.buf = append(a.buf[:0], a.buf[n:]...)
		}
	}
	a.mu.Lock()
	a.writeErr = err
	a.mu.Unlock()
	return err
}

// Sync fsyncs the file now, in the caller's goroutine. Its outcome
// replaces the remembered fsync status.
func (a *Appender) Sync() error {
	err := a.f.Sync()
	a.mu.Lock()
	a.syncErr = err
	a.mu.Unlock()
	if err == nil {
		a.fsyncOffset = a.total
		a.lastFsync = a.now()
	}
	return err
}

// Err returns the remembered error: the last write's, or else the last
// fsync's (inline or background), nil when the last of each succeeded.
func (a *Appender) Err() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.writeErr != nil {
		return a.writeErr
	}
	return a.syncErr
}

// Misconf returns the error reply Redis gives write commands while the
// AOF cannot be written ("MISCONF Errors writing to the AOF file: <C
// strerror text>", to be sent after '-'), or "" when there is no error.
func (a *Appender) Misconf() string {
	err := a.Err()
	if err == nil {
		return ""
	}
	return "MISCONF Errors writing to the AOF file: " + strerror(err)
}

// FsyncInProgress reports whether a background fsync is queued or
// running (aofFsyncInProgress).
func (a *Appender) FsyncInProgress() bool {
	bg := a.bg.Load()
	return bg != nil && bg.pending.Load() > 0
}

// PendingFsyncs returns the number of background fsyncs queued or
// running (aof_pending_bio_fsync).
func (a *Appender) PendingFsyncs() int64 {
	if bg := a.bg.Load(); bg != nil {
		return bg.pending.Load()
	}
	return 0
}

// DelayedFsyncs returns how many times Flush wrote while a background
// fsync had been pending for 2 seconds (aof_delayed_fsync).
func (a *Appender) DelayedFsyncs() uint64 { return a.delayed.Load() }

// FlushResult tells what Flush did.
type FlushResult struct {
	// Written is the number of bytes written.
	Written int
	// Postponed: everysec, a background fsync is in progress, and it has
	// been so for less than 2 seconds: the write is postponed (the buffer
	// is kept). Redis retries from its cron, every 100 ms or so, and does
	// not hold the replies meanwhile.
	Postponed bool
	// Delayed: everysec, the fsync has been in progress for 2 seconds or
	// more, and the buffer was written without waiting for it
	// (aof_delayed_fsync was incremented).
	Delayed bool
	// Synced: the file was fsynced (always); BackgroundSync: a background
	// fsync was started (everysec).
	Synced, BackgroundSync bool
}

// Flush writes the buffer and fsyncs according to Policy, as
// flushAppendOnlyFile(force) does:
//
//   - always: write, then fsync before returning. Redis exits when either
//     fails; the error is returned (and remembered).
//   - everysec: when a background fsync is in progress and force is
//     false, the write is postponed for up to 2 seconds (Postponed); past
//     that it is done anyway (Delayed). After writing, a background fsync
//     starts if the last one started in an earlier second and none is in
//     progress. With an empty buffer, a background fsync still starts when
//     data written earlier has not been fsynced and a second has passed.
//   - no: write only.
//
// SkipFsync suppresses the fsyncs. force is Redis's: set it when the
// buffer must reach the file now (before a rewrite starts, at shutdown).
func (a *Appender) Flush(force bool) (FlushResult, error) {
	var res FlushResult
	now := a.now()
	syncInProgress := false
	if len(a.buf) == 0 {
		if a.Policy != FsyncEverySec || a.fsyncOffset == a.total || now <= a.lastFsync {
			return res, nil
		}
		if syncInProgress = a.FsyncInProgress(); syncInProgress {
			return res, nil
		}
	} else {
		if a.Policy == FsyncEverySec {
			syncInProgress = a.FsyncInProgress()
		}
		if a.Policy == FsyncEverySec && !force && syncInProgress {
			if a.postponedStart == 0 {
				a.postponedStart = now
				res.Postponed = true
				return res, nil
			} else if now-a.postponedStart < 2 {
				res.Postponed = true
				return res, nil
			}
			a.delayed.Add(1)
			res.Delayed = true
			a.log(LogNotice, "Asynchronous AOF fsync is taking too long (disk is busy?). Writing the AOF buffer "+
				"without waiting for fsync to complete, this may slow down Redis.")
		}
		n := len(a.buf)
		err := a.Write()
		a.postponedStart = 0
		if err != nil {
			return res, err
		}
		res.Written = n
	}
	if sp, ok := a.f.(spacer); ok {
		if a.Policy == FsyncAlways && a.Prealloc {
			sp.Reserve(preallocStep)
		} else {
			sp.Trim()
		}
	}
	if a.SkipFsync {
		return res, nil
	}
	switch {
	case a.Policy == FsyncAlways:
		if err := a.Sync(); err != nil {
			return res, err
		}
		res.Synced = true
	case a.Policy == FsyncEverySec && now > a.lastFsync:
		if !syncInProgress {
			a.startBackgroundSync(a.f, false)
			a.fsyncOffset = a.total
			res.BackgroundSync = true
		}
		a.lastFsync = now
	}
	return res, nil
}

// Reopen switches to a new current file f of size size (a rotation:
// Dir.RotateIncr), keeping the buffer. The old file is trimmed (see
// OSFile), fsynced and, if it is an io.Closer, closed in the background
// (aof_background_fsync_and_close); the outcome of that fsync is
// remembered like any other.
func (a *Appender) Reopen(f File, size int64) {
	old := a.f
	a.f, a.size = f, size
	if old != nil {
		a.startBackgroundSync(old, true)
	}
}

// Close waits for the background fsyncs, stops their goroutine and
// trims the current file (see OSFile). It does not close the file, nor
// write the buffer.
func (a *Appender) Close() error {
	if bg := a.bg.Swap(nil); bg != nil {
		bg.stop()
	}
	if sp, ok := a.f.(spacer); ok {
		sp.Trim()
	}
	return a.Err()
}

func (a *Appender) startBackgroundSync(f File, closeAfter bool) {
	bg := a.bg.Load()
	if bg == nil {
		bg = newBgWorker(a)
		a.bg.Store(bg)
	}
	bg.enqueue(bgJob{f: f, close: closeAfter})
}

// bgWorker is Redis's BIO_AOF_FSYNC thread: it runs the background fsyncs
// one after the other.
type bgWorker struct {
	a       *Appender
	mu      sync.Mutex
	cond    *sync.Cond
	jobs    []bgJob
	stopped bool
	done    chan struct{}
	pending atomic.Int64
}

type bgJob struct {
	f     File
	close bool
}

func newBgWorker(a *Appender) *bgWorker {
	w := &bgWorker{a: a, done: make(chan struct{})}
	w.cond = sync.NewCond(&w.mu)
	go w.run()
	return w
}

func (w *bgWorker) enqueue(j bgJob) {
	w.pending.Add(1)
	w.mu.Lock()
	w.jobs = append(w.jobs, j)
	w.mu.Unlock()
	w.cond.Signal()
}

func (w *bgWorker) stop() {
	w.mu.Lock()
	w.stopped = true
	w.mu.Unlock()
	w.cond.Signal()
	<-w.done
}

func (w *bgWorker) run() {
	defer close(w.done)
	for {
		w.mu.Lock()
		for len(w.jobs) == 0 && !w.stopped {
			w.cond.Wait()
		}
		if len(w.jobs) == 0 {
			w.mu.Unlock()
			return
		}
		j := w.jobs[0]
		w.jobs = w.jobs[1:]
		w.mu.Unlock()

		if sp, ok := j.f.(spacer); ok && j.close {
			sp.Trim()
		}
		err := j.f.Sync()
		if errors.Is(err, syscall.EBADF) || errors.Is(err, syscall.EINVAL) {
			err = nil // as bio.c: the file may have been closed meanwhile
		}
		a := w.a
		a.mu.Lock()
		failedBefore := a.syncErr != nil
		a.syncErr = err
		a.mu.Unlock()
		if err != nil && !failedBefore {
			a.log(LogWarning, "Fail to fsync the AOF file: "+strerror(err))
		}
		if j.close {
			if c, ok := j.f.(io.Closer); ok {
				c.Close()
			}
		}
		w.pending.Add(-1)
	}
}
