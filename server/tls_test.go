package server

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
	"github.com/hotkv/hotkv/internal/testcerts"
)

// tlsSetup writes test certificates and returns them with the server
// directives that use them (client certificates required, Redis's
// default) and a client configuration with a client certificate.
func tlsSetup(t *testing.T) (testcerts.Files, []string, *tls.Config) {
	t.Helper()
	f, err := testcerts.Write(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"--tls-cert-file", f.ServerCert, "--tls-key-file", f.ServerKey,
		"--tls-ca-cert-file", f.CACert}
	return f, args, clientTLS(t, f, true)
}

// clientTLS returns a client configuration trusting f's CA, with f's
// client certificate when withCert.
func clientTLS(t *testing.T, f testcerts.Files, withCert bool) *tls.Config {
	t.Helper()
	ca, err := os.ReadFile(f.CACert)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	cfg := &tls.Config{RootCAs: pool, ServerName: "localhost"}
	if withCert {
		cert, err := tls.LoadX509KeyPair(f.ClientCert, f.ClientKey)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg
}

// startTLSServer starts a HotKV with a TLS port beside its plain one and
// returns it with the TLS address.
func startTLSServer(t *testing.T, args ...string) (*Server, string) {
	t.Helper()
	s, _ := startServer(t, append([]string{"--tls-port", strconv.Itoa(difftest.FreePort(t))}, args...)...)
	return s, s.TLSAddr().String()
}

// TestTLSMatchesRedis runs the same commands over TLS on HotKV and on
// redis-server: pipelines, values larger than a TLS record, pushes written
// by other clients' commands (pub/sub, a blocked pop served), MULTI.
func TestTLSMatchesRedis(t *testing.T) {
	_, args, cl := tlsSetup(t)
	redisTLS := difftest.FreePort(t)
	difftest.StartRedis(t, append([]string{"--tls-port", strconv.Itoa(redisTLS)}, args...)...)
	_, addr := startTLSServer(t, args...)
	redisAddr := "127.0.0.1:" + strconv.Itoa(redisTLS)
	dial := func() *difftest.Pair {
		return difftest.PairOf(t, difftest.DialTLS(t, redisAddr, cl), difftest.DialTLS(t, addr, cl))
	}
	p := dial()
	p.Do("FLUSHALL")
	p.Do("SET k v")
	p.Do("GET k")
	big := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB: many records
	p.DoArgs("SET", "big", big)
	p.Do("STRLEN big")
	if got := p.HotKV.Do("GET", "big"); got != "$"+strconv.Itoa(len(big))+"\r\n"+big+"\r\n" {
		t.Errorf("GET big: %d bytes", len(got))
	}
	p.Redis.Do("GET", "big")
	// A pipeline of many commands in one write.
	var pipe []byte
	for i := range 500 {
		pipe = append(pipe, difftest.Encode("RPUSH", "l", strconv.Itoa(i))...)
	}
	pipe = append(pipe, difftest.Encode("LRANGE", "l", "0", "-1")...)
	p.Redis.Send(pipe)
	p.HotKV.Send(pipe)
	for range 501 {
		if a, b := p.Redis.Read(), p.HotKV.Read(); a != b {
			t.Fatalf("pipeline: redis %q hotkv %q", a, b)
		}
	}
	p.Do("MULTI")
	p.Do("INCR n")
	p.Do("INCRBY n 5")
	p.Do("EXEC")

	// Pushes written from another client's command.
	sub := dial()
	sub.Do("SUBSCRIBE ch")
	p.Do("PUBLISH ch hello")
	if a, b := sub.Redis.Read(), sub.HotKV.Read(); a != b {
		t.Errorf("message: redis %q hotkv %q", a, b)
	}
	blocked := dial()
	blocked.Redis.Send(difftest.Encode("BLPOP", "q", "5"))
	blocked.HotKV.Send(difftest.Encode("BLPOP", "q", "5"))
	waitBlocked(t, p.Redis, 1)
	waitBlocked(t, p.HotKV, 1)
	p.Do("LPUSH q x")
	if a, b := blocked.Redis.Read(), blocked.HotKV.Read(); a != b {
		t.Errorf("BLPOP: redis %q hotkv %q", a, b)
	}
	p.Do("CONFIG GET tls-auth-clients")
	p.Do("CONFIG SET tls-protocols TLSv1.7")
	p.Do("CONFIG SET tls-cert-file /nonexistent")
	p.Do("CONFIG GET tls-cert-file")
}

// TestTLSAuthClients: tls-auth-clients yes refuses a client without a
// certificate; optional and no accept it; the mode of each connection is
// the one when it was accepted.
func TestTLSAuthClients(t *testing.T) {
	f, args, withCert := tlsSetup(t)
	_, addr := startTLSServer(t, args...)
	noCert := clientTLS(t, f, false)
	try := func(cfg *tls.Config) error {
		c, err := tls.Dial("tcp", addr, cfg)
		if err != nil {
			return err
		}
		defer c.Close()
		fmt.Fprint(c, "PING\r\n")
		buf := make([]byte, 7)
		if _, err := c.Read(buf); err != nil {
			return err
		}
		if string(buf) != "+PONG\r\n" {
			return fmt.Errorf("PING: %q", buf)
		}
		return nil
	}
	if err := try(noCert); err == nil {
		t.Error("tls-auth-clients yes: a client without a certificate got in")
	}
	if err := try(withCert); err != nil {
		t.Errorf("with a certificate: %v", err)
	}
	admin := difftest.DialTLS(t, addr, withCert)
	for _, mode := range []string{"optional", "no"} {
		if r := admin.Do("CONFIG", "SET", "tls-auth-clients", mode); r != "+OK\r\n" {
			t.Fatal(r)
		}
		if err := try(noCert); err != nil {
			t.Errorf("tls-auth-clients %s: %v", mode, err)
		}
	}
	// A client that trusts another CA refuses the server.
	other := clientTLS(t, f, true)
	ca, _ := os.ReadFile(f.OtherCACert)
	other.RootCAs = x509.NewCertPool()
	other.RootCAs.AppendCertsFromPEM(ca)
	if err := try(other); err == nil {
		t.Error("a client trusting another CA accepted the server")
	}
}

// TestTLSConfigSet: CONFIG SET of the certificate files reloads them for
// new connections; a change that cannot be carried out is refused with
// Redis's error and the configuration in use is kept; CONFIG SET tls-port
// opens and closes the TLS listener.
func TestTLSConfigSet(t *testing.T) {
	f, args, cl := tlsSetup(t)
	s, _ := startServer(t, args...)
	plain := difftest.Dial(t, s.Addr().String())
	if r := plain.Do("CONFIG", "SET", "tls-cert-file", f.Dir+"/missing"); r != "+OK\r\n" {
		t.Errorf("TLS not in use: a change is stored, as Redis: %q", r)
	}
	plain.Do("CONFIG", "SET", "tls-cert-file", f.ServerCert)
	port := difftest.FreePort(t)
	if r := plain.Do("CONFIG", "SET", "tls-port", strconv.Itoa(port)); r != "+OK\r\n" {
		t.Fatalf("CONFIG SET tls-port: %q", r)
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	c := difftest.DialTLS(t, addr, cl)
	if r := c.Do("PING"); r != "+PONG\r\n" {
		t.Fatal(r)
	}
	want := "-ERR CONFIG SET failed (possibly related to argument 'tls-cert-file') - Unable to update TLS configuration. Check server logs.\r\n"
	if r := c.Do("CONFIG", "SET", "tls-cert-file", f.Dir+"/missing"); r != want {
		t.Errorf("bad certificate: %q", r)
	}
	if r := c.Do("CONFIG", "GET", "tls-cert-file"); !strings.Contains(r, f.ServerCert) {
		t.Errorf("refused change kept: %q", r)
	}
	// Reload: the encrypted key pair, with its password.
	if r := c.Do("CONFIG", "SET", "tls-key-file-pass", f.EncPass, "tls-cert-file", f.EncCert, "tls-key-file", f.EncKey); r != "+OK\r\n" {
		t.Fatalf("reload: %q", r)
	}
	conn, err := tls.Dial("tcp", addr, cl)
	if err != nil {
		t.Fatal(err)
	}
	enc, _ := os.ReadFile(f.EncCert)
	if got := conn.ConnectionState().PeerCertificates[0]; !strings.Contains(string(enc), "CERTIFICATE") || got.PublicKeyAlgorithm != x509.RSA {
		t.Errorf("new connections still get the old certificate (%v)", got.PublicKeyAlgorithm)
	}
	conn.Close()
	if r := c.Do("PING"); r != "+PONG\r\n" {
		t.Errorf("a connection open before the reload: %q", r)
	}
	// A busy port is refused; port 0 closes the listener.
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	busyPort := strconv.Itoa(busy.Addr().(*net.TCPAddr).Port)
	if r := plain.Do("CONFIG", "SET", "tls-port", busyPort); !strings.Contains(r, "Unable to listen on this port") {
		t.Errorf("busy port: %q", r)
	}
	if r := plain.Do("CONFIG", "SET", "tls-port", "0"); r != "+OK\r\n" {
		t.Fatal(r)
	}
	if _, err := tls.Dial("tcp", addr, cl); err == nil {
		t.Error("tls-port 0 left the listener open")
	}
}

// TestTLSConcurrentIncr: many TLS clients incrementing the same and their
// own keys at once lose no update (run with -race).
func TestTLSConcurrentIncr(t *testing.T) {
	_, args, cl := tlsSetup(t)
	_, addr := startTLSServer(t, args...)
	const clients, each = 8, 200
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := difftest.DialTLS(t, addr, cl)
			var pipe []byte
			for range each {
				pipe = append(pipe, difftest.Encode("INCR", "shared")...)
				pipe = append(pipe, difftest.Encode("INCR", "own"+strconv.Itoa(i))...)
			}
			c.Send(pipe)
			for range 2 * each {
				if r := c.Read(); !strings.HasPrefix(r, ":") {
					t.Errorf("INCR: %q", r)
					return
				}
			}
		}()
	}
	wg.Wait()
	c := difftest.DialTLS(t, addr, cl)
	if r := c.Do("GET", "shared"); r != fmt.Sprintf("$4\r\n%d\r\n", clients*each) {
		t.Errorf("shared: %q", r)
	}
	for i := range clients {
		if r := c.Do("GET", "own"+strconv.Itoa(i)); r != "$3\r\n200\r\n" {
			t.Errorf("own%d: %q", i, r)
		}
	}
}

// TestTLSReplication: with tls-replication a replica follows its master
// over TLS (the master's TLS port), full synchronization then the stream.
func TestTLSReplication(t *testing.T) {
	f, args, cl := tlsSetup(t)
	args = append(args, "--repl-diskless-sync-delay", "0", "--tls-replication", "yes", "--tls-client-cert-file", f.ClientCert, "--tls-client-key-file", f.ClientKey)
	_, maddr := startTLSServer(t, args...)
	m := difftest.DialTLS(t, maddr, cl)
	m.Do("SET", "before", "1")
	_, mport, _ := net.SplitHostPort(maddr)
	_, raddr := startTLSServer(t, append(args, "--replicaof", "127.0.0.1", mport)...)
	r := difftest.DialTLS(t, raddr, cl)
	waitFor(t, func() bool { return strings.Contains(r.Do("INFO", "replication"), "master_link_status:up") })
	m.Do("SET", "after", "2")
	waitFor(t, func() bool { return r.Do("GET", "after") == "$1\r\n2\r\n" })
	if got := r.Do("GET", "before"); got != "$1\r\n1\r\n" {
		t.Errorf("before: %q", got)
	}
}

// TestTLSMigrate: with tls-cluster MIGRATE connects over TLS, as Redis.
func TestTLSMigrate(t *testing.T) {
	f, args, cl := tlsSetup(t)
	args = append(args, "--tls-cluster", "yes", "--tls-client-cert-file", f.ClientCert, "--tls-client-key-file", f.ClientKey)
	_, src := startTLSServer(t, args...)
	_, dst := startTLSServer(t, append(args, "--port", "0")...)
	c := difftest.DialTLS(t, src, cl)
	c.Do("SET", "k", "v")
	host, port, _ := net.SplitHostPort(dst)
	if r := c.Do("MIGRATE", host, port, "k", "0", "5000"); r != "+OK\r\n" {
		t.Fatalf("MIGRATE: %q", r)
	}
	if r := difftest.DialTLS(t, dst, cl).Do("GET", "k"); r != "$1\r\nv\r\n" {
		t.Errorf("GET on the target: %q", r)
	}
}

// TestTLSStalledHandshakes: clients that connect to the TLS port and never
// finish a handshake, or send plain RESP to it, neither hold up other
// clients nor the shutdown.
func TestTLSStalledHandshakes(t *testing.T) {
	_, args, cl := tlsSetup(t)
	s, addr := startTLSServer(t, args...)
	for range 20 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	plain, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	plain.Write([]byte("PING\r\n"))
	plain.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := plain.Read(make([]byte, 64)); err == nil {
		t.Errorf("plain RESP on the TLS port got %d bytes of answer", n)
	}
	if r := difftest.DialTLS(t, addr, cl).Do("PING"); r != "+PONG\r\n" {
		t.Errorf("PING beside stalled handshakes: %q", r)
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil || time.Since(start) > 3*time.Second {
		t.Errorf("shutdown with stalled handshakes: %v after %v", err, time.Since(start))
	}
}

// TestTLSReplicationWait: WAIT sees a TLS replica's acknowledgements.
func TestTLSReplicationWait(t *testing.T) {
	f, args, cl := tlsSetup(t)
	args = append(args, "--repl-diskless-sync-delay", "0", "--tls-replication", "yes", "--tls-client-cert-file", f.ClientCert, "--tls-client-key-file", f.ClientKey)
	_, maddr := startTLSServer(t, args...)
	m := difftest.DialTLS(t, maddr, cl)
	_, mport, _ := net.SplitHostPort(maddr)
	_, raddr := startTLSServer(t, append(args, "--replicaof", "127.0.0.1", mport)...)
	r := difftest.DialTLS(t, raddr, cl)
	waitFor(t, func() bool { return strings.Contains(r.Do("INFO", "replication"), "master_link_status:up") })
	for i := range 20 {
		m.Do("SET", "k"+strconv.Itoa(i), "v")
		if got := m.Do("WAIT", "1", "2000"); got != ":1\r\n" {
			t.Fatalf("WAIT after write %d: %q", i, got)
		}
	}
}

// TestTLSMaxClients: TLS connections count toward maxclients from their
// accept, handshake included (as Redis creates their client at once), and
// one past the limit is dropped.
func TestTLSMaxClients(t *testing.T) {
	_, args, cl := tlsSetup(t)
	s, addr := startTLSServer(t, append(args, "--maxclients", "3")...)
	plain := s.Addr().String()
	admin := difftest.Dial(t, plain) // 1 client
	for range 2 {                    // 2 handshakes under way
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	waitFor(t, func() bool { return s.handshakes.Load() == 2 })
	c, err := net.Dial("tcp", plain)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, _ := bufio.NewReader(c).ReadString('\n')
	if line != "-ERR max number of clients reached\r\n" {
		t.Errorf("a client past maxclients (2 TLS handshakes under way): %q", line)
	}
	if _, err := tls.Dial("tcp", addr, cl); err == nil {
		t.Error("a TLS client past maxclients got in")
	}
	if r := admin.Do("PING"); r != "+PONG\r\n" {
		t.Errorf("PING: %q", r)
	}
}
