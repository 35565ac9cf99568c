package server

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
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
// delete), and its loop goes on without it past a millisecond. Each call
// opens its own connection: Redis keeps a cache of them, which only saves
// the connect.

func migrateCommands() []*Command {
	return []*Command{
		{Name: "migrate", Arity: -6, Flags: Write, First: 3, Last: 3, Step: 1, Keys: migrateKeys, Handler: cmdMigrate},
	}
}

// migrateKeys finds MIGRATE's keys (migrateGetKeys): the key argument, or,
// when it is empty and KEYS is given, the arguments after KEYS.
func migrateKeys(args [][]byte) []int {
	if len(args) > 3 && len(args[3]) == 0 {
		for i := 6; i < len(args); i++ {
			if equalFold(args[i], "keys") {
				keys := make([]int, 0, len(args)-i-1)
				for j := i + 1; j < len(args); j++ {
					keys = append(keys, j)
				}
				return keys
			}
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
	type moved struct {
		key     []byte
		ttl     int64
		payload []byte
	}
	var keys []moved
	now := c.db.Now()
	for _, k := range args[first : first+n] {
		e := c.lookupRead(k)
		if e == nil {
			continue
		}
		v := entryValue(e)
		if v == nil {
			continue
		}
		var ttl int64
		if at := e.Expire(); at != 0 {
			if ttl = at - now; ttl < 0 {
				continue
			}
			ttl = max(ttl, 1)
		}
		keys = append(keys, moved{k, ttl, rdb.Dump(v, c.encodeOptions())})
	}
	if len(keys) == 0 {
		c.propagateNothing()
		c.w.Simple("NOKEY")
		return
	}
	var req []byte
	if pass != nil {
		if user != nil {
			req = aof.AppendCommand(req, [][]byte{[]byte("AUTH"), user, pass})
		} else {
			req = aof.AppendCommand(req, [][]byte{[]byte("AUTH"), pass})
		}
	}
	req = aof.AppendCommandStrings(req, "SELECT", strconv.FormatInt(db, 10))
	for _, k := range keys {
		cmd := [][]byte{[]byte("RESTORE"), k.key, strconv.AppendInt(nil, k.ttl, 10), k.payload}
		if replace {
			cmd = append(cmd, []byte("REPLACE"))
		}
		req = aof.AppendCommand(req, cmd)
	}
	d := time.Duration(timeout) * time.Millisecond
	addr := net.JoinHostPort(string(args[1]), string(args[2]))
	conn, err := net.DialTimeout("tcp", addr, d)
	if err != nil {
		// Redis connects without blocking: a refused connection shows
		// only when it writes.
		if errors.Is(err, syscall.ECONNREFUSED) {
			c.errorReply(fmt.Sprintf(errMigrateIO, "writing"))
		} else {
			c.errorReply(errMigrateConnect)
		}
		return
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(d))
	if _, err := conn.Write(req); err != nil {
		c.errorReply(fmt.Sprintf(errMigrateIO, "writing"))
		return
	}
	r := bufio.NewReader(conn)
	readLine := func() (string, bool) {
		conn.SetReadDeadline(time.Now().Add(d))
		line, err := r.ReadString('\n')
		return strings.TrimRight(line, "\r\n"), err == nil
	}
	var authReply, selectReply string
	if pass != nil {
		if authReply, ok = readLine(); !ok {
			c.errorReply(fmt.Sprintf(errMigrateIO, "reading"))
			return
		}
	}
	if selectReply, ok = readLine(); !ok {
		c.errorReply(fmt.Sprintf(errMigrateIO, "reading"))
		return
	}
	var deleted [][]byte
	targetErr := ""
	for _, k := range keys {
		reply, ok := readLine()
		if !ok {
			if targetErr == "" {
				targetErr = fmt.Sprintf(errMigrateIO, "reading")
			}
			break
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
