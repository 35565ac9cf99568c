package search

import "math"

// Proximity of a record's matches: the SLOP/INORDER check that decides
// whether an intersection matches a document, and the distance that
// divides TFIDF and BM25 scores. Both read the token positions of the
// record's children that carry positions (terms, and aggregates other
// than wholly virtual ones: a union of tags carries positions but has
// none). Every list is ascending; an aggregate's merges its children's,
// so a list may repeat a position.
//
// The results reproduce RediSearch 2.10's replies, quirks included (they
// change which documents match and their scores): positions are
// compared as 32-bit values, and a child without positions counts as
// standing at position 2^32-1 (noPos), which 32-bit arithmetic turns
// into -1.

// noPos is where a child that has run out of positions, or never had
// any, stands.
const noPos = math.MaxUint32

// signed is p as the 32-bit signed number the arithmetic of spans uses.
func signed(p uint32) int { return int(int32(p)) }

// positionLists returns the position lists of r's children that carry
// positions, in query order.
func positionLists(r *result) [][]uint32 {
	var out [][]uint32
	for _, k := range r.kids {
		if k.hasOffsets() {
			out = append(out, k.positions())
		}
	}
	return out
}

// withinRange reports whether the aggregate r matches within maxSlop:
// whether one position of each child with positions can be picked so
// that the positions left between them number at most maxSlop (in query
// order when inOrder). Records that are not aggregates, have one child,
// or have no child with positions always match.
func withinRange(r *result, maxSlop int, inOrder bool) bool {
	if !r.isAgg() || len(r.kids) <= 1 {
		return true
	}
	lists := positionLists(r)
	if len(lists) == 0 {
		return true
	}
	if inOrder {
		return orderedWithin(lists, maxSlop)
	}
	return unorderedWithin(lists, maxSlop)
}

// orderedWithin looks for a chain p0 <= p1 <= ... (one position per list,
// in list order) whose gaps, each p[i]-p[i-1]-1, add up to at most
// maxSlop. Each start p0 in turn is chained greedily: every later list
// takes its first position not before the previous pick. The search
// never goes back: a list's pick for one start is where its search
// starts for the next, and it fails as soon as a list has nothing left
// at or after the previous pick. A chain is abandoned as soon as its gaps
// exceed maxSlop.
func orderedWithin(lists [][]uint32, maxSlop int) bool {
	at := make([]int, len(lists)) // each later list's candidate
	for _, start := range lists[0] {
		prev, gaps := start, 0
		for li := 1; li < len(lists); li++ {
			l := lists[li]
			for at[li] < len(l) && l[at[li]] < prev {
				at[li]++
			}
			if at[li] == len(l) {
				return false
			}
			p := l[at[li]]
			gaps += signed(p) - signed(prev) - 1
			prev = p
			if gaps > maxSlop {
				break
			}
		}
		if gaps <= maxSlop {
			return true
		}
	}
	return false
}

// unorderedWithin slides a window over the lists' positions in any
// order: the window holds each list's current position (noPos for an
// empty list), from its lowest to the highest seen so far. Whenever the
// two differ, the window matches if its span, hi-lo less the lists but
// one, is at most maxSlop; then the list at lo (the first of them on a
// tie) moves to its next position, the window's top following it up.
// When that list runs out, nothing matched.
func unorderedWithin(lists [][]uint32, maxSlop int) bool {
	next := make([]int, len(lists)) // each list's next unread position
	cur := make([]uint32, len(lists))
	advance := func(li int) uint32 {
		p := uint32(noPos)
		if next[li] < len(lists[li]) {
			p = lists[li][next[li]]
			next[li]++
		}
		cur[li] = p
		return p
	}
	var hi uint32
	for li := range lists {
		hi = max(hi, advance(li))
	}
	for {
		low := 0
		for li, p := range cur {
			if p < cur[low] {
				low = li
			}
		}
		if lo := cur[low]; lo != hi && signed(hi)-signed(lo)-(len(lists)-1) <= maxSlop {
			return true
		}
		p := advance(low)
		if p == noPos {
			return false
		}
		hi = max(hi, p)
	}
}

// slop is the distance that divides a record's TFIDF and BM25 scores:
// 1 for a record that is not an aggregate of several children; else,
// over each pair of consecutive children that carry positions, the
// square of their closest distance (closestDistance), summed in 32 bits;
// the truncated square root of that sum, or the number of children less
// one when it is 0.
func slop(r *result) float64 {
	if !r.isAgg() || len(r.kids) <= 1 {
		return 1
	}
	var sum int32
	// (Positions are decoded only when a pair exists: a term beside a
	// tag, a range or a negation needs none.)
	var carriers []*result
	for _, k := range r.kids {
		if k.hasOffsets() {
			carriers = append(carriers, k)
		}
	}
	if len(carriers) >= 2 {
		prev := carriers[0].positions()
		for _, k := range carriers[1:] {
			cur := k.positions()
			d := closestDistance(prev, cur)
			sum += d * d
			prev = cur
		}
	}
	if sum == 0 {
		return float64(len(r.kids) - 1)
	}
	return float64(int32(math.Sqrt(float64(sum))))
}

// closestDistance is the distance slop squares for two children: the
// smallest |x-y| over x in a and y in b, found by walking both lists in
// step (the lower side moves, b on a tie) and stopping early once the
// distance is 1 or less; so when the lists are 1 apart somewhere before
// they are 0 apart, it is 1. A list without positions stands at noPos,
// whose 32-bit distance to the other list's first position x is -(x+1)
// (0 when both are empty).
func closestDistance(a, b []uint32) int32 {
	dist := func(x, y uint32) int32 {
		if x > y {
			return int32(x - y)
		}
		return int32(y - x)
	}
	switch {
	case len(a) == 0 && len(b) == 0:
		return 0
	case len(a) == 0:
		return dist(noPos, b[0])
	case len(b) == 0:
		return dist(a[0], noPos)
	}
	best := dist(a[0], b[0])
	for i, j := 0, 0; best > 1; {
		if b[j] > a[i] {
			i++
		} else {
			j++
		}
		if i == len(a) || j == len(b) {
			break
		}
		best = min(best, dist(a[i], b[j]))
	}
	return best
}
