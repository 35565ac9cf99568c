package server

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// clientRbs returns the rbs and rbp fields of the CLIENT LIST line of the
// client named name.
func clientRbs(t *testing.T, c *difftest.Conn, name string) (rbs, rbp string) {
	t.Helper()
	for _, line := range strings.Split(c.Do("CLIENT", "LIST"), "\n") {
		if strings.Contains(line, " name="+name+" ") {
			m := regexp.MustCompile(` rbs=(\d+) rbp=(\d+) `).FindStringSubmatch(line)
			if m != nil {
				return m[1], m[2]
			}
		}
	}
	t.Fatalf("no CLIENT LIST line with rbs for %s", name)
	return "", ""
}

// TestReplyBufferResize is unit/replybufsize's "verify reply buffer
// limits" against redis-server: an idle client's reply buffer shrinks to
// 1 KB once its peak is reset (DEBUG REPLYBUFFER PEAK-RESET-TIME), and a
// client whose replies fill it doubles it up to 16 KB; CLIENT LIST shows
// the size as rbs and the peak as rbp, INFO counts the resizes.
func TestReplyBufferResize(t *testing.T) {
	p, _, raddr, haddr := bhvPair(t, "--enable-debug-command", "yes", "--hz", "100")
	p.Do("DEBUG REPLYBUFFER PEAK-RESET-TIME abc")
	p.Do("DEBUG REPLYBUFFER SIZE 1")
	p.Do("DEBUG REPLYBUFFER RESIZING 1")
	p.Do("DEBUG REPLYBUFFER PEAK-RESET-TIME 10")
	tcs := []*difftest.Conn{difftest.Dial(t, raddr), difftest.Dial(t, haddr)}
	for _, tc := range tcs {
		tc.Do("CLIENT", "SETNAME", "test_client")
	}
	for i, c := range []*difftest.Conn{p.Redis, p.HotKV} {
		// The cron shrinks the buffer and resets the peak; CLIENT LIST
		// may come between the two (it did on a loaded CI machine).
		waitFor(t, func() bool { rbs, rbp := clientRbs(t, c, "test_client"); return rbs == "1024" && rbp == "0" })
		if rbs, rbp := clientRbs(t, c, "test_client"); rbs != "1024" || rbp != "0" {
			t.Errorf("server %d: idle client's rbs %s rbp %s, want 1024 and 0", i, rbs, rbp)
		}
	}
	p.Do("SET bigval " + strings.Repeat("x", 32768))
	p.Do("DEBUG REPLYBUFFER PEAK-RESET-TIME NEVER")
	for i, c := range []*difftest.Conn{p.Redis, p.HotKV} {
		tc := tcs[i]
		waitFor(t, func() bool {
			tc.Do("GET", "bigval")
			time.Sleep(15 * time.Millisecond)
			rbs, _ := clientRbs(t, c, "test_client")
			return rbs == "16384"
		})
	}
	p.Do("DEBUG REPLYBUFFER PEAK-RESET-TIME RESET")
	p.DoBoth("INFO stats", func(r, h string) {
		if bhvField(h, "reply_buffer_shrinks") == "0" || bhvField(h, "reply_buffer_expands") == "0" {
			t.Errorf("INFO stats: reply_buffer_shrinks %q, reply_buffer_expands %q",
				bhvField(h, "reply_buffer_shrinks"), bhvField(h, "reply_buffer_expands"))
		}
	})
}

// TestJemallocUsable: the sizes a shrunk reply buffer gets are jemalloc's
// size classes, as Redis's zmalloc_usable reports them.
func TestJemallocUsable(t *testing.T) {
	for _, c := range [][2]int64{{1024, 1024}, {1025, 1280}, {2049, 2560}, {3001, 3072}, {5000, 5120}, {16384, 16384}, {129, 160}, {100, 112}} {
		if got := jemallocUsable(c[0]); got != c[1] {
			t.Errorf("jemallocUsable(%d) = %d, want %d", c[0], got, c[1])
		}
	}
}
