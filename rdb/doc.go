// Package rdb is HotKV's codec for Redis 7.0's RDB serialization format
// (RDB version 10), the byte format of dump.rdb files, of DUMP/RESTORE
// payloads and of FUNCTION DUMP/FUNCTION RESTORE payloads.
//
// This first part covers what FUNCTION DUMP and FUNCTION RESTORE need, and
// the primitives every later part (key DUMP/RESTORE, dump.rdb) builds on:
//
//   - CRC64: Redis's crc64 (crc64.c, Jones polynomial, reflected, init 0,
//     no final xor), the checksum of DUMP payloads and of RDB files.
//   - LZFCompress / LZFDecompress: a port of liblzf 3.6 as vendored by
//     Redis (lzf_c.c, lzf_d.c, lzfP.h: HLOG 16, VERY_FAST, CHECK_INPUT).
//     LZFCompress produces the same bytes as Redis's lzf_compress with a
//     zeroed hash table, and gives up in exactly the same cases.
//   - Length and string encodings (rdbSaveLen, rdbSaveRawString,
//     rdbLoadLen, rdbGenericLoadStringObject): Writer / AppendLen /
//     AppendString to encode, Reader to decode.
//   - DUMP payload footers (createDumpPayload, verifyDumpPayload):
//     AppendFooter and VerifyPayload.
//   - Function payloads (functionDumpCommand, functionRestoreCommand,
//     rdbFunctionLoad): EncodeFunctions and DecodeFunctions.
//
// Decoders never panic and never allocate more than a small multiple of
// their input on corrupt or truncated data; they report ErrTruncated or
// ErrCorrupt (wrapped with details, test with errors.Is). Errors that
// Redis sends to clients verbatim (ErrPayloadFooter, ErrNotFunction, ...)
// are plain sentinel values whose Error() is exactly Redis's message
// without the "ERR " prefix, so a server replies "-ERR " + err.Error().
//
// Redis reads a DUMP payload's body from a buffer holding the whole
// payload, footer included, and never checks that the body was consumed
// exactly: a value may run into the footer, and bytes left after it are
// ignored (RESTORE of keys and FUNCTION RESTORE alike). To answer alike,
// decode with a Reader over the whole payload after VerifyPayload, not
// over the returned body; DecodeFunctions does so.
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
