package config

import (
	"math"
	"reflect"
	"testing"
)

func TestSplitArgs(t *testing.T) {
	cases := []struct {
		in   string
		want []string // nil means error
	}{
		{"", []string{}},
		{"   \t ", []string{}},
		{"port 6379", []string{"port", "6379"}},
		{"  a   b\tc  ", []string{"a", "b", "c"}},
		{`"hello world"`, []string{"hello world"}},
		{`"a\nb\r\t\b\a\\\"c"`, []string{"a\nb\r\t\b\a\\\"c"}},
		{`"\x41\x4a\x7e\x00z"`, []string{"AJ~\x00z"}},
		{`"\xZZ"`, []string{"xZZ"}}, // invalid hex escape: \x is just x
		{`"\x4"`, []string{"x4"}},   // needs two hex digits
		{`"\q"`, []string{"q"}},     // unknown escape: the byte itself
		{`'single \' quote'`, []string{"single ' quote"}},
		{`'no \n escape'`, []string{`no \n escape`}},
		{`""`, []string{""}},
		{`''`, []string{""}},
		{`a "" b`, []string{"a", "", "b"}},
		{`pre"fix in"`, []string{"prefix in"}},
		{`pre'fix in'`, []string{"prefix in"}},
		{`"unterminated`, nil},
		{`'unterminated`, nil},
		{`"closed"x`, nil},
		{`'closed'x`, nil},
		{`"a\"`, nil},
		{"\"a\"\tb", []string{"a", "b"}},
		{"a\vb", []string{"a\vb"}}, // \v separates only at the start of a token
		{"\va", []string{"a"}},
		{"a\x00b c", []string{"a"}}, // NUL ends the line, as in C
		{`"é"`, []string{"é"}},
	}
	for _, c := range cases {
		got, err := SplitArgs(c.in)
		if c.want == nil {
			if err == nil {
				t.Errorf("SplitArgs(%q) = %q, want error", c.in, got)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("SplitArgs(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

func TestReprRoundTrip(t *testing.T) {
	for _, s := range []string{"", "plain", "a b", `q"uote`, `back\slash`, "\n\r\t\a\b", "\x00\x01\x7f\xff", "é", "'"} {
		r := Repr(s)
		got, err := SplitArgs(r)
		if err != nil || len(got) != 1 || got[0] != s {
			t.Errorf("SplitArgs(Repr(%q)) = %q, %v (repr %s)", s, got, err, r)
		}
	}
	if got := Repr("a\"b\\c\n\x01é"); got != `"a\"b\\c\n\x01\xc3\xa9"` {
		t.Errorf("Repr = %s", got)
	}
}

func TestParseMemory(t *testing.T) {
	cases := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"1", 1, true},
		{"1b", 1, true},
		{"1B", 1, true},
		{"1k", 1000, true},
		{"1K", 1000, true},
		{"1kb", 1024, true},
		{"1Kb", 1024, true},
		{"1m", 1000000, true},
		{"1mb", 1 << 20, true},
		{"1g", 1000000000, true},
		{"1gb", 1 << 30, true},
		{"1GB", 1 << 30, true},
		{"100mb", 100 << 20, true},
		{"007", 7, true},
		{"", 0, true},   // Redis: an empty number is zero
		{"kb", 0, true}, // same
		{"9223372036854775807", math.MaxInt64, true},
		{"9223372036854775808", 0, false}, // does not fit an int64
		{"-1", 0, false},
		{"-0", 0, false},
		{"+1", 0, false},
		{"1.5gb", 0, false},
		{"1 gb", 0, false},
		{" 1", 0, false},
		{"1tb", 0, false},
		{"1kbb", 0, false},
		{"0x10", 0, false},
		{"1e3", 0, false},
	}
	for _, c := range cases {
		got, err := ParseMemory(c.in)
		if (err == nil) != c.ok || (c.ok && got != c.want) {
			t.Errorf("ParseMemory(%q) = %d, %v; want %d, ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
	// The internal parser saturates and wraps exactly like Redis's memtoull.
	if v, ok := memtoull("99999999999999999999"); !ok || v != math.MaxUint64 {
		t.Errorf("memtoull saturation = %d %v", v, ok)
	}
	if v, ok := memtoull("20000000000gb"); !ok || v != 3028092406290448384 {
		t.Errorf("memtoull wrap = %d %v", v, ok)
	}
}

func TestString2ll(t *testing.T) {
	good := map[string]int64{"0": 0, "1": 1, "-1": -1, "123": 123,
		"9223372036854775807": math.MaxInt64, "-9223372036854775808": math.MinInt64}
	for s, want := range good {
		if v, ok := string2ll(s); !ok || v != want {
			t.Errorf("string2ll(%q) = %d %v", s, v, ok)
		}
	}
	for _, s := range []string{"", "-", "+1", "01", "-0", " 1", "1 ", "1a", "9223372036854775808", "-9223372036854775809", "00"} {
		if v, ok := string2ll(s); ok {
			t.Errorf("string2ll(%q) = %d, want failure", s, v)
		}
	}
}

func TestStrtoll(t *testing.T) {
	cases := []struct {
		in, rest string
		base     int
		v        int64
		erange   bool
	}{
		{"", "", 10, 0, false},
		{"  12x", "x", 10, 12, false},
		{"+7", "", 10, 7, false},
		{"-7", "", 10, -7, false},
		{"abc", "abc", 10, 0, false},
		{" ", " ", 10, 0, false},
		{"0777", "", 8, 511, false},
		{"789", "89", 8, 7, false},
		{"99999999999999999999", "", 10, math.MaxInt64, true},
		{"-99999999999999999999", "", 10, math.MinInt64, true},
	}
	for _, c := range cases {
		v, rest, erange := strtoll(c.in, c.base)
		if v != c.v || rest != c.rest || erange != c.erange {
			t.Errorf("strtoll(%q,%d) = %d %q %v", c.in, c.base, v, rest, erange)
		}
	}
}

func TestFormatFloatTrimmed(t *testing.T) {
	for f, want := range map[float64]string{50: "50", 99.9: "99.9", 2.123456789: "2.123457", 0: "0", 99.99999: "99.99999", 1.5: "1.5"} {
		if got := formatFloatTrimmed(f); got != want {
			t.Errorf("formatFloatTrimmed(%v) = %q, want %q", f, got, want)
		}
	}
}
