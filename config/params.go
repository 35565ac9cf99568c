package config

import "math"

// The parameter table: every parameter of Redis 7.0.15 (as compiled with
// TLS support), with its aliases, type, bounds, default and flags. Values
// are validated, stored and reported exactly like Redis does; what a
// parameter *does* is up to the rest of HotKV (many, such as encoding
// thresholds or TLS files, are only stored and reported).

const (
	intMax    = math.MaxInt32
	intMin    = math.MinInt32
	uintMax   = math.MaxUint32
	longMax   = math.MaxInt64
	ullongMax = -1 // ULLONG_MAX as stored in a C long long; compared unsigned
)

// Enumerations, with the values Redis uses where they matter (aliases such
// as oom-score-adj yes/relative, and bit flags).
var (
	enumMaxmemoryPolicy = []enumItem{{"volatile-lru", 0}, {"volatile-lfu", 1}, {"volatile-random", 2},
		{"volatile-ttl", 3}, {"allkeys-lru", 4}, {"allkeys-lfu", 5}, {"allkeys-random", 6}, {"noeviction", 7}}
	enumSyslogFacility = []enumItem{{"user", 0}, {"local0", 1}, {"local1", 2}, {"local2", 3},
		{"local3", 4}, {"local4", 5}, {"local5", 6}, {"local6", 7}, {"local7", 8}}
	enumLoglevel         = []enumItem{{"debug", 0}, {"verbose", 1}, {"notice", 2}, {"warning", 3}}
	enumSupervised       = []enumItem{{"upstart", 1}, {"systemd", 2}, {"auto", 3}, {"no", 0}}
	enumAppendfsync      = []enumItem{{"everysec", 2}, {"always", 1}, {"no", 0}}
	enumReplDisklessLoad = []enumItem{{"disabled", 0}, {"on-empty-db", 1}, {"swapdb", 2}}
	enumTLSAuthClients   = []enumItem{{"no", 0}, {"yes", 1}, {"optional", 2}}
	enumOOMScoreAdj      = []enumItem{{"no", 0}, {"yes", 1}, {"relative", 1}, {"absolute", 2}}
	enumACLPubsub        = []enumItem{{"allchannels", 1}, {"resetchannels", 0}}
	enumSanitize         = []enumItem{{"no", 0}, {"yes", 1}, {"clients", 2}}
	enumProtectedAction  = []enumItem{{"no", 0}, {"yes", 1}, {"local", 2}}
	enumEndpointType     = []enumItem{{"ip", 0}, {"hostname", 1}, {"unknown-endpoint", 2}}
	enumPropagationError = []enumItem{{"ignore", 0}, {"panic", 1}, {"panic-on-replicas", 2}}
	enumShutdownOnSig    = []enumItem{{"default", 0}, {"save", ShutdownSave}, {"nosave", ShutdownNoSave},
		{"now", ShutdownNow}, {"force", ShutdownForce}}
	// The script flags (bits as in package script): HotKV's
	// script-default-flags.
	enumScriptFlags = []enumItem{{"none", 0}, {"no-writes", 1}, {"allow-oom", 2}, {"allow-stale", 4},
		{"no-cluster", 8}, {"allow-cross-slot-keys", 16}, {"allow-key-locking", 32}}
)

// HotKV's own parameters, which no Redis version has.
var hotkvParams = map[string]bool{"script-default-flags": true, "busy-poll-usec": true, "appendfsync-prealloc": true,
	"tiering": true, "tiering-dir": true, "tiering-memory": true}

func boolP(name, alias string, f pflags, def bool) *Param {
	d := "no"
	if def {
		d = "yes"
	}
	return &Param{name: name, alias: alias, typ: TypeBool, flags: f, defArgs: []string{d}}
}

func intP(name, alias string, f pflags, lo, hi, def int64, n nflags) *Param {
	p := &Param{name: name, alias: alias, typ: TypeInt, flags: f, lo: lo, hi: hi, num: n}
	p.defArgs = []string{p.formatInt(def)}
	return p
}

func enumP(name, alias string, f pflags, items []enumItem, def string) *Param {
	return &Param{name: name, alias: alias, typ: TypeEnum, flags: f, enum: items, defArgs: []string{def}}
}

// strP creates a string parameter; nullable is Redis's EMPTY_STRING_IS_NULL
// (the default of every nullable string is "" i.e. NULL).
func strP(name, alias string, f pflags, nullable bool, def string) *Param {
	return &Param{name: name, alias: alias, typ: TypeString, flags: f, nullable: nullable, defArgs: []string{def}}
}

func specialP(name, alias string, f pflags, def []string,
	parse func(*Config, *Param, []string) (*value, error), rewrite func(*Config, *Param, *rewriteState)) *Param {
	return &Param{name: name, alias: alias, typ: TypeSpecial, flags: f, defArgs: def, parseFn: parse, rewriteFn: rewrite}
}

func withCheck(p *Param, check func(*Config, *value) error) *Param {
	p.check = check
	return p
}

const (
	mod = pflags(0) // MODIFIABLE_CONFIG
	imm = fImmutable
	hid = fHidden
)

// newTable returns a fresh parameter table (one per Config).
func newTable() []*Param {
	hz := intP("hz", "", mod, 0, intMax, 10, 0)
	hz.clamp = &[2]int64{1, 500} // CONFIG_MIN_HZ, CONFIG_MAX_HZ

	backlog := intP("repl-backlog-size", "", mod, 1, longMax, 1024*1024, nMemory)
	backlog.setMin = 16 * 1024 // CONFIG_REPL_BACKLOG_MIN_SIZE

	sigint := enumP("shutdown-on-sigint", "", fMultiArg, enumShutdownOnSig, "default")
	sigint.bitflags = true
	sigterm := enumP("shutdown-on-sigterm", "", fMultiArg, enumShutdownOnSig, "default")
	sigterm.bitflags = true
	// HotKV: the flags of scripts without a shebang, as if they had
	// "#!lua flags=..." ("none": Redis's rules for such scripts).
	scriptFlags := enumP("script-default-flags", "", fMultiArg, enumScriptFlags, "none")
	scriptFlags.bitflags = true

	return []*Param{
		// Bool configs.
		boolP("rdbchecksum", "", imm, true),
		boolP("daemonize", "", imm, false),
		boolP("io-threads-do-reads", "", imm, false),
		boolP("always-show-logo", "", imm, false),
		boolP("protected-mode", "", mod, true),
		boolP("rdbcompression", "", mod, true),
		boolP("rdb-del-sync-files", "", mod, false),
		boolP("activerehashing", "", mod, true),
		boolP("stop-writes-on-bgsave-error", "", mod, true),
		boolP("set-proc-title", "", imm, true),
		boolP("dynamic-hz", "", mod, true),
		boolP("lazyfree-lazy-eviction", "", mod, false),
		boolP("lazyfree-lazy-expire", "", mod, false),
		boolP("lazyfree-lazy-server-del", "", mod, false),
		boolP("lazyfree-lazy-user-del", "", mod, false),
		boolP("lazyfree-lazy-user-flush", "", mod, false),
		boolP("appendfsync-prealloc", "", mod, false),
		boolP("repl-disable-tcp-nodelay", "", mod, false),
		boolP("repl-diskless-sync", "", mod, true),
		boolP("aof-rewrite-incremental-fsync", "", mod, true),
		boolP("no-appendfsync-on-rewrite", "", mod, false),
		boolP("cluster-require-full-coverage", "", mod, true),
		boolP("rdb-save-incremental-fsync", "", mod, true),
		boolP("aof-load-truncated", "", mod, true),
		boolP("aof-use-rdb-preamble", "", mod, true),
		boolP("aof-timestamp-enabled", "", mod, false),
		boolP("cluster-replica-no-failover", "cluster-slave-no-failover", mod, false),
		boolP("replica-lazy-flush", "slave-lazy-flush", mod, false),
		boolP("replica-serve-stale-data", "slave-serve-stale-data", mod, true),
		boolP("replica-read-only", "slave-read-only", mod, true),
		boolP("replica-ignore-maxmemory", "slave-ignore-maxmemory", mod, true),
		boolP("jemalloc-bg-thread", "", mod, true),
		withCheck(boolP("activedefrag", "", mod, false), checkActiveDefrag),
		boolP("syslog-enabled", "", imm, false),
		boolP("cluster-enabled", "", imm, false),
		boolP("appendonly", "", fDenyLoading, false),
		boolP("cluster-allow-reads-when-down", "", mod, false),
		boolP("cluster-allow-pubsubshard-when-down", "", mod, true),
		boolP("crash-log-enabled", "", mod, true),
		boolP("crash-memcheck-enabled", "", mod, true),
		boolP("use-exit-on-panic", "", hid, false),
		boolP("disable-thp", "", imm, true),
		boolP("cluster-allow-replica-migration", "", mod, true),
		boolP("replica-announced", "", mod, true),
		boolP("latency-tracking", "", mod, true),
		boolP("aof-disable-auto-gc", "", mod, false),
		boolP("replica-ignore-disk-write-errors", "", mod, false),
		boolP("lua-enable-deprecated-api", "", imm|hid, false),

		// String configs.
		strP("aclfile", "", imm, false, ""),
		strP("unixsocket", "", imm, true, ""),
		strP("pidfile", "", imm, true, ""),
		strP("replica-announce-ip", "slave-announce-ip", mod, true, ""),
		strP("masteruser", "", fSensitive, true, ""),
		strP("cluster-announce-ip", "", mod, true, ""),
		strP("cluster-config-file", "", imm, false, "nodes.conf"),
		withCheck(strP("cluster-announce-hostname", "", mod, true, ""), checkHostname),
		strP("syslog-ident", "", imm, false, "redis"),
		withCheck(strP("dbfilename", "", fProtected, false, "dump.rdb"), checkDBFilename),
		withCheck(strP("appendfilename", "", imm, false, "appendonly.aof"), checkAOFFilename),
		withCheck(strP("appenddirname", "", imm, false, "appendonlydir"), checkAOFDirname),
		strP("server_cpulist", "", imm, true, ""),
		strP("bio_cpulist", "", imm, true, ""),
		strP("aof_rewrite_cpulist", "", imm, true, ""),
		strP("bgsave_cpulist", "", imm, true, ""),
		strP("ignore-warnings", "", mod, false, ""),
		withCheck(strP("proc-title-template", "", mod, false, "{title} {listen-addr} {server-mode}"), checkProcTitleTemplate),
		strP("bind-source-addr", "", mod, true, ""),
		strP("logfile", "", imm, false, ""),
		strP("masterauth", "", fSensitive, true, ""),
		strP("requirepass", "", fSensitive, true, ""),

		// Enum configs.
		enumP("supervised", "", imm, enumSupervised, "no"),
		enumP("syslog-facility", "", imm, enumSyslogFacility, "local0"),
		enumP("repl-diskless-load", "", fDenyLoading, enumReplDisklessLoad, "disabled"),
		enumP("loglevel", "", mod, enumLoglevel, "notice"),
		enumP("maxmemory-policy", "", mod, enumMaxmemoryPolicy, "noeviction"),
		enumP("appendfsync", "", mod, enumAppendfsync, "everysec"),
		enumP("oom-score-adj", "", mod, enumOOMScoreAdj, "no"),
		enumP("acl-pubsub-default", "", mod, enumACLPubsub, "resetchannels"),
		enumP("sanitize-dump-payload", "", mod, enumSanitize, "no"),
		enumP("enable-protected-configs", "", imm, enumProtectedAction, "no"),
		enumP("enable-debug-command", "", imm, enumProtectedAction, "no"),
		enumP("enable-module-command", "", imm, enumProtectedAction, "no"),
		enumP("cluster-preferred-endpoint-type", "", mod, enumEndpointType, "ip"),
		enumP("propagation-error-behavior", "", mod, enumPropagationError, "ignore"),
		withCheck(sigint, checkShutdownFlags),
		withCheck(sigterm, checkShutdownFlags),
		scriptFlags,

		// Integer configs (C int).
		intP("databases", "", imm, 1, intMax, 16, 0),
		intP("port", "", mod, 0, 65535, 6379, 0),
		intP("io-threads", "", imm, 1, 128, 1, 0),
		// HotKV: how long an event loop keeps polling for events before
		// it sleeps, while they arrive at shorter intervals (0: never).
		intP("busy-poll-usec", "", mod, 0, 1_000_000, 50, 0),
		// HotKV's disk tier (server/tier.go): on or off for the life of
		// the process, its directory (relative to dir), and the memory
		// the dataset may hold before values move to disk (0: derived
		// from maxmemory).
		// Mutable so that CONFIG SET of their current values succeeds
		// (tools that set back what CONFIG GET * gave, as Redis's CONFIG
		// sanity test); the server refuses a change (server/tier.go).
		boolP("tiering", "", 0, false),
		strP("tiering-dir", "", 0, false, "tier"),
		intP("tiering-memory", "", mod, 0, longMax, 0, nMemory),
		intP("auto-aof-rewrite-percentage", "", mod, 0, intMax, 100, 0),
		intP("cluster-replica-validity-factor", "cluster-slave-validity-factor", mod, 0, intMax, 10, 0),
		intP("list-max-listpack-size", "list-max-ziplist-size", mod, intMin, intMax, -2, 0),
		intP("tcp-keepalive", "", mod, 0, intMax, 300, 0),
		intP("cluster-migration-barrier", "", mod, 0, intMax, 1, 0),
		intP("active-defrag-cycle-min", "", mod, 1, 99, 1, 0),
		intP("active-defrag-cycle-max", "", mod, 1, 99, 25, 0),
		intP("active-defrag-threshold-lower", "", mod, 0, 1000, 10, 0),
		intP("active-defrag-threshold-upper", "", mod, 0, 1000, 100, 0),
		intP("lfu-log-factor", "", mod, 0, intMax, 10, 0),
		intP("lfu-decay-time", "", mod, 0, intMax, 1, 0),
		intP("replica-priority", "slave-priority", mod, 0, intMax, 100, 0),
		intP("repl-diskless-sync-delay", "", mod, 0, intMax, 5, 0),
		intP("maxmemory-samples", "", mod, 1, intMax, 5, 0),
		intP("maxmemory-eviction-tenacity", "", mod, 0, 100, 10, 0),
		intP("timeout", "", mod, 0, intMax, 0, 0),
		intP("replica-announce-port", "slave-announce-port", mod, 0, 65535, 0, 0),
		intP("tcp-backlog", "", imm, 0, intMax, 511, 0),
		intP("cluster-port", "", imm, 0, 65535, 0, 0),
		intP("cluster-announce-bus-port", "", mod, 0, 65535, 0, 0),
		intP("cluster-announce-port", "", mod, 0, 65535, 0, 0),
		intP("cluster-announce-tls-port", "", mod, 0, 65535, 0, 0),
		intP("repl-timeout", "", mod, 1, intMax, 60, 0),
		intP("repl-ping-replica-period", "repl-ping-slave-period", mod, 1, intMax, 10, 0),
		intP("list-compress-depth", "", mod, 0, intMax, 0, 0),
		intP("rdb-key-save-delay", "", hid, intMin, intMax, 0, 0),
		intP("key-load-delay", "", hid, intMin, intMax, 0, 0),
		intP("active-expire-effort", "", mod, 1, 10, 1, 0),
		hz,
		intP("min-replicas-to-write", "min-slaves-to-write", mod, 0, intMax, 0, 0),
		intP("min-replicas-max-lag", "min-slaves-max-lag", mod, 0, intMax, 10, 0),
		intP("watchdog-period", "", hid, 0, intMax, 0, 0),
		intP("shutdown-timeout", "", mod, 0, intMax, 10, 0),
		intP("repl-diskless-sync-max-replicas", "", mod, 0, intMax, 0, 0),

		// Unsigned int configs.
		intP("maxclients", "", mod, 1, uintMax, 10000, nUnsigned),
		intP("unixsocketperm", "", imm, 0, 0o777, 0, nUnsigned|nOctal),
		intP("socket-mark-id", "", imm, 0, uintMax, 0, nUnsigned),

		// Unsigned long configs (bounds checked as signed, as in Redis).
		intP("active-defrag-max-scan-fields", "", mod, 1, longMax, 1000, 0),
		intP("slowlog-max-len", "", mod, 0, longMax, 128, 0),
		intP("acllog-max-len", "", mod, 0, longMax, 128, 0),

		// Long long configs.
		intP("busy-reply-threshold", "lua-time-limit", mod, 0, longMax, 5000, 0),
		intP("cluster-node-timeout", "", mod, 0, longMax, 15000, 0),
		intP("slowlog-log-slower-than", "", mod, -1, longMax, 10000, 0),
		intP("latency-monitor-threshold", "", mod, 0, longMax, 0, 0),
		intP("proto-max-bulk-len", "", mod, 1024*1024, longMax, 512*1024*1024, nMemory),
		intP("stream-node-max-entries", "", mod, 0, longMax, 100, 0),
		backlog,

		// Unsigned long long configs.
		intP("maxmemory", "", mod, 0, ullongMax, 0, nMemory|nUnsigned),
		intP("cluster-link-sendbuf-limit", "", mod, 0, ullongMax, 0, nMemory|nUnsigned),

		// size_t configs.
		intP("hash-max-listpack-entries", "hash-max-ziplist-entries", mod, 0, longMax, 512, nUnsigned),
		intP("set-max-intset-entries", "", mod, 0, longMax, 512, nUnsigned),
		intP("zset-max-listpack-entries", "zset-max-ziplist-entries", mod, 0, longMax, 128, nUnsigned),
		intP("active-defrag-ignore-bytes", "", mod, 1, longMax, 100<<20, nMemory|nUnsigned),
		intP("hash-max-listpack-value", "hash-max-ziplist-value", mod, 0, longMax, 64, nMemory|nUnsigned),
		intP("stream-node-max-bytes", "", mod, 0, longMax, 4096, nMemory|nUnsigned),
		intP("zset-max-listpack-value", "zset-max-ziplist-value", mod, 0, longMax, 64, nMemory|nUnsigned),
		intP("hll-sparse-max-bytes", "", mod, 0, longMax, 3000, nMemory|nUnsigned),
		intP("tracking-table-max-keys", "", mod, 0, longMax, 1000000, nUnsigned),
		intP("client-query-buffer-limit", "", mod, 1024*1024, longMax, 1024*1024*1024, nMemory|nUnsigned),
		// ssize_t.
		intP("maxmemory-clients", "", mod, -100, longMax, 0, nMemory|nPercent),

		// Other numeric configs (time_t, off_t).
		intP("repl-backlog-ttl", "", mod, 0, longMax, 60*60, 0),
		intP("auto-aof-rewrite-min-size", "", mod, 0, longMax, 64*1024*1024, nMemory),
		intP("loading-process-events-interval-bytes", "", hid, 1024, intMax, 1024*1024*2, 0),

		// TLS configs.
		intP("tls-port", "", mod, 0, 65535, 0, 0),
		intP("tls-session-cache-size", "", mod, 0, intMax, 20*1024, 0),
		intP("tls-session-cache-timeout", "", mod, 0, intMax, 300, 0),
		boolP("tls-cluster", "", mod, false),
		boolP("tls-replication", "", mod, false),
		enumP("tls-auth-clients", "", mod, enumTLSAuthClients, "yes"),
		boolP("tls-prefer-server-ciphers", "", mod, false),
		boolP("tls-session-caching", "", mod, true),
		strP("tls-cert-file", "", mod, true, ""),
		strP("tls-key-file", "", mod, true, ""),
		strP("tls-key-file-pass", "", mod, true, ""),
		strP("tls-client-cert-file", "", mod, true, ""),
		strP("tls-client-key-file", "", mod, true, ""),
		strP("tls-client-key-file-pass", "", mod, true, ""),
		strP("tls-dh-params-file", "", mod, true, ""),
		strP("tls-ca-cert-file", "", mod, true, ""),
		strP("tls-ca-cert-dir", "", mod, true, ""),
		strP("tls-protocols", "", mod, true, ""),
		strP("tls-ciphers", "", mod, true, ""),
		strP("tls-ciphersuites", "", mod, true, ""),

		// Special configs.
		specialP("dir", "", fProtected|fDenyLoading, []string{"."}, parseDir, rewriteDir),
		specialP("save", "", fMultiArg, []string{"3600", "1", "300", "100", "60", "10000"}, parseSave, rewriteSave),
		specialP("client-output-buffer-limit", "", fMultiArg,
			[]string{"normal", "0", "0", "0", "slave", "268435456", "67108864", "60", "pubsub", "33554432", "8388608", "60"},
			parseClientOutputBufferLimit, rewriteClientOutputBufferLimit),
		specialP("oom-score-adj-values", "", fMultiArg, []string{"0", "200", "800"}, parseOOMScoreAdjValues, rewriteOOMScoreAdjValues),
		specialP("notify-keyspace-events", "", mod, []string{""}, parseNotifyKeyspaceEvents, rewriteNotifyKeyspaceEvents),
		specialP("bind", "", fMultiArg, defaultBind, parseBind, rewriteBind),
		specialP("replicaof", "slaveof", imm|fMultiArg, []string{"no", "one"}, parseReplicaOf, rewriteReplicaOf),
		specialP("latency-tracking-info-percentiles", "", fMultiArg, []string{"50", "99", "99.9"}, parsePercentiles, rewritePercentiles),
	}
}

// defaultBind is the default for "bind", Redis 7.0's: every interface
// ("-::*": IPv6 when there is any), with protected-mode keeping clients
// off the loopback out until the default user has a password.
var defaultBind = []string{"*", "-::*"}
