package server

// MODULE: HotKV loads no Redis modules (they are C libraries written
// against Redis's own internals), so MODULE LIST answers an empty list and
// LOAD and LOADEX fail as Redis does for a library it cannot load, with
// the reason in the log; enable-module-command guards LOAD, LOADEX and
// UNLOAD (Redis's PROTECTED subcommands) as in Redis.

func moduleCommands() []*Command {
	const guarded = Admin | NoScript | NoAsyncLoading
	return []*Command{
		{Name: "module", Arity: -2, Sub: map[string]*Command{
			"list":   {Arity: 2, Flags: Admin | NoScript, Handler: cmdModuleList},
			"load":   {Arity: -3, Flags: guarded, Handler: cmdModuleLoad},
			"loadex": {Arity: -3, Flags: guarded, Handler: cmdModuleLoad},
			"unload": {Arity: 3, Flags: guarded, Handler: cmdModuleUnload},
			"help":   {Arity: 2, Flags: Loading | Stale, Handler: cmdModuleHelp},
		}},
	}
}

var moduleHelp = []string{
	"LIST",
	"    Return a list of loaded modules.",
	"LOAD <path> [<arg> ...]",
	"    Load a module library from <path>, passing to it any optional arguments.",
	"LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]",
	"    Load a module library from <path>, while passing it module configurations and optional arguments.",
	"UNLOAD <name>",
	"    Unload a module.",
}

// MODULE HELP
func cmdModuleHelp(c *Client, args [][]byte) { c.replyHelpLines("MODULE", moduleHelp) }

// MODULE LIST: no module is ever loaded.
func cmdModuleList(c *Client, args [][]byte) { c.w.Array(0) }

// MODULE LOAD path [arg ...], MODULE LOADEX path [...]
func cmdModuleLoad(c *Client, args [][]byte) {
	if !c.moduleAllowed() {
		return
	}
	c.srv.warnf("Module %s failed to load: HotKV cannot load Redis modules", cString(args[2]))
	c.errorReply(errModuleLoad)
}

// MODULE UNLOAD name
func cmdModuleUnload(c *Client, args [][]byte) {
	if !c.moduleAllowed() {
		return
	}
	c.errorReply(errModuleUnload)
}

// moduleAllowed applies enable-module-command ("yes", or "local" for a
// local connection), replying Redis's error when it refuses.
func (c *Client) moduleAllowed() bool {
	switch c.srv.cfg.Lookup("enable-module-command").Enum() {
	case "yes":
		return true
	case "local":
		if c.isLocal() {
			return true
		}
	}
	c.errorReply(errModuleNotAllowed)
	return false
}
