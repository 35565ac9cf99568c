package server

import (
	"bytes"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/hotkv/hotkv/config"
	"github.com/hotkv/hotkv/internal/difftest"
	"github.com/hotkv/hotkv/script"
)

// pipeConn is a transport that serves a fixed input again and again and
// discards output: it measures the command path without the network.
type pipeConn struct {
	in   []byte
	r    *bytes.Reader
	eofs int
}

func (p *pipeConn) Read(b []byte) (int, error) {
	n, _ := p.r.Read(b)
	if n == 0 {
		p.r.Reset(p.in)
		return 0, errWouldBlock
	}
	return n, nil
}
func (p *pipeConn) Write(b []byte) (int, error) { return len(b), nil }
func (p *pipeConn) Close() error                { return nil }
func (p *pipeConn) RemoteAddr() net.Addr        { return &net.TCPAddr{} }
func (p *pipeConn) LocalAddr() net.Addr         { return &net.TCPAddr{} }
func (p *pipeConn) Invoke(fn func())            { fn() }
func (p *pipeConn) HandedOff() bool             { return false }
func (p *pipeConn) Yield() bool                 { return false }
func (p *pipeConn) Loop() uint32                { return 0 }
func (p *pipeConn) Hold(b []byte)               {}
func (p *pipeConn) Flush()                      {}
func (p *pipeConn) Pending() int                { return 0 }
func (p *pipeConn) Fd() int                     { return -1 }

// benchPipeline runs b.N commands through serveInput in pipelines of 16.
func benchPipeline(b *testing.B, cmds ...[]string) {
	benchPipelineOn(b, nil, cmds...)
}

// benchPipelineOn is benchPipeline on a server prepare readied.
func benchPipelineOn(b *testing.B, prepare func(s *Server), cmds ...[]string) {
	cfg, err := config.Load("", nil)
	if err != nil {
		b.Fatal(err)
	}
	s := New(cfg)
	if prepare != nil {
		prepare(s)
	}
	var in []byte
	for i := 0; i < 16; i++ {
		in = append(in, difftest.Encode(cmds[i%len(cmds)]...)...)
	}
	pc := &pipeConn{in: in, r: bytes.NewReader(in)}
	c := s.newClient(pc)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := processCPU()
	for i := 0; i < b.N; i += 16 {
		s.serveInput(c)
	}
	reportCPU(b, cpu)
}

// processCPU is the CPU time the process used so far (user and system,
// all threads: the garbage collector's too).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the process's CPU time per operation since start
// (cpu-ns/op): on a loaded machine a steadier measure than the wall
// clock's ns/op, which counts the time the benchmark waited for a core.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
}

func BenchmarkPipelineGET(b *testing.B) {
	benchPipeline(b, []string{"SET", "key:000000000001", "xxx"}, []string{"GET", "key:000000000001"})
}

func BenchmarkPipelineSET(b *testing.B) {
	benchPipeline(b, []string{"SET", "key:000000000001", "xxx"})
}

func BenchmarkPipelineINCR(b *testing.B) {
	benchPipeline(b, []string{"INCR", "counter"})
}

// counterScript is the key-locked counter of the key-based-locking spec
// (make bench's evalsha_kl row); its SHA1 is counterSHA.
const counterScript = "#!lua flags=allow-key-locking\nlocal current = tonumber(redis.call('GET', KEYS[1]) or \"0\")\nif current >= tonumber(ARGV[1]) then\n  return 0\nend\nredis.call('INCR', KEYS[1])\nreturn 1"

// BenchmarkPipelineEVALSHA runs the counter by its SHA1, as make bench's
// evalsha_kl row does.
func BenchmarkPipelineEVALSHA(b *testing.B) {
	load := func(s *Server) {
		if _, err := s.scripting.engine.Load(counterScript); err != nil {
			b.Fatal(err)
		}
	}
	benchPipelineOn(b, load, []string{"EVALSHA", script.SHA1Hex(counterScript), "1", "user:1:quota", "1000000000"})
}

// BenchmarkPipelineGETACL is BenchmarkPipelineGET as a user with a key
// pattern (make bench's acl_get row): the cost of the permission check.
func BenchmarkPipelineGETACL(b *testing.B) {
	benchPipelineACL(b, []string{"GET", "key:000000000001"})
}

// BenchmarkPipelineSETACL is BenchmarkPipelineSET as a user with a key
// pattern (make bench's acl_set row).
func BenchmarkPipelineSETACL(b *testing.B) {
	benchPipelineACL(b, []string{"SET", "key:000000000001", "xxx"})
}

func benchPipelineACL(b *testing.B, cmd []string) {
	cfg, err := config.Load("", nil)
	if err != nil {
		b.Fatal(err)
	}
	s := New(cfg)
	u, _, err := s.acl.SetUser("bench", []string{"on", "nopass", "~key:*", "+@all"})
	if err != nil {
		b.Fatal(err)
	}
	var in []byte
	for i := 0; i < 16; i++ {
		in = append(in, difftest.Encode(cmd...)...)
	}
	pc := &pipeConn{in: in, r: bytes.NewReader(in)}
	c := s.newClient(pc)
	c.user.Store(u)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i += 16 {
		s.serveInput(c)
	}
}

// TestEvalSHAAllocs bounds the allocations of a pipelined EVALSHA of the
// counter script (BenchmarkPipelineEVALSHA's, in the global-lock and the
// key-locked variant): KEYS, ARGV and redis.call's replies come from the
// Lua state's blocks (gopher-lua patch 28), so that a call allocates
// nothing but its share of a block. Before, each call made 4.
func TestEvalSHAAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	const global = "local current = tonumber(redis.call('GET', KEYS[1]) or \"0\")\nif current >= tonumber(ARGV[1]) then\n  return 0\nend\nredis.call('INCR', KEYS[1])\nreturn 1"
	for _, body := range []string{global, counterScript} {
		cfg, err := config.Load("", nil)
		if err != nil {
			t.Fatal(err)
		}
		s := New(cfg)
		if _, err := s.scripting.engine.Load(body); err != nil {
			t.Fatal(err)
		}
		var in []byte
		for range 16 {
			in = append(in, difftest.Encode("EVALSHA", script.SHA1Hex(body), "1", "user:1:quota", "1000000000")...)
		}
		c := s.newClient(&pipeConn{in: in, r: bytes.NewReader(in)})
		s.serveInput(c) // the states, buffers and the key made
		if e := s.dbs[0].Get([]byte("user:1:quota")); e == nil || string(e.Str()) != "16" {
			t.Fatalf("the counter did not count 16 calls: %v", e)
		}
		if allocs := testing.AllocsPerRun(200, func() { s.serveInput(c) }) / 16; allocs > 0.5 {
			t.Errorf("%.2f allocations per EVALSHA, want at most 0.5", allocs)
		}
	}
}
