package hotkv

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// serverAddr is the address of the HotKV server started by TestMain, and
// tlsAddr the address of its TLS port (tls-auth-clients yes, the default),
// which uses the certificates in certDir (ca.crt, server.crt/key,
// client.crt/key, written by internal/testcerts/gencerts).
var serverAddr, tlsAddr, certDir string

// hotkvBin is the server binary built by TestMain; testTmp its temporary
// directory (servers' data directories go under it).
var hotkvBin, testTmp string

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	tmp, err := os.MkdirTemp("", "hotkv-client-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)

	bin := filepath.Join(tmp, "hotkv")
	build := exec.Command("go", "build", "-o", bin, "github.com/hotkv/hotkv/cmd/hotkv")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building hotkv: %v\n%s", err, out)
		return 1
	}

	certDir = filepath.Join(tmp, "certs") // gencerts needs the directory to exist
	if err := os.Mkdir(certDir, 0o700); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	gen := exec.Command("go", "run", "./internal/testcerts/gencerts", certDir)
	gen.Dir = filepath.Join("..", "..")
	if out, err := gen.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "generating test certificates: %v\n%s", err, out)
		return 1
	}
	hotkvBin, testTmp = bin, tmp

	tlsPort, err := freePort()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	addr, stop, err := startServer(
		"--tls-port", strconv.Itoa(tlsPort),
		"--tls-cert-file", filepath.Join(certDir, "server.crt"),
		"--tls-key-file", filepath.Join(certDir, "server.key"),
		"--tls-ca-cert-file", filepath.Join(certDir, "ca.crt"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer stop()
	serverAddr = addr
	tlsAddr = "127.0.0.1:" + strconv.Itoa(tlsPort)
	return m.Run()
}

// startServer starts hotkvBin on a free plain port with --save "", a fresh
// --dir and the extra args, waits until it answers PING there (with the
// password of a --requirepass among args), and returns its address and a
// function that stops it.
func startServer(args ...string) (addr string, stop func(), err error) {
	port, err := freePort()
	if err != nil {
		return "", nil, err
	}
	dataDir, err := os.MkdirTemp(testTmp, "data")
	if err != nil {
		return "", nil, err
	}
	password := ""
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "--requirepass" {
			password = args[i+1]
		}
	}
	srv := exec.Command(hotkvBin, append([]string{"--port", strconv.Itoa(port), "--save", "", "--dir", dataDir}, args...)...)
	srv.Stdout = os.Stderr
	srv.Stderr = os.Stderr
	if err := srv.Start(); err != nil {
		return "", nil, fmt.Errorf("starting hotkv: %v", err)
	}
	stop = func() {
		srv.Process.Kill()
		srv.Wait()
	}
	addr = "127.0.0.1:" + strconv.Itoa(port)
	if err := waitReady(addr, password, 10*time.Second); err != nil {
		stop()
		return "", nil, err
	}
	return addr, stop, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func waitReady(addr, password string, timeout time.Duration) error {
	c := redis.NewClient(&redis.Options{Addr: addr, Password: password, MaxRetries: -1})
	defer c.Close()
	deadline := time.Now().Add(timeout)
	for {
		err := c.Ping(context.Background()).Err()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("hotkv server at %s not ready: %v", addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// newTestClient returns a client for the test server; it is closed when the
// test ends. Tests use distinct keys, so they do not interfere.
func newTestClient(t *testing.T) *Client {
	t.Helper()
	c := NewClient(&redis.Options{Addr: serverAddr})
	t.Cleanup(func() { c.Close() })
	return c
}
