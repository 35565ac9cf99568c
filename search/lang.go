package search

import (
	"github.com/hotkv/hotkv/third_party/snowball"
	"github.com/hotkv/hotkv/third_party/snowball/arabic"
	"github.com/hotkv/hotkv/third_party/snowball/armenian"
	"github.com/hotkv/hotkv/third_party/snowball/basque"
	"github.com/hotkv/hotkv/third_party/snowball/catalan"
	"github.com/hotkv/hotkv/third_party/snowball/danish"
	"github.com/hotkv/hotkv/third_party/snowball/dutch"
	"github.com/hotkv/hotkv/third_party/snowball/english"
	"github.com/hotkv/hotkv/third_party/snowball/finnish"
	"github.com/hotkv/hotkv/third_party/snowball/french"
	"github.com/hotkv/hotkv/third_party/snowball/german"
	"github.com/hotkv/hotkv/third_party/snowball/greek"
	"github.com/hotkv/hotkv/third_party/snowball/hindi"
	"github.com/hotkv/hotkv/third_party/snowball/hungarian"
	"github.com/hotkv/hotkv/third_party/snowball/indonesian"
	"github.com/hotkv/hotkv/third_party/snowball/irish"
	"github.com/hotkv/hotkv/third_party/snowball/italian"
	"github.com/hotkv/hotkv/third_party/snowball/lithuanian"
	"github.com/hotkv/hotkv/third_party/snowball/nepali"
	"github.com/hotkv/hotkv/third_party/snowball/norwegian"
	"github.com/hotkv/hotkv/third_party/snowball/portuguese"
	"github.com/hotkv/hotkv/third_party/snowball/romanian"
	"github.com/hotkv/hotkv/third_party/snowball/russian"
	"github.com/hotkv/hotkv/third_party/snowball/serbian"
	"github.com/hotkv/hotkv/third_party/snowball/spanish"
	"github.com/hotkv/hotkv/third_party/snowball/swedish"
	"github.com/hotkv/hotkv/third_party/snowball/tamil"
	"github.com/hotkv/hotkv/third_party/snowball/turkish"
	"github.com/hotkv/hotkv/third_party/snowball/yiddish"
)

// Languages: RediSearch 2.10 stems a document's and a query's words with
// libstemmer's UTF-8 snowball stemmer of their language (Snowball 2.1.0;
// "english" is Porter2). HotKV's stemmers are generated from the same
// Snowball 2.1.0 sources into third_party/snowball, so their stems are
// RediSearch's (compared on thousands of words per language,
// testdata/stems.txt). Chinese, which RediSearch splits with a tokenizer
// of its own, is refused by FT.CREATE and FT.SEARCH.
// Whatever the language, the stop words are the index's (the English
// default list unless STOPWORDS), and only ASCII letters are lowercased,
// as in RediSearch.

// A language is one of RediSearch's languages: its name and its stemmer,
// which returns a word's stem (nil where HotKV has none).
type language struct {
	id   uint8
	name string
	stem func(word string) string
}

// snowballStem makes a stemmer of a generated Stem function.
func snowballStem(f func(*snowball.Env) bool) func(string) string {
	return func(w string) string {
		env := snowball.NewEnv(w)
		f(env)
		return env.Current()
	}
}

// languages are those RediSearch 2.10's LANGUAGE accepts.
var languages = func() []*language {
	stemmers := map[string]func(*snowball.Env) bool{
		"arabic": arabic.Stem, "armenian": armenian.Stem, "basque": basque.Stem, "catalan": catalan.Stem,
		"danish": danish.Stem, "dutch": dutch.Stem, "english": english.Stem, "finnish": finnish.Stem,
		"french": french.Stem, "german": german.Stem, "greek": greek.Stem, "hindi": hindi.Stem,
		"hungarian": hungarian.Stem, "indonesian": indonesian.Stem, "irish": irish.Stem,
		"italian": italian.Stem, "lithuanian": lithuanian.Stem, "nepali": nepali.Stem,
		"norwegian": norwegian.Stem, "portuguese": portuguese.Stem, "romanian": romanian.Stem,
		"russian": russian.Stem, "serbian": serbian.Stem, "spanish": spanish.Stem, "swedish": swedish.Stem,
		"tamil": tamil.Stem, "turkish": turkish.Stem, "yiddish": yiddish.Stem,
	}
	var out []*language
	for i, n := range []string{"arabic", "armenian", "basque", "catalan", "chinese", "danish", "dutch", "english",
		"finnish", "french", "german", "greek", "hindi", "hungarian", "indonesian", "irish", "italian",
		"lithuanian", "nepali", "norwegian", "portuguese", "romanian", "russian", "serbian", "spanish",
		"swedish", "tamil", "turkish", "yiddish"} {
		var stem func(string) string
		if f := stemmers[n]; f != nil { // chinese has none
			stem = snowballStem(f)
		}
		out = append(out, &language{id: uint8(i), name: n, stem: stem})
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
