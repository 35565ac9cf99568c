package lock

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestTag(t *testing.T) {
	for _, tc := range []struct{ key, tag string }{
		{"foo", "foo"},
		{"{user1000}.following", "user1000"},
		{"{queue}:wait", "queue"},
		{"foo{}{bar}", "foo{}{bar}"}, // first '{' then '}' right after: no tag
		{"foo{{bar}}zap", "{bar"},    // between the first '{' and the first '}'
		{"foo{bar}{zap}", "bar"},     // only the first tag counts
		{"{", "{"}, {"}{", "}{"}, {"a{b", "a{b"}, {"", ""},
	} {
		if got := string(Tag([]byte(tc.key))); got != tc.tag {
			t.Errorf("Tag(%q) = %q, want %q", tc.key, got, tc.tag)
		}
	}
}

// acquired reports whether fn returns within d.
func acquired(fn func(), d time.Duration) bool {
	done := make(chan struct{})
	go func() { fn(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

func keys(ks ...string) [][]byte {
	out := make([][]byte, len(ks))
	for i, k := range ks {
		out[i] = []byte(k)
	}
	return out
}

func TestDifferentTagsProceed(t *testing.T) {
	m := NewManager()
	a := m.NewGuard(1)
	a.LockKeys(keys("{x}1"), true)
	defer a.Unlock()
	b := m.NewGuard(2)
	if !acquired(func() { b.LockKeys(keys("{y}1", "z"), true) }, 2*time.Second) {
		t.Fatal("a command on other tags waited for a held tag")
	}
	b.Unlock()
}

func TestSameTagWaits(t *testing.T) {
	m := NewManager()
	a := m.NewGuard(1)
	a.LockKeys(keys("{x}1"), true)
	b := m.NewGuard(2)
	got := make(chan struct{})
	go func() { b.LockKeys(keys("{x}2"), false); close(got) }()
	select {
	case <-got:
		t.Fatal("a reader got a tag held exclusively")
	case <-time.After(50 * time.Millisecond):
	}
	a.Unlock()
	<-got
	b.Unlock()
	if _, waits, _, _, held := m.Snapshot(); waits != 1 || held != 0 {
		t.Fatalf("waits=%d held=%d, want 1 and 0", waits, held)
	}
}

func TestReadersShare(t *testing.T) {
	m := NewManager()
	a, b := m.NewGuard(1), m.NewGuard(2)
	a.LockKeys(keys("k"), false)
	if !acquired(func() { b.LockKeys(keys("k"), false) }, 2*time.Second) {
		t.Fatal("two readers of one tag excluded each other")
	}
	w := m.NewGuard(3)
	if acquired(func() { w.LockKeys(keys("k"), true) }, 50*time.Millisecond) {
		t.Fatal("a writer got a tag held by readers")
	}
	a.Unlock()
	b.Unlock()
}

func TestGlobalExcludesEveryone(t *testing.T) {
	m := NewManager()
	r := m.NewGuard(5)
	r.LockKeys(keys("a"), false)
	g := m.NewGuard(6)
	gotGlobal := make(chan struct{})
	go func() { g.LockGlobal(); close(gotGlobal) }()
	select {
	case <-gotGlobal:
		t.Fatal("the global lock was taken while a command ran")
	case <-time.After(50 * time.Millisecond):
	}
	r.Unlock()
	<-gotGlobal
	if !g.Covers([]byte("anything"), true) {
		t.Fatal("the global lock must cover every key")
	}
	// Every slot is blocked while the global lock is held.
	for i := uint64(0); i < globalSlots; i++ {
		o := m.NewGuard(i)
		done := make(chan struct{})
		go func() { o.LockKeys(keys("b"), false); close(done) }()
		select {
		case <-done:
			t.Fatalf("slot %d took a key lock under the global lock", i)
		case <-time.After(5 * time.Millisecond):
		}
		g.Unlock() // let it through, then take the global lock back
		<-done
		o.Unlock()
		g.LockGlobal()
	}
	g.Unlock()
}

func TestCovers(t *testing.T) {
	m := NewManager()
	g := m.NewGuard(1)
	g.LockKeys(keys("{queue}:wait", "plain"), true)
	for _, tc := range []struct {
		key  string
		want bool
	}{
		{"{queue}:active", true}, {"{queue}:wait", true}, {"plain", true},
		{"{other}:active", false}, {"plain2", false}, {"queue", true},
	} {
		if got := g.Covers([]byte(tc.key), true); got != tc.want {
			t.Errorf("Covers(%q) = %v, want %v", tc.key, got, tc.want)
		}
	}
	g.Unlock()
	g.LockKeys(keys("r"), false)
	if g.Covers([]byte("r"), true) {
		t.Error("a shared lock must not cover a write")
	}
	g.Unlock()
}

// TestNoDeadlock hammers random multi-tag sets in random orders, with
// occasional global acquisitions, and checks that (a) everything finishes
// and (b) exclusive tag locks really exclude (a per-tag counter never sees
// two writers).
func TestNoDeadlock(t *testing.T) {
	m := NewManager()
	const tags = 8
	var inside [tags]atomic.Int32
	var wg sync.WaitGroup
	done := make(chan struct{})
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			g := m.NewGuard(uint64(w))
			r := rand.New(rand.NewPCG(uint64(w), 7))
			for i := 0; i < 2000; i++ {
				if i%500 == 499 {
					g.LockGlobal()
					g.Unlock()
					continue
				}
				n := 1 + r.IntN(4)
				var ks [][]byte
				var idx []int
				for j := 0; j < n; j++ {
					x := r.IntN(tags)
					idx = append(idx, x)
					ks = append(ks, []byte(fmt.Sprintf("{t%d}:%d", x, r.IntN(3))))
				}
				g.LockKeys(ks, true)
				seen := map[int]bool{}
				for _, x := range idx {
					if !seen[x] {
						seen[x] = true
						if inside[x].Add(1) != 1 {
							t.Errorf("two writers inside tag %d", x)
						}
					}
				}
				for x := range seen {
					inside[x].Add(-1)
				}
				g.Unlock()
			}
		}(w)
	}
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("deadlock: lockers did not finish")
	}
	if _, _, _, _, held := m.Snapshot(); held != 0 {
		t.Fatalf("%d tag locks left in the table", held)
	}
}

func TestTryLockKey(t *testing.T) {
	m := NewManager()
	a := m.NewGuard(1)
	a.LockKeys(keys("k"), false)
	b := m.NewGuard(2)
	if b.TryLockKey([]byte("k")) {
		t.Fatal("TryLockKey took a tag held shared")
	}
	a.Unlock()
	if !b.TryLockKey([]byte("k")) {
		t.Fatal("TryLockKey failed on a free tag")
	}
	b.Unlock()
}

func BenchmarkLockOneKey(b *testing.B) {
	m := NewManager()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		g := m.NewGuard(rand.Uint64())
		k := keys(fmt.Sprintf("key:%d", rand.IntN(1000000)))
		for pb.Next() {
			g.LockKeys(k, true)
			g.Unlock()
		}
	})
}

// TestSetTagsOrder: a command's tags come out sorted bytewise and without
// repeats, the lock order, for every count of keys (the small-count
// insertion sort and the general sort), with repeated and hash-tagged keys.
func TestSetTagsOrder(t *testing.T) {
	g := NewManager().NewGuard(0)
	r := rand.New(rand.NewPCG(5, 6))
	for n := 0; n <= 40; n++ {
		for range 20 {
			keys := make([][]byte, n)
			want := map[string]bool{}
			for i := range keys {
				k := fmt.Sprintf("k%d", r.IntN(2*n+1))
				if r.IntN(4) == 0 {
					k = fmt.Sprintf("x{t%d}y%d", r.IntN(5), i)
				}
				keys[i] = []byte(k)
				want[string(Tag(keys[i]))] = true
			}
			g.setTags(keys)
			if len(g.tags) != len(want) {
				t.Fatalf("%q: %d tags, want %d", keys, len(g.tags), len(want))
			}
			for i, h := range g.tags {
				if !want[string(h.tag)] || i > 0 && string(g.tags[i-1].tag) >= string(h.tag) {
					t.Fatalf("%q: tags not sorted and distinct at %d: %q", keys, i, h.tag)
				}
			}
		}
	}
}
