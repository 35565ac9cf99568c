package search

import (
	"testing"
)

// FuzzQuery: any query text, at either dialect, parses to a query or an
// error, and a query runs to the end over a small index, without
// panicking.
func FuzzQuery(f *testing.F) {
	for _, q := range []string{"hello", "hello world", "a|b c", "-a -b", "@t:(a b)", "@t:a|b c", `"a b" c`,
		"ap* ho*", "@n:[1 (5]", "@g:{x|y} z", "(a (b | -c)) | d", "@t|u:x", "*", "@g:{x} | y", `a\ b`, "@n:[-inf +inf]"} {
		f.Add(q, uint8(1))
		f.Add(q, uint8(2))
	}
	s, err := ParseCreate(splitArgs("SCHEMA t TEXT u TEXT WEIGHT 2 g TAG n NUMERIC"))
	if err != nil {
		f.Fatal(err)
	}
	ix := NewIndex("f", s)
	docs := []map[string]string{
		{"t": "hello world apple", "g": "x", "n": "3"},
		{"t": "a b c", "u": "hello houses", "g": "x,y", "n": "5"},
		{"u": "world running runs", "n": "1"},
		{"t": "ap apple home house"},
	}
	for i, d := range docs {
		ix.Put(string(rune('a'+i)), func(f string) ([]byte, bool) { v, ok := d[f]; return []byte(v), ok })
	}
	f.Fuzz(func(t *testing.T, q string, dialect uint8) {
		r := &Request{Query: q, Num: 10, Dialect: 1 + int(dialect%2)}
		ix.Search(r, func(string, string) ([]byte, bool) { return nil, false })
	})
}
