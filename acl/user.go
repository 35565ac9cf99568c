package acl

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/hotkv/hotkv/glob"
)

// User is a user: a name that does not change and rules that ACL SETUSER
// replaces as a whole. Connections hold the User they authenticated as;
// each check reads its current rules.
type User struct {
	name    string
	rules   atomic.Pointer[Rules]
	deleted atomic.Bool
}

// Name returns the user's name.
func (u *User) Name() string { return u.name }

// Rules returns the user's current rules (never nil).
func (u *User) Rules() *Rules { return u.rules.Load() }

// Deleted reports whether the user was deleted (ACL DELUSER, ACL LOAD).
func (u *User) Deleted() bool { return u.deleted.Load() }

// payload sanitization flags of a user.
const (
	sanitizeDefault = iota // neither flag
	sanitizePayload
	skipSanitize
)

// Rules are a user's flags, passwords and selectors. A published Rules
// value is never changed.
type Rules struct {
	u         *Universe
	enabled   bool
	nopass    bool
	sanitize  int8
	passwords []string // SHA-256 hex digests
	selectors []*selector
	// all: the root selector allows every command, key and channel.
	all bool
}

// Unrestricted reports whether the rules allow every command on every key
// and channel: the fast path of permission checks.
func (r *Rules) Unrestricted() bool { return r.all }

// Enabled reports whether the user may authenticate ("on").
func (r *Rules) Enabled() bool { return r.enabled }

// NoPass reports whether any password authenticates the user ("nopass").
func (r *Rules) NoPass() bool { return r.nopass }

// SkipSanitizePayload reports whether the user's RESTORE payloads are
// trusted ("skip-sanitize-payload").
func (r *Rules) SkipSanitizePayload() bool { return r.sanitize == skipSanitize }

func newRules(u *Universe, allChannelsDefault bool) *Rules {
	return &Rules{u: u, selectors: []*selector{newSelector(u, allChannelsDefault)}}
}

func (r *Rules) clone() *Rules {
	c := *r
	c.passwords = slices.Clone(r.passwords)
	c.selectors = make([]*selector, len(r.selectors))
	for i, s := range r.selectors {
		c.selectors[i] = s.clone()
	}
	return &c
}

func (r *Rules) finish() *Rules {
	root := r.selectors[0]
	r.all = root.flags&(allCommands|allKeys|allChannels) == allCommands|allKeys|allChannels
	return r
}

// HashPassword returns the SHA-256 hex digest ACL rules keep of a
// password.
func HashPassword(pass []byte) string {
	sum := sha256.Sum256(pass)
	return hex.EncodeToString(sum[:])
}

func validHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	for i := 0; i < len(h); i++ {
		if c := h[i]; (c < 'a' || c > 'f') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// CheckPassword reports whether pass authenticates a user with rules r:
// the user is enabled, and is nopass or has pass among its passwords.
func (r *Rules) CheckPassword(pass []byte) bool {
	if !r.enabled {
		return false
	}
	if r.nopass {
		return true
	}
	h := HashPassword(pass)
	ok := false
	for _, p := range r.passwords {
		if subtle.ConstantTimeCompare([]byte(h), []byte(p)) == 1 {
			ok = true
		}
	}
	return ok
}

// apply applies one rule to r (ACLSetUser); allChannelsDefault is
// acl-pubsub-default (new selectors and reset start with all channels).
func (r *Rules) apply(op string, allChannelsDefault bool) *RuleError {
	switch {
	case op == "":
	case strings.EqualFold(op, "on"):
		r.enabled = true
	case strings.EqualFold(op, "off"):
		r.enabled = false
	case strings.EqualFold(op, "skip-sanitize-payload"):
		r.sanitize = skipSanitize
	case strings.EqualFold(op, "sanitize-payload"):
		r.sanitize = sanitizePayload
	case strings.EqualFold(op, "nopass"):
		r.nopass = true
		r.passwords = nil
	case strings.EqualFold(op, "resetpass"):
		r.nopass = false
		r.passwords = nil
	case op[0] == '>' || op[0] == '#':
		h := op[1:]
		if op[0] == '>' {
			h = HashPassword([]byte(op[1:]))
		} else if !validHash(h) {
			return ruleErr(op, errBadHash)
		}
		if !slices.Contains(r.passwords, h) {
			r.passwords = append(r.passwords, h)
		}
		r.nopass = false
	case op[0] == '<' || op[0] == '!':
		h := op[1:]
		if op[0] == '<' {
			h = HashPassword([]byte(op[1:]))
		} else if !validHash(h) {
			return ruleErr(op, errBadHash)
		}
		i := slices.Index(r.passwords, h)
		if i < 0 {
			return ruleErr(op, errNoSuchPass)
		}
		r.passwords = slices.Delete(r.passwords, i, i+1)
	case op[0] == '(' && op[len(op)-1] == ')':
		s, err := parseSelector(r.u, op, allChannelsDefault)
		if err != nil {
			return err
		}
		r.selectors = append(r.selectors, s)
	case strings.EqualFold(op, "clearselectors"):
		r.selectors = r.selectors[:1]
	case strings.EqualFold(op, "reset"):
		r.nopass, r.passwords = false, nil
		root := r.selectors[0]
		root.apply(r.u, "resetkeys")
		root.apply(r.u, "resetchannels")
		if allChannelsDefault {
			root.apply(r.u, "allchannels")
		}
		r.enabled = false
		r.sanitize = sanitizePayload
		r.selectors = r.selectors[:1]
		root.apply(r.u, "-@all")
	default:
		return r.selectors[0].apply(r.u, op)
	}
	return nil
}

// mergeSelectorArgs joins the rules of a selector spread over several
// arguments ("(~x" "+get)") into one, as Redis's
// ACLMergeSelectorArguments; it returns the index of the argument that
// opens an unclosed selector, or -1.
func mergeSelectorArgs(ops []string) ([]string, int) {
	var out []string
	open := -1
	var cur string
	for j, op := range ops {
		if open < 0 && len(op) > 0 && op[0] == '(' && op[len(op)-1] != ')' {
			cur, open = op, j
			continue
		}
		if open >= 0 {
			cur += " " + op
			if len(op) > 0 && op[len(op)-1] == ')' {
				out = append(out, cur)
				open = -1
			}
			continue
		}
		out = append(out, op)
	}
	if open >= 0 {
		return nil, open
	}
	return out, -1
}

// Denial says why a command was refused; its values are Redis's
// ACL_DENIED_* (the ACL log's reason).
type Denial int

// Denials.
const (
	Allowed Denial = iota
	DeniedCommand
	DeniedKey
	DeniedAuth // failed authentication: only in the log
	DeniedChannel
)

// KeyRef is a key argument of a command and what the command does with
// it (from its key spec: access reads, insert/delete/update write).
type KeyRef struct {
	Pos  int
	Perm Perm
}

// ChannelRef is a channel a command subscribes or publishes to; Pattern:
// a PSUBSCRIBE pattern, which must equal an allowed pattern literally.
type ChannelRef struct {
	Pos     int
	Pattern bool
}

// Request is a command to check: its arguments, its keys with the
// permission each needs, and its channels.
type Request struct {
	ID       int // the command's id in the universe
	Args     [][]byte
	Keys     []KeyRef
	Channels []ChannelRef
}

// Check reports whether the rules allow req, as Redis's
// ACLCheckAllUserCommandPerm: allowed when one selector allows the
// command and each of its keys and channels. Otherwise the denial is the
// command's when no selector allowed the command, else that of the key or
// channel with the highest denial (then position), whose argument
// position it returns.
func (r *Rules) Check(req *Request) (Denial, int) {
	if r.all {
		return Allowed, 0
	}
	worst, worstPos := DeniedCommand, 0
	for _, s := range r.selectors {
		d, pos := s.check(r.u, req)
		if d == Allowed {
			return Allowed, 0
		}
		if d > worst || d == worst && pos > worstPos {
			worst, worstPos = d, pos
		}
	}
	return worst, worstPos
}

func (s *selector) check(u *Universe, req *Request) (Denial, int) {
	c := &u.cmds[req.ID]
	if s.flags&allCommands == 0 && !c.NoAuth && !s.bit(req.ID) {
		idx := 1
		if c.parent >= 0 {
			idx = 2
		}
		allowed := s.firstArgs[req.ID]
		if len(req.Args) < 2 || len(allowed) == 0 || idx >= len(req.Args) ||
			!slices.ContainsFunc(allowed, func(a string) bool { return strings.EqualFold(a, string(req.Args[idx])) }) {
			return DeniedCommand, 0
		}
	}
	if s.flags&allKeys == 0 {
		for _, k := range req.Keys {
			if !s.keyAllowed(req.Args[k.Pos], k.Perm) {
				return DeniedKey, k.Pos
			}
		}
	}
	if s.flags&allChannels == 0 {
		for _, ch := range req.Channels {
			if !channelAllowed(s.channels, req.Args[ch.Pos], ch.Pattern) {
				return DeniedChannel, ch.Pos
			}
		}
	}
	return Allowed, 0
}

// keyAllowed reports whether a pattern of s grants perm on key.
func (s *selector) keyAllowed(key []byte, perm Perm) bool {
	if s.flags&allKeys != 0 {
		return true
	}
	for _, p := range s.keys {
		if p.perm&perm == perm && glob.Match(p.bytes, key, false) {
			return true
		}
	}
	return false
}

// channelAllowed reports whether list allows channel: by glob match, or
// for a subscription pattern, by being one of the patterns literally.
func channelAllowed(list []string, channel []byte, pattern bool) bool {
	for _, p := range list {
		if pattern && p == string(channel) || !pattern && glob.Match([]byte(p), channel, false) {
			return true
		}
	}
	return false
}

// KeyAllowed reports whether one of the selectors grants perm on key
// (ACLUserCheckKeyPerm: scripts' and SORT's extra keys).
func (r *Rules) KeyAllowed(key []byte, perm Perm) bool {
	if r.all {
		return true
	}
	for _, s := range r.selectors {
		if s.keyAllowed(key, perm) {
			return true
		}
	}
	return false
}

// ChannelAllowed reports whether the rules allow subscribing or
// publishing to channel (a pattern: PSUBSCRIBE's).
func (r *Rules) ChannelAllowed(channel []byte, pattern bool) bool {
	for _, s := range r.selectors {
		if s.flags&allChannels != 0 || channelAllowed(s.channels, channel, pattern) {
			return true
		}
	}
	return false
}

// CheckWithAllKeys reports whether one selector allows req and grants
// perm on every key (a pattern "*" with perm, or allkeys), as Redis's
// ACLUserCheckCmdWithUnrestrictedKeyAccess: SORT's BY and GET patterns
// need it.
func (r *Rules) CheckWithAllKeys(req *Request, perm Perm) bool {
	if r.all {
		return true
	}
	for _, s := range r.selectors {
		if d, _ := s.check(r.u, req); d != Allowed {
			continue
		}
		if s.flags&allKeys != 0 || slices.ContainsFunc(s.keys, func(k keyPattern) bool { return k.perm&perm == perm && k.pattern == "*" }) {
			return true
		}
	}
	return false
}

// ChannelsSuperset reports whether every subscription permitted by old is
// permitted by r as well, judged as Redis's ACLKillPubsubClientsIfNeeded:
// r has a selector with all channels, or old has none and each of old's
// channel patterns is one of r's.
func (r *Rules) ChannelsSuperset(old *Rules) bool {
	for _, s := range r.selectors {
		if s.flags&allChannels != 0 {
			return true
		}
	}
	up := r.allChannels()
	for _, s := range old.selectors {
		if s.flags&allChannels != 0 {
			return false
		}
		for _, c := range s.channels {
			if !slices.Contains(up, c) {
				return false
			}
		}
	}
	return true
}

// allChannels returns the channel patterns of all selectors.
func (r *Rules) allChannels() []string {
	var out []string
	for _, s := range r.selectors {
		out = append(out, s.channels...)
	}
	return out
}

// KeepsSubscription reports whether a subscriber whose rules changed from
// old to r keeps the subscription to channel (pattern: a PSUBSCRIBE
// pattern). Redis disconnects subscribers that lose one.
func (r *Rules) KeepsSubscription(channel []byte, pattern bool) bool {
	for _, s := range r.selectors {
		if s.flags&allChannels != 0 {
			return true
		}
	}
	return channelAllowed(r.allChannels(), channel, pattern)
}
