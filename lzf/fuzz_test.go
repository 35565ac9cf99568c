package lzf

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzDecompress decodes arbitrary streams to arbitrary lengths: no
// panic, exactly the requested length on success, and the result must
// survive a compress/decompress round trip.
func FuzzDecompress(f *testing.F) {
	for _, v := range redisVectors {
		f.Add([]byte(v.compressed), uint32(len(v.plain)))
	}
	f.Add([]byte("\x00a\xe0\xff\x00"), uint32(265))
	f.Add([]byte("\x01ab\xe0\x05\x01"), uint32(16))
	f.Add([]byte("\x1f"), uint32(32))
	f.Fuzz(func(t *testing.T, in []byte, n uint32) {
		out, err := Decompress(in, int(n))
		if err != nil {
			if !errors.Is(err, ErrInvalid) || out != nil {
				t.Fatalf("error %v with output %q", err, out)
			}
			return
		}
		if len(out) != int(n) {
			t.Fatalf("asked for %d bytes, got %d", n, len(out))
		}
		if len(out) == 0 {
			return
		}
		c := Compress(out, len(out)+len(out)/32+4)
		back, err := Decompress(c, len(out))
		if err != nil || !bytes.Equal(back, out) {
			t.Fatalf("round trip of %q failed: %v", out, err)
		}
	})
}

// FuzzCompress compresses arbitrary data with arbitrary limits: no
// panic, never over the limit, and always decodable.
func FuzzCompress(f *testing.F) {
	f.Add([]byte("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), 20)
	f.Add([]byte("hello world hello world hello world"), 31)
	f.Add([]byte("x"), 4)
	f.Fuzz(func(t *testing.T, in []byte, limit int) {
		limit %= 2*len(in) + 64
		c := Compress(in, limit)
		if c == nil {
			return
		}
		if len(c) > limit {
			t.Fatalf("%d bytes of output over the limit %d", len(c), limit)
		}
		out, err := Decompress(c, len(in))
		if err != nil || !bytes.Equal(out, in) {
			t.Fatalf("round trip failed: %v", err)
		}
	})
}
