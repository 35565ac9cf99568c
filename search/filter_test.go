package search

import "testing"

func TestFilterPasses(t *testing.T) {
	s, err := ParseCreate(args("PREFIX", "1", "u:", "FILTER", `@years>16 || startswith(@__key, "u:x")`,
		"SCHEMA", "age", "AS", "years", "NUMERIC", "t", "TEXT"))
	if err != nil {
		t.Fatal(err)
	}
	hash := func(kv ...string) func(string) ([]byte, bool) {
		return func(f string) ([]byte, bool) {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == f {
					return []byte(kv[i+1]), true
				}
			}
			return nil, false
		}
	}
	for _, c := range []struct {
		key  string
		get  func(string) ([]byte, bool)
		want bool
	}{
		{"u:1", hash("age", "20"), true},
		{"u:1", hash("age", "10"), false},
		{"u:x1", hash("age", "10"), true},
		{"u:1", hash("years", "20"), true}, // no age: the evaluation fails, the hash is let in
	} {
		if got := s.Passes(c.key, c.get); got != c.want {
			t.Errorf("%s: got %v, want %v", c.key, got, c.want)
		}
	}
	ix := NewIndex("i", s)
	ix.Put("u:1", hash("age", "20", "t", "hello"))
	ix.Put("u:2", hash("age", "3", "t", "hello"))
	if !ix.Has("u:1") || ix.Has("u:2") || ix.MaxDocID() != 1 {
		t.Fatalf("documents: %v, max id %d", ix.Keys(), ix.MaxDocID())
	}
	ix.Put("u:1", hash("age", "2", "t", "hello"))
	if ix.Has("u:1") || ix.NumTerms() != 0 {
		t.Fatalf("u:1 should have left the index: %v", ix.Keys())
	}
	if _, err := ParseCreate(args("FILTER", "@a>", "SCHEMA", "t", "TEXT")); err == nil || err.Error() != "Syntax error at offset 2 near 'a'" {
		t.Errorf("bad filter: %v", err)
	}
}

func args(a ...string) [][]byte {
	out := make([][]byte, len(a))
	for i, s := range a {
		out[i] = []byte(s)
	}
	return out
}
