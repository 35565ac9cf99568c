package rdb

import (
	"slices"
	"strings"
	"testing"
)

// FUNCTION DUMP replies of Redis 7.0.15 holding one library each.
const (
	redisShortLib  = "#!lua name=short\nredis.register_function('s', function() return 1 end)"
	redisShortDump = "\xf5@F#!lua name=short\nredis.register_function('s', function() return 1 end)\n\x00\xe6\x1a\t/h\xc6\xf6A"
	redisLongLib   = "#!lua name=long\nlocal function get(keys) return redis.call('GET', keys[1]) end\nredis.register_function('get1', get)\nredis.register_function('get2', get)\nredis.register_function('get3', get)\n"
	redisLongDump  = "\xf5\xc3@z@\xbe\x1f#!lua name=long\nlocal function g\x0eet(keys) return \x06\x03dis. #\bl('GET', @\x1e\b[1]) end\n\x80\x1e\bregister_\xc0G\x01(' H\x001 , \x06\x00)\xe0\x14$\x002\xe0\x1b$\x003\x80$\x01)\n\n\x00\a!l\xeb\x00\x1bIS"
)

func TestFunctionsRedisVectors(t *testing.T) {
	for _, c := range []struct{ code, dump string }{{redisShortLib, redisShortDump}, {redisLongLib, redisLongDump}} {
		codes, err := DecodeFunctions([]byte(c.dump))
		if err != nil || !slices.Equal(codes, []string{c.code}) {
			t.Errorf("DecodeFunctions(Redis dump) = %q, %v; want [%q]", codes, err, c.code)
		}
		if got := EncodeFunctions([]string{c.code}, true); string(got) != c.dump {
			t.Errorf("EncodeFunctions(%q) = %q, want Redis's %q", c.code, got, c.dump)
		}
	}
}

func TestFunctionsRoundTrip(t *testing.T) {
	sets := [][]string{
		nil,
		{redisShortLib},
		{redisShortLib, redisLongLib, strings.Repeat("-- padding\n", 2000), "", "7", "-2147483648"},
	}
	for _, codes := range sets {
		for _, compress := range []bool{false, true} {
			p := EncodeFunctions(codes, compress)
			got, err := DecodeFunctions(p)
			if err != nil || !slices.Equal(got, codes) {
				t.Errorf("round trip of %d libraries (compress %v): %q, %v", len(codes), compress, got, err)
			}
		}
	}
	if p := EncodeFunctions(nil, true); len(p) != FooterLen {
		t.Errorf("empty dump is %q, want the bare footer", p)
	}
	if p := EncodeFunctions([]string{redisLongLib}, false); !strings.Contains(string(p), redisLongLib) {
		t.Errorf("uncompressed dump does not hold the code verbatim: %q", p)
	}
}

// preGARecord is an OpcodeFunctionPreGA record (Redis 7.0-rc1/rc2).
func preGARecord(name, engine string, desc *string, blob string) []byte {
	p := []byte{OpcodeFunctionPreGA}
	p = AppendString(p, name, false)
	p = AppendString(p, engine, false)
	if desc == nil {
		p = AppendLen(p, 0)
	} else {
		p = AppendString(AppendLen(p, 1), *desc, false)
	}
	return AppendString(p, blob, true)
}

func TestDecodeFunctionsPreGA(t *testing.T) {
	desc := "a description"
	blob := "redis.register_function('f', function() return 1 end)"
	cases := []struct {
		record []byte
		code   string
	}{
		{preGARecord("lib", "LUA", nil, blob), "#!LUA name=lib\n" + blob},
		{preGARecord("lib", "lua", &desc, blob), "#!lua name=lib\n" + blob},
		{preGARecord("", "", nil, ""), "#! name=\n"},
		// sdscatfmt's %s stops at NUL bytes.
		{preGARecord("li\x00b", "lua\x00x", nil, blob+"\x00-- tail"), "#!lua name=li\n" + blob},
		// Any non-zero indicator announces a description, even a
		// special-encoding byte read as a plain length.
		{append([]byte{OpcodeFunctionPreGA, 1, 'l', 3, 'l', 'u', 'a', 0xc5, 1, 'd'}, AppendString(nil, blob, false)...), "#!lua name=l\n" + blob},
	}
	for _, c := range cases {
		codes, err := DecodeFunctions(AppendFooter(append(slices.Clone(c.record), "\xf5\x03abc"...)))
		if err != nil || !slices.Equal(codes, []string{c.code, "abc"}) {
			t.Errorf("DecodeFunctions(%q) = %q, %v; want [%q \"abc\"]", c.record, codes, err, c.code)
		}
	}
}

func TestDecodeFunctionsErrors(t *testing.T) {
	lib := func(code string) string { return "\xf5" + string(AppendString(nil, code, false)) }
	good := lib(redisShortLib)
	full := string(preGARecord("n", "lua", nil, "body"))
	withDesc := "\xf6\x01n\x03lua\x01"
	cases := []struct {
		name  string
		body  string
		codes []string
		err   error
	}{
		{"string type", "\x00\x01a", nil, ErrNotFunction},
		{"EOF opcode", "\xff", nil, ErrNotFunction},
		{"opcode 247", "\xf7", nil, ErrNotFunction},
		{"second record bad", good + "\x02", []string{redisShortLib}, ErrNotFunction},
		{"bad length encoding", "\xf5\x9a", nil, ErrLibraryPayload},
		{"unknown string encoding", "\xf5\xc5", nil, ErrLibraryPayload},
		{"bad LZF data", "\xf5\xc3\x02\x05\x00a", nil, ErrLibraryPayload},
		// The string may run into the footer but not past the payload.
		{"string past payload", "\xf5\x14abc", nil, ErrLibraryPayload},
		{"pre-GA no name", "\xf6\x9a", nil, ErrLibraryName},
		{"pre-GA no engine", "\xf6\x01n\xc7", nil, ErrEngineName},
		{"pre-GA no indicator", "\xf6\x01n\x03lua\x9a", nil, ErrDescriptionIndicator},
		{"pre-GA indicator RDB_LENERR", "\xf6\x01n\x03lua\x81\xff\xff\xff\xff\xff\xff\xff\xff", nil, ErrDescriptionIndicator},
		{"pre-GA no description", withDesc + "\x9a", nil, ErrDescription},
		{"pre-GA no blob", withDesc + "\x01d\x9a", nil, ErrLibraryBlob},
		{"pre-GA no blob after no description", full[:len(full)-5] + "\x9a", nil, ErrLibraryBlob},
		{"second pre-GA bad", good + "\xf6\x9a", []string{redisShortLib}, ErrLibraryName},
		{"empty body", "", nil, nil},
		{"opcode and empty code", "\xf5\x00", []string{""}, nil},
	}
	for _, c := range cases {
		codes, err := DecodeFunctions(AppendFooter([]byte(c.body)))
		if err != c.err || !slices.Equal(codes, c.codes) {
			t.Errorf("%s: DecodeFunctions = %q, %v; want %q, %v", c.name, codes, err, c.codes, c.err)
		}
	}
	bad := AppendFooter([]byte(good))
	bad[3] ^= 1
	if codes, err := DecodeFunctions(bad); err != ErrPayloadFooter || codes != nil {
		t.Errorf("bad checksum: %q, %v", codes, err)
	}
	if codes, err := DecodeFunctions([]byte("\xf5\x00")); err != ErrPayloadFooter || codes != nil {
		t.Errorf("short payload: %q, %v", codes, err)
	}
	// Texts Redis 7.0 replies with, after "-ERR ".
	for err, text := range map[error]string{
		ErrNotFunction:          "given type is not a function",
		ErrLibraryPayload:       "Failed loading library payload",
		ErrLibraryName:          "Failed loading library name",
		ErrEngineName:           "Failed loading engine name",
		ErrDescriptionIndicator: "Failed loading library description indicator",
		ErrDescription:          "Failed loading library description",
		ErrLibraryBlob:          "Failed loading library blob",
	} {
		if err.Error() != text {
			t.Errorf("error text %q, want %q", err, text)
		}
	}
}

// TestDecodeFunctionsIntoFooter: a code string whose length runs one byte
// into the footer takes the version's low byte, 0x0a, as a final newline,
// and reading stops with 9 bytes left: Redis accepts it (see
// TestRedisFunctionRestoreErrors).
func TestDecodeFunctionsIntoFooter(t *testing.T) {
	p := footerOverlapPayload(redisShortLib)
	codes, err := DecodeFunctions(p)
	if err != nil || !slices.Equal(codes, []string{redisShortLib + "\n"}) {
		t.Fatalf("DecodeFunctions = %q, %v", codes, err)
	}
}

func footerOverlapPayload(code string) []byte {
	body := append([]byte{OpcodeFunction2}, AppendLen(nil, uint64(len(code)+1))...)
	return AppendFooter(append(body, code...))
}
