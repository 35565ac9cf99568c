package search

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
)

// FieldType is the type of a schema field.
type FieldType uint8

// The field types this package indexes.
const (
	Text FieldType = iota
	Tag
	Numeric
	Vector
	Geo
)

func (t FieldType) String() string {
	switch t {
	case Text:
		return "TEXT"
	case Tag:
		return "TAG"
	case Vector:
		return "VECTOR"
	case Geo:
		return "GEO"
	}
	return "NUMERIC"
}

// Field is one field of a schema. Name is the hash field it reads, Alias
// the name queries use (Name when there is no AS).
type Field struct {
	Name, Alias   string
	Type          FieldType
	Weight        float64 // TEXT
	NoStem        bool    // TEXT
	Phonetic      bool    // TEXT: PHONETIC (metaphone.go)
	Separator     byte    // TAG, ',' by default
	CaseSensitive bool    // TAG
	Sortable, UNF bool
	NoIndex       bool
	// WithSuffixTrie is WITHSUFFIXTRIE (TEXT, TAG): suffix and contains
	// queries (*foo, *foo*) expand through a suffix trie (suffix.go),
	// which for TEXT holds only such fields' terms; without one they
	// walk all the terms or values.
	WithSuffixTrie bool
	// IndexEmpty is INDEXEMPTY (TEXT, TAG): an empty value is indexed,
	// as the empty term or tag, which @f:"" and @t:{""} match.
	IndexEmpty bool
	// IndexMissing is INDEXMISSING (all types): the documents without
	// the field are listed, for ismissing(@f).
	IndexMissing bool
	Vector       *VectorOpts // VECTOR

	textID int // the bit of an indexed TEXT field in field masks, or -1
	sortID int // the slot in a document's sort vector, or -1
	slot   int // the TAG, NUMERIC, VECTOR or GEO index of the field
}

// Schema is an index definition: what FT.CREATE's arguments say.
type Schema struct {
	Prefixes []string // the key prefixes it follows ("" follows all keys)
	Language string   // the default language, "english" unless LANGUAGE
	// LanguageField is LANGUAGE_FIELD: the hash field that names a
	// document's language ("": the default for all).
	LanguageField   string
	Score           float64  // the default document score, 0..1
	Stopwords       []string // nil: the default English list
	CustomStopwords bool
	// Temporary is TEMPORARY's idle time, in seconds, after which the
	// index is dropped with its documents (-1: not temporary).
	Temporary       int64
	SkipInitialScan bool
	Fields          []*Field

	// Filter is FILTER's expression ("": none): a hash is a document of
	// the index only when it is true (filter.go).
	Filter string
	filter *compiledFilter
	// ScoreField is SCORE_FIELD: the hash field that holds a document's
	// score ("": the default score for all).
	ScoreField string
	// PayloadField is PAYLOAD_FIELD: the hash field whose value is a
	// document's payload (WITHPAYLOADS, the HAMMING scorer); hidden from
	// the replies' fields as ScoreField is. "": documents have none.
	PayloadField string
	// The index options FT.INFO lists: what the inverted index leaves out
	// (NOOFFSETS: positions, and so phrases match as intersections;
	// NOFREQS: frequencies, each record counts once; NOFIELDS: field
	// masks, and so field restrictions match any TEXT field), NOHL
	// (implied by NOOFFSETS; HotKV has no highlighting) and MAXTEXTFIELDS
	// (the limit is 128 TEXT fields either way, as in RediSearch 2.10).
	NoOffsets, NoFreqs, NoFields, NoHL, MaxTextFields bool

	textFields int
	sortables  int
	tags, nums int
	vecs       int
	geos       int
}

// Hidden reports whether a hash field is never replied as a document's
// field (FT.SEARCH's fields and RETURN, FT.AGGREGATE's LOAD): the
// SCORE_FIELD and the PAYLOAD_FIELD, as in RediSearch.
func (s *Schema) Hidden(field string) bool {
	return field != "" && (field == s.ScoreField || field == s.PayloadField)
}

// ParseCreate parses FT.CREATE's arguments after the index name. Options
// this package does not implement yet (ON JSON, GEOSHAPE
// fields, ...) are refused with an
// error that says so, never ignored.
func ParseCreate(args [][]byte) (*Schema, error) {
	s := &Schema{Prefixes: []string{""}, Language: "english", Score: 1, Temporary: -1}
	i := 0
	for ; i < len(args); i++ {
		opt := strings.ToUpper(string(args[i]))
		switch opt {
		case "SCHEMA":
			if err := s.parseFields(args[i+1:]); err != nil {
				return nil, err
			}
			if s.filter != nil {
				s.filter.resolve(s)
			}
			return s, nil
		case "ON":
			if i+1 >= len(args) {
				return nil, errf(errBadArgsMissing, "ON")
			}
			i++
			switch t := strings.ToUpper(string(args[i])); t {
			case "HASH":
			case "JSON":
				return nil, errf(errNotSupported, "ON JSON")
			default:
				return nil, errf(errRuleType, string(args[i]))
			}
		case "PREFIX":
			n, ok := countArg(args, i+1)
			if !ok {
				return nil, errf(errBadArgsConvert, "PREFIX")
			}
			if i+1+n >= len(args) {
				return nil, errf(errBadArgsMissing, "PREFIX")
			}
			if n > 0 {
				s.Prefixes = s.Prefixes[:0]
				for _, p := range args[i+2 : i+2+n] {
					s.Prefixes = append(s.Prefixes, string(p))
				}
			}
			i += 1 + n
		case "LANGUAGE":
			if i+1 >= len(args) {
				return nil, errf(errBadArgsMissing, "LANGUAGE")
			}
			i++
			l := findLanguage(string(args[i]))
			if l == nil {
				return nil, Error(errLanguage)
			}
			if l.stem == nil {
				return nil, errf(errNotSupported, "LANGUAGE "+l.name)
			}
			s.Language = l.name
		case "SCORE":
			if i+1 >= len(args) {
				return nil, errf(errBadArgsMissing, "SCORE")
			}
			i++
			f, err := strconv.ParseFloat(string(args[i]), 64)
			if err != nil || f < 0 || f > 1 {
				return nil, Error(errScore)
			}
			s.Score = f
		case "STOPWORDS":
			n, ok := countArg(args, i+1)
			if !ok {
				return nil, errf(errBadArgsConvert, "STOPWORDS")
			}
			if i+1+n >= len(args) {
				return nil, errf(errBadArgsMissing, "STOPWORDS")
			}
			s.Stopwords = []string{}
			for _, w := range args[i+2 : i+2+n] {
				s.Stopwords = append(s.Stopwords, strings.ToLower(string(w)))
			}
			s.CustomStopwords = true
			i += 1 + n
		case "SKIPINITIALSCAN":
			s.SkipInitialScan = true
		case "FILTER":
			if i+1 >= len(args) {
				return nil, errf(errBadArgsMissing, "FILTER")
			}
			i++
			e, err := ParseExpr(string(args[i]))
			if err != nil {
				return nil, err
			}
			s.Filter, s.filter = string(args[i]), &compiledFilter{e: e}
		case "SCORE_FIELD":
			if i+1 >= len(args) {
				return nil, errf(errBadArgsMissing, "SCORE_FIELD")
			}
			i++
			s.ScoreField = string(args[i])
		case "NOOFFSETS":
			s.NoOffsets, s.NoHL = true, true
		case "NOHL":
			s.NoHL = true
		case "NOFIELDS":
			s.NoFields = true
		case "NOFREQS":
			s.NoFreqs = true
		case "MAXTEXTFIELDS":
			s.MaxTextFields = true
		case "ASYNC", "NOSCOREIDX":
			// Accepted by RediSearch 2.10 and without effect there.
		case "TEMPORARY":
			if i+1 >= len(args) {
				return nil, errf(errBadArgsMissing, opt)
			}
			n, err := strconv.ParseInt(string(args[i+1]), 10, 64)
			if err != nil {
				return nil, errf(errBadArgsConvert, opt)
			}
			s.Temporary = max(n, -1) // negative: never dropped, as in RediSearch
			i++
		case "LANGUAGE_FIELD":
			if i+1 >= len(args) {
				return nil, errf(errBadArgsMissing, "LANGUAGE_FIELD")
			}
			i++
			s.LanguageField = string(args[i])
		case "PAYLOAD_FIELD":
			if i+1 >= len(args) {
				return nil, errf(errBadArgsMissing, opt)
			}
			i++
			s.PayloadField = string(args[i])
		default:
			return nil, errf(errUnknownArg, string(args[i]))
		}
	}
	return nil, Error(errNoSchema)
}

// countArg reads the count of a sub-argument list at args[i].
func countArg(args [][]byte, i int) (int, bool) {
	if i >= len(args) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(args[i]), 10, 31)
	return int(n), err == nil
}

// lang is the default language.
func (s *Schema) lang() *language {
	if l := findLanguage(s.Language); l != nil {
		return l
	}
	return englishLanguage
}

// parseFields parses the fields after SCHEMA.
func (s *Schema) parseFields(args [][]byte) error {
	if len(args) == 0 {
		return Error(errFieldsMissing)
	}
	for i := 0; i < len(args); {
		f := &Field{Name: string(args[i]), textID: -1, sortID: -1, slot: -1}
		i++
		f.Alias = f.Name
		if i < len(args) && strings.EqualFold(string(args[i]), "AS") {
			if i+1 >= len(args) {
				return Error(errASArgument)
			}
			f.Alias = string(args[i+1])
			i += 2
		}
		if s.Field(f.Alias) != nil {
			return errf(errDuplicateField, f.Alias)
		}
		if i >= len(args) {
			return errf(errFieldNoType, f.Alias)
		}
		n, err := f.parseType(args[i:])
		if err != nil {
			return err
		}
		i += n
		s.add(f)
		if s.textFields > maxTextFields {
			return Error(errTooManyText)
		}
	}
	return nil
}

// WideSchema reports whether FT.INFO lists MAXTEXTFIELDS: given, or more
// than 32 TEXT fields (RediSearch then widens its field masks itself).
func (s *Schema) WideSchema() bool { return s.MaxTextFields || s.textFields > 32 }

// maxTextFields is RediSearch's limit on TEXT fields (its wide schemas'
// 128-bit field masks, as fieldMask).
const maxTextFields = 128

// parseType parses a field's type and options from args and returns how
// many arguments it read.
func (f *Field) parseType(args [][]byte) (int, error) {
	i := 1
	is := func(w string) bool { return i < len(args) && strings.EqualFold(string(args[i]), w) }
	switch t := strings.ToUpper(string(args[0])); t {
	case "TEXT":
		f.Type, f.Weight = Text, 1
		for i < len(args) {
			switch {
			case is("NOSTEM"):
				f.NoStem = true
				i++
			case is("WEIGHT"):
				if i+1 >= len(args) {
					return 0, errf(errBadArgsConvert, "weight")
				}
				w, err := strconv.ParseFloat(string(args[i+1]), 64)
				if err != nil || math.IsInf(w, 0) || math.IsNaN(w) {
					return 0, errf(errBadArgsConvert, "weight")
				}
				f.Weight = w
				i += 2
			case is("WITHSUFFIXTRIE"):
				f.WithSuffixTrie = true
				i++
			case is("INDEXEMPTY"):
				f.IndexEmpty = true
				i++
			case is("INDEXMISSING"):
				f.IndexMissing = true
				i++
			case is("PHONETIC"):
				if i+1 >= len(args) {
					return 0, Error(errPhoneticArg)
				}
				// RediSearch knows one algorithm, double metaphone,
				// the same for its four languages.
				switch string(args[i+1]) {
				case "dm:en", "dm:fr", "dm:pt", "dm:es":
				default:
					return 0, Error(errPhoneticMatch)
				}
				f.Phonetic = true
				i += 2
			default:
				goto common
			}
		}
	case "TAG":
		f.Type, f.Separator = Tag, ','
		for i < len(args) {
			switch {
			case is("SEPARATOR"):
				if i+1 >= len(args) {
					return 0, Error(errSeparatorArg)
				}
				if len(args[i+1]) != 1 {
					return 0, errf(errTagSeparator, string(args[i+1]))
				}
				f.Separator = args[i+1][0]
				i += 2
			case is("CASESENSITIVE"):
				f.CaseSensitive = true
				i++
			case is("WITHSUFFIXTRIE"):
				f.WithSuffixTrie = true
				i++
			case is("INDEXEMPTY"):
				f.IndexEmpty = true
				i++
			case is("INDEXMISSING"):
				f.IndexMissing = true
				i++
			default:
				goto common
			}
		}
	case "NUMERIC":
		f.Type = Numeric
		if is("INDEXMISSING") {
			f.IndexMissing = true
			i++
		}
	case "VECTOR":
		// No options after its attributes but INDEXMISSING.
		n, err := f.parseVector(args)
		if err != nil {
			return 0, err
		}
		if n < len(args) && strings.EqualFold(string(args[n]), "INDEXMISSING") {
			f.IndexMissing = true
			n++
		}
		return n, nil
	case "GEO":
		f.Type = Geo
		if is("INDEXMISSING") {
			f.IndexMissing = true
			i++
		}
	case "GEOSHAPE":
		return 0, errf(errNotSupported, t+" fields")
	default:
		return 0, errf(errFieldType, f.Alias)
	}
common:
	for i < len(args) {
		switch {
		case is("SORTABLE"):
			f.Sortable = true
			i++
			if is("UNF") {
				f.UNF = true
				i++
			}
			if f.Type == Numeric || f.Type == Tag && f.CaseSensitive {
				f.UNF = true
			}
		case is("NOINDEX"):
			f.NoIndex = true
			i++
		default:
			return i, nil
		}
	}
	return i, nil
}

// add appends f to the schema and gives it its ids.
func (s *Schema) add(f *Field) {
	switch {
	case f.Type == Text && !f.NoIndex:
		f.textID = s.textFields
		s.textFields++
	case f.Type == Tag:
		f.slot = s.tags
		s.tags++
	case f.Type == Numeric:
		f.slot = s.nums
		s.nums++
	case f.Type == Vector:
		f.slot = s.vecs
		s.vecs++
	case f.Type == Geo:
		f.slot = s.geos
		s.geos++
	}
	if f.Sortable {
		f.sortID = s.sortables
		s.sortables++
	}
	s.Fields = append(s.Fields, f)
}

// Field returns the field queries call name (its alias), or nil.
func (s *Schema) Field(name string) *Field {
	for _, f := range s.Fields {
		if f.Alias == name {
			return f
		}
	}
	return nil
}

// Matches reports whether key is one the index follows (its prefixes).
func (s *Schema) Matches(key string) bool {
	for _, p := range s.Prefixes {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

// SortedStopwords returns the custom stop words, sorted (FT.INFO).
func (s *Schema) SortedStopwords() []string {
	out := slices.Clone(s.Stopwords)
	slices.Sort(out)
	return slices.Compact(out)
}

// ErrAlterNoFields is ParseAlter's error for SCHEMA ADD without fields,
// which RediSearch answers with its arity error.
var ErrAlterNoFields = errors.New("no fields to add")

// ParseAlter parses FT.ALTER's arguments after the index name:
// [SKIPINITIALSCAN] SCHEMA ADD field [AS alias] type [options] ... It
// returns the fields to add (checked against the schema's names) and
// whether SKIPINITIALSCAN was given.
func (s *Schema) ParseAlter(args [][]byte) (fields []*Field, skipScan bool, err error) {
	if len(args) > 0 && strings.EqualFold(string(args[0]), "SKIPINITIALSCAN") {
		skipScan = true
		args = args[1:]
	}
	if len(args) == 0 || !strings.EqualFold(string(args[0]), "SCHEMA") {
		return nil, false, Error(errAlterSchema)
	}
	if len(args) < 2 || !strings.EqualFold(string(args[1]), "ADD") {
		return nil, false, Error(errAlterAction)
	}
	if len(args) == 2 {
		return nil, false, ErrAlterNoFields
	}
	tmp := &Schema{Fields: slices.Clone(s.Fields), textFields: s.textFields, sortables: s.sortables, tags: s.tags, nums: s.nums, vecs: s.vecs, geos: s.geos}
	if err := tmp.parseFields(args[2:]); err != nil {
		return nil, false, err
	}
	return tmp.Fields[len(s.Fields):], skipScan, nil
}
