package server

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/bgchild"
	"github.com/hotkv/hotkv/rdb"
	"github.com/hotkv/hotkv/replication"
)

// The master side of replication (package replication): SYNC and PSYNC
// attach the connection as a replica and send it a snapshot, then the
// journal's stream — or, for a PSYNC whose replication ID and offset the
// backlog can serve, "+CONTINUE" and the stream from that offset;
// REPLCONF carries what the replica tells its master. The replica role is
// in replica.go.

func replicationCommands() []*Command {
	return []*Command{
		// The snapshot and the replica's place in the stream are taken
		// at one point: under the exclusive global lock.
		{Name: "sync", Arity: 1, Flags: Admin | NoScript | NoAsyncLoading | NoMulti | Global, Handler: cmdSync},
		{Name: "psync", Arity: -3, Flags: Admin | NoScript | NoAsyncLoading | NoMulti, GlobalFor: psyncNeedsGlobal, Handler: cmdSync},
		{Name: "failover", Arity: -1, Flags: Admin | NoScript | Stale | LockFree, Handler: cmdFailover},
		// Lock-free: changing the role waits for the command the link
		// is applying, which may need any lock.
		{Name: "replicaof", Arity: 3, Flags: Admin | NoScript | Stale | NoAsyncLoading | LockFree, Handler: cmdReplicaof},
		{Name: "slaveof", Arity: 3, Flags: Admin | NoScript | Stale | NoAsyncLoading | LockFree, Handler: cmdReplicaof},
		{Name: "role", Arity: 1, Flags: NoScript | Loading | Stale | Fast | LockFree, Handler: cmdRole},
		{Name: "wait", Arity: 3, Flags: NoScript | LockFree, Handler: cmdWait},
		{Name: "replconf", Arity: -1, Flags: Admin | NoScript | Loading | Stale | AllowBusy | LockFree, Handler: cmdReplconf},
	}
}

// replStats counts the synchronizations replicas asked for (INFO stats).
type replStats struct{ full, partialOK, partialErr atomic.Int64 }

// replicaSink is a replica's connection (replication.Sink): what goes
// ahead of the stream (replies, the payload) is queued as pub/sub
// messages are; the stream itself is taken from the shared replication
// buffer by the connection's loop (feedReplica). A replica whose output
// passes the replica class's client-output-buffer-limit is disconnected.
type replicaSink struct{ c *Client }

func (k replicaSink) Send(b []byte) {
	c := k.c
	if !evented(c.conn) {
		c.conn.Write(b)
		return
	}
	c.queuePush(b)
	c.closeOnOutputLimit(0, false)
}

func (k replicaSink) Notify(check bool) {
	c := k.c
	if !evented(c.conn) {
		// A connection with a goroutine of its own: its writes block.
		if r := c.replica.Load(); r != nil {
			for p := r.Next(replicaWriteAhead); len(p) > 0; p = r.Next(replicaWriteAhead) {
				c.conn.Write(p)
			}
		}
		return
	}
	if c.replFeed.CompareAndSwap(false, true) {
		c.conn.Invoke(c.feedFn)
	}
	if check {
		c.closeOnOutputLimit(0, false)
	}
}

// replicaWriteAhead is how much of the stream a replica's connection
// takes from the shared buffer beyond what its socket accepted: the rest
// waits there, shared, until the socket drains.
const replicaWriteAhead = 256 << 10

// drainNotifier is a connection that runs a task once its queued output
// is sent (eventloop.Conn.OnDrain).
type drainNotifier interface{ OnDrain(fn func()) bool }

// feedReplica writes what the shared replication buffer has for c, a
// replica, up to replicaWriteAhead bytes queued on its connection; it
// goes on once they are sent. It runs on c's loop.
func (c *Client) feedReplica() {
	c.replFeed.Store(false)
	r := c.replica.Load()
	if r == nil || !r.Online(c.srv.repl) || c.conn == nil {
		return
	}
	c.writePushes() // the payload and replies queued before the stream
	om, _ := c.conn.(outputMemer)
	dn, _ := c.conn.(drainNotifier)
	for !c.killed.Load() {
		if om != nil && dn != nil {
			if mem, _ := om.OutputMem(); mem >= replicaWriteAhead {
				if dn.OnDrain(c.scheduleFeed) {
					return
				}
			}
		}
		p := r.Next(replicaWriteAhead)
		if len(p) == 0 {
			return
		}
		c.conn.Write(p)
	}
}

// scheduleFeed has feedReplica run on c's loop.
func (c *Client) scheduleFeed() {
	if c.replFeed.CompareAndSwap(false, true) {
		c.feedReplica()
	}
}

// SYNC, PSYNC replicationid offset
func cmdSync(c *Client, args [][]byte) {
	s := c.srv
	if c.replica.Load() != nil {
		return // already a replica: ignored, as Redis does
	}
	// Made before the buffer can notify c (Continue, Attach), which
	// reads it.
	c.feedFn = c.feedReplica
	psync := equalFold(args[0], "psync")
	if psync && isFailoverPsync(args) {
		// Its master hands over: this replica becomes a master, then
		// answers the PSYNC as one, under the global lock.
		if !s.failoverRequest(c, args[1]) {
			return
		}
		g := s.locks.NewGuard(c.id)
		g.LockGlobal()
		defer g.Unlock()
	}
	if psync {
		if _, ok := parseInt(args[2]); !ok {
			c.errorReply(errNotInt)
			s.warnf("Replica %s asks for synchronization but with a wrong offset", replicaName(c))
			return
		}
	}
	if s.failover.state.Load() != failoverNone {
		c.errorReply(errSyncFailingOver)
		return
	}
	if l := s.replicaLink(); l != nil && l.State() != replication.StateConnected {
		c.errorReply(errSyncNoMasterLink)
		return
	}
	if len(c.w.Buf) > 0 {
		c.errorReply(errSyncPendingOutput)
		return
	}
	if c.replicaFilter != filterNone && !c.replicaEOF {
		c.errorReply(errSyncFilterNeedsEOF)
		return
	}
	if s.cfg.Lookup("repl-disable-tcp-nodelay").Bool() {
		// Fewer, bigger packets to the replica, as Redis's syncCommand.
		if fd := c.conn.Fd(); fd >= 0 {
			setNoDelay(fd, false)
		}
	}
	name := replicaName(c)
	s.logf("Replica %s asks for synchronization", name)
	if psync && !bytes.Equal(args[1], []byte("?")) {
		offset, _ := parseInt(args[2])
		r, why := s.repl.Continue(replicaSink{c}, peerString(c.conn.RemoteAddr()), string(args[1]), offset)
		if r != nil {
			s.replStats.partialOK.Add(1)
			r.ListeningPort.Store(c.replicaPort.Load())
			r.AnnouncedIP.Store(c.replicaIP)
			c.replica.Store(r)
			c.replicaOnline.Store(true)
			replicaSink{c}.Notify(true) // the backlog from offset: c can take it now
			s.logf("Partial resynchronization request from %s accepted. Sending bytes of backlog starting from offset %d.", name, offset)
			return
		}
		s.logf("Partial resynchronization not accepted: %s", why)
		s.replStats.partialErr.Add(1)
	} else if psync {
		s.logf("Full resync requested by replica %s", name)
	}
	s.replStats.full.Add(1)
	w := syncWaiter{c: c, psync: psync, name: name}
	// A filtered or payload-only request goes to the socket, as Redis.
	if c.replicaEOF && (s.cfg.Lookup("repl-diskless-sync").Bool() || c.replicaFilter != filterNone || c.replicaRDBOnly) {
		// Diskless: the payload streams to the replicas that asked
		// within repl-diskless-sync-delay, all from one snapshot.
		s.disklessEnqueue(w)
		return
	}
	s.startFullSync([]syncWaiter{w}, false) // under the global lock, taken at the gate
}

// replicaReplied drops the reply a replica's command produced after
// mark and disconnects it, as Redis's _addReplyToBufferOrList: its
// connection carries the stream, where a reply would be taken for a
// command.
func (c *Client) replicaReplied(mark int) {
	c.w.Buf = c.w.Buf[:mark]
	name := "<unknown>"
	if cmd := c.lastLookup; cmd != nil {
		name = cmd.fullName()
	}
	c.srv.warnf("Replica generated a reply to command '%s', disconnecting it: %s", name, clientInfoLine(c))
	c.kill()
}

// rdbFilter is what a replica's payload includes (REPLCONF
// rdb-filter-only).
type rdbFilter int

const (
	filterNone      rdbFilter = iota // everything
	filterNothing                    // rdb-filter-only "": an empty RDB
	filterFunctions                  // rdb-filter-only functions
)

// filtered returns the snapshot with only what f includes.
func (snap *snapshot) filtered(f rdbFilter) *snapshot {
	if f == filterNone {
		return snap
	}
	out := &snapshot{dbs: make([][]snapKey, len(snap.dbs)), dirty: snap.dirty, view: snap.view} // no keys (cow nil)
	if f == filterFunctions {
		out.functions = snap.functions
	}
	return out
}

// syncWaiter is a replica that asked for a full synchronization.
type syncWaiter struct {
	c     *Client
	psync bool
	name  string
}

// startFullSync starts the full synchronization of the replicas ws from
// one snapshot: each is attached at the snapshot's point and, for PSYNC,
// told +FULLRESYNC; a goroutine encodes the snapshot and sends it to
// them, as a sized bulk or, diskless (eof), in the "$EOF:<mark>" form. The
// caller holds the global lock exclusively.
func (s *Server) startFullSync(ws []syncWaiter, eof bool) {
	snap := s.startSnapshot()
	type started struct {
		w syncWaiter
		r *replication.Replica
	}
	var rs []started
	for _, w := range ws {
		c := w.c
		c.replicaWaiting.Store(false)
		if c.killed.Load() || c.gone.Load() {
			continue
		}
		r, offset := s.repl.Attach(replicaSink{c}, peerString(c.conn.RemoteAddr()), w.psync)
		r.ListeningPort.Store(c.replicaPort.Load())
		r.AnnouncedIP.Store(c.replicaIP)
		c.replica.Store(r)
		c.replicaOnline.Store(false)
		if c.gone.Load() {
			// Removed while being attached: whichever of this and
			// removeClient's detachReplica takes r from c detaches it.
			if c.replica.CompareAndSwap(r, nil) {
				s.repl.Detach(r)
			}
			continue
		}
		if w.psync {
			// Through the replica's queue, ahead of the payload.
			replicaSink{c}.Send(fmt.Appendf(nil, "+FULLRESYNC %s %d\r\n", s.repl.ReplID(), offset))
		}
		rs = append(rs, started{w, r})
	}
	if len(rs) == 0 {
		snap.release() // nobody left to send it to
		return
	}
	target := "disk"
	if eof {
		target = "replicas sockets"
	}
	s.logf("Starting BGSAVE for SYNC with target: %s", target)
	opts := rs[0].w.c.encodeOptions()
	go func() {
		defer snap.release() // encoded once (filterNone) or by nobody
		if !eof {
			reps := make([]*pipeReplica, len(rs))
			for i, x := range rs {
				reps[i] = &pipeReplica{r: x.r, c: x.w.c, name: x.w.name}
			}
			s.diskPayload(snap, opts, reps)
			return
		}
		// Diskless: one child per filter asked for, one after the other,
		// each streaming its payload to its replicas (rdbpipe.go).
		groups := map[rdbFilter][]*pipeReplica{}
		var order []rdbFilter
		for _, x := range rs {
			f := x.w.c.replicaFilter
			if groups[f] == nil {
				order = append(order, f)
			}
			groups[f] = append(groups[f], &pipeReplica{r: x.r, c: x.w.c, name: x.w.name})
		}
		var full *snapshot
		for _, f := range order {
			job, err := s.startSyncChild(bgchild.Sockets, "", "")
			if err != nil {
				s.warnf("Can't save in background: fork: %s", errnoText(err))
				for _, pr := range groups[f] {
					pr.c.kill()
				}
				continue
			}
			if full == nil {
				// A save in progress for INFO (rdb_bgsave_in_progress),
				// as Redis's fork for the replicas is, from the moment
				// its child exists.
				s.persist.replPayloads.Add(1)
				s.persist.replStarted.Store(time.Now().Unix())
				defer s.persist.replPayloads.Add(-1)
			}
			s.logf("Background RDB transfer started by pid %d", job.child.Pid())
			if full == nil {
				full = snap.snap
			}
			s.pipePayload(job, full.filtered(f), opts, groups[f])
		}
	}()
}

// replicaSynced puts c, a replica whose payload was sent, online: its
// connection takes the stream from now on, unless it asked for the
// payload only.
func (s *Server) replicaSynced(c *Client, r *replication.Replica, name string) {
	if c.replicaRDBOnly {
		s.repl.Detach(r) // the payload only: no stream follows
		s.logf("Diskless payload sent to replica %s (rdb-only): no replication stream", name)
		return
	}
	c.replicaOnline.Store(true)
	s.logf("Synchronization with replica %s succeeded", name)
}

// diskPayload is a disk-based full synchronization, as Redis's: a child
// (bgchild.RDB) saves snap to the snapshot file, a background save like
// BGSAVE's, and the file is then sent to the replicas reps still there as
// a sized bulk. Once none waits for it, the child is killed unless save
// points are configured (the file is of use then), as Redis's
// unlinkClient does.
func (s *Server) diskPayload(cs *cowSnap, opts rdb.EncodeOptions, reps []*pipeReplica) {
	path := s.rdbPath()
	job, err := s.startSyncChild(bgchild.RDB, filepath.Dir(path), path)
	if err != nil {
		s.warnf("Can't save in background: fork: %s", errnoText(err))
		for _, pr := range reps {
			pr.c.kill()
		}
		cs.release()
		return
	}
	defer s.endSyncChild(job)
	ps := &s.persist
	ps.replPayloads.Add(1)
	ps.replStarted.Store(time.Now().Unix())
	defer ps.replPayloads.Add(-1)
	s.logf("Background saving started by pid %d", job.child.Pid())
	snap := cs.snap
	go func() {
		for {
			select {
			case <-job.child.Done():
				return
			case <-time.After(10 * time.Millisecond):
			}
			left := 0
			for _, pr := range reps {
				if pr.alive() {
					left++
				}
			}
			if left == 0 && s.cfg.Lookup("save").String() == "" {
				job.stop()
				return
			}
		}
	}()
	locked := false
	st := s.feedChild(job.child, job.kill, func(w io.Writer, stop <-chan struct{}) error {
		// One save at a time writes the file; a job killed meanwhile
		// stops waiting.
		for !ps.mu.TryLock() {
			select {
			case <-stop:
				return errSaveKilled
			case <-time.After(time.Millisecond):
			}
		}
		locked = true
		sn := *snap
		sn.kill = stop
		return s.encodeSnapshot(w, &sn, opts, false)
	})
	s.bgsaveDone(snap, st)
	var payload []byte
	if st.OK() {
		// Read before another save may replace it.
		payload, err = os.ReadFile(path)
		if err != nil {
			s.warnf("SYNC failed. Can't open/stat DB after BGSAVE: %s", errnoText(err))
		}
	}
	if locked {
		ps.mu.Unlock()
	}
	for _, pr := range reps {
		if !pr.alive() {
			continue
		}
		switch {
		case !st.OK():
			s.warnf("SYNC failed. BGSAVE child returned an error")
			pr.c.kill()
		case err != nil:
			pr.c.kill()
		default:
			s.repl.Start(pr.r, payload, false)
			s.replicaSynced(pr.c, pr.r, pr.name)
		}
	}
}

// disklessState holds the replicas waiting for a diskless transfer.
type disklessState struct {
	mu      sync.Mutex // a leaf
	waiting []syncWaiter
	running bool // a goroutine waits out the delay
}

// disklessEnqueue adds w to the replicas waiting for the next diskless
// transfer, which starts repl-diskless-sync-delay seconds after the first
// one asked (or once repl-diskless-sync-max-replicas are waiting); they
// get a newline every second meanwhile, as Redis keeps their links alive.
func (s *Server) disklessEnqueue(w syncWaiter) {
	ds := &s.diskless
	w.c.replicaWaiting.Store(true)
	ds.mu.Lock()
	ds.waiting = append(ds.waiting, w)
	start := !ds.running
	ds.running = true
	ds.mu.Unlock()
	if start {
		go s.disklessWait()
	}
}

func (s *Server) disklessWait() {
	ds := &s.diskless
	deadline := time.Now().Add(time.Duration(s.cfg.Lookup("repl-diskless-sync-delay").Int()) * time.Second)
	lastNewline := time.Now()
	keepalive := s.locks.NewGuard(rand.Uint64())
	for {
		ds.mu.Lock()
		n := len(ds.waiting)
		ds.mu.Unlock()
		max := s.cfg.Lookup("repl-diskless-sync-max-replicas").Int()
		if !time.Now().Before(deadline) || max > 0 && int64(n) >= max || s.closing.Load() {
			break
		}
		time.Sleep(min(time.Until(deadline), 100*time.Millisecond))
		// The newlines stop while a command holds the whole server (DEBUG
		// SLEEP), as Redis's cron does: the replicas' timeouts see it.
		if time.Since(lastNewline) >= time.Second && keepalive.TryLockKeys(nil, false) {
			lastNewline = time.Now()
			ds.mu.Lock()
			for _, w := range ds.waiting {
				replicaSink{w.c}.Send([]byte("\n"))
			}
			ds.mu.Unlock()
			keepalive.Unlock()
		}
	}
	g := s.locks.NewGuard(rand.Uint64())
	g.LockGlobal()
	defer g.Unlock()
	ds.mu.Lock()
	ws := ds.waiting
	ds.waiting, ds.running = nil, false
	ds.mu.Unlock()
	if !s.closing.Load() {
		s.startFullSync(ws, true)
	}
}

// replicaName is how Redis names a replica in its log: ip:port, the
// address and port it announced when it did (REPLCONF ip-address and
// listening-port).
func replicaName(c *Client) string {
	host, _, err := net.SplitHostPort(peerString(c.conn.RemoteAddr()))
	if err != nil {
		return peerString(c.conn.RemoteAddr())
	}
	if c.replicaIP != "" {
		host = c.replicaIP
	}
	port := c.replicaPort.Load()
	if port == 0 {
		_, p, _ := net.SplitHostPort(peerString(c.conn.RemoteAddr()))
		return net.JoinHostPort(host, p)
	}
	return net.JoinHostPort(host, strconv.FormatInt(port, 10))
}

// netHostStrLen is Redis's NET_HOST_STR_LEN: an announced address must
// be shorter.
const netHostStrLen = 256

// REPLCONF option value [option value ...]
func cmdReplconf(c *Client, args [][]byte) {
	if len(args)%2 == 0 {
		c.errorReply(errSyntax)
		return
	}
	for i := 1; i < len(args); i += 2 {
		opt, val := args[i], args[i+1]
		switch {
		case equalFold(opt, "listening-port"):
			port, ok := parseInt(val)
			if !ok {
				c.errorReply(errNotInt)
				return
			}
			c.replicaPort.Store(port)
			if r := c.replica.Load(); r != nil {
				r.ListeningPort.Store(port)
			}
		case equalFold(opt, "capa"):
			if equalFold(val, "eof") {
				c.replicaEOF = true // it reads diskless payloads
			}
		case equalFold(opt, "rdb-only"):
			n, ok := parseInt(val)
			if !ok || n < 0 || n > 1 {
				c.errorReply(errReplconfRDBOnly)
				return
			}
			c.replicaRDBOnly = n == 1 // the payload, not the stream (redis-cli --rdb)
		case equalFold(opt, "rdb-filter-only"):
			// What the payload includes: nothing, or the functions.
			c.replicaFilter = filterNothing
			for _, f := range strings.Fields(string(val)) {
				if !equalFold([]byte(f), "functions") {
					c.errorReply(fmt.Sprintf(errReplconfFilter, f))
					return
				}
				c.replicaFilter = filterFunctions
			}
		case equalFold(opt, "ip-address"):
			// The address INFO, ROLE and the log show for the replica.
			if len(val) >= netHostStrLen {
				c.errorReply(fmt.Sprintf(errReplconfIPTooLong, len(val)))
				return
			}
			c.replicaIP = string(val)
			if r := c.replica.Load(); r != nil {
				r.AnnouncedIP.Store(c.replicaIP)
			}
		case equalFold(opt, "ack"), equalFold(opt, "fack"):
			// A replica's acknowledgement: no reply.
			r := c.replica.Load()
			if r == nil {
				return
			}
			if off, ok := parseInt(val); ok && equalFold(opt, "ack") {
				if off > r.AckOffset.Load() {
					r.AckOffset.Store(off)
				}
				r.AckTime.Store(time.Now().Unix())
			}
			return
		case equalFold(opt, "getack"):
			return // only a replica answers it
		default:
			c.errorReply(fmt.Sprintf(errReplconfOption, opt))
			return
		}
	}
	c.w.OK()
}

// detachReplica stops the stream to c, a replica whose connection closed.
func (s *Server) detachReplica(c *Client) {
	if r := c.replica.Swap(nil); r != nil {
		s.repl.Detach(r)
		s.logf("Connection with replica %s lost.", replicaName(c))
	}
}

// infoReplication is INFO's replication section: the replicas attached,
// and the stream's offset.
func (s *Server) infoReplication(b []byte) []byte {
	reps := s.repl.Replicas()
	now := time.Now().Unix()
	replID, offset := s.repl.ReplID(), s.repl.Offset()
	if l := s.replicaLink(); l != nil {
		b = append(b, "role:slave\r\n"...)
		b = fmt.Appendf(b, "master_host:%s\r\nmaster_port:%d\r\n", l.Host(), l.Port())
		up, last := "down", int64(-1)
		if l.State() == replication.StateConnected {
			up, last = "up", now-l.LastIO()
		}
		b = fmt.Appendf(b, "master_link_status:%s\r\nmaster_last_io_seconds_ago:%d\r\n", up, last)
		sync := 0
		if l.State() == replication.StateSync {
			sync = 1
		}
		b = fmt.Appendf(b, "master_sync_in_progress:%d\r\n", sync)
		b = fmt.Appendf(b, "slave_read_repl_offset:%d\r\nslave_repl_offset:%d\r\n", l.ReadOffset(), l.Offset())
		if sync == 1 {
			size, read := l.Transfer()
			perc := 0.0
			if size > 0 {
				perc = float64(read) / float64(size) * 100
			}
			b = fmt.Appendf(b, "master_sync_total_bytes:%d\r\nmaster_sync_read_bytes:%d\r\nmaster_sync_left_bytes:%d\r\nmaster_sync_perc:%.2f\r\nmaster_sync_last_io_seconds_ago:%d\r\n",
				size, read, size-read, perc, now-l.LastIO())
		}
		if up == "down" {
			down := int64(-1)
			if since := l.DownSince(); since != 0 {
				down = now - since
			}
			b = fmt.Appendf(b, "master_link_down_since_seconds:%d\r\n", down)
		}
		b = fmt.Appendf(b, "slave_priority:%d\r\n", s.cfg.Lookup("replica-priority").Int())
		b = fmt.Appendf(b, "slave_read_only:%d\r\n", boolInt(s.cfg.Lookup("replica-read-only").Bool()))
		b = fmt.Appendf(b, "replica_announced:%d\r\n", boolInt(s.cfg.Lookup("replica-announced").Bool()))
		if id := l.ReplID(); id != "" {
			replID = id
		}
		offset = max(l.Offset(), 0)
	} else {
		b = append(b, "role:master\r\n"...)
	}
	b = fmt.Appendf(b, "connected_slaves:%d\r\n", len(reps))
	for i, r := range reps {
		state := "wait_bgsave"
		if r.Online(s.repl) {
			state = "online"
		}
		b = fmt.Appendf(b, "slave%d:ip=%s,port=%d,state=%s,offset=%d,lag=%d\r\n",
			i, r.Host(), r.ListeningPort.Load(), state, r.AckOffset.Load(), now-r.AckTime.Load())
	}
	b = fmt.Appendf(b, "master_failover_state:%s\r\n", failoverStateNames[s.failover.state.Load()])
	b = fmt.Appendf(b, "master_replid:%s\r\n", replID)
	replID2, second := s.repl.Second()
	b = fmt.Appendf(b, "master_replid2:%s\r\n", replID2)
	b = fmt.Appendf(b, "master_repl_offset:%d\r\n", offset)
	active, first, histlen := s.repl.Backlog()
	b = fmt.Appendf(b, "second_repl_offset:%d\r\nrepl_backlog_active:%d\r\n", second, boolInt(active))
	b = fmt.Appendf(b, "repl_backlog_size:%d\r\n", s.cfg.Lookup("repl-backlog-size").Int())
	return fmt.Appendf(b, "repl_backlog_first_byte_offset:%d\r\nrepl_backlog_histlen:%d\r\n", first, histlen)
}

// replicationMemory returns INFO memory's replication fields, as Redis
// splits them: the shared replication buffer's memory (total) counts as
// the backlog's up to repl-backlog-size, and past it, while replicas are
// attached, as theirs (replicas, with what the attached replicas'
// connections queued beyond the buffer).
func (s *Server) replicationMemory() (backlog, total, replicas int64) {
	total = s.repl.BufferMem()
	size := s.cfg.Lookup("repl-backlog-size").Int()
	backlog = total
	if s.repl.Attached() && total > size {
		backlog, replicas = size, total-size
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.mu.clients {
		if c.replica.Load() != nil {
			mem, _ := c.ownOutput()
			replicas += int64(mem)
		}
	}
	return backlog, total, replicas
}

// replBufferNotCounted is the part of the shared replication buffer that
// maxmemory does not count (Redis's freeMemoryGetNotCountedMemory): what
// passes repl-backlog-size and its blocks' overhead.
func (s *Server) replBufferNotCounted() int64 {
	total := s.repl.BufferMem()
	if total == 0 {
		return 0 // no replication buffer (every eviction check asks)
	}
	size := s.replBacklogSize.Int()
	counted := size + (size/(16<<10)+1)*64
	return max(total-counted, 0)
}

// boolInt is 1 for true, as INFO shows flags.
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// WAIT numreplicas timeout
//
// It waits on the client's connection (lock-free: the loop's other
// connections go on, as for any long command) until numreplicas replicas
// acknowledged the client's last write, or timeout milliseconds (0:
// forever) passed, or the client left, and replies how many did. The replicas are asked for
// an acknowledgement at once (REPLCONF GETACK *).
func cmdWait(c *Client, args [][]byte) {
	s := c.srv
	if s.isReplica() {
		c.errorReply(errWaitOnReplica)
		return
	}
	want, ok := parseInt(args[1])
	if !ok {
		c.errorReply(errNotInt)
		return
	}
	timeout, ok := parseInt(args[2])
	if !ok {
		c.errorReply(errTimeoutNotInt)
		return
	}
	if timeout < 0 {
		c.errorReply(errTimeoutNegative)
		return
	}
	acked := s.repl.Acked(c.woff)
	if acked >= want || c.tx.inExec {
		c.w.Int(acked)
		return
	}
	s.journal.GetAck()
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(time.Duration(timeout) * time.Millisecond)
	}
	fd := c.conn.Fd()
	for i := 1; ; i++ {
		time.Sleep(time.Millisecond)
		acked = s.repl.Acked(c.woff)
		if acked >= want || !deadline.IsZero() && time.Now().After(deadline) ||
			c.killed.Load() || s.closing.Load() || i%100 == 0 && peerClosed(fd) {
			break
		}
	}
	c.w.Int(acked)
}
