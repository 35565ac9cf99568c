package server

import "testing"

// TestFTFuzzyOptionalAttributesLikeRediSearch: fuzzy terms (%w%, %%w%%,
// %%%w%%%), optional operands (~x) and attributes ($weight, $slop,
// $inorder), their scores, FT.EXPLAIN and errors, against RediSearch.
func TestFTFuzzyOptionalAttributesLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	p.Run(`
FT.CREATE fz PREFIX 1 fz: SCHEMA t TEXT b TEXT
HSET fz:1 t "hello world" b "quick brown fox"
HSET fz:2 t "help wanted" b "lazy dog"
HSET fz:3 t "hello there world" b "brown dog"
HSET fz:4 t "world peace and hello" b "quick dog"
HSET fz:5 t "hallo welt" b "fox"
HSET fz:6 t "held hostage in the world" b "brow"
`)
	both := []string{
		"%hallo%", "%%helo%%", "%%%hell%%%", "%he%", "%word% peace", "@t:%hallo%", "@b:%fix%",
		"%hallo% | %brwn%", "%brwn% %dgo%", "hello %world%",
		"%hallo", "hallo%", "%%hallo%", "%hel*%", "%%%%hallo%%%%",
	}
	withAttrs := []string{
		"~hello world", "hello ~world", "~hello ~world", "~hello", "-~hello", "~(hello|peace) world",
		"~%hallo% world", "world ~quick ~dog",
		"hello=>{$weight: 2}", "(hello world)=>{$weight: 2.5}", "%hallo%=>{$weight: 3}",
		"(hello|brown)=>{$weight: 0.5}", "-hello=>{$weight: 2} world", "~hello=>{$weight: 3} world",
		"hello=>{$weight: 2}=>{$weight: 3}", "(hello world)=>{$slop: 0}", "(hello world)=>{$slop: 1}",
		"(hello world)=>{$slop: 0; $inorder: true}", "(world hello)=>{$inorder: true}",
		`"hello world"=>{$slop: 2}`, "hello=>{$inorder: true}", "@t:hello=>{$weight: 2} brown",
		"hello=>{$foo: 1}", "hello=>{$weight: x}", "hello=>{$weight: -1}", "hello=>{$slop: x}",
		"hello=>{$inorder: maybe}", "hello=>{$weight: 0}",
	}
	for _, q := range both {
		for _, d := range []string{"1", "2"} {
			p.DoArgs("FT.SEARCH", "fz", q, "NOCONTENT", "WITHSCORES", "DIALECT", d)
			p.DoArgs("FT.EXPLAIN", "fz", q, "DIALECT", d)
		}
	}
	for _, q := range withAttrs {
		for _, d := range []string{"1", "2"} {
			p.DoArgs("FT.SEARCH", "fz", q, "NOCONTENT", "WITHSCORES", "DIALECT", d)
			p.DoArgs("FT.EXPLAIN", "fz", q, "DIALECT", d)
			p.DoArgs("FT.EXPLAIN", "fz", q, "DIALECT", d, "VERBATIM")
		}
	}
}

// TestFTSearchAfterWritesInScriptsAndTransactions: indexing is
// synchronous: an FT.SEARCH in a script or a transaction sees what the
// commands before it wrote, as in RediSearch.
func TestFTSearchAfterWritesInScriptsAndTransactions(t *testing.T) {
	p := newSearchPair(t)
	p.Run(`
FT.CREATE lu PREFIX 1 lu: SCHEMA t TEXT
HSET lu:1 t hello
EVAL "redis.call('HSET', 'lu:2', 't', 'hello there'); return redis.call('FT.SEARCH', 'lu', 'hello', 'NOCONTENT')" 0
EVAL "redis.call('DEL', 'lu:1'); return redis.call('FT.SEARCH', 'lu', 'hello', 'NOCONTENT')" 0
MULTI
HSET lu:3 t hello
FT.SEARCH lu hello NOCONTENT
HDEL lu:2 t
FT.SEARCH lu hello NOCONTENT
EXEC
`)
}
