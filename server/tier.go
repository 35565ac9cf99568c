package server

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/config"
	"github.com/hotkv/hotkv/hash"
	"github.com/hotkv/hotkv/keyspace"
	"github.com/hotkv/hotkv/latency"
	"github.com/hotkv/hotkv/list"
	"github.com/hotkv/hotkv/lock"
	"github.com/hotkv/hotkv/rdb"
	"github.com/hotkv/hotkv/set"
	"github.com/hotkv/hotkv/tier"
	"github.com/hotkv/hotkv/zset"
)

// The disk tier (directives tiering, tiering-dir, tiering-memory): values
// that go idle move to a tier.Store on disk while their keys, kinds,
// expiries and access words stay in memory (keyspace/cold.go).
//
//   - Demotion: a background goroutine (demoter) runs while the bytes the
//     values in memory hold beyond their entries (keyspace.DB.ValuesMem)
//     exceed the budget. It samples keys as eviction
//     does, takes the idlest (or, under LFU, least used), try-locks each
//     one's tag exclusively (a busy tag is skipped: it never waits while
//     holding anything), encodes the value in its RDB form and writes it
//     to the tier, then swaps the value for the record's reference.
//   - Loads: a value a command needs is read back under its key's tag
//     lock (keyspace's Get and Peek call tierState.Load: counted as
//     tiering_loads_under_lock), unless it was loaded before the locks
//     were taken (tierprep.go).
//   - Frees: a cold value deleted, overwritten or expired has its record
//     deleted by the demoter's goroutine (Free queues it).
//   - Snapshots read cold values' records straight into the RDB (a
//     background one through a consistent tier.View taken when it
//     starts), without loading them.
//
// Values whose memory outside their entry is under tierMinValue stay in
// memory always: an inline string (up to about 200 bytes with its key)
// lives in the entry's own allocation and frees nothing when it moves,
// and a small collection frees less than the reference (about 40 bytes)
// and the disk read it would cost.
const tierMinValue = 64

// Turning tiering on at run time (CONFIG SET tiering yes, under the
// exclusive global lock) opens the store if it is not open yet and starts
// the demoter; turning it off loads every cold value back into memory,
// still under that lock, and leaves the store open but idle: a read that
// a parked command started before the change (tierprep.go) may still be
// on its way, and the store is closed only at shutdown.

// tierState is the server's disk tier; store is nil until tiering is first
// turned on, on says whether it is.
type tierState struct {
	store *tier.Store
	on    atomic.Bool
	// demoting is set once the demoter's goroutine runs (it runs from
	// then to shutdown, idle while tiering is off).
	demoting atomic.Bool
	budget   *config.Param // tiering-memory
	codec    *Client       // builds values from their RDB form (configuration only)

	// freeMu guards frees, the records to delete (a leaf: taken by
	// Free under keyspace shard mutexes, and by the demoter).
	freeMu sync.Mutex
	frees  []tierFree

	wake chan struct{} // nudges the demoter

	// eager (tests): after each command, its keys' values are demoted at
	// once, so that nearly every value is cold between commands; the
	// small values too (minValue 0).
	eager    bool
	minValue int64 // tierMinValue, or 0 (tests)
	sysMem   int64 // the machine's memory, read once

	loads, loadsUnderLock, loadNs, lockedLoadNs atomic.Int64
	demotions, writeErrors, readErrors          atomic.Int64
	loadHist                                    latency.Histogram
}

type tierFree struct {
	id   uint64
	size int64
}

// openTier opens the tier when tiering is on (New calls it); an error
// refuses start-up (CheckStartup, LoadData).
func (s *Server) openTier(cfg *config.Config) error {
	t := &s.tier
	t.budget = cfg.Lookup("tiering-memory")
	t.wake = make(chan struct{}, 1)
	cfg.OnChange("tiering", func(p *config.Param) error { return s.setTiering(p.Bool()) })
	cfg.OnChange("tiering-dir", func(*config.Param) error {
		if t.store != nil {
			return errors.New(errTieringDirOpen)
		}
		return nil
	})
	// A smaller budget starts moving values at once, not at the next tick.
	cfg.OnChange("tiering-memory", func(*config.Param) error { t.nudge(); return nil })
	if !cfg.Lookup("tiering").Bool() {
		return nil
	}
	if err := s.openTierStore(); err != nil {
		return err
	}
	t.on.Store(true)
	return nil
}

// openTierStore opens the store in tiering-dir and makes it the
// databases' tier.
func (s *Server) openTierStore() error {
	t := &s.tier
	cfg := s.cfg
	dir := cfg.Lookup("tiering-dir").String()
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(cfg.Lookup("dir").String(), dir)
	}
	st, err := tier.Open(tier.Options{Dir: dir})
	if err != nil {
		return fmt.Errorf(errTieringDir, dir, err)
	}
	t.store = st
	t.minValue = tierMinValue
	t.sysMem = totalSystemMemory()
	t.codec = s.newInternalClient(engineClient, 0, 0)
	for _, db := range s.dbs {
		db.Tier = t
	}
	return nil
}

// tiering reports whether the disk tier is on.
func (s *Server) tiering() bool { return s.tier.on.Load() }

// startDemoter starts the demoter's goroutine, once.
func (s *Server) startDemoter() {
	if s.tier.demoting.CompareAndSwap(false, true) {
		s.wg.Add(1)
		go s.demoter()
	}
}

// setTiering turns the disk tier on or off at run time (CONFIG SET
// tiering). The caller holds the global lock exclusively. Turning it off
// loads every cold value back first: it is refused when they would not
// fit under maxmemory, and a value that cannot be read leaves the tier on
// (with the error).
func (s *Server) setTiering(on bool) error {
	t := &s.tier
	if on == t.on.Load() {
		return nil
	}
	if on {
		if t.store == nil {
			if err := s.openTierStore(); err != nil {
				return err
			}
		}
		t.on.Store(true)
		s.startDemoter()
		t.nudge()
		return nil
	}
	var coldMem int64
	for _, db := range s.dbs {
		_, m := db.ColdStats()
		coldMem += m
	}
	if max := s.maxmemory.Int(); max > 0 && s.usedMemory()+coldMem > max {
		return errors.New(errTieringOffMemory)
	}
	t.on.Store(false) // the demoter stops (it checks under each tag lock)
	for _, db := range s.dbs {
		if err := loadAllCold(db); err != nil {
			t.on.Store(true)
			return err
		}
	}
	return nil
}

// loadAllCold loads every cold value of db into memory. The caller holds
// the global lock exclusively.
func loadAllCold(db *keyspace.DB) (err error) {
	var cold []string
	db.ForEachStored(func(key string, e *keyspace.Entry) bool {
		if e.IsCold() {
			cold = append(cold, key)
		}
		return true
	})
	defer func() {
		if r := recover(); r != nil {
			le, ok := r.(*keyspace.LoadError)
			if !ok {
				panic(r)
			}
			err = le
		}
	}()
	for _, k := range cold {
		if e := db.StoredEntry([]byte(k)); e != nil {
			db.Load(e)
		}
	}
	return nil
}

// budgetBytes is the memory the dataset may hold before values move to
// disk: tiering-memory, or, when 0, three quarters of maxmemory (so that
// values move to disk before eviction starts deleting keys), or, with no
// maxmemory either, three quarters of the machine's memory.
func (t *tierState) budgetBytes(maxmemory int64) int64 {
	if b := t.budget.Int(); b > 0 {
		return b
	}
	if maxmemory > 0 {
		return maxmemory / 4 * 3
	}
	if t.sysMem > 0 {
		return t.sysMem / 4 * 3
	}
	return 1 << 62
}

// Load reads a cold value under its key's tag lock (keyspace.Tier).
func (t *tierState) Load(k keyspace.Kind, id uint64) ([]byte, any, error) {
	start := time.Now()
	str, obj, err := t.read(k, id)
	d := time.Since(start).Nanoseconds()
	t.loadsUnderLock.Add(1)
	t.lockedLoadNs.Add(d)
	t.counted(d)
	return str, obj, err
}

// counted counts a load that took d nanoseconds.
func (t *tierState) counted(d int64) {
	t.loads.Add(1)
	t.loadNs.Add(d)
	t.loadHist.Record(d)
}

// read reads record id and decodes it as a value of kind k.
func (t *tierState) read(k keyspace.Kind, id uint64) ([]byte, any, error) {
	p, err := t.store.Get(id)
	if err != nil {
		t.readErrors.Add(1)
		return nil, nil, err
	}
	return t.decode(k, p)
}

// A record is a header, then the value's RDB encoding (what DUMP carries
// before its footer), which snapshots copy as it is. The header keeps
// what the RDB form loses and a reply can show:
//
//	flags byte: hintBig, hintList
//	hintList:   uvarint list-compress-depth, varint list-max-listpack-size (the list's own),
//	            uvarint node count, uvarint entries per node (its layout)
//
// A collection converted to its big encoding (a hash or set table, a
// skiplist) stays so when it shrinks, as in Redis, and comes back from
// disk so; a list keeps the compression depth and node fill it was made
// with (CONFIG SET changes them for new lists only).
const (
	hintBig = 1 << iota
	hintList
)

// appendHeader appends e's record header to dst.
func appendHeader(dst []byte, e *keyspace.Entry) []byte {
	switch o := e.Obj.(type) {
	case *hash.Hash:
		if !o.IsSmall() {
			return append(dst, hintBig)
		}
	case *set.Set:
		if !o.IsIntset() {
			return append(dst, hintBig)
		}
	case *zset.ZSet:
		if !o.Small() {
			return append(dst, hintBig)
		}
	case *list.List:
		dst = append(dst, hintList)
		dst = binary.AppendUvarint(dst, uint64(o.CompressDepth()))
		dst = binary.AppendVarint(dst, int64(o.Fill()))
		lens := o.NodeLens(nil)
		dst = binary.AppendUvarint(dst, uint64(len(lens)))
		for _, n := range lens {
			dst = binary.AppendUvarint(dst, uint64(n))
		}
		return dst
	}
	return append(dst, 0)
}

// recordHeader is a record's header, parsed.
type recordHeader struct {
	flags       byte
	depth, fill int
	nodes       []int // a list's entries per node (list.List.NodeLens)
}

// splitRecord parses a record's header and returns it with the RDB
// encoding after it.
func splitRecord(p []byte) (recordHeader, []byte, error) {
	bad := errors.New("tier: a record with a malformed header")
	if len(p) < 2 {
		return recordHeader{}, nil, bad
	}
	h := recordHeader{flags: p[0]}
	p = p[1:]
	if h.flags&hintList != 0 {
		d, n := binary.Uvarint(p)
		if n <= 0 || d > 1<<31-1 {
			return h, nil, bad
		}
		p = p[n:]
		f, n := binary.Varint(p)
		if n <= 0 || f < -5 || f > 1<<31-1 {
			return h, nil, bad
		}
		p = p[n:]
		h.depth, h.fill = int(d), int(f)
		nodes, n := binary.Uvarint(p)
		if n <= 0 || nodes > uint64(len(p)) {
			return h, nil, bad
		}
		p = p[n:]
		h.nodes = make([]int, nodes)
		for i := range h.nodes {
			c, n := binary.Uvarint(p)
			if n <= 0 || c == 0 || c > 1<<31-1 {
				return h, nil, bad
			}
			p = p[n:]
			h.nodes[i] = int(c)
		}
	}
	if len(p) == 0 {
		return h, nil, bad
	}
	return h, p, nil
}

// build makes a collection from its record's value in the encoding it had
// when it moved to disk, whatever the encoding thresholds say now: a
// hash kept as a listpack past hash-max-listpack-value (HINCRBYFLOAT's
// long results, as Redis keeps them) stays one.
func (t *tierState) build(v *rdb.Value, h recordHeader) (keyspace.Kind, any) {
	const unlimited = 1<<31 - 1
	big := h.flags&hintBig != 0
	switch v.Kind {
	case rdb.KindHash:
		hs := hash.New()
		if big {
			hs.Convert()
		}
		for _, p := range v.Pairs {
			hs.Set(p[0], p[1], hash.Limits{MaxEntries: unlimited, MaxValue: unlimited})
		}
		return keyspace.KindHash, hs
	case rdb.KindSet:
		var s *set.Set
		if big {
			s = set.NewHashtable(len(v.Items))
		}
		for _, m := range v.Items {
			if s == nil {
				s = set.NewFor(m)
			}
			s.Add(m, unlimited)
		}
		return keyspace.KindSet, s
	case rdb.KindZSet:
		z := zset.New(!big)
		for _, m := range v.ZSet {
			z.Add(m.Member, m.Score, 0, unlimited, unlimited)
		}
		return keyspace.KindZSet, z
	case rdb.KindList:
		if h.flags&hintList != 0 {
			l := list.NewCompressed(h.fill, h.depth)
			next, nodes := 0, h.nodes // the node layout it had
			for i, x := range v.Items {
				if i == next && len(nodes) > 0 {
					l.PushBackNode(x)
					next, nodes = next+nodes[0], nodes[1:]
				} else {
					l.PushBack(x)
				}
			}
			return keyspace.KindList, l
		}
	}
	return t.codec.valueObject(v)
}

// recordRDB is the RDB encoding in a record.
func recordRDB(p []byte) ([]byte, error) {
	_, enc, err := splitRecord(p)
	return enc, err
}

// decode builds a value of kind k from its record p (a string keeps its
// bytes).
func (t *tierState) decode(k keyspace.Kind, p []byte) ([]byte, any, error) {
	h, enc, err := splitRecord(p)
	if err != nil {
		t.readErrors.Add(1)
		return nil, nil, err
	}
	v, err := rdb.DecodeEncoded(enc)
	if err != nil {
		t.readErrors.Add(1)
		return nil, nil, err
	}
	if k == keyspace.KindString {
		if v.Kind != rdb.KindString {
			return nil, nil, errors.New("tier: a string's record holds another kind")
		}
		return v.Str, nil, nil
	}
	vk, obj := t.build(v, h)
	if vk != k {
		return nil, nil, fmt.Errorf("tier: a %v's record holds a %v", k, vk)
	}
	return nil, obj, nil
}

// Free queues record id for deletion (keyspace.Tier): called under a
// shard mutex, it only appends.
func (t *tierState) Free(id uint64, size int64) {
	t.freeMu.Lock()
	t.frees = append(t.frees, tierFree{id, size})
	n := len(t.frees)
	t.freeMu.Unlock()
	if n == 1 {
		t.nudge()
	}
}

// nudge wakes the demoter.
func (t *tierState) nudge() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// drainFrees deletes the queued records.
func (t *tierState) drainFrees() {
	t.freeMu.Lock()
	fs := t.frees
	t.frees = nil
	t.freeMu.Unlock()
	for _, f := range fs {
		if t.store.Delete(f.id, f.size) != nil {
			t.writeErrors.Add(1) // the record stays: the disk keeps some garbage
		}
	}
}

// valuesMem is what the databases' values hold in memory beyond their
// entries (keyspace.DB.ValuesMem): what tiering-memory bounds. Keys, their
// metadata and inline values stay in memory whatever the budget, so
// counting them against it would push every value out once the keys alone
// filled it, hot ones included.
func (s *Server) valuesMem() int64 {
	var n int64
	for _, db := range s.dbs {
		n += db.ValuesMem()
	}
	return n
}

// demoter moves values to disk while the dataset is over its budget, and
// deletes freed records. It runs from Serve until shutdown.
func (s *Server) demoter() {
	defer s.wg.Done()
	t := &s.tier
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	g := s.locks.NewGuard(rand.Uint64())
	var scratch demoteScratch
	for {
		select {
		case <-s.done:
			t.drainFrees()
			return
		case <-tick.C:
		case <-t.wake:
		}
		t.drainFrees()
		if s.loading() || !s.tiering() {
			continue // the load spills (tierSpill, the AOF replay's demoteToBudget)
		}
		s.demoteToBudget(g, &scratch, s.done)
	}
}

// demoteToBudget moves values to disk until the dataset fits the budget,
// ten passes in a row find nothing movable, the disk refuses (the next
// try is the demoter's next tick) or stop closes. g takes each victim's
// tag lock, skipping busy tags; nil says that the caller holds the global
// lock exclusively (the append-only file's replay).
func (s *Server) demoteToBudget(g *lock.Guard, sc *demoteScratch, stop <-chan struct{}) {
	budget := s.tier.budgetBytes(s.maxmemory.Int())
	for misses := 0; s.valuesMem() > budget && misses < 10; {
		n, err := s.demotePass(g, sc)
		if err != nil {
			return
		}
		if n == 0 {
			misses++ // nothing movable in the sample
		}
		select {
		case <-stop:
			return
		default:
		}
	}
}

// demoteScratch is the demoter's reused buffers.
type demoteScratch struct {
	sample []keyspace.Sampled
	key    []byte
}

// demoteSamples is how many keys a pass looks at per database.
const demoteSamples = 16

// demotePass samples each database and demotes the idlest movable values
// of the sample; it returns how many it demoted.
func (s *Server) demotePass(g *lock.Guard, sc *demoteScratch) (int, error) {
	lfu := s.access.LFU()
	n := 0
	for i, db := range s.dbs {
		if db.Mem() == 0 {
			continue // empty (Len would take every shard's mutex)
		}
		sc.sample = db.Sample(demoteSamples, false, rand.IntN, sc.sample[:0])
		score := func(c keyspace.Sampled) int64 {
			if lfu {
				return -int64(s.access.Freq(c.Access))
			}
			return keyspace.IdleOf(c.Access)
		}
		slices.SortFunc(sc.sample, func(a, b keyspace.Sampled) int {
			return int(score(b) - score(a)) // the idlest first
		})
		for _, c := range sc.sample {
			if keyspace.ColdAccess(c.Access) {
				continue // cold already
			}
			sc.key = append(sc.key[:0], c.Key...)
			ok, err := s.demoteKey(g, i, sc.key)
			if err != nil {
				return n, err
			}
			if ok {
				n++
			}
		}
	}
	return n, nil
}

// demoteKey moves key's value in database dbi to disk if its tag is free
// and the value is worth it; it holds the tag exclusively meanwhile (g
// nil: the caller holds the global lock).
func (s *Server) demoteKey(g *lock.Guard, dbi int, key []byte) (bool, error) {
	if g != nil {
		if !g.TryLockKey(key) {
			return false, nil // busy: sampled again later
		}
		defer g.Unlock()
	}
	db := s.dbs[dbi]
	e := db.StoredEntry(key)
	if !s.tiering() || e == nil || e.IsCold() || e.ValueMem() < s.tier.minValue || db.IsExpired(e.Expire()) {
		return false, nil // off: changed under the exclusive global lock, so not while this tag is held
	}
	if s.searchIndexed(dbi, key) {
		return false, nil // a search index reads it without its lock (searchHash)
	}
	return s.demoteEntry(db, e)
}

// demoteEntry writes e's value to the tier and makes e cold. The caller
// holds e's tag lock exclusively.
func (s *Server) demoteEntry(db *keyspace.DB, e *keyspace.Entry) (bool, error) {
	t := &s.tier
	v := entryValue(e)
	if v == nil {
		return false, nil
	}
	db.CaptureEntry(e) // a running snapshot copies the value first
	p := rdb.EncodeValue(appendHeader(make([]byte, 0, 64), e), v, t.codec.encodeOptions())
	id := t.store.NextID()
	if err := t.store.Put(id, p); err != nil {
		t.writeErrors.Add(1)
		return false, err
	}
	db.Demote(e, id, int64(len(p)), int64(freeEffort(e)))
	t.demotions.Add(1)
	return true, nil
}

// demoteNow demotes the values of keys in db at once (tests' eager
// mode: a command's own keys, right after it; the demoter moves the
// rest), skipping busy tags. It runs on the command's client's loop.
func (s *Server) demoteNow(db int, keys [][]byte) {
	if len(keys) == 0 {
		return
	}
	g := s.locks.NewGuard(rand.Uint64())
	for _, k := range keys {
		s.demoteKey(g, db, k)
	}
}

// closeTier closes the store once nothing runs (shutdown).
func (s *Server) closeTier() {
	if t := &s.tier; t.store != nil {
		t.drainFrees()
		t.store.Close()
	}
}

// snapColdPayload is coldPayload through snap's view of the tier (the
// store itself for a live snapshot).
func (s *Server) snapColdPayload(snap *snapshot, id uint64) ([]byte, error) {
	var view *tier.View
	if snap.view != nil {
		view = snap.view.v
	}
	return s.coldPayload(view, id)
}

// coldPayload returns a cold entry's RDB encoding as a snapshot writes
// it: from view when given (a background snapshot), else from the live
// store (the caller holds the global lock exclusively).
func (s *Server) coldPayload(view *tier.View, id uint64) ([]byte, error) {
	var p []byte
	var err error
	if view != nil {
		p, err = view.Get(id)
	} else {
		p, err = s.tier.store.Get(id)
	}
	if err != nil {
		return nil, err
	}
	return recordRDB(p)
}

// infoTiering is INFO's tiering section.
func (s *Server) infoTiering(b []byte) []byte {
	t := &s.tier
	on := 0
	if s.tiering() {
		on = 1
	}
	var keys, cold, coldMem int64
	for _, db := range s.dbs {
		keys += int64(db.Len())
		n, m := db.ColdStats()
		cold += n
		coldMem += m
	}
	var st tier.Stats
	if t.store != nil {
		st = t.store.Stats()
	}
	b = fmt.Appendf(b, "tiering_enabled:%d\r\n", on)
	b = fmt.Appendf(b, "tiering_memory_budget:%d\r\n", t.budgetOrZero(s))
	b = fmt.Appendf(b, "tiering_values_in_memory:%d\r\n", keys-cold)
	b = fmt.Appendf(b, "tiering_values_on_disk:%d\r\n", cold)
	b = fmt.Appendf(b, "tiering_bytes_in_memory:%d\r\n", s.valuesMem())
	b = fmt.Appendf(b, "tiering_bytes_on_disk:%d\r\n", st.Bytes)
	b = fmt.Appendf(b, "tiering_bytes_moved_from_memory:%d\r\n", coldMem)
	b = fmt.Appendf(b, "tiering_loads:%d\r\n", t.loads.Load())
	b = fmt.Appendf(b, "tiering_loads_under_lock:%d\r\n", t.loadsUnderLock.Load())
	b = fmt.Appendf(b, "tiering_load_usec:%d\r\n", t.loadNs.Load()/1000)
	b = fmt.Appendf(b, "tiering_load_usec_under_lock:%d\r\n", t.lockedLoadNs.Load()/1000)
	b = fmt.Appendf(b, "tiering_load_p99_usec:%.3f\r\n", float64(t.loadHist.ValueAtPercentile(99))/1000)
	b = fmt.Appendf(b, "tiering_demotions:%d\r\n", t.demotions.Load())
	b = fmt.Appendf(b, "tiering_read_errors:%d\r\n", t.readErrors.Load())
	b = fmt.Appendf(b, "tiering_write_errors:%d\r\n", t.writeErrors.Load())
	b = fmt.Appendf(b, "tiering_disk_usage:%d\r\n", st.DiskUsage)
	b = fmt.Appendf(b, "tiering_pebble_compactions:%d\r\n", st.Compactions)
	b = fmt.Appendf(b, "tiering_pebble_compactions_in_progress:%d\r\n", st.CompactionsNow)
	b = fmt.Appendf(b, "tiering_pebble_compaction_debt:%d\r\n", st.CompactionDebt)
	b = fmt.Appendf(b, "tiering_pebble_flushes:%d\r\n", st.Flushes)
	b = fmt.Appendf(b, "tiering_pebble_sstables:%d\r\n", st.SSTables)
	b = fmt.Appendf(b, "tiering_pebble_read_amplification:%d\r\n", st.ReadAmplification)
	b = fmt.Appendf(b, "tiering_pebble_memtable_bytes:%d\r\n", st.MemtableSize)
	b = fmt.Appendf(b, "tiering_pebble_cache_bytes:%d\r\n", st.CacheSize)
	b = fmt.Appendf(b, "tiering_pebble_cache_hits:%d\r\n", st.CacheHits)
	b = fmt.Appendf(b, "tiering_pebble_cache_misses:%d\r\n", st.CacheMisses)
	return b
}

// budgetOrZero is the budget INFO reports: 0 with tiering off.
func (t *tierState) budgetOrZero(s *Server) int64 {
	if !t.on.Load() {
		return 0
	}
	return t.budgetBytes(s.maxmemory.Int())
}

// setEagerTiering turns the tests' eager demotion on (before serving):
// every value a command touched moves to disk right after it, whatever
// its size.
func (s *Server) setEagerTiering(on bool) {
	if on && s.tiering() {
		s.tier.eager, s.tier.minValue = true, 0
	}
}

// tierSpill moves values to disk as a snapshot loads, when the dataset
// is over the tier's budget, so that a dataset larger than memory can be
// loaded (the loader holds the global lock exclusively: the demoter
// cannot run meanwhile).
type tierSpill struct {
	s    *Server
	n    int
	over bool
}

// loaded is called with each entry a load stored in db.
func (sp *tierSpill) loaded(db *keyspace.DB, e *keyspace.Entry) {
	s := sp.s
	if !s.tiering() || db.Tier == nil {
		return
	}
	if sp.n%256 == 0 {
		// Summing the databases' memory costs a thousand atomic loads:
		// checked every 256 keys.
		sp.over = s.valuesMem() > s.tier.budgetBytes(s.maxmemory.Int())
	}
	sp.n++
	if sp.over && e.ValueMem() >= s.tier.minValue && !(db == s.dbs[0] && s.searchIndexed(0, []byte(e.Key()))) {
		s.demoteEntry(db, e) // a failed write leaves the value in memory
	}
}
