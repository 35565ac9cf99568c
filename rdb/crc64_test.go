package rdb

import (
	"math/rand/v2"
	"testing"
)

// crc64Bitwise is a bit-at-a-time CRC-64/Jones (reflected, init 0, no
// final xor): the definition, independent of hash/crc64's table.
func crc64Bitwise(crc uint64, p []byte) uint64 {
	for _, b := range p {
		crc ^= uint64(b)
		for range 8 {
			if crc&1 != 0 {
				crc = crc>>1 ^ crcJonesReflected
			} else {
				crc >>= 1
			}
		}
	}
	return crc
}

func TestCRC64CheckValue(t *testing.T) {
	// The check value in Redis's crc64.c self test.
	if got := CRC64(0, []byte("123456789")); got != 0xe9c6d914c4b8d9ca {
		t.Fatalf("CRC64(0, \"123456789\") = %#x, want 0xe9c6d914c4b8d9ca", got)
	}
	if got := CRC64(0, nil); got != 0 {
		t.Fatalf("CRC64(0, nil) = %#x, want 0", got)
	}
}

func TestCRC64MatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for n := range 300 { // hash/crc64 switches to slicing-by-8 for long inputs
		p := make([]byte, n*37)
		for i := range p {
			p[i] = byte(rng.Uint32())
		}
		want := crc64Bitwise(0, p)
		if got := CRC64(0, p); got != want {
			t.Fatalf("len %d: CRC64 = %#x, bitwise = %#x", len(p), got, want)
		}
		// Continuation: crc64(crc64(0, a), b) == crc64(0, a+b).
		cut := rng.IntN(len(p) + 1)
		if got := CRC64(CRC64(0, p[:cut]), p[cut:]); got != want {
			t.Fatalf("len %d cut %d: continued CRC64 = %#x, want %#x", len(p), cut, got, want)
		}
	}
}
