package resp

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// FuzzReader feeds arbitrary bytes to the Reader, whole and in pieces: it
// must never panic, every chunking must parse the same commands and end
// with the same error, and a valid multibulk encoding of arbitrary
// arguments must come back unchanged.
func FuzzReader(f *testing.F) {
	for _, seed := range []string{
		pipeline,
		"*1\r\n$4\r\nPING\r\n",
		"*abc\r\n", "*1\r\n$-1\r\n", "*1\r\nx\r\n", "*2\r\n$3\r\nGET\r\n",
		"\"unbalanced\r\n", "SET k 'v\\'w' \"\\x41\"\r\n", "\r\n\r\n*0\r\n*-5\r\n",
		"*1\x00\r\n", "PING\x00\n", "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100\r\nshort",
	} {
		f.Add([]byte(seed), uint8(3), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8, unauth bool) {
		parse := func(sizes []int) string {
			r := NewReader(&chunkReader{data: bytes.Clone(data), sizes: sizes})
			r.MaxBulkLen = 1 << 20
			r.Unauthenticated = unauth
			var out strings.Builder
			for {
				args, err := r.ReadCommand()
				if err != nil {
					var perr *ProtocolError
					if !errors.As(err, &perr) && err != io.EOF {
						t.Fatalf("unexpected error %v", err)
					}
					out.WriteString(err.Error())
					return out.String()
				}
				if len(args) == 0 {
					t.Fatal("empty command returned")
				}
				for _, a := range args {
					out.WriteString(encode(string(a)))
				}
			}
		}
		whole := parse(nil)
		// Redis's inline and count-line limits depend on how the input
		// arrives once a line passes 64 KB; below that, chunking must not
		// matter.
		if len(data) <= InlineMax {
			if got := parse([]int{int(chunk)%17 + 1, 5, 1}); got != whole {
				t.Fatalf("chunked parse differs:\n%q\n%q", got, whole)
			}
		}

		// Round trip: split data into arguments and encode them.
		args := bytes.Split(data, []byte{'|'})
		var in []byte
		for _, a := range args {
			in = append(in, '$')
			in = FormatInt(in, int64(len(a)))
			in = append(in, '\r', '\n')
			in = append(in, a...)
			in = append(in, '\r', '\n')
		}
		in = append(FormatInt([]byte{'*'}, int64(len(args))), append([]byte("\r\n"), in...)...)
		r := NewReader(&chunkReader{data: in, sizes: []int{int(chunk) + 1}})
		got, err := r.ReadCommand()
		if err != nil {
			t.Fatalf("round trip: %v", err)
		}
		if len(got) != len(args) {
			t.Fatalf("round trip: %d args, want %d", len(got), len(args))
		}
		for i := range args {
			if !bytes.Equal(got[i], args[i]) {
				t.Fatalf("round trip: arg %d = %q, want %q", i, got[i], args[i])
			}
		}
		if _, err := r.ReadCommand(); err != io.EOF {
			t.Fatalf("round trip: trailing %v", err)
		}
	})
}
