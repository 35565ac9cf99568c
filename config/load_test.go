package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "redis.conf", `# a comment
   # an indented comment

PORT 7000
  maxmemory   100mb  
daemonize yes
databases 32
SLAVE-READ-ONLY no
hash-max-ziplist-entries 100
requirepass "p a\"ss\x41"
masteruser 'it\'s'
notify-keyspace-events Ex
bind 10.0.0.1 "::1"
client-output-buffer-limit replica 1gb 2mb 3
client-output-buffer-limit pubsub 0 0 0 normal 1 1 1
latency-tracking-info-percentiles 1.5 2.123456789 0
replicaof 127.0.0.1 7999
unixsocketperm 0700
hz 1000
maxmemory-clients 5%
shutdown-on-sigint nosave now
list-max-ziplist-entries 5
lua-replicate-commands yes
rename-command FLUSHALL ""
user alice on >pw ~* +@all
loadmodule /x/y.so a b
mymod.param 5
sentinel
save 100 1
save 200 2
`)
	c, err := Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"port": "7000", "maxmemory": "104857600", "daemonize": "yes", "databases": "32",
		"replica-read-only": "no", "hash-max-listpack-entries": "100", "requirepass": `p a"ssA`,
		"masteruser": "it's", "notify-keyspace-events": "xE", "bind": "10.0.0.1 ::1",
		"client-output-buffer-limit":        "normal 1 1 1 slave 1073741824 2097152 3 pubsub 0 0 0",
		"latency-tracking-info-percentiles": "1.5 2.123457 0",
		"replicaof":                         "127.0.0.1 7999", "slaveof": "127.0.0.1 7999",
		"unixsocketperm": "700", "hz": "500", "maxmemory-clients": "5%",
		"shutdown-on-sigint": "nosave now", "save": "100 1 200 2",
	}
	for name, v := range want {
		if got := get1(t, c, name); got != v {
			t.Errorf("%s = %q, want %q", name, got, v)
		}
	}
	if host, port, ok := c.Lookup("replicaof").ReplicaOf(); !ok || host != "127.0.0.1" || port != 7999 {
		t.Errorf("ReplicaOf = %v %v %v", host, port, ok)
	}
	abs, _ := filepath.Abs(path)
	if c.File() != abs {
		t.Errorf("File = %q", c.File())
	}
	wantDir := [][]string{
		{"rename-command", "FLUSHALL", ""},
		{"user", "alice", "on", ">pw", "~*", "+@all"},
		{"loadmodule", "/x/y.so", "a", "b"},
		{"mymod.param", "5"},
	}
	if got := c.Directives(); !reflect.DeepEqual(got, wantDir) {
		t.Errorf("Directives = %q", got)
	}
}

func TestLoadSaveAccumulation(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		file string
		args []string
		want string
	}{
		{"", nil, "3600 1 300 100 60 10000"},
		{"save 100 1\nsave \"\"\n", nil, ""},
		{"save \"\"\nsave 100 1\n", nil, "100 1"},
		{"save 100 1\nsave 200 2\n", nil, "100 1 200 2"},
		{"save 100 1 200 2\n", nil, "100 1 200 2"},
		{"save 100 1\n", []string{"--save", "5", "5"}, "100 1 5 5"},
		{"", []string{"--save", "--loglevel", "debug"}, ""},
		{"", []string{"--save"}, ""},
		{"", []string{"--save", ""}, ""},
		{"", []string{"--save 10 1"}, "10 1"},
	}
	for _, tc := range cases {
		path := writeFile(t, dir, "s.conf", tc.file)
		c, err := Load(path, tc.args)
		if err != nil {
			t.Errorf("%q %q: %v", tc.file, tc.args, err)
			continue
		}
		if got := get1(t, c, "save"); got != tc.want {
			t.Errorf("%q %q: save = %q, want %q", tc.file, tc.args, got, tc.want)
		}
	}
}

func TestLoadArgs(t *testing.T) {
	c, err := Load("", []string{"--port", "6380", "--masterauth", "--secret", "--bind", "1.1.1.1", "2.2.2.2",
		"--loglevel debug", "--requirepass", "a b\"c"})
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]string{
		"port": "6380", "masterauth": "--secret", "bind": "1.1.1.1 2.2.2.2",
		"loglevel": "debug", "requirepass": `a b"c`,
	} {
		if got := get1(t, c, name); got != v {
			t.Errorf("%s = %q, want %q", name, got, v)
		}
	}
	if c.File() != "" {
		t.Error("File set without a file")
	}
	if got := argsToOptions([]string{"--port", "6380", "--save", "--x", "y z"}); got != "port \"6380\" \nsave \"\"\nx \"y z\" " {
		t.Errorf("argsToOptions = %q", got)
	}
	// --bind alone: an empty bind list (Redis then refuses to start).
	if c, err := Load("", []string{"--bind"}); err != nil || get1(t, c, "bind") != "" {
		t.Errorf("--bind: %v", err)
	}
}

func TestLoadInclude(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "conf.d")
	os.Mkdir(sub, 0o755)
	writeFile(t, sub, "a.conf", "maxmemory 1mb\n")
	writeFile(t, sub, "b.conf", "hz 20\nsave 1 1\n")
	writeFile(t, dir, "inc.conf", "loglevel warning\nsave 2 2\n")
	main := writeFile(t, dir, "main.conf", "save 3 3\ninclude "+filepath.Join(dir, "inc.conf")+
		"\ninclude "+filepath.Join(sub, "*.conf")+"\ninclude "+filepath.Join(dir, "empty.d", "*.conf")+"\nport 1234\n")
	c, err := Load(main, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]string{"loglevel": "warning", "maxmemory": "1048576", "hz": "20",
		"port": "1234", "save": "3 3 2 2 1 1"} {
		if got := get1(t, c, name); got != v {
			t.Errorf("%s = %q, want %q", name, got, v)
		}
	}

	// Relative includes follow "dir", like Redis's chdir.
	rel := writeFile(t, dir, "rel.conf", "dir "+sub+"\ninclude a.conf\n")
	if c, err := Load(rel, nil); err != nil || get1(t, c, "maxmemory") != "1048576" {
		t.Errorf("relative include: %v", err)
	}

	// Errors inside included files name the line of the included file.
	writeFile(t, dir, "bad.conf", "# c\nport x\n")
	badMain := writeFile(t, dir, "badmain.conf", "hz 5\ninclude "+filepath.Join(dir, "bad.conf")+"\n")
	_, err = Load(badMain, nil)
	var fe *FileError
	if !errors.As(err, &fe) || fe.Line != 2 || fe.Text != "port x" || fe.File != filepath.Join(dir, "bad.conf") {
		t.Errorf("include error: %#v", err)
	}

	missing := filepath.Join(dir, "missing.conf")
	inc := writeFile(t, dir, "incmissing.conf", "include "+missing+"\n")
	_, err = Load(inc, nil)
	if err == nil || err.Error() != "Fatal error, can't open config file '"+missing+"': No such file or directory" {
		t.Errorf("missing include: %v", err)
	}
	_, err = Load(missing, nil)
	if err == nil || err.Error() != "Fatal error, can't open config file '"+missing+"': No such file or directory" {
		t.Errorf("missing file: %v", err)
	}

	loop := writeFile(t, dir, "loop.conf", "include "+filepath.Join(dir, "loop.conf")+"\n")
	if _, err := Load(loop, nil); err == nil {
		t.Error("include loop not detected")
	}
}

// loadErrorCases were checked against redis-server 7.0.15 (TestOracleFileErrors
// replays them when it is installed).
var loadErrorCases = []struct {
	file   string
	args   []string
	line   int
	text   string
	reason string
}{
	{"# c\n\nport abc\n", nil, 3, "port abc", "argument couldn't be parsed into an integer"},
	{"port 1 2\n", nil, 1, "port 1 2", "wrong number of arguments"},
	{"daemonize\n", nil, 1, "daemonize", "wrong number of arguments"},
	{"foo bar\n", nil, 1, "foo bar", "Bad directive or wrong number of arguments"},
	{"port \"6380\n", nil, 1, `port "6380`, "Unbalanced quotes in configuration line"},
	{"port \"63\"80\n", nil, 1, `port "63"80`, "Unbalanced quotes in configuration line"},
	{"  PORT 6380  \nloglevel x\n", nil, 2, "loglevel x", "argument(s) must be one of the following: debug, verbose, notice, warning"},
	{"hz 1\nmaxmemory 1.5\n", nil, 2, "maxmemory 1.5", "argument must be a memory value"},
	{"replicaof 1.2.3.4\n", nil, 1, "replicaof 1.2.3.4", "wrong number of arguments"},
	{"replicaof 1.2.3.4 x\n", nil, 1, "replicaof 1.2.3.4 x", "Invalid master port"},
	{"dir /nonexistent-hotkv\n", nil, 1, "dir /nonexistent-hotkv", "No such file or directory"},
	{"list-max-ziplist-entries 5\nlist-max-ziplist-entries 5 6\n", nil, 2, "list-max-ziplist-entries 5 6", "Bad directive or wrong number of arguments"},
	{"sentinel foo\n", nil, 1, "sentinel foo", "sentinel directive while not in sentinel mode"},
	{"a.b\n", nil, 1, "a.b", "Module config specified without value"},
	{"user\n", nil, 1, "user", "Bad directive or wrong number of arguments"},
	{"save 1\n", nil, 1, "save 1", "Invalid save parameters"},
	{"latency-tracking-info-percentiles 101\n", nil, 1, "latency-tracking-info-percentiles 101", "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]"},
	{"shutdown-on-sigint save nosave\n", nil, 1, "shutdown-on-sigint save nosave", "shutdown options SAVE and NOSAVE can't be used simultaneously"},
	{"unixsocketperm 999\n", nil, 1, "unixsocketperm 999", "argument couldn't be parsed as an octal number"},
	{"dbfilename a/b\n", nil, 1, "dbfilename a/b", "dbfilename can't be a path, just a filename"},
	{"appendfilename \"\"\n", nil, 1, `appendfilename ""`, "appendfilename can't be empty"},
	{"appenddirname a/b\n", nil, 1, "appenddirname a/b", "appenddirname can't be a path, just a dirname"},
	{"io-threads 0\n", nil, 1, "io-threads 0", "argument must be between 1 and 128 inclusive"},
	{"activedefrag yes\n", nil, 1, "activedefrag yes", "Active defragmentation cannot be enabled: it requires a Redis server compiled with a modified Jemalloc like the one shipped by default with the Redis source distribution"},
	// Command-line options come after the file; with no file, line 2.
	{"port 7000\n", []string{"--foo", "bar"}, 3, `foo "bar"`, "Bad directive or wrong number of arguments"},
	{"port 7000", []string{"--foo", "bar"}, 2, `foo "bar"`, "Bad directive or wrong number of arguments"},
	{"", []string{"--foo", "bar"}, 2, `foo "bar"`, "Bad directive or wrong number of arguments"},
	{"", []string{"--port"}, 2, "port", "wrong number of arguments"},
	{"", []string{"--socket-mark-id", "-1"}, 2, `socket-mark-id "-1"`, "argument must be between 0 and 4294967295 inclusive"},
	{"", []string{"--port", "1", "--hz", "x"}, 3, `hz "x"`, "argument couldn't be parsed into an integer"},
	{"", []string{"6380"}, 2, `"6380"`, "Bad directive or wrong number of arguments"},
	// Checks after loading have no line.
	{"cluster-enabled yes\nreplicaof 1.2.3.4 5\n", nil, 0, "", "replicaof directive not allowed in cluster mode"},
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range loadErrorCases {
		path := writeFile(t, dir, "e.conf", tc.file)
		_, err := Load(path, tc.args)
		var fe *FileError
		if !errors.As(err, &fe) {
			t.Errorf("%q %q: error %v, want a *FileError", tc.file, tc.args, err)
			continue
		}
		wantFile := path
		if tc.args != nil || tc.line == 0 {
			wantFile = ""
		}
		if fe.File != wantFile {
			t.Errorf("%q %q: File = %q, want %q", tc.file, tc.args, fe.File, wantFile)
		}
		if fe.Line != tc.line || fe.Text != tc.text || fe.Reason != tc.reason {
			t.Errorf("%q %q: got line %d %q %q\n want line %d %q %q", tc.file, tc.args, fe.Line, fe.Text, fe.Reason, tc.line, tc.text, tc.reason)
		}
	}
	_, err := Load(writeFile(t, dir, "x.conf", "# c\nfoo bar\n"), nil)
	want := "*** FATAL CONFIG FILE ERROR (HotKV) ***\nReading the configuration file, at line 2\n>>> 'foo bar'\nBad directive or wrong number of arguments"
	if err == nil || err.Error() != want {
		t.Errorf("error text:\n%v\nwant:\n%s", err, want)
	}
	_, err = Load(writeFile(t, dir, "y.conf", "cluster-enabled yes\nreplicaof 1.2.3.4 5\n"), nil)
	if err == nil || err.Error() != "*** FATAL CONFIG FILE ERROR (HotKV) ***\nreplicaof directive not allowed in cluster mode" {
		t.Errorf("error text: %v", err)
	}
}

func TestLoadOddValues(t *testing.T) {
	c, err := Load("", []string{"--unixsocketperm", "", "--maxmemory", "", "--save", "10", "1"})
	if err != nil {
		t.Fatal(err)
	}
	if c, err := Load("", []string{"--repl-backlog-size", "100"}); err != nil || get1(t, c, "repl-backlog-size") != "100" {
		t.Error("repl-backlog-size is only raised to 16kb by CONFIG SET, like in Redis")
	}
	if get1(t, c, "unixsocketperm") != "0" || get1(t, c, "maxmemory") != "0" {
		t.Error("empty numbers should parse as 0 like in Redis")
	}
	if !strings.HasPrefix(get1(t, c, "save"), "10 1") {
		t.Error("save")
	}
}

// TestLoadMultiArgSplit: one argument of a multi-argument parameter is
// split at its spaces, as Redis does (redis-server --save "10 1 20 2").
func TestLoadMultiArgSplit(t *testing.T) {
	c, err := Load("", []string{"--shutdown-on-sigint", "now force", "--save", "10 1 20 2"})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Lookup("shutdown-on-sigint").String(); got != "now force" {
		t.Errorf("shutdown-on-sigint %q", got)
	}
	if got := c.Lookup("save").String(); got != "10 1 20 2" {
		t.Errorf("save %q", got)
	}
	if _, err := Load("", []string{"--save", ""}); err != nil {
		t.Errorf(`save "": %v`, err)
	}
}
