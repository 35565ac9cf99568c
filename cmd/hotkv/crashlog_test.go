package main

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// TestCrashReport: SIGABRT sent to the server, and DEBUG SEGFAULT, log
// Redis's bug report (the signal, the stacks, INFO) and end the process
// as the signal would (128 + its number); with crash-log-enabled no, only
// the end.
func TestCrashReport(t *testing.T) {
	bin := buildBinary(t)
	for _, tc := range []struct {
		name   string
		report bool
		crash  func(cmd *exec.Cmd, addr string)
		sig    syscall.Signal
	}{
		{"sigabrt", true, func(cmd *exec.Cmd, _ string) { cmd.Process.Signal(syscall.SIGABRT) }, syscall.SIGABRT},
		{"debug-segfault", true, func(_ *exec.Cmd, addr string) {
			c := difftest.Dial(t, addr)
			c.Send([]byte("*2\r\n$5\r\nDEBUG\r\n$8\r\nSEGFAULT\r\n"))
		}, syscall.SIGSEGV},
		{"no-crash-log", false, func(cmd *exec.Cmd, _ string) { cmd.Process.Signal(syscall.SIGABRT) }, syscall.SIGABRT},
	} {
		t.Run(tc.name, func(t *testing.T) {
			port := difftest.FreePort(t)
			addr := fmt.Sprintf("127.0.0.1:%d", port)
			var out bytes.Buffer
			cmd := exec.Command(bin, "--port", fmt.Sprint(port), "--bind", "127.0.0.1", "--dir", t.TempDir(), "--save", "",
				"--enable-debug-command", "yes", "--crash-log-enabled", map[bool]string{true: "yes", false: "no"}[tc.report])
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill() })
			if err := difftest.WaitReady(addr, 10*time.Second); err != nil {
				t.Fatal(err)
			}
			tc.crash(cmd, addr)
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 128+int(tc.sig) {
				t.Errorf("exit: %v, want status %d", err, 128+int(tc.sig))
			}
			log := out.String()
			want := fmt.Sprintf("crashed by signal: %d", tc.sig)
			if got := strings.Contains(log, want) && strings.Contains(log, "------ STACK TRACE ------") &&
				strings.Contains(log, "------ INFO OUTPUT ------"); got != tc.report {
				t.Errorf("report logged: %v, want %v:\n%s", got, tc.report, log)
			}
		})
	}
}
