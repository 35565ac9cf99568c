package rdb

// Differential tests against a real redis-server 7.0 (skipped, loudly, when
// it is not installed): what Redis dumps, this package must decode and
// reproduce byte for byte; what this package encodes, Redis must accept.

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/difftest"
)

// bulk returns the payload of a RESP bulk string reply.
func bulk(t *testing.T, reply string) []byte {
	t.Helper()
	i := strings.Index(reply, "\r\n")
	if !strings.HasPrefix(reply, "$") || i < 0 {
		t.Fatalf("not a bulk string: %q", reply)
	}
	n, err := strconv.Atoi(reply[1:i])
	if err != nil || n < 0 || len(reply) != i+2+n+2 || !strings.HasSuffix(reply, "\r\n") {
		t.Fatalf("bad bulk string: %q", reply)
	}
	return []byte(reply[i+2 : i+2+n])
}

func mustDo(t *testing.T, c *difftest.Conn, want string, args ...string) {
	t.Helper()
	if got := c.Do(args...); got != want {
		t.Fatalf("%.60q: got %q, want %q", args, got, want)
	}
}

// randomText returns n random base64 characters: text LZF cannot shrink.
func randomText(rng *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return base64.StdEncoding.EncodeToString(b)[:n]
}

// testLibraries returns valid Lua libraries covering every string form a
// library's code can take in a dump: 6-bit, 14-bit and 32-bit lengths,
// LZF-compressed and incompressible code.
func testLibraries() []string {
	rng := rand.New(rand.NewPCG(10, 11))
	var repeated strings.Builder
	repeated.WriteString("#!lua name=repeated\n")
	for i := range 12 {
		fmt.Fprintf(&repeated, "redis.register_function('get%d', function(keys, args) return redis.call('GET', keys[1]) end)\n", i)
	}
	return []string{
		"#!lua name=a\nredis.register_function('fa', function() return 1 end)",
		"#!lua name=tiny\nredis.register_function{function_name='ft', callback=function() return 2 end, flags={'no-writes'}}",
		repeated.String(),
		"#!lua name=noise\nlocal s = '" + randomText(rng, 300) + "'\nredis.register_function('noise', function() return s end)",
		"#!lua name=big\n-- " + randomText(rng, 20000) + "\nredis.register_function('big', function() return 3 end)\n" +
			"-- " + strings.Repeat("padding ", 3000) + "\n",
	}
}

// redisFresh returns what a just-started Redis DUMPs for a string value:
// its first LZF compression, made with a zeroed hash table, so the bytes
// depend on nothing else (Redis never clears its table; see lzf.Compress).
func redisFresh(t *testing.T, value string) []byte {
	c := difftest.Dial(t, difftest.StartRedis(t))
	mustDo(t, c, "+OK\r\n", "SET", "k", value)
	return bulk(t, c.Do("DUMP", "k"))
}

func TestRedisFunctionDump(t *testing.T) {
	c := difftest.Dial(t, difftest.StartRedis(t))
	libs := testLibraries()
	for _, code := range libs {
		mustDo(t, c, "+OK\r\n", "FUNCTION", "FLUSH")
		if r := c.Do("FUNCTION", "LOAD", code); !strings.HasPrefix(r, "$") {
			t.Fatalf("FUNCTION LOAD %.40q: %q", code, r)
		}
		dump := bulk(t, c.Do("FUNCTION", "DUMP"))
		codes, err := DecodeFunctions(dump)
		if err != nil || !slices.Equal(codes, []string{code}) {
			t.Fatalf("DecodeFunctions(dump of %.40q) = %.80q, %v", code, codes, err)
		}
		if mine := EncodeFunctions(codes, true); string(mine) != string(dump) {
			t.Errorf("EncodeFunctions(%.40q) differs from FUNCTION DUMP:\n ours  %q\n redis %q", code, mine, dump)
		}
	}

	// All libraries at once: Redis dumps them in its dictionary's order,
	// which DecodeFunctions reports; in that order the bytes are the same.
	mustDo(t, c, "+OK\r\n", "FUNCTION", "FLUSH")
	for _, code := range libs {
		c.Do("FUNCTION", "LOAD", code)
	}
	for _, compression := range []string{"yes", "no"} {
		mustDo(t, c, "+OK\r\n", "CONFIG", "SET", "rdbcompression", compression)
		dump := bulk(t, c.Do("FUNCTION", "DUMP"))
		codes, err := DecodeFunctions(dump)
		if err != nil {
			t.Fatalf("DecodeFunctions(dump of all): %v", err)
		}
		if got, want := slices.Sorted(slices.Values(codes)), slices.Sorted(slices.Values(libs)); !slices.Equal(got, want) {
			t.Fatalf("DecodeFunctions(dump of all) = %.200q", codes)
		}
		if mine := EncodeFunctions(codes, compression == "yes"); string(mine) != string(dump) {
			t.Errorf("rdbcompression %s: EncodeFunctions differs from FUNCTION DUMP", compression)
		}
	}
}

func TestRedisFunctionRestore(t *testing.T) {
	c := difftest.Dial(t, difftest.StartRedis(t))
	libs := testLibraries()
	for _, compress := range []bool{true, false} {
		mustDo(t, c, "+OK\r\n", "FUNCTION", "FLUSH")
		mustDo(t, c, "+OK\r\n", "FUNCTION", "RESTORE", string(EncodeFunctions(libs, compress)))
		list := c.Do("FUNCTION", "LIST", "WITHCODE")
		if !strings.HasPrefix(list, fmt.Sprintf("*%d\r\n", len(libs))) {
			t.Fatalf("compress %v: FUNCTION LIST WITHCODE = %.200q", compress, list)
		}
		for _, code := range libs {
			if !strings.Contains(list, fmt.Sprintf("$%d\r\n%s\r\n", len(code), code)) {
				t.Errorf("compress %v: library %.40q missing from FUNCTION LIST WITHCODE", compress, code)
			}
		}
		mustDo(t, c, ":1\r\n", "FCALL", "fa", "0")
		mustDo(t, c, ":3\r\n", "FCALL", "big", "0")
		// And back: Redis dumps what we restored.
		codes, err := DecodeFunctions(bulk(t, c.Do("FUNCTION", "DUMP")))
		if got, want := slices.Sorted(slices.Values(codes)), slices.Sorted(slices.Values(libs)); err != nil || !slices.Equal(got, want) {
			t.Errorf("compress %v: dump after restore decodes as %.100q, %v", compress, codes, err)
		}
	}
}

// TestRedisFunctionRestoreErrors sends payloads to FUNCTION RESTORE and
// checks that DecodeFunctions' verdict is Redis's reply: "-ERR " and the
// error text, or +OK (the codes used compile).
func TestRedisFunctionRestoreErrors(t *testing.T) {
	c := difftest.Dial(t, difftest.StartRedis(t))
	code := "#!lua name=e\nredis.register_function('fe', function() return 1 end)"
	record := func(code string) []byte { return AppendString([]byte{OpcodeFunction2}, code, false) }
	withFooter := func(body []byte, version uint16, crc func(uint64) uint64) []byte {
		p := append(slices.Clone(body), byte(version), byte(version>>8))
		sum := crc(CRC64(0, p))
		for i := range 8 {
			p = append(p, byte(sum>>(8*i)))
		}
		return p
	}
	same := func(x uint64) uint64 { return x }
	desc := "the description"
	const preGABlob = "redis.register_function('fpg', function() return 7 end)"
	good := EncodeFunctions([]string{code}, true)
	cases := []struct {
		name    string
		payload []byte
	}{
		{"valid", good},
		{"empty body", AppendFooter(nil)},
		{"version 9", withFooter(record(code), 9, same)},
		{"version 0", withFooter(record(code), 0, same)},
		{"version 11", withFooter(record(code), 11, same)},
		{"CRC 0", withFooter(record(code), 10, func(uint64) uint64 { return 0 })},
		{"CRC off by one", withFooter(record(code), 10, func(x uint64) uint64 { return x + 1 })},
		{"no footer", record(code)},
		{"9 bytes", good[len(good)-9:]},
		{"empty", nil},
		{"pre-GA", AppendFooter(preGARecord("pg", "lua", nil, preGABlob))},
		{"pre-GA upper-case engine", AppendFooter(preGARecord("pg", "LUA", nil, preGABlob))},
		{"pre-GA with description", AppendFooter(preGARecord("pg", "lua", &desc, preGABlob))},
		{"pre-GA NUL bytes", AppendFooter(preGARecord("pg\x00x", "lua\x00y", nil, preGABlob+"\x00 garbage"))},
		{"pre-GA then GA", AppendFooter(append(preGARecord("pg", "lua", nil, preGABlob), record(code)...))},
		{"pre-GA FUNCTION2 body", AppendFooter(append([]byte{OpcodeFunctionPreGA}, record(code)[1:]...))},
		{"pre-GA bad name", AppendFooter([]byte("\xf6\x9a"))},
		{"pre-GA bad engine", AppendFooter([]byte("\xf6\x02pg\xc7"))},
		{"pre-GA bad indicator", AppendFooter([]byte("\xf6\x02pg\x03lua\x9a"))},
		{"pre-GA indicator RDB_LENERR", AppendFooter([]byte("\xf6\x02pg\x03lua\x81\xff\xff\xff\xff\xff\xff\xff\xff"))},
		{"pre-GA bad description", AppendFooter([]byte("\xf6\x02pg\x03lua\x07\x9a"))},
		{"pre-GA bad blob", AppendFooter([]byte("\xf6\x02pg\x03lua\x00\x9a"))},
		{"string type", AppendFooter([]byte("\x00\x01a"))},
		{"EOF opcode", AppendFooter([]byte{OpcodeEOF})},
		{"truncated code", AppendFooter(record(code)[:30])},
		{"unknown string encoding", AppendFooter([]byte("\xf5\xc7"))},
		{"bad LZF", AppendFooter([]byte("\xf5\xc3\x03\x30\x00ab"))},
		{"LZF with room to spare", AppendFooter([]byte("\xf5\xc3\x05\x02\x01ab"))},
		{"string into the footer", footerOverlapPayload(code)},
		{"second record bad", AppendFooter(append(record(code), 0x02))},
	}
	for _, tc := range cases {
		mustDo(t, c, "+OK\r\n", "FUNCTION", "FLUSH")
		got := c.Do("FUNCTION", "RESTORE", string(tc.payload))
		want := "+OK\r\n"
		codes, err := DecodeFunctions(tc.payload)
		if err != nil {
			want = "-ERR " + err.Error() + "\r\n"
		}
		if got != want {
			t.Errorf("%s: Redis replied %q, DecodeFunctions says %q", tc.name, got, want)
			continue
		}
		if err == nil { // Redis holds exactly the codes we decoded
			list := c.Do("FUNCTION", "LIST", "WITHCODE")
			if !strings.HasPrefix(list, fmt.Sprintf("*%d\r\n", len(codes))) {
				t.Errorf("%s: %d libraries decoded, FUNCTION LIST WITHCODE = %q", tc.name, len(codes), list)
			}
			for _, code := range codes {
				if !strings.Contains(list, fmt.Sprintf("$%d\r\n%s\r\n", len(code), code)) {
					t.Errorf("%s: decoded code %q not in FUNCTION LIST WITHCODE %q", tc.name, code, list)
				}
			}
		}
	}
	mustDo(t, c, "+OK\r\n", "FUNCTION", "RESTORE", string(AppendFooter(preGARecord("pg", "lua", nil, preGABlob))), "FLUSH")
	mustDo(t, c, ":7\r\n", "FCALL", "fpg", "0")
	// The footer-overlap payload restores a library whose code ends with
	// the version byte, as DecodeFunctions reports.
	mustDo(t, c, "+OK\r\n", "FUNCTION", "FLUSH")
	mustDo(t, c, "+OK\r\n", "FUNCTION", "RESTORE", string(footerOverlapPayload(code)))
	if list := c.Do("FUNCTION", "LIST", "WITHCODE"); !strings.Contains(list, fmt.Sprintf("$%d\r\n%s\n\r\n", len(code)+1, code)) {
		t.Errorf("footer overlap: FUNCTION LIST WITHCODE = %q", list)
	}
}

// TestRedisDumpStrings: DUMP of string keys decodes with Reader after
// VerifyPayload and matches AppendString byte for byte; Redis RESTOREs
// what AppendString writes, compressed or not.
func TestRedisDumpStrings(t *testing.T) {
	c := difftest.Dial(t, difftest.StartRedis(t))
	rng := rand.New(rand.NewPCG(12, 13))
	values := []string{"0", "1", "-1", "7", "127", "128", "-128", "-129", "255", "256",
		"32767", "32768", "-32768", "-32769", "65535", "65536", "2147483647", "2147483648",
		"-2147483648", "-2147483649", "9223372036854775807", "-9223372036854775808",
		"12345678901", "-1234567890", "007", "-0", "+5", "1e3", "3.14", " 42", "",
		"a", "hello", "\x00\xff binary \r\n", strings.Repeat("z", 20), strings.Repeat("z", 21),
		strings.Repeat("ab", 11), strings.Repeat("hello world ", 50), randomText(rng, 21),
		randomText(rng, 500), strings.Repeat(randomText(rng, 100), 30), randomText(rng, 20000),
		strings.Repeat("x", 70000)}
	for _, sc := range stringCases {
		values = append(values, sc.s)
	}
	for range 300 { // text with back references at every distance and length
		n := 21 + rng.IntN(2000)
		alpha := 1 + rng.IntN(40)
		b := make([]byte, n)
		for j := range b {
			if j > 8 && rng.IntN(3) == 0 {
				b[j] = b[j-1-rng.IntN(min(j-1, 300))]
			} else {
				b[j] = byte('a' + rng.IntN(alpha))
			}
		}
		values = append(values, string(b))
	}

	for i, v := range values {
		mustDo(t, c, "+OK\r\n", "SET", "k", v)
		dump := bulk(t, c.Do("DUMP", "k"))
		body, version, err := VerifyPayload(dump)
		if err != nil || version != Version {
			t.Fatalf("VerifyPayload(DUMP of %.40q) = %d, %v", v, version, err)
		}
		r := NewReader(body)
		typ, err := r.ReadType()
		if err != nil || typ != TypeString {
			t.Fatalf("DUMP of %.40q: type %d, %v", v, typ, err)
		}
		s, err := r.ReadString()
		if err != nil || s != v || r.Remaining() != 0 {
			t.Fatalf("DUMP of %.40q: ReadString = %.40q, %v, %d bytes left", v, s, err, r.Remaining())
		}
		mine := AppendFooter(AppendString([]byte{TypeString}, v, true))
		if string(mine) != string(dump) && string(mine) != string(redisFresh(t, v)) {
			t.Errorf("value %d (%.40q): AppendString differs from DUMP:\n ours  %q\n redis %q", i, v, mine, dump)
		}
		for _, compress := range []bool{false, true} {
			p := AppendFooter(AppendString([]byte{TypeString}, v, compress))
			mustDo(t, c, "+OK\r\n", "RESTORE", "r", "0", string(p), "REPLACE")
			if got := c.Do("GET", "r"); got != fmt.Sprintf("$%d\r\n%s\r\n", len(v), v) {
				t.Fatalf("RESTORE of our %.40q (compress %v): GET = %.60q", v, compress, got)
			}
		}
	}
}

// TestRedisStringQuirks pins down, against Redis, how RESTORE reads a
// string value, so that a future RESTORE built on Reader answers alike.
// Redis reads the type and the value from a buffer holding the whole
// payload, footer included, and never checks what is left: a value may run
// into the footer, and bytes after it are ignored. An LZF string of length
// 0 is accepted whatever its data. Anything Reader rejects is "Bad data
// format".
func TestRedisStringQuirks(t *testing.T) {
	c := difftest.Dial(t, difftest.StartRedis(t))
	for _, enc := range []string{
		"\xc3\x00\x00", "\xc3\x01\x00\x00", "\xc3\x02\x00\xff\xff", "\xc3\x01\x00\xe0", // length 0
		"\xc3\x03\x01\x01ab", "\xc3\x02\x02\x20\x00", "\xc3\x02\x03\x00a", "\xc3\x01\x01", // bad LZF
		"\xc3\x05\x02\x01ab", "\xc4\x00", "\x9a\x00", "\xc0",
		"\x05abc",      // runs 2 bytes into the footer
		"\x0cabc",      // runs to the payload's last byte
		"\x0dabc",      // runs past the payload
		"\x01abc",      // trailing bytes
		"\xc3\x0b\x0a", // LZF data is the whole footer
	} {
		p := AppendFooter([]byte("\x00" + enc))
		got := c.Do("RESTORE", "q", "0", string(p), "REPLACE")
		r := NewReader(p)
		typ, err := r.ReadType()
		var s string
		if err == nil {
			s, err = r.ReadString()
		}
		want := "+OK\r\n"
		if err != nil || typ != TypeString {
			want = "-ERR Bad data format\r\n"
		}
		if got != want {
			t.Errorf("value %q: RESTORE replied %q, Reader says %q, %v", enc, got, s, err)
			continue
		}
		if got == "+OK\r\n" {
			mustDo(t, c, fmt.Sprintf("$%d\r\n%s\r\n", len(s), s), "GET", "q")
		}
	}
}
