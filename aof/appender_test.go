package aof

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// fakeFile is a File in memory that records what is durable: Sync makes
// durable the bytes written before it started.
type fakeFile struct {
	mu        sync.Mutex
	data      []byte
	durable   int // bytes durable
	syncs     int
	truncates []int64
	closed    bool

	// Failure injection: the next Write writes only shortN bytes and
	// returns writeErr; Sync and Truncate return syncErr and truncErr.
	shortN   int
	writeErr error
	syncErr  error
	truncErr error
	// syncGate, when set, is received from at the start of each Sync.
	syncGate chan struct{}
	// syncDelay is slept in each Sync.
	syncDelay time.Duration
}

func (f *fakeFile) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.writeErr != nil {
		n := min(f.shortN, len(p))
		f.data = append(f.data, p[:n]...)
		err := f.writeErr
		f.writeErr = nil
		return n, err
	}
	f.data = append(f.data, p...)
	return len(p), nil
}

func (f *fakeFile) Sync() error {
	f.mu.Lock()
	n := len(f.data)
	gate, delay := f.syncGate, f.syncDelay
	f.mu.Unlock()
	if gate != nil {
		<-gate
	}
	time.Sleep(delay)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.syncs++
	if f.syncErr != nil {
		return f.syncErr
	}
	f.durable = max(f.durable, n)
	return nil
}

func (f *fakeFile) Truncate(size int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.truncates = append(f.truncates, size)
	if f.truncErr != nil {
		return f.truncErr
	}
	f.data = f.data[:size]
	f.durable = min(f.durable, int(size))
	return nil
}

func (f *fakeFile) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	return nil
}

func (f *fakeFile) state() (data string, durable, syncs int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return string(f.data), f.durable, f.syncs
}

func (f *fakeFile) set(fn func(f *fakeFile)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

// waitIdle waits for the Appender's background fsyncs.
func waitIdle(t *testing.T, a *Appender) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); a.FsyncInProgress(); {
		if time.Now().After(deadline) {
			t.Fatal("background fsync stuck")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestAppenderWrite(t *testing.T) {
	f := &fakeFile{data: []byte("old")}
	a := NewAppender(f, 3)
	a.Append([]byte("abc"))
	a.Append([]byte("de"))
	if a.Buffered() != 5 || a.Size() != 3 {
		t.Fatal(a.Buffered(), a.Size())
	}
	if err := a.Write(); err != nil || a.Buffered() != 0 || a.Size() != 8 {
		t.Fatal(err, a.Buffered(), a.Size())
	}
	if data, durable, _ := f.state(); data != "oldabcde" || durable != 0 {
		t.Fatal(data, durable)
	}
	if err := a.Sync(); err != nil {
		t.Fatal(err)
	}
	if _, durable, syncs := f.state(); durable != 8 || syncs != 1 {
		t.Fatal(durable, syncs)
	}

	// A short write is undone with ftruncate, the buffer kept, the error
	// remembered until a write succeeds.
	f.set(func(f *fakeFile) {
		f.shortN, f.writeErr = 2, &os.PathError{Op: "write", Path: "x", Err: syscall.ENOSPC}
	})
	a.Append([]byte("fghij"))
	err := a.Write()
	if !errors.Is(err, syscall.ENOSPC) || a.Buffered() != 5 || a.Size() != 8 || !errors.Is(a.Err(), syscall.ENOSPC) {
		t.Fatal(err, a.Buffered(), a.Size(), a.Err())
	}
	if got := a.Misconf(); got != "MISCONF Errors writing to the AOF file: No space left on device" {
		t.Fatal(got)
	}
	if data, _, _ := f.state(); data != "oldabcde" || len(f.truncates) != 1 || f.truncates[0] != 8 {
		t.Fatal(data, f.truncates)
	}
	var logged []string
	a.Log = func(_ LogLevel, msg string) { logged = append(logged, msg) }
	if err := a.Write(); err != nil || a.Err() != nil || a.Misconf() != "" {
		t.Fatal(err, a.Err())
	}
	if data, _, _ := f.state(); data != "oldabcdefghij" || a.Size() != 13 {
		t.Fatal(data)
	}
	if len(logged) != 1 || logged[0] != "AOF write error looks solved, Redis can write again." {
		t.Fatal(logged)
	}

	// When ftruncate fails too, the bytes written stay and leave the
	// buffer. A short write without an error is ENOSPC.
	f.set(func(f *fakeFile) { f.shortN, f.writeErr, f.truncErr = 3, errShort, errors.New("no truncate") })
	a.Append([]byte("klmno"))
	if err := a.Write(); err == nil || a.Buffered() != 2 || a.Size() != 16 {
		t.Fatal(err, a.Buffered(), a.Size())
	}
	if err := a.Write(); err != nil {
		t.Fatal(err)
	}
	if data, _, _ := f.state(); data != "oldabcdefghijklmno" {
		t.Fatal(data)
	}
	short := &shortWriter{}
	b := NewAppender(short, 0)
	b.Append([]byte("xyz"))
	if err := b.Write(); !errors.Is(err, syscall.ENOSPC) || b.Buffered() != 3 {
		t.Fatal(err)
	}
}

var errShort = errors.New("short")

// shortWriter writes nothing and reports no error.
type shortWriter struct{ fakeFile }

func (w *shortWriter) Write(p []byte) (int, error) { return 0, nil }

// clock is a settable time.
type clock struct{ t atomic.Int64 }

func (c *clock) now() time.Time { return time.Unix(c.t.Load(), 0) }

func TestAppenderEverySec(t *testing.T) {
	f := &fakeFile{}
	a := NewAppender(f, 0)
	defer a.Close()
	var clk clock
	clk.t.Store(1000)
	a.Now = clk.now
	var logged []string
	var logMu sync.Mutex
	a.Log = func(_ LogLevel, msg string) { logMu.Lock(); logged = append(logged, msg); logMu.Unlock() }
	// The reporting methods may be called from other goroutines (INFO).
	stop := make(chan struct{})
	var poller sync.WaitGroup
	poller.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				_, _, _, _, _ = a.Err(), a.Misconf(), a.FsyncInProgress(), a.PendingFsyncs(), a.DelayedFsyncs()
				time.Sleep(50 * time.Microsecond)
			}
		}
	})
	defer poller.Wait()
	defer close(stop)

	a.Append([]byte("one"))
	res, err := a.Flush(false)
	if err != nil || res.Written != 3 || !res.BackgroundSync {
		t.Fatal(res, err)
	}
	waitIdle(t, a)
	a.Append([]byte("two"))
	if res, _ := a.Flush(false); res.Written != 3 || res.BackgroundSync {
		t.Fatal("second fsync in the same second", res)
	}
	waitIdle(t, a)
	if _, durable, syncs := f.state(); syncs != 1 || durable != 3 {
		t.Fatal(syncs, durable)
	}
	// An empty buffer with data not fsynced: fsync once a second passed.
	if res, _ := a.Flush(false); res.BackgroundSync {
		t.Fatal(res)
	}
	clk.t.Add(1)
	if res, _ := a.Flush(false); !res.BackgroundSync || res.Written != 0 {
		t.Fatal(res)
	}
	waitIdle(t, a)
	if _, durable, syncs := f.state(); syncs != 2 || durable != 6 {
		t.Fatal(syncs, durable)
	}
	clk.t.Add(1)
	if res, _ := a.Flush(false); res.BackgroundSync {
		t.Fatal("fsync with nothing new", res)
	}

	// A slow fsync: writes are postponed for up to 2 seconds, then done
	// without waiting (aof_delayed_fsync).
	gate := make(chan struct{})
	var gateOnce sync.Once
	release := func() { gateOnce.Do(func() { close(gate) }) }
	defer release() // before a.Close, even when the test fails
	f.set(func(f *fakeFile) { f.syncGate = gate })
	clk.t.Add(1)
	a.Append([]byte("3"))
	if res, _ := a.Flush(false); !res.BackgroundSync {
		t.Fatal(res)
	}
	for !a.FsyncInProgress() {
		t.Fatal("no fsync in progress")
	}
	a.Append([]byte("4"))
	for i, want := range []bool{true, true, true, false} {
		if i > 0 {
			clk.t.Add(1)
		}
		res, err := a.Flush(false)
		if err != nil || res.Postponed != want || res.Delayed == want {
			t.Fatalf("step %d: %+v %v", i, res, err)
		}
		if i == 1 {
			clk.t.Add(-1) // the second call was in the same second
		}
	}
	if a.DelayedFsyncs() != 1 || a.Buffered() != 0 {
		t.Fatal(a.DelayedFsyncs(), a.Buffered())
	}
	// force writes at once.
	a.Append([]byte("5"))
	if res, _ := a.Flush(true); res.Postponed || res.Written != 1 {
		t.Fatal(res)
	}
	release()
	waitIdle(t, a)
	f.set(func(f *fakeFile) { f.syncGate = nil })
	logMu.Lock()
	if len(logged) != 1 || !strings.HasPrefix(logged[0], "Asynchronous AOF fsync is taking too long (disk is busy?).") {
		t.Fatal(logged)
	}
	logMu.Unlock()

	// A failed background fsync is remembered until one succeeds.
	f.set(func(f *fakeFile) { f.syncErr = &os.PathError{Op: "fsync", Path: "x", Err: syscall.EIO} })
	clk.t.Add(1)
	a.Append([]byte("6"))
	a.Flush(false)
	waitIdle(t, a)
	if !errors.Is(a.Err(), syscall.EIO) || a.Misconf() != "MISCONF Errors writing to the AOF file: Input/output error" {
		t.Fatal(a.Err(), a.Misconf())
	}
	f.set(func(f *fakeFile) { f.syncErr = nil })
	clk.t.Add(1)
	if res, _ := a.Flush(false); res.BackgroundSync {
		t.Fatal("the failed fsync's data counts as fsynced, as in Redis")
	}
	a.Append([]byte("x"))
	a.Flush(false)
	waitIdle(t, a)
	if a.Err() != nil {
		t.Fatal(a.Err())
	}
	// SkipFsync (no-appendfsync-on-rewrite with a child).
	a.SkipFsync = true
	clk.t.Add(5)
	a.Append([]byte("7"))
	if res, _ := a.Flush(false); res.BackgroundSync || res.Written != 1 {
		t.Fatal(res)
	}
}

func TestAppenderPolicies(t *testing.T) {
	f := &fakeFile{}
	a := NewAppender(f, 0)
	a.Policy = FsyncNo
	a.Append([]byte("abc"))
	if res, err := a.Flush(false); err != nil || res.Synced || res.BackgroundSync || res.Written != 3 {
		t.Fatal(res, err)
	}
	a.Policy = FsyncAlways
	a.Append([]byte("d"))
	if res, err := a.Flush(false); err != nil || !res.Synced {
		t.Fatal(res, err)
	}
	if _, durable, syncs := f.state(); durable != 4 || syncs != 1 {
		t.Fatal(durable, syncs)
	}
	f.set(func(f *fakeFile) { f.syncErr = errors.New("fsync failed") })
	a.Append([]byte("e"))
	if _, err := a.Flush(false); err == nil || a.Err() == nil {
		t.Fatal(err)
	}
	f.set(func(f *fakeFile) { f.syncErr = nil })
	if err := a.Sync(); err != nil || a.Err() != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestAppenderReopen(t *testing.T) {
	old, nw := &fakeFile{}, &fakeFile{}
	a := NewAppender(old, 0)
	a.Append([]byte("in old"))
	a.Write()
	a.Append([]byte("in new"))
	a.Reopen(nw, 0)
	if err := a.Write(); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, a)
	a.Close()
	if data, durable, _ := old.state(); data != "in old" || durable != 6 || !old.closed {
		t.Fatal(data, durable, old.closed)
	}
	if data, _, _ := nw.state(); data != "in new" || a.Size() != 6 || nw.closed {
		t.Fatal(data)
	}
}

// TestDirOperations covers OpenForAppend, RotateIncr, the AOF_WAIT_REWRITE
// temporary file, InstallRewrite and DeleteHistory on disk.
func TestDirOperations(t *testing.T) {
	work := t.TempDir()
	d, err := OpenDir(filepath.Join(work, "aofdir"), "x.aof")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := d.OpenForAppend(nil); err == nil {
		t.Fatal("OpenForAppend without writeBase on an empty manifest")
	}
	f, name, size, err := d.OpenForAppend(func(w io.Writer) error { _, err := w.Write([]byte("BASE")); return err })
	if err != nil || name != "x.aof.1.incr.aof" || size != 0 {
		t.Fatal(name, size, err)
	}
	f.Write([]byte("incr1"))
	f.Close()
	if b := readFile(t, d.FilePath("x.aof.1.base.rdb")); string(b) != "BASE" {
		t.Fatal(string(b))
	}
	// Reopened: the same file, appended to, manifest unchanged.
	d2, err := OpenDir(d.Path, "x.aof")
	if err != nil {
		t.Fatal(err)
	}
	f, name, size, err = d2.OpenForAppend(nil)
	if err != nil || name != "x.aof.1.incr.aof" || size != 5 {
		t.Fatal(name, size, err)
	}
	f.Close()
	// AOF turned on at run time: a temporary incremental file, then the
	// rewrite installs it.
	tf, err := d.CreateTempIncr()
	if err != nil {
		t.Fatal(err)
	}
	tf.Write([]byte("tmp"))
	tf.Close()
	tmp, err := d.WriteBase(func(w io.Writer) error { _, err := w.Write([]byte("BASE2")); return err })
	if err != nil {
		t.Fatal(err)
	}
	d.RDBPreamble = false
	base, err := d.InstallRewrite(tmp, true, true)
	if err != nil || base != "x.aof.2.base.aof" {
		t.Fatal(base, err)
	}
	want := "file x.aof.2.base.aof seq 2 type b\nfile x.aof.1.incr.aof seq 1 type h\nfile x.aof.1.base.rdb seq 1 type h\n" +
		"file x.aof.2.incr.aof seq 2 type i\n"
	if got := string(readFile(t, d.ManifestPath())); got != want || string(d.Manifest.Format()) != want {
		t.Fatalf("manifest:\n%s", got)
	}
	if b := readFile(t, d.FilePath("x.aof.2.incr.aof")); string(b) != "tmp" {
		t.Fatal(string(b))
	}
	// A failed rewrite (the temporary file is missing) changes nothing.
	if _, err := d.InstallRewrite(filepath.Join(work, "missing"), true, false); err == nil || d.Manifest.Base.Seq != 2 {
		t.Fatal(err)
	}
	if failed, err := d.DeleteHistory(); err != nil || failed != nil {
		t.Fatal(failed, err)
	}
	nf, nname, err := d.RotateIncr()
	if err != nil || nname != "x.aof.3.incr.aof" {
		t.Fatal(nname, err)
	}
	nf.Close()
	want = "file x.aof.2.base.aof seq 2 type b\nfile x.aof.2.incr.aof seq 2 type i\nfile x.aof.3.incr.aof seq 3 type i\n"
	if got := string(readFile(t, d.ManifestPath())); got != want {
		t.Fatalf("manifest:\n%s", got)
	}
	entries, _ := os.ReadDir(d.Path)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "x.aof.2.base.aof x.aof.2.incr.aof x.aof.3.incr.aof x.aof.manifest" {
		t.Fatal(got)
	}
	// A rewrite with AOF off (BGREWRITEAOF with appendonly no): every
	// incremental file becomes history.
	tmp, err = d.WriteBase(func(w io.Writer) error { _, err := w.Write([]byte("BASE3")); return err })
	if err != nil {
		t.Fatal(err)
	}
	if base, err := d.InstallRewrite(tmp, false, false); err != nil || base != "x.aof.3.base.aof" {
		t.Fatal(base, err)
	}
	want = "file x.aof.3.base.aof seq 3 type b\nfile x.aof.2.incr.aof seq 2 type h\nfile x.aof.3.incr.aof seq 3 type h\n" +
		"file x.aof.2.base.aof seq 2 type h\n"
	if got := string(readFile(t, d.ManifestPath())); got != want {
		t.Fatalf("manifest:\n%s", got)
	}
	// A failed rotation (the directory is gone) changes nothing.
	os.RemoveAll(d.Path)
	if _, _, err := d.RotateIncr(); err == nil || d.Manifest.CurIncrSeq != 3 || len(d.Manifest.Incr) != 0 {
		t.Fatal(err)
	}
	if !bytes.Equal(d.Manifest.Format(), []byte(want)) {
		t.Fatal(string(d.Manifest.Format()))
	}
}

// TestOSFilePreallocation: under always with Prealloc the file keeps zeros written
// ahead of its data, grown again as the data nears their end; the data is
// intact; the zeros go when the policy changes, at Close and from a file
// left by a rotation.
func TestOSFilePreallocation(t *testing.T) {
	dir := t.TempDir()
	open := func(name string) *os.File {
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	sizeOf := func(f *os.File) int64 {
		fi, err := f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	f := open("a")
	f.Write([]byte("before"))
	a := NewAppender(OSFile(f, 6), 6)
	a.Policy = FsyncAlways
	var want bytes.Buffer
	want.WriteString("before")
	flush := func(p []byte) {
		t.Helper()
		a.Append(p)
		want.Write(p)
		if res, err := a.Flush(false); err != nil || res.Synced != (a.Policy == FsyncAlways) {
			t.Fatal(res, err)
		}
	}
	// Without Prealloc (the default, Redis's file) the file holds its
	// data only, and grows with each write.
	flush([]byte("plain"))
	if got := sizeOf(f); got != a.Size() {
		t.Fatalf("size %d without Prealloc, want the data's %d", got, a.Size())
	}
	a.Prealloc = true
	flush([]byte("first batch"))
	o := a.f.(*osFile)
	o.waitGrow()
	if got := sizeOf(f); got != a.Size()+preallocStep {
		t.Fatalf("size %d after the first write, want %d", got, a.Size()+preallocStep)
	}
	// Writes go on through the zeros and past them, growing the file as
	// they near its end (batches of 100 KB: several steps).
	chunk := bytes.Repeat([]byte("0123456789"), 10_000)
	for i := range 3 * preallocStep / len(chunk) {
		chunk[0] = byte('a' + i%26)
		flush(chunk)
	}
	o.waitGrow()
	if got := sizeOf(f); got <= a.Size() || got > a.Size()+preallocStep*3/2 {
		t.Fatalf("size %d with %d bytes of data", got, a.Size())
	}
	check := func(name string, want []byte) {
		t.Helper()
		if got := readFile(t, filepath.Join(dir, name)); !bytes.Equal(got, want) {
			t.Fatalf("%s: %d bytes, want %d (equal prefix: %v)", name, len(got), len(want), bytes.HasPrefix(got, want))
		}
	}
	// everysec: trimmed at the next flush.
	a.Policy = FsyncEverySec
	flush([]byte("everysec"))
	check("a", want.Bytes())
	a.Policy = FsyncAlways
	flush([]byte("always again"))
	if sizeOf(f) == a.Size() && o.grow == nil {
		t.Fatal("no preallocation after returning to always")
	}
	// A rotation trims the old file as it closes it; Close trims the new.
	nf := open("b")
	a.Reopen(OSFile(nf, 0), 0)
	flush([]byte("in the new file"))
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	check("a", want.Bytes()[:want.Len()-len("in the new file")])
	check("b", []byte("in the new file"))
}
