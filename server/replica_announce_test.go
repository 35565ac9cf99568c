package server

import (
	"net"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/difftest"
)

// TestReplicaAnnounceIP: a replica's replica-announce-ip is what its
// master's INFO and ROLE show; REPLCONF ip-address answers as Redis's.
func TestReplicaAnnounceIP(t *testing.T) {
	_, maddr := startServer(t, "--repl-diskless-sync-delay", "0")
	_, mport, _ := net.SplitHostPort(maddr)
	startServer(t, "--replicaof", "127.0.0.1", mport, "--replica-announce-ip", "10.1.2.3")
	m := difftest.Dial(t, maddr)
	waitFor(t, func() bool { return strings.Contains(m.Do("INFO", "replication"), "slave0:ip=10.1.2.3,") })
	if r := m.Do("ROLE"); !strings.Contains(r, "$8\r\n10.1.2.3\r\n") {
		t.Errorf("ROLE: %q", r)
	}
	p := newPair(t)
	p.Do("REPLCONF ip-address 192.168.0.1")
	p.DoArgs("REPLCONF", "ip-address", strings.Repeat("a", 300))
}
