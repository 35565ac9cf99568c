package server

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/hotkv/hotkv/keyspace"
	"github.com/hotkv/hotkv/suggest"
)

// RediSearch's suggestion dictionaries (FT.SUGADD, FT.SUGGET, FT.SUGDEL,
// FT.SUGLEN): keys of their own kind (keyspace.KindSuggest, TYPE
// trietype0, OBJECT ENCODING raw) holding a suggest.Trie. As RediSearch's:
// a dictionary is created by its first FT.SUGADD (even one that adds
// nothing), stays when its last string is deleted, other commands answer
// WRONGTYPE on it and FT.SUG* on other kinds; COPY refuses it. The writes
// propagate verbatim and fire no keyspace event of their own.
//
// Persistence, DUMP and RESTORE: sugload.go.

func suggestCommands() []*Command {
	return []*Command{
		{Name: "ft.sugadd", Arity: -1, Flags: Write | DenyOOM, First: 1, Last: 1, Step: 1, Handler: cmdFTSugAdd},
		{Name: "ft.sugget", Arity: -1, Flags: Readonly, First: 1, Last: 1, Step: 1, Handler: cmdFTSugGet},
		{Name: "ft.sugdel", Arity: -1, Flags: Write, First: 1, Last: 1, Step: 1, Handler: cmdFTSugDel},
		{Name: "ft.suglen", Arity: -1, Flags: Readonly, First: 1, Last: 1, Step: 1, Handler: cmdFTSugLen},
	}
}

// sugOf returns the dictionary e holds.
func sugOf(e *keyspace.Entry) *suggest.Trie { return e.Obj.(*suggest.Trie) }

// sugRead looks a dictionary up for reading: ok is false when the key
// holds another type (answered WRONGTYPE); e is nil when it is missing.
func (c *Client) sugRead(key []byte) (e *keyspace.Entry, ok bool) {
	e = c.lookupRead(key)
	return e, c.checkType(e, keyspace.KindSuggest)
}

// string2d parses a double as Redis's string2d (RedisModule_StringToDouble),
// which is strtod's syntax: parseFloat's, and hexadecimal too ("0x1p4",
// "0x10"); an underflow to zero is refused.
func string2d(b []byte) (float64, bool) {
	s := string(b)
	unsigned := strings.TrimLeft(s, "+-")
	if len(s)-len(unsigned) <= 1 && len(unsigned) > 2 && unsigned[0] == '0' && (unsigned[1] == 'x' || unsigned[1] == 'X') {
		if !strings.ContainsAny(unsigned, "pP") {
			s += "p0"
		}
		f, err := strconv.ParseFloat(s, 64)
		mant, _, _ := strings.Cut(strings.ToLower(unsigned[2:]), "p")
		if err != nil || math.IsInf(f, 0) || f == 0 && strings.Trim(mant, "0.") != "" {
			return 0, false
		}
		return f, true
	}
	f, ok := parseFloat(b)
	if !ok {
		return 0, false
	}
	if f == 0 {
		mant, _, _ := strings.Cut(strings.ToLower(unsigned), "e")
		if strings.ContainsAny(mant, "123456789") {
			return 0, false // ERANGE towards zero
		}
	}
	return f, true
}

// FT.SUGADD key string score [INCR] [PAYLOAD payload]
//
// The options are read first, then the key's type, then the score; the
// dictionary is created before the string is added, so a string that is
// not added (score 0 as a float, too long, empty) still creates it. Once
// the options are read the key counts as modified (WATCH), even when the
// command fails, as a module key opened for writing does.
func cmdFTSugAdd(c *Client, args [][]byte) {
	if !c.ftArity(args, "FT.SUGADD", 4, 7) {
		return
	}
	incr := false
	var payload []byte
	for j := 4; j < len(args); j++ {
		switch opt := cString(args[j]); {
		case equalFold(opt, "INCR"):
			incr = true
		case equalFold(opt, "PAYLOAD"):
			if j+1 >= len(args) {
				c.errorReply(errFTSugPayload)
				return
			}
			payload = args[j+1]
			j++
		default:
			c.errorReply(fmt.Sprintf(errFTSugUnknownArg, opt))
			return
		}
	}
	key := args[1]
	e := c.lookupWrite(key)
	if !c.checkType(e, keyspace.KindSuggest) {
		c.db.SignalModified(key) // RediSearch opened the key for writing
		return
	}
	score, ok := string2d(args[3])
	if !ok {
		c.errorReply(errFTSugScore)
		c.db.SignalModified(key)
		return
	}
	var t *suggest.Trie
	if e == nil {
		t = suggest.New()
		e = keyspace.NewObject(key, keyspace.KindSuggest, t)
		t.Insert(args[2], score, incr, payload)
		c.db.Set(key, e)
	} else {
		t = sugOf(e)
		t.Insert(args[2], score, incr, payload)
		c.db.Updated(key, e)
	}
	c.w.Int(int64(t.Len()))
}

// sugOptions are FT.SUGGET's options.
type sugOptions struct {
	fuzzy, withScores, withPayloads, trim bool
	max                                   int
}

// acMax reads MAX's value as RediSearch's ArgsCursor reads an unsigned
// with AC_F_GE1 and AC_F_COALESCE: an integer, else a double truncated;
// below 1 or above 2^32-1 is out of bounds. It returns the error's text.
func acMax(b []byte) (int, string) {
	n, ok := parseInt(b)
	if !ok {
		// tryReadAsDouble: any failure of the double, bounds included,
		// is a parse error.
		d, ok := string2d(b)
		if !ok || d < 1 {
			return 0, errACParse
		}
		if d >= math.MaxInt64 {
			return 0, errACLimit // x86 converts it to LLONG_MIN
		}
		n = int64(d)
	}
	if n < 1 || n > math.MaxUint32 {
		return 0, errACLimit
	}
	return int(n), ""
}

// parseSugOptions reads FT.SUGGET's options (args after the prefix), as
// RediSearch's AC_ParseArgSpec: names matched whole, case-insensitively,
// the last MAX winning. It returns the error's text.
func parseSugOptions(args [][]byte) (sugOptions, string) {
	o := sugOptions{max: 5}
	for j := 0; j < len(args); j++ {
		switch a := args[j]; {
		case equalFold(a, "FUZZY"):
			o.fuzzy = true
		case equalFold(a, "WITHSCORES"):
			o.withScores = true
		case equalFold(a, "WITHPAYLOADS"):
			o.withPayloads = true
		case equalFold(a, "TRIM"):
			o.trim = true
		case equalFold(a, "OPTIMIZE"): // accepted, no effect (as RediSearch)
		case equalFold(a, "MAX"):
			if j+1 >= len(args) {
				return o, "MAX: " + errACNoArg
			}
			n, err := acMax(args[j+1])
			if err != "" {
				return o, "MAX: " + err
			}
			o.max = n
			j++
		default:
			return o, fmt.Sprintf(errFTSugUnrecognized, cString(a))
		}
	}
	return o, ""
}

// FT.SUGGET key prefix [FUZZY] [WITHSCORES] [WITHPAYLOADS] [MAX num] [TRIM]
// [OPTIMIZE]
//
// A missing key answers null; the prefix is checked before the options,
// and they before the key's type.
func cmdFTSugGet(c *Client, args [][]byte) {
	if !c.ftArity(args, "FT.SUGGET", 3, 10) {
		return
	}
	prefix := args[2]
	if len(prefix) > suggest.MaxPrefixBytes {
		c.errorReply(errFTSugQueryLength)
		return
	}
	o, err := parseSugOptions(args[3:])
	if err != "" {
		c.errorReply(err)
		return
	}
	e, ok := c.sugRead(args[1])
	if !ok {
		return
	}
	if e == nil {
		c.w.Null()
		return
	}
	so := suggest.SearchOptions{Max: o.max, Trim: o.trim}
	if o.fuzzy {
		so.MaxDist = 1
	}
	res, ok := sugOf(e).Search(prefix, so)
	if !ok {
		c.errorReply(errFTSugQuery)
		return
	}
	per := 1
	if o.withScores {
		per++
	}
	if o.withPayloads {
		per++
	}
	c.w.Array(len(res) * per)
	for _, r := range res {
		c.w.Bulk(r.Str)
		if o.withScores {
			ftFloat(&c.w, float64(r.Score))
		}
		if o.withPayloads {
			if r.Payload == nil {
				c.w.Null()
			} else {
				c.w.Bulk(r.Payload)
			}
		}
	}
}

// FT.SUGDEL key string
//
// RediSearch opens the key for reading: the lookup counts as a read, and
// the deletion does not touch WATCH.
func cmdFTSugDel(c *Client, args [][]byte) {
	if !c.ftArity(args, "FT.SUGDEL", 3, 3) {
		return
	}
	e, ok := c.sugRead(args[1])
	if !ok {
		return
	}
	if e == nil {
		c.w.Int(0)
		return
	}
	deleted := sugOf(e).Delete(args[2])
	c.db.Resized(args[1], e)
	if deleted {
		c.w.Int(1)
	} else {
		c.w.Int(0)
	}
}

// FT.SUGLEN key
func cmdFTSugLen(c *Client, args [][]byte) {
	if !c.ftArity(args, "FT.SUGLEN", 2, 2) {
		return
	}
	e, ok := c.sugRead(args[1])
	if !ok {
		return
	}
	if e == nil {
		c.w.Int(0)
		return
	}
	c.w.Int(int64(sugOf(e).Len()))
}
