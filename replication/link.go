package replication

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hotkv/hotkv/resp"
)

// The replica side: a Link connects to a master, does Redis 7.0's
// handshake (PING, AUTH with masterauth, REPLCONF listening-port and capa
// eof and psync2, PSYNC), loads the payload of the full resynchronization,
// then applies the master's stream command by command, acknowledging its
// offset every second and when the master asks (REPLCONF GETACK). A lost
// link is retried every second until Close.

// Link states, as ROLE names them.
const (
	StateConnect    = "connect"    // waiting to (re)connect
	StateConnecting = "connecting" // connecting to the master
	StateHandshake  = "handshake"  // PING, AUTH, REPLCONF, PSYNC
	StateSync       = "sync"       // receiving and loading the payload
	StateConnected  = "connected"  // following the stream
)

// LinkConfig is what a Link needs from its server.
type LinkConfig struct {
	Host string
	Port int
	// ListeningPort is the port the replica announces (REPLCONF
	// listening-port).
	ListeningPort func() int
	// AnnounceIP returns replica-announce-ip ("": none is announced).
	AnnounceIP func() string
	// Auth returns masteruser and masterauth (both empty: no AUTH).
	Auth func() (user, pass string)
	// Timeout is repl-timeout.
	Timeout func() time.Duration
	// Dial connects to the master at addr within timeout (nil: plain
	// TCP).
	Dial func(addr string, timeout time.Duration) (net.Conn, error)
	// DisklessLoad reports whether the next payload goes straight to
	// the parser rather than to a file first (repl-diskless-load); it
	// is asked once per payload, before Load.
	DisklessLoad func() bool
	// Load replaces the dataset with the payload p. It runs on the
	// link's goroutine.
	Load func(p Payload) error
	// Apply runs one command of the master's stream; it runs on the
	// link's goroutine, in stream order. It reports whether the stream
	// is at a boundary (not inside a MULTI ... EXEC): the offset moves
	// only there, so that a link lost inside a transaction continues from
	// its MULTI.
	Apply func(args [][]byte) (boundary bool)
	// Prefetch, when set, is called before each command of the stream
	// is applied, with the reader holding it: the commands buffered
	// after it (rd.Ahead) are about to be applied, and the replica may
	// warm the CPU cache with their keys, as a connection does for its
	// pipeline. It must not consume input.
	Prefetch func(rd *resp.Reader)
	// Lost, when set, is called when a session ends: the command it was
	// in the middle of (a transaction) is to be forgotten.
	Lost func()
	// Synced is called once the replica follows the master's stream of
	// replication ID replID from offset: after a full synchronization
	// (full) or a partial one.
	Synced func(replID string, offset int64, full bool)
	// CachedID and CachedOffset, when CachedID is set, are the stream
	// the replica already has: a master that becomes a replica offers
	// its own (Redis's replicationCacheMasterUsingMyself), so that PSYNC
	// may continue it.
	CachedID     string
	CachedOffset int64
	// Failover, when set, is asked before each PSYNC: true sends it with
	// FAILOVER (a master handing over to this master, which then
	// becomes one), and FailoverDone gets whether the master accepted
	// it (+CONTINUE or +FULLRESYNC) or refused it (an error), after
	// which the session ends.
	Failover     func() bool
	FailoverDone func(accepted bool)
	// Proxy receives the stream's bytes as applied, as they came from
	// the master, a transaction at a time, for the replica's own
	// replicas. raw is valid during the call only, and read-only.
	Proxy func(raw []byte)
	// Logf and Warnf log in the server's log.
	Logf, Warnf func(format string, args ...any)
}

// Payload is a full synchronization's snapshot, as it arrives.
type Payload struct {
	R        io.Reader
	Size     int64  // its bytes; -1: until R's EOF (a diskless master's)
	ReplID   string // the master's replication ID, from +FULLRESYNC
	Diskless bool   // DisklessLoad's answer
}

// Link is a replica's connection to its master.
type Link struct {
	cfg      LinkConfig
	stop     chan struct{}
	stopOnce sync.Once
	done     chan struct{}

	state  atomic.Value // string
	offset atomic.Int64 // the master's offset this replica has applied
	read   atomic.Int64 // the master's offset this replica has read
	replID atomic.Value // string: the master's replication ID
	lastIO atomic.Int64 // unix seconds of the last data from the master
	// downSince: unix seconds when a connected link was lost; 0 while
	// connected or before the first connection.
	downSince atomic.Int64
	// connectedOnce: the link has completed a synchronization.
	connectedOnce atomic.Bool
	// transferSize and transferRead: the payload being received, its
	// size (0: until a mark) and the bytes read of it so far.
	transferSize, transferRead atomic.Int64

	mu        sync.Mutex // guards conn, connSince and writes to conn
	conn      net.Conn
	connSince time.Time // when conn was made
}

// Connect starts a link to the master cfg names.
func Connect(cfg LinkConfig) *Link {
	l := &Link{cfg: cfg, stop: make(chan struct{}), done: make(chan struct{})}
	l.state.Store(StateConnect)
	l.replID.Store(cfg.CachedID)
	l.offset.Store(-1)
	if cfg.CachedID != "" {
		l.offset.Store(cfg.CachedOffset)
	}
	go l.run()
	return l
}

// Close stops the link and waits until its goroutine is done (the
// command being applied, if any, completes first).
func (l *Link) Close() {
	l.Stop()
	<-l.done
}

// Stop stops the link without waiting for its goroutine.
func (l *Link) Stop() {
	l.stopOnce.Do(func() { close(l.stop) })
	l.mu.Lock()
	if l.conn != nil {
		l.conn.Close()
	}
	l.mu.Unlock()
}

// Host and Port return the master's address.
func (l *Link) Host() string { return l.cfg.Host }

// Port returns the master's port.
func (l *Link) Port() int { return l.cfg.Port }

// State returns the link's state (StateConnect ...).
func (l *Link) State() string { return l.state.Load().(string) }

// Offset returns the master's offset this replica has applied; -1 before
// the first synchronization.
func (l *Link) Offset() int64 { return l.offset.Load() }

// ReadOffset returns the master's offset this replica has read, applied
// or not (slave_read_repl_offset).
func (l *Link) ReadOffset() int64 { return max(l.read.Load(), l.offset.Load()) }

// ReplID returns the master's replication ID, "" before the first
// synchronization.
func (l *Link) ReplID() string { return l.replID.Load().(string) }

// Transfer returns the size of the payload being received (0: a
// diskless one, which ends with a mark) and the bytes read of it so far
// (INFO's master_sync_* fields, while State is StateSync).
func (l *Link) Transfer() (size, read int64) { return l.transferSize.Load(), l.transferRead.Load() }

// DownSince returns when (unix seconds) the link to a master it had
// followed was lost, 0 while it is connected or if it never was (INFO's
// master_link_down_since_seconds, as Redis's repl_down_since).
func (l *Link) DownSince() int64 { return l.downSince.Load() }

// LastIO returns the unix seconds of the last data received.
func (l *Link) LastIO() int64 { return l.lastIO.Load() }

// Addrs returns the addresses of the link's connection to the master,
// remote and local ("" when none is up).
func (l *Link) Addrs() (remote, local string) {
	remote, local, _, _ = l.ConnInfo()
	return remote, local
}

// ConnInfo describes the link's connection to the master for CLIENT
// LIST: its addresses ("" when none is up), its file descriptor (-1 when
// unknown) and when it was made.
func (l *Link) ConnInfo() (remote, local string, fd int, since time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn == nil {
		return "", "", -1, time.Time{}
	}
	fd = -1
	if sc, ok := l.conn.(syscall.Conn); ok {
		if rc, err := sc.SyscallConn(); err == nil {
			rc.Control(func(f uintptr) { fd = int(f) })
		}
	}
	return l.conn.RemoteAddr().String(), l.conn.LocalAddr().String(), fd, l.connSince
}

// Drop closes the link's connection to the master, if one is up (CLIENT
// KILL of the master client): the link reconnects a second later and
// continues the stream with PSYNC. It reports whether one was closed.
func (l *Link) Drop() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn == nil {
		return false
	}
	l.conn.Close()
	return true
}

// Stopping reports whether Stop or Close was called: a command the link
// is applying that waits (CLIENT PAUSE) gives up.
func (l *Link) Stopping() bool { return l.stopped() }

func (l *Link) stopped() bool {
	select {
	case <-l.stop:
		return true
	default:
		return false
	}
}

func (l *Link) run() {
	defer close(l.done)
	for !l.stopped() {
		l.state.Store(StateConnecting)
		err := l.session()
		if l.State() == StateConnected {
			l.downSince.Store(time.Now().Unix())
		}
		if l.cfg.Lost != nil {
			l.cfg.Lost()
		}
		if l.stopped() {
			break
		}
		l.state.Store(StateConnect)
		if err != nil {
			l.cfg.Warnf("%v", err)
		}
		select {
		case <-l.stop:
		case <-time.After(time.Second):
		}
	}
	l.state.Store(StateConnect)
}

// connected marks the link as following the master's stream.
func (l *Link) connected() {
	l.downSince.Store(0)
	l.state.Store(StateConnected)
}

// announceIP is the address to announce, "" for none.
func (l *Link) announceIP() string {
	if l.cfg.AnnounceIP == nil {
		return ""
	}
	return l.cfg.AnnounceIP()
}

// errLinkClosed ends a session quietly.
var errLinkClosed = errors.New("replication link closed")

// session connects, synchronizes and follows the stream until the link
// breaks or is closed.
func (l *Link) session() error {
	addr := net.JoinHostPort(l.cfg.Host, strconv.Itoa(l.cfg.Port))
	l.cfg.Logf("Connecting to MASTER %s", addr)
	dial := l.cfg.Dial
	if dial == nil {
		dial = func(addr string, timeout time.Duration) (net.Conn, error) {
			return net.DialTimeout("tcp", addr, timeout)
		}
	}
	conn, err := dial(addr, l.cfg.Timeout())
	if err != nil {
		return fmt.Errorf("Error condition on socket for SYNC: %v", err)
	}
	l.mu.Lock()
	if l.stopped() {
		l.mu.Unlock()
		conn.Close()
		return errLinkClosed
	}
	l.conn, l.connSince = conn, time.Now()
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		l.conn.Close()
		l.conn = nil
		l.mu.Unlock()
	}()
	l.cfg.Logf("MASTER <-> REPLICA sync started")
	l.state.Store(StateHandshake)
	br := bufio.NewReaderSize(conn, 64<<10)
	if err := l.handshake(conn, br); err != nil {
		return err
	}
	// PSYNC: continue from where the last session stopped, when there
	// was one.
	cachedID, cachedOff := l.ReplID(), l.Offset()
	psyncID, psyncOff := "?", "-1"
	if cachedID != "" && cachedOff >= 0 {
		psyncID, psyncOff = cachedID, strconv.FormatInt(cachedOff+1, 10)
		l.cfg.Logf("Trying a partial resynchronization (request %s:%s).", psyncID, psyncOff)
	} else {
		l.cfg.Logf("Partial resynchronization not possible (no cached master)")
	}
	args := []string{"PSYNC", psyncID, psyncOff}
	failover := l.cfg.Failover != nil && l.cfg.Failover()
	if failover {
		args = append(args, "FAILOVER")
	}
	line, err := l.command(conn, br, args...)
	if err != nil {
		return err
	}
	if failover {
		accepted := strings.HasPrefix(line, "+CONTINUE") || strings.HasPrefix(line, "+FULLRESYNC")
		l.cfg.FailoverDone(accepted)
		if !accepted {
			return fmt.Errorf("Unexpected reply to PSYNC from master: %s", line)
		}
	}
	if rest, ok := strings.CutPrefix(line, "+CONTINUE"); ok {
		if id := strings.TrimSpace(rest); id != "" && id != cachedID {
			l.cfg.Logf("Master replication ID changed to %s", id)
			l.replID.Store(id)
		}
		l.cfg.Logf("Successful partial resynchronization with master.")
		l.cfg.Logf("MASTER <-> REPLICA sync: Master accepted a Partial Resynchronization.")
		l.cfg.Synced(l.ReplID(), l.Offset(), false)
		l.connected()
		return l.follow(conn, br)
	}
	replID, offset, ok := parseFullResync(line)
	if !ok {
		return fmt.Errorf("Unexpected reply to PSYNC from master: %s", line)
	}
	l.cfg.Logf("Full resync from master: %s:%d", replID, offset)
	l.state.Store(StateSync)
	if err := l.loadPayload(conn, br, replID); err != nil {
		return err
	}
	l.replID.Store(replID)
	l.offset.Store(offset)
	l.cfg.Synced(replID, offset, true)
	l.connected()
	l.connectedOnce.Store(true)
	l.cfg.Logf("MASTER <-> REPLICA sync: Finished with success")
	// The first ACK at once puts this replica online on its master (a
	// diskless master waits for it), as Redis's replica sends it.
	l.ack()
	return l.follow(conn, br)
}

// handshake does PING, AUTH and the REPLCONFs.
func (l *Link) handshake(conn net.Conn, br *bufio.Reader) error {
	line, err := l.command(conn, br, "PING")
	if err != nil {
		return err
	}
	// Redis accepts an authentication error here: AUTH follows.
	if strings.HasPrefix(line, "-") && !strings.HasPrefix(line, "-NOAUTH") &&
		!strings.HasPrefix(line, "-NOPERM") && !strings.HasPrefix(line, "-ERR operation not permitted") {
		return fmt.Errorf("Error reply to PING from master: '%s'", line)
	}
	l.cfg.Logf("Master replied to PING, replication can continue...")
	if user, pass := l.cfg.Auth(); pass != "" {
		args := []string{"AUTH", pass}
		if user != "" {
			args = []string{"AUTH", user, pass}
		}
		if line, err = l.command(conn, br, args...); err != nil {
			return err
		}
		if strings.HasPrefix(line, "-") {
			return fmt.Errorf("Unable to AUTH to MASTER: %s", line)
		}
	}
	if line, err = l.command(conn, br, "REPLCONF", "listening-port", strconv.Itoa(l.cfg.ListeningPort())); err != nil {
		return err
	}
	if strings.HasPrefix(line, "-") {
		l.cfg.Logf("(Non critical) Master does not understand REPLCONF listening-port: %s", line)
	}
	if ip := l.announceIP(); ip != "" {
		if line, err = l.command(conn, br, "REPLCONF", "ip-address", ip); err != nil {
			return err
		}
		if strings.HasPrefix(line, "-") {
			l.cfg.Logf("(Non critical) Master does not understand REPLCONF ip-address: %s", line)
		}
	}
	// Both payload forms are read: a sized bulk, or the diskless
	// "$EOF:<mark>" one.
	if line, err = l.command(conn, br, "REPLCONF", "capa", "eof", "capa", "psync2"); err != nil {
		return err
	}
	if strings.HasPrefix(line, "-") {
		l.cfg.Logf("(Non critical) Master does not understand REPLCONF capa: %s", line)
	}
	return nil
}

// command sends args and returns the reply's first line (an error reply
// is returned as a line, not an error).
func (l *Link) command(conn net.Conn, br *bufio.Reader, args ...string) (string, error) {
	var b []byte
	b = fmt.Appendf(b, "*%d\r\n", len(args))
	for _, a := range args {
		b = fmt.Appendf(b, "$%d\r\n%s\r\n", len(a), a)
	}
	if err := l.write(b); err != nil {
		return "", err
	}
	for {
		// A master's newlines (while it prepares the payload) keep the
		// link alive.
		conn.SetReadDeadline(time.Now().Add(l.cfg.Timeout()))
		line, err := br.ReadString('\n')
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return "", errors.New("Timeout connecting to the MASTER...")
		}
		if err != nil {
			return "", fmt.Errorf("Master did not reply to %s: %v", args[0], err)
		}
		if line = strings.TrimRight(line, "\r\n"); line != "" {
			l.lastIO.Store(time.Now().Unix())
			return line, nil
		}
	}
}

// write writes b to the master.
func (l *Link) write(b []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn == nil {
		return errLinkClosed
	}
	l.conn.SetWriteDeadline(time.Now().Add(l.cfg.Timeout()))
	_, err := l.conn.Write(b)
	return err
}

// parseFullResync parses "+FULLRESYNC <replid> <offset>".
func parseFullResync(line string) (string, int64, bool) {
	f := strings.Fields(line)
	if len(f) != 3 || f[0] != "+FULLRESYNC" {
		return "", 0, false
	}
	off, err := strconv.ParseInt(f[2], 10, 64)
	return f[1], off, err == nil
}

// loadPayload reads the payload's header (newlines before it are the
// master's keepalives) and hands its bytes to Load: a "$<len>" bulk, or
// the diskless "$EOF:<40-byte mark>" form, which ends with the mark.
func (l *Link) loadPayload(conn net.Conn, br *bufio.Reader, replID string) error {
	var line string
	for line == "" {
		conn.SetReadDeadline(time.Now().Add(l.cfg.Timeout()))
		s, err := br.ReadString('\n')
		if err != nil {
			return fmt.Errorf("I/O error reading bulk count from MASTER: %v", err)
		}
		line = strings.TrimRight(s, "\r\n")
		l.lastIO.Store(time.Now().Unix())
	}
	if line[0] == '-' {
		return fmt.Errorf("MASTER aborted replication with an error: %s", line[1:])
	}
	if line[0] != '$' {
		return fmt.Errorf("Bad protocol from MASTER, the first byte is not '$' (we received '%s'), are you sure the host and port are right?", line)
	}
	conn.SetReadDeadline(time.Time{}) // the load reads at its pace
	p := Payload{ReplID: replID, Diskless: l.cfg.DisklessLoad != nil && l.cfg.DisklessLoad()}
	l.transferSize.Store(0)
	l.transferRead.Store(0)
	to := "to disk"
	if p.Diskless {
		to = "to parser"
	}
	if mark, ok := strings.CutPrefix(line, "$EOF:"); ok && len(mark) == 40 {
		l.cfg.Logf("MASTER <-> REPLICA sync: receiving streamed RDB from master with EOF %s", to)
		p.R, p.Size = &transferReader{&eofReader{r: br, mark: []byte(mark)}, l}, -1
		return l.cfg.Load(p)
	}
	size, err := strconv.ParseInt(line[1:], 10, 64)
	if err != nil || size < 0 {
		return fmt.Errorf("Bad protocol from MASTER: %s", line)
	}
	l.cfg.Logf("MASTER <-> REPLICA sync: receiving %d bytes from master %s", size, to)
	l.transferSize.Store(size)
	lr := io.LimitReader(br, size)
	p.R, p.Size = &transferReader{lr, l}, size
	if err := l.cfg.Load(p); err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, lr) // what the loader left (none, normally)
	return err
}

// transferReader counts a payload's bytes as they are read.
type transferReader struct {
	r io.Reader
	l *Link
}

func (t *transferReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 {
		t.l.transferRead.Add(int64(n))
		t.l.lastIO.Store(time.Now().Unix())
	}
	return n, err
}

// eofReader reads up to the 40-byte mark that ends a diskless payload,
// and no further: the master's stream follows the mark at once, in the
// same reads, and stays in r for the stream's reader. It looks ahead with
// Peek and consumes only payload bytes and, at the end, the mark.
type eofReader struct {
	r    *bufio.Reader
	mark []byte
	done bool
}

func (e *eofReader) Read(p []byte) (int, error) {
	if e.done {
		return 0, io.EOF
	}
	m := len(e.mark)
	if _, err := e.r.Peek(m); err != nil { // the mark is still to come
		return 0, err
	}
	buf, _ := e.r.Peek(e.r.Buffered())
	if i := bytes.Index(buf, e.mark); i >= 0 {
		if i == 0 {
			e.r.Discard(m)
			e.done = true
			return 0, io.EOF
		}
		buf = buf[:i]
	} else {
		buf = buf[:len(buf)-m+1] // the rest may begin the mark
	}
	n := copy(p, buf)
	e.r.Discard(n)
	return n, nil
}

// follow applies the master's stream until the link breaks: each command
// advances the offset by its bytes; REPLCONF GETACK is answered with the
// offset before it. An ACK goes out every second.
func (l *Link) follow(conn net.Conn, br *bufio.Reader) error {
	stopAcks := make(chan struct{})
	defer close(stopAcks)
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-stopAcks:
				return
			case <-t.C:
				l.ack()
			}
		}
	}()
	rd := resp.NewReader(br)
	var consumed, pending int64
	var raw []byte // the bytes applied since the last boundary
	base := l.offset.Load()
	// The deadline, the time of the last data and the bytes read move
	// once per read, not per command: a read brings many.
	rd.BeforeBlock = func() error {
		return conn.SetReadDeadline(time.Now().Add(l.cfg.Timeout()))
	}
	rd.AfterRead = func() error {
		l.lastIO.Store(time.Now().Unix())
		l.read.Store(base + rd.BytesRead)
		return nil
	}
	for {
		args, err := rd.ReadCommand()
		if err != nil {
			if l.stopped() {
				return errLinkClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return errors.New("MASTER timeout: no data nor PING received...")
			}
			return fmt.Errorf("Connection with master lost: %v", err)
		}
		now := rd.Consumed()
		pending += now - consumed
		consumed = now
		if l.cfg.Prefetch != nil {
			l.cfg.Prefetch(rd)
		}
		boundary := true
		if len(args) >= 2 && strings.EqualFold(string(args[0]), "replconf") && strings.EqualFold(string(args[1]), "getack") {
			l.ack()
		} else {
			boundary = l.cfg.Apply(args)
		}
		if !boundary {
			raw = append(raw, rd.Last()...)
			continue
		}
		l.offset.Add(pending)
		pending = 0
		if len(raw) == 0 {
			l.cfg.Proxy(rd.Last()) // a unit of one command: from the buffer
			continue
		}
		raw = append(raw, rd.Last()...)
		l.cfg.Proxy(raw)
		raw = raw[:0]
		if cap(raw) > 64<<10 {
			raw = nil
		}
	}
}

// ack sends REPLCONF ACK with the offset applied.
func (l *Link) ack() {
	off := strconv.FormatInt(l.offset.Load(), 10)
	l.write(fmt.Appendf(nil, "*3\r\n$8\r\nREPLCONF\r\n$3\r\nACK\r\n$%d\r\n%s\r\n", len(off), off))
}
