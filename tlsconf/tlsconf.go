// Package tlsconf turns Redis's tls-* directives into crypto/tls
// configurations: the server's (one per tls-auth-clients mode) and the
// client's, for the connections a server opens (a replica's link to its
// master). It knows nothing of listeners or connections.
//
// Where OpenSSL and Go differ, Build either carries the directive out or
// refuses it with an error naming it:
//   - tls-ciphers is an OpenSSL cipher string over the TLS 1.2 suites Go
//     implements (ciphers.go): suite names, keywords (DEFAULT, ALL, HIGH,
//     ECDHE, aRSA, AESGCM, ...), and the +, -, ! operators. A suite Go
//     lacks (AES256-SHA256, DHE-*) matches nothing, as a name OpenSSL
//     does not know; a string that leaves no suite is refused.
//   - tls-ciphersuites: Go always enables its three TLS 1.3 suites, so a
//     list that leaves one out is refused.
//   - tls-protocols with a gap (TLSv1 TLSv1.3) is refused: Go has a
//     minimum and a maximum version, not a set.
//   - tls-dh-params-file is read and checked (a PEM "DH PARAMETERS"
//     block, Redis's errors otherwise), but Go has no finite-field DHE
//     suites to use it with: as with an OpenSSL cipher list without DHE,
//     key exchange is ECDHE (or TLS 1.3's), and the parameters go unused.
//   - tls-session-caching, -size and -timeout drive a server-side session
//     cache of their size and timeout (the ticket the client holds is the
//     cache's random handle), as OpenSSL's SSL_SESS_CACHE_SERVER.
//   - tls-prefer-server-ciphers: Go always picks the suite by its own
//     order (adjusted for the hardware's AES support), whatever it says
//     and whatever the order of tls-ciphers.
package tlsconf

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Options are the tls-* directives.
type Options struct {
	CertFile, KeyFile, KeyFilePass                   string
	ClientCertFile, ClientKeyFile, ClientKeyFilePass string
	CAFile, CADir                                    string
	DHParamsFile                                     string
	Protocols, Ciphers, Ciphersuites                 string
	SessionCaching                                   bool
	SessionCacheSize                                 int
	SessionCacheTimeout                              time.Duration
	// NeedCA: tls-auth-clients is not "no", or tls-replication is on; a
	// CA file or directory is then required, as Redis requires it.
	NeedCA bool
}

// AuthMode is tls-auth-clients.
type AuthMode int

// tls-auth-clients values, in the config package's enumeration order.
const (
	AuthNo AuthMode = iota
	AuthYes
	AuthOptional
)

// Configs are the configurations Build makes.
type Configs struct {
	server [3]*tls.Config // by AuthMode
	client *tls.Config
}

// Server returns the configuration of accepted connections for
// tls-auth-clients mode.
func (c *Configs) Server(mode AuthMode) *tls.Config { return c.server[mode] }

// Client returns the configuration of connections the server opens. It
// verifies the peer's chain against the CA but not its host name, as
// Redis (OpenSSL's SSL_VERIFY_PEER) does.
func (c *Configs) Client() *tls.Config { return c.client }

// Build makes the configurations, or says why it cannot, in the words of
// the line Redis logs for the same failure.
func Build(o Options) (*Configs, error) {
	if o.CertFile == "" {
		return nil, errors.New("No tls-cert-file configured!")
	}
	if o.KeyFile == "" {
		return nil, errors.New("No tls-key-file configured!")
	}
	if o.NeedCA && o.CAFile == "" && o.CADir == "" {
		return nil, errors.New("Either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-cluster, tls-replication or tls-auth-clients are enabled!")
	}
	if o.DHParamsFile != "" {
		if err := checkDHParams(o.DHParamsFile); err != nil {
			return nil, err
		}
	}
	minV, maxV, err := protocols(o.Protocols)
	if err != nil {
		return nil, err
	}
	suites, err := ciphers(o.Ciphers)
	if err != nil {
		return nil, err
	}
	if err := ciphersuites(o.Ciphersuites); err != nil {
		return nil, err
	}
	cert, err := loadPair(o.CertFile, o.KeyFile, o.KeyFilePass)
	if err != nil {
		return nil, err
	}
	var pool *x509.CertPool
	if o.CAFile != "" || o.CADir != "" {
		if pool, err = loadCAs(o.CAFile, o.CADir); err != nil {
			return nil, fmt.Errorf("Failed to configure CA certificate(s) file/directory: %v", err)
		}
	}
	base := &tls.Config{
		Certificates: []tls.Certificate{cert},
		ClientCAs:    pool,
		MinVersion:   minV,
		MaxVersion:   maxV,
		CipherSuites: suites,
	}
	if o.SessionCaching {
		cache := newSessionCache(o.SessionCacheSize, o.SessionCacheTimeout)
		base.WrapSession, base.UnwrapSession = cache.wrap, cache.unwrap
	} else {
		base.SessionTicketsDisabled = true
	}
	out := &Configs{}
	for mode, auth := range []tls.ClientAuthType{tls.NoClientCert, tls.RequireAndVerifyClientCert, tls.VerifyClientCertIfGiven} {
		c := base.Clone()
		c.ClientAuth = auth
		out.server[mode] = c
	}
	clientCert := cert
	if o.ClientCertFile != "" && o.ClientKeyFile != "" {
		if clientCert, err = loadPair(o.ClientCertFile, o.ClientKeyFile, o.ClientKeyFilePass); err != nil {
			return nil, err
		}
	}
	out.client = &tls.Config{
		Certificates: []tls.Certificate{clientCert},
		MinVersion:   minV,
		MaxVersion:   maxV,
		CipherSuites: suites,
		// The chain is verified below, without a host name: a replica
		// names its master by address, and Redis checks no name either.
		InsecureSkipVerify:    true,
		VerifyPeerCertificate: verifyChain(pool),
	}
	return out, nil
}

// checkDHParams checks that file holds PEM-encoded DH parameters, with
// the lines Redis logs when it does not.
func checkDHParams(file string) error {
	b, err := os.ReadFile(file)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("Failed to load %s: %v", file, err)
	}
	if blk, _ := pem.Decode(b); blk == nil || blk.Type != "DH PARAMETERS" && blk.Type != "X9.42 DH PARAMETERS" {
		return fmt.Errorf("%s: failed to read DH params.", file)
	}
	return nil
}

// verifyChain verifies a peer's chain against pool (the system's roots
// when pool is nil), without a host name.
func verifyChain(pool *x509.CertPool) func([][]byte, [][]*x509.Certificate) error {
	return func(raw [][]byte, _ [][]*x509.Certificate) error {
		if len(raw) == 0 {
			return errors.New("tls: the peer sent no certificate")
		}
		certs := make([]*x509.Certificate, len(raw))
		for i, b := range raw {
			c, err := x509.ParseCertificate(b)
			if err != nil {
				return err
			}
			certs[i] = c
		}
		inter := x509.NewCertPool()
		for _, c := range certs[1:] {
			inter.AddCert(c)
		}
		_, err := certs[0].Verify(x509.VerifyOptions{Roots: pool, Intermediates: inter,
			KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}})
		return err
	}
}

// protocols parses tls-protocols ("" is Redis's default, TLSv1.2 and
// TLSv1.3) into a minimum and maximum version.
func protocols(s string) (uint16, uint16, error) {
	if s == "" {
		return tls.VersionTLS12, tls.VersionTLS13, nil
	}
	versions := []uint16{tls.VersionTLS10, tls.VersionTLS11, tls.VersionTLS12, tls.VersionTLS13}
	var on [4]bool
	for _, tok := range strings.Split(s, " ") {
		i := slices.Index([]string{"tlsv1", "tlsv1.1", "tlsv1.2", "tlsv1.3"}, strings.ToLower(tok))
		if i < 0 {
			return 0, 0, errors.New("Invalid tls-protocols specified. Use a combination of 'TLSv1', 'TLSv1.1', 'TLSv1.2' and 'TLSv1.3'.")
		}
		on[i] = true
	}
	lo, hi := slices.Index(on[:], true), len(on)-1
	for !on[hi] {
		hi--
	}
	for i := lo; i <= hi; i++ {
		if !on[i] {
			return 0, 0, fmt.Errorf("Invalid tls-protocols specified: %q leaves a gap, and Go's crypto/tls enables a range of versions", s)
		}
	}
	return versions[lo], versions[hi], nil
}

// ciphersuites checks tls-ciphersuites: Go enables all three of its TLS
// 1.3 suites, so the list must name each of them (in any order).
func ciphersuites(s string) error {
	if s == "" {
		return nil
	}
	all := []string{"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"}
	seen := map[string]bool{}
	for _, tok := range strings.Split(s, ":") {
		if !slices.Contains(all, tok) {
			return fmt.Errorf("Failed to configure ciphersuites: %s: %q is not a TLS 1.3 suite Go's crypto/tls implements", s, tok)
		}
		seen[tok] = true
	}
	if len(seen) != len(all) {
		return fmt.Errorf("Failed to configure ciphersuites: %s: Go's crypto/tls always enables %s", s, strings.Join(all, ":"))
	}
	return nil
}

// loadPair loads a certificate chain and its private key, decrypting an
// encrypted PEM key with pass.
func loadPair(certFile, keyFile, pass string) (tls.Certificate, error) {
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("Failed to load certificate: %s: %v", certFile, err)
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("Failed to load private key: %s: %v", keyFile, err)
	}
	if keyPEM, err = decryptKey(keyPEM, pass); err != nil {
		return tls.Certificate{}, fmt.Errorf("Failed to load private key: %s: %v", keyFile, err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("Failed to load certificate: %s: %v", certFile, err)
	}
	return cert, nil
}

// decryptKey returns keyPEM with its private key decrypted with pass when
// it is encrypted: PKCS#8 (what OpenSSL 3 writes, pkcs8.go) or the legacy
// PEM way (Proc-Type: 4,ENCRYPTED, OpenSSL 1's `openssl rsa -aes256`).
func decryptKey(keyPEM []byte, pass string) ([]byte, error) {
	var out []byte
	for rest := keyPEM; ; {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		switch {
		case b.Type == "ENCRYPTED PRIVATE KEY":
			if pass == "" {
				return nil, errors.New("the key is encrypted and no password is configured")
			}
			der, err := decryptPKCS8(b.Bytes, pass)
			if err != nil {
				return nil, err
			}
			b = &pem.Block{Type: "PRIVATE KEY", Bytes: der}
		case x509.IsEncryptedPEMBlock(b): //nolint:staticcheck // the legacy PEM encryption is what tls-key-file-pass opens
			if pass == "" {
				return nil, errors.New("the key is encrypted and no password is configured")
			}
			der, err := x509.DecryptPEMBlock(b, []byte(pass)) //nolint:staticcheck
			if err != nil {
				return nil, err
			}
			b = &pem.Block{Type: b.Type, Bytes: der}
		}
		out = append(out, pem.EncodeToMemory(b)...)
	}
	if out == nil {
		return keyPEM, nil // let X509KeyPair say what is wrong
	}
	return out, nil
}

// loadCAs loads the CA certificates of file and of every file in dir
// (OpenSSL reads dir's hashed names; every PEM file there is read here).
func loadCAs(file, dir string) (*x509.CertPool, error) {
	pool := x509.NewCertPool()
	var files []string
	if file != "" {
		files = append(files, file)
	}
	if dir != "" {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			if !e.IsDir() {
				files = append(files, filepath.Join(dir, e.Name()))
			}
		}
	}
	n := 0
	for i, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if pool.AppendCertsFromPEM(b) {
			n++
		} else if i == 0 && file != "" {
			return nil, fmt.Errorf("%s: no certificate found", f)
		}
	}
	if n == 0 {
		return nil, errors.New("no CA certificate found")
	}
	return pool, nil
}
