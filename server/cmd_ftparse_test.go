package server

import "testing"

// TestFTQueryLexerLikeRediSearch: the bytes RediSearch's lexer skips
// between tokens (punctuation no token starts with, a "'" that opens no
// quoted text as in "ab'" or yiddish "ח'", control bytes), text
// parameters ($w, @t:$w, @t:($w), $w*) and a KNN clause after a query
// with more than one operand at its top level, or in DIALECT 1, reply as
// RediSearch's, in FT.EXPLAIN and FT.SEARCH.
func TestFTQueryLexerLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	p.Run(`
FT.CREATE i ON HASH PREFIX 1 q: SCHEMA t TEXT g TAG n NUMERIC v VECTOR FLAT 6 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2
HSET q:1 t "ab hello" g x n 1
HSET q:2 t "ab' world the" n 2
HSET q:3 t "ח' red" n 3
`)
	waitIndexed(t, p.Redis, "i")
	blob := f32s(1, 1)
	p.DoArgs("HSET", "q:4", "t", "red blue", "v", blob)
	for _, q := range []string{"ab'", "'ab", "ab'c", "ab' cd", "ab'|world", "@t:ab'", "-ab'", "~ab'", "ab''", "a'b'",
		"ab 'cd'", "ח'", "ח' red", "ab.c", "ab,world", "#ab", "ab?", "+ab", "ab=world", "ab @ world", "ab $ world",
		"ab^c&d", "ab`c", "@t:.ab", "(.ab)", "ab . | world", "-.ab", ".", "ab\x01world", "$w", "x $w", "$w*", "-$w",
		"@t:$w", "@t:($w)", "@t:($w | world)", "@t:$w*", "x | $w", "$e", "@t:$e", "$s", "$sp", "$nope", "$w=>{$weight: 2}"} {
		for _, d := range []string{"1", "2"} {
			params := []string{"PARAMS", "8", "w", "Hello", "e", "", "s", "the", "sp", "ab World"}
			p.DoArgs(append([]string{"FT.EXPLAIN", "i", q, "DIALECT", d}, params...)...)
			p.DoArgs(append([]string{"FT.SEARCH", "i", q, "NOCONTENT", "DIALECT", d}, params...)...)
		}
	}
	// DIALECT 2 only: '$' inside a phrase is text, a parameter in a tag
	// set is a value as it is (never a prefix; empty needs INDEXEMPTY),
	// and "*" stands only as a whole query.
	for _, q := range []string{`"hello $w"`, `"ab $"`, `"a$b world"`, `"$w$x ab"`, `"$1 ab"`, `"$w* ab"`, `"ab -$w"`,
		"@g:{$w}", "@g:{$e}", "@g:{$st}", "@g:{$st*}", "@g:{$up}", "@g:{$sp}", "@g:{$w | $st}", "@g:{ab $st}", "@g:{$nope}",
		"ab *", "ab'*", "* ab", "(ab) *", "ab | *", "*", " * ", "(*)", ".*", "((*))"} {
		params := []string{"PARAMS", "10", "w", "Hello", "e", "", "st", "x*", "up", "X", "sp", "a b"}
		p.DoArgs(append([]string{"FT.EXPLAIN", "i", q, "DIALECT", "2"}, params...)...)
		p.DoArgs(append([]string{"FT.SEARCH", "i", q, "NOCONTENT", "DIALECT", "2"}, params...)...)
	}
	for _, q := range []string{"-red=>[KNN 2 @v $b]", "~red=>[KNN 2 @v $b]", "-(red)=>[KNN 2 @v $b]", "(-red)=>[KNN 2 @v $b]",
		"x -red=>[KNN 2 @v $b]", "-red => [KNN 2 @v $b]", "-red =>  [KNN 2 @v $b]", "-@t:red=>[KNN 2 @v $b]",
		"@t:-red=>[KNN 2 @v $b]", "@t:(-red)=>[KNN 2 @v $b]", "x | red=>[KNN 2 @v $b]", "x red=>[KNN 2 @v $b]",
		"the red=>[KNN 2 @v $b]", "-x red*=>[KNN 2 @v $b]", "@t:red blue=>[KNN 2 @v $b]", "(x red)=>[KNN 2 @v $b]",
		"red=>[KNN 2 @v $b]", "red*=>[KNN 2 @v $b]", "@t:red=>[KNN 2 @v $b]", "red=>{$weight: 2}=>[KNN 2 @v $b]",
		"-red=>{$weight: 2}=>[KNN 2 @v $b]", "$w=>[KNN 2 @v $b]", "red=>x", "red=> x", "red=>[x", "x red=>(a)", "red=>(a)", "red=>"} {
		for _, d := range []string{"1", "2"} {
			p.DoArgs("FT.SEARCH", "i", q, "NOCONTENT", "DIALECT", d, "PARAMS", "4", "w", "red", "b", blob)
		}
	}
}

// TestFTAttributesLikeRediSearch: attribute lists ("=>{$weight: 2; ...}")
// with and without white space between their tokens, empty attributes,
// and their syntax errors (offset and text), on terms, groups and KNN
// clauses, reply as RediSearch's.
func TestFTAttributesLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	p.Run(`
FT.CREATE i ON HASH PREFIX 1 q: SCHEMA t TEXT v VECTOR FLAT 6 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2
HSET q:1 t "hello world"
`)
	waitIndexed(t, p.Redis, "i")
	blob := f32s(1, 1)
	p.DoArgs("HSET", "q:2", "t", "hello red", "v", blob)
	for _, q := range []string{"hello=>{$weight:2}", "hello=>{$weight:2;}", "hello=>{$weight:2;$slop:1}",
		"hello=>{$weight :2}", "hello=>{$weight: 2 ; $inorder:true}", "hello=>{$weight: 2;; $slop: 1}",
		"hello=>{ $weight:2 }", "hello=>{}", "hello=>{;}", "(hello world)=>{$slop:1;$inorder:false}",
		"hello=>{$weight: 2}=>{$slop: 1}", "-hello=>{$weight:2}", "hello=>{$weight:2}world",
		"hello=>{$weight:}", "hello=>{$weight::2}", "hello=>{weight:2}", "hello=>{$weight 2}",
		"hello=>{$weight: 2 $slop: 1}", "hello=>{$weight: abc}", "hello=>{$we-ight:2}", "hello=>{$:2}",
		"hello=>{$weight: 2", "hello=>{$nope: 1}"} {
		p.DoArgs("FT.EXPLAIN", "i", q, "DIALECT", "2")
		p.DoArgs("FT.SEARCH", "i", q, "NOCONTENT", "WITHSCORES", "DIALECT", "2")
	}
	for _, q := range []string{"*=>[KNN 2 @v $b]=>{$yield_distance_as:d}", "*=>[KNN 2 @v $b]=>{$yield_distance_as: d;}",
		"*=>[KNN 2 @v $b]=>{$yield_distance_as d}", "@v:[VECTOR_RANGE 5 $b]=>{$epsilon:0.1;$yield_distance_as:d}",
		// Query attributes on a KNN clause: accepted, explained, no effect.
		"*=>[KNN 2 @v $b]=>{$inorder:true; $weight:3}", "*=>[KNN 2 @v $b]=>{$slop:2}", "*=>[KNN 2 @v $b]=>{$weight:1}",
		"*=>[KNN 2 @v $b]=>{$slop:2; $weight: 0.5; $inorder: false; $yield_distance_as: dd}",
		"hello=>[KNN 2 @v $b]=>{$weight:2; $weight:3}", "hello=>[KNN 2 @v $b]=>{$weight:x}",
		"hello=>[KNN 2 @v $b]=>{$nope:1}", "hello=>[KNN 2 @v $b]=>{$phonetic:true}"} {
		p.DoArgs("FT.SEARCH", "i", q, "WITHSCORES", "RETURN", "1", "t", "DIALECT", "2", "PARAMS", "2", "b", blob)
		p.DoArgs("FT.EXPLAIN", "i", q, "DIALECT", "2", "PARAMS", "2", "b", blob)
	}
}

// TestFTExplainKNNLikeRediSearch: FT.EXPLAIN of KNN queries (alone,
// hybrid, with AS, $yield_distance_as, EF_RUNTIME and EPSILON, on FLAT
// and HNSW fields that hold vectors, and the errors of a wrong blob or
// option) replies as
// RediSearch's.
func TestFTExplainKNNLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	p.Run(`
FT.CREATE i ON HASH PREFIX 1 q: SCHEMA t TEXT n NUMERIC g TAG v VECTOR FLAT 6 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2 w VECTOR HNSW 6 TYPE FLOAT32 DIM 2 DISTANCE_METRIC COSINE
`)
	blob := f32s(1, 2)
	// RediSearch checks a query vector against a field's vector index,
	// which its first vector creates.
	p.DoArgs("HSET", "q:1", "t", "red", "v", blob, "w", blob)
	for _, q := range []string{"*=>[KNN 2 @v $b]", "red=>[KNN 2 @v $b]", "(x|red)=>[KNN 3 @v $b AS d]", "*=>[KNN $k @w $b]=>{$yield_distance_as: dd}",
		"@n:[1 2]=>[KNN 2 @v $b EF_RUNTIME 5]", "@n:[1 2]=>[KNN 2 @w $b EF_RUNTIME 5]", "*=>[KNN 0 @v $b]", "@t:red=>[KNN 2 @v $b]",
		"(hello world)=>[KNN 2 @w $b]", "*=>[KNN 2 @w $b]=>{$EF_RUNTIME: 7; $yield_distance_as: z}", "*=>[KNN 2 @w $b EPSILON 0.1]",
		"*=>[KNN 2 @v $b EPSILON 0.1]", "*=>[KNN 2 @w $b EF_RUNTIME 5 EPSILON 0.2 AS x]", "*=>[KNN 2 @w $b EPSILON 0.2 EF_RUNTIME $k]",
		"*=>[KNN 2 @nosuch $b]", "*=>[KNN 2 @t $b]", "*=>[KNN 2 @v $short]", "@g:{a}=>[KNN 2 @v $b]", "hel*=>[KNN 2 @v $b]",
		`"a b"=>[KNN 2 @v $b]`, "running=>[KNN 2 @v $b]"} {
		p.DoArgs("FT.EXPLAIN", "i", q, "DIALECT", "2", "PARAMS", "6", "b", blob, "k", "4", "short", "abcd")
	}
}
