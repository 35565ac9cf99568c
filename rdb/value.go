package rdb

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/hotkv/hotkv/stream"
)

// Kind is the data type of a Value: what TYPE reports for the key.
type Kind uint8

// The kinds of value this package encodes and decodes. Module values are
// not represented (see DecodeValue).
const (
	KindString Kind = iota
	KindList
	KindSet
	KindHash
	KindZSet
	KindStream
)

// String returns the kind's name as TYPE reports it.
func (k Kind) String() string {
	switch k {
	case KindString:
		return "string"
	case KindList:
		return "list"
	case KindSet:
		return "set"
	case KindHash:
		return "hash"
	case KindZSet:
		return "zset"
	case KindStream:
		return "stream"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// ZMember is one sorted-set member and its score.
type ZMember struct {
	Member []byte
	Score  float64
}

// Value is a key's value independent of any in-memory representation: the
// server converts between it and its own data structures. Only the field
// of the Kind is used:
//
//   - KindString: Str.
//   - KindList: Items, the elements from head to tail.
//   - KindSet: Items, the members, unique, in any order.
//   - KindHash: Pairs, field/value pairs with unique fields, in any order
//     (Redis keeps small hashes in insertion order and writes them so).
//   - KindZSet: ZSet, members unique, scores not NaN, in any order.
//   - KindStream: Stream, the stream as package stream serializes it
//     (stream.Dump: its nodes with their listpacks, counters and consumer
//     groups); the server converts with (*stream.Stream).Dump and
//     stream.Load. A Dump with Legacy set is one read from an
//     RDB_TYPE_STREAM_LISTPACKS (v1) value: its FirstID, MaxDeletedID,
//     EntriesAdded and groups' EntriesRead are not stored (zero), and
//     stream.Load derives them as Redis does.
//
// Values decoded by this package never alias the decoded bytes and never
// hold nil elements (an empty element is an empty non-nil slice). Decoded
// sets, hashes and sorted sets are in the order of the encoding, which is
// not meaningful to Redis except for small hashes (insertion order) and
// sorted sets (listpacks in ascending and skiplist dumps in descending
// (score, member) order).
type Value struct {
	Kind   Kind
	Str    []byte
	Items  [][]byte
	Pairs  [][2][]byte
	ZSet   []ZMember
	Stream *stream.Dump
	// Big, for a sorted set, says it is held in its big encoding (a
	// skiplist), which Redis keeps after the set shrinks or after SORT
	// converted it: it is written as TypeZSet2 whatever its size.
	Big bool
}

// EncodeOptions are the Redis 7.0 configuration settings that decide how
// values are encoded. The zero value is not Redis's default configuration:
// start from DefaultEncodeOptions.
type EncodeOptions struct {
	// HashMaxListpackEntries and HashMaxListpackValue are
	// hash-max-listpack-entries and hash-max-listpack-value.
	HashMaxListpackEntries int
	HashMaxListpackValue   int
	// SetMaxIntsetEntries is set-max-intset-entries.
	SetMaxIntsetEntries int
	// ZSetMaxListpackEntries and ZSetMaxListpackValue are
	// zset-max-listpack-entries and zset-max-listpack-value.
	ZSetMaxListpackEntries int
	ZSetMaxListpackValue   int
	// ListMaxListpackSize is list-max-listpack-size: a negative value
	// -1..-5 caps quicklist nodes at 4, 8, 16, 32 or 64 KB, a positive one
	// at that many elements (and 8 KB). Values below -5 act as -5 and
	// values above 32767 as 32767, as quicklistSetFill clamps them.
	ListMaxListpackSize int
	// ListPackedThreshold is the element size from which a list element
	// gets a PLAIN quicklist node of its own (DEBUG
	// QUICKLIST-PACKED-THRESHOLD; 0 means Redis's default, 1 GB).
	ListPackedThreshold int
	// Compress is rdbcompression: whether strings longer than 20 bytes,
	// listpacks and intsets included, are LZF-compressed when that saves
	// space.
	Compress bool
}

// DefaultEncodeOptions returns Redis 7.0's default settings.
func DefaultEncodeOptions() EncodeOptions {
	return EncodeOptions{
		HashMaxListpackEntries: 128,
		HashMaxListpackValue:   64,
		SetMaxIntsetEntries:    512,
		ZSetMaxListpackEntries: 128,
		ZSetMaxListpackValue:   64,
		ListMaxListpackSize:    -2,
		Compress:               true,
	}
}

// Quicklist parameters (quicklist.c, quicklist.h).
const (
	quicklistDefaultPackedThreshold = 1 << 30
	quicklistSizeSafetyLimit        = 8192
	quicklistSizeEstimateOverhead   = 8
	quicklistFillMax                = 1<<15 - 1
	quicklistContainerPlain         = 1
	quicklistContainerPacked        = 2
)

var quicklistOptimizationLevel = [...]int{4096, 8192, 16384, 32768, 65536}

// quicklistAllowInsert is _quicklistNodeAllowInsert for a packed node of
// nodeBytes bytes holding count elements and a new element of sz bytes
// (already known to be below the packed threshold).
func quicklistAllowInsert(nodeBytes, count, fill, sz int) bool {
	newSize := nodeBytes + sz + quicklistSizeEstimateOverhead
	if fill < 0 && newSize <= quicklistOptimizationLevel[-fill-1] {
		return true
	}
	if newSize > quicklistSizeSafetyLimit {
		return false
	}
	return count < fill
}

// EncodeValue appends v as Redis 7.0 writes a value of that content in an
// RDB file or DUMP payload (rdbSaveObjectType then rdbSaveObject): the RDB
// type byte, then the object. The encoding is chosen from the content with
// opts, as Redis would hold a value built from empty by adding the
// elements in order (RPUSH, SADD, HSET, ZADD), so for such values the
// bytes are Redis's:
//
//   - a string: TypeString and AppendString (integer-encoded, LZF or raw);
//   - a list: TypeListQuicklist2, the node count, and per node its
//     container (2 packed, 1 plain) and its data as an RDB string: a
//     listpack filled as quicklistPushTail fills nodes under
//     ListMaxListpackSize, or for an element of ListPackedThreshold bytes
//     or more, a plain node holding just that element;
//   - a set: TypeSetIntset with an intset (ascending, narrowest width)
//     when every member is a canonical int64 (as string2ll accepts) and
//     there are at most SetMaxIntsetEntries members, else TypeSet, the
//     count and the members in the given order;
//   - a hash: TypeHashListpack with a listpack of field, value, ... in the
//     given order when there are at most HashMaxListpackEntries pairs and
//     no field or value is longer than HashMaxListpackValue, else
//     TypeHash, the count and the pairs in the given order;
//   - a sorted set: TypeZSetListpack with a listpack of member, score, ...
//     in ascending (score, member) order, scores written as Redis's
//     d2string prints them, when it is not Big, there are at most
//     ZSetMaxListpackEntries members and none is longer than
//     ZSetMaxListpackValue, else TypeZSet2, the count and member, binary score pairs in descending
//     order (the skiplist from its tail, as rdbSaveObject walks it);
//   - a stream: TypeStreamListpacks2 with the dump's nodes (master ID and
//     listpack, as given), counters and groups, in the dump's order, as
//     rdbSaveObject writes them (see appendStream); for a Legacy dump,
//     TypeStreamListpacks without the fields that type lacks. A dump
//     from (*stream.Stream).Dump is in Redis's order (nodes by ID, groups
//     and consumers by name, PELs by ID), and its listpacks are Redis's,
//     so the bytes are those of DUMP of a Redis stream with that history.
//
// In all cases but streams a listpack that would exceed 1 GB (lpSafeToAdd)
// is not used. Redis may hold a value in a different encoding than EncodeValue
// picks when its history differs (a set that once held a non-integer or
// too many members stays a hash table; an intset keeps the width of the
// widest value it ever held; lists pushed at the head, trimmed or edited
// in the middle have other node boundaries; list-compress-depth
// compresses interior nodes); Redis 7.0 loads every one of these
// encodings into the same content.
//
// EncodeValue does not validate v: collections must not be empty (Redis
// rejects an empty collection on RESTORE and skips it when loading a
// file; a stream may be empty), set members and hash fields and
// sorted-set members must be unique, scores must not be NaN, and a
// stream's dump must be one stream.Load accepts, or Redis will refuse the
// result. It panics if v.Kind is not one of the six kinds, or for a
// stream whose Stream is nil.
func EncodeValue(dst []byte, v *Value, opts EncodeOptions) []byte {
	at := len(dst)
	dst = append(dst, 0)
	typ, dst := appendObject(dst, v, &opts)
	dst[at] = typ
	return dst
}

// Dump returns the DUMP payload of v: EncodeValue and the footer
// (AppendFooter). Its bytes are what Redis 7.0's DUMP returns for a key
// holding the same content in the encoding EncodeValue chooses.
func Dump(v *Value, opts EncodeOptions) []byte {
	return AppendFooter(EncodeValue(nil, v, opts))
}

// appendObject appends v's object (rdbSaveObject) and returns its RDB type.
func appendObject(dst []byte, v *Value, o *EncodeOptions) (byte, []byte) {
	switch v.Kind {
	case KindString:
		return TypeString, AppendString(dst, v.Str, o.Compress)
	case KindList:
		return TypeListQuicklist2, appendQuicklist(dst, v.Items, o)
	case KindSet:
		return appendSet(dst, v.Items, o)
	case KindHash:
		return appendHash(dst, v.Pairs, o)
	case KindZSet:
		return appendZSet(dst, v.ZSet, v.Big, o)
	case KindStream:
		if v.Stream != nil {
			return appendStream(dst, v.Stream, o)
		}
	}
	panic(fmt.Sprintf("rdb: EncodeValue of a value of kind %v", v.Kind))
}

// appendQuicklist appends a list as RDB_TYPE_LIST_QUICKLIST_2.
func appendQuicklist(dst []byte, items [][]byte, o *EncodeOptions) []byte {
	fill := min(max(o.ListMaxListpackSize, -len(quicklistOptimizationLevel)), quicklistFillMax)
	threshold := o.ListPackedThreshold
	if threshold <= 0 {
		threshold = quicklistDefaultPackedThreshold
	}
	// Build the nodes first (their count comes first): packed nodes as
	// listpacks in scratch, plain nodes as the element itself.
	type node struct {
		plain      bool
		start, end int // the listpack in scratch
		item       []byte
	}
	var (
		nodes   []node
		scratch []byte
		lb      listpackBuilder // the tail node, when open
		open    bool
	)
	closeNode := func() {
		if open {
			start := lb.start
			scratch = lb.finish()
			nodes = append(nodes, node{start: start, end: len(scratch)})
			open = false
		}
	}
	for _, item := range items {
		sz := len(item)
		if sz >= threshold {
			closeNode()
			nodes = append(nodes, node{plain: true, item: item})
			continue
		}
		if !open || !quicklistAllowInsert(lb.bytes(), lb.count, fill, sz) {
			closeNode()
			lb, open = newListpack(scratch), true
		}
		lb.add(item)
	}
	closeNode()
	dst = AppendLen(dst, uint64(len(nodes)))
	for _, n := range nodes {
		if n.plain {
			dst = AppendLen(dst, quicklistContainerPlain)
			dst = AppendString(dst, n.item, o.Compress)
		} else {
			dst = AppendLen(dst, quicklistContainerPacked)
			dst = AppendString(dst, scratch[n.start:n.end], o.Compress)
		}
	}
	return dst
}

// appendSet appends a set as RDB_TYPE_SET_INTSET or RDB_TYPE_SET.
func appendSet(dst []byte, members [][]byte, o *EncodeOptions) (byte, []byte) {
	if len(members) <= o.SetMaxIntsetEntries {
		ints := make([]int64, 0, len(members))
		for _, m := range members {
			n, ok := parseStrictInt(m)
			if !ok {
				ints = nil
				break
			}
			ints = append(ints, n)
		}
		if ints != nil {
			slices.Sort(ints)
			return TypeSetIntset, AppendString(dst, appendIntset(nil, ints), o.Compress)
		}
	}
	dst = AppendLen(dst, uint64(len(members)))
	for _, m := range members {
		dst = AppendString(dst, m, o.Compress)
	}
	return TypeSet, dst
}

// appendHash appends a hash as RDB_TYPE_HASH_LISTPACK or RDB_TYPE_HASH.
func appendHash(dst []byte, pairs [][2][]byte, o *EncodeOptions) (byte, []byte) {
	if len(pairs) <= o.HashMaxListpackEntries {
		small, size := true, uint64(listpackEmptyLen)
		for _, p := range pairs {
			if len(p[0]) > o.HashMaxListpackValue || len(p[1]) > o.HashMaxListpackValue {
				small = false
				break
			}
			size += listpackEntrySize(p[0]) + listpackEntrySize(p[1])
		}
		if small && size <= lpMaxSafetySize {
			lb := newListpack(nil)
			for _, p := range pairs {
				lb.add(p[0])
				lb.add(p[1])
			}
			return TypeHashListpack, AppendString(dst, lb.finish(), o.Compress)
		}
	}
	dst = AppendLen(dst, uint64(len(pairs)))
	for _, p := range pairs {
		dst = AppendString(dst, p[0], o.Compress)
		dst = AppendString(dst, p[1], o.Compress)
	}
	return TypeHash, dst
}

// compareZMembers orders sorted-set members as the skiplist does (zslInsert):
// by score, then by member bytes.
func compareZMembers(a, b ZMember) int {
	if c := cmp.Compare(a.Score, b.Score); c != 0 {
		return c
	}
	return bytes.Compare(a.Member, b.Member)
}

// appendZSet appends a sorted set as RDB_TYPE_ZSET_LISTPACK or
// RDB_TYPE_ZSET_2 (always when big).
func appendZSet(dst []byte, members []ZMember, big bool, o *EncodeOptions) (byte, []byte) {
	sorted := slices.SortedFunc(slices.Values(members), compareZMembers)
	if !big && len(sorted) <= o.ZSetMaxListpackEntries {
		small, size := true, uint64(listpackEmptyLen)
		var buf []byte
		for _, m := range sorted {
			if len(m.Member) > o.ZSetMaxListpackValue {
				small = false
				break
			}
			buf = appendScore(buf[:0], m.Score)
			size += listpackEntrySize(m.Member) + listpackEntrySize(buf)
		}
		if small && size <= lpMaxSafetySize {
			lb := newListpack(nil)
			for _, m := range sorted {
				lb.add(m.Member)
				buf = appendScore(buf[:0], m.Score)
				lb.add(buf)
			}
			return TypeZSetListpack, AppendString(dst, lb.finish(), o.Compress)
		}
	}
	dst = AppendLen(dst, uint64(len(sorted)))
	for i := len(sorted) - 1; i >= 0; i-- {
		dst = AppendString(dst, sorted[i].Member, o.Compress)
		dst = appendBinaryDouble(dst, sorted[i].Score)
	}
	return TypeZSet2, dst
}

// appendBinaryDouble is rdbSaveBinaryDoubleValue: IEEE 754 binary64,
// little endian.
func appendBinaryDouble(dst []byte, f float64) []byte {
	u := math.Float64bits(f)
	return append(dst, byte(u), byte(u>>8), byte(u>>16), byte(u>>24),
		byte(u>>32), byte(u>>40), byte(u>>48), byte(u>>56))
}

// appendScore appends f as Redis 7.0's d2string prints a score into a
// sorted set's listpack: "nan", "inf", "-inf", "0" or "-0" for zeros, the
// integer for integral values within ±2^62 (double2ll), else C's "%.17g".
func appendScore(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "nan"...)
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	case f == 0:
		if math.Signbit(f) {
			return append(dst, "-0"...)
		}
		return append(dst, '0')
	case f >= -(1<<62) && f <= 1<<62 && f == math.Trunc(f):
		return strconv.AppendInt(dst, int64(f), 10)
	}
	// Go's %.17g equals C's: 17 significant digits, trailing zeros
	// dropped, exponent form below 1e-4 and from 1e17, two or more
	// exponent digits.
	return strconv.AppendFloat(dst, f, 'g', 17, 64)
}

// appendInt appends v in decimal, as ll2string prints it.
func appendInt(dst []byte, v int64) []byte { return strconv.AppendInt(dst, v, 10) }

// arena hands out copies of byte strings from shared chunks, so that a
// decoded value does not alias its input and does not cost one allocation
// per element. Chunks grow with use, so a small value wastes little.
type arena struct {
	buf  []byte
	next int // size of the next chunk
}

const (
	arenaMinChunk = 64
	arenaMaxChunk = 32 << 10
	arenaOwnAlloc = 1 << 10 // elements from this size get their own allocation
)

// reserve makes room for n more bytes in the current chunk.
func (a *arena) reserve(n int) {
	if cap(a.buf)-len(a.buf) >= n {
		return
	}
	a.next = min(max(a.next*2, arenaMinChunk), arenaMaxChunk)
	a.buf = make([]byte, 0, max(a.next, n))
}

// copy returns a copy of b (non-nil, capacity equal to length).
func (a *arena) copy(b []byte) []byte {
	if len(b) >= arenaOwnAlloc {
		return append(make([]byte, 0, len(b)), b...)
	}
	a.reserve(len(b))
	start := len(a.buf)
	a.buf = append(a.buf, b...)
	return a.buf[start:len(a.buf):len(a.buf)]
}

// entry returns a copy of e's bytes (integers in decimal).
func (a *arena) entry(e lpEntry) []byte {
	if !e.isInt {
		return a.copy(e.str)
	}
	a.reserve(20)
	start := len(a.buf)
	a.buf = appendInt(a.buf, e.num)
	return a.buf[start:len(a.buf):len(a.buf)]
}
