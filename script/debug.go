package script

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/hotkv/hotkv/resp"
	lua "github.com/yuin/gopher-lua"
)

// Redis's Lua debugger (LDB, eval.c), synchronous mode (SCRIPT DEBUG
// SYNC): the script runs under a hook that stops at its lines, sends the
// debugger's logs to the client and reads its commands. The Lua side is
// here; the client's connection is the server's, behind Debugger.

// Debugger is the client side of a debugging session.
type Debugger interface {
	// Send writes logs to the client as ldbSendLogs does: one RESP array
	// of simple strings.
	Send(logs []string)
	// Read waits for the client's input and returns what arrived; ok is
	// false once the client is gone (the script then runs on without
	// stopping).
	Read(buf []byte) (n int, ok bool)
	// Timeout is how long the script may run between two stops before
	// the debugger stops it ("timeout reached, infinite loop?"):
	// busy-reply-threshold, or 5 seconds when that is 0.
	Timeout() time.Duration
}

const (
	ldbBreakpointsMax = 64  // LDB_BREAKPOINTS_MAX
	ldbMaxLenDefault  = 256 // LDB_MAX_LEN_DEFAULT
	ldbMaxValuesDepth = 10  // LDB_MAX_VALUES_DEPTH (LUA_MINSTACK/2)
	ldbCountEvery     = 100000
	userScriptSource  = "@user_script"
)

// ldb is a debugging session's state (Redis's struct ldbState).
type ldb struct {
	dbg         Debugger
	src         []string
	logs        []string
	bp          []int
	step, luabp bool
	currentline int
	cbuf        []byte
	maxlen      int
	hintSent    bool
	start       time.Time
	count       int // instructions since the last count event
	polled      int // instructions since the last Interrupt poll
	// lastPc and lastProto are, per call depth, the instruction the
	// hook saw last: a new line, a jump back or a new call is a line
	// event, as C Lua's traceexec decides.
	lastPc    []int
	lastProto []*lua.FunctionProto
	inRepl    bool
}

func newLdb(dbg Debugger, body string) *ldb {
	body = strings.TrimRight(body, "\r\n")
	return &ldb{dbg: dbg, src: strings.Split(body, "\n"), step: true, maxlen: ldbMaxLenDefault, start: time.Now()}
}

func (d *ldb) log(s string) { d.logs = append(d.logs, s) }

// logMaxLen is ldbLogWithMaxLen.
func (d *ldb) logMaxLen(s string) {
	trimmed := false
	if d.maxlen > 0 && len(s) > d.maxlen {
		s = s[:d.maxlen] + " ..."
		trimmed = true
	}
	d.log(s)
	if trimmed && !d.hintSent {
		d.hintSent = true
		d.log("<hint> The above reply was trimmed. Use 'maxlen 0' to disable trimming.")
	}
}

func (d *ldb) send() {
	logs := d.logs
	d.logs = nil
	d.dbg.Send(logs)
}

// SendLogs formats logs as ldbSendLogs does.
func SendLogs(dst []byte, logs []string) []byte {
	dst = append(dst, '*')
	dst = strconv.AppendInt(dst, int64(len(logs)), 10)
	dst = append(dst, '\r', '\n')
	for _, l := range logs {
		dst = append(dst, '+')
		for i := 0; i < len(l); i++ {
			c := l[i]
			if c == '\r' || c == '\n' {
				c = ' '
			}
			dst = append(dst, c)
		}
		dst = append(dst, '\r', '\n')
	}
	return dst
}

func (d *ldb) sourceLine(line int) string {
	if line < 1 || line > len(d.src) {
		return "<out of range source code line>"
	}
	return d.src[line-1]
}

func (d *ldb) isBreakpoint(line int) bool {
	for _, b := range d.bp {
		if b == line {
			return true
		}
	}
	return false
}

func (d *ldb) addBreakpoint(line int) bool {
	if line <= 0 || line > len(d.src) {
		return false
	}
	if !d.isBreakpoint(line) && len(d.bp) != ldbBreakpointsMax {
		d.bp = append(d.bp, line)
		return true
	}
	return false
}

func (d *ldb) delBreakpoint(line int) bool {
	for i, b := range d.bp {
		if b == line {
			d.bp = append(d.bp[:i], d.bp[i+1:]...)
			return true
		}
	}
	return false
}

// logSourceLine is ldbLogSourceLine.
func (d *ldb) logSourceLine(line int) {
	bp, cur := d.isBreakpoint(line), d.currentline == line
	prefix := "   "
	switch {
	case cur && bp:
		prefix = "->#"
	case cur:
		prefix = "-> "
	case bp:
		prefix = "  #"
	}
	d.log(fmt.Sprintf("%s%-3d %s", prefix, line, d.sourceLine(line)))
}

func (d *ldb) list(around, context int) {
	for j := 1; j <= len(d.src); j++ {
		if around != 0 && abs(around-j) > context {
			continue
		}
		d.logSourceLine(j)
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// catValue is ldbCatStackValueRec.
func catValue(b []byte, v lua.LValue, level int) []byte {
	if level == ldbMaxValuesDepth {
		return append(b, "<max recursion level reached! Nested table?>"...)
	}
	level++
	switch v := v.(type) {
	case lua.LString:
		return resp.AppendRepr(b, []byte(v))
	case lua.LBool:
		if v {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case lua.LNumber:
		return append(b, fmtG(float64(v))...)
	case *lua.LNilType:
		return append(b, "nil"...)
	case *lua.LTable:
		expected, isArray := 1, true
		var repr1, repr2 []byte
		v.ForEach(func(k, val lua.LValue) {
			if n, ok := k.(lua.LNumber); isArray && (!ok || float64(n) != float64(expected)) {
				isArray = false
			}
			repr1 = catValue(repr1, val, level)
			repr1 = append(repr1, "; "...)
			repr2 = append(repr2, '[')
			repr2 = catValue(repr2, k, level)
			repr2 = append(repr2, "]="...)
			repr2 = catValue(repr2, val, level)
			repr2 = append(repr2, "; "...)
			expected++
		})
		if len(repr1) > 0 {
			repr1 = repr1[:len(repr1)-2]
		}
		if len(repr2) > 0 {
			repr2 = repr2[:len(repr2)-2]
		}
		b = append(b, '{')
		if isArray {
			b = append(b, repr1...)
		} else {
			b = append(b, repr2...)
		}
		return append(b, '}')
	case *lua.LFunction:
		return fmt.Appendf(b, "\"function@%p\"", v)
	case *lua.LUserData:
		return fmt.Appendf(b, "\"userdata@%p\"", v)
	case *lua.LState:
		return fmt.Appendf(b, "\"thread@%p\"", v)
	}
	return append(b, "\"<unknown-lua-type>\""...)
}

// fmtG is C's "%g".
func fmtG(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	return strconv.FormatFloat(f, 'g', 6, 64)
}

func (d *ldb) logValue(prefix string, v lua.LValue) {
	d.logMaxLen(string(catValue([]byte(prefix), v, 0)))
}

// logRedisReply is ldbLogRedisReply.
func (d *ldb) logRedisReply(reply []byte) {
	b := []byte("<reply> ")
	b, _ = protocolToHuman(b, reply)
	d.logMaxLen(string(b))
}

// protocolToHuman is ldbRedisProtocolToHuman: it appends the reply at the
// start of r and returns what follows it.
func protocolToHuman(o, r []byte) ([]byte, []byte) {
	if len(r) == 0 {
		return o, r
	}
	line := func() ([]byte, []byte) {
		i := strings.Index(string(r), "\r\n")
		if i < 0 {
			return r[1:], nil
		}
		return r[1:i], r[i+2:]
	}
	count := func(l []byte) int {
		n, _ := strconv.Atoi(string(l))
		return n
	}
	switch r[0] {
	case ':':
		l, rest := line()
		return append(o, l...), rest
	case '$':
		l, rest := line()
		n := count(l)
		if n < 0 {
			return append(o, "NULL"...), rest
		}
		if n > len(rest) {
			n = len(rest)
		}
		o = resp.AppendRepr(o, rest[:n])
		rest = rest[n:]
		if len(rest) >= 2 {
			rest = rest[2:]
		}
		return o, rest
	case '+', '-':
		i := strings.Index(string(r), "\r")
		if i < 0 {
			i = len(r)
		}
		o = resp.AppendRepr(o, r[:i])
		if i+2 <= len(r) {
			return o, r[i+2:]
		}
		return o, nil
	case '*', '~':
		l, rest := line()
		n := count(l)
		if r[0] == '*' && n == -1 {
			return append(o, "NULL"...), rest
		}
		open, close := "[", "]"
		if r[0] == '~' {
			open, close = "~(", ")"
		}
		o = append(o, open...)
		for j := 0; j < n; j++ {
			o, rest = protocolToHuman(o, rest)
			if j != n-1 {
				o = append(o, ',')
			}
		}
		return append(o, close...), rest
	case '%':
		l, rest := line()
		n := count(l)
		o = append(o, '{')
		for j := 0; j < n; j++ {
			o, rest = protocolToHuman(o, rest)
			o = append(o, " => "...)
			o, rest = protocolToHuman(o, rest)
			if j != n-1 {
				o = append(o, ',')
			}
		}
		return append(o, '}'), rest
	case '_':
		_, rest := line()
		return append(o, "(null)"...), rest
	case '#':
		_, rest := line()
		if len(r) > 1 && r[1] == 't' {
			return append(o, "#true"...), rest
		}
		return append(o, "#false"...), rest
	case ',':
		l, rest := line()
		o = append(o, "(double) "...)
		return append(o, l...), rest
	}
	// Types Redis's debugger does not know (verbatim, big numbers,
	// attributes): as it does, nothing.
	return o, r
}

// parseCommand is ldbReplParseCommand: the command in the buffer, nil
// and no error while more input is needed, or "protocol error".
func (d *ldb) parseCommand() ([]string, string) {
	if len(d.cbuf) == 0 {
		return nil, ""
	}
	p := string(d.cbuf)
	i := strings.IndexByte(p, '*')
	if i < 0 {
		return nil, "protocol error"
	}
	p = p[i+1:]
	e := strings.Index(p, "\r\n")
	if e < 0 {
		return nil, ""
	}
	argc := atoi(p[:e])
	p = p[e+2:]
	if argc <= 0 || argc > 1024 {
		return nil, "protocol error"
	}
	argv := make([]string, 0, argc)
	for len(argv) < argc {
		if len(p) == 0 {
			return nil, ""
		}
		if p[0] != '$' {
			return nil, "protocol error"
		}
		e := strings.Index(p, "\r\n")
		if e < 0 {
			return nil, ""
		}
		slen := atoi(p[1:e])
		p = p[e+2:]
		if slen <= 0 || slen > 1024 {
			return nil, "protocol error"
		}
		if slen+2 > len(p) {
			return nil, ""
		}
		argv = append(argv, p[:slen])
		p = p[slen:]
		if p[0] != '\r' || p[1] != '\n' {
			return nil, "protocol error"
		}
		p = p[2:]
	}
	return argv, ""
}

// atoi is C's atoi: leading blanks, a sign, the digits that follow.
func atoi(s string) int {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	n := 0
	for i := 0; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		n = n*10 + int(s[i]-'0')
		if n > 1<<31 {
			break
		}
	}
	if neg {
		return -n
	}
	return n
}

// hook runs on every instruction of a debugged script: the interrupt
// poll (SCRIPT KILL, busy state), and luaLdbLineHook on line events of
// the user script and on count events (the timeout).
func (v *vm) ldbHook(L *lua.LState) {
	d := v.ldb
	if d.polled++; d.polled >= hookEvery {
		d.polled = 0
		if v.run != nil && v.run.Interrupt != nil && v.run.Interrupt() {
			L.SetCountHook(v.interruptHook, 1)
			L.Error(errorTable(L, "Script killed by user with SCRIPT KILL..."), 0)
		}
	}
	if d.inRepl {
		return
	}
	countEvent := false
	if d.count++; d.count >= ldbCountEvery {
		d.count = 0
		countEvent = true
	}
	proto, pc, depth := L.HookPosition()
	if proto == nil || proto.SourceName != userScriptSource {
		return
	}
	for len(d.lastPc) <= depth {
		d.lastPc = append(d.lastPc, 0)
		d.lastProto = append(d.lastProto, nil)
	}
	oldPc, oldProto := d.lastPc[depth], d.lastProto[depth]
	d.lastPc[depth], d.lastProto[depth] = pc, proto
	line := 0
	if pc < len(proto.DbgSourcePositions) {
		line = proto.DbgSourcePositions[pc]
	}
	lineEvent := pc == 0 || oldProto != proto || pc <= oldPc ||
		oldPc >= len(proto.DbgSourcePositions) || proto.DbgSourcePositions[oldPc] != line
	if !lineEvent && !countEvent {
		return
	}
	d.currentline = line
	bp := d.isBreakpoint(line) || d.luabp
	// C Lua calls the hook twice when both are due, the count event
	// first: it checks the timeout (stopping anyway when stepping or at
	// a breakpoint); the line event stops when stepping or at a
	// breakpoint. One stop here stands for both.
	timeout := false
	if countEvent && !d.step && !bp {
		limit := d.dbg.Timeout()
		if limit <= 0 {
			limit = 5 * time.Second
		}
		if time.Since(d.start) >= limit {
			timeout, d.step = true, true
		}
	}
	if !d.step && !bp {
		return
	}
	reason := "step over"
	if bp {
		reason = "break point"
		if d.luabp {
			reason = "redis.breakpoint() called"
		}
	} else if timeout {
		reason = "timeout reached, infinite loop?"
	}
	d.step, d.luabp = false, false
	d.log(fmt.Sprintf("* Stopped at %d, stop reason = %s", line, reason))
	d.logSourceLine(line)
	d.send()
	if !v.ldbRepl(L) && timeout {
		L.Error(errorTable(L, "timeout during Lua debugging with client closing connection"), 0)
	}
	d.start = time.Now()
}

// ldbRepl reads and runs the debugger's commands until one returns to the
// script; false when the client is gone.
func (v *vm) ldbRepl(L *lua.LState) bool {
	d := v.ldb
	d.inRepl = true
	defer func() { d.inRepl = false }()
	var buf [1024]byte
	for {
		var argv []string
		for {
			var perr string
			argv, perr = d.parseCommand()
			if argv != nil {
				break
			}
			if perr != "" {
				L.Error(errorTable(L, perr), 0)
			}
			n, ok := d.dbg.Read(buf[:])
			if !ok {
				d.step = false
				d.bp = d.bp[:0]
				return false
			}
			d.cbuf = append(d.cbuf, buf[:n]...)
			if len(d.cbuf) > 1<<20 {
				d.cbuf = nil
				L.Error(errorTable(L, "max client buffer reached"), 0)
			}
		}
		d.cbuf = d.cbuf[:0]
		switch cmd := strings.ToLower(argv[0]); {
		case cmd == "h" || cmd == "help":
			for _, l := range ldbHelp {
				d.log(l)
			}
		case cmd == "s" || cmd == "step" || cmd == "n" || cmd == "next":
			d.step = true
			return true
		case cmd == "c" || cmd == "continue":
			return true
		case cmd == "t" || cmd == "trace":
			v.ldbTrace(L)
		case cmd == "m" || cmd == "maxlen":
			if len(argv) == 2 {
				n := atoi(argv[1])
				d.hintSent = true
				if n != 0 && n <= 60 {
					n = 60
				}
				d.maxlen = n
			}
			if d.maxlen != 0 {
				d.log(fmt.Sprintf("<value> replies are truncated at %d bytes.", d.maxlen))
			} else {
				d.log("<value> replies are unlimited.")
			}
		case cmd == "b" || cmd == "break":
			d.breakCmd(argv)
		case cmd == "e" || cmd == "eval":
			v.ldbEval(L, argv)
		case cmd == "a" || cmd == "abort":
			L.Error(errorTable(L, "script aborted for user request"), 0)
		case len(argv) > 1 && (cmd == "r" || cmd == "redis"):
			v.ldbRedis(L, argv)
		case cmd == "p" || cmd == "print":
			if len(argv) == 2 {
				v.ldbPrint(L, argv[1])
			} else {
				v.ldbPrintAll(L)
			}
		case cmd == "l" || cmd == "list":
			around, ctx := d.currentline, 5
			if len(argv) > 1 {
				if n := atoi(argv[1]); n > 0 {
					around = n
				}
			}
			if len(argv) > 2 {
				ctx = atoi(argv[2])
			}
			d.list(around, ctx)
		case cmd == "w" || cmd == "whole":
			d.list(1, 1000000)
		default:
			d.log("<error> Unknown Redis Lua debugger command or wrong number of arguments.")
		}
		d.send()
	}
}

var ldbHelp = []string{
	"Redis Lua debugger help:",
	"[h]elp               Show this help.",
	"[s]tep               Run current line and stop again.",
	"[n]ext               Alias for step.",
	"[c]ontinue           Run till next breakpoint.",
	"[l]ist               List source code around current line.",
	"[l]ist [line]        List source code around [line].",
	"                     line = 0 means: current position.",
	"[l]ist [line] [ctx]  In this form [ctx] specifies how many lines",
	"                     to show before/after [line].",
	"[w]hole              List all source code. Alias for 'list 1 1000000'.",
	"[p]rint              Show all the local variables.",
	"[p]rint <var>        Show the value of the specified variable.",
	"                     Can also show global vars KEYS and ARGV.",
	"[b]reak              Show all breakpoints.",
	"[b]reak <line>       Add a breakpoint to the specified line.",
	"[b]reak -<line>      Remove breakpoint from the specified line.",
	"[b]reak 0            Remove all breakpoints.",
	"[t]race              Show a backtrace.",
	"[e]val <code>        Execute some Lua code (in a different callframe).",
	"[r]edis <cmd>        Execute a Redis command.",
	"[m]axlen [len]       Trim logged Redis replies and Lua var dumps to len.",
	"                     Specifying zero as <len> means unlimited.",
	"[a]bort              Stop the execution of the script. In sync",
	"                     mode dataset changes will be retained.",
	"",
	"Debugger functions you can call from Lua scripts:",
	"redis.debug()        Produce logs in the debugger console.",
	"redis.breakpoint()   Stop execution like if there was a breakpoint in the",
	"                     next line of code.",
}

// breakCmd is ldbBreak.
func (d *ldb) breakCmd(argv []string) {
	if len(argv) == 1 {
		if len(d.bp) == 0 {
			d.log("No breakpoints set. Use 'b <line>' to add one.")
			return
		}
		d.log(fmt.Sprintf("%d breakpoints set:", len(d.bp)))
		for _, b := range d.bp {
			d.logSourceLine(b)
		}
		return
	}
	for _, arg := range argv[1:] {
		line, err := strconv.ParseInt(arg, 10, 64)
		if err != nil || arg != strconv.FormatInt(line, 10) {
			d.log(fmt.Sprintf("Invalid argument:'%s'", arg))
			continue
		}
		switch {
		case line == 0:
			d.bp = d.bp[:0]
			d.log("All breakpoints removed.")
		case line > 0:
			if len(d.bp) == ldbBreakpointsMax {
				d.log("Too many breakpoints set.")
			} else if line <= math.MaxInt32 && d.addBreakpoint(int(line)) {
				d.list(int(line), 1)
			} else {
				d.log("Wrong line number.")
			}
		default:
			if -line <= math.MaxInt32 && d.delBreakpoint(int(-line)) {
				d.log("Breakpoint removed.")
			} else {
				d.log("No breakpoint in the specified line.")
			}
		}
	}
}

// ldbPrint is print <var>: the first local of that name from the current
// frame outwards, or the globals KEYS and ARGV.
func (v *vm) ldbPrint(L *lua.LState, name string) {
	d := v.ldb
	for l := 0; ; l++ {
		dbg, ok := L.GetStack(l)
		if !ok {
			break
		}
		if _, err := L.GetInfo("S", dbg, nil); err != nil {
			continue
		}
		for i := 1; ; i++ {
			n, val := L.DebugLocal(dbg, i)
			if n == "" {
				break
			}
			if n == name {
				d.logValue("<value> ", val)
				return
			}
		}
	}
	if name == "ARGV" || name == "KEYS" {
		d.logValue("<value> ", L.G.Global.RawGetString(name))
		return
	}
	d.log("No such variable.")
}

// ldbPrintAll is print: the locals of the current frame.
func (v *vm) ldbPrintAll(L *lua.LState) {
	d := v.ldb
	vars := 0
	if dbg, ok := L.GetStack(0); ok {
		if _, err := L.GetInfo("S", dbg, nil); err == nil {
			for i := 1; ; i++ {
				n, val := L.DebugLocal(dbg, i)
				if n == "" {
					break
				}
				if !strings.Contains(n, "(*temporary)") {
					d.logValue("<value> "+n+" = ", val)
					vars++
				}
			}
		}
	}
	if vars == 0 {
		d.log("No local variables in the current context.")
	}
}

// ldbTrace is trace: the user script's frames, innermost first.
func (v *vm) ldbTrace(L *lua.LState) {
	d := v.ldb
	level := 0
	for ; ; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			break
		}
		if _, err := L.GetInfo("Snl", dbg, nil); err != nil {
			continue
		}
		if strings.Contains(dbg.Source, "user_script") {
			where := "From"
			if level == 0 {
				where = "In"
			}
			name := dbg.Name
			if name == "" || name == "?" || name == "main chunk" {
				name = "top level"
			}
			d.log(fmt.Sprintf("%s %s:", where, name))
			d.logSourceLine(dbg.CurrentLine)
		}
	}
	if level == 0 {
		d.log("<error> Can't retrieve Lua stack.")
	}
}

// ldbEval is eval <code>: the code as an expression, else as statements,
// in a call frame of its own.
func (v *vm) ldbEval(L *lua.LState, argv []string) {
	d := v.ldb
	code := strings.Join(argv[1:], " ")
	proto, err := compile("return "+code, "@ldb_eval")
	if err != nil {
		if proto, err = compile(code, "@ldb_eval"); err != nil {
			d.log("<error> " + err.Error())
			return
		}
	}
	top := L.GetTop()
	defer L.SetTop(top)
	L.Push(L.NewFunctionFromProto(proto))
	if err := L.PCall(0, 1, nil); err != nil {
		msg := err.Error()
		if ae, ok := err.(*lua.ApiError); ok {
			if t, ok := ae.Object.(*lua.LTable); ok {
				msg = luaString(t.RawGetString("err"))
			} else {
				msg = L.ToStringMeta(ae.Object).String()
			}
		}
		d.log("<error> " + msg)
		return
	}
	d.logValue("<retval> ", L.Get(-1))
}

// ldbRedis is redis <cmd ...>: redis.call with the debugger logging the
// command and its reply.
func (v *vm) ldbRedis(L *lua.LState, argv []string) {
	top := L.GetTop()
	defer L.SetTop(top)
	call := L.GetField(L.G.Global.RawGetString("redis"), "call")
	L.Push(call)
	for _, a := range argv[1:] {
		L.Push(lua.LString(a))
	}
	d := v.ldb
	d.step = true
	L.PCall(len(argv)-1, 1, nil)
	d.step = false
}

// logCommand logs a redis.call of a stepping session as Redis does.
func (d *ldb) logCommand(args [][]byte) {
	b := []byte("<redis>")
	for j, a := range args {
		if j == 10 {
			b = fmt.Appendf(b, " ... (%d more)", len(args)-j-1)
			break
		}
		b = append(b, ' ')
		b = append(b, a...)
	}
	d.log(string(b))
}

// logError logs an error a redis.call raises or returns (luaPushErrorBuff
// in a stepping session): Redis's text as its scriptCall has it.
func (d *ldb) logError(msg string) {
	msg = strings.TrimPrefix(msg, "-")
	msg = strings.TrimPrefix(msg, "ERR ")
	d.log("<error> " + msg)
}

// enabled is ldbIsEnabled: a session is active and stepping.
func (v *vm) ldbEnabled() bool { return v.ldb != nil && v.ldb.step }

// redisDebug is redis.debug(...).
func (v *vm) redisDebug(L *lua.LState) int {
	d := v.ldb
	if d == nil {
		return 0
	}
	b := fmt.Appendf(nil, "<debug> line %d: ", d.currentline)
	n := L.GetTop()
	for i := 1; i <= n; i++ {
		b = catValue(b, L.Get(i), 0)
		if i != n {
			b = append(b, ", "...)
		}
	}
	d.log(string(b))
	return 0
}

// redisBreakpoint is redis.breakpoint().
func (v *vm) redisBreakpoint(L *lua.LState) int {
	if v.ldb == nil {
		L.Push(lua.LFalse)
		return 1
	}
	v.ldb.luabp = true
	L.Push(lua.LTrue)
	return 1
}

// evalDebug is Eval under the debugger: the session ends with
// "<endsession>", sent before the script's reply.
func (v *vm) evalDebug(s *Script, run *Run, fn *lua.LFunction, w *resp.Writer) {
	v.ldb = newLdb(run.Debug, s.Body)
	defer func() { v.ldb = nil }()
	out := resp.Writer{Proto: w.Proto}
	v.invoke(run, fn, 0, s.SHA, &out)
	v.ldb.log("<endsession>")
	v.ldb.send()
	w.Buf = append(w.Buf, out.Buf...)
}
