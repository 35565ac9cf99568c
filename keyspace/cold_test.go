package keyspace

import (
	"bytes"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// memTier is a Tier in a map: records hold a string's bytes or a
// collection's *blob.
type memTier struct {
	mu     sync.Mutex
	next   uint64
	recs   map[uint64][]byte
	loads  atomic.Int64
	failed error
}

func newMemTier() *memTier { return &memTier{recs: map[uint64][]byte{}} }

// blob is a collection for the tests: a Sizer and a Cloner.
type blob struct{ b []byte }

func (b *blob) MemSize() int64 { return int64(cap(b.b)) + 24 }
func (b *blob) Clone() any     { return &blob{bytes.Clone(b.b)} }

func (t *memTier) put(p []byte) uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.next++
	t.recs[t.next] = bytes.Clone(p)
	return t.next
}

func (t *memTier) Load(k Kind, id uint64) ([]byte, any, error) {
	t.loads.Add(1)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.failed != nil {
		return nil, nil, t.failed
	}
	p, ok := t.recs[id]
	if !ok {
		return nil, nil, errors.New("no record")
	}
	if k == KindString {
		return bytes.Clone(p), nil, nil
	}
	return nil, &blob{bytes.Clone(p)}, nil
}

func (t *memTier) Free(id uint64, size int64) {
	t.mu.Lock()
	delete(t.recs, id)
	t.mu.Unlock()
}

func (t *memTier) len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.recs)
}

// demote moves key's value to t as the server's demoter would.
func demote(db *DB, t *memTier, key string) {
	e := db.StoredEntry([]byte(key))
	var p []byte
	if e.Kind == KindString {
		p = e.Str()
	} else {
		p = e.Obj.(*blob).b
	}
	db.Demote(e, t.put(p), int64(len(p)), 0)
}

func coldDB() (*DB, *memTier, *[]string) {
	db, _ := newTestDB()
	t := newMemTier()
	db.Tier = t
	var mods []string
	db.OnModify = func(k string) { mods = append(mods, k) }
	return db, t, &mods
}

var big = strings.Repeat("v", 300) // longer than an entry's tail: held outside

func TestColdStringRoundTrip(t *testing.T) {
	db, tier, mods := coldDB()
	set(db, "k", big)
	e := db.StoredEntry([]byte("k"))
	e.MarkRaw()
	db.SetAccess(e, 100, -1)
	mem := db.Mem()
	*mods = nil
	demote(db, tier, "k")
	if !e.IsCold() || db.Mem() >= mem {
		t.Fatalf("after Demote: cold %v, mem %d (was %d)", e.IsCold(), db.Mem(), mem)
	}
	if n, m := db.ColdStats(); n != 1 || m != e.allocSize()*0+int64(len(big)) && m <= 0 {
		t.Fatalf("ColdStats %d %d", n, m)
	}
	if e.IdleSeconds() != 100 {
		t.Fatalf("Demote changed the idle time: %d", e.IdleSeconds())
	}
	if got := db.PeekRef([]byte("k")); got != e || !got.IsCold() {
		t.Fatal("PeekRef loaded the value")
	}
	got := db.Peek([]byte("k"))
	if got != e || e.IsCold() || string(e.Str()) != big || !e.IsRaw() {
		t.Fatalf("Peek: cold %v, %q, raw %v", e.IsCold(), e.Str(), e.IsRaw())
	}
	if db.Mem() != mem {
		t.Fatalf("mem after load %d, want %d", db.Mem(), mem)
	}
	if len(*mods) != 0 {
		t.Fatalf("moving a value signalled %v", *mods)
	}
	if tier.len() != 0 {
		t.Fatal("the record outlived the load")
	}
	if n, m := db.ColdStats(); n != 0 || m != 0 {
		t.Fatalf("ColdStats after load %d %d", n, m)
	}
}

func TestColdCollection(t *testing.T) {
	db, tier, _ := coldDB()
	db.Set([]byte("h"), NewObject([]byte("h"), KindHash, &blob{[]byte(big)}))
	mem := db.Mem()
	demote(db, tier, "h")
	if db.Mem() >= mem {
		t.Fatal("Demote freed nothing")
	}
	e := db.Get([]byte("h"))
	if string(e.Obj.(*blob).b) != big || db.Mem() != mem {
		t.Fatalf("Get: %v, mem %d want %d", e.Obj, db.Mem(), mem)
	}
}

func TestColdKeyOperationsReadNothing(t *testing.T) {
	db, tier, _ := coldDB()
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		set(db, k, big+k)
		demote(db, tier, k)
	}
	base := db.Mem()
	if db.GetRef([]byte("a")) == nil || !db.SetExpire([]byte("a"), 5_000_000) || db.Len() != 5 {
		t.Fatal("key operations failed")
	}
	if !db.Delete([]byte("b")) || tier.len() != 4 {
		t.Fatalf("Delete left the record: %d", tier.len())
	}
	// A full overwrite frees the record without reading it.
	db.SetString([]byte("c"), []byte("new"), false)
	if tier.len() != 3 || string(db.Get([]byte("c")).Str()) != "new" {
		t.Fatal("overwrite")
	}
	// RENAME: Detach and Set move the reference.
	e := db.GetRef([]byte("d"))
	db.Detach([]byte("d"))
	db.Set([]byte("d2"), e)
	if tier.len() != 3 {
		t.Fatal("RENAME freed the record")
	}
	// MOVE: the same entry into another database.
	other, _ := newTestDB()
	other.Tier = tier
	e = db.GetRef([]byte("e"))
	db.Detach([]byte("e"))
	other.Set([]byte("e"), e)
	if n, _ := other.ColdStats(); n != 1 || tier.len() != 3 {
		t.Fatalf("MOVE: cold %d, records %d", n, tier.len())
	}
	if n, _ := db.ColdStats(); n != 2 {
		t.Fatalf("source cold count %d, want 2", n)
	}
	if tier.loads.Load() != 0 {
		t.Fatalf("key operations loaded %d values", tier.loads.Load())
	}
	if string(db.Get([]byte("d2")).Str()) != big+"d" || string(other.Get([]byte("e")).Str()) != big+"e" {
		t.Fatal("moved values read back wrong")
	}
	_ = base
	db.Swap(other)
	if n, _ := db.ColdStats(); n != 0 {
		t.Fatalf("Swap: cold %d", n)
	}
	other.Flush()
	if tier.len() != 0 {
		t.Fatalf("Flush left %d records", tier.len())
	}
}

func TestColdExpiryFrees(t *testing.T) {
	db, tier, _ := coldDB()
	set(db, "k", big)
	db.SetExpire([]byte("k"), 1_000_500)
	demote(db, tier, "k")
	db.Now = func() int64 { return 2_000_000 }
	if db.Get([]byte("k")) != nil || tier.len() != 0 || tier.loads.Load() != 0 {
		t.Fatalf("expired cold key: records %d, loads %d", tier.len(), tier.loads.Load())
	}
}

func TestColdLoadError(t *testing.T) {
	db, tier, _ := coldDB()
	set(db, "k", big)
	demote(db, tier, "k")
	tier.failed = errors.New("disk on fire")
	defer func() {
		r := recover()
		le, ok := r.(*LoadError)
		if !ok || le.Key != "k" || !strings.Contains(le.Error(), "disk on fire") {
			t.Fatalf("recovered %v", r)
		}
		if !db.StoredEntry([]byte("k")).IsCold() {
			t.Fatal("a failed load changed the entry")
		}
	}()
	db.Get([]byte("k"))
}

func TestInstallChecksTheRecord(t *testing.T) {
	db, tier, _ := coldDB()
	set(db, "k", big)
	demote(db, tier, "k")
	kind, id, ok := db.ColdID([]byte("k"))
	if !ok || kind != KindString {
		t.Fatal("ColdID")
	}
	e := db.StoredEntry([]byte("k"))
	k := []byte("k")
	if db.Install(k, id+100, []byte("x"), nil) {
		t.Fatal("Install with another record")
	}
	if !db.Install(k, id, []byte(big), nil) || e.IsCold() || string(e.Str()) != big {
		t.Fatal("Install")
	}
	if db.Install(k, id, []byte("x"), nil) {
		t.Fatal("Install of a hot entry")
	}
	// A renamed cold entry: the old key installs nothing, and the record
	// stays for the new one.
	set(db, "r", big)
	demote(db, tier, "r")
	_, id, _ = db.ColdID([]byte("r"))
	old := db.GetRef([]byte("r"))
	db.Detach([]byte("r"))
	db.Set([]byte("r2"), old)
	if db.Install([]byte("r"), id, []byte("x"), nil) || tier.len() != 1 {
		t.Fatal("Install under the old name of a renamed entry")
	}
	if string(db.Get([]byte("r2")).Str()) != big {
		t.Fatal("renamed value")
	}
}

// Readers sharing a tag lock load a cold value once.
func TestConcurrentLoadsLoadOnce(t *testing.T) {
	db, tier, _ := coldDB()
	for round := 0; round < 50; round++ {
		set(db, "k", big)
		demote(db, tier, "k")
		before := tier.loads.Load()
		var wg sync.WaitGroup
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if e := db.Get([]byte("k")); string(e.Str()) != big {
					t.Error("wrong value")
				}
				db.ColdID([]byte("k"))
			}()
		}
		wg.Wait()
		if n := tier.loads.Load() - before; n != 1 {
			t.Fatalf("round %d: %d loads", round, n)
		}
	}
}

// A snapshot's capture of a cold entry and a load by another reader of
// the same tag do not race: the capture sees the value cold or loaded.
func TestColdCaptureWhileLoading(t *testing.T) {
	db, tier, _ := coldDB()
	db.Snapshots = &Snapshots{}
	var seen atomic.Int64
	db.OnCapture = func(e *Entry) {
		if id, _, cold := e.ColdRecord(); cold && id == 0 || !cold && string(e.Str()) != big {
			t.Error("capture saw a half-loaded entry")
		}
		seen.Add(1)
	}
	for round := 0; round < 50; round++ {
		set(db, "k", big)
		demote(db, tier, "k")
		db.Snapshots.Start()
		e := db.StoredEntry([]byte("k"))
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); db.Get([]byte("k")) }()
		go func() { defer wg.Done(); db.CaptureEntry(e) }()
		wg.Wait()
		db.Snapshots.Stop()
	}
	if seen.Load() != 50 {
		t.Fatalf("%d captures, want 50", seen.Load())
	}
}

// TestValuesMem: ValuesMem is what the values in memory hold beyond their
// entries (Entry.ValueMem summed), whatever moves them: writes, growth,
// demotion, loads, deletes, SWAPDB. The disk tier's budget is measured in
// it, not in the keys' memory.
func TestValuesMem(t *testing.T) {
	db, tier, _ := coldDB()
	other := New()
	sum := func(d *DB) int64 {
		var n int64
		d.ForEach(func(_ string, e *Entry) bool { n += e.ValueMem(); return true })
		return n
	}
	check := func(step string) {
		t.Helper()
		for _, d := range []*DB{db, other} {
			if got, want := d.ValuesMem(), sum(d); got != want {
				t.Fatalf("%s: ValuesMem %d, the values hold %d", step, got, want)
			}
		}
	}
	set(db, "small", "v") // inline: no value memory
	set(db, "s", big)
	db.Set([]byte("h"), NewObject([]byte("h"), KindHash, &blob{[]byte(big)}))
	check("set")
	if db.ValuesMem() < 2*int64(len(big)) {
		t.Fatalf("ValuesMem %d for two values of %d bytes", db.ValuesMem(), len(big))
	}
	db.GrowString(db.Get([]byte("s")), 3*len(big))
	check("grow")
	demote(db, tier, "s")
	demote(db, tier, "h")
	check("demote")
	if db.ValuesMem() != 0 {
		t.Fatalf("ValuesMem %d with every value on disk or inline", db.ValuesMem())
	}
	db.Get([]byte("h"))
	check("load")
	db.Swap(other)
	check("swap")
	other.Delete([]byte("h"))
	other.Delete([]byte("s"))
	check("delete")
}
