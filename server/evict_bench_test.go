package server

import (
	"strconv"
	"testing"

	"github.com/hotkv/hotkv/internal/difftest"
)

// BenchmarkEvictingSet is set_lru's server-side work without the network:
// a SET of a 1 KB value to a new key in a database at maxmemory
// (allkeys-lru), then the check the gate makes before the next command,
// which evicts about one key per SET.
func BenchmarkEvictingSet(b *testing.B) {
	s, addr := startServer(b, "--maxmemory-policy", "allkeys-lru")
	c := difftest.Dial(b, addr)
	c.Do("CONFIG", "SET", "maxmemory", "64mb")
	db := s.dbs[0]
	val := make([]byte, 1000)
	key := make([]byte, 0, 32)
	for i := 0; db.Len() < 1 || s.toFree(0) < 0; i++ {
		db.SetString(strconv.AppendInt(append(key[:0], "fill:"...), int64(i), 10), val, false)
	}
	b.ResetTimer()
	for i := range b.N {
		db.SetString(strconv.AppendInt(append(key[:0], "key:"...), int64(i), 10), val, false)
		if s.performEvictions(0) == evictFail {
			b.Fatal("OOM")
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(s.stats.evicted.Load())/float64(b.N), "evicted/op")
}
