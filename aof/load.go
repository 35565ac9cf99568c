package aof

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/hotkv/hotkv/rdb"
)

// Status is the outcome of a successful load (loadAppendOnlyFiles's
// return values other than the failures).
type Status int

const (
	// StatusOK: every file was loaded (AOF_OK).
	StatusOK Status = iota
	// StatusNotExist: the manifest lists no base and no incremental file,
	// or there is no manifest: there was nothing to load
	// (AOF_NOT_EXIST). Redis starts with an empty dataset.
	StatusNotExist
	// StatusEmpty: the files listed are all empty (AOF_EMPTY).
	StatusEmpty
	// StatusTruncated: the last file ended with an incomplete command (or
	// transaction) that was dropped, as aof-load-truncated allows
	// (AOF_TRUNCATED). LoadResult.Truncation says where the file should
	// be truncated.
	StatusTruncated
)

func (s Status) String() string {
	switch s {
	case StatusOK:
		return "ok"
	case StatusNotExist:
		return "not exist"
	case StatusEmpty:
		return "empty"
	case StatusTruncated:
		return "truncated"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// LogLevel is the level of a message a Loader or a Dir logs.
type LogLevel int

const (
	LogNotice  LogLevel = iota // LL_NOTICE
	LogWarning                 // LL_WARNING
)

// Loader replays AOF files as Redis 7.0's loadAppendOnlyFiles and
// loadSingleAppendOnlyFile do. Each file is read as Redis reads it (see
// LoadStream); what it holds is handed to the callbacks. A Loader is not
// safe for concurrent use.
type Loader struct {
	// AllowTruncated is aof-load-truncated (Redis's default is yes): an
	// incomplete command, or a transaction without EXEC, at the end of the
	// last file is dropped instead of failing the load.
	AllowTruncated bool

	// OnCommand receives each command, in file order: args[0] is the
	// command name, as written (any case). args and its elements are only
	// valid during the call. A transaction is held back until its EXEC is
	// read, then delivered whole: MULTI, the queued commands, EXEC; one
	// that is never closed is never delivered (Redis queues its commands
	// and discards them). An EXEC outside a transaction is delivered as
	// it is (Redis runs it and ignores the error reply).
	//
	// Commands are executed as by Redis's fake AOF client: errors they
	// reply (WRONGTYPE...) are not load errors, so OnCommand returns nil
	// for them. An error it returns stops the load and comes back wrapped
	// in a *LoadError (with the file and the command's offset); wrap
	// ErrUnknownCommand for a command that does not exist, and the error
	// text is Redis's "Unknown command '<name>' reading the append only
	// file <file>". OnCommand must not be nil.
	OnCommand func(args [][]byte) error

	// RDB reads a file that starts with "REDIS": an RDB base, or the RDB
	// preamble of an old-style AOF (whose command tail is then read as
	// usual). Its callbacks receive the keys and functions. Nil makes
	// such a file an error (ErrRDB).
	RDB *rdb.FileReader
	// RDBInput, when set, wraps the input of RDB before it reads (the
	// server counts the bytes as the load's progress).
	RDBInput func(io.Reader) io.Reader

	// Log, when set, receives the messages Redis logs while loading, with
	// Redis's texts: "Reading RDB base file on AOF loading...", "DB loaded
	// from incr file <name>: 0.001 seconds", "Revert incomplete
	// MULTI/EXEC transaction in AOF file <name>", the "!!! Warning: short
	// read ..." lines, and the warnings of the errors returned.
	Log func(level LogLevel, msg string)
}

// FileResult describes one file a Loader read.
type FileResult struct {
	Name string
	// Size is the file's size when the load started, less the zeros that
	// ended it if it is an incremental file (see LoadResult.Trims).
	Size int64
	// Empty reports a file of 0 bytes (AOF_EMPTY: nothing was read).
	Empty bool
	// RDB reports a file that starts with an RDB (FileReader read it;
	// RDBInfo is what it returned, RDBInfo.Size the RDB's length).
	RDB     bool
	RDBInfo rdb.FileInfo
	// Commands is the number of commands read (those of a transaction
	// that was not closed included).
	Commands int64
	// Truncation, when not nil, reports the incomplete tail that was
	// dropped.
	Truncation *Truncation
}

// LoadResult describes a load of an AOF directory.
type LoadResult struct {
	Status Status
	// Files are the files loaded, base first.
	Files []FileResult
	// TotalSize is the sum of the sizes of the base and incremental files
	// (Redis's aof_current_size after loading); BaseSize the base's
	// (aof_rewrite_base_size).
	TotalSize int64
	BaseSize  int64
	// Truncation is the last file's truncation when Status is
	// StatusTruncated.
	Truncation *Truncation
	// Trims are the truncations that remove the zero bytes ending
	// incremental files (the space OSFile preallocates, left by a crash),
	// to apply before appending. Those bytes were not read.
	Trims []*Truncation
}

// Truncation is an incomplete tail that a load dropped: Redis then
// truncates the file to ValidLength (truncate(2)), so that new commands
// are not appended after garbage. Apply does it.
type Truncation struct {
	File string // the file's name
	Path string // its path (empty for LoadStream)
	// Size is the length of the file as it was read.
	Size int64
	// ValidLength is the offset after the last complete command (Redis's
	// valid_up_to), or, for a transaction that was never closed, the
	// offset of its MULTI. Unlike Redis, which counts from 0, it is never
	// less than the length of an RDB preamble: Redis 7.0 truncates an
	// RDB-preamble file whose command tail is incomplete before its first
	// command to 0 bytes, destroying the RDB.
	ValidLength int64
	// RevertedMulti reports a file that ended inside a transaction
	// ("Revert incomplete MULTI/EXEC transaction in AOF file").
	RevertedMulti bool
}

// Apply truncates the file at Path to ValidLength.
func (t *Truncation) Apply() error {
	if t.Path == "" {
		return errors.New("aof: truncation of a stream without a path")
	}
	if err := os.Truncate(t.Path, t.ValidLength); err != nil {
		return opErr(err, "Error truncating the AOF file %s: %s", t.File, strerror(err))
	}
	return nil
}

// The kinds of load failures: a *LoadError matches one of them with
// errors.Is.
var (
	// ErrBadFormat: a line that should start a command ('*') or an
	// argument ('$') does not, a command with fewer than 1 argument, or a
	// negative argument length (on which Redis crashes). Redis: "Bad file
	// format reading the append only file".
	ErrBadFormat = errors.New("aof: bad file format")
	// ErrUnexpectedEOF: a file ends in the middle of a command or of a
	// transaction and truncation is not allowed. Redis: "Unexpected end of
	// file reading the append only file".
	ErrUnexpectedEOF = errors.New("aof: unexpected end of file")
	// ErrTruncatedNotLast: a file other than the last one ends in the
	// middle of a command or transaction ("Fatal error: the truncated file
	// is not the last file"). Redis 7.0 truncates that file before it
	// fails; this package does not (LoadError.Truncation says where Redis
	// would have).
	ErrTruncatedNotLast = errors.New("aof: the truncated file is not the last file")
	// ErrRead: reading failed ("Unrecoverable error reading the append
	// only file"), by an I/O error, or, as in Redis, because the count
	// line of a command is "*" followed by a NUL byte.
	ErrRead = errors.New("aof: unrecoverable read error")
	// ErrRDB: the RDB base or preamble could not be read (the cause is
	// the FileReader's error: a *rdb.FileError). The message is the one
	// loadSingleAppendOnlyFile logs when rdbLoadRio fails; for most
	// corruptions Redis exits from within rdb.c first, with rdb.c's
	// messages.
	ErrRDB = errors.New("aof: error reading the RDB part")
	// ErrMissingFile: a file listed in the manifest cannot be stat'ed or
	// opened ("Unable to obtain the AOF file ... length").
	ErrMissingFile = errors.New("aof: file listed in the manifest unavailable")
	// ErrUnknownCommand is for OnCommand to wrap when a command does not
	// exist (Redis: "Unknown command '%s' reading the append only file
	// %s").
	ErrUnknownCommand = errors.New("aof: unknown command")
	// ErrCallback: OnCommand (or an RDB callback) returned another error,
	// which the LoadError wraps too.
	ErrCallback = errors.New("aof: loading callback failed")
)

// LoadError is a file a Loader could not load. It matches its Kind (one of
// the Err* values above) and its cause with errors.Is and errors.As.
type LoadError struct {
	Kind error
	File string // the file's name
	// Offset is the byte offset in the file where loading failed: the
	// start of the line or argument that is malformed, the valid length
	// of a truncated file (where its incomplete tail starts), the start of
	// the command OnCommand refused, or the RDB record that could not be
	// read.
	Offset int64
	// Msg is the warning Redis logs for the failure, with its text.
	Msg string
	// Err is the cause, when there is one: an I/O error, a
	// *rdb.FileError, or OnCommand's error.
	Err error
	// Truncation, for ErrTruncatedNotLast, is the truncation the file
	// would need.
	Truncation *Truncation
}

func (e *LoadError) Error() string {
	return fmt.Sprintf("%s (file %s, offset %d)", e.Msg, e.File, e.Offset)
}

func (e *LoadError) Unwrap() []error {
	if e.Err != nil {
		return []error{e.Kind, e.Err}
	}
	return []error{e.Kind}
}

func (l *Loader) log(level LogLevel, format string, args ...any) {
	if l.Log != nil {
		l.Log(level, fmt.Sprintf(format, args...))
	}
}

// fail logs the warning of a failure and returns it.
func (l *Loader) fail(kind error, file string, off int64, cause error, format string, args ...any) *LoadError {
	e := &LoadError{Kind: kind, File: file, Offset: off, Err: cause, Msg: fmt.Sprintf(format, args...)}
	// Where, first: Redis's own line is the last one (tests read the
	// log's last line).
	l.log(LogNotice, "Loading the append only file %s failed at offset %d", file, off)
	l.log(LogWarning, "%s", e.Msg)
	return e
}

// LoadDir loads the AOF directory dir whose files are named after
// fileName (appendfilename): OpenDir, then Load.
func (l *Loader) LoadDir(dir, fileName string) (*LoadResult, error) {
	d, err := OpenDir(dir, fileName)
	if err != nil {
		return nil, err
	}
	return l.Load(d)
}

// Load loads the files d's manifest lists, as loadAppendOnlyFiles does:
//
//   - A manifest without base and incremental files gives StatusNotExist.
//   - Every listed file must exist (ErrMissingFile otherwise); when they
//     are all empty, StatusEmpty and nothing is read.
//   - The base, then each incremental file in order, is read with
//     LoadStream's rules; empty files are skipped. A file other than the
//     last one that ends with an incomplete command or transaction is an
//     error even when truncation is allowed (ErrTruncatedNotLast).
//
// Unlike Redis, Load ignores the zero bytes that end an incremental file
// (the space OSFile preallocates): the file is read up to its last
// non-zero byte, and LoadResult.Trims says how to remove them.
//
// Load does not look for an old-style AOF: call Dir.UpgradeOldStyle
// first, as Redis does. It truncates nothing: with StatusTruncated, the
// caller applies LoadResult.Truncation (and LoadResult.Trims) before
// appending to the file.
func (l *Loader) Load(d *Dir) (*LoadResult, error) {
	m := d.Manifest
	res := &LoadResult{}
	if m.Empty() {
		res.Status = StatusNotExist
		return res, nil
	}
	var names []string
	if m.Base != nil {
		names = append(names, m.Base.Name)
	}
	for _, e := range m.Incr {
		names = append(names, e.Name)
	}
	sizes := make([]int64, len(names))
	for i, name := range names {
		fi, err := os.Stat(d.FilePath(name))
		if err != nil {
			return nil, l.fail(ErrMissingFile, name, 0, err,
				"Unable to obtain the AOF file %s length. stat: %s", name, strerror(err))
		}
		sizes[i] = fi.Size()
		if i > 0 || m.Base == nil {
			zeros, err := zeroTail(d.FilePath(name), sizes[i])
			if err != nil {
				return nil, l.fail(ErrRead, name, 0, err,
					"Unrecoverable error reading the append only file %s: %s", name, strerror(err))
			}
			if zeros > 0 {
				res.Trims = append(res.Trims, &Truncation{File: name, Path: d.FilePath(name),
					Size: sizes[i], ValidLength: sizes[i] - zeros})
				sizes[i] -= zeros
			}
		}
		res.TotalSize += sizes[i]
	}
	if res.TotalSize == 0 {
		res.Status = StatusEmpty
		return res, nil
	}
	if m.Base != nil {
		res.BaseSize = sizes[0]
	}
	for i, name := range names {
		last := i == len(names)-1
		start := time.Now()
		fr, err := l.loadFile(d.FilePath(name), name, sizes[i], last, name == d.FileName)
		if err != nil {
			return nil, err
		}
		res.Files = append(res.Files, *fr)
		if !fr.Empty {
			kind := "incr"
			if i == 0 && m.Base != nil {
				kind = "base"
			}
			l.log(LogNotice, "DB loaded from %s file %s: %.3f seconds", kind, name, time.Since(start).Seconds())
		}
		if fr.Truncation != nil {
			res.Status = StatusTruncated
			res.Truncation = fr.Truncation
		}
	}
	return res, nil
}

// loadFile opens and loads the first size bytes of one file of the
// directory.
func (l *Loader) loadFile(path, name string, size int64, last, oldStyle bool) (*FileResult, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, l.fail(ErrMissingFile, name, 0, err,
			"Fatal error: can't open the append log file %s for reading: %s", name, strerror(err))
	}
	defer f.Close()
	return l.load(io.NewSectionReader(f, 0, size), name, path, last, oldStyle)
}

// zeroTail returns the number of zero bytes that end the file at path,
// whose size is size. Commands end with "\r\n", so in an AOF these can
// only be preallocated space or the end of a torn command.
func zeroTail(path string, size int64) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	end := size
	for end > 0 {
		n := min(end, int64(len(buf)))
		if _, err := f.ReadAt(buf[:n], end-n); err != nil {
			return 0, err
		}
		for i := n - 1; i >= 0; i-- {
			if buf[i] != 0 {
				return size - (end - n + i + 1), nil
			}
		}
		end -= n
	}
	return size, nil
}

// annotationLineMax is AOF_ANNOTATION_LINE_MAX_LEN, the size of the buffer
// Redis reads lines into with fgets.
const annotationLineMax = 1024

// LoadStream loads one AOF file, named name in messages, from r, as
// loadSingleAppendOnlyFile reads it; last tells whether it is the last file
// of the load (only the last may be truncated). The rules, Redis's:
//
//   - A file that starts with "REDIS" is first read with l.RDB up to the
//     end of the RDB (its checksum); what follows is read as commands.
//   - Lines are read with fgets into a 1024-byte buffer. A line starting
//     with '#' is an annotation ("#TS:<unix time>") and is skipped.
//   - A command is "*<argc>" (atoi, at least 1; the rest of the line is
//     ignored) and argc arguments, each "$<len>" (strtol; the rest of the
//     line is ignored) then len bytes and two more bytes that are not
//     checked to be "\r\n".
//   - A line that should start a command or an argument but does not is
//     ErrBadFormat, anywhere in the file. So is a negative length (Redis
//     crashes).
//   - When the file ends in the middle of a command, or inside a
//     transaction (MULTI without EXEC, the command names compared
//     case-insensitively), the file is truncated: with AllowTruncated and
//     last, the load succeeds and FileResult.Truncation gives the length
//     to truncate the file to; otherwise ErrUnexpectedEOF, or
//     ErrTruncatedNotLast when truncation is allowed but the file is not
//     the last.
func (l *Loader) LoadStream(r io.ReadSeeker, name string, last bool) (*FileResult, error) {
	return l.load(r, name, "", last, false)
}

func (l *Loader) load(r io.ReadSeeker, name, path string, last, oldStyle bool) (*FileResult, error) {
	res := &FileResult{Name: name}
	size, err := r.Seek(0, io.SeekEnd)
	if err == nil {
		_, err = r.Seek(0, io.SeekStart)
	}
	if err != nil {
		return nil, l.fail(ErrRead, name, 0, err,
			"Unrecoverable error reading the append only file %s: %s", name, strerror(err))
	}
	res.Size = size
	if size == 0 {
		res.Empty = true
		return res, nil
	}
	if l.OnCommand == nil {
		return nil, errors.New("aof: Loader.OnCommand is nil")
	}

	// Is it an RDB? (fread of 5 bytes and memcmp with "REDIS".)
	var start int64
	var sig [5]byte
	if n, _ := io.ReadFull(r, sig[:]); n == 5 && string(sig[:]) == "REDIS" {
		if oldStyle {
			l.log(LogNotice, "Reading RDB preamble from AOF file...")
		} else {
			l.log(LogNotice, "Reading RDB base file on AOF loading...")
		}
		if _, err := r.Seek(0, io.SeekStart); err != nil {
			return nil, l.fail(ErrRead, name, 0, err,
				"Unrecoverable error reading the append only file %s: %s", name, strerror(err))
		}
		info, err := l.readRDB(r)
		if err != nil {
			var fe *rdb.FileError
			if !errors.As(err, &fe) && l.RDB != nil {
				return nil, l.fail(ErrCallback, name, 0, err, "Error loading the RDB part of the AOF file %s: %v", name, err)
			}
			var off int64
			if fe != nil {
				off = fe.Offset
			}
			if oldStyle {
				return nil, l.fail(ErrRDB, name, off, err,
					"Error reading the RDB preamble of the AOF file %s, AOF loading aborted", name)
			}
			return nil, l.fail(ErrRDB, name, off, err,
				"Error reading the RDB base file %s, AOF loading aborted", name)
		}
		res.RDB, res.RDBInfo = true, info
		start = info.Size
		if oldStyle {
			l.log(LogNotice, "Reading the remaining AOF tail...")
		}
	}
	if _, err := r.Seek(start, io.SeekStart); err != nil {
		return nil, l.fail(ErrRead, name, start, err,
			"Unrecoverable error reading the append only file %s: %s", name, strerror(err))
	}

	c := newCfile(r, start, size)
	validUpTo := start // Redis: 0 (see Truncation.ValidLength)
	validBeforeMulti := start
	var (
		arena   []byte
		ends    []int
		args    [][]byte
		inMulti bool
		queued  []queuedCommand
	)
	readErr := func(off int64) error {
		cause := c.err
		if cause == nil {
			cause = errors.New("count line with a NUL byte after '*'")
		}
		return l.fail(ErrRead, name, off, cause,
			"Unrecoverable error reading the append only file %s: %s", name, strerror(cause))
	}
	fmtErr := func(off int64) error {
		return l.fail(ErrBadFormat, name, off, nil,
			"Bad file format reading the append only file %s: make a backup of your AOF file, "+
				"then use ./redis-check-aof --fix <filename.manifest>", name)
	}
	deliver := func(args [][]byte, off int64) error {
		err := l.OnCommand(args)
		if err == nil {
			return nil
		}
		if errors.Is(err, ErrUnknownCommand) {
			return l.fail(ErrUnknownCommand, name, off, err,
				"Unknown command '%s' reading the append only file %s", cstring(args[0]), name)
		}
		return l.fail(ErrCallback, name, off, err,
			"Error executing a command of the append only file %s: %v", name, err)
	}

	truncated := false
	for !truncated {
		cmdStart := c.pos
		line := c.fgets(annotationLineMax)
		if line == nil {
			if c.err != nil {
				return nil, readErr(cmdStart)
			}
			break // end of file
		}
		if line[0] == '#' {
			continue
		}
		if line[0] != '*' {
			return nil, fmtErr(cmdStart)
		}
		if len(cstring(line)) == 1 { // buf[1] == '\0'
			if !c.eof {
				return nil, readErr(cmdStart)
			}
			truncated = true
			break
		}
		argc := atoi(line[1:])
		if argc < 1 {
			return nil, fmtErr(cmdStart)
		}
		arena, ends = arena[:0], ends[:0]
		for j := int32(0); j < argc; j++ {
			argStart := c.pos
			line := c.fgets(annotationLineMax)
			if line == nil {
				if !c.eof {
					return nil, readErr(argStart)
				}
				truncated = true
				break
			}
			if line[0] != '$' {
				return nil, fmtErr(argStart)
			}
			n := strtoll(line[1:])
			if n < 0 {
				// Redis's sdsnewlen asserts or runs out of memory on the
				// length cast to unsigned long.
				return nil, fmtErr(argStart)
			}
			var ok bool
			if n > size-c.pos {
				ok = c.skip(n) // reads to the end without buffering it
			} else {
				arena = slices.Grow(arena, int(n)) // at most the file's size
				arena, ok = c.fread(arena, n)
			}
			if ok {
				ok = c.skip(2) // the CRLF, not checked
			}
			if !ok {
				if !c.eof {
					return nil, readErr(argStart)
				}
				truncated = true
				break
			}
			ends = append(ends, len(arena))
		}
		if truncated {
			break
		}
		res.Commands++
		args = args[:0]
		prev := 0
		for _, e := range ends {
			args = append(args, arena[prev:e:e])
			prev = e
		}
		isMulti := asciiEqualFold(cstring(args[0]), "multi")
		isExec := asciiEqualFold(cstring(args[0]), "exec")
		if isMulti {
			validBeforeMulti = validUpTo
		}
		switch {
		case inMulti && !isExec, !inMulti && isMulti:
			queued = append(queued, queuedCommand{off: cmdStart, args: copyArgs(args)})
			inMulti = true
		case inMulti: // EXEC
			for _, q := range queued {
				if err := deliver(q.args, q.off); err != nil {
					return nil, err
				}
			}
			queued, inMulti = queued[:0], false
			if err := deliver(args, cmdStart); err != nil {
				return nil, err
			}
		default:
			if err := deliver(args, cmdStart); err != nil {
				return nil, err
			}
		}
		validUpTo = c.pos
	}

	t := &Truncation{File: name, Path: path, Size: size, ValidLength: validUpTo}
	if !truncated {
		if !inMulti {
			return res, nil
		}
		// A clean end inside a transaction is handled as a short read.
		l.log(LogWarning, "Revert incomplete MULTI/EXEC transaction in AOF file %s", name)
		t.ValidLength, t.RevertedMulti = validBeforeMulti, true
	}
	if !l.AllowTruncated {
		return nil, l.fail(ErrUnexpectedEOF, name, t.ValidLength, nil,
			"Unexpected end of file reading the append only file %s. You can: "+
				"1) Make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>. "+
				"2) Alternatively you can set the 'aof-load-truncated' configuration option to yes and restart the server.", name)
	}
	l.log(LogWarning, "!!! Warning: short read while loading the AOF file %s!!!", name)
	if !last {
		e := l.fail(ErrTruncatedNotLast, name, t.ValidLength, nil, "Fatal error: the truncated file is not the last file")
		e.Truncation = t
		return nil, e
	}
	l.log(LogWarning, "!!! Truncating the AOF %s at offset %d !!!", name, t.ValidLength)
	l.log(LogWarning, "AOF %s loaded anyway because aof-load-truncated is enabled", name)
	res.Truncation = t
	return res, nil
}

// readRDB reads an RDB from r with l.RDB.
func (l *Loader) readRDB(r io.Reader) (rdb.FileInfo, error) {
	if l.RDB == nil {
		return rdb.FileInfo{}, &rdb.FileError{Offset: 0, Err: errors.New("aof: the file is an RDB and Loader.RDB is nil")}
	}
	if l.RDBInput != nil {
		r = l.RDBInput(r)
	}
	return l.RDB.Read(r)
}

type queuedCommand struct {
	off  int64
	args [][]byte
}

// copyArgs copies args into one allocation.
func copyArgs(args [][]byte) [][]byte {
	n := 0
	for _, a := range args {
		n += len(a)
	}
	buf := make([]byte, 0, n)
	out := make([][]byte, len(args))
	for i, a := range args {
		buf = append(buf, a...)
		out[i] = buf[len(buf)-len(a) : len(buf) : len(buf)]
	}
	return out
}
