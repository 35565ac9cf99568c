package server

import (
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/config"
)

// Client eviction (maxmemory-clients), as Redis 7.0's evictClients: when
// the memory of the normal and pub/sub clients passes the limit, the
// largest clients that may be evicted are closed, one after the other,
// until it is under the limit again.
//
// Each client's memory is clientMem's total (CLIENT LIST's tot-mem),
// computed from atomics the client's own goroutine publishes, so any
// goroutine may read it. What a client last counted is kept in
// Client.cevMem (a swap: the sum stays exact whatever goroutines
// recount it) and summed in clientEvictState.sum, so that the check made
// whenever a client's memory changes is two atomic loads. A client's
// memory is recounted, and the limit checked, as Redis's
// updateClientMemUsageAndBucket and evictClients are called: after each
// read of its input (afterRead: a query buffer that grows with a big
// argument); when its replies are flushed, after its commands and when
// output is queued; when another goroutine queues output for it (a
// pub/sub message, an invalidation: the eviction then runs on a
// goroutine of its own, as the queuing side may hold leaf locks); and in
// the cron, for every client. A pass (evictClients) recounts every
// client, ranks those that may be evicted by memory and closes the
// largest, asynchronously (their connection is closed; their goroutine
// frees them), with Redis's log line, counting INFO's evicted_clients.

// Per-item overheads Redis's getClientMemoryUsage adds (64-bit sizes of
// its structures): a queued command (multiCmd), a queued argument
// (robj*), a watched key (listNode + watchedKey), a channel (dictEntry
// and its slot), a pattern (listNode), a tracking prefix (rax nodes).
const (
	memQueuedCmd = 24
	memArg       = 8
	memWatched   = 48
	memChannel   = 32
	memPattern   = 24
	memPrefix    = 32
)

// minClientEvictionLimit is Redis's floor for maxmemory-clients, so that a
// bad setting cannot cut every connection.
const minClientEvictionLimit = 128 << 10

// clientEvictState is the client eviction's state.
type clientEvictState struct {
	param *config.Param // maxmemory-clients
	// sum is the memory of the normal and pub/sub clients (no-evict ones
	// included, as Redis's stat_clients_type_memory), as each last
	// counted it (Client.cevMem).
	sum atomic.Int64
	// recount is set by CONFIG SET maxmemory-clients and maxmemory: the
	// next check recounts every client (or forgets them all, when off).
	recount atomic.Bool
	// pending is set while an eviction requested by another goroutine's
	// output (requestClientEviction) has not run yet.
	pending atomic.Bool
	// quietUntil is monoNow until which checks made when a client's
	// memory changes skip the pass: the last one found nothing more to
	// evict (no-evict clients over the limit).
	quietUntil atomic.Int64
	lastWarn   atomic.Int64 // monoNow of the last "Over client maxmemory" line
	// mu makes passes one at a time; taken holding no lock.
	mu sync.Mutex
}

// clientEvictHooks reads maxmemory-clients and follows CONFIG SET.
func (s *Server) clientEvictHooks(cfg *config.Config) {
	s.cev.param = cfg.Lookup("maxmemory-clients")
	recount := func(*config.Param) error {
		// Hooks run under config's set lock (and inside EXEC under key
		// locks): the pass runs once the command is done, before its
		// reply goes out (Client.checkClientMemory).
		s.cev.recount.Store(true)
		s.cev.quietUntil.Store(0)
		return nil
	}
	cfg.OnChange("maxmemory-clients", recount)
	cfg.OnChange("maxmemory", recount)
}

// clientEvictionLimit returns the limit maxmemory-clients sets in bytes
// (a percentage is of maxmemory; at least 128 KB), 0 when off (Redis's
// getClientEvictionLimit).
func (s *Server) clientEvictionLimit() int64 {
	if s.cev.param == nil {
		return 0
	}
	var limit int64
	switch v := s.cev.param.Int(); {
	case v < 0:
		mm := s.maxmemory.Uint()
		if mm == 0 {
			return 0
		}
		limit = int64(float64(mm) * float64(-v) / 100)
	case v > 0:
		limit = v
	default:
		return 0
	}
	return max(limit, minClientEvictionLimit)
}

// clientMem is a client's memory, in Redis's getClientMemoryUsage terms.
type clientMem struct {
	qbuf, qbufFree int64 // query buffer: its bytes and its free room
	argv           int64 // the running command's arguments
	obl            int64 // the reply being built (the client itself only)
	rbs            int64 // the reply buffer
	omem, oll      int64 // output queued beyond it, and its blocks
	multi          int64 // queued commands and watched keys (multi-mem)
	subs           int64 // channels and patterns
	tracking       int64 // tracking prefixes
}

// total is tot-mem: every part plus the client structure.
func (m clientMem) total() int64 {
	return clientBaseMem + m.qbuf + m.qbufFree + m.argv + m.obl + m.rbs + m.omem + m.multi + m.subs + m.tracking
}

// memory returns c's memory from what its goroutine published; any
// goroutine may call it. The reply being built and the running command's
// arguments are its own goroutine's (CLIENT LIST adds them for the
// client itself).
func (c *Client) memory() clientMem {
	q := c.qbuf.Load()
	omem, oll := c.queuedOutput()
	channels := int64(c.subs.counts[subChannel].Load()) + int64(c.subs.counts[subShard].Load())
	return clientMem{
		qbuf: int64(q >> 32), qbufFree: int64(uint32(q)),
		argv: c.argvMem.Load(),
		rbs:  c.rbuf.size.Load(),
		omem: int64(omem), oll: int64(oll),
		multi:    c.multiMem.Load(),
		subs:     channels*memChannel + int64(c.subs.counts[subPattern].Load())*memPattern,
		tracking: c.trkPrefixes.Load() * memPrefix,
	}
}

// publishMultiMem publishes the memory of c's transaction state (queued
// commands and their arguments, watched keys) and the tracking prefixes,
// for memory. It runs on c's goroutine.
func (c *Client) publishMultiMem() {
	var n, queued int64
	if c.tx.active {
		queued = int64(len(c.tx.queue))
		n = int64(len(c.tx.arena)) + int64(len(c.tx.argv))*memArg + queued*memQueuedCmd
	} else {
		queued = -1
	}
	n += int64(len(c.watched)) * memWatched
	if c.multiMem.Load() != n {
		c.multiMem.Store(n)
	}
	if c.multiCount.Load() != queued {
		c.multiCount.Store(queued)
	}
	if p := int64(len(c.trk.prefixes)); c.trkPrefixes.Load() != p {
		c.trkPrefixes.Store(p)
	}
}

// countsForClients reports whether c's memory counts toward
// maxmemory-clients: a connection of the normal or pub/sub class, still
// open (replicas, the master link and internal clients do not).
func (c *Client) countsForClients() bool {
	return c.conn != nil && !c.killed.Load() && !c.memGone.Load() && c.replica.Load() == nil
}

// evictable reports whether c may be evicted (Redis's
// clientEvictionAllowed): it counts, and CLIENT NO-EVICT is off.
func (c *Client) evictable() bool { return c.countsForClients() && !c.noEvict.Load() }

// recountMemory recounts c's memory into the sum and returns what it
// counts now. Any goroutine may call it: no lock is taken.
func (s *Server) recountMemory(c *Client) int64 {
	var n int64
	if c.countsForClients() {
		n = c.memory().total()
	}
	if old := c.cevMem.Swap(n); old != n {
		s.cev.sum.Add(n - old)
	}
	if n != 0 && !c.countsForClients() {
		// Closed meanwhile: whoever closed it may have taken it off
		// before this count was added.
		n = 0
		s.cev.sum.Add(-c.cevMem.Swap(0))
	}
	return n
}

// forgetMemory takes c, closed or going away, off the sum.
func (s *Server) forgetMemory(c *Client) {
	if n := c.cevMem.Swap(0); n != 0 {
		s.cev.sum.Add(-n)
	}
}

// checkClientMemory recounts c's memory and evicts clients when the sum
// passes maxmemory-clients. It runs on c's goroutine, holding no lock.
func (c *Client) checkClientMemory() {
	s := c.srv
	if s.cev.recount.Load() {
		c.publishMultiMem()
		s.evictClients(true)
		return
	}
	limit := s.clientEvictionLimit()
	if limit == 0 {
		return
	}
	c.publishMultiMem()
	s.recountMemory(c)
	if s.cev.sum.Load() >= limit && int64(monoNow()) >= s.cev.quietUntil.Load() {
		s.evictClients(false)
	}
}

// errEvicted ends the input of a client evicted as it was read.
var errEvicted = errors.New("client evicted")

// afterRead checks c's memory as its input arrives (resp.Reader's
// AfterRead), so that a client sending a big argument is evicted as its
// query buffer grows, as Redis checks after each read, not only once the
// input stops. It runs on c's goroutine.
func (c *Client) afterRead() error {
	if c.srv.clientEvictionLimit() == 0 {
		return nil
	}
	c.publishQueryBuf()
	c.checkClientMemory()
	if c.killed.Load() {
		return errEvicted
	}
	return nil
}

// requestClientEviction recounts c's memory, which another goroutine
// changed (it queued output for c), and when the sum passes
// maxmemory-clients runs a pass on a goroutine of its own: the caller may
// hold leaf locks.
func (s *Server) requestClientEviction(c *Client) {
	limit := s.clientEvictionLimit()
	if limit == 0 {
		return
	}
	s.recountMemory(c)
	if s.cev.sum.Load() < limit || int64(monoNow()) < s.cev.quietUntil.Load() {
		return
	}
	if !s.cev.pending.CompareAndSwap(false, true) {
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.cev.pending.Store(false)
		s.evictClients(false)
	}()
}

// clientEvictionCron recounts every client and evicts when over the
// limit, as Redis's clientsCron and beforeSleep.
func (s *Server) clientEvictionCron() {
	if s.clientEvictionLimit() == 0 && s.cev.sum.Load() == 0 && !s.cev.recount.Load() {
		return
	}
	s.evictClients(true)
}

// evictClients is Redis's evictClients: every client is recounted, and
// while the sum is at or over the limit the largest evictable clients
// are closed. force runs the pass even when the last one could not get
// under the limit. The caller holds no lock.
func (s *Server) evictClients(force bool) {
	ev := &s.cev
	ev.mu.Lock()
	defer ev.mu.Unlock()
	ev.recount.Store(false)
	limit := s.clientEvictionLimit()
	type candidate struct {
		c   *Client
		mem int64
	}
	var cands []candidate
	var total int64 // the clients' memory as this pass counted it
	s.mu.Lock()
	for _, c := range s.mu.clients {
		if limit == 0 {
			s.forgetMemory(c) // off: nothing is counted
			continue
		}
		n := s.recountMemory(c)
		total += n
		if n > 0 && c.evictable() {
			cands = append(cands, candidate{c, n})
		}
	}
	s.mu.Unlock()
	if limit == 0 || total < limit {
		return
	}
	if !force && int64(monoNow()) < ev.quietUntil.Load() {
		return
	}
	slices.SortFunc(cands, func(a, b candidate) int {
		switch {
		case a.mem > b.mem:
			return -1
		case a.mem < b.mem:
			return 1
		}
		return 0
	})
	// Evicted until the memory this pass counted is under the limit: a
	// client whose memory grew meanwhile (on another goroutine) runs its
	// own check, and a pass that ranks it by its new size.
	for _, x := range cands {
		if total < limit {
			return
		}
		s.evictClient(x.c)
		total -= x.mem
	}
	if total >= limit {
		now := int64(monoNow())
		ev.quietUntil.Store(now + int64(10*time.Millisecond))
		if last := ev.lastWarn.Load(); now-last >= int64(time.Second) && ev.lastWarn.CompareAndSwap(last, now) {
			s.warnf("Over client maxmemory after evicting all evictable clients")
		}
	}
}

// evictClient closes c, asynchronously, as an evicted client.
func (s *Server) evictClient(c *Client) {
	if !c.killed.CompareAndSwap(false, true) {
		return
	}
	s.forgetMemory(c)
	info := (*Client)(nil).appendClientInfo(nil, c, nil, time.Now())
	s.logf("Evicting client: %s", info)
	s.stats.evictedClients.Add(1)
	c.conn.Close()
}
