package server

import (
	"github.com/hotkv/hotkv/resp"
	"strconv"
	"sync"
	"time"
)

// monitorWriters maps a MONITOR client to the channel its writer goroutine
// closes when it has written everything queued, so that leaving MONITOR
// mode (RESET) answers only after the lines fed before it.
var monitorWriters sync.Map // *Client -> chan struct{}

// MONITOR
//
// Redis replies +OK, then streams every command other clients (and this
// one) run; a second MONITOR gets no reply at all.
func cmdMonitor(c *Client, args [][]byte) {
	if c.monitor {
		return
	}
	// The replies pipelined before MONITOR go out now; the +OK goes first
	// through the writer goroutine, so it precedes every monitor line and
	// no command run after it is missed.
	c.flush()
	var ok []byte
	if c.replyMode == replyOn {
		ok = []byte("+OK\r\n")
	}
	c.srv.startMonitor(c, ok)
}

// startMonitor turns c into a MONITOR client: from now on it receives a
// line for every command the server runs, written by its own goroutine so a
// slow monitor never blocks the commands it watches.
func (s *Server) startMonitor(c *Client, first []byte) {
	if c.monitor {
		return
	}
	out := make(chan []byte, 4096)
	if first != nil {
		out <- first
	}
	done := make(chan struct{})
	monitorWriters.Store(c, done)
	c.mu.Lock()
	c.mu.monitorOut = out
	c.monitor = true
	c.mu.Unlock()
	s.mu.Lock()
	s.mu.monitors = append(s.mu.monitors, c)
	s.monitors.Store(int32(len(s.mu.monitors)))
	s.mu.Unlock()
	go func() {
		defer close(done)
		for line := range out {
			_, err := c.conn.Write(line)
			if err != nil || c.closeOnOutputLimit(0, false) {
				c.kill()
				for range out {
				}
				return
			}
		}
	}()
}

// stopMonitor removes c from the monitors and waits until its writer has
// sent (or failed to send) the lines already queued.
func (s *Server) stopMonitor(c *Client) {
	s.mu.Lock()
	for i, m := range s.mu.monitors {
		if m == c {
			s.mu.monitors = append(s.mu.monitors[:i], s.mu.monitors[i+1:]...)
			break
		}
	}
	s.monitors.Store(int32(len(s.mu.monitors)))
	s.mu.Unlock()
	c.mu.Lock()
	if c.mu.monitorOut != nil {
		close(c.mu.monitorOut)
		c.mu.monitorOut = nil
	}
	c.monitor = false
	c.mu.Unlock()
	if done, ok := monitorWriters.LoadAndDelete(c); ok {
		<-done.(chan struct{})
	}
}

// feedMonitors sends the command to every monitor in Redis's format:
// +<unix>.<micros> [<db> <addr>] "arg" "arg"...
//
// Redis feeds monitors after the command ran; HotKV's gate feeds them just
// before, so the db shown is the one the command leaves selected (SELECT,
// RESET) and the arguments Redis redacts (passwords of AUTH and HELLO)
// are worked out here.
func (s *Server) feedMonitors(c *Client, args [][]byte) {
	now := time.Now()
	line := make([]byte, 0, 64+16*len(args))
	line = append(line, '+')
	line = strconv.AppendInt(line, now.Unix(), 10)
	line = append(line, '.')
	us := now.Nanosecond() / 1000
	for d := 100000; d > 1 && us < d; d /= 10 {
		line = append(line, '0')
	}
	line = strconv.AppendInt(line, int64(us), 10)
	line = append(line, " ["...)
	line = strconv.AppendInt(line, int64(s.monitorDB(c, args)), 10)
	line = append(line, ' ')
	if c.scripted {
		line = append(line, "lua"...) // a script's command, as Redis shows it
	} else {
		line = append(line, peerString(c.conn.RemoteAddr())...)
	}
	line = append(line, "] "...)
	redact := s.redactions(c, args)
	for i, a := range args {
		if i > 0 {
			line = append(line, ' ')
		}
		if redact.has(i) {
			line = append(line, `"(redacted)"`...)
		} else {
			line = resp.AppendRepr(line, a)
		}
	}
	line = append(line, '\r', '\n')
	// A monitor's own RESET ends its MONITOR mode before Redis feeds it.
	selfReset := c.monitor && equalFold(args[0], "reset")
	s.mu.Lock()
	for _, m := range s.mu.monitors {
		if m == c && selfReset {
			continue
		}
		m.mu.Lock()
		if m.mu.monitorOut != nil {
			select {
			case m.mu.monitorOut <- line:
			default: // the monitor cannot keep up: drop it, as Redis drops
				go m.kill() // clients over their output buffer limit
			}
		}
		m.mu.Unlock()
	}
	s.mu.Unlock()
}

// monitorDB is the db a command leaves c in, which Redis shows.
func (s *Server) monitorDB(c *Client, args [][]byte) int {
	switch {
	case equalFold(args[0], "reset"):
		return 0
	case equalFold(args[0], "select") && len(args) == 2:
		if n, ok := parseInt(args[1]); ok && n >= 0 && n < int64(len(s.dbs)) {
			return int(n)
		}
	}
	return int(c.dbIndex.Load())
}

// redactions is a set of argument indexes (at most a few).
type redactions uint64

func (r redactions) has(i int) bool { return i < 64 && r&(1<<i) != 0 }

// redactions finds the arguments Redis replaces with "(redacted)" in
// MONITOR's feed and the slow log (redactClientCommandArgument): AUTH's
// username and password (unless the command has too many arguments), the
// AUTH pairs of HELLO that its parsing reached, ACL SETUSER's user name and rules (it stops at a wrong
// version, a failed AUTH, a bad SETNAME or an unknown option), MIGRATE's
// AUTH and AUTH2 credentials, and the values CONFIG SET gives the
// sensitive parameters (requirepass, masterauth, masteruser).
func (s *Server) redactions(c *Client, args [][]byte) redactions {
	var r redactions
	switch {
	case equalFold(args[0], "migrate"):
		for j := 6; j < len(args) && j+2 < 64; j++ {
			more := len(args) - 1 - j
			switch {
			case equalFold(args[j], "auth") && more >= 1:
				r |= 1 << (j + 1)
				j++
			case equalFold(args[j], "auth2") && more >= 2:
				r |= 1<<(j+1) | 1<<(j+2)
				j += 2
			case equalFold(args[j], "copy"), equalFold(args[j], "replace"):
			default: // KEYS, or a syntax error: nothing more is read
				return r
			}
		}
	case equalFold(args[0], "config") && len(args) > 1 && equalFold(args[1], "set"):
		for j := 2; j+1 < len(args) && j+1 < 64; j += 2 {
			if equalFold(args[j], "requirepass") || equalFold(args[j], "masterauth") || equalFold(args[j], "masteruser") {
				r |= 1 << (j + 1)
			}
		}
	case equalFold(args[0], "acl") && len(args) > 2 && equalFold(args[1], "setuser"):
		for j := 2; j < len(args) && j < 64; j++ {
			r |= 1 << j
		}
	case equalFold(args[0], "auth"):
		if len(args) <= 3 {
			for i := 1; i < len(args); i++ {
				r |= 1 << i
			}
		}
	case equalFold(args[0], "hello"):
		if len(args) < 2 {
			break
		}
		if v, ok := parseInt(args[1]); !ok || v < 2 || v > 3 {
			break
		}
		for j := 2; j < len(args) && j+2 < 64; j++ {
			more := len(args) - 1 - j
			if equalFold(args[j], "auth") && more >= 2 {
				r |= 1<<(j+1) | 1<<(j+2)
				if s.acl.Authenticate(args[j+1], args[j+2]) == nil {
					break
				}
				j += 2
			} else if equalFold(args[j], "setname") && more >= 1 && validClientAttr(args[j+1]) {
				j++
			} else {
				break
			}
		}
	}
	return r
}
