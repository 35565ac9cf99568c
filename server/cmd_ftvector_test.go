package server

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// f32s and f64s encode a vector as a VECTOR field holds it.
func f32s(v ...float64) string {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(x)))
	}
	return string(b)
}

func f64s(v ...float64) string {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
	return string(b)
}

// TestFTVectorLikeRediSearch: VECTOR fields (FLAT and HNSW, FLOAT32 and
// FLOAT64, L2, IP and COSINE), KNN queries alone and after a filter,
// vector ranges, PARAMS, and their errors, against RediSearch.
func TestFTVectorLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	p.Run(`
FT.CREATE vi ON HASH PREFIX 1 v: SCHEMA t TEXT tag TAG n NUMERIC SORTABLE fl VECTOR FLAT 6 TYPE FLOAT32 DIM 4 DISTANCE_METRIC L2 hn VECTOR HNSW 10 TYPE FLOAT64 DIM 3 DISTANCE_METRIC COSINE M 8 EF_CONSTRUCTION 50 ip VECTOR FLAT 6 TYPE FLOAT32 DIM 2 DISTANCE_METRIC IP
`)
	compareFTInfo(t, p, "vi")
	rng := rand.New(rand.NewPCG(7, 7))
	words := []string{"red", "green", "blue", "apple", "tree", "stone"}
	q := func() float64 { return float64(rng.IntN(17)-8) / 4 } // exact in float32
	for i := range 40 {
		args := []string{"HSET", fmt.Sprintf("v:%d", i), "t", words[i%len(words)] + " " + words[(i/3)%len(words)],
			"tag", []string{"a", "b", "c"}[i%3], "n", strconv.Itoa(i)}
		if i%7 != 3 {
			args = append(args, "fl", f32s(q(), q(), q(), q()))
		}
		if i%5 != 2 {
			args = append(args, "hn", f64s(q()+0.5, q(), q()))
		}
		args = append(args, "ip", f32s(q(), q()))
		p.DoArgs(args...)
	}
	p.DoArgs("HSET", "v:bad", "fl", "abc", "n", "1") // not indexed
	p.Do("HDEL v:4 fl")
	p.Do("DEL v:5")
	blob4, blob3, blob2 := f32s(0.5, -1, 0.25, 2), f64s(1, -0.5, 0.75), f32s(0.5, 0.25)
	knn := func(query string, extra ...string) {
		t.Helper()
		p.DoArgs(append([]string{"FT.SEARCH", "vi", query, "PARAMS", "6", "b4", blob4, "b3", blob3, "b2", blob2, "DIALECT", "2"}, extra...)...)
	}
	for _, query := range []string{
		"*=>[KNN 3 @fl $b4]", "*=>[KNN 5 @hn $b3]", "*=>[KNN 4 @ip $b2]", "*=>[KNN 100 @fl $b4]",
		"*=>[KNN 0 @fl $b4]", "*=>[knn 2 @fl $b4 AS dist]", "*=>[KNN 3 @hn $b3 EF_RUNTIME 20]",
		"@tag:{a}=>[KNN 3 @fl $b4]", "@n:[10 30]=>[KNN 4 @hn $b3]", "red=>[KNN 3 @fl $b4]",
		"(red|blue)=>[KNN 5 @ip $b2 AS d]", "@tag:{b} @n:[0 20]=>[KNN 2 @fl $b4]",
		"*=>[KNN 2 @fl $b4]=>{$YIELD_DISTANCE_AS: yd}",
		"@fl:[VECTOR_RANGE 3 $b4]", "@fl:[VECTOR_RANGE 3 $b4]=>{$YIELD_DISTANCE_AS: d}",
		"@hn:[VECTOR_RANGE 0.5 $b3]", "@ip:[VECTOR_RANGE 1 $b2] @tag:{c}", "@tag:{a} | @fl:[VECTOR_RANGE 2 $b4]",
		"@n:[$lo $hi]", "@tag:{$tg}",
		// Errors.
		"*=>[KNN 3 @fl $b3]", "*=>[KNN 3 @fl $nosuch]", "*=>[KNN 3 @fl $b4 EF_RUNTIME 5]",
		"*=>[KNN -1 @fl $b4]", "*=>[KNN x @fl $b4]", "*=>[KNN 3 @fl]", "*=>[KNN 3 @fl $b4 AS]",
		"*=>[KNN 3 @tag $b4]", "*=>[KNN 3 @nosuch $b4]", "*=>[KNN $lo @fl $b4]", "*=>[KNN $tg @fl $b4]",
		"@fl:[VECTOR_RANGE -1 $b4]", "@fl:[VECTOR_RANGE 1 $b3]", "@fl:[VECTOR_RANGE 1 $b4]=>{$EPSILON: 0.1}",
	} {
		p.DoArgs("FT.SEARCH", "vi", query, "PARAMS", "10", "b4", blob4, "b3", blob3, "b2", blob2, "lo", "3", "hi", "9", "tg", "b", "DIALECT", "2", "RETURN", "2", "n", "tag")
		p.DoArgs("FT.SEARCH", "vi", query, "PARAMS", "10", "b4", blob4, "b3", blob3, "b2", blob2, "lo", "3", "hi", "9", "tg", "b", "DIALECT", "2", "NOCONTENT", "WITHSCORES")
	}
	knn("*=>[KNN 3 @fl $b4]")
	knn("*=>[KNN 3 @fl $b4]", "SORTBY", "__fl_score", "DESC", "RETURN", "1", "__fl_score")
	knn("*=>[KNN 5 @hn $b3 AS d]", "SORTBY", "d", "RETURN", "2", "d", "n")
	knn("*=>[KNN 5 @hn $b3]", "SORTBY", "n", "DESC", "RETURN", "2", "__hn_score", "n")
	knn("*=>[KNN 5 @hn $b3]", "LIMIT", "1", "2", "RETURN", "1", "n")
	knn("@fl:[VECTOR_RANGE 3 $b4]=>{$YIELD_DISTANCE_AS: d}", "SORTBY", "d", "RETURN", "1", "d")
	knn("*=>[KNN 3 @fl $b4]", "SORTBY", "nosuch")
	knn("*=>[KNN 3 @fl $b4]", "INKEYS", "3", "v:1", "v:2", "v:9", "RETURN", "1", "n")
	p.DoArgs("FT.SEARCH", "vi", "*=>[KNN 3 @fl $b]", "PARAMS", "1", "b", "DIALECT", "2")
	p.DoArgs("FT.SEARCH", "vi", "*=>[KNN 3 @fl $b]", "PARAMS", "2", "b", blob4, "PARAMS", "2", "b", blob4, "DIALECT", "2")
	p.DoArgs("FT.SEARCH", "vi", "*=>[KNN 3 @fl $b]", "PARAMS", "x", "DIALECT", "2")
	p.DoArgs("FT.SEARCH", "vi", "@n:[$lo 5]", "PARAMS", "2", "lo", "1", "NOCONTENT")
	resp3(p)
	knn("*=>[KNN 3 @fl $b4]", "RETURN", "2", "__fl_score", "n")
	knn("*=>[KNN 2 @hn $b3]", "WITHSCORES")
	compareFTInfo(t, p, "vi")
}

// TestFTVectorWideLikeRediSearch: FLAT KNN and range queries over vectors
// wide enough for the SIMD kernels (search/vecsimd_amd64.s: eight lanes,
// and blocks of 256 vectors), more of them than a block, with a filter
// beside; the values are multiples of 1/4, so that every distance is
// exact whatever the order of its sums.
func TestFTVectorWideLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	p.Run(`
FT.CREATE vw ON HASH PREFIX 1 w: SCHEMA tag TAG a VECTOR FLAT 6 TYPE FLOAT32 DIM 16 DISTANCE_METRIC L2 b VECTOR FLAT 6 TYPE FLOAT32 DIM 40 DISTANCE_METRIC L2 c VECTOR FLAT 6 TYPE FLOAT32 DIM 24 DISTANCE_METRIC IP
`)
	rng := rand.New(rand.NewPCG(9, 9))
	vec := func(n int) string {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(rng.IntN(9)-4) / 4
		}
		return f32s(v...)
	}
	for i := range 600 {
		p.DoArgs("HSET", fmt.Sprintf("w:%d", i), "tag", []string{"x", "y", "z"}[i%3], "a", vec(16), "b", vec(40), "c", vec(24))
	}
	p.Do("DEL w:7")
	p.Do("HDEL w:300 a")
	qa, qb, qc := vec(16), vec(40), vec(24)
	for _, query := range []string{
		"*=>[KNN 10 @a $qa]", "*=>[KNN 10 @b $qb]", "*=>[KNN 10 @c $qc]", "*=>[KNN 700 @a $qa]",
		"@tag:{y}=>[KNN 7 @a $qa]", "@tag:{z}=>[KNN 7 @b $qb]", "@tag:{x}=>[KNN 5 @c $qc]",
		"@a:[VECTOR_RANGE 4 $qa]", "@b:[VECTOR_RANGE 9 $qb]", "@c:[VECTOR_RANGE 1 $qc]",
	} {
		p.DoArgs("FT.SEARCH", "vw", query, "PARAMS", "6", "qa", qa, "qb", qb, "qc", qc, "DIALECT", "2", "NOCONTENT", "LIMIT", "0", "1000")
		p.DoArgs("FT.SEARCH", "vw", query+"=>{$YIELD_DISTANCE_AS: d}", "PARAMS", "6", "qa", qa, "qb", qb, "qc", qc, "DIALECT", "2", "SORTBY", "d", "RETURN", "1", "d", "LIMIT", "0", "1000")
	}
}

// TestFTVectorSchemaLikeRediSearch: VECTOR fields' attributes and their
// errors in FT.CREATE and FT.ALTER.
func TestFTVectorSchemaLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	for i, attrs := range []string{
		"FLAT 6 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2",
		"flat 6 type float64 dim 2 distance_metric cosine",
		"HNSW 14 TYPE FLOAT32 DIM 2 DISTANCE_METRIC IP M 4 EF_CONSTRUCTION 5 EF_RUNTIME 7 EPSILON 0.5",
		"FLAT 10 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2 INITIAL_CAP 10 BLOCK_SIZE 5",
		"FLAT 8 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2 TYPE FLOAT64",
		"HNSW 6 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2 x TEXT",
		"FLAT 4 TYPE FLOAT32 DIM 2", "FLAT 4 TYPE FLOAT32 DISTANCE_METRIC L2", "FLAT 4 DIM 2 DISTANCE_METRIC L2",
		"FLAT 0", "FLAT 6 TYPE INT8 DIM 2 DISTANCE_METRIC L2", "FLAT 6 TYPE FLOAT32 DIM 0 DISTANCE_METRIC L2",
		"FLAT 6 TYPE FLOAT32 DIM x DISTANCE_METRIC L2", "FLAT 6 TYPE FLOAT32 DIM -2 DISTANCE_METRIC L2",
		"FLAT 6 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L3", "FLAT 7 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2",
		"FLAT 8 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2 M 10", "FLAT 8 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2 EPSILON 1",
		"HNSW 8 TYPE FLOAT32 DIM 2 DISTANCE_METRIC IP M 0", "HNSW 8 TYPE FLOAT32 DIM 2 DISTANCE_METRIC IP EF_CONSTRUCTION 0",
		"HNSW 8 TYPE FLOAT32 DIM 2 DISTANCE_METRIC IP EF_RUNTIME 0", "HNSW 8 TYPE FLOAT32 DIM 2 DISTANCE_METRIC IP EPSILON -1",
		"HNSW 8 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2 EPSILON x", "FLAT 8 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2 INITIAL_CAP x",
		"FOO 6 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2", "FLAT x", "FLAT", "",
		"FLAT 6 TYPE FLOAT32 DIM", "FLAT 2 TYPE", "FLAT 6 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2 SORTABLE",
	} {
		name := fmt.Sprintf("x%d", i)
		if p.Do("FT.CREATE "+name+" PREFIX 1 "+name+": SCHEMA v VECTOR "+attrs) == "+OK\r\n" {
			compareFTInfo(t, p, name)
		}
	}
	p.Run(`
FT.CREATE al PREFIX 1 al: SCHEMA t TEXT
HSET al:1 t hello v abcdefgh
FT.ALTER al SCHEMA ADD v VECTOR FLAT 6 TYPE FLOAT32 DIM 2 DISTANCE_METRIC L2
FT.ALTER al SCHEMA ADD w VECTOR FLAT 4 TYPE FLOAT32 DIM 2
`)
	waitIndexed(t, p.Redis, "al")
	compareFTInfo(t, p, "al")
	p.DoArgs("FT.SEARCH", "al", "*=>[KNN 1 @v $b]", "PARAMS", "2", "b", "abcdefgh", "DIALECT", "2")
}
