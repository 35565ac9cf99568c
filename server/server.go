// Package server is HotKV's network server: connections, client state, the
// command table, the gate every command passes through, and the command
// handlers (cmd_<group>.go).
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/config"
	"github.com/hotkv/hotkv/keyspace"
	"github.com/hotkv/hotkv/lock"
)

// Version is HotKV's own version; RedisVersion is the Redis version whose
// behaviour it implements, reported where clients look for it.
const (
	Version      = "0.1.0"
	RedisVersion = "7.0.15"
)

// Server is one HotKV instance.
type Server struct {
	cfg   *config.Config
	dbs   []*keyspace.DB
	locks *lock.Manager
	table Table
	log   *slog.Logger

	// Hot configuration, read with one atomic load per use.
	maxmemory, protoMaxBulk, queryBufLimit, requirepass *config.Param

	listeners []net.Listener
	loops     *loops // the event loops serving clients (Linux)
	started   time.Time
	nextID    atomic.Uint64

	mu struct {
		sync.Mutex
		clients  map[uint64]*Client
		monitors []*Client
	}
	monitors atomic.Int32 // number of MONITOR clients; checked per command
	closing  atomic.Bool
	done     chan struct{}
	wg       sync.WaitGroup

	stats    serverStats
	slowlog  slowlog
	lastSave atomic.Int64 // unix seconds

	usedMem struct {
		at    atomic.Int64 // unix ms of the last computation
		bytes atomic.Int64
		peak  atomic.Int64 // used_memory_peak
	}
}

type serverStats struct {
	connections, rejectedConns            atomic.Int64
	expiredKeys, hits, misses             atomic.Int64
	protocolErrors, unexpectedErrors      atomic.Int64
	totalErrorReplies, panics, evicted    atomic.Int64
	expireCycleKeys, expireCycleCPUMicros atomic.Int64

	// slots spread the per-command counters over cache lines.
	slots [statSlots]struct {
		hits, misses, commands atomic.Int64
		netIn, netOut          atomic.Int64
		_                      [24]byte
	}

	inst instMetrics // instantaneous_* rates, sampled by the cron
}

// New returns a server for cfg. It opens no socket until ListenAndServe.
func New(cfg *config.Config) *Server {
	s := &Server{
		cfg:     cfg,
		locks:   lock.NewManager(),
		table:   make(Table),
		log:     slog.New(slog.NewTextHandler(os.Stderr, nil)),
		started: time.Now(),
		done:    make(chan struct{}),
	}
	s.mu.clients = make(map[uint64]*Client)
	n := int(cfg.Lookup("databases").Int())
	s.dbs = make([]*keyspace.DB, n)
	for i := range s.dbs {
		s.dbs[i] = keyspace.New()
	}
	s.maxmemory = cfg.Lookup("maxmemory")
	s.protoMaxBulk = cfg.Lookup("proto-max-bulk-len")
	s.queryBufLimit = cfg.Lookup("client-query-buffer-limit")
	s.requirepass = cfg.Lookup("requirepass")
	s.lastSave.Store(time.Now().Unix())
	s.applyMaxmemory()
	cfg.OnChange("maxmemory", func(*config.Param) error { s.applyMaxmemory(); return nil })
	s.registerCommands()
	return s
}

// applyMaxmemory ties the Go GC's soft limit to maxmemory, so the collector
// works harder as the data set nears the budget.
func (s *Server) applyMaxmemory() {
	if mm := s.maxmemory.Int(); mm > 0 {
		debug.SetMemoryLimit(mm + mm/2)
	} else {
		debug.SetMemoryLimit(-1 >> 1)
	}
}

// Config returns the server's configuration.
func (s *Server) Config() *config.Config { return s.cfg }

// Listen opens the listening sockets named by the bind and port
// directives. A bind address prefixed with '-' is optional: failing to
// bind it is not an error, as in Redis.
func (s *Server) Listen() error {
	port := s.cfg.Lookup("port").Int()
	if port == 0 {
		return errors.New("port 0: no TCP listener configured")
	}
	for _, addr := range strings.Fields(s.cfg.Lookup("bind").String()) {
		optional := strings.HasPrefix(addr, "-")
		addr = strings.TrimPrefix(addr, "-")
		if addr == "*" {
			addr = ""
		}
		ln, err := net.Listen("tcp", net.JoinHostPort(addr, strconv.FormatInt(port, 10)))
		if err != nil {
			if optional {
				continue
			}
			return err
		}
		s.listeners = append(s.listeners, ln)
	}
	if len(s.listeners) == 0 {
		return errors.New("could not bind any address")
	}
	return nil
}

// Addr returns the address of the first listener (after Listen).
func (s *Server) Addr() net.Addr { return s.listeners[0].Addr() }

// Serve accepts connections on the listeners opened by Listen until
// Shutdown. It returns nil after a clean shutdown.
func (s *Server) Serve() error {
	if err := s.startTransport(); err != nil {
		return err
	}
	s.wg.Add(1)
	go s.cron()
	errc := make(chan error, len(s.listeners))
	for _, ln := range s.listeners {
		go func(ln net.Listener) { errc <- s.acceptLoop(ln) }(ln)
	}
	var err error
	for range s.listeners {
		if e := <-errc; e != nil && err == nil && !s.closing.Load() {
			err = e
		}
	}
	s.wg.Wait()
	return err
}

// ListenAndServe is Listen followed by Serve.
func (s *Server) ListenAndServe() error {
	if err := s.Listen(); err != nil {
		return err
	}
	return s.Serve()
}

func (s *Server) acceptLoop(ln net.Listener) error {
	for {
		conn, err := ln.Accept()
		if err != nil {
			if s.closing.Load() {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				time.Sleep(5 * time.Millisecond)
				continue
			}
			return err
		}
		maxClients := s.cfg.Lookup("maxclients").Int()
		s.mu.Lock()
		full := int64(len(s.mu.clients)) >= maxClients
		s.mu.Unlock()
		if full {
			s.stats.rejectedConns.Add(1)
			conn.Write([]byte("-ERR max number of clients reached\r\n"))
			conn.Close()
			continue
		}
		s.stats.connections.Add(1)
		s.serveAccepted(conn)
	}
}

// Shutdown stops accepting, closes every client connection and waits for
// their goroutines (and the cron) to end.
func (s *Server) Shutdown(ctx context.Context) error {
	if !s.closing.CompareAndSwap(false, true) {
		return nil
	}
	close(s.done)
	for _, ln := range s.listeners {
		ln.Close()
	}
	s.mu.Lock()
	for _, c := range s.mu.clients {
		c.conn.Close()
	}
	s.mu.Unlock()
	waited := make(chan struct{})
	go func() { s.wg.Wait(); s.stopTransport(); close(waited) }()
	select {
	case <-waited:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Done is closed when the server begins shutting down.
func (s *Server) Done() <-chan struct{} { return s.done }

// usedMemory returns the bytes held by all databases plus a fixed base, as
// used_memory reports it. It is recomputed at most once a millisecond.
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

func (s *Server) usedMemory(nowMs int64) int64 {
	if at := s.usedMem.at.Load(); nowMs-at < 1 {
		return s.usedMem.bytes.Load()
	}
	var n int64 = baseMemory
	for _, db := range s.dbs {
		n += db.Mem()
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

// cron runs the periodic background work: active expiry.
func (s *Server) cron() {
	defer s.wg.Done()
	hz := s.cfg.Lookup("hz").Int()
	if hz <= 0 {
		hz = 10
	}
	t := time.NewTicker(time.Second / time.Duration(hz))
	defer t.Stop()
	guard := s.locks.NewGuard(rand.Uint64())
	next := 0
	for {
		select {
		case <-s.done:
			return
		case <-t.C:
			start := time.Now()
			keyspace.Tick(start.UnixMilli())
			next = s.activeExpire(guard, next)
			s.stats.expireCycleCPUMicros.Add(time.Since(start).Microseconds())
			s.usedMemory(start.UnixMilli()) // keeps used_memory_peak current
			s.sampleInstantaneous(start)
		}
	}
}

// activeExpire samples keys with an expiry across the shards of every
// database and removes those that expired, each under its tag lock (busy
// keys are skipped; they expire on access or in a later cycle). It keeps
// going over a shard while more than a quarter of its sample was expired.
func (s *Server) activeExpire(g *lock.Guard, next int) int {
	const shardsPerCycle = 64
	const sample = 20
	var cand []string
	for _, db := range s.dbs {
		for i := 0; i < shardsPerCycle; i++ {
			si := (next + i) % keyspace.NumShards
			for {
				cand = db.ExpireCandidates(si, sample, cand[:0])
				removed := 0
				for _, k := range cand {
					kb := []byte(k)
					if !g.TryLockKey(kb) {
						continue
					}
					if db.DeleteExpired(kb) {
						removed++
					}
					g.Unlock()
				}
				s.stats.expiredKeys.Add(int64(removed))
				if removed <= sample/4 {
					break
				}
			}
		}
	}
	return (next + shardsPerCycle) % keyspace.NumShards
}

// Logf logs at warning level (used for recovered panics and bad clients).
func (s *Server) logf(format string, args ...any) {
	s.log.Warn(fmt.Sprintf(format, args...))
}
