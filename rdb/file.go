package rdb

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"
)

// DefaultRedisVersion is the "redis-ver" a FileWriter writes unless told
// otherwise: the Redis release whose RDB format this package follows.
const DefaultRedisVersion = "7.0.15"

// fileMagic is the header of an RDB file: "REDIS" and the version in four
// digits.
const fileMagic = "REDIS0010"

// ReplInfo is the replication state Redis writes as auxiliary fields when
// it has some (rdbPopulateSaveInfo: a master with a replication backlog,
// or a replica).
type ReplInfo struct {
	StreamDB int    // "repl-stream-db"
	ID       string // "repl-id", 40 hex characters
	Offset   int64  // "repl-offset"
}

// FileWriterOptions configure a FileWriter. The zero value writes a file
// as a default Redis 7.0 would, except for Encode, whose zero value is not
// Redis's default (use DefaultEncodeOptions).
type FileWriterOptions struct {
	// RedisVersion is the "redis-ver" field; empty means
	// DefaultRedisVersion.
	RedisVersion string
	// CTime is the "ctime" field, the creation time in Unix seconds; zero
	// means now.
	CTime int64
	// UsedMem is the "used-mem" field, in bytes.
	UsedMem int64
	// Repl, when not nil, adds repl-stream-db, repl-id and repl-offset.
	Repl *ReplInfo
	// AOFBase is the "aof-base" field: whether the file is the base of an
	// AOF (a multi-part AOF's RDB preamble).
	AOFBase bool
	// DisableChecksum is rdbchecksum no: the trailer is 8 zero bytes,
	// which loaders take for "no checksum".
	DisableChecksum bool
	// Encode chooses the encodings of values; Encode.Compress is also
	// rdbcompression for keys, auxiliary fields and function code.
	Encode EncodeOptions
}

// FileWriter writes an RDB file (dump.rdb) as Redis 7.0's rdbSaveRio does,
// streaming to an io.Writer through a buffer:
//
//	"REDIS0010"
//	AUX redis-ver, redis-bits (64), ctime, used-mem,
//	    [repl-stream-db, repl-id, repl-offset,] aof-base
//	FUNCTION2 records                            (WriteFunction)
//	per database: SELECTDB db, RESIZEDB keys expires  (SelectDB)
//	    per key: [EXPIRETIME_MS t] [IDLE s] [FREQ f] type key value  (WriteKey)
//	EOF, CRC64 of everything before it, little endian  (Finish)
//
// NewFileWriter writes the header and the auxiliary fields; the caller
// then calls the methods in the order above (Redis writes functions before
// databases, databases in ascending order, each with its key count, and
// loaders accept any order). Once a write fails, every later call returns
// the same error. A FileWriter is not safe for concurrent use.
type FileWriter struct {
	w       *bufio.Writer
	crc     uint64
	noCRC   bool
	opts    EncodeOptions
	scratch []byte
	n       int64
	err     error
	done    bool
}

// NewFileWriter starts an RDB file on w: it writes the magic and the
// auxiliary fields Redis 7.0 writes (rdbSaveInfoAuxFields), in Redis's
// order, each value as rdbSaveAuxFieldStrStr/StrInt formats it.
func NewFileWriter(w io.Writer, opts FileWriterOptions) (*FileWriter, error) {
	fw := &FileWriter{w: bufio.NewWriterSize(w, 64<<10), noCRC: opts.DisableChecksum, opts: opts.Encode}
	ver := opts.RedisVersion
	if ver == "" {
		ver = DefaultRedisVersion
	}
	ctime := opts.CTime
	if ctime == 0 {
		ctime = time.Now().Unix()
	}
	fw.write([]byte(fileMagic))
	fw.aux("redis-ver", ver)
	fw.aux("redis-bits", "64")
	fw.aux("ctime", strconv.FormatInt(ctime, 10))
	fw.aux("used-mem", strconv.FormatInt(opts.UsedMem, 10))
	if r := opts.Repl; r != nil {
		fw.aux("repl-stream-db", strconv.Itoa(r.StreamDB))
		fw.aux("repl-id", r.ID)
		fw.aux("repl-offset", strconv.FormatInt(r.Offset, 10))
	}
	aofBase := "0"
	if opts.AOFBase {
		aofBase = "1"
	}
	fw.aux("aof-base", aofBase)
	if fw.err != nil {
		return nil, fw.err
	}
	return fw, nil
}

// write writes p, updating the checksum, unless an earlier write failed.
func (fw *FileWriter) write(p []byte) {
	if fw.err != nil {
		return
	}
	if fw.done {
		fw.err = errors.New("rdb: FileWriter used after Finish")
		return
	}
	if !fw.noCRC {
		fw.crc = CRC64(fw.crc, p)
	}
	n, err := fw.w.Write(p)
	fw.n += int64(n)
	fw.err = err
}

func (fw *FileWriter) aux(key, value string) {
	fw.scratch = append(fw.scratch[:0], OpcodeAux)
	fw.scratch = AppendString(fw.scratch, key, fw.opts.Compress)
	fw.scratch = AppendString(fw.scratch, value, fw.opts.Compress)
	fw.write(fw.scratch)
}

// WriteAux writes an auxiliary field (RDB_OPCODE_AUX) of the caller's.
// Loaders ignore fields they do not know; Redis logs fields whose name
// starts with '%' at start-up.
func (fw *FileWriter) WriteAux(key, value string) error {
	fw.aux(key, value)
	return fw.err
}

// WriteFunction writes a function library (RDB_OPCODE_FUNCTION2 and its
// code as an RDB string), as rdbSaveFunctions does.
func (fw *FileWriter) WriteFunction(code string) error {
	fw.scratch = append(fw.scratch[:0], OpcodeFunction2)
	fw.scratch = AppendString(fw.scratch, code, fw.opts.Compress)
	fw.write(fw.scratch)
	return fw.err
}

// SelectDB starts database db (RDB_OPCODE_SELECTDB) and writes the number
// of keys and of keys with an expiration that follow (RDB_OPCODE_RESIZEDB,
// a hint loaders use to size their tables). Redis writes nothing for an
// empty database.
func (fw *FileWriter) SelectDB(db int, keys, expires uint64) error {
	if db < 0 {
		return fmt.Errorf("rdb: SelectDB(%d)", db)
	}
	fw.scratch = AppendLen(append(fw.scratch[:0], OpcodeSelectDB), uint64(db))
	fw.scratch = AppendLen(append(fw.scratch, OpcodeResizeDB), keys)
	fw.scratch = AppendLen(fw.scratch, expires)
	fw.write(fw.scratch)
	return fw.err
}

// WriteKey writes a key and its value as rdbSaveKeyValuePair does: the
// expiration (RDB_OPCODE_EXPIRETIME_MS, an absolute Unix time in
// milliseconds) unless expireMs is -1, the LRU idle time in seconds
// (RDB_OPCODE_IDLE; Redis writes it under an LRU maxmemory-policy) unless
// lruIdle is -1, the LFU counter (RDB_OPCODE_FREQ, 0-255; written under an
// LFU policy) unless lfuFreq is -1, then the value's type, the key and the
// value (EncodeValue's encoding, with the options given to
// NewFileWriter). The contract on v is EncodeValue's; an invalid Kind, a
// stream value without its Stream, or out-of-range lruIdle or lfuFreq is
// an error.
func (fw *FileWriter) WriteKey(key []byte, v *Value, expireMs, lruIdle int64, lfuFreq int) error {
	if fw.err != nil {
		return fw.err
	}
	if v.Kind > KindStream || v.Kind == KindStream && v.Stream == nil {
		return fmt.Errorf("rdb: WriteKey of a value of kind %v (stream %v)", v.Kind, v.Stream != nil)
	}
	if lruIdle < -1 || lfuFreq < -1 || lfuFreq > 255 {
		return fmt.Errorf("rdb: WriteKey with LRU idle %d, LFU counter %d", lruIdle, lfuFreq)
	}
	s := appendKeyOpcodes(fw.scratch[:0], expireMs, lruIdle, lfuFreq)
	typeAt := len(s)
	s = append(s, 0)
	s = AppendString(s, key, fw.opts.Compress)
	typ, s := appendObject(s, v, &fw.opts)
	s[typeAt] = typ
	fw.write(s)
	if cap(s) <= 1<<20 {
		fw.scratch = s[:0]
	} else {
		fw.scratch = nil // do not hold on to a huge value's buffer
	}
	return fw.err
}

// appendKeyOpcodes appends the opcodes that precede a key's type byte:
// its expiry, LRU idle time and LFU counter (each -1 for none).
func appendKeyOpcodes(s []byte, expireMs, lruIdle int64, lfuFreq int) []byte {
	if expireMs != -1 {
		s = binary.LittleEndian.AppendUint64(append(s, OpcodeExpireTimeMS), uint64(expireMs))
	}
	if lruIdle != -1 {
		s = AppendLen(append(s, OpcodeIdle), uint64(lruIdle))
	}
	if lfuFreq != -1 {
		s = append(s, OpcodeFreq, byte(lfuFreq))
	}
	return s
}

// WriteKeyEncoded is WriteKey for a value already encoded by EncodeValue
// (its type byte and object: what a DUMP payload holds before its
// footer), copied as it is: a snapshot writes a value from the disk tier
// without decoding it. enc is not checked beyond its type byte.
func (fw *FileWriter) WriteKeyEncoded(key, enc []byte, expireMs, lruIdle int64, lfuFreq int) error {
	if fw.err != nil {
		return fw.err
	}
	if len(enc) == 0 || !IsObjectType(enc[0]) {
		return fmt.Errorf("rdb: WriteKeyEncoded of a value that is not an encoded object")
	}
	if lruIdle < -1 || lfuFreq < -1 || lfuFreq > 255 {
		return fmt.Errorf("rdb: WriteKeyEncoded with LRU idle %d, LFU counter %d", lruIdle, lfuFreq)
	}
	s := appendKeyOpcodes(fw.scratch[:0], expireMs, lruIdle, lfuFreq)
	s = append(s, enc[0])
	s = AppendString(s, key, fw.opts.Compress)
	fw.write(s)
	fw.write(enc[1:])
	fw.scratch = s[:0]
	return fw.err
}

// Finish writes the EOF opcode and the checksum (zero when disabled) and
// flushes the buffer. It does not close the underlying writer. The
// FileWriter cannot be used afterwards.
func (fw *FileWriter) Finish() error {
	fw.write([]byte{OpcodeEOF})
	if fw.err != nil {
		return fw.err
	}
	var sum [8]byte
	if !fw.noCRC {
		binary.LittleEndian.PutUint64(sum[:], fw.crc)
	}
	n, err := fw.w.Write(sum[:])
	fw.n += int64(n)
	if err == nil {
		err = fw.w.Flush()
	}
	fw.done = true
	if err != nil {
		fw.err = err
	}
	return err
}

// Size returns the number of bytes written so far (buffered or not).
func (fw *FileWriter) Size() int64 { return fw.n }

// ErrChecksum reports an RDB file whose stored CRC64 differs from the
// CRC64 of its content (Redis: "Wrong RDB checksum"). FileReader errors
// wrap it together with ErrCorrupt.
var ErrChecksum = errors.New("rdb: wrong RDB checksum")

// ChecksumError is a file's wrong checksum: Redis logs "Wrong RDB checksum
// expected: (<Computed>) but got (<Stored>). Aborting now." (in hex), then
// reports "RDB CRC error". It is ErrCorrupt and ErrChecksum (errors.Is).
type ChecksumError struct{ Stored, Computed uint64 }

func (e *ChecksumError) Error() string {
	return fmt.Sprintf("%v: %v: stored %016x, computed %016x", ErrCorrupt, ErrChecksum, e.Stored, e.Computed)
}

func (e *ChecksumError) Is(target error) bool { return target == ErrCorrupt || target == ErrChecksum }

// FileError is the error FileReader.Read returns for a file it cannot
// load: the offset in the file of the element that could not be read (a
// record, or the key or value inside it), and the cause, which wraps
// ErrCorrupt, ErrTruncated, ErrChecksum, ErrUnsupported, an error of
// DecodeFunctions' (ErrLibraryPayload, ...) or the reader's I/O error.
type FileError struct {
	Offset int64
	Err    error
}

func (e *FileError) Error() string {
	return fmt.Sprintf("rdb file: offset %d: %v", e.Offset, e.Err)
}

func (e *FileError) Unwrap() error { return e.Err }

// FileReader loads an RDB file as Redis 7.0's rdbLoadRio does, streaming
// from an io.Reader: it holds only the record being decoded (plus a read
// buffer) in memory, and calls back for each record. (A corrupt length
// that claims more bytes than remain makes it read to the end of the
// input before it reports the truncation.) Callbacks left nil
// are not called; the records are still checked. An error from a callback
// stops Read, which returns it unchanged.
type FileReader struct {
	// OnAux receives each auxiliary field (RDB_OPCODE_AUX): redis-ver,
	// ctime, used-mem, repl-id and so on. key and value are only valid
	// during the call.
	OnAux func(key, value []byte) error
	// OnFunction receives each function library's code, as DecodeFunctions
	// returns it (RDB_OPCODE_FUNCTION2, and the 7.0 pre-release
	// RDB_OPCODE_FUNCTION converted as Redis converts it). Compiling it is
	// the caller's.
	OnFunction func(code string) error
	// OnSelectDB receives the database number of each RDB_OPCODE_SELECTDB.
	OnSelectDB func(db int) error
	// OnResizeDB receives each RDB_OPCODE_RESIZEDB hint: the number of
	// keys and of keys with an expiration in the current database.
	OnResizeDB func(db int, keys, expires uint64) error
	// OnKey receives each key with its value, in file order: the database
	// (the last SELECTDB, 0 before any), the key (only valid during the
	// call, unless kept as ShareStrings says; the Value is the callee's
	// to keep), the expiration as an absolute Unix time in milliseconds
	// (EXPIRETIME_MS, or EXPIRETIME seconds times 1000) or -1, the LRU
	// idle time in seconds or -1, and the LFU counter (0-255) or -1. Expired keys are passed on too:
	// Redis drops them when it loads a file as a master, which is the
	// caller's decision. Collections without elements are skipped, as by
	// Redis (counted in FileInfo.EmptyKeysSkipped). Duplicate keys are
	// not detected (Redis aborts on them).
	OnKey func(db int, key []byte, v *Value, expireMs, lruIdle int64, lfuFreq int) error
	// OnEmptyKey receives the keys skipped because their collection was
	// empty (Redis logs the first ten: "rdbLoadObject skipping empty key").
	OnEmptyKey func(db int, key []byte) error
	// Databases, when positive, is the number of databases: a SELECTDB of
	// a database from that number on is an error (Redis exits with
	// "FATAL: Data file was created with a Redis server configured to
	// handle more than N databases").
	Databases int
	// SkipChecksum skips the checksum verification (rdbchecksum no).
	SkipChecksum bool
	// ShareStrings, when set, passes string values to OnKey in a Value
	// that is only valid during the call: the reader then allocates
	// nothing for them. (A load copies them into its own entries; without
	// it, a 1M-key file left 200 MB of garbage for the collector.) The
	// bytes of the string, like a key's, alias the read buffer, which the
	// reader never writes again once it handed them out: a callee may keep
	// them after the call (keeping that buffer alive) if it does not
	// modify them, as a load that inserts its keys on other goroutines does.
	ShareStrings bool
	// OnEnd, when set, is called once as Read returns, after every other
	// callback, whether the read succeeded or not; an error it returns is
	// Read's when Read has none. (A load that hands keys to other
	// goroutines waits for them there.)
	OnEnd func() error
}

// FileInfo describes a file FileReader.Read has read.
type FileInfo struct {
	// Version is the RDB version in the header (1 to 10).
	Version int
	// Checksum is the stored CRC64 (0 for versions before 5 and for files
	// written with rdbchecksum no, which are not verified).
	Checksum uint64
	// Size is the length of the file up to and including the checksum.
	// Anything after it is ignored, as by Redis (though the source may
	// have been read beyond it).
	Size int64
	// Keys is the number of keys read (passed to OnKey, if set);
	// EmptyKeysSkipped the number of keys with empty collections skipped.
	Keys, EmptyKeysSkipped int64
}

// fileStream is the buffered input of FileReader.Read: buf holds the
// bytes read but not consumed, starting at file offset base.
type fileStream struct {
	src  io.Reader
	buf  []byte
	base int64
	eof  bool
	crc  uint64
	err  error  // a read error other than io.EOF
	r    Reader // parse's
}

// fill reads at least as many more bytes as are buffered (64 KB at least),
// or up to the end of the input.
func (s *fileStream) fill() {
	want := max(len(s.buf), 64<<10)
	nb := make([]byte, len(s.buf), len(s.buf)+want)
	copy(nb, s.buf)
	n, err := io.ReadAtLeast(s.src, nb[len(nb):cap(nb)], want)
	s.buf = nb[:len(nb)+n]
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		s.eof = true
	} else if err != nil {
		s.eof, s.err = true, err
	}
}

// parse runs fn on the buffered bytes, reading more and running it again
// while it reports truncated data and more can be read; fn must not have
// side effects. On success the bytes fn consumed are consumed (and
// checksummed unless noCRC).
func (s *fileStream) parse(fn func(r *Reader) error, noCRC bool) error {
	for {
		s.r = Reader{p: s.buf} // reused: a Reader per record was garbage
		r := &s.r
		err := fn(r)
		if err == nil {
			n := r.Offset()
			if !noCRC {
				s.crc = CRC64(s.crc, s.buf[:n])
			}
			s.buf = s.buf[n:]
			s.base += int64(n)
			return nil
		}
		if errors.Is(err, ErrTruncated) && !s.eof {
			s.fill()
			continue
		}
		if errors.Is(err, ErrTruncated) && s.err != nil {
			err = s.err
		}
		return &FileError{Offset: s.base + int64(r.Offset()), Err: err}
	}
}

// parseVersion is atoi on the four bytes after "REDIS".
func parseVersion(b []byte) int {
	i := 0
	for i < len(b) && (b[i] == ' ' || (b[i] >= '\t' && b[i] <= '\r')) {
		i++
	}
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	v := 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		v = v*10 + int(b[i]-'0')
	}
	if neg {
		v = -v
	}
	return v
}

// fileRecord is one parsed record of an RDB file.
type fileRecord struct {
	op        byte
	n1, n2    uint64 // SELECTDB, RESIZEDB, IDLE, FREQ, EXPIRETIME(_MS)
	key, data []byte // AUX key/value; the key of a key record
	code      string // FUNCTION
	value     *Value
	str       []byte // a string value, with ShareStrings (value is nil)
	empty     bool   // a key whose collection was empty
}

// Read reads a whole RDB file from src, calling back for its records, and
// verifies its checksum. It accepts what Redis 7.0's rdbLoadRio accepts:
// the magic "REDIS" with a version from 1 to 10 (read as atoi reads it),
// the opcodes in any order, expirations in seconds (EXPIRETIME) or
// milliseconds, and for versions from 5 the trailing CRC64, checked unless
// it is 0 or SkipChecksum is set. Values are decoded with DecodeValue,
// stricter than Redis's default (sanitize-dump-payload no) loading.
// Module auxiliary data and module values are not supported (an error
// wrapping ErrUnsupported). Streams, which Redis never skips as empty,
// are passed on whatever their length. Any other malformed content gives a
// *FileError with the offset of the element that could not be read,
// wrapping ErrCorrupt or, for a file that ends early, ErrTruncated.
func (fr *FileReader) Read(src io.Reader) (info FileInfo, err error) {
	if fr.OnEnd != nil {
		defer func() {
			if endErr := fr.OnEnd(); err == nil {
				err = endErr
			}
		}()
	}
	return fr.read(src)
}

func (fr *FileReader) read(src io.Reader) (FileInfo, error) {
	var info FileInfo
	s := &fileStream{src: src}
	var magic []byte
	if err := s.parse(func(r *Reader) (err error) {
		magic, err = r.ReadRaw(9)
		return err
	}, false); err != nil {
		return info, err
	}
	if string(magic[:5]) != "REDIS" {
		return info, &FileError{Offset: 0, Err: corruptf("wrong signature %q", magic[:5])}
	}
	info.Version = parseVersion(magic[5:9])
	if info.Version < 1 || info.Version > Version {
		return info, &FileError{Offset: 5, Err: corruptf("can't handle RDB format version %q", magic[5:9])}
	}
	db := 0
	expire, lruIdle, lfuFreq := int64(-1), int64(-1), -1
	var shared Value   // ShareStrings' string values
	var rec fileRecord // one for all records: each reuses it
	parseRec := func(r *Reader) error {
		rec = fileRecord{}
		return fr.parseRecord(r, &rec)
	}
	for {
		at := s.base
		if err := s.parse(parseRec, false); err != nil {
			return info, err
		}
		var err error
		switch rec.op {
		case OpcodeEOF:
			info.Size = s.base
			return info, fr.finish(s, &info)
		case OpcodeExpireTime, OpcodeExpireTimeMS:
			expire = int64(rec.n1)
			continue
		case OpcodeFreq:
			lfuFreq = int(rec.n1)
			continue
		case OpcodeIdle:
			lruIdle = int64(rec.n1)
			continue
		case OpcodeSelectDB:
			if fr.Databases > 0 && rec.n1 >= uint64(fr.Databases) {
				return info, &FileError{Offset: at, Err: corruptf("database %d with %d databases", rec.n1, fr.Databases)}
			}
			if rec.n1 > 1<<31-1 {
				return info, &FileError{Offset: at, Err: corruptf("database %d", rec.n1)}
			}
			db = int(rec.n1)
			if fr.OnSelectDB != nil {
				err = fr.OnSelectDB(db)
			}
		case OpcodeResizeDB:
			if fr.OnResizeDB != nil {
				err = fr.OnResizeDB(db, rec.n1, rec.n2)
			}
		case OpcodeAux:
			if fr.OnAux != nil {
				err = fr.OnAux(rec.key, rec.data)
			}
		case OpcodeFunction2, OpcodeFunctionPreGA:
			if fr.OnFunction != nil {
				err = fr.OnFunction(rec.code)
			}
		default: // a key
			if rec.empty {
				info.EmptyKeysSkipped++
				if fr.OnEmptyKey != nil {
					err = fr.OnEmptyKey(db, rec.key)
				}
			} else {
				info.Keys++
				v := rec.value
				if v == nil {
					shared = Value{Kind: KindString, Str: rec.str}
					v = &shared
				}
				if fr.OnKey != nil {
					err = fr.OnKey(db, rec.key, v, expire, lruIdle, lfuFreq)
				}
			}
			expire, lruIdle, lfuFreq = -1, -1, -1
		}
		if err != nil {
			return info, err
		}
	}
}

// parseRecord reads one record (an opcode and its operands, or a key and
// its value) into rec.
func (fr *FileReader) parseRecord(r *Reader, rec *fileRecord) error {
	op, err := r.ReadType()
	if err != nil {
		return err
	}
	rec.op = op
	switch op {
	case OpcodeEOF:
		return nil
	case OpcodeExpireTime:
		b, err := r.ReadRaw(4)
		if err != nil {
			return err
		}
		rec.n1 = uint64(int64(int32(binary.LittleEndian.Uint32(b))) * 1000)
	case OpcodeExpireTimeMS:
		b, err := r.ReadRaw(8)
		if err != nil {
			return err
		}
		rec.n1 = binary.LittleEndian.Uint64(b)
	case OpcodeFreq:
		b, err := r.ReadRaw(1)
		if err != nil {
			return err
		}
		rec.n1 = uint64(b[0])
	case OpcodeIdle, OpcodeSelectDB:
		if rec.n1, err = r.ReadLen(); err != nil {
			return err
		}
	case OpcodeResizeDB:
		if rec.n1, err = r.ReadLen(); err != nil {
			return err
		}
		if rec.n2, err = r.ReadLen(); err != nil {
			return err
		}
	case OpcodeAux:
		if rec.key, err = r.ReadStringBytes(); err != nil {
			return err
		}
		if rec.data, err = r.ReadStringBytes(); err != nil {
			return err
		}
	case OpcodeModuleAux:
		r.off--
		return fmt.Errorf("%w: module auxiliary data (RDB_OPCODE_MODULE_AUX)", ErrUnsupported)
	case OpcodeFunction2:
		code, err := r.ReadString()
		if err != nil {
			return fmt.Errorf("%w: %w", ErrLibraryPayload, err)
		}
		rec.code = code
	case OpcodeFunctionPreGA:
		code, redisErr, cause := readPreGAFunction(r)
		if redisErr != nil {
			return fmt.Errorf("%w: %w", redisErr, cause)
		}
		rec.code = code
	default:
		key, err := r.ReadStringBytes()
		if err != nil {
			return err
		}
		valueAt := r.off
		if op == TypeString && fr.ShareStrings {
			rec.key = key
			if rec.str, err = r.ReadStringBytes(); err != nil {
				r.off = valueAt
			}
			return err
		}
		v, err := decodeValue(r, op)
		if errors.Is(err, ErrEmptyValue) {
			// Well-formed and consumed; Redis skips such keys.
			rec.key, rec.empty = key, true
			return nil
		}
		if err != nil {
			r.off = valueAt
			return err
		}
		rec.key, rec.value = key, v
	}
	return nil
}

// finish reads and verifies the checksum after the EOF opcode.
func (fr *FileReader) finish(s *fileStream, info *FileInfo) error {
	if info.Version < 5 {
		return nil
	}
	expected := s.crc
	var sum uint64
	if err := s.parse(func(r *Reader) error {
		b, err := r.ReadRaw(8)
		if err == nil {
			sum = binary.LittleEndian.Uint64(b)
		}
		return err
	}, true); err != nil {
		return err
	}
	info.Checksum = sum
	info.Size = s.base
	if sum != 0 && !fr.SkipChecksum && sum != expected {
		return &FileError{Offset: s.base - 8, Err: report(lineRDBCRC, &ChecksumError{Stored: sum, Computed: expected}, "RDB CRC error")}
	}
	return nil
}
