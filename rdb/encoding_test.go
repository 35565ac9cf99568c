package rdb

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

func TestAppendLen(t *testing.T) {
	cases := []struct {
		n    uint64
		want string
	}{
		{0, "\x00"},
		{63, "\x3f"},
		{64, "\x40\x40"},
		{300, "\x41\x2c"},
		{16383, "\x7f\xff"},
		{16384, "\x80\x00\x00\x40\x00"},
		{math.MaxUint32, "\x80\xff\xff\xff\xff"},
		{math.MaxUint32 + 1, "\x81\x00\x00\x00\x01\x00\x00\x00\x00"},
		{math.MaxUint64, "\x81\xff\xff\xff\xff\xff\xff\xff\xff"},
	}
	for _, c := range cases {
		got := AppendLen([]byte("x"), c.n)
		if string(got) != "x"+c.want {
			t.Errorf("AppendLen(%d) = %q, want %q", c.n, got[1:], c.want)
		}
		r := NewReader(got[1:])
		n, enc, err := r.ReadLenEncoded()
		if err != nil || enc || n != c.n || r.Remaining() != 0 {
			t.Errorf("ReadLenEncoded(%q) = %d, %v, %v, %d left", c.want, n, enc, err, r.Remaining())
		}
		for cut := range len(c.want) {
			r := NewReader([]byte(c.want[:cut]))
			if _, err := r.ReadLen(); !errors.Is(err, ErrTruncated) || r.Offset() != 0 {
				t.Errorf("ReadLen(%q) = %v at offset %d, want ErrTruncated at 0", c.want[:cut], err, r.Offset())
			}
		}
	}
}

func TestReadLenSpecialBytes(t *testing.T) {
	// 11xxxxxx: a special encoding for ReadLenEncoded, a plain 6-bit value
	// for ReadLen (rdbLoadLen(rdb, NULL) ignores the flag).
	r := NewReader([]byte{0xc3, 0xc3})
	if n, enc, err := r.ReadLenEncoded(); n != 3 || !enc || err != nil {
		t.Errorf("ReadLenEncoded(0xc3) = %d, %v, %v", n, enc, err)
	}
	if n, err := r.ReadLen(); n != 3 || err != nil {
		t.Errorf("ReadLen(0xc3) = %d, %v", n, err)
	}
	// rdbLoadLen cannot tell the length 2^64-1 from its error value.
	r = NewReader([]byte("\x81\xff\xff\xff\xff\xff\xff\xff\xff"))
	if _, err := r.ReadLen(); !errors.Is(err, ErrCorrupt) || r.Offset() != 0 {
		t.Errorf("ReadLen(2^64-1) = %v at offset %d, want ErrCorrupt at 0", err, r.Offset())
	}
	if n, _, err := r.ReadLenEncoded(); n != math.MaxUint64 || err != nil {
		t.Errorf("ReadLenEncoded(2^64-1) = %d, %v", n, err)
	}
	for b := 0x82; b <= 0xbf; b++ {
		r := NewReader([]byte{byte(b), 0, 0, 0, 0, 0, 0, 0, 0})
		if _, err := r.ReadLen(); !errors.Is(err, ErrCorrupt) || r.Offset() != 0 {
			t.Errorf("ReadLen(%#x) = %v, want ErrCorrupt", b, err)
		}
	}
}

// stringCases are rdbSaveRawString encodings. TestRedisDumpStrings checks
// that Redis 7.0 DUMPs each compress=true case with exactly these bytes.
var stringCases = []struct {
	s        string
	compress bool
	want     string
}{
	{"", true, "\x00"},
	{"0", true, "\xc0\x00"},
	{"-1", true, "\xc0\xff"},
	{"127", true, "\xc0\x7f"},
	{"-128", true, "\xc0\x80"},
	{"128", true, "\xc1\x80\x00"},
	{"-129", true, "\xc1\x7f\xff"},
	{"32767", true, "\xc1\xff\x7f"},
	{"32768", true, "\xc2\x00\x80\x00\x00"},
	{"2147483647", true, "\xc2\xff\xff\xff\x7f"},
	{"-2147483648", true, "\xc2\x00\x00\x00\x80"},
	{"2147483648", true, "\x0a2147483648"},
	{"12345678901", true, "\x0b12345678901"},
	{"-0", true, "\x02-0"},
	{"01", true, "\x0201"},
	{"+1", true, "\x02+1"},
	{" 1", true, "\x02 1"},
	{"1 ", true, "\x021 "},
	{"0x10", true, "\x040x10"},
	{"hello", true, "\x05hello"},
	{strings.Repeat("a", 20), true, "\x14" + strings.Repeat("a", 20)},
	{strings.Repeat("a", 21), true, "\xc3\x06\x15\x01aa\xe0\x0a\x00"},
	{strings.Repeat("a", 21), false, "\x15" + strings.Repeat("a", 21)},
	{"abcdefghijklmnopqrstuvwxyz", true, "\x1aabcdefghijklmnopqrstuvwxyz"}, // incompressible
	{strings.Repeat("b", 100), true, "\xc3\x09\x40\x64\x01bb\xe0\x57\x00\x01bb"},
}

func TestAppendString(t *testing.T) {
	for _, c := range stringCases {
		got := AppendString([]byte("x"), c.s, c.compress)
		if string(got) != "x"+c.want {
			t.Errorf("AppendString(%q, %v) = %q, want %q", c.s, c.compress, got[1:], c.want)
		}
		if b := AppendString(nil, []byte(c.s), c.compress); string(b) != c.want {
			t.Errorf("AppendString([]byte(%q), %v) = %q, want %q", c.s, c.compress, b, c.want)
		}
		w := NewWriter(nil, c.compress)
		w.WriteString(c.s)
		w.WriteStringBytes([]byte(c.s))
		if string(w.Bytes()) != c.want+c.want || w.Len() != 2*len(c.want) {
			t.Errorf("Writer(%q) = %q", c.s, w.Bytes())
		}
		r := NewReader([]byte(c.want + "rest"))
		s, err := r.ReadString()
		if err != nil || s != c.s || r.Offset() != len(c.want) {
			t.Errorf("ReadString(%q) = %q, %v at offset %d", c.want, s, err, r.Offset())
		}
	}
}

// testInputs returns strings of every size up to 300 (repeated, random and
// text-like bytes) and a few long ones.
func testInputs(rng *rand.Rand) [][]byte {
	var ins [][]byte
	for n := 1; n < 300; n++ {
		ins = append(ins, bytes.Repeat([]byte{'x'}, n))
		random := make([]byte, n)
		for i := range random {
			random[i] = byte(rng.Uint32())
		}
		ins = append(ins, random)
		// Text-like data with back references at every distance.
		mixed := make([]byte, n)
		for i := range mixed {
			if i > 4 && rng.IntN(3) == 0 {
				mixed[i] = mixed[i-1-rng.IntN(i-1)]
			} else {
				mixed[i] = byte('a' + rng.IntN(1+n%26))
			}
		}
		ins = append(ins, mixed)
	}
	// Long inputs: offsets beyond 8 KiB, matches longer than 264 bytes.
	big := make([]byte, 100000)
	for i := range big {
		big[i] = byte('a' + rng.IntN(4))
	}
	ins = append(ins, big, bytes.Repeat([]byte("0123456789"), 10000))
	period := make([]byte, 9000)
	for i := range period {
		period[i] = byte(rng.Uint32())
	}
	ins = append(ins, bytes.Repeat(period, 4))
	return ins
}

func TestStringRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 7))
	for _, in := range testInputs(rng) {
		for _, compress := range []bool{false, true} {
			enc := AppendString(nil, in, compress)
			r := NewReader(enc)
			got, err := r.ReadStringBytes()
			if err != nil || !bytes.Equal(got, in) || r.Remaining() != 0 {
				t.Fatalf("round trip of %d bytes (compress %v): %v, %d left", len(in), compress, err, r.Remaining())
			}
			if compress && len(in) > 1000 && bytes.Count(in, in[:1]) == len(in) && len(enc) > 100 {
				t.Fatalf("%d repeated bytes encoded in %d bytes", len(in), len(enc))
			}
		}
	}
	for _, v := range []int64{math.MinInt32, -32769, -32768, -129, -128, -1, 0, 1, 127, 128, 255, 256, 32767, 32768, 65535, 65536, math.MaxInt32} {
		s := strconv.FormatInt(v, 10)
		enc := AppendString(nil, s, true)
		if enc[0]>>6 != encVal {
			t.Errorf("%s not integer-encoded: %q", s, enc)
		}
		if got, err := NewReader(enc).ReadString(); err != nil || got != s {
			t.Errorf("%s decoded as %q, %v", s, got, err)
		}
	}
}

func TestReadStringErrors(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want error
	}{
		{"empty", "", ErrTruncated},
		{"short raw", "\x05abcd", ErrTruncated},
		{"huge raw", "\x81\xff\xff\xff\xff\xff\xff\xff\xff", ErrTruncated},
		{"short int8", "\xc0", ErrTruncated},
		{"short int16", "\xc1\x00", ErrTruncated},
		{"short int32", "\xc2\x00\x00\x00", ErrTruncated},
		{"unknown encoding", "\xc4abcd", ErrCorrupt},
		{"last encoding", "\xffabcd", ErrCorrupt},
		{"bad length byte", "\x9aabcd", ErrCorrupt},
		{"lzf no lengths", "\xc3", ErrTruncated},
		{"lzf no length", "\xc3\x02", ErrTruncated},
		{"lzf short data", "\xc3\x02\x02\x01", ErrTruncated},
		{"lzf huge clen", "\xc3\x81\xff\xff\xff\xff\xff\xff\xff\xfe\x01\x00", ErrTruncated},
		{"lzf clen RDB_LENERR", "\xc3\x81\xff\xff\xff\xff\xff\xff\xff\xff\x01\x00", ErrCorrupt},
		{"lzf bad data", "\xc3\x02\x03\x00a", ErrCorrupt},
		{"lzf reference before start", "\xc3\x02\x03\x20\x00", ErrCorrupt},
		{"lzf huge length", "\xc3\x02\x81\xff\xff\xff\xff\xff\xff\xff\xff\x00a", ErrCorrupt},
		{"lzf impossible length", "\xc3\x02\x80\x10\x00\x00\x00\x00a", ErrCorrupt},
	}
	for _, c := range cases {
		r := NewReader([]byte(c.in))
		s, err := r.ReadString()
		if !errors.Is(err, c.want) || s != "" || r.Offset() != 0 {
			t.Errorf("%s: ReadString(%q) = %q, %v at offset %d; want %v at 0", c.name, c.in, s, err, r.Offset(), c.want)
		}
	}
	// An LZF string of length 0 is accepted whatever its data (Redis).
	r := NewReader([]byte("\xc3\x02\x00\xff\xffX"))
	if s, err := r.ReadString(); s != "" || err != nil || r.Offset() != 5 {
		t.Errorf("empty LZF string: %q, %v at offset %d", s, err, r.Offset())
	}
}

func TestReaderRawAndType(t *testing.T) {
	r := NewReader([]byte{OpcodeFunction2, 'a', 'b'})
	if typ, err := r.ReadType(); typ != OpcodeFunction2 || err != nil {
		t.Fatalf("ReadType = %d, %v", typ, err)
	}
	if _, err := r.ReadRaw(3); !errors.Is(err, ErrTruncated) || r.Offset() != 1 {
		t.Fatalf("ReadRaw(3) = %v at %d", err, r.Offset())
	}
	if _, err := r.ReadRaw(-1); !errors.Is(err, ErrTruncated) {
		t.Fatalf("ReadRaw(-1) = %v", err)
	}
	if b, err := r.ReadRaw(2); string(b) != "ab" || err != nil {
		t.Fatalf("ReadRaw(2) = %q, %v", b, err)
	}
	if _, err := r.ReadType(); !errors.Is(err, ErrTruncated) {
		t.Fatalf("ReadType at end = %v", err)
	}
	w := NewWriter([]byte("pre"), false)
	w.WriteType(TypeString)
	w.WriteLen(70000)
	w.WriteRaw([]byte("raw"))
	if string(w.Bytes()) != "pre\x00\x80\x00\x01\x11\x70raw" {
		t.Fatalf("Writer = %q", w.Bytes())
	}
}
