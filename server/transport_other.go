//go:build !linux

package server

import (
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
