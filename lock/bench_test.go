package lock

import (
	"fmt"
	"sync/atomic"
	"testing"
)

// The benchmarks use only the blocking API, so that they also run against
// the implementation this package replaced (RWMutex per tag and per slot).

// BenchmarkLockKeysUncontended: one goroutine, one key, LockKeys + Unlock:
// the cost every command pays.
func BenchmarkLockKeysUncontended(b *testing.B) {
	m := NewManager()
	g := m.NewGuard(1)
	k := keys("key:1")
	b.ReportAllocs()
	for b.Loop() {
		g.LockKeys(k, true)
		g.Unlock()
	}
}

// BenchmarkLockKeysUncontendedMulti: one goroutine, four keys (MSET-like).
func BenchmarkLockKeysUncontendedMulti(b *testing.B) {
	m := NewManager()
	g := m.NewGuard(1)
	k := keys("key:4", "key:2", "key:3", "key:1")
	b.ReportAllocs()
	for b.Loop() {
		g.LockKeys(k, true)
		g.Unlock()
	}
}

// benchParallel runs LockKeys + Unlock on every goroutine, on the key
// that key returns for the goroutine's number.
func benchParallel(b *testing.B, write bool, key func(n uint64) string) {
	m := NewManager()
	var id atomic.Uint64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		n := id.Add(1)
		g := m.NewGuard(n)
		k := keys(key(n))
		for pb.Next() {
			g.LockKeys(k, write)
			g.Unlock()
		}
	})
}

// BenchmarkLockKeysParallel: every goroutine on its own tag and its own
// slot: the shared global fast path and uncontended tag locks.
func BenchmarkLockKeysParallel(b *testing.B) {
	benchParallel(b, true, func(n uint64) string { return fmt.Sprintf("key:%d", n) })
}

// BenchmarkLockKeysParallelSameTag: every goroutine writes one tag.
func BenchmarkLockKeysParallelSameTag(b *testing.B) {
	benchParallel(b, true, func(uint64) string { return "hot" })
}

// BenchmarkLockKeysParallelSameTagShared: every goroutine reads one tag.
func BenchmarkLockKeysParallelSameTagShared(b *testing.B) {
	benchParallel(b, false, func(uint64) string { return "hot" })
}
