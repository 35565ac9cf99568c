package lua

// HotKV patch 23: the VM's type errors name the variable as C Lua 5.1
// does ("attempt to call field 'f' (a nil value)"). This is ldebug.c's
// luaG_typeerror, getobjname and symbexec over gopher-lua's bytecode,
// which is Lua 5.1's with a few extra opcodes (MOVEN, GETTABLEKS,
// SETTABLEKS, NOP).

import "fmt"

// typeError is luaG_typeerror: "attempt to <op> <kind> '<name>' (a <type>
// value)" when reg, the registry index of v in the running Lua function's
// frame (or -1: v is not in the frame), names a variable, "attempt to
// <op> a <type> value" otherwise.
func (ls *LState) typeError(v LValue, op string, reg int) {
	t := v.Type().String()
	if cf := ls.currentFrame; reg >= 0 && cf != nil && !cf.Fn.IsG && reg >= cf.LocalBase {
		if kind, name := getobjname(cf.Fn.Proto, cf.Pc-1, reg-cf.LocalBase); kind != "" {
			ls.RaiseError("%s", fmt.Sprintf("attempt to %s %s '%s' (a %s value)", op, kind, name, t))
		}
	}
	ls.RaiseError("%s", "attempt to "+op+" a "+t+" value")
}

// instReg is the registry index of v when it is the operand of the
// running instruction that an "index" (the table operand of GETTABLE,
// SETTABLE, SELF) or "call" error (CALL, TAILCALL, TFORLOOP's copy of
// the iterator) is about, -1 otherwise: v came from a metatable's
// __index chain, or a Go function is running. C Lua's isinstack.
func (ls *LState) instReg(v LValue, call bool) int {
	cf := ls.currentFrame
	if cf == nil || cf.Fn.IsG || cf.Pc <= 0 || cf.Pc > len(cf.Fn.Proto.Code) {
		return -1
	}
	inst := cf.Fn.Proto.Code[cf.Pc-1]
	reg := -1
	switch opGetOpCode(inst) {
	case OP_GETTABLE, OP_GETTABLEKS, OP_SELF:
		if !call {
			reg = opGetArgB(inst)
		}
	case OP_SETTABLE, OP_SETTABLEKS:
		if !call {
			reg = opGetArgA(inst)
		}
	case OP_CALL, OP_TAILCALL:
		if call {
			reg = opGetArgA(inst)
		}
	case OP_TFORLOOP:
		if call {
			reg = opGetArgA(inst) + 3
		}
	}
	if reg < 0 {
		return -1
	}
	reg += cf.LocalBase
	if reg >= len(ls.reg.array) || !sameValue(ls.reg.array[reg], v) {
		return -1
	}
	return reg
}

// sameValue: a and b are the same value (a NaN is itself).
func sameValue(a, b LValue) bool {
	if x, ok := a.(LNumber); ok {
		y, ok := b.(LNumber)
		return ok && (x == y || x != x && y != y)
	}
	return a == b
}

// rkReg is the registry index of operand RK(x) of the running
// instruction, -1 for a constant.
func (ls *LState) rkReg(x int) int {
	if opIsK(x) {
		return -1
	}
	return ls.currentFrame.LocalBase + x
}

// callError raises "attempt to call ..." for a value that is neither a
// function nor has a __call metamethod.
func (ls *LState) callError(v LValue) {
	ls.typeError(v, "call", ls.instReg(v, true))
}

// indexError raises "attempt to index ..."; first says v is the object
// the running instruction indexed, not one of its __index values.
func (ls *LState) indexError(v LValue, first bool) {
	reg := -1
	if first {
		reg = ls.instReg(v, false)
	}
	ls.typeError(v, "index", reg)
}

// funcNameC is ldebug.c's getfuncname: how the instruction that called
// frame fr names the function, "" when it was not called from Lua (or is
// a Lua function reached by a tail call).
func (ls *LState) funcNameC(fr *callFrame) (string, string) {
	if fr == nil || (!fr.Fn.IsG && fr.TailCall > 0) {
		return "", ""
	}
	caller := fr.Parent
	if caller == nil || caller.Fn.IsG || caller.Pc <= 0 || caller.Pc > len(caller.Fn.Proto.Code) {
		return "", ""
	}
	inst := caller.Fn.Proto.Code[caller.Pc-1]
	switch opGetOpCode(inst) {
	case OP_CALL, OP_TAILCALL, OP_TFORLOOP:
		return getobjname(caller.Fn.Proto, caller.Pc-1, opGetArgA(inst))
	}
	return "", ""
}

// getobjname is ldebug.c's: the kind ("local", "global", "field",
// "upvalue", "method") and name of register reg at instruction pc, or ""
// when no useful name is found.
func getobjname(p *FunctionProto, pc, reg int) (string, string) {
	for depth := 0; depth < 256; depth++ { // MOVE chains go down
		if name := localNameC(p, reg+1, pc); name != "" {
			return "local", name
		}
		i := symbexec(p, pc, reg)
		switch opGetOpCode(i) {
		case OP_GETGLOBAL:
			return "global", p.Constants[opGetArgBx(i)].String()
		case OP_MOVE, OP_MOVEN:
			a, b := opGetArgA(i), opGetArgB(i)
			if b < a {
				reg = b // the name of the moved register
				continue
			}
		case OP_GETTABLE, OP_GETTABLEKS:
			return "field", kname(p, opGetArgC(i))
		case OP_GETUPVAL:
			name := "?"
			if u := opGetArgB(i); u < len(p.DbgUpvalues) {
				name = p.DbgUpvalues[u]
			}
			return "upvalue", name
		case OP_SELF:
			return "method", kname(p, opGetArgC(i))
		}
		return "", ""
	}
	return "", ""
}

// kname: a constant string key names a field or method, anything else
// is "?".
func kname(p *FunctionProto, c int) string {
	if opIsK(c) {
		if s, ok := p.Constants[opIndexK(c)].(LString); ok {
			return string(s)
		}
	}
	return "?"
}

// localNameC is luaF_getlocalname: the name of the n-th local active at
// pc. gopher-lua's EndPc is the last instruction of the scope (C Lua's
// endpc is the one after it).
func localNameC(p *FunctionProto, n, pc int) string {
	for _, lv := range p.DbgLocals {
		if lv.StartPc > pc {
			break
		}
		if pc <= lv.EndPc {
			n--
			if n == 0 {
				return lv.Name
			}
		}
	}
	return ""
}

// symbexec is ldebug.c's symbolic execution, with reg given: the
// instruction before lastpc that last changed register reg, following
// forward jumps that do not pass lastpc, or the final RETURN (a neutral
// instruction) when none did.
func symbexec(p *FunctionProto, lastpc, reg int) uint32 {
	code := p.Code
	last := len(code) - 1
	if lastpc > len(code) {
		lastpc = len(code)
	}
	for pc := 0; pc < lastpc; pc++ {
		i := code[pc]
		op := opGetOpCode(i)
		if op > opCodeMax {
			return code[last]
		}
		a := opGetArgA(i)
		if opProps[op].SetRegA && a == reg {
			last = pc
		}
		switch op {
		case OP_LOADNIL:
			if a <= reg && reg <= opGetArgB(i) {
				last = pc
			}
		case OP_SELF:
			if reg == a+1 {
				last = pc
			}
		case OP_TFORLOOP:
			if reg >= a+2 {
				last = pc
			}
		case OP_FORLOOP, OP_FORPREP, OP_JMP:
			// NOP (a JMP of distance 0) keeps its label in sBx: neutral.
			b := opGetArgSbx(i)
			if dest := pc + 1 + b; pc < dest && dest <= lastpc {
				pc += b
			}
		case OP_CALL, OP_TAILCALL:
			if reg >= a {
				last = pc
			}
		case OP_SETLIST:
			if opGetArgC(i) == 0 {
				pc++
			}
		case OP_CLOSURE:
			if bx := opGetArgBx(i); bx < len(p.FunctionPrototypes) {
				pc += int(p.FunctionPrototypes[bx].NumUpvalues) // pseudo-instructions
			}
		}
	}
	return code[last]
}
