package server

import (
	"bytes"
	"math"
	"math/big"

	"github.com/hotkv/hotkv/hash"
	"github.com/hotkv/hotkv/keyspace"
	"github.com/hotkv/hotkv/lock"
	"github.com/hotkv/hotkv/set"
	"github.com/hotkv/hotkv/zset"
)

// sortCommands is SORT and SORT_RO (Redis 7.0's sort.c, issue #3).
//
// Locking: BY and GET patterns name keys that no key spec declares (Redis
// reports them as an "unknown" key spec). The gate locks only the sorted
// key and the STORE destination; GlobalFor (sortGlobal) makes the call
// take the global lock exclusively instead whenever a pattern may read
// another key, unless every key the pattern can form has a hash tag fixed
// by the pattern itself that a locked key shares ("{u1}:w_*" when sorting
// "{u1}:ids"). The handler checks that coverage before every pattern
// lookup.
func sortCommands() []*Command {
	return []*Command{
		{Name: "sort", Arity: -2, Flags: Write | DenyOOM, First: 1, Last: 1, Step: 1,
			Keys: sortKeys, GlobalFor: sortNeedsGlobal, Handler: cmdSort},
		// SORT_RO's key specs make it movablekeys in COMMAND INFO, but its
		// only declared key is the one to sort.
		{Name: "sort_ro", Arity: -2, Flags: Readonly | Movablekeys, First: 1, Last: 1, Step: 1,
			GlobalFor: sortRONeedsGlobal, Handler: cmdSortRO},
	}
}

// SORT key [BY pattern] [LIMIT offset count] [GET pattern [GET pattern ...]] [ASC | DESC] [ALPHA] [STORE destination]
func cmdSort(c *Client, args [][]byte) { sortGeneric(c, args, false) }

// SORT_RO key [BY pattern] [LIMIT offset count] [GET pattern [GET pattern ...]] [ASC | DESC] [ALPHA]
func cmdSortRO(c *Client, args [][]byte) { sortGeneric(c, args, true) }

func sortNeedsGlobal(args [][]byte) bool   { return sortGlobal(args, false) }
func sortRONeedsGlobal(args [][]byte) bool { return sortGlobal(args, true) }

// sortKeys is Redis's sortGetKeys: the sorted key and the destination of
// the last STORE, found by skipping LIMIT's two arguments and GET's and
// BY's one without validating anything. It can disagree with the parser
// on malformed input ("STORE limit STORE d" stores into d, but sortKeys
// reports "limit"); sortGlobal takes the global lock in such a case.
func sortKeys(args [][]byte) []int {
	pos := []int{1}
	store := 0
	for i := 2; i < len(args); i++ {
		switch a := cstr(args[i]); {
		case equalFold(a, "limit"):
			i += 2
		case equalFold(a, "store") && i+1 < len(args):
			store = i + 1
		case equalFold(a, "get"), equalFold(a, "by"):
			i++
		}
	}
	if store > 0 {
		pos = append(pos, store)
	}
	return pos
}

// sortOptions are SORT's parsed options.
type sortOptions struct {
	desc, alpha  bool
	dontsort     bool   // a BY pattern without '*' was given
	by           []byte // the last BY pattern; nil when none
	gets         [][]byte
	store        int // index of the STORE destination in args; 0 when none
	limitStart   int64
	limitCount   int64
	limitStartAt int // index of LIMIT's offset; 0 when no LIMIT
}

// parseSort parses SORT's options as sortCommandGeneric does, returning
// the error to reply on failure. It touches no key. Unless allKeys (the
// user may read every key), a BY pattern with '*' and GET are refused, as
// their keys are not the command's to check.
func parseSort(args [][]byte, readonly, allKeys bool) (o sortOptions, errMsg string) {
	o.limitCount = -1
	for j := 2; j < len(args); j++ {
		left := len(args) - j - 1
		switch a := cstr(args[j]); {
		case equalFold(a, "asc"):
			o.desc = false
		case equalFold(a, "desc"):
			o.desc = true
		case equalFold(a, "alpha"):
			o.alpha = true
		case equalFold(a, "limit") && left >= 2:
			var ok bool
			if o.limitStart, ok = parseInt(args[j+1]); !ok {
				return o, errNotInt
			}
			if o.limitCount, ok = parseInt(args[j+2]); !ok {
				return o, errNotInt
			}
			j += 2
		case !readonly && equalFold(a, "store") && left >= 1:
			o.store = j + 1
			j++
		case equalFold(a, "by") && left >= 1:
			o.by = args[j+1]
			if bytes.IndexByte(cstr(o.by), '*') < 0 {
				o.dontsort = true
			} else if !allKeys {
				return o, errSortByNoPerm
			}
			j++
		case equalFold(a, "get") && left >= 1:
			if !allKeys {
				return o, errSortGetNoPerm
			}
			o.gets = append(o.gets, args[j+1])
			j++
		default:
			return o, errSyntax
		}
	}
	return o, ""
}

// sortPattern is a BY or GET pattern split as Redis's lookupKeyByPattern
// splits it: the key is prefix + element + postfix; with a field (after
// "->") it names a hash field, otherwise a string key.
type sortPattern struct {
	self            bool // "#": the element itself
	lookup          bool // false: the pattern has no '*' and finds nothing
	prefix, postfix []byte
	field           []byte
	hasField        bool
}

func parseSortPattern(p []byte) sortPattern {
	if len(p) > 0 && p[0] == '#' && (len(p) == 1 || p[1] == 0) {
		return sortPattern{self: true}
	}
	cs := cstr(p) // Redis searches the pattern as a C string
	star := bytes.IndexByte(cs, '*')
	if star < 0 {
		return sortPattern{}
	}
	pt := sortPattern{lookup: true, prefix: p[:star], postfix: p[star+1:]}
	if f := bytes.Index(cs[star+1:], []byte("->")); f >= 0 && star+1+f+2 < len(cs) {
		arrow := star + 1 + f
		pt.postfix = p[star+1 : arrow]
		pt.field = p[arrow+2:]
		pt.hasField = true
	}
	return pt
}

// fixedTag returns the hash tag every key the pattern forms has whatever
// the element: the prefix holds a '{' and, after it, a '}' with something
// in between.
func (pt *sortPattern) fixedTag() ([]byte, bool) {
	i := bytes.IndexByte(pt.prefix, '{')
	if i < 0 {
		return nil, false
	}
	j := bytes.IndexByte(pt.prefix[i+1:], '}')
	if j <= 0 { // no '}' in the prefix, or "{}" (no tag: the whole key)
		return nil, false
	}
	return pt.prefix[i+1 : i+1+j], true
}

// sortGlobal is SORT's GlobalFor: whether the call must hold the global
// lock because a BY or GET pattern may read a key whose tag the gate does
// not lock, or because the parser's STORE destination is not the key
// sortKeys declares. A call that fails to parse touches no key.
func sortGlobal(args [][]byte, readonly bool) bool {
	o, msg := parseSort(args, readonly, true)
	if msg != "" {
		return false
	}
	var tags [2][]byte
	tags[0] = lock.Tag(args[1])
	n := 1
	if !readonly {
		if pos := sortKeys(args); len(pos) == 2 {
			tags[1] = lock.Tag(args[pos[1]])
			n = 2
		}
	}
	covered := func(tag []byte) bool {
		for _, t := range tags[:n] {
			if bytes.Equal(t, tag) {
				return true
			}
		}
		return false
	}
	if o.store > 0 && !covered(lock.Tag(args[o.store])) {
		return true
	}
	patternCovered := func(p []byte) bool {
		pt := parseSortPattern(p)
		if !pt.lookup {
			return true
		}
		t, ok := pt.fixedTag()
		return ok && covered(t)
	}
	if o.by != nil && !o.dontsort && !patternCovered(o.by) {
		return true
	}
	for _, g := range o.gets {
		if !patternCovered(g) {
			return true
		}
	}
	return false
}

// sortItem is an element to sort (redisSortObject).
type sortItem struct {
	elem   []byte
	score  float64
	cmp    []byte // ALPHA with BY: the value sorted by
	hasCmp bool
}

// sortVec collects elements into one buffer.
type sortVec struct {
	arena []byte
	ends  []int
}

func (v *sortVec) add(b []byte) {
	v.arena = append(v.arena, b...)
	v.ends = append(v.ends, len(v.arena))
}

func (v *sortVec) items() []sortItem {
	items := make([]sortItem, len(v.ends))
	from := 0
	for i, end := range v.ends {
		items[i].elem = v.arena[from:end:end]
		from = end
	}
	return items
}

// sorter compares items as Redis's sortCompare does.
type sorter struct {
	desc, alpha, byPattern, store bool
}

func (s *sorter) compare(a, b *sortItem) int {
	var r int
	switch {
	case !s.alpha:
		switch {
		case a.score > b.score:
			r = 1
		case a.score < b.score:
			r = -1
		default: // equal scores: the elements, binary-safe
			r = bytes.Compare(a.elem, b.elem)
		}
	case s.byPattern:
		switch {
		case !a.hasCmp || !b.hasCmp: // a missing value sorts first
			switch {
			case a.hasCmp == b.hasCmp:
				r = 0
			case !a.hasCmp:
				r = -1
			default:
				r = 1
			}
		default:
			r = s.collate(a.cmp, b.cmp)
		}
	default:
		r = s.collate(a.elem, b.elem)
	}
	if s.desc {
		return -r
	}
	return r
}

// collate compares ALPHA values: binary-safe with STORE, with strcoll
// otherwise, which in the C locale compares bytes up to the first NUL.
func (s *sorter) collate(a, b []byte) int {
	if s.store {
		return bytes.Compare(a, b)
	}
	return bytes.Compare(cstr(a), cstr(b))
}

// sortScore converts a value to sort by as SORT does with strtod: all of
// it (up to a NUL) must be a number, neither NaN nor out of range
// (overflow, or underflow to zero or to an inexact subnormal, which set
// ERANGE).
func sortScore(b []byte) (float64, bool) {
	v, n, erange := zset.Strtod(b)
	if n < len(b) && b[n] != 0 || erange || math.IsNaN(v) {
		return 0, false
	}
	if v != 0 && math.Abs(v) < 0x1p-1022 && !exactSubnormal(b[:n], v) {
		return 0, false
	}
	return v, true
}

// exactSubnormal reports whether the number text (as Strtod read it) is
// exactly v; glibc's strtod sets ERANGE for an inexact subnormal result.
func exactSubnormal(text []byte, v float64) bool {
	text = bytes.TrimLeft(text, " \t\n\v\f\r")
	s := string(text)
	if u := bytes.TrimLeft(text, "+-"); len(u) > 1 && u[0] == '0' && (u[1] == 'x' || u[1] == 'X') {
		f, _, err := big.ParseFloat(s, 0, uint(4*len(s)+64), big.ToNearestEven)
		return err == nil && f.Cmp(big.NewFloat(v)) == 0
	}
	r, ok := new(big.Rat).SetString(s)
	return ok && r.Cmp(new(big.Rat).SetFloat64(v)) == 0
}

// sortLookup is lookupKeyByPattern: the value pattern p names for elem
// (a string key, or a hash field with "->"), or ok == false.
func (c *Client) sortLookup(pt *sortPattern, elem []byte, buf *[]byte) (v []byte, ok bool) {
	if pt.self {
		return elem, true
	}
	if !pt.lookup {
		return nil, false
	}
	key := append(append(append((*buf)[:0], pt.prefix...), elem...), pt.postfix...)
	*buf = key
	if !c.guard.Covers(key, false) {
		// sortGlobal failed to request the global lock for this key.
		panic("SORT pattern key not covered by the command's locks")
	}
	e := c.lookupRead(key)
	if e == nil {
		return nil, false
	}
	if pt.hasField {
		if e.Kind != keyspace.KindHash {
			return nil, false
		}
		return e.Obj.(*hash.Hash).Get(pt.field)
	}
	if e.Kind != keyspace.KindString {
		return nil, false
	}
	return e.Str(), true
}

// sortGeneric is Redis 7.0's sortCommandGeneric.
func sortGeneric(c *Client, args [][]byte, readonly bool) {
	o, msg := parseSort(args, readonly, c.readsAllKeys(args))
	if msg != "" {
		c.errorReply(msg)
		return
	}
	key := args[1]
	e := c.lookupRead(key)
	if e != nil && e.Kind != keyspace.KindList && e.Kind != keyspace.KindSet && e.Kind != keyspace.KindZSet {
		c.errorReply(errWrongType)
		return
	}
	by := o.by
	if o.dontsort && (o.store > 0 || c.scripted) && e != nil && e.Kind == keyspace.KindSet {
		// A set's order is arbitrary: what is stored, or returned to a
		// script, gets sorted ALPHA so that replicas and the AOF see the
		// same result (Redis's CLIENT_SCRIPT check).
		o.dontsort, o.alpha, by = false, true, nil
	}
	if e != nil && e.Kind == keyspace.KindZSet && !readonly {
		sortConvertZSet(c, key, e)
	}

	n := 0
	if e != nil {
		switch e.Kind {
		case keyspace.KindList:
			n = listOf(e).Len()
		case keyspace.KindSet:
			n = e.Obj.(*set.Set).Len()
		case keyspace.KindZSet:
			n = zsetOf(e).Len()
		}
	}
	// LIMIT, clamped as Redis clamps it.
	vlen := int64(n)
	start := min(max(o.limitStart, 0), vlen)
	count := min(max(o.limitCount, -1), vlen)
	end := vlen - 1
	if count >= 0 {
		end = start + count - 1
	}
	if start >= vlen {
		start, end = vlen-1, vlen-2
	}
	end = min(end, vlen-1)

	var v sortVec
	ranged := o.dontsort && e != nil && (e.Kind == keyspace.KindList || e.Kind == keyspace.KindZSet)
	if ranged {
		// Lists and sorted sets keep their own order: load just the range,
		// from the tail with DESC.
		if end >= start {
			sortLoadRange(&v, e, int(start), int(end-start+1), o.desc)
		}
		start, end = 0, end-start
	} else if e != nil {
		sortLoadAll(&v, e)
	}
	items := v.items()

	var buf []byte
	if !o.dontsort {
		var byPt sortPattern
		if by != nil {
			byPt = parseSortPattern(by)
		}
		convErr := false
		for i := range items {
			it := &items[i]
			val, ok := it.elem, true
			if by != nil {
				if val, ok = c.sortLookup(&byPt, it.elem, &buf); !ok {
					continue
				}
			}
			if o.alpha {
				if by != nil {
					it.cmp, it.hasCmp = val, true
				}
			} else if it.score, ok = sortScore(val); !ok {
				convErr = true
			}
		}
		if convErr {
			c.errorReply(errSortScores)
			return
		}
		s := sorter{desc: o.desc, alpha: o.alpha, byPattern: by != nil, store: o.store > 0}
		if by != nil && (start != 0 || end != int64(len(items))-1) {
			pqsort(items, int(start), int(end), s.compare)
		} else {
			msort(items, make([]sortItem, len(items)), s.compare)
		}
	}

	gets := make([]sortPattern, len(o.gets))
	for i, g := range o.gets {
		gets[i] = parseSortPattern(g)
	}
	window := items[:0]
	if end >= start {
		window = items[start : end+1]
	}
	outLen := len(window)
	if len(gets) > 0 {
		outLen *= len(gets)
	}
	if o.store == 0 {
		c.w.Array(outLen)
		for i := range window {
			if len(gets) == 0 {
				c.w.Bulk(window[i].elem)
			}
			for j := range gets {
				if val, ok := c.sortLookup(&gets[j], window[i].elem, &buf); ok {
					c.w.Bulk(val)
				} else {
					c.w.Null()
				}
			}
		}
		return
	}
	dst := args[o.store]
	if outLen == 0 {
		c.deleteStored(dst)
		c.w.Int(0)
		return
	}
	l := c.newList()
	for i := range window {
		if len(gets) == 0 {
			l.PushBack(window[i].elem)
		}
		for j := range gets {
			val, _ := c.sortLookup(&gets[j], window[i].elem, &buf)
			l.PushBack(val) // a missing value is stored as ""
		}
	}
	c.db.Set(dst, keyspace.NewObject(dst, keyspace.KindList, l))
	c.notify(evList, "sortstore", dst)
	c.dirty(outLen)
	c.w.Int(int64(outLen))
}

// sortConvertZSet converts a small sorted set to the big form, as Redis
// 7.0's SORT does (zsetConvert to a skiplist) before reading it. SORT_RO
// does it too in Redis, but holds the key's lock only shared here, so it
// leaves the set as it is.
func sortConvertZSet(c *Client, key []byte, e *keyspace.Entry) {
	z := zsetOf(e)
	if !z.Small() {
		return
	}
	elems := make([]zset.Elem, 0, z.Len())
	z.Walk(0, false, func(m []byte, s float64) bool {
		elems = append(elems, zset.Elem{Member: string(m), Score: s})
		return true
	})
	e.Obj = zset.NewFromSorted(elems, false)
	c.db.Resized(key, e) // a conversion: not a change WATCH sees, as in Redis
}

// sortLoadRange loads count elements of a list or sorted set from rank
// start, counting from the tail with desc.
func sortLoadRange(v *sortVec, e *keyspace.Entry, start, count int, desc bool) {
	switch e.Kind {
	case keyspace.KindList:
		l := listOf(e)
		from := start
		if desc {
			from = l.Len() - start - 1
		}
		it := l.IterAt(from, desc)
		for ; count > 0; count-- {
			b, ok := it.Next()
			if !ok {
				break
			}
			v.add(b)
		}
	case keyspace.KindZSet:
		z := zsetOf(e)
		from := start
		if desc {
			from = z.Len() - start - 1
		}
		z.Walk(from, desc, func(m []byte, _ float64) bool {
			v.add(m)
			count--
			return count > 0
		})
	}
}

// sortLoadAll loads every element: a list in order, a set in its
// iteration order, a sorted set in score order (Redis walks its hash
// table; the order only shows among elements that compare equal).
func sortLoadAll(v *sortVec, e *keyspace.Entry) {
	switch e.Kind {
	case keyspace.KindList:
		it := listOf(e).IterAt(0, false)
		for b, ok := it.Next(); ok; b, ok = it.Next() {
			v.add(b)
		}
	case keyspace.KindSet:
		for m := range e.Obj.(*set.Set).All() {
			v.add(m)
		}
	case keyspace.KindZSet:
		zsetOf(e).Walk(0, false, func(m []byte, _ float64) bool {
			v.add(m)
			return true
		})
	}
}

// msort sorts v stably, as glibc's qsort (a merge sort) does: elements
// that compare equal keep their order, which SORT's replies show. tmp is
// scratch space as long as v.
func msort(v, tmp []sortItem, cmp func(a, b *sortItem) int) {
	n := len(v)
	if n <= 12 {
		for i := 1; i < n; i++ {
			for j := i; j > 0 && cmp(&v[j-1], &v[j]) > 0; j-- {
				v[j-1], v[j] = v[j], v[j-1]
			}
		}
		return
	}
	h := n / 2
	msort(v[:h], tmp[:h], cmp)
	msort(v[h:], tmp[h:], cmp)
	if cmp(&v[h-1], &v[h]) <= 0 {
		return // already in order
	}
	i, j, k := 0, h, 0
	for i < h && j < n {
		if cmp(&v[i], &v[j]) <= 0 {
			tmp[k] = v[i]
			i++
		} else {
			tmp[k] = v[j]
			j++
		}
		k++
	}
	k += copy(tmp[k:], v[i:h])
	copy(v, tmp[:k]) // what is left of v[h:] is in place
}

// pqsort sorts v enough for ranks lo..hi to hold what a full sort puts
// there: Redis's pqsort.c (NetBSD's qsort, Bentley & McIlroy, skipping
// partitions outside the range). It is ported step for step because the
// order it leaves elements that compare equal in shows in SORT's replies.
func pqsort(v []sortItem, lo, hi int, cmp func(a, b *sortItem) int) {
	q := pqsorter{v: v, cmp: cmp, lo: lo, hi: hi}
	q.sort(0, len(v))
}

type pqsorter struct {
	v      []sortItem
	cmp    func(a, b *sortItem) int
	lo, hi int
}

func (q *pqsorter) c(i, j int) int { return q.cmp(&q.v[i], &q.v[j]) }
func (q *pqsorter) swap(i, j int)  { q.v[i], q.v[j] = q.v[j], q.v[i] }

func (q *pqsorter) vecswap(i, j, n int) {
	for ; n > 0; n-- {
		q.swap(i, j)
		i++
		j++
	}
}

func (q *pqsorter) med3(a, b, c int) int {
	if q.c(a, b) < 0 {
		if q.c(b, c) < 0 {
			return b
		}
		if q.c(a, c) < 0 {
			return c
		}
		return a
	}
	if q.c(b, c) > 0 {
		return b
	}
	if q.c(a, c) < 0 {
		return a
	}
	return c
}

// outside reports whether the n elements from a lie wholly before or
// wholly after the wanted range.
func (q *pqsorter) outside(a, n int) bool {
	last := a + n - 1
	return q.lo < a && q.hi < a || q.lo > last && q.hi > last
}

func (q *pqsorter) insertion(a, n int) {
	for pm := a + 1; pm < a+n; pm++ {
		for pl := pm; pl > a && q.c(pl-1, pl) > 0; pl-- {
			q.swap(pl, pl-1)
		}
	}
}

func (q *pqsorter) sort(a, n int) {
	for {
		if n < 7 {
			q.insertion(a, n)
			return
		}
		pm := a + n/2
		if n > 7 {
			pl, pn := a, a+n-1
			if n > 40 {
				d := n / 8
				pl = q.med3(pl, pl+d, pl+2*d)
				pm = q.med3(pm-d, pm, pm+d)
				pn = q.med3(pn-2*d, pn-d, pn)
			}
			pm = q.med3(pl, pm, pn)
		}
		q.swap(a, pm)
		pa, pb := a+1, a+1
		pc, pd := a+n-1, a+n-1
		swapped := false
		for {
			for pb <= pc {
				r := q.c(pb, a)
				if r > 0 {
					break
				}
				if r == 0 {
					swapped = true
					q.swap(pa, pb)
					pa++
				}
				pb++
			}
			for pb <= pc {
				r := q.c(pc, a)
				if r < 0 {
					break
				}
				if r == 0 {
					swapped = true
					q.swap(pc, pd)
					pd--
				}
				pc--
			}
			if pb > pc {
				break
			}
			q.swap(pb, pc)
			swapped = true
			pb++
			pc--
		}
		if !swapped { // switch to insertion sort
			q.insertion(a, n)
			return
		}
		pn := a + n
		r := min(pa-a, pb-pa)
		q.vecswap(a, pb-r, r)
		r = min(pd-pc, pn-pd-1)
		q.vecswap(pb, pn-r, r)
		if r := pb - pa; r > 1 && !q.outside(a, r) {
			q.sort(a, r)
		}
		r = pd - pc
		if r <= 1 {
			return
		}
		a, n = pn-r, r
		if q.outside(a, n) {
			return
		}
	}
}
