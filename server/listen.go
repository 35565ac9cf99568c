package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hotkv/hotkv/config"
)

// listenState is the server's listeners: the TCP ones the bind and port
// directives name and the TLS ones of bind and tls-port, opened by Listen
// and replaced at run time by CONFIG SET port, tls-port or bind (rebind),
// as Redis's changeListener does, and the unix socket unixsocket names
// (immutable).
type listenState struct {
	mu      sync.Mutex
	tcp     portListeners
	tls     portListeners
	unix    net.Listener          // nil without unixsocket
	serving bool                  // Serve runs: a new listener gets an accept loop
	retired map[net.Listener]bool // closed by a rebind: its loop ends quietly
	err     error                 // the first error an accept loop ended with
	wg      sync.WaitGroup        // the accept loops
}

// portListeners is the listeners of one port on every bind address.
type portListeners struct {
	lns  []net.Listener
	bind string // what lns listen on
	port int64
	tls  bool // its connections speak TLS
}

// ListenError is Listen's failure to listen on a TCP or TLS port.
type ListenError struct {
	Port int64
	TLS  bool
	Err  error
}

func (e *ListenError) Error() string { return e.Err.Error() }
func (e *ListenError) Unwrap() error { return e.Err }

// Errors of CONFIG SET port and bind (Redis's updatePort, updateBind).
var (
	errListenPort = errors.New("Unable to listen on this port")
	errBindAddrs  = errors.New("Failed to bind to specified addresses.")
)

// Listen opens the listening sockets named by the bind, port and tls-port
// directives, and the unix socket named by unixsocket (a file left there
// is replaced; unixsocketperm, when not 0, is its mode), after building
// the TLS configurations when TLS is in use (ConfigureTLS). A bind address
// prefixed with '-' is optional: failing to bind it is not an error, as
// in Redis. Port 0 opens no TCP listener, tls-port 0 no TLS one, and an
// empty bind neither; something must listen (Redis's "Configured to not
// listen anywhere").
func (s *Server) Listen() error {
	port := s.cfg.Lookup("port").Int()
	tlsPort := s.cfg.Lookup("tls-port").Int()
	path := s.cfg.Lookup("unixsocket").String()
	bindNone := len(strings.Fields(s.cfg.Lookup("bind").String())) == 0
	if (port == 0 && tlsPort == 0 || bindNone) && path == "" {
		return errNoListener
	}
	if s.tlsWanted() && s.tlsConfigs() == nil {
		if err := s.configureTLS(); err != nil {
			return err
		}
	}
	bind := s.cfg.Lookup("bind").String()
	var lns, tlsLns []net.Listener
	closeAll := func() {
		for _, ln := range append(lns, tlsLns...) {
			ln.Close()
		}
	}
	if port != 0 {
		var err error
		if lns, err = s.openListeners(bind, port); err != nil {
			return &ListenError{Port: port, Err: err}
		}
	}
	if tlsPort != 0 {
		var err error
		if tlsLns, err = s.openListeners(bind, tlsPort); err != nil {
			closeAll()
			return &ListenError{Port: tlsPort, TLS: true, Err: err}
		}
	}
	var unix net.Listener
	if path != "" {
		var err error
		if unix, err = openUnixListener(path, s.cfg.Lookup("unixsocketperm").Int()); err != nil {
			closeAll()
			return fmt.Errorf(errUnixSocket, err)
		}
	}
	s.listen.mu.Lock()
	s.listen.tcp = portListeners{lns: lns, bind: bind, port: port}
	s.listen.tls = portListeners{lns: tlsLns, bind: bind, port: tlsPort, tls: true}
	s.listen.unix = unix
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

// errNoListener is Listen's refusal of a configuration that listens
// nowhere.
var errNoListener = errors.New("Configured to not listen anywhere, exiting.")

// openListeners opens a listener on port for each address of bind, all
// or none (an empty bind: none, as Redis's listenToPort), with
// tcp-backlog's backlog and socket-mark-id's mark.
func (s *Server) openListeners(bind string, port int64) ([]net.Listener, error) {
	var lns []net.Listener
	for _, addr := range strings.Fields(bind) {
		optional := strings.HasPrefix(addr, "-")
		addr = strings.TrimPrefix(addr, "-")
		if addr == "*" {
			addr = ""
		}
		ln, err := s.listenTCP(net.JoinHostPort(addr, strconv.FormatInt(port, 10)))
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
	if len(lns) == 0 && bind != "" {
		return nil, errors.New("could not bind any address")
	}
	return lns, nil
}

// listenTCP listens on addr with tcp-backlog's backlog (Go listens with
// the system's maximum, somaxconn: listen(2) again sets Redis's, which
// the kernel caps at somaxconn as well) and socket-mark-id's mark.
func (s *Server) listenTCP(addr string) (net.Listener, error) {
	lc := net.ListenConfig{Control: func(_, _ string, rc syscall.RawConn) error { return rc.Control(s.markSocket) }}
	ln, err := lc.Listen(context.Background(), "tcp", addr)
	if err != nil {
		return nil, err
	}
	if rc, err := ln.(*net.TCPListener).SyscallConn(); err == nil {
		backlog := int(s.cfg.Lookup("tcp-backlog").Int())
		rc.Control(func(fd uintptr) { syscall.Listen(int(fd), backlog) })
	}
	return ln, nil
}

// rebind replaces the TCP and TLS listeners whose bind or port changed
// (a CONFIG SET hook) with ones for the current bind, port and tls-port,
// as Redis's changeListener and changeBindAddr: the old ones close, the
// new ones open; when one of them cannot, the old ones are opened again
// and failure is returned (CONFIG SET then rolls the parameters back).
// Port 0 closes the port's listeners, as in Redis. Before Listen nothing
// is open and nothing is done.
func (s *Server) rebind(failure error) error {
	ls := &s.listen
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.tcp.lns == nil && ls.tls.lns == nil && !ls.serving {
		return nil
	}
	bind := s.cfg.Lookup("bind").String()
	sets := []*portListeners{&ls.tcp, &ls.tls}
	want := []int64{s.cfg.Lookup("port").Int(), s.cfg.Lookup("tls-port").Int()}
	var changed []int
	for i, set := range sets {
		if set.bind != bind || set.port != want[i] {
			changed = append(changed, i)
		}
	}
	if len(changed) == 0 {
		return nil // a rollback to what is open
	}
	for _, i := range changed {
		s.retireListeners(sets[i])
	}
	opened := make([][]net.Listener, len(sets))
	var err error
	var errPort int64
	for _, i := range changed {
		if want[i] == 0 {
			continue
		}
		if opened[i], err = s.openListeners(bind, want[i]); err != nil {
			errPort = want[i]
			break
		}
	}
	if err != nil {
		s.warnf("Failed to listen on port %d: %v", errPort, err)
		for _, i := range changed {
			for _, ln := range opened[i] {
				ln.Close()
			}
			set := sets[i]
			var lns []net.Listener
			if set.port != 0 {
				if lns, err = s.openListeners(set.bind, set.port); err != nil {
					s.warnf("Failed to listen again on port %d: %v", set.port, err)
				}
			}
			s.acceptOn(set, lns)
		}
		return failure
	}
	for _, i := range changed {
		sets[i].bind, sets[i].port = bind, want[i]
		s.acceptOn(sets[i], opened[i])
	}
	return nil
}

// retireListeners closes set's listeners; their accept loops end quietly.
// The caller holds listen.mu.
func (s *Server) retireListeners(set *portListeners) {
	ls := &s.listen
	for _, ln := range set.lns {
		if ls.retired == nil {
			ls.retired = make(map[net.Listener]bool)
		}
		ls.retired[ln] = true
		ln.Close()
	}
	set.lns = nil
}

// acceptOn makes lns set's listeners, accepting on them once Serve runs.
// The caller holds listen.mu.
func (s *Server) acceptOn(set *portListeners, lns []net.Listener) {
	ls := &s.listen
	set.lns = lns
	if ls.serving {
		for _, ln := range lns {
			s.startAccepting(ln, set.tls)
		}
	}
}

// startAccepting starts ln's accept loop; tls says its connections speak
// TLS. The caller holds listen.mu.
func (s *Server) startAccepting(ln net.Listener, tls bool) {
	ls := &s.listen
	ls.serving = true
	ls.wg.Add(1)
	go func() {
		defer ls.wg.Done()
		err := s.acceptLoop(ln, tls)
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
	for _, ln := range append(ls.tcp.lns, ls.tls.lns...) {
		ls.retired[ln] = true
		ln.Close()
	}
	if ls.unix != nil {
		ls.retired[ls.unix] = true
		ls.unix.Close()
	}
}

// Addr returns the address of the first TCP listener (after Listen), or
// of the first TLS listener, or of the unix socket when there is neither;
// nil when nothing listens.
func (s *Server) Addr() net.Addr {
	s.listen.mu.Lock()
	defer s.listen.mu.Unlock()
	switch {
	case len(s.listen.tcp.lns) > 0:
		return s.listen.tcp.lns[0].Addr()
	case len(s.listen.tls.lns) > 0:
		return s.listen.tls.lns[0].Addr()
	case s.listen.unix != nil:
		return s.listen.unix.Addr()
	}
	return nil
}

// TLSAddr returns the address of the first TLS listener, nil when there
// is none.
func (s *Server) TLSAddr() net.Addr {
	s.listen.mu.Lock()
	defer s.listen.mu.Unlock()
	if len(s.listen.tls.lns) == 0 {
		return nil
	}
	return s.listen.tls.lns[0].Addr()
}

// acceptLoop accepts ln's connections until it is closed; tls says they
// speak TLS.
func (s *Server) acceptLoop(ln net.Listener, tls bool) error {
	if gate := s.load.gate; gate != nil {
		select {
		case <-gate: // the load at start-up lets clients in
		case <-s.done:
			return nil
		}
	}
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
		// TLS connections count from their accept, handshake included,
		// as Redis creates their client at once.
		full := int64(len(s.mu.clients))+s.handshakes.Load() >= maxClients
		s.mu.Unlock()
		if full {
			s.stats.rejectedConns.Add(1)
			if !tls { // a TLS client could not read it before its handshake (Redis's note)
				conn.Write([]byte("-ERR max number of clients reached\r\n"))
			}
			conn.Close()
			continue
		}
		s.stats.connections.Add(1)
		s.tuneAccepted(conn)
		switch {
		case tls:
			s.serveTLS(conn) // protected mode is checked after the handshake
		case s.protectedRefuses(conn.RemoteAddr()):
			s.deny(conn)
		default:
			s.serveAccepted(conn)
		}
	}
}

// listenHooks makes CONFIG SET port and bind take effect: the listeners
// are reopened, or the change is refused with Redis's error.
func (s *Server) listenHooks(cfg *config.Config) {
	cfg.OnChange("port", func(*config.Param) error { return s.rebind(errListenPort) })
	cfg.OnChange("bind", func(*config.Param) error { return s.rebind(errBindAddrs) })
	cfg.OnChange("tls-port", func(p *config.Param) error {
		if p.Int() != 0 && s.tlsConfigs() == nil {
			if err := s.configureTLS(); err != nil {
				return err
			}
		}
		return s.rebind(errListenPort)
	})
}
