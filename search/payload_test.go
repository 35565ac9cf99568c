package search

import (
	"strings"
	"testing"
)

// TestPayloads: PAYLOAD_FIELD's values are the documents' payloads (an
// empty one is none), replaced and dropped with their documents, and
// HAMMING scores by them; an index without the field keeps no table.
func TestPayloads(t *testing.T) {
	ix := newTestIndex(t, "PAYLOAD_FIELD pl SCHEMA t TEXT",
		"d1 t hello pl abc", "d2 t hello", "d3 t hello pl abd", "d4 t hello pl")
	payloads := func() string {
		r, err := ix.ParseSearch(splitArgs("hello WITHPAYLOADS SORTBY t"))
		if err != nil {
			t.Fatal(err)
		}
		_, hits, _ := ix.Search(r, func(key, field string) ([]byte, bool) { return nil, false })
		var out []string
		for _, h := range hits {
			p := "nil"
			if h.Payload != nil {
				p = string(h.Payload)
			}
			out = append(out, h.Key+"="+p)
		}
		return strings.Join(out, " ")
	}
	if got := payloads(); got != "d1=abc d2=nil d3=abd d4=nil" {
		t.Fatalf("payloads: %s", got)
	}
	if got := search(t, ix, "hello", "SCORER", "HAMMING", "PAYLOAD", "abc"); got != "4 d1 1 d3 0.25 d2 0 d4 0" {
		t.Fatalf("HAMMING: %s", got)
	}
	ix.Put("d1", func(f string) ([]byte, bool) {
		if f == "t" {
			return []byte("hello"), true
		}
		return nil, false
	})
	ix.Delete("d3")
	if got := payloads(); got != "d2=nil d4=nil d1=nil" || len(ix.payloads) != 0 {
		t.Fatalf("after update and delete: %s (%d kept)", got, len(ix.payloads))
	}
	if plain := newTestIndex(t, "SCHEMA t TEXT", "d1 t hello pl abc"); plain.payloads != nil {
		t.Fatal("an index without PAYLOAD_FIELD keeps payloads")
	}
}
