package server

import (
	"fmt"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// searchFixture writes the data of the index definition tests: idx over
// doc: (created, then altered), idx2 over other: (created and dropped
// again with its alias: both must stay dropped), documents before and
// after each change, keys no index matches, an alias and dictionaries
// (one emptied: RediSearch keeps it).
var searchFixture = [][]string{
	{"FT.CREATE", "idx", "ON", "HASH", "PREFIX", "1", "doc:", "STOPWORDS", "1", "foo", "SCHEMA", "t", "TEXT", "WEIGHT", "2", "n", "NUMERIC", "SORTABLE"},
	{"HSET", "doc:1", "t", "hello world", "n", "1", "tag", "a"},
	{"HSET", "doc:2", "t", "hello there foo", "n", "2", "tag", "b"},
	{"FT.CREATE", "idx2", "PREFIX", "1", "other:", "SKIPINITIALSCAN", "SCHEMA", "x", "TEXT"},
	{"HSET", "other:1", "x", "hello"},
	{"FT.ALTER", "idx", "SCHEMA", "ADD", "tag", "TAG", "SORTABLE"},
	{"HSET", "doc:3", "t", "world peace", "n", "3", "tag", "a"},
	{"FT.ALIASADD", "al2", "idx2"},
	{"FT.DROPINDEX", "idx2"},
	{"FT.ALIASADD", "al1", "idx"},
	{"FT.DICTADD", "d1", "x", "y", "z"},
	{"FT.DICTDEL", "d1", "y"},
	{"FT.DICTADD", "d2", "gone"},
	{"FT.DICTDEL", "d2", "gone"},
	{"SET", "plain", "1"},
}

// searchFixtureMore is written after a rewrite: it must reach the file
// after the definitions the rewrite put in its base.
var searchFixtureMore = [][]string{
	{"HSET", "doc:4", "t", "hello peace", "n", "4", "tag", "c"},
	{"FT.CREATE", "idx3", "PREFIX", "1", "doc:", "SCHEMA", "t", "TEXT"},
	{"DEL", "doc:1"},
	{"FT.ALIASADD", "al3", "idx3"},
	{"FT.DICTADD", "d2", "back"},
}

var maxDocID = regexp.MustCompile(`\+max_doc_id\r\n:\d+\r\n`)

// searchView is what must survive a load: the list of indexes, idx's
// FT.INFO (but its max_doc_id: a rebuild numbers the documents afresh)
// and queries' results with their scores, in the order of n.
func searchView(t *testing.T, c *difftest.Conn) string {
	t.Helper()
	list := c.Do("FT._LIST")
	for _, name := range replyStrings(list) {
		waitFor(t, func() bool { return strings.Contains(c.Do("FT.INFO", name), "+indexing\r\n:0\r\n") })
	}
	var b strings.Builder
	b.WriteString(list)
	b.WriteString(maxDocID.ReplaceAllString(c.Do("FT.INFO", "idx"), ""))
	for _, cmd := range [][]string{{"FT.DICTDUMP", "d1"}, {"FT.DICTDUMP", "d2"}, {"FT.SEARCH", "al1", "hello", "NOCONTENT", "SORTBY", "n"},
		{"FT.SEARCH", "al2", "hello"}, {"FT.SEARCH", "al3", "hello", "NOCONTENT", "SORTBY", "t"}} {
		b.WriteString(c.Do(cmd...))
	}
	for _, q := range []string{"hello", "world", "peace", "@tag:{a}", "@n:[2 4]", "*", "foo"} {
		b.WriteString(c.Do("FT.SEARCH", "idx", q, "WITHSCORES", "SORTBY", "n"))
		if strings.Contains(list, "idx3") {
			b.WriteString(c.Do("FT.SEARCH", "idx3", q, "NOCONTENT", "SORTBY", "t"))
		}
	}
	return b.String()
}

func runAll(c *difftest.Conn, cmds [][]string) {
	for _, cmd := range cmds {
		c.Do(cmd...)
	}
}

// TestFTDefinitionsSurviveLoads: the indexes, their FT.ALTERs and drops
// survive DEBUG RELOAD, a restart on the snapshot, a restart on the
// append-only file (rewritten or not, with an RDB base or a command one),
// and reach replicas (full synchronization from disk or diskless into
// the dataset or swapped in, then the stream).
func TestFTDefinitionsSurviveLoads(t *testing.T) {
	t.Run("debug reload", func(t *testing.T) {
		_, addr := startServer(t, "--enable-debug-command", "yes")
		c := difftest.Dial(t, addr)
		runAll(c, searchFixture)
		want := searchView(t, c)
		expect(t, c, "+OK\r\n", "DEBUG", "RELOAD")
		if got := searchView(t, c); got != want {
			t.Errorf("after DEBUG RELOAD:\n got %q\nwant %q", got, want)
		}
	})
	t.Run("snapshot", func(t *testing.T) {
		dir := t.TempDir()
		s, addr := startServer(t, "--dir", dir)
		c := difftest.Dial(t, addr)
		runAll(c, searchFixture)
		want := searchView(t, c)
		expect(t, c, "+OK\r\n", "SAVE")
		shutdown(t, s)
		_, addr = startServer(t, "--dir", dir)
		if got := searchView(t, difftest.Dial(t, addr)); got != want {
			t.Errorf("after a restart:\n got %q\nwant %q", got, want)
		}
	})
	for _, mode := range []string{"no rewrite", "rewrite", "rewrite without preamble"} {
		t.Run("aof "+mode, func(t *testing.T) {
			dir := t.TempDir()
			preamble := "yes"
			if mode == "rewrite without preamble" {
				preamble = "no"
			}
			s, addr := startServer(t, "--appendonly", "yes", "--dir", dir, "--aof-use-rdb-preamble", preamble)
			c := difftest.Dial(t, addr)
			runAll(c, searchFixture)
			if mode != "no rewrite" {
				expect(t, c, "+Background append only file rewriting started\r\n", "BGREWRITEAOF")
				waitRewrite(t, c)
			}
			runAll(c, searchFixtureMore)
			want := searchView(t, c)
			shutdown(t, s)
			_, addr = startServer(t, "--appendonly", "yes", "--dir", dir)
			if got := searchView(t, difftest.Dial(t, addr)); got != want {
				t.Errorf("after a restart:\n got %q\nwant %q", got, want)
			}
		})
	}
	for _, load := range []string{"disabled", "on-empty-db", "swapdb"} {
		t.Run("replica "+load, func(t *testing.T) {
			_, master := startServer(t, "--repl-diskless-sync-delay", "0", "--repl-diskless-sync", map[bool]string{true: "no", false: "yes"}[load == "disabled"])
			m := difftest.Dial(t, master)
			runAll(m, searchFixture)
			_, mport, _ := net.SplitHostPort(master)
			_, replica := startServer(t, "--repl-diskless-load", load)
			r := difftest.Dial(t, replica)
			r.Do("FT.CREATE", "stale", "SCHEMA", "t", "TEXT") // the sync replaces it
			expect(t, r, "+OK\r\n", "REPLICAOF", "127.0.0.1", mport)
			waitFor(t, func() bool { return strings.Contains(r.Do("INFO", "replication"), "master_link_status:up") })
			caughtUp := func() {
				offset := between(m.Do("INFO", "replication"), "master_repl_offset:", "\r\n")
				waitFor(t, func() bool {
					return between(r.Do("INFO", "replication"), "master_repl_offset:", "\r\n") == offset
				})
			}
			caughtUp()
			if got, want := searchView(t, r), searchView(t, m); got != want {
				t.Errorf("after the full synchronization:\n got %q\nwant %q", got, want)
			}
			runAll(m, searchFixtureMore)
			caughtUp()
			if got, want := searchView(t, r), searchView(t, m); got != want {
				t.Errorf("after the stream:\n got %q\nwant %q", got, want)
			}
		})
	}
}

// TestFTSnapshotLoadsInRedis: redis-server loads a snapshot of HotKV's
// with search indexes (their definitions are an auxiliary field it
// skips), with the same data.
func TestFTSnapshotLoadsInRedis(t *testing.T) {
	dir := t.TempDir()
	s, addr := startServer(t, "--dir", dir)
	c := difftest.Dial(t, addr)
	runAll(c, searchFixture)
	want := dataset(t, c)
	expect(t, c, "+OK\r\n", "SAVE")
	shutdown(t, s)
	rdir := t.TempDir()
	copyDir(t, dir, rdir)
	raddr := difftest.StartRedis(t, "--dir", rdir)
	if got := dataset(t, difftest.Dial(t, raddr)); got != want {
		t.Errorf("redis-server on HotKV's snapshot:\n got %s\nwant %s", got, want)
	}
}

// TestFTRedisReplica: a redis-server replica of a HotKV master with
// search indexes loads the full synchronization (skipping the
// definitions) and follows the stream past the FT.* commands in it
// (refused, as by any server without the module, and logged).
func TestFTRedisReplica(t *testing.T) {
	_, master := startServer(t, "--repl-diskless-sync-delay", "0")
	m := difftest.Dial(t, master)
	runAll(m, searchFixture)
	_, mport, _ := net.SplitHostPort(master)
	r := difftest.Dial(t, difftest.StartRedis(t, "--replicaof", "127.0.0.1", mport))
	waitFor(t, func() bool { return strings.Contains(r.Do("INFO", "replication"), "master_link_status:up") })
	runAll(m, searchFixtureMore)
	m.Do("SET", "last", "1")
	waitFor(t, func() bool { return r.Do("GET", "last") == "$1\r\n1\r\n" })
	if got, want := dataset(t, r), dataset(t, m); got != want {
		t.Errorf("redis-server replica:\n got %s\nwant %s", got, want)
	}
}

// TestFTBuildInBackground: after a load, an index is built in the
// background: the load and clients do not wait for it, FT.INFO says it
// is indexing, a document written meanwhile is indexed by its writer,
// and once the build is done the index holds every document. A build
// whose index is dropped stops.
func TestFTBuildInBackground(t *testing.T) {
	s, addr := startServer(t, "--enable-debug-command", "yes")
	c := difftest.Dial(t, addr)
	c.Do("FT.CREATE", "idx", "PREFIX", "1", "doc:", "SCHEMA", "t", "TEXT")
	for i := range 1000 {
		c.Do("HSET", fmt.Sprintf("doc:%d", i), "t", "hello")
	}
	c.Do("SET", "other", "1")
	release := make(chan struct{})
	step := func(string) {
		select {
		case <-release:
		case <-time.After(10 * time.Second):
		}
	}
	s.search.buildStep.Store(&step)
	expect(t, c, "+OK\r\n", "DEBUG", "RELOAD")
	if info := c.Do("FT.INFO", "idx"); !strings.Contains(info, "+indexing\r\n:1\r\n") {
		t.Fatalf("FT.INFO during the build: %q", info)
	}
	expect(t, c, "*1\r\n:0\r\n", "FT.SEARCH", "idx", "hello", "LIMIT", "0", "0")
	expect(t, c, "$1\r\n1\r\n", "GET", "other")
	expect(t, c, ":0\r\n", "HSET", "doc:5", "t", "hello")
	expect(t, c, "*1\r\n:1\r\n", "FT.SEARCH", "idx", "hello", "LIMIT", "0", "0")
	close(release)
	waitFor(t, func() bool { return strings.Contains(c.Do("FT.INFO", "idx"), "+indexing\r\n:0\r\n") })
	expect(t, c, "*1\r\n:1000\r\n", "FT.SEARCH", "idx", "hello", "LIMIT", "0", "0")
	if info := c.Do("FT.INFO", "idx"); !strings.Contains(info, "+percent_indexed\r\n$1\r\n1\r\n") {
		t.Errorf("FT.INFO after the build: %q", info)
	}

	block := make(chan struct{})
	blocked := func(string) { <-block }
	s.search.buildStep.Store(&blocked)
	expect(t, c, "+OK\r\n", "DEBUG", "RELOAD")
	expect(t, c, "+OK\r\n", "FT.DROPINDEX", "idx")
	close(block)
	expect(t, c, "*0\r\n", "FT._LIST")
	expect(t, c, ":1001\r\n", "DBSIZE")
}

// TestFTTemporary: a TEMPORARY index lives while it is searched or
// written, then is dropped with its documents, as RediSearch's; its
// arguments' errors are RediSearch's.
func TestFTTemporary(t *testing.T) {
	p := newSearchPair(t)
	p.Run(`
FT.CREATE tmpx TEMPORARY x SCHEMA x TEXT
FT.CREATE tmpx TEMPORARY SCHEMA x TEXT
FT.CREATE tmpx TEMPORARY -1 SCHEMA x TEXT
FT.DROPINDEX tmpx
`)
	for _, c := range []*difftest.Conn{p.Redis, p.HotKV} {
		expect(t, c, "+OK\r\n", "FT.CREATE", "tmp", "TEMPORARY", "2", "PREFIX", "1", "tm:", "SCHEMA", "x", "TEXT")
		c.Do("HSET", "tm:1", "x", "hello")
		c.Do("SET", "other", "1")
	}
	deadline := time.Now().Add(4 * time.Second)
	for i := 0; time.Now().Before(deadline.Add(-3 * time.Second)); i++ {
		time.Sleep(300 * time.Millisecond)
		for _, c := range []*difftest.Conn{p.Redis, p.HotKV} {
			if i%2 == 0 {
				expect(t, c, "*1\r\n:1\r\n", "FT.SEARCH", "tmp", "hello", "LIMIT", "0", "0")
			} else {
				c.Do("HSET", "tm:2", "x", fmt.Sprint(i))
			}
		}
	}
	for _, c := range []*difftest.Conn{p.Redis, p.HotKV} {
		waitFor(t, func() bool { return c.Do("FT._LIST") == "*0\r\n" || c.Do("FT._LIST") == "~0\r\n" })
		expect(t, c, ":0\r\n", "EXISTS", "tm:1", "tm:2")
		expect(t, c, ":1\r\n", "EXISTS", "other")
	}
}
