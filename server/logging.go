package server

import (
	"fmt"
	"log/slog"
	"log/syslog"
	"os"
	"runtime"

	"github.com/hotkv/hotkv/config"
	"github.com/hotkv/hotkv/rlog"
)

// The server's log is Redis's (package rlog): standard output until
// OpenLog applies logfile and the syslog directives, at the level of
// loglevel (CONFIG SET loglevel takes effect at once). logf, warnf,
// verbosef and debugf write at Redis's levels; s.log is the same log
// through log/slog.

// newLogger returns the logger New starts with: standard output at
// cfg's loglevel.
func newLogger(cfg *config.Config) *rlog.Logger {
	level, _ := rlog.ParseLevel(cfg.Lookup("loglevel").Enum())
	return rlog.New(os.Stdout, level)
}

// syslogFacilities maps syslog-facility to log/syslog's facilities.
var syslogFacilities = map[string]syslog.Priority{
	"user": syslog.LOG_USER, "local0": syslog.LOG_LOCAL0, "local1": syslog.LOG_LOCAL1,
	"local2": syslog.LOG_LOCAL2, "local3": syslog.LOG_LOCAL3, "local4": syslog.LOG_LOCAL4,
	"local5": syslog.LOG_LOCAL5, "local6": syslog.LOG_LOCAL6, "local7": syslog.LOG_LOCAL7,
}

// OpenLog applies logfile (the log goes to that file, appended to,
// instead of standard output) and syslog-enabled, syslog-ident and
// syslog-facility (every line also goes to the system log). A log file
// that cannot be opened, or a system log that cannot be reached, is an
// error: the server must not start without the log it was told to keep.
func (s *Server) OpenLog() error {
	level := s.logger.Level()
	if path := s.cfg.Lookup("logfile").String(); path != "" {
		l, err := rlog.NewFile(path, level)
		if err != nil {
			return fmt.Errorf(errLogFile, err)
		}
		s.setLogger(l)
	}
	if s.cfg.Lookup("syslog-enabled").Bool() {
		fac := syslogFacilities[s.cfg.Lookup("syslog-facility").Enum()]
		w, err := syslog.New(fac|syslog.LOG_NOTICE, s.cfg.Lookup("syslog-ident").String())
		if err != nil {
			return fmt.Errorf(errSyslog, err)
		}
		s.logger.SetSyslog(w)
	}
	return nil
}

// setLogger makes l the server's log.
func (s *Server) setLogger(l *rlog.Logger) {
	s.logger = l
	s.log = slog.New(l.Handler())
	s.aof.log = l
}

// Logger returns the server's log, for the lines cmd/hotkv writes.
func (s *Server) Logger() *rlog.Logger { return s.logger }

// logHooks makes CONFIG SET loglevel take effect.
func (s *Server) logHooks(cfg *config.Config) {
	cfg.OnChange("loglevel", func(p *config.Param) error {
		level, _ := rlog.ParseLevel(p.Enum())
		s.logger.SetLevel(level)
		return nil
	})
}

// logf logs at notice level, the level of most of Redis's lines.
func (s *Server) logf(format string, args ...any) { s.logger.Logf(rlog.Notice, format, args...) }

// warnf logs at warning level (failures, recovered panics, bad clients).
func (s *Server) warnf(format string, args ...any) { s.logger.Logf(rlog.Warning, format, args...) }

// verbosef logs at verbose level.
func (s *Server) verbosef(format string, args ...any) { s.logger.Logf(rlog.Verbose, format, args...) }

// LogStarting writes Redis's first lines (server.c main): the starting
// banner, the version line and whether a configuration file was read.
func (s *Server) LogStarting(configFile string) {
	s.warnf("oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo")
	s.warnf("Redis version=%s, bits=64, commit=%s, modified=0, pid=%d, just started",
		RedisVersion, GitSHA1, os.Getpid())
	if configFile == "" {
		s.warnf("Warning: no config file specified, using the default config. In order to specify a config file use %s /path/to/redis.conf", os.Args[0])
	} else {
		s.warnf("Configuration loaded")
	}
}

// asciiLogo is Redis's (asciilogo.h); its PID line is what Redis's test
// harness waits for.
const asciiLogo = "" +
	"                _._                                                  \n" +
	"           _.-``__ ''-._                                             \n" +
	"      _.-``    `.  `_.  ''-._           Redis %s (%s/%d) %s bit\n" +
	"  .-`` .-```.  ```\\/    _.,_ ''-._                                  \n" +
	" (    '      ,       .-`  | `,    )     Running in %s mode\n" +
	" |`-._`-...-` __...-.``-._|'` _.-'|     Port: %d\n" +
	" |    `-._   `._    /     _.-'    |     PID: %d\n" +
	"  `-._    `-._  `-./  _.-'    _.-'                                   \n" +
	" |`-._`-._    `-.__.-'    _.-'_.-'|                                  \n" +
	" |    `-._`-._        _.-'_.-'    |           https://redis.io       \n" +
	"  `-._    `-._`-.__.-'_.-'    _.-'                                   \n" +
	" |`-._`-._    `-.__.-'    _.-'_.-'|                                  \n" +
	" |    `-._`-._        _.-'_.-'    |                                  \n" +
	"  `-._    `-._`-.__.-'_.-'    _.-'                                   \n" +
	"      `-._    `-.__.-'    _.-'                                       \n" +
	"          `-._        _.-'                                           \n" +
	"              `-.__.-'                                               \n\n"

// LogBanner writes Redis's logo (redisAsciiArt) when always-show-logo is
// set or the log is a terminal, else the "Running mode" line, then
// "Server initialized".
func (s *Server) LogBanner(stdoutIsTerminal bool) {
	port := s.announcedPort()
	show := s.cfg.Lookup("always-show-logo").Bool() ||
		stdoutIsTerminal && s.cfg.Lookup("logfile").String() == "" && !s.cfg.Lookup("syslog-enabled").Bool()
	if show {
		s.logger.Raw(rlog.Notice, fmt.Sprintf(asciiLogo, RedisVersion, GitSHA1, 0, "64", "standalone", port, os.Getpid()))
	} else {
		s.logf("Running mode=standalone, port=%d.", port)
	}
	s.warnf("Server initialized")
}

// GitSHA1 is the commit Redis's version lines report: HotKV has none of
// Redis's, so zeros, as a Redis built outside git.
const GitSHA1 = "00000000"

// VersionLine is what `redis-server --version` prints, with HotKV's
// allocator (Go's runtime, as INFO's mem_allocator) in malloc=.
func VersionLine() string {
	return fmt.Sprintf("Redis server v=%s sha=%s:0 malloc=%s bits=64 build=0", RedisVersion, GitSHA1, runtime.Version())
}
