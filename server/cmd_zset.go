package server

// zsetCommands is the zset command group (issue #3).
func zsetCommands() []*Command {
	return nil
}
