package server

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/hotkv/hotkv/acl"
)

// Process-level directives: what a redis-server process does at startup
// and exit beyond serving (the pid file), and the directives HotKV reads
// but cannot carry out, refused at startup rather than ignored.

// unsupportedAtStartup lists, for each directive HotKV refuses at startup
// when set away from its default, whether the configuration asks for it
// and why HotKV cannot do it.
var unsupportedAtStartup = []struct {
	name string
	set  func(s *Server) bool
	why  string
}{
	{"daemonize", func(s *Server) bool { return s.cfg.Lookup("daemonize").Bool() },
		"HotKV runs in the foreground; run it under a supervisor instead"},
	{"supervised", func(s *Server) bool { return s.cfg.Lookup("supervised").Enum() != "no" },
		"HotKV does not notify upstart or systemd"},
	{"cluster-enabled", func(s *Server) bool { return s.cfg.Lookup("cluster-enabled").Bool() },
		"HotKV has no cluster mode"},
	{"server_cpulist", cpulistSet("server_cpulist"), pinWhy},
	{"bio_cpulist", cpulistSet("bio_cpulist"), pinWhy},
	{"aof_rewrite_cpulist", cpulistSet("aof_rewrite_cpulist"), pinWhy},
	{"bgsave_cpulist", cpulistSet("bgsave_cpulist"), pinWhy},
}

const pinWhy = "HotKV does not pin its threads to CPUs (Go schedules its goroutines over every CPU it may use: run it under taskset instead)"

func cpulistSet(name string) func(s *Server) bool {
	return func(s *Server) bool { return s.cfg.Lookup(name).String() != "" }
}

// unsupportedDirectives says why HotKV refuses each directive that is not
// a parameter (config.Directives) and that it cannot carry out: none may
// be accepted and left undone — a user line left undone would leave the
// server open where the operator meant to close it.
var unsupportedDirectives = map[string]string{
	"loadmodule": "HotKV has no modules",
}

// CheckStartup refuses a configuration that asks for what HotKV cannot
// do (daemonizing, supervision, cluster mode, CPU pinning, modules), or
// whose rename-command directives failed: the error names the directive,
// so that nothing asked for is silently left undone. Then it loads the
// ACL users of the configuration's user lines or of the aclfile
// (loadUsers).
func (s *Server) CheckStartup() error {
	var errs []error
	for _, u := range unsupportedAtStartup {
		if u.set(s) {
			p := s.cfg.Lookup(u.name)
			errs = append(errs, fmt.Errorf(errUnsupportedDirective, u.name, p.String(), u.why))
		}
	}
	errs = append(errs, s.renames.errs...)
	if s.tierErr != nil {
		errs = append(errs, s.tierErr)
	}
	var users [][]string
	for _, d := range s.cfg.Directives() {
		switch d[0] {
		case "rename-command":
			continue // applyRenames
		case "user":
			users = append(users, d)
			continue
		}
		why, ok := unsupportedDirectives[d[0]]
		if !ok {
			why = "HotKV has no modules" // a module's parameter
		}
		errs = append(errs, fmt.Errorf(errUnsupportedDirective, d[0], strings.Join(d[1:], " "), why))
	}
	if len(errs) == 0 {
		if err := s.loadUsers(users); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// loadUsers creates the users of the configuration's user lines ("user"
// name rules...), or those of the aclfile, as Redis's config parsing and
// ACLLoadUsersAtStartup do: a user line that does not parse, a user
// defined twice, both user lines and an aclfile, or a file that does not
// load is an error, with Redis's texts.
func (s *Server) loadUsers(lines [][]string) error {
	seen := map[string]bool{}
	var users [][]string
	for _, l := range lines {
		if len(l) < 2 {
			return errors.New(errUserDirectiveArgs)
		}
		if seen[l[1]] {
			return fmt.Errorf(errUserDeclaration, l[1], acl.ErrDuplicateUser)
		}
		seen[l[1]] = true
		if j, err := s.acl.CheckUserLine(l[2:]); err != nil {
			// Redis names the argument at the rule's index in the whole
			// line ("user" for the first rule).
			return fmt.Errorf(errUserDeclaration, l[j], err.Error())
		}
		users = append(users, l[1:])
	}
	file := s.cfg.Lookup("aclfile").String()
	if file != "" && len(users) > 0 {
		return errors.New(errACLBothUsersFile)
	}
	if err := s.acl.LoadUserLines(users); err != nil {
		return fmt.Errorf("%s\nCritical error while loading ACLs. Exiting.", err)
	}
	if file != "" {
		if _, err := s.acl.LoadFile(file, file); err != nil {
			return fmt.Errorf("Aborting Redis startup because of ACL errors: %s", err)
		}
	}
	return nil
}

// WritePidFile writes the process id to pidfile when it is set, as Redis's
// createPidFile. Failing to is logged, not fatal, as in Redis.
func (s *Server) WritePidFile() {
	path := s.cfg.Lookup("pidfile").String()
	if path == "" {
		return
	}
	if err := os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		s.warnf(errPidFile, err)
	}
}

// RemovePidFile removes the pid file at exit, as Redis's prepareForShutdown.
func (s *Server) RemovePidFile() {
	if path := s.cfg.Lookup("pidfile").String(); path != "" {
		s.logf("Removing the pid file.")
		os.Remove(path)
	}
}
