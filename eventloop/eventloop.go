//go:build linux

// Package eventloop runs many TCP connections on a few epoll loops, one
// OS thread each, as Redis runs its clients on its event loop.
//
// Why not a goroutine per connection: for small requests the server's cost
// is dominated by the network round trip, and Go's netpoller adds to each
// one a failed read (EAGAIN), a park, a wake-up of another thread and a
// goroutine switch. A loop that waits in epoll_wait itself reads only
// sockets that are readable and runs their commands on the thread that is
// already awake. See docs/architecture.md.
//
// # Handler calls
//
// A loop makes handler calls for its connections one at a time: OnReadable,
// the tasks of Conn.Invoke and OnClose. The calls for one connection are
// never concurrent, not even across a handoff: OnReadable, Invoke tasks for
// c and OnClose(c) never run at the same time as each other, and after a
// handoff the handler is called again once its call returns.
//
// A call that takes long would hold up every other connection of its loop,
// so the loop can be handed off: another goroutine (on another thread)
// takes over the loop with the rest of its batch of events and tasks, and
// the call goes on, "in flight", on its own goroutine, which stops serving
// the loop once the call returns. A handler may ask for that itself
// (Conn.Handoff), and with Group.SetHandoffAfter a watchdog does it for any
// call that has run longer than the set time, without the handler's
// cooperation. While c's call is in flight the loop defers everything for
// c: its socket's events are remembered, its Invoke tasks wait in order,
// and a close (Conn.Close, a failed write) waits too. When the call
// returns, the loop takes c back: it goes on as after any call (closing c
// if OnReadable returned false), runs the deferred tasks in order, then
// calls OnReadable (always: the handler reads until ErrWouldBlock, and may
// go on with input it had buffered), which also notices a deferred close.
//
// A call in flight keeps its OS thread until it returns (the loop's
// goroutine is locked to its thread): a handler blocked for long holds a
// thread, and a new thread serves the loop meanwhile. Handing off needs a
// free processor (GOMAXPROCS above the number of busy loops) for the
// watchdog and the new goroutine to run on.
//
// OnBatchEnd is not a connection's call: it runs on the loop and is never
// handed off (the loop waits for it, as Redis's waits for its fsync).
//
// Conn.Write and Conn.Close may be called from any goroutine.
package eventloop

import (
	"errors"
	"io"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// ErrWouldBlock is returned by Conn.Read when no data is available now.
var ErrWouldBlock = errors.New("eventloop: would block")

// Handler receives the events of connections. OnReadable(c), the tasks of
// c.Invoke and OnClose(c) are never concurrent; after a handoff (see
// Conn.Handoff and Group.SetHandoffAfter) the handler is called again
// (OnReadable) once its call returns.
type Handler interface {
	// OnReadable is called when c has input (or was closed by the peer),
	// and after a handed-off call for c has returned: the handler reads
	// until ErrWouldBlock, io.EOF or another error. It returns false to
	// have the connection closed. It is called even while c has output
	// pending — like Redis, the loop keeps reading, since a client may
	// write a whole pipeline before reading any reply. A handler that
	// wants back-pressure may stop early while output is pending:
	// OnReadable is then called again once that output has drained.
	OnReadable(c *Conn) bool
	// OnClose is called once, after the connection is closed, as a
	// handler call for c (after any call for c in flight has returned).
	OnClose(c *Conn)
}

// BatchEnder is implemented by a Handler that decides when the output
// held with Conn.Hold is sent: OnBatchEnd is called on the loop once the
// batch of events and tasks that held output is done, with that output;
// the handler calls Batch.Release, at once or later from any goroutine,
// and the loop goes on meanwhile. (Redis writes its append-only file
// there, before any reply of the event-loop iteration goes out.) Without
// a BatchEnder, held output is released at the end of each batch.
type BatchEnder interface {
	OnBatchEnd(b *Batch)
}

// Batch is the output held during one batch of a loop. The batches of a
// loop must be released in the order they were handed out.
type Batch struct {
	conns []*Conn
	ends  []int64 // each connection's heldTotal at the end of the batch
}

// Release writes the output the batch held, and output written (Write)
// after it while no later Hold came; it may be called from any goroutine,
// once.
func (b *Batch) Release() {
	for i, c := range b.conns {
		c.wmu.Lock()
		if n := b.ends[i] - c.heldDone; n > 0 {
			c.releaseHeld(int(n))
		}
		if c.holdEnd <= c.heldDone {
			// No later Hold: what follows came from Write.
			c.releaseHeld(c.held.bytes)
			c.holding = false
		}
		c.wmu.Unlock()
	}
}

// releaseHeld sends the first n bytes of the held output: they join the
// pending output (its blocks move, without a copy) and the socket takes
// what it can. The caller holds wmu.
func (c *Conn) releaseHeld(n int) {
	if n == 0 {
		return
	}
	c.heldDone += int64(n)
	n = min(n, c.held.bytes) // what close released is gone
	if n == 0 {
		return
	}
	if c.fd < 0 {
		// Closed: close dropped the held output, which a batch handed
		// out before may still name.
		c.held.consume(n)
		return
	}
	wasEmpty := c.pending.bytes == 0
	c.held.moveTo(&c.pending, n)
	if wasEmpty {
		c.flushPending()
	}
}

// Group is a set of loops sharing the connections handed to it.
type Group struct {
	loops   []*loop
	next    atomic.Uint32
	handler Handler
	closed  atomic.Bool
	wg      sync.WaitGroup
	maxSpin atomic.Int64 // a time.Duration: see SetMaxSpin
	// handoffAfter is a time.Duration: see SetHandoffAfter.
	handoffAfter atomic.Int64
	// handoffs counts the calls handed off, by Conn.Handoff or a
	// watchdog; inFlight those still running (each keeps an OS thread).
	handoffs atomic.Int64
	inFlight atomic.Int32
}

// maxInFlight bounds the handed-off calls of a group that run at once:
// each keeps its OS thread, and Go ends the process past 10,000 threads.
// Past it a long call keeps its loop (as every call does in Redis) until
// one of those in flight returns. A variable for the tests.
var maxInFlight int32 = 4096

// SetMaxSpin sets how long a loop may poll for events before it blocks
// (0, the default: never; see runState.poll). It may be called at any
// time.
func (g *Group) SetMaxSpin(d time.Duration) { g.maxSpin.Store(int64(max(d, 0))) }

// MaxSpin returns what SetMaxSpin set.
func (g *Group) MaxSpin() time.Duration { return time.Duration(g.maxSpin.Load()) }

type loop struct {
	g      *Group
	id     uint32 // the loop's number in its group, from 1
	epfd   int
	wakefd int // eventfd: wakes the loop for Invoke and Close
	// timerfd wakes the loop's watchdog (see watchdog.go), which owns it;
	// the loop arms it while it serves.
	timerfd int
	wd      *watchdog
	mu      sync.Mutex
	tasks   []task
	// woken (under mu): the eventfd was written since the loop last took
	// its tasks, or the loop runs its tasks and looks for more before it
	// polls (moreTasks), so a further Invoke need not write it (PUBLISH
	// queues a task per subscriber).
	woken bool
	// stopped is set (under mu) when the loop has stopped serving: its
	// wakefd is closed (the number may belong to another file by now),
	// and Invoke runs tasks on the goroutine that calls it, one caller
	// at a time (running, under mu, says one is draining tasks).
	stopped bool
	running bool

	// The loop's own state, below, belongs to the goroutine serving the
	// loop, and to no one else: not to the goroutine of a call in flight.
	// While a call runs the serving goroutine touches none of it, so the
	// winner of a handoff (preempt, on the watchdog's goroutine or the
	// call's) may, until it starts the next serving goroutine. Once the
	// loop has stopped it belongs to whoever runs its tasks (Invoke).
	conns map[int]*Conn
	// cur is the serving goroutine's position in its batch; nil once the
	// loop has stopped (calls are then never handed off).
	cur *runState
	seq uint64 // the number of the last call begun
	// flying counts the connections whose handed-off call has not come
	// back; down is set when the loop stops; epollClosed once epfd is
	// closed, when both hold (a call in flight may still arm EPOLLOUT).
	flying      int
	down        bool
	epollClosed bool
	armedAt     time.Duration // when the loop last armed timerfd (nanotime)

	// held lists the connections with output held until the batch ends
	// (Conn.Hold); guarded by heldMu, as are the connections' inBatch.
	heldMu sync.Mutex
	held   []*Conn

	_ [64]byte
	// call is seq<<1|1 while call number seq runs on the serving
	// goroutine, seq<<1 otherwise. Ending a call and handing it off are
	// compare-and-swaps from seq<<1|1: the first wins.
	call atomic.Uint64
	// batchAt is when the loop's current batch began (nanotime), or when
	// a handoff gave the rest of it to a new goroutine: the watchdog
	// measures how long the loop has been away from its connections by
	// it; 0 while the loop waits for events. Written by the serving
	// goroutine (and preempt's winner).
	batchAt atomic.Int64
	// yield is the call word (seq<<1|1) of a call the watchdog asked to
	// give the loop back at its next convenient point (Conn.Yield).
	yield atomic.Uint64
	// asleep is set by the watchdog when it stops looking until the
	// loop's next batch arms the timer (see watchdog).
	asleep atomic.Bool
	_      [36]byte
}

// task is a function queued with Invoke: a loop's task (c nil) or a
// connection's (Conn.Invoke), which is a handler call for c.
type task struct {
	c  *Conn
	fn func()
}

// runState is one serving goroutine's position in its batch of events and
// tasks, so that a handoff can pass on what is left.
type runState struct {
	events  []syscall.EpollEvent
	n, i    int // events[i] is being handled; those after it wait
	tasks   []task
	ti      int           // tasks[ti] is running
	inTasks bool          // running tasks rather than events
	rounds  int           // task lists taken since the last poll
	spin    time.Duration // how long poll polls before it blocks
	// conn is the connection of the call running.
	conn *Conn
	// retired is set, by the goroutine itself, when its call was handed
	// off: it stops serving the loop as soon as the call has returned.
	retired bool
}

// ErrClosed is returned by Add when the group is closed.
var ErrClosed = errors.New("eventloop: group closed")

// New starts n loops (n <= 0: one per GOMAXPROCS).
func New(n int, h Handler) (*Group, error) {
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	g := &Group{handler: h}
	fail := func(err error) (*Group, error) {
		for _, l := range g.loops { // none is running yet
			syscall.Close(l.epfd)
			syscall.Close(l.wakefd)
			syscall.Close(l.timerfd)
		}
		return nil, err
	}
	for i := 0; i < n; i++ {
		epfd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
		if err != nil {
			return fail(err)
		}
		wfd, _, errno := syscall.Syscall(syscall.SYS_EVENTFD2, 0, syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		if errno != 0 {
			syscall.Close(epfd)
			return fail(errno)
		}
		tfd, _, errno := syscall.RawSyscall(syscall.SYS_TIMERFD_CREATE, clockMonotonic, syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		if errno != 0 {
			syscall.Close(epfd)
			syscall.Close(int(wfd))
			return fail(errno)
		}
		l := &loop{g: g, id: uint32(len(g.loops) + 1), epfd: epfd, wakefd: int(wfd), timerfd: int(tfd), conns: make(map[int]*Conn)}
		l.batchAt.Store(batchLongAgo)
		g.loops = append(g.loops, l)
		ev := syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(wfd)}
		if err := syscall.EpollCtl(epfd, syscall.EPOLL_CTL_ADD, int(wfd), &ev); err != nil {
			return fail(err)
		}
	}
	for _, l := range g.loops {
		l.wd = startWatchdog(l)
		g.wg.Add(1)
		go l.run()
	}
	return g, nil
}

// Add takes over a TCP connection: the net.Conn is closed and its socket
// (duplicated) is served by one of the loops. setup runs before the loop
// sees the connection (it typically sets Conn.Context).
func (g *Group) Add(nc net.Conn, setup func(*Conn)) error {
	if g.closed.Load() {
		return ErrClosed
	}
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return errors.New("eventloop: not a socket")
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return err
	}
	fd := -1
	var dupErr error
	rc.Control(func(s uintptr) {
		fd, dupErr = syscall.Dup(int(s))
	})
	if dupErr != nil {
		return dupErr
	}
	c := &Conn{fd: fd, fdNum: fd, remote: nc.RemoteAddr(), local: nc.LocalAddr()}
	nc.Close()
	syscall.CloseOnExec(fd)
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return err
	}
	l := g.loops[int(g.next.Add(1))%len(g.loops)]
	c.loop = l
	setup(c)
	l.Invoke(func() {
		if g.closed.Load() || l.isStopped() {
			l.drop(c)
			return
		}
		l.conns[fd] = c
		// Under wmu, so that a Write from another goroutine that queued
		// output before the registration (its EPOLL_CTL_MOD failed) is
		// seen here and EPOLLOUT asked for.
		c.wmu.Lock()
		c.events = syscall.EPOLLIN | syscall.EPOLLRDHUP
		if c.pending.bytes > 0 {
			c.events |= syscall.EPOLLOUT
		}
		ev := syscall.EpollEvent{Events: c.events | epollET, Fd: int32(fd)}
		err := syscall.EpollCtl(l.epfd, syscall.EPOLL_CTL_ADD, fd, &ev)
		c.wmu.Unlock()
		if err != nil {
			l.drop(c)
			return
		}
		// Data may have arrived before registration; edge-triggered
		// epoll would not report it, so read once now.
		l.readable(c)
	})
	return nil
}

// Close stops the loops and closes every connection (each gets OnClose).
// A connection whose Add races with Close gets its OnClose on the goroutine
// that called Add, possibly after Close has returned. Close waits for the
// calls in flight to return.
func (g *Group) Close() {
	if !g.closed.CompareAndSwap(false, true) {
		return
	}
	for _, l := range g.loops {
		l.wake()
	}
	g.wg.Wait()
	for _, l := range g.loops {
		l.wd.stop() // no loop arms its timer any more
	}
}

// Invoke runs fn on the loop's thread, after the events being handled: a
// task of the loop's own, never handed off (its handler calls may be).
// Once the loop has stopped (Group.Close), fn runs on the calling
// goroutine instead, never at the same time as another task.
func (l *loop) Invoke(fn func()) { l.invoke(task{fn: fn}) }

func (l *loop) invoke(t task) {
	l.mu.Lock()
	l.tasks = append(l.tasks, t)
	if !l.stopped {
		if !l.woken {
			l.woken = true
			l.wakeLocked()
		}
		l.mu.Unlock()
		return
	}
	if l.running { // another goroutine drains the tasks: it runs t too
		l.mu.Unlock()
		return
	}
	l.running = true
	l.mu.Unlock()
	l.drainStopped()
}

// runTask runs a task on the loop.
func (l *loop) runTask(t task) {
	if t.c != nil {
		l.connTask(t.c, t.fn)
	} else {
		t.fn()
	}
}

// drainStopped runs the tasks of a stopped loop until none is left; the
// caller set running.
func (l *loop) drainStopped() {
	for {
		l.mu.Lock()
		tasks := l.tasks
		l.tasks = nil
		if len(tasks) == 0 {
			l.running = false
			l.mu.Unlock()
			return
		}
		l.mu.Unlock()
		for _, t := range tasks {
			l.runTask(t)
		}
	}
}

// maxTaskRounds bounds how many times the loop takes its task list again
// before it polls (see moreTasks).
const maxTaskRounds = 64

// moreTasks reports whether the loop should run the tasks queued while it
// ran its last list before it polls. A task often queues the next one: a
// command that releases a lock grants it to a client parked on the same
// loop, which resumes in a task (park.go in the server). Polling between
// the two would let the loop's other clients see the lock still queued
// and park behind it, one after the other: a convoy that a single
// handed-off writer of a busy lock kept going for as long as the load
// lasted. Running the grants at once empties the queue before the loop
// reads more requests. The rounds are bounded so that a chain of tasks
// cannot keep the loop from its connections; past the bound, the loop
// wakes itself and polls; so does a loop whose batch has taken the
// handoff time (a call that yielded queues a task).
func (l *loop) moreTasks(st *runState) bool {
	st.rounds++
	d := time.Duration(l.g.handoffAfter.Load())
	late := d > 0 && nanotime()-time.Duration(l.batchAt.Load()) >= d
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case len(l.tasks) == 0:
		l.woken = false
		return false
	case st.rounds >= maxTaskRounds || late:
		if !l.stopped {
			l.wakeLocked() // woken stays set: the eventfd is written
		}
		return false
	}
	return true
}

func (l *loop) isStopped() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stopped
}

func (l *loop) wake() {
	l.mu.Lock()
	if !l.stopped {
		l.wakeLocked()
	}
	l.mu.Unlock()
}

// wakeLocked writes to the eventfd; the caller holds mu and checked that
// the loop has not stopped (after which the descriptor is closed).
func (l *loop) wakeLocked() {
	one := uint64(1)
	syscall.Write(l.wakefd, (*[8]byte)(unsafe.Pointer(&one))[:])
}

const (
	epollET     = 1 << 31 // EPOLLET, as an unsigned bit
	hupEvents   = syscall.EPOLLRDHUP | syscall.EPOLLHUP | syscall.EPOLLERR
	inputEvents = syscall.EPOLLIN | hupEvents
)

// poll waits for events, as epoll_wait. When the recent gaps between
// events were short (under maxSpin), it first polls for up to twice the
// last gap with a zero timeout, so that the thread stays awake: a blocked
// thread costs a sleep, a wake-up (an interrupt to an idle processor,
// expensive in a virtual machine) and a context switch, about as much as
// serving a small request. A gap of maxSpin or more turns the polling off
// until gaps are short again, so a loop that is not busy blocks at once
// and costs nothing while idle.
func (st *runState) poll(epfd int, maxSpin time.Duration) (int, error) {
	if maxSpin <= 0 {
		st.spin = 0
		return syscall.EpollWait(epfd, st.events, -1)
	}
	start := time.Now()
	if st.spin = min(st.spin, maxSpin); st.spin > 0 {
		for {
			r, _, errno := syscall.RawSyscall6(syscall.SYS_EPOLL_PWAIT, uintptr(epfd),
				uintptr(unsafe.Pointer(&st.events[0])), uintptr(len(st.events)), 0, 0, 0)
			if errno == 0 && r > 0 {
				return int(r), nil
			}
			if time.Since(start) >= st.spin {
				break
			}
		}
	}
	n, err := syscall.EpollWait(epfd, st.events, -1)
	if gap := time.Since(start); gap < maxSpin {
		st.spin = min(2*gap, maxSpin)
	} else {
		st.spin = 0
	}
	return n, err
}

func (l *loop) run() {
	l.cur = &runState{events: make([]syscall.EpollEvent, 256)}
	l.serve(l.cur)
}

// serve runs the loop on the calling goroutine from st's position until
// the group closes or a call is handed off (the goroutine then stops once
// the call has returned; another goroutine serves the loop from there).
func (l *loop) serve(st *runState) {
	defer l.g.wg.Done()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for {
		for ; st.i < st.n; st.i++ {
			ev := &st.events[st.i]
			fd := int(ev.Fd)
			if fd == l.wakefd {
				var buf [8]byte
				syscall.Read(l.wakefd, buf[:])
				continue
			}
			if c := l.conns[fd]; c != nil {
				l.event(c, ev.Events)
				if st.retired {
					return
				}
			}
		}
		for more := true; more; {
			if !st.inTasks {
				l.mu.Lock()
				st.tasks, l.tasks = l.tasks, st.tasks[:0]
				// An Invoke meanwhile need not wake the loop: it
				// looks for more tasks below before it polls.
				l.woken = true
				l.mu.Unlock()
				st.ti, st.inTasks = 0, true
			}
			for ; st.ti < len(st.tasks); st.ti++ {
				t := st.tasks[st.ti]
				st.tasks[st.ti] = task{}
				l.runTask(t)
				if st.retired {
					return
				}
			}
			st.inTasks = false
			more = l.moreTasks(st)
		}
		st.rounds = 0
		l.endBatch()
		if l.g.closed.Load() {
			break
		}
		l.pollWatchdog()
		n, err := st.poll(l.epfd, time.Duration(l.g.maxSpin.Load()))
		if err != nil && err != syscall.EINTR {
			break
		}
		st.n, st.i = max(n, 0), 0
		l.armWatchdog()
	}
	l.stop()
}

// stop stops the loop. From now on tasks run in Invoke's caller (after the
// ones queued until now, which run here): an Add's registration sees the
// loop stopped and drops its connection, and so does a call in flight
// when it comes back.
func (l *loop) stop() {
	l.cur = nil
	l.mu.Lock()
	l.stopped = true
	l.running = true
	l.mu.Unlock()
	syscall.Close(l.wakefd)
	l.down = true
	for _, c := range l.conns {
		l.drop(c) // not those in flight: their turn comes with comeBack
	}
	l.closeEpoll()
	l.drainStopped()
}

// closeEpoll closes the epoll descriptor once the loop has stopped and
// no call is in flight.
func (l *loop) closeEpoll() {
	if l.down && l.flying == 0 && !l.epollClosed {
		l.epollClosed = true
		syscall.Close(l.epfd)
	}
}

// endBatch hands the output held during the batch to the handler's
// OnBatchEnd, or releases it.
func (l *loop) endBatch() {
	l.heldMu.Lock()
	held := l.held
	l.held = nil
	for _, c := range held {
		c.inBatch = false
	}
	l.heldMu.Unlock()
	if len(held) == 0 {
		return
	}
	b := &Batch{conns: held, ends: make([]int64, len(held))}
	for i, c := range held {
		c.wmu.Lock()
		b.ends[i] = c.heldTotal
		c.wmu.Unlock()
	}
	if be, ok := l.g.handler.(BatchEnder); ok {
		be.OnBatchEnd(b)
	} else {
		b.Release()
	}
}

// The functions below that make handler calls (event, readable, drop,
// writable, connTask, comeBack) report whether the calling goroutine
// still serves the loop: false when a call was handed off, after which the
// caller returns at once, touching nothing of the loop's.

// event handles the epoll events ev of c, or defers them while c is in
// flight.
func (l *loop) event(c *Conn, ev uint32) bool {
	if c.flight {
		if ev&syscall.EPOLLOUT != 0 {
			// Output can go on (under wmu, as the call's own writes).
			if drained, _ := c.sendPending(); drained {
				ev &^= syscall.EPOLLOUT
			} // else comeBack's writable goes on, or closes c
		}
		c.mask |= ev
		return true
	}
	if ev&syscall.EPOLLOUT != 0 {
		if !l.writable(c) {
			return false
		}
		if c.dropped {
			return true
		}
	}
	if ev&inputEvents != 0 {
		if ev&hupEvents != 0 {
			c.hup = true // read on to the end of the stream
		}
		c.drained = false // input came after the last read
		return l.readable(c)
	}
	return true
}

// begin starts a handler call for c on the loop: it returns the serving
// goroutine's state and the call's number (nil and 0 once the loop has
// stopped: the call cannot be handed off).
func (l *loop) begin(c *Conn) (*runState, uint64) {
	st := l.cur
	if st == nil {
		c.callSeq = 0
		return nil, 0
	}
	l.seq++
	seq := l.seq // once the call has begun, the loop may be another's
	st.conn = c
	c.callSeq = seq
	l.call.Store(seq<<1 | 1)
	return st, seq
}

// end ends call seq, begun on st for c; ok is what the call returned
// (OnReadable's result; true for the other calls). When the call was
// handed off it gives c back to the loop, through its tasks, and returns
// false: the goroutine is no longer the loop's.
func (l *loop) end(st *runState, seq uint64, c *Conn, ok bool) bool {
	if seq == 0 || l.call.CompareAndSwap(seq<<1|1, seq<<1) {
		return true
	}
	st.retired = true
	l.Invoke(func() { l.comeBack(c, ok) })
	return false
}

// preempt hands the loop to a new goroutine if call seq is still running
// on it: the loop's watchdog's doing, or Conn.Handoff's (then on the
// call's own goroutine). The call's connection is in flight from then on,
// and the new goroutine starts with the rest of the batch: the events
// after the one being handled, or the tasks after the one running.
func (l *loop) preempt(seq uint64) bool {
	if l.g.inFlight.Load() >= maxInFlight {
		return false // too many threads in long calls: this one keeps its loop
	}
	if !l.call.CompareAndSwap(seq<<1|1, seq<<1) {
		return false // the call has returned (or was handed off already)
	}
	l.g.inFlight.Add(1)
	// The loop's state is ours until the new goroutine starts: the
	// serving goroutine is in the call, and stays out of it from now on.
	st := l.cur
	c := st.conn
	c.flight = true
	l.flying++
	next := &runState{events: make([]syscall.EpollEvent, len(st.events)), spin: st.spin}
	if st.inTasks {
		next.tasks = append(next.tasks, st.tasks[st.ti+1:]...)
		next.inTasks = true
	} else if st.i < st.n {
		if ev := st.events[st.i]; int(ev.Fd) == c.fdNum {
			// What is left of c's event (its input, after its output)
			// waits for comeBack, with the end of the stream if it came.
			c.mask |= ev.Events &^ syscall.EPOLLOUT
		}
		next.n = copy(next.events, st.events[st.i+1:st.n])
	}
	l.cur = next
	l.batchAt.Store(int64(nanotime())) // the rest of the batch starts now
	l.g.handoffs.Add(1)
	l.g.wg.Add(1)
	go l.serve(next)
	return true
}

// comeBack takes c back once its handed-off call has returned (ok: what
// the call returned). The loop goes on as it would have after the call,
// then with what was deferred meanwhile: c's tasks in order, then
// OnReadable with the events that came (a close shows there).
func (l *loop) comeBack(c *Conn, ok bool) bool {
	c.flight = false
	l.flying--
	l.g.inFlight.Add(-1)
	if !ok || l.down {
		if !l.drop(c) {
			return false
		}
	}
	for len(c.deferred) > 0 {
		fn := c.deferred[0]
		c.deferred[0] = nil
		c.deferred = c.deferred[1:]
		if !l.connTask(c, fn) {
			return false // in flight again: the rest waits for its return
		}
	}
	c.deferred = nil
	if l.down {
		l.closeEpoll()
		return true
	}
	if c.dropped {
		return true
	}
	ev := c.mask | syscall.EPOLLIN
	c.mask = 0
	c.pendingRead = false // OnReadable is called anyway
	return l.event(c, ev)
}

// readable lets the handler consume c's input.
func (l *loop) readable(c *Conn) bool {
	if c.closed.Load() {
		return l.drop(c)
	}
	st, seq := l.begin(c)
	ok := l.g.handler.OnReadable(c)
	if !l.end(st, seq, c, ok) {
		return false
	}
	if !ok || c.closed.Load() {
		return l.drop(c)
	}
	if c.blockedOnOutput() {
		// The handler may have left input unread behind the output;
		// edge-triggered epoll would not report it again.
		c.pendingRead = true
	}
	return true
}

// connTask runs fn, a task of Conn.Invoke, as a handler call for c, or
// queues it on c while c is in flight.
func (l *loop) connTask(c *Conn, fn func()) bool {
	if c.flight {
		c.deferred = append(c.deferred, fn)
		return true
	}
	st, seq := l.begin(c)
	fn()
	return l.end(st, seq, c, true)
}

// drop closes c on its loop and tells the handler, once. While c is in
// flight it waits: the close (Conn.Close set c.closed) shows when c comes
// back.
func (l *loop) drop(c *Conn) bool {
	if c.dropped || c.flight {
		return true
	}
	c.dropped = true
	if l.conns[c.fd] == c {
		delete(l.conns, c.fd)
		syscall.EpollCtl(l.epfd, syscall.EPOLL_CTL_DEL, c.fd, nil)
	}
	c.close()
	st, seq := l.begin(c)
	l.g.handler.OnClose(c)
	return l.end(st, seq, c, true)
}

// Conn is one connection served by a loop.
type Conn struct {
	fd            int // -1 once closed; guarded by wmu after Add
	fdNum         int // fd as added, for display
	loop          *loop
	remote, local net.Addr
	// Context is the handler's state for the connection.
	Context any

	closed atomic.Bool

	// Owned by the loop (see loop): never touched by the loop while c is
	// in flight, except flight, mask and deferred, which say so.
	dropped     bool
	pendingRead bool // input arrived while output was backed up
	hup         bool // the peer shut down its side (or the socket failed)
	events      uint32
	flight      bool     // a handed-off call for c has not returned yet
	mask        uint32   // epoll events deferred while in flight
	deferred    []func() // Conn.Invoke tasks deferred while in flight

	// Owned by the goroutine running c's calls (the loop's, or the one of
	// c's call in flight). callSeq is the number of c's current (or last)
	// call, set by begin; 0: a call that cannot be handed off.
	drained bool // the last read emptied the socket
	callSeq uint64

	wmu     sync.Mutex
	pending outQueue // output the socket did not take yet; guarded by wmu
	// held is output held until its batch is released (Hold); holding
	// says there is some. heldTotal counts the bytes ever added to it,
	// heldDone those released, holdEnd heldTotal after the last Hold.
	// Guarded by wmu.
	held                         outQueue
	holding                      bool
	heldTotal, heldDone, holdEnd int64
	// onDrain runs, as a task for c, once the pending output is all
	// sent (OnDrain). Guarded by wmu.
	onDrain func()
	// inBatch: the connection is in its loop's current batch (guarded by
	// the loop's heldMu).
	inBatch bool
}

// RemoteAddr returns the peer's address.
func (c *Conn) RemoteAddr() net.Addr { return c.remote }

// Invoke runs fn on the connection's loop (after the events being
// handled), one at a time with the handler's calls for the connection: it
// is a handler call for c (it may be handed off, and while another call
// for c is in flight it waits for that call to return). Tasks for c run in
// the order of their Invoke calls, even after c is closed. It may be
// called from any goroutine.
func (c *Conn) Invoke(fn func()) { c.loop.invoke(task{c, fn}) }

// Yield is called by c's OnReadable between two units of its work (the
// commands of a pipeline): it reports whether the loop's watchdog asked
// the call to give the loop back, because the loop has been away from its
// other connections for most of the handoff time (Group.SetHandoffAfter)
// while this call ran. If so, the loop calls OnReadable for c again after
// the events and tasks waiting now, as if more input had come, and the
// call should return at once (true), leaving the rest of its input
// buffered. Giving the loop back between commands costs a task, where a
// handoff in the middle of one costs a goroutine and leaves the loop's
// other connections waiting for whatever locks the command holds. A call
// that does not yield is handed off at the watchdog's next look. Yield
// reports false outside a call for c and once the call was handed off.
func (c *Conn) Yield() bool {
	seq := c.callSeq
	l := c.loop
	if seq == 0 || l.yield.Load() != seq<<1|1 || l.call.Load() != seq<<1|1 {
		return false
	}
	l.yield.Store(0)
	l.invoke(task{fn: func() {
		if !c.dropped && !c.flight {
			c.drained = false
			l.readable(c)
		}
	}})
	return true
}

// Handoff is called by a handler call for c (OnReadable, a Conn.Invoke
// task, OnClose) that is about to take long: another goroutine takes over
// the loop at once, with the events and tasks still waiting, and the
// call's goroutine stops serving the loop when the call returns. It is
// what the watchdog does by itself (Group.SetHandoffAfter). Meanwhile c's
// events and tasks wait (see the package doc), and once the call has
// returned the loop calls OnReadable for c again. Handoff has no effect
// when the call was handed off already, or outside a call for c.
func (c *Conn) Handoff() {
	if seq := c.callSeq; seq != 0 {
		c.loop.preempt(seq)
	}
}

// HandedOff reports whether the call for c that is running (that of the
// goroutine calling HandedOff) has been handed off, by Handoff or by the
// watchdog: the call no longer holds up the loop, and may stop early (the
// loop calls OnReadable for c again once it has returned). Only c's calls
// call it.
func (c *Conn) HandedOff() bool {
	seq := c.callSeq
	return seq != 0 && c.loop.call.Load() != seq<<1|1
}

// LocalAddr returns the local address.
func (c *Conn) LocalAddr() net.Addr { return c.local }

// Loop returns the number of the loop that serves c, from 1 (its handler
// calls run one at a time, on that loop's goroutine or one it handed off).
func (c *Conn) Loop() uint32 { return c.loop.id }

// Fd returns the socket's file descriptor number (as it was when the
// connection was added; safe from any goroutine).
func (c *Conn) Fd() int { return c.fdNum }

// Read reads available input without blocking: ErrWouldBlock when there is
// none, io.EOF when the peer closed. Only c's handler calls call it.
//
// A read that fills less than p empties the socket's receive queue: the
// next Read reports ErrWouldBlock without asking the kernel again (data
// that arrives later raises a new edge-triggered event), which saves a
// system call per batch of commands. Once the peer has shut its side
// down, reads go on to the end of the stream: the end came with the same
// event as the last data.
func (c *Conn) Read(p []byte) (int, error) {
	if c.drained && !c.hup {
		c.drained = false
		return 0, ErrWouldBlock
	}
	for {
		n, _, errno := syscall.RawSyscall(syscall.SYS_READ, uintptr(c.fd), uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)))
		switch {
		case errno == syscall.EINTR:
			continue
		case errno == syscall.EAGAIN:
			return 0, ErrWouldBlock
		case errno != 0:
			return 0, errno
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		c.drained = int(n) < len(p)
		return int(n), nil
	}
}

// Hold queues p (copied) to be written when the loop's current batch of
// events and tasks is released (see BatchEnder). Output written meanwhile
// (Write, from any goroutine) is queued behind it, so the order is kept.
// Only c's handler calls call it (a call in flight too: its output joins
// the batch the loop is in).
func (c *Conn) Hold(p []byte) {
	if c.closed.Load() {
		return
	}
	c.wmu.Lock()
	c.holding = true
	c.held.add(p)
	c.heldTotal += int64(len(p))
	c.holdEnd = c.heldTotal
	c.wmu.Unlock()
	l := c.loop
	l.heldMu.Lock()
	if !c.inBatch {
		c.inBatch = true
		l.held = append(l.held, c)
	}
	l.heldMu.Unlock()
}

// Flush writes the output held with Hold now, without waiting for its
// batch to be released: for a connection about to close, which would
// lose it (the caller made sure that what it answers is durable). Only
// the handler or a task running for c calls it.
func (c *Conn) Flush() {
	c.wmu.Lock()
	c.releaseHeld(c.held.bytes)
	c.holding = false
	c.wmu.Unlock()
}

// Write sends p, keeping what the socket does not take now and sending it
// when the socket drains; it never blocks on the peer. It may be called
// from any goroutine; writes are sent in call order.
func (c *Conn) Write(p []byte) (int, error) {
	if c.closed.Load() {
		return 0, net.ErrClosed
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.holding {
		c.held.add(p)
		c.heldTotal += int64(len(p))
		return len(p), nil
	}
	return c.writeLocked(p)
}

// writeLocked is Write; the caller holds wmu. What the socket does not
// take is copied once into the pending blocks.
func (c *Conn) writeLocked(p []byte) (int, error) {
	if c.pending.bytes > 0 {
		c.pending.add(p)
		return len(p), nil
	}
	written := 0
	for written < len(p) {
		b := p[written:]
		n, _, errno := syscall.RawSyscall(syscall.SYS_WRITE, uintptr(c.fd), uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
		switch errno {
		case 0:
			written += int(n)
			continue
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			c.pending.add(p[written:])
			c.armWrite(true)
			return len(p), nil
		default:
			return written, errno
		}
	}
	return written, nil
}

// Pending returns the bytes of output not yet taken by the socket.
func (c *Conn) Pending() int {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.pending.bytes
}

// OutputMem returns the memory of the output queued for the connection,
// held (Hold) or not taken by the socket yet, and the number of blocks
// it is kept in (Redis's omem and oll): a block counts its whole size,
// whatever of it is filled or sent. It takes no lock and may be called
// from any goroutine.
func (c *Conn) OutputMem() (mem, blocks int) {
	mem = int(c.pending.mem.Load() + c.held.mem.Load())
	blocks = int(c.pending.nblk.Load() + c.held.nblk.Load())
	return mem, blocks
}

func (c *Conn) blockedOnOutput() bool { return c.Pending() > 0 }

// OnDrain arranges for fn to run as a task for c (see Invoke) once the
// output queued for c, held or not taken by the socket yet, is all sent:
// a writer that feeds c from a source of its own, a little at a time,
// goes on then. It reports false, and arranges nothing, when no output is
// queued now (or c is closed). A later call replaces fn. It may be called
// from any goroutine.
func (c *Conn) OnDrain(fn func()) bool {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.fd < 0 || c.pending.bytes == 0 && c.held.bytes == 0 {
		return false
	}
	c.onDrain = fn
	return true
}

// armWrite asks (or stops asking) for EPOLLOUT. Caller holds wmu.
func (c *Conn) armWrite(on bool) {
	ev := uint32(syscall.EPOLLIN | syscall.EPOLLRDHUP)
	if on {
		ev |= syscall.EPOLLOUT
	}
	e := syscall.EpollEvent{Events: ev | epollET, Fd: int32(c.fd)}
	syscall.EpollCtl(c.loop.epfd, syscall.EPOLL_CTL_MOD, c.fd, &e)
}

// writable sends pending output; once it is all sent, input that waited
// for it is handled.
//
// A failed write (the peer reset the connection, or is gone) closes the
// connection: its output can never drain, and its input, held back behind
// that output, would never be read to notice the end.
func (l *loop) writable(c *Conn) bool {
	drained, broken := c.sendPending()
	if broken {
		return l.drop(c)
	}
	if drained && c.pendingRead {
		c.pendingRead = false
		return l.readable(c)
	}
	return true
}

// sendPending writes what it can of the pending output: it reports
// whether all of it is sent, and whether the socket failed.
func (c *Conn) sendPending() (drained, broken bool) {
	var fn func()
	c.wmu.Lock()
	if c.fd < 0 {
		c.wmu.Unlock()
		return true, false
	}
	errno := c.pending.send(c.fd)
	broken = errno != 0 && errno != syscall.EAGAIN
	drained = c.pending.bytes == 0
	if drained {
		c.armWrite(false)
		if c.held.bytes == 0 {
			fn, c.onDrain = c.onDrain, nil
		}
	}
	c.wmu.Unlock()
	if fn != nil {
		c.Invoke(fn)
	}
	return drained, broken
}

// flushPending sends the pending output that the socket takes now and
// asks for EPOLLOUT for the rest (a failed socket is noticed by the
// loop). The caller holds wmu and the socket is open.
func (c *Conn) flushPending() {
	if errno := c.pending.send(c.fd); errno != 0 || c.onDrain != nil {
		// With OnDrain's fn waiting, EPOLLOUT (at once if the socket took
		// everything) runs it from the loop.
		c.armWrite(true)
	}
}

// Close closes the connection. From another goroutine it shuts the socket
// down so that its loop notices and drops it (OnClose runs there, once no
// call for c is in flight).
func (c *Conn) Close() error {
	if c.closed.CompareAndSwap(false, true) {
		c.wmu.Lock()
		if c.fd >= 0 {
			syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
		}
		c.wmu.Unlock()
		c.loop.Invoke(func() { c.loop.drop(c) })
	}
	return nil
}

func (c *Conn) close() {
	c.closed.Store(true)
	c.wmu.Lock()
	if c.fd >= 0 {
		syscall.Close(c.fd)
		c.fd = -1
	}
	c.pending.clear()
	c.held.clear()
	c.onDrain = nil
	c.heldDone = c.heldTotal // nothing held is left for a batch to release
	c.wmu.Unlock()
}
