//go:build linux

package proctitle

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"unsafe"
)

// The tests run Set in a child (this test binary again, with
// PROCTITLE_CHILD naming what to do) so that the test process keeps its own
// title; the child prints what it found and the parent checks it.
const childEnv = "PROCTITLE_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "":
		os.Exit(m.Run())
	case "set":
		// Set the titles read from standard input (not an argument: it
		// would make the area longer) and print /proc/self/cmdline.
		in, err := io.ReadAll(os.Stdin)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		// Each line is a title, set in turn.
		for _, title := range strings.Split(string(in), "\n") {
			if err := Set(title); err != nil {
				fmt.Fprintln(os.Stderr, "Set:", err)
				os.Exit(2)
			}
		}
		b, err := os.ReadFile("/proc/self/cmdline")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Printf("size=%d getenv=%s\n", Size(), os.Getenv("PROCTITLE_EXTRA"))
		os.Stdout.Write(b)
		os.Exit(0)
	}
	os.Exit(3)
}

// runChild runs the test binary with the given extra arguments and
// environment, to set title; it returns Size's value, the value of
// PROCTITLE_EXTRA the child read after Set, and the child's cmdline.
func runChild(t *testing.T, title string, env []string, args ...string) (int, string, []byte) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^$"}, args...)...)
	cmd.Env = env
	cmd.Stdin = strings.NewReader(title)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, stderr.Bytes())
	}
	head, cmdline, ok := bytes.Cut(out, []byte("\n"))
	if !ok {
		t.Fatalf("child printed %q", out)
	}
	var size int
	var extra string
	if _, err := fmt.Sscanf(string(head), "size=%d getenv=%s", &size, &extra); err != nil && !strings.HasPrefix(string(head), fmt.Sprintf("size=%d getenv=", size)) {
		t.Fatalf("child printed %q: %v", head, err)
	}
	return size, extra, cmdline
}

// checkTitle checks that cmdline is want followed only by NULs.
func checkTitle(t *testing.T, cmdline []byte, want string) {
	t.Helper()
	if !bytes.HasPrefix(cmdline, []byte(want)) || strings.Trim(string(cmdline[len(want):]), "\x00") != "" {
		t.Fatalf("cmdline is %q, want %q followed by NULs", cmdline, want)
	}
}

// areaSize is what the kernel's argument and environment areas hold for
// argv and env: each string and its NUL.
func areaSize(argv, env []string) int {
	n := 0
	for _, s := range append(append([]string(nil), argv...), env...) {
		n += len(s) + 1
	}
	return n
}

func TestSetShort(t *testing.T) {
	long := strings.Repeat("x", 100) // the original arguments are longer than the title
	env := []string{childEnv + "=set", "PROCTITLE_EXTRA=still-here"}
	_, extra, cmdline := runChild(t, "TEST hello", env, long)
	checkTitle(t, cmdline, "TEST hello")
	if want := areaSize([]string{os.Args[0], "-test.run=^$", long}, nil); len(cmdline) != want {
		t.Errorf("cmdline is %d bytes, want the %d of the argument area", len(cmdline), want)
	}
	if extra != "still-here" {
		t.Errorf("os.Getenv after Set returned %q", extra)
	}
}

// TestSetIntoEnvironment: a title longer than the arguments reaches into
// the environment strings (as Redis's setproctitle does), and os.Getenv
// still returns the values (Go copied them at start-up).
func TestSetIntoEnvironment(t *testing.T) {
	env := []string{childEnv + "=set", "PROCTITLE_EXTRA=" + strings.Repeat("e", 200)}
	title := "TEST " + strings.Repeat("t", 150)
	_, extra, cmdline := runChild(t, title, env)
	checkTitle(t, cmdline, title)
	if extra != strings.Repeat("e", 200) {
		t.Errorf("os.Getenv after Set returned %q", extra)
	}
}

// TestSetTruncates: a title longer than the whole area is cut to the
// area's size less its final NUL.
func TestSetTruncates(t *testing.T) {
	env := []string{childEnv + "=set"}
	title := "TEST " + strings.Repeat("0123456789", 30)
	argv := []string{os.Args[0], "-test.run=^$"}
	size, _, cmdline := runChild(t, title, env)
	want := min(areaSize(argv, env)-1, maxTitle)
	if size != want {
		t.Fatalf("Size() = %d, want %d", size, want)
	}
	checkTitle(t, cmdline, title[:want])
	if len(cmdline) >= len(title) {
		t.Fatalf("cmdline %q is not truncated", cmdline)
	}
}

// TestArgsPointIntoArgv checks what the package relies on: the runtime
// builds os.Args without copying, so os.Args[0] is at the kernel's
// arg_start and the arguments follow one another, NUL-terminated.
func TestArgsPointIntoArgv(t *testing.T) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Skip("no /proc/self/stat:", err)
	}
	f, err := statFields(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if got := uintptr(unsafe.Pointer(unsafe.StringData(os.Args[0]))); got != f[0] {
		t.Fatalf("os.Args[0] is at %#x, arg_start is %#x", got, f[0])
	}
	if area == nil || argLen != int(f[1]-f[0]) {
		t.Fatalf("captured %d bytes of arguments (err %v), arg area is %d", argLen, initErr, f[1]-f[0])
	}
	if f[2] == f[1] && len(area) != int(f[3]-f[0]) {
		t.Fatalf("captured area of %d bytes, arguments and environment are %d", len(area), f[3]-f[0])
	}
}

// TestSetAgain: a shorter title after a longer one leaves no trace of the
// longer one, in the arguments or the environment.
func TestSetAgain(t *testing.T) {
	env := []string{childEnv + "=set", "PROCTITLE_EXTRA=" + strings.Repeat("e", 200)}
	_, _, cmdline := runChild(t, "TEST "+strings.Repeat("t", 150)+"\nshort", env)
	checkTitle(t, cmdline, "short")
}
