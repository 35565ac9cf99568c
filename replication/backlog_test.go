package replication

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/hotkv/hotkv/journal"
)

// recorder keeps the whole stream, to check the backlog's tail against.
type recorder struct{ stream []byte }

func (r *recorder) Write(u *journal.Unit) { r.stream = u.AppendFramed(r.stream) }

// The backlog holds the last size bytes of the stream (at most half as
// many again before it is cut back), serves any offset inside its
// history, and no other.
func TestBacklog(t *testing.T) {
	var j journal.Journal
	rec := &recorder{}
	j.Subscribe(rec)
	size := int64(300)
	bl := &backlog{sizeFn: func() int64 { return size }, size: size}
	j.SubscribeWith(bl, func(offset int64) bool { bl.end = offset; return true })
	var b journal.Batch
	for i := range 200 {
		b.Add(i%3, [][]byte{[]byte("SET"), []byte(fmt.Sprint("key", i)), []byte("v")})
		j.Append(&b)
		b.Reset()
		end := j.Offset()
		if bl.end != end || int64(len(rec.stream)) != end {
			t.Fatalf("backlog ends at %d, stream at %d (%d bytes)", bl.end, end, len(rec.stream))
		}
		if int64(len(bl.buf)) > size+size/2+1 {
			t.Fatalf("backlog holds %d bytes", len(bl.buf))
		}
		first := bl.first()
		if want := max(1, end-min(end, size)+1); first != want {
			t.Fatalf("first byte %d, want %d", first, want)
		}
		for _, p := range []int64{first, (first + end) / 2, end + 1} {
			got, ok := bl.from(p)
			if !ok || !bytes.Equal(got, rec.stream[p-1:]) {
				t.Fatalf("from(%d) = %q, %v", p, got, ok)
			}
		}
		if _, ok := bl.from(end + 2); ok {
			t.Fatalf("from(%d) past the end", end+2)
		}
		if first > 1 {
			if _, ok := bl.from(first - 1); ok {
				t.Fatalf("from(%d) before the history", first-1)
			}
		}
	}
}
