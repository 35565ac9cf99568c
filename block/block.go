// Package block sizes the single allocations that hold the small forms of
// collections (intsets, listpacks): their headers keep no capacity, so a
// block's capacity must be a function of its length.
package block

import "math/bits"

// Size returns the capacity in bytes of the block that holds n bytes: n
// rounded up to a grid of four steps per power of two (8-byte steps up to
// 32, never under 16 bytes a step beyond), which matches most of the Go
// allocator's size classes, so that a block wastes little beyond what the
// allocator would, and a growing block is reallocated at most once per
// eighth of its size. It is a multiple of 8, monotone, and at least n; 0
// for n <= 0.
func Size(n int) int {
	switch {
	case n <= 0:
		return 0
	case n <= 32:
		return (n + 7) &^ 7
	}
	step := max(1<<(bits.Len(uint(n-1))-3), 16)
	return (n + step - 1) &^ (step - 1)
}
