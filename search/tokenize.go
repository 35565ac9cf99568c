package search

import (
	"hash/maphash"
	"sync/atomic"
)

// separators are the bytes that end a token, as RediSearch's tokenizer has
// them: whitespace is only space and tab; a backslash escapes the next
// byte.
var separators = func() (t [256]bool) {
	for _, c := range []byte(" \t,./(){}[]:;~!@#$%^&*-=+|'`\"<>?") {
		t[c] = true
	}
	return t
}()

// minStemLength is the shortest token RediSearch stems.
const minStemLength = 4

// stemPrefix marks a stem in the term dictionary, apart from the words.
const stemPrefix = "+"

// defaultStopwords is RediSearch's default English stop-word list.
var defaultStopwords = []string{"a", "is", "the", "an", "and", "are", "as", "at", "be", "but", "by", "for",
	"if", "in", "into", "it", "no", "not", "of", "on", "or", "such", "that", "their",
	"then", "there", "these", "they", "this", "to", "was", "will", "with"}

// stopwordSet is a set of stop words.
type stopwordSet map[string]struct{}

func newStopwords(words []string) stopwordSet {
	if words == nil {
		words = defaultStopwords
	}
	s := make(stopwordSet, len(words))
	for _, w := range words {
		s[w] = struct{}{}
	}
	return s
}

func (s stopwordSet) has(w string) bool { _, ok := s[w]; return ok }

// token is one token of a text: the normalised word, its stem's term
// (stemPrefix and the stem, which may be empty; "" when it has none or it
// is the word itself) and its position (1-based, counted over all the
// TEXT fields of a document).
type token struct {
	word, stem string
	pos        uint32
	at         int // the byte offset of its raw text
}

// tokenize splits text as RediSearch's simple tokenizer does and calls
// emit for each token that is not a stop word; positions continue from
// *pos. Stems are computed in lang unless noStem (or lang has no
// stemmer).
func tokenize(text string, stop stopwordSet, lang *language, noStem bool, pos *uint32, emit func(token)) {
	noStem = noStem || lang.stem == nil
	at, whole := 0, len(text)
	for len(text) > 0 {
		at = whole - len(text)
		// The raw token runs to the next unescaped separator.
		end, escaped := len(text), false
		for i := 0; i < len(text); i++ {
			if separators[text[i]] && !escaped {
				end = i
				break
			}
			escaped = !escaped && text[i] == '\\'
		}
		raw := text[:end]
		if end < len(text) {
			text = text[end+1:]
		} else {
			text = ""
		}
		w := normalize(raw)
		if w == "" || stop.has(w) {
			continue
		}
		*pos++
		t := token{word: w, pos: *pos, at: at}
		if !noStem && len(w) >= minStemLength {
			// A stem equal to the word but for ASCII case is none;
			// greek's "πωσ" of "πως" is one.
			if s := cachedStem(lang, w); !equalFoldASCII(s, w) {
				t.stem = stemPrefix + s
			}
		}
		emit(t)
	}
}

// normalize lowercases ASCII letters and drops blanks, control characters
// and escaping backslashes, as RediSearch's default normaliser.
func normalize(raw string) string {
	clean := true
	for i := 0; i < len(raw); i++ {
		if c := raw[i]; c >= 'A' && c <= 'Z' || c == '\\' || c == ' ' || c == '\t' || c < 0x20 || c == 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return raw
	}
	b := make([]byte, 0, len(raw))
	escaped := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c >= 'A' && c <= 'Z':
			b = append(b, c+'a'-'A')
		case (c == ' ' || c == '\t') && !escaped || c < 0x20 || c == 0x7f:
		case c == '\\' && !escaped:
			escaped = true
			continue
		default:
			b = append(b, c)
		}
		escaped = false
	}
	return string(b)
}

// stemCache remembers recent stems (words repeat across documents, and
// stemming is a third of indexing): a direct-mapped table, safe for
// concurrent use (indexes are written in parallel), a collision
// replacing the entry.
var stemCache [4096]atomic.Pointer[stemEntry]

type stemEntry struct {
	lang       uint8
	word, stem string
}

var stemSeed = maphash.MakeSeed()

// cachedStem is stem, through stemCache.
func cachedStem(lang *language, word string) string {
	slot := &stemCache[(maphash.String(stemSeed, word)+uint64(lang.id))%uint64(len(stemCache))]
	if e := slot.Load(); e != nil && e.word == word && e.lang == lang.id {
		return e.stem
	}
	s := stem(lang, word)
	slot.Store(&stemEntry{lang.id, word, s})
	return s
}

// stem returns the snowball stem of word in lang (word itself when lang
// has no stemmer).
func stem(lang *language, word string) string {
	if lang.stem == nil {
		return word
	}
	return lang.stem(word)
}
