package server

import (
	"bufio"
	"crypto/tls"
	"errors"
	"fmt"
	"github.com/hotkv/hotkv/keyspace"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hotkv/hotkv/aof"
	"github.com/hotkv/hotkv/rdb"
)

// MIGRATE moves keys to another server as Redis 7.0's migrateCommand
// does: it sends them as RESTORE commands (DUMP payloads with their
// remaining time to live), then deletes the ones the target acknowledged
// (unless COPY). Like Redis it waits for the target; unlike Redis it
// stalls only the clients that need the migrated keys' tags (it holds
// their locks, so that nothing changes them between the DUMP and the
// delete), and its loop goes on without it past a millisecond. As Redis,
// it keeps its connections to targets for 10 seconds after their last use
// (migrateCache), and retries once on a fresh connection when a cached one
// fails before the target answered anything.

func migrateCommands() []*Command {
	return []*Command{
		{Name: "migrate", Arity: -6, Flags: Write, First: 3, Last: 3, Step: 1, Keys: migrateKeys, Handler: cmdMigrate},
	}
}

// migrateKeys finds MIGRATE's keys (migrateGetKeys): the key argument, or,
// when it is empty and KEYS is given, the arguments after KEYS (AUTH's
// and AUTH2's arguments skipped: a password named KEYS is no keyword);
// none when KEYS comes with a key.
func migrateKeys(args [][]byte) []int {
	for i := 6; i < len(args); i++ {
		switch {
		case equalFold(args[i], "keys"):
			if len(args[3]) > 0 {
				return nil // an error: KEYS with a key
			}
			keys := make([]int, 0, len(args)-i-1)
			for j := i + 1; j < len(args); j++ {
				keys = append(keys, j)
			}
			return keys
		case equalFold(args[i], "auth"):
			i++ // its password
		case equalFold(args[i], "auth2"):
			i += 2 // its username and password
		}
	}
	if len(args) > 3 {
		return positions[3:4:4]
	}
	return nil
}

// MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE] [AUTH password] [AUTH2 username password] [KEYS key [key ...]]
func cmdMigrate(c *Client, args [][]byte) {
	var copyKeys, replace bool
	var user, pass []byte
	first, n := 3, 1
	for j := 6; j < len(args); j++ {
		more := len(args) - 1 - j
		switch a := args[j]; {
		case equalFold(a, "copy"):
			copyKeys = true
		case equalFold(a, "replace"):
			replace = true
		case equalFold(a, "auth") && more >= 1:
			j++
			pass = args[j]
		case equalFold(a, "auth2") && more >= 2:
			user, pass = args[j+1], args[j+2]
			j += 2
		case equalFold(a, "keys"):
			if len(args[3]) != 0 {
				c.errorReply(errMigrateKeysNotEmpty)
				return
			}
			first, n = j+1, len(args)-j-1
			j = len(args)
		default:
			c.errorReply(errSyntax)
			return
		}
	}
	timeout, ok := c.intArg(args[5])
	if !ok {
		return
	}
	db, ok := c.intArg(args[4])
	if !ok {
		return
	}
	if timeout <= 0 {
		timeout = 1000
	}
	// The keys that are here, with what RESTORE needs.
	var keys []migrated
	now, opts := c.db.Now(), c.encodeOptions()
	for _, k := range args[first : first+n] {
		e := c.lookupRead(k)
		if e == nil {
			continue
		}
		var payload []byte
		if e.Kind == keyspace.KindSuggest {
			payload = sugDump(sugOf(e), opts.Compress)
		} else if v := entryValue(e); v != nil {
			payload = rdb.Dump(v, opts)
		} else {
			continue
		}
		var ttl int64
		if at := e.Expire(); at != 0 {
			if ttl = at - now; ttl < 0 {
				continue
			}
			ttl = max(ttl, 1)
		}
		keys = append(keys, migrated{k, ttl, payload})
	}
	if len(keys) == 0 {
		c.dirty(0)
		c.w.Simple("NOKEY")
		return
	}
	d := time.Duration(timeout) * time.Millisecond
	addr := net.JoinHostPort(string(args[1]), string(args[2]))
	var ms *migrateSocket
	var authReply, selectReply, firstReply string
	for retry := true; ; retry = false {
		var errText string
		ms, errText = c.srv.migrates.get(c.srv.dialer(d), addr, c.srv.peerTLS(c.srv.cfg.Lookup("tls-cluster").Bool()))
		if ms == nil {
			c.errorReply(errText)
			return
		}
		sentSelect := ms.db != db
		req := migrateRequest(user, pass, db, sentSelect, replace, keys)
		ms.conn.SetDeadline(time.Now().Add(d))
		_, err := ms.conn.Write(req)
		if err == nil && pass != nil {
			authReply, err = ms.readLine(d)
		}
		if err == nil && sentSelect {
			selectReply, err = ms.readLine(d)
		}
		if err == nil {
			firstReply, err = ms.readLine(d)
		}
		if err == nil {
			break
		}
		// Nothing was done: the cached connection may have gone stale
		// (Redis retries when the first RESTORE got no answer).
		c.srv.migrates.drop(ms)
		if !retry || ms.fresh || errors.Is(err, os.ErrDeadlineExceeded) {
			what := "reading"
			if !ms.wrote {
				what = "writing"
			}
			c.errorReply(fmt.Sprintf(errMigrateIO, what))
			return
		}
	}
	var deleted [][]byte
	targetErr := ""
	socketErr := false
	for i, k := range keys {
		reply := firstReply
		if i > 0 {
			var err error
			if reply, err = ms.readLine(d); err != nil {
				socketErr = true
				break
			}
		}
		if strings.HasPrefix(authReply, "-") || strings.HasPrefix(selectReply, "-") || strings.HasPrefix(reply, "-") {
			if targetErr == "" {
				e := reply
				switch {
				case strings.HasPrefix(authReply, "-"):
					e = authReply
				case strings.HasPrefix(selectReply, "-"):
					e = selectReply
				}
				targetErr = errMigrateTarget + e[1:]
			}
			continue
		}
		if !copyKeys && c.db.Delete(k.key) {
			c.notify(evGeneric, "del", k.key)
			deleted = append(deleted, k.key)
		}
	}
	switch {
	case socketErr:
		c.srv.migrates.drop(ms)
		if targetErr == "" {
			targetErr = fmt.Sprintf(errMigrateIO, "reading")
		}
	case targetErr != "":
		ms.db = -1 // the target's database is not known any more
		c.srv.migrates.put(ms)
	default:
		ms.db = db
		c.srv.migrates.put(ms)
	}
	// Propagated as the DEL of the keys the target acknowledged.
	if len(deleted) > 0 {
		c.propagate(append([][]byte{argDEL}, deleted...)...)
	}
	c.dirty(len(deleted))
	if targetErr != "" {
		c.errorReply(targetErr)
		return
	}
	c.w.OK()
}

// migrateRequest encodes what MIGRATE sends: AUTH when a password is
// given, SELECT unless the connection is known to be in db already, then
// a RESTORE per key.
func migrateRequest(user, pass []byte, db int64, sel, replace bool, keys []migrated) []byte {
	var req []byte
	if pass != nil {
		auth := [][]byte{[]byte("AUTH"), pass}
		if user != nil {
			auth = [][]byte{[]byte("AUTH"), user, pass}
		}
		req = aof.AppendCommand(req, auth)
	}
	if sel {
		req = aof.AppendCommandStrings(req, "SELECT", strconv.FormatInt(db, 10))
	}
	for _, k := range keys {
		cmd := [][]byte{[]byte("RESTORE"), k.key, strconv.AppendInt(nil, k.ttl, 10), k.payload}
		if replace {
			cmd = append(cmd, []byte("REPLACE"))
		}
		req = aof.AppendCommand(req, cmd)
	}
	return req
}

// migrated is a key MIGRATE sends: its name, remaining time to live (0:
// none) and DUMP payload.
type migrated struct {
	key     []byte
	ttl     int64
	payload []byte
}

// migrateSocket is a connection to a MIGRATE target.
type migrateSocket struct {
	addr     string
	conn     net.Conn
	r        *bufio.Reader
	db       int64 // the database selected on the target; -1 unknown
	lastUsed time.Time
	fresh    bool // just connected: a failure is not a stale connection
	wrote    bool // a request was written on it
}

// readLine reads one reply line (MIGRATE's replies are all one line).
func (ms *migrateSocket) readLine(d time.Duration) (string, error) {
	ms.wrote = true
	ms.conn.SetReadDeadline(time.Now().Add(d))
	line, err := ms.r.ReadString('\n')
	return strings.TrimRight(line, "\r\n"), err
}

// Redis's MIGRATE_SOCKET_CACHE_ITEMS and MIGRATE_SOCKET_CACHE_TTL.
const (
	migrateCacheItems = 64
	migrateCacheTTL   = 10 * time.Second
)

// migrateCache keeps MIGRATE's connections, one per target, while they
// are idle; a connection in use is out of the cache, so that two MIGRATEs
// to one target never share one.
type migrateCache struct {
	mu    sync.Mutex
	socks map[string]*migrateSocket
	count atomic.Int64 // cached and in use (INFO's migrate_cached_sockets)
}

// get returns the cached connection to addr, taking it out of the cache,
// or a new one (over TLS with tlsCfg, as Redis with tls-cluster); nil and
// the error to reply when it cannot connect.
func (mc *migrateCache) get(d *net.Dialer, addr string, tlsCfg *tls.Config) (*migrateSocket, string) {
	timeout := d.Timeout
	mc.mu.Lock()
	ms := mc.socks[addr]
	delete(mc.socks, addr)
	mc.mu.Unlock()
	if ms != nil {
		ms.fresh, ms.wrote = false, false
		return ms, ""
	}
	conn, err := d.Dial("tcp", addr)
	if err != nil {
		// Redis connects without blocking: a refused connection shows
		// only when it writes.
		if errors.Is(err, syscall.ECONNREFUSED) {
			return nil, fmt.Sprintf(errMigrateIO, "writing")
		}
		return nil, errMigrateConnect
	}
	if tlsCfg != nil {
		if conn, err = clientHandshake(conn, tlsCfg, timeout); err != nil {
			return nil, errMigrateConnect
		}
	}
	mc.count.Add(1)
	return &migrateSocket{addr: addr, conn: conn, r: bufio.NewReader(conn), db: -1, fresh: true}, ""
}

// put caches ms again, closing the connection it replaces if another
// MIGRATE cached one meanwhile, and a random one past the cache's size.
func (mc *migrateCache) put(ms *migrateSocket) {
	ms.lastUsed = time.Now()
	ms.conn.SetDeadline(time.Time{})
	mc.mu.Lock()
	defer mc.mu.Unlock()
	if mc.socks == nil {
		mc.socks = make(map[string]*migrateSocket)
	}
	if old := mc.socks[ms.addr]; old != nil {
		mc.closeLocked(old)
	}
	for addr, other := range mc.socks {
		if len(mc.socks) < migrateCacheItems {
			break
		}
		delete(mc.socks, addr)
		mc.closeLocked(other)
	}
	mc.socks[ms.addr] = ms
}

// drop closes ms, which is out of the cache.
func (mc *migrateCache) drop(ms *migrateSocket) {
	ms.conn.Close()
	mc.count.Add(-1)
}

func (mc *migrateCache) closeLocked(ms *migrateSocket) {
	ms.conn.Close()
	mc.count.Add(-1)
}

// expire closes the connections idle for longer than 10 seconds (the
// cron, as Redis's migrateCloseTimedoutSockets).
func (mc *migrateCache) expire(now time.Time) {
	mc.mu.Lock()
	defer mc.mu.Unlock()
	for addr, ms := range mc.socks {
		if now.Sub(ms.lastUsed) > migrateCacheTTL {
			delete(mc.socks, addr)
			mc.closeLocked(ms)
		}
	}
}

// closeAll closes every cached connection (Shutdown).
func (mc *migrateCache) closeAll() { mc.expire(time.Now().Add(24 * time.Hour)) }
