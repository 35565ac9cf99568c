package search

import (
	"slices"
	"strings"
)

// FT.SEARCH's SUMMARIZE and HIGHLIGHT, as RediSearch 2.10's highlighter
// (highlight_processor.c) and fragmenter (fragmenter.c) make them: the
// positions a document's record holds (from the query's iterators moved
// to the document afresh, as RediSearch rewinds its root iterator) are
// mapped to the byte offsets of the field's tokens, grouped into
// fragments, scored by their terms' IDF, and written with context words
// and tags.

// Summarize modes (RediSearch's SummarizeMode).
const (
	hlSynopsis  = 1
	hlHighlight = 2
)

// hlField is one field's settings (RediSearch's ReturnedField).
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

// hlSpec is RediSearch's FieldList: the settings of every field, and
// those listed.
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

// settings combines a listed field's settings with the default ones
// (RediSearch's normalizeSettings).
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
// order: RediSearch's lookup makes their keys first, so a document's
// fields are replied in that order, before the others.
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

// offsets is RediSearch's RSIndexResult_IterateOffsets: a record's
// positions, its children's merged (ties to the earlier child).
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
// a document (RediSearch's RSByteOffsets for the field).
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
	// afresh and moved to it (RediSearch rewinds its root iterator and
	// skips to the document; none found: the fields stay as they are).
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
		var frags *fragList
		if fo != nil {
			frags = fragmentize(v, fo, offs)
		}
		if frags == nil || len(frags.frags) == 0 {
			if spec.mode == hlSynopsis {
				return trimField(v, spec)
			}
			return v
		}
		if spec.mode == hlHighlight {
			return frags.wholeDoc(spec)
		}
		return frags.summary(spec)
	}
}

// The fragmenter's constants: the most positions between two matches of
// a fragment, and the estimated bytes of a word.
const (
	fragMaxDistance = 8
	fragWordSize    = 6
)

type termLoc struct {
	term        *result
	offset, len int
}

type fragment struct {
	buf, len     int // in the document
	lastMatchPos uint32
	totalTokens  uint32
	numMatches   uint32
	fragPos      int
	score        float32
	locs         []termLoc
}

type fragList struct {
	doc          []byte
	frags        []*fragment
	sinceLastHit uint32
}

func isToksep(c byte) bool { return separators[c] }

// isSpace is C's isspace.
func isSpace(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }

// fragmentize is RediSearch's FragmentList_FragmentizeIter over the
// record's positions in field fo (a FragmentTermIterator).
func fragmentize(doc []byte, fo *fieldOffsets, offs []termPos) *fragList {
	fl := &fragList{doc: doc}
	const eof = ^uint32(0)
	curPos := fo.first - 1
	byteNext := func() uint32 {
		curPos++
		if curPos > fo.last || int(curPos-fo.first) >= len(fo.at) {
			return eof
		}
		return uint32(fo.at[curPos-fo.first])
	}
	k := 0
	var term *result
	offNext := func() uint32 {
		if k < len(offs) {
			term = offs[k].term
			k++
			return offs[k-1].pos
		}
		return eof
	}
	curByte := byteNext()
	var tokPos uint32
	for {
		tokPos = offNext()
		if !(curPos > tokPos) {
			break
		}
	}
	lastTokPos, lastByteEnd := int64(-1), 0
	for term != nil && curByte != eof && tokPos != eof {
		if curPos < tokPos {
			curByte = byteNext()
			fl.sinceLastHit++
			continue
		}
		t, p, b := term, tokPos, int(curByte)
		next := offNext()
		if next != tokPos {
			curByte = byteNext()
		}
		tokPos = next
		if int64(p) == lastTokPos || b < lastByteEnd {
			continue
		}
		n := 0
		for ii := b; ii < len(doc) && !isToksep(doc[ii]); ii++ {
			n++
		}
		fl.add(t, p, b, n, float32(t.idf))
		lastTokPos, lastByteEnd = int64(p), b+n
	}
	return fl
}

// add is FragmentList_AddMatchingTerm.
func (fl *fragList) add(term *result, tokPos uint32, at, n int, score float32) {
	var cur *fragment
	if len(fl.frags) > 0 {
		cur = fl.frags[len(fl.frags)-1]
		if tokPos-cur.lastMatchPos > fragMaxDistance {
			cur = nil
		}
	}
	if cur == nil {
		cur = &fragment{buf: at, fragPos: len(fl.frags)}
		fl.frags = append(fl.frags, cur)
		fl.sinceLastHit = 0
	}
	if !slices.ContainsFunc(cur.locs, func(l termLoc) bool { return l.term == term }) {
		cur.score += score
	}
	cur.len = at - cur.buf + n
	cur.lastMatchPos = tokPos
	cur.numMatches++
	cur.totalTokens += fl.sinceLastHit + 1
	fl.sinceLastHit = 0
	cur.locs = append(cur.locs, termLoc{term, at - cur.buf, n})
}

// writeFrag is Fragment_WriteIovs: the text from *pre to each match,
// each match between the tags.
func (fl *fragList) writeFrag(out []byte, f *fragment, spec hlField, pre *int) []byte {
	for _, l := range f.locs {
		at := f.buf + l.offset
		if at > *pre {
			out = append(out, fl.doc[*pre:at]...)
		}
		if spec.tags {
			out = append(out, spec.open...)
		}
		out = append(out, fl.doc[at:at+l.len]...)
		if spec.tags {
			out = append(out, spec.close...)
		}
		*pre = at + l.len
	}
	return out
}

// wholeDoc is FragmentList_HighlightWholeDocS.
func (fl *fragList) wholeDoc(spec hlField) []byte {
	var out []byte
	pre := 0
	for _, f := range fl.frags {
		out = fl.writeFrag(out, f, spec, &pre)
	}
	return append(out, fl.doc[pre:]...)
}

// summary is the highlighted fragments (the best FRAGS of them by score,
// in document order) with their context, each followed by the separator.
func (fl *fragList) summary(spec hlField) []byte {
	sorted := slices.Clone(fl.frags)
	slices.SortStableFunc(sorted, func(a, b *fragment) int {
		switch {
		case a.score == b.score:
			return a.fragPos - b.fragPos
		case a.score > b.score:
			return -1
		}
		return 1
	})
	n := min(int(spec.frags), len(sorted))
	pick := sorted[:n]
	slices.SortFunc(pick, func(a, b *fragment) int { return a.fragPos - b.fragPos })
	var out []byte
	for i, f := range pick {
		before, after := 0, len(fl.doc)-1
		if i > 0 {
			before = pick[i-1].buf + pick[i-1].len
		}
		if i+1 < n {
			after = pick[i+1].buf
		}
		start := len(out)
		b0, b1, a0, a1 := fl.context(f, before, after, int(spec.ctxLen))
		out = append(out, fl.doc[b0:b1]...)
		pre := f.buf
		out = fl.writeFrag(out, f, spec, &pre)
		out = append(out, fl.doc[a0:a1]...)
		out = append(out[:start], stripSpaces(out[start:])...)
		out = append(out, spec.sep...)
	}
	if out == nil {
		out = []byte{}
	}
	return out
}

// context is FragmentList_FindContext: the text before and after a
// fragment, of about the words LEN leaves, cut at separators.
func (fl *fragList) context(f *fragment, limitBefore, limitAfter, size int) (int, int, int, int) {
	end := f.buf + f.len
	inside := int(f.totalTokens - f.numMatches)
	if size <= inside {
		return f.buf, f.buf, end, end
	}
	size = (size - inside) / 2 * fragWordSize
	limitBefore = max(f.buf-size, limitBefore)
	limitAfter = min(end+size, limitAfter)
	for limitBefore < f.buf && !isToksep(fl.doc[limitBefore]) {
		limitBefore++
	}
	for limitBefore < f.buf && isToksep(fl.doc[limitBefore]) {
		limitBefore++
	}
	for limitAfter > end && !isToksep(fl.doc[limitAfter]) {
		limitAfter--
	}
	for limitAfter > end && isToksep(fl.doc[limitAfter]) {
		limitAfter--
	}
	a1 := max(limitAfter+1, end)
	return limitBefore, f.buf, end, a1
}

// stripSpaces is stripDuplicateSpaces: each run of C spaces becomes one
// space.
func stripSpaces(b []byte) []byte {
	out := b[:0]
	last := false
	for _, c := range b {
		if isSpace(c) {
			if !last {
				out = append(out, ' ')
			}
			last = true
			continue
		}
		last = false
		out = append(out, c)
	}
	return out
}

// trimField is RediSearch's summary of a field without matches: its
// first bytes (as many as the fragments' estimated words), spaces
// collapsed, cut back to a separator, trailing spaces removed.
func trimField(v []byte, spec hlField) []byte {
	head := uint64(fragWordSize)*uint64(spec.ctxLen)*uint64(spec.frags) + fragWordSize
	head = min(head, uint64(len(v)))
	b := stripSpaces(slices.Clone(v[:head]))
	for len(b) > 1 && !isToksep(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}
