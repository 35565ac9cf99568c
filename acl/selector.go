package acl

import (
	"slices"
	"strings"

	"github.com/hotkv/hotkv/config"
)

// Perm is a key permission: what a command does with a key, or what a key
// pattern grants.
type Perm uint8

// Key permissions (Redis's ACL_READ_PERMISSION, ACL_WRITE_PERMISSION).
const (
	Read Perm = 1 << iota
	Write
	ReadWrite = Read | Write
)

// keyPattern is a key pattern with the permissions it grants (~, %R~,
// %W~, %RW~).
type keyPattern struct {
	pattern string
	bytes   []byte // pattern, to match keys without converting it
	perm    Perm
}

// String is the pattern as ACL rules write it.
func (p keyPattern) String() string {
	switch p.perm {
	case Read:
		return "%R~" + p.pattern
	case Write:
		return "%W~" + p.pattern
	}
	return "~" + p.pattern
}

// selector flags.
const (
	allKeys = 1 << iota
	allChannels
	allCommands
)

// selector is one set of permissions of a user: the root selector (the
// rules outside parentheses) or one of its additional selectors. A user
// may do what any one of its selectors allows.
type selector struct {
	flags int
	// allowed has one bit per command id, and the universe's last bit for
	// "future commands" (set by +@all only).
	allowed []uint64
	// firstArgs are the first arguments allowed for commands whose bit is
	// clear (+select|0), by command id.
	firstArgs map[int][]string
	keys      []keyPattern
	channels  []string
}

func newSelector(u *Universe, allChannelsDefault bool) *selector {
	s := &selector{allowed: make([]uint64, u.words())}
	if allChannelsDefault {
		s.flags |= allChannels
	}
	return s
}

func (s *selector) clone() *selector {
	c := *s
	c.allowed = slices.Clone(s.allowed)
	c.keys = slices.Clone(s.keys)
	c.channels = slices.Clone(s.channels)
	if s.firstArgs != nil {
		c.firstArgs = make(map[int][]string, len(s.firstArgs))
		for id, a := range s.firstArgs {
			c.firstArgs[id] = slices.Clone(a)
		}
	}
	return &c
}

func (s *selector) bit(id int) bool { return s.allowed[id/64]&(1<<(id%64)) != 0 }

func (s *selector) setBit(id int, v bool) {
	if v {
		s.allowed[id/64] |= 1 << (id % 64)
	} else {
		s.allowed[id/64] &^= 1 << (id % 64)
		s.flags &^= allCommands
	}
}

// future reports whether the rules started from +@all (the reserved bit).
func (s *selector) future() bool { return s.bit(len(s.allowed)*64 - 1) }

// changePerm allows or denies cmd and its subcommands, dropping cmd's
// allowed first arguments (ACLChangeSelectorPerm).
func (s *selector) changePerm(c *command, allow bool) {
	s.setBit(c.id, allow)
	delete(s.firstArgs, c.id)
	for _, sub := range c.subs {
		s.setBit(sub, allow)
	}
}

// setCategory allows or denies every command in cat, and the
// subcommands of each such command.
func (s *selector) setCategory(u *Universe, cat Category, allow bool) {
	var walk func(ids []int)
	walk = func(ids []int) {
		for _, id := range ids {
			c := &u.cmds[id]
			if c.Categories&cat != 0 {
				s.changePerm(c, allow)
			}
			walk(c.subs)
		}
	}
	walk(u.top)
}

// countCategory returns how many commands of cat s allows and denies.
func (s *selector) countCategory(u *Universe, cat Category) (on, off int) {
	for i := range u.cmds {
		if u.cmds[i].Categories&cat != 0 {
			if s.bit(i) {
				on++
			} else {
				off++
			}
		}
	}
	return on, off
}

// hasSpaces reports whether b has a space (C's isspace) or a NUL byte,
// which user names and patterns may not have.
func hasSpaces(b string) bool {
	return strings.ContainsAny(b, " \t\n\v\f\r\x00")
}

// errKind says what was wrong with a rule, as Redis's errno values do.
type errKind int

const (
	errSyntax        errKind = iota // EINVAL
	errUnknown                      // ENOENT
	errKeyAfterAll                  // EEXIST
	errChanAfterAll                 // EISDIR
	errNoSuchPass                   // ENODEV
	errBadHash                      // EBADMSG
	errDuplicateUser                // EALREADY
	errFirstArgOfSub                // ECHILD
)

// RuleError is a rule that could not be applied.
type RuleError struct {
	Op   string
	kind errKind
}

// Error is Redis's description of the problem (ACLSetUserStringError).
func (e *RuleError) Error() string {
	switch e.kind {
	case errUnknown:
		return "Unknown command or category name in ACL"
	case errSyntax:
		return "Syntax error"
	case errKeyAfterAll:
		return "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns"
	case errChanAfterAll:
		return "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels"
	case errNoSuchPass:
		return "The password you are trying to remove from the user does not exist"
	case errBadHash:
		return "The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters"
	case errDuplicateUser:
		return "Duplicate user found. A user can only be defined once in config files"
	case errFirstArgOfSub:
		return "Allowing first-arg of a subcommand is not supported"
	}
	return "Wrong format"
}

// UnknownName reports whether the rule named an unknown command or
// category (which a config file's user line may name before modules load).
func (e *RuleError) UnknownName() bool { return e.kind == errUnknown }

func ruleErr(op string, k errKind) *RuleError { return &RuleError{Op: op, kind: k} }

// ErrDuplicateUser is Redis's error for a user defined twice by the
// configuration's user lines.
var ErrDuplicateUser error = ruleErr("", errDuplicateUser)

// apply applies one selector rule (ACLSetSelector).
func (s *selector) apply(u *Universe, op string) *RuleError {
	switch {
	case op == "":
		return ruleErr(op, errSyntax)
	case strings.EqualFold(op, "allkeys") || op == "~*":
		s.flags |= allKeys
		s.keys = nil
	case strings.EqualFold(op, "resetkeys"):
		s.flags &^= allKeys
		s.keys = nil
	case strings.EqualFold(op, "allchannels") || op == "&*":
		s.flags |= allChannels
		s.channels = nil
	case strings.EqualFold(op, "resetchannels"):
		s.flags &^= allChannels
		s.channels = nil
	case strings.EqualFold(op, "allcommands") || strings.EqualFold(op, "+@all"):
		for i := range s.allowed {
			s.allowed[i] = ^uint64(0)
		}
		s.flags |= allCommands
		s.firstArgs = nil
	case strings.EqualFold(op, "nocommands") || strings.EqualFold(op, "-@all"):
		clear(s.allowed)
		s.flags &^= allCommands
		s.firstArgs = nil
	case op[0] == '~' || op[0] == '%':
		if s.flags&allKeys != 0 {
			return ruleErr(op, errKeyAfterAll)
		}
		perm, off := ReadWrite, 1
		if op[0] == '%' {
			perm = 0
			for ; off < len(op); off++ {
				switch c := op[off]; {
				case (c == 'R' || c == 'r') && perm&Read == 0:
					perm |= Read
				case (c == 'W' || c == 'w') && perm&Write == 0:
					perm |= Write
				case c == '~':
					off++
					goto done
				default:
					return ruleErr(op, errSyntax)
				}
			}
		done:
			if perm == 0 {
				// "%" or "%~x": no permission (Redis 7.0.15 as built
				// refuses it; the tag's source would panic describing it).
				return ruleErr(op, errSyntax)
			}
		}
		pat := op[min(off, len(op)):]
		if hasSpaces(pat) {
			return ruleErr(op, errSyntax)
		}
		if i := slices.IndexFunc(s.keys, func(k keyPattern) bool { return k.pattern == pat }); i >= 0 {
			s.keys[i].perm |= perm
		} else {
			s.keys = append(s.keys, keyPattern{pat, []byte(pat), perm})
		}
		s.flags &^= allKeys
	case op[0] == '&':
		if s.flags&allChannels != 0 {
			return ruleErr(op, errChanAfterAll)
		}
		pat := op[1:]
		if hasSpaces(pat) {
			return ruleErr(op, errSyntax)
		}
		if !slices.Contains(s.channels, pat) {
			s.channels = append(s.channels, pat)
		}
		s.flags &^= allChannels
	case op[0] == '+' && (len(op) < 2 || op[1] != '@'):
		return s.allow(u, op)
	case op[0] == '-' && (len(op) < 2 || op[1] != '@'):
		c := u.lookup(op[1:])
		if c == nil {
			return ruleErr(op, errUnknown)
		}
		s.changePerm(c, false)
	case op[0] == '+' || op[0] == '-':
		cat := CategoryByName(op[2:])
		if cat == 0 {
			return ruleErr(op, errUnknown)
		}
		s.setCategory(u, cat, op[0] == '+')
	default:
		return ruleErr(op, errSyntax)
	}
	return nil
}

// allow applies +command, +command|subcommand and +command|first-arg.
func (s *selector) allow(u *Universe, op string) *RuleError {
	name := op[1:]
	i := strings.LastIndexByte(name, '|')
	if i < 0 {
		c := u.lookup(name)
		if c == nil {
			return ruleErr(op, errUnknown)
		}
		s.changePerm(c, true)
		return nil
	}
	c := u.lookup(name[:i])
	switch {
	case c == nil:
		return ruleErr(op, errUnknown)
	case c.parent >= 0:
		return ruleErr(op, errFirstArgOfSub)
	case i == len(name)-1:
		return ruleErr(op, errSyntax)
	}
	if len(c.subs) > 0 {
		sc := u.lookup(name)
		if sc == nil {
			return ruleErr(op, errUnknown)
		}
		s.changePerm(sc, true)
		return nil
	}
	arg := name[i+1:]
	if s.firstArgs == nil {
		s.firstArgs = make(map[int][]string)
	}
	if !slices.ContainsFunc(s.firstArgs[c.id], func(a string) bool { return strings.EqualFold(a, arg) }) {
		s.firstArgs[c.id] = append(s.firstArgs[c.id], arg)
	}
	return nil
}

// parseSelector builds a selector from "(rule rule ...)", the rules split
// as Redis's sdssplitargs splits them (unbalanced quotes: no rules).
func parseSelector(u *Universe, op string, allChannelsDefault bool) (*selector, *RuleError) {
	s := newSelector(u, allChannelsDefault)
	args, err := config.SplitArgs(op[1 : len(op)-1])
	if err != nil {
		return s, nil // sdssplitargs failed: no rules
	}
	for _, a := range args {
		if e := s.apply(u, a); e != nil {
			e.Op = op
			return nil, e
		}
	}
	return s, nil
}
