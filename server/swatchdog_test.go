package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/difftest"
)

// TestSoftWatchdog: with watchdog-period set, a command whose handler
// runs longer logs Redis's WATCHDOG TIMER EXPIRED report, once, with the
// stack of the goroutine running it (integration/logging's "Server is
// able to generate a stack trace"); a shorter one, or the watchdog off,
// logs nothing.
func TestSoftWatchdog(t *testing.T) {
	logfile := filepath.Join(t.TempDir(), "log")
	_, addr := startServer(t, "--logfile", logfile, "--enable-debug-command", "yes")
	c := difftest.Dial(t, addr)
	reports := func() int {
		b, _ := os.ReadFile(logfile)
		return strings.Count(string(b), "--- WATCHDOG TIMER EXPIRED ---")
	}
	expect(t, c, "+OK\r\n", "DEBUG", "SLEEP", "0.3")
	if n := reports(); n != 0 {
		t.Fatalf("%d reports with the watchdog off", n)
	}
	expect(t, c, "+OK\r\n", "CONFIG", "SET", "watchdog-period", "200")
	expect(t, c, "+OK\r\n", "DEBUG", "SLEEP", "0.05")
	if n := reports(); n != 0 {
		t.Fatalf("%d reports after a short command", n)
	}
	expect(t, c, "+OK\r\n", "DEBUG", "SLEEP", "0.8")
	waitFor(t, func() bool { return reports() == 1 })
	b, _ := os.ReadFile(logfile)
	if !strings.Contains(string(b), "hotkv/server.cmdDebug(") || !strings.Contains(string(b), "# --------") {
		t.Errorf("the report has no stack of the command:\n%s", b)
	}
	expect(t, c, "+OK\r\n", "CONFIG", "SET", "watchdog-period", "0")
	expect(t, c, "+OK\r\n", "DEBUG", "SLEEP", "0.5")
	if n := reports(); n != 1 {
		t.Fatalf("%d reports after turning the watchdog off", n)
	}
}
