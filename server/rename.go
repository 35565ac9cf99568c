package server

import (
	"fmt"
	"strings"
)

// rename-command, as Redis applies it while loading its configuration:
// "rename-command OLD NEW" takes OLD out of the command table and, unless
// NEW is empty (which disables the command), puts it back as NEW. Clients,
// scripts and transactions find the command by its new name only. The
// append-only file's replay and a replica's master stream find it by
// either name (Redis's lookupCommandOrOriginal): they carry the commands
// the server generates under their original names (DEL for an expired
// key, PEXPIREAT).

// renames is the table of renamed commands under their original names.
type renames struct {
	orig Table
	errs []error // the directives that could not be carried out
}

// applyRenames carries out the rename-command directives on the command
// table; CheckStartup reports the ones that failed, in Redis's words.
func (s *Server) applyRenames() {
	for _, d := range s.cfg.Directives() {
		if d[0] != "rename-command" {
			continue
		}
		from, to := strings.ToLower(d[1]), strings.ToLower(d[2])
		fail := func(why string) {
			s.renames.errs = append(s.renames.errs, fmt.Errorf(errRenameCommand, d[1], d[2], why))
		}
		cmd := s.table[from]
		if cmd == nil {
			fail("No such command in rename-command")
			continue
		}
		if to != "" && s.table[to] != nil {
			fail("Target command name already exists")
			continue
		}
		delete(s.table, from)
		if to != "" {
			s.table[to] = cmd
		}
		if s.renames.orig == nil {
			s.renames.orig = Table{}
		}
		s.renames.orig[from] = cmd
	}
}

// lookupOriginal finds a renamed command by its original name, for the
// clients that obey (replay, master): nil when there is none.
func (s *Server) lookupOriginal(buf *[64]byte, args [][]byte) *Command {
	if s.renames.orig == nil {
		return nil
	}
	cmd, _ := s.renames.orig.lookup(buf, args)
	return cmd
}
