package hll

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"testing"
)

// Golden values below were produced by redis-server 7.0.15; the
// differential tests in redis_test.go re-derive them (and much more)
// whenever redis-server is installed.

// bigCountElem has a pattern length of 35 (register 12049): adding it to a
// sparse HyperLogLog forces the promotion to dense (VAL holds up to 32).
const bigCountElem = "e2119568080"

// seqElems returns the elements prefix0 .. prefix(n-1).
func seqElems(prefix string, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = fmt.Appendf(nil, "%s%d", prefix, i)
	}
	return out
}

// randElems returns n random elements of 0 to 24 random bytes; about one
// in ten repeats an earlier one.
func randElems(rng *rand.Rand, n int) [][]byte {
	out := make([][]byte, 0, n)
	for len(out) < n {
		if len(out) > 0 && rng.IntN(10) == 0 {
			out = append(out, out[rng.IntN(len(out))])
			continue
		}
		e := make([]byte, rng.IntN(25))
		for i := range e {
			e[i] = byte(rng.Uint32())
		}
		out = append(out, e)
	}
	return out
}

func sha(v []byte) string {
	s := sha256.Sum256(v)
	return hex.EncodeToString(s[:])
}

// regsOf returns the registers of a valid value.
func regsOf(t testing.TB, v []byte) [numRegisters]uint8 {
	t.Helper()
	var u Union
	if err := u.Merge(v); err != nil {
		t.Fatalf("regsOf: %v", err)
	}
	return u.max
}

// registers returns the registers of a valid x, reading its byte past
// the end.
func (x *value) registers(t testing.TB) [numRegisters]uint8 {
	t.Helper()
	if isDense(x.b) {
		return regsOf(t, x.b)
	}
	var r [numRegisters]uint8
	if !walkSparse(x.b[hdrSize:], x.past, func(first, n int, v uint8) {
		for i := first; i < first+n; i++ {
			r[i] = v
		}
	}) {
		t.Fatal("registers: invalid value")
	}
	return r
}

func TestNewAndCreate(t *testing.T) {
	want := []byte("HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x7f\xff")
	if got := New(); !bytes.Equal(got, want) {
		t.Fatalf("New() = %q, want %q", got, want)
	}
	want[stalePos] = staleBit // PFADD on a missing key invalidates the cache
	if got := Create(DefaultSparseMaxBytes); !bytes.Equal(got, want) {
		t.Fatalf("Create() = %q, want %q", got, want)
	}
	want = append(want[:hdrSize], 0x61, 0x84, 0x80, 0x58, 0xcd, 0x88, 0x45, 0xa0, 0x84, 0x08)
	got := Create(DefaultSparseMaxBytes, []byte("x"), []byte("y"), []byte("z"))
	if !bytes.Equal(got, want) {
		t.Fatalf("Create(x y z) = % x, want % x", got, want)
	}
}

func TestGolden(t *testing.T) {
	g := Create(DefaultSparseMaxBytes, seqElems("e", 1000)...)
	n, g2, updated, err := Count(g)
	if err != nil || n != 1008 || !updated || len(g2) != 1906 {
		t.Fatalf("Count = %d %v %v len %d, want 1008 true <nil> len 1906", n, updated, err, len(g2))
	}
	if got, want := sha(g2), "ab6313e24c05ff993730105e09ef76d5c0c4fcde58406d6a29d1889220a056e4"; got != want {
		t.Errorf("sparse golden sha %s, want %s", got, want)
	}
	h := Create(DefaultSparseMaxBytes, seqElems("e", 100000)...)
	if n, err := CountMany(g2, h); n != 100853 || err != nil {
		t.Errorf("CountMany = %d %v, want 100853", n, err)
	}
	n, h2, _, err := Count(h)
	if n != 100853 || err != nil {
		t.Errorf("Count(dense) = %d %v, want 100853", n, err)
	}
	if got, want := sha(h2), "548dba672576d8a299d51943c2728e21beda0aea57391bd87567dba08eed8e4e"; got != want {
		t.Errorf("dense golden sha %s, want %s", got, want)
	}
}

func TestValidate(t *testing.T) {
	dense := make([]byte, denseSize)
	copy(dense, magic)
	for _, tc := range []struct {
		name string
		v    []byte
		want error
	}{
		{"empty", []byte{}, ErrWrongType},
		{"nil", nil, ErrWrongType},
		{"short", []byte("HYLL\x01"), ErrWrongType},
		{"header only sparse", New()[:hdrSize], nil},
		{"new", New(), nil},
		{"bad magic", append([]byte("HYLX"), New()[4:]...), ErrWrongType},
		{"encoding 2", append([]byte("HYLL\x02"), New()[5:]...), ErrWrongType},
		{"encoding 255", append([]byte("HYLL\xff"), New()[5:]...), ErrWrongType},
		{"dense", dense, nil},
		{"dense short", dense[:denseSize-1], ErrWrongType},
		{"dense long", append(bytes.Clone(dense), 0), ErrWrongType},
		{"corrupt sparse", append(New(), 0x00), nil}, // found later, by the operations
	} {
		if err := Validate(tc.v); err != tc.want {
			t.Errorf("%s: Validate = %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestErrorTexts(t *testing.T) {
	if ErrWrongType.Error() != "WRONGTYPE Key is not a valid HyperLogLog string value." ||
		ErrInvalid.Error() != "INVALIDOBJ Corrupted HLL object detected" {
		t.Fatal("error texts differ from Redis's")
	}
}

// TestSparseMatchesDense checks that the sparse code paths (splits,
// merges, promotions at every size limit) hold the same registers as the
// plain dense ones, and that everything Add builds is valid.
func TestSparseMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, limit := range []int{0, 20, 300, DefaultSparseMaxBytes, 16000} {
		elems := randElems(rng, 4000)
		x := value{b: New()}
		if err := x.toDense(); err != nil {
			t.Fatal(err)
		}
		dense := x.b
		v := New()
		for i := 0; i < len(elems); i += 13 {
			batch := elems[i:min(i+13, len(elems))]
			var c1, c2 bool
			var err error
			v, c1, err = Add(v, limit, batch...)
			if err != nil {
				t.Fatalf("limit %d: Add: %v", limit, err)
			}
			dense, c2, _ = Add(dense, limit, batch...)
			if c1 != c2 {
				t.Fatalf("limit %d: changed %v (sparse) vs %v (dense)", limit, c1, c2)
			}
			if !isDense(v) && len(v) > max(limit, emptyLen) {
				t.Fatalf("limit %d: sparse value of %d bytes", limit, len(v))
			}
			if regsOf(t, v) != regsOf(t, dense) {
				t.Fatalf("limit %d: registers differ after %d elements", limit, i+len(batch))
			}
		}
		var h histogram
		if !isDense(v) && !h.addSparse(v[hdrSize:]) {
			t.Fatalf("limit %d: Add built an invalid sparse value", limit)
		}
	}
}

func TestPromoteOnBigValue(t *testing.T) {
	v := Create(DefaultSparseMaxBytes, []byte("a"), []byte("b"))
	v, changed, err := Add(v, DefaultSparseMaxBytes, []byte(bigCountElem))
	if err != nil || !changed || !isDense(v) {
		t.Fatalf("Add(%s) = changed %v, err %v, dense %v", bigCountElem, changed, err, isDense(v))
	}
	if r := denseGet(v[hdrSize:], 12049); r != 35 {
		t.Fatalf("register 12049 = %d, want 35", r)
	}
}

func TestCountCache(t *testing.T) {
	v := Create(DefaultSparseMaxBytes, seqElems("k", 50)...)
	n, nv, updated, err := Count(v)
	if err != nil || !updated || n != 50 {
		t.Fatalf("Count = %d %v %v", n, updated, err)
	}
	if v[stalePos]&staleBit == 0 {
		t.Fatal("Count modified its argument")
	}
	n2, nv2, updated, err := Count(nv)
	if err != nil || updated || n2 != n || &nv2[0] != &nv[0] {
		t.Fatalf("cached Count = %d %v %v", n2, updated, err)
	}
	// Adding nothing new keeps the cache; adding something stales it.
	if nv, changed, _ := Add(nv, DefaultSparseMaxBytes, []byte("k1")); changed || nv[stalePos]&staleBit != 0 {
		t.Fatal("a no-op Add changed the value")
	}
	if nv, changed, _ := Add(nv, DefaultSparseMaxBytes, []byte("new")); !changed || nv[stalePos]&staleBit == 0 {
		t.Fatal("Add did not invalidate the cache")
	}
}

func TestEstimatorOverflow(t *testing.T) {
	// All registers 63 (impossible from real elements): Redis's llroundl
	// overflows and it replies -9223372036854775808; the cache stays stale.
	v := make([]byte, denseSize)
	copy(v, magic)
	invalidate(v)
	for i := hdrSize; i < len(v); i++ {
		v[i] = 0xff
	}
	n, nv, updated, err := Count(v)
	if err != nil || n != 1<<63 || !updated || nv[stalePos]&staleBit == 0 {
		t.Fatalf("Count = %d %v %v", n, updated, err)
	}
}

func TestAccuracy(t *testing.T) {
	for _, n := range []int{10, 1000, 50000} {
		v := Create(DefaultSparseMaxBytes, seqElems("acc", n)...)
		got, _, _, err := Count(v)
		if err != nil {
			t.Fatal(err)
		}
		if d := float64(got)/float64(n) - 1; d > 0.02 || d < -0.02 {
			t.Errorf("Count of %d elements = %d", n, got)
		}
	}
}

func TestMergeKeepsSparse(t *testing.T) {
	a := Create(DefaultSparseMaxBytes, seqElems("a", 20)...)
	b := Create(DefaultSparseMaxBytes, seqElems("b", 20)...)
	m, err := Merge(bytes.Clone(a), DefaultSparseMaxBytes, b)
	if err != nil || isDense(m) {
		t.Fatalf("Merge: err %v dense %v", err, isDense(m))
	}
	if n, _, _, _ := Count(m); n != 40 {
		t.Fatalf("Count(merge) = %d, want 40", n)
	}
	d := Create(DefaultSparseMaxBytes, seqElems("d", 5000)...)
	m, err = Merge(New(), DefaultSparseMaxBytes, a, d)
	if err != nil || !isDense(m) || regsOf(t, m) != regsOf(t, Create(DefaultSparseMaxBytes, append(seqElems("a", 20), seqElems("d", 5000)...)...)) {
		t.Fatalf("Merge with a dense source: err %v dense %v", err, isDense(m))
	}
	if _, err := Merge(New(), 3000, a, []byte("nope")); err != ErrWrongType {
		t.Fatalf("Merge with a bad source: %v", err)
	}
}

// FuzzOps runs every operation on arbitrary bytes, taken both as a whole
// value and as the opcodes of a sparse value: none may panic, values the
// operations accept stay acceptable, and on a sparse value that is valid
// Add must set the same registers as on its dense conversion.
func FuzzOps(f *testing.F) {
	f.Add(New(), []byte("x"))
	f.Add(Create(DefaultSparseMaxBytes, seqElems("s", 300)...), []byte("y"))
	f.Add(Create(DefaultSparseMaxBytes, seqElems("d", 3000)...), []byte(bigCountElem))
	f.Add([]byte{0x7f}, []byte("z"))                        // cut XZERO
	f.Add([]byte{0x40, 0xfe, 0x7f}, []byte("z"))            // cut XZERO, 16384 registers
	f.Add([]byte{0x7f, 0xff, 0x83}, []byte(""))             // VAL past the end
	f.Add([]byte{0x00, 0x7f, 0xfe, 0xff}, []byte(""))       // runs past the end
	f.Add([]byte{0x80, 0x84, 0x3f, 0x7f, 0x00}, []byte("")) // unusual but valid
	f.Add([]byte("HYLL\x02"), []byte("a"))
	f.Fuzz(func(t *testing.T, data, elem []byte) {
		sparse := append(New()[:hdrSize], data...)
		invalidate(sparse)
		for _, v := range [][]byte{data, sparse} {
			checkOps(t, v, [][]byte{elem, []byte("a"), []byte("b")})
		}
	})
}

// cutXZero reports whether the sparse opcodes p end with an XZERO whose
// second byte is missing.
func cutXZero(p []byte) bool {
	for i := 0; i < len(p); {
		switch {
		case isXZero(p[i]):
			if i+1 >= len(p) {
				return true
			}
			i += 2
		default:
			i++
		}
	}
	return false
}

// checkOps runs every operation on v (see FuzzOps).
func checkOps(t *testing.T, v []byte, elems [][]byte) {
	_ = Validate(v)
	nv, _, err := Add(bytes.Clone(v), 40, elems...)
	if err == nil && Validate(nv) != nil {
		t.Fatalf("Add returned an invalid value")
	}
	var h histogram
	// A value whose last XZERO is cut by its end is left out: Redis reads
	// that XZERO's low byte past the end, and a set there can turn the
	// value into a corrupt one, in Redis as here (see sparse.go).
	if Validate(v) == nil && !isDense(v) && h.addSparse(v[hdrSize:]) && !cutXZero(v[hdrSize:]) {
		x, d := value{b: bytes.Clone(v)}, value{b: bytes.Clone(v)}
		if err := d.toDense(); err != nil {
			t.Fatalf("toDense of a valid sparse value: %v", err)
		}
		for _, e := range elems {
			index, count := patLen(e)
			c1, err := x.set(index, count, 40)
			c2, _ := d.set(index, count, 40)
			if err != nil || c1 != c2 {
				t.Fatalf("set on a valid sparse value: %v, changed %v, dense %v", err, c1, c2)
			}
		}
		if x.registers(t) != d.registers(t) {
			t.Fatalf("set on a valid sparse value: registers differ from dense")
		}
	}
	_, _, _, _ = Count(v)
	_, _ = CountMany(v, New(), v)
	if m, err := Merge(New(), 30, v, v); err == nil && Validate(m) != nil {
		t.Fatalf("Merge returned an invalid value")
	}
	_, _ = Merge(bytes.Clone(v), 30, New())
}

func BenchmarkAdd(b *testing.B) {
	elems := seqElems("bench", 1<<16)
	for _, bc := range []struct {
		name string
		v    []byte
	}{
		{"sparse", Create(DefaultSparseMaxBytes, seqElems("base", 500)...)},
		{"dense", Create(DefaultSparseMaxBytes, seqElems("base", 20000)...)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			sparse := !isDense(bc.v)
			v := bytes.Clone(bc.v)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if sparse && i%1024 == 0 {
					v = append(v[:0], bc.v...) // stay in the sparse range
				}
				v, _, _ = Add(v, DefaultSparseMaxBytes, elems[i%len(elems)])
			}
		})
	}
}

func BenchmarkCount(b *testing.B) {
	for _, bc := range []struct {
		name string
		v    []byte
	}{
		{"sparse", Create(DefaultSparseMaxBytes, seqElems("base", 1000)...)},
		{"dense", Create(DefaultSparseMaxBytes, seqElems("base", 100000)...)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Count(bc.v) // the cache is stale: a full estimate each time
			}
		})
	}
	b.Run("many", func(b *testing.B) {
		x := Create(DefaultSparseMaxBytes, seqElems("x", 1000)...)
		y := Create(DefaultSparseMaxBytes, seqElems("y", 100000)...)
		b.ReportAllocs()
		for b.Loop() {
			CountMany(x, y)
		}
	})
}
