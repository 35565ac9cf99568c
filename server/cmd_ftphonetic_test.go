package server

import (
	"fmt"
	"testing"
)

// TestFTPhoneticLikeRediSearch: TEXT ... PHONETIC (double metaphone codes
// indexed beside the words, "<" marked), the query terms' phonetic
// expansion (by default on terms that may match a PHONETIC field; the
// $phonetic attribute), its scores, FT.EXPLAIN, FT.INFO and the errors,
// against RediSearch, both dialects.
func TestFTPhoneticLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	p.Run(`
FT.CREATE ph PREFIX 1 h: SCHEMA t TEXT PHONETIC dm:en u TEXT n NUMERIC s TEXT NOSTEM PHONETIC dm:fr WEIGHT 2
FT.CREATE plain PREFIX 1 h: SCHEMA t TEXT u TEXT
`)
	waitIndexed(t, p.Redis, "ph")
	waitIndexed(t, p.Redis, "plain")
	p.Run(`
HSET h:1 t "Smith went home" u "Schmidt stayed" n 1
HSET h:2 t "Smyth and Schmidt, Smith" u "john" n 2
HSET h:3 u "smith" t "jon" n 3
HSET h:4 t "Jonathan Johnson knight night" s "Catherine Kathryn" n 4
HSET h:5 t "thomas tomas Caesar Seizure" s "school skool" n 5
HSET h:6 t "Ph Fa caf\xc3\xa9 cafe gnome nome xavier" n 6
HSET h:7 s "wright right write rite" t "Schneider Snider" n 7
`)
	var script []string
	for _, q := range []string{"smith", "smyth", "schmidt", "@t:smith", "@u:smith", "@t|u:smith", "@s:smith",
		"jon", "john", "knight", "nite", "tomas", "kathryn", "skool", "fa", "ph", "cafe", "nome", "snyder",
		"rite", "smith home", "smith|john", "-smith", "smith -home", `"smith went"`, "smi*", "%smith%",
		"smith=>{$phonetic: true}", "smith=>{$phonetic: false}", "@u:smith=>{$phonetic: false}",
		"(smith home)=>{$phonetic: false}", "home=>{$phonetic: TRUE}", "@t:(smith=>{$phonetic: 1})",
		"@n:[1 3] smith", "~smith home"} {
		for _, d := range []string{"1", "2"} {
			script = append(script, fmt.Sprintf("FT.SEARCH ph %q WITHSCORES NOCONTENT DIALECT %s", q, d))
			script = append(script, fmt.Sprintf("FT.EXPLAIN ph %q DIALECT %s", q, d))
		}
		script = append(script,
			fmt.Sprintf("FT.SEARCH ph %q WITHSCORES SCORER BM25 NOCONTENT", q),
			fmt.Sprintf("FT.SEARCH ph %q VERBATIM NOCONTENT", q),
			fmt.Sprintf("FT.SEARCH plain %q WITHSCORES NOCONTENT", q))
	}
	for _, line := range script {
		p.Do(line)
	}
	p.Run(`
FT.SEARCH ph smith WITHSCORES EXPLAINSCORE NOCONTENT
FT.SEARCH ph smith HIGHLIGHT FIELDS 1 t
FT.SEARCH ph "@u:smith=>{$phonetic: true}"
FT.SEARCH ph "smith=>{$phonetic: maybe}"
FT.EXPLAIN ph "@u:smith=>{$phonetic: true}"
FT.SEARCH plain "smith=>{$phonetic: true}"
FT.SEARCH plain "smith=>{$phonetic: false}"
FT.SEARCH ph "@n:[1 2]=>{$phonetic: true}"
FT.AGGREGATE ph smith LOAD 1 @n SORTBY 1 @n
FT.AGGREGATE ph "@u:smith=>{$phonetic: true}"
FT.AGGREGATE ph "@u:smith=>{$phonetic: true}" VERBATIM LOAD 1 @n
FT.SPELLCHECK ph smoth
FT.TAGVALS ph t
FT.SEARCH ph smith INFIELDS 1 u WITHSCORES NOCONTENT
FT.SEARCH ph smith INFIELDS 1 t WITHSCORES NOCONTENT
FT.EXPLAIN ph "@t:smith=>{$phonetic: false} | jon=>{$phonetic: true}"
FT.CREATE e1 SCHEMA t TEXT PHONETIC
FT.CREATE e2 SCHEMA t TEXT PHONETIC dm:xx
FT.CREATE e3 SCHEMA t TEXT PHONETIC DM:EN
FT.CREATE e4 SCHEMA t TAG PHONETIC dm:en
FT.CREATE e5 SCHEMA t TEXT PHONETIC dm:english
FT.CREATE e6 SCHEMA t TEXT phonetic dm:pt SORTABLE
FT.CREATE e7 SCHEMA t TEXT PHONETIC dm:es PHONETIC dm:en
`)
	// Synonym groups come before the phonetic code (an index whose
	// groups are there before its documents: RediSearch re-indexes on
	// FT.SYNUPDATE, leaving garbage that changes its scores).
	p.Run(`
FT.CREATE syn PREFIX 1 s: SCHEMA t TEXT PHONETIC dm:en
FT.SYNUPDATE syn g1 smith jones
`)
	waitIndexed(t, p.Redis, "syn")
	p.Run(`
HSET s:1 t "jones smithe"
HSET s:2 t "smith went home"
HSET s:3 t "smyth"
FT.EXPLAIN syn smith
FT.SEARCH syn smith WITHSCORES NOCONTENT
FT.SEARCH syn jones WITHSCORES NOCONTENT
FT.SEARCH syn "jones|smyth" WITHSCORES NOCONTENT
`)
	ftProfileLike(t, p, `
FT.PROFILE ph AGGREGATE QUERY smith LOAD 1 @n SORTBY 1 @n
FT.PROFILE ph SEARCH QUERY "smith|jon" NOCONTENT
`)
	waitIndexed(t, p.Redis, "e6")
	compareFTInfo(t, p, "ph")
	compareFTInfo(t, p, "e6")
	resp3(p)
	compareFTInfo(t, p, "ph")
	p.Run(`FT.SEARCH ph smith WITHSCORES NOCONTENT`)
	p.Redis.Do("HELLO", "2")
	p.HotKV.Do("HELLO", "2")
	// A document's phonetic terms go with it (RediSearch counts deleted
	// documents in IDFs until its collector runs: no scores).
	p.Run(`
DEL h:2
HSET h:1 t "nothing here"
FT.SEARCH ph smith NOCONTENT
FT.SEARCH ph smyth NOCONTENT
`)
}
