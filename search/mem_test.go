package search

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
)

// TestIndexMemory reports the Go heap an index of HOTKV_SEARCH_MEM
// documents (a 12-word text, a TAG and a NUMERIC, words drawn as
// internal/searchbench draws them) holds, for docs/performance.md; with
// HOTKV_SEARCH_MEMPROF it writes a heap profile there. Skipped unless
// HOTKV_SEARCH_MEM is set.
func TestIndexMemory(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("HOTKV_SEARCH_MEM"))
	if n <= 0 {
		t.Skip("HOTKV_SEARCH_MEM not set")
	}
	s, err := ParseCreate(splitArgs("SCHEMA body TEXT tag TAG n NUMERIC"))
	if err != nil {
		t.Fatal(err)
	}
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	ix := NewIndex("m", s)
	r := rand.New(rand.NewPCG(1, 2))
	w := make([]string, 12)
	for i := range n {
		for j := range w {
			w[j] = fmt.Sprintf("w%dword", int(r.ExpFloat64()*200)%2000)
		}
		doc := map[string]string{"body": strings.Join(w, " "), "tag": fmt.Sprintf("t%d", r.IntN(20)), "n": fmt.Sprint(r.IntN(1000))}
		ix.Put(fmt.Sprintf("d:%d", i), func(f string) ([]byte, bool) { v, ok := doc[f]; return []byte(v), ok })
	}
	after := heap()
	t.Logf("%d documents, %d terms, %d records: heap %.1f MB (%.0f bytes a document)",
		n, ix.NumTerms(), ix.NumRecords(), float64(after-before)/1e6, float64(after-before)/float64(n))
	if p := os.Getenv("HOTKV_SEARCH_MEMPROF"); p != "" {
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		pprof.WriteHeapProfile(f)
		f.Close()
	}
	runtime.KeepAlive(ix)
}
