package server

// listCommands is the list command group (issue #3).
func listCommands() []*Command {
	return nil
}
