// Package latency holds Redis 7.0's latency bookkeeping, reimplemented: the
// latency monitor behind LATENCY LATEST / HISTORY / RESET / GRAPH / DOCTOR,
// and the per-command latency histogram behind LATENCY HISTOGRAM and
// INFO latencystats.
//
// The package knows nothing of RESP, configuration or clocks: callers pass
// the current time and the configuration facts in, and get back values or
// the exact text Redis would reply with.
package latency

import (
	"sort"
	"sync"
)

// TSLen is the number of samples kept per event (Redis's LATENCY_TS_LEN).
const TSLen = 160

// Sample is one latency-monitor sample: Time in unix seconds, Latency in
// milliseconds.
type Sample struct{ Time, Latency int64 }

// Latest is one row of LATENCY LATEST: the event name, the time and latency
// of its newest sample, and its all-time maximum latency.
type Latest struct {
	Event              string
	Time, Latency, Max int64
}

// series is one event's ring of samples. A slot whose Time is 0 is empty,
// as in Redis; idx is the slot the next new-second sample goes to.
type series struct {
	idx     int
	max     int64
	samples [TSLen]Sample
}

// Monitor is Redis's latency monitor: per event name a ring of the last
// TSLen samples, at most one per second (a second sample in the same second
// keeps the larger latency), and the all-time maximum. The zero Monitor is
// empty and ready to use. All methods are safe for concurrent use; they take
// one mutex, which is cheap because Add runs only when a latency crossed the
// configured threshold.
type Monitor struct {
	mu struct {
		sync.Mutex
		events map[string]*series // exact, case-sensitive names
	}
}

// Add records a latency of ms milliseconds for event at unix time now
// (Redis's latencyAddSample). The event is created on first use, its name
// compared exactly. If the newest sample is from the same second, Add only
// raises that sample's latency when ms is larger. now is expected to be a
// real unix time: as in Redis, a sample at time 0 is indistinguishable from
// an empty slot and is never reported.
func (m *Monitor) Add(event string, ms int64, now int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.mu.events == nil {
		m.mu.events = make(map[string]*series)
	}
	ts := m.mu.events[event]
	if ts == nil {
		ts = &series{}
		m.mu.events[event] = ts
	}
	if ms > ts.max {
		ts.max = ms
	}
	prev := &ts.samples[(ts.idx+TSLen-1)%TSLen]
	if prev.Time == now {
		if ms > prev.Latency {
			prev.Latency = ms
		}
		return
	}
	ts.samples[ts.idx] = Sample{Time: now, Latency: ms}
	ts.idx = (ts.idx + 1) % TSLen
}

// Latest returns LATENCY LATEST's rows, one per event, sorted by event
// name (Redis replies in dictionary order; ours is deterministic).
func (m *Monitor) Latest() []Latest {
	m.mu.Lock()
	defer m.mu.Unlock()
	names := m.namesLocked()
	out := make([]Latest, 0, len(names))
	for _, name := range names {
		ts := m.mu.events[name]
		last := ts.samples[(ts.idx+TSLen-1)%TSLen]
		out = append(out, Latest{Event: name, Time: last.Time, Latency: last.Latency, Max: ts.max})
	}
	return out
}

// History returns LATENCY HISTORY's samples for event, oldest first. The
// name is compared exactly (case-sensitively), as Redis's dictionary
// lookup does. It returns nil when the event is unknown.
func (m *Monitor) History(event string) []Sample {
	m.mu.Lock()
	defer m.mu.Unlock()
	ts := m.mu.events[event]
	if ts == nil {
		return nil
	}
	return ts.ordered()
}

// Reset implements LATENCY RESET: with no names it deletes every event;
// otherwise, for each name in turn, it deletes every event whose name equals
// it ignoring ASCII case (Redis's strcasecmp), so "a A" deletes an event
// "a" once and counts it once. It returns how many events were deleted.
func (m *Monitor) Reset(events ...string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(events) == 0 {
		n := len(m.mu.events)
		clear(m.mu.events)
		return n
	}
	n := 0
	for _, want := range events {
		for name := range m.mu.events {
			if equalFoldASCII(name, want) {
				delete(m.mu.events, name)
				n++
			}
		}
	}
	return n
}

// ordered returns the non-empty samples from oldest to newest.
func (ts *series) ordered() []Sample {
	var out []Sample
	for j := range TSLen {
		s := ts.samples[(ts.idx+j)%TSLen]
		if s.Time != 0 {
			out = append(out, s)
		}
	}
	return out
}

// namesLocked returns the event names sorted. m.mu must be held.
func (m *Monitor) namesLocked() []string {
	names := make([]string, 0, len(m.mu.events))
	for name := range m.mu.events {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// equalFoldASCII reports whether a and b are equal ignoring ASCII case
// only, as C's strcasecmp in the C locale (no Unicode folding).
func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		ca, cb := a[i], b[i]
		if 'A' <= ca && ca <= 'Z' {
			ca += 'a' - 'A'
		}
		if 'A' <= cb && cb <= 'Z' {
			cb += 'a' - 'A'
		}
		if ca != cb {
			return false
		}
	}
	return true
}
