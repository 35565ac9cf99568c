package server

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/hotkv/hotkv/hash"
	"github.com/hotkv/hotkv/keyspace"
	"github.com/hotkv/hotkv/list"
	"github.com/hotkv/hotkv/rdb"
	"github.com/hotkv/hotkv/set"
	"github.com/hotkv/hotkv/stream"
	"github.com/hotkv/hotkv/suggest"
	"github.com/hotkv/hotkv/zset"
)

// DUMP and RESTORE move values in Redis's serialization format (package
// rdb): a payload from redis-server restores into HotKV and the reverse.

func dumpCommands() []*Command {
	return []*Command{
		{Name: "dump", Arity: 2, Flags: Readonly, First: 1, Last: 1, Step: 1, Handler: cmdDump},
		{Name: "restore", Arity: -4, Flags: Write | DenyOOM, First: 1, Last: 1, Step: 1, Handler: cmdRestore},
		// What MIGRATE sends in a cluster; outside one, RESTORE.
		{Name: "restore-asking", Arity: -4, Flags: Write | DenyOOM | Asking, First: 1, Last: 1, Step: 1, Handler: cmdRestore},
	}
}

// DUMP key
func cmdDump(c *Client, args [][]byte) {
	e := c.lookupRead(args[1])
	if e == nil {
		c.w.Null()
		return
	}
	if e.Kind == keyspace.KindSuggest {
		c.w.Bulk(sugDump(sugOf(e), c.srv.rdbCompression.Bool()))
		return
	}
	v := entryValue(e)
	if v == nil {
		c.errorReply(errCopyUnknownType)
		return
	}
	c.w.Bulk(rdb.Dump(v, c.encodeOptions()))
}

// encodeOptions returns the encoding thresholds of the configuration, so
// that a DUMP encodes values as Redis would with the same settings.
func (c *Client) encodeOptions() rdb.EncodeOptions {
	o := rdb.DefaultEncodeOptions()
	lim := c.hashLimits()
	o.HashMaxListpackEntries, o.HashMaxListpackValue = lim.MaxEntries, lim.MaxValue
	o.SetMaxIntsetEntries = c.maxIntset()
	o.ZSetMaxListpackEntries, o.ZSetMaxListpackValue = c.zsetLimits()
	o.ListMaxListpackSize = int(c.srv.listMaxListpackSize.Int())
	o.Compress = c.srv.rdbCompression.Bool()
	return o
}

// entryValue converts a key's value to rdb's neutral form (nil for a kind
// rdb cannot represent). Elements are copied: the collections' iterators
// hand out numbers formatted in a reused buffer.
func entryValue(e *keyspace.Entry) *rdb.Value {
	switch e.Kind {
	case keyspace.KindString:
		return &rdb.Value{Kind: rdb.KindString, Str: e.Str()}
	case keyspace.KindList:
		l := e.Obj.(*list.List)
		v := &rdb.Value{Kind: rdb.KindList, Items: make([][]byte, 0, l.Len())}
		it := l.IterAt(0, false)
		for x, ok := it.Next(); ok; x, ok = it.Next() {
			v.Items = append(v.Items, bytes.Clone(x))
		}
		return v
	case keyspace.KindSet:
		s := e.Obj.(*set.Set)
		v := &rdb.Value{Kind: rdb.KindSet, Items: make([][]byte, 0, s.Len())}
		for m := range s.All() {
			v.Items = append(v.Items, bytes.Clone(m))
		}
		return v
	case keyspace.KindHash:
		h := e.Obj.(*hash.Hash)
		v := &rdb.Value{Kind: rdb.KindHash, Pairs: make([][2][]byte, 0, h.Len())}
		h.Each(func(f, val []byte) bool {
			v.Pairs = append(v.Pairs, [2][]byte{bytes.Clone(f), bytes.Clone(val)})
			return true
		})
		return v
	case keyspace.KindZSet:
		z := e.Obj.(*zset.ZSet)
		v := &rdb.Value{Kind: rdb.KindZSet, ZSet: make([]rdb.ZMember, 0, z.Len()), Big: !z.Small()}
		z.Walk(0, false, func(m []byte, score float64) bool {
			v.ZSet = append(v.ZSet, rdb.ZMember{Member: bytes.Clone(m), Score: score})
			return true
		})
		return v
	case keyspace.KindStream:
		d := e.Obj.(*stream.Stream).Dump() // a copy: its listpacks are built afresh
		return &rdb.Value{Kind: rdb.KindStream, Stream: &d}
	}
	return nil
}

// restoreOptions are the decoding options of RESTORE and FUNCTION
// RESTORE.
func (s *Server) restoreOptions() rdb.RestoreOptions {
	return rdb.RestoreOptions{SkipChecksum: s.skipChecksum.Load()}
}

// reportLoadError logs what Redis's rdbReportError logs for data it
// refuses to load, if it logs anything: at verbose level for RESTORE
// (restore), as a warning when loading a file. The offset is
// server.loading_loaded_bytes, the progress of the last file load, which
// Redis updates every loading-process-events-interval-bytes (2 MB): 0 for
// RESTORE and for smaller files.
func (s *Server) reportLoadError(err error, restore bool) string {
	line, reason, ok := rdb.LoadReason(err)
	if !ok {
		return ""
	}
	msg := fmt.Sprintf("Internal error in RDB reading offset 0, function at rdb.c:%d -> %s", line, reason)
	if restore {
		s.verbosef("%s", msg)
	} else {
		s.warnf("%s", msg)
	}
	return msg
}

// restoreOptions are RESTORE's REPLACE, ABSTTL, IDLETIME and FREQ.
type restoreOptions struct {
	replace, absTTL bool
	idle, freq      int64 // -1: not given
}

// RESTORE key ttl serialized-value [REPLACE] [ABSTTL] [IDLETIME seconds] [FREQ frequency]
func cmdRestore(c *Client, args [][]byte) {
	o := restoreOptions{idle: -1, freq: -1}
	for j := 4; j < len(args); j++ {
		more := j+1 < len(args)
		switch {
		case equalFold(args[j], "replace"):
			o.replace = true
		case equalFold(args[j], "absttl"):
			o.absTTL = true
		case equalFold(args[j], "idletime") && more && o.freq == -1:
			n, ok := c.intArg(args[j+1])
			if !ok {
				return
			}
			if n < 0 {
				c.errorReply(errRestoreIdle)
				return
			}
			o.idle = n
			j++
		case equalFold(args[j], "freq") && more && o.idle == -1:
			n, ok := c.intArg(args[j+1])
			if !ok {
				return
			}
			if n < 0 || n > 255 {
				c.errorReply(errRestoreFreq)
				return
			}
			o.freq = n
			j++
		default:
			c.errorReply(errSyntax)
			return
		}
	}
	key := args[1]
	if !o.replace && c.lookupWrite(key) != nil {
		c.errorReply(errBusyKey)
		return
	}
	ttl, ok := c.intArg(args[2])
	if !ok {
		return
	}
	if ttl < 0 {
		c.errorReply(errRestoreTTL)
		return
	}
	v, err := c.srv.restoreOptions().Restore(args[3])
	var sug *suggest.Trie
	if errors.Is(err, rdb.ErrUnsupported) {
		// A module value: RediSearch's dictionary loads.
		var ok bool
		if sug, ok = sugUndump(args[3]); ok {
			err = nil
		}
	}
	c.srv.reportLoadError(err, true)
	if errors.Is(err, rdb.ErrUnsupported) {
		// Another module's value: valid, but HotKV has no modules.
		err = rdb.ErrBadData
	}
	if err != nil {
		c.errorReply("ERR " + err.Error())
		return
	}
	deleted := o.replace && c.db.Delete(key)
	if ttl != 0 && !o.absTTL {
		ttl += c.db.Now()
	}
	if ttl != 0 && c.alreadyExpired(ttl) {
		// Already expired: nothing to create, the old value is gone.
		if deleted {
			c.propagate(argDEL, key)
			c.notify(evGeneric, "del", key)
		} else {
			c.propagateNothing()
		}
		c.w.OK()
		return
	}
	if ttl != 0 && !o.absTTL {
		// Propagated with the absolute time.
		p := append(append([][]byte(nil), args...), argABSTTL)
		p[2] = intBytes(ttl)
		c.propagate(p...)
	}
	var e *keyspace.Entry
	if sug != nil {
		e = c.db.Set(key, keyspace.NewObject(key, keyspace.KindSuggest, sug))
	} else if v.Kind == rdb.KindString {
		e = c.db.SetString(key, v.Str, false)
	} else {
		e = c.db.Set(key, c.valueEntry(key, v))
	}
	if ttl != 0 {
		c.db.SetExpire(key, ttl)
	}
	c.db.SetAccess(e, o.idle, int(o.freq))
	c.notify(evGeneric, "restore", key)
	c.w.OK()
}

// valueEntry builds key's collection value from rdb's form with HotKV's data
// structures, under the configured encoding thresholds.
func (c *Client) valueEntry(key []byte, v *rdb.Value) *keyspace.Entry {
	k, obj := c.valueObject(v)
	return keyspace.NewObject(key, k, obj)
}

// valueObject builds a collection from rdb's form with HotKV's data
// structures, under the configured encoding thresholds, and returns it
// with its kind. It reads only the server's configuration: any client
// may build for any goroutine.
func (c *Client) valueObject(v *rdb.Value) (keyspace.Kind, any) {
	switch v.Kind {
	case rdb.KindList:
		l := c.newList()
		for _, x := range v.Items {
			l.PushBack(x)
		}
		return keyspace.KindList, l
	case rdb.KindSet:
		var s *set.Set
		max := c.maxIntset()
		for _, m := range v.Items {
			if s == nil {
				s = set.NewFor(m)
			}
			s.Add(m, max)
		}
		return keyspace.KindSet, s
	case rdb.KindHash:
		h := hash.New()
		lim := c.hashLimits()
		for _, p := range v.Pairs {
			h.Set(p[0], p[1], lim)
		}
		return keyspace.KindHash, h
	case rdb.KindZSet:
		entries, value := c.zsetLimits()
		small := len(v.ZSet) <= entries
		for _, m := range v.ZSet {
			small = small && len(m.Member) <= value
		}
		z := zset.New(small)
		for _, m := range v.ZSet {
			z.Add(m.Member, m.Score, 0, entries, value)
		}
		return keyspace.KindZSet, z
	case rdb.KindStream:
		// rdb decoded the stream with stream.Load already: it loads.
		s, err := stream.Load(*v.Stream)
		if err != nil {
			panic("valueObject: a decoded stream does not load: " + err.Error())
		}
		return keyspace.KindStream, s
	}
	panic("valueObject: not a collection")
}
