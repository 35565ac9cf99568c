//go:build !linux

package server

import (
	"crypto/tls"
	"errors"
	"net"
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

// peerClosed cannot tell here: a waiting command ends on its own terms.
func peerClosed(fd int) bool { return false }

// serveTLS serves a TLS connection on a goroutine of its own, as every
// connection here; the handshake runs on its first read.
func (s *Server) serveTLS(conn net.Conn) {
	s.wg.Add(1)
	go s.serveConn(tls.Server(conn, s.tlsServerConfig()))
}
