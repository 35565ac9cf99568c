package server

import (
	"time"

	"github.com/hotkv/hotkv/keyspace"
)

// Loads before locks: a command, a transaction or a script whose declared
// keys hold cold values parks its client, has the values read on another
// goroutine with no lock held, and runs again once they are read (the
// spec's "Dynamic Keys and Latency": declared keys are loaded before the
// locked section, and other commands on the same tags go on meanwhile).
//
// The way of a command with cold keys:
//
//  1. lockFor (exec.go) calls preload before it asks for the locks. For
//     each key that is cold (keyspace.DB.ColdID: the shard mutex only)
//     and not read yet, preload parks the client (c.parked, a parking
//     with loading set: no locks queued, not in the parked set busy
//     scripts search) and starts a goroutine that reads the records.
//  2. The goroutine hands the values to the client's loop
//     (Client.invoke), which keeps them (c.preloaded) and runs the
//     command again from the gate (resumeLoaded).
//  3. preload now finds every cold key read, and the locks are asked for
//     (acquire; the client may park again for them, keeping the values).
//     Once they are held, installPreloaded puts each value in its entry
//     if the entry under that key is still cold with the record that was
//     read (keyspace.DB.Install); otherwise nothing is installed, and a
//     value the command still needs is read under its lock (a key
//     demoted again meanwhile: counted, as a script's dynamic keys are).
//     A command that queued for its locks and finds, once they are
//     granted, a value gone cold meanwhile gives them back and reads it
//     first. A command reads once: on its next runs it goes on to its
//     locks whatever went cold again, so that it always ends.
//
// A key that only becomes known while a command runs (a script's dynamic
// key) is read under the locks held (keyspace's Get): under a tag lock
// it delays that tag, under the global lock everyone.

// preloaded is a cold value read before its command's locks.
type preloaded struct {
	db   *keyspace.DB
	key  []byte
	id   uint64
	kind keyspace.Kind
	str  []byte
	obj  any
	err  error
}

// keysOnly marks cmd as needing none of its keys' values (Command.KeysOnly).
func keysOnly(cmd *Command) *Command {
	cmd.KeysOnly = alwaysKeysOnly
	return cmd
}

func alwaysKeysOnly([][]byte) bool { return true }

// setKeysOnly is SET's KeysOnly: without GET it overwrites, or checks
// existence (NX, XX), and reads no value.
func setKeysOnly(args [][]byte) bool {
	for _, a := range args[3:] {
		if equalFold(a, "get") {
			return false
		}
	}
	return true
}

// preload reads the cold values of keys (in c's database) before the
// locks are asked for. It reports false when it parked c to read them:
// the caller returns at once, and the command runs again once they are
// read.
func (s *Server) preload(c *Client, keys [][]byte) bool {
	if !s.tiering() || c.conn == nil || len(keys) == 0 {
		return true
	}
	if len(c.preloaded) > 0 {
		// One round of reads per command: a value demoted again since
		// is read under the locks (counted), so that a key the demoter
		// keeps moving cannot keep a command from running.
		return true
	}
	var need []preloaded
	for _, k := range keys {
		kind, id, cold := c.db.ColdID(k)
		if !cold || c.hasPreloaded(c.db, id) {
			continue
		}
		need = append(need, preloaded{db: c.db, key: append([]byte(nil), k...), id: id, kind: kind})
	}
	if len(need) == 0 {
		return true
	}
	if lp := c.parked; lp != nil && lp.granted {
		// The command runs again with the locks it queued for, and a
		// value went cold while it waited (demoted before its request
		// reached the head of the queue): the locks go back, and it asks
		// for them again once the values are read.
		c.parked = nil
		lp.g.Unlock()
	}
	p := &parking{c: c, cmd: c.curCmd, args: copyArgs(c.curArgs), loading: true}
	c.parked = p
	t := &s.tier
	go func() {
		for i := range need {
			n := &need[i]
			start := time.Now()
			n.str, n.obj, n.err = t.read(n.kind, n.id)
			t.counted(time.Since(start).Nanoseconds())
		}
		c.invoke(func() { s.resumeLoaded(p, need) })
	}()
	return false
}

// hasPreloaded reports whether c holds the value of record id of db.
func (c *Client) hasPreloaded(db *keyspace.DB, id uint64) bool {
	for i := range c.preloaded {
		if c.preloaded[i].db == db && c.preloaded[i].id == id {
			return true
		}
	}
	return false
}

// resumeLoaded runs p's command again on its client's loop, now that the
// values it waited for are read, and goes on with the client's input.
func (s *Server) resumeLoaded(p *parking, got []preloaded) {
	c := p.c
	if c.parked != p {
		return
	}
	c.parked = nil
	if c.gone.Load() {
		return
	}
	c.preloaded = append(c.preloaded, got...)
	mark := len(c.w.Buf)
	s.call(c, p.cmd, p.args)
	if c.parked == nil {
		c.applyReplyMode(mark)
		c.preloaded = c.preloaded[:0] // the command is done with them
	}
	c.resume()
}

// installPreloaded puts the values read before the locks, which c now
// holds, into their entries, where they are still the cold values read.
func (s *Server) installPreloaded(c *Client) {
	for i := range c.preloaded {
		p := &c.preloaded[i]
		if p.err == nil {
			p.db.Install(p.key, p.id, p.str, p.obj)
		}
		*p = preloaded{}
	}
	c.preloaded = c.preloaded[:0]
}
