package server

import (
	"errors"
	"io"
	"os"
	"syscall"

	"github.com/hotkv/hotkv/bgchild"
)

// Background jobs that write a file (BGSAVE and the save points, AOF
// rewrites) run their writing half in a child process, as Redis's run in
// a forked child: the parent encodes its copy-on-write snapshot and pipes
// the bytes to the child (package bgchild), which writes, fsyncs and, for
// a BGSAVE, renames the file. The child is what Redis's tests find with
// pgrep -P and kill; its exit status is the job's outcome:
//
//   - 0: success;
//   - SIGUSR1 (Kill: SHUTDOWN, CONFIG SET appendonly no): no outcome, the
//     status is left as it was;
//   - another signal (kill -9): a failure, "... terminated by signal N";
//   - another status: a failure the child logged ("Background saving
//     error").
//
// In every case but success the parent removes the child's temporary file.

// errChildFailed is the error of a job whose child failed: logged already.
var errChildFailed = errors.New("the background child failed")

// startChild starts the child of a job of kind k writing into dir (and,
// for a BGSAVE, renaming the file to target), its OOM score set as
// oom-score-adj says for Redis's background children.
func (s *Server) startChild(k bgchild.Kind, dir, target string) (*bgchild.Child, error) {
	j := bgchild.Job{Kind: k, Dir: dir, Target: target}
	j.OOMScoreAdj, j.SetOOMScoreAdj = s.bgChildOOMScore()
	return bgchild.Start(j)
}

// feedChild runs encode, which writes the job's bytes to ch; the channel
// it gets is closed (and encode must then stop: keySaveDelay) when kill
// is closed, which kills the child, or when the child exits early, so
// that a killed child ends the job at once even while encode sleeps in
// rdb-key-save-delay. It returns how the child ended, once it has, the
// lines the child logged logged.
func (s *Server) feedChild(ch *bgchild.Child, kill <-chan struct{}, encode func(w io.Writer, stop <-chan struct{}) error) bgchild.Status {
	stop := make(chan struct{})
	go func() {
		select {
		case <-kill:
			// Not waiting for the child: one that has not installed its
			// signal handler yet ignores SIGUSR1, and stops at the pipe's
			// end of file instead (Finish reports it killed all the same).
			ch.Kill()
		case <-ch.Done():
		}
		close(stop)
	}()
	err := encode(ch, stop)
	if err != nil && !errors.Is(err, errSaveKilled) && !errors.Is(err, syscall.EPIPE) {
		// The parent's half failed (the child's death is EPIPE or a stop):
		// what Redis's child logs before it exits 1.
		if ch.Kind() == bgchild.AOFRewrite {
			s.warnf("Write error writing append only file on disk: %v", err)
		} else {
			s.warnf("Write error saving DB on disk(rdbSaveRio): %v", err)
		}
	}
	st := ch.Finish(err == nil)
	for _, line := range st.Log {
		if warning, text := bgchild.ParseLog(line); warning {
			s.warnf("%s", text)
		} else {
			s.logf("%s", text)
		}
	}
	if !st.OK() {
		os.Remove(ch.TempPath()) // rdbRemoveTempFile, aofRemoveTempFile
	}
	return st
}
