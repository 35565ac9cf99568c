// Package resp reads Redis requests (RESP multibulk and inline commands) and
// writes RESP2/RESP3 replies.
//
// The Reader hands out arguments as slices of its own buffer: they are valid
// until the next call to ReadCommand. Callers copy what they keep.
package resp

import (
	"errors"
	"io"
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

	initialBufSize = 16 * 1024
	shrinkAbove    = 256 * 1024
)

// ProtocolError is a malformed request. Its text is what Redis puts after
// "ERR Protocol error: ". The connection must be closed after replying.
type ProtocolError struct{ Msg string }

func (e *ProtocolError) Error() string { return "Protocol error: " + e.Msg }

// ErrQueryBufferLimit reports a client whose unparsed input exceeded
// MaxQueryBuffer. Redis closes such a client without a reply.
var ErrQueryBufferLimit = errors.New("query buffer limit exceeded")

// Reader parses requests from an io.Reader.
type Reader struct {
	rd   io.Reader
	buf  []byte
	r, w int // unparsed data is buf[r:w]
	need int // bytes buf[r:] must hold before a parse can succeed

	args   [][]byte
	inline []byte // scratch for unquoted inline arguments

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
}

// NewReader returns a Reader reading from rd.
func NewReader(rd io.Reader) *Reader {
	return &Reader{rd: rd, buf: make([]byte, initialBufSize)}
}

// Buffered reports whether unparsed input is waiting in the buffer.
func (r *Reader) Buffered() bool { return r.r < r.w }

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
				r.need = 0
				if len(args) == 0 {
					continue // empty inline line or *0: Redis skips it
				}
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
	}
}

// fill reads more input, compacting or growing the buffer first.
func (r *Reader) fill() error {
	if r.r == r.w {
		r.r, r.w = 0, 0
		if len(r.buf) > shrinkAbove {
			r.buf = make([]byte, initialBufSize)
		}
	}
	if r.w == len(r.buf) {
		pending := r.w - r.r
		if r.MaxQueryBuffer > 0 && int64(pending) >= r.MaxQueryBuffer {
			return ErrQueryBufferLimit
		}
		if r.r > 0 && pending < len(r.buf)/2 {
			copy(r.buf, r.buf[r.r:r.w])
		} else {
			// Grow by doubling, as data arrives: a huge declared length
			// never allocates up front.
			nb := make([]byte, 2*len(r.buf))
			copy(nb, r.buf[r.r:r.w])
			r.buf = nb
		}
		r.r, r.w = 0, pending
	}
	n, err := r.rd.Read(r.buf[r.w:])
	r.w += n
	r.BytesRead += int64(n)
	if n > 0 {
		return nil
	}
	if err == nil {
		err = io.ErrNoProgress
	}
	return err
}

// parse tries to parse one command from b. It returns n == 0 when b holds
// no complete command yet.
func (r *Reader) parse(b []byte) (args [][]byte, n int, err error) {
	if b[0] != '*' {
		return r.parseInline(b)
	}
	line, pos, ok := countLine(b)
	if !ok {
		if len(b) > InlineMax {
			return nil, 0, &ProtocolError{"too big mbulk count string"}
		}
		return nil, 0, nil
	}
	count, ok := parseInt(line[1:])
	if !ok || count > 1<<31-1 || (r.Unauthenticated && count > UnauthMaxArgs) {
		return nil, 0, &ProtocolError{"invalid multibulk length"}
	}
	args = r.args[:0]
	for i := int64(0); i < count; i++ {
		if pos >= len(b) {
			r.need = pos + 1
			return nil, 0, nil
		}
		if b[pos] != '$' {
			return nil, 0, &ProtocolError{"expected '$', got '" + string(b[pos]) + "'"}
		}
		line, next, ok := countLine(b[pos:])
		if !ok {
			if len(b)-pos > InlineMax {
				return nil, 0, &ProtocolError{"too big bulk count string"}
			}
			return nil, 0, nil
		}
		size, ok := parseInt(line[1:])
		if !ok || size < 0 || (r.MaxBulkLen > 0 && size > r.MaxBulkLen) ||
			(r.Unauthenticated && size > UnauthMaxBulk) {
			return nil, 0, &ProtocolError{"invalid bulk length"}
		}
		start := pos + next
		end := start + int(size)
		if end+2 > len(b) {
			r.need = end + 2
			return nil, 0, nil
		}
		args = append(args, b[start:end:end])
		pos = end + 2
	}
	r.args = args
	return args, pos, nil
}

// countLine finds the "\r" ending a count line; Redis skips the byte after
// it without checking it is "\n". next is the offset after the line.
func countLine(b []byte) (line []byte, next int, ok bool) {
	for i, c := range b {
		if c == '\r' {
			if i+1 >= len(b) {
				return nil, 0, false
			}
			return b[:i], i + 2, true
		}
	}
	return nil, 0, false
}

// parseInt is Redis's string2ll: an optional '-', digits, no leading zeros
// or '+', no overflow.
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
		v = v*10 + uint64(c-'0')
		if v < uint64(c-'0') {
			return 0, false
		}
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

// parseInline parses a telnet-style request line.
func (r *Reader) parseInline(b []byte) ([][]byte, int, error) {
	nl := -1
	for i, c := range b {
		if c == '\n' {
			nl = i
			break
		}
	}
	if nl < 0 {
		if len(b) > InlineMax {
			return nil, 0, &ProtocolError{"too big inline request"}
		}
		return nil, 0, nil
	}
	line := b[:nl]
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	args, scratch, ok := SplitArgs(r.args[:0], r.inline[:0], line)
	if !ok {
		return nil, 0, &ProtocolError{"unbalanced quotes in request"}
	}
	r.args, r.inline = args, scratch
	return args, nl + 1, nil
}

// SplitArgs splits line as Redis's sdssplitargs does: whitespace-separated
// words, "double quoted" strings with \n \r \t \b \a \\ \" \xHH escapes and
// 'single quoted' strings with \'. Quotes may start inside a word; a closing
// quote must be followed by whitespace or the end. Arguments are written to
// scratch. It returns ok == false on unbalanced quotes.
func SplitArgs(args [][]byte, scratch []byte, line []byte) ([][]byte, []byte, bool) {
	if cap(scratch) < len(line) {
		scratch = make([]byte, 0, len(line))
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
			switch {
			case inq:
				if i >= len(line) {
					return args, scratch, false
				}
				c := line[i]
				switch {
				case c == '\\' && i+3 < len(line) && line[i+1] == 'x' && isHex(line[i+2]) && isHex(line[i+3]):
					scratch = append(scratch, unhex(line[i+2])<<4|unhex(line[i+3]))
					i += 3
				case c == '\\' && i+1 < len(line):
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
					if i+1 < len(line) && !isSpace(line[i+1]) {
						return args, scratch, false
					}
					done = true
				default:
					scratch = append(scratch, c)
				}
			case insq:
				if i >= len(line) {
					return args, scratch, false
				}
				c := line[i]
				switch {
				case c == '\\' && i+1 < len(line) && line[i+1] == '\'':
					i++
					scratch = append(scratch, '\'')
				case c == '\'':
					if i+1 < len(line) && !isSpace(line[i+1]) {
						return args, scratch, false
					}
					done = true
				default:
					scratch = append(scratch, c)
				}
			default:
				if i >= len(line) {
					done = true
					break
				}
				switch c := line[i]; {
				case isSpace(c):
					done = true
				case c == '"':
					inq = true
				case c == '\'':
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
