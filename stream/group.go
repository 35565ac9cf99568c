package stream

import (
	"maps"
	"slices"
	"strings"
)

// InvalidEntriesRead is the entries-read of a group whose count of read
// entries is unknown (SCG_INVALID_ENTRIES_READ): XINFO shows it as nil.
const InvalidEntriesRead = -1

// Group is a consumer group: its last delivered ID, its count of read
// entries, its pending entries list (PEL) and its consumers.
type Group struct {
	name        string
	lastID      ID
	entriesRead int64
	pel         pel
	consumers   map[string]*Consumer
}

// Consumer is a consumer of a group, with its own PEL: the group's
// pending entries last delivered to it.
type Consumer struct {
	name     string
	seenTime int64
	pel      pel
}

// Pending is an entry of a PEL: delivered to a consumer and not yet
// acknowledged.
type Pending struct {
	id            ID
	deliveryTime  int64
	deliveryCount uint64
	consumer      *Consumer
}

// ID returns the ID of the pending entry.
func (p *Pending) ID() ID { return p.id }

// DeliveryTime returns when, in Unix milliseconds, the entry was last
// delivered.
func (p *Pending) DeliveryTime() int64 { return p.deliveryTime }

// DeliveryCount returns how many times the entry was delivered.
func (p *Pending) DeliveryCount() uint64 { return p.deliveryCount }

// Consumer returns the consumer the entry was last delivered to.
func (p *Pending) Consumer() *Consumer { return p.consumer }

// Idle returns the milliseconds since the last delivery at time now, 0
// when the delivery is in the future (XPENDING's idle).
func (p *Pending) Idle(now int64) int64 { return max(now-p.deliveryTime, 0) }

// Name returns the consumer's name.
func (c *Consumer) Name() string { return c.name }

// SeenTime returns when, in Unix milliseconds, the consumer was created
// or last tried to read or claim (XINFO's idle is now minus this).
func (c *Consumer) SeenTime() int64 { return c.seenTime }

// PendingCount returns the number of entries pending for the consumer.
func (c *Consumer) PendingCount() int { return c.pel.n }

// Name returns the group's name.
func (g *Group) Name() string { return g.name }

// LastID returns the group's last delivered ID.
func (g *Group) LastID() ID { return g.lastID }

// EntriesRead returns the group's count of read entries, or
// InvalidEntriesRead.
func (g *Group) EntriesRead() int64 { return g.entriesRead }

// SetID sets the last delivered ID and the count of read entries
// (XGROUP SETID; entriesRead is InvalidEntriesRead without ENTRIESREAD).
func (g *Group) SetID(id ID, entriesRead int64) {
	g.lastID, g.entriesRead = id, entriesRead
}

// PendingCount returns the number of entries in the group's PEL.
func (g *Group) PendingCount() int { return g.pel.n }

// Pending returns the group's pending entry with the given ID, nil when
// there is none.
func (g *Group) Pending(id ID) *Pending { return g.pel.get(id) }

// ConsumerCount returns the number of consumers.
func (g *Group) ConsumerCount() int { return len(g.consumers) }

// Consumer returns the consumer with the given name, nil when there is
// none, without touching its seen time.
func (g *Group) Consumer(name string) *Consumer { return g.consumers[name] }

// Consumers returns the consumers ordered by name.
func (g *Group) Consumers() []*Consumer {
	return slices.SortedFunc(maps.Values(g.consumers), func(a, b *Consumer) int { return strings.Compare(a.name, b.name) })
}

// CreateConsumer creates a consumer seen at time now and returns it and
// true, or the existing one and false (XGROUP CREATECONSUMER).
func (g *Group) CreateConsumer(name string, now int64) (*Consumer, bool) {
	if c := g.consumers[name]; c != nil {
		return c, false
	}
	c := &Consumer{name: name, seenTime: now}
	g.consumers[name] = c
	return c, true
}

// ConsumerFor returns the consumer with the given name, created if needed
// (then created is true), and sets its seen time to now, as XREADGROUP,
// XCLAIM and XAUTOCLAIM look their consumer up.
func (g *Group) ConsumerFor(name string, now int64) (c *Consumer, created bool) {
	c, created = g.CreateConsumer(name, now)
	c.seenTime = now
	return c, created
}

// DeleteConsumer deletes a consumer and its pending entries, from the
// group's PEL too, and returns how many it had; ok is false when there is
// no such consumer (XGROUP DELCONSUMER).
func (g *Group) DeleteConsumer(name string) (pending int, ok bool) {
	c := g.consumers[name]
	if c == nil {
		return 0, false
	}
	c.pel.each(MinID, func(p *Pending) bool {
		g.pel.remove(p.id)
		return true
	})
	delete(g.consumers, name)
	return c.pel.n, true
}

// Ack removes the given IDs from the PEL and returns how many were there
// (XACK).
func (g *Group) Ack(ids ...ID) int {
	n := 0
	for _, id := range ids {
		if p := g.pel.remove(id); p != nil {
			p.consumer.pel.remove(id)
			n++
		}
	}
	return n
}

// drop removes p from the group's PEL and its consumer's.
func (g *Group) drop(p *Pending) {
	g.pel.remove(p.id)
	p.consumer.pel.remove(p.id)
}

// PendingSummary is the short form of XPENDING.
type PendingSummary struct {
	Count       int
	First, Last ID                // valid when Count > 0
	Consumers   []ConsumerPending // consumers with pending entries, by name
}

// ConsumerPending is a consumer's name and number of pending entries.
type ConsumerPending struct {
	Name  string
	Count int
}

// PendingSummary returns the group's PEL summary (XPENDING key group).
func (g *Group) PendingSummary() PendingSummary {
	sum := PendingSummary{Count: g.pel.n}
	if sum.Count == 0 {
		return sum
	}
	sum.First, sum.Last = g.pel.first().id, g.pel.last().id
	for _, c := range g.Consumers() {
		if c.pel.n > 0 {
			sum.Consumers = append(sum.Consumers, ConsumerPending{c.name, c.pel.n})
		}
	}
	return sum
}

// PendingRange returns the pending entries with start <= ID <= end, of the
// consumer c or, when c is nil, of the whole group, in ID order: those
// idle at least minIdle milliseconds at time now when minIdle is not 0,
// at most limit of them unless limit < 0 (XPENDING's extended form, where
// a COUNT of 0 returns nothing, and XINFO STREAM FULL, where it means no
// limit).
func (g *Group) PendingRange(c *Consumer, start, end ID, limit int, minIdle, now int64) []*Pending {
	l := &g.pel
	if c != nil {
		l = &c.pel
	}
	var out []*Pending
	if limit == 0 {
		return nil
	}
	l.each(start, func(p *Pending) bool {
		if p.id.Compare(end) > 0 {
			return false
		}
		if minIdle == 0 || now-p.deliveryTime >= minIdle {
			out = append(out, p)
		}
		return limit < 0 || len(out) < limit
	})
	return out
}

// deliver records the delivery of entry id to c at time now: a new PEL
// entry, or one that moves to c with its count reset to 1.
func (g *Group) deliver(c *Consumer, id ID, now int64) {
	p := g.pel.get(id)
	if p == nil {
		p = &Pending{id: id}
		g.pel.insert(p)
	} else {
		p.consumer.pel.remove(id)
	}
	p.consumer, p.deliveryTime, p.deliveryCount = c, now, 1
	c.pel.insert(p)
}

// claim moves p to c.
func (g *Group) claim(p *Pending, c *Consumer) {
	if p.consumer == c {
		return
	}
	if p.consumer != nil {
		p.consumer.pel.remove(p.id)
	}
	c.pel.insert(p)
	p.consumer = c
}

// CreateGroup creates a group whose last delivered ID is id, with
// entriesRead (InvalidEntriesRead without ENTRIESREAD) as its count of
// read entries (XGROUP CREATE). The error is ErrBusyGroup.
func (s *Stream) CreateGroup(name string, id ID, entriesRead int64) (*Group, error) {
	if s.groups[name] != nil {
		return nil, ErrBusyGroup
	}
	if s.groups == nil {
		s.groups = make(map[string]*Group)
	}
	g := &Group{name: name, lastID: id, entriesRead: entriesRead, consumers: make(map[string]*Consumer)}
	s.groups[name] = g
	return g, nil
}

// Group returns the group with the given name, nil when there is none.
func (s *Stream) Group(name string) *Group { return s.groups[name] }

// DestroyGroup deletes a group and reports whether there was one (XGROUP
// DESTROY).
func (s *Stream) DestroyGroup(name string) bool {
	if s.groups[name] == nil {
		return false
	}
	delete(s.groups, name)
	return true
}

// GroupCount returns the number of groups.
func (s *Stream) GroupCount() int { return len(s.groups) }

// Groups returns the groups ordered by name.
func (s *Stream) Groups() []*Group {
	return slices.SortedFunc(maps.Values(s.groups), func(a, b *Group) int { return strings.Compare(a.name, b.name) })
}

// ReadNew reads, for consumer c of group g, the entries after the group's
// last delivered ID, at most count of them when count > 0 (XREADGROUP
// with ">"). It advances the last delivered ID and the count of read
// entries as Redis 7.0 does and, unless noack, records the deliveries at
// time now in the PELs (an entry already pending, after XGROUP SETID,
// moves to c with a delivery count of 1).
//
// Redis only serves ">" synchronously, and only then looks the consumer up
// or creates it, when the stream has an entry after the group's last
// delivered ID: LastValidID() greater than g.LastID().
func (s *Stream) ReadNew(g *Group, c *Consumer, count int, noack bool, now int64) []Entry {
	start, ok := g.lastID.Incr()
	if !ok {
		return nil
	}
	var out []Entry
	s.Scan(start, MaxID, false, func(e Entry) bool {
		if e.ID.Compare(g.lastID) > 0 {
			if g.entriesRead != InvalidEntriesRead && !s.rangeHasTombstones(e.ID, MaxID) {
				g.entriesRead++
			} else if s.entriesAdded != 0 {
				g.entriesRead = s.estimateEntriesRead(e.ID)
			}
			g.lastID = e.ID
		}
		if !noack {
			g.deliver(c, e.ID, now)
		}
		out = append(out, e)
		return count <= 0 || len(out) < count
	})
	return out
}

// ReadHistory returns the entries pending for consumer c with IDs after
// after, at most count of them when count > 0 (XREADGROUP with an ID).
// Each one still in the stream counts as delivered again at time now; one
// that is not comes back with nil Fields.
func (s *Stream) ReadHistory(c *Consumer, after ID, count int, now int64) []Entry {
	start, _ := after.Incr()
	var out []Entry
	c.pel.each(start, func(p *Pending) bool {
		if e, ok := s.Get(p.id); ok {
			out = append(out, e)
			p.deliveryTime = now
			p.deliveryCount++
		} else {
			out = append(out, Entry{ID: p.id})
		}
		return count <= 0 || len(out) < count
	})
	return out
}

// ClaimOptions are XCLAIM's options. The zero value claims with none.
type ClaimOptions struct {
	// MinIdle skips entries delivered less than MinIdle milliseconds ago
	// (0: none skipped).
	MinIdle int64
	// Time, when HasTime, is the delivery time to record: TIME, or now
	// minus IDLE. Outside [0, now], and without HasTime, now is recorded.
	Time    int64
	HasTime bool
	// RetryCount, when HasRetryCount and >= 0, sets the delivery count;
	// otherwise the count grows by one, unless JustID.
	RetryCount    int64
	HasRetryCount bool
	// Force creates the PEL entries of entries that are not pending.
	Force bool
	// JustID leaves the claimed entries' Fields nil.
	JustID bool
	// LastID raises the group's last delivered ID to it when greater.
	LastID ID
}

// ClaimResult is what Claim did.
type ClaimResult struct {
	Claimed       []Entry // the claimed entries, in the order of the IDs
	Deleted       []ID    // pending IDs dropped because the stream no longer has them
	Created       bool    // the consumer was created
	LastIDChanged bool    // LastID raised the group's last delivered ID
}

// Claim gives the pending entries with the given IDs to the consumer
// named consumer, at time now (XCLAIM, Redis 7.0): IDs that are not
// pending are skipped unless Force, pending IDs whose entries were
// deleted are dropped from the PEL and not claimed. The consumer is looked
// up (seen time set to now) or created when the first entry is claimed.
func (s *Stream) Claim(g *Group, consumer string, ids []ID, o ClaimOptions, now int64) ClaimResult {
	var r ClaimResult
	if o.LastID.Compare(g.lastID) > 0 {
		g.lastID = o.LastID
		r.LastIDChanged = true
	}
	dt := now
	if o.HasTime && o.Time >= 0 && o.Time <= now {
		dt = o.Time
	}
	var c *Consumer
	for _, id := range ids {
		p := g.pel.get(id)
		e, ok := s.Get(id)
		if !ok {
			if p != nil {
				g.drop(p)
				r.Deleted = append(r.Deleted, id)
			}
			continue
		}
		if p == nil {
			if !o.Force {
				continue
			}
			p = &Pending{id: id, deliveryTime: now, deliveryCount: 1}
			g.pel.insert(p)
		}
		if p.consumer != nil && o.MinIdle != 0 && now-p.deliveryTime < o.MinIdle {
			continue
		}
		if c == nil {
			c, r.Created = g.ConsumerFor(consumer, now)
		}
		g.claim(p, c)
		p.deliveryTime = dt
		if o.HasRetryCount && o.RetryCount >= 0 {
			p.deliveryCount = uint64(o.RetryCount)
		} else if !o.JustID {
			p.deliveryCount++
		}
		if o.JustID {
			e.Fields = nil
		}
		r.Claimed = append(r.Claimed, e)
	}
	return r
}

// AutoClaimResult is what AutoClaim did.
type AutoClaimResult struct {
	Next    ID      // where the next call should start; 0-0 when the scan is over
	Claimed []Entry // with nil Fields when justID
	Deleted []ID    // pending IDs dropped because the stream no longer has them
	Created bool    // the consumer was created
}

// AutoClaim scans the group's PEL from start and gives the entries idle
// at least minIdle milliseconds (any when 0) to the consumer named
// consumer at time now, as XAUTOCLAIM in Redis 7.0: it stops after count
// entries claimed or dropped (pending entries whose stream entries are
// gone are dropped and reported in Deleted) or after 10*count entries
// looked at. The delivery count grows by one unless justID. The consumer
// is looked up or created when the first entry is claimed.
func (s *Stream) AutoClaim(g *Group, consumer string, start ID, count int, minIdle int64, justID bool, now int64) AutoClaimResult {
	var r AutoClaimResult
	var c *Consumer
	attempts := count * 10
	cur := g.pel.seek(start)
	for attempts > 0 && count > 0 {
		attempts--
		p := g.pel.at(cur)
		if p == nil {
			break
		}
		e, ok := s.Get(p.id)
		if !ok {
			g.drop(p)
			r.Deleted = append(r.Deleted, p.id)
			count--
			cur = g.pel.seek(p.id)
			continue
		}
		cur = g.pel.next(cur)
		if minIdle != 0 && now-p.deliveryTime < minIdle {
			continue
		}
		if c == nil {
			c, r.Created = g.ConsumerFor(consumer, now)
		}
		g.claim(p, c)
		p.deliveryTime = now
		if !justID {
			p.deliveryCount++
			r.Claimed = append(r.Claimed, e)
		} else {
			r.Claimed = append(r.Claimed, Entry{ID: e.ID})
		}
		count--
	}
	if p := g.pel.at(cur); p != nil {
		r.Next = p.id
	}
	return r
}

// Lag returns the number of entries the group has yet to read, as XINFO
// GROUPS computes it in Redis 7.0, and false when it cannot be known (nil
// in XINFO).
func (s *Stream) Lag(g *Group) (int64, bool) {
	if s.entriesAdded == 0 {
		return 0, true
	}
	if g.entriesRead != InvalidEntriesRead && !s.rangeHasTombstones(g.lastID, MaxID) {
		return int64(s.entriesAdded) - g.entriesRead, true
	}
	if read := s.estimateEntriesRead(g.lastID); read != InvalidEntriesRead {
		return int64(s.entriesAdded) - read, true
	}
	return 0, false
}

// rangeHasTombstones is Redis 7.0's streamRangeHasTombstones: whether the
// maximal deleted ID lies in [start, end], and after the first entry.
func (s *Stream) rangeHasTombstones(start, end ID) bool {
	if s.length == 0 || s.maxDeletedID.IsZero() || s.firstID.Compare(s.maxDeletedID) > 0 {
		return false
	}
	return start.Compare(s.maxDeletedID) <= 0 && s.maxDeletedID.Compare(end) <= 0
}

// estimateEntriesRead is Redis 7.0's
// streamEstimateDistanceFromFirstEverEntry: the number of entries added
// up to id, when it can be known, or InvalidEntriesRead.
func (s *Stream) estimateEntriesRead(id ID) int64 {
	added := int64(s.entriesAdded)
	if added == 0 {
		return 0
	}
	if s.length == 0 && id.Compare(s.lastID) <= 0 {
		return added
	}
	switch id.Compare(s.lastID) {
	case 0:
		return added
	case 1:
		return InvalidEntriesRead
	}
	if s.maxDeletedID.IsZero() || s.maxDeletedID.Compare(s.firstID) < 0 {
		switch id.Compare(s.firstID) {
		case -1:
			return added - int64(s.length)
		case 0:
			return added - int64(s.length) + 1
		}
	}
	return InvalidEntriesRead
}
