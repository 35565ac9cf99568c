// Package testcerts writes a throwaway certificate authority and
// certificates signed by it, for tests of TLS (as Redis's
// utils/gen-test-certs.sh does for its suite).
package testcerts

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// Files are the paths Write wrote.
type Files struct {
	Dir                   string
	CACert                string // the CA's certificate
	ServerCert, ServerKey string // an ECDSA P-256 server certificate for 127.0.0.1 and localhost
	ClientCert, ClientKey string // a client certificate
	// EncKey is ServerKey's RSA twin, encrypted the legacy PEM way with
	// EncPass, and EncCert its certificate.
	EncCert, EncKey, EncPass string
	// OtherCACert is a second CA that signed nothing here.
	OtherCACert string
}

// Write writes the files into dir.
func Write(dir string) (Files, error) {
	f := Files{Dir: dir, EncPass: "s3cret"}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return f, err
	}
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "HotKV test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return f, err
	}
	ca, _ := x509.ParseCertificate(caDER)
	f.CACert = filepath.Join(dir, "ca.crt")
	if err := writePEM(f.CACert, "CERTIFICATE", caDER); err != nil {
		return f, err
	}
	leaf := func(serial int64, name string, usage x509.ExtKeyUsage, pub, priv any) ([]byte, error) {
		t := &x509.Certificate{
			SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment, ExtKeyUsage: []x509.ExtKeyUsage{usage},
			DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		}
		return x509.CreateCertificate(rand.Reader, t, ca, pub, caKey)
	}
	for _, c := range []struct {
		cert, key *string
		name      string
		usage     x509.ExtKeyUsage
	}{
		{&f.ServerCert, &f.ServerKey, "server", x509.ExtKeyUsageServerAuth},
		{&f.ClientCert, &f.ClientKey, "client", x509.ExtKeyUsageClientAuth},
	} {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return f, err
		}
		der, err := leaf(int64(len(c.name)+1), c.name, c.usage, &k.PublicKey, k)
		if err != nil {
			return f, err
		}
		kd, _ := x509.MarshalECPrivateKey(k)
		*c.cert, *c.key = filepath.Join(dir, c.name+".crt"), filepath.Join(dir, c.name+".key")
		if err := writePEM(*c.cert, "CERTIFICATE", der); err != nil {
			return f, err
		}
		if err := writePEM(*c.key, "EC PRIVATE KEY", kd); err != nil {
			return f, err
		}
	}
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return f, err
	}
	der, err := leaf(10, "encrypted", x509.ExtKeyUsageServerAuth, &rk.PublicKey, rk)
	if err != nil {
		return f, err
	}
	//nolint:staticcheck // the legacy encryption is what tls-key-file-pass reads
	blk, err := x509.EncryptPEMBlock(rand.Reader, "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(rk), []byte(f.EncPass), x509.PEMCipherAES256)
	if err != nil {
		return f, err
	}
	f.EncCert, f.EncKey = filepath.Join(dir, "enc.crt"), filepath.Join(dir, "enc.key")
	if err := writePEM(f.EncCert, "CERTIFICATE", der); err != nil {
		return f, err
	}
	if err := os.WriteFile(f.EncKey, pem.EncodeToMemory(blk), 0o600); err != nil {
		return f, err
	}
	otherKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	otherDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &otherKey.PublicKey, otherKey)
	if err != nil {
		return f, err
	}
	f.OtherCACert = filepath.Join(dir, "other-ca.crt")
	return f, writePEM(f.OtherCACert, "CERTIFICATE", otherDER)
}

func writePEM(path, typ string, der []byte) error {
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600)
}
