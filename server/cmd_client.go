package server

import (
	"fmt"
	"github.com/hotkv/hotkv/acl"
	"github.com/hotkv/hotkv/resp"
	"slices"
	"time"
)

// replySkipNext is set by CLIENT REPLY SKIP: the command itself has no
// reply, and the gate turns it into replySkip for the command after it
// (Redis's CLIENT_REPLY_SKIP_NEXT).
const replySkipNext = replySkip + 1

func clientCommands() []*Command {
	const conn = NoScript | Loading | Stale
	return []*Command{
		{Name: "client", Arity: -2, Sub: map[string]*Command{
			"id":       {Arity: 2, Flags: conn, Handler: cmdClientID},
			"setname":  {Arity: 3, Flags: conn, Handler: cmdClientSetName},
			"getname":  {Arity: 2, Flags: conn, Handler: cmdClientGetName},
			"list":     {Arity: -2, Flags: Admin | conn, Handler: cmdClientList},
			"info":     {Arity: 2, Flags: conn, Handler: cmdClientInfo},
			"kill":     {Arity: -3, Flags: Admin | conn, Handler: cmdClientKill},
			"unblock":  {Arity: -3, Flags: Admin | conn, Handler: cmdClientUnblock},
			"pause":    {Arity: -3, Flags: Admin | conn, Handler: cmdClientPause},
			"unpause":  {Arity: 2, Flags: Admin | conn, Handler: cmdClientUnpause},
			"reply":    {Arity: 3, Flags: conn, Handler: cmdClientReply},
			"setinfo":  {Arity: 4, Flags: conn, Handler: cmdClientSetInfo},
			"no-evict": {Arity: 3, Flags: Admin | conn, Handler: cmdClientNoEvict},
			"no-touch": {Arity: 3, Flags: conn, Handler: cmdClientNoTouch},
			"help":     {Arity: 2, Flags: Loading | Stale, Handler: cmdClientHelp},
			// Client-side caching: tracking.go.
			"tracking":     {Arity: -3, Flags: conn, Handler: cmdClientTracking},
			"caching":      {Arity: 3, Flags: conn, Handler: cmdClientCaching},
			"getredir":     {Arity: 2, Flags: conn, Handler: cmdClientGetRedir},
			"trackinginfo": {Arity: 2, Flags: conn, Handler: cmdClientTrackingInfo},
		}},
		// MONITOR belongs to Redis's "server" group; its handler is in
		// monitor.go.
		{Name: "monitor", Arity: 1, Flags: Admin | conn, Handler: cmdMonitor},
	}
}

// CLIENT ID
func cmdClientID(c *Client, args [][]byte) { c.w.Int(int64(c.id)) }

// CLIENT SETNAME connection-name
func cmdClientSetName(c *Client, args [][]byte) {
	if c.setName(args[2]) {
		c.w.OK()
	}
}

// CLIENT GETNAME
func cmdClientGetName(c *Client, args [][]byte) {
	if name := c.Name(); name != "" {
		c.w.BulkString(name)
	} else {
		c.w.Null()
	}
}

// Client types, as CLIENT LIST TYPE and CLIENT KILL TYPE name them. Every
// HotKV client is "normal" (MONITOR clients too, as in Redis): there are
// no replicas, masters or Pub/Sub clients yet.
const (
	clientTypeNormal = iota
	clientTypeReplica
	clientTypePubSub
	clientTypeMaster
)

// clientTypeByName is Redis's getClientTypeByName; -1 for an unknown name.
func clientTypeByName(b []byte) int {
	switch {
	case equalFold(b, "normal"):
		return clientTypeNormal
	case equalFold(b, "slave"), equalFold(b, "replica"):
		return clientTypeReplica
	case equalFold(b, "pubsub"):
		return clientTypePubSub
	case equalFold(b, "master"):
		return clientTypeMaster
	}
	return -1
}

func (c *Client) clientType() int {
	if c.replica.Load() != nil {
		return clientTypeReplica
	}
	if c.subscribed() {
		return clientTypePubSub
	}
	return clientTypeNormal
}

// CLIENT LIST [TYPE NORMAL|MASTER|REPLICA|PUBSUB] [ID client-id [client-id ...]]
//
// As in Redis 7.0, TYPE and ID do not combine: TYPE takes exactly one
// value, ID one or more.
func cmdClientList(c *Client, args [][]byte) {
	now := time.Now()
	var out []byte
	switch {
	case len(args) == 4 && equalFold(args[2], "type"):
		typ := clientTypeByName(args[3])
		if typ == -1 {
			c.errorReply(fmt.Sprintf(errUnknownClientType, cString(args[3])))
			return
		}
		for _, cl := range c.srv.clientsByID() {
			if cl.clientType() == typ {
				out = c.appendClientInfo(out, cl, args, now)
				out = append(out, '\n')
			}
		}
		if typ == clientTypeMaster {
			if line, _, ok := c.srv.appendMasterInfo(nil, now); ok {
				out = append(append(out, line...), '\n')
			}
		}
	case len(args) > 3 && equalFold(args[2], "id"):
		out = []byte{}
		for _, a := range args[3:] {
			id, ok := parseInt(a)
			if !ok {
				c.errorReply(errInvalidClientID)
				return
			}
			if cl := c.srv.clientByID(id); cl != nil {
				out = c.appendClientInfo(out, cl, args, now)
				out = append(out, '\n')
			} else if line, mid, ok := c.srv.appendMasterInfo(nil, now); ok && mid == uint64(id) {
				out = append(append(out, line...), '\n')
			}
		}
	case len(args) != 2:
		c.errorReply(errSyntax)
		return
	default:
		master, mid, hasMaster := c.srv.appendMasterInfo(nil, now)
		for _, cl := range c.srv.clientsByID() {
			if hasMaster && mid < cl.id { // in the order of the ids
				out = append(append(out, master...), '\n')
				hasMaster = false
			}
			out = c.appendClientInfo(out, cl, args, now)
			out = append(out, '\n')
		}
		if hasMaster {
			out = append(append(out, master...), '\n')
		}
	}
	c.w.Verbatim("txt", string(out))
}

// CLIENT INFO
func cmdClientInfo(c *Client, args [][]byte) {
	out := c.appendClientInfo(nil, c, args, time.Now())
	out = append(out, '\n')
	c.w.Verbatim("txt", string(out))
}

// clientsByID returns the live clients in connection order, as Redis lists
// them. Killed clients whose goroutine has not yet removed them are left
// out: Redis frees a killed client at once.
func (s *Server) clientsByID() []*Client {
	s.mu.Lock()
	out := make([]*Client, 0, len(s.mu.clients))
	for _, cl := range s.mu.clients {
		if !cl.killed.Load() {
			out = append(out, cl)
		}
	}
	s.mu.Unlock()
	slices.SortFunc(out, func(a, b *Client) int {
		switch {
		case a.id < b.id:
			return -1
		case a.id > b.id:
			return 1
		}
		return 0
	})
	return out
}

// clientByID returns the live client with the given id, or nil.
func (s *Server) clientByID(id int64) *Client {
	if id <= 0 {
		return nil
	}
	s.mu.Lock()
	cl := s.mu.clients[uint64(id)]
	s.mu.Unlock()
	if cl == nil || cl.killed.Load() {
		return nil
	}
	return cl
}

// clientBaseMem is the memory CLIENT LIST counts for the client structure
// with its fixed buffers, which HotKV does not measure.
const clientBaseMem = 1024

// appendClientInfo appends cl's CLIENT LIST line, with Redis 7.0.15's
// fields in its order. c is the client asking, args its command: for c
// itself the query buffer, argv and output figures are its own; for other
// clients, whose buffers belong to their goroutines, they read as an idle
// client's.
func (c *Client) appendClientInfo(dst []byte, cl *Client, args [][]byte, now time.Time) []byte {
	cl.mu.Lock()
	name, proto := cl.mu.name, cl.w.Proto
	monitor, noTouch := cl.monitor, cl.noTouch
	cl.mu.Unlock()

	m := cl.memory()
	multi := cl.multiCount.Load()
	if cl == c {
		// Its own buffers, as they are now.
		c.publishMultiMem()
		m.multi, multi = c.multiMem.Load(), c.multiCount.Load()
		qbuf, qbufFree := c.rd.QueryBuf()
		m.qbuf, m.qbufFree = int64(qbuf), int64(qbufFree)
		m.argv = 0
		for _, a := range args {
			m.argv += int64(len(a))
		}
		m.obl = int64(len(c.w.Buf))
	}
	rbp := cl.rbuf.peak.Load()

	flags := make([]byte, 0, 4)
	// In Redis's order (catClientInfoString).
	if monitor {
		flags = append(flags, 'O')
	}
	if cl.replica.Load() != nil {
		flags = append(flags, 'S')
	}
	if cl.subscribed() {
		flags = append(flags, 'P')
	}
	if cl.isBlocked.Load() {
		flags = append(flags, 'b')
	}
	flags = trackingFlags(flags, cl)
	if cl.noEvict.Load() {
		flags = append(flags, 'e')
	}
	if noTouch {
		flags = append(flags, 'T') // Redis 7.2
	}
	if len(flags) == 0 {
		flags = append(flags, 'N')
	}
	cmd := "NULL"
	if lc := cl.lastCmd.Load(); lc != nil {
		cmd = lc.fullName()
	}
	nowSec := now.Unix()

	dst = fmt.Appendf(dst, "id=%d addr=%s laddr=%s fd=%d name=%s age=%d idle=%d flags=%s db=%d",
		cl.id, peerString(cl.conn.RemoteAddr()), peerString(cl.conn.LocalAddr()), cl.conn.Fd(),
		name, nowSec-cl.created.Unix(), nowSec-cl.lastActive.Load()/1000, flags, cl.dbIndex.Load())
	dst = fmt.Appendf(dst, " sub=%d psub=%d ssub=%d multi=%d qbuf=%d qbuf-free=%d argv-mem=%d multi-mem=%d",
		cl.subs.counts[subChannel].Load(), cl.subs.counts[subPattern].Load(), cl.subs.counts[subShard].Load(), multi, m.qbuf, m.qbufFree, m.argv, m.multi)
	dst = fmt.Appendf(dst, " rbs=%d rbp=%d obl=%d oll=%d omem=%d tot-mem=%d events=r cmd=%s user=%s redir=%d resp=%d",
		m.rbs, rbp, m.obl, m.oll, m.omem, m.total(), cmd, cl.userName(), cl.trackingRedir(), proto)
	return dst
}

// CLIENT KILL ip:port
// CLIENT KILL [ID client-id] [TYPE NORMAL|MASTER|SLAVE|REPLICA|PUBSUB] [USER username] [ADDR ip:port] [LADDR ip:port] [SKIPME YES|NO] [...]
//
// The old form replies OK or "No such client" and may kill the caller; the
// filter form replies with the number killed and skips the caller unless
// SKIPME NO. The caller, when killed, is closed after its reply.
func cmdClientKill(c *Client, args [][]byte) {
	var addr, laddr []byte
	var id int64
	var user *acl.User
	typ := -1
	skipme := true
	if len(args) == 3 {
		addr = args[2]
		skipme = false
	} else {
		for i := 2; i < len(args); i += 2 {
			more := len(args) > i+1
			switch opt := args[i]; {
			case equalFold(opt, "id") && more:
				n, ok := parseInt(args[i+1])
				if !ok || n < 1 {
					c.errorReply(errClientIDPositive)
					return
				}
				id = n
			case equalFold(opt, "type") && more:
				typ = clientTypeByName(args[i+1])
				if typ == -1 {
					c.errorReply(fmt.Sprintf(errUnknownClientType, cString(args[i+1])))
					return
				}
			case equalFold(opt, "addr") && more:
				addr = args[i+1]
			case equalFold(opt, "laddr") && more:
				laddr = args[i+1]
			case equalFold(opt, "user") && more:
				if user = c.srv.acl.User(string(args[i+1])); user == nil {
					c.errorReply(fmt.Sprintf(errNoSuchUser, cString(args[i+1])))
					return
				}
			case equalFold(opt, "skipme") && more:
				switch {
				case equalFold(args[i+1], "yes"):
					skipme = true
				case equalFold(args[i+1], "no"):
					skipme = false
				default:
					c.errorReply(errSyntax)
					return
				}
			default:
				c.errorReply(errSyntax)
				return
			}
		}
	}
	killed := 0
	for _, cl := range c.srv.clientsByID() {
		switch {
		case addr != nil && peerString(cl.conn.RemoteAddr()) != string(cString(addr)),
			laddr != nil && peerString(cl.conn.LocalAddr()) != string(cString(laddr)),
			typ != -1 && cl.clientType() != typ,
			id != 0 && cl.id != uint64(id),
			user != nil && cl.user.Load() != user,
			cl == c && skipme:
			continue
		}
		if cl == c {
			c.closeAfter = true
		} else {
			cl.kill()
		}
		killed++
	}
	// A replica's master client is its link's connection: killing it
	// makes the link reconnect, as Redis's (which then continues the
	// stream with PSYNC).
	if l := c.srv.replicaLink(); l != nil && user == nil && (typ == -1 || typ == clientTypeMaster) &&
		(id == 0 || uint64(id) == c.srv.replica.master.id) {
		remote, local := l.Addrs()
		if remote != "" && (addr == nil || string(cString(addr)) == remote) && (laddr == nil || string(cString(laddr)) == local) &&
			(addr != nil || laddr != nil || typ == clientTypeMaster || id != 0) && l.Drop() {
			killed++
		}
	}
	if len(args) == 3 {
		if killed == 0 {
			c.errorReply(errNoSuchClient)
		} else {
			c.w.OK()
		}
		return
	}
	c.w.Int(int64(killed))
}

// CLIENT REPLY ON|OFF|SKIP
func cmdClientReply(c *Client, args [][]byte) {
	switch {
	case equalFold(args[2], "on"):
		c.replyMode = replyOn
		c.w.OK()
	case equalFold(args[2], "off"):
		c.replyMode = replyOff
	case equalFold(args[2], "skip"):
		if c.replyMode != replyOff {
			c.replyMode = replySkipNext
		}
	default:
		c.errorReply(errSyntax)
	}
}

// onOff parses ON|OFF (any case), replying a syntax error otherwise.
func (c *Client) onOff(b []byte) (on, ok bool) {
	switch {
	case equalFold(b, "on"):
		return true, true
	case equalFold(b, "off"):
		return false, true
	}
	c.errorReply(errSyntax)
	return false, false
}

// CLIENT NO-EVICT ON|OFF
//
// While on, the client is never evicted for maxmemory-clients (its
// memory still counts toward it, as in Redis).
func cmdClientNoEvict(c *Client, args [][]byte) {
	on, ok := c.onOff(args[2])
	if !ok {
		return
	}
	c.noEvict.Store(on)
	c.w.OK()
}

// CLIENT NO-TOUCH ON|OFF
//
// Redis 7.2: while on, the client's reads do not update the keys' access
// time (lookupRead honours c.noTouch).
func cmdClientNoTouch(c *Client, args [][]byte) {
	on, ok := c.onOff(args[2])
	if !ok {
		return
	}
	c.mu.Lock()
	c.noTouch = on
	c.mu.Unlock()
	c.w.OK()
}

// CLIENT SETINFO LIB-NAME libname | LIB-VER libver
//
// Redis 7.2 (client libraries send it on connect). The values are kept but
// not shown: CLIENT LIST keeps Redis 7.0's fields.
func cmdClientSetInfo(c *Client, args [][]byte) {
	attr, val := args[2], args[3]
	var dst *string
	switch {
	case equalFold(attr, "lib-name"):
		dst = &c.mu.libName
	case equalFold(attr, "lib-ver"):
		dst = &c.mu.libVer
	default:
		c.errorReply(fmt.Sprintf(errSetinfoOption, cString(attr)))
		return
	}
	if !validClientAttr(val) {
		c.errorReply(fmt.Sprintf(errSetinfoChars, cString(attr)))
		return
	}
	c.mu.Lock()
	*dst = string(val)
	c.mu.Unlock()
	c.w.OK()
}

// clientHelp is Redis 7.0.15's CLIENT HELP text, which lists subcommands
// HotKV implements all of, but for the 7.2 subcommands it also has
// (SETINFO, NO-TOUCH), which it does not list.
var clientHelp = []string{
	"CACHING (YES|NO)",
	"    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
	"GETREDIR",
	"    Return the client ID we are redirecting to when tracking is enabled.",
	"GETNAME",
	"    Return the name of the current connection.",
	"ID",
	"    Return the ID of the current connection.",
	"INFO",
	"    Return information about the current client connection.",
	"KILL <ip:port>",
	"    Kill connection made from <ip:port>.",
	"KILL <option> <value> [<option> <value> [...]]",
	"    Kill connections. Options are:",
	"    * ADDR (<ip:port>|<unixsocket>:0)",
	"      Kill connections made from the specified address",
	"    * LADDR (<ip:port>|<unixsocket>:0)",
	"      Kill connections made to specified local address",
	"    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
	"      Kill connections by type.",
	"    * USER <username>",
	"      Kill connections authenticated by <username>.",
	"    * SKIPME (YES|NO)",
	"      Skip killing current connection (default: yes).",
	"LIST [options ...]",
	"    Return information about client connections. Options:",
	"    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
	"      Return clients of specified type.",
	"UNPAUSE",
	"    Stop the current client pause, resuming traffic.",
	"PAUSE <timeout> [WRITE|ALL]",
	"    Suspend all, or just write, clients for <timeout> milliseconds.",
	"REPLY (ON|OFF|SKIP)",
	"    Control the replies sent to the current connection.",
	"SETNAME <name>",
	"    Assign the name <name> to the current connection.",
	"UNBLOCK <clientid> [TIMEOUT|ERROR]",
	"    Unblock the specified blocked client.",
	"TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
	"         [OPTIN] [OPTOUT] [NOLOOP]",
	"    Control server assisted client side caching.",
	"TRACKINGINFO",
	"    Report tracking status for the current connection.",
	"NO-EVICT (ON|OFF)",
	"    Protect current client connection from eviction.",
}

// CLIENT HELP
func cmdClientHelp(c *Client, args [][]byte) { c.replyHelpLines("CLIENT", clientHelp) }

// CLIENT UNBLOCK client-id [TIMEOUT | ERROR]
func cmdClientUnblock(c *Client, args [][]byte) {
	if len(args) > 4 {
		c.errorReply(fmtSubcommandArgs(args[1], "CLIENT"))
		return
	}
	// TIMEOUT: as if it timed out. The reason is checked before the ID,
	// as Redis does.
	reply := func(w *resp.Writer) { w.NullArray() }
	if len(args) == 4 {
		switch {
		case equalFold(args[3], "timeout"):
		case equalFold(args[3], "error"):
			reply = func(w *resp.Writer) {
				c.srv.countError(errUnblocked) // an error reply of the unblocked command's
				w.Error(errUnblocked)
			}
		default:
			c.errorReply(errUnblockReason)
			return
		}
	}
	id, ok := c.intArg(args[2])
	if !ok {
		return
	}
	s := c.srv
	s.mu.Lock()
	target := s.mu.clients[uint64(id)]
	s.mu.Unlock()
	if target == nil {
		c.w.Int(0)
		return
	}
	target.mu.Lock()
	w := target.mu.waiter
	target.mu.Unlock()
	if w == nil {
		c.w.Int(0)
		return
	}
	if len(args) == 3 || equalFold(args[3], "timeout") {
		reply = w.onTimeout
	}
	if s.unblock(w, reply) {
		c.w.Int(1)
	} else {
		c.w.Int(0)
	}
}
