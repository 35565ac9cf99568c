package bgchild

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
)

// init enters child mode when EnvMode says so: the job runs and the
// process exits before anything else of the program starts.
func init() {
	mode := os.Getenv(EnvMode)
	if mode == "" {
		return
	}
	k := kindOf(mode)
	// SIGUSR1 stops the job without an error (Redis's sigKillChildHandler):
	// the parent's Kill, or the parent's death (Pdeathsig). The file goes
	// too: a dead parent cannot remove it.
	usr1 := make(chan os.Signal, 1)
	signal.Notify(usr1, syscall.SIGUSR1)
	go func() {
		<-usr1
		if k != Sockets {
			os.Remove(filepath.Join(os.Getenv(envDir), k.TempName(os.Getpid())))
		}
		os.Exit(ExitKilled)
	}()
	if k == Sockets {
		os.Exit(runPipe(os.Stdin, os.NewFile(3, "rdb-pipe"), os.Stderr))
	}
	os.Exit(runChild(k, os.Stdin, os.Stderr))
}

// runPipe is a Sockets child: the job's frames from in to out, the
// parent's rdb pipe; it returns the exit status (0: every byte was sent,
// and out is closed).
func runPipe(in io.Reader, out *os.File, log io.Writer) int {
	_, err := copyFrames(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	switch {
	case errors.Is(err, errAborted), errors.Is(err, syscall.EPIPE):
		return 1 // the parent gave up, or closed the pipe: nothing to report
	case err != nil:
		logLine(log, levelWarning, "Write error sending DB to replicas: %s", errnoText(err))
		return 1
	}
	return 0
}

// The lines a child logs go to its standard error, each starting with
// the level as Redis's log writes it: the parent logs them.
const (
	levelNotice  = '*'
	levelWarning = '#'
)

func logLine(w io.Writer, level byte, format string, args ...any) {
	fmt.Fprintf(w, "%c%s\n", level, fmt.Sprintf(format, args...))
}

// runChild is the child: the job's frames from in to its temporary file;
// it returns the exit status (0: the file is complete and fsynced, and
// renamed into place for RDB).
func runChild(k Kind, in io.Reader, log io.Writer) int {
	if v := os.Getenv(envOOM); v != "" {
		// Redis's child sets its class's score (setOOMScoreAdj(CONFIG_OOM_BGCHILD)).
		if err := os.WriteFile("/proc/self/oom_score_adj", []byte(v+"\n"), 0); err != nil {
			logLine(log, levelWarning, "Unable to write oom_score_adj: %s", errnoText(err))
		}
	}
	tmp := filepath.Join(os.Getenv(envDir), k.TempName(os.Getpid()))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		if k == AOFRewrite {
			logLine(log, levelWarning, "Opening the temp file for AOF rewrite in rewriteAppendOnlyFile(): %s", errnoText(err))
		} else {
			cwd, cerr := os.Getwd()
			if cerr != nil {
				cwd = "unknown"
			}
			logLine(log, levelWarning, "Failed opening the temp RDB file %s (in server root dir %s) for saving: %s",
				filepath.Base(tmp), cwd, errnoText(err))
		}
		return 1
	}
	op, err := copyFrames(f, in)
	if err == nil {
		op, err = "fsync", f.Sync()
	}
	if cerr := f.Close(); err == nil {
		op, err = "fclose", cerr
	}
	if errors.Is(err, errAborted) {
		os.Remove(tmp) // the parent gave up: nothing to report
		return 1
	}
	if err == nil && k == RDB {
		target := os.Getenv(envTarget)
		if err = os.Rename(tmp, target); err != nil {
			cwd, _ := os.Getwd()
			logLine(log, levelWarning, "Error moving temp DB file %s on the final destination %s (in server root dir %s): %s",
				filepath.Base(tmp), target, cwd, errnoText(err))
			os.Remove(tmp)
			return 1
		}
		op, err = "fsyncFileDir", syncDir(filepath.Dir(target))
	}
	if err != nil {
		if k == AOFRewrite {
			logLine(log, levelWarning, "Write error writing append only file on disk: %s", errnoText(err))
		} else {
			logLine(log, levelWarning, "Write error saving DB on disk(%s): %s", op, errnoText(err))
		}
		os.Remove(tmp)
		return 1
	}
	if k == AOFRewrite {
		logLine(log, levelNotice, "Successfully created the temporary AOF base file %s", filepath.Base(tmp))
	} else {
		logLine(log, levelNotice, "DB saved on disk")
	}
	return 0
}

// errAborted: the pipe ended before the end frame.
var errAborted = errors.New("the parent ended the job")

// copyFrames copies the payload of the frames read from in to f until
// the end frame. It returns the operation that failed and its error.
func copyFrames(f *os.File, in io.Reader) (string, error) {
	var hdr [4]byte
	for {
		if _, err := io.ReadFull(in, hdr[:]); err != nil {
			return "read", errAborted
		}
		n := int64(binary.LittleEndian.Uint32(hdr[:]))
		if n == 0 {
			return "", nil
		}
		// From the pipe to the file (splice(2) on Linux).
		m, err := io.CopyN(f, in, n)
		if m < n && (err == nil || err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF)) {
			return "read", errAborted
		}
		if err != nil {
			return "write", err
		}
	}
}

// syncDir fsyncs a directory (a rename in it is durable then).
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// errnoText is the system error's text, capitalized as strerror's.
func errnoText(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		t := errno.Error()
		if t != "" && t[0] >= 'a' && t[0] <= 'z' {
			t = string(t[0]-'a'+'A') + t[1:]
		}
		return t
	}
	return err.Error()
}

// ParseLog splits a line the child logged into its level (true: a
// warning) and text.
func ParseLog(line string) (warning bool, text string) {
	if line == "" {
		return false, ""
	}
	switch line[0] {
	case levelWarning:
		return true, line[1:]
	case levelNotice:
		return false, line[1:]
	}
	return true, line // not ours (a panic's trace)
}
