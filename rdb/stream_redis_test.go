package rdb

// Differential tests of streams against a real redis-server 7.0 (skipped,
// loudly, when it is not installed): streams built on Redis with explicit
// IDs, deletions, trimming, consumer groups, deliveries and claims are
// DUMPed; the payload must decode to what XINFO STREAM FULL shows and
// re-encode to Redis's bytes; Redis must RESTORE what this package writes
// (RDB_TYPE_STREAM_LISTPACKS_2 and the older RDB_TYPE_STREAM_LISTPACKS)
// into the same stream; files with streams go both ways.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/difftest"
	"github.com/hotkv/hotkv/stream"
)

// redisStream drives a random session of stream commands on one Redis key,
// with explicit IDs and, for claims, pinned delivery times.
type redisStream struct {
	t      *testing.T
	c      *difftest.Conn
	rng    *rand.Rand
	key    string
	ms     uint64
	seq    uint64
	ids    []string
	groups []string
}

func (h *redisStream) do(args ...string) string {
	h.t.Helper()
	r := h.c.Do(args...)
	if strings.HasPrefix(r, "-") {
		h.t.Fatalf("%.80q: %q", args, r)
	}
	return r
}

func (h *redisStream) randID() string {
	if len(h.ids) == 0 || h.rng.IntN(8) == 0 {
		return fmt.Sprintf("%d-%d", h.rng.Uint64N(h.ms+2), h.rng.Uint64N(3))
	}
	return h.ids[h.rng.IntN(len(h.ids))]
}

var streamConsumers = []string{"alice", "bob", "7", strings.Repeat("consumer-", 4), "\x00\xff"}

func (h *redisStream) xadd() {
	if h.rng.IntN(3) == 0 {
		h.ms += uint64(h.rng.IntN(100000))
		h.seq = uint64(h.rng.IntN(3))
	} else {
		h.seq++
	}
	id := fmt.Sprintf("%d-%d", h.ms, h.seq)
	args := []string{"XADD", h.key, id}
	switch h.rng.IntN(6) {
	case 0, 1, 2: // the master's fields
		args = append(args, "temperature", strconv.Itoa(h.rng.IntN(200)-100), "humidity", strconv.Itoa(h.rng.IntN(100)))
	case 3:
		args = append(args, "msg", strings.Repeat("log line ", h.rng.IntN(30)), "level", "info")
	case 4:
		args = append(args, "blob", randomText(h.rng, h.rng.IntN(200)))
	default:
		args = append(args, "n", strconv.FormatInt(h.rng.Int64(), 10), "", "", "-1", "1.5")
	}
	h.do(args...)
	h.ids = append(h.ids, id)
}

func (h *redisStream) step() {
	switch k := h.rng.IntN(100); {
	case k < 55 || len(h.ids) < 3:
		h.xadd()
	case k < 62:
		h.do("XDEL", h.key, h.randID(), h.randID())
	case k < 65:
		approx := []string{"=", "~"}[h.rng.IntN(2)]
		if h.rng.IntN(2) == 0 {
			h.do("XTRIM", h.key, "MAXLEN", approx, strconv.Itoa(max(len(h.ids)-h.rng.IntN(20), 0)))
		} else {
			h.do("XTRIM", h.key, "MINID", approx, h.randID())
		}
	case k < 70:
		name := []string{"g1", "g2", "123", strings.Repeat("group", 6), "\x00g"}[h.rng.IntN(5)]
		if slices.Contains(h.groups, name) {
			h.do("XGROUP", "SETID", h.key, name, h.randID())
			return
		}
		args := []string{"XGROUP", "CREATE", h.key, name, []string{"0", "$", h.randID()}[h.rng.IntN(3)]}
		if h.rng.IntN(3) == 0 {
			args = append(args, "ENTRIESREAD", strconv.Itoa(h.rng.IntN(len(h.ids)+1)))
		}
		h.do(args...)
		h.groups = append(h.groups, name)
	case len(h.groups) == 0:
		h.xadd()
	case k < 84:
		args := []string{"XREADGROUP", "GROUP", h.groups[h.rng.IntN(len(h.groups))],
			streamConsumers[h.rng.IntN(len(streamConsumers))], "COUNT", strconv.Itoa(1 + h.rng.IntN(8))}
		if h.rng.IntN(6) == 0 {
			args = append(args, "NOACK")
		}
		h.do(append(args, "STREAMS", h.key, ">")...)
	case k < 92:
		args := []string{"XCLAIM", h.key, h.groups[h.rng.IntN(len(h.groups))],
			streamConsumers[h.rng.IntN(len(streamConsumers))], "0", h.randID(), h.randID(),
			"TIME", strconv.FormatInt(1_600_000_000_000+h.rng.Int64N(1e9), 10)}
		if h.rng.IntN(3) == 0 {
			args = append(args, "RETRYCOUNT", strconv.Itoa(h.rng.IntN(1000)))
		}
		if h.rng.IntN(4) == 0 {
			args = append(args, "FORCE")
		}
		h.do(args...)
	case k < 96:
		h.do("XACK", h.key, h.groups[h.rng.IntN(len(h.groups))], h.randID(), h.randID())
	case k < 98:
		h.do("XGROUP", "CREATECONSUMER", h.key, h.groups[h.rng.IntN(len(h.groups))], streamConsumers[h.rng.IntN(len(streamConsumers))])
	default:
		h.do("XGROUP", "DELCONSUMER", h.key, h.groups[h.rng.IntN(len(h.groups))], streamConsumers[h.rng.IntN(len(streamConsumers))])
	}
}

// xinfoFull returns XINFO STREAM key FULL COUNT 0, parsed, with
// radix-tree-nodes (the radix tree's internal node count) left out.
func xinfoFull(t *testing.T, c *difftest.Conn, key string) []any {
	t.Helper()
	v, rest, err := parseRESP(c.Do("XINFO", "STREAM", key, "FULL", "COUNT", "0"))
	arr, ok := v.([]any)
	if err != nil || rest != "" || !ok || len(arr) < 6 || arr[4] != "radix-tree-nodes" {
		t.Fatalf("XINFO STREAM %s FULL: %v, %v", key, v, err)
	}
	return append(arr[:4:4], arr[6:]...)
}

// renderXinfo is what XINFO STREAM FULL COUNT 0 (less radix-tree-nodes)
// shows for the stream d loads into, as parseRESP returns it.
func renderXinfo(t *testing.T, d *stream.Dump) []any {
	t.Helper()
	s, err := stream.Load(*d)
	if err != nil {
		t.Fatalf("stream.Load: %v", err)
	}
	entries := []any{}
	for _, e := range s.Range(stream.MinID, stream.MaxID, 0, false) {
		f := []any{}
		for _, b := range e.Fields {
			f = append(f, string(b))
		}
		entries = append(entries, []any{e.ID.String(), f})
	}
	groups := []any{}
	for _, gd := range s.Dump().Groups {
		g := s.Group(gd.Name)
		owner := map[stream.ID]string{}
		consumers := []any{}
		for _, cd := range gd.Consumers {
			pending := []any{}
			for _, id := range cd.Pending {
				owner[id] = cd.Name
				p := g.Pending(id)
				pending = append(pending, []any{id.String(), p.DeliveryTime(), int64(p.DeliveryCount())})
			}
			consumers = append(consumers, []any{"name", cd.Name, "seen-time", cd.SeenTime,
				"pel-count", int64(len(cd.Pending)), "pending", pending})
		}
		pending := []any{}
		for _, p := range gd.Pending {
			pending = append(pending, []any{p.ID.String(), owner[p.ID], p.DeliveryTime, int64(p.DeliveryCount)})
		}
		var entriesRead, lag any
		if er := g.EntriesRead(); er != stream.InvalidEntriesRead {
			entriesRead = er
		}
		if l, ok := s.Lag(g); ok {
			lag = l
		}
		groups = append(groups, []any{"name", gd.Name, "last-delivered-id", g.LastID().String(),
			"entries-read", entriesRead, "lag", lag, "pel-count", int64(len(gd.Pending)),
			"pending", pending, "consumers", consumers})
	}
	return []any{"length", int64(s.Len()), "radix-tree-keys", int64(s.NodeCount()),
		"last-generated-id", s.LastID().String(), "max-deleted-entry-id", s.MaxDeletedID().String(),
		"entries-added", int64(s.EntriesAdded()), "recorded-first-entry-id", s.FirstID().String(),
		"entries", entries, "groups", groups}
}

// emptyToNil makes empty arrays nil, as parseRESP returns them.
func emptyToNil(v any) any {
	a, ok := v.([]any)
	if !ok {
		return v
	}
	if len(a) == 0 {
		return []any(nil)
	}
	out := make([]any, len(a))
	for i, e := range a {
		out[i] = emptyToNil(e)
	}
	return out
}

func checkXinfo(t *testing.T, what string, got, want []any) {
	t.Helper()
	if !reflect.DeepEqual(emptyToNil(got), emptyToNil(want)) {
		g, w := fmt.Sprintf("%#v", got), fmt.Sprintf("%#v", want)
		t.Fatalf("%s: XINFO STREAM FULL differs\n redis %s\n ours  %s", what, g[:min(len(g), 1500)], w[:min(len(w), 1500)])
	}
}

// streamLimits are the node limits the tests run under.
var streamLimits = [][2]int{{4096, 100}, {300, 5}, {0, 300}, {2000, 0}, {100, 2}}

func setStreamLimits(t *testing.T, c *difftest.Conn, l [2]int) {
	t.Helper()
	mustDo(t, c, "+OK\r\n", "CONFIG", "SET", "stream-node-max-bytes", strconv.Itoa(l[0]), "stream-node-max-entries", strconv.Itoa(l[1]))
}

// TestRedisStreamDump builds streams on Redis and checks, with and without
// rdbcompression: Restore(DUMP) shows what XINFO STREAM FULL shows; Dump of
// the decoded value, and of the stream it loads into, is DUMP's payload
// byte for byte; Redis RESTOREs our payloads (v2, and v1 with the derived
// fields) into the same stream.
func TestRedisStreamDump(t *testing.T) {
	c := startDebugRedis(t)
	rng := rand.New(rand.NewPCG(51, 52))
	stats := map[string]int{}
	for li, lim := range streamLimits {
		setStreamLimits(t, c, lim)
		for si := range 8 {
			key := fmt.Sprintf("s%d-%d", li, si)
			h := &redisStream{t: t, c: c, rng: rng, key: key, ms: 1 + rng.Uint64N(1<<40)}
			steps := []int{1, 5, 40, 150, 400, 800, 60, 300}[si]
			for range steps {
				h.step()
			}
			if si == 6 { // an empty stream with history
				h.do("XTRIM", key, "MAXLEN", "0")
			}
			if si == 7 && len(h.ids) > 0 {
				h.do("XSETID", key, fmt.Sprintf("%d-5", h.ms+10), "ENTRIESADDED", "100000", "MAXDELETEDID", h.ids[0])
			}
			want := xinfoFull(t, c, key)
			for _, compression := range []string{"yes", "no"} {
				mustDo(t, c, "+OK\r\n", "CONFIG", "SET", "rdbcompression", compression)
				opts := DefaultEncodeOptions()
				opts.Compress = compression == "yes"
				what := fmt.Sprintf("%s (limits %v, compression %s)", key, lim, compression)
				dump := bulk(t, c.Do("DUMP", key))
				if dump[0] != TypeStreamListpacks2 {
					t.Fatalf("%s: DUMP type %d", what, dump[0])
				}
				v, err := Restore(dump)
				if err != nil {
					t.Fatalf("%s: Restore(DUMP): %v\n %q", what, err, dump)
				}
				checkXinfo(t, what, want, renderXinfo(t, v.Stream))
				if mine := Dump(v, opts); !bytes.Equal(mine, dump) {
					t.Fatalf("%s: Dump(decoded) differs from DUMP\n ours  %q\n redis %q", what, mine, dump)
				}
				s, _ := stream.Load(*v.Stream)
				if mine := Dump(streamValue(s.Dump()), opts); !bytes.Equal(mine, dump) {
					t.Fatalf("%s: Dump(Load(decoded).Dump()) differs from DUMP\n ours  %q\n redis %q", what, mine, dump)
				}
				stats["nodes"] += len(v.Stream.Nodes)
				stats["groups"] += len(v.Stream.Groups)
				for _, g := range v.Stream.Groups {
					stats["pending"] += len(g.Pending)
					stats["consumers"] += len(g.Consumers)
					if g.EntriesRead == stream.InvalidEntriesRead {
						stats["entries-read -1"]++
					}
				}
				for _, n := range v.Stream.Nodes {
					if bytes.Contains(dump, append([]byte{0xc3}, AppendLen(nil, uint64(len(n.Listpack)))...)) {
						stats["compressed listpacks (approx.)"]++
					}
				}

				// Our payload, restored, is the same stream and dumps the same.
				mustDo(t, c, "+OK\r\n", "RESTORE", "r", "0", string(Dump(v, opts)), "REPLACE")
				checkXinfo(t, what+" restored", xinfoFull(t, c, "r"), want)
				if again := bulk(t, c.Do("DUMP", "r")); !bytes.Equal(again, dump) {
					t.Fatalf("%s: DUMP after RESTORE differs", what)
				}

				// The legacy type: Redis derives what it lacks as stream.Load does.
				legacy := *v.Stream
				legacy.Legacy = true
				lp := Dump(&Value{Kind: KindStream, Stream: &legacy}, opts)
				lv, err := Restore(lp)
				if err != nil || lp[0] != TypeStreamListpacks || !lv.Stream.Legacy {
					t.Fatalf("%s: legacy payload: %v", what, err)
				}
				mustDo(t, c, "+OK\r\n", "RESTORE", "r", "0", string(lp), "REPLACE")
				checkXinfo(t, what+" legacy", xinfoFull(t, c, "r"), renderXinfo(t, lv.Stream))
				// Redis writes it back as v2, with the derived fields: what
				// the stream Load builds dumps.
				ls, _ := stream.Load(*lv.Stream)
				if again, mine := bulk(t, c.Do("DUMP", "r")), Dump(streamValue(ls.Dump()), opts); !bytes.Equal(again, mine) {
					t.Fatalf("%s: DUMP after legacy RESTORE differs\n ours  %q\n redis %q", what, mine, again)
				}
			}
		}
	}
	t.Logf("covered: %v", stats)
}

// TestRedisStreamRestoreErrors mutates stream payloads and checks Restore's
// verdict against Redis with sanitize-dump-payload yes: whatever Restore
// accepts, Redis accepts into the same stream; Restore rejects more than
// Redis only for the malformed streams DecodeValue lists (counted).
func TestRedisStreamRestoreErrors(t *testing.T) {
	c := startDebugRedis(t)
	rng := rand.New(rand.NewPCG(53, 54))
	setStreamLimits(t, c, [2]int{200, 4})
	var seeds [][]byte
	for i := range 12 {
		key := fmt.Sprintf("seed%d", i)
		h := &redisStream{t: t, c: c, rng: rng, key: key, ms: 1 + rng.Uint64N(1000)}
		for range 5 + rng.IntN(25) {
			h.step()
		}
		mustDo(t, c, "+OK\r\n", "CONFIG", "SET", "rdbcompression", "no")
		dump := bulk(t, c.Do("DUMP", key))
		seeds = append(seeds, dump)
		if v, err := Restore(dump); err == nil {
			legacy := *v.Stream
			legacy.Legacy = true
			seeds = append(seeds, Dump(&Value{Kind: KindStream, Stream: &legacy}, EncodeOptions{}))
		}
	}
	var accepted, rejected, stricter int
	reasons := map[string]int{}
	for i := range 3000 {
		seed := seeds[rng.IntN(len(seeds))]
		body := slices.Clone(seed[:len(seed)-FooterLen])
		for range 1 + rng.IntN(2) {
			at := 1 + rng.IntN(len(body)-1)
			switch rng.IntN(4) {
			case 0:
				body[at] ^= byte(1 << rng.IntN(8))
			case 1:
				body[at] = byte(rng.IntN(256))
			case 2:
				body[at]++
			default:
				body[at]--
			}
		}
		if rng.IntN(10) == 0 {
			body = body[:1+rng.IntN(len(body))]
		}
		p := AppendFooter(body)
		want, v, err := restoreReply(p)
		got := c.Do("RESTORE", "m", "0", string(p), "REPLACE")
		if got != want {
			if got == "+OK\r\n" && errors.Is(err, ErrBadData) {
				// Redis's checks are laxer (see DecodeValue); do not
				// touch the key beyond deleting it.
				why := laxity(p)
				if why == "" {
					t.Fatalf("mutation %d: Redis accepts, Restore does not, for no known reason:\n payload %q", i, p)
				}
				reasons[why]++
				stricter++
				mustDo(t, c, ":1\r\n", "DEL", "m")
				continue
			}
			t.Fatalf("mutation %d:\n payload %q\n Redis replied %q, Restore says %q", i, p, got, want)
		}
		if err != nil {
			rejected++
			continue
		}
		accepted++
		checkXinfo(t, fmt.Sprintf("mutation %d (%q)", i, p), xinfoFull(t, c, "m"), renderXinfo(t, v.Stream))
	}
	t.Logf("mutations: %d accepted by both, %d rejected by both, %d only by Restore %v", accepted, rejected, stricter, reasons)
	if accepted < 50 || rejected < 500 {
		t.Errorf("mutations not varied enough: %d accepted, %d rejected", accepted, rejected)
	}
}

// TestRedisStreamFile: FileReader reads the streams of a file Redis SAVEs,
// FileWriter rewrites the file byte for byte, and Redis loads a file of
// streams FileWriter writes.
func TestRedisStreamFile(t *testing.T) {
	c := startDebugRedis(t)
	dir := configGet(t, c, "dir")
	rng := rand.New(rand.NewPCG(55, 56))
	want := map[string][]any{}
	for i := range 12 {
		setStreamLimits(t, c, streamLimits[i%len(streamLimits)])
		key := fmt.Sprintf("stream%d", i)
		h := &redisStream{t: t, c: c, rng: rng, key: key, ms: 1 + rng.Uint64N(1<<40)}
		for range 1 + rng.IntN(300) {
			h.step()
		}
		want[key] = xinfoFull(t, c, key)
	}
	mustDo(t, c, "+OK\r\n", "SET", "plain", "string")
	for _, compression := range []string{"yes", "no"} {
		mustDo(t, c, "+OK\r\n", "CONFIG", "SET", "rdbcompression", compression)
		mustDo(t, c, "+OK\r\n", "SAVE")
		file, err := os.ReadFile(filepath.Join(dir, "dump.rdb"))
		if err != nil {
			t.Fatal(err)
		}
		fc, err := readFileContent(t, bytes.NewReader(file))
		if err != nil || len(fc.keys) != len(want)+1 {
			t.Fatalf("reading Redis's file: %d keys, %v", len(fc.keys), err)
		}
		for _, k := range fc.keys {
			if k.key == "plain" {
				continue
			}
			if k.original.Kind != KindStream {
				t.Fatalf("%s: kind %v", k.key, k.original.Kind)
			}
			checkXinfo(t, "file key "+k.key, want[k.key], renderXinfo(t, k.original.Stream))
		}
		opts := DefaultEncodeOptions()
		opts.Compress = compression == "yes"
		if mine := rewriteFile(t, fc, FileWriterOptions{Encode: opts}); !bytes.Equal(mine, file) {
			t.Fatalf("rdbcompression %s: FileWriter's file differs from Redis's (%d bytes, Redis %d)", compression, len(mine), len(file))
		}
	}

	// Our file, loaded by Redis at start-up.
	fdir := t.TempDir()
	var buf bytes.Buffer
	fw, err := NewFileWriter(&buf, FileWriterOptions{Encode: DefaultEncodeOptions()})
	if err != nil {
		t.Fatal(err)
	}
	ours := map[string]*Value{}
	fw.SelectDB(0, 8, 0)
	for i := range 8 {
		s := buildTestStream(rng, []int{0, 1, 30, 500}[i%4], stream.Limits{MaxBytes: int64(100 + rng.IntN(4000)), MaxEntries: int64(rng.IntN(200))})
		v := streamValue(s.Dump())
		if i == 5 {
			v.Stream.Legacy = true
		}
		key := fmt.Sprintf("ours%d", i)
		ours[key] = v
		if err := fw.WriteKey([]byte(key), v, -1, -1, -1); err != nil {
			t.Fatal(err)
		}
	}
	if err := fw.Finish(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fdir, "ours.rdb"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	c = difftest.Dial(t, difftest.StartRedis(t, "--dir", fdir, "--dbfilename", "ours.rdb"))
	mustDo(t, c, ":8\r\n", "DBSIZE")
	for key, v := range ours {
		checkXinfo(t, "loaded "+key, xinfoFull(t, c, key), renderXinfo(t, v.Stream))
		if !v.Stream.Legacy {
			if dump := bulk(t, c.Do("DUMP", key)); !bytes.Equal(dump, Dump(v, DefaultEncodeOptions())) {
				t.Fatalf("loaded %s: DUMP differs from our encoding", key)
			}
		}
	}
}

// laxity names the check, of those DecodeValue documents as stricter than
// Redis's, that the stream payload p fails: a node key that is not its
// first entry's ID, entries out of ID order, entry flags other than
// deleted and same-fields, a node whose live and deleted counts do not
// match its entries' deleted flags, listpack details (see laxListpack),
// or a length that does not match the entries. It returns "" if p fails
// none of them.
func laxity(p []byte) string {
	d, err := readStreamDump(NewReader(p[1:]), p[0], false)
	if err != nil {
		return ""
	}
	var live uint64
	var prev *stream.ID
	for _, n := range d.Nodes {
		el, why := laxListpack(n.Listpack)
		if why != "" || el == nil {
			return why
		}
		at := 0
		next := func() (int64, bool) {
			if at >= len(el) || !el[at].isInt {
				return 0, false
			}
			at++
			return el[at-1].num, true
		}
		count, ok1 := next()
		deleted, ok2 := next()
		nf, ok3 := next()
		if !ok1 || !ok2 || !ok3 || nf < 0 || nf > int64(len(el)) {
			return ""
		}
		at += int(nf) + 1
		live += uint64(count)
		flagged := int64(0)
		for e := int64(0); e < count+deleted; e++ {
			flags, ok1 := next()
			flagged += flags & 1
			msd, ok2 := next()
			seqd, ok3 := next()
			if !ok1 || !ok2 || !ok3 {
				return ""
			}
			if flags&^3 != 0 {
				return "entry flags with unknown bits"
			}
			id := stream.ID{Ms: n.Master.Ms + uint64(msd), Seq: n.Master.Seq + uint64(seqd)}
			if e == 0 && id != n.Master {
				return "node key is not its first entry's ID"
			}
			if prev != nil && id.Compare(*prev) <= 0 {
				return "entries out of order"
			}
			prev = &id
			k := nf
			if flags&2 == 0 {
				if k, ok1 = next(); !ok1 || k < 0 {
					return ""
				}
				at += int(k)
			}
			at += int(k) + 1 // values, lp-count
		}
		if flagged != deleted {
			return "node counters do not match the deleted flags"
		}
	}
	if live != d.Length {
		return "length mismatch"
	}
	return ""
}

// laxListpack walks lp as streamValidateListpackIntegrity does, without
// the header's count, and names what stream.Load, stricter, rejects in
// it: a backlen that decodes right but is not the canonical encoding, or
// a wrong count in the header. It returns nil elements if Redis rejects
// lp too.
func laxListpack(lp []byte) ([]lpEntry, string) {
	size := len(lp)
	if size < lpHeaderSize+1 || int(binary.LittleEndian.Uint32(lp)) != size || lp[size-1] != lpEOF {
		return nil, ""
	}
	var el []lpEntry
	noncanonical := false
	p, last := lpHeaderSize, uint64(size-1)
	for lp[p] != lpEOF {
		lenbytes := lpEncodedSizeBytes(lp[p])
		if lenbytes == 0 || uint64(p)+lenbytes > last {
			return nil, ""
		}
		entrylen := lpEncodedSize(lp[p:])
		bl := backlenSize(entrylen)
		if uint64(p)+entrylen+bl > last {
			return nil, ""
		}
		next := p + int(entrylen+bl)
		if prev, ok := lpDecodeBacklen(lp, next-1); !ok || prev != entrylen {
			return nil, ""
		}
		if !bytes.Equal(lp[next-int(bl):next], appendBacklen(nil, entrylen)) {
			noncanonical = true
		}
		el = append(el, lpGet(lp, p))
		p = next
	}
	switch n := int(binary.LittleEndian.Uint16(lp[4:])); {
	case noncanonical:
		return el, "listpack backlen not in its canonical encoding"
	case n != lpNumeleUnknown && n != len(el):
		return el, "listpack header count wrong"
	}
	return el, ""
}
