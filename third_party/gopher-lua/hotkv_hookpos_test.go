package lua

import (
	"reflect"
	"testing"
)

// HookPosition and DebugLocal as a line hook sees them: the closure of a
// local function on its "end" line, and locals active from their first
// instruction to their block's last, as C Lua 5.1's debug API has them.
func TestHookPositionAndDebugLocal(t *testing.T) {
	L := NewState()
	defer L.Close()
	fn, err := L.LoadString("local function f(x)\n  local y = x * 2\n  return y\nend\nlocal r = f(1)\nreturn r\n")
	if err != nil {
		t.Fatal(err)
	}
	if got := fn.Proto.DbgSourcePositions[0]; got != 4 {
		t.Fatalf("closure line %d, want 4", got)
	}
	p := fn.Proto.FunctionPrototypes[0]
	var seen []string
	L.SetCountHook(func(L *LState) {
		proto, pc, depth := L.HookPosition()
		if proto != p {
			return
		}
		if depth != 1 {
			t.Errorf("depth %d, want 1", depth)
		}
		d, _ := L.GetStack(0)
		names := ""
		for i := 1; ; i++ {
			n, _ := L.DebugLocal(d, i)
			if n == "" {
				break
			}
			names += n
		}
		seen = append(seen, string(rune('0'+p.DbgSourcePositions[pc]))+":"+names)
	}, 1)
	L.Push(fn)
	L.Call(0, 1)
	L.SetCountHook(nil, 0)
	if want := []string{"2:x", "3:xy"}; !reflect.DeepEqual(seen, want) {
		t.Fatalf("got %v, want %v", seen, want)
	}
}
