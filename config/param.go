package config

import (
	"sync/atomic"
)

// Type is the kind of value a parameter holds.
type Type uint8

const (
	// TypeBool is a "yes"/"no" parameter. Read it with Param.Bool.
	TypeBool Type = iota + 1
	// TypeInt is an integer parameter. Some accept memory units ("1gb"),
	// percentages ("10%", stored as a negative number, see Param.Int) or
	// octal notation (unixsocketperm). Read it with Param.Int.
	TypeInt
	// TypeEnum is a parameter whose value is one name out of a fixed set
	// (or, for shutdown-on-sigint/sigterm, a set of flags). Read it with
	// Param.Enum (the canonical name, as CONFIG GET prints it) or Param.Int
	// (the numeric value or bit mask).
	TypeEnum
	// TypeString is a free-form string. Read it with Param.String.
	TypeString
	// TypeSpecial is a structured parameter with its own syntax (save,
	// client-output-buffer-limit, oom-score-adj-values, bind, replicaof,
	// notify-keyspace-events, latency-tracking-info-percentiles, dir). Read
	// it with Param.String or the matching typed getter.
	TypeSpecial
)

func (t Type) String() string {
	switch t {
	case TypeBool:
		return "bool"
	case TypeInt:
		return "int"
	case TypeEnum:
		return "enum"
	case TypeString:
		return "string"
	case TypeSpecial:
		return "special"
	}
	return "unknown"
}

// Parameter flags (Redis's *_CONFIG flags).
type pflags uint16

const (
	fImmutable   pflags = 1 << iota // IMMUTABLE_CONFIG: CONFIG SET refuses it
	fHidden                         // HIDDEN_CONFIG: only CONFIG GET by exact name shows it
	fProtected                      // PROTECTED_CONFIG: needs enable-protected-configs
	fSensitive                      // SENSITIVE_CONFIG: value must be redacted from logs
	fMultiArg                       // MULTI_ARG_CONFIG: several arguments
	fDenyLoading                    // DENY_LOADING_CONFIG: refused while loading
)

// Numeric flavours (Redis's numeric config flags plus the C storage type's
// signedness, which changes how bounds are checked).
type nflags uint8

const (
	nMemory   nflags = 1 << iota // MEMORY_CONFIG: accepts 1k, 1kb, 1m, 1mb, 1g, 1gb
	nPercent                     // PERCENT_CONFIG: accepts "N%", stored as -N
	nOctal                       // OCTAL_CONFIG: parsed and printed in octal
	nUnsigned                    // unsigned C type: bounds compared as unsigned
)

type enumItem struct {
	name string
	val  int64
}

// value is an immutable snapshot of a parameter's value. Params hold an
// atomic pointer to one, so readers never lock and never see torn values.
type value struct {
	s   string // CONFIG GET rendering
	n   int64  // bool (0/1), integer, enum value / flags, notify flags
	ext any    // typed payload of special parameters
}

// Param is one configuration parameter. Params belong to a Config and live
// as long as it; callers on hot paths should look a Param up once
// (Config.Lookup) and keep the pointer. All methods are safe for concurrent
// use, including concurrently with Config.Set.
type Param struct {
	name  string
	alias string
	typ   Type
	flags pflags

	// TypeInt
	num    nflags
	lo, hi int64
	clamp  *[2]int64 // stored value is clamped to this range (hz)
	setMin int64     // CONFIG SET raises changed values to at least this (repl-backlog-size)

	// TypeEnum
	enum     []enumItem
	bitflags bool

	// TypeString
	nullable bool // EMPTY_STRING_IS_NULL: "" means unset (and is not rewritten)

	// Extra validation (bool, int, enum, string); gets the parsed value.
	check func(c *Config, v *value) error

	// TypeSpecial
	parseFn   func(c *Config, p *Param, args []string) (*value, error)
	rewriteFn func(c *Config, p *Param, st *rewriteState)

	defArgs []string // default, as configuration-file arguments
	def     *value   // parsed default
	v       atomic.Pointer[value]
}

// Name returns the canonical (primary) name of the parameter.
func (p *Param) Name() string { return p.name }

// Aliases returns the alternative names the parameter answers to (for
// instance "slaveof" for "replicaof"). It returns nil when there are none.
func (p *Param) Aliases() []string {
	if p.alias == "" {
		return nil
	}
	return []string{p.alias}
}

// Type returns the kind of the parameter.
func (p *Param) Type() Type { return p.typ }

// Immutable reports whether the parameter can only be set at startup
// (CONFIG SET answers "can't set immutable config").
func (p *Param) Immutable() bool { return p.flags&fImmutable != 0 }

// Protected reports whether CONFIG SET needs enable-protected-configs to
// allow changing the parameter (dir, dbfilename).
func (p *Param) Protected() bool { return p.flags&fProtected != 0 }

// Hidden reports whether the parameter is left out of CONFIG GET pattern
// matches (it is still returned when asked for by its exact name).
func (p *Param) Hidden() bool { return p.flags&fHidden != 0 }

// Sensitive reports whether the parameter's value is a secret that must not
// be logged (masterauth, masteruser, requirepass): the server should redact
// it from SLOWLOG, MONITOR and the like.
func (p *Param) Sensitive() bool { return p.flags&fSensitive != 0 }

// MultiArg reports whether the parameter takes several arguments; with
// CONFIG SET they are given space separated in one value.
func (p *Param) MultiArg() bool { return p.flags&fMultiArg != 0 }

// DenyWhileLoading reports whether CONFIG SET refuses the parameter while
// the dataset is loading (see Config.SetLoading).
func (p *Param) DenyWhileLoading() bool { return p.flags&fDenyLoading != 0 }

// Default returns the default value, formatted as CONFIG GET prints it.
func (p *Param) Default() string { return p.def.s }

// String returns the current value formatted exactly as Redis's CONFIG GET
// prints it (for instance "yes", "1073741824", "10%", "3600 1 300 100").
func (p *Param) String() string { return p.v.Load().s }

// Int returns the value of a TypeInt parameter (memory values in bytes), the
// 0/1 value of a TypeBool parameter, the numeric value (bit mask for flag
// sets) of a TypeEnum parameter, or the event mask of notify-keyspace-events
// (see the Notify* constants). Percent values (maxmemory-clients "10%") are
// returned as negative numbers (-10), as Redis stores them. Unsigned 64-bit
// parameters above math.MaxInt64 (maxmemory) wrap to negative: use Uint.
// It is a single atomic load.
func (p *Param) Int() int64 { return p.v.Load().n }

// Uint returns Int reinterpreted as unsigned, for unsigned 64-bit
// parameters such as maxmemory that accept values up to 2^64-1.
func (p *Param) Uint() uint64 { return uint64(p.v.Load().n) }

// Bool returns the value of a TypeBool parameter ("yes" is true). For other
// types it reports whether Int is non-zero. It is a single atomic load.
func (p *Param) Bool() bool { return p.v.Load().n != 0 }

// Enum returns the canonical name of a TypeEnum parameter's value, as
// CONFIG GET prints it (for instance "noeviction", or "save now" for flag
// sets). It is the same as String and a single atomic load.
func (p *Param) Enum() string { return p.v.Load().s }

// SaveParam is one "save <seconds> <changes>" snapshotting point.
type SaveParam struct {
	Seconds int64
	Changes int
}

// SaveParams returns the snapshotting points of the "save" parameter (nil
// for other parameters or when snapshotting is disabled). The returned
// slice is a copy.
func (p *Param) SaveParams() []SaveParam {
	sp, _ := p.v.Load().ext.([]SaveParam)
	if sp == nil {
		return nil
	}
	return append([]SaveParam(nil), sp...)
}

// Client classes indexing ClientOutputBufferLimits.
const (
	ClientNormal  = 0
	ClientReplica = 1
	ClientPubSub  = 2
)

// ClientBufferLimit is one class of client-output-buffer-limit. Zero
// limits mean "no limit".
type ClientBufferLimit struct {
	HardBytes   uint64
	SoftBytes   uint64
	SoftSeconds int64
}

// ClientOutputBufferLimits returns the limits of client-output-buffer-limit
// indexed by ClientNormal, ClientReplica and ClientPubSub (zero for other
// parameters).
func (p *Param) ClientOutputBufferLimits() [3]ClientBufferLimit {
	l, _ := p.v.Load().ext.([3]ClientBufferLimit)
	return l
}

// OOMScoreAdjValues returns the three values of oom-score-adj-values
// (master, replica, background child); zero for other parameters.
func (p *Param) OOMScoreAdjValues() [3]int {
	v, _ := p.v.Load().ext.([3]int)
	return v
}

// Strings returns the addresses of "bind" (a copy; nil when bind is empty
// or for other parameters).
func (p *Param) Strings() []string {
	l, _ := p.v.Load().ext.([]string)
	if l == nil {
		return nil
	}
	return append([]string(nil), l...)
}

// Floats returns the percentiles of latency-tracking-info-percentiles (a
// copy; nil when empty or for other parameters).
func (p *Param) Floats() []float64 {
	l, _ := p.v.Load().ext.([]float64)
	if l == nil {
		return nil
	}
	return append([]float64(nil), l...)
}

type replicaOf struct {
	host string
	port int
}

// ReplicaOf returns the master of "replicaof" (alias "slaveof"); ok is
// false when the server is a master ("replicaof no one" or unset).
func (p *Param) ReplicaOf() (host string, port int, ok bool) {
	r, _ := p.v.Load().ext.(*replicaOf)
	if r == nil {
		return "", 0, false
	}
	return r.host, r.port, true
}

// Keyspace notification classes: the bits of
// Lookup("notify-keyspace-events").Int(), as in Redis's server.h.
const (
	NotifyKeyspace = 1 << 0  // K
	NotifyKeyevent = 1 << 1  // E
	NotifyGeneric  = 1 << 2  // g
	NotifyString   = 1 << 3  // $
	NotifyList     = 1 << 4  // l
	NotifySet      = 1 << 5  // s
	NotifyHash     = 1 << 6  // h
	NotifyZset     = 1 << 7  // z
	NotifyExpired  = 1 << 8  // x
	NotifyEvicted  = 1 << 9  // e
	NotifyStream   = 1 << 10 // t
	NotifyKeyMiss  = 1 << 11 // m (not part of A)
	NotifyLoaded   = 1 << 12 // module only
	NotifyModule   = 1 << 13 // d
	NotifyNew      = 1 << 14 // n (not part of A)
	// NotifyAll is the "A" alias.
	NotifyAll = NotifyGeneric | NotifyString | NotifyList | NotifySet | NotifyHash |
		NotifyZset | NotifyExpired | NotifyEvicted | NotifyStream | NotifyModule
)

// Shutdown flags: the bits of Lookup("shutdown-on-sigint").Int() (and
// shutdown-on-sigterm). Zero is "default".
const (
	ShutdownSave   = 1
	ShutdownNoSave = 2
	ShutdownNow    = 4
	ShutdownForce  = 8
)
