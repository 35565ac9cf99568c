package rlog

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// redisLine is Redis's layout (server.c serverLogRaw).
var redisLine = regexp.MustCompile(`^\d+:[MSCX] \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d\.\d{3} [.\-*#] .*$`)

func TestAppendLine(t *testing.T) {
	at := time.Date(2026, 12, 4, 15, 40, 1, 123_456_789, time.UTC)
	got := string(AppendLine(nil, 12345, 'M', at, Notice, "Ready to accept connections"))
	want := "12345:M 04 Dec 2026 15:40:01.123 * Ready to accept connections\n"
	if got != want {
		t.Fatalf("AppendLine = %q, want %q", got, want)
	}
	for level, mark := range map[Level]string{Debug: " . ", Verbose: " - ", Notice: " * ", Warning: " # "} {
		line := string(AppendLine(nil, 1, 'S', at, level, "x"))
		if !strings.Contains(line, mark) || !redisLine.MatchString(strings.TrimSuffix(line, "\n")) {
			t.Errorf("level %d: %q", level, line)
		}
	}
}

func TestLevels(t *testing.T) {
	var buf bytes.Buffer
	l := New(&buf, Notice)
	l.Log(Verbose, "hidden")
	l.Logf(Warning, "shown %d", 1)
	l.SetLevel(Debug)
	l.Log(Debug, "now shown\nin two lines")
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("got %d lines: %q", len(lines), buf.String())
	}
	for _, line := range lines {
		if !redisLine.MatchString(line) {
			t.Errorf("not Redis's layout: %q", line)
		}
	}
	if strings.Contains(buf.String(), "hidden") || !strings.HasSuffix(lines[0], "# shown 1") ||
		!strings.HasSuffix(lines[2], ". in two lines") {
		t.Errorf("log = %q", buf.String())
	}
	l.Raw(Notice, "RAW\n")
	if !strings.HasSuffix(buf.String(), "\nRAW\n") {
		t.Errorf("Raw wrote %q", buf.String())
	}
}

func TestHandler(t *testing.T) {
	var buf bytes.Buffer
	l := New(&buf, Verbose)
	log := slog.New(l.Handler())
	log.Debug("debug dropped")
	log.Log(context.Background(), LevelVerbose, "verbose", "id", 7)
	log.Info("notice")
	log.Warn("warning")
	out := buf.String()
	for _, want := range []string{" - verbose id=7\n", " * notice\n", " # warning\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "dropped") {
		t.Errorf("debug line below verbose written:\n%s", out)
	}
}

func TestFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "redis.log")
	l, err := NewFile(path, Notice)
	if err != nil {
		t.Fatal(err)
	}
	l.Log(Notice, "first")
	os.Remove(path) // moved away, as by logrotate: the next line recreates it
	l.Log(Notice, "second")
	b, _ := os.ReadFile(path)
	if got := string(b); strings.Contains(got, "first") || !strings.Contains(got, "* second\n") {
		t.Errorf("log file = %q", got)
	}
	if _, err := NewFile(filepath.Join(t.TempDir(), "no", "such", "dir"), Notice); err == nil {
		t.Error("NewFile in a missing directory: no error")
	}
}
