package server

// registerCommands fills the command table from every command group. Each
// cmd_<group>.go file contributes one function returning its rows.
func (s *Server) registerCommands() {
	for _, group := range [][]*Command{
		connectionCommands(),
		stringCommands(),
		bitmapCommands(),
		hllCommands(),
		pubsubCommands(),
		keyCommands(),
		serverCommands(),
		clientCommands(),
		configCommands(),
		introspectionCommands(),
		latencyCommands(),
		clusterCommands(),
		hashCommands(),
		setCommands(),
		listCommands(),
		listBlockingCommands(),
		zsetCommands(),
		zsetBlockingCommands(),
		geoCommands(),
		sortCommands(),
		transactionCommands(),
		scriptingCommands(),
		dumpCommands(),
		migrateCommands(),
		lolwutCommands(),
		streamCommands(),
		replicationCommands(),
		moduleCommands(),
		aclCommands(),
		searchCommands(),
		suggestCommands(),
	} {
		s.table.add(group...)
	}
}
