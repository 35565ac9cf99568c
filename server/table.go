package server

import (
	"slices"
	"strings"
	"sync/atomic"

	"github.com/hotkv/hotkv/latency"
)

// Flag is a command flag. Those up to flagLast are Redis's, reported by
// COMMAND INFO under their Redis names; the rest are HotKV's own.
type Flag uint32

// Command flags, as Redis 7 names them.
const (
	Write Flag = 1 << iota
	Readonly
	DenyOOM
	Admin
	PubSub
	NoScript
	Blocking
	Loading
	Stale
	SkipMonitor
	SkipSlowlog
	Fast
	NoAuth
	MayReplicate
	NoMandatoryKeys
	NoMulti
	AllowBusy
	NoAsyncLoading
	Asking      // RESTORE-ASKING: Redis runs it on a cluster node importing the slot
	Movablekeys // reported by COMMAND INFO; set automatically when Keys != nil

	// Global is HotKV's own: the command takes the global lock exclusively
	// (FLUSHALL, SWAPDB, KEYS, ...) because it needs the whole keyspace
	// still. COMMAND INFO does not report it.
	Global
	// Scripting marks EVAL and FCALL and their variants: the gate takes no
	// lock for them, the script locks what its flags ask for, and EXEC
	// runs a transaction holding one under the global lock.
	Scripting
	// Exclusive is HotKV's own: the gate locks the keys of this read-only
	// command exclusively, because it rewrites its keys' representation
	// (PFCOUNT's cached count). COMMAND INFO does not report it.
	Exclusive
	// LockFree is HotKV's own: the gate takes no lock for the keys this
	// command names, because it reads and writes no value (WATCH only
	// registers the names: a write that signals the key after that marks
	// the watcher dirty, one that signalled before ran before the WATCH).
	// It runs at once even while a busy script holds its keys, as in
	// Redis. COMMAND INFO does not report it.
	LockFree

	// The rules Redis's processCommand writes as comparisons with
	// command procedures are flags here, HotKV's own, not reported by
	// COMMAND INFO:
	//
	// TxControl: runs at once inside MULTI instead of being queued
	// (MULTI, EXEC, DISCARD, WATCH, QUIT, RESET).
	TxControl
	// EndsTx: ends a transaction, so inside MULTI it is not refused over
	// maxmemory as queuing is (EXEC, DISCARD, QUIT, RESET).
	EndsTx
	// RunsQueue: EXEC. Refused, it discards the transaction and answers
	// EXECABORT with the reason.
	RunsQueue
	// DenyMisconf: refused, as writes are, while the data cannot be
	// persisted (PING, as in Redis).
	DenyMisconf
	// Subscribed: allowed to a RESP2 client in the subscribed state.
	Subscribed
)

var flagNames = []struct {
	f    Flag
	name string
}{
	{Write, "write"}, {Readonly, "readonly"}, {DenyOOM, "denyoom"}, {Admin, "admin"},
	{PubSub, "pubsub"}, {NoScript, "noscript"}, {Blocking, "blocking"},
	{Loading, "loading"}, {Stale, "stale"}, {SkipMonitor, "skip_monitor"},
	{SkipSlowlog, "skip_slowlog"}, {Asking, "asking"}, {Fast, "fast"}, {NoAuth, "no_auth"},
	{MayReplicate, "may_replicate"}, {NoMandatoryKeys, "no_mandatory_keys"},
	{NoAsyncLoading, "no_async_loading"}, {NoMulti, "no_multi"}, {AllowBusy, "allow_busy"},
	{Movablekeys, "movablekeys"},
}

// Names returns the Redis names of the flags that COMMAND INFO reports.
func (f Flag) Names() []string {
	var out []string
	for _, fn := range flagNames {
		if f&fn.f != 0 {
			out = append(out, fn.name)
		}
	}
	return out
}

// HandlerFunc runs one command. args[0] is the command name as the client
// sent it. The handler writes exactly one reply to c.w. When it runs, the
// gate already holds the locks the command's key spec asks for.
type HandlerFunc func(c *Client, args [][]byte)

// Command is one row of the command table: the single source of truth for
// dispatch, the arity check, locking and COMMAND's replies.
type Command struct {
	Name  string // lower case; "parent|sub" for subcommands
	Arity int    // n: exactly n args (name included); -n: at least n
	Flags Flag
	// First, Last and Step give the key positions as Redis's legacy key
	// spec does (Last < 0 counts from the end; 0,0,0 = no keys).
	First, Last, Step int
	// Keys, when set, finds the key positions of commands whose keys move
	// (a numkeys argument, options). It must not fail on malformed args:
	// the handler reports syntax errors. The slice it returns may be
	// shared: callers copy it and never change it.
	Keys func(args [][]byte) []int
	// GlobalFor, when set, reports whether this call must take the global
	// lock exclusively instead of its keys' locks: SORT's BY and GET
	// patterns read keys that no key spec names. Like Keys it must not
	// fail on malformed args.
	GlobalFor func(args [][]byte) bool
	// KeysOnly, when set, reports whether this call needs only its keys'
	// existence, kinds and expiries, not their values (EXISTS, TTL, DEL,
	// RENAME, SET without GET...): cold values are not loaded before its
	// locks (tierprep.go), and its handler reads none. Like Keys it must
	// not fail on malformed args.
	KeysOnly func(args [][]byte) bool
	Handler  HandlerFunc
	// Sub holds subcommands (CONFIG GET, CLIENT LIST, ...), by lower-case
	// name.
	Sub map[string]*Command

	parent *Command
	// id is the command's id in the ACL universe (its bit in a user's
	// command bitmap), set by initACL.
	id    int
	stats [statSlots]cmdStats
	// hist is the latency histogram (made on first use; cmd_latency.go).
	hist atomic.Pointer[latency.Histogram]
}

const statSlots = 16

// cmdStats are per-command counters, spread over slots by connection so
// that cores do not share a cache line.
type cmdStats struct {
	calls, usec, rejected, failed atomic.Int64
	_                             [32]byte
}

// keyPositions appends to dst the indexes of args that are keys.
func (cmd *Command) keyPositions(dst []int, args [][]byte) []int {
	if cmd.Keys != nil {
		return append(dst, cmd.Keys(args)...)
	}
	if cmd.First == 0 {
		return dst
	}
	last := cmd.Last
	if last < 0 {
		last = len(args) + last
	}
	for i := cmd.First; i <= last && i < len(args); i += cmd.Step {
		dst = append(dst, i)
	}
	return dst
}

// Table maps lower-case command names to commands.
type Table map[string]*Command

// add registers cmds, linking subcommands to their parents. A name
// registered twice is a programming error: it panics, at start-up.
func (t Table) add(cmds ...*Command) {
	for _, c := range cmds {
		if t[c.Name] != nil {
			panic("server: command " + c.Name + " registered twice")
		}
		if c.Keys != nil {
			c.Flags |= Movablekeys
		}
		for name, sc := range c.Sub {
			sc.parent = c
			if sc.Name == "" {
				sc.Name = c.Name + "|" + name
			}
			if sc.Keys != nil {
				sc.Flags |= Movablekeys
			}
		}
		t[c.Name] = c
	}
}

// all returns every command and subcommand, sorted by full name.
func (t Table) all() []*Command {
	var cmds []*Command
	for _, cmd := range t {
		cmds = append(cmds, cmd)
		for _, sc := range cmd.Sub {
			cmds = append(cmds, sc)
		}
	}
	slices.SortFunc(cmds, func(a, b *Command) int { return strings.Compare(a.Name, b.Name) })
	return cmds
}

// byFullName finds a command by its full name, "name" or "parent|sub",
// in any case (Redis's lookupCommandBySds); nil when there is none.
func (t Table) byFullName(name string) *Command {
	name = strings.ToLower(name)
	parent, sub, isSub := strings.Cut(name, "|")
	cmd := t[parent]
	if !isSub || cmd == nil {
		return cmd
	}
	return cmd.Sub[sub]
}

// lookup finds the command for args (resolving a subcommand when the
// command has them) without allocating. It returns the parent with
// sub == nil when a subcommand is missing or unknown.
func (t Table) lookup(buf *[64]byte, args [][]byte) (cmd *Command, sub bool) {
	name := args[0]
	if len(name) > len(buf) {
		return nil, false
	}
	n := lower(buf[:0], name)
	cmd = t[string(n)]
	if cmd == nil || cmd.Sub == nil || len(args) < 2 {
		return cmd, false
	}
	if len(args[1]) > len(buf) {
		return cmd, false
	}
	n = lower(buf[:0], args[1])
	if sc := cmd.Sub[string(n)]; sc != nil {
		return sc, true
	}
	return cmd, false
}

func lower(dst, s []byte) []byte {
	for _, c := range s {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// fullName is the name error messages use ("config|get").
func (cmd *Command) fullName() string { return cmd.Name }

// upperName is the parent's name in upper case, as HELP hints show it.
func (cmd *Command) upperName() string {
	if cmd.parent != nil {
		return strings.ToUpper(cmd.parent.Name)
	}
	return strings.ToUpper(cmd.Name)
}
