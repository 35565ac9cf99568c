package hll

// The dense encoding packs register i in the 6 bits starting at bit 6*i,
// least significant bits first: byte 6*i/8 holds its low bits from bit
// 6*i%8 up, the next byte the rest.

// denseGet returns register i of the dense registers r (12288 bytes).
func denseGet(r []byte, i int) uint8 {
	b, fb := i*regBits/8, uint(i*regBits&7)
	w := uint16(r[b])
	if b+1 < len(r) { // the last register fits in the last byte
		w |= uint16(r[b+1]) << 8
	}
	return uint8(w>>fb) & regMax
}

// denseSet sets register i of r to count if count is greater, and reports
// whether it did (Redis's hllDenseSet).
func denseSet(r []byte, i int, count uint8) bool {
	if count <= denseGet(r, i) {
		return false
	}
	setRegister(r, i, count)
	return true
}

// setRegister sets register i of r to val, whatever it held.
func setRegister(r []byte, i int, val uint8) {
	b, fb := i*regBits/8, uint(i*regBits&7)
	r[b] = r[b]&^(regMax<<fb) | val<<fb
	if b+1 < len(r) {
		r[b+1] = r[b+1]&^(regMax>>(8-fb)) | val>>(8-fb)
	}
}

// unpack4 returns the four registers packed in the three bytes b0 b1 b2
// (registers 4k to 4k+3 when b0 is byte 3k).
func unpack4(b0, b1, b2 byte) (r0, r1, r2, r3 uint8) {
	return b0 & regMax, (b0>>6 | b1<<2) & regMax, (b1>>4 | b2<<4) & regMax, b2 >> 2
}
