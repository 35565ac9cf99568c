package aof

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/rdb"
)

// setModel is the dataset of the load vectors: SET on database 0; MULTI,
// EXEC, SELECT and PING change nothing (the vectors use database 0 only);
// any other command is unknown.
type setModel map[string]string

func (m setModel) apply(args [][]byte) error {
	switch strings.ToLower(string(args[0])) {
	case "set":
		m[string(args[1])] = string(args[2])
	case "multi", "exec", "select", "ping":
	default:
		return fmt.Errorf("%w %q", ErrUnknownCommand, args[0])
	}
	return nil
}

// rdbBase returns an RDB base holding the given strings in database 0.
func rdbBase(t *testing.T, kv ...string) string {
	t.Helper()
	var buf bytes.Buffer
	fw, err := rdb.NewFileWriter(&buf, rdb.FileWriterOptions{AOFBase: true, Encode: rdb.DefaultEncodeOptions()})
	if err != nil {
		t.Fatal(err)
	}
	if err := fw.SelectDB(0, uint64(len(kv)/2), 0); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(kv); i += 2 {
		if err := fw.WriteKey([]byte(kv[i]), &rdb.Value{Kind: rdb.KindString, Str: []byte(kv[i+1])}, -1, -1, -1); err != nil {
			t.Fatal(err)
		}
	}
	if err := fw.Finish(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// modelRDBReader stores the strings of an RDB into m.
func modelRDBReader(m setModel) *rdb.FileReader {
	return &rdb.FileReader{OnKey: func(db int, key []byte, v *rdb.Value, expireMs, lruIdle int64, lfuFreq int) error {
		m[string(key)] = string(v.Str)
		return nil
	}}
}

// The messages of Redis's that the Loader logs too; the seconds of "DB
// loaded" are blanked.
var (
	loaderMessage = regexp.MustCompile(`^(Reading RDB base file|Reading RDB preamble|Reading the remaining AOF tail|` +
		`DB loaded from (base|incr) file|Revert incomplete|!!! |AOF .* loaded anyway|Unexpected end of file|` +
		`Bad file format|Unrecoverable error|Fatal error|Unknown command|Unable to obtain)`)
	seconds = regexp.MustCompile(`: [0-9]+\.[0-9]{3} seconds\n$`)
)

func normalizeMessages(msgs []string) []string {
	var out []string
	for _, m := range msgs {
		if !loaderMessage.MatchString(m) {
			continue
		}
		m = seconds.ReplaceAllString(m, ": N seconds\n")
		if strings.HasPrefix(m, "Unrecoverable error") {
			// Redis appends strerror(errno) of an unrelated call.
			m = m[:strings.LastIndex(m, ": ")]
		}
		out = append(out, m)
	}
	return out
}

// loadVectors are AOF directories given to both redis-server and Loader.
// Files of the vector are in the AOF directory; the manifest lists the
// base (when base is set) and the incremental files.
var loadVectors = []struct {
	name  string
	base  string   // name of the base file, "" for none
	incr  []string // names of the incremental files
	files map[string]string
}{
	{"clean", "", []string{"a.1.incr.aof"}, map[string]string{
		"a.1.incr.aof": cmd("SET", "k1", "v1") + cmd("set", "k2", "v2") + cmd("SET", "k1", "v3")}},
	{"torn count line", "", []string{"a.1.incr.aof"}, map[string]string{
		"a.1.incr.aof": cmd("SET", "k1", "v1") + "*3\r"}},
	{"torn after count", "", []string{"a.1.incr.aof"}, map[string]string{
		"a.1.incr.aof": cmd("SET", "k1", "v1") + "*3\r\n"}},
	{"star at end", "", []string{"a.1.incr.aof"}, map[string]string{
		"a.1.incr.aof": cmd("SET", "k1", "v1") + "*"}},
	{"torn bulk", "", []string{"a.1.incr.aof"}, map[string]string{
		"a.1.incr.aof": cmd("SET", "k1", "v1") + cmd("SET", "k2", "value")[:25]}},
	{"torn final crlf", "", []string{"a.1.incr.aof"}, map[string]string{
		"a.1.incr.aof": cmd("SET", "k1", "v1") + strings.TrimSuffix(cmd("SET", "k2", "v2"), "\n")}},
	{"huge length", "", []string{"a.1.incr.aof"}, map[string]string{
		"a.1.incr.aof": cmd("SET", "k1", "v1") + "*3\r\n$3\r\nSET\r\n$99999999999\r\nab\r\n"}},
	{"star NUL", "", []string{"a.1.incr.aof"}, map[string]string{
		"a.1.incr.aof": cmd("SET", "k1", "v1") + "*\x003\r\n" + cmd("SET", "k2", "v2")}},
	{"garbage first", "", []string{"a.1.incr.aof"}, map[string]string{
		"a.1.incr.aof": "+OK\r\n" + cmd("SET", "k1", "v1")}},
	{"dollar expected", "", []string{"a.1.incr.aof"}, map[string]string{
		"a.1.incr.aof": cmd("SET", "k1", "v1") + "*3\r\n$3\r\nSET\r\n:2\r\nk2\r\n$2\r\nv2\r\n" + cmd("SET", "k3", "v3")}},
	{"zero argc", "", []string{"a.1.incr.aof"}, map[string]string{
		"a.1.incr.aof": cmd("SET", "k1", "v1") + "*0\r\n" + cmd("SET", "k3", "v3")}},
	{"argc wraps", "", []string{"a.1.incr.aof"}, map[string]string{
		"a.1.incr.aof": "*4294967299\r\n$3\r\nSET\r\n$2\r\nk1\r\n$2\r\nv1\r\n"}},
	{"sloppy lines", "", []string{"a.1.incr.aof"}, map[string]string{
		"a.1.incr.aof": "*3 junk\r\n$3 x\r\nSET\r\n$+2\r\nk1XY$ 2\nv1\r\n" + "*2\n$4\r\nPING\r\n$0\r\n\r\n"}},
	{"annotations", "", []string{"a.1.incr.aof"}, map[string]string{
		"a.1.incr.aof": "#TS:1700000000\r\n" + cmd("SET", "k1", "v1") + "# anything\n" + cmd("SET", "k2", "v2") + "#TS:1\r\n"}},
	{"long annotation", "", []string{"a.1.incr.aof"}, map[string]string{
		"a.1.incr.aof": cmd("SET", "k1", "v1") + "#" + strings.Repeat("x", 1100) + "\r\n" + cmd("SET", "k2", "v2")}},
	{"long dollar line", "", []string{"a.1.incr.aof"}, map[string]string{
		"a.1.incr.aof": cmd("SET", "k1", "v1") + "*3\r\n$3\r\nSET\r\n$2" + strings.Repeat(" ", 1021) + "\r\nk2\r\n$2\r\nv2\r\n"}},
	{"long count line", "", []string{"a.1.incr.aof"}, map[string]string{
		"a.1.incr.aof": "*3" + strings.Repeat(" ", 1021) + "$3\r\nSET\r\n$2\r\nk1\r\n$2\r\nv1\r\n"}},
	{"empty arguments", "", []string{"a.1.incr.aof"}, map[string]string{
		"a.1.incr.aof": cmd("SET", "", "") + cmd("SET", "k", "")}},
	{"multi exec", "", []string{"a.1.incr.aof"}, map[string]string{
		"a.1.incr.aof": cmd("multi") + cmd("SET", "k1", "v1") + cmd("SET", "k2", "v2") + cmd("Exec") + cmd("EXEC")}},
	{"multi not closed", "", []string{"a.1.incr.aof"}, map[string]string{
		"a.1.incr.aof": cmd("SET", "k1", "v1") + cmd("MULTI") + cmd("SET", "k2", "v2") + cmd("EXEC") +
			cmd("MULTI") + "#TS:5\r\n" + cmd("SET", "k3", "v3")}},
	{"multi torn", "", []string{"a.1.incr.aof"}, map[string]string{
		"a.1.incr.aof": cmd("SET", "k1", "v1") + cmd("MULTI") + cmd("SET", "k2", "v2") + "*3\r\n$3\r\nSET"}},
	{"nested multi not closed", "", []string{"a.1.incr.aof"}, map[string]string{
		"a.1.incr.aof": cmd("SET", "k0", "v0") + cmd("MULTI") + cmd("SET", "k1", "v1") + cmd("MULTI") + cmd("SET", "k2", "v2")}},
	{"nested multi", "", []string{"a.1.incr.aof"}, map[string]string{
		"a.1.incr.aof": cmd("MULTI") + cmd("SET", "k1", "v1") + cmd("MULTI") + cmd("SET", "k2", "v2") + cmd("EXEC")}},
	{"unknown command", "", []string{"a.1.incr.aof"}, map[string]string{
		"a.1.incr.aof": cmd("SET", "k1", "v1") + cmd("NOSUCHCMD", "x")}},
	{"base and incr", "a.1.base.aof", []string{"a.1.incr.aof", "a.2.incr.aof"}, map[string]string{
		"a.1.base.aof": cmd("SELECT", "0") + cmd("SET", "k1", "base"), "a.1.incr.aof": "",
		"a.2.incr.aof": cmd("SET", "k2", "incr")}},
	{"rdb base", "a.1.base.rdb", []string{"a.1.incr.aof"}, map[string]string{
		"a.1.incr.aof": cmd("SET", "k2", "v2")}},
	{"rdb base with tail", "a.1.base.rdb", nil, map[string]string{}},
	{"corrupt rdb base", "a.1.base.rdb", []string{"a.1.incr.aof"}, map[string]string{
		"a.1.incr.aof": cmd("SET", "k2", "v2")}},
	{"non-last truncated", "", []string{"a.1.incr.aof", "a.2.incr.aof"}, map[string]string{
		"a.1.incr.aof": cmd("SET", "k1", "v1") + "*3\r\n$3", "a.2.incr.aof": cmd("SET", "k2", "v2")}},
	{"non-last multi", "", []string{"a.1.incr.aof", "a.2.incr.aof"}, map[string]string{
		"a.1.incr.aof": cmd("SET", "k1", "v1") + cmd("MULTI"), "a.2.incr.aof": cmd("SET", "k2", "v2")}},
	{"missing file", "a.1.base.aof", []string{"a.1.incr.aof"}, map[string]string{
		"a.1.base.aof": cmd("SET", "k1", "v1")}},
	{"all empty", "a.1.base.aof", []string{"a.1.incr.aof"}, map[string]string{
		"a.1.base.aof": "", "a.1.incr.aof": ""}},
}

// TestRedisLoadVectors gives the same AOF directories to redis-server
// 7.0.15 and to Loader, with aof-load-truncated yes and no, and checks
// that both load the same data or both fail, log the same messages, and
// leave truncated files of the same size. (The servers are all started
// first and checked one after the other: they mostly wait.)
func TestRedisLoadVectors(t *testing.T) {
	type run struct {
		name             string
		allow            bool
		files            map[string]string
		redisDir, ourDir string
		p                *redisProc
	}
	var runs []*run
	for _, v := range loadVectors {
		for _, allow := range []bool{true, false} {
			r := &run{name: fmt.Sprintf("%s/truncated=%v", v.name, allow), allow: allow, files: map[string]string{}}
			for k, c := range v.files {
				r.files[k] = c
			}
			var manifest Manifest
			if v.base != "" {
				manifest.Base = &Entry{Name: v.base, Seq: 1, Type: TypeBase}
				if strings.HasSuffix(v.base, ".rdb") {
					base := rdbBase(t, "k1", "from-rdb", "k9", "v9")
					switch v.name {
					case "rdb base with tail":
						base += cmd("SET", "k2", "tail") + "*3\r\n$3\r\nSE"
					case "corrupt rdb base":
						base = base[:len(base)-3] + "xyz"
					}
					r.files[v.base] = base
				}
			}
			for i, name := range v.incr {
				manifest.Incr = append(manifest.Incr, Entry{Name: name, Seq: int64(i + 1), Type: TypeIncr})
			}
			r.files["a.manifest"] = string(manifest.Format())
			r.redisDir, r.ourDir = t.TempDir(), t.TempDir()
			writeFiles(t, filepath.Join(r.redisDir, "appendonlydir"), r.files)
			writeFiles(t, filepath.Join(r.ourDir, "appendonlydir"), r.files)
			yesno := map[bool]string{true: "yes", false: "no"}[allow]
			r.p = startRedisIn(t, r.redisDir, "--appendfilename", "a", "--aof-load-truncated", yesno)
			runs = append(runs, r)
		}
	}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			p := r.p
			redisOK := p.waitReady(t)
			redisData := setModel{}
			if redisOK {
				c := p.conn(t)
				for _, k := range parseKeys(c.Do("KEYS", "*")) {
					redisData[k] = parseBulk(c.Do("GET", k))
				}
			} else {
				p.waitExit(t)
			}
			p.kill()

			ours := setModel{}
			var logged []string
			l := &Loader{AllowTruncated: r.allow, OnCommand: ours.apply, RDB: modelRDBReader(ours),
				Log: func(_ LogLevel, msg string) { logged = append(logged, msg+"\n") }}
			res, err := l.LoadDir(filepath.Join(r.ourDir, "appendonlydir"), "a")
			if (err == nil) != redisOK {
				t.Fatalf("Loader error %v; redis-server loaded: %v\nlog:\n%s", err, redisOK, p.log())
			}
			redisMsgs := normalizeMessages(p.messages())
			if slices.Contains(redisMsgs, "Fatal error: the truncated file is not the last file\n") {
				// Redis truncates the file before failing; Loader does not
				// and does not say it does.
				redisMsgs = slices.DeleteFunc(redisMsgs, func(m string) bool {
					return strings.HasPrefix(m, "!!! Truncating") || strings.Contains(m, "loaded anyway")
				})
			}
			ourMsgs := normalizeMessages(logged)
			if !slices.Equal(ourMsgs, redisMsgs) {
				t.Fatalf("messages:\n ours  %q\n redis %q", ourMsgs, redisMsgs)
			}
			if err != nil {
				var le *LoadError
				if !errors.As(err, &le) || le.Msg+"\n" != logged[len(logged)-1] {
					t.Fatalf("error %v is not the last message logged (%q)", err, logged)
				}
				return
			}
			if fmt.Sprint(ours) != fmt.Sprint(redisData) {
				t.Fatalf("data:\n ours  %v\n redis %v", ours, redisData)
			}
			if res.Truncation != nil {
				if err := res.Truncation.Apply(); err != nil {
					t.Fatal(err)
				}
			}
			for name := range r.files {
				if name == "a.manifest" {
					continue
				}
				ourSize := fileSize(t, filepath.Join(r.ourDir, "appendonlydir", name))
				redisSize := fileSize(t, filepath.Join(r.redisDir, "appendonlydir", name))
				if ourSize != redisSize {
					t.Fatalf("%s: %d bytes after loading, redis-server left %d", name, ourSize, redisSize)
				}
			}
		})
	}
}

// parseKeys reads the raw reply of KEYS.
func parseKeys(raw string) []string {
	var keys []string
	lines := strings.Split(raw, "\r\n")
	for i := 1; i+1 < len(lines); i += 2 {
		keys = append(keys, lines[i+1])
	}
	return keys
}

// parseBulk reads a raw bulk string reply ("" for a null one).
func parseBulk(raw string) string {
	if strings.HasPrefix(raw, "$-1") {
		return ""
	}
	_, rest, _ := strings.Cut(raw, "\r\n")
	return strings.TrimSuffix(rest, "\r\n")
}

// TestRedisManifestErrors starts redis-server on each invalid manifest and
// checks that it refuses it with the very messages ManifestError gives.
func TestRedisManifestErrors(t *testing.T) {
	procs := make([]*redisProc, len(manifestErrorCases))
	dirs := make([]string, len(manifestErrorCases))
	for i, tc := range manifestErrorCases {
		dirs[i] = t.TempDir()
		writeFiles(t, filepath.Join(dirs[i], "appendonlydir"), map[string]string{"appendonly.aof.manifest": tc.text})
		procs[i] = startRedisIn(t, dirs[i])
	}
	for i, tc := range manifestErrorCases {
		t.Run(tc.name, func(t *testing.T) {
			p := procs[i]
			if p.waitReady(t) {
				t.Fatalf("redis-server loaded the manifest; log:\n%s", p.log())
			}
			p.waitExit(t)
			_, err := ReadManifestFile(filepath.Join(dirs[i], "appendonlydir", "appendonly.aof.manifest"))
			var me *ManifestError
			if !errors.As(err, &me) {
				t.Fatalf("%v", err)
			}
			msgs := p.messages()
			j := slices.Index(msgs, "\n*** FATAL AOF MANIFEST FILE ERROR ***\n\n")
			if j < 0 {
				t.Fatalf("no fatal manifest error in the log:\n%s", p.log())
			}
			var want []string
			for _, l := range me.LogLines() {
				want = append(want, l+"\n")
			}
			if got := msgs[j:]; !slices.Equal(got, want) {
				t.Fatalf("redis-server logged %q\nManifestError gives %q", got, want)
			}
		})
	}
}

// TestRedisManifestAccepted checks manifests both accept, and the data
// both load from them.
func TestRedisManifestAccepted(t *testing.T) {
	set := func(k string) string { return cmd("SET", k, "v-"+k) }
	for _, tc := range []struct{ name, manifest string }{
		{"new key and comment", "# a comment\nfile appendonly.aof.1.base.aof seq 1 type b newkey newvalue\n" +
			"file appendonly.aof.1.incr.aof seq 1 type i\nfile appendonly.aof.3.incr.aof seq 3 type i\n"},
		{"sloppy", "FILE appendonly.aof.1.base.aof SEQ 1x TYPE base\n  file \"appendonly.aof.1.incr.aof\"\tseq 2 type incr  \r\n" +
			"file appendonly.aof.3.incr.aof seq 3 type i file appendonly.aof.3.incr.aof\n" +
			"file missing-history seq 1 type h\n"},
		{"quoted", "file \"base file\\x21\" seq 1 type b\nfile 'it\\'s' seq 1 type h\nfile appendonly.aof.3.incr.aof seq 3 type i\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			files := map[string]string{
				"appendonly.aof.manifest":   tc.manifest,
				"appendonly.aof.1.base.aof": set("base"), "base file!": set("quoted"),
				"appendonly.aof.1.incr.aof": set("incr1"), "appendonly.aof.3.incr.aof": set("incr3"),
			}
			writeFiles(t, filepath.Join(dir, "appendonlydir"), files)
			ours := setModel{}
			l := &Loader{OnCommand: ours.apply}
			if _, err := l.LoadDir(filepath.Join(dir, "appendonlydir"), "appendonly.aof"); err != nil {
				t.Fatal(err)
			}
			p := startRedisIn(t, dir)
			if !p.waitReady(t) {
				t.Fatalf("redis-server failed:\n%s", p.log())
			}
			c := p.conn(t)
			redisData := setModel{}
			for _, k := range parseKeys(c.Do("KEYS", "*")) {
				redisData[k] = parseBulk(c.Do("GET", k))
			}
			if fmt.Sprint(ours) != fmt.Sprint(redisData) {
				t.Fatalf("data:\n ours  %v\n redis %v", ours, redisData)
			}
		})
	}
}

// readFile is os.ReadFile failing the test.
func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
