package server

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hotkv/hotkv/internal/difftest"
)

func strconvLen(s string) string { return strconv.Itoa(len(s)) }

// TestHooks: the executor's hooks see every command that runs, whichever
// way it comes — sent by a client, queued in MULTI, called by a script or
// a function — and a refusal stops it there. Prepare runs before the
// locks are taken, with the keys about to be locked.
func TestHooks(t *testing.T) {
	s, addr := startServer(t)
	const refusal = "NOPERM this test refuses writes to key 'forbidden'"
	var mu sync.Mutex
	var prepared [][]string // keys passed to Prepare, in order
	var heldAtPrepare bool
	s.mu.Lock() // ordered before the connections' goroutines (newClient)
	s.AddHooks(Hooks{
		Refuse: []func(c *Client, cmd *Command, args [][]byte, keyPos []int) string{
			func(c *Client, cmd *Command, args [][]byte, keyPos []int) string {
				if cmd.Flags&Write == 0 {
					return ""
				}
				for _, i := range keyPos {
					if string(args[i]) == "forbidden" {
						return refusal
					}
				}
				return ""
			},
		},
		Prepare: []func(c *Client, keys [][]byte){
			func(c *Client, keys [][]byte) {
				mu.Lock()
				defer mu.Unlock()
				var ks []string
				for _, k := range keys {
					ks = append(ks, string(k))
				}
				prepared = append(prepared, ks)
				heldAtPrepare = heldAtPrepare || c.guard.Held()
			},
		},
	})
	s.mu.Unlock()
	c := difftest.Dial(t, addr)
	takePrepared := func() [][]string {
		mu.Lock()
		defer mu.Unlock()
		p := prepared
		prepared = nil
		return p
	}

	steps := []struct {
		name string
		send []string
		want string
		prep [][]string // Prepare's calls, when checked
	}{
		{"plain refused", []string{"SET", "forbidden", "x"}, "-" + refusal + "\r\n", [][]string{}},
		{"plain runs", []string{"SET", "k", "x"}, "+OK\r\n", [][]string{{"k"}}},
		{"multi-key prepares together", []string{"MSET", "a", "1", "b", "2"}, "+OK\r\n", [][]string{{"a", "b"}}},
		{"multi", []string{"MULTI"}, "+OK\r\n", nil},
		{"queued", []string{"SET", "forbidden", "y"}, "+QUEUED\r\n", nil},
		{"queued 2", []string{"INCR", "n"}, "+QUEUED\r\n", nil},
		{"exec runs the rest", []string{"EXEC"}, "*2\r\n-" + refusal + "\r\n:1\r\n", [][]string{{"forbidden", "n"}}},
		{"redis.call", []string{"EVAL", "return redis.call('SET', KEYS[1], 'z')", "1", "forbidden"},
			"-" + refusal + " script: ", [][]string{{}}}, // the global lock: no keys
		{"redis.pcall", []string{"EVAL", "local r = redis.pcall('SET', KEYS[1], 'z') return r['err']", "1", "forbidden"},
			"$" + strconvLen(refusal) + "\r\n" + refusal + "\r\n", [][]string{{}}},
		{"key-locked script prepares its keys", []string{"EVAL", "#!lua flags=allow-key-locking\nreturn redis.call('GET', KEYS[1])", "1", "k"},
			"$1\r\nx\r\n", [][]string{{"k"}}},
		{"function", []string{"FUNCTION", "LOAD", "#!lua name=lib\nredis.register_function('f', function(keys) return redis.call('SET', keys[1], 'v') end)"},
			"$3\r\nlib\r\n", nil},
		{"fcall refused inside", []string{"FCALL", "f", "1", "forbidden"}, "-" + refusal, nil},
		{"nothing was written", []string{"EXISTS", "forbidden"}, ":0\r\n", nil},
	}
	for _, st := range steps {
		takePrepared()
		got := c.Do(st.send...)
		if !strings.HasPrefix(got, st.want) {
			t.Errorf("%s: %q, want prefix %q", st.name, got, st.want)
		}
		if st.prep != nil {
			p := takePrepared()
			if p == nil {
				p = [][]string{}
			}
			if !slices.EqualFunc(p, st.prep, slices.Equal) {
				t.Errorf("%s: Prepare saw %q, want %q", st.name, p, st.prep)
			}
		}
	}
	mu.Lock()
	if heldAtPrepare {
		t.Error("Prepare ran with locks held")
	}
	mu.Unlock()
	// A refusal counts as a rejected call, as an ACL refusal does in Redis.
	stats := c.Do("INFO", "commandstats")
	if !strings.Contains(stats, "cmdstat_set:calls=") || !strings.Contains(stats, "rejected_calls=") {
		t.Fatalf("commandstats: %q", stats)
	}
	for _, line := range strings.Split(stats, "\r\n") {
		if strings.HasPrefix(line, "cmdstat_set:") && !strings.Contains(line, "rejected_calls=5,") {
			t.Errorf("SET refused five times (plain, in EXEC, redis.call, redis.pcall, in a function): %s", line)
		}
	}
}
