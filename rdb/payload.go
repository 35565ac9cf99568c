package rdb

import (
	"encoding/binary"
	"errors"
)

// FooterLen is the length of a DUMP payload's footer: the 2-byte RDB
// version and the 8-byte CRC64, both little endian.
const FooterLen = 10

// ErrPayloadFooter is what Redis 7.0 replies to RESTORE and FUNCTION
// RESTORE (after "ERR ") when verifyDumpPayload rejects a payload: shorter
// than the footer, an RDB version above Version, or a wrong checksum.
var ErrPayloadFooter = errors.New("DUMP payload version or checksum are wrong")

// AppendFooter appends the DUMP payload footer to payload, as
// createDumpPayload and FUNCTION DUMP do: Version as two little-endian
// bytes, then the CRC64 (see CRC64) of everything before the checksum,
// that is payload and the version, as eight little-endian bytes.
func AppendFooter(payload []byte) []byte {
	payload = binary.LittleEndian.AppendUint16(payload, Version)
	return binary.LittleEndian.AppendUint64(payload, CRC64(0, payload))
}

// VerifyPayload checks a DUMP or FUNCTION DUMP payload's footer as Redis
// 7.0's verifyDumpPayload does and returns the body before the footer and
// the RDB version the footer names. It returns ErrPayloadFooter when p is
// shorter than FooterLen, when the version is greater than Version (older
// versions are accepted), or when the stored CRC64 differs from the CRC64
// of p without its last 8 bytes. A stored CRC of 0 gets no special
// treatment (Redis 7.0 has none; only its DEBUG
// SET-SKIP-CHECKSUM-VALIDATION skips the check). The body aliases p.
func VerifyPayload(p []byte) (body []byte, version uint16, err error) {
	return RestoreOptions{}.VerifyPayload(p)
}

// VerifyPayload is the package's VerifyPayload with the options o: with
// SkipChecksum, only the length and the version are checked.
func (o RestoreOptions) VerifyPayload(p []byte) (body []byte, version uint16, err error) {
	if len(p) < FooterLen {
		return nil, 0, ErrPayloadFooter
	}
	footer := p[len(p)-FooterLen:]
	version = binary.LittleEndian.Uint16(footer)
	if version > Version {
		return nil, version, ErrPayloadFooter
	}
	if !o.SkipChecksum && CRC64(0, p[:len(p)-8]) != binary.LittleEndian.Uint64(footer[2:]) {
		return nil, version, ErrPayloadFooter
	}
	return p[:len(p)-FooterLen], version, nil
}
