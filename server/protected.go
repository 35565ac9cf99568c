package server

import (
	"net"
)

// Protected mode, as Redis's clientAcceptHandler: with protected-mode on
// and no password for the default user, a connection from anywhere but
// the loopback interface (127.0.0.1, ::1) or the unix socket is answered
// Redis's DENIED error and closed.

// protectedRefuses reports whether protected mode refuses a connection
// from addr.
func (s *Server) protectedRefuses(addr net.Addr) bool {
	if !s.cfg.Lookup("protected-mode").Bool() || !s.defaultUserNoPass() {
		return false
	}
	switch a := addr.(type) {
	case *net.TCPAddr:
		return !a.IP.Equal(net.IPv4(127, 0, 0, 1)) && !a.IP.Equal(net.IPv6loopback)
	case *net.UnixAddr:
		return false
	}
	return true
}

// defaultUserNoPass reports whether the default user needs no password.
func (s *Server) defaultUserNoPass() bool { return s.acl.Default().Rules().NoPass() }

// deny writes the DENIED error to conn (a TLS one after its handshake) and
// closes it.
func (s *Server) deny(conn net.Conn) {
	s.stats.rejectedConns.Add(1)
	conn.Write([]byte("-" + errProtectedMode + "\r\n"))
	conn.Close()
}
