package search

import (
	"math"
	"strconv"
	"strings"
)

// opKind is the kind of a query node.
type opKind uint8

const (
	opTerm      opKind = iota // word (expanded with its stems unless verbatim)
	opPrefix                  // word*
	opPhrase                  // "w1 w2 ...": kids are opTerm, consecutive and in order
	opAnd                     // intersection
	opOr                      // union
	opNot                     // negation of kids[0]
	opNumeric                 // @f:[min max]
	opTag                     // one tag value of a TAG field
	opTagPrefix               // a tag prefix
	opWildcard                // *: every document
	opIDs                     // INKEYS: the documents of ids
	opNone                    // matches nothing (a prefix too short, a range on a field that is not NUMERIC)
	opVecRange                // @v:[VECTOR_RANGE radius $blob]
	opGeo                     // @g:[lon lat radius unit], GEOFILTER
	opMissing                 // ismissing(@f): the documents without f (INDEXMISSING)
	opEmpty                   // "" (DIALECT 2): the empty term (INDEXEMPTY)
	opSuffix                  // *word (contains: *word*): the terms that end with (contain) word
	opTagSuffix               // {*value} and {*value*} of a TAG field
	opFuzzy                   // %word%: the terms within fuzzy edits of word
	opOptional                // ~x: kids[0] scores where it matches, and filters nothing
)

// node is a node of a parsed query.
type node struct {
	op     opKind
	word   string
	mask   fieldMask // TEXT fields a term may match (allFields: any)
	masked bool      // an @field: modifier set mask
	expand bool      // opTerm: add its stems (not under a negation or in a phrase)
	field  *Field    // opNumeric, opTag
	min    float64
	max    float64
	minEx  bool
	maxEx  bool
	kids   []*node
	ids    []uint32   // opIDs, ascending
	blob   string     // opVecRange: the query vector (min is the radius, word the yield's name)
	geo    *geoFilter // opGeo
	// tagSet marks the union of a tag set's alternatives: RediSearch
	// keeps it a union even when only one alternative has documents.
	tagSet bool
	// tagField is the field name of a tag set, on the node the set
	// became (FT.EXPLAIN's "TAG:@field").
	tagField string
	// none is, for an opNone, what the query said (opNumeric, opTag,
	// opPrefix, opTagPrefix), for FT.EXPLAIN, which prints it as
	// RediSearch parsed it: word is then the field name or the prefix.
	none opKind
	// contains marks *word* (opSuffix, opTagSuffix).
	contains bool
	fuzzy    int // opFuzzy: the edits allowed (1 to 3)
	// weight, set by a $weight attribute (weighted), multiplies the
	// score of the node's records; slop and inOrder (slopSet) are an
	// intersection's $slop and $inorder.
	weight   float64
	weighted bool
	slop     int
	inOrder  bool
	slopSet  bool
	// phonetic is a term's $phonetic: whether its phonetic code is one
	// of its expansions (by default, when it may match a PHONETIC field).
	phonetic phoneticMode
}

// parser parses the query language of DIALECT 1 and 2.
type parser struct {
	s       *Schema
	stop    stopwordSet
	q       string
	i       int
	dialect int
	lastTok int // offset of the last token read, for errors
	lastTxt string
	inMod   int               // DIALECT 2: operands of field modifiers being read
	depth   int               // DIALECT 2: nested groups, negations and modifiers being read
	params  map[string]string // PARAMS (DIALECT 2)
	knn     *knnClause        // the query's "=>[KNN ...]" (vecquery.go)
	// parens counts the groups being read; compound marks a query
	// whose top level (outside groups) holds more than one operand, a
	// "|", or a "-" or "~": RediSearch's grammar then takes a KNN
	// clause's "=>" for an attribute list's (DIALECT 2).
	parens   int
	compound bool
	// minPrefix is RediSearch's MINPREFIX: a shorter prefix expands to
	// no term.
	minPrefix int
}

// maxDepth bounds the nesting of a query (groups, negations, modifiers),
// so that a hostile query cannot exhaust the stack. RediSearch's parsers
// stop at a depth of their own (about 100).
const maxDepth = 1000

// parseQuery parses q against schema s at the given dialect (1, or 2 and
// above: 3 parses as 2). It returns nil for a query that matches nothing
// (only stop words).
func parseQuery(s *Schema, stop stopwordSet, q string, dialect int, cfg *Config) (*node, error) {
	n, knn, err := parseQueryParams(s, stop, q, dialect, cfg, nil)
	if err == nil && knn != nil {
		return nil, errf(errNotSupported, "A KNN clause here") // FT.SEARCH only, so far
	}
	return n, err
}

// parseQueryParams is parseQuery with the values of PARAMS, which a
// DIALECT 2 query names as $name, and a KNN clause, returned apart from
// the query whose documents it ranks.
func parseQueryParams(s *Schema, stop stopwordSet, q string, dialect int, cfg *Config, params map[string]string) (*node, *knnClause, error) {
	p := &parser{s: s, stop: stop, q: q, dialect: dialect, params: params, minPrefix: int(cfg.MinPrefix())}
	if dialect == 1 {
		n, err := p.parse1()
		if err == nil && n != nil {
			err = p.checkSuffix(n)
		}
		return n, nil, err
	}
	n, err := p.union()
	if err != nil {
		return nil, nil, err
	}
	if p.arrow() {
		if j := p.afterArrow(); p.compound || j >= len(p.q) || p.q[j] != '[' {
			return nil, nil, p.arrowErr()
		}
		if err := p.parseKNN(); err != nil {
			return nil, nil, err
		}
	}
	p.space()
	if p.i < len(p.q) {
		return nil, nil, p.errAt(p.i)
	}
	return n, p.knn, nil
}

// afterArrow returns the offset of what follows the "=>" at p.i, white
// space skipped.
func (p *parser) afterArrow() int {
	j := p.i + 2
	for j < len(p.q) && (p.q[j] == ' ' || p.q[j] == '\t') {
		j++
	}
	return j
}

// arrowErr is RediSearch's error for the "=>" at p.i where its grammar
// wants an attribute list's "{": a KNN clause in DIALECT 1, or after a
// query with more than one operand at its top level in DIALECT 2, or no
// "[" in DIALECT 2. It
// names what follows, or, for punctuation, the "=>"'s next two bytes.
func (p *parser) arrowErr() error {
	j := p.afterArrow()
	switch {
	case j >= len(p.q):
		return errf(errSyntaxAt, p.i, p.q[p.i+1:p.i+2])
	case isTermByte(p.q[j]):
		e := j
		for e < len(p.q) && isTermByte(p.q[e]) {
			e++
		}
		return errf(errSyntaxAt, j, p.q[j:e])
	}
	return errf(errSyntaxAt, j, p.q[p.i+1:min(p.i+3, len(p.q))])
}

func (p *parser) errAt(i int) error {
	if i >= len(p.q) {
		return errf(errSyntaxAt, p.lastTok, p.lastTxt)
	}
	if p.q[i] == ')' {
		// RediSearch's ")" has no text: its error names the last
		// token's.
		return errf(errSyntaxAt, i, p.lastTxt)
	}
	end := i + 1
	for end < len(p.q) && isTermByte(p.q[end]) && isTermByte(p.q[i]) {
		end++
	}
	return errf(errSyntaxAt, i, p.q[i:end])
}

func (p *parser) space() {
	for p.i < len(p.q) && (p.q[p.i] == ' ' || p.q[p.i] == '\t' || p.q[p.i] == '\n' || p.q[p.i] == '\r') {
		p.i++
	}
}

// peek skips white space and the bytes RediSearch's lexer skips between
// tokens (ignored), and returns the next byte (0 at the end).
func (p *parser) peek() byte {
	for {
		p.space()
		if p.i >= len(p.q) {
			return 0
		}
		if !p.ignored(p.i) {
			return p.q[p.i]
		}
		p.i++
	}
}

// ignored reports whether the byte at i starts no token of the dialect,
// so that RediSearch's lexer skips it: a control byte, punctuation no
// token starts with, a "'" that opens no quoted text ("ab'" is ab), an
// "@" or "$" before no name, a "+" that signs no number (DIALECT 2).
func (p *parser) ignored(i int) bool {
	c := p.q[i]
	var next byte
	if i+1 < len(p.q) {
		next = p.q[i+1]
	}
	switch c {
	case '!', '#', '&', ',', '.', '/', '<', '>', '?', '^', '`':
		return true
	case '=':
		return next != '>'
	case '+':
		return p.dialect == 1 || next < '0' || next > '9'
	case '@', '$':
		return !isTermByte(next)
	case '\'':
		return p.dialect == 1 || next != '\'' && p.verbatimEnd(i) < 0
	}
	return c < ' ' || c == 0x7f
}

// verbatimEnd returns the offset of the "'" that closes the quoted text
// opened at i (DIALECT 2's 'text', escapes kept), -1 when none does or
// the text is empty.
func (p *parser) verbatimEnd(i int) int {
	for j := i + 1; j < len(p.q); j++ {
		switch p.q[j] {
		case '\\':
			j++
		case '\'':
			if j == i+1 {
				return -1
			}
			return j
		}
	}
	return -1
}

// union: inter ('|' inter)* (DIALECT 2).
func (p *parser) union() (*node, error) {
	var kids []*node
	for {
		n, err := p.inter()
		if err != nil {
			return nil, err
		}
		switch {
		case n == nil:
		case len(kids) == 0 && n.op == opOr && !n.masked && !n.tagSet && !n.weighted && !n.slopSet:
			// "(a | b) | c" is one union of a, b and c, as
			// RediSearch's grammar builds it.
			kids = append(kids, n.kids...)
		default:
			kids = append(kids, n)
		}
		if p.peek() != '|' {
			break
		}
		p.i++
		p.compound = p.compound || p.parens == 0
	}
	switch len(kids) {
	case 0:
		return nil, nil
	case 1:
		return kids[0], nil
	}
	return &node{op: opOr, kids: kids}, nil
}

// inter: unary+ up to '|', ')' or the end (DIALECT 2).
func (p *parser) inter() (*node, error) {
	var kids []*node
	read := 0 // operands read, stop words included
	for {
		c := p.peek()
		if c == 0 || c == '|' || c == ')' || p.arrow() && !p.attributesNext() {
			break
		}
		if read++; read > 1 && p.parens == 0 {
			p.compound = true
		}
		n, err := p.unary()
		if err != nil {
			return nil, err
		}
		if n, err = p.prefixesAfter(n); err != nil {
			return nil, err
		}
		for p.attributesNext() {
			if err := p.nodeAttributes(n); err != nil {
				return nil, err
			}
		}
		switch {
		case n == nil:
		case len(kids) == 0 && n.op == opAnd && !n.masked && n.tagField == "" && !n.weighted && !n.slopSet:
			// "(a b) c" is one intersection of a, b and c, as
			// RediSearch's grammar builds it ("a (b c)" is not).
			kids = append(kids, n.kids...)
		default:
			kids = append(kids, n)
		}
	}
	switch len(kids) {
	case 0:
		return nil, nil
	case 1:
		return kids[0], nil
	}
	return &node{op: opAnd, kids: kids}, nil
}

// operand parses what a negation or a field modifier applies to: the next
// unary and the prefixes right after it (DIALECT 2; DIALECT 1 is
// parse1's).
func (p *parser) operand() (*node, error) {
	n, err := p.unary()
	if err != nil {
		return nil, err
	}
	if n, err = p.prefixesAfter(n); err != nil {
		return nil, err
	}
	// Attributes bind to the operand, inside a "-" or "~" before it.
	for p.attributesNext() {
		if err := p.nodeAttributes(n); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// prefixesAfter groups n with the prefixes ("ap*") that follow it, as
// DIALECT 2's grammar binds them (a prefix binds tighter than
// juxtaposition): "x p1" is the intersection of x and p1, "x p1 p2 p3"
// that of x and (p1 and (p2 and p3)).
func (p *parser) prefixesAfter(n *node) (*node, error) {
	var chain []*node
	for p.nextIsPrefix() {
		k, err := p.unary()
		if err != nil {
			return nil, err
		}
		chain = append(chain, k)
	}
	if len(chain) == 0 {
		return n, nil
	}
	p.compound = p.compound || p.parens == 0
	g := chain[len(chain)-1]
	for i := len(chain) - 2; i >= 0; i-- {
		g = and1(chain[i], g)
	}
	return and1(n, g), nil
}

// nextIsPrefix reports whether the next token is a prefix (a word and a
// '*').
func (p *parser) nextIsPrefix() bool {
	c := p.peek()
	if !isTermByte(c) {
		return false
	}
	i := p.i
	for i < len(p.q) {
		if p.q[i] == '\\' && i+1 < len(p.q) {
			i += 2
			continue
		}
		if !isTermByte(p.q[i]) {
			break
		}
		i++
	}
	return i < len(p.q) && p.q[i] == '*'
}

// unary parses one operand.
func (p *parser) unary() (*node, error) {
	if p.peek() == 0 {
		return nil, errf(errSyntaxAt, p.lastTok, p.lastTxt) // an operator at the end
	}
	if p.depth++; p.depth > maxDepth {
		return nil, Error(errStackOverflow)
	}
	defer func() { p.depth-- }()
	start := p.i
	switch c := p.q[p.i]; {
	case c == '-':
		p.i++
		p.tok(start, "-")
		p.compound = p.compound || p.parens == 0
		n, err := p.operand()
		if err != nil || n == nil {
			return nil, err
		}
		noExpand(n)
		return &node{op: opNot, kids: []*node{n}}, nil
	case c == '@':
		if p.inMod > 0 {
			// DIALECT 2 has no field modifier inside another's operand.
			e := p.i + 1
			for e < len(p.q) && isTermByte(p.q[e]) {
				e++
			}
			return nil, errf(errSyntaxAt, p.i, p.q[p.i+1:e])
		}
		return p.modifier()
	case c == '(':
		p.i++
		p.tok(start, "(")
		p.parens++
		n, err := p.union()
		p.parens--
		if err != nil {
			return nil, err
		}
		if p.peek() != ')' {
			return nil, p.errAt(p.i)
		}
		p.i++
		return n, nil
	case (c == '"' || c == '\'') && p.i+1 < len(p.q) && p.q[p.i+1] == c:
		// "" or '': the empty string (INDEXEMPTY's), not a phrase.
		p.i += 2
		p.tok(start, "")
		if p.i < len(p.q) && p.q[p.i] == '*' {
			return nil, errf(errSyntaxAt, p.i, "")
		}
		return &node{op: opEmpty, mask: allFields}, nil
	case c == '\'':
		// 'text' (RediSearch's verbatim text) has no place here.
		end := p.verbatimEnd(p.i)
		return nil, errf(errSyntaxAt, p.i, p.q[p.i+1:end])
	case c == '$':
		return p.paramTerm()
	case c == '"':
		return p.phrase()
	case c == '%':
		return p.fuzzyTerm()
	case c == '~':
		p.i++
		p.tok(start, "~")
		p.compound = p.compound || p.parens == 0
		n, err := p.operand()
		if err != nil || n == nil {
			return nil, err
		}
		noExpand(n) // as under a negation
		return &node{op: opOptional, kids: []*node{n}}, nil
	case c == '*' && p.i+1 < len(p.q) && p.q[p.i+1] != '*' && isTermByte(p.q[p.i+1]):
		p.i++
		return p.suffix(start), nil
	case c == '*' && (p.i+1 == len(p.q) || !isTermByte(p.q[p.i+1])):
		// "*" is a whole query (maybe ranked by a KNN clause), never an
		// operand among others: RediSearch's grammar has no place for it
		// there, and its error names the last token's text.
		for i := range start {
			if c := p.q[i]; c != '(' && c != ' ' && c != '\t' && c != '\r' && c != '\n' && !p.ignored(i) {
				return nil, errf(errSyntaxAt, start, p.lastTxt)
			}
		}
		p.i++
		p.tok(start, "*")
		if c := p.peek(); c != 0 && c != ')' && !p.arrow() {
			return nil, p.errAt(p.i)
		}
		return &node{op: opWildcard}, nil
	case isTermByte(c):
		w := p.word()
		if p.inMod == 0 && strings.EqualFold(p.q[start:p.i], "ismissing") {
			return p.isMissing(start)
		}
		if p.i < len(p.q) && p.q[p.i] == '*' {
			p.i++
			if len(w) < p.minPrefix {
				return &node{op: opNone, none: opPrefix, word: w, mask: allFields}, nil
			}
			return &node{op: opPrefix, word: w, mask: allFields}, nil
		}
		if w == "" || p.stop.has(w) {
			return nil, nil
		}
		return &node{op: opTerm, word: w, mask: allFields, expand: true}, nil
	}
	return nil, p.errAt(p.i)
}

func (p *parser) tok(at int, txt string) { p.lastTok, p.lastTxt = at, txt }

// paramTerm parses $name (DIALECT 2) or $name*: the term, or prefix, that
// is the parameter's value, taken whole and lower-cased in ASCII (no stop
// word dropped), the empty term when it is empty. DIALECT 1 has none.
func (p *parser) paramTerm() (*node, error) {
	start := p.i
	p.i++
	s := p.i
	for p.i < len(p.q) && isTermByte(p.q[p.i]) {
		if p.q[p.i] == '\\' {
			p.i++
		}
		p.i++
	}
	p.i = min(p.i, len(p.q))
	name := unescape(p.q[s:p.i])
	p.tok(start, name)
	if p.dialect == 1 {
		return nil, errf(errSyntaxAt, start, name)
	}
	v, err := p.param(name)
	if err != nil {
		return nil, err
	}
	w := lowerASCII(v)
	if p.i < len(p.q) && p.q[p.i] == '*' {
		p.i++
		if len(w) < p.minPrefix {
			return &node{op: opNone, none: opPrefix, word: w, mask: allFields}, nil
		}
		return &node{op: opPrefix, word: w, mask: allFields}, nil
	}
	if w == "" {
		return &node{op: opEmpty, mask: allFields}, nil
	}
	return &node{op: opTerm, word: w, mask: allFields, expand: true}, nil
}

// word reads a term: term bytes and escaped bytes, normalised.
func (p *parser) word() string {
	start := p.i
	for p.i < len(p.q) {
		c := p.q[p.i]
		if c == '\\' && p.i+1 < len(p.q) {
			p.i += 2
			continue
		}
		if !isTermByte(c) {
			break
		}
		p.i++
	}
	p.tok(start, p.q[start:p.i])
	return normalize(p.q[start:p.i])
}

// isTermByte reports whether c can be part of a query term.
func isTermByte(c byte) bool {
	return c == '_' || c >= 0x80 || c == '\\' || !separators[c] && c > ' '
}

// phrase parses "w1 w2 ...".
func (p *parser) phrase() (*node, error) {
	start := p.i
	p.i++
	end := strings.IndexByte(p.q[p.i:], '"')
	if end < 0 {
		return nil, errf(errSyntaxAt, start, p.q[start:start+1])
	}
	text := p.q[p.i : p.i+end]
	p.i += end + 1
	p.tok(start, "\"")
	n := &node{op: opPhrase}
	for _, wd := range splitQueryWords(text, p.dialect >= 2) {
		w := normalize(wd.text)
		if w == "" {
			continue
		}
		if p.dialect == 1 && p.stop.has(w) {
			// RediSearch's DIALECT 1 grammar has no place for a
			// stop word in a phrase.
			return nil, errf(errSyntaxAt, start+1+wd.at, wd.text)
		}
		n.kids = append(n.kids, &node{op: opTerm, word: w, mask: allFields})
	}
	switch len(n.kids) {
	case 0:
		return nil, nil
	case 1:
		return n.kids[0], nil
	}
	return n, nil
}

// queryWord is a word of a phrase and its offset in the phrase.
type queryWord struct {
	text string
	at   int
}

// splitQueryWords splits a phrase's text at separators (escapes kept).
// With dollar, '$' is part of a word: DIALECT 2 reads "$w" in a phrase as
// the text "$w", not as a parameter, and not as "w" either.
func splitQueryWords(text string, dollar bool) []queryWord {
	var out []queryWord
	start, escaped := 0, false
	for i := 0; i <= len(text); i++ {
		if i == len(text) || separators[text[i]] && !escaped && !(dollar && text[i] == '$') {
			if i > start {
				out = append(out, queryWord{text[start:i], start})
			}
			start = i + 1
			escaped = false
			continue
		}
		escaped = !escaped && text[i] == '\\'
	}
	return out
}

// modifier parses @field[|field...]: followed by a numeric range, a tag
// set or the operand the field mask applies to.
func (p *parser) modifier() (*node, error) {
	names, mask, err := p.modifierHead()
	if err != nil {
		return nil, err
	}
	switch p.peek() {
	case '[':
		if p.dialect > 1 && p.isVectorRange() {
			return p.vectorRange(names[0])
		}
		return p.numeric(names[0])
	case '{':
		return p.tagSet(names[0])
	}
	p.inMod++
	n, err := p.operand()
	p.inMod--
	if err != nil || n == nil {
		return nil, err
	}
	setMask(n, mask)
	if err := p.checkEmpty(n); err != nil {
		return nil, err
	}
	if err := p.checkSuffix(n); err != nil {
		return nil, err
	}
	return n, nil
}

// suffix reads the rest of *word or *word* (the '*' at start read).
func (p *parser) suffix(start int) *node {
	w := p.word()
	n := &node{op: opSuffix, word: w, mask: allFields}
	if p.i < len(p.q) && p.q[p.i] == '*' {
		p.i++
		n.contains = true
	}
	if len(w) < p.minPrefix {
		n.none, n.op = opSuffix, opNone
	}
	return n
}

// checkSuffix refuses, as RediSearch does, a suffix or contains query
// restricted to TEXT fields one of which has no WITHSUFFIXTRIE, in an
// index where a TEXT field has one.
func (p *parser) checkSuffix(n *node) error {
	if (n.op == opSuffix || n.op == opNone && n.none == opSuffix) && n.mask != allFields && p.s.hasTextSuffixTrie() {
		for _, f := range p.s.Fields {
			if f.Type == Text && f.textID >= 0 && n.mask.has(f.textID) && !f.WithSuffixTrie {
				return Error(errSuffixTrie)
			}
		}
	}
	for _, k := range n.kids {
		if err := p.checkSuffix(k); err != nil {
			return err
		}
	}
	return nil
}

// checkEmpty refuses, as RediSearch does, an empty string restricted to
// TEXT fields none of which has INDEXEMPTY.
func (p *parser) checkEmpty(n *node) error {
	if n.op == opEmpty && !n.mask.empty() && n.mask != allFields {
		for _, f := range p.s.Fields {
			if f.Type == Text && f.textID >= 0 && n.mask.has(f.textID) && f.IndexEmpty {
				return nil
			}
		}
		return Error(errIndexEmpty)
	}
	for _, k := range n.kids {
		if err := p.checkEmpty(k); err != nil {
			return err
		}
	}
	return nil
}

// isMissing parses the rest of "ismissing(@field)" (DIALECT 2), whose
// keyword started at start.
func (p *parser) isMissing(start int) (*node, error) {
	kw := p.q[start:p.i]
	if p.peek() != '(' {
		if p.i >= len(p.q) {
			return nil, errf(errSyntaxAt, start, kw)
		}
		return nil, errf(errSyntaxAt, start, kw)
	}
	p.i++
	if c := p.peek(); isTermByte(c) {
		e := p.i
		for e < len(p.q) && isTermByte(p.q[e]) {
			e++
		}
		return nil, errf(errSyntaxAt, p.i, p.q[p.i:e])
	}
	if p.peek() != '@' || p.i+1 >= len(p.q) || !isTermByte(p.q[p.i+1]) {
		at := p.i
		if at < len(p.q) && p.q[at] == '@' {
			at++
		}
		return nil, errf(errSyntaxAt, at, kw)
	}
	at := p.i
	p.i++
	s := p.i
	for p.i < len(p.q) && isTermByte(p.q[p.i]) {
		p.i++
	}
	name := unescape(p.q[s:p.i])
	p.tok(at, name)
	p.rangeSpace() // commas separate like spaces
	switch c := p.peek(); {
	case c == ')':
		p.i++
	case c == 0:
		return nil, errf(errSyntaxAt, at, name)
	case isTermByte(c):
		e := p.i
		for e < len(p.q) && isTermByte(p.q[e]) {
			e++
		}
		return nil, errf(errSyntaxAt, p.i, p.q[p.i:e])
	case c == '@':
		e := p.i + 1
		for e < len(p.q) && isTermByte(p.q[e]) {
			e++
		}
		return nil, errf(errSyntaxAt, p.i, p.q[p.i+1:e])
	default:
		return nil, errf(errSyntaxAt, p.i, name)
	}
	f := p.s.Field(name)
	switch {
	case f == nil:
		return &node{op: opNone, none: opMissing, word: name}, nil
	case !f.IndexMissing:
		return nil, errf(errIndexMissing, name)
	}
	return &node{op: opMissing, field: f, word: name}, nil
}

func unescape(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// modifierHead reads "@field[|field...]:" and returns the names and the
// mask of the TEXT fields among them.
func (p *parser) modifierHead() ([]string, fieldMask, error) {
	start := p.i
	p.i++
	var names []string
	for {
		s := p.i
		for p.i < len(p.q) && (isTermByte(p.q[p.i]) || p.q[p.i] == '\\') {
			p.i++
		}
		if p.i == s {
			return nil, fieldMask{}, p.errAt(p.i)
		}
		names = append(names, unescape(p.q[s:p.i]))
		if p.i+1 < len(p.q) && p.q[p.i] == '|' && isTermByte(p.q[p.i+1]) {
			p.i++
			continue
		}
		break
	}
	if p.i >= len(p.q) || p.q[p.i] != ':' {
		// RediSearch's error names the field, or the word after it.
		last := names[len(names)-1]
		at := p.i
		p.space()
		switch {
		case p.i >= len(p.q):
			return nil, fieldMask{}, errf(errSyntaxAt, start, last)
		case p.i > at && isTermByte(p.q[p.i]):
			e := p.i
			for e < len(p.q) && isTermByte(p.q[e]) {
				e++
			}
			return nil, fieldMask{}, errf(errSyntaxAt, p.i, p.q[p.i:e])
		}
		_ = at
		return nil, fieldMask{}, errf(errSyntaxAt, p.i, last)
	}
	p.i++
	p.tok(start, "@"+strings.Join(names, "|")+":")
	var mask fieldMask
	for _, name := range names {
		if f := p.s.Field(name); f != nil && f.Type == Text && f.textID >= 0 {
			mask = mask.or(fieldBit(f.textID))
		}
	}
	return names, mask, nil
}

// setMask restricts the text terms under n to mask, where no inner
// modifier did.
func setMask(n *node, mask fieldMask) {
	if n.masked {
		return
	}
	switch n.op {
	case opTerm, opPrefix, opFuzzy:
		n.mask, n.masked = mask, true
	case opEmpty, opSuffix:
		n.mask, n.masked = mask, true
	case opNone:
		if n.none == opSuffix {
			n.mask, n.masked = mask, true
		}
	case opNumeric, opTag, opTagPrefix, opWildcard, opVecRange, opGeo, opMissing:
	default:
		for _, k := range n.kids {
			setMask(k, mask)
		}
		n.mask, n.masked = mask, true
	}
}

// noExpand turns stem expansion off under a negation.
func noExpand(n *node) {
	n.expand = false
	for _, k := range n.kids {
		noExpand(k)
	}
}

// numeric parses [min max] (either bound may be exclusive with '(',
// -inf/+inf/inf allowed) for the NUMERIC field name, or, when more
// follows the two numbers, a radius query [lon lat radius unit] (geoRange).
// A name that is not a NUMERIC field matches nothing. Commas separate
// like spaces.
func (p *parser) numeric(name string) (*node, error) {
	p.i++ // '['
	var vals [2]float64
	var excl [2]bool
	// A parameter that is no number is an error that depends on what
	// the brackets turn out to hold.
	var badParam [2]string
	var badName [2]string
	for k := 0; k < 2; k++ {
		p.rangeSpace()
		if p.i < len(p.q) && p.q[p.i] == '(' {
			excl[k] = true
			p.i++
		}
		txt, vs := p.rangeToken()
		if strings.HasPrefix(txt, "$") {
			if p.dialect == 1 {
				return nil, errf(errSyntaxAt, vs, txt[1:])
			}
			v, err := p.param(txt[1:])
			if err != nil {
				return nil, err
			}
			if _, ok := parseRangeNumber(v); !ok {
				badParam[k], badName[k] = v, txt[1:]
				v = "0"
			}
			txt = v
		}
		v, ok := parseRangeNumber(lexNumber(txt))
		if !ok {
			if txt == "" {
				return nil, errf(errSyntaxAt, p.i, p.lastTxt)
			}
			return nil, errf(errSyntaxAt, vs, txt)
		}
		vals[k] = v
		p.tok(vs, txt)
	}
	p.rangeSpace()
	if p.i < len(p.q) && p.q[p.i] != ']' {
		return p.geoRange(name, vals, excl, badParam, badName)
	}
	if p.i >= len(p.q) {
		return nil, p.errAt(p.i)
	}
	p.i++
	switch {
	case badName[0] != "":
		return nil, errf(errNumericFilterLow, badParam[0])
	case badName[1] != "":
		return nil, errf(errNumericFilter, badParam[1])
	}
	f := p.s.Field(name)
	if f == nil || f.Type != Numeric || f.NoIndex {
		return &node{op: opNone, none: opNumeric, word: name, min: vals[0], max: vals[1], minEx: excl[0], maxEx: excl[1]}, nil
	}
	return &node{op: opNumeric, field: f, min: vals[0], max: vals[1], minEx: excl[0], maxEx: excl[1]}, nil
}

// rangeSpace skips the spaces and commas inside brackets.
func (p *parser) rangeSpace() {
	for p.i < len(p.q) && (p.q[p.i] == ' ' || p.q[p.i] == '\t' || p.q[p.i] == ',' || p.q[p.i] == '\n' || p.q[p.i] == '\r') {
		p.i++
	}
}

// rangeToken reads the next token inside brackets and its offset.
func (p *parser) rangeToken() (string, int) {
	s := p.i
	for p.i < len(p.q) && !strings.ContainsRune(" \t\r\n,]", rune(p.q[p.i])) {
		p.i++
	}
	return p.q[s:p.i], s
}

// geoRange parses the rest of [lon lat radius unit] (lon and lat read) for
// the GEO field name: RediSearch's grammar takes a number (or, in DIALECT
// 2, a parameter) for the radius and a word for the unit (DIALECT 2: also
// a number, a quoted string or a parameter), and checks the unit, then
// the position, then the radius. A name that is not a GEO field matches
// nothing.
func (p *parser) geoRange(name string, vals [2]float64, excl [2]bool, badParam, badName [2]string) (*node, error) {
	tok, at := p.rangeToken()
	if p.dialect > 1 && (excl[0] || excl[1]) {
		return nil, errf(errSyntaxAt, at, tok) // "[(" starts a numeric range there
	}
	for k := range badName {
		if badName[k] != "" {
			return nil, errf(errParamNumeric, badParam[k], badName[k])
		}
	}
	gf := &geoFilter{lon: vals[0], lat: vals[1]}
	rtxt := tok
	if strings.HasPrefix(tok, "$") {
		if p.dialect == 1 {
			return nil, errf(errSyntaxAt, at, tok[1:])
		}
		v, err := p.param(tok[1:])
		if err != nil {
			return nil, err
		}
		r, ok := parseRangeNumber(v)
		if !ok {
			return nil, errf(errParamNumeric, v, tok[1:])
		}
		gf.radius = r
	} else {
		r, ok := parseRangeNumber(lexNumber(tok))
		if !ok {
			if tok == "" {
				return nil, errf(errSyntaxAt, at, p.q[at:at+1])
			}
			return nil, errf(errSyntaxAt, at, tok)
		}
		gf.radius = r
	}
	p.tok(at, rtxt)
	// The unit.
	p.rangeSpace()
	switch {
	case p.i >= len(p.q):
		return nil, errf(errSyntaxAt, p.lastTok, p.lastTxt)
	case p.q[p.i] == ']':
		return nil, errf(errSyntaxAt, p.i, p.lastTxt)
	}
	var unit string
	if p.q[p.i] == '"' {
		if p.dialect == 1 {
			return nil, errf(errSyntaxAt, p.i, p.lastTxt)
		}
		end := strings.IndexByte(p.q[p.i+1:], '"')
		if end < 0 {
			return nil, errf(errSyntaxAt, p.i, p.q[p.i:p.i+1])
		}
		unit = p.q[p.i+1 : p.i+1+end]
		p.tok(p.i, unit)
		p.i += end + 2
	} else {
		tok, at = p.rangeToken()
		switch {
		case strings.HasPrefix(tok, "$") && p.dialect == 1:
			return nil, errf(errSyntaxAt, at, tok[1:])
		case strings.HasPrefix(tok, "$"):
			v, err := p.param(tok[1:])
			if err != nil {
				return nil, err
			}
			unit = v
		default:
			if _, isNum := parseRangeNumber(tok); isNum && p.dialect == 1 {
				return nil, errf(errSyntaxAt, at, tok)
			}
			unit = tok
		}
		p.tok(at, tok)
	}
	p.rangeSpace()
	switch {
	case p.i >= len(p.q):
		return nil, errf(errSyntaxAt, p.lastTok, p.lastTxt)
	case p.q[p.i] != ']':
		tok, at := p.rangeToken()
		if tok == "" {
			tok = p.q[at : at+1]
		}
		return nil, errf(errSyntaxAt, at, tok)
	}
	p.i++
	gf.unit = geoUnit(unit)
	if err := gf.validate(); err != nil {
		return nil, err
	}
	f := p.s.Field(name)
	if f == nil || f.Type != Geo || f.NoIndex {
		return &node{op: opNone}, nil
	}
	return &node{op: opGeo, field: f, geo: gf}, nil
}

// lexNumber is the number RediSearch's query lexer reads in a literal: it
// skips the dots before the digits (".5" is 5, "-.5e1" is -50).
func lexNumber(s string) string {
	sign := ""
	if s != "" && (s[0] == '-' || s[0] == '+') {
		sign, s = s[:1], s[1:]
	}
	t := strings.TrimLeft(s, ".")
	if t == "" || t[0] < '0' || t[0] > '9' {
		return sign + s
	}
	return sign + t
}

func parseRangeNumber(s string) (float64, bool) {
	switch strings.ToLower(s) {
	case "inf", "+inf":
		return math.Inf(1), true
	case "-inf":
		return math.Inf(-1), true
	}
	if s == "" || !(s[0] >= '0' && s[0] <= '9' || s[0] == '-' || s[0] == '+' || s[0] == '.') {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil
}

// tagSet parses {v1 | v2 w2 | pre* ...} for the TAG field name: a union
// of its alternatives, each the intersection of its words. A name that is
// not a TAG field matches nothing.
func (p *parser) tagSet(name string) (*node, error) {
	p.i++ // '{'
	f := p.s.Field(name)
	var alts []*node
	var cur []*node
	flush := func() {
		switch len(cur) {
		case 0:
		case 1:
			alts = append(alts, cur[0])
		default:
			alts = append(alts, &node{op: opAnd, kids: cur})
		}
		cur = nil
	}
	// exact adds the value v, taken as it is (a quoted value, a
	// parameter's): never a prefix, the empty value only with INDEXEMPTY.
	exact := func(v string) error {
		if f != nil && !f.CaseSensitive {
			v = lowerASCII(v)
		}
		if v == "" && f != nil && f.Type == Tag && !f.IndexEmpty {
			return Error(errIndexEmpty)
		}
		cur = append(cur, &node{op: opTag, word: v, field: f})
		return nil
	}
	for {
		c := p.peek()
		switch {
		case c == 0:
			return nil, p.errAt(p.i)
		case c == '}':
			p.i++
			flush()
			if f == nil || f.Type != Tag || f.NoIndex {
				return &node{op: opNone, none: opTag, word: name, kids: alts}, nil
			}
			if len(alts) == 1 {
				alts[0].tagField = name
				return alts[0], nil
			}
			return &node{op: opOr, kids: alts, tagSet: true, tagField: name}, nil
		case c == '|':
			p.i++
			flush()
		case c == '"' && p.dialect == 1:
			if len(cur) == 0 {
				return nil, errf(errSyntaxAt, p.i, name)
			}
			return nil, errf(errSyntaxAt, p.i+1, p.lastTxt)
		case c == '"' || c == '\'' && p.i+1 < len(p.q) && p.q[p.i+1] == '\'':
			// A quoted value: its text as is, never a prefix ('' is
			// the empty value too).
			s := p.i
			end := strings.IndexByte(p.q[s+1:], c)
			if end < 0 {
				return nil, errf(errSyntaxAt, s, p.q[s:s+1])
			}
			v := p.q[s+1 : s+1+end]
			p.i = s + end + 2
			p.tok(s, v)
			if p.i < len(p.q) && p.q[p.i] == '*' {
				return nil, errf(errSyntaxAt, p.i, v)
			}
			if err := exact(unescape(v)); err != nil {
				return nil, err
			}
		default:
			s := p.i
			for p.i < len(p.q) {
				ch := p.q[p.i]
				if ch == '\\' && p.i+1 < len(p.q) {
					p.i += 2
					continue
				}
				if ch == ' ' || ch == '\t' || ch == '|' || ch == '}' {
					break
				}
				p.i++
			}
			raw := p.q[s:p.i]
			p.tok(s, raw)
			if p.dialect > 1 && strings.HasPrefix(raw, "$") {
				// A parameter is a value as it is (no escapes, never a
				// prefix or a suffix); "$p*" is the prefix of its value.
				name, prefix := strings.CutSuffix(raw[1:], "*")
				v, err := p.param(name)
				if err != nil {
					return nil, err
				}
				if !prefix {
					if err := exact(v); err != nil {
						return nil, err
					}
					continue
				}
				raw = v + "*"
			}
			op := opTag
			contains := false
			if len(raw) > 1 && raw[0] == '*' {
				op, raw = opTagSuffix, raw[1:]
			}
			if strings.HasSuffix(raw, "*") && !strings.HasSuffix(raw, "\\*") {
				if op == opTagSuffix {
					contains = true
				} else {
					op = opTagPrefix
				}
				raw = raw[:len(raw)-1]
			}
			v := unescape(raw)
			if f != nil && !f.CaseSensitive {
				v = lowerASCII(v)
			}
			if (op == opTagPrefix || op == opTagSuffix) && len(v) < p.minPrefix {
				cur = append(cur, &node{op: opNone, none: op, word: v, contains: contains})
				continue
			}
			cur = append(cur, &node{op: op, word: v, field: f, contains: contains})
		}
	}
}
