package tlsconf

import (
	"container/list"
	"crypto/rand"
	"crypto/tls"
	"sync"
	"time"
)

// sessionCache is the server-side session cache of tls-session-caching,
// as OpenSSL's SSL_SESS_CACHE_SERVER: a session lives for timeout, the
// cache holds at most size of them (0: no limit) and forgets the least
// recently stored first. The ticket a client holds is a random handle,
// never the session itself.
type sessionCache struct {
	size    int
	timeout time.Duration

	mu      sync.Mutex
	byID    map[[idLen]byte]*list.Element
	order   list.List // of *cached, the newest first
	nowFunc func() time.Time
}

const idLen = 32

type cached struct {
	id      [idLen]byte
	state   []byte // SessionState.Bytes
	expires time.Time
}

func newSessionCache(size int, timeout time.Duration) *sessionCache {
	return &sessionCache{size: size, timeout: timeout, byID: map[[idLen]byte]*list.Element{}, nowFunc: time.Now}
}

// wrap stores ss and returns its handle (tls.Config.WrapSession).
func (sc *sessionCache) wrap(_ tls.ConnectionState, ss *tls.SessionState) ([]byte, error) {
	state, err := ss.Bytes()
	if err != nil {
		return nil, err
	}
	e := &cached{state: state}
	if _, err := rand.Read(e.id[:]); err != nil {
		return nil, err
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	now := sc.nowFunc()
	e.expires = now.Add(sc.timeout)
	sc.byID[e.id] = sc.order.PushFront(e)
	// Every session lives as long, so the expired ones are the oldest.
	for b := sc.order.Back(); b != nil && (!now.Before(b.Value.(*cached).expires) || sc.size > 0 && sc.order.Len() > sc.size); b = sc.order.Back() {
		sc.remove(b)
	}
	return e.id[:], nil
}

// unwrap returns the session of a handle, or nil (a full handshake) when
// the cache does not hold it or it expired (tls.Config.UnwrapSession).
func (sc *sessionCache) unwrap(id []byte, _ tls.ConnectionState) (*tls.SessionState, error) {
	if len(id) != idLen {
		return nil, nil
	}
	sc.mu.Lock()
	el := sc.byID[[idLen]byte(id)]
	var state []byte
	if el != nil {
		e := el.Value.(*cached)
		if sc.nowFunc().Before(e.expires) {
			state = e.state
		} else {
			sc.remove(el)
		}
	}
	sc.mu.Unlock()
	if state == nil {
		return nil, nil
	}
	ss, err := tls.ParseSessionState(state)
	if err != nil {
		return nil, nil
	}
	return ss, nil
}

func (sc *sessionCache) remove(el *list.Element) {
	delete(sc.byID, el.Value.(*cached).id)
	sc.order.Remove(el)
}

// len is the number of sessions held.
func (sc *sessionCache) len() int {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.order.Len()
}
