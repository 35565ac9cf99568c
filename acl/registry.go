package acl

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// Registry holds the users. Its methods are safe for concurrent use.
type Registry struct {
	u *Universe
	// AllChannelsDefault is acl-pubsub-default: whether new users and
	// selectors start with all channels (allchannels) or none.
	AllChannelsDefault atomic.Bool
	// Log is the ACL log.
	Log Log

	mu struct {
		sync.Mutex
		users map[string]*User
	}
	def *User
	// restricted: some user may not do everything (updateRestrictedLocked).
	restricted atomic.Bool
}

// NewRegistry returns a registry holding only the default user, which
// may do everything without a password ("on nopass ~* &* +@all", as
// Redis's).
func NewRegistry(u *Universe) *Registry {
	r := &Registry{u: u}
	r.mu.users = make(map[string]*User)
	r.def = &User{name: "default"}
	r.def.rules.Store(defaultRules(u))
	r.mu.users["default"] = r.def
	return r
}

func defaultRules(u *Universe) *Rules {
	r := newRules(u, false)
	for _, op := range []string{"+@all", "~*", "&*", "on", "nopass"} {
		r.apply(op, false)
	}
	return r.finish()
}

// Universe returns the command universe the rules speak of.
func (r *Registry) Universe() *Universe { return r.u }

// Default returns the default user.
func (r *Registry) Default() *User { return r.def }

// User returns the user named name, or nil.
func (r *Registry) User(name string) *User {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.mu.users[name]
}

// Names returns the user names, sorted.
func (r *Registry) Names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	names := make([]string, 0, len(r.mu.users))
	for n := range r.mu.users {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// List returns each user as "user <name> <description>", sorted by name
// (ACL LIST, ACL SAVE).
func (r *Registry) List() []string {
	var out []string
	for _, n := range r.Names() {
		if u := r.User(n); u != nil {
			out = append(out, "user "+n+" "+u.Rules().Describe())
		}
	}
	return out
}

// Authenticate returns the user that name and pass authenticate, or nil
// when the user does not exist, is disabled, or pass is wrong.
func (r *Registry) Authenticate(name, pass []byte) *User {
	u := r.User(string(name))
	if u == nil || !u.Rules().CheckPassword(pass) {
		return nil
	}
	return u
}

// SetUser applies ops to the user named name, creating it when it does
// not exist, as ACL SETUSER: all of them or, on an error, none. It
// returns the user and its rules before (nil for a new user), or Redis's
// error text without the "ERR " prefix.
func (r *Registry) SetUser(name string, ops []string) (*User, *Rules, error) {
	merged, open := mergeSelectorArgs(ops)
	if open >= 0 {
		return nil, nil, fmt.Errorf("Unmatched parenthesis in acl selector starting at '%s'.", ops[open])
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	u := r.mu.users[name]
	var old *Rules
	var next *Rules
	if u != nil {
		old = u.Rules()
		next = old.clone()
	} else {
		next = newRules(r.u, r.AllChannelsDefault.Load())
	}
	all := r.AllChannelsDefault.Load()
	for _, op := range merged {
		if err := next.apply(op, all); err != nil {
			return nil, nil, fmt.Errorf("Error in ACL SETUSER modifier '%s': %s", op, err.Error())
		}
	}
	if u == nil {
		u = &User{name: name}
		r.mu.users[name] = u
	}
	u.rules.Store(next.finish())
	r.updateRestrictedLocked()
	return u, old, nil
}

// SetDefaultPassword makes pass the default user's only password, or
// makes it nopass when pass is empty (requirepass).
func (r *Registry) SetDefaultPassword(pass string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	next := r.def.Rules().clone()
	next.apply("resetpass", false)
	if pass != "" {
		next.apply(">"+pass, false)
	} else {
		next.apply("nopass", false)
	}
	r.def.rules.Store(next.finish())
	r.updateRestrictedLocked()
}

// Delete removes the named users (never the default one) and returns
// those it removed, marked deleted: their connections must be closed.
func (r *Registry) Delete(names []string) []*User {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*User
	for _, n := range names {
		if u := r.mu.users[n]; u != nil && u != r.def {
			delete(r.mu.users, n)
			u.deleted.Store(true)
			out = append(out, u)
		}
	}
	r.updateRestrictedLocked()
	return out
}

// HasSpaces reports whether a user name has spaces or NUL bytes, which
// Redis refuses.
func HasSpaces(name string) bool { return hasSpaces(name) }

// CheckUserLine validates the rules of a config file's "user <name>
// rules..." line, as Redis's ACLAppendUserForLoading (unknown commands are
// let through there). On an error it returns the index of the rule at
// fault (after selectors spread over several arguments are joined) or of
// the argument opening an unclosed selector.
func (r *Registry) CheckUserLine(rules []string) (int, error) {
	merged, open := mergeSelectorArgs(rules)
	if open >= 0 {
		return open, ruleErr(rules[open], errSyntax)
	}
	all := r.AllChannelsDefault.Load()
	fake := newRules(r.u, all)
	for j, op := range merged {
		if err := fake.apply(op, all); err != nil && !err.UnknownName() {
			return j, err
		}
	}
	return 0, nil
}

// LoadUserLines creates the users of a config file's user lines ("user"
// removed: name then rules; each name once, CheckUserLine validated
// them), as Redis's ACLLoadConfiguredUsers: the default user is reset
// before its rules apply.
func (r *Registry) LoadUserLines(lines [][]string) error {
	for _, l := range lines {
		name := l[0]
		if hasSpaces(name) {
			return fmt.Errorf("Spaces not allowed in ACL usernames")
		}
		ops, open := mergeSelectorArgs(l[1:])
		if open >= 0 {
			return fmt.Errorf("Unmatched parenthesis in acl selector starting at '%s'.", l[1+open])
		}
		all := r.AllChannelsDefault.Load()
		next := newRules(r.u, all)
		if name == "default" {
			next = r.def.Rules().clone()
			next.apply("reset", all)
		}
		for _, op := range ops {
			if err := next.apply(op, all); err != nil {
				return fmt.Errorf("Error loading ACL rule '%s' for the user named '%s': %s", op, name, err.Error())
			}
		}
		r.mu.Lock()
		u := r.mu.users[name]
		if u == nil {
			u = &User{name: name}
			r.mu.users[name] = u
		}
		u.rules.Store(next.finish())
		r.updateRestrictedLocked()
		r.mu.Unlock()
	}
	return nil
}

// LoadFile replaces the users with those of the ACL file at path, as ACL
// LOAD and start-up do (Redis's ACLLoadFromFile): every line must load, or
// nothing changes and the error says what was wrong (name is how the
// messages call the file: the aclfile setting). The default user keeps
// its identity and takes the file's rules (those of a new default user
// when the file has none); every other user is replaced, and the
// replaced users are returned, marked deleted: their connections must be
// closed.
func (r *Registry) LoadFile(path, name string) ([]*User, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("Error loading ACLs, opening file '%s': %s", path, errnoText(err))
	}
	all := r.AllChannelsDefault.Load()
	var errs strings.Builder
	users := map[string]*Rules{}
	for i, line := range strings.Split(string(data), "\n") {
		num := i + 1
		line = strings.Trim(line, " \t\r\n")
		if line == "" {
			continue
		}
		argv := strings.Split(line, " ")
		if argv[0] != "user" || len(argv) < 2 {
			fmt.Fprintf(&errs, "%s:%d should start with user keyword followed by the username. ", name, num)
			continue
		}
		if hasSpaces(argv[1]) {
			fmt.Fprintf(&errs, "'%s:%d: username '%s' contains invalid characters. ", name, num, argv[1])
			continue
		}
		if users[argv[1]] != nil {
			fmt.Fprintf(&errs, "WARNING: Duplicate user '%s' found on line %d. ", argv[1], num)
			continue
		}
		rules := newRules(r.u, all)
		users[argv[1]] = rules
		ops, open := mergeSelectorArgs(argv[2:])
		if open >= 0 {
			fmt.Fprintf(&errs, "%s:%d: Unmatched parenthesis in selector definition.", name, num)
		}
		syntax := false
		for _, op := range ops {
			op = strings.Trim(op, "\t\r\n")
			if err := rules.apply(op, all); err != nil {
				if err.UnknownName() {
					fmt.Fprintf(&errs, "%s:%d: Error in applying operation '%s': %s. ", name, num, op, err.Error())
				} else if !syntax {
					fmt.Fprintf(&errs, "%s:%d: %s. ", name, num, err.Error())
					syntax = true
				}
			}
		}
	}
	if errs.Len() > 0 {
		errs.WriteString("WARNING: ACL errors detected, no change to the previously active ACL rules was performed")
		return nil, fmt.Errorf("%s", errs.String())
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var gone []*User
	for n, u := range r.mu.users {
		if u != r.def {
			u.deleted.Store(true)
			gone = append(gone, u)
		}
		delete(r.mu.users, n)
	}
	def := users["default"]
	if def == nil {
		def = defaultRules(r.u)
	}
	r.def.rules.Store(def.finish())
	r.mu.users["default"] = r.def
	for n, rules := range users {
		if n != "default" {
			u := &User{name: n}
			u.rules.Store(rules.finish())
			r.mu.users[n] = u
		}
	}
	r.updateRestrictedLocked()
	return gone, nil
}

// Restricted reports whether some user may not do everything. While no
// user is restricted, no command needs a permission check: the fast path
// of the server's checks is this one flag.
func (r *Registry) Restricted() bool { return r.restricted.Load() }

// updateRestrictedLocked recomputes Restricted after users or rules
// changed; r.mu is held.
func (r *Registry) updateRestrictedLocked() {
	any := false
	for _, u := range r.mu.users {
		any = any || !u.Rules().Unrestricted()
	}
	r.restricted.Store(any)
}

// SaveFile writes the users to the ACL file at path, replacing it
// atomically (ACL SAVE).
func (r *Registry) SaveFile(path string) error {
	var b strings.Builder
	for _, l := range r.List() {
		b.WriteString(l + "\n")
	}
	tmp := fmt.Sprintf("%s.tmp-%d", path, os.Getpid())
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// errnoText is strerror's text for err's errno where Go's differs.
func errnoText(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		err = pe.Err
	}
	s := err.Error()
	if len(s) > 0 {
		s = strings.ToUpper(s[:1]) + s[1:]
	}
	return s
}

// GenPass returns bits random bits as hex digits ((bits+3)/4 of them),
// as ACL GENPASS; bits must be in 1..4096.
func GenPass(bits int) string {
	buf := make([]byte, (bits+7)/8+1)
	rand.Read(buf)
	return hex.EncodeToString(buf)[:(bits+3)/4]
}
