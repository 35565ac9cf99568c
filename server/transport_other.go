//go:build !linux

package server

import (
	"crypto/tls"
	"errors"
	"net"
	"time"
)

// Elsewhere each client runs on its own goroutine.
var errWouldBlock = errors.New("would block") // never returned by net.Conn

type loops struct{}

func (s *Server) startTransport() error { return nil }

func (s *Server) serveAccepted(conn net.Conn) {
	s.wg.Add(1)
	go s.serveConn(conn)
}

func (s *Server) stopTransport() {}

func (s *Server) applyBusyPoll() {}

func (s *Server) loopHandoffs() int64 { return 0 }

// peerClosed cannot tell here: a waiting command ends on its own terms.
func peerClosed(fd int) bool { return false }

// serveTLS serves a TLS connection on a goroutine of its own, as every
// connection here, once its handshake is done.
func (s *Server) serveTLS(conn net.Conn) {
	s.wg.Add(1)
	tc := tls.Server(conn, s.tlsServerConfig())
	s.handshakes.Add(1)
	go func() {
		conn.SetDeadline(time.Now().Add(tlsHandshakeTimeout))
		err := tc.Handshake()
		conn.SetDeadline(time.Time{})
		s.handshakes.Add(-1) // serveConn registers the client at once
		switch {
		case err != nil:
			conn.Close()
			s.wg.Done()
		case s.protectedRefuses(conn.RemoteAddr()):
			s.deny(tc)
			s.wg.Done()
		default:
			s.serveConn(tc)
		}
	}()
}
