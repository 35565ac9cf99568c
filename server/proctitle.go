package server

import (
	"errors"
	"sync"

	"github.com/hotkv/hotkv/config"
)

// procTitleState is the process title the server manages (Redis's
// redisSetProcTitle): set is nil until ManageProcTitle, so that a server
// run inside another program (the tests) leaves that program's title
// alone.
type procTitleState struct {
	mu    sync.Mutex
	set   func(string) error // proctitle.Set
	title string             // the template's {title}: argv[0] as run
}

// procTitleHooks applies proc-title-template when CONFIG SET changes it
// (Redis's updateProcTitleTemplate, which sets the title whatever
// set-proc-title says): a failure vetoes the change.
func (s *Server) procTitleHooks(cfg *config.Config) {
	cfg.OnChange("proc-title-template", func(*config.Param) error {
		if err := s.setProcTitle(); err != nil {
			return errors.New("failed to set process title")
		}
		return nil
	})
}

// ManageProcTitle makes the server own the process title: title is the
// template's {title} (argv[0] as the process was run, read before set
// could change it) and set writes a title (proctitle.Set). With
// set-proc-title yes the title is set now, as Redis does once it has
// initialised the server (initServer), before loading the data; a failure
// is logged.
func (s *Server) ManageProcTitle(title string, set func(string) error) {
	s.ptitle.mu.Lock()
	s.ptitle.title, s.ptitle.set = title, set
	s.ptitle.mu.Unlock()
	if s.cfg.Lookup("set-proc-title").Bool() {
		if err := s.setProcTitle(); err != nil {
			s.warnf("Unable to set the process title: %v", err)
		}
	}
}

// setProcTitle sets the title proc-title-template makes with the current
// configuration; it does nothing before ManageProcTitle.
func (s *Server) setProcTitle() error {
	s.ptitle.mu.Lock()
	defer s.ptitle.mu.Unlock()
	if s.ptitle.set == nil {
		return nil
	}
	title, ok := s.cfg.ExpandProcTitle(s.cfg.Lookup("proc-title-template").String(), s.ptitle.title)
	if !ok { // not likely: the template is validated
		return errors.New("invalid proc-title-template")
	}
	return s.ptitle.set(title)
}
