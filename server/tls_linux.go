//go:build linux

package server

import (
	"context"
	"crypto/tls"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/eventloop"
)

// serveTLS runs an accepted connection's TLS handshake on a goroutine of
// its own (crypto/tls cannot resume a handshake that would block), then
// hands the connection to a loop like a plain one: once established, a
// TLS connection costs no goroutine, and its records are decrypted and
// encrypted on the loop (tlsTransport).
func (s *Server) serveTLS(conn net.Conn) {
	s.wg.Add(1)
	cfg := s.tlsServerConfig()
	s.handshakes.Add(1)
	go func() {
		sock := &loopSocket{nc: conn}
		tc := tls.Server(sock, cfg)
		// The handshake ends by the timeout, or at shutdown.
		ctx, cancel := context.WithTimeout(context.Background(), tlsHandshakeTimeout)
		go func() {
			select {
			case <-s.done:
				cancel()
			case <-ctx.Done():
			}
		}()
		err := tc.HandshakeContext(ctx)
		cancel()
		defer s.handshakes.Add(-1) // once the client is registered (below)
		if err != nil {
			s.verbosef("Error accepting a client connection: %v (conn: %s)", err, peerString(conn.RemoteAddr()))
			conn.Close()
			s.wg.Done()
			return
		}
		if s.protectedRefuses(conn.RemoteAddr()) {
			s.wg.Done()
			s.deny(tc)
			return
		}
		err = s.loops.Add(conn, func(ec *eventloop.Conn) {
			sock.ec = ec
			ec.Context = s.newClient(&tlsTransport{Conn: ec, tc: tc, sock: sock})
		})
		if err != nil {
			s.wg.Done()
			conn.Close()
			s.warnf("cannot serve connection from %v: %v", conn.RemoteAddr(), err)
		}
	}()
}

// tlsTransport is a TLS connection served by an event loop: its input is
// read and decrypted, and its output encrypted, on whatever goroutine
// serves it, over the loop's socket (loopSocket).
type tlsTransport struct {
	*eventloop.Conn
	tc   *tls.Conn
	sock *loopSocket
	// wmu orders this connection's writes (Write, Hold, Close's
	// close_notify) with the hold flag they set on sock.
	wmu sync.Mutex
}

// Read reads decrypted input: eventloop.ErrWouldBlock once the socket and
// the records already read are drained.
func (t *tlsTransport) Read(p []byte) (int, error) {
	n, err := t.tc.Read(p)
	if err == errAgain {
		err = eventloop.ErrWouldBlock
	}
	return n, err
}

// Write encrypts p and sends it (never blocking: see eventloop.Conn.Write).
func (t *tlsTransport) Write(p []byte) (int, error) {
	t.wmu.Lock()
	defer t.wmu.Unlock()
	return t.tc.Write(p)
}

// Hold encrypts p and holds the records until the loop's batch ends.
func (t *tlsTransport) Hold(p []byte) {
	t.wmu.Lock()
	t.sock.hold.Store(true)
	t.tc.Write(p)
	t.sock.hold.Store(false)
	t.wmu.Unlock()
}

// Close sends TLS's close_notify and closes the connection.
func (t *tlsTransport) Close() error {
	t.wmu.Lock()
	defer t.wmu.Unlock()
	return t.tc.Close()
}

// loopSocket is the socket under a server-side tls.Conn: the accepted
// net.Conn during the handshake, then the loop's connection, whose reads
// never block — an empty socket reads as errAgain, a temporary error that
// crypto/tls passes on without failing the connection, keeping a partial
// record for the next read.
type loopSocket struct {
	nc   net.Conn
	ec   *eventloop.Conn // set before the loop serves the connection
	hold atomic.Bool     // writes are held (tlsTransport.Hold)
}

// errAgain is loopSocket's "no input now".
var errAgain net.Error = wouldBlockError{}

type wouldBlockError struct{}

func (wouldBlockError) Error() string   { return "would block" }
func (wouldBlockError) Timeout() bool   { return true }
func (wouldBlockError) Temporary() bool { return true }

func (s *loopSocket) Read(p []byte) (int, error) {
	if s.ec == nil {
		return s.nc.Read(p)
	}
	n, err := s.ec.Read(p)
	if err == eventloop.ErrWouldBlock {
		err = errAgain
	}
	return n, err
}

func (s *loopSocket) Write(p []byte) (int, error) {
	if s.ec == nil {
		return s.nc.Write(p)
	}
	if s.hold.Load() {
		s.ec.Hold(p)
		return len(p), nil
	}
	return s.ec.Write(p)
}

func (s *loopSocket) Close() error {
	if s.ec == nil {
		return s.nc.Close()
	}
	return s.ec.Close()
}

func (s *loopSocket) LocalAddr() net.Addr  { return s.nc.LocalAddr() }
func (s *loopSocket) RemoteAddr() net.Addr { return s.nc.RemoteAddr() }

// The deadlines apply to the handshake; the loop's socket never blocks.
func (s *loopSocket) SetDeadline(t time.Time) error {
	if s.ec == nil {
		return s.nc.SetDeadline(t)
	}
	return nil
}

func (s *loopSocket) SetReadDeadline(t time.Time) error {
	if s.ec == nil {
		return s.nc.SetReadDeadline(t)
	}
	return nil
}

func (s *loopSocket) SetWriteDeadline(t time.Time) error {
	if s.ec == nil {
		return s.nc.SetWriteDeadline(t)
	}
	return nil
}
