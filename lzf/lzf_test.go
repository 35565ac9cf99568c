package lzf

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// Compressed strings taken from DUMP replies of a real Redis 7.0.15 (the
// bytes after "\x00\xc3<clen><len>").
var redisVectors = []struct {
	plain, compressed string
}{
	{strings.Repeat("a", 21), "\x01aa\xe0\n\x00"},
	{strings.Repeat("a", 49), "\x01aa\xe0$\x00\x01aa"},
	{"hello world hello world hello world hello world", "\fhello world h\xe0\x17\v\x01ld"},
	{strings.Repeat("abcdefgh", 40), "\babcdefgha\xe0\xff\a\xe1$\a\x01gh"},
}

func TestRedisVectors(t *testing.T) {
	for _, v := range redisVectors {
		got, err := Decompress([]byte(v.compressed), len(v.plain))
		if err != nil || string(got) != v.plain {
			t.Errorf("Decompress(%q) = %q, %v; want %q", v.compressed, got, err, v.plain)
		}
		// Same limit as rdbSaveLzfStringObject: len-4.
		if c := Compress([]byte(v.plain), len(v.plain)-4); string(c) != v.compressed {
			t.Errorf("Compress(%q) = %q, want Redis's %q", v.plain, c, v.compressed)
		}
	}
}

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

func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	for _, in := range testInputs(rng) {
		c := Compress(in, len(in)+len(in)/32+4) // always room enough
		if c == nil {
			t.Fatalf("Compress(%d bytes) gave up with room enough", len(in))
		}
		out, err := Decompress(c, len(in))
		if err != nil || !bytes.Equal(out, in) {
			t.Fatalf("round trip of %d bytes (%q...) failed: %v", len(in), in[:min(len(in), 20)], err)
		}
		if len(in) >= 1000 && bytes.Count(in, in[:1]) == len(in) && len(c) > len(in)/50 {
			t.Errorf("%d repeated bytes compressed to %d bytes", len(in), len(c))
		}
	}
}

// TestCompressLimit checks the contract on limit: the output never
// exceeds it, and a limit large enough for one call gives the same bytes
// for any larger limit (liblzf's output does not depend on out_len).
func TestCompressLimit(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 5))
	htab := &table{base: 1} // Compress minus the pool, which is slow under -race
	for _, in := range testInputs(rng)[:300] {
		full := Compress(in, 1<<20)
		for limit := 1; limit <= len(in)+40; limit++ {
			c := compress(in, limit, htab)
			if c == nil {
				continue
			}
			if len(c) > limit {
				t.Fatalf("%d bytes, limit %d: output of %d bytes", len(in), limit, len(c))
			}
			if !bytes.Equal(c, full) {
				t.Fatalf("%d bytes, limit %d: output differs from unlimited", len(in), limit)
			}
		}
		// liblzf checks for room conservatively (it wants 3 bytes free
		// after a reserved literal header before the last literals), but
		// never needs more than 4 spare bytes.
		if c := Compress(in, len(full)+4); c == nil {
			t.Fatalf("%d bytes: gave up with 4 spare bytes", len(in))
		}
	}
	if Compress(nil, 100) != nil || Compress([]byte("abc"), 0) != nil || Compress([]byte("abc"), -1) != nil {
		t.Fatal("empty input or non-positive limit must give nil")
	}
}

func TestDecompressErrors(t *testing.T) {
	cases := []struct {
		name string
		in   string
		n    int
	}{
		{"empty input", "", 1},
		{"truncated literal", "\x03ab", 4},
		{"literal longer than output", "\x03abcd", 3},
		{"trailing input", "\x00a\x00b", 1},
		{"short output", "\x00a", 2},
		{"reference before start", "\x00a\x20\x01", 4},
		{"reference at empty output", "\x20\x00", 3},
		{"truncated reference", "\x00a\x20", 4},
		{"truncated long reference", "\x00a\xe0\x05", 20},
		{"long reference missing offset", "\x00a\xe0", 20},
		{"reference past output", "\x00a\xe0\x05\x00", 5},
		{"negative length", "\x00a", -1},
		{"impossible expansion", "\x00a", 1 << 40},
	}
	for _, c := range cases {
		out, err := Decompress([]byte(c.in), c.n)
		if !errors.Is(err, ErrInvalid) || out != nil {
			t.Errorf("%s: Decompress(%q, %d) = %q, %v; want ErrInvalid", c.name, c.in, c.n, out, err)
		}
	}
	// Overlapping back references repeat the pattern (run-length).
	out, err := Decompress([]byte("\x01ab\xe0\x05\x01"), 2+7+5+2)
	if err != nil || string(out) != strings.Repeat("ab", 8) {
		t.Errorf("overlapping reference: %q, %v", out, err)
	}
	// Expected length 0: Redis's lzf_decompress returns 0, which equals
	// the expected length, whatever the stream (checked against Redis in
	// TestRedisStringQuirks).
	for _, in := range []string{"", "\x00", "\xff\xff", "\x00a"} {
		if out, err := Decompress([]byte(in), 0); err != nil || len(out) != 0 {
			t.Errorf("Decompress(%q, 0) = %q, %v; want empty, nil", in, out, err)
		}
	}
}

func TestDecompressAllocation(t *testing.T) {
	in := []byte("\x00a\xe0\xff\x00") // 5 bytes decoding to 1+264 bytes
	if out, err := Decompress(in, 265); err != nil || len(out) != 265 {
		t.Fatalf("max-length reference: %d bytes, %v", len(out), err)
	}
	// A claimed length beyond MaxRatio per input byte is rejected
	// before anything is allocated.
	allocs := testing.AllocsPerRun(10, func() {
		if _, err := Decompress(in, MaxRatio*len(in)+1); err == nil {
			t.Fatal("accepted an impossible length")
		}
	})
	if allocs != 0 {
		t.Fatalf("rejecting an impossible length allocated %v times", allocs)
	}
}

// TestTableReuse: a pooled table holding entries of earlier calls, or
// about to overflow its base, compresses exactly like a fresh one.
func TestTableReuse(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	ins := testInputs(rng)
	shared, fresh, worn := &table{base: 1}, &table{}, &table{}
	for i, in := range ins {
		*fresh = table{base: 1}
		want := compress(in, len(in)+64, fresh)
		if got := compress(in, len(in)+64, shared); !bytes.Equal(got, want) {
			t.Fatalf("input %d: reused table changed the output", i)
		}
		if i%25 != 0 && i < len(ins)-3 {
			continue
		}
		// Stale entries everywhere (all below base, the table's invariant)
		// and a base close to wrapping.
		base := math.MaxUint32 - uint32(rng.IntN(len(in)+2))
		worn.base = base
		for j := range worn.slots {
			worn.slots[j] = rng.Uint32N(base)
		}
		if got := compress(in, len(in)+64, worn); !bytes.Equal(got, want) {
			t.Fatalf("input %d: table near overflow changed the output", i)
		}
		wantBase := base + uint32(len(in)) + 1
		if uint64(base)+uint64(len(in)) >= math.MaxUint32 {
			wantBase = uint32(len(in)) + 2 // reset to 1, then moved past the input
		}
		if worn.base != wantBase {
			t.Fatalf("input %d: base %d after the call, want %d", i, worn.base, wantBase)
		}
	}
}

// TestIntoBuffers: CompressTo and DecompressTo give Compress's and
// Decompress's results in the caller's buffers.
func TestIntoBuffers(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	for i, in := range testInputs(rng) {
		for _, limit := range []int{len(in) / 2, len(in) - 4, len(in), len(in) + 64} {
			want := Compress(in, limit)
			out := make([]byte, max(limit, 0))
			n := CompressTo(out, in)
			if !bytes.Equal(out[:n], want) {
				t.Fatalf("input %d, limit %d: CompressTo wrote %d bytes, Compress %d", i, limit, n, len(want))
			}
			if want == nil {
				continue
			}
			back := make([]byte, len(in))
			if err := DecompressTo(back, want); err != nil || !bytes.Equal(back, in) {
				t.Fatalf("input %d: DecompressTo: %v", i, err)
			}
			if len(in) > 1 && DecompressTo(back[:len(in)-1], want) == nil {
				t.Fatalf("input %d: DecompressTo into a short buffer succeeded", i)
			}
		}
	}
	if CompressTo(nil, []byte("abc")) != 0 || CompressTo(make([]byte, 10), nil) != 0 || DecompressTo(nil, []byte("x")) != nil {
		t.Fatal("empty buffers")
	}
}

// BenchmarkDecompress decodes 8 KB of text-like data and 8 KB of one
// repeated byte (long overlapping back references).
func BenchmarkDecompress(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	text := make([]byte, 8192)
	for i := range text {
		if i > 8 && rng.IntN(2) == 0 {
			text[i] = text[i-1-rng.IntN(8)]
		} else {
			text[i] = byte('a' + rng.IntN(26))
		}
	}
	for _, in := range []struct {
		name string
		data []byte
	}{{"text", text}, {"run", bytes.Repeat([]byte{'L'}, 8192)}} {
		c := Compress(in.data, len(in.data))
		out := make([]byte, len(in.data))
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.data)))
			for range b.N {
				if err := DecompressTo(out, c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
