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
