package rdb

import (
	"encoding/binary"
	"errors"
	"testing"
)

// redisStringDump is DUMP of a key holding 21 'a's, from Redis 7.0.15.
const redisStringDump = "\x00\xc3\x06\x15\x01aa\xe0\n\x00\n\x00\xfd\f\xb3h\aA?h"

func TestAppendFooterMatchesRedis(t *testing.T) {
	body := redisStringDump[:len(redisStringDump)-FooterLen]
	if got := AppendFooter([]byte(body)); string(got) != redisStringDump {
		t.Fatalf("AppendFooter = %q, want Redis's %q", got, redisStringDump)
	}
	w := NewWriter(nil, true)
	w.WriteType(TypeString)
	w.WriteString("aaaaaaaaaaaaaaaaaaaaa")
	w.WriteFooter()
	if string(w.Bytes()) != redisStringDump {
		t.Fatalf("Writer = %q, want Redis's %q", w.Bytes(), redisStringDump)
	}
}

func TestVerifyPayload(t *testing.T) {
	body, version, err := VerifyPayload([]byte(redisStringDump))
	if err != nil || version != Version || string(body) != redisStringDump[:len(redisStringDump)-FooterLen] {
		t.Fatalf("VerifyPayload(Redis dump) = %q, %d, %v", body, version, err)
	}
	if body, _, err := VerifyPayload(AppendFooter(nil)); err != nil || len(body) != 0 {
		t.Fatalf("VerifyPayload(empty body) = %q, %v", body, err)
	}

	withVersion := func(v uint16) []byte {
		p := binary.LittleEndian.AppendUint16([]byte("\x00\x01a"), v)
		return binary.LittleEndian.AppendUint64(p, CRC64(0, p))
	}
	for _, v := range []uint16{0, 1, 9, 10} {
		if _, got, err := VerifyPayload(withVersion(v)); err != nil || got != v {
			t.Errorf("version %d: %d, %v; want accepted", v, got, err)
		}
	}
	for _, v := range []uint16{11, 12, 0x100, 0xffff} {
		if _, _, err := VerifyPayload(withVersion(v)); err != ErrPayloadFooter {
			t.Errorf("version %d: %v; want ErrPayloadFooter", v, err)
		}
	}

	good := []byte(redisStringDump)
	for i := range good {
		bad := append([]byte(nil), good...)
		bad[i] ^= 0x20
		if _, _, err := VerifyPayload(bad); err != ErrPayloadFooter {
			t.Errorf("byte %d flipped: %v; want ErrPayloadFooter", i, err)
		}
	}
	for n := range FooterLen {
		if _, _, err := VerifyPayload(good[len(good)-n:]); err != ErrPayloadFooter {
			t.Errorf("%d-byte payload: %v; want ErrPayloadFooter", n, err)
		}
	}
	zeroCRC := append([]byte("\x00\x01a\x0a\x00"), make([]byte, 8)...)
	if _, _, err := VerifyPayload(zeroCRC); !errors.Is(err, ErrPayloadFooter) {
		t.Errorf("CRC 0: %v; want ErrPayloadFooter (no special case in 7.0)", err)
	}
	if ErrPayloadFooter.Error() != "DUMP payload version or checksum are wrong" {
		t.Errorf("ErrPayloadFooter text %q", ErrPayloadFooter)
	}
}
