package search

import (
	"fmt"
	"slices"
	"time"
)

// Profile is FT.PROFILE's account of a search, in RediSearch 2.10's terms:
// the iterators that read the index (each with the number of times it was
// read or moved, RediSearch's "Counter") and the result processors the
// results went through. Times are HotKV's own.
type Profile struct {
	Parsing, Pipeline time.Duration
	// Iterators is the root iterator's (nil when there was none).
	Iterators  *IterProfile
	Processors []ProcProfile
}

// IterProfile is one iterator of a profile.
type IterProfile struct {
	// Type is RediSearch's: TEXT, TAG, NUMERIC, UNION, INTERSECT, NOT,
	// WILDCARD, EMPTY, ID-LIST.
	Type string
	// QueryType is a union's ("UNION", "TAG", "PREFIX - hel").
	QueryType string
	// Term is a reader's (HasTerm), Size its number of entries (HasSize).
	Term             string
	HasTerm, HasSize bool
	Size             int
	Time             time.Duration
	Counter          int
	// Kids are a union's or an intersection's children (a nil one: an
	// intersection's child that matches nothing), Child a negation's.
	// Limited is a union's children given as their number only
	// (LIMITED).
	Kids    []*IterProfile
	Child   *IterProfile
	Limited bool
}

// ProcProfile is one result processor of a profile.
type ProcProfile struct {
	Type    string
	Time    time.Duration
	Counter int
}

// profIter is a profiling wrapper: it counts the reads and
// moves of the iterator it wraps, and times them.
type profIter struct {
	child iterator
	calls int
	eof   bool
	time  time.Duration
}

func (p *profIter) read() (readRC, *result) {
	p.calls++
	t := time.Now()
	rc, r := p.child.read()
	p.time += time.Since(t)
	p.align()
	return rc, r
}

func (p *profIter) skipTo(id uint32) (readRC, *result) {
	p.calls++
	t := time.Now()
	rc, r := p.child.skipTo(id)
	p.time += time.Since(t)
	p.align()
	return rc, r
}

// align keeps whether the child ended (never for an empty iterator, as
// RediSearch's counters show).
func (p *profIter) align() {
	if _, empty := p.child.(*emptyIter); !empty {
		p.eof = p.child.atEnd()
	}
}

func (p *profIter) current() *result  { return p.child.current() }
func (p *profIter) lastID() uint32    { return p.child.lastID() }
func (p *profIter) atEnd() bool       { return p.child.atEnd() }
func (p *profIter) est() int          { return p.child.est() }
func (p *profIter) state() *iterState { return p.child.state() }

// counter is RediSearch's: its calls, less the last when it ended there.
func (p *profIter) counter() int {
	if p.eof {
		return p.calls - 1
	}
	return p.calls
}

// profileWrap puts a profile iterator above every iterator of the tree,
// once the tree is built (and its intersections ordered), as
// RediSearch's profiles show them.
func profileWrap(it iterator) iterator {
	switch x := it.(type) {
	case *unionIter:
		for i := range x.orig {
			x.orig[i] = profileWrap(x.orig[i])
		}
		x.its = append(x.its[:0], x.orig...)
	case *intersectIter:
		for i := range x.its {
			x.its[i] = profileWrap(x.its[i])
		}
		for i := range x.profKids {
			if x.profKids[i] != nil {
				x.profKids[i] = profileWrap(x.profKids[i])
			}
		}
	case *notIter:
		x.child = profileWrap(x.child)
	}
	return &profIter{child: it}
}

// profileOf returns the profile of a wrapped tree, or an error for an
// iterator whose profile is not RediSearch's here.
func profileOf(it iterator, limited bool) (*IterProfile, error) {
	p, ok := it.(*profIter)
	if !ok {
		return nil, errf(errNotSupported, "FT.PROFILE of this query")
	}
	out := &IterProfile{Time: p.time, Counter: p.counter()}
	switch x := p.child.(type) {
	case *listIter:
		if x.profType == "" {
			return nil, errf(errNotSupported, "FT.PROFILE of this query")
		}
		out.Type = x.profType
		if x.profType != "ID-LIST" {
			out.Term, out.HasTerm = x.profTerm, true
			out.Size, out.HasSize = x.profSize, true
		}
	case *unionIter:
		if x.profType == "" {
			return nil, errf(errNotSupported, "FT.PROFILE of this query")
		}
		out.Type, out.QueryType = "UNION", x.profType
		out.Kids = []*IterProfile{}
		for _, k := range x.orig {
			kp, err := profileOf(k, limited)
			if err != nil {
				return nil, err
			}
			out.Kids = append(out.Kids, kp)
		}
		out.Limited = limited && x.profType != "UNION"
	case *intersectIter:
		out.Type = "INTERSECT"
		kids := x.its
		if x.dead {
			kids = x.profKids
		}
		out.Kids = []*IterProfile{}
		for _, k := range kids {
			if k == nil {
				out.Kids = append(out.Kids, nil)
				continue
			}
			kp, err := profileOf(k, limited)
			if err != nil {
				return nil, err
			}
			out.Kids = append(out.Kids, kp)
		}
	case *notIter:
		out.Type = "NOT"
		kp, err := profileOf(x.child, limited)
		if err != nil {
			return nil, err
		}
		out.Child = kp
	case *wildcardIter:
		out.Type = "WILDCARD"
	case *emptyIter:
		out.Type = "EMPTY"
	default:
		return nil, errf(errNotSupported, "FT.PROFILE of this query")
	}
	return out, nil
}

// deadIntersectKids orders the children of an intersection that has one
// matching nothing (nil) as RediSearch's sort by estimate leaves them:
// those first.
func deadIntersectKids(kids []iterator) []iterator {
	var out, rest []iterator
	for _, k := range kids {
		if k == nil {
			out = append(out, nil)
		} else {
			rest = append(rest, k)
		}
	}
	sortByEstimate(rest)
	return append(out, rest...)
}

// processors are the result processors RediSearch 2.10's FT.SEARCH runs
// for r over n matching documents, with their counters (each its calls
// less one: the consumer reads the last until it ends, but stops at a
// pager's LIMIT).
func (ix *Index) processors(r *Request, n int) []ProcProfile {
	out := []ProcProfile{{Type: "Index", Counter: n}}
	if r.WithScores || r.SortBy == "" && r.Num > 0 {
		out = append(out, ProcProfile{Type: "Scorer", Counter: n})
	}
	if r.Num == 0 {
		return append(out, ProcProfile{Type: "Counter", Counter: 1})
	}
	heap := min(r.Offset+r.Num, n)
	returned := max(0, min(r.Num, heap-r.Offset))
	calls := returned + 1 // the consumer's
	if r.Offset == 0 {
		out = append(out, ProcProfile{Type: "Sorter", Counter: calls - 1})
	} else {
		if returned == r.Num {
			calls = returned
		}
		// The pager's reads of the sorter's heap.
		up, count := 0, 0
		for range calls {
			ended := false
			for count < r.Offset {
				up++
				if up > heap {
					ended = true
					break
				}
				count++
			}
			if ended || count >= r.Offset+r.Num {
				continue
			}
			count++
			up++
		}
		out = append(out, ProcProfile{Type: "Sorter", Counter: up - 1}, ProcProfile{Type: "Pager/Limiter", Counter: calls - 1})
	}
	content := !r.NoContent && (r.Return == nil || len(r.Return) > 0)
	if content && ix.needsLoader(r) {
		out = append(out, ProcProfile{Type: "Loader", Counter: calls - 1})
	}
	if r.hl != nil {
		out = append(out, ProcProfile{Type: "Highlighter", Counter: calls - 1})
	}
	return out
}

// needsLoader reports whether RETURN's fields (all of them: none given)
// are read from the hash, not from the sorting vector (NUMERIC SORTABLE
// fields).
func (ix *Index) needsLoader(r *Request) bool {
	if r.Return == nil {
		return true
	}
	return slices.ContainsFunc(r.Return, func(rf ReturnField) bool {
		f := ix.Schema.Field(rf.Field)
		return f == nil || f.Type != Numeric || f.sortID < 0
	})
}

// numericLabel is a numeric reader's "Term": the range of the values of
// its range tree's leaf (one leaf here: the field's).
func (ix *Index) numericLabel(f *Field) (string, int) {
	t := ix.nums[f.slot]
	lo, okLo := t.Min()
	hi, okHi := t.Max()
	if !okLo || !okHi {
		return "0 - 0", 0
	}
	return fmt.Sprintf("%.6g - %.6g", lo.v, hi.v), t.Len() // C's %g
}

// addCalls adds n to the counters of ip and all its children.
func (ip *IterProfile) addCalls(n int) {
	if ip == nil {
		return
	}
	ip.Counter += n
	ip.Child.addCalls(n)
	for _, k := range ip.Kids {
		k.addCalls(n)
	}
}
