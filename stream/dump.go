package stream

// Dump is a stream as Redis 7.0's RDB_TYPE_STREAM_LISTPACKS_2 serializes
// it (rdbSaveObject), without the RDB encoding: the nodes, the stream's
// bookkeeping, and the consumer groups. It is what DUMP, RESTORE and the
// RDB code convert to and from bytes.
type Dump struct {
	Nodes        []Node
	Length       uint64
	LastID       ID
	FirstID      ID
	MaxDeletedID ID
	EntriesAdded uint64
	Groups       []GroupDump // ordered by name
	// Legacy marks a dump read from an RDB_TYPE_STREAM_LISTPACKS (v1)
	// value, which lacks FirstID, MaxDeletedID, EntriesAdded and the
	// groups' EntriesRead: Load derives them as Redis does.
	Legacy bool
}

// Node is one node: its radix tree key (the ID of its first entry) and its
// listpack, byte for byte what Redis 7.0 would hold.
type Node struct {
	Master   ID
	Listpack []byte
}

// GroupDump is a consumer group in a Dump.
type GroupDump struct {
	Name        string
	LastID      ID
	EntriesRead int64
	Pending     []PendingDump // the group's PEL, in ID order
	Consumers   []ConsumerDump
}

// PendingDump is an entry of a group's PEL.
type PendingDump struct {
	ID            ID
	DeliveryTime  int64
	DeliveryCount uint64
}

// ConsumerDump is a consumer: its name, seen time and the IDs of its
// pending entries, in ID order, each also in the group's Pending.
type ConsumerDump struct {
	Name     string
	SeenTime int64
	Pending  []ID
}

// Dump returns the stream in its serializable form.
func (s *Stream) Dump() Dump {
	d := Dump{
		Length: s.length, LastID: s.lastID, FirstID: s.firstID,
		MaxDeletedID: s.maxDeletedID, EntriesAdded: s.entriesAdded,
	}
	for _, n := range s.nodes {
		d.Nodes = append(d.Nodes, Node{n.master, n.listpack()})
	}
	for _, g := range s.Groups() {
		gd := GroupDump{Name: g.name, LastID: g.lastID, EntriesRead: g.entriesRead}
		g.pel.each(MinID, func(p *Pending) bool {
			gd.Pending = append(gd.Pending, PendingDump{p.id, p.deliveryTime, p.deliveryCount})
			return true
		})
		for _, c := range g.Consumers() {
			cd := ConsumerDump{Name: c.name, SeenTime: c.seenTime}
			c.pel.each(MinID, func(p *Pending) bool {
				cd.Pending = append(cd.Pending, p.id)
				return true
			})
			gd.Consumers = append(gd.Consumers, cd)
		}
		d.Groups = append(d.Groups, gd)
	}
	return d
}

// Load rebuilds a stream from a dump, with the checks Redis makes when it
// loads one with deep sanitization: well formed listpacks, nodes and
// entries in ID order, a length that matches them, group and consumer
// names unique, every pending entry owned by exactly one consumer. It also
// requires, as Redis always writes, each node's first entry to have the
// node's master ID. The error is ErrCorrupt.
func Load(d Dump) (*Stream, error) {
	s := New()
	var live uint64
	for _, nd := range d.Nodes {
		n, err := decodeNode(nd.Master, nd.Listpack)
		if err != nil {
			return nil, err
		}
		if n.id(0) != n.master || len(s.nodes) > 0 && s.nodes[len(s.nodes)-1].last().Compare(n.master) >= 0 {
			return nil, ErrCorrupt
		}
		s.nodes = append(s.nodes, n)
		live += uint64(n.live)
	}
	if live != d.Length {
		return nil, ErrCorrupt
	}
	s.length, s.lastID = d.Length, d.LastID
	if d.Legacy {
		// streamGetEdgeID: MaxID when there is no entry.
		var ok bool
		if s.firstID, ok = s.edge(true); !ok {
			s.firstID = MaxID
		}
		s.entriesAdded = d.Length
	} else {
		s.firstID, s.maxDeletedID, s.entriesAdded = d.FirstID, d.MaxDeletedID, d.EntriesAdded
	}
	for _, gd := range d.Groups {
		entriesRead := gd.EntriesRead
		if d.Legacy {
			entriesRead = s.estimateEntriesRead(gd.LastID)
		}
		g, err := s.CreateGroup(gd.Name, gd.LastID, entriesRead)
		if err != nil {
			return nil, ErrCorrupt
		}
		for _, pd := range gd.Pending {
			if g.pel.get(pd.ID) != nil {
				return nil, ErrCorrupt
			}
			g.pel.insert(&Pending{id: pd.ID, deliveryTime: pd.DeliveryTime, deliveryCount: pd.DeliveryCount})
		}
		for _, cd := range gd.Consumers {
			c, created := g.CreateConsumer(cd.Name, cd.SeenTime)
			if !created {
				return nil, ErrCorrupt
			}
			for _, id := range cd.Pending {
				p := g.pel.get(id)
				if p == nil || p.consumer != nil {
					return nil, ErrCorrupt
				}
				p.consumer = c
				c.pel.insert(p)
			}
		}
		ok := true
		g.pel.each(MinID, func(p *Pending) bool {
			ok = p.consumer != nil
			return ok
		})
		if !ok {
			return nil, ErrCorrupt
		}
	}
	return s, nil
}

// CheckNode reports whether a node's listpack passes Load's checks of a
// single listpack (those of Redis's streamValidateListpackIntegrity,
// deep), so that a loader can tell a bad listpack from the other reasons
// Load rejects a dump for.
func CheckNode(master ID, lp []byte) bool {
	_, err := decodeNode(master, lp)
	return err == nil
}
