package lua

import (
	"fmt"
	"runtime"
	"testing"
)

// Values boxed by StringValue stay distinct and intact across block
// boundaries and garbage collections (patch 26): each shares a block of
// headers with others, so a header reused or freed too early would show
// as a wrong string here.
func TestStringValueBlocks(t *testing.T) {
	L := NewState()
	defer L.Close()
	const n = 1000
	tb := L.NewTable()
	for i := range n {
		tb.RawSetInt(i+1, L.StringValue(fmt.Sprintf("value-%d", i)))
		if i%97 == 0 {
			runtime.GC()
		}
	}
	runtime.GC()
	for i := range n {
		v := tb.RawGetInt(i + 1)
		if s, ok := v.(LString); !ok || string(s) != fmt.Sprintf("value-%d", i) {
			t.Fatalf("t[%d] = %#v", i+1, v)
		}
	}
	if v := L.StringValue(""); v.(LString) != "" {
		t.Fatalf("empty string boxed as %#v", v)
	}
	L.SetGlobal("t", tb)
	if err := L.DoString(`assert(t[1] == "value-0" and t[1000] .. "" == "value-999" and tonumber("12345") + 0 == 12345)`); err != nil {
		t.Fatal(err)
	}
}

// tonumber boxes its result with the number blocks: numbers from it stay
// distinct.
func TestToNumberBoxes(t *testing.T) {
	got := runLua(t, `local t = {} for i = 1, 300 do t[i] = tonumber(tostring(i * 1000)) end
local s = 0 for i = 1, 300 do s = s + t[i] end return s`)
	if got != "45150000" {
		t.Fatalf("got %s", got)
	}
}

// Numbers boxed by NumberValue stay distinct and intact across block
// boundaries and garbage collections (patch 28), and boxing one allocates
// nothing but its block.
func TestNumberValueBlocks(t *testing.T) {
	L := NewState()
	defer L.Close()
	const n = 1000
	tb := L.NewTable()
	for i := range n {
		tb.RawSetInt(i+1, L.NumberValue(LNumber(i*1000+7)))
		if i%97 == 0 {
			runtime.GC()
		}
	}
	runtime.GC()
	for i := range n {
		if v, ok := tb.RawGetInt(i + 1).(LNumber); !ok || v != LNumber(i*1000+7) {
			t.Fatalf("t[%d] = %#v", i+1, tb.RawGetInt(i+1))
		}
	}
	var sink LValue
	allocs := testing.AllocsPerRun(1000, func() { sink = L.NumberValue(123456) })
	// One block of the allocator's size per that many numbers: under one
	// allocation per call on average.
	if allocs >= 1 {
		t.Fatalf("NumberValue: %v allocations per call", allocs)
	}
	_ = sink
}

// Strings copied by BytesValue stay intact once the bytes they were
// copied from change, across block boundaries and garbage collections
// (patch 28): each shares a block of bytes with others, so a block
// written over or freed too early would show as a wrong string here.
// Long strings have blocks of their own.
func TestBytesValueBlocks(t *testing.T) {
	L := NewState()
	defer L.Close()
	const n = 2000
	tb := L.NewTable()
	src := make([]byte, 0, 512)
	want := func(i int) string {
		if i%500 == 0 {
			return fmt.Sprintf("long-%0300d", i)
		}
		return fmt.Sprintf("value-%d", i)
	}
	for i := range n {
		src = append(src[:0], want(i)...)
		tb.RawSetInt(i+1, L.BytesValue(src))
		for j := range src {
			src[j] = 'x' // the copy is not the source
		}
		if i%97 == 0 {
			runtime.GC()
		}
	}
	runtime.GC()
	for i := range n {
		if s, ok := tb.RawGetInt(i + 1).(LString); !ok || string(s) != want(i) {
			t.Fatalf("t[%d] = %#v, want %q", i+1, tb.RawGetInt(i+1), want(i))
		}
	}
	if v := L.BytesValue(nil); v.(LString) != "" {
		t.Fatalf("empty bytes boxed as %#v", v)
	}
	var sink LValue
	short := []byte("user:12345:quota")
	if allocs := testing.AllocsPerRun(1000, func() { sink = L.BytesValue(short) }); allocs >= 1 {
		t.Fatalf("BytesValue: %v allocations per call", allocs)
	}
	_ = sink
}
