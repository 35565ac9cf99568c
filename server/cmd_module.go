package server

import "fmt"

// MODULE: HotKV loads no Redis modules (they are C libraries written
// against Redis's own internals): LOAD and LOADEX fail as Redis does for a
// library it cannot load, with the reason in the log; enable-module-command
// guards LOAD, LOADEX and UNLOAD (Redis's PROTECTED subcommands) as in
// Redis. Its search (FT.*) is built in and reported as the module
// RediSearch reports, whose replies it gives (MODULE LIST, INFO modules,
// HELLO): clients look for it there before they use FT.*.

// builtinModule is a capability HotKV reports as a loaded module.
type builtinModule struct {
	name string
	ver  int64 // as RediSearch's: major*10000 + minor*100 + patch
}

var builtinModules = []builtinModule{{name: "search", ver: 21005}}

// moduleInfo writes m as an entry of MODULE LIST and HELLO: name, ver,
// path and args. Its path says it is built in.
func moduleInfo(c *Client, m builtinModule) {
	c.w.Map(4)
	c.w.BulkString("name")
	c.w.BulkString(m.name)
	c.w.BulkString("ver")
	c.w.Int(m.ver)
	c.w.BulkString("path")
	c.w.BulkString("builtin")
	c.w.BulkString("args")
	c.w.Array(0)
}

// modulesReply writes the built-in modules' list (MODULE LIST, HELLO).
func modulesReply(c *Client) {
	c.w.Array(len(builtinModules))
	for _, m := range builtinModules {
		moduleInfo(c, m)
	}
}

// infoModules is INFO's modules section, as Redis's genModulesInfoString
// writes it for RediSearch.
func (s *Server) infoModules(b []byte) []byte {
	for _, m := range builtinModules {
		b = fmt.Appendf(b, "module:name=%s,ver=%d,api=1,filters=0,usedby=[],using=[],options=[handle-io-errors]\r\n", m.name, m.ver)
	}
	return b
}

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

// MODULE LIST: the built-in modules.
func cmdModuleList(c *Client, args [][]byte) { modulesReply(c) }

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
	for _, m := range builtinModules {
		if string(args[2]) == m.name {
			c.errorReply(errModuleUnloadTypes) // RediSearch's answer
			return
		}
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
