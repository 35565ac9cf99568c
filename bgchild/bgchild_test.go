package bgchild

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary is its own child: init dispatches child mode.

func TestRDBWritesAndRenames(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "dump.rdb")
	c, err := Start(Job{Kind: RDB, Dir: dir, Target: target})
	if err != nil {
		t.Fatal(err)
	}
	want := bytes.Repeat([]byte("0123456789abcdef"), 300000) // several frames
	for p := want; len(p) > 0; {
		n := min(len(p), 70000)
		if _, err := c.Write(p[:n]); err != nil {
			t.Fatal(err)
		}
		p = p[n:]
	}
	st := c.Finish(true)
	if !st.OK() {
		t.Fatalf("status %+v", st)
	}
	if len(st.Log) != 1 || st.Log[0] != "*DB saved on disk" {
		t.Fatalf("log %q", st.Log)
	}
	got, err := os.ReadFile(target)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("target: %d bytes, %v", len(got), err)
	}
	if _, err := os.Stat(c.TempPath()); !os.IsNotExist(err) {
		t.Fatalf("temp file left: %v", err)
	}
}

func TestAOFRewriteLeavesTempFile(t *testing.T) {
	dir := t.TempDir()
	c, err := Start(Job{Kind: AOFRewrite, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("*1\r\n$4\r\nPING\r\n"))
	if st := c.Finish(true); !st.OK() {
		t.Fatalf("status %+v", st)
	}
	if !strings.HasSuffix(c.TempPath(), "temp-rewriteaof-bg-"+strconv.Itoa(c.Pid())+".aof") {
		t.Fatal(c.TempPath())
	}
	if b, err := os.ReadFile(c.TempPath()); err != nil || string(b) != "*1\r\n$4\r\nPING\r\n" {
		t.Fatalf("%q %v", b, err)
	}
}

// A job the parent abandons leaves nothing behind.
func TestAbort(t *testing.T) {
	dir := t.TempDir()
	c, err := Start(Job{Kind: RDB, Dir: dir, Target: filepath.Join(dir, "dump.rdb")})
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("partial"))
	st := c.Finish(false)
	if st.OK() || st.Code != 1 || st.Signal != 0 {
		t.Fatalf("status %+v", st)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("left %v", ents)
	}
}

// SIGKILL from outside fails the job; a write after it fails; Done closes.
func TestKilledFromOutside(t *testing.T) {
	dir := t.TempDir()
	c, err := Start(Job{Kind: RDB, Dir: dir, Target: filepath.Join(dir, "dump.rdb")})
	if err != nil {
		t.Fatal(err)
	}
	syscall.Kill(c.Pid(), syscall.SIGKILL)
	select {
	case <-c.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("exit not seen")
	}
	var werr error
	for i := 0; i < 8 && werr == nil; i++ {
		_, werr = c.Write(make([]byte, chunk))
	}
	if !errors.Is(werr, syscall.EPIPE) {
		t.Fatalf("write after death: %v", werr)
	}
	st := c.Finish(true)
	if st.Signal != syscall.SIGKILL || st.Killed() || st.Err() == nil {
		t.Fatalf("status %+v", st)
	}
}

// Kill (SIGUSR1) is reported as Redis's whitelisted signal.
func TestKill(t *testing.T) {
	dir := t.TempDir()
	c, err := Start(Job{Kind: AOFRewrite, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("x"))
	c.flush()
	c.Kill()
	<-c.Done()
	st := c.Finish(false)
	if !st.Killed() || st.Signal != syscall.SIGUSR1 {
		t.Fatalf("status %+v", st)
	}
}

func TestOOMScoreAdj(t *testing.T) {
	base, err := os.ReadFile("/proc/self/oom_score_adj")
	if err != nil {
		t.Skip(err)
	}
	want := min(atoi(string(base))+7, 1000) // raising the score needs no privilege
	dir := t.TempDir()
	c, err := Start(Job{Kind: RDB, Dir: dir, Target: filepath.Join(dir, "dump.rdb"), OOMScoreAdj: want, SetOOMScoreAdj: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Finish(false)
	path := "/proc/" + strconv.Itoa(c.Pid()) + "/oom_score_adj"
	for i := 0; ; i++ {
		b, _ := os.ReadFile(path)
		if atoi(string(b)) == want {
			return
		}
		if i == 500 {
			t.Fatalf("child's oom_score_adj %q, want %d", b, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func atoi(s string) int { n, _ := strconv.Atoi(strings.TrimSpace(s)); return n }

func TestMissingExecutable(t *testing.T) {
	SetExecutable("/nonexistent/hotkv")
	defer SetExecutable("")
	if _, err := Start(Job{Kind: RDB, Dir: t.TempDir()}); err == nil {
		t.Fatal("started")
	}
}

func TestWriteErrorIsLogged(t *testing.T) {
	dir := t.TempDir()
	c, err := Start(Job{Kind: RDB, Dir: filepath.Join(dir, "missing"), Target: filepath.Join(dir, "dump.rdb")})
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("x"))
	st := c.Finish(true)
	if st.Code != 1 || len(st.Log) != 1 || !strings.HasPrefix(st.Log[0], "#Failed opening the temp RDB file temp-") ||
		!strings.HasSuffix(st.Log[0], "for saving: No such file or directory") {
		t.Fatalf("status %+v", st)
	}
}

// A stopped child (its pipe full, the writer blocked) is still killed:
// the writer gets an error at once, the child SIGKILL after the grace.
func TestKillStoppedChild(t *testing.T) {
	dir := t.TempDir()
	c, err := Start(Job{Kind: AOFRewrite, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	syscall.Kill(c.Pid(), syscall.SIGSTOP)
	werr := make(chan error, 1)
	go func() {
		var err error
		for err == nil {
			_, err = c.Write(make([]byte, chunk))
		}
		werr <- err
	}()
	time.Sleep(100 * time.Millisecond) // the pipe fills up
	start := time.Now()
	c.Kill()
	select {
	case <-werr:
	case <-time.After(time.Second):
		t.Fatal("the writer stayed blocked after Kill")
	}
	st := c.Finish(false)
	if !st.Killed() {
		t.Fatalf("status %+v", st)
	}
	if d := time.Since(start); d > killGrace+3*time.Second {
		t.Errorf("killed after %v", d)
	}
}

// A Sockets child sends the job's bytes back through its output pipe (the
// rdb pipe) and ends it with end of file; it writes no file.
func TestSocketsPipesBack(t *testing.T) {
	dir := t.TempDir()
	c, err := Start(Job{Kind: Sockets, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if c.TempPath() != "" {
		t.Fatalf("temp path %q", c.TempPath())
	}
	want := bytes.Repeat([]byte("0123456789abcdef"), 300000) // several frames
	got := make(chan []byte)
	go func() { b, _ := io.ReadAll(c.Output()); got <- b }()
	for p := want; len(p) > 0; {
		n := min(len(p), 70000)
		if _, err := c.Write(p[:n]); err != nil {
			t.Fatal(err)
		}
		p = p[n:]
	}
	st := c.Finish(true)
	if !st.OK() || len(st.Log) != 0 {
		t.Fatalf("status %+v", st)
	}
	if b := <-got; !bytes.Equal(b, want) {
		t.Fatalf("read back %d bytes of %d", len(b), len(want))
	}
	c.CloseOutput()
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("left %v", ents)
	}
}

// A Sockets child killed with kill -9 ends its output (end of file), and
// the job fails with the signal; one whose reader closed the pipe fails.
func TestSocketsChildDeath(t *testing.T) {
	c, err := Start(Job{Kind: Sockets})
	if err != nil {
		t.Fatal(err)
	}
	wrote := make(chan struct{})
	go func() {
		c.Write(make([]byte, 3*chunk/2)) // the output pipe fills: the child waits
		close(wrote)
	}()
	time.Sleep(100 * time.Millisecond)
	syscall.Kill(c.Pid(), syscall.SIGKILL)
	done := make(chan error, 1)
	go func() { _, err := io.Copy(io.Discard, c.Output()); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no end of file after the child's death")
	}
	<-wrote
	if st := c.Finish(true); st.Signal != syscall.SIGKILL {
		t.Fatalf("status %+v", st)
	}
	c.CloseOutput()

	c, err = Start(Job{Kind: Sockets})
	if err != nil {
		t.Fatal(err)
	}
	c.CloseOutput() // nobody reads: the child's write fails (EPIPE, not SIGPIPE)
	c.Write([]byte("payload"))
	st := c.Finish(true)
	if st.Code != 1 || st.Signal != 0 || len(st.Log) != 0 {
		t.Fatalf("status %+v", st)
	}
}
