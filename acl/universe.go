// Package acl is Redis 7.0's access control lists: users with passwords
// and selectors (the commands, keys and channels a user may reach), the
// rule language of ACL SETUSER and of `user` lines, the description ACL
// LIST and GETUSER print, the ACL file, and the ACL log. It knows nothing
// of connections or of the server: the server hands it the command
// universe (Universe) and asks it whether a user may run a command with
// given keys and channels (Rules.Check).
//
// Concurrency: a User is a stable identity whose rules are an immutable
// Rules value, replaced atomically by ACL SETUSER; permission checks read
// them without locks. The Registry's users and the Log have mutexes of
// their own (leaves: nothing is taken while holding them).
package acl

import (
	"sort"
	"strings"
)

// Category is a set of ACL command categories, one bit each.
type Category uint64

// Categories lists the command categories in Redis's order (ACL CAT, the
// order ACL LIST's description tries them).
var Categories = []string{
	"keyspace", "read", "write", "set", "sortedset", "list", "hash", "string",
	"bitmap", "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow",
	"blocking", "dangerous", "connection", "transaction", "scripting",
}

// CategoryByName returns the category named name (without '@', any case),
// or 0 when there is none.
func CategoryByName(name string) Category {
	for i, c := range Categories {
		if strings.EqualFold(c, name) {
			return 1 << i
		}
	}
	return 0
}

// CommandInfo describes one command or subcommand to the universe.
type CommandInfo struct {
	Name       string // lower case; "parent|sub" for a subcommand
	Categories Category
	// NoAuth marks commands every user may run whatever its command
	// rules (AUTH, HELLO, QUIT, ...), as Redis's CMD_NO_AUTH.
	NoAuth bool
}

// command is a CommandInfo with its place in the universe.
type command struct {
	CommandInfo
	id     int
	parent int   // -1 for a top-level command
	subs   []int // ids of its subcommands, by name
}

// Universe is the set of commands ACL rules speak of, each with an id
// (its bit in a selector's command bitmap). It is built once and never
// changed.
type Universe struct {
	cmds   []command
	top    []int // top-level commands by name
	byName map[string]int
}

// NewUniverse builds the universe from the commands and subcommands of
// the server's command table; a subcommand's parent must be listed too.
// Ids are assigned in the order of cmds.
func NewUniverse(cmds []CommandInfo) *Universe {
	u := &Universe{byName: make(map[string]int, len(cmds))}
	for i, ci := range cmds {
		ci.Name = strings.ToLower(ci.Name)
		u.cmds = append(u.cmds, command{CommandInfo: ci, id: i, parent: -1})
		u.byName[ci.Name] = i
	}
	for i := range u.cmds {
		c := &u.cmds[i]
		if p, _, ok := strings.Cut(c.Name, "|"); ok {
			pid := u.byName[p]
			c.parent = pid
			u.cmds[pid].subs = append(u.cmds[pid].subs, i)
		} else {
			u.top = append(u.top, i)
		}
	}
	byName := func(ids []int) {
		sort.Slice(ids, func(a, b int) bool { return u.cmds[ids[a]].Name < u.cmds[ids[b]].Name })
	}
	byName(u.top)
	for i := range u.cmds {
		byName(u.cmds[i].subs)
	}
	return u
}

// ID returns the id of the command with full name name (lower case), or
// -1.
func (u *Universe) ID(name string) int {
	if id, ok := u.byName[name]; ok {
		return id
	}
	return -1
}

// lookup finds a command by its full name in any case, as Redis's
// lookupCommandBySds: "name" or "parent|sub"; nil when there is none.
func (u *Universe) lookup(name string) *command {
	name = strings.ToLower(name)
	parts := strings.Split(name, "|")
	if len(parts) > 2 {
		return nil
	}
	id, ok := u.byName[parts[0]]
	if !ok {
		return nil
	}
	if len(parts) == 1 {
		return &u.cmds[id]
	}
	if len(u.cmds[id].subs) == 0 {
		return nil
	}
	sid, ok := u.byName[name]
	if !ok {
		return nil
	}
	return &u.cmds[sid]
}

// InCategory returns the full names of the commands and subcommands in
// category cat, parents before their subcommands (ACL CAT category).
func (u *Universe) InCategory(cat Category) []string {
	var out []string
	var walk func(ids []int)
	walk = func(ids []int) {
		for _, id := range ids {
			c := &u.cmds[id]
			if c.Categories&cat != 0 {
				out = append(out, c.Name)
			}
			walk(c.subs)
		}
	}
	walk(u.top)
	return out
}

// words is the length of a command bitmap, with room for the reserved
// bit that marks rules able to run future commands (+@all).
func (u *Universe) words() int { return (len(u.cmds) + 64) / 64 }
