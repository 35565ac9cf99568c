package search

import (
	"slices"
	"strings"
)

// FT.SEARCH's SUMMARIZE and HIGHLIGHT, with RediSearch 2.10's replies:
// the positions a document's record holds (from the query's iterators
// built afresh and moved to the document) are mapped to the byte offsets
// of the field's tokens (fieldMatches), grouped into passages scored by
// their terms' IDF (passages), and written with context words and tags
// (summarize, markAll).

// Summarize modes, bits of hlField.mode.
const (
	hlSynopsis  = 1
	hlHighlight = 2
)

// hlField is one field's SUMMARIZE and HIGHLIGHT settings.
type hlField struct {
	name, path  string
	mode        uint8
	open, close string
	tags        bool // open and close are set
	ctxLen      uint32
	frags       uint16
	sep         string
	explicit    bool // RETURN names it
}

// hlSpec is a request's SUMMARIZE and HIGHLIGHT settings: those of
// every field, and those of the fields listed.
type hlSpec struct {
	def    hlField
	fields []hlField
}

func (s *hlSpec) field(name, path string) int {
	for i := range s.fields {
		if s.fields[i].name == name {
			return i
		}
	}
	if path == "" {
		path = name
	}
	s.fields = append(s.fields, hlField{name: name, path: path})
	return len(s.fields) - 1
}

// parseHighlight parses SUMMARIZE's or HIGHLIGHT's arguments from
// opts[i] (after the keyword) and returns the index of the last one used.
func (s *hlSpec) parse(opts [][]byte, i int, highlight bool) (int, bool) {
	def := hlField{ctxLen: 20, frags: 3, sep: "... ", open: "<b>", close: "</b>", tags: true}
	var listed []int
	if i < len(opts) && strings.EqualFold(string(opts[i]), "FIELDS") {
		n, ok := countArg(opts, i+1)
		if !ok || i+1+n >= len(opts) {
			return i, false
		}
		for _, f := range opts[i+2 : i+2+n] {
			listed = append(listed, s.field(string(f), ""))
		}
		i += 2 + n
	}
	for i < len(opts) {
		kw := strings.ToUpper(string(opts[i]))
		switch {
		case highlight && kw == "TAGS":
			if i+2 >= len(opts) {
				return i, false
			}
			def.open, def.close = string(opts[i+1]), string(opts[i+2])
			i += 3
			continue
		case !highlight && (kw == "LEN" || kw == "FRAGS"):
			if i+1 >= len(opts) {
				return i, false
			}
			n, err := parseIntArg(opts[i+1])
			if err != "" || n < 0 {
				return i, false
			}
			if kw == "LEN" {
				def.ctxLen = uint32(n)
			} else {
				def.frags = uint16(n)
			}
			i += 2
			continue
		case !highlight && kw == "SEPARATOR":
			if i+1 >= len(opts) {
				return i, false
			}
			def.sep = string(opts[i+1])
			i += 2
			continue
		}
		break
	}
	set := func(f *hlField) {
		if highlight {
			f.open, f.close, f.tags = def.open, def.close, true
			f.mode |= hlHighlight
		} else {
			f.ctxLen, f.frags, f.sep = def.ctxLen, def.frags, def.sep
			f.mode |= hlSynopsis
		}
	}
	if len(listed) > 0 {
		for _, x := range listed {
			set(&s.fields[x])
		}
	} else {
		set(&s.def)
	}
	return i - 1, true
}

// settings combines a listed field's settings with the default ones: a
// mode the field does not set itself takes the defaults' settings.
func (s *hlSpec) settings(src *hlField) hlField {
	d := s.def
	if src == nil {
		return d
	}
	out := hlField{name: src.name, path: src.path}
	if d.mode&hlHighlight != 0 && src.mode&hlHighlight == 0 {
		out.open, out.close, out.tags = d.open, d.close, d.tags
	} else if src.mode != 0 {
		out.open, out.close, out.tags = src.open, src.close, src.tags
	}
	if d.mode&hlSynopsis != 0 && src.mode&hlSynopsis == 0 {
		out.ctxLen, out.frags, out.sep = d.ctxLen, d.frags, d.sep
	} else {
		out.ctxLen, out.frags, out.sep = src.ctxLen, src.frags, src.sep
	}
	out.mode = d.mode | src.mode
	return out
}

// Highlights reports whether r summarizes or highlights fields.
func (r *Request) Highlights() bool { return r.hl != nil }

// HighlightFieldNames are the fields SUMMARIZE and HIGHLIGHT list, in
// order: a document's fields are replied in that order, before the
// others, as RediSearch replies them.
func (r *Request) HighlightFieldNames() []string {
	if r.hl == nil {
		return nil
	}
	var out []string
	for _, f := range r.hl.fields {
		out = append(out, f.name)
	}
	return out
}

// finishHighlight applies RETURN to the field list (its fields follow
// the list's order, and only they stay in it), after parsing.
func (r *Request) finishHighlight() {
	if r.hl == nil || r.Return == nil {
		return
	}
	for _, rf := range r.Return {
		r.hl.fields[r.hl.field(rf.As, rf.Field)].explicit = true
	}
	kept := r.hl.fields[:0]
	for _, f := range r.hl.fields {
		if f.explicit {
			kept = append(kept, f)
		}
	}
	r.hl.fields = kept
	r.Return = r.Return[:0]
	for _, f := range kept {
		r.Return = append(r.Return, ReturnField{Field: f.path, As: f.name})
	}
}

// checkHighlight returns RediSearch's error for a listed field that is
// not in the schema.
func (ix *Index) checkHighlight(r *Request) error {
	if r.hl == nil {
		return nil
	}
	for _, f := range r.hl.fields {
		if ix.Schema.Field(f.name) != nil {
			continue
		}
		if f.explicit {
			return errf(errHLNotInSchema, f.name)
		}
		return errf(errHLNoProperty, f.name)
	}
	return nil
}

// termPos is a position of a document's record and the query term (its
// term record) found there.
type termPos struct {
	pos  uint32
	term *result
}

// offsets returns a record's positions with the term found at each: a
// term's own, an aggregate's children's merged in position order (ties
// in child order).
func offsets(r *result) []termPos {
	switch {
	case r.kind == resTerm:
		pos := r.termPos()
		out := make([]termPos, len(pos))
		for i, p := range pos {
			out[i] = termPos{p, r}
		}
		return out
	case r.isAgg():
		if len(r.kids) == 1 {
			return offsets(r.kids[0])
		}
		var out []termPos
		for _, k := range r.kids {
			out = append(out, offsets(k)...)
		}
		slices.SortStableFunc(out, func(a, b termPos) int { return cmpU32(a.pos, b.pos) })
		return out
	}
	return nil
}

// fieldOffsets are a TEXT field's tokens' positions and byte offsets in
// a document.
type fieldOffsets struct {
	first, last uint32
	at          []int
}

// Highlighter returns the function that summarizes or highlights the
// fields of document key as r asks (a field's name and value to the
// value replied); nil when there is nothing to do. It reads the index
// and the document's hash (through load), so its caller holds the
// index's lock; the function it returns uses neither.
func (ix *Index) Highlighter(r *Request, key string, load func(key, field string) ([]byte, bool)) func(name string, v []byte) []byte {
	d := ix.docs[key]
	if r.hl == nil || d == nil || r.hlRoot == nil {
		return nil
	}
	// The record of the document, from the query's iterators built
	// afresh and moved to it (none found: the fields stay as they are).
	e := &evaluator{ix: ix, n: ix.docTableSize(), verbatim: r.Verbatim, slop: r.Slop, inOrder: r.InOrder}
	it := e.build(r.hlRoot)
	if it == nil {
		return nil
	}
	rc, rec := it.skipTo(d.id)
	if rc != rcOK || rec == nil {
		return nil
	}
	offs := offsets(rec)
	// The byte offsets of the document's TEXT fields, their positions
	// counted as indexing counts them.
	byField := map[string]*fieldOffsets{}
	var pos uint32
	for _, f := range ix.Schema.Fields {
		if f.Type != Text || f.NoIndex {
			continue
		}
		v, ok := load(key, f.Name)
		if !ok {
			continue
		}
		fo := &fieldOffsets{first: pos + 1}
		if len(v) == 0 && f.IndexEmpty {
			pos++ // the empty term's position, as Put gives it
		} else {
			tokenize(string(v), ix.stop, englishLanguage, true, &pos, func(t token) { fo.at = append(fo.at, t.at) })
		}
		fo.last = pos
		byField[f.Name] = fo
	}
	hl := r.hl
	return func(name string, v []byte) []byte {
		var spec hlField
		if len(hl.fields) > 0 {
			i := slices.IndexFunc(hl.fields, func(f hlField) bool { return f.name == name })
			if i < 0 || hl.fields[i].mode == 0 && hl.def.mode == 0 {
				return v
			}
			spec = hl.settings(&hl.fields[i])
		} else if hl.def.mode != 0 {
			spec = hl.settings(nil)
		} else {
			return v
		}
		var fo *fieldOffsets
		if f := ix.Schema.Field(name); f != nil && f.Type == Text {
			fo = byField[f.Name]
		}
		var ms []hlMatch
		if fo != nil {
			ms = fieldMatches(v, fo, offs)
		}
		switch {
		case len(ms) == 0 && spec.mode == hlSynopsis:
			return openingWords(v, spec)
		case len(ms) == 0:
			return v
		case spec.mode == hlHighlight:
			return markAll(v, ms, spec)
		}
		return summarize(v, ms, spec)
	}
}

// How the matches of a field are summarized (RediSearch 2.10's replies
// show the same numbers): matches at most passageReach positions after
// the previous one extend its passage, and a passage's context of n
// words is estimated as n times wordBytes bytes.
const (
	passageReach = 8
	wordBytes    = 6
)

// hlMatch is a query term found in a field: the token at position pos,
// doc[start:end] (the token's bytes up to the first separator), the
// term's record, and idle: the field's tokens without a query term since
// the previous match (since the field's start for the first).
type hlMatch struct {
	term       *result
	pos        uint32
	start, end int
	idle       uint32
}

// fieldMatches returns the matches of the record's positions offs
// (ascending) in the field fo of doc, in order. At a position held by
// several terms the first listed is the match. A match whose token
// starts inside the previous match's bytes is dropped (neither match nor
// idle token).
func fieldMatches(doc []byte, fo *fieldOffsets, offs []termPos) []hlMatch {
	if len(fo.at) == 0 || fo.last < fo.first {
		return nil
	}
	lastPos := min(fo.last, fo.first+uint32(len(fo.at))-1)
	var out []hlMatch
	seen := fo.first - 1 // the last position met with a term
	var idle uint32
	prevEnd := 0
	for _, o := range offs {
		if o.pos < fo.first || o.pos == seen {
			continue
		}
		if o.pos > lastPos {
			break
		}
		idle += o.pos - seen - 1
		seen = o.pos
		start := fo.at[o.pos-fo.first]
		if start < prevEnd {
			continue
		}
		end := start
		for end < len(doc) && !separators[doc[end]] {
			end++
		}
		out = append(out, hlMatch{term: o.term, pos: o.pos, start: start, end: end, idle: idle})
		idle, prevEnd = 0, end
	}
	return out
}

// hlPassage is a run of matches, ms[lo:hi] of the field's, each at most
// passageReach positions after the one before. Its score is the sum of
// the IDFs of its distinct terms (as C floats, added in order), fillers
// the tokens between its matches that match nothing, and rank its place
// among the field's passages.
type hlPassage struct {
	lo, hi  int
	score   float32
	fillers uint32
	rank    int
}

// passages groups a field's matches.
func passages(ms []hlMatch) []hlPassage {
	var out []hlPassage
	for i, m := range ms {
		if n := len(out); n > 0 && m.pos-ms[i-1].pos <= passageReach {
			p := &out[n-1]
			p.fillers += m.idle
			if !slices.ContainsFunc(ms[p.lo:i], func(x hlMatch) bool { return x.term == m.term }) {
				p.score += float32(m.term.idf)
			}
			p.hi = i + 1
			continue
		}
		out = append(out, hlPassage{lo: i, hi: i + 1, score: float32(m.term.idf), rank: len(out)})
	}
	return out
}

// appendMarked appends doc from byte from to the end of the last of ms,
// each match between spec's tags (when it has them).
func appendMarked(out, doc []byte, from int, ms []hlMatch, spec hlField) []byte {
	for _, m := range ms {
		out = append(out, doc[from:m.start]...)
		if spec.tags {
			out = append(out, spec.open...)
		}
		out = append(out, doc[m.start:m.end]...)
		if spec.tags {
			out = append(out, spec.close...)
		}
		from = m.end
	}
	return out
}

// markAll is HIGHLIGHT without SUMMARIZE: the whole value, its matches
// tagged.
func markAll(doc []byte, ms []hlMatch, spec hlField) []byte {
	out := appendMarked(nil, doc, 0, ms, spec)
	return append(out, doc[ms[len(ms)-1].end:]...)
}

// summarize is SUMMARIZE: the FRAGS best passages (by score, the earlier
// on a tie), in the field's order, each with its context of about LEN
// words less the words between its matches, its whitespace runs made
// single spaces, and followed by the separator.
func summarize(doc []byte, ms []hlMatch, spec hlField) []byte {
	ps := passages(ms)
	slices.SortStableFunc(ps, func(a, b hlPassage) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return a.rank - b.rank
	})
	ps = ps[:min(int(spec.frags), len(ps))]
	slices.SortFunc(ps, func(a, b hlPassage) int { return a.rank - b.rank })
	out := []byte{}
	for i, p := range ps {
		start, end := ms[p.lo].start, ms[p.hi-1].end
		floor, ceil := 0, len(doc)-1
		if i > 0 {
			floor = ms[ps[i-1].hi-1].end
		}
		if i+1 < len(ps) {
			ceil = ms[ps[i+1].lo].start
		}
		from, to := start, end
		if words := int(spec.ctxLen); words > int(p.fillers) {
			from, to = contextBounds(doc, start, end, floor, ceil, (words-int(p.fillers))/2*wordBytes)
		}
		piece := append(slices.Clone(doc[from:start]), appendMarked(nil, doc, start, ms[p.lo:p.hi], spec)...)
		piece = append(piece, doc[end:to]...)
		out = append(out, collapseSpaces(piece)...)
		out = append(out, spec.sep...)
	}
	return out
}

// contextBounds returns the bytes of context around doc[start:end], at
// most budget bytes on each side and within floor and ceil (a byte
// offset, inclusive): doc[from:start] begins at a word (a partial word
// at its start is dropped, with the separators after it), doc[end:to]
// stops after a word (a partial word at its end is dropped, with the
// separators before it, but one byte after end is always kept).
func contextBounds(doc []byte, start, end, floor, ceil, budget int) (from, to int) {
	from = max(start-budget, floor)
	for from < start && !separators[doc[from]] {
		from++
	}
	for from < start && separators[doc[from]] {
		from++
	}
	last := min(end+budget, ceil) // the last byte kept
	for last > end && !separators[doc[last]] {
		last--
	}
	for last > end && separators[doc[last]] {
		last--
	}
	return from, max(last+1, end)
}

// collapseSpaces turns each run of whitespace (C's isspace: space, \t,
// \n, \v, \f, \r) in b into one space, in place.
func collapseSpaces(b []byte) []byte {
	n, inRun := 0, false
	for _, c := range b {
		space := isCSpace(c)
		if space && inRun {
			continue
		}
		if inRun = space; space {
			c = ' '
		}
		b[n] = c
		n++
	}
	return b[:n]
}

func isCSpace(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }

// openingWords is SUMMARIZE of a field without matches: its first
// wordBytes*(LEN*FRAGS+1) bytes, whitespace runs made single spaces, cut
// back to end at a separator (but never to nothing), then without
// trailing whitespace.
func openingWords(v []byte, spec hlField) []byte {
	n := uint64(wordBytes) * (uint64(spec.ctxLen)*uint64(spec.frags) + 1)
	b := collapseSpaces(slices.Clone(v[:min(n, uint64(len(v)))]))
	for len(b) > 1 && !separators[b[len(b)-1]] {
		b = b[:len(b)-1]
	}
	for len(b) > 0 && isCSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}
