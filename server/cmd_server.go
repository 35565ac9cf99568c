package server

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"math"
	"math/bits"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hotkv/hotkv/config"
	"github.com/hotkv/hotkv/journal"
	"github.com/hotkv/hotkv/keyspace"
	"github.com/hotkv/hotkv/list"
)

func serverCommands() []*Command {
	return []*Command{
		{Name: "info", Arity: -1, Flags: Loading | Stale, Handler: cmdInfo},
		{Name: "time", Arity: 1, Flags: Loading | Stale | Fast, Handler: cmdTime},
		{Name: "lastsave", Arity: 1, Flags: Loading | Stale | Fast, Handler: cmdLastSave},
		{Name: "save", Arity: 1, Flags: Admin | NoScript | NoAsyncLoading | NoMulti, Handler: cmdSave},
		// The background saves copy the dataset under the global lock,
		// taken at the gate (inside EXEC with the transaction's).
		{Name: "bgsave", Arity: -1, Flags: Admin | NoScript | NoAsyncLoading | Global, Handler: cmdBgsave},
		{Name: "bgrewriteaof", Arity: 1, Flags: Admin | NoScript | NoAsyncLoading | Global, Handler: cmdBgrewriteaof},
		// DEBUG stops the server in Redis (DEBUG SLEEP blocks every client,
		// DEBUG POPULATE writes any key): HotKV gets the same effect with
		// the exclusive global lock.
		{Name: "debug", Arity: -2, Flags: Admin | NoScript | Loading | Stale, GlobalFor: debugNeedsGlobal, Handler: cmdDebug},
		{Name: "shutdown", Arity: -1, Flags: Admin | NoScript | Loading | Stale | NoMulti | AllowBusy, Handler: cmdShutdown},
		{Name: "memory", Arity: -2, Sub: map[string]*Command{
			"usage":        {Arity: -3, Flags: Readonly, First: 2, Last: 2, Step: 1, Handler: cmdMemoryUsage},
			"stats":        {Arity: 2, Handler: cmdMemoryStats},
			"doctor":       {Arity: 2, Handler: cmdMemoryDoctor},
			"malloc-stats": {Arity: 2, Handler: cmdMemoryMallocStats},
			"purge":        {Arity: 2, Handler: cmdMemoryPurge},
			"help":         {Arity: 2, Flags: Loading | Stale, Handler: cmdMemoryHelp},
		}},
		{Name: "slowlog", Arity: -2, Sub: map[string]*Command{
			"get":   {Arity: -2, Flags: Admin | Loading | Stale, Handler: cmdSlowlogGet},
			"len":   {Arity: 2, Flags: Admin | Loading | Stale, Handler: cmdSlowlogLen},
			"reset": {Arity: 2, Flags: Admin | Loading | Stale, Handler: cmdSlowlogReset},
			"help":  {Arity: 2, Flags: Loading | Stale, Handler: cmdSlowlogHelp},
		}},
	}
}

// replyHelpLines writes a HELP reply as Redis's addReplyHelp does: a
// header naming the command, the lines, and the closing HELP entry, all as
// status replies.
func (c *Client) replyHelpLines(cmd string, lines []string) {
	c.w.Array(len(lines) + 3)
	c.w.Simple(cmd + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:")
	for _, l := range lines {
		c.w.Simple(l)
	}
	c.w.Simple("HELP")
	c.w.Simple("    Prints this help.")
}

// TIME
func cmdTime(c *Client, args [][]byte) {
	now := time.Now()
	c.w.Array(2)
	c.w.BulkInt(now.Unix())
	c.w.BulkInt(int64(now.Nanosecond() / 1000))
}

// LASTSAVE
func cmdLastSave(c *Client, args [][]byte) { c.w.Int(c.srv.lastSave.Load()) }

// SHUTDOWN [NOSAVE | SAVE] [NOW] [FORCE] [ABORT]
//
// Persistence is not implemented yet (issue #6): SAVE has nothing to save,
// so every form shuts down at once. As with Redis, a successful SHUTDOWN
// sends no reply: the connection just closes.
func cmdShutdown(c *Client, args [][]byte) {
	var save, nosave, now, force, abort bool
	for _, a := range args[1:] {
		switch {
		case equalFold(a, "nosave"):
			nosave = true
		case equalFold(a, "save"):
			save = true
		case equalFold(a, "now"):
			now = true
		case equalFold(a, "force"):
			force = true
		case equalFold(a, "abort"):
			abort = true
		default:
			c.errorReply(errSyntax)
			return
		}
	}
	if abort && (save || nosave || now || force) || save && nosave {
		c.errorReply(errSyntax)
		return
	}
	if abort {
		// SHUTDOWN itself is immediate: only a signal's can be pending.
		if c.srv.abortShutdown() {
			c.w.OK()
		} else {
			c.errorReply(errNoShutdownInProgress)
		}
		return
	}
	s := c.srv
	if !nosave && s.scripting.busy.Load() > 0 {
		// Saving needs the global lock a busy script holds or waits
		// behind: as Redis, only SHUTDOWN NOSAVE ends a busy server.
		c.errorReply(s.scripting.busyReply())
		return
	}
	if !now {
		// With replicas behind, wait for them (shutdown-timeout): the
		// client is blocked until the cron finishes the shutdown — the
		// process exits — or it is canceled (SHUTDOWN ABORT, a failed
		// save). A SHUTDOWN sent meanwhile waits for the same end.
		if canceled, waits := s.waitForReplicas(shutdownFlags{save: save, nosave: nosave, force: force}); waits {
			s.replicaWait.waiters.Add(1)
			select {
			case <-canceled:
				c.errorReply(errShutdownFailed)
			case <-s.done:
				c.closeAfter = true
			}
			s.replicaWait.waiters.Add(-1)
			return
		}
	}
	if s.initialAOFBlocksExit(force) {
		s.warnf("Errors trying to shut down the server. Check the logs for more information.")
		c.errorReply(errShutdownFailed)
		return
	}
	if err := s.saveForShutdown(c, save, nosave); err != nil && !force {
		c.errorReply(errShutdownFailed)
		return
	}
	s.warnf("User requested shutdown...")
	if s.scripting.busy.Load() > 0 {
		s.abandon() // as Redis, exit with the script still running
	}
	// New connections are refused from now on, before this client sees
	// its connection close, as when Redis exits.
	s.closeListeners()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	}()
	c.closeAfter = true
}

// debugAllowed applies enable-debug-command: "yes", or "local" for a
// connection from the loopback interface.
func (c *Client) debugAllowed() bool {
	p := c.srv.cfg.Lookup("enable-debug-command")
	if p == nil {
		return false
	}
	switch p.Enum() {
	case "yes":
		return true
	case "local":
		return c.isLocal()
	}
	return false
}

// debugNeedsGlobal is DEBUG's GlobalFor: the subcommands that only read
// or set the server's settings, or log, run without locks (they answer
// while the server loads, as in Redis); the others hold the global lock
// (SLEEP stops every command, as Redis's does).
func debugNeedsGlobal(args [][]byte) bool {
	if len(args) < 2 {
		return true
	}
	for _, sub := range debugLockFree {
		if equalFold(args[1], sub) {
			return false
		}
	}
	return true
}

var debugLockFree = []string{"help", "log", "protocol", "pause-cron", "replybuffer", "set-active-expire", "aof-flush-sleep",
	"quicklist-packed-threshold", "set-skip-checksum-validation", "set-disable-deny-scripts"}

var debugHelp = []string{
	"AOF-FLUSH-SLEEP <microsec>",
	"    Server will sleep before flushing the AOF, this is used for testing.",
	"LOADAOF",
	"    Flush the AOF buffers on disk and reload the AOF in memory.",
	"LOG <message>",
	"    Write <message> to the server log.",
	"REPLICATE <string>",
	"    Replicates the provided string to replicas, allowing data divergence.",
	"OBJECT <key>",
	"    Show low level info about `key` and associated value.",
	"POPULATE <count> [<prefix>] [<size>]",
	"    Create <count> string keys named key:<num>. If <prefix> is specified then",
	"    it is used instead of the 'key' prefix. These are not propagated to",
	"    replicas. Cluster slots are not respected so keys not belonging to the",
	"    current node can be created in cluster mode.",
	"PROTOCOL <type>",
	"    Reply with a test value of the specified type. <type> can be: string,",
	"    integer, double, bignum, null, array, set, map, attrib, push, verbatim,",
	"    true, false.",
	"QUICKLIST-PACKED-THRESHOLD <size>",
	"    Sets the threshold for elements to be inserted as plain vs packed nodes",
	"    Default value is 1GB, allows values up to 4GB. Setting to 0 restores to default.",
	"SEGFAULT",
	"    Crash the server with sigsegv.",
	"SET-ACTIVE-EXPIRE <0|1>",
	"    Setting it to 0 disables expiring keys in background when they are not",
	"    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the",
	"    default.",
	"SLEEP <seconds>",
	"    Stop the server for <seconds>. Decimals allowed.",
	"PAUSE-CRON <0|1>",
	"    Stop periodic cron job processing.",
	"REPLYBUFFER PEAK-RESET-TIME <NEVER||RESET|time>",
	"    Sets the time (in milliseconds) to wait between client reply buffer peak resets.",
	"    In case NEVER is provided the last observed peak will never be reset",
	"    In case RESET is provided the peak reset time will be restored to the default value",
	"REPLYBUFFER RESIZING <0|1>",
	"    Enable or disable the reply buffer resize cron job",
}

// DEBUG subcommand [arg ...]
//
// HotKV implements HELP, AOF-FLUSH-SLEEP, LOG, LOADAOF, REPLICATE, SEGFAULT, OBJECT, POPULATE, PROTOCOL,
// QUICKLIST-PACKED-THRESHOLD, RELOAD, SET-ACTIVE-EXPIRE,
// SET-DISABLE-DENY-SCRIPTS, SET-SKIP-CHECKSUM-VALIDATION and SLEEP; other
// subcommands get Redis's
// unknown-subcommand error.
func cmdDebug(c *Client, args [][]byte) {
	if !c.debugAllowed() {
		c.errorReply(errDebugNotAllowed)
		return
	}
	sub := args[1]
	switch {
	case equalFold(sub, "help") && len(args) == 2:
		c.replyHelpLines("DEBUG", debugHelp)
	case equalFold(sub, "config-rewrite-force-all") && len(args) == 2:
		if err := c.srv.cfg.RewriteAll(); err != nil {
			c.errorReply("ERR CONFIG-REWRITE-FORCE-ALL failed: " + strings.TrimPrefix(err.Error(), "ERR "))
			return
		}
		c.w.OK()
	case equalFold(sub, "sleep") && len(args) == 3:
		// Redis parses with strtod: junk reads as 0, negatives do not sleep.
		if d := strtod(args[2]); d > 0 {
			time.Sleep(time.Duration(d * float64(time.Second)))
		}
		c.w.OK()
	case equalFold(sub, "replybuffer") && len(args) == 4:
		debugReplyBuffer(c, args)
	case equalFold(sub, "aof-flush-sleep") && len(args) == 3:
		c.srv.aof.flushSleep.Store(int64(atoi(args[2]))) // atoi, as Redis's
		c.w.OK()
	case equalFold(sub, "pause-cron") && len(args) == 3:
		c.srv.cronPaused.Store(atoi(args[2]) != 0)
		c.w.OK()
	case equalFold(sub, "log") && len(args) == 3:
		c.srv.warnf("DEBUG LOG: %s", args[2])
		c.w.OK()
	case equalFold(sub, "segfault") && len(args) == 2:
		// As Redis's: the crash report of a SIGSEGV, then the end.
		c.srv.CrashReport(int(syscall.SIGSEGV))
	case equalFold(sub, "replicate") && len(args) >= 3:
		// To the replicas only, as a command run on the master's
		// current database; nothing here changes.
		c.record(args[2:], journal.ToReplicas)
		c.prop.decided = true
		c.w.OK()
	case equalFold(sub, "object") && len(args) == 3:
		debugObject(c, args[2])
	case equalFold(sub, "digest") && len(args) == 2:
		debugDigest(c)
	case equalFold(sub, "digest-value"):
		debugDigestValue(c, args[2:])
	case equalFold(sub, "protocol") && len(args) == 3:
		debugProtocol(c, args[2])
	case equalFold(sub, "populate") && len(args) >= 3 && len(args) <= 5:
		debugPopulate(c, args)
	case equalFold(sub, "reload"):
		debugReload(c, args[2:])
	case equalFold(sub, "loadaof") && len(args) == 2:
		debugLoadAOF(c)
	case equalFold(sub, "set-disable-deny-scripts") && len(args) == 3:
		c.srv.scripting.allowDenied.Store(atoi(args[2]) != 0)
		c.w.OK()
	case equalFold(sub, "quicklist-packed-threshold") && len(args) == 3:
		sz, err := config.ParseMemory(string(args[2]))
		if err != nil || !list.SetPackedThreshold(uint64(sz)) {
			c.errorReply(errDebugPackedThreshold)
			return
		}
		c.w.OK()
	case equalFold(sub, "set-skip-checksum-validation") && len(args) == 3:
		c.srv.skipChecksum.Store(atoi(args[2]) != 0)
		c.w.OK()
	case equalFold(sub, "set-active-expire") && len(args) == 3:
		// Redis reads the flag with atoi: anything but a number is 0.
		c.srv.expire.disabled.Store(atoi(args[2]) == 0)
		c.w.OK()
	default:
		c.errorReply(fmtSubcommandArgs(sub, "DEBUG"))
	}
}

// emptyData empties every database (touching the keys watched there) and
// the function libraries, before DEBUG RELOAD or DEBUG LOADAOF loads the
// data again, as Redis's emptyData. The caller holds the global lock.
func (s *Server) emptyData() {
	for i, db := range s.dbs {
		s.touchWatchedInDB(i, -1)
		db.Flush()
	}
	s.trackingFlush()
	s.scripting.engine.FlushLibraries()
	s.searchFlushed() // the loaded data's definitions re-create them
}

// debugReload is DEBUG RELOAD: save the dataset, empty it and load the
// file back, under the global lock DEBUG holds.
//
// Its options, as Redis's: NOSAVE loads the file as it is, NOFLUSH loads
// it over the dataset (a key or library already there fails the load),
// MERGE lets the file's keys and libraries replace those already there.
func debugReload(c *Client, opts [][]byte) {
	s := c.srv
	save, flush, merge := true, true, false
	for _, o := range opts {
		switch {
		case equalFold(o, "merge"):
			merge = true
		case equalFold(o, "noflush"):
			flush = false
		case equalFold(o, "nosave"):
			save = false
		default:
			c.errorReply(errDebugReloadOptions)
			return
		}
	}
	if save {
		if err := s.writeSnapshot(s.liveSnapshot(), c.encodeOptions()); err != nil {
			c.errorReply(errDebugReloadSave)
			return
		}
	}
	if flush {
		s.emptyData()
	}
	dup := dupReplace // a fresh dataset: the file's own duplicates replace
	if !flush && !merge {
		dup = dupRefuse
	}
	if err := s.loadSnapshot(false, dup); err != nil {
		s.warnf("DEBUG RELOAD: %v", err)
		c.errorReply(errDebugReloadLoad)
		return
	}
	c.w.OK()
}

// debugPopulate is DEBUG POPULATE <count> [<prefix>] [<size>]. DEBUG holds
// the global lock, so it may write any key.
func debugPopulate(c *Client, args [][]byte) {
	n, ok := parseInt(args[2])
	if !ok || n < 0 {
		c.errorReply(errMustBePositive)
		return
	}
	prefix := "key"
	if len(args) >= 4 {
		prefix = string(args[3])
	}
	var size int64
	if len(args) == 5 {
		if size, ok = parseInt(args[4]); !ok || size < 0 {
			c.errorReply(errMustBePositive)
			return
		}
	}
	// The tables are sized for the new keys first, as Redis expands its
	// dict: no rehashes, and no old tables left for the collector.
	c.db.Reserve(int(n) - c.db.Len())
	var key, val []byte
	for j := int64(0); j < n; j++ {
		key = appendInt(append(append(key[:0], prefix...), ':'), j)
		if c.db.Peek(key) != nil {
			continue
		}
		val = appendInt(append(val[:0], "value:"...), j)
		if size > 0 {
			v := make([]byte, size)
			copy(v, val)
			c.db.SetString(key, v, false)
		} else {
			c.db.SetString(key, val, false)
		}
	}
	c.w.OK()
}

// atoi parses the longest prefix of b that is an integer, as C's atoi
// does (0 when there is none; no overflow check needed for a flag).
func atoi(b []byte) int64 {
	i := 0
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	var n int64
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9' && n < 1<<40; i++ {
		n = n*10 + int64(b[i]-'0')
	}
	if neg {
		return -n
	}
	return n
}

// strtod parses the longest prefix of b that is a decimal number, as C's
// strtod does for DEBUG SLEEP; 0 when there is none.
func strtod(b []byte) float64 {
	i := 0
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	start := i
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		i++
	}
	digits := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
		digits++
	}
	if i < len(b) && b[i] == '.' {
		i++
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 {
		return 0
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		j := i + 1
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		if j < len(b) && b[j] >= '0' && b[j] <= '9' {
			for j < len(b) && b[j] >= '0' && b[j] <= '9' {
				j++
			}
			i = j
		}
	}
	f, err := strconv.ParseFloat(string(b[start:i]), 64)
	if err != nil && !math.IsInf(f, 0) {
		return 0
	}
	return f
}

var memoryHelp = []string{
	"DOCTOR",
	"    Return memory problems reports.",
	"MALLOC-STATS",
	"    Return internal statistics report from the memory allocator.",
	"PURGE",
	"    Attempt to purge dirty pages for reclamation by the allocator.",
	"STATS",
	"    Return information about the memory usage of the server.",
	"USAGE <key> [SAMPLES <count>]",
	"    Return memory in bytes used by <key> and its value. Nested values are",
	"    sampled up to <count> times (default: 5, 0 means sample all).",
}

// MEMORY HELP
func cmdMemoryHelp(c *Client, args [][]byte) { c.replyHelpLines("MEMORY", memoryHelp) }

// MEMORY USAGE key [SAMPLES count]
func cmdMemoryUsage(c *Client, args [][]byte) {
	for j := 3; j < len(args); j++ {
		if !equalFold(args[j], "samples") || j+1 >= len(args) {
			c.errorReply(errSyntax)
			return
		}
		n, ok := c.intArg(args[j+1])
		if !ok {
			return
		}
		if n < 0 {
			c.errorReply(errSyntax)
			return
		}
		j++ // HotKV sizes collections exactly: samples is accepted and unused
	}
	key := args[2]
	e := c.db.Peek(key)
	if e == nil {
		c.w.Null()
		return
	}
	c.w.Int(memoryUsage(key, e))
}

// Sizes of Redis's structures on 64-bit builds, for MEMORY USAGE.
const (
	redisDictEntry = 24
	redisObject    = 16
)

// memoryUsage estimates the bytes Redis would report for key and its
// value: the dict entry, the key's sds and the value object, each rounded
// up to jemalloc's size classes. Strings match Redis exactly (int, embstr
// and raw encodings); other kinds add their MemSize to the object header.
func memoryUsage(key []byte, e *keyspace.Entry) int64 {
	n := redisDictEntry + jemallocSize(sdsAllocLen(len(key), true))
	switch e.Kind {
	case keyspace.KindString:
		v := e.Str()
		switch {
		case len(v) <= 20 && isLong(v):
			n += redisObject // OBJ_ENCODING_INT: the value lives in the pointer
		case len(v) <= 44:
			n += jemallocSize(redisObject + 3 + int64(len(v)) + 1) // embstr
		default:
			n += redisObject + jemallocSize(sdsAllocLen(len(v), false))
		}
	case keyspace.KindSuggest:
		// A module value: its type's mem_usage only (no object header).
		n += sugOf(e).ModuleMemUsage()
	default:
		n += redisObject
		if s, ok := e.Obj.(keyspace.Sizer); ok {
			n += s.MemSize()
		}
	}
	return n
}

// isLong reports whether v is an integer as Redis's string2l accepts it.
func isLong(v []byte) bool {
	_, ok := parseInt(v)
	return ok
}

// sdsAllocLen is the allocation an sds string of n bytes needs: header,
// bytes and the terminating NUL. Keys (sdsdup'ed) may use the 1-byte
// SDS_TYPE_5 header below 32 bytes; values never do.
func sdsAllocLen(n int, key bool) int64 {
	var hdr int
	switch {
	case key && n < 1<<5:
		hdr = 1
	case n < 1<<8:
		hdr = 3
	case n < 1<<16:
		hdr = 5
	case int64(n) < 1<<32:
		hdr = 9
	default:
		hdr = 17
	}
	return int64(hdr + n + 1)
}

// jemallocSize rounds n up to jemalloc's size class: 8, multiples of 16 up
// to 128, then four classes per doubling.
func jemallocSize(n int64) int64 {
	switch {
	case n <= 8:
		return 8
	case n <= 128:
		return (n + 15) &^ 15
	}
	lg := 63 - bits.LeadingZeros64(uint64(n-1))
	step := int64(1) << (lg - 2)
	return (n + step - 1) &^ (step - 1)
}

// fmtSubcommandArgs is Redis's addReplySubcommandSyntaxError text.
func fmtSubcommandArgs(sub []byte, cmd string) string {
	return fmt.Sprintf(errSubcommandArgs, truncate(cString(sub), 128), cmd)
}

// MEMORY STATS
func cmdMemoryStats(c *Client, args [][]byte) {
	s := c.srv
	used := s.usedMemory()
	peak := s.usedMem.peak.Load()
	if peak < used {
		peak = used
	}
	var keys int64
	type dbStat struct {
		i          int
		main, expi int64
	}
	var dbs []dbStat
	for i, db := range s.dbs {
		n, v := int64(db.Len()), int64(db.Volatile())
		keys += n
		if n > 0 || v > 0 {
			// Redis's per-db overhead: the dict entries of both tables.
			dbs = append(dbs, dbStat{i, n * redisDictEntry, v * redisDictEntry})
		}
	}
	overhead := int64(baseMemory)
	for _, d := range dbs {
		overhead += d.main + d.expi
	}
	dataset := used - overhead
	if dataset < 0 {
		dataset = 0
	}
	rss := rssBytes()
	w := &c.w
	al := readAllocator(rss)
	w.Map(27 + len(dbs))
	mapInt := func(k string, v int64) { w.BulkString(k); w.Int(v) }
	mapInt("peak.allocated", peak)
	mapInt("total.allocated", used)
	mapInt("startup.allocated", baseMemory)
	mapInt("replication.backlog", 0)
	mapInt("clients.slaves", 0)
	mapInt("clients.normal", 0)
	mapInt("cluster.links", 0)
	mapInt("aof.buffer", 0)
	mapInt("lua.caches", 0)
	mapInt("functions.caches", 0)
	for _, d := range dbs {
		w.BulkString("db." + strconv.Itoa(d.i))
		w.Map(3)
		mapInt("overhead.hashtable.main", d.main)
		mapInt("overhead.hashtable.expires", d.expi)
		mapInt("overhead.hashtable.slot-to-keys", 0)
	}
	mapInt("overhead.total", overhead)
	mapInt("keys.count", keys)
	perKey := int64(0)
	if keys > 0 {
		perKey = dataset / keys
	}
	mapInt("keys.bytes-per-key", perKey)
	mapInt("dataset.bytes", dataset)
	w.BulkString("dataset.percentage")
	w.Double(percent(dataset, used-baseMemory))
	w.BulkString("peak.percentage")
	w.Double(percent(used, peak))
	mapInt("allocator.allocated", al.allocated)
	mapInt("allocator.active", al.active)
	mapInt("allocator.resident", al.resident)
	w.BulkString("allocator-fragmentation.ratio")
	w.Double(ratio(al.active, al.allocated))
	mapInt("allocator-fragmentation.bytes", al.active-al.allocated)
	w.BulkString("allocator-rss.ratio")
	w.Double(ratio(al.resident, al.active))
	mapInt("allocator-rss.bytes", al.resident-al.active)
	w.BulkString("rss-overhead.ratio")
	w.Double(ratio(rss, al.resident))
	mapInt("rss-overhead.bytes", rss-al.resident)
	w.BulkString("fragmentation")
	w.Double(ratio(rss, used))
	mapInt("fragmentation.bytes", rss-used)
}

// allocatorStats are Redis's allocator figures (jemalloc's allocated,
// active and resident) for Go's heap: what live and not yet swept objects
// take, what the spans holding them take, and what the runtime holds from
// the system, less what it returned.
type allocatorStats struct{ allocated, active, resident int64 }

// allocatorSamples are the runtime/metrics readAllocator reads.
var allocatorSamples = []string{
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/unused:bytes",
	"/memory/classes/total:bytes",
	"/memory/classes/heap/released:bytes",
}

// readAllocator reads the allocator figures (rss is the process's, for
// nothing but a resident figure never above it).
func readAllocator(rss int64) allocatorStats {
	s := make([]metrics.Sample, len(allocatorSamples))
	for i, name := range allocatorSamples {
		s[i].Name = name
	}
	metrics.Read(s)
	v := func(i int) int64 {
		if s[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return int64(s[i].Value.Uint64())
	}
	a := allocatorStats{allocated: v(0), active: v(0) + v(1), resident: v(2) - v(3)}
	if rss > 0 {
		a.resident = min(a.resident, rss)
	}
	return a
}

func percent(a, b int64) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) * 100 / float64(b)
}

func ratio(a, b int64) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// MEMORY DOCTOR
func cmdMemoryDoctor(c *Client, args [][]byte) {
	msg := "Hi Sam, I can't find any memory issue in your instance. I can only account for what occurs on this base."
	if c.srv.usedMemory() < 5<<20 {
		msg = "Hi Sam, this instance is empty or is using very little memory, my issues detector can't be used in these conditions. Please, leave for your mission on Earth and fill it with some data. The new Sam and I will be back to our programming as soon as I finished rebooting."
	}
	c.w.Verbatim("txt", msg)
}

// MEMORY MALLOC-STATS
func cmdMemoryMallocStats(c *Client, args [][]byte) {
	c.w.Verbatim("txt", "Stats not supported for the current allocator")
}

// MEMORY PURGE
func cmdMemoryPurge(c *Client, args [][]byte) {
	keyspace.FreeBuffers()
	debug.FreeOSMemory()
	c.w.OK()
}

var slowlogHelp = []string{
	"GET [<count>]",
	"    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
	"    Entries are made of:",
	"    id, timestamp, time in microseconds, arguments array, client IP and port,",
	"    client name",
	"LEN",
	"    Return the length of the slowlog.",
	"RESET",
	"    Reset the slowlog.",
}

// SLOWLOG HELP
func cmdSlowlogHelp(c *Client, args [][]byte) { c.replyHelpLines("SLOWLOG", slowlogHelp) }

// SLOWLOG GET [count]
func cmdSlowlogGet(c *Client, args [][]byte) {
	if len(args) > 3 {
		c.errorReply(fmtSubcommandArgs(args[1], "SLOWLOG"))
		return
	}
	count := int64(10)
	if len(args) == 3 {
		n, ok := parseInt(args[2])
		if !ok || n < -1 {
			c.errorReply(errSlowlogCount)
			return
		}
		count = n
	}
	entries := c.srv.slowlog.newest(count)
	c.w.Array(len(entries))
	for _, e := range entries {
		c.w.Array(6)
		c.w.Int(e.id)
		c.w.Int(e.at)
		c.w.Int(e.micros)
		c.w.Array(len(e.args))
		for _, a := range e.args {
			c.w.BulkString(a)
		}
		c.w.BulkString(e.peer)
		c.w.BulkString(e.clientNm)
	}
}

// SLOWLOG LEN
func cmdSlowlogLen(c *Client, args [][]byte) { c.w.Int(int64(c.srv.slowlog.len())) }

// SLOWLOG RESET
func cmdSlowlogReset(c *Client, args [][]byte) {
	c.srv.slowlog.reset()
	c.w.OK()
}

// infoSection is one section of INFO, in Redis's output order.
type infoSection struct {
	name, title string
	def         bool // part of "default" (and of INFO without arguments)
	gen         func(s *Server, b []byte) []byte
}

// infoSections lists the sections in the order Redis prints them, with
// HotKV's own "keylocks" and "tiering" last.
var infoSections []infoSection

func init() {
	infoSections = []infoSection{
		{"server", "Server", true, (*Server).infoServer},
		{"clients", "Clients", true, (*Server).infoClients},
		{"memory", "Memory", true, (*Server).infoMemory},
		{"persistence", "Persistence", true, (*Server).infoPersistence},
		{"stats", "Stats", true, (*Server).infoStats},
		{"replication", "Replication", true, (*Server).infoReplication},
		{"cpu", "CPU", true, (*Server).infoCPU},
		{"modules", "Modules", true, (*Server).infoModules},
		{"commandstats", "Commandstats", false, (*Server).infoCommandStats},
		{"errorstats", "Errorstats", true, (*Server).infoErrorStats},
		{"latencystats", "Latencystats", false, (*Server).infoLatencyStats},
		{"cluster", "Cluster", true, (*Server).infoCluster},
		{"keyspace", "Keyspace", true, (*Server).infoKeyspace},
		{"keylocks", "Keylocks", true, (*Server).infoKeylocks},
		{"tiering", "Tiering", false, (*Server).infoTiering},
	}
}

// INFO [section [section ...]]
func cmdInfo(c *Client, args [][]byte) {
	all, def := false, len(args) == 1
	var named []string
	for _, a := range args[1:] {
		switch {
		case equalFold(a, "all"), equalFold(a, "everything"):
			all = true
		case equalFold(a, "default"):
			def = true
		default:
			named = append(named, string(lower(nil, a)))
		}
	}
	// The counters of the commands run before INFO in this batch are
	// published at the flush: count them now, as Redis would.
	c.publishStats()
	c.w.Verbatim("txt", string(c.srv.infoString(all, def, named)))
}

// infoString renders the selected sections as Redis does: "# Title"
// headers, "field:value" lines ending in CRLF, a blank line between
// sections.
func (s *Server) infoString(all, def bool, named []string) []byte {
	var b []byte
	n := 0
	for _, sec := range infoSections {
		want := all || def && sec.def
		for _, name := range named {
			want = want || name == sec.name
		}
		if !want {
			continue
		}
		if n > 0 {
			b = append(b, "\r\n"...)
		}
		n++
		b = append(b, "# "...)
		b = append(b, sec.title...)
		b = append(b, "\r\n"...)
		if sec.gen != nil {
			b = sec.gen(s, b)
		}
	}
	return b
}

// hexID derives a stable 40-hex-digit identifier (run_id, master_replid)
// from the server's start time and identity.
func (s *Server) hexID(kind string) string {
	h := sha1.Sum(fmt.Appendf(nil, "%s:%p:%d", kind, s, s.started.UnixNano()))
	return hex.EncodeToString(h[:])
}

var (
	osNameOnce sync.Once
	osName     string
)

// uname returns what Redis's "os" field shows: system, release, machine.
func uname() string {
	osNameOnce.Do(func() {
		sys := runtime.GOOS
		if sys != "" {
			sys = strings.ToUpper(sys[:1]) + sys[1:]
		}
		machine := runtime.GOARCH
		switch machine {
		case "amd64":
			machine = "x86_64"
		case "386":
			machine = "i686"
		case "arm64":
			if runtime.GOOS == "linux" {
				machine = "aarch64"
			}
		}
		osName = sys + " " + machine
		if rel, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
			osName = sys + " " + strings.TrimSpace(string(rel)) + " " + machine
		}
	})
	return osName
}

func multiplexingAPI() string {
	switch runtime.GOOS {
	case "linux", "android":
		return "epoll"
	case "darwin", "freebsd", "netbsd", "openbsd", "dragonfly", "ios":
		return "kqueue"
	case "solaris", "illumos":
		return "evport"
	case "windows":
		return "iocp"
	}
	return "poll"
}

func (s *Server) infoServer(b []byte) []byte {
	now := time.Now()
	uptime := int64(now.Sub(s.started) / time.Second)
	hz := s.cfg.Lookup("hz").Int()
	exe, _ := os.Executable()
	b = fmt.Appendf(b, "redis_version:%s\r\n", RedisVersion)
	b = fmt.Appendf(b, "hotkv_version:%s\r\n", Version)
	b = append(b, "redis_git_sha1:00000000\r\nredis_git_dirty:0\r\nredis_build_id:0\r\nredis_mode:standalone\r\n"...)
	b = fmt.Appendf(b, "os:%s\r\n", uname())
	b = fmt.Appendf(b, "arch_bits:%d\r\n", strconv.IntSize)
	b = append(b, "monotonic_clock:POSIX clock_gettime\r\n"...)
	b = fmt.Appendf(b, "multiplexing_api:%s\r\n", multiplexingAPI())
	b = append(b, "atomicvar_api:go-sync-atomic\r\ngcc_version:0.0.0\r\n"...)
	b = fmt.Appendf(b, "go_version:%s\r\n", runtime.Version())
	b = fmt.Appendf(b, "process_id:%d\r\n", os.Getpid())
	b = append(b, "process_supervised:no\r\n"...)
	b = fmt.Appendf(b, "run_id:%s\r\n", s.hexID("run"))
	b = fmt.Appendf(b, "tcp_port:%d\r\n", s.announcedPort())
	b = fmt.Appendf(b, "server_time_usec:%d\r\n", now.UnixMicro())
	b = fmt.Appendf(b, "uptime_in_seconds:%d\r\n", uptime)
	b = fmt.Appendf(b, "uptime_in_days:%d\r\n", uptime/(3600*24))
	b = fmt.Appendf(b, "hz:%d\r\n", s.hz.Load())
	b = fmt.Appendf(b, "configured_hz:%d\r\n", hz)
	b = fmt.Appendf(b, "lru_clock:%d\r\n", (now.UnixMilli()/1000)&(1<<24-1))
	b = fmt.Appendf(b, "executable:%s\r\n", exe)
	b = fmt.Appendf(b, "config_file:%s\r\n", s.cfg.File())
	b = append(b, "io_threads_active:0\r\n"...)
	if ms := s.shutdownInMillis(); s.replicaWait.deadline.Load() != 0 {
		b = fmt.Appendf(b, "shutdown_in_milliseconds:%d\r\n", ms)
	}
	return b
}

func (s *Server) infoClients(b []byte) []byte {
	s.mu.Lock()
	n := len(s.mu.clients)
	s.mu.Unlock()
	// Replicas are not counted, as in Redis.
	b = fmt.Appendf(b, "connected_clients:%d\r\n", n-len(s.repl.Replicas()))
	b = append(b, "cluster_connections:0\r\n"...)
	b = fmt.Appendf(b, "maxclients:%d\r\n", s.cfg.Lookup("maxclients").Int())
	b = append(b, "client_recent_max_input_buffer:0\r\n"+
		"client_recent_max_output_buffer:0\r\n"...)
	// Postponed clients count as blocked, as in Redis (BLOCKED_POSTPONE),
	// but are in no timeout table.
	b = fmt.Appendf(b, "blocked_clients:%d\r\n", s.blockedCount()+s.pause.count.Load()+s.replicaWait.waiters.Load())
	return fmt.Appendf(b, "tracking_clients:%d\r\nclients_in_timeout_table:%d\r\n", s.tracking.clients.Load(), s.blockedCount())
}

// bytesToHuman formats n as Redis's bytesToHuman does.
func bytesToHuman(n uint64) string {
	const k = 1024
	switch {
	case n < k:
		return strconv.FormatUint(n, 10) + "B"
	case n < k*k:
		return fmt.Sprintf("%.2fK", float64(n)/k)
	case n < k*k*k:
		return fmt.Sprintf("%.2fM", float64(n)/(k*k))
	case n < k*k*k*k:
		return fmt.Sprintf("%.2fG", float64(n)/(k*k*k))
	case n < k*k*k*k*k:
		return fmt.Sprintf("%.2fT", float64(n)/(k*k*k*k))
	case n < k*k*k*k*k*k:
		return fmt.Sprintf("%.2fP", float64(n)/(k*k*k*k*k))
	}
	return strconv.FormatUint(n, 10) + "B"
}

// memOverhead is used_memory_overhead: the empty server plus one dict
// entry per key and per expiry.
func (s *Server) memOverhead() int64 {
	n := int64(baseMemory)
	for _, db := range s.dbs {
		n += int64(db.Len()+db.Volatile()) * redisDictEntry
	}
	return n
}

// rssBytes returns the resident set size (from /proc where there is one,
// else what the Go runtime holds from the OS).
func rssBytes() int64 {
	if b, err := os.ReadFile("/proc/self/statm"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 1 {
			if pages, err := strconv.ParseInt(f[1], 10, 64); err == nil {
				return pages * int64(os.Getpagesize())
			}
		}
	}
	sample := []metrics.Sample{
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
	}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 || sample[1].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(sample[0].Value.Uint64() - sample[1].Value.Uint64())
}

// totalSystemMemory returns the machine's memory, 0 when unknown (as Redis).
func totalSystemMemory() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// scriptOverhead is what a cached script, library or function costs
// beyond its source: map entries, compiled form headers (an estimate).
const scriptOverhead = 128

func (s *Server) infoMemory(b []byte) []byte {
	used := s.usedMemory()
	peak := max(s.usedMem.peak.Load(), used)
	rss := rssBytes()
	overhead := min(s.memOverhead(), used)
	dataset := used - overhead
	sys := totalSystemMemory()
	mm := s.maxmemory.Uint()
	b = fmt.Appendf(b, "used_memory:%d\r\nused_memory_human:%s\r\n", used, bytesToHuman(uint64(used)))
	b = fmt.Appendf(b, "used_memory_rss:%d\r\nused_memory_rss_human:%s\r\n", rss, bytesToHuman(uint64(rss)))
	b = fmt.Appendf(b, "used_memory_peak:%d\r\nused_memory_peak_human:%s\r\n", peak, bytesToHuman(uint64(peak)))
	b = fmt.Appendf(b, "used_memory_peak_perc:%.2f%%\r\n", percent(used, peak))
	b = fmt.Appendf(b, "used_memory_overhead:%d\r\n", overhead)
	b = fmt.Appendf(b, "used_memory_startup:%d\r\n", baseMemory)
	b = fmt.Appendf(b, "used_memory_dataset:%d\r\n", dataset)
	b = fmt.Appendf(b, "used_memory_dataset_perc:%.2f%%\r\n", percent(dataset, used-baseMemory))
	al := readAllocator(rss)
	b = fmt.Appendf(b, "allocator_allocated:%d\r\nallocator_active:%d\r\nallocator_resident:%d\r\n",
		al.allocated, al.active, al.resident)
	b = fmt.Appendf(b, "total_system_memory:%d\r\ntotal_system_memory_human:%s\r\n", sys, bytesToHuman(uint64(sys)))
	// Scripting: the Lua states are an estimate (script.MemoryStats);
	// scripts and libraries count their source and a little overhead.
	st := s.scripting.engine.MemoryStats()
	evalMem := int64(st.ScriptBytes + st.Scripts*scriptOverhead)
	funcMem := int64(st.LibraryBytes + st.Libraries*scriptOverhead + st.Functions*scriptOverhead)
	b = fmt.Appendf(b, "used_memory_lua:%d\r\nused_memory_vm_eval:%d\r\nused_memory_lua_human:%s\r\n",
		st.EvalVM, st.EvalVM, bytesToHuman(uint64(st.EvalVM)))
	b = fmt.Appendf(b, "used_memory_scripts_eval:%d\r\nnumber_of_cached_scripts:%d\r\n", evalMem, st.Scripts)
	b = fmt.Appendf(b, "number_of_functions:%d\r\nnumber_of_libraries:%d\r\n", st.Functions, st.Libraries)
	vm := st.EvalVM + st.FunctionVM
	b = fmt.Appendf(b, "used_memory_vm_functions:%d\r\nused_memory_vm_total:%d\r\nused_memory_vm_total_human:%s\r\n",
		st.FunctionVM, vm, bytesToHuman(uint64(vm)))
	b = fmt.Appendf(b, "used_memory_functions:%d\r\nused_memory_scripts:%d\r\nused_memory_scripts_human:%s\r\n",
		funcMem, evalMem+funcMem, bytesToHuman(uint64(evalMem+funcMem)))
	b = fmt.Appendf(b, "maxmemory:%d\r\nmaxmemory_human:%s\r\n", mm, bytesToHuman(mm))
	b = fmt.Appendf(b, "maxmemory_policy:%s\r\n", s.cfg.Lookup("maxmemory-policy").String())
	b = fmt.Appendf(b, "allocator_frag_ratio:%.2f\r\nallocator_frag_bytes:%d\r\n", ratio(al.active, al.allocated), al.active-al.allocated)
	b = fmt.Appendf(b, "allocator_rss_ratio:%.2f\r\nallocator_rss_bytes:%d\r\n", ratio(al.resident, al.active), al.resident-al.active)
	b = fmt.Appendf(b, "rss_overhead_ratio:%.2f\r\nrss_overhead_bytes:%d\r\n", ratio(rss, al.resident), rss-al.resident)
	b = fmt.Appendf(b, "mem_fragmentation_ratio:%.2f\r\n", ratio(rss, used))
	b = fmt.Appendf(b, "mem_fragmentation_bytes:%d\r\n", rss-used)
	backlog, total, replicas := s.replicationMemory()
	b = fmt.Appendf(b, "mem_not_counted_for_evict:%d\r\n", s.notCountedForEvict())
	b = fmt.Appendf(b, "mem_replication_backlog:%d\r\nmem_total_replication_buffers:%d\r\nmem_clients_slaves:%d\r\n",
		backlog, total, replicas)
	b = fmt.Appendf(b, "mem_clients_normal:%d\r\n", s.evict.clients.Load())
	b = append(b, "mem_cluster_links:0\r\n"+
		"mem_aof_buffer:0\r\n"...)
	b = fmt.Appendf(b, "mem_allocator:%s\r\n", runtime.Version())
	b = append(b, "active_defrag_running:0\r\n"+
		"lazyfree_pending_objects:0\r\n"...)
	return fmt.Appendf(b, "lazyfreed_objects:%d\r\n", s.stats.lazyfreed.Load())
}

// infoPersistence is INFO's persistence section: the load in progress,
// the snapshots (the copy-on-write is the parent's, not a forked child's:
// the cow fields are what the running snapshot copied) and the
// append-only file.
func (s *Server) infoPersistence(b []byte) []byte {
	phase := s.load.phase.Load()
	b = fmt.Appendf(b, "loading:%d\r\nasync_loading:%d\r\n", boolInt(phase == loadSync), boolInt(phase == loadAsync))
	cow := s.cowSize() // what has been copied only grows until the end
	b = fmt.Appendf(b, "current_cow_peak:%d\r\ncurrent_cow_size:%d\r\ncurrent_cow_size_age:0\r\n", cow, cow)
	// A child job's progress (the parent counts the keys it encodes for
	// the child; Redis's child reports them).
	done, total := s.persist.keysDone.Load(), s.persist.keysTotal.Load()
	perc := 0.0
	if total > 0 {
		perc = float64(done) * 100 / float64(total)
	}
	b = fmt.Appendf(b, "current_fork_perc:%.2f\r\ncurrent_save_keys_processed:%d\r\ncurrent_save_keys_total:%d\r\n", perc, done, total)
	b = fmt.Appendf(b, "rdb_changes_since_last_save:%d\r\n", s.changesSinceSave())
	ps := &s.persist
	inProgress, current := 0, int64(-1)
	switch {
	case ps.bgRunning.Load():
		inProgress, current = 1, time.Now().Unix()-ps.bgStarted.Load()
	case ps.replPayloads.Load() > 0:
		inProgress, current = 1, time.Now().Unix()-ps.replStarted.Load()
	}
	status := "ok"
	if !ps.lastOK.Load() && ps.saves.Load()+ps.failed.Load() > 0 {
		status = "err"
	}
	b = fmt.Appendf(b, "rdb_bgsave_in_progress:%d\r\nrdb_last_save_time:%d\r\n", inProgress, s.lastSave.Load())
	b = fmt.Appendf(b, "rdb_last_bgsave_status:%s\r\nrdb_last_bgsave_time_sec:%d\r\nrdb_current_bgsave_time_sec:%d\r\n",
		status, ps.lastBgSecs.Load(), current)
	b = fmt.Appendf(b, "rdb_saves:%d\r\nrdb_last_cow_size:%d\r\n", ps.saves.Load(), ps.lastCow.Load())
	b = fmt.Appendf(b, "rdb_last_load_keys_expired:%d\r\nrdb_last_load_keys_loaded:%d\r\n", ps.expiredAt.Load(), ps.loadedKeys.Load())
	return s.infoLoading(s.appendAOFInfo(b))
}

// instMetrics keeps the last samples of the command and network counters
// for the instantaneous_* fields, as Redis's trackInstantaneousMetric does
// (a sample every 100 ms, averaged over the last 16).
type instMetrics struct {
	mu      sync.Mutex
	last    time.Time
	prev    [3]int64       // commands, net input, net output at last
	samples [16][3]float64 // per-second rates
	idx, n  int
}

const instSamplePeriod = 100 * time.Millisecond

// sampleInstantaneous is called by the cron on every tick.
func (s *Server) sampleInstantaneous(now time.Time) {
	m := &s.stats.inst
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.last.IsZero() && now.Sub(m.last) < instSamplePeriod {
		return
	}
	cur := [3]int64{s.stats.totalCommands(), s.stats.netInput(), s.stats.netOutput()}
	if !m.last.IsZero() {
		dt := now.Sub(m.last).Seconds()
		for i := range cur {
			m.samples[m.idx][i] = float64(max(cur[i]-m.prev[i], 0)) / dt
		}
		m.idx = (m.idx + 1) % len(m.samples)
		m.n = min(m.n+1, len(m.samples))
	}
	m.last, m.prev = now, cur
}

// rates returns the average per-second rates over the samples.
func (m *instMetrics) rates() (r [3]float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.n == 0 {
		return r
	}
	for i := 0; i < m.n; i++ {
		for j := range r {
			r[j] += m.samples[i][j]
		}
	}
	for j := range r {
		r[j] /= float64(m.n)
	}
	return r
}

func (m *instMetrics) reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.last, m.prev, m.samples, m.idx, m.n = time.Time{}, [3]int64{}, [16][3]float64{}, 0, 0
}

func (s *Server) infoStats(b []byte) []byte {
	st := &s.stats
	var hits, misses int64
	for i := range st.slots {
		hits += st.slots[i].hits.Load()
		misses += st.slots[i].misses.Load()
	}
	hits += st.hits.Load()
	misses += st.misses.Load()
	r := st.inst.rates()
	b = fmt.Appendf(b, "total_connections_received:%d\r\n", st.connections.Load())
	b = fmt.Appendf(b, "total_commands_processed:%d\r\n", st.totalCommands())
	b = fmt.Appendf(b, "instantaneous_ops_per_sec:%d\r\n", int64(r[0]))
	b = fmt.Appendf(b, "total_net_input_bytes:%d\r\n", st.netInput())
	b = fmt.Appendf(b, "total_net_output_bytes:%d\r\n", st.netOutput())
	b = append(b, "total_net_repl_input_bytes:0\r\ntotal_net_repl_output_bytes:0\r\n"...)
	b = fmt.Appendf(b, "instantaneous_input_kbps:%.2f\r\n", r[1]/1024)
	b = fmt.Appendf(b, "instantaneous_output_kbps:%.2f\r\n", r[2]/1024)
	b = append(b, "instantaneous_input_repl_kbps:0.00\r\ninstantaneous_output_repl_kbps:0.00\r\n"...)
	b = fmt.Appendf(b, "rejected_connections:%d\r\n", st.rejectedConns.Load())
	b = fmt.Appendf(b, "sync_full:%d\r\nsync_partial_ok:%d\r\nsync_partial_err:%d\r\n",
		s.replStats.full.Load(), s.replStats.partialOK.Load(), s.replStats.partialErr.Load())
	b = fmt.Appendf(b, "expired_keys:%d\r\n", st.expiredKeys.Load())
	b = fmt.Appendf(b, "expired_stale_perc:%.2f\r\n", s.expire.stale()*100)
	b = fmt.Appendf(b, "expired_time_cap_reached_count:%d\r\n", s.expire.timeCapReached.Load())
	b = fmt.Appendf(b, "expire_cycle_cpu_milliseconds:%d\r\n", st.expireCycleCPUMicros.Load()/1000)
	b = fmt.Appendf(b, "evicted_keys:%d\r\n", st.evicted.Load())
	cur, total := s.evict.exceeded()
	b = fmt.Appendf(b, "evicted_clients:%d\r\ntotal_eviction_exceeded_time:%d\r\ncurrent_eviction_exceeded_time:%d\r\n", st.evictedClients.Load(), total, cur)
	b = fmt.Appendf(b, "keyspace_hits:%d\r\nkeyspace_misses:%d\r\n", hits, misses)
	channels, patterns, shard := s.pubsubCounts()
	b = fmt.Appendf(b, "pubsub_channels:%d\r\npubsub_patterns:%d\r\npubsubshard_channels:%d\r\n", channels, patterns, shard)
	b = append(b, "latest_fork_usec:0\r\n"...)
	b = fmt.Appendf(b, "total_forks:%d\r\n", st.forks.Load())
	b = fmt.Appendf(b, "migrate_cached_sockets:%d\r\n", s.migrates.count.Load())
	b = fmt.Appendf(b, "slave_expires_tracked_keys:%d\r\n", s.replicaExpires.count())
	b = append(b, ""+
		"active_defrag_hits:0\r\n"+
		"active_defrag_misses:0\r\n"+
		"active_defrag_key_hits:0\r\n"+
		"active_defrag_key_misses:0\r\n"+
		"total_active_defrag_time:0\r\n"+
		"current_active_defrag_time:0\r\n"...)
	tkeys, titems, tprefixes := s.trackingStats()
	b = fmt.Appendf(b, "tracking_total_keys:%d\r\ntracking_total_items:%d\r\ntracking_total_prefixes:%d\r\n", tkeys, titems, tprefixes)
	b = fmt.Appendf(b, "unexpected_error_replies:%d\r\n", st.unexpectedErrors.Load())
	b = fmt.Appendf(b, "total_error_replies:%d\r\n", st.totalErrorReplies.Load())
	b = append(b, "dump_payload_sanitizations:0\r\nio_threaded_reads_processed:0\r\nio_threaded_writes_processed:0\r\n"...)
	b = fmt.Appendf(b, "reply_buffer_shrinks:%d\r\nreply_buffer_expands:%d\r\n", s.replyBuf.shrinks.Load(), s.replyBuf.expands.Load())
	b = fmt.Appendf(b, "total_protocol_errors:%d\r\n", st.protocolErrors.Load())
	return fmt.Appendf(b, "recovered_panics:%d\r\n", st.panics.Load())
}

func (s *Server) infoCPU(b []byte) []byte {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	b = fmt.Appendf(b, "used_cpu_sys:%d.%06d\r\n", int64(ru.Stime.Sec), int64(ru.Stime.Usec))
	b = fmt.Appendf(b, "used_cpu_user:%d.%06d\r\n", int64(ru.Utime.Sec), int64(ru.Utime.Usec))
	return append(b, "used_cpu_sys_children:0.000000\r\nused_cpu_user_children:0.000000\r\n"...)
}

// commandStats sums cmd's counters over the slots.
func (cmd *Command) commandStats() (calls, usec, rejected, failed int64) {
	for i := range cmd.stats {
		st := &cmd.stats[i]
		calls += st.calls.Load()
		usec += st.usec.Load()
		rejected += st.rejected.Load()
		failed += st.failed.Load()
	}
	return
}

// infoCommandStats lists every command (and subcommand, as
// cmdstat_config|get) that ran or was refused, by name.
func (s *Server) infoCommandStats(b []byte) []byte {
	for _, cmd := range s.table.all() {
		calls, usec, rejected, failed := cmd.commandStats()
		if calls == 0 && rejected == 0 && failed == 0 {
			continue
		}
		perCall := 0.0
		if calls > 0 {
			perCall = float64(usec) / float64(calls)
		}
		b = fmt.Appendf(b, "cmdstat_%s:calls=%d,usec=%d,usec_per_call=%.2f,rejected_calls=%d,failed_calls=%d\r\n",
			cmd.Name, calls, usec, perCall, rejected, failed)
	}
	return b
}

// infoErrorStats lists the error replies by code, in Redis's (byte) order.
func (s *Server) infoErrorStats(b []byte) []byte {
	codes, counts := s.stats.errors.snapshot()
	for i, code := range codes {
		b = fmt.Appendf(b, "errorstat_%s:count=%d\r\n", code, counts[i])
	}
	return b
}

func (s *Server) infoCluster(b []byte) []byte { return append(b, "cluster_enabled:0\r\n"...) }

// infoKeyspace lists the non-empty databases. avg_ttl is not estimated
// (always 0).
func (s *Server) infoKeyspace(b []byte) []byte {
	for i, db := range s.dbs {
		keys, expires := db.Len(), db.Volatile()
		if keys > 0 || expires > 0 {
			b = fmt.Appendf(b, "db%d:keys=%d,expires=%d,avg_ttl=0\r\n", i, keys, expires)
		}
	}
	return b
}

// infoKeylocks is HotKV's own section: hash-tag lock statistics.
func (s *Server) infoKeylocks(b []byte) []byte {
	acq, waits, waitMicros, global, held := s.locks.Snapshot()
	b = fmt.Appendf(b, "keylock_acquisitions:%d\r\n", acq)
	b = fmt.Appendf(b, "keylock_waits:%d\r\n", waits)
	b = fmt.Appendf(b, "keylock_wait_usec:%d\r\n", waitMicros)
	b = fmt.Appendf(b, "global_lock_exclusive_acquisitions:%d\r\n", global)
	b = fmt.Appendf(b, "keylock_tags_held:%d\r\n", held)
	// Commands that waited for their locks without holding their loop,
	// and commands whose loop went on without them (they ran long).
	b = fmt.Appendf(b, "parked_commands:%d\r\n", s.parking.parks.Load())
	b = fmt.Appendf(b, "loop_handoffs:%d\r\n", s.loopHandoffs())
	// Disk reads of cold values made while a command held its locks
	// (a script's dynamic keys, values not loaded before the locks).
	b = fmt.Appendf(b, "keylock_disk_reads:%d\r\n", s.tier.loadsUnderLock.Load())
	b = fmt.Appendf(b, "keylock_disk_read_usec:%d\r\n", s.tier.lockedLoadNs.Load()/1000)
	return s.infoScriptLocks(b)
}
