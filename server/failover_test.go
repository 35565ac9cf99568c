package server

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/config"
	"github.com/hotkv/hotkv/internal/difftest"
)

// TestFailoverErrorsDiff: FAILOVER's refusals on a master without
// replicas, against redis-server.
func TestFailoverErrorsDiff(t *testing.T) {
	p := newPair(t)
	p.Run(`
FAILOVER
FAILOVER ABORT
FAILOVER TIMEOUT 0
FAILOVER TIMEOUT -5
FAILOVER TIMEOUT abc
FAILOVER TO host notaport
FAILOVER TO 127.0.0.1 1
FAILOVER FORCE TIMEOUT 100
FAILOVER TIMEOUT 100 TIMEOUT 200
FAILOVER FORCE FORCE
FAILOVER BADARG
`)
}

// failoverNode is one server of a failover test.
type failoverNode struct {
	s    *Server
	c    *difftest.Conn
	port string
	log  string
}

func startFailoverNode(t *testing.T) *failoverNode {
	log := filepath.Join(t.TempDir(), "log")
	s, addr := startServer(t, "--repl-diskless-sync-delay", "0", "--logfile", log, "--enable-debug-command", "yes")
	_, port, _ := net.SplitHostPort(addr)
	return &failoverNode{s: s, c: difftest.Dial(t, addr), port: port, log: log}
}

// stall holds n's global lock for secs seconds (DEBUG SLEEP on a
// connection of its own): its replication link applies nothing meanwhile,
// as Redis's tests stop a node with SIGSTOP.
func (n *failoverNode) stall(t *testing.T, secs string) {
	c := difftest.Dial(t, "127.0.0.1:"+n.port)
	c.Send([]byte("*3\r\n$5\r\nDEBUG\r\n$5\r\nSLEEP\r\n$" + strconv.Itoa(len(secs)) + "\r\n" + secs + "\r\n"))
	time.Sleep(50 * time.Millisecond)
}

func (n *failoverNode) info(field string) string {
	return between(n.c.Do("INFO", "all"), field+":", "\r\n")
}

func (n *failoverNode) role() string {
	return strings.Split(n.c.Do("ROLE"), "\r\n")[2]
}

// TestFailover: FAILOVER TO a replica hands the master's role over
// without a full synchronization (the target continues the old master's
// stream, and the old master continues the target's), writes wait
// meanwhile and then go to the new master's replica as READONLY; FAILOVER
// to any replica picks one that caught up; a TIMEOUT without FORCE
// aborts, FORCE fails over anyway; FAILOVER ABORT cancels; a target that
// refuses the PSYNC leaves the old master a master.
func TestFailover(t *testing.T) {
	n0, n1, n2 := startFailoverNode(t), startFailoverNode(t), startFailoverNode(t)
	if got := n0.c.Do("FAILOVER", "TO", "127.0.0.1", n1.port); got != "-"+errFailoverNoReplicas+"\r\n" {
		t.Errorf("FAILOVER without replicas: %q", got)
	}
	for _, n := range []*failoverNode{n1, n2} {
		n.c.Do("REPLICAOF", "127.0.0.1", n0.port)
		linkUp(t, n.c)
	}
	if got := n1.c.Do("FAILOVER", "TO", "127.0.0.1", n1.port); got != "-"+errFailoverReplica+"\r\n" {
		t.Errorf("FAILOVER on a replica: %q", got)
	}
	if got := n0.c.Do("FAILOVER", "TO", "127.0.0.1", n1.port, "FORCE"); got != "-"+errFailoverForce+"\r\n" {
		t.Errorf("FAILOVER FORCE without TIMEOUT: %q", got)
	}
	if got := n0.c.Do("FAILOVER", "TO", "127.0.0.2", n1.port); got != "-"+errFailoverNotReplica+"\r\n" {
		t.Errorf("FAILOVER to no replica: %q", got)
	}
	for i := range 100 {
		n0.c.Do("SET", "k"+strconv.Itoa(i), "v")
	}
	partial, full := n1.info("sync_partial_ok"), n1.info("sync_full")

	// To a named replica.
	if got := n0.c.Do("FAILOVER", "TO", "127.0.0.1", n1.port); got != "+OK\r\n" {
		t.Fatalf("FAILOVER TO: %q", got)
	}
	waitFor(t, func() bool { return n0.info("master_failover_state") == "no-failover" })
	if n0.role() != "slave" || n1.role() != "master" {
		t.Fatalf("after the failover: node 0 is %s, node 1 %s", n0.role(), n1.role())
	}
	waitFor(t, func() bool { return n0.info("master_link_status") == "up" })
	if p, _ := strconv.Atoi(n1.info("sync_partial_ok")); strconv.Itoa(p-1) != partial || n1.info("sync_full") != full {
		t.Errorf("node 1's syncs: partial %s -> %s, full %s -> %s", partial, n1.info("sync_partial_ok"), full, n1.info("sync_full"))
	}
	n2.c.Do("REPLICAOF", "127.0.0.1", n1.port)
	linkUp(t, n2.c)
	n1.c.Do("SET", "after", "failover")
	for _, n := range []*failoverNode{n0, n2} {
		waitFor(t, func() bool { return n.c.Do("GET", "after") == "$8\r\nfailover\r\n" })
		if got, want := n.c.Do("DEBUG", "DIGEST"), n1.c.Do("DEBUG", "DIGEST"); got != want {
			t.Errorf("digest %q, the new master's %q", got, want)
		}
	}

	// To any replica: node 2 is the one in sync (node 0 is stalled).
	n0.stall(t, "2")
	n1.c.Do("SET", "case", "1")
	waitFor(t, func() bool { return n2.c.Do("GET", "case") == "$1\r\n1\r\n" })
	if got := n1.c.Do("FAILOVER"); got != "+OK\r\n" {
		t.Fatalf("FAILOVER: %q", got)
	}
	waitFor(t, func() bool { return n1.info("master_failover_state") == "no-failover" })
	if n1.role() != "slave" || n2.role() != "master" {
		t.Fatalf("after the failover to any replica: node 1 is %s, node 2 %s", n1.role(), n2.role())
	}
	n0.c.Do("REPLICAOF", "127.0.0.1", n2.port)
	linkUp(t, n0.c)
	linkUp(t, n1.c)

	// A target that never catches up: TIMEOUT aborts; writes waited.
	n0.stall(t, "3")
	n2.c.Do("SET", "case", "2")
	if got := n2.c.Do("FAILOVER", "TO", "127.0.0.1", n0.port, "TIMEOUT", "500"); got != "+OK\r\n" {
		t.Fatalf("FAILOVER TIMEOUT: %q", got)
	}
	if got := n2.info("master_failover_state"); got != "waiting-for-sync" {
		t.Errorf("master_failover_state while waiting: %s", got)
	}
	if got := n2.c.Do("REPLICAOF", "NO", "ONE"); got != "-"+errReplicaofFailingOver+"\r\n" {
		t.Errorf("REPLICAOF while failing over: %q", got)
	}
	w := difftest.Dial(t, "127.0.0.1:"+n2.port)
	start := time.Now()
	if got := w.Do("SET", "during", "wait"); got != "+OK\r\n" {
		t.Errorf("a write during the failover's wait: %q", got)
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("a write during the failover's wait took %v: it did not wait", d)
	}
	if got := n2.info("master_failover_state"); got != "no-failover" || n2.role() != "master" {
		t.Errorf("after the timeout: %s, %s", got, n2.role())
	}
	log, _ := os.ReadFile(n2.log)
	if !strings.Contains(string(log), "aborted: Replica never caught up before timeout") {
		t.Errorf("the log lacks the abort:\n%s", log)
	}

	// FAILOVER ABORT; CLIENT UNPAUSE does not end the failover's pause.
	if got := n2.c.Do("FAILOVER", "TO", "127.0.0.1", n0.port, "TIMEOUT", "60000"); got != "+OK\r\n" {
		t.Fatalf("FAILOVER: %q", got)
	}
	n2.c.Do("CLIENT", "UNPAUSE")
	rd := difftest.Dial(t, "127.0.0.1:"+n2.port)
	rd.Send([]byte("*3\r\n$3\r\nSET\r\n$3\r\nfoo\r\n$3\r\nbar\r\n"))
	time.Sleep(100 * time.Millisecond)
	if got := n2.c.Do("GET", "case"); got != "$1\r\n2\r\n" {
		t.Errorf("a read while failing over: %q", got)
	}
	if got := n2.c.Do("FAILOVER", "ABORT"); got != "+OK\r\n" {
		t.Errorf("FAILOVER ABORT: %q", got)
	}
	if got := rd.Read(); got != "+OK\r\n" {
		t.Errorf("the write postponed by the failover: %q", got)
	}
	if got := n2.c.Do("FAILOVER", "ABORT"); got != "-"+errNoFailover+"\r\n" {
		t.Errorf("FAILOVER ABORT with none: %q", got)
	}
	waitFor(t, func() bool { return n0.c.Do("GET", "foo") == "$3\r\nbar\r\n" })

	// A target that refuses PSYNC: the failover aborts.
	n0.c.Do("ACL", "SETUSER", "default", "-psync")
	if got := n2.c.Do("FAILOVER", "TO", "127.0.0.1", n0.port); got != "+OK\r\n" {
		t.Fatalf("FAILOVER: %q", got)
	}
	waitFor(t, func() bool { return n2.info("master_failover_state") == "no-failover" })
	waitFor(t, func() bool { return n2.role() == "master" })
	log, _ = os.ReadFile(n2.log)
	if !strings.Contains(string(log), "Failover target rejected psync request") {
		t.Errorf("the log lacks the rejection:\n%s", log)
	}
	n0.c.Do("ACL", "SETUSER", "default", "+psync")
	n2.c.Do("SET", "last", "1")
	for _, n := range []*failoverNode{n0, n1} {
		waitFor(t, func() bool { return n.c.Do("GET", "last") == "$1\r\n1\r\n" })
	}

	// FORCE fails over at the timeout even to a replica behind.
	n0.stall(t, "2")
	n2.c.Do("SET", "case", "3")
	if got := n2.c.Do("FAILOVER", "TO", "127.0.0.1", n0.port, "TIMEOUT", "100", "FORCE"); got != "+OK\r\n" {
		t.Fatalf("FAILOVER FORCE: %q", got)
	}
	waitFor(t, func() bool { return n2.info("master_failover_state") == "failover-in-progress" })
	waitFor(t, func() bool { return n2.info("master_failover_state") == "no-failover" })
	if n2.role() != "slave" || n0.role() != "master" {
		t.Errorf("after FORCE: node 2 is %s, node 0 %s", n2.role(), n0.role())
	}
	log, _ = os.ReadFile(n2.log)
	if !strings.Contains(string(log), "time out exceeded, failing over.") {
		t.Errorf("the log lacks the forced failover:\n%s", log)
	}
}

// TestBlockedClientsOnRoleChange: a master that becomes a replica ends its
// blocked commands with Redis's UNBLOCKED error and closes their
// connections (Redis's disconnectAllBlockedClients, issue #2473): the
// keys they wait on change only by the new master's stream from then on.
func TestBlockedClientsOnRoleChange(t *testing.T) {
	_, a := startServer(t, "--repl-diskless-sync-delay", "0")
	_, b := startServer(t)
	_, aport, _ := net.SplitHostPort(a)
	rd := difftest.Dial(t, b)
	rd.Send([]byte("*3\r\n$5\r\nBLPOP\r\n$3\r\nfoo\r\n$1\r\n0\r\n"))
	bc := difftest.Dial(t, b)
	waitFor(t, func() bool { return between(bc.Do("INFO", "clients"), "blocked_clients:", "\r\n") == "1" })
	bc.Do("REPLICAOF", "127.0.0.1", aport)
	if got := rd.Read(); got != "-"+errUnblockedRoleChange+"\r\n" {
		t.Errorf("the blocked BLPOP: %q", got)
	}
	if _, err := rd.ReadErr(5 * time.Second); err == nil || !strings.Contains(err.Error(), "EOF") {
		t.Errorf("the connection stayed open after the error: %v", err)
	}
	linkUp(t, bc)
	ac := difftest.Dial(t, a)
	ac.Do("RPUSH", "foo", "a", "b", "c")
	waitFor(t, func() bool { return bc.Do("LRANGE", "foo", "0", "-1") == "*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n" })
}

// TestReplicaofConfig: REPLICAOF's master is the "replicaof" parameter's
// value, as Redis's: CONFIG GET shows it (under both names), CONFIG
// REWRITE writes it, REPLICAOF NO ONE clears it.
func TestReplicaofConfig(t *testing.T) {
	_, a := startServer(t, "--repl-diskless-sync-delay", "0")
	_, aport, _ := net.SplitHostPort(a)
	dir := t.TempDir()
	conf := filepath.Join(dir, "redis.conf")
	os.WriteFile(conf, []byte("save \"\"\n"), 0o644)
	port := difftest.FreePort(t)
	cfg, err := config.Load(conf, []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir})
	if err != nil {
		t.Fatal(err)
	}
	_, addr := serveConfig(t, cfg)
	c := difftest.Dial(t, addr)
	c.Do("REPLICAOF", "127.0.0.1", aport)
	want := "127.0.0.1 " + aport
	for _, name := range []string{"replicaof", "slaveof"} {
		if got := c.Do("CONFIG", "GET", name); got != "*2\r\n$"+strconv.Itoa(len(name))+"\r\n"+name+"\r\n$"+strconv.Itoa(len(want))+"\r\n"+want+"\r\n" {
			t.Errorf("CONFIG GET %s: %q", name, got)
		}
	}
	c.Do("CONFIG", "REWRITE")
	if b, _ := os.ReadFile(conf); !strings.Contains(string(b), "replicaof "+want+"\n") {
		t.Errorf("the rewritten file lacks the master:\n%s", b)
	}
	c.Do("REPLICAOF", "NO", "ONE")
	if got := c.Do("CONFIG", "GET", "replicaof"); got != "*2\r\n$9\r\nreplicaof\r\n$0\r\n\r\n" {
		t.Errorf("CONFIG GET replicaof on a master: %q", got)
	}
}

// TestClientKillMaster: CLIENT KILL of a replica's master client (by the
// master's address, or TYPE master) drops the link, which reconnects and
// continues the stream with PSYNC, as Redis's.
func TestClientKillMaster(t *testing.T) {
	_, a := startServer(t, "--repl-diskless-sync-delay", "0")
	_, aport, _ := net.SplitHostPort(a)
	_, b := startServer(t)
	ac, bc := difftest.Dial(t, a), difftest.Dial(t, b)
	bc.Do("REPLICAOF", "127.0.0.1", aport)
	linkUp(t, bc)
	partial := func() string { return between(ac.Do("INFO", "stats"), "sync_partial_ok:", "\r\n") }
	if got := bc.Do("CLIENT", "KILL", "127.0.0.1:"+aport); got != "+OK\r\n" {
		t.Fatalf("CLIENT KILL of the master's address: %q", got)
	}
	waitFor(t, func() bool { return partial() == "1" })
	linkUp(t, bc)
	if got := bc.Do("CLIENT", "KILL", "TYPE", "master"); got != ":1\r\n" {
		t.Fatalf("CLIENT KILL TYPE master: %q", got)
	}
	waitFor(t, func() bool { return partial() == "2" })
	linkUp(t, bc)
	// CLIENT LIST shows it (flag M), and its ID kills it.
	list := bc.Do("CLIENT", "LIST", "TYPE", "master")
	if !strings.Contains(list, " flags=M ") || !strings.Contains(list, " addr=127.0.0.1:"+aport+" ") {
		t.Fatalf("CLIENT LIST TYPE master: %q", list)
	}
	if all := bc.Do("CLIENT", "LIST"); !strings.Contains(all, " flags=M ") {
		t.Errorf("CLIENT LIST lacks the master: %q", all)
	}
	mid := between(list, "id=", " ")
	if got := bc.Do("CLIENT", "KILL", "ID", mid); got != ":1\r\n" {
		t.Fatalf("CLIENT KILL ID of the master: %q", got)
	}
	waitFor(t, func() bool { return partial() == "3" })
	ac.Do("SET", "after", "kill")
	waitFor(t, func() bool { return bc.Do("GET", "after") == "$4\r\nkill\r\n" })
}

// TestFailoverInterop: FAILOVER between HotKV and redis-server, both
// ways: a redis-server master hands over to a HotKV replica (which gets
// PSYNC ... FAILOVER and becomes the master), then the HotKV master hands
// back to the redis-server, now its replica; each time without a full
// synchronization, and with the data equal.
func TestFailoverInterop(t *testing.T) {
	raddr := difftest.StartRedis(t, "--repl-diskless-sync-delay", "0")
	_, rport, _ := net.SplitHostPort(raddr)
	_, haddr := startServer(t, "--repl-diskless-sync-delay", "0")
	_, hport, _ := net.SplitHostPort(haddr)
	r, h := difftest.Dial(t, raddr), difftest.Dial(t, haddr)
	role := func(c *difftest.Conn) string { return strings.Split(c.Do("ROLE"), "\r\n")[2] }
	state := func(c *difftest.Conn) string {
		return between(c.Do("INFO", "replication"), "master_failover_state:", "\r\n")
	}
	stat := func(c *difftest.Conn, f string) string { return between(c.Do("INFO", "stats"), f+":", "\r\n") }

	h.Do("REPLICAOF", "127.0.0.1", rport)
	linkUp(t, h)
	waitFor(t, func() bool { return strings.Contains(r.Do("INFO", "replication"), "state=online") })
	r.Do("SET", "k", "1")
	r.Do("RPUSH", "l", "a", "b")
	// redis-server -> HotKV.
	hpartial := stat(h, "sync_partial_ok")
	if got := r.Do("FAILOVER", "TO", "127.0.0.1", hport); got != "+OK\r\n" {
		t.Fatalf("redis-server's FAILOVER: %q", got)
	}
	waitFor(t, func() bool { return state(r) == "no-failover" && role(h) == "master" && role(r) == "slave" })
	waitFor(t, func() bool { return strings.Contains(r.Do("INFO", "replication"), "master_link_status:up") })
	if stat(h, "sync_partial_ok") == hpartial || stat(h, "sync_full") != "0" {
		t.Errorf("HotKV as the new master: sync_partial_ok %s -> %s, sync_full %s", hpartial, stat(h, "sync_partial_ok"), stat(h, "sync_full"))
	}
	h.Do("INCR", "k")
	waitFor(t, func() bool { return r.Do("GET", "k") == "$1\r\n2\r\n" })
	if got, want := h.Do("DEBUG", "DIGEST"), r.Do("DEBUG", "DIGEST"); got != want {
		t.Errorf("digests after the first failover: HotKV %q, redis-server %q", got, want)
	}
	// HotKV -> redis-server.
	waitFor(t, func() bool { return strings.Contains(h.Do("INFO", "replication"), "state=online") })
	rpartial := stat(r, "sync_partial_ok")
	if got := h.Do("FAILOVER", "TO", "127.0.0.1", rport); got != "+OK\r\n" {
		t.Fatalf("HotKV's FAILOVER: %q", got)
	}
	waitFor(t, func() bool { return state(h) == "no-failover" && role(r) == "master" && role(h) == "slave" })
	linkUp(t, h)
	if stat(r, "sync_partial_ok") == rpartial {
		t.Errorf("redis-server as the new master: sync_partial_ok stayed %s", rpartial)
	}
	r.Do("INCR", "k")
	waitFor(t, func() bool { return h.Do("GET", "k") == "$1\r\n3\r\n" })
	if got, want := h.Do("DEBUG", "DIGEST"), r.Do("DEBUG", "DIGEST"); got != want {
		t.Errorf("digests after the second failover: HotKV %q, redis-server %q", got, want)
	}
}

// TestReplicaKeepsSubReplicasUntilSync: a replica that turns to another
// master keeps its own replicas until the new synchronization says they
// cannot go on (Redis's test "Don't disconnect with replicas before
// loading transferred RDB when full sync"): a full one that never
// finishes leaves them attached, and going back to the first master
// continues its stream for all of them. A master producing a payload
// shows it as a save in progress.
func TestReplicaKeepsSubReplicasUntilSync(t *testing.T) {
	_, m1 := startServer(t, "--repl-diskless-sync-delay", "0")
	_, m1port, _ := net.SplitHostPort(m1)
	m2s, m2 := startServer(t, "--repl-diskless-sync-delay", "0", "--repl-diskless-sync", "no", "--enable-debug-command", "yes")
	_, m2port, _ := net.SplitHostPort(m2)
	_, r := startServer(t, "--repl-diskless-sync-delay", "0")
	_, rport, _ := net.SplitHostPort(r)
	_, sub := startServer(t)
	c1, c2, rc, sc := difftest.Dial(t, m1), difftest.Dial(t, m2), difftest.Dial(t, r), difftest.Dial(t, sub)
	c1.Do("SET", "a", "b")
	rc.Do("REPLICAOF", "127.0.0.1", m1port)
	linkUp(t, rc)
	sc.Do("REPLICAOF", "127.0.0.1", rport)
	linkUp(t, sc)
	c2.Do("DEBUG", "POPULATE", "10", "master2", "10")
	c2.Do("CONFIG", "SET", "rdb-key-save-delay", "1000000") // 10 s to produce
	rc.Do("REPLICAOF", "127.0.0.1", m2port)
	waitFor(t, func() bool { return strings.Contains(c2.Do("INFO", "persistence"), "rdb_bgsave_in_progress:1\r\n") })
	m2s.Shutdown(t.Context())
	if got := between(rc.Do("INFO", "replication"), "connected_slaves:", "\r\n"); got != "1" {
		t.Errorf("the replica's own replicas: connected_slaves %s", got)
	}
	partial := between(c1.Do("INFO", "stats"), "sync_partial_ok:", "\r\n")
	rc.Do("REPLICAOF", "127.0.0.1", m1port)
	linkUp(t, rc)
	if got := between(c1.Do("INFO", "stats"), "sync_partial_ok:", "\r\n"); got == partial {
		t.Errorf("the first master's sync_partial_ok stayed %s", got)
	}
	c1.Do("SET", "after", "1")
	waitFor(t, func() bool { return sc.Do("GET", "after") == "$1\r\n1\r\n" })
	if got := between(rc.Do("INFO", "stats"), "sync_full:", "\r\n"); got != "1" {
		t.Errorf("the sub-replica synchronized again: sync_full %s", got)
	}
}

// TestReplicaConnectionCommands: on a replica's connection (after SYNC or
// PSYNC) a command that touches the dataset gets Redis's "Replica can't
// interact with the keyspace", and any reply disconnects it, logged as
// Redis logs it: the connection carries the stream.
func TestReplicaConnectionCommands(t *testing.T) {
	logfile := filepath.Join(t.TempDir(), "log")
	_, addr := startServer(t, "--logfile", logfile, "--repl-diskless-sync", "no")
	for _, tc := range []struct{ sync, cmd, name string }{
		{"*1\r\n$4\r\nSYNC\r\n", "*1\r\n$4\r\nPING\r\n", "ping"},
		{"*3\r\n$5\r\nPSYNC\r\n$13\r\nreplicationid\r\n$2\r\n-1\r\n", "*2\r\n$3\r\nGET\r\n$3\r\nfoo\r\n", "get"},
	} {
		r, conn := syncPayload(t, addr, tc.sync)
		conn.Write([]byte(tc.cmd))
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		for {
			if _, err := r.ReadByte(); err != nil {
				break // closed
			}
		}
		log, _ := os.ReadFile(logfile)
		if !strings.Contains(string(log), "Replica generated a reply to command '"+tc.name+"', disconnecting it: ") {
			t.Errorf("%s: the log lacks the disconnection:\n%s", tc.name, log)
		}
		if tc.name == "get" && (!strings.Contains(string(log), "Replica can't interact with the keyspace") ||
			!strings.Contains(string(log), "== CRITICAL == This master is sending an error to its replica")) {
			t.Errorf("get: the log lacks the refusal:\n%s", log)
		}
	}
	if got := difftest.Dial(t, addr).Do("PING"); got != "+PONG\r\n" {
		t.Errorf("PING after: %q", got)
	}
}

// TestPsyncWrongOffset: PSYNC with an offset that is no number gets
// Redis's error and log line, and nothing else happens.
func TestPsyncWrongOffset(t *testing.T) {
	logfile := filepath.Join(t.TempDir(), "log")
	_, addr := startServer(t, "--logfile", logfile)
	c := difftest.Dial(t, addr)
	if got := c.Do("PSYNC", "replicationid", "offset_str"); got != "-"+errNotInt+"\r\n" {
		t.Errorf("PSYNC: %q", got)
	}
	if log, _ := os.ReadFile(logfile); !strings.Contains(string(log), "asks for synchronization but with a wrong offset") {
		t.Errorf("the log lacks the wrong offset:\n%s", log)
	}
	if got := c.Do("PING"); got != "+PONG\r\n" {
		t.Errorf("PING after: %q", got)
	}
}
