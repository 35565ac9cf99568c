// Package rlog writes HotKV's log in Redis's line layout (server.c,
// serverLogRaw):
//
//	<pid>:<role> <dd Mon yyyy hh:mm:ss.mmm> <level> <message>
//	12345:M 04 Dec 2026 15:40:01.123 * Ready to accept connections
//
// where role is 'M' (master), 'S' (replica), 'C' (RDB/AOF child) or 'X'
// (sentinel) and level is '.' (debug), '-' (verbose), '*' (notice) or
// '#' (warning). Lines below the logger's level are dropped. The log goes
// to standard output, or to a file reopened in append mode for every line
// (as Redis does, so that a file moved away by logrotate is recreated),
// and optionally to syslog as well.
//
// Handler adapts a Logger to log/slog, so that code logging through slog
// ends up in the same lines.
package rlog

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Level is a Redis log level (the loglevel directive).
type Level int32

// The levels, in Redis's order (LL_DEBUG ... LL_WARNING).
const (
	Debug Level = iota
	Verbose
	Notice
	Warning
)

// levelChars are the marks of the levels in a line.
const levelChars = ".-*#"

// ParseLevel returns the level named as the loglevel directive names it.
func ParseLevel(name string) (Level, bool) {
	switch strings.ToLower(name) {
	case "debug":
		return Debug, true
	case "verbose":
		return Verbose, true
	case "notice":
		return Notice, true
	case "warning":
		return Warning, true
	}
	return 0, false
}

// Syslogger receives each line's message also written to the log, at its
// level (log/syslog's Writer satisfies it).
type Syslogger interface {
	Debug(m string) error
	Info(m string) error
	Notice(m string) error
	Warning(m string) error
}

// Logger writes log lines. Its methods may be called from any goroutine;
// each line is written with one write.
type Logger struct {
	mu   sync.Mutex // serializes writes
	out  io.Writer  // when path is ""
	path string     // the logfile, reopened per line

	pid   int
	role  atomic.Int32
	level atomic.Int32
	sys   Syslogger
	now   func() time.Time
}

// New returns a logger writing to w at level, with the process's pid and
// role 'M'.
func New(w io.Writer, level Level) *Logger {
	l := &Logger{out: w, pid: os.Getpid(), now: time.Now}
	l.role.Store('M')
	l.level.Store(int32(level))
	return l
}

// NewFile returns a logger that appends to the file at path, which it
// creates when missing. The file is opened once here so that a path that
// cannot be written is an error at startup, as in Redis.
func NewFile(path string, level Level) (*Logger, error) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	f.Close()
	l := New(nil, level)
	l.path = path
	return l, nil
}

// SetSyslog makes every line that passes the level also go to sys.
func (l *Logger) SetSyslog(sys Syslogger) { l.sys = sys }

// SetLevel changes the lowest level written.
func (l *Logger) SetLevel(level Level) { l.level.Store(int32(level)) }

// Level returns the lowest level written.
func (l *Logger) Level() Level { return Level(l.level.Load()) }

// SetRole changes the role mark of the lines ('M', 'S', 'C', 'X').
func (l *Logger) SetRole(role byte) { l.role.Store(int32(role)) }

// Enabled reports whether a line at level would be written.
func (l *Logger) Enabled(level Level) bool { return level >= l.Level() }

// Log writes msg at level. A message with several lines is written as
// several log lines, each with the prefix.
func (l *Logger) Log(level Level, msg string) {
	if !l.Enabled(level) {
		return
	}
	var buf []byte
	t := l.now()
	role := byte(l.role.Load())
	for _, line := range strings.Split(strings.TrimRight(msg, "\n"), "\n") {
		buf = AppendLine(buf, l.pid, role, t, level, line)
	}
	l.write(buf)
	if l.sys != nil {
		switch level {
		case Debug:
			l.sys.Debug(msg)
		case Verbose:
			l.sys.Info(msg)
		case Notice:
			l.sys.Notice(msg)
		default:
			l.sys.Warning(msg)
		}
	}
}

// Logf writes a formatted message at level.
func (l *Logger) Logf(level Level, format string, args ...any) {
	if l.Enabled(level) {
		l.Log(level, fmt.Sprintf(format, args...))
	}
}

// Raw writes text as it is, without the prefix (Redis's LL_RAW, used for
// the logo), when level passes.
func (l *Logger) Raw(level Level, text string) {
	if l.Enabled(level) {
		l.write([]byte(text))
	}
}

func (l *Logger) write(b []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.path == "" {
		l.out.Write(b)
		return
	}
	f, err := os.OpenFile(l.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return // as Redis: a line that cannot be written is lost
	}
	f.Write(b)
	f.Close()
}

// AppendLine appends one log line, newline included, to dst.
func AppendLine(dst []byte, pid int, role byte, t time.Time, level Level, msg string) []byte {
	dst = fmt.Appendf(dst, "%d:%c ", pid, role)
	dst = t.AppendFormat(dst, "02 Jan 2006 15:04:05.000")
	dst = append(dst, ' ', levelChars[min(max(level, Debug), Warning)], ' ')
	dst = append(dst, msg...)
	return append(dst, '\n')
}

// LevelVerbose is the slog level that Handler writes as Verbose: slog's
// Debug is Debug, Info is Notice, Warn and above are Warning.
const LevelVerbose = slog.LevelDebug + 2

// Handler returns a log/slog handler writing through l. Attributes are
// appended to the message as key=value.
func (l *Logger) Handler() slog.Handler { return &handler{l: l} }

type handler struct {
	l     *Logger
	attrs []slog.Attr
	group string
}

func toLevel(sl slog.Level) Level {
	switch {
	case sl < LevelVerbose:
		return Debug
	case sl < slog.LevelInfo:
		return Verbose
	case sl < slog.LevelWarn:
		return Notice
	}
	return Warning
}

func (h *handler) Enabled(_ context.Context, sl slog.Level) bool {
	return h.l.Enabled(toLevel(sl))
}

func (h *handler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	add := func(a slog.Attr) {
		if a.Equal(slog.Attr{}) {
			return
		}
		b.WriteByte(' ')
		if h.group != "" {
			b.WriteString(h.group + ".")
		}
		b.WriteString(a.Key + "=" + a.Value.String())
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(func(a slog.Attr) bool { add(a); return true })
	h.l.Log(toLevel(r.Level), b.String())
	return nil
}

func (h *handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &handler{l: h.l, attrs: append(h.attrs[:len(h.attrs):len(h.attrs)], attrs...), group: h.group}
}

func (h *handler) WithGroup(name string) slog.Handler {
	g := name
	if h.group != "" {
		g = h.group + "." + name
	}
	return &handler{l: h.l, attrs: h.attrs, group: g}
}
