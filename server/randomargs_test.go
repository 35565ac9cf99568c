package server

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// The random-arguments differential test: every command HotKV implements
// is sent many times with random arguments — the option words of its
// COMMAND DOCS, keys of every type, numbers and odd strings — to Redis and
// to HotKV, and the replies are compared: whole, or for commands whose
// output is not deterministic, whether each errs and with which text. It
// looks for the error paths and option combinations the per-command tests
// did not think of.

var randomArgsSeed = flag.Uint64("randomargs.seed", 1, "seed for TestRandomArgsDifferential")
var randomArgsTries = flag.Int("randomargs.tries", 25, "calls per command in TestRandomArgsDifferential")

// randomArgsSkip lists commands never sent: they end or change the
// connection, block, touch files or the process, or read and write
// configuration and state that other tests or the comparison depend on.
var randomArgsSkip = map[string]bool{
	"shutdown": true, "debug": true, "monitor": true, "sync": true, "psync": true,
	"replicaof": true, "slaveof": true, "failover": true, "quit": true, "hello": true,
	"subscribe": true, "psubscribe": true, "ssubscribe": true, "unsubscribe": true,
	"punsubscribe": true, "sunsubscribe": true, "save": true, "bgsave": true,
	"bgrewriteaof": true, "wait": true, "client|kill": true, "client|pause": true,
	"client|reply": true, "client|unpause": true, "client|tracking": true, "client|caching": true,
	"client|no-evict": true, "client|no-touch": true, "client|setname": true, "client|setinfo": true,
	"config|set": true, "config|rewrite": true, "config|resetstat": true, "acl": true,
	"cluster": true, "module": true, "latency": true, "lolwut": true, "command": true,
	"info": true, "memory": true, "slowlog": true, "eval": true, "eval_ro": true,
	"evalsha": true, "evalsha_ro": true, "fcall": true, "fcall_ro": true, "function": true,
	"script": true, "xadd": true, "auth": true, "reset": true, "readonly": true, "readwrite": true,
	"asking": true, "pfdebug": true, "pfselftest": true, "migrate": true, "role": true,
	"multi": true, "exec": true, "watch": true,
	// Relative expiries would expire keys at slightly different moments
	// on the two servers (absolute ones in the past are fine).
	"expire": true, "pexpire": true, "setex": true, "psetex": true,
}

// randomArgsBlocking lists commands that could wait forever: they are
// sent only inside MULTI and from scripts, where they never block.
var randomArgsBlocking = map[string]bool{
	"blpop": true, "brpop": true, "brpoplpush": true, "blmove": true, "blmpop": true,
	"bzpopmin": true, "bzpopmax": true, "bzmpop": true,
}

// randomArgsLoose lists commands whose successful replies may differ (time,
// randomness, idle times, hash order): only their errors are compared.
var randomArgsLoose = map[string]bool{
	"randomkey": true, "srandmember": true, "hrandfield": true, "zrandmember": true,
	"spop": true, "time": true, "lastsave": true, "ttl": true, "pttl": true,
	"expiretime": true, "pexpiretime": true, "object": true, "scan": true, "sscan": true,
	"hscan": true, "zscan": true, "keys": true, "smembers": true, "sunion": true,
	"sinter": true, "sdiff": true, "hgetall": true, "hkeys": true, "hvals": true,
	"dump": true, "xinfo": true, "xpending": true, "xclaim": true, "xautoclaim": true,
	"client": true, "config": true, "sort": true, "sort_ro": true, "pubsub": true,
	"dbsize": true, "echo": true, "xreadgroup": true, "georadius": true, "georadiusbymember": true,
	"georadius_ro": true, "georadiusbymember_ro": true, "geosearch": true,
}

// randomArgsMutatesRandomly lists loose commands whose effect, not only
// their reply, can differ: after one succeeds, the keys are set again.
var randomArgsMutatesRandomly = map[string]bool{"spop": true, "sort": true}

// randomArgsDropTokens are option words never sent: XREAD BLOCK 0 waits
// forever, and SET and GETEX EX/PX set relative expiries.
var randomArgsDropTokens = map[string]bool{"BLOCK": true, "EX": true, "PX": true}

var randomArgValues = []string{
	"0", "1", "-1", "2", "3", "10", "100", "-100", "1.5", "-0.5", "inf", "-inf", "+inf",
	"nan", "1e400", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
	"abc", "", " ", "a b", "(1", "[a", "(a", "-", "+", "$", ">", "0-1", "1-1", "*", "g", "c",
	"m1", "m2", "f1", "13.36", "38.11", "km", "foo*", "\x00", "99999999999",
	"5", "-0", "0.0", "0x10", "1e2", "-2147483649", "4294967296", "a\x00b", "*2", "?",
}

// randomArgsFixture gives each key a value of one type; the keys are what
// random arguments name.
var randomArgsFixture = []string{
	"SET s1 hello", "SET s2 12", "RPUSH l1 a b c 1 2", "HSET h1 f1 v1 f2 2",
	"SADD set1 m1 m2 1", "ZADD z1 1 m1 2 m2 3 c", "XADD x1 1-1 f v", "XADD x1 2-1 f w",
	"XGROUP CREATE x1 g 0", "GEOADD geo1 13.361389 38.115556 m1 15.087269 37.502669 m2",
	"PFADD hll1 a b c",
}

var randomArgKeys = []string{"s1", "s2", "l1", "h1", "set1", "z1", "x1", "geo1", "hll1", "nokey", "{t}new"}

// commandTokens walks a COMMAND DOCS argument tree and collects its tokens.
func commandTokens(args []any, out []string) []string {
	for _, a := range args {
		m, _ := a.(map[string]any)["map"].(map[string]any)
		if m == nil {
			continue
		}
		if tok, ok := m["token"].(string); ok {
			out = append(out, tok)
		}
		if sub, ok := m["arguments"].([]any); ok {
			out = commandTokens(sub, out)
		}
	}
	return out
}

func TestRandomArgsDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIPPING in -short mode")
	}
	var docs struct {
		Commands map[string]docArgs `json:"commands"`
	}
	if err := json.Unmarshal(commandDocsJSON, &docs); err != nil {
		t.Fatal(err)
	}
	for _, proto := range []string{"2", "3"} {
		t.Run("RESP"+proto, func(t *testing.T) { randomArgsRun(t, proto, docs.Commands) })
	}
}

// docArgs is the part of a command's COMMAND DOCS that the test reads.
type docArgs = struct {
	Docs struct {
		Map struct {
			Arguments []any `json:"arguments"`
		} `json:"map"`
	} `json:"docs"`
}

func randomArgsRun(t *testing.T, proto string, commands map[string]docArgs) {
	p, _, _, _ := bhvPair(t)
	p.Redis.Do("HELLO", proto) // the replies name each server
	p.HotKV.Do("HELLO", proto)
	var names []string
	for name := range commands {
		names = append(names, name)
	}
	slices.Sort(names)
	hotkvHas := func(name string) bool {
		r := p.HotKV.Do("COMMAND", "INFO", name)
		return r != "*1\r\n$-1\r\n" && r != "*1\r\n_\r\n"
	}
	fixture := func() {
		p.Do("FLUSHALL")
		for _, f := range randomArgsFixture {
			p.Do(f)
		}
	}
	fixture()
	r := rand.New(rand.NewPCG(*randomArgsSeed, 0xa295))
	var failures []string
	sent, tested := 0, 0
	for _, name := range names {
		parent, _, _ := strings.Cut(name, "|")
		if randomArgsSkip[name] || randomArgsSkip[parent] || !hotkvHas(name) {
			continue
		}
		tested++
		tokens := slices.DeleteFunc(commandTokens(commands[name].Docs.Map.Arguments, nil),
			func(tok string) bool { return randomArgsDropTokens[tok] })
		var recent []string // this command's calls since the data were last set
		for try := 0; try < *randomArgsTries; try++ {
			args := strings.Split(name, "|")
			for n := r.IntN(10); n > 0; n-- {
				switch x := r.IntN(10); {
				case x < 3 && len(tokens) > 0:
					args = append(args, tokens[r.IntN(len(tokens))])
				case x < 6:
					args = append(args, randomArgKeys[r.IntN(len(randomArgKeys))])
				default:
					args = append(args, randomArgValues[r.IntN(len(randomArgValues))])
				}
			}
			if (name == "zrank" || name == "zrevrank") && len(args) >= 4 {
				continue // HotKV takes Redis 7.2's WITHSCORE and arity (docs/compatibility.md)
			}
			mode := try % 4 // 0, 1: plain; 2: in a transaction; 3: from a script
			if randomArgsBlocking[name] {
				mode = 2 + try%2
			}
			inTx := mode == 2 // queued, then run by EXEC
			if mode == 3 {
				// From a script: the errors and refusals redis.pcall gives.
				args = append([]string{"EVAL", "return redis.pcall(unpack(ARGV))", "0"}, args...)
			}
			sent++
			recent = append(recent, fmt.Sprintf("%q", args))
			if inTx {
				p.Do("MULTI")
			}
			want, got := p.Redis.Do(args...), p.HotKV.Do(args...)
			if inTx {
				if want != got {
					p.Do("DISCARD")
				} else {
					args = append(args, "(EXEC)")
					want, got = p.Redis.Do("EXEC"), p.HotKV.Do("EXEC")
				}
			}
			loose := randomArgsLoose[name] || randomArgsLoose[parent]
			if loose && !strings.HasPrefix(want, "-") && !strings.HasPrefix(got, "-") {
				if randomArgsMutatesRandomly[parent] {
					fixture()
					recent = nil
				}
				continue
			}
			if want != got {
				failures = append(failures, fmt.Sprintf("%q\n   redis: %.300q\n   hotkv: %.300q\n   after: %s",
					args, want, got, strings.Join(recent[max(0, len(recent)-8):len(recent)-1], " ")))
				fixture() // the two may now hold different data
				recent = nil
			}
		}
	}
	t.Logf("%d commands, %d calls", tested, sent)
	if len(failures) > 0 {
		t.Errorf("%d replies differ (seed %d):\n%s", len(failures), *randomArgsSeed, strings.Join(failures, "\n"))
	}
}
