package aof

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// redisProc is a redis-server started on a directory of the test's, with
// appendonly yes, to see what it makes of the files there.
type redisProc struct {
	cmd     *exec.Cmd
	addr    string
	logPath string
	exited  chan struct{}
	start   func(port int) *exec.Cmd
}

// startRedisIn starts redis-server with "dir" dir and appendonly yes
// (extra arguments come last and override), skipping the test loudly when
// redis-server is not installed. It is killed when the test ends.
func startRedisIn(t *testing.T, dir string, extra ...string) *redisProc {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("SKIPPING differential test: " + difftest.ErrNoRedis.Error())
	}
	logPath := filepath.Join(t.TempDir(), "redis.log")
	p := &redisProc{logPath: logPath, start: func(port int) *exec.Cmd {
		args := append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "",
			"--appendonly", "yes", "--daemonize", "no", "--logfile", logPath}, extra...)
		return exec.Command(bin, args...)
	}}
	p.run(t)
	t.Cleanup(p.kill)
	return p
}

// run starts the server on a free port.
func (p *redisProc) run(t testing.TB) {
	port := difftest.FreePort(t)
	p.addr = "127.0.0.1:" + strconv.Itoa(port)
	p.cmd = p.start(port)
	p.exited = make(chan struct{})
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := p.exited
	go func() {
		p.cmd.Wait()
		close(exited)
	}()
}

// kill stops the server at once (SIGKILL: it writes nothing more).
func (p *redisProc) kill() {
	p.cmd.Process.Kill()
	<-p.exited
}

// waitReady waits until the server answers PING (it has loaded its data),
// or exits (false).
func (p *redisProc) waitReady(t testing.TB) bool {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-p.exited:
			if strings.Contains(p.log(), "Address already in use") {
				// Another process took the free port first (a busy
				// machine): start again on another one.
				os.Remove(p.logPath)
				p.run(t)
				continue
			}
			return false
		default:
		}
		if difftest.WaitReady(p.addr, 20*time.Millisecond) == nil {
			return true
		}
	}
	t.Fatalf("redis-server neither ready nor exited; log:\n%s", p.log())
	return false
}

// waitExit waits for the server to exit (a load that fails).
func (p *redisProc) waitExit(t testing.TB) {
	t.Helper()
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		t.Fatalf("redis-server did not exit; log:\n%s", p.log())
	}
}

func (p *redisProc) log() string {
	b, _ := os.ReadFile(p.logPath)
	return string(b)
}

var logHeader = regexp.MustCompile(`(?m)^\d+:[XCSM] \d\d [A-Z][a-z][a-z] \d{4} \d\d:\d\d:\d\d\.\d{3} [.\-*#] `)

// messages splits the log into the messages serverLog wrote, each with
// its final newline.
func (p *redisProc) messages() []string {
	log := p.log()
	idx := logHeader.FindAllStringIndex(log, -1)
	var out []string
	for i, m := range idx {
		end := len(log)
		if i+1 < len(idx) {
			end = idx[i+1][0]
		}
		out = append(out, log[m[1]:end])
	}
	return out
}

// conn connects to the server.
func (p *redisProc) conn(t testing.TB) *difftest.Conn { return difftest.Dial(t, p.addr) }

// copyDir copies the regular files of the tree src to dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(path string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if fi.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// writeFiles writes name -> content into dir, creating it.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// cmd encodes a command.
func cmd(args ...string) string { return string(AppendCommandStrings(nil, args...)) }

// fileSize returns the size of a file, -1 when it does not exist.
func fileSize(t *testing.T, path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return -1
	}
	return fi.Size()
}

// mustDo sends a command and checks the raw reply.
func mustDo(t *testing.T, c *difftest.Conn, want string, args ...string) {
	t.Helper()
	if got := c.Do(args...); got != want {
		t.Fatalf("%s: %q, want %q", strings.Join(args, " "), got, want)
	}
}
