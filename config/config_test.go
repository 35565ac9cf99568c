package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
)

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func get1(t *testing.T, c *Config, name string) string {
	t.Helper()
	p := c.Lookup(name)
	if p == nil {
		t.Fatalf("no parameter %q", name)
	}
	return p.String()
}

func TestDefaults(t *testing.T) {
	c := Default()
	for name, want := range map[string]string{
		"port": "6379", "databases": "16", "bind": "* -::*", "save": "3600 1 300 100 60 10000",
		"maxmemory": "0", "maxmemory-policy": "noeviction", "appendonly": "no", "hz": "10",
		"client-output-buffer-limit": "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60",
		"notify-keyspace-events":     "", "unixsocketperm": "0", "proto-max-bulk-len": "536870912",
		"latency-tracking-info-percentiles": "50 99 99.9", "oom-score-adj-values": "0 200 800",
		"shutdown-on-sigint": "default", "replicaof": "", "slaveof": "",
	} {
		if got := get1(t, c, name); got != want {
			t.Errorf("default %s = %q, want %q", name, got, want)
		}
	}
	wd, _ := os.Getwd()
	wd, _ = filepath.EvalSymlinks(wd)
	if got := get1(t, c, "dir"); got != wd {
		t.Errorf("dir = %q, want %q", got, wd)
	}
	if c.Lookup("port").Int() != 6379 || !c.Lookup("protected-mode").Bool() || c.Lookup("appendonly").Bool() {
		t.Error("typed getters broken")
	}
	if c.Lookup("proto-max-bulk-len").Int() != 512<<20 {
		t.Error("memory getter broken")
	}
	if got := c.Lookup("save").SaveParams(); !reflect.DeepEqual(got, []SaveParam{{3600, 1}, {300, 100}, {60, 10000}}) {
		t.Errorf("SaveParams = %v", got)
	}
	if got := c.Lookup("client-output-buffer-limit").ClientOutputBufferLimits(); got[ClientReplica] != (ClientBufferLimit{256 << 20, 64 << 20, 60}) {
		t.Errorf("cob = %v", got)
	}
	if got := c.Lookup("bind").Strings(); !reflect.DeepEqual(got, []string{"*", "-::*"}) {
		t.Errorf("bind = %v", got)
	}
	if _, _, ok := c.Lookup("replicaof").ReplicaOf(); ok {
		t.Error("replicaof set by default")
	}
	if c.File() != "" {
		t.Error("Default has a file")
	}
}

func TestLookup(t *testing.T) {
	c := Default()
	if c.Lookup("PORT") != c.Lookup("port") || c.Lookup("port") == nil {
		t.Error("Lookup is not case-insensitive")
	}
	if c.Lookup("slaveof") != c.Lookup("replicaof") || c.Lookup("SLAVE-READ-ONLY") != c.Lookup("replica-read-only") {
		t.Error("aliases broken")
	}
	if c.Lookup("hash-max-ziplist-entries").Name() != "hash-max-listpack-entries" {
		t.Error("alias name broken")
	}
	if c.Lookup("nope") != nil {
		t.Error("unknown parameter found")
	}
	if p := c.Lookup("key-load-delay"); p == nil || !p.Hidden() {
		t.Error("hidden parameter not found")
	}
	if !reflect.DeepEqual(c.Lookup("replicaof").Aliases(), []string{"slaveof"}) || c.Lookup("port").Aliases() != nil {
		t.Error("Aliases broken")
	}
}

// immutableParams is the list Redis 7.0.15 answers "can't set immutable
// config" for (checked against redis-server by the oracle test), with
// HotKV's own tiering and tiering-dir.
var immutableParams = []string{
	"aclfile", "always-show-logo", "aof_rewrite_cpulist", "appenddirname", "appendfilename",
	"bgsave_cpulist", "bio_cpulist", "cluster-config-file", "cluster-enabled", "cluster-port",
	"daemonize", "databases", "disable-thp", "enable-debug-command", "enable-module-command",
	"enable-protected-configs", "io-threads", "io-threads-do-reads", "logfile",
	"lua-enable-deprecated-api", "pidfile", "rdbchecksum", "replicaof", "server_cpulist",
	"set-proc-title", "socket-mark-id", "supervised", "syslog-enabled", "syslog-facility",
	"syslog-ident", "tcp-backlog", "unixsocket", "unixsocketperm",
}

func TestImmutable(t *testing.T) {
	c := Default()
	var got []string
	for _, p := range c.Params() {
		if p.Immutable() {
			got = append(got, p.Name())
		}
	}
	sort.Strings(got)
	if !reflect.DeepEqual(got, immutableParams) {
		t.Errorf("immutable params = %v", got)
	}
	for _, name := range immutableParams {
		err := c.Set([][2]string{{name, c.Lookup(name).String()}})
		want := fmt.Sprintf("ERR CONFIG SET failed (possibly related to argument '%s') - can't set immutable config", name)
		if err == nil || err.Error() != want {
			t.Errorf("Set %s: %v", name, err)
		}
	}
}

func TestGet(t *testing.T) {
	c := Default()
	names := func(kv [][2]string) []string {
		var out []string
		for _, p := range kv {
			out = append(out, p[0])
		}
		sort.Strings(out)
		return out
	}
	cases := []struct {
		patterns []string
		want     []string
	}{
		{[]string{"port"}, []string{"port"}},
		{[]string{"PORT"}, []string{"PORT"}}, // exact lookups echo the name as typed
		{[]string{"port", "PORT"}, []string{"port"}},
		{[]string{"POR*", "port"}, []string{"port"}},
		{[]string{"nope"}, nil},
		{[]string{"key-load-delay"}, []string{"key-load-delay"}}, // hidden: exact only
		{[]string{"key-load-*"}, nil},
		{[]string{"*delay*"}, []string{"repl-disable-tcp-nodelay", "repl-diskless-sync-delay"}},
		{[]string{"slaveof"}, []string{"slaveof"}},
		{[]string{"slaveof", "replicaof"}, []string{"replicaof", "slaveof"}},
		{[]string{"SLAVEOF*"}, []string{"slaveof"}},
		{[]string{"*max-*-entries"}, []string{"hash-max-listpack-entries", "hash-max-ziplist-entries",
			"set-max-intset-entries", "zset-max-listpack-entries", "zset-max-ziplist-entries"}},
		{[]string{"maxmemory-p?licy", "maxmemory-[p]olicy"}, []string{"maxmemory-policy"}},
		{[]string{"bind", "bind*"}, []string{"bind", "bind-source-addr"}},
	}
	for _, tc := range cases {
		if got := names(c.Get(tc.patterns)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Get(%q) = %q, want %q", tc.patterns, got, tc.want)
		}
	}
	all := c.Get([]string{"*"})
	if len(all) != 192+len(hotkvParams) { // redis-server 7.0.15 with TLS: 192 names incl. aliases
		t.Errorf("Get(*) returned %d names, want 192 and HotKV's %d", len(all), len(hotkvParams))
	}
	kv := c.Get([]string{"maxmemory"})
	if len(kv) != 1 || kv[0] != [2]string{"maxmemory", "0"} {
		t.Errorf("Get(maxmemory) = %q", kv)
	}
}

// setErrorCases were checked against redis-server 7.0.15 (see also
// TestOracleSetErrors, which replays them when redis-server is installed).
var setErrorCases = []struct {
	pairs [][2]string
	want  string
}{
	{[][2]string{{"foo", "bar"}}, "ERR Unknown option or number of arguments for CONFIG SET - 'foo'"},
	{[][2]string{{"port", "abc"}}, "ERR CONFIG SET failed (possibly related to argument 'port') - argument couldn't be parsed into an integer"},
	{[][2]string{{"port", "70000"}}, "ERR CONFIG SET failed (possibly related to argument 'port') - argument must be between 0 and 65535 inclusive"},
	{[][2]string{{"port", "-1"}}, "ERR CONFIG SET failed (possibly related to argument 'port') - argument must be between 0 and 65535 inclusive"},
	{[][2]string{{"port", "01"}}, "ERR CONFIG SET failed (possibly related to argument 'port') - argument couldn't be parsed into an integer"},
	{[][2]string{{"port", "+5"}}, "ERR CONFIG SET failed (possibly related to argument 'port') - argument couldn't be parsed into an integer"},
	{[][2]string{{"PORT", "x"}}, "ERR CONFIG SET failed (possibly related to argument 'port') - argument couldn't be parsed into an integer"},
	{[][2]string{{"daemonize", "yes"}}, "ERR CONFIG SET failed (possibly related to argument 'daemonize') - can't set immutable config"},
	{[][2]string{{"DATABASES", "5"}}, "ERR CONFIG SET failed (possibly related to argument 'DATABASES') - can't set immutable config"},
	{[][2]string{{"slaveof", "no one"}}, "ERR CONFIG SET failed (possibly related to argument 'slaveof') - can't set immutable config"},
	{[][2]string{{"maxmemory", "abc"}}, "ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument must be a memory value"},
	{[][2]string{{"maxmemory", "-1"}}, "ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument must be a memory value"},
	{[][2]string{{"maxmemory", "1.5gb"}}, "ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument must be a memory value"},
	{[][2]string{{"maxmemory", " 5"}}, "ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument must be a memory value"},
	{[][2]string{{"maxmemory-clients", "-5"}}, "ERR CONFIG SET failed (possibly related to argument 'maxmemory-clients') - argument must be a memory or percent value"},
	{[][2]string{{"maxmemory-clients", "101%"}}, "ERR CONFIG SET failed (possibly related to argument 'maxmemory-clients') - percentage argument must be less or equal to 100"},
	{[][2]string{{"maxmemory-clients", "01%"}}, "ERR CONFIG SET failed (possibly related to argument 'maxmemory-clients') - argument must be a memory or percent value"},
	{[][2]string{{"maxclients", "-1"}}, "ERR CONFIG SET failed (possibly related to argument 'maxclients') - argument must be between 1 and 4294967295 inclusive"},
	{[][2]string{{"maxclients", "0"}}, "ERR CONFIG SET failed (possibly related to argument 'maxclients') - argument must be between 1 and 4294967295 inclusive"},
	{[][2]string{{"slowlog-max-len", "-1"}}, "ERR CONFIG SET failed (possibly related to argument 'slowlog-max-len') - argument must be between 0 and 9223372036854775807 inclusive"},
	{[][2]string{{"hash-max-listpack-entries", "-1"}}, "ERR CONFIG SET failed (possibly related to argument 'hash-max-listpack-entries') - argument must be between 0 and 9223372036854775807 inclusive"},
	{[][2]string{{"hash-max-ziplist-entries", "-1"}}, "ERR CONFIG SET failed (possibly related to argument 'hash-max-ziplist-entries') - argument must be between 0 and 9223372036854775807 inclusive"},
	{[][2]string{{"hash-max-listpack-value", "-1"}}, "ERR CONFIG SET failed (possibly related to argument 'hash-max-listpack-value') - argument must be a memory value"},
	{[][2]string{{"set-max-intset-entries", "99999999999999999999"}}, "ERR CONFIG SET failed (possibly related to argument 'set-max-intset-entries') - argument couldn't be parsed into an integer"},
	{[][2]string{{"tcp-keepalive", "2147483648"}}, "ERR CONFIG SET failed (possibly related to argument 'tcp-keepalive') - argument must be between 0 and 2147483647 inclusive"},
	{[][2]string{{"list-max-listpack-size", "-2147483649"}}, "ERR CONFIG SET failed (possibly related to argument 'list-max-listpack-size') - argument must be between -2147483648 and 2147483647 inclusive"},
	{[][2]string{{"loading-process-events-interval-bytes", "5"}}, "ERR CONFIG SET failed (possibly related to argument 'loading-process-events-interval-bytes') - argument must be between 1024 and 2147483647 inclusive"},
	{[][2]string{{"loading-process-events-interval-bytes", "1kb"}}, "ERR CONFIG SET failed (possibly related to argument 'loading-process-events-interval-bytes') - argument couldn't be parsed into an integer"},
	{[][2]string{{"hz", "-1"}}, "ERR CONFIG SET failed (possibly related to argument 'hz') - argument must be between 0 and 2147483647 inclusive"},
	{[][2]string{{"appendfsync", "maybe"}}, "ERR CONFIG SET failed (possibly related to argument 'appendfsync') - argument(s) must be one of the following: everysec, always, no"},
	{[][2]string{{"loglevel", "debug notice"}}, "ERR CONFIG SET failed (possibly related to argument 'loglevel') - argument(s) must be one of the following: debug, verbose, notice, warning"},
	{[][2]string{{"loglevel", ""}}, "ERR CONFIG SET failed (possibly related to argument 'loglevel') - argument(s) must be one of the following: debug, verbose, notice, warning"},
	{[][2]string{{"maxmemory-policy", "x"}}, "ERR CONFIG SET failed (possibly related to argument 'maxmemory-policy') - argument(s) must be one of the following: volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction"},
	{[][2]string{{"oom-score-adj", "x"}}, "ERR CONFIG SET failed (possibly related to argument 'oom-score-adj') - argument(s) must be one of the following: no, yes, relative, absolute"},
	{[][2]string{{"propagation-error-behavior", "x"}}, "ERR CONFIG SET failed (possibly related to argument 'propagation-error-behavior') - argument(s) must be one of the following: ignore, panic, panic-on-replicas"},
	{[][2]string{{"shutdown-on-sigint", "save nosave"}}, "ERR CONFIG SET failed (possibly related to argument 'shutdown-on-sigint') - shutdown options SAVE and NOSAVE can't be used simultaneously"},
	{[][2]string{{"shutdown-on-sigterm", ""}}, "ERR CONFIG SET failed (possibly related to argument 'shutdown-on-sigterm') - argument(s) must be one of the following: default, save, nosave, now, force"},
	{[][2]string{{"activedefrag", "maybe"}}, "ERR CONFIG SET failed (possibly related to argument 'activedefrag') - argument must be 'yes' or 'no'"},
	{[][2]string{{"activedefrag", "yes"}}, "ERR CONFIG SET failed (possibly related to argument 'activedefrag') - Active defragmentation cannot be enabled: it requires a Redis server compiled with a modified Jemalloc like the one shipped by default with the Redis source distribution"},
	{[][2]string{{"appendonly", "maybe"}}, "ERR CONFIG SET failed (possibly related to argument 'appendonly') - argument must be 'yes' or 'no'"},
	{[][2]string{{"port", "7000"}, {"port", "7001"}}, "ERR CONFIG SET failed (possibly related to argument 'port') - duplicate parameter"},
	{[][2]string{{"port", "7000"}, {"PORT", "7001"}}, "ERR CONFIG SET failed (possibly related to argument 'PORT') - duplicate parameter"},
	{[][2]string{{"maxmemory", "1"}, {"foo", "2"}}, "ERR Unknown option or number of arguments for CONFIG SET - 'foo'"},
	{[][2]string{{"foo", "2"}, {"daemonize", "yes"}}, "ERR Unknown option or number of arguments for CONFIG SET - 'foo'"},
	{[][2]string{{"daemonize", "yes"}, {"foo", "2"}}, "ERR CONFIG SET failed (possibly related to argument 'daemonize') - can't set immutable config"},
	{[][2]string{{"maxmemory", "abc"}, {"daemonize", "yes"}}, "ERR CONFIG SET failed (possibly related to argument 'daemonize') - can't set immutable config"},
	{[][2]string{{"maxmemory", "abc"}, {"foo", "1"}}, "ERR Unknown option or number of arguments for CONFIG SET - 'foo'"},
	{[][2]string{{"maxmemory-policy", "allkeys-lru"}, {"maxmemory", "abc"}}, "ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument must be a memory value"},
	{[][2]string{{"lua-time-limit", "abc"}}, "ERR CONFIG SET failed (possibly related to argument 'lua-time-limit') - argument couldn't be parsed into an integer"},
	{[][2]string{{"dbfilename", "x.rdb"}}, "ERR CONFIG SET failed (possibly related to argument 'dbfilename') - can't set protected config"},
	{[][2]string{{"dir", "/tmp"}}, "ERR CONFIG SET failed (possibly related to argument 'dir') - can't set protected config"},
	{[][2]string{{"save", "1 2 3"}}, "ERR CONFIG SET failed (possibly related to argument 'save') - Invalid save parameters"},
	{[][2]string{{"save", "0 1"}}, "ERR CONFIG SET failed (possibly related to argument 'save') - Invalid save parameters"},
	{[][2]string{{"save", "10 -1"}}, "ERR CONFIG SET failed (possibly related to argument 'save') - Invalid save parameters"},
	{[][2]string{{"save", "abc 1"}}, "ERR CONFIG SET failed (possibly related to argument 'save') - Invalid save parameters"},
	{[][2]string{{"save", "100  10"}}, "ERR CONFIG SET failed (possibly related to argument 'save') - Invalid save parameters"},
	{[][2]string{{"notify-keyspace-events", "xyz"}}, "ERR CONFIG SET failed (possibly related to argument 'notify-keyspace-events') - Invalid event class character. Use 'Ag$lshzxeKEtmdn'."},
	{[][2]string{{"client-output-buffer-limit", "normal 1 2"}}, "ERR CONFIG SET failed (possibly related to argument 'client-output-buffer-limit') - Wrong number of arguments in buffer limit configuration."},
	{[][2]string{{"client-output-buffer-limit", "master 0 0 0"}}, "ERR CONFIG SET failed (possibly related to argument 'client-output-buffer-limit') - Invalid client class specified in buffer limit configuration."},
	{[][2]string{{"client-output-buffer-limit", "normal 1x 0 0"}}, "ERR CONFIG SET failed (possibly related to argument 'client-output-buffer-limit') - Error in hard, soft or soft_seconds setting in buffer limit configuration."},
	{[][2]string{{"client-output-buffer-limit", "normal 1 0 -1"}}, "ERR CONFIG SET failed (possibly related to argument 'client-output-buffer-limit') - Error in hard, soft or soft_seconds setting in buffer limit configuration."},
	{[][2]string{{"oom-score-adj-values", "1 2"}}, "ERR CONFIG SET failed (possibly related to argument 'oom-score-adj-values') - wrong number of arguments"},
	{[][2]string{{"oom-score-adj-values", "1 2 3000"}}, "ERR CONFIG SET failed (possibly related to argument 'oom-score-adj-values') - Invalid oom-score-adj-values, elements must be between -2000 and 2000."},
	{[][2]string{{"oom-score-adj-values", "1 2 x"}}, "ERR CONFIG SET failed (possibly related to argument 'oom-score-adj-values') - Invalid oom-score-adj-values, elements must be between -2000 and 2000."},
	{[][2]string{{"bind", "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17"}}, "ERR CONFIG SET failed (possibly related to argument 'bind') - Too many bind addresses specified."},
	{[][2]string{{"latency-tracking-info-percentiles", "50 101"}}, "ERR CONFIG SET failed (possibly related to argument 'latency-tracking-info-percentiles') - latency-tracking-info-percentiles parameters should sit between [0.0,100.0]"},
	{[][2]string{{"latency-tracking-info-percentiles", "50 abc"}}, "ERR CONFIG SET failed (possibly related to argument 'latency-tracking-info-percentiles') - Invalid latency-tracking-info-percentiles parameters"},
	{[][2]string{{"proc-title-template", "{foo}"}}, "ERR CONFIG SET failed (possibly related to argument 'proc-title-template') - template format is invalid or contains unknown variables"},
	{[][2]string{{"proc-title-template", "{title"}}, "ERR CONFIG SET failed (possibly related to argument 'proc-title-template') - template format is invalid or contains unknown variables"},
	{[][2]string{{"proc-title-template", "{title}"}}, "ERR CONFIG SET failed (possibly related to argument 'proc-title-template') - template format is invalid or contains unknown variables"},
	{[][2]string{{"cluster-announce-hostname", "a_b"}}, "ERR CONFIG SET failed (possibly related to argument 'cluster-announce-hostname') - Hostnames may only contain alphanumeric characters, hyphens or dots"},
	{[][2]string{{"cluster-announce-hostname", strings.Repeat("a", 256)}}, "ERR CONFIG SET failed (possibly related to argument 'cluster-announce-hostname') - Hostnames must be less than 256 characters"},
	{[][2]string{{"replica-ignore-disk-write-errors", "maybe"}}, "ERR CONFIG SET failed (possibly related to argument 'replica-ignore-disk-write-errors') - argument must be 'yes' or 'no'"},
	{[][2]string{{"lua-enable-deprecated-api", "no"}}, "ERR CONFIG SET failed (possibly related to argument 'lua-enable-deprecated-api') - can't set immutable config"},
	{[][2]string{{"", "x"}}, "ERR Unknown option or number of arguments for CONFIG SET - ''"},
}

func TestSetErrors(t *testing.T) {
	for _, tc := range setErrorCases {
		c := Default()
		before := c.Get([]string{"*"})
		err := c.Set(tc.pairs)
		if err == nil || err.Error() != tc.want {
			t.Errorf("Set(%q) = %v\n  want %s", tc.pairs, err, tc.want)
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Set(%q) error is %T, want *Error", tc.pairs, err)
		}
		if after := c.Get([]string{"*"}); !reflect.DeepEqual(before, after) {
			t.Errorf("failed Set(%q) changed the configuration", tc.pairs)
		}
	}
}

// setValueCases: successful CONFIG SET followed by CONFIG GET, checked
// against redis-server 7.0.15.
var setValueCases = []struct {
	name, value, want string
}{
	{"maxmemory", "", "0"},
	{"maxmemory", "kb", "0"},
	{"maxmemory", "1KB", "1024"},
	{"maxmemory", "1gB", "1073741824"},
	{"maxmemory", "1g", "1000000000"},
	{"maxmemory", "007", "7"},
	{"maxmemory", "99999999999999999999", "18446744073709551615"},
	{"maxmemory", "18446744073709551616", "18446744073709551615"},
	{"maxmemory", "20000000000gb", "3028092406290448384"},
	{"maxmemory", "9223372036854775808", "9223372036854775808"},
	{"maxmemory-clients", "10%", "10%"},
	{"maxmemory-clients", "0%", "0"},
	{"maxmemory-clients", "100%", "100%"},
	{"maxmemory-clients", "1kb", "1024"},
	{"hz", "1000", "500"},
	{"repl-backlog-size", "100", "16384"}, // raised when it changes, like Redis
	{"repl-backlog-size", "1mb", "1048576"},
	{"hz", "0", "1"},
	{"loglevel", "DEBUG", "debug"},
	{"oom-score-adj", "relative", "yes"},
	{"acl-pubsub-default", "ALLCHANNELS", "allchannels"},
	{"shutdown-on-sigint", "now save", "save now"},
	{"shutdown-on-sigint", "force now nosave", "nosave now force"},
	{"shutdown-on-sigint", "default now", "now"},
	{"shutdown-on-sigint", "now now", "now"},
	{"shutdown-on-sigterm", "default", "default"},
	{"notify-keyspace-events", "KEA", "AKE"},
	{"notify-keyspace-events", "Kx$", "$xK"},
	{"notify-keyspace-events", "Kgx", "gxK"},
	{"notify-keyspace-events", "An", "A"},
	{"notify-keyspace-events", "g$lshzxetd", "A"},
	{"notify-keyspace-events", "g$lshzxetn", "g$lshzxetn"},
	{"notify-keyspace-events", "KEm", "KEm"},
	{"notify-keyspace-events", "", ""},
	{"save", "", ""},
	{"save", "100 10 200 20", "100 10 200 20"},
	{"save", "100 ", "100 0"},
	{"client-output-buffer-limit", "normal 1mb 2kb 3 replica 1gb 0 0", "normal 1048576 2048 3 slave 1073741824 0 0 pubsub 33554432 8388608 60"},
	{"client-output-buffer-limit", "", "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"},
	{"oom-score-adj-values", "10 20 2000", "10 20 2000"},
	{"oom-score-adj-values", "-10 0 2000", "-10 0 2000"}, // skipped by the oracle: Redis applies it to the process
	{"latency-tracking-info-percentiles", "50.5 99.99999 1e1", "50.5 99.99999 10"},
	{"latency-tracking-info-percentiles", "", ""},
	{"latency-tracking-info-percentiles", "2.123456789", "2.123457"},
	{"latency-tracking-info-percentiles", "0x10 0x1p2 0x1.8", "16 4 1.5"}, // strtod syntax
	{"proc-title-template", "[{config-file}]", "[{config-file}]"},
	{"bind", "", ""},
	{"bind", "1.2.3.4 ::1", "1.2.3.4 ::1"},
	{"lua-time-limit", "10", "10"},
	{"requirepass", "", ""},
	{"proc-title-template", "{{x} {port}", "{{x} {port}"},
	{"slowlog-log-slower-than", "-1", "-1"},
	{"list-max-ziplist-size", "-5", "-5"},
}

func TestSetValues(t *testing.T) {
	for _, tc := range setValueCases {
		c := Default()
		if err := c.Set([][2]string{{tc.name, tc.value}}); err != nil {
			t.Errorf("Set(%s, %q): %v", tc.name, tc.value, err)
			continue
		}
		if got := get1(t, c, tc.name); got != tc.want {
			t.Errorf("Set(%s, %q) then Get = %q, want %q", tc.name, tc.value, got, tc.want)
		}
	}
	c := Default()
	c.Set([][2]string{{"maxmemory-clients", "10%"}})
	if c.Lookup("maxmemory-clients").Int() != -10 {
		t.Error("percent should be stored negative")
	}
	c.Set([][2]string{{"maxmemory", "18446744073709551615"}})
	if c.Lookup("maxmemory").Uint() != 1<<64-1 {
		t.Error("Uint broken")
	}
	c.Set([][2]string{{"notify-keyspace-events", "KEA"}})
	if c.Lookup("notify-keyspace-events").Int() != NotifyAll|NotifyKeyspace|NotifyKeyevent {
		t.Error("notify flags broken")
	}
	c.Set([][2]string{{"shutdown-on-sigint", "now save"}})
	if c.Lookup("shutdown-on-sigint").Int() != ShutdownNow|ShutdownSave {
		t.Error("shutdown flags broken")
	}
}

func TestSetAtomicity(t *testing.T) {
	c := Default()
	before := c.Get([]string{"*"})
	err := c.Set([][2]string{{"maxmemory", "1gb"}, {"hz", "20"}, {"save", "5 5"}, {"port", "nope"}})
	if err == nil {
		t.Fatal("expected an error")
	}
	if after := c.Get([]string{"*"}); !reflect.DeepEqual(before, after) {
		t.Error("failed Set changed something")
	}
	if err := c.Set([][2]string{{"maxmemory", "1gb"}, {"hz", "20"}, {"save", "5 5"}}); err != nil {
		t.Fatal(err)
	}
	if c.Lookup("maxmemory").Int() != 1<<30 || c.Lookup("hz").Int() != 20 || get1(t, c, "save") != "5 5" {
		t.Error("Set did not apply every pair")
	}
	// An alias and its primary name are distinct: the last one wins.
	if err := c.Set([][2]string{{"lua-time-limit", "1"}, {"busy-reply-threshold", "2"}}); err != nil {
		t.Fatal(err)
	}
	if got := get1(t, c, "lua-time-limit"); got != "2" {
		t.Errorf("busy-reply-threshold = %s", got)
	}
	if err := c.Set(nil); err != nil {
		t.Errorf("empty Set: %v", err)
	}
}

func TestSetProtectedAndLoading(t *testing.T) {
	dir := t.TempDir()
	c, err := Load("", []string{"--enable-protected-configs", "local"})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Set([][2]string{{"dir", dir}}); err == nil {
		t.Error("non-local client could set dir")
	}
	if err := c.SetLocal([][2]string{{"dir", dir}}); err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	if got := get1(t, c, "dir"); got != real {
		t.Errorf("dir = %q, want %q", got, real)
	}
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	if err := c.SetLocal([][2]string{{"dir", "sub"}}); err != nil {
		t.Fatal(err)
	}
	if got := get1(t, c, "dir"); got != filepath.Join(real, "sub") {
		t.Errorf("relative dir = %q", got)
	}
	err = c.SetLocal([][2]string{{"dir", "/nonexistent-hotkv"}})
	if err == nil || err.Error() != "ERR CONFIG SET failed (possibly related to argument 'dir') - No such file or directory" {
		t.Errorf("dir error = %v", err)
	}
	f := writeFile(t, dir, "file", "")
	err = c.SetLocal([][2]string{{"dir", f}})
	if err == nil || err.Error() != "ERR CONFIG SET failed (possibly related to argument 'dir') - Not a directory" {
		t.Errorf("dir error = %v", err)
	}
	err = c.SetLocal([][2]string{{"dbfilename", "a/b"}})
	if err == nil || err.Error() != "ERR CONFIG SET failed (possibly related to argument 'dbfilename') - dbfilename can't be a path, just a filename" {
		t.Errorf("dbfilename error = %v", err)
	}

	c.SetLoading(true)
	if err := c.Set([][2]string{{"appendonly", "yes"}}); err != ErrLoading {
		t.Errorf("loading: %v", err)
	}
	if err := c.Set([][2]string{{"foo", "1"}, {"appendonly", "yes"}}); err == nil || !strings.Contains(err.Error(), "Unknown option") {
		t.Errorf("loading + unknown: %v", err)
	}
	if err := c.Set([][2]string{{"maxmemory", "1"}}); err != nil {
		t.Error(err)
	}
	c.SetLoading(false)
	if err := c.Set([][2]string{{"appendonly", "yes"}}); err != nil {
		t.Error(err)
	}
}

func TestOnChange(t *testing.T) {
	c := Default()
	var calls []string
	c.OnChange("maxmemory", func(p *Param) error {
		calls = append(calls, "maxmemory="+p.String())
		return nil
	})
	c.OnChange("replica-priority", func(p *Param) error {
		calls = append(calls, "prio="+p.String())
		// Hooks may read the configuration.
		if c.Lookup("maxmemory").String() == "" || len(c.Get([]string{"port"})) != 1 {
			return errors.New("read failed")
		}
		return nil
	})
	c.OnChange("port", func(p *Param) error {
		calls = append(calls, "port="+p.String())
		if p.Int() == 1 {
			return errors.New("Unable to listen on this port. Check server logs.")
		}
		return nil
	})

	if err := c.Set([][2]string{{"maxmemory", "5"}, {"slave-priority", "7"}}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"maxmemory=5", "prio=7"}; !reflect.DeepEqual(calls, want) {
		t.Errorf("calls = %q, want %q", calls, want)
	}

	// Unchanged values do not run hooks.
	calls = nil
	c.Set([][2]string{{"maxmemory", "5"}})
	if calls != nil {
		t.Errorf("hook ran for an unchanged value: %q", calls)
	}

	// A veto rolls everything back and re-runs the hooks that ran.
	calls = nil
	err := c.Set([][2]string{{"maxmemory", "6"}, {"port", "1"}, {"hz", "50"}, {"replica-priority", "9"}})
	want := "ERR CONFIG SET failed (possibly related to argument 'port') - Unable to listen on this port. Check server logs."
	if err == nil || err.Error() != want {
		t.Fatalf("veto: %v", err)
	}
	if got := []string{get1(t, c, "maxmemory"), get1(t, c, "port"), get1(t, c, "hz"), get1(t, c, "replica-priority")}; !reflect.DeepEqual(got, []string{"5", "6379", "10", "7"}) {
		t.Errorf("not rolled back: %q", got)
	}
	if want := []string{"maxmemory=6", "port=1", "maxmemory=5", "port=6379"}; !reflect.DeepEqual(calls, want) {
		t.Errorf("calls = %q, want %q", calls, want)
	}

	// The error names the parameter as given (alias).
	c.OnChange("slave-read-only", func(p *Param) error { return errors.New("nope") })
	err = c.Set([][2]string{{"SLAVE-READ-ONLY", "no"}})
	if err == nil || err.Error() != "ERR CONFIG SET failed (possibly related to argument 'slave-read-only') - nope" {
		t.Errorf("alias veto: %v", err)
	}

	defer func() {
		if recover() == nil {
			t.Error("OnChange of an unknown parameter did not panic")
		}
	}()
	c.OnChange("nope", func(*Param) error { return nil })
}

func TestConcurrentSetAndRead(t *testing.T) {
	c := Default()
	mm := c.Lookup("maxmemory")
	sv := c.Lookup("save")
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				n := mm.Int()
				if n != 0 && n%1000 != 0 {
					t.Errorf("torn read %d", n)
					return
				}
				if s := sv.String(); s != "3600 1 300 100 60 10000" && !strings.HasPrefix(s, "1 ") {
					t.Errorf("torn save %q", s)
					return
				}
				_ = c.Get([]string{"max*"})
				_ = mm.String()
			}
		}()
	}
	var swg sync.WaitGroup
	for w := 0; w < 2; w++ {
		swg.Add(1)
		go func(w int) {
			defer swg.Done()
			for i := 1; i <= 300; i++ {
				if err := c.Set([][2]string{{"maxmemory", fmt.Sprintf("%dk", i)}, {"save", fmt.Sprintf("1 %d", i)}}); err != nil {
					t.Error(err)
					return
				}
			}
		}(w)
	}
	swg.Wait()
	close(stop)
	wg.Wait()
}
