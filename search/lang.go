package search

import (
	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/arabic"
	"github.com/blevesearch/snowballstem/danish"
	"github.com/blevesearch/snowballstem/dutch"
	"github.com/blevesearch/snowballstem/english"
	"github.com/blevesearch/snowballstem/finnish"
	"github.com/blevesearch/snowballstem/french"
	"github.com/blevesearch/snowballstem/german"
	"github.com/blevesearch/snowballstem/hungarian"
	"github.com/blevesearch/snowballstem/irish"
	"github.com/blevesearch/snowballstem/italian"
	"github.com/blevesearch/snowballstem/norwegian"
	"github.com/blevesearch/snowballstem/portuguese"
	"github.com/blevesearch/snowballstem/romanian"
	"github.com/blevesearch/snowballstem/russian"
	"github.com/blevesearch/snowballstem/spanish"
	"github.com/blevesearch/snowballstem/swedish"
	"github.com/blevesearch/snowballstem/tamil"
	"github.com/blevesearch/snowballstem/turkish"
)

// Languages: RediSearch 2.10 stems a document's and a query's words with
// libstemmer's UTF-8 snowball stemmer of their language. HotKV has those
// of github.com/blevesearch/snowballstem, generated from the same
// snowball sources: their stems are RediSearch's (compared on thousands
// of words per language), but for French words with "ë", which the newer
// snowball French stemmer RediSearch has treats as a vowel. RediSearch's
// other languages (armenian, basque, catalan, greek, hindi, indonesian,
// lithuanian, nepali, serbian, yiddish: no stemmer here; chinese: a
// tokenizer of its own) are refused by FT.CREATE and FT.SEARCH.
// Whatever the language, the stop words are the index's (the English
// default list unless STOPWORDS), and only ASCII letters are lowercased,
// as in RediSearch.

// A language is one of RediSearch's languages: its name and its stemmer
// (nil where HotKV has none).
type language struct {
	id   uint8
	name string
	stem func(*snowballstem.Env) bool
}

// languages are those RediSearch 2.10's LANGUAGE accepts.
var languages = func() []*language {
	stemmers := map[string]func(*snowballstem.Env) bool{
		"arabic": arabic.Stem, "danish": danish.Stem, "dutch": dutch.Stem, "english": english.Stem,
		"finnish": finnish.Stem, "french": french.Stem, "german": german.Stem, "hungarian": hungarian.Stem,
		"irish": irish.Stem, "italian": italian.Stem, "norwegian": norwegian.Stem,
		"portuguese": portuguese.Stem, "romanian": romanian.Stem, "russian": russian.Stem,
		"spanish": spanish.Stem, "swedish": swedish.Stem, "tamil": tamil.Stem, "turkish": turkish.Stem,
	}
	var out []*language
	for i, n := range []string{"arabic", "armenian", "basque", "catalan", "chinese", "danish", "dutch", "english",
		"finnish", "french", "german", "greek", "hindi", "hungarian", "indonesian", "irish", "italian",
		"lithuanian", "nepali", "norwegian", "portuguese", "romanian", "russian", "serbian", "spanish",
		"swedish", "tamil", "turkish", "yiddish"} {
		out = append(out, &language{id: uint8(i), name: n, stem: stemmers[n]})
	}
	return out
}()

// findLanguage returns the language named l (in any case), or nil.
func findLanguage(l string) *language {
	for _, k := range languages {
		if len(k.name) == len(l) && equalFoldASCII(k.name, l) {
			return k
		}
	}
	return nil
}

func knownLanguage(l string) bool { return findLanguage(l) != nil }

// englishLanguage is the default language.
var englishLanguage = findLanguage("english")

func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
