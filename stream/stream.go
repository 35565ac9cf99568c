package stream

import (
	"slices"
)

// Stream is a Redis stream. The zero value is not usable; call New.
type Stream struct {
	nodes        []*node // in ID order; none is empty of entries
	length       uint64  // entries not deleted
	lastID       ID      // last-generated-id
	firstID      ID      // recorded-first-entry-id: first live entry, 0-0 when empty
	maxDeletedID ID      // max-deleted-entry-id
	entriesAdded uint64  // entries-added
	groups       map[string]*Group
}

// Entry is a stream entry: its ID and its fields and values, alternating.
// Fields is nil for an entry that no longer exists where a caller asked
// for it by ID (XREADGROUP history), which Redis replies as a null array.
type Entry struct {
	ID     ID
	Fields [][]byte
}

// New returns an empty stream.
func New() *Stream { return &Stream{} }

// Len returns the number of entries (XLEN).
func (s *Stream) Len() uint64 { return s.length }

// LastID returns the greatest ID the stream ever had (last-generated-id),
// or the one XSETID set.
func (s *Stream) LastID() ID { return s.lastID }

// FirstID returns the ID of the first entry, 0-0 when the stream is empty
// (recorded-first-entry-id).
func (s *Stream) FirstID() ID { return s.firstID }

// MaxDeletedID returns the greatest ID XDEL removed, or XSETID set
// (max-deleted-entry-id).
func (s *Stream) MaxDeletedID() ID { return s.maxDeletedID }

// EntriesAdded returns the number of entries ever added (entries-added),
// or the count XSETID set.
func (s *Stream) EntriesAdded() uint64 { return s.entriesAdded }

// NodeCount returns the number of nodes, XINFO's radix-tree-keys.
func (s *Stream) NodeCount() int { return len(s.nodes) }

// Add appends an entry with the field/value pairs fv (at least one pair;
// they are copied), as XADD: the ID is generated from now, the current
// time in milliseconds, for "*" (the last ID's time and the next sequence
// when the clock is behind it), or completed for "ms-*". lim are the node
// limits. Errors: ErrExhausted when the last ID is MaxID, ErrAddTooSmall
// when the ID is not greater than the last ID, ErrTooLarge when the fields
// and values add up to more than 1 GiB.
func (s *Stream) Add(a AddID, now int64, fv [][]byte, lim Limits) (ID, error) {
	if len(fv) == 0 || len(fv)%2 != 0 {
		panic("stream: Add needs field/value pairs")
	}
	if s.lastID == MaxID {
		return ID{}, ErrExhausted
	}
	id := a.ID
	switch {
	case a.Auto:
		if ms := uint64(now); ms > s.lastID.Ms {
			id = ID{ms, 0}
		} else {
			id, _ = s.lastID.Incr()
		}
	case a.SeqAuto && s.lastID.Ms == id.Ms:
		var ok bool
		if id, ok = s.lastID.Incr(); !ok || id.Ms != s.lastID.Ms {
			return ID{}, ErrAddTooSmall
		}
	}
	if id.Compare(s.lastID) <= 0 {
		return ID{}, ErrAddTooSmall
	}
	total := 0
	for _, b := range fv {
		total += len(b)
	}
	if total > maxListpackSize {
		return ID{}, ErrTooLarge
	}

	var n *node
	if k := len(s.nodes); k > 0 {
		n = s.nodes[k-1]
		maxBytes := lim.MaxBytes
		if maxBytes <= 0 || maxBytes > maxListpackSize {
			maxBytes = maxListpackSize
		}
		if int64(n.size()+total) >= maxBytes ||
			lim.MaxEntries > 0 && int64(n.live+n.deleted) >= lim.MaxEntries {
			n.clip()
			n = nil
		}
	}
	if n == nil {
		n = newNode(id, fv)
		s.nodes = append(s.nodes, n)
	}
	n.append(id, fv)
	s.length++
	s.entriesAdded++
	s.lastID = id
	if s.length == 1 {
		s.firstID = id
	}
	return id, nil
}

// find returns the node and entry index of the entry with the given ID,
// deleted or not, and whether there is one.
func (s *Stream) find(id ID) (*node, int, bool) {
	k := s.nodeFor(id)
	if k < 0 {
		return nil, 0, false
	}
	n := s.nodes[k]
	i := n.search(id)
	if i == n.count() || n.id(i) != id {
		return nil, 0, false
	}
	return n, i, true
}

// nodeFor returns the index of the last node whose master ID is <= id, -1
// when there is none.
func (s *Stream) nodeFor(id ID) int {
	k, found := slices.BinarySearchFunc(s.nodes, id, func(n *node, id ID) int { return n.master.Compare(id) })
	if found {
		return k
	}
	return k - 1
}

// Get returns the entry with the given ID, if the stream has it.
func (s *Stream) Get(id ID) (Entry, bool) {
	n, i, ok := s.find(id)
	if !ok {
		return Entry{}, false
	}
	_, flags, p := n.head(i)
	if flags&flagDeleted != 0 {
		return Entry{}, false
	}
	return Entry{id, n.fvAt(flags, p, make([][]byte, 0, 2*n.pairs(flags, p)))}, true
}

// Exists reports whether the stream has an entry with the given ID
// (streamEntryExists).
func (s *Stream) Exists(id ID) bool {
	n, i, ok := s.find(id)
	return ok && n.flags(i)&flagDeleted == 0
}

// Scan calls fn for each entry with start <= ID <= end, in ID order or,
// when rev, in reverse, until fn returns false.
func (s *Stream) Scan(start, end ID, rev bool, fn func(Entry) bool) {
	if start.Compare(end) > 0 || len(s.nodes) == 0 {
		return
	}
	// The entries' field/value slices are cut from slabs, a few
	// allocations for a range rather than one an entry.
	var slab [][]byte
	entry := func(n *node, id ID, flags uint8, p int) Entry {
		if m := 2 * n.pairs(flags, p); len(slab)+m > cap(slab) {
			slab = make([][]byte, 0, max(m, min(2*cap(slab), 1024), 8))
		}
		k := len(slab)
		slab = n.fvAt(flags, p, slab)
		return Entry{id, slab[k:len(slab):len(slab)]}
	}
	if !rev {
		for k := max(s.nodeFor(start), 0); k < len(s.nodes); k++ {
			n := s.nodes[k]
			for i := n.search(start); i < n.count(); i++ {
				id, flags, p := n.head(i)
				if id.Compare(end) > 0 {
					return
				}
				if flags&flagDeleted == 0 && !fn(entry(n, id, flags, p)) {
					return
				}
			}
		}
		return
	}
	for k := s.nodeFor(end); k >= 0; k-- {
		n := s.nodes[k]
		i := n.count() - 1
		if n.last().Compare(end) > 0 {
			i = n.search(end)
			if i == n.count() || n.id(i) != end {
				i--
			}
		}
		for ; i >= 0; i-- {
			id, flags, p := n.head(i)
			if id.Compare(start) < 0 {
				return
			}
			if flags&flagDeleted == 0 && !fn(entry(n, id, flags, p)) {
				return
			}
		}
	}
}

// Range returns the entries with start <= ID <= end, in ID order or, when
// rev, in reverse, at most count of them when count > 0 (XRANGE,
// XREVRANGE).
func (s *Stream) Range(start, end ID, count int, rev bool) []Entry {
	var out []Entry
	if count > 0 {
		out = make([]Entry, 0, min(count, 1024))
	}
	s.Scan(start, end, rev, func(e Entry) bool {
		out = append(out, e)
		return count <= 0 || len(out) < count
	})
	return out
}

// edge returns the first or, when !first, the last entry's ID, and
// whether the stream has entries.
func (s *Stream) edge(first bool) (ID, bool) {
	var id ID
	found := false
	s.Scan(MinID, MaxID, !first, func(e Entry) bool {
		id, found = e.ID, true
		return false
	})
	return id, found
}

// HeadID returns the ID of the first entry, deleted or not, and MaxID
// when the stream has no nodes (streamGetEdgeID without skipping
// tombstones): Redis propagates an approximate MINID trim as MINID = this.
func (s *Stream) HeadID() ID {
	if len(s.nodes) == 0 {
		return MaxID
	}
	return s.nodes[0].id(0)
}

// LastValidID returns the ID of the last entry, and false when the stream
// is empty (streamLastValidID). It differs from LastID when the last
// entries were deleted.
func (s *Stream) LastValidID() (ID, bool) { return s.edge(false) }

// Delete removes the entries with the given IDs and returns how many it
// removed (XDEL). It updates the first ID and the maximal deleted ID.
//
// Like Redis it only flags an entry deleted inside its node, dropping the
// node when that was its last entry not deleted.
func (s *Stream) Delete(ids ...ID) int {
	deleted := 0
	firstGone := false
	for _, id := range ids {
		if !s.deleteItem(id) {
			continue
		}
		if id == s.firstID {
			firstGone = true
		}
		if id.Compare(s.maxDeletedID) > 0 {
			s.maxDeletedID = id
		}
		deleted++
	}
	if deleted > 0 {
		if s.length == 0 {
			s.firstID = ID{}
		} else if firstGone {
			s.firstID, _ = s.edge(true)
		}
	}
	return deleted
}

// deleteItem is streamDeleteItem.
func (s *Stream) deleteItem(id ID) bool {
	n, i, ok := s.find(id)
	if !ok || n.flags(i)&flagDeleted != 0 {
		return false
	}
	if n.live == 1 {
		k := s.nodeFor(id)
		s.nodes = slices.Delete(s.nodes, k, k+1)
	} else {
		n.markDeleted(i)
	}
	s.length--
	return true
}

// TrimStrategy says what Trim keeps.
type TrimStrategy int

// The trimming strategies of XADD and XTRIM.
const (
	TrimMaxLen TrimStrategy = iota + 1 // MAXLEN: keep at most MaxLen entries
	TrimMinID                          // MINID: drop the entries below MinID
)

// Trim is a trimming request, XADD's and XTRIM's MAXLEN/MINID options.
type Trim struct {
	Strategy TrimStrategy // TrimMaxLen or TrimMinID
	MaxLen   uint64
	MinID    ID
	// Approx ("~") removes whole nodes only.
	Approx bool
	// Limit, when not 0, stops the trimming before a node that would bring
	// the number of removed entries over it. Redis sets it, for "~"
	// without LIMIT, to DefaultTrimLimit; 0 for "=".
	Limit int64
}

// DefaultTrimLimit returns the LIMIT Redis uses for an approximate trim
// given without one: 100 nodes of maxEntries entries, between 10000 (for
// no or a silly limit) and 1000000.
func DefaultTrimLimit(maxEntries int64) int64 {
	l := 100 * maxEntries
	if l <= 0 {
		l = 10000
	}
	return min(l, 1000000)
}

// Trim removes entries from the head of the stream as streamTrim does, and
// returns how many it removed. Whole nodes go first; then, unless Approx,
// the entries still to remove from the first node are flagged deleted in
// it. The maximal deleted ID does not change.
func (s *Stream) Trim(t Trim) int64 {
	if t.Strategy != TrimMaxLen && t.Strategy != TrimMinID {
		return 0
	}
	var deleted int64
	for len(s.nodes) > 0 {
		if t.Strategy == TrimMaxLen && s.length <= t.MaxLen {
			break
		}
		n := s.nodes[0]
		entries := int64(n.live)
		if t.Limit != 0 && deleted+entries > t.Limit {
			break
		}
		var remove bool
		if t.Strategy == TrimMaxLen {
			remove = s.length-uint64(entries) >= t.MaxLen
		} else {
			remove = n.last().Compare(t.MinID) < 0
		}
		if remove {
			s.nodes[0] = nil
			s.nodes = s.nodes[1:]
			s.length -= uint64(entries)
			deleted += entries
			continue
		}
		if t.Approx {
			break
		}
		for i := range n.count() {
			var stop bool
			if t.Strategy == TrimMaxLen {
				stop = s.length <= t.MaxLen
			} else {
				stop = n.id(i).Compare(t.MinID) >= 0
			}
			if stop {
				break
			}
			if n.flags(i)&flagDeleted == 0 {
				n.markDeleted(i)
				s.length--
				deleted++
			}
		}
		break
	}
	if s.length == 0 {
		s.firstID = ID{}
	} else if deleted > 0 {
		s.firstID, _ = s.edge(true)
	}
	return deleted
}

// SetID sets the last ID and, unless entriesAdded is -1, the entries-added
// counter and, when maxDeleted is not 0-0, the maximal deleted ID (XSETID,
// after its arguments were checked: ErrEntriesAddedNegative,
// ErrSetIDBelowGivenMaxDel). Errors, for a stream with entries only:
// ErrSetIDTooSmall when id is below the last entry's, and
// ErrEntriesAddedTooSmall when entriesAdded is below the length. Redis 7.0
// does not compare id with the current maximal deleted ID (7.2 does).
func (s *Stream) SetID(id ID, entriesAdded int64, maxDeleted ID) error {
	if s.length > 0 {
		if last, _ := s.LastValidID(); id.Compare(last) < 0 {
			return ErrSetIDTooSmall
		}
		if entriesAdded != -1 && s.length > uint64(entriesAdded) {
			return ErrEntriesAddedTooSmall
		}
	}
	s.lastID = id
	if entriesAdded != -1 {
		s.entriesAdded = uint64(entriesAdded)
	}
	if !maxDeleted.IsZero() {
		s.maxDeletedID = maxDeleted
	}
	return nil
}
