package hll

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/difftest"
)

// Differential tests: the same operations on a real redis-server 7.0 and
// on this package, comparing replies and the stored bytes (GET) exactly.
// They are skipped, loudly, when redis-server is not installed.

// oracle is a connection to a redis-server started for one test.
type oracle struct {
	t *testing.T
	c *difftest.Conn
}

func newOracle(t *testing.T) *oracle {
	addr := difftest.StartRedis(t)
	return &oracle{t: t, c: difftest.Dial(t, addr)}
}

func (o *oracle) do(args ...string) string {
	o.t.Helper()
	return o.c.Do(args...)
}

// doBytes sends a command whose trailing arguments are byte slices.
func (o *oracle) doBytes(args []string, rest ...[]byte) string {
	o.t.Helper()
	for _, r := range rest {
		args = append(args, string(r))
	}
	return o.c.Do(args...)
}

func (o *oracle) setLimit(maxSparse int) {
	o.t.Helper()
	if r := o.do("CONFIG", "SET", "hll-sparse-max-bytes", strconv.Itoa(maxSparse)); r != "+OK\r\n" {
		o.t.Fatalf("CONFIG SET: %q", r)
	}
}

func (o *oracle) set(key string, v []byte) {
	o.t.Helper()
	if r := o.do("SET", key, string(v)); r != "+OK\r\n" {
		o.t.Fatalf("SET: %q", r)
	}
}

// get returns the value of key, nil when it does not exist.
func (o *oracle) get(key string) []byte {
	o.t.Helper()
	r := o.do("GET", key)
	if r == "$-1\r\n" {
		return nil
	}
	head, body, ok := strings.Cut(r, "\r\n")
	n, err := strconv.Atoi(strings.TrimPrefix(head, "$"))
	if !ok || !strings.HasPrefix(head, "$") || err != nil || len(body) != n+2 {
		o.t.Fatalf("GET %s: unexpected reply %.80q", key, r)
	}
	return []byte(body[:n])
}

// expectValue fails unless key holds want.
func (o *oracle) expectValue(what, key string, want []byte) {
	o.t.Helper()
	got := o.get(key)
	if !bytes.Equal(got, want) {
		o.t.Fatalf("%s: Redis holds %s, we hold %s", what, describe(got), describe(want))
	}
}

// describe summarizes a value for failure messages.
func describe(v []byte) string {
	if v == nil {
		return "<missing>"
	}
	if len(v) > 64 {
		return fmt.Sprintf("%d bytes %x... sha %s", len(v), v[:32], sha(v)[:16])
	}
	return fmt.Sprintf("%q", v)
}

// Replies in raw RESP, as Redis would send them for our results.
func intReply(n int64) string   { return ":" + strconv.FormatInt(n, 10) + "\r\n" }
func errReply(err error) string { return "-" + err.Error() + "\r\n" }
func boolReply(b bool) string {
	if b {
		return intReply(1)
	}
	return intReply(0)
}

// pfadd runs PFADD on both sides; v == nil is a missing key. It checks the
// reply and the stored bytes and returns our new value.
func (o *oracle) pfadd(key string, v []byte, maxSparse int, elems [][]byte) []byte {
	o.t.Helper()
	got := o.doBytes([]string{"PFADD", key}, elems...)
	var want string
	if v == nil {
		v, want = Create(maxSparse, elems...), intReply(1)
	} else {
		var changed bool
		var err error
		v, changed, err = Add(v, maxSparse, elems...)
		want = boolReply(changed)
		if err != nil {
			want = errReply(err)
		}
	}
	if got != want {
		o.t.Fatalf("PFADD of %d elements: Redis %q, we %q", len(elems), got, want)
	}
	o.expectValue("after PFADD", key, v)
	return v
}

// pfcount runs PFCOUNT key on both sides and checks the reply and the bytes
// (PFCOUNT writes the cache); it returns our new value.
func (o *oracle) pfcount(key string, v []byte) []byte {
	o.t.Helper()
	got := o.do("PFCOUNT", key)
	n, nv, updated, err := Count(v)
	want := intReply(int64(n))
	if err != nil {
		want = errReply(err)
	}
	if got != want {
		o.t.Fatalf("PFCOUNT: Redis %q, we %q", got, want)
	}
	if !updated && !bytes.Equal(nv, v) {
		o.t.Fatal("Count changed the value but did not report it")
	}
	o.expectValue("after PFCOUNT", key, nv)
	return nv
}

func TestAddAgainstRedis(t *testing.T) {
	o := newOracle(t)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name             string
		n, batch, sparse int
	}{
		{"tiny", 3, 1, 3000},
		{"small", 150, 7, 3000},
		{"crosses-limit", 2500, 40, 3000},
		{"limit-200", 400, 9, 200},
		{"limit-0", 30, 3, 0},
		{"limit-16000", 6000, 300, 16000},
		{"large", 100000, 12500, 3000},
		{"one-command", 20000, 20000, 3000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o.t = t
			o.setLimit(tc.sparse)
			key := "add:" + tc.name
			elems := randElems(rng, tc.n)
			var v []byte
			for i := 0; i < len(elems); i += tc.batch {
				v = o.pfadd(key, v, tc.sparse, elems[i:min(i+tc.batch, len(elems))])
			}
			v = o.pfcount(key, v)                                       // computes and stores the cache
			v = o.pfcount(key, v)                                       // cache hit
			v = o.pfadd(key, v, tc.sparse, elems[:min(50, len(elems))]) // nothing new: 0, cache kept
			v = o.pfadd(key, v, tc.sparse, [][]byte{[]byte("fresh"), []byte(bigCountElem)})
			o.pfcount(key, v)
			o.pfadd(key+":empty", nil, tc.sparse, nil) // PFADD key: creates, replies 1
		})
	}
	t.Run("seq", func(t *testing.T) { // the golden sets of hll_test.go
		o.t = t
		o.setLimit(DefaultSparseMaxBytes)
		v := o.pfadd("seq", nil, DefaultSparseMaxBytes, seqElems("e", 1000))
		o.pfcount("seq", v)
	})
}

// TestCountAndMergeAgainstRedis runs PFCOUNT over several keys and PFMERGE
// over mixes of sparse and dense values, missing keys and destinations,
// with size limits that keep the destination sparse or make it grow out of
// the sparse encoding while merging.
func TestCountAndMergeAgainstRedis(t *testing.T) {
	o := newOracle(t)
	o.setLimit(DefaultSparseMaxBytes)
	rng := rand.New(rand.NewPCG(3, 4))
	names := []string{"empty", "s5", "s60", "s700", "s1400", "d4000", "d100k", "big"}
	sizes := []int{0, 5, 60, 700, 1400, 4000, 100000, 3}
	vals := map[string][]byte{}
	for i, name := range names {
		elems := randElems(rng, sizes[i])
		if name == "big" {
			elems = append(elems, []byte(bigCountElem))
		}
		vals[name] = o.pfadd(name, nil, DefaultSparseMaxBytes, elems)
		if i%2 == 1 { // half with a valid cache
			vals[name] = o.pfcount(name, vals[name])
		}
	}
	check := func(what, got, want string) {
		t.Helper()
		if got != want {
			t.Fatalf("%s: Redis %q, we %q", what, got, want)
		}
	}
	limits := []int{3000, 40, 16000, 0}
	step := 0
	for i, a := range names {
		for _, b := range names[i:] {
			srcs := [][]byte{vals[a], vals[b]}
			n, err := CountMany(srcs...)
			check("PFCOUNT "+a+" "+b, o.do("PFCOUNT", a, b), intReply(int64(n)))
			if err != nil {
				t.Fatal(err)
			}
			check("PFCOUNT with a missing key", o.do("PFCOUNT", a, "missing", b), intReply(int64(n)))

			limit := limits[step%len(limits)]
			step++
			o.setLimit(limit)
			// Into a missing destination.
			m, err := Merge(New(), limit, srcs...)
			o.do("DEL", "dst")
			check("PFMERGE dst "+a+" "+b, o.do("PFMERGE", "dst", a, b), "+OK\r\n")
			if err != nil {
				t.Fatal(err)
			}
			o.expectValue(fmt.Sprintf("PFMERGE dst %s %s (limit %d)", a, b, limit), "dst", m)
			o.pfcount("dst", m)
			// Into an existing destination, a copy of a third value.
			c := names[step%len(names)]
			o.set("dst", vals[c])
			m, err = Merge(bytes.Clone(vals[c]), limit, vals[a], vals[b])
			check("PFMERGE "+c+" "+a+" "+b, o.do("PFMERGE", "dst", a, b), "+OK\r\n")
			if err != nil {
				t.Fatal(err)
			}
			o.expectValue(fmt.Sprintf("PFMERGE %s(dst) %s %s (limit %d)", c, a, b, limit), "dst", m)
		}
	}
	o.setLimit(DefaultSparseMaxBytes)
	n, _ := CountMany(vals["s5"], vals["d4000"], vals["s700"])
	check("PFCOUNT of three", o.do("PFCOUNT", "s5", "d4000", "s700"), intReply(int64(n)))
	m, _ := Merge(New(), DefaultSparseMaxBytes)
	o.do("DEL", "dst")
	check("PFMERGE dst", o.do("PFMERGE", "dst"), "+OK\r\n")
	o.expectValue("PFMERGE with no source", "dst", m)
}

// corruptValues returns hand-made values that are not valid HyperLogLogs,
// or valid ones in unusual shapes.
func corruptValues() map[string][]byte {
	hdr := func(enc byte, stale bool) []byte {
		h := []byte("HYLL\x00\x00\x00\x00\x07\x00\x00\x00\x00\x00\x00\x00")
		h[encodingPos] = enc
		if stale {
			invalidate(h)
		}
		return h
	}
	sparse := func(stale bool, ops ...byte) []byte { return append(hdr(encSparse, stale), ops...) }
	dense := func(fill byte) []byte {
		return append(hdr(encDense, true), bytes.Repeat([]byte{fill}, denseBytes)...)
	}
	return map[string][]byte{
		"empty string":        {},
		"short":               []byte("HYLL"),
		"bad magic":           append([]byte("hyll"), New()[4:]...),
		"encoding 2":          append(hdr(2, true), 0x7f, 0xff),
		"dense truncated":     dense(0)[:denseSize-1],
		"dense too long":      append(dense(0), 0),
		"dense all 63":        dense(0xff),
		"dense all 51":        mustDenseAll(51),
		"dense all 33":        mustDenseAll(33),
		"header only":         sparse(true),
		"header only cached":  sparse(false),
		"too few registers":   sparse(true, 0x7f, 0xfe),
		"too many registers":  sparse(true, 0x7f, 0xff, 0x00),
		"too many, cached":    sparse(false, 0x7f, 0xff, 0x00),
		"VAL past the end":    sparse(true, 0x7f, 0xfe, 0x81),
		"VAL after the end":   sparse(true, 0x7f, 0xff, 0x80),
		"cut XZERO":           sparse(true, 0x7f),
		"cut XZERO, 16384":    sparse(true, 0x40, 0xfe, 0x7f),
		"XZERO cut after VAL": sparse(true, 0x80, 0x7f),
		"zero runs":           append(sparse(true), bytes.Repeat([]byte{0x3f}, 256)...),
		"unmerged VALs":       append(sparse(true, 0x80, 0x80, 0x84, 0x84, 0x83), append(bytes.Repeat([]byte{0x3f}, 255), 0x3a)...),
	}
}

// mustDenseAll returns a dense value with every register set to r.
func mustDenseAll(r uint8) []byte {
	v := make([]byte, denseSize)
	copy(v, magic)
	invalidate(v)
	for i := range numRegisters {
		denseSet(v[hdrSize:], i, r)
	}
	return v
}

// randomSparse returns a sparse value of random opcodes covering about
// 16384 registers: exactly (a valid, usually non-canonical value) or not,
// sometimes ending with an XZERO cut in the middle.
func randomSparse(rng *rand.Rand) []byte {
	v := append([]byte(nil), New()[:hdrSize]...)
	if rng.IntN(4) > 0 {
		invalidate(v)
	}
	target := numRegisters + []int{0, 0, 0, -1, 1, -100, 7}[rng.IntN(7)]
	var cut byte // a final XZERO cut by the end, covering 256*h+1 registers
	if rng.IntN(4) == 0 {
		h := 1 + rng.IntN(63)
		cut, target = byte(h)|sparseXZeroBit, target-(256*h+1)
	}
	for n := 0; n < target; {
		left := target - n
		switch k := rng.IntN(10); {
		case k < 5:
			l := 1 + rng.IntN(min(4, left))
			v = append(v, valOp(uint8(1+rng.IntN(sparseValMax)), l))
			n += l
		case k < 8:
			l := 1 + rng.IntN(min(sparseZeroLen, left))
			v = append(v, byte(l-1))
			n += l
		default:
			l := 1 + rng.IntN(min(2000, left))
			v = append(v, byte((l-1)>>8)|sparseXZeroBit, byte(l-1))
			n += l
		}
	}
	if cut != 0 {
		v = append(v, cut)
	}
	return v
}

// TestCorruptAgainstRedis runs every command on invalid and unusual values
// SET on Redis and compares replies and resulting bytes.
func TestCorruptAgainstRedis(t *testing.T) {
	o := newOracle(t)
	rng := rand.New(rand.NewPCG(5, 6))
	type named struct {
		name string
		v    []byte
	}
	var values []named
	for name, v := range corruptValues() {
		values = append(values, named{name, v})
	}
	for i := range 400 {
		values = append(values, named{fmt.Sprintf("random sparse %d", i), randomSparse(rng)})
	}
	small := Create(DefaultSparseMaxBytes, seqElems("small", 10)...)
	for i, tv := range values {
		limit := []int{3000, 3000, 50, 16000}[i%4]
		t.Run(tv.name, func(t *testing.T) {
			o.t = t
			o.setLimit(limit)
			elems := randElems(rng, []int{1, 3, 20, 200}[i%4])
			o.set("k", tv.v)
			o.pfadd("k", bytes.Clone(tv.v), limit, elems)

			o.set("k", tv.v)
			o.pfcount("k", tv.v)

			o.set("k", tv.v)
			o.set("s", small)
			n, err := CountMany(tv.v, small)
			want := intReply(int64(n))
			if err != nil {
				want = errReply(err)
			}
			if got := o.do("PFCOUNT", "k", "s"); got != want {
				t.Fatalf("PFCOUNT k s: Redis %q, we %q", got, want)
			}

			for _, dst := range []string{"k", "d"} { // as destination, as source
				o.set("k", tv.v)
				o.do("DEL", "d")
				var m []byte
				if dst == "k" {
					m, err = Merge(bytes.Clone(tv.v), limit, small)
				} else {
					m, err = Merge(New(), limit, tv.v, small)
				}
				want := "+OK\r\n"
				if err != nil {
					want = errReply(err)
					if dst == "k" {
						m = tv.v
					} else {
						m = nil
					}
				}
				if got := o.do("PFMERGE", dst, "k", "s"); got != want {
					t.Fatalf("PFMERGE %s k s: Redis %q, we %q", dst, got, want)
				}
				o.expectValue("after PFMERGE "+dst, dst, m)
			}
		})
	}
}
