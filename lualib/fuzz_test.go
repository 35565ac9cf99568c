package lualib_test

import (
	"errors"
	"testing"

	"github.com/hotkv/hotkv/lualib"
	lua "github.com/yuin/gopher-lua"
)

// fuzzState is a light state with only the libraries under test.
func fuzzState() *lua.LState {
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	lualib.Open(L)
	return L
}

// callLib calls lib.fn(args...) in protected mode and fails the test if a
// Go panic escaped from the library (a Lua error is fine).
func callLib(t *testing.T, L *lua.LState, lib, fn string, args ...lua.LValue) []lua.LValue {
	t.Helper()
	f := L.GetGlobal(lib).(*lua.LTable).RawGetString(fn)
	top := L.GetTop()
	err := L.CallByParam(lua.P{Fn: f, NRet: lua.MultRet, Protect: true}, args...)
	if err != nil {
		var ae *lua.ApiError
		if !errors.As(err, &ae) || ae.Type != lua.ApiErrorRun {
			t.Fatalf("%s.%s(%q): Go panic or unexpected error: %v", lib, fn, args, err)
		}
		return nil
	}
	var out []lua.LValue
	for i := top + 1; i <= L.GetTop(); i++ {
		out = append(out, L.Get(i))
	}
	L.SetTop(top)
	return out
}

func FuzzCJSONDecode(f *testing.F) {
	for _, seed := range []string{
		`{"a":[1,2,{"b":null}],"c":"\u00e9\ud83d\ude00"}`, `[1e400,-0,0x1F,NaN,-Infinity]`,
		`"\uD83D"`, `[[[[[[]]]]]]`, `{"a":1,}`, "\"a\x00b\"", `nan(123)`, `  true  `, "",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		L := fuzzState()
		defer L.Close()
		for _, strict := range []bool{false, true} {
			if strict {
				callLib(t, L, "cjson", "decode_invalid_numbers", lua.LFalse)
			}
			if out := callLib(t, L, "cjson", "decode", lua.LString(doc)); len(out) == 1 {
				// Whatever decodes must encode again (or fail cleanly).
				callLib(t, L, "cjson", "encode", out[0])
				callLib(t, L, "cmsgpack", "pack", out[0])
			}
		}
	})
}

func FuzzCMsgpackUnpack(f *testing.F) {
	for _, seed := range []string{
		"\x93\x01\xa1a\xc3", "\x82\xa1k\xcb\x3f\xf8\x00\x00\x00\x00\x00\x00\x01\xc0", "\xdd\x7f\xff\xff\xff",
		"\xdb\x00\x00\x00\x05abc", "\xcf\xff\xff\xff\xff\xff\xff\xff\xff\xd3\x80\x00\x00\x00\x00\x00\x00\x00",
		"\x81\xc0\x01", "\xc1", "\x91\x91\x91\x91\x01", "",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data string) {
		L := fuzzState()
		defer L.Close()
		if out := callLib(t, L, "cmsgpack", "unpack", lua.LString(data)); len(out) > 0 {
			// Whatever decodes must encode again.
			callLib(t, L, "cmsgpack", "pack", out...)
			callLib(t, L, "cjson", "encode", out[0])
		}
		callLib(t, L, "cmsgpack", "unpack_one", lua.LString(data), lua.LNumber(len(data)/2))
		callLib(t, L, "cmsgpack", "unpack_limit", lua.LString(data), lua.LNumber(2), lua.LNumber(1))
	})
}

func FuzzStruct(f *testing.F) {
	for _, seed := range []struct{ format, data string }{
		{">!4bBhHlLiIfdc3s", "abcdefghijklmnopqrstuvwxyz0123456789\x00"},
		{"i32I9c0s", "\x05hello\x00"}, {"!16xi3", "1234567890123456789"}, {"c99999999999", ""},
	} {
		f.Add(seed.format, seed.data)
	}
	f.Fuzz(func(t *testing.T, format, data string) {
		L := fuzzState()
		defer L.Close()
		callLib(t, L, "struct", "size", lua.LString(format))
		if out := callLib(t, L, "struct", "unpack", lua.LString(format), lua.LString(data)); len(out) > 0 {
			callLib(t, L, "struct", "pack", append([]lua.LValue{lua.LString(format)}, out...)...)
		}
	})
}
