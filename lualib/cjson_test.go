package lualib_test

import (
	"fmt"
	"testing"
)

// cjsonCases are compared with Redis. Objects with several keys are only
// compared after decoding (dump sorts keys): their encoded key order
// follows table iteration order, which differs between Lua
// implementations.
var cjsonCases = []diffCase{
	// Encoding scalars.
	{name: "enc/int", src: `return cjson.encode(1)`, want: `1`},
	{name: "enc/numbers", src: `local z = 0 local out = {} for _, n in ipairs({0, -z, 0.1, 1/3, -2.5, 1e14, 1e15, 123456789012345678, 2^53, 2^63, -2^63, 1e-5, 1e-4, 5e-324, 1.7976931348623157e308, 100, 3}) do out[#out + 1] = cjson.encode(n) end return table.concat(out, " ")`,
		want: `0 -0 0.1 0.33333333333333 -2.5 1e+14 1e+15 1.2345678901235e+17 9.007199254741e+15 9.2233720368548e+18 -9.2233720368548e+18 1e-05 0.0001 4.9406564584125e-324 1.7976931348623e+308 100 3`},
	{name: "enc/bools", src: `return cjson.encode(true) .. cjson.encode(false) .. cjson.encode(nil) .. cjson.encode(cjson.null)`, want: `truefalsenullnull`},
	{name: "enc/string-escapes", src: `local s = "" for i = 0, 255 do s = s .. string.char(i) end return hex(cjson.encode(s))`},
	{name: "enc/string-slash", src: `return cjson.encode("a/b\"c\\d\n\r\t\b\f")`, want: `"a\/b\"c\\d\n\r\t\b\f"`},
	{name: "enc/utf8-passthrough", src: `return cjson.encode("caf\195\169 \240\159\152\128")`},
	{name: "enc/empty-table", src: `return cjson.encode({})`, want: `{}`},
	{name: "enc/array", src: `return cjson.encode({1, "two", true, false, {}, {3}})`, want: `[1,"two",true,false,{},[3]]`},
	{name: "enc/array-null", src: `return cjson.encode({1, cjson.null, 3})`, want: `[1,null,3]`},
	{name: "enc/array-holes", src: `return cjson.encode({[1] = 1, [3] = 3, [5] = 5})`, want: `[1,null,3,null,5]`},
	{name: "enc/array-holes-safe", src: `return cjson.encode({[10] = 1})`, want: `[null,null,null,null,null,null,null,null,null,1]`},
	{name: "enc/sparse-error", src: `return try(cjson.encode, {[11] = 1})`, want: `false "Cannot serialise table: excessively sparse array"`},
	{name: "enc/sparse-error-direct", src: `return show(pcall(function() return cjson.encode({[1] = 1, [20] = 2}) end))`},
	{name: "enc/sparse-ratio-ok", src: `return cjson.encode({[1] = 1, [2] = 2, [3] = 3, [4] = 4, [5] = 5, [6] = 6, [12] = 12})`},
	{name: "enc/sparse-convert", src: `cjson.encode_sparse_array(true) return cjson.encode({[20] = 1})`, want: `{"20":1}`},
	{name: "enc/sparse-ratio-0", src: `cjson.encode_sparse_array(false, 0) return cjson.encode({[30] = 1}):len() .. ""`},
	{name: "enc/sparse-settings", src: `return show(cjson.encode_sparse_array()) .. " " .. show(cjson.encode_sparse_array(true, 3, 4)) .. " " .. show(cjson.encode_sparse_array("off")) .. " " .. show(cjson.encode_sparse_array(nil, 7))`},
	{name: "enc/sparse-bad-args", src: `return try(cjson.encode_sparse_array, "maybe") .. " " .. try(cjson.encode_sparse_array, true, -1) .. " " .. try(cjson.encode_sparse_array, true, 1, -1) .. " " .. try(cjson.encode_sparse_array, 1, 2, 3, 4) .. " " .. try(cjson.encode_sparse_array, {})`},
	{name: "enc/float-key", src: `return cjson.encode({[1.5] = "x"})`, want: `{"1.5":"x"}`},
	{name: "enc/zero-key", src: `return cjson.encode({[0] = "x"})`, want: `{"0":"x"}`},
	{name: "enc/negative-key", src: `return cjson.encode({[-1] = "x"})`, want: `{"-1":"x"}`},
	{name: "enc/huge-int-key", src: `return cjson.encode({[2^40] = 1}) .. " " .. cjson.encode({[2^31] = 1}) .. " " .. try(cjson.encode, {[2^31 - 1] = 1, [1] = 2}) .. " " .. cjson.encode({[1] = 1, [2^32] = 2}):sub(1, 9)`},
	{name: "enc/inf-key", src: `return try(cjson.encode, {[1/0] = 1})`},
	{name: "enc/string-key", src: `return cjson.encode({["a\"b"] = {["c/d"] = {}}})`, want: `{"a\"b":{"c\/d":{}}}`},
	{name: "enc/mixed-table", src: `return dump(cjson.decode(cjson.encode({1, 2, x = "y"})))`},
	{name: "enc/bad-key", src: `return try(cjson.encode, {[true] = 1}) .. " " .. try(cjson.encode, {[{}] = 1})`},
	{name: "enc/bad-values", src: `return try(cjson.encode, function() end) .. " " .. try(cjson.encode, {f = string.len}) .. " " .. try(cjson.encode, coroutine.create(function() end))`},
	{name: "enc/nan-inf", src: `return try(cjson.encode, 1/0) .. " " .. try(cjson.encode, -1/0) .. " " .. try(cjson.encode, 0/0) .. " " .. try(cjson.encode, {1, 2, 1/0})`},
	{name: "enc/invalid-numbers-on", src: `cjson.encode_invalid_numbers(true) return cjson.encode({1/0, -1/0, 0/0, -(0/0)})`, want: `[inf,-inf,nan,nan]`},
	{name: "enc/invalid-numbers-null", src: `return show(cjson.encode_invalid_numbers("null")) .. " " .. cjson.encode({1/0, -1/0, 0/0})`, want: `"null" [null,null,null]`},
	{name: "enc/invalid-numbers-opts", src: `return show(cjson.encode_invalid_numbers("on")) .. show(cjson.encode_invalid_numbers("off")) .. show(cjson.encode_invalid_numbers()) .. " " .. try(cjson.encode_invalid_numbers, "yes") .. " " .. try(cjson.encode_invalid_numbers, 1)`},
	{name: "enc/precision", src: `local out = {} for p = 1, 14 do cjson.encode_number_precision(p) out[#out + 1] = cjson.encode({math.pi, 123456.789, 0.000123456, 1e20}) end return table.concat(out, " ")`},
	{name: "enc/precision-bad", src: `return try(cjson.encode_number_precision, 0) .. " " .. try(cjson.encode_number_precision, 15) .. " " .. try(cjson.encode_number_precision, "x") .. " " .. show(cjson.encode_number_precision("7")) .. " " .. show(cjson.encode_number_precision(3.9))`},
	{name: "enc/depth-default", src: `local t = {} local cur = t for i = 1, 999 do cur[1] = {} cur = cur[1] end return #cjson.encode(t) .. ""`, want: `2000`},
	{name: "enc/depth-exceeded", src: `local t = {} local cur = t for i = 1, 1000 do cur[1] = {} cur = cur[1] end return try(cjson.encode, t)`, want: `false "Cannot serialise, excessive nesting (1001)"`},
	{name: "enc/depth-set", src: `cjson.encode_max_depth(3) return try(cjson.encode, {{{1}}}) .. " " .. try(cjson.encode, {{{{1}}}}) .. " " .. try(cjson.encode, {a = {b = {c = {}}}})`},
	{name: "enc/depth-cycle", src: `local t = {} t[1] = t return try(cjson.encode, t)`},
	{name: "enc/depth-stack", src: `cjson.encode_max_depth(100000) local t = {} local cur = t for i = 1, 5000 do cur[1] = {} cur = cur[1] end return try(cjson.encode, t)`},
	{name: "enc/depth-stack-object", src: `cjson.encode_max_depth(100000) local t = {} local cur = t for i = 1, 5000 do cur.k = {} cur = cur.k end return try(cjson.encode, t)`},
	{name: "enc/depth-bad", src: `return try(cjson.encode_max_depth, 0) .. " " .. try(cjson.encode_max_depth, -5) .. " " .. show(cjson.encode_max_depth(2^32 + 7)) .. " " .. try(cjson.decode_max_depth, 0)`},
	{name: "enc/arg-count", src: `return try(cjson.encode) .. " " .. try(cjson.encode, 1, 2) .. " " .. show(pcall(function() return cjson.encode() end))`},
	{name: "enc/keep-buffer", src: `return show(cjson.encode_keep_buffer(false)) .. show(cjson.encode_keep_buffer("on")) .. show(cjson.encode_keep_buffer()) .. " " .. try(cjson.encode_keep_buffer, "x") .. " " .. cjson.encode({1})`},
	{name: "enc/direct-error", src: `local ok, err = pcall(function()
  local x = 1
  return cjson.encode(function() end)
end) return err`, want: `user_script:3: Cannot serialise function: type not supported`},
	{name: "enc/new", src: `local c = cjson.new() c.encode_max_depth(2) return show(cjson.encode_max_depth(), c.encode_max_depth(), c._NAME, c._VERSION, c.null == cjson.null) .. " " .. try(c.encode, {{{}}})`},
	{name: "enc/library", src: `local ks = {} for k, v in pairs(cjson) do ks[#ks + 1] = k .. ":" .. type(v) end table.sort(ks) return table.concat(ks, " ") .. " " .. cjson._NAME .. " " .. cjson._VERSION .. " " .. type(cjson.null)`},

	// Decoding.
	{name: "dec/scalars", src: `return show(cjson.decode("1"), cjson.decode("-0"), cjson.decode("0.1"), cjson.decode("3"), cjson.decode("true"), cjson.decode("false"), cjson.decode('"x"'), cjson.decode("null") == cjson.null)`},
	{name: "dec/numbers", src: `local out = {} for _, s in ipairs({"1e400", "-1e400", "1e-400", "123456789012345678901234567890", "9007199254740993", "0.1e1", "1E2", "1e+2", "2.5e-3", "-12.75", "4.9e-324", "2.4703282292062328e-324", "1.7976931348623158e308", "0", "-0.0", "1.", "01", "-01.5"}) do out[#out + 1] = s .. "=" .. show(pcall(cjson.decode, s)) end return table.concat(out, " ")`},
	{name: "dec/invalid-numbers-default", src: `local out = {} for _, s in ipairs({"Infinity", "-Infinity", "inf", "INF", "NaN", "nan", "-nan", "0x10", "-0x1F", "0x1p4", "0x", "0x.8", "+1", "+inf", "-", "-a", ".5", "-.5", "1e", "1e+", "infinity5", "nanx", "nan(123)", "nan(12", "[nan(0x5)]", "inity"}) do out[#out + 1] = s .. "=" .. show(pcall(cjson.decode, s)) end return table.concat(out, " ")`},
	{name: "dec/invalid-numbers-off", src: `cjson.decode_invalid_numbers(false) local out = {} for _, s in ipairs({"Infinity", "-Infinity", "NaN", "0x10", "-0x1F", "+1", "01", "-01", "0", "-0", "0.5", "1e5", "[0x1]"}) do out[#out + 1] = s .. "=" .. show(pcall(cjson.decode, s)) end return table.concat(out, " ")`},
	{name: "dec/invalid-numbers-opts", src: `return show(cjson.decode_invalid_numbers("off")) .. show(cjson.decode_invalid_numbers()) .. show(cjson.decode_invalid_numbers(true)) .. " " .. try(cjson.decode_invalid_numbers, "null")`},
	{name: "dec/nan-sign", src: `return tostring(cjson.decode("nan")) .. " " .. tostring(cjson.decode("-nan")) .. " " .. tostring(cjson.decode("-NaN")) .. " " .. hex(cmsgpack.pack(cjson.decode("-nan"))) .. " " .. hex(cmsgpack.pack(cjson.decode("nan(0x1234)"))) .. " " .. hex(cmsgpack.pack(cjson.decode("-nan(99)")))`},
	{name: "dec/nested", src: `return dump(cjson.decode('{"a":[1,2,{"b":null}],"c":{"d":"e","f":[]},"g":{}}'))`},
	{name: "dec/whitespace", src: `return dump(cjson.decode(' \t\r\n[ 1 , { "a" : true } ]\n '))`},
	{name: "dec/unicode", src: `return hex(cjson.decode('"\\u00e9\\u0041\\u20AC\\uD83D\\uDE00\\u0000\\u007f\\u07ff\\u0800\\uffff"'))`},
	{name: "dec/escapes", src: `return hex(cjson.decode('"\\"\\\\\\/\\b\\f\\n\\r\\t"'))`},
	{name: "dec/raw-bytes", src: `return hex(cjson.decode('"caf\195\169 \1\31\127\255"'))`},
	{name: "dec/bad-unicode", src: `local out = {} for _, s in ipairs({'"\\uD83D"', '"\\uDE00"', '"\\uD83D\\u0041"', '"\\uD83Dx"', '"\\u12"', '"\\u12G4"', '"\\uD83D\\uDE0"'}) do out[#out + 1] = show(pcall(cjson.decode, s)) end return table.concat(out, " | ")`},
	{name: "dec/bad-escape", src: `return try(cjson.decode, '"a\\x"') .. " " .. try(cjson.decode, '"abc')  .. " " .. try(cjson.decode, '"a\\')`},
	{name: "dec/invalid-json", src: `local out = {} for _, s in ipairs({"", " ", "x", "[", "]", "{", "}", "[1,]", "[,1]", "[1 2]", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "{1:2}", "{\"a\" 1}", "[1]x", "tru", "nul", "falsey", "true false", "'a'", "[1,2", "{\"a\":1", "@", "[\"a\",\n\"b\"", ",", ":"}) do out[#out + 1] = show(pcall(cjson.decode, s)) end return table.concat(out, " | ")`},
	{name: "dec/direct-error", src: `local ok, err = pcall(function() return cjson.decode("x") end) return err`, want: `user_script:1: Expected value but found invalid token at character 1`},
	{name: "dec/utf16", src: `return try(cjson.decode, "\0a") .. " " .. try(cjson.decode, "a\0") .. " " .. try(cjson.decode, "1\0")  .. " " .. try(cjson.decode, "\0")`},
	{name: "dec/nul-inside", src: `return try(cjson.decode, "[1]\0garbage") .. " " .. try(cjson.decode, "\"a\0b\"") .. " " .. try(cjson.decode, "[1,\0]")`},
	{name: "dec/arg-types", src: `return try(cjson.decode, 123) .. " " .. try(cjson.decode, true) .. " " .. try(cjson.decode) .. " " .. try(cjson.decode, "1", 2) .. " " .. try(cjson.decode, nil)`},
	{name: "dec/depth", src: `return try(cjson.decode, string.rep("[", 1000) .. string.rep("]", 1000)):sub(1, 10) .. " " .. try(cjson.decode, string.rep("[", 1001) .. string.rep("]", 1001)) .. " " .. try(cjson.decode, string.rep('{"a":', 1001) .. "1" .. string.rep("}", 1001))`},
	{name: "dec/depth-set", src: `cjson.decode_max_depth(2) return try(cjson.decode, "[[1]]") .. " " .. try(cjson.decode, "[[[1]]]") .. " " .. try(cjson.decode, '{"a":{"b":{}}}') .. " " .. show(cjson.decode_max_depth())`},
	{name: "dec/depth-stack", src: `cjson.decode_max_depth(100000) local function depth(ok, t) if not ok then return t end local n = 0 while type(t) == "table" do n = n + 1 t = t[1] or t.a end return n end ` +
		`return depth(pcall(cjson.decode, string.rep("[", 5000) .. string.rep("]", 5000))) .. " " .. depth(pcall(cjson.decode, string.rep('{"a":', 3000) .. "1" .. string.rep("}", 3000))) .. " " .. depth(pcall(cjson.decode, string.rep("[", 3999) .. string.rep("]", 3999))) .. " " .. depth(pcall(cjson.decode, string.rep('{"a":', 2666) .. "1" .. string.rep("}", 2666))) .. " " .. depth(pcall(cjson.decode, string.rep('{"a":', 2665) .. "1" .. string.rep("}", 2665)))`},
	{name: "dec/duplicate-keys", src: `return dump(cjson.decode('{"a":1,"a":2}'))`, want: `{["a"]=2}`},
	{name: "dec/null-in-array", src: `local t = cjson.decode("[null,null,3]") return show(#t, t[1] == cjson.null, t[3])`},
	{name: "dec/big-document", src: `local t = {} for i = 1, 300 do t[i] = {id = i, name = "item" .. i, tags = {"a", "b"}, score = i / 7} end local s = cjson.encode(t) local back = cjson.decode(s) return #s .. " " .. dump(back[1]) .. " " .. dump(back[300])`},
	{name: "roundtrip/single-key", src: `local out = {} for _, v in ipairs({{a = 1}, {["k"] = {1, 2, {x = cjson.null}}}, {"é", "\0"}, {[1] = {}, [2] = {[1] = {}}}}) do out[#out + 1] = cjson.encode(v) end return table.concat(out, " ")`},
	{name: "roundtrip/decode-encode", src: `local out = {} for _, s in ipairs({"[1,2,3]", "{\"a\":[true,false,null]}", "[\"\\u00e9\"]", "[1e400]", "[-0]", "[0.1,1e-7,123456789.123]", "[[[[[]]]]]", "{\"\":\"\"}"}) do out[#out + 1] = show(pcall(function() return cjson.encode(cjson.decode(s)) end)) end return table.concat(out, " ")`},
}

// cjsonDocCases decode larger documents.
var cjsonDocCases = func() []diffCase {
	var cases []diffCase
	for i, doc := range []string{
		`{"a":{"b":{"c":{"d":[1,2,3,{"e":"f"}]}}}}`,
		`[{"id":1,"v":[0.5,-0.25,1e10]},{"id":2,"v":[]},{"id":3,"v":{}}]`,
		`{"unicode":"\u00e9\u00e8\u4e2d\ud83d\ude00","esc":"\"\\\/\b\f\n\r\t"}`,
		`[123456789012345678901234567890,-1e-10,1E+3,0.000001]`,
		`{"nested":[[[[[[[[[[1]]]]]]]]]]}`,
		`{"glossary":{"title":"example glossary","GlossDiv":{"title":"S","GlossList":{"GlossEntry":{"ID":"SGML","SortAs":"SGML","GlossTerm":"Standard Generalized Markup Language","Acronym":"SGML","Abbrev":"ISO 8879:1986","GlossDef":{"para":"A meta-markup language","GlossSeeAlso":["GML","XML"]},"GlossSee":"markup"}}}}}`,
		`[0,-0,0.0,1.0,-1.5e-3,1e308,1e309,-1e309,5e-324,1e-325,18446744073709551616,9223372036854775807]`,
		`  {"a" : [ true , false , null ] , "b" : { } , "c" : [ ] }  `,
	} {
		cases = append(cases, diffCase{
			name: fmt.Sprintf("doc%d", i),
			src:  fmt.Sprintf(`return dump(cjson.decode([==[%s]==]))`, doc),
		})
	}
	return cases
}()

func TestCJSON(t *testing.T) {
	runCases(t, "cjson", allCases()["cjson"])
}
