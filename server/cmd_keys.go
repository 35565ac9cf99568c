package server

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/hotkv/hotkv/glob"
	"github.com/hotkv/hotkv/keyspace"
)

func keyCommands() []*Command {
	keyed := func(name string, arity int, flags Flag, first, last int, h HandlerFunc) *Command {
		return &Command{Name: name, Arity: arity, Flags: flags, First: first, Last: last, Step: 1, Handler: h}
	}
	objectSub := func(h HandlerFunc) *Command {
		return &Command{Arity: 3, Flags: Readonly, First: 2, Last: 2, Step: 1, Handler: h}
	}
	return []*Command{
		keysOnly(keyed("del", -2, Write, 1, -1, cmdDel)),
		keysOnly(keyed("unlink", -2, Write|Fast, 1, -1, cmdUnlink)),
		keysOnly(keyed("exists", -2, Readonly|Fast, 1, -1, cmdExists)),
		keysOnly(keyed("type", 2, Readonly|Fast, 1, 1, cmdType)),
		keysOnly(keyed("touch", -2, Readonly|Fast, 1, -1, cmdTouch)),
		keysOnly(keyed("expire", -3, Write|Fast, 1, 1, cmdExpire)),
		keysOnly(keyed("pexpire", -3, Write|Fast, 1, 1, cmdPexpire)),
		keysOnly(keyed("expireat", -3, Write|Fast, 1, 1, cmdExpireAt)),
		keysOnly(keyed("pexpireat", -3, Write|Fast, 1, 1, cmdPexpireAt)),
		keysOnly(keyed("ttl", 2, Readonly|Fast, 1, 1, cmdTTL)),
		keysOnly(keyed("pttl", 2, Readonly|Fast, 1, 1, cmdPTTL)),
		keysOnly(keyed("expiretime", 2, Readonly|Fast, 1, 1, cmdExpireTime)),
		keysOnly(keyed("pexpiretime", 2, Readonly|Fast, 1, 1, cmdPexpireTime)),
		keysOnly(keyed("persist", 2, Write|Fast, 1, 1, cmdPersist)),
		keysOnly(keyed("rename", 3, Write, 1, 2, cmdRename)),
		keysOnly(keyed("renamenx", 3, Write|Fast, 1, 2, cmdRenameNX)),
		// COPY's DB option names the destination database, not a key: the
		// tag lock of newkey covers it in every database.
		keyed("copy", -3, Write|DenyOOM, 1, 2, cmdCopy),
		// MOVE touches the same key name in another database; tag locks
		// are per tag across databases, so key 1 covers both.
		keysOnly(keyed("move", 3, Write|Fast, 1, 1, cmdMove)),
		{Name: "keys", Arity: 2, Flags: Readonly | Global, Handler: cmdKeys},
		// SCAN, RANDOMKEY and DBSIZE take no key locks: the keyspace
		// shards lock internally, and they only read keys' kinds and
		// expiry, which the shard locks guard.
		{Name: "scan", Arity: -2, Flags: Readonly, Handler: cmdScan},
		{Name: "randomkey", Arity: 1, Flags: Readonly, Handler: cmdRandomKey},
		{Name: "dbsize", Arity: 1, Flags: Readonly | Fast, Handler: cmdDBSize},
		{Name: "object", Arity: -2, Sub: map[string]*Command{
			"encoding": objectSub(cmdObjectEncoding),
			"refcount": objectSub(cmdObjectRefcount),
			"idletime": objectSub(cmdObjectIdletime),
			"freq":     objectSub(cmdObjectFreq),
			"help":     {Arity: 2, Flags: Loading | Stale, Handler: cmdObjectHelp},
		}},
		{Name: "swapdb", Arity: 3, Flags: Write | Fast | Global, Handler: cmdSwapDB},
		{Name: "flushdb", Arity: -1, Flags: Write | Global, Handler: cmdFlushDB},
		{Name: "flushall", Arity: -1, Flags: Write | Global, Handler: cmdFlushAll},
	}
}

// lookupNoTouch is Redis's lookupKeyReadWithFlags(LOOKUP_NOTOUCH): it
// counts a keyspace hit or miss but leaves the access time alone.
func (c *Client) lookupNoTouch(key []byte) *keyspace.Entry {
	return c.countLookup(key, c.db.Peek(key))
}

// lookupKeyNoTouch is lookupNoTouch for a command that needs only the
// key, its kind and its expiry: a cold value stays on disk, and the entry
// must not be read for its value.
func (c *Client) lookupKeyNoTouch(key []byte) *keyspace.Entry {
	return c.countLookup(key, c.db.PeekRef(key))
}

// lookupKeyWrite is lookupWrite for a command that needs only the key,
// its kind and its expiry (lookupKeyNoTouch).
func (c *Client) lookupKeyWrite(key []byte) *keyspace.Entry { return c.db.GetRef(key) }

// DEL key [key ...]
func cmdDel(c *Client, args [][]byte) {
	c.delKeys(args, c.srv.cfg.Lookup("lazyfree-lazy-user-del").Bool())
}

// UNLINK key [key ...]
func cmdUnlink(c *Client, args [][]byte) { c.delKeys(args, true) }

// delKeys is Redis's delGenericCommand: lazy counts the values it removes
// as lazily freed (see freeAsync).
func (c *Client) delKeys(args [][]byte, lazy bool) {
	var n int64
	for _, k := range args[1:] {
		var e *keyspace.Entry
		if lazy {
			e = c.db.PeekRef(k) // a cold value is freed unread
		}
		if c.db.Delete(k) {
			if e != nil {
				c.srv.freeAsync(e)
			}
			c.notify(evGeneric, "del", k)
			n++
		}
	}
	c.dirty(int(n))
	c.w.Int(n)
}

// EXISTS key [key ...]
func cmdExists(c *Client, args [][]byte) {
	var n int64
	for _, k := range args[1:] {
		if c.lookupKeyNoTouch(k) != nil {
			n++
		}
	}
	c.w.Int(n)
}

// TOUCH key [key ...]
func cmdTouch(c *Client, args [][]byte) {
	var n int64
	for _, k := range args[1:] {
		// TOUCH updates the access time even for a NO-TOUCH client.
		if c.countLookup(k, c.db.GetRef(k)) != nil {
			n++
		}
	}
	c.w.Int(n)
}

// TYPE key
func cmdType(c *Client, args [][]byte) {
	if e := c.lookupKeyNoTouch(args[1]); e != nil {
		c.w.Simple(e.Kind.String())
		return
	}
	c.w.Simple("none")
}

// Flags of the EXPIRE family (Redis's EXPIRE_NX ...).
const (
	expireNX = 1 << iota
	expireXX
	expireGT
	expireLT
)

// expireOptions parses the NX|XX|GT|LT options from args[3:] as Redis's
// parseExtendedExpireArgumentsOrReply does.
func (c *Client) expireOptions(args [][]byte) (int, bool) {
	flags := 0
	for _, opt := range args[3:] {
		switch {
		case equalFold(opt, "nx"):
			flags |= expireNX
		case equalFold(opt, "xx"):
			flags |= expireXX
		case equalFold(opt, "gt"):
			flags |= expireGT
		case equalFold(opt, "lt"):
			flags |= expireLT
		default:
			c.errorReply(fmt.Sprintf(errUnsupportedOption, cString(opt)))
			return 0, false
		}
	}
	if flags&expireNX != 0 && flags&(expireXX|expireGT|expireLT) != 0 {
		c.errorReply(errNXXXGTLT)
		return 0, false
	}
	if flags&expireGT != 0 && flags&expireLT != 0 {
		c.errorReply(errExpireGTLT)
		return 0, false
	}
	return flags, true
}

// expireGeneric implements EXPIRE, PEXPIRE, EXPIREAT and PEXPIREAT:
// basetime is added to the argument (now for the relative forms, 0 for the
// absolute ones). A time already past deletes the key.
func (c *Client) expireGeneric(args [][]byte, name string, basetime int64, seconds bool) {
	c.propagateNothing() // unless the expiry changes, below
	flags, ok := c.expireOptions(args)
	if !ok {
		return
	}
	when, ok := c.intArg(args[2])
	if !ok {
		return
	}
	if seconds {
		if when > math.MaxInt64/1000 || when < math.MinInt64/1000 {
			c.errorReply(fmt.Sprintf(errInvalidExpire, name))
			return
		}
		when *= 1000
	}
	if when > math.MaxInt64-basetime {
		c.errorReply(fmt.Sprintf(errInvalidExpire, name))
		return
	}
	when += basetime
	key := args[1]
	e := c.lookupKeyWrite(key)
	if e == nil {
		c.w.Int(0)
		return
	}
	if flags != 0 {
		cur := e.Expire() // 0: no expiry, an infinite TTL
		switch {
		case flags&expireNX != 0 && cur != 0,
			flags&expireXX != 0 && cur == 0,
			flags&expireGT != 0 && (cur == 0 || when <= cur),
			flags&expireLT != 0 && cur != 0 && when >= cur:
			c.w.Int(0)
			return
		}
	}
	switch {
	case c.alreadyExpired(when):
		c.db.Delete(key)
		c.propagate(argDEL, key)
		c.notify(evGeneric, "del", key)
	case name == "pexpireat":
		c.db.SetExpire(key, when)
		c.propagate(args...)
		c.notify(evGeneric, "expire", key)
	default:
		c.db.SetExpire(key, when)
		if c.recording() {
			c.propagate(argPEXPIREAT, key, intBytes(when)) // relative times replay as absolute
		}
		c.notify(evGeneric, "expire", key)
	}
	c.w.Int(1)
}

// EXPIRE key seconds [NX | XX | GT | LT]
func cmdExpire(c *Client, args [][]byte) { c.expireGeneric(args, "expire", c.db.Now(), true) }

// PEXPIRE key milliseconds [NX | XX | GT | LT]
func cmdPexpire(c *Client, args [][]byte) { c.expireGeneric(args, "pexpire", c.db.Now(), false) }

// EXPIREAT key unix-time-seconds [NX | XX | GT | LT]
func cmdExpireAt(c *Client, args [][]byte) { c.expireGeneric(args, "expireat", 0, true) }

// PEXPIREAT key unix-time-milliseconds [NX | XX | GT | LT]
func cmdPexpireAt(c *Client, args [][]byte) { c.expireGeneric(args, "pexpireat", 0, false) }

// ttlGeneric replies key's time to live (abs == false) or expiry time,
// in milliseconds or seconds rounded to the nearest: -2 when the key does
// not exist, -1 when it has no expiry.
func (c *Client) ttlGeneric(key []byte, ms, abs bool) {
	e := c.lookupKeyNoTouch(key)
	if e == nil {
		c.w.Int(-2)
		return
	}
	exp := e.Expire()
	if exp == 0 {
		c.w.Int(-1)
		return
	}
	t := exp
	if !abs {
		t = max(exp-c.db.Now(), 0)
	}
	if !ms {
		t = (t + 500) / 1000
	}
	c.w.Int(t)
}

// TTL key
func cmdTTL(c *Client, args [][]byte) { c.ttlGeneric(args[1], false, false) }

// PTTL key
func cmdPTTL(c *Client, args [][]byte) { c.ttlGeneric(args[1], true, false) }

// EXPIRETIME key
func cmdExpireTime(c *Client, args [][]byte) { c.ttlGeneric(args[1], false, true) }

// PEXPIRETIME key
func cmdPexpireTime(c *Client, args [][]byte) { c.ttlGeneric(args[1], true, true) }

// PERSIST key
func cmdPersist(c *Client, args [][]byte) {
	e := c.lookupKeyWrite(args[1])
	if e == nil || e.Expire() == 0 {
		c.propagateNothing()
		c.w.Int(0)
		return
	}
	c.db.SetExpire(args[1], 0)
	c.notify(evGeneric, "persist", args[1])
	c.w.Int(1)
}

// renameGeneric implements RENAME and RENAMENX. The entry itself moves,
// keeping its value and expiry.
func (c *Client) renameGeneric(args [][]byte, nx bool) {
	src, dst := args[1], args[2]
	e := c.lookupKeyWrite(src)
	if e == nil {
		c.errorReply(errNoSuchKey)
		return
	}
	if string(src) == string(dst) {
		if nx {
			c.w.Int(0)
		} else {
			c.w.OK()
		}
		return
	}
	if c.lookupKeyWrite(dst) != nil {
		if nx {
			c.w.Int(0)
			return
		}
		c.db.Delete(dst) // as Redis: the new key is a "new" one
	}
	c.db.Detach(src) // a cold value moves unread
	c.db.Set(dst, e) // keeps e's expiry
	c.notify(evGeneric, "rename_from", src)
	c.notify(evGeneric, "rename_to", dst)
	if nx {
		c.w.Int(1)
	} else {
		c.w.OK()
	}
}

// RENAME key newkey
func cmdRename(c *Client, args [][]byte) { c.renameGeneric(args, false) }

// RENAMENX key newkey
func cmdRenameNX(c *Client, args [][]byte) { c.renameGeneric(args, true) }

// dbIndexArg parses a database index as Redis's getIntFromObjectOrReply
// does (a 32-bit int), replying notInt when it is no integer and
// outOfRange when it does not fit 32 bits, then checks the index, replying
// errDBIndex.
func (c *Client) dbIndexArg(b []byte, notInt, outOfRange string) (int, bool) {
	n, ok := parseInt(b)
	if !ok {
		c.errorReply(notInt)
		return 0, false
	}
	if n < math.MinInt32 || n > math.MaxInt32 {
		c.errorReply(outOfRange)
		return 0, false
	}
	if n < 0 || n >= int64(len(c.srv.dbs)) {
		c.errorReply(errDBIndex)
		return 0, false
	}
	return int(n), true
}

// COPY source destination [DB destination-db] [REPLACE]
func cmdCopy(c *Client, args [][]byte) {
	dst, dstIndex := c.db, int(c.dbIndex.Load())
	replace := false
	for j := 3; j < len(args); j++ {
		switch {
		case equalFold(args[j], "replace"):
			replace = true
		case equalFold(args[j], "db") && j+1 < len(args):
			i, ok := c.dbIndexArg(args[j+1], errNotInt, errIntRange32)
			if !ok {
				return
			}
			dst, dstIndex = c.srv.dbs[i], i
			j++
		default:
			c.errorReply(errSyntax)
			return
		}
	}
	key, newkey := args[1], args[2]
	if dst == c.db && string(key) == string(newkey) {
		c.errorReply(errSameObject)
		return
	}
	e := c.lookupRead(key)
	if e == nil {
		c.dirty(0)
		c.w.Int(0)
		return
	}
	exists := dst.Get(newkey) != nil
	if exists && !replace {
		c.dirty(0)
		c.w.Int(0)
		return
	}
	if e.Kind == keyspace.KindSuggest {
		// RediSearch's dictionary type has no copy callback: refused
		// before the destination is deleted.
		c.errorReply(errCopyModuleKey)
		return
	}
	if exists {
		dst.Delete(newkey) // as Redis: the copy is a "new" key
	}
	// Strings are copied, collections cloned (every kind implements
	// Clone; a future kind that does not is refused).
	dup := e.Clone(newkey)
	if dup == nil {
		c.errorReply(errCopyUnknownType)
		return
	}
	dst.Set(newkey, dup) // keeps the copied expiry
	c.srv.notifyDB(dstIndex, evGeneric, "copy_to", newkey)
	c.w.Int(1)
}

// MOVE key db
func cmdMove(c *Client, args [][]byte) {
	i, ok := c.dbIndexArg(args[2], errNotInt, errIntRange32)
	if !ok {
		return
	}
	dst := c.srv.dbs[i]
	if dst == c.db {
		c.errorReply(errSameObject)
		return
	}
	key := args[1]
	e := c.lookupKeyWrite(key)
	if e == nil || dst.GetRef(key) != nil {
		c.w.Int(0)
		return
	}
	c.db.Detach(key) // a cold value moves unread
	dst.Set(key, e)  // keeps e's expiry
	c.notify(evGeneric, "move_from", key)
	c.srv.notifyDB(i, evGeneric, "move_to", key)
	c.w.Int(1)
}

// KEYS pattern
func cmdKeys(c *Client, args [][]byte) {
	pattern := string(args[1])
	all := pattern == "*"
	var keys []string
	c.db.ForEach(func(k string, _ *keyspace.Entry) bool {
		if all || glob.MatchString(pattern, k, false) {
			keys = append(keys, k)
		}
		return true
	})
	c.w.Array(len(keys))
	for i, k := range keys {
		c.w.BulkString(k)
		if i%1024 == 1023 && c.outputOverLimit() {
			return // the client is closed: stop mid-run, as Redis
		}
	}
}

// parseCursor parses a SCAN cursor as Redis's parseScanCursorOrReply does
// with strtoul on a C string (up to the first NUL byte): no leading space,
// an optional sign ('-' negates modulo 2^64), decimal digits, nothing
// after them; "" is cursor 0.
func parseCursor(b []byte) (uint64, bool) {
	b = cString(b)
	neg := false
	i := 0
	if len(b) > 0 && (b[0] == '+' || b[0] == '-') {
		neg = b[0] == '-'
		i++
		if i == len(b) {
			return 0, false // no digits: strtoul leaves eptr at the sign
		}
	}
	var n uint64
	for ; i < len(b); i++ {
		d := b[i]
		if d < '0' || d > '9' {
			return 0, false
		}
		if n > (math.MaxUint64-uint64(d-'0'))/10 {
			return 0, false // ERANGE
		}
		n = n*10 + uint64(d-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]
func cmdScan(c *Client, args [][]byte) {
	cursor, ok := parseCursor(args[1])
	if !ok {
		c.errorReply(errInvalidCursor)
		return
	}
	count := int64(10)
	var pattern, typ string
	usePattern, useType := false, false
	for i := 2; i < len(args); i += 2 {
		more := i+1 < len(args)
		switch {
		case equalFold(args[i], "count") && more:
			if count, ok = c.intArg(args[i+1]); !ok {
				return
			}
			if count < 1 {
				c.errorReply(errSyntax)
				return
			}
		case equalFold(args[i], "match") && more:
			pattern = string(args[i+1])
			usePattern = pattern != "*"
		case equalFold(args[i], "type") && more:
			typ = string(args[i+1])
			useType = true
		default:
			c.errorReply(errSyntax)
			return
		}
	}
	var keys []string
	next := c.db.Scan(cursor, int(min(count, math.MaxInt32)), func(k string, e *keyspace.Entry) {
		if usePattern && !glob.MatchString(pattern, k, false) {
			return
		}
		if useType && !equalFold(typ, e.Kind.String()) {
			return
		}
		keys = append(keys, k)
	})
	c.w.Array(2)
	var tmp [24]byte
	c.w.Bulk(strconv.AppendUint(tmp[:0], next, 10))
	c.w.Array(len(keys))
	for _, k := range keys {
		c.w.BulkString(k)
	}
}

// RANDOMKEY
func cmdRandomKey(c *Client, args [][]byte) {
	k, ok := c.db.Random(rand.IntN)
	if !ok {
		c.w.Null()
		return
	}
	c.w.BulkString(k)
}

// DBSIZE
func cmdDBSize(c *Client, args [][]byte) { c.w.Int(int64(c.db.Len())) }

// stringEncoding returns the encoding Redis's tryObjectEncoding gives a
// string value set with SET: "int" when it is a canonical 64-bit integer
// of at most 20 bytes, "embstr" up to 44 bytes, "raw" above. (Values
// Redis builds in place, such as APPEND's, are "raw" there whatever their
// length; HotKV does not track how a value was built.)
func stringEncoding(v []byte) string {
	if len(v) <= 20 {
		if _, ok := parseInt(v); ok {
			return "int"
		}
	}
	if len(v) <= 44 {
		return "embstr"
	}
	return "raw"
}

// objectEncoding names e's encoding as OBJECT ENCODING reports it.
func objectEncoding(e *keyspace.Entry) string {
	if e.Kind == keyspace.KindString {
		switch {
		case e.IsRaw():
			return "raw"
		case e.IsNoInt() && len(e.Str()) <= 44:
			return "embstr"
		}
		return stringEncoding(e.Str())
	}
	// Every collection reports its own encoding.
	return e.Obj.(interface{ Encoding() string }).Encoding()
}

// objectLookup is Redis's objectCommandLookupOrReply: a missing key
// replies null (counted as a miss, without the keymiss event).
func (c *Client) objectLookup(key []byte) *keyspace.Entry {
	e := c.db.Peek(key)
	if e == nil {
		c.stats.misses++
		c.w.Null()
	} else {
		c.stats.hits++
	}
	return e
}

// OBJECT ENCODING key
func cmdObjectEncoding(c *Client, args [][]byte) {
	if e := c.objectLookup(args[2]); e != nil {
		c.w.BulkString(objectEncoding(e))
	}
}

// sharedRefcount is OBJ_SHARED_REFCOUNT, the refcount Redis reports for
// its shared integer objects (0..9999).
const sharedRefcount = math.MaxInt32

// OBJECT REFCOUNT key
func cmdObjectRefcount(c *Client, args [][]byte) {
	if e := c.objectLookup(args[2]); e != nil {
		c.w.Int(objectRefcount(c, e))
	}
}

// objectRefcount is the refcount Redis would report for e's value: Redis
// shares the integers 0..9999 unless maxmemory is set with an LRU or LFU
// policy; every other value is referenced once.
func objectRefcount(c *Client, e *keyspace.Entry) int64 {
	if e.Kind == keyspace.KindString && len(e.Str()) <= 4 {
		if n, ok := parseInt(e.Str()); ok && n >= 0 && n < 10000 {
			p := c.srv.evict.policyNow()
			if c.srv.maxmemory.Int() == 0 || !p.LRU() && !p.LFU() {
				return sharedRefcount
			}
		}
	}
	return 1
}

// OBJECT IDLETIME key
func cmdObjectIdletime(c *Client, args [][]byte) {
	e := c.objectLookup(args[2])
	if e == nil {
		return
	}
	if c.srv.evict.policyNow().LFU() {
		c.errorReply(errLFUSelected)
		return
	}
	c.w.Int(e.IdleSeconds())
}

// OBJECT FREQ key
func cmdObjectFreq(c *Client, args [][]byte) {
	e := c.objectLookup(args[2])
	if e == nil {
		return
	}
	if !c.srv.evict.policyNow().LFU() {
		c.errorReply(errLFUNotSelected)
		return
	}
	c.w.Int(int64(c.db.Freq(e)))
}

var objectHelp = []string{
	"OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"ENCODING <key>",
	"    Return the kind of internal representation used in order to store the value",
	"    associated with a <key>.",
	"FREQ <key>",
	"    Return the access frequency index of the <key>. The returned integer is",
	"    proportional to the logarithm of the recent access frequency of the key.",
	"IDLETIME <key>",
	"    Return the idle time of the <key>, that is the approximated number of",
	"    seconds elapsed since the last access to the key.",
	"REFCOUNT <key>",
	"    Return the number of references of the value associated with the specified",
	"    <key>.",
	"HELP",
	"    Prints this help.",
}

// OBJECT HELP
func cmdObjectHelp(c *Client, args [][]byte) {
	c.w.Array(len(objectHelp))
	for _, l := range objectHelp {
		c.w.Simple(l)
	}
}

// SWAPDB index1 index2
func cmdSwapDB(c *Client, args [][]byte) {
	// Redis parses both indexes before checking either's range.
	a, ok := parseInt(args[1])
	if !ok || a < math.MinInt32 || a > math.MaxInt32 {
		c.errorReply(errInvalidFirstDB)
		return
	}
	b, ok := parseInt(args[2])
	if !ok || b < math.MinInt32 || b > math.MaxInt32 {
		c.errorReply(errInvalidSecondDB)
		return
	}
	n := int64(len(c.srv.dbs))
	if a < 0 || a >= n || b < 0 || b >= n {
		c.errorReply(errDBIndex)
		return
	}
	if a != b {
		// A watched key changes if it is stored on either side.
		c.srv.touchWatchedInDB(int(a), int(b))
		c.srv.touchWatchedInDB(int(b), int(a))
		c.srv.dbs[a].Swap(c.srv.dbs[b])
		if a == 0 || b == 0 {
			c.srv.searchReset()
		}
		c.srv.readyWaited(int(a), int(b))
	}
	c.w.OK()
}

// flushMode parses the optional ASYNC|SYNC argument of FLUSHDB/FLUSHALL:
// async is ASYNC, or neither with lazyfree-lazy-user-flush set.
func (c *Client) flushMode(args [][]byte) (async, ok bool) {
	if len(args) > 2 || len(args) == 2 && !equalFold(args[1], "async") && !equalFold(args[1], "sync") {
		c.errorReply(errSyntax)
		return false, false
	}
	if len(args) == 2 {
		return equalFold(args[1], "async"), true
	}
	return c.srv.cfg.Lookup("lazyfree-lazy-user-flush").Bool(), true
}

// FLUSHDB [ASYNC | SYNC]
func cmdFlushDB(c *Client, args [][]byte) {
	async, ok := c.flushMode(args)
	if !ok {
		return
	}
	c.srv.touchWatchedInDB(int(c.dbIndex.Load()), -1)
	if async { // Redis's emptyDbAsync frees the keys in the background
		c.srv.stats.lazyfreed.Add(int64(c.db.Len()))
	}
	c.dirty(c.db.Len())  // the keys removed, as Redis counts them
	c.propagate(args...) // even when there were none
	c.db.Flush()
	c.srv.searchFlushed()
	c.srv.trackingFlush()
	c.srv.readyWaited(int(c.dbIndex.Load()))
	c.w.OK()
}

// FLUSHALL [ASYNC | SYNC]
func cmdFlushAll(c *Client, args [][]byte) {
	async, ok := c.flushMode(args)
	if !ok {
		return
	}
	s := c.srv
	// Redis's flushAllDataAndResetRDB kills the saving child: the
	// snapshot would be of the data flushed. (It stops at its next key;
	// waiting for it here, under the global lock, could wait forever.)
	s.persist.bgKill.kill()
	s.killSyncChildren() // a synchronization's too: its replicas sync again
	all := make([]int, len(s.dbs))
	removed := 0
	for i, db := range s.dbs {
		s.touchWatchedInDB(i, -1)
		removed += db.Len()
		if async {
			s.stats.lazyfreed.Add(int64(db.Len()))
		}
		db.Flush()
		all[i] = i
	}
	s.searchFlushed()
	s.trackingFlush()
	s.readyWaited(all...)
	c.propagate(args...) // even when there were no keys
	// As Redis 7.0: with save points, FLUSHALL also saves the (empty)
	// dataset, under the global lock it holds, and no change is left
	// unsaved.
	if s.cfg.Lookup("save").String() != "" {
		s.writeSnapshot(s.liveSnapshot(), c.encodeOptions())
		removed = 0
	}
	c.dirty(removed)
	c.w.OK()
}

// emptyScan replies what SSCAN, HSCAN and ZSCAN reply for a missing key:
// cursor 0 and no elements.
func (c *Client) emptyScan() {
	c.w.Array(2)
	c.w.BulkString("0")
	c.w.Array(0)
}

// scanOptions parses the [MATCH pattern] [COUNT count] options of SSCAN,
// HSCAN and ZSCAN from args[from] on, replying with Redis's error when
// they are malformed. A "*" pattern comes back nil (no filtering).
func (c *Client) scanOptions(args [][]byte, from int) (count int, pattern []byte, ok bool) {
	n := int64(10)
	for i := from; i < len(args); i += 2 {
		more := i+1 < len(args)
		switch opt := cstr(args[i]); {
		case equalFold(opt, "count") && more:
			if n, ok = c.intArg(args[i+1]); !ok {
				return 0, nil, false
			}
			if n < 1 {
				c.errorReply(errSyntax)
				return 0, nil, false
			}
		case equalFold(opt, "match") && more:
			pattern = args[i+1]
			if string(pattern) == "*" {
				pattern = nil
			}
		default:
			c.errorReply(errSyntax)
			return 0, nil, false
		}
	}
	return int(min(n, math.MaxInt32)), pattern, true
}
