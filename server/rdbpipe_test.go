package server

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// rawReplica is a replica driven by hand: it asked for a full
// synchronization (REPLCONF capa eof, PSYNC ? -1) and read up to the
// payload's "$EOF:<mark>" line, or "$<size>" line for a disk-based one.
type rawReplica struct {
	conn net.Conn
	r    *bufio.Reader
	mark string // the diskless payload's mark
	size int    // the disk-based payload's size
}

func startRawReplica(t *testing.T, addr string) *rawReplica {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	rr := &rawReplica{conn: conn, r: bufio.NewReader(conn)}
	conn.Write(difftest.Encode("REPLCONF", "capa", "eof"))
	if line, err := rr.r.ReadString('\n'); line != "+OK\r\n" {
		t.Fatalf("REPLCONF capa eof: %q %v", line, err)
	}
	conn.Write(difftest.Encode("PSYNC", "?", "-1"))
	for {
		line, err := rr.r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "", line == "+OK", strings.HasPrefix(line, "+FULLRESYNC "):
		case strings.HasPrefix(line, "$EOF:"):
			rr.mark = line[5:]
			return rr
		case strings.HasPrefix(line, "$"):
			rr.size, _ = strconv.Atoi(line[1:])
			return rr
		default:
			t.Fatalf("unexpected %q", line)
		}
	}
}

// readPayload reads the rest of a diskless payload, up to its mark.
func (rr *rawReplica) readPayload(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	buf := make([]byte, 1<<20)
	for !bytes.HasSuffix(b.Bytes(), []byte(rr.mark)) {
		n, err := rr.r.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			t.Fatalf("after %d bytes: %v", b.Len(), err)
		}
	}
	p := b.Bytes()[:b.Len()-len(rr.mark)]
	if !bytes.HasPrefix(p, []byte("REDIS")) {
		t.Fatalf("payload %q...", p[:min(len(p), 16)])
	}
	return p
}

// syncJob waits for the running synchronization's child and returns it.
func runningSyncJob(t *testing.T, srv *Server) *syncJob {
	t.Helper()
	var job *syncJob
	waitFor(t, func() bool {
		srv.syncJobs.mu.Lock()
		defer srv.syncJobs.mu.Unlock()
		for j := range srv.syncJobs.jobs {
			job = j
		}
		return job != nil
	})
	if ppid := parentOf(job.child.Pid()); ppid != os.Getpid() {
		t.Fatalf("child %d has parent %d, want %d", job.child.Pid(), ppid, os.Getpid())
	}
	return job
}

func parentOf(pid int) int {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

// waitTransferEnd waits for the synchronization's child to be collected:
// rdb_bgsave_in_progress back to 0, the rdb pipe closed.
func waitTransferEnd(t *testing.T, c *difftest.Conn, job *syncJob) {
	t.Helper()
	waitFor(t, func() bool {
		return strings.Contains(c.Do("INFO", "persistence"), "rdb_bgsave_in_progress:0\r\n")
	})
	select {
	case <-job.child.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the child did not exit")
	}
	if job.child.Output() != nil {
		waitFor(t, job.child.OutputClosed) // else the rdb pipe was left open
	}
}

func waitLog(t *testing.T, log *syncBuffer, line string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(log.String(), line) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in the log:\n%s", line, log.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// populate fills the master with n keys of size bytes, uncompressed: a
// payload bigger than the sockets' buffers.
func populate(c *difftest.Conn, n, size int) {
	c.Do("CONFIG", "SET", "rdbcompression", "no")
	c.Do("DEBUG", "POPULATE", strconv.Itoa(n), "key", strconv.Itoa(size))
}

// A diskless transfer goes through a child; a replica that drops in the
// middle leaves the others theirs ("diskless slow replicas drop during
// rdb pipe").
func TestDisklessReplicaDropsMidTransfer(t *testing.T) {
	srv, addr, log, _ := startLoggedServer(t, t.TempDir(), "--repl-diskless-sync", "yes",
		"--repl-diskless-sync-delay", "5", "--repl-diskless-sync-max-replicas", "2")
	c := difftest.Dial(t, addr)
	populate(c, 3000, 10000)
	slow := startRawReplica(t, addr)
	fast := startRawReplica(t, addr)
	job := runningSyncJob(t, srv)
	waitLog(t, log, "Background RDB transfer started by pid "+strconv.Itoa(job.child.Pid()))
	io.CopyN(io.Discard, slow.r, 1<<20)
	slow.conn.Close()
	fast.readPayload(t)
	waitTransferEnd(t, c, job)
	waitLog(t, log, "Diskless rdb transfer, done reading from pipe, 1 replicas still up.")
	waitLog(t, log, "Background RDB transfer terminated with success")
	waitFor(t, func() bool { return strings.Contains(c.Do("INFO", "replication"), "state=online") })
}

// Once every replica dropped, the child is killed.
func TestDisklessLastReplicaDropKillsChild(t *testing.T) {
	srv, addr, log, _ := startLoggedServer(t, t.TempDir(), "--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0")
	c := difftest.Dial(t, addr)
	populate(c, 3000, 10000)
	rr := startRawReplica(t, addr)
	job := runningSyncJob(t, srv)
	io.CopyN(io.Discard, rr.r, 1<<20)
	time.Sleep(100 * time.Millisecond) // the transfer waits for it
	rr.conn.Close()
	waitTransferEnd(t, c, job)
	waitLog(t, log, "Diskless rdb transfer, last replica dropped, killing fork child.")
	waitLog(t, log, "Background transfer terminated by signal 10")
}

// A child killed with kill -9 while the transfer waits for a replica that
// reads nothing is collected at once, its replica disconnected; the next
// synchronization works. FLUSHALL kills the child too.
func TestDisklessChildKilled(t *testing.T) {
	srv, addr, log, _ := startLoggedServer(t, t.TempDir(), "--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0")
	c := difftest.Dial(t, addr)
	populate(c, 3000, 10000)
	hung := startRawReplica(t, addr)
	job := runningSyncJob(t, srv)
	time.Sleep(300 * time.Millisecond) // the transfer waits for it
	syscall.Kill(job.child.Pid(), syscall.SIGKILL)
	waitTransferEnd(t, c, job)
	waitLog(t, log, "Background transfer terminated by signal 9")
	waitLog(t, log, "SYNC failed. BGSAVE child returned an error")
	if _, err := io.Copy(io.Discard, hung.r); err != nil {
		t.Fatalf("the replica's connection: %v", err) // closed by the master: EOF
	}

	again := startRawReplica(t, addr)
	job = runningSyncJob(t, srv)
	again.readPayload(t)
	waitTransferEnd(t, c, job)
	waitFor(t, func() bool { return strings.Contains(c.Do("INFO", "replication"), "state=online") })

	// FLUSHALL kills a running transfer's child; the replica's next
	// attempt gets the flushed dataset.
	c.Do("CONFIG", "SET", "rdb-key-save-delay", "100000")
	third := startRawReplica(t, addr)
	job = runningSyncJob(t, srv)
	c.Do("FLUSHALL")
	waitTransferEnd(t, c, job)
	waitLog(t, log, "Background transfer terminated by signal 10")
	if _, err := io.Copy(io.Discard, third.r); err != nil {
		t.Fatal(err)
	}
}

// A disk-based synchronization's child saves the snapshot file, which is
// sent once saved; it is killed once no replica waits for it, unless
// save points are configured (Redis's "Kill rdb child process if its
// dumping RDB is not useful").
func TestDiskSyncChild(t *testing.T) {
	dir := t.TempDir()
	srv, addr, log, _ := startLoggedServer(t, dir, "--repl-diskless-sync", "no")
	c := difftest.Dial(t, addr)
	c.Do("SET", "k", "v")
	rr := startRawReplica(t, addr)
	payload := make([]byte, rr.size)
	if _, err := io.ReadFull(rr.r, payload); err != nil || !bytes.HasPrefix(payload, []byte("REDIS")) {
		t.Fatalf("payload %q: %v", payload, err)
	}
	if file, err := os.ReadFile(srv.rdbPath()); err != nil || !bytes.Equal(file, payload) {
		t.Fatalf("the snapshot file is not the payload: %v", err)
	}
	waitLog(t, log, "Background saving terminated with success")

	c.Do("CONFIG", "SET", "rdb-key-save-delay", "1000000")
	for _, save := range []string{"", "900 1"} {
		c.Do("CONFIG", "SET", "save", save)
		r1, r2 := syncNoWait(t, addr), syncNoWait(t, addr)
		job := runningSyncJob(t, srv)
		r1.Close()
		time.Sleep(200 * time.Millisecond)
		if !strings.Contains(c.Do("INFO", "persistence"), "rdb_bgsave_in_progress:1\r\n") {
			t.Fatal("killed while a replica waits for it")
		}
		r2.Close()
		if save == "" {
			waitTransferEnd(t, c, job)
			continue
		}
		time.Sleep(300 * time.Millisecond)
		if !strings.Contains(c.Do("INFO", "persistence"), "rdb_bgsave_in_progress:1\r\n") {
			t.Fatal("killed with save points configured")
		}
		c.Do("CONFIG", "SET", "rdb-key-save-delay", "0")
		waitTransferEnd(t, c, job)
	}
}

// syncNoWait asks for a disk-based synchronization and returns the
// connection without reading anything.
func syncNoWait(t *testing.T, addr string) net.Conn {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.Write(difftest.Encode("PSYNC", "?", "-1"))
	return conn
}
