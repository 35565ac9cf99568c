package tlsconf

import (
	"crypto/tls"
	"encoding/pem"
	"net"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/testcerts"
)

func certs(t *testing.T) testcerts.Files {
	t.Helper()
	f, err := testcerts.Write(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func opts(f testcerts.Files) Options {
	return Options{CertFile: f.ServerCert, KeyFile: f.ServerKey, CAFile: f.CACert, NeedCA: true,
		SessionCaching: true, SessionCacheSize: 20 * 1024, SessionCacheTimeout: 300 * time.Second}
}

// handshake connects a client with cfg to a server with srv over TCP
// loopback and returns the client's state or the first error. Both ends
// have a deadline, so a failed handshake cannot leave either blocked.
func handshake(t *testing.T, srv, cfg *tls.Config) (tls.ConnectionState, error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	deadline := time.Now().Add(10 * time.Second)
	done := make(chan error, 1)
	go func() {
		a, err := ln.Accept()
		if err != nil {
			done <- err
			return
		}
		defer a.Close()
		a.SetDeadline(deadline)
		s := tls.Server(a, srv)
		err = s.Handshake()
		if err == nil {
			// Echo a byte: the client reads the TLS 1.3 tickets
			// that precede it.
			if _, err = s.Read(make([]byte, 1)); err == nil {
				_, err = s.Write([]byte("y"))
			}
		}
		done <- err
	}()
	b, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	b.SetDeadline(deadline)
	c := tls.Client(b, cfg)
	err = c.Handshake()
	st := c.ConnectionState()
	if err == nil {
		// TLS 1.3 client certificates are checked after the client's
		// handshake returns: the echo carries the server's verdict.
		if _, err = c.Write([]byte("x")); err == nil {
			_, err = c.Read(make([]byte, 1))
		}
	}
	if serr := <-done; err == nil && serr != nil {
		err = serr
	}
	c.Close()
	return st, err
}

func TestBuildErrors(t *testing.T) {
	f := certs(t)
	for _, c := range []struct {
		edit func(*Options)
		want string
	}{
		{func(o *Options) { o.CertFile = "" }, "No tls-cert-file configured!"},
		{func(o *Options) { o.KeyFile = "" }, "No tls-key-file configured!"},
		{func(o *Options) { o.CAFile = "" }, "Either tls-ca-cert-file or tls-ca-cert-dir must be specified"},
		{func(o *Options) { o.CertFile = f.Dir + "/missing" }, "Failed to load certificate: "},
		{func(o *Options) { o.KeyFile = f.ClientKey }, "Failed to load certificate: "}, // not the cert's key
		{func(o *Options) { o.CAFile = f.ServerKey }, "Failed to configure CA certificate(s) file/directory"},
		{func(o *Options) { o.Protocols = "TLSv1.2 SSLv3" }, "Invalid tls-protocols specified. Use a combination of 'TLSv1', 'TLSv1.1', 'TLSv1.2' and 'TLSv1.3'."},
		{func(o *Options) { o.Protocols = "TLSv1 TLSv1.3" }, "leaves a gap"},
		{func(o *Options) { o.Ciphers = "AES256-SHA256:DHE-RSA-AES128-SHA" }, "Failed to configure ciphers: AES256-SHA256:DHE-RSA-AES128-SHA"},
		{func(o *Options) { o.Ciphers = "HIGH:@SECLEVEL=2" }, "@SECLEVEL=2 is not supported"},
		{func(o *Options) { o.Ciphersuites = "TLS_AES_128_GCM_SHA256" }, "always enables"},
		{func(o *Options) { o.Ciphersuites = "TLS_AES_128_CCM_SHA256" }, "Failed to configure ciphersuites"},
		{func(o *Options) { o.DHParamsFile = f.Dir + "/missing.dh" }, "Failed to load " + f.Dir + "/missing.dh: no such file or directory"},
		{func(o *Options) { o.DHParamsFile = f.ServerCert }, f.ServerCert + ": failed to read DH params."},
		{func(o *Options) { o.CertFile, o.KeyFile = f.EncCert, f.EncKey }, "no password is configured"},
		{func(o *Options) { o.CertFile, o.KeyFile, o.KeyFilePass = f.EncCert, f.EncKey, "wrong" }, "Failed to load private key"},
	} {
		o := opts(f)
		c.edit(&o)
		_, err := Build(o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Build(%+v) = %v, want %q", o, err, c.want)
		}
	}
	o := opts(f)
	o.CAFile, o.NeedCA = "", false
	if _, err := Build(o); err != nil {
		t.Errorf("no CA without client auth: %v", err)
	}
	o = opts(f)
	o.CertFile, o.KeyFile, o.KeyFilePass = f.EncCert, f.EncKey, f.EncPass
	o.DHParamsFile = writeDH(t, f.Dir)
	o.Protocols, o.Ciphers = "tlsv1.2", "ECDHE-RSA-AES256-GCM-SHA384:AES128-SHA"
	o.Ciphersuites = "TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384"
	if _, err := Build(o); err != nil {
		t.Errorf("encrypted key, ciphers: %v", err)
	}
}

func TestClientAuthModes(t *testing.T) {
	f := certs(t)
	cfgs, err := Build(opts(f))
	if err != nil {
		t.Fatal(err)
	}
	// A client that trusts the CA, with and without a certificate.
	other := opts(f)
	other.CertFile, other.KeyFile = f.ClientCert, f.ClientKey
	withCert := mustBuild(t, other).Client()
	noCert := withCert.Clone()
	noCert.Certificates = nil
	// A certificate the server's CA did not sign.
	strangerOpts := opts(f)
	strangerOpts.CAFile = f.OtherCACert
	stranger := mustBuild(t, strangerOpts)

	for _, c := range []struct {
		mode   AuthMode
		client *tls.Config
		ok     bool
	}{
		{AuthYes, withCert, true}, {AuthYes, noCert, false},
		{AuthOptional, withCert, true}, {AuthOptional, noCert, true},
		{AuthNo, noCert, true},
	} {
		if _, err := handshake(t, cfgs.Server(c.mode), c.client); (err == nil) != c.ok {
			t.Errorf("mode %d, client certs %d: err %v, want ok=%v", c.mode, len(c.client.Certificates), err, c.ok)
		}
	}
	// The client side verifies the server's chain against its CA.
	if _, err := handshake(t, cfgs.Server(AuthNo), stranger.Client()); err == nil {
		t.Error("a client trusting another CA accepted the server")
	}
}

func mustBuild(t *testing.T, o Options) *Configs {
	t.Helper()
	c, err := Build(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestProtocolsAndCiphers(t *testing.T) {
	f := certs(t)
	o := opts(f)
	o.Protocols = "TLSv1.2"
	o.Ciphers = "ECDHE-ECDSA-AES256-GCM-SHA384"
	srv := mustBuild(t, o).Server(AuthNo)
	cl := mustBuild(t, opts(f)).Client()
	st, err := handshake(t, srv, cl)
	if err != nil {
		t.Fatal(err)
	}
	if st.Version != tls.VersionTLS12 || st.CipherSuite != tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384 {
		t.Errorf("version %x suite %x", st.Version, st.CipherSuite)
	}
	o.Protocols = "TLSv1.3"
	if _, err := handshake(t, srv, mustBuild(t, o).Client()); err == nil {
		t.Error("a TLSv1.3-only client met a TLSv1.2-only server")
	}
}

func TestSessionCache(t *testing.T) {
	f := certs(t)
	o := opts(f)
	o.NeedCA = false
	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		cfgs := mustBuild(t, o)
		srv := cfgs.Server(AuthNo)
		cl := cfgs.Client().Clone()
		cl.MaxVersion = v
		cl.ClientSessionCache = tls.NewLRUClientSessionCache(8)
		cl.ServerName = "localhost" // the cache's key; each handshake has a new port
		if st, err := handshake(t, srv, cl); err != nil || st.DidResume {
			t.Fatalf("v%x first: %v resumed=%v", v, err, st.DidResume)
		}
		if st, err := handshake(t, srv, cl); err != nil || !st.DidResume {
			t.Fatalf("v%x second: %v resumed=%v", v, err, st.DidResume)
		}
	}

	// Timeout and size.
	sc := newSessionCache(2, time.Minute)
	now := time.Unix(1000, 0)
	sc.nowFunc = func() time.Time { return now }
	st := sessionFrom(t, f)
	ids := make([][]byte, 3)
	for i := range ids {
		var err error
		if ids[i], err = sc.wrap(tls.ConnectionState{}, st); err != nil {
			t.Fatal(err)
		}
	}
	if sc.len() != 2 {
		t.Errorf("size 2 holds %d", sc.len())
	}
	if s, _ := sc.unwrap(ids[0], tls.ConnectionState{}); s != nil {
		t.Error("the oldest session outlived the size")
	}
	if s, _ := sc.unwrap(ids[2], tls.ConnectionState{}); s == nil {
		t.Error("the newest session is gone")
	}
	now = now.Add(time.Minute)
	if s, _ := sc.unwrap(ids[2], tls.ConnectionState{}); s != nil {
		t.Error("a session outlived its timeout")
	}
	if s, _ := sc.unwrap([]byte("short"), tls.ConnectionState{}); s != nil {
		t.Error("a bad handle found a session")
	}
}

// sessionFrom returns a real session state, taken from a handshake.
func sessionFrom(t *testing.T, f testcerts.Files) *tls.SessionState {
	t.Helper()
	o := opts(f)
	cfgs := mustBuild(t, o)
	srv := cfgs.Server(AuthNo).Clone()
	var got *tls.SessionState
	srv.WrapSession = func(cs tls.ConnectionState, ss *tls.SessionState) ([]byte, error) {
		got = ss
		return []byte("x"), nil
	}
	cl := cfgs.Client().Clone()
	cl.ClientSessionCache = tls.NewLRUClientSessionCache(1)
	if _, err := handshake(t, srv, cl); err != nil || got == nil {
		t.Fatalf("no session: %v", err)
	}
	return got
}

// writeDH writes a DH parameters file (the block's content is not
// checked: Go never uses it) and returns its path.
func writeDH(t *testing.T, dir string) string {
	t.Helper()
	path := dir + "/redis.dh"
	b := pem.EncodeToMemory(&pem.Block{Type: "DH PARAMETERS", Bytes: []byte{0x30, 0x06, 0x02, 0x01, 0x17, 0x02, 0x01, 0x02}})
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestPKCS8EncryptedKeys: keys OpenSSL 3 encrypts (PKCS#8, PBES2) load
// with their password (testdata made by `openssl pkey -aes256` and
// `openssl pkcs8 -topk8 -v2 des3 -v2prf hmacWithSHA1`, password 1234).
func TestPKCS8EncryptedKeys(t *testing.T) {
	for _, key := range []string{"testdata/pkcs8-aes256.key", "testdata/pkcs8-des3-sha1.key"} {
		if _, err := loadPair("testdata/pkcs8.crt", key, "1234"); err != nil {
			t.Errorf("%s: %v", key, err)
		}
		if _, err := loadPair("testdata/pkcs8.crt", key, "4321"); err == nil {
			t.Errorf("%s: a wrong password loaded it", key)
		}
		if _, err := loadPair("testdata/pkcs8.crt", key, ""); err == nil || !strings.Contains(err.Error(), "no password") {
			t.Errorf("%s without a password: %v", key, err)
		}
	}
}

// TestCipherStrings: OpenSSL's cipher-list operators and keywords.
func TestCipherStrings(t *testing.T) {
	names := func(ids []uint16) string {
		var out []string
		for _, id := range ids {
			for _, s := range suites {
				if s.id == id {
					out = append(out, s.name)
				}
			}
		}
		return strings.Join(out, ":")
	}
	for _, c := range []struct{ list, want string }{
		{"AES128-SHA256", "AES128-SHA256"},
		{"AES128-SHA256:AES256-SHA256", "AES128-SHA256"}, // Go lacks AES256-SHA256
		{"-ALL:AES128-SHA256", "AES128-SHA256"},
		{"ECDHE+AESGCM+aECDSA", "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384"},
		{"ECDHE-RSA-AES128-GCM-SHA256,ECDHE-RSA-AES256-GCM-SHA384 ECDHE-RSA-CHACHA20-POLY1305", "ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-RSA-CHACHA20-POLY1305"},
		{"kRSA+AESGCM:!AES256", "AES128-GCM-SHA256"},
		{"!AES256:kRSA+AESGCM", "AES128-GCM-SHA256"}, // ! is for good
		{"AESGCM+aRSA:-AES256:AES256-GCM-SHA384", "ECDHE-RSA-AES128-GCM-SHA256:AES128-GCM-SHA256:AES256-GCM-SHA384"},
		{"aRSA+AESGCM:+kRSA", "ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384:AES128-GCM-SHA256:AES256-GCM-SHA384"},
		{"RSA+AES128+SHA", "AES128-SHA"},
		{"3DES", "ECDHE-RSA-DES-CBC3-SHA:DES-CBC3-SHA"},
		{"HIGH:!kRSA:!SHA1:!SHA256:!SHA384:@STRENGTH", "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305"},
	} {
		ids, err := ciphers(c.list)
		if got := names(ids); err != nil || got != c.want {
			t.Errorf("%s: %s (%v), want %s", c.list, got, err, c.want)
		}
	}
	def, _ := ciphers("DEFAULT")
	if empty, _ := ciphers(""); len(def) != 17 || !slices.Equal(def, empty) ||
		!slices.Contains(def, tls.TLS_RSA_WITH_AES_128_CBC_SHA256) || slices.Contains(def, tls.TLS_RSA_WITH_3DES_EDE_CBC_SHA) {
		t.Errorf("DEFAULT: %s", names(def))
	}
	if def2, _ := ciphers("DEFAULT:-AES128-SHA256"); len(def2) != 16 || slices.Contains(def2, tls.TLS_RSA_WITH_AES_128_CBC_SHA256) {
		t.Errorf("DEFAULT:-AES128-SHA256: %s", names(def2))
	}
}
