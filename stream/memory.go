package stream

// Encoding is OBJECT ENCODING's name for a stream.
func (s *Stream) Encoding() string { return "stream" }

// Clone returns a deep copy of s (COPY), through its serialized form.
func (s *Stream) Clone() any {
	c, err := Load(s.Dump())
	if err != nil {
		panic("stream: a stream's own dump does not load: " + err.Error())
	}
	return c
}

// Per-item estimates of the memory of a stream's parts, in bytes: what
// used_memory counts for a stream (Redis's sizes are similar: radix tree
// nodes, listpack headers, consumer and NACK structs).
const (
	nodeOverhead     = 64
	entryOverhead    = 48
	groupOverhead    = 128
	consumerOverhead = 96
	pendingOverhead  = 64
)

// MemSize returns an estimate of the bytes s occupies: fixed costs per
// node, and per entry the average listpack bytes of the last node's
// entries. The keyspace calls it after every change, so it costs no walk
// over the entries or the nodes (only over the groups and consumers).
func (s *Stream) MemSize() int64 {
	n := int64(64) + int64(len(s.nodes))*nodeOverhead
	if k := len(s.nodes); k > 0 {
		last := s.nodes[k-1]
		perEntry := int64(last.body)/int64(max(len(last.entries), 1)) + entryOverhead
		n += perEntry * int64(s.length)
	}
	for name, g := range s.groups {
		n += groupOverhead + int64(len(name)) + int64(g.pel.n)*pendingOverhead
		for cname := range g.consumers {
			n += consumerOverhead + int64(len(cname))
		}
	}
	return n
}
