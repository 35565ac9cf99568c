package latency

import (
	"reflect"
	"testing"
)

// add is one Add call of a test script.
type add struct {
	event string
	ms    int64
	now   int64
}

func newMonitor(adds ...add) *Monitor {
	m := &Monitor{}
	for _, a := range adds {
		m.Add(a.event, a.ms, a.now)
	}
	return m
}

func TestMonitorHistory(t *testing.T) {
	tests := []struct {
		name  string
		adds  []add
		event string
		want  []Sample
	}{
		{"unknown event", []add{{"command", 100, 10}}, "fork", nil},
		{"case-sensitive lookup", []add{{"command", 100, 10}}, "COMMAND", nil},
		{"one sample", []add{{"command", 100, 10}}, "command", []Sample{{10, 100}}},
		{"same second keeps the larger", []add{{"command", 100, 10}, {"command", 300, 10}, {"command", 200, 10}},
			"command", []Sample{{10, 300}}},
		{"new second appends", []add{{"command", 300, 10}, {"command", 200, 11}, {"command", 250, 13}},
			"command", []Sample{{10, 300}, {11, 200}, {13, 250}}},
		{"merge is with the newest sample only", []add{{"command", 300, 10}, {"command", 200, 11}, {"command", 500, 10}},
			"command", []Sample{{10, 300}, {11, 200}, {10, 500}}},
		{"events are separate", []add{{"command", 300, 10}, {"fork", 50, 10}, {"command", 100, 11}},
			"fork", []Sample{{10, 50}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMonitor(tt.adds...)
			if got := m.History(tt.event); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("History(%q) = %v, want %v", tt.event, got, tt.want)
			}
		})
	}
}

func TestMonitorRingWraps(t *testing.T) {
	for _, n := range []int{TSLen - 1, TSLen, TSLen + 1, 2*TSLen + 7} {
		m := &Monitor{}
		for i := range n {
			m.Add("command", int64(100+i), int64(1000+i))
		}
		got := m.History("command")
		kept := min(n, TSLen)
		if len(got) != kept {
			t.Fatalf("n=%d: %d samples, want %d", n, len(got), kept)
		}
		for j, s := range got {
			i := n - kept + j // oldest kept first
			if want := (Sample{int64(1000 + i), int64(100 + i)}); s != want {
				t.Fatalf("n=%d: sample %d = %v, want %v", n, j, s, want)
			}
		}
		l := m.Latest()
		want := []Latest{{"command", int64(1000 + n - 1), int64(100 + n - 1), int64(100 + n - 1)}}
		if !reflect.DeepEqual(l, want) {
			t.Fatalf("n=%d: Latest = %v, want %v", n, l, want)
		}
	}
}

func TestMonitorLatest(t *testing.T) {
	m := newMonitor(
		add{"fork", 20, 5},
		add{"command", 500, 10},
		add{"command", 200, 12},
		add{"command", 300, 12},
		add{"aof-fstat", 7, 3},
	)
	want := []Latest{
		{Event: "aof-fstat", Time: 3, Latency: 7, Max: 7},
		{Event: "command", Time: 12, Latency: 300, Max: 500},
		{Event: "fork", Time: 5, Latency: 20, Max: 20},
	}
	if got := m.Latest(); !reflect.DeepEqual(got, want) {
		t.Errorf("Latest = %v, want %v", got, want)
	}
	var empty Monitor
	if got := empty.Latest(); len(got) != 0 {
		t.Errorf("empty Latest = %v", got)
	}
}

func TestMonitorReset(t *testing.T) {
	base := []add{{"command", 100, 1}, {"Command", 100, 1}, {"fork", 100, 1}, {"expire-cycle", 100, 1}}
	tests := []struct {
		events []string
		want   int
		left   []string
	}{
		{nil, 4, nil},
		{[]string{"fork"}, 1, []string{"Command", "command", "expire-cycle"}},
		{[]string{"FORK"}, 1, []string{"Command", "command", "expire-cycle"}},
		{[]string{"COMMAND"}, 2, []string{"expire-cycle", "fork"}},
		{[]string{"fork", "fork", "Fork"}, 1, []string{"Command", "command", "expire-cycle"}},
		{[]string{"nothing"}, 0, []string{"Command", "command", "expire-cycle", "fork"}},
		{[]string{"expire-cycle", "fork"}, 2, []string{"Command", "command"}},
		{[]string{"for\u212a"}, 0, []string{"Command", "command", "expire-cycle", "fork"}}, // no Unicode folding
	}
	for _, tt := range tests {
		m := newMonitor(base...)
		if got := m.Reset(tt.events...); got != tt.want {
			t.Errorf("Reset(%q) = %d, want %d", tt.events, got, tt.want)
		}
		var left []string
		for _, l := range m.Latest() {
			left = append(left, l.Event)
		}
		if !reflect.DeepEqual(left, tt.left) {
			t.Errorf("after Reset(%q): events %q, want %q", tt.events, left, tt.left)
		}
	}
	var empty Monitor
	if got := empty.Reset(); got != 0 {
		t.Errorf("empty Reset() = %d", got)
	}
	m := newMonitor(base...)
	m.Reset("command")
	m.Add("command", 5, 9)
	if got := m.Latest()[0]; got != (Latest{"command", 9, 5, 5}) {
		t.Errorf("after reset and add: %v, want max restarted", got)
	}
}
