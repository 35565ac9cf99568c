package server

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/config"
	"github.com/hotkv/hotkv/internal/difftest"
	"github.com/hotkv/hotkv/tier"
)

// tierInfo returns an INFO tiering field as a number.
func tierInfo(t *testing.T, c *difftest.Conn, field string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(bhvField(c.Do("INFO", "tiering"), field), 10, 64)
	if err != nil {
		t.Fatalf("INFO tiering %s: %v", field, err)
	}
	return n
}

// startTiered starts a server with the disk tier on, a one-byte budget
// and eager demotion: every value a command touched is cold after it.
func startTiered(t *testing.T, args ...string) (*Server, *difftest.Conn) {
	t.Helper()
	port := difftest.FreePort(t)
	cfg, err := config.Load("", append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--dir", t.TempDir(), "--save", "", "--tiering", "yes", "--tiering-memory", "1", "--enable-debug-command", "yes"}, args...))
	if err != nil {
		t.Fatal(err)
	}
	s, addr := serveConfigWith(t, cfg, func(s *Server) { s.setEagerTiering(true) })
	return s, difftest.Dial(t, addr)
}

// fill writes one key of each kind, with values big enough to be held
// outside their entries.
func fill(c *difftest.Conn) {
	big := strings.Repeat("x", 300)
	c.Do("SET", "s", big)
	c.Do("SET", "small", "v")
	c.Do("RPUSH", "l", "a", "b", big)
	c.Do("HSET", "h", "f", big, "g", "1")
	c.Do("SADD", "set", "1", "2", "3")
	c.Do("ZADD", "z", "1", "a", "2", big)
	c.Do("XADD", "x", "1-1", "f", big)
}

var fillReads = [][]string{
	{"GET", "s"}, {"GET", "small"}, {"LRANGE", "l", "0", "-1"}, {"HGETALL", "h"},
	{"SMEMBERS", "set"}, {"ZRANGE", "z", "0", "-1", "WITHSCORES"}, {"XRANGE", "x", "-", "+"},
}

func TestTieringValuesRoundTrip(t *testing.T) {
	s, c := startTiered(t)
	fill(c)
	want := make([]string, len(fillReads))
	for i, r := range fillReads {
		want[i] = c.Do(r...)
	}
	if n := tierInfo(t, c, "tiering_values_on_disk"); n != 7 {
		t.Fatalf("values on disk %d, want 7", n)
	}
	loads := tierInfo(t, c, "tiering_loads")
	for i, r := range fillReads {
		if got := c.Do(r...); got != want[i] {
			t.Fatalf("%v after a round trip: %q, want %q", r, got, want[i])
		}
	}
	// Each read before its command's locks: none under them.
	if n := tierInfo(t, c, "tiering_loads"); n-loads != int64(len(fillReads)) {
		t.Fatalf("loads %d, want %d", n-loads, len(fillReads))
	}
	if n := tierInfo(t, c, "tiering_loads_under_lock"); n != 0 {
		t.Fatalf("loads under lock %d, want 0", n)
	}
	if tierInfo(t, c, "tiering_demotions") == 0 || !strings.Contains(c.Do("INFO", "keylocks"), "keylock_disk_reads:") {
		t.Fatal("INFO does not count")
	}
	_ = s
}

// Key-only commands never read the disk, and moving values changes no
// access time.
func TestTieringKeyCommandsReadNothing(t *testing.T) {
	_, c := startTiered(t)
	fill(c)
	c.Do("DEBUG", "SET-ACTIVE-EXPIRE", "0")
	loads := tierInfo(t, c, "tiering_loads")
	for _, cmd := range [][]string{
		{"EXISTS", "s", "l", "h"}, {"TYPE", "z"}, {"TTL", "s"}, {"PTTL", "l"}, {"EXPIRE", "h", "100"},
		{"PERSIST", "h"}, {"RENAME", "s", "s2"}, {"RENAMENX", "l", "l2"}, {"MOVE", "set", "1"},
		{"SET", "z", "overwritten"}, {"DEL", "x"}, {"UNLINK", "s2"}, {"DBSIZE"}, {"KEYS", "*"},
		{"SCAN", "0"}, {"RANDOMKEY"}, {"TOUCH", "h"}, {"SET", "h", "v", "XX"}, {"SETNX", "l2", "v"},
	} {
		c.Do(cmd...)
		if n := tierInfo(t, c, "tiering_loads"); n != loads {
			t.Fatalf("%v read the disk", cmd)
		}
	}
	if got := c.Do("LRANGE", "l2", "0", "-1"); !strings.Contains(got, "xxx") {
		t.Fatalf("renamed list reads %q", got)
	}
	c.Do("SELECT", "1")
	if got := c.Do("SCARD", "set"); got != ":3\r\n" {
		t.Fatalf("moved set: %q", got)
	}
}

func TestTieringIdleTimeUnchanged(t *testing.T) {
	_, c := startTiered(t)
	c.Do("SET", "k", strings.Repeat("v", 300))
	c.Do("DEBUG", "OBJECT", "k") // no touch
	c.Do("RESTORE", "r", "0", payloadOf(t, c, "k"), "IDLETIME", "1000")
	if got := c.Do("OBJECT", "IDLETIME", "r"); got != ":1000\r\n" {
		t.Fatalf("OBJECT IDLETIME of a value moved to disk and back: %q", got)
	}
}

// payloadOf is key's DUMP payload.
func payloadOf(t *testing.T, c *difftest.Conn, key string) string {
	t.Helper()
	r := c.Do("DUMP", key)
	i := strings.Index(r, "\r\n")
	return r[i+2 : len(r)-2]
}

// Snapshots copy cold values from the tier: SAVE (live) and BGSAVE
// (copy-on-write, through a view), each reloaded.
func TestTieringSnapshots(t *testing.T) {
	for _, save := range []string{"SAVE", "BGSAVE", "BGREWRITEAOF", "BGREWRITEAOF commands"} {
		t.Run(save, func(t *testing.T) {
			args, reload := []string{}, "RELOAD"
			switch save {
			case "BGREWRITEAOF":
				args, reload = []string{"--appendonly", "yes"}, "LOADAOF"
			case "BGREWRITEAOF commands": // a base of commands, not an RDB
				args, reload = []string{"--appendonly", "yes", "--aof-use-rdb-preamble", "no"}, "LOADAOF"
				save = "BGREWRITEAOF"
			}
			_, c := startTiered(t, args...)
			fill(c)
			want := make([]string, len(fillReads))
			for i, r := range fillReads {
				want[i] = c.Do(r...)
			}
			loads := tierInfo(t, c, "tiering_loads")
			if got := c.Do(save); strings.HasPrefix(got, "-") {
				t.Fatal(got)
			}
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				info := c.Do("INFO", "persistence")
				if bhvField(info, "rdb_bgsave_in_progress") == "0" && bhvField(info, "aof_rewrite_in_progress") == "0" {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the save does not end")
				}
			}
			if n := tierInfo(t, c, "tiering_loads"); n != loads {
				t.Fatalf("%s loaded %d values", save, n-loads)
			}
			if got := c.Do("DEBUG", reload); got != "+OK\r\n" {
				t.Fatal(got)
			}
			for i, r := range fillReads {
				if got := c.Do(r...); got != want[i] {
					t.Fatalf("%v after %s and DEBUG %s: %q, want %q", r, save, reload, got, want[i])
				}
			}
		})
	}
}

func TestTieringDirectives(t *testing.T) {
	_, c := startTiered(t)
	// tiering-dir is fixed once the tier is open; setting the value in
	// force is no change.
	want := "-ERR CONFIG SET failed (possibly related to argument 'tiering-dir') - " + errTieringDirOpen + "\r\n"
	if got := c.Do("CONFIG", "SET", "tiering-dir", "elsewhere"); got != want {
		t.Errorf("CONFIG SET tiering-dir elsewhere: %q, want %q", got, want)
	}
	expect(t, c, "+OK\r\n", "CONFIG", "SET", "tiering", "yes")
	if got := c.Do("CONFIG", "GET", "tiering"); !strings.Contains(got, "yes") {
		t.Errorf("CONFIG GET tiering: %q", got)
	}
	if got := c.Do("CONFIG", "SET", "tiering-memory", "10mb"); got != "+OK\r\n" {
		t.Fatalf("CONFIG SET tiering-memory: %q", got)
	}
	if got := c.Do("CONFIG", "GET", "tiering-memory"); !strings.Contains(got, "10485760") {
		t.Fatalf("CONFIG GET tiering-memory: %q", got)
	}
	if n := tierInfo(t, c, "tiering_memory_budget"); n != 10<<20 {
		t.Fatalf("budget %d", n)
	}
}

// An unusable tiering-dir refuses start-up with a message naming it.
func TestTieringDirRefusesStartup(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "afile")
	os.WriteFile(file, []byte("x"), 0o644)
	for _, td := range []string{file, dir} { // a file; a directory with other data
		cfg, err := config.Load("", []string{"--dir", dir, "--tiering", "yes", "--tiering-dir", td})
		if err != nil {
			t.Fatal(err)
		}
		s := New(cfg)
		err = s.CheckStartup()
		if err == nil || !strings.Contains(err.Error(), "tiering directory "+td) {
			t.Fatalf("CheckStartup with tiering-dir %s: %v", td, err)
		}
		if s.LoadData() == nil {
			t.Fatal("LoadData with an unusable tier")
		}
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatal("the tier removed a file it does not own")
	}
}

// slowDisk delays (or fails) the tier's reads.
type slowDisk struct {
	delay time.Duration
	fail  error
}

func (d slowDisk) Before(op tier.Op, _ uint64) error {
	if op != tier.OpRead {
		return nil
	}
	time.Sleep(d.delay)
	return d.fail
}

// startSlowTier starts a server whose demoter moves every value over 64
// bytes to disk (no eager mode), writes the keys with 300-byte values,
// waits until they are all cold, and then slows the disk's reads down.
func startSlowTier(t *testing.T, delay time.Duration, keys ...string) (*Server, string) {
	t.Helper()
	port := difftest.FreePort(t)
	cfg, err := config.Load("", []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--dir", t.TempDir(), "--save", "", "--tiering", "yes", "--tiering-memory", "1"})
	if err != nil {
		t.Fatal(err)
	}
	s, addr := serveConfigWith(t, cfg, func(*Server) {})
	c := difftest.Dial(t, addr)
	for _, k := range keys {
		c.Do("SET", k, strings.Repeat("v", 300))
	}
	for deadline := time.Now().Add(10 * time.Second); tierInfo(t, c, "tiering_values_on_disk") != int64(len(keys)); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the values do not move to disk")
		}
	}
	s.tier.store.SetDisk(slowDisk{delay: delay})
	return s, addr
}

// While a declared cold key loads, its tag is not locked: another
// client's command on the same tag runs meanwhile.
func TestTieringLoadBeforeLocks(t *testing.T) {
	const delay = 1500 * time.Millisecond // slack for a loaded machine under -race
	_, addr := startSlowTier(t, delay, "{t}:cold")
	a, b := difftest.Dial(t, addr), difftest.Dial(t, addr)
	start := time.Now()
	a.Send(difftest.Encode("GET", "{t}:cold"))
	time.Sleep(150 * time.Millisecond) // A is reading the disk
	if got := b.Do("SET", "{t}:other", "x"); got != "+OK\r\n" {
		t.Fatal(got)
	}
	if took := time.Since(start); took >= delay {
		t.Fatalf("a command on the same tag waited %v for another's disk read", took)
	}
	if got := a.Read(); got != "$300\r\n"+strings.Repeat("v", 300)+"\r\n" {
		t.Fatalf("GET of the cold key: %q", got)
	}
	if took := time.Since(start); took < delay {
		t.Fatalf("the load took %v, less than the disk's delay", took)
	}
	if n := tierInfo(t, b, "tiering_loads_under_lock"); n != 0 {
		t.Fatalf("loads under lock %d", n)
	}
}

// A script's dynamic cold key is read under the tag lock it holds: a
// command on that tag waits for it, one on another tag does not, and
// INFO counts it. The same script declaring the key loads it first.
func TestTieringDynamicKeyUnderLock(t *testing.T) {
	const delay = 1500 * time.Millisecond // slack for a loaded machine under -race
	_, addr := startSlowTier(t, delay, "{t}:cold", "{t}:cold2")
	a, b, other := difftest.Dial(t, addr), difftest.Dial(t, addr), difftest.Dial(t, addr)
	script := "#!lua flags=allow-key-locking\nreturn redis.call('GET', '{t}:' .. ARGV[1])"
	start := time.Now()
	a.Send(difftest.Encode("EVAL", script, "1", "{t}:hot", "cold"))
	time.Sleep(150 * time.Millisecond)
	if got := other.Do("SET", "{u}:x", "1"); got != "+OK\r\n" || time.Since(start) >= delay {
		t.Fatalf("another tag waited for a dynamic key's read: %q after %v", got, time.Since(start))
	}
	if got := b.Do("SET", "{t}:x", "1"); got != "+OK\r\n" || time.Since(start) < delay {
		t.Fatalf("the same tag did not wait for the dynamic key's read: %q after %v", got, time.Since(start))
	}
	if got := a.Read(); !strings.HasPrefix(got, "$300\r\n") {
		t.Fatalf("EVAL: %q", got)
	}
	if n := tierInfo(t, b, "tiering_loads_under_lock"); n != 1 {
		t.Fatalf("loads under lock %d, want 1", n)
	}
	// Declared: loaded before the locks; the tag stays free meanwhile.
	start = time.Now()
	a.Send(difftest.Encode("EVAL", "#!lua flags=allow-key-locking\nreturn redis.call('GET', KEYS[1])", "1", "{t}:cold2"))
	time.Sleep(150 * time.Millisecond)
	if got := b.Do("SET", "{t}:x", "2"); got != "+OK\r\n" || time.Since(start) >= delay {
		t.Fatalf("the tag was locked while a declared key loaded: %q after %v", got, time.Since(start))
	}
	if got := a.Read(); !strings.HasPrefix(got, "$300\r\n") {
		t.Fatalf("EVAL: %q", got)
	}
	if n := tierInfo(t, b, "tiering_loads_under_lock"); n != 1 {
		t.Fatalf("loads under lock %d, want still 1", n)
	}
}

// A disk that fails a read fails the command with a clear error; the
// value is still there once the disk works again.
func TestTieringReadFailure(t *testing.T) {
	s, addr := startSlowTier(t, 0, "k")
	c := difftest.Dial(t, addr)
	s.tier.store.SetDisk(slowDisk{fail: errors.New("input/output error")})
	if got := c.Do("GET", "k"); !strings.HasPrefix(got, "-ERR disk tier: ") || !strings.Contains(got, "input/output error") {
		t.Fatalf("GET on a failing disk: %q", got)
	}
	if got := c.Do("EXISTS", "k"); got != ":1\r\n" {
		t.Fatalf("EXISTS: %q", got)
	}
	s.tier.store.SetDisk(nil)
	if got := c.Do("GET", "k"); got != "$300\r\n"+strings.Repeat("v", 300)+"\r\n" {
		t.Fatalf("GET once the disk works: %q", got)
	}
}

// A dataset larger than the budget loads: values spill to disk as the
// snapshot loads, and read back unchanged.
func TestTieringLoadSpills(t *testing.T) {
	dir := t.TempDir()
	port := difftest.FreePort(t)
	cfg, err := config.Load("", []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--dir", dir, "--save", ""})
	if err != nil {
		t.Fatal(err)
	}
	_, addr := serveConfig(t, cfg)
	c := difftest.Dial(t, addr)
	for i := 0; i < 2000; i++ {
		c.Do("SET", "k"+strconv.Itoa(i), strings.Repeat("v", 200+i%100))
	}
	if got := c.Do("SAVE"); got != "+OK\r\n" {
		t.Fatal(got)
	}
	cfg, err = config.Load("", []string{"--port", strconv.Itoa(difftest.FreePort(t)), "--bind", "127.0.0.1",
		"--dir", dir, "--save", "", "--tiering", "yes", "--tiering-memory", "100kb"})
	if err != nil {
		t.Fatal(err)
	}
	_, addr = serveConfigWith(t, cfg, func(*Server) {})
	c = difftest.Dial(t, addr)
	if n := tierInfo(t, c, "tiering_values_on_disk"); n < 1000 {
		t.Fatalf("%d values on disk after loading 2000 over a 100 KB budget", n)
	}
	for i := 0; i < 2000; i += 97 {
		v := strings.Repeat("v", 200+i%100)
		if got := c.Do("GET", "k"+strconv.Itoa(i)); got != "$"+strconv.Itoa(len(v))+"\r\n"+v+"\r\n" {
			t.Fatalf("k%d: %q", i, got)
		}
	}
}

// TestTieringAOFLoadSpills: an append-only file's commands spill their
// values to disk as they load, as a snapshot's keys do: the load runs
// here without the demoter (LoadData before Serve), and most values end
// on disk.
func TestTieringAOFLoadSpills(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--port", strconv.Itoa(difftest.FreePort(t)), "--bind", "127.0.0.1", "--dir", dir,
		"--save", "", "--appendonly", "yes", "--aof-use-rdb-preamble", "no"}
	cfg, err := config.Load("", args)
	if err != nil {
		t.Fatal(err)
	}
	src, addr := serveConfig(t, cfg)
	c := difftest.Dial(t, addr)
	for i := 0; i < 2000; i++ {
		c.Do("SET", "k"+strconv.Itoa(i), strings.Repeat("v", 200+i%100))
	}
	src.Shutdown(context.Background())

	cfg, err = config.Load("", append(args, "--tiering", "yes", "--tiering-memory", "100kb"))
	if err != nil {
		t.Fatal(err)
	}
	s := New(cfg)
	t.Cleanup(s.closeTier)
	if err := s.LoadData(); err != nil {
		t.Fatal(err)
	}
	// All in memory: about 620 KB, of which the values are about 420 KB;
	// the replay checks the budget every 256 commands (64 KB of values).
	if mem, n := s.valuesMem(), s.tier.demotions.Load(); mem > 170<<10 || n < 1000 {
		t.Fatalf("after loading 2000 values of about 250 bytes over a 100 KB budget: %d bytes in memory, %d moved to disk", mem, n)
	}
	for i := 0; i < 2000; i += 97 {
		v := strings.Repeat("v", 200+i%100)
		if got := string(s.dbs[0].Get([]byte("k" + strconv.Itoa(i))).Str()); got != v {
			t.Fatalf("k%d: %q", i, got)
		}
	}
}

// Under the global lock (a script without allow-key-locking) a dynamic
// cold key's read delays every client, as the spec documents.
func TestTieringDynamicKeyUnderGlobalLock(t *testing.T) {
	const delay = 1500 * time.Millisecond // slack for a loaded machine under -race
	_, addr := startSlowTier(t, delay, "{t}:cold")
	a, other := difftest.Dial(t, addr), difftest.Dial(t, addr)
	start := time.Now()
	a.Send(difftest.Encode("EVAL", "return redis.call('GET', '{t}:' .. ARGV[1])", "0", "cold"))
	time.Sleep(150 * time.Millisecond)
	if got := other.Do("SET", "{u}:x", "1"); got != "+OK\r\n" || time.Since(start) < delay {
		t.Fatalf("another tag did not wait for a dynamic key's read under the global lock: %q after %v", got, time.Since(start))
	}
	if got := a.Read(); !strings.HasPrefix(got, "$300\r\n") {
		t.Fatalf("EVAL: %q", got)
	}
	if n := tierInfo(t, other, "tiering_loads_under_lock"); n != 1 {
		t.Fatalf("loads under lock %d, want 1", n)
	}
}

// TestTieringSearchDocuments: hashes that were cold when an index began
// to follow them are loaded by FT.CREATE's scan, and the tier leaves the
// documents of an index in memory afterwards (FT.SEARCH reads them under
// the index's lock, without their keys' locks); other keys still move.
func TestTieringSearchDocuments(t *testing.T) {
	_, c := startTiered(t)
	big := strings.Repeat("lorem ", 60)
	for _, k := range []string{"doc:1", "doc:2", "other"} {
		expect(t, c, ":2\r\n", "HSET", k, "title", "hello "+k, "body", big)
	}
	if n := tierInfo(t, c, "tiering_values_on_disk"); n != 3 {
		t.Fatalf("values on disk before FT.CREATE: %d, want 3", n)
	}
	expect(t, c, "+OK\r\n", "FT.CREATE", "idx", "ON", "HASH", "PREFIX", "1", "doc:", "SCHEMA", "title", "TEXT")
	if n := tierInfo(t, c, "tiering_values_on_disk"); n != 1 {
		t.Fatalf("values on disk after FT.CREATE: %d, want 1 (other)", n)
	}
	search := func() string { return c.Do("FT.SEARCH", "idx", "hello", "NOCONTENT", "SORTBY", "title") }
	want := "*3\r\n:2\r\n$5\r\ndoc:1\r\n$5\r\ndoc:2\r\n"
	if got := search(); got != want {
		t.Fatalf("FT.SEARCH: %q, want %q", got, want)
	}
	expect(t, c, ":0\r\n", "HSET", "doc:1", "title", "hello again") // eager mode would demote it now
	expect(t, c, ":2\r\n", "HSET", "doc:3", "title", "hello three", "body", big)
	expect(t, c, ":0\r\n", "HSET", "other", "body", big+"!")
	if n := tierInfo(t, c, "tiering_values_on_disk"); n != 1 {
		t.Fatalf("values on disk after writes: %d, want 1 (other)", n)
	}
	if got, want := search(), "*4\r\n:3\r\n$5\r\ndoc:1\r\n$5\r\ndoc:2\r\n$5\r\ndoc:3\r\n"; got != want {
		t.Fatalf("FT.SEARCH after writes: %q, want %q", got, want)
	}
}

// TestTieringAtRunTime: CONFIG SET tiering yes on a server started
// without it opens the tier (in a tiering-dir set at run time) and moves
// values to disk; tiering no loads them all back and stops the demoter,
// refused when they would not fit under maxmemory; yes again reuses the
// open store. The data reads the same throughout.
func TestTieringAtRunTime(t *testing.T) {
	dir := t.TempDir()
	cfg, err := config.Load("", []string{"--port", strconv.Itoa(difftest.FreePort(t)), "--bind", "127.0.0.1",
		"--dir", dir, "--save", "", "--tiering-memory", "1"})
	if err != nil {
		t.Fatal(err)
	}
	_, addr := serveConfigWith(t, cfg, func(*Server) {})
	c := difftest.Dial(t, addr)
	fill(c)
	for i := range 200 {
		c.Do("SET", "k"+strconv.Itoa(i), strings.Repeat("v", 200+i))
	}
	want := dataset(t, c)
	c.Do("SELECT", "0")
	onDisk := func() int64 { return tierInfo(t, c, "tiering_values_on_disk") }
	waitOnDisk := func(min int64) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); onDisk() < min; {
			if time.Now().After(deadline) {
				t.Fatalf("%d values on disk, want %d or more", onDisk(), min)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	if n := tierInfo(t, c, "tiering_enabled"); n != 0 {
		t.Fatalf("tiering_enabled %d before CONFIG SET", n)
	}
	expect(t, c, "+OK\r\n", "CONFIG", "SET", "tiering-dir", "mytier")
	expect(t, c, "+OK\r\n", "CONFIG", "SET", "tiering", "yes")
	if _, err := os.Stat(filepath.Join(dir, "mytier")); err != nil {
		t.Fatalf("the tier was not opened in the tiering-dir set at run time: %v", err)
	}
	waitOnDisk(150)
	if got := dataset(t, c); got != want {
		t.Fatalf("with values on disk:\n got %s\nwant %s", got, want)
	}
	c.Do("SELECT", "0")
	expect(t, c, "-ERR CONFIG SET failed (possibly related to argument 'tiering-dir') - "+errTieringDirOpen+"\r\n",
		"CONFIG", "SET", "tiering-dir", "other")
	// Not under a maxmemory the values would not fit in.
	expect(t, c, "+OK\r\n", "CONFIG", "SET", "maxmemory", "1")
	expect(t, c, "-ERR CONFIG SET failed (possibly related to argument 'tiering') - "+errTieringOffMemory+"\r\n",
		"CONFIG", "SET", "tiering", "no")
	expect(t, c, "+OK\r\n", "CONFIG", "SET", "maxmemory", "0")
	if tierInfo(t, c, "tiering_enabled") != 1 || onDisk() == 0 {
		t.Fatal("a refused CONFIG SET tiering no changed the tier")
	}
	expect(t, c, "+OK\r\n", "CONFIG", "SET", "tiering", "no")
	if n, e := onDisk(), tierInfo(t, c, "tiering_enabled"); n != 0 || e != 0 {
		t.Fatalf("after tiering no: %d values on disk, tiering_enabled %d", n, e)
	}
	time.Sleep(300 * time.Millisecond) // the demoter's ticks: it stays idle
	if n := onDisk(); n != 0 {
		t.Fatalf("%d values moved to disk with tiering off", n)
	}
	if got := dataset(t, c); got != want {
		t.Fatalf("after tiering no:\n got %s\nwant %s", got, want)
	}
	c.Do("SELECT", "0")
	expect(t, c, "+OK\r\n", "CONFIG", "SET", "tiering", "yes")
	waitOnDisk(150)
	if got := dataset(t, c); got != want {
		t.Fatalf("after tiering yes again:\n got %s\nwant %s", got, want)
	}
}

// TestTieringListLayout: a list edited at its head and in its middle
// comes back from disk with the nodes it had in memory: DEBUG OBJECT's
// ql_* fields read as on the all-memory server (the RDB form alone would
// rebuild the nodes of pushes at the tail).
func TestTieringListLayout(t *testing.T) {
	for _, depth := range []string{"0", "1"} {
		_, c := startTiered(t, "--list-compress-depth", depth)
		mcfg, err := config.Load("", []string{"--port", strconv.Itoa(difftest.FreePort(t)), "--bind", "127.0.0.1",
			"--dir", t.TempDir(), "--save", "", "--enable-debug-command", "yes", "--list-compress-depth", depth})
		if err != nil {
			t.Fatal(err)
		}
		_, maddr := serveConfigWith(t, mcfg, func(*Server) {})
		m := difftest.Dial(t, maddr)
		big := strings.Repeat("x", 60)
		for _, conn := range []*difftest.Conn{c, m} {
			for i := range 300 {
				conn.Do("RPUSH", "l", big+strconv.Itoa(i))
			}
			for i := range 40 {
				conn.Do("LINSERT", "l", "BEFORE", big+"150", "mid"+strconv.Itoa(i))
				conn.Do("LPUSH", "l", "head"+strconv.Itoa(i))
			}
		}
		ql := func(conn *difftest.Conn) string {
			got := conn.Do("DEBUG", "OBJECT", "l")
			return got[strings.Index(got, "ql_nodes"):]
		}
		want := ql(m)
		if strings.HasPrefix(want, "ql_nodes:3 ") {
			t.Fatalf("depth %s: the edits made no extra node (%s): the test shows nothing", depth, want)
		}
		if tierInfo(t, c, "tiering_values_on_disk") == 0 {
			t.Fatal("the list did not move to disk")
		}
		if got := ql(c); got != want { // read from disk
			t.Fatalf("depth %s: DEBUG OBJECT of the list from disk: %s, in memory %s", depth, got, want)
		}
	}
}
