package lolwut

import (
	"strings"
	"testing"
)

// TestSkyline: the skyline fills its canvas with the four grays, row by
// row, and is the same for the same randomness.
func TestSkyline(t *testing.T) {
	seq := func() Rand {
		n := 0
		return func() int { n = (n*1103515245 + 12345) & RandMax; return n }
	}
	a, b := Skyline(30, 6, "7.0.15", seq()), Skyline(30, 6, "7.0.15", seq())
	if a != b {
		t.Error("the same randomness drew two skylines")
	}
	rows := strings.Split(a, "\n")
	if len(rows) != 6+3 { // 6 rows, two caption lines, and the end
		t.Fatalf("%d lines", len(rows))
	}
	for i, r := range rows[:6] {
		if n := strings.Count(r, " \033[0m"); n != 30 {
			t.Errorf("row %d: %d cells", i, n)
		}
	}
	if !strings.HasSuffix(a, "Redis ver. 7.0.15\n") {
		t.Errorf("caption: %q", a[len(a)-40:])
	}
}
