//go:build linux

package server

import (
	"net"
	"runtime"
	"syscall"
	"time"

	"github.com/hotkv/hotkv/eventloop"
)

// On Linux clients are served by epoll loops (see package eventloop for
// why): as many as io-threads says when it is above 1, else one per core
// less one. The core left over is for the kernel's network stack and the
// other processes on the machine, as redis.conf advises for io-threads;
// on a 2-core machine that shares its cores with the clients (as in
// `make bench`) a second loop costs more in wake-ups than it gains.
var errWouldBlock = eventloop.ErrWouldBlock

type loops = eventloop.Group

func (s *Server) startTransport() error {
	g, err := eventloop.New(s.loopCount(), loopHandler{s})
	if err != nil {
		return err
	}
	s.loops = g
	// No command holds its loop for longer than a millisecond: past it
	// the loop's other connections go on on another goroutine.
	g.SetHandoffAfter(handoffAfter)
	s.applyBusyPoll()
	return nil
}

// applyBusyPoll passes busy-poll-usec to the loops.
func (s *Server) applyBusyPoll() {
	if s.loops != nil {
		s.loops.SetMaxSpin(time.Duration(s.cfg.Lookup("busy-poll-usec").Int()) * time.Microsecond)
	}
}

// loopHandoffs is how many commands' loops went on without them.
func (s *Server) loopHandoffs() int64 {
	if s.loops == nil {
		return 0
	}
	return s.loops.Handoffs()
}

func (s *Server) loopCount() int {
	if n := int(s.cfg.Lookup("io-threads").Int()); n > 1 {
		return n
	}
	return max(1, runtime.GOMAXPROCS(0)-1)
}

// serveAccepted hands an accepted connection to a loop.
func (s *Server) serveAccepted(conn net.Conn) {
	s.wg.Add(1)
	err := s.loops.Add(conn, func(ec *eventloop.Conn) {
		ec.Context = s.newClient(ec)
	})
	if err != nil {
		s.wg.Done()
		conn.Close()
		s.warnf("cannot serve connection from %v: %v", conn.RemoteAddr(), err)
	}
}

func (s *Server) stopTransport() {
	if s.loops != nil {
		s.loops.Close()
	}
}

type loopHandler struct{ s *Server }

func (h loopHandler) OnReadable(ec *eventloop.Conn) bool {
	return !h.s.closing.Load() && h.s.serveInput(ec.Context.(*Client))
}

// OnBatchEnd releases the replies held during the batch once the
// append-only file has what they answer: written (everysec, no) or
// written and fsynced (always). The loop waits, as Redis's does: measured
// on 2 cores, handing the fsync to a goroutine of its own and serving on
// meanwhile made batches smaller and cost more in wake-ups than it saved
// (docs/performance.md).
func (h loopHandler) OnBatchEnd(b *eventloop.Batch) {
	h.s.aof.sync()
	b.Release()
}

func (h loopHandler) OnClose(ec *eventloop.Conn) {
	h.s.removeClient(ec.Context.(*Client))
	h.s.wg.Done()
}

// peerClosed reports whether the peer of socket fd has closed the
// connection (a zero-byte peek), for a command that waits on its
// connection (WAIT) and must not outlive its client.
func peerClosed(fd int) bool {
	if fd < 0 {
		return false
	}
	var b [1]byte
	n, _, err := syscall.Recvfrom(fd, b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
	return n == 0 && err == nil
}
