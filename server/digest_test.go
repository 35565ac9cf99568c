package server

import (
	"strconv"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/difftest"
)

// TestDebugDigestLikeRedis: DEBUG DIGEST and DIGEST-VALUE give
// redis-server's digests, bit for bit, for the same data of every kind
// and encoding, in several databases, with and without expiries.
func TestDebugDigestLikeRedis(t *testing.T) {
	redis := difftest.StartRedis(t, "--enable-debug-command", "yes")
	_, hotkv := startServer(t, "--enable-debug-command", "yes")
	p := difftest.NewPair(t, redis, hotkv)
	p.Run(`
		DEBUG DIGEST
		DEBUG DIGEST-VALUE nokey
		SET s hello
		SET n 12345
		SET e v EX 1000
		RPUSH l a b 1 2 c
		SADD si 1 2 3 100
		SADD ss a b c 1
		ZADD z 1 a 2.5 b -3 c 1e20 d inf e -inf f
		HSET h f1 v1 f2 v2 3 4
		XADD st 1-1 a 1 b 2
		XADD st 2-5 c 3
		SELECT 3
		SET other x
		SELECT 0
	`)
	big := []string{"ZADD", "zbig"}
	for i := 0; i < 200; i++ {
		big = append(big, strconv.Itoa(i)+".25", "m"+strconv.Itoa(i))
	}
	p.DoArgs(big...)
	hbig := []string{"HSET", "hbig"}
	for i := 0; i < 200; i++ {
		hbig = append(hbig, "f"+strconv.Itoa(i), strings.Repeat("v", i))
	}
	p.DoArgs(hbig...)
	p.DoBoth("DEBUG DIGEST", func(redis, hotkv string) {
		if len(hotkv) != 43 || hotkv[0] != '+' || strings.HasPrefix(hotkv, "+0000000000") {
			t.Fatalf("DEBUG DIGEST of the data: %q", hotkv)
		}
	})
	p.Run(`
		DEBUG DIGEST-VALUE s n e l si ss z h st zbig hbig nokey
		DEBUG DIGEST
		DEL e
		DEBUG DIGEST
		FLUSHALL
		DEBUG DIGEST
	`)
}
