//go:build linux

package aof

import (
	"os"
	"syscall"
)

// fdatasync is redis_fsync on Linux: fdatasync(2), which flushes the data
// and the metadata needed to read it back (the size), not the times.
func fdatasync(f *os.File) error {
	sc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := sc.Control(func(fd uintptr) {
		for {
			serr = syscall.Fdatasync(int(fd))
			if serr != syscall.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	if serr != nil {
		return &os.PathError{Op: "fdatasync", Path: f.Name(), Err: serr}
	}
	return nil
}
