//go:build linux

package eventloop

import (
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// chunkSize is the size of the pooled blocks that small writes are
// copied into, as Redis's reply list nodes (PROTO_REPLY_CHUNK_BYTES).
const chunkSize = 16 << 10

// ownBlockMin is the size from which a write's rest, once the last block
// is full, gets a block of its own (of exactly that size) rather than
// pooled chunks.
const ownBlockMin = 4 * chunkSize

// maxIov bounds the blocks one writev sends.
const maxIov = 64

var chunkPool = sync.Pool{New: func() any { return new([chunkSize]byte) }}

// outBlock is one block of queued output: buf holds its bytes; a pooled
// block (a chunk of chunkPool) may take more up to its capacity.
type outBlock struct {
	buf    []byte
	pooled bool
}

// outQueue is output waiting for the socket: a list of blocks, sent
// front to back and released as they are sent. What is queued is never
// copied again. Guarded by the connection's wmu; mem and blocks are also
// read without it (Conn.OutputMem).
type outQueue struct {
	blocks []outBlock
	off    int // the bytes of blocks[0] already sent
	bytes  int // the bytes not sent
	// mem is the blocks' memory (their capacity), nblk their number.
	mem, nblk atomic.Int64
}

// add queues a copy of p.
func (q *outQueue) add(p []byte) {
	if len(p) == 0 {
		return
	}
	q.bytes += len(p)
	if n := len(q.blocks); n > 0 {
		if t := &q.blocks[n-1]; t.pooled && len(t.buf) < cap(t.buf) {
			k := copy(t.buf[len(t.buf):cap(t.buf)], p)
			t.buf = t.buf[:len(t.buf)+k]
			p = p[k:]
		}
	}
	if len(p) >= ownBlockMin {
		b := make([]byte, len(p))
		copy(b, p)
		q.push(outBlock{buf: b})
		return
	}
	for len(p) > 0 {
		b := chunkPool.Get().(*[chunkSize]byte)[:0]
		k := min(len(p), chunkSize)
		b = append(b, p[:k]...)
		p = p[k:]
		q.push(outBlock{buf: b, pooled: true})
	}
}

func (q *outQueue) push(b outBlock) {
	q.blocks = append(q.blocks, b)
	q.mem.Add(int64(cap(b.buf)))
	q.nblk.Add(1)
}

// pop releases the first block.
func (q *outQueue) pop() {
	b := q.blocks[0]
	q.blocks[0] = outBlock{}
	q.blocks = q.blocks[1:]
	q.off = 0
	q.mem.Add(-int64(cap(b.buf)))
	q.nblk.Add(-1)
	if b.pooled {
		chunkPool.Put((*[chunkSize]byte)(b.buf[:chunkSize]))
	}
	if len(q.blocks) == 0 {
		q.blocks = nil
	}
}

// consume drops the first n bytes (sent).
func (q *outQueue) consume(n int) {
	for n > 0 {
		rest := len(q.blocks[0].buf) - q.off
		if n < rest {
			q.off += n
			q.bytes -= n
			return
		}
		n -= rest
		q.bytes -= rest
		q.pop()
	}
}

// moveTo moves the first n bytes to the end of dst: whole blocks as they
// are, a part of a block by copying it.
func (q *outQueue) moveTo(dst *outQueue, n int) {
	for n > 0 {
		b := q.blocks[0]
		rest := len(b.buf) - q.off
		if q.off > 0 || n < rest || (len(dst.blocks) > 0 && b.pooled && rest < chunkSize/4) {
			// Copied: a part of a block, or a small one that fits with
			// what dst has (the usual held reply).
			k := min(n, rest)
			dst.add(b.buf[q.off : q.off+k])
			q.consume(k)
			n -= k
			continue
		}
		q.blocks[0] = outBlock{}
		q.blocks = q.blocks[1:]
		q.bytes -= rest
		q.mem.Add(-int64(cap(b.buf)))
		q.nblk.Add(-1)
		if len(q.blocks) == 0 {
			q.blocks = nil
		}
		dst.bytes += rest
		dst.push(b)
		n -= rest
	}
}

// clear releases every block.
func (q *outQueue) clear() {
	for len(q.blocks) > 0 {
		q.pop()
	}
	q.bytes = 0
}

// send writes what the socket takes (writev, up to maxIov blocks a call):
// it returns the error that stopped it, 0 once everything is sent
// (EAGAIN when the socket is full).
func (q *outQueue) send(fd int) syscall.Errno {
	var iov [maxIov]syscall.Iovec
	for q.bytes > 0 {
		n := 0
		for i := 0; i < len(q.blocks) && n < maxIov; i++ {
			b := q.blocks[i].buf
			if i == 0 {
				b = b[q.off:]
			}
			iov[n].Base = unsafe.SliceData(b)
			iov[n].SetLen(len(b))
			n++
		}
		w, _, errno := syscall.RawSyscall(syscall.SYS_WRITEV, uintptr(fd), uintptr(unsafe.Pointer(&iov[0])), uintptr(n))
		if errno == syscall.EINTR {
			continue
		}
		if errno != 0 {
			return errno
		}
		q.consume(int(w))
	}
	return 0
}
