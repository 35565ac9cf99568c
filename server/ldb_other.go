//go:build !linux

package server

import "time"

// waitReadable waits a while: connections off Linux have goroutines of
// their own, whose reads block, so the debugger never waits here.
func waitReadable(fd int, d time.Duration) { time.Sleep(d) }
