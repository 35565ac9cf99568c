package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hotkv/hotkv/config"
	"github.com/hotkv/hotkv/internal/difftest"
)

// The package's tests share one redis-server and one HotKV server; each
// differential test starts with FLUSHALL on both (difftest.NewPair).
var shared struct {
	redis, hotkv string
	redisErr     error
	stopRedis    func()
	srv          *Server
	dir          string // the shared HotKV's directory, removed at the end
}

// TestMain. The test binary is also the server's background child (a
// BGSAVE's or rewrite's writer, package bgchild): child mode is entered by
// bgchild's init, before TestMain runs, so nothing here starts in a child.
func TestMain(m *testing.M) {
	shared.redis, shared.stopRedis, shared.redisErr = difftest.Launch()
	if shared.redisErr != nil {
		fmt.Fprintln(os.Stderr, "WARNING: differential tests will be SKIPPED:", shared.redisErr)
	}
	code := m.Run()
	stopSearchOracle()
	if shared.stopRedis != nil {
		shared.stopRedis()
	}
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

var startShared sync.Once

// startServer starts an in-process HotKV on a free port with the given
// "--directive value" arguments and returns it with its address.
func startServer(tb testing.TB, args ...string) (*Server, string) {
	tb.Helper()
	port := difftest.FreePort(tb)
	cfg, err := config.Load("", append(append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--io-threads", "4",
		"--dir", tb.TempDir(), "--save", ""}, tieringArgs()...), args...))
	if err != nil {
		tb.Fatal(err)
	}
	return serveConfig(tb, cfg)
}

// tieringTests is set by HOTKV_TEST_TIERING=1: the test servers run with
// the disk tier on, a one-byte budget and eager demotion, so that nearly
// every value is on disk between commands ("everything cold"), and the
// differential tests check that replies do not change.
var tieringTests = os.Getenv("HOTKV_TEST_TIERING") != ""

// tieringArgs are the directives of the tiering test mode.
func tieringArgs() []string {
	if !tieringTests {
		return nil
	}
	return []string{"--tiering", "yes", "--tiering-memory", "1"}
}

// serveConfig starts an in-process HotKV with cfg (its log opened, its
// data loaded), shut down when the test ends, and returns it with its
// address.
func serveConfig(tb testing.TB, cfg *config.Config) (*Server, string) {
	tb.Helper()
	return serveConfigWith(tb, cfg, func(s *Server) { s.setEagerTiering(tieringTests) })
}

// serveConfigWith is serveConfig with prep run on the new server before
// it loads and serves.
func serveConfigWith(tb testing.TB, cfg *config.Config, prep func(*Server)) (*Server, string) {
	tb.Helper()
	s := New(cfg)
	prep(s)
	if err := s.OpenLog(); err != nil { // logfile, when a test names one
		tb.Fatal(err)
	}
	if err := s.LoadData(); err != nil {
		tb.Fatal(err)
	}
	if err := s.Listen(); err != nil {
		tb.Fatal(err)
	}
	go s.Serve()
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	return s, s.Addr().String()
}

// sharedHotKV returns the address of the package's shared HotKV server.
func sharedHotKV(tb testing.TB) string {
	startShared.Do(func() {
		port := difftest.FreePort(tb)
		// Four event loops, so that the tests run clients in parallel
		// even on a 2-core machine.
		dir, err := os.MkdirTemp("", "hotkv-shared-")
		if err != nil {
			panic(err)
		}
		shared.dir = dir
		cfg, err := config.Load("", append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--io-threads", "4",
			"--dir", dir, "--save", ""}, tieringArgs()...))
		if err != nil {
			panic(err)
		}
		shared.srv = New(cfg)
		shared.srv.setEagerTiering(tieringTests)
		if err := shared.srv.Listen(); err != nil {
			panic(err)
		}
		go shared.srv.Serve()
		shared.hotkv = shared.srv.Addr().String()
	})
	return shared.hotkv
}

// newPair returns a differential pair over the shared servers, both
// flushed, or skips the test loudly when redis-server is unavailable.
func newPair(tb testing.TB) *difftest.Pair {
	tb.Helper()
	if shared.redisErr != nil {
		if errors.Is(shared.redisErr, difftest.ErrNoRedis) {
			tb.Skip("SKIPPING differential test: " + shared.redisErr.Error())
		}
		tb.Fatal(shared.redisErr)
	}
	return difftest.NewPair(tb, shared.redis, sharedHotKV(tb))
}
