package server

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// configRandomSkip lists parameters never set by TestConfigSetRandom: they
// move files or sockets, lock the test out, or are not HotKV's to change.
var configRandomSkip = map[string]bool{
	"dir": true, "port": true, "bind": true, "unixsocket": true, "logfile": true,
	"dbfilename": true, "appendonly": true, "appenddirname": true, "appendfilename": true,
	"pidfile": true, "requirepass": true, "masterauth": true, "masteruser": true,
	"replicaof": true, "save": true, "maxclients": true, "tls-port": true, "aclfile": true,
	"client-output-buffer-limit": true, "maxmemory": true, "enable-debug-command": true,
	"tls-cluster": true, "tls-replication": true, "cluster-enabled": true,
}

var configRandomValues = []string{
	"0", "1", "-1", "2", "100", "1000000", "-100", "1k", "1kb", "1mb", "1gb", "5GB", "1.5",
	"yes", "no", "YES", "abc", "", "1 2", "100%", "9223372036854775807", "4294967296",
	"allkeys-lru", "noeviction", "notice", "warning", "always", "everysec", "local",
	"-5", "65536", "511", "off", "on",
}

// TestConfigSetRandom sets every parameter Redis and HotKV share to
// random values: the same values are accepted or refused with the same
// error, and read back the same.
func TestConfigSetRandom(t *testing.T) {
	p, _, _, _ := bhvPair(t)
	raw := p.Redis.Do("CONFIG", "GET", "*")
	lines := strings.Split(raw, "\r\n")
	var params []string
	for i := 2; i+2 < len(lines); i += 4 {
		params = append(params, lines[i])
	}
	r := rand.New(rand.NewPCG(3, 5))
	tested := 0
	for _, name := range params {
		if configRandomSkip[name] || p.HotKV.Do("CONFIG", "GET", name) == "*0\r\n" {
			continue
		}
		tested++
		orig := p.Redis.Do("CONFIG", "GET", name)
		origVal := strings.Split(orig, "\r\n")[4]
		for try := 0; try < 8; try++ {
			v := configRandomValues[r.IntN(len(configRandomValues))]
			want, got := p.Redis.Do("CONFIG", "SET", name, v), p.HotKV.Do("CONFIG", "SET", name, v)
			if want != got {
				t.Errorf("CONFIG SET %s %q\n redis: %q\n hotkv: %q", name, v, want, got)
				continue
			}
			if want == "+OK\r\n" {
				if a, b := p.Redis.Do("CONFIG", "GET", name), p.HotKV.Do("CONFIG", "GET", name); a != b {
					t.Errorf("CONFIG GET %s after SET %q\n redis: %q\n hotkv: %q", name, v, a, b)
				}
			}
		}
		if a, b := p.Redis.Do("CONFIG", "SET", name, origVal), p.HotKV.Do("CONFIG", "SET", name, origVal); a != b {
			t.Errorf("restoring %s %q: redis %q, hotkv %q", name, origVal, a, b)
		}
	}
	t.Logf("%d parameters, %d set", len(params), tested)
}
