package search

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPostings adds and removes random postings and checks a term list's
// reads and seeks against a plain slice of them; in some rounds masks of
// fields above 64 come midway, and the list widens.
func TestPostings(t *testing.T) {
	type entry struct {
		doc, freq uint32
		mask      fieldMask
		pos       []uint32
	}
	r := rand.New(rand.NewPCG(3, 4))
	for round := range 50 {
		tl := &termList{}
		var model []entry
		doc := uint32(0)
		for range r.IntN(1000) {
			doc += 1 + uint32(r.IntN(300))
			e := entry{doc: doc, freq: uint32(r.IntN(1000)), mask: fieldMask{lo: r.Uint64() >> r.IntN(64)}}
			if round%3 == 1 && r.IntN(50) == 0 || tl.wide && r.IntN(2) == 0 {
				e.mask.hi = r.Uint64() >> r.IntN(64)
			}
			if r.IntN(10) == 0 {
				e.mask = allFields
			}
			p := uint32(0)
			for range r.IntN(5) {
				p += uint32(r.IntN(100000))
				e.pos = append(e.pos, p)
			}
			tl.add(e.doc, e.freq, e.mask, e.pos)
			model = append(model, e)
			// Removals, of postings there and not.
			if r.IntN(3) == 0 && len(model) > 0 {
				i := r.IntN(len(model))
				if !tl.remove(model[i].doc) {
					t.Fatalf("round %d: remove %d: not found", round, model[i].doc)
				}
				model = slices.Delete(model, i, i+1)
			}
			if tl.remove(doc + 1) {
				t.Fatalf("round %d: removed %d, not there", round, doc+1)
			}
		}
		// Most of the postings removed, blocks thinned and merged.
		if round%2 == 0 {
			for i := len(model) - 1; i >= 0; i-- {
				if r.IntN(10) > 0 {
					if !tl.remove(model[i].doc) {
						t.Fatalf("round %d: remove %d: not found", round, model[i].doc)
					}
					model = slices.Delete(model, i, i+1)
				}
			}
			if len(model) > 0 && len(tl.blocks) > len(model)/(blockEntries/4)+2 {
				t.Errorf("round %d: %d postings in %d blocks", round, len(model), len(tl.blocks))
			}
		}
		if tl.n != len(model) {
			t.Fatalf("round %d: %d postings, want %d", round, tl.n, len(model))
		}
		n := 0
		for _, b := range tl.blocks {
			n += int(b.n)
		}
		if n != len(model) {
			t.Fatalf("round %d: blocks hold %d postings, want %d", round, n, len(model))
		}
		c := &postCursor{tl: tl}
		if tl.n > 0 {
			*c = newPostCursor(tl)
		}
		for i, e := range model {
			if !c.next() {
				t.Fatalf("round %d: read %d: end", round, i)
			}
			if c.doc != e.doc || c.freq != e.freq || c.mask != e.mask || !slices.Equal(decodePositions(nil, c.data[c.pos:c.posEnd]), e.pos) {
				t.Fatalf("round %d: read %d: %d %d %x %v, want %+v", round, i, c.doc, c.freq, c.mask, decodePositions(nil, c.data[c.pos:c.posEnd]), e)
			}
		}
		if c.next() {
			t.Fatalf("round %d: read past the end: %d", round, c.doc)
		}
		// Seeks: the next entry read is at or before the first at or
		// after the id sought, and no entry at or after it is passed.
		c = &postCursor{tl: tl}
		at := 0 // the model's entry the cursor reads next
		for at < len(model) {
			id := model[at].doc + uint32(r.IntN(2000))
			ok := c.skipTo(id)
			want, _ := slices.BinarySearchFunc(model, id, func(e entry, id uint32) int { return cmpU32(e.doc, id) })
			if want == len(model) {
				if ok {
					t.Fatalf("round %d: skip to %d: at %d, want the end", round, id, c.doc)
				}
				break
			}
			if !ok || c.doc != model[want].doc || c.freq != model[want].freq || c.mask != model[want].mask {
				t.Fatalf("round %d: skip to %d: at %d (%v), want %+v", round, id, c.doc, ok, model[want])
			}
			at = want + 1
		}
	}
}
