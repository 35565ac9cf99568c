package suggest

import "sort"

// Strings become runes as RediSearch's trie makes them (src/trie/rune_util.c
// and libnu): 16-bit runes (a code point above U+FFFF keeps its low 16
// bits), decoded by libnu's reader, which does not validate (a lead byte
// below 0xE0 reads two bytes, below 0xF0 three, else four; a continuation
// byte leads a pair), and ending at the first decoded NUL. Bytes a
// truncated sequence reads past the end of the string read as 0 (RediSearch
// reads the string's terminator and what follows it in memory).

// rune16 is RediSearch's rune: uint16 (it is built without TRIE_32BIT_RUNES).
type rune16 = uint16

// byteAt is s[i], 0 past the end.
func byteAt(s []byte, i int) uint32 {
	if i < len(s) {
		return uint32(s[i])
	}
	return 0
}

// readUTF8 is libnu's nu_utf8_read: the code point at s[i:] and the offset
// after it.
func readUTF8(s []byte, i int) (uint32, int) {
	c := byteAt(s, i)
	switch {
	case c < 0x80:
		return c, i + 1
	case c < 0xE0:
		return (c&0x1C)<<6 | (c&0x03)<<6 | byteAt(s, i+1)&0x3F, i + 2
	case c < 0xF0:
		b1, b2 := byteAt(s, i+1), byteAt(s, i+2)
		return (c&0x0F)<<12 | (b1&0x3C)<<6 | (b1&0x03)<<6 | b2&0x3F, i + 3
	default:
		b1, b2, b3 := byteAt(s, i+1), byteAt(s, i+2), byteAt(s, i+3)
		return (c&0x07)<<18 | (b1&0x30)<<12 | (b1&0x0F)<<12 | (b2&0x3C)<<6 | (b2&0x03)<<6 | b3&0x3F, i + 4
	}
}

// toRunes is strToRunesN: s's runes, up to its first NUL.
func toRunes(s []byte) []rune16 {
	out := make([]rune16, 0, len(s))
	for i := 0; i < len(s); {
		cp, next := readUTF8(s, i)
		if cp == 0 {
			break
		}
		out = append(out, rune16(cp))
		i = next
	}
	return out
}

// toFoldedRunes is strToFoldedRunes: s's code points, each case-folded and
// then cut to 16 bits, up to its first NUL.
func toFoldedRunes(s []byte) []rune16 {
	out := make([]rune16, 0, len(s))
	for i := 0; i < len(s); {
		cp, next := readUTF8(s, i)
		if cp == 0 {
			break
		}
		out = append(out, rune16(fold(cp)))
		i = next
	}
	return out
}

// fold is libnu's case folding as RediSearch's __fold uses it: the first
// code point of cp's full folding, or cp.
func fold(cp uint32) uint32 {
	i := sort.Search(len(foldTable), func(i int) bool { return foldTable[i][0] >= cp })
	if i < len(foldTable) && foldTable[i][0] == cp {
		return foldTable[i][1]
	}
	return cp
}

// runesToString is runesToStr: libnu's UTF-8 writer, which writes a
// surrogate as three bytes like any other rune, up to the first rune 0 (a
// code point U+10000 cut to 16 bits).
func runesToString(rs []rune16) []byte {
	out := make([]byte, 0, len(rs))
	for _, r := range rs {
		switch {
		case r == 0:
			return out
		case r < 0x80:
			out = append(out, byte(r))
		case r < 0x800:
			out = append(out, byte(0xC0|r>>6), byte(0x80|r&0x3F))
		default:
			out = append(out, byte(0xE0|r>>12), byte(0x80|(r>>6)&0x3F), byte(0x80|r&0x3F))
		}
	}
	return out
}
