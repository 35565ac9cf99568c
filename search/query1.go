package search

import "strings"

// DIALECT 1's grammar (RediSearch's v1 parser.y) is an LALR grammar whose
// conflicts its token precedences settle, and it binds differently from
// DIALECT 2: "|" binds tighter than juxtaposition ("a "b c" d | e" is
// a AND "b c" AND (d OR e)), runs of plain words form one intersection
// first ("-a b c" is NOT (a b c)), "-" takes what follows it up to a
// phrase or another "-", and "@field:" takes one operand and the unions
// after it. parse1 reproduces those decisions with a shift-reduce parser
// over the same precedences; the operands (words, phrases, prefixes, tag
// sets, numeric ranges, groups) are read as in DIALECT 2.

// Token precedences, lowest first, as v1 parser.y declares them.
const (
	precLowest = iota
	precTilde
	precTaglist
	precQuote
	precColon
	precMinus
	precNumber
	precStopword
	precTermlist
	precTerm
	precPrefix
	precPercent
	precAttribute
	precLP
	precRP
	precModifier
	precAnd
	precOr
	precOrx
)

// kind1 is the kind of a DIALECT 1 token or stack item.
type kind1 uint8

const (
	k1Expr  kind1 = iota // an operand (on the stack: a reduced expression)
	k1Minus              // -
	k1Mod                // @field: (not followed by a tag set or a range)
	k1LP                 // (
	k1RP                 // )
	k1Or                 // |
	k1Attr               // =>{...}: attributes of the expression before
	k1End
)

type tok1 struct {
	kind  kind1
	tilde bool  // k1Minus: "~", which binds as "-" does and makes an optional operand
	prec  int   // of the token the item starts with
	n     *node // k1Expr (nil: a stop word)
	mask  fieldMask
	at    int
}

// parse1 parses q at DIALECT 1.
func (p *parser) parse1() (*node, error) {
	if strings.TrimSpace(p.q) == "*" {
		return &node{op: opWildcard}, nil
	}
	var stack []tok1
	isExpr := func(i int) bool { return i >= 0 && i < len(stack) && stack[i].kind == k1Expr }
	// reduce applies the rules the top of the stack completes, for as
	// long as RediSearch's parser would reduce rather than shift la.
	reduce := func(la tok1) {
		// la can continue an expression: a new operand (juxtaposition)
		// or "|".
		shiftable := la.kind == k1Expr || la.kind == k1Minus || la.kind == k1Mod || la.kind == k1LP || la.kind == k1Or
		for {
			top := len(stack) - 1
			switch {
			case isExpr(top) && isExpr(top-1): // expr expr [AND]
				if shiftable && la.prec > precAnd {
					return
				}
				b, c := stack[top-1].n, stack[top].n
				stack = stack[:top-1]
				stack = append(stack, tok1{kind: k1Expr, n: and1(b, c)})
			case isExpr(top) && top >= 1 && stack[top-1].kind == k1Minus: // MINUS expr
				if shiftable && la.prec > precMinus {
					return
				}
				b, tilde := stack[top].n, stack[top-1].tilde
				stack = stack[:top-1]
				if b != nil {
					noExpand(b)
					op := opNot
					if tilde {
						op = opOptional
					}
					b = &node{op: op, kids: []*node{b}}
				}
				stack = append(stack, tok1{kind: k1Expr, n: b})
			case isExpr(top) && top >= 1 && stack[top-1].kind == k1Mod: // modifier COLON expr
				if shiftable && la.prec > precModifier {
					return
				}
				b, mask := stack[top].n, stack[top-1].mask
				stack = stack[:top-1]
				if b != nil {
					andMask(b, mask)
				}
				stack = append(stack, tok1{kind: k1Expr, n: b})
			case isExpr(top) && top >= 2 && stack[top-1].kind == k1Or && isExpr(top-2): // expr OR expr
				b, c := stack[top-2].n, stack[top].n
				stack = stack[:top-2]
				stack = append(stack, tok1{kind: k1Expr, n: or1(b, c)})
			default:
				return
			}
		}
	}
	for {
		t, err := p.next1()
		if err != nil {
			return nil, err
		}
		if t.kind == k1Attr {
			// Attributes bind to the expression right before them,
			// before anything reduces it.
			top := len(stack) - 1
			if !isExpr(top) {
				return nil, errf(errSyntaxAt, t.at, p.lastTxt)
			}
			if n := stack[top].n; n != nil {
				if t.n.weighted {
					n.weight, n.weighted = t.n.weight, true
				}
				if t.n.slopSet {
					n.slop, n.inOrder, n.slopSet = t.n.slop, t.n.inOrder, true
				}
				if t.n.phonetic != phoneticDefault {
					n.phonetic = t.n.phonetic
				}
			}
			continue
		}
		reduce(t)
		if len(stack) > maxDepth {
			return nil, Error(errStackOverflow)
		}
		top := len(stack) - 1
		switch t.kind {
		case k1End:
			switch {
			case len(stack) == 0:
				return nil, nil
			case len(stack) == 1 && isExpr(0):
				return stack[0].n, nil
			}
			return nil, errf(errSyntaxAt, p.lastTok, p.lastTxt)
		case k1RP:
			if !isExpr(top) || top < 1 || stack[top-1].kind != k1LP {
				return nil, errf(errSyntaxAt, t.at, p.lastTxt)
			}
			e := stack[top]
			stack = append(stack[:top-1], tok1{kind: k1Expr, n: e.n})
		case k1Or:
			if !isExpr(top) {
				return nil, errf(errSyntaxAt, t.at, "|")
			}
			stack = append(stack, t)
		default:
			stack = append(stack, t)
		}
	}
}

// and1 is v1's "expr expr": a plain intersection (not a phrase, no field
// modifier) on the left takes the right operand as one more child.
func and1(b, c *node) *node {
	switch {
	case b == nil:
		return c
	case c == nil:
		return b
	case b.op == opAnd && !b.masked && b.tagField == "":
		b.kids = append(b.kids, c)
		return b
	}
	return &node{op: opAnd, kids: []*node{b, c}}
}

// or1 is v1's "expr | expr": a union on the left (without a field
// modifier) takes the right operand as one more child.
func or1(b, c *node) *node {
	switch {
	case b == nil:
		return c
	case c == nil:
		return b
	case b.op == opOr && !b.masked && !b.tagSet:
		b.kids = append(b.kids, c)
		return b
	}
	return &node{op: opOr, kids: []*node{b, c}}
}

// andMask restricts the text terms under n to mask too (masks of nested
// modifiers intersect).
func andMask(n *node, mask fieldMask) {
	switch n.op {
	case opTerm, opPrefix, opSuffix, opFuzzy:
		n.mask = n.mask.and(mask)
	case opNumeric, opTag, opTagPrefix, opTagSuffix, opWildcard, opGeo:
		return
	}
	if !n.masked {
		n.mask = allFields
	}
	n.mask = n.mask.and(mask)
	for _, k := range n.kids {
		andMask(k, mask)
	}
	n.masked = true
}

// next1 reads the next DIALECT 1 token. Runs of plain words are one
// operand (RediSearch's termlist); a stop word is an operand that matches
// nothing (dropped by the rules that combine it).
func (p *parser) next1() (tok1, error) {
	c := p.peek()
	at := p.i
	switch {
	case c == 0:
		return tok1{kind: k1End, at: at}, nil
	case c == '(':
		p.i++
		p.tok(at, "(")
		return tok1{kind: k1LP, prec: precLP, at: at}, nil
	case c == ')':
		p.i++
		return tok1{kind: k1RP, prec: precRP, at: at}, nil
	case c == '|':
		p.i++
		return tok1{kind: k1Or, prec: precOr, at: at}, nil
	case c == '-':
		p.i++
		p.tok(at, "-")
		return tok1{kind: k1Minus, prec: precMinus, at: at}, nil
	case c == '~':
		p.i++
		p.tok(at, "~")
		return tok1{kind: k1Minus, prec: precMinus, at: at, tilde: true}, nil
	case c == '=' && p.attributesNext():
		n := &node{}
		if err := p.nodeAttributes(n); err != nil {
			return tok1{}, err
		}
		return tok1{kind: k1Attr, prec: precAttribute, n: n, at: at}, nil
	case c == '=' && p.arrow():
		return tok1{}, p.arrowErr() // DIALECT 1 has no KNN clause
	case c == '@':
		names, mask, err := p.modifierHead()
		if err != nil {
			return tok1{}, err
		}
		switch p.peek() {
		case '[':
			n, err := p.numeric(names[0])
			return tok1{kind: k1Expr, prec: precModifier, n: n, at: at}, err
		case '{':
			n, err := p.tagSet(names[0])
			if err == nil {
				n, err = p.tagsContinued(names[0], n)
			}
			if n != nil && n.op == opOr {
				n.masked = true // a tag set is not a union "|" extends
			}
			return tok1{kind: k1Expr, prec: precModifier, n: n, at: at}, err
		}
		return tok1{kind: k1Mod, prec: precModifier, mask: mask, at: at}, nil
	case c == '*' && p.i+1 < len(p.q) && p.q[p.i+1] != '*' && isTermByte(p.q[p.i+1]):
		p.i++
		return tok1{kind: k1Expr, prec: precPrefix, n: p.suffix(at), at: at}, nil
	case c == '"' && p.i+1 < len(p.q) && p.q[p.i+1] == '"':
		// DIALECT 1 has no empty string: its error names the last
		// word or field read.
		return tok1{}, errf(errSyntaxAt, p.i+1, lastText1(p.q[:p.i]))
	case c == '"':
		n, err := p.phrase()
		return tok1{kind: k1Expr, prec: precQuote, n: n, at: at}, err
	case c == '%':
		n, err := p.fuzzyTerm()
		return tok1{kind: k1Expr, prec: precPercent, n: n, at: at}, err
	case c == '$':
		_, err := p.paramTerm() // DIALECT 1 has no parameter here
		return tok1{}, err
	case isTermByte(c):
		w := p.word()
		if p.i < len(p.q) && p.q[p.i] == '*' {
			p.i++
			n := &node{op: opPrefix, word: w, mask: allFields}
			if len(w) < p.minPrefix {
				n = &node{op: opNone, none: opPrefix, word: w, mask: allFields}
			}
			return tok1{kind: k1Expr, prec: precPrefix, n: n, at: at}, nil
		}
		if w == "" || p.stop.has(w) {
			return tok1{kind: k1Expr, prec: precStopword, at: at}, nil
		}
		first := &node{op: opTerm, word: w, mask: allFields, expand: true}
		list := []*node{first}
		for {
			save, lt, ltx := p.i, p.lastTok, p.lastTxt
			if c := p.peek(); !isTermByte(c) {
				p.i = save
				break
			}
			w2 := p.word()
			if p.i < len(p.q) && p.q[p.i] == '*' || w2 == "" || p.stop.has(w2) {
				p.i, p.lastTok, p.lastTxt = save, lt, ltx
				break
			}
			list = append(list, &node{op: opTerm, word: w2, mask: allFields, expand: true})
		}
		if len(list) == 1 {
			return tok1{kind: k1Expr, prec: precTerm, n: first, at: at}, nil
		}
		return tok1{kind: k1Expr, prec: precTerm, n: &node{op: opAnd, kids: list}, at: at}, nil
	}
	return tok1{}, p.errAt(p.i)
}

// lastText1 is the text of the last token of DIALECT 1's lexer that has
// one in before: a word or a field modifier's last field ("-" and "("
// have none).
func lastText1(before string) string {
	before = strings.TrimRight(before, " \t-(")
	if strings.HasSuffix(before, ":") {
		before = before[:len(before)-1]
		return before[strings.LastIndexAny(before, "@|")+1:]
	}
	e := len(before)
	s := e
	for s > 0 && isTermByte(before[s-1]) {
		s--
	}
	return before[s:e]
}

// tagsContinued reads what DIALECT 1's grammar adds to a tag set after its
// closing brace: "| value" (a word, a stop word, a prefix or a run of
// words) goes on as one more alternative of the set; anything else after
// "|" is a syntax error. n is the set read so far.
func (p *parser) tagsContinued(field string, n *node) (*node, error) {
	f := p.s.Field(field)
	isTag := f != nil && f.Type == Tag && !f.NoIndex
	for p.peek() == '|' {
		save := p.i
		p.i++
		c := p.peek()
		if !isTermByte(c) {
			near := p.lastTxt
			if c == '@' {
				e := p.i + 1
				for e < len(p.q) && isTermByte(p.q[e]) {
					e++
				}
				near = p.q[p.i+1 : e]
			}
			if c == 0 {
				p.i = save
				return n, nil // "|" at the end: the parser's error
			}
			return nil, errf(errSyntaxAt, p.i, near)
		}
		var words []*node
		for isTermByte(p.peek()) {
			s := p.i
			for p.i < len(p.q) {
				ch := p.q[p.i]
				if ch == '\\' && p.i+1 < len(p.q) {
					p.i += 2
					continue
				}
				if !isTermByte(ch) || ch == '*' {
					break
				}
				p.i++
			}
			raw := p.q[s:p.i]
			p.tok(s, raw)
			op := opTag
			if p.i < len(p.q) && p.q[p.i] == '*' {
				p.i++
				op = opTagPrefix
			}
			v := unescape(raw)
			if f != nil && !f.CaseSensitive {
				v = lowerASCII(v)
			}
			if op == opTagPrefix && len(v) < p.minPrefix {
				words = append(words, &node{op: opNone, none: opTagPrefix, word: v})
			} else {
				words = append(words, &node{op: op, word: v, field: f})
			}
			if op == opTagPrefix {
				break
			}
		}
		if !isTag {
			continue
		}
		alt := words[0]
		if len(words) > 1 {
			alt = &node{op: opAnd, kids: words}
		}
		switch {
		case n.op == opNone:
			n = alt
		case n.op == opOr:
			n.kids = append(n.kids, alt)
		default:
			n.tagField = ""
			n = &node{op: opOr, kids: []*node{n, alt}, tagSet: true}
		}
		n.tagField = field
	}
	return n, nil
}
