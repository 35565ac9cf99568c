package script

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/resp"
	lua "github.com/yuin/gopher-lua"
)

// Functions (FUNCTION LOAD, FCALL): a library is Lua code with a
// "#!lua name=<lib>" first line that registers functions with
// redis.register_function. Each pooled function state runs a library's
// code once, the first time it calls one of its functions, to get the
// callbacks; the registry below is what every state agrees on.

// Library is a loaded function library.
type Library struct {
	Name      string
	Code      string
	Functions []*Function // in registration order
	proto     *lua.FunctionProto
}

// Function is one registered function.
type Function struct {
	Name        string
	Description string
	Flags       Flags
	Library     *Library
}

// functions is the engine's library registry.
type functions struct {
	libs map[string]*Library
	// funcs is keyed by foldName(name): function names are
	// case-insensitive, as Redis's functionDictType (dictSdsKeyCaseCompare).
	funcs map[string]*Function
	gen   atomic.Uint64 // bumped on every change; states drop stale libraries
	// view is funcs for FCALL's lookups, replaced on every change so
	// that readers take no lock.
	view atomic.Pointer[map[string]*Function]
}

// loadTimeout bounds a library's load run, as Redis's 500 ms.
const loadTimeout = 500 * time.Millisecond

// libraryLoad collects what a library registers while its code runs.
type libraryLoad struct {
	lib       *Library
	collect   bool // record the functions in lib (the first load)
	callbacks map[string]*lua.LFunction
	deadline  time.Time
}

// LoadLibrary compiles and runs code to register its functions and adds
// the library (FUNCTION LOAD). With replace, a library of the same name is
// replaced. Errors are Redis's texts without the "ERR " prefix.
func (e *Engine) LoadLibrary(code string, replace bool) (string, error) {
	// As Redis, a name in use fails before the code runs.
	name, err := libraryName(code)
	if err != nil {
		return "", err
	}
	e.mu.Lock()
	exists := e.funcs.libs[name] != nil
	e.mu.Unlock()
	if exists && !replace {
		return "", fmt.Errorf("Library '%s' already exists", name)
	}
	lib, err := e.compileLibrary(code)
	if err != nil {
		return "", err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.funcs.add([]*Library{lib}, replace, false); err != nil {
		return "", err
	}
	return lib.Name, nil
}

// compileLibrary parses the metadata line, compiles the code and runs it
// once in a function state to learn its functions.
func (e *Engine) compileLibrary(code string) (*Library, error) {
	name, err := libraryName(code)
	if err != nil {
		return nil, err
	}
	// The metadata line is skipped, its newline kept for line numbers.
	skip := strings.IndexByte(code, '\n')
	if skip < 0 {
		skip = len(code)
	}
	proto, err := compile(code[skip:], "@user_function")
	if err != nil {
		return nil, fmt.Errorf("Error compiling function: %s", err)
	}
	lib := &Library{Name: name, Code: code, proto: proto}
	p := &e.funcPools[0]
	v := p.take(e, newFunctionVM)
	defer p.give(v)
	if _, err := v.instantiate(lib, true); err != nil {
		return nil, err
	}
	if len(lib.Functions) == 0 {
		return nil, errors.New("No functions registered")
	}
	return lib, nil
}

// libraryName reads the "#!<engine> name=<lib>" metadata line.
func libraryName(code string) (string, error) {
	if !strings.HasPrefix(code, "#!") {
		return "", errors.New("Missing library metadata")
	}
	line, _, _ := strings.Cut(code, "\n")
	parts, _, ok := resp.SplitArgs(nil, nil, []byte(line))
	if !ok || len(parts) == 0 {
		return "", errors.New("Invalid library metadata")
	}
	engine := string(parts[0][2:])
	if !strings.EqualFold(engine, "lua") {
		return "", fmt.Errorf("Engine '%s' not found", engine)
	}
	name := ""
	for _, p := range parts[1:] {
		v, ok := strings.CutPrefix(string(p), "name=")
		if !ok {
			return "", fmt.Errorf("Invalid metadata value given: %s", p)
		}
		if name != "" {
			return "", errors.New("Invalid metadata value, name argument was given multiple times")
		}
		name = v
	}
	if name == "" {
		return "", errors.New("Library name was not given")
	}
	if !validName(name) {
		return "", errors.New(errBadName)
	}
	return name, nil
}

const errBadName = "Library names can only contain letters, numbers, or underscores(_) and must be at least one character long"

func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// add registers libs (all or none). With replace, libraries of the same
// names are replaced; otherwise a name in use is an error. A function name
// may not be used by another library.
func (f *functions) add(libs []*Library, replace, restore bool) error {
	if f.libs == nil {
		f.libs = make(map[string]*Library)
		f.funcs = make(map[string]*Function)
	}
	for _, lib := range libs {
		old := f.libs[lib.Name]
		if old != nil && !replace {
			if restore { // Redis's libraryJoin words it without quotes
				return fmt.Errorf("Library %s already exists", lib.Name)
			}
			return fmt.Errorf("Library '%s' already exists", lib.Name)
		}
		for _, fn := range lib.Functions {
			if other := f.funcs[foldName(fn.Name)]; other != nil && other.Library != old {
				return fmt.Errorf("Function %s already exists", fn.Name)
			}
		}
	}
	for _, lib := range libs {
		if old := f.libs[lib.Name]; old != nil {
			f.remove(old)
		}
		f.libs[lib.Name] = lib
		for _, fn := range lib.Functions {
			// Names of one library may differ only in case ("xx" and
			// "XX"); as Redis's dictAdd, the first one keeps the entry.
			if k := foldName(fn.Name); f.funcs[k] == nil {
				f.funcs[k] = fn
			}
		}
	}
	f.changed()
	return nil
}

// changed publishes a change of the registry (under the engine's mu).
func (f *functions) changed() {
	view := make(map[string]*Function, len(f.funcs))
	for name, fn := range f.funcs {
		view[name] = fn
	}
	f.view.Store(&view)
	f.gen.Add(1)
}

func (f *functions) remove(lib *Library) {
	delete(f.libs, lib.Name)
	for _, fn := range lib.Functions {
		delete(f.funcs, foldName(fn.Name))
	}
	f.changed()
}

// DeleteLibrary removes a library (FUNCTION DELETE).
func (e *Engine) DeleteLibrary(name string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	lib := e.funcs.libs[name]
	if lib == nil {
		return errors.New("Library not found")
	}
	e.funcs.remove(lib)
	return nil
}

// FlushLibraries removes every library (FUNCTION FLUSH).
func (e *Engine) FlushLibraries() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.funcs.libs, e.funcs.funcs = nil, nil
	e.funcs.changed()
}

// Libraries returns the loaded libraries sorted by name.
func (e *Engine) Libraries() []*Library {
	e.mu.Lock()
	defer e.mu.Unlock()
	libs := make([]*Library, 0, len(e.funcs.libs))
	for _, l := range e.funcs.libs {
		libs = append(libs, l)
	}
	sort.Slice(libs, func(i, j int) bool { return libs[i].Name < libs[j].Name })
	return libs
}

// FunctionCount returns the number of registered functions, counted per
// library as Redis's engine stats count them.
func (e *Engine) FunctionCount() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, l := range e.funcs.libs {
		n += len(l.Functions)
	}
	return n
}

// RestoreLibraries loads libraries from their codes (FUNCTION RESTORE):
// policy "APPEND" fails on any name in use, "REPLACE" replaces libraries
// of the same names, "FLUSH" removes all libraries first. Nothing changes
// when one of them fails.
func (e *Engine) RestoreLibraries(codes []string, policy string) error {
	libs := make([]*Library, 0, len(codes))
	for _, code := range codes {
		lib, err := e.compileLibrary(code)
		if err != nil {
			return err
		}
		libs = append(libs, lib)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if policy == "FLUSH" {
		libs0, funcs0 := e.funcs.libs, e.funcs.funcs
		e.funcs.libs, e.funcs.funcs = nil, nil
		if err := e.funcs.add(libs, false, true); err != nil {
			e.funcs.libs, e.funcs.funcs = libs0, funcs0
			return err
		}
		return nil
	}
	return e.funcs.add(libs, policy == "REPLACE", true)
}

// Function returns the registered function named name, or nil. Names
// are case-insensitive (FCALL TEST finds "test"), as in Redis.
func (e *Engine) Function(name string) *Function {
	if view := e.funcs.view.Load(); view != nil {
		return (*view)[foldName(name)]
	}
	return nil
}

// foldName is the key of a function name: ASCII letters in lower case,
// as strcasecmp compares them (no Unicode folding: "\u212a" is not "k").
func foldName(name string) string {
	for i := 0; i < len(name); i++ {
		if c := name[i]; 'A' <= c && c <= 'Z' {
			b := []byte(name)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return name
}

// FCall runs fn with run's keys and arguments and writes its reply to w.
func (e *Engine) FCall(fn *Function, run *Run, w *resp.Writer) {
	p := &e.funcPools[run.Shard%poolShards]
	v := p.take(e, newFunctionVM)
	defer p.give(v)
	cbs, err := v.instantiate(fn.Library, false)
	if err != nil {
		w.Error("ERR " + err.Error())
		return
	}
	cb := cbs[fn.Name]
	L := v.L
	keys, args := L.CreateTable(len(run.Keys), 0), L.CreateTable(len(run.Args), 0)
	fillArrays(L, [2]*lua.LTable{keys, args}, [2][][]byte{run.Keys, run.Args})
	L.Push(keys)
	L.Push(args)
	v.invoke(run, cb, 2, fn.Name, w)
}

// newFunctionVM builds a function state, as function_lua.c does: the
// sandbox of scripts (without the debugger's and EVAL's extras), and an
// empty read-only globals table whose metatable points at the real
// globals while functions run, or at the library API (redis with
// register_function, log and the version) while a library loads.
func newFunctionVM(e *Engine) *vm {
	v := newVM(e)
	L := v.L
	real := L.G.Global
	real.SetReadOnly(false)
	for _, k := range []string{"__redis__err__handler", "KEYS", "ARGV"} {
		real.RawSetString(k, lua.LNil)
	}
	redis := real.RawGetString("redis").(*lua.LTable)
	redis.SetReadOnly(false)
	for _, k := range []string{"breakpoint", "debug", "replicate_commands"} {
		redis.RawSetString(k, lua.LNil)
	}
	redis.SetReadOnly(true)
	real.SetReadOnly(true)

	api := L.NewTable()
	apiRedis := L.NewTable()
	apiRedis.RawSetString("register_function", L.NewFunction(v.registerFunction))
	for _, k := range []string{"log", "LOG_DEBUG", "LOG_VERBOSE", "LOG_NOTICE", "LOG_WARNING", "REDIS_VERSION", "REDIS_VERSION_NUM"} {
		apiRedis.RawSetString(k, redis.RawGetString(k))
	}
	apiRedis.Metatable = real.Metatable // the nonexistent-global error
	api.RawSetString("redis", apiRedis)
	api.Metatable = real.Metatable
	protect(api)

	env := L.NewTable()
	envMeta := L.NewTable()
	envMeta.RawSetString("__index", real)
	env.Metatable = envMeta
	env.SetReadOnly(true)
	v.fenv, v.fenvMeta, v.fapi, v.freal = env, envMeta, api, real
	v.libs = make(map[*Library]map[string]*lua.LFunction)
	return v
}

// instantiate returns this state's callbacks for lib, running the
// library's code when the state has not yet. With collect, it fills
// lib.Functions from the registrations (FUNCTION LOAD).
func (v *vm) instantiate(lib *Library, collect bool) (map[string]*lua.LFunction, error) {
	e := v.e
	if gen := e.funcs.gen.Load(); gen != v.libsGen {
		// Libraries were replaced or deleted: forget the stale ones.
		e.mu.Lock()
		for l := range v.libs {
			if e.funcs.libs[l.Name] != l {
				delete(v.libs, l)
			}
		}
		e.mu.Unlock()
		v.libsGen = gen
	}
	if cbs := v.libs[lib]; cbs != nil && !collect {
		return cbs, nil
	}
	L := v.L
	ld := &libraryLoad{lib: lib, collect: collect, callbacks: make(map[string]*lua.LFunction), deadline: time.Now().Add(loadTimeout)}
	v.loading = ld
	v.fenvMeta.SetReadOnly(false)
	v.fenvMeta.RawSetString("__index", v.fapi)
	v.fenvMeta.SetReadOnly(true)
	defer func() {
		v.loading = nil
		v.fenvMeta.SetReadOnly(false)
		v.fenvMeta.RawSetString("__index", v.freal)
		v.fenvMeta.SetReadOnly(true)
		L.SetCountHook(nil, 0)
		L.SetTop(0)
	}()
	fn := L.NewFunctionFromProto(lib.proto)
	fn.Env = v.fenv
	L.SetCountHook(func(L *lua.LState) {
		if time.Now().After(ld.deadline) {
			L.Error(errorTable(L, "FUNCTION LOAD timeout"), 0)
		}
	}, hookEvery)
	L.Push(fn)
	if err := L.PCall(0, 0, nil); err != nil {
		msg := err.Error()
		if ae, ok := err.(*lua.ApiError); ok {
			msg = errorMessage(ae.Object)
		}
		return nil, fmt.Errorf("Error registering functions: %s", msg)
	}
	v.libs[lib] = ld.callbacks
	return ld.callbacks, nil
}

// errorMessage is luaExtractErrorInformation's msg: a table's err field,
// or "ERR " and the string.
func errorMessage(obj lua.LValue) string {
	if t, ok := obj.(*lua.LTable); ok {
		return luaString(t.RawGetString("err"))
	}
	return "ERR " + luaString(obj)
}

// registerFunction is redis.register_function, in its two forms:
// (name, callback) and {function_name=, callback=, flags=, description=}.
func (v *vm) registerFunction(L *lua.LState) int {
	ld := v.loading
	if ld == nil {
		return raise(L, "redis.register_function can only be called on FUNCTION LOAD command")
	}
	var (
		name, desc string
		cb         *lua.LFunction
		flags      Flags
	)
	switch L.GetTop() {
	case 1:
		t, ok := L.Get(1).(*lua.LTable)
		if !ok {
			return raise(L, "calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments).")
		}
		var bad string
		t.ForEach(func(k, val lua.LValue) {
			if bad != "" {
				return
			}
			ks, ok := k.(lua.LString)
			if !ok {
				bad = "named argument key given to redis.register_function is not a string"
				return
			}
			switch string(ks) {
			case "function_name":
				if isString(val) {
					name = luaString(val)
				} else {
					bad = "function_name argument given to redis.register_function must be a string"
				}
			case "description":
				if isString(val) {
					desc = luaString(val)
				} else {
					bad = "description argument given to redis.register_function must be a string"
				}
			case "callback":
				if f, ok := val.(*lua.LFunction); ok {
					cb = f
				} else {
					bad = "callback argument given to redis.register_function must be a function"
				}
			case "flags":
				ft, ok := val.(*lua.LTable)
				if !ok {
					bad = "flags argument to redis.register_function must be a table representing function flags"
					return
				}
				ft.ForEach(func(_, fv lua.LValue) {
					s, ok := fv.(lua.LString)
					f, known := ParseFlag(string(s))
					if !ok || !known {
						bad = "unknown flag given"
						return
					}
					flags |= f
				})
			default:
				bad = "unknown argument given to redis.register_function"
			}
		})
		if bad != "" {
			return raise(L, bad)
		}
		if name == "" {
			return raise(L, "redis.register_function must get a function name argument")
		}
		if cb == nil {
			return raise(L, "redis.register_function must get a callback argument")
		}
	case 2:
		name = luaString(L.Get(1))
		if name == "" && L.Get(1).Type() != lua.LTString {
			return raise(L, "first argument to redis.register_function must be a string")
		}
		f, ok := L.Get(2).(*lua.LFunction)
		if !ok {
			return raise(L, "second argument to redis.register_function must be a function")
		}
		cb = f
	default:
		return raise(L, "wrong number of arguments to redis.register_function")
	}
	if !validName(name) {
		return raise(L, errBadName)
	}
	if _, dup := ld.callbacks[name]; dup {
		return raise(L, "Function already exists in the library")
	}
	ld.callbacks[name] = cb
	if !ld.collect {
		return 0
	}
	ld.lib.Functions = append(ld.lib.Functions, &Function{Name: name, Description: desc, Flags: flags, Library: ld.lib})
	return 0
}

// isString is lua_isstring: strings and numbers.
func isString(v lua.LValue) bool {
	t := v.Type()
	return t == lua.LTString || t == lua.LTNumber
}
