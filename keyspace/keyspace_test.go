package keyspace

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

// clock is a settable test clock.
type clock struct{ now int64 }

func newTestDB() (*DB, *clock) {
	clk := &clock{now: 1_000_000}
	db := New()
	db.Now = func() int64 { return clk.now }
	return db, clk
}

func set(db *DB, key, val string) { db.SetString([]byte(key), []byte(val), false) }

// scanAll runs a full SCAN iteration with count, calling between(step)
// after each call, and returns how often each key was returned.
func scanAll(db *DB, count int, between func(step int)) map[string]int {
	seen := map[string]int{}
	cursor := uint64(0)
	for step := 0; ; step++ {
		cursor = db.Scan(cursor, count, func(k string, _ *Entry) { seen[k]++ })
		if cursor == 0 {
			return seen
		}
		if between != nil {
			between(step)
		}
		if step > 1_000_000 {
			panic("scan does not terminate")
		}
	}
}

func TestScanReturnsEveryKey(t *testing.T) {
	for _, n := range []int{0, 1, 5, 100, 5000} {
		for _, count := range []int{-3, 0, 1, 7, 10, 1000, 1 << 62} {
			t.Run(fmt.Sprintf("n=%d/count=%d", n, count), func(t *testing.T) {
				db, _ := newTestDB()
				for i := 0; i < n; i++ {
					set(db, fmt.Sprint("key:", i), "v")
				}
				seen := scanAll(db, count, nil)
				if len(seen) != n {
					t.Fatalf("scan returned %d distinct keys, want %d", len(seen), n)
				}
				for k, c := range seen {
					if c != 1 {
						t.Errorf("key %q returned %d times without concurrent changes", k, c)
					}
				}
			})
		}
	}
}

// TestScanGuaranteeUnderChanges adds and removes keys between SCAN calls:
// every key present for the whole iteration must be returned.
func TestScanGuaranteeUnderChanges(t *testing.T) {
	for _, count := range []int{1, 3, 10, 100} {
		t.Run(fmt.Sprint("count=", count), func(t *testing.T) {
			db, _ := newTestDB()
			rng := rand.New(rand.NewPCG(1, uint64(count)))
			stable := map[string]bool{}
			for i := 0; i < 2000; i++ {
				k := fmt.Sprint("stable:", i)
				set(db, k, "v")
				stable[k] = true
			}
			var volatile []string
			next := 0
			seen := scanAll(db, count, func(int) {
				for j := 0; j < 5; j++ {
					k := fmt.Sprint("churn:", next)
					next++
					set(db, k, "v")
					volatile = append(volatile, k)
				}
				for j := 0; j < 3 && len(volatile) > 0; j++ {
					i := rng.IntN(len(volatile))
					db.Delete([]byte(volatile[i]))
					volatile = append(volatile[:i], volatile[i+1:]...)
				}
			})
			for k := range stable {
				if seen[k] == 0 {
					t.Fatalf("key %q present throughout was not returned", k)
				}
			}
		})
	}
}

// TestScanConcurrentWriters runs full iterations while other goroutines
// add and remove keys (run with -race).
func TestScanConcurrentWriters(t *testing.T) {
	db := New()
	for i := 0; i < 3000; i++ {
		set(db, fmt.Sprint("stable:", i), "v")
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				k := []byte(fmt.Sprint("churn:", w, ":", i%500))
				if i%2 == 0 {
					db.SetString(k, []byte("x"), false)
				} else {
					db.Delete(k)
				}
			}
		}()
	}
	for round := 0; round < 5; round++ {
		seen := scanAll(db, 20, nil)
		for i := 0; i < 3000; i++ {
			if seen[fmt.Sprint("stable:", i)] == 0 {
				t.Fatalf("round %d: stable:%d not returned", round, i)
			}
		}
	}
	close(stop)
	wg.Wait()
}

func TestScanSkipsExpired(t *testing.T) {
	db, clk := newTestDB()
	set(db, "live", "v")
	set(db, "dead", "v")
	db.SetExpire([]byte("dead"), clk.now+10)
	clk.now += 10
	seen := scanAll(db, 10, nil)
	if len(seen) != 1 || seen["live"] != 1 {
		t.Fatalf("scan returned %v, want only live", seen)
	}
}

func TestScanHugeCursor(t *testing.T) {
	db, _ := newTestDB()
	set(db, "a", "v")
	// A cursor past every hash ends the iteration.
	if c := db.Scan(^uint64(0), 10, func(string, *Entry) {}); c != 0 {
		t.Fatalf("cursor %d, want 0", c)
	}
}

func TestCloneString(t *testing.T) {
	db, clk := newTestDB()
	set(db, "a", "hello")
	db.SetExpire([]byte("a"), clk.now+5000)
	e := db.Get([]byte("a"))
	d := e.Clone([]byte("b"))
	if d == nil || string(d.Str()) != "hello" || d.Kind != KindString || d.Expire() != clk.now+5000 || d.Key() != "b" {
		t.Fatalf("clone = %+v", d)
	}
	d.Str()[0] = 'j'
	if string(e.Str()) != "hello" {
		t.Fatal("clone shares the value's bytes")
	}
	db.Set([]byte("b"), d)
	if db.Volatile() != 2 {
		t.Fatalf("volatile = %d, want 2", db.Volatile())
	}
}

type cloneable []int

func (c cloneable) Clone() any     { return append(cloneable(nil), c...) }
func (c cloneable) MemSize() int64 { return int64(8 * len(c)) }

func TestCloneObject(t *testing.T) {
	e := NewObject([]byte("a"), KindList, cloneable{1, 2})
	d := e.Clone([]byte("b"))
	if d == nil || d.Kind != KindList {
		t.Fatalf("clone = %+v", d)
	}
	d.Obj.(cloneable)[0] = 9
	if e.Obj.(cloneable)[0] != 1 {
		t.Fatal("clone shares the object")
	}
	if NewObject([]byte("a"), KindSet, struct{}{}).Clone([]byte("b")) != nil {
		t.Fatal("an object without Clone must not be cloned")
	}
}

func TestSwap(t *testing.T) {
	a, clk := newTestDB()
	b, _ := newTestDB()
	b.Now = a.Now
	set(a, "x", "1")
	set(a, "y", "2")
	a.SetExpire([]byte("y"), clk.now+100)
	set(b, "z", "3")
	memA, memB := a.Mem(), b.Mem()
	a.Swap(b)
	if a.Len() != 1 || b.Len() != 2 || a.Get([]byte("z")) == nil || b.Get([]byte("y")) == nil {
		t.Fatalf("after swap: a=%d b=%d", a.Len(), b.Len())
	}
	if a.Mem() != memB || b.Mem() != memA || a.Volatile() != 0 || b.Volatile() != 1 {
		t.Fatal("swap did not exchange accounting")
	}
	a.Swap(a) // no-op, must not deadlock
	if a.Len() != 1 {
		t.Fatal("self swap changed the db")
	}
}

// TestMoveEntryAccounting moves an entry to another key as RENAME does
// (Delete then Set): memory and expiry follow it.
func TestMoveEntryAccounting(t *testing.T) {
	db, clk := newTestDB()
	set(db, "short", "value")
	db.SetExpire([]byte("short"), clk.now+100)
	e := db.Get([]byte("short"))
	db.Delete([]byte("short"))
	e = db.Set([]byte("a-much-longer-key-name"), e)
	if want := e.MemSize(); db.Mem() != want || want != 80+slotOverhead { // 40 + 22 + 5 bytes: the 80-byte class
		t.Fatalf("mem = %d, want %d", db.Mem(), want)
	}
	if db.Volatile() != 1 || db.Len() != 1 || e.Expire() != clk.now+100 {
		t.Fatal("expiry did not follow the entry")
	}
	db.Delete([]byte("a-much-longer-key-name"))
	if db.Mem() != 0 || db.Volatile() != 0 {
		t.Fatalf("mem = %d volatile = %d after delete", db.Mem(), db.Volatile())
	}
}

func TestExpiryBasics(t *testing.T) {
	db, clk := newTestDB()
	set(db, "k", "v")
	if !db.SetExpire([]byte("k"), clk.now+10) || db.SetExpire([]byte("missing"), 5) {
		t.Fatal("SetExpire existence report")
	}
	if db.Volatile() != 1 {
		t.Fatal("volatile not counted")
	}
	db.SetExpire([]byte("k"), 0)
	if db.Volatile() != 0 || db.Get([]byte("k")).Expire() != 0 {
		t.Fatal("persist did not clear the expiry")
	}
	db.SetExpire([]byte("k"), clk.now+10)
	clk.now += 10
	if db.Peek([]byte("k")) != nil || db.Len() != 0 {
		t.Fatal("expired key still visible")
	}
	set(db, "k2", "v")
	db.SetExpire([]byte("k2"), clk.now+1)
	clk.now++
	if db.Delete([]byte("k2")) {
		t.Fatal("Delete of an expired key reported a live key")
	}
}

func TestExpireCandidates(t *testing.T) {
	db, clk := newTestDB()
	for i := 0; i < 200; i++ {
		k := fmt.Sprint("k", i)
		set(db, k, "v")
		if i%2 == 0 {
			db.SetExpire([]byte(k), clk.now+1)
		}
	}
	clk.now++
	var removed int
	for si := 0; si < NumShards; si++ {
		for _, k := range db.ExpireCandidates(si, 100, nil) {
			if db.DeleteExpired([]byte(k)) {
				removed++
			}
		}
	}
	if removed != 100 || db.Len() != 100 || db.Volatile() != 0 {
		t.Fatalf("removed %d, len %d", removed, db.Len())
	}
}

func TestRandomAndForEach(t *testing.T) {
	db, clk := newTestDB()
	if _, ok := db.Random(rand.IntN); ok {
		t.Fatal("random key from an empty db")
	}
	set(db, "a", "v")
	set(db, "b", "v")
	db.SetExpire([]byte("b"), clk.now+1)
	clk.now++
	for i := 0; i < 20; i++ {
		if k, ok := db.Random(rand.IntN); !ok || k != "a" {
			t.Fatalf("random = %q, %v", k, ok)
		}
	}
	var keys []string
	db.ForEach(func(k string, _ *Entry) bool { keys = append(keys, k); return true })
	if len(keys) != 1 || keys[0] != "a" {
		t.Fatalf("ForEach = %v", keys)
	}
	db.Flush()
	if db.Len() != 0 || db.Mem() != 0 {
		t.Fatal("flush left keys")
	}
}

// Prefetch takes no lock: run it (with -race) against writers, FLUSH and
// SWAP, which change the tables and entries it reads.
func TestPrefetchConcurrent(t *testing.T) {
	a, b := New(), New()
	keys := make([][]byte, 64)
	for i := range keys {
		keys[i] = []byte(fmt.Sprintf("key:%d", i))
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				a.Prefetch(keys)
				b.Prefetch(keys)
			}
		}
	}()
	for round := 0; round < 200; round++ {
		for i, k := range keys {
			a.SetString(k, []byte("v"), false)
			if i%3 == 0 {
				a.Delete(k)
			}
		}
		a.Swap(b)
		if round%10 == 0 {
			a.Flush()
		}
	}
	close(stop)
	<-done
}

// TestEntryStrings: string values inline and outside the entry, across
// overwrites that move them between the two, long keys, and the memory
// accounted all along (which must return to 0).
func TestEntryStrings(t *testing.T) {
	db := New()
	long := strings.Repeat("k", maxTail+1)
	for _, key := range []string{"", "k", "key:123456", strings.Repeat("x", maxTail-3), long} {
		k := []byte(key)
		var e *Entry
		for i, n := range []int{0, 3, 12, 40, 300, 5, 300, 290, 0, 1000} {
			v := bytes.Repeat([]byte{byte('a' + i)}, n)
			e = db.SetString(k, v, false)
			if got := db.Get(k); got != e || !bytes.Equal(got.Str(), v) || got.Key() != key {
				t.Fatalf("key %d bytes, value %d bytes: got %q under %q", len(key), n, got.Str(), got.Key())
			}
			if inline := e.flags&flagExt == 0; inline != (n <= e.inlineRoom()) {
				t.Fatalf("value %d bytes, room %d: inline %v", n, e.inlineRoom(), inline)
			}
			if db.Mem() != e.MemSize() || e.MemSize() < int64(len(key)+n) {
				t.Fatalf("mem %d, entry %d", db.Mem(), e.MemSize())
			}
		}
		// Grown and replaced in place, as APPEND and SETRANGE do.
		b := db.GrowString(e, 1010)
		copy(b[1000:], "0123456789")
		db.SetStringBuf(e, append(e.Str(), "!"...))
		if v := e.Str(); len(v) != 1011 || string(v[1000:]) != "0123456789!" || db.Mem() != e.MemSize() {
			t.Fatalf("grown: %d bytes, mem %d / %d", len(v), db.Mem(), e.MemSize())
		}
		db.SetStringBuf(e, []byte("s"))
		if string(e.Str()) != "s" || db.Mem() != e.MemSize() {
			t.Fatal("shrunk")
		}
		d := db.Set([]byte("renamed"), e.Clone([]byte("renamed")))
		if d.Key() != "renamed" || string(d.Str()) != "s" {
			t.Fatal("clone")
		}
		db.Delete(k)
		db.Delete([]byte("renamed"))
		if db.Mem() != 0 {
			t.Fatalf("mem %d after deleting everything", db.Mem())
		}
	}
}

func TestPackSize(t *testing.T) {
	for _, n := range []int64{0, 1, 1<<31 - 1, 1 << 31, 1<<40 + 12345} {
		got := unpackSize(packSize(n))
		if got > n || n-got >= 1<<16 {
			t.Fatalf("%d packs to %d", n, got)
		}
	}
}

// TestGrowStringAmortized: growing a string a byte at a time (SETBIT at
// rising offsets) reallocates it a logarithmic number of times, not once
// per byte.
func TestGrowStringAmortized(t *testing.T) {
	db := New()
	e := db.SetString([]byte("bits"), nil, false)
	moves := 0
	var last *byte
	for n := 1; n <= 1<<16; n++ {
		b := db.GrowString(e, n)
		if &b[0] != last {
			moves++
			last = &b[0]
		}
	}
	if moves > 40 || db.Mem() != e.MemSize() {
		t.Fatalf("%d reallocations for 64K one-byte growths (mem %d / %d)", moves, db.Mem(), e.MemSize())
	}
}

// TestExpiredMatchesStored checks Expired against Stored's expired, for
// keys with and without an expiry, in shards with and without volatile
// keys, before and after the expiries pass and after the active expiry
// cycle cleared empty shards' bits.
func TestExpiredMatchesStored(t *testing.T) {
	db, clk := newTestDB()
	for i := range 2000 {
		k := fmt.Sprintf("k%d", i)
		set(db, k, "v")
		if i%97 == 0 {
			db.SetExpire([]byte(k), clk.now+10)
		}
	}
	check := func(when string) {
		t.Helper()
		expired := 0
		for i := range 2100 { // and 100 missing keys
			k := []byte(fmt.Sprintf("k%d", i))
			_, want := db.Stored(k)
			if got := db.Expired(k); got != want {
				t.Fatalf("%s: Expired(%s) = %v, Stored says %v", when, k, got, want)
			}
			if want {
				expired++
			}
		}
		t.Logf("%s: %d expired", when, expired)
	}
	check("before")
	clk.now += 10
	check("after")
	for si := range NumShards {
		db.sampleExpiredAll(si)
	}
	check("after the cycle")
}

// sampleExpiredAll deletes the expired keys of shard si, as the active
// expiry cycle does, until SampleExpired finds no volatile key (which
// clears the shard's bit). Every volatile key must be expired.
func (db *DB) sampleExpiredAll(si int) {
	for {
		out, n := db.SampleExpired(si, 1000, nil)
		if n == 0 {
			return
		}
		for _, k := range out {
			db.DeleteExpired([]byte(k))
		}
	}
}

// TestCountsWhileWriting: Len and Volatile read no shard lock (INFO
// keyspace and DBSIZE call them), so they run beside writers (-race
// checks the reads) and count exactly once the writers are done.
func TestCountsWhileWriting(t *testing.T) {
	db, clk := newTestDB()
	var wg sync.WaitGroup
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
				if n, v := db.Len(), db.Volatile(); n < 0 || v < 0 || n > 4000 {
					panic(fmt.Sprint("counts ", n, v))
				}
			}
		}
	}()
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 1000 {
				k := fmt.Sprint(w, ":", i)
				set(db, k, "v")
				if i%3 == 0 {
					db.SetExpire([]byte(k), clk.now+1000)
				}
				if i%5 == 0 {
					db.Delete([]byte(k))
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	// Per writer: 1000 keys, 200 deleted; 334 with an expiry, of which the
	// 67 multiples of 15 were deleted.
	if n, v := db.Len(), db.Volatile(); n != 4*800 || v != 4*267 {
		t.Fatalf("len %d volatile %d, want %d and %d", n, v, 4*800, 4*267)
	}
}

// TestInsertMatchesSetAndExpire: Insert and InsertString leave what
// SetString (or Set) and SetExpire leave: the value, the expiration, the
// volatile count, the memory, a replaced entry accounted no more, and an
// expired entry replaced reported through OnExpire.
func TestInsertMatchesSetAndExpire(t *testing.T) {
	a, clk := newTestDB()
	b, _ := newTestDB()
	b.Now = a.Now
	var expiredA, expiredB []string
	a.OnExpire = func(k string) { expiredA = append(expiredA, k) }
	b.OnExpire = func(k string) { expiredB = append(expiredB, k) }
	steps := []struct {
		key, val string
		at       int64
	}{
		{"k1", "v", 0}, {"k2", strings.Repeat("x", 300), clk.now + 100}, {"k1", "w", clk.now + 5},
		{"k2", "short", 0},
	}
	for _, st := range steps {
		a.InsertString([]byte(st.key), []byte(st.val), st.at)
		b.SetString([]byte(st.key), []byte(st.val), false)
		if st.at != 0 {
			b.SetExpire([]byte(st.key), st.at)
		}
	}
	a.Insert([]byte("k3"), NewString([]byte("k3"), []byte("old")), clk.now+1)
	b.SetString([]byte("k3"), []byte("old"), false)
	b.SetExpire([]byte("k3"), clk.now+1)
	clk.now += 2
	a.InsertString([]byte("k3"), []byte("new"), 0) // replaces an expired entry
	b.SetString([]byte("k3"), []byte("new"), false)
	for _, db := range []*DB{a, b} {
		if db.Len() != 3 || db.Volatile() != 1 {
			t.Fatalf("len %d volatile %d", db.Len(), db.Volatile())
		}
	}
	if a.Mem() != b.Mem() {
		t.Errorf("mem %d, SetString's %d", a.Mem(), b.Mem())
	}
	for _, k := range []string{"k1", "k2", "k3"} {
		ea, eb := a.Peek([]byte(k)), b.Peek([]byte(k))
		if string(ea.Str()) != string(eb.Str()) || ea.Expire() != eb.Expire() {
			t.Errorf("%s: %q %d, want %q %d", k, ea.Str(), ea.Expire(), eb.Str(), eb.Expire())
		}
	}
	if fmt.Sprint(expiredA) != fmt.Sprint(expiredB) || len(expiredA) != 1 {
		t.Errorf("OnExpire %v, SetString's %v", expiredA, expiredB)
	}
}
