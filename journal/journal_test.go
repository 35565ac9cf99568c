package journal

import (
	"bytes"
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hotkv/hotkv/aof"
	"github.com/hotkv/hotkv/resp"
)

// recorder materialises the stream it receives.
type recorder struct {
	stream []byte
	units  int
	end    int64 // the last unit's End
	gap    bool  // a unit did not start where the previous one ended
}

func (r *recorder) Write(u *Unit) {
	if r.units > 0 && u.Start() != r.end {
		r.gap = true
	}
	r.stream = u.AppendFramed(r.stream)
	r.units++
	r.end = u.End()
}

// step is one action on the stream, written as a string: "0:SET a 1" is
// a unit of one record on database 0, "0:SET a 1|1:SET b 2" a unit of two
// records, "force" a ForceSelect, "off" and "on" unsubscribe and subscribe
// the recorder again.
type step string

func (s step) apply(t *testing.T, j *Journal, r *recorder, b *Batch) {
	switch s {
	case "force":
		j.ForceSelect()
	case "ping":
		j.Heartbeat()
	case "off":
		j.Unsubscribe(r)
	case "on":
		j.Subscribe(r)
	default:
		for _, rec := range strings.Split(string(s), "|") {
			db, cmd, ok := strings.Cut(rec, ":")
			n, err := strconv.Atoi(db)
			if !ok || err != nil {
				t.Fatalf("bad step %q", s)
			}
			b.Add(n, words(cmd))
		}
		j.Append(b)
		b.Reset()
	}
}

func words(s string) [][]byte {
	var args [][]byte
	for _, w := range strings.Fields(s) {
		args = append(args, []byte(w))
	}
	return args
}

// encode encodes commands written as strings.
func encode(cmds ...string) []byte {
	var b []byte
	for _, c := range cmds {
		b = aof.AppendCommand(b, words(c))
	}
	return b
}

// The stream Redis 7.0 sends a replica for the same writes: SELECT when the
// database changes (per command, inside a unit too), MULTI on the first
// record's database, EXEC on the last one's.
func TestFraming(t *testing.T) {
	tests := []struct {
		name  string
		steps []step
		want  []string
	}{
		{"one record",
			[]step{"0:SET k v"},
			[]string{"SELECT 0", "SET k v"}},
		{"same database",
			[]step{"0:SET a 1", "0:SET b 2"},
			[]string{"SELECT 0", "SET a 1", "SET b 2"}},
		{"database changes between units",
			[]step{"0:SET a 1", "3:SET b 2", "3:DEL b", "12:SET c 3"},
			[]string{"SELECT 0", "SET a 1", "SELECT 3", "SET b 2", "DEL b", "SELECT 12", "SET c 3"}},
		{"transaction",
			[]step{"0:SET a 1|0:INCR b"},
			[]string{"SELECT 0", "MULTI", "SET a 1", "INCR b", "EXEC"}},
		{"MULTI carries the first record's database",
			[]step{"0:SET x 1", "2:SET a 1|2:SET b 2"},
			[]string{"SELECT 0", "SET x 1", "SELECT 2", "MULTI", "SET a 1", "SET b 2", "EXEC"}},
		{"a script that selects",
			[]step{"0:SET a 1|1:SET b 2|0:SET c 3", "0:SET d 4"},
			[]string{"SELECT 0", "MULTI", "SET a 1", "SELECT 1", "SET b 2", "SELECT 0", "SET c 3", "EXEC", "SET d 4"}},
		{"EXEC carries the last record's database",
			[]step{"1:SET a 1|0:SET b 2", "0:SET c 3", "1:SET d 4"},
			[]string{"SELECT 1", "MULTI", "SET a 1", "SELECT 0", "SET b 2", "EXEC", "SET c 3", "SELECT 1", "SET d 4"}},
		{"ForceSelect",
			[]step{"0:SET a 1", "force", "0:SET b 2", "0:SET c 3"},
			[]string{"SELECT 0", "SET a 1", "SELECT 0", "SET b 2", "SET c 3"}},
		{"ForceSelect before a transaction",
			[]step{"5:SET a 1", "force", "5:SET b 2|5:SET c 3"},
			[]string{"SELECT 5", "SET a 1", "SELECT 5", "MULTI", "SET b 2", "SET c 3", "EXEC"}},
		{"the replicas' PING carries no SELECT",
			[]step{"ping", "2:SET a 1", "ping", "force", "ping", "2:SET b 2"},
			[]string{"PING", "SELECT 2", "SET a 1", "PING", "PING", "SELECT 2", "SET b 2"}},
		{"nothing while inactive; a restarted stream selects",
			[]step{"0:SET a 1", "off", "0:SET b 2", "on", "0:SET c 3"},
			[]string{"SELECT 0", "SET a 1", "SELECT 0", "SET c 3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var j Journal
			r := &recorder{}
			j.Subscribe(r)
			var b Batch
			for _, s := range tt.steps {
				s.apply(t, &j, r, &b)
			}
			if want := encode(tt.want...); !bytes.Equal(r.stream, want) {
				t.Errorf("stream\n%q\nwant\n%q", r.stream, want)
			}
			if r.gap {
				t.Errorf("a unit did not start at the previous one's end")
			}
			if got := j.Offset(); got != int64(len(r.stream)) {
				t.Errorf("Offset %d, stream %d bytes", got, len(r.stream))
			}
		})
	}
}

func TestSelectLen(t *testing.T) {
	for _, db := range []int{0, 1, 9, 10, 15, 99, 100, 999, 1000, 123456789, 1 << 31, 1<<63 - 1} {
		if got, want := selectLen(db), int64(len(aof.AppendSelect(nil, db))); got != want {
			t.Errorf("selectLen(%d) = %d, want %d", db, got, want)
		}
	}
}

// feederSub writes the stream as the AOF does: the unit's commands through
// an aof.Feeder, which places the SELECTs.
type feederSub struct {
	f    *aof.Feeder
	out  []byte
	keep bool // keep everything (else, past 1 MB, start again)
}

func (s *feederSub) Write(u *Unit) {
	for i := range u.Commands() {
		db, cmd := u.Command(i)
		s.out = s.f.FeedEncoded(s.out, 0, db, cmd)
	}
	if len(s.out) > 1<<20 && !s.keep {
		s.out = s.out[:0]
	}
}

// Over random units, the offset is the length of the materialised stream,
// each unit spans its own bytes, and an aof.Feeder fed the units' commands
// writes the same bytes.
func TestOffsetRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for round := range 20 {
		var j Journal
		r := &recorder{}
		fs := &feederSub{f: aof.NewFeeder(), keep: true}
		j.Subscribe(r)
		j.Subscribe(fs)
		var b Batch
		units := 0
		for range 500 {
			switch rng.Intn(20) {
			case 0:
				j.ForceSelect()
				fs.f.ForceSelect()
				continue
			case 1:
				db := rng.Intn(3)
				j.AppendCommand(db, []byte("DEL"), []byte(fmt.Sprint("k", rng.Intn(100))))
				units++
				continue
			}
			db := rng.Intn(3)
			if rng.Intn(4) == 0 {
				db = rng.Intn(100000)
			}
			for range 1 + rng.Intn(4) {
				if rng.Intn(5) == 0 {
					db = rng.Intn(16)
				}
				args := make([][]byte, 1+rng.Intn(5))
				for i := range args {
					args[i] = make([]byte, rng.Intn(30))
					rng.Read(args[i])
				}
				b.Add(db, args)
			}
			before := len(r.stream)
			j.Append(&b)
			b.Reset()
			units++
			if got := j.Offset(); got != int64(len(r.stream)) {
				t.Fatalf("round %d: Offset %d after a unit, stream %d bytes (unit %d bytes)", round, got, len(r.stream), len(r.stream)-before)
			}
		}
		if r.units != units || r.gap {
			t.Fatalf("round %d: %d units received of %d, gap %v", round, r.units, units, r.gap)
		}
		if !bytes.Equal(fs.out, r.stream) {
			t.Fatalf("round %d: the feeder's bytes differ from the stream", round)
		}
	}
}

func TestActive(t *testing.T) {
	var j Journal
	a, b := &recorder{}, &recorder{}
	check := func(what string, want bool) {
		t.Helper()
		if j.Active() != want {
			t.Fatalf("%s: Active() = %v", what, !want)
		}
	}
	check("new", false)
	j.AppendCommand(0, []byte("DEL"), []byte("k"))
	if j.Offset() != 0 {
		t.Fatalf("an inactive stream counted %d bytes", j.Offset())
	}
	j.Subscribe(a)
	check("one subscriber", true)
	j.Subscribe(a)
	j.Subscribe(b)
	check("two subscribers", true)
	j.Unsubscribe(a)
	check("one left", true)
	j.Unsubscribe(a)
	check("unsubscribed twice", true)
	j.Unsubscribe(b)
	check("none left", false)
	j.Subscribe(b)
	check("again", true)
}

func TestUnsubscribeStopsDelivery(t *testing.T) {
	var j Journal
	a, b := &recorder{}, &recorder{}
	j.Subscribe(a)
	j.Subscribe(b)
	j.Subscribe(a) // no second delivery
	j.AppendCommand(0, []byte("DEL"), []byte("x"))
	j.Unsubscribe(a)
	var batch Batch
	batch.Add(0, words("SET y 1"))
	j.Append(&batch)
	j.AppendCommand(0, []byte("DEL"), []byte("z"))
	if a.units != 1 || b.units != 3 {
		t.Fatalf("units received: %d and %d, want 1 and 3", a.units, b.units)
	}
	j.Unsubscribe(b)
	j.Append(&batch)
	if b.units != 3 {
		t.Fatalf("a unit reached an unsubscribed subscriber")
	}
}

// orderSub checks that units arrive one at a time, whole, contiguous, and
// per appending goroutine in the order it appended them.
type orderSub struct {
	writing atomic.Bool
	next    []int // per goroutine, the next unit expected
	units   int
	end     int64
	bad     atomic.Value
}

func (s *orderSub) fail(format string, args ...any) {
	s.bad.CompareAndSwap(nil, fmt.Sprintf(format, args...))
}

func (s *orderSub) Write(u *Unit) {
	if !s.writing.CompareAndSwap(false, true) {
		s.fail("two units delivered at once")
		return
	}
	defer s.writing.Store(false)
	if u.Start() != s.end {
		s.fail("unit starts at %d, the stream was at %d", u.Start(), s.end)
	}
	s.end = u.End()
	s.units++
	// Every record of a unit names its goroutine, the unit's number and
	// the record's place: "U <g> <n> <i>".
	g, n := -1, -1
	for i := range u.Len() {
		_, cmd := u.Record(i)
		args, err := resp.NewReader(bytes.NewReader(cmd)).ReadCommand()
		if err != nil || len(args) != 4 {
			s.fail("record %q: %v", cmd, err)
			return
		}
		rg, _ := strconv.Atoi(string(args[1]))
		rn, _ := strconv.Atoi(string(args[2]))
		ri, _ := strconv.Atoi(string(args[3]))
		if i == 0 {
			g, n = rg, rn
		}
		if rg != g || rn != n || ri != i {
			s.fail("unit of goroutine %d, number %d has record %q at %d", g, n, cmd, i)
			return
		}
	}
	if n != s.next[g] {
		s.fail("goroutine %d: unit %d after %d", g, n, s.next[g]-1)
	}
	s.next[g] = n + 1
}

func TestConcurrentAppend(t *testing.T) {
	const goroutines, units = 8, 2000
	var j Journal
	s := &orderSub{next: make([]int, goroutines)}
	j.Subscribe(s)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var b Batch
			gs := []byte(strconv.Itoa(g))
			for n := range units {
				ns := []byte(strconv.Itoa(n))
				for i := range 1 + n%3 {
					b.Add(g%4+i%2, [][]byte{[]byte("U"), gs, ns, []byte(strconv.Itoa(i))})
				}
				j.Append(&b)
				b.Reset()
			}
		}()
	}
	wg.Wait()
	if msg := s.bad.Load(); msg != nil {
		t.Fatal(msg)
	}
	if s.units != goroutines*units {
		t.Fatalf("%d units received, want %d", s.units, goroutines*units)
	}
	for g, n := range s.next {
		if n != units {
			t.Fatalf("goroutine %d: %d units received", g, n)
		}
	}
	if j.Offset() != s.end {
		t.Fatalf("Offset %d, last unit ended at %d", j.Offset(), s.end)
	}
}

func TestBatchTake(t *testing.T) {
	var a, b Batch
	a.Add(0, words("SET a 1"))
	b.Add(1, words("SET b 2"))
	b.Add(2, words("SET c 3"))
	a.Take(&b)
	if b.Len() != 0 {
		t.Fatalf("Take left %d records in its source", b.Len())
	}
	want := []struct {
		db  int
		cmd string
	}{{0, "SET a 1"}, {1, "SET b 2"}, {2, "SET c 3"}}
	if a.Len() != len(want) {
		t.Fatalf("Len %d, want %d", a.Len(), len(want))
	}
	for i, w := range want {
		db, cmd := a.Record(i)
		if db != w.db || !bytes.Equal(cmd, encode(w.cmd)) {
			t.Errorf("record %d: %d %q, want %d %q", i, db, cmd, w.db, encode(w.cmd))
		}
	}
	big := bytes.Repeat([]byte("x"), maxKeptBuf)
	a.Add(0, [][]byte{big})
	a.Reset()
	if a.Len() != 0 || a.buf != nil {
		t.Fatalf("Reset kept a buffer of %d bytes", cap(a.buf))
	}
}

type nopSub struct{}

func (nopSub) Write(*Unit) {}

func BenchmarkAppend(b *testing.B) {
	var j Journal
	j.Subscribe(nopSub{})
	var batch Batch
	args := words("SET key:000042 value")
	b.ReportAllocs()
	for b.Loop() {
		batch.Add(0, args)
		j.Append(&batch)
		batch.Reset()
	}
}

// BenchmarkAppendFeeder is BenchmarkAppend with the AOF's work: the unit
// written to a stage through an aof.Feeder.
func BenchmarkAppendFeeder(b *testing.B) {
	var j Journal
	s := &feederSub{f: aof.NewFeeder()}
	j.Subscribe(s)
	var batch Batch
	args := words("SET key:000042 value")
	b.ReportAllocs()
	for b.Loop() {
		batch.Add(0, args)
		j.Append(&batch)
		batch.Reset()
	}
}

// BenchmarkAppendParallel is BenchmarkAppendFeeder from every P: the
// stream's mutex is contended, as it is by the event loops.
func BenchmarkAppendParallel(b *testing.B) {
	var j Journal
	s := &feederSub{f: aof.NewFeeder()}
	j.Subscribe(s)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		var batch Batch
		args := words("SET key:000042 value")
		for pb.Next() {
			batch.Add(0, args)
			j.Append(&batch)
			batch.Reset()
		}
	})
}
