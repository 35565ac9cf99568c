package server

import (
	"strings"
	"testing"
)

// TestLolwutLikeRedis: LOLWUT's replies against redis-server — those that
// draw no random art byte for byte (Schotter with two rows of squares or
// fewer is not random), the random ones by shape: lines, caption, size.
func TestLolwutLikeRedis(t *testing.T) {
	p := newPair(t)
	p.Run(`
		LOLWUT
		LOLWUT 10 foo
		LOLWUT VERSION
		LOLWUT VERSION x
		LOLWUT VERSION 7
		LOLWUT VERSION 5 3 1 1
		LOLWUT VERSION 5 20 3 2
		LOLWUT VERSION 5 40 7 1
		LOLWUT VERSION 5 1 1 1
		LOLWUT VERSION 5 0 0 0
		LOLWUT VERSION 5 x
		LOLWUT VERSION 4.9
		LOLWUT VERSION 5 66 8 2 ignored
		LOLWUT VERSION 6 x
		LOLWUT VERSION 6 3 x
	`)
	shape := func(reply string) (lines int, caption string) {
		text := reply[strings.Index(reply, "\r\n")+2:]
		return strings.Count(text, "\n"), text[strings.LastIndex(strings.TrimSuffix(text, "\n\r\n"), "\n")+1:]
	}
	for _, line := range []string{"LOLWUT VERSION 5", "LOLWUT VERSION 6", "LOLWUT VERSION 6 30 5", "LOLWUT VERSION 5 30 4 5"} {
		p.DoBoth(line, func(redis, hotkv string) {
			rl, rc := shape(redis)
			hl, hc := shape(hotkv)
			// Schotter's characters are all 3 bytes; the skyline's color
			// sequences are 8 or 9.
			sameSize := len(redis) == len(hotkv) || strings.Contains(line, "VERSION 6")
			if rl != hl || rc != hc || !sameSize {
				t.Errorf("%s: HotKV %d lines, %d bytes, %q; Redis %d lines, %d bytes, %q", line, hl, len(hotkv), hc, rl, len(redis), rc)
			}
		})
	}
}
