package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// childrenOf returns the pids of the processes whose parent is pid (what
// Redis's get_child_pid finds with pgrep -P).
func childrenOf(pid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if ppid, _ := strconv.Atoi(f[1]); ppid == pid && f[0] != "Z" {
			out = append(out, n)
		}
	}
	return out
}

// alive reports whether pid runs (not gone, not a zombie).
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return f[0] != "Z"
}

// TestBgsaveChildDiesWithServer: the child of a BGSAVE (slowed down by
// rdb-key-save-delay) is a child of the server, titled as Redis's, and
// when the server is killed with SIGKILL it exits too and leaves no
// temporary file; SIGTERM kills it as Redis's shutdown does and removes
// the file.
func TestBgsaveChildDiesWithServer(t *testing.T) {
	bin := buildBinary(t)
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) { testBgsaveChildDies(t, bin, sig) })
	}
}

func testBgsaveChildDies(t *testing.T, bin string, sig syscall.Signal) {
	dir := t.TempDir()
	p := startHotKV(t, bin, "--dir", dir, "--save", "")
	c := difftest.Dial(t, p.addr)
	c.Do("SET", "a", "1")
	c.Do("SET", "b", "2")
	c.Do("CONFIG", "SET", "rdb-key-save-delay", "10000000")
	if got := c.Do("BGSAVE"); got != "+Background saving started\r\n" {
		t.Fatalf("BGSAVE: %q", got)
	}
	kids := childrenOf(p.cmd.Process.Pid)
	if len(kids) != 1 {
		t.Fatalf("children of the server: %v", kids)
	}
	child := kids[0]
	cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(child) + "/cmdline")
	if got := strings.TrimRight(string(cmdline), "\x00"); got != "redis-rdb-bgsave" {
		t.Errorf("child's title %q", got)
	}
	tmp := filepath.Join(dir, "temp-"+strconv.Itoa(child)+".rdb")
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(tmp); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not created", tmp)
		}
	}
	p.cmd.Process.Signal(sig)
	p.wait(t)
	if sig == syscall.SIGTERM && !strings.Contains(p.out.String(), "There is a child saving an .rdb. Killing it!") {
		t.Errorf("log:\n%s", p.out)
	}
	for deadline := time.Now().Add(5 * time.Second); alive(child); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("child %d still running after its server was killed", child)
		}
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(tmp); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s left behind", tmp)
		}
	}
}
