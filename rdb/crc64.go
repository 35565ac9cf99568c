package rdb

import "hash/crc64"

// crcJonesReflected is the Jones polynomial 0xad93d23594c935a9 in the
// bit-reversed form hash/crc64 expects (Redis's crc64 is reflected).
const crcJonesReflected = 0x95ac9329ac4bc9b5

var crcTable = crc64.MakeTable(crcJonesReflected)

// CRC64 returns Redis's crc64(crc, p): the CRC-64/Jones checksum (reflected
// input and output, initial value 0, no final xor) of p, continuing from
// crc. CRC64(0, p) is the checksum of p alone, and
// CRC64(CRC64(0, a), b) == CRC64(0, a+b). The check value is
// CRC64(0, []byte("123456789")) == 0xe9c6d914c4b8d9ca.
func CRC64(crc uint64, p []byte) uint64 {
	// hash/crc64 inverts the register before and after the update (the
	// CRC-64/ISO and ECMA conventions); Redis does not, so cancel both.
	return ^crc64.Update(^crc, crcTable, p)
}
