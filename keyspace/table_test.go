package keyspace

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// TestTableAgainstMap runs random puts, gets and removes on a table and on
// a Go map and compares them after every step, with a hash function that
// collides often so that probing, tombstones and resizing are exercised.
func TestTableAgainstMap(t *testing.T) {
	for _, collide := range []bool{false, true} {
		hash := func(k string) uint64 {
			h := hashKey([]byte(k))
			if collide {
				h &= 0xF0000000000C0000 | 3<<fragBits // few distinct fragments
			}
			return h
		}
		var tb table
		ref := map[string]*Entry{}
		r := rand.New(rand.NewPCG(1, 2))
		for step := 0; step < 20000; step++ {
			k := fmt.Sprintf("k%d", r.IntN(300))
			h := hash(k)
			switch op := r.IntN(10); {
			case op < 5:
				e := NewString([]byte(k), nil)
				old := tb.put(h, e)
				if old != ref[k] {
					t.Fatalf("step %d: put(%s) replaced %p, want %p", step, k, old, ref[k])
				}
				ref[k] = e
			case op < 8:
				if want := ref[k]; want != nil {
					if !tb.remove(h, want) {
						t.Fatalf("step %d: remove(%s) found nothing", step, k)
					}
					delete(ref, k)
				} else if tb.remove(h, NewString([]byte(k), nil)) {
					t.Fatalf("step %d: removed an absent key", step)
				}
			default:
				if got := tb.get(h, []byte(k)); got != ref[k] {
					t.Fatalf("step %d: get(%s) = %p, want %p", step, k, got, ref[k])
				}
			}
			if tb.len() != len(ref) {
				t.Fatalf("step %d: len %d, want %d", step, tb.len(), len(ref))
			}
		}
		seen := 0
		tb.each(func(f uint32, e *Entry) bool {
			if ref[e.Key()] != e || f != fragHash(hash(e.Key())) {
				t.Fatalf("each: stray entry %q", e.Key())
			}
			seen++
			return true
		})
		if seen != len(ref) {
			t.Fatalf("each saw %d, want %d", seen, len(ref))
		}
		for k, e := range ref {
			if tb.get(hash(k), []byte(k)) != e {
				t.Fatalf("lost %s", k)
			}
		}
	}
}

// TestEntryKeyStable: a key string handed out stays the same after the
// entry is renamed (the key lives inside the entry and is never
// rewritten: the renamed value moves to a new entry).
func TestEntryKeyStable(t *testing.T) {
	db := New()
	e := db.Set([]byte("short"), NewString([]byte("short"), []byte("v")))
	k := e.Key()
	db.Delete([]byte("short"))
	d := db.Set([]byte("other"), e)
	if k != "short" || d.Key() != "other" || string(d.Str()) != "v" {
		t.Fatalf("handed-out key %q, entry key %q", k, d.Key())
	}
	if db.Get([]byte("other")) != d || db.Get([]byte("short")) != nil {
		t.Fatal("rename lost the entry")
	}
}

func BenchmarkGetRandom(b *testing.B) {
	db := New()
	const n = 100000
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = []byte(fmt.Sprintf("key:%012d", i))
		db.SetString(keys[i], []byte("xxx"), false)
	}
	r := rand.New(rand.NewPCG(1, 2))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if db.Get(keys[r.IntN(n)]) == nil {
			b.Fatal("missing")
		}
	}
}

// TestEntrySize: the header is 40 bytes, so that a key and value of 24
// bytes together fit a 64-byte allocation; a field added carelessly would
// push every entry into the next size class. The entry types are the
// allocator's size classes.
func TestEntrySize(t *testing.T) {
	if n := unsafe.Sizeof(Entry{}); n != 40 {
		t.Fatalf("Entry is %d bytes, want 40", n)
	}
	sizes := []uintptr{unsafe.Sizeof(entry48{}), unsafe.Sizeof(entry64{}), unsafe.Sizeof(entry80{}),
		unsafe.Sizeof(entry96{}), unsafe.Sizeof(entry112{}), unsafe.Sizeof(entry128{}),
		unsafe.Sizeof(entry144{}), unsafe.Sizeof(entry160{}), unsafe.Sizeof(entry176{}),
		unsafe.Sizeof(entry192{}), unsafe.Sizeof(entry208{}), unsafe.Sizeof(entry224{}),
		unsafe.Sizeof(entry240{}), unsafe.Sizeof(entry256{})}
	if len(sizes) != len(entryClasses) {
		t.Fatal("a class is missing here")
	}
	for i, n := range sizes {
		if n != uintptr(48+16*i) {
			t.Fatalf("class %d: %d bytes", i, n)
		}
	}
}

// TestReserve: after Reserve(n), n keys go in without a table growing
// (each rehashed once, up front), and every key is found.
func TestReserve(t *testing.T) {
	db := New()
	const n = 200_000
	db.Reserve(n)
	sizes := make([]int, NumShards)
	for i := range db.shards {
		sizes[i] = db.shards[i].m.size()
	}
	for i := range n {
		db.SetString([]byte(fmt.Sprintf("key:%d", i)), []byte("v"), false)
	}
	grew := 0
	for i := range db.shards {
		if db.shards[i].m.size() != sizes[i] {
			grew++
		}
	}
	// A shard whose count lands far above the mean may still grow once.
	if grew > NumShards/20 {
		t.Errorf("%d of %d tables grew after Reserve", grew, NumShards)
	}
	if db.Len() != n {
		t.Fatalf("Len %d", db.Len())
	}
	for i := 0; i < n; i += 997 {
		if db.Peek([]byte(fmt.Sprintf("key:%d", i))) == nil {
			t.Fatalf("key:%d missing", i)
		}
	}
	// Reserve never shrinks, and small hints do nothing.
	before := db.shards[0].m.size()
	db.Reserve(10)
	if db.shards[0].m.size() != before {
		t.Errorf("a small Reserve resized")
	}
}
