package server

import (
	"math/rand/v2"
	"strconv"

	"github.com/hotkv/hotkv/lolwut"
)

func lolwutCommands() []*Command {
	return []*Command{
		{Name: "lolwut", Arity: -1, Flags: Readonly | Fast, Handler: cmdLolwut},
	}
}

// LOLWUT [VERSION version] [arguments of that version's art]: version 5
// draws Schotter, version 6 a skyline (package lolwut), any other the
// server's version alone, as Redis 7.0 does (its default, 7, included).
func cmdLolwut(c *Client, args [][]byte) {
	version := RedisVersion
	if len(args) >= 3 && equalFold(args[1], "version") {
		v, ok := c.intArg(args[2])
		if !ok {
			return
		}
		version = strconv.FormatUint(uint64(uint32(v)), 10) + ".0.0"
		args = args[2:]
	}
	rnd := func() int { return rand.IntN(lolwut.RandMax + 1) }
	switch {
	case len(version) > 2 && (version[:2] == "5." && version[2] != '9' || version[:3] == "4.9"):
		if v, ok := c.lolwutArgs(args, 66, 8, 12); ok {
			c.w.Verbatim("txt", lolwut.Schotter(v[0], v[1], v[2], RedisVersion, rnd))
		}
	case len(version) > 2 && (version[:2] == "6." && version[2] != '9' || version[:3] == "5.9"):
		if v, ok := c.lolwutArgs(args, 80, 20); ok {
			c.w.Verbatim("txt", lolwut.Skyline(v[0], v[1], RedisVersion, rnd))
		}
	default:
		c.w.Verbatim("txt", "Redis ver. "+RedisVersion+"\n")
	}
}

// lolwutArgs parses the integer arguments after args[0], as many as def
// has defaults (more are ignored, as Redis ignores them).
func (c *Client) lolwutArgs(args [][]byte, def ...int) ([]int, bool) {
	for i := range def {
		if 1+i < len(args) {
			n, ok := c.intArg(args[1+i])
			if !ok {
				return nil, false
			}
			def[i] = int(max(min(n, 1<<20), -1<<20)) // lolwut clamps further
		}
	}
	return def, true
}
