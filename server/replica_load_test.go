package server

import (
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/difftest"
)

// TestReplicaSyncUnderLoad: replicas that synchronize (diskless and from
// a snapshot) while the master takes writes end with the master's
// dataset and offset: the stream that follows a diskless payload's end
// mark at once is not swallowed with the payload.
func TestReplicaSyncUnderLoad(t *testing.T) {
	for _, tc := range []struct {
		name string
		tls  bool
		args []string
	}{
		{"diskless", false, []string{"--repl-diskless-sync", "yes"}},
		{"disk", false, []string{"--repl-diskless-sync", "no"}},
		{"diskless-tls", true, []string{"--repl-diskless-sync", "yes", "--tls-replication", "yes"}},
	} {
		t.Run(tc.name, func(t *testing.T) { replicaSyncUnderLoad(t, tc.tls, tc.args) })
	}
}

func replicaSyncUnderLoad(t *testing.T, useTLS bool, extra []string) {
	f, args, cl := tlsSetup(t)
	args = append(args, "--repl-diskless-sync-delay", "0", "--enable-debug-command", "yes",
		"--tls-client-cert-file", f.ClientCert, "--tls-client-key-file", f.ClientKey)
	args = append(args, extra...)
	dial := func(s *Server) *difftest.Conn {
		if useTLS {
			return difftest.DialTLS(t, s.TLSAddr().String(), cl)
		}
		return difftest.Dial(t, s.Addr().String())
	}
	ms, _ := startTLSServer(t, args...)
	port := ms.Addr().(*net.TCPAddr).Port
	if useTLS {
		port = ms.TLSAddr().(*net.TCPAddr).Port
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		w := dial(ms)
		for i := 0; ; i++ { // every key new: a lost write shows in the dataset
			select {
			case <-stop:
				return
			default:
			}
			w.Do("SET", "k"+strconv.Itoa(i), strings.Repeat("v", i%300))
		}
	}()
	time.Sleep(100 * time.Millisecond)
	var reps []*difftest.Conn
	for range 2 {
		rs, _ := startTLSServer(t, append(args, "--replicaof", "127.0.0.1", strconv.Itoa(port))...)
		reps = append(reps, dial(rs))
	}
	for _, r := range reps {
		waitFor(t, func() bool { return strings.Contains(r.Do("INFO", "replication"), "master_link_status:up") })
	}
	time.Sleep(300 * time.Millisecond)
	close(stop)
	<-done
	m := dial(ms)
	offset := func(c *difftest.Conn) string {
		return between(c.Do("INFO", "replication"), "master_repl_offset:", "\r\n")
	}
	want, digest := offset(m), m.Do("DEBUG", "DIGEST")
	for i, r := range reps {
		deadline := time.Now().Add(10 * time.Second)
		for offset(r) != want {
			if time.Now().After(deadline) {
				t.Fatalf("replica %d at offset %s, master at %s", i, offset(r), want)
			}
			time.Sleep(10 * time.Millisecond)
		}
		if got := r.Do("DEBUG", "DIGEST"); got != digest {
			t.Errorf("replica %d: digest %q, master's %q (dbsize %s against %s)", i, got, digest, r.Do("DBSIZE"), m.Do("DBSIZE"))
		}
	}
}
