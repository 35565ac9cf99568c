//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// TestProcTitle: with set-proc-title yes (the default) the server sets its
// title from proc-title-template once it listens, and again on CONFIG SET
// proc-title-template, as Redis does; /proc/PID/cmdline shows the title
// followed only by NULs. An invalid template is refused with Redis's text.
func TestProcTitle(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	port := difftest.FreePort(t)
	sock := filepath.Join(dir, "socket")
	os.WriteFile(filepath.Join(dir, "redis.conf"), []byte(fmt.Sprintf(
		"port %d\nbind 127.0.0.1\nunixsocket %s\ndir %s\nlogfile %s\n",
		port, sock, dir, filepath.Join(dir, "log"))), 0o644)
	// A relative configuration path: {config-file} is its absolute path.
	pid := startTitled(t, bin, dir, "redis.conf")
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	if err := difftest.WaitReady(addr, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	c := difftest.Dial(t, addr)

	checkCmdline(t, pid, fmt.Sprintf("%s %s", bin, addr)) // "{title} {listen-addr} {server-mode}"

	if r := c.Do("CONFIG", "SET", "proc-title-template", "TEST {title} {port}"); r != "+OK\r\n" {
		t.Fatalf("CONFIG SET = %q", r)
	}
	checkCmdline(t, pid, fmt.Sprintf("TEST %s %d", bin, port))

	tmpl := "TEST {title} {listen-addr} {port} {tls-port} {unixsocket} {config-file} {{x}"
	if r := c.Do("CONFIG", "SET", "proc-title-template", tmpl); r != "+OK\r\n" {
		t.Fatalf("CONFIG SET = %q", r)
	}
	checkCmdline(t, pid, fmt.Sprintf("TEST %s %s %d 0 %s %s {x}", bin, addr, port, sock, filepath.Join(dir, "redis.conf")))

	want := "-ERR CONFIG SET failed (possibly related to argument 'proc-title-template') - template format is invalid or contains unknown variables\r\n"
	if r := c.Do("CONFIG", "SET", "proc-title-template", "{invalid-var}"); r != want {
		t.Fatalf("CONFIG SET of {invalid-var} = %q, want %q", r, want)
	}
	checkCmdline(t, pid, fmt.Sprintf("TEST %s %s %d 0 %s %s {x}", bin, addr, port, sock, filepath.Join(dir, "redis.conf")))
}

// TestProcTitleOff: with set-proc-title no the process keeps its arguments
// as its title, until CONFIG SET proc-title-template.
func TestProcTitleOff(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	port := difftest.FreePort(t)
	args := []string{"--port", fmt.Sprint(port), "--bind", "127.0.0.1", "--dir", dir, "--set-proc-title", "no"}
	pid := startTitled(t, bin, dir, args...)
	if err := difftest.WaitReady(fmt.Sprintf("127.0.0.1:%d", port), 10*time.Second); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Join(append([]string{bin}, args...), "\x00") + "\x00"; string(b) != want {
		t.Fatalf("cmdline is %q, want the arguments %q", b, want)
	}
	// CONFIG SET proc-title-template sets the title all the same, as
	// Redis's updateProcTitleTemplate does.
	c := difftest.Dial(t, fmt.Sprintf("127.0.0.1:%d", port))
	if r := c.Do("CONFIG", "SET", "proc-title-template", "TEST {port}"); r != "+OK\r\n" {
		t.Fatalf("CONFIG SET = %q", r)
	}
	checkCmdline(t, pid, fmt.Sprintf("TEST %d", port))
}

// startTitled starts bin in dir with args and waits until it serves.
func startTitled(t *testing.T, bin, dir string, args ...string) int {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd.Process.Pid
}

// checkCmdline checks that /proc/PID/cmdline is want followed only by NULs.
func checkCmdline(t *testing.T, pid int, want string) {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), want) || strings.Trim(string(b[len(want):]), "\x00") != "" {
		t.Fatalf("cmdline is %q, want %q followed by NULs", b, want)
	}
}
