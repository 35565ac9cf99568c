package aof

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/difftest"
	"github.com/hotkv/hotkv/rdb"
)

// dataset is a tiny Redis: strings, lists and hashes in numbered
// databases, with expiration times; enough to replay the commands the
// tests write and compare with what redis-server holds.
type dataset struct {
	db   int
	keys map[string]*entry // "db key"
}

type entry struct {
	kind     string // "string", "list", "hash"
	str      string
	items    []string
	fields   map[string]string
	expireMs int64 // -1: none
}

func newDataset() *dataset { return &dataset{keys: map[string]*entry{}} }

func (d *dataset) key(db int, k string) string { return strconv.Itoa(db) + " " + k }

// apply executes a command as the AOF client does; a command it does not
// know is ErrUnknownCommand.
func (d *dataset) apply(args [][]byte) error {
	a := make([]string, len(args))
	for i, b := range args {
		a[i] = string(b)
	}
	k := ""
	if len(a) > 1 {
		k = d.key(d.db, a[1])
	}
	switch strings.ToUpper(a[0]) {
	case "SELECT":
		d.db, _ = strconv.Atoi(a[1])
	case "MULTI", "EXEC":
	case "SET":
		d.keys[k] = &entry{kind: "string", str: a[2], expireMs: -1}
	case "APPEND":
		e := d.keys[k]
		if e == nil {
			e = &entry{kind: "string", expireMs: -1}
			d.keys[k] = e
		}
		e.str += a[2]
	case "INCR":
		e := d.keys[k]
		if e == nil {
			e = &entry{kind: "string", str: "0", expireMs: -1}
			d.keys[k] = e
		}
		n, _ := strconv.Atoi(e.str)
		e.str = strconv.Itoa(n + 1)
	case "RPUSH":
		e := d.keys[k]
		if e == nil {
			e = &entry{kind: "list", expireMs: -1}
			d.keys[k] = e
		}
		e.items = append(e.items, a[2:]...)
	case "HSET", "HMSET":
		e := d.keys[k]
		if e == nil {
			e = &entry{kind: "hash", fields: map[string]string{}, expireMs: -1}
			d.keys[k] = e
		}
		for i := 2; i+1 < len(a); i += 2 {
			e.fields[a[i]] = a[i+1]
		}
	case "DEL":
		for _, key := range a[1:] {
			delete(d.keys, d.key(d.db, key))
		}
	case "PEXPIREAT":
		if e := d.keys[k]; e != nil {
			e.expireMs, _ = strconv.ParseInt(a[2], 10, 64)
		}
	default:
		return fmt.Errorf("%w: %s", ErrUnknownCommand, a[0])
	}
	return nil
}

// rdbReader loads an RDB's keys into d.
func (d *dataset) rdbReader() *rdb.FileReader {
	return &rdb.FileReader{OnKey: func(db int, key []byte, v *rdb.Value, expireMs, lruIdle int64, lfuFreq int) error {
		e := &entry{expireMs: expireMs}
		switch v.Kind {
		case rdb.KindString:
			e.kind, e.str = "string", string(v.Str)
		case rdb.KindList:
			e.kind = "list"
			for _, it := range v.Items {
				e.items = append(e.items, string(it))
			}
		case rdb.KindHash:
			e.kind, e.fields = "hash", map[string]string{}
			for _, p := range v.Pairs {
				e.fields[string(p[0])] = string(p[1])
			}
		default:
			return fmt.Errorf("unexpected kind %v", v.Kind)
		}
		d.keys[d.key(db, string(key))] = e
		return nil
	}}
}

// String lists the keys in order, for comparisons.
func (d *dataset) String() string {
	var out []string
	for k, e := range d.keys {
		var v string
		switch e.kind {
		case "string":
			v = strconv.Quote(e.str)
		case "list":
			v = fmt.Sprintf("%q", e.items)
		case "hash":
			var fs []string
			for f, x := range e.fields {
				fs = append(fs, f+"="+x)
			}
			slices.Sort(fs)
			v = fmt.Sprintf("%q", fs)
		}
		out = append(out, fmt.Sprintf("%s %s %s exp=%d", k, e.kind, v, e.expireMs))
	}
	slices.Sort(out)
	return strings.Join(out, "\n")
}

// writeRDB writes d as an RDB base.
func (d *dataset) writeRDB(w interface{ Write([]byte) (int, error) }) error {
	fw, err := rdb.NewFileWriter(w, rdb.FileWriterOptions{AOFBase: true, Encode: rdb.DefaultEncodeOptions()})
	if err != nil {
		return err
	}
	byDB := map[int][]string{}
	for k := range d.keys {
		dbs, key, _ := strings.Cut(k, " ")
		db, _ := strconv.Atoi(dbs)
		byDB[db] = append(byDB[db], key)
	}
	dbs := make([]int, 0, len(byDB))
	for db := range byDB {
		dbs = append(dbs, db)
	}
	slices.Sort(dbs)
	for _, db := range dbs {
		keys := byDB[db]
		slices.Sort(keys)
		var expires uint64
		for _, key := range keys {
			if d.keys[d.key(db, key)].expireMs != -1 {
				expires++
			}
		}
		if err := fw.SelectDB(db, uint64(len(keys)), expires); err != nil {
			return err
		}
		for _, key := range keys {
			e := d.keys[d.key(db, key)]
			v := &rdb.Value{}
			switch e.kind {
			case "string":
				v.Kind, v.Str = rdb.KindString, []byte(e.str)
			case "list":
				v.Kind = rdb.KindList
				for _, it := range e.items {
					v.Items = append(v.Items, []byte(it))
				}
			case "hash":
				v.Kind = rdb.KindHash
				for f, x := range e.fields {
					v.Pairs = append(v.Pairs, [2][]byte{[]byte(f), []byte(x)})
				}
			}
			if err := fw.WriteKey([]byte(key), v, e.expireMs, -1, -1); err != nil {
				return err
			}
		}
	}
	return fw.Finish()
}

// commands returns the commands that rebuild d, as a rewrite in AOF
// format writes them: per database a SELECT, then per key a SET, RPUSH or
// HSET, and a PEXPIREAT.
func (d *dataset) commands() []byte {
	var out []byte
	byDB := map[int][]string{}
	for k := range d.keys {
		dbs, key, _ := strings.Cut(k, " ")
		db, _ := strconv.Atoi(dbs)
		byDB[db] = append(byDB[db], key)
	}
	for db := range 16 {
		keys := byDB[db]
		if len(keys) == 0 {
			continue
		}
		slices.Sort(keys)
		out = AppendSelect(out, db)
		for _, key := range keys {
			e := d.keys[d.key(db, key)]
			switch e.kind {
			case "string":
				out = AppendCommandStrings(out, "SET", key, e.str)
			case "list":
				out = AppendCommandStrings(out, append([]string{"RPUSH", key}, e.items...)...)
			case "hash":
				args := []string{"HSET", key}
				for f, x := range e.fields {
					args = append(args, f, x)
				}
				out = AppendCommandStrings(out, args...)
			}
			if e.expireMs != -1 {
				out = AppendCommandStrings(out, "PEXPIREAT", key, strconv.FormatInt(e.expireMs, 10))
			}
		}
	}
	return out
}

// clone returns a deep copy of d.
func (d *dataset) clone() *dataset {
	c := &dataset{db: d.db, keys: map[string]*entry{}}
	for k, e := range d.keys {
		ne := *e
		ne.items = slices.Clone(e.items)
		if e.fields != nil {
			ne.fields = map[string]string{}
			for f, x := range e.fields {
				ne.fields[f] = x
			}
		}
		c.keys[k] = &ne
	}
	return c
}

// fetchDataset reads the keys of databases dbs from a redis-server.
func fetchDataset(t *testing.T, c *difftest.Conn, dbs ...int) *dataset {
	t.Helper()
	d := newDataset()
	for _, db := range dbs {
		mustDo(t, c, "+OK\r\n", "SELECT", strconv.Itoa(db))
		for _, k := range parseKeys(c.Do("KEYS", "*")) {
			e := &entry{}
			switch typ := c.Do("TYPE", k); typ {
			case "+string\r\n":
				e.kind, e.str = "string", parseBulk(c.Do("GET", k))
			case "+list\r\n":
				e.kind, e.items = "list", parseKeysFlat(c.Do("LRANGE", k, "0", "-1"))
			case "+hash\r\n":
				e.kind, e.fields = "hash", map[string]string{}
				fv := parseKeysFlat(c.Do("HGETALL", k))
				for i := 0; i+1 < len(fv); i += 2 {
					e.fields[fv[i]] = fv[i+1]
				}
			default:
				t.Fatalf("TYPE %s: %q", k, typ)
			}
			r := c.Do("PEXPIRETIME", k)
			e.expireMs, _ = strconv.ParseInt(strings.TrimSuffix(strings.TrimPrefix(r, ":"), "\r\n"), 10, 64)
			d.keys[d.key(db, k)] = e
		}
	}
	return d
}

// parseKeysFlat reads a raw array of bulk strings.
func parseKeysFlat(raw string) []string { return parseKeys(raw) }
