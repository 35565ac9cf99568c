package server

import (
	"bufio"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// TestSharedReplicationBuffer runs integration/replication-buffer's
// scenario on a real redis-server and on HotKV: the replication backlog
// and the replicas' output are one shared buffer (Redis 7's
// replBufBlock list). Two replicas waiting for their payload pin the
// stream written meanwhile: the backlog outgrows repl-backlog-size, and a
// third replica may continue from anywhere in it; the buffer counts once
// however many replicas pin it; it shrinks once none does; and a replica
// that waits for its payload counts the blocks it pins against
// client-output-buffer-limit.
func TestSharedReplicationBuffer(t *testing.T) {
	for _, srv := range []struct {
		name string
		addr func() string
	}{
		{"redis", func() string { return difftest.StartRedis(t) }},
		{"hotkv", func() string { _, a := startServer(t); return a }},
	} {
		t.Run(srv.name, func(t *testing.T) { sharedBufferScenario(t, srv.addr()) })
	}
}

func sharedBufferScenario(t *testing.T, addr string) {
	m := difftest.Dial(t, addr)
	info := func(field string) int64 {
		t.Helper()
		n, err := strconv.ParseInt(between(m.Do("INFO", "all"), field+":", "\r\n"), 10, 64)
		if err != nil {
			t.Fatalf("INFO %s: %v", field, err)
		}
		return n
	}
	waitReplicas := func(n int64) {
		t.Helper()
		waitFor(t, func() bool { return info("connected_slaves") == n })
	}
	for _, c := range [][2]string{{"repl-backlog-size", "16384"}, {"repl-diskless-sync", "no"},
		{"client-output-buffer-limit", "replica 0 0 0"}} {
		if got := m.Do("CONFIG", "SET", c[0], c[1]); got != "+OK\r\n" {
			t.Fatalf("CONFIG SET %s: %q", c, got)
		}
	}
	for i := range 10 {
		m.Do("SET", "pre"+strconv.Itoa(i), "v")
	}
	m.Do("CONFIG", "SET", "rdb-key-save-delay", "1000000") // the payloads take 10 s
	replica := func(cmd string) (net.Conn, *bufio.Reader) {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		conn.Write([]byte(cmd + "\r\n"))
		return conn, bufio.NewReader(conn)
	}
	r1, _ := replica("SYNC")
	waitReplicas(1)
	r2, _ := replica("SYNC")
	waitReplicas(2)
	if info("rdb_bgsave_in_progress") != 1 {
		t.Fatal("no payload in progress")
	}
	replID := between(m.Do("INFO", "replication"), "master_replid:", "\r\n")
	from := info("master_repl_offset") + 1

	value := strings.Repeat("x", 1024)
	for i := range 1024 {
		m.Do("SET", "key"+strconv.Itoa(i), value)
	}
	if h := info("repl_backlog_histlen"); h < 1<<20 {
		t.Fatalf("repl_backlog_histlen %d: the waiting replicas' stream is not kept", h)
	}
	total := info("mem_total_replication_buffers")
	if total < 1<<20 || total > 3<<19 {
		t.Fatalf("mem_total_replication_buffers %d for 1MB pinned by two replicas", total)
	}

	// A replica continues from before the 16kB of repl-backlog-size.
	r3, rd3 := replica("PSYNC " + replID + " " + strconv.FormatInt(from, 10))
	r3.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := rd3.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "+CONTINUE") {
		t.Fatalf("PSYNC from offset %d: %q, %v", from, line, err)
	}
	head := make([]byte, 64)
	if _, err := io.ReadFull(rd3, head); err != nil || !strings.Contains(string(head), "key0") {
		t.Fatalf("the stream from offset %d starts %q (%v)", from, head, err)
	}
	waitReplicas(3)
	r3.Close()
	waitReplicas(2)

	// One of two replicas pinning the buffer leaves: it stays.
	r1.Close()
	waitReplicas(1)
	if got := info("mem_total_replication_buffers"); got != total {
		t.Fatalf("mem_total_replication_buffers %d after one replica left, was %d", got, total)
	}

	// The one waiting for its payload passes its output limit with the
	// blocks it pins, and goes; the buffer shrinks.
	m.Do("CONFIG", "SET", "client-output-buffer-limit", "replica 128k 0 0")
	m.Do("SET", "big", strings.Repeat("A", 64<<10))
	waitReplicas(0)
	_ = r2
	if got := info("mem_clients_slaves"); got != 0 {
		t.Fatalf("mem_clients_slaves %d with no replica", got)
	}
	waitFor(t, func() bool { return info("mem_total_replication_buffers") < total-(1<<20) })
	if h := info("repl_backlog_histlen"); h >= 1<<20 {
		t.Fatalf("repl_backlog_histlen %d once no replica pins it", h)
	}
	m.Do("CONFIG", "SET", "rdb-key-save-delay", "0")
}
