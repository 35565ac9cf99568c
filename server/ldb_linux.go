//go:build linux

package server

import (
	"syscall"
	"time"
	"unsafe"
)

// waitReadable waits until fd has input (or hung up), at most d.
func waitReadable(fd int, d time.Duration) {
	if fd < 0 {
		time.Sleep(d)
		return
	}
	pfd := struct {
		fd             int32
		events, revent int16
	}{fd: int32(fd), events: 0x1} // POLLIN
	ts := syscall.NsecToTimespec(d.Nanoseconds())
	syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&pfd)), 1, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
}
