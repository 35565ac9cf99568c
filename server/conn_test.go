package server

import (
	"bufio"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// connTranscript writes raw to a fresh connection to addr and returns every
// byte the server sends until it closes the connection. The input must end
// the connection itself (QUIT, or a protocol error).
func connTranscript(t *testing.T, addr string, raw []byte) string {
	t.Helper()
	return connExchange(t, addr, raw, false)
}

// connHalfClosed is connTranscript for any input: the client ends its
// side of the connection after raw.
func connHalfClosed(t *testing.T, addr string, raw []byte) string {
	t.Helper()
	return connExchange(t, addr, raw, true)
}

func connExchange(t *testing.T, addr string, raw []byte, halfClose bool) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write(raw); err != nil {
		t.Fatal(err)
	}
	if halfClose {
		c.(*net.TCPConn).CloseWrite()
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	out, err := io.ReadAll(c)
	if err != nil && errors.Is(err, syscall.ECONNRESET) {
		// The server closed with input unread (after a protocol error):
		// the peer's kernel resets, but what was sent before arrived.
		err = nil
	}
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("%.60q: the server did not close the connection; got %.200q", raw, out)
		}
		t.Fatalf("%.60q: %v after %.200q", raw, err, out)
	}
	return string(out)
}

// connCompare runs raw on fresh connections to both shared servers and
// fails unless the transcripts are identical.
func connCompare(t *testing.T, raw string) string {
	t.Helper()
	newPair(t) // skips without redis-server; flushes both
	want := connTranscript(t, shared.redis, []byte(raw))
	got := connTranscript(t, sharedHotKV(t), []byte(raw))
	if want != got {
		t.Errorf("%.80q\n redis: %.300q\n hotkv: %.300q", raw, want, got)
	}
	return got
}

// privatePair starts a redis-server and a HotKV, for tests that change
// server-wide state or count clients. requirepass, when not empty, is set
// on both (on redis-server by CONFIG SET once it runs: difftest waits for
// a PONG that a password-protected server does not send).
func privatePair(t *testing.T, requirepass string) (*difftest.Pair, string, string) {
	t.Helper()
	if shared.redisErr != nil {
		newPair(t) // skips or fails as the shared pair does
	}
	raddr := difftest.StartRedis(t)
	var haddr string
	if requirepass != "" {
		c := difftest.Dial(t, raddr)
		if r := c.Do("CONFIG", "SET", "requirepass", requirepass); r != "+OK\r\n" {
			t.Fatalf("CONFIG SET requirepass: %q", r)
		}
		_, haddr = startServer(t, "--requirepass", requirepass)
	} else {
		_, haddr = startServer(t)
	}
	return difftest.NewPair(t, raddr, haddr), raddr, haddr
}

var helloIDRe = regexp.MustCompile(`(\$2\r\nid\r\n):\d+\r\n`)

// connSameHello compares HELLO replies, whose client ids differ.
func connSameHello(t *testing.T) func(redis, hotkv string) {
	return func(redis, hotkv string) {
		t.Helper()
		// Up to the modules: HotKV's built-in search (TestModuleSearch).
		redis, _, _ = strings.Cut(redis, "modules")
		hotkv, _, _ = strings.Cut(hotkv, "modules")
		r := helloIDRe.ReplaceAllString(redis, "$1:ID\r\n")
		h := helloIDRe.ReplaceAllString(hotkv, "$1:ID\r\n")
		if r != h {
			t.Errorf("HELLO\n redis: %q\n hotkv: %q", redis, hotkv)
		}
	}
}

func TestConnPingEchoSelect(t *testing.T) {
	p := newPair(t)
	p.Run(`
		PING
		ping hello
		PING ""
		PING a b
		ECHO
		ECHO x
		ECHO "a b\r\n"
		ECHO a b
		SET k v
		SELECT 1
		GET k
		SELECT 15
		SELECT 16
		SELECT -1
		SELECT x
		SELECT 1.5
		SELECT 2147483648
		SELECT 99999999999
		SELECT -99999999999
		SELECT 01
		SELECT
		SELECT 1 2
		SELECT 0
		GET k
	`)
}

func TestConnQuit(t *testing.T) {
	connCompare(t, "PING\r\nQUIT\r\nPING\r\n")
	connCompare(t, "QUIT extra args\r\nPING\r\n")
	// With CLIENT REPLY OFF, Redis 7.0 never closes a connection after
	// QUIT (it waits for a reply to write); HotKV closes it.
	_, haddr := startServer(t)
	if got := connTranscript(t, haddr, []byte("CLIENT REPLY OFF\r\nPING\r\nQUIT\r\n")); got != "" {
		t.Errorf("QUIT with replies off: %q", got)
	}
}

func TestConnHello(t *testing.T) {
	p := newPair(t)
	for _, line := range []string{"HELLO", "HELLO 2", "HELLO 3", "HELLO", "HELLO 2 SETNAME conn-hello", "HELLO 3 AUTH default anything"} {
		p.DoBoth(line, connSameHello(t))
	}
	// In RESP3 now.
	p.Run(`
		GET missing
		CLIENT GETNAME
		HELLO 1
		HELLO 4
		HELLO x
		HELLO -1
		HELLO 03
		HELLO 3 FOO
		HELLO 3 auth
		HELLO 3 AUTH default
		HELLO 3 setname
		HELLO 3 SETNAME "a b"
		HELLO 3 SETNAME ok-name BAR
		CLIENT GETNAME
		HELLO 3 AUTH nobody x
		HELLO 3 AUTH Default x
		HELLO 3 AUTH nobody x SETNAME other
		CLIENT GETNAME
		HELLO 4 SETNAME third
		CLIENT GETNAME
	`)
	p.DoBoth("HELLO 2", connSameHello(t))
	p.Run(`
		GET missing
		CLIENT GETNAME
	`)
}

func TestConnAuthNoPassword(t *testing.T) {
	p := newPair(t)
	p.Run(`
		AUTH x
		AUTH default x
		AUTH default ""
		AUTH Default x
		AUTH nobody x
		AUTH a b c
		AUTH
		PING
	`)
}

func TestConnAuthRequirePass(t *testing.T) {
	p, raddr, haddr := privatePair(t, "pw")
	p.Run(`
		PING
		GET k
		CLIENT ID
		HELLO
		HELLO 3
		HELLO 3 SETNAME early
		HELLO 3 AUTH default wrong
		HELLO 4 AUTH default pw
		AUTH wrong
		AUTH default wrong
		AUTH DEFAULT pw
		AUTH a b c
		FOO bar
		GET
		AUTH pw
		CLIENT GETNAME
		GET k
		AUTH wrong
		GET k
		RESET
		GET k
		QUIT
	`)
	p2 := difftest.NewPair(t, raddr, haddr)
	p2.DoBoth("HELLO 3 AUTH default pw", connSameHello(t))
	p2.Run(`
		GET k
		RESET
		GET k
		AUTH default pw
		GET k
	`)

	// Before authentication requests are limited to 10 arguments and
	// 16 KB bulks; inline requests are not.
	big := strings.Repeat("x", 16385)
	for _, raw := range []string{
		"*11\r\n",
		"PING\r\n*11\r\n",
		"*2\r\n$16385\r\n",
		"*2\r\n$4\r\nAUTH\r\n$16385\r\n",
		"*1\r\n$abc\r\n",
		"DEL a b c d e f g h i j k\r\nQUIT\r\n",
		"AUTH pw\r\n" + string(difftest.Encode("DEL", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k")) + "QUIT\r\n",
		"AUTH pw\r\n" + string(difftest.Encode("ECHO", big)) + "QUIT\r\n",
		"AUTH wrong\r\n*11\r\n",
	} {
		want := connTranscript(t, raddr, []byte(raw))
		got := connTranscript(t, haddr, []byte(raw))
		if want != got {
			t.Errorf("%.60q\n redis: %.200q\n hotkv: %.200q", raw, want, got)
		}
	}
}

// RESET leaves MONITOR, selects db 0, RESP2, drops the name, turns replies
// on, and keeps NO-EVICT (Redis 7.0 does not clear it).
func TestConnReset(t *testing.T) {
	p := newPair(t)
	p.Run(`
		SELECT 3
		CLIENT SETNAME before-reset
		CLIENT NO-EVICT on
		RESET
		CLIENT GETNAME
		RESET extra
	`)
	p.DoBoth("CLIENT INFO", cliSameInfo(t))
	p.DoBoth("HELLO 3", connSameHello(t))
	p.Run(`
		RESET
		GET missing
	`)
	connCompare(t, "CLIENT REPLY OFF\r\nPING\r\nRESET\r\nPING\r\nQUIT\r\n")
}

func TestConnInline(t *testing.T) {
	connCompare(t, "PING\r\nECHO \"a b\"\r\nSET k 'v w'\r\nGET k\r\n\r\n  \r\n\n"+
		"PING  \nECHO \"\\x41\\n\"\r\necho 'it\\'s'\r\nSET k2 \"\"\r\nGET k2\r\n"+
		"\t PING \t\r\nECHO a\vb\r\nQUIT\r\n")
	connCompare(t, "PING\r\n\"unbalanced\r\nPING\r\n")
	connCompare(t, "ECHO 'unbalanced\r\n")
	connCompare(t, "ECHO \"a\"b\r\n")
	connCompare(t, "ECHO "+strings.Repeat("y", 60000)+"\r\nQUIT\r\n")
	// Inline and multibulk requests mix freely.
	connCompare(t, "SET a 1\r\n"+string(difftest.Encode("INCR", "a"))+"GET a\r\nQUIT\r\n")
}

// Many commands in one write are all answered, in order.
func TestConnPipeline(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 300; i++ {
		switch i % 6 {
		case 0:
			b.Write(difftest.Encode("SET", "pipe", strings.Repeat("v", i)))
		case 1:
			b.Write(difftest.Encode("GET", "pipe"))
		case 2:
			b.WriteString("INCR counter\r\n")
		case 3:
			b.WriteString("NOSUCHCOMMAND x\r\n")
		case 4:
			b.Write(difftest.Encode("GET"))
		case 5:
			b.Write(difftest.Encode("ECHO", strings.Repeat("e", 20000)))
		}
	}
	b.WriteString("QUIT\r\n")
	connCompare(t, b.String())
}

// Each protocol error is answered with Redis's text after the replies to
// the commands before it, and the connection is closed.
func TestConnProtocolErrors(t *testing.T) {
	for _, raw := range []string{
		"*abc\r\n",
		"PING\r\n*abc\r\nPING\r\n",
		"*\r\n",
		"*-1\r\n*0\r\nPING\r\n*x\r\n",
		"*2147483648\r\n",
		"*1\r\n$abc\r\n",
		"*1\r\n$\r\n",
		"*1\r\n$-1\r\n",
		"*1\r\n$2000000000\r\n",
		"*1\r\n$536870913\r\n",
		"*1\r\nx\r\n",
		"*1\r\n\xff\r\n",
		"*1\r\n\r\n",
		"*2\r\n$3\r\nGET\r\n:1\r\n",
		"\"unbalanced\r\n",
		"SET \"a\"b\r\n",
		strings.Repeat("a", 65600),
		"*" + strings.Repeat("1", 65600),
		"*1\r\n$" + strings.Repeat("1", 65600),
	} {
		got := connCompare(t, raw)
		if !strings.Contains(got, "-ERR Protocol error: ") {
			t.Errorf("%.60q: no protocol error in %.200q", raw, got)
		}
	}
}

// The bytes after a count line's '\r' and after a bulk are not checked.
func TestConnProtocolQuirks(t *testing.T) {
	connCompare(t, "*1\rX$4\rXPING\r\n*1\r\n$4\r\nPINGxyQUIT\r\n")
}

func TestConnUnknownCommand(t *testing.T) {
	p := newPair(t)
	long := strings.Repeat("a", 200)
	p.Run(`
		NOSUCHCOMMAND
		nosuchcommand a b c
		NOSUCHCOMMAND "" ""
		NOSUCHCOMMAND "a\r\nb"
		NOSUCHCOMMAND "\xff"
		NOSUCHCOMMAND ` + long + `
		NOSUCHCOMMAND ` + strings.Repeat("b", 120) + ` ` + long + `
		NOSUCHCOMMAND a b c d e f g h i j k l m n o p q r s t u v w x y z a b c d e f g h i j k l m n o p q r s t u v w x y z 1 2 3 4 5 6 7 8 9 0
		` + long + ` x
		GET
		GET a b
		SET k
		ECHO
		CLIENT
		CLIENT NOSUCH
		client nosuch arg
		CLIENT ` + long + `
		CLIENT ID extra
		CLIENT SETNAME
		CLIENT HELP extra
		MONITOR extra
	`)
}

// Redis formats the unknown-command error with C's %s: a NUL byte ends
// the name or an argument.
func TestConnUnknownCommandNUL(t *testing.T) {
	p := newPair(t)
	p.Run(`
		NOSUCHCOMMAND "a\x00b" c
		"NOSUCH\x00COMMAND" x
		NOSUCHCOMMAND "\x00" "` + strings.Repeat("z", 130) + `"
	`)
}

// A panicking handler costs its client one error reply; the server, its
// locks and the connection survive.
func TestConnHandlerPanic(t *testing.T) {
	s, addr := startServer(t)
	s.mu.Lock() // ordered before the connections' goroutines (newClient)
	s.table.add(&Command{Name: "testpanic", Arity: -1, First: 1, Last: 1, Step: 1,
		Flags: Write, Handler: func(*Client, [][]byte) { panic("boom") }})
	s.mu.Unlock()
	c := difftest.Dial(t, addr)
	if r := c.Do("testpanic", "k"); !strings.HasPrefix(r, "-ERR internal error while running 'testpanic': boom") {
		t.Fatalf("panicking command replied %q", r)
	}
	if r := c.Do("PING"); r != "+PONG\r\n" {
		t.Fatalf("PING after panic: %q", r)
	}
	// The key lock was released: a write to the same key goes through.
	if r := c.Do("SET", "k", "v"); r != "+OK\r\n" {
		t.Fatalf("SET after panic: %q", r)
	}
	other := difftest.Dial(t, addr)
	if r := other.Do("GET", "k"); r != "$1\r\nv\r\n" {
		t.Fatalf("GET on another connection: %q", r)
	}
	if r := other.Do("PING"); r != "+PONG\r\n" {
		t.Fatalf("PING on another connection: %q", r)
	}
	// Pipelined after the panic, in the same write.
	c.Send([]byte("testpanic k\r\nPING\r\n"))
	if r := c.Read(); !strings.HasPrefix(r, "-ERR internal error") {
		t.Fatalf("pipelined panic replied %q", r)
	}
	if r := c.Read(); r != "+PONG\r\n" {
		t.Fatalf("PING pipelined after panic: %q", r)
	}
}

// TestConnPipelineBeforeReading: a client may write a whole pipeline, far
// larger than the socket buffers, before reading any reply. Redis keeps
// reading input while replies queue up; so must HotKV, or both ends wait
// for each other forever.
func TestConnPipelineBeforeReading(t *testing.T) {
	_, addr := startServer(t)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	val := strings.Repeat("v", 1000)
	key := strings.Repeat("k", 1000)
	const n = 40000 // ~40 MB each way
	var req []byte
	req = append(req, difftest.Encode("SET", key, val)...)
	get := difftest.Encode("GET", key)
	for i := 0; i < n; i++ {
		req = append(req, get...)
	}
	c.SetDeadline(time.Now().Add(60 * time.Second))
	if _, err := c.Write(req); err != nil {
		t.Fatalf("writing the pipeline (the server stopped reading?): %v", err)
	}
	r := bufio.NewReaderSize(c, 1<<20)
	if line, _ := difftest.ReadReply(r); line != "+OK\r\n" {
		t.Fatalf("SET: %q", line)
	}
	want := "$1000\r\n" + val + "\r\n"
	for i := 0; i < n; i++ {
		got, err := difftest.ReadReply(r)
		if err != nil || got != want {
			t.Fatalf("reply %d: %q, %v", i, got[:min(len(got), 20)], err)
		}
	}
}

// Random input built from pieces of RESP and inline syntax, ended by the
// client closing its side: both servers answer the same, protocol errors
// included.
func TestConnRandomProtocol(t *testing.T) {
	newPair(t) // skips without redis-server
	pieces := []string{
		"*", "$", "1", "2", "3", "0", "-1", "10", "\r\n", "\r", "\n", " ", "\t", "PING", "ECHO",
		"GET", "SET", "k", "v", "\"", "'", "\\x41", "\\n", "\\", "\x00", "\xff", "a\"b", "}",
		"*2\r\n$4\r\nECHO\r\n$", "*1\r\n$4\r\nPING\r\n", "PING\r\n", "ECHO \"a b\"\r\n",
	}
	r := rand.New(rand.NewPCG(7, 11))
	for i := 0; i < 300; i++ {
		var b strings.Builder
		for n := 1 + r.IntN(24); n > 0; n-- {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		raw := []byte(b.String())
		want := connHalfClosed(t, shared.redis, raw)
		got := connHalfClosed(t, sharedHotKV(t), raw)
		if want != got {
			t.Errorf("%q\n redis: %.300q\n hotkv: %.300q", raw, want, got)
		}
	}
}
