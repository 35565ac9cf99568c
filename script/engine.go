package script

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hotkv/hotkv/lualib"
	"github.com/hotkv/hotkv/resp"
	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// Engine owns the script cache, the function libraries and a pool of Lua
// states. It is safe for concurrent use: each running script has a state
// of its own, and compiled code (a *lua.FunctionProto) is shared.
type Engine struct {
	// Version and VersionNum are redis.REDIS_VERSION and
	// redis.REDIS_VERSION_NUM.
	Version    string
	VersionNum int
	// Log writes a redis.log line at a Redis log level (0 debug ...
	// 3 warning); nil discards.
	Log func(level int, msg string)
	// CommandExists reports whether args name a command
	// (redis.acl_check_cmd).
	CommandExists func(args [][]byte) bool

	// scripts maps SHA1 to *Script; SCRIPT FLUSH swaps in a new map.
	// Lookups take no lock: every EVALSHA makes one. epoch changes when
	// a cached script goes away or changes (Memo).
	scripts atomic.Pointer[sync.Map]
	epoch   atomic.Uint64

	// mu guards funcs.
	mu    sync.Mutex
	funcs functions
	// evalPools and funcPools are the idle Lua states, spread over
	// shards (Run.Shard) so that cores do not contend for one list.
	evalPools, funcPools [poolShards]pool
	rand                 rand48 // math.random's generator, shared as in Redis
}

const poolShards = 16

// pool is a list of idle states.
type pool struct {
	mu     sync.Mutex
	free   []*vm
	states int // made by this pool
	_      [24]byte
}

// NewEngine returns an engine with an empty cache.
func NewEngine() *Engine {
	e := &Engine{rand: rand48{x: rand48Init}}
	e.scripts.Store(new(sync.Map))
	return e
}

// Script is a compiled EVAL script.
type Script struct {
	SHA   string
	Body  string
	Flags Flags
	proto *lua.FunctionProto
}

// Run is one invocation of a script or function: its arguments and the
// callbacks through which it reaches the server.
type Run struct {
	Keys, Args [][]byte
	// Call runs a command for redis.call/redis.pcall with the script's
	// RESP version and returns the reply. When the command is refused
	// before running (unknown, arity, not allowed from scripts, a write
	// in a read-only script, ...) it returns rejected instead: Redis's
	// text, either "-CODE message" or a bare message (code ERR).
	Call func(args [][]byte, proto int) (reply []byte, rejected string)
	// Interrupt is polled while the script runs (every few thousand VM
	// instructions); returning true kills the script with Redis's
	// "Script killed by user with SCRIPT KILL..." error.
	Interrupt func() bool
	// Shard spreads concurrent runs over the engine's pools of Lua
	// states (the caller's statistics slot, say).
	Shard int
	// OnError, when set, is told of each error reply the run's reply
	// carries, at its top or nested: counted says a redis.call already
	// counted it (its error table has ignore_error_stats_update), as
	// Redis's error statistics want.
	OnError func(msg string, counted bool)
	// SetRepl, when set, receives redis.set_repl's flags (REPL_AOF 1,
	// REPL_REPLICA 2, both 3, none 0): where the script's later writes
	// are propagated.
	SetRepl func(flags int)
	// Permitted, when set, reports whether the script's caller may run
	// the command args, an existing one (redis.acl_check_cmd); unset,
	// every command is permitted.
	Permitted func(args [][]byte) bool
	// Debug, when set, runs an EVAL script under Redis's Lua debugger
	// (SCRIPT DEBUG SYNC) with this client side (debug.go).
	Debug Debugger
}

func (run *Run) error(msg string, counted bool) {
	if run != nil && run.OnError != nil {
		run.OnError(msg, counted)
	}
}

// SHA1Hex returns the lowercase hex SHA1 digest of s.
func SHA1Hex(s string) string {
	sum := sha1.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

// Load compiles body and adds it to the cache (SCRIPT LOAD, EVAL). A
// cached body is not compiled again. Errors are Redis's texts without the
// "ERR " prefix.
func (e *Engine) Load(body string) (*Script, error) {
	sha := SHA1Hex(body)
	if s, ok := e.scripts.Load().Load(sha); ok {
		return s.(*Script), nil
	}
	flags, skip, err := parseShebang(body)
	if err != nil {
		return nil, err
	}
	proto, err := compile(body[skip:], "@user_script")
	if err != nil {
		return nil, fmt.Errorf("Error compiling script (new function): %s", err)
	}
	s, _ := e.scripts.Load().LoadOrStore(sha, &Script{SHA: sha, Body: body, Flags: flags, proto: proto})
	return s.(*Script), nil
}

// compile parses and compiles a chunk. The error reads as C Lua's
// "user_script:1: <message>".
func compile(src, name string) (*lua.FunctionProto, error) {
	chunk, err := parse.Parse(strings.NewReader(src), name)
	if err != nil {
		if pe, ok := err.(*parse.Error); ok && pe.Pos.Line == parse.EOF {
			pe.Pos.Source = src // syntaxError counts its lines
		}
		return nil, syntaxError(err, name)
	}
	proto, err := lua.Compile(chunk, name)
	if err != nil {
		return nil, syntaxError(err, name)
	}
	return proto, nil
}

// syntaxError rewrites gopher-lua's parse errors in C Lua's form,
// "user_script:1: unexpected symbol near 'x'". gopher-lua's parser is
// generated by yacc and says only "syntax error"; C Lua's most common
// wording stands in for it.
func syntaxError(err error, src string) error {
	name := strings.TrimPrefix(src, "@")
	if pe, ok := err.(*parse.Error); ok {
		msg := pe.Message
		if msg == "syntax error" {
			msg = "unexpected symbol"
		}
		line, tok := pe.Pos.Line, pe.Token
		if line == parse.EOF {
			line, tok = strings.Count(pe.Pos.Source, "\n")+1, "<eof>"
		}
		if tok != "" {
			msg += " near '" + tok + "'"
		}
		return fmt.Errorf("%s:%d: %s", name, line, msg)
	}
	if ce, ok := err.(*lua.CompileError); ok {
		return fmt.Errorf("%s:%d: %s", name, ce.Line, ce.Message)
	}
	return fmt.Errorf("%s: %s", name, err)
}

// Get returns the cached script with the given SHA1 (any case), or nil.
func (e *Engine) Get(sha string) *Script {
	if len(sha) != 40 {
		return nil
	}
	for i := 0; i < len(sha); i++ {
		if c := sha[i]; c >= 'A' && c <= 'Z' {
			sha = strings.ToLower(sha)
			break
		}
	}
	if s, ok := e.scripts.Load().Load(sha); ok {
		return s.(*Script)
	}
	return nil
}

// Flush empties the script cache (SCRIPT FLUSH). Running scripts finish.
func (e *Engine) Flush() {
	e.scripts.Store(new(sync.Map))
	e.epoch.Add(1)
}

// Memo remembers the last script a caller looked up by SHA1, so that a
// client calling one script over and over skips the cache's hashing.
type Memo struct {
	sha    [40]byte
	script *Script
	epoch  uint64
}

// GetMemo is Get for a SHA1 given as bytes, through m.
func (e *Engine) GetMemo(m *Memo, sha []byte) *Script {
	if m.script != nil && string(sha) == string(m.sha[:]) && m.epoch == e.epoch.Load() {
		return m.script
	}
	epoch := e.epoch.Load()
	s := e.Get(string(sha))
	if s != nil && len(sha) == len(m.sha) {
		copy(m.sha[:], sha)
		m.script, m.epoch = s, epoch
	}
	return s
}

// SetFlags replaces a cached script's flags (HotKV's SCRIPT FLAGS). It
// reports whether the script is cached.
func (e *Engine) SetFlags(sha string, flags Flags) bool {
	s := e.Get(sha)
	if s == nil {
		return false
	}
	cp := *s
	cp.Flags = flags
	e.scripts.Load().Store(s.SHA, &cp)
	e.epoch.Add(1)
	return true
}

// Eval runs s with run's keys and arguments and writes its reply (or its
// error) to w, in w's protocol.
func (e *Engine) Eval(s *Script, run *Run, w *resp.Writer) {
	p := &e.evalPools[run.Shard%poolShards]
	v := p.take(e, newVM)
	defer p.give(v)
	fn := v.closure(s.proto)
	fillArrays(v.L, [2]*lua.LTable{v.keys, v.argvT}, [2][][]byte{run.Keys, run.Args})
	if run.Debug != nil {
		v.evalDebug(s, run, fn, w)
		return
	}
	v.invoke(run, fn, 0, s.SHA, w)
}

// take pops an idle state, or makes one.
func (p *pool) take(e *Engine, make func(*Engine) *vm) *vm {
	p.mu.Lock()
	if n := len(p.free); n > 0 {
		v := p.free[n-1]
		p.free = p.free[:n-1]
		p.mu.Unlock()
		return v
	}
	p.states++
	p.mu.Unlock()
	return make(e)
}

// give returns a state to the pool. A pool holds as many states as
// scripts of its shard ever ran at once; a state whose value stack a
// script made grow past maxPooledRegistry is dropped instead, so that one
// script's burst does not stay in memory, and so is a state in which a Go
// panic was recovered (Broken), which may be inconsistent.
func (p *pool) give(v *vm) {
	v.run = nil
	v.L.SetTop(0)
	p.mu.Lock()
	if v.L.RegistryCap() > maxPooledRegistry || v.L.Broken() {
		p.states--
	} else {
		p.free = append(p.free, v)
	}
	p.mu.Unlock()
}

// maxPooledRegistry is the largest value stack (in slots) a pooled state
// keeps: 64K slots, 1 MB.
const maxPooledRegistry = 64 << 10

// vm is one sandboxed Lua state.
type vm struct {
	e   *Engine
	L   *lua.LState
	run *Run
	// hook is interruptHook, bound once (a method value allocates).
	hook func(*lua.LState)
	// proto is the script's RESP version (redis.setresp) for this run.
	proto       int
	errHandler  *lua.LFunction
	closures    map[*lua.FunctionProto]*lua.LFunction
	keys, argvT *lua.LTable // the KEYS and ARGV globals
	// argBuf, argEnds and args hold the command line of the last
	// redis.call.
	argBuf  []byte
	argEnds []int
	args    [][]byte
	// ldb is the debugging session of the running script, if any.
	ldb *ldb
	// loading is set while a function library's code runs (FUNCTION LOAD).
	loading *libraryLoad
	// Function states only: the globals functions see (fenv, whose
	// metatable fenvMeta points at freal, or at fapi while a library
	// loads) and the callbacks of the libraries this state has run.
	fenv, fenvMeta, fapi, freal *lua.LTable
	libs                        map[*Library]map[string]*lua.LFunction
	libsGen                     uint64
}

// Redis's globals allow list (script_lua.c): everything else the standard
// libraries define is removed.
var allowedGlobals = map[string]bool{
	"string": true, "cjson": true, "bit": true, "cmsgpack": true, "math": true,
	"table": true, "struct": true, "redis": true, "__redis__err__handler": true,
	"xpcall": true, "tostring": true, "setmetatable": true,
	"next": true, "assert": true, "tonumber": true, "rawequal": true,
	"collectgarbage": true, "getmetatable": true, "rawset": true, "pcall": true,
	"coroutine": true, "type": true, "_G": true, "select": true, "unpack": true,
	"gcinfo": true, "pairs": true, "rawget": true, "loadstring": true,
	"ipairs": true, "_VERSION": true, "load": true, "error": true,
	"KEYS": true, "ARGV": true,
}

func newVM(e *Engine) *vm {
	// The registry grows as needed: cmsgpack.unpack may return up to
	// C Lua's 8000 stack slots.
	L := lua.NewState(lua.Options{SkipOpenLibs: true, RegistrySize: 1024, RegistryMaxSize: 1 << 20, RegistryGrowStep: 1024})
	v := &vm{e: e, L: L, proto: 2, closures: make(map[*lua.FunctionProto]*lua.LFunction)}
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{
		{"", lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath},
		{lua.CoroutineLibName, lua.OpenCoroutine},
	} {
		L.Push(L.NewFunction(lib.open))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	lualib.Open(L)
	g := L.G.Global
	L.SetGlobal("pcall", L.NewFunction(luaPcall))
	L.SetGlobal("gcinfo", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(0))
		return 1
	}))
	math := g.RawGetString("math").(*lua.LTable)
	math.RawSetString("huge", lua.LNumber(mathInf))
	math.RawSetString("random", L.NewFunction(v.mathRandom))
	math.RawSetString("randomseed", L.NewFunction(v.mathRandomSeed))
	L.SetGlobal("redis", v.redisAPI())
	v.keys, v.argvT = L.NewTable(), L.NewTable()
	L.SetGlobal("KEYS", v.keys)
	L.SetGlobal("ARGV", v.argvT)
	v.errHandler = L.NewFunction(errorHandler)
	L.SetGlobal("__redis__err__handler", v.errHandler)
	var drop []string
	g.ForEach(func(k, _ lua.LValue) {
		if name, ok := k.(lua.LString); !ok || !allowedGlobals[string(name)] {
			drop = append(drop, k.String())
		}
	})
	for _, k := range drop {
		g.RawSetString(k, lua.LNil)
	}
	// Reading an undefined global is an error, as Redis's
	// luaSetErrorMetatable makes it.
	mt := L.NewTable()
	mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("Script attempted to access nonexistent global variable '%s'", L.CheckString(2))
		return 0
	}))
	g.Metatable = mt
	protect(g)
	// KEYS and ARGV stay writable, as Redis's fresh tables are.
	v.keys.SetReadOnly(false)
	v.argvT.SetReadOnly(false)
	return v
}

// protect makes t, the tables it holds and their metatables read-only, as
// luaSetTableProtectionRecursively does.
func protect(t *lua.LTable) {
	if t.ReadOnly() {
		return
	}
	t.SetReadOnly(true)
	t.ForEach(func(_, v lua.LValue) {
		if sub, ok := v.(*lua.LTable); ok {
			protect(sub)
		}
	})
	if mt, ok := t.Metatable.(*lua.LTable); ok {
		protect(mt)
	}
}

// closure returns this state's function for a compiled chunk.
func (v *vm) closure(p *lua.FunctionProto) *lua.LFunction {
	fn := v.closures[p]
	if fn == nil {
		if len(v.closures) >= maxClosures {
			clear(v.closures) // scripts come and go: bound the cache
		}
		fn = v.L.NewFunctionFromProto(p)
		v.closures[p] = fn
	}
	return fn
}

const maxClosures = 4096

// fillArrays empties the tables ts (whatever the last script put in
// them) and fills each with its items: the state's KEYS and ARGV are
// reused from run to run. The items are copied with L.BytesValue, into
// L's blocks of bytes: no allocation per item most of the time.
func fillArrays(L *lua.LState, ts [2]*lua.LTable, items [2][][]byte) {
	for i, t := range ts {
		t.Reset()
		for j, it := range items[i] {
			t.RawSetInt(j+1, L.BytesValue(it))
		}
	}
}

// hookEvery is how many VM instructions pass between Interrupt polls.
const hookEvery = 10000

// invoke calls fn (with nargs arguments already on the stack) for run and
// writes its result or error to w; name is the script's SHA1 or the
// function's name, for error messages.
func (v *vm) invoke(run *Run, fn *lua.LFunction, nargs int, name string, w *resp.Writer) {
	L := v.L
	v.run = run
	v.proto = 2
	if v.ldb != nil {
		L.SetCountHook(v.ldbHook, 1)
	} else if run.Interrupt != nil {
		if v.hook == nil {
			v.hook = v.interruptHook
		}
		L.SetCountHook(v.hook, hookEvery)
	}
	L.Insert(fn, L.GetTop()-nargs+1)
	err := L.PCall(nargs, 1, v.errHandler)
	L.SetCountHook(nil, 0)
	if err != nil {
		writeRunError(L, w, err, name, run)
		return
	}
	luaToReply(L, w, L.Get(-1), v.proto, 0, run)
	L.Pop(1)
}

// interruptHook stops a killed script. Once killed, it runs on every
// instruction so that pcall cannot catch the error and go on.
func (v *vm) interruptHook(L *lua.LState) {
	if v.run != nil && v.run.Interrupt() {
		L.SetCountHook(v.interruptHook, 1)
		L.Error(errorTable(L, "Script killed by user with SCRIPT KILL..."), 0)
	}
}

// writeRunError writes the error reply for a failed script run, as
// luaCallFunction does: "-<err> script: <name>, on <source>:<line>."
func writeRunError(L *lua.LState, w *resp.Writer, err error, name string, run *Run) {
	var obj lua.LValue = lua.LString(err.Error())
	if ae, ok := err.(*lua.ApiError); ok {
		obj = ae.Object
	}
	t, ok := obj.(*lua.LTable)
	if !ok {
		msg := "execution failure"
		if s, ok := obj.(lua.LString); ok {
			msg = string(s)
		}
		if len(msg) > 100 {
			msg = msg[:100]
		}
		msg = fmt.Sprintf("ERR Error running script %s, %s", name, msg)
		w.Error(msg)
		run.error(msg, false)
		return
	}
	msg := luaString(t.RawGetString("err"))
	src := luaString(t.RawGetString("source"))
	line := luaString(t.RawGetString("line"))
	if src != "" && line != "" {
		msg += " script: " + name + ", on " + src + ":" + line + "."
	}
	w.Error(msg)
	run.error(msg, t.RawGetString("ignore_error_stats_update") == lua.LTrue)
}

// luaString is lua_isstring + lua_tostring: strings and numbers.
func luaString(v lua.LValue) string {
	switch v := v.(type) {
	case lua.LString:
		return string(v)
	case lua.LNumber:
		return v.String()
	}
	return ""
}

// errorHandler is Redis's __redis__err__handler: it turns any error into
// an error table carrying the source and line where it was raised.
func errorHandler(L *lua.LState) int {
	errv := L.Get(1)
	dbg, ok := L.GetStack(1)
	if ok {
		L.GetInfo("Sl", dbg, nil)
		if dbg.What == "G" {
			if d2, ok2 := L.GetStack(2); ok2 {
				dbg = d2
				L.GetInfo("Sl", dbg, nil)
			}
		}
	}
	t, isTable := errv.(*lua.LTable)
	if !isTable {
		t = L.NewTable()
		t.RawSetString("err", lua.LString("ERR "+L.ToStringMeta(errv).String()))
	}
	if ok && dbg.Source != "" {
		t.RawSetString("source", lua.LString(dbg.Source))
		t.RawSetString("line", lua.LNumber(dbg.CurrentLine))
	}
	L.Push(t)
	return 1
}

// luaPcall is Redis's pcall: an error table raised by redis.call comes
// back as its message string, as in Redis 6.
func luaPcall(L *lua.LState) int {
	L.CheckAny(1)
	f := L.Get(1)
	if f.Type() != lua.LTFunction && L.GetMetaField(f, "__call").Type() != lua.LTFunction {
		L.Push(lua.LFalse)
		L.Push(lua.LString("attempt to call a " + f.Type().String() + " value"))
		return 2
	}
	if err := L.PCall(L.GetTop()-1, lua.MultRet, nil); err != nil {
		// A caught error counts as an instruction: once the script is
		// killed, the hook then raises again here, even in `return
		// pcall(f)`, which runs no instruction after the call.
		L.CheckHook()
		var obj lua.LValue = lua.LString(err.Error())
		if ae, ok := err.(*lua.ApiError); ok {
			obj = ae.Object
		}
		if t, ok := obj.(*lua.LTable); ok {
			if s, ok := t.RawGetString("err").(lua.LString); ok {
				obj = s
			}
		}
		L.Push(lua.LFalse)
		L.Push(obj)
		return 2
	}
	L.Insert(lua.LTrue, 1)
	return L.GetTop()
}

// MemoryStats is what INFO memory reports about scripting.
type MemoryStats struct {
	Scripts, ScriptBytes       int   // cached EVAL scripts and their source bytes
	Libraries, Functions       int   // loaded libraries and their functions
	LibraryBytes               int   // the libraries' code
	EvalStates, FunctionStates int   // Lua states in the pools
	EvalVM, FunctionVM         int64 // estimated bytes of those states
}

// stateBytes estimates the memory of one pooled Lua state: its registry,
// call stack and the sandbox's tables (gopher-lua does not count what it
// allocates).
const stateBytes = 48 << 10

// MemoryStats returns the scripting memory statistics.
func (e *Engine) MemoryStats() MemoryStats {
	var st MemoryStats
	e.scripts.Load().Range(func(_, s any) bool {
		st.Scripts++
		st.ScriptBytes += len(s.(*Script).Body)
		return true
	})
	e.mu.Lock()
	for _, l := range e.funcs.libs {
		st.Libraries++
		st.Functions += len(l.Functions)
		st.LibraryBytes += len(l.Code)
	}
	e.mu.Unlock()
	for i := range e.evalPools {
		p := &e.evalPools[i]
		p.mu.Lock()
		st.EvalStates += p.states
		p.mu.Unlock()
		p = &e.funcPools[i]
		p.mu.Lock()
		st.FunctionStates += p.states
		p.mu.Unlock()
	}
	st.EvalVM = int64(st.EvalStates) * stateBytes
	st.FunctionVM = int64(st.FunctionStates) * stateBytes
	return st
}
