package search

import (
	"math"
	"testing"
)

// TestRoundedLog: BM25STD's IDF logarithms where Go's math.Log is an ulp
// away from glibc's (C's log, RediSearch's), which roundedLog matches
// (the values are glibc's), and a sweep where it stays within an ulp of
// math.Log.
func TestRoundedLog(t *testing.T) {
	for _, c := range []struct{ x, want float64 }{
		{3.4285714626312256, 1.2321436912267398}, // N 11, df 3
		{1.529411792755127, 0.4248832123051565},  // N 12, df 8
		{1.3684210777282715, 0.3136575771949321}, // N 12, df 9
		{4.285714149475098, 1.4552872008176976},  // N 14, df 3
		{2.909090995788574, 1.067840659803678},   // N 15, df 5
		{1.8095238208770752, 0.5930637282771359}, // N 18, df 10
		{2.3960394859313965, 0.8738171600553887}, // N 120, df 50
	} {
		if got := roundedLog(c.x); got != c.want {
			t.Errorf("roundedLog(%v) = %v, want %v (math.Log %v)", c.x, got, c.want, math.Log(c.x))
		}
	}
	for x := 1e-3; x < 1e6; x *= 1.37 {
		if got, l := roundedLog(x), math.Log(x); got != l && got != math.Nextafter(l, 0) && got != math.Nextafter(l, 10) {
			t.Fatalf("roundedLog(%v) = %v, math.Log %v", x, got, l)
		}
	}
	if roundedLog(1) != 0 || !math.IsInf(roundedLog(0), -1) {
		t.Fatalf("roundedLog(1) = %v, roundedLog(0) = %v", roundedLog(1), roundedLog(0))
	}
}
