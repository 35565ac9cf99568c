package server

import (
	"net"
	"syscall"
	"time"
)

// Socket options from the configuration, as Redis sets them: tcp-keepalive
// on accepted connections, socket-mark-id (Linux's SO_MARK) on listening,
// accepted and outgoing sockets, bind-source-addr as the source address of
// the connections the server opens (replication, MIGRATE), and
// repl-disable-tcp-nodelay on a master's replica connections.

// tuneAccepted sets an accepted connection's keepalive (tcp-keepalive
// seconds: the first probe after that idle time, the next ones a third of
// it apart, three of them; 0 turns keepalive off) and its mark.
func (s *Server) tuneAccepted(conn net.Conn) {
	tc, ok := conn.(*net.TCPConn)
	if !ok {
		return
	}
	if ka := s.cfg.Lookup("tcp-keepalive").Int(); ka > 0 {
		tc.SetKeepAliveConfig(net.KeepAliveConfig{Enable: true, Idle: time.Duration(ka) * time.Second,
			Interval: time.Duration(max(ka/3, 1)) * time.Second, Count: 3})
	} else {
		tc.SetKeepAlive(false)
	}
	if s.cfg.Lookup("socket-mark-id").Int() != 0 {
		if rc, err := tc.SyscallConn(); err == nil {
			rc.Control(s.markSocket)
		}
	}
}

// markSocket sets socket-mark-id on socket fd when it is not 0; failing
// to (it needs CAP_NET_ADMIN) is logged, as Redis logs it.
func (s *Server) markSocket(fd uintptr) {
	if id := s.cfg.Lookup("socket-mark-id").Int(); id != 0 {
		if err := setMark(fd, int(id)); err != nil {
			s.warnf("Failed to set socket mark id: %v", err)
		}
	}
}

// dialer returns the dialer of the connections the server opens: from
// bind-source-addr, marked with socket-mark-id.
func (s *Server) dialer(timeout time.Duration) *net.Dialer {
	d := &net.Dialer{Timeout: timeout, Control: func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(s.markSocket)
	}}
	if addr := s.cfg.Lookup("bind-source-addr").String(); addr != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(addr)}
	}
	return d
}

// setNoDelay sets or clears TCP_NODELAY on socket fd.
func setNoDelay(fd int, on bool) error {
	v := 0
	if on {
		v = 1
	}
	return syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY, v)
}
