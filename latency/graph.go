package latency

import (
	"fmt"
	"strings"
)

// Graph layout used by LATENCY GRAPH.
const (
	graphCols = 80 // columns per sparkline band
	graphRows = 4  // rows of the curve
)

// Graph returns LATENCY GRAPH's text for event at unix time now, byte for
// byte as Redis 7.0 renders it:
//
//	<event> - high <max> ms, low <min> ms (all time high <max ever> ms)
//	80 dashes
//	the samples as a filled sparkline, 80 columns per band, 4 rows high,
//	a blank row, then each sample's age ("12s", "3m", "2h", "1d") written
//	vertically under its column
//
// The name is compared exactly, as Redis's dictionary lookup. ok is false
// when the event does not exist (Redis then replies "No samples available
// for event '<event>'").
func (m *Monitor) Graph(event string, now int64) (graph string, ok bool) {
	m.mu.Lock()
	ts := m.mu.events[event]
	var samples []Sample
	var allTime int64
	if ts != nil {
		samples, allTime = ts.ordered(), ts.max
	}
	m.mu.Unlock()
	if ts == nil {
		return "", false
	}

	var lo, hi int64
	points := make([]sparkPoint, len(samples))
	for i, s := range samples {
		if i == 0 || s.Latency > hi {
			hi = s.Latency
		}
		if i == 0 || s.Latency < lo {
			lo = s.Latency
		}
		points[i] = sparkPoint{value: float64(s.Latency), label: ageLabel(now - s.Time)}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s - high %d ms, low %d ms (all time high %d ms)\n", event, hi, lo, allTime)
	b.WriteString(strings.Repeat("-", graphCols))
	b.WriteByte('\n')
	renderSparkline(&b, points, graphCols, graphRows)
	return b.String(), true
}

// ageLabel is the label LATENCY GRAPH puts under a sample that is elapsed
// seconds old: seconds below a minute, then minutes, hours, days, each
// truncated. Redis computes elapsed as a C int; so do we.
func ageLabel(elapsed int64) string {
	e := int32(elapsed)
	switch {
	case e < 60:
		return fmt.Sprintf("%ds", e)
	case e < 3600:
		return fmt.Sprintf("%dm", e/60)
	case e < 3600*24:
		return fmt.Sprintf("%dh", e/3600)
	default:
		return fmt.Sprintf("%dd", e/(3600*24))
	}
}

// sparkPoint is one sample of a sparkline and its label ("" for none).
type sparkPoint struct {
	value float64
	label string
}

// Characters of a filled sparkline, from the bottom third of a row to its
// top third; a row entirely under the curve is drawn as '|'.
const (
	sparkFill     = "_o#"
	sparkFullCell = '|'
)

// renderSparkline appends the points as Redis's sparkline renderer does
// with SPARKLINE_FILL (linear scale): the points are cut into bands of at
// most columns points, bands separated by an empty line. Each band is rows
// text rows, each exactly as wide as the band and ending in '\n', and, when
// any point has a label, one row of spaces followed by the labels written
// top to bottom, one character per row, until the longest label in the
// band ends. The vertical scale is the minimum to maximum of all points;
// it has 3*rows steps.
func renderSparkline(b *strings.Builder, points []sparkPoint, columns, rows int) {
	if len(points) == 0 {
		return
	}
	lo, hi := points[0].value, points[0].value
	labels := false
	for _, p := range points {
		lo, hi = min(lo, p.value), max(hi, p.value)
		labels = labels || p.label != ""
	}
	span := hi - lo
	if span == 0 {
		span = 1
	}
	steps := len(sparkFill) * rows
	for start := 0; start < len(points); start += columns {
		if start != 0 {
			b.WriteByte('\n')
		}
		band := points[start:min(start+columns, len(points))]
		line := make([]byte, len(band))

		// The curve: step is the point's height in thirds of a row,
		// truncated twice as Redis's (int)(relval*steps)/relmax.
		for row := range rows {
			for j, p := range band {
				step := int(float64(int((p.value-lo)*float64(steps))) / span)
				step = max(0, min(step, steps-1))
				idx := step - (rows-row-1)*len(sparkFill)
				switch {
				case idx < 0:
					line[j] = ' '
				case idx < len(sparkFill):
					line[j] = sparkFill[idx]
				default:
					line[j] = sparkFullCell
				}
			}
			b.Write(line)
			b.WriteByte('\n')
		}
		if !labels {
			continue
		}

		// One blank row, then the labels vertically.
		b.WriteString(strings.Repeat(" ", len(band)))
		b.WriteByte('\n')
		for k := 0; ; k++ {
			more := false
			for j, p := range band {
				line[j] = ' '
				if k < len(p.label) {
					line[j] = p.label[k]
					more = true
				}
			}
			if !more {
				break
			}
			b.Write(line)
			b.WriteByte('\n')
		}
	}
}
