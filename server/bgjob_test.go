package server

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hotkv/hotkv/bgchild"
	"github.com/hotkv/hotkv/internal/difftest"
)

// The test binary is the executable a server starts as its background
// child: bgchild's init enters child mode before TestMain runs.

// bgChildPid waits for the running job's child (p: persistState.child or
// aofState.child) and returns its pid, checking that it is a child of
// this process (what Redis's tests find with pgrep -P).
func bgChildPid(t *testing.T, p *atomic.Pointer[bgchild.Child]) int {
	t.Helper()
	var pid int
	waitFor(t, func() bool {
		if ch := p.Load(); ch != nil {
			pid = ch.Pid()
		}
		return pid != 0
	})
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	// pid (comm) state ppid ...
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	if ppid, _ := strconv.Atoi(f[1]); ppid != os.Getpid() {
		t.Fatalf("child %d has parent %d, want %d", pid, ppid, os.Getpid())
	}
	return pid
}

func fileGone(path string) bool { _, err := os.Stat(path); return os.IsNotExist(err) }

// TestBgsaveChildKilled is integration/rdb's "failed bgsave prevents
// writes": a BGSAVE whose child is killed (kill -9, while the parent
// sleeps in rdb-key-save-delay) fails at once: rdb_last_bgsave_status
// err, writes refused with MISCONF, the child's temporary file removed;
// the next BGSAVE works and writes are accepted again; the file it wrote
// loads back to the same dataset.
func TestBgsaveChildKilled(t *testing.T) {
	logfile := filepath.Join(t.TempDir(), "log")
	srv, addr := startServer(t, "--save", "900 1", "--logfile", logfile)
	c := difftest.Dial(t, addr)
	for i := 0; i < 100; i++ {
		c.Do("SET", "k"+strconv.Itoa(i), strconv.Itoa(i))
	}
	c.Do("RPUSH", "l", "a", "b")
	c.Do("CONFIG", "SET", "rdb-key-save-delay", "10000000")
	if got := c.Do("BGSAVE"); got != "+Background saving started\r\n" {
		t.Fatalf("BGSAVE: %q", got)
	}
	dir := configDir(t, c)
	pid := bgChildPid(t, &srv.persist.child)
	tmp := filepath.Join(dir, "temp-"+strconv.Itoa(pid)+".rdb")
	waitFor(t, func() bool { return !fileGone(tmp) })
	// The progress INFO shows (101 keys, the first one being delayed).
	if got, done := infoField(t, c, "current_save_keys_total"), infoField(t, c, "current_save_keys_processed"); got != "101" || done != "0" {
		t.Errorf("current_save_keys_total %q, current_save_keys_processed %q", got, done)
	}
	start := time.Now()
	syscall.Kill(pid, syscall.SIGKILL)
	waitFor(t, func() bool { return infoField(t, c, "rdb_bgsave_in_progress") == "0" })
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the killed child's end was seen after %v", d)
	}
	if got := infoField(t, c, "rdb_last_bgsave_status"); got != "err" {
		t.Errorf("rdb_last_bgsave_status %q", got)
	}
	if got := infoField(t, c, "current_save_keys_total"); got != "0" {
		t.Errorf("current_save_keys_total %q after the job", got)
	}
	if got := c.Do("SET", "x", "y"); !strings.HasPrefix(got, "-MISCONF ") {
		t.Errorf("SET after the failed BGSAVE: %q", got)
	}
	if got := c.Do("GET", "k1"); got != "$1\r\n1\r\n" {
		t.Errorf("GET: %q", got)
	}
	if !fileGone(tmp) {
		t.Errorf("%s left behind", tmp)
	}
	if !fileGone(filepath.Join(dir, "dump.rdb")) {
		t.Errorf("dump.rdb written by the killed child")
	}
	c.Do("CONFIG", "SET", "rdb-key-save-delay", "0")
	c.Do("BGSAVE")
	waitFor(t, func() bool { return infoField(t, c, "rdb_bgsave_in_progress") == "0" })
	if got := infoField(t, c, "rdb_last_bgsave_status"); got != "ok" {
		t.Errorf("rdb_last_bgsave_status after a good BGSAVE: %q", got)
	}
	if got := c.Do("SET", "x", "y"); got != "+OK\r\n" {
		t.Errorf("SET after the good BGSAVE: %q", got)
	}
	log, _ := os.ReadFile(logfile)
	for _, want := range []string{"Background saving started by pid " + strconv.Itoa(pid),
		"# Background saving terminated by signal 9", "* DB saved on disk", "Background saving terminated with success"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	// The file loads back.
	_, addr2 := startServer(t, "--dir", dir)
	c2 := difftest.Dial(t, addr2)
	if got := c2.Do("DBSIZE"); got != ":101\r\n" {
		t.Errorf("DBSIZE of the loaded snapshot: %q", got)
	}
	if got := c2.Do("LRANGE", "l", "0", "-1"); got != "*2\r\n$1\r\na\r\n$1\r\nb\r\n" {
		t.Errorf("LRANGE: %q", got)
	}
}

// manifestIncrs returns the incremental files the AOF manifest in dir
// lists.
func manifestIncrs(t *testing.T, dir string) (base string, incrs []string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		if len(f) == 6 && f[5] == "i" {
			incrs = append(incrs, f[1])
		} else if len(f) == 6 && f[5] == "b" {
			base = f[1]
		}
	}
	return base, incrs
}

// TestRewriteChildKilled is aof-multi-part's "AOF multiple rewrite
// failures will open multiple INCR AOFs": each BGREWRITEAOF whose child
// is killed fails (aof_last_bgrewrite_status err), leaves no
// temp-rewriteaof-bg-<pid>.aof, and leaves the incremental file it opened
// in the manifest; the next rewrite succeeds and makes them history.
func TestRewriteChildKilled(t *testing.T) {
	logfile := filepath.Join(t.TempDir(), "log")
	srv, addr := startServer(t, "--appendonly", "yes", "--logfile", logfile)
	c := difftest.Dial(t, addr)
	dir := configDir(t, c)
	c.Do("SET", "a", "1")
	c.Do("CONFIG", "SET", "rdb-key-save-delay", "10000000")
	var pids []int
	for i := 0; i < 3; i++ {
		if got := c.Do("BGREWRITEAOF"); got != "+Background append only file rewriting started\r\n" {
			t.Fatalf("BGREWRITEAOF: %q", got)
		}
		pid := bgChildPid(t, &srv.aof.child)
		pids = append(pids, pid)
		c.Do("INCR", "a")
		syscall.Kill(pid, syscall.SIGKILL)
		waitFor(t, func() bool { return infoField(t, c, "aof_rewrite_in_progress") == "0" })
		if got := infoField(t, c, "aof_last_bgrewrite_status"); got != "err" {
			t.Errorf("aof_last_bgrewrite_status %q", got)
		}
	}
	for _, pid := range pids {
		if tmp := filepath.Join(dir, "temp-rewriteaof-bg-"+strconv.Itoa(pid)+".aof"); !fileGone(tmp) {
			t.Errorf("%s left behind", tmp)
		}
	}
	if base, incrs := manifestIncrs(t, dir); base != "appendonly.aof.1.base.rdb" || len(incrs) != 4 {
		t.Errorf("manifest after 3 failed rewrites: base %s, incrs %v", base, incrs)
	}
	c.Do("CONFIG", "SET", "rdb-key-save-delay", "0")
	c.Do("BGREWRITEAOF")
	waitFor(t, func() bool { return infoField(t, c, "aof_rewrite_in_progress") == "0" })
	if got := infoField(t, c, "aof_last_bgrewrite_status"); got != "ok" {
		t.Errorf("aof_last_bgrewrite_status after a good rewrite: %q", got)
	}
	if base, incrs := manifestIncrs(t, dir); base != "appendonly.aof.2.base.rdb" || len(incrs) != 1 || incrs[0] != "appendonly.aof.5.incr.aof" {
		t.Errorf("manifest after the good rewrite: base %s, incrs %v", base, incrs)
	}
	log, _ := os.ReadFile(logfile)
	if n := strings.Count(string(log), "# Background AOF rewrite terminated by signal 9"); n != 3 {
		t.Errorf("%d lines 'terminated by signal 9', want 3:\n%s", n, log)
	}
	// The files load back.
	c.Send(difftest.Encode("SHUTDOWN", "NOSAVE"))
	<-srv.Done()
	_, addr2 := startServer(t, "--dir", dir, "--appendonly", "yes")
	if got := difftest.Dial(t, addr2).Do("GET", "a"); got != "$1\r\n4\r\n" {
		t.Errorf("GET a after reload: %q", got)
	}
}

// TestInitialRewriteChildKilled is aof-multi-part's "AOF will open a
// temporary INCR AOF to accumulate data until the first AOFRW success when
// AOF is dynamically enabled": the first rewrite's child killed, the
// temporary incremental file is removed, no manifest or base is written,
// and another rewrite starts by itself; once that one succeeds, the
// directory holds the whole dataset.
func TestInitialRewriteChildKilled(t *testing.T) {
	logfile := filepath.Join(t.TempDir(), "log")
	srv, addr := startServer(t, "--logfile", logfile)
	c := difftest.Dial(t, addr)
	dir := configDir(t, c)
	c.Do("SET", "a", "1")
	c.Do("CONFIG", "SET", "rdb-key-save-delay", "10000000")
	c.Do("CONFIG", "SET", "appendonly", "yes")
	pid := bgChildPid(t, &srv.aof.child)
	c.Do("SET", "b", "2")
	syscall.Kill(pid, syscall.SIGKILL)
	waitFor(t, func() bool {
		log, _ := os.ReadFile(logfile)
		return strings.Contains(string(log), "Removing the temp incr aof file")
	})
	if !fileGone(filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest")) {
		t.Errorf("manifest written by a failed first rewrite")
	}
	// The next rewrite starts by itself (the cron), with a child of its own.
	var pid2 int
	waitFor(t, func() bool {
		if ch := srv.aof.child.Load(); ch != nil && ch.Pid() != pid {
			pid2 = ch.Pid()
		}
		return pid2 != 0
	})
	c.Do("SET", "c", "3")
	// The child keeps the delay it started with, as Redis's: lowered, it
	// applies to the next one, which the cron starts once this one is killed.
	c.Do("CONFIG", "SET", "rdb-key-save-delay", "0")
	syscall.Kill(pid2, syscall.SIGKILL)
	waitFor(t, func() bool {
		return infoField(t, c, "aof_rewrite_in_progress") == "0" && infoField(t, c, "aof_last_bgrewrite_status") == "ok"
	})
	c.Do("SET", "d", "4")
	c.Send(difftest.Encode("SHUTDOWN", "NOSAVE"))
	<-srv.Done()
	_, addr2 := startServer(t, "--dir", dir, "--appendonly", "yes")
	if got := difftest.Dial(t, addr2).Do("MGET", "a", "b", "c", "d"); got != "*4\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n$1\r\n4\r\n" {
		t.Errorf("MGET after reload: %q", got)
	}
}

// TestBgChildNotStarted: when the child cannot be started, BGSAVE and
// BGREWRITEAOF fail as Redis's do when fork fails: logged, an error
// reply, the status err; nothing hangs, and the next try works.
func TestBgChildNotStarted(t *testing.T) {
	logfile := filepath.Join(t.TempDir(), "log")
	_, addr := startServer(t, "--logfile", logfile)
	c := difftest.Dial(t, addr)
	c.Do("SET", "a", "1")
	bgchild.SetExecutable("/nonexistent/hotkv")
	defer bgchild.SetExecutable("")
	if got := c.Do("BGSAVE"); got != "-ERR\r\n" {
		t.Errorf("BGSAVE: %q", got)
	}
	if got := c.Do("BGREWRITEAOF"); got != "-"+errAOFRewriteFailed+"\r\n" {
		t.Errorf("BGREWRITEAOF: %q", got)
	}
	bgchild.SetExecutable("")
	if got := infoField(t, c, "rdb_last_bgsave_status"); got != "err" {
		t.Errorf("rdb_last_bgsave_status %q", got)
	}
	if got := infoField(t, c, "aof_last_bgrewrite_status"); got != "err" {
		t.Errorf("aof_last_bgrewrite_status %q", got)
	}
	log, _ := os.ReadFile(logfile)
	for _, want := range []string{"# Can't save in background: fork: No such file or directory",
		"# Can't rewrite append only file in background: fork: No such file or directory"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	if got := c.Do("BGSAVE"); got != "+Background saving started\r\n" {
		t.Errorf("BGSAVE after: %q", got)
	}
	waitFor(t, func() bool { return infoField(t, c, "rdb_bgsave_in_progress") == "0" })
	if got := infoField(t, c, "rdb_last_bgsave_status"); got != "ok" {
		t.Errorf("rdb_last_bgsave_status after: %q", got)
	}
}

// TestOneChildAtATime: as in Redis, BGSAVE during an AOF rewrite is
// refused (or, with SCHEDULE, started by the cron once the rewrite's
// child is done), so that the server has one child at a time.
func TestOneChildAtATime(t *testing.T) {
	p, _, _, _ := bhvPair(t)
	p.Do("SET k v")
	p.Do("CONFIG SET rdb-key-save-delay 1000000")
	p.Do("BGREWRITEAOF")
	p.Do("BGSAVE")
	p.Do("BGSAVE SCHEDULE")
	p.Do("CONFIG SET rdb-key-save-delay 0")
	for _, c := range []*difftest.Conn{p.Redis, p.HotKV} {
		waitFor(t, func() bool {
			return infoField(t, c, "aof_rewrite_in_progress") == "0" && infoField(t, c, "rdb_bgsave_in_progress") == "0" &&
				infoField(t, c, "rdb_saves") == "1"
		})
	}
}

// TestRewriteLimit is aof-multi-part's "AOF will trigger limit when AOFRW
// fails many times": after 3 failed rewrites the cron's automatic rewrite
// is held back (logged once, no new INCR file); BGREWRITEAOF still runs.
func TestRewriteLimit(t *testing.T) {
	logfile := filepath.Join(t.TempDir(), "log")
	srv, addr := startServer(t, "--appendonly", "yes", "--logfile", logfile)
	c := difftest.Dial(t, addr)
	dir := configDir(t, c)
	c.Do("CONFIG", "SET", "rdb-key-save-delay", "10000000")
	c.Do("SET", "k", "v")
	for i := 0; i < 3; i++ {
		c.Do("BGREWRITEAOF")
		syscall.Kill(bgChildPid(t, &srv.aof.child), syscall.SIGKILL)
		waitFor(t, func() bool { return infoField(t, c, "aof_rewrite_in_progress") == "0" })
	}
	_, before := manifestIncrs(t, dir)
	c.Do("CONFIG", "SET", "auto-aof-rewrite-percentage", "1")
	c.Do("CONFIG", "SET", "auto-aof-rewrite-min-size", "1kb")
	c.Do("SET", "x", strings.Repeat("x", 1024))
	waitFor(t, func() bool {
		log, _ := os.ReadFile(logfile)
		return strings.Contains(string(log), "# Background AOF rewrite has repeatedly failed and triggered the limit, will retry in 1 minutes")
	})
	time.Sleep(300 * time.Millisecond) // a few crons
	if got := infoField(t, c, "aof_rewrite_in_progress"); got != "0" {
		t.Errorf("aof_rewrite_in_progress %q under the limit", got)
	}
	if _, after := manifestIncrs(t, dir); len(after) != len(before) {
		t.Errorf("INCR files %v, then %v under the limit", before, after)
	}
	log, _ := os.ReadFile(logfile)
	if n := strings.Count(string(log), "triggered the limit"); n != 1 {
		t.Errorf("the limit logged %d times", n)
	}
	c.Do("CONFIG", "SET", "auto-aof-rewrite-percentage", "0")
	c.Do("CONFIG", "SET", "rdb-key-save-delay", "0")
	if got := c.Do("BGREWRITEAOF"); got != "+Background append only file rewriting started\r\n" {
		t.Errorf("BGREWRITEAOF under the limit: %q", got)
	}
	waitFor(t, func() bool { return infoField(t, c, "aof_rewrite_in_progress") == "0" })
	if got := infoField(t, c, "aof_last_bgrewrite_status"); got != "ok" {
		t.Errorf("aof_last_bgrewrite_status %q", got)
	}
}

// TestAOFAutoGCOn: CONFIG SET aof-disable-auto-gc no removes the history
// files at once, as Redis's updateAofAutoGCEnabled.
func TestAOFAutoGCOn(t *testing.T) {
	_, addr := startServer(t, "--appendonly", "yes", "--aof-disable-auto-gc", "yes")
	c := difftest.Dial(t, addr)
	dir := configDir(t, c)
	history := func() int {
		b, _ := os.ReadFile(filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest"))
		return strings.Count(string(b), " type h\n")
	}
	for i := 0; i < 2; i++ {
		c.Do("SET", "k", strconv.Itoa(i))
		c.Do("BGREWRITEAOF")
		waitFor(t, func() bool { return infoField(t, c, "aof_rewrite_in_progress") == "0" })
	}
	if n := history(); n != 4 {
		t.Fatalf("%d history files with aof-disable-auto-gc yes, want 4", n)
	}
	c.Do("CONFIG", "SET", "aof-disable-auto-gc", "no")
	if n := history(); n != 0 {
		t.Errorf("%d history files after aof-disable-auto-gc no", n)
	}
}

// TestDebugAOFFlushSleep: DEBUG AOF-FLUSH-SLEEP makes a flush with data
// sleep first (the reply waits for the file).
func TestDebugAOFFlushSleep(t *testing.T) {
	_, addr := startServer(t, "--appendonly", "yes", "--enable-debug-command", "yes")
	c := difftest.Dial(t, addr)
	if got := c.Do("DEBUG", "AOF-FLUSH-SLEEP", "300000"); got != "+OK\r\n" {
		t.Fatalf("DEBUG AOF-FLUSH-SLEEP: %q", got)
	}
	start := time.Now()
	c.Do("SET", "k", "v")
	if d := time.Since(start); d < 250*time.Millisecond {
		t.Errorf("SET replied after %v with a 300 ms flush sleep", d)
	}
	c.Do("DEBUG", "AOF-FLUSH-SLEEP", "0")
	start = time.Now()
	c.Do("SET", "k", "v")
	if d := time.Since(start); d > 250*time.Millisecond {
		t.Errorf("SET replied after %v without the sleep", d)
	}
}
