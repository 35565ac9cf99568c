package server

import (
	"errors"
	"net"
	"sync/atomic"

	"github.com/hotkv/hotkv/config"
)

func configCommands() []*Command {
	const admin = Admin | NoScript | Loading | Stale
	return []*Command{
		{Name: "config", Arity: -2, Sub: map[string]*Command{
			"get":       {Arity: -3, Flags: admin, Handler: cmdConfigGet},
			"set":       {Arity: -4, Flags: admin, GlobalFor: configSetNeedsGlobal, Handler: cmdConfigSet},
			"resetstat": {Arity: 2, Flags: admin, Handler: cmdConfigResetStat},
			"rewrite":   {Arity: 2, Flags: admin, Handler: cmdConfigRewrite},
			"help":      {Arity: 2, Flags: Loading | Stale, Handler: cmdConfigHelp},
		}},
	}
}

var configHelp = []string{
	"GET <pattern>",
	"    Return parameters matching the glob-like <pattern> and their values.",
	"SET <directive> <value>",
	"    Set the configuration <directive> to <value>.",
	"RESETSTAT",
	"    Reset statistics reported by the INFO command.",
	"REWRITE",
	"    Rewrite the configuration file.",
}

// CONFIG HELP
func cmdConfigHelp(c *Client, args [][]byte) { c.replyHelpLines("CONFIG", configHelp) }

// CONFIG GET parameter [parameter ...]
//
// Parameters matched by a glob come in the config package's table order;
// Redis lists them in its hash table's order, so only the set of pairs is
// comparable.
func cmdConfigGet(c *Client, args [][]byte) {
	pats := make([]string, len(args)-2)
	for i, a := range args[2:] {
		pats[i] = string(a)
	}
	pairs := c.srv.cfg.Get(pats)
	c.w.Map(len(pairs))
	for _, kv := range pairs {
		c.w.BulkString(kv[0])
		c.w.BulkString(kv[1])
	}
}

// CONFIG SET parameter value [parameter value ...]
func cmdConfigSet(c *Client, args [][]byte) {
	if len(args)%2 != 0 {
		c.errorReply(errSyntax)
		return
	}
	pairs := make([][2]string, 0, (len(args)-2)/2)
	for i := 2; i < len(args); i += 2 {
		pairs = append(pairs, [2]string{string(args[i]), string(args[i+1])})
	}
	var err error
	if configSetNeedsGlobal(args) {
		// The appendonly hook schedules its first rewrite inside EXEC,
		// as Redis's startAppendOnly (the global lock guards the mark).
		c.srv.aof.enableInExec = c.tx.inExec
		defer func() { c.srv.aof.enableInExec = false }()
	}
	if c.isLocal() {
		err = c.srv.cfg.SetLocal(pairs)
	} else {
		err = c.srv.cfg.Set(pairs)
	}
	if err != nil {
		c.configError(err)
		return
	}
	c.w.OK()
}

// configSetNeedsGlobal is CONFIG SET's GlobalFor: turning the append-only
// file or the disk tier on or off runs under the exclusive global lock
// (the appendonly and tiering hooks rely on it).
func configSetNeedsGlobal(args [][]byte) bool {
	for i := 2; i < len(args); i += 2 {
		if equalFold(args[i], "appendonly") || equalFold(args[i], "tiering") {
			return true
		}
	}
	return false
}

// configError replies with a config package error, whose text is Redis's
// exact reply.
func (c *Client) configError(err error) {
	var ce *config.Error
	if errors.As(err, &ce) {
		c.errorReply(ce.Error())
		return
	}
	c.errorReply(errConfigInternal + err.Error())
}

// isLocal reports whether the client connected from the loopback interface
// or a unix socket (Redis's islocalClient). A client without a
// connection (a script's engine client) is not local, as Redis's Lua
// client is not.
func (c *Client) isLocal() bool {
	if c.conn == nil {
		return false
	}
	switch a := c.conn.RemoteAddr().(type) {
	case *net.TCPAddr:
		return a.IP.IsLoopback()
	case *net.UnixAddr:
		return true
	}
	return false
}

// CONFIG RESETSTAT
//
// As in Redis it resets the INFO statistics and the command statistics (not
// the slow log); HotKV also resets its lock statistics.
func cmdConfigResetStat(c *Client, args [][]byte) {
	// The commands run before this one in the batch are reset too.
	c.publishStats()
	c.srv.resetStats()
	c.w.OK()
}

// CONFIG REWRITE
func cmdConfigRewrite(c *Client, args [][]byte) {
	if err := c.srv.cfg.Rewrite(); err != nil {
		c.configError(err)
		return
	}
	c.w.OK()
}

// resetStats zeroes what CONFIG RESETSTAT resets: the server counters, the
// per-command counters and latency histograms, the lock statistics and the
// memory peak.
func (s *Server) resetStats() {
	st := &s.stats
	for _, v := range []interface{ Store(int64) }{
		&st.connections, &st.rejectedConns,
		&st.expiredKeys, &st.hits, &st.misses,
		&st.protocolErrors, &st.unexpectedErrors,
		&st.totalErrorReplies, &st.panics, &st.evicted, &st.evictedClients,
		&st.expireCycleKeys, &st.expireCycleCPUMicros, &st.lazyfreed,
		&s.replyBuf.shrinks, &s.replyBuf.expands,
		&s.replStats.full, &s.replStats.partialOK, &s.replStats.partialErr,
		&s.evict.overTotal, &s.evict.overSince,
	} {
		v.Store(0)
	}
	for i := range st.slots {
		sl := &st.slots[i]
		for _, v := range []*atomic.Int64{&sl.hits, &sl.misses, &sl.commands, &sl.netIn, &sl.netOut} {
			v.Store(0)
		}
	}
	st.inst.reset()
	st.errors.reset()
	s.expire.stalePerc.Store(0)
	s.expire.timeCapReached.Store(0)
	for _, cmd := range s.table {
		cmd.resetStats()
		for _, sc := range cmd.Sub {
			sc.resetStats()
		}
	}
	s.locks.ResetStats()
	s.usedMem.peak.Store(s.usedMemory())
}

func (cmd *Command) resetStats() {
	for i := range cmd.stats {
		st := &cmd.stats[i]
		st.calls.Store(0)
		st.usec.Store(0)
		st.rejected.Store(0)
		st.failed.Store(0)
	}
	if h := cmd.hist.Load(); h != nil {
		h.Reset()
	}
}
