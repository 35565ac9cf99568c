package keyspace

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"unsafe"
)

// bufAddr is the address of e's string bytes.
func bufAddr(e *Entry) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(e.Str())) }

// TestBufClasses: the size classes found at start-up are the runtime's
// (an n-byte buffer's allocation holds its class's bytes, which the
// recycling relies on) and every length maps to the smallest class that
// holds it.
func TestBufClasses(t *testing.T) {
	if len(bufClasses) < 30 || bufClasses[len(bufClasses)-1] != bufPoolMax {
		t.Fatalf("classes %v", bufClasses)
	}
	for n := 1; n <= bufPoolMax; n++ {
		c := bufClasses[bufClassOf[(n+7)/8]]
		if c < n || bufClassOf[(n+7)/8] > 0 && bufClasses[bufClassOf[(n+7)/8]-1] >= n {
			t.Fatalf("length %d: class %d", n, c)
		}
	}
	for _, n := range []int{1000, 1024, 1025, 3000, 20000} {
		if got, want := bufClasses[bufClassOf[(n+7)/8]], cap(append([]byte(nil), make([]byte, n)...)); got != want {
			t.Errorf("length %d: class %d, runtime %d", n, got, want)
		}
	}
}

// TestEvictRecyclesBuffer: Evict gives a string's buffer to the next
// value of its size class, and the evicted entry no longer reads it;
// Delete, and buffers the entry did not allocate itself, are left to the
// collector.
func TestEvictRecyclesBuffer(t *testing.T) {
	FreeBuffers()
	db := New()
	v := bytes.Repeat([]byte("a"), 1000)
	db.SetString([]byte("k1"), v, false)
	e1 := db.StoredEntry([]byte("k1"))
	p1 := bufAddr(e1)
	mem := db.Mem()
	if !db.Evict([]byte("k1")) || db.Mem() != 0 || db.StoredEntry([]byte("k1")) != nil {
		t.Fatalf("Evict: mem %d (was %d)", db.Mem(), mem)
	}
	if len(e1.Str()) != 0 {
		t.Fatalf("the evicted entry still reads %d bytes", len(e1.Str()))
	}
	// Another class does not take it.
	db.SetString([]byte("small"), bytes.Repeat([]byte("s"), 300), false)
	if bufAddr(db.StoredEntry([]byte("small"))) == p1 {
		t.Fatal("a 300-byte value took a 1024-byte buffer")
	}
	w := bytes.Repeat([]byte("b"), 1010) // same class as 1000
	db.SetString([]byte("k2"), w, false)
	e2 := db.StoredEntry([]byte("k2"))
	if bufAddr(e2) != p1 || !bytes.Equal(e2.Str(), w) || cap(e2.Str()) != len(w) {
		t.Fatalf("k2 did not reuse k1's buffer (or reads %d bytes, cap %d)", len(e2.Str()), cap(e2.Str()))
	}
	if db.Mem() != mem+db.StoredEntry([]byte("small")).MemSize()+10 {
		t.Errorf("mem %d: a recycled buffer is accounted as a new one (%d)", db.Mem(), mem)
	}

	// Delete does not recycle.
	db.Delete([]byte("k2"))
	db.SetString([]byte("k3"), w, false)
	if bufAddr(db.StoredEntry([]byte("k3"))) == p1 {
		t.Fatal("Delete recycled")
	}

	// A buffer handed in (NewString, SetStringBuf, a tier load) is never
	// recycled: it may be part of a larger allocation, or shared.
	outer := make([]byte, 4096)
	in := outer[100:1100]
	db.Set([]byte("k4"), NewString([]byte("k4"), in))
	db.Evict([]byte("k4"))
	db.SetString([]byte("k5"), w, false)
	if bufAddr(db.StoredEntry([]byte("k5"))) == unsafe.Pointer(&in[0]) {
		t.Fatal("a caller's buffer was recycled")
	}
	e5 := db.StoredEntry([]byte("k5"))
	db.SetStringBuf(e5, append(e5.Str(), 'x'))
	p5 := bufAddr(e5)
	db.Evict([]byte("k5"))
	db.SetString([]byte("k6"), w, false)
	if bufAddr(db.StoredEntry([]byte("k6"))) == p5 {
		t.Fatal("a buffer APPEND handed in was recycled")
	}

	// RENAME moves the buffer with its mark: evicting the new key
	// recycles it.
	e6 := db.StoredEntry([]byte("k6"))
	p6 := bufAddr(e6)
	db.Detach([]byte("k6"))
	db.Set([]byte("k7"), e6)
	db.Evict([]byte("k7"))
	db.SetString([]byte("k8"), w, false)
	if bufAddr(db.StoredEntry([]byte("k8"))) != p6 {
		t.Fatal("a renamed key's buffer was not recycled")
	}
}

// TestEvictColdNotRecycled: a cold string has no buffer to give back, and
// after a load its buffer is the tier's, never recycled.
func TestEvictColdNotRecycled(t *testing.T) {
	FreeBuffers()
	db, tier, _ := coldDB()
	set(db, "k", big)
	demote(db, tier, "k")
	db.Evict([]byte("k"))
	if free, _ := BufferStats(); free != 0 {
		t.Fatalf("a cold entry's eviction freed %d bytes", free)
	}
	set(db, "k", big)
	demote(db, tier, "k")
	e := db.Get([]byte("k")) // loaded: the tier's buffer
	if e.IsCold() {
		t.Fatal("not loaded")
	}
	db.Evict([]byte("k"))
	if free, _ := BufferStats(); free != 0 {
		t.Fatalf("a loaded value's eviction freed %d bytes", free)
	}
}

// TestEvictRecycleConcurrent: writers that evict and store keys of one
// size class under per-key locks (the tag locks' part), beside readers
// that copy values under the same locks; every value read must be its
// key's own (a buffer recycled while read would show another key's
// bytes; -race reports the unordered accesses as well).
func TestEvictRecycleConcurrent(t *testing.T) {
	FreeBuffers()
	db := New()
	const keys = 64
	var locks [keys]sync.RWMutex
	value := func(k int) []byte { return bytes.Repeat([]byte(fmt.Sprintf("<%03d>", k)), 200) }
	var wg sync.WaitGroup
	errs := make(chan string, 16)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for range 4000 {
				k := r.IntN(keys)
				key := []byte(fmt.Sprint(k))
				locks[k].Lock()
				if r.IntN(2) == 0 {
					db.Evict(key)
				} else {
					db.SetString(key, value(k), false)
				}
				locks[k].Unlock()
			}
		}()
	}
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 0, 1024)
			for i := range 8000 {
				k := i % keys
				locks[k].RLock()
				if e := db.Get([]byte(fmt.Sprint(k))); e != nil {
					buf = append(buf[:0], e.Str()...)
				} else {
					buf = buf[:0]
				}
				locks[k].RUnlock()
				if len(buf) > 0 && !bytes.Equal(buf, value(k)) {
					select {
					case errs <- fmt.Sprintf("key %d read %.20q...", k, buf):
					default:
					}
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if _, reused := BufferStats(); reused == 0 {
		t.Error("no buffer was reused")
	}
}

// TestBufPoolBounded: the free lists keep at most bufPoolBytes a class
// and bufPoolTotal in all, whatever is evicted.
func TestBufPoolBounded(t *testing.T) {
	FreeBuffers()
	db := New()
	for _, size := range []int{1000, 2000, 3000, 5000, 9000, 17000, 30000} {
		for i := range 300 {
			db.SetString([]byte(fmt.Sprintf("k%d-%d", size, i)), bytes.Repeat([]byte("x"), size), false)
		}
		for i := range 300 {
			db.Evict([]byte(fmt.Sprintf("k%d-%d", size, i)))
		}
		for i := range bufPool {
			if n := len(bufPool[i].free) * bufClasses[i]; n > max(bufPoolBytes, bufPoolMinCount*bufClasses[i]) {
				t.Fatalf("class %d holds %d bytes", bufClasses[i], n)
			}
		}
	}
	if free, _ := BufferStats(); free > bufPoolTotal || free != bufPooled.Load() || free < bufPoolTotal/2 {
		t.Fatalf("the lists hold %d bytes (counted %d), at most %d", free, bufPooled.Load(), bufPoolTotal)
	}
	FreeBuffers()
	if free, _ := BufferStats(); free != 0 || bufPooled.Load() != 0 {
		t.Fatalf("after FreeBuffers: %d bytes (counted %d)", free, bufPooled.Load())
	}
}
