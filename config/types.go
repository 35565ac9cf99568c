package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// errWrongArgs is Redis's "wrong number of arguments" (configuration file
// lines with the wrong arity, special parameters).
var errWrongArgs = errors.New("wrong number of arguments")

// parse converts configuration arguments (already split: one per argument)
// into a value, validating them exactly like the Redis 7.0 set functions. It
// does not store anything.
func (p *Param) parse(c *Config, args []string) (*value, error) {
	v, err := p.parseRaw(c, args)
	if err == nil && p.check != nil {
		err = p.check(c, v)
	}
	if err != nil {
		return nil, err
	}
	return v, nil
}

// parseRaw is parse without the parameter-specific validator.
func (p *Param) parseRaw(c *Config, args []string) (*value, error) {
	var v *value
	var err error
	switch p.typ {
	case TypeBool:
		v, err = p.parseBool(args[0])
	case TypeInt:
		v, err = p.parseInt(args[0])
	case TypeEnum:
		v, err = p.parseEnum(args)
	case TypeString:
		v = &value{s: args[0]}
	case TypeSpecial:
		return p.parseFn(c, p, args)
	}
	return v, err
}

func (p *Param) parseBool(s string) (*value, error) {
	switch {
	case asciiEqualFold(s, "yes"):
		return vTrue, nil
	case asciiEqualFold(s, "no"):
		return vFalse, nil
	}
	return nil, errors.New("argument must be 'yes' or 'no'")
}

var (
	vTrue  = &value{s: "yes", n: 1}
	vFalse = &value{s: "no", n: 0}
)

// parseInt is numericParseString + numericBoundaryCheck.
func (p *Param) parseInt(s string) (*value, error) {
	var n int64
	ok := false
	if p.num&nMemory != 0 {
		var u uint64
		if u, ok = memtoull(s); ok {
			n = int64(u)
		}
	}
	if !ok && p.num&nPercent != 0 && len(s) > 1 && s[len(s)-1] == '%' {
		if v, ok2 := string2ll(s[:len(s)-1]); ok2 && v >= 0 {
			n, ok = -v, true
		}
	}
	if !ok && p.num&nOctal != 0 {
		if v, rest, erange := strtoll(s, 8); !erange && rest == "" {
			n, ok = v, true
		}
	}
	if !ok && p.num&(nMemory|nPercent|nOctal) == 0 {
		n, ok = string2ll(s)
	}
	if !ok {
		switch {
		case p.num&nMemory != 0 && p.num&nPercent != 0:
			return nil, errors.New("argument must be a memory or percent value")
		case p.num&nMemory != 0:
			return nil, errors.New("argument must be a memory value")
		case p.num&nOctal != 0:
			return nil, errors.New("argument couldn't be parsed as an octal number")
		}
		return nil, errors.New("argument couldn't be parsed into an integer")
	}

	if p.num&nUnsigned != 0 {
		u, lo, hi := uint64(n), uint64(p.lo), uint64(p.hi)
		if u > hi || u < lo {
			if p.num&nOctal != 0 {
				return nil, fmt.Errorf("argument must be between %o and %o inclusive", lo, hi)
			}
			return nil, fmt.Errorf("argument must be between %d and %d inclusive", lo, hi)
		}
	} else if p.num&nPercent != 0 && n < 0 {
		if n < p.lo {
			return nil, fmt.Errorf("percentage argument must be less or equal to %d", -p.lo)
		}
	} else if n > p.hi || n < p.lo {
		return nil, fmt.Errorf("argument must be between %d and %d inclusive", p.lo, p.hi)
	}
	if p.clamp != nil {
		n = min(max(n, p.clamp[0]), p.clamp[1])
	}
	return &value{s: p.formatInt(n), n: n}, nil
}

// formatInt is numericConfigGet.
func (p *Param) formatInt(n int64) string {
	switch {
	case p.num&nPercent != 0 && n < 0:
		return strconv.FormatInt(-n, 10) + "%"
	case p.num&nMemory != 0:
		return strconv.FormatUint(uint64(n), 10)
	case p.num&nOctal != 0:
		return strconv.FormatUint(uint64(n), 8)
	}
	return strconv.FormatInt(n, 10)
}

// parseEnum is enumConfigSet (configEnumGetValue with bit flags for
// multi-argument enums).
func (p *Param) parseEnum(args []string) (*value, error) {
	if len(args) == 0 || (!p.bitflags && len(args) != 1) {
		return nil, p.enumError()
	}
	var n int64
	for _, a := range args {
		matched := false
		for _, it := range p.enum {
			if asciiEqualFold(a, it.name) {
				n |= it.val
				matched = true
			}
		}
		if !matched {
			return nil, p.enumError()
		}
	}
	return &value{s: p.enumName(n), n: n}, nil
}

func (p *Param) enumError() error {
	var b strings.Builder
	b.WriteString("argument(s) must be one of the following: ")
	for i, it := range p.enum {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(it.name)
	}
	s := b.String()
	if len(s) > 255 { // Redis formats it into a 256 bytes buffer
		s = s[:255]
	}
	return errors.New(s)
}

// enumName is configEnumGetName: the first exact match, else (for bit
// flags) the names of the flags in table order, else "unknown".
func (p *Param) enumName(n int64) string {
	var names []string
	unmatched := n
	for _, it := range p.enum {
		if it.val == n {
			return it.name
		}
		if p.bitflags && it.val != 0 && it.val == unmatched&it.val {
			names = append(names, it.name)
			unmatched &^= it.val
		}
	}
	if names == nil || unmatched != 0 {
		return "unknown"
	}
	return strings.Join(names, " ")
}

// ---------------------------------------------------------------------------
// Special parameters.

// parseSave is setConfigSaveOption. In a configuration file the loader
// accumulates the points of successive "save" lines (see loader.apply).
func parseSave(_ *Config, _ *Param, args []string) (*value, error) {
	if len(args) == 1 && args[0] == "" {
		args = nil
	}
	if len(args)%2 != 0 {
		return nil, errors.New("Invalid save parameters")
	}
	var sp []SaveParam
	for j := 0; j < len(args); j += 2 {
		secs, rest1, _ := strtoll(args[j], 10)
		changes, rest2, _ := strtoll(args[j+1], 10)
		if rest1 != "" || rest2 != "" || secs < 1 || changes < 0 {
			return nil, errors.New("Invalid save parameters")
		}
		sp = append(sp, SaveParam{Seconds: secs, Changes: int(int32(changes))})
	}
	return saveValue(sp), nil
}

func saveValue(sp []SaveParam) *value {
	parts := make([]string, 0, len(sp))
	for _, s := range sp {
		parts = append(parts, strconv.FormatInt(s.Seconds, 10)+" "+strconv.Itoa(s.Changes))
	}
	return &value{s: strings.Join(parts, " "), n: int64(len(sp)), ext: sp}
}

func rewriteSave(_ *Config, p *Param, st *rewriteState) {
	sp, _ := p.v.Load().ext.([]SaveParam)
	if len(sp) == 0 {
		st.rewriteLine(p.name, `save ""`, true)
	}
	for _, s := range sp {
		st.rewriteLine(p.name, fmt.Sprintf("save %d %d", s.Seconds, s.Changes), true)
	}
	st.markProcessed(p.name)
}

var clientClassNames = [3]string{"normal", "slave", "pubsub"}

// parseClientOutputBufferLimit is updateClientOutputBufferLimit: classes
// not mentioned keep their current limits.
func parseClientOutputBufferLimit(_ *Config, p *Param, args []string) (*value, error) {
	if len(args)%4 != 0 {
		return nil, errors.New("Wrong number of arguments in buffer limit configuration.")
	}
	var limits [3]ClientBufferLimit
	if cur := p.v.Load(); cur != nil {
		limits = cur.ext.([3]ClientBufferLimit)
	}
	for j := 0; j < len(args); j += 4 {
		class := -1
		switch {
		case asciiEqualFold(args[j], "normal"):
			class = ClientNormal
		case asciiEqualFold(args[j], "slave"), asciiEqualFold(args[j], "replica"):
			class = ClientReplica
		case asciiEqualFold(args[j], "pubsub"):
			class = ClientPubSub
		}
		if class < 0 {
			return nil, errors.New("Invalid client class specified in buffer limit configuration.")
		}
		hard, ok1 := memtoull(args[j+1])
		soft, ok2 := memtoull(args[j+2])
		secs, rest, _ := strtoll(args[j+3], 10)
		secs = int64(int32(secs)) // stored in a C int first
		if !ok1 || !ok2 || secs < 0 || rest != "" {
			return nil, errors.New("Error in hard, soft or soft_seconds setting in buffer limit configuration.")
		}
		limits[class] = ClientBufferLimit{HardBytes: hard, SoftBytes: soft, SoftSeconds: secs}
	}
	return cobValue(limits), nil
}

func cobValue(l [3]ClientBufferLimit) *value {
	var b strings.Builder
	for j := range l {
		if j > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s %d %d %d", clientClassNames[j], l[j].HardBytes, l[j].SoftBytes, l[j].SoftSeconds)
	}
	return &value{s: b.String(), ext: l}
}

func rewriteClientOutputBufferLimit(_ *Config, p *Param, st *rewriteState) {
	cur := p.v.Load().ext.([3]ClientBufferLimit)
	def := p.def.ext.([3]ClientBufferLimit)
	for j := range cur {
		name := clientClassNames[j]
		if name == "slave" {
			name = "replica"
		}
		line := fmt.Sprintf("%s %s %s %s %d", p.name, name, formatMemory(cur[j].HardBytes),
			formatMemory(cur[j].SoftBytes), cur[j].SoftSeconds)
		st.rewriteLine(p.name, line, cur[j] != def[j])
	}
}

// parseOOMScoreAdjValues is setConfigOOMScoreAdjValuesOption.
func parseOOMScoreAdjValues(_ *Config, _ *Param, args []string) (*value, error) {
	if len(args) != 3 {
		return nil, errWrongArgs
	}
	var vals [3]int
	for i, a := range args {
		v, rest, _ := strtoll(a, 10)
		if rest != "" || v < -2000 || v > 2000 {
			return nil, errors.New("Invalid oom-score-adj-values, elements must be between -2000 and 2000.")
		}
		vals[i] = int(v)
	}
	return oomValue(vals), nil
}

func oomValue(v [3]int) *value {
	return &value{s: fmt.Sprintf("%d %d %d", v[0], v[1], v[2]), ext: v}
}

func rewriteOOMScoreAdjValues(_ *Config, p *Param, st *rewriteState) {
	cur := p.v.Load()
	st.rewriteLine(p.name, p.name+" "+cur.s, cur.ext.([3]int) != p.def.ext.([3]int))
}

// parseNotifyKeyspaceEvents is setConfigNotifyKeyspaceEventsOption.
func parseNotifyKeyspaceEvents(_ *Config, _ *Param, args []string) (*value, error) {
	if len(args) != 1 {
		return nil, errWrongArgs
	}
	var flags int64
	for i := 0; i < len(args[0]); i++ {
		switch args[0][i] {
		case 'A':
			flags |= NotifyAll
		case 'g':
			flags |= NotifyGeneric
		case '$':
			flags |= NotifyString
		case 'l':
			flags |= NotifyList
		case 's':
			flags |= NotifySet
		case 'h':
			flags |= NotifyHash
		case 'z':
			flags |= NotifyZset
		case 'x':
			flags |= NotifyExpired
		case 'e':
			flags |= NotifyEvicted
		case 'K':
			flags |= NotifyKeyspace
		case 'E':
			flags |= NotifyKeyevent
		case 't':
			flags |= NotifyStream
		case 'm':
			flags |= NotifyKeyMiss
		case 'd':
			flags |= NotifyModule
		case 'n':
			flags |= NotifyNew
		default:
			return nil, errors.New("Invalid event class character. Use 'Ag$lshzxeKEtmdn'.")
		}
	}
	return &value{s: notifyFlagsString(flags), n: flags}, nil
}

// notifyFlagsString is keyspaceEventsFlagsToString. Note that, as in Redis,
// 'n' is not printed when all the 'A' classes are set.
func notifyFlagsString(flags int64) string {
	var b []byte
	if flags&NotifyAll == NotifyAll {
		b = append(b, 'A')
	} else {
		for _, f := range []struct {
			bit int64
			c   byte
		}{{NotifyGeneric, 'g'}, {NotifyString, '$'}, {NotifyList, 'l'}, {NotifySet, 's'},
			{NotifyHash, 'h'}, {NotifyZset, 'z'}, {NotifyExpired, 'x'}, {NotifyEvicted, 'e'},
			{NotifyStream, 't'}, {NotifyModule, 'd'}, {NotifyNew, 'n'}} {
			if flags&f.bit != 0 {
				b = append(b, f.c)
			}
		}
	}
	if flags&NotifyKeyspace != 0 {
		b = append(b, 'K')
	}
	if flags&NotifyKeyevent != 0 {
		b = append(b, 'E')
	}
	if flags&NotifyKeyMiss != 0 {
		b = append(b, 'm')
	}
	return string(b)
}

func rewriteNotifyKeyspaceEvents(_ *Config, p *Param, st *rewriteState) {
	cur := p.v.Load()
	st.rewriteLine(p.name, p.name+" "+Repr(cur.s), cur.n != 0)
}

// maxBindAddrs is CONFIG_BINDADDR_MAX.
const maxBindAddrs = 16

// parseBind is setConfigBindOption. Addresses are not resolved here: the
// server applies them (and may veto them) with an OnChange hook.
func parseBind(_ *Config, _ *Param, args []string) (*value, error) {
	if len(args) > maxBindAddrs {
		return nil, errors.New("Too many bind addresses specified.")
	}
	if len(args) == 1 && args[0] == "" {
		args = nil
	}
	addrs := append([]string(nil), args...)
	return &value{s: strings.Join(addrs, " "), n: int64(len(addrs)), ext: addrs}, nil
}

func rewriteBind(_ *Config, p *Param, st *rewriteState) {
	cur := p.v.Load()
	if cur.s == p.def.s && cur.n == p.def.n {
		st.markProcessed(p.name)
		return
	}
	addrs := cur.s
	if cur.n == 0 {
		addrs = `""`
	}
	st.rewriteLine(p.name, p.name+" "+addrs, true)
}

// parseReplicaOf is setConfigReplicaOfOption.
func parseReplicaOf(_ *Config, _ *Param, args []string) (*value, error) {
	if len(args) != 2 {
		return nil, errWrongArgs
	}
	if asciiEqualFold(args[0], "no") && asciiEqualFold(args[1], "one") {
		return &value{}, nil
	}
	port, rest, _ := strtoll(args[1], 10)
	p32 := int32(port) // server.masterport is a C int
	if p32 < 0 || p32 > 65535 || rest != "" {
		return nil, errors.New("Invalid master port")
	}
	return &value{s: fmt.Sprintf("%s %d", args[0], p32), ext: &replicaOf{host: args[0], port: int(p32)}}, nil
}

func rewriteReplicaOf(c *Config, p *Param, st *rewriteState) {
	r, _ := p.v.Load().ext.(*replicaOf)
	if r == nil || c.Lookup("cluster-enabled").Bool() {
		st.markProcessed(p.name)
		return
	}
	st.rewriteLine(p.name, fmt.Sprintf("%s %s %d", p.name, r.host, r.port), true)
}

// parsePercentiles is setConfigLatencyTrackingInfoPercentilesOutputOption.
func parsePercentiles(_ *Config, _ *Param, args []string) (*value, error) {
	if len(args) == 1 && args[0] == "" {
		args = nil
	}
	var vals []float64
	parts := make([]string, 0, len(args))
	for _, a := range args {
		f, ok := string2d(a)
		if !ok {
			return nil, errors.New("Invalid latency-tracking-info-percentiles parameters")
		}
		if f > 100.0 || f < 0.0 {
			return nil, errors.New("latency-tracking-info-percentiles parameters should sit between [0.0,100.0]")
		}
		vals = append(vals, f)
		parts = append(parts, formatFloatTrimmed(f))
	}
	return &value{s: strings.Join(parts, " "), n: int64(len(vals)), ext: vals}, nil
}

func rewritePercentiles(_ *Config, p *Param, st *rewriteState) {
	cur := p.v.Load()
	line := p.name + " " + cur.s
	if cur.n == 0 {
		line = p.name + ` ""`
	}
	st.rewriteLine(p.name, line, true)
}

// parseDir is setConfigDirOption. Redis chdir()s; the config package does
// not change the process working directory: it validates the directory and
// stores its absolute, symlink-free path (what Redis's getcwd() reports).
// A relative path is relative to the current value of dir, like a chdir.
func parseDir(c *Config, p *Param, args []string) (*value, error) {
	if len(args) != 1 {
		return nil, errWrongArgs
	}
	dir := args[0]
	if dir == "" {
		return nil, errors.New("No such file or directory")
	}
	if !filepath.IsAbs(dir) {
		base := ""
		if cur := p.v.Load(); cur != nil {
			base = cur.s
		}
		if base == "" {
			var err error
			if base, err = filepath.Abs("."); err != nil {
				return nil, errors.New(strerror(err))
			}
		}
		dir = filepath.Join(base, dir)
	}
	if err := statDir(dir); err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return &value{s: filepath.Clean(dir)}, nil
}

func rewriteDir(_ *Config, p *Param, st *rewriteState) {
	st.rewriteLine(p.name, p.name+" "+Repr(p.v.Load().s), true)
}

// ---------------------------------------------------------------------------
// Validators.

func pathIsBaseName(s string) bool { return !strings.ContainsAny(s, "/\\") }

func checkDBFilename(_ *Config, v *value) error {
	if !pathIsBaseName(v.s) {
		return errors.New("dbfilename can't be a path, just a filename")
	}
	return nil
}

func checkAOFFilename(_ *Config, v *value) error {
	if v.s == "" {
		return errors.New("appendfilename can't be empty")
	}
	if !pathIsBaseName(v.s) {
		return errors.New("appendfilename can't be a path, just a filename")
	}
	return nil
}

func checkAOFDirname(_ *Config, v *value) error {
	if v.s == "" {
		return errors.New("appenddirname can't be empty")
	}
	if !pathIsBaseName(v.s) {
		return errors.New("appenddirname can't be a path, just a dirname")
	}
	return nil
}

func checkHostname(_ *Config, v *value) error {
	if len(v.s) >= 256 {
		return errors.New("Hostnames must be less than 256 characters")
	}
	for i := 0; i < len(v.s); i++ {
		c := v.s[i]
		if c == 0 {
			break // C string
		}
		if !((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.') {
			return errors.New("Hostnames may only contain alphanumeric characters, hyphens or dots")
		}
	}
	return nil
}

// checkActiveDefrag mirrors a Redis built without active defragmentation
// support (as the reference redis-server is, and as HotKV is).
func checkActiveDefrag(_ *Config, v *value) error {
	if v.n != 0 {
		return errors.New("Active defragmentation cannot be enabled: it requires a Redis server " +
			"compiled with a modified Jemalloc like the one shipped by default with the Redis source distribution")
	}
	return nil
}

func checkShutdownFlags(_ *Config, v *value) error {
	if v.n&ShutdownSave != 0 && v.n&ShutdownNoSave != 0 {
		return errors.New("shutdown options SAVE and NOSAVE can't be used simultaneously")
	}
	return nil
}

// checkProcTitleTemplate is validateProcTitleTemplate: the template must
// expand (known {variables}, balanced braces, "{{" for a literal '{') to a
// non-blank string with an empty title.
func checkProcTitleTemplate(c *Config, v *value) error {
	if out, ok := c.expandProcTitle(v.s, ""); !ok || strings.Trim(out, " ") == "" {
		return errors.New("template format is invalid or contains unknown variables")
	}
	return nil
}

// ExpandProcTitle expands a proc-title-template (Redis's sdstemplate with
// redisProcTitleGetVariable) for the given title, using the current
// configuration. ok is false for invalid templates.
func (c *Config) ExpandProcTitle(template, title string) (string, bool) {
	out, ok := c.expandProcTitle(template, title)
	return strings.Trim(out, " "), ok
}

func (c *Config) expandProcTitle(t, title string) (string, bool) {
	var b strings.Builder
	for len(t) > 0 {
		i := strings.IndexByte(t, '{')
		if i < 0 {
			b.WriteString(t)
			break
		}
		b.WriteString(t[:i])
		t = t[i+1:]
		if t == "" {
			return "", false
		}
		if t[0] == '{' {
			b.WriteByte('{')
			t = t[1:]
			continue
		}
		j := strings.IndexByte(t, '}')
		if j < 0 {
			return "", false
		}
		val, ok := c.procTitleVar(t[:j], title)
		if !ok {
			return "", false
		}
		b.WriteString(val)
		t = t[j+1:]
	}
	return b.String(), true
}

func (c *Config) procTitleVar(name, title string) (string, bool) {
	get := func(n string) *Param { return c.Lookup(n) }
	switch name {
	case "title":
		return title, true
	case "listen-addr":
		port, tls := get("port").Int(), get("tls-port").Int()
		if port != 0 || tls != 0 {
			addr := "*"
			if a := get("bind").Strings(); len(a) > 0 {
				addr = a[0]
			}
			if port == 0 {
				port = tls
			}
			return fmt.Sprintf("%s:%d", addr, port), true
		}
		return "unixsocket:" + get("unixsocket").String(), true
	case "server-mode":
		if get("cluster-enabled").Bool() {
			return "[cluster]", true
		}
		return "", true
	case "config-file":
		if c.file == "" {
			return "-", true // what Redis shows without a configuration file
		}
		return c.file, true
	case "port":
		return get("port").String(), true
	case "tls-port":
		return get("tls-port").String(), true
	case "unixsocket":
		return get("unixsocket").String(), true
	}
	return "", false
}
