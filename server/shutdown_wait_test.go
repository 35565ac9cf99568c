package server

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// fakeReplica attaches to master as a replica that reads its payload and
// then acknowledges nothing unless told (REPLCONF ACK on the returned
// connection).
func fakeReplica(t *testing.T, master string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", master)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	br := bufio.NewReader(conn)
	conn.Write(difftest.Encode("PSYNC", "?", "-1"))
	var size int
	for size == 0 {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(line, "$") {
			size, _ = strconv.Atoi(strings.TrimSpace(line[1:]))
		}
	}
	if _, err := io.CopyN(io.Discard, br, int64(size)); err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, br) // the stream, never acknowledged
	return conn
}

// TestShutdownWaitsForReplicas: SHUTDOWN with a replica behind blocks
// (shutdown-timeout) with INFO's shutdown_in_milliseconds and
// blocked_clients showing it; SHUTDOWN ABORT ends the wait with Redis's
// error to the waiting client and writes go on; the replica's
// acknowledgement of the master's offset lets the next SHUTDOWN finish.
func TestShutdownWaitsForReplicas(t *testing.T) {
	s, master := startServer(t, "--repl-diskless-sync", "no", "--shutdown-timeout", "30")
	m := difftest.Dial(t, master)
	rep := fakeReplica(t, master)
	m.Do("SET", "k", "v") // the replica is behind from now on
	sd := difftest.Dial(t, master)
	waiting := func() bool { return bhvField(m.Do("INFO", "server"), "shutdown_in_milliseconds") != "" }
	sd.Send(difftest.Encode("SHUTDOWN", "NOSAVE"))
	waitFor(t, waiting)
	if n := bhvField(m.Do("INFO", "clients"), "blocked_clients"); n != "1" {
		t.Errorf("blocked_clients %s while SHUTDOWN waits", n)
	}
	if r := m.Do("SHUTDOWN", "ABORT"); r != "+OK\r\n" {
		t.Fatalf("SHUTDOWN ABORT: %q", r)
	}
	if r := sd.Read(); r != "-ERR Errors trying to SHUTDOWN. Check logs.\r\n" {
		t.Fatalf("the aborted SHUTDOWN: %q", r)
	}
	if r := m.Do("SET", "k2", "v"); r != "+OK\r\n" || waiting() {
		t.Fatalf("after the abort: SET %q, still waiting %v", r, waiting())
	}
	sd.Send(difftest.Encode("SHUTDOWN", "NOSAVE"))
	waitFor(t, waiting)
	off := bhvField(m.Do("INFO", "replication"), "master_repl_offset")
	select {
	case <-s.Done():
		t.Fatal("the server shut down with its replica behind")
	case <-time.After(100 * time.Millisecond):
	}
	rep.Write(difftest.Encode("REPLCONF", "ACK", off))
	select {
	case <-s.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the replica caught up and the server did not shut down")
	}
}

// TestMasterRestartPartialResync is integration/psync2-master-restart's
// case: a master's snapshot records its replication ID and offset; after
// a restart from it the master continues the stream under a new ID with
// the old one second, so its replica continues with a partial
// resynchronization — and keys that expired while it was down reach the
// replica as DELs.
func TestMasterRestartPartialResync(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--dir", dir, "--repl-diskless-sync-delay", "0", "--repl-ping-replica-period", "3600"}
	s1, master := startServer(t, args...)
	host, port, _ := net.SplitHostPort(master)
	_, replica := startServer(t, "--replicaof", host, port)
	m, r := difftest.Dial(t, master), difftest.Dial(t, replica)
	waitFor(t, func() bool { return bhvField(r.Do("INFO", "replication"), "master_link_status") == "up" })
	m.Do("SET", "k", "v")
	m.Do("SET", "short", "v", "PX", "300")
	offset := bhvField(m.Do("INFO", "replication"), "master_repl_offset")
	waitFor(t, func() bool { return bhvField(r.Do("INFO", "replication"), "master_repl_offset") == offset })
	replid := bhvField(m.Do("INFO", "replication"), "master_replid")
	m.Send(difftest.Encode("SHUTDOWN", "SAVE", "NOW"))
	<-s1.Done()
	time.Sleep(400 * time.Millisecond) // "short" expires while the master is down

	_, master2 := startServer(t, append(args, "--port", port)...)
	m2 := difftest.Dial(t, master2)
	info := m2.Do("INFO", "replication")
	if got := bhvField(info, "master_replid2"); got != replid {
		t.Fatalf("master_replid2 %s, want the replication ID before the restart %s", got, replid)
	}
	if got := bhvField(info, "second_repl_offset"); got != fmt.Sprint(mustAtoi(t, offset)+1) {
		t.Errorf("second_repl_offset %s after offset %s", got, offset)
	}
	waitFor(t, func() bool {
		return bhvField(m2.Do("INFO", "stats"), "sync_partial_ok") == "1" &&
			r.Do("EXISTS", "short") == ":0\r\n"
	})
	if got := bhvField(m2.Do("INFO", "stats"), "sync_full"); got != "0" {
		t.Errorf("sync_full %s: the replica resynchronized in full", got)
	}
	if got := r.Do("GET", "k"); got != "$1\r\nv\r\n" {
		t.Errorf("replica GET k: %q", got)
	}
}

func mustAtoi(t *testing.T, s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
