package rdb

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/hotkv/hotkv/stream"
)

// FuzzDecodeFunctions feeds arbitrary payloads to DecodeFunctions, both as
// they are (nearly always a footer error) and with a valid footer appended
// (exercising the record parser). It must never panic, must return only
// Redis's errors, and what it accepts must survive a re-encode.
func FuzzDecodeFunctions(f *testing.F) {
	f.Add([]byte(redisShortDump))
	f.Add([]byte(redisLongDump))
	f.Add([]byte(redisShortDump[:len(redisShortDump)-FooterLen]))
	f.Add([]byte(redisLongDump[:len(redisLongDump)-FooterLen]))
	f.Add([]byte("\xf5\xc3\x02\x05\x00a"))
	f.Add([]byte("\xf5\x81\xff\xff\xff\xff\xff\xff\xff\xff"))
	f.Add([]byte("\xf5\xc3\x81\xff\xff\xff\xff\xff\xff\xff\xff\x81\xff\xff\xff\xff\xff\xff\xff\xff"))
	f.Add([]byte("\xf6"))
	f.Add([]byte("\xf6\x01e\x03lua\x01\x02hi\x1freturn 1"))
	f.Fuzz(func(t *testing.T, p []byte) {
		for _, payload := range [][]byte{p, AppendFooter(slices.Clone(p))} {
			codes, err := DecodeFunctions(payload)
			switch err {
			case nil:
				again, err := DecodeFunctions(EncodeFunctions(codes, true))
				if err != nil || !slices.Equal(again, codes) {
					t.Fatalf("re-encoded %q decodes as %q, %v", codes, again, err)
				}
			case ErrPayloadFooter:
				if codes != nil {
					t.Fatalf("footer error with codes %q", codes)
				}
			case ErrNotFunction, ErrLibraryPayload, ErrLibraryName, ErrEngineName,
				ErrDescriptionIndicator, ErrDescription, ErrLibraryBlob:
			default:
				t.Fatalf("unexpected error %v", err)
			}
		}
	})
}

// FuzzReadString reads strings from arbitrary data: no panic, and on error
// the offset stays put.
func FuzzReadString(f *testing.F) {
	for _, c := range stringCases {
		f.Add([]byte(c.want))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		r := NewReader(p)
		for r.Remaining() > 0 {
			at := r.Offset()
			if _, err := r.ReadString(); err != nil {
				if r.Offset() != at || !(errors.Is(err, ErrTruncated) || errors.Is(err, ErrCorrupt)) {
					t.Fatalf("error %v, offset %d -> %d", err, at, r.Offset())
				}
				return
			}
			if r.Offset() == at {
				t.Fatal("ReadString consumed nothing")
			}
		}
	})
}

// restoreSeeds are payloads of every encoding: Redis's own DUMPs, legacy
// encodings, our Dumps under several configurations, and corrupt ones.
func restoreSeeds() [][]byte {
	var seeds [][]byte
	for _, vec := range redisDumpVectors {
		seeds = append(seeds, []byte(vec.payload))
	}
	for _, p := range corruptPayloads() {
		seeds = append(seeds, p)
	}
	list := &Value{Kind: KindList, Items: strs("a", "1", "-300", "hello world", "")}
	hash := &Value{Kind: KindHash, Pairs: pairs("f", "v", "n", "12")}
	zset := &Value{Kind: KindZSet, ZSet: zmembers("a", 1.5, "b", -2.0)}
	set := &Value{Kind: KindSet, Items: strs("x", "1")}
	for _, c := range []struct {
		typ byte
		v   *Value
	}{
		{TypeList, list}, {TypeListZiplist, list}, {TypeListQuicklist, list}, {TypeSet, set},
		{TypeZSet, zset}, {TypeZSetZiplist, zset}, {TypeHash, hash}, {TypeHashZipmap, hash}, {TypeHashZiplist, hash},
	} {
		seeds = append(seeds, legacyPayload(c.typ, c.v, 2))
	}
	// Streams: empty, small and multi-node, with groups, v2 and legacy,
	// compressed or not.
	srng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 6, 40} {
		st := buildTestStream(srng, n, stream.Limits{MaxBytes: 120, MaxEntries: 4})
		d := st.Dump()
		seeds = append(seeds, Dump(streamValue(d), DefaultEncodeOptions()), Dump(streamValue(d), EncodeOptions{}))
		d.Legacy = true
		seeds = append(seeds, Dump(streamValue(d), EncodeOptions{}))
	}
	small := DefaultEncodeOptions()
	small.HashMaxListpackEntries, small.ZSetMaxListpackEntries, small.SetMaxIntsetEntries = 1, 1, 1
	small.ListPackedThreshold = 3
	for _, v := range []*Value{list, hash, zset, set, {Kind: KindSet, Items: strs("1", "2", "70000")},
		{Kind: KindString, Str: []byte("a string that is long enough to compress compress compress")}} {
		seeds = append(seeds, Dump(v, DefaultEncodeOptions()), Dump(v, small))
	}
	return seeds
}

// FuzzRestore feeds arbitrary payloads to Restore, as they are and with a
// valid footer appended: no panic, only RESTORE's errors (or
// ErrUnsupported for module values), and what it accepts must survive a
// re-encode (streams included).
func FuzzRestore(f *testing.F) {
	for _, s := range restoreSeeds() {
		f.Add(s)
		f.Add(s[:len(s)-FooterLen])
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		for _, payload := range [][]byte{p, AppendFooter(slices.Clone(p))} {
			v, err := Restore(payload)
			switch {
			case err == nil:
			case err == ErrPayloadFooter || errors.Is(err, ErrBadData) || errors.Is(err, ErrUnsupported):
				if v != nil {
					t.Fatalf("error %v with a value", err)
				}
				continue
			default:
				t.Fatalf("unexpected error %v", err)
			}
			for _, opts := range []EncodeOptions{DefaultEncodeOptions(), {}} {
				again, err := Restore(Dump(v, opts))
				if err != nil || canon(again) != canon(v) {
					t.Fatalf("re-encoded %.200s decodes as %.200s, %v", canon(v), canon(again), err)
				}
			}
		}
	})
}

// FuzzFileReader reads arbitrary files, whole and through a reader that
// returns short reads: no panic, only *FileError errors, and the same
// outcome either way.
func FuzzFileReader(f *testing.F) {
	var buf bytes.Buffer
	fw, _ := NewFileWriter(&buf, FileWriterOptions{CTime: 1, Encode: DefaultEncodeOptions()})
	fw.WriteFunction("#!lua name=x\nredis.register_function('f', function() return 1 end)")
	fw.SelectDB(0, 2, 1)
	fw.WriteKey([]byte("s"), &Value{Kind: KindString, Str: []byte("v")}, 12345, -1, 3)
	fw.WriteKey([]byte("h"), &Value{Kind: KindHash, Pairs: pairs("f", "v")}, -1, 7, -1)
	fw.SelectDB(5, 1, 0)
	fw.WriteKey([]byte("z"), &Value{Kind: KindZSet, ZSet: zmembers("m", 2.5)}, -1, -1, -1)
	fw.Finish()
	f.Add(buf.Bytes())
	f.Add(fileWith("\xf6\x02pg\x03lua\x01\x04desc\x06return"))
	f.Add([]byte("REDIS0004\xfd\x10\x00\x00\x00\x00\x01a\x01x\x01\x01e\x00\xff"))
	for _, s := range restoreSeeds() {
		if len(s) > FooterLen {
			f.Add(fileWith("\xfe\x00" + string(s[:1]) + "\x01k" + string(s[1:len(s)-FooterLen])))
		}
	}
	read := func(src io.Reader) string {
		var out strings.Builder
		fr := &FileReader{
			OnAux:      func(k, v []byte) error { fmt.Fprintf(&out, "aux %q %q\n", k, v); return nil },
			OnFunction: func(code string) error { fmt.Fprintf(&out, "function %q\n", code); return nil },
			OnSelectDB: func(db int) error { fmt.Fprintf(&out, "select %d\n", db); return nil },
			OnResizeDB: func(db int, k, e uint64) error { fmt.Fprintf(&out, "resize %d %d %d\n", db, k, e); return nil },
			OnKey: func(db int, key []byte, v *Value, e, l int64, fq int) error {
				if v == nil {
					return errors.New("nil value")
				}
				fmt.Fprintf(&out, "key %d %q %s %d %d %d\n", db, key, canon(v), e, l, fq)
				return nil
			},
		}
		info, err := fr.Read(src)
		var fe *FileError
		if err != nil && !errors.As(err, &fe) {
			return "not a FileError: " + err.Error()
		}
		fmt.Fprintf(&out, "%+v %v", info, err)
		return out.String()
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		whole := read(bytes.NewReader(data))
		if strings.HasPrefix(whole, "not a FileError") {
			t.Fatal(whole)
		}
		if half := read(iotest.HalfReader(bytes.NewReader(data))); half != whole {
			t.Fatalf("outcome depends on read sizes:\n%s\n%s", whole, half)
		}
	})
}
