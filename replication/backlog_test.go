package replication

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/journal"
)

// recorder keeps the whole stream, to check the backlog's tail against.
type recorder struct{ stream []byte }

func (r *recorder) Write(u *journal.Unit) { r.stream = u.AppendFramed(r.stream) }

// nopSink is a replica's connection that counts the notifications.
type nopSink struct{ notified int }

func (s *nopSink) Send([]byte) {}
func (s *nopSink) Notify(bool) { s.notified++ }

// drain reads everything r has to send.
func drain(r *Replica, max int) []byte {
	var out []byte
	for p := r.Next(max); len(p) > 0; p = r.Next(max) {
		out = append(out, p...)
	}
	return out
}

// appendSets appends n SETs of values of size bytes.
func appendSets(j *journal.Journal, n, size int) {
	var b journal.Batch
	v := []byte(strings.Repeat("v", size))
	for i := range n {
		b.Add(i%3, [][]byte{[]byte("SET"), []byte(fmt.Sprint("key", i)), v})
		j.Append(&b)
		b.Reset()
	}
}

// The backlog alone keeps about repl-backlog-size bytes of history (a
// block more at most), serves any offset inside it, and no other.
func TestBacklog(t *testing.T) {
	var j journal.Journal
	rec := &recorder{}
	j.Subscribe(rec)
	size := int64(64 << 10)
	bl := newBacklog(func() int64 { return size }, 0)
	j.SubscribeWith(bl, func(offset int64) bool { bl.reset(offset); return true })
	for range 40 {
		appendSets(&j, 50, 300)
		end := j.Offset()
		bl.mu.Lock()
		first, histlen, bend := bl.firstLocked(), bl.histlen, bl.end
		bl.mu.Unlock()
		if bend != end || int64(len(rec.stream)) != end {
			t.Fatalf("backlog ends at %d, stream at %d (%d bytes)", bend, end, len(rec.stream))
		}
		if histlen > size+blockMin || histlen < min(size, end) {
			t.Fatalf("backlog holds %d bytes (size %d, stream %d)", histlen, size, end)
		}
		if mem := bl.mem.Load(); mem < histlen || mem > histlen+2*blockMin+blockOverhead*(histlen/blockMin+2) {
			t.Fatalf("memory %d for %d bytes of history", mem, histlen)
		}
		for _, p := range []int64{first, (first + end) / 2, end + 1} {
			r := &Replica{sink: &nopSink{}}
			r.live.Store(true)
			if !bl.attachAt(r, p) {
				t.Fatalf("attachAt(%d) refused (first %d, end %d)", p, first, end)
			}
			if got := drain(r, 1000); !bytes.Equal(got, rec.stream[p-1:]) {
				t.Fatalf("from %d: %d bytes, want %d", p, len(got), len(rec.stream[p-1:]))
			}
			bl.detach(r)
		}
		r := &Replica{sink: &nopSink{}}
		if bl.attachAt(r, end+2) {
			t.Fatalf("attachAt(%d) past the end", end+2)
		}
		if first > 1 && bl.attachAt(r, first-1) {
			t.Fatalf("attachAt(%d) before the history", first-1)
		}
	}
}

// A replica that does not read pins the stream from where it attached:
// the backlog outgrows its size, its memory counts once however many
// replicas share it, and it is trimmed once they are gone (Redis's
// shared replication buffer).
func TestBacklogShared(t *testing.T) {
	var j journal.Journal
	size := int64(16 << 10)
	bl := newBacklog(func() int64 { return size }, 0)
	j.SubscribeWith(bl, func(offset int64) bool { bl.reset(offset); return true })
	appendSets(&j, 100, 100)
	slow1, slow2, fast := &Replica{sink: &nopSink{}}, &Replica{sink: &nopSink{}}, &Replica{sink: &nopSink{}}
	from := bl.attach(slow1)
	bl.attach(slow2)
	bl.attach(fast)
	fast.live.Store(true)
	rec := &recorder{}
	j.Subscribe(rec)
	appendSets(&j, 1000, 1000) // about 1MB
	histlen := bl.histLen()
	if histlen < j.Offset()-from {
		t.Fatalf("history %d bytes, the replicas pin %d", histlen, j.Offset()-from)
	}
	mem := bl.mem.Load()
	if mem < histlen || mem > histlen*11/10 {
		t.Fatalf("memory %d for a history of %d", mem, histlen)
	}
	if got := drain(fast, 4096); !bytes.Equal(got, rec.stream) {
		t.Fatalf("the fast replica got %d bytes, want %d", len(got), len(rec.stream))
	}
	if m, _ := fast.Output(); m > blockMin+blockOverhead {
		t.Fatalf("a replica that sent everything pins %d bytes", m)
	}
	if m, _ := slow1.Output(); m < j.Offset()-from {
		t.Fatalf("a replica that sent nothing pins %d bytes, the stream has %d", m, j.Offset()-from)
	}
	if n := slow1.sink.(*nopSink).notified; n == 0 {
		t.Fatalf("not notified")
	}
	bl.detach(slow1)
	if got := bl.mem.Load(); got != mem {
		t.Fatalf("memory %d after one of two slow replicas left, want %d", got, mem)
	}
	bl.detach(slow2)
	if got := bl.histLen(); got > size+blockMin {
		t.Fatalf("history %d bytes once no replica pins it", got)
	}
	if got := bl.mem.Load(); got > mem-(1<<20)+4*blockMin {
		t.Fatalf("memory %d once no replica pins the buffer (was %d)", got, mem)
	}
}
