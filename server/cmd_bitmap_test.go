package server

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestBitmapCommands: every reply and error of the bit commands, as Redis.
func TestBitmapCommands(t *testing.T) {
	p := newPair(t)
	p.Run(`
SETBIT b 7 1
SETBIT b 7 1
SETBIT b 7 0
SETBIT b 100 1
GET b
GETBIT b 100
GETBIT b 99
GETBIT b 100000
GETBIT nokey 3
SETBIT b -1 1
SETBIT b x 1
SETBIT b 4294967296 1
SETBIT b 1 2
SETBIT b 1 -1
SETBIT b 1 x
SETBIT b 1000000 1
GETBIT b -1
GETBIT b 4294967296
SET s foobar
OBJECT ENCODING s
SETBIT s 0 0
OBJECT ENCODING s
SET n 12345
GETBIT n 2
GETBIT n 3
BITCOUNT n
SET s foobar
BITCOUNT s
BITCOUNT s 0 0
BITCOUNT s 1 1
BITCOUNT s 1 -2
BITCOUNT s -3 -1
BITCOUNT s -1 -3
BITCOUNT s 5 30 BIT
BITCOUNT s 5 30 bit
BITCOUNT s 5 30 BYTE
BITCOUNT s 0 -1 BIT
BITCOUNT s -20 -5 BIT
BITCOUNT s 100 200
BITCOUNT s 0
BITCOUNT s 0 1 2
BITCOUNT s 0 1 BITS
BITCOUNT s x 1
BITCOUNT s 0 x
BITCOUNT nokey
BITCOUNT nokey 0
BITCOUNT nokey 0 1 junk
SET empty ""
BITCOUNT empty
BITCOUNT empty 0 -1
SET p "\xff\xf0\x00"
BITPOS p 0
BITPOS p 1
BITPOS p 0 0
BITPOS p 0 1
BITPOS p 0 2
BITPOS p 1 2
BITPOS p 1 0 -1
BITPOS p 0 0 1
BITPOS p 0 0 0
BITPOS p 0 3 BIT
BITPOS p 0 7 15 BIT
BITPOS p 0 12 15 BIT
BITPOS p 1 12 23 BIT
BITPOS p 0 0 11 BIT
BITPOS p 1 -5 -1 BIT
BITPOS p 0 5 3
BITPOS p 2
BITPOS p x
BITPOS p 1 x
BITPOS p 1 0 x
BITPOS p 1 0 1 junk
BITPOS p 1 0 1 BIT junk
BITPOS nokey 0
BITPOS nokey 1
SET f "\xff\xff"
BITPOS f 0
BITPOS f 0 0
BITPOS f 0 0 -1
BITPOS f 0 0 15 BIT
BITPOS empty 0
BITPOS empty 1
SET a1 "\x0f\xf0abc"
SET a2 "\xff\x0f"
BITOP AND dst a1 a2
GET dst
BITOP or dst a1 a2
GET dst
BITOP XOR dst a1 a2 nokey
GET dst
BITOP NOT dst a1
GET dst
BITOP NOT dst a1 a2
BITOP nand dst a1
BITOP AND dst nokey nokey2
EXISTS dst
SET dst x EX 100
BITOP OR dst a1
TTL dst
RPUSH lst x
BITOP OR dst a1 lst
SETBIT lst 0 1
GETBIT lst 0
BITCOUNT lst
BITPOS lst 1
BITFIELD lst GET u8 0
`)
}

// TestBitfieldCommands: BITFIELD and BITFIELD_RO, overflows included.
func TestBitfieldCommands(t *testing.T) {
	p := newPair(t)
	p.Run(`
BITFIELD bf SET i8 0 100 GET i8 0
BITFIELD bf INCRBY i8 0 100
BITFIELD bf OVERFLOW SAT INCRBY i8 0 100 INCRBY i8 0 -300
BITFIELD bf OVERFLOW FAIL INCRBY i8 0 -200 GET i8 0
BITFIELD bf OVERFLOW WRAP INCRBY u4 0 30 GET u4 0
BITFIELD bf SET u63 0 -1 GET u63 0 GET i64 0
BITFIELD bf SET i64 0 -9223372036854775808 INCRBY i64 0 -1
BITFIELD bf OVERFLOW SAT SET i64 0 9223372036854775807 INCRBY i64 0 1
BITFIELD bf OVERFLOW SAT SET u2 0 7 INCRBY u2 0 -9
BITFIELD bf OVERFLOW FAIL SET u2 0 7 SET i3 #1 3 SET i3 #1 4
BITFIELD bf GET u8 #3 GET i5 #100 GET u1 1000
BITFIELD bf SET u8 #2 255
GET bf
BITFIELD bf
BITFIELD bf GET u64 0
BITFIELD bf GET i65 0
BITFIELD bf GET i0 0
BITFIELD bf GET x8 0
BITFIELD bf GET U8 0
BITFIELD bf GET u8 -1
BITFIELD bf GET u8 #-1
BITFIELD bf GET u8 x
BITFIELD bf SET u8 0 x
BITFIELD bf INCRBY u8 0
BITFIELD bf OVERFLOW JUNK GET u8 0
BITFIELD bf OVERFLOW
BITFIELD bf FOO u8 0
BITFIELD bf GET u8
BITFIELD nokey GET u8 0 GET i4 100
EXISTS nokey
BITFIELD_RO bf GET u8 0 GET i16 4
BITFIELD_RO bf SET u8 0 1
BITFIELD_RO bf INCRBY u8 0
BITFIELD_RO bf GET u8 0 OVERFLOW SAT
BITFIELD_RO nokey GET u8 0
BITFIELD new OVERFLOW FAIL INCRBY u8 100 1000
GET new
`)
}

// TestBitmapRandom: random bit writes and reads agree with Redis, and so
// do the resulting strings.
func TestBitmapRandom(t *testing.T) {
	p := newPair(t)
	r := rand.New(rand.NewPCG(1, 2))
	types := []string{"u1", "u7", "u8", "u13", "u32", "u63", "i1", "i8", "i13", "i32", "i64"}
	for i := 0; i < 600; i++ {
		key := "rb" + strconv.Itoa(r.IntN(3))
		off := strconv.Itoa(r.IntN(300))
		typ := types[r.IntN(len(types))]
		val := strconv.FormatInt(r.Int64N(1<<20)-1<<19, 10)
		if r.IntN(4) == 0 {
			val = strconv.FormatInt(int64(r.Uint64()), 10)
		}
		ow := []string{"WRAP", "SAT", "FAIL"}[r.IntN(3)]
		switch r.IntN(8) {
		case 0:
			p.Do(fmt.Sprintf("SETBIT %s %s %d", key, off, r.IntN(2)))
		case 1:
			p.Do(fmt.Sprintf("GETBIT %s %s", key, off))
		case 2:
			p.Do(fmt.Sprintf("BITCOUNT %s %d %d %s", key, r.IntN(80)-40, r.IntN(80)-40, []string{"BYTE", "BIT"}[r.IntN(2)]))
		case 3:
			p.Do(fmt.Sprintf("BITPOS %s %d %d %d %s", key, r.IntN(2), r.IntN(80)-40, r.IntN(300)-150, []string{"BYTE", "BIT"}[r.IntN(2)]))
		case 4:
			p.Do(fmt.Sprintf("BITPOS %s %d %d", key, r.IntN(2), r.IntN(80)-40))
		case 5:
			p.Do(fmt.Sprintf("BITFIELD %s OVERFLOW %s INCRBY %s %s %s GET %s %s", key, ow, typ, off, val, typ, off))
		case 6:
			p.Do(fmt.Sprintf("BITFIELD %s OVERFLOW %s SET %s %s %s", key, ow, typ, off, val))
		case 7:
			p.Do(fmt.Sprintf("BITOP %s rdst rb0 rb1 rb2", []string{"AND", "OR", "XOR"}[r.IntN(3)]))
			p.Do("GET rdst")
		}
	}
	for _, k := range []string{"rb0", "rb1", "rb2"} {
		p.Do("GET " + k)
	}
}
