package server

import "testing"

// TestFTSpellCheckLikeRediSearch: FT.SPELLCHECK's suggestions (index
// words within the distance, their scores, dictionaries included and
// excluded) and errors, against RediSearch. The corpus gives suggestions
// of equal scores in RediSearch's order only where that order is
// bytewise (RediSearch's ties follow its term trie).
func TestFTSpellCheckLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	p.Run(`
FT.CREATE sc PREFIX 1 s: SCHEMA t TEXT b TEXT g TAG
HSET s:0 t "hello world" b "extra words here" g x
HSET s:1 t "help wanted" b "extra words here" g x
HSET s:2 t "held hostage" b "extra words here" g x
HSET s:3 t "hello there" b "extra words here" g x
HSET s:4 t "world peace" b "extra words here" g x
HSET s:5 t "word play" b "extra words here" g x
HSET s:6 t "hallo welt" b "extra words here" g x
HSET s:7 t "shell hello" b "extra words here" g x
FT.DICTADD dict helo wrold
FT.DICTADD other peas
FT.SPELLCHECK sc hllo
FT.SPELLCHECK sc "helo wrld"
FT.SPELLCHECK sc hello
FT.SPELLCHECK sc helo TERMS INCLUDE dict
FT.SPELLCHECK sc helo TERMS EXCLUDE dict
FT.SPELLCHECK sc "peac helo" TERMS INCLUDE other TERMS INCLUDE dict
FT.SPELLCHECK sc "wrld peace helo"
FT.SPELLCHECK sc @t:helo
FT.SPELLCHECK sc -helo
FT.SPELLCHECK sc "\"helo wrld\""
FT.SPELLCHECK sc hel*
FT.SPELLCHECK sc helo DIALECT 2
FT.SPELLCHECK sc helo FOO
FT.SPELLCHECK sc x
FT.SPELLCHECK sc wor
FT.SPELLCHECK sc hlelo
FT.SPELLCHECK sc wrold
FT.SPELLCHECK sc wrds DISTANCE 2
FT.SPELLCHECK sc helo DISTANCE 5
FT.SPELLCHECK sc helo DISTANCE 0
FT.SPELLCHECK sc helo DISTANCE x
FT.SPELLCHECK sc helo TERMS INCLUDE nodict
FT.SPELLCHECK sc helo TERMS FOO dict
FT.SPELLCHECK sc "(helo"
FT.SPELLCHECK nosuch x
FT.SPELLCHECK sc
`)
	resp3(p)
	p.Run(`
FT.SPELLCHECK sc "helo wrld"
FT.SPELLCHECK sc hello
`)
}
