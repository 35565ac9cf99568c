package lua

// HotKV patch: C Lua 5.1's pattern matching (lstrlib.c's match and its
// helpers, str_find_aux, gmatch and gsub), in place of upstream's package
// pm. Upstream computed every match before it used any (gmatch and gsub
// of a large string held one allocation per match), built gsub's result
// by copying the whole buffer once per match (quadratic: 200,000 matches
// took over 50 s), recursed once per subject character ('.*' failed past
// a million characters), and differed from C Lua in details (%f, '%' at
// the end of a replacement, gsub's limit, gmatch returning two values).
// The matcher counts its steps through CheckHook so that the count hook
// can stop a pathological pattern, and gsub's result is bounded by
// SetMaxStringLen.

import "strings"

const (
	luaMaxCaptures = 32 // LUA_MAXCAPTURES
	capUnfinished  = -1
	capPosition    = -2
	patSpecials    = "^$*+?.([%-"
	// maxMatchDepth bounds the matcher's recursion, which grows with the
	// pattern's items (C Lua 5.1 has no bound and overflows the C stack).
	maxMatchDepth = 100000
)

type matchCapture struct {
	init, len int
}

type matchState struct {
	L       *LState
	src     string
	pat     string // up to its first NUL, as C reads it
	level   int    // captures, finished or not
	depth   int
	capture [luaMaxCaptures]matchCapture
}

// cPattern is a pattern as C Lua's matcher sees it: a C string, ending
// at its first NUL.
func cPattern(p string) string {
	if i := strings.IndexByte(p, 0); i >= 0 {
		return p[:i]
	}
	return p
}

func (ms *matchState) patAt(p int) byte {
	if p < len(ms.pat) {
		return ms.pat[p]
	}
	return 0
}

func (ms *matchState) srcAt(s int) byte {
	if s < len(ms.src) {
		return ms.src[s]
	}
	return 0
}

func (ms *matchState) checkCapture(l byte) int {
	i := int(l) - '1'
	if i < 0 || i >= ms.level || ms.capture[i].len == capUnfinished {
		ms.L.RaiseError("invalid capture index")
	}
	return i
}

func (ms *matchState) captureToClose() int {
	for level := ms.level - 1; level >= 0; level-- {
		if ms.capture[level].len == capUnfinished {
			return level
		}
	}
	ms.L.RaiseError("invalid pattern capture")
	return 0
}

func (ms *matchState) classEnd(p int) int {
	c := ms.patAt(p)
	p++
	switch c {
	case '%':
		if p >= len(ms.pat) {
			ms.L.RaiseError("%s", "malformed pattern (ends with '%')")
		}
		return p + 1
	case '[':
		if ms.patAt(p) == '^' {
			p++
		}
		for { // look for a ']'
			if p >= len(ms.pat) {
				ms.L.RaiseError("malformed pattern (missing ']')")
			}
			c := ms.pat[p]
			p++
			if c == '%' && p < len(ms.pat) {
				p++ // skip escapes (e.g. '%]')
			}
			if ms.patAt(p) == ']' {
				break
			}
		}
		return p + 1
	}
	return p
}

func isAlphaC(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isLowerC(c byte) bool { return c >= 'a' && c <= 'z' }
func isUpperC(c byte) bool { return c >= 'A' && c <= 'Z' }
func isSpaceC(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }
func isCntrlC(c byte) bool { return c < 32 || c == 127 }
func isXDigitC(c byte) bool {
	return isDigit(c) || c|0x20 >= 'a' && c|0x20 <= 'f'
}
func isPunctC(c byte) bool {
	return c > 32 && c < 127 && !isAlphaC(c) && !isDigit(c)
}

// matchClass is match_class with the C locale's ctype.
func matchClass(c, cl byte) bool {
	var res bool
	lower := cl
	if isUpperC(cl) {
		lower = cl + 'a' - 'A'
	}
	switch lower {
	case 'a':
		res = isAlphaC(c)
	case 'c':
		res = isCntrlC(c)
	case 'd':
		res = isDigit(c)
	case 'l':
		res = isLowerC(c)
	case 'p':
		res = isPunctC(c)
	case 's':
		res = isSpaceC(c)
	case 'u':
		res = isUpperC(c)
	case 'w':
		res = isAlphaC(c) || isDigit(c)
	case 'x':
		res = isXDigitC(c)
	case 'z':
		res = c == 0
	default:
		return cl == c
	}
	if isLowerC(cl) {
		return res
	}
	return !res
}

// matchBracketClass: p is at the '[', ec at the closing ']'.
func (ms *matchState) matchBracketClass(c byte, p, ec int) bool {
	sig := true
	if ms.patAt(p+1) == '^' {
		sig = false
		p++ // skip the '^'
	}
	for p++; p < ec; p++ {
		if ms.pat[p] == '%' {
			p++
			if matchClass(c, ms.patAt(p)) {
				return sig
			}
		} else if ms.patAt(p+1) == '-' && p+2 < ec {
			p += 2
			if ms.pat[p-2] <= c && c <= ms.pat[p] {
				return sig
			}
		} else if ms.pat[p] == c {
			return sig
		}
	}
	return !sig
}

func (ms *matchState) singleMatch(c byte, p, ep int) bool {
	switch ms.pat[p] {
	case '.':
		return true
	case '%':
		return matchClass(c, ms.patAt(p+1))
	case '[':
		return ms.matchBracketClass(c, p, ep-1)
	}
	return ms.pat[p] == c
}

func (ms *matchState) matchBalance(s, p int) int {
	if p+1 >= len(ms.pat) {
		ms.L.RaiseError("unbalanced pattern")
	}
	if s >= len(ms.src) || ms.src[s] != ms.pat[p] {
		return -1
	}
	b, e := ms.pat[p], ms.pat[p+1]
	cont := 1
	for s++; s < len(ms.src); s++ {
		if s&1023 == 0 {
			ms.L.CheckHookN(16)
		}
		if c := ms.src[s]; c == e {
			cont--
			if cont == 0 {
				return s + 1
			}
		} else if c == b {
			cont++
		}
	}
	return -1 // string ends out of balance
}

func (ms *matchState) maxExpand(s, p, ep int) int {
	i := 0 // counts maximum expand for item
	for s+i < len(ms.src) && ms.singleMatch(ms.src[s+i], p, ep) {
		i++
		if i&1023 == 0 {
			ms.L.CheckHookN(16)
		}
	}
	// keeps trying to match with the maximum repetitions
	for ; i >= 0; i-- {
		if res := ms.match(s+i, ep+1); res != -1 {
			return res
		}
	}
	return -1
}

func (ms *matchState) minExpand(s, p, ep int) int {
	for {
		if res := ms.match(s, ep+1); res != -1 {
			return res
		}
		if s < len(ms.src) && ms.singleMatch(ms.src[s], p, ep) {
			s++ // try with one more repetition
		} else {
			return -1
		}
	}
}

func (ms *matchState) startCapture(s, p, what int) int {
	level := ms.level
	if level >= luaMaxCaptures {
		ms.L.RaiseError("too many captures")
	}
	ms.capture[level] = matchCapture{s, what}
	ms.level = level + 1
	res := ms.match(s, p)
	if res == -1 {
		ms.level-- // undo capture
	}
	return res
}

func (ms *matchState) endCapture(s, p int) int {
	l := ms.captureToClose()
	ms.capture[l].len = s - ms.capture[l].init // close capture
	res := ms.match(s, p)
	if res == -1 {
		ms.capture[l].len = capUnfinished // undo capture
	}
	return res
}

func (ms *matchState) matchCapture(s int, l byte) int {
	c := ms.capture[ms.checkCapture(l)]
	if c.len < 0 { // a position capture: C's (size_t) of -2
		return -1
	}
	if len(ms.src)-s >= c.len && ms.src[c.init:c.init+c.len] == ms.src[s:s+c.len] {
		ms.L.CheckHookN(c.len >> 6)
		return s + c.len
	}
	return -1
}

// match is lstrlib's match: the end of the match of pattern p (from
// position p on) at subject position s, or -1.
func (ms *matchState) match(s, p int) int {
	ms.depth++
	if ms.depth > maxMatchDepth {
		ms.L.RaiseError("pattern too complex")
	}
	r := ms.doMatch(s, p)
	ms.depth--
	return r
}

func (ms *matchState) doMatch(s, p int) int {
	for {
		ms.L.CheckHook()
		if p >= len(ms.pat) { // end of pattern
			return s
		}
		switch ms.pat[p] {
		case '(': // start capture
			if ms.patAt(p+1) == ')' { // position capture?
				return ms.startCapture(s, p+2, capPosition)
			}
			return ms.startCapture(s, p+1, capUnfinished)
		case ')': // end capture
			return ms.endCapture(s, p+1)
		case '%':
			switch ms.patAt(p + 1) {
			case 'b': // balanced string?
				s = ms.matchBalance(s, p+2)
				if s == -1 {
					return -1
				}
				p += 4
				continue
			case 'f': // frontier?
				p += 2
				if ms.patAt(p) != '[' {
					ms.L.RaiseError("%s", "missing '[' after '%f' in pattern")
				}
				ep := ms.classEnd(p) // points to what is next
				var previous byte
				if s > 0 {
					previous = ms.src[s-1]
				}
				if ms.matchBracketClass(previous, p, ep-1) || !ms.matchBracketClass(ms.srcAt(s), p, ep-1) {
					return -1
				}
				p = ep
				continue
			default:
				if isDigit(ms.patAt(p + 1)) { // capture results (%0-%9)?
					s = ms.matchCapture(s, ms.pat[p+1])
					if s == -1 {
						return -1
					}
					p += 2
					continue
				}
			}
		case '$':
			if p+1 == len(ms.pat) { // is the '$' the last char in pattern?
				if s == len(ms.src) {
					return s
				}
				return -1
			}
		}
		// default: a single-character pattern item
		ep := ms.classEnd(p) // points to what is next
		m := s < len(ms.src) && ms.singleMatch(ms.src[s], p, ep)
		switch ms.patAt(ep) {
		case '?': // optional
			if m {
				if res := ms.match(s+1, ep+1); res != -1 {
					return res
				}
			}
			p = ep + 1
		case '*': // 0 or more repetitions
			return ms.maxExpand(s, p, ep)
		case '+': // 1 or more repetitions
			if m {
				return ms.maxExpand(s+1, p, ep)
			}
			return -1
		case '-': // 0 or more repetitions (minimum)
			return ms.minExpand(s, p, ep)
		default:
			if !m {
				return -1
			}
			s++
			p = ep
		}
	}
}

// capture is push_onecapture's value: capture i of the match s..e.
func (ms *matchState) getCapture(i, s, e int) LValue {
	if i >= ms.level {
		if i == 0 { // ms.level == 0, too
			return LString(ms.src[s:e]) // add whole match
		}
		ms.L.RaiseError("invalid capture index")
	}
	c := ms.capture[i]
	switch c.len {
	case capUnfinished:
		ms.L.RaiseError("unfinished capture")
	case capPosition:
		return LNumber(c.init + 1)
	}
	return LString(ms.src[c.init : c.init+c.len])
}

// pushCaptures pushes the captures of the match s..e, or the whole match
// when it has none and whole is set.
func (ms *matchState) pushCaptures(s, e int, whole bool) int {
	n := ms.level
	if n == 0 && whole {
		n = 1
	}
	for i := 0; i < n; i++ {
		ms.L.Push(ms.getCapture(i, s, e))
	}
	return n
}

// posRelat is lstrlib's posrelat: a relative string position (negative
// counts from the end) as a non-negative one.
func posRelat(pos int64, l int) int64 {
	if pos < 0 {
		pos += int64(l) + 1
	}
	if pos >= 0 {
		return pos
	}
	return 0
}

// checkInteger is luaL_checkinteger: a number, or a string that reads as
// one, as C's (ptrdiff_t) cast of a double on x86-64.
func checkInteger(L *LState, n int) int64 {
	return cInt64(float64(L.CheckNumber(n)))
}

// optInteger is luaL_optinteger.
func optInteger(L *LState, n int, d int64) int64 {
	if L.Get(n) == LNil {
		return d
	}
	return checkInteger(L, n)
}

// checkCInt is luaL_checkint: luaL_checkinteger cast to C's int.
func checkCInt(L *LState, n int) int {
	return int(int32(checkInteger(L, n)))
}

// optCInt is luaL_optint.
func optCInt(L *LState, n int, d int) int {
	if L.Get(n) == LNil {
		return d
	}
	return checkCInt(L, n)
}

// strFindAux is str_find_aux: string.find (find) and string.match.
func strFindAux(L *LState, find bool) int {
	s := L.CheckString(1)
	p := L.CheckString(2)
	init := posRelat(optInteger(L, 3, 1), len(s)) - 1
	if init < 0 {
		init = 0
	} else if init > int64(len(s)) {
		init = int64(len(s))
	}
	s1 := int(init)
	if find && (L.ToBool(4) || !strings.ContainsAny(cPattern(p), patSpecials)) {
		// do a plain search (the whole pattern, NULs included, as lmemfind)
		if i := strings.Index(s[s1:], p); i >= 0 {
			L.Push(LNumber(s1 + i + 1))
			L.Push(LNumber(s1 + i + len(p)))
			return 2
		}
	} else {
		ms := &matchState{L: L, src: s, pat: cPattern(p)}
		pi := 0
		anchor := ms.patAt(0) == '^'
		if anchor {
			pi = 1
		}
		for {
			ms.level = 0
			if e := ms.match(s1, pi); e != -1 {
				if find {
					L.Push(LNumber(s1 + 1)) // start
					L.Push(LNumber(e))      // end
					return ms.pushCaptures(s1, e, false) + 2
				}
				return ms.pushCaptures(s1, e, true)
			}
			if s1 >= len(s) || anchor {
				break
			}
			s1++
		}
	}
	L.Push(LNil) // not found
	return 1
}

func strFind(L *LState) int  { return strFindAux(L, true) }
func strMatch(L *LState) int { return strFindAux(L, false) }

// strGmatch is gmatch: an iterator over the matches of the pattern (no
// anchor), found one at a time as C Lua's gmatch_aux.
func strGmatch(L *LState) int {
	s := L.CheckString(1)
	p := cPattern(L.CheckString(2))
	pos := 0
	L.Push(L.NewFunction(func(L *LState) int {
		ms := &matchState{L: L, src: s, pat: p}
		for src := pos; src <= len(s); src++ {
			ms.level = 0
			if e := ms.match(src, 0); e != -1 {
				pos = e
				if e == src { // empty match? go at least one position
					pos++
				}
				return ms.pushCaptures(src, e, true)
			}
		}
		return 0 // not found
	}))
	return 1
}

// strGsub is str_gsub: the result is built once, in order, as the
// matches are found.
func strGsub(L *LState) int {
	src := L.CheckString(1)
	p := cPattern(L.CheckString(2))
	tr := L.Get(3).Type()
	maxS := optCInt(L, 4, len(src)+1)
	anchor := len(p) > 0 && p[0] == '^'
	if anchor {
		p = p[1:]
	}
	if tr != LTNumber && tr != LTString && tr != LTFunction && tr != LTTable {
		L.ArgError(3, "string/function/table expected")
	}
	var news string // a string or number replacement, as lua_tolstring
	if tr == LTNumber || tr == LTString {
		news = LVAsString(L.Get(3))
	}
	limit := int(maxStringLen.Load())
	ms := &matchState{L: L, src: src, pat: p}
	var b strings.Builder
	n, s := 0, 0
	for n < maxS {
		ms.level = 0
		e := ms.match(s, 0)
		if e != -1 {
			n++
			before := b.Len()
			ms.addValue(&b, s, e, tr, news)
			if added := b.Len() - before; added >= 64 {
				L.CheckHookN(added >> 6)
			}
			if b.Len() > limit {
				L.RaiseError("not enough memory")
			}
		}
		if e != -1 && e > s { // non empty match?
			s = e // skip it
		} else if s < len(src) {
			b.WriteByte(src[s])
			s++
		} else {
			break
		}
		if anchor {
			break
		}
	}
	if b.Len()+len(src)-s > limit {
		L.RaiseError("not enough memory")
	}
	b.WriteString(src[s:])
	L.Push(LString(b.String()))
	L.Push(LNumber(n)) // number of substitutions
	return 2
}

// addS is add_s: a replacement string with its %0-%9 and %x escapes.
func (ms *matchState) addS(b *strings.Builder, s, e int, news string) {
	if strings.IndexByte(news, '%') < 0 {
		b.WriteString(news)
		return
	}
	for i := 0; i < len(news); i++ {
		if news[i] != '%' {
			b.WriteByte(news[i])
			continue
		}
		i++        // skip ESC
		var c byte // C reads the string's terminating NUL after a final '%'
		if i < len(news) {
			c = news[i]
		}
		switch {
		case !isDigit(c):
			b.WriteByte(c)
		case c == '0':
			b.WriteString(ms.src[s:e])
		default:
			b.WriteString(LVAsString(ms.getCapture(int(c-'1'), s, e)))
		}
	}
}

// addValue is add_value: the replacement of the match s..e.
func (ms *matchState) addValue(b *strings.Builder, s, e int, tr LValueType, news string) {
	L := ms.L
	var v LValue
	switch tr {
	case LTNumber, LTString:
		ms.addS(b, s, e, news)
		return
	case LTFunction:
		L.Push(L.Get(3))
		n := ms.pushCaptures(s, e, true)
		L.Call(n, 1)
		v = L.Get(-1)
		L.Pop(1)
	case LTTable:
		v = L.GetTable(L.Get(3), ms.getCapture(0, s, e))
	}
	switch sv := v.(type) {
	case LString:
		b.WriteString(string(sv))
	case LNumber:
		b.WriteString(sv.String())
	default:
		if LVIsFalse(v) { // nil or false: keep the original text
			b.WriteString(ms.src[s:e])
		} else {
			L.RaiseError("invalid replacement value (a %s)", v.Type().String())
		}
	}
}
