package server

import (
	"bufio"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// nonLoopbackIP returns an address of this host that is not a loopback
// one, or skips the test.
func nonLoopbackIP(t *testing.T) string {
	t.Helper()
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			return n.IP.String()
		}
	}
	t.Skip("SKIPPING: this host has no non-loopback IPv4 address")
	return ""
}

// firstLine connects to addr and returns the first line the server sends
// unasked ("" when it sends none within a short wait) after PING.
func firstLine(t *testing.T, addr string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte("PING\r\n"))
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	line, _ := bufio.NewReader(c).ReadString('\n')
	return line
}

// TestProtectedModeMatchesRedis: with protected-mode on and no password, a
// client from a non-loopback address gets Redis's DENIED error; from the
// loopback, with protected-mode off, or with a password, it is served.
func TestProtectedModeMatchesRedis(t *testing.T) {
	ip := nonLoopbackIP(t)
	bind := "127.0.0.1 " + ip
	_, haddr := startServer(t, "--bind", bind)
	raddr := difftest.StartRedis(t, "--bind", bind)
	_, hport, _ := net.SplitHostPort(haddr)
	_, rport, _ := net.SplitHostPort(raddr)
	at := net.JoinHostPort

	want := firstLine(t, at(ip, rport))
	if want != "-"+errProtectedMode+"\r\n" {
		t.Fatalf("redis-server: %q", want)
	}
	if got := firstLine(t, at(ip, hport)); got != want {
		t.Errorf("non-loopback client: %q", got)
	}
	if got := firstLine(t, at("127.0.0.1", hport)); got != "+PONG\r\n" {
		t.Errorf("loopback client: %q", got)
	}
	local := difftest.Dial(t, at("127.0.0.1", hport))
	if r := local.Do("INFO", "stats"); !strings.Contains(r, "rejected_connections:1\r\n") {
		t.Errorf("rejected_connections: %q", r)
	}
	local.Do("CONFIG", "SET", "protected-mode", "no")
	if got := firstLine(t, at(ip, hport)); got != "+PONG\r\n" {
		t.Errorf("protected-mode no: %q", got)
	}
	local.Do("CONFIG", "SET", "protected-mode", "yes")
	local.Do("CONFIG", "SET", "requirepass", "pw")
	if got := firstLine(t, at(ip, hport)); got != "-NOAUTH Authentication required.\r\n" {
		t.Errorf("with a password: %q", got)
	}
}

// TestEmptyBind: CONFIG SET bind "" closes the TCP listeners (Redis's
// listenToPort with no address), and a bind brings them back.
func TestEmptyBind(t *testing.T) {
	_, addr := startServer(t)
	c := difftest.Dial(t, addr)
	if r := c.Do("CONFIG", "SET", "bind", ""); r != "+OK\r\n" {
		t.Fatalf("CONFIG SET bind '': %q", r)
	}
	if conn, err := net.Dial("tcp", addr); err == nil {
		conn.Close()
		t.Error("a client connected with an empty bind")
	}
	if r := c.Do("CONFIG", "SET", "bind", "127.0.0.1"); r != "+OK\r\n" {
		t.Fatalf("CONFIG SET bind 127.0.0.1: %q", r)
	}
	if r := difftest.Dial(t, addr).Do("PING"); r != "+PONG\r\n" {
		t.Errorf("after binding again: %q", r)
	}
}
