package server

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/resp"
)

// commandTableDifferences lists the deliberate differences between HotKV's
// command table and Redis 7.0's COMMAND INFO, keyed "name field" with the
// reason. Fields: "missing" (no such command in Redis), "arity", "flags",
// "keys" (first/last/step), "meta" (no entry in commanddocs.json), "specs"
// (ACL categories, tips or key specs differ), "docs".
var commandTableDifferences = map[string]string{
	"client|no-touch missing": "Redis 7.2 command, implemented with 7.2 semantics",
	"client|setinfo missing":  "Redis 7.2 command, implemented with 7.2 semantics (client libraries send it)",
	"script|flags missing":    "HotKV's own: sets the flags of a cached script",
	"ft.create missing":       "RediSearch 2.10's (a module command)",
	"ft.search missing":       "RediSearch 2.10's (a module command)",
	"ft.info missing":         "RediSearch 2.10's (a module command)",
	"ft.dropindex missing":    "RediSearch 2.10's (a module command)",
	"ft.alter missing":        "RediSearch 2.10's (a module command)",
	"ft._list missing":        "RediSearch 2.10's (a module command)",
	"ft.aggregate missing":    "RediSearch 2.10's (a module command)",
	"ft.cursor missing":       "RediSearch 2.10's (a module command)",
	"ft.aliasadd missing":     "RediSearch 2.10's (a module command)",
	"ft.aliasupdate missing":  "RediSearch 2.10's (a module command)",
	"ft.aliasdel missing":     "RediSearch 2.10's (a module command)",
	"ft.tagvals missing":      "RediSearch 2.10's (a module command)",
	"ft.dictadd missing":      "RediSearch 2.10's (a module command)",
	"ft.dictdel missing":      "RediSearch 2.10's (a module command)",
	"ft.dictdump missing":     "RediSearch 2.10's (a module command)",
	"ft.config missing":       "RediSearch 2.10's (a module command)",
	"ft.explain missing":      "RediSearch 2.10's (a module command)",
	"ft.explaincli missing":   "RediSearch 2.10's (a module command)",
	"ft.spellcheck missing":   "RediSearch 2.10's (a module command)",
	"ft.synupdate missing":    "RediSearch 2.10's (a module command)",
	"ft.syndump missing":      "RediSearch 2.10's (a module command)",
	"ft.profile missing":      "RediSearch 2.10's (a module command)",
	"ft.sugadd missing":       "RediSearch 2.10's (a module command)",
	"ft.sugget missing":       "RediSearch 2.10's (a module command)",
	"ft.sugdel missing":       "RediSearch 2.10's (a module command)",
	"ft.suglen missing":       "RediSearch 2.10's (a module command)",
	"zrank arity":             "Redis 7.2's WITHSCORE option needs arity -3 (7.0: 3)",
	"zrevrank arity":          "Redis 7.2's WITHSCORE option needs arity -3 (7.0: 3)",
}

// TestCommandTableMatchesRedis compares every command and subcommand of
// HotKV's table, discovered at run time, with a real redis-server's
// COMMAND INFO and COMMAND DOCS: arity, reported flags (as a set), first,
// last and step, and the metadata taken from commanddocs.json.
func TestCommandTableMatchesRedis(t *testing.T) {
	p := newPair(t)
	all := parseRV(p.Redis.Do("COMMAND", "INFO"))
	redis := map[string]*rv{}
	var index func(e *rv)
	index = func(e *rv) {
		redis[e.elems[0].str] = e
		for _, sub := range e.elems[9].elems {
			index(sub)
		}
	}
	for _, e := range all.elems {
		index(e)
	}

	var mismatches []string
	differ := func(name, field, format string, args ...any) {
		if reason, ok := commandTableDifferences[name+" "+field]; ok {
			t.Logf("%s %s: deliberate difference (%s)", name, field, reason)
			return
		}
		mismatches = append(mismatches, fmt.Sprintf("%s %s: ", name, field)+fmt.Sprintf(format, args...))
	}
	checked := 0
	for _, cmd := range tableCommands(shared.srv.table) {
		checked++
		name := cmd.Name
		if slices.Contains(commandFlagNames(cmd), "global") {
			t.Errorf("%s: COMMAND INFO reports HotKV's Global flag", name)
		}
		if metaFor(cmd) == noMeta {
			differ(name, "meta", "not in commanddocs.json (regenerate it, see internal/gencommands)")
		}
		r := redis[name]
		if r == nil {
			differ(name, "missing", "Redis 7.0 has no such command")
			continue
		}
		if got, want := int64(cmd.Arity), r.elems[1].int(); got != want {
			differ(name, "arity", "hotkv %d, redis %d", got, want)
		}
		got := commandFlagNames(cmd)
		var want []string
		for _, f := range r.elems[2].elems {
			want = append(want, f.str)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			differ(name, "flags", "hotkv %v, redis %v", got, want)
		}
		gk := [3]int64{int64(cmd.First), int64(cmd.Last), int64(cmd.Step)}
		rk := [3]int64{r.elems[3].int(), r.elems[4].int(), r.elems[5].int()}
		if gk != rk {
			differ(name, "keys", "first/last/step hotkv %v, redis %v", gk, rk)
		}
		if cmd.Sub != nil {
			for _, sub := range r.elems[9].elems {
				if lookupCommandName(shared.srv.table, []byte(sub.elems[0].str)) == nil {
					t.Logf("%s: HotKV does not implement it (yet)", sub.elems[0].str)
				}
			}
		}

		// What commanddocs.json supplies must match Redis byte for byte.
		h := parseRV(p.HotKV.Do("COMMAND", "INFO", name)).elems[0]
		for i, what := range []string{6: "acl categories", 7: "tips", 8: "key specs"} {
			if i >= 6 && h.elems[i].raw != r.elems[i].raw {
				differ(name, "specs", "%s: hotkv %q, redis %q", what, h.elems[i].raw, r.elems[i].raw)
			}
		}
		hd := docsPairs(parseRV(p.HotKV.Do("COMMAND", "DOCS", name)))
		rd := docsPairs(parseRV(p.Redis.Do("COMMAND", "DOCS", name)))
		if hd != rd {
			differ(name, "docs", "hotkv %q, redis %q", hd, rd)
		}
	}
	for _, m := range mismatches {
		t.Error(m)
	}
	t.Logf("checked %d commands and subcommands against Redis; %d mismatches", checked, len(mismatches))
}

// TestCommandDocsEmbedded needs no redis-server: commanddocs.json parses,
// and covers every command of the table.
func TestCommandDocsEmbedded(t *testing.T) {
	m, err := loadCommandMetas(commandDocsJSON)
	if err != nil {
		t.Fatal(err)
	}
	if len(m) < 300 {
		t.Fatalf("commanddocs.json has only %d entries", len(m))
	}
	sharedHotKV(t)
	for _, cmd := range tableCommands(shared.srv.table) {
		if metaFor(cmd) == noMeta && commandTableDifferences[cmd.Name+" meta"] == "" {
			t.Errorf("%s is not in commanddocs.json (regenerate it, see internal/gencommands)", cmd.Name)
		}
	}
	get := m["get"]
	if len(get.specs) != 1 || get.specs[0].bs != 'i' || get.specs[0].index != 1 || get.specs[0].fk != 'r' {
		t.Errorf("get: key spec parsed as %+v", get.specs)
	}
}

func TestCommandInfo(t *testing.T) {
	script := `
		COMMAND INFO get
		COMMAND INFO set
		COMMAND INFO mget
		COMMAND INFO get set mget
		COMMAND INFO GET nosuch Set
		COMMAND INFO nosuch
		COMMAND INFO get|x
		COMMAND INFO |get
		COMMAND INFO get|
		COMMAND INFO ""
		COMMAND INFO command|info
		COMMAND INFO COMMAND|GETKEYS command|count
		COMMAND INFO command|info|x
		COMMAND INFO command|
		COMMAND|INFO get
	`
	for _, proto := range []string{"2", "3"} {
		t.Run("RESP"+proto, func(t *testing.T) {
			p := newPair(t)
			p.DoBoth("HELLO "+proto, func(string, string) {})
			p.Run(script)
			// Redis lists subcommands in hash order.
			p.DoBoth("COMMAND INFO command", func(redis, hotkv string) {
				if canonInfo(redis) != canonInfo(hotkv) {
					t.Errorf("COMMAND INFO command\n redis: %q\n hotkv: %q", redis, hotkv)
				}
			})
		})
	}
}

func TestCommandDocs(t *testing.T) {
	script := `
		COMMAND DOCS get
		COMMAND DOCS get set
		COMMAND DOCS nosuch
		COMMAND DOCS get nosuch mget GET
		COMMAND DOCS command|getkeys
		COMMAND DOCS command|help command|list
		COMMAND DOCS command|nosuch
	`
	for _, proto := range []string{"2", "3"} {
		t.Run("RESP"+proto, func(t *testing.T) {
			p := newPair(t)
			p.DoBoth("HELLO "+proto, func(string, string) {})
			p.Run(script)
			p.DoBoth("COMMAND DOCS command", func(redis, hotkv string) {
				if canonDocs(redis) != canonDocs(hotkv) {
					t.Errorf("COMMAND DOCS command\n redis: %q\n hotkv: %q", redis, hotkv)
				}
			})
		})
	}
}

func TestCommandGetKeys(t *testing.T) {
	rows := []string{
		"COMMAND GETKEYS get a",
		"COMMAND GETKEYS GET a",
		"COMMAND GETKEYS set k v",
		"COMMAND GETKEYS set k v EX 10 GET",
		"COMMAND GETKEYS mget a b c",
		"COMMAND GETKEYS mset a 1 b 2",
		"COMMAND GETKEYS mset a 1 b",
		"COMMAND GETKEYS del a b c",
		"COMMAND GETKEYS rename a b",
		"COMMAND GETKEYS copy a b DB 1",
		"COMMAND GETKEYS lcs a b",
		"COMMAND GETKEYS object encoding k",
		"COMMAND GETKEYSANDFLAGS get a",
		"COMMAND GETKEYSANDFLAGS set k v",
		"COMMAND GETKEYSANDFLAGS set k v get",
		"COMMAND GETKEYSANDFLAGS set k v EX 1 GET",
		"COMMAND GETKEYSANDFLAGS set k v getx",
		"COMMAND GETKEYSANDFLAGS mset a 1 b 2",
		"COMMAND GETKEYSANDFLAGS del a b",
		"COMMAND GETKEYSANDFLAGS incr a",
		"COMMAND GETKEYSANDFLAGS rename a b",
		"COMMAND GETKEYSANDFLAGS copy a b",
		"COMMAND GETKEYSANDFLAGS getdel a",
		"COMMAND GETKEYSANDFLAGS object freq k",
		"COMMAND GETKEYSANDFLAGS bitfield k GET u8 0",
		"COMMAND GETKEYSANDFLAGS bitfield k GET u8 0 SET u8 0 1",
		"COMMAND GETKEYSANDFLAGS bitfield k OVERFLOW SAT GET u8 0",
		// errors
		"COMMAND GETKEYS nosuch a",
		"COMMAND GETKEYS get a b",
		"COMMAND GETKEYS set k",
		"COMMAND GETKEYS ping x",
		"COMMAND GETKEYS command info",
		"COMMAND GETKEYS command nosuch",
		"COMMAND GETKEYS get",
		"COMMAND GETKEYS",
		"COMMAND GETKEYSANDFLAGS get",
		"COMMAND GETKEYSANDFLAGS nosuch x",
		"COMMAND GETKEYSANDFLAGS echo x",
	}
	for _, proto := range []string{"2", "3"} {
		t.Run("RESP"+proto, func(t *testing.T) {
			p := newPair(t)
			p.DoBoth("HELLO "+proto, func(string, string) {})
			for _, row := range rows {
				args := strings.Fields(row)
				if len(args) > 2 && !tableHas(args[2:]) && !strings.Contains(row, "nosuch") {
					t.Logf("skipping %q: not in HotKV's table yet", row)
					continue
				}
				p.Do(row)
			}
		})
	}
}

// TestCommandKeyFlagsSpecs checks the key-spec evaluation behind
// GETKEYSANDFLAGS on commands HotKV may not have yet (keyword and keynum
// specs, unknown specs, variable flags): for the keys Redis finds, the
// flags must be Redis's. Arguments are distinct so that names give
// positions.
func TestCommandKeyFlagsSpecs(t *testing.T) {
	p := newPair(t)
	for _, row := range []string{
		"lmove k1 k2 LEFT RIGHT",
		"smove k1 k2 m",
		"sort k1 BY p GET g STORE k2",
		"zunionstore d 2 k1 k2 WEIGHTS 1 2",
		"zinterstore d 1 k1",
		"georadius k1 0 0 1 km STORE k2 STOREDIST k3",
		"xread COUNT 2 STREAMS k1 k2 0 1",
		"xreadgroup GROUP g c STREAMS k1 k2 0 1",
		"eval s 2 k1 k2 a",
		`migrate h 1 "" 0 5 KEYS k2 k3`,
		"bitfield k GET u8 0",
		"bitfield k GET u8 0 SET u8 0 1",
		"bitfield k OVERFLOW SAT GET u8 0",
		"bitfield k INCRBY u8 0 1",
		"bitfield k GET u8",
		"set k v",
		"set k v NX GET",
		"rename k1 k2",
		"copy k1 k2",
		"blmove k1 k2 LEFT LEFT 0",
		"object encoding k1",
	} {
		args := strings.Fields(row)
		for i, a := range args {
			if a == `""` {
				args[i] = ""
			}
		}
		raw := p.Redis.Do(append([]string{"COMMAND", "GETKEYSANDFLAGS"}, args...)...)
		v := parseRV(raw)
		if v.kind == '-' {
			t.Errorf("%s: redis says %q", row, raw)
			continue
		}
		name := strings.ToLower(args[0])
		if name == "object" {
			name = "object|encoding"
		}
		bargs := make([][]byte, len(args))
		for i, a := range args {
			bargs[i] = []byte(a)
		}
		var pos []int
		var want []string
		for _, k := range v.elems {
			i := slices.Index(args, k.elems[0].str)
			if i < 1 {
				t.Fatalf("%s: key %q not in the arguments", row, k.elems[0].str)
			}
			pos = append(pos, i)
			want = append(want, k.elems[1].raw)
		}
		var got []string
		for _, f := range keyFlags(&Command{Name: name}, bargs, pos) {
			var w resp.Writer
			w.Proto = 2
			f.write(&w)
			got = append(got, string(w.Buf))
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: key flags %q, redis %q", row, got, want)
		}
	}
}

func TestCommandCountList(t *testing.T) {
	p := newPair(t)
	tbl := shared.srv.table
	if got, want := p.HotKV.Do("COMMAND", "COUNT"), fmt.Sprintf(":%d\r\n", len(tbl)); got != want {
		t.Errorf("COMMAND COUNT = %q, want %q", got, want)
	}
	var names []string
	for _, cmd := range tableCommands(tbl) {
		names = append(names, cmd.Name)
	}
	if got := parseRV(p.HotKV.Do("COMMAND", "LIST")).strs(); !slices.Equal(got, names) {
		t.Errorf("COMMAND LIST = %v\nwant %v", got, names)
	}
	for _, sub := range []string{"COMMAND", "COMMAND INFO"} {
		var got []string
		for _, e := range parseRV(p.HotKV.Do(strings.Fields(sub)...)).elems {
			if len(e.elems) == 10 {
				got = append(got, e.elems[0].str)
			}
		}
		if len(got) != len(tbl) {
			t.Errorf("%s: %d entries, want %d (one per top-level command)", sub, len(got), len(tbl))
		}
	}
	docs := parseRV(p.HotKV.Do("COMMAND", "DOCS"))
	if len(docs.elems) != 2*len(tbl) {
		t.Errorf("COMMAND DOCS: %d elements, want %d", len(docs.elems), 2*len(tbl))
	}

	// Filters: HotKV lists what Redis lists, less the commands it lacks.
	for _, f := range []string{"aclcat string", "aclcat STRING", "aclcat connection", "aclcat keyspace",
		"aclcat slow", "aclcat @string", "aclcat nosuch", "module nosuch", "pattern command*",
		"pattern *get*", "pattern COMMAND|G*", "PATTERN c[o]nfig|*", "pattern *"} {
		args := append([]string{"COMMAND", "LIST", "FILTERBY"}, strings.Fields(f)...)
		var want []string
		for _, n := range parseRV(p.Redis.Do(args...)).strs() {
			if lookupCommandName(tbl, []byte(n)) != nil {
				want = append(want, n)
			}
		}
		slices.Sort(want)
		got := slices.DeleteFunc(parseRV(p.HotKV.Do(args...)).strs(), func(n string) bool {
			return commandTableDifferences[n+" missing"] != "" // HotKV's extras
		})
		if !slices.Equal(got, want) {
			t.Errorf("COMMAND LIST FILTERBY %s = %v\nwant %v", f, got, want)
		}
	}
	p.DoUnordered("COMMAND LIST FILTERBY pattern command*")
	p.Run(`
		COMMAND LIST FILTERBY module x
		COMMAND LIST FILTERBY aclcat nosuch
		COMMAND LIST FILTERBY
		COMMAND LIST FILTERBY aclcat
		COMMAND LIST FILTERBY x y
		COMMAND LIST FILTERBY pattern x FILTERBY aclcat string
		COMMAND LIST x
		COMMAND LIST x y z
		COMMAND COUNT x
		COMMAND HELP
		command help
		COMMAND HELP x
		COMMAND FOO
		COMMAND foo bar
		COMMAND INFOX
	`)
}

// TestCommandPlain checks COMMAND with no subcommand, which must reach the
// container's handler.
func TestCommandPlain(t *testing.T) {
	p := newPair(t)
	got := p.HotKV.Do("COMMAND")
	if !strings.HasPrefix(got, fmt.Sprintf("*%d\r\n", len(shared.srv.table))) {
		t.Errorf("COMMAND = %.200q", got)
	}
}

// tableCommands returns every command and subcommand of t, sorted, each
// container followed by its subcommands.
func tableCommands(t Table) []*Command {
	var out []*Command
	for _, cmd := range sortedCommands(t) {
		out = append(out, cmd)
		out = append(out, sortedSubs(cmd)...)
	}
	return out
}

// tableHas reports whether args name a command (or subcommand) of HotKV's
// table.
func tableHas(args []string) bool {
	b := make([][]byte, len(args))
	for i, a := range args {
		b[i] = []byte(a)
	}
	var buf [64]byte
	cmd, _ := shared.srv.table.lookup(&buf, b)
	return cmd != nil && (cmd.Sub == nil || len(args) < 2)
}

// rv is a parsed RESP2/RESP3 reply that keeps each value's raw bytes.
type rv struct {
	kind  byte
	str   string
	elems []*rv
	raw   string
	head  string // the first line, for aggregates
}

func parseRV(raw string) *rv {
	v, rest := readRV(raw)
	if rest != "" {
		panic(fmt.Sprintf("trailing data after reply: %q", rest))
	}
	return v
}

func readRV(s string) (*rv, string) {
	i := strings.Index(s, "\r\n")
	if i < 1 {
		panic(fmt.Sprintf("bad reply %q", s))
	}
	line, rest := s[:i], s[i+2:]
	v := &rv{kind: line[0], head: s[:i+2]}
	body := line[1:]
	switch v.kind {
	case '$', '=', '!':
		n, _ := strconv.Atoi(body)
		if n >= 0 {
			v.str, rest = rest[:n], rest[n+2:]
		}
	case '*', '~', '%', '>', '|':
		n, _ := strconv.Atoi(body)
		if v.kind == '%' || v.kind == '|' {
			n *= 2
		}
		for j := 0; j < n; j++ {
			var e *rv
			e, rest = readRV(rest)
			v.elems = append(v.elems, e)
		}
	default:
		v.str = body
	}
	v.raw = s[:len(s)-len(rest)]
	return v, rest
}

func (v *rv) int() int64 {
	n, _ := strconv.ParseInt(v.str, 10, 64)
	return n
}

func (v *rv) strs() []string {
	var out []string
	for _, e := range v.elems {
		out = append(out, e.str)
	}
	return out
}

// canonInfo sorts the subcommands of every entry of a COMMAND INFO reply.
func canonInfo(raw string) string {
	v := parseRV(raw)
	var b strings.Builder
	b.WriteString(v.head)
	for _, e := range v.elems {
		b.WriteString(canonInfoEntry(e))
	}
	return b.String()
}

func canonInfoEntry(e *rv) string {
	if len(e.elems) != 10 {
		return e.raw
	}
	var b strings.Builder
	b.WriteString(e.head)
	for _, x := range e.elems[:9] {
		b.WriteString(x.raw)
	}
	subs := e.elems[9]
	var s []string
	for _, sub := range subs.elems {
		s = append(s, canonInfoEntry(sub))
	}
	slices.Sort(s)
	b.WriteString(subs.head)
	b.WriteString(strings.Join(s, ""))
	return b.String()
}

// canonDocs sorts the "subcommands" maps of a COMMAND DOCS reply.
func canonDocs(raw string) string {
	v := parseRV(raw)
	return v.head + canonPairs(v.elems, false)
}

// canonPairs renders a map's name/docs pairs, sorted when sortPairs.
func canonPairs(elems []*rv, sortPairs bool) string {
	var pairs []string
	for i := 0; i+1 < len(elems); i += 2 {
		pairs = append(pairs, elems[i].raw+canonDocsMap(elems[i+1]))
	}
	if sortPairs {
		slices.Sort(pairs)
	}
	return strings.Join(pairs, "")
}

func canonDocsMap(d *rv) string {
	var b strings.Builder
	b.WriteString(d.head)
	for i := 0; i+1 < len(d.elems); i += 2 {
		b.WriteString(d.elems[i].raw)
		if d.elems[i].str == "subcommands" {
			b.WriteString(d.elems[i+1].head + canonPairs(d.elems[i+1].elems, true))
		} else {
			b.WriteString(d.elems[i+1].raw)
		}
	}
	return b.String()
}

// docsPairs renders the docs of the one command of a COMMAND DOCS reply,
// without its subcommands.
func docsPairs(v *rv) string {
	if len(v.elems) != 2 {
		return v.raw
	}
	d := v.elems[1]
	var b strings.Builder
	for i := 0; i+1 < len(d.elems); i += 2 {
		if d.elems[i].str != "subcommands" {
			b.WriteString(d.elems[i].raw + d.elems[i+1].raw)
		}
	}
	return b.String()
}
