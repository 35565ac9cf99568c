// Package journal is the write stream: what each command, transaction or
// script propagates, in the forms Redis 7.0 propagates them, framed as
// Redis's replication stream carries them, and handed to subscribers (the
// append-only file; replicas later).
//
// A unit is one Batch: the records of one command, or of one transaction
// or script. The stream frames it as Redis's propagatePendingCommands and
// replicationFeedSlaves do:
//
//	[SELECT <db>]  before a command whose database is not the stream's
//	MULTI          when the unit has more than one record, on the first
//	               record's database (a SELECT it needs comes before it)
//	<record> ...   each preceded by a SELECT when its database changes
//	EXEC           on the last record's database (never a SELECT before it)
//
// The stream's offset counts the bytes of that framed stream since
// start-up, while it has a subscriber (Redis's master_repl_offset). It is
// computed from lengths; the framed bytes are only built for a subscriber
// that asks for them (Unit.AppendFramed).
//
// Subscribers see every unit, in stream order, under the journal's mutex:
// a unit's place in the stream is the order in which Append was called,
// and a caller that appends while holding the locks of the keys its
// records write gets, per key, the order the writes ran in. What a
// subscriber builds from the units is guarded by that same mutex, which
// it takes through Do.
package journal

import (
	"sync"
	"sync/atomic"

	"github.com/hotkv/hotkv/aof"
)

// A Subscriber consumes the stream.
//
// Write is called with each unit appended while the subscriber is
// subscribed, in stream order, under the journal's mutex — and so under
// the locks of the appending command (key locks, keyspace shard
// mutexes). It must return quickly: it must not block (no I/O, no lock
// that is held while waiting), must not panic, and must not call back into
// the journal. The unit is valid only during the call: a subscriber copies
// what it keeps.
type Subscriber interface {
	Write(u *Unit)
}

// Journal is the stream. The zero value is a stream with no subscriber.
type Journal struct {
	// active: it has a subscriber (written under mu, read without it).
	active atomic.Bool

	// mu orders the stream, and guards what subscribers build in Write
	// (see Do). A leaf but for the subscribers' own mutexes, if they have
	// any, which are taken under it.
	mu   sync.Mutex
	subs []Subscriber
	// offset: bytes of the framed stream so far.
	offset int64
	// db is the stream's current database, -1 when the next unit starts
	// with a SELECT whatever its database (Redis's slaveseldb).
	db   int
	unit Unit  // the unit being delivered
	one  Batch // AppendCommand's unit
	none Batch // a proxied unit's (empty) batch
	// proxy: the stream replicas get is a master's, proxied (AppendRaw);
	// the server's own units go to the AOF only.
	proxy bool
}

// Active reports whether the stream has a subscriber: writes need to be
// recorded only then.
func (j *Journal) Active() bool { return j.active.Load() }

// Offset returns the length in bytes of the framed stream appended since
// start-up while the stream was active.
func (j *Journal) Offset() int64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.offset
}

// Position returns the stream's offset and its current database (-1
// when the next unit starts with a SELECT: Redis's slaveseldb).
func (j *Journal) Position() (offset int64, db int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.offset, j.db
}

// Subscribe makes s receive the units appended from now on; subscribing
// it again does nothing. The stream's first subscriber starts it afresh:
// its next unit starts with a SELECT.
func (j *Journal) Subscribe(s Subscriber) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, o := range j.subs {
		if o == s {
			return
		}
	}
	if len(j.subs) == 0 {
		j.db = -1
	}
	j.subs = append(j.subs, s)
	j.active.Store(true)
}

// SubscribeWith runs fn with the stream's offset and, when it returns
// true, subscribes s at that one point of the stream, under the journal's
// mutex: no unit falls between what fn saw (a replica's backlog) and the
// first unit s receives. fn must not block nor call into the journal.
func (j *Journal) SubscribeWith(s Subscriber, fn func(offset int64) bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !fn(j.offset) {
		return
	}
	for _, o := range j.subs {
		if o == s {
			return
		}
	}
	if len(j.subs) == 0 {
		j.db = -1
	}
	j.subs = append(j.subs, s)
	j.active.Store(true)
}

// Unsubscribe stops delivery to s: once it returns, s receives no unit.
func (j *Journal) Unsubscribe(s Subscriber) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for i, o := range j.subs {
		if o == s {
			j.subs = append(j.subs[:i:i], j.subs[i+1:]...)
			break
		}
	}
	j.active.Store(len(j.subs) > 0)
}

// Do runs fn under the journal's mutex: no unit is delivered while it
// runs. A subscriber reaches what its Write builds (a buffer to take, a
// state to reset) through Do, and needs no mutex of its own on the path of
// every unit. fn must not block nor call into the journal.
func (j *Journal) Do(fn func()) {
	j.mu.Lock()
	defer j.mu.Unlock()
	fn()
}

// ForceSelect makes the stream's next unit start with a SELECT, as Redis
// resets slaveseldb when a replica attaches.
func (j *Journal) ForceSelect() {
	j.mu.Lock()
	j.db = -1
	j.mu.Unlock()
}

// Append appends b as one unit and hands it to every subscriber; an empty
// batch, or a stream with no subscriber, appends nothing. b is left as it
// is (the caller resets it). It returns the stream's offset after the
// unit (0 when nothing was appended).
func (j *Journal) Append(b *Batch) int64 {
	if b.Len() == 0 || !j.Active() {
		return 0
	}
	j.mu.Lock()
	j.appendLocked(b)
	end := j.offset
	j.mu.Unlock()
	return end
}

// AppendCommand appends a unit of one record, args run on database db,
// without a batch of the caller's (the DEL of a key found expired).
func (j *Journal) AppendCommand(db int, args ...[]byte) {
	if !j.Active() {
		return
	}
	j.mu.Lock()
	j.one.Reset()
	j.one.Add(db, args)
	j.appendLocked(&j.one)
	j.mu.Unlock()
}

// Heartbeat appends the PING a master sends its replicas every
// repl-ping-replica-period (Redis's replicationCron): on the stream's
// current database, so with no SELECT before it, and for replicas only
// (ToReplicas: Redis never writes it to the append-only file). It counts
// in the offset.
func (j *Journal) Heartbeat() { j.appendForReplicas([]byte("PING")) }

// GetAck appends REPLCONF GETACK *, which asks replicas to acknowledge
// their offset at once (WAIT): for replicas only, as Heartbeat.
func (j *Journal) GetAck() {
	j.appendForReplicas([]byte("REPLCONF"), []byte("GETACK"), []byte("*"))
}

// appendForReplicas appends args as a unit for replicas only, on the
// stream's current database (no SELECT before it).
func (j *Journal) appendForReplicas(args ...[]byte) {
	if !j.Active() {
		return
	}
	j.mu.Lock()
	j.one.Reset()
	j.one.AddTo(j.db, args, ToReplicas)
	j.appendLocked(&j.one)
	j.mu.Unlock()
}

// SetProxy switches proxying on (a replica: its replicas get its master's
// stream through AppendRaw, its own units go to the AOF only, as Redis's
// replicationFeedSlaves feeds nothing on a replica) or off (a master
// again: the next unit starts with a SELECT).
func (j *Journal) SetProxy(on bool) {
	j.mu.Lock()
	j.proxy = on
	j.db = -1
	j.mu.Unlock()
}

// AppendRaw appends a master's stream bytes, as they came, for replicas
// only (a replica proxies its master's stream: the offsets stay the
// master's). The stream's database is unknown after them.
func (j *Journal) AppendRaw(b []byte) {
	if !j.Active() || len(b) == 0 {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if len(j.subs) == 0 {
		return
	}
	u := &j.unit
	*u = Unit{b: &j.none, db: j.db, start: j.offset, end: j.offset + int64(len(b)), raw: b}
	j.db, j.offset = -1, u.end
	for _, s := range j.subs {
		s.Write(u)
	}
	u.raw = nil
}

// ResetOffset sets the stream's offset (a replica takes its master's
// offset at a full synchronization) and runs fn, under the journal's
// mutex (fn resets what subscribers built: the backlog).
func (j *Journal) ResetOffset(offset int64, fn func()) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.offset, j.db = offset, -1
	fn()
}

// appendLocked frames b, advances the offset and delivers it. The caller
// holds mu.
func (j *Journal) appendLocked(b *Batch) {
	if len(j.subs) == 0 {
		return
	}
	u := &j.unit
	u.b, u.db, u.start = b, j.db, j.offset
	u.raw, u.local = nil, j.proxy
	if u.single = b.Len() == 1; u.single {
		u.oneDB, u.oneCmd = b.Record(0)
		u.oneTo = b.Target(0)
	}
	n, db := u.framedSize()
	u.end = u.start + n
	j.db, j.offset = db, u.end
	for _, s := range j.subs {
		s.Write(u)
	}
	u.b, u.oneCmd = nil, nil
}

// Unit is a batch as the stream carries it, handed to subscribers. A
// unit has at least one record.
type Unit struct {
	b          *Batch
	db         int // the stream's database before the unit (-1: none)
	start, end int64
	// A unit of one record: the record (the common case, kept at hand).
	single bool
	oneDB  int
	oneCmd []byte
	oneTo  Target
	// raw: a master's stream bytes, proxied (AppendRaw), for replicas.
	raw []byte
	// local: the server is a replica; its own records do not go to its
	// replicas.
	local bool
}

// Len returns the number of records of the unit.
func (u *Unit) Len() int { return u.b.Len() }

// Record returns the database and the encoded command of record i
// (0 <= i < Len). cmd must not be modified.
func (u *Unit) Record(i int) (db int, cmd []byte) { return u.b.Record(i) }

// Multi reports whether the stream frames the unit with MULTI ... EXEC
// (it has more than one record).
func (u *Unit) Multi() bool { return u.b.Len() > 1 }

// Commands returns the number of commands the unit is in the stream: its
// records, and MULTI and EXEC around them when Multi. SELECTs are not
// counted: they depend on where the unit lands in a stream.
func (u *Unit) Commands() int {
	switch n := u.b.Len(); {
	case u.raw != nil:
		return 0 // the AOF gets nothing of a proxied unit
	case n > 1:
		return n + 2
	}
	return 1
}

// Command returns command i of the unit (0 <= i < Commands) and the
// database it is fed on: MULTI on the first record's database, EXEC on
// the last one's. A writer that emits a SELECT when the database changes
// (aof.Feeder) then places SELECTs as the stream does. cmd must not be
// modified.
func (u *Unit) Command(i int) (db int, cmd []byte) {
	if u.single {
		return u.oneDB, u.oneCmd
	}
	return u.multiCommand(i)
}

// Target returns where command i of the unit (as Command numbers them)
// goes: MULTI and EXEC go to both, as Redis wraps a unit for both
// whatever its records' targets.
func (u *Unit) Target(i int) Target {
	var t Target
	switch {
	case u.single:
		t = u.oneTo
	case i == 0 || i == u.b.Len()+1:
		t = ToAll
	default:
		t = u.b.Target(i - 1)
	}
	if u.local {
		t &^= ToReplicas
	}
	return t
}

// multiCommand is Command for a unit of several records.
func (u *Unit) multiCommand(i int) (db int, cmd []byte) {
	n := u.b.Len()
	switch {
	case i == 0:
		db, _ = u.b.Record(0)
		return db, encMulti
	case i == n+1:
		db, _ = u.b.Record(n - 1)
		return db, encExec
	}
	return u.b.Record(i - 1)
}

// Start returns the stream's offset before the unit, End after it.
func (u *Unit) Start() int64 { return u.start }

// End returns the stream's offset after the unit.
func (u *Unit) End() int64 { return u.end }

// Proxied returns the bytes of a proxied unit (AppendRaw: a master's
// stream, as it came), which are its bytes in the stream; nil for the
// server's own units. They are valid during the Write call only, and
// read-only.
func (u *Unit) Proxied() []byte { return u.raw }

// AppendFramed appends the unit's bytes in the stream (End-Start of them)
// to dst: its commands, with the SELECTs the stream puts before them.
func (u *Unit) AppendFramed(dst []byte) []byte {
	if u.raw != nil {
		return append(dst, u.raw...)
	}
	db := u.db
	for i := range u.Commands() {
		if u.Target(i)&ToReplicas == 0 {
			continue // the AOF's only
		}
		cdb, cmd := u.Command(i)
		if cdb != db {
			dst = aof.AppendSelect(dst, cdb)
			db = cdb
		}
		dst = append(dst, cmd...)
	}
	return dst
}

// framedSize returns the length of AppendFramed's bytes and the stream's
// database after the unit.
func (u *Unit) framedSize() (n int64, db int) {
	if u.single {
		if u.Target(0)&ToReplicas == 0 {
			return 0, u.db
		}
		if n = int64(len(u.oneCmd)); u.oneDB != u.db {
			n += selectLen(u.oneDB)
		}
		return n, u.oneDB
	}
	db = u.db
	for i := range u.Commands() {
		if u.Target(i)&ToReplicas == 0 {
			continue
		}
		cdb, cmd := u.Command(i)
		if cdb != db {
			n += selectLen(cdb)
			db = cdb
		}
		n += int64(len(cmd))
	}
	return n, db
}

// Encoded MULTI and EXEC.
var (
	encMulti = aof.AppendCommandStrings(nil, "MULTI")
	encExec  = aof.AppendCommandStrings(nil, "EXEC")
)

// selectLen returns the length of aof.AppendSelect's SELECT of database db
// (db >= 0): "*2\r\n$6\r\nSELECT\r\n$<len>\r\n<db>\r\n".
func selectLen(db int) int64 {
	d := digits(db)
	return int64(len("*2\r\n$6\r\nSELECT\r\n$") + digits(d) + 2 + d + 2)
}

// digits returns the number of decimal digits of n >= 0.
func digits(n int) int {
	d := 1
	for n >= 10 {
		n /= 10
		d++
	}
	return d
}
