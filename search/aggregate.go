package search

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// FT.AGGREGATE: a request is parsed into steps (LOAD, GROUPBY with its
// reducers, SORTBY and LIMIT, APPLY, FILTER) run as a pipeline in the
// order given, as RediSearch's result processors: each pulls rows from
// the one before it. A SORTBY and a LIMIT of the same stage (between two
// GROUPBYs) are one step, placed where the first of them is, as in
// RediSearch: "SORTBY 2 @n DESC FILTER ... LIMIT 0 2" sorts, keeps two,
// then filters.
//
// The total a reply reports is RediSearch's: the number of documents the
// query had read when the first row came out of the pipeline (all of them
// behind a SORTBY; one when rows stream), or the number of groups behind
// a GROUPBY; a cursor's later reads count again from zero.

// AggRequest is a parsed FT.AGGREGATE.
type AggRequest struct {
	Query    string
	Verbatim bool
	Dialect  int
	Params   map[string]string // PARAMS
	steps    []*aggStep

	Cursor      bool
	CursorCount int   // rows per read (WITHCURSOR COUNT), 0: the default
	MaxIdle     int64 // milliseconds, 0: the default

	// noRows is a LIMIT of no rows: the reply is the total alone, and
	// every SORTBY/LIMIT step counts the rows instead, as RediSearch's.
	noRows bool

	// Profiling (FT.PROFILE AGGREGATE) makes the pipeline read the
	// query's iterators as rows are pulled and count each processor's
	// calls (ProfileRun); ProfileLimited is FT.PROFILE's LIMITED.
	Profiling, ProfileLimited bool
}

type stepKind uint8

const (
	stepLoad stepKind = iota
	stepGroup
	stepArrange
	stepApply
	stepFilter
)

type aggStep struct {
	kind stepKind
	// LOAD
	loadAll bool
	loads   []ReturnField
	// GROUPBY
	props    []string
	reducers []*reducerSpec
	// SORTBY, LIMIT
	sortKeys      []string
	sortAsc       []bool
	max           int
	offset, limit int
	limited       bool
	// APPLY, FILTER
	expr  *expr
	alias string
}

type reducerSpec struct {
	name  string // upper case
	args  []string
	alias string
}

// ParseAggregate parses FT.AGGREGATE's arguments after the index name.
func (ix *Index) ParseAggregate(args [][]byte) (*AggRequest, error) {
	if len(args) == 0 {
		return nil, Error(errNoQuery)
	}
	r := &AggRequest{Query: string(args[0]), Dialect: int(ix.Config.DefaultDialect())}
	opts := args[1:]
	// arrange returns the SORTBY/LIMIT step of the current stage.
	arrange := func() *aggStep {
		for i := len(r.steps) - 1; i >= 0; i-- {
			s := r.steps[i]
			if s.kind == stepGroup {
				break
			}
			if s.kind == stepArrange {
				return s
			}
		}
		s := &aggStep{kind: stepArrange}
		r.steps = append(r.steps, s)
		return s
	}
	str := func(i int) string { return string(opts[i]) }
	for i := 0; i < len(opts); i++ {
		opt := strings.ToUpper(str(i))
		switch opt {
		case "VERBATIM":
			r.Verbatim = true
		case "LOAD":
			if i+1 < len(opts) && str(i+1) == "*" {
				r.steps = append(r.steps, &aggStep{kind: stepLoad, loadAll: true})
				i++
				continue
			}
			n, ok := countArg(opts, i+1)
			if !ok || i+1+n >= len(opts) || n == 0 {
				return nil, Error(errLoadArgs)
			}
			s := &aggStep{kind: stepLoad}
			list := opts[i+2 : i+2+n]
			for j := 0; j < len(list); j++ {
				name := strings.TrimPrefix(string(list[j]), "@")
				rf := ReturnField{Field: name, As: name}
				if j+2 < len(list) && strings.EqualFold(string(list[j+1]), "AS") {
					rf.As = string(list[j+2])
					j += 2
				}
				s.loads = append(s.loads, rf)
			}
			r.steps = append(r.steps, s)
			i += 1 + n
		case "TIMEOUT":
			if _, ok := countArg(opts, i+1); !ok {
				return nil, errf(errBadArgsConvert, "TIMEOUT")
			}
			i++
		case "GROUPBY":
			n, ok := countArg(opts, i+1)
			if !ok {
				return nil, errf(errBadArgsConvert, "GROUPBY")
			}
			if i+1+n >= len(opts) {
				return nil, errf(errBadArgsMissing, "GROUPBY")
			}
			s := &aggStep{kind: stepGroup}
			for _, a := range opts[i+2 : i+2+n] {
				p := string(a)
				if !strings.HasPrefix(p, "@") {
					return nil, errf(errGroupNoAt, p, p)
				}
				s.props = append(s.props, p[1:])
			}
			i += 1 + n
			for i+1 < len(opts) && strings.EqualFold(str(i+1), "REDUCE") {
				i++
				if i+1 >= len(opts) {
					return nil, errf(errBadArgsMissing, "REDUCE")
				}
				rs := &reducerSpec{name: strings.ToUpper(str(i + 1))}
				i++
				m, ok := countArg(opts, i+1)
				if !ok {
					return nil, errf(errReducerArgs, rs.name, "Could not convert argument to expected type")
				}
				if i+1+m >= len(opts) {
					return nil, errf(errReducerArgs, rs.name, "Expected an argument, but none provided")
				}
				for _, a := range opts[i+2 : i+2+m] {
					rs.args = append(rs.args, string(a))
				}
				i += 1 + m
				alias := "__generated_alias" + str(i-m-1)
				for j, a := range rs.args {
					alias += strings.TrimLeft(a, "@")
					if j < len(rs.args)-1 {
						alias += ","
					}
				}
				rs.alias = strings.ToLower(alias)
				if i+1 < len(opts) && strings.EqualFold(str(i+1), "AS") {
					if i+2 >= len(opts) {
						return nil, errf(errBadArgsMissing, "AS")
					}
					rs.alias = str(i + 2)
					i += 2
				}
				s.reducers = append(s.reducers, rs)
			}
			r.steps = append(r.steps, s)
		case "SORTBY":
			n, ok := countArg(opts, i+1)
			if !ok {
				return nil, errf(errBadArgsConvert, "SORTBY")
			}
			if i+1+n >= len(opts) {
				return nil, errf(errBadArgsMissing, "SORTBY")
			}
			s := arrange()
			if s.sortKeys != nil {
				return nil, Error(errMultiSortBy)
			}
			s.sortKeys = []string{}
			list := opts[i+2 : i+2+n]
			for j := 0; j < len(list); j++ {
				p := string(list[j])
				if !strings.HasPrefix(p, "@") {
					return nil, errf(errSortAscDesc, p)
				}
				asc := true
				if j+1 < len(list) {
					switch strings.ToUpper(string(list[j+1])) {
					case "ASC":
						j++
					case "DESC":
						asc = false
						j++
					}
				}
				s.sortKeys = append(s.sortKeys, p[1:])
				s.sortAsc = append(s.sortAsc, asc)
			}
			i += 1 + n
			for i+1 < len(opts) {
				switch strings.ToUpper(str(i + 1)) {
				case "MAX":
					m, ok := countArg(opts, i+2)
					if !ok {
						return nil, errf(errBadArgsConvert, "MAX")
					}
					s.max = m
					i += 2
					continue
				case "WITHCOUNT":
					i++
					continue
				}
				break
			}
		case "LIMIT":
			if i+2 >= len(opts) {
				return nil, Error(errLimitArgs)
			}
			off, err1 := strconv.ParseInt(str(i+1), 10, 64)
			num, err2 := strconv.ParseInt(str(i+2), 10, 64)
			if err1 != nil || err2 != nil || off < 0 || num < 0 {
				return nil, Error(errLimitNumeric)
			}
			s := arrange()
			s.offset, s.limit, s.limited = int(off), int(num), true
			r.noRows = r.noRows || num == 0
			i += 2
		case "APPLY", "FILTER":
			if i+1 >= len(opts) {
				return nil, errf(errBadArgsMissing, opt)
			}
			e, err := ParseExpr(str(i + 1))
			if err != nil {
				return nil, err
			}
			s := &aggStep{kind: stepFilter, expr: e}
			i++
			if opt == "APPLY" {
				s.kind, s.alias = stepApply, str(i)
				if i+1 < len(opts) && strings.EqualFold(str(i+1), "AS") {
					if i+2 >= len(opts) {
						return nil, errf(errBadArgsMissing, "AS")
					}
					s.alias = str(i + 2)
					i += 2
				}
			}
			r.steps = append(r.steps, s)
		case "WITHCURSOR":
			r.Cursor = true
			for i+1 < len(opts) {
				sub := strings.ToUpper(str(i + 1))
				if sub != "COUNT" && sub != "MAXIDLE" {
					break
				}
				if i+2 >= len(opts) {
					return nil, errf(errBadArgsMissing, sub)
				}
				v, err := strconv.ParseInt(str(i+2), 10, 64)
				if err != nil {
					return nil, errf(errBadArgsConvert, sub)
				}
				if v <= 0 {
					return nil, errf(errBadArgsBounds, sub)
				}
				if sub == "COUNT" {
					r.CursorCount = int(v)
				} else {
					r.MaxIdle = v
				}
				i += 2
			}
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
		case "ADDSCORES", "SCORER", "NOSTOPWORDS", "INORDER", "SLOP", "LANGUAGE", "EXPANDER":
			return nil, errf(errNotSupported, opt)
		default:
			return nil, errf(errUnknownArgAt, str(i), i+1)
		}
	}
	return r, nil
}

// Aggregation is a running FT.AGGREGATE: its pipeline, read a chunk at a
// time (a cursor keeps it between reads). It reads the index it came from:
// its caller serialises it with the index's other users, as for Search.
type Aggregation struct {
	ix    *Index
	load  Loader
	total int
	tail  processor
	out   *lookup // the last stage's keys

	// When profiling: the processors' counting wrappers (Index first),
	// the query's wrapped iterator, and resultLimit, the row budget
	// LIMIT steps set for the whole pipeline (FT.PROFILE's counters
	// show it).
	procs       []*profProc
	it          iterator
	resultLimit uint32
	prof        *Profile
	limited     bool
	noRows      bool
}

// Loader loads documents' hash fields for an aggregation: Field returns
// one field, All calls each for every field of the hash, in its order.
type Loader interface {
	Field(key, field string) ([]byte, bool)
	All(key string, each func(field, value []byte))
}

// AggField is one field of an aggregation's result row.
type AggField struct {
	Name  string
	Value Value
}

// Aggregate builds r's pipeline over the documents r's query matches.
// Errors in the request that need the schema (an unknown property, an
// unknown reducer) are returned here.
func (ix *Index) Aggregate(r *AggRequest, load Loader) (*Aggregation, error) {
	a := &Aggregation{ix: ix, load: load, noRows: r.noRows}
	var base *baseProc
	if r.Profiling {
		if err := a.startProfile(r); err != nil {
			return nil, err
		}
		base = &baseProc{a: a, it: a.it}
	} else {
		ids, err := ix.matchIDs(r.Query, r.Dialect, r.Verbatim, r.Params)
		if err != nil {
			return nil, err
		}
		base = &baseProc{a: a, ids: ids}
	}
	lk := &lookup{ix: ix}
	var tail processor = a.push(base, "Index")
	for _, s := range r.steps {
		switch s.kind {
		case stepLoad:
			lp := &loadProc{a: a, lk: lk, all: s.loadAll}
			for _, rf := range s.loads {
				k := lk.write(rf.As)
				lk.keys[k].path = rf.Field
				if f := ix.Schema.Field(rf.Field); f != nil {
					lk.keys[k].path, lk.keys[k].field = f.Name, f
				}
				lp.keys = append(lp.keys, k)
			}
			lp.up = tail
			tail = a.push(lp, "Loader")
		case stepGroup:
			g := &groupProc{a: a, lk: lk, nextLk: &lookup{ix: ix}, groups: map[string]*group{}}
			var loads []int
			implicit := func(name string, msg string) (int, error) {
				if k := lk.read(name); k >= 0 {
					return k, nil
				}
				if f := ix.Schema.Field(name); f != nil {
					k := lk.write(name)
					lk.keys[k].path, lk.keys[k].field = f.Name, f
					loads = append(loads, k)
					return k, nil
				}
				return -1, errf(msg, name)
			}
			for _, p := range s.props {
				k, err := implicit(p, errNoSuchProperty)
				if err != nil {
					return nil, err
				}
				g.src = append(g.src, k)
				g.nextLk.write(p)
			}
			for _, rs := range s.reducers {
				mk, err := newReducer(rs, func(name string) (int, error) {
					return implicit(strings.TrimPrefix(name, "@"), errReducerProperty)
				})
				if err != nil {
					return nil, err
				}
				g.reducers = append(g.reducers, mk)
				g.nextLk.write(rs.alias)
			}
			if len(loads) > 0 {
				tail = a.push(&loadProc{a: a, up: tail, lk: lk, keys: loads}, "Loader")
			}
			g.up = tail
			tail = a.push(g, "Grouper")
			lk = g.nextLk
		case stepArrange:
			if r.noRows {
				tail = a.push(&countProc{a: a, up: tail}, "Counter")
				continue
			}
			if s.sortKeys != nil {
				sp := &sortProc{a: a, lk: lk, asc: s.sortAsc}
				var loads []int
				for _, name := range s.sortKeys {
					k := lk.read(name)
					if k < 0 {
						f := ix.Schema.Field(name)
						if f == nil {
							return nil, errf(errPropertyNotLoaded, name)
						}
						k = lk.write(name)
						lk.keys[k].path, lk.keys[k].field = f.Name, f
						loads = append(loads, k)
					}
					sp.keys = append(sp.keys, k)
				}
				if len(loads) > 0 {
					tail = a.push(&loadProc{a: a, up: tail, lk: lk, keys: loads}, "Loader")
				}
				switch {
				case s.limited:
					sp.size = s.offset + s.limit
				case s.max > 0:
					sp.size = s.max
				default:
					sp.size = 10
				}
				sp.up = tail
				tail = a.push(sp, "Sorter")
			}
			// As RediSearch: a sorter keeps LIMIT's first rows itself,
			// a pager skips its offset.
			if s.limited && (s.offset > 0 || s.sortKeys == nil) {
				tail = a.push(&pageProc{a: a, up: tail, offset: s.offset, limit: s.limit}, "Pager/Limiter")
			}
		case stepApply, stepFilter:
			if err := s.expr.properties(func(e *expr) error {
				e.key = lk.read(e.name)
				if e.key < 0 {
					return errf(errPropNotInPipeline, e.name)
				}
				return nil
			}); err != nil {
				return nil, err
			}
			ep := &exprProc{up: tail, lk: lk, e: s.expr, out: -1}
			if s.kind == stepApply {
				ep.out = lk.write(s.alias)
			}
			tail = a.push(ep, exprProfileType(s.expr, s.kind == stepApply))
		}
	}
	a.tail, a.out = tail, lk
	return a, nil
}

// aggRoot parses an aggregation's query (nil: it matches nothing).
func (ix *Index) aggRoot(query string, dialect int, verbatim bool, params map[string]string) (*node, error) {
	root, knn, err := parseQueryParams(ix.Schema, ix.stop, query, dialect, ix.Config, params)
	switch {
	case err != nil:
	case knn != nil:
		err = errf(errNotSupported, "KNN in FT.AGGREGATE")
	case len(yieldNames(root)) > 0:
		err = errf(errNotSupported, "YIELD_DISTANCE_AS in FT.AGGREGATE")
	case !verbatim: // VERBATIM expands nothing, phonetics included
		err = ix.Schema.checkPhonetic(root)
	}
	if err != nil {
		return nil, err
	}
	return root, nil
}

// matchIDs runs the query and returns the ids of the documents it
// matches, ascending.
func (ix *Index) matchIDs(query string, dialect int, verbatim bool, params map[string]string) ([]uint32, error) {
	root, err := ix.aggRoot(query, dialect, verbatim, params)
	if err != nil || root == nil {
		return nil, err
	}
	e := &evaluator{ix: ix, n: ix.docTableSize(), verbatim: verbatim, slop: -1}
	var ids []uint32
	if it := e.build(root); it != nil {
		for {
			rc, rec := it.read()
			if rc == rcEOF {
				break
			}
			ids = append(ids, rec.doc)
		}
	}
	return ids, nil
}

// Chunk reads up to n rows (n <= 0: all) as RediSearch's replies do: the
// total to report, the rows, and whether the pipeline is done. An error
// at the first row is returned; one after it ends the chunk and the
// pipeline, as in RediSearch. A cursor's next chunk counts its total
// afresh.
func (a *Aggregation) Chunk(n int) (total int, rows [][]AggField, done bool, err error) {
	if a.tail == nil {
		return 0, nil, true, nil
	}
	r, err := a.tail.next()
	if err != nil {
		a.tail = nil
		return 0, nil, true, err
	}
	total = a.total
	for r != nil && !a.noRows {
		rows = append(rows, a.fields(r))
		if n > 0 && len(rows) == n {
			break
		}
		if r, err = a.tail.next(); err != nil {
			r = nil
		}
	}
	done = r == nil || a.noRows
	if done {
		a.tail = nil
	}
	a.total = 0
	return total, rows, done, nil
}

// fields returns a row's values in the order of its lookup's keys.
func (a *Aggregation) fields(r *row) []AggField {
	var out []AggField
	for k, key := range a.out.keys {
		if v := a.out.get(r, k); v.Kind != Missing {
			out = append(out, AggField{Name: key.name, Value: v})
		}
	}
	return out
}

// lookup is the keys of a stage's rows, in the order they were made
// (the order replies list them in).
type lookup struct {
	ix      *Index
	keys    []*lkKey
	loadAll bool
}

type lkKey struct {
	name  string
	path  string // the hash field a load reads
	field *Field // the schema field, when it is one
	sort  int    // the sorting vector slot it reads, or -1
}

func (l *lookup) find(name string) int {
	for i, k := range l.keys {
		if k.name == name {
			return i
		}
	}
	return -1
}

// read returns the key of name for reading: one made before, or a
// SORTABLE schema field's (its value read from the sorting vector), or
// -1.
func (l *lookup) read(name string) int {
	if k := l.find(name); k >= 0 {
		return k
	}
	if l.ix != nil {
		if f := l.ix.Schema.Field(name); f != nil && f.sortID >= 0 {
			l.keys = append(l.keys, &lkKey{name: name, path: f.Name, field: f, sort: f.sortID})
			return len(l.keys) - 1
		}
	}
	if l.loadAll {
		return l.write(name)
	}
	return -1
}

// write returns the key of name, made if new.
func (l *lookup) write(name string) int {
	if k := l.find(name); k >= 0 {
		return k
	}
	l.keys = append(l.keys, &lkKey{name: name, path: name, sort: -1})
	return len(l.keys) - 1
}

// get returns row r's value of key k: its own, else its document's
// sorting vector's.
func (l *lookup) get(r *row, k int) Value {
	if k < len(r.vals) && r.vals[k].Kind != Missing {
		return r.vals[k]
	}
	if key := l.keys[k]; key.sort >= 0 && r.doc != nil && key.sort < len(r.doc.sortv) {
		sv := r.doc.sortv[key.sort]
		switch {
		case !sv.set:
		case sv.num:
			return numVal(sv.f)
		default:
			return strVal(sv.s)
		}
	}
	return Value{}
}

// row is one row of the pipeline: a document's (doc set) or a group's.
type row struct {
	doc  *document
	vals []Value
}

func (r *row) set(k int, v Value) {
	for len(r.vals) <= k {
		r.vals = append(r.vals, Value{})
	}
	r.vals[k] = v
}

// processor is one step of the pipeline: next returns its next row, nil
// at the end.
type processor interface {
	next() (*row, error)
}

// baseProc reads the matched documents (their ids, or, when profiling,
// the query's iterator as rows are pulled); each one read counts in the
// total.
type baseProc struct {
	a   *Aggregation
	ids []uint32
	it  iterator
}

func (p *baseProc) next() (*row, error) {
	for p.it != nil {
		rc, rec := p.it.read()
		if rc == rcEOF {
			p.it = nil
			break
		}
		if d := p.a.ix.byID.get(rec.doc); d != nil {
			p.a.total++
			return &row{doc: d}, nil
		}
	}
	for len(p.ids) > 0 {
		id := p.ids[0]
		p.ids = p.ids[1:]
		if d := p.a.ix.byID.get(id); d != nil {
			p.a.total++
			return &row{doc: d}, nil
		}
	}
	return nil, nil
}

// loadProc loads hash fields into rows: keys, or every field (LOAD *).
type loadProc struct {
	a    *Aggregation
	up   processor
	lk   *lookup
	keys []int
	all  bool
}

func (p *loadProc) next() (*row, error) {
	r, err := p.up.next()
	if r == nil || err != nil || r.doc == nil {
		return r, err
	}
	if p.all {
		p.a.load.All(r.doc.key, func(f, v []byte) {
			r.set(p.lk.write(string(f)), strVal(string(v)))
		})
		return r, nil
	}
	for _, k := range p.keys {
		key := p.lk.keys[k]
		if key.path == "__key" && key.field == nil {
			r.set(k, strVal(r.doc.key))
			continue
		}
		v, ok := p.a.load.Field(r.doc.key, key.path)
		if !ok {
			continue
		}
		if key.field != nil && key.field.Type == Numeric {
			if f, err := parseNumber(string(v)); err == nil {
				r.set(k, numVal(f))
				continue
			}
		}
		r.set(k, strVal(string(v)))
	}
	return r, nil
}

// exprProc is APPLY (out >= 0: the key it writes) or FILTER.
type exprProc struct {
	up  processor
	lk  *lookup
	e   *expr
	out int
}

func (p *exprProc) next() (*row, error) {
	for {
		r, err := p.up.next()
		if r == nil || err != nil {
			return r, err
		}
		v, err := p.e.eval(func(k int) Value { return p.lk.get(r, k) }, nil)
		if err != nil {
			return nil, err
		}
		if p.out >= 0 {
			if v.Kind == Missing {
				v = nullVal()
			}
			r.set(p.out, v)
			return r, nil
		}
		if v.truthy() {
			return r, nil
		}
	}
}

// countProc stands for every SORTBY/LIMIT step of a request with a LIMIT
// of no rows: it reads every row and returns none.
type countProc struct {
	a  *Aggregation
	up processor
}

func (p *countProc) next() (*row, error) {
	for {
		r, err := p.up.next()
		if r == nil || err != nil {
			break
		}
	}
	if n := len(p.a.procs); n > 0 {
		// The last processor's counter in RediSearch's profile is one
		// higher here: the call that meets the end counts too.
		p.a.procs[n-1].calls++
	}
	return nil, nil
}

// pageProc is LIMIT. When profiling, its first call sets the row budget
// of the pipeline's reader (resultLimit) to its offset and limit (FT.PROFILE's
// counters show the reader stopping there).
type pageProc struct {
	a             *Aggregation
	up            processor
	offset, limit int
	seen          int
	started       bool
}

func (p *pageProc) next() (*row, error) {
	a := p.a
	if !p.started && a.prof != nil {
		// C's arithmetic: a size_t sum kept in 32 bits.
		a.resultLimit = uint32(uint64(p.offset) + min(uint64(p.limit), uint64(a.resultLimit)))
	}
	p.started = true
	for p.offset > 0 {
		r, err := p.up.next()
		if r == nil || err != nil {
			return r, err
		}
		a.resultLimit--
		p.offset--
	}
	if p.seen >= p.limit {
		return nil, nil
	}
	p.seen++
	return p.up.next()
}

// sortProc is SORTBY: it reads every row, keeps the first size in order
// and returns them. Rows without a value of a key go last either way;
// ties go by document id (ascending when the last key compared is).
type sortProc struct {
	a    *Aggregation
	up   processor
	lk   *lookup
	keys []int
	asc  []bool
	size int
	rows []*row
	done bool
}

func (p *sortProc) next() (*row, error) {
	if !p.done {
		// RediSearch reads every row whatever a pager upstream set.
		budget := p.a.resultLimit
		p.a.resultLimit = math.MaxUint32
		defer func() { p.a.resultLimit = budget }()
		for {
			r, err := p.up.next()
			if err != nil {
				return nil, err
			}
			if r == nil {
				break
			}
			p.rows = append(p.rows, r)
		}
		p.done = true
		slices.SortStableFunc(p.rows, p.compare)
		if len(p.rows) > p.size {
			p.rows = p.rows[:p.size]
		}
	}
	if len(p.rows) == 0 {
		return nil, nil
	}
	r := p.rows[0]
	p.rows = p.rows[1:]
	return r, nil
}

// compare orders a before b (negative) when a comes first.
func (p *sortProc) compare(a, b *row) int {
	asc := true
	for i, k := range p.keys {
		asc = p.asc[i]
		va, vb := p.lk.get(a, k), p.lk.get(b, k)
		if va.Kind == Missing || vb.Kind == Missing {
			switch {
			case va.Kind != Missing:
				return -1
			case vb.Kind != Missing:
				return 1
			}
			continue
		}
		if c := compareValues(va, vb); c != 0 {
			if !asc {
				c = -c
			}
			return c
		}
	}
	if a.doc == nil || b.doc == nil {
		return 0
	}
	c := cmpU32(a.doc.id, b.doc.id)
	if !asc {
		c = -c
	}
	return c
}

// groupProc is GROUPBY: it reads every row into its group, then returns
// one row per group (in the order groups were made) of the group's
// values and its reducers' results. The total becomes the number of
// groups.
type groupProc struct {
	a          *Aggregation
	up         processor
	lk, nextLk *lookup
	src        []int
	reducers   []func() reducer
	groups     map[string]*group
	order      []*group
	done       bool
}

type group struct {
	vals []Value
	reds []reducer
}

func (p *groupProc) next() (*row, error) {
	if !p.done {
		budget := p.a.resultLimit
		p.a.resultLimit = math.MaxUint32
		defer func() { p.a.resultLimit = budget }()
		for {
			r, err := p.up.next()
			if err != nil {
				return nil, err
			}
			if r == nil {
				break
			}
			vals := make([]Value, len(p.src))
			var id strings.Builder
			for i, k := range p.src {
				v := p.lk.get(r, k)
				if v.Kind == Missing {
					v = nullVal()
				}
				vals[i] = v
				valueKey(&id, v)
			}
			g := p.groups[id.String()]
			if g == nil {
				g = &group{vals: vals}
				for _, mk := range p.reducers {
					g.reds = append(g.reds, mk())
				}
				p.groups[id.String()] = g
				p.order = append(p.order, g)
			}
			for _, red := range g.reds {
				red.add(func(k int) Value { return p.lk.get(r, k) })
			}
		}
		p.done = true
		p.a.total = len(p.order)
	}
	if len(p.order) == 0 {
		return nil, nil
	}
	g := p.order[0]
	p.order = p.order[1:]
	r := &row{vals: append([]Value(nil), g.vals...)}
	for _, red := range g.reds {
		r.vals = append(r.vals, red.result())
	}
	return r, nil
}

// valueKey writes a value's identity for grouping and distinct counts.
func valueKey(b *strings.Builder, v Value) {
	switch v.Kind {
	case Number:
		b.WriteString("n")
		b.WriteString(strconv.FormatUint(math.Float64bits(v.Num), 16))
	case String:
		b.WriteString("s")
		b.WriteString(strconv.Itoa(len(v.Str)))
		b.WriteString(":")
		b.WriteString(v.Str)
	case Array:
		b.WriteString("a[")
		for _, x := range v.Arr {
			valueKey(b, x)
		}
		b.WriteString("]")
	default:
		b.WriteString("_")
	}
	b.WriteByte(';')
}
