package latency

import (
	"strings"
	"testing"
)

var dashes = strings.Repeat("-", 80) + "\n"

// The expected sparklines are derived by hand from sparkline.c: with R rows
// there are 3R steps; a point's step is (int)(relval*steps)/relmax
// truncated, clamped to steps-1; in row r (0 = top) the cell is "_o#"[step-
// (R-r-1)*3] when that index is 0..2, '|' above it, ' ' below.
func TestRenderSparkline(t *testing.T) {
	rising := make([]sparkPoint, 12)
	for i := range rising {
		rising[i] = sparkPoint{value: float64(i + 1)}
	}
	tests := []struct {
		name    string
		points  []sparkPoint
		columns int
		rows    int
		want    string
	}{
		{"empty", nil, 80, 4, ""},
		{
			// A single point (or all points equal) is at step 0: '_' in
			// the bottom row. Labels follow a blank row, one char a row.
			"single", []sparkPoint{{100, "0s"}}, 80, 4,
			" \n \n \n_\n \n0\ns\n",
		},
		{
			// 1..12: relval 0..11 over relmax 11 gives steps 0..10 and 12,
			// clamped to 11, one new cell a column.
			"rising, no labels", rising, 80, 4,
			"         _o#\n" +
				"      _o#|||\n" +
				"   _o#||||||\n" +
				"_o#|||||||||\n",
		},
		{
			// The real LATENCY GRAPH of samples 300, 200, 150 ms taken 3, 2
			// and 0 seconds ago (captured from redis-server 7.0.15).
			"redis capture", []sparkPoint{{300, "3s"}, {200, "2s"}, {150, "0s"}}, 80, 4,
			"#  \n|  \n|o \n||_\n   \n320\nsss\n",
		},
		{
			// More points than columns: bands of at most 4 columns joined
			// by an empty line; the scale (1..5, steps 0,1,3,4,5) is the
			// whole sequence's; labels run as long as the band's longest.
			"bands", []sparkPoint{{1, "a"}, {2, "bb"}, {3, "c"}, {4, "d"}, {5, "ee"}}, 4, 2,
			"  _o\n_o||\n    \nabcd\n b  \n" +
				"\n" +
				"#\n|\n \ne\ne\n",
		},
		{
			// Labels on some points only: unlabelled columns stay blank.
			"partial labels", []sparkPoint{{1, ""}, {1, "xy"}}, 80, 1,
			"__\n  \n x\n y\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			renderSparkline(&b, tt.points, tt.columns, tt.rows)
			if got := b.String(); got != tt.want {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestAgeLabel(t *testing.T) {
	tests := []struct {
		elapsed int64
		want    string
	}{
		{0, "0s"}, {59, "59s"}, {60, "1m"}, {119, "1m"}, {3599, "59m"}, {3600, "1h"},
		{86399, "23h"}, {86400, "1d"}, {10*86400 + 5, "10d"}, {-3, "-3s"},
	}
	for _, tt := range tests {
		if got := ageLabel(tt.elapsed); got != tt.want {
			t.Errorf("ageLabel(%d) = %q, want %q", tt.elapsed, got, tt.want)
		}
	}
}

func TestGraph(t *testing.T) {
	tests := []struct {
		name  string
		adds  []add
		event string
		now   int64
		want  string
		ok    bool
	}{
		{"unknown", []add{{"command", 300, 10}}, "fork", 10, "", false},
		{"case-sensitive", []add{{"command", 300, 10}}, "Command", 10, "", false},
		{
			// Byte for byte the reply redis-server 7.0.15 gave for one
			// 150 ms DEBUG SLEEP read back in the same second.
			"single sample", []add{{"command", 150, 1796396600}}, "command", 1796396600,
			"command - high 150 ms, low 150 ms (all time high 150 ms)\n" + dashes +
				" \n \n \n_\n \n0\ns\n", true,
		},
		{
			// Byte for byte redis-server 7.0.15's reply for DEBUG SLEEPs of
			// 0.3, 0.2 and 0.15 s at the times LATENCY HISTORY reported.
			"redis capture",
			[]add{{"command", 300, 1796396594}, {"command", 200, 1796396595}, {"command", 150, 1796396597}},
			"command", 1796396597,
			"command - high 300 ms, low 150 ms (all time high 300 ms)\n" + dashes +
				"#  \n|  \n|o \n||_\n   \n320\nsss\n", true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMonitor(tt.adds...)
			got, ok := m.Graph(tt.event, tt.now)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if got != tt.want {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// rampAdds returns n samples of "command", i+1 ms at time 1000+i.
func rampAdds(n int) []add {
	adds := make([]add, n)
	for i := range adds {
		adds[i] = add{"command", int64(i + 1), int64(1000 + i)}
	}
	return adds
}

// A full ring renders as two 80-column bands whose header reports the
// window's extremes, not the all-time high, and whose labels are ages.
func TestGraphTwoBands(t *testing.T) {
	m := newMonitor(rampAdds(TSLen + 1)...) // sample 1 ms dropped
	m.Add("command", 7, 5000)               // sample 2 ms dropped
	now := int64(5000 + 125)
	got, _ := m.Graph("command", now)
	lines := strings.Split(got, "\n")
	if want := "command - high 161 ms, low 3 ms (all time high 161 ms)"; lines[0] != want {
		t.Errorf("header %q, want %q", lines[0], want)
	}
	if lines[1]+"\n" != dashes {
		t.Errorf("rule %q", lines[1])
	}
	// Band 1: 4 rows, a blank row, labels; then an empty line; band 2.
	// Ages of samples 3..161 ms are 3965..4123 s: "1h".
	band1 := lines[2:]
	for r := range 4 {
		if len(band1[r]) != 80 {
			t.Fatalf("band 1 row %d is %d wide", r, len(band1[r]))
		}
	}
	if band1[4] != strings.Repeat(" ", 80) || band1[5] != strings.Repeat("1", 80) ||
		band1[6] != strings.Repeat("h", 80) || band1[7] != "" {
		t.Fatalf("band 1 labels wrong:\n%s", strings.Join(band1[4:8], "\n"))
	}
	band2 := band1[8:]
	for r := range 4 {
		if len(band2[r]) != 80 {
			t.Fatalf("band 2 row %d is %d wide", r, len(band2[r]))
		}
	}
	// The newest sample (7 ms, 125 s ago) is the last column: step 0
	// (int(4*12)/158), so '_' in the bottom row, label "2m".
	if c := band2[3][79]; c != '_' {
		t.Errorf("newest sample's bottom cell %q, want '_'", c)
	}
	if band2[5][79] != '2' || band2[6][79] != 'm' {
		t.Errorf("newest label %q%q, want 2m", band2[5][79], band2[6][79])
	}
	if band2[len(band2)-1] != "" || band2[len(band2)-2] != strings.Repeat("h", 79)+"m" {
		t.Errorf("graph does not end with the label row and a newline: %q", band2[len(band2)-2:])
	}
}
