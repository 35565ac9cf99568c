package server

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hotkv/hotkv/config"
)

// listenState is the server's listeners: the TCP ones the bind and port
// directives name, opened by Listen and replaced at run time by CONFIG
// SET port or bind (rebind), as Redis's changeListener does, and the unix
// socket unixsocket names (immutable).
type listenState struct {
	mu      sync.Mutex
	lns     []net.Listener
	unix    net.Listener // nil without unixsocket
	bind    string       // what lns listen on
	port    int64
	serving bool                  // Serve runs: a new listener gets an accept loop
	retired map[net.Listener]bool // closed by a rebind: its loop ends quietly
	err     error                 // the first error an accept loop ended with
	wg      sync.WaitGroup        // the accept loops
}

// Errors of CONFIG SET port and bind (Redis's updatePort, updateBind).
var (
	errListenPort = errors.New("Unable to listen on this port")
	errBindAddrs  = errors.New("Failed to bind to specified addresses.")
)

// Listen opens the listening sockets named by the bind and port
// directives, and the unix socket named by unixsocket (a file left there
// is replaced; unixsocketperm, when not 0, is its mode). A bind address
// prefixed with '-' is optional: failing to bind it is not an error, as
// in Redis. Port 0 opens no TCP listener, which needs a unix socket.
func (s *Server) Listen() error {
	port := s.cfg.Lookup("port").Int()
	path := s.cfg.Lookup("unixsocket").String()
	if port == 0 && path == "" {
		return errors.New("port 0: no TCP listener configured")
	}
	bind := s.cfg.Lookup("bind").String()
	var lns []net.Listener
	if port != 0 {
		var err error
		if lns, err = openListeners(bind, port); err != nil {
			return err
		}
	}
	var unix net.Listener
	if path != "" {
		var err error
		if unix, err = openUnixListener(path, s.cfg.Lookup("unixsocketperm").Int()); err != nil {
			for _, ln := range lns {
				ln.Close()
			}
			return fmt.Errorf(errUnixSocket, err)
		}
	}
	s.listen.mu.Lock()
	s.listen.lns, s.listen.bind, s.listen.port, s.listen.unix = lns, bind, port, unix
	s.listen.mu.Unlock()
	return nil
}

// openUnixListener listens on the unix socket at path, removing a file
// left there first (as Redis's anetUnixServer), with mode perm when not 0.
func openUnixListener(path string, perm int64) (net.Listener, error) {
	os.Remove(path)
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	if perm != 0 {
		if err := os.Chmod(path, os.FileMode(perm)); err != nil {
			ln.Close()
			return nil, err
		}
	}
	return ln, nil
}

// openListeners opens a listener on port for each address of bind, all
// or none.
func openListeners(bind string, port int64) ([]net.Listener, error) {
	var lns []net.Listener
	for _, addr := range strings.Fields(bind) {
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
			for _, l := range lns {
				l.Close()
			}
			return nil, err
		}
		lns = append(lns, ln)
	}
	if len(lns) == 0 {
		return nil, errors.New("could not bind any address")
	}
	return lns, nil
}

// rebind replaces the listeners with ones for the current bind and port
// (a CONFIG SET hook), as Redis's changeListener: the old ones close, the
// new ones open; when one of them cannot, the old ones are opened again
// and failure is returned (CONFIG SET then rolls the parameters back).
// Port 0 closes every TCP listener, as in Redis. Before Listen nothing is
// open and nothing is done.
func (s *Server) rebind(failure error) error {
	ls := &s.listen
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.lns == nil && !ls.serving {
		return nil
	}
	bind, port := s.cfg.Lookup("bind").String(), s.cfg.Lookup("port").Int()
	if bind == ls.bind && port == ls.port {
		return nil // a rollback to what is open
	}
	s.retireListeners()
	lns, err := openListeners(bind, port)
	if port == 0 {
		lns, err = nil, nil
	}
	if err != nil {
		s.warnf("Failed to listen on port %d: %v", port, err)
		lns = nil
		if ls.port != 0 {
			if lns, err = openListeners(ls.bind, ls.port); err != nil {
				s.warnf("Failed to listen again on port %d: %v", ls.port, err)
			}
		}
		s.acceptOn(lns)
		return failure
	}
	ls.bind, ls.port = bind, port
	s.acceptOn(lns)
	return nil
}

// retireListeners closes the listeners; their accept loops end quietly.
// The caller holds listen.mu.
func (s *Server) retireListeners() {
	ls := &s.listen
	for _, ln := range ls.lns {
		if ls.retired == nil {
			ls.retired = make(map[net.Listener]bool)
		}
		ls.retired[ln] = true
		ln.Close()
	}
	ls.lns = nil
}

// acceptOn makes lns the listeners, accepting on them once Serve runs.
// The caller holds listen.mu.
func (s *Server) acceptOn(lns []net.Listener) {
	ls := &s.listen
	ls.lns = lns
	if ls.serving {
		for _, ln := range lns {
			s.startAccepting(ln)
		}
	}
}

// startAccepting starts ln's accept loop. The caller holds listen.mu.
func (s *Server) startAccepting(ln net.Listener) {
	ls := &s.listen
	ls.serving = true
	ls.wg.Add(1)
	go func() {
		defer ls.wg.Done()
		err := s.acceptLoop(ln)
		ls.mu.Lock()
		if err != nil && !ls.retired[ln] && !s.closing.Load() && ls.err == nil {
			ls.err = err
		}
		delete(ls.retired, ln)
		ls.mu.Unlock()
	}()
}

// closeListeners closes every listener (SHUTDOWN, Shutdown): their accept
// loops end without an error.
func (s *Server) closeListeners() {
	ls := &s.listen
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.retired == nil {
		ls.retired = make(map[net.Listener]bool)
	}
	for _, ln := range ls.lns {
		ls.retired[ln] = true
		ln.Close()
	}
	if ls.unix != nil {
		ls.retired[ls.unix] = true
		ls.unix.Close()
	}
}

// Addr returns the address of the first TCP listener (after Listen), or
// of the unix socket when there is none.
func (s *Server) Addr() net.Addr {
	s.listen.mu.Lock()
	defer s.listen.mu.Unlock()
	if len(s.listen.lns) == 0 {
		return s.listen.unix.Addr()
	}
	return s.listen.lns[0].Addr()
}

// acceptLoop accepts ln's connections until it is closed.
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
		if s.protectedRefuses(conn) {
			s.stats.rejectedConns.Add(1)
			conn.Write([]byte("-" + errProtectedMode + "\r\n"))
			conn.Close()
			continue
		}
		s.serveAccepted(conn)
	}
}

// listenHooks makes CONFIG SET port and bind take effect: the listeners
// are reopened, or the change is refused with Redis's error.
func (s *Server) listenHooks(cfg *config.Config) {
	cfg.OnChange("port", func(*config.Param) error { return s.rebind(errListenPort) })
	cfg.OnChange("bind", func(*config.Param) error { return s.rebind(errBindAddrs) })
}
