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
				h &= 0xF00000000000000F // few distinct slots and hashes
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
				e := &Entry{}
				e.setKey([]byte(k), h)
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
				} else if tb.remove(h, &Entry{key: k}) {
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
		tb.each(func(h uint64, e *Entry) bool {
			if ref[e.key] != e || h != hash(e.key) {
				t.Fatalf("each: stray entry %q", e.key)
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
// entry is renamed (a short key lives inside the entry and is never
// rewritten).
func TestEntryKeyStable(t *testing.T) {
	db := New()
	e := NewString([]byte("v"))
	db.Set([]byte("short"), e)
	k := e.Key()
	db.Delete([]byte("short"))
	db.Set([]byte("other"), e)
	if k != "short" || e.Key() != "other" {
		t.Fatalf("handed-out key %q, entry key %q", k, e.Key())
	}
	if db.Get([]byte("other")) != e || db.Get([]byte("short")) != nil {
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

// TestEntrySize: an entry is two cache lines; a field added carelessly
// would push it into the next allocation size class.
func TestEntrySize(t *testing.T) {
	if n := unsafe.Sizeof(Entry{}); n != 128 {
		t.Fatalf("Entry is %d bytes, want 128", n)
	}
}
