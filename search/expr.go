package search

import (
	"math"
	"strconv"
	"strings"
)

// The expression language of FT.AGGREGATE's APPLY and FILTER, as
// RediSearch 2.10 parses and evaluates it: numbers, strings, NULL,
// @properties, function calls, unary - and !, and the binary operators.
// Precedence, lowest first: ||, &&, the comparisons, + -, * / %, ^ (right
// associative), unary minus and ! ("-2^2" is 4, as in RediSearch).

// ValueKind is the type of a Value. The numbers are RediSearch's, which
// its error texts show.
type ValueKind uint8

// The kinds of values. Missing (the zero Value) is a property a row has
// no value for.
const (
	Missing ValueKind = 0
	Number  ValueKind = 1
	String  ValueKind = 3
	Null    ValueKind = 4
	Array   ValueKind = 6
)

// Value is a value of an aggregation row or expression.
type Value struct {
	Kind ValueKind
	Num  float64
	Str  string
	Arr  []Value
}

func numVal(f float64) Value   { return Value{Kind: Number, Num: f} }
func strVal(s string) Value    { return Value{Kind: String, Str: s} }
func boolVal(b bool) Value     { return numVal(b2f(b)) }
func nullVal() Value           { return Value{Kind: Null} }
func (v Value) isNull() bool   { return v.Kind == Null || v.Kind == Missing }
func (v Value) isString() bool { return v.Kind == String }

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// FormatNumber formats a number of an aggregation reply as RediSearch
// does: integers as %lld, others as %.12g (nan, -nan, inf, -inf).
func FormatNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		if math.Signbit(f) {
			return "-nan"
		}
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	if f == math.Trunc(f) && math.Abs(f) < 9.2e18 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', 12, 64)
}

// String returns v as text: a number formatted, "" for null.
func (v Value) String() string {
	switch v.Kind {
	case Number:
		return FormatNumber(v.Num)
	case String:
		return v.Str
	}
	return ""
}

// toNumber converts v to a number as RediSearch does: a string must be a
// number as a whole.
func (v Value) toNumber() (float64, bool) {
	switch v.Kind {
	case Number:
		return v.Num, true
	case String:
		f, err := parseNumber(v.Str)
		return f, err == nil && v.Str != ""
	}
	return 0, false
}

// truthy is RediSearch's boolean test of a value.
func (v Value) truthy() bool {
	switch v.Kind {
	case Number:
		return v.Num != 0
	case String:
		return v.Str != ""
	case Array:
		return len(v.Arr) > 0
	}
	return false
}

// compareValues orders two values as RediSearch's SORTBY and comparisons
// do: same
// types compare directly, null is less than anything, a number compares
// with a string that converts as numbers, else both as strings.
func compareValues(a, b Value) int {
	if a.Kind == Missing {
		a.Kind = Null
	}
	if b.Kind == Missing {
		b.Kind = Null
	}
	if a.Kind == b.Kind {
		switch a.Kind {
		case Number:
			return cmpFloat(a.Num, b.Num)
		case String:
			return strings.Compare(a.Str, b.Str)
		case Array:
			for i := 0; i < len(a.Arr) && i < len(b.Arr); i++ {
				if c := compareValues(a.Arr[i], b.Arr[i]); c != 0 {
					return c
				}
			}
			return cmpInt(len(a.Arr), len(b.Arr))
		}
		return 0
	}
	if a.Kind == Null {
		return -1
	}
	if b.Kind == Null {
		return 1
	}
	if a.Kind == Number {
		if f, ok := b.toNumber(); ok {
			return cmpFloat(a.Num, f)
		}
	} else if b.Kind == Number {
		if f, ok := a.toNumber(); ok {
			return cmpFloat(f, b.Num)
		}
	}
	return strings.Compare(a.String(), b.String())
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// expr is a node of a parsed expression.
type expr struct {
	op   string // "num", "str", "null", "prop", "call", "neg", "not", or a binary operator
	val  Value
	name string // the property or function
	key  int    // the property's lookup key (set when the pipeline is built)
	args []*expr
	fn   *exprFunc
}

// token is a lexed expression token. s and spos are the text RediSearch's
// syntax errors show "near": the last number, string, symbol or property
// lexed, whatever token the error is at.
type exprToken struct {
	kind string // "num", "str", "prop", "sym", "op", "eof"
	text string
	pos  int
	near string
}

type exprLexer struct {
	src     string
	i       int
	near    string
	lastPos int // the last token's offset, where an error at the end is
}

// next lexes the next token; "" kind with an error text on a character
// that starts no token.
func (l *exprLexer) next() (exprToken, error) {
	for l.i < len(l.src) && strings.IndexByte(" \t\r\n", l.src[l.i]) >= 0 {
		l.i++
	}
	if l.i >= len(l.src) {
		return exprToken{kind: "eof", pos: l.lastPos, near: l.near}, nil
	}
	s, start := l.src, l.i
	l.lastPos = start
	c := s[l.i]
	isDigit := func(i int) bool { return i < len(s) && s[i] >= '0' && s[i] <= '9' }
	switch {
	case isDigit(l.i) || c == '-' && isDigit(l.i+1) || c == '.' && isDigit(l.i+1):
		j := l.i
		if s[j] == '-' {
			j++
		}
		for isDigit(j) {
			j++
		}
		if j < len(s) && s[j] == '.' && isDigit(j+1) {
			j++
			for isDigit(j) {
				j++
			}
		}
		if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
			k := j + 1
			if k < len(s) && (s[k] == '-' || s[k] == '+') {
				k++
			}
			if isDigit(k) {
				for isDigit(k) {
					k++
				}
				j = k
			}
		}
		l.i = j
		l.near = s[start:j]
		return exprToken{kind: "num", text: s[start:j], pos: start, near: l.near}, nil
	case c == '"' || c == '\'':
		j := l.i + 1
		for j < len(s) && s[j] != c {
			if s[j] == '\\' && j+1 < len(s) {
				j++
			}
			j++
		}
		if j >= len(s) { // unterminated: the quote is skipped
			l.i++
			return l.next()
		}
		l.i = j + 1
		l.near = s[start:l.i]
		return exprToken{kind: "str", text: unescapeExpr(s[start+1 : j]), pos: start, near: l.near}, nil
	case c == '@':
		j := l.i + 1
		for j < len(s) && isIdentByte(s[j]) {
			j++
		}
		if j == l.i+1 {
			return exprToken{}, errf(errExprSyntax, start, "")
		}
		l.i = j
		l.near = s[start+1 : j]
		return exprToken{kind: "prop", text: s[start+1 : j], pos: start, near: l.near}, nil
	case isIdentByte(c):
		j := l.i
		for j < len(s) && isIdentByte(s[j]) {
			j++
		}
		l.i = j
		l.near = s[start:j]
		return exprToken{kind: "sym", text: s[start:j], pos: start, near: l.near}, nil
	}
	for _, op := range []string{"&&", "||", "==", "!=", "<=", ">=", "<", ">", "+", "-", "*", "/", "%", "^", "!", "(", ")", ","} {
		if strings.HasPrefix(s[l.i:], op) {
			l.i += len(op)
			return exprToken{kind: "op", text: op, pos: start, near: l.near}, nil
		}
	}
	return exprToken{}, errf(errExprSyntax, start, l.near)
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// unescapeExpr drops a backslash before punctuation or a space in a string
// literal.
func unescapeExpr(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (isPunct(s[i+1]) || s[i+1] == ' ') {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isPunct(c byte) bool {
	return c > ' ' && c < 0x7f && !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9')
}

type exprParser struct {
	lex exprLexer
	tok exprToken
	err error
}

// ParseExpr parses an APPLY or FILTER expression.
func ParseExpr(src string) (*expr, error) {
	p := &exprParser{lex: exprLexer{src: src}}
	p.advance()
	e := p.parseBinary(0)
	if p.err == nil && p.tok.kind != "eof" {
		p.syntaxError()
	}
	if p.err != nil {
		return nil, p.err
	}
	return e, nil
}

func (p *exprParser) advance() {
	if p.err != nil {
		return
	}
	t, err := p.lex.next()
	if err != nil {
		p.err = err
		return
	}
	p.tok = t
}

func (p *exprParser) syntaxError() {
	if p.err == nil {
		p.err = errf(errExprSyntax, p.tok.pos, p.tok.near)
	}
}

// binary operators by precedence level, lowest first.
var exprLevels = [][]string{{"||"}, {"&&"}, {"==", "!=", "<", "<=", ">", ">="}, {"+", "-"}, {"*", "/", "%"}, {"^"}}

func (p *exprParser) parseBinary(level int) *expr {
	if level == len(exprLevels) {
		return p.parseUnary()
	}
	left := p.parseBinary(level + 1)
	for p.err == nil && p.tok.kind == "op" && slicesContains(exprLevels[level], p.tok.text) {
		op := p.tok.text
		p.advance()
		var right *expr
		if op == "^" {
			right = p.parseBinary(level) // right associative
		} else {
			right = p.parseBinary(level + 1)
		}
		left = &expr{op: op, args: []*expr{left, right}}
		if op == "^" {
			break
		}
	}
	return left
}

func slicesContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (p *exprParser) parseUnary() *expr {
	if p.err != nil {
		return nil
	}
	t := p.tok
	switch t.kind {
	case "num":
		p.advance()
		f, _ := parseNumber(t.text)
		return &expr{op: "num", val: numVal(f)}
	case "str":
		p.advance()
		return &expr{op: "str", val: strVal(t.text)}
	case "prop":
		p.advance()
		return &expr{op: "prop", name: t.text, key: -1}
	case "sym":
		p.advance()
		if p.tok.kind == "op" && p.tok.text == "(" {
			return p.parseCall(t.text)
		}
		if strings.EqualFold(t.text, "NULL") {
			return &expr{op: "null", val: nullVal()}
		}
		if p.err == nil {
			p.err = errf(errExprSymbol, t.text)
		}
		return nil
	case "op":
		switch t.text {
		case "(":
			p.advance()
			e := p.parseBinary(0)
			if p.err == nil && !(p.tok.kind == "op" && p.tok.text == ")") {
				p.syntaxError()
				return nil
			}
			p.advance()
			return e
		case "-":
			p.advance()
			e := p.parseUnary()
			return &expr{op: "neg", args: []*expr{e}}
		case "!":
			p.advance()
			e := p.parseUnary()
			return &expr{op: "not", args: []*expr{e}}
		}
	}
	p.syntaxError()
	return nil
}

func (p *exprParser) parseCall(name string) *expr {
	p.advance() // (
	e := &expr{op: "call", name: name}
	if p.tok.kind == "op" && p.tok.text == ")" {
		p.advance()
	} else {
		for p.err == nil {
			e.args = append(e.args, p.parseBinary(0))
			if p.err != nil {
				return nil
			}
			if p.tok.kind == "op" && p.tok.text == "," {
				p.advance()
				continue
			}
			if p.tok.kind == "op" && p.tok.text == ")" {
				p.advance()
				break
			}
			p.syntaxError()
			return nil
		}
	}
	if p.err != nil {
		return nil
	}
	fn := exprFuncs[strings.ToLower(name)]
	if fn == nil {
		p.err = errf(errExprFunction, name)
		return nil
	}
	if len(e.args) < fn.min || fn.max >= 0 && len(e.args) > fn.max {
		p.err = errf(errExprFuncArgs, name)
		return nil
	}
	e.fn = fn
	return e
}

// properties calls each for every property e reads, in order.
func (e *expr) properties(each func(*expr) error) error {
	if e == nil {
		return nil
	}
	if e.op == "prop" {
		return each(e)
	}
	for _, a := range e.args {
		if err := a.properties(each); err != nil {
			return err
		}
	}
	return nil
}

// eval evaluates e over a row; get returns a property's value.
func (e *expr) eval(get func(key int) Value, names func(key int) string) (Value, error) {
	switch e.op {
	case "num", "str", "null":
		return e.val, nil
	case "prop":
		v := get(e.key)
		if v.Kind == Missing {
			return Value{}, errf(errExprNoValue, e.name)
		}
		return v, nil
	case "neg":
		v, err := e.args[0].eval(get, names)
		if err != nil {
			return v, err
		}
		f, ok := v.toNumber()
		if !ok {
			return Value{}, Error(errExprNotNumber)
		}
		return numVal(0 - f), nil
	case "not":
		v, err := e.args[0].eval(get, names)
		if err != nil {
			return v, err
		}
		return boolVal(!v.truthy()), nil
	case "call":
		args := make([]Value, len(e.args))
		for i, a := range e.args {
			v, err := a.eval(get, names)
			if err != nil {
				if e.fn.name == "exists" && IsError(err) && a.op == "prop" {
					v, err = Value{}, nil // a property without a value
				} else {
					return v, err
				}
			}
			args[i] = v
		}
		return e.fn.call(args)
	case "&&", "||":
		l, err := e.args[0].eval(get, names)
		if err != nil {
			return l, err
		}
		if e.op == "&&" && !l.truthy() || e.op == "||" && l.truthy() {
			return boolVal(e.op == "||"), nil
		}
		r, err := e.args[1].eval(get, names)
		if err != nil {
			return r, err
		}
		return boolVal(r.truthy()), nil
	}
	l, err := e.args[0].eval(get, names)
	if err != nil {
		return l, err
	}
	r, err := e.args[1].eval(get, names)
	if err != nil {
		return r, err
	}
	switch e.op {
	case "==":
		return boolVal(compareValues(l, r) == 0), nil
	case "!=":
		return boolVal(compareValues(l, r) != 0), nil
	case "<":
		return boolVal(compareValues(l, r) < 0), nil
	case "<=":
		return boolVal(compareValues(l, r) <= 0), nil
	case ">":
		return boolVal(compareValues(l, r) > 0), nil
	case ">=":
		return boolVal(compareValues(l, r) >= 0), nil
	}
	a, ok1 := l.toNumber()
	b, ok2 := r.toNumber()
	if !ok1 || !ok2 {
		return Value{}, Error(errExprNotNumber)
	}
	var res float64
	switch e.op {
	case "+":
		res = a + b
	case "-":
		res = a - b
	case "*":
		res = a * b
	case "/":
		if b == 0 {
			res = math.NaN()
		} else {
			res = a / b
		}
	case "%":
		ib := int64(b)
		if ib == 0 {
			res = math.NaN()
		} else {
			res = float64(int64(a) % ib)
		}
	case "^":
		res = math.Pow(a, b)
	}
	return numVal(res), nil
}
