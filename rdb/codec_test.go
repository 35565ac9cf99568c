package rdb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// Test-only writers of the encodings Redis 7.0 still loads but no longer
// writes, following Redis's writers (ziplist.c __ziplistInsert at the tail,
// zipmap.c zipmapSet). TestRedisLegacyEncodings checks that Redis loads
// what they produce.

// zipEntryHeader appends a ziplist entry's prevlen and encoding for s and
// reports whether s is stored as an integer (zipTryEncoding).
func appendZipEntry(dst []byte, prevlen int, s string) []byte {
	if prevlen < zlBigPrevlen {
		dst = append(dst, byte(prevlen))
	} else {
		dst = binary.LittleEndian.AppendUint32(append(dst, zlBigPrevlen), uint32(prevlen))
	}
	if v, ok := parseStrictInt(s); ok && len(s) < 32 {
		switch {
		case v >= 0 && v <= 12:
			return append(dst, zlImmMin+byte(v))
		case v >= math.MinInt8 && v <= math.MaxInt8:
			return append(dst, zlInt8, byte(v))
		case v >= math.MinInt16 && v <= math.MaxInt16:
			return binary.LittleEndian.AppendUint16(append(dst, zlInt16), uint16(v))
		case v >= -1<<23 && v <= 1<<23-1:
			u := uint32(v)
			return append(dst, zlInt24, byte(u), byte(u>>8), byte(u>>16))
		case v >= math.MinInt32 && v <= math.MaxInt32:
			return binary.LittleEndian.AppendUint32(append(dst, zlInt32), uint32(v))
		default:
			return binary.LittleEndian.AppendUint64(append(dst, zlInt64), uint64(v))
		}
	}
	n := len(s)
	switch {
	case n <= 0x3f:
		dst = append(dst, zlStr06|byte(n))
	case n <= 0x3fff:
		dst = append(dst, zlStr14|byte(n>>8), byte(n))
	default:
		dst = binary.BigEndian.AppendUint32(append(dst, zlStr32), uint32(n))
	}
	return append(dst, s...)
}

// buildZiplist returns the ziplist Redis builds by pushing entries at the
// tail of an empty ziplist.
func buildZiplist(entries []string) []byte {
	zl := make([]byte, zlHeaderSize)
	tail, prevlen := zlHeaderSize, 0
	for _, e := range entries {
		tail = len(zl)
		zl = appendZipEntry(zl, prevlen, e)
		prevlen = len(zl) - tail
	}
	zl = append(zl, zlEnd)
	binary.LittleEndian.PutUint32(zl, uint32(len(zl)))
	binary.LittleEndian.PutUint32(zl[4:], uint32(tail))
	binary.LittleEndian.PutUint16(zl[8:], uint16(min(len(entries), 0xFFFF)))
	return zl
}

// appendZipmapLen is zipmapEncodeLength.
func appendZipmapLen(dst []byte, n int) []byte {
	if n < zipmapBigLen {
		return append(dst, byte(n))
	}
	return binary.LittleEndian.AppendUint32(append(dst, zipmapBigLen), uint32(n))
}

// buildZipmap returns a zipmap of pairs, each value followed by free
// unused bytes (0 to 4 in zipmaps Redis wrote).
func buildZipmap(pairs [][2]string, free int) []byte {
	zm := []byte{byte(min(len(pairs), zipmapBigLen))}
	for _, p := range pairs {
		zm = appendZipmapLen(zm, len(p[0]))
		zm = append(zm, p[0]...)
		zm = appendZipmapLen(zm, len(p[1]))
		zm = append(zm, byte(free))
		zm = append(zm, p[1]...)
		zm = append(zm, make([]byte, free)...)
	}
	return append(zm, zipmapEnd)
}

// walkAll returns the entries of a listpack or ziplist as strings.
func walkAll(walk func([]byte, func(lpEntry) error) (int, error), blob []byte) ([]string, error) {
	var out []string
	n, err := walk(blob, func(e lpEntry) error {
		out = append(out, string(e.appendTo(nil)))
		return nil
	})
	if err == nil && n != len(out) {
		return nil, fmt.Errorf("count %d, %d entries", n, len(out))
	}
	return out, err
}

func TestParseStrictInt(t *testing.T) {
	good := []string{"0", "1", "-1", "9", "10", "127", "-9223372036854775808", "9223372036854775807",
		"12345678901234567", "-42"}
	bad := []string{"", "-", "-0", "00", "01", "+1", " 1", "1 ", "1a", "9223372036854775808",
		"-9223372036854775809", "99999999999999999999", "184467440737095516160", "1.0", "0x1", "\x00"}
	for _, s := range good {
		v, ok := parseStrictInt(s)
		if !ok || strconv.FormatInt(v, 10) != s {
			t.Errorf("parseStrictInt(%q) = %d, %v", s, v, ok)
		}
	}
	for _, s := range bad {
		if v, ok := parseStrictInt(s); ok {
			t.Errorf("parseStrictInt(%q) = %d, want rejection", s, v)
		}
	}
	// Agreement with the definition on random input.
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var s string
		switch rng.IntN(3) {
		case 0:
			s = strconv.FormatInt(int64(rng.Uint64()), 10)
		case 1:
			s = strconv.FormatInt(rng.Int64N(1000)-500, 10)
		default:
			b := make([]byte, rng.IntN(22))
			for i := range b {
				b[i] = "-0123456789+ "[rng.IntN(13)]
			}
			s = string(b)
		}
		v, err := strconv.ParseInt(s, 10, 64)
		want := err == nil && strconv.FormatInt(v, 10) == s
		if got, ok := parseStrictInt(s); ok != want || (ok && got != v) {
			t.Fatalf("parseStrictInt(%q) = %d, %v; want %v", s, got, ok, want)
		}
	}
}

// listpackEntryCases are single listpack entries as lpAppend writes them:
// every integer width boundary, string length encodings and backlen
// sizes. TestRedisListpackEntries checks them against Redis.
var listpackEntryCases = []struct {
	in   string
	want string
}{
	{"0", "\x00\x01"},
	{"127", "\x7f\x01"},
	{"128", "\xc0\x80\x02"},
	{"-1", "\xdf\xff\x02"},
	{"4095", "\xcf\xff\x02"},
	{"-4096", "\xd0\x00\x02"},
	{"4096", "\xf1\x00\x10\x03"},
	{"-4097", "\xf1\xff\xef\x03"},
	{"32767", "\xf1\xff\x7f\x03"},
	{"-32768", "\xf1\x00\x80\x03"},
	{"32768", "\xf2\x00\x80\x00\x04"},
	{"-32769", "\xf2\xff\x7f\xff\x04"},
	{"8388607", "\xf2\xff\xff\x7f\x04"},
	{"-8388608", "\xf2\x00\x00\x80\x04"},
	{"8388608", "\xf3\x00\x00\x80\x00\x05"},
	{"-8388609", "\xf3\xff\xff\x7f\xff\x05"},
	{"2147483647", "\xf3\xff\xff\xff\x7f\x05"},
	{"-2147483648", "\xf3\x00\x00\x00\x80\x05"},
	{"2147483648", "\xf4\x00\x00\x00\x80\x00\x00\x00\x00\x09"},
	{"-2147483649", "\xf4\xff\xff\xff\x7f\xff\xff\xff\xff\x09"},
	{"9223372036854775807", "\xf4\xff\xff\xff\xff\xff\xff\xff\x7f\x09"},
	{"-9223372036854775808", "\xf4\x00\x00\x00\x00\x00\x00\x00\x80\x09"},
	{"9223372036854775808", "\x939223372036854775808\x14"},
	{"-0", "\x82-0\x03"},
	{"01", "\x8201\x03"},
	{"+1", "\x82+1\x03"},
	{"", "\x80\x01"},
	{"a", "\x81a\x02"},
	{strings.Repeat("x", 63), "\xbf" + strings.Repeat("x", 63) + "\x40"},
	{strings.Repeat("x", 64), "\xe0\x40" + strings.Repeat("x", 64) + "\x42"},
	{strings.Repeat("x", 125), "\xe0\x7d" + strings.Repeat("x", 125) + "\x7f"},
	{strings.Repeat("x", 126), "\xe0\x7e" + strings.Repeat("x", 126) + "\x01\x80"},
	{strings.Repeat("x", 4095), "\xef\xff" + strings.Repeat("x", 4095) + "\x20\x81"},
	{strings.Repeat("x", 4096), "\xf0\x00\x10\x00\x00" + strings.Repeat("x", 4096) + "\x20\x85"},
	// entry sizes 16382 and 16383: lpEncodeBacklen's "l < 16383"
	{strings.Repeat("x", 16377), "\xf0\xf9\x3f\x00\x00" + strings.Repeat("x", 16377) + "\x7f\xfe"},
	{strings.Repeat("x", 16378), "\xf0\xfa\x3f\x00\x00" + strings.Repeat("x", 16378) + "\x00\xff\xff"},
	// entry sizes 2097150 and 2097151: "l < 2097151"
	{strings.Repeat("y", 2097145), "\xf0\xf9\xff\x1f\x00" + strings.Repeat("y", 2097145) + "\x7f\xff\xfe"},
	{strings.Repeat("y", 2097146), "\xf0\xfa\xff\x1f\x00" + strings.Repeat("y", 2097146) + "\x00\xff\xff\xff"},
}

func TestListpackEntries(t *testing.T) {
	for _, c := range listpackEntryCases {
		got := appendListpackEntry([]byte("pre"), c.in)
		if string(got) != "pre"+c.want {
			t.Errorf("appendListpackEntry(%.20q) = %.40q, want %.40q", c.in, got[3:], c.want)
		}
		if n := listpackEntrySize(c.in); n != uint64(len(c.want)) {
			t.Errorf("listpackEntrySize(%.20q) = %d, want %d", c.in, n, len(c.want))
		}
		lb := newListpack(nil)
		lb.addString(c.in)
		size := lb.bytes()
		lp := lb.finish()
		if size != len(lp) {
			t.Errorf("bytes() = %d before finish, listpack has %d", size, len(lp))
		}
		want := string(binary.LittleEndian.AppendUint32(nil, uint32(len(c.want)+7))) + "\x01\x00" + c.want + "\xff"
		if string(lp) != want {
			t.Errorf("listpack of %.20q = %.40q, want %.40q", c.in, lp, want)
		}
		got2, err := walkAll(walkListpack, lp)
		if err != nil || len(got2) != 1 || got2[0] != c.in {
			t.Errorf("walkListpack(listpack of %.20q) = %.20q, %v", c.in, got2, err)
		}
	}
}

func TestBacklen(t *testing.T) {
	for _, c := range []struct {
		l    uint64
		want string
	}{
		{0, "\x00"}, {127, "\x7f"}, {128, "\x01\x80"}, {16382, "\x7f\xfe"}, {16383, "\x00\xff\xff"},
		{2097150, "\x7f\xff\xfe"}, {2097151, "\x00\xff\xff\xff"},
		{268435454, "\x7f\xff\xff\xfe"}, {268435455, "\x00\xff\xff\xff\xff"},
		{1<<32 - 1, "\x0f\xff\xff\xff\xff"},
	} {
		got := appendBacklen(nil, c.l)
		if string(got) != c.want || backlenSize(c.l) != uint64(len(c.want)) {
			t.Errorf("appendBacklen(%d) = %q (size %d), want %q", c.l, got, backlenSize(c.l), c.want)
		}
		if v, ok := lpDecodeBacklen(got, len(got)-1); !ok || v != c.l {
			t.Errorf("lpDecodeBacklen(%q) = %d, %v", got, v, ok)
		}
	}
	// More than 5 bytes, or running off the start, is invalid.
	if _, ok := lpDecodeBacklen([]byte("\x80\x80\x80\x80\x80\x80"), 5); ok {
		t.Error("6-byte backlen accepted")
	}
	if _, ok := lpDecodeBacklen([]byte("\x80\x80"), 1); ok {
		t.Error("backlen running off the start accepted")
	}
}

func TestListpackRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		n := rng.IntN(100)
		var in []string
		lb := newListpack([]byte("prefix"))
		for range n {
			var s string
			switch rng.IntN(4) {
			case 0:
				s = strconv.FormatInt(int64(rng.Uint64())>>rng.IntN(64), 10)
			case 1:
				s = strconv.FormatInt(-int64(rng.Uint64()>>rng.IntN(64)), 10)
			case 2:
				s = strings.Repeat("z", rng.IntN(5000))
			default:
				s = randomText(rng, rng.IntN(70))
			}
			in = append(in, s)
			lb.addString(s)
		}
		out := lb.finish()
		if !bytes.HasPrefix(out, []byte("prefix")) {
			t.Fatal("finish lost the prefix")
		}
		got, err := walkAll(walkListpack, out[6:])
		if err != nil || strings.Join(got, "\x00") != strings.Join(in, "\x00") || len(got) != len(in) {
			t.Fatalf("round trip of %d entries: %v", n, err)
		}
	}
}

// TestListpackNumeleUnknown: a listpack of 65535 entries or more has
// 65535 in its count field, which the validator accepts.
func TestListpackNumeleUnknown(t *testing.T) {
	for _, n := range []int{65534, 65535, 70000} {
		lb := newListpack(nil)
		for i := range n {
			lb.addString(strconv.Itoa(i % 100))
		}
		lp := lb.finish()
		if got, want := binary.LittleEndian.Uint16(lp[4:]), min(n, 65535); int(got) != want {
			t.Errorf("%d entries: count field %d, want %d", n, got, want)
		}
		if c, err := walkListpack(lp, nil); err != nil || c != n {
			t.Errorf("%d entries: walkListpack = %d, %v", n, c, err)
		}
	}
}

func TestListpackCorrupt(t *testing.T) {
	valid := "\x0f\x00\x00\x00\x03\x00\x81a\x02\x01\x01\xc0\x80\x02\xff" // "a", 1, 128
	if got, err := walkAll(walkListpack, []byte(valid)); err != nil || strings.Join(got, ",") != "a,1,128" {
		t.Fatalf("valid listpack: %q, %v", got, err)
	}
	with := func(i int, b byte) string { return valid[:i] + string([]byte{b}) + valid[i+1:] }
	cases := []struct{ name, lp string }{
		{"empty", ""},
		{"short header", "\x06\x00\x00\x00\x00\x00"},
		{"total too big", with(0, 0x10)},
		{"total too small", with(0, 0x0e)},
		{"no terminator", with(14, 0xfe)},
		{"count too big", with(4, 4)},
		{"count too small", with(4, 2)},
		{"invalid encoding 0xf5", with(6, 0xf5)},
		{"invalid encoding 0xfe", "\x0a\x00\x00\x00\x01\x00\xfe\x01\x02\xff"},
		{"wrong backlen", with(8, 0x03)},
		{"string past end", with(11, 0x8a)},
		{"12-bit length past end", "\x0b\x00\x00\x00\x01\x00\xe0\x05\x02\x03\xff"},
		{"32-bit length past end", "\x0c\x00\x00\x00\x01\x00\xf0\x01\x00\x00\x00\xff"},
		{"32-bit length near 2^32", "\x0d\x00\x00\x00\x01\x00\xf0\xfc\xff\xff\xffa\xff"},
		{"int past end", "\x0b\x00\x00\x00\x01\x00\xf4\x01\x02\x03\xff"},
		{"terminator early", with(9, 0xff)},
		{"backlen over 5 bytes", "\x0e\x00\x00\x00\x01\x00\x85\x80\x80\x80\x80\x80\x86\xff"},
	}
	for _, c := range cases {
		if _, err := walkListpack([]byte(c.lp), nil); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: walkListpack = %v, want ErrCorrupt", c.name, err)
		}
	}
	// 65535 means "count them": any count is fine.
	if n, err := walkListpack([]byte(with(4, 0xff)[:5]+"\xff"+valid[6:]), nil); err != nil || n != 3 {
		t.Errorf("count 65535: %d, %v", n, err)
	}
	// Redundant encodings decode to the same values.
	redundant := "\x18\x00\x00\x00\x03\x00\xf4\x05\x00\x00\x00\x00\x00\x00\x00\x09\xf1\xff\xff\x03\x815\x02\xff"
	if got, err := walkAll(walkListpack, []byte(redundant)); err != nil || strings.Join(got, ",") != "5,-1,5" {
		t.Errorf("redundant encodings: %q, %v", got, err)
	}
}

func TestIntset(t *testing.T) {
	cases := []struct {
		vals []int64
		want string
	}{
		// Redis's DUMP of SADD s 1 2 3 -5 (TestRedisDumpVectors).
		{[]int64{-5, 1, 2, 3}, "\x02\x00\x00\x00\x04\x00\x00\x00\xfb\xff\x01\x00\x02\x00\x03\x00"},
		{[]int64{1, 70000}, "\x04\x00\x00\x00\x02\x00\x00\x00\x01\x00\x00\x00\x70\x11\x01\x00"},
		{[]int64{math.MinInt16, math.MaxInt16}, "\x02\x00\x00\x00\x02\x00\x00\x00\x00\x80\xff\x7f"},
		{[]int64{math.MinInt16 - 1}, "\x04\x00\x00\x00\x01\x00\x00\x00\xff\x7f\xff\xff"},
		{[]int64{math.MaxInt16 + 1}, "\x04\x00\x00\x00\x01\x00\x00\x00\x00\x80\x00\x00"},
		{[]int64{math.MinInt32, math.MaxInt32}, "\x04\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x80\xff\xff\xff\x7f"},
		{[]int64{-1, math.MaxInt32 + 1}, "\x08\x00\x00\x00\x02\x00\x00\x00\xff\xff\xff\xff\xff\xff\xff\xff\x00\x00\x00\x80\x00\x00\x00\x00"},
		{[]int64{math.MinInt64, 0, math.MaxInt64}, "\x08\x00\x00\x00\x03\x00\x00\x00" +
			"\x00\x00\x00\x00\x00\x00\x00\x80" + "\x00\x00\x00\x00\x00\x00\x00\x00" + "\xff\xff\xff\xff\xff\xff\xff\x7f"},
	}
	for _, c := range cases {
		got := appendIntset(nil, c.vals)
		if string(got) != c.want {
			t.Errorf("appendIntset(%d) = %q, want %q", c.vals, got, c.want)
		}
		var back []int64
		if err := walkIntset(got, func(v int64) { back = append(back, v) }); err != nil || fmt.Sprint(back) != fmt.Sprint(c.vals) {
			t.Errorf("walkIntset(%q) = %d, %v", got, back, err)
		}
	}
	// Narrow values in a wide intset are valid.
	wide := "\x08\x00\x00\x00\x02\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00"
	if err := walkIntset([]byte(wide), func(int64) {}); err != nil {
		t.Errorf("wide intset: %v", err)
	}
	for _, bad := range []string{
		"", "\x02\x00\x00\x00\x00\x00\x00", // short header
		"\x02\x00\x00\x00\x00\x00\x00\x00",                 // empty
		"\x03\x00\x00\x00\x01\x00\x00\x00\x01\x00",         // width 3
		"\x02\x00\x00\x00\x02\x00\x00\x00\x01\x00",         // size mismatch
		"\x02\x00\x00\x00\x01\x00\x00\x00\x01\x00\x00",     // trailing byte
		"\x02\x00\x00\x00\x02\x00\x00\x00\x01\x00\x01\x00", // duplicate
		"\x02\x00\x00\x00\x02\x00\x00\x00\x02\x00\x01\x00", // descending
		"\x02\x00\x00\x00\xff\xff\xff\xff\x01\x00",         // huge count
	} {
		if err := walkIntset([]byte(bad), func(int64) {}); !errors.Is(err, ErrCorrupt) {
			t.Errorf("walkIntset(%q) = %v, want ErrCorrupt", bad, err)
		}
	}
}

func TestZiplist(t *testing.T) {
	// From Redis's test suite (tests/integration/corrupt-dump-fuzzer and
	// corrupt-dump.tcl): a hash ziplist written by Redis 6, fields and
	// values "a\x00", "b\x00", "c\x00", "d\x00".
	redisHash := "\x1b\x00\x00\x00\x16\x00\x00\x00\x04\x00\x00\x02\x61\x00\x04\x02\x62\x00\x04\x02\x63\x00\x04\x02\x64\x00\xff"
	got, err := walkAll(walkZiplist, []byte(redisHash))
	if err != nil || strings.Join(got, ",") != "a\x00,b\x00,c\x00,d\x00" {
		t.Fatalf("Redis ziplist: %q, %v", got, err)
	}
	if string(buildZiplist([]string{"a\x00", "b\x00", "c\x00", "d\x00"})) != redisHash {
		t.Fatalf("buildZiplist differs from Redis's ziplist")
	}
	// Every encoding, and prevlen in 1 and 5 bytes.
	entries := []string{"0", "12", "13", "-1", "127", "-128", "128", "32767", "-32768", "32768",
		"8388607", "-8388608", "8388608", "2147483647", "-2147483648", "2147483648",
		"9223372036854775807", "-9223372036854775808", "", "x", strings.Repeat("a", 63),
		strings.Repeat("b", 64), strings.Repeat("c", 252), strings.Repeat("d", 300), "after big",
		strings.Repeat("e", 16383), strings.Repeat("f", 16384), "-0", "007", "1234567890123456789012345678901"}
	zl := buildZiplist(entries)
	got, err = walkAll(walkZiplist, zl)
	if err != nil || strings.Join(got, "|") != strings.Join(entries, "|") {
		t.Fatalf("ziplist round trip: %v", err)
	}
	if n, err := walkZiplist(buildZiplist(nil), nil); err != nil || n != 0 {
		t.Errorf("empty ziplist: %d, %v", n, err)
	}
	// A count of 65535 means "count them".
	unknown := []byte(redisHash)
	unknown[8], unknown[9] = 0xff, 0xff
	if n, err := walkZiplist(unknown, nil); err != nil || n != 4 {
		t.Errorf("count 65535: %d, %v", n, err)
	}
	corrupt := func(name string, mutate func(zl []byte) []byte) {
		t.Helper()
		b := mutate([]byte(redisHash))
		if _, err := walkZiplist(b, nil); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: walkZiplist(%q) = %v, want ErrCorrupt", name, b, err)
		}
	}
	corrupt("short", func(b []byte) []byte { return b[:10] })
	corrupt("zlbytes", func(b []byte) []byte { b[0]++; return b })
	corrupt("no end", func(b []byte) []byte { b[len(b)-1] = 0; return b })
	corrupt("tail past end", func(b []byte) []byte { b[4] = 0x1b; return b })
	corrupt("tail not last", func(b []byte) []byte { b[4] = 0x12; return b })
	corrupt("count", func(b []byte) []byte { b[8] = 3; return b })
	corrupt("prevlen", func(b []byte) []byte { b[14] = 5; return b })
	corrupt("first prevlen", func(b []byte) []byte { b[10] = 1; return b })
	corrupt("entry len", func(b []byte) []byte { b[15] = 0x14; return b })
	corrupt("bad encoding", func(b []byte) []byte { b[11] = 0xc1; return b })
	corrupt("end in middle", func(b []byte) []byte { b[14] = 0xff; return b })
	corrupt("big prevlen past end", func(b []byte) []byte {
		return append(b[:len(b)-1:len(b)-1], 0xfe, 0x01, 0xff) // zlbytes now wrong too
	})
	corrupt("32-bit string past end", func(b []byte) []byte {
		b = append(b[:len(b)-1:len(b)-1], 0x04, 0x80, 0xff, 0xff, 0xff, 0xff, 0xff)
		binary.LittleEndian.PutUint32(b, uint32(len(b)))
		binary.LittleEndian.PutUint32(b[4:], 26)
		b[8] = 5
		return b
	})
}

func TestZipmap(t *testing.T) {
	// zipmap.c's own example: "foo" => "bar", "hello" => "world".
	example := "\x02\x03foo\x03\x00bar\x05hello\x05\x00world\xff"
	if got := buildZipmap([][2]string{{"foo", "bar"}, {"hello", "world"}}, 0); string(got) != example {
		t.Fatalf("buildZipmap = %q, want %q", got, example)
	}
	walk := func(zm []byte) (string, error) {
		var parts []string
		err := walkZipmap(zm, func(f, v []byte) error {
			parts = append(parts, string(f)+"="+string(v))
			return nil
		})
		return strings.Join(parts, ","), err
	}
	if got, err := walk([]byte(example)); err != nil || got != "foo=bar,hello=world" {
		t.Fatalf("walkZipmap(example) = %q, %v", got, err)
	}
	big := strings.Repeat("k", 300)
	pairs := [][2]string{{"", ""}, {big, "v"}, {"f", big}, {"x", ""}}
	for free := range 5 {
		if got, err := walk(buildZipmap(pairs, free)); err != nil || got != "=,"+big+"=v,f="+big+",x=" {
			t.Errorf("free %d: %.40q, %v", free, got, err)
		}
	}
	// 254 pairs or more: the count byte is 254.
	var many [][2]string
	for i := range 300 {
		many = append(many, [2]string{strconv.Itoa(i), "v"})
	}
	if _, err := walk(buildZipmap(many, 0)); err != nil {
		t.Errorf("300 pairs: %v", err)
	}
	for _, bad := range []string{
		"", "\x00", "\x00\xff", // empty
		"\x02\x03foo\x03\x00bar\x05hello\x05\x00world\xfe", // no end
		"\x01\x03foo\x03\x00bar\x05hello\x05\x00world\xff", // count
		"\x02\x03foo\x03\x00bar\x05hello\x06\x00world\xff", // value past end
		"\x02\x03foo\x03\x05bar\x05hello\x05\x00world\xff", // free past end
		"\x01\x09foo\x03\x00bar\xff",                       // field past end
		"\x01\xfe\x03\x00\x00\x00foo\x03\x00bar\xff",       // short length in 5 bytes
		"\x01\x03foo\xfe\x01\x01\xff",                      // 5-byte length past end
	} {
		if _, err := walk([]byte(bad)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("walkZipmap(%q) = %v, want ErrCorrupt", bad, err)
		}
	}
}

// TestAppendScore pins d2string's output, which Redis's own listpacks
// confirm in TestRedisDumpValues.
func TestAppendScore(t *testing.T) {
	for _, c := range []struct {
		f    float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "-0"}, {1, "1"}, {-7, "-7"}, {1.5, "1.5"},
		{0.1, "0.10000000000000001"}, {123.456, "123.456"}, {1e-5, "1.0000000000000001e-05"},
		{1e16, "10000000000000000"}, {1e17, "100000000000000000"}, {1 << 62, "4611686018427387904"},
		{-(1 << 62), "-4611686018427387904"}, {1<<62 + 1024, "4.6116860184273889e+18"},
		{1e20, "1e+20"}, {math.Inf(1), "inf"}, {math.Inf(-1), "-inf"}, {math.NaN(), "nan"},
		{math.MaxFloat64, "1.7976931348623157e+308"}, {5e-324, "4.9406564584124654e-324"},
		{-1.2345678901234567e-300, "-1.2345678901234568e-300"}, {0.5, "0.5"}, {2.5e-5, "2.5000000000000001e-05"},
	} {
		if got := string(appendScore(nil, c.f)); got != c.want {
			t.Errorf("appendScore(%v) = %q, want %q", c.f, got, c.want)
		}
	}
}
