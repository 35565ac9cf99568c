package aof

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// redisExample is the manifest of the comment at the top of aof.c.
const redisExample = "file appendonly.aof.2.base.rdb seq 2 type b\n" +
	"file appendonly.aof.1.incr.aof seq 1 type h\n" +
	"file appendonly.aof.2.incr.aof seq 2 type h\n" +
	"file appendonly.aof.3.incr.aof seq 3 type h\n" +
	"file appendonly.aof.4.incr.aof seq 4 type i\n" +
	"file appendonly.aof.5.incr.aof seq 5 type i\n"

func mustParse(t *testing.T, text string) *Manifest {
	t.Helper()
	m, err := ParseManifest(strings.NewReader(text))
	if err != nil {
		t.Fatalf("ParseManifest(%q): %v", text, err)
	}
	return m
}

func TestManifestRoundTrip(t *testing.T) {
	m := mustParse(t, redisExample)
	if m.Base == nil || m.Base.Name != "appendonly.aof.2.base.rdb" || m.Base.Seq != 2 || m.Base.Type != TypeBase {
		t.Fatalf("base %+v", m.Base)
	}
	if len(m.History) != 3 || len(m.Incr) != 2 || m.CurBaseSeq != 2 || m.CurIncrSeq != 5 {
		t.Fatalf("manifest %+v", m)
	}
	if got := string(m.Format()); got != redisExample {
		t.Fatalf("Format:\n%s\nwant\n%s", got, redisExample)
	}
	// Comments, blanks around the words, key case and order, extra keys
	// and a quoted name parse to the canonical form.
	m = mustParse(t, "# comment\n  FILE \"appendonly.aof.1.base.rdb\"   Type b\tseq 1 future value \r\n"+
		"file appendonly.aof.1.incr.aof seq 1 type i\n")
	want := "file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n"
	if got := string(m.Format()); got != want {
		t.Fatalf("Format: %q, want %q", got, want)
	}
	// Only comments: an empty manifest, not an error.
	if m := mustParse(t, "# nothing\n"); !m.Empty() || len(m.History) != 0 {
		t.Fatalf("comments only: %+v", m)
	}
	// atoll: "7x" is 7; "type incr" is 'i'; a repeated key overrides.
	m = mustParse(t, "file a seq 7x type incr\nfile x seq 8 type i file b\n")
	if len(m.Incr) != 2 || m.Incr[0] != (Entry{"a", 7, TypeIncr}) || m.Incr[1] != (Entry{"b", 8, TypeIncr}) {
		t.Fatalf("incr %+v", m.Incr)
	}
	// Negative sequence numbers are fine for a base and history files.
	m = mustParse(t, "file a seq -3 type b\nfile h seq -9 type h\n")
	if m.Base.Seq != -3 || m.CurBaseSeq != -3 || m.History[0].Seq != -9 {
		t.Fatalf("%+v", m)
	}
}

func TestManifestQuoting(t *testing.T) {
	names := []string{
		"my aof.1.incr.aof", `quote".aof`, "pct%s", "tab\there", "nl\nx",
		"bell\a\b", "\x01\x7f\xff\xc3\xa9", "=!~",
	}
	m := &Manifest{}
	for i, n := range names {
		m.Incr = append(m.Incr, Entry{Name: n, Seq: int64(i + 1), Type: TypeIncr})
	}
	text := string(m.Format())
	wantLines := []string{
		`file "my aof.1.incr.aof" seq 1 type i`,
		`file "quote\".aof" seq 2 type i`,
		`file pct%s seq 3 type i`,
		`file "tab\there" seq 4 type i`,
		`file "nl\nx" seq 5 type i`,
		`file "bell\a\b" seq 6 type i`,
		`file "\x01\x7f\xff\xc3\xa9" seq 7 type i`,
		`file =!~ seq 8 type i`,
	}
	if text != strings.Join(wantLines, "\n")+"\n" {
		t.Fatalf("Format:\n%s", text)
	}
	back := mustParse(t, text)
	for i, n := range names {
		if back.Incr[i].Name != n {
			t.Fatalf("name %d: %q, want %q", i, back.Incr[i].Name, n)
		}
	}
	// Redis writes a name with a single quote bare (sdsneedsrepr does not
	// flag it), and sdssplitargs then cannot read the line back.
	m = &Manifest{Base: &Entry{Name: "it's.aof", Seq: 1, Type: TypeBase}}
	if got := string(m.Format()); got != "file it's.aof seq 1 type b\n" {
		t.Fatalf("Format: %q", got)
	}
	if _, err := ParseManifest(bytes.NewReader(m.Format())); err == nil || err.(*ManifestError).Msg != MsgManifestFormat {
		t.Fatalf("single quote: %v", err)
	}
	// So is an empty name (which a quoted "" gives).
	m = mustParse(t, "file \"\" seq 1 type b\n")
	if got := string(m.Format()); got != "file  seq 1 type b\n" {
		t.Fatalf("Format: %q", got)
	}
}

// manifestErrorCases are the invalid manifests of Redis's
// tests/integration/aof-multi-part.tcl and more, with 7.0.15's messages.
var manifestErrorCases = []struct {
	name, text string
	msg        string
	line       int // 0: Redis does not show the line
	shown      string
}{
	{"non-monotonic", "file appendonly.aof.2.incr.aof seq 2 type i\nfile appendonly.aof.1.incr.aof seq 1 type i\n",
		MsgManifestNonMonoSeq, 2, "file appendonly.aof.1.incr.aof seq 1 type i"},
	{"equal seq", "file a.1.incr.aof seq 1 type i\nfile b seq 1 type i\n", MsgManifestNonMonoSeq, 2, "file b seq 1 type i"},
	{"negative incr seq", "file a seq -1 type i\n", MsgManifestNonMonoSeq, 1, "file a seq -1 type i"},
	{"blank line", "file appendonly.aof.1.incr.aof seq 1 type i\n\nfile appendonly.aof.3.incr.aof seq 3 type i\n",
		MsgManifestFormat, 2, ""},
	{"spaces only", "  \t \r\n", MsgManifestFormat, 1, ""},
	{"duplicate base", "file appendonly.aof.1.base.aof seq 1 type b\nfile appendonly.aof.2.base.aof seq 2 type b\n" +
		"file appendonly.aof.1.incr.aof seq 1 type i\n", MsgManifestDupBase, 2, "file appendonly.aof.2.base.aof seq 2 type b"},
	{"unknown type", "file appendonly.aof.1.base.aof seq 1 type x\nfile appendonly.aof.1.incr.aof seq 1 type i\n",
		MsgManifestUnknown, 1, "file appendonly.aof.1.base.aof seq 1 type x"},
	{"missing key", "filx appendonly.aof.1.base.aof seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n",
		MsgManifestFormat, 1, "filx appendonly.aof.1.base.aof seq 1 type b"},
	{"line too short", "file appendonly.aof.1.base.aof seq 1 type b\nfile appendonly.aof.1.incr.aof type i\n",
		MsgManifestFormat, 2, "file appendonly.aof.1.incr.aof type i"},
	{"line too long", "file appendonly.aof.1.base.aof seq 1 type b" + strings.Repeat(" file appendonly.aof.1.base.aof seq 1 type b", 40) + "\n" +
		"file appendonly.aof.1.incr.aof seq 1 type i\n", MsgManifestLongLine, 0, ""},
	{"odd parameter", "file appendonly.aof.1.base.aof seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i newkey\n",
		MsgManifestFormat, 2, "file appendonly.aof.1.incr.aof seq 1 type i newkey"},
	{"empty", "", MsgManifestEmpty, 0, ""},
	{"no final newline", "file appendonly.aof.1.incr.aof seq 1 type i", MsgManifestLongLine, 0, ""},
	{"seq 0", "file a seq 0 type i\n", MsgManifestFormat, 1, "file a seq 0 type i"},
	{"seq not a number", "file a seq x1 type i\n", MsgManifestFormat, 1, "file a seq x1 type i"},
	{"empty type", "file a seq 1 type \"\"\n", MsgManifestFormat, 1, `file a seq 1 type ""`},
	{"path", "file dir/a seq 1 type i\n", MsgManifestPath, 1, "file dir/a seq 1 type i"},
	{"backslash path", "file \"a\\\\b\" seq 1 type i\n", MsgManifestPath, 1, `file "a\\b" seq 1 type i`},
	{"path before bad type", "file a seq 1 type q file /x\n", MsgManifestPath, 1, "file a seq 1 type q file /x"},
	{"unbalanced quotes", "file \"a seq 1 type i\n", MsgManifestFormat, 1, `file "a seq 1 type i`},
	{"closing quote glued", "file \"a\"b seq 1 type i\n", MsgManifestFormat, 1, `file "a"b seq 1 type i`},
	{"NUL before newline", "file a seq 1 type i\x00\n", MsgManifestLongLine, 0, ""},
	// A comment longer than the buffer goes on as a line of its own.
	{"long comment", "#" + strings.Repeat("c", 1100) + "\n", MsgManifestFormat, 2, strings.Repeat("c", 77)},
	{"second error wins nothing", "file b seq 1 type b\nfile a seq 1 type z\nfile c seq 1 type b\n",
		MsgManifestUnknown, 2, "file a seq 1 type z"},
}

func TestManifestErrors(t *testing.T) {
	for _, tc := range manifestErrorCases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseManifest(strings.NewReader(tc.text))
			var me *ManifestError
			if !errors.As(err, &me) {
				t.Fatalf("error %v, want a *ManifestError", err)
			}
			if me.Msg != tc.msg || me.HasLine != (tc.line > 0) || me.Line != tc.line || me.Text != tc.shown {
				t.Fatalf("got %q line %v %d %q; want %q line %d %q", me.Msg, me.HasLine, me.Line, me.Text, tc.msg, tc.line, tc.shown)
			}
			lines := me.LogLines()
			if lines[0] != "\n*** FATAL AOF MANIFEST FILE ERROR ***\n" || lines[len(lines)-1] != tc.msg+"\n" {
				t.Fatalf("log lines %q", lines)
			}
		})
	}
}

func TestManifestFileLineLimit(t *testing.T) {
	// A line of 1024 bytes with its newline fits the 1025-byte buffer;
	// one byte more does not.
	line := func(n int) string {
		s := "file a seq 1 type i "
		return s + strings.Repeat("x", n-len(s)-1) + "\n"
	}
	if _, err := ParseManifest(strings.NewReader(line(1024))); err == nil || err.(*ManifestError).Msg != MsgManifestFormat {
		t.Fatalf("1024: %v", err) // 7 words: fits, but odd
	}
	if _, err := ParseManifest(strings.NewReader(line(1025))); err == nil || err.(*ManifestError).Msg != MsgManifestLongLine {
		t.Fatalf("1025: %v", err)
	}
	long := "file " + strings.Repeat("n", 1000) + " seq 1 type i\n"
	if m, err := ParseManifest(strings.NewReader(long)); err != nil || len(m.Incr[0].Name) != 1000 {
		t.Fatalf("long name: %v", err)
	}
}

func TestManifestOperations(t *testing.T) {
	m := &Manifest{}
	if name, created := m.LastIncr("appendonly.aof"); name != "appendonly.aof.1.incr.aof" || !created {
		t.Fatalf("LastIncr %q %v", name, created)
	}
	if name, created := m.LastIncr("appendonly.aof"); name != "appendonly.aof.1.incr.aof" || created {
		t.Fatalf("LastIncr %q %v", name, created)
	}
	if b := m.NewBase("appendonly.aof", true); b != "appendonly.aof.1.base.rdb" {
		t.Fatal(b)
	}
	// Two rewrites with AOF on, the history kept (aof-disable-auto-gc
	// yes): the manifest redis-server 7.0.15 writes in that case.
	for range 2 {
		m.NewIncr("appendonly.aof")
		m.NewBase("appendonly.aof", true)
		m.MarkIncrAsHistory(true)
	}
	want := "file appendonly.aof.3.base.rdb seq 3 type b\n" +
		"file appendonly.aof.2.incr.aof seq 2 type h\n" +
		"file appendonly.aof.2.base.rdb seq 2 type h\n" +
		"file appendonly.aof.1.incr.aof seq 1 type h\n" +
		"file appendonly.aof.1.base.rdb seq 1 type h\n" +
		"file appendonly.aof.3.incr.aof seq 3 type i\n"
	if got := string(m.Format()); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	c := m.Clone()
	c.Base.Name = "changed"
	c.History[0].Name = "changed"
	if m.Base.Name == "changed" || m.History[0].Name == "changed" {
		t.Fatal("Clone shares storage")
	}
	// A rewrite with AOF off moves every incremental file to history.
	m.NewBase("appendonly.aof", false)
	m.MarkIncrAsHistory(false)
	if len(m.Incr) != 0 || m.Base.Name != "appendonly.aof.4.base.aof" || m.History[0].Name != "appendonly.aof.3.incr.aof" {
		t.Fatalf("%s", m.Format())
	}
}

func TestNames(t *testing.T) {
	for _, c := range [][2]string{
		{ManifestFileName("appendonly.aof"), "appendonly.aof.manifest"},
		{TempManifestFileName("appendonly.aof"), "temp-appendonly.aof.manifest"},
		{BaseFileName("appendonly.aof", 1, true), "appendonly.aof.1.base.rdb"},
		{BaseFileName("x", 12, false), "x.12.base.aof"},
		{IncrFileName("appendonly.aof", 7), "appendonly.aof.7.incr.aof"},
		{TempIncrFileName("appendonly.aof"), "temp-appendonly.aof.incr"},
		{TempRewriteFileName(42), "temp-rewriteaof-bg-42.aof"},
	} {
		if c[0] != c[1] {
			t.Errorf("%q, want %q", c[0], c[1])
		}
	}
}

func TestWriteManifestFile(t *testing.T) {
	dir := t.TempDir()
	m := mustParse(t, redisExample)
	if err := WriteManifestFile(dir, "appendonly.aof", m); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "appendonly.aof.manifest"))
	if err != nil || string(b) != redisExample {
		t.Fatalf("%q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "temp-appendonly.aof.manifest")); !os.IsNotExist(err) {
		t.Fatalf("temporary manifest left: %v", err)
	}
	back, err := ReadManifestFile(filepath.Join(dir, "appendonly.aof.manifest"))
	if err != nil || string(back.Format()) != redisExample {
		t.Fatal(err)
	}
	_, err = ReadManifestFile(filepath.Join(dir, "missing"))
	var me *ManifestError
	if !errors.As(err, &me) || !os.IsNotExist(me.Err) ||
		!strings.HasPrefix(me.Msg, "Fatal error: can't open the AOF manifest file ") ||
		!strings.HasSuffix(me.Msg, " for reading: No such file or directory") {
		t.Fatalf("%v", err)
	}
	err = WriteManifestFile(filepath.Join(dir, "nodir"), "appendonly.aof", m)
	var oe *OpError
	if !errors.As(err, &oe) || oe.Msg != "Can't open the AOF manifest file temp-appendonly.aof.manifest: No such file or directory" {
		t.Fatalf("%v", err)
	}
}
