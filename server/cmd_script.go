package server

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hotkv/hotkv/glob"
	"github.com/hotkv/hotkv/rdb"
	"github.com/hotkv/hotkv/script"
)

func scriptingCommands() []*Command {
	const evalFlags = NoScript | Stale | SkipMonitor | NoMandatoryKeys | Scripting
	keys := numkeysKeys(2, 0)
	return []*Command{
		{Name: "eval", Arity: -3, Flags: evalFlags | MayReplicate, Keys: keys, Handler: cmdEval},
		{Name: "evalsha", Arity: -3, Flags: evalFlags | MayReplicate, Keys: keys, Handler: cmdEvalSHA},
		{Name: "eval_ro", Arity: -3, Flags: evalFlags | Readonly, Keys: keys, Handler: cmdEvalRO},
		{Name: "evalsha_ro", Arity: -3, Flags: evalFlags | Readonly, Keys: keys, Handler: cmdEvalSHARO},
		{Name: "fcall", Arity: -3, Flags: evalFlags | MayReplicate, Keys: keys, Handler: cmdFCall},
		{Name: "fcall_ro", Arity: -3, Flags: evalFlags | Readonly, Keys: keys, Handler: cmdFCallRO},
		{Name: "script", Arity: -2, Sub: map[string]*Command{
			"load":   {Arity: 3, Flags: NoScript | Stale, Handler: cmdScriptLoad},
			"exists": {Arity: -3, Flags: NoScript, Handler: cmdScriptExists},
			"flush":  {Arity: -2, Flags: NoScript, Handler: cmdScriptFlush},
			"kill":   {Arity: 2, Flags: NoScript | AllowBusy, Handler: cmdScriptKill},
			"help":   {Arity: 2, Flags: Loading | Stale, Handler: cmdScriptHelp},
			"debug":  {Arity: 3, Flags: NoScript, Handler: cmdScriptDebug},
			// HotKV's own: SCRIPT FLAGS <sha1> [flag ...]
			"flags": {Arity: -3, Flags: NoScript, Handler: cmdScriptFlags},
		}},
		{Name: "function", Arity: -2, Sub: map[string]*Command{
			"load":    {Arity: -3, Flags: Write | DenyOOM | NoScript, Handler: cmdFunctionLoad},
			"delete":  {Arity: 3, Flags: Write | NoScript, Handler: cmdFunctionDelete},
			"flush":   {Arity: -2, Flags: Write | NoScript, Handler: cmdFunctionFlush},
			"list":    {Arity: -2, Flags: NoScript, Handler: cmdFunctionList},
			"dump":    {Arity: 2, Flags: NoScript, Handler: cmdFunctionDump},
			"restore": {Arity: -3, Flags: Write | DenyOOM | NoScript, Handler: cmdFunctionRestore},
			"stats":   {Arity: 2, Flags: NoScript | AllowBusy, Handler: cmdFunctionStats},
			"kill":    {Arity: 2, Flags: NoScript | AllowBusy, Handler: cmdFunctionKill},
			"help":    {Arity: 2, Flags: Loading | Stale, Handler: cmdFunctionHelp},
		}},
	}
}

// EVAL script numkeys [key ...] [arg ...]
func cmdEval(c *Client, args [][]byte) { c.evalMaybeDebug(args, false, false) }

// EVALSHA sha1 numkeys [key ...] [arg ...]
func cmdEvalSHA(c *Client, args [][]byte) { c.evalMaybeDebug(args, true, false) }

// EVAL_RO script numkeys [key ...] [arg ...]
func cmdEvalRO(c *Client, args [][]byte) { c.evalMaybeDebug(args, false, true) }

// EVALSHA_RO sha1 numkeys [key ...] [arg ...]
func cmdEvalSHARO(c *Client, args [][]byte) { c.evalMaybeDebug(args, true, true) }

// FCALL function numkeys [key ...] [arg ...]
func cmdFCall(c *Client, args [][]byte) { c.fcallGeneric(args, false) }

// FCALL_RO function numkeys [key ...] [arg ...]
func cmdFCallRO(c *Client, args [][]byte) { c.fcallGeneric(args, true) }

// scriptKeys parses numkeys and splits the keys from the arguments,
// replying with Redis's error when numkeys is bad (badInt: the text for a
// numkeys that is not an integer).
func (c *Client) scriptKeys(args [][]byte, badInt string) (keys, argv [][]byte, ok bool) {
	n, isInt := parseInt(args[2])
	switch {
	case !isInt:
		c.errorReply(badInt)
	case n > int64(len(args)-3):
		c.errorReply(errNumkeysTooMany)
	case n < 0:
		c.errorReply(errNumkeysNegative)
	default:
		return args[3 : 3+n], args[3+n:], true
	}
	return nil, nil, false
}

// evalMaybeDebug is evalCommand and evalShaCommand: after SCRIPT DEBUG
// SYNC, EVAL runs under the debugger and EVALSHA is refused. Inside EXEC
// scripts run as usual.
func (c *Client) evalMaybeDebug(args [][]byte, bySHA, ro bool) {
	if !c.ldbSync || c.tx.inExec {
		c.evalGeneric(args, bySHA, ro)
		return
	}
	if bySHA {
		if len(args[1]) != 40 {
			c.errorReply(errNoScriptSHA)
			return
		}
		c.errorReply(errScriptDebugSHA)
		return
	}
	c.evalDebugging(args, ro)
}

func (c *Client) evalGeneric(args [][]byte, bySHA, ro bool) {
	s := c.srv
	keys, argv, ok := c.scriptKeys(args, errNotInt)
	if !ok {
		return
	}
	var sc *script.Script
	if bySHA {
		if sc = s.scripting.engine.GetMemo(&c.scriptMemo, args[1]); sc == nil {
			c.errorReply(errNoScriptSHA)
			return
		}
	} else {
		var err error
		if sc, err = s.scripting.engine.Load(string(args[1])); err != nil {
			c.errorReply("ERR " + err.Error())
			return
		}
	}
	flags := sc.Flags
	if flags&script.Compat != 0 {
		// No shebang: the configured default flags, if any (HotKV).
		if d := s.scripting.defaultFlags.Int(); d != 0 {
			flags = script.Flags(d)
		}
	}
	sr := c.newScriptRun(flags, ro, true, sc.SHA)
	if sr == nil {
		return
	}
	sr.script = sc
	c.startScript(sr, keys, argv)
}

func (c *Client) fcallGeneric(args [][]byte, ro bool) {
	s := c.srv
	fn := s.scripting.engine.Function(string(args[1]))
	if fn == nil {
		c.errorReply(errFunctionNotFound)
		return
	}
	keys, argv, ok := c.scriptKeys(args, errBadNumkeys)
	if !ok {
		return
	}
	sr := c.newScriptRun(fn.Flags, ro, false, fn.Name)
	if sr == nil {
		return
	}
	sr.argv = args
	sr.fn = fn
	c.startScript(sr, keys, argv)
}

// newScriptRun makes the checks Redis makes before a script runs
// (scriptPrepareForRun) and returns the run, or nil after replying with
// the error. Scripts without a shebang (Compat) skip the flag checks,
// but not that of a stale replica (MASTERDOWN, as Redis's "backwards
// compatibility" branch).
func (c *Client) newScriptRun(flags script.Flags, ro, eval bool, name string) *scriptRun {
	s := c.srv
	oom := c.preOOM
	if flags&script.Compat != 0 && s.servingStale() {
		c.errorReply(errMasterDown)
		return nil
	}
	if flags&script.Compat == 0 {
		if s.servingStale() && flags&script.AllowStale == 0 {
			c.errorReply(errMasterDown)
			return nil
		}
		if flags&script.NoWrites == 0 {
			// Redis refuses these before the run, in processCommand's
			// order and words: it takes a script's flags for the
			// command's.
			if oom && flags&script.AllowOOM == 0 {
				c.errorReply(errOOM)
				return nil
			}
			if !c.obey && !s.enoughReplicas() {
				c.errorReply(errNoReplicas)
				return nil
			}
			if s.readOnlyReplica() && !c.obey {
				c.errorReply(errReadOnlyReplica)
				return nil
			}
			if ro {
				c.errorReply(errScriptWriteFlagRO)
				return nil
			}
		}
		ro = ro || flags&script.NoWrites != 0
	}
	// The engine client's run is reused: a client runs one script at a
	// time, and a finished run is referenced from nowhere. So are the
	// callbacks bound to it (a method value allocates).
	sr := &c.scriptClient().sr
	call, interrupt, onError, setRepl, permit := sr.callFn, sr.interruptFn, sr.onErrorFn, sr.setReplFn, sr.permitFn
	if call == nil {
		call, interrupt, onError, setRepl, permit = sr.call, sr.interrupt, c.scriptError, sr.setRepl, sr.permitted
	}
	c.engine.prop.targeted = false // the writes go everywhere until redis.set_repl
	*sr = scriptRun{
		callFn:      call,
		interruptFn: interrupt,
		onErrorFn:   onError,
		setReplFn:   setRepl,
		permitFn:    permit,
		s:           s,
		caller:      c,
		ec:          c.engine,
		eval:        eval,
		name:        name,
		flags:       flags,
		ro:          ro,
		keyed:       flags&script.AllowKeyLocking != 0 && !c.tx.inExec,
		oom:         oom,
		tags:        sr.tags[:0],
	}
	return sr
}

// startScript runs sr on c's goroutine; inside EXEC under the
// transaction's global lock. The keys and arguments alias c's read
// buffer, which stays as it is until the command returns (nothing else
// reads c's connection meanwhile, even once its loop went on without it).
func (c *Client) startScript(sr *scriptRun, keys, argv [][]byte) {
	sr.run = script.Run{Keys: keys, Args: argv, Call: sr.callFn, Interrupt: sr.interruptFn, Shard: c.slot,
		OnError: sr.onErrorFn, SetRepl: sr.setReplFn, Permitted: sr.permitFn}
	if c.ldb != nil && sr.script != nil {
		c.ldb.sr = sr
		sr.run.Debug = c.ldb
	}
	c.srv.runScript(c, sr, c.tx.inExec || c.callerLocks)
}

// SCRIPT LOAD script
func cmdScriptLoad(c *Client, args [][]byte) {
	sc, err := c.srv.scripting.engine.Load(string(args[2]))
	if err != nil {
		c.errorReply("ERR " + err.Error())
		return
	}
	c.w.BulkString(sc.SHA)
}

// SCRIPT EXISTS sha1 [sha1 ...]
func cmdScriptExists(c *Client, args [][]byte) {
	c.w.Array(len(args) - 2)
	for _, a := range args[2:] {
		if c.srv.scripting.engine.Get(string(a)) != nil {
			c.w.Int(1)
		} else {
			c.w.Int(0)
		}
	}
}

// SCRIPT FLUSH [ASYNC|SYNC]
func cmdScriptFlush(c *Client, args [][]byte) {
	if !flushOption(args) {
		c.errorReply(errScriptFlushOption)
		return
	}
	c.srv.scripting.engine.Flush()
	c.w.OK()
}

// flushOption accepts the optional ASYNC|SYNC of SCRIPT and FUNCTION
// FLUSH. Both flush at once: the cache is small and freeing it is cheap.
func flushOption(args [][]byte) bool {
	switch len(args) {
	case 2:
		return true
	case 3:
		return equalFold(args[2], "async") || equalFold(args[2], "sync")
	}
	return false
}

// SCRIPT KILL
func cmdScriptKill(c *Client, args [][]byte) { c.srv.killScript(c, true) }

// SCRIPT FLAGS sha1 [flag ...] (HotKV): replaces the flags of a cached
// script, as if its shebang declared them; with no flag the script keeps
// Redis's rules for scripts without a shebang.
func cmdScriptFlags(c *Client, args [][]byte) {
	flags := script.Compat
	if len(args) > 3 {
		flags = 0
	}
	for _, a := range args[3:] {
		f, ok := script.ParseFlag(strings.ToLower(string(a)))
		if !ok {
			c.errorReply(fmt.Sprintf(errScriptUnknownFlag, cString(a)))
			return
		}
		flags |= f
	}
	if !c.srv.scripting.engine.SetFlags(string(args[2]), flags) {
		c.errorReply(errNoScriptSHA)
		return
	}
	c.w.OK()
}

var scriptHelp = []string{
	"DEBUG (YES|SYNC|NO)",
	"    Set the debug mode for subsequent scripts executed.",
	"EXISTS <sha1> [<sha1> ...]",
	"    Return information about the existence of the scripts in the script cache.",
	"FLUSH [ASYNC|SYNC]",
	"    Flush the Lua scripts cache. Very dangerous on replicas.",
	"    When called without the optional mode argument, the behavior is determined by the",
	"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
	"    * ASYNC: Asynchronously flush the scripts cache.",
	"    * SYNC: Synchronously flush the scripts cache.",
	"KILL",
	"    Kill the currently executing Lua script.",
	"LOAD <script>",
	"    Load a script into the scripts cache without executing it.",
}

// SCRIPT HELP
func cmdScriptHelp(c *Client, args [][]byte) { c.replyHelpLines("SCRIPT", scriptHelp) }

// FUNCTION LOAD [REPLACE] code
func cmdFunctionLoad(c *Client, args [][]byte) {
	replace := false
	for _, a := range args[2 : len(args)-1] {
		if !equalFold(a, "replace") {
			c.errorReply(fmt.Sprintf(errFunctionLoadOption, cString(a)))
			return
		}
		replace = true
	}
	name, err := c.srv.scripting.engine.LoadLibrary(string(args[len(args)-1]), replace)
	if err != nil {
		c.errorReply("ERR " + err.Error())
		return
	}
	c.w.BulkString(name)
}

// FUNCTION DELETE library
func cmdFunctionDelete(c *Client, args [][]byte) {
	if err := c.srv.scripting.engine.DeleteLibrary(string(args[2])); err != nil {
		c.errorReply("ERR " + err.Error())
		return
	}
	c.w.OK()
}

// FUNCTION FLUSH [ASYNC|SYNC]
func cmdFunctionFlush(c *Client, args [][]byte) {
	if len(args) > 3 {
		c.errorReply(fmtSubcommandArgs(args[1], "FUNCTION"))
		return
	}
	if !flushOption(args) {
		c.errorReply(errFunctionFlushOption)
		return
	}
	c.srv.scripting.engine.FlushLibraries()
	c.w.OK()
}

// FUNCTION LIST [LIBRARYNAME pattern] [WITHCODE]
func cmdFunctionList(c *Client, args [][]byte) {
	var pattern []byte
	withCode, havePattern := false, false
	for i := 2; i < len(args); i++ {
		switch {
		case !withCode && equalFold(args[i], "withcode"):
			withCode = true
		case !havePattern && equalFold(args[i], "libraryname"):
			if i == len(args)-1 {
				c.errorReply(errLibraryNameMissing)
				return
			}
			i++
			pattern, havePattern = args[i], true
		default:
			c.errorReply(fmt.Sprintf(errUnknownArgument, cString(args[i])))
			return
		}
	}
	var libs []*script.Library
	for _, l := range c.srv.scripting.engine.Libraries() {
		if !havePattern || glob.Match(pattern, []byte(l.Name), true) {
			libs = append(libs, l)
		}
	}
	w := &c.w
	w.Array(len(libs))
	for _, l := range libs {
		if withCode {
			w.Map(4)
		} else {
			w.Map(3)
		}
		w.BulkString("library_name")
		w.BulkString(l.Name)
		w.BulkString("engine")
		w.BulkString("LUA")
		w.BulkString("functions")
		w.Array(len(l.Functions))
		for _, f := range l.Functions {
			w.Map(3)
			w.BulkString("name")
			w.BulkString(f.Name)
			w.BulkString("description")
			if f.Description == "" {
				w.Null()
			} else {
				w.BulkString(f.Description)
			}
			w.BulkString("flags")
			names := f.Flags.Names()
			w.Set(len(names))
			for _, n := range names {
				w.Simple(n)
			}
		}
		if withCode {
			w.BulkString("library_code")
			w.BulkString(l.Code)
		}
	}
}

// FUNCTION DUMP
func cmdFunctionDump(c *Client, args [][]byte) {
	libs := c.srv.scripting.engine.Libraries()
	codes := make([]string, len(libs))
	for i, l := range libs {
		codes[i] = l.Code
	}
	c.w.BulkString(string(rdb.EncodeFunctions(codes, c.srv.rdbCompression.Bool())))
}

// FUNCTION RESTORE payload [FLUSH|APPEND|REPLACE]
func cmdFunctionRestore(c *Client, args [][]byte) {
	policy := "APPEND"
	if len(args) > 4 {
		c.errorReply(fmtSubcommandArgs(args[1], "FUNCTION"))
		return
	}
	if len(args) == 4 {
		policy = strings.ToUpper(string(args[3]))
		if policy != "FLUSH" && policy != "APPEND" && policy != "REPLACE" {
			c.errorReply(errRestorePolicy)
			return
		}
	}
	codes, err := c.srv.restoreOptions().DecodeFunctions(args[2])
	if err != nil {
		c.errorReply("ERR " + err.Error())
		return
	}
	if err := c.srv.scripting.engine.RestoreLibraries(codes, policy); err != nil {
		c.errorReply("ERR " + err.Error())
		return
	}
	c.w.OK()
}

// FUNCTION STATS
func cmdFunctionStats(c *Client, args [][]byte) {
	s := c.srv
	if s.busyEval() {
		c.errorReply(errBusyScript)
		return
	}
	sc := &s.scripting
	var busy *scriptRun
	sc.mu.Lock()
	for sr := range sc.running {
		if !sr.eval && sr.timed.Load() && (busy == nil || sr.start < busy.start) {
			busy = sr
		}
	}
	sc.mu.Unlock()
	w := &c.w
	w.Map(2)
	w.BulkString("running_script")
	if busy == nil {
		w.Null()
	} else {
		w.Map(3)
		w.BulkString("name")
		w.BulkString(busy.name)
		w.BulkString("command")
		w.Array(len(busy.argv))
		for _, a := range busy.argv {
			w.Bulk(a)
		}
		w.BulkString("duration_ms")
		w.Int((monoNow() - busy.start).Milliseconds())
	}
	w.BulkString("engines")
	w.Map(1)
	w.BulkString("LUA")
	w.Map(2)
	w.BulkString("libraries_count")
	w.Int(int64(len(sc.engine.Libraries())))
	w.BulkString("functions_count")
	w.Int(int64(sc.engine.FunctionCount()))
}

// FUNCTION KILL
func cmdFunctionKill(c *Client, args [][]byte) { c.srv.killScript(c, false) }

var functionHelp = []string{
	"LOAD [REPLACE] <FUNCTION CODE>",
	"    Create a new library with the given library name and code.",
	"DELETE <LIBRARY NAME>",
	"    Delete the given library.",
	"LIST [LIBRARYNAME PATTERN] [WITHCODE]",
	"    Return general information on all the libraries:",
	"    * Library name",
	"    * The engine used to run the Library",
	"    * Library description",
	"    * Functions list",
	"    * Library code (if WITHCODE is given)",
	"    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
	"STATS",
	"    Return information about the current function running:",
	"    * Function name",
	"    * Command used to run the function",
	"    * Duration in MS that the function is running",
	"    If no function is running, return nil",
	"    In addition, returns a list of available engines.",
	"KILL",
	"    Kill the current running function.",
	"FLUSH [ASYNC|SYNC]",
	"    Delete all the libraries.",
	"    When called without the optional mode argument, the behavior is determined by the",
	"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
	"    * ASYNC: Asynchronously flush the libraries.",
	"    * SYNC: Synchronously flush the libraries.",
	"DUMP",
	"    Return a serialized payload representing the current libraries, can be restored using FUNCTION RESTORE command",
	"RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
	"    Restore the libraries represented by the given payload, it is possible to give a restore policy to",
	"    control how to handle existing libraries (default APPEND):",
	"    * FLUSH: delete all existing libraries.",
	"    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
	"    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old",
	"      libraries with the new libraries (notice that even on this option there is a chance of failure",
	"      in case of functions name collision with another library).",
}

// FUNCTION HELP
func cmdFunctionHelp(c *Client, args [][]byte) { c.replyHelpLines("FUNCTION", functionHelp) }

// infoScriptLocks writes INFO keylocks' script lines: how many scripts ran under
// the global lock and how many under key locks (allow-key-locking).
func (s *Server) infoScriptLocks(b []byte) []byte {
	var global, keyed int64
	for i := range s.scripting.slots {
		global += s.scripting.slots[i].globalRuns.Load()
		keyed += s.scripting.slots[i].keyLockedRuns.Load()
	}
	b = append(b, "scripts_global_lock:"...)
	b = strconv.AppendInt(b, global, 10)
	b = append(b, "\r\nscripts_key_locks:"...)
	b = strconv.AppendInt(b, keyed, 10)
	return append(b, "\r\n"...)
}
