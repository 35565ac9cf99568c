package server

import (
	"runtime"
	"strings"
	"time"

	"github.com/hotkv/hotkv/rlog"
)

// Redis's bug report (debug.c's sigsegvHandler, bugReportStart/End) for
// a fatal signal — SIGABRT sent to the process, or DEBUG SEGFAULT — when
// crash-log-enabled is yes: the signal, the stack of every goroutine
// (Go's, in place of backtrace(3)'s), then INFO. The process then exits
// as one killed by the signal does (128 + its number).

// CrashReport logs the bug report for signal sig and ends the process.
func (s *Server) CrashReport(sig int) {
	if s.cfg.Lookup("crash-log-enabled").Bool() {
		s.logger.Raw(rlog.Warning, "\n\n=== REDIS BUG REPORT START: Cut & paste starting from here ===\n")
		s.warnf("Redis %s crashed by signal: %d, si_code: 0", RedisVersion, sig)
		s.logger.Raw(rlog.Warning, "\n------ STACK TRACE ------\n")
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		s.logger.Raw(rlog.Warning, string(buf)+"\n")
		// INFO reads counters and takes only leaf mutexes; should one be
		// held by a goroutine that cannot go on, the report ends without it.
		info := make(chan []byte, 1)
		go func() { info <- s.infoString(true, false, nil) }()
		select {
		case b := <-info:
			s.logger.Raw(rlog.Warning, "\n------ INFO OUTPUT ------\n"+strings.ReplaceAll(string(b), "\r\n", "\n"))
		case <-time.After(time.Second):
		}
		s.logger.Raw(rlog.Warning, "\n=== REDIS BUG REPORT END. Make sure to include from START to END. ===\n\n"+
			"       Please report the crash to HotKV's maintainers, with this report.\n\n")
	}
	exitProcess(128 + sig)
}
