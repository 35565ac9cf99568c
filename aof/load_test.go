package aof

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// recorder is an OnCommand that records the commands.
type recorder struct{ cmds []string }

func (r *recorder) on(args [][]byte) error {
	r.cmds = append(r.cmds, fmt.Sprintf("%q", args))
	return nil
}

func quoted(cmds ...[]string) []string {
	var out []string
	for _, c := range cmds {
		b := make([][]byte, len(c))
		for i, s := range c {
			b[i] = []byte(s)
		}
		out = append(out, fmt.Sprintf("%q", b))
	}
	return out
}

func loadBytes(t *testing.T, data []byte, allow, last bool) (*recorder, *FileResult, error) {
	t.Helper()
	r := &recorder{}
	l := &Loader{AllowTruncated: allow, OnCommand: r.on}
	res, err := l.LoadStream(bytes.NewReader(data), "appendonly.aof.1.incr.aof", last)
	return r, res, err
}

func encode(cmds ...[]string) ([]byte, []int64) {
	var b []byte
	var offs []int64
	for _, c := range cmds {
		offs = append(offs, int64(len(b)))
		b = AppendCommandStrings(b, c...)
	}
	return b, offs
}

// TestTornTail cuts a file at every byte offset of its last command: with
// truncation allowed the earlier commands load and the valid length is the
// start of the last command; otherwise, or in a file that is not the
// last, the load fails at that offset.
func TestTornTail(t *testing.T) {
	cmds := [][]string{
		{"SET", "k1", "v1"},
		{"RPUSH", "list", "a", "b", ""},
		{"SET", "big", strings.Repeat("x", 70000)},
		{"set", "last", "value\r\nwith CRLF"},
	}
	file, offs := encode(cmds...)
	last := offs[len(offs)-1]
	want := quoted(cmds[:3]...)
	for cut := last + 1; cut < int64(len(file)); cut++ {
		data := file[:cut]
		r, res, err := loadBytes(t, data, true, true)
		if err != nil || res.Truncation == nil || res.Truncation.ValidLength != last ||
			res.Truncation.Size != cut || res.Truncation.RevertedMulti || !slices.Equal(r.cmds, want) {
			t.Fatalf("cut %d: %v %+v %q", cut, err, res, r.cmds)
		}
		_, _, err = loadBytes(t, data, false, true)
		var le *LoadError
		if !errors.As(err, &le) || !errors.Is(err, ErrUnexpectedEOF) || le.Offset != last ||
			le.File != "appendonly.aof.1.incr.aof" || !strings.HasPrefix(le.Msg, "Unexpected end of file reading the append only file appendonly.aof.1.incr.aof. You can: 1)") {
			t.Fatalf("cut %d, truncation not allowed: %v", cut, err)
		}
		_, _, err = loadBytes(t, data, true, false)
		if !errors.As(err, &le) || !errors.Is(err, ErrTruncatedNotLast) || le.Truncation.ValidLength != last {
			t.Fatalf("cut %d, not the last file: %v", cut, err)
		}
	}
	// Whole, and cut at a command boundary: no truncation.
	for _, cut := range []int64{last, int64(len(file))} {
		r, res, err := loadBytes(t, file[:cut], false, true)
		if err != nil || res.Truncation != nil || len(r.cmds) != int(res.Commands) {
			t.Fatalf("cut %d: %v %+v", cut, err, res)
		}
	}
}

// TestTornTransaction cuts a file inside a transaction: at a command
// boundary the transaction is reverted (valid length: its MULTI); inside a
// command, as Redis, the valid length is the end of the last complete
// command even inside the transaction. Its commands are never delivered.
func TestTornTransaction(t *testing.T) {
	cmds := [][]string{
		{"SET", "a", "1"}, {"MULTI"}, {"SET", "b", "2"}, {"INCR", "c"}, {"EXEC"}, {"SET", "d", "4"},
	}
	file, offs := encode(cmds...)
	for cut := offs[1] + 1; cut < offs[5]; cut++ {
		r, res, err := loadBytes(t, file[:cut], true, true)
		if err != nil || !slices.Equal(r.cmds, quoted(cmds[0])) {
			t.Fatalf("cut %d: %v %q", cut, err, r.cmds)
		}
		boundary := slices.Contains(offs, cut)
		want := offs[1]
		if !boundary {
			for _, o := range offs {
				if o < cut {
					want = o // the start of the torn command
				}
			}
		}
		if tr := res.Truncation; tr.ValidLength != want || tr.RevertedMulti != boundary {
			t.Fatalf("cut %d: %+v, want valid length %d", cut, tr, want)
		}
		_, _, err = loadBytes(t, file[:cut], false, true)
		if le := (*LoadError)(nil); !errors.As(err, &le) || !errors.Is(err, ErrUnexpectedEOF) || le.Offset != want {
			t.Fatalf("cut %d: %v", cut, err)
		}
	}
	r, _, err := loadBytes(t, file, false, true)
	if err != nil || !slices.Equal(r.cmds, quoted(cmds...)) {
		t.Fatalf("%v %q", err, r.cmds)
	}
}

// TestTruncationApply loads a directory whose last file is torn, applies
// the truncation, and loads again: the transaction torn inside a command
// is then reverted, and the third load is clean.
func TestTruncationApply(t *testing.T) {
	dir := t.TempDir()
	incr, _ := encode([]string{"SET", "a", "1"}, []string{"MULTI"}, []string{"SET", "b", "2"})
	incr = append(incr, "*3\r\n$3\r\nSET\r\n$1"...)
	base, _ := encode([]string{"SET", "base", "0"})
	writeFiles(t, dir, map[string]string{
		"x.manifest":       "file x.1.base.aof seq 1 type b\nfile x.1.incr.aof seq 1 type i\n",
		"x.1.base.aof":     string(base),
		"x.1.incr.aof":     string(incr),
		"x.1.incr.aof.bak": "",
	})
	var sizes []int64
	for round := 0; round < 3; round++ {
		r := &recorder{}
		res, err := (&Loader{AllowTruncated: true, OnCommand: r.on}).LoadDir(dir, "x")
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(r.cmds, quoted([]string{"SET", "base", "0"}, []string{"SET", "a", "1"})) {
			t.Fatalf("round %d: %q", round, r.cmds)
		}
		if round == 2 {
			if res.Status != StatusOK || res.Truncation != nil {
				t.Fatalf("round 2: %+v", res)
			}
			break
		}
		if res.Status != StatusTruncated || res.Truncation.Path != filepath.Join(dir, "x.1.incr.aof") ||
			res.TotalSize != int64(len(base))+fileSize(t, filepath.Join(dir, "x.1.incr.aof")) || res.BaseSize != int64(len(base)) {
			t.Fatalf("round %d: %+v", round, res)
		}
		if err := res.Truncation.Apply(); err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, fileSize(t, filepath.Join(dir, "x.1.incr.aof")))
	}
	_, offs := encode([]string{"SET", "a", "1"}, []string{"MULTI"}, []string{"SET", "b", "2"})
	if !slices.Equal(sizes, []int64{int64(len(incr)) - int64(len("*3\r\n$3\r\nSET\r\n$1")), offs[1]}) {
		t.Fatalf("sizes after truncation %v", sizes)
	}
}

// TestCorruption: a malformed line anywhere is an error naming the file
// and the offset of the line, whatever aof-load-truncated says; the
// commands before it were delivered.
func TestCorruption(t *testing.T) {
	file, offs := encode([]string{"SET", "a", "1"}, []string{"SET", "b", "2"}, []string{"SET", "c", "3"})
	for _, tc := range []struct {
		name string
		at   int64 // offset of the byte replaced
		b    byte
		kind error
		off  int64 // offset reported
	}{
		{"count line", offs[1], '+', ErrBadFormat, offs[1]},
		{"bulk line", offs[1] + 4, ':', ErrBadFormat, offs[1] + 4},
		{"third bulk", offs[1] + 20, 'x', ErrBadFormat, offs[1] + 20},
		{"zero argc", offs[2] + 1, '0', ErrBadFormat, offs[2]},
		{"NUL after star", offs[1] + 1, 0, ErrRead, offs[1]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := slices.Clone(file)
			data[tc.at] = tc.b
			for _, allow := range []bool{false, true} {
				r, _, err := loadBytes(t, data, allow, true)
				var le *LoadError
				if !errors.As(err, &le) || !errors.Is(err, tc.kind) || le.Offset != tc.off || le.File != "appendonly.aof.1.incr.aof" {
					t.Fatalf("%v", err)
				}
				if !strings.Contains(err.Error(), fmt.Sprintf("offset %d", tc.off)) || !strings.Contains(err.Error(), le.File) {
					t.Fatalf("error text %q", err)
				}
				if tc.kind == ErrBadFormat && le.Msg != "Bad file format reading the append only file appendonly.aof.1.incr.aof: "+
					"make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>" {
					t.Fatalf("%q", le.Msg)
				}
				before := 0 // the commands before the damaged one
				for _, o := range offs[1:] {
					if o <= tc.at {
						before++
					}
				}
				if len(r.cmds) != before {
					t.Fatalf("delivered %q", r.cmds)
				}
			}
		})
	}
	// A negative length: Redis crashes.
	neg := slices.Concat(file[:offs[1]], []byte("*2\r\n$3\r\nGET\r\n$-1\r\n"), file[offs[1]:])
	if _, _, err := loadBytes(t, neg, true, true); !errors.Is(err, ErrBadFormat) || err.(*LoadError).Offset != offs[1]+13 {
		t.Fatalf("%v", err)
	}
	// In a base that is not the last file.
	dir := t.TempDir()
	bad := slices.Clone(file)
	bad[offs[2]] = '?'
	writeFiles(t, dir, map[string]string{"x.manifest": "file x.1.base.aof seq 1 type b\nfile x.1.incr.aof seq 1 type i\n",
		"x.1.base.aof": string(bad), "x.1.incr.aof": string(file)})
	_, err := (&Loader{AllowTruncated: true, OnCommand: (&recorder{}).on}).LoadDir(dir, "x")
	var le *LoadError
	if !errors.As(err, &le) || le.File != "x.1.base.aof" || le.Offset != offs[2] || !errors.Is(err, ErrBadFormat) {
		t.Fatalf("%v", err)
	}
}

func TestLoadCallbacks(t *testing.T) {
	file, offs := encode([]string{"SET", "a", "1"}, []string{"MULTI"}, []string{"BOGUS", "x"}, []string{"EXEC"})
	boom := errors.New("boom")
	n := 0
	l := &Loader{OnCommand: func(args [][]byte) error {
		if n++; n == 2 {
			return boom
		}
		return nil
	}}
	_, err := l.LoadStream(bytes.NewReader(file), "f", true)
	var le *LoadError
	if !errors.As(err, &le) || !errors.Is(err, boom) || !errors.Is(err, ErrCallback) || le.Offset != offs[1] {
		t.Fatalf("%v", err)
	}
	l.OnCommand = func(args [][]byte) error {
		if string(args[0]) == "BOGUS" {
			return fmt.Errorf("%w %s", ErrUnknownCommand, args[0])
		}
		return nil
	}
	_, err = l.LoadStream(bytes.NewReader(file), "f", true)
	if !errors.As(err, &le) || le.Msg != "Unknown command 'BOGUS' reading the append only file f" || le.Offset != offs[2] {
		t.Fatalf("%v", err)
	}
	// An RDB without an RDB reader.
	_, err = l.LoadStream(strings.NewReader("REDIS0010..."), "f", true)
	if !errors.Is(err, ErrRDB) {
		t.Fatalf("%v", err)
	}
	// Empty and nearly empty files.
	res, err := l.LoadStream(strings.NewReader(""), "f", true)
	if err != nil || !res.Empty {
		t.Fatal(res, err)
	}
	res, err = l.LoadStream(strings.NewReader("REDI"), "f", true)
	if !errors.Is(err, ErrBadFormat) {
		t.Fatal(res, err)
	}
}

// TestRDBPreambleTruncation: an RDB followed by a torn command. Redis 7.0
// would truncate the file to 0 bytes; Loader keeps the RDB.
func TestRDBPreambleTruncation(t *testing.T) {
	base := rdbBase(t, "k", "v")
	tail, offs := encode([]string{"SET", "a", "1"})
	for _, data := range []string{base + "*3\r\n$3\r\nSE", base + string(tail) + "*1\r\n"} {
		m := setModel{}
		l := &Loader{AllowTruncated: true, OnCommand: m.apply, RDB: modelRDBReader(m)}
		res, err := l.LoadStream(strings.NewReader(data), "f", true)
		if err != nil || !res.RDB || res.RDBInfo.Size != int64(len(base)) {
			t.Fatal(res, err)
		}
		want := int64(len(base))
		if strings.HasSuffix(data, "*1\r\n") {
			want += int64(len(tail)) - offs[0]
		}
		if res.Truncation.ValidLength != want || m["k"] != "v" {
			t.Fatalf("%+v %v", res.Truncation, m)
		}
	}
}

// chunkReader returns at most a few bytes per Read, to exercise the
// buffering.
type chunkReader struct {
	*bytes.Reader
	rng *rand.Rand
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if n := 1 + c.rng.IntN(700); len(p) > n {
		p = p[:n]
	}
	return c.Reader.Read(p)
}

// TestLoadRandomCommands round-trips random binary commands, with values
// larger than the read buffer, through AppendCommand and a reader that
// returns short reads.
func TestLoadRandomCommands(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var file []byte
	var want []string
	for range 300 {
		args := make([][]byte, 1+rng.IntN(5))
		for i := range args {
			n := rng.IntN(40)
			if rng.IntN(30) == 0 {
				n = rng.IntN(200000)
			}
			args[i] = make([]byte, n)
			for j := range args[i] {
				args[i][j] = "ab\r\n\x00$*#"[rng.IntN(8)]
			}
		}
		args[0] = append([]byte("X"), args[0]...) // not MULTI or EXEC
		file = AppendCommand(file, args)
		if rng.IntN(10) == 0 {
			file = AppendTimestamp(file, rng.Int64())
		}
		want = append(want, fmt.Sprintf("%q", args))
	}
	r := &recorder{}
	l := &Loader{OnCommand: r.on}
	res, err := l.LoadStream(&chunkReader{bytes.NewReader(file), rng}, "f", true)
	if err != nil || res.Commands != 300 || !slices.Equal(r.cmds, want) {
		t.Fatalf("%v %+v", err, res)
	}
}

// TestLoadDirStatuses covers the statuses of a directory load.
func TestLoadDirStatuses(t *testing.T) {
	l := &Loader{OnCommand: (&recorder{}).on}
	// No directory, or no manifest: nothing to load.
	res, err := l.LoadDir(filepath.Join(t.TempDir(), "none"), "appendonly.aof")
	if err != nil || res.Status != StatusNotExist {
		t.Fatal(res, err)
	}
	dir := t.TempDir()
	res, err = l.LoadDir(dir, "appendonly.aof")
	if err != nil || res.Status != StatusNotExist {
		t.Fatal(res, err)
	}
	writeFiles(t, dir, map[string]string{"appendonly.aof.manifest": "file appendonly.aof.1.incr.aof seq 1 type i\n",
		"appendonly.aof.1.incr.aof": ""})
	res, err = l.LoadDir(dir, "appendonly.aof")
	if err != nil || res.Status != StatusEmpty {
		t.Fatal(res, err)
	}
	os.Remove(filepath.Join(dir, "appendonly.aof.1.incr.aof"))
	_, err = l.LoadDir(dir, "appendonly.aof")
	var le *LoadError
	if !errors.As(err, &le) || !errors.Is(err, ErrMissingFile) ||
		le.Msg != "Unable to obtain the AOF file appendonly.aof.1.incr.aof length. stat: No such file or directory" {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"appendonly.aof.manifest": "file appendonly.aof.1.incr.aof seq 1 type i\nbad\n"})
	_, err = l.LoadDir(dir, "appendonly.aof")
	var me *ManifestError
	if !errors.As(err, &me) || me.Line != 2 {
		t.Fatal(err)
	}
}

func TestStrtoll(t *testing.T) {
	for s, want := range map[string]int64{
		"": 0, "12": 12, " \t+7x": 7, "-3": -3, "--3": 0, "9223372036854775807": 1<<63 - 1,
		"9223372036854775808": 1<<63 - 1, "-9223372036854775808": -1 << 63, "-99999999999999999999": -1 << 63,
		"1\x002": 1, "99999999999999999999999": 1<<63 - 1,
	} {
		if got := strtoll([]byte(s)); got != want {
			t.Errorf("strtoll(%q) = %d, want %d", s, got, want)
		}
	}
	if atoi([]byte("4294967299")) != 3 || atoi([]byte("99999999999999999999")) != -1 {
		t.Error("atoi does not truncate to 32 bits")
	}
}

var _ io.ReadSeeker = (*chunkReader)(nil)

// TestLoadZeroTail: the zero bytes that end incremental files (space
// OSFile preallocated, left by a crash) are not read; LoadResult.Trims
// removes them. A torn command before them is a truncation as usual, and
// a base file is read as Redis reads it, zeros included.
func TestLoadZeroTail(t *testing.T) {
	zeros := func(n int) string { return strings.Repeat("\x00", n) }
	base, _ := encode([]string{"SET", "base", "0"})
	first, _ := encode([]string{"SET", "a", "1"}, []string{"SET", "z", "\x00\x00"})
	second, offs := encode([]string{"SET", "b", "2"}, []string{"INCR", "n"})
	manifest := "file x.1.base.aof seq 1 type b\nfile x.1.incr.aof seq 1 type i\nfile x.2.incr.aof seq 2 type i\n"
	all := quoted([]string{"SET", "base", "0"}, []string{"SET", "a", "1"}, []string{"SET", "z", "\x00\x00"},
		[]string{"SET", "b", "2"}, []string{"INCR", "n"})
	load := func(dir string, allow bool) (*recorder, *LoadResult, error) {
		r := &recorder{}
		res, err := (&Loader{AllowTruncated: allow, OnCommand: r.on}).LoadDir(dir, "x")
		return r, res, err
	}

	// Both incremental files end with zeros (the first one was not yet
	// trimmed when a rotation was followed by a crash).
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"x.manifest": manifest, "x.1.base.aof": string(base),
		"x.1.incr.aof": string(first) + zeros(70000), "x.2.incr.aof": string(second) + zeros(5)})
	for _, allow := range []bool{true, false} {
		r, res, err := load(dir, allow)
		if err != nil || !slices.Equal(r.cmds, all) || res.Status != StatusOK || res.Truncation != nil {
			t.Fatalf("allow %v: %q %+v %v", allow, r.cmds, res, err)
		}
		if res.TotalSize != int64(len(base)+len(first)+len(second)) || len(res.Trims) != 2 ||
			res.Files[1].Size != int64(len(first)) || res.Trims[0].Size-res.Trims[0].ValidLength != 70000 ||
			res.Trims[1].Size-res.Trims[1].ValidLength != 5 {
			t.Fatalf("%+v %+v", res, res.Files)
		}
	}
	_, res, _ := load(dir, true)
	for _, tr := range res.Trims {
		if err := tr.Apply(); err != nil {
			t.Fatal(err)
		}
	}
	if got := readFile(t, filepath.Join(dir, "x.1.incr.aof")); string(got) != string(first) {
		t.Fatalf("x.1.incr.aof after the trim: %q", got)
	}
	if got := readFile(t, filepath.Join(dir, "x.2.incr.aof")); string(got) != string(second) {
		t.Fatalf("x.2.incr.aof after the trim: %q", got)
	}
	if r, res, err := load(dir, true); err != nil || !slices.Equal(r.cmds, all) || len(res.Trims) != 0 {
		t.Fatalf("after the trims: %q %+v %v", r.cmds, res, err)
	}

	// A command torn by the crash, then zeros: truncated before it,
	// whatever its cut.
	torn := second[:offs[1]+9] // "*2\r\n$4\r\nI"
	for _, tail := range []string{string(torn), string(second[:len(second)-1])} {
		writeFiles(t, dir, map[string]string{"x.2.incr.aof": tail + zeros(4096)})
		r, res, err := load(dir, true)
		if err != nil || res.Status != StatusTruncated || res.Truncation.ValidLength != offs[1] ||
			len(res.Trims) != 1 || !slices.Equal(r.cmds, all[:4]) {
			t.Fatalf("torn %q: %q %+v %v", tail, r.cmds, res, err)
		}
		if _, _, err := load(dir, false); !errors.Is(err, ErrUnexpectedEOF) {
			t.Fatalf("torn %q, aof-load-truncated no: %v", tail, err)
		}
	}

	// Nothing but zeros: an empty directory to load, still trimmed.
	writeFiles(t, dir, map[string]string{"x.manifest": "file x.1.incr.aof seq 1 type i\n", "x.1.incr.aof": zeros(1 << 20)})
	if r, res, err := load(dir, false); err != nil || res.Status != StatusEmpty || len(r.cmds) != 0 ||
		len(res.Trims) != 1 || res.Trims[0].ValidLength != 0 {
		t.Fatalf("zeros only: %q %+v %v", r.cmds, res, err)
	}

	// A base is not HotKV's preallocated file: zeros there are a bad
	// format, as for Redis.
	writeFiles(t, dir, map[string]string{"x.manifest": manifest, "x.1.base.aof": string(base) + zeros(3),
		"x.1.incr.aof": string(first), "x.2.incr.aof": string(second)})
	if _, _, err := load(dir, true); !errors.Is(err, ErrBadFormat) {
		t.Fatalf("zeros after the base: %v", err)
	}
}
