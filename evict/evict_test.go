package evict

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	for i, n := range names {
		p, ok := Parse(n)
		if !ok || p != Policy(i) || p.String() != n {
			t.Fatalf("Parse(%q) = %v, %v", n, p, ok)
		}
	}
	if _, ok := Parse("allkeys-mru"); ok {
		t.Fatal("Parse accepted an unknown policy")
	}
	if !VolatileTTL.Volatile() || AllKeysLFU.Volatile() || !VolatileLFU.LFU() || !AllKeysRandom.Random() {
		t.Fatal("policy classes")
	}
}

// TestPoolKeepsBest: after many offers the pool holds the PoolSize best
// scores, pops them best first, and re-ranks a key offered again.
func TestPoolKeepsBest(t *testing.T) {
	var p Pool
	for i := range 100 {
		s := uint64((i * 37) % 100) // a permutation of 0..99
		p.Add(Candidate{Key: fmt.Sprint(s), Score: s})
	}
	if p.Len() != PoolSize {
		t.Fatalf("pool holds %d", p.Len())
	}
	p.Add(Candidate{Key: "99", Score: 1}) // re-ranked: no longer the best
	want := []uint64{98, 97, 96}
	for _, w := range want {
		c, ok := p.Pop()
		if !ok || c.Score != w {
			t.Fatalf("popped %+v, want score %d", c, w)
		}
	}
	for p.Len() > 0 {
		c, _ := p.Pop()
		if c.Key == "99" && c.Score != 1 {
			t.Fatal("stale score kept")
		}
	}
	if _, ok := p.Pop(); ok {
		t.Fatal("Pop of an empty pool")
	}
	// Worse than everything in a full pool: not kept.
	for i := range PoolSize {
		p.Add(Candidate{Key: fmt.Sprint(i), Score: uint64(100 + i)})
	}
	p.Add(Candidate{Key: "low", Score: 1})
	for p.Len() > 0 {
		if c, _ := p.Pop(); c.Key == "low" {
			t.Fatal("a worse candidate displaced a better one")
		}
	}
}

func TestScore(t *testing.T) {
	if AllKeysLRU.Score(10, 0, 0) <= AllKeysLRU.Score(5, 0, 0) {
		t.Fatal("LRU: the idler key must score higher")
	}
	if AllKeysLFU.Score(0, 1, 0) <= AllKeysLFU.Score(0, 200, 0) {
		t.Fatal("LFU: the less used key must score higher")
	}
	if VolatileTTL.Score(0, 0, 1000) <= VolatileTTL.Score(0, 0, 2000) {
		t.Fatal("TTL: the sooner expiry must score higher")
	}
}

func TestTimeLimit(t *testing.T) {
	for _, c := range []struct {
		t    int
		want time.Duration
	}{{0, 0}, {10, 500 * time.Microsecond}, {11, 575 * time.Microsecond}} {
		if got := TimeLimit(c.t); got != c.want {
			t.Errorf("TimeLimit(%d) = %v, want %v", c.t, got, c.want)
		}
	}
	if TimeLimit(99) < time.Minute || TimeLimit(100) < time.Hour {
		t.Error("high tenacity must allow long passes")
	}
}

// TestPoolMatchesModel: random offers, pops and resets give what a sorted
// slice of candidates gives (the pool's ranking without its slots), with
// keys of equal hashes and repeated keys among them.
func TestPoolMatchesModel(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	var p Pool
	var model []Candidate // ascending score
	for step := range 200000 {
		switch r := rnd.IntN(100); {
		case r < 70:
			c := Candidate{DB: rnd.IntN(2), Key: fmt.Sprint(rnd.IntN(40)), Score: uint64(rnd.IntN(30))}
			c.Hash = uint64(len(c.Key)) // equal hashes: keys compared
			p.Add(c)
			for i := range model {
				if model[i].DB == c.DB && model[i].Key == c.Key {
					model = append(model[:i], model[i+1:]...)
					break
				}
			}
			i := 0
			for i < len(model) && model[i].Score < c.Score {
				i++
			}
			if len(model) == PoolSize {
				if i > 0 {
					copy(model, model[1:i])
					model[i-1] = c
				}
			} else {
				model = slices.Insert(model, i, c)
			}
		case r < 98:
			c, ok := p.Pop()
			if ok != (len(model) > 0) {
				t.Fatalf("step %d: Pop ok %v with %d in the model", step, ok, len(model))
			}
			if ok {
				if w := model[len(model)-1]; c != w {
					t.Fatalf("step %d: popped %+v, want %+v", step, c, w)
				}
				model = model[:len(model)-1]
			}
		default:
			p.Reset()
			model = model[:0]
		}
		if p.Len() != len(model) {
			t.Fatalf("step %d: Len %d, want %d", step, p.Len(), len(model))
		}
	}
}
