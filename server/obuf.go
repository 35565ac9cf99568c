package server

import (
	"time"

	"github.com/hotkv/hotkv/config"
)

// Client output buffer limits (client-output-buffer-limit), as Redis's
// checkClientOutputBufferLimits and closeClientOnOutputBufferLimitReached:
// one check, made whenever output is queued for a client (its replies as
// they are flushed, and as a huge reply grows; a pub/sub message; the
// replication stream; a MONITOR line) and by the cron for every client, so
// that a soft limit fires with no new output.

// outputMemer is what an event-loop connection tells of its queued output
// (eventloop.Conn.OutputMem); a goroutine-served one queues none.
type outputMemer interface{ OutputMem() (mem, blocks int) }

// queuedOutput returns the memory of c's output queued beyond its reply
// buffer, in any goroutine: what its connection holds and has not sent
// (Redis's reply list), its push queue (messages, a replica's payload
// not yet handed to the connection) and, for a replica, the blocks of the
// shared replication buffer it has not sent (replicaOutput); and the
// number of blocks.
func (c *Client) queuedOutput() (mem, blocks int) {
	mem, blocks = c.ownOutput()
	shared, n := c.replicaOutput()
	return mem + shared, blocks + n
}

// ownOutput is queuedOutput without a replica's shared blocks: the
// memory c's output holds on its own.
func (c *Client) ownOutput() (mem, blocks int) {
	if om, ok := c.conn.(outputMemer); ok {
		mem, blocks = om.OutputMem()
	}
	return mem + int(c.subs.push.queued.Load()), blocks
}

// replicaOutput returns the memory and number of the shared replication
// buffer's blocks that c, a replica, has not sent (0 for other clients).
func (c *Client) replicaOutput() (mem, blocks int) {
	if r := c.replica.Load(); r != nil {
		m, n := r.Output()
		return int(m), int(n)
	}
	return 0, 0
}

// outputQueued reports whether c has output past the reply buffer's
// first chunk (Redis's static buffer, which is never checked) or queued
// on its connection: whether its flush must check the limits.
func (c *Client) outputQueued(building int) bool {
	if building > replyChunkBytes {
		return true
	}
	mem, _ := c.queuedOutput()
	return mem > 0
}

// outputClass returns c's client-output-buffer-limit class, as Redis's
// getClientType: a replica (one that asked for SYNC or PSYNC), a client
// subscribed to anything, else normal (MONITOR clients included).
func (c *Client) outputClass() int {
	switch {
	case c.replica.Load() != nil:
		return config.ClientReplica
	case c.subscribed():
		return config.ClientPubSub
	}
	return config.ClientNormal
}

// closeOnOutputLimit closes c, asynchronously, when its queued output
// (queuedOutput plus extra, what c's own goroutine has in its reply
// buffer) passes its class's hard limit, or has been over its soft limit
// for more than its seconds; it reports whether it did. fromCron picks
// Redis's log line for the cron's check.
//
// A replica counts the shared replication buffer's blocks it has not sent
// from the moment it attached; its connection's own output only once it
// follows the stream: the payload of its synchronization does not count
// (Redis counts the shared replication buffer, never the payload).
func (c *Client) closeOnOutputLimit(extra int, fromCron bool) bool {
	if c.conn == nil || c.killed.Load() {
		return false
	}
	class := c.outputClass()
	var used int
	if class == config.ClientReplica && !c.replicaOnline.Load() {
		used, _ = c.replicaOutput()
	} else {
		used, _ = c.queuedOutput()
	}
	used += extra
	if used == 0 && class != config.ClientReplica {
		return false // as Redis: the soft limit's clock is left as it was
	}
	if !c.outputLimitReached(class, uint64(used)) {
		return false
	}
	if !c.killed.CompareAndSwap(false, true) {
		return false
	}
	info := string((*Client)(nil).appendClientInfo(nil, c, nil, time.Now()))
	if fromCron {
		c.srv.warnf("Client %s closed for overcoming of output buffer limits.", info)
	} else {
		c.srv.warnf("Client %s scheduled to be closed ASAP for overcoming of output buffer limits.", info)
	}
	c.conn.Close()
	return true
}

// outputLimitReached is Redis's checkClientOutputBufferLimits: whether
// used bytes pass class's hard limit (for replicas at least
// repl-backlog-size), or its soft limit continuously for more than its
// seconds (in whole seconds, as Redis's unixtime). It keeps the time the
// soft limit was first passed.
func (c *Client) outputLimitReached(class int, used uint64) bool {
	lim := c.srv.outputBufferLimit.ClientOutputBufferLimits()[class]
	hardBytes := lim.HardBytes
	if class == config.ClientReplica && hardBytes > 0 {
		if b := uint64(c.srv.cfg.Lookup("repl-backlog-size").Int()); hardBytes < b {
			hardBytes = b
		}
	}
	hard := hardBytes > 0 && used >= hardBytes
	soft := lim.SoftBytes > 0 && used >= lim.SoftBytes
	if soft {
		now := time.Now().Unix()
		if since := c.obufSoftSince.Load(); since == 0 {
			c.obufSoftSince.CompareAndSwap(0, now)
			soft = false // first seen
		} else if now-since <= lim.SoftSeconds {
			soft = false
		}
	} else {
		c.obufSoftSince.Store(0)
	}
	return soft || hard
}

// outputLimitCron checks every client's output limits, as Redis's
// clientsCron does (every client about once a second there; every tick
// here, which costs two atomic loads a client).
func (s *Server) outputLimitCron() {
	var over []*Client
	s.mu.Lock()
	for _, c := range s.mu.clients {
		if mem, _ := c.queuedOutput(); mem > 0 || c.replica.Load() != nil {
			over = append(over, c)
		}
	}
	s.mu.Unlock()
	for _, c := range over {
		c.closeOnOutputLimit(0, true)
	}
}
