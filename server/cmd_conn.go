package server

import (
	"fmt"
	"math"
)

func connectionCommands() []*Command {
	return []*Command{
		{Name: "ping", Arity: -1, Flags: Fast | DenyMisconf | Subscribed, Handler: cmdPing},
		{Name: "echo", Arity: 2, Flags: Fast | Stale | Loading, Handler: cmdEcho},
		{Name: "quit", Arity: -1, Flags: Fast | NoScript | Stale | Loading | NoAuth | AllowBusy | TxControl | EndsTx | Subscribed, Handler: cmdQuit},
		{Name: "select", Arity: 2, Flags: Fast | Stale | Loading, Handler: cmdSelect},
		{Name: "hello", Arity: -1, Flags: NoScript | Stale | Loading | Fast | NoAuth | AllowBusy, Handler: cmdHello},
		{Name: "auth", Arity: -2, Flags: NoScript | Stale | Loading | Fast | NoAuth | AllowBusy, Handler: cmdAuth},
		{Name: "reset", Arity: 1, Flags: NoScript | Stale | Loading | Fast | NoAuth | AllowBusy | TxControl | EndsTx | Subscribed, Handler: cmdReset},
	}
}

// PING [message]
func cmdPing(c *Client, args [][]byte) {
	if len(args) > 2 {
		c.errorReply(fmt.Sprintf(errArity, "ping"))
		return
	}
	if c.w.Proto == 2 && c.subs.active {
		// In the subscribed context: a message-shaped reply.
		c.w.Array(2)
		c.w.BulkString("pong")
		if len(args) == 2 {
			c.w.Bulk(args[1])
		} else {
			c.w.BulkString("")
		}
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
	if n < math.MinInt32 || n > math.MaxInt32 { // getIntFromObjectOrReply
		c.errorReply(errIntRange32)
		return
	}
	if n < 0 || n >= int64(len(c.srv.dbs)) {
		c.errorReply(errDBIndex)
		return
	}
	c.selectDB(int(n))
	c.w.OK()
}

// AUTH [username] password
//
// Without a username it authenticates as the default user, which must
// have a password. A failure is logged in the ACL log.
func cmdAuth(c *Client, args [][]byte) {
	if len(args) > 3 {
		c.errorReply(errSyntax)
		return
	}
	user, pass := []byte("default"), args[1]
	if len(args) == 2 {
		if c.srv.acl.Default().Rules().NoPass() {
			c.errorReply(errAuthNoPass)
			return
		}
	} else {
		user, pass = args[1], args[2]
	}
	if !c.authenticate(args, user, pass) {
		c.errorReply(errWrongPass)
		return
	}
	c.w.OK()
}

func (c *Client) setAuthenticated(ok bool) {
	c.authenticated = ok
	c.rd.Unauthenticated = !ok
}

// setProto switches the reply protocol. It is written under c.mu because
// CLIENT LIST reads it from other connections.
func (c *Client) setProto(v int) {
	c.mu.Lock()
	c.w.Proto = v
	c.subs.proto.Store(int32(v))
	c.mu.Unlock()
}

// HELLO [protover [AUTH username password] [SETNAME clientname]]
//
// As in Redis 7.0 the options take effect as they are parsed: AUTH
// authenticates and SETNAME names the client even when a later option is
// wrong or the client turns out not to be authenticated.
func cmdHello(c *Client, args [][]byte) {
	var ver int64
	if len(args) >= 2 {
		v, ok := parseInt(args[1])
		if !ok {
			c.errorReply(errHelloProtoNotInt)
			return
		}
		if v < 2 || v > 3 {
			c.errorReply(errProtoVersion)
			return
		}
		ver = v
	}
	for j := 2; j < len(args); j++ {
		more := len(args) - 1 - j
		switch {
		case equalFold(args[j], "auth") && more >= 2:
			if !c.authenticate(args, args[j+1], args[j+2]) {
				c.errorReply(errWrongPass)
				return
			}
			j += 2
		case equalFold(args[j], "setname") && more >= 1:
			if !c.setName(args[j+1]) {
				return
			}
			j++
		default:
			c.errorReply(fmt.Sprintf(errHelloOption, cString(args[j])))
			return
		}
	}
	if !c.authenticated {
		c.errorReply(errHelloNoAuth)
		return
	}
	if ver != 0 {
		c.setProto(int(ver))
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
	modulesReply(c)
}

// cString is b as C's "%s" prints it: up to the first NUL byte.
func cString(b []byte) []byte {
	for i, ch := range b {
		if ch == 0 {
			return b[:i]
		}
	}
	return b
}

// validClientAttr reports whether b may be a client name or library
// attribute: printable ASCII without spaces ('!' to '~').
func validClientAttr(b []byte) bool {
	for _, ch := range b {
		if ch < '!' || ch > '~' {
			return false
		}
	}
	return true
}

// setName validates and sets the client name, replying with Redis's error
// when it contains spaces or special characters. An empty name clears it.
func (c *Client) setName(name []byte) bool {
	if !validClientAttr(name) {
		c.errorReply(errInvalidClientName)
		return false
	}
	c.mu.Lock()
	c.mu.name = string(name)
	c.mu.Unlock()
	return true
}

// RESET
//
// As Redis 7.0's clearClientConnectionState: leave MONITOR mode, select db
// 0, RESP2, back to the default user's authentication, no name, replies
// on. NO-EVICT survives (7.0 does not clear it); NO-TOUCH (7.2) is
// cleared, as 7.2 does.
func cmdReset(c *Client, args [][]byte) {
	c.discardTx()
	c.unsubscribeAll()
	c.srv.disableTracking(c)
	if c.monitor {
		c.srv.stopMonitor(c)
	}
	c.selectDB(0)
	c.mu.Lock()
	c.w.Proto = 2
	c.subs.proto.Store(2)
	c.mu.name = ""
	c.noTouch = false
	c.mu.Unlock()
	c.setDefaultAuth()
	c.replyMode = replyOn
	c.w.Simple("RESET")
}
