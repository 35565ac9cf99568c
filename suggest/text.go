package suggest

import (
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
)

// A dictionary's text is a sequence of 16-bit units (see the package
// comment). This file converts between bytes and units and folds units.

// units decodes b into 16-bit units, appending to dst. A lead byte below
// 0x80 is a unit of its own; one below 0xE0 starts a 2-byte sequence, below
// 0xF0 a 3-byte one, else a 4-byte one. The lead keeps its low 5, 4 or 3
// bits and each following byte its low 6 bits, whatever it is; a sequence
// cut short by the end reads zeros. The code point keeps its low 16 bits.
// Decoding stops at a code point of 0 (a NUL byte, or a sequence that
// decodes to 0); a code point such as U+10000 whose low bits are 0 is kept
// as a 0 unit.
func units(dst []uint16, b []byte) []uint16 {
	at := func(i int) uint32 {
		if i < len(b) {
			return uint32(b[i]) & 0x3f
		}
		return 0
	}
	for i := 0; i < len(b); {
		c := uint32(b[i])
		switch {
		case c < 0x80:
			i++
		case c < 0xe0:
			c = (c&0x1f)<<6 | at(i+1)
			i += 2
		case c < 0xf0:
			c = (c&0x0f)<<12 | at(i+1)<<6 | at(i+2)
			i += 3
		default:
			c = (c&0x07)<<18 | at(i+1)<<12 | at(i+2)<<6 | at(i+3)
			i += 4
		}
		if c == 0 {
			break
		}
		dst = append(dst, uint16(c))
	}
	return dst
}

// text encodes units as UTF-8 up to the first 0 unit: what a reply shows.
// Surrogate units are written as their 3-byte form.
func text(us []uint16) []byte {
	b := make([]byte, 0, len(us)*2)
	for _, u := range us {
		switch {
		case u == 0:
			return b
		case u < 0x80:
			b = append(b, byte(u))
		case u < 0x800:
			b = append(b, 0xc0|byte(u>>6), 0x80|byte(u&0x3f))
		default:
			b = append(b, 0xe0|byte(u>>12), 0x80|byte(u>>6&0x3f), 0x80|byte(u&0x3f))
		}
	}
	return b
}

// foldTable maps each unit to its folded form, built on first use.
var (
	foldOnce  sync.Once
	foldTable *[1 << 16]uint16
)

// buildFoldTable folds every BMP code point with Unicode's full case
// folding (golang.org/x/text/cases) and keeps the first code point of the
// result: "ß" folds to "s", "İ" to "i", "ς" to "σ", "ﬁ" to "f". Cherokee
// letters fold to their capitals, as Unicode's CaseFolding.txt has it.
func buildFoldTable() {
	t := new([1 << 16]uint16)
	c := cases.Fold()
	var buf [4]byte
	for u := range t {
		t[u] = uint16(u)
		r := rune(u)
		if r < 0x80 {
			t[u] = uint16(unicode.ToLower(r))
			continue
		}
		if utf8.ValidRune(r) {
			n := utf8.EncodeRune(buf[:], r)
			f, _ := utf8.DecodeRune(c.Bytes(buf[:n]))
			if unicode.Is(unicode.Cherokee, f) && unicode.IsLower(f) {
				f = unicode.ToUpper(f)
			}
			if f != utf8.RuneError && f <= 0xffff {
				t[u] = uint16(f)
			}
		}
	}
	foldTable = t
}

// foldUnits returns us folded, unit by unit, in a new slice.
func foldUnits(us []uint16) []uint16 {
	foldOnce.Do(buildFoldTable)
	out := make([]uint16, len(us))
	for i, u := range us {
		out[i] = foldTable[u]
	}
	return out
}

// keyOf writes units as a string of big-endian pairs, so that strings
// compare as their units do.
func keyOf(us []uint16) string {
	b := make([]byte, 2*len(us))
	for i, u := range us {
		b[2*i], b[2*i+1] = byte(u>>8), byte(u)
	}
	return string(b)
}
