package lua

import (
	"math"
	"testing"
)

// TestStr2NumberSmallInt: the fast path for short decimal integers gives
// what the general parse gives, and leaves everything else to it.
func TestStr2NumberSmallInt(t *testing.T) {
	for _, s := range []string{
		"0", "7", "42", "-42", "-0", "00012", "999999999999999", "-999999999999999",
		"1000000000000000", "12345678901234567890", "1e3", " 12", "12 ", "+12", "-", "", "0x10",
		"1.5", "12a", "1\x002",
	} {
		fast, fok := sdSmallInt(s)
		var slow float64
		var sok bool
		func() { // the general parse, as Str2Number did before the fast path
			c := sdCString(s)
			f, n := Strtod(c)
			if n == 0 {
				return
			}
			for _, ch := range []byte(c[n:]) {
				if !sdIsSpace(ch) {
					return
				}
			}
			slow, sok = f, true
		}()
		got, ok := Str2Number(s)
		if ok != sok || math.Float64bits(got) != math.Float64bits(slow) {
			t.Errorf("Str2Number(%q) = %v, %v; the general parse gives %v, %v", s, got, ok, slow, sok)
		}
		if fok && (math.Float64bits(fast) != math.Float64bits(slow) || !sok) {
			t.Errorf("sdSmallInt(%q) = %v; the general parse gives %v, %v", s, fast, slow, sok)
		}
	}
}
