// Package glob implements Redis's glob-style pattern matcher.
//
// It is an exact port of stringmatchlen (src/util.c) as shipped in
// Redis 7.0.15, including the stringmatchlen_impl safeguards against
// abusive patterns (the skipLongerMatches short-cut and the nesting limit of
// 1000 recursive '*' expansions). It is used by KEYS, SCAN MATCH, PSUBSCRIBE,
// CONFIG GET and friends, so that HotKV answers exactly like Redis does,
// including for malformed patterns.
//
// Supported syntax (Redis's):
//
//	pattern   matches
//	-------   -------------------------------------------------------------
//	*         any sequence of bytes
//	?         exactly one byte
//	[abc]     one byte out of the set; [^abc] negates the set
//	[a-z]     one byte in the range; reversed ranges such as [z-a] are swapped
//	[\]]      inside a class, \x matches the byte x literally
//	\x        outside a class, matches the byte x literally
//
// Matching is byte oriented (no UTF-8 awareness), like Redis.
//
// Edge cases and malformed patterns behave exactly as in Redis:
//   - an empty subject never matches a non-empty pattern, not even "*"
//     (KEYS special-cases the pattern "*" itself; callers needing that must
//     do the same);
//   - an unterminated '[' class extends to the end of the pattern, so "[ab"
//     matches "a", and a trailing "[^" matches any single byte;
//   - "x-y" inside a class is a range whenever two bytes follow x, even if
//     the second one is ']' ("[a-]" is the unterminated range ']'..'a');
//   - a trailing '\' matches a literal backslash;
//   - ranges compare bytes as C signed chars, so bytes >= 0x80 sort before
//     ASCII in ranges.
package glob

// maxNesting is the recursion limit of Redis's stringmatchlen_impl: a
// pattern needing more than this many nested '*' expansions never matches.
const maxNesting = 1000

// Match reports whether s matches the glob pattern. When nocase is true,
// ASCII letters are compared case-insensitively (like C tolower in the "C"
// locale; bytes >= 0x80 are never folded).
//
// Match never allocates and never panics, for any pattern and subject.
// Its running time is bounded thanks to the same safeguards Redis 7 uses:
// patterns such as "*a*a*a*a*...b" are rejected in polynomial time, and a
// pattern that would require more than 1000 nested '*' expansions does
// not match.
//
// It is not inlined: inlined into another package, the generic match's
// escape summary is not seen and skip would move to the heap.
//
//go:noinline
func Match(pattern, s []byte, nocase bool) bool {
	skip := false
	return match(pattern, 0, s, 0, nocase, &skip, 0)
}

// MatchString is Match for strings. It does not allocate (and is not
// inlined, as Match).
//
//go:noinline
func MatchString(pattern, s string, nocase bool) bool {
	skip := false
	return match(pattern, 0, s, 0, nocase, &skip, 0)
}

// at returns b[i], or 0 past the end: the C code relies on patterns being
// NUL terminated and occasionally peeks at the terminator.
func at[T string | []byte](b T, i int) byte {
	if i < len(b) {
		return b[i]
	}
	return 0
}

// lower is C tolower() in the "C" locale.
func lower(c int) int {
	if c >= 'A' && c <= 'Z' {
		return c + ('a' - 'A')
	}
	return c
}

// schar converts a byte the way C converts a (signed) char to int on the
// platforms Redis runs on; it only matters for [x-y] ranges.
func schar(b byte) int { return int(int8(b)) }

// match is stringmatchlen_impl. pat[pi:] is the remaining pattern and
// str[si:] the remaining subject. The whole pattern is passed (rather than a
// sub-slice) because an unterminated '[' steps back one byte.
func match[T string | []byte](pat T, pi int, str T, si int, nocase bool, skipLonger *bool, nesting int) bool {
	// Protection against abusive patterns.
	if nesting > maxNesting {
		return false
	}
	plen := len(pat) - pi
	slen := len(str) - si

	for plen > 0 && slen > 0 {
		switch pat[pi] {
		case '*':
			for plen > 0 && at(pat, pi+1) == '*' {
				pi++
				plen--
			}
			if plen == 1 {
				return true // match
			}
			for slen > 0 {
				if match(pat, pi+1, str, si, nocase, skipLonger, nesting+1) {
					return true // match
				}
				if *skipLonger {
					return false // no match
				}
				si++
				slen--
			}
			// There was no match for the rest of the pattern starting
			// from anywhere in the rest of the string. If there were any
			// '*' earlier in the pattern, we can terminate the search early
			// without trying to match them to longer substrings: a longer
			// match for the earlier part would require the rest of the
			// pattern to match starting later in the string.
			*skipLonger = true
			return false // no match
		case '?':
			si++
			slen--
		case '[':
			pi++
			plen--
			not := at(pat, pi) == '^'
			if not {
				pi++
				plen--
			}
			matched := false
			for {
				if at(pat, pi) == '\\' && plen >= 2 {
					pi++
					plen--
					if pat[pi] == str[si] {
						matched = true
					}
				} else if at(pat, pi) == ']' {
					break
				} else if plen == 0 {
					pi--
					plen++
					break
				} else if plen >= 3 && at(pat, pi+1) == '-' {
					start := schar(pat[pi])
					end := schar(pat[pi+2])
					c := schar(str[si])
					if start > end {
						start, end = end, start
					}
					if nocase {
						start = lower(start)
						end = lower(end)
						c = lower(c)
					}
					pi += 2
					plen -= 2
					if c >= start && c <= end {
						matched = true
					}
				} else {
					if !nocase {
						if pat[pi] == str[si] {
							matched = true
						}
					} else if lower(int(pat[pi])) == lower(int(str[si])) {
						matched = true
					}
				}
				pi++
				plen--
			}
			if not {
				matched = !matched
			}
			if !matched {
				return false // no match
			}
			si++
			slen--
		default:
			if pat[pi] == '\\' && plen >= 2 {
				pi++
				plen--
			}
			if !nocase {
				if pat[pi] != str[si] {
					return false // no match
				}
			} else if lower(int(pat[pi])) != lower(int(str[si])) {
				return false // no match
			}
			si++
			slen--
		}
		pi++
		plen--
		if slen == 0 {
			for at(pat, pi) == '*' {
				pi++
				plen--
			}
			break
		}
	}
	return plen == 0 && slen == 0
}
