// Package evict holds what maxmemory eviction decides, apart from the
// data it decides about: the policies, the pool of best candidates that
// Redis 7.0's approximated LRU, LFU and TTL keep across samples, and the
// time an eviction pass may run. It knows nothing of databases, locks or
// connections: the server samples keys, ranks them here and evicts them.
package evict

import (
	"math"
	"time"
)

// Policy is a maxmemory-policy.
type Policy uint8

// The policies, as Redis names them.
const (
	NoEviction Policy = iota
	AllKeysLRU
	AllKeysLFU
	AllKeysRandom
	VolatileLRU
	VolatileLFU
	VolatileRandom
	VolatileTTL
)

var names = [...]string{"noeviction", "allkeys-lru", "allkeys-lfu", "allkeys-random",
	"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl"}

func (p Policy) String() string { return names[p] }

// Parse returns the policy named s (lower case), and whether there is one.
func Parse(s string) (Policy, bool) {
	for i, n := range names {
		if n == s {
			return Policy(i), true
		}
	}
	return NoEviction, false
}

// Volatile reports whether p evicts only keys with an expiry.
func (p Policy) Volatile() bool { return p >= VolatileLRU }

// LFU reports whether p ranks keys by access frequency.
func (p Policy) LFU() bool { return p == AllKeysLFU || p == VolatileLFU }

// LRU reports whether p ranks keys by idle time.
func (p Policy) LRU() bool { return p == AllKeysLRU || p == VolatileLRU }

// Random reports whether p evicts keys at random (no pool).
func (p Policy) Random() bool { return p == AllKeysRandom || p == VolatileRandom }

// Score ranks a sampled key for p: the higher, the better a victim.
// idle is its idle time (LRU), freq its decayed LFU counter (LFU), expire
// its expiry in unix ms (TTL: the sooner, the better).
func (p Policy) Score(idle int64, freq int, expire int64) uint64 {
	switch {
	case p.LFU():
		return uint64(255 - freq)
	case p == VolatileTTL:
		return math.MaxUint64 - uint64(expire)
	}
	return uint64(idle)
}

// PoolSize is Redis's EVPOOL_SIZE.
const PoolSize = 16

// Candidate is a key in the pool: its database and its score.
type Candidate struct {
	DB    int
	Key   string
	Score uint64
	// Hash, when not 0, is a hash of Key: candidates of different
	// non-zero hashes are different keys, told apart without comparing
	// the keys (a sample's pool compares each key with all 16).
	Hash uint64
}

// same reports whether a and b are the same key of the same database.
func same(a, b *Candidate) bool {
	if a.DB != b.DB || a.Hash != b.Hash && a.Hash != 0 && b.Hash != 0 {
		return false
	}
	return a.Key == b.Key
}

// Pool keeps the best candidates seen across samples, in ascending score,
// as Redis's eviction pool (evictionPoolPopulate): a sample adds a key
// when the pool has room or the key beats the worst one there. It is not
// safe for concurrent use.
//
// A candidate stays in the slot it was added to; the ranking moves only
// the slots' indices, so that an Add copies no key (a copy of a string
// costs a write barrier while the collector marks).
type Pool struct {
	c     [PoolSize]Candidate
	order [PoolSize]uint8 // slots: the first n by ascending score, then the free ones
	n     int
	init  bool
}

// Add offers a sampled key. A key already in the pool (the same database
// and name) is re-ranked with its new score.
func (p *Pool) Add(c Candidate) {
	if !p.init {
		for i := range p.order {
			p.order[i] = uint8(i)
		}
		p.init = true
	}
	for i := range p.n {
		if s := p.order[i]; same(&p.c[s], &c) {
			copy(p.order[i:p.n-1], p.order[i+1:p.n])
			p.n--
			p.order[p.n] = s
			break
		}
	}
	i := 0
	for i < p.n && p.c[p.order[i]].Score < c.Score {
		i++
	}
	if p.n == PoolSize {
		if i == 0 {
			return // worse than every candidate kept
		}
		// Drop the worst to make room, as Redis shifts left.
		s := p.order[0]
		copy(p.order[:i-1], p.order[1:i])
		p.order[i-1] = s
		p.c[s] = c
		return
	}
	s := p.order[p.n]
	copy(p.order[i+1:p.n+1], p.order[i:p.n])
	p.order[i] = s
	p.c[s] = c
	p.n++
}

// Pop removes and returns the best candidate; false when the pool is
// empty.
func (p *Pool) Pop() (Candidate, bool) {
	if p.n == 0 {
		return Candidate{}, false
	}
	p.n--
	s := p.order[p.n]
	c := p.c[s]
	p.c[s] = Candidate{}
	return c, true
}

// Len returns the number of candidates kept.
func (p *Pool) Len() int { return p.n }

// Reset empties the pool (its candidates may belong to another policy).
func (p *Pool) Reset() {
	for _, s := range p.order[:p.n] {
		p.c[s] = Candidate{}
	}
	p.n = 0
}

// TimeLimit is how long one eviction pass may run for
// maxmemory-eviction-tenacity t (0-100), as Redis's evictionTimeLimitUs:
// 50 µs per unit up to 10 (0: the pass stops after its first keys), then
// growing 15% per unit; 100 is unlimited. A pass that runs out leaves the
// rest to a background evictor.
func TimeLimit(t int) time.Duration {
	switch {
	case t <= 10:
		return time.Duration(50*t) * time.Microsecond
	case t < 100:
		return time.Duration(500*math.Pow(1.15, float64(t-10))) * time.Microsecond
	}
	return math.MaxInt64
}
