//go:build !linux

package aof

import "os"

// fdatasync is redis_fsync where fdatasync(2) is not used: fsync.
func fdatasync(f *os.File) error { return f.Sync() }
