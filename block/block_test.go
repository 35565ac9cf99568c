package block

import "testing"

func TestSize(t *testing.T) {
	for n, want := range map[int]int{-1: 0, 0: 0, 1: 8, 8: 8, 9: 16, 32: 32, 33: 48, 48: 48, 49: 64, 64: 64, 65: 80, 129: 160, 1000: 1024} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %d, want %d", n, got, want)
		}
	}
	prev := 0
	for n := 0; n <= 1<<16; n++ {
		s := Size(n)
		if s < n || s < prev || s%8 != 0 {
			t.Fatalf("Size(%d) = %d (Size(%d) = %d): not monotone, a multiple of 8 and at least n", n, s, n-1, prev)
		}
		if n > 32 && s-n >= max(n/4, 16) {
			t.Fatalf("Size(%d) = %d wastes a quarter or more", n, s)
		}
		prev = s
	}
}
