package main

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// buildBinary compiles cmd/hotkv once per test run.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "hotkv")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

// TestBinary starts the real binary the way users do: a config file, then
// --directive overrides; checks it serves, and that SIGTERM and SHUTDOWN
// stop it cleanly with exit status 0.
func TestBinary(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	conf := filepath.Join(dir, "hotkv.conf")
	port := difftest.FreePort(t)
	os.WriteFile(conf, []byte("# test config\nport 1\nrequirepass \"s3cret\"\ndatabases 4\n"), 0o644)

	for _, stop := range []string{"SIGTERM", "SIGINT", "SHUTDOWN"} {
		t.Run(stop, func(t *testing.T) {
			cmd := exec.Command(bin, conf, "--port", strconv.Itoa(port), "--dir", dir)
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			addr := "127.0.0.1:" + strconv.Itoa(port)
			c := dialRetry(t, addr)
			r := bufio.NewReader(c)
			send := func(args ...string) string {
				c.Write(difftest.Encode(args...))
				line, _ := difftest.ReadReply(r)
				return line
			}
			if got := send("PING"); got != "-NOAUTH Authentication required.\r\n" {
				t.Errorf("PING before AUTH = %q", got)
			}
			if got := send("AUTH", "s3cret"); got != "+OK\r\n" {
				t.Errorf("AUTH = %q", got)
			}
			if got := send("SELECT", "4"); got != "-ERR DB index is out of range\r\n" {
				t.Errorf("SELECT 4 with databases 4 = %q", got)
			}
			if got := send("CONFIG", "GET", "port"); !strings.Contains(got, strconv.Itoa(port)) {
				t.Errorf("CONFIG GET port = %q: the --port override did not win", got)
			}
			switch stop {
			case "SIGTERM":
				cmd.Process.Signal(syscall.SIGTERM)
			case "SIGINT":
				cmd.Process.Signal(syscall.SIGINT)
			default:
				send("SHUTDOWN", "NOSAVE")
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("exit after %s: %v", stop, err)
				}
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("still running 10 s after %s", stop)
			}
		})
	}
}

func dialRetry(t *testing.T, addr string) net.Conn {
	t.Helper()
	return dialRetryNet(t, "tcp", addr)
}

// dialRetryNet is dialRetry on network ("tcp", "unix").
// startDumping starts cmd with its output in a file and kills it when
// the test ends; when the test failed, it first has the server dump its
// goroutines (SIGQUIT) and logs the output, so that a stall shows where
// it stood.
func startDumping(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	out, err := os.Create(filepath.Join(t.TempDir(), "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			cmd.Process.Signal(syscall.SIGUSR2)
			time.Sleep(500 * time.Millisecond)
			cmd.Process.Signal(syscall.SIGQUIT)
			time.Sleep(2 * time.Second)
			if b, err := os.ReadFile(out.Name()); err == nil {
				t.Logf("server output:\n%s", b)
			}
		}
		cmd.Process.Kill()
		out.Close()
	})
}

func dialRetryNet(t *testing.T, network, addr string) net.Conn {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial(network, addr)
		if err == nil {
			t.Cleanup(func() { c.Close() })
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not start: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestBadConfig: an unknown or invalid directive stops start-up with a
// message naming the line, and a non-zero status.
func TestBadConfig(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		conf string
		args []string
		want []string
	}{
		{"port 7000\nno-such-directive yes\n", nil, []string{"at line 2", "no-such-directive yes", "Bad directive or wrong number of arguments"}},
		{"maxmemory lots\n", nil, []string{"at line 1", "maxmemory lots"}},
		{"", []string{"--databases", "-1"}, []string{"databases"}},
		{"port \"unbalanced\n", nil, []string{"at line 1", "Unbalanced quotes"}},
	} {
		conf := filepath.Join(dir, "bad.conf")
		os.WriteFile(conf, []byte(tc.conf), 0o644)
		out, err := exec.Command(bin, append([]string{conf}, tc.args...)...).CombinedOutput()
		if err == nil {
			t.Errorf("%q %v: started, want a fatal config error", tc.conf, tc.args)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(string(out), w) {
				t.Errorf("%q %v: output lacks %q:\n%s", tc.conf, tc.args, w, out)
			}
		}
	}
}

// TestShutdownBusyScript: SHUTDOWN NOSAVE stops a server whose script
// wrote and cannot be killed, as Redis suggests in its UNKILLABLE error.
func TestShutdownBusyScript(t *testing.T) {
	bin := buildBinary(t)
	// A unix socket of the test's own: a TCP port picked free may be
	// taken by another test's server before this one binds it.
	dir := t.TempDir()
	sock := filepath.Join(dir, "hotkv.sock")
	cmd := exec.Command(bin, "--port", "0", "--unixsocket", sock, "--dir", dir, "--busy-reply-threshold", "50")
	startDumping(t, cmd)
	eval := dialRetryNet(t, "unix", sock)
	eval.Write(difftest.Encode("EVAL", "redis.call('SET', 'x', 1) while true do end", "0"))
	c := difftest.DialUnix(t, sock)
	for deadline := time.Now().Add(5 * time.Second); !strings.HasPrefix(c.Do("GET", "x"), "-BUSY"); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			eval.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
			reply, _ := bufio.NewReader(eval).ReadString('\n')
			t.Fatalf("the script never became busy; EVAL's reply: %q", reply)
		}
	}
	if got := c.Do("SCRIPT", "KILL"); !strings.HasPrefix(got, "-UNKILLABLE") {
		t.Errorf("SCRIPT KILL = %q", got)
	}
	c.Send(difftest.Encode("SHUTDOWN", "NOSAVE"))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("still running 10 s after SHUTDOWN NOSAVE")
	}
}
