package server

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/difftest"
)

// listRows runs rows on a fresh differential pair in RESP2, then again in
// RESP3.
func listRows(t *testing.T, rows string) {
	t.Helper()
	for _, proto := range []string{"2", "3"} {
		t.Run("RESP"+proto, func(t *testing.T) {
			p := newPair(t)
			p.DoBoth("HELLO "+proto, func(string, string) {})
			p.Run(rows)
		})
	}
}

func TestListCommandTable(t *testing.T) {
	for _, name := range []string{"lpush", "rpush", "lpushx", "rpushx", "lpop", "rpop",
		"llen", "lrange", "lindex", "lset", "linsert", "lrem", "ltrim", "lpos", "lmove",
		"rpoplpush", "lmpop"} {
		if shared.srv == nil {
			sharedHotKV(t)
		}
		if shared.srv.table[name] == nil {
			t.Errorf("%s missing from the table", name)
		}
	}
	p := newPair(t)
	p.Run(`
		COMMAND INFO lpush rpush lpushx rpushx lpop rpop llen lrange lindex lset linsert
		COMMAND INFO lrem ltrim lpos lmove rpoplpush lmpop
		COMMAND GETKEYS lmpop 2 a b left
		COMMAND GETKEYS lmpop 1 a right count 3
		COMMAND GETKEYS lmpop 3 a b c
		COMMAND GETKEYS lmpop 2abc a b left
		COMMAND GETKEYS lmpop " 2" a b left
		COMMAND GETKEYS lmpop +1 a left
		COMMAND GETKEYS lmpop 0 a left
		COMMAND GETKEYS lmpop -1 a left
		COMMAND GETKEYS lmpop 4 a b left
		COMMAND GETKEYS lmpop 99999999999999999999 a left
		COMMAND GETKEYS lmpop x a left
		COMMAND GETKEYSANDFLAGS lmpop 2 a b left
		COMMAND GETKEYS lmove a b left right
		COMMAND GETKEYS rpoplpush a b
		COMMAND GETKEYSANDFLAGS lmove a b left right
		COMMAND GETKEYSANDFLAGS rpoplpush a b
		COMMAND GETKEYSANDFLAGS lpos a x
	`)
}

func TestListPush(t *testing.T) {
	listRows(t, `
		LPUSH l a
		LPUSH l b c d
		RPUSH l e f
		LRANGE l 0 -1
		RPUSH l 1 -1 127 128 -32768 32768 9223372036854775807 -9223372036854775808
		RPUSH l 9223372036854775808 007 -0 +1 1.0 "" " 1"
		LRANGE l 0 -1
		LLEN l
		LPUSHX l x y
		RPUSHX l z
		LPUSHX missing x
		RPUSHX missing x y
		EXISTS missing
		LRANGE l 0 -1
		TYPE l
		OBJECT ENCODING l
		SET s v
		LPUSH s x
		RPUSH s x
		LPUSHX s x
		RPUSHX s x
		LPUSH
		LPUSH l
		RPUSH l
		LPUSHX l
		RPUSHX l
	`)
}

func TestListPop(t *testing.T) {
	listRows(t, `
		RPUSH l a b c d e 1 2 3
		LPOP l
		RPOP l
		LPOP l 2
		RPOP l 2
		LPOP l 0
		RPOP l 0
		LPOP l -1
		RPOP l -1
		LPOP l abc
		LPOP l 1.5
		LPOP l 99999999999999999999
		LPOP l 1 2
		RPOP l 1 2 3
		LRANGE l 0 -1
		LPOP l 100
		EXISTS l
		LPOP l
		RPOP l
		LPOP l 0
		RPOP l 3
		LPOP l -1
		RPUSH one x
		RPOP one 9223372036854775807
		EXISTS one
		RPUSH one x
		RPOP one
		EXISTS one
		SET s v
		LPOP s
		RPOP s 2
		LPOP s 0
		LPOP s -1
		LPOP
	`)
}

func TestListRangeIndex(t *testing.T) {
	listRows(t, `
		RPUSH l a b c d e f g h i j
		LLEN l
		LRANGE l 0 -1
		LRANGE l 0 0
		LRANGE l 2 5
		LRANGE l -3 -1
		LRANGE l -100 100
		LRANGE l 5 2
		LRANGE l 10 20
		LRANGE l -1 -3
		LRANGE l 9 9
		LRANGE l -9223372036854775808 9223372036854775807
		LRANGE l 9223372036854775807 -9223372036854775808
		LRANGE l a 1
		LRANGE l 1 b
		LRANGE l 99999999999999999999 1
		LRANGE missing 0 -1
		LRANGE missing x 1
		LINDEX l 0
		LINDEX l 9
		LINDEX l 10
		LINDEX l -1
		LINDEX l -10
		LINDEX l -11
		LINDEX l 9223372036854775807
		LINDEX l -9223372036854775808
		LINDEX l x
		LINDEX missing 0
		LINDEX missing x
		LLEN missing
		SET s v
		LLEN s
		LRANGE s 0 -1
		LRANGE s x 1
		LINDEX s 0
		LINDEX s x
		LLEN
		LLEN l x
		LRANGE l 0
		LINDEX l
	`)
}

func TestListSet(t *testing.T) {
	listRows(t, `
		RPUSH l a b c
		LSET l 0 x
		LSET l -1 z
		LSET l 1 12345
		LSET l 3 no
		LSET l -4 no
		LSET l 9223372036854775807 no
		LSET l -9223372036854775808 no
		LSET l x no
		LRANGE l 0 -1
		LSET missing 0 x
		LSET missing x x
		SET s v
		LSET s 0 x
		LSET s x x
		LSET l 0
	`)
}

func TestListInsert(t *testing.T) {
	listRows(t, `
		RPUSH l a b c b
		LINSERT l BEFORE b x
		LINSERT l after b y
		LINSERT l Before a first
		LINSERT l AFTER b2 z
		LINSERT l AFTER c last
		LINSERT l after 1 z
		LRANGE l 0 -1
		RPUSH n 1 2 3 01
		LINSERT n BEFORE 2 1.5
		LINSERT n AFTER 01 x
		LINSERT n AFTER 1 after-one
		LINSERT n BEFORE 001 x
		LRANGE n 0 -1
		LINSERT l middle b x
		LINSERT missing middle b x
		LINSERT missing BEFORE b x
		EXISTS missing
		SET s v
		LINSERT s BEFORE a b
		LINSERT s middle a b
		LINSERT l BEFORE b
	`)
}

func TestListRem(t *testing.T) {
	listRows(t, `
		RPUSH l a b a c a b a 1 01 1
		LREM l 1 a
		LRANGE l 0 -1
		LREM l -1 a
		LRANGE l 0 -1
		LREM l 0 b
		LRANGE l 0 -1
		LREM l 0 1
		LREM l 0 nothing
		LRANGE l 0 -1
		LREM l -9223372036854775808 a
		LRANGE l 0 -1
		LREM l 9223372036854775807 01
		LRANGE l 0 -1
		LREM l 0 c
		EXISTS l
		LREM l x a
		LREM missing 1 a
		LREM missing x a
		SET s v
		LREM s 0 v
		LREM s x v
		LREM l 0
	`)
}

func TestListTrim(t *testing.T) {
	listRows(t, `
		RPUSH l a b c d e f g h i j
		LTRIM l 1 -2
		LRANGE l 0 -1
		LTRIM l -3 100
		LRANGE l 0 -1
		LTRIM l 0 0
		LRANGE l 0 -1
		RPUSH l 1 2 3
		LTRIM l -100 -2
		LRANGE l 0 -1
		LTRIM l 2 1
		EXISTS l
		RPUSH l 1 2 3
		LTRIM l 5 10
		EXISTS l
		RPUSH l 1 2 3
		LTRIM l -9223372036854775808 9223372036854775807
		LRANGE l 0 -1
		LTRIM l x 1
		LTRIM l 1 x
		LTRIM missing 0 1
		LTRIM missing x 1
		SET s v
		LTRIM s 0 1
		LTRIM s x 1
		LTRIM l 0
	`)
}

func TestListPos(t *testing.T) {
	listRows(t, `
		RPUSH l a b c 1 2 3 c c a 1
		LPOS l c
		LPOS l 1
		LPOS l 01
		LPOS l nothing
		LPOS l c RANK 2
		LPOS l c RANK -1
		LPOS l c RANK -3
		LPOS l c RANK 4
		LPOS l c RANK -4
		LPOS l c COUNT 0
		LPOS l c COUNT 2
		LPOS l c COUNT 0 RANK 2
		LPOS l c COUNT 0 RANK -2
		LPOS l c RANK -1 COUNT 2
		LPOS l c COUNT 1 RANK 9223372036854775807
		LPOS l nothing COUNT 0
		LPOS l c MAXLEN 3
		LPOS l c MAXLEN 4
		LPOS l c MAXLEN 3 COUNT 0
		LPOS l c MAXLEN 8 COUNT 0 RANK -1
		LPOS l a RANK -1 MAXLEN 1
		LPOS l a RANK -1 MAXLEN 2 COUNT 0
		LPOS l c rank 1 rank 2
		LPOS l c count 1 count 0
		LPOS l a RANK -9223372036854775808
		LPOS l a RANK -9223372036854775808 COUNT 0
		LPOS l a RANK -9223372036854775808 COUNT 1
		LPOS l a RANK 9223372036854775807
		LPOS l c RANK 0
		LPOS l c RANK x
		LPOS l c RANK 99999999999999999999
		LPOS l c COUNT -1
		LPOS l c COUNT x
		LPOS l c MAXLEN -1
		LPOS l c MAXLEN x
		LPOS l c RANK
		LPOS l c COUNT 1 RANK
		LPOS l c FOO 1
		LPOS l c RANK 0 FOO
		LPOS l c FOO RANK 0
		LPOS missing c
		LPOS missing c COUNT 0
		LPOS missing c RANK 0
		LPOS missing c COUNT -1
		SET s v
		LPOS s v
		LPOS s v COUNT 0
		LPOS s v RANK 0
		LPOS l
	`)
}

func TestListMove(t *testing.T) {
	listRows(t, `
		RPUSH src a b c d
		LMOVE src dst LEFT RIGHT
		LMOVE src dst RIGHT LEFT
		LMOVE src dst left left
		LMOVE src dst right right
		LRANGE dst 0 -1
		EXISTS src
		LMOVE src dst LEFT LEFT
		LMOVE dst dst LEFT RIGHT
		LRANGE dst 0 -1
		LMOVE dst dst RIGHT LEFT
		LRANGE dst 0 -1
		LMOVE dst dst LEFT LEFT
		LMOVE dst dst RIGHT RIGHT
		LRANGE dst 0 -1
		RPUSH one x
		LMOVE one one LEFT RIGHT
		LRANGE one 0 -1
		LMOVE one other LEFT RIGHT
		EXISTS one
		LRANGE other 0 -1
		RPOPLPUSH other a
		RPOPLPUSH a a
		LRANGE a 0 -1
		RPOPLPUSH missing a
		RPOPLPUSH missing missing
		RPUSH n 1 2 300
		RPOPLPUSH n n
		LRANGE n 0 -1
		LMOVE src dst UP LEFT
		LMOVE src dst LEFT DOWN
		LMOVE missing dst UP LEFT
		SET s v
		LMOVE s dst LEFT LEFT
		LMOVE dst s LEFT LEFT
		LMOVE missing s LEFT LEFT
		RPOPLPUSH s dst
		RPOPLPUSH dst s
		RPOPLPUSH missing s
		LRANGE dst 0 -1
		LMOVE src dst LEFT
		RPOPLPUSH src
	`)
}

func TestListMPop(t *testing.T) {
	listRows(t, `
		RPUSH a 1 2 3
		RPUSH b x y z w
		LMPOP 1 a LEFT
		LMPOP 1 a RIGHT COUNT 1
		LMPOP 2 missing b right count 2
		LMPOP 3 missing a b LEFT COUNT 10
		LMPOP 2 a b left count 100
		EXISTS a b
		LMPOP 2 a b LEFT
		LMPOP 2 a b LEFT COUNT 5
		RPUSH a 1
		LMPOP 0 a LEFT
		LMPOP -1 a LEFT
		LMPOP x a LEFT
		LMPOP 99999999999999999999 a LEFT
		LMPOP 9223372036854775807 a LEFT
		LMPOP 9223372036854775806 a LEFT
		LMPOP 2 a LEFT
		LMPOP 1 a
		LMPOP 1 a UP
		LMPOP 1 a LEFT COUNT
		LMPOP 1 a LEFT COUNT 0
		LMPOP 1 a LEFT COUNT -1
		LMPOP 1 a LEFT COUNT x
		LMPOP 1 a LEFT COUNT 1 COUNT 1
		LMPOP 1 a LEFT FOO
		LMPOP 1 a LEFT COUNT 9223372036854775807
		SET s v
		RPUSH a 1
		LMPOP 2 s a LEFT
		LMPOP 2 a s LEFT
		LMPOP 2 missing s LEFT
		LMPOP 1 a
	`)
}

func TestListNoBlockingCommands(t *testing.T) {
	sharedHotKV(t)
	for _, name := range []string{"blpop", "brpop", "blmove", "brpoplpush", "blmpop"} {
		if shared.srv.table[name] != nil {
			t.Logf("%s is in the table (the blocking group has landed)", name)
		}
	}
}

// TestListCopyAndEncoding: COPY duplicates a list, OBJECT ENCODING is
// quicklist whatever the size or the configuration.
func TestListCopyAndEncoding(t *testing.T) {
	p := newPair(t)
	p.Run(`
		RPUSH l a b c 1 2 3
		OBJECT ENCODING l
		COPY l l2
		RPUSH l2 d
		LPOP l
		LRANGE l 0 -1
		LRANGE l2 0 -1
		OBJECT ENCODING l2
		CONFIG SET list-max-listpack-size 1
		RPUSH l3 a b c d e
		OBJECT ENCODING l3
		LRANGE l3 1 3
		CONFIG SET list-max-listpack-size -2
	`)
	big := strings.Repeat("x", 10000)
	p.DoArgs("RPUSH", "big", big, "a", big)
	p.Do("OBJECT ENCODING big")
	p.Do("LRANGE big 0 -1")
}

// TestListRandom drives long random sequences of list commands on both
// servers, with several node sizes and values of every encoding (small
// and large integers, short and long strings, values larger than a node).
func TestListRandom(t *testing.T) {
	fills := []string{"-2", "-1", "3", "1", "-5"}
	steps := 1500
	if testing.Short() {
		fills, steps = fills[:2], 300
	}
	for _, fill := range fills {
		t.Run("fill"+fill, func(t *testing.T) { listRandom(t, fill, 0, steps) })
	}
}

// TestListRandomCompressed is TestListRandom with list-compress-depth 1
// and 2 (the differential check compares replies only: Redis's DEBUG
// OBJECT is not compared).
func TestListRandomCompressed(t *testing.T) {
	fills := []string{"-1", "3", "1"}
	steps := 1500
	if testing.Short() {
		fills, steps = fills[:1], 300
	}
	for _, depth := range []int{1, 2} {
		for _, fill := range fills {
			t.Run(fmt.Sprintf("depth%d/fill%s", depth, fill), func(t *testing.T) { listRandom(t, fill, depth, steps) })
		}
	}
}

// listRandom drives steps random list commands on a differential pair
// with list-max-listpack-size fill and list-compress-depth depth.
func listRandom(t *testing.T, fill string, depth, steps int) {
	p := newPair(t)
	p.Do("CONFIG SET list-max-listpack-size " + fill)
	defer p.Do("CONFIG SET list-max-listpack-size -2")
	p.Do("CONFIG SET list-compress-depth " + strconv.Itoa(depth))
	defer p.Do("CONFIG SET list-compress-depth 0")
	seed, _ := strconv.Atoi(fill)
	rng := rand.New(rand.NewPCG(uint64(seed+10), uint64(3+depth)))
	keys := []string{"k1", "k2", "{k1}x"}
	val := func() string {
		switch rng.IntN(7) {
		case 0:
			return strconv.Itoa(rng.IntN(400) - 200)
		case 1:
			return strconv.FormatInt(rng.Int64()-rng.Int64(), 10)
		case 2:
			return strings.Repeat(string(rune('a'+rng.IntN(3))), rng.IntN(300))
		case 3:
			if rng.IntN(10) == 0 {
				return strings.Repeat("L", 5000+rng.IntN(20000))
			}
			return "v" + strconv.Itoa(rng.IntN(5))
		default:
			return "v" + strconv.Itoa(rng.IntN(30))
		}
	}
	key := func() string { return keys[rng.IntN(len(keys))] }
	idx := func() string { return strconv.Itoa(rng.IntN(80) - 40) }
	end := func() string { return [...]string{"LEFT", "RIGHT"}[rng.IntN(2)] }
	for step := 0; step < steps; step++ {
		var args []string
		switch op := rng.IntN(16); op {
		case 0, 1, 2:
			args = []string{[...]string{"LPUSH", "RPUSH"}[op%2], key()}
			for n := 1 + rng.IntN(40); n > 0; n-- {
				args = append(args, val())
			}
		case 3:
			args = []string{[...]string{"LPOP", "RPOP"}[rng.IntN(2)], key()}
			if rng.IntN(2) == 0 {
				args = append(args, strconv.Itoa(rng.IntN(30)))
			}
		case 4:
			args = []string{"LRANGE", key(), idx(), idx()}
		case 5:
			args = []string{"LINDEX", key(), idx()}
		case 6:
			args = []string{"LSET", key(), idx(), val()}
		case 7:
			args = []string{"LINSERT", key(), [...]string{"BEFORE", "AFTER"}[rng.IntN(2)], val(), val()}
		case 8:
			args = []string{"LREM", key(), strconv.Itoa(rng.IntN(7) - 3), val()}
		case 9:
			args = []string{"LTRIM", key(), idx(), idx()}
		case 10:
			args = []string{"LPOS", key(), val(), "RANK", strconv.Itoa(rng.IntN(5) + 1 - 2*rng.IntN(2)*(rng.IntN(5)+1)), "COUNT", strconv.Itoa(rng.IntN(4)), "MAXLEN", strconv.Itoa(rng.IntN(50))}
			if args[4] == "0" {
				args[4] = "1"
			}
		case 11:
			args = []string{"LMOVE", key(), key(), end(), end()}
		case 12:
			args = []string{"RPOPLPUSH", key(), key()}
		case 13:
			args = []string{"LMPOP", "3", keys[0], keys[1], keys[2], end(), "COUNT", strconv.Itoa(1 + rng.IntN(20))}
		case 14:
			args = []string{"LLEN", key()}
		case 15:
			args = []string{"LPUSHX", key(), val()}
		}
		p.DoArgs(args...)
		if t.Failed() {
			t.Fatalf("step %d", step)
		}
		if step%50 == 0 {
			for _, k := range keys {
				p.Do("LRANGE " + k + " 0 -1")
			}
		}
	}
	for _, k := range keys {
		p.Do("LRANGE " + k + " 0 -1")
	}
}

// TestListLarge builds lists of thousands of elements (many nodes) and
// checks indexing, ranges and edits across node boundaries.
func TestListLarge(t *testing.T) {
	p := newPair(t)
	pipe := func(cmds [][]string) {
		t.Helper()
		var raw []byte
		for _, c := range cmds {
			raw = append(raw, difftest.Encode(c...)...)
		}
		for _, conn := range []*difftest.Conn{p.Redis, p.HotKV} {
			conn.Send(raw)
			for range cmds {
				conn.Read()
			}
		}
	}
	var cmds [][]string
	for i := 0; i < 20000; i += 100 {
		c := []string{"RPUSH", "big"}
		for j := i; j < i+100; j++ {
			c = append(c, fmt.Sprintf("element:%d", j), strconv.Itoa(j))
		}
		cmds = append(cmds, c)
	}
	pipe(cmds)
	p.Run(`
		LLEN big
		LINDEX big 0
		LINDEX big 19999
		LINDEX big 20000
		LINDEX big 39999
		LINDEX big -20001
		LRANGE big 19990 20010
		LRANGE big -5 -1
		LPOS big 12345
		LPOS big element:30000 RANK -1
		LPOS big 7 COUNT 0 MAXLEN 100
		LSET big 20000 changed
		LINSERT big BEFORE changed inserted
		LINSERT big AFTER 15000 after
		LRANGE big 19995 20005
		LREM big -2 element:100
		LREM big 0 1
		LTRIM big 100 -100
		LLEN big
		LRANGE big 0 5
		LRANGE big -5 -1
		LPOP big 5
		RPOP big 5
		LMPOP 1 big LEFT COUNT 3
	`)
}

// TestListConcurrent moves elements between two lists from several
// connections at once while others read them: nothing is lost or
// duplicated (run with -race to check the locking).
func TestListConcurrent(t *testing.T) {
	addr := sharedHotKV(t)
	setup := difftest.Dial(t, addr)
	setup.Do("DEL", "{cc}a", "{cc}b", "cc:other")
	const n = 300
	args := []string{"RPUSH", "{cc}a"}
	for i := range n {
		args = append(args, strconv.Itoa(i))
	}
	setup.Do(args...)
	done := make(chan struct{})
	for w := range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			conn := difftest.Dial(t, addr)
			for i := range 300 {
				switch (w + i) % 5 {
				case 0:
					conn.Do("LMOVE", "{cc}a", "{cc}b", "LEFT", "RIGHT")
				case 1:
					conn.Do("RPOPLPUSH", "{cc}b", "{cc}a")
				case 2:
					conn.Do("LRANGE", "{cc}a", "0", "-1")
				case 3:
					conn.Do("LMOVE", "{cc}b", "{cc}b", "RIGHT", "LEFT")
				default:
					conn.Do("RPUSH", "cc:other", "x")
					conn.Do("LPOP", "cc:other")
				}
			}
		}()
	}
	for range 4 {
		<-done
	}
	a := intReply(t, setup.Do("LLEN", "{cc}a"))
	b := intReply(t, setup.Do("LLEN", "{cc}b"))
	if a+b != n {
		t.Fatalf("LLEN a %d + LLEN b %d != %d", a, b, n)
	}
	seen := map[string]bool{}
	for _, k := range []string{"{cc}a", "{cc}b"} {
		r := setup.Do("LRANGE", k, "0", "-1")
		v, _ := parseReply(r)
		arr, _ := v.([]any)
		for _, x := range arr {
			s := fmt.Sprint(x)
			if seen[s] {
				t.Fatalf("%s twice", s)
			}
			seen[s] = true
		}
	}
	if len(seen) != n {
		t.Fatalf("%d distinct elements, want %d", len(seen), n)
	}
	setup.Do("DEL", "{cc}a", "{cc}b", "cc:other")
}

// The list hot paths through the whole command path, on lists whose size
// stays steady and above zero (creating and deleting a key allocates):
// none should allocate.
func BenchmarkPipelineLPUSHRPOP(b *testing.B) {
	benchPipeline(b, []string{"LPUSH", "list:1", "xxx", "yyy"}, []string{"RPOP", "list:1"},
		[]string{"LPUSH", "list:1", "zzz"}, []string{"LTRIM", "list:1", "0", "1"})
}

func BenchmarkPipelineLRANGE10(b *testing.B) {
	benchPipeline(b, []string{"RPUSH", "list:1", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j"},
		[]string{"LRANGE", "list:1", "0", "9"}, []string{"LTRIM", "list:1", "0", "9"})
}

func BenchmarkPipelineLMOVE(b *testing.B) {
	benchPipeline(b, []string{"RPUSH", "list:1", "a", "b", "c"}, []string{"LMOVE", "list:1", "list:1", "LEFT", "RIGHT"},
		[]string{"LTRIM", "list:1", "0", "2"})
}

// TestListPlainNodes: DEBUG QUICKLIST-PACKED-THRESHOLD's range and errors,
// and lists whose entries from that size on are plain (alone in their
// nodes), through unit/type/list's plain-node sequences, against
// redis-server.
func TestListPlainNodes(t *testing.T) {
	redis := difftest.StartRedis(t, "--enable-debug-command", "yes")
	_, hotkv := startServer(t, "--enable-debug-command", "yes")
	big := func(c string, n int) string { return strings.Repeat(c, n) }
	cmds := [][]string{
		{"DEBUG", "QUICKLIST-PACKED-THRESHOLD", "5gb"}, {"DEBUG", "QUICKLIST-PACKED-THRESHOLD", "-1"},
		{"DEBUG", "QUICKLIST-PACKED-THRESHOLD", "1x"}, {"DEBUG", "QUICKLIST-PACKED-THRESHOLD"},
		{"DEBUG", "QUICKLIST-PACKED-THRESHOLD", "10b"},
		{"LPUSH", "lst", "aa"}, {"LPUSH", "lst", "bb"}, {"LSET", "lst", "-2", big("x", 10)}, {"RPOP", "lst"},
		{"LRANGE", "lst", "0", "-1"},
		{"DEBUG", "QUICKLIST-PACKED-THRESHOLD", "100b"},
		{"RPUSH", "l2", big("x", 100)}, {"RPUSH", "l2", big("y", 32)}, {"RPUSH", "l2", big("y", 32)},
		{"LSET", "l2", "-1", big("z", 100)}, {"LRANGE", "l2", "0", "-1"},
		{"LINSERT", "l2", "BEFORE", big("z", 100), big("w", 200)}, {"LREM", "l2", "0", big("y", 32)},
		{"LPOS", "l2", big("z", 100)}, {"LMOVE", "l2", "l3", "LEFT", "RIGHT"}, {"LRANGE", "l2", "0", "-1"},
		{"LTRIM", "l2", "1", "-1"}, {"LRANGE", "l2", "0", "-1"}, {"LRANGE", "l3", "0", "-1"},
		{"DEBUG", "QUICKLIST-PACKED-THRESHOLD", "0"},
	}
	run := func(addr string) []string {
		c := difftest.Dial(t, addr)
		c.Do("FLUSHALL")
		var out []string
		for _, cmd := range cmds {
			out = append(out, c.Do(cmd...))
		}
		return out
	}
	want, got := run(redis), run(hotkv)
	for i := range cmds {
		if got[i] != want[i] {
			t.Errorf("%q: HotKV %q, Redis %q", cmds[i], got[i], want[i])
		}
	}
}
