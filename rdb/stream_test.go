package rdb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/stream"
)

// fv makes field/value pairs.
func fv(kv ...string) [][]byte { return strs(kv...) }

// buildTestStream makes a stream of n entries with explicit IDs under lim,
// with deletions, a trim, and consumer groups with pending entries, all at
// fixed times, so that its dump is deterministic. Group and consumer names
// cover integer-encoded and LZF-compressible strings.
func buildTestStream(rng *rand.Rand, n int, lim stream.Limits) *stream.Stream {
	s := stream.New()
	ms := uint64(1000)
	var ids []stream.ID
	for i := range n {
		if rng.IntN(3) == 0 {
			ms += uint64(rng.IntN(5000))
		}
		id := stream.ID{Ms: ms, Seq: uint64(i)}
		var pairs [][]byte
		switch rng.IntN(5) {
		case 0, 1:
			pairs = fv("temp", fmt.Sprint(rng.IntN(100)), "hum", fmt.Sprint(rng.IntN(1000)-500))
		case 2:
			pairs = fv("temp", "hot", "other", strings.Repeat("compress me ", rng.IntN(20)))
		case 3:
			pairs = fv("f", randomText(rng, rng.IntN(80)))
		default:
			pairs = fv("n", fmt.Sprint(rng.Int64()), "", "", "x", "-9223372036854775808")
		}
		if _, err := s.Add(stream.AddID{ID: id}, 0, pairs, lim); err != nil {
			panic(err)
		}
		ids = append(ids, id)
	}
	if n == 0 {
		return s
	}
	for range n / 10 {
		s.Delete(ids[rng.IntN(len(ids))])
	}
	if n > 20 {
		s.Trim(stream.Trim{Strategy: stream.TrimMaxLen, MaxLen: uint64(n - n/8), Approx: rng.IntN(2) == 0, Limit: 0})
	}
	names := []string{"g", "12345", "-7", strings.Repeat("group-", 8), "\x00bin\xff"}
	for gi, name := range names[:rng.IntN(len(names)+1)] {
		er := int64(stream.InvalidEntriesRead)
		if gi%2 == 0 {
			er = 0
		}
		g, _ := s.CreateGroup(name, stream.ID{}, er)
		consumers := []string{"alice", "42", strings.Repeat("consumer", 5), ""}
		t := int64(1_700_000_000_000 + gi)
		for r := range 1 + rng.IntN(6) {
			cn := consumers[rng.IntN(len(consumers))]
			c, _ := g.ConsumerFor(cn, t+int64(r))
			s.ReadNew(g, c, 1+rng.IntN(5), rng.IntN(5) == 0, t+int64(r))
		}
		if rng.IntN(2) == 0 {
			g.CreateConsumer("idle", t-5)
		}
		if len(ids) > 0 {
			s.Claim(g, "claimer", []stream.ID{ids[0], ids[len(ids)/2]}, stream.ClaimOptions{Time: t - 100, HasTime: true, Force: true}, t)
		}
	}
	return s
}

func streamValue(d stream.Dump) *Value { return &Value{Kind: KindStream, Stream: &d} }

func TestStreamRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for i := range 60 {
		lim := stream.Limits{MaxBytes: int64(200 + rng.IntN(4000)), MaxEntries: int64(rng.IntN(50))}
		s := buildTestStream(rng, []int{0, 1, 2, 10, 100, 400}[i%6], lim)
		v := streamValue(s.Dump())
		for _, compress := range []bool{false, true} {
			opts := DefaultEncodeOptions()
			opts.Compress = compress
			p := Dump(v, opts)
			if p[0] != TypeStreamListpacks2 {
				t.Fatalf("type %d", p[0])
			}
			got, err := Restore(p)
			if err != nil {
				t.Fatalf("stream %d: Restore: %v", i, err)
			}
			if canon(got) != canon(v) {
				t.Fatalf("stream %d: round trip differs\n got  %.400s\n want %.400s", i, canon(got), canon(v))
			}
			if again := Dump(got, opts); !bytes.Equal(again, p) {
				t.Fatalf("stream %d: re-encoding differs", i)
			}
			// The decoded dump loads into the same stream.
			ls, err := stream.Load(*got.Stream)
			if err != nil || !reflect.DeepEqual(ls.Dump(), s.Dump()) {
				t.Fatalf("stream %d: Load(decoded): %v", i, err)
			}
			// Legacy: type 15, derived fields zero, Legacy kept.
			legacy := *v.Stream
			legacy.Legacy = true
			lp := Dump(&Value{Kind: KindStream, Stream: &legacy}, opts)
			if lp[0] != TypeStreamListpacks || len(lp) >= len(p) {
				t.Fatalf("stream %d: legacy type %d, %d bytes (v2 %d)", i, lp[0], len(lp), len(p))
			}
			lv, err := Restore(lp)
			if err != nil || !lv.Stream.Legacy || !lv.Stream.FirstID.IsZero() || lv.Stream.EntriesAdded != 0 {
				t.Fatalf("stream %d: legacy Restore = %v, %v", i, err, lv)
			}
			if again := Dump(lv, opts); !bytes.Equal(again, lp) {
				t.Fatalf("stream %d: legacy re-encoding differs", i)
			}
		}
	}
}

// TestStreamLayout pins the bytes of a small stream with a group.
func TestStreamLayout(t *testing.T) {
	s := stream.New()
	s.Add(stream.AddID{ID: stream.ID{Ms: 1, Seq: 1}}, 0, fv("f", "v"), stream.DefaultLimits)
	g, _ := s.CreateGroup("g", stream.ID{}, stream.InvalidEntriesRead)
	c, _ := g.ConsumerFor("c", 7)
	s.ReadNew(g, c, 0, false, 9)
	d := s.Dump()
	p := EncodeValue(nil, streamValue(d), DefaultEncodeOptions())
	var want []byte
	want = append(want, TypeStreamListpacks2, 1, 16)
	want = binary.BigEndian.AppendUint64(want, 1)
	want = binary.BigEndian.AppendUint64(want, 1)
	want = AppendString(want, d.Nodes[0].Listpack, true)
	want = append(want, 1, 1, 1, 1, 1, 0, 0, 1)                            // length, last, first, max deleted, added
	want = append(want, 1, 1, 'g', 1, 1)                                   // 1 group "g", last ID 1-1
	want = append(want, 1)                                                 // entries-read: ReadNew counted the entry
	want = append(want, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1) // PEL: 1-1
	want = append(want, 9, 0, 0, 0, 0, 0, 0, 0, 1)                         // delivered at 9, once
	want = append(want, 1, 1, 'c', 7, 0, 0, 0, 0, 0, 0, 0, 1)              // consumer c seen at 7
	want = append(want, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1)    // its PEL: 1-1
	if !bytes.Equal(p, want) {
		t.Fatalf("encoding\n got  %q\n want %q", p, want)
	}

	// entries-read -1 is written as 2^64-1 and read back.
	g.SetID(stream.ID{Ms: 1, Seq: 1}, stream.InvalidEntriesRead)
	v := streamValue(s.Dump())
	p = Dump(v, DefaultEncodeOptions())
	if !bytes.Contains(p, []byte("\x01g\x01\x01\x81\xff\xff\xff\xff\xff\xff\xff\xff")) {
		t.Fatalf("entries-read -1: %q", p)
	}
	got, err := Restore(p)
	if err != nil || got.Stream.Groups[0].EntriesRead != -1 {
		t.Fatalf("Restore = %v, %v", got, err)
	}

	// An empty stream is a value, not an empty key.
	empty := stream.New()
	ev := streamValue(empty.Dump())
	p = Dump(ev, DefaultEncodeOptions())
	if got, err := Restore(p); err != nil || canon(got) != canon(ev) {
		t.Fatalf("empty stream: %v, %v", got, err)
	}
	if string(p[:len(p)-FooterLen]) != "\x13"+strings.Repeat("\x00", 10) {
		t.Fatalf("empty stream: %q", p)
	}
}

// TestStreamDecodeOrder: nodes, groups, consumers and PELs in any order
// are read into Redis's order.
func TestStreamDecodeOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	for range 20 {
		s := buildTestStream(rng, 200, stream.Limits{MaxBytes: 300, MaxEntries: 7})
		d := s.Dump()
		want := canon(streamValue(d))
		shuffled := d
		shuffled.Nodes = append([]stream.Node(nil), d.Nodes...)
		rng.Shuffle(len(shuffled.Nodes), func(i, j int) { shuffled.Nodes[i], shuffled.Nodes[j] = shuffled.Nodes[j], shuffled.Nodes[i] })
		shuffled.Groups = nil
		for _, g := range d.Groups {
			g.Pending = append([]stream.PendingDump(nil), g.Pending...)
			rng.Shuffle(len(g.Pending), func(i, j int) { g.Pending[i], g.Pending[j] = g.Pending[j], g.Pending[i] })
			var cs []stream.ConsumerDump
			for _, c := range g.Consumers {
				c.Pending = append([]stream.ID(nil), c.Pending...)
				rng.Shuffle(len(c.Pending), func(i, j int) { c.Pending[i], c.Pending[j] = c.Pending[j], c.Pending[i] })
				cs = append([]stream.ConsumerDump{c}, cs...)
			}
			g.Consumers = cs
			shuffled.Groups = append([]stream.GroupDump{g}, shuffled.Groups...)
		}
		got, err := Restore(Dump(streamValue(shuffled), DefaultEncodeOptions()))
		if err != nil || canon(got) != want {
			t.Fatalf("shuffled: %v\n got  %.300s\n want %.300s", err, canon(got), want)
		}
	}
}

// TestStreamDecodeErrors: every truncation of valid stream payloads is an
// error, and corrupt streams are Bad data format.
func TestStreamDecodeErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 46))
	s := buildTestStream(rng, 30, stream.Limits{MaxBytes: 200, MaxEntries: 5})
	d := s.Dump()
	if len(d.Groups) == 0 || len(d.Nodes) < 2 {
		g, _ := s.CreateGroup("gg", stream.ID{}, 0)
		c, _ := g.ConsumerFor("c", 5)
		s.ReadNew(g, c, 3, false, 5)
		d = s.Dump()
	}
	for _, legacy := range []bool{false, true} {
		d.Legacy = legacy
		body := EncodeValue(nil, streamValue(d), EncodeOptions{})
		for n := 1; n < len(body); n++ {
			v, err := DecodeValue(NewReader(body[1:n]), body[0])
			if err == nil {
				t.Fatalf("legacy %v: truncated to %d of %d bytes: decoded %.100s", legacy, n, len(body), canon(v))
			}
			if !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrCorrupt) {
				t.Fatalf("truncated to %d: %v", n, err)
			}
		}
	}
	d.Legacy = false

	mutate := func(f func(d *stream.Dump)) []byte {
		c := cloneDump(d)
		f(&c)
		return Dump(streamValue(c), EncodeOptions{})
	}
	cases := map[string][]byte{
		"node key of 15 bytes": AppendFooter([]byte("\x13\x01\x0f" + strings.Repeat("\x00", 15) + "\x00")),
		"node key of 17 bytes": AppendFooter([]byte("\x13\x01\x11" + strings.Repeat("\x00", 17) + "\x00")),
		"empty listpack": mutate(func(d *stream.Dump) {
			d.Nodes[0].Listpack = []byte{7, 0, 0, 0, 0, 0, 0xff}
		}),
		"listpack garbage":   mutate(func(d *stream.Dump) { d.Nodes[0].Listpack = []byte("garbage") }),
		"duplicate node":     mutate(func(d *stream.Dump) { d.Nodes = append(d.Nodes, d.Nodes[0]) }),
		"wrong master":       mutate(func(d *stream.Dump) { d.Nodes[0].Master.Seq++ }),
		"length too big":     mutate(func(d *stream.Dump) { d.Length++ }),
		"length too small":   mutate(func(d *stream.Dump) { d.Length-- }),
		"duplicate group":    mutate(func(d *stream.Dump) { d.Groups = append(d.Groups, d.Groups[0]) }),
		"duplicate consumer": mutate(func(d *stream.Dump) { g := &d.Groups[0]; g.Consumers = append(g.Consumers, g.Consumers[0]) }),
		"duplicate PEL entry": mutate(func(d *stream.Dump) {
			g := &d.Groups[0]
			g.Pending = append(g.Pending, g.Pending[0])
		}),
		"PEL entry without consumer": mutate(func(d *stream.Dump) {
			g := &d.Groups[0]
			g.Pending = append(g.Pending, stream.PendingDump{ID: stream.MaxID})
		}),
		"consumer entry not in PEL": mutate(func(d *stream.Dump) {
			g := &d.Groups[0]
			g.Consumers[0].Pending = append(g.Consumers[0].Pending, stream.MaxID)
		}),
		"entry owned twice": mutate(func(d *stream.Dump) {
			g := &d.Groups[0]
			g.Consumers = append(g.Consumers, stream.ConsumerDump{Name: "\xffother", Pending: g.Consumers[0].Pending})
		}),
	}
	for name, p := range cases {
		if v, err := Restore(p); !errors.Is(err, ErrBadData) {
			t.Errorf("%s: Restore = %.100s, %v", name, canon(v), err)
		}
	}
}

// cloneDump returns a deep copy of d's slices of groups.
func cloneDump(d stream.Dump) stream.Dump {
	c := d
	c.Nodes = append([]stream.Node(nil), d.Nodes...)
	c.Groups = nil
	for _, g := range d.Groups {
		g.Pending = append([]stream.PendingDump(nil), g.Pending...)
		var cs []stream.ConsumerDump
		for _, cd := range g.Consumers {
			cd.Pending = append([]stream.ID(nil), cd.Pending...)
			cs = append(cs, cd)
		}
		g.Consumers = cs
		c.Groups = append(c.Groups, g)
	}
	return c
}

func TestStreamEncodeInvalid(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("EncodeValue of a stream without its Stream did not panic")
		}
	}()
	var buf bytes.Buffer
	fw, _ := NewFileWriter(&buf, FileWriterOptions{Encode: DefaultEncodeOptions()})
	if err := fw.WriteKey([]byte("k"), &Value{Kind: KindStream}, -1, -1, -1); err == nil {
		t.Error("WriteKey of a stream without its Stream succeeded")
	}
	if err := fw.WriteKey([]byte("k"), &Value{Kind: KindStream + 1}, -1, -1, -1); err == nil {
		t.Error("WriteKey of kind 6 succeeded")
	}
	if KindStream.String() != "stream" {
		t.Errorf("KindStream.String() = %q", KindStream)
	}
	EncodeValue(nil, &Value{Kind: KindStream}, DefaultEncodeOptions())
}

// TestStreamFile writes streams to a file and reads them back.
func TestStreamFile(t *testing.T) {
	rng := rand.New(rand.NewPCG(47, 48))
	var buf bytes.Buffer
	fw, err := NewFileWriter(&buf, FileWriterOptions{CTime: 1, Encode: DefaultEncodeOptions()})
	if err != nil {
		t.Fatal(err)
	}
	fw.SelectDB(0, 4, 0)
	var want []string
	for i, n := range []int{0, 1, 50, 300} {
		v := streamValue(buildTestStream(rng, n, stream.DefaultLimits).Dump())
		if err := fw.WriteKey([]byte(fmt.Sprint("s", i)), v, -1, -1, -1); err != nil {
			t.Fatal(err)
		}
		want = append(want, canon(v))
	}
	if err := fw.Finish(); err != nil {
		t.Fatal(err)
	}
	fc, err := readFileContent(t, bytes.NewReader(buf.Bytes()))
	if err != nil || len(fc.keys) != len(want) || fc.info.EmptyKeysSkipped != 0 {
		t.Fatalf("%+v, %v", fc.info, err)
	}
	for i, k := range fc.keys {
		if k.value != want[i] {
			t.Fatalf("key %s: %.200s", k.key, k.value)
		}
	}
}
