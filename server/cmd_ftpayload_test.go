package server

import "testing"

// TestFTPayloadFieldLikeRediSearch: FT.CREATE's PAYLOAD_FIELD (a
// document's payload is that hash field's value, hidden from the
// replies' fields), WITHPAYLOADS (after the score, null without one, with
// NOCONTENT, SORTBY, RETURN, RESP3), the HAMMING scorer over payloads,
// FT.INFO's index_definition and the errors, against RediSearch.
func TestFTPayloadFieldLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	p.Run(`
FT.CREATE p PREFIX 1 p: PAYLOAD_FIELD pl SCHEMA t TEXT n NUMERIC SORTABLE
FT.CREATE p2 PREFIX 1 p: PAYLOAD_FIELD pl SCORE_FIELD sc SCHEMA t TEXT
FT.CREATE pt PREFIX 1 p: PAYLOAD_FIELD t SCHEMA t TEXT
FT.CREATE q PREFIX 1 p: SCHEMA t TEXT
`)
	for _, ix := range []string{"p", "p2", "pt", "q"} {
		waitIndexed(t, p.Redis, ix)
	}
	p.Run(`
HSET p:1 t "hello world" pl abc n 1 sc 0.5
HSET p:2 t "hello" n 2
HSET p:3 t "hello again" pl "" n 3
HSET p:4 t "hello you" pl abd __payload xyz n 4
HSET p:5 t "other" pl "\x00\xff" n 5
FT.SEARCH p hello WITHPAYLOADS
FT.SEARCH p hello WITHPAYLOADS WITHSCORES
FT.SEARCH p hello WITHPAYLOADS WITHSCORES NOCONTENT
FT.SEARCH p hello WITHPAYLOADS SORTBY n DESC WITHSORTKEYS
FT.SEARCH p hello WITHPAYLOADS RETURN 1 t
FT.SEARCH p hello WITHPAYLOADS RETURN 2 pl n
FT.SEARCH p hello RETURN 1 pl
FT.SEARCH p other WITHPAYLOADS NOCONTENT
FT.SEARCH p2 hello WITHPAYLOADS WITHSCORES
FT.SEARCH pt hello WITHPAYLOADS
FT.SEARCH q hello WITHPAYLOADS NOCONTENT
FT.SEARCH q hello WITHPAYLOADS LIMIT 0 1
FT.SEARCH p hello SCORER HAMMING PAYLOAD abc WITHSCORES WITHPAYLOADS NOCONTENT
FT.SEARCH p hello SCORER HAMMING PAYLOAD abc WITHSCORES EXPLAINSCORE NOCONTENT
FT.SEARCH p hello SCORER HAMMING PAYLOAD ab WITHSCORES EXPLAINSCORE NOCONTENT
FT.SEARCH p hello SCORER HAMMING WITHSCORES NOCONTENT
FT.SEARCH p other SCORER HAMMING PAYLOAD "\xff\x00" WITHSCORES EXPLAINSCORE NOCONTENT
FT.AGGREGATE p hello LOAD 2 @pl @t SORTBY 1 @t
FT.AGGREGATE p hello LOAD * SORTBY 1 @n
FT.AGGREGATE p2 hello LOAD * SORTBY 1 @t
HSET p:1 pl xyz
HDEL p:4 pl
HSET p:5 pl zz
FT.SEARCH p hello WITHPAYLOADS NOCONTENT SORTBY n
FT.SEARCH p * WITHPAYLOADS NOCONTENT SORTBY n
FT.SEARCH p hello WITHPAYLOADS WITHSCORES SORTBY n
FT.INFO nosuch
FT.CREATE e PAYLOAD_FIELD
FT.CREATE e PAYLOAD_FIELD SCHEMA t TEXT
`)
	for _, ix := range []string{"p", "p2", "pt"} {
		compareFTInfo(t, p, ix)
	}
	resp3(p)
	p.Run(`
FT.SEARCH p hello WITHPAYLOADS WITHSCORES SORTBY n
FT.SEARCH p hello WITHPAYLOADS NOCONTENT SORTBY n
`)
	compareFTInfo(t, p, "p2")
}
