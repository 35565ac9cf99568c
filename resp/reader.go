// Package resp reads Redis requests (RESP multibulk and inline commands) and
// writes RESP2/RESP3 replies.
//
// The Reader hands out arguments as slices of its own buffer: they are valid
// until the next call to ReadCommand. Callers copy what they keep.
//
// The Reader follows Redis 7.0's processInlineBuffer and
// processMultibulkBuffer (networking.c) byte for byte: the same limits, the
// same protocol error texts, and the same quirks (the byte after a count
// line's '\r' is not checked, nor are the two bytes after a bulk; a NUL byte
// ends the search for a line end, as strchr does).
package resp

import (
	"errors"
	"io"
	"math"
	"strconv"
)

// Limits that Redis hard-codes.
const (
	// InlineMax is the longest inline request, and the longest count line,
	// accepted before a newline (PROTO_INLINE_MAX_SIZE).
	InlineMax = 64 * 1024
	// UnauthMaxArgs and UnauthMaxBulk bound what an unauthenticated client
	// may declare, so it cannot make the server allocate.
	UnauthMaxArgs = 10
	UnauthMaxBulk = 16384

	// ReadChunk is how much Redis reads per read(2) while it does not know
	// how long the request is (PROTO_IOBUF_LEN). Reading in the same chunks
	// makes the inline and count-line limits trip exactly where Redis's do.
	ReadChunk = 16 * 1024

	initialBufSize = 16 * 1024
	// BigArg is Redis's PROTO_MBULK_BIG_ARG: a bulk this long or longer
	// is a big argument, which the buffer is sized for.
	BigArg = 32 * 1024
	// resizeAbove is Redis's PROTO_RESIZE_THRESHOLD: a buffer larger
	// than this and twice its recent peak is cut back (Shrink).
	resizeAbove = 32 * 1024
)

// ProtocolError is a malformed request. Its text is what Redis puts after
// "ERR ". The connection must be closed after replying.
type ProtocolError struct{ Msg string }

func (e *ProtocolError) Error() string { return "Protocol error: " + e.Msg }

// The protocol errors, as Redis words them (after "Protocol error: ").
var (
	errTooBigMbulkCount = &ProtocolError{"too big mbulk count string"}
	errTooBigBulkCount  = &ProtocolError{"too big bulk count string"}
	errTooBigInline     = &ProtocolError{"too big inline request"}
	errMbulkLen         = &ProtocolError{"invalid multibulk length"}
	errUnauthMbulkLen   = &ProtocolError{"unauthenticated multibulk length"}
	errBulkLen          = &ProtocolError{"invalid bulk length"}
	errUnauthBulkLen    = &ProtocolError{"unauthenticated bulk length"}
	errUnbalanced       = &ProtocolError{"unbalanced quotes in request"}
)

// ErrQueryBufferLimit reports a client whose unparsed input exceeded
// MaxQueryBuffer. Redis closes such a client without a reply.
var ErrQueryBufferLimit = errors.New("query buffer limit exceeded")

// span is one parsed argument of a multibulk request still being read, as
// offsets from the start of the request (the buffer may move under it).
type span struct{ start, end int }

// Reader parses requests from an io.Reader.
type Reader struct {
	rd   io.Reader
	buf  []byte
	r, w int // unparsed data is buf[r:w]
	need int // bytes buf[r:] must hold before a parse can succeed
	// bigArg is, while a bulk of at least BigArg bytes is awaited, the
	// offset of its data from r (0: none): QueryBufBetween reports that
	// bulk alone, and fill grows the buffer just to hold it.
	bigArg int
	// peak is the most input held at once since the last Shrink.
	peak int

	// A multibulk request that arrives in pieces is parsed once: mbLeft
	// bulks are still to come, from offset mbPos of the request; spans
	// holds the arguments parsed so far.
	mbLeft int64
	mbPos  int
	spans  []span

	last   int // bytes of the last command returned
	args   [][]byte
	ahead  [][]byte // scratch for Ahead
	inline []byte   // scratch for unquoted inline arguments

	// MaxBulkLen is proto-max-bulk-len; MaxQueryBuffer is
	// client-query-buffer-limit. Zero means no limit.
	MaxBulkLen     int64
	MaxQueryBuffer int64
	// Unauthenticated applies Redis's small limits for clients that have
	// not yet authenticated.
	Unauthenticated bool
	// BytesRead counts the bytes read from rd.
	BytesRead int64
	// BeforeBlock, when set, runs before the Reader blocks on rd: the
	// connection flushes its pending replies there.
	BeforeBlock func() error
	// AfterRead, when set, runs after each read that brought input; an
	// error it returns ends ReadCommand with it. (The connection checks
	// its memory there as a big argument arrives.)
	AfterRead func() error
}

// NewReader returns a Reader reading from rd.
func NewReader(rd io.Reader) *Reader {
	return &Reader{rd: rd, buf: make([]byte, initialBufSize)}
}

// Consumed returns the bytes of the input the commands returned so far
// took (BytesRead less what is buffered, unparsed): a replica's offset in
// its master's stream.
func (r *Reader) Consumed() int64 { return r.BytesRead - int64(r.w-r.r) }

// Last returns the input bytes of the command ReadCommand returned last,
// as they came (a replica proxies its master's stream as it received
// it). They alias the buffer: valid until the next call of ReadCommand,
// and not to be modified.
func (r *Reader) Last() []byte { return r.buf[r.r-r.last : r.r : r.r] }

// Buffered reports whether unparsed input is waiting in the buffer.
func (r *Reader) Buffered() bool { return r.r < r.w }

// QueryBuf reports the query buffer as CLIENT LIST shows it: the bytes of
// the command last returned plus the unparsed input after it (used), and
// the free room in the buffer (free).
func (r *Reader) QueryBuf() (used, free int) {
	return r.last + r.w - r.r, len(r.buf) - r.w
}

// QueryBufBetween reports the query buffer as CLIENT LIST shows it
// between commands: the unparsed input (used) and the room the buffer has
// besides it (free), as Redis's buffer once the commands it held ran.
//
// While a big argument is awaited, used is what came of it (the request's
// bytes before it are counted as free), as Redis keeps such an argument
// alone in its query buffer; and free is the room the whole request will
// take, as Redis makes room for a big argument as soon as it knows its
// length (the buffer here grows only as the data comes).
func (r *Reader) QueryBufBetween() (used, free int) {
	used = r.w - r.r
	size := len(r.buf)
	if r.bigArg > 0 && r.bigArg <= used {
		used -= r.bigArg
		size = max(size, r.need)
	}
	return used, size - used
}

// Shrink gives back the room a large command left, as Redis's
// clientsCronResizeQueryBuffer does: a buffer over 32 KB and more than
// twice the most input held since the last Shrink (the peak) is cut to
// that peak, or to the input held now, or to the bulk being read, the
// largest. The peak restarts from the input held now. It reports whether
// the buffer was cut.
func (r *Reader) Shrink() bool {
	held := r.w - r.r
	cut := false
	if len(r.buf) > resizeAbove && len(r.buf)/2 > r.peak {
		size := max(held, r.peak)
		if r.need != math.MaxInt {
			size = max(size, r.need)
		}
		if size < len(r.buf) {
			nb := make([]byte, size)
			copy(nb, r.buf[r.r:r.w])
			r.buf, r.r, r.w = nb, 0, held
			cut = true
		}
	}
	r.peak = held
	return cut
}

// Release frees the buffer of a Reader holding no unparsed input (an idle
// client's, as Redis's clientsCronResizeQueryBuffer frees it) and reports
// whether it did; the next read allocates a fresh one.
func (r *Reader) Release() bool {
	if r.r != r.w || r.mbLeft != 0 || r.buf == nil {
		return false
	}
	r.buf, r.r, r.w, r.last = nil, 0, 0, 0
	return true
}

// ReadCommand returns the next non-empty command. The returned slices alias
// the Reader's buffer and are valid until the next call. A *ProtocolError is
// returned for malformed input; io errors are returned as they are.
func (r *Reader) ReadCommand() ([][]byte, error) {
	for {
		if r.w-r.r >= r.need && r.r < r.w {
			args, n, err := r.parse(r.buf[r.r:r.w])
			if err != nil {
				return nil, err
			}
			if n > 0 {
				r.r += n
				r.need, r.bigArg = 0, 0
				if len(args) == 0 {
					continue // empty inline line or *0: Redis skips it
				}
				r.last = n
				return args, nil
			}
		}
		if r.BeforeBlock != nil {
			if err := r.BeforeBlock(); err != nil {
				return nil, err
			}
		}
		if err := r.fill(); err != nil {
			return nil, err
		}
		if r.AfterRead != nil {
			if err := r.AfterRead(); err != nil {
				return nil, err
			}
		}
	}
}

// Ahead calls fn with each complete multibulk command buffered after the
// one last returned, without consuming them: at most max commands, up to
// the first incomplete, malformed or inline one, or until fn returns
// false. The arguments alias the buffer and are valid during the call
// only. It lets the caller look at what a pipeline asks for next.
func (r *Reader) Ahead(max int, fn func(args [][]byte) bool) {
	b := r.buf[r.r:r.w]
	for ; max > 0 && len(b) > 0 && b[0] == '*'; max-- {
		line, pos, _ := countLine(b)
		if pos == 0 {
			return
		}
		count, ok := parseInt(line[1:])
		if !ok || count <= 0 || count > int64(len(b)) {
			return
		}
		args := r.ahead[:0]
		for ; count > 0; count-- {
			rest := b[pos:]
			if len(rest) == 0 || rest[0] != '$' {
				return
			}
			line, next, _ := countLine(rest)
			if next == 0 {
				return
			}
			size, ok := parseInt(line[1:])
			if !ok || size < 0 || size > int64(len(rest)-next-2) {
				return
			}
			args = append(args, rest[next:next+int(size):next+int(size)])
			pos += next + int(size) + 2
		}
		r.ahead = args
		if !fn(args) {
			return
		}
		b = b[pos:]
	}
}

// Drain reads the input available now into the buffer without parsing it
// (a blocked client's commands wait there). It returns nil when the
// transport has nothing more now (its would-block error is wouldBlock),
// and any other read error, io.EOF included.
func (r *Reader) Drain(wouldBlock error) error {
	for {
		if err := r.fill(); err != nil {
			if err == wouldBlock {
				return nil
			}
			return err
		}
	}
}

// fill reads more input, compacting or growing the buffer first. While the
// length of what comes is unknown it reads at most ReadChunk bytes, as
// Redis does; while a bulk is awaited it reads up to the rest of it.
func (r *Reader) fill() error {
	if r.r == r.w {
		r.r, r.w = 0, 0
		if r.buf == nil { // released (Release)
			r.buf = make([]byte, initialBufSize)
		}
	}
	if r.w == len(r.buf) {
		pending := r.w - r.r
		if r.r > 0 && pending < len(r.buf)/2 {
			copy(r.buf, r.buf[r.r:r.w])
		} else {
			// Grow by doubling, as data arrives: a huge declared length
			// never allocates up front. A big argument that makes most
			// of the request gets room for just itself at the last step,
			// as Redis sizes its query buffer for one (so that qbuf-free,
			// and the client's memory, are not twice what it sent).
			size := max(2*len(r.buf), initialBufSize)
			if r.bigArg > 0 && r.need < size && 2*(r.need-r.bigArg) >= len(r.buf) {
				size = max(r.need, pending+1)
			}
			nb := make([]byte, size)
			copy(nb, r.buf[r.r:r.w])
			r.buf = nb
		}
		r.r, r.w = 0, pending
	}
	want := ReadChunk
	if missing := r.need - (r.w - r.r); missing > want {
		want = missing
	}
	end := len(r.buf)
	if end-r.w > want {
		end = r.w + want
	}
	for tries := 0; ; tries++ {
		n, err := r.rd.Read(r.buf[r.w:end])
		r.w += n
		r.BytesRead += int64(n)
		if n > 0 {
			r.peak = max(r.peak, r.w-r.r)
			if r.MaxQueryBuffer > 0 && int64(r.w-r.r) > r.MaxQueryBuffer {
				return ErrQueryBufferLimit
			}
			return nil
		}
		if err != nil {
			return err
		}
		if tries == 100 {
			return io.ErrNoProgress
		}
	}
}

// parse tries to parse one command from b (never empty). It returns n == 0
// when b holds no complete command yet, and n > 0 with no args for a
// request Redis skips (an empty inline line, *0, *-1).
func (r *Reader) parse(b []byte) (args [][]byte, n int, err error) {
	if r.mbLeft == 0 {
		if b[0] != '*' {
			return r.parseInline(b)
		}
		line, next, found := countLine(b)
		if next == 0 {
			if !found && len(b) > InlineMax {
				return nil, 0, errTooBigMbulkCount
			}
			return nil, 0, nil
		}
		count, ok := parseInt(line[1:])
		if !ok || count > math.MaxInt32 {
			return nil, 0, errMbulkLen
		}
		if count > UnauthMaxArgs && r.Unauthenticated {
			return nil, 0, errUnauthMbulkLen
		}
		if count <= 0 {
			return nil, next, nil
		}
		r.mbLeft, r.mbPos, r.spans = count, next, r.spans[:0]
	}
	pos := r.mbPos
	for r.mbLeft > 0 {
		rest := b[pos:]
		line, next, found := countLine(rest)
		if next == 0 {
			if !found && len(rest) > InlineMax {
				r.mbLeft = 0
				return nil, 0, errTooBigBulkCount
			}
			r.need, r.bigArg = pos+1, 0
			return nil, 0, nil
		}
		if rest[0] != '$' {
			r.mbLeft = 0
			return nil, 0, &ProtocolError{"expected '$', got '" + string(rest[:1]) + "'"}
		}
		size, ok := parseInt(line[1:])
		if !ok || size < 0 || (r.MaxBulkLen > 0 && size > r.MaxBulkLen) {
			r.mbLeft = 0
			return nil, 0, errBulkLen
		}
		if size > UnauthMaxBulk && r.Unauthenticated {
			r.mbLeft = 0
			return nil, 0, errUnauthBulkLen
		}
		start := pos + next
		if size > int64(math.MaxInt-2-start) {
			// Larger than any buffer: wait until the query buffer
			// limit or the peer ends it.
			r.need, r.bigArg = math.MaxInt, 0
			return nil, 0, nil
		}
		end := start + int(size)
		if end+2 > len(b) {
			r.need, r.bigArg = end+2, 0
			if size >= BigArg {
				r.bigArg = start
			}
			return nil, 0, nil
		}
		r.spans = append(r.spans, span{start, end})
		pos = end + 2
		r.mbPos = pos
		r.mbLeft--
	}
	args = r.args[:0]
	for _, s := range r.spans {
		args = append(args, b[s.start:s.end:s.end])
	}
	r.args = args
	return args, pos, nil
}

// countLine finds the '\r' ending a count line, as strchr does: a NUL byte
// ends the search unsuccessfully. Redis skips the byte after the '\r'
// without checking that it is '\n', but waits for it. next is the offset
// after the line, 0 while the line is incomplete; found reports whether
// the '\r' was seen (Redis applies its length limit only when not).
func countLine(b []byte) (line []byte, next int, found bool) {
	for i, c := range b {
		switch c {
		case '\r':
			if i+1 >= len(b) {
				return nil, 0, true
			}
			return b[:i], i + 2, true
		case 0:
			return nil, 0, false
		}
	}
	return nil, 0, false
}

// parseInt is Redis's string2ll: an optional '-', digits, no leading zeros
// or '+', no overflow, at most 20 bytes.
func parseInt(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	if len(b) == 1 && b[0] == '0' {
		return 0, true
	}
	neg := b[0] == '-'
	if neg {
		b = b[1:]
		if len(b) == 0 {
			return 0, false
		}
	}
	if b[0] < '1' || b[0] > '9' {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		if v > (1<<64-1)/10 {
			return 0, false
		}
		v *= 10
		if v > 1<<64-1-uint64(c-'0') {
			return 0, false
		}
		v += uint64(c - '0')
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return -int64(v), true
	}
	if v > 1<<63-1 {
		return 0, false
	}
	return int64(v), true
}

// parseInline parses a telnet-style request line. The line ends at the
// first '\n' (a NUL byte before it hides it, as with strchr); one '\r'
// before the '\n' is dropped.
func (r *Reader) parseInline(b []byte) ([][]byte, int, error) {
	nl := -1
scan:
	for i, c := range b {
		switch c {
		case '\n':
			nl = i
			break scan
		case 0:
			break scan
		}
	}
	if nl < 0 {
		if len(b) > InlineMax {
			return nil, 0, errTooBigInline
		}
		return nil, 0, nil
	}
	line := b[:nl]
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	args, scratch, ok := SplitArgs(r.args[:0], r.inline[:0], line)
	if !ok {
		return nil, 0, errUnbalanced
	}
	r.args, r.inline = args, scratch
	return args, nl + 1, nil
}

// SplitArgs splits line as Redis's sdssplitargs does: words separated by
// blanks (isspace), "double quoted" strings with \n \r \t \b \a \xHH and
// \<any> escapes, and 'single quoted' strings where only \' is an escape.
// A quote may open inside a word; a closing quote must be followed by a
// blank or the end. An unquoted word ends at ' ', '\n', '\r' or '\t' only
// ('\v' and '\f' stay in it). line is read as a C string: a NUL byte ends
// it. Arguments are written to scratch and appended to args; ok is false
// on unbalanced quotes.
func SplitArgs(args [][]byte, scratch []byte, line []byte) (_ [][]byte, _ []byte, ok bool) {
	for i, c := range line {
		if c == 0 {
			line = line[:i]
			break
		}
	}
	if cap(scratch) < len(line) {
		scratch = make([]byte, 0, len(line))
	}
	// at returns line[i], or 0 past the end, as C's *p does.
	at := func(i int) byte {
		if i < len(line) {
			return line[i]
		}
		return 0
	}
	i := 0
	for {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		if i >= len(line) {
			return args, scratch, true
		}
		start := len(scratch)
		inq, insq := false, false
		for done := false; !done; {
			c := at(i)
			switch {
			case inq:
				switch {
				case c == '\\' && at(i+1) == 'x' && isHex(at(i+2)) && isHex(at(i+3)):
					scratch = append(scratch, unhex(at(i+2))<<4|unhex(at(i+3)))
					i += 3
				case c == '\\' && at(i+1) != 0:
					i++
					e := line[i]
					switch e {
					case 'n':
						e = '\n'
					case 'r':
						e = '\r'
					case 't':
						e = '\t'
					case 'b':
						e = '\b'
					case 'a':
						e = '\a'
					}
					scratch = append(scratch, e)
				case c == '"':
					if n := at(i + 1); n != 0 && !isSpace(n) {
						return args, scratch, false
					}
					done = true
				case c == 0:
					return args, scratch, false
				default:
					scratch = append(scratch, c)
				}
			case insq:
				switch {
				case c == '\\' && at(i+1) == '\'':
					i++
					scratch = append(scratch, '\'')
				case c == '\'':
					if n := at(i + 1); n != 0 && !isSpace(n) {
						return args, scratch, false
					}
					done = true
				case c == 0:
					return args, scratch, false
				default:
					scratch = append(scratch, c)
				}
			default:
				switch c {
				case ' ', '\n', '\r', '\t', 0:
					done = true
				case '"':
					inq = true
				case '\'':
					insq = true
				default:
					scratch = append(scratch, c)
				}
			}
			if i < len(line) {
				i++
			}
		}
		args = append(args, scratch[start:len(scratch):len(scratch)])
	}
}

// isSpace is C's isspace in the C locale.
func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\v' || c == '\f'
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

// ParseInt exposes Redis's strict integer parsing (string2ll).
func ParseInt(b []byte) (int64, bool) { return parseInt(b) }

// FormatInt appends n in decimal.
func FormatInt(dst []byte, n int64) []byte { return strconv.AppendInt(dst, n, 10) }
