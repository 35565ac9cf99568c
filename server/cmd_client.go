package server

func clientCommands() []*Command {
	return nil
}
