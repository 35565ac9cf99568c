package hotkv

import (
	"strings"

	"github.com/redis/go-redis/v9"
)

// KeyLockingShebang is the first line that makes a Lua script opt into
// key-based locking: the server then locks only the hash tags of the keys
// passed in KEYS instead of taking the global lock.
const KeyLockingShebang = "#!lua flags=allow-key-locking\n"

// Script is a Lua script run by its SHA1 digest. It embeds *redis.Script, so
// Run, RunRO, Eval, EvalSha, Load, Exists and Hash are available.
//
// Run sends EVALSHA first; when the server answers NOSCRIPT (the script is
// not, or no longer, in its cache, e.g. after SCRIPT FLUSH or a restart) it
// sends the source with EVAL, which also loads it into the cache, so later
// calls use EVALSHA again. Call Load to put it in the cache explicitly
// (SCRIPT LOAD).
type Script struct {
	*redis.Script
	src string
}

// NewScript returns a Script for the Lua source src.
//
//	incr := hotkv.NewScript(`return redis.call('INCRBY', KEYS[1], ARGV[1])`)
//	n, err := incr.Run(ctx, client, []string{"counter"}, 5).Int64()
func NewScript(src string) *Script {
	return &Script{Script: redis.NewScript(src), src: src}
}

// KeyLockedScript returns a Script for src that uses key-based locking:
// when src has no shebang line (it does not start with "#!"),
// KeyLockingShebang ("#!lua flags=allow-key-locking") is prepended. A
// source that already has a shebang is used unchanged, so write the flag in
// it yourself when combining flags ("#!lua flags=no-writes,allow-key-locking").
//
// Such a script may only touch keys passed in KEYS, or keys that share a hash
// tag with one of them (see Key); other keys are rejected by the server.
func KeyLockedScript(src string) *Script {
	if !strings.HasPrefix(src, "#!") {
		src = KeyLockingShebang + src
	}
	return NewScript(src)
}

// Source returns the Lua source of the script as sent to the server
// (including any shebang added by KeyLockedScript).
func (s *Script) Source() string { return s.src }
