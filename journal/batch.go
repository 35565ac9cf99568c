package journal

import "github.com/hotkv/hotkv/aof"

// Batch is what one command, transaction or script propagates: its
// records in order, each a command encoded as a RESP multibulk (the form
// Redis writes to the AOF and to replicas) and the database it ran on.
//
// A Batch reuses its buffers: once they have grown, adding records
// allocates nothing. The zero value is an empty batch. A Batch is not
// safe for concurrent use.
type Batch struct {
	buf  []byte // the records, encoded one after the other
	recs []rec  // where each ends in buf, and its database
}

type rec struct {
	db  int
	end int
	to  Target
}

// Target says where a record goes: the append-only file, the replicas,
// or both (Redis's PROPAGATE_AOF and PROPAGATE_REPL). PUBLISH goes to
// replicas only; a script chooses with redis.set_repl.
type Target uint8

// The targets.
const (
	ToAOF      Target = 1
	ToReplicas Target = 2
	ToAll             = ToAOF | ToReplicas
)

// Reset keeps buffers up to these sizes for the next records; larger
// ones (a script that wrote a lot) are released.
const (
	maxKeptBuf  = 64 << 10
	maxKeptRecs = 4096
)

// Add appends a record for both targets: args, run on database db.
func (b *Batch) Add(db int, args [][]byte) { b.AddTo(db, args, ToAll) }

// AddTo appends a record for the targets to (none: nothing is added).
func (b *Batch) AddTo(db int, args [][]byte, to Target) {
	if to == 0 {
		return
	}
	b.buf = aof.AppendCommand(b.buf, args)
	b.recs = append(b.recs, rec{db: db, end: len(b.buf), to: to})
}

// Take appends the records of from to b, in their order, and resets from.
func (b *Batch) Take(from *Batch) {
	base := len(b.buf)
	b.buf = append(b.buf, from.buf...)
	for _, r := range from.recs {
		b.recs = append(b.recs, rec{db: r.db, end: base + r.end, to: r.to})
	}
	from.Reset()
}

// Len returns the number of records.
func (b *Batch) Len() int { return len(b.recs) }

// Record returns the database and the encoded command of record i
// (0 <= i < Len). cmd aliases the batch's buffer: it is valid until the
// batch next changes.
func (b *Batch) Record(i int) (db int, cmd []byte) {
	start := 0
	if i > 0 {
		start = b.recs[i-1].end
	}
	r := b.recs[i]
	return r.db, b.buf[start:r.end]
}

// Target returns where record i goes.
func (b *Batch) Target(i int) Target { return b.recs[i].to }

// Reset empties the batch, keeping its buffers unless they are large.
func (b *Batch) Reset() {
	if cap(b.buf) > maxKeptBuf {
		b.buf = nil
	} else {
		b.buf = b.buf[:0]
	}
	if cap(b.recs) > maxKeptRecs {
		b.recs = nil
	} else {
		b.recs = b.recs[:0]
	}
}
