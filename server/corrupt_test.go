package server

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hotkv/hotkv/config"
	"github.com/hotkv/hotkv/internal/difftest"
	"github.com/hotkv/hotkv/rdb"
	"github.com/hotkv/hotkv/rlog"
)

// syncBuffer is a log destination tests read while the server writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startLoggedServer is startServer with the log at verbose level in a
// buffer; load says whether LoadData runs (its error is returned).
func startLoggedServer(t *testing.T, dir string, args ...string) (*Server, string, *syncBuffer, error) {
	t.Helper()
	port := difftest.FreePort(t)
	cfg, err := config.Load("", append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--dir", dir, "--save", "", "--loglevel", "verbose", "--enable-debug-command", "yes"}, args...))
	if err != nil {
		t.Fatal(err)
	}
	s := New(cfg)
	buf := &syncBuffer{}
	s.setLogger(rlog.New(buf, rlog.Verbose))
	if err := s.LoadData(); err != nil {
		return nil, "", buf, err
	}
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	go s.Serve()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	// Serving (its transport started) before the test may end.
	if err := difftest.WaitReady(s.Addr().String(), 5*time.Second); err != nil {
		t.Fatal(err)
	}
	return s, s.Addr().String(), buf, nil
}

// logLines returns the messages of the log lines that contain any of
// subs, without the pid, role and time.
func logLines(log string, subs ...string) []string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		for _, sub := range subs {
			if strings.Contains(l, sub) {
				if i := strings.Index(l, " - "); i >= 0 && strings.Contains(l[:i], ":") {
					l = l[i:]
				} else if i := strings.Index(l, " # "); i >= 0 && strings.Contains(l[:i], ":") {
					l = l[i:]
				} else if i := strings.Index(l, " * "); i >= 0 && strings.Contains(l[:i], ":") {
					l = l[i:]
				}
				if !strings.HasPrefix(l, "[") {
					out = append(out, l)
				}
				break
			}
		}
	}
	return out
}

// corruptPayloads are payloads Redis 7.0 rejects with sanitize-dump-payload
// yes, most from its corrupt-dump test suite, meant to be restored with
// the checksum check skipped; each fails for one of the reasons
// rdbReportCorruptRDB logs.
var corruptPayloads = []string{
	// hash ziplist, invalid entry length; dup records; zlbytes.
	"\x0D\x1B\x1B\x00\x00\x00\x16\x00\x00\x00\x04\x00\x00\x02\x61\x00\x04\x02\x62\x00\x04\x14\x63\x00\x04\x02\x64\x00\xFF\x09\x00\xD9\x10\x54\x92\x15\xF5\x5F\x52",
	"\x0D\x1B\x1B\x00\x00\x00\x16\x00\x00\x00\x04\x00\x00\x02\x61\x00\x04\x02\x62\x00\x04\x02\x61\x00\x04\x02\x64\x00\xFF\x09\x00\xA1\x98\x36\x78\xCC\x8E\x93\x2E",
	// quicklist of ziplists, wrong prev len.
	"\x0E\x01\x13\x13\x00\x00\x00\x0E\x00\x00\x00\x02\x00\x00\x02\x61\x00\x0E\x02\x62\x00\xFF\x09\x00\x49\x97\x30\xB2\x0D\xA1\xED\xAA",
	// quicklist of listpacks: bad container; entry starting with EOF.
	"\x12\x01\x03\x0b\x0b\x00\x00\x00\x01\x00\x81\x61\x02\xff\x0a\x00\x00\x00\x00\x00\x00\x00\x00\x00",
	"\x12\x01\x02\x0b\x0b\x00\x00\x00\x01\x00\x81\x61\x02\xff\xff\x0a\x00\x7e\xd8\xde\x5b\x0d\xd7\x70\xb8",
	// list ziplist (#3080).
	"\x0A\x80\x00\x00\x00\x10\x41\x41\x41\x41\x41\x41\x41\x41\x02\x00\x00\x80\x41\x41\x41\x41\x07\x00\x39\x5B\x49\xE0\xC1\xC6\xDD\x76",
	// hash listpack with duplicates; empty zipmap; plain hash duplicates.
	"\x10\x17\x17\x00\x00\x00\x04\x00\x82\x61\x00\x03\x82\x62\x00\x03\x82\x61\x00\x03\x82\x64\x00\x03\xff\x0a\x00\xc0\xcf\xa6\x87\xe5\xa7\xc5\xbe",
	"\x09\x02\x00\xFF\x09\x00\xC0\xF1\xB8\x67\x4C\x16\xAC\xE3",
	"\x04\x02\x01a\x01b\x01a\x01d\t\x00\xc6\x9c\xab\xbc\bk\x0c\x06",
	// plain sets with duplicates: integers (intset), strings (dict).
	"\x02\x02\x011\x011\x0a\x00\x00\x00\x00\x00\x00\x00\x00\x00",
	"\x02\x02\x01a\x01a\x0a\x00\x00\x00\x00\x00\x00\x00\x00\x00",
	// plain sorted set: duplicate member; NaN score.
	"\x05\x02\x01a\x00\x00\x00\x00\x00\x00\xf0\x3f\x01a\x00\x00\x00\x00\x00\x00\xf0\x3f\x0a\x00\x00\x00\x00\x00\x00\x00\x00\x00",
	"\x05\x01\x01a\x00\x00\x00\x00\x00\x00\xf8\x7f\x0a\x00\x00\x00\x00\x00\x00\x00\x00\x00",
	// an empty intset; a zset ziplist of garbage.
	"\x0B\x08\x02\x00\x00\x00\x00\x00\x00\x00\x0a\x00\x00\x00\x00\x00\x00\x00\x00\x00",
	"\x0C\x05\x01\x02\x03\x04\x05\x0a\x00\x00\x00\x00\x00\x00\x00\x00\x00",
	// stream: invalid listpack size header; duplicate consumers.
	"\x0F\x01\x10\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x02\x40\x55\x5F\x00\x00\x00\x0F\x00\x01\x01\x00\x01\x02\x01\x88\x31\x00\x00\x00\x00\x00\x00\x00\x09\x88\x32\x00\x00\x00\x00\x00\x00\x00\x09\x00\x01\x00\x01\x00\x01\x00\x01\x02\x02\x88\x31\x00\x00\x00\x00\x00\x00\x00\x09\x88\x61\x00\x00\x00\x00\x00\x00\x00\x09\x88\x32\x00\x00\x00\x00\x00\x00\x00\x09\x88\x62\x00\x00\x00\x00\x00\x00\x00\x09\x08\x01\xFF\x0A\x01\x00\x00\x09\x00\x45\x91\x0A\x87\x2F\xA5\xF9\x2E",
	"\x0F\x00\x00\x00\x00\x01\x07\x6D\x79\x67\x72\x6F\x75\x70\x00\x00\x00\x02\x04\x6E\x61\x6D\x65\x2A\x4C\xAA\x9A\x7D\x01\x00\x00\x00\x04\x6E\x61\x6D\x65\x2B\x4C\xAA\x9A\x7D\x01\x00\x00\x00\x0A\x00\xCC\xED\x8C\xA7\x62\xEE\xC7\xC8",
	// stream: a length without nodes; duplicate group names.
	"\x0F\x00\x05\x00\x00\x00\x0A\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00",
	"\x0F\x00\x00\x00\x00\x02\x01g\x00\x00\x00\x00\x01g\x00\x00\x00\x00\x0A\x00\x00\x00\x00\x00\x00\x00\x00\x00",
	// bad LZF string; unknown length encoding.
	"\x00\xC3\x01\x05\x00\x0a\x00\x00\x00\x00\x00\x00\x00\x00\x00",
	"\x00\x85\x0a\x00\x00\x00\x00\x00\x00\x00\x00\x00",
}

// TestRestoreCorruptReports restores corrupt payloads (checksums skipped
// with DEBUG SET-SKIP-CHECKSUM-VALIDATION 1) on redis-server with
// sanitize-dump-payload yes and on HotKV: same replies, and the same
// "Internal error in RDB reading offset ..." lines in the verbose log.
func TestRestoreCorruptReports(t *testing.T) {
	rlog := filepath.Join(t.TempDir(), "redis.log")
	raddr := difftest.StartRedis(t, "--enable-debug-command", "yes", "--loglevel", "verbose",
		"--logfile", rlog, "--sanitize-dump-payload", "yes")
	_, haddr, hlog, err := startLoggedServer(t, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := difftest.NewPair(t, raddr, haddr)
	p.DoArgs("DEBUG", "SET-SKIP-CHECKSUM-VALIDATION", "1")
	for _, payload := range corruptPayloads {
		p.DoArgs("RESTORE", "k", "0", payload, "REPLACE")
	}
	time.Sleep(50 * time.Millisecond) // for Redis's log
	rb, err := os.ReadFile(rlog)
	if err != nil {
		t.Fatal(err)
	}
	want := logLines(string(rb), "Internal error")
	got := logLines(hlog.String(), "Internal error")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("log lines differ\nredis:\n%s\nhotkv:\n%s", strings.Join(want, "\n"), strings.Join(got, "\n"))
	}
	if len(want) < len(corruptPayloads) {
		t.Errorf("redis logged %d reports for %d payloads", len(want), len(corruptPayloads))
	}
}

// TestSkipChecksumValidation: DEBUG SET-SKIP-CHECKSUM-VALIDATION 1 makes
// RESTORE and FUNCTION RESTORE skip the CRC64 (not the version) of their
// payloads, 0 checks it again, as in Redis.
func TestSkipChecksumValidation(t *testing.T) {
	raddr := difftest.StartRedis(t, "--enable-debug-command", "yes")
	_, haddr := startServer(t, "--enable-debug-command", "yes")
	p := difftest.NewPair(t, raddr, haddr)
	p.Do("SET src hello")
	p.Do("FUNCTION LOAD \"#!lua name=lib\nredis.register_function('f', function() return 1 end)\"")
	c := difftest.Dial(t, haddr)
	dump := []byte(c.Do("DUMP", "src"))
	dump = dump[bytes.IndexByte(dump, '\n')+1 : len(dump)-2]
	fdump := []byte(c.Do("FUNCTION", "DUMP"))
	fdump = fdump[bytes.IndexByte(fdump, '\n')+1 : len(fdump)-2]
	p.Do("FUNCTION FLUSH")
	badCRC := func(b []byte) string {
		b = bytes.Clone(b)
		b[len(b)-1] ^= 0xff
		return string(b)
	}
	badVersion := func(b []byte) string {
		b = bytes.Clone(b)
		binary.LittleEndian.PutUint16(b[len(b)-10:], rdb.Version+1)
		return string(b)
	}
	for _, on := range []string{"0", "1", "yes", "2", "0"} {
		p.DoArgs("DEBUG", "SET-SKIP-CHECKSUM-VALIDATION", on)
		p.DoArgs("RESTORE", "k", "0", badCRC(dump), "REPLACE")
		p.DoArgs("RESTORE", "k", "0", badVersion(dump), "REPLACE")
		p.Do("GET k")
		p.DoArgs("FUNCTION", "RESTORE", badCRC(fdump), "REPLACE")
		p.DoArgs("FUNCTION", "RESTORE", badVersion(fdump), "REPLACE")
		p.Do("FCALL f 0")
		p.Do("DEL k")
		p.Do("FUNCTION FLUSH")
	}
	p.Do("DEBUG SET-SKIP-CHECKSUM-VALIDATION")
}

// rdbFile returns an RDB file (version 10) holding records, with its
// checksum.
func rdbFile(records ...string) []byte {
	b := append([]byte("REDIS0010"), strings.Join(records, "")...)
	b = append(b, rdb.OpcodeEOF)
	return binary.LittleEndian.AppendUint64(b, rdb.CRC64(0, b))
}

// runRedisOn starts redis-server on a dump.rdb in dir and returns its
// standard output (log and redis-check-rdb's report) once it exits or,
// if it starts, once it is stopped.
func runRedisOn(t *testing.T, dir string) string {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("SKIPPING differential test: no redis-server")
	}
	port := difftest.FreePort(t)
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	out, _ := exec.CommandContext(ctx, bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--dir", dir, "--save", "", "--appendonly", "no").CombinedOutput()
	return string(out)
}

// TestLoadCorruptFile: a file with empty collections loads without them,
// each logged; one with a corrupt value or a wrong checksum stops the
// server with Redis's lines.
func TestLoadCorruptFile(t *testing.T) {
	emptySet := "\x02\x03set\x00"
	emptyHash := "\x04\x04hash\x00"
	good := "\x00\x01k\x01v"
	badZiplist := "\x0D\x01h\x1B\x1B\x00\x00\x00\x16\x00\x00\x00\x04\x00\x00\x02\x61\x00\x04\x02\x62\x00\x04\x14\x63\x00\x04\x02\x64\x00\xFF"
	badCRC := rdbFile(good)
	badCRC[len(badCRC)-1] ^= 1
	cases := []struct {
		name string
		file []byte
		subs []string
	}{
		{"empty keys", rdbFile(emptySet, good, emptyHash), []string{"skipping empty key", "Done loading RDB"}},
		{"corrupt value", rdbFile(good, badZiplist), []string{"Internal error", "Terminating server"}},
		{"checksum", badCRC, []string{"Wrong RDB checksum", "Internal error", "Terminating server"}},
		{"truncated", rdbFile(good, badZiplist)[:30], []string{"Short read", "Internal error", "Terminating server"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "dump.rdb"), tc.file, 0o644); err != nil {
				t.Fatal(err)
			}
			want := logLines(runRedisOn(t, dir), tc.subs...)
			_, _, log, _ := startLoggedServer(t, dir)
			got := logLines(log.String(), tc.subs...)
			if strings.Join(got, "\n") != strings.Join(want, "\n") || len(want) == 0 {
				t.Errorf("log lines differ\nredis:\n%s\nhotkv:\n%s", strings.Join(want, "\n"), strings.Join(got, "\n"))
			}
		})
	}
}
