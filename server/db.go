package server

import (
	"github.com/hotkv/hotkv/keyspace"
)

// lookupRead returns key's entry for a read, counting a keyspace hit or
// miss as Redis does (nil when missing).
func (c *Client) lookupRead(key []byte) *keyspace.Entry {
	var e *keyspace.Entry
	if c.noTouch {
		e = c.db.Peek(key)
	} else {
		e = c.db.Get(key)
	}
	return c.countLookup(key, e)
}

// countLookup counts a keyspace hit (e != nil) or miss of key, a miss
// also emitting the keymiss event, and returns e.
func (c *Client) countLookup(key []byte, e *keyspace.Entry) *keyspace.Entry {
	if e == nil {
		c.stats.misses++
		c.notify(evKeyMiss, "keymiss", key)
	} else {
		c.stats.hits++
	}
	return e
}

// lookupWrite returns key's entry for a write (no hit/miss accounting).
func (c *Client) lookupWrite(key []byte) *keyspace.Entry { return c.db.Get(key) }

// readString returns key's string value for a read. It returns ok ==
// false after replying WRONGTYPE; a missing key gives (nil, true).
func (c *Client) readString(key []byte) (v []byte, exists, ok bool) {
	e := c.lookupRead(key)
	if e == nil {
		return nil, false, true
	}
	if e.Kind != keyspace.KindString {
		c.errorReply(errWrongType)
		return nil, true, false
	}
	return e.Str(), true, true
}

// checkType replies WRONGTYPE and returns false when e exists with a kind
// other than k.
func (c *Client) checkType(e *keyspace.Entry, k keyspace.Kind) bool {
	if e != nil && e.Kind != k {
		c.errorReply(errWrongType)
		return false
	}
	return true
}
