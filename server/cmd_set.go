package server

// setCommands is the set command group (issue #3).
func setCommands() []*Command {
	return nil
}
