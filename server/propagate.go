package server

import (
	"strconv"

	"github.com/hotkv/hotkv/journal"
)

// Propagation: each write reaches the append-only file (and, later,
// replicas) in the form Redis 7.0 propagates it, so that replaying the
// stream rebuilds the same data whenever it is replayed.
//
//   - By default a write command that did not fail is propagated as it
//     was sent. A handler decides for itself (propagate, propagateNothing)
//     when its arguments would not replay the same: relative times become
//     absolute (SET EX → SET PXAT, EXPIRE → PEXPIREAT), random choices
//     become explicit (SPOP → SREM), floats become values (INCRBYFLOAT →
//     SET KEEPTTL), blocking commands become their plain forms (BLPOP →
//     LPOP), and a write that changed nothing is not propagated at all.
//   - A command's records are written to the stream while it still holds
//     its keys' locks, so that writes to one key reach the stream in the
//     order they ran. The records of a transaction, or of a script or
//     function, are one MULTI ... EXEC unit when there is more than one.
//   - A key found expired is propagated as a DEL when it is removed, so
//     that the replay (which never expires keys itself) removes it at the
//     same point.
//
// The records go to the journal (package journal), which frames them as
// Redis's replication stream and hands them to its subscribers: the
// append-only file (aof.go) today. Records are only kept while the journal
// has a subscriber.

// propState is the records of the command a client is running.
type propState struct {
	journal.Batch
	// decided is set by a handler that chose its records itself; the
	// default rule then adds none. changed says it changed the dataset
	// (it propagated something, or would have with the journal active).
	decided, changed bool
	// changes is the count of changes a handler reported (dirty), when
	// counted: Redis's server.dirty grows by it.
	changes int
	counted bool
	// to is where the records go when targeted (a script's
	// redis.set_repl), else both the AOF and the replicas.
	to       journal.Target
	targeted bool
}

// record adds args, run on c's database, to c's records for the targets
// to (narrowed by a script's redis.set_repl) that have a consumer now —
// the append-only file when it is on, replicas when any is attached — as
// Redis's alsoPropagate drops what shouldPropagate says nobody takes.
func (c *Client) record(args [][]byte, to journal.Target) {
	p := &c.prop
	if p.targeted {
		to &= p.to
	}
	if to != journal.ToAll {
		to &= c.srv.propagationTargets()
	}
	p.AddTo(int(c.dbIndex.Load()), args, to)
}

// propagationTargets returns the targets that have a consumer now.
func (s *Server) propagationTargets() journal.Target {
	var t journal.Target
	if s.aof.on.Load() {
		t |= journal.ToAOF
	}
	if s.repl.Attached() {
		t |= journal.ToReplicas
	}
	return t
}

// propagating reports whether writes are recorded: the journal has a
// subscriber that takes them. A replica's own writes (its master's
// stream as it applies it, its clients' on a writable replica) go to its
// AOF only — its replicas get its master's stream as it came
// (journal.AppendRaw) — so a replica without an AOF records nothing, as
// Redis's replica propagates its master's commands to the AOF alone. The
// role is read before the journal's proxy mode: REPLICAOF turns proxying
// on before the role and off after it.
func (s *Server) propagating() bool {
	return s.journal.Active() && (s.aof.on.Load() || !s.isReplica())
}

// propagate records args, run on c's database, as (one of) what the
// running command propagates, in place of the command itself.
func (c *Client) propagate(args ...[]byte) {
	c.prop.decided, c.prop.changed = true, true
	if c.srv.propagating() {
		c.record(args, journal.ToAll)
	}
}

// propagateTo records the running command as sent, for the targets to
// only, without counting a change (PUBLISH: replicas only, as Redis's
// forceCommandPropagation). Inside a script, the script's redis.set_repl
// narrows to further.
func (c *Client) propagateTo(to journal.Target, args ...[]byte) {
	c.prop.decided = true
	if c.srv.propagating() {
		c.record(args, to)
	}
}

// propagateNothing says the running command propagates nothing (it
// changed nothing), unless it calls propagate afterwards.
func (c *Client) propagateNothing() { c.prop.decided = true }

// dirty reports that the running command made n changes (Redis's
// server.dirty += n: elements added, removed, fields set, keys deleted).
// A write that made none propagates nothing, as in Redis.
func (c *Client) dirty(n int) {
	c.prop.counted = true
	c.prop.changes += n
}

// recording says the running command changed the dataset and reports
// whether its records are kept: a handler that builds a rewritten record
// only when they are (it costs allocations) asks this, then propagates.
func (c *Client) recording() bool {
	c.prop.decided, c.prop.changed = true, true
	return c.srv.propagating()
}

// recordWrite applies the default rule after a command ran on c: a write
// that did not fail, and did not report that it changed nothing, is
// propagated as sent, unless its handler decided. It returns how many
// changes the command made (Redis's server.dirty grows by it): what the
// handler reported (dirty), else one for a write that changed something.
func (c *Client) recordWrite(cmd *Command, args [][]byte, failed bool) (changes int) {
	p := &c.prop
	decided, changed := p.decided, p.changed
	if p.counted {
		changes = p.changes
		decided = decided || changes == 0
	} else if decided {
		changes = b2i(changed)
	}
	p.decided, p.changed, p.counted, p.changes = false, false, false, 0
	if decided {
		return changes
	}
	if cmd.Flags&Write == 0 || failed {
		return changes
	}
	if c.srv.propagating() {
		c.record(args, journal.ToAll)
	}
	return max(changes, 1)
}

// takeRecords moves the records of from (a script's engine client) to c,
// to be emitted with c's command.
func (c *Client) takeRecords(from *Client) { c.prop.Take(&from.prop.Batch) }

// emit appends c's records to the journal as one unit (MULTI ... EXEC
// when there are several), and clears them. The caller holds the locks of
// the keys they write. The AOF replay's records are dropped: the file has
// them already.
func (s *Server) emit(c *Client) {
	p := &c.prop
	if p.Len() == 0 {
		return
	}
	if !c.replaying {
		if end := s.journal.Append(&p.Batch); end > 0 {
			c.woff = end // what WAIT waits for
		}
	}
	p.Reset()
}

// propagateDel propagates the removal of an expired key of database db;
// the caller holds the key's lock (or a keyspace shard mutex).
func (s *Server) propagateDel(db int, key string) {
	if s.propagating() {
		s.journal.AppendCommand(db, argDEL, []byte(key))
	}
}

// The arguments of the commands writes are propagated as.
var (
	argDEL       = []byte("DEL")
	argUNLINK    = []byte("UNLINK")
	argSET       = []byte("SET")
	argPXAT      = []byte("PXAT")
	argKEEPTTL   = []byte("KEEPTTL")
	argPEXPIREAT = []byte("PEXPIREAT")
	argPERSIST   = []byte("PERSIST")
	argHSET      = []byte("HSET")
	argSREM      = []byte("SREM")
	argLPOP      = []byte("LPOP")
	argRPOP      = []byte("RPOP")
	argLMOVE     = []byte("LMOVE")
	argRPOPLPUSH = []byte("RPOPLPUSH")
	argZPOPMIN   = []byte("ZPOPMIN")
	argZPOPMAX   = []byte("ZPOPMAX")
	argABSTTL    = []byte("ABSTTL")
	argLeft      = []byte("left")
	argRight     = []byte("right")
)

// pick returns a when cond holds, else b.
func pick(cond bool, a, b []byte) []byte {
	if cond {
		return a
	}
	return b
}

// intBytes formats n for a propagated argument.
func intBytes(n int64) []byte { return strconv.AppendInt(nil, n, 10) }

// alreadyExpired reports whether an absolute expiry time at (unix ms) has
// passed, so that setting it deletes the key instead — never while the
// append-only file loads (Redis's checkAlreadyExpired).
func (c *Client) alreadyExpired(at int64) bool {
	return !c.db.KeepExpired.Load() && at <= c.db.Now()
}
