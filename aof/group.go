package aof

import (
	"errors"
	"sync"
)

// ErrClosed is returned by Commit after Close.
var ErrClosed = errors.New("aof: group committer closed")

// GroupCommitter is group commit for appendfsync always: many goroutines
// call Commit, and each returns only once its bytes are written and
// fsynced. A single writer goroutine takes everything committed while it
// was busy, writes it with one write and makes it durable with one fsync,
// then releases those committers, in the order they committed; bytes
// reach the file in commit order.
//
// The GroupCommitter owns its Appender from NewGroupCommitter to Close:
// nothing else may use it meanwhile (its reporting methods excepted).
type GroupCommitter struct {
	a *Appender

	mu      sync.Mutex
	cond    *sync.Cond
	pending []byte
	waiters []*commitWaiter
	spare   []byte
	closed  bool
	done    chan struct{}

	batches, syncs uint64 // guarded by mu
}

type commitWaiter struct {
	done chan struct{}
	err  error
}

// NewGroupCommitter starts the writer goroutine of a.
func NewGroupCommitter(a *Appender) *GroupCommitter {
	g := &GroupCommitter{a: a, done: make(chan struct{})}
	g.cond = sync.NewCond(&g.mu)
	go g.run()
	return g
}

// Commit appends p (encoded commands) and waits until it is written and
// fsynced, with whatever else was committed meanwhile. It returns nil
// then, or the error of the write or fsync of its batch (the error is
// also remembered by the Appender, and a failed write's bytes stay in its
// buffer, to be written again with the next batch). p may be reused once
// Commit returns.
func (g *GroupCommitter) Commit(p []byte) error {
	w := &commitWaiter{done: make(chan struct{})}
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return ErrClosed
	}
	g.pending = append(g.pending, p...)
	g.waiters = append(g.waiters, w)
	g.mu.Unlock()
	g.cond.Signal()
	<-w.done
	return w.err
}

// Stats returns the number of batches written and of fsyncs done (one per
// batch whose write succeeded).
func (g *GroupCommitter) Stats() (batches, syncs uint64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.batches, g.syncs
}

// Close writes and fsyncs what is pending, releases its committers, stops
// the writer goroutine and returns the Appender's remembered error. Later
// Commits fail with ErrClosed.
func (g *GroupCommitter) Close() error {
	g.mu.Lock()
	already := g.closed
	g.closed = true
	g.mu.Unlock()
	if !already {
		g.cond.Signal()
	}
	<-g.done
	return g.a.Err()
}

func (g *GroupCommitter) run() {
	defer close(g.done)
	for {
		g.mu.Lock()
		for len(g.waiters) == 0 && !g.closed {
			g.cond.Wait()
		}
		if len(g.waiters) == 0 {
			g.mu.Unlock()
			return
		}
		batch, waiters := g.pending, g.waiters
		g.pending, g.waiters = g.spare[:0], nil
		g.mu.Unlock()

		g.a.Append(batch)
		err := g.a.Write()
		synced := false
		if err == nil {
			err = g.a.Sync()
			synced = true
		}
		g.mu.Lock()
		g.batches++
		if synced {
			g.syncs++
		}
		g.spare = batch
		g.mu.Unlock()
		for _, w := range waiters {
			w.err = err
			close(w.done)
		}
	}
}
