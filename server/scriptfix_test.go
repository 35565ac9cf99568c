package server

import (
	"strings"
	"testing"
)

// TestScriptSortSetForcedAlpha: SORT (and SORT_RO) of a set BY a pattern
// without '*' (no sorting) called from a script, or with STORE, sorts the
// members ALPHA, as Redis's sortCommandGeneric does for CLIENT_SCRIPT and
// a store key, so that replicas and the AOF see the same result. Lists
// and sorted sets keep their native order.
func TestScriptSortSetForcedAlpha(t *testing.T) {
	p := newPair(t)
	p.Run(`
		SADD myset c a 10 b 9 2 d
		SADD intset 30 1 20 100 2
		SADD wset a b c
		RPUSH mylist c a b 10 2
		ZADD myz 3 c 1 a 2 b
		SET w_a 3
		SET w_b 1
		SET w_c 2
	`)
	for _, c := range [][]string{
		{"return redis.call('sort', KEYS[1], 'by', '_')", "1", "myset"},
		{"return redis.call('sort', KEYS[1], 'BY', 'nosort')", "1", "intset"},
		{"return redis.call('sort', KEYS[1], 'by', '_', 'desc')", "1", "myset"},
		{"return redis.call('sort', KEYS[1], 'by', '_', 'limit', 1, 3)", "1", "myset"},
		{"return redis.call('sort', KEYS[1], 'by', '_', 'limit', 2, -1, 'desc')", "1", "myset"},
		{"return redis.call('sort', KEYS[1], 'by', '_', 'get', '#', 'get', 'w_*')", "1", "myset"},
		{"return redis.call('sort', KEYS[1], 'by', '_', 'alpha')", "1", "myset"},
		{"return redis.call('sort_ro', KEYS[1], 'by', '_')", "1", "myset"},
		{"return redis.call('sort_ro', KEYS[1], 'by', '_', 'desc', 'limit', 0, 2)", "1", "intset"},
		// Sorting that was asked for is unchanged.
		{"return redis.call('sort', KEYS[1])", "1", "intset"},
		{"return redis.call('sort', KEYS[1], 'alpha')", "1", "myset"},
		{"return redis.call('sort', KEYS[1], 'by', 'w_*', 'alpha')", "1", "wset"},
		{"return redis.call('sort', KEYS[1], 'by', 'w_*')", "1", "wset"},
		// Lists and sorted sets keep their order.
		{"return redis.call('sort', KEYS[1], 'by', '_')", "1", "mylist"},
		{"return redis.call('sort', KEYS[1], 'by', '_', 'desc')", "1", "mylist"},
		{"return redis.call('sort', KEYS[1], 'by', '_')", "1", "myz"},
		{"return redis.call('sort', KEYS[1], 'by', '_', 'limit', 1, 1)", "1", "myz"},
		// STORE, from a script and from a client.
		{"return redis.call('sort', KEYS[1], 'by', '_', 'store', KEYS[2])", "2", "myset", "dst"},
		{"return redis.call('lrange', KEYS[1], 0, -1)", "1", "dst"},
		{"return redis.call('sort', KEYS[1], 'by', '_', 'desc', 'store', KEYS[2])", "2", "intset", "dst"},
		{"return redis.call('lrange', KEYS[1], 0, -1)", "1", "dst"},
		// Missing key and wrong type.
		{"return redis.call('sort', KEYS[1], 'by', '_')", "1", "nosuch"},
		{"return redis.call('sort', KEYS[1], 'by', '_')", "1", "w_a"},
	} {
		p.DoArgs(append([]string{"EVAL"}, c...)...)
	}
	p.Run(`
		SORT myset BY _ STORE dst2
		LRANGE dst2 0 -1
		SORT intset BY _ DESC LIMIT 1 2 STORE dst2
		LRANGE dst2 0 -1
		SORT mylist BY _
		SORT myz BY _ DESC
	`)
	// From a client, without STORE, a set comes in its own order.
	p.DoUnordered("SORT myset BY _")
	// Inside MULTI the client is not a script: no forced sorting either.
	p.Do("MULTI")
	p.Do("SORT intset BY _")
	p.DoBoth("EXEC", func(redis, hotkv string) {})
}

// TestScriptMathRandomSeed: math.randomseed and math.random read their
// arguments with luaL_checkint, which takes numbers given as strings
// (math.randomseed(ARGV[1])), as the "Scripting engine PRNG can be seeded
// correctly" test of Redis's suite needs.
func TestScriptMathRandomSeed(t *testing.T) {
	p := newPair(t)
	for _, c := range [][]string{
		{"math.randomseed(ARGV[1]); return tostring(math.random())", "0", "10"},
		{"math.randomseed(ARGV[1]); return tostring(math.random())", "0", "20"},
		{"math.randomseed(10); return tostring(math.random())", "0"},
		{"math.randomseed(ARGV[1]); return {math.random(ARGV[2]), math.random('3', ' 9 ')}", "0", "10", "50"},
		{"math.randomseed('4294967306'); return tostring(math.random())", "0"},
		{"math.randomseed(' 0x0a '); return tostring(math.random())", "0"},
		{"math.randomseed(-1.5); return tostring(math.random())", "0"},
		{"math.randomseed(7); return {math.random(-2147483648, 2147483647), math.random(4294967297)}", "0"},
		{"math.randomseed('x')", "0"},
		{"math.randomseed({})", "0"},
		{"math.randomseed()", "0"},
		{"return math.random('0')", "0"},
		{"return math.random('5', '1')", "0"},
		{"return math.random('a')", "0"},
	} {
		p.DoArgs(append([]string{"EVAL"}, c...)...)
	}
}

// TestFunctionArgumentErrors: FUNCTION RESTORE and FUNCTION FLUSH with too
// many arguments answer addReplySubcommandSyntaxError's text, naming the
// subcommand as it was sent.
func TestFunctionArgumentErrors(t *testing.T) {
	p := newPair(t)
	p.Run(`
		FUNCTION RESTORE
		function restore arg1 args2 arg3
		FUNCTION RESTORE a b c d e
		FUNCTION ReStOrE a b c
		FUNCTION RESTORE bad APPEND
		FUNCTION RESTORE bad nosuch
		FUNCTION FLUSH bad_arg
		function flush sync extra_arg
		FUNCTION FLUSH a b c
		FUNCTION Flush ASYNC x
		FUNCTION FLUSH SYNC
		FUNCTION FLUSH async
		FUNCTION FLUSH
		SCRIPT FLUSH sync extra_arg
		SCRIPT FLUSH bad_arg
	`)
}

// TestFunctionCaseInsensitive: function names are case-insensitive for
// FCALL and for the collision check across libraries (Redis's
// functionDictType); library names are not.
func TestFunctionCaseInsensitive(t *testing.T) {
	p := newPair(t)
	p.Do("FUNCTION FLUSH")
	p.DoArgs("FUNCTION", "LOAD", "#!lua name=test\nredis.register_function('test', function() return 'hello1' end)")
	p.Run(`
		FCALL TEST 0
		FCALL test 0
		FCALL tEsT 0
		FCALL_RO TEST 0
		FCALL TESTX 0
	`)
	p.DoArgs("FUNCTION", "LOAD", "#!lua name=lib2\nredis.register_function('TEST', function() return 'hello2' end)")
	p.DoArgs("FUNCTION", "LOAD", "#!lua name=TEST\nredis.register_function('other', function() return 'other' end)")
	p.DoArgs("FUNCTION", "LOAD", "REPLACE", "#!lua name=test\nredis.register_function('Test', function() return 'hello3' end)")
	p.Run(`
		FCALL test 0
		FCALL OTHER 0
		FUNCTION DELETE TEST
		FCALL other 0
		FUNCTION DELETE test
		FCALL test 0
		FUNCTION STATS
	`)
	p.Do("FUNCTION FLUSH")
}

// TestClusterDisabled: CLUSTER exists as in a Redis without cluster mode:
// each subcommand (after its arity check) answers that cluster support is
// disabled, from clients, MULTI and scripts; CLUSTER RESET is noscript.
func TestClusterDisabled(t *testing.T) {
	p := newPair(t)
	p.Run(`
		CLUSTER
		CLUSTER INFO
		cluster info
		CLUSTER INFO x
		CLUSTER HELP
		CLUSTER HELP x
		CLUSTER KEYSLOT x
		CLUSTER KEYSLOT
		CLUSTER COUNTKEYSINSLOT 1
		CLUSTER GETKEYSINSLOT 1 1
		CLUSTER NODES
		CLUSTER SLOTS
		CLUSTER SHARDS
		CLUSTER LINKS
		CLUSTER MYID
		CLUSTER RESET
		CLUSTER RESET HARD
		CLUSTER RESET soft x y
		CLUSTER MEET 127.0.0.1 7000
		CLUSTER MEET 127.0.0.1
		CLUSTER ADDSLOTS 1 2 3
		CLUSTER SETSLOT 1 NODE x
		CLUSTER FAILOVER
		CLUSTER REPLICAS x
		CLUSTER SLAVES x
		CLUSTER COUNT-FAILURE-REPORTS x
		CLUSTER FORGET x
		CLUSTER SAVECONFIG
		CLUSTER BUMPEPOCH
		CLUSTER FLUSHSLOTS
		CLUSTER SET-CONFIG-EPOCH 1
		CLUSTER REPLICATE x
		CLUSTER ADDSLOTSRANGE 1 2
		CLUSTER DELSLOTS 1
		CLUSTER DELSLOTSRANGE 1 2
		CLUSTER NOSUCH
		CLUSTER NOSUCH a b
		EVAL "return redis.call('cluster','reset','hard')" 0
		EVAL "return redis.pcall('cluster','reset')" 0
		EVAL "return redis.call('cluster','info')" 0
		EVAL "return redis.pcall('cluster','keyslot','x')" 0
		EVAL "return redis.call('cluster','nosuch')" 0
		EVAL "return redis.call('cluster')" 0
		EVAL "return redis.call('cluster','info','x')" 0
		MULTI
		CLUSTER INFO
		CLUSTER RESET
		EXEC
		COMMAND INFO cluster|reset cluster|info cluster|keyslot
		COMMAND GETKEYS cluster info
	`)
	p.DoUnordered("COMMAND LIST FILTERBY pattern cluster*")
	p.DoBoth("COMMAND INFO cluster", func(redis, hotkv string) {
		// The subcommands come in hash-table order in Redis: compare
		// lengths and the heads only.
		if len(redis) != len(hotkv) || !strings.HasPrefix(hotkv, "*1\r\n*10\r\n$7\r\ncluster\r\n:-2\r\n*0\r\n") {
			t.Errorf("COMMAND INFO cluster\n redis: %.300q\n hotkv: %.300q", redis, hotkv)
		}
	})
}
