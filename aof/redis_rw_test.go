package aof

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// waitRewrite waits for a background rewrite to be over.
func waitRewrite(t *testing.T, c *difftest.Conn) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		info := c.Do("INFO", "persistence")
		if strings.Contains(info, "aof_rewrite_in_progress:0\r\n") && strings.Contains(info, "aof_rewrite_scheduled:0\r\n") {
			if !strings.Contains(info, "aof_last_bgrewrite_status:ok\r\n") {
				t.Fatalf("rewrite failed: %s", info)
			}
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("rewrite did not finish")
}

// loadInto loads an AOF directory with a Loader filling a dataset, and
// returns the commands read.
func loadInto(t *testing.T, dir, fileName string) (*dataset, *LoadResult, []string) {
	t.Helper()
	d := newDataset()
	var cmds []string
	l := &Loader{AllowTruncated: true, RDB: d.rdbReader(), OnCommand: func(args [][]byte) error {
		cmds = append(cmds, string(bytes.Join(args, []byte(" "))))
		return d.apply(args)
	}}
	res, err := l.LoadDir(dir, fileName)
	if err != nil {
		t.Fatal(err)
	}
	return d, res, cmds
}

// TestRedisWritesWeLoad has redis-server 7.0.15 write an AOF directory:
// its incremental file holds the very bytes Feeder encodes for the same
// commands, the Loader reads its manifest, RDB and AOF bases and
// incremental files, across rewrites, to the dataset redis-server holds,
// and its manifests format back to the same bytes.
func TestRedisWritesWeLoad(t *testing.T) {
	dir := t.TempDir()
	aofDir := filepath.Join(dir, "appendonlydir")
	// appendfsync always: with everysec, Redis postpones the write while
	// a background fsync runs, and replies meanwhile.
	p := startRedisIn(t, dir, "--aof-use-rdb-preamble", "yes", "--appendfsync", "always")
	if !p.waitReady(t) {
		t.Fatal(p.log())
	}
	c := p.conn(t)
	far := "4102444800000" // 2100-01-01
	script := [][]string{
		{"SET", "s", "v1"},
		{"INCR", "counter"},
		{"INCR", "counter"},
		{"RPUSH", "list", "a", "b", "c"},
		{"HSET", "h", "f1", "x", "f2", "y"},
		{"SELECT", "3"},
		{"SET", "in3", "three"},
		{"APPEND", "in3", "!"},
		{"PEXPIREAT", "in3", far},
		{"MULTI"},
		{"SET", "m1", "one"},
		{"RPUSH", "m2", "two"},
		{"EXEC"},
		{"DEL", "nothing"},
		{"SELECT", "0"},
		{"SET", "bin", "a\r\nb\x00c"},
		{"DEL", "s"},
	}
	var want []byte
	var wantCmds []string
	fe := NewFeeder()
	db := 0
	for _, args := range script {
		r := c.Do(args...)
		if strings.HasPrefix(r, "-") {
			t.Fatalf("%v: %q", args, r)
		}
		switch args[0] {
		case "SELECT":
			db = int(args[1][0] - '0')
			continue
		case "DEL":
			if args[1] == "nothing" {
				continue // not propagated: nothing deleted
			}
		}
		bargs := make([][]byte, len(args))
		for i, a := range args {
			bargs[i] = []byte(a)
		}
		if db != fe.SelectedDB() {
			wantCmds = append(wantCmds, "SELECT "+strconv.Itoa(db))
		}
		wantCmds = append(wantCmds, strings.Join(args, " "))
		want = fe.Feed(want, 0, db, bargs)
	}
	m, err := ReadManifestFile(filepath.Join(aofDir, "appendonly.aof.manifest"))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(m.Format()); got != "file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n" {
		t.Fatalf("manifest:\n%s", got)
	}
	if got := readFile(t, filepath.Join(aofDir, "appendonly.aof.1.incr.aof")); !bytes.Equal(got, want) {
		t.Fatalf("incremental file:\n%q\nFeeder:\n%q", got, want)
	}

	check := func(stage string, wantFiles int) []string {
		t.Helper()
		ours, res, cmds := loadInto(t, aofDir, "appendonly.aof")
		theirs := fetchDataset(t, p.conn(t), 0, 3)
		if ours.String() != theirs.String() {
			t.Fatalf("%s: loaded\n%s\nredis-server holds\n%s", stage, ours, theirs)
		}
		if res.Status != StatusOK || len(res.Files) != wantFiles {
			t.Fatalf("%s: %+v", stage, res)
		}
		raw := readFile(t, filepath.Join(aofDir, "appendonly.aof.manifest"))
		m, err := ParseManifest(bytes.NewReader(raw))
		if err != nil || !bytes.Equal(m.Format(), raw) {
			t.Fatalf("%s: manifest %q: %v", stage, raw, err)
		}
		return cmds
	}
	if cmds := check("initial", 2); !slices.Equal(cmds, wantCmds) {
		t.Fatalf("commands loaded:\n%q\nwant\n%q", cmds, wantCmds)
	}

	// A rewrite with an RDB preamble, then more commands.
	mustDo(t, c, "+Background append only file rewriting started\r\n", "BGREWRITEAOF")
	waitRewrite(t, c)
	mustDo(t, c, "+OK\r\n", "SET", "after", "rewrite")
	mustDo(t, c, ":4\r\n", "RPUSH", "list", "d")
	check("rdb base", 2)
	if m, _ := ReadManifestFile(filepath.Join(aofDir, "appendonly.aof.manifest")); m.Base.Name != "appendonly.aof.2.base.rdb" {
		t.Fatalf("%s", m.Format())
	}

	// A rewrite in AOF format, with timestamps, keeping the history.
	mustDo(t, c, "+OK\r\n", "CONFIG", "SET", "aof-use-rdb-preamble", "no", "aof-timestamp-enabled", "yes",
		"aof-disable-auto-gc", "yes")
	mustDo(t, c, "+Background append only file rewriting started\r\n", "BGREWRITEAOF")
	waitRewrite(t, c)
	mustDo(t, c, "+OK\r\n", "SET", "after", "second")
	mustDo(t, c, "+OK\r\n", "SELECT", "3")
	mustDo(t, c, ":1\r\n", "HSET", "h3", "f", "v")
	check("aof base", 2)
	m, _ = ReadManifestFile(filepath.Join(aofDir, "appendonly.aof.manifest"))
	if m.Base.Name != "appendonly.aof.3.base.aof" || len(m.History) != 2 || m.History[0].Name != "appendonly.aof.2.incr.aof" {
		t.Fatalf("%s", m.Format())
	}
	base := readFile(t, filepath.Join(aofDir, m.Base.Name))
	if !bytes.HasPrefix(base, []byte("#TS:")) {
		t.Fatalf("base without a timestamp: %.40q", base)
	}
}

// TestRedisLoadsWhatWeWrite builds an AOF directory with Dir, Appender
// (appendfsync always) and Feeder: an RDB base, a rotation, a rewrite with an
// AOF-format base; redis-check-aof accepts it at each stage, and
// redis-server loads the data the test wrote.
func TestRedisLoadsWhatWeWrite(t *testing.T) {
	if _, err := exec.LookPath("redis-check-aof"); err != nil {
		t.Skip("SKIPPING differential test: redis-check-aof is not installed")
	}
	work := t.TempDir()
	d, err := OpenDir(filepath.Join(work, "appendonlydir"), "appendonly.aof")
	if err != nil {
		t.Fatal(err)
	}
	if up, err := d.UpgradeOldStyle(work); up || err != nil {
		t.Fatal(up, err)
	}
	model := newDataset()
	model.apply([][]byte{[]byte("SET"), []byte("from-rdb"), []byte("base value")})
	model.apply([][]byte{[]byte("RPUSH"), []byte("rdblist"), []byte("x"), []byte("y")})
	model.apply([][]byte{[]byte("HSET"), []byte("rdbhash"), []byte("f"), []byte("v")})
	model.apply([][]byte{[]byte("PEXPIREAT"), []byte("rdbhash"), []byte("4102444800000")})
	f, name, size, err := d.OpenForAppend(func(w io.Writer) error { return model.writeRDB(w) })
	if err != nil {
		t.Fatal(err)
	}
	if name != "appendonly.aof.1.incr.aof" || size != 0 || d.Manifest.Base.Name != "appendonly.aof.1.base.rdb" {
		t.Fatalf("%s %d %s", name, size, d.Manifest.Format())
	}
	a := NewAppender(OSFile(f, size), size)
	a.Policy = FsyncAlways
	a.Prealloc = true
	fe := NewFeeder()
	exec1 := func(db int, args ...string) []byte {
		b := make([][]byte, len(args))
		for i, s := range args {
			b[i] = []byte(s)
		}
		if model.db != db {
			model.apply([][]byte{[]byte("SELECT"), []byte{byte('0' + db)}})
		}
		if err := model.apply(b); err != nil {
			t.Fatal(err)
		}
		return fe.Feed(nil, time.Now().Unix(), db, b)
	}
	fe.Timestamps = true
	a.Append(exec1(0, "SET", "k1", "v1"))
	a.Append(exec1(0, "RPUSH", "rdblist", "z"))
	if res, err := a.Flush(false); err != nil || !res.Synced {
		t.Fatal(res, err)
	}
	for i := range 5 {
		a.Append(exec1(1, "SET", "batch", strings.Repeat("g", i)))
		if res, err := a.Flush(false); err != nil || !res.Synced {
			t.Fatal(res, err)
		}
	}
	// The file ends with the zeros preallocated under always: Close trims
	// them, and then Redis reads it.
	if fi, err := f.Stat(); err != nil || fi.Size() <= a.Size() {
		t.Fatalf("nothing preallocated: %v, %d bytes of data", fi, a.Size())
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}

	checkAOF := func(stage string) {
		t.Helper()
		out, err := exec.Command("redis-check-aof", d.ManifestPath()).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "All AOF files and manifest are valid") {
			t.Fatalf("%s: redis-check-aof: %v\n%s", stage, err, out)
		}
	}
	checkRedis := func(stage string) {
		t.Helper()
		cp := t.TempDir()
		copyDir(t, work, cp)
		p := startRedisIn(t, cp)
		if !p.waitReady(t) {
			t.Fatalf("%s: redis-server failed:\n%s", stage, p.log())
		}
		theirs := fetchDataset(t, p.conn(t), 0, 1, 2)
		p.kill()
		if theirs.String() != model.String() {
			t.Fatalf("%s: redis-server loaded\n%s\nwe wrote\n%s", stage, theirs, model)
		}
		ours, _, _ := loadInto(t, d.Path, d.FileName)
		if ours.String() != model.String() {
			t.Fatalf("%s: Loader loaded\n%s\nwe wrote\n%s", stage, ours, model)
		}
	}
	checkAOF("rdb base")
	checkRedis("rdb base")

	// A rewrite starts: rotate; the snapshot is the dataset as of now.
	if _, err := a.Flush(true); err != nil {
		t.Fatal(err)
	}
	snapshot := model.clone()
	nf, nname, err := d.RotateIncr()
	if err != nil || nname != "appendonly.aof.2.incr.aof" {
		t.Fatal(nname, err)
	}
	a.Reopen(OSFile(nf, 0), 0)
	fe.ForceSelect()
	a.Append(exec1(2, "SET", "during", "rewrite"))
	a.Append(exec1(0, "MULTI"))
	a.Append(exec1(0, "INCR", "n"))
	a.Append(exec1(0, "APPEND", "k1", "+"))
	a.Append(exec1(0, "EXEC"))
	if _, err := a.Flush(false); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil { // trims both files: the old one as it is closed
		t.Fatal(err)
	}
	checkAOF("rotated")
	checkRedis("rotated")

	d.RDBPreamble = false
	tmp, err := d.WriteBase(func(w io.Writer) error {
		_, err := w.Write(AppendTimestamp(snapshot.commands(), time.Now().Unix()))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	baseName, err := d.InstallRewrite(tmp, true, false)
	if err != nil || baseName != "appendonly.aof.2.base.aof" {
		t.Fatal(baseName, err)
	}
	fe.ForceSelect()
	if got := string(d.Manifest.Format()); got != "file appendonly.aof.2.base.aof seq 2 type b\n"+
		"file appendonly.aof.1.incr.aof seq 1 type h\nfile appendonly.aof.1.base.rdb seq 1 type h\n"+
		"file appendonly.aof.2.incr.aof seq 2 type i\n" {
		t.Fatalf("manifest after the rewrite:\n%s", got)
	}
	if failed, err := d.DeleteHistory(); err != nil || failed != nil {
		t.Fatal(failed, err)
	}
	for _, old := range []string{"appendonly.aof.1.incr.aof", "appendonly.aof.1.base.rdb"} {
		if _, err := os.Stat(d.FilePath(old)); !os.IsNotExist(err) {
			t.Fatalf("%s: %v", old, err)
		}
	}
	a.Append(exec1(2, "HSET", "after", "f", "v"))
	if _, err := a.Flush(false); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	nf.Close()
	checkAOF("aof base")
	checkRedis("aof base")
}

// TestRedisUpgradeOldStyle gives an old-style appendonly.aof (an RDB
// preamble and a command tail) to redis-server and to Dir and Loader: both
// migrate it into the same directory layout and load the same data.
func TestRedisUpgradeOldStyle(t *testing.T) {
	content := rdbBase(t, "k1", "from-rdb") + cmd("SELECT", "0") + cmd("SET", "k2", "tail")
	redisDir, ourDir := t.TempDir(), t.TempDir()
	for _, dir := range []string{redisDir, ourDir} {
		writeFiles(t, dir, map[string]string{"appendonly.aof": content})
	}
	p := startRedisIn(t, redisDir)
	if !p.waitReady(t) {
		t.Fatal(p.log())
	}
	theirs := fetchDataset(t, p.conn(t), 0)
	p.kill()

	d, err := OpenDir(filepath.Join(ourDir, "appendonlydir"), "appendonly.aof")
	if err != nil {
		t.Fatal(err)
	}
	var logged []string
	d.Log = func(_ LogLevel, msg string) { logged = append(logged, msg) }
	if up, err := d.UpgradeOldStyle(ourDir); !up || err != nil {
		t.Fatal(up, err)
	}
	ours, res, _ := loadInto(t, d.Path, d.FileName)
	if ours.String() != theirs.String() || !res.Files[0].RDB || res.Files[0].Commands != 2 {
		t.Fatalf("loaded\n%s\nredis-server\n%s\n%+v", ours, theirs, res)
	}
	f, _, _, err := d.OpenForAppend(nil)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, name := range []string{"appendonlydir/appendonly.aof.manifest", "appendonlydir/appendonly.aof", "appendonlydir/appendonly.aof.1.incr.aof"} {
		a, b := readFile(t, filepath.Join(ourDir, name)), readFile(t, filepath.Join(redisDir, name))
		if !bytes.Equal(a, b) {
			t.Fatalf("%s: ours %q, redis-server's %q", name, a, b)
		}
	}
	for _, dir := range []string{ourDir, redisDir} {
		if _, err := os.Stat(filepath.Join(dir, "appendonly.aof")); !os.IsNotExist(err) {
			t.Fatalf("old file still in %s: %v", dir, err)
		}
	}
	want := "Successfully migrated an old-style AOF file (appendonly.aof) into the AOF directory (" + d.Path + ")."
	if len(logged) == 0 || logged[0] != want {
		t.Fatalf("log %q", logged)
	}
	// Once migrated there is nothing more to do.
	if up, err := d.UpgradeOldStyle(ourDir); up || err != nil {
		t.Fatal(up, err)
	}
}
