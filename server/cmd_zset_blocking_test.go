package server

import (
	"testing"

	"github.com/hotkv/hotkv/internal/difftest"
)

func TestZSetBlockingImmediate(t *testing.T) {
	p := newPair(t)
	p.Run(`
		ZADD z 1 a 2 b 3 c 4 d
		BZPOPMIN z 0
		BZPOPMAX nosuch z 0
		BZPOPMIN nosuch 0.01
		BZMPOP 0 2 nosuch z MIN COUNT 5
		BZMPOP 0.01 1 z MAX
		SET s x
		BZPOPMIN s 0
		BZMPOP 0 1 s MIN
		BZPOPMIN z -1
		BZPOPMIN z abc
		BZMPOP 0 0 z MIN
		BZMPOP 0 1 z MIDDLE
		BZMPOP 0 1 z MIN COUNT 0
		BZMPOP x 1 z MIN
		BZPOPMIN z
	`)
	p.Redis.Do("HELLO", "3")
	p.HotKV.Do("HELLO", "3")
	p.Run(`
		ZADD z3 1.5 a 2 b
		BZPOPMIN z3 0
		BZMPOP 0 1 z3 MAX
		BZPOPMAX nosuch 0.01
	`)
}

func TestZSetBlockingServed(t *testing.T) {
	s, addr := startServer(t)
	push := difftest.Dial(t, addr)
	for _, x := range []struct {
		block, push []string
		want        string
	}{
		{[]string{"BZPOPMIN", "z1", "z2", "0"}, []string{"ZADD", "z2", "5", "m", "1", "n"}, "*3\r\n$2\r\nz2\r\n$1\r\nn\r\n$1\r\n1\r\n"},
		{[]string{"BZPOPMAX", "z1", "0"}, []string{"ZADD", "z1", "5", "m", "1", "n"}, "*3\r\n$2\r\nz1\r\n$1\r\nm\r\n$1\r\n5\r\n"},
		{[]string{"BZMPOP", "0", "1", "z", "MIN", "COUNT", "2"}, []string{"ZADD", "z", "1", "a", "2", "b", "3", "c"},
			"*2\r\n$1\r\nz\r\n*2\r\n*2\r\n$1\r\na\r\n$1\r\n1\r\n*2\r\n$1\r\nb\r\n$1\r\n2\r\n"},
	} {
		push.Do("FLUSHALL")
		c := difftest.Dial(t, addr)
		c.Send(difftest.Encode(x.block...))
		waitFor(t, func() bool { return s.blockedCount() == 1 })
		push.Do(x.push...)
		if got := c.Read(); got != x.want {
			t.Errorf("%v then %v: got %q, want %q", x.block, x.push, got, x.want)
		}
	}
}
