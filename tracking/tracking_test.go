package tracking

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestTable runs scripts of table operations, one per line:
// "remember ID KEY", "invalidate KEY => IDS", "evict" (a random key),
// "forget", "follow ID PREFIX", "unfollow ID PREFIX",
// "match KEY => PREFIXES", "followers PREFIX => IDS", and
// "counts => KEYS ITEMS PREFIXES". ” is the empty prefix.
func TestTable(t *testing.T) {
	tests := []struct{ name, script string }{
		{"remember and invalidate", `
			remember 1 a
			remember 2 a
			remember 1 a
			remember 1 b
			counts => 2 3 0
			invalidate a => 1 2
			invalidate a =>
			counts => 1 1 0
			invalidate b => 1
			counts => 0 0 0`},
		{"forget", `
			remember 1 a
			remember 3 b
			follow 1 p
			forget
			counts => 0 0 1
			invalidate a =>`},
		{"evict", `
			remember 1 a
			remember 2 b
			evict
			counts => 1 1 0
			evict
			counts => 0 0 0`},
		{"prefixes", `
			follow 1 ''
			follow 2 user:
			follow 3 user:
			follow 3 other
			counts => 0 0 3
			match user:1 => '' user:
			match other => '' other
			match us => ''
			followers user: => 2 3
			unfollow 2 user:
			followers user: => 3
			unfollow 3 user:
			counts => 0 0 2
			followers user: =>`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var tb Table
			for _, line := range strings.Split(tc.script, "\n") {
				line = strings.TrimSpace(line)
				if line == "" {
					continue
				}
				op, want, _ := strings.Cut(line, " =>")
				want = strings.TrimSpace(want)
				f := strings.Fields(op)
				for i := range f {
					if f[i] == "''" {
						f[i] = ""
					}
				}
				var got string
				switch f[0] {
				case "remember":
					tb.Remember(uint64(atoi(f[1])), f[2])
				case "invalidate":
					got = ids(tb.Invalidate(f[1]))
				case "evict":
					k, ok := tb.RandomKey()
					if !ok {
						t.Fatalf("%s: empty table", line)
					}
					tb.Invalidate(k)
				case "forget":
					tb.Forget()
				case "follow":
					tb.Follow(uint64(atoi(f[1])), f[2])
				case "unfollow":
					tb.Unfollow(uint64(atoi(f[1])), f[2])
				case "match":
					m := tb.Matching(nil, f[1])
					slices.Sort(m)
					for i := range m {
						if m[i] == "" {
							m[i] = "''"
						}
					}
					got = strings.Join(m, " ")
				case "followers":
					got = ids(tb.Followers(f[1]))
				case "counts":
					got = strings.Join([]string{itoa(tb.Keys()), itoa(tb.Items()), itoa(tb.Prefixes())}, " ")
				default:
					t.Fatalf("bad line %q", line)
				}
				if strings.Contains(line, "=>") && got != want {
					t.Errorf("%s: got %q", line, got)
				}
			}
		})
	}
}

// TestOverlap: Redis's prefix collision rules and the pair reported.
func TestOverlap(t *testing.T) {
	tests := []struct {
		existing, added []string
		p, with         string
		withExisting    bool
		found           bool
	}{
		{nil, []string{"FOOBAR", "FOO"}, "FOOBAR", "FOO", false, true},
		{nil, []string{"FOO", "FOOBAR"}, "FOO", "FOOBAR", false, true},
		{nil, []string{"FOO", "BAR"}, "", "", false, false},
		{[]string{"BAR", "FOO"}, []string{"FO"}, "FO", "FOO", true, true},
		{[]string{"BAR", "FOO"}, []string{"BARB"}, "BARB", "BAR", true, true},
		{[]string{"BAR"}, []string{"BAR"}, "BAR", "BAR", true, true},
		{[]string{"a"}, []string{""}, "", "a", true, true},
		{nil, []string{"x", "y", "yz"}, "y", "yz", false, true},
	}
	for _, tc := range tests {
		p, with, ex, found := Overlap(tc.existing, tc.added)
		if p != tc.p || with != tc.with || ex != tc.withExisting || found != tc.found {
			t.Errorf("Overlap(%q, %q) = %q, %q, %v, %v", tc.existing, tc.added, p, with, ex, found)
		}
	}
}

// TestBatch: keys per prefix sorted, NOLOOP leaving out a client's own
// changes, the last modifier winning.
func TestBatch(t *testing.T) {
	var b Batch
	if !b.Empty() {
		t.Fatal("new batch not empty")
	}
	b.Add("a:", "a:2", 1)
	b.Add("a:", "a:1", 2)
	b.Add("", "z", 1)
	b.Add("a:", "a:2", 2) // changed again, by 2
	if got := b.Prefixes(); !slices.Equal(got, []string{"", "a:"}) {
		t.Errorf("Prefixes: %q", got)
	}
	for _, tc := range []struct {
		prefix string
		skip   uint64
		want   []string
	}{
		{"a:", 0, []string{"a:1", "a:2"}},
		{"a:", 1, []string{"a:1", "a:2"}},
		{"a:", 2, nil},
		{"", 1, nil},
		{"", 0, []string{"z"}},
		{"none", 0, nil},
	} {
		if got := b.Keys(tc.prefix, tc.skip); !slices.Equal(got, tc.want) {
			t.Errorf("Keys(%q, %d) = %q, want %q", tc.prefix, tc.skip, got, tc.want)
		}
	}
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func itoa(n int) string { return strconv.Itoa(n) }

func ids(v []uint64) string {
	s := make([]string, len(v))
	for i, id := range v {
		s[i] = strconv.FormatUint(id, 10)
	}
	return strings.Join(s, " ")
}
