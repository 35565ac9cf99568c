//go:build linux

package eventloop

import (
	"bufio"
	"bytes"
	"io"
	"testing"
	"time"
)

// TestOutQueue: writes of every size to a peer that does not read are
// queued in blocks (small ones share 16 KiB chunks, big ones keep a block
// of their own), OutputMem counts them, and once the peer reads, the
// bytes come whole and in order and the blocks are released as sent.
func TestOutQueue(t *testing.T) {
	s := startGroup(t, 1, true)
	c := s.dial()
	st := s.next()
	var want bytes.Buffer
	sizes := []int{1, 10, 100, 5000, 16 << 10, 20000, 70000, 300000, 2 << 20, 3, 17}
	for round := 0; round < 20; round++ {
		for _, n := range sizes {
			p := pattern(want.Len(), n)
			want.Write(p)
			if _, err := st.added.Write(p); err != nil {
				t.Fatal(err)
			}
		}
	}
	pending := st.added.Pending()
	mem, blocks := st.added.OutputMem()
	if pending < want.Len()/2 || mem < pending || blocks < pending/(2<<20) {
		t.Fatalf("%d bytes written, peer not reading: pending %d, mem %d, blocks %d", want.Len(), pending, mem, blocks)
	}
	// Queued whole: no more than one partly filled chunk per big block
	// on top of the bytes.
	if over := mem - pending; over > blocks*chunkSize {
		t.Errorf("mem %d for %d pending bytes in %d blocks", mem, pending, blocks)
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	got := make([]byte, want.Len())
	if _, err := io.ReadFull(bufio.NewReaderSize(c, 1<<16), got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatal("output reordered or corrupted")
	}
	if !settle(func() bool { m, b := st.added.OutputMem(); return m == 0 && b == 0 && st.added.Pending() == 0 }) {
		m, b := st.added.OutputMem()
		t.Fatalf("after draining: mem %d, blocks %d, pending %d", m, b, st.added.Pending())
	}
}

// TestOutQueueMove: moving held output to the pending queue keeps the
// order, moves whole blocks and copies parts.
func TestOutQueueMove(t *testing.T) {
	var held, pend outQueue
	var want []byte
	add := func(q *outQueue, n int) {
		p := pattern(len(want), n)
		want = append(want, p...)
		q.add(p)
	}
	add(&pend, 100)
	add(&held, 200)
	add(&held, 5<<16)
	add(&held, 30000)
	held.moveTo(&pend, 200+5<<16+7)
	if held.bytes != 30000-7 || pend.bytes != 100+200+5<<16+7 {
		t.Fatalf("after move: held %d, pending %d", held.bytes, pend.bytes)
	}
	held.moveTo(&pend, held.bytes)
	if held.bytes != 0 || held.mem.Load() != 0 || held.nblk.Load() != 0 {
		t.Fatalf("held left: %d bytes, mem %d, blocks %d", held.bytes, held.mem.Load(), held.nblk.Load())
	}
	var got []byte
	for i, b := range pend.blocks {
		if i == 0 {
			b.buf = b.buf[pend.off:]
		}
		got = append(got, b.buf...)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("moved output reordered")
	}
	pend.consume(len(want) - 1)
	if pend.bytes != 1 || pend.nblk.Load() != 1 {
		t.Fatalf("after consume: %d bytes in %d blocks", pend.bytes, pend.nblk.Load())
	}
	pend.clear()
	if pend.mem.Load() != 0 || pend.nblk.Load() != 0 || len(pend.blocks) != 0 {
		t.Fatal("clear left blocks")
	}
}
