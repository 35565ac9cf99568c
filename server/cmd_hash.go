package server

// hashCommands is the hash command group (issue #3).
func hashCommands() []*Command {
	return nil
}
