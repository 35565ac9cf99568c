// Package script runs Redis Lua scripts and function libraries on
// gopher-lua (Lua 5.1): the sandbox Redis builds (read-only globals, its
// allow-listed libraries, the redis.* API), the conversions between Lua
// values and RESP replies, the script cache, and function libraries.
//
// The package knows nothing of connections or locks: a Run carries the
// callbacks through which a script reaches the server (running a command,
// checking for SCRIPT KILL), and replies are written to a resp.Writer.
package script

import (
	"fmt"
	"strings"

	"github.com/hotkv/hotkv/resp"
)

// Flags are a script's or function's flags (the shebang's flags=, or
// register_function's flags).
type Flags uint16

// Script flags. Compat marks an EVAL script without a shebang, which Redis
// runs with its pre-7.0 rules (no flag checks before the run).
const (
	NoWrites Flags = 1 << iota
	AllowOOM
	AllowStale
	NoCluster
	AllowCrossSlotKeys
	// AllowKeyLocking is HotKV's: the script locks only the hash tags of
	// its declared keys instead of taking the global lock.
	AllowKeyLocking
	Compat
)

var flagNames = []struct {
	flag Flags
	name string
}{
	{NoWrites, "no-writes"},
	{AllowOOM, "allow-oom"},
	{AllowStale, "allow-stale"},
	{NoCluster, "no-cluster"},
	{AllowCrossSlotKeys, "allow-cross-slot-keys"},
	{AllowKeyLocking, "allow-key-locking"},
}

// ParseFlag returns the flag named name.
func ParseFlag(name string) (Flags, bool) {
	for _, f := range flagNames {
		if f.name == name {
			return f.flag, true
		}
	}
	return 0, false
}

// Names lists the set flags' names in Redis's order (FUNCTION LIST).
func (f Flags) Names() []string {
	var names []string
	for _, n := range flagNames {
		if f&n.flag != 0 {
			names = append(names, n.name)
		}
	}
	return names
}

// PortableMarker starts a first line that declares flags in a Lua comment,
// so that one script runs unchanged on stock Redis (which ignores the
// comment) and on HotKV: "--!hotkv flags=allow-key-locking".
const PortableMarker = "--!hotkv"

// parseShebang reads the flags of an EVAL script: a "#!lua ..." first line
// (Redis's rules and error texts), or HotKV's portable comment. It returns
// the flags and how many leading bytes the Lua compiler must skip (the
// shebang line without its newline, so line numbers stay). A script with
// neither is Compat.
func parseShebang(body string) (Flags, int, error) {
	if strings.HasPrefix(body, PortableMarker+" ") || strings.HasPrefix(body, PortableMarker+"\n") {
		line, _, _ := strings.Cut(body, "\n")
		// The same as "#!lua" with the same options on HotKV; a Lua
		// comment, so nothing to skip.
		f, err := parseOptions(strings.Fields(line)[1:], "Unknown hotkv shebang option: %s")
		return f, 0, err
	}
	if !strings.HasPrefix(body, "#!") {
		return Compat, 0, nil
	}
	end := strings.IndexByte(body, '\n')
	if end < 0 {
		return 0, 0, fmt.Errorf("Invalid script shebang")
	}
	parts, _, ok := resp.SplitArgs(nil, nil, []byte(body[:end]))
	if !ok || len(parts) == 0 {
		return 0, 0, fmt.Errorf("Invalid engine in script shebang")
	}
	if string(parts[0]) != "#!lua" {
		return 0, 0, fmt.Errorf("Unexpected engine in script shebang: %s", parts[0])
	}
	opts := make([]string, 0, len(parts)-1)
	for _, p := range parts[1:] {
		opts = append(opts, string(p))
	}
	f, err := parseOptions(opts, "Unknown lua shebang option: %s")
	return f, end, err
}

// parseOptions reads "flags=a,b" options.
func parseOptions(opts []string, unknown string) (Flags, error) {
	var f Flags
	for _, o := range opts {
		list, ok := strings.CutPrefix(o, "flags=")
		if !ok {
			return 0, fmt.Errorf(unknown, o)
		}
		if list == "" {
			continue
		}
		for _, name := range strings.Split(list, ",") {
			flag, ok := ParseFlag(name)
			if !ok {
				return 0, fmt.Errorf("Unexpected flag in script shebang: %s", name)
			}
			f |= flag
		}
	}
	return f, nil
}

// ShebangFlags returns the flags the first line of an EVAL script declares
// (Compat without a shebang), without compiling it, as Redis's
// evalExtractShebangFlags; ok is false when the line is malformed (EVAL
// will refuse the script).
func ShebangFlags(body string) (f Flags, ok bool) {
	f, _, err := parseShebang(body)
	return f, err == nil
}
