package aof

import (
	"bytes"
	"io"
	"math"
)

// cfile reads a file as Redis reads it through C's stdio: fgets and fread
// on a FILE*, with feof's notion of end of file (set only once a read
// needed more bytes and found none) and ferror's (a read failed).
type cfile struct {
	src     io.Reader
	buf     []byte
	r, w    int   // unread bytes are buf[r:w]
	pos     int64 // file offset of buf[r]
	srcDone bool  // src reported io.EOF (or an error)
	eof     bool  // feof(fp)
	err     error // ferror(fp): the read error
	bufSize int
}

// cfileChunk is the largest buffer; minBuf the smallest, larger than the
// longest line fgets reads.
const (
	cfileChunk = 64 << 10
	minBuf     = 4 << 10
)

// newCfile reads src, whose first byte is at file offset pos and which
// holds about size bytes (the buffer is no larger than needed).
func newCfile(src io.Reader, pos, size int64) *cfile {
	return &cfile{src: src, pos: pos, bufSize: int(max(minBuf, min(cfileChunk, size+1)))}
}

// fill reads more input into the buffer, first moving the unread bytes
// (fewer than a line's worth: fgets and fread only call it then) to its
// start. It returns false, setting eof or err, when nothing more can be
// read.
func (c *cfile) fill() bool {
	if c.srcDone {
		if c.err == nil {
			c.eof = true
		}
		return false
	}
	if c.buf == nil {
		c.buf = make([]byte, max(c.bufSize, minBuf))
	}
	if c.r > 0 {
		c.w = copy(c.buf, c.buf[c.r:c.w])
		c.r = 0
	}
	for tries := 0; ; tries++ {
		n, err := c.src.Read(c.buf[c.w:])
		c.w += n
		if err != nil {
			c.srcDone = true
			if err != io.EOF {
				c.err = err
			}
		}
		if n > 0 {
			return true
		}
		if !c.srcDone && tries == 100 {
			c.srcDone, c.err = true, io.ErrNoProgress
		}
		if c.srcDone {
			if c.err == nil {
				c.eof = true
			}
			return false
		}
	}
}

// fgets is fgets(buf, n, fp): it returns the next line including its
// '\n', or the n-1 bytes that come first, or what remains before the end
// of the file; nil where fgets returns NULL (nothing could be read). The
// slice aliases the buffer: it is valid until the next read.
func (c *cfile) fgets(n int) []byte {
	limit := n - 1
	scanned := 0
	for {
		avail := c.buf[c.r:c.w]
		if i := bytes.IndexByte(avail[scanned:min(len(avail), limit)], '\n'); i >= 0 {
			return c.take(scanned + i + 1)
		}
		if len(avail) >= limit {
			return c.take(limit)
		}
		scanned = len(avail)
		if c.eof || c.err != nil || !c.fill() {
			if c.r == c.w || c.err != nil {
				return nil // a read error makes fgets return NULL
			}
			return c.take(c.w - c.r)
		}
	}
}

func (c *cfile) take(n int) []byte {
	b := c.buf[c.r : c.r+n : c.r+n]
	c.r += n
	c.pos += int64(n)
	return b
}

// fread reads exactly n bytes (fread(p, n, 1, fp) == 1), appending them to
// dst. When the file ends first it consumes what remains and returns
// false, with eof (or err) set. Memory grows with the bytes actually read,
// not with n.
func (c *cfile) fread(dst []byte, n int64) ([]byte, bool) {
	for n > 0 {
		if c.r == c.w {
			if c.eof || c.err != nil || !c.fill() {
				return dst, false
			}
		}
		k := int(min(n, int64(c.w-c.r)))
		dst = append(dst, c.buf[c.r:c.r+k]...)
		c.r += k
		c.pos += int64(k)
		n -= int64(k)
	}
	return dst, true
}

// skip is fread into a scratch buffer: it consumes n bytes, reporting
// whether they were all there.
func (c *cfile) skip(n int64) bool {
	for n > 0 {
		if c.r == c.w {
			if c.eof || c.err != nil || !c.fill() {
				return false
			}
		}
		k := int(min(n, int64(c.w-c.r)))
		c.r += k
		c.pos += int64(k)
		n -= int64(k)
	}
	return true
}

// cstring returns b up to its first NUL byte, as C string functions see a
// buffer fgets filled.
func cstring(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}

// isCSpace is isspace in the C locale.
func isCSpace(c byte) bool {
	return c == ' ' || (c >= '\t' && c <= '\r')
}

// strtoll is C's strtoll(s, NULL, 10) on the C string s: leading blanks,
// an optional sign, then digits; the value saturates at the int64 limits
// (ERANGE), and is 0 when no digit follows.
func strtoll(s []byte) int64 {
	s = cstring(s)
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	var v uint64
	overflow := false
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		d := uint64(s[i] - '0')
		if v > (math.MaxUint64-d)/10 {
			overflow = true
			continue
		}
		v = v*10 + d
	}
	switch {
	case neg && (overflow || v > 1<<63):
		return math.MinInt64
	case neg:
		return -int64(v)
	case overflow || v > math.MaxInt64:
		return math.MaxInt64
	}
	return int64(v)
}

// atoi is C's atoi on glibc: (int)strtol(s, NULL, 10), the long truncated
// to 32 bits.
func atoi(s []byte) int32 { return int32(strtoll(s)) }
