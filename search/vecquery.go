package search

import (
	"strconv"
	"strings"
)

// The vector parts of the DIALECT 2 query language: a KNN clause after
// the query, "query=>[KNN k @field $blob [EF_RUNTIME n] [AS name]]",
// optionally followed by attributes "=>{$YIELD_DISTANCE_AS: name}"; and a
// range, "@field:[VECTOR_RANGE radius $blob]" with the attributes
// $YIELD_DISTANCE_AS and $EPSILON. Numbers and blobs may be $parameters.

// knnClause is a query's KNN clause.
type knnClause struct {
	k       int
	field   string
	blob    string
	ef      int // 0: the field's EF_RUNTIME
	epsilon bool
	as      string // the name of the distance in the results ("": __field_score)
	// blobName is the parameter the query vector came from; shown
	// lists the runtime options given ("EF_RUNTIME = 5"), in order,
	// for FT.EXPLAIN.
	blobName string
	shown    []string
	// attrs holds the query attributes ($weight, $slop, $inorder,
	// $phonetic) given with the clause: RediSearch accepts and explains
	// them, and they change no KNN result.
	attrs node
}

// arrow reports whether "=>" comes next.
func (p *parser) arrow() bool {
	p.space()
	return strings.HasPrefix(p.q[p.i:], "=>")
}

// vecToken reads the next whitespace-separated token inside a vector
// clause (up to ']' or '}') and its offset; "" at the clause's end.
func (p *parser) vecToken() (string, int) {
	p.space()
	s := p.i
	for p.i < len(p.q) && !strings.ContainsRune(" \t\r\n]};", rune(p.q[p.i])) {
		p.i++
	}
	return p.q[s:p.i], s
}

// param returns the value of PARAMS' name.
func (p *parser) param(name string) (string, error) {
	v, ok := p.params[name]
	if !ok {
		return "", errf(errNoSuchParam, name)
	}
	return v, nil
}

// value reads a token that is a value or a $parameter.
func (p *parser) value(tok string) (string, string, error) {
	if strings.HasPrefix(tok, "$") {
		v, err := p.param(tok[1:])
		return v, tok[1:], err
	}
	return tok, "", nil
}

// count reads a non-negative integer, literal or a parameter.
func (p *parser) count(tok string, at int) (int, error) {
	v, name, err := p.value(tok)
	if err != nil {
		return 0, err
	}
	n, perr := strconv.ParseUint(v, 10, 31)
	switch {
	case perr != nil && name != "":
		return 0, errf(errParamNumeric, v, name)
	case perr != nil:
		return 0, errf(errSyntaxAt, at, tok)
	}
	return int(n), nil
}

// parseKNN parses "=>[KNN ...]" and the attributes after it.
func (p *parser) parseKNN() error {
	p.i += 2
	if p.peek() != '[' {
		return p.errAt(p.i)
	}
	p.i++
	kc := &knnClause{}
	tok, at := p.vecToken()
	if !strings.EqualFold(tok, "KNN") {
		return p.vecErr(tok, at)
	}
	p.tok(at, tok)
	var err error
	tok, at = p.vecToken()
	if tok == "" {
		return p.vecErr(tok, at)
	}
	if kc.k, err = p.count(tok, at); err != nil {
		return err
	}
	p.tok(at, tok)
	tok, at = p.vecToken()
	if !strings.HasPrefix(tok, "@") || len(tok) == 1 {
		return p.vecErr(tok, at)
	}
	kc.field = tok[1:]
	p.tok(at, tok[1:])
	tok, at = p.vecToken()
	if !strings.HasPrefix(tok, "$") {
		return p.vecErr(tok, at)
	}
	p.tok(at, tok[1:])
	if kc.blob, err = p.param(tok[1:]); err != nil {
		return err
	}
	kc.blobName = tok[1:]
	for {
		tok, at = p.vecToken()
		switch up := strings.ToUpper(tok); up {
		case "":
			if p.i >= len(p.q) || p.q[p.i] != ']' {
				return p.vecErr(tok, at)
			}
			p.i++
			p.knn = kc
			if p.arrow() {
				return p.attributes(func(name, v string) error {
					switch strings.ToUpper(name) {
					case "YIELD_DISTANCE_AS":
						kc.as = v
					case "EF_RUNTIME":
						n, err := strconv.ParseUint(v, 10, 31)
						if err != nil {
							return Error(errVectorOption)
						}
						kc.ef = int(n)
						kc.shown = append(kc.shown, "EF_RUNTIME = "+v)
					case "EPSILON":
						kc.epsilon = true
						kc.shown = append(kc.shown, "EPSILON = "+v)
					default:
						return setAttribute(&kc.attrs, name, v)
					}
					return nil
				})
			}
			return nil
		case "AS", "EF_RUNTIME", "EPSILON":
			p.tok(at, tok)
			v, vat := p.vecToken()
			if v == "" {
				return p.vecErr(v, vat)
			}
			p.tok(vat, v)
			switch up {
			case "AS":
				kc.as = v
			case "EF_RUNTIME":
				if kc.ef, err = p.count(v, vat); err != nil {
					return err
				}
				kc.shown = append(kc.shown, "EF_RUNTIME = "+strconv.Itoa(kc.ef))
			case "EPSILON":
				kc.epsilon = true
				if v, _, err = p.value(v); err != nil {
					return err
				}
				kc.shown = append(kc.shown, "EPSILON = "+v)
			}
		default:
			return p.vecErr(tok, at)
		}
	}
}

// vecErr is the syntax error at a vector clause's token tok (at offset
// at), or at its unexpected end.
func (p *parser) vecErr(tok string, at int) error {
	if tok != "" {
		return errf(errSyntaxAt, at, tok)
	}
	if p.i < len(p.q) {
		return errf(errSyntaxAt, p.i, p.lastTxt)
	}
	return errf(errSyntaxAt, p.lastTok, p.lastTxt)
}

// attributes parses "=>{$name: value; ...}" (p.i at "=>"), giving each
// attribute to set. As RediSearch's grammar has them: attributes are
// separated by ';' (empty ones allowed, a last ';' too), white space may
// stand between any two tokens and need not ("$weight:2"), and a syntax
// error names the offending token's offset with its text, or, for a token
// without text (':', ';', '}', punctuation), the last text read: the
// attribute's name, or ">{" (RediSearch's text of the "=>{" token).
func (p *parser) attributes(set func(name, value string) error) error {
	arrow := p.i
	p.i += 2
	if p.peek() != '{' {
		return p.errAt(p.i)
	}
	p.tok(arrow+1, p.q[arrow+1:p.i+1])
	p.i++
	const (
		wantName = iota
		wantColon
		wantValue
		wantSep
	)
	state, name := wantName, ""
	for {
		p.space()
		at := p.i
		if at >= len(p.q) {
			return errf(errSyntaxAt, p.lastTok, p.lastTxt)
		}
		c := p.q[at]
		switch {
		case (c == '}' || c == ';') && (state == wantName || state == wantSep):
			p.i++
			if c == '}' {
				return nil
			}
			state = wantName
		case c == '$' && state == wantName && at+1 < len(p.q) && isAttrNameByte(p.q[at+1]):
			p.i++
			for p.i < len(p.q) && isAttrNameByte(p.q[p.i]) {
				p.i++
			}
			name = p.q[at+1 : p.i]
			p.tok(at, name)
			state = wantColon
		case c == ':' && state == wantColon:
			p.i++
			state = wantValue
		case state == wantValue && !strings.ContainsRune(":]};", rune(c)):
			for p.i < len(p.q) && !strings.ContainsRune(" \t\r\n]};", rune(p.q[p.i])) {
				p.i++
			}
			v := p.q[at:p.i]
			if err := set(name, v); err != nil {
				return err
			}
			p.tok(at, v)
			state = wantSep
		case c == '$' && at+1 < len(p.q) && isAttrNameByte(p.q[at+1]):
			end := at + 1
			for end < len(p.q) && isAttrNameByte(p.q[end]) {
				end++
			}
			return errf(errSyntaxAt, at, p.q[at+1:end])
		case c == '$':
			p.i++ // a '$' before no name is skipped, as RediSearch's lexer does
		case isTermByte(c):
			end := at
			for end < len(p.q) && isTermByte(p.q[end]) {
				end++
			}
			return errf(errSyntaxAt, at, p.q[at:end])
		default:
			return errf(errSyntaxAt, at, p.lastTxt)
		}
	}
}

// isAttrNameByte reports whether c may be part of an attribute's name.
func isAttrNameByte(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// isVectorRange reports whether the '[' next opens a VECTOR_RANGE.
func (p *parser) isVectorRange() bool {
	rest := strings.TrimLeft(p.q[p.i+1:], " \t")
	return len(rest) >= 12 && strings.EqualFold(rest[:12], "VECTOR_RANGE")
}

// vectorRange parses "[VECTOR_RANGE radius $blob]" and its attributes,
// for the field name.
func (p *parser) vectorRange(name string) (*node, error) {
	p.i++ // '['
	tok, at := p.vecToken()
	p.tok(at, tok)
	tok, at = p.vecToken()
	v, pname, err := p.value(tok)
	if err != nil {
		return nil, err
	}
	radius, ok := parseRangeNumber(v)
	switch {
	case !ok && pname != "":
		return nil, errf(errParamNumeric, v, pname)
	case !ok:
		return nil, p.vecErr(tok, at)
	}
	p.tok(at, tok)
	tok, at = p.vecToken()
	if !strings.HasPrefix(tok, "$") {
		return nil, p.vecErr(tok, at)
	}
	p.tok(at, tok[1:])
	blob, err := p.param(tok[1:])
	if err != nil {
		return nil, err
	}
	if p.peek() != ']' {
		return nil, p.vecErr("", p.i)
	}
	p.i++
	n := &node{op: opVecRange, field: p.s.Field(name), min: radius, blob: blob}
	if p.arrow() {
		err := p.attributes(func(name, v string) error {
			switch strings.ToUpper(name) {
			case "YIELD_DISTANCE_AS":
				n.word = v
			case "EPSILON":
				if f := n.field; f != nil && f.Type == Vector && f.Vector.Algorithm != "HNSW" {
					return Error(errVectorOption)
				}
			default:
				return Error(errVectorOption)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if n.field == nil || n.field.Type != Vector {
		return &node{op: opNone}, nil
	}
	if err := checkBlob(n.field, blob); err != nil {
		return nil, err
	}
	if radius < 0 {
		return nil, errf(errVectorRadius, formatShortest(radius))
	}
	return n, nil
}

// checkBlob checks a query vector's size against the field f's.
func checkBlob(f *Field, blob string) error {
	if want := f.Vector.blobSize(); len(blob) != want {
		return errf(errVectorBlobSize, len(blob), want)
	}
	return nil
}

// formatDistance formats a distance as RediSearch's replies do (%.12g).
func formatDistance(d float64) string { return strconv.FormatFloat(d, 'g', 12, 64) }
