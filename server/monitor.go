package server

import (
	"strconv"
	"time"
)

// startMonitor turns c into a MONITOR client: from now on it receives a
// line for every command the server runs, written by its own goroutine so a
// slow monitor never blocks the commands it watches.
func (s *Server) startMonitor(c *Client) {
	if c.monitor {
		return
	}
	out := make(chan []byte, 4096)
	c.mu.Lock()
	c.mu.monitorOut = out
	c.mu.Unlock()
	c.monitor = true
	s.mu.Lock()
	s.mu.monitors = append(s.mu.monitors, c)
	s.monitors.Store(int32(len(s.mu.monitors)))
	s.mu.Unlock()
	go func() {
		for line := range out {
			if _, err := c.conn.Write(line); err != nil {
				c.kill()
				for range out {
				}
				return
			}
		}
	}()
}

// stopMonitor removes c from the monitors.
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
	c.mu.Unlock()
	c.monitor = false
}

// feedMonitors sends the command to every monitor in Redis's format:
// +<unix.micros> [<db> <addr>] "arg" "arg"...
func (s *Server) feedMonitors(c *Client, args [][]byte) {
	now := time.Now()
	line := []byte{'+'}
	line = strconv.AppendInt(line, now.Unix(), 10)
	line = append(line, '.')
	us := strconv.AppendInt(nil, int64(now.Nanosecond()/1000), 10)
	for i := len(us); i < 6; i++ {
		line = append(line, '0')
	}
	line = append(line, us...)
	line = append(line, " ["...)
	line = strconv.AppendInt(line, int64(c.dbIndex.Load()), 10)
	line = append(line, ' ')
	line = append(line, peerString(c.conn.RemoteAddr())...)
	line = append(line, ']')
	for _, a := range args {
		line = append(line, ' ')
		line = appendRepr(line, a)
	}
	line = append(line, '\r', '\n')
	s.mu.Lock()
	mons := s.mu.monitors
	for _, m := range mons {
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

// appendRepr quotes b as Redis's sdscatrepr does.
func appendRepr(dst, b []byte) []byte {
	dst = append(dst, '"')
	for _, ch := range b {
		switch ch {
		case '\\', '"':
			dst = append(dst, '\\', ch)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\a':
			dst = append(dst, '\\', 'a')
		case '\b':
			dst = append(dst, '\\', 'b')
		default:
			if ch >= 0x20 && ch < 0x7f {
				dst = append(dst, ch)
			} else {
				const hex = "0123456789abcdef"
				dst = append(dst, '\\', 'x', hex[ch>>4], hex[ch&15])
			}
		}
	}
	return append(dst, '"')
}
