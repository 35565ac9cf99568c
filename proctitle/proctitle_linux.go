//go:build linux

package proctitle

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"unsafe"
)

var (
	mu sync.Mutex
	// area is the argument strings' memory, extended over the environment
	// strings that follow it; argLen is the arguments' part. nil when the
	// bounds could not be established.
	area   []byte
	argLen int
	// used is how far the original arguments or a title may have left
	// bytes other than NUL in area (Set clears up to there).
	used int
	// initErr says why area is nil.
	initErr error
)

func init() { area, argLen, initErr = capture() }

// capture finds the argument area from os.Args (whose strings point into
// it) and checks it against the kernel's arg_start and arg_end.
func capture() ([]byte, int, error) {
	if len(os.Args) == 0 || len(os.Args[0]) == 0 {
		return nil, 0, errors.New("proctitle: no argv[0]")
	}
	base := unsafe.StringData(os.Args[0])
	start := uintptr(unsafe.Pointer(base))
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return nil, 0, err
	}
	f, err := statFields(string(b))
	if err != nil {
		return nil, 0, err
	}
	argStart, argEnd, envStart, envEnd := f[0], f[1], f[2], f[3]
	if argStart != start || argEnd <= argStart {
		return nil, 0, errors.New("proctitle: os.Args[0] is not at the kernel's arg_start")
	}
	// The arguments must be the kernel's, contiguous, each NUL-terminated.
	off := uintptr(0)
	for _, a := range os.Args {
		if uintptr(unsafe.Pointer(unsafe.StringData(a))) != start+off && len(a) > 0 {
			return nil, 0, errors.New("proctitle: os.Args was modified")
		}
		off += uintptr(len(a)) + 1
	}
	if off != argEnd-argStart {
		return nil, 0, errors.New("proctitle: os.Args does not cover the argument area")
	}
	n := argEnd - argStart
	if envStart == argEnd && envEnd > envStart {
		n = envEnd - argStart
	}
	return unsafe.Slice(base, n), int(argEnd - argStart), nil
}

// statFields returns arg_start, arg_end, env_start and env_end (fields 48
// to 51 of proc(5)'s /proc/PID/stat).
func statFields(stat string) ([4]uintptr, error) {
	var out [4]uintptr
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return out, errors.New("proctitle: bad /proc/self/stat")
	}
	fields := strings.Fields(stat[i+1:]) // from field 3 (state)
	if len(fields) < 51-2 {
		return out, errors.New("proctitle: /proc/self/stat has no arg_start")
	}
	for k := range out {
		v, err := strconv.ParseUint(fields[48-3+k], 10, 64)
		if err != nil {
			return out, err
		}
		out[k] = uintptr(v)
	}
	return out, nil
}

// Size is the longest title Set writes whole (0 if it cannot set titles).
func Size() int {
	if area == nil {
		return 0
	}
	return min(len(area)-1, maxTitle)
}

// Set makes title the process title (see the package comment).
func Set(title string) error {
	if area == nil {
		return initErr
	}
	mu.Lock()
	defer mu.Unlock()
	if used == 0 {
		used = argLen
	}
	n := copy(area[:Size()], title)
	end := max(used, n+1)
	clear(area[n:end])
	// The original arguments' area is cleared whole, the environment only
	// as far as titles reached.
	used = max(argLen, n+1)
	return nil
}
