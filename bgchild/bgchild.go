// Package bgchild runs the file-writing half of a background job (BGSAVE,
// an AOF rewrite) in a child process, as Redis runs it in a forked child.
//
// Go cannot fork a running server, so the parent keeps the snapshot and
// encodes it (copy-on-write, in package server); the child is the same
// executable started again in child mode. It receives the encoded bytes
// through a pipe on its standard input, writes them to the temporary file
// Redis names with the child's pid, fsyncs it, renames it into place when
// the job says so, and exits 0. Everything Redis's tests do to a child
// works on it: pgrep -P finds it, kill -9 fails the job, its
// oom_score_adj is its own.
//
// The pipe carries frames:
//
//	+---------------------+------------------+
//	| length (uint32, LE) | length bytes ... |   repeated; length 0 ends the job
//	+---------------------+------------------+
//
// The end frame is what tells a finished job from an aborted one: a
// child that reads end of file before it (the parent gave up, or died)
// removes its temporary file and exits 1. A child also dies with its
// parent: Pdeathsig sends it SIGUSR1, on which it removes its file and
// exits, as it does for Kill (not SIGKILL, after which the file would stay
// with nobody left to remove it). Linux sends Pdeathsig when the thread
// that started the child ends: Go ends a thread only when a goroutine
// locked to it (runtime.LockOSThread) returns without unlocking, which
// callers must not do while a job runs (the job would be killed, logged
// as terminated by signal 10).
//
// A Sockets job (a diskless replication payload) writes no file: the
// child copies the frames' payload to a second pipe, its fd 3, whose read
// end the parent reads (Output) and writes to the replicas, as Redis's
// child writes the RDB to the rdb pipe. Its end of file is the end of the
// payload, or the child's death.
//
// Child mode is selected by the environment variable EnvMode and entered
// by this package's init function, before main or TestMain runs: every
// binary that links the package (hotkv, and the test binaries of the
// packages that start servers) is its own child.
package bgchild

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Kind is the kind of job a child runs.
type Kind int

const (
	// RDB is a BGSAVE: the child writes temp-<pid>.rdb and renames it
	// over the snapshot file, as Redis's rdbSave.
	RDB Kind = iota
	// AOFRewrite is an AOF rewrite's new base: the child writes
	// temp-rewriteaof-bg-<pid>.aof and leaves it for the parent to
	// install.
	AOFRewrite
	// Sockets is a diskless replication payload, Redis's "rdb pipe": the
	// child writes no file but sends the bytes back to the parent through
	// a second pipe (Output), which the parent reads and writes to the
	// replicas' sockets, as Redis's rdbSaveToSlavesSockets.
	Sockets
)

// The environment of a child: EnvMode selects child mode and the job's
// kind ("rdb", "aof"); the others describe the job.
const (
	EnvMode   = "HOTKV_BGCHILD"
	envDir    = "HOTKV_BGCHILD_DIR"
	envTarget = "HOTKV_BGCHILD_TARGET"
	envOOM    = "HOTKV_BGCHILD_OOM"
)

// Title returns the process title of a child of kind k: Redis's.
func (k Kind) Title() string {
	switch k {
	case AOFRewrite:
		return "redis-aof-rewrite"
	case Sockets:
		return "redis-rdb-to-slaves"
	}
	return "redis-rdb-bgsave"
}

func (k Kind) mode() string {
	switch k {
	case AOFRewrite:
		return "aof"
	case Sockets:
		return "sockets"
	}
	return "rdb"
}

// kindOf is the kind whose mode is mode.
func kindOf(mode string) Kind {
	switch mode {
	case "aof":
		return AOFRewrite
	case "sockets":
		return Sockets
	}
	return RDB
}

// TempName is the name of the temporary file the child with pid writes:
// Redis's names ("" for Sockets, which writes none).
func (k Kind) TempName(pid int) string {
	if k == Sockets {
		return ""
	}
	if k == AOFRewrite {
		return "temp-rewriteaof-bg-" + strconv.Itoa(pid) + ".aof"
	}
	return "temp-" + strconv.Itoa(pid) + ".rdb"
}

// Job describes the work of a child.
type Job struct {
	Kind Kind
	// Dir is the directory of the temporary file.
	Dir string
	// Target, for RDB, is the path the finished file is renamed to.
	Target string
	// OOMScoreAdj, when SetOOMScoreAdj, is written to the child's
	// /proc/self/oom_score_adj first (oom-score-adj's bgchild class).
	OOMScoreAdj    int
	SetOOMScoreAdj bool
}

// exePath, when set, replaces os.Executable (SetExecutable).
var exePath atomic.Pointer[string]

// SetExecutable makes path the program started as the child, "" the
// running one (the default): tests name one that does
// not exist, to see a job whose child cannot start.
func SetExecutable(path string) {
	if path == "" {
		exePath.Store(nil)
	} else {
		exePath.Store(&path)
	}
}

// executable is the program to start: on Linux /proc/self/exe, which
// execve resolves to the running binary even after its file was replaced
// or removed (an upgrade on disk); elsewhere os.Executable.
func executable() (string, error) {
	if p := exePath.Load(); p != nil {
		return *p, nil
	}
	if runtime.GOOS == "linux" {
		if _, err := os.Stat("/proc/self/exe"); err == nil {
			return "/proc/self/exe", nil
		}
	}
	return os.Executable()
}

// chunk is the payload of a full frame: big frames keep the pipe's cost
// to a few system calls per megabyte.
const chunk = 1 << 20

// Child is a running child. Its methods other than Kill and Done are
// called by one goroutine (the job's writer).
type Child struct {
	kind Kind
	dir  string
	cmd  *exec.Cmd
	w    *os.File // the pipe's write end
	out  *os.File // Sockets: the output pipe's read end (Output)
	// outClosed is set once CloseOutput has closed out.
	outClosed atomic.Bool
	buf       []byte // the frame being filled: header, then payload
	err       error  // the first write error

	stderr bytes.Buffer // what the child wrote to its standard error
	done   chan struct{}
	state  *os.ProcessState

	killOnce sync.Once
	killed   atomic.Bool // Kill was called
}

// Start starts a child for j. It returns an error when the executable
// cannot be found or started; nothing is left behind then.
func Start(j Job) (*Child, error) {
	exe, err := executable()
	if err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	env := make([]string, 0, len(os.Environ())+4)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, EnvMode) {
			env = append(env, kv)
		}
	}
	env = append(env, EnvMode+"="+j.Kind.mode(), envDir+"="+j.Dir, envTarget+"="+j.Target)
	if j.SetOOMScoreAdj {
		env = append(env, envOOM+"="+strconv.Itoa(j.OOMScoreAdj))
	}
	c := &Child{kind: j.Kind, dir: j.Dir, w: w, done: make(chan struct{}),
		buf: make([]byte, 4, 4+chunk)}
	var ow *os.File // Sockets: the output pipe's write end, the child's fd 3
	if j.Kind == Sockets {
		if c.out, ow, err = os.Pipe(); err != nil {
			r.Close()
			w.Close()
			return nil, err
		}
	}
	c.cmd = &exec.Cmd{
		Path:   exe,
		Args:   []string{j.Kind.Title()},
		Env:    env,
		Stdin:  r,
		Stderr: &c.stderr,
		// The parent's death stops the child as Kill does (it removes
		// its file); should the signal come before the child's handler is
		// installed, the pipe's end of file stops it all the same.
		SysProcAttr: &syscall.SysProcAttr{Pdeathsig: syscall.SIGUSR1},
	}
	if ow != nil {
		// Not its standard output: a Go program that writes to fd 1 or 2
		// after the reader went away dies of SIGPIPE; on fd 3 it gets
		// EPIPE.
		c.cmd.ExtraFiles = []*os.File{ow}
	}
	err = c.cmd.Start()
	r.Close()
	if ow != nil {
		// The child's copy is the only write end left: its exit is the
		// output's end of file.
		ow.Close()
	}
	if err != nil {
		w.Close()
		if c.out != nil {
			c.out.Close()
		}
		return nil, err
	}
	go func() {
		c.cmd.Wait() // the state is in cmd.ProcessState, error or not
		c.state = c.cmd.ProcessState
		close(c.done)
	}()
	return c, nil
}

// Kind is the kind of the child's job.
func (c *Child) Kind() Kind { return c.kind }

// Pid is the child's process id.
func (c *Child) Pid() int { return c.cmd.Process.Pid }

// TempPath is the temporary file the child writes ("" for Sockets).
func (c *Child) TempPath() string {
	if c.kind == Sockets {
		return ""
	}
	return filepath.Join(c.dir, c.kind.TempName(c.Pid()))
}

// Output is the read end of a Sockets child's output pipe, nil for the
// other kinds: the payload's bytes as the child sends them, then end of
// file once the child has sent them all or has died. The caller reads it
// while it writes the job (the child stops when its output pipe is full)
// and closes it with CloseOutput.
func (c *Child) Output() *os.File { return c.out }

// CloseOutput closes the output pipe's read end (Redis closes
// rdb_pipe_read): a child still writing to it gets EPIPE and fails.
func (c *Child) CloseOutput() {
	if c.out != nil {
		c.out.Close()
		c.outClosed.Store(true)
	}
}

// OutputClosed reports whether CloseOutput has closed the output pipe.
func (c *Child) OutputClosed() bool { return c.outClosed.Load() }

// Done is closed once the child has exited.
func (c *Child) Done() <-chan struct{} { return c.done }

// Kill stops the child as Redis's killRDBChild and killAppendOnlyChild
// do, with SIGUSR1: the child exits with ExitKilled, which Finish reports
// as the signal SIGUSR1 (a job killed on purpose, not a failure), as it
// does any failure after Kill. The caller removes TempPath.
func (c *Child) Kill() {
	c.killOnce.Do(func() {
		c.killed.Store(true)
		c.cmd.Process.Signal(syscall.SIGUSR1)
		// A writer blocked on a full pipe (a stopped child) gets an
		// error at once, and a child that has not exited after
		// killGrace (stopped, or wedged) gets SIGKILL: nothing waits
		// forever for a killed child.
		c.w.Close()
		time.AfterFunc(killGrace, func() {
			select {
			case <-c.done:
			default:
				c.cmd.Process.Signal(syscall.SIGKILL)
			}
		})
	})
}

// killGrace is how long Kill lets a child take to exit before SIGKILL.
const killGrace = 5 * time.Second

// ExitKilled is the exit status of a child stopped with SIGUSR1 (Redis's
// SERVER_CHILD_NOERROR_RETVAL).
const ExitKilled = 255

// Write sends p to the child, in frames of up to a megabyte. After a
// failed write (the child is gone: EPIPE) every write fails.
func (c *Child) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 && c.err == nil {
		k := min(len(p), 4+chunk-len(c.buf))
		c.buf = append(c.buf, p[:k]...)
		p, n = p[k:], n+k
		if len(c.buf) == 4+chunk {
			c.flush()
		}
	}
	return n, c.err
}

// flush sends the frame being filled, if it has a payload.
func (c *Child) flush() {
	if len(c.buf) == 4 || c.err != nil {
		return
	}
	binary.LittleEndian.PutUint32(c.buf, uint32(len(c.buf)-4))
	_, c.err = c.w.Write(c.buf)
	c.buf = c.buf[:4]
}

// Finish ends the job: with ok, the rest of the data and the end frame
// are sent; without, the pipe is closed without it (the child removes
// its file and exits 1). Then it waits for the child to exit and returns
// how it ended. The caller removes TempPath unless the status is success.
func (c *Child) Finish(ok bool) Status {
	if ok {
		c.flush()
		if c.err == nil {
			_, c.err = c.w.Write([]byte{0, 0, 0, 0})
		}
	}
	c.w.Close()
	<-c.done
	st := Status{Pid: c.Pid()}
	ws, _ := c.state.Sys().(syscall.WaitStatus)
	switch {
	case ws.ExitStatus() == ExitKilled, c.killed.Load() && (ws.Signaled() || ws.ExitStatus() != 0):
		// As Redis's checkChildrenDone. A child told to stop may have
		// seen the pipe close first (exit 1), or needed SIGKILL: stopped
		// all the same.
		st.Signal, st.Code = syscall.SIGUSR1, 1
	case ws.Signaled():
		st.Signal = ws.Signal()
	default:
		st.Code = ws.ExitStatus()
	}
	for _, line := range strings.Split(strings.TrimRight(c.stderr.String(), "\n"), "\n") {
		if line != "" {
			st.Log = append(st.Log, line)
		}
	}
	return st
}

// Status is how a child ended.
type Status struct {
	Pid    int
	Code   int            // exit status, when not signaled
	Signal syscall.Signal // the signal that killed it (SIGUSR1: Kill), or 0
	Log    []string       // the lines it wrote to its standard error (its log)
}

// OK reports whether the job succeeded.
func (s Status) OK() bool { return s.Signal == 0 && s.Code == 0 }

// Killed reports whether the child was stopped on purpose (Kill, or a
// SIGUSR1 from anyone, as Redis whitelists it): the job has no outcome.
func (s Status) Killed() bool { return s.Signal == syscall.SIGUSR1 }

// Err is the status as an error, nil for success.
func (s Status) Err() error {
	switch {
	case s.Signal != 0:
		return fmt.Errorf("child %d terminated by signal %d", s.Pid, int(s.Signal))
	case s.Code != 0:
		return fmt.Errorf("child %d exited with status %d", s.Pid, s.Code)
	}
	return nil
}
