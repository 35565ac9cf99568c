package lua

import (
	"fmt"
	"math"
	"strings"
	"unsafe"
)

const emptyLString LString = LString("")

func OpenString(L *LState) int {
	var mod *LTable
	//_, ok := L.G.builtinMts[int(LTString)]
	//if !ok {
	mod = L.RegisterModule(StringLibName, strFuncs).(*LTable)
	mod.RawSetString("gfind", mod.RawGetString("gmatch")) // LUA_COMPAT_GFIND
	mod.RawSetString("__index", mod)
	L.G.builtinMts[int(LTString)] = mod
	//}
	L.Push(mod)
	return 1
}

var strFuncs = map[string]LGFunction{
	"byte":    strByte,
	"char":    strChar,
	"dump":    strDump,
	"find":    strFind,
	"format":  strFormat,
	"gmatch":  strGmatch,
	"gsub":    strGsub,
	"len":     strLen,
	"lower":   strLower,
	"match":   strMatch,
	"rep":     strRep,
	"reverse": strReverse,
	"sub":     strSub,
	"upper":   strUpper,
}

// strByte is C Lua 5.1's str_byte (HotKV patch): one byte by default,
// C's positions, and "string slice too long" past the stack C Lua has
// (upstream returned the whole string by default and could fill the
// registry).
func strByte(L *LState) int {
	str := L.CheckString(1)
	l := len(str)
	posi := posRelat(optInteger(L, 2, 1), l)
	pose := posRelat(optInteger(L, 3, posi), l)
	if posi <= 0 {
		posi = 1
	}
	if pose > int64(l) {
		pose = int64(l)
	}
	if posi > pose {
		return 0 // empty interval; return no values
	}
	n := int(pose - posi + 1)
	if !L.checkStack(n) {
		L.RaiseError("stack overflow (string slice too long)")
	}
	for i := 0; i < n; i++ {
		L.Push(LNumber(str[int(posi)+i-1]))
	}
	return n
}

// strChar is str_char (HotKV patch): a code outside 0..255 is an error.
func strChar(L *LState) int {
	top := L.GetTop()
	bytes := make([]byte, top)
	for i := 1; i <= top; i++ {
		c := checkCInt(L, i)
		if c < 0 || c > 255 {
			L.ArgError(i, "invalid value")
		}
		bytes[i-1] = byte(c)
	}
	L.Push(LString(string(bytes)))
	return 1
}

// strFormat is C Lua 5.1's str_format (HotKV patch): upstream handed the
// format to Go's fmt, whose verbs, defaults and spellings differ (%g's
// default precision, %x of negative numbers, inf, %q, %i, %u, width
// limits).
func strFormat(L *LState) int {
	strfrmt := L.CheckString(1)
	top := L.GetTop()
	arg := 1
	limit := int(maxStringLen.Load())
	var b strings.Builder
	for i := 0; i < len(strfrmt); i++ {
		if b.Len() > limit { // HotKV patch: a bounded result
			L.RaiseError("not enough memory")
		}
		c := strfrmt[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		i++
		if i < len(strfrmt) && strfrmt[i] == '%' {
			b.WriteByte('%')
			continue
		}
		// scanformat: flags, width (2 digits), precision (2 digits).
		start := i
		for i < len(strfrmt) && strings.IndexByte("-+ #0", strfrmt[i]) >= 0 {
			i++
		}
		if i-start > 5 {
			L.RaiseError("invalid format (repeated flags)")
		}
		digits := func() {
			for n := 0; n < 2 && i < len(strfrmt) && isDigit(strfrmt[i]); n++ {
				i++
			}
		}
		digits()
		if i < len(strfrmt) && strfrmt[i] == '.' {
			i++
			digits()
		}
		if i < len(strfrmt) && isDigit(strfrmt[i]) {
			L.RaiseError("invalid format (width or precision too long)")
		}
		spec := strfrmt[start:i]
		conv := byte(0)
		if i < len(strfrmt) {
			conv = strfrmt[i]
		}
		arg++
		if arg > top && conv != 0 && strings.IndexByte("cdiouxXeEfgGqs", conv) >= 0 {
			L.ArgError(arg, "no value")
		}
		switch conv {
		case 'c':
			b.WriteString(fmt.Sprintf("%"+spec+"c", rune(byte(int64(L.CheckNumber(arg))))))
		case 'd', 'i':
			b.WriteString(fmt.Sprintf("%"+spec+"d", cInt64(float64(L.CheckNumber(arg)))))
		case 'o', 'u', 'x', 'X':
			v := uint64(cInt64(float64(L.CheckNumber(arg))))
			verb := conv
			if conv == 'u' {
				verb = 'd'
			}
			b.WriteString(fmt.Sprintf("%"+spec+string(verb), v))
		case 'e', 'E', 'f', 'g', 'G':
			b.WriteString(formatFloat(spec, conv, float64(L.CheckNumber(arg))))
		case 'q':
			addQuoted(&b, L.CheckString(arg))
		case 's':
			s := L.CheckString(arg)
			L.CheckHookN(len(s) >> 6) // HotKV patch: long copies count
			if !strings.Contains(spec, ".") && len(s) >= 100 {
				b.WriteString(s) // keep the whole string, as C Lua
			} else {
				b.WriteString(fmt.Sprintf("%"+spec+"s", s))
			}
		default:
			L.RaiseError("invalid option '%%%c' to 'format'", conv)
		}
	}
	if b.Len() > limit {
		L.RaiseError("not enough memory")
	}
	L.Push(LString(b.String()))
	return 1
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// cInt64 is C's (long long) cast of a double on x86-64.
func cInt64(f float64) int64 {
	if f != f || f >= 9223372036854775808.0 || f < -9223372036854775808.0 {
		return math.MinInt64
	}
	return int64(f)
}

// formatFloat is printf's %e, %f and %g with a C flags/width/precision
// spec: Go's %g defaults to the shortest form where C uses 6 digits, and
// C spells infinities and NaN "inf" and "nan".
func formatFloat(spec string, conv byte, f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		s := "inf"
		if math.IsNaN(f) {
			s = "nan"
		}
		if conv == 'E' || conv == 'G' {
			s = strings.ToUpper(s)
		}
		if math.Signbit(f) {
			s = "-" + s
		} else if strings.Contains(spec, "+") {
			s = "+" + s
		} else if strings.Contains(spec, " ") {
			s = " " + s
		}
		width := strings.TrimLeft(spec, "-+ #0")
		if k := strings.IndexByte(width, '.'); k >= 0 {
			width = width[:k]
		}
		if strings.Contains(spec[:len(spec)-len(strings.TrimLeft(spec, "-+ #0"))], "-") {
			return fmt.Sprintf("%-"+width+"s", s)
		}
		return fmt.Sprintf("%"+width+"s", s)
	}
	if !strings.Contains(spec, ".") && (conv == 'g' || conv == 'G') {
		spec += ".6"
	}
	return fmt.Sprintf("%"+spec+string(conv), f)
}

// addQuoted is lstrlib's addquoted (%q).
func addQuoted(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\', '\n':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\r':
			b.WriteString("\\r")
		case 0:
			b.WriteString("\\000")
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
}

func strLen(L *LState) int {
	str := L.CheckString(1)
	L.Push(LNumber(len(str)))
	return 1
}

// strLower is str_lower: bytes, as C's tolower in the C locale (HotKV
// patch: upstream's strings.ToLower changed non-ASCII letters and
// replaced invalid UTF-8 with U+FFFD).
func strLower(L *LState) int {
	str := L.CheckString(1)
	b := []byte(str)
	for i, c := range b {
		if isUpperC(c) {
			b[i] = c + 'a' - 'A'
		}
	}
	L.Push(LString(b))
	return 1
}

func strRep(L *LState) int {
	str := L.CheckString(1)
	// HotKV patch: luaL_checkint's C int (string.rep('x', 2^40) is "",
	// as in Redis), and a bounded result.
	n := int(int32(int64(L.CheckNumber(2))))
	if n <= 0 || len(str) == 0 {
		L.Push(emptyLString)
		return 1
	}
	if len(str) > int(maxStringLen.Load())/n {
		L.RaiseError("not enough memory")
	}
	// HotKV patch: built in chunks of up to 64 KB, each counted against
	// the count hook, so that the hook can stop a long string.rep.
	total := len(str) * n
	b := make([]byte, total)
	k := copy(b, str)
	chunk := (64 << 10) / len(str) * len(str) // whole copies of str
	if chunk == 0 {
		chunk = len(str)
	}
	for k < total {
		c := min(k, chunk, total-k) // k and c are multiples of len(str)
		copy(b[k:k+c], b[:c])
		k += c
		L.CheckHookN(c >> 6)
	}
	L.Push(LString(unsafe.String(&b[0], len(b))))
	return 1
}

func strReverse(L *LState) int {
	str := L.CheckString(1)
	bts := []byte(str)
	out := make([]byte, len(bts))
	for i, j := 0, len(bts)-1; j >= 0; i, j = i+1, j-1 {
		out[i] = bts[j]
	}
	L.Push(LString(string(out)))
	return 1
}

// strSub is str_sub (HotKV patch: C's positions, so that huge or
// numeric-string arguments read as in C Lua).
func strSub(L *LState) int {
	str := L.CheckString(1)
	l := len(str)
	start := posRelat(checkInteger(L, 2), l)
	end := posRelat(optInteger(L, 3, -1), l)
	if start < 1 {
		start = 1
	}
	if end > int64(l) {
		end = int64(l)
	}
	if start <= end {
		L.Push(LString(str[start-1 : end]))
	} else {
		L.Push(emptyLString)
	}
	return 1
}

// strUpper is str_upper: bytes, as C's toupper (HotKV patch, see
// strLower).
func strUpper(L *LState) int {
	str := L.CheckString(1)
	b := []byte(str)
	for i, c := range b {
		if isLowerC(c) {
			b[i] = c - ('a' - 'A')
		}
	}
	L.Push(LString(b))
	return 1
}

//
