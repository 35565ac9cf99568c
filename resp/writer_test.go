package resp

import (
	"math"
	"strconv"
	"testing"
)

// The writer's encodings in RESP2 and RESP3, as Redis 7.0 sends them.
func TestWriter(t *testing.T) {
	for _, tc := range []struct {
		name        string
		write       func(w *Writer)
		resp2, rsp3 string
	}{
		{"simple", func(w *Writer) { w.Simple("PONG") }, "+PONG\r\n", "+PONG\r\n"},
		{"ok", func(w *Writer) { w.OK() }, "+OK\r\n", "+OK\r\n"},
		{"error", func(w *Writer) { w.Error("ERR bad") }, "-ERR bad\r\n", "-ERR bad\r\n"},
		{"error with newlines", func(w *Writer) { w.Error("ERR a\r\nb\nc") }, "-ERR a  b c\r\n", "-ERR a  b c\r\n"},
		{"int", func(w *Writer) { w.Int(-42) }, ":-42\r\n", ":-42\r\n"},
		{"int min", func(w *Writer) { w.Int(math.MinInt64) }, ":-9223372036854775808\r\n", ":-9223372036854775808\r\n"},
		{"bulk", func(w *Writer) { w.Bulk([]byte("a\r\nb")) }, "$4\r\na\r\nb\r\n", "$4\r\na\r\nb\r\n"},
		{"empty bulk", func(w *Writer) { w.Bulk(nil) }, "$0\r\n\r\n", "$0\r\n\r\n"},
		{"bulk string", func(w *Writer) { w.BulkString("hi") }, "$2\r\nhi\r\n", "$2\r\nhi\r\n"},
		{"bulk int", func(w *Writer) { w.BulkInt(123) }, "$3\r\n123\r\n", "$3\r\n123\r\n"},
		{"null", func(w *Writer) { w.Null() }, "$-1\r\n", "_\r\n"},
		{"null array", func(w *Writer) { w.NullArray() }, "*-1\r\n", "_\r\n"},
		{"array", func(w *Writer) { w.Array(2); w.Int(1); w.Null() }, "*2\r\n:1\r\n$-1\r\n", "*2\r\n:1\r\n_\r\n"},
		{"empty array", func(w *Writer) { w.Array(0) }, "*0\r\n", "*0\r\n"},
		{"map", func(w *Writer) { w.Map(1); w.BulkString("k"); w.Int(1) }, "*2\r\n$1\r\nk\r\n:1\r\n", "%1\r\n$1\r\nk\r\n:1\r\n"},
		{"set", func(w *Writer) { w.Set(1); w.BulkString("m") }, "*1\r\n$1\r\nm\r\n", "~1\r\n$1\r\nm\r\n"},
		{"push", func(w *Writer) { w.Push(1); w.BulkString("m") }, "*1\r\n$1\r\nm\r\n", ">1\r\n$1\r\nm\r\n"},
		{"true", func(w *Writer) { w.Bool(true) }, ":1\r\n", "#t\r\n"},
		{"false", func(w *Writer) { w.Bool(false) }, ":0\r\n", "#f\r\n"},
		{"double", func(w *Writer) { w.Double(1.5) }, "$3\r\n1.5\r\n", ",1.5\r\n"},
		{"double 17 digits", func(w *Writer) { w.Double(0.1) }, "$19\r\n0.10000000000000001\r\n", ",0.10000000000000001\r\n"},
		{"double integral", func(w *Writer) { w.Double(3) }, "$1\r\n3\r\n", ",3\r\n"},
		{"double exponent", func(w *Writer) { w.Double(1e300) }, "$23\r\n1.0000000000000001e+300\r\n", ",1.0000000000000001e+300\r\n"},
		{"double inf", func(w *Writer) { w.Double(math.Inf(1)) }, "$3\r\ninf\r\n", ",inf\r\n"},
		{"double -inf", func(w *Writer) { w.Double(math.Inf(-1)) }, "$4\r\n-inf\r\n", ",-inf\r\n"},
		{"verbatim", func(w *Writer) { w.Verbatim("txt", "a\n") }, "$2\r\na\n\r\n", "=6\r\ntxt:a\n\r\n"},
		{"raw", func(w *Writer) { w.Raw([]byte(":1\r\n")) }, ":1\r\n", ":1\r\n"},
	} {
		for _, proto := range []int{2, 3} {
			w := Writer{Proto: proto}
			tc.write(&w)
			want := tc.resp2
			if proto == 3 {
				want = tc.rsp3
			}
			if string(w.Buf) != want {
				t.Errorf("%s (RESP%d): got %q, want %q", tc.name, proto, w.Buf, want)
			}
		}
	}
}

func TestWriterReset(t *testing.T) {
	w := Writer{Proto: 2}
	w.OK()
	c := cap(w.Buf)
	w.Reset()
	if len(w.Buf) != 0 || cap(w.Buf) != c {
		t.Fatalf("Reset: len %d cap %d", len(w.Buf), cap(w.Buf))
	}
}

func TestWriterAllocs(t *testing.T) {
	w := Writer{Proto: 2, Buf: make([]byte, 0, 4096)}
	v := []byte("value")
	n := testing.AllocsPerRun(1000, func() {
		w.Reset()
		w.Bulk(v)
		w.Int(12345)
		w.Null()
		w.OK()
		w.Double(2.5)
	})
	if n != 0 {
		t.Fatalf("%v allocs", n)
	}
}

// TestLineLengths: the short forms of a length line agree with the
// general one around their bounds.
func TestLineLengths(t *testing.T) {
	for _, n := range []int64{-1, 0, 1, 9, 10, 11, 42, 99, 100, 101, 12345, -12} {
		var w Writer
		w.line('$', n)
		if want := "$" + strconv.FormatInt(n, 10) + "\r\n"; string(w.Buf) != want {
			t.Errorf("line(%d) = %q, want %q", n, w.Buf, want)
		}
	}
}

func BenchmarkBulkSmall(b *testing.B) {
	var w Writer
	v := []byte("value")
	for b.Loop() {
		w.Reset()
		w.line('*', 2)
		w.Bulk(v)
		w.Bulk(v)
	}
}
