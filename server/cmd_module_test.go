package server

import (
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/difftest"
)

// TestModuleMatchesRedis: MODULE answers as a redis-server that loaded no
// module, with enable-module-command no (the default) and yes.
func TestModuleMatchesRedis(t *testing.T) {
	p := newPair(t)
	for _, line := range []string{"MODULE LIST", "MODULE LOAD /nonexistent.so", "MODULE LOADEX /x.so",
		"MODULE UNLOAD foo", "MODULE HELP", "MODULE foo", "MODULE", "MODULE LIST x"} {
		p.Do(line)
	}
	_, addr := startServer(t, "--enable-module-command", "yes")
	redis := difftest.StartRedis(t, "--enable-module-command", "yes")
	p = difftest.NewPair(t, redis, addr)
	for _, line := range []string{"MODULE LIST", "MODULE LOAD /nonexistent.so", "MODULE LOADEX /x.so a b",
		"MODULE UNLOAD foo"} {
		if r := p.Do(line); strings.Contains(r, "not allowed") {
			t.Errorf("%s: %q", line, r)
		}
	}
}
