package rdb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// ErrBadData is what Redis 7.0 replies to RESTORE (after "ERR ") when the
// payload's footer is fine but its value cannot be loaded.
var ErrBadData = errors.New("Bad data format")

// ErrEmptyValue reports a well-formed collection without elements. Redis
// 7.0 never writes one; RESTORE rejects it ("Bad data format") and loading
// a file skips the key silently (rdbLoadObject's RDB_LOAD_ERR_EMPTY_KEY).
var ErrEmptyValue = errors.New("rdb: empty collection")

// ErrUnsupported reports data this package deliberately does not decode,
// though Redis 7.0 can load it: module values (TypeModule2; TypeModule is
// rejected by Redis too) and module auxiliary data in files. Errors wrap
// it with the details.
var ErrUnsupported = errors.New("rdb: unsupported data")

// IsObjectType reports whether t is an RDB object type (rdbIsObjectType):
// 0-7 or 9-19. Other bytes in a type position are opcodes (245-255) or
// invalid.
func IsObjectType(t byte) bool { return t <= 7 || (t >= 9 && t <= 19) }

// DecodeValue reads the object of RDB type typ (the type byte already
// read) from r, as Redis 7.0's rdbLoadObject does with deep sanitization
// (sanitize-dump-payload yes), and returns it as a Value. It accepts every
// encoding Redis 7.0 loads for strings, lists, sets, hashes, sorted sets
// and streams:
//
//   - TypeString;
//   - lists: TypeList (elements as RDB strings), TypeListZiplist,
//     TypeListQuicklist (ziplist nodes) and TypeListQuicklist2 (listpack
//     and plain nodes; empty listpack nodes are skipped, as by Redis);
//   - sets: TypeSet and TypeSetIntset;
//   - sorted sets: TypeZSet (scores as decimal strings), TypeZSet2 (binary
//     scores), TypeZSetZiplist and TypeZSetListpack;
//   - hashes: TypeHash, TypeHashZipmap, TypeHashZiplist and
//     TypeHashListpack;
//   - streams: TypeStreamListpacks2 and the older TypeStreamListpacks
//     (a Dump with Legacy set), checked with stream.Load (see readStream).
//     Redis's checks of a stream with deep sanitization are a subset of
//     stream.Load's: Redis also accepts, where DecodeValue does not, a
//     node whose radix tree key is not its first entry's ID, entries out
//     of ID order within or across nodes, entry flags with bits other
//     than deleted and same-fields, node counters (live, deleted) that
//     do not match the entries' deleted flags, a listpack header whose
//     element count is wrong or a backlen that decodes right but is not
//     written canonically, and a stream length that does not match the
//     entries (unless positive without nodes), none of which Redis
//     writes. Nodes, groups, consumers and PELs in any order are accepted,
//     as by Redis, and returned in Redis's order. As rdbLoadLen does for
//     these fields, an unknown length encoding in a stream counter, ID,
//     entries-read or delivery count reads as 2^64-1.
//
// Listpacks, ziplists, intsets and zipmaps are fully validated (see
// walkListpack, walkZiplist, walkIntset, walkZipmap), and as Redis reports
// them, duplicate set members, hash fields and sorted-set members are
// errors, as are NaN scores, an odd number of entries in a pair encoding,
// a quicklist container other than 1 or 2 and a quicklist node of zero
// bytes. Sorted-set scores stored as strings (in ziplists, listpacks and
// TypeZSet) must parse as a whole as a float (strconv.ParseFloat, values
// out of range becoming ±Inf or 0): Redis reads them with strtod or
// sscanf, which ignore trailing garbage, so this is stricter for such
// hand-made data, which Redis never writes.
//
// A collection without elements gives ErrEmptyValue (an empty stream is a
// value: Redis writes and loads them). Module types give an error
// wrapping ErrUnsupported; other types, and malformed
// data, an error wrapping ErrCorrupt or ErrTruncated. On error r's offset
// is left where it was. DecodeValue never panics and allocates no more
// than a small multiple of the data it consumes; the Value does not alias
// r's data.
func DecodeValue(r *Reader, typ byte) (*Value, error) {
	start := r.off
	v, err := decodeValue(r, typ)
	if err != nil {
		r.off = start
		return nil, err
	}
	return v, nil
}

// Restore decodes a DUMP payload as Redis 7.0's RESTORE does: the footer
// is checked (VerifyPayload, giving ErrPayloadFooter), then the type and
// the value are read (DecodeValue) from the whole payload, footer
// included, with anything after the value ignored (see the package
// documentation). A type byte that is not an object type, or a value that
// cannot be decoded or is an empty collection, gives ErrBadData, so that
// the reply to RESTORE is "-ERR " + err.Error() as Redis's. A module
// value gives an error wrapping ErrUnsupported instead (Redis would load
// it with the module; the caller chooses the reply).
//
// Compared with Redis 7.0 running with sanitize-dump-payload yes, Restore
// accepts the same payloads and decodes them to the same content (the
// differential tests check thousands of mutated payloads), except that it
// also rejects sorted-set scores stored as strings that strtod would read
// only partially and the malformed streams listed in DecodeValue, zipmap lengths below 254 written in 5
// bytes (see walkZipmap) and listpack string lengths within 5 of 2^32
// (see walkListpack), all of which Redis never writes and some of which
// make it misbehave. With the default sanitize-dump-payload no, Redis
// accepts more corrupt payloads (duplicates, broken listpacks, which then
// crash or assert later); Restore never does.
//
// A payload rejected for its value gives an error that is ErrBadData
// (errors.Is) and says exactly "Bad data format", wrapping the cause:
// LoadReason tells what Redis logs about it, if anything.
func Restore(payload []byte) (*Value, error) { return RestoreOptions{}.Restore(payload) }

// DecodeEncoded decodes what EncodeValue wrote (a type byte and an
// object, no footer), which must be all of enc. The value may alias enc.
func DecodeEncoded(enc []byte) (*Value, error) {
	r := NewReader(enc)
	typ, err := r.ReadType()
	if err != nil {
		return nil, badData{err}
	}
	if !IsObjectType(typ) {
		return nil, badData{corruptf("RDB type %d is not an object type", typ)}
	}
	v, err := DecodeValue(r, typ)
	if err != nil {
		return nil, err
	}
	if r.Remaining() != 0 {
		return nil, badData{corruptf("%d bytes after the value", r.Remaining())}
	}
	return v, nil
}

// RestoreOptions are the choices RESTORE's decoding depends on.
type RestoreOptions struct {
	// SkipChecksum skips the CRC64 check of the footer (Redis's DEBUG
	// SET-SKIP-CHECKSUM-VALIDATION 1); the version is still checked.
	SkipChecksum bool
}

// Restore is the package's Restore with the options o.
func (o RestoreOptions) Restore(payload []byte) (*Value, error) {
	if _, _, err := o.VerifyPayload(payload); err != nil {
		return nil, err
	}
	r := NewReader(payload)
	typ, _ := r.ReadType() // payload holds at least the footer
	if !IsObjectType(typ) {
		return nil, badData{corruptf("RDB type %d is not an object type", typ)}
	}
	v, err := DecodeValue(r, typ)
	if err != nil {
		if errors.Is(err, ErrUnsupported) {
			return nil, err
		}
		return nil, badData{err}
	}
	return v, nil
}

// badData is ErrBadData with its cause.
type badData struct{ cause error }

func (e badData) Error() string        { return ErrBadData.Error() }
func (e badData) Is(target error) bool { return target == ErrBadData }
func (e badData) Unwrap() error        { return e.cause }

// capHint bounds a declared element count by the bytes left, each element
// taking at least one byte, so that corrupt counts do not allocate.
func capHint(n uint64, remaining int) int {
	return int(min(n, uint64(remaining), 1<<20))
}

func decodeValue(r *Reader, typ byte) (*Value, error) {
	var a arena
	switch typ {
	case TypeString:
		s, err := r.ReadStringBytes()
		if err != nil {
			return nil, err
		}
		return &Value{Kind: KindString, Str: a.copy(s)}, nil
	case TypeList:
		items, err := readStrings(r, &a, 1)
		if err != nil {
			return nil, err
		}
		return &Value{Kind: KindList, Items: items}, nil
	case TypeSet:
		items, err := readStrings(r, &a, 1)
		if err != nil {
			return nil, err
		}
		if err := checkSetMembers(items); err != nil {
			return nil, err
		}
		return &Value{Kind: KindSet, Items: items}, nil
	case TypeHash:
		flat, err := readStrings(r, &a, 2)
		if err != nil {
			return nil, err
		}
		if err := checkHashFields(flat); err != nil {
			return nil, err
		}
		return hashFromFlat(flat)
	case TypeZSet, TypeZSet2:
		return readZSet(r, &a, typ)
	case TypeListQuicklist, TypeListQuicklist2:
		return readQuicklist(r, &a, typ)
	case TypeHashZipmap, TypeListZiplist, TypeSetIntset, TypeZSetZiplist,
		TypeHashZiplist, TypeHashListpack, TypeZSetListpack:
		blob, err := r.ReadStringBytes()
		if err != nil {
			return nil, err
		}
		v, err := decodeBlob(blob, &a, typ)
		if err != nil {
			return nil, reportBlob(typ, err)
		}
		return v, nil
	case TypeStreamListpacks, TypeStreamListpacks2:
		return readStream(r, typ)
	case TypeModule, TypeModule2:
		return nil, fmt.Errorf("%w: module value (RDB type %d)", ErrUnsupported, typ)
	}
	return nil, corruptf("unknown RDB object type %d", typ)
}

// readStrings reads a length n and n*per RDB strings.
func readStrings(r *Reader, a *arena, per uint64) ([][]byte, error) {
	n, err := r.ReadLen()
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, ErrEmptyValue
	}
	if n > math.MaxUint64/per {
		return nil, corruptf("collection of %d elements", n)
	}
	n *= per
	items := make([][]byte, 0, capHint(n, r.Remaining()))
	for ; n > 0; n-- {
		s, err := r.ReadStringBytes()
		if err != nil {
			return nil, err
		}
		items = append(items, a.copy(s))
	}
	return items, nil
}

// Redis 7.0's default set-max-intset-entries, hash-max-listpack-entries
// and hash-max-listpack-value, which decide where rdbLoadObject detects a
// duplicate in a plain set or hash, hence the line it reports.
const (
	defaultSetMaxIntsetEntries    = 512
	defaultHashMaxListpackEntries = 128
	defaultHashMaxListpackValue   = 64
)

// checkSetMembers reports a repeated member of a TypeSet as rdbLoadObject
// does: in an intset (at most set-max-intset-entries members, all integers
// so far) or in a hash table.
func checkSetMembers(items [][]byte) error {
	intset := len(items) <= defaultSetMaxIntsetEntries
	seen := make(map[string]struct{}, len(items))
	for _, m := range items {
		if intset {
			if _, ok := parseInt64(m); !ok {
				intset = false
			}
		}
		if _, dup := seen[string(m)]; dup {
			line := lineSetDupDict
			if intset {
				line = lineSetDupIntset
			}
			return report(line, corruptf("duplicate set member %q", m), "Duplicate set members detected")
		}
		seen[string(m)] = struct{}{}
	}
	return nil
}

// checkHashFields reports a repeated field of a TypeHash (field, value,
// ...) as rdbLoadObject does with deep sanitization: while the hash is
// still a listpack ("Hash with dup elements"), or once a long field or
// value, or too many entries, made it a hash table.
func checkHashFields(flat [][]byte) error {
	listpack := len(flat)/2 <= defaultHashMaxListpackEntries
	seen := make(map[string]struct{}, len(flat)/2)
	for i := 0; i+1 < len(flat); i += 2 {
		f := flat[i]
		if _, dup := seen[string(f)]; dup {
			if listpack {
				return report(lineHashDupListpack, corruptf("duplicate hash field %q", f), "Hash with dup elements")
			}
			return report(lineHashDupDict, corruptf("duplicate hash field %q", f), "Duplicate hash fields detected")
		}
		seen[string(f)] = struct{}{}
		if len(f) > defaultHashMaxListpackValue || len(flat[i+1]) > defaultHashMaxListpackValue {
			listpack = false
		}
	}
	return nil
}

// parseInt64 is string2ll: a canonical decimal int64.
func parseInt64(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 20 || (b[0] != '-' && (b[0] < '0' || b[0] > '9')) || (len(b) > 1 && b[0] == '0') || (b[0] == '-' && (len(b) == 1 || b[1] == '0')) {
		return 0, false
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	return n, err == nil
}

// checkUnique reports the first of n keys that repeats an earlier one.
func checkUnique(n int, key func(int) []byte, what string) error {
	seen := make(map[string]struct{}, n)
	for i := range n {
		k := key(i)
		if _, dup := seen[string(k)]; dup {
			return corruptf("duplicate %s %q", what, k)
		}
		seen[string(k)] = struct{}{}
	}
	return nil
}

// hashFromFlat makes a hash of field, value, field, value, ...
func hashFromFlat(flat [][]byte) (*Value, error) {
	if len(flat)%2 != 0 {
		return nil, corruptf("hash encoding with an odd number of entries")
	}
	if len(flat) == 0 {
		return nil, ErrEmptyValue
	}
	pairs := make([][2][]byte, len(flat)/2)
	for i := range pairs {
		pairs[i] = [2][]byte{flat[2*i], flat[2*i+1]}
	}
	if err := checkUnique(len(pairs), func(i int) []byte { return pairs[i][0] }, "hash field"); err != nil {
		return nil, err
	}
	return &Value{Kind: KindHash, Pairs: pairs}, nil
}

// zsetFromFlat makes a sorted set of member, score, member, score, ...
func zsetFromFlat(flat []lpEntry, a *arena) (*Value, error) {
	if len(flat)%2 != 0 {
		return nil, corruptf("sorted set encoding with an odd number of entries")
	}
	if len(flat) == 0 {
		return nil, ErrEmptyValue
	}
	members := make([]ZMember, len(flat)/2)
	for i := range members {
		score, err := entryScore(flat[2*i+1])
		if err != nil {
			return nil, err
		}
		members[i] = ZMember{Member: a.entry(flat[2*i]), Score: score}
	}
	if err := checkUnique(len(members), func(i int) []byte { return members[i].Member }, "sorted set member"); err != nil {
		return nil, err
	}
	return &Value{Kind: KindZSet, ZSet: members}, nil
}

// entryScore is a score stored in a listpack or ziplist entry (zzlGetScore).
func entryScore(e lpEntry) (float64, error) {
	if e.isInt {
		return float64(e.num), nil
	}
	return parseScore(e.str)
}

// parseScore parses a score written as a string, rejecting NaN and
// anything strtod would not read whole. strconv.ParseFloat reads a subset
// of what strtod reads (no leading spaces, no hexadecimal without an
// exponent), except for underscores between digits, which Go's syntax
// allows and strtod does not.
func parseScore(s []byte) (float64, error) {
	if bytes.IndexByte(s, '_') >= 0 {
		return 0, corruptf("invalid score %q", s)
	}
	f, err := strconv.ParseFloat(string(s), 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return 0, corruptf("invalid score %q", s)
		}
	}
	if math.IsNaN(f) {
		return 0, corruptf("NaN score")
	}
	return f, nil
}

// readZSet reads TypeZSet (rdbLoadDoubleValue scores) or TypeZSet2
// (rdbLoadBinaryDoubleValue scores).
func readZSet(r *Reader, a *arena, typ byte) (*Value, error) {
	n, err := r.ReadLen()
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, ErrEmptyValue
	}
	members := make([]ZMember, 0, capHint(n, r.Remaining()))
	for ; n > 0; n-- {
		m, err := r.ReadStringBytes()
		if err != nil {
			return nil, err
		}
		var score float64
		if typ == TypeZSet2 {
			raw, err := r.ReadRaw(8)
			if err != nil {
				return nil, err
			}
			score = math.Float64frombits(binary.LittleEndian.Uint64(raw))
		} else {
			lb, err := r.ReadRaw(1)
			if err != nil {
				return nil, err
			}
			switch lb[0] {
			case 255:
				score = math.Inf(-1)
			case 254:
				score = math.Inf(1)
			case 253:
				score = math.NaN()
			default:
				s, err := r.ReadRaw(int(lb[0]))
				if err != nil {
					return nil, err
				}
				if score, err = parseScore(s); err != nil {
					return nil, err
				}
			}
		}
		if math.IsNaN(score) {
			return nil, report(lineZSetNaN, corruptf("sorted set with a NaN score"), "Zset with NAN score detected")
		}
		members = append(members, ZMember{Member: a.copy(m), Score: score})
	}
	if err := checkUnique(len(members), func(i int) []byte { return members[i].Member }, "sorted set member"); err != nil {
		return nil, report(lineZSetDup, err, "Duplicate zset fields detected")
	}
	return &Value{Kind: KindZSet, ZSet: members}, nil
}

// readQuicklist reads TypeListQuicklist (ziplist nodes) or
// TypeListQuicklist2 (a container per node: plain or listpack).
func readQuicklist(r *Reader, a *arena, typ byte) (*Value, error) {
	n, err := r.ReadLen()
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, ErrEmptyValue
	}
	var items [][]byte
	add := func(e lpEntry) error {
		items = append(items, a.entry(e))
		return nil
	}
	for ; n > 0; n-- {
		container := uint64(quicklistContainerPacked)
		if typ == TypeListQuicklist2 {
			if container, err = r.ReadLen(); err != nil {
				return nil, err
			}
			if container != quicklistContainerPacked && container != quicklistContainerPlain {
				return nil, report(lineQuicklist, corruptf("quicklist node container %d", container), "Quicklist integrity check failed.")
			}
		}
		data, err := r.ReadStringBytes()
		if err != nil {
			return nil, err
		}
		if len(data) == 0 {
			return nil, corruptf("empty quicklist node")
		}
		switch {
		case container == quicklistContainerPlain:
			items = append(items, a.copy(data))
		case typ == TypeListQuicklist2:
			if _, err = walkListpack(data, add); err != nil {
				err = report(lineQuicklistListpack, err, "Listpack integrity check failed.")
			}
		default:
			if _, err = walkZiplist(data, add); err != nil {
				err = report(lineQuicklistZiplist, err, "Ziplist integrity check failed.")
			}
		}
		if err != nil {
			return nil, err
		}
	}
	if len(items) == 0 {
		return nil, ErrEmptyValue
	}
	return &Value{Kind: KindList, Items: items}, nil
}

// reportBlob gives a blob's decoding error Redis's report: the integrity
// check of its encoding failed (which, with deep sanitization, includes
// duplicates and an odd number of entries in pair encodings).
func reportBlob(typ byte, err error) error {
	switch typ {
	case TypeHashZipmap:
		return report(lineZipmap, err, "Zipmap integrity check failed.")
	case TypeListZiplist:
		return report(lineListZiplist, err, "List ziplist integrity check failed.")
	case TypeSetIntset:
		return report(lineIntset, err, "Intset integrity check failed.")
	case TypeZSetZiplist:
		return report(lineZSetZiplist, err, "Zset ziplist integrity check failed.")
	case TypeZSetListpack:
		return report(lineZSetListpack, err, "Zset listpack integrity check failed.")
	case TypeHashZiplist:
		return report(lineHashZiplist, err, "Hash ziplist integrity check failed.")
	default: // TypeHashListpack
		return report(lineHashListpack, err, "Hash listpack integrity check failed.")
	}
}

// decodeBlob decodes the types stored as one string: a zipmap, ziplist,
// intset or listpack.
func decodeBlob(blob []byte, a *arena, typ byte) (*Value, error) {
	var entries []lpEntry
	collect := func(e lpEntry) error {
		entries = append(entries, e)
		return nil
	}
	switch typ {
	case TypeHashZipmap:
		var flat [][]byte
		err := walkZipmap(blob, func(f, v []byte) error {
			flat = append(flat, a.copy(f), a.copy(v))
			return nil
		})
		if err != nil {
			return nil, err
		}
		seen := make(map[string]struct{}, len(flat)/2)
		for i := 0; i < len(flat); i += 2 {
			if _, dup := seen[string(flat[i])]; dup {
				return nil, report(lineZipmapDup, corruptf("duplicate hash field %q", flat[i]),
					"Hash zipmap with dup elements, or big length (%d)", len(flat[i]))
			}
			seen[string(flat[i])] = struct{}{}
		}
		return hashFromFlat(flat)
	case TypeSetIntset:
		var items [][]byte
		err := walkIntset(blob, func(v int64) {
			items = append(items, a.entry(lpEntry{num: v, isInt: true}))
		})
		if err != nil {
			return nil, err
		}
		return &Value{Kind: KindSet, Items: items}, nil
	case TypeListZiplist:
		var items [][]byte
		if _, err := walkZiplist(blob, func(e lpEntry) error {
			items = append(items, a.entry(e))
			return nil
		}); err != nil {
			return nil, err
		}
		if len(items) == 0 {
			return nil, ErrEmptyValue
		}
		return &Value{Kind: KindList, Items: items}, nil
	case TypeZSetZiplist, TypeZSetListpack:
		var err error
		if typ == TypeZSetZiplist {
			_, err = walkZiplist(blob, collect)
		} else {
			_, err = walkListpack(blob, collect)
		}
		if err != nil {
			return nil, err
		}
		return zsetFromFlat(entries, a)
	default: // TypeHashZiplist, TypeHashListpack
		var err error
		if typ == TypeHashZiplist {
			_, err = walkZiplist(blob, collect)
		} else {
			_, err = walkListpack(blob, collect)
		}
		if err != nil {
			return nil, err
		}
		flat := make([][]byte, len(entries))
		for i, e := range entries {
			flat[i] = a.entry(e)
		}
		return hashFromFlat(flat)
	}
}
