package search

import "strings"

// Double Metaphone (Lawrence Philips, 2000), as RediSearch 2.10 computes
// it for PHONETIC fields (its deps/phonetics, the Text::DoubleMetaphone
// 0.07 version with Kevin Atkinson's fixes): ASCII letters only (other
// bytes are skipped one at a time), codes of at most four characters.
// RediSearch indexes and queries the primary code only, marked with
// phoneticPrefix.
//
// The rules below follow Text::DoubleMetaphone 0.07's C (Copyright 2000,
// Maurice Aubrey; based on Lawrence Philips' C++ implementation, with
// fixes by Kevin Atkinson; free software that may be redistributed and
// modified under the same terms as Perl itself), the version RediSearch
// bundles, condensed into switches: a derived work under that licence
// until it is rewritten from Philips' published description (see
// docs/dependencies.md, "search/: provenance audit").

// phoneticPrefix marks a phonetic code in the term dictionary.
const phoneticPrefix = "<"

// minPhoneticLen: shorter words get no phonetic term when indexed.
const minPhoneticLen = 3

// phoneticTerm is word's phonetic term: its primary code, marked; ""
// when it has none.
func phoneticTerm(word string) string {
	p, _ := doubleMetaphone(word)
	if p == "" {
		return ""
	}
	return phoneticPrefix + p
}

// phoneticMode is a term's $phonetic attribute.
type phoneticMode int8

const (
	phoneticDefault phoneticMode = iota // when it may match a PHONETIC field
	phoneticOn
	phoneticOff
)

// phoneticMask is the bits of s's PHONETIC TEXT fields (0: none).
func (s *Schema) phoneticMask() uint64 {
	var m uint64
	for _, f := range s.Fields {
		if f.Type == Text && f.Phonetic {
			m |= 1 << f.textID
		}
	}
	return m
}

// phoneticExpands reports whether term node n's phonetic code is one of
// its expansions: $phonetic's choice, or by default whether n may match a
// PHONETIC field (any field, for a term of no field). As in RediSearch's
// results, the default reads the node's field mask by the fields'
// places in the schema, not their TEXT ids: a bit names the
// field at that place, whatever its type (so "@f:w" is not expanded when a
// field of another type comes before TEXT field f).
func (s *Schema) phoneticExpands(n *node) bool {
	switch n.phonetic {
	case phoneticOn:
		return true
	case phoneticOff:
		return false
	}
	if s.phoneticMask() == 0 {
		return false
	}
	if n.mask == 0 || n.mask == allFields {
		return true
	}
	for i, f := range s.Fields {
		if i < 64 && n.mask&(1<<i) != 0 && f.Type == Text && f.Phonetic {
			return true
		}
	}
	return false
}

// checkPhonetic refuses, as RediSearch's expander does, a $phonetic
// attribute on a term that can match no PHONETIC field.
func (s *Schema) checkPhonetic(n *node) error {
	if n == nil {
		return nil
	}
	if n.op == opTerm && n.expand && n.phonetic != phoneticDefault {
		m := s.phoneticMask()
		if m == 0 || n.mask != allFields && n.mask&m == 0 {
			return Error(errPhoneticField)
		}
	}
	for _, k := range n.kids {
		if err := s.checkPhonetic(k); err != nil {
			return err
		}
	}
	return nil
}

// dmWord is a word being encoded: upper-cased and padded with five
// spaces (rules look past its end), n its length before the padding.
type dmWord struct {
	s       string
	n, last int
	slavo   bool // Slavic or Germanic spelling: W, K, CZ or WITZ in it
	primary strings.Builder
	second  strings.Builder
}

// at is the byte at i (0 outside the padded word).
func (w *dmWord) at(i int) byte {
	if i < 0 || i >= len(w.s) {
		return 0
	}
	return w.s[i]
}

// has reports whether one of subs starts at i (never outside the padded
// word).
func (w *dmWord) has(i int, subs ...string) bool {
	if i < 0 || i >= len(w.s) {
		return false
	}
	for _, sub := range subs {
		if strings.HasPrefix(w.s[i:], sub) {
			return true
		}
	}
	return false
}

func (w *dmWord) vowel(i int) bool {
	switch w.at(i) {
	case 'A', 'E', 'I', 'O', 'U', 'Y':
		return true
	}
	return false
}

// add appends to the primary and secondary codes.
func (w *dmWord) add(primary, secondary string) {
	w.primary.WriteString(primary)
	w.second.WriteString(secondary)
}

// doubleMetaphone returns s's primary and secondary codes.
func doubleMetaphone(s string) (string, string) {
	up := []byte(s)
	for i, c := range up {
		if 'a' <= c && c <= 'z' {
			up[i] = c - 'a' + 'A'
		}
	}
	w := &dmWord{s: string(up) + "     ", n: len(s), last: len(s) - 1}
	w.slavo = strings.Contains(w.s, "W") || strings.Contains(w.s, "K") || strings.Contains(w.s, "CZ")
	i := 0
	if w.has(0, "GN", "KN", "PN", "WR", "PS") {
		i++ // a silent first letter
	}
	if w.at(0) == 'X' { // Xavier
		w.add("S", "S")
		i++
	}
	for (w.primary.Len() < 4 || w.second.Len() < 4) && i < w.n {
		i = w.step(i)
	}
	p, q := w.primary.String(), w.second.String()
	return p[:min(len(p), 4)], q[:min(len(q), 4)]
}

// step encodes the sound that starts at i and returns where the next
// one starts.
func (w *dmWord) step(i int) int {
	c := w.at(i)
	switch c {
	case 'A', 'E', 'I', 'O', 'U', 'Y':
		if i == 0 { // a first vowel is A
			w.add("A", "A")
		}
		return i + 1
	case 'B':
		w.add("P", "P")
		return i + 1 + b2int(w.at(i+1) == 'B')
	case 'C':
		return w.stepC(i)
	case 'D':
		switch {
		case w.has(i, "DG") && w.has(i+2, "I", "E", "Y"): // edge
			w.add("J", "J")
			return i + 3
		case w.has(i, "DG"): // edgar
			w.add("TK", "TK")
			return i + 2
		case w.has(i, "DT", "DD"):
			w.add("T", "T")
			return i + 2
		}
		w.add("T", "T")
		return i + 1
	case 'F', 'K', 'N', 'Q', 'V':
		code := string(c) // a double letter counts once
		switch c {
		case 'Q':
			code = "K"
		case 'V':
			code = "F"
		}
		w.add(code, code)
		return i + 1 + b2int(w.at(i+1) == c)
	case 'G':
		return w.stepG(i)
	case 'H':
		// Kept first or between vowels, before a vowel.
		if (i == 0 || w.vowel(i-1)) && w.vowel(i+1) {
			w.add("H", "H")
			return i + 2
		}
		return i + 1
	case 'J':
		return w.stepJ(i)
	case 'L':
		if w.at(i+1) == 'L' {
			// Spanish: cabrillo, gallegos.
			if i == w.n-3 && w.has(i-1, "ILLO", "ILLA", "ALLE") ||
				(w.has(w.last-1, "AS", "OS") || w.has(w.last, "A", "O")) && w.has(i-1, "ALLE") {
				w.add("L", "")
				return i + 2
			}
			w.add("L", "L")
			return i + 2
		}
		w.add("L", "L")
		return i + 1
	case 'M':
		w.add("M", "M")
		// dumb, thumb
		if w.has(i-1, "UMB") && (i+1 == w.last || w.has(i+2, "ER")) || w.at(i+1) == 'M' {
			return i + 2
		}
		return i + 1
	case 'P':
		if w.at(i+1) == 'H' {
			w.add("F", "F")
			return i + 2
		}
		w.add("P", "P")
		return i + 1 + b2int(w.has(i+1, "P", "B")) // campbell, raspberry
	case 'R':
		// French: rogier, but not hochmeier.
		if i == w.last && !w.slavo && w.has(i-2, "IE") && !w.has(i-4, "ME", "MA") {
			w.add("", "R")
		} else {
			w.add("R", "R")
		}
		return i + 1 + b2int(w.at(i+1) == 'R')
	case 'S':
		return w.stepS(i)
	case 'T':
		switch {
		case w.has(i, "TION"):
			w.add("X", "X")
			return i + 3
		case w.has(i, "TIA", "TCH"):
			w.add("X", "X")
			return i + 3
		case w.has(i, "TH", "TTH"):
			// thomas, thames, or Germanic
			if w.has(i+2, "OM", "AM") || w.has(0, "VAN ", "VON ", "SCH") {
				w.add("T", "T")
			} else {
				w.add("0", "T")
			}
			return i + 2
		}
		w.add("T", "T")
		return i + 1 + b2int(w.has(i+1, "T", "D"))
	case 'W':
		return w.stepW(i)
	case 'X':
		// French: breaux
		if !(i == w.last && (w.has(i-3, "IAU", "EAU") || w.has(i-2, "AU", "OU"))) {
			w.add("KS", "KS")
		}
		return i + 1 + b2int(w.has(i+1, "C", "X"))
	case 'Z':
		if w.at(i+1) == 'H' { // pinyin: zhao
			w.add("J", "J")
			return i + 2
		}
		if w.has(i+1, "ZO", "ZI", "ZA") || w.slavo && i > 0 && w.at(i-1) != 'T' {
			w.add("S", "TS")
		} else {
			w.add("S", "S")
		}
		return i + 1 + b2int(w.at(i+1) == 'Z')
	}
	return i + 1
}

func (w *dmWord) stepC(i int) int {
	switch {
	case i > 1 && !w.vowel(i-2) && w.has(i-1, "ACH") && w.at(i+2) != 'I' &&
		(w.at(i+2) != 'E' || w.has(i-2, "BACHER", "MACHER")): // Germanic
		w.add("K", "K")
		return i + 2
	case i == 0 && w.has(i, "CAESAR"):
		w.add("S", "S")
		return i + 2
	case w.has(i, "CHIA"): // chianti
		w.add("K", "K")
		return i + 2
	case w.has(i, "CH"):
		switch {
		case i > 0 && w.has(i, "CHAE"): // michael
			w.add("K", "X")
		case i == 0 && (w.has(i+1, "HARAC", "HARIS") || w.has(i+1, "HOR", "HYM", "HIA", "HEM")) && !w.has(0, "CHORE"):
			w.add("K", "K") // Greek roots: chemistry, chorus
		case w.has(0, "VAN ", "VON ", "SCH") || w.has(i-2, "ORCHES", "ARCHIT", "ORCHID") || w.has(i+2, "T", "S") ||
			(w.has(i-1, "A", "O", "U", "E") || i == 0) && w.has(i+2, "L", "R", "N", "M", "B", "H", "F", "V", "W", " "):
			w.add("K", "K") // Germanic, Greek, 'kh'
		case i > 0 && w.has(0, "MC"): // McHugh
			w.add("K", "K")
		case i > 0:
			w.add("X", "K")
		default:
			w.add("X", "X")
		}
		return i + 2
	case w.has(i, "CZ") && !w.has(i-2, "WICZ"): // czerny
		w.add("S", "X")
		return i + 2
	case w.has(i+1, "CIA"): // focaccia
		w.add("X", "X")
		return i + 3
	case w.has(i, "CC") && !(i == 1 && w.at(0) == 'M'): // not McClellan
		if w.has(i+2, "I", "E", "H") && !w.has(i+2, "HU") { // bellocchio, not bacchus
			if i == 1 && w.at(i-1) == 'A' || w.has(i-1, "UCCEE", "UCCES") { // accident, succeed
				w.add("KS", "KS")
			} else {
				w.add("X", "X")
			}
			return i + 3
		}
		w.add("K", "K") // Pierce's rule
		return i + 2
	case w.has(i, "CK", "CG", "CQ"):
		w.add("K", "K")
		return i + 2
	case w.has(i, "CI", "CE", "CY"):
		if w.has(i, "CIO", "CIE", "CIA") { // Italian
			w.add("S", "X")
		} else {
			w.add("S", "S")
		}
		return i + 2
	}
	w.add("K", "K")
	switch {
	case w.has(i+1, " C", " Q", " G"): // mac caffrey, mac gregor
		return i + 3
	case w.has(i+1, "C", "K", "Q") && !w.has(i+1, "CE", "CI"):
		return i + 2
	}
	return i + 1
}

func (w *dmWord) stepG(i int) int {
	if w.at(i+1) == 'H' {
		switch {
		case i > 0 && !w.vowel(i-1):
			w.add("K", "K")
		case i == 0: // ghislane, ghiradelli
			if w.at(i+2) == 'I' {
				w.add("J", "J")
			} else {
				w.add("K", "K")
			}
		// Parker's rule: hugh, bough, broughton.
		case i > 1 && w.has(i-2, "B", "H", "D") || i > 2 && w.has(i-3, "B", "H", "D") || i > 3 && w.has(i-4, "B", "H"):
		case i > 2 && w.at(i-1) == 'U' && w.has(i-3, "C", "G", "L", "R", "T"): // laugh, cough, rough
			w.add("F", "F")
		case i > 0 && w.at(i-1) != 'I':
			w.add("K", "K")
		}
		return i + 2
	}
	if w.at(i+1) == 'N' {
		switch {
		case i == 1 && w.vowel(0) && !w.slavo:
			w.add("KN", "N")
		case !w.has(i+2, "EY") && w.at(i+1) != 'Y' && !w.slavo: // not cagney
			w.add("N", "KN")
		default:
			w.add("KN", "KN")
		}
		return i + 2
	}
	switch {
	case w.has(i+1, "LI") && !w.slavo: // tagliaro
		w.add("KL", "L")
		return i + 2
	case i == 0 && (w.at(i+1) == 'Y' || w.has(i+1, "ES", "EP", "EB", "EL", "EY", "IB", "IL", "IN", "IE", "EI", "ER")):
		w.add("K", "J")
		return i + 2
	case (w.has(i+1, "ER") || w.at(i+1) == 'Y') && !w.has(0, "DANGER", "RANGER", "MANGER") &&
		!w.has(i-1, "E", "I") && !w.has(i-1, "RGY", "OGY"): // -ger-, -gy-
		w.add("K", "J")
		return i + 2
	case w.has(i+1, "E", "I", "Y") || w.has(i-1, "AGGI", "OGGI"): // Italian: biaggi
		switch {
		case w.has(0, "VAN ", "VON ", "SCH") || w.has(i+1, "ET"): // Germanic
			w.add("K", "K")
		case w.has(i+1, "IER "): // a French ending
			w.add("J", "J")
		default:
			w.add("J", "K")
		}
		return i + 2
	}
	w.add("K", "K")
	return i + 1 + b2int(w.at(i+1) == 'G')
}

func (w *dmWord) stepJ(i int) int {
	if w.has(i, "JOSE") || w.has(0, "SAN ") { // Spanish: jose, san jacinto
		if i == 0 && w.at(i+4) == ' ' || w.has(0, "SAN ") {
			w.add("H", "H")
		} else {
			w.add("J", "H")
		}
		return i + 1
	}
	switch {
	case i == 0:
		w.add("J", "A") // Yankelovich, Jankelowicz
	case w.vowel(i-1) && !w.slavo && (w.at(i+1) == 'A' || w.at(i+1) == 'O'): // bajador
		w.add("J", "H")
	case i == w.last:
		w.add("J", "")
	case !w.has(i+1, "L", "T", "K", "S", "N", "M", "B", "Z") && !w.has(i-1, "S", "K", "L"):
		w.add("J", "J")
	}
	return i + 1 + b2int(w.at(i+1) == 'J')
}

func (w *dmWord) stepS(i int) int {
	switch {
	case w.has(i-1, "ISL", "YSL"): // island, isle, carlisle
		return i + 1
	case i == 0 && w.has(i, "SUGAR"):
		w.add("X", "S")
		return i + 1
	case w.has(i, "SH"):
		if w.has(i+1, "HEIM", "HOEK", "HOLM", "HOLZ") { // Germanic
			w.add("S", "S")
		} else {
			w.add("X", "X")
		}
		return i + 2
	case w.has(i, "SIO", "SIA", "SIAN"): // Italian, Armenian
		if w.slavo {
			w.add("S", "S")
		} else {
			w.add("S", "X")
		}
		return i + 3
	case i == 0 && w.has(i+1, "M", "N", "L", "W") || w.has(i+1, "Z"):
		// smith and schmidt, snider and schneider; Slavic -sz-
		w.add("S", "X")
		return i + 1 + b2int(w.has(i+1, "Z"))
	case w.has(i, "SC"):
		switch {
		case w.at(i+2) == 'H' && w.has(i+3, "ER", "EN"): // schermerhorn, schenker
			w.add("X", "SK")
		case w.at(i+2) == 'H' && w.has(i+3, "OO", "UY", "ED", "EM"): // Dutch: school
			w.add("SK", "SK")
		case w.at(i+2) == 'H' && i == 0 && !w.vowel(3) && w.at(3) != 'W':
			w.add("X", "S")
		case w.at(i+2) == 'H':
			w.add("X", "X")
		case w.has(i+2, "I", "E", "Y"):
			w.add("S", "S")
		default:
			w.add("SK", "SK")
		}
		return i + 3
	}
	if i == w.last && w.has(i-2, "AI", "OI") { // French: resnais, artois
		w.add("", "S")
	} else {
		w.add("S", "S")
	}
	return i + 1 + b2int(w.has(i+1, "S", "Z"))
}

func (w *dmWord) stepW(i int) int {
	if w.has(i, "WR") {
		w.add("R", "R")
		return i + 2
	}
	if i == 0 && (w.vowel(i+1) || w.has(i, "WH")) {
		if w.vowel(i + 1) { // Wasserman and Vasserman
			w.add("A", "F")
		} else { // Uomo and Womo
			w.add("A", "A")
		}
	}
	switch {
	case i == w.last && w.vowel(i-1) || w.has(i-1, "EWSKI", "EWSKY", "OWSKI", "OWSKY") || w.has(0, "SCH"):
		w.add("", "F") // Arnow and Arnoff
		return i + 1
	case w.has(i, "WICZ", "WITZ"): // Polish: filipowicz
		w.add("TS", "FX")
		return i + 4
	}
	return i + 1
}

func b2int(b bool) int {
	if b {
		return 1
	}
	return 0
}
