package acl

import (
	"sync"
	"time"
)

// Context is where a refused command came from (the ACL log's context).
type Context int

// Contexts, as Redis's ACL_LOG_CTX_*.
const (
	TopLevel Context = iota
	Lua
	Multi
	Module
)

func (c Context) String() string {
	switch c {
	case TopLevel:
		return "toplevel"
	case Multi:
		return "multi"
	case Lua:
		return "lua"
	case Module:
		return "module"
	}
	return "unknown"
}

func (d Denial) String() string {
	switch d {
	case DeniedCommand:
		return "command"
	case DeniedKey:
		return "key"
	case DeniedChannel:
		return "channel"
	case DeniedAuth:
		return "auth"
	}
	return "unknown"
}

// LogEntry is one entry of the ACL log.
type LogEntry struct {
	Count    int64
	Reason   Denial
	Context  Context
	Object   string // the command, key, channel, or AUTH's command name
	Username string
	// Updated is when the entry was created or last counted again.
	Updated    time.Time
	ClientInfo string // CLIENT LIST's line of the client, last one counted
}

// groupingWindow is how close in time two similar events must be to be
// counted in one entry.
const groupingWindow = 60 * time.Second

// Log is the ACL log: the newest entries first.
type Log struct {
	mu      sync.Mutex
	entries []*LogEntry
}

// Add records e (its Count and Updated are set here), keeping at most max
// entries. An entry among the 10 newest with the same reason, context,
// object and user, updated within the last 60 seconds, is counted again
// and moved to the front instead, as Redis's addACLLogEntry.
func (l *Log) Add(e LogEntry, max int) {
	e.Count, e.Updated = 1, time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, old := range l.entries[:min(10, len(l.entries))] {
		d := e.Updated.Sub(old.Updated)
		if old.Reason == e.Reason && old.Context == e.Context && old.Object == e.Object &&
			old.Username == e.Username && d <= groupingWindow && d >= -groupingWindow {
			old.Count++
			old.Updated, old.ClientInfo = e.Updated, e.ClientInfo
			copy(l.entries[1:i+1], l.entries[:i])
			l.entries[0] = old
			return
		}
	}
	l.entries = append([]*LogEntry{&e}, l.entries...)
	if len(l.entries) > max {
		clear(l.entries[max:])
		l.entries = l.entries[:max]
	}
}

// Entries returns copies of the newest n entries.
func (l *Log) Entries(n int) []LogEntry {
	l.mu.Lock()
	defer l.mu.Unlock()
	n = max(0, min(n, len(l.entries)))
	out := make([]LogEntry, n)
	for i := range out {
		out[i] = *l.entries[i]
	}
	return out
}

// Reset empties the log.
func (l *Log) Reset() {
	l.mu.Lock()
	l.entries = nil
	l.mu.Unlock()
}
