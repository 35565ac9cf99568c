package rdb

import (
	"errors"
	"strings"
)

// Errors of FUNCTION RESTORE (functionRestoreCommand and rdbFunctionLoad
// in Redis 7.0), with Error() exactly the text Redis 7.0 sends after
// "-ERR ". A bad footer gives ErrPayloadFooter.
var (
	// ErrNotFunction: a record starts with a byte other than
	// OpcodeFunction2 or OpcodeFunctionPreGA.
	ErrNotFunction = errors.New("given type is not a function")
	// ErrLibraryPayload: an OpcodeFunction2 record's code cannot be read
	// as an RDB string (truncated, bad length, unknown encoding, bad LZF
	// data).
	ErrLibraryPayload = errors.New("Failed loading library payload")

	// The fields of an OpcodeFunctionPreGA record, in record order, that
	// cannot be read.
	ErrLibraryName          = errors.New("Failed loading library name")
	ErrEngineName           = errors.New("Failed loading engine name")
	ErrDescriptionIndicator = errors.New("Failed loading library description indicator")
	ErrDescription          = errors.New("Failed loading library description")
	ErrLibraryBlob          = errors.New("Failed loading library blob")
)

// EncodeFunctions returns the payload FUNCTION DUMP produces for libraries
// with the given codes, in the given order: for each library the byte
// OpcodeFunction2 and its code as an RDB string (AppendString, with
// compress standing for rdbcompression), then the footer (AppendFooter).
// Redis dumps its libraries in the order of its internal dictionary, which
// DecodeFunctions reports; given that order the bytes are Redis's. With no
// libraries the payload is the bare 10-byte footer.
func EncodeFunctions(libraryCodes []string, compress bool) []byte {
	var dst []byte
	for _, code := range libraryCodes {
		dst = append(dst, OpcodeFunction2)
		dst = AppendString(dst, code, compress)
	}
	return AppendFooter(dst)
}

// DecodeFunctions parses a FUNCTION RESTORE payload the way Redis 7.0's
// functionRestoreCommand and rdbFunctionLoad do and returns each library's
// code, in payload order, as Redis would compile it. It does not compile
// the code: that, and checks for duplicate or existing libraries, are the
// caller's.
//
// The footer is checked first (VerifyPayload). Then records are read while
// more than FooterLen bytes of the whole payload remain. A record is
//
//   - OpcodeFunction2 followed by the code as an RDB string (what Redis
//     7.0 GA writes), or
//   - OpcodeFunctionPreGA (the format of 7.0-rc1 and rc2, still loaded by
//     7.0) followed by the library name, the engine name, a length that is
//     non-zero when a description string follows, the description if so,
//     and the library body, all RDB strings. The code is then
//     "#!<engine> name=<name>\n<body>", each part cut at its first NUL byte
//     (Redis builds it with sdscatfmt's %s); the description is dropped.
//
// Any other first byte gives ErrNotFunction; a field that cannot be read
// gives ErrLibraryPayload for OpcodeFunction2, or for OpcodeFunctionPreGA
// ErrLibraryName, ErrEngineName, ErrDescriptionIndicator, ErrDescription or
// ErrLibraryBlob.
//
// On a record error the codes of the records before it are returned with
// the error, so that a caller compiling the libraries one by one can
// report the first failure exactly as Redis, which compiles each library
// as soon as it is read, does. On a footer error no codes are returned.
//
// Like Redis, which reads the records from a buffer holding the whole
// payload, a record may run into the footer bytes; reading then stops as
// fewer than FooterLen bytes remain. A code so read ends with footer bytes
// (in practice only the version's low byte, 0x0a, a newline, leaves valid
// code), and Redis accepts such a payload, so this does too.
func DecodeFunctions(payload []byte) ([]string, error) {
	return RestoreOptions{}.DecodeFunctions(payload)
}

// DecodeFunctions is the package's DecodeFunctions with the options o.
func (o RestoreOptions) DecodeFunctions(payload []byte) ([]string, error) {
	if _, _, err := o.VerifyPayload(payload); err != nil {
		return nil, err
	}
	var codes []string
	r := NewReader(payload)
	for r.Remaining() > FooterLen {
		t, _ := r.ReadType() // cannot fail: bytes remain
		var code string
		var err error
		switch t {
		case OpcodeFunction2:
			if code, err = r.ReadString(); err != nil {
				err = ErrLibraryPayload
			}
		case OpcodeFunctionPreGA:
			code, err, _ = readPreGAFunction(r)
		default:
			err = ErrNotFunction
		}
		if err != nil {
			return codes, err
		}
		codes = append(codes, code)
	}
	return codes, nil
}

// readPreGAFunction reads the rest of an OpcodeFunctionPreGA record and
// returns the library code Redis 7.0 makes of it. On failure it returns
// the error Redis reports (ErrLibraryName, ErrEngineName,
// ErrDescriptionIndicator, ErrDescription or ErrLibraryBlob) and the
// Reader's error that caused it (wrapping ErrTruncated or ErrCorrupt).
func readPreGAFunction(r *Reader) (code string, err, cause error) {
	name, cause := r.ReadString()
	if cause != nil {
		return "", ErrLibraryName, cause
	}
	engine, cause := r.ReadString()
	if cause != nil {
		return "", ErrEngineName, cause
	}
	hasDesc, cause := r.ReadLen()
	if cause != nil {
		return "", ErrDescriptionIndicator, cause
	}
	if hasDesc != 0 {
		if _, cause := r.ReadString(); cause != nil {
			return "", ErrDescription, cause
		}
	}
	blob, cause := r.ReadString()
	if cause != nil {
		return "", ErrLibraryBlob, cause
	}
	return "#!" + cString(engine) + " name=" + cString(name) + "\n" + cString(blob), nil, nil
}

// cString is s up to its first NUL byte, as C's strlen sees it.
func cString(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}
