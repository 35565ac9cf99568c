package lua

func OpenCoroutine(L *LState) int {
	// TODO: Tie module name to contents of linit.go?
	mod := L.RegisterModule(CoroutineLibName, coFuncs)
	L.Push(mod)
	return 1
}

var coFuncs = map[string]LGFunction{
	"create":  coCreate,
	"yield":   coYield,
	"resume":  coResume,
	"running": coRunning,
	"status":  coStatus,
	"wrap":    coWrap,
}

func coCreate(L *LState) int {
	// HotKV patch: as C Lua's luaB_cocreate, a Lua function only.
	fn, ok := L.Get(1).(*LFunction)
	if !ok || fn.IsG {
		L.ArgError(1, "Lua function expected")
	}
	newthread, _ := L.NewThread()
	base := 0
	newthread.stack.Push(callFrame{
		Fn:         fn,
		Pc:         0,
		Base:       base,
		LocalBase:  base + 1,
		ReturnBase: base,
		NArgs:      0,
		NRet:       MultRet,
		Parent:     nil,
		TailCall:   0,
	})
	L.Push(newthread)
	return 1
}

// maxCCalls is C Lua 5.1's LUAI_MAXCCALLS: how deep coroutines may
// resume one another (HotKV patch).
const maxCCalls = 200

func coYield(L *LState) int {
	// HotKV patch: as C Lua, a coroutine cannot yield from inside a Go
	// function's call into Lua (pcall, a gsub or sort callback, a
	// metamethod), nor the main thread; upstream unwound the Go call in
	// the middle.
	if L.nCcalls > L.baseCcalls || L.Parent == nil {
		L.raiseError(0, "attempt to yield across metamethod/C-call boundary")
	}
	return -1
}

// checkCoroutine is luaB_coresume's and luaB_costatus's check.
func checkCoroutine(L *LState) *LState {
	th, ok := L.Get(1).(*LState)
	if !ok {
		L.ArgError(1, "coroutine expected")
	}
	return th
}

func coResume(L *LState) int {
	th := checkCoroutine(L) // HotKV patch: C Lua's message
	// HotKV patch: C Lua's auxresume and costatus. Upstream resumed a
	// "normal" coroutine (one that resumed the running one), which then
	// resumed itself in a loop until Go's stack overflowed, a fatal error.
	msg := ""
	switch {
	case th == L || L.G.CurrentThread == th:
		msg = "cannot resume running coroutine"
	case th.Dead:
		msg = "cannot resume dead coroutine"
	case th.Parent != nil || th == L.G.MainThread || th.stack.IsEmpty():
		msg = "cannot resume normal coroutine"
		if th.stack.IsEmpty() {
			msg = "cannot resume dead coroutine"
		}
	case L.nCcalls >= maxCCalls:
		msg = "C stack overflow"
	}
	if msg != "" {
		if th.wrapped {
			L.RaiseError(msg)
			return 0
		}
		L.Push(LFalse)
		L.Push(LString(msg))
		return 2
	}
	th.Parent = L
	L.G.CurrentThread = th
	th.nCcalls = L.nCcalls + 1
	th.baseCcalls = th.nCcalls
	if !th.isStarted() {
		cf := th.stack.Last()
		th.currentFrame = cf
		th.SetTop(0)
		nargs := L.GetTop() - 1
		L.XMoveTo(th, nargs)
		cf.NArgs = nargs
		th.initCallFrame(cf)
		th.Panic = panicWithoutTraceback
	} else {
		nargs := L.GetTop() - 1
		L.XMoveTo(th, nargs)
	}
	top := L.GetTop()
	threadRun(th)
	// HotKV patch: a resume counts as an instruction of the resumer, so
	// that a hook that raises on every instruction (after SCRIPT KILL)
	// stops a resumer that does nothing after it (return
	// coroutine.resume(co)).
	L.CheckHook()
	return L.GetTop() - top
}

func coRunning(L *LState) int {
	if L.G.MainThread == L {
		L.Push(LNil)
		return 1
	}
	L.Push(L.G.CurrentThread)
	return 1
}

func coStatus(L *LState) int {
	L.Push(LString(L.Status(checkCoroutine(L)))) // HotKV patch: C Lua's message
	return 1
}

func wrapaux(L *LState) int {
	L.Insert(L.ToThread(UpvalueIndex(1)), 1)
	return coResume(L)
}

func coWrap(L *LState) int {
	coCreate(L)
	L.CheckThread(L.GetTop()).wrapped = true
	v := L.Get(L.GetTop())
	L.Pop(1)
	L.Push(L.NewClosure(wrapaux, v))
	return 1
}

//
