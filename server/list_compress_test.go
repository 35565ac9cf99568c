package server

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/difftest"
)

// encBulk and encArray encode what a RESP2 server replies for a string
// and for an array of strings.
func encBulk(s string) string { return "$" + strconv.Itoa(len(s)) + "\r\n" + s + "\r\n" }

func encArray(elems []string) string {
	var b strings.Builder
	b.WriteString("*" + strconv.Itoa(len(elems)) + "\r\n")
	for _, e := range elems {
		b.WriteString(encBulk(e))
	}
	return b.String()
}

// TestListCompressDepth: with list-compress-depth 1 a list of 10,000
// compressible elements takes clearly less memory than the same list
// made with depth 0, a list keeps the depth it was created with, DEBUG
// OBJECT shows the quicklist's statistics, reads and edits give the same
// replies on both lists, and DUMP encodes both into the same bytes.
func TestListCompressDepth(t *testing.T) {
	_, addr := startServer(t, "--enable-debug-command", "yes")
	c := difftest.Dial(t, addr)
	do := func(args ...string) string {
		t.Helper()
		return c.Do(args...)
	}
	var model []string
	for i := range 10_000 {
		model = append(model, fmt.Sprintf("element:%05d:%s", i, strings.Repeat("payload-", 1+i%4)))
	}
	fill := func(key string) {
		var raw []byte
		n := 0
		for i := 0; i < len(model); i += 500 {
			raw = append(raw, difftest.Encode(append([]string{"RPUSH", key}, model[i:i+500]...)...)...)
			n++
		}
		c.Send(raw)
		for range n {
			c.Read()
		}
	}
	fill("plain")
	if r := do("CONFIG", "SET", "list-compress-depth", "1"); r != "+OK\r\n" {
		t.Fatalf("CONFIG SET: %q", r)
	}
	fill("packed")
	if r := do("CONFIG", "GET", "list-compress-depth"); r != encArray([]string{"list-compress-depth", "1"}) {
		t.Fatalf("CONFIG GET: %q", r)
	}

	usage := func(key string) int {
		t.Helper()
		r := do("MEMORY", "USAGE", key)
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(r, ":"), "\r\n"))
		if err != nil {
			t.Fatalf("MEMORY USAGE %s: %q", key, r)
		}
		return n
	}
	plainMem, packedMem := usage("plain"), usage("packed")
	t.Logf("MEMORY USAGE: depth 0 %d bytes, depth 1 %d bytes", plainMem, packedMem)
	if packedMem*2 > plainMem {
		t.Errorf("MEMORY USAGE: depth 1 %d bytes, depth 0 %d: not clearly less", packedMem, plainMem)
	}

	debugRE := regexp.MustCompile(` ql_nodes:(\d+) ql_avg_node:(\d+\.\d\d) ql_listpack_max:(-?\d+) ql_compressed:([01]) ql_uncompressed_size:(\d+)\r\n$`)
	debug := func(key string) []string {
		t.Helper()
		r := do("DEBUG", "OBJECT", key)
		m := debugRE.FindStringSubmatch(r)
		if !strings.HasPrefix(r, "+Value at:") || !strings.Contains(r, " encoding:quicklist ") || m == nil {
			t.Fatalf("DEBUG OBJECT %s: %q", key, r)
		}
		return m[1:]
	}
	dp, dq := debug("plain"), debug("packed")
	if dp[3] != "0" || dq[3] != "1" {
		t.Errorf("ql_compressed: depth 0 %s, depth 1 %s", dp[3], dq[3])
	}
	// Same contents, same fill: the same nodes, of the same raw sizes.
	if dp[0] != dq[0] || dp[4] != dq[4] || dp[2] != "-2" || dq[2] != "-2" {
		t.Errorf("DEBUG OBJECT: depth 0 %q, depth 1 %q", dp, dq)
	}
	nodes, _ := strconv.Atoi(dq[0])
	avg, _ := strconv.ParseFloat(dq[1], 64)
	if nodes < 10 || fmt.Sprintf("%.2f", float64(len(model))/float64(nodes)) != dq[1] || avg <= 0 {
		t.Errorf("ql_nodes %s, ql_avg_node %s for %d elements", dq[0], dq[1], len(model))
	}
	if r := do("DEBUG", "OBJECT", "nokey"); !strings.HasPrefix(r, "-ERR no such key") {
		t.Errorf("DEBUG OBJECT nokey: %q", r)
	}
	do("SET", "str", "x")
	if r := do("DEBUG", "OBJECT", "str"); strings.Contains(r, "ql_") {
		t.Errorf("DEBUG OBJECT of a string: %q", r)
	}

	// The same reads and edits on both lists, checked against the model.
	same := func(args ...string) string {
		t.Helper()
		a := do(append([]string{args[0], "plain"}, args[1:]...)...)
		b := do(append([]string{args[0], "packed"}, args[1:]...)...)
		if a != b {
			t.Fatalf("%q: depth 0 %q, depth 1 %q", args, a, b)
		}
		return a
	}
	rng := rand.New(rand.NewPCG(1, 2))
	idx := func() int { return rng.IntN(len(model)) }
	for step := range 600 {
		switch rng.IntN(6) {
		case 0:
			i := idx()
			if r := same("LINDEX", strconv.Itoa(i)); r != encBulk(model[i]) {
				t.Fatalf("LINDEX %d: %q, want %q", i, r, model[i])
			}
			if r := same("LINDEX", strconv.Itoa(i-len(model))); r != encBulk(model[i]) {
				t.Fatalf("LINDEX %d: %q", i-len(model), r)
			}
		case 1:
			i := idx()
			j := min(i+rng.IntN(300), len(model)-1)
			if r := same("LRANGE", strconv.Itoa(i), strconv.Itoa(j)); r != encArray(model[i:j+1]) {
				t.Fatalf("LRANGE %d %d differs", i, j)
			}
		case 2:
			i := idx()
			v := fmt.Sprintf("set:%d:%s", step, strings.Repeat("z", rng.IntN(100)))
			if r := same("LSET", strconv.Itoa(i), v); r != "+OK\r\n" {
				t.Fatalf("LSET: %q", r)
			}
			model[i] = v
		case 3:
			i := idx()
			pivot, v := model[i], fmt.Sprintf("ins:%d", step)
			where := [...]string{"BEFORE", "AFTER"}[rng.IntN(2)]
			j := slices.Index(model, pivot)
			if where == "AFTER" {
				j++
			}
			model = slices.Insert(model, j, v)
			if r := same("LINSERT", where, pivot, v); r != ":"+strconv.Itoa(len(model))+"\r\n" {
				t.Fatalf("LINSERT: %q", r)
			}
		case 4:
			// Remove an element, or several copies pushed for the purpose.
			v := model[idx()]
			count := rng.IntN(5) - 2
			var n int
			model, n = lremModel(model, v, count)
			if r := same("LREM", strconv.Itoa(count), v); r != ":"+strconv.Itoa(n)+"\r\n" {
				t.Fatalf("LREM %d %q: %q, want %d", count, v, r, n)
			}
		case 5:
			i := idx()
			if r := same("LPOS", model[i]); r != ":"+strconv.Itoa(slices.Index(model, model[i]))+"\r\n" {
				t.Fatalf("LPOS: %q", r)
			}
		}
	}
	if r := same("LRANGE", "0", "-1"); r != encArray(model) {
		t.Fatal("LRANGE 0 -1 differs from the model")
	}
	if a, b := do("DUMP", "plain"), do("DUMP", "packed"); a != b {
		t.Errorf("DUMP differs: %d and %d bytes", len(a), len(b))
	}
	// Pops and trims move the ends across compressed nodes.
	same("LTRIM", "2500", "-2500")
	model = model[2500 : len(model)-2499]
	same("LPOP", "100")
	same("RPOP", "100")
	model = model[100 : len(model)-100]
	if r := same("LRANGE", "0", "-1"); r != encArray(model) {
		t.Fatal("LRANGE 0 -1 after trims differs from the model")
	}
	if dq := debug("packed"); dq[3] != "1" {
		t.Errorf("ql_compressed %s after edits", dq[3])
	}

	// A list keeps the depth it was created with; COPY and RESTORE make
	// lists with the depth configured now.
	do("CONFIG", "SET", "list-compress-depth", "0")
	do("RPUSH", "packed", "more")
	if dq := debug("packed"); dq[3] != "1" {
		t.Errorf("ql_compressed %s after CONFIG SET list-compress-depth 0", dq[3])
	}
	do("COPY", "packed", "copy0")
	if d := debug("copy0"); d[3] != "1" {
		t.Errorf("COPY of a compressed list: ql_compressed %s", d[3])
	}
	do("CONFIG", "SET", "list-compress-depth", "2")
	dump := do("DUMP", "plain")
	payload := dump[strings.Index(dump, "\r\n")+2 : len(dump)-2]
	if r := do("RESTORE", "restored", "0", payload); r != "+OK\r\n" {
		t.Fatalf("RESTORE: %q", r)
	}
	if d := debug("restored"); d[3] != "1" {
		t.Errorf("RESTORE with depth 2: ql_compressed %s", d[3])
	}
	if a, b := do("LRANGE", "plain", "0", "-1"), do("LRANGE", "restored", "0", "-1"); a != b {
		t.Error("RESTORE changed the list")
	}
	do("CONFIG", "SET", "list-compress-depth", "0")
}

// lremModel is LREM on a slice.
func lremModel(l []string, v string, count int) ([]string, int) {
	n := 0
	if count >= 0 {
		out := l[:0:0]
		for _, x := range l {
			if x == v && (count == 0 || n < count) {
				n++
				continue
			}
			out = append(out, x)
		}
		return out, n
	}
	out := slices.Clone(l)
	for i := len(out) - 1; i >= 0 && n < -count; i-- {
		if out[i] == v {
			out = slices.Delete(out, i, i+1)
			n++
		}
	}
	return out, n
}
