package lua

import "sync/atomic"

import (
	"os"
)

var CompatVarArg = true
var FieldsPerFlush = 50

// maxStringLen bounds the strings string.rep and concatenation build
// (HotKV patch): past it they raise "not enough memory", as C Lua does
// when an allocation fails, instead of exhausting the process's memory.
var maxStringLen atomic.Int64

func init() { maxStringLen.Store(512 << 20) }

// SetMaxStringLen sets the bound on built strings (512 MB by default) and
// returns the previous one.
func SetMaxStringLen(n int) int { return int(maxStringLen.Swap(int64(n))) }

var RegistrySize = 256 * 20
var RegistryGrowStep = 32
var CallStackSize = 256
var MaxTableGetLoop = 100
var MaxArrayIndex = 67108864

type LNumber float64

const LNumberBit = 64
const LNumberScanFormat = "%f"
const LuaVersion = "Lua 5.1"

var LuaPath = "LUA_PATH"
var LuaLDir string
var LuaPathDefault string
var LuaOS string
var LuaDirSep string
var LuaPathSep = ";"
var LuaPathMark = "?"
var LuaExecDir = "!"
var LuaIgMark = "-"

func init() {
	if os.PathSeparator == '/' { // unix-like
		LuaOS = "unix"
		LuaLDir = "/usr/local/share/lua/5.1"
		LuaDirSep = "/"
		LuaPathDefault = "./?.lua;" + LuaLDir + "/?.lua;" + LuaLDir + "/?/init.lua"
	} else { // windows
		LuaOS = "windows"
		LuaLDir = "!\\lua"
		LuaDirSep = "\\"
		LuaPathDefault = ".\\?.lua;" + LuaLDir + "\\?.lua;" + LuaLDir + "\\?\\init.lua"
	}
}
