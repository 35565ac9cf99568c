package server

import (
	"fmt"
	"strings"
)

func connectionCommands() []*Command {
	return []*Command{
		{Name: "ping", Arity: -1, Flags: Fast, Handler: cmdPing},
		{Name: "echo", Arity: 2, Flags: Fast | Stale | Loading, Handler: cmdEcho},
		{Name: "quit", Arity: -1, Flags: Fast | NoScript | Stale | Loading | NoAuth | AllowBusy, Handler: cmdQuit},
		{Name: "select", Arity: 2, Flags: Fast | Stale | Loading, Handler: cmdSelect},
		{Name: "hello", Arity: -1, Flags: NoScript | Stale | Loading | Fast | NoAuth | AllowBusy, Handler: cmdHello},
		{Name: "auth", Arity: -2, Flags: NoScript | Stale | Loading | Fast | NoAuth | AllowBusy, Handler: cmdAuth},
		{Name: "reset", Arity: 1, Flags: NoScript | Stale | Loading | Fast | NoAuth | AllowBusy, Handler: cmdReset},
	}
}

// PING [message]
func cmdPing(c *Client, args [][]byte) {
	if len(args) > 2 {
		c.errorReply(fmt.Sprintf(errArity, "ping"))
		return
	}
	if len(args) == 2 {
		c.w.Bulk(args[1])
		return
	}
	c.w.Simple("PONG")
}

// ECHO message
func cmdEcho(c *Client, args [][]byte) { c.w.Bulk(args[1]) }

// QUIT
func cmdQuit(c *Client, args [][]byte) {
	c.w.OK()
	c.closeAfter = true
}

// SELECT index
func cmdSelect(c *Client, args [][]byte) {
	n, ok := c.intArg(args[1])
	if !ok {
		return
	}
	if n < 0 || n >= int64(len(c.srv.dbs)) {
		c.errorReply(errDBIndex)
		return
	}
	c.selectDB(int(n))
	c.w.OK()
}

// checkPassword reports whether user/pass authenticate against the default
// user (the only user until ACLs exist): with no requirepass any password
// is accepted for "default".
func (s *Server) checkPassword(user, pass []byte) bool {
	if !equalFold(user, "default") && string(user) != "default" {
		return false
	}
	want := s.requirepass.String()
	return want == "" || string(pass) == want
}

// AUTH [username] password
func cmdAuth(c *Client, args [][]byte) {
	if len(args) > 3 {
		c.errorReply(errSyntax)
		return
	}
	user, pass := []byte("default"), args[1]
	if len(args) == 2 {
		if c.srv.requirepass.String() == "" {
			c.errorReply(errAuthNoPass)
			return
		}
	} else {
		user, pass = args[1], args[2]
	}
	if string(user) != "default" || !c.srv.checkPassword(user, pass) {
		c.errorReply(errWrongPass)
		return
	}
	c.setAuthenticated(true)
	c.w.OK()
}

func (c *Client) setAuthenticated(ok bool) {
	c.authenticated = ok
	c.rd.Unauthenticated = !ok
}

// HELLO [protover [AUTH username password] [SETNAME clientname]]
func cmdHello(c *Client, args [][]byte) {
	var ver int64
	if len(args) >= 2 {
		v, ok := parseInt(args[1])
		if !ok {
			c.errorReply("ERR Protocol version is not an integer or out of range")
			return
		}
		if v < 2 || v > 3 {
			c.errorReply(errProtoVersion)
			return
		}
		ver = v
	}
	var user, pass, name []byte
	for j := 2; j < len(args); j++ {
		more := len(args) - 1 - j
		switch {
		case equalFold(args[j], "auth") && more >= 2:
			user, pass = args[j+1], args[j+2]
			j += 2
		case equalFold(args[j], "setname") && more >= 1:
			name = args[j+1]
			j++
		default:
			c.errorReply(fmt.Sprintf("ERR Syntax error in HELLO option '%s'", args[j]))
			return
		}
	}
	if user != nil {
		if string(user) != "default" || !c.srv.checkPassword(user, pass) {
			c.errorReply(errWrongPass)
			return
		}
		c.setAuthenticated(true)
	}
	if !c.authenticated {
		c.errorReply("NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time")
		return
	}
	if name != nil && !c.setName(name) {
		return
	}
	if ver != 0 {
		c.w.Proto = int(ver)
	}
	c.w.Map(7)
	c.w.BulkString("server")
	c.w.BulkString("redis")
	c.w.BulkString("version")
	c.w.BulkString(RedisVersion)
	c.w.BulkString("proto")
	c.w.Int(int64(c.w.Proto))
	c.w.BulkString("id")
	c.w.Int(int64(c.id))
	c.w.BulkString("mode")
	c.w.BulkString("standalone")
	c.w.BulkString("role")
	c.w.BulkString("master")
	c.w.BulkString("modules")
	c.w.Array(0)
}

// setName validates and sets the client name, replying with Redis's error
// when it contains spaces or special characters. An empty name clears it.
func (c *Client) setName(name []byte) bool {
	for _, ch := range name {
		if ch < '!' || ch > '~' {
			c.errorReply(errInvalidClientName)
			return false
		}
	}
	c.mu.Lock()
	c.mu.name = string(name)
	c.mu.Unlock()
	return true
}

// RESET
func cmdReset(c *Client, args [][]byte) {
	c.w.Proto = 2
	c.selectDB(0)
	c.replyMode = replyOn
	c.noEvict, c.noTouch = false, false
	if c.monitor {
		c.srv.stopMonitor(c)
	}
	c.setAuthenticated(c.srv.requirepass.String() == "")
	c.w.Simple("RESET")
}

var _ = strings.ToUpper
