package server

import (
	"fmt"
	"time"

	"github.com/hotkv/hotkv/acl"
	"github.com/hotkv/hotkv/config"
)

// ACL: each connection runs as a user of the registry (package acl), the
// default user until AUTH or HELLO authenticates it as another. Its
// permissions are checked at the gate for the commands it sends (inside
// MULTI too, before they are queued), and by the executor's Refuse hook
// for the commands that run on its behalf: EXEC's queue (the rules may
// have changed since) and a script's redis.call (as the script caller's
// user). Internal clients (the AOF replay, a replica's master) have no
// user and may run anything. While every user may do everything (no ACL
// rules in use: the default), a command passes with one flag test
// (acl.Registry.Restricted); then a user allowed everything passes with
// one more (acl.Rules.Unrestricted).

// initACL builds the ACL universe from the command table (ids in full-name
// order) and the registry, applies requirepass to the default user and
// keeps it applied, has CONFIG REWRITE write the users, and installs the
// executor's check. The users of the configuration are loaded by
// CheckStartup (loadUsers).
func (s *Server) initACL(cfg *config.Config) {
	var infos []acl.CommandInfo
	for i, cmd := range s.table.all() {
		cmd.id = i
		var cats acl.Category
		for _, name := range metaFor(cmd).ACLCategories {
			cats |= acl.CategoryByName(name[1:])
		}
		infos = append(infos, acl.CommandInfo{Name: cmd.Name, Categories: cats, NoAuth: cmd.Flags&NoAuth != 0})
	}
	s.acl = acl.NewRegistry(acl.NewUniverse(infos))
	s.aclLogMaxLen = cfg.Lookup("acllog-max-len")
	pubsubDefault := cfg.Lookup("acl-pubsub-default")
	s.acl.AllChannelsDefault.Store(pubsubDefault.Enum() == "allchannels")
	cfg.OnChange("acl-pubsub-default", func(p *config.Param) error {
		s.acl.AllChannelsDefault.Store(p.Enum() == "allchannels")
		return nil
	})
	s.acl.SetDefaultPassword(s.requirepass.String())
	cfg.OnChange("requirepass", func(p *config.Param) error {
		s.acl.SetDefaultPassword(p.String())
		return nil
	})
	// CONFIG REWRITE writes the users as user lines, unless they live in
	// an ACL file (Redis's rewriteConfigUserOption).
	cfg.RegisterRewriter("user", func() []string {
		if cfg.Lookup("aclfile").String() != "" {
			return nil
		}
		return s.acl.List()
	})
	s.AddHooks(Hooks{Refuse: []func(*Client, *Command, [][]byte, []int) string{s.aclRefuse},
		RefuseActive: s.acl.Restricted}) // aclRefuse lets every command by while no user is restricted
}

// authRequired reports whether connections that did not authenticate are
// refused (NOAUTH): the default user has a password or is disabled.
func (s *Server) authRequired() bool {
	r := s.acl.Default().Rules()
	return !r.NoPass() || !r.Enabled()
}

// setDefaultAuth makes c the default user's, authenticated when that user
// needs no password (a new connection, RESET).
func (c *Client) setDefaultAuth() {
	def := c.srv.acl.Default()
	c.user.Store(def)
	r := def.Rules()
	c.setAuthenticated(r.NoPass() && r.Enabled())
}

// userName is the name of c's user (CLIENT LIST's user=), "" for an
// internal client.
func (c *Client) userName() string {
	if u := c.user.Load(); u != nil {
		return u.Name()
	}
	return ""
}

// authenticate authenticates c as user with pass (AUTH, HELLO AUTH). A
// failure is logged in the ACL log as Redis's ACL_DENIED_AUTH, with the
// command's name as sent for object.
func (c *Client) authenticate(args [][]byte, user, pass []byte) bool {
	u := c.srv.acl.Authenticate(user, pass)
	if u == nil {
		ctx := acl.TopLevel
		if c.tx.active || c.tx.inExec { // AUTH queued in MULTI runs in EXEC
			ctx = acl.Multi
		}
		c.srv.aclLog(c, acl.DeniedAuth, ctx, string(args[0]), string(user), args)
		return false
	}
	c.user.Store(u)
	c.setAuthenticated(true)
	if u.Deleted() { // ACL DELUSER ran meanwhile
		c.closeAfter = true
	}
	return true
}

// aclCheck checks c's permission to run cmd with args (Redis's
// ACLCheckAllPerm); it returns acl.Allowed at once for a client without a
// user or whose user may do everything.
func (c *Client) aclCheck(cmd *Command, args [][]byte) (acl.Denial, int) {
	u := c.user.Load()
	if u == nil {
		return acl.Allowed, 0
	}
	r := u.Rules()
	if r.Unrestricted() {
		return acl.Allowed, 0
	}
	var keys [8]acl.KeyRef
	req := aclRequest(keys[:0], cmd, args)
	return r.Check(&req)
}

// aclRequest describes a call to the ACL rules: its keys with what the
// command does with each (from the key specs' flags), and the channels
// it subscribes or publishes to.
// The keys are appended to keys.
func aclRequest(keys []acl.KeyRef, cmd *Command, args [][]byte) acl.Request {
	req := acl.Request{ID: cmd.id, Args: args}
	if cmd.First != 0 || cmd.Keys != nil {
		req.Keys = aclKeys(keys, cmd, args)
	}
	switch cmd.Name {
	case "subscribe", "ssubscribe", "psubscribe":
		// SSUBSCRIBE's and SPUBLISH's channels are keys of no access for
		// cluster routing (not_key): checked as channels only.
		for i := 1; i < len(args); i++ {
			req.Channels = append(req.Channels, acl.ChannelRef{Pos: i, Pattern: cmd.Name == "psubscribe"})
		}
	case "publish", "spublish":
		req.Channels = []acl.ChannelRef{{Pos: 1}}
	}
	return req
}

// aclKeys returns the keys of a call with the permission each needs:
// read for key specs with "access", write for "insert", "delete" or
// "update", as Redis's ACLSelectorCheckKey.
func aclKeys(out []acl.KeyRef, cmd *Command, args [][]byte) []acl.KeyRef {
	var buf [8]int
	pos := cmd.keyPositions(buf[:0], args)
	if cmd.Name == "set" { // its key's flags depend on GET
		return append(out, acl.KeyRef{Pos: 1, Perm: keyPerm(setKeyFlags(args))})
	}
	if m := metaFor(cmd); len(m.specs) == 1 && !m.specs[0].notKey && cmd.Keys == nil && cmd.Name != "bitfield" {
		// One key spec (most commands): every key needs its permission.
		for _, p := range pos {
			out = append(out, acl.KeyRef{Pos: p, Perm: m.specs[0].perm})
		}
		return out
	}
	flags := keyFlags(cmd, args, pos)
	for i, p := range pos {
		if !hasFlag(flags[i], "not_key") { // SPUBLISH's channel, for cluster routing only
			out = append(out, acl.KeyRef{Pos: p, Perm: keyPerm(flags[i])})
		}
	}
	return out
}

// hasFlag reports whether the key-spec flag set has flag.
func hasFlag(flags *docNode, flag string) bool {
	if flags == nil {
		return false
	}
	for _, f := range flags.elems {
		if f.str == flag {
			return true
		}
	}
	return false
}

// keyPerm is the permission a key-spec flag set needs.
func keyPerm(flags *docNode) acl.Perm {
	var p acl.Perm
	if flags == nil {
		return p
	}
	for _, f := range flags.elems {
		switch f.str {
		case "access":
			p |= acl.Read
		case "insert", "delete", "update":
			p |= acl.Write
		}
	}
	return p
}

// readsAllKeys reports whether c's user may run the command args with
// read access to every key (Redis's
// ACLUserCheckCmdWithUnrestrictedKeyAccess): SORT's BY and GET patterns
// read keys its key spec does not name.
func (c *Client) readsAllKeys(args [][]byte) bool {
	u := c.user.Load()
	if u == nil || u.Rules().Unrestricted() {
		return true
	}
	cmd, _ := c.srv.table.lookup(new([64]byte), args)
	if cmd == nil {
		return false
	}
	req := aclRequest(nil, cmd, args)
	return u.Rules().CheckWithAllKeys(&req, acl.Read)
}

// permitted reports whether the script's caller may run the command args
// (redis.acl_check_cmd).
func (sr *scriptRun) permitted(args [][]byte) bool {
	cmd, _ := sr.s.table.lookup(new([64]byte), args)
	if cmd == nil {
		return false
	}
	d, _ := sr.caller.aclCheck(cmd, args)
	return d == acl.Allowed
}

// aclAdmit checks a command at the gate, before it runs or is queued: a
// denial is logged and answered as Redis's processCommand answers it (and
// makes a pending EXEC abort).
func (s *Server) aclAdmit(c *Client, cmd *Command, args [][]byte) bool {
	d, pos := c.aclCheck(cmd, args)
	if d == acl.Allowed {
		return true
	}
	ctx := acl.TopLevel
	if c.tx.active {
		ctx = acl.Multi
	}
	c.setLastCmd(cmd) // as Redis's lookup sets it: the log's client info shows it
	s.aclLogDenial(c, d, ctx, cmd, args, pos)
	var msg string
	switch d {
	case acl.DeniedCommand:
		msg = fmt.Sprintf(errNoPermCommand, cmd.fullName())
	case acl.DeniedKey:
		msg = errNoPermKey
	default:
		msg = errNoPermChannel
	}
	s.refuse(c, cmd, msg)
	return false
}

// aclRefuse is the executor's Refuse hook: it checks the commands that
// run on a client's behalf past the gate — EXEC's queue and a script's
// redis.call, as the script caller's user — and lets the others through
// (the gate checked them).
func (s *Server) aclRefuse(c *Client, cmd *Command, args [][]byte, _ []int) string {
	if !s.acl.Restricted() || !c.scripted && !c.tx.inExec {
		return ""
	}
	d, pos := c.aclCheck(cmd, args)
	if d == acl.Allowed {
		return ""
	}
	if c.scripted {
		s.aclLogDenial(c, d, acl.Lua, cmd, args, pos)
		return errScriptNoPerm + aclReason(d)
	}
	s.aclLogDenial(c, d, acl.Multi, cmd, args, pos)
	switch d {
	case acl.DeniedCommand:
		return errExecNoPerm + "no permission to execute the command or subcommand"
	case acl.DeniedKey:
		return errExecNoPerm + "no permission to touch the specified keys"
	}
	return errExecNoPerm + "no permission to access one of the channels used as arguments"
}

// aclReason is Redis's getAclErrorMessage.
func aclReason(d acl.Denial) string {
	switch d {
	case acl.DeniedCommand:
		return "can't run this command or subcommand"
	case acl.DeniedKey:
		return "can't access at least one of the keys mentioned in the command arguments"
	case acl.DeniedChannel:
		return "can't publish to the channel mentioned in the command"
	}
	return "lacking the permissions for the command"
}

// aclLogDenial adds a refused command to the ACL log: its object is the
// command's full name, or the key or channel at pos.
func (s *Server) aclLogDenial(c *Client, d acl.Denial, ctx acl.Context, cmd *Command, args [][]byte, pos int) {
	obj := cmd.fullName()
	if d != acl.DeniedCommand {
		obj = string(args[pos])
	}
	s.aclLog(c, d, ctx, obj, c.userName(), args)
}

// aclLog adds an entry to the ACL log, with the client's CLIENT LIST line
// (a script's caller's for its redis.call).
func (s *Server) aclLog(c *Client, d acl.Denial, ctx acl.Context, obj, user string, args [][]byte) {
	real := c
	if c.scripted && c.sr.caller != nil {
		real = c.sr.caller
	}
	info := ""
	if real.conn != nil {
		info = string(real.appendClientInfo(nil, real, args, time.Now()))
	}
	s.acl.Log.Add(acl.LogEntry{Reason: d, Context: ctx, Object: obj, Username: user, ClientInfo: info}, int(s.aclLogMaxLen.Int()))
}

// killUserClients closes the connections authenticated as the deleted
// users: c's own after its reply, as Redis's ACLFreeUserAndKillClients.
func (s *Server) killUserClients(c *Client, gone []*acl.User) {
	if len(gone) == 0 {
		return
	}
	for _, cl := range s.clientsByID() {
		u := cl.user.Load()
		for _, g := range gone {
			if u != g {
				continue
			}
			if cl == c {
				c.closeAfter = true
			} else {
				cl.kill()
			}
		}
	}
}

// killRevokedSubscribers closes the connections of u's subscribers that
// lost one of their subscriptions when u's rules changed from old, as
// Redis's ACLKillPubsubClientsIfNeeded.
func (s *Server) killRevokedSubscribers(u *acl.User, old *acl.Rules) {
	r := u.Rules()
	if r.ChannelsSuperset(old) {
		return
	}
	kill := map[*Client]bool{}
	ps := &s.pubsub
	ps.mu.RLock()
	for kind := range ps.subs {
		for name, clients := range ps.subs[kind] {
			for cl := range clients {
				if cl.user.Load() == u && !kill[cl] && !r.KeepsSubscription([]byte(name), kind == subPattern) {
					kill[cl] = true
				}
			}
		}
	}
	ps.mu.RUnlock()
	for cl := range kill {
		cl.kill()
	}
}
