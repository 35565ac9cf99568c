package rdb

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// canon renders a value canonically: lists in order, the other kinds
// sorted, so that values equal as Redis sees them render the same.
func canon(v *Value) string {
	if v == nil {
		return "<nil>"
	}
	var parts []string
	switch v.Kind {
	case KindString:
		return "string:" + strconv.Quote(string(v.Str))
	case KindStream:
		if v.Stream == nil {
			return "stream:<nil>"
		}
		return "stream:" + fmt.Sprintf("%+v", *v.Stream)
	case KindList:
		for _, it := range v.Items {
			parts = append(parts, strconv.Quote(string(it)))
		}
		return "list:" + strings.Join(parts, ",")
	case KindSet:
		for _, it := range v.Items {
			parts = append(parts, strconv.Quote(string(it)))
		}
	case KindHash:
		for _, p := range v.Pairs {
			parts = append(parts, strconv.Quote(string(p[0]))+"="+strconv.Quote(string(p[1])))
		}
	case KindZSet:
		for _, m := range v.ZSet {
			parts = append(parts, strconv.Quote(string(m.Member))+"="+string(appendScore(nil, m.Score)))
		}
	}
	slices.Sort(parts)
	return v.Kind.String() + ":" + strings.Join(parts, ",")
}

func strs(ss ...string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

func pairs(kv ...string) [][2][]byte {
	var out [][2][]byte
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, [2][]byte{[]byte(kv[i]), []byte(kv[i+1])})
	}
	return out
}

func zmembers(ms ...any) []ZMember {
	var out []ZMember
	for i := 0; i+1 < len(ms); i += 2 {
		out = append(out, ZMember{Member: []byte(ms[i].(string)), Score: ms[i+1].(float64)})
	}
	return out
}

// appendDoubleValue is rdbSaveDoubleValue (RDB_TYPE_ZSET scores).
func appendDoubleValue(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, 253)
	case math.IsInf(f, 1):
		return append(dst, 254)
	case math.IsInf(f, -1):
		return append(dst, 255)
	}
	s := appendScore(nil, f)
	if f == 0 {
		s = []byte("0") // double2ll(-0.0) succeeds
	}
	return append(append(dst, byte(len(s))), s...)
}

// legacyObject encodes v in one of the encodings Redis 7.0 loads but does
// not write (or, for TypeSet and TypeHash, writes only for big values),
// as older Redis versions wrote them. nodeSize is the number of elements
// per ziplist node for TypeListQuicklist.
func legacyObject(typ byte, v *Value, nodeSize int) []byte {
	var dst []byte
	flat := func() []string {
		var f []string
		switch v.Kind {
		case KindList, KindSet:
			for _, it := range v.Items {
				f = append(f, string(it))
			}
		case KindHash:
			for _, p := range v.Pairs {
				f = append(f, string(p[0]), string(p[1]))
			}
		case KindZSet:
			for _, m := range slices.SortedFunc(slices.Values(v.ZSet), compareZMembers) {
				f = append(f, string(m.Member), string(appendScore(nil, m.Score)))
			}
		}
		return f
	}
	switch typ {
	case TypeList, TypeSet:
		dst = AppendLen(dst, uint64(len(v.Items)))
		for _, it := range v.Items {
			dst = AppendString(dst, it, true)
		}
	case TypeHash:
		dst = AppendLen(dst, uint64(len(v.Pairs)))
		for _, p := range v.Pairs {
			dst = AppendString(AppendString(dst, p[0], true), p[1], true)
		}
	case TypeZSet:
		dst = AppendLen(dst, uint64(len(v.ZSet)))
		for _, m := range v.ZSet {
			dst = appendDoubleValue(AppendString(dst, m.Member, true), m.Score)
		}
	case TypeHashZipmap:
		var ps [][2]string
		for _, p := range v.Pairs {
			ps = append(ps, [2]string{string(p[0]), string(p[1])})
		}
		dst = AppendString(dst, buildZipmap(ps, 1), true)
	case TypeListZiplist, TypeZSetZiplist, TypeHashZiplist:
		dst = AppendString(dst, buildZiplist(flat()), true)
	case TypeListQuicklist:
		f := flat()
		nodes := (len(f) + nodeSize - 1) / nodeSize
		dst = AppendLen(dst, uint64(nodes))
		for i := 0; i < len(f); i += nodeSize {
			dst = AppendString(dst, buildZiplist(f[i:min(i+nodeSize, len(f))]), true)
		}
	default:
		panic(fmt.Sprintf("legacyObject type %d", typ))
	}
	return dst
}

func legacyPayload(typ byte, v *Value, nodeSize int) []byte {
	return AppendFooter(append([]byte{typ}, legacyObject(typ, v, nodeSize)...))
}

// redisDumpVectors are DUMP payloads Redis 7.0.15 returned (see
// TestRedisDumpValues for the general check) and the values they hold.
var redisDumpVectors = []struct {
	name    string
	payload string
	value   *Value
}{
	{"list of every listpack int width", "\x12\x01\x02@YY\x00\x00\x00\x10\x00\x81a\x02\x01\x01\xdf\xff\x02\x7f\x01\xc0\x80\x02\xd0\x00\x02\xcf\xff\x02\xf1\xff\xef\x03\xf1\xff\x7f\x03\xf2\x00\x80\x00\x04\xf2\xff\xff\x7f\x04\xf3\x00\x00\x80\x00\x05\xf3\xff\xff\xff\x7f\x05\xf4\x00\x00\x00\x80\x00\x00\x00\x00\t\xf4\x00\x00\x00\x00\x00\x00\x00\x80\t\x8bhello world\f\xff\n\x00\v}$\x14[|\xd3\x83",
		&Value{Kind: KindList, Items: strs("a", "1", "-1", "127", "128", "-4096", "4095", "-4097", "32767", "32768",
			"8388607", "8388608", "2147483647", "2147483648", "-9223372036854775808", "hello world")}},
	{"intset", "\v\x10\x02\x00\x00\x00\x04\x00\x00\x00\xfb\xff\x01\x00\x02\x00\x03\x00\n\x00\xc8\xe4\xdf\xb6os\x96\xf0",
		&Value{Kind: KindSet, Items: strs("-5", "1", "2", "3")}},
	{"32-bit intset", "\v\x10\x04\x00\x00\x00\x02\x00\x00\x00\x01\x00\x00\x00p\x11\x01\x00\n\x00'5Cn\xfdfV\xc4",
		&Value{Kind: KindSet, Items: strs("1", "70000")}},
	{"hash listpack", "\x10\x12\x12\x00\x00\x00\x04\x00\x81f\x02\x81v\x02\x81n\x02\f\x01\xff\n\x00\x016\x94\x81\xd3[\x89t",
		&Value{Kind: KindHash, Pairs: pairs("f", "v", "n", "12")}},
	{"zset listpack, LZF-compressed", "\x11\xc3;@C\x12C\x00\x00\x00\f\x00\x81c\x02\x00\x01\x81e\x02\x930.10\xe0\x05\x00\x1f1\x14\x81a\x02\x831.5\x04\x81b\x02\x02\x01\x81f\x02\x851e+20\x06\x81d\x02\x83inf\x01\x04\xff\n\x00%\x99a%\xe4\xb3\xae\x96",
		&Value{Kind: KindZSet, ZSet: zmembers("c", 0.0, "e", 0.1, "a", 1.5, "b", 2.0, "f", 1e20, "d", math.Inf(1))}},
	{"list with a plain node", "\x12\x02\x01\x0faaaaaaaaaaaaaaa\x02\r\r\x00\x00\x00\x02\x00\x81b\x02\x81c\x02\xff\n\x00\xe2\xaeJ\xdc\xf057\xbb",
		&Value{Kind: KindList, Items: strs("aaaaaaaaaaaaaaa", "b", "c")}},
}

func TestRedisDumpVectors(t *testing.T) {
	for _, vec := range redisDumpVectors {
		v, err := Restore([]byte(vec.payload))
		if err != nil || canon(v) != canon(vec.value) {
			t.Errorf("%s: Restore = %s, %v; want %s", vec.name, canon(v), err, canon(vec.value))
			continue
		}
		if vec.value.Kind == KindList || vec.value.Kind == KindHash {
			if !slices.EqualFunc(v.Items, vec.value.Items, bytes.Equal) || fmt.Sprint(v.Pairs) != fmt.Sprint(vec.value.Pairs) {
				t.Errorf("%s: order differs", vec.name)
			}
		}
		opts := DefaultEncodeOptions()
		if strings.Contains(vec.name, "plain") {
			opts.ListPackedThreshold = 10
		}
		if got := Dump(vec.value, opts); string(got) != vec.payload {
			t.Errorf("%s: Dump = %q\nwant %q", vec.name, got, vec.payload)
		}
	}
}

func TestEncodeChoices(t *testing.T) {
	def := DefaultEncodeOptions()
	long := strings.Repeat("v", 65)
	many := func(n int, f func(i int) string) [][]byte {
		var out [][]byte
		for i := range n {
			out = append(out, []byte(f(i)))
		}
		return out
	}
	manyPairs := func(n int) [][2][]byte {
		var out [][2][]byte
		for i := range n {
			out = append(out, [2][]byte{[]byte("f" + strconv.Itoa(i)), []byte("v")})
		}
		return out
	}
	manyZ := func(n int, member string) []ZMember {
		var out []ZMember
		for i := range n {
			out = append(out, ZMember{Member: []byte(member + strconv.Itoa(i)), Score: float64(i)})
		}
		return out
	}
	tiny := def
	tiny.SetMaxIntsetEntries, tiny.HashMaxListpackEntries, tiny.ZSetMaxListpackEntries = 0, 0, 0
	cases := []struct {
		name string
		v    *Value
		opts EncodeOptions
		want byte
	}{
		{"string", &Value{Kind: KindString, Str: []byte("x")}, def, TypeString},
		{"list", &Value{Kind: KindList, Items: strs("a")}, def, TypeListQuicklist2},
		{"int set", &Value{Kind: KindSet, Items: strs("1", "-2")}, def, TypeSetIntset},
		{"512 ints", &Value{Kind: KindSet, Items: many(512, strconv.Itoa)}, def, TypeSetIntset},
		{"513 ints", &Value{Kind: KindSet, Items: many(513, strconv.Itoa)}, def, TypeSet},
		{"non-canonical int", &Value{Kind: KindSet, Items: strs("1", "01")}, def, TypeSet},
		{"int set, max 0", &Value{Kind: KindSet, Items: strs("1")}, tiny, TypeSet},
		{"small hash", &Value{Kind: KindHash, Pairs: pairs("f", strings.Repeat("v", 64))}, def, TypeHashListpack},
		{"long hash value", &Value{Kind: KindHash, Pairs: pairs("f", long)}, def, TypeHash},
		{"long hash field", &Value{Kind: KindHash, Pairs: pairs(long, "v")}, def, TypeHash},
		{"128 pairs", &Value{Kind: KindHash, Pairs: manyPairs(128)}, def, TypeHashListpack},
		{"129 pairs", &Value{Kind: KindHash, Pairs: manyPairs(129)}, def, TypeHash},
		{"hash, max 0", &Value{Kind: KindHash, Pairs: pairs("f", "v")}, tiny, TypeHash},
		{"small zset", &Value{Kind: KindZSet, ZSet: manyZ(128, "m")}, def, TypeZSetListpack},
		{"129 members", &Value{Kind: KindZSet, ZSet: manyZ(129, "m")}, def, TypeZSet2},
		{"long member", &Value{Kind: KindZSet, ZSet: manyZ(1, long)}, def, TypeZSet2},
		{"zset, max 0", &Value{Kind: KindZSet, ZSet: manyZ(1, "m")}, tiny, TypeZSet2},
	}
	for _, c := range cases {
		got := EncodeValue([]byte("x"), c.v, c.opts)
		if got[0] != 'x' || got[1] != c.want {
			t.Errorf("%s: type %d, want %d", c.name, got[1], c.want)
			continue
		}
		r := NewReader(got[2:])
		back, err := DecodeValue(r, got[1])
		if err != nil || canon(back) != canon(c.v) || r.Remaining() != 0 {
			t.Errorf("%s: decodes as %.80s, %v, %d bytes left", c.name, canon(back), err, r.Remaining())
		}
	}
}

// quicklistNodes returns the element counts of a TypeListQuicklist2
// object's nodes, plain nodes as -1.
func quicklistNodes(t *testing.T, obj []byte) []int {
	t.Helper()
	r := NewReader(obj)
	n, err := r.ReadLen()
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for range n {
		c, _ := r.ReadLen()
		data, err := r.ReadStringBytes()
		if err != nil {
			t.Fatal(err)
		}
		if c == quicklistContainerPlain {
			out = append(out, -1)
			continue
		}
		cnt, err := walkListpack(data, nil)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, cnt)
	}
	return out
}

func TestQuicklistNodes(t *testing.T) {
	items := func(n, size int) [][]byte {
		var out [][]byte
		for i := range n {
			out = append(out, bytes.Repeat([]byte{byte('a' + i%26)}, size))
		}
		return out
	}
	cases := []struct {
		name      string
		items     [][]byte
		fill      int
		threshold int
		want      []int
	}{
		{"count 3", items(10, 1), 3, 0, []int{3, 3, 3, 1}},
		{"count 0: one per node", items(3, 1), 0, 0, []int{1, 1, 1}},
		// -1: 4096 bytes. Each 100-byte element takes 100+2+1 bytes in the
		// listpack; a node of 7 bytes + k*103 accepts another while
		// 7 + k*103 + 100 + 8 <= 4096: k <= 38, so 39 per node.
		{"fill -1", items(100, 100), -1, 0, []int{39, 39, 22}},
		{"fill -2", items(100, 100), -2, 0, []int{79, 21}},
		{"fill -9 acts as -5", items(700, 100), -9, 0, []int{636, 64}},
		// count fill capped at 8 KB
		{"fill 1000, 8 KB cap", items(100, 100), 1000, 0, []int{79, 21}},
		{"fill above max", items(5, 1), 1 << 20, 0, []int{5}},
		{"plain nodes", append(append(items(2, 5), items(2, 20)...), items(3, 5)...), -2, 20, []int{2, -1, -1, 3}},
		{"threshold equal", items(1, 20), -2, 20, []int{-1}},
		{"threshold above", items(1, 19), -2, 20, []int{1}},
	}
	for _, c := range cases {
		opts := DefaultEncodeOptions()
		opts.ListMaxListpackSize, opts.ListPackedThreshold = c.fill, c.threshold
		v := &Value{Kind: KindList, Items: c.items}
		enc := EncodeValue(nil, v, opts)
		if got := quicklistNodes(t, enc[1:]); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: nodes %v, want %v", c.name, got, c.want)
		}
		back, err := Restore(AppendFooter(enc))
		if err != nil || canon(back) != canon(v) {
			t.Errorf("%s: round trip %v", c.name, err)
		}
	}
}

func TestLegacyEncodings(t *testing.T) {
	list := &Value{Kind: KindList, Items: strs("a", "", "12", "-7", "9223372036854775807", strings.Repeat("long", 100), "x")}
	set := &Value{Kind: KindSet, Items: strs("b", "a", "3", "")}
	intSet := &Value{Kind: KindSet, Items: strs("3", "-1", "100000")}
	hash := &Value{Kind: KindHash, Pairs: pairs("f", "v", "n", "12", "", "empty", strings.Repeat("k", 300), strings.Repeat("v", 300))}
	zset := &Value{Kind: KindZSet, ZSet: zmembers("a", 1.5, "b", -2.0, "c", math.Inf(1), "d", math.Inf(-1), "e", 0.1, "f", 1e300, "g", 0.0)}
	cases := []struct {
		typ byte
		v   *Value
	}{
		{TypeList, list}, {TypeListZiplist, list}, {TypeListQuicklist, list},
		{TypeSet, set}, {TypeSet, intSet},
		{TypeZSet, zset}, {TypeZSetZiplist, zset},
		{TypeHash, hash}, {TypeHashZipmap, hash}, {TypeHashZiplist, hash},
	}
	for _, c := range cases {
		for _, nodeSize := range []int{1, 3, 100} {
			p := legacyPayload(c.typ, c.v, nodeSize)
			got, err := Restore(p)
			if err != nil || canon(got) != canon(c.v) {
				t.Errorf("type %d: Restore = %s, %v; want %s", c.typ, canon(got), err, canon(c.v))
			}
			if c.typ != TypeListQuicklist {
				break
			}
		}
	}
}

// corruptPayloads are payloads with valid footers that Restore must reject
// with ErrBadData; TestRedisRestoreErrors checks that Redis (with
// sanitize-dump-payload yes) rejects them too.
func corruptPayloads() map[string][]byte {
	withFooter := func(body string) []byte { return AppendFooter([]byte(body)) }
	lp := func(entries ...string) string {
		lb := newListpack(nil)
		for _, e := range entries {
			lb.addString(e)
		}
		return string(AppendString(nil, lb.finish(), false))
	}
	zl := func(entries ...string) string { return string(AppendString(nil, buildZiplist(entries), false)) }
	m := map[string][]byte{
		// From Redis's tests/integration/corrupt-dump.tcl, footers as there.
		"redis #7445":                         []byte("\x0E\x01\x1D\x1D\x00\x00\x00\x16\x00\x00\x00\x03\x00\x00\x04\x43\x43\x43\x43\x06\x04\x42\x42\x42\x42\x06\x3F\x41\x41\x41\x41\xFF\x09\x00\x88\xA5\xCA\xA8\xC5\x41\xF4\x35"),
		"redis invalid entry len":             []byte("\x0D\x1B\x1B\x00\x00\x00\x16\x00\x00\x00\x04\x00\x00\x02\x61\x00\x04\x02\x62\x00\x04\x14\x63\x00\x04\x02\x64\x00\xFF\x09\x00\xD9\x10\x54\x92\x15\xF5\x5F\x52"),
		"redis invalid zlbytes":               []byte("\x0D\x1B\x25\x00\x00\x00\x16\x00\x00\x00\x04\x00\x00\x02\x61\x00\x04\x02\x62\x00\x04\x02\x63\x00\x04\x02\x64\x00\xFF\x09\x00\xB7\xF7\x6E\x9F\x43\x43\x14\xC6"),
		"redis dup records":                   []byte("\x0D\x1B\x1B\x00\x00\x00\x16\x00\x00\x00\x04\x00\x00\x02\x61\x00\x04\x02\x62\x00\x04\x02\x61\x00\x04\x02\x64\x00\xFF\x09\x00\xA1\x98\x36\x78\xCC\x8E\x93\x2E"),
		"redis quicklist big prev len":        []byte("\x0E\x01\x13\x13\x00\x00\x00\x0E\x00\x00\x00\x02\x00\x00\x02\x61\x00\x0E\x02\x62\x00\xFF\x09\x00\x49\x97\x30\xB2\x0D\xA1\xED\xAA"),
		"redis quicklist small prev len":      []byte("\x0E\x01\x13\x13\x00\x00\x00\x0E\x00\x00\x00\x02\x00\x00\x02\x61\x00\x02\x02\x62\x00\xFF\x09\x00\xC7\x71\x03\x97\x07\x75\xB0\x63"),
		"redis quicklist wrong count":         []byte("\x0E\x01\x13\x13\x00\x00\x00\x0E\x00\x00\x00\x03\x00\x00\x02\x61\x00\x04\x02\x62\x00\xFF\x09\x00\x4D\xE2\x0A\x2F\x08\x25\xDF\x91"),
		"redis #3080 quicklist":               []byte("\x0E\x01\x80\x00\x00\x00\x10\x41\x41\x41\x41\x41\x41\x41\x41\x02\x00\x00\x80\x41\x41\x41\x41\x07\x00\x03\xC7\x1D\xEF\x54\x68\xCC\xF3"),
		"redis #3080 ziplist":                 []byte("\x0A\x80\x00\x00\x00\x10\x41\x41\x41\x41\x41\x41\x41\x41\x02\x00\x00\x80\x41\x41\x41\x41\x07\x00\x39\x5B\x49\xE0\xC1\xC6\xDD\x76"),
		"empty list (type 1)":                 withFooter("\x01\x00"),
		"empty set":                           withFooter("\x02\x00"),
		"empty zset":                          withFooter("\x03\x00"),
		"empty zset2":                         withFooter("\x05\x00"),
		"empty hash":                          withFooter("\x04\x00"),
		"empty quicklist":                     withFooter("\x12\x00"),
		"quicklist of empty listpacks":        withFooter("\x12\x02\x02" + lp() + "\x02" + lp()),
		"quicklist v1 of empty ziplist":       withFooter("\x0e\x01" + zl()),
		"empty ziplist list":                  withFooter("\x0a" + zl()),
		"empty hash listpack":                 withFooter("\x10" + lp()),
		"empty zset listpack":                 withFooter("\x11" + lp()),
		"empty hash ziplist":                  withFooter("\x0d" + zl()),
		"empty zset ziplist":                  withFooter("\x0c" + zl()),
		"empty intset":                        withFooter("\x0b\x08\x02\x00\x00\x00\x00\x00\x00\x00"),
		"empty zipmap":                        withFooter("\x09\x02\x00\xff"),
		"quicklist container 0":               withFooter("\x12\x01\x00" + lp("a")),
		"quicklist container 3":               withFooter("\x12\x01\x03" + lp("a")),
		"quicklist empty plain node":          withFooter("\x12\x01\x01\x00"),
		"quicklist empty packed node":         withFooter("\x12\x01\x02\x00"),
		"quicklist plain node of 0 LZF bytes": withFooter("\x12\x01\x01\xc3\x01\x00\x00"),
		"quicklist node int-encoded":          withFooter("\x12\x01\x02\xc0\x05"),
		"quicklist node is a ziplist":         withFooter("\x12\x01\x02" + zl("a")),
		"quicklist v1 node is a listpack":     withFooter("\x0e\x01" + lp("a")),
		"dup set members":                     withFooter("\x02\x02\x01a\x01a"),
		"dup int set members":                 withFooter("\x02\x02\xc0\x01\x011"),
		"dup hash fields":                     withFooter("\x04\x02\x01f\x01a\x01f\x01b"),
		"dup hash listpack fields":            withFooter("\x10" + lp("f", "a", "f", "b")),
		"dup hash listpack int/string fields": withFooter("\x10" + string(AppendString(nil, []byte("\x12\x00\x00\x00\x04\x00\x01\x01\x81a\x02\x811\x02\x81b\x02\xff"), false))),
		"odd hash listpack":                   withFooter("\x10" + lp("f", "a", "g")),
		"dup hash ziplist fields":             withFooter("\x0d" + zl("f", "a", "f", "b")),
		"odd hash ziplist":                    withFooter("\x0d" + zl("f")),
		"dup zipmap fields":                   withFooter("\x09" + string(AppendString(nil, buildZipmap([][2]string{{"f", "a"}, {"f", "b"}}, 0), false))),
		"dup zset members":                    withFooter("\x05\x02\x01m" + string(appendBinaryDouble(nil, 1)) + "\x01m" + string(appendBinaryDouble(nil, 2))),
		"dup zset listpack members":           withFooter("\x11" + lp("m", "1", "m", "2")),
		"odd zset listpack":                   withFooter("\x11" + lp("m", "1", "n")),
		"dup zset ziplist members":            withFooter("\x0c" + zl("m", "1", "m", "2")),
		"dup zset (type 3) members":           withFooter("\x03\x02\x01m\x011\x01m\x012"),
		"zset2 NaN score":                     withFooter("\x05\x01\x01m" + string(appendBinaryDouble(nil, math.NaN()))),
		"zset NaN score (253)":                withFooter("\x03\x01\x01m\xfd"),
		"zset unparsable score":               withFooter("\x03\x01\x01m\x00"),
		"intset out of order":                 withFooter("\x0b\x0c\x02\x00\x00\x00\x02\x00\x00\x00\x02\x00\x01\x00"),
		"intset width 3":                      withFooter("\x0b\x0b\x03\x00\x00\x00\x01\x00\x00\x00\x01\x00\x00"),
		"listpack hash, bad listpack":         withFooter("\x10\x07\x07\x00\x00\x00\x01\x00\xff"),
		"type 8":                              withFooter("\x08\x00"),
		"type 20":                             withFooter("\x14\x00"),
		"opcode as type":                      withFooter("\xff"),
		"string truncated":                    withFooter("\x00\x40"),
		"list truncated":                      withFooter("\x01\x05\x01a"),
		"set truncated":                       withFooter("\x02\x7f"),
		"zset2 member truncated":              withFooter("\x05\x01\x3f"),
		"list length RDB_LENERR":              withFooter("\x01\x81\xff\xff\xff\xff\xff\xff\xff\xff"),
		"hash count overflow":                 withFooter("\x04\x81\x80\x00\x00\x00\x00\x00\x00\x01"),
		"bad length encoding":                 withFooter("\x01\x82"),
		"listpack LZF bad data":               withFooter("\x10\xc3\x02\x20\x00\x00"),
		"empty payload (reads the footer as a ziplist list)": AppendFooter(nil),
	}
	return m
}

func TestRestoreErrors(t *testing.T) {
	for name, p := range corruptPayloads() {
		if v, err := Restore(p); !errors.Is(err, ErrBadData) {
			t.Errorf("%s: Restore = %s, %v; want ErrBadData", name, canon(v), err)
		}
	}
	flipped := AppendFooter([]byte("\x00\x01a"))
	flipped[2] ^= 1
	for _, p := range [][]byte{nil, []byte("short"), flipped} {
		if _, err := Restore(p); err != ErrPayloadFooter {
			t.Errorf("Restore(%q) = %v, want ErrPayloadFooter", p, err)
		}
	}
	// Modules are not decoded.
	for _, typ := range []byte{TypeModule, TypeModule2} {
		if _, err := Restore(AppendFooter([]byte{typ, 0})); !errors.Is(err, ErrUnsupported) {
			t.Errorf("type %d: Restore = %v, want ErrUnsupported", typ, err)
		}
	}
}

func TestDecodeValueErrors(t *testing.T) {
	// Empty collections are ErrEmptyValue, consumed entirely by the
	// internal decoder (FileReader skips them) and left unconsumed by
	// DecodeValue.
	for _, body := range []string{"\x01\x00", "\x12\x01\x02\x07\x07\x00\x00\x00\x00\x00\xff", "\x10\x07\x07\x00\x00\x00\x00\x00\xff"} {
		r := NewReader([]byte(body[1:] + "tail"))
		if _, err := DecodeValue(r, body[0]); err != ErrEmptyValue || r.Offset() != 0 {
			t.Errorf("DecodeValue(%q) = %v at %d, want ErrEmptyValue at 0", body, err, r.Offset())
		}
		if _, err := decodeValue(r, body[0]); err != ErrEmptyValue || r.Remaining() != 4 {
			t.Errorf("decodeValue(%q) = %v with %d left, want ErrEmptyValue with 4", body, err, r.Remaining())
		}
	}
	// Truncation at every point is ErrTruncated, never a panic, and the
	// offset stays put.
	v := &Value{Kind: KindZSet, ZSet: zmembers("a", 1.0, "b", 2.5, strings.Repeat("c", 70), 3.0)}
	for _, opts := range []EncodeOptions{DefaultEncodeOptions(), {}} {
		enc := EncodeValue(nil, v, opts)
		for cut := 1; cut < len(enc); cut++ {
			r := NewReader(enc[1:cut])
			if _, err := DecodeValue(r, enc[0]); !errors.Is(err, ErrTruncated) || r.Offset() != 0 {
				t.Fatalf("cut at %d of %q: %v at %d", cut, enc, err, r.Offset())
			}
		}
	}
}

// TestDecodedValuesDoNotAlias: decoded values are copies, and empty
// elements are non-nil.
func TestDecodedValuesDoNotAlias(t *testing.T) {
	for _, v := range []*Value{
		{Kind: KindString, Str: []byte("string value")},
		{Kind: KindList, Items: strs("a", "", "b")},
		{Kind: KindSet, Items: strs("x", "", "y")},
		{Kind: KindHash, Pairs: pairs("f", "", "", "v")},
		{Kind: KindHash, Pairs: pairs("f", strings.Repeat("v", 100))},
		{Kind: KindZSet, ZSet: zmembers("", 1.0, "m", 2.0)},
	} {
		p := Dump(v, EncodeOptions{HashMaxListpackEntries: 10, HashMaxListpackValue: 10})
		got, err := Restore(p)
		if err != nil || canon(got) != canon(v) {
			t.Fatalf("%s: %v", canon(v), err)
		}
		for i := range p {
			p[i] ^= 0xff
		}
		if canon(got) != canon(v) {
			t.Errorf("%s: value changed with the payload: %s", canon(v), canon(got))
		}
		for _, b := range got.Items {
			if b == nil {
				t.Errorf("%s: nil element", canon(v))
			}
		}
		for _, pr := range got.Pairs {
			if pr[0] == nil || pr[1] == nil {
				t.Errorf("%s: nil field or value", canon(v))
			}
		}
		for _, m := range got.ZSet {
			if m.Member == nil {
				t.Errorf("%s: nil member", canon(v))
			}
		}
	}
}

// randomValue generates values of every kind and size class: small and
// large, integer and non-integer members, long elements.
func randomValue(rng *rand.Rand) *Value {
	elem := func() []byte {
		switch rng.IntN(8) {
		case 0:
			return []byte(strconv.FormatInt(rng.Int64N(1000)-500, 10))
		case 1:
			return []byte(strconv.FormatInt(int64(rng.Uint64())>>rng.IntN(64), 10))
		case 2:
			return []byte{}
		case 3:
			return []byte(strings.Repeat("ab", rng.IntN(60)))
		case 4:
			return []byte(randomText(rng, 60+rng.IntN(200)))
		case 5:
			return []byte(randomText(rng, rng.IntN(20)))
		case 6:
			return []byte{byte(rng.IntN(256)), 0, '\r', '\n'}
		default:
			return []byte("-0" + strconv.Itoa(rng.IntN(10)))
		}
	}
	size := []int{1, 2, 5, 50, 127, 128, 129, 300, 513, 600}[rng.IntN(10)]
	switch rng.IntN(5) {
	case 0:
		return &Value{Kind: KindString, Str: elem()}
	case 1:
		v := &Value{Kind: KindList}
		for range size {
			v.Items = append(v.Items, elem())
		}
		return v
	case 2:
		v := &Value{Kind: KindSet}
		seen := map[string]bool{}
		intsOnly := rng.IntN(2) == 0
		for range size {
			e := elem()
			if intsOnly {
				e = []byte(strconv.FormatInt(rng.Int64N(1<<uint(rng.IntN(62)+1)), 10))
			}
			if !seen[string(e)] {
				seen[string(e)] = true
				v.Items = append(v.Items, e)
			}
		}
		return v
	case 3:
		v := &Value{Kind: KindHash}
		seen := map[string]bool{}
		for range size {
			f := elem()
			if !seen[string(f)] {
				seen[string(f)] = true
				v.Pairs = append(v.Pairs, [2][]byte{f, elem()})
			}
		}
		return v
	default:
		v := &Value{Kind: KindZSet}
		seen := map[string]bool{}
		for range size {
			m := elem()
			if seen[string(m)] {
				continue
			}
			seen[string(m)] = true
			var score float64
			switch rng.IntN(5) {
			case 0:
				score = float64(rng.IntN(100))
			case 1:
				score = rng.NormFloat64() * 1e6
			case 2:
				score = math.Inf(1 - 2*rng.IntN(2))
			case 3:
				score = math.Float64frombits(rng.Uint64()&^(0x7ff<<52) | uint64(rng.IntN(0x7fe))<<52)
			default:
				score = float64(int64(rng.Uint64()) >> rng.IntN(64))
			}
			v.ZSet = append(v.ZSet, ZMember{Member: m, Score: score})
		}
		return v
	}
}

func TestValueRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	small := DefaultEncodeOptions()
	small.HashMaxListpackEntries, small.ZSetMaxListpackEntries, small.SetMaxIntsetEntries = 4, 4, 4
	small.HashMaxListpackValue, small.ZSetMaxListpackValue, small.ListMaxListpackSize = 8, 8, 3
	small.ListPackedThreshold, small.Compress = 100, false
	for i := range 250 {
		v := randomValue(rng)
		for _, opts := range []EncodeOptions{DefaultEncodeOptions(), small} {
			p := Dump(v, opts)
			got, err := Restore(p)
			if err != nil || canon(got) != canon(v) {
				t.Fatalf("value %d (%v): Restore = %v\n got  %.200s\n want %.200s", i, v.Kind, err, canon(got), canon(v))
			}
			if v.Kind == KindList || (v.Kind == KindHash && (p[0] == TypeHashListpack || p[0] == TypeHash)) {
				if canon(&Value{Kind: KindList, Items: got.Items}) != canon(&Value{Kind: KindList, Items: v.Items}) ||
					fmt.Sprint(got.Pairs) != fmt.Sprint(v.Pairs) {
					t.Fatalf("value %d: order not kept", i)
				}
			}
			if again := Dump(got, opts); !bytes.Equal(again, p) {
				t.Fatalf("value %d: re-encoding differs", i)
			}
		}
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{KindString: "string", KindList: "list", KindSet: "set",
		KindHash: "hash", KindZSet: "zset", 9: "Kind(9)"} {
		if k.String() != want {
			t.Errorf("Kind(%d).String() = %q", k, k.String())
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("EncodeValue of an invalid kind did not panic")
		}
	}()
	EncodeValue(nil, &Value{Kind: 9}, DefaultEncodeOptions())
}

// TestScoreParsing: scores stored as strings are read whole, as strtod
// would read them, or rejected.
func TestScoreParsing(t *testing.T) {
	for s, want := range map[string]float64{"1.5": 1.5, "-0": math.Copysign(0, -1), "inf": math.Inf(1),
		"-inf": math.Inf(-1), "+Inf": math.Inf(1), "1e400": math.Inf(1), "1e-400": 0, "0x1p-2": 0.25, ".5": 0.5, "5.": 5} {
		if got, err := parseScore([]byte(s)); err != nil || got != want || math.Signbit(got) != math.Signbit(want) {
			t.Errorf("parseScore(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "nan", "NaN", "1_000", "1.5abc", " 1", "1 ", "abc", "0x10", "--1"} {
		if got, err := parseScore([]byte(s)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("parseScore(%q) = %v, %v; want ErrCorrupt", s, got, err)
		}
	}
}

// TestCRCLeadingZeros pins a property of Redis's CRC64 (initial value 0):
// zero bytes in front of the data do not change the checksum.
func TestCRCLeadingZeros(t *testing.T) {
	p := Dump(&Value{Kind: KindString, Str: []byte("v")}, DefaultEncodeOptions())
	if CRC64(0, append([]byte{0, 0, 0}, p[:len(p)-8]...)) != CRC64(0, p[:len(p)-8]) {
		t.Error("leading zero bytes change the CRC")
	}
	if _, _, err := VerifyPayload(append([]byte{0, 0}, p...)); err != nil {
		t.Errorf("zero-prefixed payload: %v", err)
	}
}
