//go:build linux

package eventloop

import (
	"bufio"
	"net"
	"testing"
	"time"
)

// benchGroup serves a lineHandler on one loop with handoffAfter set (0:
// no watchdog) and returns a client connection and the server side.
func benchGroup(b *testing.B, handoffAfter time.Duration) (net.Conn, *connState) {
	b.Helper()
	h := &lineHandler{writers: true}
	g, err := New(1, h)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(g.Close)
	g.SetHandoffAfter(handoffAfter)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	nc, err := ln.Accept()
	if err != nil {
		b.Fatal(err)
	}
	st := &connState{closed: make(chan struct{})}
	if err := g.Add(nc, func(ec *Conn) { ec.Context = st; st.added = ec }); err != nil {
		b.Fatal(err)
	}
	return c, st
}

// BenchmarkRoundTrip: one request, one reply, over loopback, one at a
// time: a batch and a handler call per request. wakes/s: the watchdog's
// wake-ups (none while batches come faster than d/4).
func BenchmarkRoundTrip(b *testing.B) {
	for _, d := range []time.Duration{0, time.Millisecond} {
		b.Run("handoffAfter="+d.String(), func(b *testing.B) {
			c, st := benchGroup(b, d)
			wd := st.added.loop.wd
			wakes := wd.ticks.Load()
			r := bufio.NewReader(c)
			req := []byte("ping\n")
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := c.Write(req); err != nil {
					b.Fatal(err)
				}
				if _, err := r.ReadSlice('\n'); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(wd.ticks.Load()-wakes)/b.Elapsed().Seconds(), "wakes/s")
		})
	}
}

// BenchmarkConnTasks: Conn.Invoke tasks queued in bulk by a task on the
// loop, so that the loop runs them in one batch without waking: the
// loop's own cost per task (one handler call each), without the wake-ups
// of BenchmarkConnInvoke.
func BenchmarkConnTasks(b *testing.B) {
	for _, d := range []time.Duration{0, time.Millisecond} {
		b.Run("handoffAfter="+d.String(), func(b *testing.B) {
			_, st := benchGroup(b, d)
			c := st.added
			n := 0
			done := make(chan struct{})
			inc := func() { n++ }
			last := func() { n++; done <- struct{}{} }
			b.ResetTimer()
			for i := 0; i < b.N; i += 1024 {
				k := min(1024, b.N-i)
				c.loop.Invoke(func() {
					for j := 1; j < k; j++ {
						c.Invoke(inc)
					}
					c.Invoke(last)
				})
				<-done
			}
			if n != b.N {
				b.Fatalf("%d tasks ran, want %d", n, b.N)
			}
		})
	}
}

// BenchmarkCallBracket: what a handler call costs the loop now that it
// can be handed off (begin and end, with the watchdog awake).
func BenchmarkCallBracket(b *testing.B) {
	l := &loop{g: &Group{}, cur: &runState{}}
	c := &Conn{loop: l}
	for b.Loop() {
		st, seq := l.begin(c)
		if !l.end(st, seq, c, true) {
			b.Fatal("handed off")
		}
	}
}
