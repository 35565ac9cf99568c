package server

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/hotkv/hotkv/latency"
)

// The latency monitor (Redis's latency.c): events over
// latency-monitor-threshold milliseconds — commands ("command", and
// "fast-command" for commands flagged fast) and the active expiry cycle
// ("expire-cycle") — kept per event as the last 160 samples, and, while
// latency-tracking is on, a latency histogram per command (LATENCY
// HISTOGRAM, INFO latencystats). The executor feeds both (exec.go,
// batchStats).

func latencyCommands() []*Command {
	const flags = Admin | NoScript | Loading | Stale
	return []*Command{
		{Name: "latency", Arity: -2, Sub: map[string]*Command{
			"doctor":    {Arity: 2, Flags: flags, Handler: cmdLatencyDoctor},
			"graph":     {Arity: 3, Flags: flags, Handler: cmdLatencyGraph},
			"histogram": {Arity: -2, Flags: flags, Handler: cmdLatencyHistogram},
			"history":   {Arity: 3, Flags: flags, Handler: cmdLatencyHistory},
			"latest":    {Arity: 2, Flags: flags, Handler: cmdLatencyLatest},
			"reset":     {Arity: -2, Flags: flags, Handler: cmdLatencyReset},
			"help":      {Arity: 2, Flags: Loading | Stale, Handler: cmdLatencyHelp},
		}},
	}
}

var latencyHelp = []string{
	"DOCTOR",
	"    Return a human readable latency analysis report.",
	"GRAPH <event>",
	"    Return an ASCII latency graph for the <event> class.",
	"HISTORY <event>",
	"    Return time-latency samples for the <event> class.",
	"LATEST",
	"    Return the latest latency samples for all events.",
	"RESET [<event> ...]",
	"    Reset latency data of one or more <event> classes.",
	"    (default: reset all data for all event classes)",
	"HISTOGRAM [COMMAND ...]",
	"    Return a cumulative distribution of latencies in the format of a histogram for the specified command names.",
	"    If no commands are specified then all histograms are replied.",
}

// LATENCY HELP
func cmdLatencyHelp(c *Client, args [][]byte) { c.replyHelpLines("LATENCY", latencyHelp) }

// LATENCY HISTORY event
func cmdLatencyHistory(c *Client, args [][]byte) {
	samples := c.srv.latency.History(string(args[2]))
	c.w.Array(len(samples))
	for _, s := range samples {
		c.w.Array(2)
		c.w.Int(s.Time)
		c.w.Int(s.Latency)
	}
}

// LATENCY LATEST
func cmdLatencyLatest(c *Client, args [][]byte) {
	events := c.srv.latency.Latest()
	c.w.Array(len(events))
	for _, e := range events {
		c.w.Array(4)
		c.w.BulkString(e.Event)
		c.w.Int(e.Time)
		c.w.Int(e.Latency)
		c.w.Int(e.Max)
	}
}

// LATENCY GRAPH event
func cmdLatencyGraph(c *Client, args [][]byte) {
	graph, ok := c.srv.latency.Graph(string(args[2]), time.Now().Unix())
	if !ok {
		c.errorReply(fmt.Sprintf(errLatencyNoSamples, cString(args[2])))
		return
	}
	c.w.Verbatim("txt", graph)
}

// LATENCY DOCTOR
func cmdLatencyDoctor(c *Client, args [][]byte) {
	s := c.srv
	f := latency.Facts{
		Threshold:         s.latencyThreshold.Int(),
		SlowlogSlowerThan: s.cfg.Lookup("slowlog-log-slower-than").Int(),
		FsyncAlways:       s.cfg.Lookup("appendfsync").String() == "always",
		Hz:                int(s.cfg.Lookup("hz").Int()),
		AnonHugePages:     anonHugePages() > 0,
	}
	c.w.Verbatim("txt", s.latency.Doctor(f, time.Now().Unix()))
}

// LATENCY RESET [event ...]
func cmdLatencyReset(c *Client, args [][]byte) {
	events := make([]string, 0, len(args)-2)
	for _, a := range args[2:] {
		events = append(events, string(a))
	}
	c.w.Int(int64(c.srv.latency.Reset(events...)))
}

// LATENCY HISTOGRAM [command ...]: the cumulative distribution of the
// latencies of every command that has one, or of the named commands (a
// container names its subcommands too; unknown names are skipped).
func cmdLatencyHistogram(c *Client, args [][]byte) {
	s := c.srv
	c.publishStats() // the batch's earlier commands count, as in Redis
	var cmds []*Command
	if len(args) == 2 {
		cmds = s.table.all()
	} else {
		for _, a := range args[2:] {
			cmd := s.table.byFullName(string(a))
			if cmd == nil {
				continue
			}
			cmds = append(cmds, cmd)
			subs := make([]*Command, 0, len(cmd.Sub))
			for _, sc := range cmd.Sub {
				subs = append(subs, sc)
			}
			slices.SortFunc(subs, func(a, b *Command) int { return strings.Compare(a.Name, b.Name) })
			cmds = append(cmds, subs...)
		}
	}
	n := 0
	for _, cmd := range cmds {
		if h := cmd.hist.Load(); h != nil && h.Total() > 0 {
			n++
		}
	}
	c.w.Map(n)
	for _, cmd := range cmds {
		h := cmd.hist.Load()
		if h == nil || h.Total() == 0 {
			continue
		}
		c.w.BulkString(cmd.Name)
		c.w.Map(2)
		c.w.BulkString("calls")
		c.w.Int(h.Total())
		c.w.BulkString("histogram_usec")
		var usec, cum []int64
		h.CDF(func(u, n int64) { usec, cum = append(usec, u), append(cum, n) })
		c.w.Map(len(usec))
		for i := range usec {
			c.w.Int(usec[i])
			c.w.Int(cum[i])
		}
	}
}

// infoLatencyStats is INFO latencystats: per command that ran since the
// last CONFIG RESETSTAT, the latency-tracking-info-percentiles of its
// latencies, in microseconds.
func (s *Server) infoLatencyStats(b []byte) []byte {
	if !s.latencyTracking.Bool() {
		return b
	}
	ps := s.cfg.Lookup("latency-tracking-info-percentiles").Floats()
	for _, cmd := range s.table.all() {
		h := cmd.hist.Load()
		if h == nil || h.Total() == 0 {
			continue
		}
		b = fmt.Appendf(b, "latency_percentiles_usec_%s:", cmd.Name)
		for i, p := range ps {
			if i > 0 {
				b = append(b, ',')
			}
			b = fmt.Appendf(b, "p%s=%.3f", latency.FormatPercentile(p), float64(h.ValueAtPercentile(p))/1000)
		}
		b = append(b, "\r\n"...)
	}
	return b
}

// histogram returns cmd's latency histogram, made on first use.
func (cmd *Command) histogram() *latency.Histogram {
	if h := cmd.hist.Load(); h != nil {
		return h
	}
	cmd.hist.CompareAndSwap(nil, new(latency.Histogram))
	return cmd.hist.Load()
}

// latencyEvent records a command that ran for d, at or over
// latency-monitor-threshold, as Redis's call() does.
func (s *Server) latencyEvent(cmd *Command, d time.Duration) {
	event := "command"
	if cmd.Flags&Fast != 0 {
		event = "fast-command"
	}
	s.latency.Add(event, d.Milliseconds(), time.Now().Unix())
}

// latencySample records event's latency when it is at or over
// latency-monitor-threshold (Redis's latencyAddSampleIfNeeded).
func (s *Server) latencySample(event string, d time.Duration) {
	if t := s.latencyThreshold.Int(); t > 0 && d.Milliseconds() >= t {
		s.latency.Add(event, d.Milliseconds(), time.Now().Unix())
	}
}

// anonHugePages returns the bytes of the process's memory in transparent
// huge pages (AnonHugePages in /proc/self/smaps_rollup; 0 where it cannot
// be read), which LATENCY DOCTOR advises against as Redis does.
func anonHugePages() int64 {
	f, err := os.Open("/proc/self/smaps_rollup")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Bytes()
		if rest, ok := bytes.CutPrefix(line, []byte("AnonHugePages:")); ok {
			var kb int64
			fmt.Sscan(string(rest), &kb)
			return kb * 1024
		}
	}
	return 0
}
