package server

import (
	"math"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/keyspace"
	"github.com/hotkv/hotkv/lock"
)

// Active expiry, after Redis's expire.c (activeExpireCycle, slow cycle).
//
// Every cron tick runs one cycle bounded in time to a share of the tick
// (25% at the default effort). A cycle visits the databases in turn from
// where the last one stopped; in each it samples keys with an expiry, 20 at
// a time, removing the expired ones, and keeps going while more than 10% of
// a sample had expired. HotKV's databases are split into shards: a
// database's cursor walks its shards in order, a sample takes keys from as
// many consecutive shards with volatile keys as it needs (like Redis's
// expires_cursor walking the buckets of its dict), and shards without
// volatile keys are skipped with a bit test, so a keyspace without expiring
// keys costs the cycle almost nothing.
//
// HotKV removes each key under its tag lock, taken without waiting: a key
// a client is using is left for a later cycle (or for the client's own
// access, which expires it lazily).

// Redis's ACTIVE_EXPIRE_CYCLE_* constants, for active-expire-effort 1.
const (
	expireKeysPerLoop     = 20 // keys sampled per iteration
	expireSlowTimePerc    = 25 // share of the tick a cycle may use
	expireAcceptableStale = 10 // % of expired keys in a sample to go on
	expireDBsPerCall      = 16 // CRON_DBS_PER_CALL
)

// expireState is the active expiry cycle's state. The cursors belong to the
// cron goroutine; the statistics are read by INFO.
type expireState struct {
	guard     *lock.Guard
	currentDB int   // next database to visit
	cursors   []int // per database: next shard to sample
	timeLimit bool  // the last cycle ran out of time
	cand      []string
	key       []byte

	disabled       atomic.Bool   // DEBUG SET-ACTIVE-EXPIRE 0
	stalePerc      atomic.Uint64 // float64 bits: expired_stale_perc / 100
	timeCapReached atomic.Int64  // expired_time_cap_reached_count
}

// stale returns the moving average of the share of expired keys among
// those sampled (expired_stale_perc, as a fraction).
func (e *expireState) stale() float64 { return math.Float64frombits(e.stalePerc.Load()) }

// countExpired is the databases' OnExpire hook: a key removed lazily
// counts in expired_keys as much as one the cycle removes.
func (s *Server) countExpired(string) { s.stats.expiredKeys.Add(1) }

// expireEffort returns Redis's tunables scaled by active-expire-effort
// (1-10): keys per sample, percentage of the tick, acceptable stale %.
func (s *Server) expireEffort() (keysPerLoop, timePerc, acceptable int) {
	effort := 0
	if p := s.cfg.Lookup("active-expire-effort"); p != nil {
		effort = int(min(max(p.Int(), 1), 10)) - 1
	}
	return expireKeysPerLoop + expireKeysPerLoop/4*effort,
		expireSlowTimePerc + 2*effort,
		expireAcceptableStale - effort
}

// activeExpireCycle runs one slow expiry cycle for a cron running at hz.
func (s *Server) activeExpireCycle(hz int) {
	st := &s.expire
	if st.disabled.Load() || s.pause.mode.Load() != pauseOff {
		// While clients are paused the dataset stays still (pause.go).
		return
	}
	if s.isReplica() {
		// A replica's keys expire when its master says so, but for
		// those its own clients gave an expiry (a writable replica).
		s.expireReplicaKeys()
		return
	}
	start := time.Now()
	keysPerLoop, timePerc, acceptable := s.expireEffort()
	timeLimit := time.Duration(timePerc) * time.Second / time.Duration(hz) / 100
	if timeLimit <= 0 {
		timeLimit = time.Microsecond
	}
	if st.guard == nil {
		st.guard = s.locks.NewGuard(rand.Uint64())
		st.cursors = make([]int, len(s.dbs))
	}
	dbsPerCall := min(expireDBsPerCall, len(s.dbs))
	if st.timeLimit {
		// The last cycle was cut short: give every database a chance.
		dbsPerCall = len(s.dbs)
	}
	st.timeLimit = false
	var totalSampled, totalExpired, iteration int
	for j := 0; j < dbsPerCall && !st.timeLimit; j++ {
		dbi := st.currentDB % len(s.dbs)
		st.currentDB++
		for {
			iteration++
			sampled, expired := s.expireSample(dbi, &st.cursors[dbi], keysPerLoop)
			if sampled == 0 {
				break // no keys with an expiry in this database
			}
			totalSampled += sampled
			totalExpired += expired
			// Like Redis, look at the clock every 16 iterations.
			if iteration&0xf == 0 && time.Since(start) > timeLimit {
				st.timeLimit = true
				st.timeCapReached.Add(1)
				break
			}
			if expired*100/sampled <= acceptable {
				break
			}
		}
	}
	elapsed := time.Since(start)
	s.stats.expireCycleCPUMicros.Add(elapsed.Microseconds())
	s.latencySample("expire-cycle", elapsed)
	cur := 0.0
	if totalSampled > 0 {
		cur = float64(totalExpired) / float64(totalSampled)
	}
	st.stalePerc.Store(math.Float64bits(cur*0.05 + st.stale()*0.95))
}

// expireSample samples up to n keys with an expiry in db, walking its
// shards from *cursor (at most one lap), and removes the expired ones. It
// returns how many keys it looked at and how many it removed (each
// propagated as a DEL).
func (s *Server) expireSample(dbi int, cursor *int, n int) (sampled, expired int) {
	st := &s.expire
	db := s.dbs[dbi]
	si := *cursor
	for walked := 0; sampled < n && walked < keyspace.NumShards; {
		next := db.NextVolatileShard(si)
		if next < 0 {
			// Nothing up to the last shard: wrap around.
			walked += keyspace.NumShards - si
			si = 0
			continue
		}
		walked += next - si + 1
		if walked > keyspace.NumShards {
			break // back where this sample started
		}
		var got int
		st.cand, got = db.SampleExpired(next, n-sampled, st.cand[:0])
		sampled += got
		for _, k := range st.cand {
			st.key = append(st.key[:0], k...)
			if !st.guard.TryLockKey(st.key) {
				continue // busy: expires on access or in a later cycle
			}
			if db.DeleteExpired(st.key) {
				expired++
				s.propagateDel(dbi, string(st.key))
				s.notifyDB(dbi, evExpired, "expired", st.key)
				s.trackingClaim(nil, st.guard)
				s.searchSync(st.guard)
			}
			st.guard.Unlock()
		}
		si = (next + 1) % keyspace.NumShards
	}
	*cursor = si
	if expired > 0 {
		s.stats.expiredKeys.Add(int64(expired))
	}
	return sampled, expired
}
