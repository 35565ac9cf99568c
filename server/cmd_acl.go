package server

import (
	"fmt"
	"strings"
	"time"

	"github.com/hotkv/hotkv/acl"
)

func aclCommands() []*Command {
	const admin = Admin | NoScript | Loading | Stale
	const plain = NoScript | Loading | Stale
	return []*Command{
		{Name: "acl", Arity: -2, Sub: map[string]*Command{
			"cat":     {Arity: -2, Flags: plain, Handler: cmdACLCat},
			"deluser": {Arity: -3, Flags: admin, Handler: cmdACLDelUser},
			"dryrun":  {Arity: -4, Flags: admin, Handler: cmdACLDryRun},
			"genpass": {Arity: -2, Flags: plain, Handler: cmdACLGenPass},
			"getuser": {Arity: 3, Flags: admin, Handler: cmdACLGetUser},
			"help":    {Arity: 2, Flags: Loading | Stale, Handler: cmdACLHelp},
			"list":    {Arity: 2, Flags: admin, Handler: cmdACLList},
			"load":    {Arity: 2, Flags: admin, Handler: cmdACLLoad},
			"log":     {Arity: -2, Flags: admin, Handler: cmdACLLog},
			"save":    {Arity: 2, Flags: admin, Handler: cmdACLSave},
			"setuser": {Arity: -3, Flags: admin, Handler: cmdACLSetUser},
			"users":   {Arity: 2, Flags: admin, Handler: cmdACLUsers},
			"whoami":  {Arity: 2, Flags: plain, Handler: cmdACLWhoami},
		}},
	}
}

// ACL SETUSER username [rule ...]
//
// All the rules apply or none. Subscribers of the user that lose a
// subscription are disconnected.
func cmdACLSetUser(c *Client, args [][]byte) {
	name := string(args[2])
	if acl.HasSpaces(name) {
		c.errorReply(errACLUserSpaces)
		return
	}
	ops := make([]string, 0, len(args)-3)
	for _, a := range args[3:] {
		ops = append(ops, string(a))
	}
	u, old, err := c.srv.acl.SetUser(name, ops)
	if err != nil {
		c.errorReply("ERR " + err.Error())
		return
	}
	if old != nil {
		c.srv.killRevokedSubscribers(u, old)
	}
	c.w.OK()
}

// ACL DELUSER username [username ...]
//
// The connections authenticated as a deleted user are closed.
func cmdACLDelUser(c *Client, args [][]byte) {
	names := make([]string, 0, len(args)-2)
	for _, a := range args[2:] {
		if string(a) == "default" {
			c.errorReply(errACLDeleteDefault)
			return
		}
		names = append(names, string(a))
	}
	gone := c.srv.acl.Delete(names)
	c.srv.killUserClients(c, gone)
	c.w.Int(int64(len(gone)))
}

// ACL GETUSER username
func cmdACLGetUser(c *Client, args [][]byte) {
	u := c.srv.acl.User(string(args[2]))
	if u == nil {
		c.w.Null()
		return
	}
	info := u.Rules().Info()
	c.w.Map(6)
	c.w.BulkString("flags")
	c.w.Set(len(info.Flags))
	for _, f := range info.Flags {
		c.w.BulkString(f)
	}
	c.w.BulkString("passwords")
	c.w.Array(len(info.Passwords))
	for _, p := range info.Passwords {
		c.w.BulkString(p)
	}
	writeSelectorDescription(c, info.Root)
	c.w.BulkString("selectors")
	c.w.Array(len(info.Selectors))
	for _, d := range info.Selectors {
		c.w.Map(3)
		writeSelectorDescription(c, d)
	}
}

func writeSelectorDescription(c *Client, d acl.Description) {
	c.w.BulkString("commands")
	c.w.BulkString(d.Commands)
	c.w.BulkString("keys")
	c.w.BulkString(d.Keys)
	c.w.BulkString("channels")
	c.w.BulkString(d.Channels)
}

// ACL LIST
func cmdACLList(c *Client, args [][]byte) {
	lines := c.srv.acl.List()
	c.w.Array(len(lines))
	for _, l := range lines {
		c.w.BulkString(l)
	}
}

// ACL USERS
func cmdACLUsers(c *Client, args [][]byte) {
	names := c.srv.acl.Names()
	c.w.Array(len(names))
	for _, n := range names {
		c.w.BulkString(n)
	}
}

// ACL WHOAMI
func cmdACLWhoami(c *Client, args [][]byte) {
	if u := c.user.Load(); u != nil {
		c.w.BulkString(u.Name())
		return
	}
	c.w.Null()
}

// ACL CAT [category]
func cmdACLCat(c *Client, args [][]byte) {
	if len(args) == 2 {
		c.w.Array(len(acl.Categories))
		for _, name := range acl.Categories {
			c.w.BulkString(name)
		}
		return
	}
	if len(args) > 3 {
		c.errorReply(fmt.Sprintf(errSubcommandArgs, args[1], "ACL"))
		return
	}
	cat := acl.CategoryByName(string(args[2]))
	if cat == 0 {
		c.errorReply(fmt.Sprintf(errACLUnknownCat, args[2]))
		return
	}
	names := c.srv.acl.Universe().InCategory(cat)
	c.w.Array(len(names))
	for _, n := range names {
		c.w.BulkString(n)
	}
}

// ACL GENPASS [bits]
func cmdACLGenPass(c *Client, args [][]byte) {
	bits := int64(256)
	if len(args) > 3 {
		c.errorReply(fmt.Sprintf(errSubcommandArgs, args[1], "ACL"))
		return
	}
	if len(args) == 3 {
		n, ok := c.intArg(args[2])
		if !ok {
			return
		}
		bits = n
	}
	if bits <= 0 || bits > 4096 {
		c.errorReply(errACLGenpassBits)
		return
	}
	c.w.BulkString(acl.GenPass(int(bits)))
}

// ACL LOG [count | RESET]
func cmdACLLog(c *Client, args [][]byte) {
	count := int64(10)
	if len(args) > 3 {
		c.errorReply(fmt.Sprintf(errSubcommandArgs, args[1], "ACL"))
		return
	}
	if len(args) == 3 {
		if equalFold(args[2], "reset") {
			c.srv.acl.Log.Reset()
			c.w.OK()
			return
		}
		n, ok := c.intArg(args[2])
		if !ok {
			return
		}
		count = max(n, 0)
	}
	entries := c.srv.acl.Log.Entries(int(min(count, 1<<30)))
	now := time.Now()
	c.w.Array(len(entries))
	for _, e := range entries {
		c.w.Map(7)
		c.w.BulkString("count")
		c.w.Int(e.Count)
		c.w.BulkString("reason")
		c.w.BulkString(e.Reason.String())
		c.w.BulkString("context")
		c.w.BulkString(e.Context.String())
		c.w.BulkString("object")
		c.w.BulkString(e.Object)
		c.w.BulkString("username")
		c.w.BulkString(e.Username)
		c.w.BulkString("age-seconds")
		c.w.Double(float64(now.Sub(e.Updated).Milliseconds()) / 1000)
		c.w.BulkString("client-info")
		c.w.BulkString(e.ClientInfo)
	}
}

// ACL DRYRUN username command [arg ...]
func cmdACLDryRun(c *Client, args [][]byte) {
	u := c.srv.acl.User(string(args[2]))
	if u == nil {
		c.errorReply(fmt.Sprintf(errACLDryrunNoUser, args[2]))
		return
	}
	cargs := args[3:]
	cmd, sub := c.srv.table.lookup(new([64]byte), cargs)
	if cmd == nil || cmd.Sub != nil && !sub && len(cargs) > 1 {
		c.errorReply(fmt.Sprintf(errACLDryrunNoCmd, cargs[0]))
		return
	}
	if cmd.Arity > 0 && len(cargs) != cmd.Arity || len(cargs) < -cmd.Arity {
		c.errorReply(fmt.Sprintf(errArity, cmd.fullName()))
		return
	}
	req := aclRequest(nil, cmd, cargs)
	d, pos := u.Rules().Check(&req)
	switch d {
	case acl.Allowed:
		c.w.OK()
	case acl.DeniedCommand:
		c.w.BulkString(fmt.Sprintf("This user has no permissions to run the '%s' command", cmd.fullName()))
	case acl.DeniedKey:
		c.w.BulkString(fmt.Sprintf("This user has no permissions to access the '%s' key", cargs[pos]))
	default:
		c.w.BulkString(fmt.Sprintf("This user has no permissions to access the '%s' channel", cargs[pos]))
	}
}

// ACL LOAD
func cmdACLLoad(c *Client, args [][]byte) {
	path := c.srv.cfg.Lookup("aclfile").String()
	if path == "" {
		c.errorReply(errACLNoFile)
		return
	}
	gone, err := c.srv.acl.LoadFile(path, path)
	if err != nil {
		c.errorReply("ERR " + err.Error())
		return
	}
	c.srv.killUserClients(c, gone)
	c.w.OK()
}

// ACL SAVE
func cmdACLSave(c *Client, args [][]byte) {
	path := c.srv.cfg.Lookup("aclfile").String()
	if path == "" {
		c.errorReply(errACLNoFile)
		return
	}
	if err := c.srv.acl.SaveFile(path); err != nil {
		c.srv.warnf("Writing ACL file for ACL SAVE: %s", strings.TrimPrefix(err.Error(), "open "))
		c.errorReply(errACLSave)
		return
	}
	c.w.OK()
}

var aclHelp = []string{
	"CAT [<category>]",
	"    List all commands that belong to <category>, or all command categories",
	"    when no category is specified.",
	"DELUSER <username> [<username> ...]",
	"    Delete a list of users.",
	"DRYRUN <username> <command> [<arg> ...]",
	"    Returns whether the user can execute the given command without executing the command.",
	"GETUSER <username>",
	"    Get the user's details.",
	"GENPASS [<bits>]",
	"    Generate a secure 256-bit user password. The optional `bits` argument can",
	"    be used to specify a different size.",
	"LIST",
	"    Show users details in config file format.",
	"LOAD",
	"    Reload users from the ACL file.",
	"LOG [<count> | RESET]",
	"    Show the ACL log entries.",
	"SAVE",
	"    Save the current config to the ACL file.",
	"SETUSER <username> <attribute> [<attribute> ...]",
	"    Create or modify a user with the specified attributes.",
	"USERS",
	"    List all the registered usernames.",
	"WHOAMI",
	"    Return the current connection username.",
}

// ACL HELP
func cmdACLHelp(c *Client, args [][]byte) { c.replyHelpLines("ACL", aclHelp) }
