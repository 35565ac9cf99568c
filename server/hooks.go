package server

// Hooks are where capabilities that live in packages of their own join
// the executor (exec.go) without the executor knowing them: ACL
// permissions and cluster routing refuse commands, and search locks its
// indexes before a command's locks are taken. (The disk tier's loads
// before locks are the executor's own: lockLoaded, tierprep.go, since
// they park the client.) They are installed before the server serves (AddHooks) and read
// without locks afterwards.
type Hooks struct {
	// Refuse runs before every command the executor runs — a client's
	// own, each of EXEC's queued commands, each redis.call — with the
	// positions of its keys in args (from the key spec), before its locks
	// are taken. It returns the error the command is refused with, or ""
	// to let it run. A refused command is answered with the error and
	// counted as rejected, as Redis counts a command its ACL refuses.
	Refuse []func(c *Client, cmd *Command, args [][]byte, keyPos []int) string
	// RefuseActive, when set, reports whether these Refuse hooks may
	// refuse anything now (ACL: some user is restricted); while it and
	// every other installed set's report false, the executor skips the
	// Refuse hooks and the key positions they would receive. Unset, the
	// hooks always run.
	RefuseActive func() bool
	// Prepare runs with the keys a command, a transaction (the union of
	// its queue's) or a script (its declared keys) is about to lock, on
	// the client's goroutine, before the locks are asked for; keys is
	// empty when the global lock is asked for. It must not take a key
	// lock.
	Prepare []func(c *Client, keys [][]byte)
}

// AddHooks installs h's hooks after those already installed. It must be
// called before Serve.
func (s *Server) AddHooks(h Hooks) {
	s.hooks.Refuse = append(s.hooks.Refuse, h.Refuse...)
	s.hooks.Prepare = append(s.hooks.Prepare, h.Prepare...)
	if len(h.Refuse) > 0 {
		if h.RefuseActive == nil {
			s.hooks.refuseAlways = true
		} else {
			s.hooks.refuseActive = append(s.hooks.refuseActive, h.RefuseActive)
		}
	}
}

// installedHooks is the hooks installed (AddHooks): Hooks, and whether the
// Refuse hooks may refuse now.
type installedHooks struct {
	Hooks
	refuseAlways bool          // a set of Refuse hooks has no RefuseActive
	refuseActive []func() bool // the RefuseActive of the others
}

// refusing reports whether a Refuse hook may refuse now: the executor
// runs them (and finds the keys they receive) only then.
func (h *installedHooks) refusing() bool {
	if h.refuseAlways {
		return true
	}
	for _, active := range h.refuseActive {
		if active() {
			return true
		}
	}
	return false
}

// refuse returns the first refusal of the Refuse hooks, or "".
func (h *Hooks) refuse(c *Client, cmd *Command, args [][]byte, keyPos []int) string {
	for _, f := range h.Refuse {
		if msg := f(c, cmd, args, keyPos); msg != "" {
			return msg
		}
	}
	return ""
}
