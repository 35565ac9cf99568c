package script

import (
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/hotkv/hotkv/lualib"
	lua "github.com/yuin/gopher-lua"
)

var mathInf = math.Inf(1)

// Redis log levels (redis.LOG_*).
const (
	LogDebug = iota
	LogVerbose
	LogNotice
	LogWarning
)

// redisAPI builds the global redis table of script_lua.c.
func (v *vm) redisAPI() *lua.LTable {
	L := v.L
	t := L.NewTable()
	fns := map[string]lua.LGFunction{
		"call":               func(L *lua.LState) int { return v.redisCall(L, true) },
		"pcall":              func(L *lua.LState) int { return v.redisCall(L, false) },
		"log":                v.redisLog,
		"setresp":            v.redisSetResp,
		"sha1hex":            redisSHA1Hex,
		"error_reply":        redisErrorReply,
		"status_reply":       redisStatusReply,
		"set_repl":           v.redisSetRepl,
		"replicate_commands": func(L *lua.LState) int { L.Push(lua.LTrue); return 1 },
		"breakpoint":         v.redisBreakpoint,
		"debug":              v.redisDebug,
		"acl_check_cmd":      v.redisACLCheckCmd,
	}
	for name, fn := range fns {
		t.RawSetString(name, L.NewFunction(fn))
	}
	for name, n := range map[string]int{
		"LOG_DEBUG": LogDebug, "LOG_VERBOSE": LogVerbose, "LOG_NOTICE": LogNotice, "LOG_WARNING": LogWarning,
		"REPL_NONE": 0, "REPL_AOF": 1, "REPL_SLAVE": 2, "REPL_REPLICA": 2, "REPL_ALL": 3,
		"REDIS_VERSION_NUM": v.e.VersionNum,
	} {
		t.RawSetString(name, lua.LNumber(n))
	}
	t.RawSetString("REDIS_VERSION", lua.LString(v.e.Version))
	return t
}

// raise raises msg as an error table (luaPushError + luaError).
func raise(L *lua.LState, msg string) int {
	L.Error(errorTable(L, msg), 0)
	return 0
}

// argv converts the arguments of redis.call and friends to a command
// line: strings as they are, numbers with "%.17g" (lua_tolstring would
// lose precision), anything else is an error. The line lives in v's
// buffers until the next call: commands copy what they keep.
func (v *vm) argv(L *lua.LState) ([][]byte, string) {
	n := L.GetTop()
	if n == 0 {
		return nil, "Please specify at least one argument for this redis lib call"
	}
	buf := v.argBuf[:0]
	ends := v.argEnds[:0]
	for i := 1; i <= n; i++ {
		switch a := L.Get(i).(type) {
		case lua.LString:
			buf = append(buf, a...)
		case lua.LNumber:
			buf = strconv.AppendFloat(buf, float64(a), 'g', 17, 64)
		default:
			return nil, "Lua redis lib command arguments must be strings or integers"
		}
		ends = append(ends, len(buf))
	}
	args := v.args[:0]
	start := 0
	for _, end := range ends {
		args = append(args, buf[start:end:end])
		start = end
	}
	v.argBuf, v.argEnds, v.args = buf, ends, args
	return args, ""
}

// redisCall is redis.call (raise set) and redis.pcall.
func (v *vm) redisCall(L *lua.LState, raiseErr bool) int {
	if v.run == nil || v.run.Call == nil {
		return raise(L, "redis.call/pcall can only be called inside a script invocation")
	}
	args, bad := v.argv(L)
	L.SetTop(0)
	if bad != "" {
		if v.ldbEnabled() {
			v.ldb.logError(bad)
		}
		t := errorTable(L, bad)
		if raiseErr {
			L.Error(t, 0)
		}
		L.Push(t)
		return 1
	}
	if v.ldbEnabled() {
		v.ldb.logCommand(args)
	}
	reply, rejected := v.run.Call(args, v.proto)
	if rejected != "" {
		if v.ldbEnabled() {
			v.ldb.logError(rejected)
		}
		t := errorTable(L, rejected)
		t.RawSetString("ignore_error_stats_update", lua.LTrue)
		if raiseErr {
			L.Error(t, 0)
		}
		L.Push(t)
		return 1
	}
	val, _ := replyToLua(L, reply)
	if v.ldbEnabled() {
		if len(reply) > 0 && reply[0] == '-' {
			// luaPushErrorBuff logs the error reply, then the reply.
			line, _, _ := strings.Cut(string(reply), "\r\n")
			v.ldb.log("<error> " + line)
		}
		v.ldb.logRedisReply(reply)
	}
	if raiseErr && len(reply) > 0 && reply[0] == '-' {
		L.Error(val, 0)
	}
	L.Push(val)
	return 1
}

func (v *vm) redisLog(L *lua.LState) int {
	n := L.GetTop()
	if n < 2 {
		return raise(L, "redis.log() requires two arguments or more.")
	}
	lv, ok := toNumber(L.Get(1))
	if !ok {
		return raise(L, "First argument must be a number (log level).")
	}
	level := int(lv)
	if level < LogDebug || level > LogWarning {
		return raise(L, "Invalid debug level.")
	}
	var msg []byte
	for i := 2; i <= n; i++ {
		s := luaString(L.Get(i))
		if s == "" && L.Get(i).Type() != lua.LTString {
			continue
		}
		if i != 2 {
			msg = append(msg, ' ')
		}
		msg = append(msg, s...)
	}
	if v.e.Log != nil {
		v.e.Log(level, string(msg))
	}
	return 0
}

// toNumber is lua_isnumber + lua_tonumber: numbers and numeric strings.
func toNumber(v lua.LValue) (float64, bool) {
	switch v := v.(type) {
	case lua.LNumber:
		return float64(v), true
	case lua.LString:
		n, err := lua.ParseNumber(string(v))
		return float64(n), err == nil
	}
	return 0, false
}

func (v *vm) redisSetResp(L *lua.LState) int {
	if v.run == nil {
		return raise(L, "redis.setresp can only be called inside a script invocation")
	}
	if L.GetTop() != 1 {
		return raise(L, "redis.setresp() requires one argument.")
	}
	n, _ := toNumber(L.Get(1))
	if p := int(n); p == 2 || p == 3 {
		v.proto = p
		return 0
	}
	return raise(L, "RESP version must be 2 or 3.")
}

func redisSHA1Hex(L *lua.LState) int {
	if L.GetTop() != 1 {
		return raise(L, "wrong number of arguments")
	}
	L.Push(lua.LString(SHA1Hex(luaString(L.Get(1)))))
	return 1
}

// redisErrorReply is redis.error_reply: {err=...} with a "-" added when
// missing, so a first word becomes the error code.
func redisErrorReply(L *lua.LState) int {
	s, ok := L.Get(1).(lua.LString)
	if L.GetTop() != 1 || !ok {
		L.Push(errorTable(L, "wrong number or type of arguments"))
		return 1
	}
	msg := string(s)
	if len(msg) == 0 || msg[0] != '-' {
		msg = "-" + msg
	}
	L.Push(errorTable(L, msg))
	return 1
}

func redisStatusReply(L *lua.LState) int {
	s, ok := L.Get(1).(lua.LString)
	if L.GetTop() != 1 || !ok {
		L.Push(errorTable(L, "wrong number or type of arguments"))
		return 1
	}
	t := L.NewTable()
	t.RawSetString("ok", s)
	L.Push(t)
	return 1
}

// redisSetRepl is redis.set_repl: where the script's later writes are
// propagated (Run.SetRepl).
func (v *vm) redisSetRepl(L *lua.LState) int {
	if v.run == nil {
		return raise(L, "redis.set_repl can only be called inside a script invocation")
	}
	if L.GetTop() != 1 {
		return raise(L, "redis.set_repl() requires two arguments.")
	}
	n, _ := toNumber(L.Get(1))
	if int(n)&^3 != 0 {
		return raise(L, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.")
	}
	if v.run.SetRepl != nil {
		v.run.SetRepl(int(n))
	}
	return 0
}

// redisACLCheckCmd is redis.acl_check_cmd: whether the script's caller
// may run the command (Run.Permitted).
func (v *vm) redisACLCheckCmd(L *lua.LState) int {
	if v.run == nil {
		return raise(L, "redis.acl_check_cmd can only be called inside a script invocation")
	}
	args, bad := v.argv(L)
	if bad != "" {
		return raise(L, bad)
	}
	if v.e.CommandExists == nil || !v.e.CommandExists(args) {
		return raise(L, "Invalid command passed to redis.acl_check_cmd()")
	}
	L.Push(lua.LBool(v.run.Permitted == nil || v.run.Permitted(args)))
	return 1
}

// rand48 is Redis's redisLrand48 (rand.c): the 48-bit linear
// congruential generator of drand48, so that math.random gives the same
// sequence as Redis for the same seed. As in Redis, all scripts share one
// generator, which starts at rand.c's initial state.
type rand48 struct {
	mu sync.Mutex
	x  uint64
}

const rand48Init = 0x1234abcd330e

const rand48Max = 1<<31 - 1

func (r *rand48) seed(s int32) {
	r.mu.Lock()
	r.x = uint64(uint32(s))<<16 | 0x330e
	r.mu.Unlock()
}

func (r *rand48) next() int32 {
	r.mu.Lock()
	r.x = (0x5deece66d*r.x + 0xb) & (1<<48 - 1)
	n := int32(r.x >> 17)
	r.mu.Unlock()
	return n
}

// mathRandom is Redis's redis_math_random (Lua's math.random over
// redisLrand48).
func (v *vm) mathRandom(L *lua.LState) int {
	r := float64(int64(v.e.rand.next())%rand48Max) / float64(rand48Max)
	switch L.GetTop() {
	case 0:
		L.Push(lua.LNumber(r))
	case 1:
		u := lualib.CheckInt(L, 1)
		if u < 1 {
			L.ArgError(1, "interval is empty")
		}
		L.Push(lua.LNumber(math.Floor(r*float64(u)) + 1))
	case 2:
		l, u := lualib.CheckInt(L, 1), lualib.CheckInt(L, 2)
		if l > u {
			L.ArgError(2, "interval is empty")
		}
		L.Push(lua.LNumber(math.Floor(r*float64(u-l+1)) + float64(l)))
	default:
		L.RaiseError("wrong number of arguments")
	}
	return 1
}

func (v *vm) mathRandomSeed(L *lua.LState) int {
	v.e.rand.seed(lualib.CheckInt(L, 1))
	return 0
}
