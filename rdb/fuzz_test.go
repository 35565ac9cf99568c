package rdb

import (
	"bytes"
	"errors"
	"slices"
	"testing"
)

// FuzzDecodeFunctions feeds arbitrary payloads to DecodeFunctions, both as
// they are (nearly always a footer error) and with a valid footer appended
// (exercising the record parser). It must never panic, must return only
// Redis's errors, and what it accepts must survive a re-encode.
func FuzzDecodeFunctions(f *testing.F) {
	f.Add([]byte(redisShortDump))
	f.Add([]byte(redisLongDump))
	f.Add([]byte(redisShortDump[:len(redisShortDump)-FooterLen]))
	f.Add([]byte(redisLongDump[:len(redisLongDump)-FooterLen]))
	f.Add([]byte("\xf5\xc3\x02\x05\x00a"))
	f.Add([]byte("\xf5\x81\xff\xff\xff\xff\xff\xff\xff\xff"))
	f.Add([]byte("\xf5\xc3\x81\xff\xff\xff\xff\xff\xff\xff\xff\x81\xff\xff\xff\xff\xff\xff\xff\xff"))
	f.Add([]byte("\xf6"))
	f.Add([]byte("\xf6\x01e\x03lua\x01\x02hi\x1freturn 1"))
	f.Fuzz(func(t *testing.T, p []byte) {
		for _, payload := range [][]byte{p, AppendFooter(slices.Clone(p))} {
			codes, err := DecodeFunctions(payload)
			switch err {
			case nil:
				again, err := DecodeFunctions(EncodeFunctions(codes, true))
				if err != nil || !slices.Equal(again, codes) {
					t.Fatalf("re-encoded %q decodes as %q, %v", codes, again, err)
				}
			case ErrPayloadFooter:
				if codes != nil {
					t.Fatalf("footer error with codes %q", codes)
				}
			case ErrNotFunction, ErrLibraryPayload, ErrLibraryName, ErrEngineName,
				ErrDescriptionIndicator, ErrDescription, ErrLibraryBlob:
			default:
				t.Fatalf("unexpected error %v", err)
			}
		}
	})
}

// FuzzLZFDecompress decodes arbitrary streams to arbitrary lengths: no
// panic, exactly the requested length on success, and the result must
// survive a compress/decompress round trip.
func FuzzLZFDecompress(f *testing.F) {
	for _, v := range redisLZFVectors {
		f.Add([]byte(v.compressed), uint32(len(v.plain)))
	}
	f.Add([]byte("\x00a\xe0\xff\x00"), uint32(265))
	f.Add([]byte("\x01ab\xe0\x05\x01"), uint32(16))
	f.Add([]byte("\x1f"), uint32(32))
	f.Fuzz(func(t *testing.T, in []byte, n uint32) {
		out, err := LZFDecompress(in, int(n))
		if err != nil {
			if !errors.Is(err, ErrLZF) || out != nil {
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
		c := LZFCompress(out, len(out)+len(out)/32+4)
		back, err := LZFDecompress(c, len(out))
		if err != nil || !bytes.Equal(back, out) {
			t.Fatalf("round trip of %q failed: %v", out, err)
		}
	})
}

// FuzzLZFCompress compresses arbitrary data with arbitrary limits: no
// panic, never over the limit, and always decodable.
func FuzzLZFCompress(f *testing.F) {
	f.Add([]byte("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), 20)
	f.Add([]byte("hello world hello world hello world"), 31)
	f.Add([]byte("x"), 4)
	f.Fuzz(func(t *testing.T, in []byte, limit int) {
		limit %= 2*len(in) + 64
		c := LZFCompress(in, limit)
		if c == nil {
			return
		}
		if len(c) > limit {
			t.Fatalf("%d bytes of output over the limit %d", len(c), limit)
		}
		out, err := LZFDecompress(c, len(in))
		if err != nil || !bytes.Equal(out, in) {
			t.Fatalf("round trip failed: %v", err)
		}
	})
}

// FuzzReadString reads strings from arbitrary data: no panic, and on error
// the offset stays put.
func FuzzReadString(f *testing.F) {
	for _, c := range stringCases {
		f.Add([]byte(c.want))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		r := NewReader(p)
		for r.Remaining() > 0 {
			at := r.Offset()
			if _, err := r.ReadString(); err != nil {
				if r.Offset() != at || !(errors.Is(err, ErrTruncated) || errors.Is(err, ErrCorrupt)) {
					t.Fatalf("error %v, offset %d -> %d", err, at, r.Offset())
				}
				return
			}
			if r.Offset() == at {
				t.Fatal("ReadString consumed nothing")
			}
		}
	})
}
