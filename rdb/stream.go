package rdb

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"
	"strings"

	"github.com/hotkv/hotkv/stream"
)

// streamIDLen is sizeof(streamID): the 16 bytes of a stream ID as Redis
// stores it in radix tree keys and PEL IDs (ms then seq, big endian).
const streamIDLen = 16

// appendStreamID appends id as streamEncodeID lays it out.
func appendStreamID(dst []byte, id stream.ID) []byte {
	dst = binary.BigEndian.AppendUint64(dst, id.Ms)
	return binary.BigEndian.AppendUint64(dst, id.Seq)
}

// streamIDFrom is streamDecodeID; b holds streamIDLen bytes.
func streamIDFrom(b []byte) stream.ID {
	return stream.ID{Ms: binary.BigEndian.Uint64(b), Seq: binary.BigEndian.Uint64(b[8:])}
}

// appendMillis is rdbSaveMillisecondTime: an int64, little endian.
func appendMillis(dst []byte, ms int64) []byte {
	return binary.LittleEndian.AppendUint64(dst, uint64(ms))
}

// appendStream appends a stream as Redis 7.0's rdbSaveObject does, as
// RDB_TYPE_STREAM_LISTPACKS_2, or as RDB_TYPE_STREAM_LISTPACKS, without the
// fields it lacks, for a Legacy dump:
//
//	nodes: count, then per node its master ID (a 16-byte string) and
//	    its listpack (a string, LZF-compressed under rdbcompression)
//	length, last ID (ms, seq)
//	[first ID, max deleted entry ID, entries added]        (v2 only)
//	groups: count, then per group its name, last ID, [entries read (v2)],
//	    its PEL (count, then per entry the raw 16-byte ID, the delivery
//	    time as 8 little-endian bytes and the delivery count), and its
//	    consumers (count, then per consumer its name, seen time as 8
//	    little-endian bytes, and its PEL: count and raw IDs)
//
// Lengths are RDB lengths; an entries-read of -1 is written as 2^64-1, as
// rdbSaveLen writes the long long.
func appendStream(dst []byte, d *stream.Dump, o *EncodeOptions) (byte, []byte) {
	var key [streamIDLen]byte
	dst = AppendLen(dst, uint64(len(d.Nodes)))
	for _, n := range d.Nodes {
		dst = AppendString(dst, appendStreamID(key[:0], n.Master), o.Compress)
		dst = AppendString(dst, n.Listpack, o.Compress)
	}
	dst = AppendLen(dst, d.Length)
	dst = AppendLen(dst, d.LastID.Ms)
	dst = AppendLen(dst, d.LastID.Seq)
	if !d.Legacy {
		dst = AppendLen(dst, d.FirstID.Ms)
		dst = AppendLen(dst, d.FirstID.Seq)
		dst = AppendLen(dst, d.MaxDeletedID.Ms)
		dst = AppendLen(dst, d.MaxDeletedID.Seq)
		dst = AppendLen(dst, d.EntriesAdded)
	}
	dst = AppendLen(dst, uint64(len(d.Groups)))
	for _, g := range d.Groups {
		dst = AppendString(dst, g.Name, o.Compress)
		dst = AppendLen(dst, g.LastID.Ms)
		dst = AppendLen(dst, g.LastID.Seq)
		if !d.Legacy {
			dst = AppendLen(dst, uint64(g.EntriesRead))
		}
		dst = AppendLen(dst, uint64(len(g.Pending)))
		for _, p := range g.Pending {
			dst = appendStreamID(dst, p.ID)
			dst = appendMillis(dst, p.DeliveryTime)
			dst = AppendLen(dst, p.DeliveryCount)
		}
		dst = AppendLen(dst, uint64(len(g.Consumers)))
		for _, c := range g.Consumers {
			dst = AppendString(dst, c.Name, o.Compress)
			dst = appendMillis(dst, c.SeenTime)
			dst = AppendLen(dst, uint64(len(c.Pending)))
			for _, id := range c.Pending {
				dst = appendStreamID(dst, id)
			}
		}
	}
	if d.Legacy {
		return TypeStreamListpacks, dst
	}
	return TypeStreamListpacks2, dst
}

// readLenValue reads a length that Redis loads with rdbLoadLen and checks
// only for a short read (rioGetReadError), so that RDB_LENERR, 2^64-1, is
// an ordinary value: stream counters and IDs, entries-read (-1 is written
// so), delivery counts. Hence also Redis's quirk: an unknown length
// encoding (a first byte from 0x82 to 0xBF) is no error there but makes
// rdbLoadLen return RDB_LENERR after consuming that byte, so it reads as
// 2^64-1.
func (r *Reader) readLenValue() (uint64, error) {
	if r.off < len(r.p) {
		if b := r.p[r.off]; b>>6 == 2 && b != len32Bit && b != len64Bit {
			r.off++
			return math.MaxUint64, nil
		}
	}
	n, _, err := r.ReadLenEncoded()
	return n, err
}

// readStreamID reads an ID stored as two lengths (ms, seq).
func (r *Reader) readStreamID() (stream.ID, error) {
	ms, err := r.readLenValue()
	if err != nil {
		return stream.ID{}, err
	}
	seq, err := r.readLenValue()
	if err != nil {
		return stream.ID{}, err
	}
	return stream.ID{Ms: ms, Seq: seq}, nil
}

// readRawStreamID reads an ID stored as its 16 raw bytes (a PEL entry).
func (r *Reader) readRawStreamID() (stream.ID, error) {
	b, err := r.ReadRaw(streamIDLen)
	if err != nil {
		return stream.ID{}, err
	}
	return streamIDFrom(b), nil
}

// readMillis is rdbLoadMillisecondTime: 8 bytes, little endian.
func (r *Reader) readMillis() (int64, error) {
	b, err := r.ReadRaw(8)
	if err != nil {
		return 0, err
	}
	return int64(binary.LittleEndian.Uint64(b)), nil
}

// readStream reads TypeStreamListpacks or TypeStreamListpacks2 as Redis
// 7.0's rdbLoadObject does (see appendStream for the layout), then checks
// the whole with stream.Load, whose checks include those of Redis's deep
// sanitization (streamValidateListpackIntegrity, duplicate node keys,
// group and consumer names and PEL entries, consumer PEL entries missing
// from the group's PEL, group PEL entries without a consumer).
//
// Redis keeps nodes, groups, consumers and PELs in radix trees, so their
// order in the data does not matter to it: the dump returned is in the
// order Redis would hold and write them (nodes and PEL entries by ID,
// groups and consumers by name, bytewise). Listpacks are kept as read.
// A stream may be empty (no nodes, length 0): Redis writes such streams.
func readStream(r *Reader, typ byte) (*Value, error) {
	d, err := readStreamDump(r, typ, true)
	if err != nil {
		return nil, err
	}
	if _, err := stream.Load(*d); err != nil {
		return nil, corruptf("stream: %v", err)
	}
	return &Value{Kind: KindStream, Stream: d}, nil
}

// readStreamDump reads a stream's data and puts it in Redis's order,
// without checking it as a whole. With check, it makes the checks
// rdbLoadObject makes as it reads (each node's listpack, duplicate nodes,
// a length without nodes, and readStreamGroup's), reporting failures as
// Redis does.
func readStreamDump(r *Reader, typ byte, check bool) (*stream.Dump, error) {
	d := &stream.Dump{Legacy: typ == TypeStreamListpacks}
	n, err := r.ReadLen()
	if err != nil {
		return nil, err
	}
	d.Nodes = make([]stream.Node, 0, capHint(n, r.Remaining()/2))
	masters := make(map[stream.ID]struct{})
	for ; n > 0; n-- {
		key, err := r.ReadStringBytes()
		if err != nil {
			return nil, err
		}
		if len(key) != streamIDLen {
			return nil, report(lineStreamNodeKey, corruptf("stream node key of %d bytes", len(key)),
				"Stream node key entry is not the size of a stream ID")
		}
		master := streamIDFrom(key)
		lp, err := r.ReadStringBytes()
		if err != nil {
			return nil, err
		}
		if check && !stream.CheckNode(master, lp) {
			return nil, report(lineStreamListpack, corruptf("stream node %v", master), "Stream listpack integrity check failed.")
		}
		if _, dup := masters[master]; dup {
			return nil, report(lineStreamNodeDup, corruptf("stream node %v twice", master), "Listpack re-added with existing key")
		}
		masters[master] = struct{}{}
		d.Nodes = append(d.Nodes, stream.Node{Master: master, Listpack: bytes.Clone(lp)})
	}
	if d.Length, err = r.readLenValue(); err != nil {
		return nil, err
	}
	if d.LastID, err = r.readStreamID(); err != nil {
		return nil, err
	}
	if !d.Legacy {
		if d.FirstID, err = r.readStreamID(); err != nil {
			return nil, err
		}
		if d.MaxDeletedID, err = r.readStreamID(); err != nil {
			return nil, err
		}
		if d.EntriesAdded, err = r.readLenValue(); err != nil {
			return nil, err
		}
	}
	if check && d.Length != 0 && len(d.Nodes) == 0 {
		return nil, report(lineStreamLength, corruptf("stream of length %d without nodes", d.Length),
			"Stream length inconsistent with rax entries")
	}
	ng, err := r.ReadLen()
	if err != nil {
		return nil, err
	}
	d.Groups = make([]stream.GroupDump, 0, capHint(ng, r.Remaining()/4))
	names := make(map[string]struct{})
	for ; ng > 0; ng-- {
		g, err := readStreamGroup(r, d.Legacy, check, names)
		if err != nil {
			return nil, err
		}
		d.Groups = append(d.Groups, g)
	}

	slices.SortStableFunc(d.Nodes, func(a, b stream.Node) int { return a.Master.Compare(b.Master) })
	slices.SortStableFunc(d.Groups, func(a, b stream.GroupDump) int { return strings.Compare(a.Name, b.Name) })
	for i := range d.Groups {
		g := &d.Groups[i]
		slices.SortStableFunc(g.Pending, func(a, b stream.PendingDump) int { return a.ID.Compare(b.ID) })
		slices.SortStableFunc(g.Consumers, func(a, b stream.ConsumerDump) int { return strings.Compare(a.Name, b.Name) })
		for j := range g.Consumers {
			slices.SortStableFunc(g.Consumers[j].Pending, stream.ID.Compare)
		}
	}
	return d, nil
}

// readStreamGroup reads one consumer group: its name, last ID, entries
// read (not in legacy streams), PEL and consumers, with the checks
// rdbLoadObject makes as it reads them (names holds the groups' names so
// far): duplicate group names, PEL entries and consumers, consumer PEL
// entries missing from the group's PEL or repeated, and, with deep
// sanitization, group PEL entries that no consumer owns.
func readStreamGroup(r *Reader, legacy, check bool, names map[string]struct{}) (stream.GroupDump, error) {
	var g stream.GroupDump
	name, err := r.ReadString()
	if err != nil {
		return g, err
	}
	g.Name = name
	if g.LastID, err = r.readStreamID(); err != nil {
		return g, err
	}
	if !legacy {
		er, err := r.readLenValue()
		if err != nil {
			return g, err
		}
		g.EntriesRead = int64(er)
	}
	if _, dup := names[name]; check && dup {
		return g, report(lineStreamGroupDup, corruptf("stream group %q twice", name), "Duplicated consumer group name %s", name)
	}
	names[name] = struct{}{}
	owner := make(map[stream.ID]int) // PEL entry -> consumer index + 1, 0: none yet
	np, err := r.ReadLen()
	if err != nil {
		return g, err
	}
	g.Pending = make([]stream.PendingDump, 0, capHint(np, r.Remaining()/(streamIDLen+9)))
	for ; np > 0; np-- {
		var p stream.PendingDump
		if p.ID, err = r.readRawStreamID(); err != nil {
			return g, err
		}
		if p.DeliveryTime, err = r.readMillis(); err != nil {
			return g, err
		}
		if p.DeliveryCount, err = r.readLenValue(); err != nil {
			return g, err
		}
		if _, dup := owner[p.ID]; check && dup {
			return g, report(lineStreamPELDup, corruptf("stream PEL entry %v twice", p.ID),
				"Duplicated global PEL entry loading stream consumer group")
		}
		owner[p.ID] = 0
		g.Pending = append(g.Pending, p)
	}
	nc, err := r.ReadLen()
	if err != nil {
		return g, err
	}
	g.Consumers = make([]stream.ConsumerDump, 0, capHint(nc, r.Remaining()/10))
	consumers := make(map[string]struct{})
	for ; nc > 0; nc-- {
		var c stream.ConsumerDump
		if c.Name, err = r.ReadString(); err != nil {
			return g, err
		}
		if _, dup := consumers[c.Name]; check && dup {
			return g, report(lineStreamConsumerDup, corruptf("stream consumer %q twice", c.Name), "Duplicate stream consumer detected.")
		}
		consumers[c.Name] = struct{}{}
		mine := make(map[stream.ID]struct{})
		if c.SeenTime, err = r.readMillis(); err != nil {
			return g, err
		}
		n, err := r.ReadLen()
		if err != nil {
			return g, err
		}
		c.Pending = make([]stream.ID, 0, capHint(n, r.Remaining()/streamIDLen))
		for ; n > 0; n-- {
			id, err := r.readRawStreamID()
			if err != nil {
				return g, err
			}
			if _, ok := owner[id]; check && !ok {
				return g, report(lineStreamNACKMissing, corruptf("consumer PEL entry %v not in the group's", id),
					"Consumer entry not found in group global PEL")
			}
			if _, dup := mine[id]; check && dup {
				return g, report(lineStreamNACKDup, corruptf("consumer PEL entry %v twice", id),
					"Duplicated consumer PEL entry  loading a stream consumer group")
			}
			mine[id] = struct{}{}
			owner[id] = len(g.Consumers) + 1
			c.Pending = append(c.Pending, id)
		}
		g.Consumers = append(g.Consumers, c)
	}
	for _, p := range g.Pending {
		if check && owner[p.ID] == 0 {
			return g, report(lineStreamNACKOrphan, corruptf("stream PEL entry %v without consumer", p.ID),
				"Stream CG PEL entry without consumer")
		}
	}
	return g, nil
}
