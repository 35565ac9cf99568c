package server

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/difftest"
)

// linkUp waits until replica r's link to its master is up.
func linkUp(t *testing.T, r *difftest.Conn) {
	t.Helper()
	waitFor(t, func() bool { return strings.Contains(r.Do("INFO", "replication"), "master_link_status:up") })
}

// TestReplicaDiskLoad: with repl-diskless-load disabled (the default) the
// payload goes to a file that becomes the replica's snapshot file, then
// is loaded from it; rdb-del-sync-files removes it when the replica keeps
// no persistence. on-empty-db loads from the socket when the dataset is
// empty, through a file when it is not.
func TestReplicaDiskLoad(t *testing.T) {
	_, master := startServer(t, "--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0", "--enable-debug-command", "yes")
	_, mport, _ := net.SplitHostPort(master)
	m := difftest.Dial(t, master)
	m.Do("DEBUG", "POPULATE", "1000")
	for _, tc := range []struct {
		name, mode string
		populate   bool // the replica has data before it syncs
		delSync    string
		toDisk     bool
		fileKept   bool
	}{
		{"disabled", "disabled", false, "no", true, true},
		{"disabled-del-sync-files", "disabled", false, "yes", true, false},
		{"on-empty-db-empty", "on-empty-db", false, "no", false, false},
		{"on-empty-db-not-empty", "on-empty-db", true, "no", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			logfile := filepath.Join(dir, "log")
			_, replica := startServer(t, "--dir", dir, "--logfile", logfile, "--repl-diskless-load", tc.mode,
				"--rdb-del-sync-files", tc.delSync, "--enable-debug-command", "yes")
			r := difftest.Dial(t, replica)
			if tc.populate {
				r.Do("DEBUG", "POPULATE", "10", "replica")
			}
			r.Do("REPLICAOF", "127.0.0.1", mport)
			linkUp(t, r)
			if got := r.Do("DBSIZE"); got != ":1000\r\n" {
				t.Errorf("DBSIZE after the sync: %q", got)
			}
			log, _ := os.ReadFile(logfile)
			want := "receiving streamed RDB from master with EOF to parser"
			if tc.toDisk {
				want = "receiving streamed RDB from master with EOF to disk"
			}
			if !strings.Contains(string(log), want) {
				t.Errorf("the log lacks %q:\n%s", want, log)
			}
			_, err := os.Stat(filepath.Join(dir, "dump.rdb"))
			if kept := err == nil; kept != tc.fileKept {
				t.Errorf("dump.rdb kept: %v, want %v", kept, tc.fileKept)
			}
			if temps, _ := filepath.Glob(filepath.Join(dir, "temp-*.rdb")); len(temps) > 0 {
				t.Errorf("temporary files left: %v", temps)
			}
		})
	}
}

// TestReplicaSwapdbLoad: with repl-diskless-load swapdb a replica that
// follows the master's history already keeps serving its old dataset
// (and functions) while it loads a new full synchronization
// (async_loading), refuses no-async-loading commands with LOADING, keeps
// the old dataset when the load fails, and swaps in the new one when it
// succeeds.
func TestReplicaSwapdbLoad(t *testing.T) {
	_, master := startServer(t, "--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0", "--enable-debug-command", "yes")
	_, mport, _ := net.SplitHostPort(master)
	_, replica := startServer(t, "--repl-diskless-load", "swapdb", "--replica-read-only", "no", "--enable-debug-command", "yes")
	m, r := difftest.Dial(t, master), difftest.Dial(t, replica)
	r.Do("REPLICAOF", "127.0.0.1", mport)
	linkUp(t, r)
	r.Do("SET", "mykey", "myvalue")
	r.Do("FUNCTION", "LOAD", "#!lua name=test\nredis.register_function('test', function() return 'hello1' end)")
	m.Do("FUNCTION", "LOAD", "#!lua name=test\nredis.register_function('test', function() return 'hello2' end)")
	m.Do("DEBUG", "POPULATE", "2000", "master", "100")
	// A full synchronization again: the replica's offset falls out of
	// the master's backlog while it is disconnected.
	fullSync := func() {
		m.Do("MULTI")
		m.Do("CLIENT", "KILL", "TYPE", "replica")
		m.Do("CONFIG", "SET", "repl-backlog-size", "16384")
		for i := range 10 {
			m.Do("SET", "big"+string(rune('0'+i)), strings.Repeat("A", 16384))
		}
		m.Do("EXEC")
	}
	// A load that fails: the old dataset stays. The master produces the
	// payload slowly (2,000 keys: 4 s), and its link is killed meanwhile.
	m.Do("CONFIG", "SET", "rdb-key-save-delay", "2000")
	fullSync()
	waitFor(t, func() bool { return strings.Contains(r.Do("INFO", "persistence"), "async_loading:1\r\n") })
	if got := r.Do("GET", "mykey"); got != "$7\r\nmyvalue\r\n" {
		t.Errorf("GET during the asynchronous load: %q", got)
	}
	if info := r.Do("INFO", "replication"); !strings.Contains(info, "master_sync_in_progress:1\r\n") || !strings.Contains(info, "master_sync_read_bytes:") {
		t.Errorf("INFO replication during the load:\n%s", info)
	}
	if got := r.Do("FCALL", "test", "0"); got != "$6\r\nhello1\r\n" {
		t.Errorf("FCALL during the asynchronous load: %q", got)
	}
	if got := r.Do("REPLICAOF", "NO", "ONE"); got != "-"+errLoading+"\r\n" {
		t.Errorf("REPLICAOF NO ONE during the asynchronous load: %q", got)
	}
	if got := r.Do("CONFIG", "SET", "appendonly", "no"); got != "-"+errLoading+"\r\n" {
		t.Errorf("CONFIG SET appendonly during the asynchronous load: %q", got)
	}
	m.Do("CONFIG", "SET", "repl-diskless-sync-delay", "5") // no new sync at once
	m.Do("CLIENT", "KILL", "TYPE", "replica")
	waitFor(t, func() bool { return strings.Contains(r.Do("INFO", "persistence"), "async_loading:0\r\n") })
	if got := r.Do("GET", "mykey"); got != "$7\r\nmyvalue\r\n" {
		t.Errorf("GET after a failed load: %q", got)
	}
	if got := r.Do("FCALL", "test", "0"); got != "$6\r\nhello1\r\n" {
		t.Errorf("FCALL after a failed load: %q", got)
	}

	// One that succeeds: the new dataset and functions.
	m.Do("CONFIG", "SET", "rdb-key-save-delay", "0")
	m.Do("CONFIG", "SET", "repl-diskless-sync-delay", "0")
	linkUp(t, r)
	if got := r.Do("GET", "mykey"); got != "$-1\r\n" {
		t.Errorf("GET after the swap: %q", got)
	}
	if got := r.Do("FCALL", "test", "0"); got != "$6\r\nhello2\r\n" {
		t.Errorf("FCALL after the swap: %q", got)
	}
	if got, want := r.Do("DBSIZE"), m.Do("DBSIZE"); got != want {
		t.Errorf("DBSIZE after the swap: %q, the master's %q", got, want)
	}
}

// TestReplicaRestartContinues: a replica's snapshot records its master's
// stream (ID, offset, the stream's database), and the replica restarted
// from it continues the stream with a partial synchronization — the
// writes made while it was down included, in the database the stream had
// selected — where a full one would be needed otherwise.
func TestReplicaRestartContinues(t *testing.T) {
	_, master := startServer(t, "--repl-diskless-sync-delay", "0")
	_, mport, _ := net.SplitHostPort(master)
	m := difftest.Dial(t, master)
	dir := t.TempDir()
	rs, replica := startServer(t, "--dir", dir, "--replicaof", "127.0.0.1", mport)
	r := difftest.Dial(t, replica)
	linkUp(t, r)
	m.Do("SELECT", "3")
	m.Do("SET", "before", "1")
	waitFor(t, func() bool { r.Do("SELECT", "3"); return r.Do("GET", "before") == "$1\r\n1\r\n" })
	if got := r.Do("SAVE"); got != "+OK\r\n" {
		t.Fatalf("SAVE on the replica: %q", got)
	}
	r.Close()
	rs.Shutdown(t.Context())
	m.Do("SET", "while", "down") // still in database 3: no SELECT in the stream
	partial, full := between(m.Do("INFO", "stats"), "sync_partial_ok:", "\r\n"), between(m.Do("INFO", "stats"), "sync_full:", "\r\n")

	_, replica = startServer(t, "--dir", dir, "--replicaof", "127.0.0.1", mport)
	r = difftest.Dial(t, replica)
	linkUp(t, r)
	r.Do("SELECT", "3")
	waitFor(t, func() bool { return r.Do("GET", "while") == "$4\r\ndown\r\n" })
	if got := between(m.Do("INFO", "stats"), "sync_full:", "\r\n"); got != full {
		t.Errorf("sync_full %s -> %s: the restarted replica synchronized in full", full, got)
	}
	if got := between(m.Do("INFO", "stats"), "sync_partial_ok:", "\r\n"); got == partial {
		t.Errorf("sync_partial_ok stayed %s", got)
	}
	mo := between(m.Do("INFO", "replication"), "master_repl_offset:", "\r\n")
	waitFor(t, func() bool { return between(r.Do("INFO", "replication"), "master_repl_offset:", "\r\n") == mo })
}

// TestReplicaMasterSeesExpired: a command of the master's stream that
// reaches a replica after the key it names expired by the replica's clock
// applies to the key as it is, as Redis's master client sees it: the
// INCR gives 2 and keeps the expiry, the key stays stored (DEBUG OBJECT)
// and reads as missing to the replica's clients.
func TestReplicaMasterSeesExpired(t *testing.T) {
	_, master := startServer(t, "--repl-diskless-sync-delay", "0", "--enable-debug-command", "yes")
	_, mport, _ := net.SplitHostPort(master)
	_, replica := startServer(t, "--replicaof", "127.0.0.1", mport, "--enable-debug-command", "yes")
	m, r := difftest.Dial(t, master), difftest.Dial(t, replica)
	linkUp(t, r)
	m.Do("DEBUG", "SET-ACTIVE-EXPIRE", "0")
	m.Do("SET", "k", "1", "PX", "300")
	waitFor(t, func() bool { return r.Do("GET", "k") == "$1\r\n1\r\n" })
	// The replica applies nothing for 500 ms (a pause holds its master's
	// stream), as Redis's test stops it with SIGSTOP.
	r.Do("CLIENT", "PAUSE", "500", "WRITE")
	m.Do("INCR", "k") // applied by the replica after the key expired there
	mo := between(m.Do("INFO", "replication"), "master_repl_offset:", "\r\n")
	waitFor(t, func() bool { return between(r.Do("INFO", "replication"), "master_repl_offset:", "\r\n") == mo })
	if got := r.Do("EXISTS", "k"); got != ":0\r\n" {
		t.Errorf("EXISTS of the expired key on the replica: %q", got)
	}
	if got := r.Do("DEBUG", "OBJECT", "k"); !strings.HasPrefix(got, "+Value at:") {
		t.Errorf("DEBUG OBJECT of the expired key on the replica: %q (the master's INCR recreated or lost it)", got)
	}
	if got, want := r.Do("DEBUG", "DIGEST-VALUE", "k"), m.Do("DEBUG", "DIGEST-VALUE", "k"); got != want {
		t.Errorf("the key's value on the replica %q, on the master %q", got, want)
	}
}

// TestReplicaFlushallSaves: a replica with save points applies its
// master's FLUSHALL, which saves (as Redis's flushall does): the save,
// inside the master client's own command, records the stream's offset
// without waiting for that command to be counted (it once waited for
// itself, and the replica stopped applying the stream).
func TestReplicaFlushallSaves(t *testing.T) {
	_, a := startServer(t, "--repl-diskless-sync-delay", "0")
	_, b := startServer(t, "--save", "900 1")
	_, aport, _ := net.SplitHostPort(a)
	ac, bc := difftest.Dial(t, a), difftest.Dial(t, b)
	bc.Do("REPLICAOF", "127.0.0.1", aport)
	linkUp(t, bc)
	ac.Do("SET", "key", "value")
	ac.Do("FLUSHALL")
	ac.Do("SET", "after", "1")
	off := func(c *difftest.Conn) string {
		return between(c.Do("INFO", "replication"), "master_repl_offset:", "\r\n")
	}
	waitFor(t, func() bool { return off(ac) == off(bc) })
	if got := bc.Do("DBSIZE"); got != ":1\r\n" {
		t.Errorf("DBSIZE on the replica: %q", got)
	}
}
