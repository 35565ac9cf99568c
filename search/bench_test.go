package search

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func benchIndex(b *testing.B, n int) (*Index, []map[string]string) {
	s, err := ParseCreate(splitArgs("SCHEMA title TEXT WEIGHT 2 body TEXT tag TAG n NUMERIC"))
	if err != nil {
		b.Fatal(err)
	}
	words := make([]string, 2000)
	for i := range words {
		words[i] = fmt.Sprintf("w%dword", i)
	}
	r := rand.New(rand.NewPCG(1, 2))
	docs := make([]map[string]string, n)
	for i := range docs {
		var body []string
		for range 30 {
			body = append(body, words[int(r.ExpFloat64()*200)%len(words)])
		}
		docs[i] = map[string]string{"title": words[r.IntN(len(words))] + " " + words[r.IntN(len(words))],
			"body": strings.Join(body, " "), "tag": fmt.Sprintf("t%d,u%d", r.IntN(20), r.IntN(5)), "n": fmt.Sprint(r.IntN(1000))}
	}
	return NewIndex("b", s), docs
}

// BenchmarkPut: indexing a document of 32 words, a tag pair and a number.
func BenchmarkPut(b *testing.B) {
	ix, docs := benchIndex(b, 10000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		d := docs[i%len(docs)]
		ix.Put(fmt.Sprintf("d:%d", i%len(docs)), func(f string) ([]byte, bool) { v, ok := d[f]; return []byte(v), ok })
	}
}

// BenchmarkSearch: queries over 10,000 documents, first page.
func BenchmarkSearch(b *testing.B) {
	ix, docs := benchIndex(b, 10000)
	for i, d := range docs {
		ix.Put(fmt.Sprintf("d:%d", i), func(f string) ([]byte, bool) { v, ok := d[f]; return []byte(v), ok })
	}
	for _, q := range []string{"w5word", "w5word w7word", "w1*", "@n:[100 200]", "@tag:{t3}", "w5word -w7word"} {
		b.Run(q, func(b *testing.B) {
			r := &Request{Query: q, Num: 10, Dialect: 2, Slop: -1}
			b.ReportAllocs()
			for b.Loop() {
				ix.Search(r, nil)
			}
		})
	}
}

// BenchmarkPutNew: indexing documents under new keys (no replacement).
func BenchmarkPutNew(b *testing.B) {
	ix, docs := benchIndex(b, 10000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		d := docs[i%len(docs)]
		ix.Put(fmt.Sprintf("d:%d", i), func(f string) ([]byte, bool) { v, ok := d[f]; return []byte(v), ok })
	}
}

// BenchmarkKNN: the 10 nearest of 20,000 32-dimension FLOAT32 vectors.
func BenchmarkKNN(b *testing.B) {
	s := newVecStore(&VectorOpts{Algorithm: "FLAT", Type: "FLOAT32", Dim: 32, Metric: "L2"})
	r := rand.New(rand.NewPCG(1, 2))
	vec := func() []byte {
		v := make([]float32, 32)
		for i := range v {
			v[i] = r.Float32()
		}
		return blob32(v)
	}
	for id := uint32(1); id <= 20000; id++ {
		s.put(id, vec())
	}
	q := vec()
	b.ReportAllocs()
	for b.Loop() {
		s.knn(q, 10, 0, nil)
	}
}
