package server

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/lock"
	"github.com/hotkv/hotkv/rdb"
	"github.com/hotkv/hotkv/replication"
	"github.com/hotkv/hotkv/resp"
)

// The replica role (REPLICAOF host port, or the replicaof directive):
// package replication's Link follows the master; the server loads its
// payload under the global lock and applies its stream on the master
// client, which every check obeys (Redis's mustObeyClient). While a
// replica, keys do not expire on their own — expired keys read as
// missing and stay until the master's DEL — writes from clients are
// refused with READONLY (replica-read-only), and, with
// replica-serve-stale-data no, commands without the stale flag are
// refused with MASTERDOWN while the link is down.

// replicaState is the server's replica role. Its mutex orders role
// changes (REPLICAOF, shutdown) and is held while a link closes, which
// waits for the command the link is applying: whoever takes it must hold
// no key or global lock (REPLICAOF is lock-free).
type replicaState struct {
	mu     sync.Mutex
	link   atomic.Pointer[replication.Link] // nil: a master; written under mu
	master *Client                          // applies the master's stream; set under mu before the first link
	// restored is the stream a replica's snapshot recorded, loaded at
	// start-up: its first link offers it to PSYNC. Under mu.
	restored *rdb.ReplInfo
	// applyMu is held from the moment the master client runs a command
	// of the stream until the link counted its bytes (applyHeld), so
	// that a snapshot records the offset of the data it holds
	// (appliedOffset).
	applyMu   sync.Mutex
	applyHeld bool // under applyMu's holder: the link's goroutine
	// masterGuard is the master client's own guard (its guard field is
	// swapped while a command runs under applyOverExpired's lock, which
	// overExpired marks), for appliedOffset to read from any goroutine.
	masterGuard *lock.Guard
	overExpired atomic.Bool
}

// replicaLink returns the link to the master, nil when the server is a
// master.
func (s *Server) replicaLink() *replication.Link { return s.replica.link.Load() }

// isReplica reports whether the server is a replica.
func (s *Server) isReplica() bool { return s.replica.link.Load() != nil }

// readOnlyReplica reports whether clients' writes are refused.
func (s *Server) readOnlyReplica() bool {
	return s.isReplica() && s.cfg.Lookup("replica-read-only").Bool()
}

// servingStale reports whether commands without the stale flag are
// refused (MASTERDOWN): a replica whose link is down, with
// replica-serve-stale-data no.
func (s *Server) servingStale() bool {
	if !s.isReplica() || s.cfg.Lookup("replica-serve-stale-data").Bool() {
		return false
	}
	l := s.replicaLink()
	return l != nil && l.State() != replication.StateConnected
}

// replicaExpires is the keys a writable replica's own clients gave an
// expiry (Redis's slaveKeysWithExpire): the master's stream never removes
// them, so the replica's expiry cycle does.
type replicaExpires struct {
	mu   sync.Mutex // a leaf
	keys map[blockKey]struct{}
}

// count returns how many keys are remembered (INFO's
// slave_expires_tracked_keys).
func (re *replicaExpires) count() int {
	re.mu.Lock()
	defer re.mu.Unlock()
	return len(re.keys)
}

// reset forgets the keys (the role changed).
func (re *replicaExpires) reset() {
	re.mu.Lock()
	re.keys = nil
	re.mu.Unlock()
}

// rememberReplicaExpires records the keys of cmd, a write a client (not
// the master) ran on a replica, that now have an expiry. The caller holds
// their locks.
func (s *Server) rememberReplicaExpires(c *Client, cmd *Command, args [][]byte) {
	db := int(c.dbIndex.Load())
	for _, i := range cmd.keyPositions(nil, args) {
		if e := c.db.StoredEntry(args[i]); e != nil && e.Expire() != 0 {
			re := &s.replicaExpires
			re.mu.Lock()
			if re.keys == nil {
				re.keys = make(map[blockKey]struct{})
			}
			re.keys[blockKey{db, string(args[i])}] = struct{}{}
			re.mu.Unlock()
		}
	}
}

// expireReplicaKeys removes those of the remembered keys that expired,
// each under its lock, counted and notified as the expiry cycle does, and
// forgets the keys that are gone or lost their expiry.
func (s *Server) expireReplicaKeys() {
	re := &s.replicaExpires
	re.mu.Lock()
	keys := make([]blockKey, 0, len(re.keys))
	for k := range re.keys {
		keys = append(keys, k)
	}
	re.mu.Unlock()
	if len(keys) == 0 {
		return
	}
	st := &s.expire
	if st.guard == nil {
		st.guard = s.locks.NewGuard(rand.Uint64())
		st.cursors = make([]int, len(s.dbs))
	}
	for _, k := range keys {
		st.key = append(st.key[:0], k.key...)
		if !st.guard.TryLockKey(st.key) {
			continue // busy: the next cycle
		}
		db := s.dbs[k.db]
		e := db.StoredEntry(st.key)
		forget := e == nil || e.Expire() == 0
		if !forget && db.DeleteExpired(st.key) {
			forget = true
			s.stats.expiredKeys.Add(1)
			s.notifyDB(k.db, evExpired, "expired", st.key)
			s.searchSync(st.guard)
		}
		st.guard.Unlock()
		if forget {
			re.mu.Lock()
			delete(re.keys, k)
			re.mu.Unlock()
		}
	}
}

// enoughReplicas reports whether a master has the replicas
// min-replicas-to-write asks for: online, and acknowledged within
// min-replicas-max-lag seconds (Redis's checkGoodReplicasStatus).
func (s *Server) enoughReplicas() bool {
	want := s.minReplicas.Int()
	maxLag := s.minReplicasLag.Int()
	if want == 0 || maxLag == 0 || s.isReplica() {
		return true
	}
	now := time.Now().Unix()
	good := int64(0)
	for _, r := range s.repl.Replicas() {
		if r.Online(s.repl) && now-r.AckTime.Load() <= maxLag {
			good++
		}
	}
	return good >= want
}

// REPLICAOF host port | NO ONE (and SLAVEOF)
func cmdReplicaof(c *Client, args [][]byte) {
	s := c.srv
	if s.failover.state.Load() != failoverNone {
		c.errorReply(errReplicaofFailingOver)
		return
	}
	if equalFold(args[1], "no") && equalFold(args[2], "one") {
		if s.isReplica() {
			s.stopReplication()
			s.logf("MASTER MODE enabled (user request from '%s')", clientInfoLine(c))
		}
		c.w.OK()
		return
	}
	if c.replica.Load() != nil {
		c.errorReply(errReplicaofFromReplica)
		return
	}
	port, ok := parseInt(args[2])
	if !ok || port < 0 || port > 65535 {
		c.errorReply(errNotInt)
		return
	}
	host := string(args[1])
	if l := s.replicaLink(); l != nil && l.Host() == host && l.Port() == int(port) {
		s.logf("REPLICAOF would result into synchronization with the master we are already connected with. No operation performed.")
		c.w.Simple("OK Already connected to specified master")
		return
	}
	s.startReplication(host, int(port), false)
	s.logf("REPLICAOF %s:%d enabled (user request from '%s')", host, port, clientInfoLine(c))
	c.w.OK()
}

// clientInfoLine is the CLIENT LIST line of c, as Redis's logs quote the
// client that asked.
func clientInfoLine(c *Client) string {
	return string(c.appendClientInfo(nil, c, nil, time.Now()))
}

// startReplication makes the server a replica of host:port: a running
// link is closed, keys stop expiring on their own, blocked clients are
// ended, and a new link starts. The replicas attached here stay until
// the synchronization with the new master says whether they can go on.
func (s *Server) startReplication(host string, port int, failover bool) {
	rs := &s.replica
	rs.mu.Lock()
	defer rs.mu.Unlock()
	var cachedID string
	var cachedOffset int64
	streamDB := 0
	if l := rs.link.Load(); l != nil {
		l.Close()
		// A replica offers its master's stream (Redis's cached master),
		// to continue it with the new master when it has it too.
		if l.ReplID() != "" && l.Offset() >= 0 {
			cachedID, cachedOffset, streamDB = l.ReplID(), l.Offset(), int(rs.master.dbIndex.Load())
		}
	} else if r := rs.restored; r != nil {
		// A replica that restarted offers the stream its snapshot
		// recorded (Redis's loadDataFromDisk).
		cachedID, cachedOffset, streamDB = r.ID, r.Offset, r.StreamDB
		rs.restored = nil
	} else {
		// A master offers its own stream, to continue it with the new
		// master when their histories meet (a failover, a demotion).
		cachedID, cachedOffset = s.repl.ReplID(), s.repl.Offset()
	}
	// Its replicas stay: they go on with this server's new master when
	// the ID stays (Synced disconnects them otherwise), as Redis's.
	s.disconnectBlocked()
	for _, db := range s.dbs {
		db.HoldExpired.Store(true) // a replica keeps them all along
	}
	// CONFIG GET and CONFIG REWRITE show the master, as Redis's; the OOM
	// score is the replica class's.
	s.cfg.Assign("replicaof", host, strconv.Itoa(port))
	s.setOOMScoreAdj(-1)
	s.replicaExpires.reset()
	s.journal.SetProxy(true) // its replicas get its master's stream
	s.logger.SetRole('S')
	if rs.master == nil {
		rs.master = s.newInternalClient(masterClient, s.nextID.Add(1), 0)
		rs.masterGuard = rs.master.guard
	}
	mc := rs.master
	mc.db = s.dbs[streamDB]
	mc.dbIndex.Store(int32(streamDB))
	var self atomic.Pointer[replication.Link] // the link, for its Apply
	stopping := func() bool { l := self.Load(); return l != nil && l.Stopping() }
	l := replication.Connect(replication.LinkConfig{
		Host: host, Port: port,
		ListeningPort: func() int {
			if p := s.cfg.Lookup("replica-announce-port").Int(); p != 0 {
				return int(p)
			}
			if p := s.cfg.Lookup("tls-port").Int(); p != 0 && s.cfg.Lookup("tls-replication").Bool() {
				return int(p)
			}
			return int(s.cfg.Lookup("port").Int())
		},
		Dial:       s.dialMaster,
		AnnounceIP: func() string { return s.cfg.Lookup("replica-announce-ip").String() },
		Auth: func() (string, string) {
			return s.cfg.Lookup("masteruser").String(), s.cfg.Lookup("masterauth").String()
		},
		Timeout:      func() time.Duration { return time.Duration(s.cfg.Lookup("repl-timeout").Int()) * time.Second },
		CachedID:     cachedID,
		CachedOffset: cachedOffset,
		Failover: func() bool {
			return failover && s.failover.state.Load() == failoverInProgress
		},
		FailoverDone: s.failoverDone,
		DisklessLoad: s.disklessLoad,
		Load:         s.loadFromMaster,
		Apply: func(args [][]byte) bool {
			// CLIENT PAUSE holds the master's stream too, as Redis
			// pauses its master client: the offset stays until it ends.
			cmd := mc.lookupMemo(args)
			if cmd != nil {
				for s.pausedFor(mc, cmd, args) && !stopping() {
					time.Sleep(time.Millisecond)
				}
			}
			if cmd != nil && s.touchesExpired(mc, cmd, args) {
				s.applyOverExpired(mc, args) // takes the global lock, then applyMu
			} else {
				rs.applyMu.Lock()
				s.dispatch(mc, args)
			}
			mc.w.Reset()
			mc.publishStats() // INFO commandstats counts the master's commands
			if mc.tx.active {
				rs.applyMu.Unlock() // queued: nothing ran
				return false
			}
			rs.applyHeld = true // until Proxy, once the link counted it
			return true
		},
		Prefetch: func(rd *resp.Reader) {
			// As a connection's pipeline (serveInput): the keys of the
			// buffered commands, once per run of them.
			if mc.warmed > 0 {
				mc.warmed--
			} else if rd.Buffered() {
				mc.prefetchFrom(rd)
			}
		},
		Lost: func() {
			mc.warmed = 0 // the next session's reader is a new one
			if mc.tx.active {
				mc.discardTx() // the rest of it comes again
			}
		},
		Synced: func(replID string, offset int64, full bool) {
			changed := s.repl.ReplID() != replID
			if full {
				s.disconnectReplicas() // they resynchronize with the new data
			}
			s.repl.Follow(replID, offset, full)
			if !full && changed {
				s.disconnectReplicas() // they learn the new ID, and continue
			}
		},
		Proxy: func(raw []byte) {
			s.journal.AppendRaw(raw)
			if rs.applyHeld {
				rs.applyHeld = false
				rs.applyMu.Unlock()
			}
		},
		Logf:  func(f string, a ...any) { s.logf(f, a...) },
		Warnf: func(f string, a ...any) { s.warnf(f, a...) },
	})
	self.Store(l)
	rs.link.Store(l)
}

// appendMasterInfo appends CLIENT LIST's line of a replica's master
// client — its link's connection — as Redis lists it (flag M), when the
// link is connected; ok is false otherwise.
func (s *Server) appendMasterInfo(dst []byte, now time.Time) (_ []byte, id uint64, ok bool) {
	l := s.replicaLink()
	if l == nil {
		return dst, 0, false
	}
	remote, local, fd, since := l.ConnInfo()
	if remote == "" {
		return dst, 0, false
	}
	mc := s.replica.master
	cmd := "NULL"
	if lc := mc.lastCmd.Load(); lc != nil {
		cmd = lc.fullName()
	}
	dst = fmt.Appendf(dst, "id=%d addr=%s laddr=%s fd=%d name= age=%d idle=%d flags=M db=%d sub=0 psub=0 ssub=0 multi=-1 qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 rbs=0 rbp=0 obl=0 oll=0 omem=0 tot-mem=0 events=r cmd=%s user=(superuser) redir=-1 resp=2",
		mc.id, remote, local, fd, now.Unix()-since.Unix(), now.Unix()-l.LastIO(), mc.dbIndex.Load(), cmd)
	return dst, mc.id, true
}

// touchesExpired reports whether the master's command cmd (EXEC: its
// queued commands) names a key stored here but expired by the replica's
// clock.
func (s *Server) touchesExpired(mc *Client, cmd *Command, args [][]byte) bool {
	expired := func(cmd *Command, args [][]byte) bool {
		for _, i := range cmd.keyPositions(nil, args) {
			if mc.db.Expired(args[i]) {
				return true
			}
		}
		return false
	}
	if mc.tx.active {
		if cmd.Flags&RunsQueue == 0 {
			return false // queued: it runs with EXEC
		}
		for _, q := range mc.tx.queue {
			if expired(q.cmd, q.args) {
				return true
			}
		}
		return false
	}
	return expired(cmd, args)
}

// applyOverExpired runs a command of the master's stream that touches a
// key expired by the replica's clock as Redis's master client does: it
// sees the key as it is (the master's DEL ends it, not the replica's
// clock; an INCR of it keeps its expiry). Every database keeps its
// expired keys meanwhile, under the global lock: no other command runs.
// It returns holding applyMu, as the stream's other commands run.
func (s *Server) applyOverExpired(mc *Client, args [][]byte) {
	g := s.locks.NewGuard(rand.Uint64())
	g.LockGlobal()
	s.replica.applyMu.Lock() // after the lock: a snapshot waits for neither
	rs := &s.replica
	rs.overExpired.Store(true)
	own := mc.guard
	mc.guard, mc.callerLocks = g, true
	for _, db := range s.dbs {
		db.KeepExpired.Store(true)
	}
	s.dispatch(mc, args)
	for _, db := range s.dbs {
		db.KeepExpired.Store(false)
	}
	rs.overExpired.Store(false)
	if mc.tx.active {
		g.Unlock() // queued: nothing ran
	} else {
		s.complete(mc) // its locks' work, then g is released
	}
	mc.guard, mc.callerLocks = own, false
}

// appliedOffset returns the offset of the master's stream the dataset
// holds, for a snapshot taken under the exclusive global lock: a command
// of the stream that ran is counted once the link counted its bytes,
// which it does without a lock; one waiting for its locks has not run;
// one that holds the global lock is the snapshot's caller.
func (s *Server) appliedOffset(l *replication.Link) int64 {
	rs := &s.replica
	for !rs.applyMu.TryLock() {
		if g := rs.masterGuard; g.Pending() || g.GlobalExclusive() || rs.overExpired.Load() {
			// Its command waits for the lock the snapshot's caller
			// holds, or is that caller (a FLUSHALL that saves): it is
			// not counted yet, as in Redis.
			return l.Offset()
		}
		runtime.Gosched()
	}
	defer rs.applyMu.Unlock()
	return l.Offset()
}

// stopReplication makes the replica a master again: the link closes,
// keys expire again, and the stream goes on under a new replication ID,
// the old one kept as the second (Redis's shiftReplicationId), so that
// the replicas attached here, disconnected to learn it, continue.
func (s *Server) stopReplication() {
	rs := &s.replica
	rs.mu.Lock()
	defer rs.mu.Unlock()
	l := rs.link.Load()
	if l == nil {
		return
	}
	l.Close()
	rs.link.Store(nil)
	s.cfg.Assign("replicaof", "no", "one")
	s.setOOMScoreAdj(-1)
	s.journal.SetProxy(false)
	s.replicaExpires.reset() // the expiry cycle takes every key again
	s.logger.SetRole('M')
	s.updateHoldExpired()
	s.repl.Promote()
	// Its replicas reconnect to learn the new ID, and continue under the
	// second one (Redis 7.0's replicationUnsetMaster).
	s.disconnectReplicas()
}

// disconnectReplicas closes the connections of the replicas attached
// here.
func (s *Server) disconnectReplicas() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.mu.clients {
		if c.replica.Load() != nil {
			c.kill()
		}
	}
}

// ROLE
func cmdRole(c *Client, args [][]byte) {
	s := c.srv
	if l := s.replicaLink(); l != nil {
		c.w.Array(5)
		c.w.BulkString("slave")
		c.w.BulkString(l.Host())
		c.w.Int(int64(l.Port()))
		c.w.BulkString(l.State())
		c.w.Int(l.Offset())
		return
	}
	reps := s.repl.Replicas()
	c.w.Array(3)
	c.w.BulkString("master")
	c.w.Int(s.repl.Offset())
	c.w.Array(len(reps))
	for _, r := range reps {
		c.w.Array(3)
		c.w.BulkString(r.Host())
		c.w.BulkString(strconv.FormatInt(r.ListeningPort.Load(), 10))
		c.w.BulkString(strconv.FormatInt(r.AckOffset.Load(), 10))
	}
}

// stopLink stops the link to the master at shutdown, without waiting
// (the shutting-down command may hold locks the link's command needs).
func (s *Server) stopLink() {
	if l := s.replicaLink(); l != nil {
		l.Stop()
	}
}
