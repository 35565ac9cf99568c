package replication

import (
	"sync"
	"sync/atomic"

	"github.com/hotkv/hotkv/journal"
)

// backlog is the shared replication buffer, as Redis 7's: the stream's
// bytes in a list of blocks that the backlog and every replica's output
// share. The backlog is the list from its first block (repl-backlog-size
// bytes of history, or more); each attached replica holds a cursor in
// it, the next byte its connection is to send, and pins the block it is
// in and every block after it. The oldest blocks are dropped once the
// history passes repl-backlog-size and no replica's cursor is in them: a
// slow replica keeps the backlog longer than its size (and a replica that
// reconnects may continue from there), and its connection's output is
// the blocks it pins, counted once for all replicas (INFO's
// mem_total_replication_buffers).
//
//	head                                   tail
//	[blk]->[blk]->[blk]->[blk]->[blk]->[blk....]
//	        ^ replica A     ^ replica B    ^ end
//
// It is the journal's subscriber for every replica: each unit is framed
// once. Its fields are guarded by mu, a leaf taken under the journal's
// mutex by Write, and by a replica's connection as it takes bytes to send
// (Next), with no other lock; the bytes of a block below its length never
// change once written, so they are read after mu is released.
type backlog struct {
	mu         sync.Mutex
	head, tail *block
	histlen    int64 // bytes held, from head to the end
	end        int64 // the stream's offset after the last byte
	size       int64 // repl-backlog-size, as of the last write
	sizeFn     func() int64
	nextID     int64
	readers    []*Replica // the attached replicas, fed from the buffer

	// mem is the buffer's memory (blocks and their overhead), read
	// without mu (used_memory, INFO).
	mem atomic.Int64

	// Owned by Write (under the journal's mutex).
	scratch []byte
	notify  []*Replica
}

// block is one piece of the stream. Its bytes are buf (its capacity is
// the block's size); start is the stream's offset before buf[0]. refs
// counts the replicas whose cursor is in it.
type block struct {
	buf   []byte
	start int64
	id    int64
	refs  int
	next  *block
}

const (
	// blockMin is the smallest block, as Redis's PROTO_REPLY_CHUNK_BYTES.
	blockMin = 16 << 10
	// blockOverhead is what a block costs besides its bytes (Redis's
	// list node and block header).
	blockOverhead = 64
)

func newBacklog(sizeFn func() int64, end int64) *backlog {
	return &backlog{sizeFn: sizeFn, size: max(sizeFn(), 1), end: end}
}

// Write appends the unit's bytes (journal.Subscriber), then tells the
// replicas that there is more to send.
// A proxied unit's bytes (a replica's master's stream) are copied
// straight into the blocks; others are framed in scratch first.
func (b *backlog) Write(u *journal.Unit) {
	p := u.Proxied()
	if p == nil {
		b.scratch = u.AppendFramed(b.scratch[:0])
		p = b.scratch
	}
	b.mu.Lock()
	added := b.appendLocked(p, u.End())
	if len(p) > 0 {
		b.notify = append(b.notify[:0], b.readers...)
	}
	b.mu.Unlock()
	if cap(b.scratch) > 1<<20 {
		b.scratch = nil
	}
	for i, r := range b.notify {
		r.sink.Notify(added)
		b.notify[i] = nil
	}
	b.notify = b.notify[:0]
}

// appendLocked appends p, the stream's bytes up to offset end, and
// reports whether it added a block. A replica whose cursor waits for the
// next byte gets it at p's first byte.
func (b *backlog) appendLocked(p []byte, end int64) (added bool) {
	b.size = max(b.sizeFn(), 1)
	if len(p) == 0 {
		b.end = end
		return false
	}
	b.end = end - int64(len(p))
	var first *block
	firstPos := 0
	for len(p) > 0 {
		t := b.tail
		if t == nil || len(t.buf) == cap(t.buf) {
			limit := max(b.size/16, blockMin)
			n := min(max(int64(len(p)), blockMin), limit)
			t = &block{buf: make([]byte, 0, n), start: b.end, id: b.nextID}
			b.nextID++
			if b.tail == nil {
				b.head = t
			} else {
				b.tail.next = t
			}
			b.tail = t
			b.mem.Add(n + blockOverhead)
			added = true
		}
		if first == nil {
			first, firstPos = t, len(t.buf)
		}
		n := min(len(p), cap(t.buf)-len(t.buf))
		t.buf = append(t.buf, p[:n]...)
		p = p[n:]
		b.end += int64(n)
		b.histlen += int64(n)
	}
	b.end = end
	for _, r := range b.readers {
		if r.cur == nil {
			r.cur, r.pos = first, firstPos
			first.refs++
		}
	}
	if added {
		b.trimLocked()
	}
	return added
}

// trimLocked drops the oldest blocks while the history is longer than
// size without them, and no replica's cursor is in them.
func (b *backlog) trimLocked() {
	for h := b.head; h != nil && h != b.tail && h.refs == 0 && b.histlen-int64(len(h.buf)) >= b.size; h = b.head {
		b.histlen -= int64(len(h.buf))
		b.mem.Add(-int64(cap(h.buf)) - blockOverhead)
		b.head = h.next
		h.next = nil
	}
}

// trim drops what trimLocked drops, with the size configured now (the
// cron: after CONFIG SET repl-backlog-size).
func (b *backlog) trim() {
	b.mu.Lock()
	b.size = max(b.sizeFn(), 1)
	b.trimLocked()
	b.mu.Unlock()
}

// reset empties the buffer and makes end the stream's offset (a replica's
// full synchronization). Attached replicas go on from the next byte.
func (b *backlog) reset(end int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.head, b.tail, b.histlen, b.end = nil, nil, 0, end
	b.mem.Store(0)
	for _, r := range b.readers {
		r.cur, r.pos = nil, 0
	}
}

// histLen returns the bytes of history held.
func (b *backlog) histLen() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.histlen
}

// firstLocked returns the offset of the first byte held (Redis's
// repl_backlog_first_byte_offset: offsets of bytes count from 1).
func (b *backlog) firstLocked() int64 { return b.end - b.histlen + 1 }

// attach adds r, whose cursor is the next byte to come, and returns the
// stream's offset at that point.
func (b *backlog) attach(r *Replica) int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	r.bl, r.cur, r.pos = b, nil, 0
	b.readers = append(b.readers, r)
	return b.end
}

// attachAt adds r with its cursor at offset psync (the first byte it
// wants) when the buffer holds the bytes from there, and reports whether
// it does.
func (b *backlog) attachAt(r *Replica, psync int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if psync < b.firstLocked() || psync > b.end+1 {
		return false
	}
	r.bl, r.cur, r.pos = b, nil, 0
	at := psync - 1 // the stream's offset before the byte
	for k := b.head; k != nil; k = k.next {
		if k.start+int64(len(k.buf)) >= at {
			r.cur, r.pos = k, int(at-k.start)
			k.refs++
			break
		}
	}
	b.readers = append(b.readers, r)
	return true
}

// detach removes r and unpins its blocks.
func (b *backlog) detach(r *Replica) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, x := range b.readers {
		if x == r {
			b.readers = append(b.readers[:i:i], b.readers[i+1:]...)
			break
		}
	}
	if r.cur != nil {
		r.cur.refs--
		r.cur, r.pos = nil, 0
		b.trimLocked()
	}
}

// next returns up to max bytes from r's cursor and moves it past them;
// empty when r has all the stream. The bytes stay valid (they never
// change) after the buffer drops their block.
func (b *backlog) next(r *Replica, max int) []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	k := r.cur
	if k == nil {
		return nil
	}
	if r.pos == len(k.buf) && k.next != nil {
		// Past this block: the replica pins the next one.
		k.refs--
		k = k.next
		k.refs++
		r.cur, r.pos = k, 0
		b.trimLocked()
	}
	n := min(len(k.buf)-r.pos, max)
	p := k.buf[r.pos : r.pos+n : r.pos+n]
	r.pos += n
	return p
}

// pinned returns the memory of the blocks r pins, from the one its
// cursor is in to the last (Redis's output buffer memory of a replica),
// and how many blocks they are.
func (b *backlog) pinned(r *Replica) (mem, blocks int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if r.cur == nil || b.tail == nil {
		return 0, 0
	}
	blocks = b.tail.id - r.cur.id + 1
	mem = b.tail.start + int64(cap(b.tail.buf)) - r.cur.start + blocks*blockOverhead
	return mem, blocks
}

// pending reports whether r has bytes of the stream still to send.
func (b *backlog) pending(r *Replica) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	k := r.cur
	return k != nil && (r.pos < len(k.buf) || k.next != nil)
}
