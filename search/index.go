package search

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/btree"
)

// Index is one index: its schema and the documents it holds, with their
// inverted (TEXT), tag and numeric indexes. It is not safe for concurrent
// use: its caller serialises access (a search reads it, Put and Delete
// write it).
type Index struct {
	Name   string
	Schema *Schema
	// Config holds the server-wide settings (FT.CONFIG) the index's
	// queries follow; nil: RediSearch's defaults.
	Config *Config

	stop   stopwordSet
	nextID uint32
	docs   map[string]*document  // by key
	byID   docTable              // by id
	terms  map[string]*termList  // term -> its postings
	tags   []map[string][]uint32 // per TAG field: value -> doc ids, ascending
	// The terms and each TAG field's values in order, for prefixes.
	termSet *btree.BTreeG[string]
	tagSets []*btree.BTreeG[string]
	nums    []*btree.BTreeG[numEntry] // per NUMERIC field
	vecs    []vecStore                // per VECTOR field
	geos    []*geoStore               // per GEO field
	// missing lists, per INDEXMISSING field (by alias), the documents
	// without it, ascending.
	missing map[string][]uint32
	// The suffix tries (WITHSUFFIXTRIE): the TEXT fields' (one for the
	// index, nil without) and each TAG field's (nil without).
	suffix    *suffixTrie
	tagSuffix []*suffixTrie
	// payloads are the documents' non-empty payloads by id, nil unless
	// the schema has a PAYLOAD_FIELD.
	payloads map[uint32][]byte

	// termByID finds a term's list by its id (documents keep their
	// terms' ids); freeTermIDs are the ids of removed terms, for reuse.
	termByID    []*termList
	freeTermIDs []uint32

	syn     *synMap          // FT.SYNUPDATE's groups (nil: none)
	hits    map[string]int32 // Put's scratch: a term's place in hitList
	hitList []termHit
	tagVals [][]string // Put's scratch: the document's values per TAG field
	numVals []slotNum  // Put's scratch: its NUMERIC values
	delEnc  []byte     // Put's scratch: its document's del

	// Statistics for FT.INFO.
	totalLength uint64 // the documents' lengths, summed (BM25's average)
	records     int    // postings in the inverted index
	tagRecs     int
	failures    int // documents whose fields could not be indexed
}

// termHit is a term of a document being indexed.
type termHit struct {
	term string
	freq uint32
	mask fieldMask
	pos  []uint32
}

type numEntry struct {
	v   float64
	doc uint32
}

func numLess(a, b numEntry) bool {
	if a.v != b.v {
		return a.v < b.v
	}
	return a.doc < b.doc
}

// document is what the index remembers of an indexed key: 80 bytes, and
// one string of what Delete needs, encoded (del).
type document struct {
	key     string
	id      uint32
	maxFreq uint32
	length  uint32 // the sum of its tokens' frequencies
	score   float64
	// del is what Delete needs to find the document's entries, as
	// uvarints: how many terms, each one's id (termList.id); how many
	// TAG values, each one's field (slot), length and bytes; how many
	// NUMERIC values, each one's field (slot) and 8 bytes (its float's,
	// little-endian). Its VECTOR, GEO and INDEXMISSING entries Delete
	// finds by its id.
	del   string
	sortv []sortValue
}

// slotNum is a NUMERIC field's value.
type slotNum struct {
	slot int
	v    float64
}

// sortValue is a document's value of a SORTABLE field (or of any field
// SORTBY names, loaded by the caller).
type sortValue struct {
	set bool
	num bool
	f   float64
	s   string
}

// NewIndex returns an empty index named name with schema s.
func NewIndex(name string, s *Schema) *Index {
	ix := &Index{Name: name, Schema: s, stop: newStopwords(s.Stopwords), nextID: 1,
		docs: map[string]*document{}, terms: map[string]*termList{},
		missing: map[string][]uint32{}}
	if s.PayloadField != "" {
		ix.payloads = map[uint32][]byte{}
	}
	ix.termSet = newStringSet()
	ix.tags = make([]map[string][]uint32, s.tags)
	ix.tagSets = make([]*btree.BTreeG[string], s.tags)
	for i := range ix.tags {
		ix.tags[i] = map[string][]uint32{}
		ix.tagSets[i] = newStringSet()
	}
	if s.hasTextSuffixTrie() {
		ix.suffix = newSuffixTrie()
	}
	ix.tagSuffix = make([]*suffixTrie, s.tags)
	for _, f := range s.Fields {
		if f.Type == Tag && f.WithSuffixTrie {
			ix.tagSuffix[f.slot] = newSuffixTrie()
		}
	}
	ix.nums = make([]*btree.BTreeG[numEntry], s.nums)
	for i := range ix.nums {
		ix.nums[i] = btree.NewBTreeGOptions(numLess, btree.Options{NoLocks: true})
	}
	for _, f := range s.Fields {
		switch f.Type {
		case Vector:
			ix.vecs = append(ix.vecs, newVecStore(f.Vector))
		case Geo:
			ix.geos = append(ix.geos, newGeoStore())
		}
	}
	return ix
}

// docLanguage is the language a document is stemmed in: the one its
// LANGUAGE_FIELD names (in any case), else the index's default, as
// RediSearch's (which also takes the default for an unknown name). A
// language HotKV has no stemmer for (chinese included, which RediSearch
// tokenizes apart) leaves the document's words unstemmed, where RediSearch
// would stem them.
func (ix *Index) docLanguage(get func(string) ([]byte, bool)) *language {
	if f := ix.Schema.LanguageField; f != "" {
		if v, ok := get(f); ok {
			if l := findLanguage(string(v)); l != nil {
				return l
			}
		}
	}
	return ix.Schema.lang()
}

// NumDocs is the number of documents in the index.
func (ix *Index) NumDocs() int { return len(ix.docs) }

// docTableSize is the N of TFIDF's IDF: the number of documents plus
// one (RediSearch's TFIDF scores count document id 0, never given).
func (ix *Index) docTableSize() float64 { return float64(len(ix.docs) + 1) }

// NumTerms is the number of distinct terms (words and stems).
func (ix *Index) NumTerms() int {
	if _, ok := ix.terms[""]; ok {
		return len(ix.terms) - 1 // the empty term (INDEXEMPTY) is not one
	}
	return len(ix.terms)
}

// NumRecords is the number of postings in the inverted index.
func (ix *Index) NumRecords() int { return ix.records }

// MaxDocID is the last document id given.
func (ix *Index) MaxDocID() uint32 { return ix.nextID - 1 }

// Failures is the number of documents that could not be indexed (a
// NUMERIC field whose value is not a number).
func (ix *Index) Failures() int { return ix.failures }

// payload is document id's payload (nil: none).
func (ix *Index) payload(id uint32) []byte { return ix.payloads[id] }

// Has reports whether key is indexed.
func (ix *Index) Has(key string) bool { _, ok := ix.docs[key]; return ok }

// Put indexes the hash at key, whose fields are given by get (nil when the
// hash has no such field), replacing what the index had for key: the
// document gets a new id, as in RediSearch. A hash none of whose schema
// fields is present is still a document. It reports false when the hash
// cannot be indexed (a NUMERIC field that does not parse): the key is then
// not in the index.
//
// A hash the schema's FILTER leaves out is not a document: Put removes
// what the index had for key and reports true.
func (ix *Index) Put(key string, get func(field string) ([]byte, bool)) bool {
	ix.Delete(key)
	if !ix.Schema.Passes(key, get) {
		return true
	}
	d := &document{key: key, score: ix.docScore(get)}
	tagVals := ix.tagVals[:0]
	for range ix.Schema.tags {
		tagVals = append(tagVals, nil)
	}
	var missing []string
	nums := ix.numVals[:0]
	if ix.Schema.sortables > 0 {
		d.sortv = make([]sortValue, ix.Schema.sortables)
	}
	// The VECTOR and GEO values, indexed once the document is (nil,
	// NaN: none).
	var vecs [][]byte
	var geos []float64
	if ix.Schema.vecs > 0 {
		vecs = make([][]byte, ix.Schema.vecs)
	}
	if ix.Schema.geos > 0 {
		geos = make([]float64, ix.Schema.geos)
		for i := range geos {
			geos[i] = math.NaN()
		}
	}
	// The document's terms, in ix's scratch table (reused: Put runs
	// for every write of an indexed hash).
	if ix.hits == nil {
		ix.hits = make(map[string]int32, 64)
	}
	hits, list := ix.hits, ix.hitList[:0]
	clear(hits)
	var pos uint32
	lang := ix.docLanguage(get)
	add := func(term string, freq uint32, mask fieldMask, p uint32) {
		i, ok := hits[term]
		if !ok {
			i = int32(len(list))
			hits[term] = i
			if len(list) < cap(list) {
				// The scratch of an earlier Put: its positions' room
				// is reused (they were copied into the term lists).
				list = list[:i+1]
				list[i] = termHit{term: term, pos: list[i].pos[:0]}
			} else {
				list = append(list, termHit{term: term})
			}
		}
		h := &list[i]
		h.freq += freq
		h.mask = h.mask.or(mask)
		h.pos = append(h.pos, p)
		d.maxFreq = max(d.maxFreq, h.freq)
	}
	for _, f := range ix.Schema.Fields {
		v, ok := get(f.Name)
		if !ok {
			if f.IndexMissing {
				missing = append(missing, f.Alias)
			}
			continue
		}
		switch f.Type {
		case Text:
			if f.Sortable {
				d.sortv[f.sortID] = stringSortValue(f, v)
			}
			if f.NoIndex {
				continue
			}
			w := uint32(max(1, uint32OfFloat(f.Weight)))
			sw := uint32(max(1, uint32OfFloat(f.Weight*0.2)))
			mask := fieldBit(f.textID)
			if len(v) == 0 && f.IndexEmpty {
				// The empty term, at a position of its own.
				pos++
				add("", w, mask, pos)
				d.length += w
				continue
			}
			tokenize(string(v), ix.stop, lang, f.NoStem, &pos, func(t token) {
				if f.WithSuffixTrie {
					ix.suffix.add(t.word)
				}
				add(t.word, w, mask, t.pos)
				d.length += w
				if t.stem != "" {
					add(t.stem, sw, mask, t.pos)
				}
				for _, g := range ix.synGroups(t.word) {
					add(g, w, mask, t.pos)
				}
				if f.Phonetic && len(t.word) >= minPhoneticLen {
					if p := phoneticTerm(t.word); p != "" {
						add(p, w, mask, t.pos)
					}
				}
			})
		case Tag:
			vals := splitTags(string(v), f.Separator, f.CaseSensitive, f.IndexEmpty)
			if f.Sortable {
				d.sortv[f.sortID] = stringSortValue(f, v)
			}
			if !f.NoIndex {
				tagVals[f.slot] = vals
				if t := ix.tagSuffix[f.slot]; t != nil {
					for _, v := range vals {
						t.add(v)
					}
				}
			}
		case Numeric:
			n, err := parseNumber(string(v))
			if err != nil {
				ix.failures++
				return false
			}
			if f.Sortable {
				d.sortv[f.sortID] = sortValue{set: true, num: true, f: n}
			}
			if !f.NoIndex {
				nums = append(nums, slotNum{f.slot, n})
			}
		case Vector:
			if len(v) != f.Vector.blobSize() {
				ix.failures++
				return false
			}
			vecs[f.slot] = v
			// Each vector counts once in the document's maximal
			// frequency (TFIDF's norm), where it comes in the
			// schema: as RediSearch's, so that a document with
			// vectors and no text scores finitely.
			d.maxFreq++
		case Geo:
			h, ok := geoHash(v)
			if !ok {
				ix.failures++
				return false
			}
			if f.Sortable {
				d.sortv[f.sortID] = stringSortValue(f, v)
			}
			if !f.NoIndex {
				geos[f.slot] = h
			}
		}
	}
	d.id = ix.nextID
	ix.nextID++
	ix.docs[key] = d
	ix.byID.set(d.id, d)
	ix.totalLength += uint64(d.length)
	if ix.payloads != nil {
		if v, ok := get(ix.Schema.PayloadField); ok && len(v) > 0 {
			ix.payloads[d.id] = bytes.Clone(v)
		}
	}
	ix.hitList = list[:0]
	del := binary.AppendUvarint(ix.delEnc[:0], uint64(len(list)))
	for _, h := range list {
		term := h.term
		// Ids only grow: the new posting goes last. The empty term
		// (INDEXEMPTY) is not in the term dictionary (nor in FT.INFO's
		// count): no prefix expands to it.
		tl := ix.terms[term]
		if tl == nil {
			tl = ix.newTerm(term)
		}
		del = binary.AppendUvarint(del, uint64(tl.id))
		freq, mask, pos := h.freq, h.mask, h.pos
		if ix.Schema.NoFreqs {
			freq = 1
		}
		if ix.Schema.NoFields {
			mask = allFields
		}
		if ix.Schema.NoOffsets {
			pos = nil
		}
		tl.add(d.id, freq, mask, pos)
		ix.records++
	}
	n := 0
	for _, vals := range tagVals {
		n += len(vals)
	}
	del = binary.AppendUvarint(del, uint64(n))
	for slot, vals := range tagVals {
		for _, v := range vals {
			del = binary.AppendUvarint(del, uint64(slot))
			del = binary.AppendUvarint(del, uint64(len(v)))
			del = append(del, v...)
			if len(ix.tags[slot][v]) == 0 {
				ix.tagSets[slot].Set(v)
			}
			ix.tags[slot][v] = append(ix.tags[slot][v], d.id)
			ix.tagRecs++
		}
	}
	clear(tagVals)
	ix.tagVals = tagVals[:0]
	for _, name := range missing {
		ix.missing[name] = append(ix.missing[name], d.id)
	}
	del = binary.AppendUvarint(del, uint64(len(nums)))
	for _, n := range nums {
		ix.nums[n.slot].Set(numEntry{n.v, d.id})
		del = binary.AppendUvarint(del, uint64(n.slot))
		del = binary.LittleEndian.AppendUint64(del, math.Float64bits(n.v))
	}
	d.del = string(del)
	ix.delEnc, ix.numVals = del[:0], nums[:0]
	for slot, v := range vecs {
		if v != nil {
			ix.vecs[slot].put(d.id, v)
		}
	}
	for slot, h := range geos {
		if !math.IsNaN(h) {
			ix.geos[slot].put(d.id, h)
		}
	}
	return true
}

// newTerm adds term's (empty) list to the index.
func (ix *Index) newTerm(term string) *termList {
	tl := &termList{word: term}
	if n := len(ix.freeTermIDs); n > 0 {
		tl.id = ix.freeTermIDs[n-1]
		ix.freeTermIDs = ix.freeTermIDs[:n-1]
		ix.termByID[tl.id] = tl
	} else {
		tl.id = uint32(len(ix.termByID))
		ix.termByID = append(ix.termByID, tl)
	}
	ix.terms[term] = tl
	if term != "" {
		ix.termSet.Set(term)
	}
	return tl
}

// docScore is a document's score: its SCORE_FIELD's value when it has a
// valid one, else the index's default score. RediSearch keeps it as a
// float (32 bits).
func (ix *Index) docScore(get func(field string) ([]byte, bool)) float64 {
	score := ix.Schema.Score
	if f := ix.Schema.ScoreField; f != "" {
		if v, ok := get(f); ok {
			if x, ok := parseRedisDouble(string(v)); ok {
				score = x
			}
		}
	}
	return float64(float32(score))
}

// parseRedisDouble parses a double as Redis's string2d does (the
// modules' StringToDouble): strtod over the whole string, no leading
// space, no NaN, no overflow.
func parseRedisDouble(s string) (float64, bool) {
	if s == "" || s[0] == ' ' || s[0] == '\t' || s[0] == '\n' || s[0] == '\r' || s[0] == '\v' || s[0] == '\f' {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		switch strings.ToLower(s) {
		case "inf", "+inf", "infinity", "+infinity":
			return math.Inf(1), true
		case "-inf", "-infinity":
			return math.Inf(-1), true
		}
		return 0, false
	}
	if strings.Contains(s, "_") || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// stringSortValue is a SORTABLE TEXT, TAG or GEO field's sort value:
// the value, lowercased unless UNF.
func stringSortValue(f *Field, v []byte) sortValue {
	s := string(v)
	if !f.UNF {
		s = strings.ToLower(s)
	}
	return sortValue{set: true, s: s}
}

// uint32OfFloat converts as C's (uint32_t) cast of a float does for the
// values a weight takes (negative and NaN give 0).
func uint32OfFloat(f float64) uint32 {
	f32 := float64(float32(f))
	if !(f32 > 0) {
		return 0
	}
	if f32 >= math.MaxUint32 {
		return math.MaxUint32
	}
	return uint32(f32)
}

// Delete removes key's document from the index, if there.
func (ix *Index) Delete(key string) {
	d := ix.docs[key]
	if d == nil {
		return
	}
	delete(ix.docs, key)
	ix.byID.del(d.id)
	delete(ix.payloads, d.id)
	ix.totalLength -= uint64(d.length)
	del, off := d.del, 0
	next := func() int {
		var v uint64
		v, off = uvarintString(del, off)
		return int(v)
	}
	for n := next(); n > 0; n-- {
		tl := ix.termByID[next()]
		if tl.remove(d.id) {
			ix.records--
		}
		if tl.n == 0 {
			// None of its documents is left: nothing points to it.
			delete(ix.terms, tl.word)
			if tl.word != "" {
				ix.termSet.Delete(tl.word)
			}
			ix.termByID[tl.id] = nil
			ix.freeTermIDs = append(ix.freeTermIDs, tl.id)
		}
	}
	for n := next(); n > 0; n-- {
		slot, l := next(), next()
		v := del[off : off+l]
		off += l
		ids := ix.tags[slot][v]
		if i, ok := slices.BinarySearch(ids, d.id); ok {
			ids = slices.Delete(ids, i, i+1)
			ix.tagRecs--
		}
		if len(ids) == 0 {
			delete(ix.tags[slot], v)
			ix.tagSets[slot].Delete(v)
		} else {
			ix.tags[slot][v] = ids
		}
	}
	for n := next(); n > 0; n-- {
		slot := next()
		v := math.Float64frombits(binary.LittleEndian.Uint64([]byte(del[off : off+8])))
		off += 8
		ix.nums[slot].Delete(numEntry{v, d.id})
	}
	for name, ids := range ix.missing {
		if i, ok := slices.BinarySearch(ids, d.id); ok {
			ix.missing[name] = slices.Delete(ids, i, i+1)
		}
	}
	for _, v := range ix.vecs {
		v.del(d.id)
	}
	for _, g := range ix.geos {
		g.del(d.id)
	}
}

// AddFields adds fields (from Schema.ParseAlter) to the index's schema.
// The documents already indexed keep what they had: the caller indexes
// them again (Put) for the new fields to count.
func (ix *Index) AddFields(fields []*Field) {
	for _, f := range fields {
		f.textID, f.sortID, f.slot = -1, -1, -1
		ix.Schema.add(f)
		switch {
		case f.Type == Tag:
			ix.tags = append(ix.tags, map[string][]uint32{})
			ix.tagSets = append(ix.tagSets, newStringSet())
			var t *suffixTrie
			if f.WithSuffixTrie {
				t = newSuffixTrie()
			}
			ix.tagSuffix = append(ix.tagSuffix, t)
		case f.Type == Text && f.WithSuffixTrie && !f.NoIndex && ix.suffix == nil:
			ix.suffix = newSuffixTrie()
		case f.Type == Numeric:
			ix.nums = append(ix.nums, btree.NewBTreeGOptions(numLess, btree.Options{NoLocks: true}))
		case f.Type == Vector:
			ix.vecs = append(ix.vecs, newVecStore(f.Vector))
		case f.Type == Geo:
			ix.geos = append(ix.geos, newGeoStore())
		}
	}
}

// Clear removes every document.
func (ix *Index) Clear() {
	next := ix.nextID
	*ix = *NewIndex(ix.Name, ix.Schema)
	ix.nextID = next
}

func cmpU32(a, b uint32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// splitTags splits a TAG value at sep, trims the spaces around each tag,
// drops empty ones (unless indexEmpty: INDEXEMPTY indexes them as "") and
// lowercases them unless caseSensitive.
func splitTags(v string, sep byte, caseSensitive, indexEmpty bool) []string {
	var out []string
	for _, t := range strings.Split(v, string(sep)) {
		t = strings.TrimSpace(t)
		if t == "" && !indexEmpty {
			continue
		}
		if !caseSensitive {
			t = lowerASCII(t)
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// lowerASCII lowercases the ASCII letters of s, as RediSearch lowercases
// tags (byte by byte, in the C locale: "ÄB" is "Äb").
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; c >= 'A' && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// TagValues returns the distinct values of the TAG field name (FT.TAGVALS)
// in RediSearch's order, its trie's: bytes compared as C's signed chars
// (bytes of 0x80 and above first), a value before the longer values it
// begins.
func (ix *Index) TagValues(name string) ([]string, error) {
	f := ix.Schema.Field(name)
	switch {
	case f == nil:
		return nil, Error(errNoSuchField)
	case f.Type != Tag:
		return nil, Error(errNotTagField)
	case f.NoIndex:
		return []string{}, nil
	}
	out := make([]string, 0, len(ix.tags[f.slot]))
	for v := range ix.tags[f.slot] {
		out = append(out, v)
	}
	slices.SortFunc(out, compareSigned)
	return out, nil
}

// compareSigned compares a and b bytewise as signed chars.
func compareSigned(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if x, y := int8(a[i]), int8(b[i]); x != y {
			return int(x) - int(y)
		}
	}
	return len(a) - len(b)
}

// parseNumber parses a NUMERIC value as RediSearch does (strtod, the whole
// string).
func parseNumber(s string) (float64, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return f, nil
		}
		switch strings.ToLower(s) {
		case "inf", "+inf", "infinity", "+infinity":
			return math.Inf(1), nil
		case "-inf", "-infinity":
			return math.Inf(-1), nil
		}
	}
	return f, err
}

// Keys returns the keys of the indexed documents, in id order.
func (ix *Index) Keys() []string {
	out := make([]string, 0, len(ix.docs))
	ix.byID.each(func(d *document) { out = append(out, d.key) })
	return out
}

func newStringSet() *btree.BTreeG[string] {
	return btree.NewBTreeGOptions(func(a, b string) bool { return a < b }, btree.Options{NoLocks: true})
}

// withPrefix returns the first max members of set that start with
// prefix, in order, leaving out stems ("+...") when noStems (the term
// dictionary's). max is RediSearch's MAXEXPANSIONS (200 by default).
func withPrefix(set *btree.BTreeG[string], prefix string, noStems bool, max int64) []string {
	var out []string
	set.Ascend(prefix, func(w string) bool {
		if !strings.HasPrefix(w, prefix) || int64(len(out)) == max {
			return false
		}
		if !noStems || !strings.HasPrefix(w, stemPrefix) {
			out = append(out, w)
		}
		return true
	})
	return out
}
