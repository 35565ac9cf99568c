package server

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/config"
	"github.com/hotkv/hotkv/internal/difftest"
)

// TestLoadingAtStart: a server serves while it loads its snapshot, as
// Redis: commands without the loading flag get LOADING (PING, GET, a
// command queued in MULTI, so that EXEC aborts), INFO shows the load's
// progress, and once loaded every key is there. key-load-delay paces the
// load (5,000 keys at 400 µs: about 2 s); loading-process-events-interval-bytes
// 1024 lets clients in at once, as Redis's tests set it (by default a
// client waits for the first 2 MB: TestLoadingShortWaits).
func TestLoadingAtStart(t *testing.T) {
	dir := savedSnapshot(t, 5000)
	start := time.Now()
	loaded, r := loadAndServe(t, "--dir", dir, "--save", "", "--key-load-delay", "400",
		"--loading-process-events-interval-bytes", "1024")
	for _, cmd := range [][]string{{"PING"}, {"GET", "key:1"}, {"DBSIZE"}} {
		if got := r.Do(cmd...); got != "-"+errLoading+"\r\n" {
			t.Errorf("%v while loading: %q", cmd, got)
		}
	}
	info := r.Do("INFO", "persistence")
	for _, want := range []string{"loading:1\r\n", "async_loading:0\r\n", "loading_total_bytes:", "loading_loaded_perc:", "loading_eta_seconds:"} {
		if !strings.Contains(info, want) {
			t.Errorf("INFO while loading lacks %q:\n%s", want, info)
		}
	}
	if got := r.Do("MULTI"); got != "+OK\r\n" {
		t.Fatalf("MULTI while loading: %q", got)
	}
	r.Do("SET", "x", "1")
	if got := r.Do("EXEC"); !strings.HasPrefix(got, "-EXECABORT") {
		t.Errorf("EXEC after a refused command: %q", got)
	}
	if err := <-loaded; err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 2*time.Second || d > 30*time.Second {
		t.Errorf("the load took %v; key-load-delay 400 over 5,000 keys asks for about 2s", d)
	}
	if got := r.Do("DBSIZE"); got != ":5000\r\n" {
		t.Errorf("DBSIZE after the load: %q", got)
	}
	if info := r.Do("INFO", "persistence"); !strings.Contains(info, "loading:0\r\n") || strings.Contains(info, "loading_total_bytes") {
		t.Errorf("INFO after the load:\n%s", info)
	}
}

// TestLoadingShortWaits: a client that connects during a load shorter
// than loading-process-events-interval-bytes (2 MB) waits for it and is
// then served, as by Redis, which runs no event during such a load:
// never LOADING for a small snapshot. (A server answering LOADING to the
// clients that connect right after it starts breaks those, such as the
// client libraries' test suites, that do not retry.)
func TestLoadingShortWaits(t *testing.T) {
	dir := savedSnapshot(t, 1000)
	loaded, r := loadAndServe(t, "--dir", dir, "--save", "", "--key-load-delay", "300") // about 0.3 s
	if got := r.Do("DBSIZE"); got != ":1000\r\n" {
		t.Errorf("DBSIZE of a client that connected during the load: %q", got)
	}
	select {
	case err := <-loaded:
		if err != nil {
			t.Fatal(err)
		}
	default:
		t.Error("a client was served before the load ended")
	}
}

// TestLoadingAOFBase: an append-only file's RDB base counts toward
// loading-process-events-interval-bytes as a snapshot does: past it,
// clients are let in and answered LOADING until the load ends.
func TestLoadingAOFBase(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--dir", dir, "--save", "", "--appendonly", "yes", "--enable-debug-command", "yes"}
	src, addr := startServer(t, args...)
	c := difftest.Dial(t, addr)
	c.Do("DEBUG", "POPULATE", "3000", "key", "100")
	if got := c.Do("BGREWRITEAOF"); !strings.HasPrefix(got, "+") {
		t.Fatalf("BGREWRITEAOF: %q", got)
	}
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(c.Do("INFO", "persistence"), "aof_rewrite_in_progress:0\r\naof_rewrite_scheduled:0"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the rewrite did not end")
		}
	}
	src.Shutdown(context.Background())

	loaded, r := loadAndServe(t, append(args, "--key-load-delay", "300", "--loading-process-events-interval-bytes", "1024")...)
	if got := r.Do("DBSIZE"); got != "-"+errLoading+"\r\n" {
		t.Errorf("DBSIZE while the base loads: %q", got)
	}
	if err := <-loaded; err != nil {
		t.Fatal(err)
	}
	if got := r.Do("DBSIZE"); got != ":3000\r\n" {
		t.Errorf("DBSIZE after the load: %q", got)
	}
}

// savedSnapshot returns a directory whose dump.rdb holds n keys of 100
// bytes (DEBUG POPULATE).
func savedSnapshot(t *testing.T, n int) string {
	dir := t.TempDir()
	src, addr := startServer(t, "--dir", dir, "--enable-debug-command", "yes")
	c := difftest.Dial(t, addr)
	c.Do("DEBUG", "POPULATE", strconv.Itoa(n), "key", "100")
	if got := c.Do("SAVE"); got != "+OK\r\n" {
		t.Fatalf("SAVE: %q", got)
	}
	src.Shutdown(context.Background())
	return dir
}

// loadAndServe starts a server with args (and a port of its own) as
// cmd/hotkv does, loading while it serves; it returns the channel of the
// load's result and a client connected at once.
func loadAndServe(t *testing.T, args ...string) (<-chan error, *difftest.Conn) {
	t.Helper()
	cfg, err := config.Load("", append([]string{"--port", strconv.Itoa(difftest.FreePort(t)), "--bind", "127.0.0.1"}, args...))
	if err != nil {
		t.Fatal(err)
	}
	s := New(cfg)
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	loaded := make(chan error, 1)
	go s.LoadAndServe(func(err error) { loaded <- err })
	t.Cleanup(func() { s.Shutdown(context.Background()) })
	return loaded, difftest.Dial(t, s.Addr().String())
}
