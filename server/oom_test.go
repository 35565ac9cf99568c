package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/difftest"
)

// TestOOMScoreAdj runs unit/oom-score-adj's steps on a redis-server (its
// /proc/<pid>/oom_score_adj) and on HotKV (whose score file the test points
// at a file of its own, not to change the test process's): CONFIG SET
// oom-score-adj yes/relative adds the class's value to the score from
// before, absolute writes the value, "no" restores the score from before,
// and oom-score-adj-values changes the score at once while enabled only.
func TestOOMScoreAdj(t *testing.T) {
	p, srv, _, _ := bhvPair(t)
	rpid := bhvField(p.Redis.Do("INFO", "server"), "process_id")
	rfile := "/proc/" + rpid + "/oom_score_adj"
	hfile := filepath.Join(t.TempDir(), "oom_score_adj")
	srv.oom.mu.Lock()
	srv.oom.path = hfile
	srv.oom.mu.Unlock()
	set := func(v string) {
		t.Helper()
		if err := os.WriteFile(rfile, []byte(v+"\n"), 0); err != nil {
			t.Skipf("SKIPPING: cannot write redis-server's %s: %v", rfile, err)
		}
		if err := os.WriteFile(hfile, []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check := func(step, want string) {
		t.Helper()
		for _, f := range []string{rfile, hfile} {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(string(b)); got != want {
				t.Errorf("%s: %s holds %q, want %q", step, f, got, want)
			}
		}
	}
	set("22")
	p.Do("CONFIG SET oom-score-adj-values \"5 6 7\"")
	check("values while disabled", "22")
	p.Do("CONFIG SET oom-score-adj-values \"9 9 9\" oom-score-adj yes")
	check("yes", "31")
	p.Do("CONFIG SET oom-score-adj no")
	check("no", "22")
	p.Do("CONFIG SET oom-score-adj-values \"9 9 9\" oom-score-adj relative")
	check("relative", "31")
	p.Do("CONFIG SET oom-score-adj absolute")
	check("absolute", "9")
	p.Do("CONFIG SET oom-score-adj-values \"15 20 30\"")
	check("values while absolute", "15")
	// A replica takes the replica class's score, and the master's again
	// when promoted (Redis's replicationSetMaster / UnsetMaster).
	p.Do("REPLICAOF localhost 1")
	check("replica", "20")
	p.Do("REPLICAOF NO ONE")
	check("promoted", "15")
	p.Do("CONFIG SET oom-score-adj-values \"990 995 999\" oom-score-adj relative")
	check("relative clamped", "1000")
	p.Do("CONFIG SET oom-score-adj no")
	check("no again", "22")
	p.Do("CONFIG GET oom-score-adj")
	p.Do("CONFIG GET oom-score-adj-values")
}

// TestOOMScoreAdjFailure: a score that cannot be written vetoes the CONFIG
// SET (Redis: when /proc refuses an unprivileged process).
func TestOOMScoreAdjFailure(t *testing.T) {
	srv, addr := startServer(t)
	srv.oom.mu.Lock()
	srv.oom.path = filepath.Join(t.TempDir(), "missing", "oom_score_adj")
	srv.oom.mu.Unlock()
	c := difftest.Dial(t, addr)
	if got, want := c.Do("CONFIG", "SET", "oom-score-adj", "yes"),
		"-ERR CONFIG SET failed (possibly related to argument 'oom-score-adj') - Failed to set current oom_score_adj. Check server logs.\r\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := c.Do("CONFIG", "GET", "oom-score-adj"); got != "*2\r\n$13\r\noom-score-adj\r\n$2\r\nno\r\n" {
		t.Errorf("oom-score-adj after the failure: %q", got)
	}
}
