package resp

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// chunkReader returns its data in pieces of the given sizes (cycling), as
// a socket might.
type chunkReader struct {
	data  []byte
	sizes []int
	i     int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := len(c.data)
	if len(c.sizes) > 0 {
		n = min(n, c.sizes[c.i%len(c.sizes)])
		c.i++
	}
	n = copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

// readAll parses every command in src and returns them (quoted, one per
// line) followed by the error that ended the input.
func readAll(r *Reader) string {
	var b strings.Builder
	for {
		args, err := r.ReadCommand()
		if err != nil {
			if err == io.EOF {
				b.WriteString("EOF")
			} else {
				b.WriteString("ERROR " + err.Error())
			}
			return b.String()
		}
		for i, a := range args {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(strconv.Quote(string(a)))
		}
		b.WriteByte('\n')
	}
}

func encode(args ...string) string {
	s := "*" + strconv.Itoa(len(args)) + "\r\n"
	for _, a := range args {
		s += "$" + strconv.Itoa(len(a)) + "\r\n" + a + "\r\n"
	}
	return s
}

// pipeline mixes every request shape the reader knows.
var pipeline = encode("SET", "key", "va\r\nl\x00ue") +
	"PING\r\n" +
	"\r\n" + // empty inline line: skipped
	"*0\r\n" + // empty multibulk: skipped
	"*-1\r\n" + // negative count: skipped
	`SET k "a b\x41\n" 'c\'d'` + "\n" + // inline with quotes, LF only
	encode("GET", "") +
	encode(strings.Repeat("x", 300)) +
	"   ECHO   hi   \r\n" +
	encode("MSET", "a", "1", "b", "2")

var pipelineWant = `"SET" "key" "va\r\nl\x00ue"
"PING"
"SET" "k" "a bA\n" "c'd"
"GET" ""
"` + strings.Repeat("x", 300) + `"
"ECHO" "hi"
"MSET" "a" "1" "b" "2"
EOF`

func TestReaderPipelineWhole(t *testing.T) {
	if got := readAll(NewReader(strings.NewReader(pipeline))); got != pipelineWant {
		t.Fatalf("got:\n%s\nwant:\n%s", got, pipelineWant)
	}
}

// Every way of cutting the pipeline in two, byte-at-a-time delivery and
// random chunkings must all parse the same.
func TestReaderPipelineChunks(t *testing.T) {
	for cut := 1; cut < len(pipeline); cut++ {
		r := NewReader(&chunkReader{data: []byte(pipeline), sizes: []int{cut, len(pipeline)}})
		if got := readAll(r); got != pipelineWant {
			t.Fatalf("cut at %d:\n%s", cut, got)
		}
	}
	if got := readAll(NewReader(&chunkReader{data: []byte(pipeline), sizes: []int{1}})); got != pipelineWant {
		t.Fatalf("byte by byte:\n%s", got)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 300; i++ {
		sizes := make([]int, 1+rng.IntN(10))
		for j := range sizes {
			sizes[j] = 1 + rng.IntN(40)
		}
		if got := readAll(NewReader(&chunkReader{data: []byte(pipeline), sizes: sizes})); got != pipelineWant {
			t.Fatalf("chunks %v:\n%s", sizes, got)
		}
	}
}

// A pipeline larger than the buffer, with big values, arriving in odd
// pieces: the buffer compacts and grows under partially parsed requests.
func TestReaderLargePipeline(t *testing.T) {
	var in, want strings.Builder
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 300; i++ {
		v := strings.Repeat(string(rune('a'+i%26)), rng.IntN(40000))
		in.WriteString(encode("SET", "k"+strconv.Itoa(i), v))
		fmt.Fprintf(&want, "%q %q %q\n", "SET", "k"+strconv.Itoa(i), v)
	}
	want.WriteString("EOF")
	for _, sizes := range [][]int{nil, {1000}, {7, 16384, 3, 50000}, {65536}} {
		got := readAll(NewReader(&chunkReader{data: []byte(in.String()), sizes: sizes}))
		if got != want.String() {
			t.Fatalf("chunks %v: mismatch (got %d bytes, want %d)", sizes, len(got), want.Len())
		}
	}
}

func TestReaderProtocolErrors(t *testing.T) {
	big := strings.Repeat("a", 70000)
	for _, tc := range []struct {
		name, in, want string
	}{
		{"count not a number", "*abc\r\n", "Protocol error: invalid multibulk length"},
		{"count empty", "*\r\n", "Protocol error: invalid multibulk length"},
		{"count with plus", "*+1\r\n", "Protocol error: invalid multibulk length"},
		{"count leading zero", "*01\r\n", "Protocol error: invalid multibulk length"},
		{"count over int max", "*2147483648\r\n", "Protocol error: invalid multibulk length"},
		{"count overflow", "*99999999999999999999\r\n", "Protocol error: invalid multibulk length"},
		{"bulk length not a number", "*1\r\n$abc\r\n", "Protocol error: invalid bulk length"},
		{"bulk length negative", "*1\r\n$-1\r\n", "Protocol error: invalid bulk length"},
		{"bulk length over proto-max-bulk-len", "*1\r\n$2000000000\r\n", "Protocol error: invalid bulk length"},
		{"expected dollar", "*1\r\nx\r\n", "Protocol error: expected '$', got 'x'"},
		{"expected dollar, second arg", "*2\r\n$3\r\nGET\r\n:1\r\n", "Protocol error: expected '$', got ':'"},
		{"expected dollar, binary byte", "*1\r\n\xff\r\n", "Protocol error: expected '$', got '\xff'"},
		{"expected dollar, empty line", "*1\r\n\r\n", "Protocol error: expected '$', got '\r'"},
		{"unbalanced double quote", "\"unbalanced\r\n", "Protocol error: unbalanced quotes in request"},
		{"unbalanced single quote", "SET 'a\r\n", "Protocol error: unbalanced quotes in request"},
		{"quote followed by text", "SET \"a\"b\r\n", "Protocol error: unbalanced quotes in request"},
		{"too big inline", big, "Protocol error: too big inline request"},
		{"too big inline with late newline", strings.Repeat("a", 100000) + "\r\n", "Protocol error: too big inline request"},
		{"too big mbulk count", "*" + big, "Protocol error: too big mbulk count string"},
		{"too big bulk count", "*1\r\n$" + big, "Protocol error: too big bulk count string"},
		{"NUL hides the line end", "PING\x00\r\n" + big, "Protocol error: too big inline request"},
		{"NUL hides the count end", "*1\x00\r\n" + big, "Protocol error: too big mbulk count string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReader(strings.NewReader(tc.in))
			r.MaxBulkLen = 512 << 20
			_, err := r.ReadCommand()
			var perr *ProtocolError
			if !errors.As(err, &perr) {
				t.Fatalf("got %v, want a protocol error", err)
			}
			if err.Error() != tc.want {
				t.Fatalf("got %q, want %q", err.Error(), tc.want)
			}
		})
	}
}

// Requests that are not errors although they look odd, as Redis takes
// them.
func TestReaderQuirks(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		// The byte after a count line's '\r' and the two after a bulk
		// are not checked.
		{"*1\rX$4\rXPING\r\n", "\"PING\"\nEOF"},
		{"*1\r\n$4\r\nPINGxy", "\"PING\"\nEOF"},
		// An inline line of 60000 bytes is fine.
		{"ECHO " + strings.Repeat("b", 60000) + "\r\n", "\"ECHO\" \"" + strings.Repeat("b", 60000) + "\"\nEOF"},
		// A line just over 64 KB that arrives at once is read in 16 KB
		// chunks and found before the limit trips, as in Redis.
		{"ECHO " + strings.Repeat("c", 70000) + "\r\n", "\"ECHO\" \"" + strings.Repeat("c", 70000) + "\"\nEOF"},
		// Incomplete requests at EOF are not errors.
		{"*2\r\n$3\r\nGET\r\n", "EOF"},
		{"PING", "EOF"},
	} {
		if got := readAll(NewReader(strings.NewReader(tc.in))); got != tc.want {
			t.Errorf("%.40q:\n got %.200q\nwant %.200q", tc.in, got, tc.want)
		}
	}
}

func TestReaderUnauthenticatedLimits(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"*11\r\n", "ERROR Protocol error: unauthenticated multibulk length"},
		{"*2\r\n$16385\r\n", "ERROR Protocol error: unauthenticated bulk length"},
		{"*abc\r\n", "ERROR Protocol error: invalid multibulk length"},
		{"*1\r\n$-5\r\n", "ERROR Protocol error: invalid bulk length"},
		{encode("AUTH", strings.Repeat("p", 16384)), `"AUTH" "` + strings.Repeat("p", 16384) + "\"\nEOF"},
		{encode("A", "2", "3", "4", "5", "6", "7", "8", "9", "10"), `"A" "2" "3" "4" "5" "6" "7" "8" "9" "10"` + "\nEOF"},
		// Inline requests have no such limit.
		{"A 2 3 4 5 6 7 8 9 10 11\r\n", `"A" "2" "3" "4" "5" "6" "7" "8" "9" "10" "11"` + "\nEOF"},
	} {
		r := NewReader(strings.NewReader(tc.in))
		r.Unauthenticated = true
		if got := readAll(r); got != tc.want {
			t.Errorf("%.40q:\n got %.100q\nwant %.100q", tc.in, got, tc.want)
		}
	}
}

// A declared length far beyond the buffer allocates only as data arrives.
func TestReaderHugeLengthDoesNotAllocate(t *testing.T) {
	for _, maxBulk := range []int64{0, 4 << 30} {
		r := NewReader(strings.NewReader("*1\r\n$2000000000\r\n" + strings.Repeat("x", 100)))
		r.MaxBulkLen = maxBulk
		if got := readAll(r); got != "EOF" {
			t.Fatalf("got %q", got)
		}
		if len(r.buf) > initialBufSize {
			t.Fatalf("buffer grew to %d for 118 bytes of input", len(r.buf))
		}
	}
	r := NewReader(strings.NewReader("*1\r\n$9223372036854775807\r\nxx"))
	if got := readAll(r); got != "EOF" {
		t.Fatalf("got %q", got)
	}
}

func TestReaderQueryBufferLimit(t *testing.T) {
	r := NewReader(strings.NewReader(encode("SET", "k", strings.Repeat("v", 100000))))
	r.MaxQueryBuffer = 50000
	if _, err := r.ReadCommand(); err != ErrQueryBufferLimit {
		t.Fatalf("got %v", err)
	}
}

// The reader resumes where it stopped when its source has nothing more for
// now (the event loop's ErrWouldBlock) and keeps its partial request.
func TestReaderWouldBlock(t *testing.T) {
	errAgain := errors.New("would block")
	in := []byte(encode("SET", "key", strings.Repeat("v", 20000)) + "PING\r\n")
	src := &pausingReader{data: in, err: errAgain}
	r := NewReader(src)
	var got []string
	for len(got) < 2 {
		args, err := r.ReadCommand()
		if err == errAgain {
			src.allow += 7
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(args[0]))
	}
	if got[0] != "SET" || got[1] != "PING" {
		t.Fatal(got)
	}
}

type pausingReader struct {
	data  []byte
	allow int
	err   error
}

func (p *pausingReader) Read(b []byte) (int, error) {
	n := min(len(b), p.allow, len(p.data))
	if n == 0 {
		return 0, p.err
	}
	copy(b, p.data[:n])
	p.data, p.allow = p.data[n:], p.allow-n
	return n, nil
}

func TestReaderQueryBuf(t *testing.T) {
	in := encode("CLIENT", "LIST") + "PING\r\n"
	r := NewReader(strings.NewReader(in))
	if _, err := r.ReadCommand(); err != nil {
		t.Fatal(err)
	}
	used, free := r.QueryBuf()
	if used != len(in) || free != initialBufSize-len(in) {
		t.Fatalf("QueryBuf() = %d, %d", used, free)
	}
}

// TestReaderBigArgQueryBuf: while a big argument is awaited, the query
// buffer reports what came of it alone (Redis keeps such an argument by
// itself in its query buffer) with the room the request will take, and
// the buffer grows to hold just the request rather than twice its size.
func TestReaderBigArgQueryBuf(t *testing.T) {
	const n = 300000
	head := "*1\r\n$300000\r\n"
	r := NewReader(strings.NewReader(head + strings.Repeat("v", n)))
	if _, err := r.ReadCommand(); err != io.EOF {
		t.Fatalf("ReadCommand: %v, want EOF (the argument is incomplete)", err)
	}
	used, free := r.QueryBufBetween()
	if used != n || used+free != len(head)+n+2 {
		t.Fatalf("QueryBufBetween() = %d, %d; want %d and room for %d", used, free, n, len(head)+n+2)
	}
	if len(r.buf) > len(head)+n+2 {
		t.Fatalf("a buffer of %d for a request of %d", len(r.buf), len(head)+n+2)
	}
	// As soon as its length is known, the room it will take.
	r = NewReader(strings.NewReader(head + strings.Repeat("v", 1000)))
	r.ReadCommand()
	if used, free := r.QueryBufBetween(); used != 1000 || used+free != len(head)+n+2 {
		t.Fatalf("QueryBufBetween() = %d, %d at the start of the argument", used, free)
	}
}

func TestParseInt(t *testing.T) {
	for _, tc := range []struct {
		in string
		n  int64
		ok bool
	}{
		{"0", 0, true}, {"1", 1, true}, {"-1", -1, true}, {"123", 123, true},
		{"9223372036854775807", 1<<63 - 1, true}, {"-9223372036854775808", -1 << 63, true},
		{"9223372036854775808", 0, false}, {"-9223372036854775809", 0, false},
		{"18446744073709551616", 0, false}, {"99999999999999999999", 0, false},
		{"", 0, false}, {"-", 0, false}, {"+1", 0, false}, {"01", 0, false}, {"-0", 0, false},
		{" 1", 0, false}, {"1 ", 0, false}, {"1a", 0, false}, {"00", 0, false},
		{"000000000000000000001", 0, false},
	} {
		n, ok := ParseInt([]byte(tc.in))
		if n != tc.n || ok != tc.ok {
			t.Errorf("ParseInt(%q) = %d, %v; want %d, %v", tc.in, n, ok, tc.n, tc.ok)
		}
	}
}

// SplitArgs against Redis 7.0's sdssplitargs. The expectations were checked
// against redis-server 7.0.15 by sending each line inline as the arguments
// of an unknown command ("X <line>"), whose error echoes them; the NUL
// cases (which no inline request can reach) follow the C source.
func TestSplitArgs(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string // nil: unbalanced quotes
	}{
		{"", []string{}},
		{"   \t ", []string{}},
		{"a", []string{"a"}},
		{"a b  c", []string{"a", "b", "c"}},
		{" \t a\t\tb \r\n", []string{"a", "b"}},
		{`"a b"`, []string{"a b"}},
		{`""`, []string{""}},
		{`"" ''`, []string{"", ""}},
		{`''`, []string{""}},
		{`"\x41\x4a\x4B"`, []string{"AJK"}},
		{`"\x4"`, []string{"x4"}},
		{`"\xzz"`, []string{"xzz"}},
		{`"\n\r\t\b\a\\\"\q"`, []string{"\n\r\t\b\a\\\"q"}},
		{`'a\'b'`, []string{"a'b"}},
		{`'a\nb'`, []string{`a\nb`}},
		{`'a\\b'`, []string{`a\\b`}},
		{`ab"cd"`, []string{"abcd"}},
		{`ab"c d" e`, []string{"abc d", "e"}},
		{`ab'c d'`, []string{"abc d"}},
		{`a"b"c`, nil},
		{`"a"b`, nil},
		{`'a'b`, nil},
		{`"a`, nil},
		{`'a`, nil},
		{`"a\"`, nil},
		{`"a\`, nil},
		{`"a"` + "\tb", []string{"a", "b"}},
		{`"a"` + "\vb", []string{"a", "b"}},
		// \v and \f separate words when skipping blanks, but do not end an
		// unquoted word.
		{"a\vb", []string{"a\vb"}},
		{"a\fb c", []string{"a\fb", "c"}},
		{"\va", []string{"a"}},
		// A NUL byte ends the line (sdssplitargs reads a C string).
		{"a\x00b c", []string{"a"}},
		{"\"a\x00b\"", nil},
		{"\x00a", []string{}},
		// Non-ASCII bytes pass through.
		{"\xff\xfe é", []string{"\xff\xfe", "é"}},
	} {
		args, _, ok := SplitArgs(nil, nil, []byte(tc.in))
		if tc.want == nil {
			if ok {
				t.Errorf("SplitArgs(%q) = %q, want unbalanced", tc.in, args)
			}
			continue
		}
		got := make([]string, len(args))
		for i, a := range args {
			got[i] = string(a)
		}
		if !ok || strings.Join(got, "|") != strings.Join(tc.want, "|") || len(got) != len(tc.want) {
			t.Errorf("SplitArgs(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
}

// repeatReader serves the same bytes forever.
type repeatReader struct {
	data []byte
	off  int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		m := copy(p[n:], r.data[r.off:])
		n += m
		r.off = (r.off + m) % len(r.data)
	}
	return n, nil
}

func benchmarkRead(b *testing.B, cmd []byte) {
	var pipe []byte
	for len(pipe) < 64*1024 {
		pipe = append(pipe, cmd...)
	}
	r := NewReader(&repeatReader{data: pipe})
	r.MaxBulkLen = 512 << 20
	for i := 0; i < 1000; i++ { // warm up: buffers reach their size
		r.ReadCommand()
	}
	b.SetBytes(int64(len(cmd)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := r.ReadCommand(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadGET(b *testing.B) {
	benchmarkRead(b, []byte(encode("GET", "key:000000012345")))
}

func BenchmarkReadSET(b *testing.B) {
	benchmarkRead(b, []byte(encode("SET", "key:000000012345", strings.Repeat("v", 64))))
}

func BenchmarkReadInline(b *testing.B) {
	benchmarkRead(b, []byte("SET key:000000012345 \"some value\"\r\n"))
}

func TestReadAllocs(t *testing.T) {
	for _, cmd := range []string{encode("GET", "key"), encode("SET", "key", strings.Repeat("v", 100)), "GET key\r\n"} {
		var pipe []byte
		for len(pipe) < 64*1024 {
			pipe = append(pipe, cmd...)
		}
		r := NewReader(&repeatReader{data: pipe})
		for i := 0; i < 1000; i++ {
			r.ReadCommand()
		}
		if n := testing.AllocsPerRun(1000, func() { r.ReadCommand() }); n != 0 {
			t.Errorf("%q: %v allocs per command", cmd, n)
		}
	}
}

// Ahead shows the complete commands after the current one without
// consuming them, and stops at an incomplete or inline one.
func TestReaderAhead(t *testing.T) {
	in := "*2\r\n$3\r\nGET\r\n$1\r\na\r\n" + "*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$2\r\nxy\r\n" +
		"*1\r\n$4\r\nPING\r\n" + "PING\r\n" + "*2\r\n$3\r\nGET\r\n$1\r\nc\r\n" + "*2\r\n$3\r\nGET\r\n$5\r\nabc"
	r := NewReader(strings.NewReader(in))
	if args, err := r.ReadCommand(); err != nil || string(args[1]) != "a" {
		t.Fatalf("first command: %q %v", args, err)
	}
	ahead := func(max int, stop int) string {
		var got []string
		r.Ahead(max, func(args [][]byte) bool {
			got = append(got, fmt.Sprintf("%q", args))
			return len(got) != stop
		})
		return strings.Join(got, " ")
	}
	if got, want := ahead(16, 0), `["SET" "b" "xy"] ["PING"]`; got != want {
		t.Fatalf("Ahead: %s, want %s", got, want)
	}
	if got, want := ahead(1, 0), `["SET" "b" "xy"]`; got != want {
		t.Fatalf("Ahead(1): %s", got)
	}
	if got, want := ahead(16, 1), `["SET" "b" "xy"]`; got != want {
		t.Fatalf("Ahead stopped by fn: %s", got)
	}
	// Nothing was consumed; after the inline command, the incomplete last
	// one is not shown.
	var rest []string
	for range 4 {
		args, err := r.ReadCommand()
		if err != nil {
			t.Fatal(err)
		}
		rest = append(rest, fmt.Sprintf("%q", args))
	}
	if got, want := strings.Join(rest, " "), `["SET" "b" "xy"] ["PING"] ["PING"] ["GET" "c"]`; got != want {
		t.Fatalf("commands after Ahead: %s", got)
	}
	if got := ahead(16, 0); got != "" {
		t.Fatalf("Ahead over an incomplete command: %s", got)
	}
	// Malformed input ahead is left for ReadCommand to report.
	r = NewReader(strings.NewReader("*1\r\n$4\r\nPING\r\n*2\r\n$x\r\n"))
	r.ReadCommand()
	if got := ahead(16, 0); got != "" {
		t.Fatalf("Ahead over malformed input: %s", got)
	}
}
