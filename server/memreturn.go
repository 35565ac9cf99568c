package server

import (
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/keyspace"
)

// Returning memory to the operating system. Go's scavenger gives freed
// heap back slowly, keeping what the heap may soon need again; Redis's
// allocator gives a FLUSHALL's or a big DEL's memory back at once, and
// RSS is what containers and the OOM killer see. So the cron watches
// used_memory: when it fell by returnMinDrop since the previous tick (a
// flush, a big value deleted, a client with big buffers gone), or after
// a load, a collection is forced and the free pages returned
// (debug.FreeOSMemory), on a goroutine of its own, at most once a second. A write flood under
// eviction keeps used_memory level and triggers nothing.
type memReturn struct {
	prev    int64       // used_memory at the previous tick (the cron's)
	running atomic.Bool // a return is under way
	last    time.Time   // when the last one ran (its goroutine's, then the cron's)
}

// returnMinDrop is the fall in used_memory between two ticks that returns
// memory.
const returnMinDrop = 32 << 20

// returnMemory is called by the cron with used_memory now.
func (s *Server) returnMemory(used int64) {
	r := &s.memReturn
	prev := r.prev
	r.prev = used
	if prev-used >= returnMinDrop {
		s.returnMemorySoon()
	}
}

// returnMemorySoon returns the free heap to the operating system, on a
// goroutine, at most once a second: after a drop in used_memory, and
// after a load (start-up, DEBUG RELOAD, a replica's synchronization),
// whose decoding leaves as much garbage as it leaves data.
func (s *Server) returnMemorySoon() {
	r := &s.memReturn
	if !r.running.CompareAndSwap(false, true) {
		return
	}
	wait := time.Second - time.Since(r.last)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer r.running.Store(false)
		if wait > 0 {
			select {
			case <-s.done:
				return
			case <-time.After(wait):
			}
		}
		keyspace.FreeBuffers() // the recycled string buffers go too
		debug.FreeOSMemory()
		r.last = time.Now()
	}()
}
