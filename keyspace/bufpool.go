package keyspace

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// Recycled string buffers. Under maxmemory a write flood frees a value for
// every value it stores: left to the collector, each evicted buffer is
// garbage until the next cycle, which makes the collector run often and
// the heap stand well above the data (Redis's allocator hands the freed
// chunk to the next allocation of its size at once). So the buffers of
// evicted strings go to free lists by the Go allocator's size classes, and
// the next external string of that class takes one instead of allocating.
//
// Only buffers that nothing else can reach are recycled:
//   - the buffer is a whole allocation of its class, made by setStr for
//     the entry (flagPooled; a buffer handed in by a caller, a tier load,
//     APPEND's growth, is never marked, so it is never recycled);
//   - it is given back by DB.Evict only: the caller holds the key's tag
//     lock exclusively, so no command is reading the value, and replies,
//     scripts, DUMP, the journal and snapshots all copy what they read
//     under that lock (a snapshot captures the entry, copying its value,
//     before Evict removes it);
//   - the entry forgets the buffer as it gives it back, so that a late
//     reader of the removed entry would see an empty string, never
//     another key's bytes.
//
// The lists are short (bufPoolBytes a class, bufPoolTotal in all, which
// used_memory does not count, as it does not count an allocator's free
// chunks): enough for one eviction pass's worth of values (its slack is
// 64 KB at most); the rest is left to the collector. They are emptied
// when memory is returned to the operating system (FreeBuffers).

// bufPoolMax is the largest buffer recycled: the allocator's small size
// classes end at 32 KB (larger objects take whole pages).
const bufPoolMax = 32 << 10

// bufPoolBytes bounds the bytes a class's free list keeps (at least
// bufPoolMinCount buffers).
const (
	bufPoolBytes    = 128 << 10
	bufPoolMinCount = 4
	bufPoolTotal    = 1 << 20
)

// bufPooled is the bytes the free lists hold.
var bufPooled atomic.Int64

// bufClasses are the allocator's size classes up to bufPoolMax, as the
// runtime rounds a []byte allocation (growslice's rounding, which is
// mallocgc's), and bufClassOf maps (n+7)/8 to the class of an n-byte
// buffer.
var (
	bufClasses []int
	bufClassOf [bufPoolMax/8 + 1]uint8
	bufPool    []bufList
)

type bufList struct {
	mu     sync.Mutex
	free   []*byte
	max    int
	reused int64 // buffers taken from free (under mu)
	_      [16]byte
}

func init() {
	for n := 1; n <= bufPoolMax; {
		c := cap(append([]byte(nil), make([]byte, n)...))
		for m := n; m <= c && m <= bufPoolMax; m++ {
			bufClassOf[(m+7)/8] = uint8(len(bufClasses))
		}
		bufClasses = append(bufClasses, c)
		n = c + 1
	}
	bufPool = make([]bufList, len(bufClasses))
	for i, c := range bufClasses {
		bufPool[i].max = max(bufPoolMinCount, bufPoolBytes/c)
	}
}

// newStrBuf returns a buffer holding a copy of v for an external string:
// a recycled one of v's size class when there is one, else a new
// allocation. pooled reports whether the buffer is a whole allocation of
// that class (and so may be recycled later).
func newStrBuf(v []byte) (b []byte, pooled bool) {
	n := len(v)
	if n == 0 || n > bufPoolMax {
		b = make([]byte, n)
		copy(b, v)
		return b, false
	}
	c := bufClassOf[(n+7)/8]
	l := &bufPool[c]
	l.mu.Lock()
	if k := len(l.free); k > 0 {
		p := l.free[k-1]
		l.free[k-1] = nil
		l.free = l.free[:k-1]
		l.reused++
		l.mu.Unlock()
		bufPooled.Add(-int64(bufClasses[c]))
		b = unsafe.Slice(p, n)
		copy(b, v)
		return b, true
	}
	l.mu.Unlock()
	b = make([]byte, n)
	copy(b, v)
	return b, true
}

// recycleStr takes e's external string buffer for the free lists when it
// may be recycled (see above), and leaves e holding an empty string. The
// caller holds e's key's tag lock exclusively and has removed e.
func (e *Entry) recycleStr() {
	if e.Kind != KindString || e.flags&(flagExt|flagBoxed|flagCold|flagPooled) != flagExt|flagPooled {
		return
	}
	p, n := e.Obj.(*byte), int(e.aux)
	e.dropExt()
	e.slen = 0
	if n == 0 || n > bufPoolMax {
		return
	}
	c := bufClassOf[(n+7)/8]
	if bufPooled.Add(int64(bufClasses[c])) > bufPoolTotal {
		bufPooled.Add(-int64(bufClasses[c]))
		return
	}
	l := &bufPool[c]
	l.mu.Lock()
	if len(l.free) < l.max {
		l.free = append(l.free, p)
		p = nil
	}
	l.mu.Unlock()
	if p != nil {
		bufPooled.Add(-int64(bufClasses[c]))
	}
}

// FreeBuffers empties the free lists (before memory is returned to the
// operating system, and after a flush).
func FreeBuffers() {
	for i := range bufPool {
		l := &bufPool[i]
		l.mu.Lock()
		bufPooled.Add(-int64(len(l.free) * bufClasses[i]))
		clear(l.free)
		l.free = l.free[:0]
		l.mu.Unlock()
	}
}

// BufferStats returns the bytes the free lists hold and how many buffers
// were taken from them since the start.
func BufferStats() (free, reused int64) {
	for i := range bufPool {
		l := &bufPool[i]
		l.mu.Lock()
		free += int64(len(l.free) * bufClasses[i])
		reused += l.reused
		l.mu.Unlock()
	}
	return free, reused
}
