package glob

import (
	"strings"
	"testing"
	"time"
)

// matchCases were verified against a real Redis 7.0.15 (KEYS for the
// case-sensitive cases, see TestMatchAgainstRedis which re-checks them
// whenever redis-server is available).
var matchCases = []struct {
	pattern, s string
	nocase     bool
	want       bool
}{
	// Literals and empty inputs.
	{"", "", false, true},
	{"", "a", false, false},
	{"a", "", false, false},
	{"abc", "abc", false, true},
	{"abc", "abd", false, false},
	{"abc", "ab", false, false},
	{"ab", "abc", false, false},
	{"ABC", "abc", false, false},
	{"ABC", "abc", true, true},
	{"aBc", "AbC", true, true},

	// '*'
	{"*", "", false, false}, // stringmatchlen never matches an empty subject against "*" (KEYS special-cases "*")
	{"*", "anything", false, true},
	{"**", "", false, false},
	{"a*", "a", false, true},
	{"a*", "abc", false, true},
	{"a*", "ba", false, false},
	{"*a", "bca", false, true},
	{"*a", "bcab", false, false},
	{"a*c", "abbbc", false, true},
	{"a*c", "ac", false, true},
	{"a*c", "acb", false, false},
	{"a**c", "abc", false, true},
	{"*a*b*c*", "xaxbxcx", false, true},
	{"*a*b*c*", "xcxbxax", false, false},
	{"h*llo", "hello", false, true},
	{"h*llo", "hllo", false, true},
	{"*.*", "a.b", false, true},
	{"a*", "", false, false},
	{"*a", "", false, false},

	// '?'
	{"?", "", false, false},
	{"?", "a", false, true},
	{"?", "ab", false, false},
	{"h?llo", "hello", false, true},
	{"h?llo", "hllo", false, false},
	{"??", "ab", false, true},
	{"*?", "a", false, true},
	{"*?", "", false, false},

	// Classes.
	{"h[ae]llo", "hello", false, true},
	{"h[ae]llo", "hallo", false, true},
	{"h[ae]llo", "hillo", false, false},
	{"h[^e]llo", "hallo", false, true},
	{"h[^e]llo", "hello", false, false},
	{"h[a-b]llo", "hbllo", false, true},
	{"h[a-b]llo", "hcllo", false, false},
	{"h[b-a]llo", "hallo", false, true}, // reversed range is swapped
	{"[a-c]", "B", false, false},
	{"[a-c]", "B", true, true},
	{"[A-C]", "b", true, true},
	{"[^a-c]", "d", false, true},
	{"[^a-c]", "b", false, false},
	{"[abc]", "C", true, true},
	{"[abc]", "C", false, false},
	{"[a-]", "-", false, false}, // "a-]" is the range ']'..'a', the class is unterminated
	{"[a-]", "a", false, true},
	{"[a-]", "^", false, true},
	{"[a-]", "]", false, true},
	{"[-a]", "-", false, true},
	{"[]]", "]", false, false},  // "[]" is an empty class, then a literal ']'
	{"[]]", "]]", false, false}, // the empty class never matches
	{"[^]]", "x]", false, true}, // negated empty class matches any byte
	{"[\\]]", "]", false, true}, // escaped ']' inside a class
	{"[\\-]", "-", false, true},
	{"[\\a]", "a", false, true},
	{"[\\A]", "a", true, false}, // escaped bytes in a class ignore nocase
	{"[a\\", "\\", false, true}, // trailing backslash inside an open class
	{"[*]", "*", false, true},
	{"[*]", "a", false, false},
	{"[?]", "?", false, true},

	// Unterminated classes (malformed patterns).
	{"[", "", false, false},
	{"[", "a", false, false},
	{"[ab", "a", false, true},
	{"[ab", "b", false, true},
	{"[ab", "c", false, false},
	{"[ab", "ab", false, false},
	{"[^", "x", false, true},
	{"[^", "", false, false},
	{"[^ab", "c", false, true},
	{"a[", "a", false, false},
	{"a[b", "ab", false, true},
	{"[a-", "a", false, true},
	{"[a-", "-", false, true},

	// Escapes.
	{"\\*", "*", false, true},
	{"\\*", "a", false, false},
	{"\\?", "?", false, true},
	{"\\?", "a", false, false},
	{"\\[a]", "[a]", false, true},
	{"\\a", "a", false, true},
	{"\\\\", "\\", false, true},
	{"\\", "\\", false, true}, // trailing backslash is a literal backslash
	{"a\\", "a\\", false, true},
	{"a\\", "a", false, false},
	{"\\A", "a", true, true},

	// nocase only folds ASCII letters.
	{"\xc3\xa9", "\xc3\x89", true, false},
	{"[Z-a]", "_", false, true},
	{"[Z-a]", "_", true, false}, // lowered range is [z-a] -> nothing matches '_'... after folding
	{"\xff", "\xff", false, true},
	{"[a-\xff]", "\xff", false, true}, // signed char range: [-1,97]
	{"[a-\xff]", "b", false, false},
	{"[a-\xff]", "\x00", false, true},
	{"[\x80-\xfe]", "\x90", false, true},
	{"[\x80-\xfe]", "a", false, false},

	// Binary subjects and patterns.
	{"a\x00b", "a\x00b", false, true},
	{"*\x00", "abc\x00", false, true},
	{"?", "\x00", false, true},
}

func TestMatch(t *testing.T) {
	for _, c := range matchCases {
		if got := MatchString(c.pattern, c.s, c.nocase); got != c.want {
			t.Errorf("MatchString(%q, %q, %v) = %v, want %v", c.pattern, c.s, c.nocase, got, c.want)
		}
		if got := Match([]byte(c.pattern), []byte(c.s), c.nocase); got != c.want {
			t.Errorf("Match(%q, %q, %v) = %v, want %v", c.pattern, c.s, c.nocase, got, c.want)
		}
	}
}

func TestMatchNilSlices(t *testing.T) {
	if !Match(nil, nil, false) {
		t.Error("Match(nil, nil) = false, want true")
	}
	if Match(nil, []byte("a"), false) || Match([]byte("a"), nil, false) {
		t.Error("nil vs non-empty must not match")
	}
}

// TestMatchPathological checks the Redis 7 safeguards: without the
// skipLongerMatches short-cut these take exponential time.
func TestMatchPathological(t *testing.T) {
	start := time.Now()
	pattern := strings.Repeat("*a", 50) + "b"
	subject := strings.Repeat("a", 300)
	if MatchString(pattern, subject, false) {
		t.Error("pathological pattern unexpectedly matched")
	}
	if !MatchString(strings.Repeat("*a", 50), subject, false) {
		t.Error("expected match")
	}
	if MatchString(strings.Repeat("a*", 30)+"[", strings.Repeat("a", 100)+"b", true) {
		t.Error("unexpected match")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("pathological patterns took %v", d)
	}
}

// TestMatchNestingLimit checks the nesting guard: more than 1000 nested '*'
// expansions never match (Redis returns "no match" for them too).
func TestMatchNestingLimit(t *testing.T) {
	ok := strings.Repeat("a*", 999)
	if !MatchString(ok, strings.Repeat("a", 999), false) {
		t.Error("999 nested stars should match")
	}
	tooDeep := strings.Repeat("a*", 1002)
	if MatchString(tooDeep, strings.Repeat("a", 1002)+"x", false) {
		t.Error("more than 1000 nested stars must not match")
	}
	// A very long pattern must not blow the stack either.
	long := strings.Repeat("*?", 100000)
	_ = MatchString(long, strings.Repeat("x", 100000), false)
}

func TestMatchNoAlloc(t *testing.T) {
	p := []byte("*h[a-z]l?o*\\*[^x]")
	s := []byte("say hello* there")
	ps, ss := string(p), string(s)
	n := testing.AllocsPerRun(100, func() {
		Match(p, s, true)
		MatchString(ps, ss, false)
	})
	if n != 0 {
		t.Errorf("Match allocates %v times per run", n)
	}
}

func FuzzMatch(f *testing.F) {
	for _, c := range matchCases {
		f.Add(c.pattern, c.s, c.nocase)
	}
	f.Add(strings.Repeat("*a", 20)+"b", strings.Repeat("a", 64), false)
	f.Fuzz(func(t *testing.T, pattern, s string, nocase bool) {
		got := Match([]byte(pattern), []byte(s), nocase)
		if got2 := MatchString(pattern, s, nocase); got2 != got {
			t.Fatalf("Match and MatchString disagree for %q %q", pattern, s)
		}
		// Sanity properties that hold for any subject.
		if s != "" && !MatchString("*", s, nocase) {
			t.Fatalf("'*' must match %q", s)
		}
		if !strings.ContainsAny(s, "*?[]\\^-") && !MatchString(s, s, nocase) {
			t.Fatalf("literal %q must match itself", s)
		}
	})
}

func BenchmarkMatch(b *testing.B) {
	p := []byte("user:*:session:[0-9]*")
	s := []byte("user:12345:session:987654")
	for i := 0; i < b.N; i++ {
		Match(p, s, false)
	}
}
