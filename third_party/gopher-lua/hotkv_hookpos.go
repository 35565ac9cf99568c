package lua

// HookPosition reports where the running thread is, for a count hook set
// with SetCountHook(hook, 1) that plays C Lua's line hook (HotKV patch
// 27, SCRIPT DEBUG): the prototype of the Lua function running (nil when
// a Go function runs or no frame is), the index of the instruction it is
// executing (the hook runs once it has been fetched) and the depth of its
// call frame, which tells a return to a caller from a new call.
func (ls *LState) HookPosition() (proto *FunctionProto, pc int, depth int) {
	cf := ls.currentFrame
	if cf == nil || cf.Fn == nil || cf.Fn.IsG || cf.Pc < 1 {
		return nil, 0, 0
	}
	return cf.Fn.Proto, cf.Pc - 1, cf.Idx
}

// DebugLocal is GetLocal with C Lua's luaF_getlocalname rule, for the
// debugger's "print" (HotKV patch 27): a local is active from its start
// instruction (startpc <= pc) to its block's last instruction (EndPc
// here is that instruction, C Lua's endpc the one after it); upstream's
// LocalName misses both ends. It reports named locals only: "" after
// the last.
func (ls *LState) DebugLocal(dbg *Debug, no int) (string, LValue) {
	frame := dbg.frame
	if frame == nil || frame.Fn == nil || frame.Fn.IsG {
		return "", LNil
	}
	p := frame.Fn.Proto
	pc := frame.Pc - 1
	n := no
	for i := 0; i < len(p.DbgLocals) && p.DbgLocals[i].StartPc <= pc; i++ {
		if pc <= p.DbgLocals[i].EndPc {
			n--
			if n == 0 {
				return p.DbgLocals[i].Name, ls.reg.Get(frame.LocalBase + no - 1)
			}
		}
	}
	return "", LNil
}
