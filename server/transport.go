package server

import (
	"io"
	"net"
	"syscall"

	"github.com/hotkv/hotkv/resp"
)

// transport is a client's connection, with the capabilities the server
// uses. Two kinds implement it: a connection of an event loop
// (eventloop.Conn, on Linux) and one served by a goroutine of its own
// (goConn, elsewhere).
type transport interface {
	io.ReadWriter
	Close() error
	RemoteAddr() net.Addr
	LocalAddr() net.Addr
	// Invoke runs fn on whatever serves the connection, one at a time
	// with its commands (while a command of it runs, after it).
	Invoke(fn func())
	// HandedOff reports, to the goroutine running the connection's
	// current command, that its event loop went on without it on another
	// goroutine because the command ran long (eventloop.Group's
	// SetHandoffAfter): its next commands are best left to the loop. A
	// connection with a goroutine of its own is never handed off.
	HandedOff() bool
	// Yield reports, to the goroutine running the connection's current
	// call, that its event loop asks for the loop back (the call ran most
	// of the handoff time): the loop will serve the connection's input
	// again after its other connections, and the call should return now.
	// A connection with a goroutine of its own never yields.
	Yield() bool
	// Hold queues p to be written once the event loop's batch ends (the
	// append-only file then has what it answers, loopHandler.OnBatchEnd).
	// A goroutine-served connection writes at once instead: the caller
	// syncs the file first (evented false).
	Hold(p []byte)
	// Flush writes what Hold queued at once (a connection about to close).
	Flush()
	// Pending is the output the socket has not taken yet (CLIENT LIST's
	// omem).
	Pending() int
	// Fd is the socket's descriptor number, -1 when unknown.
	Fd() int
	// Loop is the number of the event loop that serves the connection
	// (from 1), 0 for a connection with a goroutine of its own.
	Loop() uint32
}

// evented reports whether an event loop serves the connection: such a
// connection's handler never blocks, its pushes are queued and written
// by the loop, and its replies can be held (Hold).
func evented(t transport) bool {
	_, ok := t.(*goConn)
	return !ok
}

// goConn is a connection served by a goroutine of its own (serveConn):
// reads and writes block, and Invoke hands work to that goroutine.
type goConn struct {
	net.Conn
	tasks chan func()
}

func newGoConn(c net.Conn) *goConn { return &goConn{Conn: c, tasks: make(chan func(), 4)} }

func (g *goConn) Invoke(fn func()) { g.tasks <- fn }
func (g *goConn) HandedOff() bool  { return false }
func (g *goConn) Yield() bool      { return false }
func (g *goConn) Loop() uint32     { return 0 }
func (g *goConn) Hold(p []byte)    { g.Write(p) }
func (g *goConn) Flush()           {}
func (g *goConn) Pending() int     { return 0 }

// Fd returns the socket's descriptor, -1 when it cannot be read.
func (g *goConn) Fd() int {
	sc, ok := g.Conn.(syscall.Conn)
	if !ok {
		return -1
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return -1
	}
	fd := -1
	if rc.Control(func(f uintptr) { fd = int(f) }) != nil {
		return -1
	}
	return fd
}

// clientKind says what an internal client — one no connection serves —
// stands for.
type clientKind int

const (
	// engineClient runs a script's redis.call commands, as Redis's Lua
	// client: its blocking commands never wait.
	engineClient clientKind = iota
	// replayClient replays the append-only file: its writes are not
	// propagated and MONITOR and the slow log do not see them; its
	// blocking commands never wait; every check obeys it, as the master
	// client (a read-only replica replays its file too).
	replayClient
	// standInClient serves a blocked client's command on another
	// connection's goroutine (blocking.go).
	standInClient
	// backgroundClient runs server work: saves, the RDB loader's
	// function libraries.
	backgroundClient
	// masterClient applies a replica's master's stream: every check
	// obeys it (no READONLY, OOM, MISCONF, BUSY or pause refusal).
	masterClient
)

// newInternalClient returns an internal client of kind, standing for
// client id (0: the server itself) in database db: authenticated, RESP2,
// with a lock guard of its own except a stand-in's (it runs under the
// locks of whoever serves it).
func (s *Server) newInternalClient(kind clientKind, id uint64, db int) *Client {
	c := &Client{srv: s, id: id, slot: int(id % statSlots), db: s.dbs[db], w: resp.Writer{Proto: 2}, authenticated: true}
	c.dbIndex.Store(int32(db))
	if kind != standInClient {
		c.guard = s.locks.NewGuard(id)
	}
	switch kind {
	case engineClient:
		c.scripted = true
	case replayClient:
		c.scripted, c.replaying, c.obey = true, true, true
	case standInClient:
		c.servingBlocked = true
	case masterClient:
		c.obey = true
	}
	return c
}
