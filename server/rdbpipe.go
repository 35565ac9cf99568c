package server

import (
	"errors"
	"io"
	"sync"
	"time"

	"github.com/hotkv/hotkv/bgchild"
	"github.com/hotkv/hotkv/rdb"
	"github.com/hotkv/hotkv/replication"
)

// A diskless full synchronization goes through a child process, as Redis
// 7.0's rdbSaveToSlavesSockets: the parent encodes its copy-on-write
// snapshot into a bgchild.Sockets child, which sends the bytes back
// through its output pipe (the "rdb pipe"); the transfer's goroutine reads
// the pipe and writes each chunk to every replica of the transfer, in the
// "$EOF:<mark>" form. As in Redis:
//
//   - the pipe is read only as fast as the slowest replica takes it (a
//     replica's queue is kept under payloadQueueMax);
//   - a replica whose connection closed is dropped, and one whose queue
//     made no progress for repl-timeout seconds is disconnected
//     ("Disconnecting timedout replica (full sync)");
//   - once no replica is left the child is killed ("last replica
//     dropped, killing fork child");
//   - a child that dies (kill -9) ends the transfer at once, even while
//     the goroutine waits for a replica: its replicas are disconnected
//     ("SYNC failed. BGSAVE child returned an error");
//   - the child dies with the parent (bgchild's Pdeathsig), and FLUSHALL
//     or SHUTDOWN kill it (syncJobs).
//
// The disk-based synchronization's child (bgchild.RDB, writing the
// snapshot file) is a syncJob too.

// syncJob is a running full synchronization's child.
type syncJob struct {
	child *bgchild.Child
	kill  chan struct{} // closed to kill the child (feedChild)
	once  sync.Once
}

// stop kills the job's child.
func (j *syncJob) stop() { j.once.Do(func() { close(j.kill) }) }

// syncJobs are the running synchronizations' children.
type syncJobs struct {
	mu   sync.Mutex // a leaf
	jobs map[*syncJob]struct{}
}

// startSyncChild starts the child of a synchronization's payload, of
// kind k (Sockets: diskless; RDB: the snapshot file at target), and
// registers it.
func (s *Server) startSyncChild(k bgchild.Kind, dir, target string) (*syncJob, error) {
	ch, err := s.startChild(k, dir, target)
	if err != nil {
		return nil, err
	}
	j := &syncJob{child: ch, kill: make(chan struct{})}
	sj := &s.syncJobs
	sj.mu.Lock()
	if sj.jobs == nil {
		sj.jobs = map[*syncJob]struct{}{}
	}
	sj.jobs[j] = struct{}{}
	sj.mu.Unlock()
	return j, nil
}

// endSyncChild forgets j, whose child has exited.
func (s *Server) endSyncChild(j *syncJob) {
	sj := &s.syncJobs
	sj.mu.Lock()
	delete(sj.jobs, j)
	sj.mu.Unlock()
}

// killSyncChildren kills the synchronizations' children (FLUSHALL, as
// Redis's killRDBChild; a shutdown) and returns them.
func (s *Server) killSyncChildren() []*bgchild.Child {
	sj := &s.syncJobs
	sj.mu.Lock()
	defer sj.mu.Unlock()
	var out []*bgchild.Child
	for j := range sj.jobs {
		j.stop()
		out = append(out, j.child)
	}
	return out
}

// pipeReplica is a replica of a diskless transfer.
type pipeReplica struct {
	r        *replication.Replica
	c        *Client
	name     string
	mark     []byte    // its payload's end mark
	lastMem  int       // its queue after the last chunk or look
	progress time.Time // when its queue last drained some
	dropped  bool      // disconnected for a timeout
}

func (p *pipeReplica) alive() bool { return !p.dropped && !p.c.killed.Load() && !p.c.gone.Load() }

// rdbPipe is one diskless transfer: its child and its replicas.
type rdbPipe struct {
	s    *Server
	job  *syncJob
	reps []*pipeReplica
	stc  chan bgchild.Status // the child's status, once it exited
	st   *bgchild.Status
}

// kill kills the child before the pipe is closed: a child that sees the
// pipe close first and fails is reported killed all the same.
func (p *rdbPipe) kill() {
	p.job.stop()
	p.job.child.Kill()
}

// status returns the child's status once it has exited, else nil.
func (p *rdbPipe) status() *bgchild.Status {
	if p.st == nil {
		select {
		case st := <-p.stc:
			p.st = &st
		default:
		}
	}
	return p.st
}

// wait waits for the child's status.
func (p *rdbPipe) wait() bgchild.Status {
	if p.st == nil {
		st := <-p.stc
		p.st = &st
	}
	return *p.st
}

// payloadQueueMax is how much of a payload a replica's connection may
// have queued: the transfer waits for it to drain below it.
const payloadQueueMax = 8 << 20

// pipeChunk is how much is read from the rdb pipe at a time.
const pipeChunk = 256 << 10

// pipePayload runs the diskless transfer of snap to reps through job's
// child (bgchild.Sockets), as described above; it returns once the child
// has exited and every replica still there got its payload (and is
// online) or was disconnected.
func (s *Server) pipePayload(job *syncJob, snap *snapshot, opts rdb.EncodeOptions, reps []*pipeReplica) {
	defer s.endSyncChild(job)
	ch := job.child
	now := time.Now()
	for _, pr := range reps {
		pr.mark = s.repl.StartStream(pr.r)
		pr.progress = now
	}
	p := &rdbPipe{s: s, job: job, reps: reps, stc: make(chan bgchild.Status, 1)}
	go func() {
		p.stc <- s.feedChild(ch, job.kill, func(w io.Writer, stop <-chan struct{}) error {
			sn := *snap
			sn.kill = stop
			return s.encodeSnapshot(w, &sn, opts, false)
		})
	}()
	out := ch.Output()
	buf := make([]byte, pipeChunk)
	for {
		n, err := out.Read(buf)
		if n > 0 {
			up := p.send(buf[:n])
			if up < 0 {
				break // the child failed: its status says so
			}
			if up == 0 {
				s.warnf("Diskless rdb transfer, last replica dropped, killing fork child.")
				p.kill()
				break
			}
		}
		if errors.Is(err, io.EOF) {
			s.warnf("Diskless rdb transfer, done reading from pipe, %d replicas still up.", p.up())
			break
		}
		if err != nil {
			s.warnf("Diskless rdb transfer, read error sending DB to replicas: %v", err)
			for _, pr := range reps {
				pr.c.kill()
			}
			p.kill()
			break
		}
	}
	ch.CloseOutput() // a child still writing gets EPIPE
	st := p.wait()
	switch {
	case st.OK():
		s.logf("Background RDB transfer terminated with success")
	case st.Signal == 0:
		s.warnf("Background transfer error")
	default:
		s.warnf("Background transfer terminated by signal %d", int(st.Signal))
	}
	for _, pr := range reps {
		if !pr.alive() {
			continue
		}
		if !st.OK() {
			s.warnf("SYNC failed. BGSAVE child returned an error")
			pr.c.kill()
			continue
		}
		s.repl.FinishStream(pr.r, pr.mark)
		s.logf("Streamed RDB transfer with replica %s succeeded (socket). Waiting for REPLCONF ACK from slave to enable streaming", pr.name)
		s.replicaSynced(pr.c, pr.r, pr.name)
	}
}

// up counts the transfer's replicas still there.
func (p *rdbPipe) up() int {
	n := 0
	for _, pr := range p.reps {
		if pr.alive() {
			n++
		}
	}
	return n
}

// send queues b for each replica of the transfer still there, waiting
// while its queue is full, and returns how many are left; -1 when the
// child failed meanwhile (the transfer ends).
func (p *rdbPipe) send(b []byte) int {
	up := 0
	for _, pr := range p.reps {
		for pr.alive() {
			mem, _ := pr.c.ownOutput()
			now := time.Now()
			if mem < pr.lastMem || mem < payloadQueueMax {
				pr.progress = now
			}
			pr.lastMem = mem
			if mem < payloadQueueMax {
				break
			}
			// Redis's replicationCron: a replica that takes nothing
			// for repl-timeout seconds holds every other one up.
			if timeout := time.Duration(p.s.cfg.Lookup("repl-timeout").Int()) * time.Second; now.Sub(pr.progress) > timeout {
				p.s.warnf("Disconnecting timedout replica (full sync): %s", pr.name)
				pr.dropped = true
				pr.c.kill()
				break
			}
			if st := p.status(); st != nil && !st.OK() {
				return -1
			}
			time.Sleep(time.Millisecond)
		}
		if pr.alive() {
			pr.r.Send(b)
			pr.lastMem += len(b)
			up++
		}
	}
	return up
}
