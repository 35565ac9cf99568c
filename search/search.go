package search

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Request is a parsed FT.SEARCH.
type Request struct {
	Query      string
	NoContent  bool
	Verbatim   bool
	WithScores bool
	// Profiling (FT.PROFILE) makes Search fill Profile; ProfileLimited
	// is its LIMITED.
	Profiling, ProfileLimited bool
	Profile                   *Profile
	// ExplainScore (EXPLAINSCORE, with WITHSCORES) explains each
	// result's score (Hit.Explain).
	ExplainScore bool
	// Return lists the fields to return (nil: all of the hash's fields).
	Return   []ReturnField
	Offset   int
	Num      int
	SortBy   string // "" for the score order
	SortDesc bool
	InFields []string
	InKeys   []string
	Filters  []NumericFilter
	Dialect  int
	// Language is LANGUAGE's ("": the index's default language).
	Language string
	// Params are PARAMS' values, which the query names $name.
	Params map[string]string
	// Timeout bounds the reading of the matching documents (0: none):
	// past it, the results are those read so far, as RediSearch's
	// ON_TIMEOUT RETURN policy has them, and Search sets TimedOut.
	Timeout  time.Duration
	TimedOut bool

	geo      *geoFilter // GEOFILTER (the last one given)
	geoField string

	// Scorer is SCORER's name ("" for TFIDF); Payload is PAYLOAD, the
	// bytes HAMMING compares with each document's payload.
	Scorer  string
	Payload []byte
	// WithSortKeys and WithPayloads add each result's sort key and
	// payload (Hit.Payload) to the reply.
	WithSortKeys, WithPayloads bool
	NoStopwords                bool

	// Slop is SLOP (-1 when not given: no check) and InOrder INORDER:
	// an intersection matches only when its terms are that close (and
	// in query order; withinRange).
	Slop    int
	InOrder bool

	// hl is SUMMARIZE's and HIGHLIGHT's fields and settings (nil: none);
	// hlRoot the query Search evaluated, for Highlighter.
	hl     *hlSpec
	hlRoot *node
}

// ReturnField is one field of RETURN: the hash field to load and the name
// to reply it under.
type ReturnField struct{ Field, As string }

// defaultTimeout is RediSearch's default TIMEOUT (FT.CONFIG's).
const defaultTimeout = 500 * time.Millisecond

// NumericFilter is FILTER field min max.
type NumericFilter struct {
	Field        string
	Min, Max     float64
	MinEx, MaxEx bool
}

// ParseSearch parses FT.SEARCH's arguments after the index name against
// the index's schema.
func (ix *Index) ParseSearch(args [][]byte) (*Request, error) {
	if len(args) == 0 {
		return nil, Error(errNoQuery)
	}
	r := &Request{Query: string(args[0]), Num: 10, Dialect: int(ix.Config.DefaultDialect()), Timeout: defaultTimeout, Slop: -1}
	maxResults := ix.Config.MaxSearchResults()
	opts := args[1:]
	for i := 0; i < len(opts); i++ {
		opt := strings.ToUpper(string(opts[i]))
		switch opt {
		case "NOCONTENT":
			r.NoContent = true
		case "VERBATIM":
			r.Verbatim = true
		case "WITHSCORES":
			r.WithScores = true
		case "LIMIT":
			if i+2 >= len(opts) {
				return nil, Error(errLimitArgs)
			}
			off, err1 := strconv.ParseInt(string(opts[i+1]), 10, 64)
			num, err2 := strconv.ParseInt(string(opts[i+2]), 10, 64)
			if err1 != nil || err2 != nil || off < 0 || num < 0 {
				return nil, Error(errLimitNumeric)
			}
			if uint64(num) > maxResults {
				return nil, errf(errLimitMax, maxResults)
			}
			r.Offset, r.Num = int(off), int(num)
			i += 2
		case "RETURN":
			n, ok := countArg(opts, i+1)
			if !ok {
				return nil, errf(errBadArgsConvert, "RETURN")
			}
			if i+1+n >= len(opts) {
				return nil, errf(errBadArgsMissing, "RETURN")
			}
			list := opts[i+2 : i+2+n]
			r.Return = []ReturnField{}
			for j := 0; j < len(list); j++ {
				name := string(list[j])
				rf := ReturnField{Field: name, As: name}
				if j+2 < len(list) && strings.EqualFold(string(list[j+1]), "AS") {
					rf.As = string(list[j+2])
					j += 2
				}
				if f := ix.Schema.Field(name); f != nil {
					rf.Field = f.Name
				}
				r.Return = append(r.Return, rf)
			}
			i += 1 + n
		case "SORTBY":
			if i+1 >= len(opts) {
				return nil, errf(errBadArgsMissing, "SORTBY")
			}
			r.SortBy = string(opts[i+1]) // a field, or a distance the query yields (Search checks)
			i++
			if i+1 < len(opts) {
				switch strings.ToUpper(string(opts[i+1])) {
				case "ASC":
					i++
				case "DESC":
					r.SortDesc = true
					i++
				}
			}
		case "INFIELDS", "INKEYS":
			n, ok := countArg(opts, i+1)
			if !ok {
				return nil, errf(errBadArgsConvert, opt)
			}
			if i+1+n >= len(opts) {
				return nil, errf(errBadArgsMissing, opt)
			}
			list := []string{}
			for _, a := range opts[i+2 : i+2+n] {
				list = append(list, string(a))
			}
			if opt == "INFIELDS" {
				r.InFields = list
			} else {
				r.InKeys = list
			}
			i += 1 + n
		case "FILTER":
			if i+3 >= len(opts) {
				return nil, Error(errFilterArgs)
			}
			f := NumericFilter{Field: string(opts[i+1])}
			var ok bool
			if f.Min, f.MinEx, ok = parseBound(string(opts[i+2])); !ok {
				return nil, errf(errNumericFilterLow, string(opts[i+2]))
			}
			if f.Max, f.MaxEx, ok = parseBound(string(opts[i+3])); !ok {
				return nil, errf(errNumericFilter, string(opts[i+3]))
			}
			r.Filters = append(r.Filters, f)
			i += 3
		case "DIALECT":
			var err error
			if r.Dialect, err = parseDialect(opts, i); err != nil {
				return nil, err
			}
			i++
		case "PARAMS":
			var err error
			if r.Params, i, err = parseParams(opts, i, r.Params); err != nil {
				return nil, err
			}
		case "GEOFILTER":
			if i+5 >= len(opts) {
				return nil, Error(errGeoFilterArgs)
			}
			gf := &geoFilter{}
			for k, p := range []*float64{&gf.lon, &gf.lat, &gf.radius} {
				v, ok := strtodWhole(opts[i+2+k])
				if !ok || math.IsInf(v, 0) {
					return nil, errf(errGeoFilterParse, []string{"<lon>", "<lat>", "<radius>"}[k])
				}
				*p = v
			}
			if gf.unit = geoUnit(string(opts[i+5])); gf.unit == 0 {
				return nil, errf(errGeoFilterUnit, string(opts[i+5]))
			}
			if err := gf.validate(); err != nil {
				return nil, err
			}
			r.geo, r.geoField = gf, string(opts[i+1])
			i += 5
		case "SCORER":
			if i+1 >= len(opts) {
				return nil, errf(errBadArgsMissing, opt)
			}
			// An unknown name is refused once all arguments are
			// read, as RediSearch does.
			r.Scorer = string(opts[i+1])
			i++
		case "EXPANDER", "PAYLOAD":
			// RediSearch takes any expander name (an unknown one
			// expands as the default); a payload only matters to
			// HAMMING.
			if i+1 >= len(opts) {
				return nil, errf(errBadArgsMissing, opt)
			}
			if opt == "PAYLOAD" {
				r.Payload = opts[i+1]
			}
			i++
		case "TIMEOUT":
			if i+1 >= len(opts) {
				return nil, Error(errTimeoutArg)
			}
			ms, err := strconv.ParseUint(string(opts[i+1]), 10, 63)
			if err != nil {
				return nil, Error(errTimeout)
			}
			r.Timeout = time.Duration(min(ms, math.MaxInt64/uint64(time.Millisecond))) * time.Millisecond
			i++
		case "LANGUAGE":
			if i+1 >= len(opts) {
				return nil, errf(errBadArgsMissing, opt)
			}
			l := findLanguage(string(opts[i+1]))
			if l == nil {
				return nil, Error(errNoLanguage)
			}
			if l.stem == nil {
				return nil, errf(errNotSupported, "LANGUAGE "+l.name)
			}
			r.Language = l.name
			i++
		case "WITHSORTKEYS":
			r.WithSortKeys = true
		case "WITHPAYLOADS":
			r.WithPayloads = true
		case "NOSTOPWORDS":
			r.NoStopwords = true
		case "WITHCOUNT": // RediSearch 2.10 takes it and does nothing
		case "SLOP":
			if i+1 >= len(opts) {
				return nil, errf(errBadArgsMissing, opt)
			}
			n, err := parseIntArg(opts[i+1])
			if err != "" {
				return nil, errf(err, opt)
			}
			r.Slop = n
			i++
		case "INORDER":
			r.InOrder = true
		case "SUMMARIZE", "HIGHLIGHT":
			if r.hl == nil {
				r.hl = &hlSpec{}
			}
			next, ok := r.hl.parse(opts, i+1, opt == "HIGHLIGHT")
			if !ok {
				return nil, errf(errBadArgsFor, opt)
			}
			i = next
		case "EXPLAINSCORE":
			r.ExplainScore = true
		case "FORMAT":
			return nil, errf(errNotSupported, opt)
		default:
			// RediSearch's first pass stops at an unknown argument;
			// EXPLAINSCORE's check comes before its error.
			if r.ExplainScore && !r.WithScores {
				return nil, Error(errExplainScore)
			}
			return nil, errf(errUnknownArgAt, string(opts[i]), i+1)
		}
	}
	if r.ExplainScore && !r.WithScores {
		return nil, Error(errExplainScore)
	}
	if r.Scorer != "" && !slices.Contains(scorers, r.Scorer) {
		return nil, errf(errNoScorer, r.Scorer)
	}
	r.finishHighlight()
	if r.hl != nil && ix.Schema.NoOffsets {
		return nil, Error(errHLNoOffsets)
	}
	if uint64(r.Offset)+uint64(r.Num) > maxResults {
		// The page ends at MAXSEARCHRESULTS results.
		r.Num = int(max(0, int64(maxResults)-int64(r.Offset)))
	}
	return r, nil
}

// parseIntArg parses an INT argument as RediSearch's argument cursor
// does for SLOP: an integer, or a number truncated (AC_F_COALESCE), within
// C's int. It returns the error's format ("" when it parses).
func parseIntArg(b []byte) (int, string) {
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil || n == math.MinInt64 || n == math.MaxInt64 {
		// Redis's string-to-double takes nan but no infinity; C's
		// conversion of nan is out of bounds.
		f, ok := strtodWhole(b)
		if !ok || math.IsInf(f, 0) {
			return 0, errBadArgsConvert
		}
		if math.IsNaN(f) || f >= math.MaxInt64 || f < math.MinInt64 {
			return 0, errBadArgsBounds
		}
		n = int64(f)
	}
	if n > math.MaxInt32 || n < math.MinInt32 {
		return 0, errBadArgsBounds
	}
	return int(n), ""
}

// parseBound parses a FILTER bound: a number, "(" before it for an
// exclusive one, -inf, +inf or inf.
func parseBound(s string) (float64, bool, bool) {
	ex := strings.HasPrefix(s, "(")
	if ex {
		s = s[1:]
	}
	v, ok := parseRangeNumber(s)
	return v, ex, ok
}

// Hit is one document a search found.
type Hit struct {
	Key   string
	Score float64
	// Yields are the distances the query yields for it (a KNN's,
	// $YIELD_DISTANCE_AS), replied before its fields.
	Yields []Yield
	// SortKey is its SORTBY value as WITHSORTKEYS replies it ("$" and a
	// string, "#" and a number); "" when it has none.
	SortKey string
	// Explain is EXPLAINSCORE's account of Score (nil without it).
	Explain *ScoreExplain
	// Payload is the document's payload (PAYLOAD_FIELD's value when it
	// was indexed; nil when it has none or the index no payload field).
	Payload []byte
}

// Yield is a named value a query computes for a document.
type Yield struct{ Name, Value string }

// Search runs r and returns the number of matching documents and the
// page of them LIMIT asks for, in RediSearch's order: by score, highest
// first (or by SORTBY's field), ties by document id. load returns a hash
// field of a document (for SORTBY on a field that is not SORTABLE).
func (ix *Index) Search(r *Request, load func(key, field string) ([]byte, bool)) (int, []Hit, error) {
	stop := ix.stop
	if r.NoStopwords {
		stop = newStopwords([]string{})
	}
	started := time.Now()
	root, knn, err := parseQueryParams(ix.Schema, stop, r.Query, r.Dialect, ix.Config, r.Params)
	if err == nil && !r.Verbatim {
		err = ix.Schema.checkPhonetic(root)
	}
	if err != nil {
		return 0, nil, err
	}
	if r.Profiling && knn != nil {
		return 0, nil, errf(errNotSupported, "FT.PROFILE of a KNN query")
	}
	yields := yieldNames(root)
	var knnField *Field
	if knn != nil {
		if knnField, err = ix.checkKNN(knn); err != nil {
			return 0, nil, err
		}
		if knnField != nil {
			if knn.as == "" {
				knn.as = "__" + knnField.Alias + "_score"
			}
			yields = append(yields, knn.as)
		}
	}
	if r.SortBy != "" && ix.Schema.Field(r.SortBy) == nil && !slices.Contains(yields, r.SortBy) {
		return 0, nil, errf(errPropertyNotLoaded, r.SortBy)
	}
	if err := ix.checkHighlight(r); err != nil {
		return 0, nil, err
	}
	if r.ExplainScore && knn != nil {
		return 0, nil, errf(errNotSupported, "EXPLAINSCORE with KNN")
	}
	if r.hl != nil && knn != nil {
		return 0, nil, errf(errNotSupported, "SUMMARIZE or HIGHLIGHT with KNN")
	}
	if root == nil || knn != nil && knnField == nil {
		if r.Profiling {
			r.Profile = &Profile{Parsing: time.Since(started), Iterators: &IterProfile{Type: "EMPTY"}, Processors: ix.processors(r, 0)}
		}
		return 0, nil, nil
	}
	if r.InFields != nil {
		var mask fieldMask
		for _, name := range r.InFields {
			if f := ix.Schema.Field(name); f != nil && f.textID >= 0 {
				mask = mask.or(fieldBit(f.textID))
			}
		}
		restrictMask(root, mask)
	}
	// FILTER and INKEYS join the root intersection as more children (a
	// new intersection when the root is something else), as RediSearch's
	// global filters do.
	var filters []*node
	for _, f := range r.Filters {
		fd := ix.Schema.Field(f.Field)
		if fd == nil || fd.Type != Numeric || fd.NoIndex {
			return 0, nil, nil
		}
		filters = append(filters, &node{op: opNumeric, field: fd, min: f.Min, max: f.Max, minEx: f.MinEx, maxEx: f.MaxEx})
	}
	if r.geo != nil {
		fd := ix.Schema.Field(r.geoField)
		if fd == nil || fd.Type != Geo || fd.NoIndex {
			return 0, nil, nil
		}
		filters = append(filters, &node{op: opGeo, field: fd, geo: r.geo})
	}
	if r.InKeys != nil {
		var ids []uint32
		for _, k := range r.InKeys {
			if d := ix.docs[k]; d != nil {
				ids = append(ids, d.id)
			}
		}
		slices.Sort(ids)
		filters = append(filters, &node{op: opIDs, ids: slices.Compact(ids)})
	}
	if len(filters) > 0 {
		switch {
		case knn != nil:
			// A KNN's filters, as RediSearch's: the first
			// replaces the wildcard it would rank (a "*" query),
			// and each other becomes, with what is there, the
			// children of a new intersection, in front.
			if root.op == opWildcard {
				root, filters = filters[0], filters[1:]
			}
			for _, f := range filters {
				root = &node{op: opAnd, kids: []*node{f, root}}
			}
		case r.InOrder && root.op == opAnd:
			// In order, RediSearch's children keep their places:
			// each filter goes first, as it puts them.
			slices.Reverse(filters)
			root.kids = append(filters, root.kids...)
		case r.InOrder:
			slices.Reverse(filters)
			root = &node{op: opAnd, kids: append(filters, root)}
		case root.op == opAnd:
			root.kids = append(root.kids, filters...)
		default:
			root = &node{op: opAnd, kids: append([]*node{root}, filters...)}
		}
	}
	r.hlRoot = root
	e := &evaluator{ix: ix, n: ix.docTableSize(), verbatim: r.Verbatim, lang: findLanguage(r.Language), slop: r.Slop, inOrder: r.InOrder, profiling: r.Profiling,
		bm25std: r.Scorer == "BM25STD"}
	scoreOf := score
	tfidfScorer := r.Scorer == "" || r.Scorer == "TFIDF"
	avg := 0.0
	if len(ix.docs) > 0 {
		avg = float64(ix.totalLength) / float64(len(ix.docs))
	}
	sc := scoring{avgLen: avg, query: r.Payload, payload: ix.payload}
	if r.Scorer != "" && r.Scorer != "TFIDF" {
		scoreOf = scorer(r.Scorer, sc)
	}
	var explain func(*document, *result) *ScoreExplain
	if r.ExplainScore {
		explain = scoreExplainer(r.Scorer, sc)
	}
	// A result is small (the page is chosen among them all); its sort
	// value and yields, when there are, are in ext[x].
	type scored struct { // no pointers: the slice is not scanned
		id    uint32
		x     int32
		score float64
	}
	type extra struct {
		sv      sortValue
		yields  []Yield
		explain *ScoreExplain
	}
	var ext []extra
	var res []scored
	pureKNN := knn != nil && root.op == opWildcard
	parsed := time.Now()
	it := e.build(root)
	if r.Profiling {
		r.Profile = &Profile{Parsing: parsed.Sub(started), Pipeline: time.Since(parsed)}
		if it == nil {
			// Nothing to read: RediSearch's empty root, never read.
			it = &emptyIter{}
			r.Profile.Iterators = &IterProfile{Type: "EMPTY"}
		} else {
			it = profileWrap(it)
		}
	}
	// readTime is FT.PROFILE's Index time.
	var readTime time.Duration
	if _, empty := it.(*emptyIter); it != nil && !empty && !pureKNN { // "*" ranked by KNN reads no iterator
		res = make([]scored, 0, max(min(it.est(), len(ix.docs)), 0))
		start, read := time.Now(), 0
		for {
			rc, rec := it.read()
			if rc == rcEOF {
				break
			}
			// A deleted document is skipped (the wildcard reads every
			// id); the default scorer reads the document table only.
			switch {
			case explain != nil:
				if d := ix.byID.get(rec.doc); d != nil {
					res = append(res, scored{id: d.id, score: scoreOf(d, rec), x: int32(len(ext))})
					ext = append(ext, extra{explain: explain(d, rec)})
				}
			case tfidfScorer:
				if m, ok := ix.byID.getMeta(rec.doc); ok {
					res = append(res, scored{id: rec.doc, score: scoreMeta(m, rec)})
				}
			default:
				if d := ix.byID.get(rec.doc); d != nil {
					res = append(res, scored{id: d.id, score: scoreOf(d, rec)})
				}
			}
			if read++; r.Timeout > 0 && read%256 == 0 && time.Since(start) > r.Timeout {
				r.TimedOut = true
				break
			}
		}
		readTime = time.Since(start)
	}
	if knn != nil {
		// The k nearest of the documents the query matched (all, for
		// "*", whose score is then 0).
		var accept func(uint32) bool
		scores := map[uint32]float64{}
		if !pureKNN {
			for _, x := range res {
				scores[x.id] = x.score
			}
			accept = func(id uint32) bool { _, ok := scores[id]; return ok }
		}
		ef := knn.ef
		if ef == 0 {
			ef = knnField.Vector.EFRuntime
		}
		res = res[:0]
		for _, h := range ix.vecs[knnField.slot].knn([]byte(knn.blob), knn.k, ef, accept) {
			if d := ix.byID.get(h.id); d != nil {
				res = append(res, scored{id: d.id, score: scores[h.id], x: int32(len(ext))})
				ext = append(ext, extra{yields: []Yield{{knn.as, formatDistance(h.dist)}}})
			}
		}
	}
	if len(e.yields) > 0 || r.SortBy != "" {
		if ext == nil {
			ext = make([]extra, len(res))
			for i := range res {
				res[i].x = int32(i)
			}
		}
		for name, dists := range e.yields {
			for _, x := range res {
				if dist, ok := dists[x.id]; ok {
					ext[x.x].yields = append(ext[x.x].yields, Yield{name, formatDistance(dist)})
				}
			}
		}
	}
	// By score, highest first, or by SORTBY's field; ties by document id
	// (a total order: only the page's first documents need sorting).
	cmp := func(a, b scored) int {
		if a.score > b.score {
			return -1
		}
		if a.score < b.score {
			return 1
		}
		return cmpU32(a.id, b.id)
	}
	if r.SortBy != "" {
		f := ix.Schema.Field(r.SortBy)
		for _, x := range res {
			if f == nil {
				ext[x.x].sv = yieldSortValue(ext[x.x].yields, r.SortBy)
			} else {
				ext[x.x].sv = ix.sortValue(ix.byID.get(x.id), f, load)
			}
		}
		cmp = func(a, b scored) int {
			c := compareSort(ext[a.x].sv, ext[b.x].sv, r.SortDesc)
			if c == 0 {
				c = cmpU32(a.id, b.id)
			}
			return c
		}
	}
	total := len(res)
	if r.Profiling {
		if r.Profile.Iterators == nil {
			if r.Profile.Iterators, err = profileOf(it, r.ProfileLimited); err != nil {
				return 0, nil, err
			}
		}
		r.Profile.Processors = ix.processors(r, total)
		r.Profile.Processors[0].Time = readTime
		if r.hl != nil {
			// RediSearch's highlighter moves every iterator once
			// more for each document it highlights.
			page := max(0, min(r.Num, total-r.Offset))
			r.Profile.Iterators.addCalls(page)
		}
	}
	sorting := time.Now()
	res = firstK(res, r.Offset+r.Num, cmp)
	if r.Profiling {
		for i := range r.Profile.Processors {
			if r.Profile.Processors[i].Type == "Sorter" {
				r.Profile.Processors[i].Time = time.Since(sorting)
			}
		}
	}
	lo := min(r.Offset, total)
	hi := min(lo+r.Num, total)
	out := make([]Hit, 0, hi-lo)
	for _, s := range res[lo:hi] {
		h := Hit{Key: ix.byID.get(s.id).key, Score: s.score, Payload: ix.payload(s.id)}
		if ext != nil {
			h.Yields, h.Explain = ext[s.x].yields, ext[s.x].explain
			if sv := ext[s.x].sv; sv.set && sv.num {
				h.SortKey = "#" + formatG17(sv.f)
			} else if sv.set {
				h.SortKey = "$" + sv.s
			}
		}
		out = append(out, h)
	}
	return total, out, nil
}

// restrictMask limits every text term of the query to mask.
func restrictMask(n *node, mask fieldMask) {
	switch n.op {
	case opTerm, opPrefix, opFuzzy:
		n.mask = n.mask.and(mask)
	}
	for _, k := range n.kids {
		restrictMask(k, mask)
	}
}

// sortValue returns d's value of field f: the sort vector's when SORTABLE,
// else loaded.
func (ix *Index) sortValue(d *document, f *Field, load func(key, field string) ([]byte, bool)) sortValue {
	if f.sortID >= 0 {
		if f.sortID < len(d.sortv) { // else added by FT.ALTER since
			return d.sortv[f.sortID]
		}
		return sortValue{}
	}
	v, ok := load(d.key, f.Name)
	if !ok {
		return sortValue{}
	}
	if f.Type == Numeric {
		n, err := parseNumber(string(v))
		if err != nil {
			return sortValue{}
		}
		return sortValue{set: true, num: true, f: n}
	}
	return sortValue{set: true, s: string(v)} // compared as loaded
}

// compareSort orders two sort values; missing values go last either way.
func compareSort(a, b sortValue, desc bool) int {
	switch {
	case !a.set && !b.set:
		return 0
	case !a.set:
		return 1
	case !b.set:
		return -1
	}
	var c int
	if a.num && b.num {
		c = cmp.Compare(a.f, b.f)
	} else {
		c = strings.Compare(a.s, b.s)
	}
	if desc {
		c = -c
	}
	return c
}

// FormatScore formats a score as RediSearch's replies do: Redis 7.4's
// d2string (dtoa.go), Grisu2's digits, not always the shortest.
func FormatScore(f float64) string { return formatD2String(f) }

// formatShortest is the shortest text that reads back as f (inf, -inf,
// nan).
func formatShortest(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// formatG17 is C's "%.17g".
func formatG17(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return formatShortest(f)
	}
	return strconv.FormatFloat(f, 'g', 17, 64)
}

// yieldNames returns the names of the distances n's vector ranges yield.
func yieldNames(n *node) []string {
	if n == nil {
		return nil
	}
	var out []string
	if n.op == opVecRange && n.word != "" {
		out = append(out, n.word)
	}
	for _, k := range n.kids {
		out = append(out, yieldNames(k)...)
	}
	return out
}

// yieldSortValue is the value of the yield called name, for SORTBY.
func yieldSortValue(ys []Yield, name string) sortValue {
	for _, y := range ys {
		if y.Name == name {
			f, _ := strconv.ParseFloat(y.Value, 64)
			return sortValue{set: true, num: true, f: f}
		}
	}
	return sortValue{}
}

// checkKNN returns the VECTOR field a KNN clause ranks by (nil when it
// names no VECTOR field: the query then finds nothing), and the error of
// a query vector of the wrong size or an option the field's algorithm
// does not have.
func (ix *Index) checkKNN(knn *knnClause) (*Field, error) {
	f := ix.Schema.Field(knn.field)
	if f == nil || f.Type != Vector {
		return nil, nil
	}
	if err := checkBlob(f, knn.blob); err != nil {
		return nil, err
	}
	if f.Vector.Algorithm == "FLAT" && knn.ef != 0 || knn.epsilon {
		return nil, Error(errVectorOption)
	}
	return f, nil
}

// firstK reorders s so that its first k elements are, in order, its k
// smallest under cmp (a total order), and returns them (all of s, sorted,
// when it has no more than k).
func firstK[T any](s []T, k int, cmp func(a, b T) int) []T {
	if k <= 0 {
		return s[:0]
	}
	if k >= len(s)/4 {
		slices.SortFunc(s, cmp)
		return s[:min(k, len(s))]
	}
	// A max-heap of the k smallest seen, in s[:k].
	down := func(i int) {
		for {
			c := 2*i + 1
			if c >= k {
				return
			}
			if c+1 < k && cmp(s[c+1], s[c]) > 0 {
				c++
			}
			if cmp(s[c], s[i]) <= 0 {
				return
			}
			s[i], s[c] = s[c], s[i]
			i = c
		}
	}
	for i := k/2 - 1; i >= 0; i-- {
		down(i)
	}
	for j := k; j < len(s); j++ {
		if cmp(s[j], s[0]) < 0 {
			s[0] = s[j]
			down(0)
		}
	}
	slices.SortFunc(s[:k], cmp)
	return s[:k]
}

// parseDialect parses DIALECT's argument at opts[i+1]: 1, 2 or 3 (4,
// RediSearch's too, is refused as not supported). Over HASH documents
// DIALECT 3 is DIALECT 2: what it changes is the reply of JSON's
// multi-valued fields.
func parseDialect(opts [][]byte, i int) (int, error) {
	n, ok := countArg(opts, i+1)
	if !ok || n < 1 || n > 4 {
		return 0, Error(errDialect)
	}
	if n > 3 {
		return 0, errf(errNotSupported, "DIALECT "+strconv.Itoa(n))
	}
	return n, nil
}

// parseParams parses PARAMS nargs name value ... at opts[i] (prev: the
// parameters of an earlier PARAMS, an error) and returns them and the
// index of its last argument.
func parseParams(opts [][]byte, i int, prev map[string]string) (map[string]string, int, error) {
	n, ok := countArg(opts, i+1)
	switch {
	case i+1 >= len(opts):
		return nil, i, errf(errBadArgsMissing, "PARAMS")
	case !ok:
		return nil, i, errf(errBadArgsConvert, "PARAMS")
	case n%2 != 0:
		return nil, i, Error(errParamsPairs)
	case i+1+n >= len(opts):
		return nil, i, errf(errBadArgsMissing, "PARAMS")
	case prev != nil:
		return nil, i, Error(errParamsTwice)
	}
	params := map[string]string{}
	for j := i + 2; j < i+2+n; j += 2 {
		params[string(opts[j])] = string(opts[j+1])
	}
	return params, i + 1 + n, nil
}
