package server

import (
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/acl"
	"github.com/hotkv/hotkv/keyspace"
	"github.com/hotkv/hotkv/lock"
	"github.com/hotkv/hotkv/replication"
	"github.com/hotkv/hotkv/resp"
	"github.com/hotkv/hotkv/script"
)

// Reply modes set by CLIENT REPLY.
const (
	replyOn = iota
	replyOff
	replySkip
)

// Client is one connection's state. Fields under mu are read by other
// connections (CLIENT LIST, CLIENT KILL); the rest belong to the
// connection's own goroutine.
type Client struct {
	srv  *Server
	conn transport
	id   uint64
	// running is when its current command's handler started (monoNow),
	// 0 between commands; kept only while the software watchdog is on.
	running atomic.Int64
	rd      *resp.Reader
	w       resp.Writer

	rbuf replyBuf // replybuf.go: the reply buffer CLIENT LIST reports

	db      *keyspace.DB
	dbIndex atomic.Int32
	guard   *lock.Guard
	slot    int // stats slot

	authenticated bool
	// user is the ACL user the client runs as: written by its own
	// goroutine (AUTH, HELLO, RESET), read by others (CLIENT LIST, ACL
	// DELUSER); nil for internal clients, which may run anything.
	user       atomic.Pointer[acl.User]
	replyMode  int
	closeAfter bool // close after flushing the current reply
	// ldbSync: SCRIPT DEBUG SYNC, the next EVAL runs under the Lua
	// debugger; ldb is the session of the EVAL running (ldb.go).
	ldbSync bool
	ldb     *ldbSession
	monitor bool
	// replica is set once the connection attached as a replica (SYNC,
	// PSYNC); replicaOnline once it got its payload; replicaPort and
	// replicaIP are the port and address it announced (REPLCONF
	// listening-port and ip-address; replicaIP is set on the client's
	// goroutine before its SYNC).
	replica       atomic.Pointer[replication.Replica]
	replicaOnline atomic.Bool
	// replFeed: a feedReplica task is queued on the connection's loop.
	replFeed atomic.Bool
	// feedFn is c.feedReplica as a func value, made once by SYNC or
	// PSYNC before c is attached, for replicaSink.Notify: a method value
	// allocates each time it is taken.
	feedFn      func()
	replicaPort atomic.Int64
	replicaIP   string
	// replicaEOF: it said REPLCONF capa eof; replicaWaiting: it waits for
	// a diskless transfer to start.
	replicaEOF     bool
	replicaWaiting atomic.Bool
	// replicaRDBOnly and replicaFilter: REPLCONF rdb-only and
	// rdb-filter-only (redis-cli --rdb and --functions-rdb).
	replicaRDBOnly bool
	replicaFilter  rdbFilter
	// woff is the stream offset after the client's last write (WAIT).
	woff int64
	// obey: the client is a replica's master, whose commands every check
	// lets through (Redis's mustObeyClient).
	obey bool

	created    time.Time
	lastActive atomic.Int64 // unix ms
	busy       atomic.Bool  // running a batch of commands (not idle); cleared by flush
	// blocked is the client's parked blocking command (blocking.go);
	// isBlocked mirrors it for other connections.
	blocked   *waiter
	isBlocked atomic.Bool
	// tx is the client's MULTI state; watched its WATCHed keys, and
	// watchDirty is set (by any connection) when one of them changes.
	tx      txState
	watched []*watchedKey
	// parked is the command waiting for its locks (park.go); curCmd and
	// curArgs are the command the gate is running, for acquire to park.
	parked *parking
	// preloaded are the cold values read for the current command before
	// its locks (tierprep.go).
	preloaded []preloaded
	// postponed is the command waiting for the end of a CLIENT PAUSE
	// (pause.go).
	postponed *postponement
	curCmd    *Command
	// lastLookup is the last command the gate looked up, run or refused
	// (Redis's lastcmd, which its logs name).
	lastLookup *Command
	curArgs    [][]byte
	// gone is set when the connection was removed (by its own goroutine;
	// read also by a full synchronization's starter, hence atomic).
	gone atomic.Bool
	// engine is the client a script's commands run on; scripted marks
	// such an engine client (its blocking commands never wait).
	engine   *Client
	scripted bool
	// replaying marks the client that replays the append-only file: its
	// writes are not propagated (they come from the file), and MONITOR and
	// the slow log do not see its commands, as in Redis. callerLocks
	// marks one whose guard is its caller's and holds the global lock
	// exclusively (DEBUG LOADAOF's replay): its commands take and release
	// no lock.
	replaying, callerLocks bool
	sr                     scriptRun // an engine client's current or last script run
	scriptMemo             script.Memo
	prop                   propState // the records of the running command (propagate.go)
	subs                   clientSubs
	trk                    clientTracking // CLIENT TRACKING (tracking.go)
	// servingBlocked marks a stand-in serving a blocked command (standIn),
	// for the key readyKey.
	servingBlocked bool
	readyKey       string
	// pushing: the running command wrote pub/sub confirmations, which
	// CLIENT REPLY OFF/SKIP do not silence (applyReplyMode).
	pushing    bool
	watchDirty atomic.Bool
	lastCmd    atomic.Pointer[Command]
	// What the connection's own goroutine last stored in lastCmd and
	// lastActive (in seconds).
	lastCmdSeen   *Command
	lastActiveSec int64
	stats         batchStats // published by flush
	killed        atomic.Bool
	// obufSoftSince is when c's queued output was first seen over its
	// class's soft limit (unix seconds; 0: under it), for any goroutine
	// (outputLimitReached).
	obufSoftSince atomic.Int64
	// noEvict is CLIENT NO-EVICT, read by the client eviction's passes.
	noEvict atomic.Bool
	// For the client eviction (cevict.go), for any goroutine: what the
	// client last counted toward maxmemory-clients; set once it is gone;
	// its transaction's memory (multi-mem) and queued commands (-1: none);
	// its tracking prefixes.
	cevMem, multiMem, multiCount, trkPrefixes atomic.Int64
	memGone                                   atomic.Bool
	noTouch                                   bool
	// preOOM is set when the gate's eviction pass for the current command
	// left memory over maxmemory (Redis's pre_command_oom_state): EXEC
	// and scripts refuse their deny-OOM work by it.
	preOOM bool
	// memDirty is set when a command of the client changed data: its
	// next eviction check sums its database's memory anew.
	memDirty bool
	// memCounted is what clientsMemory last counted for the client,
	// taken off used_memory as soon as it goes.
	memCounted atomic.Int64
	// qbufCounted is the query buffer's used bytes in that sum.
	qbufCounted atomic.Int64
	keyPos      []int
	keys        [][]byte
	nameBuf     [64]byte
	argvMem     atomic.Int64
	// qbuf is the query buffer as the connection's goroutine last saw it,
	// for other clients' CLIENT LIST: used<<32 | free (publishQueryBuf).
	qbuf       atomic.Uint64
	errors     int64 // error replies sent, for failed_calls
	inReported int64 // input bytes already added to the stats
	// mark is monoNow when the previous command of the batch ended; 0
	// between batches.
	mark time.Duration

	// The last top-level commands looked up (lookupMemo).
	lookups    [4]memoCmd
	nextLookup int
	// warmed counts the buffered commands whose keys prefetchAhead has
	// already warmed.
	warmed int

	mu struct {
		sync.Mutex
		name, libName, libVer string
		waiter                *waiter // the blocked command, for CLIENT UNBLOCK
		monitorOut            chan []byte
	}
}

func (s *Server) newClient(conn transport) *Client {
	id := s.nextID.Add(1)
	c := &Client{
		srv:     s,
		conn:    conn,
		id:      id,
		rd:      resp.NewReader(conn),
		w:       resp.Writer{Proto: 2},
		db:      s.dbs[0],
		guard:   s.locks.NewGuard(id),
		slot:    int(id % statSlots),
		created: time.Now(),
	}
	if conn != nil {
		// Its loop serves its commands one at a time with the loop's
		// other clients': a lock passes between them without a
		// convoy (lock.Guard.SetDomain).
		c.guard.SetDomain(conn.Loop())
	}
	c.setDefaultAuth()
	c.lastActive.Store(c.created.UnixMilli())
	c.initReplyBuf(c.created)
	c.multiCount.Store(-1)
	c.rd.AfterRead = c.afterRead
	s.mu.Lock()
	s.mu.clients[id] = c
	s.mu.Unlock()
	return c
}

// serveConn runs one connection on its own goroutine (the portable
// transport): read every complete command in the buffer, run each, and
// flush the replies once before reading again.
func (s *Server) serveConn(conn net.Conn) {
	defer s.wg.Done()
	gc := newGoConn(conn)
	c := s.newClient(gc)
	c.rd.BeforeBlock = c.flush
	defer s.removeClient(c)
	for !s.closing.Load() {
		if c.waiting() {
			// A blocked client waits for its reply; a disconnect is
			// noticed only once it is served or times out.
			select {
			case fn := <-gc.tasks:
				fn()
			case <-s.done:
				return
			}
			continue
		}
		if !s.serveInput(c) {
			return
		}
	}
}

// waiting reports whether c runs no more of its input for now: blocked,
// parked for locks, or postponed by a pause.
func (c *Client) waiting() bool { return c.blocked != nil || c.parked != nil || c.postponed != nil }

// invoke runs fn on c's own connection goroutine or loop.
func (c *Client) invoke(fn func()) { c.conn.Invoke(fn) }

// publishQueryBuf publishes c's query buffer sizes for other clients'
// CLIENT LIST (qbuf, qbuf-free). It runs on c's goroutine.
func (c *Client) publishQueryBuf() {
	if c.rd == nil {
		return
	}
	used, free := c.rd.QueryBufBetween()
	if v := uint64(used)<<32 | uint64(uint32(free)); c.qbuf.Load() != v {
		c.qbuf.Store(v)
		if d := int64(used) - c.qbufCounted.Load(); d > clientsStaleBytes || d < -clientsStaleBytes {
			// A big change since the clients' memory was summed: the
			// next eviction check sums it anew.
			c.srv.evict.clientsStale.Store(true)
		}
	}
}

// releaseQueryBuf frees the query buffer of c, idle, as Redis's
// clientsCronResizeQueryBuffer does for clients idle over 2 seconds: the
// next command allocates a fresh one. It runs on c's goroutine.
func (c *Client) releaseQueryBuf() {
	if c.rd != nil && c.rd.Release() {
		c.publishQueryBuf()
	}
}

// shrinkQueryBuf cuts c's query buffer back to its recent peak when a
// large command left it much bigger (resp.Reader.Shrink). It runs on c's
// goroutine.
func (c *Client) shrinkQueryBuf() {
	if c.rd != nil && c.rd.Shrink() {
		c.publishQueryBuf()
	}
}

// resume goes on with the commands that waited while c was blocked. On
// the goroutine transport serveConn's loop does that by itself.
func (c *Client) resume() {
	if !evented(c.conn) {
		return
	}
	if c.closeAfter { // the reply that ended its wait is its last
		c.flushLast()
		c.conn.Close()
		return
	}
	if !c.srv.serveInput(c) {
		c.conn.Close()
	}
}

// serveInput runs the commands in c's input until the input is drained
// (the event-loop transport) or, with a blocking transport, until the
// connection ends. It flushes the replies and reports whether the
// connection stays open.
func (s *Server) serveInput(c *Client) bool {
	if c.waiting() {
		// Commands wait while the client is blocked, but its input is
		// read so that a disconnect is noticed.
		return c.rd.Drain(errWouldBlock) == nil
	}
	for {
		c.rd.MaxBulkLen = s.protoMaxBulk.Int()
		c.rd.MaxQueryBuffer = s.queryBufLimit.Int()
		args, err := c.rd.ReadCommand()
		if err != nil {
			if err == errWouldBlock {
				c.flush()
				return true
			}
			var perr *resp.ProtocolError
			if errors.As(err, &perr) {
				s.stats.protocolErrors.Add(1)
				c.errorReply("ERR " + perr.Error())
				c.flushLast()
			} else if errors.Is(err, resp.ErrQueryBufferLimit) {
				s.logf("closing client id=%d: query buffer limit reached", c.id)
			} else {
				// The peer ended its input (or the read failed): what it
				// sent before is answered, as Redis writes the replies of
				// one read before it sees the end of the next.
				c.flushLast()
			}
			return false
		}
		if !c.busy.Load() {
			c.busy.Store(true)
		}
		if c.warmed > 0 {
			c.warmed--
		} else if c.rd.Buffered() {
			c.prefetchAhead()
		}
		if c.trk.used {
			c.trackingDrain() // invalidations before this command's reply
		}
		mark := len(c.w.Buf)
		s.dispatch(c, args)
		if c.trk.used {
			c.trackingAfter()
		}
		if len(c.w.Buf) > mark && c.replica.Load() != nil {
			c.replicaReplied(mark)
		}
		if c.closeAfter || c.killed.Load() {
			// Before the hand-off check: a long command may end the
			// connection too (a SCRIPT DEBUG session).
			c.flushLast()
			return false
		}
		if c.conn.HandedOff() || c.conn.Yield() {
			// The command ran long and its loop went on without it
			// (eventloop's watchdog), or the loop asked for its turn
			// back: the loop goes on with the rest.
			c.flush()
			return true
		}
		if c.waiting() {
			c.flush()
			return true
		}
		if len(c.w.Buf) > maxUnflushed {
			c.flushHeld()
		} else if c.subs.active {
			// A subscriber's replies go out in order with its messages.
			c.flush()
		}
	}
}

// prefetchAhead warms the CPU cache with the keys of the commands
// pipelined after the current one (keyspace.DB.Prefetch): with random
// keys, each command's table slot and entry are cache misses, and
// looking them all up in one go lets the processor overlap them. The
// warmed commands are counted, so the next prefetch starts after them.
func (c *Client) prefetchAhead() { c.prefetchFrom(c.rd) }

// prefetchFrom is prefetchAhead for the commands buffered in rd (the
// master client's: its link's reader).
func (c *Client) prefetchFrom(rd *resp.Reader) {
	var keys [32][]byte
	n := 0
	rd.Ahead(16, func(args [][]byte) bool {
		c.warmed++
		cmd := c.lookupMemo(args)
		if cmd == nil || cmd.Handler == nil || cmd.Arity > 0 && len(args) != cmd.Arity || len(args) < -cmd.Arity {
			return true
		}
		c.keyPos = cmd.keyPositions(c.keyPos[:0], args)
		for _, i := range c.keyPos {
			if n == len(keys) {
				return false
			}
			keys[n] = args[i]
			n++
		}
		return true
	})
	c.db.Prefetch(keys[:n])
}

// maxUnflushed bounds the replies kept back while a long pipeline is read.
const maxUnflushed = 64 * 1024

// publishStats adds the statistics the client gathered since the last
// call (command counts, keyspace hits, lock acquisitions) to the server's,
// its scripts' commands' (its engine client's) included: those are
// published with the batch of the script, not once per script.
func (c *Client) publishStats() {
	c.stats.publish(&c.srv.stats, c.slot)
	p := c.parked // a pending guard is the lock manager's
	if p == nil || p.g != c.guard {
		c.guard.FlushStats()
	}
	if ec := c.engine; ec != nil {
		ec.stats.publish(&c.srv.stats, ec.slot)
		if p == nil || p.g != ec.guard {
			ec.guard.FlushStats()
		}
	}
}

// flushLast writes the replies of a connection about to close. Held
// replies (flush) would be dropped with the connection at the end of the
// batch: the append-only file is brought up to date first, so that they,
// and those of this connection held earlier in the batch, can be written
// at once.
func (c *Client) flushLast() error {
	c.srv.aof.sync()
	err := c.flush()
	c.conn.Flush()
	return err
}

// flush writes the pending replies to the socket. While the append-only
// file is behind the writes already run, replies wait for it: on the
// event loop they are held until the loop's batch ends (one write and
// fsync for all its clients, loopHandler.OnBatchEnd), on the goroutine
// transport the flush waits.
func (c *Client) flush() error { return c.flushReplies(false) }

// flushHeld is flush for the replies of a pipeline still being read: on
// the event loop they are held until the loop's batch ends, as Redis
// writes a read's replies only once it has run them all, so that a
// client closed for its output buffer limits (closeOnOutputLimit) meanwhile
// gets none of them.
func (c *Client) flushHeld() error { return c.flushReplies(true) }

// flushReplies is flush; hold: hold the replies even when the
// append-only file is up to date. The client's memory is checked against
// maxmemory-clients before the replies go out (what its input and
// commands changed: a CONFIG SET that lowered the limit evicts before it
// answers) and after (its queued output).
func (c *Client) flushReplies(hold bool) error {
	c.mark = 0
	if c.busy.Load() {
		c.busy.Store(false)
	}
	c.publishStats()
	c.publishQueryBuf()
	if c.subs.used {
		c.writePushes() // the messages queued before these replies
	}
	if r := c.replica.Load(); r != nil && evented(c.conn) && r.Pending() {
		c.scheduleFeed() // the stream, should its drain have gone unnoticed
	}
	if c.trk.used {
		c.trackingDrain() // invalidations after these replies
	}
	if len(c.w.Buf) == 0 {
		c.checkClientMemory()
		return nil
	}
	if c.outputQueued(len(c.w.Buf)) && c.closeOnOutputLimit(len(c.w.Buf), false) {
		c.w.Reset() // closed without the reply, as Redis's closeClientOnOutputBufferLimitReached
		return nil
	}
	c.checkClientMemory()
	if c.killed.Load() {
		c.w.Reset() // evicted
		return nil
	}
	defer c.checkClientMemory()
	c.noteReplyBytes(len(c.w.Buf))
	var n int
	var err error
	behind := c.srv.aof.behind()
	switch {
	case (hold || behind) && evented(c.conn):
		c.conn.Hold(c.w.Buf)
		n = len(c.w.Buf)
	case behind:
		c.srv.aof.sync()
		n, err = c.conn.Write(c.w.Buf)
	default:
		n, err = c.conn.Write(c.w.Buf)
	}
	st := &c.srv.stats.slots[c.slot]
	st.netOut.Add(int64(n))
	st.netIn.Add(c.rd.BytesRead - c.inReported)
	c.inReported = c.rd.BytesRead
	if cap(c.w.Buf) > 1<<20 {
		c.w.Buf = make([]byte, 0, 16*1024)
	} else {
		c.w.Reset()
	}
	if err != nil {
		return err
	}
	return nil
}

func (s *Server) removeClient(c *Client) {
	wasReplica := c.replica.Load() != nil
	c.gone.Store(true)
	c.conn.Close()
	c.unblockOnClose()
	c.unparkOnClose()
	c.unpostponeOnClose()
	c.unwatchAll()
	c.unsubscribeAll()
	s.disableTracking(c)
	s.detachReplica(c)
	s.mu.Lock()
	delete(s.mu.clients, c.id)
	s.mu.Unlock()
	s.forgetClientMemory(c, wasReplica)
	c.memGone.Store(true)
	s.forgetMemory(c)
	if c.monitor {
		s.stopMonitor(c)
	}
}

// outputOverLimit reports whether c's output (its reply being built and
// what is queued) passed its client-output-buffer-limit, closing it then
// (closeOnOutputLimit) or earlier: a command that writes a huge reply
// (HRANDFIELD with a huge negative count, KEYS) checks it as it goes and
// stops, as Redis checks each block it adds to its reply list.
func (c *Client) outputOverLimit() bool {
	return c.killed.Load() || c.closeOnOutputLimit(len(c.w.Buf), false)
}

// replyOverLimit is outputOverLimit for a reply of n bytes about to be
// added: it closes c when that reply would pass its output limits.
func (c *Client) replyOverLimit(n int) bool {
	return c.killed.Load() || c.closeOnOutputLimit(len(c.w.Buf)+n, false)
}

// kill closes the client's connection from another goroutine.
func (c *Client) kill() {
	c.killed.Store(true)
	c.conn.Close()
}

// Name returns the name set by CLIENT SETNAME.
func (c *Client) Name() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mu.name
}

// selectDB switches the client's database; the caller checked the index.
func (c *Client) selectDB(i int) {
	c.db = c.srv.dbs[i]
	c.dbIndex.Store(int32(i))
}
