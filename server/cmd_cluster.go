package server

// clusterCommands is CLUSTER as a Redis 7.0 server without cluster mode
// has it: every subcommand exists, with Redis's arity and flags (COMMAND
// INFO and the script checks see them: CLUSTER RESET is noscript), and
// every call that passes the arity check answers
// "ERR This instance has cluster support disabled", as Redis's
// clusterCommand does when cluster_enabled is 0. An unknown subcommand
// gets the gate's "unknown subcommand" error.
func clusterCommands() []*Command {
	const (
		admin  = Admin | Stale | NoAsyncLoading
		admin2 = Admin | Stale // no no_async_loading
	)
	sub := func(arity int, flags Flag) *Command {
		return &Command{Arity: arity, Flags: flags, Handler: cmdClusterDisabled}
	}
	return []*Command{
		// The connection's cluster modes: refused outside a cluster, as
		// Redis refuses them.
		{Name: "asking", Arity: 1, Flags: Fast, Handler: cmdClusterDisabled},
		{Name: "readonly", Arity: 1, Flags: Loading | Stale | Fast, Handler: cmdClusterDisabled},
		{Name: "readwrite", Arity: 1, Flags: Loading | Stale | Fast, Handler: cmdClusterDisabled},
		{Name: "cluster", Arity: -2, Sub: map[string]*Command{
			"addslots":              sub(-3, admin),
			"addslotsrange":         sub(-4, admin),
			"bumpepoch":             sub(2, admin),
			"count-failure-reports": sub(3, admin2),
			"countkeysinslot":       sub(3, Stale),
			"delslots":              sub(-3, admin),
			"delslotsrange":         sub(-4, admin),
			"failover":              sub(-2, admin),
			"flushslots":            sub(2, admin),
			"forget":                sub(3, admin),
			"getkeysinslot":         sub(4, Stale),
			"help":                  sub(2, Loading|Stale),
			"info":                  sub(2, Stale),
			"keyslot":               sub(3, Stale),
			"links":                 sub(2, Stale),
			"meet":                  sub(-4, admin),
			"myid":                  sub(2, Stale),
			"nodes":                 sub(2, Stale),
			"replicas":              sub(3, admin2),
			"replicate":             sub(3, admin),
			"reset":                 sub(-2, Admin|NoScript|Stale),
			"saveconfig":            sub(2, admin),
			"set-config-epoch":      sub(3, admin),
			"setslot":               sub(-4, admin),
			"shards":                sub(2, Stale),
			"slaves":                sub(3, admin2),
			"slots":                 sub(2, Stale),
		}},
	}
}

const errClusterDisabled = "ERR This instance has cluster support disabled"

// CLUSTER <subcommand> [...]
func cmdClusterDisabled(c *Client, args [][]byte) {
	c.errorReply(errClusterDisabled)
}
