package aof

import (
	"io"
	"os"
)

// File is the file an Appender writes: the current incremental file.
// Write appends. OSFile adapts an *os.File. Implementations must allow
// Sync to run concurrently with Write (the background fsync of
// appendfsync everysec).
type File interface {
	Write(p []byte) (int, error)
	// Sync makes the data written durable (fsync or fdatasync).
	Sync() error
	// Truncate changes the file's size (ftruncate): it undoes a short
	// write.
	Truncate(size int64) error
}

// preallocStep is how far ahead of its data the current file is extended
// with zeros under appendfsync always (see OSFile).
const preallocStep = 4 << 20

// spacer is a File that can keep zeros written ahead of its data.
type spacer interface {
	// Reserve makes sure zeros follow the data: when fewer than step/2
	// bytes of them remain, it starts writing step more in the
	// background.
	Reserve(step int64)
	// Trim truncates the file to its data, removing the zeros.
	Trim() error
}

// OSFile adapts f, whose size is size, to an Appender: Write appends at
// size (pwrite: f must not have been opened with O_APPEND), and Sync is
// fdatasync on Linux, as Redis's redis_fsync (fsync elsewhere). Close
// closes f.
//
// Under appendfsync always with Appender.Prealloc (HotKV's
// appendfsync-prealloc, off by default) the Appender keeps up to preallocStep bytes of
// zeros written and fsynced after the data (Reserve): an fdatasync that
// covers only overwritten blocks need not commit the file system's
// metadata, as one that grows the file does, and takes about half as long
// (ext4: ~130 µs against ~250 µs for a batch of commands). Redis does not
// do this. The zeros are trimmed when the Appender closes the file or
// leaves always; after a crash, the Loader ignores them and the server
// trims them before it appends. A copy of the file taken while the server
// runs ends with zeros, which redis-server refuses ("Bad file format")
// and redis-check-aof --fix removes.
func OSFile(f *os.File, size int64) File { return &osFile{f: f, end: size, size: size} }

type osFile struct {
	f    *os.File
	end  int64 // the data's end: where the next Write goes
	size int64 // the file's size: end, or more with zeros after the data
	// grow, while zeros are being added after size, receives the outcome.
	grow   chan growResult
	noGrow bool // adding zeros failed once: no more on this file
}

type growResult struct {
	size int64 // the file's size after the zeros written
	err  error
}

func (o *osFile) Write(p []byte) (int, error) {
	if o.grow != nil && o.end+int64(len(p)) > o.size {
		o.waitGrow()
	}
	n, err := o.f.WriteAt(p, o.end)
	o.end += int64(n)
	o.size = max(o.size, o.end)
	return n, err
}

func (o *osFile) Sync() error { return fdatasync(o.f) }

func (o *osFile) Truncate(size int64) error {
	o.waitGrow()
	err := o.f.Truncate(size)
	if err == nil {
		o.end, o.size = size, size
	}
	return err
}

func (o *osFile) Close() error { return o.f.Close() }

func (o *osFile) Reserve(step int64) {
	if o.grow != nil {
		select {
		case r := <-o.grow:
			o.grown(r)
		default:
			return
		}
	}
	if o.noGrow || o.size-o.end >= step/2 {
		return
	}
	ch := make(chan growResult, 1)
	o.grow = ch
	go func(f *os.File, off int64) {
		n, err := writeZeros(f, off, step)
		if err == nil {
			err = fdatasync(f)
		}
		ch <- growResult{off + n, err}
	}(o.f, o.size)
}

func (o *osFile) Trim() error {
	o.waitGrow()
	if o.size == o.end {
		return nil
	}
	return o.Truncate(o.end)
}

// waitGrow waits for the zeros being added, if any.
func (o *osFile) waitGrow() {
	if o.grow != nil {
		o.grown(<-o.grow)
	}
}

func (o *osFile) grown(r growResult) {
	o.grow = nil
	o.size = max(o.size, r.size)
	if r.err != nil {
		o.noGrow = true
	}
}

// zeros is the source of writeZeros (never written: its pages stay the
// kernel's shared zero page).
var zeros [256 << 10]byte

// writeZeros writes n zero bytes to f at off and returns how many it
// wrote.
func writeZeros(f io.WriterAt, off, n int64) (int64, error) {
	var done int64
	for done < n {
		k, err := f.WriteAt(zeros[:min(n-done, int64(len(zeros)))], off+done)
		done += int64(k)
		if err != nil {
			return done, err
		}
	}
	return done, nil
}
