package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// The tests of this file check what Redis's test harness needs to run
// the binary as src/redis-server (tests/support/server.tcl).

// TestVersion: `--version` prints as redis-server's.
func TestVersion(t *testing.T) {
	bin := buildBinary(t)
	for _, flag := range []string{"--version", "-v"} {
		out, err := exec.Command(bin, flag).Output()
		if err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`^Redis server v=7\.0\.15 sha=[0-9a-f]{8}:0 malloc=\S+ bits=64 build=\S+\n$`).Match(out) {
			t.Errorf("%s printed %q", flag, out)
		}
	}
}

// logLine is Redis's log layout.
var logLine = regexp.MustCompile(`^\d+:M \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d\.\d{3} [.\-*#] `)

// TestStartLikeRedis starts the binary with a configuration like the
// harness's: the log goes to logfile in Redis's format with the logo's
// PID line, pidfile holds the pid, the unix socket serves, and SIGTERM
// ends it with Redis's lines, removing the pid file.
func TestStartLikeRedis(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	logfile, pidfile, sock := filepath.Join(dir, "server.log"), filepath.Join(dir, "redis.pid"), filepath.Join(dir, "socket")
	port := difftest.FreePort(t)
	conf := filepath.Join(dir, "redis.conf")
	os.WriteFile(conf, []byte(fmt.Sprintf("always-show-logo yes\ndaemonize no\npidfile %s\nport %d\nbind 127.0.0.1\n"+
		"loglevel verbose\nlogfile %s\nunixsocket %s\nsave 900 1\ndir %s\nenable-debug-command yes\n",
		pidfile, port, logfile, sock, dir)), 0o644)
	cmd := exec.Command(bin, conf)
	out, _ := os.Create(filepath.Join(dir, "stdout"))
	defer out.Close()
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	pid := cmd.Process.Pid
	readLog := func() string { b, _ := os.ReadFile(logfile); return string(b) }
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(readLog(), "Ready to accept connections") {
		if time.Now().After(deadline) {
			t.Fatalf("no 'Ready to accept connections' in the log file:\n%s", readLog())
		}
		time.Sleep(20 * time.Millisecond)
	}
	log := readLog()
	for _, want := range []string{
		"# oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo\n",
		fmt.Sprintf("# Redis version=7.0.15, bits=64, commit=00000000, modified=0, pid=%d, just started\n", pid),
		"# Configuration loaded\n",
		fmt.Sprintf(" PID: %d\n", pid),
		"# Server initialized\n",
		"* The server is now ready to accept connections at " + sock + "\n",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	if b, _ := os.ReadFile(pidfile); string(b) != strconv.Itoa(pid)+"\n" {
		t.Errorf("pid file holds %q, want %d", b, pid)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "stdout")); len(b) != 0 {
		t.Errorf("stdout written with logfile set: %q", b)
	}

	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	c.Write(difftest.Encode("PING"))
	if line, _ := difftest.ReadReply(bufio.NewReader(c)); line != "+PONG\r\n" {
		t.Errorf("PING on the unix socket = %q", line)
	}
	c.Close()

	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no exit within 10 s of SIGTERM")
	}
	log = readLog()
	for _, want := range []string{"# Received SIGTERM scheduling shutdown...\n", "# User requested shutdown...\n",
		"* Saving the final RDB snapshot before exiting.\n", "* Removing the pid file.\n",
		"# Redis is now ready to exit, bye bye...\n"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	if _, err := os.Stat(pidfile); !os.IsNotExist(err) {
		t.Errorf("pid file left behind: %v", err)
	}
	inLogo := false
	for _, line := range strings.Split(strings.TrimSuffix(log, "\n"), "\n") {
		switch {
		case strings.Contains(line, "                _._"):
			inLogo = true
		case inLogo:
			inLogo = line != ""
		case !logLine.MatchString(line):
			t.Errorf("not in Redis's log layout: %q", line)
		}
	}
}

// TestRefusedAtStartup: what HotKV cannot do is refused with an error
// naming the directive, never ignored; so are unknown directives, a log
// file that cannot be opened, and ACL users that do not load (Redis's
// errors).
func TestRefusedAtStartup(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	for _, tc := range []struct{ args, want string }{
		{"--daemonize yes", "Unsupported directive 'daemonize yes'"},
		{"--supervised systemd", "Unsupported directive 'supervised systemd'"},
		{"--cluster-enabled yes", "Unsupported directive 'cluster-enabled yes'"},
		{"--tls-port 1", "Unsupported directive 'tls-port 1'"},
		{"--user foo --user foo", "Error in user declaration 'foo': Duplicate user found"},
		{"--user foo on bad", "Error in user declaration 'foo': Syntax error"},
		{"--user foo --aclfile users.acl", "Configuring Redis with users defined in redis.conf and at the same setting an ACL file path is invalid"},
		{"--rename-command FLUSHDB x", "Unsupported directive 'rename-command FLUSHDB x'"},
		{"--aclfile " + filepath.Join(dir, "missing.acl"), "Aborting Redis startup because of ACL errors: Error loading ACLs, opening file"},
		{"--no-such-directive 1", "Bad directive or wrong number of arguments"},
		{"--logfile " + filepath.Join(dir, "missing", "x.log"), "Can't open the log file"},
	} {
		args := append(strings.Fields(tc.args), "--port", strconv.Itoa(difftest.FreePort(t)), "--dir", dir)
		cmd := exec.Command(bin, args...)
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Errorf("%s: started (exit 0):\n%s", tc.args, out)
			continue
		}
		if !strings.Contains(string(out), tc.want) {
			t.Errorf("%s: output lacks %q:\n%s", tc.args, tc.want, out)
		}
	}
}
