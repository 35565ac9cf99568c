package server

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/hotkv/hotkv/config"
)

// The process classes of oom-score-adj-values, in its order.
const (
	oomMaster  = 0
	oomReplica = 1
	oomBgChild = 2 // the children of BGSAVE and AOF rewrites (bgjob.go)
)

// oomState is what setOOMScoreAdj remembers: whether the server changed the
// process's OOM score, and the score from before, to restore when
// oom-score-adj goes back to "no" (Redis keeps both in statics).
type oomState struct {
	mu       sync.Mutex
	path     string // /proc/self/oom_score_adj; tests point it at a file of their own
	adjusted bool
	base     int
}

// oomHooks applies oom-score-adj and oom-score-adj-values when CONFIG SET
// changes them (Redis's updateOOMScoreAdj): a failure vetoes the change.
func (s *Server) oomHooks(cfg *config.Config) {
	s.oom.path = "/proc/self/oom_score_adj"
	apply := func(*config.Param) error {
		if !s.setOOMScoreAdj(-1) {
			return errors.New(errOOMScoreAdjFailed)
		}
		return nil
	}
	cfg.OnChange("oom-score-adj", apply)
	cfg.OnChange("oom-score-adj-values", apply)
}

// ApplyOOMScoreAdj sets the process's OOM score as configured, as Redis
// does once it is ready to serve (a failure is logged only).
func (s *Server) ApplyOOMScoreAdj() { s.setOOMScoreAdj(-1) }

// setOOMScoreAdj is Redis's setOOMScoreAdj (server.c) for the process's
// own class: class -1 is the replica class with replicaof set, else the
// master class. With oom-score-adj relative (or yes) it writes the class's
// value plus the score the process had when the server first took control
// of it, with absolute the value alone (clamped to -1000..1000); with "no"
// it restores that first score, once. It logs a failure to read or write
// the score and reports it with false.
func (s *Server) setOOMScoreAdj(class int) bool {
	if class == -1 {
		class = oomMaster
		if _, _, ok := s.cfg.Lookup("replicaof").ReplicaOf(); ok {
			class = oomReplica
		}
	}
	s.oom.mu.Lock()
	defer s.oom.mu.Unlock()
	var val int
	switch mode := s.cfg.Lookup("oom-score-adj").Int(); {
	case mode != 0:
		if !s.oom.adjusted {
			b, err := os.ReadFile(s.oom.path)
			if err != nil {
				s.warnf("Unable to read oom_score_adj: %s", errnoText(err))
				return false
			}
			s.oom.adjusted = true
			s.oom.base = atoiPrefix(string(b))
		}
		val = s.cfg.Lookup("oom-score-adj-values").OOMScoreAdjValues()[class]
		if mode == 1 { // relative (yes)
			val += s.oom.base
		}
		val = min(max(val, -1000), 1000)
	case s.oom.adjusted:
		s.oom.adjusted = false
		val = s.oom.base
	default:
		return true
	}
	f, err := os.OpenFile(s.oom.path, os.O_WRONLY|os.O_TRUNC, 0)
	if err == nil {
		_, err = f.WriteString(strconv.Itoa(val) + "\n")
		f.Close()
	}
	if err != nil {
		s.warnf("Unable to write oom_score_adj: %s", errnoText(err))
		return false
	}
	return true
}

// bgChildOOMScore is the OOM score a background child sets for itself,
// as Redis's child's setOOMScoreAdj(CONFIG_OOM_BGCHILD): the bgchild
// class's value of oom-score-adj-values, plus the score the server had
// before it first changed its own with oom-score-adj relative (yes),
// clamped to -1000..1000; set false with oom-score-adj no.
func (s *Server) bgChildOOMScore() (score int, set bool) {
	mode := s.cfg.Lookup("oom-score-adj").Int()
	if mode == 0 {
		return 0, false
	}
	score = s.cfg.Lookup("oom-score-adj-values").OOMScoreAdjValues()[oomBgChild]
	if mode == 1 {
		s.oom.mu.Lock()
		base, ok := s.oom.base, s.oom.adjusted
		s.oom.mu.Unlock()
		if !ok {
			b, err := os.ReadFile(s.oom.path)
			if err != nil {
				return 0, false
			}
			base = atoiPrefix(string(b))
		}
		score += base
	}
	return min(max(score, -1000), 1000), true
}

// atoiPrefix is C's atoi: the optional sign and digits after leading
// white space, 0 when there are none.
func atoiPrefix(s string) int {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	n, _ := strconv.Atoi(s[:i])
	return n
}

// errnoText is the system error of a failed file operation, capitalized
// as C's strerror writes it ("Permission denied").
func errnoText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	t := err.Error()
	if t != "" && t[0] >= 'a' && t[0] <= 'z' {
		t = string(t[0]-'a'+'A') + t[1:]
	}
	return t
}
