// Package server is HotKV's network server: connections, client state, the
// command table, the gate every command passes through, and the command
// handlers (cmd_<group>.go).
package server

import (
	"context"
	"log/slog"
	"math"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/acl"
	"github.com/hotkv/hotkv/bgchild"
	"github.com/hotkv/hotkv/config"
	"github.com/hotkv/hotkv/journal"
	"github.com/hotkv/hotkv/keyspace"
	"github.com/hotkv/hotkv/latency"
	"github.com/hotkv/hotkv/lock"
	"github.com/hotkv/hotkv/replication"
	"github.com/hotkv/hotkv/rlog"
	"github.com/hotkv/hotkv/script"
	"github.com/hotkv/hotkv/search"
	"github.com/hotkv/hotkv/tlsconf"
)

// Version is HotKV's own version; RedisVersion is the Redis version whose
// behaviour it implements, reported where clients look for it.
const (
	Version      = "0.1.0"
	RedisVersion = "7.0.15"
)

// Server is one HotKV instance.
type Server struct {
	cfg     *config.Config
	dbs     []*keyspace.DB
	locks   *lock.Manager
	table   Table
	renames renames      // rename-command (rename.go)
	log     *slog.Logger // logger through log/slog
	// logger is the server's log (logging.go).
	logger *rlog.Logger
	// skipChecksum is DEBUG SET-SKIP-CHECKSUM-VALIDATION: payloads and
	// RDB files are loaded without their CRC64 checked.
	skipChecksum atomic.Bool

	// Hot configuration, read with one atomic load per use (Config.Lookup
	// is a map lookup by name): what the gate and the connections read,
	// and the parameters commands read as they run.
	maxmemory, protoMaxBulk, queryBufLimit, requirepass *config.Param
	minReplicas, minReplicasLag                         *config.Param // min-replicas-to-write, min-replicas-max-lag: read by every write
	// repl-backlog-size and lazyfree-lazy-eviction: read by every eviction check and pass
	replBacklogSize, lazyEviction                                                                         *config.Param
	outputBufferLimit, rdbCompression, hllSparseMaxBytes                                                  *config.Param
	listMaxListpackSize, listCompressDepth, setMaxIntsetEntries, streamNodeMaxBytes, streamNodeMaxEntries *config.Param
	hashMaxListpackEntries, hashMaxListpackValue, zsetMaxListpackEntries, zsetMaxListpackValue            *config.Param

	listen  listenState                     // listen.go
	tlsCfgs atomic.Pointer[tlsconf.Configs] // the TLS configurations in use (tls.go)
	// handshakes counts the accepted TLS connections not yet registered
	// as clients (their handshake runs): they count toward maxclients.
	handshakes atomic.Int64
	oom        oomState       // oom.go
	ptitle     procTitleState // proctitle.go
	loops      *loops         // the event loops serving clients (Linux)
	started    time.Time
	nextID     atomic.Uint64

	mu struct {
		sync.Mutex
		clients  map[uint64]*Client
		monitors []*Client
	}
	monitors atomic.Int32 // number of MONITOR clients; checked per command
	closing  atomic.Bool
	done     chan struct{}
	// abandoned is closed by SHUTDOWN NOSAVE during a busy script: the
	// server stops without waiting for the script's client, whose command
	// may never end.
	abandoned     chan struct{}
	abandonedOnce sync.Once
	wg            sync.WaitGroup

	stats    serverStats
	blocking blockState
	parking  parkState
	pause    pauseState     // CLIENT PAUSE (pause.go)
	hooks    installedHooks // the executor's (hooks.go)
	// acl holds the users (auth.go); aclLogMaxLen is acllog-max-len.
	acl          *acl.Registry
	aclLogMaxLen *config.Param
	migrates     migrateCache // MIGRATE's connections (cmd_migrate.go)
	// latency is the latency monitor's events (cmd_latency.go);
	// latencyThreshold is latency-monitor-threshold, latencyTracking
	// latency-tracking.
	latency                           latency.Monitor
	latencyThreshold, latencyTracking *config.Param
	// trackingMaxKeys is tracking-table-max-keys.
	trackingMaxKeys *config.Param
	watch           watchState
	scripting       scripting
	persist         persistState
	load            loadState    // the load clients see (loading.go)
	swd             softWatchdog // watchdog-period (swatchdog.go)
	failover        failoverState
	// loadingAtStart: LoadAndServe loads while Serve starts; the
	// replication link waits for the load.
	loadingAtStart atomic.Bool
	pubsub         pubsubState
	tracking       trackingState // client-side caching (tracking.go)
	search         searchState   // FT.* indexes (search.go)
	// notifyEvents is notify-keyspace-events (notify.go).
	notifyEvents   *config.Param
	snaps          keyspace.Snapshots      // copy-on-write snapshots (cow.go)
	cow            atomic.Pointer[cowSnap] // the last one started
	journal        journal.Journal         // the write stream (propagate.go)
	repl           *replication.Master     // the replicas attached (replication.go)
	replica        replicaState            // the replica role (replica.go)
	replStats      replStats               // INFO's sync_* counters
	diskless       disklessState           // replicas waiting for a diskless transfer
	syncJobs       syncJobs                // the full synchronizations' children (rdbpipe.go)
	replicaExpires replicaExpires          // a writable replica's own expiring keys
	frozenTime     atomic.Int64            // the time a global-lock script sees (scripting.go)
	aof            aofState                // a subscriber of the journal
	slowlog        slowlog
	lastSave       atomic.Int64 // unix seconds

	expire      expireState
	hz          atomic.Int64   // the cron's current frequency (INFO's hz)
	cronTicks   atomic.Int64   // cron runs so far (tests watch it)
	cronPaused  atomic.Bool    // DEBUG PAUSE-CRON
	replyBuf    replyBufConfig // replybuf.go
	sigShutdown sigShutdown    // shutdown.go

	usedMem struct {
		at    atomic.Int64 // monoNow in ms, plus 1, of the last computation; 0: none
		bytes atomic.Int64
		peak  atomic.Int64   // used_memory_peak
		dbs   []atomic.Int64 // each database's share of bytes
	}
	evict       evictState       // evict.go
	gcTune      gcTune           // gctune.go
	cev         clientEvictState // cevict.go
	access      *keyspace.Access // the databases' access tracking (LRU or LFU)
	tier        tierState        // the disk tier (tier.go)
	tierErr     error            // why the disk tier could not open: start-up is refused
	memReturn   memReturn        // memreturn.go
	replicaWait replicaWait      // shutdown.go: a shutdown waiting for its replicas
}

type serverStats struct {
	connections, rejectedConns            atomic.Int64
	expiredKeys, hits, misses             atomic.Int64
	protocolErrors, unexpectedErrors      atomic.Int64
	totalErrorReplies, panics, evicted    atomic.Int64
	evictedClients                        atomic.Int64 // maxmemory-clients (cevict.go)
	expireCycleKeys, expireCycleCPUMicros atomic.Int64
	// forks counts the background snapshots started (total_forks: Redis forks a child for each).
	forks     atomic.Int64
	lazyfreed atomic.Int64 // lazyfree.go

	errors errorStats // INFO errorstats

	// slots spread the per-command counters over cache lines.
	slots [statSlots]struct {
		hits, misses, commands atomic.Int64
		netIn, netOut          atomic.Int64
		dirty                  atomic.Int64 // write commands run (changes to save)
		_                      [16]byte
	}

	inst instMetrics // instantaneous_* rates, sampled by the cron
}

// New returns a server for cfg. It opens no socket until ListenAndServe.
func New(cfg *config.Config) *Server {
	s := &Server{
		search:    searchState{config: search.NewConfig()},
		cfg:       cfg,
		locks:     lock.NewManager(),
		table:     make(Table),
		started:   time.Now(),
		done:      make(chan struct{}),
		abandoned: make(chan struct{}),
	}
	s.setLogger(newLogger(cfg))
	s.logHooks(cfg)
	s.mu.clients = make(map[uint64]*Client)
	n := int(cfg.Lookup("databases").Int())
	s.dbs = make([]*keyspace.DB, n)
	for i := range s.dbs {
		s.dbs[i] = keyspace.New()
		s.dbs[i].OnExpire = func(key string) {
			// A modification by no client (for tracking's NOLOOP).
			s.touchWatched(i, key)
			s.trackingTouched(key, true)
			s.keyChanged(i, key)
			s.countExpired(key)
			s.searchKeyChanged(i, key)
			s.propagateDel(i, key)
			s.notifyDB(i, evExpired, "expired", []byte(key))
		}
		s.dbs[i].OnCreate = func(key string, kind keyspace.Kind) {
			s.signalCreated(i, key, kind)
			if s.notifyEvents.Int()&evNew != 0 {
				s.notifyDB(i, evNew, "new", []byte(key))
			}
		}
		s.dbs[i].OnModify = func(key string) {
			s.touchWatched(i, key)
			s.trackingTouched(key, false)
			s.keyChanged(i, key)
			s.searchKeyChanged(i, key)
		}
		s.dbs[i].Snapshots = &s.snaps
		s.dbs[i].Frozen = &s.frozenTime
		s.dbs[i].OnCapture = func(e *keyspace.Entry) { s.cow.Load().capture(i, e) }
	}
	s.maxmemory = cfg.Lookup("maxmemory")
	s.minReplicas = cfg.Lookup("min-replicas-to-write")
	s.replBacklogSize = cfg.Lookup("repl-backlog-size")
	s.lazyEviction = cfg.Lookup("lazyfree-lazy-eviction")
	s.minReplicasLag = cfg.Lookup("min-replicas-max-lag")
	s.trackingMaxKeys = cfg.Lookup("tracking-table-max-keys")
	s.latencyThreshold = cfg.Lookup("latency-monitor-threshold")
	s.latencyTracking = cfg.Lookup("latency-tracking")
	s.protoMaxBulk = cfg.Lookup("proto-max-bulk-len")
	s.queryBufLimit = cfg.Lookup("client-query-buffer-limit")
	s.requirepass = cfg.Lookup("requirepass")
	s.outputBufferLimit = cfg.Lookup("client-output-buffer-limit")
	s.rdbCompression = cfg.Lookup("rdbcompression")
	s.hllSparseMaxBytes = cfg.Lookup("hll-sparse-max-bytes")
	s.listMaxListpackSize = cfg.Lookup("list-max-listpack-size")
	s.listCompressDepth = cfg.Lookup("list-compress-depth")
	s.setMaxIntsetEntries = cfg.Lookup("set-max-intset-entries")
	s.hashMaxListpackEntries = cfg.Lookup("hash-max-listpack-entries")
	s.hashMaxListpackValue = cfg.Lookup("hash-max-listpack-value")
	s.zsetMaxListpackEntries = cfg.Lookup("zset-max-listpack-entries")
	s.zsetMaxListpackValue = cfg.Lookup("zset-max-listpack-value")
	s.streamNodeMaxBytes = cfg.Lookup("stream-node-max-bytes")
	s.streamNodeMaxEntries = cfg.Lookup("stream-node-max-entries")
	s.notifyEvents = cfg.Lookup("notify-keyspace-events")
	s.lastSave.Store(time.Now().Unix())
	s.aof.journal = &s.journal
	s.aof.timestamps = cfg.Lookup("aof-timestamp-enabled")
	backlogSize := s.cfg.Lookup("repl-backlog-size")
	s.repl = replication.New(&s.journal, s.hexID("replid"), backlogSize.Int)
	s.aof.rwLastSecs.Store(-1)
	s.aof.rwLastOK.Store(true)
	s.replyBuf.peakResetMs.Store(replyBufDefaultPeakResetMs)
	s.usedMem.dbs = make([]atomic.Int64, len(s.dbs))
	s.applyMaxmemory()
	s.evictHooks(cfg)
	s.clientEvictHooks(cfg)
	s.scripting.engine = script.NewEngine()
	s.scripting.engine.Version = RedisVersion
	s.scripting.engine.VersionNum = versionNum(RedisVersion)
	s.scripting.engine.Log = s.scriptLog
	s.scripting.engine.CommandExists = func(args [][]byte) bool {
		cmd, _ := s.table.lookup(new([64]byte), args)
		return cmd != nil
	}
	s.scripting.threshold = cfg.Lookup("busy-reply-threshold")
	s.persist.lastBgSecs.Store(-1)
	// CONFIG SET appendonly holds the global lock exclusively
	// (configSetNeedsGlobal).
	cfg.OnChange("appendonly", func(p *config.Param) error {
		if p.Bool() {
			return s.startAOF()
		}
		s.stopAOF()
		return nil
	})
	// As Redis's updateAofAutoGCEnabled: turning automatic removal back on
	// removes the history files at once.
	cfg.OnChange("aof-disable-auto-gc", func(p *config.Param) error {
		if !p.Bool() {
			s.aof.wmu.Lock()
			if s.aof.dir != nil {
				s.aof.dir.DeleteHistory()
			}
			s.aof.wmu.Unlock()
		}
		return nil
	})
	for _, name := range []string{"appendfsync", "appendfsync-prealloc"} {
		cfg.OnChange(name, func(*config.Param) error {
			s.aof.wmu.Lock()
			s.applyFsyncPolicy()
			s.aof.wmu.Unlock()
			return nil
		})
	}
	s.scripting.defaultFlags = cfg.Lookup("script-default-flags")
	cfg.OnChange("tracking-table-max-keys", func(*config.Param) error { s.trackingLimit(); return nil })
	cfg.OnChange("busy-poll-usec", func(*config.Param) error { s.applyBusyPoll(); return nil })
	s.watchdogHooks(cfg)
	s.listenHooks(cfg)
	s.tlsHooks(cfg)
	s.oomHooks(cfg)
	s.procTitleHooks(cfg)
	s.registerCommands()
	s.initACL(cfg)
	s.applyRenames()
	s.cronHz() // INFO's hz before the cron runs
	s.tierErr = s.openTier(cfg)
	return s
}

// applyMaxmemory ties the Go GC's soft limit to maxmemory, so the collector
// works harder as the data set nears the budget: a quarter over it, for
// the garbage between collections, plus gcHeadroom for what the process
// holds besides the data (below that the collector would run without
// end on a small maxmemory).
func (s *Server) applyMaxmemory() {
	if mm := s.maxmemory.Int(); mm > 0 {
		debug.SetMemoryLimit(mm + mm/4 + gcHeadroom)
	} else {
		debug.SetMemoryLimit(math.MaxInt64)
	}
	s.tuneGC() // gctune.go
}

// gcHeadroom is the memory the Go runtime may use beyond maxmemory's
// share: its own structures, connections' buffers, goroutine stacks.
const gcHeadroom = 32 << 20

// versionNum is REDIS_VERSION_NUM for a "major.minor.patch" version:
// 0x00MMmmpp.
func versionNum(v string) int {
	n := 0
	for _, part := range strings.SplitN(v, ".", 3) {
		p, _ := strconv.Atoi(part)
		n = n<<8 | p
	}
	return n
}

// scriptLog is redis.log: script lines go to the server log at the
// script's level.
func (s *Server) scriptLog(level int, msg string) {
	switch level {
	case script.LogWarning:
		s.logger.Log(rlog.Warning, msg)
	case script.LogNotice:
		s.logger.Log(rlog.Notice, msg)
	case script.LogVerbose:
		s.logger.Log(rlog.Verbose, msg)
	default:
		s.logger.Log(rlog.Debug, msg)
	}
}

// Config returns the server's configuration.
func (s *Server) Config() *config.Config { return s.cfg }

// Serve accepts connections on the listeners opened by Listen (and those
// CONFIG SET port or bind opens later) until Shutdown. It returns nil
// after a clean shutdown, or the first error an accept loop ended with.
func (s *Server) Serve() error {
	// The cron is counted before the first client can be served, so that
	// a Shutdown that follows any reply waits for it.
	s.wg.Add(1)
	if err := s.startTransport(); err != nil {
		s.wg.Done()
		return err
	}
	go s.cron()
	if s.tiering() {
		s.startDemoter()
	}
	pingPeriod := s.cfg.Lookup("repl-ping-replica-period")
	paused := func() bool { return s.pause.mode.Load() != pauseOff }
	go s.repl.Heartbeats(pingPeriod.Int, s.cfg.Lookup("repl-backlog-ttl").Int, paused, s.done)
	if !s.loadingAtStart.Load() {
		s.followConfiguredMaster()
	}
	s.listen.mu.Lock()
	for _, set := range []*portListeners{&s.listen.tcp, &s.listen.tls} {
		for _, ln := range set.lns {
			s.startAccepting(ln, set.tls)
		}
	}
	if s.listen.unix != nil {
		s.startAccepting(s.listen.unix, false)
	}
	s.listen.mu.Unlock()
	<-s.done
	s.listen.wg.Wait()
	waited := make(chan struct{})
	go func() { s.wg.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-s.abandoned:
		s.logf("Exiting with a busy script still running (SHUTDOWN NOSAVE).")
	}
	s.closeAOF() // no command runs any more (or one that is abandoned)
	s.closeTier()
	s.listen.mu.Lock()
	defer s.listen.mu.Unlock()
	return s.listen.err
}

// LoadAndServe loads the dataset (LoadData) while it serves, as Redis
// does: a client that connects early waits until the load ends or has
// gone on long enough (loadState.gate); then, until the load ends,
// commands without the loading flag get LOADING and INFO shows the
// load's progress. loaded gets the load's result; once it returns, the
// server goes on (a replica connects to its master only then). It
// returns when Serve does.
func (s *Server) LoadAndServe(loaded func(error)) error {
	s.startLoading(0, false) // before a client can connect
	s.loadingAtStart.Store(true)
	s.load.gate = make(chan struct{})
	s.load.gateAt = s.cfg.Lookup("loading-process-events-interval-bytes").Int()
	go func() {
		err := s.LoadData()
		s.stopLoading() // when there was nothing to load
		loaded(err)
		s.load.openGate()
		s.followConfiguredMaster()
	}()
	return s.Serve()
}

// followConfiguredMaster starts the replication the replicaof directive
// asks for.
func (s *Server) followConfiguredMaster() {
	if host, port, ok := s.cfg.Lookup("replicaof").ReplicaOf(); ok {
		s.startReplication(host, port, false)
	}
}

// abandon makes Serve return without waiting for the clients whose
// commands still run (SHUTDOWN NOSAVE of a server with a busy script).
func (s *Server) abandon() { s.abandonedOnce.Do(func() { close(s.abandoned) }) }

// ListenAndServe is Listen followed by Serve.
func (s *Server) ListenAndServe() error {
	if err := s.Listen(); err != nil {
		return err
	}
	return s.Serve()
}

// Shutdown stops accepting, closes every client connection and waits for
// their goroutines (and the cron) to end.
func (s *Server) Shutdown(ctx context.Context) error {
	if !s.closing.CompareAndSwap(false, true) {
		return nil
	}
	close(s.done)
	s.stopLink()
	s.closeListeners()
	s.migrates.closeAll()
	s.mu.Lock()
	for _, c := range s.mu.clients {
		c.conn.Close()
	}
	s.mu.Unlock()
	// A child still saving or rewriting is killed and its file removed,
	// as Redis's prepareForShutdown kills it: the process that outlives
	// its server writes nothing more.
	for _, ch := range append([]*bgchild.Child{s.persist.child.Load(), s.aof.child.Load()}, s.killSyncChildren()...) {
		if ch != nil {
			ch.Kill()
			select {
			case <-ch.Done():
			case <-ctx.Done():
			}
			os.Remove(ch.TempPath())
		}
	}
	waited := make(chan struct{})
	go func() {
		s.wg.Wait()
		s.stopTransport()
		s.closeAOF()
		s.closeTier()
		s.restoreGC()
		close(waited)
	}()
	select {
	case <-waited:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Done is closed when the server begins shutting down.
func (s *Server) Done() <-chan struct{} { return s.done }

// sum adds one per-slot counter over all slots.
func (st *serverStats) sum(field func(i int) *atomic.Int64) int64 {
	var n int64
	for i := range st.slots {
		n += field(i).Load()
	}
	return n
}

func (st *serverStats) totalCommands() int64 {
	return st.sum(func(i int) *atomic.Int64 { return &st.slots[i].commands })
}

func (st *serverStats) netInput() int64 {
	return st.sum(func(i int) *atomic.Int64 { return &st.slots[i].netIn })
}

func (st *serverStats) netOutput() int64 {
	return st.sum(func(i int) *atomic.Int64 { return &st.slots[i].netOut })
}

// usedMemory returns the bytes held by the databases and the clients'
// buffers plus a fixed base, as used_memory reports it. It is recomputed
// at most once a millisecond (of the monotonic clock, which costs half
// of time.Now on the command path).
func (s *Server) usedMemory() int64 { return s.usedMemoryFresh(-1) }

// usedMemoryFresh is usedMemory with database fresh (unless -1) summed
// anew whatever the age of the rest: the one a client just wrote to, so
// that its next command's eviction check sees its own write.
func (s *Server) usedMemoryFresh(fresh int) int64 {
	nowMs := int64(monoNow()/time.Millisecond) + 1
	if at := s.usedMem.at.Load(); nowMs-at < 1 {
		if fresh < 0 {
			return s.usedMem.bytes.Load()
		}
		m := s.dbs[fresh].Mem()
		return s.usedMem.bytes.Add(m - s.usedMem.dbs[fresh].Swap(m))
	}
	n := baseMemory + s.evict.clients.Load() + s.evict.replicas.Load() + s.repl.BufferMem()
	for i, db := range s.dbs {
		m := db.Mem()
		s.usedMem.dbs[i].Store(m)
		n += m
	}
	s.usedMem.bytes.Store(n)
	s.usedMem.at.Store(nowMs)
	for {
		p := s.usedMem.peak.Load()
		if n <= p || s.usedMem.peak.CompareAndSwap(p, n) {
			break
		}
	}
	return n
}

// baseMemory stands for what an empty server uses, like Redis's ~860KB.
const baseMemory = 900 * 1024

// cron runs the periodic background work, like Redis's serverCron: the
// access clock, active expiry, the memory peak, the instantaneous metrics
// and idle-client timeouts. It runs hz times a second; a CONFIG SET hz
// takes effect from the next tick.
func (s *Server) cron() {
	defer s.wg.Done()
	hz := s.cronHz()
	t := time.NewTicker(time.Second / time.Duration(hz))
	defer t.Stop()
	var lastClientsCheck time.Time
	for {
		select {
		case <-s.done:
			return
		case <-t.C:
			start := time.Now()
			keyspace.Tick(start.UnixMilli())
			if s.cronPaused.Load() {
				continue
			}
			s.cronShutdown()
			s.replicaWaitCron()
			s.failoverCron()
			loading := s.loading() // the dataset is not there yet
			if !loading {
				s.activeExpireCycle(hz)
				s.trackingCron()
				s.searchTemporaryCron(start)
			}
			s.clientsMemory()
			s.returnMemory(s.usedMemory()) // keeps used_memory_peak current
			s.tuneGC()
			s.sampleInstantaneous(start)
			everySecond := start.Sub(lastClientsCheck) >= time.Second
			if everySecond {
				lastClientsCheck = start
				s.closeIdleClients(start)
			}
			s.resizeQueryBufs(start, everySecond)
			s.resizeReplyBufs(start)
			s.outputLimitCron()
			s.clientEvictionCron()
			if everySecond {
				s.migrates.expire(start)
			}
			if !loading {
				s.savePoints(start)
				s.aofCron()
			}
			s.cronTicks.Add(1)
			if h := s.cronHz(); h != hz {
				hz = h
				t.Reset(time.Second / time.Duration(hz))
			}
		}
	}
}

// Redis's CONFIG_MIN_HZ, CONFIG_MAX_HZ and MAX_CLIENTS_PER_CLOCK_TICK.
const (
	minHz                 = 1
	maxHz                 = 500
	maxClientsPerCronTick = 200
)

// cronHz returns the frequency the cron should run at: the hz parameter
// and, with dynamic-hz, doubled (up to 500) until there are at most 200
// clients per tick, as Redis's serverCron does. INFO reports it as hz.
func (s *Server) cronHz() int {
	hz := min(max(s.cfg.Lookup("hz").Int(), minHz), maxHz)
	if p := s.cfg.Lookup("dynamic-hz"); p != nil && p.Bool() {
		s.mu.Lock()
		n := int64(len(s.mu.clients))
		s.mu.Unlock()
		for n/hz > maxClientsPerCronTick {
			hz *= 2
			if hz > maxHz {
				hz = maxHz
				break
			}
		}
	}
	s.hz.Store(hz)
	return int(hz)
}

// closeIdleClients closes the clients idle for more than timeout seconds,
// as Redis's clientsCronHandleTimeout does; MONITOR clients are exempt
// (Redis also exempts blocked and pub/sub clients, which HotKV does not
// yet), and so are replicas. Idle time is counted in whole seconds since the
// client's last command, like Redis's lastinteraction.
func (s *Server) closeIdleClients(now time.Time) {
	timeout := s.cfg.Lookup("timeout").Int()
	if timeout <= 0 {
		return
	}
	nowSec := now.Unix()
	var idle []*Client
	s.mu.Lock()
	for _, c := range s.mu.clients {
		if nowSec-c.lastActive.Load()/1000 > timeout && !c.busy.Load() && !c.isBlocked.Load() && c.replica.Load() == nil && !c.replicaWaiting.Load() && !slices.Contains(s.mu.monitors, c) {
			idle = append(idle, c)
		}
	}
	s.mu.Unlock()
	for _, c := range idle {
		s.verbosef("Closing idle client")
		c.kill()
	}
}

// resizeQueryBufs gives back query-buffer memory as Redis's
// clientsCronResizeQueryBuffer does: a buffer over 32 KB is cut back to
// its recent peak (every tick), and, once a second, the buffer of a client
// idle for more than 2 seconds that holds no input and wastes over 4 KB is
// freed. Each client resizes its own buffer, on its goroutine.
func (s *Server) resizeQueryBufs(now time.Time, idleCheck bool) {
	nowSec := now.Unix()
	var shrink, release []*Client
	s.mu.Lock()
	for _, c := range s.mu.clients {
		q := c.qbuf.Load()
		used, free := q>>32, uint64(uint32(q))
		switch {
		case idleCheck && used == 0 && free > 4096 && nowSec-c.lastActive.Load()/1000 > 2:
			release = append(release, c)
		case used+free > 32*1024:
			shrink = append(shrink, c)
		}
	}
	s.mu.Unlock()
	for _, c := range release {
		c.invoke(c.releaseQueryBuf)
	}
	for _, c := range shrink {
		c.invoke(c.shrinkQueryBuf)
	}
}

// errorStats counts error replies by their code, the first word of the
// message (INFO errorstats). Errors are rare, so a mutex is enough.
type errorStats struct {
	mu     sync.Mutex
	counts map[string]int64
}

// countError counts one error reply with text msg (without the leading
// '-') in total_error_replies and errorstats. Like Redis's afterErrorReply
// the code is the text up to the first space within the first 32 bytes of
// the reply, "ERR" when there is none.
func (s *Server) countError(msg string) {
	s.stats.totalErrorReplies.Add(1)
	code := "ERR"
	if i := strings.IndexByte(msg[:min(len(msg), 31)], ' '); i > 0 {
		code = msg[:i]
	}
	e := &s.stats.errors
	e.mu.Lock()
	if e.counts == nil {
		e.counts = make(map[string]int64)
	}
	e.counts[code]++
	e.mu.Unlock()
}

// snapshot returns the error codes and counts, sorted by code.
func (e *errorStats) snapshot() (codes []string, counts []int64) {
	e.mu.Lock()
	for code := range e.counts {
		codes = append(codes, code)
	}
	slices.Sort(codes)
	for _, code := range codes {
		counts = append(counts, e.counts[code])
	}
	e.mu.Unlock()
	return codes, counts
}

func (e *errorStats) reset() {
	e.mu.Lock()
	e.counts = nil
	e.mu.Unlock()
}
