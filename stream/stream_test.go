package stream

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"testing"
)

func pair(f, v string) [][]byte { return [][]byte{[]byte(f), []byte(v)} }

func mustAdd(t *testing.T, s *Stream, a AddID, now int64) ID {
	t.Helper()
	id, err := s.Add(a, now, pair("f", "v"), DefaultLimits)
	if err != nil {
		t.Fatalf("Add(%+v): %v", a, err)
	}
	return id
}

func TestAddIDs(t *testing.T) {
	s := New()
	if id := mustAdd(t, s, AddID{Auto: true}, 1000); id != (ID{1000, 0}) {
		t.Errorf("first auto ID = %v", id)
	}
	if id := mustAdd(t, s, AddID{Auto: true}, 999); id != (ID{1000, 1}) {
		t.Errorf("auto ID with the clock behind = %v", id)
	}
	if id := mustAdd(t, s, AddID{ID: ID{1000, 0}, SeqAuto: true}, 0); id != (ID{1000, 2}) {
		t.Errorf("1000-* = %v", id)
	}
	if id := mustAdd(t, s, AddID{ID: ID{2000, 0}, SeqAuto: true}, 0); id != (ID{2000, 0}) {
		t.Errorf("2000-* = %v", id)
	}
	for _, a := range []AddID{{ID: ID{2000, 0}}, {ID: ID{1999, 0}, SeqAuto: true}, {ID: ID{1, 1}}} {
		if _, err := s.Add(a, 0, pair("f", "v"), DefaultLimits); err != ErrAddTooSmall {
			t.Errorf("Add(%+v) = %v, want ErrAddTooSmall", a, err)
		}
	}
	mustAdd(t, s, AddID{ID: ID{3000, max64}}, 0)
	if _, err := s.Add(AddID{ID: ID{3000, 0}, SeqAuto: true}, 0, pair("f", "v"), DefaultLimits); err != ErrAddTooSmall {
		t.Errorf("3000-* after 3000-max = %v", err)
	}
	if id := mustAdd(t, s, AddID{Auto: true}, 5); id != (ID{3001, 0}) {
		t.Errorf("auto ID after 3000-max = %v", id)
	}
	if s.Len() != 6 || s.EntriesAdded() != 6 || s.FirstID() != (ID{1000, 0}) || s.LastID() != (ID{3001, 0}) {
		t.Errorf("len %d, added %d, first %v, last %v", s.Len(), s.EntriesAdded(), s.FirstID(), s.LastID())
	}
	// Diffs from the master ID wrap modulo 2^64 and still encode.
	mustAdd(t, s, AddID{ID: ID{max64 - 1, 0}}, 0)
	n := s.nodes[0]
	if len(n.listpack()) != n.size() {
		t.Errorf("size %d, listpack %d bytes", n.size(), len(n.listpack()))
	}
}

// checkInvariants checks the stream's internal consistency, and that each
// node's computed size is its listpack's.
func checkInvariants(t *testing.T, s *Stream) {
	t.Helper()
	var live uint64
	var prev ID
	for k, n := range s.nodes {
		if n.count() == 0 || n.id(0) != n.master || k > 0 && n.master.Compare(prev) <= 0 {
			t.Fatalf("node %d: bad order", k)
		}
		l, d := 0, 0
		for i := range n.count() {
			if n.flags(i)&flagDeleted != 0 {
				d++
			} else {
				l++
			}
			if id := n.id(i); i > 0 && id.Compare(prev) <= 0 {
				t.Fatalf("node %d: entry %d out of order", k, i)
			}
			prev = n.id(i)
		}
		if l != n.live || d != n.deleted {
			t.Fatalf("node %d: counters %d/%d, entries %d/%d", k, n.live, n.deleted, l, d)
		}
		if len(n.listpack()) != n.size() {
			t.Fatalf("node %d: size %d, listpack %d bytes", k, n.size(), len(n.listpack()))
		}
		live += uint64(l)
	}
	if live != s.length {
		t.Fatalf("length %d, live entries %d", s.length, live)
	}
	first, ok := s.edge(true)
	if !ok {
		first = ID{}
	}
	if first != s.firstID {
		t.Fatalf("first ID %v, first entry %v", s.firstID, first)
	}
}

// TestStreamModel runs random adds, deletions and trims against a plain
// list of entries.
func TestStreamModel(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for _, lim := range []Limits{DefaultLimits, {MaxBytes: 200, MaxEntries: 3}, {MaxBytes: 0, MaxEntries: 0}} {
		s := New()
		var model []Entry
		var last ID
		for step := range 4000 {
			switch k := r.IntN(10); {
			case k < 7:
				last = ID{last.Ms + uint64(r.IntN(2)), last.Seq + 1}
				fv := pair("f"+strconv.Itoa(r.IntN(3)), string(bytes.Repeat([]byte{'v'}, r.IntN(60))))
				if r.IntN(3) == 0 {
					fv = append(fv, []byte("g"), []byte(strconv.Itoa(step)))
				}
				if _, err := s.Add(AddID{ID: last}, 0, fv, lim); err != nil {
					t.Fatal(err)
				}
				model = append(model, Entry{last, fv})
			case k < 9 && len(model) > 0:
				id := model[r.IntN(len(model))].ID
				if r.IntN(4) == 0 {
					id.Seq++
				}
				want := slices.IndexFunc(model, func(e Entry) bool { return e.ID == id })
				if got := s.Delete(id); got != b2int(want >= 0) {
					t.Fatalf("Delete(%v) = %d", id, got)
				}
				if want >= 0 {
					model = slices.Delete(model, want, want+1)
				}
			default:
				tr := Trim{Strategy: TrimMaxLen, MaxLen: uint64(max(len(model)-r.IntN(10), 0)), Approx: r.IntN(2) == 0}
				if r.IntN(2) == 0 && len(model) > 0 {
					tr = Trim{Strategy: TrimMinID, MinID: model[r.IntN(min(len(model), 10))].ID, Approx: tr.Approx}
				}
				n := int(s.Trim(tr))
				if n > len(model) {
					t.Fatalf("Trim removed %d of %d", n, len(model))
				}
				removed := model[:n]
				model = model[n:]
				switch {
				case tr.Strategy == TrimMaxLen && !tr.Approx && uint64(len(model)) != min(tr.MaxLen, uint64(len(model)+n)):
					t.Fatalf("exact MAXLEN %d left %d", tr.MaxLen, len(model))
				case tr.Strategy == TrimMaxLen && uint64(len(model)) < tr.MaxLen && n > 0:
					t.Fatalf("MAXLEN %d left %d", tr.MaxLen, len(model))
				case tr.Strategy == TrimMinID && len(removed) > 0 && removed[len(removed)-1].ID.Compare(tr.MinID) >= 0:
					t.Fatalf("MINID %v removed %v", tr.MinID, removed[len(removed)-1].ID)
				case tr.Strategy == TrimMinID && !tr.Approx && len(model) > 0 && model[0].ID.Compare(tr.MinID) < 0:
					t.Fatalf("exact MINID %v left %v", tr.MinID, model[0].ID)
				}
			}
			if step%50 == 0 {
				if step == 3950 {
					t.Logf("%+v: %d entries in %d nodes", lim, s.Len(), s.NodeCount())
				}
				checkInvariants(t, s)
				got := s.Range(MinID, MaxID, 0, false)
				if len(got) != len(model) || len(model) > 0 && !reflect.DeepEqual(got, model) {
					t.Fatalf("step %d: range differs: %d entries, model %d", step, len(got), len(model))
				}
				if len(model) > 2 {
					a, b := model[r.IntN(len(model))].ID, model[r.IntN(len(model))].ID
					if a.Compare(b) > 0 {
						a, b = b, a
					}
					var want []Entry
					for i := len(model) - 1; i >= 0; i-- {
						if e := model[i]; e.ID.Compare(a) >= 0 && e.ID.Compare(b) <= 0 && len(want) < 5 {
							want = append(want, e)
						}
					}
					if got := s.Range(a, b, 5, true); !reflect.DeepEqual(got, want) {
						t.Fatalf("reverse range %v..%v differs", a, b)
					}
				}
			}
		}
	}
}

func b2int(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestGroups walks through consumer group operations with values worked
// out from Redis 7.0's code (and confirmed by the differential test).
func TestGroups(t *testing.T) {
	s := New()
	for seq := uint64(1); seq <= 5; seq++ {
		mustAdd(t, s, AddID{ID: ID{1, seq}}, 0)
	}
	g, err := s.CreateGroup("g", ID{}, InvalidEntriesRead)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateGroup("g", ID{}, 0); err != ErrBusyGroup {
		t.Errorf("second CreateGroup: %v", err)
	}
	lag := func(want int64, known bool) {
		t.Helper()
		if l, ok := s.Lag(g); l != want || ok != known {
			t.Errorf("lag = %d, %v; want %d, %v", l, ok, want, known)
		}
	}
	lag(5, true)
	alice, created := g.ConsumerFor("alice", 10)
	if !created || alice.SeenTime() != 10 {
		t.Fatal("ConsumerFor did not create alice")
	}
	got := s.ReadNew(g, alice, 2, false, 10)
	if len(got) != 2 || got[1].ID != (ID{1, 2}) || g.LastID() != (ID{1, 2}) || g.EntriesRead() != 2 {
		t.Fatalf("ReadNew: %v, last %v, read %d", got, g.LastID(), g.EntriesRead())
	}
	lag(3, true)
	s.Delete(ID{1, 4})
	lag(0, false) // a tombstone after the last delivered ID
	bob, _ := g.ConsumerFor("bob", 20)
	if got := s.ReadNew(g, bob, 0, false, 20); len(got) != 2 || g.EntriesRead() != 5 {
		t.Fatalf("ReadNew: %v, read %d", got, g.EntriesRead())
	}
	lag(0, true)
	sum := g.PendingSummary()
	want := PendingSummary{4, ID{1, 1}, ID{1, 5}, []ConsumerPending{{"alice", 2}, {"bob", 2}}}
	if !reflect.DeepEqual(sum, want) {
		t.Errorf("PendingSummary = %+v", sum)
	}

	res := s.Claim(g, "carol", []ID{{1, 1}, {1, 4}, {1, 9}}, ClaimOptions{}, 100)
	if len(res.Claimed) != 1 || !res.Created || res.Deleted != nil {
		t.Fatalf("Claim: %+v", res)
	}
	if p := g.Pending(ID{1, 1}); p.Consumer().Name() != "carol" || p.DeliveryCount() != 2 || p.DeliveryTime() != 100 {
		t.Errorf("claimed entry: %s %d %d", p.Consumer().Name(), p.DeliveryCount(), p.DeliveryTime())
	}
	// Claiming with a min idle time skips fresh entries.
	res = s.Claim(g, "carol", []ID{{1, 2}}, ClaimOptions{MinIdle: 1000}, 200)
	if len(res.Claimed) != 0 || res.Created {
		t.Errorf("Claim of a fresh entry: %+v", res)
	}

	// History: what bob has pending, entries deleted since as nil.
	s.Delete(ID{1, 3})
	hist := s.ReadHistory(bob, ID{}, 0, 300)
	if len(hist) != 2 || hist[0].Fields != nil || hist[1].Fields == nil {
		t.Errorf("ReadHistory: %v", hist)
	}
	if p := g.Pending(ID{1, 5}); p.DeliveryCount() != 2 || p.DeliveryTime() != 300 {
		t.Errorf("history delivery: %d at %d", p.DeliveryCount(), p.DeliveryTime())
	}

	ac := s.AutoClaim(g, "dave", ID{}, 10, 0, false, 400)
	if ids := entryIDs(ac.Claimed); !reflect.DeepEqual(ids, []ID{{1, 1}, {1, 2}, {1, 5}}) ||
		!reflect.DeepEqual(ac.Deleted, []ID{{1, 3}}) || ac.Next != (ID{}) || !ac.Created {
		t.Fatalf("AutoClaim: %+v", ac)
	}
	ac = s.AutoClaim(g, "dave", ID{}, 1, 0, true, 500)
	if len(ac.Claimed) != 1 || ac.Claimed[0].Fields != nil || ac.Next != (ID{1, 2}) {
		t.Errorf("AutoClaim COUNT 1: %+v", ac)
	}
	if p := g.Pending(ID{1, 1}); p.DeliveryCount() != 3 {
		t.Errorf("JUSTID changed the delivery count to %d", p.DeliveryCount())
	}

	// Delivering an entry pending for another consumer moves it.
	g.SetID(ID{1, 0}, InvalidEntriesRead)
	erin, _ := g.ConsumerFor("erin", 600)
	s.ReadNew(g, erin, 1, false, 600)
	if p := g.Pending(ID{1, 1}); p.Consumer() != erin || p.DeliveryCount() != 1 || g.Consumer("dave").PendingCount() != 2 {
		t.Errorf("redelivered entry: %s %d", p.Consumer().Name(), p.DeliveryCount())
	}
	if n := g.Ack(ID{1, 1}, ID{1, 1}, ID{7, 7}); n != 1 {
		t.Errorf("Ack = %d", n)
	}
	if n, ok := g.DeleteConsumer("dave"); n != 2 || !ok || g.PendingCount() != 0 {
		t.Errorf("DeleteConsumer = %d, %v; %d pending", n, ok, g.PendingCount())
	}
	names := []string{}
	for _, c := range g.Consumers() {
		names = append(names, c.Name())
	}
	if !reflect.DeepEqual(names, []string{"alice", "bob", "carol", "erin"}) {
		t.Errorf("consumers %v", names)
	}
	if !s.DestroyGroup("g") || s.DestroyGroup("g") || s.GroupCount() != 0 {
		t.Error("DestroyGroup")
	}
}

func entryIDs(es []Entry) []ID {
	var ids []ID
	for _, e := range es {
		ids = append(ids, e.ID)
	}
	return ids
}

// TestPEL checks the chunked PEL against a sorted slice.
func TestPEL(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var l pel
	var model []ID
	for step := range 20000 {
		id := ID{uint64(r.IntN(2000)), 0}
		if r.IntN(3) == 0 {
			id = ID{uint64(step), 1} // appends, the common case
		}
		i, found := slices.BinarySearchFunc(model, id, ID.Compare)
		if r.IntN(2) == 0 {
			if !found {
				l.insert(&Pending{id: id})
				model = slices.Insert(model, i, id)
			}
		} else if p := l.remove(id); (p != nil) != found {
			t.Fatalf("remove(%v) = %v, present %v", id, p, found)
		} else if found {
			model = slices.Delete(model, i, i+1)
		}
		if step%1000 == 0 || step == 19999 {
			var got []ID
			l.each(MinID, func(p *Pending) bool { got = append(got, p.id); return true })
			if l.n != len(model) || !slices.Equal(got, model) {
				t.Fatalf("step %d: list differs", step)
			}
			if len(model) > 0 && (l.first().id != model[0] || l.last().id != model[len(model)-1]) {
				t.Fatal("first/last")
			}
		}
	}
	// each lets the callback remove the record it is given.
	l.each(MinID, func(p *Pending) bool { l.remove(p.id); return true })
	if l.n != 0 || l.first() != nil {
		t.Fatal("removing during each left records")
	}
}

// TestDumpLoad round-trips a stream and checks that damaged dumps are
// refused without panicking.
func TestDumpLoad(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	s := New()
	lim := Limits{MaxBytes: 500, MaxEntries: 10}
	for i := range 200 {
		fv := pair("f", strconv.Itoa(i))
		if i%3 == 0 {
			fv = append(fv, []byte("x"+strconv.Itoa(i%5)), bytes.Repeat([]byte("y"), i))
		}
		if _, err := s.Add(AddID{ID: ID{uint64(i / 3), uint64(i%3 + 1)}}, 0, fv, lim); err != nil {
			t.Fatal(err)
		}
	}
	s.Delete(ID{5, 1}, ID{20, 3})
	s.Trim(Trim{Strategy: TrimMinID, MinID: ID{2, 2}})
	g, _ := s.CreateGroup("g", ID{}, InvalidEntriesRead)
	c, _ := g.ConsumerFor("c", 1)
	s.ReadNew(g, c, 20, false, 1)
	g2, _ := s.CreateGroup("a", ID{30, 0}, 7)
	g2.CreateConsumer("idle", 2)

	d := s.Dump()
	l, err := Load(d)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(l.Dump(), d) || !reflect.DeepEqual(l.Range(MinID, MaxID, 0, false), s.Range(MinID, MaxID, 0, false)) {
		t.Fatal("Load(Dump()) differs")
	}
	checkInvariants(t, l)
	if l.HeadID() != (ID{0, 1}) || l.FirstID() != (ID{2, 2}) || New().HeadID() != MaxID { // exact trims leave tombstones
		t.Errorf("HeadID = %v", l.HeadID())
	}
	if l.Group("g").Pending(ID{3, 1}).Consumer() != l.Group("g").Consumer("c") {
		t.Fatal("pending entry lost its consumer")
	}

	legacy := d
	legacy.Legacy = true
	if l, err = Load(legacy); err != nil || l.EntriesAdded() != l.Len() || l.MaxDeletedID() != (ID{}) || l.Group("a").EntriesRead() != InvalidEntriesRead {
		t.Fatalf("legacy Load: %v", err)
	}

	for _, bad := range []func(d *Dump){
		func(d *Dump) { d.Length++ },
		func(d *Dump) { d.Nodes[0], d.Nodes[1] = d.Nodes[1], d.Nodes[0] },
		func(d *Dump) { d.Groups[0].Pending = append(d.Groups[0].Pending, PendingDump{ID: ID{99, 0}}) },
		func(d *Dump) { d.Groups[1].Consumers[0].Pending = []ID{{2, 2}} },
		func(d *Dump) { d.Groups[1].Name = d.Groups[0].Name },
	} {
		d := s.Dump()
		bad(&d)
		if _, err := Load(d); err != ErrCorrupt {
			t.Errorf("Load of a bad dump: %v", err)
		}
	}
	for range 1000 {
		d := s.Dump()
		n := &d.Nodes[r.IntN(len(d.Nodes))]
		lp := bytes.Clone(n.Listpack)
		switch r.IntN(3) {
		case 0:
			lp[r.IntN(len(lp))] = byte(r.IntN(256))
		case 1:
			lp = lp[:r.IntN(len(lp))]
		default:
			lp[r.IntN(len(lp))] ^= 1 << r.IntN(8)
		}
		n.Listpack = lp
		if l, err := Load(d); err == nil {
			checkInvariants(t, l)
		}
	}
}
