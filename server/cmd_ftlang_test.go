package server

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/difftest"
)

// langDocs are a few sentences per language HotKV stems, with inflected
// forms of the same words, and queries over them.
var langDocs = map[string]struct {
	docs    []string
	queries []string
}{
	"german":     {[]string{"Die Häuser stehen am laufenden Band", "Ein Haus läuft nicht", "Laufende Kinder spielen im Hause"}, []string{"haus", "häuser", "laufen", "laufenden", "kinder", "kind spielen"}},
	"french":     {[]string{"Les maisons sont grandes", "Une maison grande et belle", "Nous mangeons des pommes", "il mangeait une pomme"}, []string{"maison", "maisons", "manger", "pommes", "grande", "belles"}},
	"spanish":    {[]string{"Los niños corren rápidamente", "El niño corría en la casa", "Las casas grandes"}, []string{"niño", "niños", "correr", "casa", "grandes", "rápido"}},
	"italian":    {[]string{"I ragazzi mangiano la pizza", "Il ragazzo mangiava", "Le pizze buone"}, []string{"ragazzo", "mangiare", "pizza", "buona"}},
	"portuguese": {[]string{"As meninas cantavam canções", "A menina canta", "Canções bonitas"}, []string{"menina", "cantar", "canção", "bonita"}},
	"dutch":      {[]string{"De kinderen lopen naar huis", "Het kind liep", "Huizen en lopende mensen"}, []string{"kind", "lopen", "huis", "mensen"}},
	"russian":    {[]string{"книги лежат на столе", "Я читаю книгу", "читали книги за столами"}, []string{"книга", "книги", "читать", "стол", "столами"}},
	"swedish":    {[]string{"Flickorna springer hem", "flickan sprang", "hemmen är stora"}, []string{"flicka", "springa", "hem", "stor"}},
	"norwegian":  {[]string{"Bilene kjører fort", "bilen kjørte hjem", "hjemmene"}, []string{"bil", "kjøre", "hjem"}},
	"danish":     {[]string{"Hundene løber hurtigt", "hunden løb", "hurtige hunde"}, []string{"hund", "løbe", "hurtig"}},
	"finnish":    {[]string{"Taloissa asuu ihmisiä", "talo on suuri", "ihmiset asuivat taloissa"}, []string{"talo", "ihminen", "asua", "suuri"}},
	"hungarian":  {[]string{"A házak nagyok", "házban lakom", "nagy ház"}, []string{"ház", "nagy", "lakni"}},
	"romanian":   {[]string{"Copiii aleargă acasă", "copilul alerga", "casele mari"}, []string{"copil", "alerga", "casa", "mare"}},
	"turkish":    {[]string{"Kitaplar masada duruyor", "kitabı okudum", "masalar"}, []string{"kitap", "masa", "okumak"}},
	"arabic":     {[]string{"الكتاب على الطاولة", "كتب الطالب كتابا", "الطلاب يكتبون"}, []string{"كتاب", "طالب", "يكتب"}},
	"irish":      {[]string{"Tá na leabhair ar an mbord", "leabhar maith", "boird mhóra"}, []string{"leabhar", "bord", "mór"}},
	"tamil":      {[]string{"புத்தகங்கள் மேசையில் உள்ளன", "புத்தகம் படித்தேன்"}, []string{"புத்தகம்", "மேசை", "படி"}},
	"english":    {[]string{"The runners were running", "a runner runs", "ran quickly"}, []string{"run", "running", "runner", "quick"}},
	// Snowball 2.1.0's stemmers (third_party/snowball); "ήσουν" and
	// "εώς" stem to the empty string, "πως" to "πωσ" (a stem only
	// Unicode case folding equals to the word).
	"armenian":   {[]string{"հաստատել հետևակը", "հաստատելը տեսական", "հետևակի տեսականին"}, []string{"հաստատ", "հետևակին", "տեսա", "հաստատելն"}},
	"basque":     {[]string{"lagunak agindu", "aginduak lagundu", "lagunari arrakasta"}, []string{"lagundua", "aginduen", "arrakastaren", "lagunduko"}},
	"catalan":    {[]string{"serveix utilitat", "serveixen utilitats", "utilitari serva"}, []string{"serveixi", "utilitarisme", "serveixin"}},
	"greek":      {[]string{"φοράει βάρος", "φοράνε βάρους ήσουν πως", "κυρίαρχη εώς"}, []string{"φορά", "βάρη", "κυρίαρχο", "ήσουν", "εώς", "πως"}},
	"hindi":      {[]string{"पढ़ता उठकर", "पढ़ती पहुँचता", "उठना पहुँचकर"}, []string{"पढ़ना", "उठते", "पहुँचती"}},
	"indonesian": {[]string{"berdekatan bergambar", "diganti dekatnya", "berlanjut digambarkan"}, []string{"didekati", "gambar", "bergantian", "dilanjutkan"}},
	"lithuanian": {[]string{"greitai veikdamas", "greita žalia", "veikas žaliai"}, []string{"greitais", "veika", "žali"}},
	"nepali":     {[]string{"जुट्छन् हुर्कदा", "जुट्छु गाइएको", "हुर्किएका गाइछ"}, []string{"जुट्छे", "हुर्कदो", "गाइएका"}},
	"serbian":    {[]string{"hladna depresivan", "hladni ekskluzivna", "depresivne ekskluzivni"}, []string{"hladnih", "depresivna", "ekskluzivnija"}},
	"yiddish":    {[]string{"געטאַפּט געפּאַרקטן", "געטאַפּטע געפֿאָרשט", "געפּאַרקטס געפֿאָרשטער"}, []string{"געטאַפּטן", "געפּאַרקט", "געפֿאָרשטע"}},
}

// TestFTLanguageLikeRediSearch: an index per language stems its documents
// and queries in that language (FT.SEARCH's scores, FT.EXPLAIN's
// expansions, FT.INFO); FT.SEARCH's LANGUAGE stems a query in another
// language than the index's.
func TestFTLanguageLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	langs := slices.Sorted(maps.Keys(langDocs))
	for _, lang := range langs {
		p.DoArgs("FT.CREATE", "i_"+lang, "LANGUAGE", strings.ToUpper(lang[:1])+lang[1:], "PREFIX", "1", lang+":", "SCHEMA", "t", "TEXT", "u", "TEXT", "NOSTEM")
		waitIndexed(t, p.Redis, "i_"+lang)
	}
	for _, lang := range langs {
		l := langDocs[lang]
		for i, d := range l.docs {
			p.DoArgs("HSET", lang+":"+string(rune('a'+i)), "t", d, "u", d)
		}
	}
	for _, lang := range langs {
		l := langDocs[lang]
		for _, q := range l.queries {
			for _, dialect := range []string{"1", "2"} {
				p.DoArgs("FT.SEARCH", "i_"+lang, q, "WITHSCORES", "NOCONTENT", "DIALECT", dialect)
			}
			p.DoArgs("FT.SEARCH", "i_"+lang, "@u:"+q, "WITHSCORES", "NOCONTENT")
			p.DoArgs("FT.SEARCH", "i_"+lang, q, "WITHSCORES", "SCORER", "BM25", "RETURN", "1", "t")
			p.DoArgs("FT.EXPLAIN", "i_"+lang, q)
			// The query in English, and the English index queried in
			// the language.
			p.DoArgs("FT.SEARCH", "i_"+lang, q, "WITHSCORES", "NOCONTENT", "LANGUAGE", "english")
			p.DoArgs("FT.SEARCH", "i_english", q, "WITHSCORES", "LANGUAGE", lang)
			p.DoArgs("FT.EXPLAIN", "i_english", q, "LANGUAGE", lang)
		}
		p.DoArgs("FT.AGGREGATE", "i_"+lang, l.queries[0], "LOAD", "1", "@t")
		compareFTInfo(t, p, "i_"+lang)
	}
	// Stop words are the English default list whatever the language.
	p.Run(`
FT.CREATE sw LANGUAGE german PREFIX 1 sw: SCHEMA t TEXT
HSET sw:1 t "der die und the Häuser"
FT.SEARCH sw und
FT.SEARCH sw the
FT.SEARCH sw der WITHSCORES
FT.EXPLAIN sw "the und Häuser"
`)
	resp3(p)
	p.Run(`FT.SEARCH i_german häuser WITHSCORES`)
}

// TestFTLanguageFieldLikeRediSearch: LANGUAGE_FIELD stems each document
// in the language its field names (any case), the default for a missing
// or unknown one.
func TestFTLanguageFieldLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	p.Run(`
FT.CREATE lf LANGUAGE_FIELD lang LANGUAGE french SCHEMA t TEXT lang TAG
HSET d:1 t "Die Häuser laufen" lang german
HSET d:2 t "Les maisons grandes" lang FRENCH
HSET d:3 t "Les maisons, die Häuser" lang klingon
HSET d:4 t "Häuser and houses running"
HSET d:5 t "houses running maisons" lang English
HSET d:6 t "Häuser maisons" lang ""
HSET d:7 t "serveixen utilitats" lang catalan
HSET d:8 t "φοράνε βάρους ήσουν" lang Greek
HSET d:9 t "greitai veikdamas" lang lithuanian
FT.SEARCH lf haus WITHSCORES NOCONTENT
FT.SEARCH lf maison WITHSCORES NOCONTENT
FT.SEARCH lf maisons WITHSCORES NOCONTENT
FT.SEARCH lf house WITHSCORES NOCONTENT LANGUAGE english
FT.SEARCH lf run WITHSCORES NOCONTENT LANGUAGE english
FT.SEARCH lf häuser WITHSCORES NOCONTENT LANGUAGE german
FT.SEARCH lf @lang:{german} NOCONTENT
FT.SEARCH lf serveixi WITHSCORES NOCONTENT LANGUAGE catalan
FT.SEARCH lf βάρη WITHSCORES NOCONTENT LANGUAGE greek
FT.SEARCH lf εώς WITHSCORES NOCONTENT LANGUAGE greek
FT.SEARCH lf greitais WITHSCORES NOCONTENT LANGUAGE lithuanian
FT.SEARCH lf greitais WITHSCORES NOCONTENT
FT.EXPLAIN lf βάρη LANGUAGE greek
FT.EXPLAIN lf maisons
FT.CREATE lf2 LANGUAGE_FIELD SCHEMA t TEXT
FT.CREATE lf3 SCHEMA t TEXT LANGUAGE_FIELD x
`)
	compareFTInfo(t, p, "lf")
	resp3(p)
	p.Run(`FT.SEARCH lf haus WITHSCORES RETURN 1 t`)
}

// TestFTLanguageErrorsLikeRediSearch: unknown languages, missing
// arguments.
func TestFTLanguageErrorsLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	p.Run(`
FT.CREATE e1 LANGUAGE klingon SCHEMA t TEXT
FT.CREATE e2 ON HASH LANGUAGE
FT.CREATE e3 ON HASH LANGUAGE_FIELD
FT.CREATE ok LANGUAGE RUSSIAN SCHEMA t TEXT
FT.SEARCH ok x LANGUAGE klingon
FT.SEARCH ok x LANGUAGE
FT.EXPLAIN ok x LANGUAGE klingon
FT.SEARCH ok x LANGUAGE Russian
`)
}

// TestFTSynonymsLikeRediSearch: FT.SYNUPDATE before and after documents
// (which it indexes again, unless SKIPINITIALSCAN), FT.SYNDUMP's order,
// queries' expansions and scores, errors.
func TestFTSynonymsLikeRediSearch(t *testing.T) {
	p := newSearchPair(t)
	p.Run(`
FT.CREATE s PREFIX 1 d: SCHEMA t TEXT WEIGHT 2 b TEXT
FT.SYNUPDATE s g1 boy child kid
HSET d:1 t "the boy runs fast" b "kids play"
HSET d:2 t "a child played" b "boy boy"
HSET d:3 t "youngsters and youngster" b "nothing here"
FT.SYNUPDATE s g2 SKIPINITIALSCAN Kid youngster
HSET d:4 t "youngster kid" b "Boys"
FT.SYNDUMP s
FT.EXPLAIN s kid
FT.EXPLAIN s "boy fast"
FT.EXPLAIN s "youngster|kid" VERBATIM
FT.SEARCH s kid WITHSCORES NOCONTENT
FT.SEARCH s boy WITHSCORES NOCONTENT
FT.SEARCH s youngster WITHSCORES NOCONTENT
FT.SEARCH s child WITHSCORES NOCONTENT SCORER BM25
FT.SEARCH s child WITHSCORES NOCONTENT SCORER TFIDF.DOCNORM
FT.SEARCH s "@b:kid" WITHSCORES NOCONTENT
FT.SEARCH s "kid fast" WITHSCORES NOCONTENT
FT.SEARCH s kid VERBATIM NOCONTENT
FT.SEARCH s kid WITHSCORES NOCONTENT DIALECT 2
FT.SYNUPDATE s
FT.SYNUPDATE s g
FT.SYNUPDATE s g SKIPINITIALSCAN
FT.SYNUPDATE nosuch g a
FT.SYNDUMP
FT.SYNDUMP nosuch
FT.SYNDUMP s x
`)
	compareFTInfoFields(t, p, "s", "num_docs", "max_doc_id", "num_terms")
	// Growing the dictionary: its order after rehashes.
	p.Run(`
FT.SYNUPDATE s g3 SKIPINITIALSCAN a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11
FT.SYNDUMP s
FT.SEARCH s a3 NOCONTENT
FT.SYNUPDATE s g4 SKIPINITIALSCAN b1 b2 b3 b4 b5 a1 b6 b7 b8 b9 b10 b11 b12 b13 b14 b15 b16 b17
FT.SYNDUMP s
FT.SYNUPDATE s g5 SKIPINITIALSCAN c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 c20 c21 c22 c23 c24 c25
FT.SYNDUMP s
FT.SEARCH s c2 NOCONTENT
FT.SYNDUMP s
FT.SEARCH s "b4|c7|a2" NOCONTENT
FT.SYNDUMP s
FT.SYNUPDATE s g6 SKIPINITIALSCAN d1 d2 d3
FT.SYNDUMP s
`)
	// Again documents: the scan indexes them again.
	p.Run(`FT.SYNUPDATE s g2 here`)
	waitIndexed(t, p.Redis, "s")
	// RediSearch keeps the replaced documents' entries (and counts them
	// in scores) until its collector runs: the matches only.
	p.Run(`
FT.SEARCH s here NOCONTENT LIMIT 0 0
FT.SEARCH s here NOCONTENT INKEYS 1 d:3
FT.SEARCH s kid NOCONTENT LIMIT 0 0
FT.SEARCH s youngster NOCONTENT INKEYS 1 d:3
`)
	compareFTInfoFields(t, p, "s", "num_docs", "max_doc_id")
	resp3(p)
	p.Run(`
FT.SYNDUMP s
FT.CREATE empty SCHEMA t TEXT
FT.SYNDUMP empty
`)
}

// TestFTSynonymsSurviveReload: FT.SYNUPDATE is part of an index's
// definition (through an alias too).
func TestFTSynonymsSurviveReload(t *testing.T) {
	_, addr := startServer(t, "--enable-debug-command", "yes")
	c := difftest.Dial(t, addr)
	runAll(c, [][]string{
		{"FT.CREATE", "idx", "LANGUAGE", "german", "LANGUAGE_FIELD", "l", "SCHEMA", "t", "TEXT"},
		{"FT.ALIASADD", "al", "idx"},
		{"HSET", "d:1", "t", "Häuser und Kinder"},
		{"HSET", "d:2", "t", "running houses", "l", "english"},
		{"FT.SYNUPDATE", "al", "g1", "kinder", "houses"},
		{"FT.SYNUPDATE", "idx", "g2", "SKIPINITIALSCAN", "x", "y", "Häuser"},
	})
	view := func() string {
		waitFor(t, func() bool { return strings.Contains(c.Do("FT.INFO", "idx"), "+indexing\r\n:0\r\n") })
		var b strings.Builder
		for _, cmd := range [][]string{{"FT.SYNDUMP", "idx"}, {"FT.SEARCH", "idx", "haus", "NOCONTENT"},
			{"FT.SEARCH", "idx", "kinder", "WITHSCORES", "NOCONTENT"}, {"FT.SEARCH", "idx", "run", "NOCONTENT", "LANGUAGE", "english"},
			{"FT.EXPLAIN", "idx", "kinder"}} {
			b.WriteString(c.Do(cmd...))
		}
		return b.String()
	}
	want := view()
	expect(t, c, "+OK\r\n", "DEBUG", "RELOAD")
	if got := view(); got != want {
		t.Errorf("after DEBUG RELOAD:\n got %q\nwant %q", got, want)
	}
}
