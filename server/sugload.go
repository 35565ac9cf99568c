package server

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/hotkv/hotkv/aof"
	"github.com/hotkv/hotkv/keyspace"
	"github.com/hotkv/hotkv/rdb"
	"github.com/hotkv/hotkv/resp"
	"github.com/hotkv/hotkv/suggest"
)

// Persistence. RediSearch saves a dictionary as module data, which no
// server without the module loads; HotKV writes none: a snapshot records
// the dictionaries in an auxiliary field (sugAux), after the keys, as the
// commands that rebuild them (SELECT, FT.SUGADD per string in the order
// RediSearch saves them, PEXPIREAT), and every load re-creates them from it
// into the databases it loads (rdbReader). A command-based AOF rewrite
// writes the same commands. DUMP, RESTORE and MIGRATE use RediSearch's
// module value (sugDump, sugUndump), as a server with the module does: a
// payload redis-server without it refuses.

// sugAux is the snapshot's auxiliary field that holds the dictionaries.
const sugAux = "hotkv-sug"

// RediSearch's dictionaries as Redis serializes a module value (DUMP,
// RESTORE, MIGRATE, DEBUG OBJECT's serializedlength): RDB_TYPE_MODULE_2,
// the module type's id (its name and encoding version, 1: with payloads),
// then what TrieType_RdbSave writes, each field after its opcode: the size
// (unsigned), and per string the string and its payload (RDB strings with
// a NUL added) and the score (a binary double); then the EOF opcode.
const (
	rdbTypeModule2    = 7
	moduleOpEOF       = 0
	moduleOpUint      = 2
	moduleOpDouble    = 4
	moduleOpString    = 5
	trieTypeName      = "trietype0"
	trieEncVer        = 1
	moduleTypeCharset = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
)

// moduleTypeID is moduleTypeEncodeId: nine 6-bit characters, then a
// 10-bit encoding version.
func moduleTypeID(name string, encver uint64) uint64 {
	var id uint64
	for i := 0; i < 9; i++ {
		id = id<<6 | uint64(strings.IndexByte(moduleTypeCharset, name[i]))
	}
	return id<<10 | encver
}

// appendSugModule appends t's module value (type byte included).
func appendSugModule(b []byte, t *suggest.Trie, compress bool) []byte {
	b = append(b, rdbTypeModule2)
	b = rdb.AppendLen(b, moduleTypeID(trieTypeName, trieEncVer))
	b = append(b, moduleOpUint)
	b = rdb.AppendLen(b, uint64(t.Len()))
	for _, e := range t.Entries() {
		b = append(b, moduleOpString)
		b = rdb.AppendString(b, append(e.Str, 0), compress)
		b = append(b, moduleOpDouble)
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(float64(e.Score)))
		b = append(b, moduleOpString)
		b = rdb.AppendString(b, append(e.Payload, 0), compress)
	}
	return append(b, moduleOpEOF)
}

// sugSerializedLen is DEBUG OBJECT's serializedlength of t: its module
// value without the type byte.
func sugSerializedLen(t *suggest.Trie, compress bool) int {
	return len(appendSugModule(nil, t, compress)) - 1
}

// sugDump is DUMP's payload of t.
func sugDump(t *suggest.Trie, compress bool) []byte {
	return rdb.AppendFooter(appendSugModule(nil, t, compress))
}

// sugUndump decodes a dictionary from a DUMP payload whose footer was
// checked, as TrieType_RdbLoad loads it (encoding version 0: no payloads;
// each string and payload without its last byte, the NUL). ok is false for
// another module type, a later encoding version or malformed data.
func sugUndump(payload []byte) (t *suggest.Trie, ok bool) {
	r := rdb.NewReader(payload[:len(payload)-rdb.FooterLen])
	if typ, err := r.ReadType(); err != nil || typ != rdbTypeModule2 {
		return nil, false
	}
	id, err := r.ReadLen()
	if err != nil || id>>10 != moduleTypeID(trieTypeName, 0)>>10 || id&1023 > trieEncVer {
		return nil, false
	}
	withPayloads := id&1023 > 0
	opcode := func(want uint64) bool {
		op, err := r.ReadLen()
		return err == nil && op == want
	}
	str := func() ([]byte, bool) {
		if !opcode(moduleOpString) {
			return nil, false
		}
		b, err := r.ReadStringBytes()
		return b, err == nil
	}
	if !opcode(moduleOpUint) {
		return nil, false
	}
	n, err := r.ReadLen()
	if err != nil {
		return nil, false
	}
	t = suggest.New()
	for ; n > 0; n-- {
		s, ok := str()
		if !ok || !opcode(moduleOpDouble) {
			return nil, false
		}
		raw, err := r.ReadRaw(8)
		if err != nil {
			return nil, false
		}
		score := math.Float64frombits(binary.LittleEndian.Uint64(raw))
		var p []byte
		if withPayloads {
			if p, ok = str(); !ok {
				return nil, false
			}
			if len(p) > 0 {
				p = p[:len(p)-1]
			}
		}
		if len(s) > 0 {
			t.Insert(s[:len(s)-1], score, false, p)
		}
	}
	if !opcode(moduleOpEOF) {
		return nil, false
	}
	return t, true
}

// sugScoreText writes a dictionary's float score so that FT.SUGADD reads
// back the same float.
func sugScoreText(f float32) []byte {
	return []byte(formatScore17(float64(f)))
}

// forEachSugCommand calls put with each command that rebuilds the
// dictionary t under key (expire: unix ms, or -1): an FT.SUGADD per string
// in RediSearch's save order (for an empty dictionary, one that adds
// nothing), then PEXPIREAT. It stops at put's first error.
func forEachSugCommand(key []byte, t *suggest.Trie, expire int64, put func(args ...[]byte) error) error {
	cmd := []byte("FT.SUGADD")
	entries := t.Entries()
	if len(entries) == 0 {
		if err := put(cmd, key, []byte(""), []byte("1")); err != nil {
			return err
		}
	}
	for _, en := range entries {
		args := [][]byte{cmd, key, en.Str, sugScoreText(en.Score)}
		if en.Payload != nil {
			args = append(args, []byte("PAYLOAD"), en.Payload)
		}
		if err := put(args...); err != nil {
			return err
		}
	}
	if expire >= 0 {
		return put([]byte("PEXPIREAT"), key, strconv.AppendInt(nil, expire, 10))
	}
	return nil
}

// sugAuxBuilder collects a snapshot's dictionaries for sugAux, database by
// database.
type sugAuxBuilder struct {
	b  []byte
	db int // the database selected last, -1 before any
}

func newSugAux() *sugAuxBuilder { return &sugAuxBuilder{db: -1} }

// add records the dictionary t, key's in database db.
func (a *sugAuxBuilder) add(db int, key []byte, t *suggest.Trie, expire int64) {
	if a.db != db {
		a.b = aof.AppendCommand(a.b, [][]byte{[]byte("SELECT"), []byte(strconv.Itoa(db))})
		a.db = db
	}
	forEachSugCommand(key, t, expire, func(args ...[]byte) error {
		a.b = aof.AppendCommand(a.b, args)
		return nil
	})
}

// sugRestore re-creates the dictionaries a snapshot's sugAux records in
// dbs, the databases being loaded (nothing else holds them). A dictionary
// already expired is dropped unless keepExpired (see rdbReader). It
// reports how many keys it created and how many it dropped as expired.
func (s *Server) sugRestore(dbs []*keyspace.DB, value []byte, keepExpired bool, now int64) (loaded, expired int64) {
	r := resp.NewReader(bytes.NewReader(value))
	db := dbs[0]
	for {
		args, err := r.ReadCommand()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			s.warnf("Suggestion dictionaries of the loaded data are unreadable: %v", err)
			return
		}
		switch cmd := strings.ToUpper(string(args[0])); {
		case cmd == "SELECT" && len(args) == 2:
			i, ok := parseInt(args[1])
			if !ok || i < 0 || i >= int64(len(dbs)) {
				s.warnf("Suggestion dictionaries of the loaded data: database %s skipped", args[1])
				return
			}
			db = dbs[i]
		case cmd == "FT.SUGADD" && (len(args) == 4 || len(args) == 6):
			score, err := strconv.ParseFloat(string(args[3]), 64)
			if err != nil && !strings.EqualFold(string(args[3]), "nan") {
				s.warnf("Suggestion dictionary %s: bad score %q skipped", args[1], args[3])
				continue
			}
			var payload []byte
			if len(args) == 6 {
				payload = args[5]
			}
			e := db.StoredEntry(args[1])
			if e == nil || e.Kind != keyspace.KindSuggest {
				e = keyspace.NewObject(args[1], keyspace.KindSuggest, suggest.New())
				sugOf(e).Insert(args[2], score, false, payload)
				db.Set(args[1], e)
				loaded++
			} else {
				sugOf(e).Insert(args[2], score, false, payload)
				db.Resized(args[1], e)
			}
		case cmd == "PEXPIREAT" && len(args) == 3:
			at, _ := parseInt(args[2])
			if !keepExpired && at <= now {
				if db.Delete(args[1]) {
					loaded--
					expired++
				}
				continue
			}
			db.SetExpire(args[1], at)
		default:
			s.warnf("Suggestion dictionaries of the loaded data: %s skipped", cmd)
		}
	}
}
