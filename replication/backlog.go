package replication

import "github.com/hotkv/hotkv/journal"

// backlog keeps the last bytes of the stream as replicas received them
// (repl-backlog-size), so that a replica that lost its link can continue
// from its offset (PSYNC ... +CONTINUE) instead of loading a new
// snapshot. It is a journal subscriber; its fields are guarded by the
// journal's mutex.
type backlog struct {
	buf    []byte // the last len(buf) bytes of the stream
	end    int64  // the stream's offset after buf's last byte
	size   int64  // the most bytes kept
	sizeFn func() int64
}

// Write appends the unit's bytes, dropping the oldest past size
// (journal.Subscriber). The buffer is cut back by half its size at a
// time, so each byte is copied about once.
func (b *backlog) Write(u *journal.Unit) {
	b.buf = u.AppendFramed(b.buf)
	b.end = u.End()
	b.size = max(b.sizeFn(), 1)
	if over := int64(len(b.buf)) - b.size; over > 0 && int64(len(b.buf)) >= b.size+b.size/2+1 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
}

// histlen returns the bytes of history held (at most size).
func (b *backlog) histlen() int64 { return min(int64(len(b.buf)), b.size) }

// first returns the offset of the first byte held (Redis's
// repl_backlog_first_byte_offset: offsets of bytes count from 1).
func (b *backlog) first() int64 { return b.end - b.histlen() + 1 }

// from returns the bytes from offset psync (the first byte the replica
// wants) to the end, and whether the backlog holds them.
func (b *backlog) from(psync int64) ([]byte, bool) {
	if psync < b.first() || psync > b.end+1 {
		return nil, false
	}
	return b.buf[int64(len(b.buf))-(b.end+1-psync):], true
}
