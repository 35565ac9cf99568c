package server

import (
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/config"
)

// slowlog keeps the most recent commands that ran longer than
// slowlog-log-slower-than microseconds, up to slowlog-max-len entries.
type slowlog struct {
	mu      sync.Mutex
	entries []slowEntry // newest last
	nextID  int64

	// The two parameters, looked up once.
	slower, maxLen atomic.Pointer[config.Param]
}

type slowEntry struct {
	id       int64
	at       int64 // unix seconds
	micros   int64
	args     []string
	peer     string
	clientNm string
}

// param returns the cached parameter, looking it up on first use.
func (l *slowlog) param(s *Server, p *atomic.Pointer[config.Param], name string) *config.Param {
	if v := p.Load(); v != nil {
		return v
	}
	v := s.cfg.Lookup(name)
	p.Store(v)
	return v
}

// maybeAdd records the command when it was slow enough (and not flagged
// skip_slowlog). The common case is a few atomic loads and a comparison.
func (l *slowlog) maybeAdd(s *Server, c *Client, cmd *Command, args [][]byte, d time.Duration) {
	threshold := l.param(s, &l.slower, "slowlog-log-slower-than").Int()
	if threshold < 0 || d.Microseconds() < threshold {
		return
	}
	if cmd.Flags&SkipSlowlog != 0 {
		return
	}
	maxLen := int(l.param(s, &l.maxLen, "slowlog-max-len").Int())
	peer := "?:0" // a script's engine client, as Redis's Lua client
	if c.conn != nil {
		peer = peerString(c.conn.RemoteAddr())
	}
	e := slowEntry{at: time.Now().Unix(), micros: d.Microseconds(), peer: peer, clientNm: c.Name()}
	// Redis keeps at most 32 arguments, each cut at 128 bytes.
	n := len(args)
	if n > 32 {
		n = 31
	}
	redact := s.redactions(c, args)
	for i, a := range args[:n] {
		if redact.has(i) {
			e.args = append(e.args, "(redacted)")
			continue
		}
		if len(a) > 128 {
			e.args = append(e.args, string(a[:128])+"... ("+itoa(int64(len(a)-128))+" more bytes)")
		} else {
			e.args = append(e.args, string(a))
		}
	}
	if len(args) > 32 {
		e.args = append(e.args, "... ("+itoa(int64(len(args)-31))+" more arguments)")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	e.id = l.nextID
	l.nextID++
	l.entries = append(l.entries, e)
	if over := len(l.entries) - maxLen; over > 0 {
		l.entries = append(l.entries[:0], l.entries[over:]...)
	}
}

// newest returns up to count entries, newest first (all with count -1).
func (l *slowlog) newest(count int64) []slowEntry {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := int64(len(l.entries))
	if count < 0 || count > n {
		count = n
	}
	out := make([]slowEntry, count)
	for i := range out {
		out[i] = l.entries[n-1-int64(i)]
	}
	return out
}

// len returns the number of entries.
func (l *slowlog) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.entries)
}

// reset removes every entry; ids keep counting, as in Redis.
func (l *slowlog) reset() {
	l.mu.Lock()
	l.entries = nil
	l.mu.Unlock()
}

func itoa(n int64) string { return string(formatInt(n)) }

func peerString(a net.Addr) string {
	if a == nil {
		return ""
	}
	if u, ok := a.(*net.UnixAddr); ok {
		return u.Name + ":0" // Redis's form for unix socket peers
	}
	return a.String()
}
