package server

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hotkv/hotkv/config"
	"github.com/hotkv/hotkv/internal/difftest"
)

// aclServers starts a redis-server and a HotKV of the test's own (ACL
// state is server-wide: the shared servers must keep their default user)
// and returns a differential pair over them, as the default user, and a
// function that opens another pair.
func aclServers(t *testing.T, args ...string) (*difftest.Pair, func() *difftest.Pair) {
	t.Helper()
	if shared.redisErr != nil {
		newPair(t) // skips or fails as the other differential tests do
	}
	redisAddr := difftest.StartRedis(t, args...)
	_, hotkvAddr := startServer(t, args...)
	open := func() *difftest.Pair { return difftest.NewPair(t, redisAddr, hotkvAddr) }
	return open(), open
}

// TestACLCommands: ACL's subcommands, their replies and errors, as Redis.
func TestACLCommands(t *testing.T) {
	p, _ := aclServers(t)
	p.Run(`
ACL LIST
ACL USERS
ACL WHOAMI
ACL CAT
ACL CAT foo
ACL CAT a b
ACL GETUSER default
ACL GETUSER nobody
ACL SETUSER new
ACL GETUSER new
ACL LIST
ACL SETUSER x on >p1 >p2 #b7a3bdd0cbb1d0fa8c8dc0d5bd9b3bde5ba30c0ad3fb1ee82fa6aaf20a5f7c4e ~a* %R~b* %W~c* %RW~d* &ch +@hash -hset (~z* +set) (%R~y* +@string -append)
ACL GETUSER x
ACL LIST
ACL USERS
ACL SETUSER x <p2 !b7a3bdd0cbb1d0fa8c8dc0d5bd9b3bde5ba30c0ad3fb1ee82fa6aaf20a5f7c4e
ACL GETUSER x
ACL SETUSER x clearselectors resetkeys allkeys resetchannels allchannels nocommands +select|0 +select|1
ACL GETUSER x
ACL SETUSER x reset
ACL LIST
ACL SETUSER x <p3
ACL SETUSER x !abc
ACL SETUSER x #ABC
ACL SETUSER x +nosuch
ACL SETUSER x -nosuch
ACL SETUSER x +@nosuch
ACL SETUSER x -select|0
ACL SETUSER x +config|nosuch
ACL SETUSER x +config|get|x
ACL SETUSER x +get|
ACL SETUSER x bad
ACL SETUSER x %Q~a
ACL SETUSER x %~a
ACL SETUSER x %
ACL SETUSER x () skip-sanitize-payload
ACL GETUSER x
ACL SETUSER x allkeys ~a
ACL SETUSER x allchannels &a
ACL SETUSER x (~a
ACL SETUSER x (on)
ACL SETUSER x "(~a +get" "+@write)"
ACL GETUSER x
ACL SETUSER "a b"
ACL SETUSER x "~a b"
ACL SETUSER y on nopass +get ~k*
ACL DRYRUN y get k1
ACL DRYRUN y get z1
ACL DRYRUN y set k1 v
ACL DRYRUN y config get x
ACL DRYRUN y nosuch
ACL DRYRUN y config nosuch
ACL DRYRUN y config
ACL DRYRUN nouser get a
ACL DRYRUN y get
ACL DRYRUN x get a
ACL SETUSER y +publish &ch*
ACL DRYRUN y publish ch1 m
ACL DRYRUN y publish other m
ACL SETUSER sh on nopass +@all %R~read* %W~write* %RW~rw* resetchannels &ch
ACL DRYRUN sh spublish ch m
ACL DRYRUN sh spublish other m
ACL DRYRUN sh ssubscribe ch other
ACL DRYRUN sh MIGRATE h p "" 0 5000 AUTH KEYS KEYS rw
ACL DRYRUN sh MIGRATE h p "" 0 5000 AUTH2 USER KEYS KEYS read
ACL DRYRUN sh MIGRATE h p read 0 5000
ACL DRYRUN sh SORT read STORE write
ACL DRYRUN sh SORT write STORE write
ACL DRYRUN sh EVAL "" 1 read
ACL DRYRUN sh EVAL_RO "" 1 read
ACL DRYRUN sh GEORADIUS read 1 2 3 M STOREDIST write
ACL DRYRUN sh GEORADIUS read 1 2 3 M STOREDIST read
ACL GENPASS 0
ACL GENPASS 5000
ACL GENPASS abc
ACL GENPASS 1 2
ACL LOG abc
ACL LOG 1 2
ACL LOG RESET
ACL LOG
ACL LOAD
ACL SAVE
ACL DELUSER default
ACL DELUSER x nosuch default
ACL DELUSER x nosuch new
ACL USERS
ACL HELP
ACL FOO
ACL
AUTH nouser p
AUTH y anything
ACL WHOAMI
AUTH default nope
AUTH nope
ACL WHOAMI
`)
	for _, line := range []string{"ACL GENPASS", "ACL GENPASS 1", "ACL GENPASS 5", "ACL GENPASS 4096"} {
		p.DoBoth(line, func(redis, hotkv string) {
			if len(redis) != len(hotkv) {
				t.Errorf("%s: redis %q, hotkv %q", line, redis, hotkv)
			}
		})
	}
}

// TestACLAuth: requirepass is the default user's password, AUTH and
// HELLO authenticate as users, failures are logged.
func TestACLAuth(t *testing.T) {
	p, open := aclServers(t)
	p.Run(`
AUTH foo
CONFIG SET requirepass secret
ACL LIST
ACL SETUSER alice on >pw ~* +@all
ACL SETUSER bob off >pw ~* +@all
`)
	q := open()
	q.Run(`
GET x
ACL WHOAMI
AUTH wrong
AUTH default wrong
AUTH alice wrong
AUTH bob pw
AUTH secret
ACL WHOAMI
AUTH alice pw
ACL WHOAMI
HELLO 2 AUTH default nope
HELLO 2 AUTH alice pw SETNAME c1 junk
CLIENT GETNAME
ACL WHOAMI
RESET
ACL WHOAMI
`)
	p.Run(`
CONFIG SET requirepass ""
ACL LIST
ACL SETUSER default resetpass
ACL SETUSER default nopass
`)
	checkLogFields(t, p, "ACL LOG", "auth", "toplevel", "AUTH", "alice")
	p.Run(`
ACL LOG RESET
ACL SETUSER default >pw
ACL LIST
CONFIG GET requirepass
ACL SETUSER default nopass
`)
}

// checkLogFields compares the first entry of the ACL LOG reply on both
// servers field by field, but for its age and client info, and checks
// its reason, context, object and username.
func checkLogFields(t *testing.T, p *difftest.Pair, cmd, reason, context, object, user string) {
	t.Helper()
	p.DoBoth(cmd, func(redis, hotkv string) {
		strip := func(s string) string {
			lines := strings.Split(s, "\r\n")
			var out []string
			for i := 0; i < len(lines); i++ {
				out = append(out, lines[i])
				if lines[i] == "age-seconds" || lines[i] == "client-info" {
					i += 2 // the value's length and text
				}
			}
			return strings.Join(out, "\n")
		}
		if strip(redis) != strip(hotkv) {
			t.Errorf("%s:\n redis %q\n hotkv %q", cmd, redis, hotkv)
		}
		for _, want := range []string{reason, context, object, user} {
			if !strings.Contains(hotkv, "\r\n"+want+"\r\n") {
				t.Errorf("%s: %q lacks %q", cmd, hotkv, want)
			}
		}
	})
}

// TestACLRestrictedUser: a user allowed some commands, keys and channels
// reaches nothing else — through plain commands, MULTI/EXEC, EVAL's
// redis.call, FCALL, SORT's BY and GET patterns and (P)SUBSCRIBE — with
// Redis's replies, and each refusal is logged.
func TestACLRestrictedUser(t *testing.T) {
	p, open := aclServers(t)
	p.Run(`
ACL SETUSER u on >pw ~k* %R~ro* &ch* +@read +@write +@scripting +@transaction +@pubsub +@connection -debug
SET k1 v1
SET secret s
SET rok r
RPUSH klist 3 1 2
SET w_1 10
FUNCTION LOAD "#!lua name=lib\nredis.register_function('getkey', function(keys, args) return redis.call('get', keys[1]) end)\nredis.register_function('getarg', function(keys, args) return redis.call('get', args[1]) end)"
`)
	q := open()
	q.Run(`
AUTH u pw
GET k1
GET secret
SET k1 x
SET rok x
GET rok
SET secret x
MGET k1 secret
DEL k1 secret
CONFIG GET maxmemory
KEYS *
FLUSHALL
ACL WHOAMI
ACL LIST
MULTI
GET k1
GET secret
EXEC
MULTI
GET k1
SET k2 v
EXEC
EVAL "return redis.call('get', KEYS[1])" 1 k1
EVAL "return redis.call('get', KEYS[1])" 1 secret
EVAL "return redis.call('get', 'secret')" 0
EVAL "return redis.pcall('get', 'secret')" 0
EVAL "return redis.call('flushall')" 0
EVAL "return redis.pcall('config', 'get', 'maxmemory')" 0
EVAL "return redis.acl_check_cmd('get', 'k1')" 0
EVAL "return redis.acl_check_cmd('get', 'secret')" 0
EVAL "return redis.acl_check_cmd('flushall')" 0
EVAL "return redis.acl_check_cmd('nosuch')" 0
FCALL getkey 1 k1
FCALL getkey 1 secret
FCALL getarg 0 secret
FCALL_RO getarg 0 k1
SORT klist
SORT klist BY nosort
SORT klist BY w_*
SORT klist GET #
SORT klist GET secret*
SORT klist STORE secret
SORT klist STORE k2
PUBLISH ch1 m
PUBLISH other m
PSUBSCRIBE other*
`)
	q.Run(`
SUBSCRIBE ch1 other
`)
	checkLogFields(t, p, "ACL LOG 1", "channel", "toplevel", "other", "u")
	q = open()
	q.Run(`
AUTH u pw
MULTI
GET k1
`)
	p.Do("ACL SETUSER u -get")
	q.Run(`
EXEC
`)
	checkLogFields(t, p, "ACL LOG 1", "command", "multi", "get", "u")
	q.Run(`
EVAL "return redis.call('get', 'secret')" 0
`)
	p.Do("ACL SETUSER u +get")
	q.Do("EVAL \"return redis.call('get', 'secret')\" 0")
	checkLogFields(t, p, "ACL LOG 1", "key", "lua", "secret", "u")
}

// TestACLDisconnects: deleting a user closes its connections, and
// revoking a channel closes the user's subscribers that lost one, as
// Redis 7.0.
func TestACLDisconnects(t *testing.T) {
	p, open := aclServers(t)
	p.Run(`
ACL SETUSER ps on nopass +@all ~* resetchannels &foo:1 &bar:* &orders
ACL SETUSER gone on nopass +@all ~*
`)
	sub := open()
	sub.Run(`
AUTH ps x
CLIENT SETNAME deathrow
SUBSCRIBE foo:1
`)
	psub := open()
	psub.Run(`
AUTH ps x
CLIENT SETNAME patsub
PSUBSCRIBE bar:*
`)
	other := open()
	other.Run(`
AUTH gone x
CLIENT SETNAME victim
`)
	p.Do("ACL SETUSER ps resetchannels &foo:1 &bar:*")
	p.Do("ACL SETUSER ps resetchannels &bar:*")
	p.Do("ACL DELUSER gone")
	time.Sleep(50 * time.Millisecond)
	p.DoBoth("CLIENT LIST", func(redis, hotkv string) {
		for _, name := range []string{"deathrow", "victim"} {
			if strings.Contains(redis, "name="+name+" ") || strings.Contains(hotkv, "name="+name+" ") {
				t.Errorf("%s still connected:\n redis %q\n hotkv %q", name, redis, hotkv)
			}
		}
		if !strings.Contains(redis, "name=patsub ") || !strings.Contains(hotkv, "name=patsub ") {
			t.Errorf("patsub disconnected:\n redis %q\n hotkv %q", redis, hotkv)
		}
	})
	p.Do("ACL SETUSER ps resetchannels &bar:x")
	time.Sleep(50 * time.Millisecond)
	p.DoBoth("CLIENT LIST", func(redis, hotkv string) {
		if strings.Contains(redis, "name=patsub ") || strings.Contains(hotkv, "name=patsub ") {
			t.Errorf("patsub still connected:\n redis %q\n hotkv %q", redis, hotkv)
		}
	})
}

// TestACLConfigUsers: user lines of the configuration create users at
// start-up, and CONFIG REWRITE writes them back.
func TestACLConfigUsers(t *testing.T) {
	args := []string{"--user", "default", "on", "nopass", "~*", "+@all", "-flushdb", "--user", "ro", "on", ">pw", "%R~*", "+@read"}
	if shared.redisErr != nil {
		newPair(t)
	}
	redisAddr := difftest.StartRedis(t, args...)
	s, hotkvAddr := startServer(t, args...)
	if err := s.CheckStartup(); err != nil {
		t.Fatal(err)
	}
	p := difftest.NewPair(t, redisAddr, hotkvAddr)
	p.Run(`
FLUSHDB
ACL LIST
AUTH ro pw
GET x
SET x y
`)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--user", "foo", "--user", "foo"}, "Error in user declaration 'foo': Duplicate user found. A user can only be defined once in config files"},
		{[]string{"--user", "foo", "on", "bad"}, "Error in user declaration 'foo': Syntax error"},
		{[]string{"--user", "foo", "--aclfile", "x.acl"}, errACLBothUsersFile},
	} {
		cfg, err := config.Load("", append([]string{"--dir", t.TempDir(), "--save", ""}, tt.args...))
		if err != nil {
			t.Fatal(err)
		}
		if err := New(cfg).CheckStartup(); err == nil || err.Error() != tt.want {
			t.Errorf("%q: got %v, want %s", tt.args, err, tt.want)
		}
	}
}

// TestACLFile: the aclfile's users load at start-up, ACL SAVE writes them
// as Redis does, ACL LOAD replaces them or, on an error, changes nothing.
func TestACLFile(t *testing.T) {
	if shared.redisErr != nil {
		newPair(t)
	}
	const users = "user alice on allcommands allkeys &* >alice\nuser bob on -@all +@set +acl ~set* &* >bob\nuser default on nopass ~* &* +@all\n"
	rfile := filepath.Join(t.TempDir(), "users.acl")
	hfile := filepath.Join(t.TempDir(), "users.acl")
	for _, f := range []string{rfile, hfile} {
		if err := os.WriteFile(f, []byte(users), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	redisAddr := difftest.StartRedis(t, "--aclfile", rfile)
	s, hotkvAddr := startServer(t, "--aclfile", hfile)
	if err := s.CheckStartup(); err != nil {
		t.Fatal(err)
	}
	p := difftest.NewPair(t, redisAddr, hotkvAddr)
	p.Run(`
ACL LIST
ACL SETUSER eve +get allkeys >eve on
ACL SAVE
`)
	rdata, _ := os.ReadFile(rfile)
	hdata, _ := os.ReadFile(hfile)
	if string(rdata) != string(hdata) {
		t.Errorf("ACL SAVE wrote\n%s\nredis-server wrote\n%s", hdata, rdata)
	}
	for _, f := range []string{rfile, hfile} {
		os.WriteFile(f, []byte(users+"user alice on nopass\nuser x on bad\n"), 0o644)
	}
	p.DoBoth("ACL LOAD", func(redis, hotkv string) {
		if strings.ReplaceAll(redis, rfile, "F") != strings.ReplaceAll(hotkv, hfile, "F") {
			t.Errorf("ACL LOAD:\n redis %q\n hotkv %q", redis, hotkv)
		}
	})
	p.Do("ACL LIST")
	p = difftest.NewPair(t, redisAddr, hotkvAddr)
	p.Do("AUTH alice alice")
	p.Do("ACL LIST")
}

// TestACLConcurrentChanges: commands checked on several event loops while
// ACL SETUSER replaces the user's rules see either the old or the new
// rules, never a torn state (run with -race).
func TestACLConcurrentChanges(t *testing.T) {
	_, addr := startServer(t)
	admin := difftest.Dial(t, addr)
	admin.Do("ACL", "SETUSER", "u", "on", "nopass", "~k*", "+get", "+set")
	admin.Do("SET", "k", "v")
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		c := difftest.Dial(t, addr)
		if r := c.Do("AUTH", "u", "x"); r != "+OK\r\n" {
			t.Fatalf("AUTH: %q", r)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 200; j++ {
				r := c.Do("GET", "k")
				if r != "$1\r\nv\r\n" && r != "-NOPERM this user has no permissions to run the 'get' command\r\n" {
					t.Errorf("GET k: %q", r)
					return
				}
			}
		}()
	}
	for j := 0; j < 100; j++ {
		rule := "+get"
		if j%2 == 0 {
			rule = "-get"
		}
		admin.Do("ACL", "SETUSER", "u", rule)
	}
	wg.Wait()
}

// TestACLRandomRules: random rule lists give the same ACL SETUSER replies,
// the same key and channel patterns (ACL GETUSER), and the same verdicts
// for a set of probe commands (ACL DRYRUN) as Redis. The commands
// descriptions are not compared: Redis lists single commands in its
// command table's hash order, and the two tables differ by a few commands
// (FAILOVER, MODULE; CLIENT SETINFO, NO-TOUCH, SCRIPT FLAGS),
// which moves a category's counts.
func TestACLRandomRules(t *testing.T) {
	p, _ := aclServers(t)
	pool := []string{
		"+@all", "-@all", "+@read", "-@read", "+@write", "-@write", "+@string", "-@string", "+@hash",
		"+@set", "-@set", "+@keyspace", "-@keyspace", "+@admin", "-@admin", "+@dangerous", "-@dangerous",
		"+@pubsub", "-@pubsub", "+@fast", "-@fast", "+@slow", "-@slow", "+@scripting", "+@connection",
		"+get", "-get", "+set", "-set", "+config", "-config", "+config|get", "-config|get", "+client|list",
		"+select|0", "+select|1", "-select", "+eval", "+publish", "+subscribe", "+sort", "+del",
		"~k*", "~*", "%R~r*", "%W~w*", "%RW~rw*", "allkeys", "resetkeys", "&ch*", "&*", "allchannels",
		"resetchannels", "nocommands", "allcommands", "(~s* +@all)", "(%R~k* +get)", "clearselectors",
	}
	probes := []string{
		"get k1", "get r1", "get w1", "get rw1", "get s1", "set k1 v", "set r1 v", "set w1 v", "set rw1 v",
		"del k1 w1", "sadd k1 m", "config get x", "config set maxmemory 0", "client list", "select 0",
		"select 1", "publish ch1 m", "publish other m", "subscribe ch1 other", "psubscribe ch*",
		"eval x 1 k1", "eval x 1 r1", "sort k1 store w1", "hset k1 f v", "flushall", "debug object k1",
		"copy r1 w1", "lmove r1 w1 left right", "getdel rw1", "bitfield k1 get i8 0",
	}
	rnd := rand.New(rand.NewPCG(17, 1))
	field := func(raw, name string) string {
		lines := strings.Split(raw, "\r\n")
		for i := 0; i+2 < len(lines); i++ {
			if lines[i] == name {
				return lines[i+2]
			}
		}
		return ""
	}
	ok := 0
	for iter := 0; iter < 150; iter++ {
		args := []string{"ACL", "SETUSER", "r", "reset", "on", "nopass"}
		for n := 1 + rnd.IntN(6); n > 0; n-- {
			args = append(args, pool[rnd.IntN(len(pool))])
		}
		if r := p.DoArgs(args...); r != "+OK\r\n" {
			continue
		}
		ok++
		p.DoBoth("ACL GETUSER r", func(redis, hotkv string) {
			for _, f := range []string{"flags", "keys", "channels", "selectors"} {
				if field(redis, f) != field(hotkv, f) {
					t.Errorf("%q: GETUSER %s: redis %q, hotkv %q", args, f, field(redis, f), field(hotkv, f))
				}
			}
		})
		for _, probe := range probes {
			p.DoArgs(append([]string{"ACL", "DRYRUN", "r"}, strings.Fields(probe)...)...)
		}
		if t.Failed() {
			t.Fatalf("after %q", args)
		}
	}
	if ok < 50 {
		t.Errorf("only %d of 150 rule lists were accepted", ok)
	}
}
