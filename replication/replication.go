// Package replication is the master side of Redis 7.0's replication: a
// replica that attaches (SYNC, or PSYNC, which is answered with a full
// resynchronization) gets a snapshot of the dataset as an RDB payload,
// then the journal's stream from the exact point the snapshot was taken,
// and a PING every repl-ping-replica-period while the stream is quiet or
// not.
//
// The stream reaches the replicas through one shared buffer (backlog.go),
// which is also the backlog: each replica has a cursor in it, from the
// point its snapshot was taken (or the offset it continues from), and its
// connection takes the bytes from there (Next) once its payload is sent.
// What it has not taken yet is its output, shared with the other
// replicas and the backlog.
package replication

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/journal"
)

// A Sink is a replica's connection. Send queues bytes ahead of the
// stream (replies, the payload); it must not block nor keep b (it copies
// what it queues). Notify tells it that the shared buffer has more of the
// stream for it (Replica.Next); it must not block. check says that its
// output (the blocks it pins) may have grown past a limit: the buffer
// added a block, or the replica was just attached. Only then does the
// sink need to check client-output-buffer-limit, as Redis 7 checks a
// replica's limits when the shared buffer adds a block (its output grows
// by whole blocks). Both are called under the journal's mutex.
type Sink interface {
	Send(b []byte)
	Notify(check bool)
}

// Replica is one attached replica.
type Replica struct {
	sink Sink
	live atomic.Bool // the payload is sent: the stream follows it
	// Its cursor in the shared buffer bl: the next byte to send is
	// cur.buf[pos]; nil cur: the next byte the stream gets. Guarded by
	// bl.mu.
	bl  *backlog
	cur *block
	pos int

	// Addr is the replica's address as its connection shows it.
	Addr string
	// AnnouncedIP is the address the replica announced (REPLCONF
	// ip-address, replica-announce-ip): a string, unset when none.
	AnnouncedIP atomic.Value
	// Psync: attached with PSYNC (it sends REPLCONF ACKs), not SYNC.
	Psync bool
	// ListeningPort is the port the replica announced (REPLCONF
	// listening-port), 0 when none.
	ListeningPort atomic.Int64
	// AckOffset is the stream offset the replica last acknowledged, and
	// AckTime when (unix seconds).
	AckOffset, AckTime atomic.Int64
}

// Next returns up to max bytes of the stream for r's connection to send,
// and moves r's cursor past them: empty when r sent all there is, or its
// payload is not sent yet. The bytes are read-only. Only r's connection
// calls it, one call at a time.
func (r *Replica) Next(max int) []byte {
	if !r.live.Load() {
		return nil
	}
	return r.bl.next(r, max)
}

// Pending reports whether r's connection has bytes of the stream to send
// (Next would return some).
func (r *Replica) Pending() bool { return r.live.Load() && r.bl.pending(r) }

// Output returns the memory of the shared buffer's blocks r pins (from
// its cursor to the end) and their number: its output buffer, as
// client-output-buffer-limit and CLIENT LIST count it.
func (r *Replica) Output() (mem, blocks int64) {
	if r.bl == nil {
		return 0, 0
	}
	return r.bl.pinned(r)
}

// Host is the replica's address as INFO and ROLE show it: the one it
// announced, else its connection's.
func (r *Replica) Host() string {
	if ip, _ := r.AnnouncedIP.Load().(string); ip != "" {
		return ip
	}
	host, _, err := net.SplitHostPort(r.Addr)
	if err != nil {
		return r.Addr
	}
	return host
}

// Online reports whether the replica got its payload and follows the
// stream (Redis's "online" state; "wait_bgsave" before).
func (r *Replica) Online(m *Master) bool { return r.live.Load() }

// Master is the set of replicas attached to this server.
type Master struct {
	j      *journal.Journal
	replID atomic.Value // string: the replication ID (master_replid)

	mu       sync.Mutex // a leaf
	replicas []*Replica
	attached atomic.Int32 // len(replicas), read without mu
	// bl is the backlog, created with the first replica (nil before and
	// once repl-backlog-ttl freed it); set under mu, read under mu or
	// the journal's mutex, its content under the journal's mutex.
	bl          *backlog
	backlogSize func() int64
	// following: the server is a replica; its backlog holds its master's
	// stream and is kept whatever repl-backlog-ttl says.
	following atomic.Bool
	// replID2 and secondOffset are the ID this server followed before it
	// was promoted, and the offset up to which it may continue it
	// (Redis's replid2 and second_replid_offset; -1: none). Under mu.
	replID2      string
	secondOffset int64
}

// New returns the master side of replication for the stream j, under
// the replication ID replID.
//
// backlogSize is repl-backlog-size.
func New(j *journal.Journal, replID string, backlogSize func() int64) *Master {
	m := &Master{j: j, backlogSize: backlogSize, replID2: noReplID, secondOffset: -1}
	m.replID.Store(replID)
	return m
}

// noReplID is the ID Redis shows when there is none.
const noReplID = "0000000000000000000000000000000000000000"

// Follow makes this server's stream its master's, a replica's: the
// replication ID is the master's and the stream (offset, backlog) goes on
// from offset — reset there after a full synchronization (full), kept
// after a partial one. The backlog is created if there is none (a replica
// keeps one, to serve its own replicas and a promotion). A partial one
// under a new ID (the master restarted, or was promoted) keeps the old ID
// as the second, up to this offset, as Redis's replica does on +CONTINUE
// with another ID: its own replicas may continue with it.
func (m *Master) Follow(replID string, offset int64, full bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.following.Store(true)
	if old := m.ReplID(); !full && old != replID {
		m.replID2, m.secondOffset = old, m.j.Offset()+1
	}
	m.SetReplID(replID)
	if m.bl == nil {
		m.bl = newBacklog(m.backlogSize, offset)
		m.j.SubscribeWith(m.bl, func(int64) bool { return true })
		full = true
	}
	if full {
		bl := m.bl
		m.j.ResetOffset(offset, func() { bl.reset(offset) })
	}
}

// Promote makes a replica a master (REPLICAOF NO ONE): a new replication
// ID, the old one kept as the second (Redis's shiftReplicationId), so
// that its former fellow replicas can continue up to this offset.
func (m *Master) Promote() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.following.Store(false)
	m.replID2 = m.ReplID()
	m.secondOffset = m.j.Offset() + 1
	m.SetReplID(NewReplID())
}

// SaveInfo returns what a snapshot records of the stream for a restart
// to continue it (Redis's rdbPopulateSaveInfo): the replication ID, the
// offset and the stream's database; false when there is nothing to
// continue — a master without a backlog (no replica ever followed it, or
// repl-backlog-ttl freed it), or a replica (it follows its master's ID).
// The caller holds what keeps the dataset and the stream still (the
// exclusive global lock).
func (m *Master) SaveInfo() (id string, offset int64, db int, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.bl == nil || m.following.Load() {
		return "", 0, 0, false
	}
	offset, db = m.j.Position()
	return m.ReplID(), offset, max(db, 0), true
}

// Restart continues, on a master that just started, the stream a
// snapshot recorded (SaveInfo): the stream's offset is the recorded one,
// with an empty backlog from there, and a new replication ID, the
// recorded one kept as the second, so that the replicas of the master
// before the restart continue with a partial resynchronization (Redis's
// loadDataFromDisk).
func (m *Master) Restart(id string, offset int64) {
	m.Follow(id, offset, true)
	m.Promote()
}

// Second returns the second replication ID and offset (INFO's
// master_replid2 and second_repl_offset).
func (m *Master) Second() (string, int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.replID2, m.secondOffset
}

// ReplID returns the replication ID (master_replid).
func (m *Master) ReplID() string { return m.replID.Load().(string) }

// SetReplID changes the replication ID (a replica promoted to master).
func (m *Master) SetReplID(id string) { m.replID.Store(id) }

// Attach subscribes a new replica, writing to sink, to the stream and
// returns it with the stream's offset at that point, where its snapshot
// must be taken: the caller holds what keeps every writer out (the global
// lock) from before the snapshot starts until Attach returns. The next
// unit starts with a SELECT, as Redis resets slaveseldb for a new
// replica.
func (m *Master) Attach(sink Sink, addr string, psync bool) (*Replica, int64) {
	r := &Replica{sink: sink, Addr: addr, Psync: psync}
	r.AckTime.Store(time.Now().Unix())
	m.mu.Lock()
	if m.bl == nil {
		// A backlog from scratch: a history of its own, so a new
		// replication ID (Redis's changeReplicationId and
		// clearReplicationId2).
		m.bl = newBacklog(m.backlogSize, 0)
		m.SetReplID(NewReplID())
		m.replID2, m.secondOffset = noReplID, -1
		bl := m.bl
		m.j.SubscribeWith(bl, func(offset int64) bool { bl.reset(offset); return true })
	}
	bl := m.bl
	m.mu.Unlock()
	m.j.ForceSelect()
	offset := bl.attach(r)
	m.mu.Lock()
	m.replicas = append(m.replicas, r)
	m.attached.Store(int32(len(m.replicas)))
	m.mu.Unlock()
	return r, offset
}

// Continue attaches a replica that asks to continue the stream of
// replication ID replID from byte offset psync (PSYNC replid offset), when
// this master can: the ID is its own and the backlog holds the bytes from
// there. It then sends "+CONTINUE <replid>" and those bytes, and the
// replica follows the stream from that point; otherwise it returns nil and
// why not, for the log, and the replica needs a full resynchronization.
func (m *Master) Continue(sink Sink, addr, replID string, psync int64) (*Replica, string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case replID != m.ReplID() && replID != m.replID2:
		return nil, fmt.Sprintf("Replication ID mismatch (Replica asked for '%s', my replication IDs are '%s' and '%s')",
			replID, m.ReplID(), m.replID2)
	case replID != m.ReplID() && psync > m.secondOffset:
		return nil, fmt.Sprintf("Requested offset for second ID was %d, but I can reply up to %d", psync, m.secondOffset)
	}
	if m.bl == nil {
		return nil, fmt.Sprintf("no backlog (Replica request was: %d)", psync)
	}
	r := &Replica{sink: sink, Addr: addr, Psync: true}
	r.AckTime.Store(time.Now().Unix())
	ok := false
	m.j.Do(func() {
		// No unit between the check and +CONTINUE.
		if ok = m.bl.attachAt(r, psync); ok {
			sink.Send(fmt.Appendf(nil, "+CONTINUE %s\r\n", m.ReplID()))
			r.live.Store(true)
		}
	})
	if !ok {
		return nil, fmt.Sprintf("lack of backlog (Replica request was: %d)", psync)
	}
	m.replicas = append(m.replicas, r)
	m.attached.Store(int32(len(m.replicas)))
	sink.Notify(true)
	return r, ""
}

// Backlog returns the backlog's state for INFO: whether there is one, the
// offset of its first byte and its length.
func (m *Master) Backlog() (active bool, first, histlen int64) {
	m.mu.Lock()
	bl := m.bl
	m.mu.Unlock()
	if bl == nil {
		return false, 0, 0
	}
	bl.mu.Lock()
	first, histlen = bl.firstLocked(), bl.histlen
	bl.mu.Unlock()
	return true, first, histlen
}

// BufferMem returns the memory of the shared replication buffer: the
// backlog and what the replicas have not sent yet (INFO's
// mem_total_replication_buffers).
func (m *Master) BufferMem() int64 {
	m.mu.Lock()
	bl := m.bl
	m.mu.Unlock()
	if bl == nil {
		return 0
	}
	return bl.mem.Load()
}

// NewReplID returns a fresh 40-hex-digit replication ID.
func NewReplID() string {
	var b [20]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Start sends the replica its payload, the snapshot's RDB as a bulk
// ("$<len>\r\n" and the bytes, no trailing CRLF, as Redis sends a
// disk-based payload); then its connection takes the stream from the
// shared buffer, from the point of Attach (Next).
//
// With eof the payload goes in the diskless form instead: "$EOF:" and a
// random 40-character mark, the bytes, the mark again (for replicas that
// said REPLCONF capa eof).
func (m *Master) Start(r *Replica, rdb []byte, eof bool) {
	var mark []byte
	if eof {
		mark = []byte(NewReplID()) // 40 random hex characters
	}
	m.j.Do(func() {
		if eof {
			r.sink.Send(append(append([]byte("$EOF:"), mark...), '\r', '\n'))
			r.sink.Send(rdb)
			r.sink.Send(mark)
		} else {
			r.sink.Send(strconv.AppendInt([]byte{'$'}, int64(len(rdb)), 10))
			r.sink.Send([]byte("\r\n"))
			r.sink.Send(rdb)
		}
		r.live.Store(true)
	})
	r.sink.Notify(true)
}

// StartStream begins r's payload in the diskless form while it is still
// being produced: "$EOF:" and the mark go out now, the payload's bytes
// through Send as they come, and FinishStream ends it.
func (m *Master) StartStream(r *Replica) (mark []byte) {
	mark = []byte(NewReplID()) // 40 random hex characters
	m.j.Do(func() {
		r.sink.Send(append(append([]byte("$EOF:"), mark...), '\r', '\n'))
	})
	return mark
}

// Send queues payload bytes for r (between StartStream and
// FinishStream: the stream's units wait meanwhile).
func (r *Replica) Send(b []byte) { r.sink.Send(b) }

// FinishStream ends the payload StartStream began with its mark; then
// r's connection takes the stream from the shared buffer, from the point
// of Attach (Next).
func (m *Master) FinishStream(r *Replica, mark []byte) {
	m.j.Do(func() {
		r.sink.Send(mark)
		r.live.Store(true)
	})
	r.sink.Notify(true)
}

// Detach stops the stream to r (its connection closed).
func (m *Master) Detach(r *Replica) {
	if r.bl != nil {
		r.bl.detach(r)
	}
	m.mu.Lock()
	for i, x := range m.replicas {
		if x == r {
			m.replicas = append(m.replicas[:i:i], m.replicas[i+1:]...)
			break
		}
	}
	m.attached.Store(int32(len(m.replicas)))
	m.mu.Unlock()
}

// Attached reports whether any replica is attached.
func (m *Master) Attached() bool { return m.attached.Load() > 0 }

// Replicas returns the attached replicas, in the order they attached.
func (m *Master) Replicas() []*Replica {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]*Replica(nil), m.replicas...)
}

// Acked returns how many replicas acknowledged offset (WAIT).
func (m *Master) Acked(offset int64) int64 {
	n := int64(0)
	for _, r := range m.Replicas() {
		if r.Psync && r.AckOffset.Load() >= offset {
			n++
		}
	}
	return n
}

// Offset returns the stream's offset (master_repl_offset).
func (m *Master) Offset() int64 { return m.j.Offset() }

// Heartbeats sends the replicas a PING through the stream every period()
// seconds while any is attached, as Redis's replicationCron, until stop
// is closed.
//
// It also frees the backlog once no replica was attached for ttl()
// seconds (repl-backlog-ttl; 0: never).
//
// No PING goes while quiet() (clients are paused): the offset stays, as
// Redis's, for a failover to find its replicas caught up.
func (m *Master) Heartbeats(period, ttl func() int64, quiet func() bool, stop <-chan struct{}) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	var secs, alone int64
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		secs++
		m.mu.Lock()
		n := len(m.replicas)
		bl := m.bl
		if n > 0 {
			alone = 0
		} else if m.bl != nil && !m.following.Load() {
			if alone++; ttl() > 0 && alone >= ttl() {
				m.j.Unsubscribe(m.bl)
				m.bl = nil
			}
		}
		m.mu.Unlock()
		if bl != nil {
			bl.trim() // repl-backlog-size may have changed
		}
		if p := period(); p > 0 && secs%p == 0 && n > 0 && !quiet() {
			m.j.Heartbeat()
		}
	}
}
