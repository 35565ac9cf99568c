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
)

// Error is an error whose text is the reply, as RediSearch spells it.
type Error string

func (e Error) Error() string { return string(e) }

func errf(format string, args ...any) error { return Error(fmt.Sprintf(format, args...)) }

// IsError reports whether err is one of the package's reply errors.
func IsError(err error) bool {
	var e Error
	return errors.As(err, &e)
}
