package server

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/hotkv/hotkv/config"
	"github.com/hotkv/hotkv/keyspace"
	"github.com/hotkv/hotkv/rdb"
)

// A load's keys are stored by a keyInserter. The goroutine that reads the
// file (and decodes its values) calls insert for each key in file order;
// the first parallelLoadAfter keys it stores itself, and from there, on a
// machine with more than one core, it hands them in batches to insert
// workers, one per core (at most maxLoadWorkers), each of which builds the
// values of the keys of its own keyspace shards (keyspace.ShardOf) and
// stores them. The writes to one key are thus made by one goroutine in
// file order (a key the file has twice ends with its last value), two
// workers never contend for a shard lock, and a shard's table is filled in
// the same order as by one goroutine. wait is the barrier: it returns once
// every key handed out is stored (before what needs all the keys: the
// suggestion dictionaries, the end of the load).
//
// A load stores its keys in line, without workers, when it must see each
// key stored before it reads the next: under key-load-delay (a testing
// aid that paces the load), with the disk tier (its spills follow the
// dataset's size key by key), and when a duplicate key is an error (DEBUG
// RELOAD NOFLUSH).

const (
	// parallelLoadAfter is the number of keys a load stores in line before
	// it starts workers: a small file pays for no goroutine.
	parallelLoadAfter = 8192
	// loadBatch is the number of keys handed to a worker at once.
	loadBatch = 512
	// maxLoadWorkers bounds the workers (the reader must keep up).
	maxLoadWorkers = 8
)

// parallelLoads counts the loads that started insert workers (the tests
// read it).
var parallelLoads atomic.Int64

// loadedKey is a key of a load on its way to a worker.
type loadedKey struct {
	db     *keyspace.DB
	key    []byte
	str    []byte     // a string's value (v is nil): the read buffer's
	v      *rdb.Value // a collection's
	expire int64      // unix ms, or -1
	idle   int64
	freq   int
}

// keyInserter stores the keys of one load; its methods are called by the
// load's goroutine only.
type keyInserter struct {
	s          *Server
	ec         *Client // builds values for the keys stored in line
	spill      *tierSpill
	inline     bool // never start workers
	stored     int  // keys stored in line
	delay      *loadDelay
	delayParam *config.Param // key-load-delay, read at each key

	workers []*insertWorker // nil when none runs
	free    chan []loadedKey
	wg      sync.WaitGroup
}

// insertWorker is one worker's queue and the batch being filled for it.
type insertWorker struct {
	in    chan []loadedKey
	batch []loadedKey
	ec    *Client
	// panicked is what the worker's goroutine panicked with (a value that
	// does not build), raised again by wait on the load's goroutine.
	panicked any
}

func (s *Server) newKeyInserter(inline bool) *keyInserter {
	return &keyInserter{
		s:          s,
		ec:         s.newInternalClient(engineClient, 0, 0),
		spill:      &tierSpill{s: s},
		inline:     inline || runtime.GOMAXPROCS(0) < 2,
		delay:      &loadDelay{},
		delayParam: s.cfg.Lookup("key-load-delay"),
	}
}

// insert stores key, read from the file for db, with its value (v, or a
// string's bytes str that insert may keep: they are never written again),
// expiration (unix ms or -1), idle time and LFU counter (-1: none).
func (k *keyInserter) insert(db *keyspace.DB, key []byte, v *rdb.Value, expire, idle int64, freq int) {
	if us := k.delayParam.Int(); us != 0 {
		k.wait() // paced: each key is stored before the next is read
		k.store(k.ec, k.spill, db, key, v.Str, v, expire, idle, freq)
		k.delay.key(us)
		return
	}
	if k.workers == nil {
		if k.inline || k.stored < parallelLoadAfter || k.s.tiering() {
			k.stored++
			k.store(k.ec, k.spill, db, key, v.Str, v, expire, idle, freq)
			return
		}
		k.start()
	}
	lk := loadedKey{db: db, key: key, v: v, expire: expire, idle: idle, freq: freq}
	if v.Kind == rdb.KindString {
		lk.str, lk.v = v.Str, nil // v may be the reader's shared Value
	}
	w := k.workers[keyspace.ShardOf(key)%len(k.workers)]
	if w.batch = append(w.batch, lk); len(w.batch) == loadBatch {
		w.in <- w.batch
		w.batch = k.newBatch()
	}
}

// store stores one key on the calling goroutine, building its value with
// ec; str is a string's value when v is nil or a string. spill, nil for a
// worker (none runs with the disk tier), spills values to the tier.
func (k *keyInserter) store(ec *Client, spill *tierSpill, db *keyspace.DB, key, str []byte, v *rdb.Value, expire, idle int64, freq int) {
	at := max(expire, 0) // SetExpire's 0: none
	var e *keyspace.Entry
	if v == nil || v.Kind == rdb.KindString {
		e = db.InsertString(key, str, at)
	} else {
		ec.db = db
		e = db.Insert(key, ec.valueEntry(key, v), at)
	}
	db.SetAccess(e, idle, freq)
	if spill != nil {
		spill.loaded(db, e)
	}
}

func (k *keyInserter) newBatch() []loadedKey {
	select {
	case b := <-k.free:
		return b
	default:
		return make([]loadedKey, 0, loadBatch)
	}
}

// start starts the workers.
func (k *keyInserter) start() {
	n := min(runtime.GOMAXPROCS(0), maxLoadWorkers)
	parallelLoads.Add(1)
	k.workers = make([]*insertWorker, n)
	if k.free == nil {
		k.free = make(chan []loadedKey, 4*n)
	}
	for i := range k.workers {
		// One client each: valueEntry sets its database.
		w := &insertWorker{in: make(chan []loadedKey, 4), ec: k.s.newInternalClient(engineClient, 0, 0)}
		w.batch = k.newBatch()
		k.workers[i] = w
		k.wg.Add(1)
		go k.run(w)
	}
}

// run is a worker's goroutine: it stores the keys of each batch in order.
func (k *keyInserter) run(w *insertWorker) {
	defer k.wg.Done()
	defer func() {
		if p := recover(); p != nil {
			w.panicked = p
			for range w.in { // drained: the load's goroutine must not block
			}
		}
	}()
	for b := range w.in {
		for i := range b {
			lk := &b[i]
			k.store(w.ec, nil, lk.db, lk.key, lk.str, lk.v, lk.expire, lk.idle, lk.freq)
		}
		clear(b) // the read buffers and values go with the batch
		select {
		case k.free <- b[:0]:
		default:
		}
	}
}

// wait hands out the batches being filled and returns once every key
// handed out is stored; the workers are gone then (the next keys start
// new ones). A worker's panic is raised again here.
func (k *keyInserter) wait() {
	if k.workers == nil {
		return
	}
	for _, w := range k.workers {
		if len(w.batch) > 0 {
			w.in <- w.batch
		}
		close(w.in)
	}
	k.wg.Wait()
	workers := k.workers
	k.workers = nil
	for _, w := range workers {
		if w.panicked != nil {
			panic(w.panicked)
		}
	}
}
