package search

import (
	"errors"
	"fmt"
)

// Every error text of the package, spelled as RediSearch 2.10 replies it
// (RediSearch's errors carry no "ERR" code). Texts that take arguments are
// fmt formats. The server adds its own (search's "no such index" family)
// in server/errors.go.
const (
	errUnknownArg         = "Unknown argument `%s`"
	errRuleType           = "Invalid rule type: %s"
	errBadArgsConvert     = "Bad arguments for %s: Could not convert argument to expected type"
	errBadArgsMissing     = "Bad arguments for %s: Expected an argument, but none provided"
	errFieldType          = "Invalid field type for field `%s`"
	errFieldNoType        = "Field `%s` does not have a type"
	errDuplicateField     = "Duplicate field in schema - %s"
	errLanguage           = "Invalid language"
	errScore              = "Invalid score"
	errTagSeparator       = "Tag separator must be a single character. Got `%s`"
	errNoSchema           = "No schema found"
	errNotSupported       = "%s is not supported by HotKV yet"
	errFieldsMissing      = "Fields arguments are missing"
	errAlterSchema        = "ALTER must be followed by SCHEMA"
	errAlterAction        = "Unknown action passed to ALTER SCHEMA"
	errASArgument         = "AS requires an argument"
	errSeparatorArg       = "SEPARATOR requires an argument"
	errTooManyText        = "Schema is limited to 128 TEXT fields"
	errStackOverflow      = "Parser stack overflow. Try moving nested parentheses more to the left"
	errSyntaxAt           = "Syntax error at offset %d near %s"
	errNoQuery            = "No query string provided"
	errLimitArgs          = "LIMIT requires two arguments"
	errLimitNumeric       = "LIMIT needs two numeric arguments"
	errLimitMax           = "LIMIT exceeds maximum of %d"
	errDialect            = "DIALECT requires a non negative integer >=1 and <= 4"
	errDialectUnsupported = "DIALECT %d is not supported yet"
	errUnknownArgAt       = "Unknown argument `%s` at position %d for <main>"
	errFilterArgs         = "FILTER requires 3 arguments"
	errPropertyNotLoaded  = "Property `%s` not loaded nor in schema"
	errNumericFilter      = "Bad upper range: %s"
	errNumericFilterLow   = "Bad lower range: %s"
	errNoSuchField        = "No such field"
	errNotTagField        = "Not a tag field"
	errIndexEmpty         = "Use `INDEXEMPTY` in field creation in order to index and query for empty strings"
	errSuffixTrie         = "Contains query on fields without WITHSUFFIXTRIE support"
	errIndexMissing       = "'ismissing' requires field '%s' to be defined with 'INDEXMISSING'"

	// VECTOR fields, KNN and range queries, PARAMS.
	errBadArgsUnknown   = "Bad arguments for %s: Unknown argument"
	errBadArgsFor       = "Bad arguments for %s"
	errHLNotInSchema    = "Property `%s` is not in schema"
	errHLNoProperty     = "No such property `%s`"
	errHLNoOffsets      = "Cannot use highlight/summarize because NOOFSETS was specified at index level"
	errBadArgsBounds    = "Bad arguments for %s: Value is outside acceptable bounds"
	errVectorOddArgs    = "Bad number of arguments for vector similarity index: got %d but expected even number as algorithm parameters (should be submitted as named arguments)"
	errVectorAlgoArg    = "Bad arguments for algorithm %s: %s"
	errVectorMissing    = "Missing mandatory parameter: cannot create %s index without specifying %s argument"
	errVectorBlobSize   = "Error parsing vector similarity query: query vector blob size (%d) does not match index's expected size (%d)."
	errVectorOption     = "Error parsing vector similarity parameters: Invalid option"
	errVectorRangeAttrs = "Error parsing vector similarity parameters: range query attributes were sent for a non-range query"
	errVectorRadius     = "Error parsing vector similarity query: negative radius (%s) given in a range query"
	errNoSuchParam      = "No such parameter `%s`"
	errParamNumeric     = "Invalid numeric value (%s) for parameter `%s`"
	errParamsPairs      = "Parameters must be specified in PARAM VALUE pairs"
	errParamsTwice      = "Multiple PARAMS are not allowed. Parameters can be defined only once"
	errAttrUnknown      = "Invalid attribute %s"
	errAttrValue        = "Invalid value (%s) for `%s`"
	errPhoneticField    = "field does not support phonetics"
	errPhoneticArg      = "PHONETIC requires an argument"
	errPhoneticMatch    = "Matcher Format: <2 chars algorithm>:<2 chars language>. Support algorithms: double metaphone (dm). Supported languages: English (en), French (fr), Portuguese (pt) and Spanish (es)"

	// FT.SEARCH's options.
	errNoScorer     = "No such scorer %s"
	errExplainScore = "EXPLAINSCORE must be accompanied with WITHSCORES"
	errTimeoutArg   = "Need argument for TIMEOUT"
	errTimeout      = "TIMEOUT requires a non negative integer"
	errNoLanguage   = "No such language"

	// GEO fields and GEOFILTER.
	errGeoUnit        = "Invalid GeoFilter unit"
	errGeoLatLon      = "Invalid GeoFilter lat/lon"
	errGeoRadius      = "Invalid GeoFilter radius"
	errGeoFilterArgs  = "GEOFILTER requires 5 arguments"
	errGeoFilterUnit  = "Unknown distance unit %s"
	errGeoFilterParse = "Bad arguments for %s: Could not convert argument to expected type"

	// FT.AGGREGATE and its expressions.
	errExprSyntax        = "Syntax error at offset %d near '%s'"
	errExprSymbol        = "Unknown symbol '%s'"
	errExprFunction      = "Unknown function name '%s'"
	errExprFuncArgs      = "Invalid arguments for function '%s'"
	errExprNoValue       = "%s: has no value, consider using EXISTS if applicable"
	errExprNotNumber     = "Could not convert value to a number"
	errExprArgString     = "Invalid type (%d) for argument %d in function '%s'. VALIDATE_ARG__STRING(v, %d) was false."
	errExprArgType       = "Invalid type (%d) for argument %d in function '%s'. VALIDATE_ARG__TYPE(v, RSValue_Number) was false."
	errExprSubstr        = "Invalid type for substr. Expected string"
	errExprFormatBad     = "Bad format string!"
	errExprFormatArgs    = "Not enough arguments for format"
	errExprFormatSpec    = "Unknown format specifier passed"
	errPropNotInPipeline = "Property `%s` not loaded nor in pipeline"
	errNoSuchProperty    = "No such property `%s`"
	errReducerProperty   = "Property `%s` not present in document or pipeline"
	errNoReducer         = "No such reducer: %s"
	errReducerMissing    = "Missing arguments for %s"
	errGroupNoAt         = "Bad arguments for GROUPBY: Unknown property `%s`. Did you mean `@%s`?"
	errSortAscDesc       = "MISSING ASC or DESC after sort field (%s)"
	errMultiSortBy       = "Multiple SORTBY steps are not allowed. Sort multiple fields in a single step"
	errLoadArgs          = "Bad arguments for LOAD: SUCCESS"
	errQuantile          = "Percentage must be between 0.0 and 1.0"
	errReducerArgs       = "Bad arguments for %s: %s"
)

// WarnTimeout is the warning of a search cut short by its TIMEOUT
// (RESP3's warning field).
const WarnTimeout = "Timeout limit was reached"

// ErrDialect is the error of a DIALECT argument out of its range.
var ErrDialect = Error(errDialect)

// Error is an error whose text is the reply, as RediSearch spells it.
type Error string

func (e Error) Error() string { return string(e) }

func errf(format string, args ...any) error { return Error(fmt.Sprintf(format, args...)) }

// IsError reports whether err is one of the package's reply errors.
func IsError(err error) bool {
	var e Error
	return errors.As(err, &e)
}
