package search

import (
	"strconv"
	"strings"
)

// Fuzzy terms, optional operands and attributes of the query language.
//
//   - %word% (%%word%%, %%%word%%%): the index's terms (its stems among
//     them, as RediSearch finds them) within 1 (2, 3) edits
//     of word, a union as a prefix's expansions are, MAXEXPANSIONS at
//     most.
//   - ~x: x is optional: its documents score with it, and the others
//     match too (an optional iterator).
//   - x=>{$weight: w; $slop: n; $inorder: true}: attributes of an
//     operand (the last given wins): $weight multiplies its records'
//     scores, $slop and $inorder constrain an intersection as SLOP and
//     INORDER do.

// fuzzyTerm reads %word%, with one to three '%' on either side.
func (p *parser) fuzzyTerm() (*node, error) {
	start, prev := p.i, p.lastTxt
	k := 0
	for p.i < len(p.q) && p.q[p.i] == '%' && k < 3 {
		p.i++
		k++
	}
	at := p.i
	w := p.word()
	switch {
	case w != "":
	case p.i >= len(p.q): // "%" at the end: RediSearch's error names the token before
		return nil, errf(errSyntaxAt, start, prev)
	case p.q[p.i] == '%':
		return nil, errf(errSyntaxAt, p.i, "")
	default:
		return nil, p.errAt(p.i)
	}
	m := 0
	for p.i < len(p.q) && p.q[p.i] == '%' && m < k {
		p.i++
		m++
	}
	if m != k {
		if m == 0 {
			return nil, errf(errSyntaxAt, at, w)
		}
		return nil, errf(errSyntaxAt, p.i-1, w)
	}
	if p.i < len(p.q) && (p.q[p.i] == '%' || p.q[p.i] == '*') {
		return nil, errf(errSyntaxAt, at, w)
	}
	return &node{op: opFuzzy, word: w, fuzzy: k, mask: allFields}, nil
}

// attributesNext reports whether "=>{" comes next.
func (p *parser) attributesNext() bool {
	if !p.arrow() {
		return false
	}
	rest := strings.TrimLeft(p.q[p.i+2:], " \t")
	return strings.HasPrefix(rest, "{")
}

// nodeAttributes parses "=>{...}" and sets n's attributes (n nil: a stop
// word; they are checked and dropped).
func (p *parser) nodeAttributes(n *node) error {
	if n == nil {
		n = &node{}
	}
	return p.attributes(func(name, v string) error { return setAttribute(n, name, v) })
}

// setAttribute sets the query attribute name (without its '$') of n to v,
// or returns RediSearch's error for an unknown name or a bad value.
func setAttribute(n *node, name, v string) error {
	switch strings.ToLower(name) {
	case "weight":
		w, err := strconv.ParseFloat(v, 64)
		if err != nil || w < 0 {
			return errf(errAttrValue, v, "weight")
		}
		n.weight, n.weighted = w, true
	case "slop":
		s, err := strconv.Atoi(v)
		if err != nil {
			return errf(errAttrValue, v, "slop")
		}
		n.slop, n.slopSet = s, true
	case "inorder":
		on, err := attrBool(v, "inorder")
		if err != nil {
			return err
		}
		n.inOrder = on
		if !n.slopSet {
			n.slop, n.slopSet = -1, true
		}
	case "phonetic":
		on, err := attrBool(v, "phonetic")
		if err != nil {
			return err
		}
		n.phonetic = phoneticOff
		if on {
			n.phonetic = phoneticOn
		}
	default:
		return errf(errAttrUnknown, name)
	}
	return nil
}

// fuzzyTerms returns the terms within n edits of w, in order, at most the
// index's MAXEXPANSIONS.
func (e *evaluator) fuzzyTerms(w string, n int) []string {
	limit := int(e.ix.Config.MaxExpansions())
	var out []string
	e.ix.termSet.Scan(func(t string) bool {
		if withinEdits(w, t, n, true) {
			out = append(out, t)
		}
		return limit <= 0 || len(out) < limit
	})
	return out
}

// weightedIter gives its child's records a query node's weight.
type weightedIter struct {
	iterator
	w float64
}

func (it *weightedIter) weigh(r *result) *result {
	if r != nil {
		r.weight, r.weighted = it.w, true
	}
	return r
}

func (it *weightedIter) read() (readRC, *result) {
	rc, r := it.iterator.read()
	return rc, it.weigh(r)
}

func (it *weightedIter) skipTo(id uint32) (readRC, *result) {
	rc, r := it.iterator.skipTo(id)
	return rc, it.weigh(r)
}

func (it *weightedIter) current() *result { return it.weigh(it.iterator.current()) }

// optionalIter reads every id up to the index's last: its child's record
// where the child has the id, else a virtual one of frequency 0 (which
// scores nothing). The child follows behind: a read reads it once when
// it stands before the id, a skip skips it to the id.
type optionalIter struct {
	st      iterState
	child   iterator
	max     uint32
	last    uint32 // the last id read
	childID uint32 // where the child stands (max+1: at its end)
	cur     *result
	virt    result
}

func (it *optionalIter) state() *iterState { return &it.st }
func (it *optionalIter) current() *result  { return it.cur }
func (it *optionalIter) lastID() uint32    { return it.last }
func (it *optionalIter) atEnd() bool       { return it.last >= it.max }
func (it *optionalIter) est() int          { return int(it.max) }

// follow moves the child when it stands before id (by a skip to id, or
// by one read) and notes where it stands.
func (it *optionalIter) follow(id uint32, skip bool) {
	if id <= it.childID {
		return
	}
	var rc readRC
	var r *result
	if skip {
		rc, r = it.child.skipTo(id)
	} else {
		rc, r = it.child.read()
	}
	if rc == rcEOF || r == nil {
		it.childID = it.max + 1
	} else {
		it.childID = r.doc
	}
}

func (it *optionalIter) read() (readRC, *result) {
	if it.last >= it.max {
		return rcEOF, nil
	}
	it.last++
	it.follow(it.last, false)
	return rcOK, it.at(it.last)
}

func (it *optionalIter) skipTo(id uint32) (readRC, *result) {
	switch {
	case id > it.max || it.last >= it.max:
		return rcEOF, nil
	case id == 0:
		return it.read()
	}
	it.follow(id, true)
	it.last = id
	return rcOK, it.at(id)
}

// at is the record for id: the child's when it stands there, with the
// optional node's weight (1; a weight of its own comes after) replacing
// the child's (RediSearch's scores show the child's weight dropped).
func (it *optionalIter) at(id uint32) *result {
	if id == it.childID {
		it.cur = it.child.current()
		it.cur.weight, it.cur.weighted = 1, false
	} else {
		it.virt.doc = id
		it.cur = &it.virt
	}
	return it.cur
}

// attrBool reads a boolean attribute's value: true or 1, false or 0.
func attrBool(v, name string) (bool, error) {
	switch strings.ToLower(v) {
	case "true", "1":
		return true, nil
	case "false", "0":
		return false, nil
	}
	return false, errf(errAttrValue, v, name)
}
