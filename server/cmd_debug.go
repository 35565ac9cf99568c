package server

import (
	"fmt"
	"time"

	"github.com/hotkv/hotkv/keyspace"
	"github.com/hotkv/hotkv/rdb"
)

// DEBUG OBJECT and DEBUG PROTOCOL (cmd_server.go dispatches DEBUG).

// debugObject is DEBUG OBJECT <key>: Redis's one-line description of a
// key's value. "at" names the key's entry, which stays the same while the
// key is modified in place (as Redis's INCR keeps its object);
// serializedlength is the length of the value's RDB encoding, lru the
// last access on Redis's 24-bit seconds clock.
func debugObject(c *Client, key []byte) {
	e := c.db.StoredEntry(key) // an expired key too, as Redis's dictFind
	if e == nil {
		c.errorReply(errNoSuchKey)
		return
	}
	c.db.Load(e)
	serialized := 0
	if e.Kind == keyspace.KindSuggest {
		serialized = sugSerializedLen(sugOf(e), c.srv.rdbCompression.Bool())
	} else if v := entryValue(e); v != nil {
		// A DUMP payload is the type byte, the value, the RDB version
		// (2 bytes) and the CRC64 (8 bytes).
		serialized = len(rdb.Dump(v, c.encodeOptions())) - 11
	}
	idle := e.IdleSeconds()
	lru := (time.Now().Unix() - idle) & (1<<24 - 1)
	extra := ""
	if e.Kind == keyspace.KindList {
		// The quicklist's statistics, as Redis 7.0 appends them.
		l := listOf(e)
		compressed := 0
		if l.CompressDepth() != 0 {
			compressed = 1
		}
		extra = fmt.Sprintf(" ql_nodes:%d ql_avg_node:%.2f ql_listpack_max:%d ql_compressed:%d ql_uncompressed_size:%d",
			l.Nodes(), float64(l.Len())/float64(l.Nodes()), l.Fill(), compressed, l.RawSize())
	}
	c.w.Simple(fmt.Sprintf("Value at:%p refcount:%d encoding:%s serializedlength:%d lru:%d lru_seconds_idle:%d%s",
		e, objectRefcount(c, e), objectEncoding(e), serialized, lru, idle, extra))
}

// debugProtocol is DEBUG PROTOCOL <type>: a sample reply of each RESP type,
// as Redis's, for clients to test their parsers.
func debugProtocol(c *Client, name []byte) {
	w := &c.w
	switch {
	case equalFold(name, "string"):
		w.BulkString("Hello World")
	case equalFold(name, "integer"):
		w.Int(12345)
	case equalFold(name, "double"):
		w.Double(3.141)
	case equalFold(name, "bignum"):
		w.BigNumber("1234567999999999999999999999999999999")
	case equalFold(name, "null"):
		w.Null()
	case equalFold(name, "array"), equalFold(name, "set"):
		if equalFold(name, "set") {
			w.Set(3)
		} else {
			w.Array(3)
		}
		for j := range 3 {
			w.Int(int64(j))
		}
	case equalFold(name, "map"):
		w.Map(3)
		for j := range 3 {
			w.Int(int64(j))
			w.Bool(j == 1)
		}
	case equalFold(name, "attrib"):
		if w.Proto == 3 {
			w.Attribute(1)
			w.BulkString("key-popularity")
			w.Array(2)
			w.BulkString("key:123")
			w.Int(90)
		}
		// An attribute is no reply: a real one follows.
		w.BulkString("Some real reply following the attribute")
	case equalFold(name, "push"):
		if w.Proto != 3 {
			c.errorReply(errRESP2NotSupported)
			return
		}
		w.Push(2)
		w.BulkString("server-cpu-usage")
		w.Int(42)
		w.BulkString("Some real reply following the push reply")
	case equalFold(name, "true"):
		w.Bool(true)
	case equalFold(name, "false"):
		w.Bool(false)
	case equalFold(name, "verbatim"):
		w.Verbatim("txt", "This is a verbatim\nstring")
	default:
		c.errorReply(errDebugProtocolType)
	}
}
