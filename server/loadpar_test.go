package server

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
	"github.com/hotkv/hotkv/rdb"
)

// parLoadKey is a key record of a file written for the parallel load tests.
type parLoadKey struct {
	db     int
	key    []byte
	v      *rdb.Value
	expire int64
}

// parallelLoadFile writes dir/dump.rdb from a dataset of every type built
// by a HotKV (several databases, streams, keys with expirations), rewritten
// with what a server's SAVE never writes: keys already expired, and
// duplicate keys, whose stale values come first (in line and through the
// workers), so that the last one must win. It returns the file's path.
func parallelLoadFile(t *testing.T, dir string) string {
	t.Helper()
	src := t.TempDir()
	_, addr := startServer(t, "--dir", src, "--enable-debug-command", "yes")
	c := difftest.Dial(t, addr)
	for _, db := range []string{"0", "3", "15"} {
		c.Do("SELECT", db)
		if got := c.Do("DEBUG", "POPULATE", "12000", "k"+db); got != "+OK\r\n" {
			t.Fatalf("DEBUG POPULATE: %q", got)
		}
		for i := range 300 {
			n := strconv.Itoa(i)
			c.Do("RPUSH", "list:"+n, "a", "b", n)
			c.Do("SADD", "set:"+n, "x", "y", n)
			c.Do("SADD", "iset:"+n, "1", "2", strconv.Itoa(i+10))
			c.Do("HSET", "hash:"+n, "f", n, "g", "v")
			c.Do("ZADD", "zset:"+n, "1.5", "m", strconv.Itoa(i), n)
			c.Do("XADD", "stream:"+n, "*", "f", n)
			c.Do("PEXPIRE", "k"+db+":"+n, "100000000")
		}
		for i := range 20 { // big encodings
			n := strconv.Itoa(i)
			args := []string{"HSET", "bighash:" + n}
			zargs := []string{"ZADD", "bigzset:" + n}
			for j := range 300 {
				args = append(args, "f"+strconv.Itoa(j), strings.Repeat("v", j%70))
				zargs = append(zargs, strconv.Itoa(j), "m"+strconv.Itoa(j))
			}
			c.Do(args...)
			c.Do(zargs...)
		}
	}
	if got := c.Do("SAVE"); got != "+OK\r\n" {
		t.Fatalf("SAVE: %q", got)
	}
	f, err := os.Open(filepath.Join(src, "dump.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var keys []parLoadKey
	fr := &rdb.FileReader{OnKey: func(db int, key []byte, v *rdb.Value, expire, _ int64, _ int) error {
		keys = append(keys, parLoadKey{db, append([]byte(nil), key...), v, expire})
		return nil
	}}
	if _, err := fr.Read(bufio.NewReader(f)); err != nil {
		t.Fatal(err)
	}

	path := filepath.Join(dir, "dump.rdb")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	fw, err := rdb.NewFileWriter(out, rdb.FileWriterOptions{Encode: rdb.DefaultEncodeOptions()})
	if err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-time.Hour).UnixMilli()
	for db := 0; db < 16; db++ {
		var mine []parLoadKey
		for _, k := range keys {
			if k.db == db {
				mine = append(mine, k)
			}
		}
		if len(mine) == 0 {
			continue
		}
		if err := fw.SelectDB(db, uint64(len(mine)), 0); err != nil {
			t.Fatal(err)
		}
		for i, k := range mine {
			if i%37 == 0 { // a stale value first, of another type for some
				stale := &rdb.Value{Kind: rdb.KindString, Str: []byte("stale")}
				if i%2 == 0 {
					stale = &rdb.Value{Kind: rdb.KindHash, Pairs: [][2][]byte{{[]byte("stale"), []byte("1")}}}
				}
				if err := fw.WriteKey(k.key, stale, -1, -1, -1); err != nil {
					t.Fatal(err)
				}
			}
		}
		for i, k := range mine {
			expire := k.expire
			if i%53 == 0 {
				expire = past // skipped by a master's load
			}
			if err := fw.WriteKey(k.key, k.v, expire, -1, -1); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := fw.Finish(); err != nil {
		t.Fatal(err)
	}
	return path
}

// loadedState is what a load left: the digest, each database's keys and
// expirations, and a few values.
func loadedState(t *testing.T, c *difftest.Conn) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(c.Do("DEBUG", "DIGEST"))
	for _, line := range strings.Split(c.Do("INFO", "keyspace"), "\r\n") {
		if strings.HasPrefix(line, "db") {
			b.WriteString(line[:strings.Index(line, ",avg_ttl")] + "\n")
		}
	}
	for _, db := range []string{"0", "3", "15"} {
		c.Do("SELECT", db)
		for _, k := range []string{"k" + db + ":0", "k" + db + ":37", "k" + db + ":53", "list:1", "hash:2", "stream:3"} {
			fmt.Fprintf(&b, "%s %s: %q %q\n", db, k, c.Do("TYPE", k), c.Do("DEBUG", "DIGEST-VALUE", k))
		}
	}
	return b.String()
}

// TestParallelLoad: a file of every type, several databases, duplicate
// keys and keys already expired loads through the insert workers into the
// same dataset as the keys stored in line (key-load-delay makes a load
// store them so), and the workers ran. Under -race it checks the workers
// against the reader and each other.
func TestParallelLoad(t *testing.T) {
	if tieringTests {
		t.Skip("with the disk tier a load stores its keys in line (loadpar.go)")
	}
	if runtime.GOMAXPROCS(0) < 4 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4)) // workers even on a small machine
	}
	dir := t.TempDir()
	path := parallelLoadFile(t, dir)

	before := parallelLoads.Load()
	s, addr := startServer(t, "--dir", dir, "--enable-debug-command", "yes")
	if parallelLoads.Load() == before {
		t.Fatal("the load started no insert workers")
	}
	par := loadedState(t, difftest.Dial(t, addr))
	shutdown(t, s)

	inDir := t.TempDir()
	if err := os.Link(path, filepath.Join(inDir, "dump.rdb")); err != nil {
		t.Fatal(err)
	}
	before = parallelLoads.Load()
	_, addr = startServer(t, "--dir", inDir, "--key-load-delay", "-1000000000", "--enable-debug-command", "yes")
	if parallelLoads.Load() != before {
		t.Fatal("a paced load started insert workers")
	}
	inline := loadedState(t, difftest.Dial(t, addr))
	if par != inline {
		t.Errorf("loaded by the workers:\n%s\nloaded in line:\n%s", par, inline)
	}
	if !strings.Contains(par, "db15:keys=") || strings.Contains(par, "stale") {
		t.Errorf("unexpected dataset:\n%s", par)
	}
}

// TestParallelLoadAOFBase: an append-only file whose RDB base loads
// through the workers has every base key stored before the commands that
// follow it run.
func TestParallelLoadAOFBase(t *testing.T) {
	if tieringTests {
		t.Skip("with the disk tier a load stores its keys in line (loadpar.go)")
	}
	if runtime.GOMAXPROCS(0) < 4 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	}
	dir := t.TempDir()
	s, addr := startServer(t, "--dir", dir, "--appendonly", "yes", "--enable-debug-command", "yes")
	c := difftest.Dial(t, addr)
	c.Do("DEBUG", "POPULATE", "30000")
	expect(t, c, "+Background append only file rewriting started\r\n", "BGREWRITEAOF")
	waitRewrite(t, c)
	c.Do("APPEND", "key:29999", "+tail")
	c.Do("DEL", "key:17")
	want := loadedState(t, c)
	shutdown(t, s)
	before := parallelLoads.Load()
	_, addr = startServer(t, "--dir", dir, "--appendonly", "yes", "--enable-debug-command", "yes")
	if parallelLoads.Load() == before {
		t.Fatal("the base's load started no insert workers")
	}
	c = difftest.Dial(t, addr)
	if got := loadedState(t, c); got != want {
		t.Errorf("after restart:\n%s\nwant:\n%s", got, want)
	}
	c.Do("SELECT", "0")
	if got := c.Do("GET", "key:29999"); got != "$16\r\nvalue:29999+tail\r\n" {
		t.Errorf("GET key:29999 = %q", got)
	}
}

// TestSmallLoadInline: a file of fewer keys than parallelLoadAfter loads
// without starting a goroutine (DEBUG RELOAD's load, here).
func TestSmallLoadInline(t *testing.T) {
	_, addr := startServer(t, "--enable-debug-command", "yes")
	c := difftest.Dial(t, addr)
	for i := range 10 {
		c.Do("SET", "k"+strconv.Itoa(i), "v")
	}
	before := parallelLoads.Load()
	expect(t, c, "+OK\r\n", "DEBUG", "RELOAD")
	if parallelLoads.Load() != before {
		t.Error("a 10-key load started insert workers")
	}
	expect(t, c, ":10\r\n", "DBSIZE")
}
