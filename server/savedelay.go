package server

import (
	"errors"
	"math/rand/v2"
	"sync/atomic"
	"time"
)

// errSaveKilled ends a background save or AOF rewrite that was killed
// (Redis kills its child): SHUTDOWN, CONFIG SET appendonly no.
var errSaveKilled = errors.New("killed")

// killSwitch lets a background save or rewrite be stopped: its writer
// checks the channel before each key.
type killSwitch struct{ p atomic.Pointer[chan struct{}] }

// arm returns a new channel for the job about to start.
func (k *killSwitch) arm() chan struct{} {
	ch := make(chan struct{})
	k.p.Store(&ch)
	return ch
}

// disarm forgets ch once its job ended.
func (k *killSwitch) disarm(ch chan struct{}) { k.p.CompareAndSwap(&ch, nil) }

// kill stops the running job, reporting whether there was one.
func (k *killSwitch) kill() bool {
	p := k.p.Swap(nil)
	if p == nil {
		return false
	}
	close(*p)
	return true
}

// killed returns errSaveKilled once kill is closed.
func killed(kill <-chan struct{}) error {
	select {
	case <-kill:
		return errSaveKilled
	default:
		return nil
	}
}

// keySaveDelay runs before each key a snapshot or rewrite written in this
// process writes (SAVE, a replication payload): it returns errSaveKilled
// once kill is closed, and sleeps as Redis's
// debugDelay(rdb-key-save-delay) does (microseconds; a negative value -n
// sleeps 1 µs once in n keys). Where Redis's forked child keeps the delay
// it started with, here lowering the setting (to 0, say) cuts a delay
// short: the tests that set a long delay and then 0 kill the child.
func (s *Server) keySaveDelay(kill <-chan struct{}) error {
	param := s.cfg.Lookup("rdb-key-save-delay")
	return saveDelay(kill, param.Int(), param.Int)
}

// childSaveDelay returns the delay before each key of a job whose file a
// child writes (BGSAVE, AOF rewrites): rdb-key-save-delay as it is when
// the job starts, kept to the end as Redis's forked child keeps it (the
// tests that lower it kill the child, whose exit closes kill).
func (s *Server) childSaveDelay() func(kill <-chan struct{}) error {
	us := s.cfg.Lookup("rdb-key-save-delay").Int()
	return func(kill <-chan struct{}) error { return saveDelay(kill, us, nil) }
}

// saveDelay sleeps us microseconds (see keySaveDelay), or until kill is
// closed (errSaveKilled); current, when not nil, is re-read while it
// sleeps and shortens the sleep when lowered.
func saveDelay(kill <-chan struct{}, us int64, current func() int64) error {
	if err := killed(kill); err != nil {
		return err
	}
	if us == 0 {
		return nil
	}
	if us < 0 {
		if rand.Int64N(-us) != 0 {
			return nil
		}
		us = 1
	}
	start := time.Now()
	for {
		left := time.Duration(us)*time.Microsecond - time.Since(start)
		if left <= 0 {
			return nil
		}
		t := time.NewTimer(min(left, 10*time.Millisecond))
		select {
		case <-kill:
			t.Stop()
			return errSaveKilled
		case <-t.C:
		}
		if current == nil {
			continue
		}
		if cur := current(); cur <= 0 {
			return nil
		} else if cur < us {
			us = cur
		}
	}
}
