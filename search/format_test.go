package search

import "testing"

// TestFormatScoreFpconv checks FormatScore against redis-server 7.4 (FT.SUGGET
// WITHSCORES of float32 scores): integers in full up to 2^62, then Grisu2's
// digits, which are not always the shortest (9.473953247070313).
func TestFormatScoreFpconv(t *testing.T) {
	for _, c := range []struct {
		f    float32
		want string
	}{
		{1e21, "1000000020040877300000"}, {1e20, "100000002004087730000"}, {123456789, "123456792"},
		{1e-5, "9.999999747378752e-6"}, {1e-7, "1.0000000116860974e-7"}, {0.0001, "9.999999747378752e-5"},
		{0.001, "0.0010000000474974513"}, {1e15, "999999986991104"}, {1e16, "10000000272564224"},
		{3e38, "3.0000000054977558e+38"}, {12345678, "12345678"}, {1e18, "999999984306749440"}, {9.473953247070313, "9.473953247070313"},
		{-1e-5, "-9.999999747378752e-6"}, {0.1, "0.10000000149011612"}, {1e-10, "1.000000013351432e-10"},
		{2147483648, "2147483648"},
	} {
		if got := FormatScore(float64(c.f)); got != c.want {
			t.Errorf("FormatScore(%g) = %s, want %s", c.f, got, c.want)
		}
	}
}
