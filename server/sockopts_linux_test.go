package server

import (
	"net"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/hotkv/hotkv/internal/difftest"
)

// serverFd returns the server-side descriptor (in this process: the
// server runs in the test) of c's connection, from CLIENT INFO.
func serverFd(t *testing.T, c *difftest.Conn) int {
	t.Helper()
	fd, err := strconv.Atoi(cliField(c.Do("CLIENT", "INFO"), "fd"))
	if err != nil {
		t.Fatal(err)
	}
	return fd
}

func sockopt(t *testing.T, fd, level, opt int) int {
	t.Helper()
	v, err := syscall.GetsockoptInt(fd, level, opt)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestSocketOptions: tcp-keepalive and socket-mark-id set accepted
// sockets as Redis sets them; tcp-backlog is the listening socket's
// backlog.
func TestSocketOptions(t *testing.T) {
	_, addr := startServer(t, "--tcp-keepalive", "60", "--socket-mark-id", "7", "--tcp-backlog", "100")
	c := difftest.Dial(t, addr)
	fd := serverFd(t, c)
	if v := sockopt(t, fd, syscall.SOL_SOCKET, syscall.SO_KEEPALIVE); v != 1 {
		t.Errorf("SO_KEEPALIVE %d", v)
	}
	if v := sockopt(t, fd, syscall.IPPROTO_TCP, syscall.TCP_KEEPIDLE); v != 60 {
		t.Errorf("TCP_KEEPIDLE %d", v)
	}
	if v := sockopt(t, fd, syscall.IPPROTO_TCP, syscall.TCP_KEEPINTVL); v != 20 {
		t.Errorf("TCP_KEEPINTVL %d", v)
	}
	if v := sockopt(t, fd, syscall.SOL_SOCKET, syscall.SO_MARK); v != 7 && syscall.Getuid() == 0 {
		t.Errorf("SO_MARK %d", v)
	}
	c.Do("CONFIG", "SET", "tcp-keepalive", "0")
	if v := sockopt(t, serverFd(t, difftest.Dial(t, addr)), syscall.SOL_SOCKET, syscall.SO_KEEPALIVE); v != 0 {
		t.Errorf("tcp-keepalive 0: SO_KEEPALIVE %d", v)
	}
	// ss shows a listening socket's backlog as its Send-Q.
	_, port, _ := net.SplitHostPort(addr)
	out, err := exec.Command("ss", "-ltnH", "sport = :"+port).Output()
	if err != nil {
		t.Logf("no ss: backlog not checked: %v", err)
	} else if f := strings.Fields(string(out)); len(f) < 3 || f[2] != "100" {
		t.Errorf("ss: %q", out)
	}
}

// TestReplDisableTCPNoDelay: with repl-disable-tcp-nodelay a master's
// socket to its replica sends without TCP_NODELAY.
func TestReplDisableTCPNoDelay(t *testing.T) {
	_, maddr := startServer(t, "--repl-disable-tcp-nodelay", "yes", "--repl-diskless-sync-delay", "0")
	_, mport, _ := net.SplitHostPort(maddr)
	startServer(t, "--replicaof", "127.0.0.1", mport)
	m := difftest.Dial(t, maddr)
	var line string
	waitFor(t, func() bool {
		for _, l := range strings.Split(m.Do("CLIENT", "LIST"), "\n") {
			if strings.Contains(cliField(l, "flags"), "S") {
				line = l
				return true
			}
		}
		return false
	})
	fd, _ := strconv.Atoi(cliField(line, "fd"))
	if v := sockopt(t, fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY); v != 0 {
		t.Errorf("replica socket: TCP_NODELAY %d", v)
	}
	if v := sockopt(t, serverFd(t, m), syscall.IPPROTO_TCP, syscall.TCP_NODELAY); v == 0 {
		t.Error("a client's socket lost TCP_NODELAY")
	}
}

// TestBindSourceAddr: the connections the server opens (MIGRATE here)
// leave from bind-source-addr.
func TestBindSourceAddr(t *testing.T) {
	ip := nonLoopbackIP(t)
	_, dst := startServer(t, "--bind", "127.0.0.1 "+ip, "--protected-mode", "no")
	_, src := startServer(t, "--bind-source-addr", ip)
	c := difftest.Dial(t, src)
	c.Do("SET", "k", "v")
	host, port, _ := net.SplitHostPort(dst)
	if r := c.Do("MIGRATE", host, port, "k", "0", "5000", "COPY"); r != "+OK\r\n" {
		t.Fatalf("MIGRATE: %q", r)
	}
	seen := false
	for _, l := range strings.Split(difftest.Dial(t, dst).Do("CLIENT", "LIST"), "\n") {
		if a := cliField(l, "addr"); strings.HasPrefix(a, ip+":") {
			seen = true
		}
	}
	if !seen {
		t.Error("MIGRATE's connection did not come from bind-source-addr")
	}
}
