package server

// unreadParams lists the parameters HotKV accepts but does not read, and
// why each is accepted rather than refused (TestEveryParameterHandled
// checks that every other parameter is read somewhere, so that a new one
// cannot be silently ignored):
//   - "as in Redis": in the configuration HotKV runs (no cluster mode),
//     Redis does not read it either;
//   - "no counterpart": it tunes a mechanism HotKV does not have (a fork,
//     jemalloc, the dict's incremental rehashing), and no value changes
//     what a client sees.
var unreadParams = map[string]string{
	"cluster-require-full-coverage":       "as in Redis without cluster mode (cluster-enabled yes is refused)",
	"cluster-replica-no-failover":         "as in Redis without cluster mode",
	"cluster-allow-reads-when-down":       "as in Redis without cluster mode",
	"cluster-allow-pubsubshard-when-down": "as in Redis without cluster mode",
	"cluster-allow-replica-migration":     "as in Redis without cluster mode",
	"cluster-announce-ip":                 "as in Redis without cluster mode",
	"cluster-config-file":                 "as in Redis without cluster mode",
	"cluster-announce-hostname":           "as in Redis without cluster mode",
	"cluster-preferred-endpoint-type":     "as in Redis without cluster mode",
	"cluster-replica-validity-factor":     "as in Redis without cluster mode",
	"cluster-migration-barrier":           "as in Redis without cluster mode",
	"cluster-port":                        "as in Redis without cluster mode",
	"cluster-announce-bus-port":           "as in Redis without cluster mode",
	"cluster-announce-port":               "as in Redis without cluster mode",
	"cluster-announce-tls-port":           "as in Redis without cluster mode",
	"cluster-node-timeout":                "as in Redis without cluster mode",
	"cluster-link-sendbuf-limit":          "as in Redis without cluster mode",

	"io-threads-do-reads":              "no counterpart: every event loop reads its own clients' input",
	"activerehashing":                  "no counterpart: HotKV's hash tables resize at once, with no incremental rehash to drive",
	"jemalloc-bg-thread":               "no counterpart: Go's allocator, not jemalloc",
	"activedefrag":                     "no counterpart: Go's heap cannot move live objects, so there is nothing to defragment",
	"active-defrag-cycle-min":          "no counterpart: no defragmentation (activedefrag)",
	"active-defrag-cycle-max":          "no counterpart: no defragmentation (activedefrag)",
	"active-defrag-threshold-lower":    "no counterpart: no defragmentation (activedefrag)",
	"active-defrag-threshold-upper":    "no counterpart: no defragmentation (activedefrag)",
	"active-defrag-ignore-bytes":       "no counterpart: no defragmentation (activedefrag)",
	"active-defrag-max-scan-fields":    "no counterpart: no defragmentation (activedefrag)",
	"disable-thp":                      "no counterpart: Redis turns transparent huge pages off for its fork's copy-on-write; HotKV does not fork",
	"no-appendfsync-on-rewrite":        "no counterpart: Redis stops fsyncing while a forked child rewrites; HotKV's rewrite forks nothing and fsync goes on, as with 'no'",
	"rdb-save-incremental-fsync":       "no counterpart: the snapshot is written and fsynced by one writer, with no fork's page cache to pace",
	"aof-rewrite-incremental-fsync":    "no counterpart: as rdb-save-incremental-fsync, for the rewrite",
	"crash-memcheck-enabled":           "no counterpart: the crash report runs no memory test (Go's heap is not C's malloc)",
	"use-exit-on-panic":                "no counterpart: HotKV never aborts on a recovered panic",
	"ignore-warnings":                  "no counterpart: HotKV logs none of the kernel warnings (ARM64-COW-BUG) it lists",
	"lua-enable-deprecated-api":        "no counterpart: gopher-lua has no deprecated API to enable",
	"sanitize-dump-payload":            "no counterpart: RESTORE and RDB loading always validate the whole payload (Redis's 'yes')",
	"replica-ignore-disk-write-errors": "no counterpart: a replica applies its master's stream whatever its disk's state",
	"replica-lazy-flush":               "no counterpart: the Go collector frees the old dataset after a full synchronization either way",
	"lazyfree-lazy-expire":             "no counterpart: the Go collector frees expired values (INFO lazyfreed_objects does not count them)",
	"lazyfree-lazy-server-del":         "no counterpart: the Go collector frees overwritten values (INFO lazyfreed_objects does not count them)",
}
