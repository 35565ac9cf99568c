package server

import "fmt"

// An error reply to a replica's master, to the client that replays the
// append-only file, or to a replica is unexpected: the command that got
// it was applied on the master (or when the file was written) and
// failed here, so the datasets may have diverged. As Redis's
// afterErrorReply, such an error is logged ("== CRITICAL =="), counted
// (INFO unexpected_error_replies), and, as propagation-error-behavior
// says, ends the process: "panic" for the file and for a read-only
// replica's master, "panic-on-replicas" for the master only.

// Redis's propagation-error-behavior values (config's enum).
const (
	propagationIgnore          = "ignore"
	propagationPanic           = "panic"
	propagationPanicOnReplicas = "panic-on-replicas"
)

// unexpectedError handles the error reply msg to c when c is a master,
// the append-only file's replay or a replica; other clients are left
// alone.
func (c *Client) unexpectedError(msg string) {
	var from, to string
	switch {
	case c.replaying:
		from, to = "server", "AOF-loading-client"
	case c.obey:
		from, to = "replica", "master"
	case c.replica.Load() != nil:
		from, to = "master", "replica"
	default:
		return
	}
	s := c.srv
	name := "<unknown>"
	if cmd := c.lastLookup; cmd != nil {
		name = cmd.fullName()
	}
	if len(msg) > 4096 {
		msg = msg[:4096]
	}
	s.warnf("== CRITICAL == This %s is sending an error to its %s: '%s' after processing the command '%s'", from, to, msg, name)
	s.stats.unexpectedErrors.Add(1)
	behavior := s.cfg.Lookup("propagation-error-behavior").Enum()
	panicReplica := c.obey && !c.replaying && s.readOnlyReplica() &&
		(behavior == propagationPanic || behavior == propagationPanicOnReplicas)
	panicAOF := c.replaying && behavior == propagationPanic
	if panicReplica || panicAOF {
		s.guruMeditation(fmt.Sprintf("This %s panicked sending an error to its %s after processing the command '%s'", from, to, name))
	}
}

// guruMeditation ends the process as Redis's serverPanic does: the
// reason in the log, then an exit with the status of an abort.
func (s *Server) guruMeditation(reason string) {
	s.warnf("------------------------------------------------")
	s.warnf("!!! Software Failure. Press left mouse button to continue")
	s.warnf("Guru Meditation: %s", reason)
	s.RemovePidFile()
	exitProcess(134) // 128 + SIGABRT, as a process that aborts
}
