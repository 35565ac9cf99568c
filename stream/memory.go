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

// MemSize returns an estimate of the bytes s occupies.
func (s *Stream) MemSize() int64 {
	n := int64(64)
	for _, nd := range s.nodes {
		n += nodeOverhead + int64(nd.body) + int64(len(nd.entries))*entryOverhead
		for _, f := range nd.fields {
			n += int64(len(f))
		}
		for _, e := range nd.entries {
			for _, x := range e.fv {
				n += int64(len(x))
			}
		}
	}
	for name, g := range s.groups {
		n += groupOverhead + int64(len(name)) + int64(g.pel.n)*pendingOverhead
		for cname := range g.consumers {
			n += consumerOverhead + int64(len(cname))
		}
	}
	return n
}
