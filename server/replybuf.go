package server

import (
	"math/bits"
	"sync/atomic"
	"time"
)

// Redis's PROTO_REPLY_CHUNK_BYTES, PROTO_REPLY_MIN_BYTES and
// REPLY_BUFFER_DEFAULT_PEAK_RESET_TIME.
const (
	replyChunkBytes            = 16 * 1024
	replyMinBytes              = 1024
	replyBufDefaultPeakResetMs = 5000
)

// replyBuf models a Redis client's static reply buffer, which CLIENT LIST
// reports as rbs (its size) and rbp (its peak), for the cron to resize as
// Redis's clientsCronResizeOutputBuffer does. HotKV's own reply buffer is
// a growing slice; the model follows the bytes a client's replies put in
// it between two writes to the socket, as much of them as Redis's buffer
// would have held (the rest goes to Redis's reply list).
type replyBuf struct {
	size atomic.Int64 // buf_usable_size
	peak atomic.Int64 // buf_peak
	// peakReset is buf_peak_last_reset_time, in unix milliseconds but
	// for its first value: Redis starts it at server.unixtime (seconds),
	// so the first cron run resets the peak.
	peakReset int64 // the cron's
}

// replyBufConfig is what DEBUG REPLYBUFFER sets.
type replyBufConfig struct {
	peakResetMs atomic.Int64 // reply_buffer_peak_reset_time; -1: never
	noResizing  atomic.Bool  // !reply_buffer_resizing_enabled
	shrinks     atomic.Int64 // INFO reply_buffer_shrinks
	expands     atomic.Int64 // INFO reply_buffer_expands
}

// initReplyBuf gives a new client its 16 KB buffer, its peak at the full
// size (createClient).
func (c *Client) initReplyBuf(now time.Time) {
	c.rbuf.size.Store(replyChunkBytes)
	c.rbuf.peak.Store(replyChunkBytes)
	c.rbuf.peakReset = now.Unix()
}

// noteReplyBytes records that n bytes of replies were pending at a write
// to the socket (_addReplyToBuffer's peak): the connection's goroutine.
func (c *Client) noteReplyBytes(n int) {
	n64 := min(int64(n), c.rbuf.size.Load())
	if n64 > c.rbuf.peak.Load() {
		c.rbuf.peak.Store(n64)
	}
}

// resizeReplyBufs is the cron's clientsCronResizeOutputBuffer for every
// client: a buffer whose peak stayed under half its size shrinks to the
// peak (at least 1 KB), a full one doubles (up to 16 KB), and the peak is
// reset every reply_buffer_peak_reset_time milliseconds.
func (s *Server) resizeReplyBufs(now time.Time) {
	rc := &s.replyBuf
	if rc.noResizing.Load() {
		return
	}
	nowMs := now.UnixMilli()
	resetMs := rc.peakResetMs.Load()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.mu.clients {
		b := &c.rbuf
		size, peak := b.size.Load(), b.peak.Load()
		newSize := int64(0)
		if size/2 >= replyMinBytes && peak < size/2 {
			newSize = max(replyMinBytes, peak+1)
			rc.shrinks.Add(1)
		} else if size*2 < replyChunkBytes*2 && peak == size {
			newSize = min(replyChunkBytes, size*2)
			rc.expands.Add(1)
		}
		if resetMs >= 0 && nowMs-b.peakReset >= resetMs {
			b.peak.Store(0) // bufpos: nothing is pending between batches
			b.peakReset = nowMs
		}
		if newSize != 0 {
			b.size.Store(jemallocUsable(newSize))
		}
	}
}

// jemallocUsable is the usable size jemalloc gives an allocation of n
// bytes (n > 128): n rounded up to its size class, four classes per
// doubling.
func jemallocUsable(n int64) int64 {
	if n <= 128 {
		return (n + 15) &^ 15
	}
	lg := 63 - bits.LeadingZeros64(uint64(n-1)) // 2^lg < n <= 2^(lg+1)
	spacing := int64(1) << (lg - 2)
	return (n + spacing - 1) &^ (spacing - 1)
}

// DEBUG REPLYBUFFER PEAK-RESET-TIME <NEVER|RESET|time> and
// DEBUG REPLYBUFFER RESIZING <0|1>.
func debugReplyBuffer(c *Client, args [][]byte) {
	rc := &c.srv.replyBuf
	switch {
	case equalFold(args[2], "peak-reset-time"):
		switch {
		case equalFold(args[3], "never"):
			rc.peakResetMs.Store(-1)
		case equalFold(args[3], "reset"):
			rc.peakResetMs.Store(replyBufDefaultPeakResetMs)
		default:
			v, ok := parseInt(args[3])
			if !ok {
				c.errorReply(errNotInt)
				return
			}
			rc.peakResetMs.Store(v)
		}
	case equalFold(args[2], "resizing"):
		rc.noResizing.Store(atoi(args[3]) == 0)
	default:
		c.errorReply(fmtSubcommandArgs(args[1], "DEBUG"))
		return
	}
	c.w.OK()
}
