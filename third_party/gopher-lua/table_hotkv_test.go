package lua

import (
	"testing"
	"time"
)

// runLua runs src in a fresh state and returns its single result as a string.
func runLua(t *testing.T, src string) string {
	t.Helper()
	L := NewState()
	defer L.Close()
	if err := L.DoString(src); err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return L.Get(-1).String()
}

// A far integer key must not allocate the array up to it (HotKV patch:
// upstream filled the gap with nils, ~1 GB and ~17 s for this script).
func TestSparseIntegerKeyIsCheap(t *testing.T) {
	start := time.Now()
	got := runLua(t, `local t = {} t[65000000] = 1 t[1] = 2 return #t .. ' ' .. t[65000000] .. ' ' .. table.maxn(t)`)
	if got != "1 1 65000000" {
		t.Fatalf("got %q", got)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %v", d)
	}
	tb := &LTable{}
	tb.RawSetInt(65000000, LTrue)
	tb.RawSetInt(1000, LTrue)
	if len(tb.array) != 0 {
		t.Fatalf("array part has %d slots for two far keys", len(tb.array))
	}
}

// Keys set out of order, far apart, removed and reinserted must read back
// exactly and the length must be a border (t[#t] ~= nil, t[#t+1] == nil).
func TestSparseIntegerKeysSemantics(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		// Filled backwards: every key first lands in the hash part, then
		// moves into the array as the array reaches it.
		{`local t = {} for i = 300, 1, -1 do t[i] = i end
		  local s = 0 for i = 1, 300 do s = s + t[i] end
		  local n = 0 for k, v in pairs(t) do n = n + 1 assert(k == v) end
		  return #t .. ' ' .. s .. ' ' .. n`, "300 45150 300"},
		// A far key joins the array once the array grows up to it.
		{`local t = {} t[200] = 'x' for i = 1, 199 do t[i] = i end
		  return #t .. ' ' .. t[200]`, "200 x"},
		// Deleting a far key.
		{`local t = {1, 2} t[500] = 3 t[500] = nil return #t .. ' ' .. tostring(t[500]) .. ' ' .. table.maxn(t)`, "2 nil 2"},
		// Setting nil just past the array neither grows it nor resurrects a value.
		{`local t = {1} t[100] = 5 t[100] = nil t[3] = nil for i = 2, 100 do t[i] = i end return t[100]`, "100"},
		// table.insert / table.remove around a far key.
		{`local t = {} t[70] = 'far' for i = 1, 10 do table.insert(t, i) end
		  table.insert(t, 1, 0) for i = 1, 5 do table.remove(t) end
		  return #t .. ' ' .. t[70] .. ' ' .. t[1] .. ' ' .. t[6]`, "6 far 0 5"},
		// next() walks array then hash, each key once.
		{`local t = {} t[1000] = 1 t[1] = 1 t[2] = 1 t.a = 1 t[2.5] = 1
		  local n = 0 for k in pairs(t) do n = n + 1 end return n`, "5"},
		// Sorting sorts the sequence only, as C Lua's sort of 1..#t.
		{`local t = {3, 1, 2, nil} table.sort(t) return table.concat(t, ',')`, "1,2,3"},
		{`local t = {1, nil, 3} return #t`, "3"},
	} {
		if got := runLua(t, c.src); got != c.want {
			t.Errorf("%s\n got %q, want %q", c.src, got, c.want)
		}
	}
}
