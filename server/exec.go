package server

import "time"

// execute runs one command whose locks are held — by the command itself
// (the gate's call), by its transaction (EXEC) or by its script
// (redis.call) — and accounts for it: the handler, the record of what it
// propagates, its command statistics and the slow log. It is the one step
// every command that runs takes; MONITOR sees it here, once it ran. start
// is when the command started
// (monoNow); it returns when it ended and whether it failed (replied with
// an error). parked says the handler parked the client for its locks
// (EXEC, a script): nothing ran, and the command runs again later.
func (s *Server) execute(c *Client, cmd *Command, args [][]byte, start time.Duration) (end time.Duration, failed, parked bool) {
	errs := c.errors
	s.runHandler(c, cmd, args)
	if c.parked != nil {
		return 0, false, true
	}
	if s.monitors.Load() > 0 && cmd.monitored() && !c.replaying {
		s.feedMonitors(c, args) // once it ran, as Redis's call()
	}
	failed = c.errors != errs
	c.recordWrite(cmd, args, failed)
	end = monoNow()
	if w := c.blocked; w != nil {
		// Counted and logged when it is answered (finish), as Redis's
		// updateStatsOnUnblock.
		w.cmd, w.args, w.took = cmd, copyArgs(args), end-start
		return end, false, false
	}
	c.stats.count(cmd, end-start, failed)
	if !c.replaying { // Redis runs the file's commands without call()
		s.slowlog.maybeAdd(s, c, cmd, args, end-start)
	}
	return end, failed, false
}
