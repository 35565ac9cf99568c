package server

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/config"
	"github.com/hotkv/hotkv/evict"
	"github.com/hotkv/hotkv/keyspace"
	"github.com/hotkv/hotkv/lock"
)

// Eviction under maxmemory, as Redis 7.0's evict.c. Before a command takes
// its locks the gate runs an eviction pass when used memory is over
// maxmemory (performEvictions): keys are sampled from every database
// (maxmemory-samples each, from all keys or from those with an expiry),
// ranked by the policy into a pool of the best 16 candidates, and the best
// one is evicted, until enough memory is freed or the pass has run for
// maxmemory-eviction-tenacity's time; a background evictor then goes on
// (Redis's evictionTimeProc). A victim's tag lock is only tried, never
// waited for: a key some command holds is skipped, so eviction neither
// deadlocks with the locks nor stalls other tags. An evicted key is
// deleted as DEL would (WATCH, tracking and blocked clients see it),
// propagated as DEL (UNLINK with lazyfree-lazy-eviction) and announced
// with the `evicted` keyspace event.

// evictResult is what a pass reports (Redis's EVICT_OK, EVICT_RUNNING,
// EVICT_FAIL): under the limit; over it with the background evictor at
// work; over it with nothing left to evict (writes get OOM).
type evictResult int

const (
	evictOK evictResult = iota
	evictRunning
	evictFail
)

// evictState is the eviction's state.
type evictState struct {
	policy   atomic.Uint32 // evict.Policy
	samples  atomic.Int64  // maxmemory-samples
	tenacity atomic.Int64  // maxmemory-eviction-tenacity
	// running is set while the background evictor goroutine runs.
	running atomic.Bool
	// overSince is when memory went over the limit (monoNow ns; 0: not
	// over), and overTotal the time it was over before (ns): INFO's
	// current_ and total_eviction_exceeded_time.
	overSince, overTotal atomic.Int64 // time.Duration
	// clients and replicas are the memory of the clients' buffers, normal
	// and pub/sub ones and replicas' (the latter not counted for
	// eviction), summed by the cron (clientsMemory).
	clients, replicas atomic.Int64
	clientsAt         atomic.Int64 // monoNow of the last refreshClientsMemory
	// clientsStale is set when a client's buffers changed by more than
	// clientsStaleBytes since they were summed.
	clientsStale atomic.Bool

	// mu makes passes one at a time; it is taken holding no lock (the
	// gate runs a pass before the command's locks) and the victims' tag
	// locks are only tried under it.
	mu      sync.Mutex
	pool    evict.Pool         // under mu
	poolFor evict.Policy       // the policy the pool's scores are for
	guard   *lock.Guard        // under mu: a victim's lock
	sample  []keyspace.Sampled // under mu
	nextDB  int                // under mu: the random policies' next database
	keyBuf  []byte             // under mu: a candidate's key, to lock and look up
}

// evictHooks reads the eviction parameters and follows CONFIG SET.
func (s *Server) evictHooks(cfg *config.Config) {
	ev := &s.evict
	ev.guard = s.locks.NewGuard(rand.Uint64())
	s.access = keyspace.NewAccess()
	for _, db := range s.dbs {
		db.Access = s.access
	}
	apply := func(*config.Param) error {
		p, _ := evict.Parse(cfg.Lookup("maxmemory-policy").String())
		ev.policy.Store(uint32(p))
		ev.samples.Store(cfg.Lookup("maxmemory-samples").Int())
		ev.tenacity.Store(cfg.Lookup("maxmemory-eviction-tenacity").Int())
		s.access.SetLFU(p.LFU())
		s.access.SetLogFactor(cfg.Lookup("lfu-log-factor").Int())
		s.access.SetDecayTime(cfg.Lookup("lfu-decay-time").Int())
		return nil
	}
	apply(nil)
	for _, name := range []string{"maxmemory-policy", "maxmemory-samples",
		"maxmemory-eviction-tenacity", "lfu-log-factor", "lfu-decay-time"} {
		cfg.OnChange(name, apply)
	}
	cfg.OnChange("maxmemory", func(*config.Param) error {
		s.applyMaxmemory()
		if mm := s.maxmemory.Int(); mm > 0 {
			if used := s.usedMemory() - s.notCountedForEvict(); used > mm {
				s.warnf("WARNING: the new maxmemory value set via CONFIG SET (%d) is smaller than the current memory usage (%d). This will result in key eviction and/or the inability to accept new write commands depending on the maxmemory-policy.", mm, used)
			}
			// CONFIG SET may run holding locks (inside EXEC): the
			// evictor goes on once they are released.
			s.startEvictor()
		}
		return nil
	})
}

// policyNow returns the maxmemory-policy.
func (ev *evictState) policyNow() evict.Policy { return evict.Policy(ev.policy.Load()) }

// memoryAvailable runs an eviction pass when maxmemory is set and reports
// whether the command may use memory: false only when memory is over the
// limit and nothing can be evicted (Redis's performEvictions() ==
// EVICT_FAIL, which refuses deny-OOM commands). c is the client about to
// run a command: after a write of its own the check sees that write.
func (s *Server) memoryAvailable(c *Client) bool {
	if s.maxmemory.Uint() == 0 {
		return true
	}
	fresh := -1
	if c.memDirty {
		c.memDirty = false
		fresh = int(c.dbIndex.Load())
	}
	return s.performEvictions(fresh) != evictFail
}

// toFree returns how many bytes are over maxmemory, not counting the
// replicas' output buffers (Redis's getMaxmemoryState); 0 or less when
// within it. fresh is as usedMemoryFresh's.
func (s *Server) toFree(fresh int) int64 {
	mm := s.maxmemory.Int()
	if mm == 0 {
		return 0
	}
	return s.usedMemoryFresh(fresh) - s.notCountedForEvict() - mm
}

// notCountedForEvict is the memory maxmemory does not count: the
// replicas' output (Redis's freeMemoryGetNotCountedMemory).
func (s *Server) notCountedForEvict() int64 {
	return s.evict.replicas.Load() + s.replBufferNotCounted()
}

// safeToEvict is Redis's isSafeToPerformEvictions: not while a busy
// script runs, not on a replica with replica-ignore-maxmemory (it keeps
// its master's data), not while clients are paused (the data set stays
// still).
func (s *Server) safeToEvict() bool {
	if s.scripting.busy.Load() > 0 || s.pause.mode.Load() != pauseOff {
		return false
	}
	return !s.isReplica() || !s.cfg.Lookup("replica-ignore-maxmemory").Bool()
}

// performEvictions is one eviction pass (Redis's performEvictions); fresh
// is as usedMemoryFresh's. The caller holds no lock.
func (s *Server) performEvictions(fresh int) evictResult {
	ev := &s.evict
	if !s.safeToEvict() {
		return evictOK
	}
	if ev.clientsStale.Load() {
		s.refreshClientsMemory()
	}
	if s.toFree(fresh) <= 0 {
		return ev.metrics(evictOK)
	}
	p := ev.policyNow()
	if p == evict.NoEviction {
		return ev.metrics(s.failUnlessFreed())
	}
	ev.mu.Lock()
	defer ev.mu.Unlock()
	// Another pass may have freed what this one was to.
	tofree := s.toFree(-1)
	if tofree <= 0 {
		return ev.metrics(evictOK)
	}
	// A little more than the excess (a 1/1024 of maxmemory, at most
	// 64 KB), so that a write flood does not run a pass, and contend for
	// ev.mu, on every write. Never enough to change which keys go: those
	// are still the pool's best.
	tofree += min(s.maxmemory.Int()/1024, 64<<10)
	if ev.poolFor != p {
		ev.pool.Reset()
		ev.poolFor = p
	}
	limit := evict.TimeLimit(int(ev.tenacity.Load()))
	start := time.Now()
	lazy := s.lazyEviction.Bool()
	var freed int64
	evicted, busy := 0, false
	for freed < tofree {
		dbi, key, e, n, got := s.evictionVictim(p)
		if !got {
			busy = n > 0 // keys there, every one locked by a command
			break
		}
		freed += s.evictKey(dbi, key, e, lazy)
		s.searchSync(ev.guard)
		ev.guard.Unlock()
		evicted++
		if evicted%16 == 0 && time.Since(start) > limit {
			break
		}
	}
	switch {
	case freed >= tofree:
		return ev.metrics(evictOK)
	case evicted > 0 || busy:
		// Out of time, or only busy keys: the background evictor goes
		// on, and meanwhile commands are not refused.
		s.startEvictor()
		return ev.metrics(evictRunning)
	}
	return ev.metrics(s.failUnlessFreed())
}

// failUnlessFreed is a pass's result when nothing could be evicted:
// evictFail, unless the clients' memory, summed anew (clients that went
// away since the cron's sum), brings used memory within the limit — so
// that a stale sum does not refuse writes. It sums at most once a
// millisecond, however many writes are refused meanwhile.
func (s *Server) failUnlessFreed() evictResult {
	if s.refreshClientsMemory() && s.toFree(-1) <= 0 {
		return evictOK
	}
	return evictFail
}

// metrics records whether memory is over the limit, for INFO's
// eviction_exceeded times, and returns r.
func (ev *evictState) metrics(r evictResult) evictResult {
	if r == evictOK {
		if since := ev.overSince.Load(); since != 0 && ev.overSince.CompareAndSwap(since, 0) {
			ev.overTotal.Add(int64(monoNow()) - since)
		}
	} else if ev.overSince.Load() == 0 {
		ev.overSince.CompareAndSwap(0, int64(monoNow()))
	}
	return r
}

// exceeded returns the time memory has been over the limit now, and in
// all, in milliseconds (INFO's current_ and total_eviction_exceeded_time).
func (ev *evictState) exceeded() (current, total int64) {
	if since := ev.overSince.Load(); since != 0 {
		current = int64(monoNow()) - since
	}
	return current / 1e6, (ev.overTotal.Load() + current) / 1e6
}

// evictionVictim picks the next key to evict under policy p and locks it
// with ev.guard: its database, key and entry (nil: look it up), and true;
// or false, with n the keys it saw (0: nothing to evict). The caller holds
// ev.mu.
func (s *Server) evictionVictim(p evict.Policy) (dbi int, key string, e *keyspace.Entry, n int, ok bool) {
	ev := &s.evict
	rnd := rand.IntN
	if p.Random() {
		// A random key of each database in turn (Redis's next_db).
		for range len(s.dbs) {
			ev.nextDB = (ev.nextDB + 1) % len(s.dbs)
			if s.dbMemory(ev.nextDB) == 0 {
				continue // empty: sampling it would lock each shard
			}
			ev.sample = s.dbs[ev.nextDB].Sample(1, p.Volatile(), rnd, ev.sample[:0])
			if len(ev.sample) == 0 {
				continue
			}
			n++
			k := ev.sample[0].Key
			if ev.keyBuf = append(ev.keyBuf[:0], k...); ev.guard.TryLockKey(ev.keyBuf) {
				return ev.nextDB, k, nil, n, true
			}
		}
		return 0, "", nil, n, false
	}
	// Sample every database into the pool, then take the best candidate
	// that is still there and not busy; a few rounds at most, so that a
	// pool of busy keys does not spin.
	samples := int(ev.samples.Load())
	for range 3 {
		seen := 0
		for i, db := range s.dbs {
			if s.dbMemory(i) == 0 {
				continue
			}
			ev.sample = db.Sample(samples, p.Volatile(), rnd, ev.sample[:0])
			for _, c := range ev.sample {
				freq := 0
				if p.LFU() {
					freq = s.access.Freq(c.Access)
				}
				ev.pool.Add(evict.Candidate{DB: i, Key: c.Key, Hash: c.Hash,
					Score: p.Score(keyspace.IdleOf(c.Access), freq, c.Expire)})
			}
			seen += len(ev.sample)
		}
		n += seen
		if seen == 0 {
			return 0, "", nil, n, false
		}
		for {
			c, more := ev.pool.Pop()
			if !more {
				break
			}
			ev.keyBuf = append(ev.keyBuf[:0], c.Key...)
			if !ev.guard.TryLockKey(ev.keyBuf) {
				continue // busy: sampled again later
			}
			if e = s.dbs[c.DB].StoredEntry(ev.keyBuf); e == nil || p.Volatile() && e.Expire() == 0 {
				ev.guard.Unlock() // gone (or persisted) since it was sampled
				continue
			}
			return c.DB, c.Key, e, n, true
		}
	}
	return 0, "", nil, n, false
}

// evictKey deletes key of database dbi, whose tag ev.guard holds, as an
// eviction, and returns the memory it held; e is its entry, or nil to
// look it up.
func (s *Server) evictKey(dbi int, key string, e *keyspace.Entry, lazy bool) int64 {
	db := s.dbs[dbi]
	k := []byte(key)
	if e == nil {
		if e = db.StoredEntry(k); e == nil {
			return 0
		}
	}
	size := e.MemSize()
	if lazy {
		s.freeAsync(e)
	}
	// Nothing reads the value past this point: its buffer is recycled.
	db.Evict(k)
	s.stats.evicted.Add(1)
	s.notifyDB(dbi, evEvicted, "evicted", k)
	if s.propagating() {
		cmd := argDEL
		if lazy {
			cmd = argUNLINK
		}
		s.journal.AppendCommand(dbi, cmd, k)
	}
	s.trackingClaim(nil, s.evict.guard)
	return size
}

// startEvictor starts the background evictor unless it runs: passes, one
// after the other, while memory stays over the limit and keys can be
// evicted (Redis's evictionTimeProc).
func (s *Server) startEvictor() {
	ev := &s.evict
	if !ev.running.CompareAndSwap(false, true) {
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer ev.running.Store(false)
		for {
			select {
			case <-s.done:
				return
			default:
			}
			if s.maxmemory.Int() == 0 || !s.safeToEvict() || s.toFree(-1) <= 0 {
				ev.metrics(evictOK)
				return
			}
			evicted := s.stats.evicted.Load()
			if s.performEvictions(-1) != evictRunning {
				return
			}
			if s.stats.evicted.Load() == evicted {
				// Only busy keys: wait for their commands.
				time.Sleep(time.Millisecond)
			}
		}
	}()
}

// dbMemory returns the memory database i held at the last usedMemory.
func (s *Server) dbMemory(i int) int64 { return s.usedMem.dbs[i].Load() }

// refreshClientsMemory sums the clients' memory now rather than at the
// next cron tick (clients that went away leave at once, as in Redis),
// at most once a millisecond, and reports whether it did. Eviction calls it
// when memory is over the limit.
func (s *Server) refreshClientsMemory() bool {
	ev := &s.evict
	now := int64(monoNow())
	last := ev.clientsAt.Load()
	if now-last < int64(time.Millisecond) || !ev.clientsAt.CompareAndSwap(last, now) {
		return false
	}
	s.clientsMemory()
	s.usedMem.at.Store(0) // used_memory recomputed with it
	return true
}

// clientsStaleBytes is how much a client's query buffer may change before
// the eviction check sums the clients' memory anew rather than waiting
// for the cron.
const clientsStaleBytes = 64 << 10

// clientsMemory sums what clients hold beyond their fixed buffers (the
// cron): pending input, arguments, replies not yet taken by the socket or
// queued for it, per class (their fixed buffers count as base memory, so
// that used_memory does not move as the cron resizes them), for used_memory and
// INFO's mem_clients_normal and mem_clients_slaves.
func (s *Server) clientsMemory() {
	var normal, replicas int64
	s.evict.clientsStale.Store(false)
	s.mu.Lock()
	for _, c := range s.mu.clients {
		m := c.memory() // its parts beyond the fixed buffers
		c.qbufCounted.Store(m.qbuf)
		n := m.qbuf + m.argv + m.omem
		if c.replica.Load() != nil {
			// Without the shared replication buffer's blocks, counted
			// once, as the buffer's.
			own, _ := c.ownOutput()
			n = m.qbuf + m.argv + int64(own)
		}
		c.memCounted.Store(n)
		if c.replica.Load() != nil {
			replicas += n
		} else {
			normal += n
		}
	}
	s.mu.Unlock()
	s.evict.clients.Store(normal)
	s.evict.replicas.Store(replicas)
}

// forgetClientMemory takes what clientsMemory counted for c, which is
// going away, off used_memory at once; replica says whether c was counted
// as a replica (its replica is detached by then).
func (s *Server) forgetClientMemory(c *Client, replica bool) {
	n := c.memCounted.Swap(0)
	if n == 0 {
		return
	}
	if replica {
		s.evict.replicas.Add(-n)
	} else {
		s.evict.clients.Add(-n)
	}
	s.usedMem.at.Store(0)
}
