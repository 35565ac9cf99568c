//go:build race

package server

// raceEnabled: the race detector is on (its shadow memory and its checks
// of every copy make memory and latency figures meaningless).
const raceEnabled = true
