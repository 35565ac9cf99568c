// Command gencommands writes server/commanddocs.json, the command metadata
// HotKV's COMMAND replies take from a real Redis: per command and
// subcommand, its ACL categories, command tips, key specs and the full
// COMMAND DOCS content (summary, since, group, complexity, doc_flags,
// deprecated_since, replaced_by, history, arguments).
//
// Arity, flags and the legacy first/last/step key positions are NOT in the
// file: they stay declared in the Go command table (server/table.go and the
// cmd_*.go files), the single source of truth for dispatch and locking. The
// server's tests compare those rows with a live redis-server.
//
// # Regenerating
//
// Run from the repository root against a Redis of the version HotKV
// follows (7.0.x), started without modules:
//
//	redis-server --port 7399 --save '' --daemonize yes
//	go run ./internal/gencommands -addr 127.0.0.1:7399 -out server/commanddocs.json
//	redis-cli -p 7399 shutdown nosave
//
// The output is deterministic: commands are sorted by name (subcommands are
// their own entries, "parent|sub"), and everything else keeps the order
// Redis replies in, which comes from Redis's static tables. Redis lists
// commands and subcommands in hash-table order, which is why the server
// rebuilds the subcommand parts of its replies from its own table.
//
// # File format
//
//	{
//	  "redis_version": "7.0.15",
//	  "commands": {
//	    "get": {
//	      "acl_categories": ["@read", "@string", "@fast"],
//	      "tips": [],
//	      "key_specs": [ <node>, ... ],
//	      "docs": <node>
//	    },
//	    "config|get": { ... },
//	    ...
//	  }
//	}
//
// key_specs holds the elements of the key-spec set and docs the COMMAND
// DOCS map of the command without its "subcommands" entry. A node is a
// generic RESP3 value:
//
//	"text"             bulk string
//	123                integer
//	null               null
//	[ node, ... ]      array
//	{"set": [ ... ]}   set (an array in RESP2)
//	{"map": { ... }}   map, keys in reply order (a flat array in RESP2)
//	{"status": "x"}    simple string
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:6379", "address of the redis-server to read")
	out := flag.String("out", "server/commanddocs.json", "file to write")
	flag.Parse()
	if err := run(*addr, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gencommands:", err)
		os.Exit(1)
	}
}

func run(addr, out string) error {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	rc := &client{w: conn, r: bufio.NewReaderSize(conn, 1<<16)}

	hello, err := rc.do("HELLO", "3")
	if err != nil {
		return fmt.Errorf("HELLO 3: %w", err)
	}
	version := ""
	if v := hello.get("version"); v != nil {
		version = v.Str
	}
	info, err := rc.do("COMMAND", "INFO")
	if err != nil {
		return fmt.Errorf("COMMAND INFO: %w", err)
	}
	docs, err := rc.do("COMMAND", "DOCS")
	if err != nil {
		return fmt.Errorf("COMMAND DOCS: %w", err)
	}
	file, err := build(version, info, docs)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(file, "", " ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if err := os.WriteFile(out, b, 0o644); err != nil {
		return err
	}
	fmt.Printf("wrote %s: %d commands and subcommands from Redis %s\n", out, len(file.Commands), version)
	return nil
}

// File is the JSON document.
type File struct {
	RedisVersion string            `json:"redis_version"`
	Commands     map[string]*Entry `json:"commands"`
}

// Entry is one command's or subcommand's metadata.
type Entry struct {
	ACLCategories []string `json:"acl_categories"`
	Tips          []string `json:"tips"`
	KeySpecs      []*Node  `json:"key_specs"`
	Docs          *Node    `json:"docs"`
}

func build(version string, info, docs *Node) (*File, error) {
	f := &File{RedisVersion: version, Commands: map[string]*Entry{}}
	if info.Kind != '*' {
		return nil, fmt.Errorf("COMMAND INFO: want an array, got %q", info.Kind)
	}
	var addInfo func(n *Node) error
	addInfo = func(n *Node) error {
		if n.Kind != '*' || len(n.Elems) != 10 {
			return fmt.Errorf("COMMAND INFO entry: want a 10-element array, got %s", n.describe())
		}
		name := n.Elems[0].Str
		e := &Entry{ACLCategories: []string{}, Tips: []string{}, KeySpecs: []*Node{}}
		for _, cat := range n.Elems[6].Elems {
			e.ACLCategories = append(e.ACLCategories, cat.Str)
		}
		for _, tip := range n.Elems[7].Elems {
			e.Tips = append(e.Tips, tip.Str)
		}
		e.KeySpecs = append(e.KeySpecs, n.Elems[8].Elems...)
		if _, dup := f.Commands[name]; dup {
			return fmt.Errorf("command %q listed twice", name)
		}
		f.Commands[name] = e
		for _, sub := range n.Elems[9].Elems {
			if err := addInfo(sub); err != nil {
				return err
			}
		}
		return nil
	}
	for _, n := range info.Elems {
		if err := addInfo(n); err != nil {
			return nil, err
		}
	}

	var addDocs func(m *Node) error
	addDocs = func(m *Node) error {
		if m.Kind != '%' {
			return fmt.Errorf("COMMAND DOCS: want a map, got %s", m.describe())
		}
		for i := 0; i+1 < len(m.Elems); i += 2 {
			name, d := m.Elems[i].Str, m.Elems[i+1]
			e := f.Commands[name]
			if e == nil {
				return fmt.Errorf("COMMAND DOCS has %q, COMMAND INFO does not", name)
			}
			if d.Kind != '%' {
				return fmt.Errorf("COMMAND DOCS %s: want a map, got %s", name, d.describe())
			}
			own := &Node{Kind: '%'}
			for j := 0; j+1 < len(d.Elems); j += 2 {
				if d.Elems[j].Str == "subcommands" {
					if err := addDocs(d.Elems[j+1]); err != nil {
						return err
					}
					continue
				}
				own.Elems = append(own.Elems, d.Elems[j], d.Elems[j+1])
			}
			e.Docs = own
		}
		return nil
	}
	if err := addDocs(docs); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(f.Commands))
	for name, e := range f.Commands {
		if e.Docs == nil {
			names = append(names, name)
		}
	}
	if len(names) > 0 {
		sort.Strings(names)
		return nil, fmt.Errorf("no COMMAND DOCS for %s", strings.Join(names, ", "))
	}
	return f, nil
}

// Node is a RESP3 value.
type Node struct {
	Kind  byte // '$' bulk, '+' status, ':' integer, '_' null, '*' array, '~' set, '%' map
	Str   string
	Int   int64
	Elems []*Node // array and set elements; a map's keys and values alternating
}

func (n *Node) describe() string {
	return fmt.Sprintf("type %q with %d elements", n.Kind, len(n.Elems))
}

// get returns the value of a map's bulk-string key.
func (n *Node) get(key string) *Node {
	if n.Kind != '%' {
		return nil
	}
	for i := 0; i+1 < len(n.Elems); i += 2 {
		if n.Elems[i].Str == key {
			return n.Elems[i+1]
		}
	}
	return nil
}

// MarshalJSON writes n in the file's node format.
func (n *Node) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	if err := n.encode(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func (n *Node) encode(b *bytes.Buffer) error {
	str := func(s string) error {
		j, err := json.Marshal(s)
		b.Write(j)
		return err
	}
	list := func(elems []*Node) error {
		b.WriteByte('[')
		for i, e := range elems {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := e.encode(b); err != nil {
				return err
			}
		}
		b.WriteByte(']')
		return nil
	}
	switch n.Kind {
	case '$':
		return str(n.Str)
	case ':':
		b.WriteString(strconv.FormatInt(n.Int, 10))
	case '_':
		b.WriteString("null")
	case '*':
		return list(n.Elems)
	case '~':
		b.WriteString(`{"set":`)
		if err := list(n.Elems); err != nil {
			return err
		}
		b.WriteByte('}')
	case '+':
		b.WriteString(`{"status":`)
		if err := str(n.Str); err != nil {
			return err
		}
		b.WriteByte('}')
	case '%':
		b.WriteString(`{"map":{`)
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Elems); i += 2 {
			k := n.Elems[i]
			if k.Kind != '$' {
				return fmt.Errorf("map key of type %q", k.Kind)
			}
			if seen[k.Str] {
				return fmt.Errorf("duplicate map key %q", k.Str)
			}
			seen[k.Str] = true
			if i > 0 {
				b.WriteByte(',')
			}
			if err := str(k.Str); err != nil {
				return err
			}
			b.WriteByte(':')
			if err := n.Elems[i+1].encode(b); err != nil {
				return err
			}
		}
		b.WriteString("}}")
	default:
		return fmt.Errorf("unsupported RESP3 type %q", n.Kind)
	}
	return nil
}

// client is a minimal RESP3 client.
type client struct {
	w io.Writer
	r *bufio.Reader
}

func (c *client) do(args ...string) (*Node, error) {
	var b []byte
	b = fmt.Appendf(b, "*%d\r\n", len(args))
	for _, a := range args {
		b = fmt.Appendf(b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := c.w.Write(b); err != nil {
		return nil, err
	}
	return c.read()
}

func (c *client) read() (*Node, error) {
	line, err := c.r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	if len(line) < 3 || !strings.HasSuffix(line, "\r\n") {
		return nil, fmt.Errorf("bad reply line %q", line)
	}
	kind, body := line[0], line[1:len(line)-2]
	switch kind {
	case '-':
		return nil, errors.New(body)
	case '+':
		return &Node{Kind: '+', Str: body}, nil
	case '_':
		return &Node{Kind: '_'}, nil
	case ':':
		n, err := strconv.ParseInt(body, 10, 64)
		return &Node{Kind: ':', Int: n}, err
	case '$':
		n, err := strconv.Atoi(body)
		if err != nil {
			return nil, err
		}
		if n < 0 {
			return &Node{Kind: '_'}, nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(c.r, buf); err != nil {
			return nil, err
		}
		return &Node{Kind: '$', Str: string(buf[:n])}, nil
	case '*', '~', '%':
		n, err := strconv.Atoi(body)
		if err != nil {
			return nil, err
		}
		if kind == '%' {
			n *= 2
		}
		node := &Node{Kind: kind, Elems: make([]*Node, 0, max(n, 0))}
		for i := 0; i < n; i++ {
			e, err := c.read()
			if err != nil {
				return nil, err
			}
			node.Elems = append(node.Elems, e)
		}
		return node, nil
	}
	return nil, fmt.Errorf("unsupported reply type %q", line)
}
