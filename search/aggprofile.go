package search

import (
	"fmt"
	"math"
	"time"
)

// FT.PROFILE AGGREGATE: the pipeline is built as for FT.AGGREGATE, but
// its documents come from the query's iterators as rows are pulled (each
// wrapped by a counting iterator, profileWrap), every processor sits
// below a counting wrapper (profProc), and the
// rows are read as RediSearch's reply loop reads them: one, then more
// while the row budget its pagers set (resultLimit) lasts. A processor's
// counter is its calls less one, as RediSearch prints it.

// profProc counts the calls into a processor and their time.
type profProc struct {
	p     processor
	typ   string
	calls int
	time  time.Duration
}

func (w *profProc) next() (*row, error) {
	w.calls++
	t := time.Now()
	r, err := w.p.next()
	w.time += time.Since(t)
	return r, err
}

// push returns p as the pipeline's next processor: wrapped, when
// profiling, with its RediSearch type.
func (a *Aggregation) push(p processor, typ string) processor {
	if a.prof == nil {
		return p
	}
	w := &profProc{p: p, typ: typ}
	a.procs = append(a.procs, w)
	return w
}

// startProfile builds r's query's iterators, wrapped for counting, for a
// profiled aggregation.
func (a *Aggregation) startProfile(r *AggRequest) error {
	started := time.Now()
	ix := a.ix
	root, err := ix.aggRoot(r.Query, r.Dialect, r.Verbatim, r.Params)
	if err != nil {
		return err
	}
	parsed := time.Now()
	a.prof = &Profile{Parsing: parsed.Sub(started)}
	a.limited = r.ProfileLimited
	a.resultLimit = math.MaxUint32
	var it iterator
	if root != nil {
		e := &evaluator{ix: ix, n: ix.docTableSize(), verbatim: r.Verbatim, slop: -1, profiling: true}
		it = e.build(root)
	}
	if it == nil {
		it = &emptyIter{}
		a.prof.Iterators = &IterProfile{Type: "EMPTY"}
	} else {
		it = profileWrap(it)
	}
	a.it = it
	a.prof.Pipeline = time.Since(parsed)
	return nil
}

// ProfileRun reads a profiled aggregation (AggRequest.Profiling) as
// RediSearch's FT.PROFILE does and returns the total, the rows and the
// profile. An error at the first row is returned; one after it ends the
// rows.
func (a *Aggregation) ProfileRun() (total int, rows [][]AggField, prof *Profile, err error) {
	r, err := a.tail.next()
	if err != nil {
		return 0, nil, nil, err
	}
	total = a.total
	if r != nil && a.resultLimit != 0 && !a.noRows {
		rows = append(rows, a.fields(r))
		for {
			if a.resultLimit--; a.resultLimit == 0 {
				break
			}
			if r, err = a.tail.next(); r == nil || err != nil {
				break
			}
			rows = append(rows, a.fields(r))
		}
	}
	p := a.prof
	if p.Iterators == nil {
		if p.Iterators, err = profileOf(a.it, a.limited); err != nil {
			return 0, nil, nil, err
		}
	}
	var upstream time.Duration
	for _, w := range a.procs {
		p.Processors = append(p.Processors, ProcProfile{Type: w.typ, Time: max(0, w.time-upstream), Counter: w.calls - 1})
		upstream = w.time
	}
	a.tail = nil
	return total, rows, p, nil
}

// exprProfileType is an APPLY's or a FILTER's profile type as RediSearch
// names it: the processor and its expression's top node.
func exprProfileType(e *expr, apply bool) string {
	typ := "Filter"
	if apply {
		typ = "Projector"
	}
	switch e.op {
	case "num":
		return fmt.Sprintf("%s - Literal %f", typ, e.val.Num)
	case "str":
		return typ + " - Literal " + e.val.Str
	case "null":
		return typ + " - Literal "
	case "prop":
		return typ + " - Property " + e.name
	case "call":
		return typ + " - Function " + e.name
	case "not":
		return typ + " - Inverted"
	case "neg":
		return typ + " - Operator -"
	case "==", "!=", "<", "<=", ">", ">=", "&&", "||":
		return typ + " - Predicate " + e.op
	}
	return typ + " - Operator " + e.op
}
