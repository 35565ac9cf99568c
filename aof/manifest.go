package aof

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/hotkv/hotkv/resp"
)

// FileType is the type of a file in the manifest.
type FileType byte

// The file types, as the manifest spells them.
const (
	// TypeBase is the snapshot of the last rewrite: RDB (a ".base.rdb"
	// file) or commands (".base.aof"). At most one, loaded first.
	TypeBase FileType = 'b'
	// TypeHistory is a base or incremental file a later rewrite made
	// obsolete; it is not loaded, and is deleted unless
	// aof-disable-auto-gc is yes.
	TypeHistory FileType = 'h'
	// TypeIncr is a file of commands written after the base, loaded in
	// manifest order after it.
	TypeIncr FileType = 'i'
)

// Entry is one line of the manifest (Redis's aofInfo).
type Entry struct {
	Name string // a file name in the AOF directory, without a path
	Seq  int64  // its sequence number
	Type FileType
}

// Manifest lists the files of a multi-part AOF (Redis's aofManifest): the
// base, the history files and the incremental files, each list in
// manifest order. The zero value is the empty manifest Redis starts from
// when the AOF directory or its manifest does not exist.
type Manifest struct {
	Base    *Entry
	History []Entry
	Incr    []Entry
	// CurBaseSeq and CurIncrSeq are the sequence numbers of the last base
	// and incremental files (curr_base_file_seq, curr_incr_file_seq): new
	// files take the next ones.
	CurBaseSeq int64
	CurIncrSeq int64
}

// Clone returns a deep copy of m (aofManifestDup).
func (m *Manifest) Clone() *Manifest {
	c := &Manifest{
		History:    append([]Entry(nil), m.History...),
		Incr:       append([]Entry(nil), m.Incr...),
		CurBaseSeq: m.CurBaseSeq,
		CurIncrSeq: m.CurIncrSeq,
	}
	if m.Base != nil {
		b := *m.Base
		c.Base = &b
	}
	return c
}

// Empty reports whether m lists no base and no incremental file: there is
// nothing to load.
func (m *Manifest) Empty() bool { return m.Base == nil && len(m.Incr) == 0 }

// NewBase names the base file a rewrite creates and makes it the base,
// moving the current base, if any, to the head of the history list
// (getNewBaseFileNameAndMarkPreAsHistory). rdbPreamble is
// aof-use-rdb-preamble: it chooses the ".rdb" or ".aof" suffix.
func (m *Manifest) NewBase(fileName string, rdbPreamble bool) string {
	if m.Base != nil {
		old := *m.Base
		old.Type = TypeHistory
		m.History = append([]Entry{old}, m.History...)
	}
	m.CurBaseSeq++
	m.Base = &Entry{Name: BaseFileName(fileName, m.CurBaseSeq, rdbPreamble), Seq: m.CurBaseSeq, Type: TypeBase}
	return m.Base.Name
}

// NewIncr names a new incremental file and appends it to the incremental
// list (getNewIncrAofName).
func (m *Manifest) NewIncr(fileName string) string {
	m.CurIncrSeq++
	e := Entry{Name: IncrFileName(fileName, m.CurIncrSeq), Seq: m.CurIncrSeq, Type: TypeIncr}
	m.Incr = append(m.Incr, e)
	return e.Name
}

// LastIncr returns the name of the last incremental file, creating one
// with NewIncr when there is none (getLastIncrAofName). created reports
// the latter.
func (m *Manifest) LastIncr(fileName string) (name string, created bool) {
	if len(m.Incr) == 0 {
		return m.NewIncr(fileName), true
	}
	return m.Incr[len(m.Incr)-1].Name, false
}

// MarkIncrAsHistory moves the incremental files a rewrite has covered to
// the history list, as markRewrittenIncrAofAsHistory does after a
// successful rewrite: all of them but the last when keepLast (AOF is on:
// the last one is being written), taken from the tail and each put at the
// head of the history list (so they keep their order, before the older
// history). It reports whether it changed m.
func (m *Manifest) MarkIncrAsHistory(keepLast bool) bool {
	if len(m.Incr) == 0 {
		return false
	}
	n := len(m.Incr)
	if keepLast {
		n--
	}
	moved := make([]Entry, n)
	for i, e := range m.Incr[:n] {
		e.Type = TypeHistory
		moved[i] = e
	}
	m.History = append(moved, m.History...)
	m.Incr = append([]Entry(nil), m.Incr[n:]...)
	// Redis marks the manifest dirty even when it moved nothing.
	return true
}

// Format returns the manifest's text as Redis writes it
// (getAofManifestAsString): the base, then the history files, then the
// incremental files, one "file <name> seq <seq> type <t>\n" line each.
func (m *Manifest) Format() []byte {
	var b []byte
	if m.Base != nil {
		b = appendEntry(b, *m.Base)
	}
	for _, e := range m.History {
		b = appendEntry(b, e)
	}
	for _, e := range m.Incr {
		b = appendEntry(b, e)
	}
	return b
}

// appendEntry formats a line as aofInfoFormat does: the name is quoted
// with sdscatrepr when sdsneedsrepr says it must be. (An empty name, or
// one with a single quote, is written bare, as by Redis, and then does not
// parse back.)
func appendEntry(b []byte, e Entry) []byte {
	b = append(b, "file "...)
	if needsRepr(e.Name) {
		b = resp.AppendRepr(b, []byte(e.Name))
	} else {
		b = append(b, e.Name...)
	}
	b = append(b, " seq "...)
	b = strconv.AppendInt(b, e.Seq, 10)
	b = append(b, " type "...)
	return append(b, byte(e.Type), '\n')
}

// needsRepr is sdsneedsrepr: a backslash, a double quote, a blank or a
// byte isprint rejects (in the C locale).
func needsRepr(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '\\' || c == '"' || c <= ' ' || c > '~' {
			return true
		}
	}
	return false
}

// The manifest errors, as Redis words them (aofLoadManifestFromFile).
const (
	MsgManifestEmpty      = "Found an empty AOF manifest"
	MsgManifestRead       = "Read AOF manifest failed"
	MsgManifestLongLine   = "The AOF manifest file contains too long line"
	MsgManifestFormat     = "Invalid AOF manifest file format"
	MsgManifestPath       = "File can't be a path, just a filename"
	MsgManifestDupBase    = "Found duplicate base file information"
	MsgManifestNonMonoSeq = "Found a non-monotonic sequence number"
	MsgManifestUnknown    = "Unknown AOF file type"
)

// ManifestError is a manifest Redis refuses to load (it exits). Msg is
// one of the Msg* texts, or for a manifest that cannot be opened Redis's
// "Fatal error: can't open the AOF manifest file ..." text.
type ManifestError struct {
	Msg string
	// HasLine reports whether Redis shows the offending line: Line is its
	// number (counting comment lines, and the pieces of a line longer than
	// 1024 bytes, from 1) and Text the line without its surrounding
	// blanks, as Redis logs them.
	HasLine bool
	Line    int
	Text    string
	// Err is the I/O error behind MsgManifestRead or an open failure.
	Err error
}

func (e *ManifestError) Error() string {
	if e.HasLine {
		return fmt.Sprintf("%s (AOF manifest line %d: '%s')", e.Msg, e.Line, e.Text)
	}
	if e.Err != nil && e.Msg == MsgManifestRead {
		return e.Msg + ": " + e.Err.Error()
	}
	return e.Msg
}

func (e *ManifestError) Unwrap() error { return e.Err }

// LogLines returns the warnings Redis logs before it exits, each exactly
// as passed to serverLog.
func (e *ManifestError) LogLines() []string {
	if e.Err != nil && e.Msg != MsgManifestRead {
		return []string{e.Msg} // the open failure, logged alone
	}
	lines := []string{"\n*** FATAL AOF MANIFEST FILE ERROR ***\n"}
	if e.HasLine {
		lines = append(lines, fmt.Sprintf("Reading the manifest file, at line %d\n", e.Line),
			fmt.Sprintf(">>> '%s'\n", e.Text))
	}
	return append(lines, e.Msg+"\n")
}

// manifestMaxLine is MANIFEST_MAX_LINE: fgets reads lines of up to 1024
// bytes.
const manifestMaxLine = 1024

// ParseManifest reads a manifest as aofLoadManifestFromFile does, with its
// validation and errors (a *ManifestError):
//
//   - Lines are read with fgets into a 1025-byte buffer; a line starting
//     with '#' is a comment (a longer comment goes on in the next piece,
//     which is parsed as a line); a line without a '\n' (too long, or the
//     last line of a file that does not end with one) is an error, as is
//     a NUL byte before the '\n'.
//   - The line, trimmed of " \t\r\n", is split as sdssplitargs splits
//     (quotes and escapes); it must hold an even number, at least 6, of
//     words: key/value pairs whose keys "file", "seq" and "type" are
//     matched case-insensitively; unknown keys are ignored (forward
//     compatibility) and a repeated key overrides. The name must not hold
//     '/' or '\'; seq is read as atoll reads it ("7x" is 7) and must not
//     be 0; type is the value's first byte.
//   - At most one base; incremental sequence numbers strictly increase
//     (the first must be positive); history lines are not checked.
//
// A manifest without any line is an error; one with comments only is an
// empty Manifest.
func ParseManifest(r io.Reader) (*Manifest, error) {
	m := &Manifest{}
	c := newCfile(r, 0, cfileChunk)
	linenum := 0
	var maxSeq int64
	for {
		buf := c.fgets(manifestMaxLine + 1)
		if buf == nil {
			if c.err != nil {
				return nil, &ManifestError{Msg: MsgManifestRead, Err: c.err}
			}
			if linenum == 0 {
				return nil, &ManifestError{Msg: MsgManifestEmpty}
			}
			return m, nil
		}
		linenum++
		if buf[0] == '#' {
			continue
		}
		s := cstring(buf)
		if bytes.IndexByte(s, '\n') < 0 {
			return nil, &ManifestError{Msg: MsgManifestLongLine}
		}
		line := bytes.Trim(s, " \t\r\n")
		fail := func(msg string) error {
			return &ManifestError{Msg: msg, HasLine: true, Line: linenum, Text: string(line)}
		}
		if len(line) == 0 {
			return nil, fail(MsgManifestFormat)
		}
		argv, _, ok := resp.SplitArgs(nil, nil, line)
		if !ok || len(argv) < 6 || len(argv)%2 != 0 {
			return nil, fail(MsgManifestFormat)
		}
		var e Entry
		haveName := false
		for i := 0; i < len(argv); i += 2 {
			key, val := cstring(argv[i]), argv[i+1]
			switch {
			case asciiEqualFold(key, "file"):
				e.Name, haveName = string(cstring(val)), true
				if !pathIsBaseName(e.Name) {
					return nil, fail(MsgManifestPath)
				}
			case asciiEqualFold(key, "seq"):
				e.Seq = strtoll(val)
			case asciiEqualFold(key, "type"):
				e.Type = 0
				if len(val) > 0 {
					e.Type = FileType(val[0])
				}
			}
		}
		if !haveName || e.Seq == 0 || e.Type == 0 {
			return nil, fail(MsgManifestFormat)
		}
		switch e.Type {
		case TypeBase:
			if m.Base != nil {
				return nil, fail(MsgManifestDupBase)
			}
			m.Base = &e
			m.CurBaseSeq = e.Seq
		case TypeHistory:
			m.History = append(m.History, e)
		case TypeIncr:
			if e.Seq <= maxSeq {
				return nil, fail(MsgManifestNonMonoSeq)
			}
			m.Incr = append(m.Incr, e)
			m.CurIncrSeq = e.Seq
			maxSeq = e.Seq
		default:
			return nil, fail(MsgManifestUnknown)
		}
	}
}

// pathIsBaseName is Redis's pathIsBaseName: no '/' and no '\'.
func pathIsBaseName(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '/' || s[i] == '\\' {
			return false
		}
	}
	return true
}

// asciiEqualFold is strcasecmp(a, b) == 0 in the C locale.
func asciiEqualFold(a []byte, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
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

// ReadManifestFile reads and parses the manifest at path. An open failure
// is a *ManifestError with Redis's "Fatal error: can't open the AOF
// manifest file <path> for reading: <reason>" text (Err holds the
// *os.PathError: os.IsNotExist tells a missing manifest).
func ReadManifestFile(path string) (*Manifest, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &ManifestError{Msg: fmt.Sprintf("Fatal error: can't open the AOF manifest file %s for reading: %s",
			path, strerror(err)), Err: err}
	}
	defer f.Close()
	return ParseManifest(f)
}

// WriteManifestFile writes m as the manifest of the AOF directory dir, as
// writeAofManifestFile does: the text goes to TempManifestFileName
// (created or truncated, mode 0644), which is fsynced (fdatasync) and
// renamed over ManifestFileName; then the directory is fsynced, so that
// the rename, and any file created in the directory before, is durable.
// Errors are *OpError with Redis's log texts.
func WriteManifestFile(dir, fileName string, m *Manifest) error {
	name := ManifestFileName(fileName)
	tmpName := TempManifestFileName(fileName)
	path := filepath.Join(dir, name)
	tmpPath := filepath.Join(dir, tmpName)
	f, err := os.OpenFile(tmpPath, os.O_WRONLY|os.O_TRUNC|os.O_CREATE, 0o644)
	if err != nil {
		return opErr(err, "Can't open the AOF manifest file %s: %s", tmpName, strerror(err))
	}
	defer f.Close()
	if _, err := f.Write(m.Format()); err != nil {
		return opErr(err, "Error trying to write the temporary AOF manifest file %s: %s", tmpName, strerror(err))
	}
	if err := fdatasync(f); err != nil {
		return opErr(err, "Fail to fsync the temp AOF file %s: %s.", tmpName, strerror(err))
	}
	if err := os.Rename(tmpPath, path); err != nil {
		return opErr(err, "Error trying to rename the temporary AOF manifest file %s into %s: %s", tmpName, name, strerror(err))
	}
	if err := SyncDir(dir); err != nil {
		return opErr(err, "Fail to fsync AOF directory %s: %s.", path, strerror(err))
	}
	return nil
}

// OpError is a failed file operation: Msg is the warning Redis logs for
// it, Err the cause.
type OpError struct {
	Msg string
	Err error
}

func (e *OpError) Error() string { return e.Msg }
func (e *OpError) Unwrap() error { return e.Err }

func opErr(err error, format string, args ...any) error {
	return &OpError{Msg: fmt.Sprintf(format, args...), Err: err}
}

// strerror returns the text C's strerror gives for the errno behind err
// ("No such file or directory"), or err's text when there is none.
func strerror(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		s := errno.Error()
		if s != "" && s[0] >= 'a' && s[0] <= 'z' {
			s = string(s[0]-'a'+'A') + s[1:]
		}
		return s
	}
	return err.Error()
}

// SyncDir fsyncs the directory dir, making the creation, renaming and
// removal of its entries durable (Redis's fsyncFileDir).
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.EBADF) {
		return err
	}
	return nil
}
