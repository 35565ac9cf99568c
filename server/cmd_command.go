package server

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"github.com/hotkv/hotkv/acl"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/hotkv/hotkv/glob"
	"github.com/hotkv/hotkv/resp"
)

// COMMAND and its subcommands report what the command table declares:
// name, arity, flags and the legacy first/last/step key positions come
// from the Go rows; ACL categories, command tips, key specs and the COMMAND
// DOCS content come from commanddocs.json, generated from a real Redis by
// internal/gencommands (see its package comment to regenerate it). Only
// commands in the table are reported.
//
// Redis lists commands and subcommands in hash-table order, which changes
// from run to run; HotKV lists them sorted by name.

func introspectionCommands() []*Command {
	sub := func(arity int, h HandlerFunc) *Command {
		return &Command{Arity: arity, Flags: Loading | Stale, Handler: h}
	}
	return []*Command{
		{Name: "command", Arity: -1, Flags: Loading | Stale, Handler: cmdCommand, Sub: map[string]*Command{
			"count":           sub(2, cmdCommandCount),
			"list":            sub(-2, cmdCommandList),
			"info":            sub(-2, cmdCommandInfo),
			"docs":            sub(-2, cmdCommandDocs),
			"getkeys":         sub(-4, cmdCommandGetKeys),
			"getkeysandflags": sub(-4, cmdCommandGetKeysAndFlags),
			"help":            sub(2, cmdCommandHelp),
		}},
	}
}

// COMMAND
func cmdCommand(c *Client, args [][]byte) {
	if len(args) > 1 {
		// The gate hands the container an unknown subcommand.
		c.errorReply(fmt.Sprintf(errUnknownSubcommand, truncate(args[1], 128), strings.ToUpper(string(args[0]))))
		return
	}
	cmds := sortedCommands(c.srv.table)
	c.w.Array(len(cmds))
	for _, cmd := range cmds {
		writeCommandInfo(&c.w, cmd)
	}
}

// COMMAND COUNT
func cmdCommandCount(c *Client, args [][]byte) { c.w.Int(int64(len(c.srv.table))) }

// COMMAND LIST [FILTERBY MODULE module-name | ACLCAT category | PATTERN pattern]
func cmdCommandList(c *Client, args [][]byte) {
	match := func(*Command) bool { return true }
	switch {
	case len(args) == 2:
	case len(args) == 5 && equalFold(args[2], "filterby"):
		arg := args[4]
		switch {
		case equalFold(args[3], "module"):
			match = func(*Command) bool { return false } // HotKV has no modules
		case equalFold(args[3], "aclcat"):
			cat := append([]byte{'@'}, arg...)
			match = func(cmd *Command) bool {
				return slices.ContainsFunc(metaFor(cmd).ACLCategories, func(s string) bool { return equalFold(cat, s) })
			}
		case equalFold(args[3], "pattern"):
			match = func(cmd *Command) bool { return glob.Match(arg, []byte(cmd.Name), true) }
		default:
			c.errorReply(errSyntax)
			return
		}
	default:
		c.errorReply(errSyntax)
		return
	}
	var names []string
	for _, cmd := range sortedCommands(c.srv.table) {
		if match(cmd) {
			names = append(names, cmd.Name)
		}
		for _, sc := range sortedSubs(cmd) {
			if match(sc) {
				names = append(names, sc.Name)
			}
		}
	}
	c.w.Array(len(names))
	for _, n := range names {
		c.w.BulkString(n)
	}
}

// COMMAND INFO [command-name ...]
func cmdCommandInfo(c *Client, args [][]byte) {
	if len(args) == 2 {
		cmdCommand(c, args[:1])
		return
	}
	c.w.Array(len(args) - 2)
	for _, name := range args[2:] {
		writeCommandInfo(&c.w, lookupCommandName(c.srv.table, name))
	}
}

// COMMAND DOCS [command-name ...]
func cmdCommandDocs(c *Client, args [][]byte) {
	var cmds []*Command
	if len(args) == 2 {
		cmds = sortedCommands(c.srv.table)
	} else {
		for _, name := range args[2:] {
			if cmd := lookupCommandName(c.srv.table, name); cmd != nil {
				cmds = append(cmds, cmd)
			}
		}
	}
	c.w.Map(len(cmds))
	for _, cmd := range cmds {
		c.w.BulkString(cmd.Name)
		writeCommandDocs(&c.w, cmd)
	}
}

// COMMAND GETKEYS command [arg ...]
func cmdCommandGetKeys(c *Client, args [][]byte) { commandGetKeys(c, args, false) }

// COMMAND GETKEYSANDFLAGS command [arg ...]
func cmdCommandGetKeysAndFlags(c *Client, args [][]byte) { commandGetKeys(c, args, true) }

// COMMAND HELP
func cmdCommandHelp(c *Client, args [][]byte) { c.replyHelpLines("COMMAND", commandHelp) }

var commandHelp = []string{
	"(no subcommand)",
	"    Return details about all Redis commands.",
	"COUNT",
	"    Return the total number of commands in this Redis server.",
	"LIST",
	"    Return a list of all commands in this Redis server.",
	"INFO [<command-name> ...]",
	"    Return details about multiple Redis commands.",
	"    If no command names are given, documentation details for all",
	"    commands are returned.",
	"DOCS [<command-name> ...]",
	"    Return documentation details about multiple Redis commands.",
	"    If no command names are given, documentation details for all",
	"    commands are returned.",
	"GETKEYS <full-command>",
	"    Return the keys from a full Redis command.",
	"GETKEYSANDFLAGS <full-command>",
	"    Return the keys and the access flags from a full Redis command.",
}

// commandGetKeys answers GETKEYS and GETKEYSANDFLAGS as Redis's
// getKeysSubcommandImpl does. The key positions are the table's (the ones
// the gate locks); the flags of each key come from the key specs.
func commandGetKeys(c *Client, args [][]byte, withFlags bool) {
	target := args[2:]
	var buf [64]byte
	cmd, _ := c.srv.table.lookup(&buf, target)
	if cmd == nil || cmd.Sub != nil && len(target) > 1 {
		c.errorReply(errGetKeysInvalidCommand)
		return
	}
	if cmd.Keys == nil && cmd.First == 0 {
		c.errorReply(errGetKeysNoKeys)
		return
	}
	if cmd.Arity > 0 && len(target) != cmd.Arity || len(target) < -cmd.Arity {
		c.errorReply(errGetKeysArity)
		return
	}
	pos := cmd.keyPositions(nil, target)
	if len(pos) == 0 {
		if cmd.Flags&NoMandatoryKeys != 0 {
			c.w.Array(0)
		} else {
			c.errorReply(errGetKeysInvalidArgs)
		}
		return
	}
	var flags []*docNode
	if withFlags {
		flags = keyFlags(cmd, target, pos)
	}
	c.w.Array(len(pos))
	for i, p := range pos {
		if withFlags {
			c.w.Array(2)
			c.w.Bulk(target[p])
			flags[i].write(&c.w)
		} else {
			c.w.Bulk(target[p])
		}
	}
}

// writeCommandInfo writes one COMMAND INFO entry (a null for nil) in
// Redis 7's layout: name, arity, flags, first key, last key, step, ACL
// categories, tips, key specs, subcommands.
func writeCommandInfo(w *resp.Writer, cmd *Command) {
	if cmd == nil {
		w.Null()
		return
	}
	m := metaFor(cmd)
	w.Array(10)
	w.BulkString(cmd.Name)
	w.Int(int64(cmd.Arity))
	flags := commandFlagNames(cmd)
	w.Set(len(flags))
	for _, f := range flags {
		w.Simple(f)
	}
	w.Int(int64(cmd.First))
	w.Int(int64(cmd.Last))
	w.Int(int64(cmd.Step))
	w.Set(len(m.ACLCategories))
	for _, cat := range m.ACLCategories {
		w.Simple(cat)
	}
	w.Set(len(m.Tips))
	for _, tip := range m.Tips {
		w.BulkString(tip)
	}
	w.Set(len(m.KeySpecs))
	for i := range m.KeySpecs {
		m.KeySpecs[i].write(w)
	}
	if cmd.Sub == nil {
		w.Set(0)
		return
	}
	subs := sortedSubs(cmd)
	w.Array(len(subs))
	for _, sc := range subs {
		writeCommandInfo(w, sc)
	}
}

// writeCommandDocs writes one command's COMMAND DOCS map.
func writeCommandDocs(w *resp.Writer, cmd *Command) {
	docs := metaFor(cmd).Docs.elems
	n := len(docs) / 2
	if cmd.Sub != nil {
		n++
	}
	w.Map(n)
	for i := range docs {
		docs[i].write(w)
	}
	if cmd.Sub != nil {
		subs := sortedSubs(cmd)
		w.BulkString("subcommands")
		w.Map(len(subs))
		for _, sc := range subs {
			w.BulkString(sc.Name)
			writeCommandDocs(w, sc)
		}
	}
}

// reportedFlags are the flags COMMAND INFO shows, in Redis's order
// (addReplyFlagsForCommand). Redis hides may_replicate on purpose, and
// Global is HotKV's own.
var reportedFlags = []Flag{
	Write, Readonly, DenyOOM, Admin, PubSub, NoScript, Blocking, Loading, Stale,
	SkipMonitor, SkipSlowlog, Asking, Fast, NoAuth, NoMandatoryKeys, NoAsyncLoading, NoMulti, Movablekeys, AllowBusy,
}

// commandFlagNames returns the Redis names of cmd's reported flags.
func commandFlagNames(cmd *Command) []string {
	f := cmd.Flags
	if cmd.Keys != nil {
		f |= Movablekeys
	}
	var names []string
	for _, rf := range reportedFlags {
		if f&rf != 0 {
			names = append(names, rf.Names()...)
		}
	}
	return names
}

// sortedCommands returns the table's commands sorted by name.
func sortedCommands(t Table) []*Command {
	cmds := make([]*Command, 0, len(t))
	for _, cmd := range t {
		cmds = append(cmds, cmd)
	}
	slices.SortFunc(cmds, func(a, b *Command) int { return strings.Compare(a.Name, b.Name) })
	return cmds
}

// sortedSubs returns cmd's subcommands sorted by name.
func sortedSubs(cmd *Command) []*Command {
	subs := make([]*Command, 0, len(cmd.Sub))
	for _, sc := range cmd.Sub {
		subs = append(subs, sc)
	}
	slices.SortFunc(subs, func(a, b *Command) int { return strings.Compare(a.Name, b.Name) })
	return subs
}

// lookupCommandName finds a command by its full name as COMMAND INFO and
// DOCS take it ("get", "config|get"; any case), or nil.
func lookupCommandName(t Table, name []byte) *Command {
	parts := strings.Split(string(lower(nil, name)), "|")
	cmd := t[parts[0]]
	switch {
	case cmd == nil || len(parts) > 2:
		return nil
	case len(parts) == 1:
		return cmd
	}
	return cmd.Sub[parts[1]]
}

// Key flags that depend on the arguments (Redis's setGetKeys and
// bitfieldGetKeys), for the commands whose key spec says variable_flags.
var (
	keyFlagsROAccess       = statusSet("RO", "access")
	keyFlagsRWAccessUpdate = statusSet("RW", "access", "update")
	keyFlagsOWUpdate       = statusSet("OW", "update")
	emptySet               = statusSet()
)

// keyFlags returns the key-spec flags (a set node) for each key position
// of a call, as COMMAND GETKEYSANDFLAGS reports them.
func keyFlags(cmd *Command, args [][]byte, pos []int) []*docNode {
	out := make([]*docNode, len(pos))
	switch cmd.Name {
	case "set":
		for i := range out {
			out[i] = setKeyFlags(args)
		}
		return out
	case "bitfield":
		for i := range out {
			out[i] = bitfieldKeyFlags(args)
		}
		return out
	}
	m := metaFor(cmd)
	found := m.specPositions(cmd, args)
	fallback := emptySet
	for i := range m.specs {
		if i == 0 || m.specs[i].bs == 'u' || m.specs[i].fk == 'u' {
			fallback = m.specs[i].flags
		}
	}
	for i, p := range pos {
		out[i] = fallback
		for _, f := range found {
			if f.pos == p {
				out[i] = f.flags
				break
			}
		}
	}
	return out
}

// setKeyFlags is SET's key flags: it reads the key too with GET.
func setKeyFlags(args [][]byte) *docNode {
	for _, a := range args[min(3, len(args)):] {
		if equalFold(a, "get") {
			return keyFlagsRWAccessUpdate
		}
	}
	return keyFlagsOWUpdate
}

// bitfieldKeyFlags is Redis's bitfieldGetKeys: read-only when every
// operation is GET (or OVERFLOW).
func bitfieldKeyFlags(args [][]byte) *docNode {
	for i := 2; i < len(args); i++ {
		rem := len(args) - i - 1
		switch {
		case equalFold(args[i], "get") && rem >= 2:
			i += 2
		case equalFold(args[i], "overflow") && rem >= 1:
			i++
		default:
			return keyFlagsRWAccessUpdate
		}
	}
	return keyFlagsROAccess
}

type specKey struct {
	pos   int
	flags *docNode
}

// specPositions finds the key positions of a call from the key specs, as
// Redis's getKeysUsingKeySpecs does, skipping specs that cannot be
// evaluated (GET_KEYSPEC_RETURN_PARTIAL).
func (m *commandMeta) specPositions(cmd *Command, args [][]byte) []specKey {
	var out []specKey
	argc := len(args)
	for i := range m.specs {
		s := &m.specs[i]
		if s.notKey {
			continue
		}
		first := 0
		switch s.bs {
		case 'i':
			first = s.index
		case 'k':
			start, end := s.startfrom, argc-1
			if s.startfrom <= 0 {
				start, end = argc+s.startfrom, 1
			}
			for j := start; j != end; {
				if j >= argc || j < 1 {
					break
				}
				if equalFold(args[j], s.keyword) {
					first = j + 1
					break
				}
				if start <= end {
					j++
				} else {
					j--
				}
			}
			if first == 0 {
				continue
			}
		default:
			continue
		}
		var last, step int
		switch s.fk {
		case 'r':
			step = s.keystep
			switch {
			case s.lastkey >= 0:
				last = first + s.lastkey
			case s.limit == 0:
				last = argc + s.lastkey
			default:
				last = first + ((argc-first)/s.limit + s.lastkey)
			}
		case 'n':
			step = s.keystep
			if s.keynumidx >= argc-first {
				continue
			}
			n, ok := parseInt(args[first+s.keynumidx])
			if !ok || n < 0 || n > int64(argc) {
				continue
			}
			first += s.firstkey
			last = first + int(n) - 1
		default:
			continue
		}
		if last >= argc || last < first || first >= argc || step <= 0 {
			continue
		}
		for j := first; j <= last; j += step {
			out = append(out, specKey{j, s.flags})
		}
	}
	return out
}

//go:embed commanddocs.json
var commandDocsJSON []byte

// commandDocs72JSON adds the commands HotKV takes from Redis 7.2 (CLIENT
// SETINFO, CLIENT NO-TOUCH), which the generated file cannot hold.
//
//go:embed commanddocs_72.json
var commandDocs72JSON []byte

//go:embed commanddocs_hotkv.json
var commandDocsHotKVJSON []byte

// commandMeta is one command's entry in commanddocs.json.
type commandMeta struct {
	ACLCategories []string  `json:"acl_categories"`
	Tips          []string  `json:"tips"`
	KeySpecs      []docNode `json:"key_specs"`
	Docs          docNode   `json:"docs"`

	specs []keySpec // KeySpecs, parsed
}

// keySpec is a parsed key spec (Redis's keySpec).
type keySpec struct {
	flags     *docNode // set of status strings, as GETKEYSANDFLAGS shows them
	perm      acl.Perm // the ACL permission its keys need (keyPerm(flags))
	notKey    bool
	bs        byte // begin_search: 'i' index, 'k' keyword, 'u' unknown
	index     int
	keyword   string
	startfrom int
	fk        byte // find_keys: 'r' range, 'n' keynum, 'u' unknown
	lastkey   int
	keystep   int
	limit     int
	keynumidx int
	firstkey  int
}

var commandMetas struct {
	once sync.Once
	m    map[string]*commandMeta
}

// noMeta stands in for commands missing from commanddocs.json (HotKV's
// own): no categories, tips or key specs; docs with just a group.
var noMeta = &commandMeta{Docs: docNode{kind: '%', elems: []docNode{
	{kind: '$', str: "group"}, {kind: '$', str: "server"},
}}}

// metaFor returns cmd's entry in commanddocs.json, loading the file on
// first use.
func metaFor(cmd *Command) *commandMeta {
	commandMetas.once.Do(func() {
		m, err := loadCommandMetas(commandDocsJSON)
		if err != nil {
			panic("commanddocs.json: " + err.Error())
		}
		for file, data := range map[string][]byte{"commanddocs_72.json": commandDocs72JSON, "commanddocs_hotkv.json": commandDocsHotKVJSON} {
			extra, err := loadCommandMetas(data)
			if err != nil {
				panic(file + ": " + err.Error())
			}
			for name, e := range extra {
				m[name] = e
			}
		}
		commandMetas.m = m
	})
	if m := commandMetas.m[cmd.Name]; m != nil {
		return m
	}
	return noMeta
}

func loadCommandMetas(data []byte) (map[string]*commandMeta, error) {
	var file struct {
		Commands map[string]*commandMeta `json:"commands"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, err
	}
	for name, m := range file.Commands {
		if m.Docs.kind != '%' {
			return nil, fmt.Errorf("%s: docs is not a map", name)
		}
		for i := range m.KeySpecs {
			s, err := parseKeySpec(&m.KeySpecs[i])
			if err != nil {
				return nil, fmt.Errorf("%s: key spec %d: %v", name, i, err)
			}
			s.perm = keyPerm(s.flags)
			m.specs = append(m.specs, s)
		}
	}
	return file.Commands, nil
}

func parseKeySpec(n *docNode) (keySpec, error) {
	s := keySpec{bs: 'u', fk: 'u'}
	s.flags = n.get("flags")
	if s.flags == nil || s.flags.kind != '~' {
		return s, fmt.Errorf("no flags set")
	}
	// GETKEYSANDFLAGS never shows the markers incomplete and
	// variable_flags: Redis takes those keys from the command's own getkeys
	// function, which sets plain flags.
	plain := &docNode{kind: '~', elems: []docNode{}}
	for _, f := range s.flags.elems {
		switch f.str {
		case "not_key":
			s.notKey = true
		case "incomplete", "variable_flags":
			continue
		}
		plain.elems = append(plain.elems, f)
	}
	s.flags = plain
	num := func(n *docNode, key string) int {
		if v := n.get(key); v != nil {
			return int(v.num)
		}
		return 0
	}
	if bs := n.get("begin_search"); bs != nil {
		spec := bs.get("spec")
		switch t := bs.get("type"); {
		case spec == nil || t == nil:
		case t.str == "index":
			s.bs, s.index = 'i', num(spec, "index")
		case t.str == "keyword":
			s.bs, s.startfrom = 'k', num(spec, "startfrom")
			if kw := spec.get("keyword"); kw != nil {
				s.keyword = kw.str
			}
		}
	}
	if fk := n.get("find_keys"); fk != nil {
		spec := fk.get("spec")
		switch t := fk.get("type"); {
		case spec == nil || t == nil:
		case t.str == "range":
			s.fk, s.lastkey, s.keystep, s.limit = 'r', num(spec, "lastkey"), num(spec, "keystep"), num(spec, "limit")
		case t.str == "keynum":
			s.fk, s.keynumidx, s.firstkey, s.keystep = 'n', num(spec, "keynumidx"), num(spec, "firstkey"), num(spec, "keystep")
		}
	}
	return s, nil
}

// docNode is a generic RESP3 value from commanddocs.json (format in
// internal/gencommands).
type docNode struct {
	kind  byte // '$' bulk, '+' status, ':' integer, '_' null, '*' array, '~' set, '%' map
	str   string
	num   int64
	elems []docNode // array and set elements; a map's keys and values alternating
}

func statusSet(names ...string) *docNode {
	n := &docNode{kind: '~', elems: []docNode{}}
	for _, s := range names {
		n.elems = append(n.elems, docNode{kind: '+', str: s})
	}
	return n
}

// get returns the value of a map's key, or nil.
func (n *docNode) get(key string) *docNode {
	if n.kind != '%' {
		return nil
	}
	for i := 0; i+1 < len(n.elems); i += 2 {
		if n.elems[i].str == key {
			return &n.elems[i+1]
		}
	}
	return nil
}

// write writes n in the client's protocol.
func (n *docNode) write(w *resp.Writer) {
	switch n.kind {
	case '$':
		w.BulkString(n.str)
	case '+':
		w.Simple(n.str)
	case ':':
		w.Int(n.num)
	case '_':
		w.Null()
	case '*':
		w.Array(len(n.elems))
	case '~':
		w.Set(len(n.elems))
	case '%':
		w.Map(len(n.elems) / 2)
	}
	for i := range n.elems {
		n.elems[i].write(w)
	}
}

// UnmarshalJSON decodes the node format of commanddocs.json.
func (n *docNode) UnmarshalJSON(b []byte) error {
	switch b[0] {
	case '"':
		n.kind = '$'
		return json.Unmarshal(b, &n.str)
	case 'n':
		n.kind = '_'
		return nil
	case '[':
		n.kind = '*'
		n.elems = []docNode{}
		return json.Unmarshal(b, &n.elems)
	case '{':
		var tagged struct {
			Set    *[]docNode      `json:"set"`
			Status *string         `json:"status"`
			Map    json.RawMessage `json:"map"`
		}
		if err := json.Unmarshal(b, &tagged); err != nil {
			return err
		}
		switch {
		case tagged.Set != nil:
			n.kind, n.elems = '~', *tagged.Set
		case tagged.Status != nil:
			n.kind, n.str = '+', *tagged.Status
		case tagged.Map != nil:
			n.kind = '%'
			return n.decodeMap(tagged.Map)
		default:
			return fmt.Errorf("unknown node %.40s", b)
		}
		return nil
	}
	num, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return fmt.Errorf("bad node %.40s", b)
	}
	n.kind, n.num = ':', num
	return nil
}

// decodeMap decodes a JSON object keeping its keys in order.
func (n *docNode) decodeMap(raw []byte) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return fmt.Errorf("map: want an object")
	}
	n.elems = []docNode{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		var v docNode
		if err := dec.Decode(&v); err != nil {
			return err
		}
		n.elems = append(n.elems, docNode{kind: '$', str: key}, v)
	}
	return nil
}
