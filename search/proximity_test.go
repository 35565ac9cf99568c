package search

import (
	"fmt"
	"strings"
	"testing"
)

// TestProximity pins withinRange and slop on small records, quirks
// included: a child that carries positions but has none ([] here, a
// union of tags) stands at 2^32-1, which passes any unordered check and
// inflates the slop; the unordered window does not check a span of 0
// (equal lowest and highest positions); the closest distance of two
// children stops at the first pair 1 apart.
func TestProximity(t *testing.T) {
	cases := []struct {
		lists  [][]uint32
		slop   float64
		within string // per maxSlop -2, -1, 0, 1, 3: unordered/in order
	}{
		{[][]uint32{{1}, {2}}, 1, "-2:false/false -1:false/false 0:true/true 1:true/true 3:true/true"},
		{[][]uint32{{2}, {1}}, 1, "-2:false/false -1:false/false 0:true/false 1:true/false 3:true/false"},
		{[][]uint32{{1, 5}, {2, 5}}, 1, "-2:false/false -1:false/true 0:true/true 1:true/true 3:true/true"},
		{[][]uint32{{1, 10}, {4, 20}}, 3, "-2:false/false -1:false/false 0:false/false 1:false/false 3:true/true"},
		{[][]uint32{{3, 4, 4, 7}, {4, 5, 9, 10}}, 1, "-2:false/false -1:false/true 0:true/true 1:true/true 3:true/true"},
		{[][]uint32{{1}, {}}, 2, "-2:true/false -1:true/false 0:true/false 1:true/false 3:true/false"},
		{[][]uint32{{}, {3}}, 4, "-2:true/false -1:true/false 0:true/false 1:true/false 3:true/false"},
		{[][]uint32{{}, {}}, 1, "-2:false/false -1:false/false 0:false/false 1:false/false 3:false/false"},
		{[][]uint32{{1, 9}, {5}, {7}}, 4, "-2:false/false -1:false/false 0:false/false 1:false/false 3:true/false"},
		{[][]uint32{{5}, {1}, {9}}, 8, "-2:false/false -1:false/false 0:false/false 1:false/false 3:false/false"},
		{[][]uint32{{2, 8}, {8}}, 1, "-2:false/false -1:false/true 0:false/true 1:false/true 3:false/true"},
		{[][]uint32{{1, 100}, {50, 200}, {300}}, 111, "-2:false/false -1:false/false 0:false/false 1:false/false 3:false/false"},
	}
	for _, c := range cases {
		r := &result{kind: resIntersect}
		for _, l := range c.lists {
			if len(l) == 0 {
				r.kids = append(r.kids, &result{kind: resUnion, mask: resTerm})
			} else {
				r.kids = append(r.kids, &result{kind: resTerm, pos: l})
			}
		}
		var got []string
		for _, s := range []int{-2, -1, 0, 1, 3} {
			got = append(got, fmt.Sprintf("%d:%v/%v", s, withinRange(r, s, false), withinRange(r, s, true)))
		}
		if g := strings.Join(got, " "); g != c.within {
			t.Errorf("%v: withinRange %s, want %s", c.lists, g, c.within)
		}
		if g := slop(r); g != c.slop {
			t.Errorf("%v: slop %v, want %v", c.lists, g, c.slop)
		}
	}
	// Records that are not aggregates of several children: always
	// within, a slop of 1.
	term := &result{kind: resTerm, pos: []uint32{4}}
	one := &result{kind: resIntersect, kids: []*result{term}}
	for _, r := range []*result{term, one} {
		if !withinRange(r, -5, true) || slop(r) != 1 {
			t.Errorf("%v: want within and a slop of 1", r.kind)
		}
	}
	// Only one child with positions: within; a slop of the children
	// less one.
	num := &result{kind: resNumeric}
	r := &result{kind: resIntersect, kids: []*result{term, num, num}}
	if !withinRange(r, 0, true) || slop(r) != 2 {
		t.Errorf("term and numerics: want within and a slop of 2, got %v", slop(r))
	}
}
