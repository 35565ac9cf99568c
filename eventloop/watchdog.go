//go:build linux

package eventloop

import (
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// SetHandoffAfter sets how long a handler call (OnReadable, a Conn.Invoke
// task, OnClose) may hold its loop: a call that has run for about d has
// its loop handed to a new goroutine, exactly as if it had called
// Conn.Handoff (0, the default: never). A call is handed off once the
// watchdog has seen it running at two looks in a row (d/4 apart or more)
// and its loop has been in the call's batch of events for 3/4 d (later
// when no processor is free for the watchdog, by the time it waits for
// one: the wait counts toward d); a call that starts late in a long batch
// may be handed off sooner than d. A long batch of short calls hands none
// off. See watchdog for what it costs. It may be called at any time.
func (g *Group) SetHandoffAfter(d time.Duration) {
	d = max(d, 0)
	g.handoffAfter.Store(int64(d))
	if d > 0 {
		for _, l := range g.loops {
			l.wd.arm(d / 2) // a call may be running already
		}
	}
}

// Handoffs returns how many calls were handed off since the group started.
func (g *Group) Handoffs() int64 { return g.handoffs.Load() }

// HandoffAfter returns what SetHandoffAfter set.
func (g *Group) HandoffAfter() time.Duration { return time.Duration(g.handoffAfter.Load()) }

// A watchdog hands off the calls that hold its loop too long. Ticking
// (waking every d/2 to look at the loops) would be simple, but any
// periodic wake-up costs the loops: measured on a 2-core virtual machine,
// a goroutine that sleeps 0.5 ms at a time slows a loopback round trip
// from 19 to 23 µs. So the watchdog sleeps in the netpoller on a timer of
// the kernel's (timerfd), which the loop arms at the start of each batch
// to expire after d/2; re-arming is a system call (1.5 µs there), so the
// loop re-arms only once d/4 has passed since it last did, and the timer
// fires between d/4 and d/2 after the batch began. While batches come
// faster than that the timer never fires: a busy loop costs a clock read
// (30 ns) a batch and a system call per d/4, and a call the two atomic
// operations on loop.call that decide a handoff anyway (14 ns).
//
// A pending timer costs something of its own, though, where the CPUs go
// idle between requests: on that machine (a guest with HZ=250, NOHZ idle,
// the haltpoll idle governor) a loopback ping-pong round trip of 20 µs
// takes 1.3 to 1.8 µs more with d = 1 ms, whether the timer is the
// kernel's or the Go runtime's (waking every d/2: 2.4 µs), and nothing
// measurable once the expiry is past the next tick (an expiry of 5 ms, as
// with d = 10 ms). Re-arming a near timer at every batch costs 13 µs
// there, hence the d/4 limit.
//
// When the timer fires, the watchdog looks at the loop: if it is waiting
// for events (it sets batchAt to 0 before it polls) the watchdog goes to
// sleep until the loop's next batch arms the timer; else it looks again
// every d/4 (arming the timer itself), and hands off a call that it sees
// running at two looks in a row once the loop has been in its batch for
// 3/4 d. (Not any call of a batch that old: a batch of many short calls —
// 50 clients pipelining 16 scripts each is 1.6 ms of them — then handed
// off one short call after another, each costing a goroutine and a
// thread, and EVALSHA -P 16 ran at a third of Redis's rate.) A loop that
// has made no call since the last look is not idle: on a loaded machine
// its thread may lose its processor between arming the timer and the
// batch's first call, and that call must not then run unwatched. The watchdog's sleep
// and the loop's next batch are ordered like a lock handshake: the
// watchdog sets asleep and then reads batchAt, the loop stores batchAt
// and then reads asleep, so one of them sees the other, and the batch
// arms the timer (the loop's d/4 rule alone cannot tell: the batch's
// clock may have been read before the look). It reads no clock of the
// calls': the batch's start is the clock read the loop makes anyway,
// published (batchAt), and a handoff starts the rest of the batch afresh.
// Measuring from the batch, not from the watchdog's first sight of the
// call, matters when the processors are busy: each look may wait for one
// (on a loaded 2-core machine under the race detector, tens of
// milliseconds), and that wait counts toward d instead of restarting it,
// so a stalled call is usually handed off at the second look.
type watchdog struct {
	l     *loop
	f     *os.File // the loop's timerfd, in the netpoller
	rc    syscall.RawConn
	done  chan struct{}
	ticks atomic.Int64 // times the timer woke the watchdog, for the tests
}

const (
	clockMonotonic = 1                     // CLOCK_MONOTONIC
	minTimer       = 10 * time.Microsecond // the shortest timer armed
)

// epoch is nanotime's origin.
var epoch = time.Now()

// nanotime returns the monotonic time since epoch (it reads no wall
// clock: about 30 ns against 55 for time.Now).
func nanotime() time.Duration { return time.Since(epoch) }

// setTimer arms the timerfd to expire once, after d.
func setTimer(fd int, d time.Duration) {
	var its struct{ interval, value syscall.Timespec }
	its.value = syscall.NsecToTimespec(int64(max(d, minTimer)))
	syscall.RawSyscall6(syscall.SYS_TIMERFD_SETTIME, uintptr(fd), 0, uintptr(unsafe.Pointer(&its)), 0, 0, 0)
}

// armWatchdog arms the loop's timer at the start of a batch (see
// watchdog).
func (l *loop) armWatchdog() {
	d := time.Duration(l.g.handoffAfter.Load())
	if d <= 0 {
		// Off: in a batch of unknown age, for when the watchdog is
		// turned on during it.
		l.batchAt.Store(batchLongAgo)
		return
	}
	now := nanotime()
	l.batchAt.Store(int64(now))
	if now-l.armedAt >= d/4 || l.asleep.Load() {
		l.asleep.Store(false)
		l.armedAt = now
		setTimer(l.timerfd, d/2) // the loop serves: the descriptor is open
	}
}

// batchLongAgo is batchAt for a batch of unknown start: a new loop's
// first tasks, which it runs before it first polls.
const batchLongAgo = 1

// pollWatchdog tells the watchdog that the loop is about to wait for
// events: it is idle until its next batch.
func (l *loop) pollWatchdog() { l.batchAt.Store(0) }

// startWatchdog starts l's watchdog, which takes l.timerfd over.
func startWatchdog(l *loop) *watchdog {
	wd := &watchdog{l: l, f: os.NewFile(uintptr(l.timerfd), "eventloop-watchdog"), done: make(chan struct{})}
	rc, err := wd.f.SyscallConn()
	if err != nil {
		panic("eventloop: timerfd: " + err.Error()) // an *os.File always has one
	}
	wd.rc = rc
	go wd.run()
	return wd
}

// arm arms the timer from any goroutine; once the watchdog has stopped it
// does nothing.
func (wd *watchdog) arm(d time.Duration) {
	wd.rc.Control(func(fd uintptr) { setTimer(int(fd), d) })
}

// stop stops the watchdog and closes its timer; the loop must have
// stopped (it arms the timer by its number).
func (wd *watchdog) stop() {
	wd.f.Close()
	<-wd.done
}

func (wd *watchdog) run() {
	defer close(wd.done)
	l := wd.l
	var buf [8]byte
	var seen uint64  // the call word at the last look
	var asked uint64 // the last call asked to yield
	for {
		if _, err := wd.f.Read(buf[:]); err != nil {
			return // closed
		}
		wd.ticks.Add(1)
		d := time.Duration(l.g.handoffAfter.Load())
		if d <= 0 {
			continue // off: the loop arms no timer
		}
		// The call word is read first: a call seen running began after
		// the batchAt read below was stored, so the batch's age bounds
		// the call's from above.
		call := l.call.Load()
		at := l.batchAt.Load()
		if age := nanotime() - time.Duration(at); call&1 != 0 && age >= d/2 {
			if call == seen && call == asked && age >= d*3/4 {
				// The call has run since the last look, was asked to
				// yield then, and the loop has been away for 3/4 d.
				l.preempt(call >> 1)
			} else {
				// A call seen once may be one of a long batch's short
				// ones, or a pipeline of short commands: it is asked
				// to give the loop back at its next command
				// (Conn.Yield), which costs a task where a handoff
				// costs a thread and leaves whatever the command
				// holds held (a lock other clients then queue for).
				l.yield.Store(call)
				asked = call
			}
		} else if call&1 == 0 && at == 0 {
			// Waiting for events: sleep until the next batch arms the
			// timer, unless one has begun meanwhile (see watchdog).
			l.asleep.Store(true)
			if l.batchAt.Load() == 0 {
				continue
			}
			l.asleep.Store(false)
		}
		seen = call
		wd.arm(d / 4)
	}
}

// Debug describes the loops' handoff state in one line, for a test that
// failed to say why: each loop's call word (the number of its last call,
// and "+" while it runs), its watchdog's ticks, then the group's handoffs
// and the calls in flight.
func (g *Group) Debug() string {
	var b strings.Builder
	for i, l := range g.loops {
		call := l.call.Load()
		run := ""
		if call&1 != 0 {
			run = "+"
		}
		fmt.Fprintf(&b, "loop %d: call %d%s, %d ticks; ", i, call>>1, run, l.wd.ticks.Load())
	}
	fmt.Fprintf(&b, "handoffs %d, in flight %d, handoff after %v", g.handoffs.Load(), g.inFlight.Load(), g.HandoffAfter())
	return b.String()
}
