package aof

import "strconv"

// AppendCommand appends args as a RESP multibulk, as
// catAppendOnlyGenericCommand writes a command to the AOF:
// "*<argc>\r\n" then "$<len>\r\n<arg>\r\n" per argument.
func AppendCommand(dst []byte, args [][]byte) []byte {
	dst = append(dst, '*')
	dst = strconv.AppendInt(dst, int64(len(args)), 10)
	dst = append(dst, '\r', '\n')
	for _, a := range args {
		dst = appendBulk(dst, a)
	}
	return dst
}

// AppendCommandStrings is AppendCommand for string arguments.
func AppendCommandStrings(dst []byte, args ...string) []byte {
	dst = append(dst, '*')
	dst = strconv.AppendInt(dst, int64(len(args)), 10)
	dst = append(dst, '\r', '\n')
	for _, a := range args {
		dst = append(dst, '$')
		dst = strconv.AppendInt(dst, int64(len(a)), 10)
		dst = append(dst, '\r', '\n')
		dst = append(dst, a...)
		dst = append(dst, '\r', '\n')
	}
	return dst
}

func appendBulk(dst, a []byte) []byte {
	dst = append(dst, '$')
	dst = strconv.AppendInt(dst, int64(len(a)), 10)
	dst = append(dst, '\r', '\n')
	dst = append(dst, a...)
	return append(dst, '\r', '\n')
}

// AppendSelect appends the SELECT Redis writes before a command for
// another database than the last one: "*2\r\n$6\r\nSELECT\r\n$<n>\r\n<db>\r\n"
// (feedAppendOnlyFile; a rewrite's base in AOF format writes the same
// bytes before each database's keys).
func AppendSelect(dst []byte, db int) []byte {
	dst = append(dst, "*2\r\n$6\r\nSELECT\r\n"...)
	var num [20]byte
	return appendBulk(dst, strconv.AppendInt(num[:0], int64(db), 10))
}

// AppendTimestamp appends a timestamp annotation, "#TS:<unix>\r\n"
// (genAofTimestampAnnotationIfNeeded, aof-timestamp-enabled).
func AppendTimestamp(dst []byte, unix int64) []byte {
	dst = append(dst, "#TS:"...)
	dst = strconv.AppendInt(dst, unix, 10)
	return append(dst, '\r', '\n')
}

// Feeder encodes the stream of commands written to the AOF, as
// feedAppendOnlyFile does: it remembers the database of the last command
// (aof_selected_db) to emit a SELECT when it changes, and, with
// Timestamps, the time of the last annotation, to emit one when a second
// has passed. The zero value is not ready: use NewFeeder. A Feeder is not
// safe for concurrent use.
type Feeder struct {
	// Timestamps is aof-timestamp-enabled.
	Timestamps bool

	selectedDB   int
	curTimestamp int64
}

// NewFeeder returns a Feeder whose first command emits a SELECT.
func NewFeeder() *Feeder { return &Feeder{selectedDB: -1} }

// Feed appends the encoding of a command on database db executed at unix
// time now (seconds; server.unixtime): a "#TS:" annotation when
// Timestamps is set and now is later than the last annotation's, a SELECT
// when db differs from the previous command's, then the command.
func (f *Feeder) Feed(dst []byte, now int64, db int, args [][]byte) []byte {
	return AppendCommand(f.FeedEncoded(dst, now, db, nil), args)
}

// FeedEncoded is Feed for a command already encoded (AppendCommand).
func (f *Feeder) FeedEncoded(dst []byte, now int64, db int, cmd []byte) []byte {
	if f.Timestamps && f.curTimestamp < now {
		f.curTimestamp = now
		dst = AppendTimestamp(dst, now)
	}
	if db != f.selectedDB {
		dst = AppendSelect(dst, db)
		f.selectedDB = db
	}
	return append(dst, cmd...)
}

// ForceSelect makes the next Feed emit a SELECT (aof_selected_db = -1), as
// Redis does when a rewrite starts (the new incremental file must not
// depend on the previous one) and when one completes.
func (f *Feeder) ForceSelect() { f.selectedDB = -1 }

// SelectedDB returns the database of the last command fed, -1 when the
// next one will emit a SELECT in any case.
func (f *Feeder) SelectedDB() int { return f.selectedDB }
