package rdb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"
)

// fileKey is a key record as FileReader reports it.
type fileKey struct {
	db                int
	key               string
	value             string // canon
	expire, lru       int64
	lfu               int
	original          *Value
	resizeKeys, resEx uint64
}

// fileContent is everything FileReader reports about a file.
type fileContent struct {
	aux       []string
	functions []string
	resize    []string
	keys      []fileKey
	info      FileInfo
}

func readFileContent(t *testing.T, src io.Reader) (*fileContent, error) {
	t.Helper()
	fc := &fileContent{}
	fr := &FileReader{
		OnAux: func(k, v []byte) error {
			fc.aux = append(fc.aux, string(k)+"="+string(v))
			return nil
		},
		OnFunction: func(code string) error {
			fc.functions = append(fc.functions, code)
			return nil
		},
		OnResizeDB: func(db int, keys, expires uint64) error {
			fc.resize = append(fc.resize, fmt.Sprintf("%d:%d/%d", db, keys, expires))
			return nil
		},
		OnKey: func(db int, key []byte, v *Value, expireMs, lruIdle int64, lfuFreq int) error {
			fc.keys = append(fc.keys, fileKey{db: db, key: string(key), value: canon(v), expire: expireMs,
				lru: lruIdle, lfu: lfuFreq, original: v})
			return nil
		},
	}
	info, err := fr.Read(src)
	fc.info = info
	return fc, err
}

// sampleFile writes a small file exercising every record FileWriter writes.
func sampleFile(t *testing.T, opts FileWriterOptions) ([]byte, []fileKey) {
	t.Helper()
	var buf bytes.Buffer
	fw, err := NewFileWriter(&buf, opts)
	if err != nil {
		t.Fatal(err)
	}
	keys := []fileKey{
		{db: 0, key: "s", original: &Value{Kind: KindString, Str: []byte("hello")}, expire: -1, lru: -1, lfu: -1},
		{db: 0, key: "l", original: &Value{Kind: KindList, Items: strs("a", "1", strings.Repeat("x", 100))}, expire: 1893456000000, lru: -1, lfu: -1},
		{db: 2, key: "h", original: &Value{Kind: KindHash, Pairs: pairs("f", "v")}, expire: -1, lru: 42, lfu: -1},
		{db: 2, key: "z", original: &Value{Kind: KindZSet, ZSet: zmembers("m", 1.5)}, expire: 5, lru: -1, lfu: 7},
		{db: 15, key: strings.Repeat("k", 300), original: &Value{Kind: KindSet, Items: strs("1", "2")}, expire: -1, lru: 0, lfu: 255},
	}
	if err := fw.WriteFunction("#!lua name=lib\nredis.register_function('f', function() return 1 end)"); err != nil {
		t.Fatal(err)
	}
	db := -1
	for _, k := range keys {
		if k.db != db {
			db = k.db
			if err := fw.SelectDB(db, 2, 1); err != nil {
				t.Fatal(err)
			}
		}
		if err := fw.WriteKey([]byte(k.key), k.original, k.expire, k.lru, k.lfu); err != nil {
			t.Fatal(err)
		}
	}
	if err := fw.Finish(); err != nil {
		t.Fatal(err)
	}
	if fw.Size() != int64(buf.Len()) {
		t.Errorf("Size() = %d, wrote %d", fw.Size(), buf.Len())
	}
	for i := range keys {
		keys[i].value = canon(keys[i].original)
	}
	return buf.Bytes(), keys
}

func TestFileWriterHeader(t *testing.T) {
	file, _ := sampleFile(t, FileWriterOptions{CTime: 1700000000, UsedMem: 1234567, Encode: DefaultEncodeOptions()})
	want := "REDIS0010" +
		"\xfa\x09redis-ver\x067.0.15" +
		"\xfa\x0aredis-bits\xc0\x40" +
		"\xfa\x05ctime\xc2\x00\xf1\x53\x65" +
		"\xfa\x08used-mem\xc2\x87\xd6\x12\x00" +
		"\xfa\x08aof-base\xc0\x00" +
		"\xf5"
	if !strings.HasPrefix(string(file), want) {
		t.Errorf("header %q,\nwant %q", file[:len(want)], want)
	}
	sum := binary.LittleEndian.Uint64(file[len(file)-8:])
	if file[len(file)-9] != OpcodeEOF || sum != CRC64(0, file[:len(file)-8]) {
		t.Errorf("trailer %q: checksum %x, want %x", file[len(file)-9:], sum, CRC64(0, file[:len(file)-8]))
	}
	// Replication fields and an AOF base, in Redis's order.
	file, _ = sampleFile(t, FileWriterOptions{CTime: 1, RedisVersion: "7.0.0", AOFBase: true,
		Repl: &ReplInfo{StreamDB: 3, ID: strings.Repeat("ab", 20), Offset: 1 << 40}})
	want = "REDIS0010\xfa\x09redis-ver\x057.0.0\xfa\x0aredis-bits\xc0\x40\xfa\x05ctime\xc0\x01\xfa\x08used-mem\xc0\x00" +
		"\xfa\x0erepl-stream-db\xc0\x03\xfa\x07repl-id\x28" + strings.Repeat("ab", 20) +
		"\xfa\x0brepl-offset\x0d1099511627776\xfa\x08aof-base\xc0\x01"
	if !strings.HasPrefix(string(file), want) {
		t.Errorf("header %q,\nwant %q", file[:len(want)], want)
	}
	// rdbchecksum no: 8 zero bytes.
	file, _ = sampleFile(t, FileWriterOptions{DisableChecksum: true})
	if !strings.HasSuffix(string(file), "\xff\x00\x00\x00\x00\x00\x00\x00\x00") {
		t.Errorf("trailer without checksum %q", file[len(file)-9:])
	}
}

func TestFileRoundTrip(t *testing.T) {
	for _, opts := range []FileWriterOptions{
		{CTime: 1, Encode: DefaultEncodeOptions()},
		{CTime: 1, DisableChecksum: true},
	} {
		file, keys := sampleFile(t, opts)
		for name, src := range map[string]io.Reader{
			"whole":    bytes.NewReader(file),
			"one byte": iotest.OneByteReader(bytes.NewReader(file)),
			"half":     iotest.HalfReader(bytes.NewReader(file)),
			"data+EOF": iotest.DataErrReader(bytes.NewReader(file)),
		} {
			fc, err := readFileContent(t, src)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if len(fc.keys) != len(keys) {
				t.Fatalf("%s: %d keys, want %d", name, len(fc.keys), len(keys))
			}
			for i, k := range fc.keys {
				w := keys[i]
				if k.db != w.db || k.key != w.key || k.value != w.value || k.expire != w.expire || k.lru != w.lru || k.lfu != w.lfu {
					t.Errorf("%s: key %d = %+v, want %+v", name, i, k, w)
				}
			}
			if len(fc.functions) != 1 || !strings.HasPrefix(fc.functions[0], "#!lua name=lib") {
				t.Errorf("%s: functions %q", name, fc.functions)
			}
			if got := strings.Join(fc.resize, " "); got != "0:2/1 2:2/1 15:2/1" {
				t.Errorf("%s: resize hints %s", name, got)
			}
			if got := strings.Join(fc.aux, " "); !strings.HasPrefix(got, "redis-ver=7.0.15 redis-bits=64 ctime=1 used-mem=0 aof-base=0") {
				t.Errorf("%s: aux %s", name, got)
			}
			info := fc.info
			wantSum := uint64(0)
			if !opts.DisableChecksum {
				wantSum = CRC64(0, file[:len(file)-8])
			}
			if info.Version != 10 || info.Size != int64(len(file)) || info.Keys != int64(len(keys)) || info.Checksum != wantSum {
				t.Errorf("%s: info %+v", name, info)
			}
		}
	}
}

// fileWith builds a file from raw records (after the magic) with a valid
// checksum.
func fileWith(records string) []byte {
	f := []byte("REDIS0010" + records + "\xff")
	return binary.LittleEndian.AppendUint64(f, CRC64(0, f))
}

func TestFileReaderErrors(t *testing.T) {
	file, _ := sampleFile(t, FileWriterOptions{CTime: 1, Encode: DefaultEncodeOptions()})
	// Every truncation is ErrTruncated at an offset within the data.
	for cut := range len(file) {
		_, err := readFileContent(t, iotest.HalfReader(bytes.NewReader(file[:cut])))
		var fe *FileError
		if !errors.Is(err, ErrTruncated) || !errors.As(err, &fe) || fe.Offset > int64(cut) {
			t.Fatalf("cut at %d: %v", cut, err)
		}
	}
	// A wrong checksum, unless skipped or zero.
	bad := cloneBytes(file)
	bad[len(bad)-1] ^= 1
	_, err := readFileContent(t, bytes.NewReader(bad))
	var fe *FileError
	if !errors.Is(err, ErrChecksum) || !errors.Is(err, ErrCorrupt) || !errors.As(err, &fe) || fe.Offset != int64(len(file)-8) {
		t.Errorf("bad checksum: %v", err)
	}
	if _, err := (&FileReader{SkipChecksum: true}).Read(bytes.NewReader(bad)); err != nil {
		t.Errorf("bad checksum skipped: %v", err)
	}
	zero := cloneBytes(file)
	copy(zero[len(zero)-8:], make([]byte, 8))
	if info, err := (&FileReader{}).Read(bytes.NewReader(zero)); err != nil || info.Checksum != 0 {
		t.Errorf("zero checksum: %+v, %v", info, err)
	}
	// Corrupting content is caught by the checksum.
	body := cloneBytes(file)
	body[len(body)/2] ^= 0x40
	if _, err := readFileContent(t, bytes.NewReader(body)); err == nil {
		t.Error("corrupt body accepted")
	}

	cases := []struct {
		name   string
		file   []byte
		target error
		offset int64
	}{
		{"wrong signature", []byte("REDIX0010\xff"), ErrCorrupt, 0},
		{"version 0", []byte("REDIS0000\xff"), ErrCorrupt, 5},
		{"version 11", []byte("REDIS0011\xff"), ErrCorrupt, 5},
		{"version garbage", []byte("REDISabcd\xff"), ErrCorrupt, 5},
		{"module aux", fileWith("\xf7\x01\x02\x03"), ErrUnsupported, 9},
		{"stream node key", fileWith("\x13\x01k\x01\x03abc\x00"), ErrCorrupt, 12},
		{"module value", fileWith("\x07\x01k\x00"), ErrUnsupported, 12},
		{"unknown type 8", fileWith("\x08\x01k\x00"), ErrCorrupt, 12},
		{"unknown type 20", fileWith("\x14\x01k\x00"), ErrCorrupt, 12},
		{"corrupt value", fileWith("\x10\x01k\x07\x07\x00\x00\x00\x01\x00\xff"), ErrCorrupt, 12},
		{"dup set member", fileWith("\x02\x01k\x02\x01a\x01a"), ErrCorrupt, 12},
		{"bad function", fileWith("\xf5\xc7"), ErrLibraryPayload, 10},
		{"bad pre-GA function", fileWith("\xf6\x02pg\xc7"), ErrEngineName, 13},
		{"bad length", fileWith("\xfe\x82"), ErrCorrupt, 10},
		{"select RDB_LENERR", fileWith("\xfe\x81\xff\xff\xff\xff\xff\xff\xff\xff"), ErrCorrupt, 10},
		{"select huge db", fileWith("\xfe\x80\xff\xff\xff\xff"), ErrCorrupt, 9},
		{"idle RDB_LENERR", fileWith("\xf8\x81\xff\xff\xff\xff\xff\xff\xff\xff"), ErrCorrupt, 10},
		{"EOF without checksum", []byte("REDIS0010\xff\x00\x00"), ErrTruncated, 10},
	}
	for _, c := range cases {
		_, err := readFileContent(t, bytes.NewReader(c.file))
		var fe *FileError
		if !errors.Is(err, c.target) || !errors.As(err, &fe) || fe.Offset != c.offset {
			t.Errorf("%s: %v, want %v at offset %d", c.name, err, c.target, c.offset)
		}
	}
	// More databases than configured.
	if _, err := (&FileReader{Databases: 16}).Read(bytes.NewReader(fileWith("\xfe\x10"))); !errors.Is(err, ErrCorrupt) {
		t.Errorf("db 16 of 16: %v", err)
	}
	if _, err := (&FileReader{Databases: 16}).Read(bytes.NewReader(fileWith("\xfe\x0f"))); err != nil {
		t.Errorf("db 15 of 16: %v", err)
	}
	// A callback's error is returned unchanged.
	stop := errors.New("stop")
	fr := &FileReader{OnKey: func(int, []byte, *Value, int64, int64, int) error { return stop }}
	if _, err := fr.Read(bytes.NewReader(file)); err != stop {
		t.Errorf("callback error: %v", err)
	}
	// A read error is reported with its offset.
	ioErr := errors.New("disk on fire")
	_, err = readFileContent(t, io.MultiReader(bytes.NewReader(file[:100]), iotest.ErrReader(ioErr)))
	if !errors.Is(err, ioErr) || !errors.As(err, &fe) || fe.Offset > 100 {
		t.Errorf("read error: %v", err)
	}
}

func cloneBytes(b []byte) []byte { return append([]byte(nil), b...) }

func TestFileReaderOldFormats(t *testing.T) {
	// RDB version 4: no checksum after EOF; EXPIRETIME in seconds; keys
	// before any SELECTDB are in db 0; empty collections are skipped.
	old := "REDIS0004" + "\xfd\x10\x00\x00\x00" + "\x00\x01a\x01x" +
		"\x01\x01e\x00" + // an empty list
		"\xfc\x05\x00\x00\x00\x00\x00\x00\x00\x0d\x01h" + string(AppendString(nil, buildZiplist([]string{"f", "1"}), false)) +
		"\xfe\x01\x09\x01z" + string(AppendString(nil, buildZipmap([][2]string{{"a", "b"}}, 2), false)) +
		"\xff"
	fc, err := readFileContent(t, strings.NewReader(old))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"0 a string:\"x\" 16000",
		"0 h hash:\"f\"=\"1\" 5",
		"1 z hash:\"a\"=\"b\" -1",
	}
	var got []string
	for _, k := range fc.keys {
		got = append(got, fmt.Sprintf("%d %s %s %d", k.db, k.key, k.value, k.expire))
	}
	if strings.Join(got, "|") != strings.Join(want, "|") || fc.info.EmptyKeysSkipped != 1 || fc.info.Version != 4 || fc.info.Size != int64(len(old)) {
		t.Errorf("got %q, info %+v", got, fc.info)
	}
	// atoi reads the version: " +09" is 9.
	if _, err := readFileContent(t, bytes.NewReader(append([]byte("REDIS +09\xff"), make([]byte, 8)...))); err != nil {
		t.Errorf("version \" +09\": %v", err)
	}
	// A pre-GA function record, and trailing bytes after the checksum.
	f := fileWith("\xf6\x02pg\x03lua\x01\x04desc\x06return")
	fc, err = readFileContent(t, bytes.NewReader(append(f, "garbage"...)))
	if err != nil || len(fc.functions) != 1 || fc.functions[0] != "#!lua name=pg\nreturn" || fc.info.Size != int64(len(f)) {
		t.Errorf("pre-GA function: %q, %+v, %v", fc.functions, fc.info, err)
	}
}

// failWriter fails after n bytes.
type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		n := w.n
		w.n = 0
		return n, errors.New("no space left")
	}
	w.n -= len(p)
	return len(p), nil
}

func TestFileWriterErrors(t *testing.T) {
	fw, err := NewFileWriter(io.Discard, FileWriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	v := &Value{Kind: KindString, Str: []byte("v")}
	for _, bad := range []error{
		fw.WriteKey([]byte("k"), &Value{Kind: 7}, -1, -1, -1),
		fw.WriteKey([]byte("k"), v, -1, -2, -1),
		fw.WriteKey([]byte("k"), v, -1, -1, 256),
		fw.SelectDB(-1, 0, 0),
	} {
		if bad == nil {
			t.Error("invalid argument accepted")
		}
	}
	if err := fw.Finish(); err != nil {
		t.Fatal(err)
	}
	if err := fw.WriteKey([]byte("k"), v, -1, -1, -1); err == nil {
		t.Error("WriteKey after Finish accepted")
	}
	// Write errors are sticky.
	fw, err = NewFileWriter(&failWriter{n: 100}, FileWriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	big := &Value{Kind: KindString, Str: bytes.Repeat([]byte("x"), 100000)}
	err1 := fw.WriteKey([]byte("k"), big, -1, -1, -1)
	err2 := fw.WriteFunction("code")
	err3 := fw.Finish()
	if err1 == nil || err2 != err1 || err3 != err1 {
		t.Errorf("errors %v, %v, %v", err1, err2, err3)
	}
}

// TestFileLargeValues streams a file with large values through the
// reader's refilling buffer.
func TestFileLargeValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var buf bytes.Buffer
	fw, err := NewFileWriter(&buf, FileWriterOptions{Encode: DefaultEncodeOptions()})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := range 20 {
		v := &Value{Kind: KindList}
		for range rng.IntN(3000) {
			v.Items = append(v.Items, []byte(randomText(rng, rng.IntN(400))))
		}
		if len(v.Items) == 0 {
			v = &Value{Kind: KindString, Str: []byte(randomText(rng, 300000))}
		}
		want = append(want, canon(v))
		if err := fw.WriteKey(fmt.Appendf(nil, "k%d", i), v, -1, -1, -1); err != nil {
			t.Fatal(err)
		}
	}
	if err := fw.Finish(); err != nil {
		t.Fatal(err)
	}
	fc, err := readFileContent(t, iotest.HalfReader(bytes.NewReader(buf.Bytes())))
	if err != nil || len(fc.keys) != len(want) {
		t.Fatalf("%d keys, %v", len(fc.keys), err)
	}
	for i, k := range fc.keys {
		if k.value != want[i] {
			t.Errorf("key %d differs", i)
		}
	}
}

// TestShareStrings: with ShareStrings, string values reach OnKey as with
// a Value of their own (an LZF-compressed one and an integer-encoded one
// included), and reading them allocates nothing per key.
func TestShareStrings(t *testing.T) {
	var buf bytes.Buffer
	fw, err := NewFileWriter(&buf, FileWriterOptions{Encode: DefaultEncodeOptions()})
	if err != nil {
		t.Fatal(err)
	}
	const n = 1000
	want := map[string]string{}
	if err := fw.SelectDB(0, n, 0); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		k, v := fmt.Sprintf("key:%d", i), fmt.Sprintf("value:%d", i)
		switch i {
		case 1:
			v = strings.Repeat("compressible ", 20)
		case 2:
			v = "12345"
		}
		want[k] = v
		if err := fw.WriteKey([]byte(k), &Value{Kind: KindString, Str: []byte(v)}, -1, -1, -1); err != nil {
			t.Fatal(err)
		}
	}
	if err := fw.Finish(); err != nil {
		t.Fatal(err)
	}
	file := buf.Bytes()
	read := func(share bool, check bool) {
		got := 0
		fr := &FileReader{ShareStrings: share, OnKey: func(_ int, key []byte, v *Value, _, _ int64, _ int) error {
			if check && (v.Kind != KindString || string(v.Str) != want[string(key)]) {
				t.Fatalf("%s: %v %q, want %q", key, v.Kind, v.Str, want[string(key)])
			}
			got++
			return nil
		}}
		if _, err := fr.Read(bytes.NewReader(file)); err != nil || got != n {
			t.Fatalf("read %d keys: %v", got, err)
		}
	}
	read(true, true)
	read(false, true)
	shared := testing.AllocsPerRun(5, func() { read(true, false) })
	own := testing.AllocsPerRun(5, func() { read(false, false) })
	if shared > n/10 || own < n {
		t.Fatalf("%v allocations for %d keys shared, %v not", shared, n, own)
	}
}
