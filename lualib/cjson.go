package lualib

import (
	"math"
	"strconv"

	lua "github.com/yuin/gopher-lua"
)

// cjson: Lua CJSON 2.1.0 as Redis 7.0 bundles it (deps/lua/src/lua_cjson.c
// with fpconv.c and strbuf.c).
//
// Contract, as in Redis:
//   - cjson.encode(v) serialises v. Tables whose keys are all positive
//     integers are arrays (holes become null) unless excessively sparse;
//     every other table, the empty one included, is an object whose keys
//     must be strings or numbers. Numbers are printed with "%.14g" (see
//     encode_number_precision); NaN and Inf are refused unless
//     encode_invalid_numbers allows them. Strings are escaped byte by byte
//     ('/' as "\/", control bytes and DEL as \uXXXX, other bytes as is).
//     cjson.null and nil encode as null; functions, threads and other
//     userdata cannot be serialised.
//   - cjson.decode(s) parses one JSON value (objects become tables with
//     string keys, arrays tables with keys 1..n, null cjson.null). Numbers
//     are read by strtod, so by default "Infinity", "NaN" and hexadecimal
//     numbers are accepted too (decode_invalid_numbers).
//   - The configuration functions read and optionally set the settings of
//     their cjson table; they persist for the life of the Lua state.
//   - cjson.new() returns a new cjson table with its own default settings.
//
// Object key order follows the table's iteration order, which, as in
// Redis, callers should not rely on.

const (
	cjsonVersion = "2.1.0"

	// json_config_t defaults.
	defaultSparseConvert         = 0
	defaultSparseRatio           = 2
	defaultSparseSafe            = 10
	defaultEncodeMaxDepth        = 1000
	defaultDecodeMaxDepth        = 1000
	defaultEncodeInvalidNumbers  = 0
	defaultDecodeInvalidNumbers  = 1
	defaultEncodeKeepBuffer      = 1
	defaultEncodeNumberPrecision = 14
)

// cjsonConfig is json_config_t: the settings of one cjson table, all C ints.
type cjsonConfig struct {
	encodeSparseConvert   int32
	encodeSparseRatio     int32
	encodeSparseSafe      int32
	encodeMaxDepth        int32
	encodeInvalidNumbers  int32 // 0 refuse, 1 allow, 2 encode as null
	encodeNumberPrecision int32
	encodeKeepBuffer      int32 // kept for the setter; Go needs no buffer
	decodeInvalidNumbers  int32
	decodeMaxDepth        int32

	// null is cjson.null, the value JSON null decodes to. C uses a NULL
	// lightuserdata; gopher-lua has none, so a unique userdata stands in.
	null *lua.LUserData
}

// OpenCJSON installs the cjson library as the global "cjson" and returns
// its table.
func OpenCJSON(L *lua.LState) *lua.LTable {
	t := newCJSON(L, L.NewUserData())
	L.SetGlobal("cjson", t)
	return t
}

// newCJSON is lua_cjson_new: a cjson table whose functions share a fresh
// configuration.
func newCJSON(L *lua.LState, null *lua.LUserData) *lua.LTable {
	cfg := &cjsonConfig{
		encodeSparseConvert:   defaultSparseConvert,
		encodeSparseRatio:     defaultSparseRatio,
		encodeSparseSafe:      defaultSparseSafe,
		encodeMaxDepth:        defaultEncodeMaxDepth,
		decodeMaxDepth:        defaultDecodeMaxDepth,
		encodeInvalidNumbers:  defaultEncodeInvalidNumbers,
		decodeInvalidNumbers:  defaultDecodeInvalidNumbers,
		encodeKeepBuffer:      defaultEncodeKeepBuffer,
		encodeNumberPrecision: defaultEncodeNumberPrecision,
		null:                  null,
	}
	funcs := map[string]lua.LGFunction{
		"encode":                  cfg.encode,
		"decode":                  cfg.decode,
		"encode_sparse_array":     cfg.cfgEncodeSparseArray,
		"encode_max_depth":        cfg.cfgEncodeMaxDepth,
		"decode_max_depth":        cfg.cfgDecodeMaxDepth,
		"encode_number_precision": cfg.cfgEncodeNumberPrecision,
		"encode_keep_buffer":      cfg.cfgEncodeKeepBuffer,
		"encode_invalid_numbers":  cfg.cfgEncodeInvalidNumbers,
		"decode_invalid_numbers":  cfg.cfgDecodeInvalidNumbers,
		"new": func(L *lua.LState) int {
			L.Push(newCJSON(L, null))
			return 1
		},
	}
	t := L.NewTable()
	for k, fn := range funcs {
		t.RawSetString(k, L.NewFunction(fn))
	}
	t.RawSetString("null", null)
	t.RawSetString("_NAME", lua.LString("cjson"))
	t.RawSetString("_VERSION", lua.LString(cjsonVersion))
	return t
}

// ===== Configuration =====

// argInit is json_arg_init: at most args arguments; missing ones read as
// nil.
func argInit(L *lua.LState, args int) {
	if L.GetTop() > args {
		argError(L, args+1, "found too many arguments")
	}
}

// argAt returns argument n, nil when absent.
func argAt(L *lua.LState, n int) lua.LValue {
	if n > L.GetTop() {
		return lua.LNil
	}
	return L.Get(n)
}

// integerOption is json_integer_option. Note that, as in C, a value out
// of range is reported against argument #1 whatever its position.
func integerOption(L *lua.LState, n int, setting *int32, min, max int32) lua.LValue {
	if argAt(L, n) != lua.LNil {
		value := toCInt(checkInteger(L, n))
		if value < min || value > max {
			argError(L, 1, "expected integer between "+strconv.Itoa(int(min))+" and "+strconv.Itoa(int(max)))
		}
		*setting = value
	}
	return lua.LNumber(*setting)
}

var boolOptions = []string{"off", "on"}

// enumOption is json_enum_option; options nil means the boolean options
// "off" and "on".
func enumOption(L *lua.LState, n int, setting *int32, options []string, boolTrue int32) lua.LValue {
	if options == nil {
		options, boolTrue = boolOptions, 1
	}
	if v := argAt(L, n); v != lua.LNil {
		if b, ok := v.(lua.LBool); ok && boolTrue != 0 {
			*setting = 0
			if b {
				*setting = boolTrue
			}
		} else {
			*setting = int32(checkOption(L, n, options))
		}
	}
	if boolTrue != 0 && (*setting == 0 || *setting == boolTrue) {
		return lua.LBool(*setting != 0)
	}
	return lua.LString(options[*setting])
}

// checkOption is luaL_checkoption without a default.
func checkOption(L *lua.LState, n int, options []string) int {
	name := cString(checkLString(L, n))
	for i, o := range options {
		if o == name {
			return i
		}
	}
	argError(L, n, "invalid option '"+name+"'")
	return 0
}

func (cfg *cjsonConfig) cfgEncodeSparseArray(L *lua.LState) int {
	argInit(L, 3)
	convert := enumOption(L, 1, &cfg.encodeSparseConvert, nil, 1)
	ratio := integerOption(L, 2, &cfg.encodeSparseRatio, 0, math.MaxInt32)
	safe := integerOption(L, 3, &cfg.encodeSparseSafe, 0, math.MaxInt32)
	L.Push(convert)
	L.Push(ratio)
	L.Push(safe)
	return 3
}

func (cfg *cjsonConfig) cfgEncodeMaxDepth(L *lua.LState) int {
	argInit(L, 1)
	L.Push(integerOption(L, 1, &cfg.encodeMaxDepth, 1, math.MaxInt32))
	return 1
}

func (cfg *cjsonConfig) cfgDecodeMaxDepth(L *lua.LState) int {
	argInit(L, 1)
	L.Push(integerOption(L, 1, &cfg.decodeMaxDepth, 1, math.MaxInt32))
	return 1
}

func (cfg *cjsonConfig) cfgEncodeNumberPrecision(L *lua.LState) int {
	argInit(L, 1)
	L.Push(integerOption(L, 1, &cfg.encodeNumberPrecision, 1, 14))
	return 1
}

func (cfg *cjsonConfig) cfgEncodeKeepBuffer(L *lua.LState) int {
	argInit(L, 1)
	L.Push(enumOption(L, 1, &cfg.encodeKeepBuffer, nil, 1))
	return 1
}

func (cfg *cjsonConfig) cfgEncodeInvalidNumbers(L *lua.LState) int {
	argInit(L, 1)
	L.Push(enumOption(L, 1, &cfg.encodeInvalidNumbers, []string{"off", "on", "null"}, 1))
	return 1
}

func (cfg *cjsonConfig) cfgDecodeInvalidNumbers(L *lua.LState) int {
	argInit(L, 1)
	L.Push(enumOption(L, 1, &cfg.decodeInvalidNumbers, nil, 1))
	return 1
}

// ===== Encoding =====

// char2escape gives the JSON escape of each byte that needs one.
var char2escape = func() [256]string {
	var t [256]string
	const hex = "0123456789abcdef"
	for c := 0; c < 0x20; c++ {
		t[c] = `\u00` + string(hex[c>>4]) + string(hex[c&15])
	}
	t['\b'], t['\t'], t['\n'], t['\f'], t['\r'] = `\b`, `\t`, `\n`, `\f`, `\r`
	t['"'], t['\\'], t['/'], t[0x7f] = `\"`, `\\`, `\/`, `\u007f`
	return t
}()

// jsonEncoder holds one cjson.encode call. Its methods take used, the
// number of Lua stack slots the C encoder would hold at that point, for
// the lua_checkstack limit.
type jsonEncoder struct {
	L   *lua.LState
	cfg *cjsonConfig
	buf []byte
}

func (cfg *cjsonConfig) encode(L *lua.LState) int {
	if L.GetTop() != 1 {
		argError(L, 1, "expected 1 argument")
	}
	e := &jsonEncoder{L: L, cfg: cfg}
	e.appendData(L.Get(1), 0, 1)
	L.Push(lua.LString(e.buf))
	return 1
}

// exception is json_encode_exception: v is the value that cannot be
// serialised.
func (e *jsonEncoder) exception(v lua.LValue, reason string) {
	raise(e.L, "Cannot serialise "+luaType(v)+": "+reason)
}

func (e *jsonEncoder) appendString(s string) {
	e.buf = append(e.buf, '"')
	for i := 0; i < len(s); i++ {
		if esc := char2escape[s[i]]; esc != "" {
			e.buf = append(e.buf, esc...)
		} else {
			e.buf = append(e.buf, s[i])
		}
	}
	e.buf = append(e.buf, '"')
}

// appendNumber is json_append_number; v is the number's Lua value (a value
// or a key), for the error message.
func (e *jsonEncoder) appendNumber(v lua.LValue, num float64) {
	switch e.cfg.encodeInvalidNumbers {
	case 0:
		if math.IsInf(num, 0) || math.IsNaN(num) {
			e.exception(v, "must not be NaN or Inf")
		}
	case 1:
		if math.IsNaN(num) {
			e.buf = append(e.buf, "nan"...)
			return
		}
	default:
		if math.IsInf(num, 0) || math.IsNaN(num) {
			e.buf = append(e.buf, "null"...)
			return
		}
	}
	e.buf = append(e.buf, formatG(num, int(e.cfg.encodeNumberPrecision))...)
}

// formatG is C's printf("%.<prec>g", f) as glibc prints it.
func formatG(f float64, prec int) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		if math.Signbit(f) {
			return "-nan"
		}
		return "nan"
	}
	return strconv.FormatFloat(f, 'g', prec, 64)
}

// arrayLength is lua_array_length: the array size of t, or -1 when t must
// be encoded as an object.
func (e *jsonEncoder) arrayLength(t *lua.LTable) int32 {
	var max, items int32
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		if n, ok := k.(lua.LNumber); ok && n != 0 {
			f := float64(n)
			if math.Floor(f) == f && f >= 1 {
				if f > float64(max) {
					max = cInt32(f)
				}
				items++
				continue
			}
		}
		return -1
	}
	cfg := e.cfg
	if cfg.encodeSparseRatio > 0 && max > items*cfg.encodeSparseRatio && max > cfg.encodeSparseSafe {
		if cfg.encodeSparseConvert == 0 {
			e.exception(t, "excessively sparse array")
		}
		return -1
	}
	return max
}

// appendData is json_append_data for v at nesting depth, with used stack
// slots held by the C encoder (v is the top one).
func (e *jsonEncoder) appendData(v lua.LValue, depth int, used int) {
	switch x := v.(type) {
	case lua.LString:
		e.appendString(string(x))
	case lua.LNumber:
		e.appendNumber(x, float64(x))
	case lua.LBool:
		if x {
			e.buf = append(e.buf, "true"...)
		} else {
			e.buf = append(e.buf, "false"...)
		}
	case *lua.LTable:
		depth++
		if depth > int(e.cfg.encodeMaxDepth) || used+3 > maxCStack {
			raise(e.L, "Cannot serialise, excessive nesting ("+strconv.Itoa(depth)+")")
		}
		if n := e.arrayLength(x); n > 0 {
			e.appendArray(x, n, depth, used)
		} else {
			e.appendObject(x, depth, used)
		}
	case *lua.LNilType:
		e.buf = append(e.buf, "null"...)
	default:
		if v == lua.LValue(e.cfg.null) {
			e.buf = append(e.buf, "null"...)
			return
		}
		e.exception(v, "type not supported")
	}
}

func (e *jsonEncoder) appendArray(t *lua.LTable, n int32, depth, used int) {
	e.buf = append(e.buf, '[')
	for i := 1; i <= int(n); i++ {
		if i > 1 {
			e.buf = append(e.buf, ',')
		}
		e.appendData(t.RawGetInt(i), depth, used+1)
	}
	e.buf = append(e.buf, ']')
}

func (e *jsonEncoder) appendObject(t *lua.LTable, depth, used int) {
	e.buf = append(e.buf, '{')
	first := true
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		if !first {
			e.buf = append(e.buf, ',')
		}
		first = false
		switch key := k.(type) {
		case lua.LNumber:
			e.buf = append(e.buf, '"')
			e.appendNumber(key, float64(key))
			e.buf = append(e.buf, '"', ':')
		case lua.LString:
			e.appendString(string(key))
			e.buf = append(e.buf, ':')
		default:
			e.exception(k, "table key must be a number or string")
		}
		e.appendData(v, depth, used+2)
	}
	e.buf = append(e.buf, '}')
}

// ===== Decoding =====

type jsonTokenType int

const (
	tObjBegin jsonTokenType = iota
	tObjEnd
	tArrBegin
	tArrEnd
	tString
	tNumber
	tBoolean
	tNull
	tColon
	tComma
	tEnd
	tWhitespace
	tError
	tUnknown
)

var jsonTokenTypeName = [...]string{
	"T_OBJ_BEGIN", "T_OBJ_END", "T_ARR_BEGIN", "T_ARR_END", "T_STRING",
	"T_NUMBER", "T_BOOLEAN", "T_NULL", "T_COLON", "T_COMMA", "T_END",
	"T_WHITESPACE", "T_ERROR", "T_UNKNOWN",
}

// ch2token classifies the first byte of a token.
var ch2token = func() [256]jsonTokenType {
	var t [256]jsonTokenType
	for i := range t {
		t[i] = tError
	}
	t['{'], t['}'], t['['], t[']'] = tObjBegin, tObjEnd, tArrBegin, tArrEnd
	t[','], t[':'], t[0] = tComma, tColon, tEnd
	t[' '], t['\t'], t['\n'], t['\r'] = tWhitespace, tWhitespace, tWhitespace, tWhitespace
	for _, c := range []byte(`fiInNt"+-0123456789`) {
		t[c] = tUnknown
	}
	return t
}()

// escape2char translates the byte after a backslash; 0 is an invalid
// escape and 'u' a Unicode escape.
var escape2char = func() [256]byte {
	var t [256]byte
	t['"'], t['\\'], t['/'] = '"', '\\', '/'
	t['b'], t['t'], t['n'], t['f'], t['r'] = '\b', '\t', '\n', '\f', '\r'
	t['u'] = 'u'
	return t
}()

type jsonToken struct {
	typ    jsonTokenType
	index  int // byte offset of the token (of the error for T_ERROR)
	str    string
	num    float64
	b      bool
	errMsg string // what T_ERROR found
}

// jsonParser is json_parse_t. data is read as the C string Lua hands to
// the parser: at returns 0 at and past its end.
type jsonParser struct {
	L     *lua.LState
	cfg   *cjsonConfig
	data  string
	ptr   int
	depth int
	tmp   []byte
}

func (p *jsonParser) at(i int) byte {
	if i < len(p.data) {
		return p.data[i]
	}
	return 0
}

func (cfg *cjsonConfig) decode(L *lua.LState) int {
	if L.GetTop() != 1 {
		argError(L, 1, "expected 1 argument")
	}
	data := checkLString(L, 1)
	// Detect Unicode other than UTF-8 (RFC 4627, section 3).
	if len(data) >= 2 && (data[0] == 0 || data[1] == 0) {
		raise(L, "JSON parser does not support UTF-16 or UTF-32")
	}
	p := &jsonParser{L: L, cfg: cfg, data: data}
	var tok jsonToken
	p.nextToken(&tok)
	v := p.processValue(&tok, 1)
	p.nextToken(&tok)
	if tok.typ != tEnd {
		p.throwParseError("the end", &tok)
	}
	L.Push(v)
	return 1
}

func (p *jsonParser) setTokenError(tok *jsonToken, msg string) {
	tok.typ = tError
	tok.index = p.ptr
	tok.errMsg = msg
}

// decodeHex4 reads four hex digits at i, -1 when they are not.
func (p *jsonParser) decodeHex4(i int) int {
	v := 0
	for k := 0; k < 4; k++ {
		c := p.at(i + k)
		var d int
		switch {
		case c >= '0' && c <= '9':
			d = int(c - '0')
		case c|0x20 >= 'a' && c|0x20 <= 'f':
			d = int(c|0x20-'a') + 10
		default:
			return -1
		}
		v = v<<4 | d
	}
	return v
}

// appendUnicodeEscape is json_append_unicode_escape: ptr is at a "\u"
// escape; a surrogate pair must be complete. It reports success.
func (p *jsonParser) appendUnicodeEscape() bool {
	escapeLen := 6
	cp := p.decodeHex4(p.ptr + 2)
	if cp < 0 {
		return false
	}
	if cp&0xF800 == 0xD800 {
		if cp&0x400 != 0 { // a low surrogate first
			return false
		}
		if p.at(p.ptr+escapeLen) != '\\' || p.at(p.ptr+escapeLen+1) != 'u' {
			return false
		}
		low := p.decodeHex4(p.ptr + escapeLen + 2)
		if low < 0 || low&0xFC00 != 0xDC00 {
			return false
		}
		cp = ((cp&0x3FF)<<10 | low&0x3FF) + 0x10000
		escapeLen = 12
	}
	switch {
	case cp <= 0x7F:
		p.tmp = append(p.tmp, byte(cp))
	case cp <= 0x7FF:
		p.tmp = append(p.tmp, byte(cp>>6|0xC0), byte(cp&0x3F|0x80))
	case cp <= 0xFFFF:
		p.tmp = append(p.tmp, byte(cp>>12|0xE0), byte(cp>>6&0x3F|0x80), byte(cp&0x3F|0x80))
	default:
		p.tmp = append(p.tmp, byte(cp>>18|0xF0), byte(cp>>12&0x3F|0x80), byte(cp>>6&0x3F|0x80), byte(cp&0x3F|0x80))
	}
	p.ptr += escapeLen
	return true
}

func (p *jsonParser) nextStringToken(tok *jsonToken) {
	p.ptr++ // skip '"'
	p.tmp = p.tmp[:0]
	for {
		ch := p.at(p.ptr)
		if ch == '"' {
			break
		}
		if ch == 0 {
			p.setTokenError(tok, "unexpected end of string")
			return
		}
		if ch == '\\' {
			ch = escape2char[p.at(p.ptr+1)]
			if ch == 'u' {
				if p.appendUnicodeEscape() {
					continue
				}
				p.setTokenError(tok, "invalid unicode escape code")
				return
			}
			if ch == 0 {
				p.setTokenError(tok, "invalid escape code")
				return
			}
			p.ptr++ // skip '\'
		}
		p.tmp = append(p.tmp, ch)
		p.ptr++
	}
	p.ptr++ // eat the final quote
	tok.typ = tString
	tok.str = string(p.tmp)
}

// isInvalidNumber is json_is_invalid_number: "numbers" strtod accepts but
// strict JSON does not (leading '+', leading zeros, hexadecimal, inf, nan).
func (p *jsonParser) isInvalidNumber() bool {
	i := p.ptr
	if p.at(i) == '+' {
		return true
	}
	if p.at(i) == '-' {
		i++
	}
	if c := p.at(i); c == '0' {
		c2 := p.at(i + 1)
		return c2|0x20 == 'x' || (c2 >= '0' && c2 <= '9')
	} else if c <= '9' {
		return false
	}
	rest := p.rest(i)
	return hasPrefixFold(rest, "inf") || hasPrefixFold(rest, "nan")
}

// rest returns the C string from i on.
func (p *jsonParser) rest(i int) string {
	if i >= len(p.data) {
		return ""
	}
	return cString(p.data[i:])
}

func (p *jsonParser) nextNumberToken(tok *jsonToken) {
	tok.typ = tNumber
	v, n := lua.Strtod(p.rest(p.ptr))
	if n == 0 {
		p.setTokenError(tok, "invalid number")
		return
	}
	tok.num = v
	p.ptr += n
}

func (p *jsonParser) hasPrefix(word string) bool {
	for i := 0; i < len(word); i++ {
		if p.at(p.ptr+i) != word[i] {
			return false
		}
	}
	return true
}

// nextToken is json_next_token.
func (p *jsonParser) nextToken(tok *jsonToken) {
	var ch byte
	for {
		ch = p.at(p.ptr)
		tok.typ = ch2token[ch]
		if tok.typ != tWhitespace {
			break
		}
		p.ptr++
	}
	tok.index = p.ptr
	switch tok.typ {
	case tError:
		p.setTokenError(tok, "invalid token")
		return
	case tEnd:
		return
	case tUnknown:
	default:
		p.ptr++
		return
	}
	switch {
	case ch == '"':
		p.nextStringToken(tok)
	case ch == '-' || (ch >= '0' && ch <= '9'):
		if p.cfg.decodeInvalidNumbers == 0 && p.isInvalidNumber() {
			p.setTokenError(tok, "invalid number")
			return
		}
		p.nextNumberToken(tok)
	case p.hasPrefix("true"):
		tok.typ, tok.b = tBoolean, true
		p.ptr += 4
	case p.hasPrefix("false"):
		tok.typ, tok.b = tBoolean, false
		p.ptr += 5
	case p.hasPrefix("null"):
		tok.typ = tNull
		p.ptr += 4
	case p.cfg.decodeInvalidNumbers != 0 && p.isInvalidNumber():
		// Only numbers known to be invalid JSON (Inf, NaN, hex) are
		// processed, so other bad tokens report "invalid token".
		p.nextNumberToken(tok)
	default:
		p.setTokenError(tok, "invalid token")
	}
}

// throwParseError is json_throw_parse_error.
func (p *jsonParser) throwParseError(expected string, tok *jsonToken) {
	found := jsonTokenTypeName[tok.typ]
	if tok.typ == tError {
		found = tok.errMsg
	}
	raise(p.L, "Expected "+expected+" but found "+found+" at character "+strconv.Itoa(tok.index+1))
}

// descend is json_decode_descend: slots more stack slots are needed on
// top of used.
func (p *jsonParser) descend(used, slots int) {
	p.depth++
	if p.depth <= int(p.cfg.decodeMaxDepth) && used+slots <= maxCStack {
		return
	}
	raise(p.L, "Found too many nested data structures ("+strconv.Itoa(p.depth)+") at character "+strconv.Itoa(p.ptr))
}

// parseObject is json_parse_object_context; used is the number of stack
// slots the C parser holds.
func (p *jsonParser) parseObject(used int) *lua.LTable {
	p.descend(used, 3)
	t := p.L.NewTable()
	var tok jsonToken
	p.nextToken(&tok)
	if tok.typ == tObjEnd {
		p.depth--
		return t
	}
	for {
		if tok.typ != tString {
			p.throwParseError("object key string", &tok)
		}
		key := tok.str
		p.nextToken(&tok)
		if tok.typ != tColon {
			p.throwParseError("colon", &tok)
		}
		p.nextToken(&tok)
		t.RawSetString(key, p.processValue(&tok, used+2))
		p.nextToken(&tok)
		if tok.typ == tObjEnd {
			p.depth--
			return t
		}
		if tok.typ != tComma {
			p.throwParseError("comma or object end", &tok)
		}
		p.nextToken(&tok)
	}
}

// parseArray is json_parse_array_context.
func (p *jsonParser) parseArray(used int) *lua.LTable {
	p.descend(used, 2)
	t := p.L.NewTable()
	var tok jsonToken
	p.nextToken(&tok)
	if tok.typ == tArrEnd {
		p.depth--
		return t
	}
	for i := 1; ; i++ {
		t.RawSetInt(i, p.processValue(&tok, used+1))
		p.nextToken(&tok)
		if tok.typ == tArrEnd {
			p.depth--
			return t
		}
		if tok.typ != tComma {
			p.throwParseError("comma or array end", &tok)
		}
		p.nextToken(&tok)
	}
}

// processValue is json_process_value.
func (p *jsonParser) processValue(tok *jsonToken, used int) lua.LValue {
	switch tok.typ {
	case tString:
		return lua.LString(tok.str)
	case tNumber:
		return lua.LNumber(tok.num)
	case tBoolean:
		return lua.LBool(tok.b)
	case tObjBegin:
		return p.parseObject(used)
	case tArrBegin:
		return p.parseArray(used)
	case tNull:
		return p.cfg.null
	}
	p.throwParseError("value", tok)
	return nil
}
