package rdb

import (
	"errors"
	"fmt"
)

// LoadError is data Redis 7.0 refuses to load together with what it
// reports about it: rdbReportCorruptRDB and rdbReportError log
//
//	Internal error in RDB reading offset <n>, function at rdb.c:<Line> -> <Reason>
//
// (at verbose level for RESTORE, as a warning before exiting when a file
// is loaded). Line is the line of the report in the redis-server this
// package is tested against (Debian's build of 7.0.15, whose patches move
// some reports one or two lines down from upstream's rdb.c). Err is the
// cause, wrapping ErrCorrupt or ErrTruncated. Decoding errors carry a
// LoadError wherever Redis would report one (see LoadReason); failures
// Redis returns from silently (short reads, empty collections, unknown
// types) carry none.
type LoadError struct {
	Line   int
	Reason string
	Err    error
}

func (e *LoadError) Error() string { return e.Reason + ": " + e.Err.Error() }

func (e *LoadError) Unwrap() error { return e.Err }

// LoadReason returns the report Redis 7.0 logs for err, if it logs one:
// the rdb.c line and the reason (see LoadError).
func LoadReason(err error) (line int, reason string, ok bool) {
	var le *LoadError
	if errors.As(err, &le) {
		return le.Line, le.Reason, true
	}
	return 0, "", false
}

// report wraps err (nil: ErrCorrupt) with Redis's report at line. An
// error that already carries a report keeps it: Redis reports once, where
// the failure happens (a string that fails to decompress inside a
// listpack is an "Invalid LZF compressed string", not an integrity
// check failure).
func report(line int, err error, format string, args ...any) error {
	if err == nil {
		err = ErrCorrupt
	}
	if _, _, ok := LoadReason(err); ok || errors.Is(err, ErrEmptyValue) || errors.Is(err, ErrUnsupported) {
		return err
	}
	return &LoadError{Line: line, Reason: fmt.Sprintf(format, args...), Err: err}
}

// The lines of rdb.c's reports (Debian's redis-server 7.0.15).
const (
	lineUnknownLenEncoding = 236  // Unknown length encoding %d in rdbLoadLen()
	lineLZF                = 413  // Invalid LZF compressed string
	lineUnknownStringEnc   = 529  // Unknown RDB string encoding type %llu
	lineSetDupIntset       = 1809 // Duplicate set members detected
	lineSetDupDict         = 1829 // Duplicate set members detected
	lineZSetNaN            = 1882 // Zset with NAN score detected
	lineZSetDup            = 1894 // Duplicate zset fields detected
	lineHashDupListpack    = 1951 // Hash with dup elements
	lineHashDupDict        = 2019 // Duplicate hash fields detected
	lineQuicklist          = 2048 // Quicklist integrity check failed.
	lineQuicklistListpack  = 2071 // Listpack integrity check failed.
	lineQuicklistZiplist   = 2081 // Ziplist integrity check failed.
	lineZipmap             = 2130 // Zipmap integrity check failed.
	lineZipmapDup          = 2154 // Hash zipmap with dup elements, or big length (%u)
	lineListZiplist        = 2189 // List ziplist integrity check failed.
	lineIntset             = 2214 // Intset integrity check failed.
	lineZSetZiplist        = 2229 // Zset ziplist integrity check failed.
	lineZSetListpack       = 2255 // Zset listpack integrity check failed.
	lineHashZiplist        = 2275 // Hash ziplist integrity check failed.
	lineHashListpack       = 2301 // Hash listpack integrity check failed.
	lineStreamNodeKey      = 2343 // Stream node key entry is not the size of a stream ID
	lineStreamListpack     = 2362 // Stream listpack integrity check failed.
	lineStreamNodeDup      = 2386 // Listpack re-added with existing key
	lineStreamLength       = 2430 // Stream length inconsistent with rax entries
	lineStreamGroupDup     = 2480 // Duplicated consumer group name %s
	lineStreamPELDup       = 2516 // Duplicated global PEL entry loading stream consumer group
	lineStreamConsumerDup  = 2543 // Duplicate stream consumer detected.
	lineStreamNACKMissing  = 2574 // Consumer entry not found in group global PEL
	lineStreamNACKDup      = 2585 // Duplicated consumer PEL entry  loading a stream consumer group
	lineStreamNACKOrphan   = 2604 // Stream CG PEL entry without consumer
	lineRDBCRC             = 3225 // RDB CRC error
)
