package lualib_test

import "testing"

// cmsgpackCases are compared with Redis. Packed bytes are returned as hex;
// maps with several keys are only compared after unpacking.
var cmsgpackCases = []diffCase{
	{name: "pack/ints", src: `local out = {} for _, n in ipairs({0, 1, 127, 128, 255, 256, 65535, 65536, 4294967295, 4294967296, 2^53, 2^62, 2^63 - 1024, -1, -31, -32, -33, -127, -128, -129, -32767, -32768, -32769, -2147483647, -2147483648, -2147483649, -2^53, -2^62, -2^63}) do out[#out + 1] = hex(cmsgpack.pack(n)) end return table.concat(out, " ")`,
		want: `00 01 7f cc80 ccff cd0100 cdffff ce00010000 ceffffffff cf0000000100000000 cf0020000000000000 cf4000000000000000 cf7ffffffffffffc00 ff e1 e0 d0df d081 d080 d1ff7f d18001 d18000 d2ffff7fff d280000001 d280000000 d3ffffffff7fffffff d3ffe0000000000000 d3c000000000000000 d38000000000000000`},
	{name: "pack/floats", src: `local z = 0 local out = {} for _, n in ipairs({0.5, -0.5, 0.1, 1.5, 1/3, 2^63, 2^64, -2^64, 1e300, 1/0, -1/0, 0/0, -z, 3.4028234663852886e38, 3.4028235677973366e38, 1e-45, 2^-149, 2^-150, 16777217, 1e20}) do out[#out + 1] = hex(cmsgpack.pack(n)) end return table.concat(out, " ")`},
	{name: "pack/strings", src: `local out = {} for _, n in ipairs({0, 1, 31, 32, 255, 256, 65535, 65536, 70000}) do local p = cmsgpack.pack(string.rep("x", n)) out[#out + 1] = hex(p:sub(1, 6)) .. ":" .. #p end return table.concat(out, " ")`,
		want: `a0:1 a178:2 bf7878787878:32 d92078787878:34 d9ff78787878:257 da0100787878:259 daffff787878:65538 db0001000078:65541 db0001117078:70005`},
	{name: "pack/binary-string", src: `return hex(cmsgpack.pack("\0\1\255abc"))`, want: `a60001ff616263`},
	{name: "pack/scalars", src: `return hex(cmsgpack.pack(true, false, nil, cjson.null, "x"))`, want: `c3c2c0c0a178`},
	{name: "pack/functions", src: `return hex(cmsgpack.pack(function() end, coroutine.create(function() end)))`, want: `c0c0`},
	{name: "pack/arrays", src: `local out = {} for _, n in ipairs({0, 1, 15, 16, 65535, 65536}) do local t = {} for i = 1, n do t[i] = i % 100 end local p = cmsgpack.pack(t) out[#out + 1] = hex(p:sub(1, 6)) .. ":" .. #p end return table.concat(out, " ")`},
	{name: "pack/array-vs-map", src: `return table.concat({hex(cmsgpack.pack({1, 2, 3})), hex(cmsgpack.pack({[1] = 1, [3] = 3})), hex(cmsgpack.pack({[2] = 2})), hex(cmsgpack.pack({[0] = 1})), hex(cmsgpack.pack({[1.5] = 1})), hex(cmsgpack.pack({a = 1})), hex(cmsgpack.pack({[-1] = 1})), hex(cmsgpack.pack({[2^31] = 1})), hex(cmsgpack.pack({{}, {{}}})), hex(cmsgpack.pack({[1] = "a", [2] = "b"}))}, " ")`},
	{name: "pack/map-header", src: `local out = {} for _, n in ipairs({15, 16, 65535, 65536}) do local t = {} for i = 1, n do t["k" .. i] = true end local p = cmsgpack.pack(t) out[#out + 1] = hex(p:sub(1, n < 16 and 1 or n < 65536 and 3 or 5)) .. ":" .. #p end return table.concat(out, " ")`},
	{name: "pack/nesting", src: `local t = {} local cur = t for i = 1, 20 do cur[1] = {} cur = cur[1] end return hex(cmsgpack.pack(t))`,
		want: `91919191919191919191919191919191c0`},
	{name: "pack/nesting-map", src: `local t = {} local cur = t for i = 1, 20 do cur.k = {} cur = cur.k end return hex(cmsgpack.pack(t))`},
	{name: "pack/cycle", src: `local t = {} t[1] = t return hex(cmsgpack.pack(t))`},
	{name: "pack/map-key-table", src: `return hex(cmsgpack.pack({[{1}] = {2}}))`, want: `8191019102`},
	{name: "pack/no-args", src: `return try(cmsgpack.pack) .. " " .. show(pcall(function() return cmsgpack.pack() end))`},
	{name: "pack/many-args", src: `local t = {} for i = 1, 4000 do t[i] = i end local p = cmsgpack.pack(unpack(t)) return #p .. " " .. select("#", cmsgpack.unpack(p))`},
	{name: "pack/too-many-args", src: `local t = {} for i = 1, 4001 do t[i] = i end return try(cmsgpack.pack, unpack(t))`},
	{name: "pack/many-args-tables", src: `local t = {} for i = 1, 4000 do t[i] = {i} end return try(cmsgpack.pack, unpack(t)):sub(1, 120)`},
	{name: "pack/stack-arg-limit", src: `local t = {} for i = 1, 3999 do t[i] = {} end t[4000] = {1} return try(cmsgpack.pack, unpack(t)):sub(1, 120) .. " " .. try(cmsgpack.pack, 1, unpack(t, 1, 3998)):sub(1, 40)`},
	{name: "pack/mixed-table", src: `return dump(cmsgpack.unpack(cmsgpack.pack({1, 2, x = "y"})))`},

	{name: "unpack/ints", src: `return show(cmsgpack.unpack(cmsgpack.pack(0, 1, 127, 128, 255, 256, 65535, 65536, 4294967295, 4294967296, 2^53, -1, -32, -33, -128, -129, -32768, -32769, -2147483648, -2147483649, -2^53, -2^63)))`},
	{name: "unpack/raw-ints", src: `local out = {} for _, h in ipairs({"cc80", "d080", "d0ff", "cd8000", "d18000", "d1ff01", "ce80000000", "d280000000", "cf8000000000000000", "cfffffffffffffffff", "cf0020000000000001", "d38000000000000000", "d3ffffffffffffffff", "e0", "ff", "7f", "ca3f800000", "ca7fc00000", "cb3ff0000000000000", "cbfff8000000000000", "c0", "c2", "c3"}) do local s = h:gsub("..", function(x) return string.char(tonumber(x, 16)) end) out[#out + 1] = h .. "=" .. show(pcall(cmsgpack.unpack, s)) end return table.concat(out, " ")`},
	{name: "unpack/strings", src: `local out = {} for _, n in ipairs({0, 31, 32, 255, 256, 65536}) do local s = string.rep("y", n) local back = cmsgpack.unpack(cmsgpack.pack(s)) out[#out + 1] = tostring(back == s) .. #back end return table.concat(out, " ")`},
	{name: "unpack/tables", src: `return dump(cmsgpack.unpack(cmsgpack.pack({1, {2, {3, {a = "b"}}}, {x = {y = {z = true}}}, {}, {[1] = 1, [3] = 3}, {[0] = 0}})))`},
	{name: "unpack/map-keys", src: `local s = string.char(0x84, 0x01, 0xa1, 0x61, 0xa1, 0x6b, 0x02, 0xc3, 0x03, 0xcb, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0, 0x91, 0x01) return dump(cmsgpack.unpack(s))`},
	{name: "unpack/map-nil-key", src: `return try(cmsgpack.unpack, string.char(0x81, 0xc0, 0x01)) .. " " .. try(cmsgpack.unpack, string.char(0x81, 0xcb, 0x7f, 0xf8, 0, 0, 0, 0, 0, 0, 0x01)) .. " " .. try(cmsgpack.unpack, string.char(0x81, 0x01, 0xc0))`},
	{name: "unpack/array-nil", src: `local t = cmsgpack.unpack(string.char(0x93, 0xc0, 0x02, 0xc0)) return show(t[1], t[2], t[3])`},
	{name: "unpack/array16-map16", src: `return dump(cmsgpack.unpack(string.char(0xdc, 0, 2, 1, 2, 0xde, 0, 1, 0xa1, 0x61, 0xa1, 0x62, 0xdd, 0, 0, 0, 1, 0x05, 0xdf, 0, 0, 0, 1, 0x01, 0x02, 0xda, 0, 1, 0x41, 0xdb, 0, 0, 0, 1, 0x42, 0xd9, 1, 0x43)))`},
	{name: "unpack/multi", src: `return show(cmsgpack.unpack(cmsgpack.pack(1, "a", {2}, nil, true)))`},
	{name: "unpack/empty", src: `return select("#", cmsgpack.unpack("")) .. " " .. show(cmsgpack.unpack_one("")) .. " " .. show(cmsgpack.unpack_limit("", 3))`},
	{name: "unpack/missing-bytes", src: `local out = {} for _, h in ipairs({"cc", "cd00", "ce000000", "cf00000000000000", "d0", "ca0000", "cb00", "a2ab", "d9", "d905", "da00", "da0002ab", "db000000", "db00000002ab", "92", "9201", "dc00", "dc0001", "dd00000001", "82", "81a1", "81a161", "de00", "df0000000101", "dd7fffffff"}) do local s = h:gsub("..", function(x) return string.char(tonumber(x, 16)) end) out[#out + 1] = h .. "=" .. show(pcall(cmsgpack.unpack, s)) end return table.concat(out, " ")`},
	{name: "unpack/bad-format", src: `local out = {} for _, b in ipairs({0xc1, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8}) do out[#out + 1] = show(pcall(cmsgpack.unpack, string.char(b, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))) end return table.concat(out, " ") .. " " .. try(cmsgpack.unpack, string.char(0x91, 0xc1))`},
	{name: "unpack/direct-error", src: `local ok, err = pcall(function() return cmsgpack.unpack("\196") end) return err`, want: `user_script:1: Bad data format in input.`},
	{name: "unpack/arg-types", src: `return try(cmsgpack.unpack) .. " " .. try(cmsgpack.unpack, {}) .. " " .. try(cmsgpack.unpack, 5) .. " " .. try(cmsgpack.unpack, nil)`},
	{name: "unpack/extra-args", src: `return show(cmsgpack.unpack(cmsgpack.pack(1, 2), "ignored", 3))`},
	{name: "unpack/many-values", src: `local p = string.rep("\1", 7999) return select("#", cmsgpack.unpack(p)) .. " " .. try(cmsgpack.unpack, p .. "\1"):sub(1, 200) .. " " .. select("#", cmsgpack.unpack_limit(p .. p, 7998)) .. " " .. try(cmsgpack.unpack_limit, p .. p, 7999):sub(1, 80)`},
	{name: "unpack/many-values-extra-arg", src: `local p = string.rep("\1", 7998) return try(cmsgpack.unpack, p, 1):sub(1, 200) .. " " .. try(cmsgpack.unpack, p .. "\1", 1):sub(1, 200)`},
	{name: "unpack/deep-nesting", src: `local function depth(ok, t) if not ok then return t end local n = 0 while type(t) == "table" do n = n + 1 local k, v = next(t) if type(k) == "table" then t = k else t = v end end return n end ` +
		`return depth(pcall(cmsgpack.unpack, string.rep("\145", 3998) .. "\1")) .. " " .. depth(pcall(cmsgpack.unpack, string.rep("\145", 3999) .. "\1")) .. " " .. depth(pcall(cmsgpack.unpack, string.rep("\129\1", 3999) .. "\1")) .. " " .. depth(pcall(cmsgpack.unpack, string.rep("\129\1", 4000) .. "\1")) .. " " .. depth(pcall(cmsgpack.unpack, string.rep("\129", 3998) .. "\1" .. string.rep("\1", 3998))) .. " " .. depth(pcall(cmsgpack.unpack, string.rep("\129", 3999) .. "\1" .. string.rep("\1", 3999))) .. " " .. depth(pcall(cmsgpack.unpack, string.rep("\129", 7997) .. "\1" .. string.rep("\1", 7997))) ` +
		`.. " " .. depth(pcall(cmsgpack.unpack, string.rep("\129", 7998) .. "\1" .. string.rep("\1", 7998))) .. " " .. depth(pcall(cmsgpack.unpack, string.rep("\145", 4000) .. "\1"))`},
	{name: "unpack_one", src: `local p = cmsgpack.pack(1, "two", {3}) local out = {} local off = 0 while off ~= -1 do local r = {cmsgpack.unpack_one(p, off)} off = r[1] out[#out + 1] = show(unpack(r)) end return table.concat(out, " | ")`},
	{name: "unpack_one/offsets", src: `local p = cmsgpack.pack(1, 2, 3) return try(cmsgpack.unpack_one, p, 3) .. " " .. try(cmsgpack.unpack_one, p, 4) .. " " .. try(cmsgpack.unpack_one, p, -1) .. " " .. try(cmsgpack.unpack_one, p, 2.7) .. " " .. try(cmsgpack.unpack_one, p, "1") .. " " .. try(cmsgpack.unpack_one, p, "x") .. " " .. try(cmsgpack.unpack_one, p, nil) .. " " .. try(cmsgpack.unpack_one, p, 2^32 + 1)`},
	{name: "unpack_one/args", src: `return try(cmsgpack.unpack_one) .. " " .. try(cmsgpack.unpack_one, {}) .. " " .. try(cmsgpack.unpack_one, "\1", 0, "extra")`},
	{name: "unpack_limit", src: `local p = cmsgpack.pack(1, 2, 3, 4, 5) return try(cmsgpack.unpack_limit, p, 2) .. " | " .. try(cmsgpack.unpack_limit, p, 2, 2) .. " | " .. try(cmsgpack.unpack_limit, p, 10, 3) .. " | " .. try(cmsgpack.unpack_limit, p, 0) .. " | " .. try(cmsgpack.unpack_limit, p, 0, 1) .. " | " .. try(cmsgpack.unpack_limit, p, -1) .. " | " .. try(cmsgpack.unpack_limit, p, 1, -1) .. " | " .. try(cmsgpack.unpack_limit, p, 1, 6) .. " | " .. try(cmsgpack.unpack_limit, p) .. " | " .. try(cmsgpack.unpack_limit, p, "2")`},
	{name: "unpack_limit/errors-mid", src: `return try(cmsgpack.unpack_limit, "\1\2\193", 5) .. " " .. try(cmsgpack.unpack_limit, "\1\2\193", 2) .. " " .. try(cmsgpack.unpack_one, "\1\146", 1)`},
	{name: "roundtrip/floats", src: `local out = {} for _, n in ipairs({0.1, 0.25, -1.5e-300, 1e308, 2^100, 123.456, 1/3}) do out[#out + 1] = num(cmsgpack.unpack(cmsgpack.pack(n))) end return table.concat(out, " ")`},
	{name: "roundtrip/cjson-null", src: `local t = cmsgpack.unpack(cmsgpack.pack({1, cjson.null, 3})) return show(t[1], t[2], t[3])`},
	{name: "library", src: `local ks = {} for k, v in pairs(cmsgpack) do ks[#ks + 1] = k .. ":" .. type(v) end table.sort(ks) return table.concat(ks, " ") .. " " .. cmsgpack._NAME .. " " .. cmsgpack._VERSION .. " " .. cmsgpack._COPYRIGHT .. " " .. cmsgpack._DESCRIPTION`},
}

func TestCMsgpack(t *testing.T) {
	runCases(t, "cmsgpack", cmsgpackCases)
}
