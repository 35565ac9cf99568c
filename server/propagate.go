package server

import (
	"strconv"

	"github.com/hotkv/hotkv/aof"
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
// Records are only kept while something consumes them (AOF on).

// propState is the records of the command a client is running.
type propState struct {
	buf  []byte    // the records, encoded as RESP commands
	recs []propRec // where each ends in buf, and its database
	// decided is set by a handler that chose its records itself; the
	// default rule then adds none.
	decided bool
}

type propRec struct {
	db  int
	end int
}

// propagating reports whether writes are recorded.
func (s *Server) propagating() bool { return s.aof.on.Load() }

// propagate records args, run on c's database, as (one of) what the
// running command propagates, in place of the command itself.
func (c *Client) propagate(args ...[]byte) {
	c.prop.decided = true
	if c.srv.propagating() {
		c.prop.add(int(c.dbIndex.Load()), args)
	}
}

// propagateNothing says the running command propagates nothing (it
// changed nothing).
func (c *Client) propagateNothing() { c.prop.decided = true }

func (p *propState) add(db int, args [][]byte) {
	p.buf = aof.AppendCommand(p.buf, args)
	p.recs = append(p.recs, propRec{db: db, end: len(p.buf)})
}

// recordWrite applies the default rule after a command ran on c: a write
// that did not fail is propagated as sent, unless its handler decided.
func (c *Client) recordWrite(cmd *Command, args [][]byte, failed bool) {
	if c.prop.decided {
		c.prop.decided = false
		return
	}
	if cmd.Flags&Write != 0 && !failed && c.srv.propagating() {
		c.prop.add(int(c.dbIndex.Load()), args)
	}
}

// takeRecords moves the records of from (a script's engine client) to c,
// to be emitted with c's command.
func (c *Client) takeRecords(from *Client) {
	p := &from.prop
	base := len(c.prop.buf)
	c.prop.buf = append(c.prop.buf, p.buf...)
	for _, r := range p.recs {
		c.prop.recs = append(c.prop.recs, propRec{db: r.db, end: base + r.end})
	}
	p.reset()
}

func (p *propState) reset() {
	if cap(p.buf) > 64<<10 {
		p.buf = nil
	} else {
		p.buf = p.buf[:0]
	}
	p.recs = p.recs[:0]
}

// emit writes c's records to the stream, as one MULTI ... EXEC unit when
// there are several, and clears them. The caller holds the locks of the
// keys they write.
func (s *Server) emit(c *Client) {
	p := &c.prop
	if len(p.recs) == 0 {
		return
	}
	if c.replaying {
		p.reset()
		return
	}
	s.aof.feed(p)
	p.reset()
}

// propagateDel propagates the removal of an expired key of database db;
// the caller holds the key's lock (or a keyspace shard mutex).
func (s *Server) propagateDel(db int, key string) {
	if !s.propagating() {
		return
	}
	var p propState
	p.add(db, [][]byte{[]byte("DEL"), []byte(key)})
	s.aof.feed(&p)
}

// Encoded MULTI and EXEC, for the units.
var (
	encMulti = aof.AppendCommandStrings(nil, "MULTI")
	encExec  = aof.AppendCommandStrings(nil, "EXEC")
)

// The arguments of the commands writes are propagated as.
var (
	argDEL       = []byte("DEL")
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
