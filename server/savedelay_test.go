package server

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// configDir returns the dir parameter of the server c talks to.
func configDir(t *testing.T, c *difftest.Conn) string {
	t.Helper()
	raw := c.Do("CONFIG", "GET", "dir")
	args, _, ok := respArray(raw)
	if !ok || len(args) != 2 {
		t.Fatalf("CONFIG GET dir: %q", raw)
	}
	return args[1]
}

// respArray parses a flat RESP2 array of bulk strings.
func respArray(raw string) ([]string, string, bool) {
	var out []string
	if len(raw) < 4 || raw[0] != '*' {
		return nil, raw, false
	}
	i := 1
	j := i
	for raw[j] != '\r' {
		j++
	}
	n, _ := strconv.Atoi(raw[i:j])
	raw = raw[j+2:]
	for k := 0; k < n; k++ {
		j = 1
		for raw[j] != '\r' {
			j++
		}
		l, _ := strconv.Atoi(raw[1:j])
		out = append(out, raw[j+2:j+2+l])
		raw = raw[j+4+l:]
	}
	return out, raw, true
}

// TestShutdownSaveFailureKeepsWrites: a snapshot that SHUTDOWN (or SAVE)
// fails to write refuses the shutdown but is no background save's
// failure: writes, and PING, are not refused with MISCONF, and
// rdb_last_bgsave_status stays ok (unit/shutdown's "SHUTDOWN will abort
// if rdb save failed on shutdown command"), as in Redis.
func TestShutdownSaveFailureKeepsWrites(t *testing.T) {
	p, _, _, _ := bhvPair(t, "--save", "900", "1")
	for _, c := range []*difftest.Conn{p.Redis, p.HotKV} {
		f := filepath.Join(configDir(t, c), "dump.rdb")
		os.Remove(f)
		if err := os.Mkdir(f, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p.Do("SET a 1")
	p.Do("SHUTDOWN")
	p.Do("PING")
	p.Do("SAVE")
	p.Do("SET b 2")
	p.DoBoth("INFO persistence", func(r, h string) {
		if rs, hs := bhvField(r, "rdb_last_bgsave_status"), bhvField(h, "rdb_last_bgsave_status"); rs != hs {
			t.Errorf("rdb_last_bgsave_status: redis %q, hotkv %q", rs, hs)
		}
	})
}

// infoField returns an INFO persistence field of c's server.
func infoField(t *testing.T, c *difftest.Conn, field string) string {
	t.Helper()
	return bhvField(c.Do("INFO", "persistence"), field)
}

// TestBgrewriteaofScheduledBehindBgsave is unit/aofrw's "BGREWRITEAOF is
// delayed if BGSAVE is in progress": with a BGSAVE running (slowed down
// by rdb-key-save-delay) BGREWRITEAOF is scheduled, and starts once the
// save ended.
func TestBgrewriteaofScheduledBehindBgsave(t *testing.T) {
	p, _, _, _ := bhvPair(t)
	p.Do("SET k v")
	p.Do("CONFIG SET rdb-key-save-delay 10000000")
	p.Do("BGSAVE")
	p.Do("BGREWRITEAOF")
	p.DoBoth("INFO persistence", func(r, h string) {
		if rs, hs := bhvField(r, "aof_rewrite_scheduled"), bhvField(h, "aof_rewrite_scheduled"); rs != "1" || hs != "1" {
			t.Errorf("aof_rewrite_scheduled: redis %q, hotkv %q", rs, hs)
		}
	})
	p.Do("FLUSHALL") // kills the saving child
	p.Do("CONFIG SET rdb-key-save-delay 0")
	waitFor(t, func() bool {
		return infoField(t, p.HotKV, "aof_rewrite_scheduled") == "0" &&
			infoField(t, p.HotKV, "aof_rewrite_in_progress") == "0" &&
			infoField(t, p.HotKV, "rdb_bgsave_in_progress") == "0"
	})
}

// TestAppendonlyOffKillsRewrite is unit/aofrw's "Turning off AOF kills the
// background writing child if any": CONFIG SET appendonly no stops a
// running rewrite at once (Redis kills its child) and leaves no temporary
// file behind.
func TestAppendonlyOffKillsRewrite(t *testing.T) {
	p, _, _, _ := bhvPair(t, "--appendonly", "yes", "--aof-use-rdb-preamble", "no")
	for _, c := range []*difftest.Conn{p.Redis, p.HotKV} {
		waitFor(t, func() bool { return infoField(t, c, "aof_rewrite_in_progress") == "0" })
	}
	p.Do("SET k v")
	p.Do("CONFIG SET rdb-key-save-delay 10000000")
	p.Do("BGREWRITEAOF")
	p.Do("CONFIG SET appendonly no")
	start := time.Now()
	for _, c := range []*difftest.Conn{p.Redis, p.HotKV} {
		waitFor(t, func() bool { return infoField(t, c, "aof_rewrite_in_progress") == "0" })
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the rewrite ran on for %v after appendonly no", d)
	}
	// A killed rewrite is neither a rewrite nor a failure.
	p.DoBoth("INFO persistence", func(r, h string) {
		for _, f := range []string{"aof_rewrites", "aof_last_bgrewrite_status", "aof_rewrites_consecutive_failures"} {
			if rv, hv := bhvField(r, f), bhvField(h, f); rv != hv {
				t.Errorf("%s: redis %q, hotkv %q", f, rv, hv)
			}
		}
	})
	dir := configDir(t, p.HotKV)
	waitFor(t, func() bool {
		m, _ := filepath.Glob(filepath.Join(dir, "*", "temp-*"))
		m2, _ := filepath.Glob(filepath.Join(dir, "temp-*"))
		return len(m)+len(m2) == 0
	})
	p.Do("CONFIG SET rdb-key-save-delay 0")
}

// TestShutdownKillsBgsave: SHUTDOWN NOSAVE kills a running BGSAVE, which
// removes its temporary file (Redis's prepareForShutdown kills the child
// and removes temp-<pid>.rdb), and the server exits at once.
func TestShutdownKillsBgsave(t *testing.T) {
	srv, addr := startServer(t)
	c := difftest.Dial(t, addr)
	c.Do("SET", "a", "1")
	c.Do("CONFIG", "SET", "rdb-key-save-delay", "10000000")
	if got := c.Do("BGSAVE"); got != "+Background saving started\r\n" {
		t.Fatalf("BGSAVE: %q", got)
	}
	dir := configDir(t, c)
	tmp := filepath.Join(dir, "temp-"+strconv.Itoa(bgChildPid(t, &srv.persist.child))+".rdb")
	waitFor(t, func() bool { _, err := os.Stat(tmp); return err == nil })
	c.Send(difftest.Encode("SHUTDOWN", "NOSAVE"))
	select {
	case <-srv.Done():
	case <-time.After(2 * time.Second):
		t.Fatal("SHUTDOWN NOSAVE waited for the BGSAVE")
	}
	waitFor(t, func() bool { _, err := os.Stat(tmp); return os.IsNotExist(err) })
	if _, err := os.Stat(filepath.Join(dir, "dump.rdb")); !os.IsNotExist(err) {
		t.Errorf("dump.rdb written by a killed BGSAVE: %v", err)
	}
}

// TestFlushallKillsBgsave is integration/rdb's "Test FLUSHALL aborts
// bgsave" against redis-server: FLUSHALL kills a running BGSAVE, which
// writes no file and is no failure (writes go on; the changes stay
// unsaved).
func TestFlushallKillsBgsave(t *testing.T) {
	p, _, _, _ := bhvPair(t)
	for i := 0; i < 20; i++ {
		p.Do("SET k" + strconv.Itoa(i) + " v")
	}
	p.Do("CONFIG SET rdb-key-save-delay 100000")
	p.Do("BGSAVE")
	p.Do("FLUSHALL")
	start := time.Now()
	for _, c := range []*difftest.Conn{p.Redis, p.HotKV} {
		waitFor(t, func() bool { return infoField(t, c, "rdb_bgsave_in_progress") == "0" })
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("the BGSAVE ran on for %v after FLUSHALL", d)
	}
	p.Do("CONFIG SET rdb-key-save-delay 0")
	p.Do("SET x xx")
	p.DoBoth("INFO persistence", func(r, h string) {
		if rv, hv := bhvField(r, "rdb_last_bgsave_status"), bhvField(h, "rdb_last_bgsave_status"); rv != hv {
			t.Errorf("rdb_last_bgsave_status: redis %q, hotkv %q", rv, hv)
		}
		if bhvField(h, "rdb_changes_since_last_save") == "0" {
			t.Error("the killed BGSAVE counted as a save")
		}
	})
	for _, c := range []*difftest.Conn{p.Redis, p.HotKV} {
		if _, err := os.Stat(filepath.Join(configDir(t, c), "dump.rdb")); !os.IsNotExist(err) {
			t.Errorf("dump.rdb after a killed BGSAVE: %v", err)
		}
	}
}

// TestSnapshotCopiesOnlyWhatChanges: a BGSAVE's snapshot reads the keys
// no command changes where they are, and copies only those changed
// before the encoder reached them (integration/rdb's "Test child sending
// info"): current_cow_size starts at 0, grows by at least what the
// changed values hold, stays far below the dataset's size, and ends in
// rdb_last_cow_size; the file has the values as they were when the save
// started, and the changes stay in the dataset.
func TestSnapshotCopiesOnlyWhatChanges(t *testing.T) {
	_, addr := startServer(t, "--save", "")
	c := difftest.Dial(t, addr)
	const n, size = 2000, 500
	old, changed := strings.Repeat("A", size), strings.Repeat("B", size)
	for i := range n {
		c.Do("SET", "key"+strconv.Itoa(i), old)
	}
	if got := infoField(t, c, "current_cow_size"); got != "0" {
		t.Fatalf("current_cow_size %q before any save", got)
	}
	c.Do("CONFIG", "SET", "rdb-key-save-delay", "250") // 0.5 s for the whole walk
	if got := c.Do("BGSAVE"); got != "+Background saving started\r\n" {
		t.Fatalf("BGSAVE: %q", got)
	}
	const modified = 16
	for i := range modified {
		c.Do("SETRANGE", "key"+strconv.Itoa(i), "0", changed)
	}
	cow, _ := strconv.Atoi(infoField(t, c, "current_cow_size"))
	// The walk may have reached a few of them first: most were copied.
	if cow < modified/2*size || cow > n*size/10 {
		t.Errorf("current_cow_size %d after changing %d values of %d bytes (dataset %d bytes)", cow, modified, size, n*size)
	}
	// A loaded machine sleeps longer than asked: no 5 s bound here.
	for deadline := time.Now().Add(time.Minute); infoField(t, c, "rdb_bgsave_in_progress") != "0"; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the BGSAVE did not end in a minute")
		}
	}
	if got := infoField(t, c, "rdb_last_bgsave_status"); got != "ok" {
		t.Fatalf("rdb_last_bgsave_status %q", got)
	}
	if last, _ := strconv.Atoi(infoField(t, c, "rdb_last_cow_size")); last < cow {
		t.Errorf("rdb_last_cow_size %d, current_cow_size was %d", last, cow)
	}
	if got := infoField(t, c, "current_cow_size"); got != "0" {
		t.Errorf("current_cow_size %q after the save", got)
	}
	if got := c.Do("GET", "key0"); got != "$500\r\n"+changed+"\r\n" {
		t.Errorf("GET key0 after the save: %.20q", got)
	}
	// The file holds the dataset as it was when BGSAVE started.
	_, raddr := startServer(t, "--dir", configDir(t, c), "--save", "")
	r := difftest.Dial(t, raddr)
	if got := r.Do("DBSIZE"); got != ":"+strconv.Itoa(n)+"\r\n" {
		t.Fatalf("DBSIZE of the loaded file: %q", got)
	}
	for _, i := range []int{0, modified - 1, modified, n - 1} {
		if got := r.Do("GET", "key"+strconv.Itoa(i)); got != "$500\r\n"+old+"\r\n" {
			t.Errorf("key%d in the file: %.20q", i, got)
		}
	}
}
