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

	"github.com/hotkv/hotkv/third_party/snowball"
	"github.com/hotkv/hotkv/third_party/snowball/armenian"
	"github.com/hotkv/hotkv/third_party/snowball/basque"
	"github.com/hotkv/hotkv/third_party/snowball/catalan"
	"github.com/hotkv/hotkv/third_party/snowball/greek"
	"github.com/hotkv/hotkv/third_party/snowball/hindi"
	"github.com/hotkv/hotkv/third_party/snowball/indonesian"
	"github.com/hotkv/hotkv/third_party/snowball/lithuanian"
	"github.com/hotkv/hotkv/third_party/snowball/nepali"
	"github.com/hotkv/hotkv/third_party/snowball/serbian"
	"github.com/hotkv/hotkv/third_party/snowball/yiddish"
)

// Languages: RediSearch 2.10 stems a document's and a query's words with
// libstemmer's UTF-8 snowball stemmer of their language (Snowball 2.1.0).
// HotKV has those of github.com/blevesearch/snowballstem for 18 of them,
// generated from the same snowball sources: their stems are RediSearch's
// (compared on thousands of words per language), but for French words
// with "ë", which the newer snowball French stemmer RediSearch has treats
// as a vowel. The other ten (armenian, basque, catalan, greek, hindi,
// indonesian, lithuanian, nepali, serbian, yiddish) are generated from
// Snowball 2.1.0 itself into third_party/snowball. Chinese, which
// RediSearch splits with a tokenizer of its own, is refused by FT.CREATE
// and FT.SEARCH.
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

// bleveStem and snowballStem make a stemmer of a generated Stem function
// of either runtime.
func bleveStem(f func(*snowballstem.Env) bool) func(string) string {
	return func(w string) string {
		env := snowballstem.NewEnv(w)
		f(env)
		return env.Current()
	}
}

func snowballStem(f func(*snowball.Env) bool) func(string) string {
	return func(w string) string {
		env := snowball.NewEnv(w)
		f(env)
		return env.Current()
	}
}

// languages are those RediSearch 2.10's LANGUAGE accepts.
var languages = func() []*language {
	stemmers := map[string]func(string) string{}
	for n, f := range map[string]func(*snowballstem.Env) bool{
		"arabic": arabic.Stem, "danish": danish.Stem, "dutch": dutch.Stem, "english": english.Stem,
		"finnish": finnish.Stem, "french": french.Stem, "german": german.Stem, "hungarian": hungarian.Stem,
		"irish": irish.Stem, "italian": italian.Stem, "norwegian": norwegian.Stem,
		"portuguese": portuguese.Stem, "romanian": romanian.Stem, "russian": russian.Stem,
		"spanish": spanish.Stem, "swedish": swedish.Stem, "tamil": tamil.Stem, "turkish": turkish.Stem,
	} {
		stemmers[n] = bleveStem(f)
	}
	for n, f := range map[string]func(*snowball.Env) bool{
		"armenian": armenian.Stem, "basque": basque.Stem, "catalan": catalan.Stem, "greek": greek.Stem,
		"hindi": hindi.Stem, "indonesian": indonesian.Stem, "lithuanian": lithuanian.Stem,
		"nepali": nepali.Stem, "serbian": serbian.Stem, "yiddish": yiddish.Stem,
	} {
		stemmers[n] = snowballStem(f)
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
