package server

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"time"

	"github.com/hotkv/hotkv/config"
	"github.com/hotkv/hotkv/tlsconf"
)

// TLS: the tls-* directives build the configurations (package tlsconf)
// when TLS is in use — tls-port, tls-replication or tls-cluster set, as
// in Redis — and again on every CONFIG SET of one of them, so that new
// certificate files take effect without a restart (connections already
// open keep theirs). Accepted TLS connections finish their handshake on a
// goroutine of their own and are then served by the event loops like any
// other (tls_linux.go).

// tlsHandshakeTimeout bounds an accepted connection's handshake: a client
// that connects and never finishes one cannot hold the goroutine forever.
const tlsHandshakeTimeout = 30 * time.Second

// Errors of CONFIG SET tls-* (Redis's applyTlsCfg, applyTLSPort).
var errTLSUpdate = errors.New("Unable to update TLS configuration. Check server logs.")

// tlsParams are the directives the configurations are built from.
var tlsParams = []string{
	"tls-cert-file", "tls-key-file", "tls-key-file-pass", "tls-client-cert-file",
	"tls-client-key-file", "tls-client-key-file-pass", "tls-dh-params-file",
	"tls-ca-cert-file", "tls-ca-cert-dir", "tls-protocols", "tls-ciphers",
	"tls-ciphersuites", "tls-session-caching", "tls-session-cache-size",
	"tls-session-cache-timeout", "tls-prefer-server-ciphers", "tls-replication",
	"tls-cluster",
}

// announcedPort is the port the banner and INFO's tcp_port show: port,
// or tls-port when there is no plain one (as Redis).
func (s *Server) announcedPort() int64 {
	if p := s.cfg.Lookup("port").Int(); p != 0 {
		return p
	}
	return s.cfg.Lookup("tls-port").Int()
}

// tlsWanted reports whether TLS is in use: Redis configures it then only.
func (s *Server) tlsWanted() bool {
	return s.cfg.Lookup("tls-port").Int() != 0 || s.cfg.Lookup("tls-replication").Bool() ||
		s.cfg.Lookup("tls-cluster").Bool()
}

// tlsConfigs returns the configurations in use, nil before TLS is.
func (s *Server) tlsConfigs() *tlsconf.Configs { return s.tlsCfgs.Load() }

// ConfigureTLS builds the TLS configurations when the configuration asks
// for TLS (at startup: the caller exits on failure, as Redis does); the
// reason of a failure is logged.
func (s *Server) ConfigureTLS() error {
	if !s.tlsWanted() {
		return nil
	}
	return s.configureTLS()
}

// configureTLS builds the configurations from the tls-* parameters and
// makes them the ones in use; on failure it logs why, keeps the ones in
// use, and returns errTLSUpdate.
func (s *Server) configureTLS() error {
	c := s.cfg
	str := func(name string) string { return c.Lookup(name).String() }
	cfgs, err := tlsconf.Build(tlsconf.Options{
		CertFile: str("tls-cert-file"), KeyFile: str("tls-key-file"), KeyFilePass: str("tls-key-file-pass"),
		ClientCertFile: str("tls-client-cert-file"), ClientKeyFile: str("tls-client-key-file"),
		ClientKeyFilePass: str("tls-client-key-file-pass"),
		CAFile:            str("tls-ca-cert-file"), CADir: str("tls-ca-cert-dir"),
		DHParamsFile: str("tls-dh-params-file"),
		Protocols:    str("tls-protocols"), Ciphers: str("tls-ciphers"), Ciphersuites: str("tls-ciphersuites"),
		SessionCaching:      c.Lookup("tls-session-caching").Bool(),
		SessionCacheSize:    int(c.Lookup("tls-session-cache-size").Int()),
		SessionCacheTimeout: time.Duration(c.Lookup("tls-session-cache-timeout").Int()) * time.Second,
		NeedCA: c.Lookup("tls-auth-clients").Enum() != "no" || c.Lookup("tls-replication").Bool() ||
			c.Lookup("tls-cluster").Bool(),
	})
	if err != nil {
		s.warnf("%v", err)
		return errTLSUpdate
	}
	s.tlsCfgs.Store(cfgs)
	return nil
}

// tlsServerConfig returns the configuration of a connection accepted now:
// tls-auth-clients is read per connection, as Redis does (its enumeration
// values are tlsconf's AuthModes).
func (s *Server) tlsServerConfig() *tls.Config {
	return s.tlsConfigs().Server(tlsconf.AuthMode(s.cfg.Lookup("tls-auth-clients").Int()))
}

// tlsHooks rebuilds the configurations when a tls-* parameter changes
// while TLS is in use, refusing the change (CONFIG SET rolls it back) when
// they cannot be built.
func (s *Server) tlsHooks(cfg *config.Config) {
	for _, name := range tlsParams {
		cfg.OnChange(name, func(*config.Param) error {
			if !s.tlsWanted() {
				return nil
			}
			return s.configureTLS()
		})
	}
}

// dialMaster connects a replica to its master (from bind-source-addr),
// over TLS with tls-replication.
func (s *Server) dialMaster(addr string, timeout time.Duration) (net.Conn, error) {
	conn, err := s.dialer(timeout).Dial("tcp", addr)
	if err != nil || !s.cfg.Lookup("tls-replication").Bool() {
		return conn, err
	}
	cfg := s.peerTLS(true)
	if cfg == nil {
		conn.Close()
		return nil, errors.New("TLS is not configured")
	}
	return clientHandshake(conn, cfg, timeout)
}

// peerTLS returns the configuration of a connection the server opens
// (replication, MIGRATE) when on says it speaks TLS, else nil: its client
// certificate is tls-client-cert-file's, else tls-cert-file's, and the
// peer's chain is verified against the CA.
func (s *Server) peerTLS(on bool) *tls.Config {
	if cfgs := s.tlsConfigs(); on && cfgs != nil {
		return cfgs.Client()
	}
	return nil
}

// clientHandshake runs the client side of a TLS handshake on conn within
// timeout; conn is closed when it fails.
func clientHandshake(conn net.Conn, cfg *tls.Config, timeout time.Duration) (net.Conn, error) {
	tc := tls.Client(conn, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := tc.HandshakeContext(ctx); err != nil {
		conn.Close()
		return nil, err
	}
	return tc, nil
}
