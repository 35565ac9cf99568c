package stream

import (
	"bytes"
	"encoding/hex"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestListpackEncoding checks encodings against bytes Redis writes.
func TestListpackEncoding(t *testing.T) {
	for _, tc := range []struct {
		str  string // appended as a string
		want string // hex of the element, backlen included
	}{
		{"0", "0001"},
		{"127", "7f01"},
		{"128", "c08002"},
		{"-1", "dfff02"},
		{"-4096", "d00002"},
		{"4095", "cfff02"},
		{"4096", "f1001003"},
		{"-32768", "f1008003"},
		{"32768", "f200800004"},
		{"-8388609", "f3ffff7fff05"},
		{"2147483648", "f4000000800000000009"},
		{"-9223372036854775808", "f4000000000000008009"},
		{"-0", "822d3003"},
		{"007", "8330303704"},
		{"9223372036854775808", "93" + hex.EncodeToString([]byte("9223372036854775808")) + "14"},
		{"", "8001"},
		{"abc", "8361626304"},
	} {
		w := newLPWriter(0)
		w.str([]byte(tc.str))
		got := hex.EncodeToString(w.b[lpHeaderSize:])
		if got != tc.want {
			t.Errorf("element %q = %s, want %s", tc.str, got, tc.want)
		}
		if n := len(w.b) - lpHeaderSize; n != lpStrSize([]byte(tc.str)) {
			t.Errorf("lpStrSize(%q) = %d, encoded %d", tc.str, lpStrSize([]byte(tc.str)), n)
		}
	}
	// An empty listpack, and one holding 1 and "a".
	if got := hex.EncodeToString(newLPWriter(0).bytes()); got != "0700000000"+"00ff" {
		t.Errorf("empty listpack = %s", got)
	}
	w := newLPWriter(0)
	w.int(1)
	w.str([]byte("a"))
	if got := hex.EncodeToString(w.bytes()); got != "0c00000002000101816102ff" {
		t.Errorf("listpack [1 a] = %s", got)
	}
}

// TestListpackSizes checks, at every boundary of the encodings and
// backlens, that the computed sizes are the encoded ones and that elements
// decode back.
func TestListpackSizes(t *testing.T) {
	var ints []int64
	for _, b := range []int64{0, 127, 4095, 4096, 32767, 32768, 8388607, 8388608, math.MaxInt32, math.MaxInt32 + 1, math.MaxInt64} {
		ints = append(ints, b-1, b, b+1, -b-1, -b, -b+1)
	}
	ints = append(ints, math.MinInt64)
	var strs [][]byte
	for _, n := range []int{0, 1, 63, 64, 65, 125, 126, 4095, 4096, 4097, 16377, 16378, 70000} {
		strs = append(strs, bytes.Repeat([]byte{'x'}, n))
	}
	w := newLPWriter(0)
	size := lpEmptySize
	for _, v := range ints {
		before := len(w.b)
		w.int(v)
		if got := len(w.b) - before; got != lpIntSize(v) {
			t.Errorf("lpIntSize(%d) = %d, encoded %d", v, lpIntSize(v), got)
		}
		size += lpIntSize(v)
	}
	for _, s := range strs {
		before := len(w.b)
		w.str(s)
		if got := len(w.b) - before; got != lpStrSize(s) {
			t.Errorf("lpStrSize(%d bytes) = %d, encoded %d", len(s), lpStrSize(s), got)
		}
		size += lpStrSize(s)
	}
	lp := w.bytes()
	if len(lp) != size {
		t.Fatalf("listpack of %d bytes, sizes add up to %d", len(lp), size)
	}
	el, ok := lpDecode(lp)
	if !ok || len(el) != len(ints)+len(strs) {
		t.Fatalf("lpDecode: %v, %d elements", ok, len(el))
	}
	for i, v := range ints {
		if el[i].str != nil || el[i].i != v {
			t.Errorf("element %d = %+v, want %d", i, el[i], v)
		}
	}
	for i, s := range strs {
		if e := el[len(ints)+i]; !bytes.Equal(e.bytes(), s) {
			t.Errorf("string element %d of %d bytes differs", i, len(e.bytes()))
		}
	}
	// Backlens beyond 3 bytes.
	for _, l := range []int{268435454, 268435455} {
		w := newLPWriter(0)
		w.backlen(l)
		if len(w.b)-lpHeaderSize != lpBacklenSize(l) {
			t.Errorf("backlen(%d) is %d bytes, lpBacklenSize says %d", l, len(w.b)-lpHeaderSize, lpBacklenSize(l))
		}
	}
}

// TestNodeListpack checks that a node's computed size is its listpack's,
// through appends, deletions and counters growing past one byte, and that
// the listpack decodes back to the same node.
func TestNodeListpack(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	s := New()
	lim := Limits{MaxBytes: 0, MaxEntries: 5000}
	for i := range 3000 {
		fv := [][]byte{[]byte("f"), []byte(strconv.Itoa(r.IntN(100000)))}
		if r.IntN(3) == 0 {
			fv = append(fv, []byte(strconv.Itoa(r.IntN(50))), bytes.Repeat([]byte{'v'}, r.IntN(200)))
		}
		id := ID{uint64(i / 7), uint64(r.IntN(3))}
		if id.Compare(s.LastID()) <= 0 {
			id, _ = s.LastID().Incr()
		}
		if _, err := s.Add(AddID{ID: id}, 0, fv, lim); err != nil {
			t.Fatal(err)
		}
		if r.IntN(3) == 0 {
			s.Delete(s.Range(MinID, MaxID, 0, false)[r.IntN(int(s.Len()))].ID)
		}
		if i%500 == 499 {
			for _, n := range s.nodes {
				lp := n.listpack()
				if len(lp) != n.size() {
					t.Fatalf("node of %d entries: size %d, listpack %d bytes", n.count(), n.size(), len(lp))
				}
				m, err := decodeNode(n.master, lp)
				if err != nil {
					t.Fatal(err)
				}
				if m.size() != n.size() || !bytes.Equal(m.listpack(), lp) {
					t.Fatal("decoded node differs")
				}
			}
		}
	}
	if n := s.nodes[0]; n.live < 128 || n.deleted < 128 {
		t.Errorf("counters %d and %d did not outgrow one byte", n.live, n.deleted)
	}
}
