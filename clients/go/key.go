package hotkv

import "strings"

// Key builds a key whose hash tag is tag: "{tag}" followed by parts, each
// preceded by ":".
//
//	Key("user:42", "balance")          == "{user:42}:balance"
//	Key("user:42", "history", "2024")  == "{user:42}:history:2024"
//	Key("user:42")                     == "{user:42}"
//
// Contract: every key built with the same tag has the hash tag tag, because
// the hash tag of a key is the non-empty text between its first "{" and the
// first "}" after it. HotKV locks by hash tag, so such keys are locked
// together: a multi-key command, a transaction or a script using
// "allow-key-locking" that declares one of them also covers the others, and
// in a cluster they map to the same slot. Keys with different tags can be
// processed in parallel. The parts are used verbatim (they may contain
// anything, including braces, since only the first "{…}" counts).
//
// Key panics if tag is empty or contains "}", since the key would then not
// carry the hash tag tag.
func Key(tag string, parts ...string) string {
	if tag == "" {
		panic("hotkv.Key: empty hash tag")
	}
	if strings.Contains(tag, "}") {
		panic("hotkv.Key: hash tag " + tag + " contains '}'")
	}
	var b strings.Builder
	n := len(tag) + 2
	for _, p := range parts {
		n += len(p) + 1
	}
	b.Grow(n)
	b.WriteByte('{')
	b.WriteString(tag)
	b.WriteByte('}')
	for _, p := range parts {
		b.WriteByte(':')
		b.WriteString(p)
	}
	return b.String()
}

// HashTag returns the hash tag of key as HotKV (and Redis Cluster) computes
// it: the non-empty text between the first "{" and the first "}" after it,
// or the whole key when there is no such text.
func HashTag(key string) string {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			return key[i+1 : i+1+j]
		}
	}
	return key
}
