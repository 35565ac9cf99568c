package server

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestHLLCommands: PFADD, PFCOUNT and PFMERGE replies and the values they
// leave (GET), as Redis.
func TestHLLCommands(t *testing.T) {
	p := newPair(t)
	p.Run(`
PFADD h1 a b c
GET h1
OBJECT ENCODING h1
PFADD h1 a
PFADD h1
PFADD h0
GET h0
PFCOUNT h1
GET h1
PFCOUNT h1 h0 nokey
PFCOUNT nokey
PFADD h2 c d e f
PFMERGE h3 h1 h2
GET h3
OBJECT ENCODING h3
PFCOUNT h3
PFMERGE h1 h2
PFCOUNT h1
PFMERGE h4
GET h4
SET s foo
PFADD s a
PFCOUNT s
PFCOUNT h1 s
PFMERGE h1 s
PFMERGE s h1
RPUSH l x
PFADD l a
PFCOUNT l
PFCOUNT h1 l
PFMERGE l h1
PFMERGE h1 l
PFADD
PFCOUNT
PFMERGE
CONFIG SET hll-sparse-max-bytes 10
PFADD small a b c d e f g h i j k l
GET small
CONFIG SET hll-sparse-max-bytes 3000
`)
	// Large sets go dense; the values stay identical.
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 30; i++ {
		args := "PFADD big"
		for j := 0; j < 300; j++ {
			args += fmt.Sprintf(" e%d", r.IntN(20000))
		}
		p.Do(args)
	}
	p.Do("GET big")
	p.Do("PFCOUNT big")
	p.Do("GET big")
	p.Do("PFMERGE both big h2")
	p.Do("GET both")
	p.Do("PFCOUNT both big h1")
}

// TestPfdebugLikeRedis: PFDEBUG's views of sparse and dense values, its
// conversion and its errors, and PFSELFTEST, against redis-server.
func TestPfdebugLikeRedis(t *testing.T) {
	p := newPair(t)
	p.Run(`
		PFADD h a b c d e f g
		PFDEBUG ENCODING h
		PFDEBUG DECODE h
		PFDEBUG TODENSE h
		PFDEBUG ENCODING h
		PFDEBUG TODENSE h
		PFDEBUG DECODE h
		PFDEBUG GETREG h
		PFCOUNT h
		PFADD s x y
		PFDEBUG GETREG s
		PFDEBUG ENCODING s
		PFDEBUG FOO h
		PFDEBUG GETREG nokey
		PFDEBUG GETREG
		PFDEBUG GETREG h extra
		SET str notanhll
		PFDEBUG ENCODING str
		RPUSH l a
		PFDEBUG ENCODING l
		PFADD e
		PFDEBUG DECODE e
		PFSELFTEST
		PFSELFTEST extra
		DEL h s str l e
	`)
}
