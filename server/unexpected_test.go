package server

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hotkv/hotkv/config"
	"github.com/hotkv/hotkv/internal/difftest"
)

// hookExit replaces exitProcess for the test: the status it was called
// with (0: not called) is returned by the function it returns.
func hookExit(t *testing.T) func() int64 {
	var code atomic.Int64
	exitProcess = func(c int) { code.Store(int64(c)) }
	t.Cleanup(func() { exitProcess = os.Exit })
	return code.Load
}

// TestPropagationErrorReplica: a command of the master's stream that
// fails on the replica (DEBUG REPLICATE of an unknown command, an INCRBY
// of a key the replica changed) is logged as Redis logs it and counted
// (unexpected_error_replies); propagation-error-behavior panic ends a
// read-only replica, not a writable one.
func TestPropagationErrorReplica(t *testing.T) {
	exited := hookExit(t)
	_, master := startServer(t, "--repl-diskless-sync-delay", "0", "--enable-debug-command", "yes")
	_, mport, _ := net.SplitHostPort(master)
	logfile := filepath.Join(t.TempDir(), "replica.log")
	_, replica := startServer(t, "--replicaof", "127.0.0.1", mport, "--logfile", logfile,
		"--propagation-error-behavior", "ignore")
	m, r := difftest.Dial(t, master), difftest.Dial(t, replica)
	waitFor(t, func() bool { return strings.Contains(r.Do("INFO", "replication"), "master_link_status:up") })
	synced := func() {
		t.Helper()
		m.Do("INCR", "sync")
		want := m.Do("GET", "sync")
		waitFor(t, func() bool { return r.Do("GET", "sync") == want })
	}
	m.Do("DEBUG", "REPLICATE", "fake-command-1")
	synced()
	log, _ := os.ReadFile(logfile)
	if !strings.Contains(string(log), "== CRITICAL == This replica is sending an error to its master: 'ERR unknown command 'fake-command-1'") {
		t.Errorf("no critical line in the replica's log:\n%s", log)
	}
	if got := between(r.Do("INFO", "stats"), "unexpected_error_replies:", "\r\n"); got != "1" {
		t.Errorf("unexpected_error_replies = %s, want 1", got)
	}
	if exited() != 0 {
		t.Fatalf("the replica exited under propagation-error-behavior ignore")
	}

	// A writable replica's divergence is allowed, whatever the behavior.
	r.Do("CONFIG", "SET", "propagation-error-behavior", "panic")
	r.Do("CONFIG", "SET", "replica-read-only", "no")
	r.Do("SET", "number2", "foo")
	m.Do("INCRBY", "number2", "1")
	synced()
	log, _ = os.ReadFile(logfile)
	if !strings.Contains(string(log), "after processing the command 'incrby'") || exited() != 0 {
		t.Errorf("a writable replica: exit status %d, log:\n%s", exited(), log)
	}

	// A read-only one panics.
	r.Do("CONFIG", "SET", "replica-read-only", "yes")
	m.Do("DEBUG", "REPLICATE", "fake-command-2")
	waitFor(t, func() bool { return exited() != 0 })
	if exited() != 134 {
		t.Errorf("exit status %d, want 134 (an abort)", exited())
	}
	log, _ = os.ReadFile(logfile)
	if !strings.Contains(string(log), "Guru Meditation: This replica panicked sending an error to its master") {
		t.Errorf("no panic in the log:\n%s", log)
	}
}

// TestPropagationErrorAOF: a command of the append-only file that fails
// when replayed is logged and counted; "panic" ends the load,
// "panic-on-replicas" and "ignore" do not.
func TestPropagationErrorAOF(t *testing.T) {
	for _, tc := range []struct {
		behavior string
		exit     int64
	}{{"ignore", 0}, {"panic-on-replicas", 0}, {"panic", 134}} {
		t.Run(tc.behavior, func(t *testing.T) {
			exited := hookExit(t)
			dir := t.TempDir()
			file := "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$3\r\nabc\r\n*2\r\n$4\r\nINCR\r\n$1\r\nk\r\n*3\r\n$3\r\nSET\r\n$4\r\ndone\r\n$1\r\n1\r\n"
			if err := os.WriteFile(filepath.Join(dir, "appendonly.aof"), []byte(file), 0o644); err != nil {
				t.Fatal(err)
			}
			logfile := filepath.Join(dir, "log")
			cfg, err := config.Load("", []string{"--port", "0", "--dir", dir, "--appendonly", "yes",
				"--logfile", logfile, "--propagation-error-behavior", tc.behavior})
			if err != nil {
				t.Fatal(err)
			}
			s := New(cfg)
			if err := s.OpenLog(); err != nil {
				t.Fatal(err)
			}
			if err := s.LoadData(); err != nil {
				t.Fatal(err)
			}
			defer s.closeAOF()
			if exited() != tc.exit {
				t.Errorf("exit status %d, want %d", exited(), tc.exit)
			}
			log, _ := os.ReadFile(logfile)
			if !strings.Contains(string(log), "== CRITICAL == This server is sending an error to its AOF-loading-client: 'ERR value is not an integer or out of range' after processing the command 'incr'") {
				t.Errorf("log:\n%s", log)
			}
			if got := s.stats.unexpectedErrors.Load(); got != 1 {
				t.Errorf("unexpected_error_replies = %d", got)
			}
		})
	}
}
