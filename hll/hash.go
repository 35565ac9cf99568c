package hll

import (
	"encoding/binary"
	"math/bits"
)

// hashSeed is the MurmurHash64A seed Redis uses for HyperLogLog elements.
const hashSeed = 0xadc83b19

// murmurHash64A is Redis's MurmurHash64A (MurmurHash2, 64-bit version),
// reading the input as little-endian words on every platform, as Redis's
// endian-neutral variant does.
func murmurHash64A(key []byte, seed uint64) uint64 {
	const m = 0xc6a4a7935bd1e995
	const r = 47
	h := seed ^ uint64(len(key))*m
	for len(key) >= 8 {
		k := binary.LittleEndian.Uint64(key)
		k *= m
		k ^= k >> r
		k *= m
		h ^= k
		h *= m
		key = key[8:]
	}
	if len(key) > 0 {
		for i := len(key) - 1; i >= 0; i-- {
			h ^= uint64(key[i]) << (8 * i)
		}
		h *= m
	}
	h ^= h >> r
	h *= m
	h ^= h >> r
	return h
}

// patLen returns the register an element maps to and the length of the
// "000...1" pattern of its hash above the index bits (1 to hllQ+1), as
// Redis's hllPatLen does.
func patLen(elem []byte) (index int, count uint8) {
	hash := murmurHash64A(elem, hashSeed)
	index = int(hash & (numRegisters - 1))
	hash >>= hllP
	hash |= 1 << hllQ // the loop in Redis stops here: count <= hllQ+1
	return index, uint8(bits.TrailingZeros64(hash) + 1)
}
