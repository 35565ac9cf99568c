package server

import (
	"bytes"
	"fmt"
	"math"
	"math/big"

	"github.com/hotkv/hotkv/keyspace"
)

func stringCommands() []*Command {
	const (
		rw   = Write | DenyOOM
		rwf  = Write | DenyOOM | Fast
		rof  = Readonly | Fast
		wf   = Write | Fast
		ro   = Readonly
		last = -1
	)
	return []*Command{
		{Name: "get", Arity: 2, Flags: rof, First: 1, Last: 1, Step: 1, Handler: cmdGet},
		{Name: "set", Arity: -3, Flags: rw, First: 1, Last: 1, Step: 1, Handler: cmdSet, KeysOnly: setKeysOnly},
		{Name: "setnx", Arity: 3, Flags: rwf, First: 1, Last: 1, Step: 1, Handler: cmdSetNX, KeysOnly: alwaysKeysOnly},
		{Name: "setex", Arity: 4, Flags: rw, First: 1, Last: 1, Step: 1, Handler: cmdSetEX},
		{Name: "psetex", Arity: 4, Flags: rw, First: 1, Last: 1, Step: 1, Handler: cmdPSetEX},
		{Name: "getset", Arity: 3, Flags: rwf, First: 1, Last: 1, Step: 1, Handler: cmdGetSet},
		{Name: "getdel", Arity: 2, Flags: wf, First: 1, Last: 1, Step: 1, Handler: cmdGetDel},
		{Name: "getex", Arity: -2, Flags: wf, First: 1, Last: 1, Step: 1, Handler: cmdGetEx},
		{Name: "mget", Arity: -2, Flags: rof, First: 1, Last: last, Step: 1, Handler: cmdMget},
		{Name: "mset", Arity: -3, Flags: rw, First: 1, Last: last, Step: 2, Handler: cmdMset},
		{Name: "msetnx", Arity: -3, Flags: rw, First: 1, Last: last, Step: 2, Handler: cmdMsetNX},
		{Name: "append", Arity: 3, Flags: rwf, First: 1, Last: 1, Step: 1, Handler: cmdAppend},
		{Name: "strlen", Arity: 2, Flags: rof, First: 1, Last: 1, Step: 1, Handler: cmdStrlen},
		{Name: "incr", Arity: 2, Flags: rwf, First: 1, Last: 1, Step: 1, Handler: cmdIncr},
		{Name: "decr", Arity: 2, Flags: rwf, First: 1, Last: 1, Step: 1, Handler: cmdDecr},
		{Name: "incrby", Arity: 3, Flags: rwf, First: 1, Last: 1, Step: 1, Handler: cmdIncrBy},
		{Name: "decrby", Arity: 3, Flags: rwf, First: 1, Last: 1, Step: 1, Handler: cmdDecrBy},
		{Name: "incrbyfloat", Arity: 3, Flags: rwf, First: 1, Last: 1, Step: 1, Handler: cmdIncrByFloat},
		{Name: "getrange", Arity: 4, Flags: ro, First: 1, Last: 1, Step: 1, Handler: cmdGetRange},
		{Name: "substr", Arity: 4, Flags: ro, First: 1, Last: 1, Step: 1, Handler: cmdGetRange},
		{Name: "setrange", Arity: 4, Flags: rw, First: 1, Last: 1, Step: 1, Handler: cmdSetRange},
		{Name: "lcs", Arity: -3, Flags: ro, First: 1, Last: 2, Step: 1, Handler: cmdLcs},
	}
}

// cstr returns b up to its first NUL byte: Redis compares option names as
// C strings, so "NX\x00junk" is NX.
func cstr(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}

// getString replies with key's string value (null when missing) as Redis's
// getGenericCommand does. It returns the entry (nil when missing) and false
// after replying WRONGTYPE.
func (c *Client) getString(key []byte) (*keyspace.Entry, bool) {
	e := c.lookupRead(key)
	if e == nil {
		c.w.Null()
		return nil, true
	}
	if e.Kind != keyspace.KindString {
		c.errorReply(errWrongType)
		return nil, false
	}
	c.w.Bulk(e.Str())
	return e, true
}

// checkStringLength replies with Redis's error and returns false when a
// string of size+add bytes would exceed proto-max-bulk-len (or overflow).
func (c *Client) checkStringLength(size, add int64) bool {
	total := int64(uint64(size) + uint64(add))
	if total > c.srv.protoMaxBulk.Int() || total < size || total < add {
		c.errorReply(errStringTooLong)
		return false
	}
	return true
}

// GET key
func cmdGet(c *Client, args [][]byte) {
	v, exists, ok := c.readString(args[1])
	switch {
	case !ok:
	case !exists:
		c.w.Null()
	case len(v) > replyChunkBytes && c.replyOverLimit(len(v)):
		// Closed for its output limits before the copy, as Redis checks
		// as it adds the reply.
	default:
		c.w.Bulk(v)
	}
}

// Flags of SET, GETEX and friends, as Redis's parseExtendedStringArguments
// names them.
const (
	setNX = 1 << iota
	setXX
	setGet
	setKeepTTL
	setPersist
	setEX
	setPX
	setEXAT
	setPXAT

	setExpireFlags = setEX | setPX | setEXAT | setPXAT
)

const (
	cmdTypeSet = iota
	cmdTypeGetEx
)

// parseSetOptions parses the options of SET (from index 3) or GETEX (from
// index 2) exactly as Redis does: repeated options are allowed, conflicting
// ones are a syntax error. It returns the flags and the expire argument.
func (c *Client) parseSetOptions(args [][]byte, from, cmdType int) (flags int, expire []byte, ok bool) {
	for j := from; j < len(args); j++ {
		opt := cstr(args[j])
		hasNext := j+1 < len(args)
		switch {
		case equalFold(opt, "nx") && flags&setXX == 0 && cmdType == cmdTypeSet:
			flags |= setNX
		case equalFold(opt, "xx") && flags&setNX == 0 && cmdType == cmdTypeSet:
			flags |= setXX
		case equalFold(opt, "get") && cmdType == cmdTypeSet:
			flags |= setGet
		case equalFold(opt, "keepttl") && flags&(setPersist|setExpireFlags) == 0 && cmdType == cmdTypeSet:
			flags |= setKeepTTL
		case equalFold(opt, "persist") && cmdType == cmdTypeGetEx && flags&(setExpireFlags|setKeepTTL) == 0:
			flags |= setPersist
		case equalFold(opt, "ex") && flags&(setKeepTTL|setPersist|setEXAT|setPX|setPXAT) == 0 && hasNext:
			flags |= setEX
			expire = args[j+1]
			j++
		case equalFold(opt, "px") && flags&(setKeepTTL|setPersist|setEX|setEXAT|setPXAT) == 0 && hasNext:
			flags |= setPX
			expire = args[j+1]
			j++
		case equalFold(opt, "exat") && flags&(setKeepTTL|setPersist|setEX|setPX|setPXAT) == 0 && hasNext:
			flags |= setEXAT
			expire = args[j+1]
			j++
		case equalFold(opt, "pxat") && flags&(setKeepTTL|setPersist|setEX|setEXAT|setPX) == 0 && hasNext:
			flags |= setPXAT
			expire = args[j+1]
			j++
		default:
			c.errorReply(errSyntax)
			return 0, nil, false
		}
	}
	return flags, expire, true
}

// expireMillis turns an EX/PX/EXAT/PXAT argument into an absolute unix
// time in milliseconds, replying with Redis's error when it is invalid.
func (c *Client) expireMillis(cmd string, arg []byte, flags int) (int64, bool) {
	n, ok := c.intArg(arg)
	if !ok {
		return 0, false
	}
	seconds := flags&(setEX|setEXAT) != 0
	if n <= 0 || seconds && n > math.MaxInt64/1000 {
		c.errorReply(fmt.Sprintf(errInvalidExpire, cmd))
		return 0, false
	}
	if seconds {
		n *= 1000
	}
	if flags&(setEX|setPX) != 0 {
		now := c.db.Now()
		if n > math.MaxInt64-now {
			c.errorReply(fmt.Sprintf(errInvalidExpire, cmd))
			return 0, false
		}
		n += now
	}
	return n, true
}

// setGeneric is Redis's setGenericCommand for SET, SETEX and PSETEX;
// args is SET's arguments (nil for the others).
func (c *Client) setGeneric(cmd string, flags int, key, val, expArg []byte, args [][]byte) {
	var at int64
	if expArg != nil {
		var ok bool
		if at, ok = c.expireMillis(cmd, expArg, flags); !ok {
			return
		}
	}
	var old *keyspace.Entry
	if flags&setGet != 0 {
		var ok bool
		if old, ok = c.getString(key); !ok {
			return
		}
	} else if flags&(setNX|setXX) != 0 {
		old = c.lookupKeyWrite(key) // existence only: a cold value stays on disk
	}
	if flags&setNX != 0 && old != nil || flags&setXX != 0 && old == nil {
		c.propagateNothing()
		if flags&setGet == 0 {
			c.w.Null()
		}
		return
	}
	c.db.SetString(key, val, flags&setKeepTTL != 0)
	c.notify(evString, "set", key)
	if at != 0 {
		c.db.SetExpire(key, at)
		c.notify(evGeneric, "expire", key)
		if c.recording() {
			// As Redis, always rewritten: relative times replay as
			// absolute, and the options (GET, NX, XX) are dropped.
			c.propagate(argSET, key, val, argPXAT, intBytes(at))
		}
	} else if flags&setGet != 0 && c.recording() {
		// As Redis, without GET (which may be repeated).
		out := make([][]byte, 0, len(args))
		for i, a := range args {
			if i < 3 || !equalFold(a, "get") {
				out = append(out, a)
			}
		}
		c.propagate(out...)
	}
	if flags&setGet == 0 {
		c.w.OK()
	}
}

// SET key value [NX | XX] [GET] [EX seconds | PX milliseconds |
// EXAT unix-time-seconds | PXAT unix-time-milliseconds | KEEPTTL]
func cmdSet(c *Client, args [][]byte) {
	flags, expArg, ok := c.parseSetOptions(args, 3, cmdTypeSet)
	if ok {
		c.setGeneric("set", flags, args[1], args[2], expArg, args)
	}
}

// SETNX key value
func cmdSetNX(c *Client, args [][]byte) {
	if c.lookupKeyWrite(args[1]) != nil {
		c.propagateNothing()
		c.w.Int(0)
		return
	}
	c.db.SetString(args[1], args[2], false)
	c.notify(evString, "set", args[1])
	c.w.Int(1)
}

// SETEX key seconds value
func cmdSetEX(c *Client, args [][]byte) { c.setGeneric("setex", setEX, args[1], args[3], args[2], nil) }

// PSETEX key milliseconds value
func cmdPSetEX(c *Client, args [][]byte) {
	c.setGeneric("psetex", setPX, args[1], args[3], args[2], nil)
}

// GETSET key value
func cmdGetSet(c *Client, args [][]byte) {
	if _, ok := c.getString(args[1]); ok {
		c.db.SetString(args[1], args[2], false)
		c.notify(evString, "set", args[1])
		c.propagate(argSET, args[1], args[2]) // as Redis: a SET
	}
}

// GETDEL key
func cmdGetDel(c *Client, args [][]byte) {
	if e, ok := c.getString(args[1]); ok && e != nil {
		c.db.Delete(args[1])
		c.propagate(argDEL, args[1])
		c.notify(evGeneric, "del", args[1])
	} else {
		c.propagateNothing()
	}
}

// GETEX key [EX seconds | PX milliseconds | EXAT unix-time-seconds |
// PXAT unix-time-milliseconds | PERSIST]
func cmdGetEx(c *Client, args [][]byte) {
	c.propagateNothing() // unless the expiry changes, below
	flags, expArg, ok := c.parseSetOptions(args, 2, cmdTypeGetEx)
	if !ok {
		return
	}
	key := args[1]
	e := c.lookupRead(key)
	if e == nil {
		c.w.Null()
		return
	}
	if !c.checkType(e, keyspace.KindString) {
		return
	}
	var at int64
	if expArg != nil {
		if at, ok = c.expireMillis("getex", expArg, flags); !ok {
			return
		}
	}
	c.w.Bulk(e.Str())
	switch {
	case flags&(setEXAT|setPXAT) != 0 && c.alreadyExpired(at):
		c.db.Delete(key)
		c.propagate(argDEL, key)
		c.notify(evGeneric, "del", key)
	case expArg != nil:
		c.db.SetExpire(key, at)
		if c.recording() {
			c.propagate(argPEXPIREAT, key, intBytes(at))
		}
		c.notify(evGeneric, "expire", key)
	case flags&setPersist != 0 && e.Expire() != 0:
		c.db.SetExpire(key, 0)
		c.propagate(argPERSIST, key)
		c.notify(evGeneric, "persist", key)
	}
}

// MGET key [key ...]
func cmdMget(c *Client, args [][]byte) {
	c.w.Array(len(args) - 1)
	for _, k := range args[1:] {
		e := c.lookupRead(k)
		if e == nil || e.Kind != keyspace.KindString {
			c.w.Null()
			continue
		}
		c.w.Bulk(e.Str())
	}
}

// MSET key value [key value ...]
func cmdMset(c *Client, args [][]byte) {
	if len(args)%2 == 0 {
		c.errorReply(fmt.Sprintf(errArity, "mset"))
		return
	}
	for i := 1; i < len(args); i += 2 {
		c.db.SetString(args[i], args[i+1], false)
		c.notify(evString, "set", args[i])
	}
	c.dirty((len(args) - 1) / 2)
	c.w.OK()
}

// MSETNX key value [key value ...]
func cmdMsetNX(c *Client, args [][]byte) {
	if len(args)%2 == 0 {
		c.errorReply(fmt.Sprintf(errArity, "msetnx"))
		return
	}
	for i := 1; i < len(args); i += 2 {
		if c.lookupWrite(args[i]) != nil {
			c.propagateNothing()
			c.w.Int(0)
			return
		}
	}
	for i := 1; i < len(args); i += 2 {
		c.db.SetString(args[i], args[i+1], false)
		c.notify(evString, "set", args[i])
	}
	c.dirty((len(args) - 1) / 2)
	c.w.Int(1)
}

// APPEND key value
func cmdAppend(c *Client, args [][]byte) {
	key, val := args[1], args[2]
	e := c.lookupWrite(key)
	if e == nil {
		c.db.SetString(key, val, false)
		c.notify(evString, "append", key)
		c.w.Int(int64(len(val)))
		return
	}
	if !c.checkType(e, keyspace.KindString) ||
		!c.checkStringLength(int64(len(e.Str())), int64(len(val))) {
		return
	}
	c.db.SetStringBuf(e, append(e.Str(), val...))
	e.MarkRaw()
	c.db.Updated(key, e)
	c.notify(evString, "append", key)
	c.w.Int(int64(len(e.Str())))
}

// STRLEN key
func cmdStrlen(c *Client, args [][]byte) {
	e := c.lookupRead(args[1])
	if e == nil {
		c.w.Int(0)
		return
	}
	if c.checkType(e, keyspace.KindString) {
		c.w.Int(int64(len(e.Str())))
	}
}

// incrBy adds delta to key's integer value and replies with the result.
func (c *Client) incrBy(key []byte, delta int64) {
	e := c.lookupWrite(key)
	if !c.checkType(e, keyspace.KindString) {
		return
	}
	var cur int64
	if e != nil {
		n, ok := parseInt(e.Str())
		if !ok {
			c.errorReply(errNotInt)
			return
		}
		cur = n
	}
	if delta < 0 && cur < 0 && delta < math.MinInt64-cur || delta > 0 && cur > 0 && delta > math.MaxInt64-cur {
		c.errorReply(errOverflow)
		return
	}
	cur += delta
	var tmp [24]byte
	if e != nil {
		c.db.OverwriteString(key, e, appendInt(tmp[:0], cur))
	} else {
		c.db.SetString(key, appendInt(tmp[:0], cur), true)
	}
	c.notify(evString, "incrby", key)
	c.w.Int(cur)
}

// INCR key
func cmdIncr(c *Client, args [][]byte) { c.incrBy(args[1], 1) }

// DECR key
func cmdDecr(c *Client, args [][]byte) { c.incrBy(args[1], -1) }

// INCRBY key increment
func cmdIncrBy(c *Client, args [][]byte) {
	if n, ok := c.intArg(args[2]); ok {
		c.incrBy(args[1], n)
	}
}

// DECRBY key decrement
func cmdDecrBy(c *Client, args [][]byte) {
	n, ok := c.intArg(args[2])
	if !ok {
		return
	}
	if n == math.MinInt64 {
		c.errorReply(errDecrOverflow)
		return
	}
	c.incrBy(args[1], -n)
}

// INCRBYFLOAT key increment
func cmdIncrByFloat(c *Client, args [][]byte) {
	key := args[1]
	e := c.lookupWrite(key)
	if !c.checkType(e, keyspace.KindString) {
		return
	}
	cur := new(big.Float).SetPrec(ldPrec)
	if e != nil {
		var ok bool
		if cur, ok = parseLongDouble(e.Str()); !ok {
			c.errorReply(errNotFloat)
			return
		}
	}
	incr, ok := parseLongDouble(args[2])
	if !ok {
		c.errorReply(errNotFloat)
		return
	}
	if cur.IsInf() || incr.IsInf() { // inf+x is inf, inf-inf is NaN
		c.errorReply(errIncrFloatNaN)
		return
	}
	v, ok := c.addLongDoubles(cur, incr)
	if !ok {
		return
	}
	c.db.SetString(key, v, true).MarkNoInt()
	c.notify(evString, "incrbyfloat", key)
	c.propagate(argSET, key, v, argKEEPTTL) // the value, not a float sum
	c.w.Bulk(v)
}

// GETRANGE key start end
// SUBSTR key start end
func cmdGetRange(c *Client, args [][]byte) {
	start, ok := c.intArg(args[2])
	if !ok {
		return
	}
	end, ok := c.intArg(args[3])
	if !ok {
		return
	}
	e := c.lookupRead(args[1])
	if e == nil {
		c.w.Bulk(nil)
		return
	}
	if !c.checkType(e, keyspace.KindString) {
		return
	}
	s := e.Str()
	n := int64(len(s))
	if start < 0 && end < 0 && start > end {
		c.w.Bulk(nil)
		return
	}
	if start < 0 {
		start += n
	}
	if end < 0 {
		end += n
	}
	start, end = max(start, 0), max(end, 0)
	if end >= n {
		end = n - 1
	}
	if start > end || n == 0 {
		c.w.Bulk(nil)
		return
	}
	c.w.Bulk(s[start : end+1])
}

// SETRANGE key offset value
func cmdSetRange(c *Client, args [][]byte) {
	key, val := args[1], args[3]
	off, ok := c.intArg(args[2])
	if !ok {
		return
	}
	if off < 0 {
		c.errorReply(errOffsetRange)
		return
	}
	e := c.lookupWrite(key)
	if e == nil {
		if len(val) == 0 {
			c.dirty(0)
			c.w.Int(0)
			return
		}
		if !c.checkStringLength(off, int64(len(val))) {
			return
		}
		buf := make([]byte, int(off)+len(val))
		copy(buf[off:], val)
		e := keyspace.NewString(key, buf)
		e.MarkRaw()
		c.db.Set(key, e)
		c.notify(evString, "setrange", key)
		c.w.Int(int64(len(buf)))
		return
	}
	if !c.checkType(e, keyspace.KindString) {
		return
	}
	if len(val) == 0 {
		c.dirty(0)
		c.w.Int(int64(len(e.Str())))
		return
	}
	if !c.checkStringLength(off, int64(len(val))) {
		return
	}
	copy(c.db.GrowString(e, int(off)+len(val))[off:], val)
	e.MarkRaw()
	c.db.Updated(key, e)
	c.notify(evString, "setrange", key)
	c.w.Int(int64(len(e.Str())))
}

// LCS key1 key2 [LEN] [IDX] [MINMATCHLEN min-match-len] [WITHMATCHLEN]
func cmdLcs(c *Client, args [][]byte) {
	ea, eb := c.lookupRead(args[1]), c.lookupRead(args[2])
	if ea != nil && ea.Kind != keyspace.KindString || eb != nil && eb.Kind != keyspace.KindString {
		c.errorReply(errLcsNotString)
		return
	}
	var a, b []byte
	if ea != nil {
		a = ea.Str()
	}
	if eb != nil {
		b = eb.Str()
	}
	var getLen, getIdx, withMatchLen bool
	var minMatchLen int64
	for j := 3; j < len(args); j++ {
		opt := cstr(args[j])
		switch {
		case equalFold(opt, "idx"):
			getIdx = true
		case equalFold(opt, "len"):
			getLen = true
		case equalFold(opt, "withmatchlen"):
			withMatchLen = true
		case equalFold(opt, "minmatchlen") && j+1 < len(args):
			n, ok := c.intArg(args[j+1])
			if !ok {
				return
			}
			minMatchLen = max(n, 0)
			j++
		default:
			c.errorReply(errSyntax)
			return
		}
	}
	if getLen && getIdx {
		c.errorReply(errLcsLenAndIdx)
		return
	}
	if uint64(len(a)) >= math.MaxUint32-1 || uint64(len(b)) >= math.MaxUint32-1 {
		c.errorReply(errLcsTooLong)
		return
	}
	alen, blen := len(a), len(b)
	cells := uint64(alen+1) * uint64(blen+1)
	if alloc := cells * 4; alloc/4 != cells || alloc > uint64(c.srv.protoMaxBulk.Int()) {
		c.errorReply(errLcsMemory)
		return
	}
	// lcs[j+i*(blen+1)] is the LCS length of a[:i] and b[:j].
	w := blen + 1
	lcs := make([]uint32, cells)
	for i := 1; i <= alen; i++ {
		row, prev := lcs[i*w:(i+1)*w], lcs[(i-1)*w:i*w]
		ai := a[i-1]
		for j := 1; j <= blen; j++ {
			switch {
			case ai == b[j-1]:
				row[j] = prev[j-1] + 1
			case prev[j] > row[j-1]:
				row[j] = prev[j]
			default:
				row[j] = row[j-1]
			}
		}
	}
	total := lcs[alen*w+blen]
	if getLen {
		c.w.Int(int64(total))
		return
	}

	// Walk back from the end as Redis does, collecting the LCS and the
	// matching ranges (last match first).
	type match struct{ aStart, aEnd, bStart, bEnd, n int }
	var matches []match
	result := make([]byte, total)
	idx := int(total)
	aStart, aEnd, bStart, bEnd := alen, 0, 0, 0 // aStart == alen: no range
	for i, j := alen, blen; i > 0 && j > 0; {
		emit := false
		if a[i-1] == b[j-1] {
			result[idx-1] = a[i-1]
			switch {
			case aStart == alen:
				aStart, aEnd, bStart, bEnd = i-1, i-1, j-1, j-1
			case aStart == i && bStart == j:
				aStart--
				bStart--
			default:
				emit = true
			}
			if aStart == 0 || bStart == 0 {
				emit = true
			}
			idx--
			i--
			j--
		} else {
			if lcs[(i-1)*w+j] > lcs[i*w+j-1] {
				i--
			} else {
				j--
			}
			if aStart != alen {
				emit = true
			}
		}
		if emit {
			n := aEnd - aStart + 1
			if getIdx && (minMatchLen == 0 || int64(n) >= minMatchLen) {
				matches = append(matches, match{aStart, aEnd, bStart, bEnd, n})
			}
			aStart = alen
		}
	}
	if !getIdx {
		c.w.Bulk(result)
		return
	}
	c.w.Map(2)
	c.w.BulkString("matches")
	c.w.Array(len(matches))
	for _, m := range matches {
		if withMatchLen {
			c.w.Array(3)
		} else {
			c.w.Array(2)
		}
		c.w.Array(2)
		c.w.Int(int64(m.aStart))
		c.w.Int(int64(m.aEnd))
		c.w.Array(2)
		c.w.Int(int64(m.bStart))
		c.w.Int(int64(m.bEnd))
		if withMatchLen {
			c.w.Int(int64(m.n))
		}
	}
	c.w.BulkString("len")
	c.w.Int(int64(total))
}

// INCRBYFLOAT works in C's long double, which on x86-64 (where Redis is
// normally built) is the x87 80-bit extended format: a 64-bit significand
// and exponents from 2^-16382 (normal) down to 2^-16445 (subnormal) and up
// to 2^16384 (exclusive). HotKV emulates it with big.Float at 64 bits of
// precision, rounding to nearest even as the FPU does, so that results
// match Redis to the last digit.
const (
	ldPrec   = 64
	ldMaxExp = 16384  // |x| < 2^16384 (big.Float's MantExp convention)
	ldMinExp = -16381 // smallest normal: 2^-16382 = 0.5 * 2^-16381
	ldSubLSB = 16445  // subnormals are multiples of 2^-16445

	// maxLongDoubleChars is Redis's MAX_LONG_DOUBLE_CHARS: string2ld
	// refuses inputs of this length or longer.
	maxLongDoubleChars = 5 * 1024
)

// parseLongDouble parses b as Redis's string2ld does: all of b must be a
// number strtold accepts (decimal, hexadecimal with a binary exponent,
// inf/infinity; not NaN), with no leading space; values that overflow or
// underflow to zero are refused.
func parseLongDouble(b []byte) (*big.Float, bool) {
	if len(b) == 0 || len(b) >= maxLongDoubleChars || isSpace(b[0]) {
		return nil, false
	}
	s := b
	neg := false
	if s[0] == '+' || s[0] == '-' {
		neg = s[0] == '-'
		s = s[1:]
	}
	if equalFold(s, "inf") || equalFold(s, "infinity") {
		return new(big.Float).SetInf(neg), true
	}
	var r *big.Rat
	var ok bool
	if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		r, ok = parseHexRat(s[2:])
	} else {
		r, ok = parseDecRat(s)
	}
	if !ok {
		return nil, false
	}
	if r == nil { // exactly zero
		f := new(big.Float).SetPrec(ldPrec)
		if neg {
			f.Neg(f)
		}
		return f, true
	}
	if neg {
		r.Neg(r)
	}
	f, ok := ldFromRat(r)
	if !ok || f.Sign() == 0 { // overflow, or underflow to zero (ERANGE)
		return nil, false
	}
	return f, true
}

// scanDigits returns the length of the run of digits (hex digits when hex)
// at the start of s.
func scanDigits(s []byte, hex bool) int {
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' ||
		hex && (s[i]|0x20 >= 'a' && s[i]|0x20 <= 'f')) {
		i++
	}
	return i
}

// parseMantissa splits s into the digits of a mantissa with an optional
// point ("12.5", ".5", "12.") and returns the integer and fraction digits
// and the rest of s; ok is false when there are no digits.
func parseMantissa(s []byte, hex bool) (intPart, frac, rest []byte, ok bool) {
	n := scanDigits(s, hex)
	intPart, s = s[:n], s[n:]
	if len(s) > 0 && s[0] == '.' {
		m := scanDigits(s[1:], hex)
		frac, s = s[1:1+m], s[1+m:]
	}
	return intPart, frac, s, len(intPart)+len(frac) > 0
}

// parseExponent parses a whole "[eE][+-]digits" (or pP) suffix, saturating
// at ±1e9 (far beyond any finite long double); an empty s is 0.
func parseExponent(s []byte, marker byte) (int64, bool) {
	if len(s) == 0 {
		return 0, true
	}
	if s[0]|0x20 != marker {
		return 0, false
	}
	s = s[1:]
	neg := false
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if len(s) == 0 || scanDigits(s, false) != len(s) {
		return 0, false
	}
	var e int64
	for _, d := range s {
		if e < 1e9 {
			e = e*10 + int64(d-'0')
		}
	}
	if neg {
		e = -e
	}
	return e, true
}

// parseDecRat parses an unsigned decimal number exactly; nil means zero.
// Values far out of long double range come back as powers of two that
// ldFromRat reports as overflow or rounds to zero.
func parseDecRat(s []byte) (*big.Rat, bool) {
	intPart, frac, rest, ok := parseMantissa(s, false)
	if !ok {
		return nil, false
	}
	exp, ok := parseExponent(rest, 'e')
	if !ok {
		return nil, false
	}
	digits := append(append(make([]byte, 0, len(intPart)+len(frac)), intPart...), frac...)
	for len(digits) > 0 && digits[0] == '0' {
		digits = digits[1:]
	}
	if len(digits) == 0 {
		return nil, true
	}
	exp -= int64(len(frac))
	// The value lies in [10^(lead), 10^(lead+1)).
	switch lead := int64(len(digits)) - 1 + exp; {
	case lead > 4933: // above LDBL_MAX (1.19e4932): overflows
		return new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), ldMaxExp+1)), true
	case lead < -4953: // below half the smallest subnormal: rounds to zero
		return new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), ldSubLSB+2)), true
	}
	m, _ := new(big.Int).SetString(string(digits), 10)
	if exp >= 0 {
		return new(big.Rat).SetInt(m.Mul(m, pow10(exp))), true
	}
	return new(big.Rat).SetFrac(m, pow10(-exp)), true
}

func pow10(n int64) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(n), nil) }

// parseHexRat parses the part of a hexadecimal float after "0x" exactly;
// nil means zero.
func parseHexRat(s []byte) (*big.Rat, bool) {
	intPart, frac, rest, ok := parseMantissa(s, true)
	if !ok {
		return nil, false
	}
	exp, ok := parseExponent(rest, 'p')
	if !ok {
		return nil, false
	}
	m, _ := new(big.Int).SetString("0"+string(intPart)+string(frac), 16)
	if m.Sign() == 0 {
		return nil, true
	}
	exp -= 4 * int64(len(frac))
	// The value lies in [2^(lead-1), 2^lead).
	switch lead := int64(m.BitLen()) + exp; {
	case lead > ldMaxExp+1:
		exp = ldMaxExp + 2 - int64(m.BitLen())
	case lead < -ldSubLSB-2:
		exp = -ldSubLSB - 3 - int64(m.BitLen())
	}
	r := new(big.Rat)
	if exp >= 0 {
		return r.SetInt(m.Lsh(m, uint(exp))), true
	}
	return r.SetFrac(m, new(big.Int).Lsh(big.NewInt(1), uint(-exp))), true
}

// ldFromRat rounds the exact value r to a long double; ok is false on
// overflow. A result of zero means r underflowed.
func ldFromRat(r *big.Rat) (*big.Float, bool) {
	f := new(big.Float).SetPrec(ldPrec).SetRat(r)
	if f.Sign() == 0 {
		return f, true
	}
	exp := f.MantExp(nil)
	if exp > ldMaxExp {
		return nil, false
	}
	if exp >= ldMinExp {
		return f, true
	}
	// Subnormal: round |r| * 2^16445 to an integer, ties to even.
	num := new(big.Int).Abs(r.Num())
	num.Lsh(num, ldSubLSB)
	q, rem := new(big.Int).QuoRem(num, r.Denom(), new(big.Int))
	if cmp := rem.Lsh(rem, 1).Cmp(r.Denom()); cmp > 0 || cmp == 0 && q.Bit(0) == 1 {
		q.Add(q, big.NewInt(1))
	}
	f.SetInt(q)
	f.SetMantExp(f, -ldSubLSB)
	if r.Sign() < 0 {
		f.Neg(f)
	}
	return f, true
}

// ldAdd returns x+y rounded to a long double; ok is false on overflow.
// addLongDoubles adds as INCRBYFLOAT and HINCRBYFLOAT do and formats the
// result, replying Redis's error when it is NaN or infinite.
func (c *Client) addLongDoubles(cur, incr *big.Float) ([]byte, bool) {
	sum, ok := ldAdd(cur, incr)
	if !ok {
		c.errorReply(errIncrFloatNaN)
		return nil, false
	}
	return formatLongDouble(nil, sum), true
}

func ldAdd(x, y *big.Float) (*big.Float, bool) {
	z := new(big.Float).SetPrec(ldPrec).Add(x, y)
	if z.Sign() == 0 {
		return z, true
	}
	exp := z.MantExp(nil)
	if exp > ldMaxExp {
		return nil, false
	}
	if exp >= ldMinExp {
		return z, true
	}
	xr, _ := x.Rat(nil)
	yr, _ := y.Rat(nil)
	return ldFromRat(xr.Add(xr, yr))
}

// formatLongDouble appends f as Redis's ld2string in LD_STR_HUMAN mode:
// "%.17Lf" with the trailing zeros (and point) removed, and "-0" as "0".
func formatLongDouble(dst []byte, f *big.Float) []byte {
	start := len(dst)
	dst = f.Append(dst, 'f', 17)
	if bytes.IndexByte(dst[start:], '.') >= 0 {
		dst = bytes.TrimRight(dst, "0")
		dst = bytes.TrimSuffix(dst, []byte("."))
	}
	if string(dst[start:]) == "-0" {
		dst = append(dst[:start], '0')
	}
	return dst
}
