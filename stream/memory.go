package stream

import "encoding/binary"

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
	entryOverhead    = 4 // its offset in the node (the entry itself is in body)
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
		perEntry := int64(last.body)/int64(max(last.count(), 1)) + entryOverhead
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

// FreeEffort is Redis's lazyfreeGetFreeEffort for a stream: the nodes of
// its radix tree of macro nodes, plus, when it has consumer groups, one per
// group and per entry of the first group's PEL for each group (the first
// group, in name order, stands for all).
func (s *Stream) FreeEffort() int {
	keys := make([][16]byte, len(s.nodes))
	for i, n := range s.nodes {
		binary.BigEndian.PutUint64(keys[i][:8], n.master.Ms)
		binary.BigEndian.PutUint64(keys[i][8:], n.master.Seq)
	}
	effort := raxNodes(keys, 0)
	if len(s.groups) > 0 {
		effort += len(s.groups) * (1 + s.Groups()[0].pel.n)
	}
	return effort
}

// raxNodes counts the nodes of the radix tree (rax.c) holding the sorted,
// distinct keys, below and including the node at their common prefix of
// length depth: a node that branches has one child per next byte, a run
// of bytes that does not branch is one compressed node, and every key
// ends in a node of its own. An empty tree is its root alone.
func raxNodes(keys [][16]byte, depth int) int {
	if len(keys) == 0 || depth == 16 {
		return 1
	}
	first, last := &keys[0], &keys[len(keys)-1]
	l := depth
	for l < 16 && first[l] == last[l] {
		l++
	}
	if l > depth { // a compressed node down to the branch (or the key's end)
		return 1 + raxNodes(keys, l)
	}
	n := 1
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && keys[j][depth] == keys[i][depth] {
			j++
		}
		n += raxNodes(keys[i:j], depth+1)
		i = j
	}
	return n
}
