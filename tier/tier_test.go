package tier

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cockroachdb/pebble/v2"
)

func open(t *testing.T, disk Disk) *Store {
	t.Helper()
	st, err := Open(Options{Dir: t.TempDir(), Disk: disk})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestPutGetDelete(t *testing.T) {
	st := open(t, nil)
	a, b := st.NextID(), st.NextID()
	if a == b {
		t.Fatal("NextID repeated an ID")
	}
	if err := st.Put(a, []byte("hello")); err != nil {
		t.Fatal(err)
	}
	if err := st.Put(b, nil); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[uint64]string{a: "hello", b: ""} {
		got, err := st.Get(id)
		if err != nil || string(got) != want {
			t.Fatalf("Get(%d) = %q, %v; want %q", id, got, err, want)
		}
	}
	if s := st.Stats(); s.Records != 2 || s.Bytes != 5 || s.Writes != 2 {
		t.Fatalf("stats %+v", s)
	}
	if err := st.Delete(a, 5); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Get(a); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get after Delete: %v", err)
	}
	if s := st.Stats(); s.Records != 1 || s.Bytes != 0 {
		t.Fatalf("stats after delete %+v", s)
	}
}

func TestCorruptRecordIsAnError(t *testing.T) {
	st := open(t, nil)
	id := st.NextID()
	if err := st.Put(id, []byte("a value")); err != nil {
		t.Fatal(err)
	}
	v, closer, err := st.db.Get(recordKey(id))
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Clone(v)
	closer.Close()
	bad[len(bad)-1] ^= 1
	if err := st.db.Set(recordKey(id), bad, pebble.NoSync); err != nil {
		t.Fatal(err)
	}
	if got, err := st.Get(id); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Get of a corrupt record = %q, %v; want ErrCorrupt", got, err)
	}
	if err := st.db.Set(recordKey(id), []byte{1, 2}, pebble.NoSync); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Get(id); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("short record: %v; want ErrCorrupt", err)
	}
}

func TestViewIsConsistent(t *testing.T) {
	st := open(t, nil)
	old := st.NextID()
	st.Put(old, []byte("old"))
	v := st.View()
	defer v.Close()
	st.Delete(old, 3)
	fresh := st.NextID()
	st.Put(fresh, []byte("new"))
	if got, err := v.Get(old); err != nil || string(got) != "old" {
		t.Fatalf("view lost a record deleted after it: %q, %v", got, err)
	}
	if _, err := v.Get(fresh); !errors.Is(err, ErrNotFound) {
		t.Fatalf("view sees a record written after it: %v", err)
	}
}

type failDisk struct {
	mu   sync.Mutex
	fail map[Op]error
	seen []Op
}

func (d *failDisk) Before(op Op, id uint64) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.seen = append(d.seen, op)
	return d.fail[op]
}

func TestDiskFaults(t *testing.T) {
	full := errors.New("no space left on device")
	d := &failDisk{fail: map[Op]error{}}
	st := open(t, d)
	id := st.NextID()
	if err := st.Put(id, []byte("x")); err != nil {
		t.Fatal(err)
	}
	d.fail[OpWrite] = full
	if err := st.Put(st.NextID(), []byte("y")); !errors.Is(err, full) || !strings.Contains(err.Error(), "write failed") {
		t.Fatalf("Put on a full disk: %v", err)
	}
	d.fail[OpRead] = full
	if _, err := st.Get(id); !errors.Is(err, full) {
		t.Fatalf("Get on a failing disk: %v", err)
	}
	delete(d.fail, OpRead)
	if got, err := st.Get(id); err != nil || string(got) != "x" {
		t.Fatalf("a failed write changed a record: %q, %v", got, err)
	}
	if s := st.Stats(); s.Records != 1 {
		t.Fatalf("a failed write was counted: %+v", s)
	}
}

func TestOpenWipesAndRefusesUnwritable(t *testing.T) {
	dir := t.TempDir()
	st, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	id := st.NextID()
	st.Put(id, []byte("before restart"))
	st.Close()
	os.WriteFile(filepath.Join(dir, "stray"), []byte("x"), 0o644)
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "dump.rdb"), []byte("x"), 0o644)
	if _, err := Open(Options{Dir: other}); err == nil || !strings.Contains(err.Error(), "not a tier directory") {
		t.Fatalf("Open of a directory with other files: %v", err)
	}
	if _, err := os.Stat(filepath.Join(other, "dump.rdb")); err != nil {
		t.Fatal("Open removed a file it does not own")
	}
	st, err = Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Get(id); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a record survived Open: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "stray")); !os.IsNotExist(err) {
		t.Fatal("Open left a stray file")
	}
	st.Close()

	if os.Getuid() == 0 {
		// root writes anywhere: make the directory a file instead.
		file := filepath.Join(t.TempDir(), "file")
		os.WriteFile(file, nil, 0o644)
		if _, err := Open(Options{Dir: file}); err == nil || !strings.Contains(err.Error(), file) {
			t.Fatalf("Open of a file: %v", err)
		}
		return
	}
	ro := filepath.Join(t.TempDir(), "ro")
	os.Mkdir(ro, 0o555)
	if _, err := Open(Options{Dir: ro}); err == nil || !strings.Contains(err.Error(), "not writable") {
		t.Fatalf("Open of a read-only directory: %v", err)
	}
}

func TestConcurrent(t *testing.T) {
	st := open(t, nil)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				id := st.NextID()
				p := bytes.Repeat([]byte{byte(i)}, i)
				if err := st.Put(id, p); err != nil {
					t.Error(err)
					return
				}
				got, err := st.Get(id)
				if err != nil || !bytes.Equal(got, p) {
					t.Errorf("Get(%d) = %v, %v", id, got, err)
					return
				}
				if i%2 == 0 {
					st.Delete(id, int64(len(p)))
				}
			}
		}()
	}
	wg.Wait()
	s := st.Stats()
	if s.Records != 400 {
		t.Fatalf("records %d, want 400", s.Records)
	}
	_ = s.CacheHits + s.Compactions
}

// BenchmarkPutGetDelete is one value's trip to disk and back: a
// demotion's write, a load's read, the record's deletion.
func BenchmarkPutGetDelete(b *testing.B) {
	st, err := Open(Options{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	p := bytes.Repeat([]byte("v"), 1024)
	b.ReportAllocs()
	b.SetBytes(int64(len(p)))
	for b.Loop() {
		id := st.NextID()
		if err := st.Put(id, p); err != nil {
			b.Fatal(err)
		}
		if _, err := st.Get(id); err != nil {
			b.Fatal(err)
		}
		st.Delete(id, int64(len(p)))
	}
}
