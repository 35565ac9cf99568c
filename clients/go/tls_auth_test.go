package hotkv

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// testTLSConfig returns the TLS configuration the README shows: the test
// CA as the only root, and the client certificate when withClientCert.
func testTLSConfig(t *testing.T, withClientCert bool) *tls.Config {
	t.Helper()
	caPEM, err := os.ReadFile(filepath.Join(certDir, "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPEM) {
		t.Fatal("no certificate in ca.crt")
	}
	cfg := &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
	if withClientCert {
		cert, err := tls.LoadX509KeyPair(filepath.Join(certDir, "client.crt"), filepath.Join(certDir, "client.key"))
		if err != nil {
			t.Fatal(err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg
}

func pingSetGet(t *testing.T, c *Client, key string) {
	t.Helper()
	ctx := context.Background()
	if v, err := c.Ping(ctx).Result(); err != nil || v != "PONG" {
		t.Fatalf("PING = %q, %v; want PONG", v, err)
	}
	if err := c.Set(ctx, key, "value-"+key, 0).Err(); err != nil {
		t.Fatalf("SET: %v", err)
	}
	if v, err := c.Get(ctx, key).Result(); err != nil || v != "value-"+key {
		t.Fatalf("GET = %q, %v; want %q", v, err, "value-"+key)
	}
}

// TestTLSClientCert connects to the TLS port with the test CA and the client
// certificate (tls-auth-clients yes) and round-trips PING, SET and GET; the
// value is also visible over the plain port.
func TestTLSClientCert(t *testing.T) {
	c := NewClient(&redis.Options{Addr: tlsAddr, TLSConfig: testTLSConfig(t, true)})
	defer c.Close()
	pingSetGet(t, c, "tls:go")

	plain := newTestClient(t)
	if v, err := plain.Get(context.Background(), "tls:go").Result(); err != nil || v != "value-tls:go" {
		t.Fatalf("GET over the plain port = %q, %v", v, err)
	}
}

// TestTLSURL uses a hotkvs:// URL, then adds the CA and client certificate
// to the TLS configuration ParseOptions made.
func TestTLSURL(t *testing.T) {
	opts, err := ParseOptions("hotkvs://" + tlsAddr)
	if err != nil {
		t.Fatal(err)
	}
	if opts.TLSConfig == nil {
		t.Fatal("hotkvs:// gave no TLSConfig")
	}
	cfg := testTLSConfig(t, true)
	opts.TLSConfig.RootCAs = cfg.RootCAs
	opts.TLSConfig.Certificates = cfg.Certificates
	c := NewClient(opts)
	defer c.Close()
	pingSetGet(t, c, "tls:go:url")
}

// TestTLSWithoutClientCertFails: with tls-auth-clients yes, a client that
// trusts the CA but presents no certificate cannot run a command.
func TestTLSWithoutClientCertFails(t *testing.T) {
	c := NewClient(&redis.Options{Addr: tlsAddr, TLSConfig: testTLSConfig(t, false), MaxRetries: -1})
	defer c.Close()
	err := c.Ping(context.Background()).Err()
	// TLS 1.3: "remote error: tls: certificate required"; 1.2: "bad certificate".
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("PING over TLS without a client certificate = %v; want a TLS certificate error", err)
	}
}

// TestTLSUntrustedServerFails: a client that does not trust the test CA
// refuses the server's certificate.
func TestTLSUntrustedServerFails(t *testing.T) {
	cfg := testTLSConfig(t, true)
	cfg.RootCAs = x509.NewCertPool()
	c := NewClient(&redis.Options{Addr: tlsAddr, TLSConfig: cfg, MaxRetries: -1})
	defer c.Close()
	err := c.Ping(context.Background()).Err()
	var unknown x509.UnknownAuthorityError
	if err == nil || !errors.As(err, &unknown) {
		t.Fatalf("PING with an empty root pool = %v; want x509.UnknownAuthorityError", err)
	}
}

// TestPassword runs a server with --requirepass s3cret: a client without the
// password gets NOAUTH, a wrong password is refused, and the password alone,
// the user "default" with it, and a hotkv:// URL carrying them all work.
func TestPassword(t *testing.T) {
	addr, stop, err := startServer("--requirepass", "s3cret")
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	ctx := context.Background()

	noPass := NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer noPass.Close()
	if err := noPass.Set(ctx, "auth:go", "x", 0).Err(); err == nil || !strings.HasPrefix(err.Error(), "NOAUTH") {
		t.Fatalf("SET without a password = %v; want a NOAUTH error", err)
	}

	wrong := NewClient(&redis.Options{Addr: addr, Password: "wrong", MaxRetries: -1})
	defer wrong.Close()
	if err := wrong.Ping(ctx).Err(); err == nil || !strings.Contains(err.Error(), "WRONGPASS") {
		t.Fatalf("PING with a wrong password = %v; want a WRONGPASS error", err)
	}

	withPass := NewClient(&redis.Options{Addr: addr, Password: "s3cret"})
	defer withPass.Close()
	pingSetGet(t, withPass, "auth:go:password")

	withUser := NewClient(&redis.Options{Addr: addr, Username: "default", Password: "s3cret"})
	defer withUser.Close()
	pingSetGet(t, withUser, "auth:go:user")

	fromURL, err := ParseURL("hotkv://default:s3cret@" + addr)
	if err != nil {
		t.Fatal(err)
	}
	defer fromURL.Close()
	pingSetGet(t, fromURL, "auth:go:url")
}
