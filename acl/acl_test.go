package acl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func cats(names ...string) Category {
	var c Category
	for _, n := range names {
		c |= CategoryByName(n)
	}
	return c
}

// testUniverse is a small command table.
func testUniverse() *Universe {
	return NewUniverse([]CommandInfo{
		{Name: "get", Categories: cats("read", "string", "fast")},
		{Name: "set", Categories: cats("write", "string", "slow")},
		{Name: "select", Categories: cats("fast", "connection")},
		{Name: "auth", Categories: cats("fast", "connection"), NoAuth: true},
		{Name: "config", Categories: cats("slow")},
		{Name: "config|get", Categories: cats("admin", "slow", "dangerous")},
		{Name: "config|set", Categories: cats("admin", "slow", "dangerous")},
		{Name: "publish", Categories: cats("pubsub", "fast")},
		{Name: "subscribe", Categories: cats("pubsub", "slow")},
	})
}

func TestSetUserAndDescribe(t *testing.T) {
	tests := []struct {
		ops  string
		want string // ACL LIST line, or "ERR text"
	}{
		{"", "user u off resetchannels -@all"},
		{"on nopass ~* &* +@all", "user u on nopass ~* &* +@all"},
		{"on >pass ~foo* +get", "user u on #d74ff0ee8da3b9806b18c877dbf29bbde50b5bd8e4dad7a3a725000feb82e8f1 ~foo* resetchannels -@all +@read"},
		{"+@all -set", "user u off resetchannels +@all -@write"},
		{"+@all -config|get", "user u off resetchannels +@all -config|get"},
		{"+get +select", "user u off resetchannels -@all +@read +select"},
		{"+@string", "user u off resetchannels -@all +@string"},
		{"+select|0 +select|1", "user u off resetchannels -@all +select|0 +select|1"},
		{"+config|get", "user u off resetchannels -@all +config|get"},
		{"%R~r* %W~w* %RW~rw* ~rw*", "user u off %R~r* %W~w* ~rw* resetchannels -@all"},
		{"&chan allchannels", "user u off &* -@all"},
		{"reset", "user u off sanitize-payload resetchannels -@all"},
		{"(~x +get) (+set)", "user u off resetchannels -@all (~x resetchannels -@all +@read) (resetchannels -@all +@write)"},
		{"(~x +get) clearselectors", "user u off resetchannels -@all"},
		{"~* ~foo", "ERR Error in ACL SETUSER modifier '~foo': Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns"},
		{"&* &foo", "ERR Error in ACL SETUSER modifier '&foo': Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels"},
		{"+nosuch", "ERR Error in ACL SETUSER modifier '+nosuch': Unknown command or category name in ACL"},
		{"+@nosuch", "ERR Error in ACL SETUSER modifier '+@nosuch': Unknown command or category name in ACL"},
		{"bogus", "ERR Error in ACL SETUSER modifier 'bogus': Syntax error"},
		{"%X~x", "ERR Error in ACL SETUSER modifier '%X~x': Syntax error"},
		{"%~x", "ERR Error in ACL SETUSER modifier '%~x': Syntax error"},
		{"%", "ERR Error in ACL SETUSER modifier '%': Syntax error"},
		{"%R", "user u off %R~ resetchannels -@all"},
		{"+get|", "ERR Error in ACL SETUSER modifier '+get|': Syntax error"},
		{"+config|get|x", "ERR Error in ACL SETUSER modifier '+config|get|x': Allowing first-arg of a subcommand is not supported"},
		{"#abc", "ERR Error in ACL SETUSER modifier '#abc': The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters"},
		{"<nope", "ERR Error in ACL SETUSER modifier '<nope': The password you are trying to remove from the user does not exist"},
		{"(~x +get", "ERR Unmatched parenthesis in acl selector starting at '(~x'."},
		{"(on)", "ERR Error in ACL SETUSER modifier '(on)': Syntax error"},
	}
	for _, tt := range tests {
		r := NewRegistry(testUniverse())
		var ops []string
		if tt.ops != "" {
			ops = strings.Split(tt.ops, " ")
		}
		_, _, err := r.SetUser("u", ops)
		got := ""
		if err != nil {
			got = "ERR " + err.Error()
		} else {
			got = r.List()[1]
		}
		if got != tt.want {
			t.Errorf("SETUSER u %s:\n got %q\nwant %q", tt.ops, got, tt.want)
		}
	}
}

func TestDefaultUser(t *testing.T) {
	r := NewRegistry(testUniverse())
	if got, want := r.List()[0], "user default on nopass ~* &* +@all"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if !r.Default().Rules().Unrestricted() {
		t.Error("default user is not unrestricted")
	}
	r.SetDefaultPassword("secret")
	if r.Authenticate([]byte("default"), []byte("nope")) != nil || r.Authenticate([]byte("default"), []byte("secret")) == nil {
		t.Error("requirepass not applied")
	}
}

func TestCheck(t *testing.T) {
	u := testUniverse()
	r := NewRegistry(u)
	if _, _, err := r.SetUser("u", strings.Split("on nopass +get +set +publish +subscribe %R~r* %W~w* &news.* +select|0", " ")); err != nil {
		t.Fatal(err)
	}
	rules := r.User("u").Rules()
	check := func(args string, keys []KeyRef, chans []ChannelRef) (Denial, int) {
		a := strings.Split(args, " ")
		var av [][]byte
		for _, s := range a {
			av = append(av, []byte(s))
		}
		return rules.Check(&Request{ID: u.ID(a[0]), Args: av, Keys: keys, Channels: chans})
	}
	tests := []struct {
		args  string
		keys  []KeyRef
		chans []ChannelRef
		want  Denial
		pos   int
	}{
		{"get r1", []KeyRef{{1, Read}}, nil, Allowed, 0},
		{"get w1", []KeyRef{{1, Read}}, nil, DeniedKey, 1},
		{"set w1 v", []KeyRef{{1, Write}}, nil, Allowed, 0},
		{"set r1 v", []KeyRef{{1, Write}}, nil, DeniedKey, 1},
		{"select 0", nil, nil, Allowed, 0},
		{"select 1", nil, nil, DeniedCommand, 0},
		{"auth x", nil, nil, Allowed, 0},
		{"publish news.a m", nil, []ChannelRef{{1, false}}, Allowed, 0},
		{"publish other m", nil, []ChannelRef{{1, false}}, DeniedChannel, 1},
		{"subscribe news.* x", nil, []ChannelRef{{1, true}, {2, true}}, DeniedChannel, 2},
	}
	for _, tt := range tests {
		if d, pos := check(tt.args, tt.keys, tt.chans); d != tt.want || pos != tt.pos {
			t.Errorf("%s: got %v %d, want %v %d", tt.args, d, pos, tt.want, tt.pos)
		}
	}
}

func TestLog(t *testing.T) {
	var l Log
	l.Add(LogEntry{Reason: DeniedCommand, Object: "get", Username: "u"}, 2)
	l.Add(LogEntry{Reason: DeniedCommand, Object: "set", Username: "u"}, 2)
	l.Add(LogEntry{Reason: DeniedCommand, Object: "get", Username: "u"}, 2)
	e := l.Entries(10)
	if len(e) != 2 || e[0].Object != "get" || e[0].Count != 2 || e[1].Object != "set" {
		t.Fatalf("entries: %+v", e)
	}
	l.Add(LogEntry{Reason: DeniedKey, Object: "k", Username: "u"}, 2)
	if e := l.Entries(10); len(e) != 2 || e[0].Object != "k" || e[1].Object != "get" {
		t.Fatalf("entries after trim: %+v", e)
	}
}

func TestFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "users.acl")
	r := NewRegistry(testUniverse())
	r.SetUser("alice", []string{"on", ">p", "~a*", "+get"})
	if err := r.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	r2 := NewRegistry(testUniverse())
	if _, err := r2.LoadFile(path, path); err != nil {
		t.Fatal(err)
	}
	if strings.Join(r2.List(), "\n") != strings.Join(r.List(), "\n") {
		t.Errorf("loaded %q, saved %q", r2.List(), r.List())
	}
	os.WriteFile(path, []byte("user bob on +nosuch\nfoo\n"), 0o644)
	_, err := r2.LoadFile(path, "users.acl")
	want := "users.acl:1: Error in applying operation '+nosuch': Unknown command or category name in ACL. users.acl:2 should start with user keyword followed by the username. WARNING: ACL errors detected, no change to the previously active ACL rules was performed"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	if r2.User("alice") == nil {
		t.Error("a failed load changed the users")
	}
}

func TestGenPass(t *testing.T) {
	for _, bits := range []int{1, 4, 5, 256, 4096} {
		if got := len(GenPass(bits)); got != (bits+3)/4 {
			t.Errorf("GenPass(%d) has %d digits", bits, got)
		}
	}
}

func TestRestricted(t *testing.T) {
	r := NewRegistry(testUniverse())
	if r.Restricted() {
		t.Fatal("a new registry is restricted")
	}
	r.SetUser("admin", []string{"on", "nopass", "~*", "&*", "+@all"})
	if r.Restricted() {
		t.Error("an unrestricted user made the registry restricted")
	}
	r.SetUser("u", []string{"on", "+get"})
	if !r.Restricted() {
		t.Error("a restricted user was not noticed")
	}
	r.Delete([]string{"u"})
	if r.Restricted() {
		t.Error("still restricted once the restricted user was deleted")
	}
	r.SetDefaultPassword("pw")
	if r.Restricted() {
		t.Error("a password restricts nothing")
	}
}
