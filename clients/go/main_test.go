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

// serverAddr is the address of the HotKV server started by TestMain.
var serverAddr string

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

	port, err := freePort()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	dataDir := filepath.Join(tmp, "data")
	if err := os.Mkdir(dataDir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	srv := exec.Command(bin, "--port", strconv.Itoa(port), "--save", "", "--dir", dataDir)
	srv.Stdout = os.Stderr
	srv.Stderr = os.Stderr
	if err := srv.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "starting hotkv: %v\n", err)
		return 1
	}
	defer func() {
		srv.Process.Kill()
		srv.Wait()
	}()

	serverAddr = "127.0.0.1:" + strconv.Itoa(port)
	if err := waitReady(serverAddr, 10*time.Second); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func waitReady(addr string, timeout time.Duration) error {
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
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
