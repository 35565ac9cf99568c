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
// Contract: the Handler's OnReadable runs on the connection's loop, one
// connection at a time per loop; it must not block for long (waiting for a
// key lock held by a running command is fine, waiting for the network is
// not). Conn.Write and Conn.Close may be called from any goroutine.
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

// Handler receives the events of connections.
type Handler interface {
	// OnReadable is called when c has input (or was closed by the peer):
	// the handler reads until ErrWouldBlock, io.EOF or another error. It
	// returns false to have the connection closed. It is called even while
	// c has output pending — like Redis, the loop keeps reading, since a
	// client may write a whole pipeline before reading any reply. A handler
	// that wants back-pressure may stop early while output is pending:
	// OnReadable is then called again once that output has drained.
	OnReadable(c *Conn) bool
	// OnClose is called once, on the loop, after the connection is closed.
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
			c.releaseHeld(len(c.heldOut))
			c.holding = false
		}
		c.wmu.Unlock()
	}
}

// releaseHeld writes the first n bytes of the held output; the caller
// holds wmu.
func (c *Conn) releaseHeld(n int) {
	if c.fd >= 0 {
		c.writeLocked(c.heldOut[:n]) // copies what the socket does not take
	}
	c.heldDone += int64(n)
	c.heldOut = append(c.heldOut[:0], c.heldOut[n:]...)
	if len(c.heldOut) == 0 && cap(c.heldOut) > 64<<10 {
		c.heldOut = nil
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
}

// SetMaxSpin sets how long a loop may poll for events before it blocks
// (0, the default: never; see runState.poll). It may be called at any
// time.
func (g *Group) SetMaxSpin(d time.Duration) { g.maxSpin.Store(int64(max(d, 0))) }

// MaxSpin returns what SetMaxSpin set.
func (g *Group) MaxSpin() time.Duration { return time.Duration(g.maxSpin.Load()) }

type loop struct {
	g      *Group
	epfd   int
	wakefd int // eventfd: wakes the loop for Invoke and Close
	conns  map[int]*Conn
	mu     sync.Mutex
	tasks  []func()
	// woken (under mu): the eventfd was written since the loop last took
	// its tasks, so a further Invoke need not write it again (PUBLISH
	// queues a task per subscriber).
	woken bool
	// stopped is set (under mu) when the loop has stopped serving: its
	// wakefd is closed (the number may belong to another file by now),
	// and Invoke runs tasks on the goroutine that calls it, one caller
	// at a time (running, under mu, says one is draining tasks).
	stopped bool
	running bool
	// cur is the state of the goroutine serving the loop now; only that
	// goroutine reads or writes it (Conn.Handoff replaces it).
	cur *runState
	// held lists the connections with output held until the batch ends
	// (Conn.Hold); guarded by heldMu.
	heldMu sync.Mutex
	held   []*Conn
}

// runState is one serving goroutine's position in its batch of events and
// tasks, so that Handoff can pass on what is left.
type runState struct {
	events  []syscall.EpollEvent
	n, i    int // events[i] is being handled; those after it wait
	tasks   []func()
	ti      int           // tasks[ti] is running
	inTasks bool          // running tasks rather than events
	spin    time.Duration // how long poll polls before it blocks
	// retired is set by Handoff: the goroutine stops serving the loop once
	// the handler (or task) that called it returns.
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
		l := &loop{g: g, epfd: epfd, wakefd: int(wfd), conns: make(map[int]*Conn)}
		g.loops = append(g.loops, l)
		ev := syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(wfd)}
		if err := syscall.EpollCtl(epfd, syscall.EPOLL_CTL_ADD, int(wfd), &ev); err != nil {
			return fail(err)
		}
	}
	for _, l := range g.loops {
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
		if len(c.pending) > 0 {
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
// that called Add, possibly after Close has returned.
func (g *Group) Close() {
	if !g.closed.CompareAndSwap(false, true) {
		return
	}
	for _, l := range g.loops {
		l.wake()
	}
	g.wg.Wait()
}

// Invoke runs fn on the loop's thread, after the events being handled.
// Once the loop has stopped (Group.Close), fn runs on the calling
// goroutine instead, never at the same time as another task.
func (l *loop) Invoke(fn func()) {
	l.mu.Lock()
	l.tasks = append(l.tasks, fn)
	if !l.stopped {
		if !l.woken {
			l.woken = true
			l.wakeLocked()
		}
		l.mu.Unlock()
		return
	}
	if l.running { // another goroutine drains the tasks: it runs fn too
		l.mu.Unlock()
		return
	}
	l.running = true
	l.mu.Unlock()
	l.drainStopped()
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
		for _, fn := range tasks {
			fn()
		}
	}
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

const epollET = 1 << 31 // EPOLLET, as an unsigned bit

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
	l.serve(&runState{events: make([]syscall.EpollEvent, 256)})
}

// serve runs the loop on the calling goroutine from st's position until
// the group closes or a handler hands the loop off to another goroutine.
func (l *loop) serve(st *runState) {
	defer l.g.wg.Done()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	l.cur = st
	for {
		for ; st.i < st.n; st.i++ {
			ev := &st.events[st.i]
			fd := int(ev.Fd)
			if fd == l.wakefd {
				var buf [8]byte
				syscall.Read(l.wakefd, buf[:])
				continue
			}
			c := l.conns[fd]
			if c == nil {
				continue
			}
			if ev.Events&syscall.EPOLLOUT != 0 {
				c.writable()
				if st.retired {
					return
				}
			}
			if ev.Events&(syscall.EPOLLIN|syscall.EPOLLRDHUP|syscall.EPOLLHUP|syscall.EPOLLERR) != 0 {
				if ev.Events&(syscall.EPOLLRDHUP|syscall.EPOLLHUP|syscall.EPOLLERR) != 0 {
					c.hup = true // read on to the end of the stream
				}
				l.readable(c)
				if st.retired {
					return
				}
			}
		}
		if !st.inTasks {
			l.mu.Lock()
			st.tasks, l.tasks = l.tasks, st.tasks[:0]
			l.woken = false
			l.mu.Unlock()
			st.ti, st.inTasks = 0, true
		}
		for ; st.ti < len(st.tasks); st.ti++ {
			fn := st.tasks[st.ti]
			st.tasks[st.ti] = nil
			fn()
			if st.retired {
				return
			}
		}
		st.inTasks = false
		l.endBatch()
		if l.g.closed.Load() {
			break
		}
		n, err := st.poll(l.epfd, time.Duration(l.g.maxSpin.Load()))
		if err != nil && err != syscall.EINTR {
			break
		}
		st.n, st.i = max(n, 0), 0
	}
	// Stop. From now on tasks run in Invoke's caller (after the ones
	// queued until now, which run here): an Add's registration sees the
	// loop stopped and drops its connection.
	l.mu.Lock()
	l.stopped = true
	l.running = true
	l.mu.Unlock()
	syscall.Close(l.wakefd)
	for _, c := range l.conns {
		l.drop(c)
	}
	syscall.Close(l.epfd)
	l.drainStopped()
}

// endBatch hands the output held during the batch to the handler's
// OnBatchEnd, or releases it.
func (l *loop) endBatch() {
	l.heldMu.Lock()
	held := l.held
	l.held = nil
	l.heldMu.Unlock()
	if len(held) == 0 {
		return
	}
	b := &Batch{conns: held, ends: make([]int64, len(held))}
	for i, c := range held {
		c.inBatch = false
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

// readable lets the handler consume c's input.
func (l *loop) readable(c *Conn) {
	if c.closed.Load() {
		l.drop(c)
		return
	}
	st := l.cur
	ok := l.g.handler.OnReadable(c)
	if st.retired {
		return // the loop is another goroutine's now
	}
	if !ok || c.closed.Load() {
		l.drop(c)
		return
	}
	if c.blockedOnOutput() {
		// The handler may have left input unread behind the output;
		// edge-triggered epoll would not report it again.
		c.pendingRead = true
	}
}

// drop closes c on its loop and tells the handler, once.
func (l *loop) drop(c *Conn) {
	if c.dropped {
		return
	}
	c.dropped = true
	if l.conns[c.fd] == c {
		delete(l.conns, c.fd)
		syscall.EpollCtl(l.epfd, syscall.EPOLL_CTL_DEL, c.fd, nil)
	}
	c.close()
	l.g.handler.OnClose(c)
}

// Conn is one connection served by a loop.
type Conn struct {
	fd            int // -1 once closed; guarded by wmu after Add
	fdNum         int // fd as added, for display
	loop          *loop
	remote, local net.Addr
	// Context is the handler's state for the connection.
	Context any

	closed      atomic.Bool
	dropped     bool // owned by the loop
	pendingRead bool // owned by the loop: input arrived while output was backed up
	drained     bool // owned by the reader: the last read emptied the socket
	hup         bool // owned by the loop: the peer shut down its side (or the socket failed)
	events      uint32

	wmu     sync.Mutex
	pending []byte // output the socket did not take yet; guarded by wmu
	// heldOut is output held until its batch is released (Hold); holding
	// says there is some. heldTotal counts the bytes ever added to it,
	// heldDone those released, holdEnd heldTotal after the last Hold.
	// Guarded by wmu.
	heldOut                      []byte
	holding                      bool
	heldTotal, heldDone, holdEnd int64
	// inBatch: the connection is in its loop's current batch (the loop's).
	inBatch bool
}

// RemoteAddr returns the peer's address.
func (c *Conn) RemoteAddr() net.Addr { return c.remote }

// Invoke runs fn on the connection's loop (after the events being
// handled), one at a time with the handler's calls for the connection.
func (c *Conn) Invoke(fn func()) { c.loop.Invoke(fn) }

// Handoff is called by a handler (or an Invoke task) running on c's loop
// that is about to take long: another goroutine takes over the loop at
// once, with the events and tasks still waiting, and the caller's goroutine
// stops serving the loop when the handler or task returns. From then on
// the loop may call OnReadable for c again while the caller still runs:
// the handler must expect that (it typically only buffers c's input until
// the long call is done, then goes on through Invoke). After the handler
// returns, the caller must not touch the loop. Handoff must be called on
// the loop's goroutine, at most once per handler call.
func (c *Conn) Handoff() {
	l := c.loop
	st := l.cur
	if st == nil || st.retired {
		return
	}
	st.retired = true
	next := &runState{events: make([]syscall.EpollEvent, len(st.events))}
	if !st.inTasks && st.i+1 < st.n {
		next.n = copy(next.events, st.events[st.i+1:st.n])
	}
	if st.inTasks {
		next.tasks = append(next.tasks, st.tasks[st.ti+1:]...)
		clear(st.tasks[st.ti+1:])
		next.inTasks = true
		next.n = 0
	}
	l.g.wg.Add(1)
	go l.serve(next)
}

// LocalAddr returns the local address.
func (c *Conn) LocalAddr() net.Addr { return c.local }

// Fd returns the socket's file descriptor number (as it was when the
// connection was added; safe from any goroutine).
func (c *Conn) Fd() int { return c.fdNum }

// Read reads available input without blocking: ErrWouldBlock when there is
// none, io.EOF when the peer closed. Only the loop's handler calls it.
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
// Only the handler or a task running on c's loop calls it.
func (c *Conn) Hold(p []byte) {
	if c.closed.Load() {
		return
	}
	c.wmu.Lock()
	c.holding = true
	c.heldOut = append(c.heldOut, p...)
	c.heldTotal += int64(len(p))
	c.holdEnd = c.heldTotal
	c.wmu.Unlock()
	if !c.inBatch {
		c.inBatch = true
		l := c.loop
		l.heldMu.Lock()
		l.held = append(l.held, c)
		l.heldMu.Unlock()
	}
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
		c.heldOut = append(c.heldOut, p...)
		c.heldTotal += int64(len(p))
		return len(p), nil
	}
	return c.writeLocked(p)
}

// writeLocked is Write; the caller holds wmu.
func (c *Conn) writeLocked(p []byte) (int, error) {
	if len(c.pending) > 0 {
		c.pending = append(c.pending, p...)
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
			c.pending = append(c.pending[:0], p[written:]...)
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
	return len(c.pending)
}

func (c *Conn) blockedOnOutput() bool { return c.Pending() > 0 }

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
func (c *Conn) writable() {
	c.wmu.Lock()
	broken := false
	for len(c.pending) > 0 {
		n, _, errno := syscall.RawSyscall(syscall.SYS_WRITE, uintptr(c.fd), uintptr(unsafe.Pointer(unsafe.SliceData(c.pending))), uintptr(len(c.pending)))
		if errno == syscall.EINTR {
			continue
		}
		if errno != 0 {
			broken = errno != syscall.EAGAIN
			break
		}
		c.pending = c.pending[n:]
	}
	drained := len(c.pending) == 0
	if drained {
		c.pending = nil
		c.armWrite(false)
	}
	c.wmu.Unlock()
	if broken {
		c.loop.drop(c)
		return
	}
	if drained && c.pendingRead {
		c.pendingRead = false
		c.loop.readable(c)
	}
}

// Close closes the connection. From another goroutine it shuts the socket
// down so that its loop notices and drops it (OnClose runs there).
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
	c.pending = nil
	c.wmu.Unlock()
}
