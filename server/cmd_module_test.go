package server

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/difftest"
)

// TestModuleMatchesRedis: MODULE's other answers are a redis-server's,
// with enable-module-command no (the default) and yes.
func TestModuleMatchesRedis(t *testing.T) {
	p := newPair(t)
	// MODULE LIST is RediSearch's (TestModuleSearch).
	for _, line := range []string{"MODULE LOAD /nonexistent.so", "MODULE LOADEX /x.so",
		"MODULE UNLOAD foo", "MODULE HELP", "MODULE foo", "MODULE", "MODULE LIST x"} {
		p.Do(line)
	}
	_, addr := startServer(t, "--enable-module-command", "yes")
	redis := difftest.StartRedis(t, "--enable-module-command", "yes")
	p = difftest.NewPair(t, redis, addr)
	for _, line := range []string{"MODULE LOAD /nonexistent.so", "MODULE LOADEX /x.so a b",
		"MODULE UNLOAD foo"} {
		if r := p.Do(line); strings.Contains(r, "not allowed") {
			t.Errorf("%s: %q", line, r)
		}
	}
}

// TestModuleSearch: the built-in search is reported as RediSearch 2.10.5
// reports itself in Redis (the search oracle, started with
// enable-module-command yes): MODULE LIST and HELLO's modules (the path
// aside: "builtin"), INFO's modules section, and MODULE UNLOAD's refusal.
// Clients look there before they use FT.* (RedisVL, redis-om).
func TestModuleSearch(t *testing.T) {
	oracle, stop, err := difftest.LaunchSearch("--enable-module-command", "yes")
	if errors.Is(err, difftest.ErrSearchOptedOut) {
		t.Skip("SKIPPING search differential test: " + err.Error())
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	_, addr := startServer(t, "--enable-module-command", "yes")
	p := difftest.NewPair(t, oracle, addr)
	path := regexp.MustCompile(`path\r\n\$\d+\r\n[^\r]*\r\n`)
	for _, proto := range []string{"2", "3"} {
		p.Redis.Do("HELLO", proto)
		p.HotKV.Do("HELLO", proto)
		p.DoBoth("MODULE LIST", func(redis, hotkv string) {
			if r, h := path.ReplaceAllString(redis, "path*"), path.ReplaceAllString(hotkv, "path*"); r != h {
				t.Errorf("MODULE LIST (RESP%s):\n redis: %q\n hotkv: %q", proto, redis, hotkv)
			}
			if !strings.Contains(hotkv, "builtin") {
				t.Errorf("MODULE LIST's path: %q", hotkv)
			}
		})
		p.DoBoth("HELLO "+proto, func(redis, hotkv string) {
			_, r, _ := strings.Cut(redis, "modules")
			_, h, _ := strings.Cut(hotkv, "modules")
			if r, h = path.ReplaceAllString(r, "path*"), path.ReplaceAllString(h, "path*"); r != h || r == "" {
				t.Errorf("HELLO %s's modules:\n redis: %q\n hotkv: %q", proto, r, h)
			}
		})
	}
	p.DoBoth("INFO modules", func(redis, hotkv string) {
		// Redis 7.4 adds the module's own sections after it.
		section := regexp.MustCompile(`# Modules\r\n(module:[^\r]*\r\n)*`)
		if r, h := section.FindString(redis), section.FindString(hotkv); r != h || r == "" {
			t.Errorf("INFO modules:\n redis: %q\n hotkv: %q", r, h)
		}
	})
	p.Do("MODULE UNLOAD search")
	p.Do("MODULE UNLOAD nosuch")
}
