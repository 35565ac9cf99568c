// Package tracking is the bookkeeping of Redis's client-side caching
// (tracking.c): which clients read which keys (the tracking table of the
// default mode), which clients follow which key prefixes (BCAST mode),
// and the invalidation batches of BCAST mode. It stores client IDs only:
// it knows nothing of connections, locks or configuration, and the caller
// delivers the messages it computes.
//
// A Table is not safe for concurrent use; its owner guards it with a
// mutex of its own.
package tracking

import (
	"math/rand/v2"
	"slices"
	"strings"
)

// Table is the tracking table (key → the IDs of the clients that may
// have the key cached) and the prefix table (prefix → the IDs of the
// BCAST clients that follow it). Keys are names only: the table is shared
// by every database, as in Redis.
type Table struct {
	keys     map[string]map[uint64]struct{}
	items    int
	prefixes map[string]map[uint64]struct{}
	// order is keys' names, for a random pick in O(1) (Evict); pos is
	// each key's index in it.
	order []string
	pos   map[string]int
}

// Remember records that client id may cache key (trackingRememberKeys).
func (t *Table) Remember(id uint64, key string) {
	if t.keys == nil {
		t.keys = make(map[string]map[uint64]struct{})
		t.pos = make(map[string]int)
	}
	ids := t.keys[key]
	if ids == nil {
		ids = make(map[uint64]struct{}, 1)
		t.keys[key] = ids
		t.pos[key] = len(t.order)
		t.order = append(t.order, key)
	}
	if _, ok := ids[id]; !ok {
		ids[id] = struct{}{}
		t.items++
	}
}

// Invalidate forgets key and returns the IDs of the clients that read it,
// in ascending order (nil when nobody did).
func (t *Table) Invalidate(key string) []uint64 {
	ids, ok := t.keys[key]
	if !ok {
		return nil
	}
	out := make([]uint64, 0, len(ids))
	for id := range ids {
		out = append(out, id)
	}
	slices.Sort(out)
	t.items -= len(ids)
	delete(t.keys, key)
	i := t.pos[key]
	last := t.order[len(t.order)-1]
	t.order[i] = last
	t.pos[last] = i
	t.order = t.order[:len(t.order)-1]
	delete(t.pos, key)
	return out
}

// RandomKey returns a key of the tracking table chosen at random, for
// the eviction of tracking-table-max-keys; false when the table is empty.
func (t *Table) RandomKey() (string, bool) {
	if len(t.order) == 0 {
		return "", false
	}
	return t.order[rand.IntN(len(t.order))], true
}

// Forget empties the tracking table (FLUSHDB, FLUSHALL); the
// prefix table stays.
func (t *Table) Forget() {
	t.keys, t.pos, t.order, t.items = nil, nil, nil, 0
}

// Keys is the number of keys in the tracking table (INFO's
// tracking_total_keys), Items the number of (key, client) pairs
// (tracking_total_items), Prefixes the number of prefixes followed
// (tracking_total_prefixes).
func (t *Table) Keys() int     { return len(t.keys) }
func (t *Table) Items() int    { return t.items }
func (t *Table) Prefixes() int { return len(t.prefixes) }

// Empty reports whether the table has neither keys nor prefixes: a key's
// change then concerns nobody.
func (t *Table) Empty() bool { return len(t.keys) == 0 && len(t.prefixes) == 0 }

// Follow makes BCAST client id follow prefix ("" follows every key).
func (t *Table) Follow(id uint64, prefix string) {
	if t.prefixes == nil {
		t.prefixes = make(map[string]map[uint64]struct{})
	}
	ids := t.prefixes[prefix]
	if ids == nil {
		ids = make(map[uint64]struct{}, 1)
		t.prefixes[prefix] = ids
	}
	ids[id] = struct{}{}
}

// Unfollow stops client id following prefix; a prefix nobody follows is
// removed.
func (t *Table) Unfollow(id uint64, prefix string) {
	ids := t.prefixes[prefix]
	delete(ids, id)
	if len(ids) == 0 {
		delete(t.prefixes, prefix)
	}
}

// Matching appends to dst the prefixes key starts with.
func (t *Table) Matching(dst []string, key string) []string {
	for p := range t.prefixes {
		if strings.HasPrefix(key, p) {
			dst = append(dst, p)
		}
	}
	return dst
}

// Followers returns the IDs of the clients following prefix, ascending.
func (t *Table) Followers(prefix string) []uint64 {
	ids := t.prefixes[prefix]
	out := make([]uint64, 0, len(ids))
	for id := range ids {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// Overlap checks a client's new prefixes against its existing ones and
// against each other, as Redis's checkPrefixCollisionsOrReply: two
// prefixes overlap when one starts with the other. For the first
// overlap found it returns the new prefix, the one it overlaps and
// whether that one is an existing prefix (existing are checked first for
// each new prefix, in order; existing is sorted as Redis's radix tree
// iterates it).
func Overlap(existing []string, added []string) (p, with string, withExisting, found bool) {
	for i, a := range added {
		for _, e := range existing {
			if overlaps(e, a) {
				return a, e, true, true
			}
		}
		for _, b := range added[i+1:] {
			if overlaps(a, b) {
				return a, b, false, true
			}
		}
	}
	return "", "", false, false
}

func overlaps(a, b string) bool {
	n := min(len(a), len(b))
	return a[:n] == b[:n]
}

// Batch gathers the keys modified under each prefix for one broadcast
// (Redis's bcastState.keys between two trackingBroadcastInvalidationMessages):
// each key with the ID of the client that modified it last (0: none, as
// an expiry), so that NOLOOP clients are not told of their own changes.
type Batch struct {
	keys map[string]map[string]uint64
}

// Add records that key, under prefix, was modified by client by.
func (b *Batch) Add(prefix, key string, by uint64) {
	if b.keys == nil {
		b.keys = make(map[string]map[string]uint64)
	}
	m := b.keys[prefix]
	if m == nil {
		m = make(map[string]uint64)
		b.keys[prefix] = m
	}
	m[key] = by
}

// Prefixes returns the prefixes with modified keys, sorted (Redis walks
// its prefix table in order).
func (b *Batch) Prefixes() []string {
	out := make([]string, 0, len(b.keys))
	for p := range b.keys {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// Keys returns the keys modified under prefix, sorted as Redis's radix
// tree lists them, leaving out those last modified by client skip when
// skip is not 0 (NOLOOP; trackingBuildBroadcastReply). nil when none is
// left.
func (b *Batch) Keys(prefix string, skip uint64) []string {
	var out []string
	for k, by := range b.keys[prefix] {
		if skip != 0 && by == skip {
			continue
		}
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Empty reports whether the batch has no key.
func (b *Batch) Empty() bool { return len(b.keys) == 0 }
