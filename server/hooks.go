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
