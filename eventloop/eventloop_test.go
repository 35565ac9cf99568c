//go:build linux

package eventloop

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// The tests serve connections with lineHandler, a tiny line protocol:
//
//	big N   the reply is N bytes of pattern (each 8-byte word holds its
//	        own offset, so a lost, repeated or reordered chunk shows)
//	quit    the handler returns false: the loop closes the connection
//	sleep N the handler sleeps N ms, then echoes the line
//	spin N  the handler spins N µs, then echoes the line
//	other   echoed with its newline
//
// Every connection's state (connState) is touched only by the loop's
// handler; the race detector reports it if two goroutines ever run the
// handler of one connection at once, and so does the handler (inCall).

type connState struct {
	id      int
	in      []byte
	closes  atomic.Int32 // OnClose calls
	reads   atomic.Int32 // OnReadable calls
	closed  chan struct{}
	added   *Conn
	linesIn atomic.Int64 // lines handled
	inCall  atomic.Int32 // handler calls running
}

type lineHandler struct {
	closes atomic.Int32
	// violations counts contract breaches seen by the handler: OnReadable
	// after OnClose, OnClose twice.
	violations atomic.Int32
	// writers is set when goroutines other than the loop write: output
	// may then be queued between the loop's back-pressure check and
	// OnReadable, so the handler does not check it.
	writers bool
	// yield: after a line whose call was handed off, return (the loop
	// calls again once the call is done) instead of going on.
	yield bool
	mu    sync.Mutex
	why   []string
}

// enter and leave bracket a handler call for st: two at once is a
// contract violation.
func (h *lineHandler) enter(st *connState) {
	if n := st.inCall.Add(1); n != 1 {
		h.violate("conn %d: %d handler calls at once", st.id, n)
	}
}

func (h *lineHandler) leave(st *connState) { st.inCall.Add(-1) }

func (h *lineHandler) violate(format string, args ...any) {
	h.violations.Add(1)
	h.mu.Lock()
	h.why = append(h.why, fmt.Sprintf(format, args...))
	h.mu.Unlock()
}

func (h *lineHandler) check(t *testing.T) {
	t.Helper()
	if h.violations.Load() != 0 {
		h.mu.Lock()
		defer h.mu.Unlock()
		t.Errorf("%d handler contract violations: %q", h.violations.Load(), h.why)
	}
}

func (h *lineHandler) OnReadable(c *Conn) bool {
	st := c.Context.(*connState)
	h.enter(st)
	defer h.leave(st)
	st.reads.Add(1)
	if st.closes.Load() != 0 {
		h.violate("conn %d: OnReadable after OnClose", st.id)
	}
	if c.Pending() > 0 && !h.writers {
		// This handler applies back-pressure itself: nothing is read
		// while output is queued (the loop calls again once it drains).
		return true
	}
	var buf [1500]byte // small: a burst takes several reads
	for {
		// Lines left over from the last call first.
		for {
			i := bytes.IndexByte(st.in, '\n')
			if i < 0 {
				break
			}
			big := bytes.HasPrefix(st.in, []byte("big "))
			ok := h.line(c, st, st.in[:i+1])
			st.in = st.in[:copy(st.in, st.in[i+1:])]
			if !ok {
				return false
			}
			if big && c.Pending() > 0 {
				// Back-pressure: read nothing more until the reply
				// drains (the loop calls again then).
				return true
			}
			if h.yield && c.HandedOff() {
				return true // the loop goes on once this call is done
			}
		}
		n, err := c.Read(buf[:])
		st.in = append(st.in, buf[:n]...)
		switch {
		case err == ErrWouldBlock:
			return true
		case err != nil:
			return false
		}
	}
}

func (h *lineHandler) line(c *Conn, st *connState, line []byte) bool {
	st.linesIn.Add(1)
	switch {
	case string(line) == "quit\n":
		return false
	case bytes.HasPrefix(line, []byte("big ")):
		n, err := strconv.Atoi(string(line[4 : len(line)-1]))
		if err != nil {
			h.violate("bad big line %q", line)
			return false
		}
		c.Write(pattern(0, n))
	case bytes.HasPrefix(line, []byte("sleep ")), bytes.HasPrefix(line, []byte("spin ")):
		word, arg, _ := strings.Cut(string(line[:len(line)-1]), " ")
		arg, _, _ = strings.Cut(arg, " ") // what follows tells requests apart
		n, err := strconv.Atoi(arg)
		if err != nil {
			h.violate("bad line %q", line)
			return false
		}
		if word == "sleep" {
			time.Sleep(time.Duration(n) * time.Millisecond)
		} else {
			for start := time.Now(); time.Since(start) < time.Duration(n)*time.Microsecond; {
			}
		}
		c.Write(line)
	default:
		c.Write(line)
	}
	return true
}

func (h *lineHandler) OnClose(c *Conn) {
	st := c.Context.(*connState)
	h.enter(st)
	defer h.leave(st)
	if st.closes.Add(1) != 1 {
		h.violate("conn %d: OnClose called %d times", st.id, st.closes.Load())
		return
	}
	h.closes.Add(1)
	close(st.closed)
}

// pattern returns n bytes whose 8-byte word at offset off+i*8 holds that
// offset (big-endian); off must be a multiple of 8.
func pattern(off, n int) []byte {
	b := make([]byte, (n+7)/8*8)
	for i := 0; i < len(b); i += 8 {
		binary.BigEndian.PutUint64(b[i:], uint64(off+i))
	}
	return b[:n]
}

// server is a Group behind a listener on 127.0.0.1.
type server struct {
	t     *testing.T
	g     *Group
	h     *lineHandler
	ln    net.Listener
	addr  string
	conns chan *connState // server side of each accepted connection
	n     atomic.Int32
	added atomic.Int32  // connections handed to the group
	done  chan struct{} // closed when the accept loop ends
}

// startGroup serves a lineHandler on loops loops; writers says whether the
// test writes from other goroutines (see lineHandler.writers).
func startGroup(t *testing.T, loops int, writers bool) *server {
	t.Helper()
	return startHandler(t, loops, &lineHandler{writers: writers}, nil)
}

// startHandler serves h on loops loops, with setup (if not nil) run on the
// group before any connection comes.
func startHandler(t *testing.T, loops int, h *lineHandler, setup func(*Group)) *server {
	t.Helper()
	g, err := New(loops, h)
	if err != nil {
		t.Fatal(err)
	}
	if loops > 1 {
		g.SetMaxSpin(50 * time.Microsecond) // forLoops: one loop blocks at once, four poll first
	}
	if setup != nil {
		setup(g)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		g.Close()
		t.Fatal(err)
	}
	s := &server{t: t, g: g, h: h, ln: ln, addr: ln.Addr().String(),
		conns: make(chan *connState, 1024), done: make(chan struct{})}
	go s.accept()
	t.Cleanup(s.stop)
	return s
}

func (s *server) accept() {
	defer close(s.done)
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			return
		}
		st := &connState{id: int(s.n.Add(1)), closed: make(chan struct{})}
		err = s.g.Add(nc, func(c *Conn) { c.Context = st; st.added = c })
		if err != nil {
			nc.Close()
			continue
		}
		s.added.Add(1)
		select {
		case s.conns <- st:
		default:
		}
	}
}

// stop closes the listener and the group and checks that every added
// connection got exactly one OnClose.
func (s *server) stop() {
	s.ln.Close()
	<-s.done
	s.g.Close()
	if got, want := s.h.closes.Load(), s.added.Load(); got != want {
		s.t.Errorf("after Group.Close: %d OnClose calls for %d connections", got, want)
	}
	s.h.check(s.t)
}

func (s *server) dial() net.Conn {
	s.t.Helper()
	c, err := net.Dial("tcp", s.addr)
	if err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { c.Close() })
	return c
}

// next returns the server side of the next accepted connection.
func (s *server) next() *connState {
	s.t.Helper()
	select {
	case st := <-s.conns:
		return st
	case <-time.After(5 * time.Second):
		s.t.Fatal("no connection accepted")
		return nil
	}
}

func waitClosed(t *testing.T, st *connState, d time.Duration) {
	t.Helper()
	select {
	case <-st.closed:
	case <-time.After(d):
		t.Fatalf("conn %d: OnClose not called within %v", st.id, d)
	}
}

func forLoops(t *testing.T, fn func(t *testing.T, loops int)) {
	for _, n := range []int{1, 4} {
		t.Run(fmt.Sprintf("loops=%d", n), func(t *testing.T) { fn(t, n) })
	}
}

// TestEchoManyConns: many connections, each pipelining lines and reading
// their echoes back, all at once, on one loop and on four.
func TestEchoManyConns(t *testing.T) {
	forLoops(t, func(t *testing.T, loops int) {
		s := startGroup(t, loops, false)
		const conns, rounds, perRound = 64, 20, 10
		var wg sync.WaitGroup
		errc := make(chan error, conns)
		for i := 0; i < conns; i++ {
			c := s.dial()
			wg.Add(1)
			go func() {
				defer wg.Done()
				c.SetDeadline(time.Now().Add(10 * time.Second))
				r := bufio.NewReader(c)
				for round := 0; round < rounds; round++ {
					var out bytes.Buffer
					for k := 0; k < perRound; k++ {
						fmt.Fprintf(&out, "c%d r%d k%d %s\n", i, round, k, strings.Repeat("x", (i*7+k*13)%300))
					}
					want := out.String()
					if _, err := c.Write(out.Bytes()); err != nil {
						errc <- err
						return
					}
					got := make([]byte, len(want))
					if _, err := io.ReadFull(r, got); err != nil {
						errc <- fmt.Errorf("conn %d round %d: %v", i, round, err)
						return
					}
					if string(got) != want {
						errc <- fmt.Errorf("conn %d round %d: got %.80q, want %.80q", i, round, got, want)
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errc)
		for err := range errc {
			t.Error(err)
		}
	})
}

// TestTinyChunks: input arrives a few bytes at a time, so lines are split
// over many reads (and many OnReadable calls).
func TestTinyChunks(t *testing.T) {
	forLoops(t, func(t *testing.T, loops int) {
		s := startGroup(t, loops, false)
		var wg sync.WaitGroup
		for i := 0; i < 4; i++ {
			c := s.dial()
			c.(*net.TCPConn).SetNoDelay(true)
			wg.Add(1)
			go func() {
				defer wg.Done()
				var msg bytes.Buffer
				for k := 0; k < 40; k++ {
					fmt.Fprintf(&msg, "conn %d line %d\n", i, k)
				}
				data := msg.Bytes()
				done := make(chan []byte)
				go func() {
					c.SetReadDeadline(time.Now().Add(10 * time.Second))
					got := make([]byte, len(data))
					n, _ := io.ReadFull(c, got)
					done <- got[:n]
				}()
				for off := 0; off < len(data); {
					n := min(1+off%3, len(data)-off)
					if _, err := c.Write(data[off : off+n]); err != nil {
						t.Error(err)
						break
					}
					off += n
					if off%16 == 0 {
						time.Sleep(200 * time.Microsecond)
					}
				}
				if got := <-done; !bytes.Equal(got, data) {
					t.Errorf("conn %d: echo %.100q, want %.100q", i, got, data)
				}
			}()
		}
		wg.Wait()
	})
}

// TestPeerCloses: a peer that closes (after sending nothing, after a
// request it never reads the reply of, after half-closing) is dropped with
// exactly one OnClose; a half-closed peer still gets its replies.
func TestPeerCloses(t *testing.T) {
	forLoops(t, func(t *testing.T, loops int) {
		s := startGroup(t, loops, false)
		for i := 0; i < 30; i++ {
			c := s.dial()
			st := s.next()
			switch i % 3 {
			case 0:
				c.Close()
			case 1: // unread reply: the close resets the connection
				c.Write([]byte("hello\nbig 100000\n"))
				time.Sleep(time.Millisecond)
				c.Close()
			case 2:
				c.Write([]byte("half\n"))
				c.(*net.TCPConn).CloseWrite()
				c.SetReadDeadline(time.Now().Add(5 * time.Second))
				got, err := io.ReadAll(c)
				if err != nil || string(got) != "half\n" {
					t.Errorf("half-closed peer got %q, %v", got, err)
				}
			}
			waitClosed(t, st, 5*time.Second)
		}
		time.Sleep(20 * time.Millisecond) // a second OnClose would show now
		s.h.check(t)
	})
}

// TestPeerClosesWithPendingOutput: a peer that stops reading and then
// disconnects while a large reply is still queued must be dropped. The
// loop must not keep the connection (and its queued output) forever
// because its input is held back behind output that can never drain.
func TestPeerClosesWithPendingOutput(t *testing.T) {
	forLoops(t, func(t *testing.T, loops int) {
		s := startGroup(t, loops, false)
		for i := 0; i < 4; i++ {
			c := s.dial()
			st := s.next()
			// A small receive buffer keeps most of the reply queued.
			c.(*net.TCPConn).SetReadBuffer(1 << 16)
			c.Write([]byte("big 16777216\n"))
			// Read a little so that the reply is surely under way and
			// queued, then go away with the rest unread.
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			if _, err := io.ReadFull(c, make([]byte, 4096)); err != nil {
				t.Fatal(err)
			}
			if i%2 == 1 {
				// and send more input first: it waits behind the output
				c.Write([]byte("more\n"))
				time.Sleep(5 * time.Millisecond)
			}
			c.Close()
			waitClosed(t, st, 5*time.Second)
		}
	})
}

// TestCloseFromOtherGoroutine: Conn.Close called from several goroutines
// at once, while the loop is busy reading the connection's input and other
// goroutines write to it: the loop drops it with exactly one OnClose and
// the peer sees the end of the stream.
func TestCloseFromOtherGoroutine(t *testing.T) {
	forLoops(t, func(t *testing.T, loops int) {
		s := startGroup(t, loops, true)
		for i := 0; i < 20; i++ {
			c := s.dial()
			st := s.next()
			stopWriting := make(chan struct{})
			writerDone := make(chan struct{})
			go func() { // the peer streams input
				defer close(writerDone)
				line := []byte(strings.Repeat("y", 100) + "\n")
				for {
					select {
					case <-stopWriting:
						return
					default:
					}
					c.SetWriteDeadline(time.Now().Add(2 * time.Second))
					if _, err := c.Write(line); err != nil {
						return
					}
				}
			}()
			readerDone := make(chan error, 1)
			go func() { // and reads the echoes until the server closes
				c.SetReadDeadline(time.Now().Add(10 * time.Second))
				_, err := io.Copy(io.Discard, c)
				readerDone <- err
			}()
			// Wait until the loop is really reading.
			for deadline := time.Now().Add(5 * time.Second); st.linesIn.Load() < 50; {
				if time.Now().After(deadline) {
					t.Fatal("the loop handled no input")
				}
				time.Sleep(100 * time.Microsecond)
			}
			var wg sync.WaitGroup
			for k := 0; k < 4; k++ {
				wg.Add(2)
				go func() { defer wg.Done(); st.added.Close() }()
				go func() {
					defer wg.Done()
					for j := 0; j < 20; j++ {
						st.added.Write([]byte("from another goroutine\n"))
					}
				}()
			}
			wg.Wait()
			waitClosed(t, st, 5*time.Second)
			select {
			case err := <-readerDone:
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() {
					t.Fatalf("peer not closed: %v", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("peer still open after Close")
			}
			close(stopWriting)
			<-writerDone
			if _, err := st.added.Write([]byte("late\n")); err == nil {
				t.Error("Write after Close succeeded")
			}
			st.added.Close() // again: no effect
		}
		time.Sleep(20 * time.Millisecond)
		s.h.check(t)
	})
}

// TestConcurrentWrites: Conn.Write from several goroutines at once, with
// replies large enough to queue: every Write arrives whole (no bytes of
// another Write inside it) and each goroutine's Writes arrive in order.
func TestConcurrentWrites(t *testing.T) {
	forLoops(t, func(t *testing.T, loops int) {
		s := startGroup(t, loops, true)
		c := s.dial()
		st := s.next()
		const writers, perWriter = 8, 60
		var wg sync.WaitGroup
		for w := 0; w < writers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for seq := 0; seq < perWriter; seq++ {
					size := 10 + (w*31+seq*17)%200
					if seq%10 == 3 {
						size = 100_000 + w*1000 // bigger than the socket takes at once
					}
					rec := fmt.Appendf(nil, "%d %d %d ", w, seq, size)
					rec = append(rec, bytes.Repeat([]byte{byte('a' + w)}, size)...)
					rec = append(rec, '\n')
					if _, err := st.added.Write(rec); err != nil {
						t.Errorf("writer %d: %v", w, err)
						return
					}
				}
			}()
		}
		time.Sleep(30 * time.Millisecond) // let output queue up
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		r := bufio.NewReaderSize(c, 1<<16)
		next := make([]int, writers)
		for n := 0; n < writers*perWriter; n++ {
			var w, seq, size int
			if _, err := fmt.Fscanf(r, "%d %d %d ", &w, &seq, &size); err != nil {
				t.Fatalf("record %d: header: %v", n, err)
			}
			if w < 0 || w >= writers || seq != next[w] {
				t.Fatalf("record %d: writer %d seq %d, want seq %d", n, w, seq, next[w])
			}
			next[w]++
			body := make([]byte, size+1)
			if _, err := io.ReadFull(r, body); err != nil {
				t.Fatalf("record %d: body: %v", n, err)
			}
			want := append(bytes.Repeat([]byte{byte('a' + w)}, size), '\n')
			if !bytes.Equal(body, want) {
				t.Fatalf("record %d (writer %d seq %d): body interleaved with other bytes", n, w, seq)
			}
		}
		wg.Wait()
	})
}

// TestBackPressure: a 64 MB reply to a peer that reads slowly arrives
// whole and in order; input sent while it is queued is handled only once
// it has drained (OnReadable never runs with output pending), and its
// replies follow the big one. "together": the later input arrives in the
// same segment as the request, and the handler leaves it unread behind
// the reply: the loop must call it again once the reply has drained.
func TestBackPressure(t *testing.T) {
	forLoops(t, func(t *testing.T, loops int) {
		for _, together := range []bool{false, true} {
			t.Run(fmt.Sprintf("together=%v", together), func(t *testing.T) {
				testBackPressure(t, loops, together)
			})
		}
	})
}

func testBackPressure(t *testing.T, loops int, together bool) {
	s := startGroup(t, loops, false)
	c := s.dial()
	st := s.next()
	const size = 64 << 20
	var after bytes.Buffer
	for k := 0; k < 100; k++ {
		fmt.Fprintf(&after, "after %d\n", k)
	}
	if together {
		c.Write(append([]byte("big "+strconv.Itoa(size)+"\n"), after.Bytes()...))
	} else {
		c.Write([]byte("big " + strconv.Itoa(size) + "\n"))
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	got := 0
	buf := make([]byte, 1<<20)
	read := func(n int) {
		t.Helper()
		if _, err := io.ReadFull(c, buf[:n]); err != nil {
			t.Fatalf("after %d bytes of %d: %v", got, size, err)
		}
		if !bytes.Equal(buf[:n], pattern(got, n)) {
			t.Fatalf("reply corrupt in bytes %d..%d", got, got+n)
		}
		got += n
	}
	slowly := func() { // 16 KiB a millisecond
		for i := 0; i < 32; i++ {
			read(16 << 10)
			time.Sleep(time.Millisecond)
		}
	}
	slowly()
	if !together {
		// one line a write: most arrive as separate events
		for k := 0; k < 100; k++ {
			c.Write([]byte(fmt.Sprintf("after %d\n", k)))
		}
	}
	slowly()
	if n := st.linesIn.Load(); n != 1 {
		t.Errorf("%d input lines handled while %d MB of output were queued", n-1, (size-got)>>20)
	}
	for got < size {
		read(min(len(buf), size-got))
	}
	rest := make([]byte, after.Len())
	if _, err := io.ReadFull(c, rest); err != nil {
		t.Fatalf("replies after the big one: %v", err)
	}
	if !bytes.Equal(rest, after.Bytes()) {
		t.Fatalf("replies after the big one: %.100q", rest)
	}
	if n := st.linesIn.Load(); n != 101 {
		t.Errorf("%d lines handled, want 101", n)
	}
	s.h.check(t)
}

// openFDs counts this process's open file descriptors.
func openFDs(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(ents)
}

// settle waits (2 s at most) until cond holds.
func settle(cond func() bool) bool {
	for deadline := time.Now().Add(2 * time.Second); ; {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
	}
}

// TestGroupCloseWithOpenConns: Group.Close with connections idle, busy,
// and with queued output: every one gets OnClose once, peers see the end,
// and no goroutine or file descriptor is left behind.
func TestGroupCloseWithOpenConns(t *testing.T) {
	time.Sleep(50 * time.Millisecond) // let earlier tests' goroutines end
	goroutines, fds := runtime.NumGoroutine(), openFDs(t)
	func() {
		h := &lineHandler{}
		g, err := New(4, h)
		if err != nil {
			t.Fatal(err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		var states []*connState
		var clients []net.Conn
		for i := 0; i < 24; i++ {
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			clients = append(clients, c)
			nc, err := ln.Accept()
			if err != nil {
				t.Fatal(err)
			}
			st := &connState{id: i, closed: make(chan struct{})}
			if err := g.Add(nc, func(c *Conn) { c.Context = st; st.added = c }); err != nil {
				t.Fatal(err)
			}
			states = append(states, st)
			switch i % 3 {
			case 1: // queued output
				c.Write([]byte("big 8000000\n"))
			case 2: // input in flight
				c.Write([]byte("a\nb\nc"))
			}
		}
		time.Sleep(20 * time.Millisecond)
		g.Close()
		for _, st := range states {
			if n := st.closes.Load(); n != 1 {
				t.Errorf("conn %d: %d OnClose calls after Group.Close", st.id, n)
			}
		}
		for i, c := range clients {
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			_, err := io.Copy(io.Discard, c)
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Errorf("client %d: still open after Group.Close", i)
			}
			c.Close()
		}
		g.Close() // again: no effect
		h.check(t)
	}()
	if !settle(func() bool { return runtime.NumGoroutine() <= goroutines }) {
		buf := make([]byte, 1<<16)
		t.Errorf("goroutines: %d before, %d after Group.Close\n%s", goroutines, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
	}
	if !settle(func() bool { return openFDs(t) <= fds }) {
		t.Errorf("file descriptors: %d before, %d after Group.Close", fds, openFDs(t))
	}
}

// TestAddRacingClose: connections added while the group closes are either
// refused by Add or served and then closed: none is lost (every accepted
// Add gets its OnClose, every socket is closed).
func TestAddRacingClose(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	fds := openFDs(t)
	for round := 0; round < 20; round++ {
		h := &lineHandler{}
		g, err := New(2, h)
		if err != nil {
			t.Fatal(err)
		}
		var pairs [8][2]net.Conn
		for i := range pairs {
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			nc, err := ln.Accept()
			if err != nil {
				t.Fatal(err)
			}
			pairs[i] = [2]net.Conn{c, nc}
		}
		var wg sync.WaitGroup
		var accepted atomic.Int32
		states := make([]*connState, len(pairs))
		for i := range pairs {
			states[i] = &connState{id: i, closed: make(chan struct{})}
			wg.Add(1)
			go func() {
				defer wg.Done()
				st := states[i]
				if err := g.Add(pairs[i][1], func(c *Conn) { c.Context = st }); err == nil {
					accepted.Add(1)
				} else {
					pairs[i][1].Close()
					close(st.closed) // refused: nothing to wait for
				}
			}()
		}
		g.Close()
		wg.Wait()
		for _, st := range states {
			select {
			case <-st.closed:
			case <-time.After(2 * time.Second):
				t.Fatalf("round %d: conn %d added but never closed (OnClose missing)", round, st.id)
			}
		}
		if got := h.closes.Load(); got != accepted.Load() {
			t.Errorf("round %d: %d OnClose for %d accepted connections", round, got, accepted.Load())
		}
		h.check(t)
		for _, p := range pairs {
			p[0].Close()
		}
	}
	if !settle(func() bool { return openFDs(t) <= fds }) {
		t.Errorf("file descriptors: %d before, %d after", fds, openFDs(t))
	}
}

// TestAddAfterClose: Add on a closed group does not touch the closed
// loops' descriptors, whose numbers other files may have by now.
func TestAddAfterClose(t *testing.T) {
	h := &lineHandler{}
	g, err := New(2, h)
	if err != nil {
		t.Fatal(err)
	}
	g.Close()
	// Take the lowest free descriptors, among them the loops' old ones.
	var pipes [][2]*os.File
	for i := 0; i < 8; i++ {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		defer w.Close()
		pipes = append(pipes, [2]*os.File{r, w})
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	nc, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	st := &connState{closed: make(chan struct{})}
	if err := g.Add(nc, func(c *Conn) { c.Context = st }); err != nil {
		nc.Close()
	} else {
		select {
		case <-st.closed:
		case <-time.After(time.Second):
			t.Error("connection added after Close: never closed (OnClose missing)")
		}
	}
	for i, p := range pipes {
		p[0].SetReadDeadline(time.Now().Add(time.Millisecond))
		if n, _ := p[0].Read(make([]byte, 64)); n > 0 {
			t.Errorf("pipe %d (fd %d): %d stray bytes written by the closed group", i, p[1].Fd(), n)
		}
	}
	// The peer sees the connection end.
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("peer of a connection added after Close: %v", err)
	}
}

// TestWriteBeforeRegistration: output written before the loop registers
// the connection (here from Add's setup; in a server, from another
// goroutine right after Add) and not taken by the socket at once is still
// sent: the registration must ask for EPOLLOUT when output is queued.
func TestWriteBeforeRegistration(t *testing.T) {
	h := &lineHandler{writers: true}
	g, err := New(1, h)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.(*net.TCPConn).SetReadBuffer(1 << 16)
	nc, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	const size = 16 << 20
	st := &connState{closed: make(chan struct{})}
	err = g.Add(nc, func(ec *Conn) {
		ec.Context = st
		if _, err := ec.Write(pattern(0, size)); err != nil {
			t.Error(err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, size)
	if n, err := io.ReadFull(c, buf); err != nil {
		t.Fatalf("got %d of %d bytes written before registration: %v", n, size, err)
	}
	if !bytes.Equal(buf, pattern(0, size)) {
		t.Fatal("output written before registration arrived corrupt")
	}
}

// handoffHandler echoes lines; "slow" hands the loop off and waits for
// release before answering, on the handler's own goroutine, then returns
// (what follows it waits for the next call).
type handoffHandler struct {
	release chan struct{}
	inSlow  atomic.Bool
	slowC   atomic.Pointer[Conn]
	during  atomic.Int32 // calls for the slow connection during its slow call
}

func (h *handoffHandler) OnReadable(c *Conn) bool {
	if h.inSlow.Load() && h.slowC.Load() == c {
		h.during.Add(1) // never: its input waits until the slow call is done
		return true
	}
	buf := make([]byte, 4096)
	for {
		n, err := c.Read(buf)
		if err == ErrWouldBlock {
			return true
		}
		if err != nil {
			return false
		}
		for _, line := range strings.Fields(string(buf[:n])) {
			if line == "slow" {
				h.slowC.Store(c)
				h.inSlow.Store(true)
				c.Handoff()
				<-h.release
				h.inSlow.Store(false)
				c.Write([]byte("slow done\n"))
				return true
			}
			c.Write([]byte(line + "\n"))
		}
	}
}

func (h *handoffHandler) OnClose(c *Conn) {}

// TestHandoff: a handler that hands its loop off keeps running while the
// loop serves its other connections and tasks, but not the handler's own
// connection, whose input waits for the next call; the loop then has one
// goroutine again (no second handler call for another connection runs on
// the retired goroutine).
func TestHandoff(t *testing.T) {
	h := &handoffHandler{release: make(chan struct{})}
	g, err := New(1, h)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dial := func() (net.Conn, *bufio.Reader) {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		s, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Add(s, func(*Conn) {}); err != nil {
			t.Fatal(err)
		}
		return c, bufio.NewReader(c)
	}
	slow, slowR := dial()
	defer slow.Close()
	fast, fastR := dial()
	defer fast.Close()
	slow.Write([]byte("slow\n"))
	for !h.inSlow.Load() {
		time.Sleep(time.Millisecond)
	}
	for i := 0; i < 3; i++ {
		fast.Write([]byte("ping" + strconv.Itoa(i) + "\n"))
		fast.SetReadDeadline(time.Now().Add(5 * time.Second))
		if line, err := fastR.ReadString('\n'); err != nil || line != "ping"+strconv.Itoa(i)+"\n" {
			t.Fatalf("fast connection while the slow one runs: %q, %v", line, err)
		}
	}
	ran := make(chan struct{})
	g.loops[0].Invoke(func() { close(ran) })
	select {
	case <-ran:
	case <-time.After(5 * time.Second):
		t.Fatal("a task did not run while the slow handler ran")
	}
	slow.Write([]byte("later\n"))
	time.Sleep(10 * time.Millisecond)
	close(h.release)
	slow.SetReadDeadline(time.Now().Add(5 * time.Second))
	if line, err := slowR.ReadString('\n'); err != nil || line != "slow done\n" {
		t.Fatalf("slow connection: %q, %v", line, err)
	}
	if line, err := slowR.ReadString('\n'); err != nil || line != "later\n" {
		t.Fatalf("slow connection, input sent during the slow call: %q, %v", line, err)
	}
	if n := h.during.Load(); n != 0 {
		t.Errorf("%d calls for the slow connection during its slow call", n)
	}
	fast.Write([]byte("after\n"))
	if line, err := fastR.ReadString('\n'); err != nil || line != "after\n" {
		t.Fatalf("fast connection after: %q, %v", line, err)
	}
}

// holdHandler holds the output of "h:X" lines, writes that of "w:X" lines
// at once, and hands each batch to the test instead of releasing it.
type holdHandler struct {
	batches chan *Batch
	conn    chan *Conn
}

func (h *holdHandler) OnReadable(c *Conn) bool {
	select {
	case h.conn <- c:
	default:
	}
	buf := make([]byte, 4096)
	for {
		n, err := c.Read(buf)
		if err == ErrWouldBlock {
			return true
		}
		if err != nil {
			return false
		}
		for _, line := range strings.Fields(string(buf[:n])) {
			kind, text, _ := strings.Cut(line, ":")
			if kind == "h" {
				c.Hold([]byte(text + "\n"))
			} else {
				c.Write([]byte(text + "\n"))
			}
		}
	}
}

func (h *holdHandler) OnClose(c *Conn) {}

func (h *holdHandler) OnBatchEnd(b *Batch) { h.batches <- b }

// startHold serves one connection with a holdHandler on a group of one
// loop, closed at the end of the test, and returns the handler and the
// client's side.
func startHold(t *testing.T) (*holdHandler, net.Conn) {
	h := &holdHandler{batches: make(chan *Batch, 8), conn: make(chan *Conn, 1)}
	g, err := New(1, h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	s, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Add(s, func(*Conn) {}); err != nil {
		t.Fatal(err)
	}
	return h, client
}

// TestHoldBatches: held output goes out only when its batch is released,
// batches in order, and output written after a hold waits behind it.
func TestHoldBatches(t *testing.T) {
	h, client := startHold(t)
	r := bufio.NewReader(client)
	expectNothing := func() {
		t.Helper()
		client.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		if line, err := r.ReadString('\n'); err == nil {
			t.Fatalf("got %q before its batch was released", line)
		}
	}
	expectLine := func(want string) {
		t.Helper()
		client.SetReadDeadline(time.Now().Add(5 * time.Second))
		if line, err := r.ReadString('\n'); err != nil || line != want {
			t.Fatalf("got %q, %v; want %q", line, err, want)
		}
	}
	batch := func() *Batch {
		t.Helper()
		select {
		case b := <-h.batches:
			return b
		case <-time.After(5 * time.Second):
			t.Fatal("no batch")
			return nil
		}
	}

	client.Write([]byte("w:now\n"))
	expectLine("now\n") // nothing held: written at once
	client.Write([]byte("h:1 w:1w\n"))
	b1 := batch()
	expectNothing()
	client.Write([]byte("h:2\n"))
	b2 := batch()
	c := <-h.conn
	c.Write([]byte("late\n")) // from another goroutine, after the hold
	expectNothing()
	b1.Release()
	expectLine("1\n")
	expectLine("1w\n")
	expectNothing() // "2" belongs to the second batch, "late" waits behind it
	b2.Release()
	expectLine("2\n")
	expectLine("late\n")
	client.Write([]byte("w:free\n"))
	expectLine("free\n") // no longer holding
}

// TestHoldReleasedAfterClose: a batch released after its connection
// closed (the append-only file's flush finishing late) releases nothing
// and does not panic; the close dropped the held output.
func TestHoldReleasedAfterClose(t *testing.T) {
	h, client := startHold(t)
	client.Write([]byte("h:held\n"))
	var b *Batch
	select {
	case b = <-h.batches:
	case <-time.After(5 * time.Second):
		t.Fatal("no batch")
	}
	c := <-h.conn
	c.Close()
	deadline := time.Now().Add(5 * time.Second)
	gone := func() bool {
		c.wmu.Lock()
		defer c.wmu.Unlock()
		return c.fd < 0
	}
	for !gone() {
		if time.Now().After(deadline) {
			t.Fatal("not closed")
		}
		time.Sleep(time.Millisecond)
	}
	b.Release() // panicked: index out of range in outQueue.consume
}

// TestPollSpin: poll polls before it blocks only after a short gap, and a
// poll that found nothing blocks: the thread burns no CPU while it waits.
func TestPollSpin(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	epfd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(epfd)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	rfd := int(r.Fd())
	if err := syscall.EpollCtl(epfd, syscall.EPOLL_CTL_ADD, rfd, &syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(rfd)}); err != nil {
		t.Fatal(err)
	}
	const maxSpin = 50 * time.Microsecond
	st := &runState{events: make([]syscall.EpollEvent, 4)}
	threadCPU := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
			t.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	// waitFor polls until an event that comes after delay (never when
	// delay is 0 and the pipe is already readable).
	waitFor := func(delay time.Duration) {
		t.Helper()
		if delay > 0 {
			timer := time.AfterFunc(delay, func() { w.Write([]byte{1}) })
			defer timer.Stop()
		}
		if n, err := st.poll(epfd, maxSpin); n != 1 || err != nil {
			t.Fatal(n, err)
		}
		if delay > 0 {
			r.Read(make([]byte, 1)) // the pipe is empty again
		}
	}

	// A long gap: no polling afterwards.
	waitFor(20 * time.Millisecond)
	if st.spin != 0 {
		t.Fatalf("spin %v after a 20 ms gap", st.spin)
	}
	// An event ready at once: a short gap, so the next poll polls first.
	w.Write([]byte{1})
	waitFor(0)
	if st.spin <= 0 || st.spin > maxSpin {
		t.Fatalf("spin %v after an event ready at once", st.spin)
	}
	r.Read(make([]byte, 1))
	// Then nothing for 100 ms: the poll gives up and blocks, using a
	// fraction of a millisecond of CPU, and polling is off again.
	before := threadCPU()
	waitFor(100 * time.Millisecond)
	if used := threadCPU() - before; used > 20*time.Millisecond {
		t.Errorf("the thread used %v of CPU waiting 100 ms for an event", used)
	}
	if st.spin != 0 {
		t.Fatalf("spin %v after a 100 ms gap", st.spin)
	}
	// Polling off: even a ready event leaves it off.
	w.Write([]byte{1})
	if n, err := st.poll(epfd, 0); n != 1 || err != nil || st.spin != 0 {
		t.Fatal(n, err, st.spin)
	}
}

// TestOnDrain: a writer that feeds a connection from a source of its own,
// a little at a time (as a replica is fed from the shared replication
// buffer), goes on each time its queued output has drained: the peer,
// reading slowly, gets the whole stream in order, and no more than a
// little of it is ever queued.
func TestOnDrain(t *testing.T) {
	forLoops(t, func(t *testing.T, loops int) {
		s := startGroup(t, loops, true)
		c := s.dial()
		st := s.next()
		conn := st.added
		const total, chunk, ahead = 8 << 20, 64 << 10, 256 << 10
		var sent, maxQueued atomic.Int64
		var feed func()
		feed = func() {
			for sent.Load() < total {
				if mem, _ := conn.OutputMem(); mem >= ahead {
					if int64(mem) > maxQueued.Load() {
						maxQueued.Store(int64(mem))
					}
					if conn.OnDrain(feed) {
						return
					}
				}
				off := int(sent.Load())
				conn.Write(pattern(off, min(chunk, total-off)))
				sent.Add(int64(min(chunk, total-off)))
			}
		}
		conn.Invoke(feed)
		c.(*net.TCPConn).SetReadBuffer(1 << 16)
		c.SetReadDeadline(time.Now().Add(20 * time.Second))
		got := make([]byte, total)
		for off := 0; off < total; {
			n, err := c.Read(got[off:min(off+4096, total)])
			if err != nil {
				t.Fatalf("after %d bytes: %v", off, err)
			}
			off += n
		}
		if !bytes.Equal(got, pattern(0, total)) {
			t.Fatal("the stream arrived altered")
		}
		if m := maxQueued.Load(); m > 2*ahead {
			t.Fatalf("%d bytes queued at most, want about %d", m, ahead)
		}
		if conn.OnDrain(feed) {
			t.Fatal("OnDrain with nothing queued")
		}
	})
}
