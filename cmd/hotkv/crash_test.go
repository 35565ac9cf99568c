//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/hotkv/hotkv/internal/difftest"
)

// Crash and fault tests of the append-only file, on the real binary:
// SIGKILL at random moments under concurrent writers, write errors of the
// incremental file, and torn or corrupt files at start-up.

// crashConn is a RESP connection that returns errors instead of failing
// the test: it is used from writer goroutines, against a server that may
// be killed at any moment.
type crashConn struct {
	c net.Conn
	r *bufio.Reader
}

func dialCrash(addr string) (*crashConn, error) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	return &crashConn{c: c, r: bufio.NewReader(c)}, nil
}

// do sends one command and returns its raw reply.
func (c *crashConn) do(args ...string) (string, error) {
	c.c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.c.Write(difftest.Encode(args...)); err != nil {
		return "", err
	}
	return difftest.ReadReply(c.r)
}

func (c *crashConn) close() { c.c.Close() }

// The operations of a crash writer, in the order it runs them.
const (
	opIncr = iota // INCR w<i>
	opPush        // RPUSH l<i> e<new length>
	opSet         // SET s<i> <sequence number>
	opTxn         // MULTI, INCR ta<i>, INCR tb<i>, EXEC
	numOps
	opNone = -1
)

// writerState is what one writer knows the server acknowledged: the
// value of its counter, the length of its list, the sequence number in
// its string, the value of both counters of its transactions. pending is
// the operation whose reply did not come (opNone when none): only that
// one may or may not have landed.
type writerState struct {
	ctr, list, str, txn int64
	pending             int
	ops                 int
	// fault is an unexpected reply, or a connection error before the
	// kill.
	fault string
}

func replyInt(reply string) (int64, bool) {
	if !strings.HasPrefix(reply, ":") || !strings.HasSuffix(reply, "\r\n") {
		return 0, false
	}
	n, err := strconv.ParseInt(reply[1:len(reply)-2], 10, 64)
	return n, err == nil
}

// run does the writer's operations until the connection fails.
func (w *writerState) run(c *crashConn, i int, killed *atomic.Bool) {
	id := strconv.Itoa(i)
	fail := func(op string, reply string, err error) {
		if err != nil {
			if !killed.Load() {
				w.fault = fmt.Sprintf("%s: connection error before the kill: %v", op, err)
			}
			return
		}
		w.fault = fmt.Sprintf("%s: unexpected reply %q", op, reply)
	}
	for n := 0; ; n++ {
		op := n % numOps
		w.pending = op
		switch op {
		case opIncr:
			r, err := c.do("INCR", "w"+id)
			if v, ok := replyInt(r); err != nil || !ok || v != w.ctr+1 {
				fail("INCR", r, err)
				return
			}
			w.ctr++
		case opPush:
			r, err := c.do("RPUSH", "l"+id, "e"+strconv.FormatInt(w.list+1, 10))
			if v, ok := replyInt(r); err != nil || !ok || v != w.list+1 {
				fail("RPUSH", r, err)
				return
			}
			w.list++
		case opSet:
			r, err := c.do("SET", "s"+id, strconv.FormatInt(w.str+1, 10))
			if err != nil || r != "+OK\r\n" {
				fail("SET", r, err)
				return
			}
			w.str++
		case opTxn:
			for _, cmd := range [][]string{{"MULTI"}, {"INCR", "ta" + id}, {"INCR", "tb" + id}} {
				r, err := c.do(cmd...)
				if err != nil || (r != "+OK\r\n" && r != "+QUEUED\r\n") {
					fail(cmd[0], r, err)
					return
				}
			}
			r, err := c.do("EXEC")
			want := fmt.Sprintf("*2\r\n:%d\r\n:%d\r\n", w.txn+1, w.txn+1)
			if err != nil || r != want {
				fail("EXEC", r, err)
				return
			}
			w.txn++
		}
		w.pending = opNone
		w.ops++
	}
}

// bulkInt parses a bulk string reply holding an integer ($-1: 0).
func bulkInt(t *testing.T, what, reply string) int64 {
	t.Helper()
	if reply == "$-1\r\n" {
		return 0
	}
	lines := strings.Split(reply, "\r\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "$") {
		t.Fatalf("%s: not a bulk string: %q", what, reply)
	}
	n, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil {
		t.Fatalf("%s: not an integer: %q", what, reply)
	}
	return n
}

// loadWriterState reads writer i's keys from the server.
func loadWriterState(t *testing.T, c *difftest.Conn, i int) (w writerState, ta, tb int64, last string) {
	t.Helper()
	id := strconv.Itoa(i)
	w.pending = opNone
	w.ctr = bulkInt(t, "GET w"+id, c.Do("GET", "w"+id))
	n, ok := replyInt(c.Do("LLEN", "l"+id))
	if !ok {
		t.Fatalf("LLEN l%s failed", id)
	}
	w.list = n
	last = c.Do("LINDEX", "l"+id, "-1")
	w.str = bulkInt(t, "GET s"+id, c.Do("GET", "s"+id))
	ta = bulkInt(t, "GET ta"+id, c.Do("GET", "ta"+id))
	tb = bulkInt(t, "GET tb"+id, c.Do("GET", "tb"+id))
	w.txn = ta
	return w, ta, tb, last
}

// TestCrashAlwaysKeepsAcknowledgedWrites: with appendfsync always, every
// write acknowledged before a SIGKILL is there after the restart, and a
// transaction is there whole or not at all.
func TestCrashAlwaysKeepsAcknowledgedWrites(t *testing.T) {
	testCrashKeepsAcknowledgedWrites(t, "always")
}

// With everysec, at most about a second of acknowledged writes may be
// missing, as the issue and Redis promise: replies normally go out after
// the AOF bytes were handed to the kernel with write(2) (which a SIGKILL
// does not lose), but while a background fsync runs the write is
// postponed for up to two seconds, as Redis postpones it, and the replies
// are not held. Every value must fall between what the cycle started with
// and what was acknowledged, and transactions stay whole.
func TestCrashEverysecKeepsAcknowledgedWrites(t *testing.T) {
	testCrashKeepsAcknowledgedWrites(t, "everysec")
}

// TestCrashAlwaysWithTiering is TestCrashAlwaysKeepsAcknowledgedWrites
// with the disk tier on and a one-byte budget: values move to disk as
// they are written, the tier is rebuilt at each start, and nothing
// acknowledged is lost; and with appendfsync-prealloc, so that killed
// servers leave files ending with preallocated zeros for the restarts to
// load.
func TestCrashAlwaysWithTiering(t *testing.T) {
	testCrashKeepsAcknowledgedWrites(t, "always", "--tiering", "yes", "--tiering-memory", "1", "--appendfsync-prealloc", "yes")
}

// testCrashKeepsAcknowledgedWrites runs cycles on one directory: start the
// binary (loading everything the earlier cycles wrote), check it has what
// the writers of the previous cycle were told, run 8 concurrent writers
// (and, every other cycle, a BGREWRITEAOF), SIGKILL the process at a
// random moment.
func testCrashKeepsAcknowledgedWrites(t *testing.T, policy string, extra ...string) {
	bin := buildBinary(t)
	dir := t.TempDir()
	const writers = 8
	cycles := 12
	if testing.Short() {
		cycles = 3
	}
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 0))
	t.Logf("appendfsync %s, seed %d", policy, seed)
	args := append([]string{"--dir", dir, "--appendonly", "yes", "--appendfsync", policy, "--save", ""}, extra...)

	state := make([]writerState, writers)
	for i := range state {
		state[i].pending = opNone
	}
	// start is what each writer's keys held when the cycle began: with
	// everysec a write may still be in the AOF buffer when the process
	// dies (Redis postpones it while a background fsync runs), so up to
	// about a second of acknowledged writes may be missing, never more: a
	// cycle lasts under half a second, so a value may fall back no further
	// than its start.
	start := make([]writerState, writers)
	totalOps, zeroTails := 0, 0
	prevOut := "(none)"
	for cycle := 0; cycle <= cycles; cycle++ {
		p := startHotKV(t, bin, args...)
		c := difftest.Dial(t, p.addr)
		for i := range state {
			got, ta, tb, last := loadWriterState(t, c, i)
			want := state[i]
			where := fmt.Sprintf("appendfsync %s, seed %d, after kill %d, writer %d", policy, seed, cycle, i)
			check := func(what string, got, acked, from int64, op int) {
				lost := policy == "everysec" && got >= from && got < acked
				if got != acked && !(want.pending == op && got == acked+1) && !lost {
					t.Errorf("%s: %s is %d, acknowledged %d (in flight: %v)", where, what, got, acked, want.pending == op)
				}
			}
			check("counter w", got.ctr, want.ctr, start[i].ctr, opIncr)
			check("length of list l", got.list, want.list, start[i].list, opPush)
			check("sequence in s", got.str, want.str, start[i].str, opSet)
			check("transaction counter ta", ta, want.txn, start[i].txn, opTxn)
			if ta != tb {
				t.Errorf("%s: transaction half applied: ta=%d tb=%d", where, ta, tb)
			}
			if wantLast := fmt.Sprintf("$%d\r\ne%d\r\n", len(strconv.FormatInt(got.list, 10))+1, got.list); got.list > 0 && last != wantLast {
				t.Errorf("%s: last element of l is %q, want %q", where, last, wantLast)
			}
			state[i] = got
			start[i] = got
		}
		if t.Failed() {
			t.Fatalf("output of the killed server:\n%s", prevOut)
		}
		if cycle == cycles {
			break
		}

		conns := make([]*crashConn, writers)
		for i := range conns {
			cc, err := dialCrash(p.addr)
			if err != nil {
				t.Fatal(err)
			}
			conns[i] = cc
		}
		var killed atomic.Bool
		var wg sync.WaitGroup
		delay := time.Duration(50+rng.IntN(351)) * time.Millisecond
		rewrite := cycle%2 == 1
		rewriteAt := time.Duration(rng.Int64N(int64(delay)))
		var rewriteReply string
		var rewriteErr error
		for i := range conns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				state[i].run(conns[i], i, &killed)
			}()
		}
		if rewrite {
			wg.Add(1)
			go func() {
				defer wg.Done()
				time.Sleep(rewriteAt)
				rc, err := dialCrash(p.addr)
				if err != nil {
					rewriteErr = err
					return
				}
				defer rc.close()
				rewriteReply, rewriteErr = rc.do("BGREWRITEAOF")
			}()
		}
		time.Sleep(delay)
		killed.Store(true)
		p.cmd.Process.Signal(syscall.SIGKILL)
		p.wait(t)
		wg.Wait()
		for _, cc := range conns {
			cc.close()
		}
		prevOut = p.out.String()
		incr := aofIncrFiles(t, dir)
		if data, _ := os.ReadFile(incr[len(incr)-1]); len(data) > 0 && data[len(data)-1] == 0 {
			zeroTails++ // the space preallocated under always: the restart trims it
		}
		if rewrite && rewriteErr == nil && rewriteReply != "+Background append only file rewriting started\r\n" &&
			!strings.HasPrefix(rewriteReply, "-ERR Background append only file rewriting already in progress") {
			t.Errorf("cycle %d: BGREWRITEAOF: %q", cycle, rewriteReply)
		}
		ops := 0
		for i := range state {
			if state[i].fault != "" {
				t.Errorf("appendfsync %s, seed %d, cycle %d, writer %d: %s", policy, seed, cycle, i, state[i].fault)
			}
			ops += state[i].ops
			state[i].ops = 0
		}
		totalOps += ops
		t.Logf("cycle %d: killed after %v (BGREWRITEAOF: %v at %v), %d operations acknowledged", cycle, delay, rewrite, rewriteAt, ops)
		if t.Failed() {
			t.Fatalf("server output:\n%s", p.out)
		}
	}
	if totalOps == 0 {
		t.Error("the writers got no operation acknowledged")
	}
	if slices.Contains(extra, "--appendfsync-prealloc") && zeroTails == 0 {
		t.Error("no killed server left its preallocated zeros: the restarts did not load such a file")
	}
}

// aofIncrFiles returns the incremental files of dir/appendonlydir, in the
// manifest's order.
func aofIncrFiles(t *testing.T, dir string) []string {
	t.Helper()
	manifest, err := os.ReadFile(filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest"))
	if err != nil {
		t.Fatal(err)
	}
	var incr []string
	for _, line := range strings.Split(string(manifest), "\n") {
		f := strings.Fields(line)
		if len(f) >= 6 && f[0] == "file" && f[4] == "type" && f[5] == "i" {
			incr = append(incr, filepath.Join(dir, "appendonlydir", f[1]))
		}
	}
	if len(incr) == 0 {
		t.Fatalf("no incremental file in the manifest:\n%s", manifest)
	}
	return incr
}

// prepareAOFDir makes an AOF directory whose data is all in the base, and
// stops the server that made it; it returns the directory and the path of
// the last (empty) incremental file.
func prepareAOFDir(t *testing.T, bin string) (dir, incr string) {
	t.Helper()
	dir = t.TempDir()
	p := startHotKV(t, bin, "--dir", dir, "--appendonly", "yes", "--save", "")
	c := difftest.Dial(t, p.addr)
	c.Do("SET", "a", "1")
	if got := c.Do("BGREWRITEAOF"); got != "+Background append only file rewriting started\r\n" {
		t.Fatalf("BGREWRITEAOF: %q", got)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		info := c.Do("INFO", "persistence")
		if strings.Contains(info, "aof_rewrite_in_progress:0\r\n") && strings.Contains(info, "aof_rewrites:1\r\n") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the rewrite did not finish:\n%s", info)
		}
	}
	c.Send(difftest.Encode("SHUTDOWN", "NOSAVE"))
	if err := p.wait(t); err != nil {
		t.Fatalf("SHUTDOWN NOSAVE: %v\n%s", err, p.out)
	}
	files := aofIncrFiles(t, dir)
	return dir, files[len(files)-1]
}

// replaceWithDevFull makes path a symbolic link to /dev/full, where every
// write fails with ENOSPC (and fsync with EINVAL).
func replaceWithDevFull(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/full", path); err != nil {
		t.Fatal(err)
	}
}

// setFileSizeLimit sets the RLIMIT_FSIZE of process pid: a write past
// limit bytes fails with EFBIG (the Go runtime ignores SIGXFSZ), while
// fsync still works.
func setFileSizeLimit(t *testing.T, pid int, limit uint64) {
	t.Helper()
	lim := syscall.Rlimit{Cur: limit, Max: limit}
	if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, uintptr(pid), syscall.RLIMIT_FSIZE,
		uintptr(unsafe.Pointer(&lim)), 0, 0, 0); errno != 0 {
		t.Skipf("prlimit: %v", errno)
	}
}

const alwaysFatal = "Can't recover from AOF write error when the AOF fsync policy is 'always'"

// TestAOFAlwaysWriteFailureExits: with appendfsync always, a write that
// cannot be written to the AOF is never acknowledged: the process logs
// the error and exits with status 1, as Redis does.
func TestAOFAlwaysWriteFailureExits(t *testing.T) {
	bin := buildBinary(t)

	// The incremental file's writes fail with EFBIG (file size limit); the
	// server is up and idle until SET comes.
	t.Run("fsize", func(t *testing.T) {
		dir, incr := prepareAOFDir(t, bin)
		p := startHotKV(t, bin, "--dir", dir, "--appendonly", "yes", "--appendfsync", "always", "--save", "")
		c := difftest.Dial(t, p.addr)
		if got := c.Do("GET", "a"); got != "$1\r\n1\r\n" {
			t.Fatalf("GET a: %q", got)
		}
		fi, err := os.Stat(incr)
		if err != nil {
			t.Fatal(err)
		}
		setFileSizeLimit(t, p.cmd.Process.Pid, uint64(fi.Size()))
		if got := c.Do("PING"); got != "+PONG\r\n" {
			t.Fatalf("PING: %q", got)
		}
		c.Send(difftest.Encode("SET", "k", "v"))
		if got, err := c.ReadErr(10 * time.Second); err == nil {
			t.Errorf("SET acknowledged although the AOF could not be written: %q", got)
		}
		err = p.wait(t)
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Errorf("exit: %v, want exit status 1\n%s", err, p.out)
		}
		if out := p.out.String(); !strings.Contains(out, alwaysFatal) || !strings.Contains(out, "file too large") {
			t.Errorf("the log lacks the fatal error:\n%s", out)
		}
	})

	// The incremental file is /dev/full: writes fail with ENOSPC.
	t.Run("devfull", func(t *testing.T) {
		dir, incr := prepareAOFDir(t, bin)
		replaceWithDevFull(t, incr)
		var out bytes.Buffer
		addr := "127.0.0.1:" + strconv.Itoa(difftest.FreePort(t))
		cmd := exec.Command(bin, "--port", strings.TrimPrefix(addr, "127.0.0.1:"), "--dir", dir,
			"--appendonly", "yes", "--appendfsync", "always", "--save", "")
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		t.Cleanup(func() { cmd.Process.Kill(); <-exited })
		// The server may exit on its own before SET is sent (see
		// TestAOFAlwaysIdleNoFsync); either way SET must not get OK.
		sent := false
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			select {
			case err := <-exited:
				exited <- err
				deadline = time.Now()
				continue
			default:
			}
			cc, err := dialCrash(addr)
			if err != nil {
				continue
			}
			reply, err := cc.do("SET", "k", "v")
			cc.close()
			sent = true
			if err == nil {
				t.Errorf("SET got %q although the AOF is /dev/full", reply)
			}
			break
		}
		var err error
		select {
		case err = <-exited:
			exited <- err
		case <-time.After(10 * time.Second):
			t.Fatal("hotkv did not exit")
		}
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Errorf("exit: %v, want exit status 1\n%s", err, out.String())
		}
		if !strings.Contains(out.String(), alwaysFatal) {
			t.Errorf("the log lacks the fatal error:\n%s", out.String())
		}
		if !sent {
			t.Logf("the server exited before SET could be sent:\n%s", out.String())
		}
	})
}

// TestAOFAlwaysIdleNoFsync: an idle server with appendfsync always does
// not fsync a file it wrote nothing to (Redis fsyncs with an empty buffer
// only when aof_last_incr_fsync_offset != aof_last_incr_size); on
// /dev/full, whose fsync fails, it stays up until a write comes.
func TestAOFAlwaysIdleNoFsync(t *testing.T) {
	bin := buildBinary(t)
	dir, incr := prepareAOFDir(t, bin)
	replaceWithDevFull(t, incr)
	p := startHotKV(t, bin, "--dir", dir, "--appendonly", "yes", "--appendfsync", "always", "--save", "")
	time.Sleep(500 * time.Millisecond)
	c := difftest.Dial(t, p.addr)
	if got := c.Do("GET", "a"); got != "$1\r\n1\r\n" {
		t.Errorf("GET a after 500 ms idle: %q", got)
	}
}

// TestAOFEverysecWriteFailureMisconf: with appendfsync everysec a write
// error of the AOF refuses writes (and PING) with MISCONF, as Redis does;
// reads still work, and INFO says so.
func TestAOFEverysecWriteFailureMisconf(t *testing.T) {
	bin := buildBinary(t)
	dir, incr := prepareAOFDir(t, bin)
	replaceWithDevFull(t, incr)
	p := startHotKV(t, bin, "--dir", dir, "--appendonly", "yes", "--appendfsync", "everysec", "--save", "")
	c := difftest.Dial(t, p.addr)
	const misconf = "-MISCONF Errors writing to the AOF file: No space left on device\r\n"
	got := c.Do("SET", "k", "v")
	if got != "+OK\r\n" && got != misconf {
		t.Errorf("first SET: %q", got)
	}
	for deadline := time.Now().Add(3 * time.Second); got != misconf; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("SET still accepted 3 s after the AOF write failed: %q", got)
		}
		got = c.Do("SET", "k", "v")
	}
	if got := c.Do("INCR", "n"); got != misconf {
		t.Errorf("INCR: %q", got)
	}
	if got := c.Do("PING"); got != misconf {
		t.Errorf("PING: %q", got)
	}
	if got := c.Do("GET", "a"); got != "$1\r\n1\r\n" {
		t.Errorf("GET: %q", got)
	}
	if got := c.Do("EXISTS", "n"); got != ":0\r\n" {
		t.Errorf("a refused INCR ran: EXISTS n: %q", got)
	}
	if got := c.Do("INFO", "persistence"); !strings.Contains(got, "aof_last_write_status:err\r\n") {
		t.Errorf("INFO persistence:\n%s", got)
	}
	c.Send(difftest.Encode("SHUTDOWN", "NOSAVE"))
	if err := p.wait(t); err != nil {
		t.Logf("exit after SHUTDOWN NOSAVE: %v", err)
	}
}

// copyAOFDir copies the regular files of src into dst (created), replacing
// the one named trunc by data.
func copyAOFDir(t *testing.T, src, dst, trunc string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() == trunc {
			b = data
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAOFTornTailAtEveryOffset: an incremental file cut anywhere inside
// its last command loads (aof-load-truncated yes), without that command,
// with the truncation logged; the file is truncated so that later writes
// load too. A malformed header earlier in the file stops start-up with a
// message naming the file.
func TestAOFTornTailAtEveryOffset(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	p := startHotKV(t, bin, "--dir", dir, "--appendonly", "yes", "--save", "")
	c := difftest.Dial(t, p.addr)
	keys := map[string]string{}
	for i := range 5 {
		k, v := "k"+strconv.Itoa(i), strings.Repeat(strconv.Itoa(i), i+1)
		c.Do("SET", k, v)
		keys[k] = v
	}
	c.Do("RPUSH", "list", "a", "b")
	last := difftest.Encode("SET", "last", "value")
	c.Send(last)
	c.Read()
	c.Send(difftest.Encode("SHUTDOWN", "NOSAVE"))
	if err := p.wait(t); err != nil {
		t.Fatalf("SHUTDOWN NOSAVE: %v\n%s", err, p.out)
	}
	files := aofIncrFiles(t, dir)
	incrPath := files[len(files)-1]
	incrName := filepath.Base(incrPath)
	data, err := os.ReadFile(incrPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(data, last) {
		t.Fatalf("%s does not end with the last command:\n%q", incrName, data)
	}
	start, end := len(data)-len(last), len(data)

	checkKeys := func(t *testing.T, c *difftest.Conn, extra int) {
		t.Helper()
		for k, v := range keys {
			if got, want := c.Do("GET", k), fmt.Sprintf("$%d\r\n%s\r\n", len(v), v); got != want {
				t.Errorf("GET %s: %q, want %q", k, got, want)
			}
		}
		if got := c.Do("LRANGE", "list", "0", "-1"); got != "*2\r\n$1\r\na\r\n$1\r\nb\r\n" {
			t.Errorf("LRANGE list: %q", got)
		}
		if got := c.Do("EXISTS", "last"); got != ":0\r\n" {
			t.Errorf("the torn command was applied: EXISTS last: %q", got)
		}
		if got, want := c.Do("DBSIZE"), fmt.Sprintf(":%d\r\n", len(keys)+1+extra); got != want {
			t.Errorf("DBSIZE: %q, want %q", got, want)
		}
	}
	began := time.Now()
	for off := start; off < end; off++ {
		t.Run(strconv.Itoa(off-start), func(t *testing.T) {
			tdir := t.TempDir()
			copyAOFDir(t, filepath.Join(dir, "appendonlydir"), filepath.Join(tdir, "appendonlydir"), incrName, data[:off])
			p := startHotKV(t, bin, "--dir", tdir, "--appendonly", "yes", "--save", "")
			c := difftest.Dial(t, p.addr)
			checkKeys(t, c, 0)
			// The first and last cuts: the file was truncated to the end
			// of the last whole command, so that what is appended after
			// it loads too.
			reopen := off == start+1 || off == end-1
			if reopen {
				c.Do("SET", "after", "1")
				c.Send(difftest.Encode("SHUTDOWN", "NOSAVE"))
			} else {
				p.cmd.Process.Signal(syscall.SIGKILL)
			}
			p.wait(t)
			out := p.out.String()
			if off == start {
				if strings.Contains(out, "Truncating") {
					t.Errorf("a file cut between two commands was truncated:\n%s", out)
				}
			} else if want := fmt.Sprintf("Truncating the AOF %s at offset %d", incrName, start); !strings.Contains(out, want) {
				t.Errorf("the log lacks %q:\n%s", want, out)
			}
			if reopen {
				p := startHotKV(t, bin, "--dir", tdir, "--appendonly", "yes", "--save", "")
				c := difftest.Dial(t, p.addr)
				checkKeys(t, c, 1)
				if got := c.Do("GET", "after"); got != "$1\r\n1\r\n" {
					t.Errorf("a write after the truncated load was lost: %q", got)
				}
			}
		})
	}
	t.Logf("%d torn offsets in %v", end-start, time.Since(began))

	// A malformed header earlier in the file: '*' of the second command,
	// '$' of an argument of the third.
	second := bytes.Index(data, difftest.Encode("SET", "k1", "11"))
	third := bytes.Index(data, difftest.Encode("SET", "k2", "222"))
	if second < 0 || third < 0 {
		t.Fatalf("commands not found in %q", data)
	}
	dollar := third + bytes.Index(data[third:], []byte("$2\r\nk2"))
	for _, bad := range []int{second, dollar} {
		t.Run(fmt.Sprintf("corrupt%d", bad), func(t *testing.T) {
			tdir := t.TempDir()
			corrupt := bytes.Clone(data)
			corrupt[bad] = 'x'
			copyAOFDir(t, filepath.Join(dir, "appendonlydir"), filepath.Join(tdir, "appendonlydir"), incrName, corrupt)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			out, err := exec.CommandContext(ctx, bin, "--port", strconv.Itoa(difftest.FreePort(t)), "--dir", tdir,
				"--appendonly", "yes", "--save", "").CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() == 0 || ctx.Err() != nil {
				t.Fatalf("started with a corrupt AOF: %v\n%s", err, out)
			}
			for _, want := range []string{"Bad file format reading the append only file " + incrName, "offset " + strconv.Itoa(bad)} {
				if !strings.Contains(string(out), want) {
					t.Errorf("the error lacks %q:\n%s", want, out)
				}
			}
		})
	}
}
