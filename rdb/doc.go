// Package rdb is HotKV's codec for Redis 7.0's RDB serialization format
// (RDB version 10), the byte format of dump.rdb files, of DUMP/RESTORE
// payloads and of FUNCTION DUMP/FUNCTION RESTORE payloads. redis-server
// 7.0.15 is the oracle of its differential tests: what Redis writes, this
// package reads; what this package writes, Redis loads; and where both
// write the same content, the bytes are the same.
//
// Primitives:
//
//   - CRC64: Redis's crc64 (crc64.c, Jones polynomial, reflected, init 0,
//     no final xor), the checksum of DUMP payloads and of RDB files.
//   - LZF-compressed strings, through package lzf (a port of liblzf 3.6
//     that produces the same bytes as Redis's lzf_compress).
//   - Length and string encodings (rdbSaveLen, rdbSaveRawString,
//     rdbLoadLen, rdbGenericLoadStringObject): Writer / AppendLen /
//     AppendString to encode, Reader to decode.
//   - DUMP payload footers (createDumpPayload, verifyDumpPayload):
//     AppendFooter and VerifyPayload.
//
// Values (Value, Kind, ZMember), independent of HotKV's data structures:
//
//   - EncodeValue writes a value as Redis 7.0's rdbSaveObjectType and
//     rdbSaveObject do, choosing the encoding Redis would hold it in under
//     the thresholds of EncodeOptions (hash-max-listpack-*,
//     set-max-intset-entries, zset-max-listpack-*, list-max-listpack-size,
//     rdbcompression): strings,
//     quicklists of listpack and plain nodes, intsets or plain sets,
//     listpack or plain hashes, listpack or skiplist (binary score) sorted
//     sets, and streams (a stream.Dump: nodes with their listpacks,
//     counters, consumer groups) as RDB_TYPE_STREAM_LISTPACKS_2. Dump adds
//     the footer: a DUMP payload.
//   - DecodeValue reads every encoding Redis 7.0 loads for strings, lists,
//     sets, hashes, sorted sets and streams, including the legacy ones it
//     no longer writes (zipmap, ziplists, quicklists of ziplists, string
//     scores, RDB_TYPE_STREAM_LISTPACKS), validating listpacks, ziplists,
//     intsets and zipmaps as Redis's deep sanitization
//     (sanitize-dump-payload yes) does, and streams with stream.Load.
//     Restore is RESTORE's decoding, with Redis's error replies.
//   - Module values are not decoded: they give ErrUnsupported. Redis
//     itself rejects the pre-release module type 6; module type 7 needs
//     the module.
//
// Files: FileWriter streams a dump.rdb as rdbSaveRio writes it (magic,
// auxiliary fields, functions, databases with expirations and LRU/LFU
// data, EOF, CRC64 or 8 zero bytes); FileReader streams one back as
// rdbLoadRio reads it (any RDB version from 1 to 10), calling back per
// record and reporting errors with the byte offset (FileError). Module
// auxiliary data and module values stop it with ErrUnsupported.
//
// Function payloads (functionDumpCommand, functionRestoreCommand,
// rdbFunctionLoad): EncodeFunctions and DecodeFunctions.
//
// Decoders never panic and never allocate more than a small multiple of
// their input on corrupt or truncated data; they report ErrTruncated or
// ErrCorrupt (wrapped with details, test with errors.Is). Errors that
// Redis sends to clients verbatim (ErrPayloadFooter, ErrBadData,
// ErrNotFunction, ...) are plain sentinel values whose Error() is exactly
// Redis's message without the "ERR " prefix, so a server replies
// "-ERR " + err.Error().
//
// Redis reads a DUMP payload's body from a buffer holding the whole
// payload, footer included, and never checks that the body was consumed
// exactly: a value may run into the footer, and bytes left after it are
// ignored (RESTORE of keys and FUNCTION RESTORE alike). To answer alike,
// decode with a Reader over the whole payload after VerifyPayload, not
// over the returned body; Restore and DecodeFunctions do so. Since the
// CRC starts from 0, zero bytes in front of a payload do not change its
// checksum either.
package rdb

// Version is the RDB format version Redis 7.0 writes (RDB_VERSION) and the
// highest one it accepts in DUMP payloads.
const Version = 10

// RDB object types (RDB_TYPE_*) as of RDB version 10. A DUMP payload starts
// with one of them; in an RDB file each key/value pair does.
const (
	TypeString           = 0
	TypeList             = 1
	TypeSet              = 2
	TypeZSet             = 3
	TypeHash             = 4
	TypeZSet2            = 5
	TypeModule           = 6 // pre-release module format, rejected by Redis
	TypeModule2          = 7
	TypeHashZipmap       = 9
	TypeListZiplist      = 10
	TypeSetIntset        = 11
	TypeZSetZiplist      = 12
	TypeHashZiplist      = 13
	TypeListQuicklist    = 14
	TypeStreamListpacks  = 15
	TypeHashListpack     = 16
	TypeZSetListpack     = 17
	TypeListQuicklist2   = 18
	TypeStreamListpacks2 = 19
)

// RDB opcodes (RDB_OPCODE_*): one-byte markers sharing the type byte's
// position in the stream.
const (
	OpcodeFunction2     = 245 // a function library: its code as an RDB string
	OpcodeFunctionPreGA = 246 // a function library in the 7.0-rc1/rc2 format, still loaded by 7.0
	OpcodeModuleAux     = 247
	OpcodeIdle          = 248
	OpcodeFreq          = 249
	OpcodeAux           = 250
	OpcodeResizeDB      = 251
	OpcodeExpireTimeMS  = 252
	OpcodeExpireTime    = 253
	OpcodeSelectDB      = 254
	OpcodeEOF           = 255
)

// Length encodings: the two high bits of a length's first byte.
const (
	len6Bit  = 0    // 00xxxxxx: a 6-bit length
	len14Bit = 1    // 01xxxxxx xxxxxxxx: a 14-bit big-endian length
	len32Bit = 0x80 // 10000000 + 4 bytes big endian
	len64Bit = 0x81 // 10000001 + 8 bytes big endian
	encVal   = 3    // 11xxxxxx: a special string encoding, see enc*
)

// Special string encodings (RDB_ENC_*), the low six bits after encVal.
const (
	encInt8  = 0 // 1 byte signed integer
	encInt16 = 1 // 2 bytes little-endian signed integer
	encInt32 = 2 // 4 bytes little-endian signed integer
	encLZF   = 3 // LZF-compressed: compressed length, length, data
)
