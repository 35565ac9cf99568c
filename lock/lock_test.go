package lock

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
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

// granter records the calls of an asynchronous acquisition's granted.
type granter struct {
	n  atomic.Int32
	ch chan struct{}
}

func newGranter() *granter { return &granter{ch: make(chan struct{}, 4)} }

func (r *granter) granted() { r.n.Add(1); r.ch <- struct{}{} }

// wait reports whether granted is called within d.
func (r *granter) wait(d time.Duration) bool {
	select {
	case <-r.ch:
		return true
	case <-time.After(d):
		return false
	}
}

// checkIdle fails unless every lock is free: no tag in use, and the global
// lock can be taken exclusively at once.
func checkIdle(t *testing.T, m *Manager) {
	t.Helper()
	if _, _, _, _, held := m.Snapshot(); held != 0 {
		t.Fatalf("%d tags still in use", held)
	}
	g := m.NewGuard(0)
	if !g.TryLockGlobal() {
		t.Fatal("the global lock is not free")
	}
	g.Unlock()
}

func TestAsyncGrant(t *testing.T) {
	m := NewManager()
	a, b := m.NewGuard(1), m.NewGuard(2)
	free := newGranter()
	if !a.LockKeysAsync(keys("{k}1"), true, free.granted) {
		t.Fatal("LockKeysAsync queued for a free tag")
	}
	if a.Pending() || free.n.Load() != 0 || !a.Covers([]byte("{k}x"), true) {
		t.Fatal("an immediate async grant must hold the lock without calling granted")
	}
	r := newGranter()
	if b.LockKeysAsync(keys("{k}2"), true, r.granted) {
		t.Fatal("LockKeysAsync took a tag held exclusively")
	}
	if !b.Pending() {
		t.Fatal("a queued guard must be pending")
	}
	if r.wait(20 * time.Millisecond) {
		t.Fatal("granted was called while the tag was held")
	}
	a.Unlock()
	// The grant happens on the releasing goroutine, inside Unlock.
	if r.n.Load() != 1 {
		t.Fatalf("granted called %d times by Unlock, want 1", r.n.Load())
	}
	<-r.ch
	if b.Pending() || !b.Covers([]byte("{k}2"), true) {
		t.Fatal("the granted guard does not hold the tag")
	}
	if a.TryLockKey([]byte("k")) {
		t.Fatal("the tag was free while the granted guard held it")
	}
	if b.Cancel() {
		t.Fatal("Cancel succeeded after granted")
	}
	b.Unlock()
	if _, waits, _, _, _ := m.Snapshot(); waits != 1 {
		t.Fatalf("waits = %d, want 1", waits)
	}
	checkIdle(t, m)
	if r.n.Load() != 1 || free.n.Load() != 0 {
		t.Fatal("granted called again")
	}
}

// TestAsyncMultiTag: a request for several tags holds the ones it got
// while it waits for the next, and is granted once it has them all.
func TestAsyncMultiTag(t *testing.T) {
	m := NewManager()
	a, b, c := m.NewGuard(1), m.NewGuard(2), m.NewGuard(3)
	a.LockKeys(keys("b"), true)
	c.LockKeys(keys("d"), false)
	r := newGranter()
	if b.LockKeysAsync(keys("d", "c", "b", "a"), true, r.granted) {
		t.Fatal("granted with b held")
	}
	o := m.NewGuard(4)
	if o.TryLockKeys(keys("a"), false) {
		t.Fatal("a is free although the waiting request took it")
	}
	if !o.TryLockKeys(keys("c"), false) {
		t.Fatal("c is taken although the request has not reached it")
	}
	o.Unlock()
	a.Unlock() // b granted; c free; d held shared: queued again
	if r.n.Load() != 0 || !b.Pending() {
		t.Fatal("granted while d was held shared")
	}
	if o.TryLockKeys(keys("c"), false) {
		t.Fatal("c is free although the request moved past it")
	}
	c.Unlock()
	if r.n.Load() != 1 {
		t.Fatal("not granted once every tag was free")
	}
	for _, k := range []string{"a", "b", "c", "d"} {
		if !b.Covers([]byte(k), true) {
			t.Fatalf("the granted guard does not cover %s", k)
		}
	}
	b.Unlock()
	checkIdle(t, m)
}

// TestTagQueueOrder: requests for one tag are granted in arrival order,
// consecutive shared ones together, none passing a queued exclusive one.
func TestTagQueueOrder(t *testing.T) {
	m := NewManager()
	h := m.NewGuard(0)
	h.LockKeys(keys("k"), true)
	type req struct {
		name  string
		write bool
		g     *Guard
		r     *granter
	}
	var reqs []*req
	for i, w := range []bool{true, false, true, false, false, true, false} {
		q := &req{name: fmt.Sprintf("%d", i), write: w, g: m.NewGuard(uint64(i + 1)), r: newGranter()}
		if q.g.LockKeysAsync(keys("k"), w, q.r.granted) {
			t.Fatalf("request %d granted with the tag held", i)
		}
		reqs = append(reqs, q)
	}
	// Each step: what is granted after the previous holders unlock.
	steps := [][]int{{0}, {1}, {2}, {3, 4}, {5}, {6}}
	holders := []*Guard{h}
	for _, want := range steps {
		for _, g := range holders {
			g.Unlock()
		}
		holders = holders[:0]
		for i, q := range reqs {
			got := q.r.n.Load() == 1
			wanted := slices.Contains(want, i)
			if got && q.g.Pending() {
				t.Fatalf("request %d granted but pending", i)
			}
			if wanted && !got {
				t.Fatalf("request %d not granted at step %v", i, want)
			}
			if wanted {
				holders = append(holders, q.g)
				q.r.n.Store(2) // done: stays granted
			} else if q.r.n.Load() == 1 {
				t.Fatalf("request %d granted at step %v", i, want)
			}
		}
	}
	for _, g := range holders {
		g.Unlock()
	}
	checkIdle(t, m)
}

// testNoOvertake runs a stream of overlapping acquisitions of one tag
// (shared when streamWrite is false) and, meanwhile, queues one request in
// the other mode: no stream acquisition that started after that request
// was queued may get the tag before it, and it must be granted.
func testNoOvertake(t *testing.T, streamWrite bool) {
	m := NewManager()
	// queued is the round whose request is queued (0: none), granted the
	// last round whose request was granted.
	var (
		queued, granted atomic.Int64
		stop            atomic.Bool
		overtakes       atomic.Int32
		streamed        atomic.Int64
		wg              sync.WaitGroup
	)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			g := m.NewGuard(uint64(w + 1))
			for !stop.Load() {
				after := queued.Load()
				g.LockKeys(keys("{hot}x"), streamWrite)
				if after != 0 && granted.Load() < after {
					overtakes.Add(1)
				}
				streamed.Add(1)
				runtime.Gosched()
				g.Unlock()
			}
		}(w)
	}
	h := m.NewGuard(101)
	for round := 0; round < 50; round++ {
		for streamed.Load() < int64(10*(round+1)) {
			runtime.Gosched()
		}
		// h, one more of the stream, makes sure the request queues.
		h.LockKeys(keys("{hot}z"), streamWrite)
		g := m.NewGuard(100)
		r := newGranter()
		n := int64(round + 1)
		if g.LockKeysAsync(keys("{hot}y"), !streamWrite, func() { granted.Store(n); r.granted() }) {
			t.Fatal("granted while the tag was held in the other mode")
		}
		// A stream acquisition that sees queued started after the
		// request was queued.
		queued.Store(n)
		h.Unlock()
		if !r.wait(10 * time.Second) {
			t.Fatal("the queued request was starved")
		}
		queued.Store(0)
		g.Unlock()
	}
	stop.Store(true)
	wg.Wait()
	if n := overtakes.Load(); n != 0 {
		t.Fatalf("%d acquisitions started after a queued request got in before it", n)
	}
	checkIdle(t, m)
}

func TestWriterNotStarvedByReaders(t *testing.T) { testNoOvertake(t, false) }
func TestReaderNotStarvedByWriters(t *testing.T) { testNoOvertake(t, true) }

// TestGlobalQueueOrder: shared acquisitions that arrive while an exclusive
// request is queued wait for it; when it releases they go before the next
// exclusive request.
func TestGlobalQueueOrder(t *testing.T) {
	m := NewManager()
	r := m.NewGuard(0)
	r.LockKeys(keys("a"), false)
	x1, x2 := m.NewGuard(1), m.NewGuard(2)
	s1, s2 := m.NewGuard(3), m.NewGuard(4)
	rx1, rx2, rs1, rs2 := newGranter(), newGranter(), newGranter(), newGranter()
	if x1.LockGlobalAsync(rx1.granted) {
		t.Fatal("the global lock was granted while a command ran")
	}
	if s1.LockKeysAsync(keys("b"), true, rs1.granted) {
		t.Fatal("a command passed a queued exclusive request")
	}
	if x2.LockGlobalAsync(rx2.granted) {
		t.Fatal("the global lock was granted twice")
	}
	if s2.LockKeysAsync(keys("c"), false, rs2.granted) {
		t.Fatal("a command passed two queued exclusive requests")
	}
	o := m.NewGuard(5)
	if o.TryLockKeys(keys("z"), false) || o.TryLockKey([]byte("z")) || o.TryLockGlobal() {
		t.Fatal("a TryLock passed the queued exclusive request")
	}
	r.Unlock()
	if rx1.n.Load() != 1 || rs1.n.Load()+rx2.n.Load()+rs2.n.Load() != 0 {
		t.Fatal("want only the first exclusive request granted")
	}
	if !x1.GlobalExclusive() {
		t.Fatal("the granted exclusive request does not hold the global lock")
	}
	x1.Unlock()
	if rs1.n.Load() != 1 || rx2.n.Load()+rs2.n.Load() != 0 {
		t.Fatal("want the shared request that came between them granted, alone")
	}
	s1.Unlock()
	if rx2.n.Load() != 1 || rs2.n.Load() != 0 {
		t.Fatal("want the second exclusive request granted")
	}
	x2.Unlock()
	if rs2.n.Load() != 1 {
		t.Fatal("want the last shared request granted")
	}
	s2.Unlock()
	checkIdle(t, m)
}

// TestGlobalNotStarved: an exclusive request is granted despite a stream
// of commands over many tags and slots, and no command that started after
// it was queued runs before it.
func TestGlobalNotStarved(t *testing.T) {
	m := NewManager()
	// queued is the round whose request is queued (0: none), granted the
	// last round whose request was granted.
	var (
		queued, granted atomic.Int64
		stop            atomic.Bool
		overtakes       atomic.Int32
		streamed        atomic.Int64
		wg              sync.WaitGroup
	)
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			g := m.NewGuard(uint64(w))
			rnd := rand.New(rand.NewPCG(uint64(w), 3))
			for !stop.Load() {
				after := queued.Load()
				g.LockKeys(keys(fmt.Sprintf("t%d", rnd.IntN(64))), rnd.IntN(2) == 0)
				if after != 0 && granted.Load() < after {
					overtakes.Add(1)
				}
				streamed.Add(1)
				runtime.Gosched()
				g.Unlock()
			}
		}(w)
	}
	x, h := m.NewGuard(99), m.NewGuard(100)
	for round := 0; round < 100; round++ {
		for streamed.Load() < int64(20*(round+1)) {
			runtime.Gosched()
		}
		h.LockKeys(keys("h"), false) // makes sure the request queues
		r := newGranter()
		n := int64(round + 1)
		if x.LockGlobalAsync(func() { granted.Store(n); r.granted() }) {
			t.Fatal("the global lock was granted while a command ran")
		}
		queued.Store(n)
		h.Unlock()
		if !r.wait(10 * time.Second) {
			t.Fatal("the exclusive request was starved")
		}
		queued.Store(0)
		x.Unlock()
	}
	stop.Store(true)
	wg.Wait()
	if n := overtakes.Load(); n != 0 {
		t.Fatalf("%d commands started after a queued exclusive request ran before it", n)
	}
	if _, _, _, global, _ := m.Snapshot(); global != 100 {
		t.Fatalf("%d exclusive global acquisitions counted, want 100", global)
	}
	checkIdle(t, m)
}

// TestTryLockDoesNotJumpQueue: TryLock* fail when a grant would pass a
// queued request, and a failed TryLockGlobal leaves no trace.
func TestTryLockDoesNotJumpQueue(t *testing.T) {
	m := NewManager()
	r, w, o := m.NewGuard(1), m.NewGuard(2), m.NewGuard(3)
	r.LockKeys(keys("k"), false)
	if !o.TryLockKeys(keys("k"), false) {
		t.Fatal("a shared TryLockKeys failed on a tag held shared, with no queue")
	}
	o.Unlock()
	rw := newGranter()
	if w.LockKeysAsync(keys("k"), true, rw.granted) {
		t.Fatal("a writer got a tag held shared")
	}
	if o.TryLockKeys(keys("k"), false) {
		t.Fatal("a shared TryLockKeys passed a queued writer")
	}
	if o.TryLockKeys(keys("a", "k"), false) {
		t.Fatal("a shared TryLockKeys passed a queued writer")
	}
	if !o.TryLockKeys(keys("a"), true) { // a was released by the failure
		t.Fatal("a failed TryLockKeys kept a lock")
	}
	o.Unlock()
	r.Unlock()
	if rw.n.Load() != 1 {
		t.Fatal("the writer was not granted")
	}
	w.Unlock()

	// A failed TryLockGlobal does not block commands.
	r.LockKeys(keys("k"), false)
	if o.TryLockGlobal() {
		t.Fatal("TryLockGlobal succeeded while a command ran")
	}
	g := m.NewGuard(4)
	rg := newGranter()
	if !g.LockKeysAsync(keys("b"), true, rg.granted) {
		t.Fatal("a failed TryLockGlobal left the global lock blocked")
	}
	g.Unlock()
	r.Unlock()
	checkIdle(t, m)
}

// TestCancel: a withdrawn request releases what it had taken, is never
// granted, and lets the requests behind it through.
func TestCancel(t *testing.T) {
	m := NewManager()
	a, b, c := m.NewGuard(1), m.NewGuard(2), m.NewGuard(3)
	if b.Cancel() {
		t.Fatal("Cancel of an idle guard succeeded")
	}
	a.LockKeys(keys("b"), true)
	rb := newGranter()
	if b.LockKeysAsync(keys("a", "b"), true, rb.granted) {
		t.Fatal("granted with b held")
	}
	if c.TryLockKeys(keys("a"), false) {
		t.Fatal("a is free although the waiting request took it")
	}
	if !b.Cancel() {
		t.Fatal("Cancel of a queued request failed")
	}
	if b.Pending() || b.Held() {
		t.Fatal("a cancelled guard still pending or holding")
	}
	if !c.TryLockKeys(keys("a"), true) {
		t.Fatal("Cancel did not release the tag it had taken")
	}
	c.Unlock()
	a.Unlock()
	if rb.wait(20*time.Millisecond) || b.Cancel() {
		t.Fatal("a cancelled request was granted")
	}
	b.LockKeys(keys("a", "b"), true) // the guard is reusable
	b.Unlock()

	// A cancelled writer lets the readers queued behind it in.
	a.LockKeys(keys("k"), false)
	rw, rr := newGranter(), newGranter()
	if b.LockKeysAsync(keys("k"), true, rw.granted) || c.LockKeysAsync(keys("k"), false, rr.granted) {
		t.Fatal("want the writer and the reader behind it queued")
	}
	if !b.Cancel() {
		t.Fatal("Cancel failed")
	}
	if rr.n.Load() != 1 {
		t.Fatal("the reader behind the cancelled writer was not granted")
	}
	c.Unlock()
	a.Unlock()

	// A cancelled exclusive global request lets the commands behind it in.
	a.LockKeys(keys("k"), false)
	rx, rs := newGranter(), newGranter()
	if b.LockGlobalAsync(rx.granted) || c.LockKeysAsync(keys("j"), true, rs.granted) {
		t.Fatal("want the exclusive request and the command behind it queued")
	}
	if !b.Cancel() {
		t.Fatal("Cancel of a global request failed")
	}
	if rs.n.Load() != 1 || rx.n.Load() != 0 {
		t.Fatal("the command behind the cancelled global request was not granted")
	}
	c.Unlock()
	a.Unlock()
	if _, _, _, global, _ := m.Snapshot(); global != 0 {
		t.Fatalf("global = %d, want 0", global)
	}
	checkIdle(t, m)
}

// TestCancelLosesToGrant: a grant that comes between Cancel's look at the
// guard and its taking the queue's mutex wins; Cancel then reports false.
func TestCancelLosesToGrant(t *testing.T) {
	defer func() { testHookCancel = nil }()
	m := NewManager()
	for _, global := range []bool{false, true} {
		a, b := m.NewGuard(1), m.NewGuard(2)
		if global {
			a.LockGlobal()
		} else {
			a.LockKeys(keys("k"), true)
		}
		r := newGranter()
		if b.LockKeysAsync(keys("k"), true, r.granted) {
			t.Fatal("granted at once")
		}
		testHookCancel = func() {
			testHookCancel = nil
			a.Unlock()
		}
		if b.Cancel() {
			t.Fatal("Cancel succeeded after the request was granted")
		}
		if r.n.Load() != 1 || !b.Covers([]byte("k"), true) {
			t.Fatal("the request was not granted")
		}
		b.Unlock()
		checkIdle(t, m)
	}
}

// TestCancelRace: Cancel racing with the Unlock that grants: exactly one
// of them wins, and nothing leaks. The request waits at the global lock, at
// its first tag, or at a later one (so that the grant takes it through
// several locks while Cancel runs).
func TestCancelRace(t *testing.T) {
	m := NewManager()
	var cancelled, grantedN int
	for i := 0; i < 3000; i++ {
		a, c, b := m.NewGuard(uint64(i)), m.NewGuard(uint64(i+1)), m.NewGuard(uint64(i+2))
		mode := i % 3
		switch mode {
		case 0:
			a.LockGlobal()
		case 1:
			a.LockKeys(keys("a"), i%2 == 0)
		case 2:
			a.LockKeys(keys("a"), true)
			c.LockKeys(keys("d"), false)
		}
		r := newGranter()
		if b.LockKeysAsync(keys("a", "b", "c", "d"), true, r.granted) {
			t.Fatal("granted at once")
		}
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			a.Unlock()
			if mode == 2 {
				c.Unlock()
			}
		}()
		if i%4 == 0 {
			runtime.Gosched()
		}
		ok := b.Cancel()
		wg.Wait()
		got := r.wait(0)
		if !ok && !got {
			got = r.wait(5 * time.Second) // Cancel lost: granted is on its way
		}
		switch {
		case ok && got:
			t.Fatal("Cancel succeeded and granted was called")
		case !ok && !got:
			t.Fatal("Cancel failed and granted was never called")
		case ok:
			cancelled++
			if b.Held() || b.Pending() {
				t.Fatal("a cancelled guard holds locks")
			}
		default:
			grantedN++
			if !b.CoversAll(keys("a", "b", "c", "d")) {
				t.Fatal("the granted guard does not hold its tags")
			}
			b.Unlock()
		}
		if r.n.Load() > 1 {
			t.Fatal("granted called twice")
		}
		if _, _, _, _, held := m.Snapshot(); held != 0 {
			t.Fatalf("iteration %d: %d tags left in use", i, held)
		}
	}
	t.Logf("cancelled %d, granted %d", cancelled, grantedN)
	checkIdle(t, m)
}

// TestDomainWake: a release wakes a request of a domain rather than
// granting it (SetDomain): the lock stays free for that domain's guards,
// which may take it past the woken one, and not for others'; the woken
// guard takes it with Resume, or, finding it taken, is granted it by the
// next release.
func TestDomainWake(t *testing.T) {
	m := NewManager()
	h, w, same, other := m.NewGuard(1), m.NewGuard(2), m.NewGuard(3), m.NewGuard(4)
	for _, g := range []*Guard{h, w, same} {
		g.SetDomain(1)
	}
	other.SetDomain(2)
	h.LockKeys(keys("{t}h"), true)
	r := newGranter()
	if w.LockKeysAsync(keys("{t}w", "{u}w"), true, r.granted) {
		t.Fatal("granted a held tag")
	}
	h.Unlock()
	if !r.wait(time.Second) {
		t.Fatal("the release did not wake the request")
	}
	if !w.Pending() || w.Covers([]byte("{t}w"), true) {
		t.Fatal("a woken request holds the lock before Resume")
	}
	if other.TryLockKeys(keys("{t}o"), true) {
		t.Fatal("another domain took the lock past the woken request")
	}
	if !same.TryLockKeys(keys("{t}s"), true) {
		t.Fatal("the woken request's domain cannot take the free lock")
	}
	if w.Resume() {
		t.Fatal("Resume took a lock held by another")
	}
	s2 := m.NewGuard(5)
	s2.SetDomain(1)
	if s2.TryLockKeys(keys("{t}s2"), true) {
		t.Fatal("the lock was free twice")
	}
	same.Unlock() // w failed to take it once: this release grants it
	if !r.wait(time.Second) || !w.Resume() {
		t.Fatal("the release after a failed Resume did not grant the lock")
	}
	if !w.Covers([]byte("{t}w"), true) || !w.Covers([]byte("{u}w"), true) {
		t.Fatal("the granted guard does not hold its tags")
	}
	if same.TryLockKeys(keys("{t}s"), true) {
		t.Fatal("a domain's guard took a held lock")
	}
	// Woken, then Resume at once: it takes the lock and its next tag.
	q := newGranter()
	if same.LockKeysAsync(keys("{t}s"), true, q.granted) {
		t.Fatal("granted a held tag")
	}
	w.Unlock()
	if !q.wait(time.Second) || !same.Resume() || !same.Covers([]byte("{t}s"), true) {
		t.Fatal("a woken request did not take the free lock with Resume")
	}
	same.Unlock()
	// A woken request withdrawn: the next in line goes on.
	h.LockKeys(keys("{t}h"), true)
	a, b := newGranter(), newGranter()
	if w.LockKeysAsync(keys("{t}w"), true, a.granted) || other.LockKeysAsync(keys("{t}o"), true, b.granted) {
		t.Fatal("granted a held tag")
	}
	h.Unlock()
	if !a.wait(time.Second) || !w.Cancel() {
		t.Fatal("the woken request could not be withdrawn")
	}
	if !b.wait(time.Second) || !other.Resume() || !other.Covers([]byte("{t}o"), true) {
		t.Fatal("the request behind a withdrawn woken one was not granted")
	}
	other.Unlock()
	checkIdle(t, m)
}

// TestDomainWakeGlobal: the same for the global lock, which a loop's
// clients take for every script without allow-key-locking.
func TestDomainWakeGlobal(t *testing.T) {
	m := NewManager()
	h, w, same, other := m.NewGuard(1), m.NewGuard(2), m.NewGuard(3), m.NewGuard(4)
	for _, g := range []*Guard{h, w, same} {
		g.SetDomain(1)
	}
	other.SetDomain(2)
	h.LockGlobal()
	r := newGranter()
	if w.LockGlobalAsync(r.granted) {
		t.Fatal("granted a held global lock")
	}
	h.Unlock()
	if !r.wait(time.Second) {
		t.Fatal("the release did not wake the request")
	}
	if !w.Pending() || w.Held() {
		t.Fatal("a woken request holds the lock before Resume")
	}
	if other.TryLockGlobal() || other.TryLockKeys(keys("{t}o"), false) {
		t.Fatal("another domain took the lock past the woken request")
	}
	if !same.TryLockGlobal() {
		t.Fatal("the woken request's domain cannot take the free lock")
	}
	if w.Resume() {
		t.Fatal("Resume took a lock held by another")
	}
	s2 := m.NewGuard(5)
	s2.SetDomain(1)
	if s2.TryLockGlobal() {
		t.Fatal("the lock was free twice")
	}
	same.Unlock() // w failed to take it once: this release grants it
	if !r.wait(time.Second) || !w.Resume() || !w.GlobalExclusive() {
		t.Fatal("the release after a failed Resume did not grant the lock")
	}
	// Woken, then Resume at once; a shared request of another domain
	// queued behind it is granted after it.
	q, o := newGranter(), newGranter()
	if same.LockGlobalAsync(q.granted) || other.LockKeysAsync(keys("{t}o"), true, o.granted) {
		t.Fatal("granted a held lock")
	}
	w.Unlock()
	if !q.wait(time.Second) || !same.Resume() || !same.GlobalExclusive() {
		t.Fatal("a woken request did not take the free lock with Resume")
	}
	if o.wait(10 * time.Millisecond) {
		t.Fatal("a shared request was granted beside the exclusive holder")
	}
	same.Unlock()
	if !o.wait(time.Second) || !other.Resume() || !other.Covers([]byte("{t}o"), true) {
		t.Fatal("the shared request behind the exclusive one was not granted")
	}
	other.Unlock()
	// A woken request withdrawn: the next in line goes on.
	h.LockGlobal()
	a, b := newGranter(), newGranter()
	if w.LockGlobalAsync(a.granted) || other.LockGlobalAsync(b.granted) {
		t.Fatal("granted a held lock")
	}
	h.Unlock()
	if !a.wait(time.Second) || !w.Cancel() {
		t.Fatal("the woken request could not be withdrawn")
	}
	if !b.wait(time.Second) || !other.Resume() || !other.GlobalExclusive() {
		t.Fatal("the request behind a withdrawn woken one was not granted")
	}
	other.Unlock()
	checkIdle(t, m)
}

// TestMutualExclusionStress mixes every kind of acquisition over a few
// tags, checking that an exclusive holder of a tag never coexists with
// another holder of it, that the exclusive global holder coexists with no
// one, and that everything finishes.
func TestMutualExclusionStress(t *testing.T) {
	m := NewManager()
	const (
		ntags   = 6
		writer  = 1 << 16
		gwriter = 1 << 24
	)
	var tagState [ntags]atomic.Int64
	var globalState atomic.Int64 // +1 per command, +gwriter per exclusive holder
	var violations atomic.Int32
	fail := func(format string, args ...any) {
		if violations.Add(1) < 5 {
			t.Errorf(format, args...)
		}
	}
	iters := 1500
	if testing.Short() {
		iters = 300
	}
	var wg sync.WaitGroup
	done := make(chan struct{})
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			g := m.NewGuard(uint64(w))
			// Guards of a domain run here at the same time, which
			// SetDomain's fairness does not assume: exclusion holds.
			g.SetDomain(uint32(w % 3))
			rnd := rand.New(rand.NewPCG(uint64(w), 11))
			r := newGranter()
			for i := 0; i < iters; i++ {
				op := rnd.IntN(100)
				if op < 8 { // the global lock
					var ok bool
					switch {
					case op < 3:
						g.LockGlobal()
						ok = true
					case op < 6:
						r := newGranter() // as for tags below
						if ok = g.LockGlobalAsync(r.granted); !ok {
							if rnd.IntN(2) == 0 && g.Cancel() {
								continue
							}
							for <-r.ch; !g.Resume(); <-r.ch {
							}
							ok = true
						}
					default:
						ok = g.TryLockGlobal()
					}
					if !ok {
						continue
					}
					if v := globalState.Add(gwriter); v != gwriter {
						fail("the exclusive global holder is not alone: %x", v)
					}
					for x := range tagState {
						if v := tagState[x].Load(); v != 0 {
							fail("tag %d held under the exclusive global lock: %x", x, v)
						}
					}
					runtime.Gosched()
					globalState.Add(-gwriter)
					g.Unlock()
					continue
				}
				write := rnd.IntN(2) == 0
				n := 1 + rnd.IntN(4)
				var ks [][]byte
				set := map[int]bool{}
				for j := 0; j < n; j++ {
					x := rnd.IntN(ntags)
					set[x] = true
					ks = append(ks, []byte(fmt.Sprintf("k{t%d}%d", x, rnd.IntN(3))))
				}
				var ok bool
				switch {
				case op < 40:
					g.LockKeys(ks, write)
					ok = true
				case op < 75:
					// A wake may come after a withdrawal: each request
					// gets a granter of its own.
					r := newGranter()
					if ok = g.LockKeysAsync(ks, write, r.granted); !ok {
						if rnd.IntN(3) == 0 {
							if rnd.IntN(2) == 0 {
								runtime.Gosched()
							}
							if g.Cancel() {
								if g.Held() || g.Pending() {
									fail("a cancelled guard holds locks")
								}
								continue
							}
						}
						for <-r.ch; !g.Resume(); <-r.ch {
						}
						ok = true
					}
				case op < 90:
					ok = g.TryLockKeys(ks, write)
				default:
					ks, write = ks[:1], true
					ok = g.TryLockKey(ks[0])
					set = map[int]bool{int(ks[0][3] - '0'): true}
				}
				if !ok {
					continue
				}
				if v := globalState.Add(1); v >= gwriter {
					fail("a command runs under the exclusive global lock")
				}
				for _, k := range ks {
					if !g.Covers(k, write) {
						fail("the guard does not cover %s", k)
					}
				}
				for x := range set {
					if write {
						if v := tagState[x].Add(writer); v != writer {
							fail("tag %d: a writer is not alone: %x", x, v)
						}
					} else if v := tagState[x].Add(1); v >= writer {
						fail("tag %d: a reader with a writer: %x", x, v)
					}
				}
				runtime.Gosched()
				for x := range set {
					if write {
						tagState[x].Add(-writer)
					} else {
						tagState[x].Add(-1)
					}
				}
				globalState.Add(-1)
				g.Unlock()
				if len(r.ch) > 0 {
					fail("granted called with no request pending")
				}
			}
		}(w)
	}
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(120 * time.Second):
		t.Fatal("deadlock: lockers did not finish")
	}
	checkIdle(t, m)
}

// TestUncontendedNoAlloc: the fast path allocates nothing.
func TestUncontendedNoAlloc(t *testing.T) {
	m := NewManager()
	g := m.NewGuard(1)
	k := keys("{a}1", "{b}2")
	granted := newGranter().granted
	if n := testing.AllocsPerRun(100, func() {
		g.LockKeys(k, true)
		g.Unlock()
		g.LockKeysAsync(k, false, granted)
		g.Unlock()
		g.LockGlobal()
		g.Unlock()
	}); n != 0 {
		t.Fatalf("%v allocations per uncontended round", n)
	}
}

func TestUnlockPendingPanics(t *testing.T) {
	m := NewManager()
	a, b := m.NewGuard(1), m.NewGuard(2)
	a.LockKeys(keys("k"), true)
	r := newGranter()
	b.LockKeysAsync(keys("k"), true, r.granted)
	func() {
		defer func() {
			if recover() == nil {
				t.Error("Unlock of a pending guard did not panic")
			}
		}()
		b.Unlock()
	}()
	b.Cancel()
	a.Unlock()
	checkIdle(t, m)
}
