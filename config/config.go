// Package config holds HotKV's configuration: the table of every Redis 7.0
// parameter, redis.conf parsing, and the CONFIG GET / SET / REWRITE logic.
//
// Behaviour follows Redis 7.0.15 exactly unless documented otherwise: the
// same parameter names and aliases, the same defaults, the same validation
// and the same error texts, checked against a real redis-server (see the
// tests).
//
// Concurrency: reading a parameter (Param.Int, Param.Bool, Param.String,
// ...) is a single atomic pointer load and never blocks, so it is fine on
// hot paths such as every command. Config.Get and Config.Lookup never
// block either. Config.Set calls are serialized with each other; each
// parameter's value is replaced atomically, so readers see either the old
// or the new value of a parameter, never a torn one.
//
// Differences from Redis, by design:
//   - the package never changes the process: "dir" is validated and stored
//     as an absolute path but no chdir happens; bind/port/etc. are only
//     stored. The server applies changes with OnChange hooks (which may
//     veto them, making CONFIG SET fail and roll back, as in Redis).
//   - rename-command, user, loadmodule and module configuration directives
//     are not interpreted: they are recorded (see Config.Directives) for the
//     server to apply, and kept verbatim by Rewrite unless a rewriter is
//     registered for them (Config.RegisterRewriter).
//   - the default of "bind" is "127.0.0.1 -::1" (Redis: "* -::*").
//   - CONFIG GET results and the lines CONFIG REWRITE appends come in table
//     order (Redis uses its hash table's order).
//   - OnChange hooks (Redis's apply functions) run only when the value, as
//     CONFIG GET prints it, changes (Redis re-applies bind even when equal).
//   - logfile is not opened at load time, reading the configuration from
//     stdin ("-" argument) and sentinel mode are not supported, include
//     nesting is limited to 32 levels.
//   - CONFIG REWRITE writes unsigned memory values above 2^63 (maxmemory)
//     as unsigned numbers; Redis writes them as negative numbers that it
//     cannot load back.
package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hotkv/hotkv/glob"
)

// Config is a complete set of parameters. Create one with Default or Load.
// All methods are safe for concurrent use.
type Config struct {
	params  []*Param          // table order
	entries map[string]*entry // lower-case name or alias -> entry
	order   []*entry          // CONFIG GET pattern order

	setMu   sync.Mutex // serializes Set (including its hooks)
	fileMu  sync.Mutex // serializes Rewrite
	hooksMu sync.RWMutex
	hooks   map[*Param][]func(*Param) error
	rewrite map[string]func() []string

	loading atomic.Bool
	file    string     // absolute path of the configuration file, "" if none
	direcs  [][]string // non-parameter directives, in file order
}

// entry is one name (primary or alias) under which a Param is known, like
// the entries of Redis's configs dictionary.
type entry struct {
	name  string
	p     *Param
	alias bool
}

// Error is a CONFIG SET / REWRITE error. Its text is the exact Redis error
// reply without the leading '-' (for instance "ERR Unknown option or number
// of arguments for CONFIG SET - 'foo'").
type Error struct{ msg string }

func (e *Error) Error() string { return e.msg }

func replyErr(format string, a ...any) error { return &Error{msg: fmt.Sprintf(format, a...)} }

// ErrLoading is what Set returns for parameters that cannot change while the
// dataset is loading (see SetLoading).
var ErrLoading error = &Error{msg: "LOADING Redis is loading the dataset in memory"}

// Default returns a Config holding the default value of every parameter.
// dir defaults to the (absolute) current working directory.
func Default() *Config {
	c := &Config{
		params:  newTable(),
		entries: make(map[string]*entry),
		hooks:   make(map[*Param][]func(*Param) error),
		rewrite: make(map[string]func() []string),
	}
	var aliases []*entry
	for _, p := range c.params {
		e := &entry{name: p.name, p: p}
		c.entries[p.name] = e
		c.order = append(c.order, e)
		if p.alias != "" {
			a := &entry{name: p.alias, p: p, alias: true}
			c.entries[p.alias] = a
			aliases = append(aliases, a)
		}
		// Validators may look at other parameters, not all initialized yet:
		// defaults are known to be valid.
		v, err := p.parseRaw(c, p.defArgs)
		if err != nil && p.name == "dir" {
			// The working directory is gone: Redis's getcwd() fails and
			// CONFIG GET dir shows "".
			v, err = &value{}, nil
		}
		if err != nil {
			panic(fmt.Sprintf("config: bad default for %s: %v", p.name, err))
		}
		p.def = v
		p.v.Store(v)
	}
	c.order = append(c.order, aliases...)
	return c
}

// Lookup returns the parameter called name (its primary name or an alias,
// case-insensitive), or nil if there is none. Hidden parameters are found
// too.
func (c *Config) Lookup(name string) *Param {
	if e := c.entries[asciiLower(name)]; e != nil {
		return e.p
	}
	return nil
}

// Params returns every parameter, in table order (aliases are not listed
// separately).
func (c *Config) Params() []*Param { return append([]*Param(nil), c.params...) }

// File returns the absolute path of the configuration file the Config was
// loaded from, or "" if there is none.
func (c *Config) File() string { return c.file }

// Directives returns the configuration-file directives that are not
// parameters and that the config package does not interpret, in file
// order: "rename-command old new", "user ...", "loadmodule path args..."
// and module parameters ("module.name value"). Each is the directive's
// arguments, the first lower-cased. The server is expected to apply (and
// validate) them. "include" is expanded and is not reported.
func (c *Config) Directives() [][]string {
	out := make([][]string, len(c.direcs))
	for i, d := range c.direcs {
		out[i] = append([]string(nil), d...)
	}
	return out
}

// SetLoading tells the Config whether the server is loading its dataset.
// While loading, Set fails with ErrLoading for the parameters Redis marks
// DENY_LOADING (appendonly, dir, repl-diskless-load).
func (c *Config) SetLoading(loading bool) { c.loading.Store(loading) }

// Get implements CONFIG GET: it returns the name/value pairs of the
// parameters matching any of the patterns. A pattern without glob
// characters ('*', '?', '[') is an exact, case-insensitive lookup and is
// reported under the name as given (it finds hidden parameters too). Other
// patterns are matched case-insensitively (package glob) against every
// primary name and alias except hidden parameters, and report the matched
// name. As in Redis 7, a name is reported at most once (compared
// case-insensitively), but an alias and its primary name are distinct names:
// Get([]string{"*"}) lists both "replicaof" and "slaveof". Values are
// formatted exactly as CONFIG GET prints them. Results come in pattern order,
// then table order with aliases last (Redis's order is its hash table's).
func (c *Config) Get(patterns []string) [][2]string {
	var out [][2]string
	seen := make(map[string]bool)
	for _, pat := range patterns {
		if !strings.ContainsAny(pat, "[*?") {
			key := asciiLower(pat)
			if seen[key] {
				continue
			}
			if e := c.entries[key]; e != nil {
				seen[key] = true
				out = append(out, [2]string{pat, e.p.String()})
			}
			continue
		}
		for _, e := range c.order {
			if e.p.flags&fHidden != 0 || seen[e.name] {
				continue
			}
			if glob.MatchString(pat, e.name, true) {
				seen[e.name] = true
				out = append(out, [2]string{e.name, e.p.String()})
			}
		}
	}
	return out
}

// OnChange registers fn to be called after a successful Set changed the
// parameter name (primary name or alias; the hook is attached to the
// parameter, whichever name Set used). A change is a change of the value as
// CONFIG GET reports it. Hooks run in registration order, after every pair
// of the Set has been validated and stored, and in the order the changed
// parameters appear in the Set.
//
// fn runs while no lock used by readers is held: it may call Get, Lookup,
// Rewrite and the Param getters (which already return the new values). It
// must not call Set or SetLocal on the same Config: Set calls are serialized
// and the current one has not returned yet, so that would deadlock.
//
// If fn returns an error, the change is vetoed: every pair of the Set is
// rolled back to its previous value, the hooks that already ran (and fn's
// own parameter's hooks) are called again so they can re-apply the old
// values (their errors are ignored), and Set returns "ERR CONFIG SET failed
// (possibly related to argument '<name>') - <error text>". OnChange panics
// if name is not a parameter.
func (c *Config) OnChange(name string, fn func(p *Param) error) {
	p := c.Lookup(name)
	if p == nil {
		panic("config: OnChange of unknown parameter " + name)
	}
	c.hooksMu.Lock()
	c.hooks[p] = append(c.hooks[p], fn)
	c.hooksMu.Unlock()
}

// Set implements CONFIG SET name value [name value ...] for a client that
// is not local (see SetLocal). Each pair is a name (primary or alias,
// case-insensitive) and a value; multi-argument parameters (save, bind,
// client-output-buffer-limit, oom-score-adj-values, replicaof,
// latency-tracking-info-percentiles, shutdown-on-sigint/sigterm) take their
// arguments separated by single spaces, as in Redis.
//
// It is all-or-nothing: names are checked first, then every value is
// validated, and only then are values stored, in order (so when an alias and
// its primary name are both given, the last one wins, as in Redis). Hooks run
// last and may veto (see OnChange). On failure nothing changes and the
// error's text is Redis's exact reply (without the leading '-'):
//
//	ERR Unknown option or number of arguments for CONFIG SET - 'foo'
//	ERR CONFIG SET failed (possibly related to argument 'port') - can't set immutable config
//	ERR CONFIG SET failed (possibly related to argument 'dir') - can't set protected config
//	ERR CONFIG SET failed (possibly related to argument 'hz') - duplicate parameter
//	ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument must be a memory value
//	LOADING Redis is loading the dataset in memory
//
// The name checks (unknown, immutable, protected, loading, duplicate) report
// the name as the client typed it; value errors report the canonical
// spelling of the name used (the alias if an alias was used). Checking the
// arity of the command (odd arguments: "ERR syntax error") is the caller's
// job.
func (c *Config) Set(pairs [][2]string) error { return c.set(pairs, false) }

// Assign stores args as the value of parameter name, bypassing CONFIG
// SET's rules (immutability, hooks): for server state that Redis keeps in
// a parameter and changes by a command of its own — REPLICAOF and
// FAILOVER change the master "replicaof" names, which CONFIG GET and
// CONFIG REWRITE show. The value is parsed as the directive's.
func (c *Config) Assign(name string, args ...string) error {
	p := c.Lookup(name)
	if p == nil {
		return replyErr("ERR Unknown option '%s'", name)
	}
	c.setMu.Lock()
	defer c.setMu.Unlock()
	v, err := p.parse(c, args)
	if err != nil {
		return err
	}
	p.v.Store(v)
	return nil
}

// SetLocal is Set for a client connected through a local connection
// (loopback or unix socket): with enable-protected-configs set to "local",
// it may change protected parameters (dir, dbfilename).
func (c *Config) SetLocal(pairs [][2]string) error { return c.set(pairs, true) }

func (c *Config) protectedAllowed(local bool) bool {
	switch c.Lookup("enable-protected-configs").Int() {
	case 1: // yes
		return true
	case 2: // local
		return local
	}
	return false
}

func (c *Config) set(pairs [][2]string, local bool) error {
	c.setMu.Lock()
	defer c.setMu.Unlock()

	// Find all the parameters and check the names, like configSetCommand.
	ents := make([]*entry, len(pairs))
	var invalidName, errName, errText string
	invalid, denyLoading := false, false
	for i, kv := range pairs {
		e := c.entries[asciiLower(kv[0])]
		if e == nil {
			if !invalid {
				invalidName = kv[0]
				invalid = true
			}
			continue
		}
		if invalid {
			continue
		}
		p := e.p
		if p.flags&fImmutable != 0 || (p.flags&fProtected != 0 && !c.protectedAllowed(local)) {
			errText = "can't set protected config"
			if p.flags&fImmutable != 0 {
				errText = "can't set immutable config"
			}
			errName, invalid = kv[0], true
			continue
		}
		if p.flags&fDenyLoading != 0 && c.loading.Load() {
			denyLoading, invalid = true, true
			continue
		}
		for j := 0; j < i; j++ {
			if ents[j] == e {
				errText, errName, invalid = "duplicate parameter", kv[0], true
				break
			}
		}
		ents[i] = e
	}
	switch {
	case denyLoading:
		return ErrLoading
	case invalidName != "" || (invalid && errText == ""):
		return replyErr("ERR Unknown option or number of arguments for CONFIG SET - '%s'", invalidName)
	case invalid:
		return setFailed(errName, errText)
	}

	// Validate every value before storing anything.
	olds := make([]*value, len(pairs))
	news := make([]*value, len(pairs))
	for i, e := range ents {
		olds[i] = e.p.v.Load()
		args := []string{pairs[i][1]}
		if e.p.flags&fMultiArg != 0 {
			args = splitSpaces(pairs[i][1])
		}
		v, err := e.p.parse(c, args)
		if err != nil {
			return setFailed(e.name, err.Error())
		}
		if p := e.p; p.setMin != 0 && v.n != olds[i].n && v.n < p.setMin {
			// Like Redis's apply function (resizeReplicationBacklog).
			v = &value{s: p.formatInt(p.setMin), n: p.setMin}
		}
		news[i] = v
	}

	// Store, then run the hooks of the parameters that changed.
	var changed []*Param
	changedName := make(map[*Param]string)
	for i, e := range ents {
		old := e.p.v.Load()
		e.p.v.Store(news[i])
		if (old.s != news[i].s || old.n != news[i].n) && changedName[e.p] == "" {
			changed = append(changed, e.p)
			changedName[e.p] = e.name
		}
	}
	for k, p := range changed {
		for _, fn := range c.hooksOf(p) {
			if err := fn(p); err != nil {
				for i := len(ents) - 1; i >= 0; i-- {
					ents[i].p.v.Store(olds[i])
				}
				for _, q := range changed[:k+1] {
					for _, fn := range c.hooksOf(q) {
						_ = fn(q)
					}
				}
				return setFailed(changedName[p], err.Error())
			}
		}
	}
	return nil
}

func (c *Config) hooksOf(p *Param) []func(*Param) error {
	c.hooksMu.RLock()
	defer c.hooksMu.RUnlock()
	return c.hooks[p]
}

func setFailed(name, text string) error {
	if text == "" {
		return replyErr("ERR CONFIG SET failed (possibly related to argument '%s')", name)
	}
	return replyErr("ERR CONFIG SET failed (possibly related to argument '%s') - %s", name, text)
}

// splitSpaces is sdssplitlen(s, " "): split on every single space (so
// consecutive spaces give empty arguments); "" gives no argument at all.
func splitSpaces(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, " ")
}

// ---------------------------------------------------------------------------
// Loading.

// FileError is a configuration loading error. Its Error text has the shape
// of Redis's fatal configuration error (without the leading newline):
//
//	*** FATAL CONFIG FILE ERROR (HotKV) ***
//	Reading the configuration file, at line 2
//	>>> 'foo bar'
//	Bad directive or wrong number of arguments
//
// The "Reading ... / >>>" lines are omitted when Line is 0 (errors found
// after reading, such as "replicaof directive not allowed in cluster mode").
type FileError struct {
	File   string // file being read; "" for command-line options
	Line   int    // 1-based line number within the text being parsed, 0 if none
	Text   string // the offending line, trimmed
	Reason string // Redis's message, e.g. "wrong number of arguments"
}

func (e *FileError) Error() string {
	var b strings.Builder
	b.WriteString("*** FATAL CONFIG FILE ERROR (HotKV) ***\n")
	if e.Line > 0 {
		fmt.Fprintf(&b, "Reading the configuration file, at line %d\n>>> '%s'\n", e.Line, e.Text)
	}
	b.WriteString(e.Reason)
	return b.String()
}

// maxIncludeDepth bounds include recursion (Redis would recurse forever).
const maxIncludeDepth = 32

// Load builds a Config from the defaults, then the configuration file at
// path (if path != ""), then args, exactly like redis-server does with
// "redis-server [path] [args...]".
//
// args are redis-server style options: "--directive" followed by its
// values, which run until the next argument starting with "--" (except that
// the first value of a directive may itself start with "--"), e.g.
// ["--port", "6380", "--save", "900", "1", "--loglevel", "debug"]. A single
// argument may also hold a directive and its values ("--port 6380"). As in
// Redis, "--save" without a value means `save ""`. The options are turned
// into configuration lines (values quoted with Repr) appended after the
// file, so errors in them are reported like file errors, with line numbers
// counted after the file's last line.
//
// The file syntax is redis.conf's: one "directive arg arg..." per line,
// arguments split by SplitArgs, '#' comments, case-insensitive directive
// names, "include path" (path relative to the current dir value, which is
// the working directory unless "dir" appeared earlier; glob patterns
// allowed, like Redis), repeated "save" lines accumulate (the first one
// replaces the defaults, `save ""` clears). Parameters marked immutable can
// be set here.
//
// Errors are *FileError values naming the line like Redis does, or a plain
// error "Fatal error, can't open config file '<path>': <reason>".
func Load(path string, args []string) (*Config, error) {
	c := Default()
	l := &loader{c: c}
	content := ""
	if path != "" {
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, err
		}
		if content, err = l.readFiles(path); err != nil {
			return nil, err
		}
		c.file = abs
	}
	fileLines := strings.Count(content, "\n") + 1
	content += "\n" + argsToOptions(args)
	l.optionsFrom = fileLines + 1
	if err := l.loadString(content, path); err != nil {
		return nil, err
	}
	if c.Lookup("cluster-enabled").Bool() {
		if _, _, ok := c.Lookup("replicaof").ReplicaOf(); ok {
			return nil, &FileError{Reason: "replicaof directive not allowed in cluster mode"}
		}
	}
	return c, nil
}

// argsToOptions turns redis-server command-line options into configuration
// lines, like redis-server's main().
func argsToOptions(args []string) string {
	var b strings.Builder
	handledLast := true
	last := len(args) - 1
	for j, a := range args {
		if handledLast && strings.HasPrefix(a, "--") {
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(a[2:])
			b.WriteString(" ")
			parts, _ := SplitArgs(a)
			if len(parts) == 1 {
				// Only an option name, like --port or "--port ".
				handledLast = false
				nextIsOpt := j != last && strings.HasPrefix(args[j+1], "--")
				switch {
				case nextIsOpt && asciiEqualFold(a, "--save"):
					b.WriteString(`""`)
					handledLast = true
				case j == last && asciiEqualFold(a, "--save"):
					b.WriteString(`""`)
				case nextIsOpt && asciiEqualFold(a, "--sentinel"):
					handledLast = true
				}
			} else {
				// Name and value in the same argument, like "--port 6380".
				handledLast = true
			}
		} else {
			b.WriteString(Repr(a))
			b.WriteString(" ")
			handledLast = true
		}
	}
	return b.String()
}

type loader struct {
	c           *Config
	saveLoaded  bool // a save line was seen: later ones append
	depth       int
	optionsFrom int // first line of the main text that comes from command-line options
}

// readFiles reads a configuration file, or the concatenation of the files
// matching a glob pattern (no match is not an error), like
// loadServerConfig.
func (l *loader) readFiles(path string) (string, error) {
	if strings.ContainsAny(path, "*?[") {
		matches, err := filepath.Glob(path)
		if err != nil {
			return "", nil
		}
		var b strings.Builder
		for _, m := range matches {
			data, err := os.ReadFile(m)
			if err != nil {
				return "", fmt.Errorf("Fatal error, can't open config file '%s': %s", m, strerror(err))
			}
			b.Write(data)
		}
		return b.String(), nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("Fatal error, can't open config file '%s': %s", path, strerror(err))
	}
	return string(data), nil
}

// deprecatedDirectives are accepted and ignored (name -> exact argc).
var deprecatedDirectives = map[string]int{
	"list-max-ziplist-entries": 2,
	"list-max-ziplist-value":   2,
	"lua-replicate-commands":   2,
}

// loadString is loadServerConfigFromString.
func (l *loader) loadString(content, file string) error {
	c := l.c
	lines := strings.Split(content, "\n")
	for i, raw := range lines {
		line := trimSet(raw, " \t\r\n")
		if line == "" || line[0] == '#' {
			continue
		}
		fail := func(reason string) error {
			f := file
			if l.depth == 0 && i+1 >= l.optionsFrom {
				f = "" // a command-line option
			}
			return &FileError{File: f, Line: i + 1, Text: line, Reason: reason}
		}
		argv, err := SplitArgs(line)
		if err != nil {
			return fail("Unbalanced quotes in configuration line")
		}
		if len(argv) == 0 {
			continue
		}
		argv[0] = asciiLower(argv[0])
		if e := c.entries[argv[0]]; e != nil {
			p := e.p
			if p.flags&fMultiArg == 0 && len(argv) != 2 {
				return fail("wrong number of arguments")
			}
			args := argv[1:]
			if p.flags&fMultiArg != 0 && len(args) == 1 && args[0] != "" {
				// One argument of a multi-argument parameter is split at
				// its spaces, as Redis's loadServerConfigFromString
				// (--shutdown-on-sigint "now force").
				split, err := SplitArgs(args[0])
				if err != nil {
					return fail("Unbalanced quotes in configuration line")
				}
				args = split
			}
			v, err := p.parse(c, args)
			if err != nil {
				return fail(err.Error())
			}
			if p.name == "save" {
				// Redis: the first save line replaces the defaults, `save ""`
				// clears, other lines append.
				if !(len(argv) == 2 && argv[1] == "") && l.saveLoaded {
					v = saveValue(append(p.SaveParams(), v.ext.([]SaveParam)...))
				}
				l.saveLoaded = true
			}
			p.v.Store(v)
			continue
		}
		if n, ok := deprecatedDirectives[argv[0]]; ok && len(argv) == n {
			continue
		}
		switch name := argv[0]; {
		case name == "include" && len(argv) == 2:
			if err := l.include(argv[1]); err != nil {
				return err
			}
		case name == "rename-command" && len(argv) == 3,
			name == "user" && len(argv) >= 2,
			name == "loadmodule" && len(argv) >= 2:
			c.direcs = append(c.direcs, argv)
		case strings.Contains(name, "."):
			if len(argv) != 2 {
				return fail("Module config specified without value")
			}
			c.direcs = append(c.direcs, argv)
		case name == "sentinel":
			// "sentinel" alone selects sentinel mode in redis-server's main().
			if len(argv) != 1 {
				return fail("sentinel directive while not in sentinel mode")
			}
		default:
			return fail("Bad directive or wrong number of arguments")
		}
	}
	return nil
}

func (l *loader) include(path string) error {
	if l.depth >= maxIncludeDepth {
		return fmt.Errorf("Fatal error, can't open config file '%s': too many levels of include", path)
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(l.c.Lookup("dir").String(), path)
	}
	content, err := l.readFiles(path)
	if err != nil {
		return err
	}
	l.depth++
	defer func() { l.depth-- }()
	return l.loadString(content, path)
}
